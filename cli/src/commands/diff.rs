//! `crio-pin diff`: which images gain or lose a pin with one change: a
//! drop-in about to be written, a new list, or a mode. Exit status 1 when
//! an image loses its pin (gains alone exit 0), so that a script can gate
//! a change on "no pin lost" as it would on `git diff --exit-code`.

use crio_pin::Flags;

use crate::args::{ImageArgs, SourceArgs};
use crate::error::InputError;
use crate::list::Resolved;
use crate::matching::{self, Diff, PatternPin};
use crate::output::{self, write_json, Column, Outcome};
use crate::refused::{self, List};
use crate::runtime::Runtime;
use crate::runtimes;
use crate::show;
use crate::sources::Sources;

/// The change to preview (`args::Command::Diff`; clap lets exactly one
/// through).
pub struct Change<'a> {
    pub dropin: Option<&'a str>,
    pub dropin_name: Option<&'a str>,
    pub new_patterns: Option<&'a str>,
    pub to_anchor_globs: bool,
    pub to_case_sensitive: bool,
}

/// `quiet`: the names alone, `-NAME` lost, `+NAME` gained.
pub fn run(args: &SourceArgs, images: &ImageArgs, change: Change<'_>, quiet: bool) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    previewable(runtime, &change)?;
    let resolved = runtimes::resolve(&args.sources(runtime))?;
    let mut out = Vec::new();
    let list = super::load_images(images, runtime)?;
    super::note_missing_dir(&resolved, args.no_trunc);
    let before = refused::compile(&resolved.entries, flags, List::Effective, runtime.model())?;
    let (after_resolved, after_flags) = after_change(args, runtime, flags, &resolved, &change)?;
    let after = refused::compile(&after_resolved.entries, after_flags, List::Effective, runtime.model())
        .map_err(|InputError(e)| InputError(format!("the list after the change is refused: {e}")))?;
    let (before, after) = (refused::Compiled::from(before), refused::Compiled::from(after));
    let diff = matching::diff(runtime, &resolved, &before, &after_resolved, &after, &list);
    if args.json {
        write_json(
            &mut out,
            &serde_json::json!({
                "gained": diff.gained,
                "lost": diff.lost,
                "still_pinned_by_label": diff.still_pinned_by_label,
                "warnings": diff.new_warnings,
            }),
        );
    } else if quiet {
        for (sign, changes) in [('-', &diff.lost), ('+', &diff.gained)] {
            for c in changes {
                out.extend_from_slice(format!("{sign}{}\n", show::name(shown_image(c))).as_bytes());
            }
        }
    } else {
        print(&mut out, &diff, args.no_trunc);
    }
    // As diff(1) signals a difference; a gain alone is no loss, nor is a
    // pattern's pin taken from an image a label keeps pinned.
    Ok(Outcome { out, refused: Vec::new(), code: u8::from(!diff.lost.is_empty()) })
}

/// Whether the change can be previewed under `runtime`: a drop-in needs a
/// drop-in directory, a new mode a runtime with modes; a new list any.
fn previewable(runtime: Runtime, change: &Change<'_>) -> Result<(), InputError> {
    let previewable = match change.dropin {
        Some(_) => runtime.facts().unread.config_dir.is_none(),
        None => runtime.facts().modes.bits() != 0,
    };
    if !previewable && change.new_patterns.is_none() {
        let what = match change.dropin {
            Some(_) => "--dropin previews a drop-in of CRI-O's",
            None if change.to_anchor_globs => "--to-anchor-globs changes a mode of CRI-O's rules",
            None => "--to-case-sensitive changes a mode of CRI-O's rules",
        };
        Err(InputError(format!(
            "{what}: with --runtime {}, preview a new list with --new-patterns FILE",
            runtime.facts().option
        )))
    } else {
        Ok(())
    }
}

