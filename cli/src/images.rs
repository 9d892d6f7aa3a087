//! The images to explain: `crictl images -o json` output or plain names,
//! and which of their names CRI-O really stores.
//!
//! CRI-O matches `pinned_images` against the names in its storage only. A
//! live CRI-O v1.37 showed (tests/data/crio-listings): a pull by tag stores
//! `repo:tag` only, and the repoDigest crictl prints for it is computed; a
//! pull by digest stores `repo@sha256:…` only, and crictl then prints no
//! repoTag for that repository; a pull both ways stores both.

use std::io::Read;

use serde::Deserialize;

use crate::config::InputError;

/// One image and its names.
#[derive(Clone, Debug)]
pub struct Image {
    pub id: Option<String>,
    pub names: Vec<Name>,
    /// The `pinned` flag the runtime reported.
    pub runtime_pinned: Option<bool>,
    /// A short name as given, when it was qualified as CRI-O stores it.
    pub given: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Name {
    pub text: String,
    /// Whether CRI-O stores this name (false: a digest computed by crictl
    /// that CRI-O stores only when the image was pulled by it).
    pub stored: bool,
    /// A repoTag of a crictl listing: stored whatever the pull.
    pub is_tag: bool,
}

#[derive(Deserialize)]
struct Listing {
    images: Vec<Listed>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: Option<String>,
    #[serde(default)]
    repo_tags: Option<Vec<String>>,
    #[serde(default)]
    repo_digests: Option<Vec<String>>,
    #[serde(default)]
    pinned: Option<bool>,
}

/// Reads `--images FILE` (or `-` for standard input).
pub fn read(path: &str) -> Result<Vec<Image>, InputError> {
    let mut bytes = Vec::new();
    let result = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map(|_| ())
    };
    result.map_err(|e| InputError(format!("{path}: cannot read: {e}")))?;
    parse(path, &bytes)
}

pub fn parse(path: &str, bytes: &[u8]) -> Result<Vec<Image>, InputError> {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        let listing: Listing = serde_json::from_slice(bytes).map_err(|e| {
            InputError(format!(
                "{path}:{}:{}: not the JSON of `crictl images -o json` \
                 ({{\"images\":[{{\"id\",\"repoTags\",\"repoDigests\",\"pinned\"}}]}}): {e}",
                e.line(),
                e.column()
            ))
        })?;
        return Ok(listing.images.into_iter().map(from_listing).collect());
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        InputError(format!(
            "{path}: not valid UTF-8 (bad byte at offset {}); give one image name a line, or \
             the output of `crictl images -o json`",
            e.valid_up_to()
        ))
    })?;
    Ok(text
        .lines()
        .map(|l| l.trim_end_matches('\r').trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(plain)
        .collect())
}

/// A name given by the user, in the form CRI-O would store it: fully
/// qualified (`nginx:1.25` is stored as `docker.io/library/nginx:1.25`,
/// a bare `nginx` as `docker.io/library/nginx:latest`).
pub fn plain(name: &str) -> Image {
    let qualified = name
        .to_lowercase()
        .parse::<oci_spec::distribution::Reference>()
        .ok()
        .map(|r| r.whole())
        .filter(|whole| *whole != name.to_lowercase());
    let (text, given) = match qualified {
        Some(whole) => (whole, Some(name.to_string())),
        None => (name.to_string(), None),
    };
    Image { id: None, names: vec![Name { text, stored: true, is_tag: false }], runtime_pinned: None, given }
}

/// The repository of a name CRI-O formed: everything before `@digest`, or
/// before the `:tag` that follows the last `/`.
fn repository(name: &str) -> &str {
    if let Some((repo, _)) = name.split_once('@') {
        return repo;
    }
    match name.rsplit_once(':') {
        Some((repo, tag)) if !tag.contains('/') => repo,
        _ => name,
    }
}

fn from_listing(listed: Listed) -> Image {
    let tags = listed.repo_tags.unwrap_or_default();
    let digests = listed.repo_digests.unwrap_or_default();
    let mut names: Vec<Name> = tags.iter().map(|t| Name { text: t.clone(), stored: true, is_tag: true }).collect();
    for digest in digests {
        let repo = repository(&digest);
        let stored = !tags.iter().any(|t| repository(t) == repo);
        names.push(Name { text: digest, stored, is_tag: false });
    }
    Image { id: listed.id, names, runtime_pinned: listed.pinned, given: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_strips_tag_or_digest_only() {
        assert_eq!(repository("quay.io/a/b:1"), "quay.io/a/b");
        assert_eq!(repository("registry.example:5000/a/b"), "registry.example:5000/a/b");
        assert_eq!(repository("registry.example:5000/a/b:2"), "registry.example:5000/a/b");
        assert_eq!(repository("q.io/a@sha256:00"), "q.io/a");
    }
}
