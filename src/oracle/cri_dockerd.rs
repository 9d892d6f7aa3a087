//! An oracle of cri-dockerd's pinned-image matching, added by cri-dockerd PR
//! 571 ("Add pinned image selectors to exclude images from kubelet GC",
//! merged September 2026).
//!
//! Follows `core/pinned.go` (`newPinnedImageMatcher`, `matches`,
//! `matchesRef`, `hasTagOrDigest`, `refRepository`) and its tests in
//! `core/pinned_test.go`, as stored for commits 89da1c1793ab and
//! fcde94e77660 of Mirantis/cri-dockerd. Its values come from
//! `--pinned-images`, which `config/options.go` declares with pflag's
//! `StringSliceVar` (each value split at commas as one CSV line, the flag
//! repeatable: the tool splits them as it reads them, this oracle takes the
//! parts), the selectors from `--pinned-image-labels`; the sandbox image
//! (`--pod-infra-container-image`) stays pinned as before, by exact
//! equality with a repo tag, outside this list.
//!
//! # Rules
//!
//! Each value is trimmed of leading and trailing white space (Go's
//! `strings.TrimSpace`: Unicode white space, stopping at a byte that is not
//! UTF-8), then classified:
//!
//! - empty after trimming: ignored;
//! - ends with `*`: a prefix, the value without that one `*`, compared with
//!   `starts_with`. Only the last `*` is special: `*` alone pins every name,
//!   `*word*` is the prefix `*word`, and a `*` elsewhere is a literal
//!   character;
//! - contains `@`, or a `:` after its last `/`: an exact reference, compared
//!   with `==`;
//! - anything else: a bare repository, equal to the name's repository. The
//!   name's repository is the name cut at its first `@`, then at the last `:`
//!   after its last `/`, so a registry port stays. A bare repository therefore
//!   pins every tag, every digest (`repo@sha256:…`) and the bare name itself.
//!
//! Every comparison is on bytes: case-sensitive, no normalisation. The names
//! are the `RepoTags` and `RepoDigests` Docker reports, which are in Docker's
//! familiar form (`nginx:latest`, `nginx@sha256:…`, `foo/bar:1`, with
//! `docker.io/` and `docker.io/library/` dropped), and (in the moby versions
//! read) `<none>:<none>` / `<none>@<none>` for an untagged image: so
//! `docker.io/library/nginx` pins nothing Docker reports, and `<none>` pins
//! every untagged image.
//!
//! # Label selectors
//!
//! cri-dockerd tells a label selector from an image pattern by the flag it
//! comes from, not by its syntax.
//! [`compile_with_labels`](crate::oracle::cri_dockerd::CriDockerdReference::compile_with_labels)
//! takes them as a second list: each is trimmed, ignored when empty, and
//! split at its first `=` into a key and, if there was an `=`, a value. They
//! select images by their labels, so they never match a name here; their
//! indices follow the image patterns'.
//!
//! cri-dockerd keeps the patterns in sets and only asks "any?";
//! [`pinned`](crate::oracle::cri_dockerd::CriDockerdReference::pinned)
//! reports the lowest index in the caller's order.

/// What one configured value means.
#[derive(Debug)]
enum Rule {
    /// A blank value, or a label selector: matches no name.
    Never,
    /// The name must start with this.
    Prefix(Vec<u8>),
    /// The name must be this.
    Exact(Vec<u8>),
    /// The name's repository must be this.
    Repository(Vec<u8>),
}

/// A compiled `--pinned-images` list (and, optionally, `--pinned-image-labels`).
#[derive(Debug)]
pub struct CriDockerdReference {
    rules: Vec<Rule>,
}

impl CriDockerdReference {
    /// Compiles `--pinned-images` values, in the caller's order.
    pub fn compile(entries: &[&[u8]]) -> Self {
        Self::compile_with_labels(entries, &[])
    }