/// The list after the change, and the flags it is compiled with:
/// `resolved` (read under `flags`) with the drop-in added, replaced by the
/// new list, or under the new modes.
fn after_change(
    args: &SourceArgs,
    runtime: Runtime,
    flags: Flags,
    resolved: &Resolved,
    change: &Change<'_>,
) -> Result<(Resolved, Flags), InputError> {
    if let Some(file) = change.dropin {
        if args.patterns.is_some() {
            return Err(InputError(
                "--dropin previews a change to CRI-O's configuration; it cannot be combined with --patterns".into(),
            ));
        }
        let name = match change.dropin_name {
            Some(n) => plain_file_name(n)?,
            None => std::path::Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| InputError(format!("{file}: give the drop-in's name with --as")))?,
        };
        let mut sources = args.sources(runtime);
        sources.extra_dropin = Some((name, file.to_string()));
        Ok((runtimes::resolve(&sources)?, flags))
    } else if let Some(file) = change.new_patterns {
        let mut new = runtimes::resolve(&Sources { patterns: Some(file.to_string()), ..Sources::default() })?;
        // CRI-O still appends its pause image to a new list; containerd
        // keeps its sandbox key, the image pods run.
        new.entries.extend(resolved.entries.iter().filter(|e| e.is_pause_image()).cloned());
        // cri-dockerd's label selectors are flags beside the list: a new
        // list keeps them.
        new.label_selectors = resolved.label_selectors.clone();
        Ok((new, flags))
    } else if change.to_anchor_globs || change.to_case_sensitive {
        let modes = if change.to_anchor_globs { Flags::ANCHOR_GLOBS } else { Flags::DEFAULT }
            | if change.to_case_sensitive { Flags::CASE_SENSITIVE } else { Flags::DEFAULT };
        Ok((runtimes::resolve(&args.sources(runtime))?, flags | modes))
    } else {
        Err(InputError(
            "diff needs a change: --dropin FILE [--as NAME], --new-patterns FILE, \
             --to-anchor-globs or --to-case-sensitive"
                .into(),
        ))
    }
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

/// The name an image whose pin changes is shown by: the one that decided,
/// unless containerd's image ID did (the image's name says more).
fn shown_image(c: &matching::Change) -> &str {
    match c.names.first() {
        Some(name) if !c.names.contains(&c.decided_by) => name,
        _ => &c.decided_by,
    }
}

fn print(out: &mut Vec<u8>, diff: &Diff, full: bool) {
    for (title, changes, how) in
        [("gain a pin", &diff.gained, "pinned by"), ("lose their pin", &diff.lost, "was pinned by")]
    {
        output::say(out, &format!("{} image(s) {title}", changes.len()), full);
        if !changes.is_empty() {
            let rows: Vec<Vec<String>> = changes
                .iter()
                .map(|c| {
                    let image = shown_image(c);
                    vec![
                        show::name(image).into_owned(),
                        output::pattern_cell(c.pattern_index, c.origin.key.as_deref(), &c.pattern, image, full),
                        show::escape(&c.origin.source).into_owned(),
                    ]
                })
                .collect();
            let how = how.to_uppercase();
            let columns =
                [Column::whole("IMAGE"), Column::whole(&how).first_word(2), Column::source("SOURCE").optional(1)];
            output::table(out, &columns, &rows, full);
        }
    }
    for c in diff.gained.iter().chain(&diff.lost) {
        if let Some(why) = c.artifact {
            output::say(
                out,
                &format!(
                    "note: {} is taken for an OCI artifact ({why}): CRI-O pins an artifact when a pattern \
                     matches its reference (the repoTag) or its canonical name (the repoDigest), however it \
                     was pulled",
                    show::name(&c.decided_by)
                ),
                full,
            );
        }
    }
    for kept in &diff.still_pinned_by_label {
        let c = &kept.change;
        let pattern = format!("pattern #{} {}", c.pattern_index, show::quote(&c.pattern));
        let (prefix, what) = match kept.pattern_pin {
            PatternPin::Lost => ("STILL PINNED BY LABEL", format!("{pattern} no longer pins it")),
            PatternPin::Gained => ("ALREADY PINNED BY LABEL", format!("{pattern} pins it after the change")),
        };
        // Loud: the list alone would say the pin changes.
        output::say(
            out,
            &format!(
                "{prefix}: {}: {what}, which changes nothing for it: its label {} pins it whatever the list \
                 says: {}",
                show::name(shown_image(c)),
                show::quote(&kept.pinned_by_label.label),
                kept.pinned_by_label.why
            ),
            full,
        );
    }
    output::print_warnings(out, &diff.new_warnings, full);
}
