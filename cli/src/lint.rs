//! What CRI-O will do with each pattern, and what is likely a mistake.

use std::collections::HashMap;

use crio_pin::pattern::{canonical, ErrorKind, Pattern};
use crio_pin::{Flags, PinSet};
use oci_spec::distribution::Reference;
use serde::Serialize;

use crate::codes::LintCode;
use crate::config::{Entry, Origin};
use crate::refused::{self, List};
use crate::{images, show};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub index: usize,
    /// "effective" (the list the configuration gives) or "after-reload"
    /// (the files' list a SIGHUP reload loads instead of a flag's).
    pub list: &'static str,
    pub pattern: String,
    pub severity: Severity,
    pub code: LintCode,
    pub message: String,
    #[serde(flatten)]
    pub origin: Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// The canonical names of the OCI artifacts of an `--images` listing
/// (repoDigests: an artifact's canonical name), each with the name shown.
#[derive(Default)]
pub struct Artifacts(HashMap<Vec<u8>, String>);

impl Artifacts {
    pub fn new(images: &[images::Image], flags: Flags) -> Artifacts {
        let mut names = HashMap::new();
        for image in images.iter().filter(|i| i.artifact.is_some()) {
            for name in image.names.iter().filter(|n| !n.is_tag) {
                names.entry(canonical(name.text.as_bytes(), flags)).or_insert_with(|| name.text.clone());
            }
        }
        Artifacts(names)
    }
}

