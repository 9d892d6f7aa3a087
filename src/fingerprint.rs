//! A list's fingerprint: a name for one list of patterns under one set of
//! flags, the same in every process, on every machine and in every version
//! of this library, so that a daemon reloading its configuration can tell
//! an unchanged list from a new one without compiling it, and log which
//! list it serves.
//!
//! # Definition
//!
//! The fingerprint of `patterns` (byte strings, in order) under `flags` is
//! the SHA-256 digest (FIPS 180-4) of these bytes, one after the other:
//!
//! 1. the 29 ASCII bytes of the domain string `crio-pin list fingerprint v1`
//!    followed by a line feed (`\n`, 0x0a);
//! 2. the flags' bits (the C constants `CRIO_PIN_*` or-ed together,
//!    [`Flags::bits`]) as a 32-bit unsigned integer, little-endian (4 bytes);
//! 3. for each pattern in list order: its length in bytes as a 64-bit
//!    unsigned integer, little-endian (8 bytes), then its bytes as given
//!    (not decoded, trimmed, folded or normalised);
//! 4. the number of patterns as a 64-bit unsigned integer, little-endian
//!    (8 bytes).
//!
//! Its text ([`Fingerprint`]'s `Display` and `FromStr`) is `sha256:`
//! followed by the digest's 32 bytes as 64 lower-case hexadecimal digits.
//! The empty list under [`Flags::DEFAULT`] is
//! `sha256:311fed6dd0d4df70df9c284fe4697c63913dfdea5594eb362bf07e6cbaae668f`
//! (the tests pin it and two others, computed outside the crate by
//! `sha256sum` and Python's `hashlib`).
//!
//! The lengths make the encoding unambiguous: no two lists, and no two
//! ways of cutting the same bytes into patterns, give the same input. The
//! domain string keeps the digest apart from any other SHA-256 of the same
//! bytes, and its version number is how a future definition would differ
//! rather than change this one.
//!
//! # What it does not say
//!
//! It is a function of the input alone: nothing is parsed or validated, so
//! a list that does not compile has a fingerprint too (no compiled set
//! has it), and two lists that pin the same names differently spelt
//! (`quay.io/*` and `QUAY.IO/*`, or the same patterns in another order)
//! have different ones. Equal fingerprints mean the same list under the
//! same flags, and so, within one version of the library, the same set.
//! The library that compiles the list is not part of it: a process that
//! upgrades the library compiles its list again at start, whatever the
//! fingerprint.
//!
//! [`PinSet::fingerprint`](crate::PinSet::fingerprint) is the fingerprint
//! of the list a set was compiled from, hashed in the same pass that reads
//! the list; [`fingerprint`] hashes a list without compiling it, which is
//! all a reload of an unchanged list has to do.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::Flags;

/// The domain string that starts the hashed bytes: part 1 of the
/// [definition](self#definition).
const DOMAIN: &[u8] = b"crio-pin list fingerprint v1\n";

/// What a fingerprint's text starts with.
const PREFIX: &str = "sha256:";

/// A list's fingerprint: the SHA-256 digest of the list and its flags as
/// the [module documentation](self#definition) defines it. Its text is
/// `sha256:` and 64 lower-case hexadecimal digits.
///
/// ```
/// use crio_pin::{fingerprint, Flags, PinSet};
///
/// let list = ["registry.k8s.io/pause:3.9", "quay.io/openshift-release-dev/*"];
/// let set = PinSet::compile(list, Flags::DEFAULT)?;
/// assert_eq!(set.fingerprint(), fingerprint(list, Flags::DEFAULT));
/// assert_ne!(set.fingerprint(), fingerprint(list, Flags::ANCHOR_GLOBS));
/// let text = set.fingerprint().to_string();
/// assert!(text.starts_with("sha256:") && text.len() == 71);
/// assert_eq!(text.parse(), Ok(set.fingerprint()));
/// # Ok::<(), crio_pin::CompileError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The digest's 32 bytes (what `crio_pin_fingerprint` writes).
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The fingerprint whose digest is `bytes` (as `crio_pin_fingerprint`
    /// wrote them, say).
    pub const fn from_bytes(bytes: [u8; 32]) -> Fingerprint {
        Fingerprint(bytes)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(PREFIX)?;
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// Why a text is not a fingerprint ([`Fingerprint`]'s `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFingerprintError {
    why: String,
}

impl fmt::Display for ParseFingerprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; a fingerprint is `sha256:` followed by 64 lower-case hexadecimal digits", self.why)
    }
}

