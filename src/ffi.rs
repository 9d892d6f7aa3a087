//! The C ABI. Every function here only checks pointers, converts, and
//! catches panics; the work is done by the safe core ([`crate::PinSet`]).
//!
//! Conventions (the header repeats them per function):
//! - A `crio_pin_set *` is an `Arc<PinSet>` turned into a raw pointer: it is
//!   immutable and may be used from any number of threads at once.
//!   crio_pin_clone() adds an owner, crio_pin_free() drops one.
//! - A byte string is a pointer and a length; `(NULL, 0)` is the empty
//!   string, and a NULL pointer with a non-zero length is never read.
//! - No panic crosses the boundary: a bug inside comes out as the
//!   function's failure value (NULL with an error, `false`, `-1`, `0`).

use std::any::Any;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::{CompileError, Flags, PinSet};

/// CRI-O's semantics, quirks included: globs match anywhere in the name,
/// comparison is case-insensitive (Go's Unicode simple folding).
pub const CRIO_PIN_DEFAULT: u32 = 0;
/// A glob `prefix*` matches only names that start with `prefix`.
pub const CRIO_PIN_ANCHOR_GLOBS: u32 = 1;
/// No case folding: letters must match in case exactly. Names still decode
/// as Go decodes them (each invalid UTF-8 byte reads as U+FFFD).
pub const CRIO_PIN_CASE_SENSITIVE: u32 = 2;
/// Reject likely mistakes: empty patterns, a literal `*`, whitespace and
/// control characters.
pub const CRIO_PIN_STRICT: u32 = 4;

const _: () = assert!(
    CRIO_PIN_DEFAULT == Flags::DEFAULT.bits()
        && CRIO_PIN_ANCHOR_GLOBS == Flags::ANCHOR_GLOBS.bits()
        && CRIO_PIN_CASE_SENSITIVE == Flags::CASE_SENSITIVE.bits()
        && CRIO_PIN_STRICT == Flags::STRICT.bits()
);

/// A compiled pattern set (opaque). Immutable once compiled: any number of
/// threads may match on one set at once, without locking. Reference
/// counted: see crio_pin_clone() and crio_pin_free().
#[allow(non_camel_case_types)]
pub struct crio_pin_set {
    // Never constructed: a `crio_pin_set *` is an `Arc<PinSet>` raw pointer.
    _opaque: [u8; 0],
}

/// Why crio_pin_compile() failed (opaque): a message and the offending
/// pattern's index. Owned by the caller; not shared between threads while
/// being freed.
#[allow(non_camel_case_types)]
pub struct crio_pin_error {
    message: CString,
    pattern_index: isize,
}

impl crio_pin_error {
    fn new(message: String, pattern_index: Option<usize>) -> Box<crio_pin_error> {
        // Messages quote patterns with escapes, so they hold no NUL; strip
        // any anyway rather than lose the message.
        let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
        let pattern_index = pattern_index.and_then(|i| isize::try_from(i).ok()).unwrap_or(-1);
        Box::new(crio_pin_error { message, pattern_index })
    }

    fn from_panic(payload: Box<dyn Any + Send>) -> Box<crio_pin_error> {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        crio_pin_error::new(
            format!("internal error in crio-pin (a bug, please report it): {what}"),
            None,
        )
    }
}

impl From<CompileError> for Box<crio_pin_error> {
    fn from(err: CompileError) -> Box<crio_pin_error> {
        crio_pin_error::new(err.to_string(), err.pattern_index())
    }
}

/// Runs `f`, turning a panic into `failure`.
fn guard<T>(failure: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(|| {
        panic_injection::check();
        f()
    }))
    .unwrap_or(failure)
}

