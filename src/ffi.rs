//! The C ABI. Every function here only checks pointers, converts, and
//! catches panics; the work is done by the safe core ([`crate::PinSet`]).
//!
//! Conventions (the header repeats them per function):
//! - A `crio_pin_set *` is an `Arc<PinSet>` turned into a raw pointer: it is
//!   immutable and may be used from any number of threads at once.
//!   crio_pin_clone() adds an owner, crio_pin_free() drops one.
//! - A byte string is a pointer and a length; `(NULL, 0)` is the empty
//!   string, and a NULL pointer with a non-zero length is never read.
//! - Every export runs inside [`boundary`]: no panic crosses into C.
//! - A match that cannot answer (invalid arguments, an internal failure)
//!   answers "pinned", and crio_pin_match_index() tells it apart with
//!   `CRIO_PIN_MATCH_FAILED`: a garbage collector asking "may I delete
//!   this?" must never hear "yes" because of a bug or a bad call.

use std::any::Any;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::fingerprint::{Fingerprint, ListHasher};
use crate::pattern::NORMALIZE_NAMED;
use crate::set::{self, MAX_PATTERNS, MAX_PATTERN_BYTES};
use crate::{CompileError, ErrorKind, Flags, LengthVerdict, PinSet, Tier};

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
/// No wildcard: every pattern is an exact name, stars included
/// (containerd's comparison).
pub const CRIO_PIN_LITERAL: u32 = 8;
/// cri-dockerd's pattern syntax: patterns trimmed, blank ones ignored, one
/// trailing `*` makes a prefix, a pattern with a tag or digest is exact,
/// any other is a bare repository (pins its every tag and digest). Not
/// with CRIO_PIN_LITERAL.
pub const CRIO_PIN_CRI_DOCKERD_SYNTAX: u32 = 16;
/// Exact patterns and names compared as normalised image references
/// (`nginx` pins `docker.io/library/nginx:latest`); an exact pattern that
/// is not a reference is a CRIO_PIN_ERROR_INVALID_REFERENCE error.
pub const CRIO_PIN_NORMALIZE: u32 = 32;
/// containerd 2.x's rules: CRIO_PIN_LITERAL | CRIO_PIN_CASE_SENSITIVE.
pub const CRIO_PIN_CONTAINERD: u32 = 8 | 2;
/// containerd's rules with the configured values normalised, as its fix
/// PRs intend: CRIO_PIN_CONTAINERD | CRIO_PIN_NORMALIZE.
pub const CRIO_PIN_CONTAINERD_NORMALIZED: u32 = 8 | 2 | 32;
/// cri-dockerd's rules: CRIO_PIN_CRI_DOCKERD_SYNTAX | CRIO_PIN_ANCHOR_GLOBS
/// | CRIO_PIN_CASE_SENSITIVE.
pub const CRIO_PIN_CRI_DOCKERD: u32 = 16 | 1 | 2;

const _: () = assert!(
    CRIO_PIN_DEFAULT == Flags::DEFAULT.bits()
        && CRIO_PIN_ANCHOR_GLOBS == Flags::ANCHOR_GLOBS.bits()
        && CRIO_PIN_CASE_SENSITIVE == Flags::CASE_SENSITIVE.bits()
        && CRIO_PIN_STRICT == Flags::STRICT.bits()
        && CRIO_PIN_LITERAL == Flags::LITERAL.bits()
        && CRIO_PIN_CRI_DOCKERD_SYNTAX == Flags::CRI_DOCKERD_SYNTAX.bits()
        && CRIO_PIN_NORMALIZE == Flags::NORMALIZE.bits()
        && CRIO_PIN_CONTAINERD == Flags::CONTAINERD.bits()
        && CRIO_PIN_CONTAINERD_NORMALIZED == Flags::CONTAINERD_NORMALIZED.bits()
        && CRIO_PIN_CRI_DOCKERD == Flags::CRI_DOCKERD.bits()
);

/// crio_pin_tier(): no glob or keyword pattern: exact names alone, one
/// probe of a hash table a name.
pub const CRIO_PIN_TIER_EXACT: u32 = 1;
/// crio_pin_tier(): the fast tier, a dense table (at most 128 MiB): one
/// table entry a byte of the name.
pub const CRIO_PIN_TIER_DENSE: u32 = 2;
/// crio_pin_tier(): the second tier, a sparse automaton, for glob and
/// keyword lists past the dense table: at most 2 states visited a byte of
/// the name (3 with CRIO_PIN_ANCHOR_GLOBS). Still bounded by the name's
/// length, but slower than the dense tier; fewer or shorter globs and
/// keywords (or exact names) bring a list back.
pub const CRIO_PIN_TIER_SPARSE: u32 = 3;

/// The C value of a tier.
fn tier_value(tier: Tier) -> u32 {
    match tier {
        Tier::Exact => CRIO_PIN_TIER_EXACT,
        Tier::Dense { .. } => CRIO_PIN_TIER_DENSE,
        Tier::Sparse { .. } => CRIO_PIN_TIER_SPARSE,
    }
}

/// What crio_pin_match_index() returns when it cannot answer: invalid
/// arguments or an internal failure. Not -1 ("no pattern matches"): treat
/// the name as pinned and report the failure.
pub const CRIO_PIN_MATCH_FAILED: isize = -2;

/// What crio_pin_match_each() returns when it cannot answer (it then marks
/// every name pinned): `(size_t)-1`, never a count of pinned names.
pub const CRIO_PIN_EACH_FAILED: usize = !0;

/// The bytes of a fingerprint, which crio_pin_fingerprint() and
/// crio_pin_list_fingerprint() write: a SHA-256 digest.
pub const CRIO_PIN_FINGERPRINT_BYTES: usize = 32;
const _: () = assert!(CRIO_PIN_FINGERPRINT_BYTES == std::mem::size_of::<Fingerprint>());

/// crio_pin_length_verdicts(): no name of this length is pinned.
pub const CRIO_PIN_LENGTH_NO_MATCH: u8 = 0;
/// crio_pin_length_verdicts(): no name of this length is pinned if all its
/// bytes are ASCII (< 0x80).
pub const CRIO_PIN_LENGTH_NO_MATCH_IF_ASCII: u8 = 1;
/// crio_pin_length_verdicts(): a name of this length may be pinned: ask.
pub const CRIO_PIN_LENGTH_MAY_MATCH: u8 = 2;
const _: () = assert!(
    CRIO_PIN_LENGTH_NO_MATCH == LengthVerdict::NoMatch as u8
        && CRIO_PIN_LENGTH_NO_MATCH_IF_ASCII == LengthVerdict::NoMatchIfAscii as u8
        && CRIO_PIN_LENGTH_MAY_MATCH == LengthVerdict::MayMatch as u8
);

