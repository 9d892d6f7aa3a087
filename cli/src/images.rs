//! The images to explain: `crictl images -o json` output or plain names,
//! and which of their names CRI-O really stores.
//!
//! CRI-O matches `pinned_images` against the names in its storage only. A
//! live CRI-O v1.37 showed (tests/data/crio-listings): a pull by tag stores
//! `repo:tag` only, and the repoDigest crictl prints for it is computed; a
//! pull by digest stores `repo@sha256:…` only, and crictl then prints no
//! repoTag for that repository; a pull both ways stores both.
//!
//! CRI-O lists OCI artifacts among the images, with nothing in crictl's
//! JSON to say which is which, and pins an artifact when a pattern matches
//! its reference (`repo:tag`, its repoTag) or its canonical name
//! (`repo@<manifest digest>`, its repoDigest), however it was pulled
//! (internal/ociartifact: `isArtifactPinned`). An artifact's id is its
//! manifest digest (`CRIImage`: `Id: Digest().Encoded()`), so it equals the
//! digest of its repoDigest; a container image's id is its config digest,
//! which never equals a manifest digest. That is how an artifact is told
//! from an image here.
//!
//! The other runtimes answer the same CRI listing, and match other names.
//! containerd keeps a record for each name of an image (a pull by tag
//! stores the tag, the repository@digest and the image ID `sha256:…`),
//! and pins the image when a value equals any of them: every listed name
//! counts, and the ID too (runtimes-spec: image_pull.go, getLabels and
//! UpdateImage). cri-dockerd matches the repoTags and repoDigests Docker
//! reports, every one of them. Neither lists OCI artifacts.

pub mod ctr_listing;
pub mod docker_inspect;

use std::collections::HashMap;

use oci_spec::distribution::Reference;
use serde::Deserialize;

use crate::error::InputError;
use crate::show;

/// CRI-O's default pause image: the name it pins when no pause_image is
/// set (and what a bad one should become).
pub const DEFAULT_PAUSE_IMAGE: &str = "registry.k8s.io/pause:3.10.1";

/// One image and its names.
#[derive(Clone, Debug)]
pub struct Image {
    pub id: Option<String>,
    pub names: Vec<Name>,
    /// The `pinned` flag the runtime reported.
    pub runtime_pinned: Option<bool>,
    /// A short name as given, when it was qualified as the runtime stores
    /// it (cri-dockerd: as Docker reports it).
    pub given: Option<String>,
    /// Why the runtime refuses to pull a name given by hand that is an
    /// image reference but for its case (`Nginx:1`): no image can have it.
    pub refused: Option<String>,
    /// Taken for an OCI artifact, and why (every name then counts: CRI-O
    /// matches an artifact's reference and its canonical name).
    pub artifact: Option<&'static str>,
    /// Its labels, sorted, when a listing that shows them was read (`ctr
    /// images ls`, `docker image inspect`); None: unknown (crictl's listing
    /// has none), which is not the same as none.
    pub labels: Option<Vec<(String, String)>>,
    /// What its listing could not tell of its labels, each at its row
    /// (`ambiguous-label`: a comma that may be a separator or part of a
    /// value, deciding a pin label), said by `runtimes::label_warnings::listing_warnings`.
    pub label_doubts: Vec<LabelDoubt>,
}

/// A row of a listing whose labels read two ways (`Image::label_doubts`).
#[derive(Clone, Debug)]
pub struct LabelDoubt {
    pub file: String,
    pub line: usize,
    /// Why, and which reading was taken.
    pub why: String,
}

/// How a runtime names its images, as `--images` reads them: each
/// runtime's model gives its own (`Model::naming`).
#[derive(Clone, Copy)]
pub struct Naming {
    /// The name it stores for an image pulled by `name`, or why `name` is
    /// no reference it can pull.
    pub pulled_as: fn(&str) -> Result<String, String>,
    /// It keeps a record named by the image ID (`sha256:…`) that a value
    /// can equal, so an ID given by hand names an image (containerd).
    pub image_id_record: bool,
    /// It lists OCI artifacts among the images (CRI-O): told by their id.
    pub lists_artifacts: bool,
    /// It stores the repository@digest of an image that also has a tag in
    /// that repository whatever the pull (not CRI-O: only when pulled by
    /// that digest).
    pub digest_beside_tag: bool,
    /// The listing of its own that shows the labels it pins by, which
    /// `--images` reads besides crictl's (None: it pins by no label).
    pub label_listing: Option<LabelListing>,
    /// The text its matcher compares for a stored name: the name itself for
    /// a container runtime; its repository for the kubelet, which matches
    /// the pod's image without tag or digest.
    pub compared_as: fn(&str) -> &str,
    /// The labels it pins by, as ctr's listing is read for them (None: it
    /// pins by no label of ctr's).
    pub pin_labels: Option<&'static dyn ctr_listing::PinLabels>,
}

