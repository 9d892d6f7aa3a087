//! Where the pinned list comes from: the options that say where a
//! runtime's configuration is (each runtime's reader, under `runtimes`,
//! reads them: `runtimes::resolve`), or a plain pattern file, read here
//! whatever the runtime.

use std::path::Path;
use std::rc::Rc;

use crate::codes::WarningCode;
use crate::error::InputError;
use crate::input;
use crate::list::{Entry, Resolved, Warning};
use crate::runtime::Runtime;

/// The pattern sources, as given on the command line (flags beat the
/// environment, as in CRI-O).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Whose configuration: what the other fields mean.
    pub runtime: Runtime,
    pub config: Option<String>,
    pub config_dir: Option<String>,
    pub pinned_images: Vec<String>,
    /// cri-dockerd's --pinned-image-labels values.
    pub pinned_image_labels: Vec<String>,
    pub pause_image: Option<String>,
    pub patterns: Option<String>,
    /// (name in the config directory, file to read): a drop-in previewed by
    /// `diff`, placed where CRI-O's walk would find it.
    pub extra_dropin: Option<(String, String)>,
}

/// `--patterns FILE`: one pattern a line, `#` comments and blank lines
/// skipped, no pause image.
pub fn pattern_file(path: &str) -> Result<Resolved, InputError> {
    let bytes = input::read_file(Path::new(path)).map_err(|e| InputError(e.message(path)))?;
    let mut out = Resolved { files: vec![path.to_string()], ..Resolved::default() };
    let (mut crlf, mut first_crlf) = (0, 0);
    let shared: Rc<str> = path.into();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = match line.strip_suffix(b"\r") {
            Some(stripped) => {
                crlf += 1;
                if first_crlf == 0 {
                    first_crlf = i + 1;
                }
                stripped
            }
            None => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) || line.first() == Some(&b'#') {
            continue;
        }
        out.entries.push(Entry::in_file(line.to_vec(), &shared, i + 1));
    }
    if crlf > 0 {
        out.warnings.push(Warning::at(
            WarningCode::Crlf,
            path,
            first_crlf,
            format!(
                "{path}: {crlf} line(s) end with CRLF; the '\\r' was taken as part of the line \
                 ending, not of the pattern (in crio.conf, a \"\\r\" inside a pattern is kept \
                 and pins nothing)"
            ),
        ));
    }
    Ok(out)
}
