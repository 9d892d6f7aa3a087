//! Hostile and extreme inputs, each with its documented outcome
//! (docs/reliability.md, "Hostile and extreme inputs"). None may crash, hang or give a wrong answer.

use crio_pin::oracle::{in_unicode_16_fold_changes, ReferenceSet};
use crio_pin::{ErrorKind, Flags, PinSet, Tier, MAX_PATTERN_BYTES};

/// A million patterns compile (in about a second) and answer correctly:
/// exact names, globs and keywords; a million keywords too, in the sparse
/// tier (no list is refused for its size).
#[test]
fn a_million_patterns() {
    let patterns: Vec<String> = (0..1_000_000)
        .map(|i| match i % 100 {
            1 => format!("registry.example/team-{i}/*"),
            2 => format!("*agent-{i}-x*"),
            _ => format!("registry.example/team-{i}/app:v{i:x}"),
        })
        .collect();
    let set = PinSet::compile(&patterns, Flags::DEFAULT).unwrap();
    assert_eq!(set.len(), 1_000_000);
    let exact = format!("REGISTRY.example/team-999/app:V{:x}", 999);
    assert_eq!(set.match_index(exact.as_bytes()), Some(999));
    assert_eq!(set.match_index(b"mirror/registry.example/team-1001/app:1"), Some(1001));
    assert_eq!(set.match_index(b"x/agent-999902-x/y"), Some(999_902));
    assert_eq!(set.match_index(b"registry.example/team-3/app:1"), None);
    let needles: Vec<String> = (0..1_000_000).map(|i| format!("*agent-{i}-x*")).collect();
    let tier = PinSet::validate(&needles, Flags::DEFAULT).unwrap();
    assert!(matches!(tier, Tier::Sparse { .. }), "{tier:?}");
    let set = PinSet::compile(&needles, Flags::DEFAULT).unwrap();
    assert_eq!(set.tier(), tier);
    assert_eq!(set.match_index(b"x/AGENT-999902-X/y"), Some(999_902));
    assert_eq!(set.match_index(b"x/agent-99990-x/y"), Some(99_990));
    assert_eq!(set.match_index(b"x/agent-1000000-x/y"), None);
    assert_eq!(set.match_index(b"agent-17-agent-3-x"), Some(3));
}

/// A 1 MiB pattern compiles and matches (exact; a keyword of 256 KiB, as
/// long as the automaton's bound lets one of 11 distinct bytes be); a 16
/// MiB name is scanned once.
#[test]
fn a_one_mebibyte_pattern_and_a_sixteen_mebibyte_name() {
    let exact = "abcdefghij".repeat(100 * 1024 + 8); // just over 1 MiB
    let set = PinSet::compile([exact.as_str()], Flags::DEFAULT).unwrap();
    assert_eq!(set.match_index(exact.to_uppercase().as_bytes()), Some(0));
    assert_eq!(set.match_index(&exact.as_bytes()[1..]), None);
    let word = "abcdefghij".repeat(25 * 1024 + 8);
    let keyword = format!("*{word}*");
    let set = PinSet::compile([keyword.as_str(), "*needle*"], Flags::DEFAULT).unwrap();
    let mut name = "x".repeat(8 << 20);
    name.push_str(&word.to_uppercase());
    name.push_str(&"y".repeat(8 << 20));
    assert!(name.len() > 16 << 20);
    assert_eq!(set.match_index(name.as_bytes()), Some(0));
    name.replace_range(name.len() - 10..name.len() - 4, "NEEDLE");
    assert_eq!(set.match_index(name.as_bytes()), Some(0));
    let miss = "z".repeat(16 << 20);
    assert_eq!(set.match_index(miss.as_bytes()), None);
    // Every byte invalid: 16 MiB of U+FFFD to compare.
    let bad = vec![0xffu8; 16 << 20];
    assert_eq!(set.match_index(&bad), None);
    let fffd = PinSet::compile(["*\u{FFFD}\u{FFFD}*"], Flags::DEFAULT).unwrap();
    assert!(fffd.is_match(&bad));
}

