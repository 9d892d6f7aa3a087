//! What the tool knows of each runtime: one module per runtime behind one
//! face, [`Model`], and one list of them, [`RUNTIMES`] (made from the one
//! list of runtimes, `each_runtime!` in `runtime`, which makes the
//! [`Runtime`] type too), from which the values
//! of `--runtime`, each runtime's [`Facts`], its lint rules and the oracle
//! the proof of `translate`'s labels checks it against are all found. A
//! command asks "which names does this runtime compare for this image?"
//! without branching on the runtime.
//!
//! An image is described once, as a registry knows it ([`RegistryImage`]:
//! its references normalised, its ID); each runtime's module says which of
//! its names that runtime stores, in which form (Docker's familiar `nginx:1`
//! or the qualified `docker.io/library/nginx:1`), and which of them exist
//! only for some pulls (CRI-O keeps `repo@digest` of a tagged image only
//! when it was pulled by that digest). Whether a list pins the image is then
//! the library's `PinSet`, under the runtime's flags, over those names: the
//! same decision `explain` makes, and the one `translate` labels from.
//!
//! Beside that behaviour each module keeps its [`Facts`], plain data: its
//! library flags and `--runtime` value, how messages name it, the options
//! it does not read. Adding a runtime is its module (its `Model` with its
//! `Facts`, lint `Rules` and oracle) and one line in `each_runtime!`
//! (docs/runtimes.md, "Adding a runtime").

pub mod containerd;
pub mod cri_dockerd;
pub mod crio;
pub mod kubelet;
pub mod label_warnings;

use clap::builder::PossibleValue;
use clap::ValueEnum;
use crio_pin::{ErrorKind, Flags, Pattern, PinSet};

use crate::causes::Causes;
use crate::error::InputError;
use crate::findings::{Artifacts, Rules};
use crate::images::{repository, Image, Name, Naming};
use crate::labels::{LabelPin, LabelSelector};
use crate::list::{Entry, Resolved, Warning};
use crate::refused::Refusals;
use crate::runtime::each_runtime;
use crate::runtime::Runtime;
use crate::sources::Sources;

// The models of the one list of runtimes (`each_runtime!`, beside the
// `Runtime` type it makes), in `Runtime`'s order.
macro_rules! runtime_models {
    ($($variant:ident => $model:expr,)*) => {
        /// Every runtime, each its module's face, in `Runtime`'s order.
        pub static RUNTIMES: &[&dyn Model] = &[$(&$model,)*];
    };
}

each_runtime!(runtime_models);

/// An image as a registry knows it, whatever runtime pulled it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegistryImage {
    /// Its tagged references, normalised (`docker.io/library/nginx:1`).
    pub tags: Vec<String>,
    /// Its digested references, normalised (`quay.io/a/b@sha256:…`).
    pub digests: Vec<String>,
    /// Its image ID (`sha256:…`), the record name containerd also keeps.
    pub id: Option<String>,
}

/// Whether a runtime keeps a name of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Whatever the pull.
    Always,
    /// Only when the image was pulled by this digest.
    IfPulledByDigest,
}

/// A name a runtime compares its list with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredName {
    pub text: String,
    pub held: Held,
}

/// Whether a list pins an image under a runtime's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pinned {
    Yes,
    No,
    /// Pinned only if the image was pulled by a digest the list names (the
    /// word `explain` uses is "undecided").
    IfPulledByDigest,
}

/// A runtime's facts, which every theme of its face starts from.
pub trait Known: Sync {
    /// What the tool knows of it beside its behaviour.
    fn facts(&self) -> &'static Facts;

    /// The runtime, as messages name it.
    fn name(&self) -> &'static str {
        self.facts().name
    }
}

/// How it reads its list: where from (its configuration), what each
/// entry means to it, what it refuses, and its lint rules over the list.
pub trait ReadConfig: Known {
    /// The list its configuration holds, read from where `sources` say as
    /// the runtime reads it.
    fn read_config(&self, sources: &Sources) -> Result<Resolved, InputError>;

