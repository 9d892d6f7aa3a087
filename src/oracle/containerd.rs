//! An oracle of how containerd 2.x's CRI plugin decides that a stored image
//! name is pinned by its `pinned_images` configuration.
//!
//! Follows containerd main at commit 301026e58c61 (2026-08-22); release
//! v2.3.4 (db8809540e1a) and every 2.x release since v2.0.0 have the same
//! comparison. The source read: `getLabels`, `PullImage` and `UpdateImage` in
//! `internal/cri/server/images/image_pull.go`; the image cache in
//! `internal/cri/store/image/image.go`; `PinnedImages` in
//! `internal/cri/config/config.go`.
//!
//! # What containerd does (`normalize_entries == false`)
//!
//! Each configured value is compared with a name by plain string equality:
//! no normalisation, no trimming, case-sensitive, byte for byte. The names
//! compared are the image references containerd stores. A CRI pull stores the
//! name normalised by `ParseDockerRef` (see
//! [`docker_reference`](crate::oracle::docker_reference)), for example
//! `docker.io/library/nginx:latest`, plus `name@digest` and the image
//! ID `sha256:<hex>`; the pull compares the configured values with the
//! normalised pull name and, on a match, labels all three references. On
//! start-up and on every image event, each stored reference is compared with
//! the configured values itself. An image is pinned when any of its
//! references carries the label. So a value pins only if it is written
//! exactly as a stored name: `registry.k8s.io/pause` never pins
//! `registry.k8s.io/pause:latest` (containerd issue 13314), `nginx:latest`
//! never pins `docker.io/library/nginx:latest`, and `name:tag@digest` pins
//! nothing, because the pull stores `name@digest` and no tagged name. A value
//! equal to an image ID (`sha256:<hex>`) pins that image.
//!
//! # What the open fix PRs intend (`normalize_entries == true`)
//!
//! PRs 13417 (head 2c7cc7dfce66) and 13501 (head ec5c899a40b1) pass each
//! configured value through `ParseDockerRef` and compare the result with the
//! name as it is; a value that fails to parse never pins (`err == nil &&` in
//! 13417, `continue` in 13501). PR 13336 (head 399b8a54a9c3) does the same to
//! the values and also normalises the name, pinning nothing when the name
//! fails to parse. The three agree on every name already in `ParseDockerRef`
//! form, which is what CRI pulls store; they differ on other names, such as
//! an image ID (13336 reads `sha256:<hex>` as `docker.io/library/sha256:<hex>`
//! on both sides, so an ID-valued entry still pins; the other two do not). This
//! oracle models 13417/13501: the name is not normalised.
//!
//! # Not modelled
//!
//! - The pinned label is sticky: containerd adds it and never removes it, so
//!   a reference pinned once stays pinned after its entry leaves the
//!   configuration, until the reference is deleted. This oracle answers for
//!   the current configuration only.
//! - Order: `pinned_images` is a TOML table read into a Go map, so containerd
//!   has no order and only asks "any entry?".
//!   [`pinned`](crate::oracle::containerd::ContainerdReference::pinned)
//!   reports the lowest index in the order the caller gave.
//! - The map's keys (`sandbox` and any other name) play no part in matching.

use super::docker_reference;

/// A compiled `pinned_images` list.
#[derive(Debug)]
pub struct ContainerdReference {
    /// Per entry, the string a name must equal, or `None` for an entry that
    /// can never pin.
    keys: Vec<Option<Vec<u8>>>,
}

impl ContainerdReference {
    /// Compiles the configured values, in the caller's order.
    ///
    /// With `normalize_entries == false` (containerd as released) each value
    /// is kept verbatim; an empty value never pins, as containerd stores no
    /// image under an empty name. With `normalize_entries == true` (the fix
    /// PRs) each value is replaced by its `ParseDockerRef` form; a value that
    /// is not UTF-8 (TOML cannot express one) or that `ParseDockerRef`
    /// refuses never pins.
    pub fn compile(entries: &[&[u8]], normalize_entries: bool) -> Self {
        let keys = entries
            .iter()
            .map(|&entry| {
                if entry.is_empty() {
                    None
                } else if normalize_entries {
                    let text = std::str::from_utf8(entry).ok()?;
                    docker_reference::normalize(text).ok().map(String::into_bytes)
                } else {
                    Some(entry.to_vec())
                }
            })
            .collect();
        ContainerdReference { keys }
    }

