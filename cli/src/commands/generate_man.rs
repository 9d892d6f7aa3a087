//! `crio-pin generate-man DIR` (hidden; `make build` runs it): the manual
//! pages, crio-pin.1 and one per command, made by `man` from the
//! definitions in `args`.

use std::path::Path;

use crate::error::InputError;
use crate::output::Outcome;
use crate::{args, man};

pub fn run(dir: &Path) -> Result<Outcome, InputError> {
    man::write_pages(args::command(), dir).map_err(|e| InputError(format!("{}: {e}", dir.display())))?;
    Ok(Outcome { out: Vec::new(), refused: Vec::new(), code: 0 })
}
