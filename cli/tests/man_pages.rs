//! The manual pages: every subcommand, option, code and exit status.

use crate::util::*;

/// The options a --help output lists (`-c, --config <FILE>  text`: --config).
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split("  ").next())
        .flat_map(|spec| spec.split([' ', ',']).filter(|w| w.starts_with("--")))
        .map(String::from)
        .collect()
}

/// What `make build` installs: crio-pin.1 and a page for each subcommand
/// that --help lists, each page naming every option of its --help, and
/// packaging/contents.txt expecting each page in both packages.
#[test]
fn manual_pages_cover_every_subcommand_and_option() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["generate-man", dir.path().to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let help = stdout(&run(&["--help"]));
    let subcommands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(!subcommands.is_empty(), "no subcommands in --help:\n{help}");
    let contents =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../packaging/contents.txt")).unwrap();
    // roff escapes every '-'.
    let roff = |s: &str| s.replace('-', "\\-");
    let mut pages = vec![("crio-pin".to_string(), help.clone())];
    for sub in &subcommands {
        pages.push((format!("crio-pin-{sub}"), stdout(&run(&[sub, "--help"]))));
    }
    for (name, help) in &pages {
        let file = format!("{name}.1");
        let page = std::fs::read_to_string(dir.path().join(&file))
            .unwrap_or_else(|e| panic!("generate-man wrote no {file}: {e}"));
        for want in [format!(".TH {name} 1 "), ".SH NAME\n".into(), ".SH SYNOPSIS\n".into()] {
            assert!(page.contains(&want), "{file} has no {want:?}:\n{page}");
        }
        let options = long_options(help);
        assert!(options.contains(&"--help".to_string()), "no options in {help}");
        for option in options {
            assert!(page.contains(&roff(&option)), "{file} does not mention {option}:\n{page}");
        }
        // Compressed or not by rpm (packaging/contents.txt says why), by dh_compress.
        for (format, suffix) in [("rpm", "*"), ("deb", ".gz")] {
            let line = [format, "crio-pin", &format!("/usr/share/man/man1/{file}{suffix}")];
            assert!(contents.lines().any(|l| l.split_whitespace().eq(line)), "packaging/contents.txt lacks {line:?}");
        }
    }
    let top = std::fs::read_to_string(dir.path().join("crio-pin.1")).unwrap();
    for sub in &subcommands {
        assert!(top.contains(&roff(&format!("crio-pin-{sub}(1)"))), "crio-pin.1 omits {sub}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), pages.len(), "unexpected pages");
}

#[test]
fn manual_pages_list_codes_exit_statuses_and_real_synopses() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", dir.path().to_str().unwrap()])), 0);
    let page = |name: &str| std::fs::read_to_string(dir.path().join(format!("{name}.1"))).unwrap();
    let listed = |page: &str, code: &str| page.contains(&format!(".TP\n\\fB{}\\fR\n", code.replace('-', "\\-")));
    let warnings = [
        "overridden-list",
        "ignored-key",
        "ambiguous-key",
        "flag-lost-on-reload",
        "leftover-file",
        "missing-config",
        "missing-config-dir",
        "crlf",
    ];
    let lint = [
        "lone-star",
        "invalid-utf8",
        "bad-pause-image",
        "pins-everything",
        "unanchored-glob",
        "literal-star",
        "empty",
        "whitespace",
        "duplicate",
        "shadowed",
        "not-fully-qualified",
        "no-tag-or-digest",
        "not-a-reference",
        "digest-needs-digest-pull",
        "artifact-digest",
    ];
    let causes =
        ["artifact-store", "not-reloaded", "overridden-list", "name-not-stored", "reload-rejected", "other-sources"];
    for (name, codes) in [
        ("crio-pin-config", &warnings[..]),
        ("crio-pin-lint", &[&lint[..], &warnings[..]].concat()[..]),
        ("crio-pin-explain", &[&causes[..], &["agree", "disagree", "undecided"][..]].concat()[..]),
        ("crio-pin-diff", &warnings[..]),
    ] {
        let text = page(name);
        for code in codes {
            assert!(listed(&text, code), "{name}.1 does not list {code}");
        }
        // Exit statuses in their own section, not in an "EXTRA" one.
        assert!(text.contains(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\n"), "{name}.1: no EXIT STATUS");
        assert!(!text.contains(".SH EXTRA"), "{name}.1 has an EXTRA section");
        // Option arguments in the synopsis.
        let synopsis = &text[text.find(".SH SYNOPSIS").unwrap()..text.find(".SH DESCRIPTION").unwrap()];
        assert!(synopsis.contains("[\\fB\\-c\\fR|\\fB\\-\\-config\\fR \\fIFILE\\fR]"), "{name}.1: {synopsis}");
    }
    assert!(listed(&page("crio-pin-config"), "lone-star"), "refused lists");
    let lint_page = page("crio-pin-lint");
    assert!(lint_page.contains(".TP\n\\fB1\\fR\n"), "lint exits 1 on errors");
    let explain = page("crio-pin-explain");
    assert!(explain.contains("[\\fB\\-\\-check\\fR [\\fB\\-\\-allow\\-undecided\\fR]]"), "{explain}");
    assert!(explain.contains("[\\fB\\-\\-images\\fR \\fIFILE|\\-\\fR]"), "{explain}");
    let diff = page("crio-pin-diff");
    assert!(
        diff.contains("(\\fB\\-\\-dropin\\fR \\fIFILE\\fR [\\fB\\-\\-as\\fR \\fINAME\\fR] | \\fB\\-\\-new\\-patterns\\fR \\fIFILE\\fR | \\fB\\-\\-to\\-anchor\\-globs\\fR | \\fB\\-\\-to\\-case\\-sensitive\\fR)"),
        "{diff}"
    );
    assert!(diff.contains("Exactly one change is previewed"), "diff's one-change rule: {diff}");
    let top = page("crio-pin");
    assert!(top.contains(".SH \"EXIT STATUS\"") && !top.contains(".SH EXTRA"), "{top}");
    // --help says the same exit statuses.
    let help = stdout(&run(&["lint", "--help"]));
    assert!(help.contains("Exit status:\n  0  no error"), "{help}");
    // diff signals a lost pin; translate says exactly what 1 means, and
    // names every fidelity (dropped too).
    assert!(diff.contains(".TP\n\\fB1\\fR\nan image loses its pin"), "{diff}");
    let translate = page("crio-pin-translate");
    assert!(translate.contains("undecided or impossible") && translate.contains("dropped"), "{translate}");
    let help = stdout(&run(&["translate", "--help"]));
    assert!(help.contains("impossible, or dropped") && help.contains("--images would change"), "{help}");
    // A required option is not shown as optional.
    let synopsis = &translate[translate.find(".SH SYNOPSIS").unwrap()..translate.find(".SH DESCRIPTION").unwrap()];
    assert!(
        synopsis.contains(" \\fB\\-\\-to\\fR \\fIRUNTIME\\fR") && !synopsis.contains("[\\fB\\-\\-to\\fR"),
        "{synopsis}"
    );
    // The tool's page points to each command's page and to the library's docs.
    let see_also = &top[top.find(".SH \"SEE ALSO\"").expect("crio-pin.1 has SEE ALSO")..];
    for sub in ["config", "lint", "explain", "diff", "translate"] {
        assert!(see_also.contains(&format!("\\fBcrio\\-pin\\-{sub}\\fR(1)")), "{sub}: {see_also}");
    }
    assert!(see_also.contains("crio_pin.h") && see_also.contains("docs/json.md"), "{see_also}");
}

#[test]
fn manual_pages_describe_the_runtimes() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", dir.path().to_str().unwrap()])), 0);
    let page = |name: &str| std::fs::read_to_string(dir.path().join(format!("{name}.1"))).unwrap();
    let listed = |page: &str, code: &str| page.contains(&format!(".TP\n\\fB{}\\fR\n", code.replace('-', "\\-")));
    let containerd_warnings = ["overridden-key", "unimported-drop-in", "version-dependent", "unpinned-sandbox"];
    for name in ["crio-pin-config", "crio-pin-lint", "crio-pin-diff"] {
        for code in containerd_warnings {
            assert!(listed(&page(name), code), "{name}.1 does not list {code}");
        }
    }
    for code in ["not-normalized", "repository-prefix", "not-familiar", "not-a-reference"] {
        assert!(listed(&page("crio-pin-lint"), code), "crio-pin-lint.1 does not list {code}");
    }
    // not-a-reference makes a containerd-normalized list refused.
    let config = page("crio-pin-config");
    let refused = &config[config.find(".SH \"REFUSED LISTS\"").expect("REFUSED LISTS")..];
    assert!(listed(refused, "not-a-reference"), "{refused}");
    for code in ["not-restarted", "sticky-label", "other-rules", "sandbox-image", "label-selector"] {
        assert!(listed(&page("crio-pin-explain"), code), "crio-pin-explain.1 does not list {code}");
    }
    for name in ["crio-pin", "crio-pin-config", "crio-pin-explain"] {
        let text = page(name);
        assert!(text.contains("\\-\\-runtime") && text.contains("CRIO_PIN_RUNTIME"), "{name}.1: no --runtime");
        assert!(text.contains("containerd\\-normalized") && text.contains("cri\\-dockerd"), "{name}.1");
    }
    assert!(page("crio-pin-lint").contains("under \\-\\-runtime containerd\\-normalized not\\-a\\-reference"));
}

/// What the packages install for each shell: a script completing every
/// command and option --help lists, and never the hidden generate-man.
#[test]
fn completions_cover_every_command_and_option() {
    let help = stdout(&run(&["--help"]));
    let commands = ["config", "lint", "explain", "diff", "translate", "completions"];
    for shell in ["bash", "zsh", "fish"] {
        let out = run(&["completions", shell]);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for word in commands.iter().map(|c| c.to_string()).chain(long_options(&help)) {
            // fish names an option without its dashes (-l config-dir).
            let bare = word.trim_start_matches('-');
            assert!(script.contains(&word) || script.contains(&format!("-l {bare}")), "{shell}: no {word}");
        }
        assert!(!script.contains("generate-man") && !script.contains("generate_man"), "{shell}: generate-man");
    }
    // bash reads the script (the others' shells may not be installed).
    let dir = tempfile::tempdir().unwrap();
    let script = write_file(dir.path(), "crio-pin.bash", run(&["completions", "bash"]).stdout);
    let checked = Command::new("bash").args(["-n", &script]).output().expect("run bash");
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
    let out = run(&["completions", "tcsh"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("bash, zsh, fish"), "{}", stderr(&out));
}

/// What bash offers for the words typed so far (the last one being
/// completed), with the script `crio-pin completions bash` writes.
fn bash_completes(script: &str, words: &[&str]) -> Vec<String> {
    let cword = words.len() - 1;
    let program = format!(
        "source {script}; COMP_WORDS=({}); COMP_CWORD={cword}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; \
         COMP_POINT=${{#COMP_LINE}}; _crio__pin crio-pin \"${{COMP_WORDS[{cword}]}}\" \"${{COMP_WORDS[{}]}}\"; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
        cword - 1
    );
    let out = Command::new("bash").args(["--norc", "-c", &program]).output().expect("run bash");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_a_subcommand_s_options() {
    let dir = tempfile::tempdir().unwrap();
    let script = write_file(dir.path(), "crio-pin.bash", run(&["completions", "bash"]).stdout);
    let offered = bash_completes(&script, &["crio-pin", "lint", "--"]);
    for option in ["--fix", "--fix-to", "--severity", "--images", "--verbose", "--runtime"] {
        assert!(offered.iter().any(|o| o == option), "lint: no {option} in {offered:?}");
    }
    // Not the top level's words: the subcommands.
    assert!(!offered.iter().any(|o| o == "translate"), "{offered:?}");
    // After a global option and its value, and a prefix.
    let offered = bash_completes(&script, &["crio-pin", "--runtime", "containerd", "explain", "--ch"]);
    assert_eq!(offered, ["--check"]);
    let offered = bash_completes(&script, &["crio-pin", "lint", "--severity", ""]);
    assert_eq!(offered, ["error", "warning", "info"]);
    // The top level still completes.
    assert!(bash_completes(&script, &["crio-pin", "li"]).contains(&"lint".to_string()));
}
