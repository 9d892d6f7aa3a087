//! What containerd pins: the `pinned_images` of its CRI image plugin, read
//! from its configuration files as containerd 2.x reads them (how it reads
//! them, and where in its sources: docs/runtimes.md, "containerd's
//! configuration files").

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fs;
use std::io::ErrorKind as IoErrorKind;
use std::rc::Rc;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::codes::WarningCode;
use crate::error::InputError;
use crate::go_filepath;
use crate::input::{self, ReadError, Special};
use crate::list::{tables_in, Entry, Lines, Resolved, Warning};

/// containerd's defaults on Linux (defaults/defaults_unix.go,
/// internal/cri/config/config.go, 2.3).
pub const DEFAULT_CONFIG: &str = "/etc/containerd/config.toml";
pub const DEFAULT_SANDBOX_IMAGE: &str = "registry.k8s.io/pause:3.10.2";
/// What `containerd config default` imports since 2.2, and where drop-ins
/// that nothing imports are looked for.
pub const DROP_IN_PATTERN: &str = "/etc/containerd/conf.d/*.toml";
/// The plugin whose `pinned_images` containerd pins, and containerd 1.x's
/// CRI plugin, whose `sandbox_image` older files set.
pub const IMAGES_PLUGIN: &str = "io.containerd.cri.v1.images";
pub const CRI_PLUGIN: &str = "io.containerd.grpc.v1.cri";

/// The highest version containerd 2.3 knows, and 2.0 to 2.2.
const CONFIG_VERSION: i64 = 4;
const CONFIG_VERSION_2_2: i64 = 3;

/// What containerd itself would do with an input that stops it.
pub const REFUSES: &str = "containerd would refuse to start with it";

/// The settings the CRI plugin's own migration keeps (plugins/cri/cri.go).
const STREAMING_KEYS: [&str; 6] = [
    "disable_tcp_service",
    "stream_server_address",
    "stream_server_port",
    "stream_idle_timeout",
    "enable_tls_streaming",
    "x509_key_pair_streaming",
];

/// One key of the effective `pinned_images`.
#[derive(Clone, Debug)]
pub struct ContainerdEntry {
    pub key: String,
    pub reference: Vec<u8>,
    /// Where its value was written (for a `sandbox_image` a version 1 to 3
    /// file migrated, that line); none for the built-in default.
    pub file: Option<Rc<str>>,
    pub line: Option<usize>,
    /// The built-in sandbox image, which no file set.
    pub default: bool,
}

#[derive(Debug, Default)]
pub struct ContainerdConfig {
    /// Sorted by key: containerd holds them in a Go map, which has no order.
    pub entries: Vec<ContainerdEntry>,
    /// Files read, in containerd's order.
    pub files: Vec<String>,
    pub warnings: Vec<Warning>,
}

pub fn resolve(config_path: Option<&str>) -> Result<ContainerdConfig, InputError> {
    resolve_in(config_path, DEFAULT_CONFIG, DROP_IN_PATTERN)
}

/// containerd's `pinned_images`, one entry per key (in the order of the
/// keys: a Go map has none), each from the line its value was written on,
/// or containerd's built-in sandbox image.
pub fn read(config: Option<&str>) -> Result<Resolved, InputError> {
    let read = resolve(config)?;
    let entries = read
        .entries
        .into_iter()
        .map(|e| {
            let at = e.file.zip(e.line).filter(|_| !e.default);
            let source = at.as_ref().map_or_else(|| "default".to_string(), |(file, line)| format!("{file}:{line}"));
            Entry { text: e.reference, source, defined_at: None, at, key: Some(e.key) }
        })
        .collect();
    Ok(Resolved { entries, warnings: read.warnings, files: read.files, ..Resolved::default() })
}

/// `resolve`, with the default file and the drop-in pattern given (tests
/// use their own).
fn resolve_in(config_path: Option<&str>, default_config: &str, drop_ins: &str) -> Result<ContainerdConfig, InputError> {
    let mut warnings = Vec::new();
    let (path, explicit) = match config_path {
        Some(p) => (p, true),
        None => (default_config, false),
    };
    let docs = match fs::metadata(path) {
        Err(e) if e.kind() == IoErrorKind::NotFound && !explicit => {
            warnings.push(Warning {
                code: WarningCode::MissingConfig,
                file: Some(path.to_string()),
                line: None,
                message: format!(
                    "{path} does not exist: containerd starts on its built-in defaults, which pin only the \
                     sandbox image {DEFAULT_SANDBOX_IMAGE}, and reads no other file"
                ),
            });
            Vec::new()
        }
        _ => load_all(path, explicit, &mut warnings)?,
    };
    if !explicit {
        unimported_drop_ins(drop_ins, &docs, default_config, &mut warnings);
    }

    let plugins = model_2_3(&docs, &mut warnings)?;
    let pins = decode_pins(&plugins, Some(&mut warnings)).map_err(|stop| stop.error())?;
    compare_2_2(&docs, &pins, &mut warnings);

    if let Some(Pin { value, at: Some(at) }) = pins.get("sandbox") {
        if value.is_empty() {
            warnings.push(warning_at(
                WarningCode::UnpinnedSandbox,
                at,
                format!(
                    "{}: pinned_images.sandbox is empty: pods then run the default pause image \
                     {DEFAULT_SANDBOX_IMAGE}, which is not pinned unless another key names it; write the \
                     image pods should run (or remove the key to pin the default)",
                    at.show()
                ),
            ));
        }
    }
    let entries = pins
        .into_iter()
        .map(|(key, pin)| ContainerdEntry {
            key,
            reference: pin.value.into_bytes(),
            default: pin.at.is_none(),
            file: pin.at.as_ref().map(|at| Rc::clone(&at.file)),
            line: pin.at.map(|at| at.line),
        })
        .collect();
    Ok(ContainerdConfig { entries, files: docs.iter().map(|d| d.shown.to_string()).collect(), warnings })
}

