//! The built `crio-pin` binary on the committed fixture trees (tests/data),
//! compared with tests/expected/*.txt. `CRIO_PIN_BLESS=1 cargo test -p
//! crio-pin-cli` rewrites the expected files; review the diff before
//! committing it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_crio-pin");
/// The environment the tool reads: CRI-O's variables, and its own choice of runtime.
const CRIO_ENV: [&str; 5] = [
    "CONTAINER_CONFIG",
    "CONTAINER_CONFIG_DIR",
    "CONTAINER_PINNED_IMAGES",
    "CONTAINER_PAUSE_IMAGE",
    "CRIO_PIN_RUNTIME",
];

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Runs the binary in tests/data (so paths in the output are short and
/// stable) with none of the variables it reads set, then `env`.
fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(data()).stdin(Stdio::null());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run crio-pin");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "crio-pin panicked on {args:?}: {stderr}");
    out
}

fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// Each explained image's first name and whether it is pinned.
fn first_name_and_pinned(v: &Value) -> Vec<(&str, bool)> {
    let images = v["images"].as_array().expect("explain --json has an images array");
    images.iter().map(|i| (i["names"][0].as_str().unwrap(), i["pinned"].as_bool().unwrap())).collect()
}

/// Checks the exit status, then compares status, stdout and stderr with
/// tests/expected/NAME.txt.
fn golden(name: &str, args: &[&str], want: i32) -> Output {
    golden_env(name, args, &[], want)
}

fn golden_env(name: &str, args: &[&str], env: &[(&str, &str)], want: i32) -> Output {
    let out = run_env(args, env);
    assert_eq!(
        code(&out),
        want,
        "exit status of crio-pin {args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    let got = format!(
        "$ crio-pin {}\nexit status {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        code(&out),
        stdout(&out),
        stderr(&out)
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected").join(format!("{name}.txt"));
    if std::env::var_os("CRIO_PIN_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
    } else {
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (CRIO_PIN_BLESS=1 writes it)", path.display()));
        assert!(want == got, "{name}: output differs from {}\n--- got\n{got}", path.display());
    }
    out
}

const NODE: [&str; 4] = ["--config", "node/crio.conf", "--config-dir", "node/crio.conf.d"];

fn node(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = NODE.to_vec();
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// The warnings or findings of one code.
fn with_code<'v>(items: &'v Value, code: &str) -> Vec<&'v Value> {
    items.as_array().unwrap().iter().filter(|item| item["code"] == code).collect()
}

fn codes(findings: &Value) -> BTreeSet<String> {
    findings.as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect()
}

// ---- config ----

#[test]
fn config_finds_the_overridden_openshift_list_and_ignored_keys() {
    golden("config-node", &node(&["config"]), 0);
    let out = golden("config-node-json", &node(&["config", "--json"]), 0);
    let v = json(&out);
    let patterns = v["patterns"].as_array().unwrap();
    // 99-local.conf replaced everything before it; the pause image comes last.
    let texts: Vec<&str> = patterns.iter().map(|p| p["pattern"].as_str().unwrap()).collect();
    assert_eq!(texts[0], "docker.io/library/nginx:1.25");
    assert_eq!(texts.last().unwrap(), &"registry.k8s.io/pause:3.10.1");
    assert_eq!(patterns.last().unwrap()["source"], "pause_image");
    assert_eq!(patterns[0]["source"], "node/crio.conf.d/99-local.conf:5");
    let overridden: Vec<&str> =
        with_code(&v["warnings"], "overridden-list").iter().map(|w| w["message"].as_str().unwrap()).collect();
    assert!(
        overridden
            .iter()
            .any(|m| m.contains("99-local.conf") && m.contains("50-pinned-images") && m.contains("300 of its 300")),
        "{overridden:?}"
    );
    let ignored: Vec<(&str, u64)> = with_code(&v["warnings"], "ignored-key")
        .iter()
        .map(|w| (w["file"].as_str().unwrap(), w["line"].as_u64().unwrap()))
        .collect();
    assert!(ignored.contains(&("node/crio.conf.d/60-team/01-headerless.conf", 3)), "{ignored:?}");
    assert!(ignored.contains(&("node/crio.conf.d/10-runtime.conf", 4)), "{ignored:?}");
    // The drop-in directory is walked recursively, in lexical order.
    let files: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(
        files,
        [
            "node/crio.conf",
            "node/crio.conf.d/10-runtime.conf",
            "node/crio.conf.d/50-pinned-images",
            "node/crio.conf.d/60-team/01-headerless.conf",
            "node/crio.conf.d/99-local.conf"
        ]
    );
}

#[test]
fn config_keys_match_ignoring_case_and_misplaced_ones_are_reported() {
    let out = golden("config-keys", &["-c", "keys/crio.conf", "-d", "keys/crio.conf.d", "config"], 0);
    assert!(stdout(&out).contains("registry.k8s.io/pause:3.9"), "PAUSE_IMAGE is honoured like Go's decoder");
    let v = json(&run(&["-c", "keys/crio.conf", "-d", "keys/crio.conf.d", "config", "--json"]));
    let ignored: Vec<u64> =
        with_code(&v["warnings"], "ignored-key").iter().map(|w| w["line"].as_u64().unwrap()).collect();
    assert_eq!(ignored, [6, 3, 5]);
}

#[test]
fn pinned_images_flag_and_environment_replace_the_files() {
    golden_env(
        "config-env",
        &node(&["config"]),
        &[
            ("CONTAINER_PINNED_IMAGES", "quay.io/a/b:1, quay.io/c/d:2"),
            ("CONTAINER_PAUSE_IMAGE", "registry.k8s.io/pause:3.9"),
        ],
        0,
    );
    let v = json(&run_env(&node(&["config", "--json"]), &[("CONTAINER_PAUSE_IMAGE", "registry.k8s.io/pause:3.9")]));
    let lost: Vec<&str> =
        with_code(&v["warnings"], "flag-lost-on-reload").iter().map(|w| w["message"].as_str().unwrap()).collect();
    assert!(lost.len() == 1 && lost[0].contains("\"registry.k8s.io/pause:3.10.1\" (node/crio.conf:6)"), "{lost:?}");
    // The flag wins over the environment, each value split at commas.
    let v = json(&run_env(
        &node(&["config", "--json", "--pinned-images", "x.io/a:1,x.io/b:2", "--pinned-images", "x.io/c:3"]),
        &[("CONTAINER_PINNED_IMAGES", "quay.io/a/b:1")],
    ));
    let got: Vec<(&str, &str)> = v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pattern"].as_str().unwrap(), p["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("x.io/a:1", "flag"),
            ("x.io/b:2", "flag"),
            ("x.io/c:3", "flag"),
            ("registry.k8s.io/pause:3.10.1", "pause_image")
        ]
    );
    // An empty variable is one empty pattern to CRI-O: it unpins the files' list.
    let v = json(&run_env(&node(&["lint", "--json"]), &[("CONTAINER_PINNED_IMAGES", "")]));
    assert!(codes(&v["findings"]).contains("empty"), "{v}");
}

