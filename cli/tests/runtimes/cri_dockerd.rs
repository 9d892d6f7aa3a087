//! cri-dockerd (`--runtime cri-dockerd`): its `--pinned-images` values, lint, explain and diff.

use crate::util::*;

#[test]
fn cri_dockerd_lint_finds_prefixes_and_names_docker_never_reports() {
    golden("lint-cri-dockerd", &cri_dockerd(&["lint"]), 0);
    let v = json(&run(&cri_dockerd(&["lint", "--json"])));
    let want =
        [("repository-prefix", Some("nginx")), ("not-familiar", Some("redis:7.2.3-alpine")), ("literal-star", None)];
    let want: Vec<(String, Option<String>)> =
        want.iter().map(|(c, s)| (c.to_string(), s.map(str::to_string))).collect();
    assert_eq!(findings(&v), want);
    // --pinned-images: each value a comma-separated list, as cri-dockerd's
    // pflag StringSlice reads it.
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
    assert_eq!(patterns, [("nginx:1.25.3", "flag"), ("redis:7", "flag"), ("*", "flag")]);
    let v = json(&run(&["--runtime", "cri-dockerd", "--pinned-images", "*", "lint", "--json"]));
    assert_eq!(codes(&v["findings"]), ["pins-everything".to_string()].into());
    // No flag, no file: nothing is pinned (by the list).
    let out = run(&["--runtime", "cri-dockerd", "config"]);
    let none = crio_pin::fingerprint([""; 0], crio_pin::Flags::CRI_DOCKERD);
    let under = "(of this list\n  under cri-dockerd's rules, as the crio-pin library logs it)";
    assert_eq!(
        stdout(&out),
        format!("files read: none\nno patterns: nothing is pinned\nfingerprint: {none} {under}\n")
    );
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
        1,
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
fn cri_dockerd_splits_a_pinned_images_value_at_its_commas() {
    // cri-dockerd declares --pinned-images with pflag's StringSliceVar: a
    // value is a comma-separated list.
    let out =
        run(&["--runtime", "cri-dockerd", "--pinned-images", "nginx,registry.k8s.io/pause:3.10", "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let patterns: Vec<&str> =
        v["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap()).collect();
    assert_eq!(patterns, ["nginx", "registry.k8s.io/pause:3.10"]);
    // A list of names is the flag's ordinary form (the README's): no warning.
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
    // A split that is probably not what was meant is: a quoted part, a part
    // that is no image name (empty, blanks inside, not a reference).
    for (value, why) in [
        ("\"quay.io/a:1,2\",nginx", "a quoted part keeps its commas"),
        ("nginx,", "\"\" is no image name"),
        ("quay.io/app:v1,:v2", "\":v2\" is no image name"),
        ("quay.io/a:1,quay.io/b c:1", "\"quay.io/b c:1\" is no image name"),
    ] {
        let v = json(&run(&["--runtime", "cri-dockerd", "--pinned-images", value, "config", "--json"]));
        let split = with_code(&v["warnings"], "split-value");
        assert_eq!(split.len(), 1, "{value}: {v}");
        let message = split[0]["message"].as_str().unwrap();
        assert!(message.contains("2 patterns") && message.contains(why), "{value}: {message}");
    }
    // A glob's prefix is the start of a name.
    let v = json(&run(&[
        "--runtime",
        "cri-dockerd",
        "--pinned-images",
        "registry.k8s.io/kube-*,nginx*",
        "config",
        "--json",
    ]));
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
    // A quote inside an unquoted part stops cri-dockerd's flag parsing.
    let out = run(&["--runtime", "cri-dockerd", "--pinned-images", "a\"b", "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("bare \" in non-quoted-field"), "{}", stderr(&out));
    // A line of a --patterns file with a comma: lint says what the flag would do.
    let dir = tempfile::tempdir().unwrap();
    let patterns = write_file(dir.path(), "p.txt", "nginx,quay.io/a:1\n");
    let v = json(&run(&["--runtime", "cri-dockerd", "--patterns", &patterns, "lint", "--json"]));
    let comma = with_code(&v["findings"], "comma-list");
    assert_eq!(comma.len(), 1, "{v}");
    assert!(
        comma[0]["message"].as_str().unwrap().contains("splits it into the 2 patterns \"nginx\", \"quay.io/a:1\""),
        "{v}"
    );
}
