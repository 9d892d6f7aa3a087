//! The other runtimes' rules, each against a reference written from that
//! runtime's source (`crio_pin::reference::{containerd, cri_dockerd,
//! docker_reference}`): the reference normalisation against the library's
//! parser, then every dialect's flag set against its runtime's oracle, on
//! generated entries and names built from the pieces real references are
//! made of and the pieces that break them.

use crio_pin::normalize::normalize;
use crio_pin::reference::docker_reference;
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
    "nginx", "library/nginx", "a/b", "a__b", "a___b", "A", "a.b", "a-_b", "x--y/z", "a/", "/a", "a//b", "pause", "a.", "",
];
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
    normalize(text.as_bytes()).map(|n| String::from_utf8(n.to_vec()).expect("a normalised reference is ASCII")).map_err(drop)
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
    assert!(accepted > total / 10, "only {accepted} of {total} combinations are references: the pieces test too little");
}
