//! The command line: the options every command takes (the runtime, the
//! pattern sources it takes, the library's modes, the output's form), and
//! one variant per command, each run by its module in `commands`.

use std::path::PathBuf;

use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use crio_pin::Flags;

use crate::error::InputError;
use crate::lint::Severity;
use crate::man;
use crate::output::ColorWhen;
use crate::runtime::{self, Runtime};
use crate::sources::Sources;

#[derive(Parser)]
#[command(
    name = "crio-pin",
    version,
    about = "What a node's container runtime (CRI-O, containerd, cri-dockerd) pins, by which pattern, from \
             which file, and what a change would do",
    after_help = man::exit_status_help(""),
    max_term_width = man::HELP_WIDTH
)]
pub struct Cli {
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Clone)]
pub struct SourceArgs {
    /// The runtime whose configuration is read and whose rules decide
    /// [default: crio]
    #[arg(long, value_enum, value_name = "RUNTIME", global = true, long_help = man::runtime_help())]
    pub runtime: Option<Runtime>,
    /// The runtime's main configuration file
    ///
    /// CRI-O's [env: CONTAINER_CONFIG]
    /// [default: /etc/crio/crio.conf], or containerd's config.toml, with its
    /// imports [default: /etc/containerd/config.toml]
    #[arg(long, short = 'c', value_name = "FILE", global = true)]
    pub config: Option<String>,
    /// CRI-O's drop-in directory
    ///
    /// Walked recursively in lexical order [env: CONTAINER_CONFIG_DIR]
    /// [default: /etc/crio/crio.conf.d]
    #[arg(long, short = 'd', value_name = "DIR", global = true)]
    pub config_dir: Option<String>,
    /// Comma-separated patterns replacing the files' list (repeatable)
    ///
    /// As CRI-O's flag [env: CONTAINER_PINNED_IMAGES]; with --runtime
    /// cri-dockerd, its --pinned-images values, split at commas as its
    /// flag (a pflag StringSlice) splits them
    #[arg(long, value_name = "LIST", global = true)]
    pub pinned_images: Vec<String>,
    /// cri-dockerd's --pinned-image-labels: comma-separated KEY or
    /// KEY=VALUE label selectors (repeatable)
    ///
    /// cri-dockerd pins every image whose config carries a selected label
    /// (KEY alone: any value); explain sees the labels in `docker image
    /// inspect` given with --images. lint warns: an image's author sets its
    /// labels
    #[arg(long, value_name = "LIST", global = true)]
    pub pinned_image_labels: Vec<String>,
    /// The pause image, which CRI-O appends as an exact pattern
    ///
    /// CRI-O only [env: CONTAINER_PAUSE_IMAGE]
    /// [default: registry.k8s.io/pause:3.10.1]
    #[arg(long, value_name = "REF", global = true)]
    pub pause_image: Option<String>,
    /// Read patterns from FILE instead, one a line
    ///
    /// '#' starts a comment; no pause image is appended; under any
    /// runtime's rules
    #[arg(long, value_name = "FILE", global = true,
          conflicts_with_all = ["config", "config_dir", "pinned_images", "pause_image"])]
    pub patterns: Option<String>,
    /// Anchor globs: `prefix*` pins only names starting with prefix
    ///
    /// Not what CRI-O does; a mode of CRI-O's rules only
    #[arg(long, global = true)]
    pub anchor_globs: bool,
    /// Compare case-sensitively
    ///
    /// Not what CRI-O does; a mode of CRI-O's rules only
    #[arg(long, global = true)]
    pub case_sensitive: bool,
    /// Reject likely mistakes (empty, literal '*', whitespace)
    ///
    /// The library's strict mode; a mode of CRI-O's rules only
    #[arg(long, global = true)]
    pub strict: bool,
    /// JSON output for scripts (always whole: never shortened)
    #[arg(long, global = true)]
    pub json: bool,
    /// Color severities, disagreements and summaries: auto, always or never
    ///
    /// Auto: when standard output is a terminal and NO_COLOR is unset or
    /// empty (CLICOLOR_FORCE forces it). Never in JSON; widths ignore it
    #[arg(long, value_enum, value_name = "WHEN", global = true, hide_possible_values = true, default_value_t)]
    pub color: ColorWhen,
    /// Show tables whole and each message on one line
    ///
    /// By default tables fit the width (COLUMNS, else the terminal's, else
    /// 100): digests and ids are shortened as crictl shortens them, sources
    /// lose their start, then columns are left out in a stated order (a
    /// note names them); names and patterns are never cut (a pattern that
    /// is the image's name is shown as = IMAGE); messages wrap
    #[arg(long, global = true)]
    pub no_trunc: bool,
}

