//! containerd in the tool: the names of an image, its lint rules, and (in
//! `config`) how it reads its configuration files. Its names: a record for
//! each name a pull stores (the tag, the repository@digest) and one for the
//! image ID `sha256:…`, every one compared with the configured values
//! (image_pull.go: getLabels, UpdateImage), whatever the pull.

pub mod config;
pub mod labels;

use super::{
    Facts, Held, Known, Model, ReadConfig, RegistryImage, Runtime, Speak, StoredName, StoredNames, Unread, WriteList,
};
use crate::causes::{decide, Causes};
use crate::codes::CauseCode;
use crate::codes::LintCode;
use crate::error::InputError;
use crate::findings::{not_utf8, Add, Artifacts, Compared, Fix, Rules, Severity};
use crate::images;
use crate::images::{Image, LabelListing, Name, Naming};
use crate::labels::{LabelPin, LabelSelector};
use crate::list::toml_string;
use crate::list::Entry;
use crate::list::Resolved;
use crate::refused;
use crate::refused::{List, Refusals};
use crate::show;
use crate::sources::Sources;
use crio_pin::{ErrorKind, Flags};

/// containerd as released, or (`normalized`) as its fix PRs intend.
pub struct Containerd {
    normalized: bool,
}

/// containerd 2.x as released.
pub const RELEASED: Containerd = Containerd { normalized: false };

/// containerd with one of its fix PRs.
pub const NORMALIZED: Containerd = Containerd { normalized: true };

/// The runtime, as messages name it.
const NAME: &str = "containerd";

/// containerd 2.x as released: values compared as written.
pub const FACTS: Facts = Facts {
    flags: Flags::CONTAINERD,
    modes: Flags::DEFAULT,
    option: "containerd",
    name: NAME,
    rules: "each value compared with the stored names as written, byte for byte",
    help: "containerd 2.x (values compared as written)",
    puller: NAME,
    refuser: NAME,
    stock_refuser: NAME,
    on_not_utf8: ON_NOT_UTF8,
    unread: UNREAD,
    pins_image_ids: true,
    cri_endpoint: Some("unix:///run/containerd/containerd.sock"),
};

/// containerd as its open fix PRs intend: values normalised first (a value
/// equal to an image ID is normalised too, so it no longer names the record).
pub const NORMALIZED_FACTS: Facts = Facts {
    flags: Flags::CONTAINERD_NORMALIZED,
    option: "containerd-normalized",
    rules: "each value normalised as a reference, then compared with the stored names byte for byte",
    help: "containerd-normalized (as its fix PRs intend: values normalised)",
    refuser: "containerd with a fix PR",
    stock_refuser: "containerd with a fix PR",
    pins_image_ids: false,
    ..FACTS
};

const ON_NOT_UTF8: &str = "containerd's configuration cannot hold it, and the library refuses the list";

/// Its configuration is config.toml and the files it imports.
const UNREAD: Unread = Unread {
    config: None,
    config_dir: Some(
        "containerd has no drop-in directory: it reads other files only through the imports of its config.toml, \
         given with --config",
    ),
    pinned_images: Some(
        "containerd reads pinned_images from its config.toml (--config FILE), or give a list with --patterns FILE",
    ),
    pause_image: Some(
        "containerd's pause image is the key sandbox of pinned_images in its config.toml, read with --config",
    ),
};

/// What containerd (either rules) and a runtime built on this library do
/// with a list the library refuses: containerd reads it only at start.
fn on_refused(kind: &ErrorKind, _: List) -> String {
    match kind {
        ErrorKind::InvalidReference { .. } => format!(
            "containerd's fix PRs never pin a value that is no reference (they skip it without a word); {}",
            refused::LIBRARY_REFUSES_AT_START
        ),
        kind => refused::refused_at_start(kind, NAME),
    }
}

impl Known for Containerd {
    fn facts(&self) -> &'static Facts {
        if self.normalized {
            &NORMALIZED_FACTS
        } else {
            &FACTS
        }
    }
}

impl Refusals for Containerd {
    fn on_refused(&self, kind: &ErrorKind, list: List) -> String {
        on_refused(kind, list)
    }

