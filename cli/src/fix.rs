//! `lint --fix`: the list lint's findings would leave, written for its
//! runtime by the runtime's own writer (`Model::write_list`, which
//! `translate` writes with), never over the operator's files.
//!
//! Each finding carries its fix as data (`findings::Fix`): a text to
//! write, or no entry at all. A fix is applied only when it loses no pin
//! and gains none but the one meant, and that is checked, not assumed: a
//! replacement is judged as `translate` judges a translation, within the
//! same runtime ([`crate::translate::judge`], over the images both texts
//! name), and is applied when it pins the same images (`exact`; a
//! replacement that pins more, `wider`, is the operator's choice), or when
//! the entry pinned nothing and the replacement is an exact name, the one
//! it was evidently meant to be (a gain, said as one). A removal is applied
//! when the entry pins nothing, or when the earlier entry that pins all it
//! pins stays as it is. Anything else (a wildcard that would pin more, a
//! name that would pin fewer, the pause image, which the runtime itself
//! sets) is left as it was and named, with what lint suggests. Fixes are
//! applied in rounds, each on the list the last one left, until lint finds
//! nothing more to apply: a fixed entry may have more to fix
//! (`" nginx:1"`, then `nginx:1` to `docker.io/library/nginx:1`).
//!
//! Before the rounds, a list the runtime ignores for its key (CRI-O's
//! `pinned-images`: an `ignored-key` warning) is renamed to the key it
//! reads. A drop-in's list replaces the earlier files' and a later file's
//! replaces it, so the rename would drop the pins of the list in force or
//! change nothing; the list written is instead the union, in the order
//! the files are read (the list in force, then each renamed list), for the
//! last of those files: nothing pinned is dropped (checked over the images
//! the old list's texts name, [`crate::translate::first_lost`]), and the
//! renamed entries are pinned, as their key's author meant.

use crio_pin::Flags;
use serde::Serialize;

use crate::codes::LintCode;
use crate::findings::{Finding, Fix, Severity};
use crate::list::{Entry, IgnoredList, Origin, Resolved, Warning};
use crate::refused::List;
use crate::runtime::Runtime;
use crate::show;
use crate::translate::{judge, Fidelity};

/// More rounds than any chain of fixes needs (each round changes at
/// least one entry, or is the last).
const ROUNDS: usize = 8;

/// The list `lint --fix` writes, with what it changed and what it left.
pub struct Fixed {
    pub entries: Vec<Entry>,
    /// Each change, in the order it was made.
    pub changes: Vec<Change>,
    /// Each warning or error left, with why it was not fixed.
    pub left: Vec<Left>,
    /// Errors left: the list still has them (exit status 1).
    pub errors_left: usize,
    /// The configuration's warnings that stand: all but the keys renamed.
    pub warnings_left: Vec<Warning>,
}

/// One change (`lint --fix --json`'s `changes`; a `changed:` line of the
/// written list's header).
#[derive(Serialize)]
pub struct Change {
    /// The finding the change mends (or the configuration warning:
    /// `ignored-key`).
    pub code: &'static str,
    /// The entry as it was.
    pub pattern: String,
    #[serde(flatten)]
    pub origin: Origin,
    /// The text written in its place; none when the entry was removed.
    pub now: Option<String>,
    /// What changed and why it keeps what is pinned (or what it gains).
    pub message: String,
}

/// A warning or error left as it was (`left`; a `left:` line).
#[derive(Serialize)]
pub struct Left {
    pub code: LintCode,
    pub severity: Severity,
    pub pattern: String,
    #[serde(flatten)]
    pub origin: Origin,
    /// Why it was not fixed, and what to do.
    pub message: String,
}

impl Change {
    /// As the header says it.
    pub fn said(&self) -> String {
        format!("{} [{}]: {}", named(&self.pattern, &self.origin), self.code, self.message)
    }
}

impl Left {
    pub fn said(&self) -> String {
        format!("{} {}[{}]: {}", named(&self.pattern, &self.origin), self.severity.as_str(), self.code, self.message)
    }
}

