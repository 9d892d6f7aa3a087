//! Which pattern pins which image, decided on the names the runtime
//! matches (`images`): the answers of `explain` (with the likely causes of
//! a disagreement with the runtime) and of `diff`.

use crio_pin::Flags;
use serde::Serialize;

pub use crate::causes::Cause;
use crate::causes::{decide_as, Causes, Known};
use crate::images::{Image, Name};
use crate::labels::LabelPin;
use crate::list::{Entry, Origin, Resolved};
use crate::refused::{Compiled, Refused};
use crate::runtime::Runtime;

#[derive(Serialize)]
pub struct DependsOnPull {
    pub name: String,
    pub pattern_index: usize,
    pub pattern: String,
}

/// How one image of a listing is pinned, kept in the report or not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pin {
    No,
    /// By a pattern or a label.
    Pinned,
    /// By the runtime's sandbox image (CRI-O's `pause_image`, containerd's
    /// `sandbox`), which the runtime runs itself, for no pod's container.
    SandboxImage,
}

impl Pin {
    /// An image pinned or not, by the entry that decided if one did.
    fn of(entry: Option<&Entry>, pinned: bool) -> Pin {
        match entry {
            Some(e) if e.is_pause_image() => Pin::SandboxImage,
            _ if pinned => Pin::Pinned,
            _ => Pin::No,
        }
    }
}

#[derive(Serialize)]
pub struct Explained {
    /// Its place in the listing (the report may keep only some images).
    #[serde(skip)]
    pub listed_at: usize,
    pub id: Option<String>,
    /// Every name the image was listed with.
    pub names: Vec<String>,
    /// The names the runtime matches: for CRI-O those it stores (a
    /// repoTag; a repoDigest of an image pulled by digest), or both names
    /// of an OCI artifact; for containerd every name and the image ID; for
    /// cri-dockerd every name.
    pub stored_names: Vec<String>,
    pub pinned: bool,
    pub pattern_index: Option<usize>,
    pub pattern: Option<String>,
    pub source: Option<String>,
    /// "file", "flag", "env", "pause_image" or "label" (`pinned_by_label`);
    /// null when not pinned.
    pub source_kind: Option<&'static str>,
    /// Where the pattern was written (the pause image: where it was set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// containerd: the pattern's key in `pinned_images`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The stored name the pattern matched.
    pub decided_by: Option<String>,
    pub runtime_pinned: Option<bool>,
    /// Computed digests a pattern would match: a pin that holds only if the
    /// image was pulled by that digest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub depends_on_pull: Vec<DependsOnPull>,
    /// "agree", "disagree" or "undecided" (pinned or not depending on how
    /// the image was pulled: `depends_on_pull`); null without a runtime
    /// flag, or when the list is refused.
    pub check: Option<&'static str>,
    /// The messages of the likely causes (the top-level `causes`) that can
    /// explain this disagreement.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
    /// A short name as given by hand; `names` has the fully qualified form
    /// CRI-O stores, which is the one explained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    /// Why CRI-O refuses to pull a name given by hand, which no image can
    /// then have (e.g. "repository name must be lowercase").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_name: Option<String>,
    /// Taken for an OCI artifact, and why ("id equals the manifest digest
    /// of its repoDigest"): CRI-O matches its reference and its canonical
    /// name, however it was pulled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<&'static str>,
    /// No pattern pins it, a label does (the runtime's own listing showed
    /// it): which, who set it and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned_by_label: Option<LabelPin>,
}

