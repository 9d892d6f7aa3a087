//! `crio-pin explain`: for each image, pinned or not, by which pattern,
//! from where; with `--check`, against the runtime's own flags.

use std::io::Write;

use crio_pin::Flags;

use crate::args::{ImageArgs, KubeletArgs, SourceArgs};
use crate::causes::Known;
use crate::error::InputError;
use crate::images::Image;
use crate::list::Resolved;
use crate::matching::{self, Cause, Explained, LeftOut, Pin, Report};
use crate::output::{self, write_json, Column, Outcome, Tone};
use crate::refused::{self, List, Refused};
use crate::runtime::Runtime;
use crate::runtimes::kubelet::verify::{Verdict, Verifier};
use crate::runtimes::{self, RegistryImage};
use crate::show;

pub fn run(
    args: &SourceArgs,
    images: &ImageArgs,
    check: bool,
    quiet: bool,
    allow_undecided: bool,
    kubelet: &KubeletArgs,
) -> Result<Outcome, InputError> {
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    let resolved = runtimes::resolve(&args.sources(runtime))?;
    let verifier = kubelet.verifier()?;
    let mut out = Vec::new();
    let list = super::load_images(images, runtime)?;
    super::note_missing_dir(&resolved, args.no_trunc);
    if check {
        require_runtime_flags(&list, "explain --check", "with --images")?;
    }
    let explanation = Explanation::new(&resolved, flags, &list, verifier.as_ref(), Known::default(), None)?;
    if args.json {
        write_json(&mut out, &explanation.json());
    } else if quiet {
        for e in explanation.report.images.iter().filter(|e| e.pinned || !e.depends_on_pull.is_empty()) {
            out.extend_from_slice(shown_name(e).as_bytes());
            out.push(b'\n');
        }
    } else {
        explanation.print(&mut out, check, args.no_trunc, runtime);
    }
    let code = explanation.code(check, allow_undecided);
    // Said on standard error after the output: why the list is refused.
    Ok(Outcome { out, refused: explanation.report.refused, code })
}

/// Err unless the runtime's `pinned` flags came with the images (`what`
/// compares with them; `how`: where to give them). An empty listing has
/// nothing to compare: the check passes.
pub fn require_runtime_flags(list: &[Image], what: &str, how: &str) -> Result<(), InputError> {
    if !list.is_empty() && list.iter().all(|i| i.runtime_pinned.is_none()) {
        return Err(InputError(format!(
            "{what} compares with the runtime's `pinned` flags: give the output of `crictl images -o json` {how}"
        )));
    }
    Ok(())
}

/// What the kubelet does with every image listed, kept or not.
#[derive(Default)]
pub struct KubeletCounts {
    /// The images it pulls again before a pod uses one, and those of them
    /// pinned.
    pub verified: usize,
    pub verified_pinned: usize,
    /// The images its allowlist trusts as preloaded that the list does not
    /// pin, by name.
    pub allowlisted_unpinned: Vec<String>,
    /// Whether the verdicts read its pull records, and the pinned images
    /// they make it pull again.
    pub reads_records: bool,
    pub recorded_pins: usize,
    /// The policy as the kubelet applies it, with where it was set.
    pub policy: String,
}

impl KubeletCounts {
    /// One image's verdict counted, `pinned` or not by the list.
    fn add(&mut self, pinned: bool, name: &str, verdict: &Verdict) {
        if verdict.verified {
            self.verified += 1;
            self.verified_pinned += usize::from(pinned);
            self.recorded_pins += usize::from(pinned && verdict.pull_record.is_some());
        }
        if verdict.allowlisted && !pinned {
            self.allowlisted_unpinned.push(name.to_owned());
        }
    }
}

/// The answer for each image, and the kubelet's when its configuration is
/// given: what `explain` prints, and `check` after the rest.
pub struct Explanation {
    pub report: Report,
    /// Each image's name and the kubelet's verdict, in the order of `report`.
    pub verdicts: Option<Vec<(String, Verdict)>>,
    /// Of every image listed, kept or not, with the kubelet's configuration.
    pub kubelet: Option<KubeletCounts>,
}

