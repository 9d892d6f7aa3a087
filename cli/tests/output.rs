//! What the tool prints: escaped names and tables that fit the terminal.

use crate::util::*;

/// Whether a printed text has a character that can drive a terminal or
/// hide what follows (other than the newlines that end its lines).
fn has_control(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    })
}

#[test]
fn names_patterns_and_file_names_are_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    let evil_file = "50-\u{1b}]0;owned\u{7}\u{202e}.conf";
    write_file(
        &conf_d,
        evil_file,
        "[crio.image]\npinned_images = [\"quay.io/\\u001b[2Jx:1\", \"*\\u202eevil\", \"registry.example/\\u009b31m*\"]\n",
    );
    let images = serde_json::json!({ "images": [
        { "id": "a1", "repoTags": ["quay.io/\u{1b}[2Jx:1"], "repoDigests": [], "pinned": false },
        { "id": "b2", "repoTags": [" docker.io/library/nginx:1 "], "repoDigests": [], "pinned": true },
        { "id": "c3", "repoTags": ["registry.example/\u{9b}31m\u{2067}x:1"], "repoDigests": [], "pinned": true },
    ]});
    let images = write_file(dir.path(), "images.json", serde_json::to_vec(&images).unwrap());
    let conf_d = conf_d.to_str().unwrap();
    let missing = dir.path().join("no-\u{1b}[2J.json");
    for args in [
        vec!["config"],
        vec!["lint"],
        vec!["explain", "--images", &images, "--check"],
        vec!["diff", "--images", &images, "--to-anchor-globs"],
        vec!["diff", "--images", &images, "--new-patterns", &images],
        vec!["explain", "--images", missing.to_str().unwrap()],
    ] {
        let mut all = vec!["--config", "", "--config-dir", conf_d];
        all.extend(args);
        // Shortened to fit or not, nothing escapes.
        let out = run(&all);
        for (what, text) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
            assert_eq!(has_control(&text), None, "{what} of {all:?}:\n{text}");
        }
        all.push("--no-trunc");
        let out = run(&all);
        for (what, text) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
            assert_eq!(has_control(&text), None, "{what} of {all:?}:\n{text}");
        }
        if all.contains(&"explain") && code(&out) != 2 {
            // Blanks around a name are visible: the name is quoted.
            assert!(stdout(&out).contains("\" docker.io/library/nginx:1 \""), "{}", stdout(&out));
            // ... and said why.
            assert!(
                stdout(&out).contains(
                    "note: \" docker.io/library/nginx:1 \" holds blanks or invisible characters (shown \
                     quoted and escaped): a pattern pins it only if it holds them too"
                ),
                "{}",
                stdout(&out)
            );
            assert!(stdout(&out).contains("50-\\u{1b}]0;owned\\u{7}\\u{202e}.conf"), "{}", stdout(&out));
        }
    }
    // JSON keeps the exact strings (JSON escapes the control characters).
    let v = json(&run(&["--config", "", "--config-dir", conf_d, "explain", "--images", &images, "--json"]));
    assert_eq!(v["images"][0]["names"][0], "quay.io/\u{1b}[2Jx:1");
    assert_eq!(v["images"][0]["pinned"], true);
    assert_eq!(v["images"][1]["names"][0], " docker.io/library/nginx:1 ");
}

/// The table lines of a text output: cells separated by two blanks or more.
fn table_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            t.len() < l.len() + 1 && t.contains("  ") && !l.starts_with("  ")
        })
        .collect()
}

