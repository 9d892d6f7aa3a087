//! `crio-pin check`: is this node's pinning right? The effective list (as
//! `config` shows it), lint's findings (as `lint`), and every image's pin
//! against the runtime's own `pinned` flag (as `explain --check`), the
//! images read from the runtime's CRI socket (`cri`) or from `--images`;
//! a summary first, then each command's detail, and one exit status: 0 all
//! right, 1 a disagreement, an undecided image or a lint error (with
//! `--fail-on-warnings` a warning too), 2 unusable input, an unreachable
//! runtime or a refused list. Each kind of image shows its first
//! `matching::SHOWN_OF_A_KIND` (`matching::explain` keeps no more), the counts
//! count every one.
//!
//! Each part is the command's own code (`config::print`, `lint::Linted`,
//! `explain::Explanation`) on one reading of the configuration.

mod metrics;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::args::{CheckFormat, KubeletArgs, SourceArgs};
use crate::causes::Known;
use crate::commands::{config, explain, lint};
use crate::cri::running::Compared;
use crate::cri::{self, Endpoint};
use crate::error::InputError;
use crate::images::{self, Image};
use crate::lint::Severity;
use crate::list::Resolved;
use crate::output::{self, write_json, Outcome};
use crate::refused::{self, Refused};
use crate::runtime::Runtime;
use crate::runtimes;
use crate::runtimes::kubelet::verify::Verifier;
use crate::show;

/// Where the images come from: `--images`, else the runtime's CRI socket.
pub struct ImagesFrom<'a> {
    /// `--images`, each file's images merged by ID.
    pub listings: &'a [String],
    /// `--runtime-endpoint`, else `CONTAINER_RUNTIME_ENDPOINT`, else the
    /// runtime's default socket.
    pub endpoint: Option<&'a str>,
    /// `--wait`: how long to ask the runtime again until its flags agree.
    pub wait: Option<Duration>,
}

/// `--format`, `--metrics-per-pattern`, `--every-image` and `-q`.
pub struct Form {
    pub format: Option<CheckFormat>,
    pub per_pattern: bool,
    pub every_image: bool,
    pub quiet: bool,
}

/// What fails the check besides disagreements, lint errors and refused
/// lists: undecided images (unless `--allow-undecided`), warnings (with
/// `--fail-on-warnings`).
#[derive(Clone, Copy)]
pub struct Fails {
    pub undecided: bool,
    pub warnings: bool,
}

