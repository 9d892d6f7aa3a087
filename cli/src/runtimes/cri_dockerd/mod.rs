//! cri-dockerd in the tool: the names of an image, its lint rules, and (in
//! `flags`) how it reads its `--pinned-images` values. Its names: the
//! RepoTags and RepoDigests Docker reports, in Docker's familiar form
//! (`nginx:1`, `bitnami/etcd:3.5`: no `docker.io/`, no `library/` before a
//! one-part path), every one of them whatever the pull.

pub mod flags;
pub mod labels;

use super::{Facts, Held, Known, Model, ReadConfig, RegistryImage, Speak, StoredName, StoredNames, Unread, WriteList};
use crate::causes::Causes;
use crate::codes::CauseCode;
use crate::codes::LintCode;
use crate::error::InputError;
use crate::findings::{not_utf8, Add, Artifacts, Compared, Containment, Fix, Rules, Severity};
use crate::images;
use crate::images::{Image, LabelListing, Name, Naming};
use crate::labels::{LabelPin, LabelSelector};
use crate::list::Resolved;
use crate::list::{Entry, Warning};
use crate::refused::{self, is_control, List, Refusals};
use crate::show;
use crate::sources::Sources;
use crio_pin::pattern::{ErrorKind, Pattern};
use crio_pin::{Flags, PinSet};

pub struct CriDockerd;

/// The runtime, as messages name it.
const NAME: &str = "cri-dockerd";

pub const FACTS: Facts = Facts {
    flags: Flags::CRI_DOCKERD,
    modes: Flags::DEFAULT,
    option: "cri-dockerd",
    name: NAME,
    rules: "exact references, bare repositories and anchored prefixes, compared case-sensitively",
    help: "cri-dockerd (prefixes, bare repositories, Docker's familiar names)",
    // Docker pulls for it.
    puller: "Docker",
    refuser: NAME,
    stock_refuser: NAME,
    on_not_utf8: "cri-dockerd's configuration cannot hold it, and the library refuses the list",
    unread: Unread {
        config: Some(NO_FILES),
        config_dir: Some(NO_FILES),
        pinned_images: None,
        pause_image: Some(
            "cri-dockerd pins its sandbox image (--pod-infra-container-image) on its own, by repoTag: add it to \
             --pinned-images to see it here",
        ),
    },
    pins_image_ids: false,
    cri_endpoint: Some("unix:///run/cri-dockerd.sock"),
};

/// Its list is its command line's.
const NO_FILES: &str = "cri-dockerd has no configuration file: give its --pinned-images values with \
                        --pinned-images (one pattern each), or --patterns FILE";

impl Known for CriDockerd {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }
}

impl Refusals for CriDockerd {
    /// It reads its list only at start.
    fn on_refused(&self, kind: &ErrorKind, _list: List) -> String {
        refused::refused_at_start(kind, self.facts().refuser)
    }
}

impl ReadConfig for CriDockerd {
    fn lint_rules<'a>(&self, _: Flags, _: Option<&'a Artifacts>) -> Box<dyn Rules + 'a> {
        Box::new(CriDockerdRules)
    }

    fn read_config(&self, sources: &Sources) -> Result<Resolved, InputError> {
        flags::read(&sources.pinned_images)
    }

    fn label_selectors(&self, values: &[String]) -> Result<(Vec<LabelSelector>, Vec<Warning>), InputError> {
        labels::read(values)
    }
}

impl StoredNames for CriDockerd {
    /// The familiar name Docker reports (`nginx:latest`, `bitnami/etcd:3.5`).
    fn naming(&self) -> Naming {
        Naming {
            pulled_as: |name| {
                let normal = images::normalized(name).map_err(str::to_string)?;
                Ok(images::familiar(&normal).map_or_else(|| normal.clone(), str::to_string))
            },
            image_id_record: false,
            lists_artifacts: false,
            digest_beside_tag: true,
            label_listing: Some(LabelListing::DockerInspect),
            compared_as: |name| name,
            pin_labels: None,
        }
    }

