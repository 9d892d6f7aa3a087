//! Text from input files as it is printed for people. An image name in a
//! crictl listing or a file name in the drop-in directory can hold escape
//! sequences that would drive the operator's terminal, or bidi controls
//! that make it show something else: every such character is printed as
//! a Rust escape (`\u{1b}`, `\t`, `\u{202e}`). Everything printed for
//! people goes through `escape` (file names, sources, messages), `quote`
//! (patterns) or `name` (image names). JSON output is not escaped.

use std::borrow::Cow;

/// Whether `c` prints as itself: not C0, DEL, C1, a format character
/// (bidi controls, zero-width characters), a line or paragraph separator,
/// a space other than U+0020, or unassigned, as Rust's `{:?}` decides.
fn prints_as_itself(c: char) -> bool {
    matches!(c, '"' | '\'' | '\\') || c.escape_debug().len() == 1
}

fn push_escaped(out: &mut String, c: char) {
    if prints_as_itself(c) {
        out.push(c);
    } else {
        out.extend(c.escape_debug());
    }
}

/// `text` with every non-printing character escaped. Text that is already
/// escaped is left as it is, so messages can be escaped whole.
pub fn escape(text: &str) -> Cow<'_, str> {
    if text.chars().all(prints_as_itself) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// `text` in double quotes, escaped, with `"` and `\` escaped too.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        push_escaped(&mut out, c);
    }
    out.push('"');
    out
}

/// An image name for a table cell or a message: as it is when it reads as
/// one word, quoted when it is empty or has blanks, quotes, backslashes or
/// escaped characters, so that where it starts and ends is visible.
pub fn name(text: &str) -> Cow<'_, str> {
    let plain =
        !text.is_empty() && text.chars().all(|c| prints_as_itself(c) && !c.is_whitespace() && !matches!(c, '"' | '\\'));
    if plain {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(quote(text))
    }
}

/// A pattern as printed: quoted, and after its key when it has one (a
/// containerd `pinned_images` entry, written as in its file: `base =
/// "quay.io/a:1"`; a key that is not a bare TOML key is quoted).
pub fn pattern(key: Option<&str>, text: &str) -> String {
    match key {
        Some(k) => format!("{} = {}", self::key(k), quote(text)),
        None => quote(text),
    }
}

/// A TOML key as written in its file: bare, or quoted (and escaped).
pub fn key(key: &str) -> Cow<'_, str> {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        Cow::Borrowed(key)
    } else {
        Cow::Owned(quote(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyed_pattern_is_shown_as_its_toml_line() {
        assert_eq!(pattern(None, "quay.io/a:1"), "\"quay.io/a:1\"");
        assert_eq!(pattern(Some("base"), "quay.io/a:1"), "base = \"quay.io/a:1\"");
        assert_eq!(pattern(Some("my app"), "x"), "\"my app\" = \"x\"");
        assert_eq!(pattern(Some("\u{1b}"), "x"), "\"\\u{1b}\" = \"x\"");
    }

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(escape("quay.io/x:1"), "quay.io/x:1");
        assert_eq!(escape("a\u{1b}[2Jb\tc\u{7f}d\u{9b}e"), "a\\u{1b}[2Jb\\tc\\u{7f}d\\u{9b}e");
        assert_eq!(escape("x\u{202e}y\u{2066}z\u{200b}\u{a0}"), "x\\u{202e}y\\u{2066}z\\u{200b}\\u{a0}");
        // Already escaped text is unchanged: messages may hold quoted names.
        let quoted = quote("a\"b\\c\nd");
        assert_eq!(quoted, "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(escape(&quoted), quoted);
        assert_eq!(escape("é ü 東京"), "é ü 東京");
    }

    #[test]
    fn names_are_quoted_when_their_ends_would_not_show() {
        assert_eq!(name("docker.io/library/nginx:1"), "docker.io/library/nginx:1");
        assert_eq!(name(" nginx:1 "), "\" nginx:1 \"");
        assert_eq!(name(""), "\"\"");
        assert_eq!(name("a\u{1b}b"), "\"a\\u{1b}b\"");
        assert_eq!(name("\"x\""), "\"\\\"x\\\"\"");
    }

    #[test]
    fn quote_agrees_with_debug_for_the_common_cases() {
        for s in ["registry.k8s.io/pause:3.10", "a\tb\r\n", "q\"uote\\", "\u{1b}[31m", "\u{202e}", "it's"] {
            assert_eq!(quote(s), format!("{s:?}"));
        }
    }
}
