//! Large inputs, built the same way for the tests (which check the answers)
//! and for `benches/times.rs` (which times them): one generator, included
//! by both.

/// An OpenShift-style digest reference, the `i`th of a generated list.
pub fn openshift_reference(i: usize) -> String {
    format!("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{i:064x}")
}

/// A drop-in as OpenShift writes them: one quoted digest reference a line,
/// the first on line 3.
pub fn openshift_dropin(entries: usize) -> String {
    let mut text = String::from("[crio.image]\npinned_images = [\n");
    for i in 0..entries {
        text.push_str(&format!("  \"{}\",\n", openshift_reference(i)));
    }
    text.push_str("]\n");
    text
}

/// `patterns` patterns, one a line, in turn exact, a prefix glob and a
/// keyword glob; the `i`th exact one is `registry.example/team-{i}/app:{i}`.
pub fn pattern_list(patterns: usize) -> String {
    let mut text = String::new();
    for i in 0..patterns {
        match i % 3 {
            0 => text.push_str(&format!("registry.example/team-{i}/app:{i}\n")),
            1 => text.push_str(&format!("registry.example/glob-{i}/*\n")),
            _ => text.push_str(&format!("*keyword-{i}-x*\n")),
        }
    }
    text
}

/// A crictl listing (`crictl images -o json`) of `images` container images
/// (none an OCI artifact) named as `pattern_list`'s exact patterns: every
/// third one is pinned by its exact pattern, and says so.
pub fn crictl_listing(images: usize) -> String {
    let images: Vec<String> = (0..images).map(crictl_image).collect();
    format!("{{\"images\":[{}]}}", images.join(","))
}

/// Image `i` of `crictl_listing`.
pub fn crictl_image(i: usize) -> String {
    format!(
        "{{\"id\":\"{:064x}\",\"repoTags\":[\"registry.example/team-{i}/app:{i}\"],\
         \"repoDigests\":[\"registry.example/team-{i}/app@sha256:{i:064x}\"],\"pinned\":{}}}",
        // A config digest, not the manifest digest of the repoDigest
        // (that would be an OCI artifact's id).
        i as u64 + (1 << 40),
        i % 3 == 0
    )
}
