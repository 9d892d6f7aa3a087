//! `lint`: the mistakes it finds in a list, and its summary.

use crate::util::*;

#[test]
fn lint_reports_every_kind_of_mistake() {
    golden("lint-patterns", &["--patterns", "lint-patterns.txt", "lint"], 1);
    let out = golden("lint-patterns-json", &["--patterns", "lint-patterns.txt", "lint", "--json"], 1);
    let want: BTreeSet<String> = [
        "lone-star",
        "pins-everything",
        "unanchored-glob",
        "literal-star",
        "whitespace",
        "duplicate",
        "shadowed",
        "not-fully-qualified",
        "no-tag-or-digest",
        "digest-needs-digest-pull",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let got = codes(&json(&out)["findings"]);
    assert!(want.is_subset(&got), "missing {:?}", want.difference(&got).collect::<Vec<_>>());
}

#[test]
fn lint_of_the_node_has_no_errors() {
    golden("lint-node", &node(&["lint"]), 0);
    // --anchor-globs: no unanchored-glob finding; --strict: literal stars are errors.
    let v = json(&run(&["--patterns", "lint-patterns.txt", "--anchor-globs", "lint", "--json"]));
    assert!(!codes(&v["findings"]).contains("unanchored-glob"));
    let v = json(&run(&["--patterns", "lint-patterns.txt", "--strict", "lint", "--json"]));
    let severity: Vec<&str> =
        with_code(&v["findings"], "literal-star").iter().map(|f| f["severity"].as_str().unwrap()).collect();
    assert_eq!(severity, ["error", "error"]);
}

#[test]
fn lint_summary_counts_what_it_prints() {
    let out = run(&node(&["lint"]));
    let text = stdout(&out);
    let printed_warnings = text.lines().filter(|l| l.starts_with("warning[")).count();
    let summary = text.lines().last().unwrap();
    assert_eq!(summary, "4 pattern(s): 0 error(s), 1 warning(s), 1 note(s); 4 configuration warning(s)");
    assert_eq!(printed_warnings, 1 + 4, "{text}");
    let v = json(&run(&node(&["lint", "--json"])));
    let counts = &v["counts"];
    assert_eq!(counts["configuration_warnings"].as_u64(), v["warnings"].as_array().map(|w| w.len() as u64));
    let severity = |s: &str| v["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == s).count() as u64;
    assert_eq!(
        (counts["errors"].as_u64(), counts["warnings"].as_u64(), counts["notes"].as_u64()),
        (Some(severity("error")), Some(severity("warning")), Some(severity("info")))
    );
    assert_eq!((counts["patterns"].as_u64(), counts["reload_patterns"].as_u64()), (Some(4), None));
    // With the list a SIGHUP reload loads.
    let v = json(&run_env(
        &["-c", "", "-d", "reload/crio.conf.d", "lint", "--json"],
        &[("CONTAINER_PINNED_IMAGES", "quay.io/*,**")],
    ));
    assert_eq!(v["counts"]["reload_patterns"], 3, "{v}");
}

/// The sample node with 20,000 OpenShift release digests added to its
/// last drop-in, as an operator with a release payload pinned has them:
/// 20,001 `digest-needs-digest-pull` notes (busybox's too), one real
/// warning on a pattern and four on the configuration.
fn openshift_node(dir: &Path) -> Vec<String> {
    let conf_d = dir.join("crio.conf.d");
    for name in ["10-runtime.conf", "50-pinned-images", "60-team/01-headerless.conf", "99-local.conf"] {
        let to = conf_d.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(data().join("node/crio.conf.d").join(name), &to).unwrap();
    }
    std::fs::copy(data().join("node/crio.conf"), dir.join("crio.conf")).unwrap();
    let local = std::fs::read_to_string(conf_d.join("99-local.conf")).unwrap();
    let mut text = local.trim_end().strip_suffix(']').unwrap().to_string();
    for i in 0..OPENSHIFT_DIGESTS {
        text.push_str(&format!("    \"{}\",\n", generate::openshift_reference(i)));
    }
    text.push_str("]\n");
    std::fs::write(conf_d.join("99-local.conf"), text).unwrap();
    // Run in DIR, as an operator runs it in /etc/crio.
    ["-c", "crio.conf", "-d", "crio.conf.d"].map(String::from).to_vec()
}

const OPENSHIFT_DIGESTS: usize = 20_000;

fn with(base: &[String], rest: &[&str]) -> Vec<String> {
    base.iter().cloned().chain(rest.iter().map(|s| s.to_string())).collect()
}

/// Runs the binary in `dir`, with none of the variables it reads set.
fn run_in(dir: &Path, args: &[String]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    cmd.output().expect("run crio-pin")
}

#[test]
fn lint_summarises_a_code_found_on_many_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let node = openshift_node(dir.path());
    let out = run_in(dir.path(), &with(&node, &["lint"]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().count() < 30, "{} lines:\n{text}", text.lines().count());
    // The real warnings stay visible: the glob, and the configuration's four.
    let heads: Vec<&str> =
        text.lines().filter(|l| l.starts_with("warning[")).map(|l| &l[..l.find(':').unwrap()]).collect();
    assert_eq!(
        heads,
        [
            "warning[unanchored-glob]",
            "warning[ignored-key]",
            "warning[overridden-list]",
            "warning[ignored-key]",
            "warning[overridden-list]"
        ],
        "{text}"
    );
    // The note once in full, then its count and examples.
    let notes: Vec<&str> = text.lines().filter(|l| l.starts_with("info[digest-needs-digest-pull]")).collect();
    assert_eq!(notes.len(), 2, "{text}");
    assert_eq!(notes[0], "info[digest-needs-digest-pull]: pattern 2", "{text}");
    assert!(
        notes[1].starts_with("info[digest-needs-digest-pull]: the same on 20000 more pattern(s), e.g. pattern 3"),
        "{text}"
    );
    assert!(text.contains("--verbose lists each"), "{text}");
    assert!(
        text.ends_with("20004 pattern(s): 0 error(s), 1 warning(s), 20001 note(s); 4 configuration warning(s)\n"),
        "{text}"
    );
    // --verbose lists each; JSON always does.
    let verbose = stdout(&run_in(dir.path(), &with(&node, &["lint", "--verbose"])));
    assert_eq!(verbose.lines().filter(|l| l.starts_with("info[digest-needs-digest-pull]: pattern ")).count(), 20_001);
    let v = json(&run_in(dir.path(), &with(&node, &["lint", "--json"])));
    assert_eq!(with_code(&v["findings"], "digest-needs-digest-pull").len(), 20_001);
    assert_eq!(v["counts"]["notes"], 20_001);
}

#[test]
fn lint_shows_the_least_severity_asked_and_counts_every_finding() {
    let lint = |rest: &[&str]| {
        let out = run(&[&["--patterns", "lint-patterns.txt", "lint"][..], rest].concat());
        assert_eq!(code(&out), 1, "errors set the status whatever is shown: {}", stderr(&out));
        out
    };
    let all = json(&lint(&["--json"]));
    let severities = |v: &Value| -> BTreeSet<String> {
        v["findings"].as_array().unwrap().iter().map(|f| f["severity"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(severities(&all), ["error", "info", "warning"].map(String::from).into());
    for (least, shown) in
        [("warning", &["error", "warning"][..]), ("error", &["error"]), ("note", &["error", "info", "warning"])]
    {
        let v = json(&lint(&["--severity", least, "--json"]));
        assert_eq!(severities(&v), shown.iter().map(|s| s.to_string()).collect(), "--severity {least}");
        assert_eq!(v["counts"], all["counts"], "--severity {least}: the counts count every finding");
        let text = stdout(&lint(&["--severity", least]));
        for s in ["error", "warning", "info"] {
            let printed = text.lines().any(|l| l.starts_with(&format!("{s}[")));
            assert_eq!(printed, shown.contains(&s), "--severity {least}, {s}:\n{text}");
        }
    }
    // The configuration's warnings are warnings: --severity error leaves them out.
    let out = run(&node(&["lint", "--severity", "error", "--no-trunc"]));
    assert!(!stdout(&out).contains("warning["), "{}", stdout(&out));
    assert!(stdout(&out).contains("not shown: --severity error"), "{}", stdout(&out));
    assert_eq!(code(&run(&node(&["lint", "--severity", "fatal"]))), 2);
}

#[test]
fn a_listing_of_pulls_by_digest_answers_their_notes() {
    let dir = tempfile::tempdir().unwrap();
    let node = openshift_node(dir.path());
    // The release images pulled by digest (crictl shows no tag of their
    // repository); busybox pulled by tag, so its digest pins it only if it
    // was also pulled by digest, which the listing cannot tell.
    let busybox = "docker.io/library/busybox@sha256:8f813c064dd48621b720c3fd201a77e4f76c651e5bd7d100d56724ead740c96a";
    let mut images: Vec<String> = (0..OPENSHIFT_DIGESTS)
        .map(|i| {
            format!(
                "{{\"id\":\"{:064x}\",\"repoTags\":[],\"repoDigests\":[\"{}\"]}}",
                i as u64 + (1 << 40),
                generate::openshift_reference(i)
            )
        })
        .collect();
    images.push(format!(
        "{{\"id\":\"{}\",\"repoTags\":[\"docker.io/library/busybox:1.36\"],\"repoDigests\":[\"{busybox}\"]}}",
        "e".repeat(64)
    ));
    let listing = write_file(dir.path(), "images.json", format!("{{\"images\":[{}]}}", images.join(",")));
    let v = json(&run_in(dir.path(), &with(&node, &["lint", "--images", &listing, "--json"])));
    let notes = with_code(&v["findings"], "digest-needs-digest-pull");
    assert_eq!(notes.len(), 1, "only busybox's stays");
    assert_eq!(notes[0]["pattern"], busybox);
    assert_eq!((v["counts"]["notes"].as_u64(), v["counts"]["answered_by_listing"].as_u64()), (Some(1), Some(20_000)));
    let text = stdout(&run_in(dir.path(), &with(&node, &["lint", "--images", &listing, "--no-trunc"])));
    assert!(text.contains("1 note(s), 20000 answered by the --images listing (pulled by those digests)"), "{text}");
    // Without the listing nothing is answered.
    let v = json(&run_in(dir.path(), &with(&node, &["lint", "--json"])));
    assert_eq!(v["counts"]["answered_by_listing"], 0);
}

#[test]
fn notes_are_summarised_sooner_than_warnings_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let lint = |name: &str, patterns: &[String]| {
        let file = write_file(dir.path(), name, patterns.join("\n") + "\n");
        stdout(&run(&["--patterns", &file, "lint"]))
    };
    let printed = |text: &str, head: &str| text.lines().filter(|l| l.starts_with(head)).count();
    let globs = |n: usize| (0..n).map(|i| format!("registry-{i}.example/*")).collect::<Vec<_>>();
    // Ten warnings of a code: each says what it is about.
    let text = lint("ten.txt", &globs(10));
    assert_eq!(printed(&text, "warning[unanchored-glob]: pattern "), 10, "{text}");
    // Eleven: the first, then the count.
    let text = lint("eleven.txt", &globs(11));
    assert_eq!(printed(&text, "warning[unanchored-glob]: pattern "), 1, "{text}");
    assert_eq!(printed(&text, "warning[unanchored-glob]: the same on 10 more pattern(s)"), 1, "{text}");
    // Errors as warnings: 20,000 refused entries are not 36,000 lines; the
    // summary still counts each.
    let text = lint("stars.txt", &vec!["*".to_string(); 12]);
    assert_eq!(printed(&text, "error[lone-star]: pattern "), 1, "{text}");
    assert_eq!(printed(&text, "error[lone-star]: the same on 11 more pattern(s)"), 1, "{text}");
    assert!(text.contains("12 error(s)"), "{text}");
}

/// A list past the library's fast tier (25,000 random keywords of 30
/// bytes: about 170 MB of dense table) is a configuration warning naming
/// the second tier and what brings the list back; 2,000 of them, within the
/// fast tier, are not.
#[test]
fn lint_warns_of_a_list_past_the_fast_tier() {
    let dir = tempfile::tempdir().unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut keyword = || -> String {
        let text: String = (0..30)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'!' + (x % 93) as u8)
            })
            .collect();
        format!("*{}*", text.replace('*', "~"))
    };
    let keywords: Vec<String> = (0..25_000).map(|_| keyword()).collect();
    let past = write_file(dir.path(), "past.txt", keywords.join("\n"));
    let out = run(&["--patterns", &past, "lint", "--json"]);
    let warnings = json(&out)["warnings"].clone();
    let tier = with_code(&warnings, "past-fast-tier");
    assert_eq!(tier.len(), 1, "{warnings}");
    let message = tier[0]["message"].as_str().unwrap();
    assert!(message.contains("25000 globs and keywords") && message.contains("second tier"), "{message}");
    assert!(message.contains("bring it back"), "{message}");
    let within = write_file(dir.path(), "within.txt", keywords[..2_000].join("\n"));
    let out = run(&["--patterns", &within, "lint", "--json"]);
    assert!(with_code(&json(&out)["warnings"], "past-fast-tier").is_empty(), "{}", stdout(&out));
}

#[test]
fn a_replaced_list_that_drops_nothing_is_a_note() {
    // 60- repeats 50-'s pattern and adds one: nothing is dropped, so the
    // replacement is said as a note, which no summary counts as a warning
    // and --severity warning leaves out; 70- drops one: a warning.
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "50-pins.conf", pins_dropin(&["quay.io/a:1"]));
    write_file(dir.path(), "60-more.conf", pins_dropin(&["quay.io/a:1", "quay.io/b:1"]));
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--no-trunc", "lint"]);
    assert_eq!(code(&out), 0);
    let said = stdout(&out);
    assert!(said.contains("info[overridden-list]: ") && said.contains("it repeats all 1 of its pattern(s)"), "{said}");
    assert!(said.ends_with("; 0 configuration warning(s), 1 configuration note(s)\n"), "{said}");
    let quiet = stdout(&run(&["-c", "", "-d", conf_d, "lint", "--severity", "warning"]));
    assert!(!quiet.contains("overridden-list"), "{quiet}");
    write_file(dir.path(), "70-fewer.conf", pins_dropin(&["quay.io/b:1"]));
    let v = json(&run(&["-c", "", "-d", conf_d, "lint", "--json"]));
    let severities: Vec<&str> =
        v["warnings"].as_array().unwrap().iter().map(|w| w["severity"].as_str().unwrap()).collect();
    assert_eq!(severities, ["info", "warning"], "{v}");
    assert_eq!(
        (v["counts"]["configuration_warnings"].as_u64(), v["counts"]["configuration_notes"].as_u64()),
        (Some(1), Some(1))
    );
}
