//! The kubelet in the tool: not a runtime, but the fourth list that decides
//! whether a pinned image is usable when a pod needs it. Since Kubernetes
//! 1.35 (`KubeletEnsureSecretPulledImages`, beta, on by default) the
//! kubelet checks a pod's pull credentials before it lets the pod use an
//! image already on the node; for an image it did not pull itself (one a
//! node image, an installer or an operator put there: "preloaded") it checks
//! by pulling it again, so on a node that cannot reach the registry the pod
//! fails although the image is pinned. Whether it checks is its
//! `imagePullCredentialsVerificationPolicy`
//! ([`Policy`]), and under `NeverVerifyAllowlistedImages` its
//! `preloadedImagesVerificationAllowlist`: this module's list, read from
//! the KubeletConfiguration (`config`).
//!
//! The allowlist's rules (kubernetes `pkg/kubelet/images/pullmanager/
//! image_pull_policies.go`, read at commit 19621c1c7b01, after PR 137629):
//! an entry is a repository written in full without tag or digest
//! (`docker.io/library/nginx`), or a prefix ending in `/*`; every other
//! entry refuses the whole configuration ([`refusal`]). The name compared
//! is the pod's image normalised, without tag or digest: its repository
//! ([`Model::stored_names`]), equal to an exact entry or starting with a
//! prefix (the prefix keeps its `/`), case-sensitively. The library
//! matches them as CRI-O's syntax with anchored globs and case compared:
//! an accepted entry is an exact name or a glob that ends in `/*`, the
//! kubelet's meaning exactly (the flags add NORMALIZE, which changes
//! nothing for these names and tells the kubelet's flags from CRI-O's
//! modes).

pub mod config;
pub mod records;
pub mod verify;

use super::{Facts, Held, Known, Model, ReadConfig, RegistryImage, Speak, StoredName, StoredNames, Unread, WriteList};
use crate::causes::Causes;
use crate::codes::{CauseCode, LintCode};
use crate::error::InputError;
use crate::findings::{not_utf8, Add, Artifacts, Compared, Fix, Rules, Severity};
use crate::images::{self, Image, Name, Naming};
use crate::list::{Entry, Resolved};
use crate::refused::{self, List, Refusals};
use crate::show;
use crate::sources::Sources;
use crio_pin::pattern::{ErrorKind, Pattern};
use crio_pin::Flags;

pub struct Kubelet;

/// The list, as messages name it.
const NAME: &str = "the kubelet's allowlist";

/// The feature gate of credential verification.
pub const FEATURE_GATE: &str = "KubeletEnsureSecretPulledImages";

pub const FACTS: Facts = Facts {
    flags: Flags::KUBELET,
    modes: Flags::DEFAULT,
    option: "kubelet",
    name: NAME,
    rules: "exact repositories without tag or digest, and prefixes ending in /*, compared case-sensitively with \
            the image's normalised repository",
    help: "kubelet (no runtime: its preloadedImagesVerificationAllowlist, read from --config, default \
           /var/lib/kubelet/config.yaml, and --config-dir)",
    puller: "the kubelet",
    refuser: "the kubelet",
    stock_refuser: "the kubelet",
    on_not_utf8: "the kubelet's YAML decoder refuses the file",
    unread: Unread {
        config: None,
        config_dir: None,
        pinned_images: Some(NOT_A_RUNTIME),
        pause_image: Some(NOT_A_RUNTIME),
    },
    pins_image_ids: false,
    // It answers no CRI: it is the runtimes' client.
    cri_endpoint: None,
};

const NOT_A_RUNTIME: &str = "the kubelet's allowlist is read from its KubeletConfiguration (--config FILE, \
                             --config-dir DIR), or --patterns FILE";

/// `imagePullCredentialsVerificationPolicy`: when the kubelet checks a
/// pod's credentials for an image already on the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    NeverVerify,
    NeverVerifyPreloadedImages,
    NeverVerifyAllowlistedImages,
    AlwaysVerify,
}

impl Policy {
    pub const ALL: [Policy; 4] = [
        Policy::NeverVerify,
        Policy::NeverVerifyPreloadedImages,
        Policy::NeverVerifyAllowlistedImages,
        Policy::AlwaysVerify,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Policy::NeverVerify => "NeverVerify",
            Policy::NeverVerifyPreloadedImages => "NeverVerifyPreloadedImages",
            Policy::NeverVerifyAllowlistedImages => "NeverVerifyAllowlistedImages",
            Policy::AlwaysVerify => "AlwaysVerify",
        }
    }
}