pub fn run(
    args: &SourceArgs,
    from: ImagesFrom<'_>,
    fails: Fails,
    form: Form,
    kubelet: &KubeletArgs,
) -> Result<Outcome, InputError> {
    let format = output_format(args.json, &form)?;
    let runtime = args.runtime()?;
    let flags = args.flags(runtime);
    let default_endpoint = default_endpoint(runtime)?;
    let mut resolved = runtimes::resolve(&args.sources(runtime))?;
    let verifier = kubelet.verifier()?;
    let naming = runtime.model().naming();
    let refused = refused::check_lists(&resolved, flags, runtime.model())?;
    let keep = (!form.every_image).then_some(crate::matching::SHOWN_OF_A_KIND);
    let (source, reading, waited) = match from.listings {
        [] => {
            let env = std::env::var(cri::ENDPOINT_ENV).ok().filter(|e| !e.is_empty());
            let endpoint = Endpoint::parse(from.endpoint.or(env.as_deref()).unwrap_or(default_endpoint))?;
            let client = cri::Client::connect(&endpoint)?;
            let read = || Reading::of_runtime(&client, naming, &resolved, flags, verifier.as_ref(), keep);
            let mut reading = read()?;
            let progress = format == CheckFormat::Text;
            let waited = from.wait.map(|within| wait(within, &mut reading, &read, progress)).transpose()?;
            (Source::Cri(client.runtime), reading, waited)
        }
        paths => {
            let list = images::read_all(paths, naming)?;
            explain::require_runtime_flags(&list, "check", "with --images, or leave --images out to ask the runtime")?;
            let explanation =
                explain::Explanation::new(&resolved, flags, &list, verifier.as_ref(), Known::default(), keep)?;
            (Source::Listing(paths.join(", ")), Reading { list, running: None, explanation }, None)
        }
    };
    let Reading { list, running, explanation } = reading;
    resolved.warnings.extend(crate::runtimes::label_warnings::listing_warnings(&list));
    // lint tells OCI artifacts by a listing, which only CRI-O lists.
    let artifacts_listing = naming.lists_artifacts.then_some(&list[..]);
    let linted = lint::Linted::new(runtime, flags, &resolved, artifacts_listing, verifier.as_ref(), Severity::Info);
    let summary = Summary::new(flags, &resolved, &refused, &linted, &explanation, fails, waited);
    let mut out = Vec::new();
    if format == CheckFormat::Openmetrics {
        let measured = metrics::Measured {
            summary: &summary,
            resolved: &resolved,
            explanation: &explanation,
            runtime_version: source.runtime_version(),
            running: running.as_ref(),
        };
        metrics::write(&mut out, &measured, form.per_pattern);
    } else if format == CheckFormat::Json {
        let json = CheckJson {
            summary: &summary,
            images_from: &source,
            config: config::json(&resolved, &refused, flags),
            lint: linted.json(&resolved),
            explain: explanation.json(),
            running_list: running.as_ref(),
        };
        write_json(&mut out, &json);
    } else if form.quiet {
        output::say_indented(&mut out, &format!("check    {}", summary.verdict()), &" ".repeat(9), args.no_trunc);
    } else {
        let full = args.no_trunc;
        print_summary(&mut out, &summary, runtime, &source, running.as_ref(), full);
        section(&mut out, "the list in force, as `crio-pin config` shows it");
        let shown = config::Shown { runtime, flags, patterns_file: args.patterns.is_some(), full, every_row: full };
        config::print(&mut out, &resolved, &refused, shown);
        section(&mut out, "its traps, as `crio-pin lint` finds them");
        // The configuration's warnings are above, with the list.
        linted.print(&mut out, &[], lint::Shown { verbose: false, least: Severity::Info }, full);
        section(&mut out, "each image against the runtime, as `crio-pin explain --check` shows it");
        explanation.print(&mut out, true, full, runtime);
    }
    // Said on standard error after the output: why a list is refused.
    Ok(Outcome { out, refused, code: summary.exit_status })
}

/// The output `--json` and `--format` ask for, and whether
/// `--metrics-per-pattern` has a use with it.
fn output_format(json: bool, form: &Form) -> Result<CheckFormat, InputError> {
    let format = match (json, form.format) {
        (true, None | Some(CheckFormat::Json)) => CheckFormat::Json,
        (true, Some(_)) => {
            return Err(InputError("--json and --format: give one (--format json is --json)".into()));
        }
        (false, format) => format.unwrap_or(CheckFormat::Text),
    };
    if form.quiet && format != CheckFormat::Text {
        return Err(InputError("-q prints the text's verdict alone: give it without --format".into()));
    }
    if form.per_pattern && format != CheckFormat::Openmetrics {
        return Err(InputError(
            "--metrics-per-pattern adds series to --format openmetrics: give that too, or leave it out".into(),
        ));
    }
    Ok(format)
}

/// The CRI socket `runtime` answers on by default; an error for a rule
/// set that is no runtime (the kubelet's allowlist).
fn default_endpoint(runtime: Runtime) -> Result<&'static str, InputError> {
    runtime.facts().cri_endpoint.ok_or_else(|| {
        InputError(format!(
            "check compares a runtime's pins with what the runtime reports, and --runtime {} is no runtime: \
             give the runtime the kubelet runs on (--runtime crio, containerd or cri-dockerd) with \
             --kubelet-config, or use `lint --runtime {}`",
            runtime.facts().option,
            runtime.facts().option
        ))
    })
}

