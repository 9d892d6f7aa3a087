//! Whether the kubelet lets a pod use a pinned image without pulling it
//! again: the runtime's list set beside the kubelet's configuration, for
//! `lint --kubelet-config` (each pin the kubelet would verify, with the
//! allowlist entry that would spare it, and the entries no pin needs) and
//! `explain --kubelet-config` (each image).
//!
//! As `MustAttemptImagePull` and the policies of `image_pull_policies.go`
//! decide for an image the kubelet did not pull itself (what pins usually
//! are: a node image's, an installer's, an operator's pre-pull): it is
//! verified under `AlwaysVerify`, and under `NeverVerifyAllowlistedImages`
//! unless the allowlist covers the name the pod gives; it has no record of
//! credentials, so verifying it is a pull. With the feature gate off, or
//! under `NeverVerify` or `NeverVerifyPreloadedImages`, it is not.

use crio_pin::{Flags, PinSet};
use serde::Serialize;

use super::config::KubeletConfig;
use super::records::{Lookup, Preloaded, Records};
use super::Policy;
use crate::codes::LintCode;
use crate::findings::{Finding, Severity};
use crate::images;
use crate::list::Entry;
use crate::refused::{self, List};
use crate::runtime::Runtime;
use crate::runtimes::{self, Pinned, RegistryImage};
use crate::show;
use crate::translate::{self, Fidelity, Unwritten};

/// The kubelet's configuration, compiled, and its pull records when given.
pub struct Verifier {
    pub config: KubeletConfig,
    set: PinSet,
    records: Option<Records>,
}

/// What the kubelet does before a pod uses one preloaded image.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// It pulls the image again to check the pod's credentials.
    pub verified: bool,
    /// Under NeverVerifyAllowlistedImages, the allowlist covers every name
    /// a pod may give it: the kubelet trusts it as preloaded.
    pub allowlisted: bool,
    /// With --kubelet-root-dir: the image's pull record, which makes it an
    /// image the kubelet pulled, no longer preloaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pull_record: Option<String>,
    /// The runtime's sandbox image (CRI-O's `pause_image`, containerd's
    /// `sandbox`): the runtime runs it for a pod's sandbox, the kubelet
    /// never pulls it for a pod's container, so nothing here applies to it
    /// (as `lint` exempts its entry).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sandbox: bool,
    /// Why, in a sentence.
    pub why: String,
    /// The allowlist entry that covers it, as written, and where (a table's
    /// cells; `why` says it in the JSON).
    #[serde(skip)]
    pub allowlisted_by: Option<(String, String)>,
}

impl Verdict {
    /// The runtime's sandbox image: the kubelet never pulls it for a pod.
    pub fn sandbox_image() -> Verdict {
        Verdict {
            sandbox: true,
            why: "the runtime's sandbox image (its pause image): the runtime runs it for each pod's sandbox, the \
                  kubelet never pulls it for a pod's container"
                .into(),
            ..Verdict::default()
        }
    }
}

impl Verifier {
    pub fn new(config: KubeletConfig, records: Option<Records>) -> Verifier {
        let texts: Vec<&[u8]> = config.allowlist.entries.iter().map(|e| e.text.as_slice()).collect();
        // Every entry passed the kubelet's own checks: the library takes them.
        let set = PinSet::compile(texts, super::FACTS.flags).expect("entries the kubelet accepts compile");
        Verifier { config, set, records }
    }

    /// Whether the verdicts read the kubelet's pull records.
    pub fn reads_records(&self) -> bool {
        self.records.is_some()
    }

    /// The policy as the kubelet applies it, with where it was set.
    pub fn policy(&self) -> String {
        if !self.config.gate {
            return format!("{} off ({})", super::FEATURE_GATE, self.config.gate_at);
        }
        format!("{} ({})", self.config.policy.as_str(), self.config.policy_at)
    }

