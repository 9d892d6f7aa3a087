//! `crio-pin lint`: what the runtime does with each pattern, and likely
//! mistakes, of the list in force and (CRI-O) of the list a SIGHUP reload
//! loads; exit status 1 on an error.

use std::collections::{HashMap, HashSet};

use crio_pin::pattern::canonical;
use crio_pin::{Flags, Pattern, PinSet, Tier};

use crate::args::{FixTarget, KubeletArgs, SourceArgs};
use crate::codes::{LintCode, WarningCode};
use crate::error::InputError;
use crate::lint::{self, Finding, Severity};
use crate::list::{Entry, Resolved, Warning};
use crate::output::{self, write_json, Outcome, Tone};
use crate::refused::List;
use crate::runtime::Runtime;
use crate::runtimes::label_warnings;
use crate::runtimes::{self, kubelet::verify::Verifier};
use crate::{images, show};

/// What the text shows of the findings.
#[derive(Clone, Copy)]
pub struct Shown {
    /// Every finding, not a summary of the codes found many times.
    pub verbose: bool,
    /// The least severity shown (`--severity`; text and JSON).
    pub least: Severity,
}

/// How many findings of one code are printed each before the rest are
/// counted: a note gives the same advice every time; a warning or an
/// error usually says what to write for its pattern, so more are printed
/// (20,000 refused digests are one code, not 36,000 lines; the exit
/// status and the count still say each).
fn printed_each(severity: Severity) -> usize {
    match severity {
        Severity::Info => 3,
        Severity::Warning | Severity::Error => 10,
    }
}

/// How many more patterns a summarised code names as examples.
const EXAMPLES: usize = 2;

/// `quiet`: `-q`, only the closing line of counts.
pub fn run(
    args: &SourceArgs,
    images: &[String],
    shown: Shown,
    quiet: bool,
    kubelet: &KubeletArgs,
) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    let mut resolved = runtimes::resolve(&args.sources(runtime))?;
    if kubelet.kubelet_root_dir.is_some() {
        return Err(InputError(
            "--kubelet-root-dir: the pull records are the images', and lint judges patterns: give it to check or \
             explain"
                .into(),
        ));
    }
    let verifier = kubelet.verifier()?;
    let mut out = Vec::new();
    let naming = runtime.model().naming();
    let listing = match images {
        [] => None,
        _ if !naming.lists_artifacts && naming.label_listing.is_none() => {
            return Err(InputError(format!(
                "lint --images tells OCI artifacts, which only CRI-O pins by their canonical name, and reads the \
                 labels of containerd's and cri-dockerd's own listings: it has no use with --runtime {} (explain \
                 --images shows what the list pins)",
                runtime.facts().option
            )))
        }
        paths => Some(images::read_all(paths, naming)?),
    };
    let labelled = listing.as_ref().is_some_and(|l| l.iter().any(|i| i.labels.is_some()));
    if let (Some(own), false, Some(_)) = (naming.label_listing, labelled || naming.lists_artifacts, &listing) {
        return Err(InputError(format!(
            "lint --images tells OCI artifacts, which only CRI-O pins by their canonical name, and reads the \
             labels of {} under --runtime {}: the listing given has none (crictl's shows no labels); give that \
             listing",
            own.command(),
            runtime.facts().option
        )));
    }
    if let Some(listing) = &listing {
        resolved.warnings.extend(label_warnings::listing_warnings(listing));
    }
    resolved.warnings.extend(past_fast_tier(&resolved.entries, flags));
    // lint tells OCI artifacts by a listing, which only CRI-O lists.
    let artifacts_listing = listing.as_deref().filter(|_| naming.lists_artifacts);
    let linted = Linted::new(runtime, flags, &resolved, artifacts_listing, verifier.as_ref(), shown.least);
    if args.json {
        write_json(&mut out, &linted.json(&resolved));
    } else if quiet {
        print_counts(&mut out, &linted.counts, shown, args.no_trunc);
    } else {
        linted.print(&mut out, &linted.warnings(&resolved), shown, args.no_trunc);
    }
    Ok(Outcome { out, refused: Vec::new(), code: u8::from(linted.counts.errors > 0) })
}

