//! CRI-O's configuration as the tool reads it: its files, its command-line
//! flags and its environment.
//!
//! Resolution follows CRI-O (pkg/config/config.go, internal/criocli):
//! the main file (`--config`, default /etc/crio/crio.conf; a missing
//! default is skipped, a missing explicit file stops CRI-O), then every file
//! under the drop-in directory (`--config-dir`, default
//! /etc/crio/crio.conf.d; missing is fine), walked recursively in lexical
//! order without an extension filter, each decoded over the configuration
//! so far. A file that sets `[crio.image] pinned_images` replaces the list.
//! `--pinned-images` / `CONTAINER_PINNED_IMAGES` replace the files' list;
//! `--pause-image` / `CONTAINER_PAUSE_IMAGE` the pause image, which CRI-O
//! appends to the list as an exact pattern when it is not empty.

use std::ffi::OsString;
use std::fs;
use std::io::ErrorKind as IoErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crio_pin::pattern::canonical;
use crio_pin::Flags;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::codes::WarningCode;
use crate::error::InputError;
use crate::images::DEFAULT_PAUSE_IMAGE;
use crate::input::{self, ReadError, Special};
use crate::list::{tables_in, Lines};
use crate::list::{Entry, IgnoredList, Override, Resolved, Warning};
use crate::sources::Sources;

/// CRI-O's defaults on Linux (pkg/config: CrioConfigPath,
/// CrioConfigDropInPath, DefaultPauseImage on CRI-O main, 1.37).
pub const DEFAULT_CONFIG: &str = "/etc/crio/crio.conf";
pub const DEFAULT_CONFIG_DIR: &str = "/etc/crio/crio.conf.d";

/// What CRI-O itself would do with an input that stops it.
pub const REFUSES: &str = "CRI-O would refuse to start with it, and a SIGHUP reload would be \
                           rejected (keeping the old list)";

/// Reads one of CRI-O's files, saying what CRI-O would do with one this
/// tool does not read.
fn read_crio_file(shown: &str, path: &Path) -> Result<Vec<u8>, InputError> {
    input::read_file(path).map_err(|e| {
        let crio = match e {
            // E.g. a link to a directory.
            ReadError::Io(_) => REFUSES.to_string(),
            ReadError::NotRegular(Special::Fifo) => "CRI-O would wait for ever at start-up (or at a SIGHUP \
                                                     reload) for something to write into it: replace it with \
                                                     a regular file"
                .to_string(),
            ReadError::NotRegular(Special::Socket) => format!("CRI-O cannot open a socket: {REFUSES}"),
            ReadError::NotRegular(_) => "CRI-O would decode everything it reads from it until it ends (from \
                                         /dev/zero or /dev/urandom it never does, and CRI-O runs out of memory): \
                                         replace it with a regular file"
                .to_string(),
            ReadError::TooLarge => format!(
                "this tool reads at most {} MiB from one file, CRI-O would decode it all: check what wrote it",
                input::MAX_BYTES >> 20
            ),
        };
        InputError(format!("{shown}: {}; {crio}", e.describe()))
    })
}

fn env(name: &str) -> Result<Option<String>, InputError> {
    match std::env::var_os(name) {
        None => Ok(None),
        Some(value) => value.into_string().map(Some).map_err(|_| InputError(format!("{name} is not valid UTF-8"))),
    }
}

/// A comma-separated list as urfave/cli splits it for CRI-O: every value
/// (each flag occurrence, or the environment variable) split at commas and
/// each item trimmed. An empty value is one empty pattern.
fn split_list<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Vec<u8>> {
    values.into_iter().flat_map(|v| v.split(',')).map(|item| item.trim().as_bytes().to_vec()).collect()
}

/// What one file sets.
struct FileSettings {
    pinned: Option<(Vec<Entry>, usize)>,
    pause: Option<(String, usize)>,
}

