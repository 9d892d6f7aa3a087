//! The manual pages, made from the clap definitions (what --help shows),
//! the code's own lists of codes (codes.rs) and the exit statuses below,
//! which --help shows too: nothing on a page is written twice.

use std::path::Path;

use clap::{Arg, ArgAction, Command};
use clap_mangen::roff::{bold, italic, roman, Inline, Roff};

use crate::codes::{CauseCode, LintCode, WarningCode};
use crate::output;
use crate::runtime::Runtime;

/// Each command's exit statuses: what --help ends with, and the page's
/// EXIT STATUS.
pub fn exit_statuses(command: &str) -> &'static [(u8, &'static str)] {
    match command {
        "config" => CONFIG_EXITS,
        "lint" => LINT_EXITS,
        "explain" => EXPLAIN_EXITS,
        "translate" => TRANSLATE_EXITS,
        "diff" => DIFF_EXITS,
        "check" => CHECK_EXITS,
        "completions" => COMPLETIONS_EXITS,
        _ => ANY_COMMAND_EXITS,
    }
}

/// What every command's status 2 says.
const UNUSABLE: &str = "unusable input: usage (an option of another runtime than --runtime's), unreadable \
                        or malformed files, a configuration the runtime would refuse to start with";

/// config's exit statuses.
const CONFIG_EXITS: &[(u8, &str)] = &[
    (0, "the list is shown, warnings included"),
    (
        2,
        "unusable input, or a list the runtime may switch to (CRI-O: now, or after a SIGHUP reload) is \
         refused",
    ),
];

/// lint's exit statuses.
const LINT_EXITS: &[(u8, &str)] = &[
    (0, "no error (warnings and notes do not fail)"),
    (
        1,
        "an error: lone-star, invalid-utf8, control-character, bad-pause-image; under --strict also \
         empty, whitespace, \
         literal-star; under --runtime containerd-normalized not-a-reference (with --fix: an error left \
         in the fixed list)",
    ),
    (2, UNUSABLE),
];

/// explain's exit statuses.
const EXPLAIN_EXITS: &[(u8, &str)] = &[
    (0, "every image is explained; without --check a disagreement is shown but does not fail"),
    (1, "with --check: a disagreement with the runtime, or an undecided image (unless --allow-undecided)"),
    (
        2,
        "unusable input, --check without the runtime's pinned flags, or a list the runtime refuses (what \
         its valid patterns pin is still shown)",
    ),
];

/// translate's exit statuses.
const TRANSLATE_EXITS: &[(u8, &str)] = &[
    (
        0,
        "every pattern carries over exactly or is dropped (it pinned nothing under the source's rules), \
         and no image of --images would change",
    ),
    (
        1,
        "a pattern is wider, narrower, different, undecided or impossible in the target's terms (whether \
         or not an image of --images is affected), or an image's pin would change or depend on its pull",
    ),
    (2, "unusable input, or a list its runtime refuses"),
];

/// diff's exit statuses.
const DIFF_EXITS: &[(u8, &str)] = &[
    (
        0,
        "no image loses its pin (images that gain one are shown, and do not fail; so are those a label keeps \
         pinned when their pattern goes)",
    ),
    (1, "an image loses its pin: after the change neither a pattern nor a label pins it"),
    (
        2,
        "unusable input, no change or more than one, or a list the runtime refuses, before or after the \
         change",
    ),
];

/// check's exit statuses.
const CHECK_EXITS: &[(u8, &str)] = &[
    (0, "all right: no lint error, and the runtime pins each image as the configuration read here does"),
    (
        1,
        "a disagreement with the runtime, an undecided image (unless --allow-undecided) or a lint error \
         (warnings fail only with --fail-on-warnings, notes never)",
    ),
    (
        2,
        "unusable input, a runtime that cannot be asked (no socket, no answer within a few seconds, no CRI), \
         a listing without pinned flags or of more than 2,000,000 images, or a list the runtime may switch to \
         is refused (the rest is still \
         shown)",
    ),
];

/// completions's exit statuses.
const COMPLETIONS_EXITS: &[(u8, &str)] =
    &[(0, "the script is written"), (2, "usage: no shell, or another than bash, zsh or fish")];

