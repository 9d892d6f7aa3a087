//! The C entry points driven as the header allows: pointer/length pairs that
//! are valid, (NULL, 0), NULL with a length, NULL entries, lengths whose sum
//! overflows, unknown flags. Answers must agree with the safe API and
//! between entry points; errors must be well-formed and freed.
#![no_main]

use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

use arbitrary::Arbitrary;
use crio_pin::ffi::*;
use crio_pin::{Flags, PinSet};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Entry {
    Bytes(Vec<u8>),
    /// A NULL pointer with this length (0 is the empty pattern).
    Null(u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    flags: u32,
    nul_terminated: bool,
    patterns: Vec<Entry>,
    names: Vec<Vec<u8>>,
    names_null: bool,
    overflow_lengths: bool,
    clones: u8,
}

fuzz_target!(|input: Input| {
    // NUL-terminated copies (for lengths == NULL) and raw pointers.
    let owned: Vec<Option<Vec<u8>>> = input
        .patterns
        .iter()
        .map(|e| match e {
            Entry::Bytes(b) if input.nul_terminated => {
                let mut v: Vec<u8> = b.iter().copied().filter(|&c| c != 0).collect();
                v.push(0);
                Some(v)
            }
            Entry::Bytes(b) => Some(b.clone()),
            Entry::Null(_) => None,
        })
        .collect();
    let pointers: Vec<*const c_char> = owned.iter().map(|o| o.as_ref().map_or(null(), |v| v.as_ptr().cast())).collect();
    let lengths: Vec<usize> = input
        .patterns
        .iter()
        .zip(&owned)
        .map(|(e, o)| match e {
            Entry::Bytes(_) => o.as_ref().unwrap().len(),
            Entry::Null(len) => usize::from(*len),
        })
        .collect();
    let mut error = null_mut();
    let set = unsafe {
        crio_pin_compile(
            if pointers.is_empty() { null() } else { pointers.as_ptr() },
            if input.nul_terminated { null() } else { lengths.as_ptr() },
            pointers.len(),
            input.flags,
            &mut error,
        )
    };
    // The same list through the safe API.
    let texts: Option<Vec<&[u8]>> = owned
        .iter()
        .zip(&lengths)
        .map(|(o, &len)| match o {
            Some(v) if input.nul_terminated => Some(&v[..v.len() - 1]),
            Some(v) => Some(&v[..]),
            None if len == 0 && !input.nul_terminated => Some(&[][..]),
            None => None,
        })
        .collect();
    let safe = texts.and_then(|t| Flags::from_bits(input.flags).ok().and_then(|f| PinSet::compile(t, f).ok()));
    assert_eq!(set.is_null(), safe.is_none());
    if set.is_null() {
        assert!(!error.is_null());
        let message = unsafe { CStr::from_ptr(crio_pin_error_message(error)) };
        assert!(!message.to_bytes().is_empty());
        let index = unsafe { crio_pin_error_pattern_index(error) };
        assert!(index >= -1 && index < pointers.len() as isize);
        unsafe { crio_pin_error_free(error) };
        return;
    }
    assert!(error.is_null());
    let safe = safe.unwrap();
    assert_eq!(unsafe { crio_pin_len(set) }, input.patterns.len());

    let owners: Vec<*mut crio_pin_set> = (0..input.clones % 4).map(|_| unsafe { crio_pin_clone(set) }).collect();
    unsafe { crio_pin_free(set) };
    let set = owners.first().copied().unwrap_or(set);
    if owners.is_empty() {
        return; // the only owner was freed
    }

    let packed: Vec<u8> = input.names.concat();
    let mut name_lengths: Vec<usize> = input.names.iter().map(Vec::len).collect();
    // Without names there is no length to overflow: count 0 is valid.
    let overflow = input.overflow_lengths && !name_lengths.is_empty();
    if overflow {
        name_lengths[0] = usize::MAX;
    }
    let names_ptr: *const c_char = if input.names_null { null() } else { packed.as_ptr().cast() };
    let valid = !overflow && (!input.names_null || packed.is_empty());
    for (name, &len) in input.names.iter().zip(&name_lengths) {
        let p: *const c_char = if input.names_null { null() } else { name.as_ptr().cast() };
        let want = if input.names_null && !name.is_empty() || len != name.len() {
            None // NULL with a length, or an overflowing length: never read
        } else {
            Some(safe.match_index(name))
        };
        let got = unsafe { crio_pin_match_index(set, p, len) };
        let matched = unsafe { crio_pin_match(set, p, len) };
        match want {
            Some(index) => {
                assert_eq!(got, index.map_or(-1, |i| i as isize));
                assert_eq!(matched, index.is_some());
            }
            // Cannot answer: fails towards "pinned", told apart by the index.
            None => assert!(got == CRIO_PIN_MATCH_FAILED && matched),
        }
    }
    let mut results = vec![7u8; name_lengths.len()];
    let pinned =
        unsafe { crio_pin_match_each(set, names_ptr, name_lengths.as_ptr(), name_lengths.len(), results.as_mut_ptr()) };
    let any = unsafe { crio_pin_match_any(set, names_ptr, name_lengths.as_ptr(), name_lengths.len()) };
    assert!(results.iter().all(|&r| r <= 1));
    if valid {
        let want: Vec<u8> = input.names.iter().map(|n| u8::from(safe.is_match(n))).collect();
        assert_eq!(results, want);
        assert_eq!(pinned, results.iter().filter(|&&r| r == 1).count());
        assert_eq!(any, pinned > 0);
    } else {
        // Invalid arguments never answer "not pinned".
        assert_eq!(pinned, CRIO_PIN_EACH_FAILED);
        assert!(results.iter().all(|&r| r == 1));
        assert!(any);
    }
    for owner in owners {
        unsafe { crio_pin_free(owner) };
    }
});
