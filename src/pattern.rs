//! Pattern syntax: the one place that decides what a pinned-image pattern
//! means, which flags exist, and which patterns are rejected.
//!
//! CRI-O (`internal/storage/image.go`, `CompileRegexpsForPinnedImages`)
//! classifies each pattern `p` by its stars and builds one Go regexp:
//!
//! | pattern            | CRI-O's regexp                      | meaning here                 |
//! |--------------------|-------------------------------------|------------------------------|
//! | `*word*` (keyword) | `(?i)` + QuoteMeta(word)            | [`Pattern::Keyword`]: name contains `word` |
//! | `prefix*` (glob)   | `(?i)` + QuoteMeta(prefix) + `.*`   | [`Pattern::Glob`]: name contains `prefix` (not anchored!) |
//! | anything else      | `(?i)^` + QuoteMeta(p) + `$`        | [`Pattern::Exact`]: name equals `p` |
//!
//! A keyword is checked first, so `**` is the keyword `""` (pins every name)
//! and `***` is the keyword `*`. A `*` anywhere else is a plain character:
//! `*pause` and `a*b` are exact patterns. The lone pattern `*` makes CRI-O
//! slice `p[1:0]` and panic; here it is a [`ErrorKind::LoneStar`] error.

use std::fmt;
use std::ops::BitOr;

/// Compile flags, a bit set mirroring the C constants `CRIO_PIN_*`.
///
/// The default reproduces CRI-O exactly; every other flag is an opt-in
/// departure from it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u32);

impl Flags {
    /// CRI-O's semantics, quirks included.
    pub const DEFAULT: Flags = Flags(0);
    /// A glob `prefix*` matches only names that start with `prefix`
    /// (what CRI-O's documentation describes and cri-dockerd does).
    pub const ANCHOR_GLOBS: Flags = Flags(1);
    /// No case folding (containerd and cri-dockerd compare case-sensitively).
    pub const CASE_SENSITIVE: Flags = Flags(2);
    /// Reject patterns that are almost surely mistakes: empty, a literal `*`,
    /// whitespace or control characters.
    pub const STRICT: Flags = Flags(4);
    /// No wildcard: every pattern is an exact name, stars included
    /// (containerd compares its `pinned_images` values with `==`).
    pub const LITERAL: Flags = Flags(8);
    /// cri-dockerd's syntax (its `--pinned-images`): each pattern trimmed of
    /// white space, a blank one ignored; a trailing `*` (one) makes a
    /// prefix; a pattern with a digest or a tag is an exact name; anything
    /// else is a bare repository ([`Pattern::Repository`]), pinning the
    /// repository's every tag and digest. No keywords.
    pub const CRI_DOCKERD_SYNTAX: Flags = Flags(16);
    /// Exact patterns and names are compared as image references normalised
    /// by the docker reference grammar ([`crate::normalize`]): `nginx`
    /// pins `docker.io/library/nginx:latest`, `name:tag@digest` pins
    /// `name@digest`. Globs and keywords match the normalised name. An
    /// exact pattern that is not a reference is an error; a name that is
    /// not one is matched as it is.
    pub const NORMALIZE: Flags = Flags(32);
    /// Every flag this version knows.
    pub const ALL: Flags = Flags(63);
    /// The flags of CRI-O's own options (a configuration can ask for
    /// none of them; they are this library's opt-in departures).
    pub const CRIO_OPTIONS: Flags = Flags(1 | 2 | 4);

    /// CRI-O's rules (the default).
    pub const CRIO: Flags = Flags::DEFAULT;
    /// containerd 2.x's rules: exact, case-sensitive, the configured value
    /// compared as written (so `nginx` never pins `docker.io/library/nginx:latest`).
    pub const CONTAINERD: Flags = Flags(8 | 2);
    /// What containerd's fix PRs intend: its rules with the configured
    /// value normalised as the pulled name is.
    pub const CONTAINERD_NORMALIZED: Flags = Flags(8 | 2 | 32);
    /// cri-dockerd's rules: its syntax, prefixes anchored, case-sensitive.
    pub const CRI_DOCKERD: Flags = Flags(16 | 1 | 2);
    /// The kubelet's `preloadedImagesVerificationAllowlist`, once the
    /// kubelet has accepted it (exact repositories without tag or digest,
    /// prefixes ending in `/*`): CRI-O's syntax with globs anchored and
    /// case compared, over names normalised (the repositories the kubelet
    /// compares are their `:latest` form).
    pub const KUBELET: Flags = Flags(1 | 2 | 32);