    /// The library's message offers a glob, which containerd has not.
    fn refused_says(&self, kind: &ErrorKind) -> Option<(String, String)> {
        let ErrorKind::InvalidReference { why } = kind else { return None };
        Some((
            format!("not an image reference ({why})"),
            format!("write a reference such as {}, or remove the key", show::quote(config::DEFAULT_SANDBOX_IMAGE)),
        ))
    }
}

impl ReadConfig for Containerd {
    fn lint_rules<'a>(&self, _: Flags, _: Option<&'a Artifacts>) -> Box<dyn Rules + 'a> {
        Box::new(ContainerdRules { normalized: self.normalized })
    }

    fn read_config(&self, sources: &Sources) -> Result<Resolved, InputError> {
        config::read(sources.config.as_deref())
    }
}

impl StoredNames for Containerd {
    /// A name as a pull stores it (`ParseDockerRef`: `name:tag@digest` is
    /// stored as `name@digest`), a record for the image ID beside it.
    fn naming(&self) -> Naming {
        Naming {
            pulled_as: |name| images::normalized(name).map_err(str::to_string),
            image_id_record: true,
            lists_artifacts: false,
            digest_beside_tag: true,
            label_listing: Some(LabelListing::Ctr),
            compared_as: |name| name,
            pin_labels: Some(&labels::PinnedLabel),
        }
    }

    fn label_pin(&self, image: &Image, _: &[LabelSelector]) -> Option<LabelPin> {
        labels::label_pin(image)
    }

    fn pinning_label_keys(&self) -> &'static [&'static str] {
        labels::KEYS
    }

    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let names = image.tags.iter().chain(&image.digests).chain(&image.id);
        names.map(|n| StoredName { text: n.clone(), held: Held::Always }).collect()
    }
}

impl WriteList for Containerd {
    /// A containerd configuration of version 3, each pattern under its key.
    fn write_list(&self, patterns: &[(&Entry, &str)]) -> String {
        let mut out = String::from(
            "# containerd's config.toml (or a file it imports): keys merge with the other files'.\n\
             # Written for a main config.toml of version 3 (what `containerd config default` writes\n\
             # since 2.0). Do not import it from a file of version 2: containerd 2.3.0 to 2.3.4 refuse an\n\
             # import whose version is higher than the main file's, and 2.0 to 2.2 copy the main file's\n\
             # sandbox_image over the sandbox key here; there, move the main file to version 3 first.\n\
             version = 3\n\n[plugins.\"io.containerd.cri.v1.images\".pinned_images]\n",
        );
        for (i, (e, p)) in patterns.iter().enumerate() {
            let key = match (&e.key, e.is_pause_image()) {
                (Some(key), _) => key.clone(),
                (None, true) => "sandbox".to_owned(),
                (None, false) => format!("pin-{i}"),
            };
            out.push_str(&format!("  {} = {}  # {}\n", toml_key(&key), toml_string(p), show::escape(&e.source)));
        }
        out
    }
}

impl Speak for Containerd {
    fn default_note(&self, entry: &Entry) -> Option<String> {
        Some(format!(
            "{} is containerd's built-in default sandbox image: no file sets pinned_images.{}, so containerd pins it \
             (and pods run it)",
            show::quote(&entry.display()),
            entry.key.as_deref().map_or_else(String::new, |k| show::key(k).into_owned())
        ))
    }

    fn stored_as_note(&self, stored: &str) -> String {
        format!("is stored by containerd as {stored} (it normalises every name it pulls)")
    }

