//! Lists the library refuses under a runtime's rules, each refused
//! pattern named, and what the runtime does with them beside a runtime
//! built on this library (which refuses it with an error, docs/cri-o.md). The tool says both, never one for the other; what the
//! runtime does is its module's (`Model::on_refused`): stock CRI-O panics
//! on a lone `*` (`runtimes::crio`), containerd's fix PRs skip a value
//! that is no reference without a word.

use crio_pin::{CompileError, ErrorKind, Flags, PinSet};
use serde::Serialize;

use crate::codes::LintCode;
use crate::error::InputError;
use crate::list::Entry;
use crate::show;

/// Which list of the configuration: the one it gives now, or the files'
/// list a SIGHUP reload loads instead of `--pinned-images` /
/// `CONTAINER_PINNED_IMAGES` (and of `--pause-image`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    Effective,
    AfterReload,
}

impl List {
    pub fn as_str(self) -> &'static str {
        match self {
            List::Effective => "effective",
            List::AfterReload => "after-reload",
        }
    }
}

/// One pattern that makes CRI-O, or a runtime built on this library,
/// refuse its list. (Fields in alphabetical order, as JSON keys.)
#[derive(Clone, Debug, Serialize)]
pub struct Refused {
    /// "lone-star", "invalid-utf8", "empty", "whitespace",
    /// "control-character", "literal-star", "bad-pause-image",
    /// "not-a-reference".
    pub code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub index: usize,
    /// containerd: the pattern's key in `pinned_images`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// "effective" or "after-reload".
    pub list: &'static str,
    /// What is wrong, what to write instead, and what the runtime (stock
    /// CRI-O, containerd's fix PRs) and a runtime built on this library do
    /// with the list.
    pub message: String,
    pub pattern: String,
    pub source: String,
    pub source_kind: &'static str,
}

impl Refused {
    /// "SOURCE: MESSAGE", for one line of text.
    pub fn line(&self) -> String {
        format!("{}: {}", self.source, self.message)
    }
}

/// A list compiled as far as it can be: the set of its valid patterns, and
/// the patterns refused.
pub struct Compiled {
    pub set: PinSet,
    /// The list index of each pattern of `set` (empty: the same index).
    index: Vec<usize>,
    pub refused: Vec<Refused>,
}

impl Compiled {
    /// The list index of the set's pattern `i`.
    pub fn list_index(&self, i: usize) -> usize {
        if self.index.is_empty() {
            i
        } else {
            self.index[i]
        }
    }
}

impl From<PinSet> for Compiled {
    fn from(set: PinSet) -> Compiled {
        Compiled { set, index: Vec::new(), refused: Vec::new() }
    }
}

/// What a runtime does with a list the library refuses, in its own words:
/// what this file asks of the runtime's module (every runtime's `Model` is
/// one), so that it names no runtime.
pub trait Refusals {
    /// What it, and a runtime built on this library, do with a list the
    /// library refuses for this kind of error (`list`: the list it is in).
    fn on_refused(&self, kind: &ErrorKind, list: List) -> String;

    /// Why it would refuse the list a reload loads (`reload`, the files'
    /// list in place of a flag's) beyond its patterns: CRI-O's pause image.
    fn refuses_reload(&self, _reload: &[Entry]) -> Option<Refused> {
        None
    }

    /// What is wrong with a pattern the library refuses for `kind`, and
    /// what to write instead, in this runtime's terms, where the library's
    /// message would not fit it (None: the library's).
    fn refused_says(&self, _kind: &ErrorKind) -> Option<(String, String)> {
        None
    }
}

/// Past this many refused patterns the list is not explained, only refused.
const MAX_REFUSED: usize = 32;

/// Compiles `entries` under `flags`, leaving out each pattern CRI-O (or the
/// library's mode) refuses; Err when the list cannot be compiled even so
/// (too large as a whole, or too many refused patterns).
/// `runtime`: the runtime whose rules `flags` are, which says what it does
/// with a refused pattern.
pub fn compile_valid(
    entries: &[Entry],
    flags: Flags,
    list: List,
    runtime: &(impl Refusals + ?Sized),
) -> Result<Compiled, InputError> {
    if let Ok(set) = PinSet::compile(entries.iter().map(|e| &e.text), flags) {
        return Ok(Compiled { set, index: Vec::new(), refused: Vec::new() });
    }
    let refused = refused_patterns(entries, flags, list, runtime)?;
    let index: Vec<usize> = (0..entries.len()).filter(|i| !refused.iter().any(|r| r.index == *i)).collect();
    let set = PinSet::compile(index.iter().map(|&i| &entries[i].text), flags)
        .map_err(|e| InputError(whole_list_error(entries, &e, list, runtime)))?;
    Ok(Compiled { set, index, refused })
}

