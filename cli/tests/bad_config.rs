//! Malformed, mistyped or oddly encoded configuration: stopped as CRI-O stops, or read as it reads it.

use crate::util::*;

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
