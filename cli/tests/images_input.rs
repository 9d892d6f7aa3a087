//! `--images`: crictl listings, plain names, and what is refused.

use crate::util::*;

#[test]
fn images_as_a_json_array_are_crictl_images() {
    // `crictl images -o json | jq .images`
    let dir = tempfile::tempdir().unwrap();
    let listing: Value = serde_json::from_slice(&std::fs::read(data().join("node/images.json")).unwrap()).unwrap();
    let array = write_file(dir.path(), "array.json", serde_json::to_vec_pretty(&listing["images"]).unwrap());
    let object = json(&run(&node(&["explain", "--images", "node/images.json", "--check", "--json"])));
    let out = run(&node(&["explain", "--images", &array, "--check", "--json"]));
    assert_eq!(code(&out), 1, "the same two disagreements: {}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["images"], object["images"]);
    assert_eq!(v["images"][0]["names"][0], "registry.k8s.io/pause:3.10.1");
    assert_eq!(v["images"][0]["pinned"], true);
}

#[test]
fn images_that_are_neither_crictl_json_nor_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // (file, contents, what stderr names)
        ("fields.txt", "registry.k8s.io/pause:3.10.1\n  \"id\": \"6210c0bf\",\n", ":2: "),
        ("yaml.txt", "images:\n- id: 6210c0bf\n", ":1: "),
        ("id.txt", "6210c0bf05396716df932f0729df69de0533933e5ad9871fd07b61811c4c28df\n", ":1: "),
        ("strings.json", "[\"registry.k8s.io/pause:3.10.1\"]", ":1:"),
        ("numbers.json", "[1, 2]", ":1:"),
        ("no-id.json", "[{\"repoTags\": [\"registry.k8s.io/pause:3.10.1\"]}]", ":1:"),
        ("one-image.json", "{\"id\": \"6210c0bf\", \"repoTags\": [\"registry.k8s.io/pause:3.10.1\"]}", ":1:"),
    ];
    for (name, contents, at) in cases {
        let path = write_file(dir.path(), name, contents);
        let out = run(&node(&["explain", "--images", &path]));
        assert_eq!(code(&out), 2, "{name}: {}{}", stdout(&out), stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("{path}{at}")), "{name}: {err}");
        assert!(err.contains("crictl images -o json") && err.contains("one a line"), "{name}: {err}");
    }
    // crictl's table, as `crictl images` (and `--digests`) print it, is named as such.
    for (name, header) in [
        ("table.txt", "IMAGE                     TAG     IMAGE ID        SIZE"),
        ("digests.txt", "IMAGE  TAG  DIGEST  IMAGE ID  SIZE"),
    ] {
        let path =
            write_file(dir.path(), name, format!("\n{header}\nregistry.k8s.io/pause     3.10.1  6210c0bf  321kB\n"));
        for command in ["explain", "lint"] {
            let out = run(&node(&[command, "--images", &path]));
            assert_eq!(code(&out), 2, "{name}: {}{}", stdout(&out), stderr(&out));
            let err = stderr(&out);
            assert!(err.contains(&format!("{path}:2: this looks like `crictl images` without `-o json`")), "{err}");
        }
    }
    // Still names one a line: comments, blank lines, surrounding blanks.
    let names = write_file(dir.path(), "names.txt", "# node-1\n\n  registry.k8s.io/pause:3.10.1  \nnginx:1.25\n");
    let v = json(&run(&node(&["explain", "--images", &names, "--json"])));
    assert_eq!(
        first_name_and_pinned(&v),
        [("registry.k8s.io/pause:3.10.1", true), ("docker.io/library/nginx:1.25", true)]
    );
}