pub struct Report {
    /// The images explained, in the listing's order: every one, or when
    /// folded the first few of each kind (`left_out` counts the others).
    pub images: Vec<Explained>,
    /// Every image of the listing, and those the list pins, kept or not.
    pub listed: usize,
    pub pinned: usize,
    /// The images each pattern pins (by the lowest index), kept or not.
    pub pattern_images: Vec<usize>,
    /// How each image of the listing is pinned, in its order.
    pub pinned_at: Vec<Pin>,
    /// The images of each kind not kept, when folded.
    pub left_out: Vec<LeftOut>,
    /// The likely causes of the disagreements, each once.
    pub causes: Vec<Cause>,
    pub disagreements: usize,
    /// Images pinned or not depending on how they were pulled.
    pub undecided: usize,
    /// The patterns that make the list refused (then the set holds the
    /// others, and nothing is compared with the runtime).
    pub refused: Vec<Refused>,
    /// How many patterns the set holds.
    pub valid_patterns: usize,
}

/// An image's kind, by which a report folds: what the runtime's flag says
/// of the list's answer (`Explained::check`), and that answer.
#[derive(Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Kind {
    pub check: Option<&'static str>,
    pub pinned: bool,
}

impl Kind {
    /// In a few words, for "… and N more image(s) {kind}".
    pub fn describe(self) -> &'static str {
        match (self.check, self.pinned) {
            (Some("disagree"), true) => "pinned here and not by the runtime (DISAGREES)",
            (Some("disagree"), false) => "pinned by the runtime and not here (DISAGREES)",
            (Some("undecided"), _) => "undecided",
            (Some(_), true) => "pinned, as the runtime says",
            (Some(_), false) => "not pinned, as the runtime says",
            (None, true) => "pinned",
            (None, false) => "not pinned",
        }
    }
}

/// How many images of one kind a folded report left out.
#[derive(Clone, Copy, Serialize)]
pub struct LeftOut {
    #[serde(flatten)]
    pub kind: Kind,
    pub images: usize,
}

/// How many images of each kind (`Kind`) `check`'s text and JSON show
/// without `--every-image`: enough to see what is wrong, and what a fix
/// changes, on a node of any size; the counts count every image.
pub const SHOWN_OF_A_KIND: usize = 20;

/// Each image explained; `known`: what the running runtime said of itself,
/// for the likely causes. `keep`: how many images of each kind to keep
/// (`check`, which shows the first few: a listing of a million images
/// would otherwise be held twice), None for every one.
pub fn explain<'r>(
    resolved: &'r Resolved,
    compiled: &Compiled,
    images: &[Image],
    flags: Flags,
    known: Known<'r>,
    keep: Option<usize>,
) -> Report {
    let entries = &resolved.entries;
    let refused = !compiled.refused.is_empty();
    let (mut disagreements, mut undecided) = (0, 0);
    let mut causes = Causes::new(resolved, flags, known);
    let model = Runtime::of(flags).model();
    let compared_as = model.naming().compared_as;
    let mut pattern_images = vec![0; entries.len()];
    let mut pinned_at = Vec::with_capacity(images.len());
    let mut kinds: Vec<LeftOut> = Vec::new();
    let mut explained: Vec<Explained> = Vec::new();
    for (at, image) in images.iter().enumerate() {
        let decided = decide_as(compiled, image, compared_as);
        // A label pins whatever the list says: said only where no pattern does.
        let by_label = decided.is_none().then(|| model.label_pin(image, &resolved.label_selectors)).flatten();
        let pinned = decided.is_some() || by_label.is_some();
        // Only worth saying when the stored names do not pin it anyway.
        let depends_on_pull = if pinned { Vec::new() } else { depends_on_pull(compiled, entries, image, compared_as) };
        if !depends_on_pull.is_empty() {
            undecided += 1;
        }
        let check = image.runtime_pinned.filter(|_| !refused).map(|runtime| verdict(runtime, pinned, &depends_on_pull));
        if check == Some("disagree") {
            disagreements += 1;
            let runtime_pins = image.runtime_pinned == Some(true);
            // The runtime's own likely causes (`crate::runtimes`).
            model.likely_causes(&mut causes, at, image, runtime_pins, decided.map(|(_, n)| n));
        }
        if let Some((i, _)) = decided {
            pattern_images[i] += 1;
        }
        pinned_at.push(Pin::of(decided.map(|(i, _)| &entries[i]), pinned));
        let kind = Kind { check, pinned };
        let seen = match kinds.iter_mut().find(|k| k.kind == kind) {
            Some(seen) => seen,
            None => {
                kinds.push(LeftOut { kind, images: 0 });
                kinds.last_mut().expect("just pushed")
            }
        };
        seen.images += 1;
        if keep.is_some_and(|keep| seen.images > keep) {
            continue;
        }
        let answer = Answer { decided, by_label, pinned, depends_on_pull, check };
        explained.push(explained_image(at, image, entries, answer));
    }
    let causes = name_kept_images(causes.finish(), &mut explained);
    let left_out = match keep {
        Some(keep) => kinds
            .iter()
            .filter(|k| k.images > keep)
            .map(|k| LeftOut { kind: k.kind, images: k.images - keep })
            .collect(),
        None => Vec::new(),
    };
    Report {
        images: explained,
        listed: images.len(),
        pinned: pinned_at.iter().filter(|&&p| p != Pin::No).count(),
        pattern_images,
        pinned_at,
        left_out,
        causes,
        disagreements,
        undecided,
        refused: compiled.refused.clone(),
        valid_patterns: compiled.set.len(),
    }
}