    fn label_pin(&self, image: &Image, selectors: &[LabelSelector]) -> Option<LabelPin> {
        labels::label_pin(image, selectors)
    }

    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let names = image.tags.iter().chain(&image.digests);
        names.map(|n| StoredName { text: self.stored_form(n).to_owned(), held: Held::Always }).collect()
    }

    fn stored_form<'a>(&self, reference: &'a str) -> &'a str {
        crate::images::familiar(reference).unwrap_or(reference)
    }

    /// Docker's familiar `redis:7` is docker.io/library/redis:7, and its
    /// `docker.io/library/redis:7` would be docker.io/docker.io/library/redis:7,
    /// an image no one can pull (`images::can_exist`): it names none.
    fn images_named(&self, name: &str) -> Vec<String> {
        [images::normalized(name), images::normalized(&format!("docker.io/{name}"))]
            .into_iter()
            .filter_map(Result::ok)
            .filter(|r| images::can_exist(r) && self.stored_form(r) == name)
            .collect()
    }
}

impl WriteList for CriDockerd {
    fn writes_exactly(&self, name: &str) -> bool {
        matches!(Pattern::parse(name, Flags::CRI_DOCKERD), Ok(Pattern::Exact(_) | Pattern::Repository(_)))
    }

    fn write_prefix(&self, prefix: &str, _anchored: bool) -> Result<Vec<String>, String> {
        // Docker reports Docker Hub names in their short form.
        let short = self.stored_form(prefix);
        Ok(vec![format!("{}*", if short.is_empty() { prefix } else { short })])
    }

    fn write_keyword(&self, word: &str) -> Result<Vec<String>, String> {
        // "**" pins every name: cri-dockerd's lone '*'.
        match word {
            "" => Ok(vec!["*".to_owned()]),
            _ => Err("cri-dockerd has no keyword (\"*word*\")".into()),
        }
    }

    /// cri-dockerd's values, one a line, then as the one flag value that
    /// cri-dockerd splits into them.
    fn write_list(&self, patterns: &[(&Entry, &str)]) -> String {
        let mut out =
            String::from("# cri-dockerd's values, one a line: --pinned-images VALUE each, or crio-pin --patterns\n");
        for (_, p) in patterns {
            out.push_str(p);
            out.push('\n');
        }
        let values: Vec<&str> = patterns.iter().map(|(_, p)| *p).collect();
        match flags::flag_value(&values) {
            Some(value) => {
                // Quoted for a shell or a systemd unit: a '*' must reach cri-dockerd.
                let plain = value.bytes().all(|b| b.is_ascii_alphanumeric() || b",./:@=_-".contains(&b));
                let value = if plain { value } else { format!("'{}'", value.replace('\'', "'\\''")) };
                out.push_str(&format!(
                    "# or as one flag, which cri-dockerd splits at its commas:\n# --pinned-images={value}\n"
                ));
            }
            None => out.push_str("# (no one flag holds them: a value has a line break)\n"),
        }
        out
    }
}

impl Speak for CriDockerd {
    fn stored_as_note(&self, stored: &str) -> String {
        format!("is reported by Docker as {stored} (its familiar name, which cri-dockerd compares)")
    }

    /// cri-dockerd reads its flags only at start, and pins by more than
    /// --pinned-images.
    fn likely_causes(&self, causes: &mut Causes<'_>, at: usize, image: &Image, runtime_pins: bool, _: Option<&Name>) {
        causes.push(CauseCode::NotRestarted, 0, at, || {
            "cri-dockerd reads --pinned-images only when it starts: its flags changed since (systemctl \
             restart cri-docker)"
                .to_string()
        });
        if runtime_pins {
            if image.names.iter().any(|n| n.is_tag) {
                causes.push(CauseCode::SandboxImage, 0, at, || {
                    "cri-dockerd pins its sandbox image (--pod-infra-container-image) by repoTag, whatever \
                     --pinned-images says: add it to the list read here to see it"
                        .to_string()
                });
            }
            let (selectors, labels) = (&causes.resolved.label_selectors, image.labels.is_some());
            causes.push(CauseCode::LabelSelector, 0, at, || {
                let missing = match (labels, selectors.is_empty()) {
                    (false, true) => {
                        "give them with --pinned-image-labels, and the images' labels with --images \
                                      of `docker image inspect`"
                    }
                    (false, false) => "give the images' labels with --images of `docker image inspect`",
                    (true, true) => "give them with --pinned-image-labels",
                    (true, false) => "it runs with other selectors than given here",
                };
                format!(
                    "cri-dockerd runs with --pinned-image-labels that select the image by a label of its config: \
                     {missing}"
                )
            });
        }
        causes.push(CauseCode::OtherSources, 0, at, || {
            "cri-dockerd runs with other --pinned-images than given here".to_string()
        });
    }
}