    /// containerd reads its configuration only at start, labels an image
    /// pinned when it pulls it or at start-up, and never removes the label.
    fn likely_causes(&self, causes: &mut Causes<'_>, at: usize, image: &Image, runtime_pins: bool, _: Option<&Name>) {
        let before_2 = causes.known.version.and_then(major).map(|major| major < 2);
        if let (Some(true), Some(version)) = (before_2, causes.known.version) {
            // Its version rules out every other cause: it reads no list at all.
            return causes.push(CauseCode::OlderRuntime, 0, at, || {
                format!(
                    "the running containerd is {version}, older than 2.0, which reads no pinned_images: 1.7 \
                     pins only its sandbox image, 1.6 pins nothing and sets no pinned flag, so the kubelet \
                     may remove any image; upgrade to containerd 2.0 or later to pin by the list"
                )
            });
        }
        if !runtime_pins {
            // (A restart never unpins: the label stays, below.)
            causes.push(CauseCode::NotRestarted, 0, at, || {
                "containerd reads its configuration only when it starts, and labels an image pinned when it \
                 pulls it or at start-up: the files changed since it started (systemctl restart containerd)"
                    .to_string()
            });
            if before_2.is_none() {
                causes.push(CauseCode::OlderRuntime, 0, at, || {
                    "the running containerd is older than 2.0, which reads no pinned_images: 1.7 pins only its \
                     sandbox image, 1.6 pins nothing and sets no pinned flag, so the kubelet may remove any \
                     image (containerd --version; `crio-pin check` shows the version its socket answers with)"
                        .to_string()
                });
            }
        } else if image.labels.is_none() {
            // (With ctr's listing the label is known: a label pin is no disagreement.)
            causes.push(CauseCode::StickyLabel, 0, at, || {
                "containerd never removes the pinned label of an image record (io.cri-containerd.pinned): an \
                 image pinned once stays pinned after its value leaves the configuration, until the image is \
                 removed (crictl rmi) and pulled again; give `ctr -n k8s.io images ls` with a second --images \
                 to see its labels"
                    .to_string()
            });
        }
        // Only when the other rules give the runtime's answer.
        let (other, how) = match self.normalized {
            false => (
                NORMALIZED_FACTS.flags,
                "normalises the values (a build with one of its fix PRs): --runtime containerd-normalized \
                 reads the list so",
            ),
            true => (
                FACTS.flags,
                "compares the values as written (2.x as released): --runtime containerd reads the list so",
            ),
        };
        let resolved = causes.resolved;
        let entries = &resolved.entries;
        let compiled = causes.other_rules.get_or_insert_with(|| {
            refused::compile_valid(entries, other, List::Effective, Runtime::of(other).model()).ok()
        });
        if compiled.as_ref().is_some_and(|set| decide(set, image).is_some() == runtime_pins) {
            causes.push(CauseCode::OtherRules, 0, at, || format!("the running containerd {how}"));
        }
        causes.push(CauseCode::OtherSources, 0, at, || {
            "containerd runs with another --config than read here (or a version that reads the files \
             otherwise: see the version-dependent warnings of `crio-pin config`)"
                .to_string()
        });
    }

    fn list_note(&self) -> Option<&'static str> {
        Some(
            "the containerd file below is version 3, for a main config.toml of version 3 (a version-2 one must \
             not import it: see its comment)",
        )
    }
}

impl Model for Containerd {
    /// containerd's comparisons (as released, or normalised), over the
    /// records a pull makes: the tag, the digest and the image ID.
    #[cfg(test)]
    fn oracle(&self, list: &[String]) -> Box<dyn super::Oracle> {
        use crio_pin::oracle::containerd::ContainerdReference;
        struct Oracle(ContainerdReference);
        impl super::Oracle for Oracle {
            fn pins(&self, pull: &super::Pull) -> bool {
                let names = pull.tag.iter().chain([&pull.digest, &pull.id]);
                names.into_iter().any(|n| self.0.pinned(n.as_bytes()).is_some())
            }
        }
        let bytes: Vec<&[u8]> = list.iter().map(|s| s.as_bytes()).collect();
        Box::new(Oracle(ContainerdReference::compile(&bytes, self.normalized)))
    }
}

/// containerd's `pinned_images`: each value is compared with the names
/// containerd stores for an image (its repoTag and repoDigest, normalised
/// as `ParseDockerRef` writes them, and its ID `sha256:…`), as written
/// (2.x as released) or normalised first (`ContainerdNormalized`: its fix
/// PRs, where a value that is no reference never pins and the library
/// refuses it).
pub struct ContainerdRules {
    /// The fix PRs' rules: values normalised before they are compared.
    pub normalized: bool,
}

