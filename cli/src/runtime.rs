//! The container runtime whose pinning the tool reads, as `--runtime`
//! names it. The type and its variants come from the one list of runtimes
//! (`runtimes!` in `runtimes`, each runtime's module beside its line);
//! here is only how the command line reads it: its values are each
//! runtime's `Facts::option`, in the list's order.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use crio_pin::Flags;

pub use crate::runtimes::Runtime;

/// The environment variable that chooses the runtime when `--runtime` is
/// not given.
pub const ENV: &str = "CRIO_PIN_RUNTIME";

/// The list's first runtime, CRI-O.
impl Default for Runtime {
    fn default() -> Runtime {
        Runtime::ALL[0]
    }
}

/// `--runtime`: each runtime's value is its module's `option`.
impl ValueEnum for Runtime {
    fn value_variants<'a>() -> &'a [Runtime] {
        Runtime::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.facts().option))
    }
}

impl Runtime {
    /// The runtime whose rules `flags` are, with its modes. The tool builds
    /// its flags only from a runtime (CRI-O's with its modes added), so
    /// they tell it back: what takes the flags needs no runtime beside them.
    pub fn of(flags: Flags) -> Runtime {
        let own = |r: &&Runtime| {
            let facts = r.facts();
            flags.bits() & !facts.modes.bits() == facts.flags.bits()
        };
        *Runtime::ALL.iter().find(own).expect("flags built from a runtime")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runtime_is_told_back_by_its_flags_and_its_value() {
        for runtime in Runtime::value_variants() {
            assert_eq!(Runtime::of(runtime.facts().flags), *runtime);
            assert_eq!(Runtime::from_str(runtime.facts().option, false), Ok(*runtime));
        }
        let values: Vec<&str> = Runtime::ALL.iter().map(|r| r.facts().option).collect();
        assert_eq!(values, ["crio", "containerd", "containerd-normalized", "cri-dockerd", "kubelet"]);
        assert_eq!(Runtime::default(), Runtime::Crio);
        // CRI-O's modes are still CRI-O.
        assert_eq!(Runtime::of(Flags::ANCHOR_GLOBS | Flags::CASE_SENSITIVE | Flags::STRICT), Runtime::Crio);
    }
}
