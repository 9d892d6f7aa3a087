//! The other runtimes' rules, each against a reference written from that
//! runtime's source (`crio_pin::oracle::{containerd, cri_dockerd,
//! docker_reference, kubelet}`): the reference normalisation against the library's
//! parser, then every dialect's flag set against its runtime's oracle, on
//! generated entries and names built from the pieces real references are
//! made of and the pieces that break them.

use crio_pin::normalize::normalize;
use crio_pin::oracle::containerd::ContainerdReference;
use crio_pin::oracle::cri_dockerd::CriDockerdReference;
use crio_pin::oracle::docker_reference;
use crio_pin::oracle::kubelet::{repository_name, KubeletAllowlist};
use crio_pin::{ErrorKind, Flags, PinSet};
use proptest::prelude::*;

const HOSTS: &[&str] = &[
    "",
    "docker.io/",
    "index.docker.io/",
    "Docker.io/",
    "localhost/",
    "localhost:5000/",
    "quay.io/",
    "registry.k8s.io/",
    "foo_bar.com/",
    "Foo/",
    "[::1]:5000/",
    "[fe80::1]/",
    "my-reg.example.com:443/",
    "-bad.com/",
    "a.b:/",
    "sha256:",
];
const PATHS: &[&str] = &[
    "nginx",
    "library/nginx",
    "a/b",
    "a__b",
    "a___b",
    "A",
    "a.b",
    "a-_b",
    "x--y/z",
    "a/",
    "/a",
    "a//b",
    "pause",
    "a.",
    "",
];
/// Bracketed hosts followed by what is not a port: the grammar takes
/// `[hex and colons]` then `:digits` only.
const BRACKETED: &[&str] = &["[::1]x5000/", "[::1]5000/", "[::1]:/", "[::1]]/", "[::1]:5000x/", "[::1]:5000/"];

/// Bytes that are not UTF-8, and the replacement character Go reads them
/// as: runtimes that compare bytes tell them apart.
const NOT_UTF8: &[&[u8]] = &[b"\xff", b"\xfe\xff", b"\xe2\x82", b"\xc3", b"\xef\xbf\xbd", b"\xed\xa0\x80"];
const TAGS: &[&str] = &["", ":latest", ":1.2", ":", ":-x", ":V1", ":_x", ":a:b", ":3.10"];
const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn digests() -> Vec<String> {
    vec![
        String::new(),
        format!("@sha256:{HEX}"),
        format!("@sha256:{}", HEX.to_uppercase()),
        format!("@sha512:{HEX}{HEX}"),
        format!("@sha384:{}", &format!("{HEX}{HEX}")[..96]),
        format!("@md5:{HEX}"),
        "@sha256:abc".to_owned(),
        "@".to_owned(),
        format!("@sha256:{HEX}@sha256:{HEX}"),
    ]
}

/// A reference-shaped text, or a mangled one.
fn reference() -> impl Strategy<Value = String> {
    let digests = digests();
    (
        prop::sample::select(HOSTS),
        prop::sample::select(PATHS),
        prop::sample::select(TAGS),
        prop::sample::select(digests),
        prop::sample::select(&["", "", "", " ", "\n", "/", "Q", "é"][..]),
        any::<bool>(),
    )
        .prop_map(|(host, path, tag, digest, noise, noise_first)| {
            let text = format!("{host}{path}{tag}{digest}");
            if noise_first {
                format!("{noise}{text}")
            } else {
                format!("{text}{noise}")
            }
        })
}

fn ours(text: &str) -> Result<String, ()> {
    normalize(text.as_bytes())
        .map(|n| String::from_utf8(n.to_vec()).expect("a normalised reference is ASCII"))
        .map_err(drop)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    /// The library's parser accepts what the grammar accepts and writes
    /// the same normalised reference.
    #[test]
    fn normalize_agrees_with_the_reference_grammar(text in reference()) {
        prop_assert_eq!(ours(&text), docker_reference::normalize(&text).map_err(drop), "{:?}", text);
    }
}

