//! `--json`: every output matches its documented schema (cli/tests/schema, docs/json.md).

use crate::util::*;

/// Validates `v`, the JSON of `command`, against its schema; and every
/// code in it against the codes its manual page lists (`check`: each part
/// against its own command's page).
fn check_json(command: &str, v: &Value, what: &str, pages: &Path) {
    let root = schema(command);
    let mut errors = Vec::new();
    validate(&root, &root, v, "$", &mut errors);
    assert!(errors.is_empty(), "{what}: {command} --json does not match its schema:\n{}", errors.join("\n"));
    if command == "check" {
        for part in ["config", "lint", "explain"] {
            codes_listed(part, &v[part], what, pages);
        }
    } else {
        // `lint --fix --json`'s codes are lint's.
        codes_listed(command.trim_end_matches("-fix"), v, what, pages);
    }
}

/// `v`, the JSON of `command`, matches its schema: for the outputs the
/// runs below cannot make (a fake runtime's, in `check.rs`).
pub fn assert_schema(command: &str, v: &Value) {
    let root = schema(command);
    let mut errors = Vec::new();
    validate(&root, &root, v, "$", &mut errors);
    assert!(errors.is_empty(), "{command} --json does not match its schema:\n{}", errors.join("\n"));
}

/// The command whose schema `args` answers by: `lint --fix` has its own.
fn command_of(args: &[&str]) -> &'static str {
    let command =
        ["config", "lint", "explain", "diff", "translate", "check"].into_iter().find(|c| args.contains(c)).unwrap();
    match command {
        "lint" if args.iter().any(|a| a.starts_with("--fix")) => "lint-fix",
        _ => command,
    }
}

/// Every code of `v`, the JSON of `command`, is listed in its manual page.
fn codes_listed(command: &str, v: &Value, what: &str, pages: &Path) {
    let page = std::fs::read_to_string(pages.join(format!("crio-pin-{command}.1"))).unwrap();
    let config_page = std::fs::read_to_string(pages.join("crio-pin-config.1")).unwrap();
    for key in ["warnings", "findings", "causes", "refused", "changes", "left"] {
        for item in v[key].as_array().into_iter().flatten() {
            let code = item["code"].as_str().unwrap();
            let listed = format!(".TP\n\\fB{}\\fR\n", code.replace('-', "\\-"));
            let listed_in = if key == "refused" { &config_page } else { &page };
            assert!(listed_in.contains(&listed), "{what}: code {code} ({key}) is not listed in its manual page");
        }
    }
}

