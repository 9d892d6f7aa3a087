//! `-q` where a list is the answer: `config -q` the patterns (read back
//! by `--patterns` as the same list), `diff -q` the images whose pin
//! changes (`-NAME` lost, `+NAME` gained), `translate -q` the list written
//! for the target; each as the JSON says it, with the exit status of the
//! command without `-q`. (`explain -q` is tested with explain.)

use crate::util::*;

/// The patterns of `config --json` with `args`.
fn json_patterns(args: &[&str]) -> (i32, Vec<String>) {
    let out = run(&[args, &["config", "--json"]].concat());
    let v = json(&out);
    (code(&out), v["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap().to_string()).collect())
}

#[test]
fn config_q_prints_the_patterns_as_patterns_reads_them() {
    let node_args = NODE.to_vec();
    let containerd_args = containerd("containerd", &[]);
    let dockerd_args = cri_dockerd(&[]);
    let refused = ["--patterns", "lint-patterns.txt"];
    for args in [&node_args[..], &containerd_args, &dockerd_args, &refused] {
        let out = run(&[args, &["config", "-q"]].concat());
        let (status, patterns) = json_patterns(args);
        assert_eq!(code(&out), status, "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), patterns, "{args:?}");
        // Read back by --patterns: the same list.
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(dir.path(), "list.txt", stdout(&out));
        assert_eq!(json_patterns(&["--patterns", &file]).1, patterns, "{args:?}");
    }
    // A refused list still says why, on standard error.
    assert!(stderr(&run(&[&refused[..], &["config", "-q"]].concat())).contains("lone"));
}

#[test]
fn diff_q_prints_the_images_whose_pin_changes() {
    let change = ["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"];
    let out = run(&node(&[&change[..], &["-q"]].concat()));
    let v = json(&run(&node(&[&change[..], &["--json"]].concat())));
    let names = |key: &str, sign: char| -> Vec<String> {
        v[key].as_array().unwrap().iter().map(|c| format!("{sign}{}", c["names"][0].as_str().unwrap())).collect()
    };
    let want: Vec<String> = [names("lost", '-'), names("gained", '+')].concat();
    assert!(want.iter().any(|n| n.starts_with('-')) && want.iter().any(|n| n.starts_with('+')), "{want:?}");
    assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), want);
    assert_eq!(code(&out), 1, "a lost pin fails as without -q");
    // No change: nothing printed, exit 0.
    let out = run(&node(&["diff", "nginx", "--to-case-sensitive", "-q"]));
    assert_eq!((code(&out), stdout(&out)), (0, String::new()));
}

#[test]
fn translate_q_prints_the_written_list_alone() {
    for (args, to) in
        [(cri_dockerd(&[]), "crio"), (containerd("containerd", &[]), "crio"), (NODE.to_vec(), "containerd")]
    {
        let translate = [&args[..], &["translate", "--to", to]].concat();
        let full = run(&translate);
        let quiet = run(&[&translate[..], &["-q"]].concat());
        assert_eq!(code(&quiet), code(&full), "{translate:?}");
        let text = stdout(&full);
        let written = text.split_once("\n\n").expect("the list after a blank line").1;
        assert_eq!(stdout(&quiet), written, "{translate:?}");
        // Whole, it is the JSON's list.
        let whole = stdout(&run(&[&translate[..], &["-q", "--no-trunc"]].concat()));
        assert_eq!(json(&run(&[&translate[..], &["--json"]].concat()))["config"], whole.as_str());
    }
}