/// any other page (the tool's own)'s exit statuses.
const ANY_COMMAND_EXITS: &[(u8, &str)] = &[
    (0, "fine"),
    (
        1,
        "findings: a lint error, an explain --check disagreement or undecided image, an image that loses \
         its pin in diff, a pattern translate cannot carry over exactly",
    ),
    (
        2,
        "unusable input: usage (an option of another runtime than --runtime's), unreadable or malformed \
         files, a configuration the runtime would refuse (CRI-O: now or after a SIGHUP reload). Nothing is \
         ever written",
    ),
];

/// The exit statuses as --help ends with them, each wrapped to the help's
/// width with its later lines under its text.
pub fn exit_status_help(command: &str) -> String {
    let within = output::width().min(HELP_WIDTH);
    let lines: Vec<String> = exit_statuses(command)
        .iter()
        .map(|(code, what)| output::wrapped(&format!("  {code}  {what}"), within, "     "))
        .collect();
    format!("Exit status:\n{}", lines.concat().trim_end())
}

/// `--runtime`'s long help: each runtime as its module describes it
/// (`Facts::help`), in the list's order.
pub fn runtime_help() -> String {
    let each: Vec<&str> = Runtime::ALL.iter().map(|r| r.facts().help).collect();
    format!(
        "The runtime whose configuration is read and whose rules decide [default: {}]\n\n{} [env: {}]",
        Runtime::default().facts().option,
        each.join("; "),
        crate::runtime::ENV
    )
}

/// `check --runtime-endpoint`'s long help: its defaults, each runtime's
/// own socket (`Facts::cri_endpoint`), each socket once (containerd's
/// rule sets share one).
pub fn endpoint_help() -> String {
    let mut defaults: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    for facts in Runtime::ALL.iter().map(|r| r.facts()) {
        if let Some(endpoint) = facts.cri_endpoint.filter(|e| !seen.contains(e)) {
            seen.push(endpoint);
            defaults.push(format!("{} {endpoint}", facts.name));
        }
    }
    format!(
        "The runtime's CRI socket, as crictl's --runtime-endpoint names it\n\nunix:///PATH (a bare path too), \
         usually root's only [env: {}] [default: the runtime's own: {}]",
        crate::cri::ENDPOINT_ENV,
        defaults.join(", ")
    )
}

/// The widest --help is: wider prose is harder to read, not shorter.
pub const HELP_WIDTH: usize = 100;

/// A section of codes: (title, introduction, each code and its line).
type CodeSection = (&'static str, &'static str, Vec<(&'static str, &'static str)>);

/// The codes a command's page lists.
fn code_sections(command: &str) -> Vec<CodeSection> {
    let warnings = || WarningCode::ALL.iter().map(|c| (c.as_str(), c.summary())).collect::<Vec<_>>();
    let lint = || LintCode::ALL.iter().map(|c| (c.as_str(), c.summary())).collect::<Vec<_>>();
    let refusing = [LintCode::LoneStar, LintCode::InvalidUtf8, LintCode::BadPauseImage, LintCode::NotAReference];
    let strict = [LintCode::Empty, LintCode::Whitespace, LintCode::ControlCharacter, LintCode::LiteralStar];
    match command {
        "config" => vec![
            ("WARNINGS", "Printed as warning[CODE]: MESSAGE; JSON warnings[].code.", warnings()),
            (
                "REFUSED LISTS",
                "A pattern that makes the runtime (CRI-O; containerd with a fix PR, --runtime \
                 containerd-normalized) or a runtime built on the crio-pin library refuse the list: error[CODE] \
                 on standard output, the reason on standard error, JSON refused[].code; exit status 2.",
                refusing.iter().chain(&strict).map(|c| (c.as_str(), c.summary())).collect(),
            ),
        ],
        "lint" => vec![
            (
                "FINDINGS",
                "Printed as SEVERITY[CODE]: pattern INDEX ...; a note found on more than 3 patterns, or a \
                 warning on more than 10, once, then SEVERITY[CODE]: the same on N more pattern(s), with examples \
                 (--verbose prints each, errors are always each; JSON findings[].code lists each).",
                lint(),
            ),
            ("WARNINGS", "The configuration's warnings, as config prints them; JSON warnings[].code.", warnings()),
        ],
        "explain" => vec![
            (
                "CHECKS",
                "With the runtime's pinned flags (crictl images -o json), each image's check; JSON \
                 images[].check.",
                vec![
                    (
                        "agree",
                        "the runtime pins the image exactly when the configuration read here does, or a label \
                         pins it (PINNED BY LABEL: the label, from the runtime's own listing given with --images)",
                    ),
                    ("disagree", "they differ: DISAGREEMENT, and the likely causes below"),
                    (
                        "undecided",
                        "pinned only by a digest CRI-O stores only for a pull by digest, which a listing cannot \
                         tell: UNDECIDED",
                    ),
                ],
            ),
            (
                "LIKELY CAUSES",
                "Each cause of the disagreements is stated once, with the images it can explain; JSON \
                 causes[].code, causes[].images.",
                CauseCode::ALL.iter().map(|c| (c.as_str(), c.summary())).collect(),
            ),
        ],
        "check" => [code_sections("lint"), code_sections("explain")].concat(),
        "diff" => vec![(
            "WARNINGS",
            "The warnings only the changed configuration has, as config prints them; JSON warnings[].code.",
            warnings(),
        )],
        _ => Vec::new(),
    }
}