/// crio_pin_error_kind(): unknown flag bits.
pub const CRIO_PIN_ERROR_UNKNOWN_FLAGS: u32 = 1;
/// crio_pin_error_kind(): a pattern that is not valid UTF-8.
pub const CRIO_PIN_ERROR_INVALID_UTF8: u32 = 2;
/// crio_pin_error_kind(): the lone pattern `*` (write `**` to pin all).
pub const CRIO_PIN_ERROR_LONE_STAR: u32 = 3;
/// crio_pin_error_kind(): `CRIO_PIN_STRICT`: an empty pattern.
pub const CRIO_PIN_ERROR_STRICT_EMPTY: u32 = 4;
/// crio_pin_error_kind(): `CRIO_PIN_STRICT`: whitespace or a control
/// character.
pub const CRIO_PIN_ERROR_STRICT_WHITESPACE: u32 = 5;
/// crio_pin_error_kind(): `CRIO_PIN_STRICT`: `*word`, a literal leading `*`.
pub const CRIO_PIN_ERROR_STRICT_LEADING_STAR: u32 = 6;
/// crio_pin_error_kind(): `CRIO_PIN_STRICT`: a literal `*` inside a pattern.
pub const CRIO_PIN_ERROR_STRICT_INNER_STAR: u32 = 7;
/// crio_pin_error_kind(): more patterns or pattern bytes than a set holds
/// (10,000,000 patterns, 64 MiB of pattern text). No list within those
/// limits is refused for its size.
pub const CRIO_PIN_ERROR_TOO_LARGE: u32 = 8;
/// crio_pin_error_kind(): invalid arguments (a NULL array or entry where
/// data is needed, an impossible length).
pub const CRIO_PIN_ERROR_INVALID_ARGUMENT: u32 = 9;
/// crio_pin_error_kind(): an internal failure (a bug: please report it).
pub const CRIO_PIN_ERROR_INTERNAL: u32 = 10;
/// crio_pin_error_kind(): CRIO_PIN_LITERAL with CRIO_PIN_CRI_DOCKERD_SYNTAX.
pub const CRIO_PIN_ERROR_CONFLICTING_FLAGS: u32 = 11;
/// crio_pin_error_kind(): CRIO_PIN_NORMALIZE: an exact pattern that is not
/// an image reference.
pub const CRIO_PIN_ERROR_INVALID_REFERENCE: u32 = 12;

/// A compiled pattern set (opaque). Immutable once compiled: any number of
/// threads may match on one set at once, without locking. Reference
/// counted: see crio_pin_clone() and crio_pin_free().
#[allow(non_camel_case_types)]
pub struct crio_pin_set {
    // Never constructed: a `crio_pin_set *` is an `Arc<PinSet>` raw pointer.
    _opaque: [u8; 0],
}

/// Why crio_pin_compile() failed (opaque): a message, a kind and the
/// offending pattern's index. Owned by the caller; its accessors may be
/// called from any thread, but not while another thread frees it.
#[allow(non_camel_case_types)]
pub struct crio_pin_error {
    message: CString,
    kind: u32,
    pattern_index: isize,
}

impl crio_pin_error {
    fn new(kind: u32, message: String, pattern_index: Option<usize>) -> Box<crio_pin_error> {
        // Messages quote patterns with escapes, so they hold no NUL; strip
        // any anyway rather than lose the message.
        let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
        let pattern_index = pattern_index.and_then(|i| isize::try_from(i).ok()).unwrap_or(-1);
        Box::new(crio_pin_error { message, kind, pattern_index })
    }

    fn invalid_argument(message: String, pattern_index: Option<usize>) -> Box<crio_pin_error> {
        crio_pin_error::new(CRIO_PIN_ERROR_INVALID_ARGUMENT, message, pattern_index)
    }

    fn from_panic(payload: &(dyn Any + Send)) -> Box<crio_pin_error> {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        crio_pin_error::new(
            CRIO_PIN_ERROR_INTERNAL,
            format!("internal error in crio-pin (a bug, please report it): {what}"),
            None,
        )
    }
}

impl From<CompileError> for Box<crio_pin_error> {
    fn from(err: CompileError) -> Box<crio_pin_error> {
        let kind = match err.kind() {
            ErrorKind::UnknownFlags(bits) => {
                // The core's message names the flags neutrally; C callers
                // know them by their constants.
                return crio_pin_error::new(
                    CRIO_PIN_ERROR_UNKNOWN_FLAGS,
                    format!(
                        "unknown flag bits {bits:#x}; the flags are CRIO_PIN_ANCHOR_GLOBS (1), \
                         CRIO_PIN_CASE_SENSITIVE (2), CRIO_PIN_STRICT (4), CRIO_PIN_LITERAL (8), \
                         CRIO_PIN_CRI_DOCKERD_SYNTAX (16) and CRIO_PIN_NORMALIZE (32), or \
                         CRIO_PIN_DEFAULT (0)"
                    ),
                    None,
                );
            }
            ErrorKind::NotUtf8 { .. } => CRIO_PIN_ERROR_INVALID_UTF8,
            ErrorKind::LoneStar => CRIO_PIN_ERROR_LONE_STAR,
            ErrorKind::Empty => CRIO_PIN_ERROR_STRICT_EMPTY,
            ErrorKind::Whitespace { .. } => CRIO_PIN_ERROR_STRICT_WHITESPACE,
            ErrorKind::LeadingStar { .. } => CRIO_PIN_ERROR_STRICT_LEADING_STAR,
            ErrorKind::InnerStar { .. } => CRIO_PIN_ERROR_STRICT_INNER_STAR,
            ErrorKind::TooLarge { .. } => CRIO_PIN_ERROR_TOO_LARGE,
            ErrorKind::ConflictingFlags => {
                return crio_pin_error::new(
                    CRIO_PIN_ERROR_CONFLICTING_FLAGS,
                    "CRIO_PIN_LITERAL (8) and CRIO_PIN_CRI_DOCKERD_SYNTAX (16) are two pattern syntaxes; choose one"
                        .to_string(),
                    None,
                );
            }
            ErrorKind::InvalidReference { .. } => {
                let message = err.to_string().replacen(NORMALIZE_NAMED, "CRIO_PIN_NORMALIZE (32)", 1);
                return crio_pin_error::new(CRIO_PIN_ERROR_INVALID_REFERENCE, message, err.pattern_index());
            } // (ErrorKind is non-exhaustive for Rust callers; this crate
              // names every kind, so a new one fails to compile here first.)
        };
        crio_pin_error::new(kind, err.to_string(), err.pattern_index())
    }
}

/// The one panic boundary, used by every export: runs `body`, and turns a
/// panic inside it into the export's failure value.
fn boundary<T>(on_panic: impl FnOnce(&(dyn Any + Send)) -> T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(|| {
        panic_injection::check();
        body()
    }))
    .unwrap_or_else(|payload| on_panic(&*payload))
}

/// Test-only: makes the next boundary call on this thread panic inside the
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

/// The answer of a match: `None` when the arguments are invalid (the caller
/// then answers "pinned"); a NULL set is the empty set.
///
/// # Safety
/// As crio_pin_match().
unsafe fn match_name<T>(
    set: *const crio_pin_set,
    name: *const c_char,
    length: usize,
    answer: impl FnOnce(&PinSet, &[u8]) -> T,
    unpinned: T,
) -> Option<T> {
    // SAFETY: the caller's contract.
    let name = unsafe { bytes(name, length) }?;
    // SAFETY: the caller's contract.
    Some(match unsafe { set_ref(set) } {
        Some(set) => answer(set, name),
        None => unpinned,
    })
}