/// The list's answer for one image, before it is written out.
struct Answer<'a> {
    decided: Option<(usize, &'a Name)>,
    by_label: Option<LabelPin>,
    pinned: bool,
    depends_on_pull: Vec<DependsOnPull>,
    check: Option<&'static str>,
}

/// The image listed at `at`, explained by `answer`.
fn explained_image(at: usize, image: &Image, entries: &[Entry], answer: Answer<'_>) -> Explained {
    let Answer { decided, by_label, pinned, depends_on_pull, check } = answer;
    let entry = decided.map(|(i, _)| &entries[i]);
    Explained {
        listed_at: at,
        id: image.id.clone(),
        names: listed_names(image),
        stored_names: image.names.iter().filter(|n| n.stored).map(|n| n.text.clone()).collect(),
        pinned,
        pattern_index: decided.map(|(i, _)| i),
        pattern: entry.map(Entry::display),
        source: entry.map(|e| e.source.clone()).or_else(|| by_label.as_ref().map(|l| l.set_by.to_owned())),
        source_kind: entry.map(Entry::source_kind).or(by_label.as_ref().map(|_| "label")),
        file: entry.and_then(|e| e.file().map(str::to_string)),
        line: entry.and_then(Entry::line),
        key: entry.and_then(|e| e.key.clone()),
        decided_by: decided.map(|(_, n)| n.text.clone()),
        runtime_pinned: image.runtime_pinned,
        depends_on_pull,
        check,
        causes: Vec::new(),
        given: image.given.clone(),
        refused_name: image.refused.clone(),
        artifact: image.artifact,
        pinned_by_label: by_label,
    }
}

/// The causes name the kept images by their place in `explained` (each
/// kept image gets its causes' messages); the others are counted.
fn name_kept_images(mut causes: Vec<Cause>, explained: &mut [Explained]) -> Vec<Cause> {
    for cause in &mut causes {
        let listed = std::mem::take(&mut cause.images);
        for at in listed {
            match explained.binary_search_by_key(&at, |e| e.listed_at) {
                Ok(i) => {
                    explained[i].causes.push(cause.message.clone());
                    cause.images.push(i);
                }
                Err(_) => cause.images_left_out += 1,
            }
        }
    }
    causes
}

/// The patterns that pin `image` by a name stored only if it was pulled
/// by it (CRI-O's digest of a tagged image).
fn depends_on_pull(
    compiled: &Compiled,
    entries: &[Entry],
    image: &Image,
    compared_as: fn(&str) -> &str,
) -> Vec<DependsOnPull> {
    image
        .names
        .iter()
        .filter(|n| !n.stored)
        .filter_map(|n| {
            compiled.set.match_index(compared_as(&n.text).as_bytes()).map(|i| {
                let i = compiled.list_index(i);
                DependsOnPull { name: n.text.clone(), pattern_index: i, pattern: entries[i].display() }
            })
        })
        .collect()
}