    /// The label selectors of its configuration (`values`: the
    /// --pinned-image-labels given), with what is wrong with them.
    fn label_selectors(&self, values: &[String]) -> Result<(Vec<LabelSelector>, Vec<Warning>), InputError> {
        match values {
            [] => Ok(Default::default()),
            _ => Err(InputError(format!(
                "--pinned-image-labels is cri-dockerd's flag, and {} pins by no label selector: drop it, or use \
                 --runtime cri-dockerd",
                self.name()
            ))),
        }
    }

    /// Why this runtime refuses `text` beyond what the library refuses
    /// under its flags (the kubelet's allowlist), in its words.
    fn refuses(&self, _text: &str) -> Option<String> {
        None
    }

    /// What `text` means as an entry of its list (`flags`: its own):
    /// the library's reading, unless the runtime means more by it.
    fn parse<'t>(&self, text: &'t str, flags: Flags) -> Result<Pattern<'t>, ErrorKind> {
        Pattern::parse(text, flags)
    }

    /// Its lint rules, under `flags` (its own, with its modes); artifacts:
    /// the OCI artifacts of an `--images` listing.
    fn lint_rules<'a>(&self, flags: Flags, artifacts: Option<&'a Artifacts>) -> Box<dyn Rules + 'a>;
}

/// The names it stores for an image, which it compares its list with,
/// and the labels it pins by.
pub trait StoredNames: Known {
    /// The names the runtime compares its list with, for `image`.
    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName>;

    /// How it names its images, as `--images` reads them.
    fn naming(&self) -> Naming;

    /// The images (normalised references) whose stored name is `name`, an
    /// exact value of its list.
    fn images_named(&self, name: &str) -> Vec<String> {
        crate::images::normalized(name).into_iter().filter(|r| crate::images::can_exist(r)).collect()
    }

    /// A normalised reference (`docker.io/library/nginx:1`) in the form this
    /// runtime stores and reports it.
    fn stored_form<'a>(&self, reference: &'a str) -> &'a str {
        reference
    }

    /// The label by which this runtime pins `image` whatever its list says
    /// (`selectors`: its configuration's label selectors), and who set it;
    /// None when no label pins it, or its labels are unknown.
    fn label_pin(&self, _image: &Image, _selectors: &[LabelSelector]) -> Option<LabelPin> {
        None
    }

    /// The label keys it pins by, or marks its pins with: what `lint`
    /// measures near-miss keys against.
    fn pinning_label_keys(&self) -> &'static [&'static str] {
        &[]
    }
}

/// How it writes a list: each kind of pattern in its terms (`translate`,
/// `lint --fix`).
pub trait WriteList: Known {
    /// Whether this runtime reads `name` as that exact name.
    fn writes_exactly(&self, name: &str) -> bool {
        !name.is_empty()
    }

    /// A prefix in this runtime's terms (`anchored`: matched only at the
    /// start of a name, cri-dockerd's; else anywhere, CRI-O's globs).
    fn write_prefix(&self, _prefix: &str, _anchored: bool) -> Result<Vec<String>, String> {
        Err(format!("{} has no wildcard", self.name()))
    }

    /// CRI-O's keyword `*word*` in this runtime's terms.
    fn write_keyword(&self, _word: &str) -> Result<Vec<String>, String> {
        Err(format!("{} has no keyword (\"*word*\")", self.name()))
    }

    /// Every tag and digest of a repository (normalised) in this runtime's
    /// terms.
    fn write_repository(&self, _repository: &str) -> Result<Vec<String>, String> {
        Err(format!("{} has no wildcard: it cannot pin every tag of a repository", self.name()))
    }

    /// A list written as this runtime reads it, each pattern with the entry
    /// it translates.
    fn write_list(&self, patterns: &[(&Entry, &str)]) -> String;
}

