//! Any bytes as a pattern list, any flag bits, any names: compile either
//! fails with an error or gives a set whose answers are self-consistent.
//! Never a panic, hang or leak.
#![no_main]

use arbitrary::Arbitrary;
use crio_pin::{Flags, PinSet};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    flags: u32,
    patterns: Vec<Vec<u8>>,
    names: Vec<Vec<u8>>,
}

fuzz_target!(|input: Input| {
    let flags = match Flags::from_bits(input.flags) {
        Ok(flags) => flags,
        Err(err) => {
            assert_eq!(err.pattern_index(), None);
            return;
        }
    };
    let set = match PinSet::compile(&input.patterns, flags) {
        Ok(set) => set,
        Err(err) => {
            let index = err.pattern_index().expect("a pattern error names its pattern");
            assert!(index < input.patterns.len());
            assert!(err.to_string().starts_with(&format!("pattern {index} ")));
            return;
        }
    };
    assert_eq!(set.len(), input.patterns.len());
    for name in &input.names {
        let index = set.match_index(name);
        assert_eq!(set.is_match(name), index.is_some());
        if let Some(i) = index {
            // The pattern that pins the name pins it alone too.
            let alone = PinSet::compile([&input.patterns[i]], flags).unwrap();
            assert_eq!(alone.match_index(name), Some(0));
        }
    }
    assert_eq!(set.match_any(&input.names), input.names.iter().any(|n| set.is_match(n)));
});