fn schema(command: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/schema/{command}.schema.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The JSON Schema keywords the schemas use: $ref (to $defs, or to another
/// command's schema, `lint.schema.json`), type, enum, minimum, properties,
/// required, additionalProperties, items.
fn validate(root: &Value, schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(command) = schema["$ref"].as_str().and_then(|r| r.strip_suffix(".schema.json")) {
        let other = self::schema(command);
        return validate(&other, &other, v, at, errors);
    }
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.strip_prefix("#/$defs/").expect("a $ref into $defs");
        return validate(root, &root["$defs"][name], v, at, errors);
    }
    let type_of = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
            _ => panic!("type: {types}"),
        };
        if !allowed.contains(&type_of(v)) {
            return errors.push(format!("{at}: {} is not {allowed:?}", type_of(v)));
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        if !values.contains(v) {
            errors.push(format!("{at}: {v} is not one of {values:?}"));
        }
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_i64(), v.as_i64()) {
        if n < min {
            errors.push(format!("{at}: {n} < {min}"));
        }
    }
    if let Value::Object(map) = v {
        let properties = schema["properties"].as_object();
        for key in schema["required"].as_array().into_iter().flatten() {
            if !map.contains_key(key.as_str().unwrap()) {
                errors.push(format!("{at}: no {key}"));
            }
        }
        for (key, value) in map {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => validate(root, sub, value, &format!("{at}.{key}"), errors),
                None if schema["additionalProperties"] == false => {
                    errors.push(format!("{at}: undocumented key {key:?}"))
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(sub)) = (v, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            validate(root, sub, item, &format!("{at}[{i}]"), errors);
        }
    }
}

#[test]
fn every_json_output_matches_its_documented_schema() {
    let pages = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", pages.path().to_str().unwrap()])), 0);
    // The golden outputs.
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected");
    let mut checked = 0;
    for entry in std::fs::read_dir(&expected).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let command_line = text.lines().next().unwrap();
        if !command_line.contains(" --json") {
            continue;
        }
        let command = command_of(&command_line.split(' ').collect::<Vec<_>>());
        let out = &text[text.find("--- stdout\n").unwrap() + 11..text.find("--- stderr\n").unwrap()];
        let v: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        check_json(command, &v, &path.display().to_string(), pages.path());
        checked += 1;
    }
    assert!(checked >= 9, "{checked} golden JSON outputs");
    // Real output: every command, every source kind, refused lists, reload
    // lists, artifacts, disagreements, an empty listing.
    let dir = tempfile::tempdir().unwrap();
    let crlf = write_file(dir.path(), "crlf.txt", "docker.io/library/nginx:1.25\r\n*\r\n");
    let empty = write_file(dir.path(), "empty.json", "{\"images\": []}");
    let env = [("CONTAINER_PINNED_IMAGES", "quay.io/*,**"), ("CONTAINER_PAUSE_IMAGE", "registry.k8s.io/pause:3.9")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let runs: Vec<(Vec<&str>, Env<'_>)> = vec![
        (node(&["config"]), &[]),
        (node(&["config"]), &env),
        (vec!["-c", "keys/crio.conf", "-d", "keys/crio.conf.d", "config"], &[]),
        (vec!["-c", "", "-d", "reload/crio.conf.d", "config"], &env),
        (vec!["--config", "node/crio.conf", "--config-dir", "no/such/dir", "config"], &[]),
        (vec!["--patterns", &crlf, "config"], &[]),
        (vec!["--patterns", "lint-patterns.txt", "--strict", "lint"], &[]),
        (node(&["lint"]), &env),
        (node(&["lint", "--fix"]), &env),
        (vec!["--patterns", "lint-patterns.txt", "lint", "--fix"], &[]),
        (vec!["-c", "", "-d", "reload/crio.conf.d", "lint"], &env),
        (listing_f(&["lint", "--images", "crio-listings/F/list.json"]), &[]),
        (node(&["explain", "--images", "node/images.json", "--check"]), &[]),
        (node(&["explain", "nginx:1.25", "Nginx:1"]), &env),
        (listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]), &[]),
        (vec!["-c", "bad/lone-star.conf", "-d", "none", "explain", "--images", "crio-listings/A/list.json"], &[]),
        (node(&["explain", "--images", &empty, "--check"]), &[]),
        (node(&["diff", "--images", "node/images.json", "--dropin", "changes/99-local.conf"]), &[]),
        (node(&["diff", "--images", "node/images.json", "--new-patterns", "changes/new-patterns.txt"]), &env),
        (listing_f(&["diff", "--images", "crio-listings/F/list.json", "--to-case-sensitive"]), &[]),
        (vec!["--runtime", "containerd", "-c", "containerd/config.toml", "translate", "--to", "crio"], &[]),
        (
            vec![
                "--runtime",
                "cri-dockerd",
                "--patterns",
                "cri-dockerd/patterns.txt",
                "translate",
                "--to",
                "crio",
                "--images",
                "cri-dockerd/images.json",
            ],
            &[],
        ),
        (node(&["translate", "--to", "containerd"]), &[]),
        (node(&["check", "--images", "node/images.json"]), &env),
        (
            vec!["--runtime", "cri-dockerd", "--pinned-image-labels", "pinned=true,io.cri.containerd.pinned", "lint"],
            &[],
        ),
        (vec!["--runtime", "containerd", "-c", "labels/config.toml", "lint", "--images", "labels/ctr-images.txt"], &[]),
        (
            vec![
                "--runtime",
                "containerd",
                "-c",
                "labels/config.toml",
                "explain",
                "--images",
                "labels/crictl-containerd.json",
                "--images",
                "labels/ctr-images.txt",
                "--check",
            ],
            &[],
        ),
        (
            vec![
                "--runtime",
                "containerd",
                "-c",
                "labels/config.toml",
                "diff",
                "--images",
                "labels/ctr-images.txt",
                "--new-patterns",
                "labels/new-patterns.txt",
            ],
            &[],
        ),
        (listing_f(&["check", "--images", "crio-listings/F/list.json"]), &[]),
        (vec!["-c", "bad/lone-star.conf", "-d", "none", "check", "--images", "crio-listings/A/list.json"], &[]),
        (
            vec![
                "-c",
                "../../../examples/crio/crio.conf",
                "-d",
                "../../../examples/crio/crio.conf.d",
                "check",
                "--images",
                "../../../examples/data/node-images.json",
                "--kubelet-config",
                "../../../examples/kubelet/config.yaml",
            ],
            &[],
        ),
    ];
    for (args, env) in runs {
        let command = command_of(&args);
        let out = run_env(&[&args[..], &["--json"]].concat(), env);
        assert!(code(&out) != 2 || !out.stdout.is_empty(), "{args:?}: {}", stderr(&out));
        check_json(command, &json(&out), &format!("{args:?}"), pages.path());
    }
}

