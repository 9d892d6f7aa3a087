//! What the runtime will do with each pattern, and what is likely a
//! mistake: CRI-O's traps (globs that are not anchored, names it never
//! stores), containerd's (values that are not the normalised names it
//! stores) and cri-dockerd's (prefixes that reach past a repository,
//! names Docker never reports).

use std::collections::HashMap;

use crio_pin::pattern::{canonical, ErrorKind, Pattern};
use crio_pin::{Flags, PinSet};
use serde::Serialize;

use crate::codes::LintCode;
use crate::list::{Entry, Origin};
use crate::refused::List;
use crate::runtime::Runtime;
use crate::{images, show};

/// Most severe first: `lint --severity S` shows the severities up to S.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    /// Printed `info[CODE]`, counted as notes.
    #[value(alias = "note")]
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
pub struct Artifacts(pub HashMap<Vec<u8>, String>);

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

/// Lints `entries`, the list `list`, under the rules of the runtime whose
/// `flags` they are; `artifacts` when an `--images` listing was given
/// (CRI-O's OCI artifacts).
pub fn lint(entries: &[Entry], flags: Flags, list: List, artifacts: Option<&Artifacts>) -> Vec<Finding> {
    each_entry(crate::runtimes::lint_rules(flags, artifacts).as_ref(), entries, list)
}

/// Adds one finding: `add(severity, code, message, suggestion)`.
pub type Add<'a> = dyn FnMut(Severity, LintCode, String, Option<String>) + 'a;

/// An entry as its runtime compares it: two entries with the same `key`
/// are the same pattern; `pattern` is what an earlier one may shadow.
pub struct Compared<'e> {
    pub key: Vec<u8>,
    pub pattern: Option<Pattern<'e>>,
}

/// One runtime's lint rules. The loop over the list, duplicates, shadowed
/// patterns and the positions findings are reported at are `each_entry`'s,
/// shared by every runtime.
pub trait Rules {
    /// Which earlier patterns pin a superset of a later one's names.
    fn containment(&self, _entries: &[Entry]) -> Option<Containment> {
        None
    }

    /// The findings about the entry itself, made before duplicates are
    /// looked for; the entry as the runtime compares it, or None when it
    /// is not compared (the runtime refuses or ignores it).
    fn entry<'e>(&self, entry: &'e Entry, list: List, add: &mut Add<'_>) -> Option<Compared<'e>>;

    /// Why `entries[first]` makes a later entry a duplicate.
    fn duplicate(&self, first: usize, entries: &[Entry]) -> String;

    /// The findings made after duplicates (CRI-O's: the names it stores).
    fn after(&self, _index: usize, _entry: &Entry, _list: List, _add: &mut Add<'_>) {}
}

/// The one loop over a list: each entry's own findings, then whether an
/// earlier entry is the same pattern or already pins all it pins.
fn each_entry(rules: &dyn Rules, entries: &[Entry], list: List) -> Vec<Finding> {
    let containment = rules.containment(entries);
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut out = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let mut add = finder(&mut out, entry, index, list);
        let Some(compared) = rules.entry(entry, list, &mut add) else { continue };
        if let Some(&first) = seen.get(&compared.key) {
            add(Severity::Warning, LintCode::Duplicate, rules.duplicate(first, entries), None);
        } else {
            seen.insert(compared.key, index);
            let shadowing = containment.as_ref().zip(compared.pattern).and_then(|(c, p)| c.shadowed(index, p));
            if let Some(by) = shadowing {
                add(
                    Severity::Warning,
                    LintCode::Shadowed,
                    format!(
                        "pattern {by} ({}) already pins every name this one pins; it changes nothing",
                        show::quote(&entries[by].display())
                    ),
                    None,
                );
            }
        }
        rules.after(index, entry, list, &mut add);
    }
    out
}