/// A runtime's own listing of its images with their labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelListing {
    /// `ctr -n k8s.io images ls`: containerd's image records.
    Ctr,
    /// `docker image inspect`: Docker's images, with their config's labels.
    DockerInspect,
}

impl LabelListing {
    /// The command that writes it, and whose it is, for messages.
    pub fn command(self) -> &'static str {
        match self {
            LabelListing::Ctr => "`ctr -n k8s.io images ls` (containerd's image records)",
            LabelListing::DockerInspect => "`docker image inspect` (Docker's, under cri-dockerd)",
        }
    }
}

/// Why a listed entry is taken for an OCI artifact, as printed and in JSON.
pub const ARTIFACT_WHY: &str = "id equals the manifest digest of its repoDigest";

#[derive(Clone, Debug)]
pub struct Name {
    pub text: String,
    /// Whether CRI-O matches this name: a name it stores, or either name of
    /// an artifact (false: a digest computed by crictl that CRI-O stores
    /// only when the image was pulled by it).
    pub stored: bool,
    /// A repoTag of a crictl listing: stored whatever the pull.
    pub is_tag: bool,
    /// containerd: the image ID, a record name it matches, not one of the
    /// names the image is listed with.
    pub is_id: bool,
}

/// The most images a listing may hold (crictl's or the runtime's answer
/// over CRI): 100 times the largest node seen (20,000 images), and about
/// 1.5 GB of memory in `check`, which keeps each image's names (about 750
/// bytes an image). Past it the input is refused, not held in the memory
/// of a monitoring job (docs/tool.md, "check").
pub const MAX_IMAGES: usize = 2_000_000;

/// Why a listing of `images` images is not read.
pub fn too_many_images(what: &str, images: usize) -> InputError {
    InputError(format!(
        "{what}: {images} images, more than {MAX_IMAGES}, 100 times the largest node seen; \
         not checked, so that a wrong input cannot take the memory of the node's monitoring (a node \
         with that many images has others to remove first: `crictl rmi --prune` removes those no container uses)"
    ))
}

/// crictl's `{"images": [...]}`: each image made an `Image` as it is
/// decoded, so that no second copy of every name is held.
struct Listing {
    images: Counted,
}

/// The images of a listing, or past `MAX_IMAGES` only how many there are
/// (the rest counted, not kept).
type Counted = Result<Vec<Image>, usize>;

/// What decoding a listing needs beside the text: the runtime's naming.
#[derive(Clone, Copy)]
struct Decoding {
    naming: Naming,
}

