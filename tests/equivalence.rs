//! The fast engine must agree with the reference engine (CRI-O's loop of one
//! regex per pattern) on every pattern list, flag set and name: same
//! compile errors, same `is_match`, same `match_index`, in every shape the
//! fast engine can take (`Shape::ALL`).
//!
//! Generated inputs mix realistic image references with adversarial pieces:
//! fold-sensitive letters, invalid UTF-8, NUL and newline, regex
//! metacharacters, stars in every position, duplicates, empty strings.
//! Code points whose folding changed in Unicode 16 are left out: the
//! reference's `regex` crate uses Unicode 16, Go (and the fast engine) 15
//! (see `crio_pin::oracle::UNICODE_16_FOLD_CHANGES`).

use crio_pin::oracle::{in_unicode_16_fold_changes, ReferenceSet};
use crio_pin::{Flags, PinSet};
use proptest::prelude::*;

/// Characters patterns and names are built from.
const ALPHABET: &[&str] = &[
    "a",
    "b",
    "k",
    "s",
    "p",
    "K",
    "S",
    "A",
    "0",
    "9",
    ".",
    "/",
    ":",
    "@",
    "-",
    "_",
    "*",
    "$",
    "^",
    "(",
    "|",
    "[",
    "\\",
    "+",
    "?",
    " ",
    "\n",
    "\0",
    "\u{212A}",
    "\u{17F}",
    "é",
    "É",
    "σ",
    "ς",
    "Σ",
    "θ",
    "ϑ",
    "Θ",
    "ß",
    "\u{1E9E}",
    "İ",
    "ı",
    "\u{FFFD}",
    "\u{FFFD}\u{FFFD}",
    "ǅ",
    "ǆ",
    "Ǆ",
    "ꭰ",
    "Ꭰ",
    "𐐨",
    "𐐀",
];

/// Other members of some fold orbits, to rewrite names with.
const ORBITS: &[&[&str]] = &[
    &["k", "K", "\u{212A}"],
    &["s", "S", "\u{17F}"],
    &["é", "É"],
    &["σ", "ς", "Σ"],
    &["θ", "ϑ", "Θ", "ϴ"],
    &["ß", "\u{1E9E}"],
    &["ǅ", "ǆ", "Ǆ"],
    &["ꭰ", "Ꭰ"],
    &["𐐨", "𐐀"],
];

/// Byte strings that are not valid UTF-8 (or are, with a twist).
const BAD_BYTES: &[&[u8]] =
    &[b"\xff", b"\xfe\xff", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xef\xbf\xbd"];

/// Realistic pieces of image references.
const PIECES: &[&str] = &[
    "registry.k8s.io/",
    "pause",
    ":3.9",
    "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
    "@sha256:",
    "a84bba07931db925",
    "docker.io/library/",
    "nginx",
    ":1.25",
    "localhost:5000/",
    "gcr.io/project-1/",
    "KUBE-apiserver",
    ":v1.28.4",
];

fn word() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(ALPHABET).prop_map(str::to_string),
            1 => prop::sample::select(PIECES).prop_map(str::to_string),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

fn pattern() -> impl Strategy<Value = String> {
    (word(), 0u8..8).prop_map(|(w, shape)| match shape {
        0 | 1 => w,                // exact
        2 | 3 => format!("{w}*"),  // glob
        4 | 5 => format!("*{w}*"), // keyword
        6 => format!("*{w}"),      // literal leading star
        _ => ["**", "***", "", "*"][w.len() % 4].to_string(),
    })
}

fn flags() -> impl Strategy<Value = Flags> {
    (0u32..8).prop_map(|bits| Flags::from_bits(bits).unwrap())
}

/// A name built from pieces of the patterns and random material, then
/// rewritten: case flips, orbit swaps, bad bytes.
fn name(patterns: Vec<String>) -> impl Strategy<Value = Vec<u8>> {
    let segment = prop_oneof![
        3 => any::<prop::sample::Index>().prop_map(move |i| {
            if patterns.is_empty() { Vec::new() } else {
                patterns[i.index(patterns.len())].trim_matches('*').as_bytes().to_vec()
            }
        }),
        2 => word().prop_map(String::into_bytes),
        1 => prop::sample::select(BAD_BYTES).prop_map(<[u8]>::to_vec),
    ];
    (prop::collection::vec(segment, 0..4), any::<u64>()).prop_map(|(segments, seed)| rewrite(&segments.concat(), seed))
}

/// Rewrites valid runs of `bytes`: each character may change case or move
/// to another member of its fold orbit, driven by the bits of `seed`.
fn rewrite(bytes: &[u8], mut seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            seed = seed.rotate_left(3) ^ 0x9E37_79B9_7F4A_7C15;
            let s = c.to_string();
            let replacement = match ORBITS.iter().find(|o| o.contains(&s.as_str())) {
                Some(orbit) if seed & 1 == 1 => orbit[(seed >> 1) as usize % orbit.len()].to_string(),
                _ if seed & 2 == 2 => s.to_uppercase(),
                _ if seed & 4 == 4 => s.to_lowercase(),
                _ => s,
            };
            // Multi-char case mappings (ß -> SS) are fine: still valid text.
            out.extend_from_slice(replacement.as_bytes());
        }
        out.extend_from_slice(chunk.invalid());
    }
    spoil_replacement_chars(&out, seed)
}