#[test]
fn short_names_keep_the_case_of_their_tag() {
    let pinned = ["--config", "", "--config-dir", "none", "--pinned-images", "docker.io/library/nginx:V1"];
    let with = |rest: &[&'static str]| pinned.iter().chain(rest).copied().collect::<Vec<&str>>();
    let v = json(&run(&with(&["--case-sensitive", "explain", "nginx:V1", "myorg/app:V1", "--json"])));
    assert_eq!(first_name_and_pinned(&v), [("docker.io/library/nginx:V1", true), ("docker.io/myorg/app:V1", false)]);
    let out = run(&with(&["explain", "nginx:V1"]));
    assert!(
        stdout(&out).contains("\"nginx:V1\" is stored by CRI-O as \"docker.io/library/nginx:V1\""),
        "{}",
        stdout(&out)
    );
    let v = json(&run(&with(&["diff", "nginx:V1", "--to-case-sensitive", "--json"])));
    assert_eq!(v["lost"], serde_json::json!([]), "{v}");
    // CRI-O refuses to pull an upper-case repository: no image can have it.
    let out = run(&with(&["explain", "Nginx:V1"]));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let note = "note: Nginx:V1: CRI-O refuses to pull an image by this name (repository name must be lowercase)";
    assert!(stdout(&out).contains(note), "{}", stdout(&out));
    let v = json(&run(&with(&["explain", "Nginx:V1", "--json"])));
    assert_eq!(v["images"][0]["names"][0], "Nginx:V1");
    assert_eq!(v["images"][0]["refused_name"], "repository name must be lowercase");
    // Not an image reference whatever its case: refused.
    let out = run(&with(&["explain", "\"id\": \"abc\""]));
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains(r#""\"id\": \"abc\"": not an image name"#), "{}", stderr(&out));
    // lint's suggestion keeps the tag's case too.
    let v = json(&run(&["--pinned-images", "nginx:V1", "--case-sensitive", "-c", "", "-d", "none", "lint", "--json"]));
    let found = with_code(&v["findings"], "not-fully-qualified");
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!(found[0]["suggestion"], "docker.io/library/nginx:V1");
}

/// Runs crio-pin with `input` on its standard input.
fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(data()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input).unwrap();
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

#[test]
fn an_empty_listing_is_a_valid_answer() {
    // A node with no images: crictl answers {"images": []}.
    let dir = tempfile::tempdir().unwrap();
    let files = [
        write_file(dir.path(), "listing.json", "{\"images\": []}\n"),
        write_file(dir.path(), "array.json", "[]"),
        write_file(dir.path(), "comments.txt", "# node-1: nothing pulled yet\n\n"),
    ];
    for file in &files {
        for check in [&[][..], &["--check"][..]] {
            let args = [&node(&["explain", "--images", file.as_str()])[..], check].concat();
            let out = run(&args);
            assert_eq!(code(&out), 0, "{args:?}: {}{}", stdout(&out), stderr(&out));
            let text = stdout(&out);
            assert!(!text.contains("PINNED"), "no table for no image: {text}");
            let summary =
                if check.is_empty() { "0 image(s), 0 pinned\n" } else { "0 image(s), 0 pinned; 0 disagreement" };
            assert!(text.contains(summary), "{args:?}: {text}");
            let v = json(&run(&[&args[..], &["--json"]].concat()));
            assert_eq!(v["images"], serde_json::json!([]), "{v}");
            assert_eq!((v["disagreements"].as_u64(), v["undecided"].as_u64()), (Some(0), Some(0)));
        }
        // diff: nothing gains or loses a pin.
        let out = run(&node(&["diff", "--images", file.as_str(), "--to-anchor-globs", "--json"]));
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(
            (json(&out)["gained"].as_array().map(Vec::len), json(&out)["lost"].as_array().map(Vec::len)),
            (Some(0), Some(0))
        );
    }
    let out = run_with_stdin(&node(&["explain", "--images", "-", "--check", "--json"]), b"{\"images\": []}");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["images"], serde_json::json!([]));
    // No input at all is still a usage error.
    assert_eq!(code(&run(&node(&["explain"]))), 2);
}

#[test]
fn an_empty_file_is_a_producer_that_printed_nothing() {
    // crictl prints {"images": []} for a node without images: a gate must
    // not pass on a file its producer left empty.
    let dir = tempfile::tempdir().unwrap();
    for (name, contents, says) in
        [("empty.json", "", "nothing (zero bytes)"), ("blank.json", " \n\t\n", "only whitespace")]
    {
        let path = write_file(dir.path(), name, contents);
        for args in [
            node(&["explain", "--images", &path, "--check"]),
            node(&["diff", "--images", &path, "--to-anchor-globs"]),
            node(&["lint", "--images", &path]),
        ] {
            let out = run(&args);
            assert_eq!(code(&out), 2, "{args:?}: {}", stdout(&out));
            let err = stderr(&out);
            assert!(err.contains(&format!("{path} has {says}: the command that produced it printed nothing")), "{err}");
        }
        let out = run_with_stdin(&node(&["explain", "--images", "-", "--check"]), contents.as_bytes());
        assert_eq!(code(&out), 2, "{}", stdout(&out));
        assert!(stderr(&out).contains(&format!("standard input has {says}")), "{}", stderr(&out));
    }
}
