//! Pins by label: `--images` reading the runtimes' own listings with their
//! labels (a real `ctr -n k8s.io images ls`, a `docker image inspect`),
//! merged with crictl's by image ID; `explain` naming the label that pins,
//! and `--check` and `check` not counting those pins as disagreements.

use crate::util::*;

/// containerd's list that pins none of the fixture's images, and its args.
fn containerd_labels(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = vec!["--runtime", "containerd", "-c", "labels/config.toml"];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

const CRICTL: &str = "labels/crictl-containerd.json";
const CTR: &str = "labels/ctr-images.txt";

#[test]
fn explain_names_the_label_that_pins_when_no_pattern_does() {
    let v = json(&run(&containerd_labels(&["explain", "--images", CTR, "--json"])));
    let pause = image_named(&v, "docker.io/rancher/mirrored-pause:3.6");
    assert_eq!(pause["pinned"], true, "{pause}");
    assert_eq!(pause["pattern"], Value::Null);
    assert_eq!(pause["source_kind"], "label");
    assert_eq!(pause["pinned_by_label"]["label"], "io.cri-containerd.pinned=pinned");
    assert_eq!(pause["pinned_by_label"]["set_by"], "k3s import");
    // containerd's own label, kept after the value left the list.
    let sticky = image_named(&v, "quay.io/team/sticky:2");
    assert_eq!(sticky["pinned_by_label"]["set_by"], "containerd");
    assert!(sticky["pinned_by_label"]["why"].as_str().unwrap().contains("never removes the label"), "{sticky}");
    // A near-miss key pins nothing.
    let typo = image_named(&v, "quay.io/team/typo:1");
    assert_eq!(typo["pinned"], false, "{typo}");
    assert!(typo.get("pinned_by_label").is_none());
    // The table says it, at 80 columns as at 100.
    for columns in ["80", "100"] {
        let out = run_env(&containerd_labels(&["explain", "--images", CTR]), &[("COLUMNS", columns)]);
        let text = stdout(&out);
        assert!(text.lines().all(|l| l.chars().count() <= columns.parse().unwrap()), "{text}");
        assert!(text.contains("PINNED BY LABEL: docker.io/rancher/mirrored-pause:3.6: no pattern pins it"), "{text}");
        assert!(text.contains("4 image(s), 2 pinned"), "{text}");
    }
}

#[test]
fn a_label_pin_is_no_disagreement_with_the_runtime() {
    // crictl's listing alone: the runtime pins two images the list does not.
    let out = run(&containerd_labels(&["explain", "--images", CRICTL, "--check", "--json"]));
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(json(&out)["disagreements"], 2);
    // With ctr's labels beside it, merged by image ID: no disagreement.
    for order in [[CRICTL, CTR], [CTR, CRICTL]] {
        let out =
            run(&containerd_labels(&["explain", "--images", order[0], "--images", order[1], "--check", "--json"]));
        assert_eq!(code(&out), 0, "{order:?}: {}{}", stdout(&out), stderr(&out));
        let v = json(&out);
        assert_eq!(v["disagreements"], 0);
        assert_eq!(v["images"].as_array().unwrap().len(), 4, "merged by ID: {v}");
        let pause = image_named(&v, "docker.io/rancher/mirrored-pause:3.6");
        assert_eq!((&pause["runtime_pinned"], &pause["check"]), (&Value::Bool(true), &Value::from("agree")));
    }
    // check reuses explain's comparison.
    let out = run(&containerd_labels(&["check", "--images", CRICTL, "--images", CTR, "--json"]));
    let v = json(&out);
    assert_eq!(v["summary"]["disagreements"], 0, "{v}");
    assert_eq!(v["images_from"]["listing"], format!("{CRICTL}, {CTR}"));
}

const INSPECT: &str = "labels/docker-inspect.json";

#[test]
fn cri_dockerd_pins_by_the_labels_its_selectors_select() {
    let v = json(&run(&["--runtime", "cri-dockerd", "explain", "--images", INSPECT, "--json"]));
    let agent = image_named(&v, "registry.example/team/agent:1.4");
    assert_eq!(agent["id"], "sha256:4f4fb700ef54461cfa02571ae0db9a0dc1e0cdb5577484a6d75e68dc38e8acc1");
    // No --pinned-image-labels: the label selects nothing.
    assert_eq!(agent["pinned"], false, "{agent}");
    // KEY=VALUE and KEY alone select it; another value does not.
    for (selector, pinned) in [("pinned=true", true), ("pinned", true), ("pinned=false", false), ("a,pinned", true)] {
        let args = ["--runtime", "cri-dockerd", "--pinned-image-labels", selector, "explain", "--images", INSPECT];
        let v = json(&run(&[&args[..], &["--images", "labels/crictl-cri-dockerd.json", "--check", "--json"]].concat()));
        let agent = image_named(&v, "registry.example/team/agent:1.4");
        assert_eq!(agent["pinned"], pinned, "{selector}: {agent}");
        if pinned {
            assert_eq!(agent["pinned_by_label"]["label"], "pinned=true");
            assert_eq!(agent["pinned_by_label"]["set_by"], "image's author");
            assert_eq!(v["disagreements"], 0, "{selector}: {v}");
        } else {
            assert_eq!(v["disagreements"], 1, "{selector}: {v}");
            assert!(v["causes"].as_array().unwrap().iter().any(|c| c["code"] == "label-selector"), "{v}");
        }
    }
}

#[test]
fn lint_warns_on_self_pinning_selectors_and_near_miss_keys() {
    let out = run(&[
        "--runtime",
        "cri-dockerd",
        "--pinned-images",
        "nginx:1.25",
        "--pinned-image-labels",
        "pinned=true,io.cri.containerd.pinned",
        "lint",
        "--json",
    ]);
    assert_eq!(code(&out), 0, "warnings only: {}", stderr(&out));
    let v = json(&out);
    let warnings: Vec<(&str, &str)> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["code"].as_str().unwrap(), w["message"].as_str().unwrap()))
        .collect();
    assert_eq!(warnings.iter().filter(|(c, _)| *c == "self-pinning-selector").count(), 2, "{warnings:?}");
    let near: Vec<_> = warnings.iter().filter(|(c, _)| *c == "near-miss-label").collect();
    assert_eq!(near.len(), 1, "{warnings:?}");
    assert!(near[0].1.contains("io.cri-containerd.pinned"), "{near:?}");
    // In a listing: the label no runtime honours, with its image.
    for command in ["lint", "check"] {
        let out = run(&containerd_labels(&[command, "--images", CTR, "--images", CRICTL, "--json"]));
        let v = json(&out);
        let warnings = if command == "lint" { &v["warnings"] } else { &v["lint"]["warnings"] };
        let near = with_code(warnings, "near-miss-label");
        assert_eq!(near.len(), 1, "{command}: {v}");
        let message = near[0]["message"].as_str().unwrap();
        assert!(message.contains("\"io.cri.containerd.pinned\" of 1 image(s) (quay.io/team/typo:1)"), "{message}");
    }
    // Only cri-dockerd has label selectors.
    let out = run(&["--runtime", "containerd", "--pinned-image-labels", "a=b", "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--pinned-image-labels is cri-dockerd's flag"), "{}", stderr(&out));
}