/// Lints `entries`, the list `list`; `artifacts` when an `--images`
/// listing was given.
pub fn lint(entries: &[Entry], flags: Flags, list: List, artifacts: Option<&Artifacts>) -> Vec<Finding> {
    let anchored = flags.contains(Flags::ANCHOR_GLOBS);
    // Under --strict the library refuses these; by default CRI-O takes them.
    let strict_severity = if flags.contains(Flags::STRICT) { Severity::Error } else { Severity::Warning };
    let parsed: Vec<Option<Pattern<'_>>> = entries
        .iter()
        .map(|e| std::str::from_utf8(&e.text).ok().and_then(|t| Pattern::parse(t, Flags::DEFAULT).ok()))
        .collect();
    let containment = Containment::build(&parsed, flags);
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut out = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let mut add = |severity, code, message: String, suggestion: Option<String>| {
            out.push(Finding {
                index,
                list: list.as_str(),
                pattern: entry.display(),
                severity,
                code,
                message,
                origin: entry.origin(),
                suggestion,
            })
        };
        // Every finding about the pattern's form is the library's verdict
        // on it, asked once: the tool checks no rule of its own.
        let refusal = verdict(&entry.text);
        match refusal {
            Some(ErrorKind::NotUtf8 { valid_up_to }) => {
                add(
                    Severity::Error,
                    LintCode::InvalidUtf8,
                    format!(
                        "not valid UTF-8 (bad byte at offset {valid_up_to}): CRI-O's TOML decoder refuses \
                         the file; fix the file's encoding"
                    ),
                    None,
                );
                continue;
            }
            Some(ErrorKind::LoneStar) => {
                add(
                    Severity::Error,
                    LintCode::LoneStar,
                    format!(
                        "a lone '*' is not a valid pattern: {}; {}; write \"**\" to pin every image",
                        refused::stock_crio_lone_star(list),
                        refused::library_refuses(list)
                    ),
                    Some("**".to_string()),
                );
                continue;
            }
            _ => {}
        }
        // Not reached otherwise: the library took the text as UTF-8, and
        // refuses nothing else by default.
        let (Ok(text), Some(pattern)) = (std::str::from_utf8(&entry.text), parsed[index]) else {
            continue;
        };

        let mut well_formed = true;
        match refusal {
            Some(ErrorKind::Empty) => {
                well_formed = false;
                add(
                    strict_severity,
                    LintCode::Empty,
                    "the empty pattern pins only an image with an empty name, which does not exist; \
                     remove it"
                        .to_string(),
                    None,
                );
            }
            Some(ErrorKind::Whitespace { at, ch }) => {
                well_formed = false;
                let trailing_cr = if ch == '\r' && at + 1 == text.len() {
                    " (a trailing \\r: the file was probably saved with CRLF line endings)"
                } else {
                    ""
                };
                add(
                    strict_severity,
                    LintCode::Whitespace,
                    format!(
                        "{ch:?} (U+{:04X}) at byte {at}{trailing_cr}; CRI-O compares it literally and \
                         image names never contain whitespace or control characters, so this pins \
                         nothing it was meant to: remove it",
                        u32::from(ch)
                    ),
                    Some(without_whitespace(text)),
                );
            }
            Some(ErrorKind::LeadingStar { .. }) => {
                well_formed = false;
                add(
                    strict_severity,
                    LintCode::LiteralStar,
                    format!(
                        "a '*' only at the start is a literal character: this pins only a name \
                         that really is {}; CRI-O has no suffix match, write {} to pin names \
                         containing {}",
                        show::quote(text),
                        show::quote(&format!("{text}*")),
                        show::quote(&text[1..])
                    ),
                    Some(format!("{text}*")),
                );
            }
            Some(ErrorKind::InnerStar { at }) => {
                well_formed = false;
                add(
                    strict_severity,
                    LintCode::LiteralStar,
                    format!(
                        "the '*' at byte {at} is a literal character (only a trailing '*', or the \
                         stars around \"*word*\", are wildcards): no image name contains it"
                    ),
                    None,
                );
            }
            _ => {}
        }

        match pattern {
            Pattern::Keyword("") => add(
                Severity::Warning,
                LintCode::PinsEverything,
                "\"**\" pins every image on the node: the kubelet's garbage collection will \
                 never free disk space"
                    .to_string(),
                None,
            ),
            Pattern::Glob(prefix) if !anchored => add(
                Severity::Warning,
                LintCode::UnanchoredGlob,
                format!(
                    "CRI-O does not anchor globs: this pins every name that contains {} \
                     anywhere, e.g. {} (crio-pin --anchor-globs shows the anchored reading)",
                    show::quote(prefix),
                    show::quote(&format!("evil.example/{prefix}x"))
                ),
                None,
            ),
            _ => {}
        }

        let key = canonical(&entry.text, flags);
        if let Some(&first) = seen.get(&key) {
            add(
                Severity::Warning,
                LintCode::Duplicate,
                format!(
                    "same pattern as {first} ({}) as CRI-O compares them{}; remove one",
                    show::quote(&entries[first].display()),
                    if flags.contains(Flags::CASE_SENSITIVE) { "" } else { " (ignoring case)" }
                ),
                None,
            );
        } else {
            seen.insert(key, index);
            if let Some(by) = containment.shadowed(index, pattern) {
                add(
                    Severity::Warning,
                    LintCode::Shadowed,
                    format!(
                        "pattern {by} ({}) already pins every name this one pins; it changes \
                         nothing",
                        show::quote(&entries[by].display())
                    ),
                    None,
                );
            }
        }

        if entry.source == "pause_image" && list == List::AfterReload {
            if let Some(bad) = refused::bad_reload_pause(entry, index) {
                add(
                    Severity::Error,
                    LintCode::BadPauseImage,
                    bad.message,
                    Some(crate::config::DEFAULT_PAUSE_IMAGE.to_string()),
                );
                continue;
            }
        }
        if let (Pattern::Exact(_), true) = (pattern, well_formed) {
            let artifact = artifacts.map(|a| a.0.get(&canonical(text.as_bytes(), flags)));
            reference_findings(text, flags.contains(Flags::CASE_SENSITIVE), artifact, &mut add);
        }
    }
    out
}