impl<'de> serde::de::DeserializeSeed<'de> for Decoding {
    type Value = Listing;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Listing, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Decoding {
    type Value = Listing;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("crictl's listing, {\"images\": [...]}")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Listing, A::Error> {
        let mut images = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "images" {
                images = Some(map.next_value_seed(Images(self))?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        let images = images.ok_or_else(|| serde::de::Error::missing_field("images"))?;
        Ok(Listing { images })
    }
}

/// crictl's array of images, each made an `Image` as it is decoded.
struct Images(Decoding);

impl<'de> serde::de::DeserializeSeed<'de> for Images {
    type Value = Counted;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Counted, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Images {
    type Value = Counted;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of images")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Counted, A::Error> {
        let naming = self.0.naming;
        let mut images = Vec::new();
        while let Some(listed) = seq.next_element::<Listed>()? {
            if images.len() == MAX_IMAGES {
                // Past the bound: the others counted, not kept (their
                // syntax still checked).
                let mut count = images.len() + 1;
                drop(images);
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    count += 1;
                }
                return Ok(Err(count));
            }
            images.push(from_listing(listed, naming));
        }
        images.shrink_to_fit();
        Ok(Ok(images))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    /// Required: it tells a crictl image from other JSON.
    id: String,
    #[serde(default)]
    repo_tags: Option<Vec<String>>,
    #[serde(default)]
    repo_digests: Option<Vec<String>>,
    #[serde(default)]
    pinned: Option<bool>,
}

/// What `--images` takes, for messages.
pub const EXPECTED: &str = "the output of `crictl images -o json` \
                            ({\"images\": [{\"id\", \"repoTags\", \"repoDigests\", \"pinned\"}, …]}, or \
                            its array, `jq .images`), of `ctr -n k8s.io images ls` (containerd: a table REF TYPE \
                            DIGEST SIZE PLATFORMS LABELS), of `docker image inspect` (cri-dockerd: [{\"Id\", \
                            \"RepoTags\", \"RepoDigests\", \"Config\": {\"Labels\"}}, …]), or image names one a line";

/// Reads `--images FILE` (or `-` for standard input), the names as a
/// runtime named by `naming` matches them.
pub fn read(path: &str, naming: Naming) -> Result<Vec<Image>, InputError> {
    let bytes = crate::input::read_arg(path)?;
    parse(path, &bytes, naming)
}

/// Reads every `--images FILE`, merging the images of several by image
/// ID (or, where a listing has none, by a name both list): crictl's
/// listing for the runtime's `pinned` flags with the runtime's own for the
/// labels.
pub fn read_all(paths: &[String], naming: Naming) -> Result<Vec<Image>, InputError> {
    let mut images: Vec<Image> = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let read = read(path, naming)?;
        if i == 0 {
            images = read;
            continue;
        }
        let mut by_id: HashMap<String, usize> = HashMap::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (at, image) in images.iter().enumerate() {
            if let Some(id) = &image.id {
                by_id.entry(id_key(id).to_owned()).or_insert(at);
            }
            for name in image.names.iter().filter(|n| !n.is_id) {
                by_name.entry(name.text.clone()).or_insert(at);
            }
        }
        for image in read {
            let same = match &image.id {
                Some(id) if by_id.contains_key(id_key(id)) => by_id.get(id_key(id)).copied(),
                // Only where one of the two has no ID can a name decide.
                _ => image
                    .names
                    .iter()
                    .filter(|n| !n.is_id)
                    .find_map(|n| by_name.get(&n.text).copied())
                    .filter(|&at| images[at].id.is_none() || image.id.is_none()),
            };
            match same {
                Some(at) => combine(&mut images[at], image),
                None => images.push(image),
            }
        }
    }
    Ok(images)
}

/// An image ID without its algorithm: CRI-O's crictl listing gives bare hex.
fn id_key(id: &str) -> &str {
    id.strip_prefix("sha256:").unwrap_or(id)
}

/// What two listings say of one image: every name; pinned if either says
/// so (a pin is never dropped); the labels of both.
fn combine(into: &mut Image, other: Image) {
    for name in other.names {
        match into.names.iter_mut().find(|n| n.text == name.text) {
            Some(n) => {
                n.stored |= name.stored;
                n.is_tag |= name.is_tag;
            }
            None => into.names.push(name),
        }
    }
    into.runtime_pinned = match (into.runtime_pinned, other.runtime_pinned) {
        (Some(a), Some(b)) => Some(a || b),
        (a, b) => a.or(b),
    };
    if let Some(labels) = other.labels {
        let mine = into.labels.get_or_insert_with(Vec::new);
        mine.extend(labels);
        mine.sort();
        mine.dedup();
    }
    into.label_doubts.extend(other.label_doubts);
    into.id = into.id.take().or(other.id);
    into.artifact = into.artifact.or(other.artifact);
    into.given = into.given.take().or(other.given);
    into.refused = into.refused.take().or(other.refused);
}

/// A crictl listing, its array of images, the runtime's own listing with
/// labels, or names one a line. No image name starts with `{` or `[`
/// (containers/image takes no IPv6 registry).
pub fn parse(path: &str, bytes: &[u8], naming: Naming) -> Result<Vec<Image>, InputError> {
    // crictl always prints a document ({"images": []} for a node without
    // images): nothing at all means the command that wrote it failed, and a
    // check must not pass on it.
    if bytes.iter().all(u8::is_ascii_whitespace) {
        let what = if path == "-" { "standard input" } else { path };
        let nothing = if bytes.is_empty() { "nothing (zero bytes)" } else { "only whitespace" };
        return Err(InputError(format!(
            "{what} has {nothing}: the command that produced it printed nothing, which crictl never does \
             (a node without images is {{\"images\": []}}); check that `crictl images -o json` ran and succeeded"
        )));
    }
    let json_error = |e: serde_json::Error| {
        InputError(format!("{path}:{}:{}: {e}; --images takes {EXPECTED}", e.line(), e.column()))
    };
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => {
            let mut decoder = serde_json::Deserializer::from_slice(bytes);
            let listing = serde::de::DeserializeSeed::deserialize(Decoding { naming }, &mut decoder);
            let listing = listing.map_err(json_error)?;
            decoder.end().map_err(json_error)?;
            return listing.images.map_err(|count| too_many_images(path, count));
        }
        // crictl's array, or Docker's (its keys capitalised: "Id").
        Some(b'[') if first_key(bytes).is_some_and(|k| k.starts_with(|c: char| c.is_ascii_uppercase())) => {
            own_listing(path, LabelListing::DockerInspect, naming)?;
            return docker_inspect::parse(path, bytes, naming);
        }
        Some(b'[') => {
            let mut decoder = serde_json::Deserializer::from_slice(bytes);
            let images = serde::de::DeserializeSeed::deserialize(Images(Decoding { naming }), &mut decoder);
            let images = images.map_err(json_error)?;
            decoder.end().map_err(json_error)?;
            return images.map_err(|count| too_many_images(path, count));
        }
        _ => {}
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        InputError(format!(
            "{path}: not valid UTF-8 (bad byte at offset {}); --images takes {EXPECTED}",
            e.valid_up_to()
        ))
    })?;
    let mut images = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if ctr_listing::is_header(line) {
            own_listing(path, LabelListing::Ctr, naming)?;
            return ctr_listing::parse(path, text, naming);
        }
        if is_docker_table_header(line) {
            return Err(InputError(format!(
                "{path}:{}: this looks like `docker images` (a table: REPOSITORY  TAG  IMAGE ID), which shows \
                 no digests and no labels; give the output of `docker image inspect $(docker image ls -q)`, or \
                 of `crictl images -o json`",
                i + 1
            )));
        }
        if is_crictl_table_header(line) {
            return Err(InputError(format!(
                "{path}:{}: this looks like `crictl images` without `-o json` (a table: IMAGE  TAG  IMAGE ID  \
                 SIZE), which does not say how an image was pulled; give the output of `crictl images -o json`",
                i + 1
            )));
        }
        images.push(plain(line, naming).map_err(|why| {
            InputError(format!(
                "{path}:{}: {} is not an image name ({why}); --images takes {EXPECTED}",
                i + 1,
                show::quote(line)
            ))
        })?);
    }
    Ok(images)
}