    /// Whether policy alone decides, and how: None when the allowlist does.
    fn by_policy(&self) -> Option<Verdict> {
        let policy = self.policy();
        let spared = |why: &str| Some(Verdict { why: format!("{policy}: {why}"), ..Verdict::default() });
        match self.config.policy {
            _ if !self.config.gate => spared("the kubelet checks no credentials"),
            Policy::NeverVerify => spared("the kubelet checks no credentials for an image on the node"),
            Policy::NeverVerifyPreloadedImages => spared(
                "an image the kubelet did not pull is used unverified (one it pulled is checked against the \
                 credentials it recorded)",
            ),
            Policy::AlwaysVerify => Some(Verdict {
                verified: true,
                why: format!("{policy}: the kubelet pulls every image again to check a pod's credentials"),
                ..Verdict::default()
            }),
            Policy::NeverVerifyAllowlistedImages => None,
        }
    }

    /// The allowlist entry that covers `repository`, by index.
    fn covering(&self, repository: &str) -> Option<usize> {
        self.set.match_index(repository.as_bytes())
    }

    fn entry(&self, index: usize) -> &Entry {
        &self.config.allowlist.entries[index]
    }

    /// For one image, which the runtime calls `image_ref` (its image ID):
    /// verified when a pod may name it by a repository the policy and the
    /// allowlist leave to be checked and, with pull records, that its
    /// record does not spare.
    pub fn image(&self, image: &RegistryImage, image_ref: Option<&str>) -> Verdict {
        let verdict = self.preloaded_image(image);
        match (&self.records, image_ref) {
            (Some(records), Some(image_ref)) if self.config.gate => {
                self.with_record(verdict, image, records, image_ref)
            }
            _ => verdict,
        }
    }

    /// The verdict for an image the kubelet did not pull itself.
    fn preloaded_image(&self, image: &RegistryImage) -> Verdict {
        if let Some(verdict) = self.by_policy() {
            return verdict;
        }
        let names = Runtime::Kubelet.model().stored_names(image);
        let uncovered: Vec<&str> =
            names.iter().map(|n| n.text.as_str()).filter(|n| self.covering(n).is_none()).collect();
        let verified = |why: String| Verdict { verified: true, why, ..Verdict::default() };
        match (uncovered.first(), names.first()) {
            (None, Some(first)) => {
                let e = self.entry(self.covering(&first.text).expect("every name is covered"));
                Verdict {
                    allowlisted: true,
                    why: format!("allowlisted by {} ({})", show::quote(&e.display()), e.source),
                    allowlisted_by: Some((e.display(), e.source.clone())),
                    ..Verdict::default()
                }
            }
            (Some(name), _) => verified(format!(
                "{}: no allowlist entry covers {}, so the kubelet pulls it again for a pod that names it so",
                self.policy(),
                show::quote(name)
            )),
            (None, None) => verified(format!("{}: it has no name to allowlist", self.policy())),
        }
    }

    /// `verdict` with what the image's pull record changes: read before
    /// the policy is applied (a record the kubelet cannot read makes it
    /// pull, whatever the policy), then, for each repository whose
    /// credentials the policy has checked (every one under AlwaysVerify
    /// and NeverVerifyPreloadedImages, where a record makes the image one
    /// the kubelet pulled; those the allowlist does not cover under
    /// NeverVerifyAllowlistedImages), the credentials it recorded.
    fn with_record(&self, verdict: Verdict, image: &RegistryImage, records: &Records, image_ref: &str) -> Verdict {
        let record = match records.lookup(image_ref) {
            Lookup::None => return verdict,
            Lookup::Unreadable { file, why } => {
                return Verdict {
                    verified: true,
                    pull_record: Some(file.clone()),
                    why: format!(
                        "its pull record {} cannot be read ({why}): the kubelet fails on it too and pulls the image \
                         again for every pod",
                        show::escape(&file)
                    ),
                    ..verdict
                }
            }
            Lookup::Record(record) => record,
        };
        let checked: Vec<String> = match self.config.policy {
            Policy::NeverVerify => Vec::new(),
            Policy::NeverVerifyAllowlistedImages => Runtime::Kubelet
                .model()
                .stored_names(image)
                .into_iter()
                .map(|n| n.text)
                .filter(|n| self.covering(n).is_none())
                .collect(),
            Policy::AlwaysVerify | Policy::NeverVerifyPreloadedImages => {
                Runtime::Kubelet.model().stored_names(image).into_iter().map(|n| n.text).collect()
            }
        };
        let file = show::escape(&record.file).into_owned();
        let mut pulled = Vec::new();
        for repository in &checked {
            match record.preloaded(repository) {
                Preloaded::ForEveryPod => {}
                Preloaded::OnlyWith(with) => pulled.push(format!(
                    "a pod naming it {} pulls it again unless it has {}",
                    show::quote(repository),
                    with.join(" or ")
                )),
                Preloaded::ForNoPod => pulled.push(format!(
                    "a pod naming it {} pulls it again (no credentials recorded for that name)",
                    show::quote(repository)
                )),
            }
        }
        let why = match (pulled.is_empty(), checked.is_empty()) {
            (_, true) => format!("{}; its pull record {file} does not change that", verdict.why),
            (true, false) => format!(
                "{}: its pull record {file} makes it an image the kubelet pulled, and says no credentials are \
                 needed: every pod uses it as it is",
                self.policy()
            ),
            (false, false) => format!(
                "{}: its pull record {file} makes it an image the kubelet pulled, no longer preloaded: {}",
                self.policy(),
                pulled.join("; ")
            ),
        };
        Verdict {
            verified: !pulled.is_empty() || (checked.is_empty() && verdict.verified),
            pull_record: Some(record.file),
            why,
            ..verdict
        }
    }

