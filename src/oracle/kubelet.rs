//! An oracle of the kubelet's `preloadedImagesVerificationAllowlist`: which
//! images the `NeverVerifyAllowlistedImages` policy lets a pod use without
//! checking its pull credentials, and which entries refuse the
//! configuration.
//!
//! Follows `pkg/kubelet/images/pullmanager/image_pull_policies.go` of
//! kubernetes/kubernetes as stored for commit 19621c1c7b01 (after PR 137629,
//! in 1.36.0: `getAllowlistImagePattern`, `NewNeverVerifyAllowListedPullPolicy`,
//! `imageMatches`), the same file at 5ce22905a86f (before it), and
//! `pkg/kubelet/apis/config/validation/validation.go` at 001332b0422 (the
//! policy's values, and an allowlist only with `NeverVerifyAllowlistedImages`).
//!
//! # Entries
//!
//! Each entry is refused, and with it the whole configuration (the kubelet
//! does not start), when it has leading or trailing white space (Go's
//! `strings.TrimSpace`); else an entry ending in `/*` is a prefix, the entry
//! without its last `*` (so it ends in `/`), refused when that is `/` alone
//! or holds another `*`; any other entry is refused when it holds a `*`, when
//! `ParseNormalizedNamed` refuses it, or when it differs from that
//! parse's `Name()` (a tag, a digest, or a name not written in full:
//! `nginx` is `docker.io/library/nginx`). A prefix is not parsed at all.
//!
//! # Images
//!
//! The name compared is the pod's image parsed by `ParseNormalizedNamed`,
//! then `Name()`: the repository, normalised, without tag or digest
//! (`nginx:1` is `docker.io/library/nginx`). An image that does not parse
//! matches nothing. It is covered when that name is one of the exact
//! entries, or starts with a prefix: bytes, case-sensitive, anchored.
//! Before PR 137629 the pod's image was compared as written, tag included,
//! so an exact entry matched only a pod that named the repository in full
//! and without a tag; this oracle follows the fixed kubelet.

use std::collections::HashSet;

use crate::oracle::docker_reference;

/// The allowlist, compiled as the kubelet compiles it.
pub struct KubeletAllowlist {
    exact: HashSet<String>,
    prefixes: Vec<String>,
}

impl KubeletAllowlist {
    /// The allowlist of `entries`, or the first refusal, as the kubelet
    /// words it.
    pub fn compile(entries: &[&str]) -> Result<Self, String> {
        let mut list = KubeletAllowlist { exact: HashSet::new(), prefixes: Vec::new() };
        for entry in entries {
            if *entry != entry.trim() {
                return Err(format!("leading/trailing spaces are not allowed: {entry}"));
            }
            let prefix = entry.ends_with("/*").then(|| &entry[..entry.len() - 1]);
            let trimmed = prefix.unwrap_or(entry);
            if trimmed.is_empty() {
                return Err(format!("the supplied pattern is too short: {entry}"));
            }
            if trimmed.contains('*') {
                return Err(format!(
                    "not a valid wildcard pattern, only patterns ending with '/*' are allowed: {entry}"
                ));
            }
            match prefix {
                Some("/") => return Err("at least registry hostname is required".into()),
                Some(p) => list.prefixes.push(p.to_owned()),
                None => {
                    let name =
                        repository_name(trimmed).map_err(|e| format!("failed to parse as an image name: {e}"))?;
                    if name != trimmed {
                        return Err(format!("neither tag nor digest is accepted in an image reference: {entry}"));
                    }
                    list.exact.insert(name);
                }
            }
        }
        Ok(list)
    }

    /// Whether a pod naming its image `image` uses it unverified.
    pub fn covers(&self, image: &str) -> bool {
        let Ok(name) = repository_name(image) else { return false };
        self.exact.contains(&name) || self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }
}

/// `ParseNormalizedNamed(s).Name()`: the normalised repository, without tag
/// or digest.
pub fn repository_name(s: &str) -> Result<String, String> {
    let normal = docker_reference::normalize(s)?;
    let name = normal.split('@').next().unwrap_or_default();
    let last = name.rfind('/').unwrap_or(0);
    Ok(match name[last..].rfind(':') {
        Some(colon) => name[..last + colon].to_owned(),
        None => name.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_refused_for_the_kubelets_reasons() {
        let refused = |e: &str| KubeletAllowlist::compile(&[e]).err().unwrap_or_default();
        assert!(refused(" quay.io/a").starts_with("leading/trailing spaces"));
        assert!(refused("*").starts_with("not a valid wildcard"));
        assert!(refused("quay.io/*/x").starts_with("not a valid wildcard"));
        assert!(refused("quay.io/a*").starts_with("not a valid wildcard"));
        assert_eq!(refused("/*"), "at least registry hostname is required");
        assert!(refused("quay.io/a:1").starts_with("neither tag nor digest"));
        assert!(refused("nginx").starts_with("neither tag nor digest"));
        assert!(refused("quay.io/A").starts_with("failed to parse"));
        // A prefix is not parsed: any text before "/*" is taken.
        assert!(KubeletAllowlist::compile(&["Not A Host/*", "QUAY.IO/a"]).is_ok());
    }

    #[test]
    fn images_are_compared_by_their_normalised_repository() {
        let list = KubeletAllowlist::compile(&["docker.io/library/nginx", "quay.io/team/*"]).unwrap();
        assert!(list.covers("nginx"));
        assert!(list.covers("nginx:V1"));
        assert!(list.covers(&format!("docker.io/library/nginx@sha256:{}", "a".repeat(64))));
        assert!(!list.covers("docker.io/library/nginx-x:1"));
        assert!(list.covers("quay.io/team/app:1"));
        assert!(list.covers("quay.io/team/a/b"));
        // The prefix ends in '/': not the repository quay.io/team itself.
        assert!(!list.covers("quay.io/team"));
        assert!(!list.covers("QUAY.IO/team/app"));
        assert!(!list.covers("mirror.example/quay.io/team/app"));
    }
}
