//! `check --format openmetrics`: the exposition read back by the
//! Prometheus Go client's text parser (`cli/tests/go/expfmt`, what
//! node_exporter's textfile collector reads with), each value against the
//! same check's JSON; and the example's textfile script (examples/metrics)
//! run as its timer runs it.

use crate::util::*;

/// Go's own parser, run as the CLI's unit tests run it.
#[path = "../src/go_oracle.rs"]
mod go_oracle;

/// The sample node of the demo (examples/), and its saved listing.
fn sample_node(rest: &[&str]) -> Vec<String> {
    let examples = data().join("../../../examples");
    let at = |p: &str| examples.join(p).display().to_string();
    let mut args = vec!["-c".into(), at("crio/crio.conf"), "-d".into(), at("crio/crio.conf.d"), "check".into()];
    args.extend(["--images".into(), at("data/node-images.json")]);
    args.extend(rest.iter().map(|s| s.to_string()));
    args
}

/// Each sample the parser read: `NAME{LABELS}` and its value.
fn parsed(exposition: &str) -> Option<Vec<(String, f64)>> {
    let (_, samples) = go_oracle::run("check --format openmetrics", "expfmt", exposition)?;
    Some(
        samples
            .lines()
            .map(|line| {
                let (series, rest) = line.rsplit_once("} ").unwrap();
                let (value, kind) = rest.split_once(' ').unwrap();
                assert_eq!(kind, "gauge", "{line}");
                (format!("{series}}}"), value.parse().unwrap())
            })
            .collect(),
    )
}