/// The library's verdict on one pattern on its own, with its strict rules
/// on (which include CRI-O's: a lone `*`, text that is not UTF-8): `None`
/// when it takes the pattern, else the kind of error it refuses it with.
fn verdict(raw: &[u8]) -> Option<ErrorKind> {
    match PinSet::validate([raw], Flags::STRICT) {
        Ok(()) => None,
        // One pattern past the size limit of a whole list (over 64 MiB),
        // which the library checks first: its verdict on the text itself.
        Err(e) if matches!(e.kind(), ErrorKind::TooLarge { .. }) => match std::str::from_utf8(raw) {
            Ok(text) => Pattern::parse(text, Flags::STRICT).err(),
            Err(e) => Some(ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() }),
        },
        Err(e) => Some(e.kind().clone()),
    }
}

/// `text` without the characters the library's strict mode refuses as
/// whitespace or control characters: it is asked for the next one until
/// none is left (each time about the rest of the text only, so this stays
/// linear).
fn without_whitespace(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Err(ErrorKind::Whitespace { at, ch }) = Pattern::parse(rest, Flags::STRICT) {
        kept.push_str(&rest[..at]);
        rest = &rest[at + ch.len_utf8()..];
    }
    kept.push_str(rest);
    kept
}

/// Checks an exact pattern against the names CRI-O stores: fully
/// qualified (`docker.io/library/nginx:latest`), with a tag or a digest.
/// `artifact`: None without a listing, else the artifact of the listing
/// whose canonical name the pattern is, if any.
fn reference_findings(
    text: &str,
    case_sensitive: bool,
    artifact: Option<Option<&String>>,
    add: &mut impl FnMut(Severity, LintCode, String, Option<String>),
) {
    // Matching ignores case unless --case-sensitive, the reference grammar does not.
    let subject = if case_sensitive { text.to_string() } else { text.to_lowercase() };
    let reference = match subject.parse::<Reference>() {
        Ok(r) => r,
        Err(e) => {
            let why = images::qualify(&subject).err().unwrap_or_else(|| e.to_string());
            add(
                Severity::Warning,
                LintCode::NotAReference,
                format!("not an image reference ({why}): no name CRI-O stores looks like this, it pins nothing"),
                None,
            );
            return;
        }
    };
    let repository = format!("{}/{}", reference.registry(), reference.repository());
    // The parser fills in ":latest" when neither a tag nor a digest is given.
    let untagged = reference.digest().is_none() && reference.tag() == Some("latest") && !subject.ends_with(":latest");
    if untagged {
        add(
            Severity::Warning,
            LintCode::NoTagOrDigest,
            format!(
                "pins nothing: CRI-O stores names with a tag or a digest; write {} for one tag, \
                 or the glob {} for every tag (globs are not anchored)",
                show::quote(&format!("{repository}:TAG")),
                show::quote(&format!("{repository}:*"))
            ),
            Some(format!("{repository}:*")),
        );
        return;
    }
    let whole = reference.whole();
    if whole != subject {
        // The name as CRI-O stores it keeps the case of the tag.
        let stored = images::qualify(text).ok().filter(|q| q.eq_ignore_ascii_case(&whole)).unwrap_or(whole);
        add(
            Severity::Warning,
            LintCode::NotFullyQualified,
            format!(
                "pins nothing: CRI-O compares with the fully qualified names it stores, here {}; \
                 write that instead",
                show::quote(&stored)
            ),
            Some(stored),
        );
    }
    if let Some(digest) = reference.digest() {
        if let Some(Some(name)) = artifact {
            add(
                Severity::Info,
                LintCode::ArtifactDigest,
                format!(
                    "pins the OCI artifact {} of the --images listing however it was pulled: CRI-O \
                     matches an artifact's canonical name (repository@manifest digest) as well as its \
                     reference (taken for an artifact: its {})",
                    show::quote(name),
                    images::ARTIFACT_WHY
                ),
                None,
            );
            return;
        }
        let artifacts = if artifact.is_some() {
            " (no OCI artifact of the --images listing has this canonical name)"
        } else {
            ". If it names an OCI artifact, it pins it however it was pulled (CRI-O matches an \
             artifact's canonical name, repository@manifest digest): give --images (crictl images -o \
             json) to tell"
        };
        add(
            Severity::Info,
            LintCode::DigestNeedsDigestPull,
            format!(
                "pins the image only if it was pulled by this digest ({digest}): CRI-O stores a \
                 digest name only for a pull by digest, and the repoDigest crictl shows for an \
                 image pulled by tag is computed, not stored; to pin it whichever way it was \
                 pulled, also pin its tag{artifacts}"
            ),
            None,
        );
    }
}

