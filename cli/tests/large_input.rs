//! Large inputs: lists and listings of hundreds of thousands of entries, and the bound on what is read.

use crate::util::*;

#[test]
fn a_100000_pattern_list_and_50000_images() {
    let dir = tempfile::tempdir().unwrap();
    let (p, j) = (dir.path().join("p.txt"), dir.path().join("i.json"));
    std::fs::write(&p, generate::pattern_list(100_000)).unwrap();
    std::fs::write(&j, generate::crictl_listing(50_000)).unwrap();
    // The time it takes is measured by the benchmarks, not here.
    let out =
        run(&["--patterns", p.to_str().unwrap(), "explain", "--images", j.to_str().unwrap(), "--check", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["images"].as_array().unwrap().len(), 50_000);
    assert_eq!(v["disagreements"], 0);
}

#[test]
fn a_200000_entry_list_decodes_with_every_line_right() {
    // One quoted digest reference a line. Counting lines from the start of
    // the file for each entry took minutes of CPU here; the limit is far
    // above what the linear decoder needs, even unoptimised.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("50-pins.conf"), generate::openshift_dropin(200_000)).unwrap();
    let conf_d = dir.path().to_str().unwrap();
    let out = run_limited(&["--config", "", "--config-dir", conf_d, "config", "--json"], 60, 8 << 20);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let v = json(&out);
    let patterns = v["patterns"].as_array().unwrap();
    assert_eq!(patterns.len(), 200_001);
    for i in [0, 1, 99_999, 199_999] {
        assert_eq!(patterns[i]["source"], format!("{conf_d}/50-pins.conf:{}", i + 3));
        assert_eq!(patterns[i]["pattern"], generate::openshift_reference(i));
    }
}

#[test]
fn no_file_or_standard_input_is_read_past_256_mib() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse: no disk is used.
    let big = dir.path().join("big.conf");
    std::fs::File::create(&big).unwrap().set_len((256 << 20) + 1).unwrap();
    let big = big.to_str().unwrap();
    for args in [
        vec!["--config", big, "--config-dir", "none", "config"],
        vec!["--patterns", big, "config"],
        vec!["--pinned-images", "x.io/a:1", "explain", "--images", big],
    ] {
        let out = run_limited(&args, 60, 2 << 20);
        assert_eq!(code(&out), 2, "{args:?}: {:?}", out.status);
        assert!(stderr(&out).contains(&format!("{big}: larger than 256 MiB")), "{args:?}: {}", stderr(&out));
    }
    let out = run_limited(&["--config", big, "--config-dir", "none", "config"], 60, 2 << 20);
    assert!(stderr(&out).contains("this tool reads at most 256 MiB from one file"), "{}", stderr(&out));
    // Standard input: exactly the limit is read (one comment line), one byte more is not.
    for (bytes, want) in [(256 << 20, 0), ((256 << 20) + 1, 2)] {
        let out = feed_comment(&["--pinned-images", "x.io/a:1", "explain", "x.io/a:1", "--images", "-"], bytes);
        assert_eq!(code(&out), want, "{bytes}: {:?} {}", out.status, stderr(&out));
        if want == 2 {
            assert!(stderr(&out).contains("-: larger than 256 MiB"), "{}", stderr(&out));
        }
    }
}

/// Runs crio-pin (at most 2 GiB of address space) with a comment line of
/// `bytes` bytes on its standard input; it may stop reading early.
fn feed_comment(args: &[&str], bytes: usize) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut block = vec![b'x'; 1 << 20];
        block[0] = b'#';
        let mut left = bytes;
        // A broken pipe (the tool stopped reading) ends the writing.
        while left > 0 {
            let n = left.min(block.len());
            if left == n {
                block[n - 1] = b'\n';
            }
            if stdin.write_all(&block[..n]).is_err() {
                break;
            }
            block[0] = b'x';
            left -= n;
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn a_64_mib_line_is_linted_without_the_reference_grammar_s_regex() {
    // One pattern of 64 MiB: the reference grammar's regex took about
    // 0.4 s of CPU a MiB of it (27 s here, twice that with --fix); past the
    // longest reference its length says it is none, which the message
    // shows. The limits are a guard far above what the linear path needs
    // (about 1 s of CPU, 330 MB).
    let dir = tempfile::tempdir().unwrap();
    let mut line = b"quay.io/".to_vec();
    line.extend((0..64u32 << 20).map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[i as usize % 36]));
    line.extend(b":1\n");
    let list = write_file(dir.path(), "long.txt", &line);
    let out = run_limited(&["--patterns", &list, "lint", "--json"], 30, 2 << 20);
    assert_eq!(code(&out), 0, "{:?}: {}", out.status, stderr(&out));
    let v = json(&out);
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["code"], "not-a-reference");
    let said = findings[0]["message"].as_str().unwrap();
    assert!(said.starts_with("not an image reference (67108874 bytes, and a reference has at most 526"), "{said}");
    assert_eq!(findings[0]["pattern"].as_str().map(str::len), Some(line.len() - 1));
    // --fix weighs the same finding, and leaves the pattern as it is.
    let out = run_limited(&["--patterns", &list, "lint", "--fix", "--json"], 30, 2 << 20);
    assert_eq!(code(&out), 0, "{:?}: {}", out.status, stderr(&out));
    let v = json(&out);
    assert_eq!(v["changes"].as_array().unwrap().len(), 0);
    assert_eq!(v["left"][0]["code"], "not-a-reference");
}

