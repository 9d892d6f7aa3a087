//! Every file the tool writes for the user (`lint --fix-to FILE`, the
//! manual pages of `generate-man`) is written whole or not at all.
//!
//! The text goes to a temporary file in the target's own directory (so
//! the rename below stays on one file system), which is flushed to the
//! disk (fsync), then renamed over the target, and the directory is
//! flushed so that the rename itself survives a crash. A reader, or a
//! crash, sees the old file or the new one, never half of either: on a
//! full file system, a write error or a failed rename the old file is as
//! it was, and the temporary one is removed (tempfile's `NamedTempFile`
//! removes it when it is dropped unpersisted).
//!
//! The new file keeps the mode of the file it replaces; a new one gets
//! what `File::create` would give it (0666 less the umask). Its owner is
//! whoever wrote it, as with any new file. A symbolic link is followed:
//! the file it points to is replaced and the link stays. A target that
//! exists and is not a regular file (a device, a FIFO, a directory) is
//! refused: renaming over it would replace the node itself.

use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The mode of a new file before the umask, as `File::create` asks.
const NEW_FILE_MODE: u32 = 0o666;

/// Why a file was not written: the error, saying the step it stopped at,
/// and what is left at the target.
#[derive(Debug)]
pub struct Failed {
    pub error: io::Error,
    /// The new file was renamed into place, but the directory was not
    /// flushed: a crash could still bring the old one back.
    pub in_place: bool,
}

impl Failed {
    /// What is at `path` now, in a few words.
    pub fn left(&self, path: &Path) -> &'static str {
        if self.in_place {
            "the new file is in place, but a crash could still undo that: run sync"
        } else if fs::symlink_metadata(path).is_ok() {
            "the file is as it was"
        } else {
            "nothing was written"
        }
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

/// Writes `contents` to `path`, whole or not at all.
pub fn write(path: &Path, contents: &[u8]) -> Result<(), Failed> {
    replace(path, |file| file.write_all(contents))
}

/// Replaces `path` by the file `fill` writes, whole or not at all: when
/// `fill` or any step up to the rename fails, `path` is as it was and the
/// temporary file is gone. The error says which step failed.
pub fn replace(path: &Path, fill: impl FnOnce(&mut File) -> io::Result<()>) -> Result<(), Failed> {
    let failed = |error| Failed { error, in_place: false };
    let target = followed(path).map_err(failed)?;
    let old = match fs::metadata(&target) {
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        Ok(meta) => {
            return Err(failed(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("it is {}, not a regular file, and would be replaced by one", kind(&meta)),
            )))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(failed(e)),
    };
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".crio-pin.tmp")
        .permissions(Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(dir)
        .map_err(|e| failed(step(e, &format!("creating a temporary file in {}", dir.display()))))?;
    let file = temp.as_file_mut();
    // The umask narrowed the new file's mode at creation; the old file's
    // mode is set as it was, whatever the umask.
    if let Some(mode) = old {
        file.set_permissions(mode).map_err(|e| failed(step(e, "giving the new file the old one's mode")))?;
    }
    fill(file).map_err(|e| failed(step(e, "writing the new file beside it")))?;
    file.sync_all().map_err(|e| failed(step(e, "flushing the new file to the disk")))?;
    temp.persist(&target).map_err(|e| failed(step(e.error, "renaming the new file over the old one")))?;
    // The rename is in the directory: flushed, it survives a crash.
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| Failed {
        error: step(e, &format!("flushing the directory {} to the disk", dir.display())),
        in_place: true,
    })
}

/// `path`, its symbolic links followed to the file they name (which may
/// not exist yet).
fn followed(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // More links than this in a chain is a loop, as the kernel's limit says.
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::new(io::ErrorKind::InvalidInput, "too many levels of symbolic links"))
}

/// What a file that is not a regular one is, for the message.
fn kind(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else {
        "a block device"
    }
}

/// `e`, saying the step it stopped.
fn step(e: io::Error, doing: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{e}, {doing}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_failing_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.conf");
        fs::write(&path, b"old contents\n").unwrap();
        let err = replace(&path, |f| {
            f.write_all(b"half of the new")?;
            Err(io::Error::other("the disk is full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "the disk is full, writing the new file beside it");
        assert_eq!(err.left(&path), "the file is as it was");
        assert_eq!(fs::read(&path).unwrap(), b"old contents\n");
        assert_eq!(names(dir.path()), ["list.conf"]);
        // No file before: none after.
        let new = dir.path().join("new.conf");
        assert_eq!(replace(&new, |_| Err(io::Error::other("no"))).unwrap_err().left(&new), "nothing was written");
        assert_eq!(names(dir.path()), ["list.conf"]);
    }

    #[test]
    fn the_new_file_keeps_the_old_mode_and_a_link_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("list.conf");
        fs::write(&path, b"old").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.conf");
        std::os::unix::fs::symlink("list.conf", &link).unwrap();
        write(&link, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o640);
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(names(dir.path()), ["link.conf", "list.conf"]);
        // A new file: 0666 less the umask, as File::create gives it.
        let created = dir.path().join("created.conf");
        File::create(&created).unwrap();
        let fresh = dir.path().join("fresh.conf");
        write(&fresh, b"x").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&fresh), mode(&created));
    }

    #[test]
    fn a_target_that_is_not_a_regular_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = write(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().contains("a directory, not a regular file"), "{err}");
        let err = write(Path::new("/dev/null"), b"x").unwrap_err();
        assert!(err.to_string().contains("a character device"), "{err}");
    }
}