    /// The lowest index of an entry that pins `name`, a stored image name.
    pub fn pinned(&self, name: &[u8]) -> Option<usize> {
        self.keys.iter().position(|key| key.as_deref() == Some(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "45b23dee08af5e43a7fea6c4cf9c25ccf269ee113168c19722f87876677c5cb2";

    fn released(entries: &[&str]) -> ContainerdReference {
        let entries: Vec<&[u8]> = entries.iter().map(|e| e.as_bytes()).collect();
        ContainerdReference::compile(&entries, false)
    }

    fn fixed(entries: &[&str]) -> ContainerdReference {
        let entries: Vec<&[u8]> = entries.iter().map(|e| e.as_bytes()).collect();
        ContainerdReference::compile(&entries, true)
    }

    // image_pull.go, getLabels: `pinned == name`, nothing more.
    #[test]
    fn released_matches_exact_strings_only() {
        let r = released(&["registry.k8s.io/pause:3.10.2", "docker.io/library/nginx:latest"]);
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10.2"), Some(0));
        assert_eq!(r.pinned(b"docker.io/library/nginx:latest"), Some(1));
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10"), None);
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10.2 "), None);
    }

    // image_pull.go, getLabels vs PullImage: the pull name is normalised, the
    // configured value is not (containerd issue 13314).
    #[test]
    fn released_tagless_entry_never_pins() {
        let r = released(&["registry.k8s.io/pause", "localhost/kubernetes/pause"]);
        assert_eq!(r.pinned(b"registry.k8s.io/pause:latest"), None);
        assert_eq!(r.pinned(b"localhost/kubernetes/pause:latest"), None);
    }

    // image_pull.go, getLabels: familiar names are not expanded.
    #[test]
    fn released_familiar_entry_never_pins_the_stored_name() {
        let r = released(&["nginx:latest", "docker.io/nginx:latest"]);
        assert_eq!(r.pinned(b"docker.io/library/nginx:latest"), None);
    }

    // image_pull.go, getLabels: a plain string comparison is case-sensitive.
    #[test]
    fn released_is_case_sensitive() {
        let r = released(&["Registry.K8s.io/pause:3.10.2"]);
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10.2"), None);
        assert_eq!(r.pinned(b"Registry.K8s.io/pause:3.10.2"), Some(0));
    }

    // util/references.go, GetRepoDigestAndTag: a `name:tag@digest` pull
    // stores `name@digest` and no tag, so the entry equals no stored name.
    #[test]
    fn released_tag_and_digest_entry_never_pins() {
        let r = released(&[&format!("registry.k8s.io/pause:3.10.1@sha256:{HEX}")]);
        assert_eq!(r.pinned(format!("registry.k8s.io/pause@sha256:{HEX}").as_bytes()), None);
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10.1"), None);
    }

    // image_pull.go, UpdateImage: stored image-ID references are compared too.
    #[test]
    fn released_image_id_entry_pins_the_id() {
        let r = released(&[&format!("sha256:{HEX}")]);
        assert_eq!(r.pinned(format!("sha256:{HEX}").as_bytes()), Some(0));
    }

    // image_pull.go, getLabels: values are not trimmed; an empty value equals
    // no stored name (containerd refuses empty image names).
    #[test]
    fn released_no_trimming_and_empty_never_pins() {
        let r = released(&["", " nginx:1"]);
        assert_eq!(r.pinned(b""), None);
        assert_eq!(r.pinned(b"nginx:1"), None);
        assert_eq!(r.pinned(b" nginx:1"), Some(1));
    }

    // The caller's order decides which index is reported; duplicates are fine.
    #[test]
    fn lowest_index_wins() {
        let r = released(&["a.io/x:1", "a.io/x:1"]);
        assert_eq!(r.pinned(b"a.io/x:1"), Some(0));
        let f = fixed(&["docker.io/library/nginx:latest", "nginx"]);
        assert_eq!(f.pinned(b"docker.io/library/nginx:latest"), Some(0));
    }

    // PR 13417/13501, getLabels: ParseDockerRef on the value first.
    #[test]
    fn fixed_tagless_and_familiar_entries_pin() {
        let r = fixed(&["registry.k8s.io/pause", "nginx", "index.docker.io/foo/bar:2"]);
        assert_eq!(r.pinned(b"registry.k8s.io/pause:latest"), Some(0));
        assert_eq!(r.pinned(b"docker.io/library/nginx:latest"), Some(1));
        assert_eq!(r.pinned(b"docker.io/foo/bar:2"), Some(2));
        // Still one tag only: normalising adds ":latest", not a wildcard.
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10.2"), None);
    }

    // PR 13417/13501 with ParseDockerRef: tag and digest keep the digest.
    #[test]
    fn fixed_tag_and_digest_entry_pins_the_digest_name() {
        let r = fixed(&[&format!("registry.k8s.io/pause:3.10.1@sha256:{HEX}")]);
        assert_eq!(r.pinned(format!("registry.k8s.io/pause@sha256:{HEX}").as_bytes()), Some(0));
        assert_eq!(r.pinned(b"registry.k8s.io/pause:3.10.1"), None);
    }

    // PR 13417/13501: the name is compared as given, not normalised.
    #[test]
    fn fixed_does_not_normalise_the_name() {
        let r = fixed(&["nginx:latest"]);
        assert_eq!(r.pinned(b"docker.io/library/nginx:latest"), Some(0));
        assert_eq!(r.pinned(b"nginx:latest"), None);
    }

    // PR 13417 (`err == nil &&`) and 13501 (`continue`): an entry
    // ParseDockerRef refuses never pins, not even the identical name.
    #[test]
    fn fixed_unparsable_entry_never_pins() {
        let r = fixed(&["Example.io/App:1", HEX, " nginx", ""]);
        assert_eq!(r.pinned(b"Example.io/App:1"), None);
        assert_eq!(r.pinned(HEX.as_bytes()), None);
        assert_eq!(r.pinned(b" nginx"), None);
        assert_eq!(r.pinned(b"docker.io/library/nginx:latest"), None);
        assert_eq!(r.pinned(b""), None);
        let not_utf8: &[&[u8]] = &[b"nginx\xff"];
        assert_eq!(ContainerdReference::compile(not_utf8, true).pinned(b"nginx\xff"), None);
    }

    // PR 13417/13501: an image-ID entry normalises to a repository named
    // "sha256", so it stops pinning the ID it pinned before.
    #[test]
    fn fixed_image_id_entry_no_longer_pins_the_id() {
        let r = fixed(&[&format!("sha256:{HEX}")]);
        assert_eq!(r.pinned(format!("sha256:{HEX}").as_bytes()), None);
        assert_eq!(r.pinned(format!("docker.io/library/sha256:{HEX}").as_bytes()), Some(0));
    }

    // ParseDockerRef quirks carried into the fixed dialect: an upper-case
    // host is kept as written, and a lone "host:port" is a name and a tag.
    #[test]
    fn fixed_inherits_parse_docker_ref_quirks() {
        let r = fixed(&["Docker.io/nginx", "localhost:5000"]);
        assert_eq!(r.pinned(b"docker.io/library/nginx:latest"), None);
        assert_eq!(r.pinned(b"Docker.io/nginx:latest"), Some(0));
        assert_eq!(r.pinned(b"docker.io/library/localhost:5000"), Some(1));
    }
}