    /// `lint --kubelet-config`: each pattern of `entries` (the runtime's
    /// list, under `runtime`'s rules) whose images the kubelet verifies,
    /// and the allowlist's entries no pattern needs.
    pub fn lint(&self, runtime: Runtime, flags: Flags, entries: &[Entry]) -> Vec<Finding> {
        let mut out = Vec::new();
        let policy = self.by_policy();
        for (index, entry) in entries.iter().enumerate() {
            // The sandbox image is the runtime's own, not a pod's container image.
            if entry.is_pause_image() {
                continue;
            }
            let Ok(text) = std::str::from_utf8(&entry.text) else { continue };
            // What the pattern pins, as allowlist entries (none: it pins nothing).
            let written = match translate::translated_patterns(text, runtime, Runtime::Kubelet) {
                Ok(patterns) => Ok(patterns),
                Err(Unwritten { fidelity: Fidelity::Dropped, .. }) => continue,
                Err(Unwritten { why, .. }) => Err(why),
            };
            let message = match (&policy, &written) {
                (Some(v), _) if !v.verified => continue,
                (Some(v), Ok(covering)) => format!(
                    "{}; under NeverVerifyAllowlistedImages, the entries {} would spare the images this pins",
                    v.why,
                    quoted(covering)
                ),
                (Some(v), Err(why)) => format!("{}; no allowlist entry can spare them: {why}", v.why),
                (None, Ok(covering)) => {
                    let missing: Vec<&String> = covering.iter().filter(|c| !self.covers_entry(c)).collect();
                    if missing.is_empty() {
                        continue;
                    }
                    format!(
                        "{}: the kubelet pulls the images this pins again before a pod uses them (no allowlist \
                         entry covers {}), and on a node that cannot reach the registry the pod fails though the \
                         image is pinned: add {} to preloadedImagesVerificationAllowlist",
                        self.policy(),
                        show::quote(missing[0]),
                        quoted(&missing.into_iter().cloned().collect::<Vec<_>>())
                    )
                }
                (None, Err(why)) => format!(
                    "{}: the kubelet pulls the images this pins again before a pod uses them, and no allowlist entry \
                     can cover exactly them: {why}",
                    self.policy()
                ),
            };
            out.push(finding(index, entry, Severity::Warning, LintCode::VerifiedPin, message, written.ok()));
        }
        if policy.is_none() {
            for index in self.unpinned_entries(runtime, flags, entries) {
                let entry = self.entry(index);
                let message = "this allowlist entry covers no image the runtime's list pins: the kubelet uses \
                               the images it covers unverified, as preloaded, but the garbage collector may delete \
                               them, and a pod then needs a pull it may have no credentials for; pin them in the \
                               runtime's list, or remove the entry"
                    .to_owned();
                out.push(finding(index, entry, Severity::Warning, LintCode::AllowlistedUnpinned, message, None));
            }
        }
        out
    }