impl Model for CriDockerd {
    /// cri-dockerd's matcher, over the names Docker reports for a pull:
    /// its tag and its digest in Docker's familiar form
    /// (reference.FamiliarString, written here from its rules rather than
    /// by the tool's `images::familiar`).
    #[cfg(test)]
    fn oracle(&self, list: &[String]) -> Box<dyn super::Oracle> {
        use crio_pin::oracle::cri_dockerd::CriDockerdReference;
        struct Oracle(CriDockerdReference);
        fn familiar(name: &str) -> String {
            let Some(rest) = name.strip_prefix("docker.io/") else { return name.to_owned() };
            match rest.strip_prefix("library/") {
                Some(path) if !path.split(['@', ':']).next().unwrap().contains('/') => path.to_owned(),
                _ => rest.to_owned(),
            }
        }
        impl super::Oracle for Oracle {
            fn pins(&self, pull: &super::Pull) -> bool {
                let names = pull.tag.iter().chain([&pull.digest]);
                names.into_iter().any(|n| self.0.pinned(familiar(n).as_bytes()).is_some())
            }
        }
        let bytes: Vec<&[u8]> = list.iter().map(|s| s.as_bytes()).collect();
        Box::new(Oracle(CriDockerdReference::compile(&bytes)))
    }
}
/// cri-dockerd's `--pinned-images` (PR #571): each value trimmed, then a
/// trailing `*` makes an anchored prefix, a tag or digest an exact name,
/// anything else a bare repository; compared with the familiar names
/// Docker reports (`nginx:1.25`), case-sensitively.
pub struct CriDockerdRules;

impl Rules for CriDockerdRules {
    fn containment(&self, entries: &[Entry]) -> Option<Containment> {
        let parsed: Vec<Option<Pattern<'_>>> = entries
            .iter()
            .map(|e| std::str::from_utf8(&e.text).ok().and_then(|t| Pattern::parse(t, Flags::CRI_DOCKERD).ok()))
            .collect();
        Some(containment(&parsed))
    }

    fn entry<'e>(&self, entry: &'e Entry, _list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let parsed = std::str::from_utf8(&entry.text).ok().and_then(|t| Pattern::parse(t, Flags::CRI_DOCKERD).ok());
        let Some(pattern) = parsed else {
            if let Err(e) = std::str::from_utf8(&entry.text) {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(e.valid_up_to(), FACTS.on_not_utf8), None);
            }
            return None;
        };
        let literal = pattern.text();
        match pattern {
            Pattern::Blank => {
                add(
                    Severity::Warning,
                    LintCode::Empty,
                    "a blank value, which cri-dockerd ignores (it trims every value): remove it".to_string(),
                    Some(Fix::Remove { covered_by: None }),
                );
                return None;
            }
            Pattern::Glob("") => add(
                Severity::Warning,
                LintCode::PinsEverything,
                "\"*\" is the prefix of every name: it pins every image on the node, untagged ones too, and \
             the kubelet's garbage collection will never free disk space"
                    .to_string(),
                None,
            ),
            _ => {}
        }
        cri_dockerd_text_findings(literal, add);
        cri_dockerd_name_findings(pattern, add);
        // As cri-dockerd reads them: trimmed; a prefix is not the same
        // pattern as its text alone.
        let kind = match pattern {
            Pattern::Glob(_) => 1,
            Pattern::Repository(_) => 2,
            _ => 0,
        };
        let key = [&[kind][..], literal.as_bytes()].concat();
        Some(Compared { key, pattern: Some(pattern) })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        format!(
            "same pattern as {first} ({}) once cri-dockerd trims it; remove one",
            show::quote(&entries[first].display())
        )
    }
}