/// What it says in its own terms: the likely causes of a disagreement,
/// and the notes beside a stored name, a default entry, a written list.
/// (What it says of a refused list is `refused::Refusals`, which the
/// refused lists' file defines below the runtimes.)
pub trait Speak: Known {
    /// The likely causes of a disagreement between the running runtime and
    /// the list read here about image `at` (`explain --check`), added to
    /// `causes`: `runtime_pins` is what the runtime said, `decided_by` the
    /// name by which the list pins it.
    fn likely_causes(
        &self,
        causes: &mut Causes<'_>,
        at: usize,
        image: &Image,
        runtime_pins: bool,
        decided_by: Option<&Name>,
    );

    /// Where a name given by hand is `stored` (quoted), and why, as
    /// `explain` notes it: "is stored by … as …".
    fn stored_as_note(&self, stored: &str) -> String;

    /// What `config` says of an entry no file wrote, the runtime's own
    /// default (containerd's sandbox image).
    fn default_note(&self, _entry: &Entry) -> Option<String> {
        None
    }

    /// What a reader of the list `write_list` writes must know before using
    /// it.
    fn list_note(&self) -> Option<&'static str> {
        None
    }
}

/// One runtime, as its module knows it: the one face through which the
/// commands reach it, its themes (read, store, write, speak) under it.
pub trait Model: Known + ReadConfig + StoredNames + WriteList + Speak + Refusals {
    /// Its rules as the library's oracle of them (written from the
    /// runtime's own code), over `list`: what the proof of `translate`'s
    /// labels checks the tool against.
    #[cfg(test)]
    fn oracle(&self, list: &[String]) -> Box<dyn Oracle>;
}

/// What the tool knows of a runtime beside its behaviour, as data: its
/// `--runtime` value, its library flags, how messages name it, the options
/// it does not read. Each runtime's module holds its own, beside its
/// [`Model`] (containerd's fix PRs are a variant of containerd's).
pub struct Facts {
    /// The library's rules for it.
    pub flags: Flags,
    /// The modes a user may add to its rules (`--anchor-globs`,
    /// `--case-sensitive`, `--strict`): CRI-O's options, fixed elsewhere.
    pub modes: Flags,
    /// The value of `--runtime` that selects it.
    pub option: &'static str,
    /// The runtime, as messages name it.
    pub name: &'static str,
    /// How it compares, for the messages that say its rules are fixed.
    pub rules: &'static str,
    /// What `--runtime`'s help says of it.
    pub help: &'static str,
    /// Who refuses to pull a name that is a reference but for its case.
    pub puller: &'static str,
    /// Who does something with a list the library refuses, as messages
    /// say it: the runtime, or containerd with the fix whose rules these are.
    pub refuser: &'static str,
    /// The same, where a message sets it beside a runtime built on this
    /// library (CRI-O as released: "stock CRI-O").
    pub stock_refuser: &'static str,
    /// What it does with a value that is not UTF-8.
    pub on_not_utf8: &'static str,
    /// Why each option that says where a configuration is means nothing to
    /// it (`None`: it reads that option).
    pub unread: Unread,
    /// It pins an image by a value that equals its image ID (`sha256:…`),
    /// its record's name: not a name other runtimes compare.
    pub pins_image_ids: bool,
    /// Its default CRI socket, as crictl names an endpoint, which `check`
    /// reads its images from (None: not a runtime).
    pub cri_endpoint: Option<&'static str>,
}

/// Why a runtime has no use for each option that says where its
/// configuration is, as the usage error says it.
pub struct Unread {
    pub config: Option<&'static str>,
    pub config_dir: Option<&'static str>,
    pub pinned_images: Option<&'static str>,
    pub pause_image: Option<&'static str>,
}

impl Runtime {
    /// What this runtime stores for an image, how it reads and writes
    /// lists: its module's face, from the one list.
    pub fn model(self) -> &'static dyn Model {
        RUNTIMES[self as usize]
    }

    /// Its facts, from its module.
    pub fn facts(self) -> &'static Facts {
        self.model().facts()
    }

    /// Its oracle over `list` (its module's, from the same list).
    #[cfg(test)]
    pub fn oracle(self, list: &[String]) -> Box<dyn Oracle> {
        self.model().oracle(list)
    }

    /// The runtime whose rules `flags` are, with its modes. The tool builds
    /// its flags only from a runtime (CRI-O's with its modes added), so
    /// they tell it back: what takes the flags needs no runtime beside them.
    pub fn of(flags: Flags) -> Runtime {
        let own = |r: &&Runtime| {
            let facts = r.facts();
            flags.bits() & !facts.modes.bits() == facts.flags.bits()
        };
        *Runtime::ALL.iter().find(own).expect("flags built from a runtime")
    }
}