/// The files CRI-O reads, in its order (the main file, then the drop-ins),
/// and how many of them are main files.
fn crio_files(sources: &Sources, out: &mut Resolved) -> Result<(Vec<(String, PathBuf)>, usize), InputError> {
    let (config, config_explicit) = match (&sources.config, env("CONTAINER_CONFIG")?) {
        (Some(c), _) => (c.clone(), true),
        (None, Some(c)) => (c, true),
        (None, None) => (DEFAULT_CONFIG.to_string(), false),
    };
    let config_dir = match (&sources.config_dir, env("CONTAINER_CONFIG_DIR")?) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) => d,
        (None, None) => DEFAULT_CONFIG_DIR.to_string(),
    };

    let mut files: Vec<(String, PathBuf)> = Vec::new();
    // `--config ""` tells CRI-O not to read a main file.
    if !config.is_empty() {
        match fs::metadata(&config) {
            Err(e) if e.kind() == IoErrorKind::NotFound && !config_explicit => {
                out.warnings.push(Warning::file(
                    WarningCode::MissingConfig,
                    &config,
                    format!("{config} does not exist; CRI-O skips a missing default main file"),
                ));
            }
            Err(e) if e.kind() == IoErrorKind::NotFound => {
                return Err(InputError(format!(
                    "{config}: no such file; CRI-O refuses to start when the --config file \
                     it was given is missing"
                )));
            }
            _ => files.push((config.clone(), PathBuf::from(&config))),
        }
    }
    let main_files = files.len();
    let (dropins, dir_missing) = walk_dropins(&config_dir, sources.extra_dropin.as_ref())?;
    if dir_missing {
        out.warnings.push(Warning::file(
            WarningCode::MissingConfigDir,
            &config_dir,
            format!(
                "{config_dir}: no such directory (or a dangling link): no drop-ins read; CRI-O starts \
                 without drop-ins too, so a typo in --config-dir or CONTAINER_CONFIG_DIR goes unnoticed: \
                 check the path"
            ),
        ));
    }
    files.extend(dropins);
    Ok((files, main_files))
}

/// (image, where it was set, the file and line it was set at)
type PauseSetting = (String, String, Option<(Rc<str>, usize)>);

/// Each file decoded over the ones before: the list the last one to set it
/// gives (the lists it replaced said in `out`) and the file that set it,
/// and the pause image.
fn read_crio_files(
    files: &[(String, PathBuf)],
    main_files: usize,
    out: &mut Resolved,
    replaced: &mut Vec<Replaced>,
) -> Result<(Vec<Entry>, Option<String>, PauseSetting), InputError> {
    let mut list: Vec<Entry> = Vec::new();
    let mut list_from: Option<String> = None;
    // (image, where it was set, the file and line it was set at)
    let mut pause: PauseSetting = (DEFAULT_PAUSE_IMAGE.to_string(), "default".to_string(), None);
    for (i, (shown, read_from)) in files.iter().enumerate() {
        if let Some(kind) = leftover(shown).filter(|_| i >= main_files) {
            out.warnings.push(Warning::file(
                WarningCode::LeftoverFile,
                shown,
                format!(
                    "{shown} looks like {kind}, but CRI-O decodes every file in the drop-in \
                     directory whatever its name: its settings apply, in this order; move it \
                     out of the directory"
                ),
            ));
        }
        let bytes = read_crio_file(shown, read_from)?;
        let settings = decode(shown, &bytes, &mut out.warnings, &mut out.ignored_lists)?;
        if let Some((new, line)) = settings.pinned {
            if let Some(from) = &list_from {
                if !list.is_empty() {
                    let at = Some((shown.clone(), line));
                    replaced.push(Replaced::new(out, &list, &new, from, format!("{shown}:{line}"), at));
                }
            }
            list = new;
            list_from = Some(shown.clone());
        }
        if let Some((image, line)) = settings.pause {
            pause = (image, format!("{shown}:{line}"), Some((shown.as_str().into(), line)));
        }
        out.files.push(shown.clone());
    }
    Ok((list, list_from, pause))
}