/// Runs crio-pin with `args` in the tests' data directory, its output to
/// files; its exit status, standard output and peak resident memory in
/// bytes: the high-water mark of its own address space (`VmHWM`), read
/// while it runs. Not `wait4`'s `ru_maxrss`: Linux carries a forked
/// child's resident size from before its `exec` into it, and a child forked
/// while another test holds a large listing in this process would be
/// charged for it. The mark only rises, so the last reading before the
/// child exits has every peak up to it; a child is reaped as soon as it
/// exits, and readings come a millisecond apart.
pub fn run_measured(args: &[&str]) -> (i32, String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(data()).stdin(Stdio::null());
    cmd.stdout(std::fs::File::create(&out).unwrap()).stderr(std::fs::File::create(&err).unwrap());
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    let mut child = cmd.spawn().unwrap();
    let proc_status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        // Gone once the child has exited: its address space is released.
        if let Ok(text) = std::fs::read_to_string(&proc_status) {
            peak_kib = peak_kib.max(high_water_kib(&text));
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let code = status.code().unwrap_or_else(|| panic!("{args:?}: ended by a signal: {status}; {}", read(&err)));
    (code, read(&out), peak_kib * 1024)
}

/// `VmHWM` of a `/proc/PID/status`, in KiB (0 where it has none).
fn high_water_kib(status: &str) -> u64 {
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap_or("0 kB");
    line.trim().trim_end_matches("kB").trim().parse().unwrap()
}

fn read(path: &std::path::Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

/// `crictl_listing(images)` written to `path` an image at a time, without
/// the whole text in memory.
fn write_crictl_listing(path: &std::path::Path, images: usize) {
    use std::io::Write;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    file.write_all(b"{\"images\":[").unwrap();
    for i in 0..images {
        let comma = if i == 0 { "" } else { "," };
        write!(file, "{comma}{}", generate::crictl_image(i)).unwrap();
    }
    file.write_all(b"]}").unwrap();
    file.flush().unwrap();
}

/// `check` on a listing of 1,000,000 images (266 MB): its memory bounded
/// by what it keeps, its output by what an operator reads. Before the
/// bound: 2.7 GB and 1,740,786 lines of text; now about 740 MB, and each
/// kind of image shows its first 20.
#[test]
fn check_on_a_million_images_is_bounded_in_memory_and_output() {
    let dir = tempfile::tempdir().unwrap();
    let listing = dir.path().join("images.json");
    write_crictl_listing(&listing, 1_000_000);
    let size = std::fs::metadata(&listing).unwrap().len();
    let listing = listing.to_str().unwrap();
    // Every third image flagged pinned; the pattern pins another set:
    // disagreements of both kinds, and agreements of both.
    let args = ["--pinned-images", "registry.example/team-1*", "check", "--images", listing];
    let (status, text, peak) = run_measured(&args);
    assert_eq!(status, 1, "{text}");
    // The bound: four times the listing (1.06 GB); it takes about 2.8.
    assert!(peak < 4 * size, "peak {} MB for a listing of {} MB", peak >> 20, size >> 20);
    let lines = text.lines().count();
    assert!(lines < 400, "{lines} lines");
    assert!(text.contains("images   1000000, 111111 pinned"), "{}", &text[..2000.min(text.len())]);
    assert!(text.contains("… and 296279 more image(s) pinned by the runtime and not here (DISAGREES)"), "{text}");
    assert!(text.contains("--every-image lists each"), "{text}");
    // JSON: the same images, every count.
    let (status, json_text, peak) = run_measured(&[&args[..], &["--json"]].concat());
    assert_eq!(status, 1);
    assert!(peak < 4 * size, "--json: peak {} MB", peak >> 20);
    assert!(json_text.len() < 1 << 20, "{} bytes of JSON", json_text.len());
    let v: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(v["summary"]["images"], 1_000_000);
    crate::json_schemas::assert_schema("check", &v);
    let explain = &v["explain"];
    let shown = explain["images"].as_array().unwrap().len() as u64;
    let left_out: u64 =
        explain["images_left_out"].as_array().unwrap().iter().map(|k| k["images"].as_u64().unwrap()).sum();
    assert_eq!(shown + left_out, 1_000_000);
    assert!(explain["causes"].as_array().unwrap().iter().all(|c| c["images"].as_array().unwrap().len() <= 40));
}

/// Past 2,000,000 images a listing is refused with the bound and why, exit
/// status 2, before the memory they would take: short entries (an id and
/// a flag each) fit far more images than that within the 256 MiB a file
/// may have.
#[test]
fn a_listing_past_2000000_images_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("images.json");
    let mut text = String::from("{\"images\":[");
    for i in 0..2_000_001 {
        let comma = if i == 0 { "" } else { "," };
        text.push_str(&format!("{comma}{{\"id\":\"{i:x}\",\"pinned\":false}}"));
    }
    text.push_str("]}");
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    let (status, _, peak) = run_measured(&["--pinned-images", "x.io/a:1", "check", "--images", path, "--json"]);
    assert_eq!(status, 2);
    assert!(peak < 1 << 30, "peak {} MB", peak >> 20);
    let out = run(&["--pinned-images", "x.io/a:1", "check", "--images", path]);
    let said = stderr(&out);
    assert!(said.contains(&format!("{path}:")) && said.contains("2000001 images, more than 2000000"), "{said}");
    assert!(said.contains("100 times the largest node seen"), "{said}");
}