impl Explanation {
    /// `known`: what the running runtime said of itself (`check`);
    /// `keep`: how many images of each kind to keep (`matching::explain`).
    pub fn new<'r>(
        resolved: &'r Resolved,
        flags: Flags,
        list: &[Image],
        verifier: Option<&Verifier>,
        known: Known<'r>,
        keep: Option<usize>,
    ) -> Result<Explanation, InputError> {
        let compiled = refused::compile_valid(&resolved.entries, flags, List::Effective, Runtime::of(flags).model())?;
        let report = matching::explain(resolved, &compiled, list, flags, known, keep);
        let verdict = |at: usize, v: &Verifier| {
            let image = &list[at];
            let registry = RegistryImage::from_names(image.names.iter().map(|n| n.text.as_str()), image.id.as_deref());
            let verdict = match report.pinned_at[at] {
                Pin::SandboxImage => Verdict::sandbox_image(),
                _ => v.image(&registry, image.id.as_deref()),
            };
            (registry.name().to_owned(), verdict)
        };
        // One pass over every image listed: the counts of them all, and the
        // verdicts of those the report keeps (in the listing's order too),
        // so that no image's pull record is read twice.
        let (kubelet, verdicts) = verifier
            .map(|v| {
                let mut counts =
                    KubeletCounts { reads_records: v.reads_records(), policy: v.policy(), ..KubeletCounts::default() };
                let mut kept = report.images.iter().map(|e| e.listed_at).peekable();
                let mut verdicts = Vec::with_capacity(report.images.len());
                for (at, &pin) in report.pinned_at.iter().enumerate() {
                    let (name, verdict) = verdict(at, v);
                    counts.add(pin != Pin::No, &name, &verdict);
                    if kept.next_if_eq(&at).is_some() {
                        verdicts.push((name, verdict));
                    }
                }
                (counts, verdicts)
            })
            .unzip();
        Ok(Explanation { report, verdicts, kubelet })
    }

    /// With the kubelet's configuration: the images its allowlist trusts as
    /// preloaded that the list does not pin, by name (every image listed).
    pub fn allowlisted_unpinned(&self) -> Option<Vec<&str>> {
        self.kubelet.as_ref().map(|k| k.allowlisted_unpinned.iter().map(String::as_str).collect())
    }

    /// With pull records: the pinned images they make the kubelet pull again.
    pub fn recorded_pins(&self) -> Option<usize> {
        self.kubelet.as_ref().filter(|k| k.reads_records).map(|k| k.recorded_pins)
    }

    /// `explain --json`.
    pub fn json(&self) -> ExplainJson<'_> {
        let report = &self.report;
        ExplainJson {
            images: &report.images,
            images_left_out: &report.left_out,
            disagreements: report.disagreements,
            undecided: report.undecided,
            refused: &report.refused,
            causes: &report.causes,
            kubelet: self
                .verdicts
                .as_ref()
                .map(|v| v.iter().map(|(image, verdict)| KubeletVerdict { image, verdict }).collect()),
        }
    }

    /// The table, the notes, the likely causes and the counts, then the
    /// kubelet's answers.
    pub fn print(&self, out: &mut Vec<u8>, check: bool, full: bool, runtime: Runtime) {
        print(out, &self.report, check, full, runtime);
        if let (Some(verdicts), Some(kubelet)) = (&self.verdicts, &self.kubelet) {
            print_kubelet(out, &self.report.images, verdicts, &kubelet.policy, full);
        }
        if let Some(unpinned) = self.allowlisted_unpinned().filter(|u| !u.is_empty()) {
            print_allowlisted_unpinned(out, &unpinned, full);
        }
    }

    /// The exit status: 2 when the list is refused; with `check`, 1 on a
    /// disagreement or (unless allowed) an undecided image.
    pub fn code(&self, check: bool, allow_undecided: bool) -> u8 {
        let report = &self.report;
        if !report.refused.is_empty() {
            return 2;
        }
        let undecided = report.undecided > 0 && !allow_undecided;
        u8::from(check && (report.disagreements > 0 || undecided))
    }
}

/// `explain --json`. (Written straight to text: a Value of 50,000 images
/// would double the work.)
#[derive(serde::Serialize)]
pub struct ExplainJson<'a> {
    images: &'a [Explained],
    /// `check`: the images of each kind past the first few, left out.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    images_left_out: &'a [LeftOut],
    disagreements: usize,
    undecided: usize,
    refused: &'a [Refused],
    causes: &'a [Cause],
    #[serde(skip_serializing_if = "Option::is_none")]
    kubelet: Option<Vec<KubeletVerdict<'a>>>,
}