    /// The flags whose bits are `bits`, or an error naming the unknown bits.
    pub fn from_bits(bits: u32) -> Result<Flags, CompileError> {
        if bits & !Flags::ALL.0 != 0 {
            Err(CompileError::new(None, ErrorKind::UnknownFlags(bits & !Flags::ALL.0)))
        } else {
            Flags(bits).check()
        }
    }

    /// The flags, or an error if they ask for two pattern syntaxes at once.
    pub(crate) fn check(self) -> Result<Flags, CompileError> {
        if self.contains(Flags::LITERAL) && self.contains(Flags::CRI_DOCKERD_SYNTAX) {
            Err(CompileError::new(None, ErrorKind::ConflictingFlags))
        } else {
            Ok(self)
        }
    }

    /// The raw bits, as the C API spells them.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether every bit of `other` is set in `self`.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (Flags::ANCHOR_GLOBS, "ANCHOR_GLOBS"),
            (Flags::CASE_SENSITIVE, "CASE_SENSITIVE"),
            (Flags::STRICT, "STRICT"),
            (Flags::LITERAL, "LITERAL"),
            (Flags::CRI_DOCKERD_SYNTAX, "CRI_DOCKERD_SYNTAX"),
            (Flags::NORMALIZE, "NORMALIZE"),
        ];
        let set: Vec<&str> = names.iter().filter(|(flag, _)| self.contains(*flag)).map(|(_, name)| *name).collect();
        if set.is_empty() {
            f.write_str("DEFAULT")
        } else {
            f.write_str(&set.join(" | "))
        }
    }
}

