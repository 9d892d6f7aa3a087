//! The `crio-pin` tool's times, each beside its target: decoding a
//! drop-in of 10,000, 50,000 and 1,000,000 `pinned_images` digest
//! references (`config --json`), beside CRI-O's own decoder on the same
//! file (BurntSushi/toml, `tools/bench/crio-decode`, when Go is
//! installed), and `explain --check --json` of 50,000 crictl images
//! against 100,000 patterns. Best of three runs of the built release
//! binary each; a figure, not a test (`make bench` runs it).
//!
//! ```text
//! cargo bench -p crio-pin-cli --bench times     # builds the binary too
//! CRIO_PIN_BIN=/path/to/crio-pin cargo bench -p crio-pin-cli --bench times   # another build
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// The inputs the integration tests check, built by the same code.
#[path = "../tests/util/generate.rs"]
mod generate;

/// CRI-O's decoder on the 1,000,000-entry drop-in as measured on the
/// project's 2-core machine: the target when Go is not there to measure it.
const CRIO_1M: Duration = Duration::from_millis(12_600);

fn main() {
    let bin = binary();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let crio_decode = crio_decoder(dir.path());
    let mut rows = Vec::new();
    for entries in [10_000, 50_000, 1_000_000] {
        let conf_d = dir.path().join(format!("conf-{entries}"));
        std::fs::create_dir(&conf_d).unwrap();
        let dropin = conf_d.join("50-pinned-images");
        std::fs::write(&dropin, generate::openshift_dropin(entries)).unwrap();
        let empty = dir.path().join("empty.conf");
        std::fs::write(&empty, "").unwrap();
        let args = ["--config", path(&empty), "--config-dir", path(&conf_d), "config", "--json"];
        // A million references hold more pattern text than a set takes
        // (MAX_PATTERN_BYTES): the tool decodes and prints the whole list,
        // and exits 2 saying a runtime on the library refuses it.
        let refused = entries * generate::openshift_reference(0).len() > crio_pin::MAX_PATTERN_BYTES;
        let status = if refused { 2 } else { 0 };
        let crio = crio_decode.as_ref().map(|go| best_of_three(go, &[path(&dropin)], 0));
        // Well under a second for what nodes carry; no slower than CRI-O.
        let target = if entries <= 50_000 { Duration::from_secs(1) } else { crio.unwrap_or(CRIO_1M) };
        let what = format!("decode {entries} pinned_images (config --json)");
        rows.push((what, best_of_three(&bin, &args, status), target, crio));
        std::fs::remove_dir_all(&conf_d).unwrap();
    }
    let (patterns, images) = explain_inputs(dir.path());
    let args = ["--patterns", path(&patterns), "explain", "--images", path(&images), "--check", "--json"];
    let what = "explain --check, 100000 patterns x 50000 images".to_string();
    rows.push((what, best_of_three(&bin, &args, 0), Duration::from_secs(1), None));

    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let secs = |d: &Duration| format!("{:.2} s", d.as_secs_f64());
    println!("| {:width$} | crio-pin | target | CRI-O's decoder |", "what");
    println!("|{}|---:|---:|---:|", "-".repeat(width + 2));
    let mut missed = 0;
    for (what, took, target, crio) in &rows {
        let ok = took <= target;
        missed += usize::from(!ok);
        let verdict = if ok { "" } else { " **MISSED**" };
        let crio = crio.as_ref().map_or("–".to_string(), secs);
        println!("| {what:width$} | {}{verdict} | ≤ {} | {crio} |", secs(took), secs(target));
    }
    if crio_decode.is_none() {
        println!("(no Go: CRI-O's decoder not run; its time on the project's machine, 12.6 s, is the 1M target)");
    }
    println!("{}", if missed == 0 { "Every target met.".to_string() } else { format!("{missed} target(s) MISSED.") });
}

/// Builds `tools/bench/crio-decode` into `dir`: `None` (said) without Go
/// or when it does not build.
fn crio_decoder(dir: &Path) -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/bench/crio-decode");
    let out = dir.join("crio-decode");
    let built = Command::new("go").arg("build").arg("-o").arg(&out).current_dir(&source).status();
    match built {
        Ok(status) if status.success() => Some(out),
        _ => {
            eprintln!("times: could not build {} (needs Go): CRI-O's decoder not measured", source.display());
            None
        }
    }
}

/// `CRIO_PIN_BIN`, or the binary cargo built for this benchmark (with the
/// bench profile, which is the release profile).
fn binary() -> PathBuf {
    let bin =
        std::env::var_os("CRIO_PIN_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_crio-pin")), PathBuf::from);
    if !bin.is_file() {
        eprintln!(
            "times: no {}: build it with `cargo build --release -p crio-pin-cli`, or set CRIO_PIN_BIN to a \
             crio-pin binary",
            bin.display()
        );
        std::process::exit(2);
    }
    bin
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// 100,000 patterns and a crictl listing of 50,000 images, every third
/// one pinned by its exact pattern.
fn explain_inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let (p, j) = (dir.join("patterns.txt"), dir.join("images.json"));
    std::fs::write(&p, generate::pattern_list(100_000)).unwrap();
    std::fs::write(&j, generate::crictl_listing(50_000)).unwrap();
    (p, j)
}

/// The shortest of three runs of `bin` (the machine may be busy); each
/// must exit with `status`.
fn best_of_three(bin: &Path, args: &[&str], status: i32) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            let out = Command::new(bin)
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()));
            let took = start.elapsed();
            assert_eq!(
                out.status.code(),
                Some(status),
                "{} {args:?}: {}",
                bin.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            took
        })
        .min()
        .unwrap()
}
