//! `crio-pin config`: the effective pinned list, each pattern with its
//! source, and the configuration's warnings; exit status 2 when a list
//! the runtime may switch to is refused.

use crate::args::SourceArgs;
use crate::error::InputError;
use crate::list::{Entry, Resolved, Warning};
use crate::output::{self, write_json, Column, Outcome};
use crate::refused::{self, List, Refused};
use crate::runtime::Runtime;
use crate::runtimes;
use crate::show;
use crio_pin::pattern::Pattern;
use crio_pin::Flags;

/// `quiet`: the patterns alone, one a line.
pub fn run(args: &SourceArgs, verbose: bool, quiet: bool) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    let resolved = runtimes::resolve(&args.sources(runtime))?;
    let mut out = Vec::new();
    let refused = refused::check_lists(&resolved, flags, runtime.model())?;
    if args.json {
        write_json(&mut out, &json(&resolved, &refused, flags));
    } else if quiet {
        for e in &resolved.entries {
            out.extend_from_slice(show::escape(&e.display()).as_bytes());
            out.push(b'\n');
        }
    } else {
        let how = Shown {
            runtime,
            flags,
            patterns_file: args.patterns.is_some(),
            full: args.no_trunc,
            every_row: verbose || args.no_trunc,
        };
        print(&mut out, &resolved, &refused, how);
    }
    let code = if refused.is_empty() { 0 } else { 2 };
    // Said on standard error after the output: the lists CRI-O refuses.
    Ok(Outcome { out, refused, code })
}

/// The fingerprint of the list the runtime compiles (the library's,
/// `crio_pin::fingerprint`): the effective list's patterns in their order,
/// CRI-O's pause image last as CRI-O appends it, under the runtime's
/// flags. A runtime built on the library logs the same value for the list
/// it serves.
pub fn fingerprint(resolved: &Resolved, flags: Flags) -> crio_pin::Fingerprint {
    crio_pin::fingerprint(resolved.entries.iter().map(|e| &e.text), flags)
}

/// `config --json`: the files read, the list's fingerprint, each pattern
/// with its source, the refused patterns and the warnings.
pub fn json<'a>(resolved: &'a Resolved, refused: &'a [Refused], flags: Flags) -> ConfigJson<'a> {
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
    ConfigJson {
        files: &resolved.files,
        fingerprint: fingerprint(resolved, flags).to_string(),
        patterns: patterns.collect(),
        refused,
        warnings: &resolved.warnings,
    }
}

/// `config --json`. (Typed rather than `json!` values, which cost a map
/// per pattern: a million-entry list spent most of its time there. Keys in
/// alphabetical order, as `json!` writes them.)
#[derive(serde::Serialize)]
pub struct ConfigJson<'a> {
    files: &'a [String],
    /// `fingerprint`: `sha256:` and 64 hexadecimal digits.
    fingerprint: String,
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
pub struct Shown {
    pub runtime: Runtime,
    pub flags: Flags,
    /// The list is a --patterns FILE's, which the runtime does not read.
    pub patterns_file: bool,
    pub full: bool,
    /// Every row, however long the list (--verbose, --no-trunc).
    pub every_row: bool,
}

/// A source with more patterns than this shows the first `SHOWN` of each
/// kind only, unless every row is asked for: a generated list of 20,000
/// digests is read by its count, not by scrolling.
const BIG: usize = 20;
const SHOWN: usize = 5;

/// Where a pattern comes from, as the count line groups them: its file,
/// else its kind of source (flag, env, pause_image, default).
fn group(e: &Entry) -> &str {
    match e.source_kind() {
        "file" => e.file().unwrap_or(&e.source),
        kind => kind,
    }
}

/// What a pattern is under the runtime's rules: a name, a digest, a glob,
/// a keyword, a repository (cri-dockerd), blank, or refused.
fn kind(e: &Entry, flags: Flags) -> &'static str {
    let Ok(text) = std::str::from_utf8(&e.text) else { return "refused" };
    match Pattern::parse(text, flags) {
        Ok(Pattern::Exact(t)) if t.contains("sha256:") || t.contains("sha512:") => "digest",
        Ok(Pattern::Exact(_)) => "name",
        Ok(Pattern::Glob(_)) => "glob",
        Ok(Pattern::Keyword(_)) => "keyword",
        Ok(Pattern::Repository(_)) => "repository",
        Ok(Pattern::Blank) => "blank",
        Err(_) => "refused",
    }
}

/// Each group of the entries, in the order it first appears: its name,
/// how many entries of each kind it has, and its last entry's index.
struct Group<'a> {
    name: &'a str,
    kinds: Vec<(&'static str, usize)>,
    last: usize,
}