/// Compiles `entries`, or says why CRI-O cannot use them (exit status 2).
pub fn compile(
    entries: &[Entry],
    flags: Flags,
    list: List,
    runtime: &(impl Refusals + ?Sized),
) -> Result<PinSet, InputError> {
    let compiled = compile_valid(entries, flags, list, runtime)?;
    match compiled.refused.as_slice() {
        [] => Ok(compiled.set),
        [first, rest @ ..] => {
            let more =
                if rest.is_empty() { String::new() } else { format!(" ({} more refused pattern(s))", rest.len()) };
            Err(InputError(format!("{}{more}; run `crio-pin lint` for every finding", first.line())))
        }
    }
}

/// Every pattern of `entries` that makes the list refused, each with its
/// own message. (Each found pattern is replaced by a harmless one and the
/// list checked again, so that each error names its own index.)
pub fn refused_patterns(
    entries: &[Entry],
    flags: Flags,
    list: List,
    runtime: &(impl Refusals + ?Sized),
) -> Result<Vec<Refused>, InputError> {
    let mut refused: Vec<Refused> = Vec::new();
    let mut bad = vec![false; entries.len()];
    loop {
        let texts = entries.iter().zip(&bad).map(|(e, &bad)| if bad { &b"x"[..] } else { &e.text[..] });
        let Err(e) = PinSet::validate(texts, flags) else {
            return Ok(refused);
        };
        let index = match (e.pattern_index(), e.kind()) {
            (_, ErrorKind::TooLarge { .. }) | (None, _) => {
                return Err(InputError(whole_list_error(entries, &e, list, runtime)))
            }
            (Some(_), _) if refused.len() == MAX_REFUSED => {
                return Err(InputError(format!(
                    "more than {MAX_REFUSED} patterns are refused, the first: {}; run `crio-pin lint` for \
                     every finding",
                    refused[0].line()
                )))
            }
            (Some(i), _) => i,
        };
        let entry = &entries[index];
        // The runtime's own words, where the library's would offer what it
        // has not (a glob, to containerd).
        let message = match runtime.refused_says(e.kind()) {
            Some((what, instead)) => format!(
                "pattern {index} ({}): {what}; {}; {instead}",
                show::pattern(entry.key.as_deref(), &entry.display()),
                runtime.on_refused(e.kind(), list),
            ),
            None => format!("{e}; {}", runtime.on_refused(e.kind(), list)),
        };
        refused.push(Refused {
            code: code(e.kind()),
            file: entry.file().map(str::to_string),
            index,
            key: entry.key.clone(),
            line: entry.line(),
            list: list.as_str(),
            message,
            pattern: entry.display(),
            source: entry.source.clone(),
            source_kind: entry.source_kind(),
        });
        bad[index] = true;
    }
}

/// An error that is not one pattern's: the list as a whole.
fn whole_list_error(entries: &[Entry], e: &CompileError, list: List, runtime: &(impl Refusals + ?Sized)) -> String {
    let at = e.pattern_index().and_then(|i| entries.get(i)).map(|e| format!("{}: ", e.source)).unwrap_or_default();
    format!("{at}{e}; {}; run `crio-pin lint` for every finding", runtime.on_refused(e.kind(), list))
}

/// The lint code of the same mistake.
/// (A list too large as a whole is refused before this, with no code.)
fn code(kind: &ErrorKind) -> &'static str {
    let code = match kind {
        ErrorKind::LoneStar => LintCode::LoneStar,
        ErrorKind::NotUtf8 { .. } => LintCode::InvalidUtf8,
        ErrorKind::Empty => LintCode::Empty,
        ErrorKind::Whitespace { ch, .. } if is_control(*ch) => LintCode::ControlCharacter,
        ErrorKind::Whitespace { .. } => LintCode::Whitespace,
        ErrorKind::LeadingStar { .. } | ErrorKind::InnerStar { .. } => LintCode::LiteralStar,
        ErrorKind::InvalidReference { .. } => LintCode::NotAReference,
        // A kind a later library adds.
        _ => return "refused",
    };
    code.as_str()
}

