//! What the runtime will do with each pattern, and what is likely a
//! mistake: CRI-O's traps (globs that are not anchored, names it never
//! stores), containerd's (values that are not the normalised names it
//! stores) and cri-dockerd's (prefixes that reach past a repository,
//! names Docker never reports).

use std::collections::HashMap;

use crio_pin::pattern::{canonical, ErrorKind, Pattern};
use crio_pin::{Flags, PinSet};
use oci_spec::distribution::Reference;
use serde::Serialize;

use crate::codes::LintCode;
use crate::list::{Entry, Origin};
use crate::refused::{self, List};
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

/// Lints `entries`, the list `list`, under the rules of the runtime whose
/// `flags` they are; `artifacts` when an `--images` listing was given
/// (CRI-O's OCI artifacts).
pub fn lint(entries: &[Entry], flags: Flags, list: List, artifacts: Option<&Artifacts>) -> Vec<Finding> {
    match Runtime::of(flags) {
        Runtime::Crio => each_entry(&CrioRules { flags, artifacts }, entries, list),
        containerd @ (Runtime::Containerd | Runtime::ContainerdNormalized) => {
            each_entry(&ContainerdRules { normalized: containerd == Runtime::ContainerdNormalized }, entries, list)
        }
        Runtime::CriDockerd => each_entry(&CriDockerdRules, entries, list),
    }
}

/// Adds one finding: `add(severity, code, message, suggestion)`.
type Add<'a> = dyn FnMut(Severity, LintCode, String, Option<String>) + 'a;

/// An entry as its runtime compares it: two entries with the same `key`
/// are the same pattern; `pattern` is what an earlier one may shadow.
struct Compared<'e> {
    key: Vec<u8>,
    pattern: Option<Pattern<'e>>,
}

/// One runtime's lint rules. The loop over the list, duplicates, shadowed
/// patterns and the positions findings are reported at are `each_entry`'s,
/// shared by every runtime.
trait Rules {
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
fn not_utf8(valid_up_to: usize, runtime: Runtime) -> String {
    let refuses = match runtime {
        Runtime::Crio => "CRI-O's TOML decoder refuses the file".to_string(),
        other => format!("{}'s configuration cannot hold it, and the library refuses the list", other.name()),
    };
    format!("not valid UTF-8 (bad byte at offset {valid_up_to}): {refuses}; fix the file's encoding")
}

/// CRI-O's rules: its globs and keywords, the library's verdict on each
/// pattern's form, and the names CRI-O stores.
struct CrioRules<'a> {
    flags: Flags,
    artifacts: Option<&'a Artifacts>,
}

impl Rules for CrioRules<'_> {
    fn containment(&self, entries: &[Entry]) -> Option<Containment> {
        let parsed: Vec<Option<Pattern<'_>>> = entries
            .iter()
            .map(|e| std::str::from_utf8(&e.text).ok().and_then(|t| Pattern::parse(t, Flags::DEFAULT).ok()))
            .collect();
        Some(Containment::build(&parsed, self.flags))
    }

    fn entry<'e>(&self, entry: &'e Entry, list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let flags = self.flags;
        let anchored = flags.contains(Flags::ANCHOR_GLOBS);
        // Every finding about the pattern's form is the library's verdict
        // on it, asked once: the tool checks no rule of its own.
        let refusal = verdict(&entry.text);
        match refusal {
            Some(ErrorKind::NotUtf8 { valid_up_to }) => {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(valid_up_to, Runtime::Crio), None);
                return None;
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
                return None;
            }
            _ => {}
        }
        // Not reached otherwise: the library took the text as UTF-8, and
        // refuses nothing else by default.
        let text = std::str::from_utf8(&entry.text).ok()?;
        let pattern = Pattern::parse(text, Flags::DEFAULT).ok()?;
        crio_form_findings(text, refusal, flags, add);
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
        Some(Compared { key: canonical(&entry.text, flags), pattern: Some(pattern) })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        format!(
            "same pattern as {first} ({}) as CRI-O compares them{}; remove one",
            show::quote(&entries[first].display()),
            if self.flags.contains(Flags::CASE_SENSITIVE) { "" } else { " (ignoring case)" }
        )
    }

    fn after(&self, index: usize, entry: &Entry, list: List, add: &mut Add<'_>) {
        let flags = self.flags;
        let Ok(text) = std::str::from_utf8(&entry.text) else { return };
        let Ok(pattern) = Pattern::parse(text, Flags::DEFAULT) else { return };
        let well_formed = verdict(&entry.text).is_none();
        if entry.source == "pause_image" && list == List::AfterReload {
            if let Some(bad) = refused::bad_reload_pause(entry, index) {
                add(
                    Severity::Error,
                    LintCode::BadPauseImage,
                    bad.message,
                    Some(crate::config::DEFAULT_PAUSE_IMAGE.to_string()),
                );
                return;
            }
        }
        if let (Pattern::Exact(_), true) = (pattern, well_formed) {
            let artifact = self.artifacts.map(|a| a.0.get(&canonical(text.as_bytes(), flags)));
            reference_findings(text, flags.contains(Flags::CASE_SENSITIVE), artifact, add);
        }
    }
}