/// Compiles `count` patterns into a set.
///
/// - `patterns`: `count` pointers to pattern bytes (UTF-8). May be NULL only
///   when `count` is 0 (the empty set). Read during the call only; the set
///   keeps no pointer into them. In C11 and later a `char **` array passes
///   as is (the header's crio_pin_compile macro converts it); in C89/C99,
///   cast it.
/// - `lengths`: `count` lengths, or NULL when every pattern is NUL-terminated.
///   With lengths, a pattern may hold any byte (a NUL is a character) and a
///   NULL entry with length 0 is the empty pattern.
/// - `flags`: `CRIO_PIN_DEFAULT` (CRI-O's rules) or an OR of
///   `CRIO_PIN_ANCHOR_GLOBS`, `CRIO_PIN_CASE_SENSITIVE`, `CRIO_PIN_STRICT`,
///   `CRIO_PIN_LITERAL`, `CRIO_PIN_CRI_DOCKERD_SYNTAX`, `CRIO_PIN_NORMALIZE`;
///   another runtime's rules are one of `CRIO_PIN_CONTAINERD`,
///   `CRIO_PIN_CONTAINERD_NORMALIZED`, `CRIO_PIN_CRI_DOCKERD`. Unknown bits,
///   and LITERAL with CRI_DOCKERD_SYNTAX, are an error.
/// - `error_out`: may be NULL. Otherwise, on failure `*error_out` receives an
///   error the caller owns (free it with crio_pin_error_free()); on success it
///   is set to NULL.
///
/// Returns a new set, owned by the caller (free it with crio_pin_free()), or
/// NULL on failure: an invalid pattern (the error names its index, its kind
/// and what to write instead), unknown flags, a NULL array or entry where
/// data is needed, a list over the limits (at most 10,000,000 patterns and
/// 64 MiB of pattern text in all: refused before a pattern past them is
/// read, so a length that lies fails here too), or an internal error. No
/// list within the limits is refused for its size: a list of globs and
/// keywords too large for the fast tier gets the second one
/// (crio_pin_tier()). On failure keep the set you had: a failed reload
/// must not unpin anything. Thread-safe.
///
/// Cost: every list within the limits compiles within seconds, and a name
/// costs at most a few memory reads a byte of it in either tier
/// (docs/reliability.md, "Limits and compile cost" and "Tiers").
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
    // SAFETY: the caller's contract.
    unsafe { compile_set(patterns, lengths, count, flags, error_out, |p, f| PinSet::compile(p, f)) }
}

/// crio_pin_compile() with `compile` building the set from the patterns
/// read (`crate::wasm` gives it the list's fingerprint too).
///
/// # Safety
/// As crio_pin_compile().
pub(crate) unsafe fn compile_set(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    error_out: *mut *mut crio_pin_error,
    compile: impl FnOnce(&mut dyn Iterator<Item = &[u8]>, Flags) -> Result<PinSet, CompileError>,
) -> *mut crio_pin_set {
    let result = boundary(
        |payload| Err(crio_pin_error::from_panic(payload)),
        // SAFETY: the caller's contract.
        || unsafe { read_patterns(patterns, lengths, count, flags, compile) },
    );
    // SAFETY: the caller's contract.
    let set = unsafe { deliver(result, error_out) };
    set.map_or(std::ptr::null_mut(), |set| Arc::into_raw(Arc::new(set)).cast::<crio_pin_set>().cast_mut())
}

/// Checks `count` patterns as crio_pin_compile() would, building nothing:
/// for validating a configuration (at start-up, in a dry run, before a
/// reload reports success) without paying for the matcher.
///
/// Takes the same arguments as crio_pin_compile() and returns true exactly
/// when crio_pin_compile() would return a set; otherwise false, with
/// `*error_out` (if not NULL) set to the error crio_pin_compile() would
/// give (same kind, index and message; free it with crio_pin_error_free()).
/// On success `*error_out` is set to NULL. Cost: one pass over the
/// patterns, no allocation but the error. Thread-safe.
///
/// # Safety
/// As crio_pin_compile().
#[no_mangle]
pub unsafe extern "C" fn crio_pin_validate(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    error_out: *mut *mut crio_pin_error,
) -> bool {
    let result = boundary(
        |payload| Err(crio_pin_error::from_panic(payload)),
        // SAFETY: the caller's contract.
        || unsafe { read_patterns(patterns, lengths, count, flags, |p, f| PinSet::validate(p, f)) },
    );
    // SAFETY: the caller's contract.
    unsafe { deliver(result, error_out) }.is_some()
}

/// As crio_pin_validate(), and says which tier the set would get: on
/// success `*tier_out` (if not NULL) receives the value crio_pin_tier()
/// would return for the compiled set (CRIO_PIN_TIER_EXACT, _DENSE or
/// _SPARSE); on failure it is left unchanged. Cost: as
/// crio_pin_validate(), and a sort of the glob and keyword patterns' text
/// to size their automaton. Thread-safe.
///
/// # Safety
/// As crio_pin_compile(); `tier_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_validate_tier(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    tier_out: *mut u32,
    error_out: *mut *mut crio_pin_error,
) -> bool {
    let result = boundary(
        |payload| Err(crio_pin_error::from_panic(payload)),
        // SAFETY: the caller's contract.
        || unsafe { read_patterns(patterns, lengths, count, flags, |p, f| PinSet::validate(p, f)) },
    );
    // SAFETY: the caller's contract.
    let tier = unsafe { deliver(result, error_out) };
    if let (Some(tier), false) = (tier, tier_out.is_null()) {
        // SAFETY: the caller passed a writable pointer.
        unsafe { tier_out.write(tier_value(tier)) };
    }
    tier.is_some()
}

/// Hands a result to C: the value, or the error through `error_out` (or
/// dropped when it is NULL); `*error_out` is NULL on success.
///
/// # Safety
/// `error_out` is NULL or writable.
unsafe fn deliver<T>(result: Result<T, Box<crio_pin_error>>, error_out: *mut *mut crio_pin_error) -> Option<T> {
    let (value, error) = match result {
        Ok(value) => (Some(value), std::ptr::null_mut()),
        Err(error) => (None, Box::into_raw(error)),
    };
    if error_out.is_null() {
        // Nobody will read it: drop it here rather than leak it.
        // SAFETY: just made by Box::into_raw (or NULL).
        unsafe { crio_pin_error_free(error) };
    } else {
        // SAFETY: the caller passed a writable pointer.
        unsafe { error_out.write(error) };
    }
    value
}

/// The arguments of crio_pin_compile() checked and read, handed to `then`
/// (compile or validate) as the pattern texts in order.
///
/// # Safety
/// As crio_pin_compile().
unsafe fn read_patterns<R>(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    then: impl FnOnce(&mut dyn Iterator<Item = &[u8]>, Flags) -> Result<R, CompileError>,
) -> Result<R, Box<crio_pin_error>> {
    let flags = Flags::from_bits(flags)?;
    // SAFETY: the caller's contract.
    let mut args = unsafe { PatternArgs::check(patterns, lengths, count) }?;
    if let Some((i, error)) = args.bad.take() {
        // The first bad pattern in list order is the one reported: an
        // earlier pattern may be invalid too.
        PinSet::validate((0..i).map(|i| args.text(i)), flags)?;
        return Err(error);
    }
    Ok(then(&mut (0..count).map(|i| args.text(i)), flags)?)
}

/// The pattern arguments of crio_pin_compile() (and of the functions that
/// take the same), checked: the array, and every entry before any pattern
/// is read.
struct PatternArgs<'a> {
    pointers: &'a [*const c_char],
    lengths: Option<&'a [usize]>,
    /// The first entry that cannot be read (NULL where text is needed) or
    /// is over the limits, and its error: the entries before it can be.
    bad: Option<(usize, Box<crio_pin_error>)>,
}