/// The header of `docker images`' table (`REPOSITORY  TAG  IMAGE ID  …`).
fn is_docker_table_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("REPOSITORY") && words.next() == Some("TAG")
}

/// The first key of the first object of a JSON array, to tell crictl's
/// array (`"id"`) from Docker's (`"Id"`) before reading either whole.
fn first_key(bytes: &[u8]) -> Option<&str> {
    let open = bytes.iter().position(|&b| b == b'{')?;
    let between = &bytes[bytes.iter().position(|&b| b == b'[')? + 1..open];
    if !between.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let rest = &bytes[open + 1..];
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let key = rest[start..].strip_prefix(b"\"")?;
    std::str::from_utf8(&key[..key.iter().position(|&b| b == b'"')?]).ok()
}

/// Err unless `listing` is the runtime's own (a ctr listing names images
/// as containerd stores them, Docker's as Docker reports them).
fn own_listing(path: &str, listing: LabelListing, naming: Naming) -> Result<(), InputError> {
    if naming.label_listing == Some(listing) {
        return Ok(());
    }
    let runtime = match listing {
        LabelListing::Ctr => "--runtime containerd (or containerd-normalized)",
        LabelListing::DockerInspect => "--runtime cri-dockerd",
    };
    Err(InputError(format!(
        "{path}: this is the output of {}, which names images as that runtime does: give it with {runtime}, \
         or give the output of `crictl images -o json`, which every runtime answers",
        listing.command()
    )))
}

/// The header of `crictl images`' table (`IMAGE  TAG  IMAGE ID  SIZE`,
/// with `--digests` a DIGEST column): no image name has blanks.
fn is_crictl_table_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("IMAGE") && words.next() == Some("TAG")
}

/// A name given by the user, in the form the runtime would store it
/// (`Naming::pulled_as`). One that is a reference but for its case is
/// kept as given, with the reason the runtime refuses it; Err: not an
/// image reference at all. A runtime with image-ID records (containerd)
/// takes an image ID (`sha256:…`) too: it is a record name it matches.
pub fn plain(name: &str, naming: Naming) -> Result<Image, String> {
    if naming.image_id_record && is_image_id(name) {
        let names = vec![Name { text: name.to_string(), stored: true, is_tag: false, is_id: true }];
        return Ok(Image {
            id: Some(name.to_string()),
            names,
            runtime_pinned: None,
            given: None,
            refused: None,
            artifact: None,
            labels: None,
            label_doubts: Vec::new(),
        });
    }
    let (text, given, refused) = match (naming.pulled_as)(name) {
        Ok(text) => {
            let given = (text != name).then(|| name.to_string());
            (text, given, None)
        }
        Err(why) if (naming.pulled_as)(&name.to_lowercase()).is_ok() => (name.to_string(), None, Some(why)),
        Err(why) => return Err(why),
    };
    let names = vec![Name { text, stored: true, is_tag: false, is_id: false }];
    Ok(Image {
        id: None,
        names,
        runtime_pinned: None,
        given,
        refused,
        artifact: None,
        labels: None,
        label_doubts: Vec::new(),
    })
}

/// Whether `text` is an image ID as containerd names its record
/// (`sha256:` and 64 hex digits): a value equal to it pins that image.
pub fn is_image_id(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `text` normalised as containerd normalises a pulled name
/// (`ParseDockerRef`), or why it is no reference.
pub fn normalized(text: &str) -> Result<String, &'static str> {
    crio_pin::normalize::normalize(text.as_bytes()).map(|n| String::from_utf8_lossy(&n.to_vec()).into_owned())
}