impl std::error::Error for ParseFingerprintError {}

impl FromStr for Fingerprint {
    type Err = ParseFingerprintError;

    /// Reads the text `Display` writes, and only that: one text for one
    /// fingerprint, so that fingerprints compared as text in logs compare
    /// as the digests do.
    fn from_str(text: &str) -> Result<Fingerprint, ParseFingerprintError> {
        let error = |why: String| ParseFingerprintError { why };
        let hex = text
            .strip_prefix(PREFIX)
            .ok_or_else(|| error(format!("{text:?} does not start with `{PREFIX}`")))?
            .as_bytes();
        if hex.len() != 64 {
            return Err(error(format!("{text:?} has {} digits after `{PREFIX}`, not 64", hex.len())));
        }
        let digit = |at: usize| match hex[at] {
            c @ b'0'..=b'9' => Ok(c - b'0'),
            c @ b'a'..=b'f' => Ok(c - b'a' + 10),
            c => Err(error(format!(
                "{text:?} has {:?} at byte {}, which is no lower-case hexadecimal digit",
                char::from(c),
                PREFIX.len() + at
            ))),
        };
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = digit(2 * i)? << 4 | digit(2 * i + 1)?;
        }
        Ok(Fingerprint(bytes))
    }
}

/// The fingerprint of `patterns` under `flags` (the
/// [definition](self#definition)): one pass over the patterns' bytes,
/// nothing parsed, validated or compiled, nothing allocated.
///
/// ```
/// use crio_pin::{fingerprint, Flags};
///
/// let served = fingerprint(["quay.io/*", "registry.k8s.io/pause:3.9"], Flags::DEFAULT);
/// let reloaded = fingerprint(vec![b"quay.io/*".to_vec(), b"registry.k8s.io/pause:3.9".to_vec()], Flags::DEFAULT);
/// assert_eq!(served, reloaded, "the bytes and the flags count, not their types");
/// assert_ne!(served, fingerprint(["quay.io/*"], Flags::DEFAULT));
/// ```
pub fn fingerprint<I>(patterns: I, flags: Flags) -> Fingerprint
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let mut hasher = ListHasher::new(flags.bits());
    patterns.into_iter().for_each(|pattern| hasher.add(pattern.as_ref()));
    hasher.finish()
}

/// A fingerprint being computed: the definition's parts 1 and 2 at
/// [`ListHasher::new`], part 3 a pattern at a time, part 4 at
/// [`ListHasher::finish`]. The one implementation of the definition, for
/// [`fingerprint`], for [`PinSet::compile`](crate::PinSet::compile) as it
/// reads its list, and for the C ABI's raw flag bits.
pub(crate) struct ListHasher {
    sha: Sha256,
    count: u64,
}

impl ListHasher {
    /// Starts the fingerprint of a list under the flag bits `flags` (any
    /// bits: the C ABI hashes what it is given).
    pub(crate) fn new(flags: u32) -> ListHasher {
        let mut sha = Sha256::new();
        sha.update(DOMAIN);
        sha.update(flags.to_le_bytes());
        ListHasher { sha, count: 0 }
    }

    /// Adds the list's next pattern.
    pub(crate) fn add(&mut self, pattern: &[u8]) {
        // (usize is at most 64 bits on every target Rust supports.)
        self.sha.update((pattern.len() as u64).to_le_bytes());
        self.sha.update(pattern);
        self.count += 1;
    }