/// Test-only: makes the next guarded call on this thread panic inside the
/// boundary, to prove every export turns a panic into its failure value.
/// Compiled out of non-test builds.
mod panic_injection {
    #[cfg(test)]
    thread_local! {
        pub(super) static ARMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[inline(always)]
    pub(super) fn check() {
        #[cfg(test)]
        if ARMED.with(|armed| armed.replace(false)) {
            panic!("injected panic");
        }
    }
}

/// The `len` bytes at `ptr`: `(NULL, 0)` or any pointer with length 0 is
/// the empty string; `None` for NULL with a non-zero length.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes.
unsafe fn bytes<'a>(ptr: *const c_char, len: usize) -> Option<&'a [u8]> {
    slice(ptr.cast::<u8>(), len)
}

/// The `count` elements at `ptr`, as [`bytes`] does for bytes.
///
/// # Safety
/// A non-NULL `ptr` must point to `count` readable, initialised elements.
unsafe fn slice<'a, T>(ptr: *const T, count: usize) -> Option<&'a [T]> {
    if count == 0 {
        return Some(&[]);
    }
    if ptr.is_null() || count > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return None;
    }
    // SAFETY: non-NULL, within isize::MAX bytes, and readable by the
    // caller's contract.
    Some(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// The names packed back to back in `names`, `lengths[i]` bytes each; `None`
/// when the arguments are invalid (NULL where data is needed, or lengths
/// whose sum overflows).
///
/// # Safety
/// Non-NULL pointers must point to `count` lengths and their total of bytes.
unsafe fn packed<'a>(
    names: *const c_char,
    lengths: *const usize,
    count: usize,
) -> Option<impl Iterator<Item = &'a [u8]>> {
    let lengths = unsafe { slice(lengths, count) }?;
    let total = lengths.iter().try_fold(0usize, |sum, &len| sum.checked_add(len))?;
    let mut buffer = unsafe { bytes(names, total) }?;
    Some(lengths.iter().map(move |&len| {
        let (name, rest) = buffer.split_at(len);
        buffer = rest;
        name
    }))
}

/// Borrows the set behind a handle; NULL is the empty set.
///
/// # Safety
/// A non-NULL `set` must come from crio_pin_compile() or crio_pin_clone()
/// and not have been freed.
unsafe fn set_ref<'a>(set: *const crio_pin_set) -> Option<&'a PinSet> {
    // SAFETY: by the caller's contract the pointer is a live Arc<PinSet>.
    unsafe { set.cast::<PinSet>().as_ref() }
}

/// Compiles `count` patterns into a set.
///
/// - `patterns`: `count` pointers to pattern bytes (UTF-8). May be NULL only
///   when `count` is 0 (the empty set). Read during the call only; the set
///   keeps no pointer into them.
/// - `lengths`: `count` lengths, or NULL when every pattern is NUL-terminated.
///   With lengths, a pattern may hold any byte (a NUL is a character) and a
///   NULL entry with length 0 is the empty pattern.
/// - `flags`: `CRIO_PIN_DEFAULT` or an OR of `CRIO_PIN_ANCHOR_GLOBS`,
///   `CRIO_PIN_CASE_SENSITIVE`, `CRIO_PIN_STRICT`. Unknown bits are an error.
/// - `error_out`: may be NULL. Otherwise, on failure `*error_out` receives an
///   error the caller owns (free it with crio_pin_error_free()); on success it
///   is set to NULL.
///
/// Returns a new set, owned by the caller (free it with crio_pin_free()), or
/// NULL on failure: an invalid pattern (the error names its index and says
/// what to write instead), unknown flags, a NULL array or entry where data
/// is needed, a list over the limits (at most 10,000,000 patterns and
/// 64 MiB of pattern text in all), or an internal error. Thread-safe.
///
/// # Safety
/// Non-NULL pointers must point to what is described above.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_compile(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    error_out: *mut *mut crio_pin_error,
) -> *mut crio_pin_set {
    let result = catch_unwind(AssertUnwindSafe(|| {
        panic_injection::check();
        // SAFETY: the caller's contract.
        unsafe { compile(patterns, lengths, count, flags) }
    }))
    .unwrap_or_else(|payload| Err(crio_pin_error::from_panic(payload)));
    let (set, error) = match result {
        Ok(set) => (Arc::into_raw(Arc::new(set)).cast::<crio_pin_set>().cast_mut(), std::ptr::null_mut()),
        Err(error) => (std::ptr::null_mut(), Box::into_raw(error)),
    };
    if error_out.is_null() {
        // Nobody will read it: drop it here rather than leak it.
        // SAFETY: just made by Box::into_raw (or NULL).
        unsafe { crio_pin_error_free(error) };
    } else {
        // SAFETY: the caller passed a writable pointer.
        unsafe { error_out.write(error) };
    }
    set
}