/// Why the kubelet refuses `entry` (and with it its configuration: it does
/// not start), in its words, and what to write instead; None when it takes
/// it. As `getAllowlistImagePattern` decides.
pub fn refusal(entry: &str) -> Option<String> {
    if entry != entry.trim() {
        return Some(format!(
            "leading/trailing spaces are not allowed: {}: write {}",
            show::quote(entry),
            show::quote(entry.trim())
        ));
    }
    let prefix = entry.strip_suffix('*').filter(|p| p.ends_with('/'));
    let trimmed = prefix.unwrap_or(entry);
    if trimmed.is_empty() {
        return Some("the supplied pattern is too short: \"\": remove it".into());
    }
    if trimmed.contains('*') {
        let wider = trimmed.find('*').and_then(|at| trimmed[..at].rfind('/')).map(|slash| &trimmed[..=slash]);
        let instead = match wider.filter(|w| *w != "/") {
            Some(w) => format!(
                "{}, the nearest wider entry (or list the repositories it means)",
                show::quote(&format!("{w}*"))
            ),
            None => "the repositories it means, each in full".into(),
        };
        return Some(format!(
            "not a valid wildcard pattern, only patterns ending with '/*' are allowed: {}: write {instead}",
            show::quote(entry)
        ));
    }
    match prefix {
        Some("/") => Some("at least registry hostname is required: \"/*\": write HOST/* for each registry".into()),
        Some(_) => None,
        None => match images::normalized(trimmed) {
            Err(why) => Some(format!(
                "failed to parse as an image name: {} ({why}): write a repository such as docker.io/library/nginx",
                show::quote(entry)
            )),
            Ok(normal) if images::repository(&normal) != trimmed => Some(format!(
                "neither tag nor digest is accepted in an image reference: {}: write {} (its repository, in full; \
                 every tag and digest of it is covered)",
                show::quote(entry),
                show::quote(images::repository(&normal))
            )),
            Ok(_) => None,
        },
    }
}

impl Known for Kubelet {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }
}

impl Refusals for Kubelet {
    /// It reads its list only at start.
    fn on_refused(&self, kind: &ErrorKind, _list: List) -> String {
        refused::refused_at_start(kind, self.facts().refuser)
    }

    /// Its exact entries are normalised (the flags' NORMALIZE): the library
    /// refuses one that is no reference, as the kubelet does.
    fn refused_says(&self, kind: &ErrorKind) -> Option<(String, String)> {
        let ErrorKind::InvalidReference { why } = kind else { return None };
        Some((
            format!("failed to parse as an image name ({why}): the kubelet does not start"),
            "write a repository in full, such as docker.io/library/nginx, or a prefix ending in /*".to_owned(),
        ))
    }
}

impl ReadConfig for Kubelet {
    fn lint_rules<'a>(&self, _: Flags, _: Option<&'a Artifacts>) -> Box<dyn Rules + 'a> {
        Box::new(KubeletRules)
    }

    fn read_config(&self, sources: &Sources) -> Result<Resolved, InputError> {
        config::read(sources.config.as_deref(), sources.config_dir.as_deref()).map(|k| k.allowlist)
    }

    fn refuses(&self, text: &str) -> Option<String> {
        refusal(text)
    }

    /// An exact entry is a repository: every tag and digest of it.
    fn parse<'t>(&self, text: &'t str, flags: Flags) -> Result<Pattern<'t>, ErrorKind> {
        match Pattern::parse(text, flags)? {
            Pattern::Exact(repository) => Ok(Pattern::Repository(repository)),
            other => Ok(other),
        }
    }
}

impl StoredNames for Kubelet {
    fn naming(&self) -> Naming {
        Naming {
            pulled_as: |name| images::normalized(name).map_err(str::to_string),
            image_id_record: false,
            lists_artifacts: false,
            digest_beside_tag: true,
            label_listing: None,
            compared_as: images::repository,
            pin_labels: None,
        }
    }

