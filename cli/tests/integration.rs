//! The built `crio-pin` binary on the committed fixture trees (tests/data),
//! compared with tests/expected/*.txt: one test binary, one module per
//! command or topic (as ripgrep's tests are laid out), sharing `util`.
//! `CRIO_PIN_BLESS=1 cargo test -p crio-pin-cli` rewrites the expected
//! files; review the diff before committing it.

mod util;

mod artifacts;
mod bad_config;
mod check;
mod color;
mod config;
mod diff;
mod explain;
mod files;
mod fix;
mod images_input;
mod json_schemas;
mod kubelet;
mod labels;
mod large_input;
mod layers;
mod lint;
mod man_pages;
mod metrics;
mod output;
mod quiet;
mod refused_lists;
mod runtimes;
mod translate;