impl SourceArgs {
    /// The runtime: `--runtime`, else `CRIO_PIN_RUNTIME`, else CRI-O. Err
    /// (a usage error, exit status 2) when an option given is another
    /// runtime's: each says what that runtime reads instead.
    pub fn runtime(&self) -> Result<Runtime, InputError> {
        let (runtime, chosen) = match (self.runtime, std::env::var(runtime::ENV)) {
            (Some(r), _) => (r, format!("--runtime {}", r.facts().option)),
            (None, Ok(value)) if !value.is_empty() => {
                let r = Runtime::from_str(&value, false).map_err(|_| {
                    let known: Vec<&str> = Runtime::value_variants().iter().map(|r| r.facts().option).collect();
                    InputError(format!(
                        "{}={value:?} is no runtime: give one of {}, or unset it",
                        runtime::ENV,
                        known.join(", ")
                    ))
                })?;
                (r, format!("{}={}", runtime::ENV, r.facts().option))
            }
            (None, Err(std::env::VarError::NotUnicode(_))) => {
                return Err(InputError(format!("{} is not valid UTF-8", runtime::ENV)))
            }
            // Unset or empty: CRI-O.
            (None, _) => return Ok(Runtime::default()),
        };
        let facts = runtime.facts();
        let modes = format!(
            "it selects a mode of CRI-O's rules, and {}'s are fixed ({}); drop it, or use --runtime crio",
            facts.name, facts.rules
        );
        let mode = |flag: Flags| (!facts.modes.contains(flag)).then_some(modes.as_str());
        let unread = &facts.unread;
        let given: [(bool, &str, Option<&str>); 7] = [
            (self.anchor_globs, "--anchor-globs", mode(Flags::ANCHOR_GLOBS)),
            (self.case_sensitive, "--case-sensitive", mode(Flags::CASE_SENSITIVE)),
            (self.strict, "--strict", mode(Flags::STRICT)),
            (self.config.is_some(), "--config", unread.config),
            (self.config_dir.is_some(), "--config-dir", unread.config_dir),
            (!self.pinned_images.is_empty(), "--pinned-images", unread.pinned_images),
            (self.pause_image.is_some(), "--pause-image", unread.pause_image),
        ];
        let other = given.iter().find_map(|&(set, option, why)| why.filter(|_| set).map(|why| (option, why)));
        match other {
            Some((option, why)) => Err(InputError(format!("{option} cannot be used with {chosen}: {why}"))),
            None => Ok(runtime),
        }
    }

    pub fn sources(&self, runtime: Runtime) -> Sources {
        Sources {
            runtime,
            config: self.config.clone(),
            config_dir: self.config_dir.clone(),
            pinned_images: self.pinned_images.clone(),
            pinned_image_labels: self.pinned_image_labels.clone(),
            pause_image: self.pause_image.clone(),
            patterns: self.patterns.clone(),
            extra_dropin: None,
        }
    }