/// # Safety
/// As crio_pin_compile().
unsafe fn compile(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
) -> Result<PinSet, Box<crio_pin_error>> {
    let flags = Flags::from_bits(flags)?;
    let Some(pointers) = (unsafe { slice(patterns, count) }) else {
        return Err(crio_pin_error::new(
            if patterns.is_null() {
                format!("patterns is NULL but count is {count}; pass count 0 for an empty set")
            } else {
                format!("count {count} is larger than any array can hold")
            },
            None,
        ));
    };
    let lengths = if lengths.is_null() {
        None
    } else {
        // Non-NULL and count fits: pointers above passed the same check.
        Some(unsafe { slice(lengths, count) }.expect("checked like patterns"))
    };
    let mut texts: Vec<&[u8]> = Vec::with_capacity(count);
    for (i, &ptr) in pointers.iter().enumerate() {
        let len = lengths.map(|l| l[i]);
        let text = match len {
            None if ptr.is_null() => None,
            // SAFETY: a non-NULL entry without lengths is NUL-terminated.
            None => Some(unsafe { CStr::from_ptr(ptr) }.to_bytes()),
            // SAFETY: a non-NULL entry with lengths has lengths[i] bytes.
            Some(len) => unsafe { bytes(ptr, len) },
        };
        let Some(text) = text else {
            // Report the first bad pattern in list order: an earlier pattern
            // may be invalid too.
            PinSet::compile(&texts, flags)?;
            let message = match len {
                Some(len) if !ptr.is_null() => {
                    format!("pattern {i} has length {len}, larger than any buffer can hold")
                }
                Some(len) => format!(
                    "pattern {i} is NULL with length {len}; NULL is allowed only with length 0 \
                     (the empty pattern)"
                ),
                None => format!(
                    "pattern {i} is NULL; without lengths every pattern must be a \
                     NUL-terminated string"
                ),
            };
            return Err(crio_pin_error::new(message, Some(i)));
        };
        texts.push(text);
    }
    Ok(PinSet::compile(texts, flags)?)
}

/// Whether `name` (`length` bytes, any bytes) is pinned by `set`.
///
/// `set` NULL is the empty set (false). `(NULL, 0)` is the empty name; NULL
/// with a non-zero length is never read and gives false. Thread-safe: any
/// number of threads may match on one set at once.
///
/// # Safety
/// `set` is NULL or live; a non-NULL `name` points to `length` bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_match(set: *const crio_pin_set, name: *const c_char, length: usize) -> bool {
    guard(false, || {
        // SAFETY: the caller's contract.
        let (set, name) = unsafe { (set_ref(set), bytes(name, length)) };
        matches!((set, name), (Some(set), Some(name)) if set.is_match(name))
    })
}

/// The lowest index of a pattern matching `name`, or -1 when none does: the
/// first regexp in CRI-O's loop that would match.
///
/// NULL handling as crio_pin_match() (-1 where that gives false).
/// Thread-safe.
///
/// # Safety
/// As crio_pin_match().
#[no_mangle]
pub unsafe extern "C" fn crio_pin_match_index(
    set: *const crio_pin_set,
    name: *const c_char,
    length: usize,
) -> isize {
    guard(-1, || {
        // SAFETY: the caller's contract.
        let (set, name) = unsafe { (set_ref(set), bytes(name, length)) };
        match (set, name) {
            (Some(set), Some(name)) => set
                .match_index(name)
                .map_or(-1, |i| isize::try_from(i).unwrap_or(isize::MAX)),
            _ => -1,
        }
    })
}