/// The warning that `entries` are past the library's fast tier, with what
/// its second tier costs and what would bring the list back; none for a
/// list that is not, or that the library refuses (its findings say why).
fn past_fast_tier(entries: &[Entry], flags: Flags) -> Option<Warning> {
    let Ok(Tier::Sparse { states }) = PinSet::validate(entries.iter().map(|e| &e.text), flags) else { return None };
    let wildcards = entries
        .iter()
        .filter(|e| {
            std::str::from_utf8(&e.text)
                .ok()
                .and_then(|t| Pattern::parse(t, flags).ok())
                .is_some_and(|p| matches!(p, Pattern::Glob(_) | Pattern::Keyword(_)))
        })
        .count();
    Some(Warning::new(
        WarningCode::PastFastTier,
        format!(
            "the list's {wildcards} globs and keywords need an automaton of {states} states, past \
             the dense table of at most {} MiB that the crio-pin library's fast tier holds: a runtime \
             built on it answers the list with its second tier, at most {} memory reads a byte of \
             each name instead of 2 (still bounded, and far below stock CRI-O's one regexp a \
             pattern); fewer or shorter globs and keywords, or exact names where an image's full name \
             is known, bring it back",
            crio_pin::DENSE_MAX_BYTES >> 20,
            Tier::Sparse { states }.reads_per_byte(),
        ),
    ))
}

/// What `lint` found in a configuration: what it prints, and what `check`
/// counts and prints after its summary.
pub struct Linted {
    /// The findings shown: at least as severe as `least`.
    pub findings: Vec<Finding>,
    /// Every finding counted, whatever is shown.
    pub counts: LintCounts,
    least: Severity,
}

impl Linted {
    /// The findings on `resolved`'s list in force and on the list a reload
    /// loads instead, the kubelet's with its configuration; a CRI-O
    /// `listing` tells OCI artifacts and quiets the notes it answers.
    pub fn new(
        runtime: Runtime,
        flags: Flags,
        resolved: &Resolved,
        listing: Option<&[images::Image]>,
        verifier: Option<&Verifier>,
        least: Severity,
    ) -> Linted {
        let artifacts = listing.map(|l| lint::Artifacts::new(l, flags));
        let mut findings = lint::lint(&resolved.entries, flags, List::Effective, artifacts.as_ref());
        if let Some(reload) = &resolved.reload {
            let again = lint::lint(reload, flags, List::AfterReload, artifacts.as_ref());
            // The same finding on the same entry says nothing new.
            let new: Vec<Finding> = again
                .into_iter()
                .filter(|r| {
                    !findings
                        .iter()
                        .any(|f| f.code == r.code && f.origin.source == r.origin.source && f.pattern == r.pattern)
                })
                .collect();
            findings.extend(new);
        }
        if let Some(verifier) = verifier {
            findings.extend(verifier.lint(runtime, flags, &resolved.entries));
        }
        let answered = listing.map_or(0, |l| quiet_answered(&mut findings, l, flags));
        let counts = LintCounts::new(resolved, &findings, answered);
        findings.retain(|f| f.severity <= least);
        Linted { findings, counts, least }
    }

    /// The configuration's warnings and notes, shown as the findings of
    /// their severity are.
    pub fn warnings(&self, resolved: &Resolved) -> Vec<Warning> {
        let shown = |w: &&Warning| match self.least {
            Severity::Info => true,
            Severity::Warning => !w.is_note(),
            Severity::Error => false,
        };
        resolved.warnings.iter().filter(shown).cloned().collect()
    }

    /// `lint --json`.
    pub fn json(&self, resolved: &Resolved) -> serde_json::Value {
        serde_json::json!({
            "counts": self.counts,
            "findings": self.findings,
            "warnings": self.warnings(resolved),
        })
    }

    /// The findings, then `warnings` (the configuration's), then the counts.
    pub fn print(&self, out: &mut Vec<u8>, warnings: &[Warning], shown: Shown, full: bool) {
        print(out, warnings, &self.findings, &self.counts, shown, full);
    }
}