/// Turns runs of U+FFFD into bad bytes that Go reads as the same number of
/// U+FFFD: `\xff` for one, a truncated sequence (`\xe2\x82`, `\xf0\x9f\x98`)
/// for two or three. Exercises "one U+FFFD per bad byte".
fn spoil_replacement_chars(bytes: &[u8], mut seed: u64) -> Vec<u8> {
    const FFFD: &[u8] = "\u{FFFD}".as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        let run = (0..).take_while(|k| rest[k * 3..].starts_with(FFFD)).count();
        if run == 0 {
            out.push(rest[0]);
            rest = &rest[1..];
            continue;
        }
        seed = seed.rotate_left(7) ^ 0x2545_F491_4F6C_DD1D;
        let take = match seed % 4 {
            0 => {
                out.extend_from_slice(FFFD);
                1
            }
            1 => {
                out.push(0xff);
                1
            }
            2 if run >= 2 => {
                out.extend_from_slice(b"\xe2\x82");
                2
            }
            3 if run >= 3 => {
                out.extend_from_slice(b"\xf0\x9f\x98");
                3
            }
            _ => {
                out.push(0x80);
                1
            }
        };
        rest = &rest[take * 3..];
    }
    out
}

fn avoids_unicode_16_changes(bytes: &[u8]) -> bool {
    bytes.utf8_chunks().all(|c| !c.valid().chars().any(in_unicode_16_fold_changes))
}

/// The fast engine, in each shape it can take, against the reference.
fn check(patterns: &[String], flags: Flags, names: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let fast = PinSet::compile_every_shape(patterns, flags);
    let reference = ReferenceSet::compile(patterns, flags);
    let (fast, reference) = match (fast, reference) {
        (Ok(f), Ok(r)) => (f, r),
        (Err(f), Err(r)) => {
            prop_assert_eq!(f, r);
            return Ok(());
        }
        (f, r) => {
            return Err(TestCaseError::fail(format!("compile disagrees: fast {:?}, reference {:?}", f.err(), r.err())))
        }
    };
    let want: Vec<Option<usize>> = names.iter().map(|n| reference.match_index(n)).collect();
    for (shape, fast) in &fast {
        for (name, &want) in names.iter().zip(&want) {
            prop_assert_eq!(
                fast.match_index(name),
                want,
                "name {:?} patterns {:?} {:?} {:?}",
                String::from_utf8_lossy(name),
                patterns,
                flags,
                shape
            );
            prop_assert_eq!(fast.is_match(name), want.is_some(), "is_match on {:?} {:?}", name, shape);
        }
        // The batch call (several names walked at once) answers name by name.
        let mut results = vec![7u8; names.len()];
        let pinned = fast.match_each(names.iter().map(Vec::as_slice), &mut results);
        let want: Vec<u8> = want.iter().map(|w| u8::from(w.is_some())).collect();
        prop_assert_eq!(&results, &want, "match_each on {:?} patterns {:?} {:?} {:?}", names, patterns, flags, shape);
        prop_assert_eq!(pinned, want.iter().filter(|&&r| r == 1).count());
    }
    Ok(())
}

