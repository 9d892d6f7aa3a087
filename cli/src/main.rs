//! `crio-pin`: what a CRI-O node pins, by which pattern, from which file,
//! and what a change would do. Reads configuration, never writes it.
//!
//! Exit status: 0 fine; 1 findings (a lint error, an `explain --check`
//! disagreement or undecided image); 2 the input cannot be used (usage,
//! unreadable or malformed files, a configuration CRI-O would refuse).

mod config;
mod explain;
mod images;
mod input;
mod lint;
mod refused;
mod show;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use crio_pin::Flags;

use config::{InputError, Sources};
use refused::{List, Refused};

#[derive(Parser)]
#[command(
    name = "crio-pin",
    version,
    about = "What CRI-O pins, by which pattern, from which file, and what a change would do",
    after_help = "Exit status: 0 fine, 1 findings (lint errors, explain --check disagreements or \
                  undecided images), 2 unusable input (usage, unreadable or malformed files, a \
                  configuration CRI-O would refuse, now or after a SIGHUP reload). Nothing is ever \
                  written."
)]
struct Cli {
    #[command(flatten)]
    sources: SourceArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args)]
struct SourceArgs {
    /// CRI-O's main configuration file [env: CONTAINER_CONFIG] [default: /etc/crio/crio.conf]
    #[arg(long, short = 'c', value_name = "FILE", global = true)]
    config: Option<String>,
    /// CRI-O's drop-in directory, walked recursively in lexical order
    /// [env: CONTAINER_CONFIG_DIR] [default: /etc/crio/crio.conf.d]
    #[arg(long, short = 'd', value_name = "DIR", global = true)]
    config_dir: Option<String>,
    /// Comma-separated patterns replacing the files' list, as CRI-O's flag
    /// (repeatable) [env: CONTAINER_PINNED_IMAGES]
    #[arg(long, value_name = "LIST", global = true)]
    pinned_images: Vec<String>,
    /// The pause image, which CRI-O appends as an exact pattern
    /// [env: CONTAINER_PAUSE_IMAGE] [default: registry.k8s.io/pause:3.10.1]
    #[arg(long, value_name = "REF", global = true)]
    pause_image: Option<String>,
    /// Read patterns from FILE instead (one a line, '#' comments; no pause image)
    #[arg(long, value_name = "FILE", global = true,
          conflicts_with_all = ["config", "config_dir", "pinned_images", "pause_image"])]
    patterns: Option<String>,
    /// Anchor globs: `prefix*` pins only names starting with prefix (not CRI-O)
    #[arg(long, global = true)]
    anchor_globs: bool,
    /// Compare case-sensitively (not CRI-O)
    #[arg(long, global = true)]
    case_sensitive: bool,
    /// Reject likely mistakes (empty, literal '*', whitespace) as the library's strict mode
    #[arg(long, global = true)]
    strict: bool,
    /// JSON output for scripts
    #[arg(long, global = true)]
    json: bool,
}

impl SourceArgs {
    fn sources(&self) -> Sources {
        Sources {
            config: self.config.clone(),
            config_dir: self.config_dir.clone(),
            pinned_images: self.pinned_images.clone(),
            pause_image: self.pause_image.clone(),
            patterns: self.patterns.clone(),
            extra_dropin: None,
        }
    }

    fn flags(&self) -> Flags {
        let mut flags = Flags::DEFAULT;
        for (set, flag) in [
            (self.anchor_globs, Flags::ANCHOR_GLOBS),
            (self.case_sensitive, Flags::CASE_SENSITIVE),
            (self.strict, Flags::STRICT),
        ] {
            if set {
                flags = flags | flag;
            }
        }
        flags
    }
}