/// The list's answer beside the runtime's (`runtime`: whether it pins the
/// image): "agree", "disagree", or "undecided" when the list's depends on
/// the pull.
fn verdict(runtime: bool, pinned: bool, depends_on_pull: &[DependsOnPull]) -> &'static str {
    if !depends_on_pull.is_empty() {
        "undecided"
    } else if runtime == pinned {
        "agree"
    } else {
        "disagree"
    }
}

/// The names an image was listed with (not containerd's image ID).
fn listed_names(image: &Image) -> Vec<String> {
    image.names.iter().filter(|n| !n.is_id).map(|n| n.text.clone()).collect()
}

#[derive(Serialize)]
pub struct Change {
    pub id: Option<String>,
    pub names: Vec<String>,
    pub decided_by: String,
    pub pattern_index: usize,
    pub pattern: String,
    #[serde(flatten)]
    pub origin: Origin,
    /// Taken for an OCI artifact, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<&'static str>,
}

/// A pattern's pin that a change takes away or adds to an image a label
/// pins (`Model::label_pin`) whatever the list says: its pinned state does
/// not change.
#[derive(Serialize)]
pub struct LabelKept {
    /// The pattern that pinned it before, or pins it after.
    #[serde(flatten)]
    pub change: Change,
    pub pattern_pin: PatternPin,
    pub pinned_by_label: LabelPin,
}

/// What a change does to a pattern's pin of an image.
#[derive(Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PatternPin {
    /// The pattern no longer pins it.
    Lost,
    /// A pattern pins it after the change.
    Gained,
}

pub struct Diff {
    pub gained: Vec<Change>,
    pub lost: Vec<Change>,
    /// Pins by pattern gained or lost that change nothing: a label pins the
    /// image before and after.
    pub still_pinned_by_label: Vec<LabelKept>,
    /// Warnings that only the changed configuration has.
    pub new_warnings: Vec<crate::list::Warning>,
}

/// Which images gain and lose a pin when `before` becomes `after`, each
/// pinned state decided as `explain` decides it: by a pattern, else by a
/// label of `runtime`'s.
pub fn diff(
    runtime: Runtime,
    before: &Resolved,
    before_set: &Compiled,
    after: &Resolved,
    after_set: &Compiled,
    images: &[Image],
) -> Diff {
    let change = |image: &Image, (i, name): (usize, &Name), entries: &[Entry]| Change {
        id: image.id.clone(),
        names: listed_names(image),
        decided_by: name.text.clone(),
        pattern_index: i,
        pattern: entries[i].display(),
        origin: entries[i].origin(),
        artifact: image.artifact,
    };
    let model = runtime.model();
    let compared_as = model.naming().compared_as;
    let mut gained = Vec::new();
    let mut lost = Vec::new();
    let mut still_pinned_by_label = Vec::new();
    for image in images {
        // The side without a pattern is pinned only if a label pins it
        // there, with that side's label selectors.
        let (change, pattern_pin, unpinned_side) =
            match (decide_as(before_set, image, compared_as), decide_as(after_set, image, compared_as)) {
                (None, Some(by)) => (change(image, by, &after.entries), PatternPin::Gained, before),
                (Some(by), None) => (change(image, by, &before.entries), PatternPin::Lost, after),
                _ => continue,
            };
        match model.label_pin(image, &unpinned_side.label_selectors) {
            Some(pinned_by_label) => still_pinned_by_label.push(LabelKept { change, pattern_pin, pinned_by_label }),
            None if pattern_pin == PatternPin::Gained => gained.push(change),
            None => lost.push(change),
        }
    }
    let new_warnings =
        after.warnings.iter().filter(|w| !before.warnings.iter().any(|b| b.message == w.message)).cloned().collect();
    Diff { gained, lost, still_pinned_by_label, new_warnings }
}
