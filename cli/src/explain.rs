//! `explain` and `diff`: which pattern pins which image, decided on the
//! names CRI-O stores.

use std::io::Write;

use serde::Serialize;

use crate::config::{Entry, Resolved};
use crate::images::{Image, Name};
use crate::refused::{Compiled, Refused};
use crate::show;

#[derive(Serialize)]
pub struct DependsOnPull {
    pub name: String,
    pub pattern_index: usize,
    pub pattern: String,
}

#[derive(Serialize)]
pub struct Explained {
    pub id: Option<String>,
    /// Every name the image was listed with.
    pub names: Vec<String>,
    /// The names CRI-O matches: those it stores (a repoTag; a repoDigest
    /// of an image pulled by digest), or both names of an OCI artifact.
    pub stored_names: Vec<String>,
    pub pinned: bool,
    pub pattern_index: Option<usize>,
    pub pattern: Option<String>,
    pub source: Option<String>,
    /// The stored name the pattern matched.
    pub decided_by: Option<String>,
    pub runtime_pinned: Option<bool>,
    /// Computed digests a pattern would match: a pin that holds only if the
    /// image was pulled by that digest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub depends_on_pull: Vec<DependsOnPull>,
    /// "agree", "disagree" or "undecided" (pinned or not depending on how
    /// the image was pulled: `depends_on_pull`); null without a runtime
    /// flag, or when the list is refused.
    pub check: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
    /// A short name as given by hand; `names` has the fully qualified form
    /// CRI-O stores, which is the one explained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    /// Why CRI-O refuses to pull a name given by hand, which no image can
    /// then have (e.g. "repository name must be lowercase").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_name: Option<String>,
    /// Taken for an OCI artifact, and why ("id equals the manifest digest
    /// of its repoDigest"): CRI-O matches its reference and its canonical
    /// name, however it was pulled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<&'static str>,
}

pub struct Report {
    pub images: Vec<Explained>,
    pub disagreements: usize,
    /// Images pinned or not depending on how they were pulled.
    pub undecided: usize,
    /// The patterns that make the list refused (then the set holds the
    /// others, and nothing is compared with the runtime).
    pub refused: Vec<Refused>,
    /// How many patterns the set holds.
    pub valid_patterns: usize,
}

/// The lowest pattern index over the names CRI-O matches, as CRI-O's loop
/// finds a match, and the name it matched.
fn decide<'a>(compiled: &Compiled, image: &'a Image) -> Option<(usize, &'a Name)> {
    image
        .names
        .iter()
        .filter(|n| n.stored)
        .filter_map(|n| compiled.set.match_index(n.text.as_bytes()).map(|i| (i, n)))
        .min_by_key(|(i, _)| *i)
        .map(|(i, n)| (compiled.list_index(i), n))
}

pub fn explain(resolved: &Resolved, compiled: &Compiled, images: &[Image]) -> Report {
    let entries = &resolved.entries;
    let refused = !compiled.refused.is_empty();
    let (mut disagreements, mut undecided) = (0, 0);
    let explained = images
        .iter()
        .map(|image| {
            let decided = decide(compiled, image);
            let pinned = decided.is_some();
            // Only worth saying when the stored names do not pin it anyway.
            let depends_on_pull: Vec<DependsOnPull> = image
                .names
                .iter()
                .filter(|n| !pinned && !n.stored)
                .filter_map(|n| {
                    compiled.set.match_index(n.text.as_bytes()).map(|i| {
                        let i = compiled.list_index(i);
                        DependsOnPull { name: n.text.clone(), pattern_index: i, pattern: entries[i].display() }
                    })
                })
                .collect();
            if !depends_on_pull.is_empty() {
                undecided += 1;
            }
            let check = image.runtime_pinned.filter(|_| !refused).map(|runtime| {
                if !depends_on_pull.is_empty() {
                    "undecided"
                } else if runtime == pinned {
                    "agree"
                } else {
                    "disagree"
                }
            });
            let causes = if check == Some("disagree") {
                disagreements += 1;
                causes(resolved, image, image.runtime_pinned == Some(true), decided.map(|(_, n)| n))
            } else {
                Vec::new()
            };
            Explained {
                id: image.id.clone(),
                names: image.names.iter().map(|n| n.text.clone()).collect(),
                stored_names: image.names.iter().filter(|n| n.stored).map(|n| n.text.clone()).collect(),
                pinned,
                pattern_index: decided.map(|(i, _)| i),
                pattern: decided.map(|(i, _)| entries[i].display()),
                source: decided.map(|(i, _)| entries[i].source.clone()),
                decided_by: decided.map(|(_, n)| n.text.clone()),
                runtime_pinned: image.runtime_pinned,
                depends_on_pull,
                check,
                causes,
                given: image.given.clone(),
                refused_name: image.refused.clone(),
                artifact: image.artifact,
            }
        })
        .collect();
    Report {
        images: explained,
        disagreements,
        undecided,
        refused: compiled.refused.clone(),
        valid_patterns: compiled.set.len(),
    }
}