/// What one round decided for an entry.
#[derive(Clone)]
enum Decision {
    Remove,
    /// The text, and whether it pins the same images (else: the entry
    /// pinned nothing, and this is an exact name).
    Write(String, bool),
}

/// `entries` (a list of `runtime`'s, linted under `flags`) with every fix
/// applied that keeps what its entry pins, or gives an entry that pinned
/// nothing the exact name it was meant to be.
pub fn fix(entries: &[Entry], flags: Flags, runtime: Runtime) -> Fixed {
    let mut current: Vec<Entry> = entries.to_vec();
    let mut changes = Vec::new();
    for _ in 0..ROUNDS {
        let findings = crate::lint::lint(&current, flags, List::Effective, None);
        let mut decided: Vec<Option<Decision>> = vec![None; current.len()];
        // Findings come in the order of their entries: a cover's decision
        // is made before the entries it covers are looked at.
        for f in &findings {
            if decided[f.index].is_some() || not_fixed_here(&current[f.index]) {
                continue;
            }
            let decision = match &f.fix {
                // A cover changed in this round is looked at again in the next.
                Some(Fix::Remove { covered_by: Some(c) }) if decided[*c].is_none() => Decision::Remove,
                Some(Fix::Remove { covered_by: None }) => Decision::Remove,
                Some(Fix::Write(text)) => match checked(&current[f.index].display(), text, runtime) {
                    Ok(same) => Decision::Write(text.clone(), same),
                    Err(_) => continue,
                },
                _ => continue,
            };
            changes.push(said(f, &current, &decision));
            decided[f.index] = Some(decision);
        }
        if decided.iter().all(Option::is_none) {
            break;
        }
        current = current
            .into_iter()
            .zip(decided)
            .filter_map(|(entry, d)| match d {
                None => Some(entry),
                Some(Decision::Remove) => None,
                Some(Decision::Write(text, _)) => Some(Entry { text: text.into_bytes(), ..entry }),
            })
            .collect();
    }
    let findings = crate::lint::lint(&current, flags, List::Effective, None);
    let left: Vec<Left> =
        findings.iter().filter(|f| f.severity != Severity::Info).map(|f| left_why(f, &current, runtime)).collect();
    let errors_left = findings.iter().filter(|f| f.severity == Severity::Error).count();
    Fixed { entries: current, changes, left, errors_left, warnings_left: Vec::new() }
}

/// `fix` on the list `resolved` gives, each list under a near-miss key
/// renamed first (the module's doc says how).
pub fn fix_resolved(resolved: &Resolved, flags: Flags, runtime: Runtime) -> Fixed {
    let ignored: Vec<usize> = resolved.ignored_lists.iter().map(|l| l.warning).collect();
    let (entries, renamed, why_not) = match rename(resolved, runtime) {
        Ok((entries, renamed)) => (entries, renamed, None),
        Err(why) => (resolved.entries.clone(), Vec::new(), why),
    };
    let mut fixed = fix(&entries, flags, runtime);
    let mended = !renamed.is_empty();
    fixed.changes.splice(0..0, renamed);
    fixed.warnings_left = resolved
        .warnings
        .iter()
        .enumerate()
        .filter(|(i, w)| !(w.is_note() || mended && ignored.contains(i)))
        .map(|(i, w)| match &why_not {
            Some(why) if ignored.contains(&i) => {
                Warning { message: format!("{}; lint --fix does not rename it: {why}", w.message), ..w.clone() }
            }
            _ => w.clone(),
        })
        .collect();
    fixed
}

