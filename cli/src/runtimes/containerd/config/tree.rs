//! The TOML tree containerd's decoder sees: each value with the file,
//! line and column it was written at (for messages), tables as sorted
//! maps, and the few things go-toml does to keys (it lower-cases a key
//! that matches no field) that decide which keys count.

use std::collections::BTreeMap;
use std::rc::Rc;

use toml::de::DeValue;
use toml::Spanned;

use crate::codes::WarningCode;
use crate::list::{Lines, Warning};

/// Where a key or value was written.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct At {
    pub(super) file: Rc<str>,
    pub(super) line: usize,
    pub(super) col: usize,
}

impl At {
    pub(super) fn show(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    pub(super) fn show_col(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.col)
    }
}

pub(super) fn warning_at(code: WarningCode, at: &At, message: String) -> Warning {
    Warning::at(code, &at.file, at.line, message)
}

/// A value as containerd holds what it does not decode itself (Go's
/// `map[string]any`): tables, strings, and the rest by type only.
#[derive(Clone, Debug)]
pub(super) enum Value {
    Table(Table),
    String(String),
    Other(&'static str),
}

pub(super) type Table = BTreeMap<String, Node>;

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) value: Value,
    pub(super) at: At,
}

impl Value {
    /// "a string", "an integer", …
    pub(super) fn what(&self) -> String {
        let t = match self {
            Value::Table(_) => "table",
            Value::String(_) => "string",
            Value::Other(t) => t,
        };
        let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        format!("{article} {t}")
    }
}

impl Lines<'_> {
    pub(super) fn at(&self, file: &Rc<str>, offset: usize) -> At {
        let (line, col) = self.line_col(offset);
        At { file: Rc::clone(file), line, col }
    }
}

pub(super) fn convert(value: &Spanned<DeValue<'_>>, at: At, lines: &Lines<'_>) -> Node {
    let value = match value.get_ref() {
        DeValue::Table(t) => Value::Table(
            t.iter()
                .map(|(k, v)| (k.get_ref().to_string(), convert(v, lines.at(&at.file, k.span().start), lines)))
                .collect(),
        ),
        DeValue::String(s) => Value::String(s.to_string()),
        other => Value::Other(other.type_str()),
    };
    Node { value, at }
}

/// Go's strings.ToLower, which go-toml applies to a key that matches no
/// field exactly (Go maps U+0130 to a plain 'i').
pub(super) fn go_lower(s: &str) -> String {
    s.chars().flat_map(|c| if c == '\u{130}' { 'i'.to_lowercase() } else { c.to_lowercase() }).collect()
}

/// A key as written in a table header.
pub(super) fn quote_key(key: &str) -> String {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

pub(super) fn header(path: &[&str]) -> String {
    format!("[{}]", path.iter().map(|k| quote_key(k)).collect::<Vec<_>>().join("."))
}
