//! The container runtime whose pinning the tool reads, as `--runtime`
//! names it: the type every layer names, at the bottom of them, made here
//! from the one list of runtimes (`each_runtime!`). The runtimes' layer
//! (`runtimes`) makes from the same list each runtime's module, its face:
//! `runtime.model()`, `runtime.facts()`, `runtime.oracle()`, and
//! `--runtime`'s values (each runtime's `Facts::option`, in the list's
//! order).

/// The one list of runtimes: each line names a runtime's variant of
/// [`Runtime`] (the name code uses, `Runtime::Crio`) and its module's
/// `Model` under `runtimes`. It hands the list to `$then`, a macro that
/// makes something of it: here the `Runtime` enum, in the list's order
/// (the order of `--runtime`'s values; the first is the default); in
/// `runtimes` the models, which `Runtime::model` indexes. Adding a runtime
/// is its module and its line here (docs/runtimes.md, "Adding a runtime").
macro_rules! each_runtime {
    ($then:ident) => {
        $then! {
            // [crio.image] pinned_images, its globs and keywords (the default).
            Crio => crio::Crio,
            // containerd 2.x: pinned_images of config.toml, compared as written.
            Containerd => containerd::RELEASED,
            // containerd as its open fix PRs intend: values normalised first.
            ContainerdNormalized => containerd::NORMALIZED,
            // cri-dockerd (its PR #571): --pinned-images, prefixes and bare
            // repositories.
            CriDockerd => cri_dockerd::CriDockerd,
            // The kubelet's preloadedImagesVerificationAllowlist: no runtime, but
            // the list that decides whether a pinned image is usable unverified.
            Kubelet => kubelet::Kubelet,
        }
    };
}
pub(crate) use each_runtime;

/// The `Runtime` enum from the list (the models are the runtimes' layer's).
macro_rules! runtime_enum {
    ($($variant:ident => $model:expr,)*) => {
        /// A runtime the tool knows, as `--runtime` (or `CRIO_PIN_RUNTIME`)
        /// selects it: an index into `runtimes::RUNTIMES`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Runtime {
            $($variant,)*
        }

        impl Runtime {
            /// Every runtime, in the list's order.
            pub const ALL: &'static [Runtime] = &[$(Runtime::$variant,)*];
        }
    };
}

each_runtime!(runtime_enum);

/// The environment variable that chooses the runtime when `--runtime` is
/// not given.
pub const ENV: &str = "CRIO_PIN_RUNTIME";

/// The list's first runtime, CRI-O.
impl Default for Runtime {
    fn default() -> Runtime {
        Runtime::ALL[0]
    }
}
