//! `translate`: one runtime's pinned list written in another runtime's
//! terms, entry by entry, and how faithfully each entry carries over.
//!
//! Two steps. First each entry is written with the target's means
//! ([`write`]): an exact name in the form the target stores it (Docker
//! reports Docker Hub names short, `nginx:1`; CRI-O and containerd store
//! `docker.io/library/nginx:1`), a prefix as a prefix, a keyword as a
//! keyword, a bare repository as its tags and digests; what the target
//! cannot write is `impossible`. Then the label is derived from the
//! runtimes' models, not from a table of pairs ([`judge`]): the entry and
//! what was written are run, each under its runtime's rules (the library's
//! `PinSet` with the runtime's flags), over images built from the texts
//! involved, each image with the names each runtime stores for it
//! (`crate::runtimes`):
//!
//! - `exact`: every such image is pinned by both or by neither;
//! - `wider` / `narrower`: the target pins a strict superset / subset, with
//!   an image that differs;
//! - `different`: each pins images the other does not, with one of each;
//! - `undecided`: the answers differ only for images whose pin depends on
//!   how they were pulled (CRI-O keeps a tagged image's digest only after a
//!   pull by that digest: the word `explain` uses);
//! - `dropped`: the entry pins nothing under the source, so nothing is
//!   written (with the name it was probably meant to be).
//!
//! The images are those the entry and its translation name (each pull of
//! them, the names one character longer, one path component deeper, or
//! behind another registry, a port's digits and a path after a host cut
//! at its colon), spelled as written, in lower case and with their path in
//! lower case (a stored name's path is; its host and tag keep their case:
//! CRI-O's `DOCKER.IO/NGINX:V1` pins the stored `DOCKER.IO/nginx:V1`), the
//! names themselves with their host and their tag in another case, and
//! all of them again with their host's first letter in the other case
//! (lower case alone would miss `DOCKER.IO/x`'s: `docker.io/x` is Docker
//! Hub's `docker.io/library/x`, another image). CRI-O ignores case and the
//! others do not, so an exact name carried between them is `wider` or
//! `narrower` (`quay.io/a:v1` in CRI-O also pins `quay.io/a:V1`, a tag of
//! its own), and the list-wide [`case_note`] says why. A property test
//! checks every label against the library's oracles of the runtimes'
//! rules, in all twenty directions, over a universe with hosts in upper,
//! lower and mixed case (`DOCKER.IO`, `Docker.io`, `LocalHost:5000`),
//! tags in both cases, and entries with upper-case paths.

use crio_pin::{Flags, Pattern, PinSet};
use serde::Serialize;

use crate::images::normalized;
use crate::runtime::Runtime;
use crate::runtimes::{pinned, Pinned, RegistryImage};
use crate::show::quote;

/// How faithfully a translated entry pins what the original pinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fidelity {
    /// The same images.
    Exact,
    /// Every image the original pinned, and others.
    Wider,
    /// Only some of the images the original pinned.
    Narrower,
    /// Some images the original did not pin, and not some it did.
    Different,
    /// The same or not, depending on how an image was pulled.
    Undecided,
    /// The target has no way to write it: left out.
    Impossible,
    /// It pinned nothing under the source: left out.
    Dropped,
}

impl Fidelity {
    pub const ALL: [Fidelity; 7] = [
        Fidelity::Exact,
        Fidelity::Wider,
        Fidelity::Narrower,
        Fidelity::Different,
        Fidelity::Undecided,
        Fidelity::Impossible,
        Fidelity::Dropped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Fidelity::Exact => "exact",
            Fidelity::Wider => "wider",
            Fidelity::Narrower => "narrower",
            Fidelity::Different => "different",
            Fidelity::Undecided => "undecided",
            Fidelity::Impossible => "impossible",
            Fidelity::Dropped => "dropped",
        }
    }

    /// Whether the translation changes (or may change) what the entry pins.
    pub fn changes_pins(self) -> bool {
        !matches!(self, Fidelity::Exact | Fidelity::Dropped)
    }
}

/// One entry, translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translated {
    /// The target's patterns (none when impossible or dropped).
    pub patterns: Vec<String>,
    pub fidelity: Fidelity,
    /// What changes, when something does.
    pub why: Option<String>,
    /// The images whose pin differs, as the label states it: one pinned
    /// only by the target, one only by the source (for the proofs).
    pub gained: Option<RegistryImage>,
    pub lost: Option<RegistryImage>,
}