/// `--pinned-images` or CONTAINER_PINNED_IMAGES, which replace the files'
/// list: the files' list when they do.
fn replace_by_flag(
    sources: &Sources,
    list: &mut Vec<Entry>,
    list_from: Option<&str>,
    out: &mut Resolved,
    replaced: &mut Vec<Replaced>,
) -> Result<Option<Vec<Entry>>, InputError> {
    let (flag_list, flag_source) = if !sources.pinned_images.is_empty() {
        (Some(split_list(sources.pinned_images.iter().map(String::as_str))), "flag")
    } else {
        (env("CONTAINER_PINNED_IMAGES")?.map(|v| split_list([v.as_str()])), "env")
    };
    let Some(flag_list) = flag_list else { return Ok(None) };
    let files_list = list.clone();
    {
        let new: Vec<Entry> = flag_list
            .into_iter()
            .map(|text| Entry { text, source: flag_source.to_string(), defined_at: None, at: None, key: None })
            .collect();
        let what = if flag_source == "flag" { "--pinned-images" } else { "CONTAINER_PINNED_IMAGES" };
        if let (Some(from), false) = (list_from, list.is_empty()) {
            replaced.push(Replaced::new(out, list, &new, from, what.to_string(), None));
        }
        out.warnings.push(Warning::new(
            WarningCode::FlagLostOnReload,
            format!(
                "{what} replaces the files' list, but a SIGHUP reload re-reads only the files: \
                 after a reload CRI-O pins the files' list ({} pattern(s)) instead",
                list.len()
            ),
        ));
        *list = new;
    }
    Ok(Some(files_list))
}

/// CRI-O's list: its files, then its flags and environment, then the pause
/// image.
pub fn read(sources: &Sources) -> Result<Resolved, InputError> {
    let mut out = Resolved::default();
    let (files, main_files) = crio_files(sources, &mut out)?;
    let mut lists_replaced = Vec::new();
    let (mut list, list_from, mut pause) = read_crio_files(&files, main_files, &mut out, &mut lists_replaced)?;
    // The files' list, when a flag or the environment replaced it.
    let replaced_files_list = replace_by_flag(sources, &mut list, list_from.as_deref(), &mut out, &mut lists_replaced)?;
    let replaced = replaced_files_list.is_some();
    let files_list = replaced_files_list.unwrap_or_default();
    let files_pause = pause.clone();
    if let Some(image) = &sources.pause_image {
        pause = (image.clone(), "flag".to_string(), None);
    } else if let Some(image) = env("CONTAINER_PAUSE_IMAGE")? {
        pause = (image, "env".to_string(), None);
    }
    if pause.0 != files_pause.0 {
        let what = if pause.1 == "flag" { "--pause-image" } else { "CONTAINER_PAUSE_IMAGE" };
        out.warnings.push(Warning::new(
            WarningCode::FlagLostOnReload,
            format!(
                "{what} replaces the pause image, but a SIGHUP reload re-reads only the files: \
                 after a reload CRI-O pins {:?} ({}) instead",
                files_pause.0, files_pause.1
            ),
        ));
    }
    check_pause_image(&pause.0, &pause.1)?;
    for r in lists_replaced {
        r.warn(&mut out, &pause.0);
    }
    if replaced || pause.0 != files_pause.0 {
        let files_list = if replaced { files_list } else { list.clone() };
        let mut reload: Vec<Entry> = files_list.into_iter().filter(|e| !e.text.is_empty()).collect();
        reload.push(Entry {
            text: files_pause.0.into_bytes(),
            source: "pause_image".to_string(),
            defined_at: Some(files_pause.1),
            at: files_pause.2,
            key: None,
        });
        out.reload = Some(reload);
    }
    list.push(Entry {
        text: pause.0.into_bytes(),
        source: "pause_image".to_string(),
        defined_at: Some(pause.1),
        at: pause.2,
        key: None,
    });
    out.entries = list;
    Ok(out)
}

/// CRI-O validates the pause image at start-up and stops when it is not
/// a valid reference (pkg/config ParsePauseImage: ParseNormalizedNamed of
/// go.podman.io/image/v5/docker/reference).
fn check_pause_image(image: &str, at: &str) -> Result<(), InputError> {
    crate::images::qualify(image).map_err(|e| {
        InputError(format!(
            "pause image {image:?} (set at {at}) is not a valid image reference ({e}); {REFUSES}; write a \
             reference such as {DEFAULT_PAUSE_IMAGE:?}"
        ))
    })?;
    Ok(())
}

