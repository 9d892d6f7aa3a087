//! One module per command of `args::Command`, each with its `run`: it
//! reads what the command needs, answers, and prints (text or JSON) into
//! an `Outcome` that `output::finish` writes out.

pub mod check;
pub mod completions;
pub mod config;
pub mod diff;
pub mod explain;
pub mod generate_man;
pub mod lint;
pub mod translate;

use crate::args::ImageArgs;
use crate::codes::WarningCode;
use crate::error::InputError;
use crate::list::Resolved;
use crate::runtime::Runtime;
use crate::{images, output, show};

/// The images of `explain` and `diff`: names, and an `--images` listing,
/// with the names the runtime matches.
pub fn load_images(args: &ImageArgs, runtime: Runtime) -> Result<Vec<images::Image>, InputError> {
    let mut list = args
        .names
        .iter()
        .map(|n| {
            images::plain(n, runtime.model().naming()).map_err(|why| {
                InputError(format!(
                    "{}: not an image name ({why}); give names as `crictl images` shows them",
                    show::quote(n)
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !args.images.is_empty() {
        list.extend(images::read_all(&args.images, runtime.model().naming())?);
    }
    // An empty listing (`{"images": []}`, names all commented out) is a
    // node with no images: a valid answer. No input at all is an error, and
    // so is an empty file (`images::parse`).
    if args.names.is_empty() && args.images.is_empty() {
        return Err(InputError(format!("no images: give names, or --images FILE ({})", images::EXPECTED)));
    }
    Ok(list)
}

/// `explain` and `diff` print no configuration warnings: a drop-in
/// directory that does not exist (a typo?) is said on standard error
/// (wrapped unless `full`).
pub fn note_missing_dir(resolved: &Resolved, full: bool) {
    for w in resolved.warnings.iter().filter(|w| w.code == WarningCode::MissingConfigDir) {
        output::say_on_stderr(&format!("warning[{}]: {}", w.code, w.message), full);
    }
}
