//! The runtimes (`--runtime`): options of another runtime, and CRI-O as the default.

mod containerd;
mod cri_dockerd;

use crate::util::*;

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
        (vec!["--runtime", "kubelet", "--pinned-images", "x", "config"], "read from its KubeletConfiguration"),
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
    assert!(stderr(&out).contains("[possible values: crio, containerd, containerd-normalized, cri-dockerd, kubelet]"));
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
