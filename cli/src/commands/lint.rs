//! `crio-pin lint`: what the runtime does with each pattern, and likely
//! mistakes, of the list in force and (CRI-O) of the list a SIGHUP reload
//! loads; exit status 1 on an error.

use std::io::Write;

use crate::args::SourceArgs;
use crate::config::{self, Resolved};
use crate::error::InputError;
use crate::lint::{self, Finding, Severity};
use crate::output::{self, write_json, Outcome};
use crate::refused::List;
use crate::runtime::Runtime;
use crate::{images, show};

pub fn run(args: &SourceArgs, images: Option<&str>) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    let resolved = config::resolve(&args.sources(runtime))?;
    let mut out = Vec::new();
    let artifacts = match images {
        Some(_) if runtime != Runtime::Crio => {
            return Err(InputError(format!(
                "lint --images tells OCI artifacts, which only CRI-O pins by their canonical name: it has no use \
                 with --runtime {} (explain --images shows what the list pins)",
                runtime.option()
            )))
        }
        Some(path) => Some(lint::Artifacts::new(&images::read(path, runtime)?, flags)),
        None => None,
    };
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
    let counts = LintCounts::new(&resolved, &findings);
    if args.json {
        let json = serde_json::json!({
            "counts": counts,
            "findings": findings,
            "warnings": resolved.warnings,
        });
        write_json(&mut out, &json);
    } else {
        print(&mut out, &resolved, &findings, &counts);
    }
    Ok(Outcome { out, refused: Vec::new(), code: u8::from(counts.errors > 0) })
}

/// What `lint` printed, counted: its summary line and JSON `counts`.
#[derive(serde::Serialize)]
struct LintCounts {
    /// Configuration warnings (`warnings`), printed after the findings.
    configuration_warnings: usize,
    errors: usize,
    notes: usize,
    /// Patterns of the list the configuration gives.
    patterns: usize,
    /// Patterns of the files' list a SIGHUP reload loads instead (null when
    /// no flag or variable replaced it).
    reload_patterns: Option<usize>,
    warnings: usize,
}

impl LintCounts {
    fn new(resolved: &Resolved, findings: &[Finding]) -> LintCounts {
        let count = |s| findings.iter().filter(|f| f.severity == s).count();
        LintCounts {
            configuration_warnings: resolved.warnings.len(),
            errors: count(Severity::Error),
            notes: count(Severity::Info),
            patterns: resolved.entries.len(),
            reload_patterns: resolved.reload.as_ref().map(Vec::len),
            warnings: count(Severity::Warning),
        }
    }
}

fn print(out: &mut Vec<u8>, resolved: &Resolved, findings: &[Finding], counts: &LintCounts) {
    for f in findings {
        let list = if f.list == List::AfterReload.as_str() { ", in the list a SIGHUP reload loads" } else { "" };
        let _ = writeln!(
            out,
            "{}[{}]: pattern {} {} ({}{list}): {}",
            f.severity.as_str(),
            f.code,
            f.index,
            show::pattern(f.origin.key.as_deref(), &f.pattern),
            show::escape(&f.origin.source),
            show::escape(&f.message)
        );
    }
    output::print_warnings(out, &resolved.warnings);
    let reload = match counts.reload_patterns {
        Some(n) => format!(", and {n} in the files' list a SIGHUP reload loads"),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{} pattern(s){reload}: {} error(s), {} warning(s), {} note(s); {} configuration warning(s)",
        counts.patterns, counts.errors, counts.warnings, counts.notes, counts.configuration_warnings
    );
}