impl<'a> PatternArgs<'a> {
    /// Checks the arguments; fails when the array itself is unusable.
    ///
    /// # Safety
    /// As crio_pin_compile().
    unsafe fn check(
        patterns: *const *const c_char,
        lengths: *const usize,
        count: usize,
    ) -> Result<PatternArgs<'a>, Box<crio_pin_error>> {
        let Some(pointers) = (unsafe { slice(patterns, count) }) else {
            return Err(crio_pin_error::invalid_argument(
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
        // Every entry is checked before any pattern is read: a NULL where
        // text is needed, and a count or a length over the limits (one that
        // lies must fail, not abort), are refused without reading past them
        // or copying.
        let mut total_bytes = 0usize;
        let bad = pointers.iter().enumerate().find_map(|(i, &ptr)| {
            let error = if i >= MAX_PATTERNS {
                set::too_many_patterns(i).into()
            } else {
                match lengths.map(|l| l[i]) {
                    None if ptr.is_null() => crio_pin_error::invalid_argument(
                        format!(
                            "pattern {i} is NULL; without lengths every pattern must be a \
                             NUL-terminated string"
                        ),
                        Some(i),
                    ),
                    Some(len) if len > MAX_PATTERN_BYTES - total_bytes => set::too_many_bytes(i).into(),
                    Some(len) if ptr.is_null() && len != 0 => crio_pin_error::invalid_argument(
                        format!(
                            "pattern {i} is NULL with length {len}; NULL is allowed only with length 0 \
                             (the empty pattern)"
                        ),
                        Some(i),
                    ),
                    Some(len) => {
                        total_bytes += len;
                        return None;
                    }
                    None => return None,
                }
            };
            Some((i, error))
        });
        Ok(PatternArgs { pointers, lengths, bad })
    }

    /// Pattern `i`'s text: an entry before the first bad one.
    fn text(&self, i: usize) -> &'a [u8] {
        match self.lengths {
            // SAFETY: a non-NULL entry without lengths is NUL-terminated
            // (NULL ones were refused by `check`).
            None => unsafe { CStr::from_ptr(self.pointers[i]) }.to_bytes(),
            // SAFETY: an entry with lengths has lengths[i] bytes, or is NULL
            // with length 0 (the empty pattern).
            Some(l) => unsafe { bytes(self.pointers[i], l[i]) }.unwrap_or_default(),
        }
    }
}

/// Writes `CRIO_PIN_FINGERPRINT_BYTES` bytes to `out`: the fingerprint
/// `body` gives (inside the panic boundary), or zeros when it gives none;
/// whether it gave one. NULL `out`: false, nothing computed.
///
/// # Safety
/// A non-NULL `out` points to `CRIO_PIN_FINGERPRINT_BYTES` writable bytes.
unsafe fn write_fingerprint(out: *mut u8, body: impl FnOnce() -> Option<Fingerprint>) -> bool {
    if out.is_null() {
        return false;
    }
    let fingerprint = boundary(|_| None, body);
    let bytes = fingerprint.map_or([0; CRIO_PIN_FINGERPRINT_BYTES], |f| *f.as_bytes());
    // SAFETY: the caller's contract; a byte array has no alignment to keep.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, CRIO_PIN_FINGERPRINT_BYTES) };
    fingerprint.is_some()
}

/// Writes the fingerprint of the list `set` was compiled from (its
/// patterns in order and its flags) to `out`: the 32 bytes of a SHA-256
/// digest, equal to what crio_pin_list_fingerprint() writes for the same
/// patterns and flags, in every process, on every machine and in every
/// version of the library (the definition: docs/c.md, "Fingerprints").
/// Computed as the set was compiled: this call copies it.
///
/// For a reload: compare the new list's crio_pin_list_fingerprint() with
/// the current set's, and keep the set when they are equal, compiling
/// nothing; log it to say which list a daemon serves.
///
/// - `set`: NULL is the empty set, whose fingerprint is the empty list's
///   under `CRIO_PIN_DEFAULT`.
/// - `out`: `CRIO_PIN_FINGERPRINT_BYTES` (32) writable bytes, owned by the
///   caller.
///
/// Returns true when it wrote the fingerprint; false for NULL `out` or an
/// internal failure (none is known), having written 32 zero bytes to a
/// non-NULL `out`. On false do not compare `out`: treat the list as
/// changed. Thread-safe.
///
/// # Safety
/// `set` is NULL or live; non-NULL `out` points to 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_fingerprint(set: *const crio_pin_set, out: *mut u8) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        write_fingerprint(out, || {
            Some(
                set_ref(set).map_or_else(
                    || crate::fingerprint(std::iter::empty::<&[u8]>(), Flags::DEFAULT),
                    PinSet::fingerprint,
                ),
            )
        })
    }
}

/// Writes the fingerprint of `count` patterns under `flags` to `out`, as
/// crio_pin_fingerprint() gives it for the set they compile to, without
/// compiling, validating or copying them: one pass over their bytes.
///
/// Takes the patterns as crio_pin_compile() does (`patterns`, `lengths`,
/// `count`, with the same checks of every entry before any is read).
/// `flags` are hashed as given, any bits: a list whose flags
/// crio_pin_compile() refuses has a fingerprint no set has. `out`:
/// `CRIO_PIN_FINGERPRINT_BYTES` (32) writable bytes, owned by the caller.
///
/// Returns true when it wrote the fingerprint; false, having written 32
/// zero bytes to a non-NULL `out`, for NULL `out`, for arguments
/// crio_pin_compile() refuses as invalid (a NULL array or entry where
/// data is needed) or as over its limits (a list that compiles to no set),
/// or for an internal failure. On false do not compare `out`: treat the
/// list as changed (compile it, and report its error). Thread-safe.
///
/// # Safety
/// As crio_pin_compile(); non-NULL `out` points to 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_list_fingerprint(
    patterns: *const *const c_char,
    lengths: *const usize,
    count: usize,
    flags: u32,
    out: *mut u8,
) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        write_fingerprint(out, || {
            let args = PatternArgs::check(patterns, lengths, count).ok().filter(|args| args.bad.is_none())?;
            let mut hasher = ListHasher::new(flags);
            (0..count).for_each(|i| hasher.add(args.text(i)));
            Some(hasher.finish())
        })
    }
}

/// Whether `name` (`length` bytes, any bytes) is pinned by `set`.
///
/// `set` NULL is the empty set (false). `(NULL, 0)` is the empty name.
/// Fails safe: when it cannot answer (NULL `name` with a non-zero length,
/// which is never read, or an internal failure) it returns true, "pinned";
/// crio_pin_match_index() tells that apart (`CRIO_PIN_MATCH_FAILED`).
/// Thread-safe: any number of threads may match on one set at once.
///
/// # Safety
/// `set` is NULL or live; a non-NULL `name` points to `length` bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_match(set: *const crio_pin_set, name: *const c_char, length: usize) -> bool {
    boundary(
        |_| true,
        // SAFETY: the caller's contract.
        || unsafe { match_name(set, name, length, PinSet::is_match, false) }.unwrap_or(true),
    )
}

/// The lowest index of a pattern matching `name`: the first regexp in
/// CRI-O's loop that would match. -1 when no pattern matches (also for a
/// NULL `set`, the empty set).
///
/// Returns `CRIO_PIN_MATCH_FAILED` (-2) when it cannot answer: NULL `name`
/// with a non-zero length (never read), or an internal failure. Treat that
/// name as pinned and report the failure. Thread-safe.
///
/// # Safety
/// As crio_pin_match().
#[no_mangle]
pub unsafe extern "C" fn crio_pin_match_index(set: *const crio_pin_set, name: *const c_char, length: usize) -> isize {
    boundary(
        |_| CRIO_PIN_MATCH_FAILED,
        || {
            let index = |set: &PinSet, name: &[u8]| {
                // A set holds at most MAX_PATTERNS (10M) patterns.
                set.match_index(name).map_or(-1, |i| isize::try_from(i).unwrap_or(CRIO_PIN_MATCH_FAILED))
            };
            // SAFETY: the caller's contract.
            unsafe { match_name(set, name, length, index, -1) }.unwrap_or(CRIO_PIN_MATCH_FAILED)
        },
    )
}