    /// The fingerprint of the patterns added.
    pub(crate) fn finish(mut self) -> Fingerprint {
        self.sha.update(self.count.to_le_bytes());
        Fingerprint(self.sha.finalize().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition's value for three lists, computed outside this crate
    /// with coreutils' `sha256sum` over the bytes the definition lists,
    /// written by `printf` (octal escapes: `\005\000...` is a u64 5):
    ///
    /// ```text
    /// printf 'crio-pin list fingerprint v1\n\000\000\000\000''\000\000\000\000\000\000\000\000' | sha256sum
    /// printf 'crio-pin list fingerprint v1\n\000\000\000\000''\011\000\000\000\000\000\000\000''quay.io/*''\002\000\000\000\000\000\000\000''**''\002\000\000\000\000\000\000\000' | sha256sum
    /// printf 'crio-pin list fingerprint v1\n\003\000\000\000''\000\000\000\000\000\000\000\000''\004\000\000\000\000\000\000\000''a\000\377b''\002\000\000\000\000\000\000\000' | sha256sum
    /// ```
    ///
    /// (the empty list under no flags; `quay.io/*` and `**` under no
    /// flags; the empty pattern and the four bytes `a`, NUL, 0xff, `b`
    /// under flags 3, ANCHOR_GLOBS | CASE_SENSITIVE), and again with
    /// Python's `hashlib.sha256` over `struct.pack("<I", flags)` and
    /// `struct.pack("<Q", n)`. A change here is a change of the
    /// definition: it must not happen under `v1`.
    #[test]
    fn known_lists_have_the_definition_s_value() {
        let cases: [(&[&[u8]], u32, &str); 3] = [
            (&[], 0, "sha256:311fed6dd0d4df70df9c284fe4697c63913dfdea5594eb362bf07e6cbaae668f"),
            (&[b"quay.io/*", b"**"], 0, "sha256:06606751d5578f693fe268407447bf76e9bd6fdef3fce05baf7b62da27410219"),
            (&[b"", b"a\0\xffb"], 3, "sha256:f51d8a2c8068bf4c62d0a4cc743222e859ce4a2dc17663a00599a8a8234f5c67"),
        ];
        for (patterns, flags, expected) in cases {
            let mut hasher = ListHasher::new(flags);
            patterns.iter().for_each(|p| hasher.add(p));
            let got = hasher.finish();
            assert_eq!(got.to_string(), expected, "{patterns:?} under {flags}");
            if let Ok(flags) = Flags::from_bits(flags) {
                assert_eq!(fingerprint(patterns, flags), got);
            }
        }
    }

    /// The lengths keep every cut of the same bytes apart, and the flags
    /// and the order count.
    #[test]
    fn lists_that_differ_have_different_fingerprints() {
        let lists: [(&[&str], Flags); 7] = [
            (&[], Flags::DEFAULT),
            (&[""], Flags::DEFAULT),
            (&["", ""], Flags::DEFAULT),
            (&["ab"], Flags::DEFAULT),
            (&["a", "b"], Flags::DEFAULT),
            (&["b", "a"], Flags::DEFAULT),
            (&["a", "b"], Flags::ANCHOR_GLOBS),
        ];
        for (i, (a, fa)) in lists.iter().enumerate() {
            for (b, fb) in &lists[i + 1..] {
                assert_ne!(fingerprint(*a, *fa), fingerprint(*b, *fb), "{a:?} {fa:?} and {b:?} {fb:?}");
            }
        }
    }

    /// A compiled set's fingerprint is its list's, under every flag set
    /// the library compiles, and a list it refuses has one too.
    #[test]
    fn a_set_s_fingerprint_is_its_list_s() {
        let list = ["registry.k8s.io/pause:3.9", "quay.io/*", "*etcd*", "docker.io/library/nginx"];
        for flags in [Flags::DEFAULT, Flags::ANCHOR_GLOBS | Flags::STRICT, Flags::CONTAINERD, Flags::CRI_DOCKERD] {
            let set = crate::PinSet::compile(list, flags).expect("the list compiles");
            assert_eq!(set.fingerprint(), fingerprint(list, flags), "{flags:?}");
        }
        assert!(crate::PinSet::compile(["*"], Flags::DEFAULT).is_err());
        assert_ne!(fingerprint(["*"], Flags::DEFAULT), fingerprint(["**"], Flags::DEFAULT));
    }

    #[test]
    fn text_round_trips_and_only_the_text_parses() {
        let f = fingerprint(["quay.io/*"], Flags::DEFAULT);
        let text = f.to_string();
        assert_eq!(text.len(), 7 + 64);
        assert_eq!(text.parse::<Fingerprint>(), Ok(f));
        assert_eq!(Fingerprint::from_bytes(*f.as_bytes()), f);
        assert_eq!(format!("{f:?}"), format!("Fingerprint({text})"));
        let hex = &text[7..];
        for (bad, why) in [
            (hex.to_string(), "does not start with `sha256:`"),
            (format!("sha256:{}", &hex[1..]), "has 63 digits"),
            (format!("sha256:{hex}0"), "has 65 digits"),
            (format!("sha256:{}", hex.to_uppercase()), "which is no lower-case hexadecimal digit"),
            (format!("sha256:g{}", &hex[1..]), "'g' at byte 7"),
            (format!("sha256:{}é", &hex[..62]), "at byte 69"),
        ] {
            let message = bad.parse::<Fingerprint>().expect_err(&bad).to_string();
            assert!(message.contains(why), "{bad}: {message}");
            assert!(message.ends_with("64 lower-case hexadecimal digits"), "says what to write: {message}");
        }
    }
}
