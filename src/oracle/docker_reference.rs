//! An oracle of `ParseDockerRef` from `github.com/distribution/reference`:
//! the normalisation containerd applies to every name it pulls, and that the
//! open containerd fix PRs apply to configured pinned images.
//!
//! Written from the grammar documented in that package (`reference.go`,
//! `regexp.go`) and the steps of `ParseNormalizedNamed`, `splitDockerDomain`,
//! `Parse` and `TagNameOnly` (`normalize.go`, `helpers.go`), as of tag
//! v0.6.0 (commit ff14fafe2236), the version containerd 2.x vendors; the
//! module's HEAD (0965666a6ade, 2026-04-18) behaves the same. Digests are
//! checked as go-digest v1.0.0 checks them, with sha256, sha384 and sha512
//! registered (every containerd, dockerd and cri-dockerd binary links them).
//!
//! The steps, in order:
//!
//! 1. 64 lower-case hex digits alone are refused (they look like an image ID).
//! 2. The registry host is the part before the first `/` when it is
//!    `localhost`, contains `.` or `:`, or has an upper-case letter;
//!    `index.docker.io` becomes `docker.io`. Otherwise (and always when there
//!    is no `/`) the host is `docker.io`, and a one-component repository on
//!    `docker.io` gains `library/`.
//! 3. The repository (what follows the host, up to the first `:`) must have no
//!    upper-case letter: only the host may.
//! 4. `host/rest` must match the reference grammar; the repository path (the
//!    host excluded) is at most 255 bytes; a digest must name a registered
//!    algorithm with the right number of lower-case hex digits.
//! 5. A reference with both a tag and a digest loses its tag; one with neither
//!    gains `:latest`.
//!
//! The result is a string: `host/path:tag` or `host/path@digest`.

use std::sync::LazyLock;

use regex::Regex;

/// Docker Hub's canonical host.
const HUB: &str = "docker.io";
/// Docker Hub's legacy host, rewritten to [`HUB`].
const LEGACY_HUB: &str = "index.docker.io";
/// The namespace of Docker Hub's one-component ("official") repositories.
const OFFICIAL_NAMESPACE: &str = "library/";
/// The longest repository path accepted, host excluded.
const MAX_PATH_LEN: usize = 255;

/// The whole reference grammar, anchored, with the captures `name` (host and
/// path), `path`, `tag` and `digest`. Every class is spelled out in ASCII:
/// Go's `\w` and `[[:xdigit:]]` are ASCII-only, the `regex` crate's `\w` is
/// not.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    let label = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
    let host = format!(r"(?:{label}(?:\.{label})*|\[[A-Fa-f0-9:]+\])(?::[0-9]+)?");
    let component = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    let path = format!("{component}(?:/{component})*");
    let tag = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
    let digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}";
    let source = format!("^(?P<name>(?:{host}/)?(?P<path>{path}))(?::(?P<tag>{tag}))?(?:@(?P<digest>{digest}))?$");
    Regex::new(&source).expect("the reference grammar is a valid regex")
});

/// What step 1 refuses: a bare image ID.
static BARE_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-f0-9]{64}$").expect("valid regex"));

/// `s` normalised as `ParseDockerRef` does, or why it refuses it.
pub fn normalize(s: &str) -> Result<String, String> {
    if BARE_ID.is_match(s) {
        return Err(format!("{s:?} is 64 hex digits, an image ID, not a repository"));
    }
    let (host, rest) = split_host(s);
    let repository = rest.split(':').next().unwrap_or_default();
    if repository.to_lowercase() != repository {
        return Err(format!("repository {repository:?} must be lower case"));
    }
    let full = format!("{host}/{rest}");
    let caps = REFERENCE.captures(&full).ok_or_else(|| format!("{full:?} does not match the reference grammar"))?;
    let name = &caps["name"];
    if caps["path"].len() > MAX_PATH_LEN {
        return Err(format!("repository path of {name:?} is longer than {MAX_PATH_LEN} bytes"));
    }
    if let Some(digest) = caps.name("digest") {
        check_digest(digest.as_str())?;
        return Ok(format!("{name}@{}", digest.as_str()));
    }
    let tag = caps.name("tag").map_or("latest", |t| t.as_str());
    Ok(format!("{name}:{tag}"))
}