/// Names editors and package managers leave behind, which CRI-O reads
/// like any other drop-in.
fn leftover(path: &str) -> Option<&'static str> {
    let name = Path::new(path).file_name()?.to_str()?;
    let suffixes = [
        (".rpmsave", "a package manager's saved copy"),
        (".rpmnew", "a package manager's new version"),
        (".rpmorig", "a package manager's saved copy"),
        (".dpkg-old", "a package manager's saved copy"),
        (".dpkg-dist", "a package manager's new version"),
        (".bak", "a backup copy"),
        (".orig", "a backup copy"),
        (".swp", "an editor's swap file"),
        ("~", "an editor's backup copy"),
    ];
    if let Some((_, kind)) = suffixes.iter().find(|(s, _)| name.ends_with(s)) {
        return Some(kind);
    }
    name.starts_with('.').then_some("a hidden file")
}

/// A list replaced by a later one, whose `overridden-list` warning is
/// written once the pause image is known: CRI-O appends that image to
/// whichever list wins, so a pattern naming it is not dropped.
struct Replaced {
    old: Vec<Entry>,
    new: Vec<Entry>,
    old_from: String,
    /// What replaced it: "FILE:LINE", the flag or the variable.
    by: String,
    /// Its warning's place in `Resolved::warnings`, kept among the
    /// warnings of the files read around it.
    warning: usize,
}

impl Replaced {
    /// Holds the warning's place (file and line: `at`) until `warn`.
    fn new(
        out: &mut Resolved,
        old: &[Entry],
        new: &[Entry],
        old_from: &str,
        by: String,
        at: Option<(String, usize)>,
    ) -> Replaced {
        let warning = match at {
            Some((file, line)) => Warning::at(WarningCode::OverriddenList, &file, line, String::new()),
            None => Warning::new(WarningCode::OverriddenList, String::new()),
        };
        out.warnings.push(warning);
        Replaced {
            old: old.to_vec(),
            new: new.to_vec(),
            old_from: old_from.to_string(),
            by,
            warning: out.warnings.len() - 1,
        }
    }

    /// The warning, and the patterns it dropped: those neither in the new
    /// list nor the pause image CRI-O appends.
    fn warn(self, out: &mut Resolved, pause_image: &str) {
        let key = |text: &[u8]| canonical(text, Flags::DEFAULT);
        let kept: std::collections::HashSet<Vec<u8>> = self.new.iter().map(|e| key(&e.text)).collect();
        let pause = key(pause_image.as_bytes());
        let (appended, gone): (Vec<&Entry>, Vec<&Entry>) =
            self.old.iter().filter(|e| !kept.contains(&key(&e.text))).partition(|e| key(&e.text) == pause);
        let example = gone.first().map(|e| format!(", e.g. {:?}", e.display())).unwrap_or_default();
        let why = if self.new.iter().all(|e| e.source == "flag" || e.source == "env") {
            ""
        } else {
            " (drop-ins replace the list, they do not merge)"
        };
        let old = self.old.len();
        let mut effect = if gone.is_empty() && appended.is_empty() {
            format!("it repeats all {old} of its pattern(s)")
        } else if gone.is_empty() {
            format!("none of its {old} pattern(s) is dropped")
        } else {
            format!(
                "{} of its {old} pattern(s) are dropped{example}; to keep them, repeat them in the later list",
                gone.len()
            )
        };
        if let Some(e) = appended.first() {
            effect.push_str(&format!(" ({:?} stays pinned: CRI-O appends it as the pause image)", e.display()));
        }
        out.warnings[self.warning].message =
            format!("{} replaces the pinned_images list set in {}{why}: {effect}", self.by, self.old_from);
        if gone.is_empty() {
            out.warnings[self.warning].severity = "info";
        }
        out.overrides.push(Override {
            warning: self.warning,
            by: self.by,
            replaced: self.old_from,
            dropped: gone.into_iter().cloned().collect(),
        });
    }
}

