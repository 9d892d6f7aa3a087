//! What the WebAssembly module (`make wasm`, go/criopin/crio_pin.wasm)
//! exports beside the C ABI of [`crate::ffi`]: an allocator, so that its
//! host (package criopin's wasm backend) can reserve memory inside the
//! module for the patterns and names it passes to the C functions. A C
//! caller passes its own memory and needs none of this, so it stays out of
//! the header (cbindgen reads `src/ffi.rs` only).

use std::alloc::{alloc, dealloc, Layout};

/// Reserves `size` bytes (at least 1) aligned for any C ABI argument;
/// NULL when the module's memory cannot grow.
#[no_mangle]
pub extern "C" fn crio_pin_wasm_alloc(size: usize) -> *mut u8 {
    match layout(size) {
        // SAFETY: the layout's size is not zero.
        Some(layout) => unsafe { alloc(layout) },
        None => std::ptr::null_mut(),
    }
}

/// Returns what crio_pin_wasm_alloc(size) reserved; NULL is a no-op.
///
/// # Safety
/// `ptr` is NULL or came from crio_pin_wasm_alloc with this `size`, once.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_wasm_free(ptr: *mut u8, size: usize) {
    if let (false, Some(layout)) = (ptr.is_null(), layout(size)) {
        // SAFETY: the caller's contract: allocated with this layout.
        unsafe { dealloc(ptr, layout) }
    }
}

/// The alignment of a pointer and a `size_t`, the widest of the arguments.
fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.max(1), std::mem::align_of::<usize>()).ok()
}