#[test]
fn missing_default_dir_is_fine_missing_explicit_config_is_not() {
    let out = run(&["--config", "node/crio.conf", "--config-dir", "no/such/dir", "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["patterns"].as_array().unwrap().len(), 3);
    golden("missing-config", &["--config", "no/such/crio.conf", "config"], 2);
}

#[test]
fn dropins_are_walked_as_go_walks_them() {
    // Go's filepath.Walk sorts each directory's entries, so "a/x.conf" comes
    // before "a-b.conf" although "a-b.conf" < "a/x.conf" as whole paths.
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir_all(conf_d.join("a")).unwrap();
    let pins = |p: &str| format!("[crio.image]\npinned_images = [\"{p}\"]\n");
    std::fs::write(conf_d.join("a/x.conf"), pins("quay.io/from/a-x:1")).unwrap();
    std::fs::write(conf_d.join("a-b.conf"), pins("quay.io/from/a-b:1")).unwrap();
    // No extension, and a link to a file: both are read.
    std::fs::write(dir.path().join("target"), pins("quay.io/from/link:1")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("target"), conf_d.join("b-link")).unwrap();
    let conf_d = conf_d.to_str().unwrap();
    let v = json(&run(&["--config", "", "--config-dir", conf_d, "config", "--json"]));
    let files: Vec<String> =
        v["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().replace(conf_d, "D")).collect();
    assert_eq!(files, ["D/a/x.conf", "D/a-b.conf", "D/b-link"]);
    assert_eq!(v["patterns"][0]["pattern"], "quay.io/from/link:1");
    // A previewed drop-in lands where the walk would find it.
    std::fs::write(dir.path().join("new.conf"), pins("quay.io/from/new:1")).unwrap();
    let new = dir.path().join("new.conf");
    let v = json(&run(&[
        "--config",
        "",
        "--config-dir",
        conf_d,
        "diff",
        "quay.io/from/a-b:1",
        "quay.io/from/new:1",
        "--dropin",
        new.to_str().unwrap(),
        "--as",
        "a.conf",
        "--json",
    ]));
    assert_eq!(v["gained"].as_array().unwrap().len(), 0, "a.conf comes before b-link: {v}");
    let v = json(&run(&[
        "--config",
        "",
        "--config-dir",
        conf_d,
        "diff",
        "quay.io/from/link:1",
        "quay.io/from/new:1",
        "--dropin",
        new.to_str().unwrap(),
        "--as",
        "c.conf",
        "--json",
    ]));
    assert_eq!(v["gained"][0]["decided_by"], "quay.io/from/new:1");
    assert_eq!(v["lost"][0]["decided_by"], "quay.io/from/link:1");
    // An editor's backup copy is decoded too, and said so.
    std::fs::write(dir.path().join("crio.conf.d/b-link~"), pins("quay.io/from/backup:1")).unwrap();
    let v = json(&run(&["--config", "", "--config-dir", conf_d, "config", "--json"]));
    assert_eq!(v["patterns"][0]["pattern"], "quay.io/from/backup:1");
    let leftover = with_code(&v["warnings"], "leftover-file");
    assert_eq!(leftover.len(), 1, "{v}");
    assert!(leftover[0]["message"].as_str().unwrap().contains("b-link~ looks like an editor's backup copy"));
    // A link to a directory is read as a file by CRI-O's walk, which fails.
    std::os::unix::fs::symlink(dir.path(), dir.path().join("crio.conf.d/c-dir-link")).unwrap();
    let out = run(&["--config", "", "--config-dir", conf_d, "config"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("c-dir-link: cannot read") && stderr(&out).contains("refuse to start"),
        "{}",
        stderr(&out)
    );
}

// ---- lint ----

#[test]
fn lint_reports_every_kind_of_mistake() {
    golden("lint-patterns", &["--patterns", "lint-patterns.txt", "lint"], 1);
    let out = golden("lint-patterns-json", &["--patterns", "lint-patterns.txt", "lint", "--json"], 1);
    let want: BTreeSet<String> = [
        "lone-star",
        "pins-everything",
        "unanchored-glob",
        "literal-star",
        "whitespace",
        "duplicate",
        "shadowed",
        "not-fully-qualified",
        "no-tag-or-digest",
        "digest-needs-digest-pull",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let got = codes(&json(&out)["findings"]);
    assert!(want.is_subset(&got), "missing {:?}", want.difference(&got).collect::<Vec<_>>());
}

#[test]
fn lint_of_the_node_has_no_errors() {
    golden("lint-node", &node(&["lint"]), 0);
    // --anchor-globs: no unanchored-glob finding; --strict: literal stars are errors.
    let v = json(&run(&["--patterns", "lint-patterns.txt", "--anchor-globs", "lint", "--json"]));
    assert!(!codes(&v["findings"]).contains("unanchored-glob"));
    let v = json(&run(&["--patterns", "lint-patterns.txt", "--strict", "lint", "--json"]));
    let severity: Vec<&str> =
        with_code(&v["findings"], "literal-star").iter().map(|f| f["severity"].as_str().unwrap()).collect();
    assert_eq!(severity, ["error", "error"]);
}

// ---- explain ----

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

// ---- issue 18: OCI artifacts, refused lists, the list a reload loads, --check as a gate ----

const CANONICAL_MODEL: &str =
    "registry.example/team/model@sha256:0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";
const LISTING_F: [&str; 4] = ["-c", "crio-listings/crio.conf", "-d", "crio-listings/F/crio.conf.d"];

fn listing_f(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = LISTING_F.to_vec();
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// The explained image whose first name is `name`.
fn image_named(v: &Value, name: &str) -> Value {
    v["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["names"][0] == name)
        .unwrap_or_else(|| panic!("{name}: {v}"))
        .clone()
}

#[test]
fn oci_artifacts_are_pinned_by_their_reference_or_canonical_name() {
    // Live CRI-O (listing F): the artifact `model`, pulled by tag, is pinned
    // by the exact pattern of its repoDigest, its canonical name.
    let out =
        golden("explain-listing-f", &listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]), 0);
    let text = stdout(&out);
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
    let args = listing_f(&["diff", "--images", "crio-listings/F/list.json", "--new-patterns", &new]);
    let out = run(&args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
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

#[test]
fn config_exits_2_on_a_list_crio_refuses() {
    let out = golden("config-lone-star", &["-c", "bad/lone-star.conf", "-d", "none", "config"], 2);
    let err = stderr(&out);
    assert!(err.contains("bad/lone-star.conf:2: pattern 1 (\"*\")"), "{err}");
    assert!(err.contains("stock CRI-O panics") && err.contains("it does not start"), "{err}");
    assert!(err.contains("a SIGHUP reload that brings it ends the running daemon"), "{err}");
    assert!(err.contains("a runtime built on the crio-pin library refuses the list"), "{err}");
    assert!(err.contains("keeps its previous list"), "{err}");
    let out = run(&["-c", "bad/lone-star.conf", "-d", "none", "config", "--json"]);
    assert_eq!(code(&out), 2);
    let v = json(&out);
    assert_eq!(v["refused"][0]["code"], "lone-star");
    assert_eq!(v["refused"][0]["list"], "effective");
    assert_eq!(v["refused"][0]["source"], "bad/lone-star.conf:2");
    // From the environment, too; and --strict refuses what the library's strict mode refuses.
    let out = run_env(&["-c", "", "-d", "none", "config"], &[("CONTAINER_PINNED_IMAGES", "*")]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("env: pattern 0 (\"*\")"), "{}", stderr(&out));
    let out = run(&["-c", "", "-d", "none", "--pinned-images", "*pause", "--strict", "config"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("stock CRI-O takes this pattern; --strict refuses it"), "{}", stderr(&out));
    // lint speaks for stock CRI-O and for a runtime on the library, each for itself.
    let v = json(&run(&["-c", "bad/lone-star.conf", "-d", "none", "lint", "--json"]));
    let message = with_code(&v["findings"], "lone-star")[0]["message"].as_str().unwrap().to_string();
    assert!(!message.contains("crashes CRI-O at start-up or on reload"), "{message}");
    assert!(message.contains("stock CRI-O panics") && message.contains("crio-pin library refuses"), "{message}");
}

#[test]
fn explain_of_a_refused_list_explains_what_it_can() {
    // bad/lone-star.conf: ["quay.io/openshift-release-dev/*", "*"]; the
    // running CRI-O answered listing A with the list it had before.
    let args =
        ["-c", "bad/lone-star.conf", "-d", "none", "explain", "--images", "crio-listings/A/list.json", "--no-trunc"];
    let out = golden("explain-refused-list", &args, 2);
    let text = stdout(&out);
    assert!(text.contains("RUNTIME"), "the runtime's own flags are shown: {text}");
    assert!(text.contains("#0 \"quay.io/openshift-release-dev/*\""), "{text}");
    assert!(
        text.contains("The list in force is the one the runtime had before, which this tool cannot know"),
        "{text}"
    );
    assert!(stderr(&out).contains("a lone '*' is not a valid pattern"), "{}", stderr(&out));
    let mut with_check = args.to_vec();
    with_check.extend(["--check", "--json"]);
    let v = json(&golden("explain-refused-list-json", &with_check, 2));
    assert_eq!(v["refused"][0]["index"], 1);
    let etcd = image_named(&v, "quay.io/coreos/etcd:v3.5.9");
    assert_eq!((etcd["pinned"].as_bool(), etcd["runtime_pinned"].as_bool()), (Some(false), Some(true)));
    assert_eq!(etcd["check"], Value::Null, "nothing is compared with an unknown list");
    let evil = image_named(&v, "evil.example/quay.io/openshift-release-dev/x:1");
    assert_eq!(evil["pattern_index"], 0);
    // A lone '*': only the pause image is left to explain.
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "01-star.conf", pins_dropin(&["*"]));
    let conf_d = dir.path().to_str().unwrap();
    let args = ["-c", "crio-listings/crio.conf", "-d", conf_d, "explain", "--images", "crio-listings/A/list.json"];
    let out = run(&[&args[..], &["--no-trunc"]].concat());
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).contains("#1 \"registry.k8s.io/pause:3.10.1\""), "{}", stdout(&out));
}

#[test]
fn lint_and_config_check_the_list_a_reload_loads() {
    // The environment's list is fine; the files' list, which a SIGHUP
    // reload loads instead, has a lone '*'.
    let env = [("CONTAINER_PINNED_IMAGES", "quay.io/*,**")];
    let out = golden_env("lint-reload", &["-c", "", "-d", "reload/crio.conf.d", "lint"], &env, 1);
    assert!(stdout(&out).contains("1 error(s)"), "{}", stdout(&out));
    let v = json(&golden_env("lint-reload-json", &["-c", "", "-d", "reload/crio.conf.d", "lint", "--json"], &env, 1));
    let star = with_code(&v["findings"], "lone-star");
    assert_eq!(star.len(), 1, "{v}");
    assert_eq!((star[0]["list"].as_str(), star[0]["severity"].as_str()), (Some("after-reload"), Some("error")));
    assert_eq!(star[0]["source"], "reload/crio.conf.d/50-pins.conf:2");
    assert!(star[0]["message"].as_str().unwrap().contains("keeps the list it runs"), "{v}");
    let out = golden_env("config-reload", &["-c", "", "-d", "reload/crio.conf.d", "config"], &env, 2);
    assert!(stderr(&out).contains("a SIGHUP reload loads in place of"), "{}", stderr(&out));
    let v =
        json(&golden_env("config-reload-json", &["-c", "", "-d", "reload/crio.conf.d", "config", "--json"], &env, 2));
    assert_eq!(v["refused"][0]["list"], "after-reload", "{v}");
    // The flag, like the environment; and a files' pause image CRI-O would
    // reject on reload, behind --pause-image.
    let out = run(&["-c", "", "-d", "reload/crio.conf.d", "--pinned-images", "quay.io/x:1", "lint"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "10-pause.conf", "[crio.image]\npause_image = \"MyOrg/pause:1\"\n");
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--pause-image", "registry.k8s.io/pause:3.10.1", "config"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("rejects that reload"), "{}", stderr(&out));
    let v = json(&run(&["-c", "", "-d", conf_d, "--pause-image", "registry.k8s.io/pause:3.10.1", "lint", "--json"]));
    assert_eq!(with_code(&v["findings"], "bad-pause-image").len(), 1, "{v}");
    // Without a flag the files' list is the list, checked once.
    let out = run(&["-c", "", "-d", "reload/crio.conf.d", "lint", "--json"]);
    assert_eq!(with_code(&json(&out)["findings"], "lone-star").len(), 1);
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

// ---- diff ----

#[test]
fn diff_previews_a_new_dropin() {
    let args = node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"]);
    golden("diff-dropin", &args, 0);
    let mut json_args = args.clone();
    json_args.push("--json");
    let v = json(&golden("diff-dropin-json", &json_args, 0));
    assert_eq!(v["gained"].as_array().unwrap().len(), 1);
    assert_eq!(v["gained"][0]["pattern"], "quay.io/openshift-release-dev/*");
    assert_eq!(v["lost"][0]["decided_by"], "registry.example/team/app:2.0");
    // Under a new name it sorts first and changes nothing: 99-local.conf still wins.
    let v = json(&run(&node(&[
        "diff",
        "--images",
        "node/images.json",
        "--dropin",
        "changes/99-local.conf",
        "--as",
        "00-early.conf",
        "--json",
    ])));
    assert_eq!((v["gained"].as_array().unwrap().len(), v["lost"].as_array().unwrap().len()), (0, 0));
}

#[test]
fn diff_previews_a_mode_or_a_new_list() {
    let list = [
        "-c",
        "crio-listings/crio.conf",
        "-d",
        "crio-listings/A/crio.conf.d",
        "diff",
        "--images",
        "crio-listings/A/list.json",
    ];
    let mut anchored = list.to_vec();
    anchored.push("--to-anchor-globs");
    golden("diff-anchor", &anchored, 0);
    let mut case = list.to_vec();
    case.extend(["--to-case-sensitive", "--json"]);
    let v = json(&run(&case));
    assert_eq!(v["lost"][0]["decided_by"], "QUAY.IO/openshift-release-dev/upper:1");
    let v = json(&golden(
        "diff-new-patterns",
        &node(&["diff", "--images", "node/images.json", "--new-patterns", "changes/new-patterns.txt", "--json"]),
        0,
    ));
    assert_eq!(v["gained"].as_array().unwrap().len(), 2);
    assert_eq!(run(&node(&["diff", "--images", "node/images.json"])).status.code(), Some(2));
}

// ---- bad input ----

#[test]
fn malformed_and_mistyped_configuration_stops_like_crio() {
    for (name, line_col) in [
        ("malformed", "bad/malformed.conf:4:5"),
        ("wrong-type", "bad/wrong-type.conf:2:17"),
        ("wrong-item", "bad/wrong-item.conf:2:50"),
        ("bad-pause", "bad/bad-pause.conf:2"),
    ] {
        let conf = format!("bad/{name}.conf");
        let out = golden(&format!("bad-{name}"), &["-c", &conf, "-d", "none", "config"], 2);
        assert!(stderr(&out).contains(line_col), "{}", stderr(&out));
        assert!(stderr(&out).contains("CRI-O would refuse to start"), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    // A lone '*': lint names it, explain refuses to pretend CRI-O runs.
    let out = run(&["-c", "bad/lone-star.conf", "-d", "none", "lint", "--json"]);
    assert_eq!(code(&out), 1);
    assert!(codes(&json(&out)["findings"]).contains("lone-star"));
    golden("bad-lone-star-explain", &["-c", "bad/lone-star.conf", "-d", "none", "explain", "quay.io/x:1"], 2);
    golden("bad-crictl-json", &["--patterns", "lint-patterns.txt", "explain", "--images", "bad/crictl-broken.json"], 2);
    golden("bad-no-images", &node(&["explain"]), 2);
    golden("bad-usage", &["--patterns", "lint-patterns.txt", "--config", "x", "config"], 2);
}

#[test]
fn non_utf8_crlf_and_empty_pattern_files() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, b"docker.io/library/nginx:1.25\nquay.io/\xff\xfe:1\n").unwrap();
    let bad = bad.to_str().unwrap();
    let out = run(&["--patterns", bad, "lint", "--json"]);
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert_eq!(v["findings"][0]["code"], "invalid-utf8");
    assert_eq!(v["findings"][0]["source"], format!("{bad}:2"));
    let out = run(&["--patterns", bad, "explain", "docker.io/library/nginx:1.25"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains(&format!("{bad}:2")) && stderr(&out).contains("not valid UTF-8"), "{}", stderr(&out));

    let crlf = dir.path().join("crlf.txt");
    std::fs::write(&crlf, b"docker.io/library/nginx:1.25\r\nquay.io/x/*\r\n").unwrap();
    let v = json(&run(&["--patterns", crlf.to_str().unwrap(), "config", "--json"]));
    assert_eq!(v["patterns"][0]["pattern"], "docker.io/library/nginx:1.25");
    assert_eq!(v["patterns"][1]["pattern"], "quay.io/x/*");
    assert_eq!(v["warnings"][0]["code"], "crlf");

    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    let out = run(&["--patterns", empty, "config"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("no patterns: nothing is pinned"), "{}", stdout(&out));
    let v = json(&run(&["--patterns", empty, "explain", "docker.io/library/nginx:1.25", "--json"]));
    assert_eq!(v["images"][0]["pinned"], false);
    assert_eq!(code(&run(&["--patterns", empty, "lint"])), 0);
}

#[test]
fn a_100000_pattern_list_and_50000_images() {
    let dir = tempfile::tempdir().unwrap();
    let mut patterns = String::new();
    for i in 0..100_000 {
        match i % 3 {
            0 => patterns.push_str(&format!("registry.example/team-{i}/app:{i}\n")),
            1 => patterns.push_str(&format!("registry.example/glob-{i}/*\n")),
            _ => patterns.push_str(&format!("*keyword-{i}-x*\n")),
        }
    }
    let images: Vec<Value> = (0..50_000)
        .map(|i| {
            serde_json::json!({
                // A config digest, not the manifest digest of the repoDigest
                // (that would be an OCI artifact's id).
                "id": format!("{:064x}", i as u64 + (1 << 40)),
                "repoTags": [format!("registry.example/team-{i}/app:{i}")],
                "repoDigests": [format!("registry.example/team-{i}/app@sha256:{i:064x}")],
                "pinned": i % 3 == 0,
            })
        })
        .collect();
    let (p, j) = (dir.path().join("p.txt"), dir.path().join("i.json"));
    std::fs::write(&p, patterns).unwrap();
    std::fs::write(&j, serde_json::to_vec(&serde_json::json!({ "images": images })).unwrap()).unwrap();
    // The time it takes is measured by the benchmarks, not here.
    let out =
        run(&["--patterns", p.to_str().unwrap(), "explain", "--images", j.to_str().unwrap(), "--check", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["images"].as_array().unwrap().len(), 50_000);
    assert_eq!(v["disagreements"], 0);
}

// ---- images and output (issue 17) ----

/// Writes `contents` to DIR/NAME and returns its path as a string.
fn write_file(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn diff_as_takes_a_plain_file_name() {
    // Any of these placed the drop-in first in the walk: 0 gained, 0 lost.
    for name in
        ["./99-local.conf", "node/crio.conf.d/99-local.conf", "../99-local.conf", "/etc/99-local.conf", "", ".", ".."]
    {
        let out =
            run(&node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf", "--as", name]));
        assert_eq!(code(&out), 2, "--as {name:?}: {}{}", stdout(&out), stderr(&out));
        assert!(
            stderr(&out).contains("--as takes the file name the drop-in would have inside the drop-in directory"),
            "--as {name:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
    let v = json(&run(&node(&[
        "diff",
        "--images",
        "node/images.json",
        "--dropin",
        "changes/99-local.conf",
        "--as",
        "99-local.conf",
        "--json",
    ])));
    assert_eq!((v["gained"].as_array().unwrap().len(), v["lost"].as_array().unwrap().len()), (1, 1), "{v}");
}

#[test]
fn images_as_a_json_array_are_crictl_images() {
    // `crictl images -o json | jq .images`
    let dir = tempfile::tempdir().unwrap();
    let listing: Value = serde_json::from_slice(&std::fs::read(data().join("node/images.json")).unwrap()).unwrap();
    let array = write_file(dir.path(), "array.json", serde_json::to_vec_pretty(&listing["images"]).unwrap());
    let object = json(&run(&node(&["explain", "--images", "node/images.json", "--check", "--json"])));
    let out = run(&node(&["explain", "--images", &array, "--check", "--json"]));
    assert_eq!(code(&out), 1, "the same two disagreements: {}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["images"], object["images"]);
    assert_eq!(v["images"][0]["names"][0], "registry.k8s.io/pause:3.10.1");
    assert_eq!(v["images"][0]["pinned"], true);
}

#[test]
fn images_that_are_neither_crictl_json_nor_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // (file, contents, what stderr names)
        ("fields.txt", "registry.k8s.io/pause:3.10.1\n  \"id\": \"6210c0bf\",\n", ":2: "),
        ("yaml.txt", "images:\n- id: 6210c0bf\n", ":1: "),
        (
            "table.txt",
            "IMAGE                     TAG     IMAGE ID\nregistry.k8s.io/pause     3.10.1  6210c0bf\n",
            ":1: ",
        ),
        ("id.txt", "6210c0bf05396716df932f0729df69de0533933e5ad9871fd07b61811c4c28df\n", ":1: "),
        ("strings.json", "[\"registry.k8s.io/pause:3.10.1\"]", ":1:"),
        ("numbers.json", "[1, 2]", ":1:"),
        ("no-id.json", "[{\"repoTags\": [\"registry.k8s.io/pause:3.10.1\"]}]", ":1:"),
        ("one-image.json", "{\"id\": \"6210c0bf\", \"repoTags\": [\"registry.k8s.io/pause:3.10.1\"]}", ":1:"),
    ];
    for (name, contents, at) in cases {
        let path = write_file(dir.path(), name, contents);
        let out = run(&node(&["explain", "--images", &path]));
        assert_eq!(code(&out), 2, "{name}: {}{}", stdout(&out), stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("{path}{at}")), "{name}: {err}");
        assert!(err.contains("crictl images -o json") && err.contains("one a line"), "{name}: {err}");
    }
    // Still names one a line: comments, blank lines, surrounding blanks.
    let names = write_file(dir.path(), "names.txt", "# node-1\n\n  registry.k8s.io/pause:3.10.1  \nnginx:1.25\n");
    let v = json(&run(&node(&["explain", "--images", &names, "--json"])));
    assert_eq!(
        first_name_and_pinned(&v),
        [("registry.k8s.io/pause:3.10.1", true), ("docker.io/library/nginx:1.25", true)]
    );
}

#[test]
fn short_names_keep_the_case_of_their_tag() {
    let pinned = ["--config", "", "--config-dir", "none", "--pinned-images", "docker.io/library/nginx:V1"];
    let with = |rest: &[&'static str]| pinned.iter().chain(rest).copied().collect::<Vec<&str>>();
    let v = json(&run(&with(&["--case-sensitive", "explain", "nginx:V1", "myorg/app:V1", "--json"])));
    assert_eq!(first_name_and_pinned(&v), [("docker.io/library/nginx:V1", true), ("docker.io/myorg/app:V1", false)]);
    let out = run(&with(&["explain", "nginx:V1"]));
    assert!(
        stdout(&out).contains("\"nginx:V1\" is stored by CRI-O as \"docker.io/library/nginx:V1\""),
        "{}",
        stdout(&out)
    );
    let v = json(&run(&with(&["diff", "nginx:V1", "--to-case-sensitive", "--json"])));
    assert_eq!(v["lost"], serde_json::json!([]), "{v}");
    // CRI-O refuses to pull an upper-case repository: no image can have it.
    let out = run(&with(&["explain", "Nginx:V1"]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let note = "note: Nginx:V1: CRI-O refuses to pull an image by this name (repository name must be lowercase)";
    assert!(stdout(&out).contains(note), "{}", stdout(&out));
    let v = json(&run(&with(&["explain", "Nginx:V1", "--json"])));
    assert_eq!(v["images"][0]["names"][0], "Nginx:V1");
    assert_eq!(v["images"][0]["refused_name"], "repository name must be lowercase");
    // Not an image reference whatever its case: refused.
    let out = run(&with(&["explain", "\"id\": \"abc\""]));
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains(r#""\"id\": \"abc\"": not an image name"#), "{}", stderr(&out));
    // lint's suggestion keeps the tag's case too.
    let v = json(&run(&["--pinned-images", "nginx:V1", "--case-sensitive", "-c", "", "-d", "none", "lint", "--json"]));
    let found = with_code(&v["findings"], "not-fully-qualified");
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!(found[0]["suggestion"], "docker.io/library/nginx:V1");
}

/// Whether a printed text has a character that can drive a terminal or
/// hide what follows (other than the newlines that end its lines).
fn has_control(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    })
}

#[test]
fn names_patterns_and_file_names_are_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    let evil_file = "50-\u{1b}]0;owned\u{7}\u{202e}.conf";
    write_file(
        &conf_d,
        evil_file,
        "[crio.image]\npinned_images = [\"quay.io/\\u001b[2Jx:1\", \"*\\u202eevil\", \"registry.example/\\u009b31m*\"]\n",
    );
    let images = serde_json::json!({ "images": [
        { "id": "a1", "repoTags": ["quay.io/\u{1b}[2Jx:1"], "repoDigests": [], "pinned": false },
        { "id": "b2", "repoTags": [" docker.io/library/nginx:1 "], "repoDigests": [], "pinned": true },
        { "id": "c3", "repoTags": ["registry.example/\u{9b}31m\u{2067}x:1"], "repoDigests": [], "pinned": true },
    ]});
    let images = write_file(dir.path(), "images.json", serde_json::to_vec(&images).unwrap());
    let conf_d = conf_d.to_str().unwrap();
    let missing = dir.path().join("no-\u{1b}[2J.json");
    for args in [
        vec!["config"],
        vec!["lint"],
        vec!["explain", "--images", &images, "--check"],
        vec!["diff", "--images", &images, "--to-anchor-globs"],
        vec!["diff", "--images", &images, "--new-patterns", &images],
        vec!["explain", "--images", missing.to_str().unwrap()],
    ] {
        let mut all = vec!["--config", "", "--config-dir", conf_d];
        all.extend(args);
        // Shortened to fit or not, nothing escapes.
        let out = run(&all);
        for (what, text) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
            assert_eq!(has_control(&text), None, "{what} of {all:?}:\n{text}");
        }
        all.push("--no-trunc");
        let out = run(&all);
        for (what, text) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
            assert_eq!(has_control(&text), None, "{what} of {all:?}:\n{text}");
        }
        if all.contains(&"explain") && code(&out) != 2 {
            // Blanks around a name are visible: the name is quoted.
            assert!(stdout(&out).contains("\" docker.io/library/nginx:1 \""), "{}", stdout(&out));
            // ... and said why.
            assert!(
                stdout(&out).contains(
                    "note: \" docker.io/library/nginx:1 \" holds blanks or invisible characters (shown \
                     quoted and escaped): a pattern pins it only if it holds them too"
                ),
                "{}",
                stdout(&out)
            );
            assert!(stdout(&out).contains("50-\\u{1b}]0;owned\\u{7}\\u{202e}.conf"), "{}", stdout(&out));
        }
    }
    // JSON keeps the exact strings (JSON escapes the control characters).
    let v = json(&run(&["--config", "", "--config-dir", conf_d, "explain", "--images", &images, "--json"]));
    assert_eq!(v["images"][0]["names"][0], "quay.io/\u{1b}[2Jx:1");
    assert_eq!(v["images"][0]["pinned"], true);
    assert_eq!(v["images"][1]["names"][0], " docker.io/library/nginx:1 ");
}

// ---- manual pages ----

/// The options a --help output lists (`-c, --config <FILE>  text`: --config).
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split("  ").next())
        .flat_map(|spec| spec.split([' ', ',']).filter(|w| w.starts_with("--")))
        .map(String::from)
        .collect()
}

/// What `make build` installs: crio-pin.1 and a page for each subcommand
/// that --help lists, each page naming every option of its --help, and
/// packaging/contents.txt expecting each page in both packages.
#[test]
fn manual_pages_cover_every_subcommand_and_option() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["generate-man", dir.path().to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let help = stdout(&run(&["--help"]));
    let subcommands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(!subcommands.is_empty(), "no subcommands in --help:\n{help}");
    let contents =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../packaging/contents.txt")).unwrap();
    // roff escapes every '-'.
    let roff = |s: &str| s.replace('-', "\\-");
    let mut pages = vec![("crio-pin".to_string(), help.clone())];
    for sub in &subcommands {
        pages.push((format!("crio-pin-{sub}"), stdout(&run(&[sub, "--help"]))));
    }
    for (name, help) in &pages {
        let file = format!("{name}.1");
        let page = std::fs::read_to_string(dir.path().join(&file))
            .unwrap_or_else(|e| panic!("generate-man wrote no {file}: {e}"));
        for want in [format!(".TH {name} 1 "), ".SH NAME\n".into(), ".SH SYNOPSIS\n".into()] {
            assert!(page.contains(&want), "{file} has no {want:?}:\n{page}");
        }
        let options = long_options(help);
        assert!(options.contains(&"--help".to_string()), "no options in {help}");
        for option in options {
            assert!(page.contains(&roff(&option)), "{file} does not mention {option}:\n{page}");
        }
        // Compressed or not by rpm (packaging/contents.txt says why), by dh_compress.
        for (format, suffix) in [("rpm", "*"), ("deb", ".gz")] {
            let line = [format, "crio-pin", &format!("/usr/share/man/man1/{file}{suffix}")];
            assert!(contents.lines().any(|l| l.split_whitespace().eq(line)), "packaging/contents.txt lacks {line:?}");
        }
    }
    let top = std::fs::read_to_string(dir.path().join("crio-pin.1")).unwrap();
    for sub in &subcommands {
        assert!(top.contains(&roff(&format!("crio-pin-{sub}(1)"))), "crio-pin.1 omits {sub}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), pages.len(), "unexpected pages");
}

// ---- configuration input (issue 17) ----

/// Runs the binary as `run` does, under `ulimit` limits (CPU seconds,
/// kilobytes of address space): a regression that loops or reads without
/// end fails instead of taking the machine.
fn run_limited(args: &[&str], cpu_seconds: u32, memory_kb: u64) -> Output {
    let limits = format!("ulimit -t {cpu_seconds} && ulimit -v {memory_kb} && exec \"$0\" \"$@\"");
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(limits).arg(BIN).args(args).current_dir(data()).stdin(Stdio::null());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    cmd.output().expect("run crio-pin under sh")
}

/// A drop-in setting pinned_images to `pins`.
fn pins_dropin(pins: &[&str]) -> String {
    let items: Vec<String> = pins.iter().map(|p| format!("{p:?}")).collect();
    format!("[crio.image]\npinned_images = [{}]\n", items.join(", "))
}

/// The patterns of `config --json` on a drop-in directory, without a main file.
fn dropin_patterns(conf_d: &Path) -> Vec<String> {
    let out = run(&["--config", "", "--config-dir", conf_d.to_str().unwrap(), "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    json(&out)["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_200000_entry_list_decodes_with_every_line_right() {
    // One quoted digest reference a line. Counting lines from the start of
    // the file for each entry took minutes of CPU here; the limit is far
    // above what the linear decoder needs, even unoptimised.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("# generated\n[crio.image]\npinned_images = [\n");
    for i in 0..200_000 {
        text.push_str(&format!("  \"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{i:064x}\",\n"));
    }
    text.push_str("]\n");
    std::fs::write(dir.path().join("50-pins.conf"), text).unwrap();
    let conf_d = dir.path().to_str().unwrap();
    let out = run_limited(&["--config", "", "--config-dir", conf_d, "config", "--json"], 60, 8 << 20);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let v = json(&out);
    let patterns = v["patterns"].as_array().unwrap();
    assert_eq!(patterns.len(), 200_001);
    for i in [0, 1, 99_999, 199_999] {
        assert_eq!(patterns[i]["source"], format!("{conf_d}/50-pins.conf:{}", i + 4));
        assert_eq!(patterns[i]["pattern"], format!("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{i:064x}"));
    }
}

#[test]
fn a_dropin_whose_name_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"50-caf\xe9.conf");
    std::fs::write(dir.path().join(name), pins_dropin(&["quay.io/latin1/name:1"])).unwrap();
    std::fs::create_dir(dir.path().join(std::ffi::OsStr::from_bytes(b"60-\xff"))).unwrap();
    std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"60-\xff/x.conf")), "# nothing\n").unwrap();
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["--config", "", "--config-dir", conf_d, "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["patterns"][0]["pattern"], "quay.io/latin1/name:1");
    // Shown with the byte escaped, in the walk's order.
    assert_eq!(v["patterns"][0]["source"], format!("{conf_d}/50-caf\\xe9.conf:2"));
    assert_eq!(
        v["files"],
        serde_json::json!([format!("{conf_d}/50-caf\\xe9.conf"), format!("{conf_d}/60-\\xff/x.conf")])
    );
    let out = run(&["--config", "", "--config-dir", conf_d, "config"]);
    assert!(stdout(&out).contains("50-caf\\xe9.conf:2"), "{}", stdout(&out));
}

#[test]
fn a_dangling_link_as_the_dropin_directory_is_a_missing_one() {
    // CRI-O's os.Stat follows the link, finds nothing and starts without drop-ins.
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("crio.conf.d");
    std::os::unix::fs::symlink(dir.path().join("gone"), &link).unwrap();
    let out = run(&["--config", "node/crio.conf", "--config-dir", link.to_str().unwrap(), "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["files"], serde_json::json!(["node/crio.conf"]));
    // A link to a directory is still read as a file, which stops CRI-O.
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("dir-link")).unwrap();
    let dir_link = dir.path().join("dir-link");
    let out = run(&["--config", "", "--config-dir", dir_link.to_str().unwrap(), "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("refuse to start"), "{}", stderr(&out));
}

#[test]
fn byte_order_marks_are_dropped_as_crio_drops_them() {
    // BurntSushi/toml drops one mark at the start, UTF-16's too, and reads
    // the rest as UTF-8.
    let body = pins_dropin(&["quay.io/marked:1"]);
    for bom in [&b"\xff\xfe"[..], b"\xfe\xff", b"\xef\xbb\xbf"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("50-bom.conf"), [bom, body.as_bytes()].concat()).unwrap();
        assert_eq!(dropin_patterns(dir.path()), ["quay.io/marked:1", "registry.k8s.io/pause:3.10.1"], "{bom:x?}");
    }
    // A file really in UTF-16 is refused by both, with a hint.
    let dir = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> = body.encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(dir.path().join("50-utf16.conf"), [&b"\xff\xfe"[..], &utf16].concat()).unwrap();
    let out = run(&["--config", "", "--config-dir", dir.path().to_str().unwrap(), "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("UTF-16") && stderr(&out).contains("refuse to start"), "{}", stderr(&out));
}

/// Runs crio-pin on `args`, which name the FIFO `fifo`, and returns its
/// output; panics if it opens the FIFO (and so would wait for a writer).
fn run_beside_fifo(args: &[&str], fifo: &Path) -> Output {
    use std::os::unix::fs::OpenOptionsExt;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(data())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        // Opening for writing without blocking works only once a reader has it open.
        if std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(fifo).is_ok() {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("crio-pin {args:?} opened the FIFO, and waits for a writer");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn fifos_devices_and_sockets_are_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    std::fs::write(conf_d.join("10-pins.conf"), pins_dropin(&["quay.io/kept:1"])).unwrap();
    // A drop-in masked as systemd masks a unit: the null device reads as empty.
    std::os::unix::fs::symlink("/dev/null", conf_d.join("20-masked.conf")).unwrap();
    assert_eq!(dropin_patterns(&conf_d), ["quay.io/kept:1", "registry.k8s.io/pause:3.10.1"]);
    let conf_d_s = conf_d.to_str().unwrap();

    let fifo = conf_d.join("30-fifo.conf");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = run_beside_fifo(&["--config", "", "--config-dir", conf_d_s, "config"], &fifo);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("30-fifo.conf: is a FIFO (named pipe), not a regular file"), "{err}");
    assert!(err.contains("CRI-O would wait for ever at start-up"), "{err}");
    let out = run_beside_fifo(&["--patterns", fifo.to_str().unwrap(), "config"], &fifo);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let out = run_beside_fifo(&["--pinned-images", "x.io/a:1", "explain", "--images", fifo.to_str().unwrap()], &fifo);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("is a FIFO") && stderr(&out).contains("--images -"), "{}", stderr(&out));
    std::fs::remove_file(&fifo).unwrap();

    // /dev/zero never ends: CRI-O ran out of memory on it.
    std::os::unix::fs::symlink("/dev/zero", conf_d.join("40-zero.conf")).unwrap();
    let out = run_limited(&["--config", "", "--config-dir", conf_d_s, "config"], 60, 2 << 20);
    assert_eq!(code(&out), 2, "{:?}: {}", out.status, stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("40-zero.conf: is a character device") && err.contains("runs out of memory"), "{err}");
    let zero = conf_d.join("40-zero.conf");
    let out = run_limited(&["--pinned-images", "x.io/a:1", "explain", "--images", zero.to_str().unwrap()], 60, 2 << 20);
    assert_eq!(code(&out), 2, "{:?}: {}", out.status, stderr(&out));
    std::fs::remove_file(&zero).unwrap();

    let _socket = std::os::unix::net::UnixListener::bind(conf_d.join("50-socket.conf")).unwrap();
    let out = run(&["--config", "", "--config-dir", conf_d_s, "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("50-socket.conf: is a socket"), "{}", stderr(&out));
}

#[test]
fn no_file_or_standard_input_is_read_past_256_mib() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse: no disk is used.
    let big = dir.path().join("big.conf");
    std::fs::File::create(&big).unwrap().set_len((256 << 20) + 1).unwrap();
    let big = big.to_str().unwrap();
    for args in [
        vec!["--config", big, "--config-dir", "none", "config"],
        vec!["--patterns", big, "config"],
        vec!["--pinned-images", "x.io/a:1", "explain", "--images", big],
    ] {
        let out = run_limited(&args, 60, 2 << 20);
        assert_eq!(code(&out), 2, "{args:?}: {:?}", out.status);
        assert!(stderr(&out).contains(&format!("{big}: larger than 256 MiB")), "{args:?}: {}", stderr(&out));
    }
    let out = run_limited(&["--config", big, "--config-dir", "none", "config"], 60, 2 << 20);
    assert!(stderr(&out).contains("this tool reads at most 256 MiB from one file"), "{}", stderr(&out));
    // Standard input: exactly the limit is read (one comment line), one byte more is not.
    for (bytes, want) in [(256 << 20, 0), ((256 << 20) + 1, 2)] {
        let out = feed_comment(&["--pinned-images", "x.io/a:1", "explain", "x.io/a:1", "--images", "-"], bytes);
        assert_eq!(code(&out), want, "{bytes}: {:?} {}", out.status, stderr(&out));
        if want == 2 {
            assert!(stderr(&out).contains("-: larger than 256 MiB"), "{}", stderr(&out));
        }
    }
}

/// Runs crio-pin (at most 2 GiB of address space) with a comment line of
/// `bytes` bytes on its standard input; it may stop reading early.
fn feed_comment(args: &[&str], bytes: usize) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut block = vec![b'x'; 1 << 20];
        block[0] = b'#';
        let mut left = bytes;
        // A broken pipe (the tool stopped reading) ends the writing.
        while left > 0 {
            let n = left.min(block.len());
            if left == n {
                block[n - 1] = b'\n';
            }
            if stdin.write_all(&block[..n]).is_err() {
                break;
            }
            block[0] = b'x';
            left -= n;
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn toml_nested_deeper_than_the_reader_can_go_stops_without_blaming_crio() {
    let dir = tempfile::tempdir().unwrap();
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let file = |depth: usize| format!("{}[other]\ndeep = {}\n", pins_dropin(&["quay.io/kept:1"]), nested(depth));
    std::fs::write(dir.path().join("50-deep.conf"), file(80)).unwrap();
    assert_eq!(dropin_patterns(dir.path()), ["quay.io/kept:1", "registry.k8s.io/pause:3.10.1"]);
    // CRI-O reads any depth; the pins cannot be shown without this file.
    let dotted = format!("{}[{}]\nx = 1\n", pins_dropin(&["quay.io/kept:1"]), vec!["a"; 100].join("."));
    for (what, text) in [("arrays", file(81)), ("arrays", file(2000)), ("dotted key", dotted)] {
        std::fs::write(dir.path().join("50-deep.conf"), text).unwrap();
        let out = run(&["--config", "", "--config-dir", dir.path().to_str().unwrap(), "config"]);
        assert_eq!(code(&out), 2, "{what}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("50-deep.conf:"), "{what}: {err}");
        assert!(err.contains("nested deeper than 80 levels") && err.contains("CRI-O reads it"), "{what}: {err}");
        assert!(!err.contains("refuse"), "{what}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn the_pause_image_is_checked_as_crios_reference_parser_checks_it() {
    let hex64 = "0123456789abcdef".repeat(4);
    // The whole name, host included: 256 characters, then 255.
    let long_name = |n: usize| format!("{}.example/app:1", "r".repeat(n - 12));
    let upper_digest = format!("quay.io/a/b@sha256:{}", "A".repeat(64));
    let refused: [(&str, &str); 6] = [
        (&hex64, "cannot specify 64-byte hexadecimal strings"),
        ("MyOrg/app:1", "repository name must be lowercase"),
        ("registry.example/App:1", "repository name must be lowercase"),
        (&long_name(256), "repository name must not be more than 255 characters"),
        (&upper_digest, "invalid checksum digest format"),
        ("quay.io/a/b:vé", "invalid reference format"),
    ];
    for (image, why) in refused {
        let out = run(&["--config", "", "--config-dir", "none", "--pause-image", image, "config"]);
        assert_eq!(code(&out), 2, "{image}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains(why), "{image}: {err}");
        assert!(err.contains("(set at flag)") && err.contains("refuse to start"), "{image}: {err}");
        assert!(err.contains("write a reference such as \"registry.k8s.io/pause:3.10.1\""), "{image}: {err}");
    }
    // From a file: the file and line are named.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("50-pause.conf"), format!("[crio.image]\npause_image = {hex64:?}\n")).unwrap();
    let out = run(&["--config", "", "--config-dir", dir.path().to_str().unwrap(), "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("50-pause.conf:2)"), "{}", stderr(&out));
    // What CRI-O accepts: an upper-case registry host, 63 hex characters,
    // a short name, a digest.
    let hex63 = &hex64[..63];
    let digest = format!("quay.io/a/b@sha256:{hex64}");
    for image in ["Registry.K8s.io/pause:3.10.1", hex63, "busybox", &digest, &long_name(255)] {
        let out = run(&["--config", "", "--config-dir", "none", "--pause-image", image, "config", "--json"]);
        assert_eq!(code(&out), 0, "{image}: {}", stderr(&out));
    }
}

// ---- issue 19: the tool as operators and packagers meet it ----

/// Runs crio-pin with `input` on its standard input.
fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(data()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input).unwrap();
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

#[test]
fn an_empty_listing_is_a_valid_answer() {
    // A node with no images: crictl answers {"images": []}.
    let dir = tempfile::tempdir().unwrap();
    let files = [
        write_file(dir.path(), "listing.json", "{\"images\": []}\n"),
        write_file(dir.path(), "array.json", "[]"),
        write_file(dir.path(), "empty.txt", ""),
        write_file(dir.path(), "comments.txt", "# node-1: nothing pulled yet\n\n"),
    ];
    for file in &files {
        for check in [&[][..], &["--check"][..]] {
            let args = [&node(&["explain", "--images", file.as_str()])[..], check].concat();
            let out = run(&args);
            assert_eq!(code(&out), 0, "{args:?}: {}{}", stdout(&out), stderr(&out));
            let text = stdout(&out);
            assert!(!text.contains("PINNED"), "no table for no image: {text}");
            let summary =
                if check.is_empty() { "0 image(s), 0 pinned\n" } else { "0 image(s), 0 pinned; 0 disagreement" };
            assert!(text.contains(summary), "{args:?}: {text}");
            let v = json(&run(&[&args[..], &["--json"]].concat()));
            assert_eq!(v["images"], serde_json::json!([]), "{v}");
            assert_eq!((v["disagreements"].as_u64(), v["undecided"].as_u64()), (Some(0), Some(0)));
        }
        // diff: nothing gains or loses a pin.
        let out = run(&node(&["diff", "--images", file.as_str(), "--to-anchor-globs", "--json"]));
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(
            (json(&out)["gained"].as_array().map(Vec::len), json(&out)["lost"].as_array().map(Vec::len)),
            (Some(0), Some(0))
        );
    }
    // Empty standard input, too.
    for input in [&b""[..], b"{\"images\": []}"] {
        let out = run_with_stdin(&node(&["explain", "--images", "-", "--check", "--json"]), input);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(json(&out)["images"], serde_json::json!([]));
    }
    // No input at all is still a usage error.
    assert_eq!(code(&run(&node(&["explain"]))), 2);
}

#[test]
fn check_states_each_cause_once_with_the_images_it_explains() {
    let out = run(&node(&["explain", "--images", "node/images.json", "--check"]));
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

#[test]
fn lint_summary_counts_what_it_prints() {
    let out = run(&node(&["lint"]));
    let text = stdout(&out);
    let printed_warnings = text.lines().filter(|l| l.starts_with("warning[")).count();
    let summary = text.lines().last().unwrap();
    assert_eq!(summary, "4 pattern(s): 0 error(s), 1 warning(s), 1 note(s); 4 configuration warning(s)");
    assert_eq!(printed_warnings, 1 + 4, "{text}");
    let v = json(&run(&node(&["lint", "--json"])));
    let counts = &v["counts"];
    assert_eq!(counts["configuration_warnings"].as_u64(), v["warnings"].as_array().map(|w| w.len() as u64));
    let severity = |s: &str| v["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == s).count() as u64;
    assert_eq!(
        (counts["errors"].as_u64(), counts["warnings"].as_u64(), counts["notes"].as_u64()),
        (Some(severity("error")), Some(severity("warning")), Some(severity("info")))
    );
    assert_eq!((counts["patterns"].as_u64(), counts["reload_patterns"].as_u64()), (Some(4), None));
    // With the list a SIGHUP reload loads.
    let v = json(&run_env(
        &["-c", "", "-d", "reload/crio.conf.d", "lint", "--json"],
        &[("CONTAINER_PINNED_IMAGES", "quay.io/*,**")],
    ));
    assert_eq!(v["counts"]["reload_patterns"], 3, "{v}");
}

// ---- JSON schemas: cli/tests/schema, documented in docs/json.md ----

fn schema(command: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/schema/{command}.schema.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The JSON Schema keywords the schemas use: $ref (to $defs), type, enum,
/// minimum, properties, required, additionalProperties, items.
fn validate(root: &Value, schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.strip_prefix("#/$defs/").expect("a $ref into $defs");
        return validate(root, &root["$defs"][name], v, at, errors);
    }
    let type_of = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
            _ => panic!("type: {types}"),
        };
        if !allowed.contains(&type_of(v)) {
            return errors.push(format!("{at}: {} is not {allowed:?}", type_of(v)));
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        if !values.contains(v) {
            errors.push(format!("{at}: {v} is not one of {values:?}"));
        }
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_i64(), v.as_i64()) {
        if n < min {
            errors.push(format!("{at}: {n} < {min}"));
        }
    }
    if let Value::Object(map) = v {
        let properties = schema["properties"].as_object();
        for key in schema["required"].as_array().into_iter().flatten() {
            if !map.contains_key(key.as_str().unwrap()) {
                errors.push(format!("{at}: no {key}"));
            }
        }
        for (key, value) in map {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => validate(root, sub, value, &format!("{at}.{key}"), errors),
                None if schema["additionalProperties"] == false => {
                    errors.push(format!("{at}: undocumented key {key:?}"))
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(sub)) = (v, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            validate(root, sub, item, &format!("{at}[{i}]"), errors);
        }
    }
}

/// Validates `v`, the JSON of `command`, against its schema; and every
/// code in it against the codes its manual page lists.
fn check_json(command: &str, v: &Value, what: &str, pages: &Path) {
    let root = schema(command);
    let mut errors = Vec::new();
    validate(&root, &root, v, "$", &mut errors);
    assert!(errors.is_empty(), "{what}: {command} --json does not match its schema:\n{}", errors.join("\n"));
    let page = std::fs::read_to_string(pages.join(format!("crio-pin-{command}.1"))).unwrap();
    let config_page = std::fs::read_to_string(pages.join("crio-pin-config.1")).unwrap();
    for key in ["warnings", "findings", "causes", "refused"] {
        for item in v[key].as_array().into_iter().flatten() {
            let code = item["code"].as_str().unwrap();
            let listed = format!(".TP\n\\fB{}\\fR\n", code.replace('-', "\\-"));
            let listed_in = if key == "refused" { &config_page } else { &page };
            assert!(listed_in.contains(&listed), "{what}: code {code} ({key}) is not listed in its manual page");
        }
    }
}

#[test]
fn every_json_output_matches_its_documented_schema() {
    let pages = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", pages.path().to_str().unwrap()])), 0);
    // The golden outputs.
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected");
    let mut checked = 0;
    for entry in std::fs::read_dir(&expected).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let command_line = text.lines().next().unwrap();
        if !command_line.contains(" --json") {
            continue;
        }
        let command = ["config", "lint", "explain", "diff", "translate"]
            .into_iter()
            .find(|c| command_line.split(' ').any(|w| w == *c))
            .unwrap_or_else(|| panic!("{}: which command?", path.display()));
        let out = &text[text.find("--- stdout\n").unwrap() + 11..text.find("--- stderr\n").unwrap()];
        let v: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        check_json(command, &v, &path.display().to_string(), pages.path());
        checked += 1;
    }
    assert!(checked >= 9, "{checked} golden JSON outputs");
    // Real output: every command, every source kind, refused lists, reload
    // lists, artifacts, disagreements, an empty listing.
    let dir = tempfile::tempdir().unwrap();
    let crlf = write_file(dir.path(), "crlf.txt", "docker.io/library/nginx:1.25\r\n*\r\n");
    let empty = write_file(dir.path(), "empty.json", "{\"images\": []}");
    let env = [("CONTAINER_PINNED_IMAGES", "quay.io/*,**"), ("CONTAINER_PAUSE_IMAGE", "registry.k8s.io/pause:3.9")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let runs: Vec<(Vec<&str>, Env<'_>)> = vec![
        (node(&["config"]), &[]),
        (node(&["config"]), &env),
        (vec!["-c", "keys/crio.conf", "-d", "keys/crio.conf.d", "config"], &[]),
        (vec!["-c", "", "-d", "reload/crio.conf.d", "config"], &env),
        (vec!["--config", "node/crio.conf", "--config-dir", "no/such/dir", "config"], &[]),
        (vec!["--patterns", &crlf, "config"], &[]),
        (vec!["--patterns", "lint-patterns.txt", "--strict", "lint"], &[]),
        (node(&["lint"]), &env),
        (vec!["-c", "", "-d", "reload/crio.conf.d", "lint"], &env),
        (listing_f(&["lint", "--images", "crio-listings/F/list.json"]), &[]),
        (node(&["explain", "--images", "node/images.json", "--check"]), &[]),
        (node(&["explain", "nginx:1.25", "Nginx:1"]), &env),
        (listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]), &[]),
        (vec!["-c", "bad/lone-star.conf", "-d", "none", "explain", "--images", "crio-listings/A/list.json"], &[]),
        (node(&["explain", "--images", &empty, "--check"]), &[]),
        (node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"]), &[]),
        (node(&["diff", "--images", "node/images.json", "--new-patterns", "changes/new-patterns.txt"]), &env),
        (listing_f(&["diff", "--images", "crio-listings/F/list.json", "--to-case-sensitive"]), &[]),
        (vec!["--runtime", "containerd", "-c", "containerd/config.toml", "translate", "--to", "crio"], &[]),
        (
            vec![
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
            &[],
        ),
        (node(&["translate", "--to", "containerd"]), &[]),
    ];
    for (args, env) in runs {
        let command =
            ["config", "lint", "explain", "diff", "translate"].into_iter().find(|c| args.contains(c)).unwrap();
        let out = run_env(&[&args[..], &["--json"]].concat(), env);
        assert!(code(&out) != 2 || !out.stdout.is_empty(), "{args:?}: {}", stderr(&out));
        check_json(command, &json(&out), &format!("{args:?}"), pages.path());
    }
}

/// Every key of every schema is documented in docs/json.md: in the
/// command's section, or among the shared objects before the sections.
#[test]
fn docs_json_md_names_every_key_of_the_schemas() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/json.md")).unwrap();
    fn keys(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().cloned());
                }
                map.values().for_each(|v| keys(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    for command in ["config", "lint", "explain", "diff"] {
        let mut all = BTreeSet::new();
        keys(&schema(command), &mut all);
        let section = doc
            .split("\n## ")
            .find(|s| s.starts_with(&format!("`{command} --json`")))
            .unwrap_or_else(|| panic!("docs/json.md has no section \"## `{command} --json`\""));
        let shared = doc.split("\n## ").next().unwrap();
        for key in all {
            let key = format!("`{key}`");
            assert!(
                section.contains(&key) || shared.contains(&key),
                "docs/json.md, {command}: {key} is not documented"
            );
        }
    }
}

/// The table lines of a text output: cells separated by two blanks or more.
fn table_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            t.len() < l.len() + 1 && t.contains("  ") && !l.starts_with("  ")
        })
        .collect()
}

#[test]
fn tables_fit_100_columns_unless_no_trunc() {
    let ocp = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:97a33066db118ed7ccc7c801c34db23f7127e2f53f9aba02c1c98808b6505aaa";
    let runs = [
        node(&["config"]),
        node(&["explain", "--images", "node/images.json", "--check"]),
        node(&["explain", "--images", "node/images.json"]),
        node(&["explain", ocp, "nginx:1.25", "evil.example/registry.example/team/x:1"]),
        listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]),
        node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"]),
        vec![
            "-c",
            "crio-listings/crio.conf",
            "-d",
            "crio-listings/A/crio.conf.d",
            "diff",
            "--images",
            "crio-listings/A/list.json",
            "--to-anchor-globs",
        ],
    ];
    for args in runs {
        let text = stdout(&run(&args));
        let lines = table_lines(&text);
        assert!(lines.len() >= 2, "{args:?}: no table in\n{text}");
        for line in &lines {
            assert!(line.chars().count() <= 100, "{args:?}: {} columns:\n{line}", line.chars().count());
            assert!(!line.contains(&ocp[48..]), "{args:?}: a whole digest in a table:\n{line}");
        }
        // Whole under --no-trunc; JSON always.
        let full = stdout(&run(&[&args[..], &["--no-trunc"]].concat()));
        if text.contains("@sha256:97a33066db11…") {
            assert!(table_lines(&full).iter().any(|l| l.contains(ocp)), "{args:?}:\n{full}");
        }
        assert!(!full.contains('…') && !full.contains("left out to fit"), "{args:?}:\n{full}");
    }
    // Shortened digests stay distinct: listing F has two images of one
    // repository, and an artifact pinned by its canonical name.
    let text = stdout(&run(&listing_f(&["explain", "--images", "crio-listings/F/list.json"])));
    for digest in ["sha256:225baad58664…", "sha256:fb149aa86002…", "sha256:0a49ab780118…"] {
        assert!(text.contains(digest), "{digest}:\n{text}");
    }
    // A column left out is said, and --no-trunc brings it back.
    let text = stdout(&run(&node(&["explain", "--images", "node/images.json", "--check"])));
    assert!(text.contains("note: ID and SOURCE left out to fit 100 columns; --no-trunc shows every column"), "{text}");
    let full = stdout(&run(&node(&["explain", "--images", "node/images.json", "--check", "--no-trunc"])));
    assert!(
        full.starts_with("PINNED     ID  ")
            && full.contains("6210c0bf05396716df932f0729df69de0533933e5ad9871fd07b61811c4c28df"),
        "{full}"
    );
    let v = json(&run(&node(&["explain", "--images", "node/images.json", "--json"])));
    assert_eq!(v["images"][1]["names"][0], ocp);
}

#[test]
fn a_missing_dropin_directory_is_said() {
    let out = run(&["--config", "node/crio.conf", "--config-dir", "node/crio.conf.dd", "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let missing = with_code(&v["warnings"], "missing-config-dir");
    assert_eq!(missing.len(), 1, "{v}");
    assert_eq!(missing[0]["file"], "node/crio.conf.dd");
    let text = stdout(&run(&["--config", "node/crio.conf", "--config-dir", "node/crio.conf.dd", "lint"]));
    assert!(text.contains("warning[missing-config-dir]: node/crio.conf.dd: no such directory"), "{text}");
    // explain and diff print no configuration warnings: this one goes to standard error.
    let out =
        run(&["-c", "node/crio.conf", "-d", "node/crio.conf.dd", "explain", "registry.k8s.io/pause:3.10.1", "--json"]);
    assert_eq!(code(&out), 0);
    assert!(stderr(&out).contains("warning[missing-config-dir]: node/crio.conf.dd"), "{}", stderr(&out));
    json(&out);
    // An existing directory, or --patterns, says nothing.
    assert!(with_code(&json(&run(&node(&["config", "--json"])))["warnings"], "missing-config-dir").is_empty());
    assert!(stderr(&run(&node(&["explain", "registry.k8s.io/pause:3.10.1"]))).is_empty());
}

#[test]
fn crlf_dropins_are_read_as_crio_reads_them() {
    // TOML takes CRLF line endings; CRI-O reads such a drop-in as this tool
    // does, with no '\r' in any pattern: nothing to warn about. `crlf` is
    // for --patterns FILE, where the tool itself strips the '\r'.
    let dir = tempfile::tempdir().unwrap();
    let lf = "[crio.image]\npinned_images = [\n  \"quay.io/a/b:1\",\n  \"quay.io/c/*\",\n]\n";
    write_file(dir.path(), "50-crlf.conf", lf.replace('\n', "\r\n"));
    let v = json(&run(&["-c", "", "-d", dir.path().to_str().unwrap(), "config", "--json"]));
    let patterns: Vec<&str> =
        v["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap()).collect();
    assert_eq!(patterns, ["quay.io/a/b:1", "quay.io/c/*", "registry.k8s.io/pause:3.10.1"]);
    assert_eq!(v["patterns"][1]["line"], 4);
    assert!(with_code(&v["warnings"], "crlf").is_empty(), "{v}");
    // The documentation says so.
    let pages = tempfile::tempdir().unwrap();
    run(&["generate-man", pages.path().to_str().unwrap()]);
    let page = std::fs::read_to_string(pages.path().join("crio-pin-config.1")).unwrap();
    let crlf = page.split(".TP\n").find(|item| item.starts_with("\\fBcrlf\\fR")).expect("crlf in crio-pin-config(1)");
    assert!(crlf.contains("\\-\\-patterns FILE") && crlf.contains("without a warning"), "{crlf}");
    let guide = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tool.md")).unwrap();
    assert!(guide.contains("`crlf` (a `--patterns FILE` with CRLF line endings"), "docs/tool.md: crlf");
}

#[test]
fn manual_pages_list_codes_exit_statuses_and_real_synopses() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", dir.path().to_str().unwrap()])), 0);
    let page = |name: &str| std::fs::read_to_string(dir.path().join(format!("{name}.1"))).unwrap();
    let listed = |page: &str, code: &str| page.contains(&format!(".TP\n\\fB{}\\fR\n", code.replace('-', "\\-")));
    let warnings = [
        "overridden-list",
        "ignored-key",
        "ambiguous-key",
        "flag-lost-on-reload",
        "leftover-file",
        "missing-config",
        "missing-config-dir",
        "crlf",
    ];
    let lint = [
        "lone-star",
        "invalid-utf8",
        "bad-pause-image",
        "pins-everything",
        "unanchored-glob",
        "literal-star",
        "empty",
        "whitespace",
        "duplicate",
        "shadowed",
        "not-fully-qualified",
        "no-tag-or-digest",
        "not-a-reference",
        "digest-needs-digest-pull",
        "artifact-digest",
    ];
    let causes =
        ["artifact-store", "not-reloaded", "overridden-list", "name-not-stored", "reload-rejected", "other-sources"];
    for (name, codes) in [
        ("crio-pin-config", &warnings[..]),
        ("crio-pin-lint", &[&lint[..], &warnings[..]].concat()[..]),
        ("crio-pin-explain", &[&causes[..], &["agree", "disagree", "undecided"][..]].concat()[..]),
        ("crio-pin-diff", &warnings[..]),
    ] {
        let text = page(name);
        for code in codes {
            assert!(listed(&text, code), "{name}.1 does not list {code}");
        }
        // Exit statuses in their own section, not in an "EXTRA" one.
        assert!(text.contains(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\n"), "{name}.1: no EXIT STATUS");
        assert!(!text.contains(".SH EXTRA"), "{name}.1 has an EXTRA section");
        // Option arguments in the synopsis.
        let synopsis = &text[text.find(".SH SYNOPSIS").unwrap()..text.find(".SH DESCRIPTION").unwrap()];
        assert!(synopsis.contains("[\\fB\\-c\\fR|\\fB\\-\\-config\\fR \\fIFILE\\fR]"), "{name}.1: {synopsis}");
    }
    assert!(listed(&page("crio-pin-config"), "lone-star"), "refused lists");
    let lint_page = page("crio-pin-lint");
    assert!(lint_page.contains(".TP\n\\fB1\\fR\n"), "lint exits 1 on errors");
    let explain = page("crio-pin-explain");
    assert!(explain.contains("[\\fB\\-\\-check\\fR [\\fB\\-\\-allow\\-undecided\\fR]]"), "{explain}");
    assert!(explain.contains("[\\fB\\-\\-images\\fR \\fIFILE|\\-\\fR]"), "{explain}");
    let diff = page("crio-pin-diff");
    assert!(
        diff.contains("(\\fB\\-\\-dropin\\fR \\fIFILE\\fR [\\fB\\-\\-as\\fR \\fINAME\\fR] | \\fB\\-\\-new\\-patterns\\fR \\fIFILE\\fR | \\fB\\-\\-to\\-anchor\\-globs\\fR | \\fB\\-\\-to\\-case\\-sensitive\\fR)"),
        "{diff}"
    );
    assert!(diff.contains("Exactly one change is previewed"), "diff's one-change rule: {diff}");
    let top = page("crio-pin");
    assert!(top.contains(".SH \"EXIT STATUS\"") && !top.contains(".SH EXTRA"), "{top}");
    // --help says the same exit statuses.
    let help = stdout(&run(&["lint", "--help"]));
    assert!(help.contains("Exit status:\n  0  no error"), "{help}");
}

// ---- other runtimes: containerd, cri-dockerd (--runtime) ----

/// containerd's fixture: config.toml and the conf.d file it imports.
fn containerd(runtime: &str, rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = vec!["--runtime", runtime.to_string().leak(), "-c", "containerd/config.toml"];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// cri-dockerd's `--pinned-images` values, one a line.
fn cri_dockerd(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = vec!["--runtime", "cri-dockerd", "--patterns", "cri-dockerd/patterns.txt"];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

fn pattern_of<'v>(v: &'v Value, key: &str) -> &'v Value {
    v["patterns"].as_array().unwrap().iter().find(|p| p["key"] == key).unwrap_or_else(|| panic!("no key {key}: {v}"))
}

/// (code, suggestion) of each finding, in order.
fn findings(v: &Value) -> Vec<(String, Option<String>)> {
    let list = v["findings"].as_array().unwrap();
    list.iter()
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["suggestion"].as_str().map(str::to_string)))
        .collect()
}

#[test]
fn containerd_config_lists_each_key_where_it_was_written() {
    golden("config-containerd", &containerd("containerd", &["config"]), 0);
    let v = json(&golden("config-containerd-json", &containerd("containerd", &["config", "--json"]), 0));
    assert_eq!(v["files"], serde_json::json!(["containerd/config.toml", "containerd/conf.d/50-local.toml"]));
    // The map has no order: its keys, sorted; each value where it was written.
    let keys: Vec<&str> = v["patterns"].as_array().unwrap().iter().map(|p| p["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["agent", "by-id", "coredns", "etcd", "kube-proxy", "registry", "sandbox", "web"]);
    let etcd = pattern_of(&v, "etcd");
    assert_eq!(
        (&etcd["pattern"], &etcd["file"], &etcd["line"], &etcd["source"], &etcd["source_kind"]),
        (
            &serde_json::json!("registry.k8s.io/etcd:3.5.9-0"),
            &serde_json::json!("containerd/conf.d/50-local.toml"),
            &serde_json::json!(4),
            &serde_json::json!("containerd/conf.d/50-local.toml:4"),
            &serde_json::json!("file")
        )
    );
    // No file sets the key sandbox: containerd's built-in sandbox image.
    let out = run(&["--runtime", "containerd", "-c", "containerd/default.toml", "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let sandbox = pattern_of(&v, "sandbox");
    assert_eq!((&sandbox["source"], &sandbox["source_kind"]), (&"default".into(), &"default".into()));
    assert!(sandbox.get("file").is_none() && sandbox.get("line").is_none(), "{sandbox}");
    let text = stdout(&run(&["--runtime", "containerd", "-c", "containerd/default.toml", "config"]));
    assert!(
        text.contains("note: \"registry.k8s.io/pause:3.10.2\" is containerd's built-in default sandbox image"),
        "{text}"
    );
    // A missing --config file stops containerd.
    let out = run(&["--runtime", "containerd", "-c", "containerd/absent.toml", "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("containerd/absent.toml: no such file"), "{}", stderr(&out));
}

#[test]
fn containerd_lint_names_the_stored_name_to_write() {
    golden("lint-containerd", &containerd("containerd", &["lint"]), 0);
    let v = json(&run(&containerd("containerd", &["lint", "--json"])));
    let want = [
        (
            "not-normalized",
            "quay.io/team/agent@sha256:0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd",
        ),
        ("not-normalized", "registry.k8s.io/coredns/coredns:latest"),
        ("not-normalized", "registry.k8s.io/kube-scheduler:v1.28.4"),
        ("not-normalized", "docker.io/library/nginx:1.25.3"),
    ];
    let want: Vec<(String, Option<String>)> = want.iter().map(|(c, s)| (c.to_string(), Some(s.to_string()))).collect();
    assert_eq!(findings(&v), want);
    let web = v["findings"].as_array().unwrap().iter().find(|f| f["key"] == "web").expect("findings name their key");
    assert_eq!((&web["file"], &web["line"]), (&"containerd/config.toml".into(), &9.into()));
    // With the fix PRs, the values are normalised: notes that released
    // containerd pins nothing with them; the host's case still matters.
    let out = run(&containerd("containerd-normalized", &["lint", "--json"]));
    assert_eq!(code(&out), 0);
    let v = json(&out);
    let severities: Vec<&str> =
        v["findings"].as_array().unwrap().iter().map(|f| f["severity"].as_str().unwrap()).collect();
    assert_eq!(severities, ["info", "info", "warning", "info"]);
    // The image ID is a name containerd stores: no finding for by-id.
    assert!(!stdout(&run(&containerd("containerd", &["lint"]))).contains("by-id"));
}

#[test]
fn containerd_normalized_refuses_values_that_are_no_reference() {
    fn refused<'a>(runtime: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
        let mut v = vec!["--runtime", runtime, "-c", "containerd/refused.toml"];
        v.extend(rest);
        v
    }
    let out = golden("config-containerd-normalized-refused", &refused("containerd-normalized", &["config"]), 2);
    for line in [
        "crio-pin: containerd/refused.toml:7: pattern 1 (mirrors = \"quay.io/*\"): not an image reference",
        "containerd's fix PRs never pin a value that is no reference",
    ] {
        assert!(stderr(&out).contains(line), "{line}: {}", stderr(&out));
    }
    let v = json(&run(&refused("containerd-normalized", &["config", "--json"])));
    let refused_list = v["refused"].as_array().unwrap();
    let got: Vec<(&str, &str, u64, &str)> = refused_list
        .iter()
        .map(|r| {
            (
                r["code"].as_str().unwrap(),
                r["key"].as_str().unwrap(),
                r["line"].as_u64().unwrap(),
                r["file"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("not-a-reference", "mirrors", 7, "containerd/refused.toml"),
            ("not-a-reference", "team", 8, "containerd/refused.toml")
        ]
    );
    golden("lint-containerd-normalized-refused", &refused("containerd-normalized", &["lint"]), 1);
    // explain shows what the valid values pin, and exits 2.
    let out = run(&refused("containerd-normalized", &["explain", "--images", "containerd/images.json"]));
    assert_eq!(code(&out), 2);
    let text = stdout(&out);
    assert!(text.contains("what containerd with a fix PR and a runtime built on the crio-pin library do"), "{text}");
    // As released, containerd takes them and pins nothing with them.
    let out = run(&refused("containerd", &["lint"]));
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("warning[not-a-reference]: pattern 1 mirrors = \"quay.io/*\""), "{}", stdout(&out));
    assert_eq!(code(&run(&refused("containerd", &["config"]))), 0);
    // Nothing said under another runtime claims CRI-O's behaviour.
    for args in [refused("containerd-normalized", &["config"]), refused("containerd-normalized", &["lint"])] {
        let out = run(&args);
        assert!(!stdout(&out).contains("CRI-O") && !stderr(&out).contains("CRI-O"), "{args:?}: {}", stdout(&out));
    }
}

#[test]
fn containerd_explain_matches_every_name_and_the_image_id() {
    golden(
        "explain-containerd-check",
        &containerd("containerd", &["explain", "--images", "containerd/images.json", "--check"]),
        1,
    );
    let v = json(&golden(
        "explain-containerd-json",
        &containerd("containerd", &["explain", "--images", "containerd/images.json", "--json"]),
        0,
    ));
    let redis = image_named(&v, "docker.io/library/redis:7.2.3-alpine");
    let id = redis["id"].as_str().unwrap();
    assert_eq!((&redis["decided_by"], &redis["key"], &redis["pinned"]), (&id.into(), &"by-id".into(), &true.into()));
    assert!(redis["stored_names"].as_array().unwrap().contains(&id.into()), "{redis}");
    assert!(!redis["names"].as_array().unwrap().contains(&id.into()), "the ID is no listed name: {redis}");
    // Every name is a record: the digest of an image pulled by tag counts.
    let nginx = image_named(&v, "docker.io/library/nginx:1.25.3");
    assert_eq!(nginx["stored_names"].as_array().unwrap().len(), 3, "{nginx}");
    // CRI-O never matches an image by its ID.
    let dir = tempfile::tempdir().unwrap();
    let patterns = write_file(dir.path(), "id.txt", format!("{id}\n"));
    let v = json(&run(&["--patterns", &patterns, "explain", "--images", "containerd/images.json", "--json"]));
    assert_eq!(image_named(&v, "docker.io/library/redis:7.2.3-alpine")["pinned"], false);
    // The causes are containerd's: a label that stays, no reload.
    let v =
        json(&run(&containerd("containerd", &["explain", "--images", "containerd/images.json", "--check", "--json"])));
    assert_eq!(codes(&v["causes"]), ["other-sources", "sticky-label"].map(String::from).into());
    // Under the fix PRs' rules nginx:1.25.3 and the tag-and-digest value
    // pin, which the running (released) containerd does not: other-rules
    // explains exactly those two.
    let v = json(&run(&containerd(
        "containerd-normalized",
        &["explain", "--images", "containerd/images.json", "--check", "--json"],
    )));
    assert_eq!(v["disagreements"], 3);
    let other = &with_code(&v["causes"], "other-rules")[0];
    let explained: Vec<&str> = other["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| v["images"][i.as_u64().unwrap() as usize]["names"][0].as_str().unwrap())
        .collect();
    assert_eq!(
        explained,
        [
            "docker.io/library/nginx:1.25.3",
            "quay.io/team/agent@sha256:0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd"
        ]
    );
    // Names by hand: normalised as containerd stores them; an ID as it is.
    golden(
        "explain-containerd-names",
        &containerd("containerd", &["explain", "nginx:1.25.3", "Registry.k8s.io/Pause:3.10", id]),
        0,
    );
}

#[test]
fn containerd_diff_previews_a_new_list_and_keeps_the_sandbox_key() {
    golden(
        "diff-containerd",
        &containerd(
            "containerd",
            &["diff", "--images", "containerd/images.json", "--new-patterns", "containerd/new-pins.txt"],
        ),
        0,
    );
    let v = json(&run(&containerd(
        "containerd",
        &["diff", "--images", "containerd/images.json", "--new-patterns", "containerd/new-pins.txt", "--json"],
    )));
    let lost: Vec<(&str, &str)> = v["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["names"][0].as_str().unwrap(), c["key"].as_str().unwrap()))
        .collect();
    // The pause image stays pinned: the sandbox key is kept.
    assert_eq!(lost, [("registry.k8s.io/etcd:3.5.9-0", "etcd"), ("docker.io/library/redis:7.2.3-alpine", "by-id")]);
    assert_eq!(v["gained"][0]["source"], "containerd/new-pins.txt:2");
    assert!(v["gained"][0].get("key").is_none());
}

#[test]
fn cri_dockerd_lint_finds_prefixes_and_names_docker_never_reports() {
    golden("lint-cri-dockerd", &cri_dockerd(&["lint"]), 0);
    let v = json(&run(&cri_dockerd(&["lint", "--json"])));
    let want =
        [("repository-prefix", Some("nginx")), ("not-familiar", Some("redis:7.2.3-alpine")), ("literal-star", None)];
    let want: Vec<(String, Option<String>)> =
        want.iter().map(|(c, s)| (c.to_string(), s.map(str::to_string))).collect();
    assert_eq!(findings(&v), want);
    // --pinned-images: each value one pattern, as given.
    let v = json(&run(&[
        "--runtime",
        "cri-dockerd",
        "--pinned-images",
        "nginx:1.25.3,redis:7",
        "--pinned-images",
        "*",
        "config",
        "--json",
    ]));
    let patterns: Vec<(&str, &str)> = v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pattern"].as_str().unwrap(), p["source_kind"].as_str().unwrap()))
        .collect();
    assert_eq!(patterns, [("nginx:1.25.3,redis:7", "flag"), ("*", "flag")]);
    let v = json(&run(&["--runtime", "cri-dockerd", "--pinned-images", "*", "lint", "--json"]));
    assert_eq!(codes(&v["findings"]), ["pins-everything".to_string()].into());
    // No flag, no file: nothing is pinned (by the list).
    let out = run(&["--runtime", "cri-dockerd", "config"]);
    assert_eq!(stdout(&out), "files read: none\nno patterns: nothing is pinned\n");
}

#[test]
fn cri_dockerd_explain_and_diff_match_docker_s_familiar_names() {
    golden(
        "explain-cri-dockerd-check",
        &cri_dockerd(&["explain", "--images", "cri-dockerd/images.json", "--check"]),
        0,
    );
    let v = json(&run(&cri_dockerd(&["explain", "--images", "cri-dockerd/images.json", "--json"])));
    // The trap lint warns of: nginx* pins the exporter too.
    let exporter = image_named(&v, "nginx/nginx-prometheus-exporter:1.1.0");
    assert_eq!((&exporter["pinned"], &exporter["pattern"]), (&true.into(), &"nginx*".into()));
    assert_eq!(image_named(&v, "redis:7.2.3-alpine")["pinned"], false);
    golden(
        "diff-cri-dockerd",
        &cri_dockerd(&["diff", "--images", "cri-dockerd/images.json", "--new-patterns", "cri-dockerd/new-pins.txt"]),
        0,
    );
    // Names by hand are made the familiar names Docker reports.
    let v = json(&run(&cri_dockerd(&["explain", "docker.io/library/nginx:1.25.3", "nginx", "--json"])));
    assert_eq!(
        (&v["images"][0]["names"][0], &v["images"][0]["given"]),
        (&"nginx:1.25.3".into(), &"docker.io/library/nginx:1.25.3".into())
    );
    assert_eq!(v["images"][1]["names"][0], "nginx:latest");
    assert_eq!(first_name_and_pinned(&v), [("nginx:1.25.3", true), ("nginx:latest", true)]);
    // A shorter list than the runtime's: cri-dockerd's causes.
    let out = run(&[
        "--runtime",
        "cri-dockerd",
        "--pinned-images",
        "registry.k8s.io/pause:3.9",
        "explain",
        "--images",
        "cri-dockerd/images.json",
        "--check",
        "--json",
    ]);
    assert_eq!(code(&out), 1);
    let v = json(&out);
    assert_eq!(v["disagreements"], 3);
    assert_eq!(
        codes(&v["causes"]),
        ["label-selector", "not-restarted", "other-sources", "sandbox-image"].map(String::from).into()
    );
}

#[test]
fn options_of_another_runtime_are_usage_errors() {
    for (args, says) in [
        (
            vec!["--runtime", "containerd", "--anchor-globs", "config"],
            "--anchor-globs cannot be used with --runtime containerd: it selects a mode of CRI-O's rules",
        ),
        (
            vec!["--runtime", "containerd-normalized", "--case-sensitive", "lint"],
            "--case-sensitive cannot be used with --runtime containerd-normalized",
        ),
        (vec!["--runtime", "cri-dockerd", "--strict", "config"], "--strict cannot be used with --runtime cri-dockerd"),
        (vec!["--runtime", "containerd", "--config-dir", "x", "config"], "containerd has no drop-in directory"),
        (
            vec!["--runtime", "containerd", "--pinned-images", "x", "config"],
            "containerd reads pinned_images from its config.toml",
        ),
        (vec!["--runtime", "containerd", "--pause-image", "x", "config"], "the key sandbox of pinned_images"),
        (vec!["--runtime", "cri-dockerd", "--config", "x", "config"], "cri-dockerd has no configuration file"),
        (vec!["--runtime", "cri-dockerd", "--config-dir", "x", "config"], "cri-dockerd has no configuration file"),
        (vec!["--runtime", "cri-dockerd", "--pause-image", "x", "config"], "--pod-infra-container-image"),
        (
            vec![
                "--runtime",
                "containerd",
                "-c",
                "containerd/config.toml",
                "lint",
                "--images",
                "containerd/images.json",
            ],
            "only CRI-O pins by their canonical name",
        ),
        (
            containerd("containerd", &["diff", "--images", "containerd/images.json", "--to-anchor-globs"]),
            "--to-anchor-globs changes a mode of CRI-O's rules",
        ),
        (
            containerd(
                "containerd",
                &["diff", "--images", "containerd/images.json", "--dropin", "changes/99-local.conf"],
            ),
            "--dropin previews a drop-in of CRI-O's",
        ),
    ] {
        let out = run(&args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(out.stdout.is_empty() && stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    let out = run(&["--runtime", "docker", "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("[possible values: crio, containerd, containerd-normalized, cri-dockerd]"));
    // CRIO_PIN_RUNTIME chooses when --runtime does not; errors say which.
    let cd = ["-c", "containerd/config.toml", "config", "--json"];
    let v = json(&run_env(&cd, &[("CRIO_PIN_RUNTIME", "containerd")]));
    assert_eq!(v["patterns"][0]["key"], "agent");
    let out = run_env(&["--strict", "config"], &[("CRIO_PIN_RUNTIME", "containerd")]);
    assert!(stderr(&out).contains("--strict cannot be used with CRIO_PIN_RUNTIME=containerd"), "{}", stderr(&out));
    let out = run_env(&["config"], &[("CRIO_PIN_RUNTIME", "podman")]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("CRIO_PIN_RUNTIME=\"podman\" is no runtime"), "{}", stderr(&out));
    // --runtime wins; an empty variable is unset.
    let crio = stdout(&run(&node(&["config"])));
    assert_eq!(stdout(&run_env(&node(&["--runtime", "crio", "config"]), &[("CRIO_PIN_RUNTIME", "containerd")])), crio);
    assert_eq!(stdout(&run_env(&node(&["config"]), &[("CRIO_PIN_RUNTIME", "")])), crio);
}

#[test]
fn an_explicit_crio_runtime_changes_no_byte() {
    for args in [
        node(&["config"]),
        node(&["lint", "--json"]),
        node(&["explain", "--images", "node/images.json", "--check"]),
        node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf", "--json"]),
    ] {
        let before = run(&args);
        let after = run(&[&["--runtime", "crio"][..], &args].concat());
        assert_eq!(code(&before), code(&after), "{args:?}");
        assert_eq!((before.stdout, before.stderr), (after.stdout, after.stderr), "{args:?}");
    }
}

#[test]
fn other_runtimes_json_matches_the_schemas_and_manual_pages() {
    let pages = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", pages.path().to_str().unwrap()])), 0);
    let refused = ["--runtime", "containerd-normalized", "-c", "containerd/refused.toml"];
    let runs: Vec<Vec<&str>> = vec![
        containerd("containerd", &["config"]),
        containerd("containerd-normalized", &["lint"]),
        vec!["--runtime", "containerd", "-c", "containerd/default.toml", "config"],
        [&refused[..], &["config"]].concat(),
        [&refused[..], &["lint"]].concat(),
        [&refused[..], &["explain", "--images", "containerd/images.json", "--check"]].concat(),
        containerd("containerd", &["explain", "--images", "containerd/images.json", "--check"]),
        containerd("containerd-normalized", &["explain", "--images", "containerd/images.json", "--check"]),
        containerd(
            "containerd",
            &["diff", "--images", "containerd/images.json", "--new-patterns", "containerd/new-pins.txt"],
        ),
        cri_dockerd(&["config"]),
        cri_dockerd(&["lint"]),
        cri_dockerd(&["explain", "--images", "cri-dockerd/images.json", "--check"]),
        vec![
            "--runtime",
            "cri-dockerd",
            "--pinned-images",
            "x:1",
            "explain",
            "--images",
            "cri-dockerd/images.json",
            "--check",
        ],
        cri_dockerd(&["diff", "--images", "cri-dockerd/images.json", "--new-patterns", "cri-dockerd/new-pins.txt"]),
    ];
    for args in runs {
        let command = ["config", "lint", "explain", "diff"].into_iter().find(|c| args.contains(c)).unwrap();
        let out = run(&[&args[..], &["--json"]].concat());
        assert!(!out.stdout.is_empty(), "{args:?}: {}", stderr(&out));
        check_json(command, &json(&out), &format!("{args:?}"), pages.path());
    }
}

#[test]
fn manual_pages_describe_the_runtimes() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", dir.path().to_str().unwrap()])), 0);
    let page = |name: &str| std::fs::read_to_string(dir.path().join(format!("{name}.1"))).unwrap();
    let listed = |page: &str, code: &str| page.contains(&format!(".TP\n\\fB{}\\fR\n", code.replace('-', "\\-")));
    let containerd_warnings = ["overridden-key", "unimported-drop-in", "version-dependent", "unpinned-sandbox"];
    for name in ["crio-pin-config", "crio-pin-lint", "crio-pin-diff"] {
        for code in containerd_warnings {
            assert!(listed(&page(name), code), "{name}.1 does not list {code}");
        }
    }
    for code in ["not-normalized", "repository-prefix", "not-familiar", "not-a-reference"] {
        assert!(listed(&page("crio-pin-lint"), code), "crio-pin-lint.1 does not list {code}");
    }
    // not-a-reference makes a containerd-normalized list refused.
    let config = page("crio-pin-config");
    let refused = &config[config.find(".SH \"REFUSED LISTS\"").expect("REFUSED LISTS")..];
    assert!(listed(refused, "not-a-reference"), "{refused}");
    for code in ["not-restarted", "sticky-label", "other-rules", "sandbox-image", "label-selector"] {
        assert!(listed(&page("crio-pin-explain"), code), "crio-pin-explain.1 does not list {code}");
    }
    for name in ["crio-pin", "crio-pin-config", "crio-pin-explain"] {
        let text = page(name);
        assert!(text.contains("\\-\\-runtime") && text.contains("CRIO_PIN_RUNTIME"), "{name}.1: no --runtime");
        assert!(text.contains("containerd\\-normalized") && text.contains("cri\\-dockerd"), "{name}.1");
    }
    assert!(page("crio-pin-lint").contains("under \\-\\-runtime containerd\\-normalized not\\-a\\-reference"));
}

// ---- translate ----

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
    let text = stdout(&out);
    assert!(text.contains("[crio.image]\npinned_images = ["), "{text}");
    // The two images whose pin changes, each explained by its entry: an
    // image ID CRI-O cannot match, an upper-case host CRI-O folds.
    assert!(text.contains("2 differ"), "{text}");
    assert!(text.contains("impossible: an image ID"), "{text}");
    assert!(text.contains("wider: CRI-O ignores case"), "{text}");
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