/// The list with every ignored list renamed into it (the union, for the
/// last file of them and the list in force), each rename said; Err with
/// why none is renamed (None: there is none), as when the union would lose
/// a pin, which only a refused union can.
fn rename(resolved: &Resolved, runtime: Runtime) -> Result<(Vec<Entry>, Vec<Change>), Option<String>> {
    let ignored = &resolved.ignored_lists;
    if ignored.is_empty() {
        return Err(None);
    }
    if resolved.entries.iter().any(|e| matches!(e.source_kind(), "flag" | "env")) {
        return Err(Some(
            "the list in force is --pinned-images's or CONTAINER_PINNED_IMAGES's, which replaces every file's".into(),
        ));
    }
    let position = |file: &str| resolved.files.iter().position(|f| f == file);
    let (pause, in_force): (Vec<&Entry>, Vec<&Entry>) = resolved.entries.iter().partition(|e| e.is_pause_image());
    let in_force_file = in_force.iter().find_map(|e| e.file());
    // (the file's place, the list in force before a renamed list of the same file, the entries)
    let mut lists: Vec<(Option<usize>, usize, Vec<Entry>)> =
        vec![(in_force_file.and_then(position), 0, in_force.iter().map(|&e| e.clone()).collect())];
    lists.extend(ignored.iter().map(|l| (position(&l.file), 1, l.entries.clone())));
    lists.sort_by_key(|(at, rank, _)| (*at, *rank));
    let union: Vec<Entry> =
        lists.into_iter().flat_map(|(_, _, entries)| entries).chain(pause.iter().map(|&e| e.clone())).collect();
    let texts = |entries: &[Entry]| entries.iter().map(Entry::display).collect::<Vec<String>>();
    let (old, new) = (texts(&resolved.entries), texts(&union));
    match crate::translate::first_lost(&old, &new, runtime) {
        Ok(None) => {}
        Ok(Some(image)) => return Err(Some(format!("the union would not pin {}", show::quote(image.name())))),
        Err(e) => return Err(Some(format!("the union of the lists is refused: {e}"))),
    }
    // The file the union is for: the last read of those the lists are in.
    let last =
        ignored.iter().map(|l| (position(&l.file), l.file.as_str())).chain(in_force_file.map(|f| (position(f), f)));
    let target = last.max_by_key(|(at, _)| *at).map_or("", |(_, f)| f);
    let changes = ignored.iter().map(|l| renamed(l, target, in_force_file, in_force.len())).collect();
    Ok((union, changes))
}

/// One rename, said: where the union goes, and what it replaces there.
fn renamed(list: &IgnoredList, target: &str, in_force: Option<&str>, in_force_len: usize) -> Change {
    let key = &list.key;
    let (file, meant, n) = (show::escape(&list.file), list.meant, list.entries.len());
    let replaced = match in_force {
        None => "no earlier file sets a list, so it is the list in force".to_string(),
        Some(f) if f == list.file => format!("this file's {meant} holds the list in force"),
        Some(f) => format!("{}'s list of {in_force_len} pattern(s) is in force", show::escape(f)),
    };
    let message = if target == list.file {
        format!(
            "now {meant}, which CRI-O reads: {replaced}; drop-ins replace the list, they do not merge, so \
             renamed, this file's list replaces the earlier files' (and a later file's {meant} would replace \
             it): the list written is the union, the list in force then these {n} pattern(s), so no pin is \
             dropped; put it in {file} as its [crio.image] {meant}, in place of {}",
            show::quote(key)
        )
    } else {
        format!(
            "now {meant}, which CRI-O reads: a later file's {meant} replaces this file's list (drop-ins \
             replace, they do not merge), so renamed it would pin nothing; its {n} pattern(s) are in the \
             list written, which is for {}: then remove {} from {file}",
            show::escape(target),
            show::quote(key)
        )
    };
    let origin = Origin {
        source: format!("{}:{}", list.file, list.line),
        source_kind: "file",
        file: Some(list.file.clone()),
        line: Some(list.line),
        key: None,
    };
    Change { code: "ignored-key", pattern: key.clone(), origin, now: Some(meant.to_string()), message }
}

/// The pause image CRI-O appends, and containerd's sandbox key (the image
/// pods run): the runtime's own setting, which a list's fix does not change.
fn not_fixed_here(entry: &Entry) -> bool {
    entry.is_pause_image()
}