/// Text beyond the documented bound is refused with a clear error, before
/// any large allocation.
#[test]
fn pattern_text_over_the_bound_is_refused() {
    let big = "a".repeat(MAX_PATTERN_BYTES + 1);
    let err = PinSet::compile([big.as_str()], Flags::DEFAULT).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TooLarge { .. }));
    assert_eq!(err.pattern_index(), Some(0));
    assert!(err.to_string().starts_with("pattern 0: too large"), "not quoted: {}", &err.to_string()[..200]);
}

#[test]
fn nul_bytes_everywhere() {
    let patterns: [&[u8]; 3] = [b"\0", b"\0\0*", b"*a\0b*"];
    let set = PinSet::compile(patterns, Flags::DEFAULT).unwrap();
    assert_eq!(set.match_index(b"\0"), Some(0));
    assert_eq!(set.match_index(b"x\0\0y"), Some(1));
    assert_eq!(set.match_index(b"\0A\0B\0"), Some(2));
    assert_eq!(set.match_index(&[0u8; 1000]), Some(1));
    assert_eq!(set.match_index(b""), None);
}

/// Combining characters are separate runes, as in Go: a decomposed é does
/// not match a precomposed one, and marks fold only with themselves.
#[test]
fn combining_characters_are_not_normalised() {
    let set = PinSet::compile(["café", "*\u{301}*"], Flags::DEFAULT).unwrap();
    assert_eq!(set.match_index("CAFÉ".as_bytes()), Some(0));
    assert_eq!(set.match_index("cafe\u{301}".as_bytes()), Some(1));
    assert_eq!(set.match_index("cafe".as_bytes()), None);
    let reference = ReferenceSet::compile(["café", "*\u{301}*"], Flags::DEFAULT).unwrap();
    assert_eq!(reference.match_index("cafe\u{301}".as_bytes()), Some(1));
}

/// Every case-fold orbit of Unicode: one exact pattern per orbit, and every
/// member of every orbit must be pinned by its orbit's pattern alone.
#[test]
fn every_case_fold_orbit() {
    use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
    let mut orbits: Vec<Vec<char>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        if seen.contains(&c) || in_unicode_16_fold_changes(c) {
            continue;
        }
        let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
        class.case_fold_simple();
        let orbit: Vec<char> = class.iter().flat_map(|r| r.start()..=r.end()).collect();
        if orbit.len() > 1 {
            seen.extend(orbit.iter().copied());
            orbits.push(orbit);
        }
    }
    assert!(orbits.len() > 1400, "{} orbits", orbits.len());
    let patterns: Vec<String> = orbits.iter().map(|o| format!("<{}>", o[0])).collect();
    let folded = PinSet::compile(&patterns, Flags::DEFAULT).unwrap();
    let exact = PinSet::compile(&patterns, Flags::CASE_SENSITIVE).unwrap();
    for (i, orbit) in orbits.iter().enumerate() {
        for (k, member) in orbit.iter().enumerate() {
            let name = format!("<{member}>");
            assert_eq!(folded.match_index(name.as_bytes()), Some(i), "{member:?} in {orbit:?}");
            let want = if k == 0 { Some(i) } else { None };
            assert_eq!(exact.match_index(name.as_bytes()), want, "{member:?} case-sensitive");
        }
    }
}

/// Names full of invalid UTF-8 of every shape, against a list built to be
/// sensitive to how many U+FFFD each shape reads as.
#[test]
fn invalid_utf8_of_every_shape() {
    let shapes: [&[u8]; 8] = [
        b"\x80",
        b"\xbf",
        b"\xc0\x80",
        b"\xc2",
        b"\xe0\x80\x80",
        b"\xed\xbf\xbf",
        b"\xf0\x8f\xbf\xbf",
        b"\xf8\x88\x80\x80\x80",
    ];
    let patterns: Vec<String> = (1..=5).map(|k| "\u{FFFD}".repeat(k)).collect();
    let set = PinSet::compile(&patterns, Flags::DEFAULT).unwrap();
    let reference = ReferenceSet::compile(&patterns, Flags::DEFAULT).unwrap();
    for shape in shapes {
        // Go reads each of these bytes as one U+FFFD.
        assert_eq!(set.match_index(shape), Some(shape.len() - 1), "{shape:x?}");
        assert_eq!(reference.match_index(shape), Some(shape.len() - 1), "{shape:x?}");
    }
}