/// What `check` found, counted: its first lines and JSON `summary`.
#[derive(Serialize)]
struct Summary {
    /// `--runtime`'s value.
    runtime: &'static str,
    /// Patterns of the list in force, and the files they were read from.
    patterns: usize,
    files: usize,
    /// The fingerprint of the list and flags the runtime compiles, as
    /// `config` prints it.
    fingerprint: String,
    /// Patterns of the files' list a SIGHUP reload loads instead (CRI-O,
    /// when a flag or variable replaced it).
    reload_patterns: Option<usize>,
    images: usize,
    pinned: usize,
    undecided: usize,
    disagreements: usize,
    /// Patterns that make a list refused (now, or after a reload).
    refused: usize,
    lint_errors: usize,
    lint_warnings: usize,
    lint_notes: usize,
    configuration_warnings: usize,
    /// With --kubelet-config: the images it pulls again before a pod uses
    /// them, and how many of them the configuration pins.
    #[serde(skip_serializing_if = "Option::is_none")]
    kubelet_verified: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kubelet_verified_pinned: Option<usize>,
    /// With --kubelet-config: the images it trusts as preloaded (its
    /// allowlist covers them) that the list does not pin, which the garbage
    /// collector may delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    kubelet_allowlisted_unpinned: Option<usize>,
    /// With --kubelet-root-dir: the pinned images it pulls again because of
    /// their pull records (no longer preloaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    kubelet_recorded_pins: Option<usize>,
    /// --allow-undecided: undecided images do not fail the check.
    undecided_allowed: bool,
    /// Lint's warnings and the configuration's, which fail the check with
    /// --fail-on-warnings (`warnings_fail`).
    warnings: usize,
    warnings_fail: bool,
    /// With --wait: how long the runtime was asked again, and whether its
    /// flags came to agree.
    #[serde(skip_serializing_if = "Option::is_none")]
    waited: Option<Waited>,
    /// What fails the check, each in a few words (empty: all right).
    problems: Vec<String>,
    exit_status: u8,
}

impl Summary {
    /// The first line's text: all right only with no warning; warnings
    /// that do not fail are counted beside the verdict.
    fn verdict(&self) -> String {
        match (self.exit_status, self.warnings) {
            (0, 0) => "all right".to_string(),
            (0, n) => format!("passed, with {n} warning(s) (below); --fail-on-warnings fails on them"),
            (code, _) => format!(
                "{} (exit status {code}): {}",
                if code == 2 { "REFUSED" } else { "FAILED" },
                self.problems.join(", ")
            ),
        }
    }

    fn new(
        flags: crio_pin::Flags,
        resolved: &Resolved,
        refused: &[Refused],
        linted: &lint::Linted,
        explanation: &explain::Explanation,
        fails: Fails,
        waited: Option<Waited>,
    ) -> Summary {
        let allow_undecided = !fails.undecided;
        let runtime = Runtime::of(flags);
        let report = &explanation.report;
        let counts = &linted.counts;
        let mut problems = Vec::new();
        if !refused.is_empty() {
            problems.push(format!("{} pattern(s) make a list refused", refused.len()));
        }
        if report.disagreements > 0 {
            let after = waited.as_ref().map_or(String::new(), |w| format!(" after waiting {} s", w.within_seconds));
            problems.push(format!("{} disagreement(s) with the runtime{after}", report.disagreements));
        }
        if report.undecided > 0 && !allow_undecided {
            problems.push(format!("{} undecided image(s)", report.undecided));
        }
        if counts.errors > 0 {
            problems.push(format!("{} lint error(s)", counts.errors));
        }
        let warnings = counts.warnings + counts.configuration_warnings;
        let warnings_fail = fails.warnings && warnings > 0;
        if warnings_fail {
            problems.push(format!("{warnings} warning(s) (--fail-on-warnings)"));
        }
        let exit_status = if !refused.is_empty() {
            2
        } else {
            u8::from(counts.errors > 0 || warnings_fail).max(explanation.code(true, allow_undecided))
        };
        Summary {
            runtime: runtime.facts().option,
            patterns: resolved.entries.len(),
            files: resolved.files.len(),
            fingerprint: config::fingerprint(resolved, flags).to_string(),
            reload_patterns: counts.reload_patterns,
            images: report.listed,
            pinned: report.pinned,
            undecided: report.undecided,
            disagreements: report.disagreements,
            refused: refused.len(),
            lint_errors: counts.errors,
            lint_warnings: counts.warnings,
            lint_notes: counts.notes,
            configuration_warnings: counts.configuration_warnings,
            kubelet_verified: explanation.kubelet.as_ref().map(|k| k.verified),
            kubelet_verified_pinned: explanation.kubelet.as_ref().map(|k| k.verified_pinned),
            kubelet_allowlisted_unpinned: explanation.allowlisted_unpinned().map(|images| images.len()),
            kubelet_recorded_pins: explanation.recorded_pins(),
            undecided_allowed: allow_undecided,
            warnings,
            warnings_fail,
            waited,
            problems,
            exit_status,
        }
    }
}