/// Whether any of `count` names is pinned (all the names of one image).
///
/// The names are packed back to back in `names`, `lengths[i]` bytes each.
/// `count` 0 gives false. `names` may be NULL only when every length is 0
/// (all names empty). Invalid arguments (NULL `lengths` with `count` > 0,
/// NULL `names` with data, lengths whose sum overflows) give false.
/// `set` NULL is the empty set. Thread-safe.
///
/// # Safety
/// `set` is NULL or live; non-NULL `lengths` points to `count` lengths and
/// non-NULL `names` to their sum of bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_match_any(
    set: *const crio_pin_set,
    names: *const c_char,
    lengths: *const usize,
    count: usize,
) -> bool {
    guard(false, || {
        // SAFETY: the caller's contract.
        let (set, names) = unsafe { (set_ref(set), packed(names, lengths, count)) };
        match (set, names) {
            (Some(set), Some(names)) => set.match_any(names),
            _ => false,
        }
    })
}

/// Matches each of `count` packed names (as crio_pin_match_any() takes them)
/// and writes `results[i]` = 1 when name i is pinned, else 0.
///
/// Returns how many names are pinned. `results` must have room for `count`
/// bytes; NULL `results` with `count` > 0 writes nothing and returns 0. On
/// invalid arguments (as for crio_pin_match_any()) every result is 0 and it
/// returns 0. `set` NULL is the empty set (all 0). Thread-safe.
///
/// # Safety
/// As crio_pin_match_any(), and non-NULL `results` points to `count`
/// writable bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_match_each(
    set: *const crio_pin_set,
    names: *const c_char,
    lengths: *const usize,
    count: usize,
    results: *mut u8,
) -> usize {
    if results.is_null() || count == 0 {
        return 0;
    }
    if count > isize::MAX as usize {
        return 0;
    }
    // SAFETY: non-NULL and `count` writable bytes by the caller's contract.
    let results = unsafe { std::slice::from_raw_parts_mut(results, count) };
    results.fill(0);
    guard(0, || {
        // SAFETY: the caller's contract.
        let (set, names) = unsafe { (set_ref(set), packed(names, lengths, count)) };
        let (Some(set), Some(names)) = (set, names) else { return 0 };
        let mut pinned = 0;
        for (result, name) in results.iter_mut().zip(names) {
            *result = u8::from(set.is_match(name));
            pinned += usize::from(*result);
        }
        pinned
    })
}

/// How many patterns `set` was compiled from (duplicates included); 0 for
/// NULL. Thread-safe.
///
/// # Safety
/// `set` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_len(set: *const crio_pin_set) -> usize {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { set_ref(set) }.map_or(0, PinSet::len))
}

/// Another owner of the same compiled set: the same pointer, with its
/// reference count raised. Each pointer returned by crio_pin_compile() or
/// crio_pin_clone() must be passed to crio_pin_free() once; the set lives
/// until the last owner frees it. NULL gives NULL. Thread-safe (may run while
/// other threads match, clone or free other owners).
///
/// # Safety
/// `set` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_clone(set: *const crio_pin_set) -> *mut crio_pin_set {
    if !set.is_null() {
        // SAFETY: a live pointer from Arc::into_raw.
        unsafe { Arc::increment_strong_count(set.cast::<PinSet>()) };
    }
    set.cast_mut()
}

/// Drops one owner of `set`; the last one frees it. NULL is a no-op. Using
/// or freeing a pointer again after its owner freed it is undefined, as is
/// freeing an owner while another thread still uses that same owner.
///
/// # Safety
/// `set` is NULL, or a live owner from crio_pin_compile()/crio_pin_clone().
#[no_mangle]
pub unsafe extern "C" fn crio_pin_free(set: *mut crio_pin_set) {
    if !set.is_null() {
        // SAFETY: one owner of an Arc made by Arc::into_raw. Dropping a
        // PinSet frees memory only; it cannot panic.
        drop(unsafe { Arc::from_raw(set.cast_const().cast::<PinSet>()) });
    }
}

/// The error's message: which pattern (index and text), what is wrong, what
/// to write instead. NUL-terminated, owned by `error`, valid until
/// crio_pin_error_free(). NULL gives "" (never NULL).
///
/// # Safety
/// `error` is NULL or a live error.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_error_message(error: *const crio_pin_error) -> *const c_char {
    // SAFETY: the caller's contract.
    match unsafe { error.as_ref() } {
        Some(error) => error.message.as_ptr(),
        None => c"".as_ptr(),
    }
}

