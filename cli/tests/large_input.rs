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
