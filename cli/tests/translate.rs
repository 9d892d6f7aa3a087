//! `translate`: a list moved between runtimes, and what each entry's pin becomes.

use crate::util::*;

#[test]
fn translate_containerd_to_crio_explains_every_image_whose_pin_changes() {
    let out = golden(
        "translate-containerd-to-crio",
        &[
            "--runtime",
            "containerd",
            "-c",
            "containerd/config.toml",
            "translate",
            "--to",
            "crio",
            "--images",
            "containerd/images.json",
        ],
        1,
    );
    assert_eq!(code(&out), 1);
    // Each note whole on its line.
    let whole = ["--runtime", "containerd", "-c", "containerd/config.toml", "translate", "--to", "crio"];
    let text = stdout(&run(&[&whole[..], &["--images", "containerd/images.json", "--no-trunc"]].concat()));
    assert!(text.contains("[crio.image]\npinned_images = ["), "{text}");
    // The two images whose pin changes, each explained by its entry: an
    // image ID CRI-O cannot match, an upper-case host CRI-O folds.
    assert!(text.contains("2 differ"), "{text}");
    assert!(text.contains("impossible: an image ID"), "{text}");
    assert!(text.contains("wider: CRI-O also pins \"registry.k8s.io/kube-scheduler:v1.28.4\""), "{text}");
    // A value containerd never matches pins nothing: dropped, with the
    // stored name it was probably meant to be.
    assert!(
        text.contains(
            "#7 dropped: containerd pins nothing by it: it stores that image as \"docker.io/library/nginx:1.25.3\""
        ),
        "{text}"
    );
    assert!(!text.contains("\"nginx:1.25.3\",  #"), "{text}");
}

#[test]
fn translate_cri_dockerd_to_crio_says_what_widens_and_which_images_change() {
    let out = golden(
        "translate-cri-dockerd-to-crio",
        &[
            "--runtime",
            "cri-dockerd",
            "--patterns",
            "cri-dockerd/patterns.txt",
            "translate",
            "--to",
            "crio",
            "--images",
            "cri-dockerd/images.json",
        ],
        1,
    );
    assert!(stdout(&out).contains("wider"), "{}", stdout(&out));
    // --from is --runtime's other spelling, for this command.
    let again = run(&[
        "--patterns",
        "cri-dockerd/patterns.txt",
        "translate",
        "--from",
        "cri-dockerd",
        "--to",
        "crio",
        "--images",
        "cri-dockerd/images.json",
    ]);
    assert_eq!(stdout(&again), stdout(&out));
}

#[test]
fn translate_crio_to_containerd_cannot_write_globs() {
    let out = run(&[&NODE[..], &["translate", "--to", "containerd", "--json"]].concat());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let v = json(&out);
    let impossible: Vec<&Value> =
        v["entries"].as_array().unwrap().iter().filter(|e| e["fidelity"] == "impossible").collect();
    assert!(!impossible.is_empty(), "{v}");
    assert!(impossible.iter().all(|e| e["from"].as_str().unwrap().contains('*')), "{v}");
    assert!(v["config"].as_str().unwrap().contains("[plugins.\"io.containerd.cri.v1.images\".pinned_images]"));
}