/// A control character, which `lint` reports as an error (`control-character`)
/// and `lint --fix` never removes: Unicode's Cc (C0 U+0000 to U+001F, DEL,
/// C1 U+0080 to U+009F) but for tab, line feed and carriage return, the
/// whitespace an editor, a paste or a CRLF file leaves (`whitespace`, which
/// is removed). No typing slip makes a NUL, an escape or a vertical tab: the
/// file is damaged or a program wrote it wrong, and the name meant cannot
/// be told from what is left around it.
pub fn is_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// What a runtime built on this library does with a refused list.
pub const LIBRARY_REFUSES: &str = "a runtime built on the crio-pin library refuses the list with an error: it \
                                   does not start with it, and on a SIGHUP reload it keeps its previous list";

/// What a runtime built on this library does with a list it refuses.
pub fn library_refuses(list: List) -> &'static str {
    match list {
        List::Effective => LIBRARY_REFUSES,
        List::AfterReload => {
            "a runtime built on the crio-pin library refuses the reloaded list with an error and keeps \
             the list it runs"
        }
    }
}

/// What a runtime built on this library does with a list it refuses,
/// under another runtime's rules than CRI-O's (no reload there).
pub const LIBRARY_REFUSES_AT_START: &str = "a runtime built on the crio-pin library refuses the list with an error: \
                                            it does not start with it";

/// What a runtime that reads a list only at start (`name`) and a runtime
/// built on this library do with a list that has this error.
pub fn refused_at_start(kind: &ErrorKind, name: &str) -> String {
    match kind {
        ErrorKind::NotUtf8 { .. } => {
            format!("{name}'s configuration cannot hold it (its values are text); {LIBRARY_REFUSES_AT_START}")
        }
        _ => LIBRARY_REFUSES_AT_START.to_string(),
    }
}

/// The refusals of the configuration's lists: the one it gives, and the
/// one a SIGHUP reload would load instead (when a flag or the environment
/// replaced the files' list or pause image), without repeating a pattern
/// refused in both.
pub fn check_lists(
    resolved: &crate::list::Resolved,
    flags: Flags,
    runtime: &(impl Refusals + ?Sized),
) -> Result<Vec<Refused>, InputError> {
    let mut out = refused_patterns(&resolved.entries, flags, List::Effective, runtime)?;
    if let Some(reload) = &resolved.reload {
        for r in refused_patterns(reload, flags, List::AfterReload, runtime)? {
            if !out.iter().any(|o| o.source == r.source && o.pattern == r.pattern) {
                out.push(r);
            }
        }
        out.extend(runtime.refuses_reload(reload));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runtime that says nothing of its own.
    struct Plain;

    impl Refusals for Plain {
        fn on_refused(&self, _: &ErrorKind, _: List) -> String {
            "refused".to_string()
        }
    }

    fn entries(texts: &[&str]) -> Vec<Entry> {
        let file: std::rc::Rc<str> = "f".into();
        texts.iter().enumerate().map(|(i, t)| Entry::in_file(t.as_bytes().to_vec(), &file, i + 1)).collect()
    }

    #[test]
    fn every_refused_pattern_is_named_and_the_others_compiled() {
        let list = entries(&["*", "quay.io/a/*", "*", "docker.io/library/nginx:1"]);
        let compiled = compile_valid(&list, Flags::DEFAULT, List::Effective, &Plain).unwrap();
        let refused: Vec<(usize, &str, &str)> =
            compiled.refused.iter().map(|r| (r.index, r.code, r.source.as_str())).collect();
        assert_eq!(refused, [(0, "lone-star", "f:1"), (2, "lone-star", "f:3")]);
        assert!(
            compiled.refused[1].message.starts_with("pattern 2 (\"*\"): a lone '*'"),
            "{}",
            compiled.refused[1].message
        );
        assert_eq!(compiled.set.len(), 2);
        assert_eq!(compiled.set.match_index(b"docker.io/library/nginx:1").map(|i| compiled.list_index(i)), Some(3));
        assert!(compile(&list, Flags::DEFAULT, List::Effective, &Plain)
            .unwrap_err()
            .0
            .contains("(1 more refused pattern(s))"));
        // A valid list compiles whole.
        let fine = compile_valid(&entries(&["**"]), Flags::DEFAULT, List::Effective, &Plain).unwrap();
        assert!(fine.refused.is_empty() && fine.list_index(0) == 0);
    }
}
