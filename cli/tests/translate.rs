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
