//! What the topic modules share: running the built binary on the
//! fixture trees (tests/data), golden files (tests/expected), the
//! fixtures' arguments, and the generators of large inputs.

pub mod generate;

pub use std::collections::BTreeSet;
pub use std::path::{Path, PathBuf};
pub use std::process::{Command, Output, Stdio};

pub use serde_json::Value;

pub const LISTING_F: [&str; 4] = ["-c", "crio-listings/crio.conf", "-d", "crio-listings/F/crio.conf.d"];

pub const BIN: &str = env!("CARGO_BIN_EXE_crio-pin");
/// The environment the tool reads: CRI-O's variables, its own choice of
/// runtime, crictl's endpoint, the width of its output (unset: the
/// tests' output is no terminal, so 100 columns) and whether it is
/// colored (unset: no color).
pub const CRIO_ENV: [&str; 10] = [
    "CONTAINER_CONFIG",
    "CONTAINER_CONFIG_DIR",
    "CONTAINER_PINNED_IMAGES",
    "CONTAINER_PAUSE_IMAGE",
    "CRIO_PIN_RUNTIME",
    "CONTAINER_RUNTIME_ENDPOINT",
    "COLUMNS",
    "NO_COLOR",
    "CLICOLOR_FORCE",
    "CLICOLOR",
];

pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Runs the binary in tests/data (so paths in the output are short and
/// stable) with none of the variables it reads set, then `env`.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(data()).stdin(Stdio::null());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run crio-pin");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "crio-pin panicked on {args:?}: {stderr}");
    out
}

pub fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// Each explained image's first name and whether it is pinned.
pub fn first_name_and_pinned(v: &Value) -> Vec<(&str, bool)> {
    let images = v["images"].as_array().expect("explain --json has an images array");
    images.iter().map(|i| (i["names"][0].as_str().unwrap(), i["pinned"].as_bool().unwrap())).collect()
}

/// Checks the exit status, then compares status, stdout and stderr with
/// tests/expected/NAME.txt.
pub fn golden(name: &str, args: &[&str], want: i32) -> Output {
    golden_env(name, args, &[], want)
}

pub fn golden_env(name: &str, args: &[&str], env: &[(&str, &str)], want: i32) -> Output {
    let out = run_env(args, env);
    assert_eq!(
        code(&out),
        want,
        "exit status of crio-pin {args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    let got = format!(
        "$ crio-pin {}\nexit status {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        code(&out),
        stdout(&out),
        stderr(&out)
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected").join(format!("{name}.txt"));
    if std::env::var_os("CRIO_PIN_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
    } else {
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (CRIO_PIN_BLESS=1 writes it)", path.display()));
        assert!(want == got, "{name}: output differs from {}\n--- got\n{got}", path.display());
    }
    out
}

pub const NODE: [&str; 4] = ["--config", "node/crio.conf", "--config-dir", "node/crio.conf.d"];

pub fn node(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = NODE.to_vec();
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// The warnings or findings of one code.
pub fn with_code<'v>(items: &'v Value, code: &str) -> Vec<&'v Value> {
    items.as_array().unwrap().iter().filter(|item| item["code"] == code).collect()
}

pub fn codes(findings: &Value) -> BTreeSet<String> {
    findings.as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_string()).collect()
}

pub fn listing_f(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = LISTING_F.to_vec();
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// The explained image whose first name is `name`.
pub fn image_named(v: &Value, name: &str) -> Value {
    v["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["names"][0] == name)
        .unwrap_or_else(|| panic!("{name}: {v}"))
        .clone()
}

/// Writes `contents` to DIR/NAME and returns its path as a string.
pub fn write_file(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_str().unwrap().to_string()
}

/// containerd's fixture: config.toml and the conf.d file it imports.
pub fn containerd(runtime: &str, rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = vec!["--runtime", runtime.to_string().leak(), "-c", "containerd/config.toml"];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// cri-dockerd's `--pinned-images` values, one a line.
pub fn cri_dockerd(rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> = vec!["--runtime", "cri-dockerd", "--patterns", "cri-dockerd/patterns.txt"];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// (code, suggestion) of each finding, in order.
pub fn findings(v: &Value) -> Vec<(String, Option<String>)> {
    let list = v["findings"].as_array().unwrap();
    list.iter()
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["suggestion"].as_str().map(str::to_string)))
        .collect()
}

/// A drop-in setting pinned_images to `pins`.
pub fn pins_dropin(pins: &[&str]) -> String {
    let items: Vec<String> = pins.iter().map(|p| format!("{p:?}")).collect();
    format!("[crio.image]\npinned_images = [{}]\n", items.join(", "))
}

/// The patterns of `config --json` on a drop-in directory, without a main file.
pub fn dropin_patterns(conf_d: &Path) -> Vec<String> {
    let out = run(&["--config", "", "--config-dir", conf_d.to_str().unwrap(), "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    json(&out)["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap().to_string()).collect()
}

/// Runs the binary as `run` does, under `ulimit` limits (CPU seconds,
/// kilobytes of address space): a regression that loops or reads without
/// end fails instead of taking the machine.
pub fn run_limited(args: &[&str], cpu_seconds: u32, memory_kb: u64) -> Output {
    let limits = format!("ulimit -t {cpu_seconds} && ulimit -v {memory_kb} && exec \"$0\" \"$@\"");
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(limits).arg(BIN).args(args).current_dir(data()).stdin(Stdio::null());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    cmd.output().expect("run crio-pin under sh")
}