// ---------------------------------------------------------------------------
// Positions and values

/// Where a key or value was written.
#[derive(Clone, Debug, PartialEq)]
struct At {
    file: Rc<str>,
    line: usize,
    col: usize,
}

impl At {
    fn show(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    fn show_col(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.col)
    }
}

fn warning_at(code: WarningCode, at: &At, message: String) -> Warning {
    Warning { code, file: Some(at.file.to_string()), line: Some(at.line), message }
}

/// A value as containerd holds what it does not decode itself (Go's
/// `map[string]any`): tables, strings, and the rest by type only.
#[derive(Clone, Debug)]
enum Value {
    Table(Table),
    String(String),
    Other(&'static str),
}

type Table = BTreeMap<String, Node>;

#[derive(Clone, Debug)]
struct Node {
    value: Value,
    at: At,
}

impl Value {
    /// "a string", "an integer", …
    fn what(&self) -> String {
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
    fn at(&self, file: &Rc<str>, offset: usize) -> At {
        let (line, col) = self.line_col(offset);
        At { file: Rc::clone(file), line, col }
    }
}

fn convert(value: &Spanned<DeValue<'_>>, at: At, lines: &Lines<'_>) -> Node {
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
fn go_lower(s: &str) -> String {
    s.chars().flat_map(|c| if c == '\u{130}' { 'i'.to_lowercase() } else { c.to_lowercase() }).collect()
}

/// A key as written in a table header.
fn quote_key(key: &str) -> String {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

fn header(path: &[&str]) -> String {
    format!("[{}]", path.iter().map(|k| quote_key(k)).collect::<Vec<_>>().join("."))
}

// ---------------------------------------------------------------------------
// Reading the files

/// One file as containerd decodes it: what matters for the pins.
struct FileDoc {
    shown: Rc<str>,
    path: Vec<u8>,
    version: i64,
    imports: Vec<(String, At)>,
    plugins: Table,
}

/// A file to read, and the `imports` entry that named it.
struct Pending {
    path: Vec<u8>,
    named_at: Option<At>,
}

/// The files in containerd's order (LoadConfigWithPlugins).
fn load_all(config: &str, explicit: bool, warnings: &mut Vec<Warning>) -> Result<Vec<FileDoc>, InputError> {
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

fn read_containerd_file(shown: &str, file: &Pending, explicit: bool) -> Result<Vec<u8>, InputError> {
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
const TOML_DEPTH: usize = 80;

fn parse_file(
    shown: &Rc<str>,
    path: Vec<u8>,
    bytes: &[u8],
    warnings: &mut Vec<Warning>,
) -> Result<FileDoc, InputError> {
    if [&b"\xef\xbb\xbf"[..], b"\xff\xfe", b"\xfe\xff"].iter().any(|bom| bytes.starts_with(bom)) {
        return Err(InputError(format!(
            "{shown}:1:1: starts with a byte-order mark, which containerd's TOML decoder (go-toml v2) takes for \
             the start of a key (\"invalid character at start of key\"); {REFUSES}: save it as UTF-8 without \
             a byte-order mark"
        )));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        InputError(format!(
            "{shown}:{line}: not valid UTF-8 (bad byte at offset {}); TOML files must be UTF-8, {REFUSES}",
            e.valid_up_to()
        ))
    })?;
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

    // The three fields of containerd's Config read here, matched as
    // go-toml matches struct fields, applied in the order written.
    let mut hits: Hits<'_, '_> = BTreeMap::new();
    for (key, value) in doc.get_ref().iter() {
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

    let version = decode_version(&hits, shown, &lines)?;
    let imports = decode_imports(&hits, shown, &lines)?;

    let mut plugins = Table::new();
    for &(key, value) in hits.get("plugins").into_iter().flatten() {
        let at = lines.at(shown, key.span().start);
        let node = convert(value, at.clone(), &lines);
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

    ignored_keys(doc.get_ref(), &mut Vec::new(), version, shown, &lines, warnings);
    Ok(FileDoc { shown: Rc::clone(shown), path, version, imports, plugins })
}

/// A top-level key and its value.
type Hit<'d, 'i> = (&'d Spanned<std::borrow::Cow<'i, str>>, &'d Spanned<DeValue<'i>>);

/// The top-level keys of one file, by the field of Config they decode into.
type Hits<'d, 'i> = BTreeMap<&'static str, Vec<Hit<'d, 'i>>>;

/// The file's `version` (0 without one), as containerd takes or refuses it.
fn decode_version(hits: &Hits<'_, '_>, shown: &Rc<str>, lines: &Lines<'_>) -> Result<i64, InputError> {
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
fn decode_imports(hits: &Hits<'_, '_>, shown: &Rc<str>, lines: &Lines<'_>) -> Result<Vec<(String, At)>, InputError> {
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
fn looks_like(key: &str) -> Option<&'static str> {
    let squashed: String = key.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    match squashed.as_str() {
        "pinnedimages" | "pinnedimage" | "pinimages" => Some("pinned_images"),
        "sandboximage" | "sandboximages" | "pauseimage" => Some("sandbox_image"),
        _ => None,
    }
}

/// Every key of a file that looks meant for `pinned_images` or
/// `sandbox_image` but that containerd does not read where it is.
fn ignored_keys(
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
fn resolve_imports(parent: &[u8], imports: &[(String, At)]) -> Result<Vec<Pending>, InputError> {
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
fn unimported_drop_ins(pattern: &str, docs: &[FileDoc], main: &str, warnings: &mut Vec<Warning>) {
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

// ---------------------------------------------------------------------------
// Migrating, merging, decoding

/// Why containerd would not start.
enum Stop {
    /// An error it reports.
    Refuses(String),
    /// A panic in a configuration migration.
    Crashes(String),
}

impl Stop {
    fn error(self) -> InputError {
        InputError(match self {
            Stop::Refuses(m) => format!("{m}; {REFUSES}"),
            Stop::Crashes(m) => format!(
                "{m}; containerd would crash at start-up (a panic in the CRI image plugin's migration of the \
                 configuration)"
            ),
        })
    }

    fn text(&self) -> &str {
        match self {
            Stop::Refuses(m) | Stop::Crashes(m) => m,
        }
    }
}

/// v1MigratePluginName: a plugin name without a dot as version 2 names it.
fn v1_plugin_name(name: &str) -> String {
    const CORE: [(&str, &str); 16] = [
        ("cri", "io.containerd.grpc.v1.cri"),
        ("cgroups", "io.containerd.monitor.v1.cgroups"),
        ("linux", "io.containerd.runtime.v1.linux"),
        ("scheduler", "io.containerd.gc.v1.scheduler"),
        ("bolt", "io.containerd.metadata.v1.bolt"),
        ("task", "io.containerd.runtime.v2.task"),
        ("opt", "io.containerd.internal.v1.opt"),
        ("restart", "io.containerd.internal.v1.restart"),
        ("tracing", "io.containerd.internal.v1.tracing"),
        ("otlp", "io.containerd.tracing.processor.v1.otlp"),
        ("aufs", "io.containerd.snapshotter.v1.aufs"),
        ("btrfs", "io.containerd.snapshotter.v1.btrfs"),
        ("devmapper", "io.containerd.snapshotter.v1.devmapper"),
        ("native", "io.containerd.snapshotter.v1.native"),
        ("overlayfs", "io.containerd.snapshotter.v1.overlayfs"),
        ("zfs", "io.containerd.snapshotter.v1.zfs"),
    ];
    if name.contains('.') {
        return name.to_string();
    }
    if let Some((_, full)) = CORE.iter().find(|(short, _)| *short == name) {
        full.to_string()
    } else if name.ends_with("-service") {
        format!("io.containerd.service.v1.{name}")
    } else if name == "windows" || name == "windows-lcow" {
        format!("io.containerd.snapshotter.v1.{name}")
    } else {
        format!("io.containerd.grpc.v1.{name}")
    }
}

/// v1Migrate: the plugin names of a version-1 file expanded. Two names
/// that end up the same collide in a Go map, where which one stays is
/// random; here the later in byte order stays.
fn v1_rename(plugins: &mut Table, file: &str, warnings: Option<&mut Vec<Warning>>) {
    let mut renamed = Table::new();
    let mut collisions = Vec::new();
    for (name, node) in std::mem::take(plugins) {
        let full = v1_plugin_name(&name);
        if let Some(old) = renamed.insert(full.clone(), node) {
            collisions.push((full, old.at));
        }
    }
    if let (Some(warnings), Some((full, at))) = (warnings, collisions.first()) {
        warnings.push(warning_at(
            WarningCode::AmbiguousKey,
            at,
            format!(
                "{}: {file} has no version (or version 1), so containerd renames its plugin tables, and two of \
                 them become {full:?}: which one containerd keeps is random; keep one (this tool keeps the \
                 one last in byte order)",
                at.show()
            ),
        ));
    }
    *plugins = renamed;
}

fn table_or<'n>(node: &'n Node, path: &str, version: i64) -> Result<&'n Table, Stop> {
    match &node.value {
        Value::Table(t) => Ok(t),
        other => Err(Stop::Crashes(format!(
            "{}: {path} is {}, not a table, in a file containerd migrates ({}): write it as a table",
            node.at.show_col(),
            other.what(),
            if version == 0 { "no version".to_string() } else { format!("version {version}") }
        ))),
    }
}

/// One step of the plugins' migrations (ConfigMigration with
/// `step`, below `target`): the CRI image plugin's, which copies
/// `sandbox_image` into pinned_images.sandbox, then the CRI plugin's, which
/// keeps only its streaming settings.
fn migrate_cri(
    plugins: &mut Table,
    step: i64,
    target: i64,
    version: i64,
    warnings: Option<&mut Vec<Warning>>,
) -> Result<(), Stop> {
    if step >= target {
        return Ok(());
    }
    let Some(src_node) = plugins.get(CRI_PLUGIN) else { return Ok(()) };
    let src_header = format!("plugins.\"{CRI_PLUGIN}\"");
    let src = table_or(src_node, &src_header, version)?;
    let (mut dst, dst_at) = match plugins.get(IMAGES_PLUGIN) {
        None => (Table::new(), src_node.at.clone()),
        Some(node) => (table_or(node, &format!("plugins.\"{IMAGES_PLUGIN}\""), version)?.clone(), node.at.clone()),
    };
    let (mut pinned, pinned_at) = match dst.get("pinned_images") {
        None => (Table::new(), None),
        Some(node) => (table_or(node, "pinned_images", version)?.clone(), Some(node.at.clone())),
    };
    if let Some(image) = src.get("sandbox_image") {
        if let (Some(warnings), Some(old)) = (warnings, pinned.get("sandbox")) {
            if !same(&old.value, &image.value) {
                warnings.push(warning_at(
                    WarningCode::OverriddenKey,
                    &image.at,
                    format!(
                        "{}: sandbox_image replaces pinned_images.sandbox of {} (a file of version {version} \
                         is migrated: its sandbox_image is copied over its own pinned_images.sandbox); keep \
                         one of the two",
                        image.at.show(),
                        old.at.show()
                    ),
                ));
            }
        }
        pinned.insert("sandbox".to_string(), image.clone());
    }
    if !pinned.is_empty() {
        let at = pinned_at.unwrap_or_else(|| pinned.values().next().map_or(dst_at.clone(), |n| n.at.clone()));
        dst.insert("pinned_images".to_string(), Node { value: Value::Table(pinned), at });
    }
    // The same migration asserts the types of the runtimes it reads.
    if let Some(node) = src.get("containerd") {
        let containerd = table_or(node, &format!("{src_header}.containerd"), version)?;
        if let Some(node) = containerd.get("runtimes") {
            for (name, runtime) in table_or(node, &format!("{src_header}.containerd.runtimes"), version)? {
                table_or(runtime, &format!("{src_header}.containerd.runtimes.{}", quote_key(name)), version)?;
            }
        }
    }
    let kept: Table =
        src.iter().filter(|(k, _)| STREAMING_KEYS.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    let src_at = src_node.at.clone();
    plugins.insert(IMAGES_PLUGIN.to_string(), Node { value: Value::Table(dst), at: dst_at });
    plugins.insert(CRI_PLUGIN.to_string(), Node { value: Value::Table(kept), at: src_at });
    Ok(())
}

fn same(a: &Value, b: &Value) -> bool {
    matches!((a, b), (Value::String(a), Value::String(b)) if a == b)
}

/// mergeConfig for `plugins` (mergo with override): tables merge key by key
/// at every depth, anything else replaces. (go-toml decodes two keys into the
/// same map so too.)
fn merge(dst: &mut Table, src: Table) {
    for (key, node) in src {
        match (dst.get_mut(&key), node.value) {
            (Some(Node { value: Value::Table(d), .. }), Value::Table(s)) => merge(d, s),
            (_, value) => {
                dst.insert(key, Node { value, at: node.at });
            }
        }
    }
}

/// The keys of the image plugin's table that go-toml decodes as
/// pinned_images, in the order it decodes them (go-toml writes a map's
/// keys in byte order).
fn pinned_tables(plugins: &Table) -> Vec<(&String, &Node)> {
    match plugins.get(IMAGES_PLUGIN) {
        Some(Node { value: Value::Table(t), .. }) => t.iter().filter(|(k, _)| go_lower(k) == "pinned_images").collect(),
        _ => Vec::new(),
    }
}

/// The pinned keys as they stand, type errors aside.
fn pinned_view(plugins: &Table) -> BTreeMap<String, Node> {
    let mut view = BTreeMap::new();
    for (_, node) in pinned_tables(plugins) {
        if let Value::Table(t) = &node.value {
            view.extend(t.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    view
}

/// containerd 2.3: each file migrated to version 4, then merged.
fn model_2_3(docs: &[FileDoc], warnings: &mut Vec<Warning>) -> Result<Table, InputError> {
    let mut out = Table::new();
    let mut root_version = 0;
    let mut higher_said = false;
    for doc in docs {
        // The check of 2.3.0 to 2.3.4.
        if root_version == 0 {
            root_version = doc.version;
        }
        if doc.version > root_version && !higher_said {
            higher_said = true;
            warnings.push(Warning {
                code: WarningCode::VersionDependent,
                file: Some(doc.shown.to_string()),
                line: None,
                message: format!(
                    "{} has version {}, higher than the {root_version} of {}: containerd 2.3.0 to 2.3.4 refuse \
                     to start (\"drop-in config version {} higher than root config version {root_version}\"); \
                     later releases read it: give the files the same version",
                    doc.shown, doc.version, docs[0].shown, doc.version
                ),
            });
        }
        let mut plugins = doc.plugins.clone();
        for step in doc.version..CONFIG_VERSION {
            if step == 1 {
                v1_rename(&mut plugins, &doc.shown, Some(warnings));
            }
            migrate_cri(&mut plugins, step, CONFIG_VERSION, doc.version, Some(warnings)).map_err(Stop::error)?;
        }
        let before = pinned_view(&out);
        merge(&mut out, plugins);
        for (key, new) in pinned_view(&out) {
            let Some(old) = before.get(&key) else { continue };
            if old.at != new.at && !same(&old.value, &new.value) {
                let value = |n: &Node| match &n.value {
                    Value::String(s) => format!("{s:?}"),
                    other => other.what(),
                };
                warnings.push(warning_at(
                    WarningCode::OverriddenKey,
                    &new.at,
                    format!(
                        "{}: pinned_images.{} = {} replaces {} set at {}: containerd merges pinned_images key \
                         by key across files, the one read last wins; to keep both images, give them different \
                         keys",
                        new.at.show(),
                        quote_key(&key),
                        value(&new),
                        value(old),
                        old.at.show()
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// containerd 2.0 to 2.2: files of version 0 or 1 migrated to the version
/// merged so far (names only), every file merged, then the plugins'
/// migrations run once over the whole when the merged version is below 3.
fn model_2_2(docs: &[FileDoc]) -> Result<Table, Stop> {
    let mut out = Table::new();
    let mut out_version = CONFIG_VERSION_2_2;
    let mut set_by = None;
    for doc in docs {
        let mut plugins = doc.plugins.clone();
        let mut version = doc.version;
        if version == 0 || version == 1 {
            if out_version > CONFIG_VERSION_2_2 {
                return Err(Stop::Crashes(format!(
                    "{}: a file without version (or version 1) read after one of version {out_version} \
                     (index out of range in MigrateConfigTo)",
                    doc.shown
                )));
            }
            v1_rename(&mut plugins, &doc.shown, None);
            version = out_version;
        } else {
            set_by = Some(&doc.shown);
        }
        merge(&mut out, plugins);
        out_version = version;
    }
    if let (true, Some(file)) = (out_version > CONFIG_VERSION_2_2, set_by) {
        return Err(Stop::Refuses(format!(
            "{file} has version {out_version}, and is the last file with a version: they know versions up to \
             {CONFIG_VERSION_2_2}"
        )));
    }
    for step in out_version..CONFIG_VERSION_2_2 {
        migrate_cri(&mut out, step, CONFIG_VERSION_2_2, out_version, None)?;
    }
    Ok(out)
}

/// One pinned image: its value, and where it was set (none: the default).
struct Pin {
    value: String,
    at: Option<At>,
}

/// Config.Decode of the image plugin over its defaults.
fn decode_pins(plugins: &Table, warnings: Option<&mut Vec<Warning>>) -> Result<BTreeMap<String, Pin>, Stop> {
    let mut pins =
        BTreeMap::from([("sandbox".to_string(), Pin { value: DEFAULT_SANDBOX_IMAGE.to_string(), at: None })]);
    let pinned_header = format!("[plugins.\"{IMAGES_PLUGIN}\".pinned_images]");
    if let Some(node) = plugins.get(IMAGES_PLUGIN) {
        if !matches!(node.value, Value::Table(_)) {
            return Err(Stop::Refuses(format!(
                "{}: plugins.\"{IMAGES_PLUGIN}\" is {}, not a table (write {pinned_header} and its keys)",
                node.at.show_col(),
                node.value.what()
            )));
        }
    }
    let tables = pinned_tables(plugins);
    if let (Some(warnings), true) = (warnings, tables.len() > 1) {
        let (_, last) = tables[tables.len() - 1];
        let keys: Vec<String> = tables.iter().map(|(k, n)| format!("{k:?} ({})", n.at.show())).collect();
        warnings.push(warning_at(
            WarningCode::AmbiguousKey,
            &last.at,
            format!(
                "[plugins.\"{IMAGES_PLUGIN}\"] has {} keys that containerd reads as pinned_images (keys match in \
                 lower case): {}; containerd decodes them one after the other in byte order of the keys, \
                 whatever the files' order, the last one winning for a key: keep only pinned_images",
                tables.len(),
                keys.join(", ")
            ),
        ));
    }
    for (name, node) in tables {
        let Value::Table(entries) = &node.value else {
            return Err(Stop::Refuses(format!(
                "{}: {name} is {}, not a table of image references (write {pinned_header} and under it lines \
                 such as sandbox = \"{DEFAULT_SANDBOX_IMAGE}\")",
                node.at.show_col(),
                node.value.what()
            )));
        };
        for (key, entry) in entries {
            let Value::String(value) = &entry.value else {
                return Err(Stop::Refuses(format!(
                    "{}: {name}.{} is {}, not a string (write {} = \"registry.example/image:tag\")",
                    entry.at.show_col(),
                    quote_key(key),
                    entry.value.what(),
                    quote_key(key)
                )));
            };
            pins.insert(key.clone(), Pin { value: value.clone(), at: Some(entry.at.clone()) });
        }
    }
    Ok(pins)
}

/// Says when containerd 2.0 to 2.2 would pin otherwise, or not start.
fn compare_2_2(docs: &[FileDoc], pins: &BTreeMap<String, Pin>, warnings: &mut Vec<Warning>) {
    let why = "containerd 2.0 to 2.2 move sandbox_image into pinned_images once, over all files merged, and only \
               when the last file with a version has version 2; 2.3 migrates every file of version 1 to 3 (none \
               is 1) by itself";
    let older = match model_2_2(docs).and_then(|plugins| decode_pins(&plugins, None)) {
        Ok(older) => older,
        Err(stop) => {
            let how = if matches!(stop, Stop::Crashes(_)) { "crash at start-up" } else { "refuse to start" };
            warnings.push(Warning {
                code: WarningCode::VersionDependent,
                file: None,
                line: None,
                message: format!("containerd 2.0 to 2.2 would {how}: {}", stop.text()),
            });
            return;
        }
    };
    let mut differences = Vec::new();
    let mut first_at = None;
    let keys: std::collections::BTreeSet<&String> = pins.keys().chain(older.keys()).collect();
    for key in keys {
        let (new, old) = (pins.get(key), older.get(key));
        let difference = match (new, old) {
            (Some(new), Some(old)) if new.value == old.value => continue,
            (Some(new), Some(old)) => format!("{} = {:?} instead of {:?}", quote_key(key), old.value, new.value),
            (Some(_), None) => format!("no {}", quote_key(key)),
            (None, Some(old)) => format!("{} = {:?} as well", quote_key(key), old.value),
            (None, None) => continue,
        };
        differences.push(difference);
        if first_at.is_none() {
            first_at = new.and_then(|p| p.at.clone()).or_else(|| old.and_then(|p| p.at.clone()));
        }
    }
    if differences.is_empty() {
        return;
    }
    let shown = differences.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    let more = if differences.len() > 3 { format!(" and {} more", differences.len() - 3) } else { String::new() };
    warnings.push(Warning {
        code: WarningCode::VersionDependent,
        file: first_at.as_ref().map(|at| at.file.to_string()),
        line: first_at.as_ref().map(|at| at.line),
        message: format!(
            "containerd 2.0 to 2.2 would pin otherwise: {shown}{more} ({why}); to pin the same with every 2.x, \
             write version = 3 and the images in [plugins.\"{IMAGES_PLUGIN}\".pinned_images] in every file"
        ),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dir(tempfile::TempDir);

    impl Dir {
        fn new() -> Dir {
            Dir(tempfile::tempdir().unwrap())
        }

        fn write(&self, name: &str, text: &str) -> String {
            let path = self.0.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_string()
        }

        fn path(&self, name: &str) -> String {
            self.0.path().join(name).to_str().unwrap().to_string()
        }

        /// `resolve` of an explicit file, no drop-in check.
        fn resolve(&self, name: &str) -> Result<ContainerdConfig, InputError> {
            resolve_in(Some(&self.path(name)), "/nonexistent", "/nonexistent/*.toml")
        }
    }

    fn pins(config: &ContainerdConfig) -> Vec<(String, String)> {
        config.entries.iter().map(|e| (e.key.clone(), String::from_utf8(e.reference.clone()).unwrap())).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn entry<'c>(config: &'c ContainerdConfig, key: &str) -> &'c ContainerdEntry {
        config.entries.iter().find(|e| e.key == key).unwrap()
    }

    fn codes(config: &ContainerdConfig) -> Vec<WarningCode> {
        config.warnings.iter().map(|w| w.code).collect()
    }

    const IMAGES: &str = "[plugins.\"io.containerd.cri.v1.images\".pinned_images]";

    #[test]
    fn v3_pinned_images_with_several_keys() {
        let d = Dir::new();
        let main = d.write(
            "config.toml",
            &format!(
                "version = 3\n{IMAGES}\nsandbox = \"registry.k8s.io/pause:3.10\"\nbase = \
                 \"docker.io/library/ubuntu:24.04\"\n  agent = \"quay.io/a/agent@sha256:{}\"\n",
                "0".repeat(64)
            ),
        );
        let c = d.resolve("config.toml").unwrap();
        assert_eq!(
            pins(&c),
            pairs(&[
                ("agent", &format!("quay.io/a/agent@sha256:{}", "0".repeat(64))),
                ("base", "docker.io/library/ubuntu:24.04"),
                ("sandbox", "registry.k8s.io/pause:3.10"),
            ])
        );
        let sandbox = entry(&c, "sandbox");
        assert_eq!((sandbox.file.as_deref(), sandbox.line, sandbox.default), (Some(main.as_str()), Some(3), false));
        assert_eq!(entry(&c, "agent").line, Some(5));
        assert_eq!(c.files, vec![main]);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn default_sandbox_image_when_nothing_sets_it() {
        let d = Dir::new();
        d.write("config.toml", &format!("version = 3\n{IMAGES}\nbase = \"docker.io/library/busybox:1\"\n"));
        let c = d.resolve("config.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("base", "docker.io/library/busybox:1"), ("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        let sandbox = entry(&c, "sandbox");
        assert!(sandbox.default);
        assert_eq!((sandbox.file.as_deref(), sandbox.line), (None, None));

        // No file at the default path: the defaults, and a warning.
        let missing = d.path("absent.toml");
        let c = resolve_in(None, &missing, &d.path("conf.d/*.toml")).unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        assert!(c.entries[0].default);
        assert!(c.files.is_empty());
        assert_eq!(codes(&c), vec![WarningCode::MissingConfig]);

        // An empty sandbox pins nothing, and says so.
        d.write("empty.toml", &format!("version = 3\n{IMAGES}\nsandbox = \"\"\n"));
        let c = d.resolve("empty.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", "")]));
        assert!(!c.entries[0].default);
        assert_eq!(codes(&c), vec![WarningCode::UnpinnedSandbox]);
    }

    #[test]
    fn missing_explicit_file_is_an_error() {
        let d = Dir::new();
        let e = d.resolve("absent.toml").unwrap_err().0;
        assert!(e.contains("absent.toml: no such file") && e.contains("--config"), "{e}");
    }

    #[test]
    fn v2_sandbox_image_is_migrated_to_the_sandbox_key() {
        let d = Dir::new();
        let main = d.write(
            "config.toml",
            "version = 2\n\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"registry.k8s.io/pause:3.9\"\n",
        );
        let c = d.resolve("config.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", "registry.k8s.io/pause:3.9")]));
        let sandbox = entry(&c, "sandbox");
        assert_eq!((sandbox.file.as_deref(), sandbox.line, sandbox.default), (Some(main.as_str()), Some(4), false));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);

        // Over the same file's own pinned_images.sandbox, other keys kept.
        d.write(
            "both.toml",
            &format!(
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"old/pause:1\"\n{IMAGES}\n\
                 sandbox = \"new/pause:2\"\nbase = \"b/base:1\"\n"
            ),
        );
        let c = d.resolve("both.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("base", "b/base:1"), ("sandbox", "old/pause:1")]));
        assert_eq!(codes(&c), vec![WarningCode::OverriddenKey]);
        assert_eq!(c.warnings[0].line, Some(3));

        // Version 3: migrated by 2.3, not by 2.0 to 2.2. Version 4: not at all.
        d.write("v3.toml", "version = 3\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"v3/pause:1\"\n");
        let c = d.resolve("v3.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", "v3/pause:1")]));
        assert_eq!(codes(&c), vec![WarningCode::VersionDependent]);
        d.write("v4.toml", "version = 4\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"v4/pause:1\"\n");
        let c = d.resolve("v4.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        assert!(entry(&c, "sandbox").default);
        // Ignored, and 2.0 to 2.2 refuse version 4.
        assert_eq!(codes(&c), vec![WarningCode::IgnoredKey, WarningCode::VersionDependent]);
        assert_eq!(c.warnings[0].line, Some(3));
    }

    #[test]
    fn version_missing_or_1_is_migrated_from_1() {
        let d = Dir::new();
        // No version: the short plugin name cri is expanded, then migrated.
        d.write("none.toml", "[plugins.cri]\nsandbox_image = \"v1/pause:1\"\n");
        let c = d.resolve("none.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", "v1/pause:1")]));
        assert_eq!(entry(&c, "sandbox").line, Some(2));
        // containerd 2.0 to 2.2 ignore it.
        assert_eq!(codes(&c), vec![WarningCode::VersionDependent]);
        assert!(c.warnings[0].message.contains("sandbox = \"registry.k8s.io/pause:3.10.2\" instead of \"v1/pause:1\""));

        d.write(
            "one.toml",
            &format!("version = 1\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"v1/pause:2\"\n{IMAGES}\nx = \"x/x:1\"\n"),
        );
        let c = d.resolve("one.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", "v1/pause:2"), ("x", "x/x:1")]));

        // In a version-2 file the short name is no plugin: ignored.
        d.write("two.toml", "version = 2\n[plugins.cri]\nsandbox_image = \"v2/pause:1\"\n");
        let c = d.resolve("two.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        assert_eq!(codes(&c), vec![WarningCode::IgnoredKey]);
    }

    #[test]
    fn imports_relative_glob_and_merge_order() {
        let d = Dir::new();
        let main = d.write(
            "etc/config.toml",
            &format!(
                "version = 3\nimports = [\"conf.d/*.toml\", \"../extra/last.toml\"]\n{IMAGES}\nsandbox = \
                 \"main/pause:1\"\nbase = \"main/base:1\"\nkeep = \"main/keep:1\"\n"
            ),
        );
        let a = d.write(
            "etc/conf.d/10-a.toml",
            &format!(
                "version = 3\nimports = [\"sub/nested.toml\"]\n{IMAGES}\nbase = \"a/base:2\"\nfrom_a = \"a/a:1\"\n"
            ),
        );
        // Hidden files match a Go glob too; sorted: .hidden, 10-a, 20-b.
        let hidden = d.write("etc/conf.d/.hidden.toml", &format!("version = 3\n{IMAGES}\nhidden = \"h/h:1\"\n"));
        // A later file without pinned_images leaves the map alone.
        let b = d.write(
            "etc/conf.d/20-b.toml",
            "version = 3\n[plugins.\"io.containerd.cri.v1.images\"]\nsnapshotter = \"overlayfs\"\n",
        );
        d.write("etc/conf.d/ignored.conf", &format!("version = 3\n{IMAGES}\nno = \"n/n:1\"\n"));
        let last = d.write("extra/last.toml", &format!("version = 3\n{IMAGES}\nbase = \"last/base:3\"\n"));
        // Read last (breadth first), relative to 10-a.toml's directory.
        let nested =
            d.write("etc/conf.d/sub/nested.toml", &format!("version = 3\n{IMAGES}\nbase = \"nested/base:4\"\n"));

        let c = resolve_in(Some(&main), "/nonexistent", "/nonexistent/*.toml").unwrap();
        let clean = |p: &str| String::from_utf8(go_filepath::clean(p.as_bytes())).unwrap();
        assert_eq!(c.files, vec![main.clone(), clean(&hidden), clean(&a), clean(&b), clean(&last), clean(&nested)]);
        assert_eq!(
            pins(&c),
            pairs(&[
                ("base", "nested/base:4"),
                ("from_a", "a/a:1"),
                ("hidden", "h/h:1"),
                ("keep", "main/keep:1"),
                ("sandbox", "main/pause:1"),
            ])
        );
        let base = entry(&c, "base");
        assert_eq!((base.file.as_deref(), base.line), (Some(clean(&nested).as_str()), Some(3)));
        assert_eq!(entry(&c, "keep").file.as_deref(), Some(main.as_str()));
        // base set four times: three overrides.
        assert_eq!(codes(&c), vec![WarningCode::OverriddenKey; 3]);
        assert!(c.warnings[0].message.contains("\"a/base:2\" replaces \"main/base:1\""), "{}", c.warnings[0].message);

        // An empty string overrides too.
        d.write("e/main.toml", &format!("version = 3\nimports = [\"z.toml\"]\n{IMAGES}\nsandbox = \"s/s:1\"\n"));
        d.write("e/z.toml", &format!("version = 3\n{IMAGES}\nsandbox = \"\"\n"));
        let c = d.resolve("e/main.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", "")]));
    }

    #[test]
    fn import_cycles_missing_imports_and_bad_patterns() {
        let d = Dir::new();
        let one = d.write(
            "one.toml",
            &format!("version = 3\nimports = [\"two.toml\", \"one.toml\"]\n{IMAGES}\nk = \"one\"\n"),
        );
        let two = d.write(
            "two.toml",
            &format!("version = 3\nimports = [\"one.toml\", \"none/*.toml\"]\n{IMAGES}\nk = \"two\"\n"),
        );
        let c = d.resolve("one.toml").unwrap();
        assert_eq!(c.files, vec![one, two]);
        assert_eq!(entry(&c, "k").reference, b"two");

        d.write("miss.toml", "version = 3\nimports = [\n  \"gone.toml\",\n]\n");
        let e = d.resolve("miss.toml").unwrap_err().0;
        assert!(e.contains("gone.toml: no such file, named by the imports at ") && e.contains("miss.toml:3"), "{e}");
        // '[' without '*' is no pattern: a missing file.
        d.write("bracket.toml", "version = 3\nimports = [\"x[.toml\"]\n");
        assert!(d.resolve("bracket.toml").unwrap_err().0.contains("x[.toml: no such file"));
        d.write("bad.toml", "version = 3\nimports = [\"[*.toml\"]\n");
        let e = d.resolve("bad.toml").unwrap_err().0;
        assert!(e.contains("bad.toml:2:12: the imports pattern \"[*.toml\" is malformed"), "{e}");
    }

    #[test]
    fn version_2_main_with_version_3_import_differs_before_2_3() {
        let d = Dir::new();
        d.write(
            "main.toml",
            "version = 2\nimports = [\"i.toml\"]\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"v2/pause:1\"\n",
        );
        d.write("i.toml", &format!("version = 3\n{IMAGES}\nb = \"b/b:1\"\n"));
        let c = d.resolve("main.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("b", "b/b:1"), ("sandbox", "v2/pause:1")]));
        // 2.3.0 to 2.3.4 refuse the higher import; 2.0 to 2.2 drop sandbox_image.
        assert_eq!(codes(&c), vec![WarningCode::VersionDependent, WarningCode::VersionDependent]);
        assert!(c.warnings[0].message.contains("2.3.0 to 2.3.4"));
        assert!(c.warnings[1].message.contains("instead of \"v2/pause:1\""));
    }

    #[test]
    fn wrong_types_name_file_and_line() {
        let d = Dir::new();
        let f = d.write("int.toml", &format!("version = 3\n{IMAGES}\nsandbox = \"ok\"\nbase = 5\n"));
        let e = d.resolve("int.toml").unwrap_err().0;
        assert!(e.starts_with(&format!("{f}:4:1: pinned_images.base is an integer, not a string")), "{e}");
        assert!(e.contains(REFUSES), "{e}");

        let f =
            d.write("arr.toml", "version = 3\n[plugins.\"io.containerd.cri.v1.images\"]\npinned_images = [\"a\"]\n");
        let e = d.resolve("arr.toml").unwrap_err().0;
        assert!(e.starts_with(&format!("{f}:3:1: pinned_images is an array, not a table")), "{e}");

        let f = d.write("ver.toml", "version = \"3\"\n");
        let e = d.resolve("ver.toml").unwrap_err().0;
        assert!(e.starts_with(&format!("{f}:1:11: version is a string, not an integer")), "{e}");

        let f = d.write("five.toml", "version = 5\n");
        assert!(d.resolve("five.toml").unwrap_err().0.starts_with(&format!("{f}:1:11: version 5")));

        // A type error in an import names the import.
        d.write("m.toml", "version = 3\nimports = [\"i.toml\"]\n");
        let f = d.write("i.toml", &format!("version = 3\n\n{IMAGES}\nsandbox = true\n"));
        let e = d.resolve("m.toml").unwrap_err().0;
        assert!(e.starts_with(&format!("{f}:4:1: pinned_images.sandbox is a boolean")), "{e}");

        // A migrated file's CRI table that is no table: containerd panics.
        let f = d.write("panic.toml", "version = 2\n[plugins]\n\"io.containerd.grpc.v1.cri\" = \"x\"\n");
        let e = d.resolve("panic.toml").unwrap_err().0;
        assert!(e.starts_with(&format!("{f}:3:1: plugins.\"io.containerd.grpc.v1.cri\" is a string")), "{e}");
        assert!(e.contains("crash"), "{e}");

        let f = d.write("bom.toml", "\u{feff}version = 3\n");
        assert!(d.resolve("bom.toml").unwrap_err().0.starts_with(&format!("{f}:1:1: starts with a byte-order mark")));
    }

    #[test]
    fn keys_match_in_lower_case_and_misplaced_keys_warn() {
        let d = Dir::new();
        d.write(
            "case.toml",
            "Version = 3\n[Plugins.\"io.containerd.cri.v1.images\".Pinned_Images]\nx = \"upper\"\n\
             [Plugins.\"io.containerd.cri.v1.images\".pinned_images]\nx = \"lower\"\ny = \"y\"\n",
        );
        let c = d.resolve("case.toml").unwrap();
        // Decoded in byte order of the keys: "Pinned_Images" first.
        assert_eq!(pins(&c), pairs(&[("sandbox", DEFAULT_SANDBOX_IMAGE), ("x", "lower"), ("y", "y")]));
        assert_eq!(codes(&c), vec![WarningCode::AmbiguousKey]);

        d.write(
            "wrong.toml",
            "version = 3\npinned_images = {a = \"a\"}\n[plugins.\"io.containerd.cri.v1.images\"]\n\
             sandbox_image = \"s\"\npinned-images = {b = \"b\"}\n[plugins.\"io.containerd.grpc.v1.cri\"]\n\
             pinned_images = {c = \"c\"}\n",
        );
        let c = d.resolve("wrong.toml").unwrap();
        assert_eq!(pins(&c), pairs(&[("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        let mut lines: Vec<usize> = c.warnings.iter().filter_map(|w| w.line).collect();
        lines.sort();
        assert_eq!(lines, vec![2, 4, 5, 7]);
        assert!(c.warnings.iter().all(|w| w.code == WarningCode::IgnoredKey), "{:?}", c.warnings);
    }

    #[test]
    fn unimported_drop_ins_are_said() {
        let d = Dir::new();
        let main = d.write("config.toml", &format!("version = 3\n{IMAGES}\na = \"a/a:1\"\n"));
        d.write("conf.d/10.toml", &format!("version = 3\n{IMAGES}\nb = \"b/b:1\"\n"));
        let c = resolve_in(None, &main, &d.path("conf.d/*.toml")).unwrap();
        assert_eq!(pins(&c), pairs(&[("a", "a/a:1"), ("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        assert_eq!(codes(&c), vec![WarningCode::UnimportedDropIn]);

        d.write("config.toml", &format!("version = 3\nimports = [\"{}\"]\n", d.path("conf.d/*.toml")));
        let c = resolve_in(None, &main, &d.path("conf.d/*.toml")).unwrap();
        assert_eq!(pins(&c), pairs(&[("b", "b/b:1"), ("sandbox", DEFAULT_SANDBOX_IMAGE)]));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }
}