    /// The repositories of its names: a pod names the image by one of them.
    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let mut names: Vec<StoredName> = Vec::new();
        for reference in image.tags.iter().chain(&image.digests) {
            let text = images::repository(reference).to_owned();
            if !names.iter().any(|n| n.text == text) {
                names.push(StoredName { text, held: Held::Always });
            }
        }
        names
    }

    fn stored_form<'a>(&self, reference: &'a str) -> &'a str {
        images::repository(reference)
    }

    /// An entry names the repository's images.
    fn images_named(&self, name: &str) -> Vec<String> {
        images::normalized(name).into_iter().filter(|r| images::can_exist(r)).collect()
    }
}

impl WriteList for Kubelet {
    fn writes_exactly(&self, name: &str) -> bool {
        !name.ends_with('*') && refusal(name).is_none()
    }

    /// Its prefixes end at a `/`: a prefix that does not is widened to its
    /// last one.
    fn write_prefix(&self, prefix: &str, _anchored: bool) -> Result<Vec<String>, String> {
        let Some(slash) = prefix.rfind('/').filter(|&at| at > 0) else {
            return Err(format!(
                "{NAME} has prefixes only up to a '/' after a registry host (HOST/*): {} has none, so no entry \
                 covers it short of one HOST/* per registry",
                show::quote(&format!("{prefix}*"))
            ));
        };
        let entry = format!("{}*", &prefix[..=slash]);
        match refusal(&entry) {
            Some(why) => Err(format!("the kubelet refuses the nearest entry {}: {why}", show::quote(&entry))),
            None => Ok(vec![entry]),
        }
    }

    fn write_keyword(&self, word: &str) -> Result<Vec<String>, String> {
        Err(format!(
            "{NAME} has no keyword (\"*{word}*\" matches anywhere in a name): the nearest wider entries are one \
             HOST/* for each registry whose images it should cover"
        ))
    }

    /// An exact entry is a repository: its every tag and digest.
    fn write_repository(&self, repository: &str) -> Result<Vec<String>, String> {
        match refusal(repository) {
            Some(why) => Err(why),
            None => Ok(vec![repository.to_owned()]),
        }
    }

    /// A drop-in for the kubelet's `--config-dir`, or a part to merge into
    /// its configuration file.
    fn write_list(&self, patterns: &[(&Entry, &str)]) -> String {
        let mut out = String::from(
            "# The kubelet's allowlist: a drop-in for its --config-dir (e.g. 90-pinned.conf), or merge these keys\n\
             # into its KubeletConfiguration. Entries are repositories: each covers every tag and digest.\n\
             apiVersion: kubelet.config.k8s.io/v1beta1\n\
             kind: KubeletConfiguration\n\
             imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
             preloadedImagesVerificationAllowlist:\n",
        );
        let mut seen = std::collections::HashSet::new();
        for (_, p) in patterns {
            if seen.insert(*p) {
                out.push_str(&format!("- {}\n", serde_json::Value::String((*p).to_owned())));
            }
        }
        out
    }
}

impl Speak for Kubelet {
    fn stored_as_note(&self, stored: &str) -> String {
        format!("is compared by the kubelet as {stored} (the pod's image normalised, without tag or digest)")
    }

    fn list_note(&self) -> Option<&'static str> {
        Some(
            "the kubelet checks a pod's credentials for an image it did not pull only under AlwaysVerify, or under \
             NeverVerifyAllowlistedImages for an image this list does not cover; setting that policy also makes it \
             check every image outside the list, those it pulled included",
        )
    }

    fn likely_causes(&self, causes: &mut Causes<'_>, at: usize, _: &Image, _: bool, _: Option<&Name>) {
        causes.push(CauseCode::OtherRules, 0, at, || {
            "the kubelet's allowlist pins nothing: crictl's pinned flag is the container runtime's; compare with \
             --runtime set to the node's runtime, and use lint --kubelet-config for the allowlist"
                .to_string()
        });
    }
}

impl Model for Kubelet {
    /// The kubelet's allowlist, over the references a pod may name the
    /// image by (it compares the one the pod names); a list it refuses
    /// covers nothing, as the kubelet does not start with it.
    #[cfg(test)]
    fn oracle(&self, list: &[String]) -> Box<dyn super::Oracle> {
        use crio_pin::oracle::kubelet::KubeletAllowlist;
        struct Oracle(Option<KubeletAllowlist>);
        impl super::Oracle for Oracle {
            fn pins(&self, pull: &super::Pull) -> bool {
                let mut references = pull.tag.iter().chain([&pull.digest]);
                self.0.as_ref().is_some_and(|l| references.any(|r| l.covers(r)))
            }
        }
        Box::new(Oracle(KubeletAllowlist::compile(&list.iter().map(String::as_str).collect::<Vec<_>>()).ok()))
    }
}

