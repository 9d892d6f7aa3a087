//! Image references normalised as the docker reference grammar does
//! (`github.com/distribution/reference`, `ParseDockerRef`, which containerd
//! applies to every pulled name): the opt-in [`Flags::NORMALIZE`].
//!
//! | given                         | normalised                          |
//! |-------------------------------|-------------------------------------|
//! | `nginx`                       | `docker.io/library/nginx:latest`    |
//! | `docker.io/x/y`               | `docker.io/x/y:latest`              |
//! | `index.docker.io/x/y:1`       | `docker.io/x/y:1`                   |
//! | `quay.io/a/b:1@sha256:<hex>`  | `quay.io/a/b@sha256:<hex>` (tag dropped) |
//! | `localhost:5000/a`            | `localhost:5000/a:latest`           |
//!
//! Refused, as the grammar refuses them: a path with upper case, a bare
//! 64-hex identifier, a bad tag or digest (only `sha256`, `sha384`, `sha512`
//! with lower-case hex of their length), a path over 255 bytes, white
//! space anywhere. Kept as the grammar keeps them (its quirks are the
//! runtimes'): the host's case (`Docker.io/x` is another host than
//! `docker.io`), a first component with upper case taken for a host,
//! `localhost:5000` alone read as the name `localhost` tagged `5000`.
//!
//! The parser is written from the grammar, by hand, with no allocation: it
//! runs on every name matched under the flag. The tests check it against
//! an independent regex transliteration of the grammar
//! (`crate::oracle::docker_reference`), itself checked against the Go
//! library.
//!
//! [`Flags::NORMALIZE`]: crate::Flags::NORMALIZE

/// A reference in its normalised form, as the parts that spell it (no
/// copy): the host, `/`, maybe `library/`, the path, then `:` and the tag,
/// `@` and the digest, or `:` and `latest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalized<'a> {
    parts: [&'a [u8]; 6],
}

impl<'a> Normalized<'a> {
    /// The parts, in order; their concatenation is the normalised reference.
    pub fn parts(&self) -> &[&'a [u8]; 6] {
        &self.parts
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }

    /// Never: a reference has a host and a path.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The normalised reference, appended to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        for part in self.parts {
            out.extend_from_slice(part);
        }
    }

    /// The normalised reference, as a new vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        self.write_to(&mut out);
        out
    }
}

/// Why a text is not an image reference.
pub type Invalid = &'static str;

const DEFAULT_HOST: &[u8] = b"docker.io";
const LEGACY_HOST: &[u8] = b"index.docker.io";
const MAX_PATH: usize = 255;

/// `text` normalised as `ParseDockerRef` normalises it, or why it is not a
/// reference.
pub fn normalize(text: &[u8]) -> Result<Normalized<'_>, Invalid> {
    if text.len() == 64 && text.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("a 64-digit hexadecimal image identifier, not a reference");
    }
    // The host: the first component when it can only be one (a dot, a
    // colon, `localhost`, upper case); otherwise Docker Hub.
    let (host, rest) = match text.iter().position(|&b| b == b'/') {
        Some(slash) => {
            let first = &text[..slash];
            if first == b"localhost" || first.iter().any(|&b| matches!(b, b'.' | b':' | b'A'..=b'Z')) {
                (first, &text[slash + 1..])
            } else {
                (DEFAULT_HOST, text)
            }
        }
        None => (DEFAULT_HOST, text),
    };
    let host = if host == LEGACY_HOST { DEFAULT_HOST } else { host };
    let library: &[u8] = if host == DEFAULT_HOST && !rest.contains(&b'/') { b"library/" } else { b"" };
    let remote = rest.iter().position(|&b| b == b':').map_or(rest, |colon| &rest[..colon]);
    if remote.iter().any(u8::is_ascii_uppercase) {
        return Err("the repository path must be lower case");
    }

    // The grammar over HOST/[library/]REST: name, then :tag, then @digest.
    let (name_rest, digest) = match rest.iter().position(|&b| b == b'@') {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let last_slash = name_rest.iter().rposition(|&b| b == b'/').map_or(0, |s| s + 1);
    let (path_rest, tag) = match name_rest[last_slash..].iter().position(|&b| b == b':') {
        Some(colon) => (&name_rest[..last_slash + colon], Some(&name_rest[last_slash + colon + 1..])),
        None => (name_rest, None),
    };
    check_name(host, library, path_rest)?;
    if let Some(tag) = tag {
        check_tag(tag)?;
    }
    let suffix: [&[u8]; 2] = match (digest, tag) {
        (Some(digest), _) => {
            check_digest(digest)?;
            // `name:tag@digest` is `name@digest`: the digest decides.
            [b"@", digest]
        }
        (None, Some(tag)) => [b":", tag],
        (None, None) => [b":", b"latest"],
    };
    Ok(Normalized { parts: [host, b"/", library, path_rest, suffix[0], suffix[1]] })
}