/// The findings about a pattern's form that CRI-O takes and the library's
/// strict mode refuses (errors under --strict); whether there were none.
fn crio_form_findings(text: &str, refusal: Option<ErrorKind>, flags: Flags, add: &mut Add<'_>) -> bool {
    // Under --strict the library refuses these; by default CRI-O takes them.
    let strict_severity = if flags.contains(Flags::STRICT) { Severity::Error } else { Severity::Warning };
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
    well_formed
}

/// containerd's `pinned_images`: each value is compared with the names
/// containerd stores for an image (its repoTag and repoDigest, normalised
/// as `ParseDockerRef` writes them, and its ID `sha256:…`), as written
/// (2.x as released) or normalised first (`ContainerdNormalized`: its fix
/// PRs, where a value that is no reference never pins and the library
/// refuses it).
struct ContainerdRules {
    /// The fix PRs' rules: values normalised before they are compared.
    normalized: bool,
}

impl Rules for ContainerdRules {
    fn entry<'e>(&self, entry: &'e Entry, _list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let normalized_rules = self.normalized;
        let runtime = if normalized_rules { Runtime::ContainerdNormalized } else { Runtime::Containerd };
        let text = match std::str::from_utf8(&entry.text) {
            Ok(text) => text,
            Err(e) => {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(e.valid_up_to(), runtime), None);
                return None;
            }
        };
        let stored = if images::is_image_id(text) { Ok(text.to_string()) } else { images::normalized(text) };
        let stored = match stored {
            Ok(stored) => stored,
            Err(why) => {
                let bare_id = (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()))
                    .then(|| format!("sha256:{}", text.to_ascii_lowercase()));
                let hint = if let Some(id) = &bare_id {
                    format!("; containerd names an image's ID record {}", show::quote(id))
                } else if text.contains('*') {
                    "; containerd has no wildcards (a '*' is compared as a character): name each image in full"
                        .to_string()
                } else {
                    String::new()
                };
                let (severity, does) = if normalized_rules {
                    (
                        Severity::Error,
                        "containerd's fix PRs never pin it (they skip it without a word), and the library \
                     refuses the list",
                    )
                } else {
                    (Severity::Warning, "containerd stores no name like it, so this pins nothing")
                };
                add(
                    severity,
                    LintCode::NotAReference,
                    format!("not an image reference ({why}): {does}{hint}"),
                    bare_id,
                );
                return None;
            }
        };
        // containerd keeps a host as written: a name pulled by the
        // lower-case host, as references are written, never equals it.
        let host = stored.split('/').next().unwrap_or_default();
        if host.bytes().any(|b| b.is_ascii_uppercase()) {
            let (first, rest) = text.split_once('/').unwrap_or((text, ""));
            let lower = images::normalized(&format!("{}/{rest}", first.to_ascii_lowercase())).ok();
            let instead = lower.as_ref().map(|w| format!("; write {}", show::quote(w))).unwrap_or_default();
            add(
                Severity::Warning,
                LintCode::NotNormalized,
                format!(
                    "the registry host {} has upper case: containerd keeps a host as it is written, so this \
                 equals only a name pulled as {}, and an image pulled by the lower-case host is stored \
                 otherwise{instead}",
                    show::quote(host),
                    show::quote(&stored)
                ),
                lower,
            );
        } else if stored != text {
            let how = if text.contains('@') && stored.len() < text.len() {
                "an image pulled by tag and digest is stored by digest only, "
            } else {
                ""
            };
            let (severity, message) = if normalized_rules {
                (
                    Severity::Info,
                    format!(
                        "containerd's fix PRs pin it as {} ({how}the value normalised); containerd as released \
                     compares the value as written and pins nothing with it: write {} to pin under both",
                        show::quote(&stored),
                        show::quote(&stored)
                    ),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "pins nothing: containerd stores the names it pulls normalised ({how}here {}) and \
                     compares the value as written; write that instead",
                        show::quote(&stored)
                    ),
                )
            };
            add(severity, LintCode::NotNormalized, message, Some(stored.clone()));
        }
        // containerd as released compares the values as written; its fix
        // PRs, normalised.
        let compared = if normalized_rules { stored } else { text.to_string() };
        Some(Compared { key: compared.into_bytes(), pattern: None })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        let how = if self.normalized { " once normalised" } else { "" };
        format!(
            "the same value{how} as pattern {first} ({}): one of them is enough",
            show::pattern(entries[first].key.as_deref(), &entries[first].display())
        )
    }
}

