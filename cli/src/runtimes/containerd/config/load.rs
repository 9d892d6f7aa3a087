//! Loading the files as containerd 2.x does (LoadConfigWithPlugins):
//! the main file, then each `imports` entry cleaned, joined to its file's
//! directory and globbed as Go's path/filepath does, each file read once;
//! per file its `version`, its `imports` and its plugin tables, and the
//! keys that look meant for `pinned_images` but that containerd ignores.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fs;
use std::io::ErrorKind as IoErrorKind;
use std::rc::Rc;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::migrate::merge;
use super::tree::{convert, go_lower, header, warning_at, At, Table, Value};
use super::{CONFIG_VERSION, CONFIG_VERSION_2_2, CRI_PLUGIN, IMAGES_PLUGIN, REFUSES};
use crate::codes::WarningCode;
use crate::error::InputError;
use crate::input::{ReadError, Special};
use crate::list::{tables_in, Lines, Warning};
use crate::{go_filepath, input};

/// One file as containerd decodes it: what matters for the pins.
pub(super) struct FileDoc {
    pub(super) shown: Rc<str>,
    pub(super) path: Vec<u8>,
    pub(super) version: i64,
    pub(super) imports: Vec<(String, At)>,
    pub(super) plugins: Table,
}

/// A file to read, and the `imports` entry that named it.
pub(super) struct Pending {
    pub(super) path: Vec<u8>,
    pub(super) named_at: Option<At>,
}

/// The files in containerd's order (LoadConfigWithPlugins).
pub(super) fn load_all(config: &str, explicit: bool, warnings: &mut Vec<Warning>) -> Result<Vec<FileDoc>, InputError> {
    let mut pending = VecDeque::from([Pending { path: config.as_bytes().to_vec(), named_at: None }]);
    let mut loaded: HashSet<Vec<u8>> = HashSet::new();
    let mut docs = Vec::new();
    while let Some(next) = pending.pop_front() {
        if loaded.contains(&next.path) {
            continue;
        }
        let shown: Rc<str> = input::path_text(go_filepath::os_path(&next.path)).into();
        let bytes = read_containerd_file(&shown, &next, explicit)?;
        let doc = parse_file(&shown, next.path.clone(), &bytes, warnings)?;
        pending.extend(resolve_imports(&next.path, &doc.imports)?);
        loaded.insert(next.path);
        docs.push(doc);
    }
    Ok(docs)
}

pub(super) fn read_containerd_file(shown: &str, file: &Pending, explicit: bool) -> Result<Vec<u8>, InputError> {
    input::read_file(go_filepath::os_path(&file.path)).map_err(|e| {
        let named = match &file.named_at {
            Some(at) => format!(" (named by the imports at {})", at.show()),
            None => String::new(),
        };
        let why = match e {
            ReadError::Io(ref io) if io.kind() == IoErrorKind::NotFound => {
                return InputError(match &file.named_at {
                    Some(at) => format!(
                        "{shown}: no such file, named by the imports at {}; containerd refuses to start when an \
                         import without '*' is missing: fix the path, create the file, or write a pattern with \
                         '*', which may match nothing",
                        at.show()
                    ),
                    None if explicit => format!(
                        "{shown}: no such file; containerd refuses to start when the --config file it was \
                         given is missing"
                    ),
                    None => format!("{shown}: no such file"),
                });
            }
            ReadError::Io(_) => REFUSES.to_string(),
            ReadError::NotRegular(Special::Fifo) => "containerd would wait for ever at start-up for something \
                                                     to write into it: replace it with a regular file"
                .to_string(),
            ReadError::NotRegular(Special::Socket) => format!("containerd cannot open a socket: {REFUSES}"),
            ReadError::NotRegular(_) => "containerd would read it until it ends (from /dev/zero or /dev/urandom \
                                         it never does, and containerd runs out of memory): replace it with a \
                                         regular file"
                .to_string(),
            ReadError::TooLarge => format!(
                "this tool reads at most {} MiB from one file, containerd would decode it all: check what wrote it",
                input::MAX_BYTES >> 20
            ),
        };
        InputError(format!("{shown}{named}: {}; {why}", e.describe()))
    })
}

/// The toml crate's nesting limit (see config.rs): past it the pins
/// cannot be shown.
pub(super) const TOML_DEPTH: usize = 80;