/// `text`, an entry of `from`'s list, in `to`'s terms.
pub fn translate(text: &str, from: Runtime, to: Runtime) -> Translated {
    let written = write(text, from, to);
    judge(text, from, written, to)
}

/// The patterns that write `text` (an entry of `from`'s list) in `to`'s
/// terms, or why `to` cannot.
pub fn write(text: &str, from: Runtime, to: Runtime) -> Result<Vec<String>, String> {
    if from == to {
        return Ok(vec![text.to_owned()]);
    }
    if from.facts().pins_image_ids && crate::images::is_image_id(text) {
        return Err(format!(
            "an image ID: {} pins the image by its ID record; {} compares names only (pin the image's names \
             instead)",
            from.facts().name,
            to.facts().name
        ));
    }
    if let Some(why) = from.model().refuses(text) {
        return Err(format!("{} refuses it ({why})", from.facts().name));
    }
    match from.model().parse(text, from.facts().flags) {
        Err(kind) => Err(format!("{} refuses it ({kind:?}): fix it first", from.facts().name)),
        Ok(Pattern::Blank) => Err("blank".into()),
        Ok(Pattern::Exact(t)) => write_exact(t, from, to),
        Ok(Pattern::Glob(prefix)) => to.model().write_prefix(prefix, from.facts().flags.contains(Flags::ANCHOR_GLOBS)),
        Ok(Pattern::Keyword(word)) => to.model().write_keyword(word),
        Ok(Pattern::Repository(r)) => write_repository(r, to),
    }
}

/// An exact name: the images it names (normalised), each in the form `to`
/// stores it; one that names no image is written as it is.
fn write_exact(t: &str, from: Runtime, to: Runtime) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    for image in named_images(t, from) {
        let name = to.model().stored_form(&image).to_owned();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        names.push(t.to_owned());
    }
    for name in &names {
        if !to.model().writes_exactly(name) {
            return Err(format!(
                "{} reads {} as a wildcard (or trims it): it has no way to write this name",
                to.facts().name,
                quote(name)
            ));
        }
    }
    Ok(names)
}

/// The images (normalised references) whose stored name under `from` is
/// `t`; for a runtime that ignores case, when none is, the one whose name
/// differs from it in case alone as written with a lower-case path
/// (CRI-O's `DOCKER.IO/NGINX:V1` pins the stored `DOCKER.IO/nginx:V1`).
fn named_images(t: &str, from: Runtime) -> Vec<String> {
    let named = from.model().images_named(t.trim());
    if named.is_empty() && !from.facts().flags.contains(Flags::CASE_SENSITIVE) {
        return from.model().images_named(&path_lowered(t.trim()));
    }
    named
}

/// A bare repository (cri-dockerd: every tag and digest of it), as the
/// normalised name of its `latest` image without the tag.
fn write_repository(r: &str, to: Runtime) -> Result<Vec<String>, String> {
    let n = normalized(r).map_err(|why| format!("not a repository ({why})"))?;
    to.model().write_repository(n.strip_suffix(":latest").unwrap_or(&n))
}

/// How a pin can differ for one image, from the source's answer to the
/// target's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    Same,
    Gained,
    Lost,
    /// Differs for some pulls only.
    DependsOnPull,
}

fn change(source: Pinned, target: Pinned) -> Change {
    match (source, target) {
        (s, t) if s == t => Change::Same,
        (Pinned::No, Pinned::Yes) => Change::Gained,
        (Pinned::Yes, Pinned::No) => Change::Lost,
        _ => Change::DependsOnPull,
    }
}

/// Why nothing is written for an entry: it pins nothing under its
/// runtime (`dropped`), or the target cannot write it (`impossible`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwritten {
    pub fidelity: Fidelity,
    pub why: String,
}

/// What `translate` writes for `text` (an entry of `from`'s list), without
/// the label: deriving that runs hundreds of images per entry, and the
/// kubelet's lint needs only the patterns, or why there are none.
pub fn translated_patterns(text: &str, from: Runtime, to: Runtime) -> Result<Vec<String>, Unwritten> {
    compiled(text, from, write(text, from, to), to).map(|(_, patterns, _)| patterns)
}