#[test]
fn a_runtimes_own_listing_is_refused_under_another_runtime() {
    for (runtime, file, says) in [
        ("crio", CTR, "`ctr -n k8s.io images ls`"),
        ("cri-dockerd", CTR, "`ctr -n k8s.io images ls`"),
        ("containerd", "labels/docker-inspect.json", "`docker image inspect`"),
    ] {
        let out = run(&["--runtime", runtime, "explain", "--images", file]);
        assert_eq!(code(&out), 2, "{runtime} {file}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("{file}: this is the output of {says}")), "{err}");
        assert!(err.contains("crictl images -o json"), "{err}");
    }
}

#[test]
fn a_listing_of_no_known_format_names_the_file_and_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "docker-ls.txt",
            "REPOSITORY   TAG   IMAGE ID   CREATED   SIZE\nnginx  1.25  a1f3e3b2c0d6  1 day ago  190MB\n",
            ":1: this looks like `docker images`",
        ),
        (
            "short-row.txt",
            "REF TYPE DIGEST SIZE PLATFORMS LABELS\ndocker.io/library/a:1 application/x\n",
            ":2: 2 word(s)",
        ),
        (
            "bad-digest.txt",
            "REF TYPE DIGEST SIZE PLATFORMS LABELS\ndocker.io/library/a:1 t nodigest 1.6 KiB - -\n",
            ":2: its DIGEST",
        ),
        ("docker-bad.json", "[{\"Id\": 1}]", ":1:"),
        ("other.json", "{\"items\": []}", ":1:"),
    ];
    for (name, contents, says) in cases {
        let path = write_file(dir.path(), name, contents);
        let runtime = if name.ends_with(".json") { "cri-dockerd" } else { "containerd" };
        let out = run(&["--runtime", runtime, "explain", "--images", &path]);
        assert_eq!(code(&out), 2, "{name}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("{path}{says}")), "{name}: {err}");
        if name.ends_with(".json") {
            for format in ["crictl images -o json", "ctr -n k8s.io images ls", "docker image inspect", "one a line"] {
                assert!(err.contains(format), "{name} names {format}: {err}");
            }
        }
    }
}