/// The likely reasons the running CRI-O pins differently from the files.
fn causes(resolved: &Resolved, image: &Image, runtime_pins: bool, decided_by: Option<&Name>) -> Vec<String> {
    let mut out = Vec::new();
    if runtime_pins && image.artifact.is_some() {
        out.push(
            "the artifact is in one of CRI-O's additional artifact stores, which are read-only: CRI-O \
             pins every artifact there whatever the list"
                .to_string(),
        );
    }
    if runtime_pins {
        out.push(
            "the running CRI-O still has an older list: the files changed and no reload was sent \
             (SIGHUP: systemctl reload crio)"
                .to_string(),
        );
        for w in resolved.warnings.iter().filter(|w| w.code == "overridden-list") {
            out.push(format!("a drop-in overriding the list, not yet reloaded: {}", w.message));
        }
    } else {
        out.push(
            "the configuration on disk is newer than the running one: no reload was sent \
             (SIGHUP: systemctl reload crio)"
                .to_string(),
        );
        // A repoTag is always stored; a digest or a name given by hand may
        // not be. (An artifact's canonical name is always matched.)
        if let Some(name) = decided_by.filter(|n| !n.is_tag && image.artifact.is_none()) {
            out.push(format!(
                "the name {} is not stored: CRI-O matches only the names in its storage \
                 (a repoDigest is stored only for a pull by digest)",
                show::quote(&name.text)
            ));
        }
    }
    out.push(
        "a reload was rejected and CRI-O kept its older list (its log says \"Unable to reload \
         configuration\"; a runtime that keeps the old list on a bad reload may still log \
         \"Configuration reload completed\" and dump the rejected list)"
            .to_string(),
    );
    out.push(
        "CRI-O runs with --pinned-images, CONTAINER_PINNED_IMAGES or other --config/--config-dir \
         than read here"
            .to_string(),
    );
    out
}

fn short_id(id: &Option<String>) -> String {
    let id: String =
        id.as_deref().map(|i| i.trim_start_matches("sha256:").chars().take(13).collect()).unwrap_or_default();
    show::escape(&id).into_owned()
}

/// The name to show for an image, escaped and quoted as needed.
fn shown_name(e: &Explained) -> String {
    let name = e.decided_by.as_ref().or(e.names.first()).map_or("", String::as_str);
    show::name(name).into_owned()
}

fn yes_no(b: Option<bool>) -> String {
    match b {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "-".into(),
    }
}

/// The tool's answer: pinned, not pinned, or depending on the pull.
fn answer(e: &Explained) -> String {
    if !e.pinned && !e.depends_on_pull.is_empty() {
        "undecided".into()
    } else {
        yes_no(Some(e.pinned))
    }
}

pub fn print(out: &mut Vec<u8>, report: &Report, check: bool) {
    let has_runtime = report.images.iter().any(|e| e.runtime_pinned.is_some());
    let has_ids = report.images.iter().any(|e| e.id.is_some());
    let mut header = vec!["PINNED"];
    if has_ids {
        header.push("ID");
    }
    header.extend(["IMAGE", "PATTERN", "SOURCE"]);
    if has_runtime {
        header.push("RUNTIME");
    }
    let rows: Vec<Vec<String>> = report
        .images
        .iter()
        .map(|e| {
            let mut row = vec![answer(e)];
            if has_ids {
                row.push(short_id(&e.id));
            }
            row.push(shown_name(e));
            row.push(match (e.pattern_index, &e.pattern) {
                (Some(i), Some(p)) => format!("#{i} {}", show::quote(p)),
                _ => "-".into(),
            });
            row.push(e.source.as_deref().map_or("-".into(), |s| show::escape(s).into_owned()));
            if has_runtime {
                let mark = match e.check {
                    Some("disagree") => "  <-- DISAGREES",
                    Some("undecided") => "  <-- UNDECIDED",
                    _ => "",
                };
                row.push(format!("{}{mark}", yes_no(e.runtime_pinned)));
            }
            row
        })
        .collect();
    crate::table(out, &header, &rows);
    for e in &report.images {
        let name = shown_name(e);
        if let Some(why) = e.artifact {
            let _ = writeln!(
                out,
                "note: {name} is taken for an OCI artifact ({why}): CRI-O pins an artifact when a \
                 pattern matches its reference (the repoTag) or its canonical name (the repoDigest), \
                 however it was pulled"
            );
        }
        if let Some(given) = &e.given {
            let _ = writeln!(
                out,
                "note: {} is stored by CRI-O as {} (it qualifies every name it pulls): that is the \
                 name explained, and the one to pin",
                show::quote(given),
                show::quote(e.names.first().map_or("", String::as_str))
            );
        }
        if let Some(why) = &e.refused_name {
            let _ = writeln!(
                out,
                "note: {name}: CRI-O refuses to pull an image by this name ({why}), so no image on a \
                 node has it; it is explained as given"
            );
        }
        for d in &e.depends_on_pull {
            let _ = writeln!(
                out,
                "note: {name}: pattern #{} {} names the digest {}; CRI-O stores that name only \
                 if the image was pulled by it (crictl computes it for an image pulled by tag), \
                 so whether it pins this image depends on how the image was pulled",
                d.pattern_index,
                show::quote(&d.pattern),
                show::quote(&d.name)
            );
        }
        if e.check == Some("undecided") {
            let runtime = if e.runtime_pinned == Some(true) {
                "the running CRI-O pins it, as it would after a pull by that digest"
            } else {
                "the running CRI-O does not pin it, as it would after a pull by tag only"
            };
            let _ = writeln!(
                out,
                "UNDECIDED: {name}: pinned only if it was pulled by the digest above, which a listing \
                 cannot tell (crictl shows a repoDigest however the image was pulled); {runtime}, or \
                 it runs another list. To decide it, pin its tag too, or drop the digest pattern; \
                 --allow-undecided accepts it"
            );
        }
        if e.check == Some("disagree") {
            let (runtime, config) =
                if e.runtime_pinned == Some(true) { ("pins", "does not pin") } else { ("does not pin", "pins") };
            let _ = writeln!(
                out,
                "DISAGREEMENT: {name}: the running CRI-O {runtime} it, the configuration read here \
                 {config} it. Likely causes:"
            );
            for c in &e.causes {
                let _ = writeln!(out, "  - {}", show::escape(c));
            }
        }
    }
    let images = report.images.len();
    let pinned = report.images.iter().filter(|e| e.pinned).count();
    let undecided = if report.undecided > 0 { format!(", {} undecided", report.undecided) } else { String::new() };
    if !report.refused.is_empty() {
        let runtime = if has_runtime { ": the RUNTIME column shows what it pins" } else { "" };
        let _ = writeln!(
            out,
            "REFUSED: the list read here is refused ({} pattern(s); standard error says why, and what \
             stock CRI-O and a runtime built on the crio-pin library do with it). The list in force is \
             the one the runtime had before, which this tool cannot know{runtime}. PINNED and PATTERN \
             show what the list's other {} pattern(s) would pin.",
            report.refused.len(),
            report.valid_patterns
        );
        let _ =
            writeln!(out, "{images} image(s), {pinned} pinned by the valid patterns{undecided}; the list is refused");
    } else if check || has_runtime {
        let _ = writeln!(
            out,
            "{images} image(s), {pinned} pinned{undecided}; {} disagreement(s) with the runtime",
            report.disagreements
        );
    } else {
        let _ = writeln!(out, "{images} image(s), {pinned} pinned{undecided}");
    }
}

