//! CRI-O-exact pinned-image matching: compile a `pinned_images` list once,
//! then answer "is this image name pinned?" in one pass over the name,
//! whatever the list size.
//!
//! # Why
//!
//! CRI-O compiles one Go regexp per pattern and tries all of them for every
//! name of every image on every image listing: its cost per name grows with
//! the list (figures: `docs/BENCHMARKS.md`). A [`PinSet`] holds the whole
//! list in two structures (a hash table of exact names, and one
//! Aho-Corasick automaton of every glob and keyword, walked once over the
//! name), so the cost per name depends on the name's
//! length, hardly on the list. It is immutable once compiled and shared
//! freely between threads.
//!
//! # Semantics
//!
//! By default a `PinSet` gives exactly CRI-O's answers, quirks included
//! (see [`pattern`] for the table):
//!
//! - `*word*` pins names containing `word`; `prefix*` pins names containing
//!   `prefix` *anywhere* (CRI-O does not anchor globs); anything else must
//!   equal the whole name.
//! - Comparison is case-insensitive with Go's Unicode simple case folding
//!   (`k` matches U+212A KELVIN SIGN), see [`fold`](crate#canonical-form).
//! - `**` pins every name, `***` is the keyword `*`, `*pause` and `a*b` are
//!   exact patterns with a literal `*`, `""` pins only the empty name.
//! - Names are bytes; a byte that is not valid UTF-8 reads as U+FFFD, one per
//!   byte, as in Go.
//! - The lone pattern `*`, which crashes CRI-O, is an error.
//!
//! [`Flags`] opt into saner modes (anchored globs, case-sensitive
//! comparison, strict rejection of likely mistakes) and into the other
//! runtimes' rules: literal patterns, cri-dockerd's syntax, normalised
//! references ([`normalize`]), and one named set per runtime
//! ([`Flags::CONTAINERD`], [`Flags::CONTAINERD_NORMALIZED`],
//! [`Flags::CRI_DOCKERD`]; docs/runtimes.md has them side by side).
//!
//! # Canonical form
//!
//! Names and patterns are compared in a canonical form: decoded as Go
//! decodes (bad bytes become U+FFFD) and, unless case-sensitive, each rune
//! replaced by the smallest rune of its case-fold orbit. The orbit table is
//! generated from Go's own `unicode` tables (`tools/genfold`), so the answers
//! follow Go's Unicode version, not Rust's. An ASCII name's canonical form is
//! its upper-case form, which the matcher never builds: its hash and its
//! automaton fold ASCII case themselves. Other names take a slower exact
//! path.
//!
//! # Layout
//!
//! - [`pattern`]: what a pattern means, the flags, the errors.
//! - [`fingerprint`](mod@fingerprint): a list's fingerprint, the same on
//!   every machine, by which a reload tells an unchanged list from a new
//!   one without compiling it ([`fingerprint()`], [`PinSet::fingerprint`]).
//! - [`normalize`]: image references as the docker reference grammar
//!   normalises them, for [`Flags::NORMALIZE`].
//! - `set`: where patterns become a [`PinSet`] (the fast engine).
//! - `oracle`: CRI-O's loop of one regex per pattern, for tests,
//!   fuzzers and benchmarks (feature `testing`, not a stable API).
//! - `ffi`: the C ABI (`include/crio_pin.h`), a thin layer over the above;
//!   public to Rust only with feature `testing`, for the fuzzers and
//!   benchmarks, which call it type-checked.
//!
//! # Example
//!
//! ```
//! use crio_pin::{Flags, PinSet};
//!
//! let set = PinSet::compile(["registry.k8s.io/pause:3.9", "quay.io/openshift-release-dev/*"], Flags::DEFAULT)?;
//! assert!(set.is_match(b"quay.io/openshift-release-dev/ocp-release@sha256:0123"));
//! assert!(!set.is_match(b"docker.io/library/nginx:1.25"));
//!
//! let anchored = PinSet::compile(["quay.io/*"], Flags::ANCHOR_GLOBS)?;
//! assert!(!anchored.is_match(b"evil.example/quay.io/x"));
//! # Ok::<(), crio_pin::CompileError>(())
//! ```

pub mod fingerprint;
mod fold;
pub mod normalize;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod oracle;
pub mod pattern;
mod set;

// The C entry points are `#[no_mangle]`: the cdylib and staticlib export them
// whatever this module's visibility. Its constants exist for the header
// (cbindgen), so Rust sees them unused when the module is private.
#[cfg(not(feature = "testing"))]
#[allow(dead_code)]
mod ffi;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod ffi;
#[cfg(target_family = "wasm")]
mod wasm;

pub use fingerprint::{fingerprint, Fingerprint, ParseFingerprintError};
pub use pattern::{CompileError, ErrorKind, Flags, Pattern};
#[cfg(feature = "testing")]
#[doc(hidden)]
pub use set::{AutomatonShape, Shape, Verification, WalkCount};
pub use set::{LengthVerdict, PinSet, Tier, DENSE_MAX_BYTES, MAX_PATTERNS, MAX_PATTERN_BYTES};

/// Unicode version of the case-folding table (that of the Go toolchain it
/// was generated from).
pub const FOLD_UNICODE_VERSION: &str = fold::UNICODE_VERSION;