/// The index of the pattern that caused the error, or -1 when no single
/// pattern did (unknown flags, NULL array, internal error) or `error` is
/// NULL.
///
/// # Safety
/// `error` is NULL or a live error.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_error_pattern_index(error: *const crio_pin_error) -> isize {
    // SAFETY: the caller's contract.
    unsafe { error.as_ref() }.map_or(-1, |e| e.pattern_index)
}

/// Frees an error. NULL is a no-op.
///
/// # Safety
/// `error` is NULL or a live error from crio_pin_compile(), freed once.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_error_free(error: *mut crio_pin_error) {
    if !error.is_null() {
        // SAFETY: made by Box::into_raw in crio_pin_compile.
        drop(unsafe { Box::from_raw(error) });
    }
}

/// The library's version, "MAJOR.MINOR.PATCH" (NUL-terminated, static),
/// equal to the crate version and to `CRIO_PIN_VERSION_*` in the header the
/// caller was built with when both come from the same release.
#[no_mangle]
pub extern "C" fn crio_pin_version() -> *const c_char {
    VERSION.as_ptr()
}

const VERSION: &CStr = match CStr::from_bytes_with_nul(
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
) {
    Ok(version) => version,
    Err(_) => panic!("crate version holds a NUL"),
};

#[cfg(test)]
mod tests {
    //! The C contract exercised from Rust (these also run under Miri where
    //! it is installed: `make miri`).
    use super::*;
    use std::ptr::{null, null_mut};

    fn compile_ok(patterns: &[&str], flags: u32) -> *mut crio_pin_set {
        let ptrs: Vec<*const c_char> = patterns.iter().map(|p| p.as_ptr().cast()).collect();
        let lens: Vec<usize> = patterns.iter().map(|p| p.len()).collect();
        let mut error = null_mut();
        let set = unsafe { crio_pin_compile(ptrs.as_ptr(), lens.as_ptr(), ptrs.len(), flags, &mut error) };
        assert!(!set.is_null(), "{:?}", unsafe { CStr::from_ptr(crio_pin_error_message(error)) });
        assert!(error.is_null());
        set
    }

    fn compile_err(patterns: *const *const c_char, lengths: *const usize, count: usize, flags: u32) -> (String, isize) {
        let mut error = null_mut();
        let set = unsafe { crio_pin_compile(patterns, lengths, count, flags, &mut error) };
        assert!(set.is_null());
        assert!(!error.is_null());
        let out = unsafe {
            (
                CStr::from_ptr(crio_pin_error_message(error)).to_str().unwrap().to_string(),
                crio_pin_error_pattern_index(error),
            )
        };
        unsafe { crio_pin_error_free(error) };
        out
    }

    fn name_match(set: *const crio_pin_set, name: &[u8]) -> (bool, isize) {
        unsafe {
            (
                crio_pin_match(set, name.as_ptr().cast(), name.len()),
                crio_pin_match_index(set, name.as_ptr().cast(), name.len()),
            )
        }
    }

    #[test]
    fn compile_match_free() {
        let set = compile_ok(&["quay.io/*", "*pause*"], CRIO_PIN_DEFAULT);
        assert_eq!(name_match(set, b"x/quay.io/y"), (true, 0));
        assert_eq!(name_match(set, b"PAUSE"), (true, 1));
        assert_eq!(name_match(set, b"nginx"), (false, -1));
        assert_eq!(unsafe { crio_pin_len(set) }, 2);
        unsafe { crio_pin_free(set) };
    }

    #[test]
    fn nul_terminated_patterns() {
        let patterns = [c"quay.io/*".as_ptr(), c"".as_ptr()];
        let mut error = null_mut();
        let set = unsafe { crio_pin_compile(patterns.as_ptr(), null(), 2, 0, &mut error) };
        assert!(!set.is_null());
        assert_eq!(name_match(set, b""), (true, 1));
        unsafe { crio_pin_free(set) };
    }

