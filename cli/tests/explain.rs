//! `explain`: which pattern pins an image, checked against a live CRI-O's recorded answers (`--check`).

use crate::util::*;

/// The recorded answers of a live CRI-O: every `pinned` flag must agree.
fn check_listing(dir: &str) -> Value {
    let conf_d = format!("crio-listings/{dir}/crio.conf.d");
    let list = format!("crio-listings/{dir}/list.json");
    let args = ["-c", "crio-listings/crio.conf", "-d", &conf_d, "explain", "--images", &list, "--check", "--json"];
    let out = run(&args);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let v = json(&out);
    let images = v["images"].as_array().unwrap();
    assert_eq!(images.len(), if dir == "F" { 11 } else { 9 });
    for image in images {
        assert_eq!(image["pinned"], image["runtime_pinned"], "{image}");
        assert_eq!(image["check"], "agree", "{image}");
    }
    assert_eq!((v["disagreements"].as_u64(), v["undecided"].as_u64()), (Some(0), Some(0)), "{dir}");
    v
}

#[test]
fn explain_agrees_with_the_live_crio_listings() {
    let a = check_listing("A");
    check_listing("E");
    check_listing("F");
    golden(
        "explain-listing-a",
        &[
            "-c",
            "crio-listings/crio.conf",
            "-d",
            "crio-listings/A/crio.conf.d",
            "explain",
            "--images",
            "crio-listings/A/list.json",
            "--check",
        ],
        0,
    );
    // The glob is not anchored, case does not matter, the pause image is appended.
    let by_name = |name: &str| {
        a["images"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["decided_by"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    assert_eq!(by_name("evil.example/quay.io/openshift-release-dev/x:1")["pattern_index"], 0);
    assert_eq!(by_name("QUAY.IO/openshift-release-dev/upper:1")["pattern_index"], 0);
    assert_eq!(by_name("registry.k8s.io/pause:3.10.1")["source"], "pause_image");
}

#[test]
fn stored_names_decide_not_crictls_computed_digests() {
    // An exact pattern copied from the repoDigest of an image pulled by tag
    // does not pin it (live CRI-O: busybox and nginx stayed unpinned).
    let digest = "docker.io/library/nginx@sha256:cd61d6530830080a07085b44af90eacb995cae041944b0975a0a6cee59d51211";
    let pulled_by_digest = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:ffb1f788176954c64d8430831357a84f981e8c83136dfbf84e3bb0319794382f";
    let list = format!("{digest},{pulled_by_digest}");
    let out = run(&[
        "--pinned-images",
        &list,
        "-c",
        "crio-listings/crio.conf",
        "-d",
        "none",
        "explain",
        "--images",
        "crio-listings/A/list.json",
        "--json",
    ]);
    let v = json(&out);
    let nginx = v["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["names"][0] == "docker.io/library/nginx:1.25")
        .unwrap()
        .clone();
    assert_eq!(nginx["pinned"], false);
    assert_eq!(nginx["depends_on_pull"][0]["name"], digest);
    // An image pulled by digest has no repoTags: its digest is stored, and decides.
    let ocp = v["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["names"][0].as_str().unwrap().contains("@sha256:ffb1"))
        .unwrap()
        .clone();
    assert_eq!(ocp["stored_names"], ocp["names"]);
    assert_eq!(ocp["decided_by"], pulled_by_digest);
    assert_eq!(ocp["pattern_index"], 1);
}

#[test]
fn explain_check_names_likely_causes_of_a_disagreement() {
    golden("explain-node", &node(&["explain", "--images", "node/images.json", "--check"]), 1);
    let out = golden("explain-node-json", &node(&["explain", "--images", "node/images.json", "--check", "--json"]), 1);
    let v = json(&out);
    assert_eq!(v["disagreements"], 2);
    let image = |name: &str| v["images"].as_array().unwrap().iter().find(|i| i["names"][0] == name).unwrap().clone();
    let ocp = image("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:97a33066db118ed7ccc7c801c34db23f7127e2f53f9aba02c1c98808b6505aaa");
    assert_eq!((ocp["check"].as_str(), ocp["pinned"].as_bool()), (Some("disagree"), Some(false)));
    let causes = ocp["causes"].to_string();
    assert!(causes.contains("SIGHUP") && causes.contains("99-local.conf") && causes.contains("rejected"), "{causes}");
    let app = image("registry.example/team/app:2.0");
    assert_eq!((app["check"].as_str(), app["pinned"].as_bool()), (Some("disagree"), Some(true)));
    // Without --check a disagreement is reported but is not a failure.
    assert_eq!(code(&run(&node(&["explain", "--images", "node/images.json"]))), 0);
}

#[test]
fn explain_plain_names() {
    let out = golden(
        "explain-names",
        &node(&["explain", "docker.io/library/nginx:1.25", "nginx:1.25", "evil.example/registry.example/team/x:1"]),
        0,
    );
    // The short name is explained in the form CRI-O stores: the exact
    // pattern for the full name pins it.
    assert!(stdout(&out).contains("\"nginx:1.25\" is stored by CRI-O as \"docker.io/library/nginx:1.25\""));
    let v = json(&run(&[
        "--config",
        "",
        "--config-dir",
        "none",
        "--pinned-images",
        "nginx:1.25",
        "explain",
        "nginx:1.25",
        "nginx",
        "--json",
    ]));
    assert_eq!(
        first_name_and_pinned(&v),
        [("docker.io/library/nginx:1.25", false), ("docker.io/library/nginx:latest", false)]
    );
    assert_eq!(v["images"][0]["given"], "nginx:1.25");
    // --check needs the runtime's flags, which plain names do not have.
    assert_eq!(code(&run(&node(&["explain", "--check", "nginx:1.25"]))), 2);
    let names = "docker.io/library/nginx:1.25\r\n# a comment\r\n\r\nregistry.example/team/app:2.0\r\n";
    let mut child = Command::new(BIN)
        .args(NODE)
        .args(["explain", "--images", "-", "--json"])
        .current_dir(data())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), names.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let v = json(&out);
    assert_eq!(
        first_name_and_pinned(&v),
        [("docker.io/library/nginx:1.25", true), ("registry.example/team/app:2.0", true)]
    );
}

#[test]
fn check_fails_on_undecided_images_unless_allowed() {
    // Listing A: nginx was pulled by tag and is pinned by the running CRI-O
    // (by its tag); a list that names its repoDigest instead cannot tell.
    let digest = "docker.io/library/nginx@sha256:cd61d6530830080a07085b44af90eacb995cae041944b0975a0a6cee59d51211";
    let list = format!("quay.io/openshift-release-dev/*,*etcd*,{digest}");
    let args = [
        "-c",
        "crio-listings/crio.conf",
        "-d",
        "none",
        "--pinned-images",
        &list,
        "explain",
        "--images",
        "crio-listings/A/list.json",
        "--check",
        "--no-trunc",
    ];
    let out = run(&args);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("UNDECIDED: docker.io/library/nginx:1.25"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("pinned only if it was pulled by the digest") && line.contains("--allow-undecided"),
        "{line}"
    );
    assert!(text.contains("1 undecided"), "{text}");
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&run(&with_json));
    assert_eq!((v["undecided"].as_u64(), v["disagreements"].as_u64()), (Some(1), Some(0)));
    assert_eq!(image_named(&v, "docker.io/library/nginx:1.25")["check"], "undecided");
    let mut allowed = args.to_vec();
    allowed.push("--allow-undecided");
    assert_eq!(code(&run(&allowed)), 0);
    // Undecided and not pinned by the runtime counts too (busybox of the node).
    let v = json(&run(&node(&["explain", "--images", "node/images.json", "--check", "--json"])));
    assert_eq!(image_named(&v, "docker.io/library/busybox:1.36")["check"], "undecided");
    // --allow-undecided is about --check.
    assert_eq!(code(&run(&node(&["explain", "--images", "node/images.json", "--allow-undecided"]))), 2);
}

#[test]
fn check_states_each_cause_once_with_the_images_it_explains() {
    let out = run(&node(&["explain", "--images", "node/images.json", "--check", "--no-trunc"]));
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    // Two disagreements, each cause once.
    assert_eq!(text.matches("DISAGREEMENT: ").count(), 2, "{text}");
    assert_eq!(text.matches("Likely causes").count(), 1, "{text}");
    for cause in ["no reload was sent", "a reload was rejected", "CRI-O runs with --pinned-images"] {
        assert_eq!(text.matches(cause).count(), 1, "{cause}: {text}");
    }
    let v = json(&run(&node(&["explain", "--images", "node/images.json", "--check", "--json"])));
    let causes = v["causes"].as_array().expect("a top-level causes array");
    let codes: Vec<&str> = causes.iter().map(|c| c["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["not-reloaded", "overridden-list", "reload-rejected", "other-sources"], "{v}");
    let index = |name: &str| {
        v["images"].as_array().unwrap().iter().position(|i| i["names"][0] == name).unwrap_or_else(|| panic!("{name}"))
    };
    let ocp = index("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:97a33066db118ed7ccc7c801c34db23f7127e2f53f9aba02c1c98808b6505aaa");
    let app = index("registry.example/team/app:2.0");
    assert_eq!(causes[0]["images"], serde_json::json!([ocp, app]));
    // Only the drop-in whose dropped patterns pin the image: 99-local.conf
    // dropped the OpenShift digest; 50-pinned-images dropped only
    // kube-apiserver patterns, which cannot have pinned it.
    let overridden = &causes[1];
    assert_eq!(overridden["images"], serde_json::json!([ocp]), "{overridden}");
    assert_eq!(
        (overridden["file"].as_str(), overridden["line"].as_u64()),
        (Some("node/crio.conf.d/99-local.conf"), Some(4))
    );
    let message = overridden["message"].as_str().unwrap();
    assert!(message.contains("@sha256:97a33066") && !message.contains("kube-apiserver"), "{message}");
    assert!(!text.contains("kube-apiserver:v1.31.0\""), "the 50-pinned-images override explains nothing: {text}");
    // Each image lists the messages of the causes that explain it.
    assert_eq!(v["images"][ocp]["causes"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["images"][app]["causes"].as_array().map(Vec::len), Some(3));
}

/// `explain -q`: the pinned images' names alone, one a line, an undecided
/// one too (a pin is never left out silently), with the exit status
/// `explain` has without it.
#[test]
fn explain_quiet_prints_the_pinned_names_alone() {
    let args = node(&["explain", "--images", "node/images.json"]);
    let v = json(&run(&[&args[..], &["--json"]].concat()));
    let images = v["images"].as_array().unwrap();
    let pinned: Vec<&Value> = images
        .iter()
        .filter(|i| i["pinned"] == true || i["depends_on_pull"].as_array().is_some_and(|d| !d.is_empty()))
        .collect();
    assert!(pinned.len() >= 2 && pinned.len() < images.len(), "{v}");
    let out = run(&[&args[..], &["-q"]].concat());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let names: Vec<&str> = text.lines().collect();
    assert_eq!(names.len(), pinned.len(), "{text}");
    for (name, image) in names.iter().zip(&pinned) {
        let listed: Vec<&str> = image["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        assert!(listed.contains(name), "{name} is not one of {listed:?}");
    }
    assert!(names.contains(&"docker.io/library/busybox:1.36"), "the undecided image: {names:?}");
    // The same exit status as without -q; -q and --json are one too many.
    let check = [&args[..], &["--check"]].concat();
    assert_eq!(code(&run(&[&check[..], &["-q"]].concat())), code(&run(&check)));
    assert_eq!(code(&run(&[&args[..], &["-q", "--json"]].concat())), 2);
}

/// `explain --runtime kubelet` answers as the kubelet compares: each name's
/// repository, without tag or digest, against the allowlist's exact
/// entries and `/*` prefixes (the answers `explain --kubelet-config` and
/// the kubelet's oracle give). It once matched the tagged name, so an
/// exact entry covered none of its repository's images.
#[test]
fn explain_runtime_kubelet_compares_each_names_repository() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_file(
        dir.path(),
        "config.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         featureGates:\n  KubeletEnsureSecretPulledImages: true\n\
         imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
         preloadedImagesVerificationAllowlist:\n- docker.io/library/nginx\n- quay.io/team/*\n",
    );
    let names = write_file(
        dir.path(),
        "names.txt",
        "docker.io/library/nginx:1.25\n\
         docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000001\n\
         quay.io/team/app:v1\nquay.io/team:v1\ndocker.io/library/nginx-extra:1\nQUAY.IO/team/app:v1\n",
    );
    let out = run(&["--runtime", "kubelet", "--config", &config, "--json", "explain", "--images", &names]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let pinned: Vec<(&str, bool)> = v["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["names"][0].as_str().unwrap(), i["pinned"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        pinned,
        [
            ("docker.io/library/nginx:1.25", true),
            ("docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000001", true),
            ("quay.io/team/app:v1", true),
            // A prefix keeps its '/': the repository quay.io/team itself is not under it.
            ("quay.io/team:v1", false),
            ("docker.io/library/nginx-extra:1", false),
            // Bytes, case-sensitive: the kubelet normalises no host's case.
            ("QUAY.IO/team/app:v1", false),
        ],
        "{v:#}"
    );
}

#[test]
fn an_image_pulled_by_digest_is_not_said_to_lack_its_stored_name() {
    // Pulled by digest: no tag, so CRI-O stores the digest as its name, and
    // "the name that pins it is not stored" cannot be why CRI-O does not pin it.
    let digest = format!("quay.io/a/b@sha256:{}", "7".repeat(64));
    let listing = serde_json::json!({"images": [{"id": "1".repeat(64), "repoTags": [], "repoDigests": [digest], "pinned": false}]});
    let dir = tempfile::tempdir().unwrap();
    let images = write_file(dir.path(), "images.json", listing.to_string());
    let list = write_file(dir.path(), "pins.txt", format!("{digest}\n"));
    let v = json(&run(&["--patterns", &list, "explain", "--images", &images, "--check", "--json"]));
    let codes: Vec<&str> = v["causes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap()).collect();
    assert_eq!(v["disagreements"], 1, "{v}");
    assert!(!codes.contains(&"name-not-stored"), "{codes:?}");
    assert!(codes.contains(&"not-reloaded"), "{codes:?}");
}