    /// Compiles `--pinned-images` values followed by `--pinned-image-labels`
    /// selectors. Selector `i` has index `entries.len() + i` and matches no
    /// name.
    pub fn compile_with_labels(entries: &[&[u8]], label_selectors: &[&[u8]]) -> Self {
        let mut rules: Vec<Rule> = entries.iter().map(|&entry| classify(trim_space(entry))).collect();
        // A selector is "key" or "key=value" (split at the first '='); either
        // way it looks at labels, never at names.
        rules.extend(label_selectors.iter().map(|_| Rule::Never));
        CriDockerdReference { rules }
    }

    /// The lowest index of a value that pins `name`, a repo tag or repo
    /// digest as Docker reports it.
    pub fn pinned(&self, name: &[u8]) -> Option<usize> {
        self.rules.iter().position(|rule| match rule {
            Rule::Never => false,
            Rule::Prefix(prefix) => name.starts_with(prefix),
            Rule::Exact(reference) => name == reference.as_slice(),
            Rule::Repository(repository) => repository_of(name) == repository.as_slice(),
        })
    }
}

/// The meaning of a trimmed value.
fn classify(value: &[u8]) -> Rule {
    if value.is_empty() {
        Rule::Never
    } else if let Some(prefix) = value.strip_suffix(b"*") {
        Rule::Prefix(prefix.to_vec())
    } else if names_tag_or_digest(value) {
        Rule::Exact(value.to_vec())
    } else {
        Rule::Repository(value.to_vec())
    }
}

/// Whether a value carries a digest (`@` anywhere) or a tag (`:` in its last
/// `/`-separated component; an earlier `:` is a registry port).
fn names_tag_or_digest(value: &[u8]) -> bool {
    value.contains(&b'@') || last_component(value).contains(&b':')
}

/// `name` without its digest (from the first `@`) and then without its tag
/// (from the last `:` of its last component).
fn repository_of(name: &[u8]) -> &[u8] {
    let name = name.iter().position(|&b| b == b'@').map_or(name, |at| &name[..at]);
    let start = name.len() - last_component(name).len();
    match name[start..].iter().rposition(|&b| b == b':') {
        Some(colon) => &name[..start + colon],
        None => name,
    }
}

/// What follows the last `/` (all of `s` when it has none).
fn last_component(s: &[u8]) -> &[u8] {
    s.iter().rposition(|&b| b == b'/').map_or(s, |slash| &s[slash + 1..])
}

/// `s` without leading and trailing Unicode white space, as Go's
/// `strings.TrimSpace` trims it: a byte that does not begin (or end) a valid
/// UTF-8 character stops the trimming.
fn trim_space(mut s: &[u8]) -> &[u8] {
    while let Some((c, len)) = first_char(s) {
        if !c.is_whitespace() {
            break;
        }
        s = &s[len..];
    }
    while let Some((c, len)) = last_char(s) {
        if !c.is_whitespace() {
            break;
        }
        s = &s[..s.len() - len];
    }
    s
}

/// The character `s` begins with and its length, if `s` begins with a valid
/// UTF-8 character.
fn first_char(s: &[u8]) -> Option<(char, usize)> {
    (1..=s.len().min(4)).find_map(|len| one_char(&s[..len]).map(|c| (c, len)))
}

/// The character `s` ends with and its length, if `s` ends with a valid UTF-8
/// character.
fn last_char(s: &[u8]) -> Option<(char, usize)> {
    (1..=s.len().min(4)).find_map(|len| one_char(&s[s.len() - len..]).map(|c| (c, len)))
}