/// Whether the kubelet pulls an image again before a pod uses it (JSON
/// `kubelet`, one per image in the order of `images`).
#[derive(serde::Serialize)]
struct KubeletVerdict<'a> {
    image: &'a str,
    #[serde(flatten)]
    verdict: &'a Verdict,
}

/// The kubelet's answer for each image, after the runtime's: a row an
/// image (what it does, whether the list pins it, what decided), then the
/// whole sentence for each image whose pull record decided.
fn print_kubelet(out: &mut Vec<u8>, images: &[Explained], verdicts: &[(String, Verdict)], policy: &str, full: bool) {
    let verified = verdicts.iter().filter(|(_, v)| v.verified).count();
    let sandbox = verdicts.iter().filter(|(_, v)| v.sandbox).count();
    let not_counted = match sandbox {
        0 => String::new(),
        _ => " (the runtime's sandbox image not counted: the kubelet never pulls it for a pod)".into(),
    };
    output::say(
        out,
        &format!(
            "the kubelet, under {policy}, pulls {verified} of {} image(s) again before a pod uses it, to check the pod's \
             credentials{not_counted}:",
            verdicts.len() - sandbox
        ),
        full,
    );
    let columns = [
        Column::whole("KUBELET"),
        Column::whole("PINNED"),
        Column::whole("IMAGE"),
        Column::whole("ALLOWLISTED BY"),
        Column::source("SOURCE").optional(1),
    ];
    let rows: Vec<Vec<String>> = images
        .iter()
        .zip(verdicts)
        .map(|(e, (image, verdict))| {
            let does = match verdict {
                v if v.sandbox => "sandbox",
                v if v.verified => "pulls again",
                _ => "as it is",
            };
            let (entry, source) = match &verdict.allowlisted_by {
                Some((entry, source)) => (show::quote(entry), show::escape(source).into_owned()),
                None => ("-".into(), "-".into()),
            };
            vec![does.into(), yes_no(Some(e.pinned)), show::name(image).into_owned(), entry, source]
        })
        .collect();
    output::table(out, &columns, &rows, full);
    // The table says what; the sentence why: where a pull record decided,
    // and for every image under --no-trunc.
    for (image, verdict) in verdicts.iter().filter(|(_, v)| full || v.pull_record.is_some()) {
        output::say(out, &format!("  {}: {}", show::name(image), show::escape(&verdict.why)), full);
    }
}

/// The images the kubelet trusts as preloaded that the list does not pin:
/// a few by name, the rest counted (all under --no-trunc).
fn print_allowlisted_unpinned(out: &mut Vec<u8>, images: &[&str], full: bool) {
    const SHOWN: usize = 10;
    let shown = if full { images.len() } else { images.len().min(SHOWN) };
    let names: Vec<String> = images[..shown].iter().map(|n| show::name(n).into_owned()).collect();
    let more = match images.len() - shown {
        0 => String::new(),
        n => format!(", and {n} more (--no-trunc shows them)"),
    };
    output::say(
        out,
        &format!(
            "the kubelet's allowlist trusts {} image(s) as preloaded that the list does not pin: the garbage \
             collector may delete them, and a pod then needs a pull it may have no credentials for: {}{more}",
            images.len(),
            names.join(", ")
        ),
        full,
    );
}

/// An image id as crictl shows it: 13 characters, whole under --no-trunc.
fn short_id(id: &Option<String>, full: bool) -> String {
    let id = id.as_deref().map(|i| i.trim_start_matches("sha256:")).unwrap_or_default();
    let id: String = if full { id.to_string() } else { id.chars().take(13).collect() };
    show::escape(&id).into_owned()
}

/// The name to show for an image, escaped and quoted as needed: the one
/// that decided, unless that is containerd's image ID (the ID column has
/// it) and the image has a name.
fn shown_name(e: &Explained) -> String {
    show::name(name_shown(e)).into_owned()
}