/// Whether `text` may replace `old` in `runtime`'s list: Ok(true) when it
/// pins the same images, Ok(false) when `old` pinned nothing and `text` is
/// an exact name; else what would change.
fn checked(old: &str, text: &str, runtime: Runtime) -> Result<bool, String> {
    let judged = judge(old, runtime, Ok(vec![text.to_owned()]), runtime);
    let name = runtime.facts().name;
    match judged.fidelity {
        Fidelity::Exact => Ok(true),
        Fidelity::Dropped if runtime.model().writes_exactly(text) => Ok(false),
        Fidelity::Dropped => Err(format!("it pins nothing, and {} is a wildcard that pins more", show::quote(text))),
        Fidelity::Impossible => {
            Err(format!("{name} refuses the pattern as it is, and {} pins otherwise", show::quote(text)))
        }
        Fidelity::Undecided => Err("whether some images are pinned would depend on how they were pulled".into()),
        _ => {
            let shown = |i: &crate::runtimes::RegistryImage| show::quote(runtime.model().stored_form(i.name()));
            let gains = judged.gained.as_ref().map(|i| format!("it would pin {}, which the entry does not", shown(i)));
            let losses = judged.lost.as_ref().map(|i| format!("it would not pin {}, which the entry does", shown(i)));
            Err(gains.into_iter().chain(losses).collect::<Vec<_>>().join(", and "))
        }
    }
}

/// An entry as the header names it: its pattern and where it was written.
fn named(pattern: &str, origin: &Origin) -> String {
    format!("{} ({})", show::pattern(origin.key.as_deref(), pattern), show::escape(&origin.source))
}

/// One change, said.
fn said(f: &Finding, entries: &[Entry], decision: &Decision) -> Change {
    let entry = &entries[f.index];
    let message = match (decision, &f.fix) {
        (Decision::Remove, Some(Fix::Remove { covered_by: Some(c) })) => {
            let cover = &entries[*c];
            format!("removed: {} pins every image it pins", named(&cover.display(), &cover.origin()))
        }
        (Decision::Remove, _) => "removed: it pins nothing".to_string(),
        (Decision::Write(text, true), _) => format!("now {}, which pins the same images", show::quote(text)),
        (Decision::Write(text, false), _) => {
            format!("now {}: it pinned nothing, and this is the name it was meant to be", show::quote(text))
        }
    };
    let now = match decision {
        Decision::Remove => None,
        Decision::Write(text, _) => Some(text.clone()),
    };
    Change { code: f.code.as_str(), pattern: entry.display(), origin: entry.origin(), now, message }
}

/// A warning or error left in the list, with why it was not fixed.
fn left_why(f: &Finding, entries: &[Entry], runtime: Runtime) -> Left {
    let entry = &entries[f.index];
    let why = match &f.fix {
        _ if not_fixed_here(entry) => "the runtime's own pause or sandbox image: change its setting".to_string(),
        _ if f.code == LintCode::ControlCharacter => {
            "a control character is never removed: the name meant cannot be told; write it again by hand".to_string()
        }
        Some(Fix::Write(text)) => match checked(&entry.display(), text, runtime) {
            Err(why) => format!("{} would change what is pinned: {why}; write it if that is meant", show::quote(text)),
            Ok(_) => format!("{} is left for the next run", show::quote(text)),
        },
        Some(Fix::Remove { .. }) => "the entry it repeats was changed: run again".to_string(),
        None => "no fix that keeps what it pins: crio-pin lint says why".to_string(),
    };
    Left { code: f.code, severity: f.severity, pattern: entry.display(), origin: entry.origin(), message: why }
}

