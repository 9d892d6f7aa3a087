//! `diff`: what a new drop-in, mode or list would change.

use crate::util::*;

#[test]
fn diff_previews_a_new_dropin() {
    let args = node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"]);
    golden("diff-dropin", &args, 1);
    let mut json_args = args.clone();
    json_args.push("--json");
    let v = json(&golden("diff-dropin-json", &json_args, 1));
    assert_eq!(v["gained"].as_array().unwrap().len(), 1);
    assert_eq!(v["gained"][0]["pattern"], "quay.io/openshift-release-dev/*");
    assert_eq!(v["lost"][0]["decided_by"], "registry.example/team/app:2.0");
    // Under a new name it sorts first and changes nothing: 99-local.conf still wins.
    let v = json(&run(&node(&[
        "diff",
        "--images",
        "node/images.json",
        "--dropin",
        "changes/99-local.conf",
        "--as",
        "00-early.conf",
        "--json",
    ])));
    assert_eq!((v["gained"].as_array().unwrap().len(), v["lost"].as_array().unwrap().len()), (0, 0));
}

#[test]
fn diff_previews_a_mode_or_a_new_list() {
    let list = [
        "-c",
        "crio-listings/crio.conf",
        "-d",
        "crio-listings/A/crio.conf.d",
        "diff",
        "--images",
        "crio-listings/A/list.json",
    ];
    let mut anchored = list.to_vec();
    anchored.push("--to-anchor-globs");
    golden("diff-anchor", &anchored, 1);
    let mut case = list.to_vec();
    case.extend(["--to-case-sensitive", "--json"]);
    let v = json(&run(&case));
    assert_eq!(v["lost"][0]["decided_by"], "QUAY.IO/openshift-release-dev/upper:1");
    let v = json(&golden(
        "diff-new-patterns",
        &node(&["diff", "--images", "node/images.json", "--new-patterns", "changes/new-patterns.txt", "--json"]),
        1,
    ));
    assert_eq!(v["gained"].as_array().unwrap().len(), 2);
    assert_eq!(run(&node(&["diff", "--images", "node/images.json"])).status.code(), Some(2));
}

#[test]
fn diff_as_takes_a_plain_file_name() {
    // Any of these placed the drop-in first in the walk: 0 gained, 0 lost.
    for name in
        ["./99-local.conf", "node/crio.conf.d/99-local.conf", "../99-local.conf", "/etc/99-local.conf", "", ".", ".."]
    {
        let out =
            run(&node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf", "--as", name]));
        assert_eq!(code(&out), 2, "--as {name:?}: {}{}", stdout(&out), stderr(&out));
        assert!(
            stderr(&out).contains("--as takes the file name the drop-in would have inside the drop-in directory"),
            "--as {name:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
    let v = json(&run(&node(&[
        "diff",
        "--images",
        "node/images.json",
        "--dropin",
        "changes/99-local.conf",
        "--as",
        "99-local.conf",
        "--json",
    ])));
    assert_eq!((v["gained"].as_array().unwrap().len(), v["lost"].as_array().unwrap().len()), (1, 1), "{v}");
}

#[test]
fn diff_exits_1_when_an_image_loses_its_pin_and_0_on_gains_alone() {
    let dir = tempfile::tempdir().unwrap();
    let one = write_file(dir.path(), "one.txt", "docker.io/library/nginx:1.25\n");
    let two = write_file(dir.path(), "two.txt", "docker.io/library/nginx:1.25\ndocker.io/library/busybox:1.36\n");
    let diff = |from: &str, to: &str| {
        let out = run(&["--patterns", from, "diff", "nginx:1.25", "busybox:1.36", "--new-patterns", to, "--json"]);
        let v = json(&out);
        (code(&out), v["gained"].as_array().unwrap().len(), v["lost"].as_array().unwrap().len())
    };
    assert_eq!(diff(&one, &two), (0, 1, 0), "a gain alone");
    assert_eq!(diff(&two, &one), (1, 0, 1), "a pin lost");
    assert_eq!(diff(&one, &one), (0, 0, 0), "no change");
    // The text says the same, with the same status.
    let out = run(&["--patterns", &two, "diff", "busybox:1.36", "--new-patterns", &one]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stdout(&out).contains("1 image(s) lose their pin"), "{}", stdout(&out));
}