/// The allowlist's rules: what the kubelet refuses, and prefixes no image's
/// normalised name can start with.
pub struct KubeletRules;

impl Rules for KubeletRules {
    fn entry<'e>(&self, entry: &'e Entry, _list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let text = match std::str::from_utf8(&entry.text) {
            Ok(text) => text,
            Err(e) => {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(e.valid_up_to(), FACTS.on_not_utf8), None);
                return None;
            }
        };
        if let Some(why) = refusal(text) {
            add(Severity::Error, LintCode::KubeletRefuses, format!("the kubelet does not start: {why}"), None);
            return None;
        }
        if let Some(prefix) = text.strip_suffix('*') {
            let host = prefix.split('/').next().unwrap_or_default();
            let normal = images::normalized(&format!("{prefix}x")).ok();
            let kept = normal.as_deref().is_some_and(|n| n.starts_with(prefix));
            if !kept {
                let meant = normal.map(|n| format!("{}*", &n[..n.len() - "x:latest".len()]));
                let write = meant.as_ref().map(|m| format!(": write {}", show::quote(m))).unwrap_or_default();
                add(
                    Severity::Warning,
                    LintCode::NotNormalized,
                    format!(
                        "covers nothing: the kubelet compares each image's normalised name, which never starts with \
                         {} ({} is not a registry host as normalisation keeps it){write}",
                        show::quote(prefix),
                        show::quote(host)
                    ),
                    meant.map(Fix::Write),
                );
            }
        }
        let parsed = Pattern::parse(text, FACTS.flags).ok();
        Some(Compared { key: entry.text.clone(), pattern: parsed })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        format!("same entry as {first} ({}); remove one", show::quote(&entries[first].display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;
    use crate::runtimes::{pinned, Pinned};
    use crio_pin::oracle::kubelet::KubeletAllowlist;
    use crio_pin::PinSet;

    /// Entries and images of every shape the kubelet reads differently:
    /// short and full names, tags, digests, prefixes at and inside a
    /// component, upper case in hosts, paths and tags.
    const ENTRIES: &[&str] = &[
        "docker.io/library/nginx",
        "nginx",
        "docker.io/nginx",
        "quay.io/team/app",
        "quay.io/team/app:1",
        "QUAY.IO/team/app",
        "quay.io/Team/app",
        "quay.io/team/*",
        "quay.io/team*",
        "quay.io/*",
        "nginx/*",
        "docker.io/*",
        "index.docker.io/*",
        "/*",
        "*",
        " quay.io/a",
        "quay.io/*/app",
        "localhost:5000/a/*",
    ];
    const IMAGES: &[&str] = &[
        "docker.io/library/nginx:1",
        "docker.io/library/nginx:V1",
        "docker.io/nginx/x:1",
        "quay.io/team/app:1",
        "quay.io/team/app:V1",
        "QUAY.IO/team/app:v1",
        "quay.io/team/sub/app:1",
        "quay.io/teamx/app:1",
        "quay.io/team:1",
        "localhost:5000/a/b:1",
        "mirror.example/quay.io/team/app:1",
    ];

    #[test]
    fn the_kubelet_refuses_what_its_code_refuses() {
        for entry in ENTRIES {
            let oracle = KubeletAllowlist::compile(&[entry]);
            assert_eq!(
                refusal(entry).is_none(),
                oracle.is_ok(),
                "{entry:?}: {:?} / {:?}",
                refusal(entry),
                oracle.err()
            );
        }
    }

    #[test]
    fn an_entry_covers_the_images_its_code_covers() {
        for entry in ENTRIES.iter().filter(|e| refusal(e).is_none()) {
            let oracle = KubeletAllowlist::compile(&[entry]).unwrap();
            let set = PinSet::compile([entry], FACTS.flags).unwrap();
            for name in IMAGES {
                let image = RegistryImage::pulled_as(&images::normalized(name).unwrap());
                let tool = pinned(&set, Runtime::Kubelet, &image) == Pinned::Yes;
                assert_eq!(tool, oracle.covers(name), "{entry:?} over {name:?}");
            }
        }
    }
}