/// The options of `cmd` that go only with another (clap's `requires`),
/// as (option id, the option it needs): applied to the definitions by
/// `with_requirements`, and nested so in the synopsis.
pub const REQUIRES: &[(&str, &str, &str)] =
    &[("explain", "allow_undecided", "check"), ("diff", "dropin_name", "dropin")];

/// The definitions with `REQUIRES` applied.
pub fn with_requirements(mut cmd: Command) -> Command {
    for &(sub, arg, needs) in REQUIRES {
        cmd = cmd.mut_subcommand(sub, |c| c.mut_arg(arg, |a| a.requires(needs)));
    }
    cmd
}

/// `--name VALUE`, `-c|--config FILE`, or a positional `NAMES...`.
fn option(arg: &Arg) -> Vec<Inline> {
    let mut out = Vec::new();
    if arg.is_positional() {
        let name = arg.get_value_names().map_or(arg.get_id().as_str().to_uppercase(), |v| v.join(" "));
        out.push(italic(name));
        if matches!(arg.get_action(), ArgAction::Append) {
            out.push(roman("..."));
        }
        return out;
    }
    if let Some(short) = arg.get_short() {
        out.push(bold(format!("-{short}")));
        out.push(roman("|"));
    }
    if let Some(long) = arg.get_long() {
        out.push(bold(format!("--{long}")));
    }
    if arg.get_num_args().is_some_and(|n| n.takes_values()) {
        let value = arg.get_value_names().map_or("VALUE".to_string(), |v| v.join(" "));
        out.push(roman(" "));
        out.push(italic(value));
    }
    out
}

fn optional(mut inner: Vec<Inline>, repeatable: bool) -> Vec<Inline> {
    inner.insert(0, roman("["));
    inner.push(roman("]"));
    if repeatable {
        inner.push(roman("..."));
    }
    inner
}

fn shown(arg: &Arg) -> bool {
    !arg.is_hide_set() && !matches!(arg.get_id().as_str(), "help" | "version")
}

/// The synopsis of `sub` (None: the top command), every option with its
/// argument: global options, the command, its own options (those that
/// need another nested in it, a group's alternatives in parentheses), its
/// operands.
fn synopsis(top: &Command, sub: Option<&Command>) -> Vec<Inline> {
    let mut line = vec![bold("crio-pin")];
    for arg in top.get_arguments().filter(|a| shown(a) && !a.is_positional()) {
        line.push(roman(" "));
        line.extend(optional(option(arg), matches!(arg.get_action(), ArgAction::Append)));
    }
    let Some(sub) = sub else {
        line.push(roman(" "));
        line.push(italic("COMMAND"));
        return line;
    };
    line.push(roman(" "));
    line.push(bold(sub.get_name().to_string()));
    let name = sub.get_name();
    let own: Vec<&Arg> = sub.get_arguments().filter(|a| shown(a) && !a.is_global_set()).collect();
    let needs = |a: &Arg| REQUIRES.iter().find(|r| r.0 == name && r.1 == a.get_id().as_str()).map(|r| r.2);
    // An option with the options that need it, nested.
    let with_dependents = |a: &Arg| {
        let mut out = option(a);
        for dependent in own.iter().filter(|d| needs(d) == Some(a.get_id().as_str())) {
            out.push(roman(" "));
            out.extend(optional(option(dependent), false));
        }
        out
    };
    let mut done: Vec<&str> = Vec::new();
    // The groups of alternatives (not derive's groups of a struct's fields).
    for group in sub.get_groups().filter(|g| !(*g).clone().is_multiple()) {
        let members: Vec<&Arg> = own.iter().copied().filter(|a| group.get_args().any(|id| id == a.get_id())).collect();
        if members.is_empty() {
            continue;
        }
        let required = group.is_required_set();
        line.push(roman(" "));
        line.push(roman(if required { "(" } else { "[" }));
        for (i, member) in members.iter().enumerate() {
            if i > 0 {
                line.push(roman(" | "));
            }
            line.extend(with_dependents(member));
            done.push(member.get_id().as_str());
        }
        line.push(roman(if required { ")" } else { "]" }));
    }
    for arg in own.iter().filter(|a| !a.is_positional() && needs(a).is_none()) {
        if done.contains(&arg.get_id().as_str()) {
            continue;
        }
        line.push(roman(" "));
        let option = with_dependents(arg);
        line.extend(if arg.is_required_set() {
            option
        } else {
            optional(option, matches!(arg.get_action(), ArgAction::Append))
        });
    }
    for arg in own.iter().filter(|a| a.is_positional()) {
        line.push(roman(" "));
        let operand = option(arg);
        line.extend(if arg.is_required_set() { operand } else { optional(operand, false) });
    }
    line
}

