//! CRI-O's semantics, case by case, from the shared table
//! `data/semantics.txt` (its header defines the format). Every case runs on
//! both engines: the fast `PinSet`, in every shape it can take, and the
//! `ReferenceSet` (one regex per pattern, as CRI-O). The other tests here check what only the Rust API
//! says: error kinds' messages, flags, `match_any`, `len`.

use crio_pin::oracle::containerd::ContainerdReference;
use crio_pin::oracle::cri_dockerd::CriDockerdReference;
use crio_pin::oracle::{docker_reference, in_unicode_16_fold_changes, ReferenceSet};
use crio_pin::{ErrorKind, Flags, PinSet, Shape};

const TABLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/semantics.txt");

enum Want {
    /// The lowest index of a pattern that pins the name, or None.
    Match { name: Vec<u8>, index: Option<usize> },
    /// The list must fail to compile, blaming this pattern.
    Error { index: usize, kind: String },
}

struct Case {
    line: usize,
    name: String,
    flags: Flags,
    patterns: Vec<Vec<u8>>,
    want: Want,
}

/// Reads one line's fields: bare words, `[`, `]` and decoded strings.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Open,
    Close,
    Str(Vec<u8>),
}

fn tokens(line: &str) -> Result<Vec<Token>, String> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' => i += 1,
            b'[' => (out.push(Token::Open), i += 1).1,
            b']' => (out.push(Token::Close), i += 1).1,
            b'"' => {
                let (s, next) = string(bytes, i + 1)?;
                out.push(Token::Str(s));
                i = next;
            }
            _ => {
                let end = bytes[i..].iter().position(|b| b" []\"".contains(b)).map_or(bytes.len(), |n| i + n);
                out.push(Token::Word(line[i..end].to_string()));
                i = end;
            }
        }
    }
    Ok(out)
}

/// Decodes a string from just after its opening quote; returns it and the
/// offset after the closing quote.
fn string(bytes: &[u8], mut i: usize) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::new();
    loop {
        let at = |i: usize| format!("column {}", i + 1);
        match bytes.get(i).copied() {
            None => return Err(format!("{}: unterminated string (end it with '\"')", at(i))),
            Some(b'"') => return Ok((out, i + 1)),
            Some(b'\\') => {
                let esc = bytes.get(i + 1).copied();
                i += 2;
                match esc {
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'"') => out.push(b'"'),
                    Some(b't') => out.push(b'\t'),
                    Some(b'n') => out.push(b'\n'),
                    Some(b'r') => out.push(b'\r'),
                    Some(b'x') => {
                        let hex = bytes.get(i..i + 2).and_then(|h| std::str::from_utf8(h).ok());
                        let byte = hex
                            .and_then(|h| u8::from_str_radix(h, 16).ok())
                            .ok_or_else(|| format!("{}: \\x needs exactly two hex digits", at(i - 2)))?;
                        out.push(byte);
                        i += 2;
                    }
                    Some(b'u') => {
                        let close = bytes[i..].iter().position(|&b| b == b'}');
                        let c = close
                            .filter(|_| bytes.get(i) == Some(&b'{'))
                            .and_then(|n| std::str::from_utf8(&bytes[i + 1..i + n]).ok())
                            .filter(|h| (1..=6).contains(&h.len()))
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .and_then(char::from_u32)
                            .ok_or_else(|| {
                                format!(
                                    "{}: write \\u{{H...}} with 1 to 6 hex digits of a Unicode scalar value",
                                    at(i - 2)
                                )
                            })?;
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        i += close.unwrap() + 1;
                    }
                    _ => {
                        return Err(format!(
                            "{}: unknown escape (use \\\\ \\\" \\t \\n \\r \\xHH \\u{{H...}})",
                            at(i - 2)
                        ))
                    }
                }
            }
            Some(b @ 0x20..=0x7e) => (out.push(b), i += 1).1,
            Some(b) => return Err(format!("{}: raw byte 0x{b:02X} in a string: write it as an escape", at(i))),
        }
    }
}

fn flags(word: &str) -> Result<Flags, String> {
    if word == "default" {
        return Ok(Flags::DEFAULT);
    }
    let mut bits = 0;
    for part in word.split('+') {
        bits |= match part {
            "anchor_globs" => Flags::ANCHOR_GLOBS.bits(),
            "case_sensitive" => Flags::CASE_SENSITIVE.bits(),
            "strict" => Flags::STRICT.bits(),
            "literal" => Flags::LITERAL.bits(),
            "cri_dockerd_syntax" => Flags::CRI_DOCKERD_SYNTAX.bits(),
            "normalize" => Flags::NORMALIZE.bits(),
            "containerd" => Flags::CONTAINERD.bits(),
            "containerd_normalized" => Flags::CONTAINERD_NORMALIZED.bits(),
            "cri_dockerd" => Flags::CRI_DOCKERD.bits(),
            _ => {
                return Err(format!(
                    "unknown flag {part:?} (default, or +-joined anchor_globs, case_sensitive, strict, literal, \
                     cri_dockerd_syntax, normalize, containerd, containerd_normalized, cri_dockerd)"
                ))
            }
        };
    }
    Ok(Flags::from_bits(bits).expect("known bits"))
}

