//! The fast engine, in every shape, against the oracle (CRI-O's loop of one regex
//! per pattern): same compile errors, same answers, for any input. Code
//! points whose case folding changed in Unicode 16 are skipped (the
//! oracle's regex crate has Unicode 16, Go has 15).
#![no_main]

use arbitrary::Arbitrary;
use crio_pin::oracle::{in_unicode_16_fold_changes, ReferenceSet};
use crio_pin::{Flags, PinSet};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    flags: u8,
    patterns: Vec<String>,
    names: Vec<Vec<u8>>,
}

fn avoids_unicode_16(bytes: &[u8]) -> bool {
    bytes.utf8_chunks().all(|c| !c.valid().chars().any(in_unicode_16_fold_changes))
}

fuzz_target!(|input: Input| {
    let flags = Flags::from_bits(u32::from(input.flags) & Flags::CRIO_OPTIONS.bits()).unwrap();
    // The oracle is slow (a regex per pattern): keep lists small.
    if input.patterns.len() > 64 || input.patterns.iter().any(|p| p.len() > 256) {
        return;
    }
    if !input.patterns.iter().all(|p| avoids_unicode_16(p.as_bytes()))
        || !input.names.iter().all(|n| avoids_unicode_16(n))
    {
        return;
    }
    // The fast engine in every shape it can take, whatever the list's size.
    let (fast, oracle) =
        match (PinSet::compile_every_shape(&input.patterns, flags), ReferenceSet::compile(&input.patterns, flags)) {
            (Ok(f), Ok(r)) => (f, r),
            (Err(f), Err(r)) => {
                assert_eq!(f, r);
                return;
            }
            (f, r) => panic!("compile disagrees: fast {:?}, oracle {:?}", f.err(), r.err()),
        };
    for name in &input.names {
        let want = oracle.match_index(name);
        for (shape, fast) in &fast {
            assert_eq!(fast.match_index(name), want, "name {name:?} {shape:?}");
            assert_eq!(fast.is_match(name), want.is_some(), "name {name:?} {shape:?}");
        }
    }
});
