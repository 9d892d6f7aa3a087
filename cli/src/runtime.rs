//! The container runtime whose pinning the tool reads, as `--runtime`
//! names it. Only the names are here: what the tool knows of each runtime
//! (its flags, how messages name it, where its configuration lives, its
//! model of stored names) is in its module under `runtimes`, reached by
//! `Runtime::facts` (docs/runtimes.md: one flag set per runtime). Adding a
//! runtime is a variant here, its module, one line in that mapping and its
//! oracle.

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
    // The kubelet's preloadedImagesVerificationAllowlist: no runtime, but
    // the list that decides whether a pinned image is usable unverified.
    Kubelet,
}

/// The environment variable that chooses the runtime when `--runtime` is
/// not given.
pub const ENV: &str = "CRIO_PIN_RUNTIME";

impl Runtime {
    /// The runtime whose rules `flags` are, with its modes. The tool builds
    /// its flags only from a runtime (CRI-O's with its modes added), so
    /// they tell it back: what takes the flags needs no runtime beside them.
    pub fn of(flags: Flags) -> Runtime {
        let own = |r: &&Runtime| {
            let facts = r.facts();
            flags.bits() & !facts.modes.bits() == facts.flags.bits()
        };
        *Runtime::value_variants().iter().find(own).expect("flags built from a runtime")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runtime_is_told_back_by_its_flags() {
        for runtime in Runtime::value_variants() {
            assert_eq!(Runtime::of(runtime.facts().flags), *runtime);
            let value = runtime.to_possible_value().unwrap();
            assert_eq!(value.get_name(), runtime.facts().option);
        }
        // CRI-O's modes are still CRI-O.
        assert_eq!(Runtime::of(Flags::ANCHOR_GLOBS | Flags::CASE_SENSITIVE | Flags::STRICT), Runtime::Crio);
    }
}