fn page(top: &Command, sub: Option<&Command>, source: &str) -> std::io::Result<(String, Vec<u8>)> {
    let cmd = sub.unwrap_or(top).clone();
    let name = sub.map_or("crio-pin".to_string(), |s| format!("crio-pin-{}", s.get_name()));
    let command = sub.map_or("", |s| s.get_name());
    let man = clap_mangen::Man::new(cmd.clone()).title(name.clone()).source(source);
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]).text(synopsis(top, sub));
    out.extend(roff.render().into_bytes());
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    if sub.is_none() {
        man.render_subcommands_section(&mut out)?;
    }
    let mut roff = Roff::new();
    for (section, intro, codes) in code_sections(command) {
        roff.control("SH", [section]).text([roman(intro)]);
        for (code, summary) in codes {
            roff.control("TP", []).text([bold(code)]).text([roman(summary)]);
        }
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in exit_statuses(command) {
        roff.control("TP", []).text([bold(code.to_string())]).text([roman(*what)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    match sub {
        Some(_) => {
            roff.text([bold("crio-pin"), roman("(1)")]);
        }
        None => {
            let mut pages = Vec::new();
            for (i, s) in top.get_subcommands().filter(|s| !s.is_hide_set()).enumerate() {
                if i > 0 {
                    pages.push(roman(", "));
                }
                pages.extend([bold(format!("crio-pin-{}", s.get_name())), roman("(1)")]);
            }
            roff.text(pages);
            roff.control("PP", []).text([
                roman("The library the tool is built on: "),
                bold("crio_pin.h"),
                roman(" (the C API, each function's contract), "),
                bold("pkg-config crio_pin"),
                roman("; the Go package "),
                bold("criopin"),
                roman(" ("),
                bold("go doc"),
                roman("); the Rust crate "),
                bold("crio-pin"),
                roman(" ("),
                bold("cargo doc"),
                roman(
                    "). In the source: docs/runtimes.md (each runtime's rules), docs/json.md (the JSON output), \
                       docs/cri-o.md (CRI-O on the library).",
                ),
            ]);
        }
    }
    if cmd.get_version().is_some() {
        out.extend(roff.render().into_bytes());
        man.render_version_section(&mut out)?;
    } else {
        out.extend(roff.render().into_bytes());
    }
    Ok((format!("{name}.1"), out))
}

/// crio-pin.1 and crio-pin-SUBCOMMAND.1 for each visible subcommand.
pub fn write_pages(top: Command, dir: &Path) -> std::io::Result<()> {
    // No page for clap's own `help` subcommand; build() propagates the
    // global options into each subcommand.
    let mut top = top.disable_help_subcommand(true);
    top.build();
    // Every page's footer names the tool and its version, not the subcommand.
    let source = format!("crio-pin {}", env!("CARGO_PKG_VERSION"));
    std::fs::create_dir_all(dir)?;
    let subs: Vec<Command> = top.get_subcommands().filter(|c| !c.is_hide_set()).cloned().collect();
    for sub in std::iter::once(None).chain(subs.iter().map(Some)) {
        let (file, text) = page(&top, sub, &source)?;
        let path = dir.join(&file);
        crate::atomic::write(&path, &text)
            .map_err(|e| std::io::Error::new(e.error.kind(), format!("{file}: {e}; {}", e.left(&path))))?;
    }
    Ok(())
}