/// `lint --fix`: the list with every fix that keeps what is pinned
/// applied (`crate::fix`), written for the runtime to `target`, never over
/// a file the list was read from. Exit status 1 when an error is left in it.
pub fn fix(args: &SourceArgs, target: Option<FixTarget<'_>>) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    if args.anchor_globs || args.case_sensitive {
        return Err(InputError(
            "lint --fix writes the list for the runtime, whose configuration has no such mode: drop \
             --anchor-globs and --case-sensitive"
                .into(),
        ));
    }
    let resolved = runtimes::resolve(&args.sources(runtime))?;
    let fixed = crate::fix::fix_resolved(&resolved, flags, runtime);
    let text = crate::fix::write(&fixed, runtime, args.no_trunc);
    let code = u8::from(fixed.errors_left > 0);
    let written_to = match target {
        Some(FixTarget::File(path)) => {
            refuse_input(path, &resolved.files)?;
            let to = std::path::Path::new(path);
            crate::atomic::write(to, text.as_bytes()).map_err(|e| {
                InputError(format!(
                    "--fix-to {}: cannot write it ({e}); {}: make room, or give a file elsewhere (--fix-to - \
                     writes the list to standard output)",
                    show::quote(path),
                    e.left(to)
                ))
            })?;
            Some(path)
        }
        None | Some(FixTarget::Stdout) => None,
    };
    if args.json {
        let mut out = Vec::new();
        write_json(
            &mut out,
            &serde_json::json!({
                "changes": fixed.changes,
                "errors_left": fixed.errors_left,
                "left": fixed.left,
                // The list as written (to `written_to`, when given).
                "list": text,
                "warnings_left": fixed.warnings_left,
                "written_to": written_to,
            }),
        );
        return Ok(Outcome { out, refused: Vec::new(), code });
    }
    let (out, written_to) = match written_to {
        None => (text.into_bytes(), "standard output".to_string()),
        Some(path) => (Vec::new(), show::quote(path)),
    };
    let left = match (fixed.left.len(), fixed.errors_left) {
        (0, _) => String::new(),
        (n, 0) => format!("; {n} finding(s) left as they were, named in its header"),
        (n, e) => format!("; {n} finding(s) left as they were, {e} of them error(s), named in its header"),
    };
    // A configuration warning (a replaced list, a misspelt key that was
    // not renamed) is no finding of the list's: the fix leaves it, and says so.
    let standing = match fixed.warnings_left.len() {
        0 => String::new(),
        n => format!("; {n} configuration warning(s) stand, named in its header"),
    };
    output::say_on_stderr(
        &format!("the fixed list is on {written_to}: {} change(s){left}{standing}", fixed.changes.len()),
        args.no_trunc,
    );
    // A runtime that reads drop-ins, whose list a flag or variable set:
    // a drop-in does not replace that.
    let from_flags = fixed.entries.iter().any(|e| matches!(e.source_kind(), "flag" | "env"));
    if from_flags && runtime.facts().unread.config_dir.is_none() {
        output::say_on_stderr(
            &format!(
                "note: the list comes from --pinned-images or its variable, which {} takes over any file: give \
                 the fixed patterns there (the written file's pinned_images)",
                runtime.facts().name
            ),
            args.no_trunc,
        );
    }
    Ok(Outcome { out, refused: Vec::new(), code })
}

/// Err when `path` is one of the files the list was read from (the same
/// file by any name: its device and inode).
fn refuse_input(path: &str, files: &[String]) -> Result<(), InputError> {
    use std::os::unix::fs::MetadataExt;
    let Ok(target) = std::fs::metadata(path) else { return Ok(()) };
    let same =
        |file: &String| std::fs::metadata(file).is_ok_and(|m| (m.dev(), m.ino()) == (target.dev(), target.ino()));
    match files.iter().find(|f| same(f)) {
        Some(file) => Err(InputError(format!(
            "--fix-to {} is {}, which the list was read from: crio-pin never writes over a configuration file; \
             write the fixed list to another file, review it, then put it in place yourself",
            show::quote(path),
            show::quote(file)
        ))),
        None => Ok(()),
    }
}

/// Drops the `digest-needs-digest-pull` notes the listing answers: the
/// image was pulled by that digest (CRI-O stores the name, crictl shows
/// no tag of its repository), so the pattern pins it. How many.
fn quiet_answered(findings: &mut Vec<Finding>, listing: &[images::Image], flags: Flags) -> usize {
    let pulled_by_digest: HashSet<Vec<u8>> = listing
        .iter()
        .filter(|i| i.artifact.is_none())
        .flat_map(|i| i.names.iter().filter(|n| n.stored && !n.is_tag && !n.is_id))
        .map(|n| canonical(n.text.as_bytes(), flags))
        .collect();
    let before = findings.len();
    findings.retain(|f| {
        f.code != LintCode::DigestNeedsDigestPull || !pulled_by_digest.contains(&canonical(f.pattern.as_bytes(), flags))
    });
    before - findings.len()
}

