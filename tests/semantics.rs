//! CRI-O's semantics, case by case. Every case runs on both engines: the
//! fast `PinSet` and the `ReferenceSet` (one regex per pattern, as CRI-O).

use crio_pin::reference::ReferenceSet;
use crio_pin::{ErrorKind, Flags, PinSet};

struct Case {
    name: &'static str,
    patterns: Vec<&'static [u8]>,
    flags: Flags,
    image: &'static [u8],
    /// The lowest index of a matching pattern, or None.
    want: Option<usize>,
}

const D: Flags = Flags::DEFAULT;
const ANCHOR: Flags = Flags::ANCHOR_GLOBS;
const CASE: Flags = Flags::CASE_SENSITIVE;

macro_rules! cases {
    ($($name:ident: [$($p:expr),*], $flags:expr, $image:expr => $want:expr;)*) => {
        vec![$(Case {
            name: stringify!($name),
            patterns: vec![$(AsRef::<[u8]>::as_ref($p)),*],
            flags: $flags,
            image: AsRef::<[u8]>::as_ref($image),
            want: $want,
        }),*]
    };
}

fn cases() -> Vec<Case> { cases! {
    exact_matches_whole_name:            ["quay.io/x:1"], D, "quay.io/x:1" => Some(0);
    exact_rejects_longer_name:           ["quay.io/x:1"], D, "quay.io/x:10" => None;
    exact_rejects_prefix_of_name:        ["quay.io/x:1"], D, "quay.io/x:" => None;
    exact_rejects_name_inside:           ["quay.io/x:1"], D, "a/quay.io/x:1" => None;
    exact_is_case_insensitive:           ["Quay.IO/X:Latest"], D, "quay.io/x:LATEST" => Some(0);
    exact_trailing_newline_is_not_end:   ["quay.io/x:1"], D, "quay.io/x:1\n" => None;
    exact_with_newline_matches_it:       ["quay.io/x:1\n"], D, "quay.io/x:1\n" => Some(0);
    empty_pattern_matches_empty_name:    [""], D, "" => Some(0);
    empty_pattern_rejects_other_names:   [""], D, "a" => None;
    glob_matches_prefix:                 ["quay.io/*"], D, "quay.io/x" => Some(0);
    glob_is_not_anchored:                ["quay.io/*"], D, "evil.example/quay.io/x" => Some(0);
    glob_matches_its_prefix_exactly:     ["quay.io/*"], D, "quay.io/" => Some(0);
    glob_is_case_insensitive:            ["quay.io/*"], D, "QUAY.IO/X" => Some(0);
    glob_needs_the_whole_prefix:         ["quay.io/*"], D, "quay.io" => None;
    anchored_glob_matches_at_start:      ["quay.io/*"], ANCHOR, "quay.io/x" => Some(0);
    anchored_glob_rejects_inside:        ["quay.io/*"], ANCHOR, "evil.example/quay.io/x" => None;
    anchored_glob_folds_case:            ["quay.io/*"], ANCHOR, "QUAY.io/x" => Some(0);
    keyword_matches_inside:              ["*pause*"], D, "registry.k8s.io/pause:3.9" => Some(0);
    keyword_matches_whole:               ["*pause*"], D, "pause" => Some(0);
    keyword_is_case_insensitive:         ["*pause*"], D, "PAUSE" => Some(0);
    keyword_not_anchored_by_flag:        ["*pause*"], ANCHOR, "x/pause" => Some(0);
    keyword_rejects_other:               ["*pause*"], D, "paus" => None;
    double_star_pins_every_name:         ["**"], D, "anything/at:all" => Some(0);
    double_star_pins_empty_name:         ["**"], D, "" => Some(0);
    double_star_pins_invalid_utf8:       ["**"], D, b"\xff\xfe" => Some(0);
    triple_star_is_keyword_star:         ["***"], D, "a*b" => Some(0);
    triple_star_needs_a_star:            ["***"], D, "ab" => None;
    leading_star_is_literal:             ["*pause"], D, "registry.k8s.io/pause" => None;
    leading_star_matches_literally:      ["*pause"], D, "*PAUSE" => Some(0);
    inner_star_is_literal:               ["a*b"], D, "axb" => None;
    inner_star_matches_literally:        ["a*b"], D, "A*B" => Some(0);
    glob_inner_star_is_literal:          ["a**"], D, "xa*y" => Some(0);
    glob_inner_star_needs_star:          ["a**"], D, "ab" => None;
    keyword_inner_star_is_literal:       ["*a*b*"], D, "xa*by" => Some(0);
    dot_is_literal:                      ["a.b"], D, "axb" => None;
    dot_matches_itself:                  ["a.b"], D, "a.b" => Some(0);
    caret_dollar_are_literal:            ["^a$"], D, "^A$" => Some(0);
    regex_metacharacters_are_literal:    ["*(a|b)+[c]?{2}\\d*"], D, "x(A|B)+[C]?{2}\\dy" => Some(0);
    metacharacters_do_not_act:           ["*(a|b)*"], D, "a" => None;
    kelvin_sign_matches_k:               ["*k8s*"], D, "registry.\u{212A}8s.io" => Some(0);
    k_matches_kelvin_sign:               ["*\u{212A}8s*"], D, "registry.k8s.io" => Some(0);
    long_s_matches_s:                    ["*pause*"], D, "pau\u{17F}e" => Some(0);
    e_acute_folds:                       ["café"], D, "CAFÉ" => Some(0);
    sigma_orbit_folds:                   ["*σ*"], D, "xςy" => Some(0);
    case_sensitive_rejects_other_case:   ["quay.io/X"], CASE, "quay.io/x" => None;
    case_sensitive_matches_same_case:    ["quay.io/X"], CASE, "quay.io/X" => Some(0);
    case_sensitive_no_kelvin:            ["*k8s*"], CASE, "\u{212A}8s" => None;
    invalid_byte_is_replacement_char:    ["\u{FFFD}"], D, b"\xff" => Some(0);
    each_bad_byte_is_one_rune:           ["\u{FFFD}\u{FFFD}"], D, b"\xe2\x82" => Some(0);
    bad_bytes_count_per_byte:            ["\u{FFFD}"], D, b"\xe2\x82" => None;
    bad_byte_in_case_sensitive_mode:     ["*\u{FFFD}*"], CASE, b"a\xc0b" => Some(0);
    invalid_utf8_name_still_matches:     ["*pause*"], D, b"\xffpause\xfe" => Some(0);
    nul_byte_in_name_and_pattern:        [b"a\0b"], D, b"A\0B" => Some(0);
    nul_byte_breaks_a_match:             ["ab"], D, b"a\0b" => None;
    lowest_index_wins:                   ["*io*", "quay.io/*", "quay.io/x"], D, "quay.io/x" => Some(0);
    lowest_index_wins_reordered:         ["quay.io/x", "quay.io/*", "*io*"], D, "quay.io/x" => Some(0);
    later_pattern_when_first_misses:     ["docker.io/*", "*quay*"], D, "quay.io/x" => Some(1);
    duplicate_patterns_keep_first:       ["other", "*QUAY*", "*quay*"], D, "quay.io/x" => Some(1);
    empty_list_pins_nothing:             [], D, "quay.io/x" => None;
} }