/// The character `bytes` encode, if they are exactly one valid UTF-8 character.
fn one_char(bytes: &[u8]) -> Option<char> {
    let mut chars = std::str::from_utf8(bytes).ok()?.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:45b23dee08af5e43a7fea6c4cf9c25ccf269ee113168c19722f87876677c5cb2";

    fn compile(entries: &[&str]) -> CriDockerdReference {
        let entries: Vec<&[u8]> = entries.iter().map(|e| e.as_bytes()).collect();
        CriDockerdReference::compile(&entries)
    }

    fn pins(entry: &str, name: &str) -> bool {
        compile(&[entry]).pinned(name.as_bytes()).is_some()
    }

    // pinned.go, matchesRef: the refs set, exact membership.
    #[test]
    fn exact_tag_and_digest() {
        assert!(pins("nginx:1.27", "nginx:1.27"));
        assert!(!pins("nginx:1.27", "nginx:1.28"));
        assert!(!pins("nginx:1.27", &format!("nginx:1.27@{DIGEST}")));
        assert!(pins(&format!("nginx@{DIGEST}"), &format!("nginx@{DIGEST}")));
        assert!(!pins(&format!("nginx@{DIGEST}"), "nginx:1.27"));
    }

    // pinned.go, refRepository: a bare repository matches any tag.
    #[test]
    fn bare_repository_pins_every_tag() {
        assert!(pins("nginx", "nginx:1.28"));
        assert!(pins("registry.k8s.io/pause", "registry.k8s.io/pause:3.10"));
        assert!(!pins("nginx", "redis:7.4"));
        assert!(!pins("nginx", "nginx-exporter:1"));
        assert!(!pins("library/nginx", "nginx:1"));
    }

    // pinned.go, refRepository: the digest is cut first, so a bare repository
    // also matches repo digests, tag-and-digest names and the bare name.
    #[test]
    fn bare_repository_pins_digests_and_the_bare_name() {
        assert!(pins("nginx", &format!("nginx@{DIGEST}")));
        assert!(pins("nginx", &format!("nginx:1.27@{DIGEST}")));
        assert!(pins("nginx", "nginx"));
    }

    // pinned.go, hasTagOrDigest and refRepository: only the last component's
    // ":" is a tag, so a registry port stays in the repository.
    #[test]
    fn registry_port_is_not_a_tag() {
        assert!(pins("localhost:5000/library/nginx", "localhost:5000/library/nginx:1.27"));
        assert!(pins("localhost:5000/library/nginx", "localhost:5000/library/nginx"));
        assert!(!pins("localhost:5000/library/nginx", "localhost:5001/library/nginx:1"));
        // No "/": the port reads as a tag, so this is an exact reference.
        assert!(pins("localhost:5000", "localhost:5000"));
        assert!(!pins("localhost:5000", "localhost:5000/nginx:1"));
        // A ":" before the last "/" is not a tag: still a bare repository.
        assert!(pins("a/b:c/d", "a/b:c/d:1"));
    }

    // pinned.go, newPinnedImageMatcher: TrimSuffix of one "*", then HasPrefix.
    #[test]
    fn trailing_star_is_a_case_sensitive_prefix() {
        assert!(pins("library/ngin*", "library/nginx:1.27"));
        assert!(!pins("library/ngin*", "library/redis:7.4"));
        assert!(!pins("library/ngin*", "docker.io/library/nginx:1"));
        assert!(!pins("NGIN*", "nginx:1"));
        assert!(pins("nginx*", &format!("nginx@{DIGEST}")));
        assert!(pins("nginx*", "nginx-exporter:1"));
    }

    // pinned.go, newPinnedImageMatcher: only the final "*" is special.
    #[test]
    fn star_only_means_something_at_the_end() {
        // A lone "*" is the empty prefix: every name, even an empty one.
        assert!(pins("*", "anything:1"));
        assert!(pins("*", "<none>:<none>"));
        assert!(pins("*", ""));
        // "*word*" is the literal prefix "*word", not a substring search.
        assert!(!pins("*pause*", "registry.k8s.io/pause:3.10"));
        assert!(pins("*pause*", "*pause:1"));
        // "**" is the literal prefix "*".
        assert!(!pins("nginx**", "nginx:1"));
        assert!(pins("nginx**", "nginx*x"));
        // A "*" elsewhere is a literal character of a bare repository.
        assert!(!pins("ngi*nx", "nginx:1"));
        assert!(pins("ngi*nx", "ngi*nx:1"));
    }

    // pinned.go: no normalisation; Docker reports familiar names.
    #[test]
    fn no_normalisation() {
        assert!(!pins("docker.io/library/nginx", "nginx:latest"));
        assert!(!pins("docker.io/library/nginx:latest", "nginx:latest"));
        assert!(!pins("nginx:latest", "docker.io/library/nginx:latest"));
        assert!(!pins("Nginx", "nginx:1"));
        assert!(!pins("nginx:LATEST", "nginx:latest"));
    }

    // pinned_test.go, "untagged image matches nothing by reference", and
    // refRepository("<none>:<none>") == "<none>": only "<none>" pins them.
    #[test]
    fn untagged_placeholders() {
        assert!(!pins("nginx", "<none>:<none>"));
        assert!(pins("<none>", "<none>:<none>"));
        assert!(pins("<none>", "<none>@<none>"));
    }

    // pinned.go, newPinnedImageMatcher: strings.TrimSpace, then "" is ignored.
    #[test]
    fn blank_entries_are_ignored_and_values_trimmed() {
        let r = compile(&["", "   ", "\t\n", "  nginx:1.27 \t", "\u{a0}redis\u{3000}"]);
        assert_eq!(r.pinned(b"nginx:1.27"), Some(3));
        assert_eq!(r.pinned(b"redis:7"), Some(4));
        assert_eq!(r.pinned(b""), None);
        assert_eq!(r.pinned(b" "), None);
        // Inner white space stays: "foo *" is the prefix "foo ".
        assert!(pins("foo *", "foo bar"));
        assert!(!pins("foo *", "foobar"));
        // Zero-width space is not white space; names are never trimmed.
        assert!(!pins("\u{200b}nginx", "nginx:1"));
        assert!(!pins("nginx:1", " nginx:1"));
    }

    // Go's TrimSpace stops at a byte that is not UTF-8.
    #[test]
    fn trimming_stops_at_invalid_utf8() {
        let entries: &[&[u8]] = &[b" nginx \xff"];
        let r = CriDockerdReference::compile(entries);
        assert_eq!(r.pinned(b"nginx \xff:1"), Some(0));
        assert_eq!(r.pinned(b"nginx:1"), None);
        assert_eq!(trim_space(b"\xff nginx \xe2\x80"), b"\xff nginx \xe2\x80");
        assert_eq!(trim_space(b"\xe2\x80\x83a\xe2\x80\x83"), b"a");
    }

    // The label selectors of --pinned-image-labels never match a name.
    #[test]
    fn label_selectors_never_match_names() {
        let entries: &[&[u8]] = &[b"nginx"];
        let labels: &[&[u8]] = &[b"org.opencontainers.image.version", b"nginx=1", b"*"];
        let r = CriDockerdReference::compile_with_labels(entries, labels);
        assert_eq!(r.pinned(b"nginx:1"), Some(0));
        assert_eq!(r.pinned(b"redis:1"), None);
        assert_eq!(r.pinned(b"org.opencontainers.image.version"), None);
    }

    // The caller's order decides the index reported.
    #[test]
    fn lowest_index_wins() {
        let r = compile(&["ngin*", "nginx", "nginx:1"]);
        assert_eq!(r.pinned(b"nginx:1"), Some(0));
        let r = compile(&["nginx:1", "nginx"]);
        assert_eq!(r.pinned(b"nginx:1"), Some(0));
        assert_eq!(r.pinned(b"nginx:2"), Some(1));
    }

    #[test]
    fn repository_of_cuts_digest_then_tag() {
        assert_eq!(repository_of(b"nginx:1.27"), b"nginx");
        assert_eq!(repository_of(b"nginx"), b"nginx");
        assert_eq!(repository_of(b"localhost:5000/library/nginx:1.27"), b"localhost:5000/library/nginx");
        assert_eq!(repository_of(b"a:b:c"), b"a:b");
        assert_eq!(repository_of(b"nginx@sha256:aaaa"), b"nginx");
        assert_eq!(repository_of(b"x@y@z"), b"x");
        assert_eq!(repository_of(b"host:5000/"), b"host:5000/");
    }
}