/// What `lint` found, counted: its summary line and JSON `counts` (every
/// finding, whatever `--severity` shows).
#[derive(serde::Serialize)]
pub struct LintCounts {
    /// `digest-needs-digest-pull` notes the `--images` listing answers
    /// (the images were pulled by those digests): not findings.
    pub answered_by_listing: usize,
    /// Configuration warnings and notes (`warnings`, by `severity`),
    /// printed after the findings.
    pub configuration_notes: usize,
    pub configuration_warnings: usize,
    pub errors: usize,
    pub notes: usize,
    /// Patterns of the list the configuration gives.
    pub patterns: usize,
    /// Patterns of the files' list a SIGHUP reload loads instead (null when
    /// no flag or variable replaced it).
    pub reload_patterns: Option<usize>,
    pub warnings: usize,
}

impl LintCounts {
    fn new(resolved: &Resolved, findings: &[Finding], answered: usize) -> LintCounts {
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        LintCounts {
            answered_by_listing: answered,
            configuration_notes: resolved.warnings.iter().filter(|w| w.is_note()).count(),
            configuration_warnings: resolved.warnings.iter().filter(|w| !w.is_note()).count(),
            errors: count(Severity::Error),
            notes: count(Severity::Info),
            patterns: resolved.entries.len(),
            reload_patterns: resolved.reload.as_ref().map(Vec::len),
            warnings: count(Severity::Warning),
        }
    }
}

fn print(out: &mut Vec<u8>, warnings: &[Warning], findings: &[Finding], counts: &LintCounts, shown: Shown, full: bool) {
    let mut found: HashMap<(Severity, LintCode), Vec<&Finding>> = HashMap::new();
    for f in findings {
        found.entry((f.severity, f.code)).or_default().push(f);
    }
    let pattern = |f: &Finding| {
        let list = if f.list == List::AfterReload.as_str() { ", in the list a SIGHUP reload loads" } else { "" };
        format!(
            "{} {} ({}{list})",
            f.index,
            show::pattern(f.origin.key.as_deref(), &f.pattern),
            show::escape(&f.origin.source)
        )
    };
    for f in findings {
        let same = &found[&(f.severity, f.code)];
        let summarised = !shown.verbose && same.len() > printed_each(f.severity);
        if summarised && !std::ptr::eq(same[0], f) {
            continue;
        }
        let head = format!("{}[{}]", f.severity.as_str(), f.code);
        output::say(out, &format!("{head}: pattern {}: {}", pattern(f), show::escape(&f.message)), full);
        if summarised {
            let examples: Vec<String> = same[1..=EXAMPLES]
                .iter()
                .map(|f| format!("pattern {} ({})", f.index, show::escape(&f.origin.source)))
                .collect();
            let more = same.len() - 1;
            output::say(
                out,
                &format!(
                    "{head}: the same on {more} more pattern(s), e.g. {}; --verbose lists each",
                    examples.join(", ")
                ),
                full,
            );
        }
    }
    output::print_warnings(out, warnings, full);
    print_counts(out, counts, shown, full);
}

/// The closing line: the findings counted by severity, what is hidden;
/// all that `lint -q` prints.
fn print_counts(out: &mut Vec<u8>, counts: &LintCounts, shown: Shown, full: bool) {
    let reload = match counts.reload_patterns {
        Some(n) => format!(", and {n} in the files' list a SIGHUP reload loads"),
        None => String::new(),
    };
    let hidden = match shown.least {
        Severity::Info => String::new(),
        Severity::Warning => " (notes not shown: --severity warning)".to_string(),
        Severity::Error => " (warnings, notes and configuration warnings not shown: --severity error)".to_string(),
    };
    let answered = match counts.answered_by_listing {
        0 => String::new(),
        n => format!(", {n} answered by the --images listing (pulled by those digests)"),
    };
    let tone = match (counts.errors, counts.warnings + counts.configuration_warnings) {
        (0, 0) => Tone::Fine,
        (0, _) => Tone::Doubtful,
        _ => Tone::Bad,
    };
    let configuration_notes = match counts.configuration_notes {
        0 => String::new(),
        n => format!(", {n} configuration note(s)"),
    };
    output::say_summary(
        out,
        &format!(
            "{} pattern(s){reload}: {} error(s), {} warning(s), {} note(s){answered}{hidden}; {} configuration \
             warning(s){configuration_notes}",
            counts.patterns, counts.errors, counts.warnings, counts.notes, counts.configuration_warnings
        ),
        tone,
        full,
    );
}