/// `--runtime`: each runtime's value is its module's `option`.
impl ValueEnum for Runtime {
    fn value_variants<'a>() -> &'a [Runtime] {
        Runtime::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.facts().option))
    }
}

/// One pull of an image, built by the proof of `translate`'s labels from
/// the image's parts (not by the tool's model): each runtime's oracle
/// takes from it the names that runtime stores.
#[cfg(test)]
#[derive(Debug)]
pub struct Pull {
    /// Its tagged reference, normalised, if it has a tag.
    pub tag: Option<String>,
    /// Its digested reference, normalised.
    pub digest: String,
    /// Its image ID, `sha256:…`.
    pub id: String,
    /// Pulled by its digest too (by its tag alone otherwise).
    pub by_digest: bool,
}

/// A runtime's rules as its library oracle has them (the library's
/// `testing` feature), over one list.
#[cfg(test)]
pub trait Oracle {
    /// Whether the list pins the image of `pull`, by the names this
    /// runtime stores for it.
    fn pins(&self, pull: &Pull) -> bool;
}

/// The list `sources` give: a pattern file, else the configuration of
/// their runtime, read as that runtime reads it.
pub fn resolve(sources: &Sources) -> Result<Resolved, InputError> {
    let mut resolved = match &sources.patterns {
        Some(path) => crate::sources::pattern_file(path),
        None => sources.runtime.model().read_config(sources),
    }?;
    let (selectors, warnings) = sources.runtime.model().label_selectors(&sources.pinned_image_labels)?;
    resolved.label_selectors = selectors;
    resolved.warnings.extend(warnings);
    Ok(resolved)
}

/// The lint rules of the runtime whose flags `flags` are (CRI-O's with its
/// modes); `artifacts`: CRI-O's OCI artifacts of an `--images` listing.
pub fn lint_rules(flags: Flags, artifacts: Option<&Artifacts>) -> Box<dyn Rules + '_> {
    Runtime::of(flags).model().lint_rules(flags, artifacts)
}

/// Whether `set`, compiled with `runtime`'s flags, pins `image`.
pub fn pinned(set: &PinSet, runtime: Runtime, image: &RegistryImage) -> Pinned {
    pinning_name(set, runtime, image).map_or(Pinned::No, |(_, held)| match held {
        Held::Always => Pinned::Yes,
        Held::IfPulledByDigest => Pinned::IfPulledByDigest,
    })
}

/// The name by which `set` pins `image` under `runtime` (one held whatever
/// the pull, when there is one), and whether it is always held.
pub fn pinning_name(set: &PinSet, runtime: Runtime, image: &RegistryImage) -> Option<(String, Held)> {
    let names = runtime.model().stored_names(image);
    let matching = |held: Held| names.iter().find(|n| n.held == held && set.is_match(n.text.as_bytes()));
    matching(Held::Always).or_else(|| matching(Held::IfPulledByDigest)).map(|n| (n.text.clone(), n.held))
}