/// cri-dockerd's `--pinned-images` (PR #571): each value trimmed, then a
/// trailing `*` makes an anchored prefix, a tag or digest an exact name,
/// anything else a bare repository; compared with the familiar names
/// Docker reports (`nginx:1.25`), case-sensitively.
struct CriDockerdRules;

impl Rules for CriDockerdRules {
    fn containment(&self, entries: &[Entry]) -> Option<Containment> {
        let parsed: Vec<Option<Pattern<'_>>> = entries
            .iter()
            .map(|e| std::str::from_utf8(&e.text).ok().and_then(|t| Pattern::parse(t, Flags::CRI_DOCKERD).ok()))
            .collect();
        Some(Containment::build_cri_dockerd(&parsed))
    }

    fn entry<'e>(&self, entry: &'e Entry, _list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let parsed = std::str::from_utf8(&entry.text).ok().and_then(|t| Pattern::parse(t, Flags::CRI_DOCKERD).ok());
        let Some(pattern) = parsed else {
            if let Err(e) = std::str::from_utf8(&entry.text) {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(e.valid_up_to(), Runtime::CriDockerd), None);
            }
            return None;
        };
        let literal = pattern.text();
        match pattern {
            Pattern::Blank => {
                add(
                    Severity::Warning,
                    LintCode::Empty,
                    "a blank value, which cri-dockerd ignores (it trims every value): remove it".to_string(),
                    None,
                );
                return None;
            }
            Pattern::Glob("") => add(
                Severity::Warning,
                LintCode::PinsEverything,
                "\"*\" is the prefix of every name: it pins every image on the node, untagged ones too, and \
             the kubelet's garbage collection will never free disk space"
                    .to_string(),
                None,
            ),
            _ => {}
        }
        cri_dockerd_text_findings(literal, add);
        cri_dockerd_name_findings(pattern, add);
        // As cri-dockerd reads them: trimmed; a prefix is not the same
        // pattern as its text alone.
        let kind = match pattern {
            Pattern::Glob(_) => 1,
            Pattern::Repository(_) => 2,
            _ => 0,
        };
        let key = [&[kind][..], literal.as_bytes()].concat();
        Some(Compared { key, pattern: Some(pattern) })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        format!(
            "same pattern as {first} ({}) once cri-dockerd trims it; remove one",
            show::quote(&entries[first].display())
        )
    }
}