/// The entry's and the written patterns' sets under their runtimes, with
/// the patterns; or why nothing is written, decided as `judge` labels it.
fn compiled(
    text: &str,
    from: Runtime,
    written: Result<Vec<String>, String>,
    to: Runtime,
) -> Result<(PinSet, Vec<String>, PinSet), Unwritten> {
    let unwritten = |fidelity, why| Err(Unwritten { fidelity, why });
    let source = PinSet::compile([text], from.facts().flags).ok().filter(|_| from.model().refuses(text).is_none());
    let Some(source) = source else {
        let why = written.err().unwrap_or_else(|| format!("{} refuses it", from.facts().name));
        return unwritten(Fidelity::Impossible, why);
    };
    let patterns = written.as_ref().map_or(&[][..], Vec::as_slice);
    // A list the target refuses pins nothing there.
    let target = match patterns.iter().find_map(|p| to.model().refuses(p)) {
        Some(why) => Err(why),
        None => PinSet::compile(patterns, to.facts().flags).map_err(|e| e.to_string()),
    };
    if !pins_a_witness(&source, from, text.trim(), patterns) {
        return unwritten(Fidelity::Dropped, dropped_why(text, from));
    }
    match (written, target) {
        (Ok(patterns), Ok(target)) => Ok((source, patterns, target)),
        (Err(why), _) => unwritten(Fidelity::Impossible, why),
        (_, Err(e)) => unwritten(Fidelity::Impossible, format!("{} refuses it: {e}", to.facts().name)),
    }
}

/// The label of `written` (the translation of `text` from `from` to `to`),
/// from what each pins over the images the texts name.
pub fn judge(text: &str, from: Runtime, written: Result<Vec<String>, String>, to: Runtime) -> Translated {
    let (source, written, target) = match compiled(text, from, written, to) {
        Ok(sets) => sets,
        Err(Unwritten { fidelity, why }) => {
            return Translated { patterns: Vec::new(), fidelity, why: Some(why), gained: None, lost: None }
        }
    };
    let images = witnesses(text.trim(), &written);
    let answers: Vec<(Pinned, Pinned)> =
        images.iter().map(|i| (pinned(&source, from, i), pinned(&target, to, i))).collect();
    let first = |c: Change| answers.iter().position(|&(s, t)| change(s, t) == c).map(|i| images[i].clone());
    let (gained, lost, depends) = (first(Change::Gained), first(Change::Lost), first(Change::DependsOnPull));
    let first_pull =
        |pairs: [(Pinned, Pinned); 2]| answers.iter().position(|a| pairs.contains(a)).map(|i| images[i].clone());
    let pull_gained = first_pull([(Pinned::IfPulledByDigest, Pinned::Yes), (Pinned::No, Pinned::IfPulledByDigest)]);
    let pull_lost = first_pull([(Pinned::Yes, Pinned::IfPulledByDigest), (Pinned::IfPulledByDigest, Pinned::No)]);
    let fidelity = match (&gained, &lost) {
        (None, None) if depends.is_none() => Fidelity::Exact,
        (None, None) => Fidelity::Undecided,
        (Some(_), None) if pull_lost.is_none() => Fidelity::Wider,
        (None, Some(_)) if pull_gained.is_none() => Fidelity::Narrower,
        _ => Fidelity::Different,
    };
    // An image that differs for some pulls shows a change when no image
    // shows it for every pull.
    let (gained, lost) = match fidelity {
        Fidelity::Different => (gained.or(pull_gained), lost.or(pull_lost)),
        _ => (gained, lost),
    };
    let why = changed_why(fidelity, from, to, gained.as_ref(), lost.as_ref(), depends.as_ref());
    Translated { patterns: written, fidelity, why, gained, lost }
}

/// The first image the list `old` pins that the list `new` does not (or
/// pins only for some pulls), each list run under `runtime`'s rules, over
/// the images `old`'s texts name, as `judge` runs an entry: how `lint
/// --fix` checks a change of a whole list (a key renamed). Err when `new`
/// is refused and `old` is not.
pub fn first_lost(old: &[String], new: &[String], runtime: Runtime) -> Result<Option<RegistryImage>, String> {
    let flags = runtime.facts().flags;
    let Ok(source) = PinSet::compile(old, flags) else { return Ok(None) };
    let target = PinSet::compile(new, flags).map_err(|e| format!("{} refuses it: {e}", runtime.facts().name))?;
    let kept = |image: &RegistryImage| match pinned(&source, runtime, image) {
        Pinned::No => true,
        Pinned::IfPulledByDigest => pinned(&target, runtime, image) != Pinned::No,
        Pinned::Yes => pinned(&target, runtime, image) == Pinned::Yes,
    };
    Ok(old.iter().flat_map(|text| witnesses(text.trim(), &[])).find(|image| !kept(image)))
}