pub(super) fn parse_file(
    shown: &Rc<str>,
    path: Vec<u8>,
    bytes: &[u8],
    warnings: &mut Vec<Warning>,
) -> Result<FileDoc, InputError> {
    let text = file_text(shown, bytes)?;
    let lines = Lines::new(text);
    let doc = DeTable::parse(text).map_err(|e| {
        let at = lines.at(shown, e.span().map_or(0, |s| s.start));
        if matches!(e.message().trim_end(), "recursion limit" | "cannot recurse further; max recursion depth met") {
            return InputError(format!(
                "{}: nested deeper than {TOML_DEPTH} levels (arrays, inline tables or the parts of a dotted \
                 key): this tool's TOML reader cannot read it, containerd may; the pins cannot be shown \
                 without it: nest less deeply",
                at.show_col()
            ));
        }
        InputError(format!("{}: malformed TOML: {}; {REFUSES}", at.show_col(), e.message().trim_end()))
    })?;

    let hits = config_fields(doc.get_ref(), shown, &lines, warnings);
    let version = decode_version(&hits, shown, &lines)?;
    let imports = decode_imports(&hits, shown, &lines)?;

    let plugins = decode_plugins(&hits, shown, &lines)?;

    ignored_keys(doc.get_ref(), &mut Vec::new(), version, shown, &lines, warnings);
    Ok(FileDoc { shown: Rc::clone(shown), path, version, imports, plugins })
}

/// The text of a file, or why containerd cannot read it: a byte-order
/// mark, or bytes that are not UTF-8.
fn file_text<'b>(shown: &Rc<str>, bytes: &'b [u8]) -> Result<&'b str, InputError> {
    if [&b"\xef\xbb\xbf"[..], b"\xff\xfe", b"\xfe\xff"].iter().any(|bom| bytes.starts_with(bom)) {
        return Err(InputError(format!(
            "{shown}:1:1: starts with a byte-order mark, which containerd's TOML decoder (go-toml v2) takes for \
             the start of a key (\"invalid character at start of key\"); {REFUSES}: save it as UTF-8 without \
             a byte-order mark"
        )));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        InputError(format!(
            "{shown}:{line}: not valid UTF-8 (bad byte at offset {}); TOML files must be UTF-8, {REFUSES}",
            e.valid_up_to()
        ))
    })
}

/// The top-level keys of `doc` by the field of Config they decode into,
/// with a warning for a field written by more than one key.
fn config_fields<'d, 'i>(
    doc: &'d DeTable<'i>,
    shown: &Rc<str>,
    lines: &Lines<'_>,
    warnings: &mut Vec<Warning>,
) -> Hits<'d, 'i> {
    // The three fields of containerd's Config read here, matched as
    // go-toml matches struct fields, applied in the order written.
    let mut hits: Hits<'d, 'i> = BTreeMap::new();
    for (key, value) in doc.iter() {
        let field = match go_lower(key.get_ref()).as_str() {
            "version" => "version",
            "imports" => "imports",
            "plugins" => "plugins",
            _ => continue,
        };
        hits.entry(field).or_default().push((key, value));
    }
    for (field, list) in &mut hits {
        list.sort_by_key(|(k, _)| k.span().start);
        if list.len() > 1 {
            let at = lines.at(shown, list[1].0.span().start);
            let how = if *field == "plugins" { "merges them" } else { "takes the last one written" };
            warnings.push(warning_at(
                WarningCode::AmbiguousKey,
                &at,
                format!(
                    "{}: {} top-level keys that containerd reads as {field} (keys match in lower case): \
                     containerd {how}; keep one",
                    at.show(),
                    list.len()
                ),
            ));
        }
    }
    hits
}

/// The `plugins` tables of a file, merged in the order written.
fn decode_plugins(hits: &Hits<'_, '_>, shown: &Rc<str>, lines: &Lines<'_>) -> Result<Table, InputError> {
    let mut plugins = Table::new();
    for &(key, value) in hits.get("plugins").into_iter().flatten() {
        let at = lines.at(shown, key.span().start);
        let node = convert(value, at.clone(), lines);
        let Value::Table(table) = node.value else {
            return Err(InputError(format!(
                "{}: {} is {}, not a table; {REFUSES}: write [plugins.\"{IMAGES_PLUGIN}\".pinned_images] and \
                 its keys",
                at.show_col(),
                key.get_ref(),
                node.value.what()
            )));
        };
        merge(&mut plugins, table);
    }
    Ok(plugins)
}

/// A top-level key and its value.
pub(super) type Hit<'d, 'i> = (&'d Spanned<std::borrow::Cow<'i, str>>, &'d Spanned<DeValue<'i>>);