impl Rules for ContainerdRules {
    fn entry<'e>(&self, entry: &'e Entry, _list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let normalized_rules = self.normalized;
        let text = match std::str::from_utf8(&entry.text) {
            Ok(text) => text,
            Err(e) => {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(e.valid_up_to(), ON_NOT_UTF8), None);
                return None;
            }
        };
        let stored = if images::is_image_id(text) { Ok(text.to_string()) } else { images::normalized(text) };
        let stored = match stored {
            Ok(stored) => stored,
            Err(why) => {
                not_a_reference(text, why, normalized_rules, add);
                return None;
            }
        };
        not_normalized(text, &stored, normalized_rules, add);
        // containerd as released compares the values as written; its fix
        // PRs, normalised.
        let compared = if normalized_rules { stored } else { text.to_string() };
        Some(Compared { key: compared.into_bytes(), pattern: None })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        let how = if self.normalized { " once normalised" } else { "" };
        format!(
            "the same value{how} as pattern {first} ({}): one of them is enough",
            show::pattern(entries[first].key.as_deref(), &entries[first].display())
        )
    }
}

/// The finding of a value that is no reference (`why`), under containerd
/// as released or its fix PRs (`normalized_rules`): a bare image ID, a
/// wildcard, or neither.
fn not_a_reference(text: &str, why: &str, normalized_rules: bool, add: &mut Add<'_>) {
    let bare_id = (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("sha256:{}", text.to_ascii_lowercase()));
    let hint = if let Some(id) = &bare_id {
        format!("; containerd names an image's ID record {}", show::quote(id))
    } else if text.contains('*') {
        "; containerd has no wildcards (a '*' is compared as a character): name each image in full".to_string()
    } else {
        String::new()
    };
    let (severity, does) = if normalized_rules {
        (
            Severity::Error,
            "containerd's fix PRs never pin it (they skip it without a word), and the library \
         refuses the list",
        )
    } else {
        (Severity::Warning, "containerd stores no name like it, so this pins nothing")
    };
    add(
        severity,
        LintCode::NotAReference,
        format!("not an image reference ({why}): {does}{hint}"),
        bare_id.map(Fix::Write),
    );
}

/// The finding of a value containerd stores otherwise than written
/// (`stored`): a host with upper case, or a name not normalised.
fn not_normalized(text: &str, stored: &str, normalized_rules: bool, add: &mut Add<'_>) {
    // containerd keeps a host as written: a name pulled by the
    // lower-case host, as references are written, never equals it.
    let host = stored.split('/').next().unwrap_or_default();
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        let (first, rest) = text.split_once('/').unwrap_or((text, ""));
        let lower = images::normalized(&format!("{}/{rest}", first.to_ascii_lowercase())).ok();
        let instead = lower.as_ref().map(|w| format!("; write {}", show::quote(w))).unwrap_or_default();
        add(
            Severity::Warning,
            LintCode::NotNormalized,
            format!(
                "the registry host {} has upper case: containerd keeps a host as it is written, so this \
             equals only a name pulled as {}, and an image pulled by the lower-case host is stored \
             otherwise{instead}",
                show::quote(host),
                show::quote(stored)
            ),
            lower.map(Fix::Write),
        );
    } else if stored != text {
        let how = if text.contains('@') && stored.len() < text.len() {
            "an image pulled by tag and digest is stored by digest only, "
        } else {
            ""
        };
        let (severity, message) = if normalized_rules {
            (
                Severity::Info,
                format!(
                    "containerd's fix PRs pin it as {} ({how}the value normalised); containerd as released \
                 compares the value as written and pins nothing with it: write {} to pin under both",
                    show::quote(stored),
                    show::quote(stored)
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "pins nothing: containerd stores the names it pulls normalised ({how}here {}) and \
                 compares the value as written; write that instead",
                    show::quote(stored)
                ),
            )
        };
        add(severity, LintCode::NotNormalized, message, Some(Fix::Write(stored.to_string())));
    }
}

/// A TOML key: bare when it can be, quoted otherwise.
fn toml_key(key: &str) -> String {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        key.to_owned()
    } else {
        toml_string(key)
    }
}

/// The major version of a containerd version string (`1.6.20~ds1`,
/// `v2.1.4`), as its `Version` answers.
fn major(version: &str) -> Option<u64> {
    version.trim_start_matches('v').split('.').next()?.parse().ok()
}
