//! OCI artifacts: pinned by their reference or canonical name, in `explain`, `diff` and `lint`.

use crate::util::*;

const CANONICAL_MODEL: &str =
    "registry.example/team/model@sha256:0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";

#[test]
fn oci_artifacts_are_pinned_by_their_reference_or_canonical_name() {
    // Live CRI-O (listing F): the artifact `model`, pulled by tag, is pinned
    // by the exact pattern of its repoDigest, its canonical name.
    golden("explain-listing-f", &listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]), 0);
    // Each message whole on its line.
    let text = stdout(&run(&listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check", "--no-trunc"])));
    for name in ["registry.example/team/model", "quay.io/openshift-release-dev/cfg-artifact:v1"] {
        let note =
            text.lines().find(|l| l.starts_with("note: ") && l.contains(name)).unwrap_or_else(|| panic!("{text}"));
        assert!(note.contains("taken for an OCI artifact (id equals the manifest digest of its repoDigest)"), "{note}");
    }
    assert!(!text.contains("depends on how the image was pulled"), "{text}");
    let args = listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check", "--json"]);
    let v = json(&golden("explain-listing-f-json", &args, 0));
    let model = image_named(&v, "registry.example/team/model:1");
    assert_eq!(model["artifact"], "id equals the manifest digest of its repoDigest");
    assert_eq!((model["pinned"].as_bool(), model["check"].as_str()), (Some(true), Some("agree")));
    assert_eq!(model["decided_by"], CANONICAL_MODEL);
    assert_eq!(model["stored_names"], model["names"], "both names of an artifact are matched");
    assert_eq!(image_named(&v, "quay.io/openshift-release-dev/cfg-artifact:v1")["artifact"], model["artifact"]);
    // A container image is never taken for one: its id is its config digest.
    let artifacts = v["images"].as_array().unwrap().iter().filter(|i| i.get("artifact").is_some()).count();
    assert_eq!(artifacts, 2, "{v}");
    // The same rule for a container image pulled by tag: its repoDigest is
    // not stored, and the pin depends on the pull (see --check below).
    let nginx = "docker.io/library/nginx@sha256:1b008234c90d0129265b3df33601ff692ecf16d60d0fd9b449d70f77e77dab59";
    let v = json(&run(&[
        "-c",
        "crio-listings/crio.conf",
        "-d",
        "none",
        "--pinned-images",
        &format!("{CANONICAL_MODEL},{nginx}"),
        "explain",
        "--images",
        "crio-listings/F/list.json",
        "--json",
    ]));
    assert_eq!(image_named(&v, "registry.example/team/model:1")["pinned"], true);
    let nginx = image_named(&v, "docker.io/library/nginx:1.25");
    assert_eq!(nginx["pinned"], false);
    assert_eq!(nginx["depends_on_pull"].as_array().map(Vec::len), Some(1));
}

#[test]
fn diff_and_lint_apply_the_artifact_rule() {
    // Dropping the canonical-name pattern unpins the artifact `model`.
    let dir = tempfile::tempdir().unwrap();
    let new = write_file(dir.path(), "new.txt", "*cfg-artifact*\n");
    let args = listing_f(&["diff", "--images", "crio-listings/F/list.json", "--new-patterns", &new, "--no-trunc"]);
    let out = run(&args);
    assert_eq!(code(&out), 1, "a pin lost: {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("1 image(s) lose their pin"), "{text}");
    assert!(
        text.contains("note: registry.example/team/model@sha256:0a49ab78") && text.contains("OCI artifact"),
        "{text}"
    );
    let mut json_args = args.clone();
    json_args.push("--json");
    let v = json(&run(&json_args));
    assert_eq!(v["lost"][0]["decided_by"], CANONICAL_MODEL, "{v}");
    assert_eq!(v["lost"][0]["artifact"], "id equals the manifest digest of its repoDigest");
    // lint: with the listing, the pattern names an artifact, which it pins
    // however it was pulled; without, the note says what a listing would tell.
    let v = json(&run(&listing_f(&["lint", "--images", "crio-listings/F/list.json", "--json"])));
    assert!(!codes(&v["findings"]).contains("digest-needs-digest-pull"), "{v}");
    let found = with_code(&v["findings"], "artifact-digest");
    assert_eq!(found.len(), 1, "{v}");
    assert!(found[0]["message"].as_str().unwrap().contains("however it was pulled"), "{v}");
    let v = json(&run(&listing_f(&["lint", "--json"])));
    let found = with_code(&v["findings"], "digest-needs-digest-pull");
    assert_eq!(found.len(), 1, "{v}");
    assert!(found[0]["message"].as_str().unwrap().contains("give --images"), "{v}");
    // A listing without that artifact: the note stays.
    let v = json(&run(&listing_f(&["lint", "--images", "crio-listings/A/list.json", "--json"])));
    assert_eq!(with_code(&v["findings"], "digest-needs-digest-pull").len(), 1, "{v}");
}