/// The top-level keys of one file, by the field of Config they decode into.
pub(super) type Hits<'d, 'i> = BTreeMap<&'static str, Vec<Hit<'d, 'i>>>;

/// The file's `version` (0 without one), as containerd takes or refuses it.
pub(super) fn decode_version(hits: &Hits<'_, '_>, shown: &Rc<str>, lines: &Lines<'_>) -> Result<i64, InputError> {
    let mut version = 0;
    for &(key, value) in hits.get("version").into_iter().flatten() {
        let at = lines.at(shown, value.span().start);
        let DeValue::Integer(i) = value.get_ref() else {
            return Err(InputError(format!(
                "{}: {} is {}, not an integer; {REFUSES}: write version = 3 (or version = 2 with the \
                 settings of containerd 1.x)",
                at.show_col(),
                key.get_ref(),
                Value::Other(value.get_ref().type_str()).what()
            )));
        };
        version = i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| {
            InputError(format!("{}: version {i} is out of range; {REFUSES}: write version = 3", at.show_col()))
        })?;
        if version < 0 {
            return Err(InputError(format!(
                "{}: version {version} is negative: containerd panics migrating it (index out of range), \
                 {REFUSES}: write version = 3",
                at.show_col()
            )));
        }
        if version > CONFIG_VERSION {
            return Err(InputError(format!(
                "{}: version {version}: containerd knows versions up to {CONFIG_VERSION} (2.0 to 2.2: up to \
                 {CONFIG_VERSION_2_2}); {REFUSES}: write version = 3",
                at.show_col()
            )));
        }
    }
    Ok(version)
}

/// The file's `imports`, each with where it was written.
pub(super) fn decode_imports(
    hits: &Hits<'_, '_>,
    shown: &Rc<str>,
    lines: &Lines<'_>,
) -> Result<Vec<(String, At)>, InputError> {
    let mut imports = Vec::new();
    for &(key, value) in hits.get("imports").into_iter().flatten() {
        let DeValue::Array(items) = value.get_ref() else {
            let at = lines.at(shown, value.span().start);
            return Err(InputError(format!(
                "{}: {} is {}, not an array of strings; {REFUSES}: write imports = [\"/etc/containerd/conf.d/*.toml\"]",
                at.show_col(),
                key.get_ref(),
                Value::Other(value.get_ref().type_str()).what()
            )));
        };
        // A later `imports` replaces an earlier one (go-toml empties the slice).
        imports.clear();
        for (i, item) in items.iter().enumerate() {
            let at = lines.at(shown, item.span().start);
            let DeValue::String(s) = item.get_ref() else {
                return Err(InputError(format!(
                    "{}: imports[{i}] is {}, not a string; {REFUSES}: write a path or a pattern with '*' in quotes",
                    at.show_col(),
                    Value::Other(item.get_ref().type_str()).what()
                )));
            };
            imports.push((s.to_string(), at));
        }
    }
    Ok(imports)
}

/// A key that looks meant for one of the two settings.
pub(super) fn looks_like(key: &str) -> Option<&'static str> {
    let squashed: String = key.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    match squashed.as_str() {
        "pinnedimages" | "pinnedimage" | "pinimages" => Some("pinned_images"),
        "sandboximage" | "sandboximages" | "pauseimage" => Some("sandbox_image"),
        _ => None,
    }
}