/// How `--wait` went (JSON `summary.waited`).
#[derive(Serialize)]
struct Waited {
    /// `--wait`, in seconds.
    within_seconds: f64,
    /// From the first reading to the last, in tenths of a second.
    seconds: f64,
    /// How many times the runtime's images were read.
    readings: usize,
    /// Whether the last reading's flags agree with the list.
    agreed: bool,
}

/// The pause between two readings: a quarter of the time waited so far,
/// within these bounds, so that a runtime that agrees at once is seen
/// within a quarter second, and one that takes a minute is read some 40
/// times, not 240 (a reading of 20,000 images costs the runtime too).
const FIRST_PAUSE: Duration = Duration::from_millis(250);
const LONGEST_PAUSE: Duration = Duration::from_secs(2);

/// One reading of the runtime: its images, what its own configuration
/// holds, and the images explained with both.
struct Reading {
    list: Vec<Image>,
    running: Option<Compared>,
    explanation: explain::Explanation,
}

impl Reading {
    fn of_runtime(
        client: &cri::Client,
        naming: images::Naming,
        resolved: &Resolved,
        flags: crio_pin::Flags,
        verifier: Option<&Verifier>,
        keep: Option<usize>,
    ) -> Result<Reading, InputError> {
        let list = client.list_images(naming)?;
        explain::require_runtime_flags(&list, "check", "with --images, or leave --images out to ask the runtime")?;
        let files = config::fingerprint(resolved, flags);
        let running = Compared::new(client.running(), &resolved.entries, files, flags);
        let known = Known {
            version: Some(&client.runtime.version),
            same_list: running.same.map(|same| (same, running.asked.as_str())),
        };
        let explanation = explain::Explanation::new(resolved, flags, &list, verifier, known, keep)?;
        Ok(Reading { list, running: Some(running), explanation })
    }
}

/// `--wait`: the runtime read again until no image's flag disagrees with
/// the list or `within` has passed; `reading` is the first reading, and
/// becomes the last. A runtime that stops answering ends the wait with its
/// error (exit status 2). With `progress` a line on standard error says
/// each new count of disagreements.
fn wait(
    within: Duration,
    reading: &mut Reading,
    read: &dyn Fn() -> Result<Reading, InputError>,
    progress: bool,
) -> Result<Waited, InputError> {
    let start = Instant::now();
    let mut readings = 1;
    let mut said = None;
    loop {
        let disagreements = reading.explanation.report.disagreements;
        let waited = start.elapsed();
        if disagreements == 0 || waited >= within {
            return Ok(Waited {
                within_seconds: within.as_secs_f64(),
                seconds: (waited.as_secs_f64() * 10.0).round() / 10.0,
                readings,
                agreed: disagreements == 0,
            });
        }
        if progress && said != Some(disagreements) {
            output::say_on_stderr(
                &format!(
                    "waiting for the runtime: {disagreements} disagreement(s) after {:.1} s, asking again until {} s",
                    waited.as_secs_f64(),
                    within.as_secs_f64()
                ),
                false,
            );
            said = Some(disagreements);
        }
        std::thread::sleep((waited / 4).clamp(FIRST_PAUSE, LONGEST_PAUSE).min(within - waited));
        *reading = read()?;
        readings += 1;
    }
}

/// Where the images came from (JSON `images_from`): a listing, or the
/// runtime that answered on its socket.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Source {
    /// The `--images` files, joined by ", " when there are several.
    Listing(String),
    Cri(cri::Runtime),
}