/// HOST/[library/]PATH as the grammar reads `name`: a host (optional port)
/// then path components, or path components only; the host reading wins
/// when both parse, and the path it leaves may not exceed 255 bytes.
fn check_name(host: &[u8], library: &[u8], path: &[u8]) -> Result<(), Invalid> {
    let path_ok = |p: &[u8]| !p.is_empty() && p.split(|&b| b == b'/').all(is_path_component);
    if is_host(host) && path_ok(path) && (library.is_empty() || is_path_component(b"library")) {
        if library.len() + path.len() > MAX_PATH {
            return Err("the repository path is longer than 255 bytes");
        }
        return Ok(());
    }
    // No host: the whole text is a path (`foo_bar.com/x`).
    if library.is_empty() && is_path_component(host) && path_ok(path) {
        if host.len() + 1 + path.len() > MAX_PATH {
            return Err("the repository path is longer than 255 bytes");
        }
        return Ok(());
    }
    Err(if path_ok(path) { "the registry host is not a host name" } else { "the repository path is not valid" })
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`
fn is_path_component(c: &[u8]) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let mut i = 0;
    loop {
        let run = c[i..].iter().take_while(|&&b| alnum(b)).count();
        if run == 0 {
            return false;
        }
        i += run;
        if i == c.len() {
            return true;
        }
        let sep = match &c[i..] {
            [b'_', b'_', ..] => 2,
            [b'.' | b'_', ..] => 1,
            [b'-', ..] => c[i..].iter().take_while(|&&b| b == b'-').count(),
            _ => return false,
        };
        i += sep;
    }
}

/// `label(\.label)*` or `\[hex and colons\]`, then maybe `:digits`.
fn is_host(host: &[u8]) -> bool {
    let (name, port) = if host.starts_with(b"[") {
        match host.iter().position(|&b| b == b']') {
            Some(close) => (&host[..=close], &host[close + 1..]),
            None => return false,
        }
    } else {
        match host.iter().position(|&b| b == b':') {
            Some(colon) => (&host[..colon], &host[colon..]),
            None => (host, &host[host.len()..]),
        }
    };
    // (After a bracketed address anything may follow: only `:digits` is a port.)
    let port_ok = port.is_empty() || (port.len() > 1 && port[0] == b':' && port[1..].iter().all(u8::is_ascii_digit));
    let name_ok = if let Some(inner) = name.strip_prefix(b"[").and_then(|n| n.strip_suffix(b"]")) {
        !inner.is_empty() && inner.iter().all(|&b| b.is_ascii_hexdigit() || b == b':')
    } else {
        name.split(|&b| b == b'.').all(|label| {
            !label.is_empty()
                && label.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-')
                && label[0] != b'-'
                && label[label.len() - 1] != b'-'
        })
    };
    port_ok && name_ok
}

/// `[\w][\w.-]{0,127}`
fn is_tag_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn check_tag(tag: &[u8]) -> Result<(), Invalid> {
    match tag {
        [first, rest @ ..] if is_tag_byte(*first) && rest.len() <= 127 => {
            if rest.iter().all(|&b| is_tag_byte(b) || b == b'.' || b == b'-') {
                Ok(())
            } else {
                Err("the tag has a character other than letters, digits, '_', '.' and '-'")
            }
        }
        [] => Err("the tag is empty"),
        _ => Err("the tag must start with a letter, digit or '_' and be at most 128 bytes"),
    }
}

/// An algorithm the grammar and the digest library both take, and
/// lower-case hex of its length.
fn check_digest(digest: &[u8]) -> Result<(), Invalid> {
    let Some(colon) = digest.iter().position(|&b| b == b':') else {
        return Err("the digest has no algorithm (write sha256:<64 hex digits>)");
    };
    let (algorithm, hex) = (&digest[..colon], &digest[colon + 1..]);
    let length = match algorithm {
        b"sha256" => 64,
        b"sha384" => 96,
        b"sha512" => 128,
        _ => return Err("the digest algorithm is not sha256, sha384 or sha512"),
    };
    if hex.len() == length && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(())
    } else {
        Err("the digest is not lower-case hex of its algorithm's length (sha256: 64 digits)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> Result<String, Invalid> {
        normalize(s.as_bytes()).map(|n| String::from_utf8(n.to_vec()).expect("ASCII"))
    }

    #[test]
    fn docker_hub_short_names_gain_host_library_and_latest() {
        assert_eq!(norm("nginx").unwrap(), "docker.io/library/nginx:latest");
        assert_eq!(norm("x/y").unwrap(), "docker.io/x/y:latest");
        assert_eq!(norm("index.docker.io/x/y:1").unwrap(), "docker.io/x/y:1");
        assert_eq!(norm("docker.io/nginx:1.27").unwrap(), "docker.io/library/nginx:1.27");
    }

    #[test]
    fn a_digest_drops_the_tag() {
        let hex = "a".repeat(64);
        assert_eq!(norm(&format!("quay.io/a/b:1@sha256:{hex}")).unwrap(), format!("quay.io/a/b@sha256:{hex}"));
    }

    #[test]
    fn the_grammars_quirks_are_kept() {
        assert_eq!(norm("Docker.io/nginx").unwrap(), "Docker.io/nginx:latest");
        assert_eq!(norm("Foo/bar").unwrap(), "Foo/bar:latest");
        assert_eq!(norm("foo_bar.com/x").unwrap(), "foo_bar.com/x:latest");
        assert_eq!(norm("localhost:5000").unwrap(), "docker.io/library/localhost:5000");
        assert_eq!(norm("localhost:5000/a").unwrap(), "localhost:5000/a:latest");
    }

    #[test]
    fn invalid_references_say_why() {
        assert!(norm("NGINX").is_err());
        assert!(norm(&"a".repeat(64)).is_err());
        assert!(norm(&format!("nginx@sha256:{}", "A".repeat(64))).is_err());
        assert!(norm("nginx:").is_err());
        assert!(norm(" nginx").is_err());
        assert!(norm("").is_err());
        assert!(norm(&format!("x/{}", "a".repeat(255))).is_err());
    }
}
