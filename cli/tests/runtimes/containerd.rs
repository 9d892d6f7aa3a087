//! containerd (`--runtime containerd`, `containerd-normalized`): its configuration, lint, explain and diff.

use crate::util::*;

fn pattern_of<'v>(v: &'v Value, key: &str) -> &'v Value {
    v["patterns"].as_array().unwrap().iter().find(|p| p["key"] == key).unwrap_or_else(|| panic!("no key {key}: {v}"))
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
    let out = run(&refused("containerd-normalized", &["explain", "--images", "containerd/images.json", "--no-trunc"]));
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
        1,
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