/// Whether the normalised `reference` can name a pulled image. Docker
/// Hub's namespaces are Docker IDs (lower-case letters and digits), so a
/// Hub path whose first component holds a `.` or `:` names nothing
/// anyone can pull: `docker.io/quay.io/a:1`, which Docker's familiar form
/// would also print as `quay.io/a:1`. Reading familiar names back, only
/// the other reading is an image.
pub fn can_exist(reference: &str) -> bool {
    reference
        .strip_prefix("docker.io/")
        .is_none_or(|path| !path.split('/').next().unwrap_or_default().contains(['.', ':']))
}

/// Docker's familiar form of a name on Docker Hub (reference.FamiliarString:
/// no `docker.io/`, and no `library/` before a one-part path); None when
/// `text` names no Docker Hub repository.
pub fn familiar(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("docker.io/").or_else(|| text.strip_prefix("index.docker.io/"))?;
    Some(match rest.strip_prefix("library/") {
        Some(path) if !path.split(['@', ':']).next().unwrap_or_default().contains('/') => path,
        _ => rest,
    })
}

/// The name CRI-O stores for an image pulled by `name`, normalised as
/// containers/image does (docker/reference ParseNormalizedNamed, then
/// TagNameOnly): a name without a domain gets `docker.io/`, a one-part
/// Docker Hub path `library/`, a name without tag or digest `:latest`;
/// the rest is kept as given, the case of the domain and tag included.
/// Err: the reason containers/image refuses the name, e.g. an upper-case
/// repository (`Nginx:1`): CRI-O cannot pull it, no image has that name,
/// and as a pause image it keeps CRI-O from starting. oci-spec's parser
/// applies the same grammar but lacks some of its checks: the 64-hex rule,
/// the lower-case repository, the length of the whole name (measured
/// where containers/image measures it), lower-case digest hex and
/// ASCII-only tags (Rust's `\w` is Unicode), added here. Checked against
/// containers/image's own parser, value and reason, over a universe of
/// right and wrong names (`cli/tests/go/reference`).
pub fn qualify(name: &str) -> Result<String, String> {
    use oci_spec::distribution::ParseError::*;
    if name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("cannot specify 64-byte hexadecimal strings: that is an image ID, not a name".into());
    }
    let (domain, remainder) = match name.split_once('/') {
        Some((domain, rest)) if domain.contains(['.', ':']) || domain == "localhost" => (domain, rest),
        _ => ("docker.io", name),
    };
    let domain = if domain == "index.docker.io" { "docker.io" } else { domain };
    let library = if domain == "docker.io" && !remainder.contains('/') { "library/" } else { "" };
    // Up to the first ':', as containers/image checks it.
    let path = remainder.split(':').next().unwrap_or_default();
    if path.chars().any(|c| c.is_uppercase()) {
        return Err("repository name must be lowercase".into());
    }
    // Go's `\w` in the tag grammar is ASCII, oci-spec's is Unicode.
    if !name.is_ascii() {
        return Err("invalid reference format".into());
    }
    let whole = format!("{domain}/{library}{remainder}");
    // containers/image reads the grammar, then measures the name, then
    // reads the digest: a long name with a bad digest is a long name.
    let too_long = || repository(&whole).len() > 255;
    let reference: Reference = whole.parse().map_err(|e| match e {
        DigestInvalidFormat | DigestInvalidLength | DigestUnsupported if too_long() => NameTooLong.to_string(),
        e => e.to_string(),
    })?;
    if too_long() {
        return Err(NameTooLong.to_string());
    }
    // go-digest takes lower-case hex only; oci-spec takes either.
    if reference.digest().is_some_and(|d| d.bytes().any(|b| b.is_ascii_uppercase())) {
        return Err(DigestInvalidFormat.to_string());
    }
    Ok(reference.whole())
}

/// The most bytes an image reference containers/image takes can have: a
/// name of 255 characters once qualified (`NameTotalLengthMax`; the text's
/// own name 6 more, for an `index.docker.io/` it shortens to `docker.io/`),
/// `:` and a tag of 128 (ASCII: Go's `\w`), `@` and a digest of 135
/// (`sha512:` and 128 hex digits, the longest go-digest takes).
pub const MAX_REFERENCE_BYTES: usize = 255 + 6 + 1 + 128 + 1 + 135;

/// Why `text` is no image reference CRI-O can store, when its length alone
/// says so (past `MAX_REFERENCE_BYTES`): decided without the reference
/// grammar's regex, whose captures cost about 0.3 s a MiB of a long line.
pub fn too_long_for_a_reference(text: &str) -> Option<String> {
    (text.len() > MAX_REFERENCE_BYTES).then(|| {
        format!(
            "{} bytes, and a reference has at most {MAX_REFERENCE_BYTES}: a name of 255 characters, a tag of 128, \
             a digest of 135",
            text.len()
        )
    })
}