fn case(line: usize, text: &str) -> Result<Case, String> {
    let mut tokens = tokens(text)?.into_iter();
    let name = match tokens.next() {
        Some(Token::Word(w))
            if !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') =>
        {
            w
        }
        t => return Err(format!("the case name must be [a-z0-9_]+, got {t:?}")),
    };
    let flags = match tokens.next() {
        Some(Token::Word(w)) => flags(&w)?,
        t => return Err(format!("{name}: flags expected, got {t:?}")),
    };
    if tokens.next() != Some(Token::Open) {
        return Err(format!("{name}: the pattern list must follow the flags, in [ ]"));
    }
    let mut patterns = Vec::new();
    loop {
        match tokens.next() {
            Some(Token::Str(p)) => patterns.push(p),
            Some(Token::Close) => break,
            t => return Err(format!("{name}: a pattern string or ']' expected, got {t:?}")),
        }
    }
    let rest: Vec<Token> = tokens.collect();
    let index = |w: &str| w.parse::<usize>().map_err(|_| format!("{name}: index expected, got {w:?}"));
    let want = match rest.as_slice() {
        [Token::Str(image), Token::Word(w)] => {
            Want::Match { name: image.clone(), index: if w == "none" { None } else { Some(index(w)?) } }
        }
        [Token::Word(e), Token::Word(i), Token::Word(kind)] if e == "error" => {
            Want::Error { index: index(i)?, kind: kind.clone() }
        }
        _ => return Err(format!("{name}: after the patterns write \"name\" WANT or error INDEX KIND")),
    };
    Ok(Case { line, name, flags, patterns, want })
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(TABLE).unwrap_or_else(|e| panic!("{TABLE}: {e}"));
    let mut cases: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let case = case(i + 1, line).unwrap_or_else(|e| panic!("{TABLE}:{}: {e}", i + 1));
        if let Some(first) = cases.iter().find(|c| c.name == case.name) {
            panic!("{TABLE}:{}: case name {} already used on line {}", i + 1, case.name, first.line);
        }
        cases.push(case);
    }
    cases
}

/// The Rust name of an error kind, as the table writes it.
fn kind_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::NotUtf8 { .. } => "not_utf8",
        ErrorKind::LoneStar => "lone_star",
        ErrorKind::Empty => "empty",
        ErrorKind::Whitespace { .. } => "whitespace",
        ErrorKind::LeadingStar { .. } => "leading_star",
        ErrorKind::InnerStar { .. } => "inner_star",
        ErrorKind::InvalidReference { .. } => "invalid_reference",
        // Not expressible in the table (flags are named, sizes are small).
        _ => "(a kind the table does not name)",
    }
}

/// Whether the reference engine (Unicode 16 case folding) can judge a case
/// whose answers are Go's (Unicode 15).
fn reference_applies(case: &Case) -> bool {
    let mut texts: Vec<&[u8]> = case.patterns.iter().map(Vec::as_slice).collect();
    if let Want::Match { name, .. } = &case.want {
        texts.push(name);
    }
    texts.iter().all(|t| !t.utf8_chunks().any(|c| c.valid().chars().any(in_unicode_16_fold_changes)))
}

/// One case on one engine: None when it answers as the table says.
fn check<E: std::fmt::Debug>(
    case: &Case,
    engine: &str,
    compile: impl Fn(&[Vec<u8>], Flags) -> Result<E, crio_pin::CompileError>,
    match_index: impl Fn(&E, &[u8]) -> Option<usize>,
) -> Option<String> {
    let got = compile(&case.patterns, case.flags);
    let problem = match (&case.want, got) {
        (Want::Match { name, index }, Ok(set)) => {
            let got = match_index(&set, name);
            (got != *index).then(|| format!("want {index:?}, got {got:?}"))
        }
        (Want::Match { .. }, Err(e)) => Some(format!("want a set, got error: {e}")),
        (Want::Error { index, kind }, Err(e)) => (e.pattern_index() != Some(*index) || kind_name(e.kind()) != kind)
            .then(|| format!("want error {kind} at {index}, got {:?} at {:?}: {e}", e.kind(), e.pattern_index())),
        (Want::Error { index, kind }, Ok(_)) => Some(format!("want error {kind} at {index}, got a set")),
    };
    problem.map(|p| format!("{TABLE}:{} {} ({engine}): {p}", case.line, case.name))
}

/// A list as the runtimes' references take it.
fn texts(patterns: &[Vec<u8>]) -> Vec<&[u8]> {
    patterns.iter().map(Vec::as_slice).collect()
}