#[test]
fn tables_shorten_digests_and_sources_never_names() {
    let ocp = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:97a33066db118ed7ccc7c801c34db23f7127e2f53f9aba02c1c98808b6505aaa";
    let runs = [
        node(&["config"]),
        node(&["explain", "--images", "node/images.json", "--check"]),
        node(&["explain", "--images", "node/images.json"]),
        node(&["explain", ocp, "nginx:1.25", "evil.example/registry.example/team/x:1"]),
        listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]),
        node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"]),
        vec![
            "-c",
            "crio-listings/crio.conf",
            "-d",
            "crio-listings/A/crio.conf.d",
            "diff",
            "--images",
            "crio-listings/A/list.json",
            "--to-anchor-globs",
        ],
    ];
    for args in runs {
        let text = stdout(&run(&args));
        let lines = table_lines(&text);
        assert!(lines.len() >= 2, "{args:?}: no table in\n{text}");
        for line in &lines {
            assert!(!line.contains(&ocp[48..]), "{args:?}: a whole digest in a table:\n{line}");
            // A cell is cut only where a digest is shortened ("sha256:" and
            // 12 hex or more) or at a source's start ("…/FILE:LINE").
            for (at, _) in line.match_indices('…') {
                let before = &line[..at];
                let digest = before
                    .rsplit_once("sha256:")
                    .is_some_and(|(_, hex)| hex.len() >= 12 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
                let source = before.ends_with("  ") && line[at..].starts_with("…/");
                assert!(digest || source, "{args:?}: a cut name:\n{line}");
            }
        }
        // Whole under --no-trunc; JSON always.
        let full = stdout(&run(&[&args[..], &["--no-trunc"]].concat()));
        if text.contains("@sha256:97a33066db11…") {
            assert!(table_lines(&full).iter().any(|l| l.contains(ocp)), "{args:?}:\n{full}");
        }
        assert!(!full.contains('…') && !full.contains("left out to fit"), "{args:?}:\n{full}");
    }
    // The sample node's list fits 100 columns whole.
    for args in [node(&["config"])] {
        let text = stdout(&run(&args));
        for line in table_lines(&text) {
            assert!(line.chars().count() <= 100, "{args:?}: {} columns:\n{line}", line.chars().count());
        }
    }
    // Shortened digests stay distinct: listing F has two images of one
    // repository, and an artifact pinned by its canonical name.
    let text = stdout(&run(&listing_f(&["explain", "--images", "crio-listings/F/list.json"])));
    for digest in ["sha256:225baad58664…", "sha256:fb149aa86002…", "sha256:0a49ab780118…"] {
        assert!(text.contains(digest), "{digest}:\n{text}");
    }
    // A column left out is said, and --no-trunc brings it back.
    let text = stdout(&run(&node(&["explain", "--images", "node/images.json", "--check"])));
    let note = "note: ID and SOURCE left out, PATTERN shown by number (crio-pin config lists each) to fit 100\n  \
                columns; --no-trunc shows every column, whole";
    assert!(text.contains(note), "{text}");
    let full = stdout(&run(&node(&["explain", "--images", "node/images.json", "--check", "--no-trunc"])));
    assert!(
        full.starts_with("PINNED     ID  ")
            && full.contains("6210c0bf05396716df932f0729df69de0533933e5ad9871fd07b61811c4c28df"),
        "{full}"
    );
    let v = json(&run(&node(&["explain", "--images", "node/images.json", "--json"])));
    assert_eq!(v["images"][1]["names"][0], ocp);
}

#[test]
fn tables_and_messages_fit_columns_when_it_is_set() {
    let args = node(&["config"]);
    // A word wider than the line (a digest reference) stays whole on its own.
    let ocp = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:97a33066db118ed7ccc7c801c34db23f7127e2f53f9aba02c1c98808b6505aaa";
    // So does the list's fingerprint.
    let fingerprint = json(&run(&node(&["config", "--json"])))["fingerprint"].as_str().unwrap().to_string();
    let whole = |l: &&str| !l.contains(ocp) && !l.contains(&fingerprint);
    let width = |text: &str| text.lines().filter(whole).map(|l| l.chars().count()).max().unwrap_or(0);
    // 100 columns when standard output is no terminal and COLUMNS is unset.
    let text = stdout(&run(&args));
    assert!(width(&text) <= 100 && width(&text) > 80, "{text}");
    // Messages wrap at COLUMNS, later lines indented.
    let narrow = stdout(&run_env(&args, &[("COLUMNS", "60")]));
    for line in narrow.lines().filter(whole) {
        assert!(line.chars().count() <= 60 || table_lines(line).len() == 1, "{line}");
    }
    assert!(narrow.lines().any(|l| l == format!("  \"{ocp}\";")), "{narrow}");
    let warnings = |text: &str| text.lines().filter(|l| l.starts_with("warning[")).count();
    assert_eq!(warnings(&narrow), warnings(&text));
    // A wide terminal: sources whole, each message on one line.
    let wide = stdout(&run_env(&args, &[("COLUMNS", "400")]));
    assert!(!wide.contains('…') || wide.contains("sha256:8f813c064dd4…"), "{wide}");
    assert!(wide.lines().all(|l| !l.starts_with("  ")), "{wide}");
    // --no-trunc: every message on one line, whatever the width.
    let full = stdout(&run_env(&[&args[..], &["--no-trunc"]].concat(), &[("COLUMNS", "60")]));
    assert!(full.lines().all(|l| !l.starts_with("  ")), "{full}");
    // Not a number: the default.
    assert_eq!(stdout(&run_env(&args, &[("COLUMNS", "wide")])), text);
}