/// The drop-in files as Go's filepath.Walk visits them: directory entries
/// in lexical byte order, directories entered where they sort, symbolic
/// links not followed as directories. Returns (shown path, path to read),
/// the path as the OS gave it, and whether the directory is missing.
type Dropins = (Vec<(String, PathBuf)>, bool);

fn walk_dropins(root: &str, extra: Option<&(String, String)>) -> Result<Dropins, InputError> {
    let mut found: Vec<(Vec<OsString>, PathBuf)> = Vec::new();
    // CRI-O skips a directory that os.Stat, which follows links, cannot
    // find (a dangling link too), then walks it without following links.
    let missing = matches!(fs::metadata(root), Err(e) if e.kind() == IoErrorKind::NotFound);
    if !missing {
        match fs::symlink_metadata(root) {
            Err(e) => return Err(InputError(format!("{root}: {e}; {REFUSES}"))),
            Ok(meta) if meta.is_dir() => walk(Path::new(root), &mut Vec::new(), &mut found)?,
            // A file (or a link) given as the directory is decoded as one drop-in.
            Ok(_) => found.push((Vec::new(), PathBuf::from(root))),
        }
    }
    let mut files: Vec<(Vec<OsString>, String, PathBuf)> =
        found.into_iter().map(|(key, path)| (key, input::path_text(&path), path)).collect();
    if let Some((name, read_from)) = extra {
        let key: Vec<OsString> = Path::new(name).components().map(|c| c.as_os_str().to_os_string()).collect();
        let shown = input::path_text(&Path::new(root).join(name));
        files.retain(|(k, _, _)| *k != key);
        files.push((key, shown, PathBuf::from(read_from)));
        files.sort_by(|a, b| compare_keys(&a.0, &b.0));
    }
    Ok((files.into_iter().map(|(_, shown, read_from)| (shown, read_from)).collect(), missing))
}

fn compare_keys(a: &[OsString], b: &[OsString]) -> std::cmp::Ordering {
    let bytes = |k: &[OsString]| k.iter().map(|c| c.as_bytes().to_vec()).collect::<Vec<_>>();
    bytes(a).cmp(&bytes(b))
}

fn walk(dir: &Path, key: &mut Vec<OsString>, found: &mut Vec<(Vec<OsString>, PathBuf)>) -> Result<(), InputError> {
    let shown = input::path_text(dir);
    let mut entries: Vec<_> = fs::read_dir(dir)
        .and_then(|rd| rd.collect::<Result<Vec<_>, _>>())
        .map_err(|e| InputError(format!("{shown}: cannot list: {e}; {REFUSES}")))?;
    entries.sort_by_key(|e| e.file_name().as_bytes().to_vec());
    for entry in entries {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path)
            .map_err(|e| InputError(format!("{}: {e}; {REFUSES}", input::path_text(&path))))?;
        key.push(entry.file_name());
        if meta.is_dir() {
            walk(&path, key, found)?;
        } else {
            found.push((key.clone(), path));
        }
        key.pop();
    }
    Ok(())
}

/// Go's strings.EqualFold, which CRI-O's TOML decoder uses to match keys
/// with its fields when no key matches exactly.
fn key_is(key: &str, field: &str) -> bool {
    canonical(key.as_bytes(), Flags::DEFAULT) == canonical(field.as_bytes(), Flags::DEFAULT)
}

/// A key that looks meant for one of the two settings.
fn looks_like(key: &str) -> Option<&'static str> {
    let squashed: String = key.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    match squashed.as_str() {
        "pinnedimages" | "pinnedimage" | "pinimages" => Some("pinned_images"),
        "pauseimage" | "pauseimages" => Some("pause_image"),
        _ => None,
    }
}

type Table<'a> = DeTable<'a>;

/// "a string", "an integer", … for a TOML value.
fn a(value: &DeValue<'_>) -> String {
    let t = value.type_str();
    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {t}")
}

/// The toml crate's limit (toml 0.9, without its `unbounded` feature, which
/// would let deep input overflow the stack): arrays and inline tables
/// nested, or parts of a dotted key. BurntSushi/toml has none.
const TOML_DEPTH: usize = 80;

