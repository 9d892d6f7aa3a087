//! The command line: the options every command takes (the pattern
//! sources CRI-O takes, the library's modes, the output's form), and one
//! variant per command, each run by its module in `commands`.

use std::path::PathBuf;

use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use crio_pin::Flags;

use crate::config::Sources;
use crate::man;

#[derive(Parser)]
#[command(
    name = "crio-pin",
    version,
    about = "What CRI-O pins, by which pattern, from which file, and what a change would do",
    after_help = man::exit_status_help("")
)]
pub struct Cli {
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args)]
pub struct SourceArgs {
    /// CRI-O's main configuration file [env: CONTAINER_CONFIG] [default: /etc/crio/crio.conf]
    #[arg(long, short = 'c', value_name = "FILE", global = true)]
    pub config: Option<String>,
    /// CRI-O's drop-in directory, walked recursively in lexical order
    /// [env: CONTAINER_CONFIG_DIR] [default: /etc/crio/crio.conf.d]
    #[arg(long, short = 'd', value_name = "DIR", global = true)]
    pub config_dir: Option<String>,
    /// Comma-separated patterns replacing the files' list, as CRI-O's flag
    /// (repeatable) [env: CONTAINER_PINNED_IMAGES]
    #[arg(long, value_name = "LIST", global = true)]
    pub pinned_images: Vec<String>,
    /// The pause image, which CRI-O appends as an exact pattern
    /// [env: CONTAINER_PAUSE_IMAGE] [default: registry.k8s.io/pause:3.10.1]
    #[arg(long, value_name = "REF", global = true)]
    pub pause_image: Option<String>,
    /// Read patterns from FILE instead (one a line, '#' comments; no pause image)
    #[arg(long, value_name = "FILE", global = true,
          conflicts_with_all = ["config", "config_dir", "pinned_images", "pause_image"])]
    pub patterns: Option<String>,
    /// Anchor globs: `prefix*` pins only names starting with prefix (not CRI-O)
    #[arg(long, global = true)]
    pub anchor_globs: bool,
    /// Compare case-sensitively (not CRI-O)
    #[arg(long, global = true)]
    pub case_sensitive: bool,
    /// Reject likely mistakes (empty, literal '*', whitespace) as the library's strict mode
    #[arg(long, global = true)]
    pub strict: bool,
    /// JSON output for scripts (always whole: never shortened)
    #[arg(long, global = true)]
    pub json: bool,
    /// Show names, digests, ids, patterns and sources whole in tables (by
    /// default they are shortened to fit 100 columns, as crictl shortens ids)
    #[arg(long, global = true)]
    pub no_trunc: bool,
}

impl SourceArgs {
    pub fn sources(&self) -> Sources {
        Sources {
            config: self.config.clone(),
            config_dir: self.config_dir.clone(),
            pinned_images: self.pinned_images.clone(),
            pause_image: self.pause_image.clone(),
            patterns: self.patterns.clone(),
            extra_dropin: None,
        }
    }

    pub fn flags(&self) -> Flags {
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
pub struct ImageArgs {
    /// Image names, as CRI-O stores them (a short name is qualified as CRI-O
    /// does: nginx:V1 is docker.io/library/nginx:V1)
    pub names: Vec<String>,
    /// The output of `crictl images -o json` (or its "images" array, `jq
    /// .images`), or image names one a line ('#' comments); `-` for stdin;
    /// anything else is an error
    #[arg(long, value_name = "FILE|-")]
    pub images: Option<String>,
}

#[derive(Subcommand)]
pub enum Command {
    /// The effective pinned list, each pattern with its source (exit 2 when
    /// CRI-O would refuse it, or the files' list a SIGHUP reload loads instead)
    #[command(after_help = man::exit_status_help("config"))]
    Config,
    /// What CRI-O does with each pattern, and likely mistakes (exit 1 on
    /// errors); also the files' list a SIGHUP reload loads in place of
    /// --pinned-images or CONTAINER_PINNED_IMAGES
    #[command(after_help = man::exit_status_help("lint"))]
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
    #[command(after_help = man::exit_status_help("explain"))]
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
        #[arg(long)]
        allow_undecided: bool,
    },
    /// Which images gain or lose a pin with a change
    ///
    /// Exactly one change is previewed: --dropin FILE (with --as NAME, the
    /// name it will have in the drop-in directory), --new-patterns FILE,
    /// --to-anchor-globs or --to-case-sensitive. None, or two, is a usage
    /// error (exit status 2). The images come from names or --images, as
    /// for explain; a list CRI-O refuses, before or after the change, stops
    /// it.
    #[command(
        after_help = man::exit_status_help("diff"),
        group(ArgGroup::new("change").required(true).multiple(false))
    )]
    Diff {
        #[command(flatten)]
        images: ImageArgs,
        /// A drop-in about to be written into the config directory
        #[arg(long, value_name = "FILE", group = "change")]
        dropin: Option<String>,
        /// The file name the drop-in will have in the drop-in directory, e.g.
        /// 99-new.conf, which sets its place in CRI-O's order (default: FILE's
        /// name; not a path)
        #[arg(long = "as", value_name = "NAME")]
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

/// The command-line definitions, with the options that need another.
pub fn command() -> clap::Command {
    man::with_requirements(Cli::command())
}

/// The command line, parsed; usage errors exit here (status 2).
pub fn parse() -> Cli {
    Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit())
}
