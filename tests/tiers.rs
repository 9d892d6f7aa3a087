//! Issue 55's lists, which stock CRI-O runs and the library refused while
//! it bounded its automaton at 32 MiB, compiled through the C ABI as CRI-O
//! compiles them: each is accepted, says its tier, and answers a sample of
//! names as CRI-O's loop of regexps does (the reference engine, one regex
//! a pattern; for each name only the regexes of the patterns that can
//! match it are built: a regex for each of a million patterns would take
//! minutes and gigabytes).

use std::ffi::c_char;

use crio_pin::ffi;
use crio_pin::oracle::ReferenceSet;
use crio_pin::{Flags, Pattern};

/// Deterministic printable text without `*` (xorshift).
struct Text(u64);

impl Text {
    fn take(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                let c = b'!' + (self.0 % 93) as u8;
                char::from(if c == b'*' { b'~' } else { c })
            })
            .collect()
    }
}

/// CRI-O's loop's answer for each of `names` (ASCII, as the patterns are):
/// the lowest index of a pattern whose regex matches. Its regex is built
/// and tried only for a pattern whose text the name holds ignoring ASCII
/// case (equals, for an exact one): for ASCII text (?i) relates nothing
/// else, so no other pattern can match; the regexes judge the rest.
fn crio_loop(patterns: &[String], names: &[String]) -> Vec<Option<usize>> {
    names
        .iter()
        .map(|name| {
            assert!(name.is_ascii());
            let lower = name.to_ascii_lowercase();
            patterns.iter().position(|p| {
                let could = match Pattern::parse(p, Flags::DEFAULT).expect("the lists are valid") {
                    Pattern::Exact(text) => text.eq_ignore_ascii_case(name),
                    Pattern::Glob(text) | Pattern::Keyword(text) => lower.contains(&text.to_ascii_lowercase()),
                    other => panic!("CRI-O's syntax has no {other:?}"),
                };
                could && ReferenceSet::compile([p], Flags::DEFAULT).expect("compiles").is_match(name.as_bytes())
            })
        })
        .collect()
}

/// The list compiled through `crio_pin_compile`, its tier by
/// `crio_pin_validate_tier` and `crio_pin_tier`, and each name's
/// `crio_pin_match_index` and `crio_pin_match`.
fn through_the_c_abi(patterns: &[String], names: &[String]) -> (u32, Vec<Option<usize>>) {
    let pointers: Vec<*const c_char> = patterns.iter().map(|p| p.as_ptr().cast()).collect();
    let lengths: Vec<usize> = patterns.iter().map(String::len).collect();
    let (count, flags) = (patterns.len(), ffi::CRIO_PIN_DEFAULT);
    let mut tier = 0;
    let mut error = std::ptr::null_mut();
    // SAFETY: count pointers and lengths, valid for each call; the set is
    // freed once.
    unsafe {
        assert!(ffi::crio_pin_validate_tier(pointers.as_ptr(), lengths.as_ptr(), count, flags, &mut tier, &mut error));
        assert!(error.is_null());
        let set = ffi::crio_pin_compile(pointers.as_ptr(), lengths.as_ptr(), count, flags, &mut error);
        assert!(!set.is_null() && error.is_null(), "the list compiles");
        assert_eq!(ffi::crio_pin_tier(set), tier, "compile gets the tier validate says");
        let got = names
            .iter()
            .map(|n| {
                let index = ffi::crio_pin_match_index(set, n.as_ptr().cast(), n.len());
                assert!(index >= -1, "{n}: {index}");
                assert_eq!(ffi::crio_pin_match(set, n.as_ptr().cast(), n.len()), index >= 0, "{n}");
                usize::try_from(index).ok()
            })
            .collect();
        ffi::crio_pin_free(set);
        (tier, got)
    }
}

/// Names that hold every `step`-th pattern's text, and some that hold none.
fn names_for(patterns: &[String], step: usize, text: &mut Text) -> Vec<String> {
    let mut names: Vec<String> = patterns
        .iter()
        .step_by(step)
        .flat_map(|p| {
            let needle = p.trim_matches('*');
            [format!("registry.example/{needle}:v1"), needle.to_uppercase()]
        })
        .collect();
    names.extend([text.take(80), text.take(255), "docker.io/library/nginx:latest".into()]);
    names
}

fn check(label: &str, patterns: &[String], names: &[String], tier: u32) {
    let (got_tier, got) = through_the_c_abi(patterns, names);
    assert_eq!(got_tier, tier, "{label}");
    let want = crio_loop(patterns, names);
    for ((name, got), want) in names.iter().zip(&got).zip(&want) {
        assert_eq!(got, want, "{label}: {name}");
    }
    let pinned = want.iter().filter(|w| w.is_some()).count();
    assert!(pinned > 0 && pinned < names.len(), "{label}: {pinned} of {} pinned", names.len());
}

#[test]
fn random_keywords_of_30_bytes() {
    let mut text = Text(0x9e37_79b9_7f4a_7c15);
    let patterns: Vec<String> = (0..10_000).map(|_| format!("*{}*", text.take(30))).collect();
    let names = names_for(&patterns, 700, &mut text);
    check("10,000 random keywords of 30 bytes", &patterns, &names, ffi::CRIO_PIN_TIER_DENSE);
}

#[test]
fn ordinary_patterns() {
    let mut text = Text(0x2545_f491_4f6c_dd1d);
    for (count, tier) in [(40_000, ffi::CRIO_PIN_TIER_DENSE), (400_000, ffi::CRIO_PIN_TIER_SPARSE)] {
        let patterns: Vec<String> = (0..count)
            .map(|i| match i % 10 {
                0..5 => format!("registry.corp.example.com/team{i}/app:*"),
                5..9 => format!("quay.io/org{i}/app*"),
                _ => format!("*app{i}*"),
            })
            .collect();
        let mut names = names_for(&patterns, count / 8, &mut text);
        names.extend(["mirror/QUAY.IO/org39998/app-x:1".into(), "quay.io/org7/ap".into()]);
        check(&format!("{count} ordinary patterns"), &patterns, &names, tier);
    }
}

#[test]
fn a_million_keywords_of_20_bytes() {
    let mut text = Text(0x1234_5678_9abc_def1);
    let patterns: Vec<String> = (0..1_000_000).map(|_| format!("*{}*", text.take(20))).collect();
    let names = names_for(&patterns, 125_000, &mut text);
    check("1,000,000 keywords of 20 bytes", &patterns, &names, ffi::CRIO_PIN_TIER_SPARSE);
}

/// Failure jumps (issue 36): for each random 255-byte name `s`, the
/// keywords `s[i..i + 40]` and a letter that is not `s[i + 40]` in any
/// case; within the dense tier at 5 names, past it at 60.
#[test]
fn failure_jumps() {
    let mut text = Text(0x0bad_cafe_dead_beef);
    for (count, tier) in [(5, ffi::CRIO_PIN_TIER_DENSE), (60, ffi::CRIO_PIN_TIER_SPARSE)] {
        let mut patterns = Vec::new();
        let mut names = Vec::new();
        for k in 0..count {
            let s = text.take(255);
            for i in 0..=214 {
                let z = if s.as_bytes()[i + 40] | 0x20 == b'z' { 'y' } else { 'z' };
                patterns.push(format!("*{}{z}*", &s[i..i + 40]));
            }
            if k < 8 {
                let last = patterns.last().expect("pushed").trim_matches('*').to_string();
                names.extend([s.clone(), s.to_lowercase(), format!("x{last}")]);
            }
        }
        check(&format!("failure jumps over {count} names"), &patterns, &names, tier);
    }
}