#[test]
fn translate_labels_a_label_selector_impossible() {
    for to in ["crio", "containerd", "cri-dockerd"] {
        let out = run(&cri_dockerd(&["--pinned-image-labels", "pinned=true", "translate", "--to", to, "--json"]));
        assert_eq!(code(&out), 1, "{to}: {}", stderr(&out));
        let v = json(&out);
        let entries = v["entries"].as_array().unwrap();
        let selector = entries.iter().find(|e| e["from"] == "pinned=true").unwrap_or_else(|| panic!("{v}"));
        assert_eq!(selector["fidelity"], "impossible", "{to}: {selector}");
        assert!(selector["why"].as_str().unwrap().starts_with("a label selector"), "{selector}");
        assert!(!v["config"].as_str().unwrap().contains("pinned=true"), "{to}: {v}");
    }
}

#[test]
fn listings_without_ids_merge_by_a_name_both_list() {
    // ctr's default namespace keeps no record named by the image ID.
    let dir = tempfile::tempdir().unwrap();
    let ctr = std::fs::read_to_string(data().join(CTR)).unwrap();
    let without_ids: String = ctr.lines().filter(|l| !l.starts_with("sha256:")).map(|l| format!("{l}\n")).collect();
    let path = write_file(dir.path(), "ctr.txt", without_ids);
    let v = json(&run(&containerd_labels(&["explain", "--images", CRICTL, "--images", &path, "--check", "--json"])));
    assert_eq!(v["images"].as_array().unwrap().len(), 4, "{v}");
    assert_eq!(v["disagreements"], 0, "{v}");
    // Two crictl listings of one node are one set of images.
    let v = json(&run(&containerd_labels(&["explain", "--images", CRICTL, "--images", CRICTL, "--json"])));
    assert_eq!(v["images"].as_array().unwrap().len(), 4, "{v}");
}

const NEW_PATTERNS: &str = "labels/new-patterns.txt";

/// An image `diff` finds still pinned by label: (first name, pattern_pin, set_by).
type Kept = (String, String, String);

/// (exit status, gained, lost, still pinned by label) of a `diff --json`.
fn diff_json(args: &[&str]) -> (i32, Vec<String>, Vec<String>, Vec<Kept>) {
    let out = run(&[args, &["--json"]].concat());
    let v = json(&out);
    let names = |key: &str| -> Vec<String> {
        v[key].as_array().unwrap().iter().map(|c| c["names"][0].as_str().unwrap().to_string()).collect()
    };
    let kept = v["still_pinned_by_label"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|k| {
            let s = |v: &Value| v.as_str().unwrap().to_string();
            (s(&k["names"][0]), s(&k["pattern_pin"]), s(&k["pinned_by_label"]["set_by"]))
        })
        .collect();
    (code(&out), names("gained"), names("lost"), kept)
}