/// Which earlier glob or keyword pins a superset of a pattern's names: a
/// pattern whose literal text contains an earlier keyword (or unanchored
/// glob) prefix, or starts with an earlier anchored glob prefix. Asked of
/// a PinSet built from those, so a 100,000-pattern list stays fast.
struct Containment {
    /// Globs and keywords; set index to list index.
    all: Option<(PinSet, Vec<usize>)>,
    /// Keywords only: under --anchor-globs a glob never covers a keyword.
    keywords: Option<(PinSet, Vec<usize>)>,
}

impl Containment {
    fn build(parsed: &[Option<Pattern<'_>>], flags: Flags) -> Containment {
        let anchored = flags.contains(Flags::ANCHOR_GLOBS);
        let mode = if flags.contains(Flags::CASE_SENSITIVE) { Flags::CASE_SENSITIVE } else { Flags::DEFAULT };
        let mode = if anchored { mode | Flags::ANCHOR_GLOBS } else { mode };
        let build = |keywords_only: bool| {
            let mut texts = Vec::new();
            let mut indexes = Vec::new();
            for (i, p) in parsed.iter().enumerate() {
                let text = match p {
                    Some(Pattern::Keyword(w)) => format!("*{w}*"),
                    Some(Pattern::Glob(g)) if !keywords_only => {
                        if anchored {
                            format!("{g}*")
                        } else {
                            format!("*{g}*")
                        }
                    }
                    _ => continue,
                };
                texts.push(text);
                indexes.push(i);
            }
            if texts.is_empty() {
                return None;
            }
            // Every text here is a well-formed glob or keyword.
            PinSet::compile(&texts, mode).ok().map(|set| (set, indexes))
        };
        Containment { all: build(false), keywords: if anchored { build(true) } else { None } }
    }

    fn shadowed(&self, index: usize, pattern: Pattern<'_>) -> Option<usize> {
        let set = match pattern {
            Pattern::Keyword(_) if self.keywords.is_some() => &self.keywords,
            _ => &self.all,
        };
        let (set, indexes) = set.as_ref()?;
        let by = indexes[set.match_index(pattern.text().as_bytes())?];
        (by < index).then_some(by)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suggestion_drops_every_character_the_library_refuses() {
        assert_eq!(without_whitespace("quay.io/x:v1 "), "quay.io/x:v1");
        assert_eq!(without_whitespace(" a\tb\u{7f}c\u{a0}d\u{2028}e\r"), "abcde");
        assert_eq!(without_whitespace(" * "), "*");
        assert_eq!(without_whitespace("\n"), "");
        assert_eq!(without_whitespace("quay.io/*"), "quay.io/*");
    }

    #[test]
    fn the_verdict_is_the_librarys_even_past_the_size_limit() {
        assert_eq!(verdict(b"quay.io/*"), None);
        assert_eq!(verdict(b""), Some(ErrorKind::Empty));
        assert_eq!(verdict(b"*"), Some(ErrorKind::LoneStar));
        assert_eq!(verdict(b"a\xffb"), Some(ErrorKind::NotUtf8 { valid_up_to: 1 }));
        assert_eq!(verdict(b"*pause"), Some(ErrorKind::LeadingStar { at: 0 }));
        // One pattern over the limit of a whole list: the library refuses it
        // for its size first; the lint reports what is wrong with its text.
        let mut huge = vec![b'a'; crio_pin::MAX_PATTERN_BYTES + 1];
        assert_eq!(verdict(&huge), None);
        huge[3] = b' ';
        assert_eq!(verdict(&huge), Some(ErrorKind::Whitespace { at: 3, ch: ' ' }));
        huge[2] = 0xff;
        assert_eq!(verdict(&huge), Some(ErrorKind::NotUtf8 { valid_up_to: 2 }));
    }
}