fn list_and_names(max: usize) -> impl Strategy<Value = (Vec<String>, Flags, Vec<Vec<u8>>)> {
    (prop::collection::vec(pattern(), 0..max), flags()).prop_flat_map(|(patterns, flags)| {
        let names = prop::collection::vec(name(patterns.clone()), 1..8);
        (Just(patterns), Just(flags), names)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn engines_agree_on_small_lists((patterns, flags, names) in list_and_names(6)) {
        prop_assume!(patterns.iter().all(|p| avoids_unicode_16_changes(p.as_bytes())));
        prop_assume!(names.iter().all(|n| avoids_unicode_16_changes(n)));
        check(&patterns, flags, &names)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn engines_agree_on_larger_lists((patterns, flags, names) in list_and_names(200)) {
        check(&patterns, flags, &names)?;
    }
}

fn corpus(file: &str) -> Vec<String> {
    let path = format!("{}/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")).lines().map(str::to_string).collect()
}

/// The realistic 1,000-pattern list against every corpus name, its
/// upper-cased form and near misses, in every flag mode the list passes.
#[test]
fn engines_agree_on_the_realistic_corpus() {
    let patterns = corpus("patterns-1000.txt");
    let mut names: Vec<Vec<u8>> = Vec::new();
    for n in corpus("image-names.txt") {
        names.push(n.as_bytes().to_vec());
        names.push(n.to_uppercase().into_bytes());
        names.push(format!("mirror.example/{n}").into_bytes());
        names.push(n.as_bytes()[..n.len() - 1].to_vec());
    }
    for p in &patterns {
        names.push(p.trim_matches('*').as_bytes().to_vec());
    }
    let mut matched = 0;
    for bits in [0, 1, 2, 3] {
        let flags = Flags::from_bits(bits).unwrap();
        let sets = PinSet::compile_every_shape(&patterns, flags).unwrap();
        let reference = ReferenceSet::compile(&patterns, flags).unwrap();
        for name in &names {
            let want = reference.match_index(name);
            for (shape, fast) in &sets {
                assert_eq!(fast.match_index(name), want, "{:?} {flags:?} {shape:?}", String::from_utf8_lossy(name));
            }
            matched += usize::from(want.is_some());
        }
    }
    // The corpus is meant to mix hits and misses; make sure it does.
    assert!(matched > names.len() / 4 && matched < names.len() * 4 - names.len() / 4, "{matched}");
}

/// Many duplicates and shared prefixes in one big list.
#[test]
fn engines_agree_on_a_big_list_with_duplicates() {
    let mut patterns = Vec::new();
    for i in 0..3000 {
        patterns.push(match i % 6 {
            0 => format!("registry.example/team-{}/*", i % 97),
            1 => format!("*agent-{}*", i % 131),
            2 => format!("registry.example/team-{}/app:v{}", i % 97, i % 7),
            3 => "REGISTRY.example/*".to_string(),
            4 => format!("*AGENT-{}*", i % 13),
            _ => format!("registry.example/team-{}", i % 50),
        });
    }
    let names: Vec<String> = (0..400)
        .map(|i| match i % 4 {
            0 => format!("registry.example/team-{}/app:v{}", i % 120, i % 9),
            1 => format!("x/agent-{}/y", i % 200),
            2 => format!("registry.example/team-{}", i % 60),
            _ => format!("other.example/{}", i),
        })
        .collect();
    for flags in [Flags::DEFAULT, Flags::ANCHOR_GLOBS, Flags::CASE_SENSITIVE] {
        let sets = PinSet::compile_every_shape(&patterns, flags).unwrap();
        let reference = ReferenceSet::compile(&patterns, flags).unwrap();
        for name in &names {
            let want = reference.match_index(name.as_bytes());
            for (shape, fast) in &sets {
                assert_eq!(fast.match_index(name.as_bytes()), want, "{name} {flags:?} {shape:?}");
            }
        }
    }
}