/// Which earlier patterns pin a superset of a later one's names under
/// cri-dockerd's rules: its prefixes (anchored; `*` alone is every name)
/// and bare repositories, asked of a set compiled under them.
fn containment(parsed: &[Option<Pattern<'_>>]) -> Containment {
    let build = |repositories: bool| {
        let mut texts = Vec::new();
        let mut indexes = Vec::new();
        for (i, p) in parsed.iter().enumerate() {
            let text = match p {
                Some(Pattern::Glob(g)) => format!("{g}*"),
                Some(Pattern::Repository(r)) if repositories => r.to_string(),
                _ => continue,
            };
            texts.push(text);
            indexes.push(i);
        }
        if texts.is_empty() {
            return None;
        }
        PinSet::compile(&texts, Flags::CRI_DOCKERD).ok().map(|set| (set, indexes))
    };
    Containment { all: build(true), keywords: None, globs: build(false) }
}

/// cri-dockerd: characters no name Docker reports has (a comma, a '*'
/// that is not the trailing one, whitespace inside).
pub fn cri_dockerd_text_findings(literal: &str, add: &mut Add<'_>) {
    if literal.contains(',') {
        let parts = flags::split_flag_value(literal);
        let what = match &parts {
            Ok(parts) => {
                let quoted: Vec<String> = parts.iter().map(|p| show::quote(p.trim())).collect();
                format!("cri-dockerd splits it into the {} patterns {}", parts.len(), quoted.join(", "))
            }
            Err(why) => format!("cri-dockerd refuses to start on it ({why})"),
        };
        add(
            Severity::Warning,
            LintCode::CommaList,
            format!(
                "a comma: no image name has one, so as one pattern this pins nothing; cri-dockerd's \
             --pinned-images is a comma-separated list (a pflag StringSlice, read as CSV), and given as \
             a flag value {what}: write each part as its own value"
            ),
            None,
        );
    }
    if let Some(at) = literal.find('*') {
        add(
            Severity::Warning,
            LintCode::LiteralStar,
            format!(
                "the '*' at byte {at} of {} is a literal character: cri-dockerd has no keyword or suffix \
             match (only one trailing '*' is a wildcard, a prefix), and no name Docker reports \
             contains a '*'",
                show::quote(literal)
            ),
            None,
        );
    } else if let Some((at, ch)) = literal.char_indices().find(|&(_, c)| c.is_whitespace() && !is_control(c)) {
        add(
            Severity::Warning,
            LintCode::Whitespace,
            format!(
                "{ch:?} (U+{:04X}) at byte {at} of {}: cri-dockerd trims only a value's ends, and no name \
             Docker reports holds whitespace, so this pins nothing it was meant to: remove it",
                u32::from(ch),
                show::quote(literal)
            ),
            None,
        );
    }
}

/// cri-dockerd: names it compares otherwise than they read (a prefix that
/// reaches past a repository, a Docker Hub name Docker never reports).
pub fn cri_dockerd_name_findings(pattern: Pattern<'_>, add: &mut Add<'_>) {
    let literal = pattern.text();
    if let Pattern::Glob(prefix) = pattern {
        // A prefix that ends inside a repository's name: `nginx*` pins
        // `nginx-exporter` too. (One that ends at a '/', '-', ':', …,
        // or in a tag, reads as meant.)
        let last = prefix.rsplit('/').next().unwrap_or_default();
        let cut_in_name = prefix.ends_with(|c: char| c.is_ascii_alphanumeric())
            && !last.contains(':')
            && !prefix.contains('@')
            && !prefix.contains('*');
        if cut_in_name {
            // (As Docker reports it: see not-familiar below.)
            let repository = images::familiar(prefix).filter(|f| !f.is_empty()).unwrap_or(prefix);
            add(
                Severity::Warning,
                LintCode::RepositoryPrefix,
                format!(
                    "a prefix: this pins every name that starts with {}, e.g. {} too, not only the \
                 repository {}; write the bare repository {} to pin its every tag and digest",
                    show::quote(prefix),
                    show::quote(&format!("{prefix}-exporter:1")),
                    show::quote(prefix),
                    show::quote(repository)
                ),
                Some(Fix::Write(repository.to_string())),
            );
        }
    }
    if let Some(short) = images::familiar(literal) {
        let glob = matches!(pattern, Pattern::Glob(_));
        let instead = match (short, glob) {
            ("", _) => None,
            (short, true) => Some(format!("{short}*")),
            (short, false) => Some(short.to_string()),
        };
        let write = instead.as_ref().map(|i| format!("; write {}", show::quote(i))).unwrap_or_default();
        add(
            Severity::Warning,
            LintCode::NotFamiliar,
            format!(
                "pins nothing: Docker reports an image of Docker Hub by its familiar name, without \
             docker.io/ (and library/ before a one-part name: nginx:1.25, bitnami/etcd:3.5), and \
             cri-dockerd compares with those names{write}"
            ),
            instead.map(Fix::Write),
        );
    }
}