/// The findings of one entry, each made by `add(severity, code, message,
/// suggestion)`.
fn finder<'a>(
    out: &'a mut Vec<Finding>,
    entry: &'a Entry,
    index: usize,
    list: List,
) -> impl FnMut(Severity, LintCode, String, Option<String>) + 'a {
    move |severity, code, message, suggestion| {
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
    }
}

/// The library refuses a pattern that is not UTF-8 under every runtime's
/// rules; CRI-O's TOML decoder refuses the file.
pub fn not_utf8(valid_up_to: usize, runtime: Runtime) -> String {
    let refuses = match runtime {
        Runtime::Crio => "CRI-O's TOML decoder refuses the file".to_string(),
        other => format!("{}'s configuration cannot hold it, and the library refuses the list", other.name()),
    };
    format!("not valid UTF-8 (bad byte at offset {valid_up_to}): {refuses}; fix the file's encoding")
}

/// The library's verdict on one pattern on its own, with its strict rules
/// on (which include CRI-O's: a lone `*`, text that is not UTF-8): `None`
/// when it takes the pattern, else the kind of error it refuses it with.
pub fn verdict(raw: &[u8]) -> Option<ErrorKind> {
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
pub fn without_whitespace(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Err(ErrorKind::Whitespace { at, ch }) = Pattern::parse(rest, Flags::STRICT) {
        kept.push_str(&rest[..at]);
        rest = &rest[at + ch.len_utf8()..];
    }
    kept.push_str(rest);
    kept
}

/// Which earlier glob or keyword pins a superset of a pattern's names: a
/// pattern whose literal text contains an earlier keyword (or unanchored
/// glob) prefix, or starts with an earlier anchored glob prefix. Asked of
/// a PinSet built from those, so a 100,000-pattern list stays fast.
pub struct Containment {
    /// Globs and keywords (cri-dockerd: prefixes and bare repositories);
    /// set index to list index.
    all: Option<(PinSet, Vec<usize>)>,
    /// Keywords only: under --anchor-globs a glob never covers a keyword.
    keywords: Option<(PinSet, Vec<usize>)>,
    /// cri-dockerd's prefixes only: a bare repository never covers a
    /// prefix (`nginx*` pins `nginx-exporter:1`, `nginx` does not).
    globs: Option<(PinSet, Vec<usize>)>,
}

impl Containment {
    pub fn build(parsed: &[Option<Pattern<'_>>], flags: Flags) -> Containment {
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
        Containment { all: build(false), keywords: if anchored { build(true) } else { None }, globs: None }
    }

    /// The same under cri-dockerd's rules: its prefixes (anchored; `*`
    /// alone is every name) and bare repositories, asked of a set compiled
    /// under them.
    pub fn build_cri_dockerd(parsed: &[Option<Pattern<'_>>]) -> Containment {
        let build = |repositories: bool| {
            let mut texts = Vec::new();
            let mut indexes = Vec::new();
            for (i, p) in parsed.iter().enumerate() {
                let text = match p {
                    Some(Pattern::Glob(g)) => format!("{g}*"),
                    Some(Pattern::Repository(r)) if repositories => r.to_string(),
                    _ => continue,
                };
                texts.push(text);
                indexes.push(i);
            }
            if texts.is_empty() {
                return None;
            }
            PinSet::compile(&texts, Flags::CRI_DOCKERD).ok().map(|set| (set, indexes))
        };
        Containment { all: build(true), keywords: None, globs: build(false) }
    }

    fn shadowed(&self, index: usize, pattern: Pattern<'_>) -> Option<usize> {
        let set = match pattern {
            Pattern::Keyword(_) if self.keywords.is_some() => &self.keywords,
            Pattern::Glob(_) if self.globs.is_some() => &self.globs,
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

    fn entries(texts: &[&str]) -> Vec<Entry> {
        let file: std::rc::Rc<str> = "f".into();
        texts.iter().enumerate().map(|(i, t)| Entry::in_file(t.as_bytes().to_vec(), &file, i + 1)).collect()
    }

    /// (index, code, severity, suggestion) of each finding.
    fn found(findings: &[Finding]) -> Vec<(usize, &'static str, &'static str, Option<&str>)> {
        findings.iter().map(|f| (f.index, f.code.as_str(), f.severity.as_str(), f.suggestion.as_deref())).collect()
    }

    const HEX: &str = "0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";

    #[test]
    fn containerd_values_are_checked_against_the_names_it_stores() {
        let id = format!("sha256:{HEX}");
        let tag_and_digest = format!("quay.io/a:1@sha256:{HEX}");
        let by_digest = format!("quay.io/a@sha256:{HEX}");
        let list = entries(&[
            "nginx",
            "registry.k8s.io/pause",
            &tag_and_digest,
            "Quay.io/a:1",
            "quay.io/*",
            &id,
            "docker.io/library/nginx:latest",
            HEX,
            "",
        ]);
        let released = lint(&list, Flags::CONTAINERD, List::Effective, None);
        assert_eq!(
            found(&released),
            [
                (0, "not-normalized", "warning", Some("docker.io/library/nginx:latest")),
                (1, "not-normalized", "warning", Some("registry.k8s.io/pause:latest")),
                (2, "not-normalized", "warning", Some(by_digest.as_str())),
                (3, "not-normalized", "warning", Some("quay.io/a:1")),
                (4, "not-a-reference", "warning", None),
                (7, "not-a-reference", "warning", Some(id.as_str())),
                (8, "not-a-reference", "warning", None),
            ]
        );
        assert!(released[4].message.contains("no wildcards"), "{}", released[4].message);
        assert!(released[2].message.contains("by digest only"), "{}", released[2].message);
        // With the fix PRs the value is normalised: a note that released
        // containerd differs, the same host warning, refused non-references,
        // and duplicates once normalised.
        let normalized = lint(&list, Flags::CONTAINERD_NORMALIZED, List::Effective, None);
        assert_eq!(
            found(&normalized),
            [
                (0, "not-normalized", "info", Some("docker.io/library/nginx:latest")),
                (1, "not-normalized", "info", Some("registry.k8s.io/pause:latest")),
                (2, "not-normalized", "info", Some(by_digest.as_str())),
                (3, "not-normalized", "warning", Some("quay.io/a:1")),
                (4, "not-a-reference", "error", None),
                (6, "duplicate", "warning", None),
                (7, "not-a-reference", "error", Some(id.as_str())),
                (8, "not-a-reference", "error", None),
            ]
        );
        // Every finding names the runtime it is about, never CRI-O.
        assert!(released.iter().chain(&normalized).all(|f| !f.message.contains("CRI-O")));
    }

    #[test]
    fn cri_dockerd_prefixes_and_names_docker_never_reports() {
        let list = entries(&[
            "nginx*",
            "registry.k8s.io/kube-*",
            "docker.io/library/redis:7",
            "docker.io/bitnami/etcd*",
            "*etcd*",
            "*",
            " nginx* ",
            "nginx:1",
            " ",
            "quay.io/a b:1",
            "nginx:1.2*",
        ]);
        let findings = lint(&list, Flags::CRI_DOCKERD, List::Effective, None);
        assert_eq!(
            found(&findings),
            [
                (0, "repository-prefix", "warning", Some("nginx")),
                (2, "not-familiar", "warning", Some("redis:7")),
                (3, "repository-prefix", "warning", Some("bitnami/etcd")),
                (3, "not-familiar", "warning", Some("bitnami/etcd*")),
                (4, "literal-star", "warning", None),
                (5, "pins-everything", "warning", None),
                (6, "repository-prefix", "warning", Some("nginx")),
                (6, "duplicate", "warning", None),
                (7, "shadowed", "warning", None),
                (8, "empty", "warning", None),
                (9, "whitespace", "warning", None),
                (9, "shadowed", "warning", None),
                (10, "shadowed", "warning", None),
            ]
        );
        assert!(findings.iter().all(|f| !f.message.contains("CRI-O")));
    }

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