/// Every key of a file that looks meant for `pinned_images` or
/// `sandbox_image` but that containerd does not read where it is.
pub(super) fn ignored_keys(
    table: &DeTable<'_>,
    path: &mut Vec<String>,
    version: i64,
    file: &Rc<str>,
    lines: &Lines<'_>,
    warnings: &mut Vec<Warning>,
) {
    let in_plugins = path.first().is_some_and(|p| go_lower(p) == "plugins");
    let plugin_name = if in_plugins && path.len() == 2 { Some(path[1].clone()) } else { None };
    let plugin = plugin_name.as_deref();
    for (key, value) in table.iter() {
        let k = key.get_ref();
        let pinned_table = plugin == Some(IMAGES_PLUGIN) && go_lower(k) == "pinned_images";
        if let Some(meant) = looks_like(k) {
            let read = if meant == "pinned_images" {
                pinned_table
            } else {
                k == "sandbox_image"
                    && match plugin {
                        Some(CRI_PLUGIN) => version < CONFIG_VERSION,
                        Some("cri") => version <= 1,
                        _ => false,
                    }
            };
            if !read {
                let at = lines.at(file, key.span().start);
                let pinned_header = format!("[plugins.\"{IMAGES_PLUGIN}\".pinned_images]");
                let fix = match (meant, plugin) {
                    ("pinned_images", Some(IMAGES_PLUGIN)) => format!(
                        "containerd knows no key {k:?} there (keys match exactly or in lower case; it logs \
                         \"Ignoring unknown key\" and goes on): write pinned_images"
                    ),
                    ("pinned_images", _) => format!(
                        "containerd reads pinned_images only in [plugins.\"{IMAGES_PLUGIN}\"]: move it to \
                         {pinned_header}"
                    ),
                    (_, Some(IMAGES_PLUGIN)) => format!(
                        "the image plugin has no such key: containerd 2.x runs and pins the sandbox image named \
                         by the key sandbox of its pinned_images: write sandbox = \"...\" in {pinned_header}"
                    ),
                    (_, Some(CRI_PLUGIN)) if k == "sandbox_image" => format!(
                        "containerd migrates sandbox_image only from files of version 3 or lower, this one has \
                         version {version}: write sandbox = \"...\" in {pinned_header}"
                    ),
                    (_, Some("cri")) if k == "sandbox_image" => format!(
                        "containerd expands the plugin name cri to {CRI_PLUGIN} only in files without a version \
                         (version 1), this one has version {version}: write sandbox = \"...\" in {pinned_header}"
                    ),
                    _ => format!(
                        "containerd reads the sandbox image as the key sandbox of {pinned_header} (and from \
                         sandbox_image, spelled so, of [plugins.\"{CRI_PLUGIN}\"] in files of version 3 or \
                         lower): write sandbox = \"...\" there"
                    ),
                };
                let place = if path.is_empty() {
                    "at the top level".to_string()
                } else {
                    format!("in {}", header(&path.iter().map(String::as_str).collect::<Vec<_>>()))
                };
                warnings.push(warning_at(
                    WarningCode::IgnoredKey,
                    &at,
                    format!("{}: {k:?} {place} is ignored by containerd: {fix}", at.show()),
                ));
            }
        }
        // The keys of pinned_images are names of the user's choosing.
        if pinned_table {
            continue;
        }
        for t in tables_in(value.get_ref()) {
            path.push(k.to_string());
            ignored_keys(t, path, version, file, lines, warnings);
            path.pop();
        }
    }
}

/// resolveImports: the files an `imports` list names, from the file at
/// `parent` (as containerd holds its path).
pub(super) fn resolve_imports(parent: &[u8], imports: &[(String, At)]) -> Result<Vec<Pending>, InputError> {
    let mut out = Vec::new();
    for (entry, at) in imports {
        let mut path = go_filepath::clean(entry.as_bytes());
        if !path.starts_with(b"/") {
            path = go_filepath::join(&go_filepath::dir(parent), &path);
        }
        if path.contains(&b'*') {
            let matches = go_filepath::glob(&path).map_err(|go_filepath::BadPattern| {
                InputError(format!(
                    "{}: the imports pattern {entry:?} is malformed (Go's filepath.Glob: \"syntax error in \
                     pattern\": an unclosed '[', a '\\' at the end, or an empty class); {REFUSES}: \
                     fix the pattern",
                    at.show_col()
                ))
            })?;
            out.extend(matches.into_iter().map(|path| Pending { path, named_at: Some(at.clone()) }));
        } else {
            out.push(Pending { path, named_at: Some(at.clone()) });
        }
    }
    Ok(out)
}

/// The files that match the drop-in pattern but that no `imports` named.
pub(super) fn unimported_drop_ins(pattern: &str, docs: &[FileDoc], main: &str, warnings: &mut Vec<Warning>) {
    let read: HashSet<&[u8]> = docs.iter().map(|d| d.path.as_slice()).collect();
    let unread: Vec<String> = go_filepath::glob(pattern.as_bytes())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !read.contains(p.as_slice()) && fs::metadata(go_filepath::os_path(p)).is_ok_and(|m| m.is_file()))
        .map(|p| input::path_text(go_filepath::os_path(&p)))
        .collect();
    let Some(first) = unread.first() else { return };
    warnings.push(Warning {
        code: WarningCode::UnimportedDropIn,
        severity: "warning",
        file: Some(first.clone()),
        line: None,
        message: format!(
            "{} file(s) match {pattern} (e.g. {first}), but containerd never reads them: it has no drop-in \
             directory of its own and reads only the files an imports entry names; add imports = \
             [\"{pattern}\"] to {main} (as `containerd config default` writes since 2.2)",
            unread.len()
        ),
    });
}