/// Every key of every schema is documented in docs/json.md: in the
/// command's section, or among the shared objects before the sections.
#[test]
fn docs_json_md_names_every_key_of_the_schemas() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/json.md")).unwrap();
    fn keys(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().cloned());
                }
                map.values().for_each(|v| keys(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    for command in ["config", "lint", "lint-fix", "explain", "diff", "check"] {
        let mut all = BTreeSet::new();
        keys(&schema(command), &mut all);
        let section = doc
            .split("\n## ")
            .find(|s| s.starts_with(&format!("`{} --json`", command.replace('-', " --"))))
            .unwrap_or_else(|| panic!("docs/json.md has no section for {command} --json"));
        let shared = doc.split("\n## ").next().unwrap();
        for key in all {
            let key = format!("`{key}`");
            assert!(
                section.contains(&key) || shared.contains(&key),
                "docs/json.md, {command}: {key} is not documented"
            );
        }
    }
}

#[test]
fn other_runtimes_json_matches_the_schemas_and_manual_pages() {
    let pages = tempfile::tempdir().unwrap();
    assert_eq!(code(&run(&["generate-man", pages.path().to_str().unwrap()])), 0);
    let refused = ["--runtime", "containerd-normalized", "-c", "containerd/refused.toml"];
    let runs: Vec<Vec<&str>> = vec![
        containerd("containerd", &["config"]),
        containerd("containerd-normalized", &["lint"]),
        containerd("containerd-normalized", &["lint", "--fix"]),
        cri_dockerd(&["lint", "--fix"]),
        vec!["--runtime", "containerd", "-c", "containerd/default.toml", "config"],
        [&refused[..], &["config"]].concat(),
        [&refused[..], &["lint"]].concat(),
        [&refused[..], &["explain", "--images", "containerd/images.json", "--check"]].concat(),
        containerd("containerd", &["explain", "--images", "containerd/images.json", "--check"]),
        containerd("containerd-normalized", &["explain", "--images", "containerd/images.json", "--check"]),
        containerd(
            "containerd",
            &["diff", "--images", "containerd/images.json", "--new-patterns", "containerd/new-pins.txt"],
        ),
        cri_dockerd(&["config"]),
        cri_dockerd(&["lint"]),
        cri_dockerd(&["explain", "--images", "cri-dockerd/images.json", "--check"]),
        vec![
            "--runtime",
            "cri-dockerd",
            "--pinned-images",
            "x:1",
            "explain",
            "--images",
            "cri-dockerd/images.json",
            "--check",
        ],
        cri_dockerd(&["diff", "--images", "cri-dockerd/images.json", "--new-patterns", "cri-dockerd/new-pins.txt"]),
        containerd("containerd", &["check", "--images", "containerd/images.json"]),
        cri_dockerd(&["check", "--images", "cri-dockerd/images.json"]),
    ];
    for args in runs {
        let command = command_of(&args);
        let out = run(&[&args[..], &["--json"]].concat());
        assert!(!out.stdout.is_empty(), "{args:?}: {}", stderr(&out));
        check_json(command, &json(&out), &format!("{args:?}"), pages.path());
    }
}