    /// The library's flags: the runtime's rules, and for CRI-O the modes asked for.
    pub fn flags(&self, runtime: Runtime) -> Flags {
        let mut flags = runtime.facts().flags;
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
pub struct ImageArgs {
    /// Image names, as the runtime stores them
    ///
    /// A short name is qualified as the runtime does it: nginx:V1 is
    /// docker.io/library/nginx:V1 for CRI-O and containerd; cri-dockerd
    /// compares the familiar names Docker reports
    pub names: Vec<String>,
    /// The output of `crictl images -o json`, or names one a line; `-` for
    /// stdin (repeatable)
    ///
    /// The listing, or its "images" array (`jq .images`), or image names
    /// one a line ('#' comments); or the runtime's own listing with labels:
    /// `ctr -n k8s.io images ls` (containerd), `docker image inspect`
    /// (cri-dockerd); anything else is an error. The images of several are
    /// merged by image ID: crictl's for the pinned flags, the runtime's own
    /// for the labels
    #[arg(long, value_name = "FILE|-")]
    pub images: Vec<String>,
}

/// The kubelet's configuration, set beside the runtime's list: which
/// pinned images it pulls again before a pod uses them.
#[derive(Args)]
pub struct KubeletArgs {
    /// The kubelet's KubeletConfiguration (YAML or JSON; the kubelet's
    /// --config, usually /var/lib/kubelet/config.yaml): its
    /// imagePullCredentialsVerificationPolicy, its
    /// preloadedImagesVerificationAllowlist and the feature gate
    /// KubeletEnsureSecretPulledImages (on by default since 1.35)
    #[arg(long, value_name = "FILE")]
    pub kubelet_config: Option<String>,
    /// The kubelet's drop-in directory (its --config-dir): the *.conf
    /// files in lexical order, each over the ones before
    #[arg(long, value_name = "DIR", requires = "kubelet_config")]
    pub kubelet_config_dir: Option<String>,
    /// The kubelet's root directory (its --root-dir, usually
    /// /var/lib/kubelet), whose image_manager/pulled/ holds its pull
    /// records (kubelet 1.33 or later): each image's record, read by the
    /// image's ID, says whether a pinned image still counts as preloaded
    /// (a pod that pulled it with a secret makes it, for pods without that
    /// secret, an image to pull again). check and explain only
    #[arg(long, value_name = "DIR", requires = "kubelet_config")]
    pub kubelet_root_dir: Option<String>,
}

impl KubeletArgs {
    /// The kubelet's configuration, when given, compiled.
    pub fn verifier(&self) -> Result<Option<crate::runtimes::kubelet::verify::Verifier>, InputError> {
        let Some(config) = &self.kubelet_config else { return Ok(None) };
        let read = crate::runtimes::kubelet::config::read(Some(config), self.kubelet_config_dir.as_deref())?;
        let records = self.kubelet_root_dir.as_deref().map(crate::runtimes::kubelet::records::Records::open);
        let records = records.transpose().map_err(|e| InputError(format!("--kubelet-root-dir: {e}")))?;
        Ok(Some(crate::runtimes::kubelet::verify::Verifier::new(read, records)))
    }
}

/// `lint --fix`: the fixed list, written for the runtime, never over its
/// files.
#[derive(Args)]
pub struct FixArgs {
    /// Print the fixed list instead of the findings (never changes a file)
    ///
    /// Written as the runtime reads it (a CRI-O drop-in, containerd's
    /// pinned_images table, cri-dockerd's values and --pinned-images flag),
    /// after a header naming each change and each finding left. Only fixes
    /// that keep what a pattern pins are applied (a duplicate or shadowed
    /// pattern removed), and for a name that pins nothing the name the
    /// runtime stores; a fix that would pin more or fewer is left for the
    /// operator. Exit 1 when an error is left. With --json, the changes, what
    /// was left and the written list as one JSON object
    #[arg(long, conflicts_with_all = ["images", "kubelet_config", "severity", "verbose"])]
    pub fix: bool,
    /// Write the fixed list to FILE instead of standard output (implies
    /// --fix; never one of the files the list was read from)
    ///
    /// Written whole or not at all: a temporary file beside FILE, flushed
    /// to the disk, then renamed over it; on any error (a full file system)
    /// FILE is as it was. The new file keeps the old one's mode
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["images", "kubelet_config", "severity", "verbose"])]
    pub fix_to: Option<String>,
}

/// Where `lint --fix` writes the fixed list.
pub enum FixTarget<'a> {
    Stdout,
    File(&'a str),
}

