//! `config`: which list CRI-O loads from its main file, drop-ins, flags and environment, and where each pattern was written.

use crate::util::*;

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
fn a_patterns_file_is_read_in_no_runtimes_order() {
    // CRI-O never reads a --patterns file: the heading names no order of its.
    let out = run(&["--patterns", "lint-patterns.txt", "config"]);
    assert!(stdout(&out).starts_with("files read: lint-patterns.txt\n"), "{}", stdout(&out));
    let out = run(&["-c", "keys/crio.conf", "-d", "keys/crio.conf.d", "config"]);
    assert!(stdout(&out).starts_with("files read, in CRI-O's order: keys/crio.conf, "), "{}", stdout(&out));
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

/// A clean, typical configuration of each runtime warns of nothing: in
/// `config`, `lint` (no finding above a note) and `explain`, text and JSON.
/// Warnings that fire when nothing is wrong teach operators to ignore them.
#[test]
fn a_clean_configuration_of_each_runtime_prints_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    // CRI-O: the pause image in the main file, the list in a drop-in that
    // names the pause image too (as a list copied from another node does).
    let crio_conf =
        write_file(dir.path(), "crio.conf", "[crio.image]\npause_image = \"registry.k8s.io/pause:3.10.1\"\n");
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    let pins = ["registry.k8s.io/pause:3.10.1", "registry.k8s.io/kube-proxy:v1.31.0", "quay.io/team/app:1.2"];
    write_file(&conf_d, "10-pins.conf", pins_dropin(&pins));
    // A later drop-in replacing that list but for the pause image still
    // warns (editing the earlier file changes nothing), and says the pause
    // image, which CRI-O appends whatever the list, is not dropped.
    let conf_d2 = dir.path().join("crio2.conf.d");
    std::fs::create_dir(&conf_d2).unwrap();
    write_file(&conf_d2, "10-pins.conf", pins_dropin(&pins));
    write_file(&conf_d2, "20-pins.conf", pins_dropin(&pins[1..]));
    let containerd = write_file(
        dir.path(),
        "config.toml",
        "version = 3\n\n[plugins.\"io.containerd.cri.v1.images\".pinned_images]\n  \
         sandbox = \"registry.k8s.io/pause:3.10\"\n  etcd = \"registry.k8s.io/etcd:3.5.9-0\"\n",
    );
    let conf_d = conf_d.to_str().unwrap();
    let conf_d2 = conf_d2.to_str().unwrap();
    let v = json(&run(&["-c", &crio_conf, "-d", conf_d2, "config", "--json"]));
    let replaced = with_code(&v["warnings"], "overridden-list");
    assert_eq!(replaced.len(), 1, "{v}");
    let message = replaced[0]["message"].as_str().unwrap();
    assert!(message.contains("none of its 3 pattern(s) is dropped"), "{message}");
    assert!(message.contains("\"registry.k8s.io/pause:3.10.1\" stays pinned: CRI-O appends it"), "{message}");
    let runtimes: [Vec<&str>; 3] = [
        vec!["-c", &crio_conf, "-d", conf_d],
        vec!["--runtime", "containerd", "-c", &containerd],
        vec!["--runtime", "cri-dockerd", "--pinned-images", "registry.k8s.io/pause:3.10,registry.k8s.io/kube-proxy"],
    ];
    for runtime in &runtimes {
        for command in [&["config"][..], &["lint"], &["explain", "registry.k8s.io/kube-proxy:v1.31.0"]] {
            let args = [&runtime[..], command].concat();
            let out = run(&args);
            assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
            let (text, errors) = (stdout(&out), stderr(&out));
            let warned = text.lines().any(|l| l.starts_with("warning") || l.starts_with("error"));
            assert!(!warned && errors.is_empty(), "{args:?}:\n{text}{errors}");
            let v = json(&run(&[&args[..], &["--json"]].concat()));
            if let Some(warnings) = v.get("warnings") {
                assert_eq!(warnings, &serde_json::json!([]), "{args:?}: {v}");
            }
            for f in v.get("findings").and_then(Value::as_array).into_iter().flatten() {
                assert_eq!(f["severity"], "info", "{args:?}: {f}");
            }
        }
    }
}

/// A big list (an OpenShift node's 20,000 digests) is told by a count per
/// source and kind, with each big source's first rows; a local drop-in's
/// few patterns are all shown; --verbose and --no-trunc list every row.
#[test]
fn config_summarizes_a_big_list_by_source_and_kind() {
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    let digests: Vec<String> = (1..=30u64)
        .map(|i| {
            format!(
                "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{}",
                format!("{:016x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).repeat(4)
            )
        })
        .collect();
    let mut pins: Vec<&str> = digests.iter().map(String::as_str).collect();
    pins.extend(["quay.io/team/*", "quay.io/team/app:1"]);
    write_file(&conf_d, "50-openshift.conf", pins_dropin(&pins));
    let args = ["--config", "", "--config-dir", conf_d.to_str().unwrap(), "config"];
    let out = run(&args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let rows =
        |text: &str| text.lines().filter(|l| l.split("  ").next().is_some_and(|n| n.parse::<usize>().is_ok())).count();
    // The first 5 digests, the glob and the name, and the pause image.
    assert_eq!(rows(&text), 5 + 2 + 1, "{text}");
    assert!(text.contains("\"quay.io/team/*\"") && text.contains("\"quay.io/team/app:1\""), "{text}");
    let file = conf_d.join("50-openshift.conf");
    let file = file.to_str().unwrap();
    assert!(text.contains(&format!("…   25 more from {file}")), "{text}");
    let count = format!("33 pattern(s): 32 from {file} (30 digests, 1 glob, 1 name), 1 from pause_image (1 name)");
    assert!(text.split_whitespace().collect::<Vec<_>>().join(" ").contains(&count), "{text}");
    assert!(text.contains("note: 25 rows left out; --verbose or --no-trunc lists every row"), "{text}");
    for every in ["--verbose", "-v", "--no-trunc"] {
        let text = stdout(&run(&[&args[..], &[every]].concat()));
        assert_eq!(rows(&text), 33, "{every}:\n{text}");
        assert!(!text.contains("rows left out"), "{every}:\n{text}");
    }
    // A list of 20 from one source is shown whole.
    write_file(&conf_d, "50-openshift.conf", pins_dropin(&pins[..20]));
    assert_eq!(rows(&stdout(&run(&args))), 21);
}