#[test]
fn both_engines_follow_the_semantics_table() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut reference_skipped = 0;
    let mut normalize_only = 0;
    for case in &cases {
        failures.extend(check(case, "fast", |p, f| PinSet::compile(p, f), |s, n| s.match_index(n)));
        // Validating gives compile's verdict, with the same error.
        let validated = PinSet::validate(&case.patterns, case.flags);
        if validated != PinSet::compile(&case.patterns, case.flags).map(|set| set.tier()) {
            failures.push(format!("{TABLE}:{} {} (validate): {validated:?}", case.line, case.name));
        }
        // Every shape the fast engine can take, whatever the list's size.
        for shape in Shape::ALL {
            let engine = format!("fast, {shape:?}");
            failures.extend(check(case, &engine, |p, f| PinSet::compile_shaped(p, f, shape), |s, n| s.match_index(n)));
            let set = PinSet::compile_shaped(&case.patterns, case.flags, shape);
            if let (Want::Match { name, index }, Ok(set)) = (&case.want, set) {
                if set.is_match(name) != index.is_some() {
                    failures.push(format!(
                        "{TABLE}:{} {} ({engine}): is_match says {}",
                        case.line,
                        case.name,
                        !index.is_some()
                    ));
                }
            }
        }
        let flags = case.flags;
        if Flags::CRIO_OPTIONS.contains(flags) {
            if reference_applies(case) {
                failures.extend(check(case, "reference", |p, f| ReferenceSet::compile(p, f), |s, n| s.match_index(n)));
            } else {
                reference_skipped += 1;
            }
        } else if flags == Flags::CONTAINERD || flags == Flags::CONTAINERD_NORMALIZED {
            let normalized = flags == Flags::CONTAINERD_NORMALIZED;
            match &case.want {
                // containerd accepts every list; what this library refuses
                // (under normalisation) it never pins.
                Want::Error { index, .. } => {
                    let text = String::from_utf8_lossy(&case.patterns[*index]);
                    if docker_reference::normalize(&text).is_ok() {
                        failures
                            .push(format!("{TABLE}:{} {} (containerd reference): a reference", case.line, case.name));
                    }
                }
                Want::Match { .. } => failures.extend(check(
                    case,
                    "containerd reference",
                    |p, _| Ok(ContainerdReference::compile(&texts(p), normalized)),
                    |s, n| s.pinned(n),
                )),
            }
        } else if flags == Flags::CRI_DOCKERD {
            failures.extend(check(
                case,
                "cri-dockerd reference",
                |p, _| Ok(CriDockerdReference::compile(&texts(p))),
                |s, n| s.pinned(n),
            ));
        } else {
            // NORMALIZE with CRI-O's rules: tests/dialects.rs checks it
            // against the reference grammar on generated references.
            normalize_only += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    // The table is the suites' only source of named cases: it must not shrink
    // unnoticed, and the Unicode 16 skip must stay narrow.
    assert!(cases.len() >= 433, "{TABLE} has {} cases, fewer than the 433 it had", cases.len());
    assert!(reference_skipped <= 6, "{reference_skipped} cases skipped on the reference engine");
    assert!(normalize_only <= 6, "{normalize_only} cases checked by no runtime's reference");
}

#[test]
fn table_reader_rejects_what_the_format_forbids() {
    for (line, why) in [
        ("x default [\"a\"] \"a\" 0 extra", "after the patterns"),
        ("x default [\"a\\q\"] \"a\" 0", "unknown escape"),
        ("x default [\"a\\x4\"] \"a\" 0", "two hex digits"),
        ("x default [\"a\\u{110000}\"] \"a\" 0", "Unicode scalar"),
        ("x default [\"caf\u{e9}\"] \"a\" 0", "raw byte 0xC3"),
        ("x default [\"a] \"a\" 0", "unterminated"),
        ("x fast [\"a\"] \"a\" 0", "unknown flag"),
        ("X default [\"a\"] \"a\" 0", "case name"),
        ("x default [\"a\"] \"a\" first", "index expected"),
    ] {
        let err = case(1, line).err().unwrap_or_else(|| panic!("{line:?} was accepted"));
        assert!(err.contains(why), "{line:?}: {err}");
    }
    let ok = case(1, "x anchor_globs+strict [\"\\x00\\u{212A}\\\\\" \"\"] error 1 empty").unwrap();
    assert_eq!(ok.patterns, [b"\0\xe2\x84\xaa\\".to_vec(), Vec::new()]);
    assert_eq!(ok.flags, Flags::ANCHOR_GLOBS | Flags::STRICT);
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
        (
            "*pause",
            "only at the start is a literal character, so this pins only the name \"*pause\" \
             itself (in any case); write \"*pause*\" to pin names containing \"pause\"",
        ),
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
    let err = Flags::from_bits(0x50).unwrap_err();
    assert_eq!(err.pattern_index(), None);
    assert!(err.to_string().contains("unknown flag bits 0x40"), "{err}");
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
