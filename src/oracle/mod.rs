//! The test oracle: CRI-O's algorithm, transliterated. One regex per
//! pattern, tried in order for every name.
//!
//! It exists to be obviously right, not fast: the tests and the fuzzers
//! check [`crate::PinSet`] against it, and the benchmarks measure the gap.
//! It shares nothing with the fast engine's matching code: it classifies
//! patterns with CRI-O's own string tests, builds the same regexps CRI-O
//! builds (with the `regex` crate instead of Go's `regexp`), and decodes
//! names the way Go does. Only pattern validation (the lone `*`, UTF-8,
//! [`Flags::STRICT`]) is shared, so both engines reject the same lists.
//!
//! One known difference from Go remains: the `regex` crate folds case with
//! Unicode 16 tables, Go (and the fast engine, whose table is generated from
//! Go) with Unicode 15. They disagree on the 60 code points listed in
//! [`UNICODE_16_FOLD_CHANGES`]; tests comparing the engines avoid them.

/// containerd 2.x's `pinned_images`: exact equality, or the fix PRs' normalised values.
pub mod containerd;
/// cri-dockerd's `--pinned-images`: exact references, bare repositories, trailing-`*` prefixes.
pub mod cri_dockerd;
/// `ParseDockerRef`'s normalisation (distribution/reference), from its grammar.
pub mod docker_reference;
/// The kubelet's `preloadedImagesVerificationAllowlist`: exact repositories, `/*` prefixes.
pub mod kubelet;

use regex::{Regex, RegexBuilder};

use crate::pattern::{CompileError, ErrorKind, Flags, Pattern};

/// Code points whose case-fold orbit differs between Unicode 15 (Go 1.21 to
/// at least 1.26, and the fast engine) and Unicode 16 (the `regex` crate).
pub const UNICODE_16_FOLD_CHANGES: &[(u32, u32)] = &[
    (0x019B, 0x019B),
    (0x0264, 0x0264),
    (0x0390, 0x0390),
    (0x03B0, 0x03B0),
    (0x1C89, 0x1C8A),
    (0x1FD3, 0x1FD3),
    (0x1FE3, 0x1FE3),
    (0xA7CB, 0xA7CD),
    (0xA7DA, 0xA7DC),
    (0xFB05, 0xFB06),
    (0x10D50, 0x10D65),
    (0x10D70, 0x10D85),
];

/// Whether `c` is one of [`UNICODE_16_FOLD_CHANGES`].
pub fn in_unicode_16_fold_changes(c: char) -> bool {
    let c = u32::from(c);
    UNICODE_16_FOLD_CHANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// CRI-O's pattern list: one compiled regex per pattern, in order.
#[derive(Debug)]
pub struct ReferenceSet {
    regexes: Vec<Regex>,
}

impl ReferenceSet {
    /// Compiles each pattern as CRI-O's `CompileRegexpsForPinnedImages` does.
    pub fn compile<I>(patterns: I, flags: Flags) -> Result<ReferenceSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        assert!(
            Flags::CRIO_OPTIONS.contains(flags),
            "the CRI-O oracle knows CRI-O's rules only, not {flags:?}: compare other runtimes' \
             rules with crio_pin::oracle::{{containerd, cri_dockerd}}"
        );
        let mut regexes = Vec::new();
        for (i, raw) in patterns.into_iter().enumerate() {
            let raw = raw.as_ref();
            let p = std::str::from_utf8(raw)
                .map_err(|e| CompileError::at(i, raw, ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() }))?;
            Pattern::parse(p, flags).map_err(|kind| CompileError::at(i, raw, kind))?;
            let fold = if flags.contains(Flags::CASE_SENSITIVE) { "" } else { "(?i)" };
            let source = if p.starts_with('*') && p.ends_with('*') {
                format!("{fold}{}", regex::escape(&p[1..p.len() - 1]))
            } else if let Some(prefix) = p.strip_suffix('*') {
                let anchor = if flags.contains(Flags::ANCHOR_GLOBS) { "^" } else { "" };
                format!("{fold}{anchor}{}.*", regex::escape(prefix))
            } else {
                format!("{fold}^{}$", regex::escape(p))
            };
            let regex =
                RegexBuilder::new(&source).size_limit(1 << 30).build().expect("an escaped literal is a valid regex");
            regexes.push(regex);
        }
        Ok(ReferenceSet { regexes })
    }

    /// Whether any regex matches `name`.
    pub fn is_match(&self, name: &[u8]) -> bool {
        self.match_index(name).is_some()
    }

    /// The index of the first regex that matches `name`.
    pub fn match_index(&self, name: &[u8]) -> Option<usize> {
        let name = decode_like_go(name);
        self.regexes.iter().position(|re| re.is_match(&name))
    }

    /// How many patterns were compiled.
    pub fn len(&self) -> usize {
        self.regexes.len()
    }

    /// Whether no patterns were compiled.
    pub fn is_empty(&self) -> bool {
        self.regexes.is_empty()
    }
}

/// The runes Go's regexp reads from `bytes`: each byte that does not begin a
/// valid UTF-8 sequence is one U+FFFD.
fn decode_like_go(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(rest) => {
                out.push_str(rest);
                return out;
            }
            Err(e) => {
                let (valid, bad) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).expect("checked prefix"));
                out.push('\u{FFFD}');
                bytes = &bad[1..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_bad_bytes_one_at_a_time() {
        assert_eq!(decode_like_go(b"a\xe2\x82b"), "a\u{FFFD}\u{FFFD}b");
        assert_eq!(decode_like_go(b"\xff\xfe"), "\u{FFFD}\u{FFFD}");
        assert_eq!(decode_like_go("é".as_bytes()), "é");
    }

    #[test]
    fn mirrors_crio_quirks() {
        let r = ReferenceSet::compile(["quay.io/*", "*pause", "**"], Flags::DEFAULT).unwrap();
        assert_eq!(r.match_index(b"x/QUAY.io/y"), Some(0));
        assert_eq!(r.match_index(b"*PAUSE"), Some(1));
        assert_eq!(r.match_index(b"pause"), Some(2));
    }
}