impl Source {
    /// The version the runtime answered with, over CRI.
    fn runtime_version(&self) -> Option<&str> {
        match self {
            Source::Cri(cri) => Some(cri.version.as_str()),
            Source::Listing(_) => None,
        }
    }
}

/// `check --json`: the summary, then each command's own JSON.
#[derive(Serialize)]
struct CheckJson<'a> {
    summary: &'a Summary,
    images_from: &'a Source,
    config: config::ConfigJson<'a>,
    lint: serde_json::Value,
    explain: explain::ExplainJson<'a>,
    /// Over CRI: the list the running runtime's own configuration holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    running_list: Option<&'a Compared>,
}

/// The verdict, then one line for each part: what a monitoring job's
/// operator reads before the detail.
fn print_summary(
    out: &mut Vec<u8>,
    s: &Summary,
    runtime: Runtime,
    source: &Source,
    running: Option<&Compared>,
    full: bool,
) {
    let verdict = s.verdict();
    let images_from = images_from(source);
    let reload =
        s.reload_patterns.map_or(String::new(), |n| format!(", and {n} in the files' list a SIGHUP reload loads"));
    let undecided = match s.undecided {
        0 => String::new(),
        n if s.undecided_allowed => format!(", {n} undecided (accepted: --allow-undecided)"),
        n => format!(", {n} undecided"),
    };
    let mut lines = vec![
        ("check", verdict),
        ("runtime", format!("{} (--runtime {}); images {images_from}", runtime.facts().name, s.runtime)),
        ("list", format!("{} pattern(s) from {} file(s){reload}; fingerprint {}", s.patterns, s.files, s.fingerprint)),
        (
            "images",
            format!(
                "{}, {} pinned{undecided}; {} disagreement(s) with the runtime's pinned flag",
                s.images, s.pinned, s.disagreements
            ),
        ),
        (
            "lint",
            format!(
                "{} error(s), {} warning(s), {} note(s); {} configuration warning(s)",
                s.lint_errors, s.lint_warnings, s.lint_notes, s.configuration_warnings
            ),
        ),
    ];
    if let (Some(verified), Some(pinned)) = (s.kubelet_verified, s.kubelet_verified_pinned) {
        let records = s.kubelet_recorded_pins.map_or(String::new(), |n| format!(" ({n} by their pull records)"));
        lines.push((
            "kubelet",
            format!(
                "{verified} of the {} image(s) are checked with the registry before a pod uses one (the \
                 kubelet pulls them again, for the pod's credentials; without the registry the pod fails), \
                 {pinned} of them pinned{records}: a pin keeps an image on the node, not out of that check; it \
                 trusts {} as preloaded that the list does not pin",
                s.images,
                s.kubelet_allowlisted_unpinned.unwrap_or(0)
            ),
        ));
    }
    if let Some(running) = running {
        lines.push(("running", running.line(runtime.facts().name)));
    }
    if let Some(w) = &s.waited {
        let text = match w.agreed {
            true => format!("the runtime's flags agree after {:.1} s ({} reading(s))", w.seconds, w.readings),
            false => format!(
                "the runtime's flags still disagree after {} s ({} reading(s)): the images below are the last reading",
                w.within_seconds, w.readings
            ),
        };
        lines.push(("wait", text));
    }
    if s.refused > 0 {
        lines.push(("refused", format!("{} pattern(s); standard error says why", s.refused)));
    }
    for (label, text) in lines {
        output::say_indented(out, &format!("{label:<9}{text}"), &" ".repeat(9), full);
    }
}

/// Where the images were read from, and what the runtime says it is.
fn images_from(source: &Source) -> String {
    match source {
        Source::Cri(cri) => {
            let api = if cri.api_version.is_empty() { String::new() } else { format!(", CRI {}", cri.api_version) };
            format!(
                "read from {}, which answers as {} {}{api}",
                show::escape(&cri.endpoint),
                show::escape(&cri.name),
                show::escape(&cri.version)
            )
        }
        Source::Listing(listing) => format!("read from {}", show::escape(listing)),
    }
}

/// The heading of one part of the detail.
fn section(out: &mut Vec<u8>, title: &str) {
    out.extend_from_slice(format!("\n== {title}\n").as_bytes());
}