/// Whether any of `count` names is pinned (all the names of one image).
///
/// The names are packed back to back in `names`, `lengths[i]` bytes each.
/// `count` 0 gives false. `names` may be NULL only when every length is 0
/// (all names empty). `set` NULL is the empty set (false). Fails safe:
/// invalid arguments (NULL `lengths` with `count` > 0, NULL `names` with
/// data, lengths whose sum overflows) or an internal failure give true,
/// "pinned". Thread-safe.
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
    boundary(
        |_| true,
        || {
            // SAFETY: the caller's contract.
            let (set, names) = unsafe { (set_ref(set), packed(names, lengths, count)) };
            match (set, names) {
                (_, None) => true,
                (Some(set), Some(names)) => set.match_any(names),
                (None, Some(_)) => false,
            }
        },
    )
}

/// Matches each of `count` packed names (as crio_pin_match_any() takes them)
/// and writes `results[i]` = 1 when name i is pinned, else 0.
///
/// Returns how many names are pinned; `count` 0 returns 0 and writes
/// nothing. `set` NULL is the empty set (all 0). Fails safe: on invalid
/// arguments (as for crio_pin_match_any(), or NULL `results` with a
/// non-zero `count`) or an internal failure it sets every `results[i]` to
/// 1 (when `results` is not NULL) and returns `CRIO_PIN_EACH_FAILED`.
/// Thread-safe.
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
    if count == 0 {
        return 0;
    }
    let answered = boundary(
        |_| None,
        || {
            if results.is_null() || count > isize::MAX as usize {
                return None;
            }
            // SAFETY: non-NULL and `count` writable bytes by the caller's
            // contract.
            let results = unsafe { std::slice::from_raw_parts_mut(results, count) };
            // SAFETY: the caller's contract.
            let names = unsafe { packed(names, lengths, count) }?;
            // SAFETY: the caller's contract.
            let Some(set) = (unsafe { set_ref(set) }) else {
                results.fill(0);
                return Some(0);
            };
            // The batch walk overlaps several names' memory loads.
            Some(set.match_each(names, results))
        },
    );
    answered.unwrap_or_else(|| {
        if !results.is_null() && count <= isize::MAX as usize {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts_mut(results, count) }.fill(1);
        }
        CRIO_PIN_EACH_FAILED
    })
}

/// What a name's length alone says about it, for each length below
/// `count`: `out[n]` receives `CRIO_PIN_LENGTH_NO_MATCH` (no name of n bytes
/// is pinned), `CRIO_PIN_LENGTH_NO_MATCH_IF_ASCII` (none whose bytes are
/// all below 0x80 is) or `CRIO_PIN_LENGTH_MAY_MATCH` (ask the set).
///
/// For callers whose every call into the library costs (cgo): keep the
/// table beside the set and call crio_pin_match() only for names it does
/// not settle. With CRI-O's default list (the pause image alone) it settles
/// nearly every name. The table is a property of the set: compute it once.
/// Under `CRIO_PIN_NORMALIZE` or a bare repository (cri-dockerd's rules) a
/// name's length settles nothing: every entry is MAY_MATCH.
///
/// `set` NULL is the empty set (every entry NO_MATCH). Returns true when
/// it wrote the table; false for NULL `out` with a non-zero `count` or an
/// internal failure, having set every entry it could to MAY_MATCH (fails
/// towards asking the set). Thread-safe.
///
/// # Safety
/// `set` is NULL or live; non-NULL `out` points to `count` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_length_verdicts(set: *const crio_pin_set, out: *mut u8, count: usize) -> bool {
    if count == 0 {
        return true;
    }
    if out.is_null() || count > isize::MAX as usize {
        return false;
    }
    // SAFETY: the caller's contract: `count` writable bytes.
    let table = unsafe { std::slice::from_raw_parts_mut(out, count) };
    let written = boundary(
        |_| false,
        || {
            // SAFETY: the caller's contract.
            match unsafe { set_ref(set) } {
                Some(set) => set.length_verdicts(table),
                None => table.fill(CRIO_PIN_LENGTH_NO_MATCH),
            }
            true
        },
    );
    if !written {
        table.fill(CRIO_PIN_LENGTH_MAY_MATCH);
    }
    written
}

/// How many patterns `set` was compiled from (duplicates included); 0 for
/// NULL. Thread-safe.
///
/// # Safety
/// `set` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_len(set: *const crio_pin_set) -> usize {
    // SAFETY: the caller's contract.
    boundary(|_| 0, || unsafe { set_ref(set) }.map_or(0, PinSet::len))
}

/// Which tier answers for the set's globs and keywords, and so what a
/// name may cost: CRIO_PIN_TIER_EXACT (no glob or keyword; also for NULL,
/// the empty set), CRIO_PIN_TIER_DENSE or CRIO_PIN_TIER_SPARSE; 0 on an
/// internal failure (none is known). Thread-safe.
///
/// # Safety
/// `set` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_tier(set: *const crio_pin_set) -> u32 {
    // SAFETY: the caller's contract.
    boundary(|_| 0, || unsafe { set_ref(set) }.map_or(CRIO_PIN_TIER_EXACT, |set| tier_value(set.tier())))
}

/// Another owner of the same compiled set: the same pointer, with its
/// reference count raised. Each pointer returned by crio_pin_compile() or
/// crio_pin_clone() must be passed to crio_pin_free() once; the set lives
/// until the last owner frees it. NULL gives NULL; an internal failure
/// (none is known) gives NULL too, so check the result before using it as
/// a set (NULL is the empty set). Thread-safe (may run while other threads
/// match, clone or free other owners).
///
/// # Safety
/// `set` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_clone(set: *const crio_pin_set) -> *mut crio_pin_set {
    boundary(
        |_| std::ptr::null_mut(),
        || {
            if !set.is_null() {
                // SAFETY: a live pointer from Arc::into_raw.
                unsafe { Arc::increment_strong_count(set.cast::<PinSet>()) };
            }
            set.cast_mut()
        },
    )
}

/// Drops one owner of `set`; the last one frees it. NULL is a no-op. Using
/// or freeing a pointer again after its owner freed it is undefined, as is
/// freeing an owner while another thread still uses that same owner.
///
/// # Safety
/// `set` is NULL, or a live owner from crio_pin_compile()/crio_pin_clone().
#[no_mangle]
pub unsafe extern "C" fn crio_pin_free(set: *mut crio_pin_set) {
    boundary(
        |_| (),
        || {
            if !set.is_null() {
                // SAFETY: one owner of an Arc made by Arc::into_raw.
                drop(unsafe { Arc::from_raw(set.cast_const().cast::<PinSet>()) });
            }
        },
    )
}

/// The error's message: which pattern (index and text), what is wrong, what
/// to write instead. NUL-terminated, owned by `error`, valid until
/// crio_pin_error_free(). NULL gives "" (never NULL).
///
/// # Safety
/// `error` is NULL or a live error.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_error_message(error: *const crio_pin_error) -> *const c_char {
    boundary(
        |_| c"internal error in crio-pin reading an error message".as_ptr(),
        // SAFETY: the caller's contract.
        || unsafe { error.as_ref() }.map_or(c"".as_ptr(), |error| error.message.as_ptr()),
    )
}

/// What kind of error it is, one of the `CRIO_PIN_ERROR_*` values, for
/// programs that act on it (e.g. `CRIO_PIN_ERROR_LONE_STAR`: suggest `**`).
/// 0 for NULL.
///
/// # Safety
/// `error` is NULL or a live error.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_error_kind(error: *const crio_pin_error) -> u32 {
    // SAFETY: the caller's contract.
    boundary(|_| CRIO_PIN_ERROR_INTERNAL, || unsafe { error.as_ref() }.map_or(0, |error| error.kind))
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
    boundary(|_| -1, || unsafe { error.as_ref() }.map_or(-1, |e| e.pattern_index))
}