#[test]
fn diff_counts_a_pin_a_label_keeps_as_no_change_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write_file(dir.path(), "empty.txt", "");
    let kept = |pin: &str| {
        vec![
            ("docker.io/rancher/mirrored-pause:3.6".to_string(), pin.to_string(), "k3s import".to_string()),
            ("quay.io/team/sticky:2".to_string(), pin.to_string(), "containerd".to_string()),
        ]
    };
    // Removing every pattern: only the images no label pins lose their pin.
    let from_patterns = ["--runtime", "containerd", "--patterns", NEW_PATTERNS, "diff", "--images", CTR];
    let removal = [&from_patterns[..], &["--new-patterns", &empty]].concat();
    let (status, gained, lost, still) = diff_json(&removal);
    assert_eq!((status, gained.len()), (1, 0));
    assert_eq!(lost, ["quay.io/team/typo:1", "registry.example/team/app:v1"], "a near-miss key keeps nothing");
    assert_eq!(still, kept("lost"));
    // Removing only the patterns of labelled images loses no pin: status 0.
    let labelled_only = write_file(dir.path(), "two.txt", "quay.io/team/typo:1\nregistry.example/team/app:v1\n");
    let (status, gained, lost, still) = diff_json(&[&from_patterns[..], &["--new-patterns", &labelled_only]].concat());
    assert_eq!((status, gained.len(), lost.len()), (0, 0, 0));
    assert_eq!(still, kept("lost"));
    // Adding them: a pattern for an image a label pins already gains nothing.
    let (status, gained, lost, still) =
        diff_json(&containerd_labels(&["diff", "--images", CTR, "--new-patterns", NEW_PATTERNS]));
    assert_eq!((status, lost.len()), (0, 0));
    assert_eq!(gained, ["quay.io/team/typo:1", "registry.example/team/app:v1"]);
    assert_eq!(still, kept("gained"));
    // The text says it, loudly, with the way to unpin; -q lists the real changes only.
    let out = run(&removal);
    let text = stdout(&out);
    assert!(text.contains("2 image(s) lose their pin"), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "STILL PINNED BY LABEL: quay.io/team/sticky:2: pattern #0 \"quay.io/team/sticky:2\" no longer pins it, \
             which changes nothing for it: its label \"io.cri-containerd.pinned=pinned\" pins it whatever the list \
             says"
        ),
        "{text}"
    );
    assert!(flat.contains("to unpin it, remove the label"), "{text}");
    let out = run(&containerd_labels(&["diff", "--images", CTR, "--new-patterns", NEW_PATTERNS]));
    let flat = stdout(&out).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("ALREADY PINNED BY LABEL: docker.io/rancher/mirrored-pause:3.6: pattern #1"), "{flat}");
    let out = run(&[&removal[..], &["-q"]].concat());
    assert_eq!((code(&out), stdout(&out)), (1, "-quay.io/team/typo:1\n-registry.example/team/app:v1\n".into()));
}

#[test]
fn diff_keeps_cri_dockerds_label_selectors_with_a_new_list() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write_file(dir.path(), "empty.txt", "");
    let args = |selectors: &[&'static str]| {
        let mut v = vec!["--runtime", "cri-dockerd", "--pinned-images", "registry.example/team/agent:1.4"];
        v.extend(selectors);
        v.extend(["diff", "--images", INSPECT, "--new-patterns", &empty]);
        diff_json(&v)
    };
    // --pinned-image-labels is a flag beside the list: the new list keeps it.
    let (status, gained, lost, still) = args(&["--pinned-image-labels", "pinned=true"]);
    assert_eq!((status, gained.len(), lost.len()), (0, 0, 0));
    assert_eq!(still, [("registry.example/team/agent:1.4".into(), "lost".into(), "image's author".into())]);
    let (status, _, lost, still) = args(&[]);
    assert_eq!((status, lost, still.len()), (1, vec!["registry.example/team/agent:1.4".to_string()], 0));
}

#[test]
fn a_comma_that_decides_a_pin_label_is_a_warning_naming_the_row() {
    // The sample's rows as containerd and k3s write them: no doubt. The
    // same rows with a label before the pin label whose value could hold
    // it: read as pinned still, and said at each row.
    let sample = std::fs::read_to_string(data().join(CTR)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let doubtful = write_file(
        dir.path(),
        "ctr.txt",
        sample.replace(
            "io.cri-containerd.image=managed,io.cri-containerd.pinned=pinned",
            "note=a,io.cri-containerd.pinned=pinned",
        ),
    );
    for command in ["lint", "check"] {
        let at = |v: &Value| if command == "lint" { v["warnings"].clone() } else { v["lint"]["warnings"].clone() };
        let v = json(&run(&containerd_labels(&[command, "--images", CTR, "--images", CRICTL, "--json"])));
        assert!(with_code(&at(&v), "ambiguous-label").is_empty(), "{command}: {v}");
        let v = json(&run(&containerd_labels(&[command, "--images", &doubtful, "--images", CRICTL, "--json"])));
        let warnings = at(&v);
        let doubts = with_code(&warnings, "ambiguous-label");
        assert_eq!(doubts.len(), 2, "{command}: {v}");
        assert_eq!((doubts[0]["file"].as_str(), doubts[0]["line"].as_u64()), (Some(doubtful.as_str()), Some(2)));
        let message = doubts[0]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{doubtful}:2: docker.io/rancher/mirrored-pause:3.6: the label io.cri-containerd.pinned=pinned follows \"note=a\"")),
            "{message}"
        );
    }
    // Read as pinned: the pin is not dropped on a guess.
    let v = json(&run(&containerd_labels(&["explain", "--images", &doubtful, "--json"])));
    let pause = image_named(&v, "docker.io/rancher/mirrored-pause:3.6");
    assert_eq!(pause["pinned_by_label"]["label"], "io.cri-containerd.pinned=pinned", "{pause}");
}