/// Every combination of the pieces, once: the generated cases above are a
/// sample, this is all of them.
#[test]
fn normalize_agrees_on_every_combination_of_the_pieces() {
    let mut accepted = 0;
    let mut total = 0;
    for host in HOSTS {
        for path in PATHS {
            for tag in TAGS {
                for digest in digests() {
                    let text = format!("{host}{path}{tag}{digest}");
                    let want = docker_reference::normalize(&text).map_err(drop);
                    assert_eq!(ours(&text), want, "{text:?}");
                    accepted += usize::from(want.is_ok());
                    total += 1;
                }
            }
        }
    }
    assert!(
        accepted > total / 10,
        "only {accepted} of {total} combinations are references: the pieces test too little"
    );
}

/// What follows a bracketed host: a port (`:digits`) or nothing, else the
/// text is no reference (NORMALIZE accepted `[::1]x5000/...` as a host).
#[test]
fn normalize_agrees_after_a_bracketed_host() {
    for host in BRACKETED {
        for path in PATHS {
            for tag in TAGS {
                let text = format!("{host}{path}{tag}");
                assert_eq!(ours(&text), docker_reference::normalize(&text).map_err(drop), "{text:?}");
            }
        }
    }
    assert!(ours("[::1]x5000/a").is_err());
    assert_eq!(ours("[::1]:5000/a").as_deref(), Ok("[::1]:5000/a:latest"));
}

// ---- The dialects against their runtimes ---------------------------------

/// A configured entry: a reference, maybe mangled, or one of the shapes
/// each runtime reads its own way (stars, blanks, bare repositories).
fn entry() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => reference(),
        1 => reference().prop_map(|r| format!("{r}*")),
        1 => reference().prop_map(|r| format!("*{r}*")),
        1 => prop::sample::select(&["", " ", "*", "**", "<none>", " nginx ", "nginx", "docker.io/library/nginx",
            "localhost:5000", "localhost:5000/a", "a*b", "sha256:", "registry.k8s.io/pause"][..]).prop_map(str::to_owned),
    ]
}

/// A list of entries.
fn entries() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(entry(), 0..8)
}

/// A stored name: a reference as the runtime stores it (normalised, for
/// containerd), as Docker reports it (familiar, for cri-dockerd), or
/// mangled. Never empty: no runtime stores an image under an empty name.
fn stored_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => reference().prop_map(|r| docker_reference::normalize(&r).unwrap_or(r)),
        3 => reference(),
        1 => prop::sample::select(&["nginx", "nginx:latest", "nginx@sha256:0123", "<none>:<none>", "<none>@<none>",
            "localhost:5000/a:1", "a*b", "nginx:1:2"][..]).prop_map(str::to_owned),
    ]
    .prop_filter("stored names are not empty", |n| !n.is_empty())
}

/// Names and entries that contain both: a name often equals an entry.
fn list_and_names() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    (entries(), prop::collection::vec(stored_name(), 1..6)).prop_map(|(entries, mut names)| {
        names.extend(entries.iter().map(|e| e.trim().trim_end_matches('*').to_owned()).filter(|e| !e.is_empty()));
        (entries, names)
    })
}