impl FixArgs {
    /// Where the fixed list goes, when one is asked for (`--fix-to -` is
    /// standard output).
    pub fn target(&self) -> Option<FixTarget<'_>> {
        match (self.fix_to.as_deref(), self.fix) {
            (Some("-"), _) | (None, true) => Some(FixTarget::Stdout),
            (Some(file), _) => Some(FixTarget::File(file)),
            (None, false) => None,
        }
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// The effective pinned list, each pattern with its source
    ///
    /// Exit 2 when the runtime would refuse it, or CRI-O the files' list a SIGHUP reload
    /// loads instead)
    #[command(after_help = man::exit_status_help("config"))]
    Config {
        /// List every row
        ///
        /// By default a source with more than 20 patterns shows its first 5
        /// and a count (--no-trunc lists every row too)
        #[arg(long, short = 'v')]
        verbose: bool,
        /// Print only the patterns, one a line, as --patterns reads them
        ///
        /// The effective list in its order (CRI-O's pause image last),
        /// escaped as the table shows them (an empty pattern is an empty
        /// line, which --patterns skips); the exit status is as without -q
        #[arg(long, short = 'q', conflicts_with_all = ["json", "verbose"])]
        quiet: bool,
    },
    /// What the runtime does with each pattern, and likely mistakes
    ///
    /// Exit 1 on errors; for CRI-O also the files' list a SIGHUP reload loads in
    /// place of --pinned-images or CONTAINER_PINNED_IMAGES
    #[command(after_help = man::exit_status_help("lint"))]
    Lint {
        /// The output of `crictl images -o json` (or `-` for stdin), which
        /// quiets notes it answers; or the runtime's own listing, whose
        /// labels it checks (repeatable)
        ///
        /// A pattern naming the canonical name (repo@digest) of an OCI artifact listed
        /// there pins it however it was pulled, and one naming a digest the
        /// listing shows pulled by that digest pins it: neither is noted as
        /// needing a pull by digest (CRI-O only). In `ctr -n k8s.io images
        /// ls` (containerd) or `docker image inspect` (cri-dockerd), a label
        /// key a few letters from one a runtime pins by is a near-miss-label
        /// warning
        #[arg(long, value_name = "FILE|-")]
        images: Vec<String>,
        /// List every finding
        ///
        /// By default a note found on more than 3 patterns, or a warning or an
        /// error on more than 10, is printed so many times, then once with its
        /// count and examples (JSON lists each)
        #[arg(long, short = 'v')]
        verbose: bool,
        /// The least severity shown: error, warning or info [default: info]
        ///
        /// Also: note. Error leaves out the configuration's warnings too. The summary
        /// line still counts every finding, and errors always set the exit
        /// status
        #[arg(long, value_enum, value_name = "LEVEL", hide_possible_values = true)]
        severity: Option<Severity>,
        /// Print only the closing line of counts
        ///
        /// The findings by severity and the configuration's warnings, as
        /// the last line without -q says them; the exit status is as
        /// without -q
        #[arg(long, short = 'q', conflicts_with_all = ["json", "verbose"])]
        quiet: bool,
        /// Also each pinned pattern whose images the kubelet pulls again
        /// before a pod uses them, with the allowlist entry that would
        /// spare them, and the allowlist entries that cover no pinned image
        #[command(flatten)]
        kubelet: KubeletArgs,
        #[command(flatten)]
        fix: FixArgs,
    },
    /// For each image: pinned or not, by which pattern, from where
    ///
    /// A refused list is explained by its valid patterns, with exit status 2
    #[command(after_help = man::exit_status_help("explain"))]
    Explain {
        #[command(flatten)]
        images: ImageArgs,
        /// Exit 1 when the runtime's `pinned` differs, or an image is undecided
        ///
        /// Compares the configuration's answer with the runtime's `pinned`
        /// flag of each image. Undecided: pinned or not depending on how it
        /// was pulled
        #[arg(long)]
        check: bool,
        /// Print only the pinned images' names, one a line
        ///
        /// An undecided image too (pinned if it was pulled by digest): a
        /// pin is never left out silently. Names are escaped and quoted as
        /// the table shows them; the exit status is as without -q
        #[arg(long, short = 'q', conflicts_with = "json")]
        quiet: bool,
        /// With --check: accept undecided images
        ///
        /// Undecided: a pattern names a digest crictl shows for an image
        /// pulled by tag
        #[arg(long)]
        allow_undecided: bool,
        /// Also whether the kubelet pulls each image again before a pod
        /// uses it (an image it did not pull itself; with
        /// --kubelet-root-dir, by its pull records)
        #[command(flatten)]
        kubelet: KubeletArgs,
    },
    /// Which images gain or lose a pin with a change
    ///
    /// Exit 1 when an image loses its pin. Exactly one change is previewed: --dropin FILE (with --as NAME, the
    /// name it will have in the drop-in directory), --new-patterns FILE,
    /// --to-anchor-globs or --to-case-sensitive (under another runtime than
    /// CRI-O, only --new-patterns). None, or two, is a usage error (exit
    /// status 2). The images come from names or --images, as for explain; a
    /// list the runtime refuses, before or after the change, stops it.
    #[command(
        after_help = man::exit_status_help("diff"),
        // clap's own usage line of the change group is 119 columns.
        override_usage = "crio-pin diff [OPTIONS] (--dropin FILE [--as NAME] | --new-patterns FILE\n       \
                          | --to-anchor-globs | --to-case-sensitive) [NAMES]...",
        group(ArgGroup::new("change").required(true).multiple(false))
    )]
    Diff {
        #[command(flatten)]
        images: ImageArgs,
        /// A drop-in about to be written into CRI-O's config directory
        #[arg(long, value_name = "FILE", group = "change")]
        dropin: Option<String>,
        /// The name the drop-in will have in the drop-in directory
        ///
        /// E.g. 99-new.conf, which sets its place in CRI-O's order (default:
        /// FILE's name; not a path)
        #[arg(long = "as", value_name = "NAME")]
        dropin_name: Option<String>,
        /// A new pattern list (one a line) replacing the configured one
        ///
        /// The image pods run stays: CRI-O's pause image, containerd's key
        /// sandbox
        #[arg(long, value_name = "FILE", group = "change")]
        new_patterns: Option<String>,
        /// The mode to change to: anchored globs (CRI-O)
        #[arg(long, group = "change")]
        to_anchor_globs: bool,
        /// The mode to change to: case-sensitive (CRI-O)
        #[arg(long, group = "change")]
        to_case_sensitive: bool,
        /// Print only the images whose pin changes, one a line: -NAME loses
        /// its pin, +NAME gains one
        ///
        /// Losses first; names escaped as the table shows them; the exit
        /// status is as without -q
        #[arg(long, short = 'q', conflicts_with = "json")]
        quiet: bool,
    },
    /// The list read from one runtime written for another
    ///
    /// Read from --runtime's, or --from's. Each pattern with how faithfully
    /// it carries over (exact,
    /// wider, narrower, different, undecided, impossible, or dropped: it
    /// pinned nothing), then the list as the target reads it (exit 1 when a
    /// pattern is anything but exact or dropped, or an image of --images
    /// would change)
    #[command(after_help = man::exit_status_help("translate"))]
    Translate {
        /// The runtime the list is read from (default: --runtime's)
        #[arg(long, value_name = "RUNTIME")]
        from: Option<Runtime>,
        /// The runtime to write the list for
        #[arg(long, value_name = "RUNTIME")]
        to: Runtime,
        /// The output of `crictl images -o json` (or `-` for stdin)
        ///
        /// Both lists run over its images, and every image whose pin would
        /// change is shown
        #[arg(long, value_name = "FILE|-")]
        images: Option<String>,
        /// Print only the list written for the target, to be saved as its
        /// file
        ///
        /// The labels and the images are left out; the exit status is as
        /// without -q
        #[arg(long, short = 'q', conflicts_with = "json")]
        quiet: bool,
    },
    /// The list, lint and each image against the runtime, with one exit status
    ///
    /// One exit status for a script or a monitoring job, and a summary
    /// first: the list in force (as config shows it), lint's findings, and
    /// each image's pin against the runtime's own pinned flag (as explain
    /// --check shows it), the images read from the runtime's CRI socket, or
    /// from --images
    #[command(after_help = man::exit_status_help("check"))]
    Check {
        /// The runtime's CRI socket, as crictl's --runtime-endpoint names it
        #[arg(long, short = 'r', value_name = "ENDPOINT", conflicts_with = "images", long_help = man::endpoint_help())]
        runtime_endpoint: Option<String>,
        /// The output of `crictl images -o json` (or `-` for stdin), instead
        /// of asking the runtime (repeatable)
        ///
        /// As explain's: the runtime's own listing with labels too (`ctr -n
        /// k8s.io images ls`, `docker image inspect`), merged by image ID
        #[arg(long, value_name = "FILE|-")]
        images: Vec<String>,
        /// Accept undecided images
        ///
        /// Undecided: a pattern names a digest crictl shows for an image
        /// pulled by tag
        #[arg(long)]
        allow_undecided: bool,
        /// Exit 1 when lint or the configuration has a warning
        ///
        /// Without it a check with warnings passes, and its verdict says
        /// how many (lint's warnings and the configuration's; notes never
        /// fail)
        #[arg(long)]
        fail_on_warnings: bool,
        /// Ask the runtime again until its pinned flags agree with the list,
        /// for at most DURATION (e.g. 60s, 2m, 500ms)
        ///
        /// For after a reload (`systemctl reload crio && crio-pin check
        /// --wait 60s`): the reload returns once the signal is sent, before
        /// the new list applies. Read every 250 ms at first, every 2 s at
        /// most; done as soon as no image disagrees, else the last reading
        /// is reported (exit status 1). A runtime that stops answering ends
        /// the wait (exit status 2)
        #[arg(long, value_name = "DURATION", value_parser = parse_wait, conflicts_with = "images")]
        wait: Option<std::time::Duration>,
        /// The output's form: text (the default), json (as --json), or
        /// openmetrics (counts for a metrics collector)
        ///
        /// openmetrics: the OpenMetrics text exposition, which Prometheus'
        /// text parser and node_exporter's textfile collector read too:
        /// the check's exit status, images and those pinned, patterns and
        /// those that pin no image here, disagreements, undecided images,
        /// lint's findings by severity, pins the kubelet verifies, images it
        /// trusts as preloaded that the list does not pin, pins its pull
        /// records made no longer preloaded (with --kubelet-config,
        /// --kubelet-root-dir), whether the running runtime holds the files'
        /// list. Counts only, unless --metrics-per-pattern
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<CheckFormat>,
        /// With --format openmetrics: also one series per pattern, the
        /// images it pins (a label per pattern: as many series as patterns)
        #[arg(long)]
        metrics_per_pattern: bool,
        /// List every image, in the text and in JSON
        ///
        /// By default each kind of image (disagreeing, undecided, pinned or
        /// not as the runtime says) shows its first 20 and a count of the
        /// others: a node of a million images is not a million lines. The
        /// counts always count every image
        #[arg(long)]
        every_image: bool,
        /// Print only the verdict, the first line; the exit status is as
        /// without -q
        #[arg(long, short = 'q', conflicts_with = "json")]
        quiet: bool,
        /// Also whether the kubelet pulls each image again before a pod
        /// uses it (with --kubelet-root-dir, by its pull records too), the
        /// images it trusts as preloaded that the list does not pin, and
        /// lint's verified-pin and allowlisted-unpinned
        #[command(flatten)]
        kubelet: KubeletArgs,
    },
    /// A completion script for bash, zsh or fish
    ///
    /// Written to standard output; the packages and `make install` install
    /// each where its shell looks (bash-completion, zsh's site-functions,
    /// fish's vendor_completions.d)
    #[command(after_help = man::exit_status_help("completions"))]
    Completions {
        #[arg(value_enum)]
        shell: CompletionShell,
    },
    /// Write the manual pages, crio-pin.1 and one per subcommand, into DIR
    /// (`make build` runs it; not part of the interface)
    #[command(hide = true)]
    GenerateMan { dir: PathBuf },
}