/// Frees an error. NULL is a no-op.
///
/// # Safety
/// `error` is NULL or a live error from crio_pin_compile() or
/// crio_pin_validate(), freed once.
#[no_mangle]
pub unsafe extern "C" fn crio_pin_error_free(error: *mut crio_pin_error) {
    boundary(
        |_| (),
        || {
            if !error.is_null() {
                // SAFETY: made by Box::into_raw in crio_pin_compile.
                drop(unsafe { Box::from_raw(error) });
            }
        },
    )
}

/// The library's version, "MAJOR.MINOR.PATCH" (NUL-terminated, static),
/// equal to the crate version and to `CRIO_PIN_VERSION_*` in the header the
/// caller was built with when both come from the same release.
#[no_mangle]
pub extern "C" fn crio_pin_version() -> *const c_char {
    boundary(|_| VERSION.as_ptr(), || VERSION.as_ptr())
}

const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
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
            let zeros = [0usize, 0];
            assert!(crio_pin_match_any(set, null(), zeros.as_ptr(), 2));
            let mut results = [9u8; 2];
            assert_eq!(crio_pin_match_each(set, null(), zeros.as_ptr(), 2, results.as_mut_ptr()), 2);
            assert_eq!(results, [1, 1]);
            assert!(!crio_pin_match_any(set, null(), null(), 0));
            crio_pin_free(set);
        }
    }

    /// Invalid arguments are never read and never answer "not pinned".
    #[test]
    fn invalid_arguments_fail_towards_pinned() {
        // "nothing" pins none of the names below: a true can only come
        // from failing safe.
        let set = compile_ok(&["nothing"], 0);
        for set in [set.cast_const(), null()] {
            unsafe {
                assert!(crio_pin_match(set, null(), 5), "NULL with a length is never read");
                assert_eq!(crio_pin_match_index(set, null(), 5), CRIO_PIN_MATCH_FAILED);
                let some = [0usize, 1];
                assert!(crio_pin_match_any(set, null(), some.as_ptr(), 2));
                let mut results = [9u8; 2];
                assert_eq!(
                    crio_pin_match_each(set, null(), some.as_ptr(), 2, results.as_mut_ptr()),
                    CRIO_PIN_EACH_FAILED
                );
                assert_eq!(results, [1, 1]);
                assert!(crio_pin_match_any(set, c"x".as_ptr(), null(), 1));
                results = [9, 9];
                assert_eq!(
                    crio_pin_match_each(set, c"x".as_ptr(), null(), 1, results.as_mut_ptr()),
                    CRIO_PIN_EACH_FAILED
                );
                assert_eq!(results, [1, 9], "only count results are written");
                assert_eq!(crio_pin_match_each(set, c"x".as_ptr(), some.as_ptr(), 2, null_mut()), CRIO_PIN_EACH_FAILED);
            }
        }
        unsafe { crio_pin_free(set) };
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
        let set = compile_ok(&["nothing"], 0);
        let lens = [usize::MAX, 2];
        let mut results = [9u8; 2];
        unsafe {
            assert!(crio_pin_match_any(set, c"ab".as_ptr(), lens.as_ptr(), 2));
            assert_eq!(
                crio_pin_match_each(set, c"ab".as_ptr(), lens.as_ptr(), 2, results.as_mut_ptr()),
                CRIO_PIN_EACH_FAILED
            );
            assert!(crio_pin_match(set, null(), usize::MAX));
            assert_eq!(crio_pin_match_index(set, null(), usize::MAX), CRIO_PIN_MATCH_FAILED);
            crio_pin_free(set);
        }
        assert_eq!(results, [1, 1]);
    }

    /// A length or a count over the limits is refused before anything is
    /// read through it (Miri reports any read past the real buffers), and
    /// the first bad pattern in list order is still the one blamed.
    #[test]
    fn lengths_and_counts_that_lie_are_refused_unread() {
        let patterns = [c"ok".as_ptr(), c"big".as_ptr(), c"*".as_ptr()];
        let lens = [2usize, MAX_PATTERN_BYTES, 1];
        let (message, index) = compile_err(patterns.as_ptr(), lens.as_ptr(), 3, 0);
        assert_eq!(index, 1, "{message}");
        assert!(message.contains("may be at most 67108864"), "{message}");
        assert!(!message.contains("big"), "the pattern was not read: {message}");
        let lens = [1usize << 40, 2, 1];
        let (message, index) = compile_err(patterns.as_ptr(), lens.as_ptr(), 3, 0);
        assert_eq!(index, 0, "{message}");
        let star_first = [c"*".as_ptr(), c"big".as_ptr()];
        let (message, index) = compile_err(star_first.as_ptr(), [1usize, usize::MAX].as_ptr(), 2, 0);
        assert_eq!(index, 0, "an earlier invalid pattern wins: {message}");
        assert!(message.contains("lone '*'"), "{message}");
    }

    /// crio_pin_validate answers as crio_pin_compile, with the same error,
    /// on valid lists, invalid patterns and invalid arguments.
    #[test]
    fn validate_gives_compile_s_answer_and_error() {
        /// Patterns, their lengths (or none: NUL-terminated), flags.
        type Case<'a> = (&'a [*const c_char], Option<&'a [usize]>, u32);
        let cases: [Case; 6] = [
            (&[c"quay.io/*".as_ptr(), c"**".as_ptr()], None, 0),
            (&[c"ok".as_ptr(), c"*".as_ptr()], None, 0),
            (&[c"ok".as_ptr(), null()], None, 0),
            (&[c"ok".as_ptr(), c"a*b".as_ptr()], None, CRIO_PIN_STRICT),
            (&[c"ok".as_ptr(), c"x".as_ptr()], Some(&[2, MAX_PATTERN_BYTES]), 0),
            (&[c"ok".as_ptr()], None, 8),
        ];
        for (patterns, lengths, flags) in cases {
            let lengths = lengths.map_or(null(), <[usize]>::as_ptr);
            let (mut compile_error, mut validate_error) = (null_mut(), null_mut());
            unsafe {
                let set = crio_pin_compile(patterns.as_ptr(), lengths, patterns.len(), flags, &mut compile_error);
                let valid = crio_pin_validate(patterns.as_ptr(), lengths, patterns.len(), flags, &mut validate_error);
                assert_eq!(valid, !set.is_null());
                crio_pin_free(set);
                if valid {
                    assert!(compile_error.is_null() && validate_error.is_null());
                    continue;
                }
                let message = |e| CStr::from_ptr(crio_pin_error_message(e)).to_str().unwrap().to_owned();
                assert_eq!(message(validate_error), message(compile_error));
                assert_eq!(crio_pin_error_kind(validate_error), crio_pin_error_kind(compile_error));
                assert_eq!(crio_pin_error_pattern_index(validate_error), crio_pin_error_pattern_index(compile_error));
                crio_pin_error_free(compile_error);
                crio_pin_error_free(validate_error);
            }
        }
    }

    /// What crio_pin_list_fingerprint writes for `patterns` (with
    /// lengths) under `flags`, or None when it returns false (then every
    /// byte written is zero).
    fn list_fingerprint(patterns: &[&[u8]], flags: u32) -> Option<Fingerprint> {
        let ptrs: Vec<*const c_char> = patterns.iter().map(|p| p.as_ptr().cast()).collect();
        let lens: Vec<usize> = patterns.iter().map(|p| p.len()).collect();
        let mut out = [9u8; CRIO_PIN_FINGERPRINT_BYTES];
        let ok =
            unsafe { crio_pin_list_fingerprint(ptrs.as_ptr(), lens.as_ptr(), ptrs.len(), flags, out.as_mut_ptr()) };
        if !ok {
            assert_eq!(out, [0; CRIO_PIN_FINGERPRINT_BYTES], "zeros on failure");
        }
        ok.then(|| Fingerprint::from_bytes(out))
    }

    /// What crio_pin_fingerprint writes for `set`.
    fn set_fingerprint(set: *const crio_pin_set) -> Fingerprint {
        let mut out = [9u8; CRIO_PIN_FINGERPRINT_BYTES];
        assert!(unsafe { crio_pin_fingerprint(set, out.as_mut_ptr()) });
        Fingerprint::from_bytes(out)
    }

    /// A set's fingerprint, its list's and the Rust API's are one value,
    /// with lengths or NUL-terminated; flags count, any bits of them.
    #[test]
    fn fingerprints_of_a_set_and_of_its_list_agree() {
        let list = ["registry.k8s.io/pause:3.9", "quay.io/*", "*etcd*", ""];
        let bytes: Vec<&[u8]> = list.iter().map(|p| p.as_bytes()).collect();
        for flags in [CRIO_PIN_DEFAULT, CRIO_PIN_ANCHOR_GLOBS, CRIO_PIN_CONTAINERD] {
            let set = compile_ok(&list, flags);
            let expected = crate::fingerprint(list, Flags::from_bits(flags).unwrap());
            assert_eq!(set_fingerprint(set), expected);
            assert_eq!(list_fingerprint(&bytes, flags), Some(expected));
            let nul_terminated =
                [c"registry.k8s.io/pause:3.9".as_ptr(), c"quay.io/*".as_ptr(), c"*etcd*".as_ptr(), c"".as_ptr()];
            let mut out = [0u8; CRIO_PIN_FINGERPRINT_BYTES];
            assert!(unsafe { crio_pin_list_fingerprint(nul_terminated.as_ptr(), null(), 4, flags, out.as_mut_ptr()) });
            assert_eq!(Fingerprint::from_bytes(out), expected);
            unsafe { crio_pin_free(set) };
        }
        assert_ne!(list_fingerprint(&bytes, 0), list_fingerprint(&bytes, 1));
        let unknown = list_fingerprint(&bytes, 0x40).expect("any flag bits are hashed");
        assert_ne!(Some(unknown), list_fingerprint(&bytes, 0));
        let empty = set_fingerprint(null());
        assert_eq!(Some(empty), list_fingerprint(&[], CRIO_PIN_DEFAULT), "NULL is the empty list under DEFAULT");
        let mut out = [0u8; CRIO_PIN_FINGERPRINT_BYTES];
        assert!(unsafe { crio_pin_list_fingerprint(null(), null(), 0, 0, out.as_mut_ptr()) });
        assert_eq!(Fingerprint::from_bytes(out), empty);
    }

    /// The arguments crio_pin_compile refuses are refused here, unread,
    /// with zeros written; NULL `out` is false.
    #[test]
    fn fingerprints_refuse_invalid_arguments() {
        let mut out = [9u8; CRIO_PIN_FINGERPRINT_BYTES];
        let set = compile_ok(&["a"], 0);
        unsafe {
            assert!(!crio_pin_fingerprint(set, null_mut()));
            assert!(!crio_pin_fingerprint(null(), null_mut()));
            assert!(!crio_pin_list_fingerprint(null(), null(), 0, 0, null_mut()));
            crio_pin_free(set);
            assert!(!crio_pin_list_fingerprint(null(), null(), 3, 0, out.as_mut_ptr()), "NULL array");
            assert_eq!(out, [0; CRIO_PIN_FINGERPRINT_BYTES]);
            out.fill(9);
            let with_null = [c"ok".as_ptr(), null()];
            assert!(!crio_pin_list_fingerprint(with_null.as_ptr(), null(), 2, 0, out.as_mut_ptr()), "NULL entry");
            assert_eq!(out, [0; CRIO_PIN_FINGERPRINT_BYTES]);
            assert!(!crio_pin_list_fingerprint(with_null.as_ptr(), [2usize, 4].as_ptr(), 2, 0, out.as_mut_ptr()));
            // A NULL entry with length 0 is the empty pattern, as in compile.
            assert!(crio_pin_list_fingerprint(with_null.as_ptr(), [2usize, 0].as_ptr(), 2, 0, out.as_mut_ptr()));
            assert_eq!(Fingerprint::from_bytes(out), crate::fingerprint(["ok", ""], Flags::DEFAULT));
            // A length over the limits lies: refused before anything is read
            // (Miri reports any read past "ok").
            let lying = [c"ok".as_ptr()];
            assert!(!crio_pin_list_fingerprint(
                lying.as_ptr(),
                [MAX_PATTERN_BYTES + 1].as_ptr(),
                1,
                0,
                out.as_mut_ptr()
            ));
        }
    }

    #[test]
    fn length_verdicts_settle_names_the_set_does_not_pin() {
        let set = compile_ok(&["registry.k8s.io/pause:3.9"], 0);
        let mut table = [9u8; 100];
        unsafe {
            assert!(crio_pin_length_verdicts(set, table.as_mut_ptr(), table.len()));
            assert_eq!(table[25], CRIO_PIN_LENGTH_MAY_MATCH);
            assert_eq!(table[76], CRIO_PIN_LENGTH_NO_MATCH);
            assert_eq!(table[20], CRIO_PIN_LENGTH_NO_MATCH_IF_ASCII);
            assert!(crio_pin_length_verdicts(null(), table.as_mut_ptr(), 3));
            assert_eq!(table[..3], [CRIO_PIN_LENGTH_NO_MATCH; 3], "NULL is the empty set");
            assert!(!crio_pin_length_verdicts(set, null_mut(), 3));
            assert!(crio_pin_length_verdicts(set, null_mut(), 0));
            crio_pin_free(set);
        }
    }

    #[test]
    fn errors_name_the_pattern() {
        let patterns = [c"ok".as_ptr(), c"*".as_ptr()];
        let (message, index) = compile_err(patterns.as_ptr(), null(), 2, 0);
        assert_eq!(index, 1);
        assert!(message.starts_with("pattern 1 (\"*\")"), "{message}");
        let (message, index) = compile_err(patterns.as_ptr(), null(), 1, 0x40);
        assert_eq!(index, -1);
        assert!(message.contains("unknown flag bits 0x40"), "{message}");
        assert!(message.contains("CRIO_PIN_STRICT (4)"), "C callers read C names: {message}");
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

    /// C callers read one naming of the flags: `CRIO_PIN_LITERAL (8)`,
    /// never the core's `literal (8)` or "the normalize flag".
    #[test]
    fn c_messages_name_flags_by_their_constants() {
        let one = |pattern: &str, flags: u32| {
            compile_err([pattern.as_ptr().cast()].as_ptr(), [pattern.len()].as_ptr(), 1, flags)
        };
        let (conflict, index) = one("ok", CRIO_PIN_LITERAL | CRIO_PIN_CRI_DOCKERD_SYNTAX);
        assert_eq!(index, -1);
        assert!(conflict.contains("CRIO_PIN_LITERAL (8) and CRIO_PIN_CRI_DOCKERD_SYNTAX (16)"), "{conflict}");
        let (reference, index) = one("Quay.io/A", CRIO_PIN_NORMALIZE);
        assert_eq!(index, 0);
        assert!(reference.starts_with("pattern 0 (\"Quay.io/A\"): not an image reference"), "{reference}");
        assert!(reference.contains("which CRIO_PIN_NORMALIZE (32) requires"), "{reference}");
        let (unknown, _) = one("ok", 0x40);
        for message in [conflict, reference, unknown] {
            for neutral in ["literal (8)", "cri-dockerd-syntax (16)", "normalize flag", "anchor-globs (1)"] {
                assert!(!message.contains(neutral), "{neutral:?} in {message}");
            }
        }
    }

    #[test]
    fn error_kinds() {
        let kind = |patterns: &[&str], flags: u32| {
            let ptrs: Vec<*const c_char> = patterns.iter().map(|p| p.as_ptr().cast()).collect();
            let lens: Vec<usize> = patterns.iter().map(|p| p.len()).collect();
            let mut error = null_mut();
            let set = unsafe { crio_pin_compile(ptrs.as_ptr(), lens.as_ptr(), ptrs.len(), flags, &mut error) };
            assert!(set.is_null(), "{patterns:?} compiled");
            let kind = unsafe { crio_pin_error_kind(error) };
            unsafe { crio_pin_error_free(error) };
            kind
        };
        assert_eq!(kind(&["ok"], 0x40), CRIO_PIN_ERROR_UNKNOWN_FLAGS);
        assert_eq!(kind(&["ok"], CRIO_PIN_LITERAL | CRIO_PIN_CRI_DOCKERD_SYNTAX), CRIO_PIN_ERROR_CONFLICTING_FLAGS);
        assert_eq!(kind(&["Quay.io/A"], CRIO_PIN_NORMALIZE), CRIO_PIN_ERROR_INVALID_REFERENCE);
        assert_eq!(kind(&["*"], 0), CRIO_PIN_ERROR_LONE_STAR);
        assert_eq!(kind(&[""], CRIO_PIN_STRICT), CRIO_PIN_ERROR_STRICT_EMPTY);
        assert_eq!(kind(&["a b"], CRIO_PIN_STRICT), CRIO_PIN_ERROR_STRICT_WHITESPACE);
        assert_eq!(kind(&["*pause"], CRIO_PIN_STRICT), CRIO_PIN_ERROR_STRICT_LEADING_STAR);
        assert_eq!(kind(&["a*b"], CRIO_PIN_STRICT), CRIO_PIN_ERROR_STRICT_INNER_STAR);
        let bad = [b"\xff".as_ptr().cast::<c_char>()];
        let mut error = null_mut();
        assert!(unsafe { crio_pin_compile(bad.as_ptr(), [1usize].as_ptr(), 1, 0, &mut error) }.is_null());
        assert_eq!(unsafe { crio_pin_error_kind(error) }, CRIO_PIN_ERROR_INVALID_UTF8);
        unsafe { crio_pin_error_free(error) };
        assert!(unsafe { crio_pin_compile(null(), null(), 1, 0, &mut error) }.is_null());
        assert_eq!(unsafe { crio_pin_error_kind(error) }, CRIO_PIN_ERROR_INVALID_ARGUMENT);
        unsafe { crio_pin_error_free(error) };
        assert_eq!(unsafe { crio_pin_error_kind(null()) }, 0);
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

    /// Every export runs inside the one boundary, and returns its documented
    /// failure value when the work inside panics: matches fail towards
    /// "pinned".
    #[test]
    fn panics_become_failure_values() {
        let arm = || panic_injection::ARMED.with(|armed| armed.set(true));
        // "nothing" pins no name used here: every "pinned" below is the
        // failure value.
        let set = compile_ok(&["nothing"], 0);
        let lens = [1usize, 1];
        let mut results = [9u8; 2];
        let mut error = null_mut();
        unsafe {
            arm();
            assert!(crio_pin_compile(null(), null(), 0, 0, &mut error).is_null());
            assert_eq!(crio_pin_error_pattern_index(error), -1);
            assert_eq!(crio_pin_error_kind(error), CRIO_PIN_ERROR_INTERNAL);
            let message = CStr::from_ptr(crio_pin_error_message(error)).to_str().unwrap();
            assert!(message.starts_with("internal error in crio-pin"), "{message}");
            assert!(message.contains("injected panic"), "{message}");
            arm();
            assert_eq!(crio_pin_error_kind(error), CRIO_PIN_ERROR_INTERNAL);
            arm();
            assert_eq!(crio_pin_error_pattern_index(error), -1);
            arm();
            let message = CStr::from_ptr(crio_pin_error_message(error)).to_str().unwrap();
            assert!(message.starts_with("internal error in crio-pin"), "{message}");
            crio_pin_error_free(error);
            arm();
            assert!(!crio_pin_validate(null(), null(), 0, 0, &mut error));
            assert_eq!(crio_pin_error_kind(error), CRIO_PIN_ERROR_INTERNAL);
            crio_pin_error_free(error);
            arm();
            let mut table = [0u8; 4];
            assert!(!crio_pin_length_verdicts(set, table.as_mut_ptr(), 4));
            assert_eq!(table, [CRIO_PIN_LENGTH_MAY_MATCH; 4], "fails towards asking the set");
            arm();
            assert!(crio_pin_match(set, c"x".as_ptr(), 1));
            arm();
            assert_eq!(crio_pin_match_index(set, c"x".as_ptr(), 1), CRIO_PIN_MATCH_FAILED);
            arm();
            assert!(crio_pin_match_any(set, c"xy".as_ptr(), lens.as_ptr(), 2));
            arm();
            assert_eq!(
                crio_pin_match_each(set, c"xy".as_ptr(), lens.as_ptr(), 2, results.as_mut_ptr()),
                CRIO_PIN_EACH_FAILED
            );
            assert_eq!(results, [1, 1]);
            arm();
            let mut fingerprint = [9u8; CRIO_PIN_FINGERPRINT_BYTES];
            assert!(!crio_pin_fingerprint(set, fingerprint.as_mut_ptr()));
            assert_eq!(fingerprint, [0; CRIO_PIN_FINGERPRINT_BYTES], "zeros, and false: compare nothing");
            arm();
            fingerprint.fill(9);
            assert!(!crio_pin_list_fingerprint(null(), null(), 0, 0, fingerprint.as_mut_ptr()));
            assert_eq!(fingerprint, [0; CRIO_PIN_FINGERPRINT_BYTES]);
            arm();
            assert_eq!(crio_pin_tier(set), 0);
            arm();
            let mut tier = 77;
            assert!(!crio_pin_validate_tier(null(), null(), 0, 0, &mut tier, &mut error));
            assert_eq!((tier, crio_pin_error_kind(error)), (77, CRIO_PIN_ERROR_INTERNAL), "the tier left as it was");
            crio_pin_error_free(error);
            arm();
            assert_eq!(crio_pin_len(set), 0);
            arm();
            assert!(crio_pin_clone(set).is_null(), "no owner added on failure");
            arm();
            assert_eq!(CStr::from_ptr(crio_pin_version()).to_str().unwrap(), env!("CARGO_PKG_VERSION"));
            arm();
            crio_pin_free(null_mut());
            arm();
            crio_pin_error_free(null_mut());
            // Disarmed again: the set still works and answers truly.
            assert_eq!(crio_pin_tier(set), CRIO_PIN_TIER_EXACT);
            assert!(!crio_pin_match(set, c"x".as_ptr(), 1));
            assert_eq!(crio_pin_match_index(set, c"x".as_ptr(), 1), -1);
            assert_eq!(crio_pin_match_each(set, c"xy".as_ptr(), lens.as_ptr(), 2, results.as_mut_ptr()), 0);
            assert_eq!(results, [0, 0]);
            crio_pin_free(set);
        }
    }
}