#[test]
fn the_metrics_are_what_prometheus_reads_and_what_the_check_counts() {
    let args = sample_node(&["--format", "openmetrics", "--metrics-per-pattern"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&args);
    let v = json(&run(&[&sample_node(&[]).iter().map(String::as_str).collect::<Vec<_>>()[..], &["--json"]].concat()));
    assert_eq!(code(&out), v["summary"]["exit_status"].as_i64().unwrap() as i32, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.ends_with("\n# EOF\n"), "{text}");
    let Some(samples) = parsed(&text) else { return };
    let value = |series: &str| {
        samples.iter().find(|(s, _)| s == series).unwrap_or_else(|| panic!("no {series} in {samples:?}")).1
    };
    let summary = &v["summary"];
    for (metric, key) in [
        ("check_status", "exit_status"),
        ("patterns", "patterns"),
        ("images", "images"),
        ("images_pinned", "pinned"),
        ("disagreements", "disagreements"),
        ("undecided", "undecided"),
        ("refused_patterns", "refused"),
    ] {
        let want = summary[key].as_f64().unwrap();
        assert_eq!(value(&format!("crio_pin_{metric}{{runtime=\"crio\"}}")), want, "{metric}");
    }
    // The info series carries the list's fingerprint, the library's of the list CRI-O compiles.
    let patterns: Vec<&str> =
        v["config"]["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap()).collect();
    let fingerprint = crio_pin::fingerprint(&patterns, crio_pin::Flags::CRIO);
    assert_eq!(value(&format!("crio_pin_info{{runtime=\"crio\",fingerprint=\"{fingerprint}\"}}")), 1.0);
    let errors = value("crio_pin_lint_findings{runtime=\"crio\",severity=\"error\"}");
    assert_eq!(errors, summary["lint_errors"].as_f64().unwrap());
    // One series per pattern, its label the pattern as written, its value
    // the images whose pin it decided; those at 0 are the unused ones.
    let patterns = v["config"]["patterns"].as_array().unwrap();
    let images = v["explain"]["images"].as_array().unwrap();
    let mut unused = 0.0;
    for (i, p) in patterns.iter().enumerate() {
        let prefix = format!("crio_pin_pattern_images{{index=\"{i}\",pattern={:?},", p["pattern"].as_str().unwrap());
        let (_, n) = samples.iter().find(|(s, _)| s.starts_with(&prefix)).unwrap_or_else(|| panic!("{prefix}"));
        let decided = images.iter().filter(|e| e["pattern_index"] == i).count() as f64;
        assert_eq!(*n, decided, "{prefix}");
        unused += f64::from(*n == 0.0);
    }
    assert_eq!(value("crio_pin_patterns_unused{runtime=\"crio\"}"), unused);
    // Without the option: counts only, no label per pattern.
    let counts = stdout(&run(&args[..args.len() - 1]));
    assert!(!counts.contains("pattern_images") && counts.lines().count() < 40, "{counts}");
}

#[test]
fn the_kubelets_metrics_are_what_prometheus_reads_and_what_the_check_counts() {
    let kubelet = data().join("../../../examples/kubelet/config.yaml").display().to_string();
    let args = sample_node(&["--kubelet-config", &kubelet]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v = json(&run(&[&args[..], &["--json"]].concat()));
    let out = run(&[&args[..], &["--format", "openmetrics"]].concat());
    let Some(samples) = parsed(&stdout(&out)) else { return };
    let value = |series: &str| samples.iter().find(|(s, _)| s == series).map(|(_, v)| *v);
    let summary = &v["summary"];
    for (metric, key) in [
        ("kubelet_verified_pins", "kubelet_verified_pinned"),
        ("kubelet_allowlisted_unpinned", "kubelet_allowlisted_unpinned"),
    ] {
        let want = summary[key].as_f64().unwrap_or_else(|| panic!("{key}: {summary}"));
        assert_eq!(value(&format!("crio_pin_{metric}{{runtime=\"crio\"}}")), Some(want), "{metric}");
    }
    // The sample's planted gap: the kubelet trusts images the list lost to
    // a later drop-in (the control plane's, the OKD digests).
    assert!(summary["kubelet_allowlisted_unpinned"].as_u64().unwrap() > 0, "{summary}");
    // Pull records read only when asked.
    assert_eq!(value("crio_pin_kubelet_recorded_pins{runtime=\"crio\"}"), None);
}

#[test]
fn a_label_value_with_quotes_and_backslashes_reads_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = r#"quay.io/a"b\c:1"#;
    let patterns = write_file(dir.path(), "patterns.txt", format!("{pattern}\n"));
    let listing = write_file(dir.path(), "images.json", r#"{"images": []}"#);
    let out = run(&[
        "--patterns",
        &patterns,
        "check",
        "--images",
        &listing,
        "--format",
        "openmetrics",
        "--metrics-per-pattern",
    ]);
    let Some(samples) = parsed(&stdout(&out)) else { return };
    let want = format!("crio_pin_pattern_images{{index=\"0\",pattern={pattern:?},source=");
    assert!(samples.iter().any(|(s, _)| s.starts_with(&want)), "{want} in {samples:?}");
}

#[test]
fn the_example_writes_its_textfile_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let script = data().join("../../../examples/metrics/crio-pin-textfile.sh");
    let node = sample_node(&[]);
    // crio-pin's options, before `check`, which the script adds; the listing after it.
    let (options, listing) = (&node[..4], &node[6]);
    let written = dir.path().join("crio-pin.prom");
    let textfile = |path: &str| {
        let missing = format!("unix://{}/none.sock", dir.path().display());
        let out = Command::new("sh")
            .arg(&script)
            .arg(dir.path())
            .args(options)
            .env("PATH", path)
            .env("CONTAINER_RUNTIME_ENDPOINT", missing)
            .current_dir(data())
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let system_path = std::env::var("PATH").unwrap_or_default();
    // A check that reads the node, by a crio-pin that gives it the listing.
    let bin = tempfile::tempdir().unwrap();
    let wrapper = write_file(bin.path(), "crio-pin", format!("#!/bin/sh\nexec {BIN} \"$@\" --images {listing}\n"));
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (status, said) = textfile(&format!("{}:{system_path}", bin.path().display()));
    assert_eq!(status, Some(0), "{said}");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.ends_with("# EOF\n"), "{text}");
    // The file alone, no temporary one left beside it.
    let left: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(left, ["crio-pin.prom"]);
    if let Some(samples) = parsed(&text) {
        // The sample node fails its check (exit status 1): a reading still.
        assert!(
            samples.iter().any(|(s, v)| s == "crio_pin_check_status{runtime=\"crio\"}" && *v == 1.0),
            "{samples:?}"
        );
    }
    // A runtime that cannot be asked: exit status 2, and the old reading removed.
    let real = Path::new(BIN).parent().unwrap().display().to_string();
    let (status, said) = textfile(&format!("{real}:{system_path}"));
    assert_eq!(status, Some(2), "{said}");
    assert!(said.contains("cannot reach the runtime"), "{said}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing left");
}
