//! Test support: Go's own libraries as the oracles of the CLI's Go rules
//! (the programs in `cli/tests/go`: `path/filepath` for `go_filepath`,
//! containers/image's reference parser for `images::qualify`), run with
//! the Go toolchain at test time, so the answers are Go's, never copied.

use std::io::Write;
use std::process::{Command, Stdio};

/// Go's version and the output of `go run PROGRAM` (a file or a package
/// directory of `cli/tests/go`) fed `input`; None, said on standard error
/// past cargo's capture, where Go cannot run it (no toolchain, no module
/// proxy), unless CRIO_PIN_REQUIRE_GO is set (`make test` sets it: Go is
/// one of the project's tools), which fails instead. `what` names the
/// comparison in that line.
pub fn run(what: &str, program: &str, input: &str) -> Option<(String, String)> {
    let path = format!("{}/tests/go/{program}", env!("CARGO_MANIFEST_DIR"));
    let version = match Command::new("go").arg("version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => return skipped(what, &format!("`go version` failed: {}", String::from_utf8_lossy(&out.stderr))),
        Err(e) => return skipped(what, &format!("no go to run ({e})")),
    };
    // A package directory runs in itself, with its go.mod.
    let (dir, target) = match std::path::Path::new(&path).is_dir() {
        true => (path.as_str(), "."),
        false => (".", path.as_str()),
    };
    let child = Command::new("go")
        .args(["run", target])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return skipped(what, &format!("go run {path} did not start ({e})")),
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // Written from a thread: Go answers while it reads.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("go run ends");
    let written = writer.join().unwrap();
    if !out.status.success() || written.is_err() {
        return skipped(what, &format!("go run {path} failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Some((version, String::from_utf8(out.stdout).expect("the programs write UTF-8")))
}

fn skipped<T>(what: &str, why: &str) -> Option<T> {
    if std::env::var_os("CRIO_PIN_REQUIRE_GO").is_some() {
        panic!("{what} must be compared with Go here (CRIO_PIN_REQUIRE_GO), but: {why}");
    }
    let line = format!("SKIPPED: {what} compared with Go: {why}; install Go (README) to run it\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    None
}
