//! The shared vocabulary of every runtime's list, below the runtimes and
//! the commands: a list's entries and where each was written, the
//! warnings about it, the lists a later one replaced, and the line tables
//! and TOML helpers the configuration readers share.

use std::rc::Rc;

use serde::Serialize;
use toml::de::{DeTable, DeValue};

use crate::codes::WarningCode;

/// One pattern of the effective list.
#[derive(Clone, Debug)]
pub struct Entry {
    pub text: Vec<u8>,
    /// "FILE:LINE", "flag", "env", "pause_image" or "default" (containerd's
    /// built-in sandbox image, which no file replaced).
    pub source: String,
    /// For the pause image: where its value was set ("FILE:LINE",
    /// "default", "flag" or "env").
    pub defined_at: Option<String>,
    /// The file and line its text was written at (for the pause image,
    /// where its value was set), when it was written in a file. (The name
    /// is shared by the entries of one file: a million-entry list makes
    /// no million copies of it.)
    pub at: Option<(Rc<str>, usize)>,
    /// containerd: the key of `pinned_images` whose value this is.
    pub key: Option<String>,
}

impl Entry {
    pub fn display(&self) -> String {
        String::from_utf8_lossy(&self.text).into_owned()
    }

    /// A pattern written at FILE:LINE.
    pub fn in_file(text: Vec<u8>, file: &Rc<str>, line: usize) -> Entry {
        Entry { text, source: format!("{file}:{line}"), defined_at: None, at: Some((Rc::clone(file), line)), key: None }
    }

    /// The image pods run, which a new list keeps: CRI-O's pause image,
    /// containerd's key sandbox (its default when no file sets it).
    pub fn is_pause_image(&self) -> bool {
        self.source == "pause_image" || self.key.as_deref() == Some("sandbox")
    }

    /// "file", "flag", "env", "pause_image" or "default": what `source`
    /// is, without parsing it.
    pub fn source_kind(&self) -> &'static str {
        match self.source.as_str() {
            "flag" => "flag",
            "env" => "env",
            "pause_image" => "pause_image",
            "default" => "default",
            _ => "file",
        }
    }

    pub fn file(&self) -> Option<&str> {
        self.at.as_ref().map(|(file, _)| &**file)
    }

    pub fn line(&self) -> Option<usize> {
        self.at.as_ref().map(|&(_, line)| line)
    }

    pub fn origin(&self) -> Origin {
        Origin {
            source: self.source.clone(),
            source_kind: self.source_kind(),
            file: self.file().map(str::to_string),
            line: self.line(),
            key: self.key.clone(),
        }
    }
}

/// Where a pattern came from, as the JSON objects that name a pattern by
/// its origin write it (flattened into them: `source`, `source_kind`,
/// then `file` and `line` when it was written in a file, and `key` for
/// containerd's).
#[derive(Clone, Debug, Serialize)]
pub struct Origin {
    /// "FILE:LINE", "flag", "env", "pause_image" or "default".
    pub source: String,
    /// "file", "flag", "env", "pause_image" or "default".
    pub source_kind: &'static str,
    /// Where the pattern was written (the pause image: where it was set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// containerd: its key in `pinned_images`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// (Fields in alphabetical order: the order of their JSON keys, as in
/// every other JSON object the tool writes.)
#[derive(Clone, Debug, Serialize)]
pub struct Warning {
    pub code: WarningCode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
    /// "warning", or "info": a note, where nothing is lost (a list
    /// replaced by one that pins all it pins), printed `info[CODE]`.
    pub severity: &'static str,
}

impl Warning {
    pub fn new(code: WarningCode, message: String) -> Warning {
        Warning { code, message, file: None, line: None, severity: "warning" }
    }

    /// About one file.
    pub fn file(code: WarningCode, file: &str, message: String) -> Warning {
        Warning { file: Some(file.to_string()), ..Warning::new(code, message) }
    }

    /// About one line of a file.
    pub fn at(code: WarningCode, file: &str, line: usize, message: String) -> Warning {
        Warning { file: Some(file.to_string()), line: Some(line), ..Warning::new(code, message) }
    }

    pub fn is_note(&self) -> bool {
        self.severity == "info"
    }
}

/// A list replaced by a later one (an `overridden-list` warning): the
/// patterns it had that the later one does not, which a running CRI-O
/// that has not reloaded may still pin by.
#[derive(Clone, Debug)]
pub struct Override {
    /// Its warning, an index into `Resolved::warnings`.
    pub warning: usize,
    /// What replaced the list ("FILE:LINE", a flag or a variable), and
    /// where the replaced list was set.
    pub by: String,
    pub replaced: String,
    pub dropped: Vec<Entry>,
}

/// A list written under a key the runtime ignores, a near miss of the one
/// it reads (an `ignored-key` warning), which `lint --fix` renames.
#[derive(Clone, Debug)]
pub struct IgnoredList {
    /// Its warning, an index into `Resolved::warnings`.
    pub warning: usize,
    /// The key as written, and the key the runtime reads.
    pub key: String,
    pub meant: &'static str,
    /// Where the key was written.
    pub file: String,
    pub line: usize,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Default)]
pub struct Resolved {
    pub entries: Vec<Entry>,
    pub warnings: Vec<Warning>,
    /// Files read, in CRI-O's order.
    pub files: Vec<String>,
    /// The list a SIGHUP reload loads instead, when a flag or the
    /// environment replaced the files' list or pause image: CRI-O re-reads
    /// only the files (the files' list without its empty patterns, which
    /// ReloadPinnedImages drops, then the files' pause image).
    pub reload: Option<Vec<Entry>>,
    /// The lists replaced by later ones, with their dropped patterns.
    pub overrides: Vec<Override>,
    /// The lists under near-miss keys, which the runtime does not read.
    pub ignored_lists: Vec<IgnoredList>,
    /// The label selectors that pin images beside the list (cri-dockerd's
    /// --pinned-image-labels).
    pub label_selectors: Vec<crate::labels::LabelSelector>,
}

/// Where each line of a file starts, found once: the line of an offset is
/// then a binary search, whatever the number of entries. (Both runtimes'
/// readers use it.)
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str) -> Lines<'t> {
        Lines { text, starts: std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect() }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line(offset);
        (line, self.text[self.starts[line - 1]..offset].chars().count() + 1)
    }
}

/// The tables a TOML value holds, where keys may hide: the value itself,
/// or each table of an array of tables.
pub fn tables_in<'v, 'de>(value: &'v DeValue<'de>) -> Vec<&'v DeTable<'de>> {
    match value {
        DeValue::Table(t) => vec![t],
        DeValue::Array(items) => items
            .iter()
            .filter_map(|item| match item.get_ref() {
                DeValue::Table(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A TOML string, quoted and escaped.
pub fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}