/// The list written as `runtime` reads it, after a header that says each
/// change and what was left (wrapped as messages are, unless `full`). The
/// entries the runtime appends itself (CRI-O's pause image) are not written.
pub fn write(fixed: &Fixed, runtime: Runtime, full: bool) -> String {
    let written: Vec<(&Entry, String)> =
        fixed.entries.iter().filter(|e| e.source_kind() != "pause_image").map(|e| (e, e.display())).collect();
    let patterns: Vec<(&Entry, &str)> = written.iter().map(|(e, t)| (*e, t.as_str())).collect();
    let within = if full { usize::MAX } else { crate::output::width() };
    let comment = |text: &str| crate::output::wrapped(&format!("# {text}"), within, "#   ");
    let standing = match fixed.warnings_left.len() {
        0 => String::new(),
        n => format!(", {n} configuration warning(s) standing"),
    };
    let mut out = comment(&format!(
        "Written by crio-pin lint --fix: {} change(s), {} finding(s) left as they were{standing}. Review it, then \
         put it in place of the list it fixes (each entry names where it was read).",
        fixed.changes.len(),
        fixed.left.len()
    ));
    for change in &fixed.changes {
        out.push_str(&comment(&format!("changed: {}", change.said())));
    }
    for left in &fixed.left {
        out.push_str(&comment(&format!("left: {}", left.said())));
    }
    for warning in &fixed.warnings_left {
        out.push_str(&comment(&format!("stands: warning[{}]: {}", warning.code, warning.message)));
    }
    out.push_str("#\n");
    out.push_str(&crate::output::comments_wrapped(&runtime.model().write_list(&patterns), full));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(texts: &[&str]) -> Vec<Entry> {
        let file: std::rc::Rc<str> = "f".into();
        texts.iter().enumerate().map(|(i, t)| Entry::in_file(t.as_bytes().to_vec(), &file, i + 1)).collect()
    }

    fn texts(fixed: &Fixed) -> Vec<String> {
        fixed.entries.iter().map(Entry::display).collect()
    }

    #[test]
    fn fixes_that_keep_or_only_add_pins_are_applied_and_the_rest_left() {
        let list = entries(&[
            "quay.io/a/*",
            " nginx:1.25",
            "quay.io/a/b:1",
            "*pause",
            "",
            "registry.k8s.io/pause:3.10",
            "REGISTRY.k8s.io/pause:3.10",
            "*",
        ]);
        let fixed = fix(&list, Flags::CRIO, Runtime::Crio);
        assert_eq!(
            texts(&fixed),
            ["quay.io/a/*", "docker.io/library/nginx:1.25", "*pause", "registry.k8s.io/pause:3.10", "*"]
        );
        // Two rounds for the blank then the short name; the shadowed,
        // empty and duplicate entries removed.
        let said = |fixed: &Fixed| {
            fixed.changes.iter().map(Change::said).chain(fixed.left.iter().map(Left::said)).collect::<Vec<_>>()
        };
        assert_eq!(fixed.changes.len(), 5, "{:#?}", said(&fixed));
        assert!(
            fixed.left.iter().any(|l| l.pattern == "*pause" && l.message.contains("\"*pause*\" would change")),
            "{:#?}",
            said(&fixed)
        );
        assert!(fixed.left.iter().any(|l| l.said().contains("error[lone-star]")), "{:#?}", said(&fixed));
        assert_eq!(fixed.errors_left, 1);
    }

    #[test]
    fn a_fix_that_would_lose_a_pin_is_left() {
        // containerd keeps a host as written: Quay.io/a:1 pins an image
        // pulled as that name, which quay.io/a:1 does not.
        let fixed = fix(&entries(&["Quay.io/a:1", "nginx"]), Flags::CONTAINERD, Runtime::Containerd);
        assert_eq!(texts(&fixed), ["Quay.io/a:1", "docker.io/library/nginx:latest"]);
        assert!(
            fixed
                .left
                .iter()
                .any(|l| l.code.as_str() == "not-normalized" && l.message.contains("it would not pin \"Quay.io/a:1\"")),
            "{:#?}",
            fixed.left.iter().map(Left::said).collect::<Vec<_>>()
        );
        // cri-dockerd: nginx* pins nginx-exporter too, which nginx does not.
        let fixed = fix(&entries(&["nginx*", "docker.io/library/redis:7"]), Flags::CRI_DOCKERD, Runtime::CriDockerd);
        assert_eq!(texts(&fixed), ["nginx*", "redis:7"]);
    }
}
