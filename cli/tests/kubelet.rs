//! The kubelet's credential verification beside the runtime's list: its
//! configuration read as the kubelet reads it (YAML or JSON, drop-ins,
//! the feature gate), refused where the kubelet refuses to start, and
//! `lint`/`explain --kubelet-config` on the sample node.

use crate::util::*;

/// The sample node of `make demo` (examples/), from tests/data.
const SAMPLE: [&str; 4] =
    ["--config", "../../../examples/crio/crio.conf", "--config-dir", "../../../examples/crio/crio.conf.d"];
const SAMPLE_KUBELET: &str = "../../../examples/kubelet/config.yaml";

fn sample<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    SAMPLE.iter().copied().chain(rest.iter().copied()).collect()
}

#[test]
fn lint_finds_the_planted_pin_the_kubelet_pulls_again() {
    let out = run(&sample(&["--json", "lint", "--kubelet-config", SAMPLE_KUBELET]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let verified = with_code(&v["findings"], "verified-pin");
    let planted: Vec<&str> = verified.iter().map(|f| f["pattern"].as_str().unwrap()).collect();
    assert_eq!(planted, ["registry.example:5000/platform/*"], "{v:#}");
    assert_eq!(verified[0]["suggestion"], "registry.example:5000/platform/*");
    assert!(verified[0]["message"].as_str().unwrap().contains("NeverVerifyAllowlistedImages"));
    // The entry meant for it, without the port, covers nothing the list
    // pins; nor does the entry for the OKD digests, which 99-local.conf's
    // list replaced.
    let unpinned: Vec<&str> =
        with_code(&v["findings"], "allowlisted-unpinned").iter().map(|f| f["pattern"].as_str().unwrap()).collect();
    assert_eq!(unpinned, ["registry.example/platform/*", "quay.io/okd/scos-content"], "{v:#}");
}

#[test]
fn allowlisted_unpinned_is_judged_over_names_by_both_rule_sets() {
    let dir = tempfile::tempdir().unwrap();
    let kubelet = write_file(
        dir.path(),
        "kubelet.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
         preloadedImagesVerificationAllowlist:\n\
         - docker.io/library/nginx\n- quay.io/coreos/*\n- registry.k8s.io/*\n- docker.io/library/redis\n\
         - ghcr.io/team/app\n",
    );
    // CRI-O: "nginx:1.25" is short (it pins nothing CRI-O stores) but
    // "docker.io/library/nginx:1.25" pins a tag of the repository; the
    // keyword pins quay.io/coreos/etcd, which no entry's text contains;
    // the unanchored glob pins registry.k8s.io/kube-proxy; nothing pins a
    // redis ("redis:7" is short too) or ghcr.io/team/app ("ghcr.io/team"
    // has no tag).
    let conf = write_file(
        dir.path(),
        "crio.conf",
        "[crio.image]\npinned_images = [\"docker.io/library/nginx:1.25\", \"*etcd*\", \"registry.k8s.io/kube-*\", \
         \"redis:7\", \"ghcr.io/team\"]\n",
    );
    let out = run(&["-c", &conf, "-d", "none", "--json", "lint", "--kubelet-config", &kubelet]);
    let v = json(&out);
    let unpinned: Vec<&str> =
        with_code(&v["findings"], "allowlisted-unpinned").iter().map(|f| f["pattern"].as_str().unwrap()).collect();
    assert_eq!(unpinned, ["docker.io/library/redis", "ghcr.io/team/app"], "{v:#}");
    let finding = &with_code(&v["findings"], "allowlisted-unpinned")[0];
    assert_eq!(finding["severity"], "warning");
    assert!(finding["message"].as_str().unwrap().contains("garbage collector may delete them"), "{finding}");
}

#[test]
fn explain_says_which_images_the_kubelet_verifies() {
    let out = run(&sample(&[
        "--json",
        "explain",
        "registry.k8s.io/pause:3.10",
        "registry.example:5000/platform/ingress-gateway:2.4.1",
        "--kubelet-config",
        SAMPLE_KUBELET,
    ]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let verdicts: Vec<(&str, bool)> = v["kubelet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["image"].as_str().unwrap(), k["verified"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [("registry.k8s.io/pause:3.10", false), ("registry.example:5000/platform/ingress-gateway:2.4.1", true)]
    );
}

#[test]
fn explain_shows_the_kubelet_as_a_table_and_leaves_the_sandbox_image_out() {
    let dir = tempfile::tempdir().unwrap();
    // Outside the allowlist every image a pod names is pulled again, but
    // the pause image is the runtime's own (as lint exempts its entry).
    let kubelet = write_file(
        dir.path(),
        "kubelet.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
         preloadedImagesVerificationAllowlist:\n- quay.io/team/*\n",
    );
    let conf = write_file(
        dir.path(),
        "crio.conf",
        "[crio.image]\npause_image = \"registry.k8s.io/pause:3.10\"\npinned_images = [\"quay.io/team/*\", \"ghcr.io/x/*\"]\n",
    );
    let images = ["registry.k8s.io/pause:3.10", "quay.io/team/app:1", "ghcr.io/x/tool:2", "docker.io/library/nginx:1"];
    let args = |json: bool| {
        let mut a = vec!["-c", conf.as_str(), "-d", "none"];
        if json {
            a.push("--json");
        }
        a.push("explain");
        a.extend(images);
        a.extend(["--kubelet-config", kubelet.as_str()]);
        a
    };
    let out = run(&args(true));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let verdicts: Vec<(&str, bool, bool)> = v["kubelet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["image"].as_str().unwrap(), k["verified"].as_bool().unwrap(), k["sandbox"] == true))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("registry.k8s.io/pause:3.10", false, true),
            ("quay.io/team/app:1", false, false),
            ("ghcr.io/x/tool:2", true, false),
            ("docker.io/library/nginx:1", true, false)
        ]
    );
    let text = stdout(&run(&args(false)));
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("pulls 2 of 3 image(s) again"), "{text}");
    assert!(words.contains("sandbox image not counted"), "{text}");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.starts_with("KUBELET"))
        .take(5)
        .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rows[0][..4], ["KUBELET", "PINNED", "IMAGE", "ALLOWLISTED BY"], "{text}");
    assert_eq!(rows[1][..3], ["sandbox", "yes", "registry.k8s.io/pause:3.10"], "{text}");
    assert_eq!(rows[2][..4], ["as it is", "yes", "quay.io/team/app:1", "\"quay.io/team/*\""], "{text}");
    assert_eq!(rows[3][..4], ["pulls again", "yes", "ghcr.io/x/tool:2", "-"], "{text}");
    assert_eq!(rows[4][..4], ["pulls again", "no", "docker.io/library/nginx:1", "-"], "{text}");
}

#[test]
fn the_sample_nodes_pull_record_asks_a_pod_for_its_secret() {
    let out = run(&sample(&[
        "--json",
        "explain",
        "--images",
        "../../../examples/kubelet/platform-images.json",
        "--kubelet-config",
        SAMPLE_KUBELET,
        "--kubelet-root-dir",
        "../../../examples/kubelet/root",
    ]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let kubelet = v["kubelet"].as_array().unwrap();
    assert_eq!(kubelet[0]["image"], "registry.k8s.io/pause:3.10");
    assert_eq!(kubelet[0]["sandbox"], true);
    let gateway = &kubelet[1];
    assert_eq!(gateway["image"], "registry.example:5000/platform/ingress-gateway:2.4.1");
    assert_eq!(gateway["verified"], true);
    assert!(gateway["pull_record"].as_str().unwrap().contains("image_manager/pulled/sha256-"), "{gateway}");
    assert!(gateway["why"].as_str().unwrap().ends_with("unless it has secret platform/registry-creds"), "{gateway}");
}

#[test]
fn drop_ins_replace_the_list_and_merge_the_gates() {
    let dir = tempfile::tempdir().unwrap();
    let main = write_file(
        dir.path(),
        "config.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
         preloadedImagesVerificationAllowlist: [quay.io/a/*]\n",
    );
    let conf_d = dir.path().join("conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    // JSON is YAML; a file without .conf is not read.
    write_file(
        &conf_d,
        "20-list.conf",
        r#"{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
            "preloadedImagesVerificationAllowlist": ["quay.io/b/*", "docker.io/library/nginx"]}"#,
    );
    write_file(&conf_d, "30-ignored.yaml", "not: [read");
    let out =
        run(&["--runtime", "kubelet", "--config", &main, "--config-dir", conf_d.to_str().unwrap(), "--json", "config"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let patterns: Vec<String> =
        json(&out)["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap().to_owned()).collect();
    assert_eq!(patterns, ["quay.io/b/*", "docker.io/library/nginx"]);
}

#[test]
fn what_the_kubelet_refuses_is_said_at_its_line_with_what_to_write() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_file(
        dir.path(),
        "config.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
         preloadedImagesVerificationAllowlist:\n- nginx\n- quay.io/a:1\n- quay.io/*/x\n- /*\n",
    );
    let out = run(&["--runtime", "kubelet", "--config", &config, "config"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    for (line, says) in [
        (5, "write \"docker.io/library/nginx\""),
        (6, "neither tag nor digest is accepted"),
        (7, "only patterns ending with '/*' are allowed"),
        (8, "at least registry hostname is required"),
    ] {
        assert!(err.contains(&format!("config.yaml:{line}: ")) && err.contains(says), "{line} {says}: {err}");
    }
    // With the gate off the kubelet takes neither setting.
    let off = write_file(
        dir.path(),
        "off.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         featureGates:\n  KubeletEnsureSecretPulledImages: false\nimagePullCredentialsVerificationPolicy: AlwaysVerify\n",
    );
    let out = run(&["--runtime", "kubelet", "--config", &off, "config"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("off.yaml:5: imagePullCredentialsVerificationPolicy must not be set"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn policy_alone_decides_outside_the_allowlist_policy() {
    let dir = tempfile::tempdir().unwrap();
    let always = write_file(
        dir.path(),
        "always.json",
        r#"{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
            "imagePullCredentialsVerificationPolicy": "AlwaysVerify"}"#,
    );
    let default = write_file(
        dir.path(),
        "default.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n",
    );
    let lint = |config: &str| {
        let out = run(&sample(&["--json", "lint", "--kubelet-config", config]));
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        with_code(&json(&out)["findings"], "verified-pin").len()
    };
    // The one pattern that pins an image: "*node-exporter" and
    // "nginx:1.25.3" pin nothing CRI-O stores, and the pause image is the
    // runtime's own, no pod's.
    assert_eq!(lint(&always), 1);
    assert_eq!(lint(&default), 0);
}

#[test]
fn a_list_the_library_refuses_is_said_in_the_kubelets_terms() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = write_file(dir.path(), "p.txt", "quay.io/a b\n");
    let out = run(&["--runtime", "kubelet", "--patterns", &patterns, "config"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("failed to parse as an image name") && err.contains("the kubelet does not start"), "{err}");
    // Not containerd's advice: the kubelet's list has no keys.
    assert!(!err.contains("remove the key"), "{err}");
}

/// A list of every kind of entry, for `lint --kubelet-config`'s shortcut:
/// digests, tags, short names, bare repositories, upper case, globs,
/// keywords, an image ID, blanks (none a runtime refuses: translate would
/// stop; the unit test of `translated_patterns` has those).
fn every_kind_of_entry() -> Vec<String> {
    let mut list: Vec<String> = (0..8).map(generate::openshift_reference).collect();
    list.extend(
        [
            "docker.io/library/nginx:1.25",
            "nginx:1.25",
            "nginx",
            "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "Quay.io/Team/App:V1",
            "quay.io/team/app:V1",
            "QUAY.IO/team/app",
            "quay.io/team/*",
            "quay.io/team*",
            "quay.io/*",
            "registry.example:5000/platform/*",
            "*etcd*",
            "*pause",
            "**",
            "sha256:4f4fb700ef54461cfa02571ae0db9a0dc1e0cdb5577484a6d75e68dc38e8acc1",
            "registry.k8s.io/pause:3.10",
            " quay.io/spaced:1 ",
        ]
        .map(String::from),
    );
    list
}

#[test]
fn lint_kubelet_config_writes_what_translate_writes_for_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    // An empty allowlist: every pattern that pins something gets a finding.
    let kubelet = write_file(
        dir.path(),
        "kubelet.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n\
         imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n\
         preloadedImagesVerificationAllowlist: []\n",
    );
    let list = every_kind_of_entry();
    let patterns = write_file(dir.path(), "patterns.txt", list.join("\n") + "\n");
    // CRI-O with its pause image, which lint leaves out (no pod's image).
    let quoted: Vec<String> = list.iter().map(|p| format!("{p:?}")).collect();
    let conf = write_file(
        dir.path(),
        "crio.conf",
        format!("[crio.image]\npause_image = \"registry.k8s.io/pause:3.9\"\npinned_images = [{}]\n", quoted.join(", ")),
    );
    let sources: [Vec<&str>; 3] = [
        vec!["-c", &conf, "-d", "none"],
        vec!["--runtime", "containerd", "--patterns", &patterns],
        vec!["--runtime", "cri-dockerd", "--patterns", &patterns],
    ];
    for source in sources {
        let translated = json(&run(&[&source[..], &["translate", "--to", "kubelet", "--json"]].concat()));
        let out = run(&[&source[..], &["--json", "lint", "--kubelet-config", &kubelet]].concat());
        assert!(!out.stdout.is_empty(), "{source:?}: {}", stderr(&out));
        let linted = json(&out);
        let findings = with_code(&linted["findings"], "verified-pin");
        let mut compared = 0;
        for entry in translated["entries"].as_array().unwrap() {
            let found: Vec<&&Value> = findings.iter().filter(|f| f["index"] == entry["index"]).collect();
            let (fidelity, why) = (entry["fidelity"].as_str().unwrap(), entry["why"].as_str().unwrap_or_default());
            match fidelity {
                _ if entry["source_kind"] == "pause_image" => assert!(found.is_empty(), "{source:?}: {entry}"),
                "dropped" => assert!(found.is_empty(), "{source:?}: {entry} {found:?}"),
                "impossible" => {
                    assert_eq!(found.len(), 1, "{source:?}: {entry}");
                    assert_eq!(found[0]["suggestion"], Value::Null);
                    assert!(found[0]["message"].as_str().unwrap().ends_with(why), "{source:?}: {entry} {found:?}");
                }
                _ => {
                    let written: Vec<&str> =
                        entry["to"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
                    assert_eq!(found.len(), 1, "{source:?}: {entry}");
                    assert_eq!(found[0]["suggestion"], written.join(" "), "{source:?}: {entry}");
                }
            }
            compared += 1;
        }
        assert!(compared >= list.len(), "{source:?}: {translated}");
    }
}

/// The kubelet's pull record of the image the CRI calls `image_ref`, as
/// kubernetes' pullmanager writes it: `image_manager/pulled/`, the file
/// named by the SHA-256 of the reference.
fn write_pulled_record(root: &Path, image_ref: &str, contents: &str) -> String {
    use sha2::{Digest, Sha256};
    let pulled = root.join("image_manager").join("pulled");
    std::fs::create_dir_all(&pulled).unwrap();
    write_file(&pulled, &format!("sha256-{:x}", Sha256::digest(image_ref.as_bytes())), contents)
}

fn pulled_record(image_ref: &str, credential_mapping: &str) -> String {
    format!(
        r#"{{"kind":"ImagePulledRecord","apiVersion":"kubelet.config.k8s.io/v1alpha1","lastUpdatedTime":"2026-10-21T12:26:40Z","imageRef":"{image_ref}","credentialMapping":{credential_mapping}}}"#
    )
}

#[test]
fn pull_records_say_which_pins_no_longer_count_as_preloaded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kubelet");
    // The default policy, NeverVerifyPreloadedImages: an image without a
    // record is preloaded; one with a record was pulled by the kubelet.
    let kubelet = write_file(
        dir.path(),
        "kubelet.yaml",
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n",
    );
    let conf = write_file(dir.path(), "crio.conf", "[crio.image]\npinned_images = [\"quay.io/team/*\"]\n");
    let id = |n: u32| format!("{n:064x}");
    let image = |n: u32, name: &str| {
        format!(r#"{{"id":"{}","repoTags":["quay.io/team/{name}:1"],"repoDigests":[],"pinned":true}}"#, id(n))
    };
    let listing = write_file(
        dir.path(),
        "images.json",
        format!(
            r#"{{"images":[{},{},{},{},{}]}}"#,
            image(1, "secret"),
            image(2, "open"),
            image(3, "broken"),
            image(4, "preloaded"),
            image(5, "other-name")
        ),
    );
    // One pod pulled it with a secret: the others pull it again.
    let secret = write_pulled_record(
        &root,
        &id(1),
        &pulled_record(
            &id(1),
            r#"{"quay.io/team/secret":{"kubernetesSecrets":[{"uid":"u1","namespace":"default","name":"pull-secret","credentialHash":"h"}]}}"#,
        ),
    );
    // Pulled without credentials needed: every pod uses it.
    write_pulled_record(&root, &id(2), &pulled_record(&id(2), r#"{"quay.io/team/open":{"nodePodsAccessible":true}}"#));
    // A field the kubelet's strict decoder refuses: it pulls, and so do we say.
    let broken = write_pulled_record(
        &root,
        &id(3),
        r#"{"kind":"ImagePulledRecord","apiVersion":"kubelet.config.k8s.io/v1alpha1","imageRef":"x","extra":1}"#,
    );
    // Recorded for another name than the pod's: no credentials for it.
    write_pulled_record(
        &root,
        &id(5),
        &pulled_record(&id(5), r#"{"quay.io/team/renamed":{"nodePodsAccessible":true}}"#),
    );
    // A file of another name (a temporary one) is not the image's record.
    write_file(&root.join("image_manager/pulled"), "sha256-0.tmp", "{");
    let root_dir = root.to_str().unwrap();
    let args = ["-c", &conf, "-d", "none", "--json", "check", "--images", &listing, "--kubelet-config", &kubelet];
    let out = run(&[&args[..], &["--kubelet-root-dir", root_dir]].concat());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["summary"]["kubelet_recorded_pins"], 3, "{v:#}");
    assert_eq!(v["summary"]["kubelet_verified_pinned"], 3, "{v:#}");
    let verdicts: Vec<(&str, bool, &str, &str)> = v["explain"]["kubelet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let (image, verified) = (k["image"].as_str().unwrap(), k["verified"].as_bool().unwrap());
            (image, verified, k["pull_record"].as_str().unwrap_or_default(), k["why"].as_str().unwrap())
        })
        .collect();
    let (_, verified, file, why) = verdicts[0];
    assert!(verified && file == secret && why.contains("unless it has secret default/pull-secret"), "{verdicts:?}");
    assert!(!verdicts[1].1 && verdicts[1].3.contains("every pod uses it as it is"), "{verdicts:?}");
    let (_, verified, file, why) = verdicts[2];
    assert!(verified && file == broken && why.contains("unknown field `extra`"), "{verdicts:?}");
    assert!(!verdicts[3].1 && verdicts[3].2.is_empty(), "{verdicts:?}");
    assert!(verdicts[4].1 && verdicts[4].3.contains("no credentials recorded for that name"), "{verdicts:?}");
    // Without the records, every pin is preloaded.
    let without = json(&run(&args));
    assert_eq!(without["summary"]["kubelet_verified_pinned"], 0);
    assert!(without["summary"].get("kubelet_recorded_pins").is_none());
    // A root directory without records is an error naming what to give.
    let out = run(&[&args[..], &["--kubelet-root-dir", dir.path().to_str().unwrap()]].concat());
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("image_manager/pulled") && stderr(&out).contains("--root-dir"), "{}", stderr(&out));
}