/// The file's text as BurntSushi/toml reads it: one byte-order mark is
/// dropped, UTF-16's too, and the rest must be UTF-8.
fn text_of<'b>(file: &str, bytes: &'b [u8]) -> Result<&'b str, InputError> {
    let bytes = [&b"\xff\xfe"[..], b"\xfe\xff", b"\xef\xbb\xbf"]
        .iter()
        .find_map(|bom| bytes.strip_prefix(*bom))
        .unwrap_or(bytes);
    if bytes.iter().take(6).any(|&b| b == 0) {
        return Err(InputError(format!(
            "{file}: contains NUL bytes, probably UTF-16; TOML files must be UTF-8 (convert it: iconv -f \
             UTF-16 -t UTF-8); {REFUSES}"
        )));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        InputError(format!(
            "{file}:{line}: not valid UTF-8 (bad byte at offset {}); TOML files must be UTF-8, \
             {REFUSES}",
            e.valid_up_to()
        ))
    })
}

fn decode(
    file: &str,
    bytes: &[u8],
    warnings: &mut Vec<Warning>,
    ignored: &mut Vec<IgnoredList>,
) -> Result<FileSettings, InputError> {
    let text = text_of(file, bytes)?;
    let lines = Lines::new(text);
    let doc = DeTable::parse(text).map_err(|e| {
        let (line, col) = lines.line_col(e.span().map_or(0, |s| s.start));
        if matches!(e.message().trim_end(), "recursion limit" | "cannot recurse further; max recursion depth met") {
            // A pin must not be lost silently: stop rather than skip the file.
            return InputError(format!(
                "{file}:{line}:{col}: nested deeper than {TOML_DEPTH} levels (arrays, inline tables or the \
                 parts of a dotted key): this tool's TOML reader cannot read it, CRI-O reads it and applies \
                 the file; the pins cannot be shown without it: nest less deeply"
            ));
        }
        InputError(format!("{file}:{line}:{col}: malformed TOML: {}; {REFUSES}", e.message().trim_end()))
    })?;
    let mut settings = FileSettings { pinned: None, pause: None };

    // The one place CRI-O reads them: [crio.image] (keys matched as Go does).
    let mut decoded: Vec<std::ops::Range<usize>> = Vec::new();
    for crio in tables_named(doc.get_ref(), "crio", file, &lines, "")? {
        for image in tables_named(crio, "image", file, &lines, "crio.")? {
            for (field, setting) in [("pinned_images", 0), ("pause_image", 1)] {
                let hits: Vec<_> = image.iter().filter(|(k, _)| key_is(k.get_ref(), field)).collect();
                if hits.len() > 1 {
                    let line = lines.line(hits[1].0.span().start);
                    warnings.push(Warning::at(
                        WarningCode::AmbiguousKey,
                        file,
                        line,
                        format!(
                            "{file}:{line}: [crio.image] has {} keys that CRI-O reads as {field} \
                             (keys match case-insensitively); which one wins is random in \
                             CRI-O: keep one. This tool uses the first.",
                            hits.len()
                        ),
                    ));
                }
                let Some((key, value)) = hits.first() else { continue };
                decoded.push(key.span());
                if setting == 0 {
                    settings.pinned = Some((pinned_list(file, value, &lines)?, lines.line(key.span().start)));
                } else {
                    let DeValue::String(s) = value.get_ref() else {
                        let (line, col) = lines.line_col(value.span().start);
                        return Err(InputError(format!(
                            "{file}:{line}:{col}: pause_image is {}, not a string; {REFUSES}",
                            a(value.get_ref())
                        )));
                    };
                    settings.pause = Some((s.to_string(), lines.line(key.span().start)));
                }
            }
        }
    }
    ignored_keys(doc.get_ref(), &mut Vec::new(), &decoded, file, &lines, (warnings, ignored));
    Ok(settings)
}

