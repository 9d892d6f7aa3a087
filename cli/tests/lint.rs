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