#[test]
fn both_engines_follow_the_semantics_table() {
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let fast = PinSet::compile(&case.patterns, case.flags).unwrap();
        let reference = ReferenceSet::compile(&case.patterns, case.flags).unwrap();
        let got = (fast.match_index(case.image), reference.match_index(case.image));
        if got != (case.want, case.want) || fast.is_match(case.image) != case.want.is_some() {
            failures.push(format!("{}: want {:?}, fast {:?}, reference {:?}", case.name, case.want, got.0, got.1));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn lone_star_is_an_error_that_says_what_to_write() {
    let err = PinSet::compile(["a", "*"], Flags::DEFAULT).unwrap_err();
    assert_eq!(err.pattern_index(), Some(1));
    assert_eq!(err.kind(), &ErrorKind::LoneStar);
    assert!(err.to_string().contains("\"**\""), "{err}");
    assert_eq!(ReferenceSet::compile(["a", "*"], Flags::DEFAULT).unwrap_err(), err);
}

#[test]
fn invalid_utf8_pattern_names_its_index() {
    let patterns: [&[u8]; 3] = [b"ok", b"ok2", b"bad\xff"];
    let err = PinSet::compile(patterns, Flags::DEFAULT).unwrap_err();
    assert_eq!(err.pattern_index(), Some(2));
    assert_eq!(err.kind(), &ErrorKind::NotUtf8 { valid_up_to: 3 });
    assert!(err.to_string().starts_with("pattern 2 (\"bad\\xff\"): not valid UTF-8"), "{err}");
}

#[test]
fn strict_mode_rejects_each_mistake_with_its_own_message() {
    let cases: &[(&str, &str)] = &[
        ("", "empty pattern"),
        ("*pause", "only at the start is a literal character, so this pins only a name that \
                    really begins with '*'; write \"*pause*\" to pin names containing \"pause\""),
        ("a*b", "'*' at byte 1 is a literal"),
        ("quay.io/x ", "whitespace"),
        ("quay.io/\tx", "whitespace"),
        ("quay.io/\u{1}x", "control character"),
    ];
    for (pattern, message) in cases {
        let err = PinSet::compile(["fine", pattern], Flags::STRICT).unwrap_err();
        assert_eq!(err.pattern_index(), Some(1), "{pattern:?}");
        assert!(err.to_string().contains(message), "{pattern:?}: {err}");
        // Without STRICT the same pattern compiles.
        PinSet::compile([pattern], Flags::DEFAULT).unwrap();
    }
    PinSet::compile(["**", "*pause*", "quay.io/*", "quay.io/x:1"], Flags::STRICT).unwrap();
}

#[test]
fn strict_mode_does_not_change_answers() {
    let patterns = ["quay.io/*", "*pause*", "registry.k8s.io/etcd:3.5"];
    let strict = PinSet::compile(patterns, Flags::STRICT).unwrap();
    let default = PinSet::compile(patterns, Flags::DEFAULT).unwrap();
    for name in ["x/quay.io/y", "PAUSE", "registry.k8s.io/ETCD:3.5", "nope"] {
        assert_eq!(strict.match_index(name.as_bytes()), default.match_index(name.as_bytes()), "{name}");
    }
}

#[test]
fn unknown_flag_bits_are_an_error() {
    let err = Flags::from_bits(0x10).unwrap_err();
    assert_eq!(err.pattern_index(), None);
    assert!(err.to_string().contains("unknown flag bits 0x10"), "{err}");
}

#[test]
fn match_any_checks_all_names_of_an_image() {
    let set = PinSet::compile(["quay.io/x@sha256:abc"], Flags::DEFAULT).unwrap();
    assert!(set.match_any(["quay.io/x:latest", "quay.io/x@sha256:abc"]));
    assert!(!set.match_any(["quay.io/x:latest", "quay.io/y@sha256:abc"]));
    assert!(!set.match_any(Vec::<&str>::new()));
}

#[test]
fn len_counts_every_pattern_including_duplicates() {
    let set = PinSet::compile(["a", "a", "*b*", "c*"], Flags::DEFAULT).unwrap();
    assert_eq!(set.len(), 4);
    assert_eq!(set.flags(), Flags::DEFAULT);
}