fn name_shown(e: &Explained) -> &str {
    let decided = e.decided_by.as_ref().filter(|d| e.names.contains(d));
    decided.or(e.names.first()).or(e.decided_by.as_ref()).map_or("", String::as_str)
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

fn print(out: &mut Vec<u8>, report: &Report, check: bool, full: bool, runtime: Runtime) {
    let has_runtime = report.images.iter().any(|e| e.runtime_pinned.is_some());
    print_table(out, report, full, has_runtime);
    for e in &report.images {
        print_notes(out, e, runtime, full);
    }
    print_summary(out, report, check, has_runtime, runtime, full);
}

/// One row per image: whether it is pinned, by which pattern, and what the
/// runtime said.
fn print_table(out: &mut Vec<u8>, report: &Report, full: bool, has_runtime: bool) {
    let has_ids = report.images.iter().any(|e| e.id.is_some());
    let mut columns = vec![Column::whole("PINNED")];
    if has_ids {
        columns.push(Column::whole("ID").optional(1));
    }
    columns.extend([
        Column::whole("IMAGE"),
        Column::whole("PATTERN").first_word(3),
        Column::source("SOURCE").optional(2),
    ]);
    if has_runtime {
        columns.push(Column::whole("RUNTIME"));
    }
    let rows: Vec<Vec<String>> = report
        .images
        .iter()
        .map(|e| {
            let mut row = vec![answer(e)];
            if has_ids {
                row.push(short_id(&e.id, full));
            }
            row.push(shown_name(e));
            row.push(match (e.pattern_index, &e.pattern) {
                (Some(i), Some(p)) => output::pattern_cell(i, e.key.as_deref(), p, name_shown(e), full),
                _ => e.pinned_by_label.as_ref().map_or("-".into(), |l| format!("label {}", show::escape(&l.label))),
            });
            row.push(e.source.as_deref().map_or("-".into(), |s| show::escape(s).into_owned()));
            if has_runtime {
                let mark = match e.check {
                    Some("disagree") => output::DISAGREES,
                    Some("undecided") => output::UNDECIDED,
                    _ => "",
                };
                let gap = if mark.is_empty() { "" } else { "  " };
                row.push(format!("{}{gap}{mark}", yes_no(e.runtime_pinned)));
            }
            row
        })
        .collect();
    if !rows.is_empty() {
        output::table(out, &columns, &rows, full);
    }
    for left in &report.left_out {
        output::say(out, &format!("… and {} more image(s) {}", left.images, left.kind.describe()), full);
    }
    if !report.left_out.is_empty() {
        output::say(
            out,
            &format!(
                "note: {} image(s) left out, past the first {} of each kind; --every-image lists each",
                report.left_out.iter().map(|l| l.images).sum::<usize>(),
                matching::SHOWN_OF_A_KIND
            ),
            full,
        );
    }
}

/// What the table cannot say about one image: odd names, pins by label,
/// artifacts, names given by hand, pins that depend on the pull,
/// disagreements.
fn print_notes(out: &mut Vec<u8>, e: &Explained, runtime: Runtime, full: bool) {
    print_name_notes(out, e, runtime, full);
    print_verdict_notes(out, e, runtime, full);
}

/// What the table cannot say about an image's names: blanks or invisible
/// characters, a pin by label, an artifact, a name given by hand, a name
/// no image can have.
fn print_name_notes(out: &mut Vec<u8>, e: &Explained, runtime: Runtime, full: bool) {
    let name = shown_name(e);
    // A name quoted in the table holds blanks or invisible characters
    // (escaped): a pattern pins it only if it holds them too.
    if let Some(odd) = e.names.iter().find(|n| show::name(n) != n.as_str()) {
        output::say(
            out,
            &format!(
                "note: {} holds blanks or invisible characters (shown quoted and escaped): a pattern \
                 pins it only if it holds them too",
                show::name(odd)
            ),
            full,
        );
    }
    if let Some(pin) = &e.pinned_by_label {
        // Loud: no pattern of the list explains this pin.
        output::say(
            out,
            &format!(
                "PINNED BY LABEL: {name}: no pattern pins it, its label {} does: {}",
                show::quote(&pin.label),
                pin.why
            ),
            full,
        );
    }
    if let Some(why) = e.artifact {
        output::say(
            out,
            &format!(
                "note: {name} is taken for an OCI artifact ({why}): CRI-O pins an artifact when a \
                 pattern matches its reference (the repoTag) or its canonical name (the repoDigest), \
                 however it was pulled"
            ),
            full,
        );
    }
    if let Some(given) = &e.given {
        let stored = show::quote(e.names.first().map_or("", String::as_str));
        let how = runtime.model().stored_as_note(&stored);
        output::say(
            out,
            &format!("note: {} {how}: that is the name explained, and the one to pin", show::quote(given)),
            full,
        );
    }
    if let Some(why) = &e.refused_name {
        output::say(
            out,
            &format!(
                "note: {name}: {} refuses to pull an image by this name ({why}), so no image on a \
                 node has it; it is explained as given",
                runtime.facts().puller
            ),
            full,
        );
    }
}

/// What the table cannot say about an image's verdict: a pin that depends
/// on the pull, and where the running runtime said otherwise.
fn print_verdict_notes(out: &mut Vec<u8>, e: &Explained, runtime: Runtime, full: bool) {
    let name = shown_name(e);
    for d in &e.depends_on_pull {
        output::say(
            out,
            &format!(
                "note: {name}: pattern #{} {} names the digest {}; CRI-O stores that name only \
                 if the image was pulled by it (crictl computes it for an image pulled by tag), \
                 so whether it pins this image depends on how the image was pulled",
                d.pattern_index,
                show::quote(&d.pattern),
                show::quote(&d.name)
            ),
            full,
        );
    }
    if e.check == Some("undecided") {
        // (Only CRI-O stores some of the names it lists.)
        let running = if e.runtime_pinned == Some(true) {
            "the running CRI-O pins it, as it would after a pull by that digest"
        } else {
            "the running CRI-O does not pin it, as it would after a pull by tag only"
        };
        output::say(
            out,
            &format!(
                "UNDECIDED: {name}: pinned only if it was pulled by the digest above, which a listing \
                 cannot tell (crictl shows a repoDigest however the image was pulled); {running}, or \
                 it runs another list. To decide it, pin its tag too, or drop the digest pattern; \
                 --allow-undecided accepts it"
            ),
            full,
        );
    }
    if e.check == Some("disagree") {
        let (pins, config) =
            if e.runtime_pinned == Some(true) { ("pins", "does not pin") } else { ("does not pin", "pins") };
        output::say(
            out,
            &format!(
                "DISAGREEMENT: {name}: the running {} {pins} it, the configuration read here \
                 {config} it",
                runtime.facts().name
            ),
            full,
        );
    }
}

/// The likely causes of the disagreements, and the counts.
fn print_summary(out: &mut Vec<u8>, report: &Report, check: bool, has_runtime: bool, runtime: Runtime, full: bool) {
    if !report.causes.is_empty() {
        output::say(out, "Likely causes, each with the disagreements it can explain:", full);
        for c in &report.causes {
            output::say_indented(out, &format!("  - {}", show::escape(&c.message)), "    ", full);
            let explains = if c.images.len() + c.images_left_out == report.disagreements {
                format!("every disagreement ({})", report.disagreements)
            } else {
                let mut names: Vec<String> = c.images.iter().map(|&i| shown_name(&report.images[i])).collect();
                if c.images_left_out > 0 {
                    names.push(format!("and {} more", c.images_left_out));
                }
                names.join(", ")
            };
            output::say_indented(out, &format!("    explains: {explains}"), "      ", full);
        }
    }
    let (images, pinned) = (report.listed, report.pinned);
    let undecided = if report.undecided > 0 { format!(", {} undecided", report.undecided) } else { String::new() };
    if !report.refused.is_empty() {
        let column = if has_runtime { ": the RUNTIME column shows what it pins" } else { "" };
        let who = runtime.facts().stock_refuser;
        output::say(
            out,
            &format!(
                "REFUSED: the list read here is refused ({} pattern(s); standard error says why, and what \
                 {who} and a runtime built on the crio-pin library do with it). The list in force is \
                 the one the runtime had before, which this tool cannot know{column}. PINNED and PATTERN \
                 show what the list's other {} pattern(s) would pin.",
                report.refused.len(),
                report.valid_patterns
            ),
            full,
        );
        let _ =
            writeln!(out, "{images} image(s), {pinned} pinned by the valid patterns{undecided}; the list is refused");
    } else if check || has_runtime {
        let tone = match (report.disagreements, report.undecided) {
            (0, 0) => Tone::Fine,
            (0, _) => Tone::Doubtful,
            _ => Tone::Bad,
        };
        output::say_summary(
            out,
            &format!(
                "{images} image(s), {pinned} pinned{undecided}; {} disagreement(s) with the runtime",
                report.disagreements
            ),
            tone,
            full,
        );
    } else {
        output::say(out, &format!("{images} image(s), {pinned} pinned{undecided}"), full);
    }
}