/// The label's reason told by images of a listing (`listed`) where one
/// shows the change, instead of the images the texts name: a node's own
/// image is the example its operator recognises. None when no listed image
/// shows it (the label's own reason stands).
pub fn listed_why(text: &str, from: Runtime, to: Runtime, t: &Translated, listed: &[RegistryImage]) -> Option<String> {
    let source = PinSet::compile([text], from.facts().flags).ok()?;
    let target = PinSet::compile(&t.patterns, to.facts().flags).ok();
    let answers: Vec<(Pinned, Pinned)> = listed
        .iter()
        .map(|i| (pinned(&source, from, i), target.as_ref().map_or(Pinned::No, |set| pinned(set, to, i))))
        .collect();
    let first = |c: Change| answers.iter().position(|&(s, t)| change(s, t) == c).map(|i| &listed[i]);
    let (gained, lost, depends) = (first(Change::Gained), first(Change::Lost), first(Change::DependsOnPull));
    let shown = match t.fidelity {
        Fidelity::Undecided => depends.is_some(),
        _ => gained.or(lost).or(depends).is_some(),
    };
    shown.then(|| changed_why(t.fidelity, from, to, gained.or(t.gained.as_ref()), lost.or(t.lost.as_ref()), depends))?
}

/// What changes, naming the images that show it.
fn changed_why(
    fidelity: Fidelity,
    from: Runtime,
    to: Runtime,
    gained: Option<&RegistryImage>,
    lost: Option<&RegistryImage>,
    depends: Option<&RegistryImage>,
) -> Option<String> {
    let (from_name, to_name) = (from.facts().name, to.facts().name);
    let gains = gained.map(|i| format!("{to_name} also pins {}, which {from_name} did not", quote(i.name())));
    let losses = lost.map(|i| format!("{to_name} no longer pins {}, which {from_name} did", quote(i.name())));
    // The pull matters to the runtime that does not keep that digest
    // whatever the pull.
    let keeper = if from.model().naming().digest_beside_tag { to_name } else { from_name };
    let pull = depends.map(|i| {
        format!(
            "whether {} is pinned depends on how it was pulled: {keeper} keeps a tagged image's digest only after a \
             pull by that digest",
            quote(i.name()),
        )
    });
    let parts: Vec<String> = match fidelity {
        Fidelity::Exact => return None,
        Fidelity::Undecided => pull.into_iter().collect(),
        _ => gains.into_iter().chain(losses).chain(pull).collect(),
    };
    Some(parts.join("; "))
}

/// Why an entry pins nothing under `from`, and what it probably meant.
fn dropped_why(text: &str, from: Runtime) -> String {
    let meant = normalized(text.trim()).ok().map(|n| from.model().stored_form(&n).to_owned());
    match meant.filter(|m| m != text) {
        Some(meant) => format!(
            "{} pins nothing by it: it stores that image as {}, which it was probably meant to be",
            from.facts().name,
            quote(&meant)
        ),
        None => format!("{} pins nothing by it", from.facts().name),
    }
}

