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
    // The entry meant for it, without the port, spares nothing the list pins.
    let unneeded: Vec<&str> =
        with_code(&v["findings"], "unneeded-entry").iter().map(|f| f["pattern"].as_str().unwrap()).collect();
    assert!(unneeded.contains(&"registry.example/platform/*"), "{unneeded:?}");
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