    /// Whether the allowlist covers every repository `written` (an entry
    /// `translate` writes for the kubelet) covers.
    fn covers_entry(&self, written: &str) -> bool {
        let texts = self.config.allowlist.entries.iter().filter_map(|e| std::str::from_utf8(&e.text).ok());
        texts.into_iter().any(|text| contains(text, written))
    }

    /// The allowlist's entries (by index) that cover no image the runtime's
    /// `entries` pin, under `runtime`'s rules and `flags`: judged by both
    /// lists' matchers over names, the witnesses `translate`'s labels are
    /// checked with, spelled from each entry and each pattern. A pinned
    /// exact name is its own witness (each pull of it), so a list of
    /// thousands of digests costs a few names each.
    pub fn unpinned_entries(&self, runtime: Runtime, flags: Flags, entries: &[Entry]) -> Vec<usize> {
        let allowlist = &self.config.allowlist.entries;
        let Ok(pins) = refused::compile_valid(entries, flags, List::Effective, runtime.model()) else {
            return Vec::new();
        };
        let each: Vec<PinSet> = allowlist
            .iter()
            .map(|e| PinSet::compile([&e.text], super::FACTS.flags).expect("entries the kubelet accepts compile"))
            .collect();
        let covers =
            |set: &PinSet, image: &RegistryImage| runtimes::pinned(set, Runtime::Kubelet, image) == Pinned::Yes;
        let pins_it = |image: &RegistryImage| runtimes::pinned(&pins.set, runtime, image) != Pinned::No;
        let mut unpinned: Vec<usize> = (0..allowlist.len()).collect();
        // Each entry's own names, then the names each pattern pins.
        unpinned.retain(|&i| {
            let text = String::from_utf8_lossy(&allowlist[i].text);
            !translate::witnesses(&text, &[]).iter().any(|image| covers(&each[i], image) && pins_it(image))
        });
        for entry in entries {
            if unpinned.is_empty() {
                break;
            }
            let Ok(text) = std::str::from_utf8(&entry.text) else { continue };
            let images = match crio_pin::Pattern::parse(text, flags) {
                Ok(crio_pin::Pattern::Exact(_)) => match images::normalized(text) {
                    Ok(reference) => translate::pulls(&reference),
                    Err(_) => continue,
                },
                Ok(_) => {
                    // A glob's or keyword's text below each prefix entry: the
                    // names they both reach (`*etcd*` under `quay.io/coreos/*`).
                    let core = text.trim_matches('*');
                    let joined = allowlist.iter().filter_map(|e| std::str::from_utf8(&e.text).ok()?.strip_suffix('*'));
                    let below = joined
                        .flat_map(|prefix| [format!("{prefix}{core}:1"), format!("{prefix}x/{core}:1")])
                        .filter_map(|name| images::normalized(&name).ok())
                        .flat_map(|reference| translate::pulls(&reference));
                    translate::witnesses(text, &[]).into_iter().chain(below).collect()
                }
                Err(_) => continue,
            };
            let pinned: Vec<&RegistryImage> = images.iter().filter(|image| pins_it(image)).collect();
            unpinned.retain(|&i| !pinned.iter().any(|image| covers(&each[i], image)));
        }
        unpinned
    }
}

/// Whether the allowlist entry `outer` covers every repository `inner`
/// does: the same entry, or a prefix of it.
fn contains(outer: &str, inner: &str) -> bool {
    match outer.strip_suffix('*') {
        Some(prefix) => inner.starts_with(prefix),
        None => outer == inner,
    }
}

fn quoted(texts: &[String]) -> String {
    texts.iter().map(|t| show::quote(t)).collect::<Vec<_>>().join(", ")
}

fn finding(
    index: usize,
    entry: &Entry,
    severity: Severity,
    code: LintCode,
    message: String,
    suggestion: Option<Vec<String>>,
) -> Finding {
    Finding {
        index,
        list: List::Effective.as_str(),
        pattern: entry.display(),
        severity,
        code,
        message,
        origin: entry.origin(),
        suggestion: suggestion.map(|s| s.join(" ")),
        // The allowlist is the kubelet's file, not the list lint fixes.
        fix: None,
    }
}