/// The longest `--wait`: past a day, a number is a mistake.
const LONGEST_WAIT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// `check --wait`'s DURATION: a whole number and its unit, `ms`, `s`, `m`
/// or `h` (as systemd and Go write the common cases).
fn parse_wait(text: &str) -> Result<std::time::Duration, String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let what = "give a whole number and its unit (ms, s, m or h), e.g. --wait 60s or --wait 2m";
    let Ok(number) = number.parse::<u64>() else {
        return Err(format!("{text:?} is no duration: {what}"));
    };
    let millis = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err(format!("{text:?} has no unit: {what}")),
        _ => return Err(format!("{text:?}: unit {unit:?} unknown: {what}")),
    };
    let wait = std::time::Duration::from_millis(number.saturating_mul(millis));
    if wait > LONGEST_WAIT {
        return Err(format!("{text:?} is longer than a day: give at most 24h"));
    }
    Ok(wait)
}

/// The command-line definitions, with the options that need another.
pub fn command() -> clap::Command {
    man::with_requirements(Cli::command())
}

/// The command line, parsed; usage errors exit here (status 2).
pub fn parse() -> Cli {
    Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit())
}

/// `check --format`'s forms.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Openmetrics,
}

/// The shells `completions` writes a script for (an option's values, as
/// the others here: the command takes them from the command line).
#[derive(Clone, Copy, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::parse_wait;

    #[test]
    fn a_wait_is_a_number_and_its_unit() {
        assert_eq!(parse_wait("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_wait("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_wait("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_wait("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_wait("0s"), Ok(Duration::ZERO));
        for (bad, says) in [
            ("60", "has no unit"),
            ("s", "is no duration"),
            ("-1s", "is no duration"),
            ("1.5s", "unit \".5s\" unknown"),
            ("10 s", "unit \" s\" unknown"),
            ("2d", "unit \"d\" unknown"),
            ("25h", "longer than a day"),
            ("99999999999999999999s", "is no duration"),
        ] {
            let why = parse_wait(bad).unwrap_err();
            assert!(why.contains(says) && why.contains("--wait") || why.contains("24h"), "{bad}: {why}");
        }
    }
}