/// The lines of `text` wider than `width` columns, but for a line holding
/// one word alone (a digest reference wider than the line, which is never
/// broken), the entries of the list translate and lint --fix write (lines
/// of a file, to be copied whole: after translate's first blank line, and
/// all of lint --fix's output, those not comments; a comment of one word,
/// cri-dockerd's flag value, too), and unless `tables`, the lines of tables.
fn too_wide(args: &[&str], text: &str, width: usize, tables: bool) -> Vec<String> {
    let written = match () {
        _ if args.contains(&"--fix") => Some(0),
        _ if args.contains(&"translate") => text.find("\n\n"),
        _ => None,
    };
    let (said, list) = text.split_at(written.unwrap_or(text.len()));
    let list_comments = list.lines().filter(|l| l.starts_with('#') && l.trim_start_matches('#').trim().contains(' '));
    let table = table_lines(said);
    said.lines()
        .chain(list_comments)
        .filter(|l| tables || !table.contains(l))
        .filter(|l| l.chars().count() > width && l.trim().contains(' '))
        .map(|l| format!("{args:?} at {width} ({} columns):\n{l}", l.chars().count()))
        .collect()
}

/// What an operator meets first: every command's help, the sample data's
/// tables (examples/, as `make demo` runs them, and each runtime's), the
/// recorded listings' checks with their likely causes and the sample node's
/// `check` (their messages: a table of 69-column names cannot fit 80), and
/// the errors operators met (an empty --images, an --as path, a CSV
/// refusal, --config-dir under containerd, an unreachable CRI socket), at
/// 80 and 100 columns.
#[test]
fn help_tables_and_errors_fit_80_and_100_columns() {
    let crio = ["-c", "../../../examples/crio/crio.conf", "-d", "../../../examples/crio/crio.conf.d"];
    let images = ["--images", "../../../examples/data/node-images.txt"];
    let one_list = ["--patterns", "../../../examples/data/one-list.txt", "explain"];
    let containerd_node = ["--runtime", "containerd", "-c", "../../../examples/containerd/config.toml"];
    let dockerd = ["--runtime", "cri-dockerd", "--patterns", "../../../examples/cri-dockerd/pinned-images.txt"];
    let dir = tempfile::tempdir().unwrap();
    let empty = write_file(dir.path(), "empty.json", "");
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for command in ["config", "lint", "explain", "diff", "translate", "check"] {
        runs.extend([vec![command, "-h"], vec![command, "--help"]]);
    }
    runs.extend([vec!["-h"], vec!["--help"]]);
    for command in [&["config"][..], &["lint"], &["lint", "--fix"], &["explain", images[0], images[1]]] {
        for runtime in [&crio[..], &containerd_node, &dockerd] {
            runs.push([runtime, command].concat());
        }
    }
    for runtime in ["crio", "containerd", "cri-dockerd"] {
        runs.push([&["--runtime", runtime][..], &one_list, &images].concat());
    }
    runs.extend([
        [&crio[..], &["diff"], &images, &["--dropin", "../../../examples/crio/proposed/99-local.conf"]].concat(),
        [&crio[..], &["translate", "--to", "containerd"], &images].concat(),
        [&containerd_node[..], &["translate", "--to", "crio"], &images].concat(),
        [&dockerd[..], &["translate", "--to", "crio"], &images].concat(),
        vec!["explain", "--images", &empty],
        node(&["diff", "nginx", "--dropin", "changes/99-local.conf", "--as", "sub/99-local.conf"]),
        vec!["--runtime", "cri-dockerd", "--pinned-images", "a\"b", "config"],
        vec!["--runtime", "containerd", "--config-dir", "x", "config"],
        vec!["diff", "nginx"],
        vec!["--patterns", "lint-patterns.txt", "lint", "--fix"],
        containerd("containerd", &["lint", "--fix"]),
        cri_dockerd(&["lint", "--fix"]),
        vec!["check", "--runtime-endpoint", "unix:///nonexistent/crio.sock"],
    ]);
    let recorded = [
        listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]),
        node(&["explain", "--images", "node/images.json", "--check"]),
        containerd("containerd", &["explain", "--images", "containerd/images.json", "--check"]),
        [&crio[..], &["check", "--images", "../../../examples/data/node-images.json"]].concat(),
    ];
    let mut wide = Vec::new();
    let runs = runs.iter().map(|r| (r, true)).chain(recorded.iter().map(|r| (r, false)));
    for (args, tables) in runs {
        for width in [80, 100] {
            let out = run_env(args, &[("COLUMNS", &width.to_string())]);
            assert!(!out.stdout.is_empty() || !out.stderr.is_empty(), "{args:?}: no output");
            wide.extend(too_wide(args, &stdout(&out), width, tables));
            wide.extend(too_wide(args, &stderr(&out), width, tables));
        }
    }
    assert!(wide.is_empty(), "{} line(s) too wide:\n{}", wide.len(), wide.join("\n"));
    // The checks that wrap above did: -h is the short form.
    let short = stdout(&run(&["explain", "-h"]));
    let long = stdout(&run(&["explain", "--help"]));
    assert!(short.lines().count() * 2 < long.lines().count(), "-h:\n{short}\n--help:\n{long}");
    assert!(short.contains("(see more with '--help')"), "{short}");
}
