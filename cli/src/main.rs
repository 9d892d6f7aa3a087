//! `crio-pin`: what a node's container runtime pins (CRI-O; containerd,
//! cri-dockerd with `--runtime`), by which pattern, from which file, and
//! what a change would do. Reads configuration, never writes it (`lint
//! --fix-to FILE` writes a fixed list to a file it did not read).
//!
//! Exit status: 0 fine; 1 findings (a lint error, an `explain --check` or
//! `check` disagreement or undecided image, an image that loses its pin in `diff`,
//! a pattern `translate` cannot carry over exactly); 2 the input cannot be
//! used (usage,
//! unreadable or malformed files, a configuration the runtime would
//! refuse).
//!
//! This file parses and dispatches: the command line is `args`, each
//! command is a module of `commands`, writing out is `output`.

mod args;
mod atomic;
mod causes;
mod codes;
mod commands;
mod cri;
mod error;
mod findings;
mod fix;
mod go_filepath;
#[cfg(test)]
mod go_oracle;
mod images;
mod input;
mod labels;
mod lint;
mod list;
mod man;
mod matching;
mod output;
mod refused;
mod runtime;
mod runtimes;
mod show;
mod sources;
mod translate;

use std::process::ExitCode;

use args::Command;

fn main() -> ExitCode {
    let cli = args::parse();
    let sources = &cli.sources;
    output::use_color(sources.color);
    let outcome = match &cli.command {
        Command::Config { verbose, quiet } => commands::config::run(sources, *verbose, *quiet),
        Command::Lint { fix, .. } if fix.target().is_some() => commands::lint::fix(sources, fix.target()),
        Command::Lint { images, verbose, severity, quiet, kubelet, .. } => {
            let shown = commands::lint::Shown { verbose: *verbose, least: severity.unwrap_or(lint::Severity::Info) };
            commands::lint::run(sources, images, shown, *quiet, kubelet)
        }
        Command::Explain { images, check, quiet, allow_undecided, kubelet } => {
            commands::explain::run(sources, images, *check, *quiet, *allow_undecided, kubelet)
        }
        Command::Diff { images, dropin, dropin_name, new_patterns, to_anchor_globs, to_case_sensitive, quiet } => {
            let change = commands::diff::Change {
                dropin: dropin.as_deref(),
                dropin_name: dropin_name.as_deref(),
                new_patterns: new_patterns.as_deref(),
                to_anchor_globs: *to_anchor_globs,
                to_case_sensitive: *to_case_sensitive,
            };
            commands::diff::run(sources, images, change, *quiet)
        }
        Command::Translate { from, to, images, quiet } => {
            commands::translate::run(sources, *from, *to, images.as_deref(), *quiet)
        }
        Command::Check {
            runtime_endpoint,
            images,
            allow_undecided,
            fail_on_warnings,
            wait,
            format,
            metrics_per_pattern,
            every_image,
            quiet,
            kubelet,
        } => {
            let from =
                commands::check::ImagesFrom { listings: images, endpoint: runtime_endpoint.as_deref(), wait: *wait };
            let form = commands::check::Form {
                format: *format,
                per_pattern: *metrics_per_pattern,
                every_image: *every_image,
                quiet: *quiet,
            };
            let fails = commands::check::Fails { undecided: !*allow_undecided, warnings: *fail_on_warnings };
            commands::check::run(sources, from, fails, form, kubelet)
        }
        Command::Completions { shell } => commands::completions::run(*shell),
        Command::GenerateMan { dir } => commands::generate_man::run(dir),
    };
    match outcome {
        Ok(outcome) => output::finish(outcome, sources.no_trunc),
        Err(e) => output::report(e, sources.no_trunc),
    }
}