/// The repository of a name: everything before `@digest`, or before the
/// `:tag` that follows the last `/`.
pub fn repository(name: &str) -> &str {
    if let Some((repo, _)) = name.split_once('@') {
        return repo;
    }
    match name.rsplit_once(':') {
        Some((repo, tag)) if !tag.contains('/') => repo,
        _ => name,
    }
}

/// Whether a listed entry is an OCI artifact: its id (bare hex, or with
/// its algorithm) is the digest of one of its repoDigests.
fn is_artifact(id: &str, digests: &[String]) -> bool {
    let hex = id.split_once(':').map_or(id, |(_, hex)| hex);
    !hex.is_empty()
        && digests
            .iter()
            .any(|d| d.rsplit_once('@').and_then(|(_, digest)| digest.split_once(':')).is_some_and(|(_, h)| h == hex))
}

/// An image a runtime listed over its CRI socket (`cri`), as a crictl
/// listing's entry with the same fields is read: `pinned` is always said
/// there (the kubelet takes a missing flag for false).
pub fn listed(id: String, repo_tags: Vec<String>, repo_digests: Vec<String>, pinned: bool, naming: Naming) -> Image {
    let listed = Listed { id, repo_tags: Some(repo_tags), repo_digests: Some(repo_digests), pinned: Some(pinned) };
    from_listing(listed, naming)
}

/// An image of a runtime's own listing (Docker's), read as crictl's entry
/// with the same names is, with its labels and no `pinned` flag.
pub fn with_labels(
    id: String,
    repo_tags: Vec<String>,
    repo_digests: Vec<String>,
    mut labels: Vec<(String, String)>,
    naming: Naming,
) -> Image {
    let listed = Listed { id, repo_tags: Some(repo_tags), repo_digests: Some(repo_digests), pinned: None };
    labels.sort();
    labels.dedup();
    Image { labels: Some(labels), ..from_listing(listed, naming) }
}

