//! Reading the files the tool is given: regular files only, and never more
//! than `MAX_BYTES` from one file or from standard input.
//!
//! A FIFO would block the tool for ever, `/dev/zero` would fill the memory:
//! both are refused before anything is read. The null device is accepted
//! (it reads as empty), as `ln -s /dev/null` is how systemd-style
//! configuration is masked.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::error::InputError;

/// No real input comes near it: a `pinned_images` of 1,000,000 digest
/// references is 124 MB, and so is a `crictl images -o json` of about
/// 300,000 images.
pub const MAX_BYTES: u64 = 256 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    NotRegular(Special),
    TooLarge,
}

/// A file that is not a regular file, a directory or the null device.
#[derive(Clone, Copy, Debug)]
pub enum Special {
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
}

impl Special {
    fn what(self) -> &'static str {
        match self {
            Special::Fifo => "a FIFO (named pipe)",
            Special::Socket => "a socket",
            Special::CharDevice => "a character device",
            Special::BlockDevice => "a block device",
        }
    }
}

impl ReadError {
    /// What went wrong, without the file's name.
    pub fn describe(&self) -> String {
        match self {
            ReadError::Io(e) => format!("cannot read: {e}"),
            ReadError::NotRegular(kind) => {
                format!("is {}, not a regular file (not read: it could block, or never end)", kind.what())
            }
            ReadError::TooLarge => {
                format!("larger than {} MiB, more than any real input; not read", MAX_BYTES >> 20)
            }
        }
    }

    /// The whole message, for a file that is not one of CRI-O's.
    pub fn message(&self, name: &str) -> String {
        let fix = match self {
            ReadError::Io(_) => "",
            ReadError::NotRegular(_) => "; give a regular file",
            ReadError::TooLarge => "; check what wrote it",
        };
        format!("{name}: {}{fix}", self.describe())
    }
}

/// Reads a regular file (or the null device) whole.
pub fn read_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    // Decided before opening: opening a device can have effects of its own.
    check_kind(&std::fs::metadata(path).map_err(ReadError::Io)?)?;
    // Non-blocking, so that a FIFO put there since is refused, not waited on.
    let file = File::options().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    check_kind(&meta)?;
    if meta.len() > MAX_BYTES {
        return Err(ReadError::TooLarge);
    }
    read_bounded(file, meta.len())
}

/// `--images FILE`, or `-` for standard input.
pub fn read_arg(arg: &str) -> Result<Vec<u8>, InputError> {
    let read = if arg == "-" { read_bounded(io::stdin().lock(), 0) } else { read_file(Path::new(arg)) };
    read.map_err(|e| match e {
        ReadError::NotRegular(_) => {
            InputError(format!("{arg}: {}; save it to a file, or pipe it into `--images -`", e.describe()))
        }
        _ => InputError(e.message(arg)),
    })
}

fn check_kind(meta: &Metadata) -> Result<(), ReadError> {
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        // A directory fails at the read, as it does for CRI-O.
        return Ok(());
    }
    let kind = if t.is_fifo() {
        Special::Fifo
    } else if t.is_socket() {
        Special::Socket
    } else if t.is_char_device() {
        let null =
            std::fs::metadata("/dev/null").is_ok_and(|n| n.file_type().is_char_device() && n.rdev() == meta.rdev());
        if null {
            return Ok(());
        }
        Special::CharDevice
    } else {
        Special::BlockDevice
    };
    Err(ReadError::NotRegular(kind))
}

fn read_bounded(reader: impl Read, size_hint: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(size_hint.min(MAX_BYTES) as usize + 1);
    reader.take(MAX_BYTES + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// A path as text, for messages and output: UTF-8 as it is, any other byte
/// as `\xNN` (the file is read by its real path, not by this text).
pub fn path_text(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}