fn bytes(list: &[String]) -> Vec<&[u8]> {
    list.iter().map(|e| e.as_bytes()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5_000, ..ProptestConfig::default() })]

    /// containerd as released: each value compared with `==`.
    #[test]
    fn containerd_agrees_with_its_reference((list, names) in list_and_names()) {
        let ours = PinSet::compile(&list, Flags::CONTAINERD).expect("containerd refuses no value");
        let theirs = ContainerdReference::compile(&bytes(&list), false);
        for name in &names {
            prop_assert_eq!(ours.match_index(name.as_bytes()), theirs.pinned(name.as_bytes()), "{:?} in {:?}", name, list);
        }
    }

    /// containerd's fix PRs: the values normalised. A value the grammar
    /// refuses never pins there, and is an error here (a pin the user wrote
    /// is not dropped silently); on the lists without one, the answers
    /// agree for every name containerd stores by reference.
    #[test]
    fn containerd_normalized_agrees_with_its_reference((list, names) in list_and_names()) {
        let first_invalid = list.iter().position(|e| docker_reference::normalize(e).is_err());
        match PinSet::compile(&list, Flags::CONTAINERD_NORMALIZED) {
            Err(e) => {
                prop_assert_eq!(e.pattern_index(), first_invalid, "{}", e);
                prop_assert!(matches!(e.kind(), ErrorKind::InvalidReference { .. }), "{}", e);
            }
            Ok(ours) => {
                prop_assert_eq!(first_invalid, None);
                let theirs = ContainerdReference::compile(&bytes(&list), true);
                for name in names.iter().filter_map(|n| docker_reference::normalize(n).ok()) {
                    prop_assert_eq!(ours.match_index(name.as_bytes()), theirs.pinned(name.as_bytes()), "{:?} in {:?}", name, list);
                }
            }
        }
    }

    /// cri-dockerd (PR #571): trimmed values, anchored prefixes, exact
    /// references, bare repositories.
    #[test]
    fn cri_dockerd_agrees_with_its_reference((list, names) in list_and_names()) {
        let ours = PinSet::compile(&list, Flags::CRI_DOCKERD).expect("cri-dockerd refuses no UTF-8 value");
        let theirs = CriDockerdReference::compile(&bytes(&list));
        for name in &names {
            prop_assert_eq!(ours.match_index(name.as_bytes()), theirs.pinned(name.as_bytes()), "{:?} in {:?}", name, list);
        }
    }

    /// The kubelet's allowlist, once the kubelet took it: the entries of
    /// the list it accepts, and the repositories of the names with every
    /// prefix of them that ends at a '/', matched on the name's normalised
    /// repository (what the kubelet compares: a name that does not parse
    /// is covered by nothing).
    #[test]
    fn kubelet_agrees_with_its_reference((list, names) in list_and_names()) {
        let mut accepted: Vec<String> =
            list.iter().filter(|e| KubeletAllowlist::compile(&[e.as_str()]).is_ok()).cloned().collect();
        for repository in names.iter().filter_map(|n| repository_name(n).ok()) {
            accepted.extend(repository.match_indices('/').map(|(at, _)| format!("{}*", &repository[..=at])));
            accepted.push(repository);
        }
        let texts: Vec<&str> = accepted.iter().map(String::as_str).collect();
        let theirs = KubeletAllowlist::compile(&texts).expect("every entry was accepted alone");
        let ours = PinSet::compile(&accepted, Flags::KUBELET).expect("the library takes what the kubelet takes");
        for name in &names {
            let covered = repository_name(name).is_ok_and(|r| ours.is_match(r.as_bytes()));
            prop_assert_eq!(covered, theirs.covers(name), "{:?} in {:?}", name, accepted);
        }
    }

    /// NORMALIZE under CRI-O's rules: a name pins as its normalised form
    /// does, whichever spelling of the reference the list and the name use.
    #[test]
    fn normalize_pins_every_spelling_of_a_reference(
        written in reference(),
        other in reference(),
        entry_normalized: bool,
        name_choice in 0..3u8,
    ) {
        let Ok(normalized) = docker_reference::normalize(&written) else {
            return Ok(());
        };
        let entry = if entry_normalized { normalized.clone() } else { written.clone() };
        let name = match name_choice {
            0 => written.clone(),
            1 => normalized.clone(),
            _ => other,
        };
        let set = PinSet::compile([&entry], Flags::NORMALIZE).expect("a reference compiles");
        // A name that is no reference is matched as it is.
        let name_normalized = docker_reference::normalize(&name).unwrap_or_else(|_| name.clone());
        prop_assert_eq!(
            set.is_match(name.as_bytes()),
            normalized.eq_ignore_ascii_case(&name_normalized),
            "{:?} against {:?}", name, entry
        );
    }
}