    #[test]
    fn null_set_is_the_empty_set() {
        assert_eq!(name_match(null(), b"anything"), (false, -1));
        assert_eq!(unsafe { crio_pin_len(null()) }, 0);
        let lens = [1usize];
        assert!(!unsafe { crio_pin_match_any(null(), c"a".as_ptr(), lens.as_ptr(), 1) });
        let mut results = [7u8];
        assert_eq!(unsafe { crio_pin_match_each(null(), c"a".as_ptr(), lens.as_ptr(), 1, results.as_mut_ptr()) }, 0);
        assert_eq!(results, [0]);
        assert!(unsafe { crio_pin_clone(null()) }.is_null());
        unsafe { crio_pin_free(null_mut()) };
        unsafe { crio_pin_error_free(null_mut()) };
    }

    #[test]
    fn null_names() {
        let set = compile_ok(&["", "x"], 0);
        unsafe {
            assert!(crio_pin_match(set, null(), 0), "(NULL, 0) is the empty name");
            assert_eq!(crio_pin_match_index(set, null(), 0), 0);
            assert!(!crio_pin_match(set, null(), 5), "NULL with a length is never read");
            assert_eq!(crio_pin_match_index(set, null(), 5), -1);
            let zeros = [0usize, 0];
            assert!(crio_pin_match_any(set, null(), zeros.as_ptr(), 2));
            let mut results = [9u8; 2];
            assert_eq!(crio_pin_match_each(set, null(), zeros.as_ptr(), 2, results.as_mut_ptr()), 2);
            assert_eq!(results, [1, 1]);
            let some = [0usize, 1];
            assert!(!crio_pin_match_any(set, null(), some.as_ptr(), 2));
            assert_eq!(crio_pin_match_each(set, null(), some.as_ptr(), 2, results.as_mut_ptr()), 0);
            assert_eq!(results, [0, 0]);
            assert!(!crio_pin_match_any(set, c"x".as_ptr(), null(), 1));
            assert_eq!(crio_pin_match_each(set, c"x".as_ptr(), null(), 1, results.as_mut_ptr()), 0);
            assert_eq!(crio_pin_match_each(set, c"x".as_ptr(), some.as_ptr(), 2, null_mut()), 0);
            assert!(!crio_pin_match_any(set, null(), null(), 0));
            crio_pin_free(set);
        }
    }

    #[test]
    fn packed_names() {
        let set = compile_ok(&["quay.io/*"], 0);
        let names = b"docker.io/xquay.io/yz";
        let lens = [11usize, 9, 1];
        let mut results = [9u8; 3];
        unsafe {
            assert!(crio_pin_match_any(set, names.as_ptr().cast(), lens.as_ptr(), 3));
            assert!(!crio_pin_match_any(set, names.as_ptr().cast(), lens.as_ptr(), 1));
            assert_eq!(crio_pin_match_each(set, names.as_ptr().cast(), lens.as_ptr(), 3, results.as_mut_ptr()), 1);
            crio_pin_free(set);
        }
        assert_eq!(results, [0, 1, 0]);
    }

    #[test]
    fn overflowing_lengths_are_rejected_unread() {
        let set = compile_ok(&["**"], 0);
        let lens = [usize::MAX, 2];
        let mut results = [9u8; 2];
        unsafe {
            assert!(!crio_pin_match_any(set, c"ab".as_ptr(), lens.as_ptr(), 2));
            assert_eq!(crio_pin_match_each(set, c"ab".as_ptr(), lens.as_ptr(), 2, results.as_mut_ptr()), 0);
            assert!(!crio_pin_match(set, c"ab".as_ptr(), usize::MAX));
            crio_pin_free(set);
        }
        assert_eq!(results, [0, 0]);
    }