fn from_listing(listed: Listed, naming: Naming) -> Image {
    let tags = listed.repo_tags.unwrap_or_default();
    let digests = listed.repo_digests.unwrap_or_default();
    let artifact = (naming.lists_artifacts && is_artifact(&listed.id, &digests)).then_some(ARTIFACT_WHY);
    let mut names: Vec<Name> = Vec::with_capacity(tags.len() + digests.len() + usize::from(naming.image_id_record));
    for digest in digests {
        let repo = repository(&digest);
        let stored = naming.digest_beside_tag || artifact.is_some() || !tags.iter().any(|t| repository(t) == repo);
        names.push(Name { text: digest, stored, is_tag: false, is_id: false });
    }
    // The tags first, as listed, moved rather than copied.
    let digests = names.len();
    names.extend(tags.into_iter().map(|text| Name { text, stored: true, is_tag: true, is_id: false }));
    names.rotate_left(digests);
    if naming.image_id_record && !listed.id.is_empty() {
        names.push(Name { text: listed.id.clone(), stored: true, is_tag: false, is_id: true });
    }
    Image {
        id: Some(listed.id),
        names,
        runtime_pinned: listed.pinned,
        given: None,
        refused: None,
        artifact,
        labels: None,
        label_doubts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;

    fn naming(runtime: Runtime) -> Naming {
        runtime.model().naming()
    }

    fn stored_as(name: &str, runtime: Runtime) -> Result<String, String> {
        (naming(runtime).pulled_as)(name)
    }

    #[test]
    fn no_docker_hub_namespace_holds_a_dot_or_colon() {
        assert!(can_exist("docker.io/library/redis:7"));
        assert!(can_exist("docker.io/bitnami/etcd:3.5"));
        assert!(can_exist("quay.io/a:1"));
        assert!(!can_exist("docker.io/docker.io/library/redis:7"));
        assert!(!can_exist("docker.io/quay.io/a:1"));
        assert!(!can_exist("docker.io/localhost:5000/a:1"));
    }

    #[test]
    fn repository_strips_tag_or_digest_only() {
        assert_eq!(repository("quay.io/a/b:1"), "quay.io/a/b");
        assert_eq!(repository("registry.example:5000/a/b"), "registry.example:5000/a/b");
        assert_eq!(repository("registry.example:5000/a/b:2"), "registry.example:5000/a/b");
        assert_eq!(repository("q.io/a@sha256:00"), "q.io/a");
    }

    #[test]
    fn an_artifact_is_an_entry_whose_id_is_the_digest_of_a_repo_digest() {
        let hex = "0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";
        let digests = vec![format!("registry.example/team/model@sha256:{hex}")];
        assert!(is_artifact(hex, &digests));
        assert!(is_artifact(&format!("sha256:{hex}"), &digests));
        assert!(!is_artifact(&hex.replace('0', "1"), &digests));
        assert!(!is_artifact("", &["x@sha256:".to_string()]));
        assert!(!is_artifact(hex, &[]));
    }

    #[test]
    fn names_given_by_hand_are_matched_as_each_runtime_stores_them() {
        let hex = "0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";
        let digest = format!("sha256:{hex}");
        for (name, containerd, cri_dockerd) in [
            ("nginx", "docker.io/library/nginx:latest".to_string(), "nginx:latest".to_string()),
            ("docker.io/bitnami/etcd:3.5", "docker.io/bitnami/etcd:3.5".to_string(), "bitnami/etcd:3.5".to_string()),
            (
                "registry.k8s.io/pause:3.10",
                "registry.k8s.io/pause:3.10".to_string(),
                "registry.k8s.io/pause:3.10".to_string(),
            ),
            (&format!("quay.io/a:1@{digest}"), format!("quay.io/a@{digest}"), format!("quay.io/a@{digest}")),
        ] {
            assert_eq!(stored_as(name, Runtime::Containerd).as_deref(), Ok(containerd.as_str()), "{name}");
            assert_eq!(stored_as(name, Runtime::CriDockerd).as_deref(), Ok(cri_dockerd.as_str()), "{name}");
        }
        // A reference but for its case: kept, with the reason.
        let image = plain("Nginx:1", naming(Runtime::Containerd)).unwrap();
        assert!(image.refused.is_some() && image.names[0].text == "Nginx:1");
        // containerd takes an image ID, a record name it matches.
        let image = plain(&digest, naming(Runtime::Containerd)).unwrap();
        assert!(image.names[0].is_id && image.id.as_deref() == Some(digest.as_str()));
        assert!(!plain(&digest, naming(Runtime::Crio)).is_ok_and(|i| i.names[0].is_id));
    }

    #[test]
    fn each_runtime_matches_its_own_names_of_a_listing() {
        let hex = "0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";
        let listing = format!(
            "{{\"images\": [{{\"id\": \"sha256:{hex}\", \"repoTags\": [\"quay.io/a:1\"], \"repoDigests\": \
             [\"quay.io/a@sha256:{}\"]}}]}}",
            "1".repeat(64)
        );
        let stored = |runtime| -> Vec<(String, bool)> {
            let images = parse("l", listing.as_bytes(), naming(runtime)).unwrap();
            images[0].names.iter().map(|n| (n.text.clone(), n.stored)).collect()
        };
        let tag = ("quay.io/a:1".to_string(), true);
        let digest = format!("quay.io/a@sha256:{}", "1".repeat(64));
        // CRI-O stores the digest of an image pulled by tag only if it was pulled by it.
        assert_eq!(stored(Runtime::Crio), [tag.clone(), (digest.clone(), false)]);
        assert_eq!(stored(Runtime::CriDockerd), [tag.clone(), (digest.clone(), true)]);
        assert_eq!(stored(Runtime::Containerd), [tag, (digest, true), (format!("sha256:{hex}"), true)]);
    }

    #[test]
    fn qualify_keeps_the_case_containers_image_keeps() {
        let digest = "sha256:3e2ab46392ce9133d3d980632a8c1a75e92f1a6d0296f3bb5996ccb493b41e68";
        for (name, stored) in [
            ("nginx:V1", "docker.io/library/nginx:V1".to_string()),
            ("nginx", "docker.io/library/nginx:latest".to_string()),
            ("myorg/app:V1", "docker.io/myorg/app:V1".to_string()),
            ("index.docker.io/nginx:1", "docker.io/library/nginx:1".to_string()),
            ("localhost/app:V1", "localhost/app:V1".to_string()),
            ("QUAY.IO/team/app:V1", "QUAY.IO/team/app:V1".to_string()),
            (&format!("pause@{digest}"), format!("docker.io/library/pause@{digest}")),
        ] {
            assert_eq!(qualify(name).as_deref(), Ok(stored.as_str()), "{name}");
        }
        for (name, why) in [
            ("Nginx:1", "repository name must be lowercase"),
            ("Team/app:1", "repository name must be lowercase"),
            ("localhost:5000/App:1", "repository name must be lowercase"),
            ("nginx:1é", "invalid reference format"),
            ("nginx:1 ", "invalid reference format"),
            ("", "invalid reference format"),
            (&"ab".repeat(32), "cannot specify 64-byte hexadecimal strings: that is an image ID, not a name"),
            (&format!("pause@{}", digest.to_uppercase().replace("SHA256", "sha256")), "invalid checksum digest format"),
        ] {
            assert_eq!(qualify(name), Err(why.to_string()), "{name:?}");
        }
    }

    /// Names over hosts, paths, tags and digests, each part right or wrong
    /// in the ways the grammar checks (case, separators, lengths, hex).
    fn reference_universe() -> Vec<String> {
        let hex = "3e2ab46392ce9133d3d980632a8c1a75e92f1a6d0296f3bb5996ccb493b41e68";
        let hosts = [
            "",
            "docker.io/",
            "index.docker.io/",
            "Docker.io/",
            "localhost/",
            "localhost:5000/",
            "quay.io/",
            "QUAY.IO/",
            "Team/",
            "team/",
            "my_host/",
            "a.b:5000/",
            "a-b.c/",
            "-a.c/",
            "[::1]:5000/",
            "a.b:x/",
        ];
        let long = "a".repeat(250);
        let paths = [
            "nginx",
            "Nginx",
            "library/nginx",
            "a/b/c",
            "a__b",
            "a___b",
            "a--b",
            "a..b",
            "a.b",
            "a_b",
            ".a",
            "a-",
            "A/b",
            "a/B",
            "",
            "a//b",
            long.as_str(),
            "localhost",
            "5000",
        ];
        let long_tag = format!(":{}", "t".repeat(129));
        let tags = ["", ":1", ":V1", ":latest", ":-bad", ":_ok", ":1\u{e9}", ":1 ", ":", long_tag.as_str(), ":a.b-c_D"];
        let digests = [
            String::new(),
            format!("@sha256:{hex}"),
            format!("@sha256:{}", hex.to_uppercase()),
            format!("@sha512:{hex}{hex}"),
            format!("@sha256:{}", &hex[..63]),
            format!("@md5:{hex}"),
            "@".to_string(),
        ];
        let mut names = vec![hex.to_string(), hex.to_uppercase(), String::new(), " nginx".into(), "nginx ".into()];
        for host in hosts {
            for path in paths {
                for tag in tags {
                    for digest in &digests {
                        names.push(format!("{host}{path}{tag}{digest}"));
                    }
                }
            }
        }
        names
    }

    #[test]
    fn the_longest_references_are_within_the_bound() {
        // The name at its longest once qualified (index.docker.io/ becomes
        // docker.io/), the longest tag, the longest digest.
        let path = format!("a/{}", "b".repeat(255 - "docker.io/a/".len()));
        let tag = "t".repeat(128);
        let digest = format!("sha512:{}", "c".repeat(128));
        for longest in [format!("index.docker.io/{path}:{tag}"), format!("index.docker.io/{path}@{digest}")] {
            let stored = qualify(&longest).expect("a reference");
            assert_eq!(repository(&stored).len(), 255);
            assert!(longest.len() <= MAX_REFERENCE_BYTES);
            assert_eq!(too_long_for_a_reference(&longest), None);
        }
        // Each part at its longest together, and one byte more: none.
        let all = format!("index.docker.io/{path}:{tag}@{digest}");
        assert_eq!(all.len(), MAX_REFERENCE_BYTES);
        for longer in [format!("{all}c"), format!("index.docker.io/{path}b:{tag}@{digest}")] {
            assert!(qualify(&longer).is_err(), "{longer}");
            assert!(too_long_for_a_reference(&longer).is_some_and(|why| why.starts_with("527 bytes")));
        }
    }

    /// `qualify` against containers/image itself: its parser, as CRI-O
    /// runs it, over every name of the universe (cli/tests/go/reference,
    /// through `crate::go_oracle`).
    #[test]
    fn qualify_agrees_with_containers_image_s_parser() {
        let names = reference_universe();
        let input: String = names.iter().map(|n| format!("{n}\n")).collect();
        let Some((_, answers)) = crate::go_oracle::run("images::qualify", "reference", &input) else { return };
        let answers: Vec<&str> = answers.lines().collect();
        assert_eq!(answers.len(), names.len());
        let mut wrong = Vec::new();
        let mut accepted = 0;
        for (name, answer) in names.iter().zip(answers) {
            let (verdict, text) = answer.split_once('\t').unwrap();
            let ours = qualify(name);
            accepted += usize::from(verdict == "ok");
            let agrees = match (verdict, &ours) {
                ("ok", Ok(stored)) => stored == text,
                // The reason, as containers/image gives it after its
                // "invalid reference format: " (an image ID's said more
                // plainly here).
                ("err", Err(why)) => {
                    let id = "cannot specify 64-byte hexadecimal strings";
                    text.ends_with(why.as_str()) || text.ends_with(id) && why.starts_with(id)
                }
                _ => false,
            };
            if !agrees {
                wrong.push(format!("{name:?}: containers/image {answer:?}, qualify {ours:?}"));
            }
        }
        assert!(accepted > 500 && accepted < names.len() / 2, "{accepted} of {} accepted", names.len());
        assert!(wrong.is_empty(), "{} of {} names disagree:\n{}", wrong.len(), names.len(), wrong.join("\n"));
    }
}