#[test]
fn translate_refuses_two_sources_and_crio_modes() {
    let out = run(&[
        "--runtime",
        "crio",
        "--patterns",
        "lint-patterns.txt",
        "translate",
        "--from",
        "cri-dockerd",
        "--to",
        "crio",
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("disagree"), "{}", stderr(&out));
    let out = run(&["--patterns", "lint-patterns.txt", "--anchor-globs", "translate", "--to", "cri-dockerd"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("drop --anchor-globs"), "{}", stderr(&out));
}

#[test]
fn translate_images_judges_each_list_in_its_own_runtimes_names() {
    // CRI-O's listing names Docker Hub images in full; cri-dockerd's list
    // names them as Docker reports them: the exact entry pins the same image
    // of the listing, and loses only the name CRI-O's also pins by ignoring
    // case (DOCKER.IO/library/nginx:1.25).
    let dir = tempfile::tempdir().unwrap();
    let patterns = write_file(dir.path(), "p.txt", "docker.io/library/nginx:1.25\nnginx:1.25\n");
    let listing = write_file(
        dir.path(),
        "images.json",
        format!(
            "{{\"images\": [{{\"id\": \"{:064x}\", \"repoTags\": [\"docker.io/library/nginx:1.25\"], \"repoDigests\": \
             [\"docker.io/library/nginx@sha256:{}\"]}}]}}",
            7,
            "1".repeat(64)
        ),
    );
    let out = run(&["--patterns", &patterns, "translate", "--to", "cri-dockerd", "--images", &listing, "--json"]);
    let v = json(&out);
    assert_eq!(v["entries"][0]["fidelity"], "narrower", "{v}");
    assert!(v["entries"][0]["why"].as_str().unwrap().contains("DOCKER.IO/library/nginx:1.25"), "{v}");
    assert_eq!(v["entries"][0]["to"][0], "nginx:1.25", "{v}");
    // CRI-O never stores the short name: that entry pinned nothing.
    assert_eq!(v["entries"][1]["fidelity"], "dropped", "{v}");
    assert_eq!(v["images"]["pinned_before"], 1, "{v}");
    assert_eq!(v["images"]["pinned_after"], 1, "{v}");
    assert_eq!(v["images"]["differ"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
}

#[test]
fn translate_labels_what_depends_on_the_pull_and_what_changes_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let digest = format!("docker.io/library/nginx@sha256:{}", "a".repeat(64));
    let patterns = write_file(dir.path(), "p.txt", format!("{digest}\ndocker.io/library/n*\n"));
    let out = run(&["--patterns", &patterns, "translate", "--to", "cri-dockerd", "--json"]);
    let v = json(&out);
    // CRI-O pins a digest name only for an image pulled by that digest;
    // cri-dockerd matches every image's RepoDigests, but not the name
    // CRI-O also pins by ignoring case.
    assert_eq!(v["entries"][0]["fidelity"], "different", "{v}");
    assert!(v["entries"][0]["why"].as_str().unwrap().contains("depends on how it was pulled"), "{v}");
    // The short prefix pins docker.io/n/… that CRI-O's did not; CRI-O's glob
    // pinned docker.io/library/n/… that Docker reports as library/n/….
    assert_eq!(v["entries"][1]["fidelity"], "different", "{v}");
    assert_eq!(code(&out), 1);
    // containerd's file says which configuration version it is for.
    let out = run(&["--patterns", &patterns, "translate", "--to", "containerd"]);
    let text = stdout(&out);
    // (Its opening comment wraps as messages do.)
    assert!(text.replace("\n# ", " ").contains("Written for a main config.toml of version 3"), "{text}");
    assert!(text.contains("version = 3\n"), "{text}");
}

/// An image of --images whose pin depends on the pull under one list is
/// counted and shown as undecided, never under "0 differ"; the label's
/// example is that image, not one the tool made up.
#[test]
fn translate_counts_an_undecided_image_and_takes_examples_from_the_listing() {
    let dir = tempfile::tempdir().unwrap();
    let digest = format!("docker.io/library/nginx@sha256:{}", "a".repeat(64));
    let patterns = write_file(dir.path(), "p.txt", format!("{digest}\n"));
    // Pulled by tag: crictl shows the digest, CRI-O pins by it only after a
    // pull by that digest; cri-dockerd matches every RepoDigest.
    let listing = serde_json::json!({ "images": [{
        "id": format!("sha256:{}", "b".repeat(64)),
        "repoTags": ["docker.io/library/nginx:1.27.3"],
        "repoDigests": [digest],
        "pinned": false,
    }]});
    let listing = write_file(dir.path(), "images.json", serde_json::to_vec(&listing).unwrap());
    let args = ["--patterns", &patterns, "translate", "--to", "cri-dockerd", "--images", &listing];
    let out = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let v = json(&out);
    // Different, not only undecided: cri-dockerd compares case, so the
    // entry also loses the names that differ from it only in case.
    assert_eq!(v["entries"][0]["fidelity"], "different", "{v}");
    assert_eq!(v["images"]["differ"], serde_json::json!([]), "{v}");
    let undecided = v["images"]["undecided"].as_array().unwrap();
    assert_eq!(undecided.len(), 1, "{v}");
    assert_eq!(undecided[0]["names"][0], "docker.io/library/nginx:1.27.3", "{v}");
    assert_eq!((&undecided[0]["pinned_before"], &undecided[0]["pinned_after"]), (&false.into(), &true.into()));
    let why = v["entries"][0]["why"].as_str().unwrap();
    // The image whose pin depends on the pull is the listed one.
    assert!(why.contains("whether \"docker.io/library/nginx:1.27.3\" is pinned depends on how it was pulled"), "{why}");
    let text = stdout(&run(&args)).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("; 0 differ (an image pinned only if pulled by digest counts as pinned), 1 undecided"),
        "{text}"
    );
    let said = format!("nginx:1.27.3, {digest}: pinned only if pulled by digest by CRI-O, pinned by cri-dockerd");
    assert!(text.contains(&said), "{text}");
    // Without the listing, the example is one the texts name.
    let v = json(&run(&["--patterns", &patterns, "translate", "--to", "cri-dockerd", "--json"]));
    assert!(!v["entries"][0]["why"].as_str().unwrap().contains("1.27.3"), "{v}");
}

/// An entry that `explain` says pins a stored name is never `dropped` by
/// `translate`: both ask the same matcher about the same names, upper-case
/// hosts among them.
#[test]
fn translate_never_drops_an_entry_explain_says_pins_an_image() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // CRI-O ignores case: its entry pins the stored DOCKER.IO/nginx:V1
        // (a host in upper case is kept as written, without library/).
        ("crio", "DOCKER.IO/NGINX:V1", "DOCKER.IO/nginx:V1", "containerd"),
        // cri-dockerd's prefix pins the registry's images as Docker names them.
        ("cri-dockerd", "LocalHost:*", "LocalHost:5000/pause:1", "crio"),
    ];
    for (from, entry, stored, to) in cases {
        let patterns = write_file(dir.path(), "p.txt", format!("{entry}\n"));
        let explained = json(&run(&["--runtime", from, "--patterns", &patterns, "explain", stored, "--json"]));
        assert_eq!(explained["images"][0]["pinned"], true, "{from} {entry}: {explained}");
        let v = json(&run(&["--runtime", from, "--patterns", &patterns, "translate", "--to", to, "--json"]));
        assert_ne!(v["entries"][0]["fidelity"], "dropped", "{from} {entry} -> {to}: {v}");
        assert!(!v["entries"][0]["why"].as_str().unwrap_or_default().contains("pins nothing"), "{v}");
        // And what is written pins that image under the target, as its explain says.
        let written: Vec<&str> =
            v["entries"][0]["to"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        let target = write_file(dir.path(), "t.txt", written.join("\n") + "\n");
        let explained = json(&run(&["--runtime", to, "--patterns", &target, "explain", stored, "--json"]));
        assert_eq!(explained["images"][0]["pinned"], true, "{to} {written:?}: {explained}");
    }
}

/// An exact name with an upper-case host carried between CRI-O, which
/// ignores case, and containerd, which does not, is not `exact`: CRI-O's
/// entry also pins the tag in lower case, DOCKER.IO/x:v1, as `explain`
/// shows, and containerd's does not.
#[test]
fn translate_an_upper_case_host_between_case_rules_is_not_exact() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = write_file(dir.path(), "p.txt", "DOCKER.IO/x:V1\n");
    for (from, to, label, example) in
        [("crio", "containerd", "narrower", "lost"), ("containerd", "crio", "wider", "gained")]
    {
        let differs = json(&run(&["--runtime", from, "--patterns", &patterns, "explain", "DOCKER.IO/x:v1", "--json"]));
        let pinned_by_crio = from == "crio";
        assert_eq!(differs["images"][0]["pinned"], pinned_by_crio, "{from}: {differs}");
        let v = json(&run(&["--runtime", from, "--patterns", &patterns, "translate", "--to", to, "--json"]));
        assert_eq!(v["entries"][0]["fidelity"], label, "{from} -> {to}: {v}");
        let why = v["entries"][0]["why"].as_str().unwrap_or_default();
        assert!(why.contains("pins \"DOCKER.IO/x:"), "{from} -> {to} ({example}): {why}");
    }
}