    #[test]
    fn errors_name_the_pattern() {
        let patterns = [c"ok".as_ptr(), c"*".as_ptr()];
        let (message, index) = compile_err(patterns.as_ptr(), null(), 2, 0);
        assert_eq!(index, 1);
        assert!(message.starts_with("pattern 1 (\"*\")"), "{message}");
        let (message, index) = compile_err(patterns.as_ptr(), null(), 1, 8);
        assert_eq!(index, -1);
        assert!(message.contains("unknown flag bits 0x8"), "{message}");
        let (message, index) = compile_err(null(), null(), 3, 0);
        assert_eq!(index, -1);
        assert!(message.contains("patterns is NULL but count is 3"), "{message}");
        let with_null = [c"ok".as_ptr(), null()];
        let (message, index) = compile_err(with_null.as_ptr(), null(), 2, 0);
        assert_eq!((index, message.starts_with("pattern 1 is NULL")), (1, true), "{message}");
        let star_then_null = [c"ok".as_ptr(), c"*".as_ptr(), null()];
        let (message, index) = compile_err(star_then_null.as_ptr(), null(), 3, 0);
        assert_eq!(index, 1, "the first bad pattern wins: {message}");
        let lens = [2usize, 4];
        let (message, index) = compile_err(with_null.as_ptr(), lens.as_ptr(), 2, 0);
        assert_eq!((index, message.contains("with length 4")), (1, true), "{message}");
        let bad = [b"\xff".as_ptr().cast::<c_char>()];
        let (message, index) = compile_err(bad.as_ptr(), [1usize].as_ptr(), 1, 0);
        assert_eq!((index, message.contains("not valid UTF-8")), (0, true), "{message}");
    }

    #[test]
    fn null_entry_with_zero_length_is_the_empty_pattern() {
        let patterns = [null::<c_char>()];
        let set = unsafe { crio_pin_compile(patterns.as_ptr(), [0usize].as_ptr(), 1, 0, null_mut()) };
        assert!(!set.is_null());
        assert_eq!(name_match(set, b""), (true, 0));
        unsafe { crio_pin_free(set) };
    }

    #[test]
    fn empty_list_and_error_out_null() {
        let set = unsafe { crio_pin_compile(null(), null(), 0, 0, null_mut()) };
        assert!(!set.is_null());
        assert_eq!(unsafe { crio_pin_len(set) }, 0);
        unsafe { crio_pin_free(set) };
        // A failure with error_out NULL frees its error (Miri and valgrind
        // would report the leak).
        let star = [c"*".as_ptr()];
        assert!(unsafe { crio_pin_compile(star.as_ptr(), null(), 1, 0, null_mut()) }.is_null());
    }

    #[test]
    fn error_accessors_accept_null() {
        unsafe {
            assert_eq!(CStr::from_ptr(crio_pin_error_message(null())).to_bytes(), b"");
            assert_eq!(crio_pin_error_pattern_index(null()), -1);
        }
    }

    #[test]
    fn clone_outlives_the_original() {
        let set = compile_ok(&["a"], 0);
        let clone = unsafe { crio_pin_clone(set) };
        assert_eq!(clone, set);
        unsafe { crio_pin_free(set) };
        assert_eq!(name_match(clone, b"A"), (true, 0));
        unsafe { crio_pin_free(clone) };
    }

    #[test]
    fn version_is_the_crate_version() {
        let v = unsafe { CStr::from_ptr(crio_pin_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }

    /// Every export that can fail internally returns its documented failure
    /// value when the work inside panics.
    #[test]
    fn panics_become_failure_values() {
        let arm = || panic_injection::ARMED.with(|armed| armed.set(true));
        let set = compile_ok(&["**"], 0);
        let lens = [1usize];
        let mut results = [9u8];
        let mut error = null_mut();
        unsafe {
            arm();
            assert!(crio_pin_compile(null(), null(), 0, 0, &mut error).is_null());
            assert_eq!(crio_pin_error_pattern_index(error), -1);
            let message = CStr::from_ptr(crio_pin_error_message(error)).to_str().unwrap();
            assert!(message.starts_with("internal error in crio-pin"), "{message}");
            assert!(message.contains("injected panic"), "{message}");
            crio_pin_error_free(error);
            arm();
            assert!(!crio_pin_match(set, c"x".as_ptr(), 1));
            arm();
            assert_eq!(crio_pin_match_index(set, c"x".as_ptr(), 1), -1);
            arm();
            assert!(!crio_pin_match_any(set, c"x".as_ptr(), lens.as_ptr(), 1));
            arm();
            assert_eq!(crio_pin_match_each(set, c"x".as_ptr(), lens.as_ptr(), 1, results.as_mut_ptr()), 0);
            assert_eq!(results, [0]);
            arm();
            assert_eq!(crio_pin_len(set), 0);
            // Disarmed again: the set still works.
            assert!(crio_pin_match(set, c"x".as_ptr(), 1));
            crio_pin_free(set);
        }
    }
}