/// The dialects' answers where the runtimes differ most, one name at a
/// time (docs/runtimes.md shows this table).
#[test]
fn the_runtimes_differ_as_documented() {
    let pinned =
        |flags: Flags, list: &[&str], name: &str| PinSet::compile(list, flags).unwrap().is_match(name.as_bytes());
    // A tagless entry: CRI-O and containerd pin only that exact text;
    // cri-dockerd every tag; normalised, the `latest` tag.
    assert!(!pinned(Flags::CRIO, &["nginx"], "docker.io/library/nginx:latest"));
    assert!(!pinned(Flags::CONTAINERD, &["nginx"], "docker.io/library/nginx:latest"));
    assert!(pinned(Flags::CONTAINERD_NORMALIZED, &["nginx"], "docker.io/library/nginx:latest"));
    assert!(pinned(Flags::CRI_DOCKERD, &["nginx"], "nginx:1.27"));
    assert!(pinned(Flags::CRI_DOCKERD, &["nginx"], "nginx@sha256:abc"));
    // Case: only CRI-O folds.
    assert!(pinned(Flags::CRIO, &["Quay.io/a:1"], "quay.io/a:1"));
    assert!(!pinned(Flags::CONTAINERD, &["Quay.io/a:1"], "quay.io/a:1"));
    assert!(!pinned(Flags::CRI_DOCKERD, &["Quay.io/a:1"], "quay.io/a:1"));
    // A trailing star: anywhere (CRI-O), at the start (cri-dockerd), a
    // literal star (containerd).
    assert!(pinned(Flags::CRIO, &["quay.io/*"], "mirror/quay.io/x:1"));
    assert!(!pinned(Flags::CRI_DOCKERD, &["quay.io/*"], "mirror/quay.io/x:1"));
    assert!(pinned(Flags::CRI_DOCKERD, &["quay.io/*"], "quay.io/x:1"));
    assert!(!pinned(Flags::CONTAINERD, &["quay.io/*"], "quay.io/x:1"));
    // Keywords are CRI-O's alone; `*` alone crashes CRI-O, pins all in
    // cri-dockerd, and is the literal name `*` in containerd.
    assert!(pinned(Flags::CRIO, &["*pause*"], "registry.k8s.io/pause:3.10"));
    assert!(!pinned(Flags::CRI_DOCKERD, &["*pause*"], "registry.k8s.io/pause:3.10"));
    assert!(PinSet::compile(["*"], Flags::CRIO).is_err());
    assert!(pinned(Flags::CRI_DOCKERD, &["*"], "anything:1"));
    assert!(!pinned(Flags::CONTAINERD, &["*"], "anything:1"));
    // name:tag@digest: stored as name@digest.
    let hex = "0123456789abcdef".repeat(4);
    let both = format!("quay.io/a:1@sha256:{hex}");
    let stored = format!("quay.io/a@sha256:{hex}");
    assert!(!pinned(Flags::CONTAINERD, &[&both], &stored));
    assert!(pinned(Flags::CONTAINERD_NORMALIZED, &[&both], &stored));
    // What the normalised rules refuse: anything that is no reference.
    for refused in ["quay.io/*", "*pause*", "*", "Quay.io/A:1", "", " x "] {
        assert!(PinSet::compile([refused], Flags::CONTAINERD_NORMALIZED).is_err(), "{refused:?}");
    }
    assert!(pinned(Flags::CONTAINERD, &["quay.io/*"], "quay.io/*"));
    assert!(pinned(Flags::CRI_DOCKERD, &["*pause*"], "*pause:1"));
    assert!(pinned(Flags::CRIO, &[&both], &both));
    assert!(pinned(Flags::CRI_DOCKERD, &[&both], &both));
    // A blank entry pins nothing under cri-dockerd, not even "".
    assert!(!pinned(Flags::CRI_DOCKERD, &["  "], ""));
    // White space: trimmed by cri-dockerd only.
    assert!(pinned(Flags::CRI_DOCKERD, &[" quay.io/a:1 "], "quay.io/a:1"));
    assert!(!pinned(Flags::CONTAINERD, &[" quay.io/a:1 "], "quay.io/a:1"));
}

#[test]
fn literal_and_cri_dockerd_syntax_conflict() {
    let err = PinSet::compile(["a"], Flags::LITERAL | Flags::CRI_DOCKERD_SYNTAX).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::ConflictingFlags);
    assert!(err.to_string().contains("choose one"), "{err}");
}

#[test]
fn normalize_refuses_an_exact_pattern_that_is_no_reference_naming_it() {
    let err = PinSet::compile(["quay.io/*", "Quay.io/A:1"], Flags::NORMALIZE).unwrap_err();
    assert_eq!(err.pattern_index(), Some(1));
    assert!(matches!(err.kind(), ErrorKind::InvalidReference { .. }));
    assert!(err.to_string().contains("lower case"), "{err}");
    // containerd's rules have no globs (a '*' is a character): the advice is
    // to name the image, never to write a glob.
    let err = PinSet::compile(["quay.io/*"], Flags::CONTAINERD_NORMALIZED).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidReference { .. }));
    assert!(err.to_string().contains("name in full") && !err.to_string().contains("glob"), "{err}");
}