/// One pattern, classified as CRI-O classifies it. The text is the literal
/// part (stars removed); it is compared with the name case-insensitively
/// unless [`Flags::CASE_SENSITIVE`] is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern<'a> {
    /// The whole name equals the text.
    Exact(&'a str),
    /// `prefix*`: the name contains the prefix anywhere (CRI-O), or starts
    /// with it under [`Flags::ANCHOR_GLOBS`].
    Glob(&'a str),
    /// `*word*`: the name contains the word anywhere.
    Keyword(&'a str),
    /// A bare repository ([`Flags::CRI_DOCKERD_SYNTAX`]): the name's
    /// repository (the name without its digest, then without a tag after
    /// its last `/`) equals the text.
    Repository(&'a str),
    /// A blank pattern under [`Flags::CRI_DOCKERD_SYNTAX`]: pins nothing.
    Blank,
}

impl<'a> Pattern<'a> {
    /// Classifies `text` as CRI-O does. Fails only for the lone `*` (which
    /// crashes CRI-O) and, under [`Flags::STRICT`], for likely mistakes.
    pub fn parse(text: &'a str, flags: Flags) -> Result<Pattern<'a>, ErrorKind> {
        let pattern = if flags.contains(Flags::LITERAL) {
            Pattern::Exact(text)
        } else if flags.contains(Flags::CRI_DOCKERD_SYNTAX) {
            Pattern::cri_dockerd(text)
        } else if text.len() >= 2 && text.starts_with('*') && text.ends_with('*') {
            Pattern::Keyword(&text[1..text.len() - 1])
        } else if text == "*" {
            return Err(ErrorKind::LoneStar);
        } else if let Some(prefix) = text.strip_suffix('*') {
            Pattern::Glob(prefix)
        } else {
            Pattern::Exact(text)
        };
        if flags.contains(Flags::STRICT) {
            pattern.check_strict(text)?;
        }
        Ok(pattern)
    }

    /// cri-dockerd's classification (`core/pinned.go` of its PR #571).
    fn cri_dockerd(text: &'a str) -> Pattern<'a> {
        let text = text.trim();
        if text.is_empty() {
            Pattern::Blank
        } else if let Some(prefix) = text.strip_suffix('*') {
            Pattern::Glob(prefix)
        } else if text.contains('@') || text.rsplit('/').next().is_some_and(|last| last.contains(':')) {
            Pattern::Exact(text)
        } else {
            Pattern::Repository(text)
        }
    }

    /// The literal text the name is compared with.
    pub fn text(&self) -> &'a str {
        match *self {
            Pattern::Exact(t) | Pattern::Glob(t) | Pattern::Keyword(t) | Pattern::Repository(t) => t,
            Pattern::Blank => "",
        }
    }

    fn check_strict(&self, original: &str) -> Result<(), ErrorKind> {
        if original.is_empty() {
            return Err(ErrorKind::Empty);
        }
        if let Some((at, ch)) = original.char_indices().find(|(_, c)| c.is_whitespace() || c.is_control()) {
            return Err(ErrorKind::Whitespace { at, ch });
        }
        // The wildcard stars are already stripped from the text; any star
        // left is a literal character.
        let offset = match self {
            Pattern::Keyword(_) => 1,
            _ => 0,
        };
        if let Some(star) = self.text().find('*') {
            let at = star + offset;
            return Err(match self {
                Pattern::Exact(rest) if star == 0 && !rest[1..].contains('*') => ErrorKind::LeadingStar { at },
                _ => ErrorKind::InnerStar { at },
            });
        }
        Ok(())
    }
}

/// The form in which CRI-O compares `text` (a pattern or a name) under
/// `flags`: decoded as Go decodes (bad bytes become U+FFFD) and, unless
/// [`Flags::CASE_SENSITIVE`], case-folded as Go's `(?i)` folds. Two texts
/// with the same canonical form are the same pattern to CRI-O, which is what
/// a tool needs to report duplicates.
pub fn canonical(text: &[u8], flags: Flags) -> Vec<u8> {
    crate::fold::canonical(text, !flags.contains(Flags::CASE_SENSITIVE))
}

/// What is wrong with a pattern list.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Flag bits this version does not know.
    UnknownFlags(u32),
    /// The pattern is not valid UTF-8 (first bad byte at `valid_up_to`).
    NotUtf8 { valid_up_to: usize },
    /// The pattern `*`, which crashes CRI-O.
    LoneStar,
    /// Strict: the empty pattern (it pins only the empty name).
    Empty,
    /// Strict: whitespace or a control character at byte `at`.
    Whitespace { at: usize, ch: char },
    /// Strict: `*word`, whose star is a literal character.
    LeadingStar { at: usize },
    /// Strict: a `*` inside the pattern, which is a literal character.
    InnerStar { at: usize },
    /// More patterns, or more pattern bytes, than one set may hold.
    TooLarge { what: &'static str, limit: usize },
    /// [`Flags::LITERAL`] and [`Flags::CRI_DOCKERD_SYNTAX`] together.
    ConflictingFlags,
    /// [`Flags::NORMALIZE`]: an exact pattern that is not an image
    /// reference, and why.
    InvalidReference { why: &'static str },
}

/// Why a pattern list did not compile: which pattern, what is wrong with it,
/// and what to write instead (in its `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    index: Option<usize>,
    /// The start of the offending pattern (what its messages quote: an
    /// error never holds a copy of a huge pattern) and its length.
    pattern: Option<(Vec<u8>, usize)>,
    kind: ErrorKind,
}

impl CompileError {
    pub(crate) fn new(index: Option<usize>, kind: ErrorKind) -> CompileError {
        CompileError { index, pattern: None, kind }
    }

    pub(crate) fn at(index: usize, pattern: &[u8], kind: ErrorKind) -> CompileError {
        // (One byte more than a quote shows: a leading-star message quotes
        // the pattern without its star.)
        let kept = pattern[..pattern.len().min(QUOTE_LIMIT + 1)].to_vec();
        CompileError { index: Some(index), pattern: Some((kept, pattern.len())), kind }
    }

    /// The index of the offending pattern in the list, when one is to blame.
    pub fn pattern_index(&self) -> Option<usize> {
        self.index
    }

    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

/// Longest part of a pattern quoted in a message.
const QUOTE_LIMIT: usize = 120;

/// The pattern as a quoted string: escapes for control characters and
/// invalid bytes, cut short when very long (`len`: its whole length).
fn quote(pattern: &[u8], len: usize) -> String {
    let shown = &pattern[..pattern.len().min(QUOTE_LIMIT)];
    let mut out = String::from("\"");
    for chunk in shown.utf8_chunks() {
        out.extend(chunk.valid().chars().flat_map(char::escape_debug));
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    if len > shown.len() {
        out.push_str(&format!("... ({len} bytes)"));
    }
    out
}

/// How the messages name the flag `NORMALIZE`: the C layer names it by its
/// constant instead (`ffi`), so that C callers read one naming.
pub(crate) const NORMALIZE_NAMED: &str = "the normalize flag";

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(index) = self.index {
            write!(f, "pattern {index}")?;
            if let Some((pattern, len)) = &self.pattern {
                write!(f, " ({})", quote(pattern, *len))?;
            }
            f.write_str(": ")?;
        }
        match &self.kind {
            ErrorKind::UnknownFlags(bits) => write!(
                f,
                "unknown flag bits {bits:#x}; the flags are anchor-globs (1), \
                 case-sensitive (2), strict (4), literal (8), cri-dockerd-syntax (16) and \
                 normalize (32), or 0 for CRI-O's semantics"
            ),
            ErrorKind::NotUtf8 { valid_up_to } => write!(
                f,
                "not valid UTF-8 (bad byte at offset {valid_up_to}); patterns are text: \
                 fix the encoding of the configuration"
            ),
            ErrorKind::LoneStar => f.write_str("a lone '*' is not a valid pattern; write \"**\" to pin every image"),
            ErrorKind::Empty => f.write_str("empty pattern (it pins only an image with an empty name); remove it"),
            ErrorKind::Whitespace { at, ch } => write!(
                f,
                "{} {ch:?} (U+{:04X}) at byte {at}; image names never contain whitespace \
                 or control characters: remove it (look for stray spaces, tabs or newlines)",
                if ch.is_whitespace() { "whitespace" } else { "control character" },
                u32::from(*ch),
            ),
            ErrorKind::LeadingStar { .. } => {
                let (pattern, len) = self.pattern.as_ref().map_or((&b"*word"[..], 5), |(p, len)| (&p[..], *len));
                let word = &pattern[1..];
                let keyword = [b"*", word, b"*"].concat();
                write!(
                    f,
                    "a '*' only at the start is a literal character, so this pins only the \
                     name {} itself (in any case); write {} to pin names containing {} \
                     (CRI-O has no suffix match)",
                    quote(pattern, len),
                    quote(&keyword, len + 1),
                    quote(word, len - 1),
                )
            }
            ErrorKind::InnerStar { at } => write!(
                f,
                "the '*' at byte {at} is a literal character (only a trailing '*', or the \
                 leading '*' of \"*word*\", is a wildcard); remove it, or split the pattern \
                 into a \"prefix*\" glob or a \"*word*\" keyword"
            ),
            ErrorKind::ConflictingFlags => f.write_str(
                "the flags literal (8) and cri-dockerd-syntax (16) are two pattern syntaxes; \
                 choose one",
            ),
            ErrorKind::InvalidReference { why } => write!(
                f,
                "not an image reference ({why}), which {NORMALIZE_NAMED} requires of an exact \
                 pattern; write the image's name in full, such as \"registry.k8s.io/pause:3.10\""
            ),
            ErrorKind::TooLarge { what, limit } => write!(
                f,
                "too large: {what} may be at most {limit}; split the list or shorten \
                 the pattern"
            ),
        }
    }
}

impl std::error::Error for CompileError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Pattern<'_>, ErrorKind> {
        Pattern::parse(text, Flags::DEFAULT)
    }

    fn strict(text: &str) -> Result<Pattern<'_>, ErrorKind> {
        Pattern::parse(text, Flags::STRICT)
    }

    #[test]
    fn classification_follows_crio() {
        let cases: &[(&str, Pattern)] = &[
            ("quay.io/x:1", Pattern::Exact("quay.io/x:1")),
            ("quay.io/*", Pattern::Glob("quay.io/")),
            ("*pause*", Pattern::Keyword("pause")),
            ("**", Pattern::Keyword("")),
            ("***", Pattern::Keyword("*")),
            ("*pause", Pattern::Exact("*pause")),
            ("a*b", Pattern::Exact("a*b")),
            ("a**", Pattern::Glob("a*")),
            ("", Pattern::Exact("")),
            ("^a.b$", Pattern::Exact("^a.b$")),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), Ok(*want), "pattern {text:?}");
        }
    }

    #[test]
    fn lone_star_is_an_error_in_every_mode() {
        for bits in 0..=Flags::CRIO_OPTIONS.bits() {
            let flags = Flags::from_bits(bits).unwrap();
            assert_eq!(Pattern::parse("*", flags), Err(ErrorKind::LoneStar), "{flags:?}");
        }
    }

    #[test]
    fn strict_rejects_likely_mistakes() {
        assert_eq!(strict(""), Err(ErrorKind::Empty));
        assert_eq!(strict("*pause"), Err(ErrorKind::LeadingStar { at: 0 }));
        assert_eq!(strict("a*b"), Err(ErrorKind::InnerStar { at: 1 }));
        assert_eq!(strict("a**"), Err(ErrorKind::InnerStar { at: 1 }));
        assert_eq!(strict("***"), Err(ErrorKind::InnerStar { at: 1 }));
        assert_eq!(strict("*a*b*"), Err(ErrorKind::InnerStar { at: 2 }));
        assert_eq!(strict("*a*b"), Err(ErrorKind::InnerStar { at: 0 }));
        assert_eq!(strict("quay.io/x "), Err(ErrorKind::Whitespace { at: 9, ch: ' ' }));
        assert_eq!(strict("a\tb"), Err(ErrorKind::Whitespace { at: 1, ch: '\t' }));
        assert_eq!(strict("a\u{7f}"), Err(ErrorKind::Whitespace { at: 1, ch: '\u{7f}' }));
        assert_eq!(strict("a\u{a0}"), Err(ErrorKind::Whitespace { at: 1, ch: '\u{a0}' }));
    }

    #[test]
    fn strict_accepts_well_formed_patterns() {
        assert_eq!(strict("**"), Ok(Pattern::Keyword("")));
        assert_eq!(strict("*pause*"), Ok(Pattern::Keyword("pause")));
        assert_eq!(strict("quay.io/*"), Ok(Pattern::Glob("quay.io/")));
        assert_eq!(strict("quay.io/x:1"), Ok(Pattern::Exact("quay.io/x:1")));
    }

    #[test]
    fn unknown_flags_are_named() {
        let err = Flags::from_bits(64 | 1).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::UnknownFlags(64));
        assert_eq!(err.pattern_index(), None);
        assert!(err.to_string().contains("0x40"), "{err}");
    }

    #[test]
    fn the_other_syntaxes_classify_as_their_runtimes() {
        let literal = |t| Pattern::parse(t, Flags::CONTAINERD);
        assert_eq!(literal("quay.io/*"), Ok(Pattern::Exact("quay.io/*")));
        assert_eq!(literal("*"), Ok(Pattern::Exact("*")));
        let cri_dockerd = |t| Pattern::parse(t, Flags::CRI_DOCKERD);
        let cases: &[(&str, Pattern)] = &[
            (" nginx ", Pattern::Repository("nginx")),
            ("localhost:5000/a", Pattern::Repository("localhost:5000/a")),
            ("localhost:5000", Pattern::Exact("localhost:5000")),
            ("nginx:1", Pattern::Exact("nginx:1")),
            ("nginx@sha256:x", Pattern::Exact("nginx@sha256:x")),
            ("quay.io/*", Pattern::Glob("quay.io/")),
            ("*pause*", Pattern::Glob("*pause")),
            ("*", Pattern::Glob("")),
            ("\t ", Pattern::Blank),
        ];
        for (text, want) in cases {
            assert_eq!(cri_dockerd(text), Ok(*want), "pattern {text:?}");
        }
    }

    #[test]
    fn messages_name_the_pattern_and_the_fix() {
        let err = CompileError::at(3, b"*", ErrorKind::LoneStar);
        assert_eq!(
            err.to_string(),
            "pattern 3 (\"*\"): a lone '*' is not a valid pattern; write \"**\" to pin every image"
        );
        let err = CompileError::at(0, b"a\xffb\n", ErrorKind::NotUtf8 { valid_up_to: 1 });
        assert!(err.to_string().starts_with("pattern 0 (\"a\\xffb\\n\"): not valid UTF-8"));
        let long = vec![b'a'; 1000];
        let err = CompileError::at(1, &long, ErrorKind::Empty);
        assert!(err.to_string().contains("... (1000 bytes)"), "{err}");
    }

    #[test]
    fn canonical_folds_as_go_unless_case_sensitive() {
        // U+212A KELVIN SIGN folds with 'k'; a bad byte reads as U+FFFD.
        let kelvin = canonical("\u{212a}8S".as_bytes(), Flags::DEFAULT);
        assert_eq!(kelvin, canonical(b"k8s", Flags::DEFAULT));
        let bad = canonical(b"a\xff", Flags::DEFAULT);
        assert_eq!(bad, canonical("A\u{fffd}".as_bytes(), Flags::DEFAULT));
        assert_ne!(canonical(b"K8S", Flags::CASE_SENSITIVE), canonical(b"k8s", Flags::CASE_SENSITIVE));
    }

    #[test]
    fn flags_debug_names_bits() {
        assert_eq!(format!("{:?}", Flags::DEFAULT), "DEFAULT");
        assert_eq!(format!("{:?}", Flags::ANCHOR_GLOBS | Flags::STRICT), "ANCHOR_GLOBS | STRICT");
    }
}