#[derive(Serialize)]
pub struct Change {
    pub id: Option<String>,
    pub names: Vec<String>,
    pub decided_by: String,
    pub pattern_index: usize,
    pub pattern: String,
    pub source: String,
    /// Taken for an OCI artifact, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<&'static str>,
}

pub struct Diff {
    pub gained: Vec<Change>,
    pub lost: Vec<Change>,
    /// Warnings that only the changed configuration has.
    pub new_warnings: Vec<crate::config::Warning>,
}

pub fn diff(
    before: &Resolved,
    before_set: &Compiled,
    after: &Resolved,
    after_set: &Compiled,
    images: &[Image],
) -> Diff {
    let change = |image: &Image, (i, name): (usize, &Name), entries: &[Entry]| Change {
        id: image.id.clone(),
        names: image.names.iter().map(|n| n.text.clone()).collect(),
        decided_by: name.text.clone(),
        pattern_index: i,
        pattern: entries[i].display(),
        source: entries[i].source.clone(),
        artifact: image.artifact,
    };
    let mut gained = Vec::new();
    let mut lost = Vec::new();
    for image in images {
        match (decide(before_set, image), decide(after_set, image)) {
            (None, Some(by)) => gained.push(change(image, by, &after.entries)),
            (Some(by), None) => lost.push(change(image, by, &before.entries)),
            _ => {}
        }
    }
    let new_warnings =
        after.warnings.iter().filter(|w| !before.warnings.iter().any(|b| b.message == w.message)).cloned().collect();
    Diff { gained, lost, new_warnings }
}

pub fn print_diff(out: &mut Vec<u8>, diff: &Diff) {
    for (title, changes, how) in
        [("gain a pin", &diff.gained, "pinned by"), ("lose their pin", &diff.lost, "was pinned by")]
    {
        let _ = writeln!(out, "{} image(s) {title}", changes.len());
        if !changes.is_empty() {
            let rows: Vec<Vec<String>> = changes
                .iter()
                .map(|c| {
                    vec![
                        show::name(&c.decided_by).into_owned(),
                        format!("#{} {}", c.pattern_index, show::quote(&c.pattern)),
                        show::escape(&c.source).into_owned(),
                    ]
                })
                .collect();
            crate::table(out, &["IMAGE", &how.to_uppercase(), "SOURCE"], &rows);
        }
    }
    for c in diff.gained.iter().chain(&diff.lost) {
        if let Some(why) = c.artifact {
            let _ = writeln!(
                out,
                "note: {} is taken for an OCI artifact ({why}): CRI-O pins an artifact when a pattern \
                 matches its reference (the repoTag) or its canonical name (the repoDigest), however it \
                 was pulled",
                show::name(&c.decided_by)
            );
        }
    }
    crate::print_warnings(out, &diff.new_warnings);
}