impl RegistryImage {
    /// The image a listing describes by `names` (in whatever form the
    /// listing's runtime reports them) and `id`: each name normalised as a
    /// pull stores it; one that is no reference is kept as written.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>, id: Option<&str>) -> RegistryImage {
        let mut image = RegistryImage { tags: Vec::new(), digests: Vec::new(), id: id.map(image_id) };
        for name in names {
            let normal = crate::images::normalized(name).unwrap_or_else(|_| name.to_owned());
            let list = if normal.contains('@') { &mut image.digests } else { &mut image.tags };
            if !list.contains(&normal) {
                list.push(normal);
            }
        }
        image
    }

    /// The image a pull of `reference` (normalised) gives: its tag, or its
    /// digest alone.
    pub fn pulled_as(reference: &str) -> RegistryImage {
        let id = Some(image_id(&synthetic_hex(reference, 1)));
        if reference.contains('@') {
            RegistryImage { tags: Vec::new(), digests: vec![reference.to_owned()], id }
        } else {
            let digest = format!("{}@sha256:{}", repository(reference), synthetic_hex(reference, 0));
            RegistryImage { tags: vec![reference.to_owned()], digests: vec![digest], id }
        }
    }

    /// The name to show for it: its first tag, else its first digest.
    pub fn name(&self) -> &str {
        self.tags.first().or(self.digests.first()).or(self.id.as_ref()).map_or("", String::as_str)
    }
}

/// An image ID as containerd names its record: `sha256:` and the hex.
fn image_id(id: &str) -> String {
    if id.contains(':') {
        id.to_owned()
    } else {
        format!("sha256:{id}")
    }
}

/// 64 hex digits that stand for a digest or ID no entry names: made from
/// `text` so that different images get different ones.
fn synthetic_hex(text: &str, salt: u64) -> String {
    // FNV-1a, four lanes: stable across runs and builds.
    (0..4u64)
        .map(|lane| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ (salt * 4 + lane);
            for b in text.bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            format!("{h:016x}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runtime_is_told_back_by_its_flags_and_its_value() {
        for runtime in Runtime::value_variants() {
            assert_eq!(Runtime::of(runtime.facts().flags), *runtime);
            assert_eq!(Runtime::from_str(runtime.facts().option, false), Ok(*runtime));
        }
        let values: Vec<&str> = Runtime::ALL.iter().map(|r| r.facts().option).collect();
        assert_eq!(values, ["crio", "containerd", "containerd-normalized", "cri-dockerd", "kubelet"]);
        assert_eq!(Runtime::default(), Runtime::Crio);
        // CRI-O's modes are still CRI-O.
        assert_eq!(Runtime::of(Flags::ANCHOR_GLOBS | Flags::CASE_SENSITIVE | Flags::STRICT), Runtime::Crio);
    }

    #[test]
    fn each_runtime_stores_its_own_names_of_an_image() {
        let image = RegistryImage::pulled_as("docker.io/library/nginx:1");
        let digest = image.digests[0].clone();
        let texts = |r: Runtime| -> Vec<(String, Held)> {
            r.model().stored_names(&image).into_iter().map(|n| (n.text, n.held)).collect()
        };
        let tag = ("docker.io/library/nginx:1".to_string(), Held::Always);
        assert_eq!(texts(Runtime::Crio), [tag.clone(), (digest.clone(), Held::IfPulledByDigest)]);
        let id = (image.id.clone().unwrap(), Held::Always);
        assert_eq!(texts(Runtime::Containerd), [tag, (digest.clone(), Held::Always), id]);
        let short_digest = digest.replace("docker.io/library/", "");
        assert_eq!(texts(Runtime::CriDockerd), [("nginx:1".to_string(), Held::Always), (short_digest, Held::Always)]);
        // Pulled by digest alone, CRI-O keeps the digest.
        let by_digest = RegistryImage::pulled_as(&digest);
        assert_eq!(Runtime::Crio.model().stored_names(&by_digest)[0].held, Held::Always);
    }

    #[test]
    fn a_digest_pattern_pins_a_tagged_image_under_crio_only_if_pulled_by_it() {
        let image = RegistryImage::pulled_as("quay.io/a/b:1");
        let set = |r: Runtime| PinSet::compile(&image.digests, r.facts().flags).unwrap();
        assert_eq!(pinned(&set(Runtime::Crio), Runtime::Crio, &image), Pinned::IfPulledByDigest);
        assert_eq!(pinned(&set(Runtime::Containerd), Runtime::Containerd, &image), Pinned::Yes);
        assert_eq!(pinned(&set(Runtime::CriDockerd), Runtime::CriDockerd, &image), Pinned::Yes);
    }
}