#[derive(Args)]
struct ImageArgs {
    /// Image names, as CRI-O stores them (a short name is qualified as CRI-O
    /// does: nginx:V1 is docker.io/library/nginx:V1)
    names: Vec<String>,
    /// The output of `crictl images -o json` (or its "images" array, `jq
    /// .images`), or image names one a line ('#' comments); `-` for stdin;
    /// anything else is an error
    #[arg(long, value_name = "FILE|-")]
    images: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// The effective pinned list, each pattern with its source (exit 2 when
    /// CRI-O would refuse it, or the files' list a SIGHUP reload loads instead)
    Config,
    /// What CRI-O does with each pattern, and likely mistakes (exit 1 on
    /// errors); also the files' list a SIGHUP reload loads in place of
    /// --pinned-images or CONTAINER_PINNED_IMAGES
    Lint {
        /// The output of `crictl images -o json` (or `-` for stdin): a pattern
        /// naming the canonical name (repo@digest) of an OCI artifact listed
        /// there pins it however it was pulled, and is not noted as needing a
        /// pull by digest
        #[arg(long, value_name = "FILE|-")]
        images: Option<String>,
    },
    /// For each image: pinned or not, by which pattern, from where (a refused
    /// list is explained by its valid patterns, with exit status 2)
    Explain {
        #[command(flatten)]
        images: ImageArgs,
        /// Exit 1 when the runtime's `pinned` differs from the configuration's
        /// answer, or an image is undecided (pinned or not depending on how it
        /// was pulled)
        #[arg(long)]
        check: bool,
        /// With --check: accept undecided images (a pattern names a digest
        /// crictl shows for an image pulled by tag)
        #[arg(long, requires = "check")]
        allow_undecided: bool,
    },
    /// Which images gain or lose a pin with a change
    Diff {
        #[command(flatten)]
        images: ImageArgs,
        /// A drop-in about to be written into the config directory
        #[arg(long, value_name = "FILE", group = "change")]
        dropin: Option<String>,
        /// The file name the drop-in will have in the drop-in directory, e.g.
        /// 99-new.conf, which sets its place in CRI-O's order (default: FILE's
        /// name; not a path)
        #[arg(long = "as", value_name = "NAME", requires = "dropin")]
        dropin_name: Option<String>,
        /// A new pattern list (one a line) replacing the configured one
        #[arg(long, value_name = "FILE", group = "change")]
        new_patterns: Option<String>,
        /// The mode to change to: anchored globs
        #[arg(long, group = "change")]
        to_anchor_globs: bool,
        /// The mode to change to: case-sensitive
        #[arg(long, group = "change")]
        to_case_sensitive: bool,
    },
    /// Write the manual pages, crio-pin.1 and one per subcommand, into DIR
    /// (`make build` runs it; not part of the interface)
    #[command(hide = true)]
    GenerateMan { dir: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(InputError(message)) => {
            eprintln!("crio-pin: {}", show::escape(&message));
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode, InputError> {
    if let Command::GenerateMan { dir } = &cli.command {
        write_man_pages(dir).map_err(|e| InputError(format!("{}: {e}", dir.display())))?;
        return Ok(ExitCode::SUCCESS);
    }
    let args = &cli.sources;
    let flags = args.flags();
    let resolved = config::resolve(&args.sources())?;
    let mut out = Vec::new();
    // Said on standard error after the output: the lists CRI-O refuses.
    let mut errors: Vec<Refused> = Vec::new();
    let code = match &cli.command {
        Command::Config => {
            errors = refused::check_lists(&resolved, flags)?;
            if args.json {
                let patterns = resolved.entries.iter().enumerate().map(|(index, e)| PatternJson {
                    defined_at: e.defined_at.as_deref(),
                    index,
                    pattern: e.display(),
                    source: &e.source,
                });
                let config = ConfigJson {
                    files: &resolved.files,
                    patterns: patterns.collect(),
                    refused: &errors,
                    warnings: &resolved.warnings,
                };
                write_json(&mut out, &config);
            } else {
                print_config(&mut out, &resolved, &errors);
            }
            if errors.is_empty() {
                0
            } else {
                2
            }
        }
        Command::Lint { images } => {
            let artifacts = match images {
                Some(path) => Some(lint::Artifacts::new(&images::read(path)?, flags)),
                None => None,
            };
            let mut findings = lint::lint(&resolved.entries, flags, List::Effective, artifacts.as_ref());
            if let Some(reload) = &resolved.reload {
                let again = lint::lint(reload, flags, List::AfterReload, artifacts.as_ref());
                // The same finding on the same entry says nothing new.
                let new: Vec<lint::Finding> = again
                    .into_iter()
                    .filter(|r| {
                        !findings.iter().any(|f| f.code == r.code && f.source == r.source && f.pattern == r.pattern)
                    })
                    .collect();
                findings.extend(new);
            }
            let errors = findings.iter().filter(|f| f.severity == lint::Severity::Error).count();
            if args.json {
                write_json(&mut out, &serde_json::json!({ "findings": findings, "warnings": resolved.warnings }));
            } else {
                print_lint(&mut out, &resolved, &findings);
            }
            u8::from(errors > 0)
        }
        Command::Explain { images, check, allow_undecided } => {
            let list = load_images(images)?;
            if *check && list.iter().all(|i| i.runtime_pinned.is_none()) {
                return Err(InputError(
                    "explain --check compares with the runtime's `pinned` flags: give the output \
                     of `crictl images -o json` with --images"
                        .into(),
                ));
            }
            let compiled = refused::compile_valid(&resolved.entries, flags, List::Effective)?;
            let report = explain::explain(&resolved, &compiled, &list);
            if args.json {
                // Straight to text: a Value of 50,000 images would double the work.
                #[derive(serde::Serialize)]
                struct Out<'a> {
                    images: &'a [explain::Explained],
                    disagreements: usize,
                    undecided: usize,
                    refused: &'a [Refused],
                }
                let json = Out {
                    images: &report.images,
                    disagreements: report.disagreements,
                    undecided: report.undecided,
                    refused: &report.refused,
                };
                write_json(&mut out, &json);
            } else {
                explain::print(&mut out, &report, *check);
            }
            if !report.refused.is_empty() {
                errors = report.refused;
                2
            } else {
                let undecided = report.undecided > 0 && !*allow_undecided;
                u8::from(*check && (report.disagreements > 0 || undecided))
            }
        }
        Command::Diff { images, dropin, dropin_name, new_patterns, to_anchor_globs, to_case_sensitive } => {
            let list = load_images(images)?;
            let before = refused::compile(&resolved.entries, flags, List::Effective)?;
            let (after_resolved, after_flags);
            if let Some(file) = dropin {
                if args.patterns.is_some() {
                    return Err(InputError(
                        "--dropin previews a change to CRI-O's configuration; it cannot be combined with --patterns"
                            .into(),
                    ));
                }
                let name = match dropin_name {
                    Some(n) => plain_file_name(n)?,
                    None => std::path::Path::new(file)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .ok_or_else(|| InputError(format!("{file}: give the drop-in's name with --as")))?,
                };
                let mut sources = args.sources();
                sources.extra_dropin = Some((name, file.clone()));
                after_resolved = config::resolve(&sources)?;
                after_flags = flags;
            } else if let Some(file) = new_patterns {
                let mut new = config::resolve(&Sources { patterns: Some(file.clone()), ..Sources::default() })?;
                // CRI-O still appends its pause image to a new list.
                new.entries.extend(resolved.entries.iter().filter(|e| e.source == "pause_image").cloned());
                after_resolved = new;
                after_flags = flags;
            } else if *to_anchor_globs || *to_case_sensitive {
                after_resolved = config::resolve(&args.sources())?;
                after_flags = flags
                    | if *to_anchor_globs { Flags::ANCHOR_GLOBS } else { Flags::DEFAULT }
                    | if *to_case_sensitive { Flags::CASE_SENSITIVE } else { Flags::DEFAULT };
            } else {
                return Err(InputError(
                    "diff needs a change: --dropin FILE [--as NAME], --new-patterns FILE, \
                     --to-anchor-globs or --to-case-sensitive"
                        .into(),
                ));
            }
            let after = refused::compile(&after_resolved.entries, after_flags, List::Effective)
                .map_err(|InputError(e)| InputError(format!("the list after the change is refused: {e}")))?;
            let (before, after) = (refused::Compiled::from(before), refused::Compiled::from(after));
            let diff = explain::diff(&resolved, &before, &after_resolved, &after, &list);
            if args.json {
                write_json(
                    &mut out,
                    &serde_json::json!({ "gained": diff.gained, "lost": diff.lost, "warnings": diff.new_warnings }),
                );
            } else {
                explain::print_diff(&mut out, &diff);
            }
            0
        }
        Command::GenerateMan { .. } => unreachable!("handled before reading the configuration"),
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(&out);
    for e in &errors {
        eprintln!("crio-pin: {}", show::escape(&e.line()));
    }
    Ok(ExitCode::from(code))
}

/// `--as NAME`, the drop-in's name inside the drop-in directory. CRI-O
/// reads drop-ins in the order of their names: a path (`./99-x.conf`,
/// `/etc/crio/crio.conf.d/99-x.conf`) would put the preview elsewhere.
fn plain_file_name(name: &str) -> Result<String, InputError> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(InputError(format!(
            "--as {}: --as takes the file name the drop-in would have inside the drop-in directory, \
             e.g. 99-new.conf, not a path: CRI-O reads drop-ins in the order of those names",
            show::quote(name)
        )));
    }
    Ok(name.to_string())
}

/// crio-pin.1 and crio-pin-SUBCOMMAND.1 for each visible subcommand, made
/// from the definitions above, as --help is.
fn write_man_pages(dir: &Path) -> std::io::Result<()> {
    // No page for clap's own `help` subcommand; build() propagates the
    // global options into each subcommand's page.
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    // Every page's footer names the tool and its version, not the subcommand.
    let source = format!("crio-pin {}", env!("CARGO_PKG_VERSION"));
    let subcommands = cli.get_subcommands().filter(|c| !c.is_hide_set()).cloned();
    std::fs::create_dir_all(dir)?;
    for page in std::iter::once(cli.clone()).chain(subcommands) {
        clap_mangen::Man::new(page).source(&source).generate_to(dir)?;
    }
    Ok(())
}

fn load_images(args: &ImageArgs) -> Result<Vec<images::Image>, InputError> {
    let mut list = args
        .names
        .iter()
        .map(|n| {
            images::plain(n).map_err(|why| {
                InputError(format!(
                    "{}: not an image name ({why}); give names as `crictl images` shows them",
                    show::quote(n)
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.images {
        list.extend(images::read(path)?);
    }
    if list.is_empty() {
        return Err(InputError(format!("no images: give names, or --images FILE ({})", images::EXPECTED)));
    }
    Ok(list)
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
    index: usize,
    pattern: String,
    source: &'a str,
}

fn write_json(out: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer_pretty(&mut *out, value).expect("writing JSON to memory");
    out.push(b'\n');
}

/// Rows as aligned columns (the last column is not padded).
pub fn table(out: &mut Vec<u8>, header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: Vec<&str>| {
        let last = cells.len() - 1;
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            s.push_str(cell);
            if i < last {
                s.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        out.extend_from_slice(s.trim_end().as_bytes());
        out.push(b'\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

pub fn print_warnings(out: &mut Vec<u8>, warnings: &[config::Warning]) {
    for w in warnings {
        let _ = writeln!(out, "warning[{}]: {}", w.code, show::escape(&w.message));
    }
}

fn print_config(out: &mut Vec<u8>, resolved: &config::Resolved, errors: &[Refused]) {
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
        table(out, &["#", "PATTERN", "SOURCE"], &rows);
    }
    print_warnings(out, &resolved.warnings);
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

fn print_lint(out: &mut Vec<u8>, resolved: &config::Resolved, findings: &[lint::Finding]) {
    for f in findings {
        let list = if f.list == List::AfterReload.as_str() { ", in the list a SIGHUP reload loads" } else { "" };
        let _ = writeln!(
            out,
            "{}[{}]: pattern {} {} ({}{list}): {}",
            f.severity.as_str(),
            f.code,
            f.index,
            show::quote(&f.pattern),
            show::escape(&f.source),
            show::escape(&f.message)
        );
    }
    print_warnings(out, &resolved.warnings);
    let count = |s| findings.iter().filter(|f| f.severity == s).count();
    let reload = match &resolved.reload {
        Some(list) => format!(", and {} in the files' list a SIGHUP reload loads", list.len()),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{} pattern(s){reload}: {} error(s), {} warning(s), {} note(s)",
        resolved.entries.len(),
        count(lint::Severity::Error),
        count(lint::Severity::Warning),
        count(lint::Severity::Info)
    );
}