/// The sub-tables of `table` whose key CRI-O matches with `name`. A value
/// of another type there stops CRI-O's decoder.
fn tables_named<'t, 'a>(
    table: &'t Table<'a>,
    name: &str,
    file: &str,
    lines: &Lines<'_>,
    prefix: &str,
) -> Result<Vec<&'t Table<'a>>, InputError> {
    let mut out = Vec::new();
    for (key, value) in table.iter().filter(|(k, _)| key_is(k.get_ref(), name)) {
        match value.get_ref() {
            DeValue::Table(t) => out.push(t),
            other => {
                let (line, col) = lines.line_col(key.span().start);
                let what = if let DeValue::Array(_) = other { "an array (of tables?)".to_string() } else { a(other) };
                return Err(InputError(format!(
                    "{file}:{line}:{col}: [{prefix}{}] is {what}, not a table; {REFUSES}",
                    key.get_ref()
                )));
            }
        }
    }
    Ok(out)
}

fn pinned_list(file: &str, value: &Spanned<DeValue<'_>>, lines: &Lines<'_>) -> Result<Vec<Entry>, InputError> {
    let DeValue::Array(items) = value.get_ref() else {
        let (line, col) = lines.line_col(value.span().start);
        return Err(InputError(format!(
            "{file}:{line}:{col}: pinned_images is {}, not an array of strings (write \
             pinned_images = [\"...\"]); {REFUSES}",
            a(value.get_ref())
        )));
    };
    let shared: Rc<str> = file.into();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item.get_ref() {
            DeValue::String(s) => Ok(Entry::in_file(s.as_bytes().to_vec(), &shared, lines.line(item.span().start))),
            other => {
                let (line, col) = lines.line_col(item.span().start);
                Err(InputError(format!(
                    "{file}:{line}:{col}: pinned_images[{i}] is {}, not a string; {REFUSES}",
                    a(other)
                )))
            }
        })
        .collect()
}

/// Every key anywhere in the file that looks meant for pinned_images or
/// pause_image but is not where CRI-O reads it: CRI-O's decoder drops
/// unknown keys without a word. A list of strings under such a key is
/// kept with its warning, for `lint --fix` to rename.
fn ignored_keys(
    table: &Table<'_>,
    path: &mut Vec<String>,
    decoded: &[std::ops::Range<usize>],
    file: &str,
    lines: &Lines<'_>,
    (warnings, ignored): (&mut Vec<Warning>, &mut Vec<IgnoredList>),
) {
    for (key, value) in table.iter() {
        if let Some(meant) = looks_like(key.get_ref()) {
            if !decoded.contains(&key.span()) {
                let line = lines.line(key.span().start);
                let in_image = path.len() == 2 && key_is(&path[0], "crio") && key_is(&path[1], "image");
                let place = if path.is_empty() {
                    "at the top level (no [crio.image] header above it)".to_string()
                } else {
                    format!("in [{}]", path.join("."))
                };
                let fix = if in_image {
                    format!("CRI-O knows no key {:?} (keys match ignoring case only); write {meant}", key.get_ref())
                } else {
                    format!("it belongs in the [crio.image] table, as {meant}")
                };
                // Followed literally, the fix makes this file's list replace
                // every earlier one, a drop-in's list of thousands included.
                let fix = if meant == "pinned_images" {
                    format!(
                        "{fix}, whose list then replaces the earlier files' (to add to the list in force, add \
                         there: crio-pin config)"
                    )
                } else {
                    fix
                };
                warnings.push(Warning::at(
                    WarningCode::IgnoredKey,
                    file,
                    line,
                    format!("{file}:{line}: {:?} {place} is ignored by CRI-O without a word: {fix}", key.get_ref()),
                ));
                if let (true, Ok(entries)) = (meant == "pinned_images", pinned_list(file, value, lines)) {
                    ignored.push(IgnoredList {
                        warning: warnings.len() - 1,
                        key: key.get_ref().to_string(),
                        meant,
                        file: file.to_string(),
                        line,
                        entries,
                    });
                }
            }
        }
        for t in tables_in(value.get_ref()) {
            path.push(key.get_ref().to_string());
            ignored_keys(t, path, decoded, file, lines, (&mut *warnings, &mut *ignored));
            path.pop();
        }
    }
}