impl Group<'_> {
    fn len(&self) -> usize {
        self.kinds.iter().map(|(_, n)| n).sum()
    }
}

fn groups(entries: &[Entry], flags: Flags) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let g = match groups.iter().position(|g| g.name == group(e)) {
            Some(g) => g,
            None => {
                groups.push(Group { name: group(e), kinds: Vec::new(), last: i });
                groups.len() - 1
            }
        };
        let g = &mut groups[g];
        g.last = i;
        let k = kind(e, flags);
        match g.kinds.iter_mut().find(|(known, _)| *known == k) {
            Some((_, count)) => *count += 1,
            None => g.kinds.push((k, 1)),
        }
    }
    groups
}

/// `N pattern(s): A from SOURCE (B names, C digests), ...`: how many from
/// each source, of each kind.
fn count_line(entries: &[Entry], groups: &[Group<'_>]) -> String {
    let parts: Vec<String> = groups
        .iter()
        .map(|g| {
            let kinds: Vec<String> = g.kinds.iter().map(|&(k, c)| counted(c, k)).collect();
            format!("{} from {} ({})", g.len(), show::escape(g.name), kinds.join(", "))
        })
        .collect();
    format!("{} pattern(s): {}", entries.len(), parts.join(", "))
}

/// `3 digests`, `1 glob`, `2 repositories`, `1 refused`.
fn counted(n: usize, kind: &str) -> String {
    let kinds = match kind {
        _ if n == 1 => kind.to_string(),
        "repository" => "repositories".to_string(),
        "refused" => "refused".to_string(),
        _ => format!("{kind}s"),
    };
    format!("{n} {kinds}")
}

/// The files read, the table, the count line, the notes, the warnings
/// and the refused patterns.
pub fn print(out: &mut Vec<u8>, resolved: &Resolved, errors: &[Refused], how: Shown) {
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
    if resolved.entries.is_empty() {
        output::say(out, "no patterns: nothing is pinned", how.full);
    } else {
        print_patterns(out, resolved, &how);
    }
    output::say(
        out,
        &format!(
            "fingerprint: {} (of this list under {}'s rules, as the crio-pin library logs it)",
            fingerprint(resolved, how.flags),
            how.runtime.facts().name
        ),
        how.full,
    );
    for e in resolved.entries.iter().filter(|e| e.source_kind() == "default") {
        if let Some(note) = how.runtime.model().default_note(e) {
            output::say(out, &format!("note: {note}"), how.full);
        }
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

/// The patterns, one a row (a big source's first few of each kind), the
/// count line, and how many rows were left out.
fn print_patterns(out: &mut Vec<u8>, resolved: &Resolved, how: &Shown) {
    // containerd's keys, in a column of their own.
    let keyed = resolved.entries.iter().any(|e| e.key.is_some());
    let row = |(i, e): (usize, &Entry)| {
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
    };
    let groups = groups(&resolved.entries, how.flags);
    let mut rows: Vec<Vec<String>> = Vec::new();
    // Per group: the rows of each kind seen, and those left out.
    let mut seen: Vec<Vec<usize>> = groups.iter().map(|g| vec![0; g.kinds.len()]).collect();
    let mut more = vec![0; groups.len()];
    for (i, e) in resolved.entries.iter().enumerate() {
        let g = groups.iter().position(|g| g.name == group(e)).expect("every entry is in a group");
        let k = groups[g].kinds.iter().position(|(k, _)| *k == kind(e, how.flags)).expect("and its kind");
        seen[g][k] += 1;
        // A big source shows the first few of each kind: its first
        // digests, and every glob among them.
        if how.every_row || groups[g].len() <= BIG || seen[g][k] <= SHOWN {
            rows.push(row((i, e)));
        } else {
            more[g] += 1;
        }
        if i == groups[g].last && more[g] > 0 {
            let mut line = vec!["…".to_string(), format!("{} more from {}", more[g], show::escape(groups[g].name))];
            line.resize(rows[0].len(), String::new());
            rows.push(line);
        }
    }
    let left_out: usize = more.iter().sum();
    let mut columns = vec![Column::whole("#")];
    if keyed {
        columns.push(Column::whole("KEY"));
    }
    // The count line and the summary by file still say where they are from.
    columns.extend([Column::whole("PATTERN"), Column::source("SOURCE").optional(1)]);
    output::table(out, &columns, &rows, how.full);
    output::say(out, &count_line(&resolved.entries, &groups), how.full);
    if left_out > 0 {
        output::say(out, &format!("note: {left_out} rows left out; --verbose or --no-trunc lists every row"), how.full);
    }
}