/// Under a dialect a name's length says nothing (it is normalised, or its
/// repository is looked up): the table a caller caches must say "ask".
#[test]
fn dialect_sets_settle_no_name_by_length() {
    for flags in [Flags::NORMALIZE, Flags::CRI_DOCKERD, Flags::CONTAINERD_NORMALIZED] {
        let set = PinSet::compile(["nginx"], flags).unwrap();
        let mut verdicts = [0u8; 64];
        set.length_verdicts(&mut verdicts);
        assert!(verdicts.iter().all(|&v| v == crio_pin::LengthVerdict::MayMatch as u8), "{flags:?}");
        let names: Vec<&[u8]> = vec![b"nginx:1", b"docker.io/library/nginx:latest", b"other"];
        let mut results = [0u8; 3];
        set.match_each(names.iter().copied(), &mut results);
        let one_by_one: Vec<u8> = names.iter().map(|n| u8::from(set.is_match(n))).collect();
        assert_eq!(results.to_vec(), one_by_one, "{flags:?}");
    }
}

/// containerd and cri-dockerd compare bytes (`==`, `strings.HasPrefix`):
/// a name that is not UTF-8 matches only an entry with the same bytes,
/// never one that holds U+FFFD where the name has a bad byte, as CRI-O's
/// regexps would read it. Every entry shape against every name built from
/// the same pieces with bad bytes in them, against each runtime's oracle.
#[test]
fn runtimes_that_compare_bytes_compare_bad_bytes_as_bytes() {
    let stems: &[&[u8]] = &[b"a", b"docker.io/library/nginx:", b"quay.io/x@sha256:", b"nginx"];
    let mut names: Vec<Vec<u8>> = Vec::new();
    for stem in stems {
        for bad in NOT_UTF8 {
            names.push([*stem, *bad].concat());
            names.push([*bad, *stem].concat());
            names.push([*stem, *bad, b"1".as_slice()].concat());
        }
    }
    let entries: Vec<String> = names
        .iter()
        .flat_map(|name| {
            let text = String::from_utf8_lossy(name).into_owned();
            [text.clone(), format!("{text}*"), format!(" {text} "), format!("*{text}*")]
        })
        .chain(["a".to_owned(), "a*".to_owned(), "nginx".to_owned()])
        .collect();
    let mut pinned = 0;
    for chunk in entries.chunks(7) {
        let list: Vec<&[u8]> = chunk.iter().map(|e| e.as_bytes()).collect();
        let containerd = PinSet::compile(&list, Flags::CONTAINERD).unwrap();
        let cri_dockerd = PinSet::compile(&list, Flags::CRI_DOCKERD).unwrap();
        let containerd_oracle = ContainerdReference::compile(&list, false);
        let cri_dockerd_oracle = CriDockerdReference::compile(&list);
        for name in names.iter().chain(entries.iter().map(|e| e.as_bytes().to_vec()).collect::<Vec<_>>().iter()) {
            assert_eq!(
                containerd.match_index(name),
                containerd_oracle.pinned(name),
                "containerd {name:x?} in {chunk:?}"
            );
            assert_eq!(
                cri_dockerd.match_index(name),
                cri_dockerd_oracle.pinned(name),
                "cri-dockerd {name:x?} in {chunk:?}"
            );
            pinned += usize::from(cri_dockerd.is_match(name));
        }
    }
    assert!(pinned > 0, "no name pinned: the cases test too little");
    // The case the issue found: U+FFFD in the pattern, a bad byte in the name.
    for flags in [Flags::CONTAINERD, Flags::CRI_DOCKERD] {
        assert!(!PinSet::compile(["a\u{FFFD}"], flags).unwrap().is_match(b"a\xff"), "{flags:?}");
    }
    assert!(PinSet::compile(["a\u{FFFD}"], Flags::CRIO).unwrap().is_match(b"a\xff"), "CRI-O's regexps read U+FFFD");
}