/// The images the texts name: each as each pull gives it, the same names
/// one character longer, one path component deeper, with another tag, or
/// behind another registry; as written, in lower case and with their
/// path in lower case, the names themselves with their host and their tag
/// in another case, and all of them again with their host's first letter
/// in the other case.
pub fn witnesses(text: &str, written: &[String]) -> Vec<RegistryImage> {
    // Each reference once, at its first rank: the image a label shows is
    // the first that shows it, and the names as written come first.
    let mut ranked: [std::collections::BTreeSet<String>; 3] = Default::default();
    let mut images: Vec<RegistryImage> = Vec::new();
    for witness in witness_sources(text, written) {
        match witness {
            Witness::Image(image) => images.push(image),
            Witness::Spelled(reference) => {
                ranked[0].insert(reference);
            }
            Witness::Cased(reference) => {
                ranked[1].insert(reference);
            }
            Witness::Toggled(reference) => {
                ranked[2].insert(reference);
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for references in ranked {
        for reference in references {
            if seen.insert(reference.clone()) {
                images.extend(pulls(&reference));
            }
        }
    }
    images
}

/// Whether `source` pins one of `witnesses(text, written)`, found without
/// building them all: an entry that pins something mostly pins the first.
fn pins_a_witness(source: &PinSet, from: Runtime, text: &str, written: &[String]) -> bool {
    let pins = |image: &RegistryImage| pinned(source, from, image) != Pinned::No;
    witness_sources(text, written).any(|witness| match witness {
        Witness::Image(image) => pins(&image),
        Witness::Spelled(reference) | Witness::Cased(reference) | Witness::Toggled(reference) => {
            pulls(&reference).iter().any(pins)
        }
    })
}

/// What the witnesses are made of, as the texts give it, in the order a
/// label takes its example from them.
enum Witness {
    /// An image ID's image, whole.
    Image(RegistryImage),
    /// A reference spelled from a text as written, in lower case, or with
    /// its path in lower case (each pull of it is a witness).
    Spelled(String),
    /// A text's reference with its host or tag in another case.
    Cased(String),
    /// A reference spelled from a text with its path in lower case and its
    /// host's first letter in the other case: a name that differs from the
    /// text in case alone where lower case would name another image
    /// (`docker.io/x` is Docker Hub's `docker.io/library/x`, `DOCKER.IO/x`
    /// and `dOCKER.IO/x` are one registry's `x`).
    Toggled(String),
}

/// The parts of `witnesses`, lazily, text by text.
fn witness_sources<'t>(text: &'t str, written: &'t [String]) -> impl Iterator<Item = Witness> + 't {
    std::iter::once(text).chain(written.iter().map(String::as_str)).flat_map(|t| {
        let id = crate::images::is_image_id(t).then(|| {
            let mut image = RegistryImage::pulled_as("registry.example/app:1");
            image.id = Some(t.to_owned());
            Witness::Image(image)
        });
        let core = t.trim().trim_matches('*');
        let mut bases = vec![core.to_owned()];
        for base in [core.to_lowercase(), path_lowered(core)] {
            if !bases.contains(&base) {
                bases.push(base);
            }
        }
        let toggled = first_letter_toggled(&path_lowered(core)).filter(|t| !bases.contains(t));
        let spelled = move |base: String| {
            spellings(base).filter_map(|name| normalized(&name).ok().filter(|r| crate::images::can_exist(r)))
        };
        id.into_iter()
            .chain(bases.into_iter().flat_map(move |base| {
                // Case changes what an exact name pins; a glob's or keyword's
                // reach differs already by where it matches.
                let cased = std::iter::once_with({
                    let base = base.clone();
                    move || normalized(&base).map(|reference| case_variants(&reference)).unwrap_or_default()
                });
                spelled(base).map(Witness::Spelled).chain(cased.flatten().map(Witness::Cased))
            }))
            .chain(toggled.into_iter().flat_map(move |base| spelled(base).map(Witness::Toggled)))
    })
}

/// `core` (a text, perhaps cut anywhere) with its repository path in lower
/// case and its host, tag and digest as written: a name a registry can
/// store (a repository path is lower case, a host and a tag keep the case
/// they were pulled with), which a case-blind entry pins. A digest is
/// lower case too, as a valid one is.
fn path_lowered(core: &str) -> String {
    let (host, rest) = match core.split_once('/') {
        Some((host, rest)) => (Some(host), rest),
        None => (None, core),
    };
    let (path, suffix) = match rest.split_once('@') {
        Some((path, digest)) => (path, format!("@{}", digest.to_lowercase())),
        None => match rest.rsplit_once(':') {
            Some((path, tag)) => (path, format!(":{tag}")),
            None => (rest, String::new()),
        },
    };
    let host = host.map(|h| format!("{h}/")).unwrap_or_default();
    format!("{host}{}{suffix}", path.to_lowercase())
}

/// `name` with the first letter of its first component in the other
/// case, if it has one there.
fn first_letter_toggled(name: &str) -> Option<String> {
    let first = name.split('/').next().unwrap_or_default();
    let at = first.find(|c: char| c.is_ascii_alphabetic())?;
    let mut bytes = name.as_bytes().to_vec();
    bytes[at] ^= 0x20;
    String::from_utf8(bytes).ok()
}

/// A normalised reference with its host in upper case and its tag in
/// upper and in lower case (`QUAY.IO/a:1`, `quay.io/a:V1`, `DOCKER.IO/a:v1`):
/// other images that CRI-O's entries pin too, as it ignores case, and the
/// others' do not.
fn case_variants(reference: &str) -> Vec<String> {
    let mut variants = Vec::new();
    if let Some((host, rest)) = reference.split_once('/') {
        variants.push(format!("{}/{rest}", host.to_uppercase()));
    }
    let repository = crate::images::repository(reference);
    if let Some(tag) = reference.strip_prefix(repository).and_then(|t| t.strip_prefix(':')) {
        variants.push(format!("{repository}:{}", tag.to_uppercase()));
        variants.push(format!("{repository}:{}", tag.to_lowercase()));
    }
    variants.into_iter().filter(|v| v != reference && normalized(v).as_deref() == Ok(v.as_str())).collect()
}

/// Names a pattern built on `base` (an entry without its `*`s, perhaps
/// cut anywhere) may match: `base` after what may come before it (a host,
/// a path component, a tag's or digest's start, another registry: CRI-O's
/// globs and keywords match anywhere; Docker's familiar `nginx/x` is
/// `docker.io/nginx/x`), then after what may follow it (a
/// character, a component, a tag, the rest of a digest, a port's digits
/// and a path: cri-dockerd's `LocalHost:*` pins `LocalHost:5000/…`).
fn spellings(base: String) -> impl Iterator<Item = String> {
    const BEFORE: [&str; 8] = ["", "x", "x/", "x:", "x@", "x@sha256:", "docker.io/", "mirror.example/"];
    const AFTER: [&str; 12] = ["", "x", "x:1", "/x:1", "x/x:1", "1", ":1", ":x", "-x:1", ".x/x:1", ":1/x:1", "1/x:1"];
    (0..BEFORE.len() * AFTER.len()).map(move |k| {
        let (b, a) = (BEFORE[k / AFTER.len()], AFTER[k % AFTER.len()]);
        complete_digest(&format!("{b}{base}{a}"))
    })
}

/// `name` with the digest it starts (after its `@`) completed to a whole
/// sha256 digest.
fn complete_digest(name: &str) -> String {
    let Some((repo, digest)) = name.rsplit_once('@') else { return name.to_owned() };
    let hex = if "sha256:".starts_with(digest) { "" } else { digest.strip_prefix("sha256:").unwrap_or(digest) };
    if hex.len() >= 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return name.to_owned();
    }
    let fill = hex.chars().last().unwrap_or('0').to_string();
    format!("{repo}@sha256:{hex}{}", fill.repeat(64 - hex.len()))
}

/// The images a pull of `reference` may give: by tag, by digest, both; and
/// the same repository with another tag.
pub fn pulls(reference: &str) -> Vec<RegistryImage> {
    let repo = crate::images::repository(reference);
    let mut images = vec![RegistryImage::pulled_as(reference)];
    if reference.contains('@') {
        let mut tagged = RegistryImage::pulled_as(&format!("{repo}:1"));
        tagged.digests = vec![reference.to_owned()];
        images.push(tagged);
    } else {
        images.push(RegistryImage::pulled_as(&format!("{repo}:other")));
        let digest = RegistryImage::pulled_as(reference).digests[0].clone();
        images.push(RegistryImage::pulled_as(&digest));
    }
    images
}

/// What the change of case rules does to every entry, when it does.
pub fn case_note(from: Runtime, to: Runtime) -> Option<String> {
    let folds = |r: Runtime| !r.facts().flags.contains(Flags::CASE_SENSITIVE);
    match (folds(from), folds(to)) {
        (false, true) => Some(format!(
            "{} ignores case where {} does not: each entry also pins the names that differ from it only in case \
             (a tag such as v1 and V1)",
            to.facts().name,
            from.facts().name
        )),
        (true, false) => Some(format!(
            "{} compares case where {} ignores it: an entry no longer pins the names that differ from it only in \
             case",
            to.facts().name,
            from.facts().name
        )),
        _ => None,
    }
}

#[cfg(test)]
mod proof;

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str, from: Runtime, to: Runtime) -> (Vec<String>, Fidelity) {
        let got = translate(text, from, to);
        (got.patterns, got.fidelity)
    }

    fn pats(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn containerd_to_crio() {
        use Runtime::{Containerd, Crio};
        // CRI-O also pins the names that differ only in case
        // (DOCKER.IO/library/nginx:1, a host a pull may spell so).
        assert_eq!(
            t("docker.io/library/nginx:1", Containerd, Crio),
            (pats(&["docker.io/library/nginx:1"]), Fidelity::Wider)
        );
        // containerd compares values as written: a '*' is a character, and no
        // stored name has it.
        assert_eq!(t("quay.io/*", Containerd, Crio).1, Fidelity::Dropped);
        assert_eq!(t("*pause", Containerd, Crio).1, Fidelity::Dropped);
        assert_eq!(t("*", Containerd, Crio).1, Fidelity::Dropped);
    }

    #[test]
    fn containerd_normalized_writes_the_stored_form() {
        use Runtime::{ContainerdNormalized, Crio};
        assert_eq!(
            t("nginx", ContainerdNormalized, Crio),
            (pats(&["docker.io/library/nginx:latest"]), Fidelity::Wider)
        );
        assert_eq!(t("Quay.io/A", ContainerdNormalized, Crio).1, Fidelity::Impossible);
    }

    #[test]
    fn cri_dockerd_to_crio() {
        use Runtime::{CriDockerd, Crio};
        assert_eq!(
            t("nginx", CriDockerd, Crio),
            (pats(&["docker.io/library/nginx:*", "docker.io/library/nginx@*"]), Fidelity::Wider)
        );
        assert_eq!(t("quay.io/a", CriDockerd, Crio), (pats(&["quay.io/a:*", "quay.io/a@*"]), Fidelity::Wider));
        // Docker's short names are CRI-O's long ones, and the reverse.
        assert_eq!(t("redis:7", CriDockerd, Crio), (pats(&["docker.io/library/redis:7"]), Fidelity::Wider));
        // Docker reports docker.io/library/redis:7 as redis:7; read as a
        // familiar name, docker.io/library/redis:7 would be a Hub namespace
        // "docker.io", which no Docker ID can be: it pins nothing.
        let redis = translate("docker.io/library/redis:7", CriDockerd, Crio);
        assert_eq!((redis.patterns.len(), redis.fidelity), (0, Fidelity::Dropped));
        assert!(redis.why.as_deref().unwrap_or_default().contains("\"redis:7\""), "{:?}", redis.why);
        assert_eq!(t("quay.io/*", CriDockerd, Crio), (pats(&["quay.io/*"]), Fidelity::Wider));
        assert_eq!(t("*", CriDockerd, Crio), (pats(&["**"]), Fidelity::Exact));
        // The prefix "*pause": no name Docker reports starts with '*'.
        assert_eq!(t("*pause*", CriDockerd, Crio).1, Fidelity::Dropped);
        assert_eq!(t("  ", CriDockerd, Crio).1, Fidelity::Dropped);
        assert_eq!(t(" nginx:1 ", CriDockerd, Crio), (pats(&["docker.io/library/nginx:1"]), Fidelity::Wider));
    }

    #[test]
    fn crio_to_the_others() {
        use Runtime::{Containerd, ContainerdNormalized, CriDockerd, Crio};
        assert_eq!(t("quay.io/*", Crio, Containerd).1, Fidelity::Impossible);
        assert_eq!(t("*etcd*", Crio, CriDockerd).1, Fidelity::Impossible);
        assert_eq!(t("quay.io/*", Crio, CriDockerd), (pats(&["quay.io/*"]), Fidelity::Narrower));
        assert_eq!(t("docker.io/library/nginx:1", Crio, CriDockerd), (pats(&["nginx:1"]), Fidelity::Narrower));
        // Docker's familiar quay.io/a:1 is quay.io/a:1 alone (no Hub
        // namespace holds a '.'); but CRI-O's entry also pins QUAY.IO/a:1.
        let quay = translate("quay.io/a:1", Crio, CriDockerd);
        assert_eq!((quay.patterns, quay.fidelity), (pats(&["quay.io/a:1"]), Fidelity::Narrower));
        assert_eq!(quay.lost.map(|i| i.name().to_owned()).as_deref(), Some("QUAY.IO/a:1"));
        // A tag in upper case: CRI-O's entry pins the lower-case tag too.
        let tag = translate("quay.io/a:V1", Crio, Containerd);
        assert_eq!(tag.fidelity, Fidelity::Narrower);
        let lost = tag.lost.map(|i| i.name().to_owned()).unwrap_or_default();
        assert!(lost != "quay.io/a:V1" && lost.eq_ignore_ascii_case("quay.io/a:v1"), "{lost}");
        // Only case-blind names stay exact: digits, and no host to spell.
        assert_eq!(t("registry.k8s.io/pause:3.10", Crio, Containerd).1, Fidelity::Narrower);
        // CRI-O stores normalised names: a short one pins nothing there.
        assert_eq!(t("nginx:1", Crio, CriDockerd).1, Fidelity::Dropped);
        // CRI-O's glob also matches behind a mirror; cri-dockerd's prefix also
        // matches docker.io/nginx/x (Docker's nginx/x).
        assert_eq!(t("docker.io/library/nginx*", Crio, CriDockerd), (pats(&["nginx*"]), Fidelity::Different));
        assert_eq!(t(&format!("sha256:{}", "a".repeat(64)), Runtime::Containerd, CriDockerd).1, Fidelity::Impossible);
        // CRI-O stores qualified names: "nginx" pins nothing there.
        assert_eq!(t("nginx", Crio, ContainerdNormalized).1, Fidelity::Dropped);
        assert_eq!(t("**", Crio, Crio).1, Fidelity::Exact);
        assert_eq!(t("**", Crio, CriDockerd), (pats(&["*"]), Fidelity::Exact));
    }

    #[test]
    fn upper_case_and_image_ids_change_what_an_entry_pins() {
        use Runtime::{Containerd, Crio};
        assert_eq!(t("Registry.K8s.io/x:v1", Containerd, Crio).1, Fidelity::Wider);
        assert_eq!(t("Registry.K8s.io/x:v1", Crio, Containerd).1, Fidelity::Narrower);
        let id = format!("sha256:{}", "a".repeat(64));
        assert_eq!(t(&id, Containerd, Crio).1, Fidelity::Impossible);
        assert_eq!(t(&id, Containerd, Containerd).1, Fidelity::Exact);
    }

    /// `translated_patterns` decides `dropped` on the first witness the
    /// entry pins: the same answer as over every witness, and the same
    /// patterns or reason as `translate`, for every kind of entry.
    #[test]
    fn translated_patterns_answer_as_every_witness_does() {
        let digest = format!("sha256:{}", "ab".repeat(32));
        let texts = [
            format!("quay.io/openshift-release-dev/ocp-v4.0-art-dev@{digest}"),
            format!("busybox@{digest}"),
            digest.clone(),
            "docker.io/library/nginx:1.25".into(),
            "nginx:1.25".into(),
            "nginx".into(),
            "Quay.io/Team/App:V1".into(),
            "QUAY.IO/team/app".into(),
            "quay.io/team/*".into(),
            "quay.io/team*".into(),
            "*etcd*".into(),
            "*pause".into(),
            "*".into(),
            "**".into(),
            "registry.k8s.io/pause:3.10".into(),
            " quay.io/spaced:1 ".into(),
            "quay.io/a b".into(),
            "".into(),
        ];
        for &from in Runtime::ALL {
            for &to in Runtime::ALL {
                for text in &texts {
                    let slow = translate(text, from, to);
                    let slow = match slow.fidelity {
                        Fidelity::Dropped | Fidelity::Impossible => {
                            Err(Unwritten { fidelity: slow.fidelity, why: slow.why.unwrap() })
                        }
                        _ => Ok(slow.patterns),
                    };
                    assert_eq!(translated_patterns(text, from, to), slow, "{text:?} {from:?} -> {to:?}");
                    let Ok(source) = PinSet::compile([text.as_str()], from.facts().flags) else { continue };
                    let written = write(text, from, to).unwrap_or_default();
                    let every = witnesses(text.trim(), &written).iter().any(|i| pinned(&source, from, i) != Pinned::No);
                    assert_eq!(pins_a_witness(&source, from, text.trim(), &written), every, "{text:?} {from:?}");
                }
            }
        }
    }

    #[test]
    fn case_is_said_once_for_the_list() {
        assert!(case_note(Runtime::Containerd, Runtime::Crio).is_some_and(|n| n.contains("ignores case")));
        assert!(case_note(Runtime::Crio, Runtime::CriDockerd).is_some_and(|n| n.contains("compares case")));
        assert_eq!(case_note(Runtime::Containerd, Runtime::CriDockerd), None);
    }
}
