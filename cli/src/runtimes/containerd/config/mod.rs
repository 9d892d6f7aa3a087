//! What containerd pins: the `pinned_images` of its CRI image plugin, read
//! from its configuration files as containerd 2.x reads them (how it reads
//! them, and where in its sources: docs/runtimes.md, "containerd's
//! configuration files"). Here the whole of it ([`resolve`]) and its
//! defaults; one concern a module below: the TOML tree with positions
//! (`tree`), loading the files and their imports (`load`), migrating a
//! file's version and merging (`migrate`), the models of containerd 2.3
//! and of 2.0 to 2.2 (`versions`), decoding `pinned_images` (`pins`).

mod load;
mod migrate;
mod pins;
mod tree;
mod versions;

use std::fs;
use std::io::ErrorKind as IoErrorKind;
use std::rc::Rc;

use crate::codes::WarningCode;
use crate::error::InputError;
use crate::list::{Entry, Resolved, Warning};
use load::{load_all, unimported_drop_ins};
use pins::{decode_pins, Pin};
use tree::warning_at;
use versions::{compare_2_2, model_2_3};

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
                severity: "warning",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go_filepath;

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
