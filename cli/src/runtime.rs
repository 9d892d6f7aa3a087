//! The container runtime whose pinning the tool reads: where its list
//! comes from (`runtimes::resolve`) and the library's rules for it
//! (docs/runtimes.md: one flag set per runtime).

use clap::ValueEnum;
use crio_pin::Flags;

/// `--runtime` (or `CRIO_PIN_RUNTIME`). (No doc comments on the variants:
/// clap would make them a list, and --help one option a paragraph.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Runtime {
    // [crio.image] pinned_images, its globs and keywords.
    #[default]
    Crio,
    // containerd 2.x: pinned_images of config.toml, compared as written.
    Containerd,
    // containerd as its open fix PRs intend: values normalised first.
    ContainerdNormalized,
    // cri-dockerd (its PR #571): --pinned-images, prefixes and bare
    // repositories.
    CriDockerd,
}

/// The environment variable that chooses the runtime when `--runtime` is
/// not given.
pub const ENV: &str = "CRIO_PIN_RUNTIME";

impl Runtime {
    /// The library's rules for this runtime (CRI-O's own options aside).
    pub fn flags(self) -> Flags {
        match self {
            Runtime::Crio => Flags::CRIO,
            Runtime::Containerd => Flags::CONTAINERD,
            Runtime::ContainerdNormalized => Flags::CONTAINERD_NORMALIZED,
            Runtime::CriDockerd => Flags::CRI_DOCKERD,
        }
    }

    /// The runtime whose rules `flags` are. The tool builds its flags only
    /// from a runtime (CRI-O's with its modes added), so they tell it back:
    /// what takes the flags needs no runtime beside them.
    pub fn of(flags: Flags) -> Runtime {
        if flags.contains(Flags::CRI_DOCKERD_SYNTAX) {
            Runtime::CriDockerd
        } else if flags.contains(Flags::CONTAINERD_NORMALIZED) {
            Runtime::ContainerdNormalized
        } else if flags.contains(Flags::CONTAINERD) {
            Runtime::Containerd
        } else {
            Runtime::Crio
        }
    }

    /// The runtime, as messages name it.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Crio => "CRI-O",
            Runtime::Containerd | Runtime::ContainerdNormalized => "containerd",
            Runtime::CriDockerd => "cri-dockerd",
        }
    }

    /// The value of `--runtime` that selects it.
    pub fn option(self) -> &'static str {
        match self {
            Runtime::Crio => "crio",
            Runtime::Containerd => "containerd",
            Runtime::ContainerdNormalized => "containerd-normalized",
            Runtime::CriDockerd => "cri-dockerd",
        }
    }

    /// How it compares, for the messages that say its rules are fixed.
    pub fn rules(self) -> &'static str {
        match self {
            Runtime::Crio => "CRI-O's globs and keywords, ignoring case",
            Runtime::Containerd => "each value compared with the stored names as written, byte for byte",
            Runtime::ContainerdNormalized => {
                "each value normalised as a reference, then compared with the stored names byte for byte"
            }
            Runtime::CriDockerd => {
                "exact references, bare repositories and anchored prefixes, compared case-sensitively"
            }
        }
    }

    /// Who refuses to pull a name that is a reference but for its case.
    pub fn puller(self) -> &'static str {
        match self {
            Runtime::CriDockerd => "Docker",
            other => other.name(),
        }
    }

    /// Who does something with a list the library refuses, as messages
    /// say it: the runtime, or containerd with the fix whose rules these are.
    pub fn refuser(self) -> &'static str {
        match self {
            Runtime::ContainerdNormalized => "containerd with a fix PR",
            other => other.name(),
        }
    }

    pub fn is_containerd(self) -> bool {
        matches!(self, Runtime::Containerd | Runtime::ContainerdNormalized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runtime_is_told_back_by_its_flags() {
        for runtime in Runtime::value_variants() {
            assert_eq!(Runtime::of(runtime.flags()), *runtime);
            let value = runtime.to_possible_value().unwrap();
            assert_eq!(value.get_name(), runtime.option());
        }
        // CRI-O's modes are still CRI-O.
        assert_eq!(Runtime::of(Flags::ANCHOR_GLOBS | Flags::CASE_SENSITIVE | Flags::STRICT), Runtime::Crio);
    }
}
