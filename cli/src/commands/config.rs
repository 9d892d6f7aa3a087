//! `crio-pin config`: the effective pinned list, each pattern with its
//! source, and the configuration's warnings; exit status 2 when a list
//! CRI-O may switch to is refused.

use std::io::Write;

use crate::args::SourceArgs;
use crate::config::{self, Resolved};
use crate::error::InputError;
use crate::output::{self, write_json, Column, Outcome};
use crate::refused::{self, List, Refused};
use crate::show;

pub fn run(args: &SourceArgs) -> Result<Outcome, InputError> {
    let flags = args.flags();
    let resolved = config::resolve(&args.sources())?;
    let mut out = Vec::new();
    let refused = refused::check_lists(&resolved, flags)?;
    if args.json {
        let patterns = resolved.entries.iter().enumerate().map(|(index, e)| PatternJson {
            defined_at: e.defined_at.as_deref(),
            file: e.file(),
            index,
            line: e.line(),
            pattern: e.display(),
            source: &e.source,
            source_kind: e.source_kind(),
        });
        let config = ConfigJson {
            files: &resolved.files,
            patterns: patterns.collect(),
            refused: &refused,
            warnings: &resolved.warnings,
        };
        write_json(&mut out, &config);
    } else {
        print(&mut out, &resolved, &refused, args.no_trunc);
    }
    let code = if refused.is_empty() { 0 } else { 2 };
    // Said on standard error after the output: the lists CRI-O refuses.
    Ok(Outcome { out, refused, code })
}

/// `config --json`. (Typed rather than `json!` values, which cost a map
/// per pattern: a million-entry list spent most of its time there. Keys in
/// alphabetical order, as `json!` writes them.)
#[derive(serde::Serialize)]
struct ConfigJson<'a> {
    files: &'a [String],
    patterns: Vec<PatternJson<'a>>,
    /// The patterns that make a list refused: the configuration's, or the
    /// files' list a SIGHUP reload loads instead.
    refused: &'a [Refused],
    warnings: &'a [config::Warning],
}

#[derive(serde::Serialize)]
struct PatternJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    defined_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    pattern: String,
    source: &'a str,
    source_kind: &'a str,
}

fn print(out: &mut Vec<u8>, resolved: &Resolved, errors: &[Refused], full: bool) {
    if resolved.files.is_empty() {
        let _ = writeln!(out, "files read: none");
    } else {
        let _ = writeln!(out, "files read, in CRI-O's order: {}", show::escape(&resolved.files.join(", ")));
    }
    if resolved.entries.is_empty() {
        let _ = writeln!(out, "no patterns: nothing is pinned");
    } else {
        let rows: Vec<Vec<String>> = resolved
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let source = match &e.defined_at {
                    Some(at) => format!("{} ({at})", e.source),
                    None => e.source.clone(),
                };
                vec![i.to_string(), show::quote(&e.display()), show::escape(&source).into_owned()]
            })
            .collect();
        let columns = [Column::fixed("#"), Column::name("PATTERN", 48, 32), Column::source("SOURCE")];
        output::table(out, &columns, &rows, full);
    }
    output::print_warnings(out, &resolved.warnings);
    for e in errors {
        let list = if e.list == List::AfterReload.as_str() { ", in the list a SIGHUP reload loads" } else { "" };
        let _ = writeln!(
            out,
            "error[{}]: pattern {} {} ({}){list}: the list is refused (standard error says why, and what \
             CRI-O does with it)",
            e.code,
            e.index,
            show::quote(&e.pattern),
            show::escape(&e.source)
        );
    }
}