/// cri-dockerd: characters no name Docker reports has (a comma, a '*'
/// that is not the trailing one, whitespace inside).
fn cri_dockerd_text_findings(literal: &str, add: &mut Add<'_>) {
    if literal.contains(',') {
        let parts = crate::runtimes::cri_dockerd::split_flag_value(literal);
        let what = match &parts {
            Ok(parts) => {
                let quoted: Vec<String> = parts.iter().map(|p| show::quote(p.trim())).collect();
                format!("cri-dockerd splits it into the {} patterns {}", parts.len(), quoted.join(", "))
            }
            Err(why) => format!("cri-dockerd refuses to start on it ({why})"),
        };
        add(
            Severity::Warning,
            LintCode::CommaList,
            format!(
                "a comma: no image name has one, so as one pattern this pins nothing; cri-dockerd's \
             --pinned-images is a comma-separated list (a pflag StringSlice, read as CSV), and given as \
             a flag value {what}: write each part as its own value"
            ),
            None,
        );
    }
    if let Some(at) = literal.find('*') {
        add(
            Severity::Warning,
            LintCode::LiteralStar,
            format!(
                "the '*' at byte {at} of {} is a literal character: cri-dockerd has no keyword or suffix \
             match (only one trailing '*' is a wildcard, a prefix), and no name Docker reports \
             contains a '*'",
                show::quote(literal)
            ),
            None,
        );
    } else if let Some((at, ch)) = literal.char_indices().find(|(_, c)| c.is_whitespace() || c.is_control()) {
        add(
            Severity::Warning,
            LintCode::Whitespace,
            format!(
                "{ch:?} (U+{:04X}) at byte {at} of {}: cri-dockerd trims only a value's ends, and no name \
             Docker reports holds whitespace or control characters, so this pins nothing it was \
             meant to: remove it",
                u32::from(ch),
                show::quote(literal)
            ),
            None,
        );
    }
}

/// cri-dockerd: names it compares otherwise than they read (a prefix that
/// reaches past a repository, a Docker Hub name Docker never reports).
fn cri_dockerd_name_findings(pattern: Pattern<'_>, add: &mut Add<'_>) {
    let literal = pattern.text();
    if let Pattern::Glob(prefix) = pattern {
        // A prefix that ends inside a repository's name: `nginx*` pins
        // `nginx-exporter` too. (One that ends at a '/', '-', ':', …,
        // or in a tag, reads as meant.)
        let last = prefix.rsplit('/').next().unwrap_or_default();
        let cut_in_name = prefix.ends_with(|c: char| c.is_ascii_alphanumeric())
            && !last.contains(':')
            && !prefix.contains('@')
            && !prefix.contains('*');
        if cut_in_name {
            // (As Docker reports it: see not-familiar below.)
            let repository = images::familiar(prefix).filter(|f| !f.is_empty()).unwrap_or(prefix);
            add(
                Severity::Warning,
                LintCode::RepositoryPrefix,
                format!(
                    "a prefix: this pins every name that starts with {}, e.g. {} too, not only the \
                 repository {}; write the bare repository {} to pin its every tag and digest",
                    show::quote(prefix),
                    show::quote(&format!("{prefix}-exporter:1")),
                    show::quote(prefix),
                    show::quote(repository)
                ),
                Some(repository.to_string()),
            );
        }
    }
    if let Some(short) = images::familiar(literal) {
        let glob = matches!(pattern, Pattern::Glob(_));
        let instead = match (short, glob) {
            ("", _) => None,
            (short, true) => Some(format!("{short}*")),
            (short, false) => Some(short.to_string()),
        };
        let write = instead.as_ref().map(|i| format!("; write {}", show::quote(i))).unwrap_or_default();
        add(
            Severity::Warning,
            LintCode::NotFamiliar,
            format!(
                "pins nothing: Docker reports an image of Docker Hub by its familiar name, without \
             docker.io/ (and library/ before a one-part name: nginx:1.25, bitnami/etcd:3.5), and \
             cri-dockerd compares with those names{write}"
            ),
            instead,
        );
    }
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
fn reference_findings(text: &str, case_sensitive: bool, artifact: Option<Option<&String>>, add: &mut Add<'_>) {
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
        Containment { all: build(false), keywords: if anchored { build(true) } else { None }, globs: None }
    }

    /// The same under cri-dockerd's rules: its prefixes (anchored; `*`
    /// alone is every name) and bare repositories, asked of a set compiled
    /// under them.
    fn build_cri_dockerd(parsed: &[Option<Pattern<'_>>]) -> Containment {
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
