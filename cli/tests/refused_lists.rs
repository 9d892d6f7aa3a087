//! Lists CRI-O refuses to load, and the list a reload loads.

use crate::util::*;

#[test]
fn config_exits_2_on_a_list_crio_refuses() {
    let out = golden("config-lone-star", &["-c", "bad/lone-star.conf", "-d", "none", "config"], 2);
    let err = stderr(&out);
    assert!(err.contains("bad/lone-star.conf:2: pattern 1 (\"*\")"), "{err}");
    assert!(err.contains("stock CRI-O panics") && err.contains("it does not start"), "{err}");
    assert!(err.contains("a SIGHUP reload that brings it ends the running daemon"), "{err}");
    assert!(err.contains("a runtime built on the crio-pin library refuses the list"), "{err}");
    assert!(err.contains("keeps its previous list"), "{err}");
    let out = run(&["-c", "bad/lone-star.conf", "-d", "none", "config", "--json"]);
    assert_eq!(code(&out), 2);
    let v = json(&out);
    assert_eq!(v["refused"][0]["code"], "lone-star");
    assert_eq!(v["refused"][0]["list"], "effective");
    assert_eq!(v["refused"][0]["source"], "bad/lone-star.conf:2");
    // From the environment, too; and --strict refuses what the library's strict mode refuses.
    let out = run_env(&["-c", "", "-d", "none", "config"], &[("CONTAINER_PINNED_IMAGES", "*")]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("env: pattern 0 (\"*\")"), "{}", stderr(&out));
    let out = run(&["-c", "", "-d", "none", "--pinned-images", "*pause", "--strict", "config"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("stock CRI-O takes this pattern; --strict refuses it"), "{}", stderr(&out));
    // lint speaks for stock CRI-O and for a runtime on the library, each for itself.
    let v = json(&run(&["-c", "bad/lone-star.conf", "-d", "none", "lint", "--json"]));
    let message = with_code(&v["findings"], "lone-star")[0]["message"].as_str().unwrap().to_string();
    assert!(!message.contains("crashes CRI-O at start-up or on reload"), "{message}");
    assert!(message.contains("stock CRI-O panics") && message.contains("crio-pin library refuses"), "{message}");
}

#[test]
fn explain_of_a_refused_list_explains_what_it_can() {
    // bad/lone-star.conf: ["quay.io/openshift-release-dev/*", "*"]; the
    // running CRI-O answered listing A with the list it had before.
    let args =
        ["-c", "bad/lone-star.conf", "-d", "none", "explain", "--images", "crio-listings/A/list.json", "--no-trunc"];
    let out = golden("explain-refused-list", &args, 2);
    let text = stdout(&out);
    assert!(text.contains("RUNTIME"), "the runtime's own flags are shown: {text}");
    assert!(text.contains("#0 \"quay.io/openshift-release-dev/*\""), "{text}");
    assert!(
        text.contains("The list in force is the one the runtime had before, which this tool cannot know"),
        "{text}"
    );
    assert!(stderr(&out).contains("a lone '*' is not a valid pattern"), "{}", stderr(&out));
    let mut with_check = args.to_vec();
    with_check.extend(["--check", "--json"]);
    let v = json(&golden("explain-refused-list-json", &with_check, 2));
    assert_eq!(v["refused"][0]["index"], 1);
    let etcd = image_named(&v, "quay.io/coreos/etcd:v3.5.9");
    assert_eq!((etcd["pinned"].as_bool(), etcd["runtime_pinned"].as_bool()), (Some(false), Some(true)));
    assert_eq!(etcd["check"], Value::Null, "nothing is compared with an unknown list");
    let evil = image_named(&v, "evil.example/quay.io/openshift-release-dev/x:1");
    assert_eq!(evil["pattern_index"], 0);
    // A lone '*': only the pause image is left to explain.
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "01-star.conf", pins_dropin(&["*"]));
    let conf_d = dir.path().to_str().unwrap();
    let args = ["-c", "crio-listings/crio.conf", "-d", conf_d, "explain", "--images", "crio-listings/A/list.json"];
    let out = run(&[&args[..], &["--no-trunc"]].concat());
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).contains("#1 \"registry.k8s.io/pause:3.10.1\""), "{}", stdout(&out));
}

#[test]
fn lint_and_config_check_the_list_a_reload_loads() {
    // The environment's list is fine; the files' list, which a SIGHUP
    // reload loads instead, has a lone '*'.
    let env = [("CONTAINER_PINNED_IMAGES", "quay.io/*,**")];
    let out = golden_env("lint-reload", &["-c", "", "-d", "reload/crio.conf.d", "lint"], &env, 1);
    assert!(stdout(&out).contains("1 error(s)"), "{}", stdout(&out));
    let v = json(&golden_env("lint-reload-json", &["-c", "", "-d", "reload/crio.conf.d", "lint", "--json"], &env, 1));
    let star = with_code(&v["findings"], "lone-star");
    assert_eq!(star.len(), 1, "{v}");
    assert_eq!((star[0]["list"].as_str(), star[0]["severity"].as_str()), (Some("after-reload"), Some("error")));
    assert_eq!(star[0]["source"], "reload/crio.conf.d/50-pins.conf:2");
    assert!(star[0]["message"].as_str().unwrap().contains("keeps the list it runs"), "{v}");
    let out = golden_env("config-reload", &["-c", "", "-d", "reload/crio.conf.d", "config"], &env, 2);
    assert!(stderr(&out).contains("a SIGHUP reload loads in place of"), "{}", stderr(&out));
    let v =
        json(&golden_env("config-reload-json", &["-c", "", "-d", "reload/crio.conf.d", "config", "--json"], &env, 2));
    assert_eq!(v["refused"][0]["list"], "after-reload", "{v}");
    // The flag, like the environment; and a files' pause image CRI-O would
    // reject on reload, behind --pause-image.
    let out = run(&["-c", "", "-d", "reload/crio.conf.d", "--pinned-images", "quay.io/x:1", "lint"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "10-pause.conf", "[crio.image]\npause_image = \"MyOrg/pause:1\"\n");
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--pause-image", "registry.k8s.io/pause:3.10.1", "config"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("rejects that reload"), "{}", stderr(&out));
    let v = json(&run(&["-c", "", "-d", conf_d, "--pause-image", "registry.k8s.io/pause:3.10.1", "lint", "--json"]));
    assert_eq!(with_code(&v["findings"], "bad-pause-image").len(), 1, "{v}");
    // Without a flag the files' list is the list, checked once.
    let out = run(&["-c", "", "-d", "reload/crio.conf.d", "lint", "--json"]);
    assert_eq!(with_code(&json(&out)["findings"], "lone-star").len(), 1);
}
