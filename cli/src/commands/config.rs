//! `crio-pin config`: the effective pinned list, each pattern with its
//! source, and the configuration's warnings; exit status 2 when a list
//! the runtime may switch to is refused.

use crate::args::SourceArgs;
use crate::error::InputError;
use crate::list::{Resolved, Warning};
use crate::output::{self, write_json, Column, Outcome};
use crate::refused::{self, List, Refused};
use crate::runtime::Runtime;
use crate::runtimes;
use crate::show;

pub fn run(args: &SourceArgs) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    let resolved = runtimes::resolve(&args.sources(runtime))?;
    let mut out = Vec::new();
    let refused = refused::check_lists(&resolved, flags)?;
    if args.json {
        let patterns = resolved.entries.iter().enumerate().map(|(index, e)| PatternJson {
            defined_at: e.defined_at.as_deref(),
            file: e.file(),
            index,
            key: e.key.as_deref(),
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
        let how = Shown { runtime, patterns_file: args.patterns.is_some(), full: args.no_trunc };
        print(&mut out, &resolved, &refused, how);
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
    warnings: &'a [Warning],
}

#[derive(serde::Serialize)]
struct PatternJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    defined_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    pattern: String,
    source: &'a str,
    source_kind: &'a str,
}

/// How the table is printed.
struct Shown {
    runtime: Runtime,
    /// The list is a --patterns FILE's, which the runtime does not read.
    patterns_file: bool,
    full: bool,
}

fn print(out: &mut Vec<u8>, resolved: &Resolved, errors: &[Refused], how: Shown) {
    // A --patterns FILE is read by the tool alone: no runtime's order.
    let order = if how.patterns_file {
        "files read".to_string()
    } else {
        format!("files read, in {}'s order", how.runtime.facts().name)
    };
    if resolved.files.is_empty() {
        output::say(out, "files read: none", how.full);
    } else {
        output::say(out, &format!("{order}: {}", show::escape(&resolved.files.join(", "))), how.full);
    }
    // containerd's keys, in a column of their own.
    let keyed = resolved.entries.iter().any(|e| e.key.is_some());
    if resolved.entries.is_empty() {
        output::say(out, "no patterns: nothing is pinned", how.full);
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
                let mut row = vec![i.to_string()];
                if keyed {
                    row.push(e.key.as_deref().map_or_else(String::new, |k| show::key(k).into_owned()));
                }
                row.extend([show::quote(&e.display()), show::escape(&source).into_owned()]);
                row
            })
            .collect();
        let mut columns = vec![Column::whole("#")];
        if keyed {
            columns.push(Column::whole("KEY"));
        }
        // The count line and the summary by file still say where they are from.
        columns.extend([Column::whole("PATTERN"), Column::source("SOURCE").optional(1)]);
        output::table(out, &columns, &rows, how.full);
    }
    for e in resolved.entries.iter().filter(|e| e.source_kind() == "default") {
        output::say(
            out,
            &format!(
                "note: {} is containerd's built-in default sandbox image: no file sets pinned_images.{}, so \
                 containerd pins it (and pods run it)",
                show::quote(&e.display()),
                e.key.as_deref().map_or_else(String::new, |k| show::key(k).into_owned())
            ),
            how.full,
        );
    }
    output::print_warnings(out, &resolved.warnings, how.full);
    for e in errors {
        let list = if e.list == List::AfterReload.as_str() { ", in the list a SIGHUP reload loads" } else { "" };
        output::say(
            out,
            &format!(
                "error[{}]: pattern {} {} ({}){list}: the list is refused (standard error says why, and what \
                 {} does with it)",
                e.code,
                e.index,
                show::pattern(e.key.as_deref(), &e.pattern),
                show::escape(&e.source),
                how.runtime.facts().refuser
            ),
            how.full,
        );
    }
}
