//! What the WebAssembly module (`make wasm`, go/criopin/crio_pin.wasm)
//! exports beside the C ABI of [`crate::ffi`]: an allocator, so that its
//! host (package criopin's wasm backend) can reserve memory inside the
//! module for the patterns and names it passes to the C functions; and a
//! compile of a list the host has fingerprinted itself. A C caller passes
//! its own memory and needs none of this, so it stays out of the header
//! (cbindgen reads `src/ffi.rs` only).

use std::alloc::{alloc, dealloc, Layout};
use std::ffi::c_char;

use crate::ffi::{compile_set, crio_pin_error, crio_pin_set, CRIO_PIN_FINGERPRINT_BYTES};
use crate::{Fingerprint, PinSet};

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

/// crio_pin_compile() of a list whose fingerprint its host has computed:
/// `fingerprint`, `CRIO_PIN_FINGERPRINT_BYTES` bytes, is what
/// crio_pin_list_fingerprint() writes for the same arguments, and what
/// crio_pin_fingerprint() then gives for the set. SHA-256 in the module's
/// code was the largest part of compiling a large list (in the module
/// translated to Go, 44% of compiling the OpenShift-shaped list); the
/// host's runs on the machine's own instructions. Package criopin's
/// tests hold the host's hash to the module's.
///
/// # Safety
/// As crio_pin_compile(); `fingerprint` points to that many readable bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_wasm_compile_fingerprinted(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    fingerprint: *const u8,
    error_out: *mut *mut crio_pin_error,
) -> *mut crio_pin_set {
    // SAFETY: the caller's contract.
    let fingerprint = Fingerprint::from_bytes(unsafe { fingerprint.cast::<[u8; CRIO_PIN_FINGERPRINT_BYTES]>().read() });
    // SAFETY: the caller's contract.
    unsafe {
        compile_set(patterns, lengths, count, flags, error_out, |p, f| PinSet::compile_fingerprinted(p, f, fingerprint))
    }
}