/// Step 2: the registry host and what follows it, `library/` added where
/// Docker Hub implies it.
fn split_host(s: &str) -> (&str, String) {
    let Some((first, tail)) = s.split_once('/') else {
        // One component: never a host, even `localhost` or `example.com`.
        return (HUB, format!("{OFFICIAL_NAMESPACE}{s}"));
    };
    let (host, rest) = if first == "localhost" {
        (first, tail)
    } else if first == LEGACY_HUB {
        (HUB, tail)
    } else if first.contains(['.', ':']) || first.to_lowercase() != first {
        (first, tail)
    } else {
        (HUB, s)
    };
    // Only the exact, lower-case `docker.io` implies `library/`.
    if host == HUB && !rest.contains('/') {
        (host, format!("{OFFICIAL_NAMESPACE}{rest}"))
    } else {
        (host, rest.to_string())
    }
}

/// Step 4's digest check: a registered algorithm, exactly its length of hex
/// digits, lower case only (the grammar alone admits upper case).
fn check_digest(digest: &str) -> Result<(), String> {
    let (algorithm, hex) = digest.split_once(':').expect("the grammar puts a ':' in a digest");
    let want = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return Err(format!("digest algorithm {algorithm:?} is not registered")),
    };
    if hex.len() != want {
        return Err(format!("{algorithm} digest has {} hex digits, not {want}", hex.len()));
    }
    if !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!("{algorithm} digest must be lower-case hex"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX64: &str = "45b23dee08af5e43a7fea6c4cf9c25ccf269ee113168c19722f87876677c5cb2";

    fn ok(s: &str) -> String {
        normalize(s).unwrap_or_else(|e| panic!("{s:?} refused: {e}"))
    }

    fn refused(s: &str) -> bool {
        normalize(s).is_err()
    }

    // normalize.go, splitDockerDomain: no "/" means Docker Hub, official namespace.
    #[test]
    fn familiar_name_gains_hub_library_and_latest() {
        assert_eq!(ok("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(ok("nginx:1.25"), "docker.io/library/nginx:1.25");
        assert_eq!(ok("foo/bar"), "docker.io/foo/bar:latest");
    }

    // normalize.go, splitDockerDomain: "docker.io/x" and the legacy host.
    #[test]
    fn hub_hosts_are_canonicalised() {
        assert_eq!(ok("docker.io/nginx"), "docker.io/library/nginx:latest");
        assert_eq!(ok("index.docker.io/nginx"), "docker.io/library/nginx:latest");
        assert_eq!(ok("index.docker.io/foo/bar:1"), "docker.io/foo/bar:1");
        assert_eq!(ok("docker.io/library/nginx:latest"), "docker.io/library/nginx:latest");
    }

    // normalize.go, splitDockerDomain: "." or ":" or "localhost" makes a host.
    #[test]
    fn host_detection() {
        assert_eq!(ok("registry.k8s.io/pause:3.10.2"), "registry.k8s.io/pause:3.10.2");
        assert_eq!(ok("localhost/kubernetes/pause"), "localhost/kubernetes/pause:latest");
        assert_eq!(ok("localhost:5000/foo"), "localhost:5000/foo:latest");
        assert_eq!(ok("myhost:5000/foo:1"), "myhost:5000/foo:1");
        assert_eq!(ok("[::1]:5000/foo"), "[::1]:5000/foo:latest");
        assert_eq!(ok("10.0.0.1/foo"), "10.0.0.1/foo:latest");
        // A first component without ".", ":" or upper case is a namespace.
        assert_eq!(ok("myhost/foo"), "docker.io/myhost/foo:latest");
    }

    // normalize.go, splitDockerDomain: the FIXME there; a lone component is
    // never a host, so a lone "host:port" is read as name and tag.
    #[test]
    fn lone_component_is_never_a_host() {
        assert_eq!(ok("localhost"), "docker.io/library/localhost:latest");
        assert_eq!(ok("example.com"), "docker.io/library/example.com:latest");
        assert_eq!(ok("localhost:5000"), "docker.io/library/localhost:5000");
    }

    // normalize.go, splitDockerDomain: an upper-case first component is taken
    // for a host and kept as written; host comparisons are case-sensitive, so
    // "Docker.io" is neither rewritten nor given "library/".
    #[test]
    fn upper_case_host_is_kept_verbatim() {
        assert_eq!(ok("Docker.io/nginx"), "Docker.io/nginx:latest");
        assert_eq!(ok("Index.docker.io/nginx"), "Index.docker.io/nginx:latest");
        assert_eq!(ok("Foo/bar"), "Foo/bar:latest");
        assert_eq!(ok("REGISTRY.example/app:V1"), "REGISTRY.example/app:V1");
    }

    // normalize.go, ParseNormalizedNamed: only the repository must be lower case.
    #[test]
    fn repository_must_be_lower_case_but_tag_need_not() {
        assert!(refused("NGINX"));
        assert!(refused("docker.io/Library/nginx"));
        assert!(refused("registry.k8s.io/Pause:3.9"));
        assert_eq!(ok("nginx:LATEST"), "docker.io/library/nginx:LATEST");
    }

    // normalize.go, ParseDockerRef: tag and digest together keep the digest only.
    #[test]
    fn tag_and_digest_drops_the_tag() {
        assert_eq!(
            ok(&format!("registry.k8s.io/pause:3.9@sha256:{HEX64}")),
            format!("registry.k8s.io/pause@sha256:{HEX64}")
        );
        assert_eq!(ok(&format!("nginx@sha256:{HEX64}")), format!("docker.io/library/nginx@sha256:{HEX64}"));
    }

    // reference.go, Parse, and go-digest's Digest.Validate.
    #[test]
    fn digests_are_validated() {
        assert!(refused(&format!("nginx@sha256:{}", HEX64.to_uppercase())));
        assert!(refused(&format!("nginx@sha256:{}", &HEX64[1..])));
        assert!(refused("nginx@md5:0123456789abcdef0123456789abcdef"));
        assert!(refused(&format!("nginx@SHA256:{HEX64}")));
        assert!(refused("nginx@sha256:aaaa"));
        let sha512 = "ab".repeat(64);
        assert_eq!(ok(&format!("nginx@sha512:{sha512}")), format!("docker.io/library/nginx@sha512:{sha512}"));
        let sha384 = "cd".repeat(48);
        assert_eq!(ok(&format!("a.io/b@sha384:{sha384}")), format!("a.io/b@sha384:{sha384}"));
    }

    // normalize.go, ParseNormalizedNamed: a bare ID is refused, but with its
    // algorithm it parses as repository "sha256" tagged with the hex.
    #[test]
    fn image_ids() {
        assert!(refused(HEX64));
        assert_eq!(ok(&format!("sha256:{HEX64}")), format!("docker.io/library/sha256:{HEX64}"));
        // Upper-case hex is not an ID, and not a valid repository either.
        assert!(refused(&HEX64.to_uppercase()));
    }

    // reference.go, Parse: the 255-byte limit counts the path, not the host.
    #[test]
    fn path_length_excludes_the_host() {
        let at_limit = "a".repeat(MAX_PATH_LEN - OFFICIAL_NAMESPACE.len());
        assert!(normalize(&at_limit).is_ok());
        assert!(refused(&format!("{at_limit}a")));
        let long_host = format!("{}.example/{}", "h".repeat(300), "p".repeat(MAX_PATH_LEN));
        assert!(normalize(&long_host).is_ok());
    }

    // regexp.go: tags are at most 128 characters, ASCII word characters, "." and "-".
    #[test]
    fn tag_grammar() {
        assert!(normalize(&format!("nginx:{}", "t".repeat(128))).is_ok());
        assert!(refused(&format!("nginx:{}", "t".repeat(129))));
        assert!(refused("nginx:.hidden"));
        assert!(refused("nginx:é"));
        assert!(refused("nginx:1:2"));
    }

    // regexp.go: path separators are one "." or "_", "__", or any run of "-".
    #[test]
    fn path_component_separators() {
        assert!(normalize("a.b_c__d---e").is_ok());
        assert!(refused("a..b"));
        assert!(refused("a___b"));
        assert!(refused("-a"));
        assert!(refused("a/"));
        assert!(refused("a//b"));
    }

    // normalize.go + reference.go: a first component with "." is taken for a
    // host, fails the host grammar, and is then accepted as a path instead.
    #[test]
    fn invalid_host_reparses_as_a_path() {
        assert_eq!(ok("foo_bar.com/x"), "foo_bar.com/x:latest");
    }

    // Nothing is trimmed and nothing outside ASCII is accepted.
    #[test]
    fn no_trimming_and_ascii_only() {
        assert!(refused(""));
        assert!(refused(" nginx"));
        assert!(refused("nginx "));
        assert!(refused("nginx\n"));
        assert!(refused("ngïnx"));
    }
}
