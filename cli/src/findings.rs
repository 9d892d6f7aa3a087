//! What `lint` reports and the one loop that makes it: findings, their
//! severities and the fix each carries as data (`Fix`: what to write, or
//! no entry; `lint --fix` weighs and applies it, `crate::fix`), the rules a
//! runtime gives (`Rules`, implemented in each runtime's module),
//! duplicates and shadowed patterns, and the library's verdict on a
//! pattern's form. Below the runtimes: it names none of them.

use std::collections::HashMap;

use crio_pin::pattern::{canonical, ErrorKind, Pattern};
use crio_pin::{Flags, PinSet};
use serde::Serialize;

use crate::codes::LintCode;
use crate::list::{Entry, Origin};
use crate::refused::{is_control, List};
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
    /// What to write instead, when a text would do (JSON's; `fix` in words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// What would mend the entry, as `lint --fix` applies it once it has
    /// checked what the change pins (`crate::fix`).
    #[serde(skip)]
    pub fix: Option<Fix>,
}

/// What a finding says would mend its entry, as data: the message says it
/// in words, `lint --fix` applies it where that keeps what is pinned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fix {
    /// This text in place of the entry's.
    Write(String),
    /// No entry: it pins nothing, or (`covered_by`) nothing the entry at
    /// that index does not pin too.
    Remove { covered_by: Option<usize> },
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

/// Adds one finding: `add(severity, code, message, fix)`.
pub type Add<'a> = dyn FnMut(Severity, LintCode, String, Option<Fix>) + 'a;

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

    /// Why a later `entry`, the same pattern as `entries[first]`, is
    /// harmless where it is (a note, nothing to change); None: a duplicate.
    fn harmless_repeat(&self, _first: usize, _entry: &Entry, _entries: &[Entry]) -> Option<String> {
        None
    }

    /// The findings made after duplicates (CRI-O's: the names it stores).
    fn after(&self, _index: usize, _entry: &Entry, _list: List, _add: &mut Add<'_>) {}
}

/// The one loop over a list: each entry's own findings, then whether an
/// earlier entry is the same pattern or already pins all it pins.
pub fn each_entry(rules: &dyn Rules, entries: &[Entry], list: List) -> Vec<Finding> {
    let containment = rules.containment(entries);
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut out = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let mut add = finder(&mut out, entry, index, list);
        control_character(&entry.text, &mut add);
        let Some(compared) = rules.entry(entry, list, &mut add) else { continue };
        if let Some(&first) = seen.get(&compared.key) {
            match rules.harmless_repeat(first, entry, entries) {
                Some(why) => add(Severity::Info, LintCode::Duplicate, why, None),
                None => {
                    let fix = Fix::Remove { covered_by: Some(first) };
                    add(Severity::Warning, LintCode::Duplicate, rules.duplicate(first, entries), Some(fix));
                }
            }
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
                    Some(Fix::Remove { covered_by: Some(by) }),
                );
            }
        }
        rules.after(index, entry, list, &mut add);
    }
    out
}

/// The findings of one entry, each made by `add(severity, code, message,
/// fix)`.
fn finder<'a>(
    out: &'a mut Vec<Finding>,
    entry: &'a Entry,
    index: usize,
    list: List,
) -> impl FnMut(Severity, LintCode, String, Option<Fix>) + 'a {
    move |severity, code, message, fix| {
        out.push(Finding {
            index,
            list: list.as_str(),
            pattern: entry.display(),
            severity,
            code,
            message,
            origin: entry.origin(),
            suggestion: match &fix {
                Some(Fix::Write(text)) => Some(text.clone()),
                _ => None,
            },
            fix,
        })
    }
}

/// The library refuses a pattern that is not UTF-8 under every runtime's
/// rules; `refuses`: what the runtime does with it (`Facts::on_not_utf8`).
pub fn not_utf8(valid_up_to: usize, refuses: &str) -> String {
    format!("not valid UTF-8 (bad byte at offset {valid_up_to}): {refuses}; fix the file's encoding")
}

/// The library's verdict on one pattern on its own, with its strict rules
/// on (which include CRI-O's: a lone `*`, text that is not UTF-8): `None`
/// when it takes the pattern, else the kind of error it refuses it with.
pub fn verdict(raw: &[u8]) -> Option<ErrorKind> {
    match PinSet::validate([raw], Flags::STRICT) {
        Ok(_) => None,
        // One pattern past the size limit of a whole list (over 64 MiB),
        // which the library checks first: its verdict on the text itself.
        Err(e) if matches!(e.kind(), ErrorKind::TooLarge { .. }) => match std::str::from_utf8(raw) {
            Ok(text) => Pattern::parse(text, Flags::STRICT).err(),
            Err(e) => Some(ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() }),
        },
        Err(e) => Some(e.kind().clone()),
    }
}

/// `text` without the whitespace the library's strict mode refuses: it is
/// asked for the next one until none is left (each time about the rest of
/// the text only, so this stays linear). None when it holds a control
/// character (`is_control`), which is never removed: which name was meant
/// cannot be told.
pub fn without_whitespace(text: &str) -> Option<String> {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Err(ErrorKind::Whitespace { at, ch }) = Pattern::parse(rest, Flags::STRICT) {
        if is_control(ch) {
            return None;
        }
        kept.push_str(&rest[..at]);
        rest = &rest[at + ch.len_utf8()..];
    }
    kept.push_str(rest);
    Some(kept)
}

/// The first control character of `text` with its byte offset (bytes that
/// are not UTF-8 are `invalid-utf8`'s, skipped here).
fn first_control(text: &[u8]) -> Option<(usize, char)> {
    let mut offset = 0;
    for chunk in text.utf8_chunks() {
        if let Some((at, ch)) = chunk.valid().char_indices().find(|&(_, c)| is_control(c)) {
            return Some((offset + at, ch));
        }
        offset += chunk.valid().len() + chunk.invalid().len();
    }
    None
}

/// The `control-character` error of an entry that holds one.
fn control_character(text: &[u8], add: &mut Add<'_>) {
    let Some((at, ch)) = first_control(text) else { return };
    add(
        Severity::Error,
        LintCode::ControlCharacter,
        format!(
            "the control character \\u{{{:x}}} (U+{:04X}) at byte {at}: no image name holds one, and no typing slip \
             makes one (the file may be damaged, or a program wrote it wrong), so the name meant cannot be told \
             and lint --fix leaves it as it is: write the pattern again by hand",
            u32::from(ch),
            u32::from(ch)
        ),
        None,
    );
}

/// Which earlier glob or keyword pins a superset of a pattern's names: a
/// pattern whose literal text contains an earlier keyword (or unanchored
/// glob) prefix, or starts with an earlier anchored glob prefix. Asked of
/// a PinSet built from those, so a 100,000-pattern list stays fast.
pub struct Containment {
    /// Globs and keywords (cri-dockerd: prefixes and bare repositories);
    /// set index to list index.
    pub all: Option<(PinSet, Vec<usize>)>,
    /// Keywords only: under --anchor-globs a glob never covers a keyword.
    pub keywords: Option<(PinSet, Vec<usize>)>,
    /// cri-dockerd's prefixes only: a bare repository never covers a
    /// prefix (`nginx*` pins `nginx-exporter:1`, `nginx` does not).
    pub globs: Option<(PinSet, Vec<usize>)>,
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
