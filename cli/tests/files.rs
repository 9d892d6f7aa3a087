//! Which files are read: non-UTF-8 names, dangling links, byte order marks, FIFOs, devices and sockets.

use crate::util::*;

#[test]
fn a_dropin_whose_name_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"50-caf\xe9.conf");
    std::fs::write(dir.path().join(name), pins_dropin(&["quay.io/latin1/name:1"])).unwrap();
    std::fs::create_dir(dir.path().join(std::ffi::OsStr::from_bytes(b"60-\xff"))).unwrap();
    std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"60-\xff/x.conf")), "# nothing\n").unwrap();
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["--config", "", "--config-dir", conf_d, "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["patterns"][0]["pattern"], "quay.io/latin1/name:1");
    // Shown with the byte escaped, in the walk's order.
    assert_eq!(v["patterns"][0]["source"], format!("{conf_d}/50-caf\\xe9.conf:2"));
    assert_eq!(
        v["files"],
        serde_json::json!([format!("{conf_d}/50-caf\\xe9.conf"), format!("{conf_d}/60-\\xff/x.conf")])
    );
    let out = run(&["--config", "", "--config-dir", conf_d, "config"]);
    assert!(stdout(&out).contains("50-caf\\xe9.conf:2"), "{}", stdout(&out));
}

#[test]
fn a_dangling_link_as_the_dropin_directory_is_a_missing_one() {
    // CRI-O's os.Stat follows the link, finds nothing and starts without drop-ins.
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("crio.conf.d");
    std::os::unix::fs::symlink(dir.path().join("gone"), &link).unwrap();
    let out = run(&["--config", "node/crio.conf", "--config-dir", link.to_str().unwrap(), "config", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json(&out)["files"], serde_json::json!(["node/crio.conf"]));
    // A link to a directory is still read as a file, which stops CRI-O.
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("dir-link")).unwrap();
    let dir_link = dir.path().join("dir-link");
    let out = run(&["--config", "", "--config-dir", dir_link.to_str().unwrap(), "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("refuse to start"), "{}", stderr(&out));
}

#[test]
fn byte_order_marks_are_dropped_as_crio_drops_them() {
    // BurntSushi/toml drops one mark at the start, UTF-16's too, and reads
    // the rest as UTF-8.
    let body = pins_dropin(&["quay.io/marked:1"]);
    for bom in [&b"\xff\xfe"[..], b"\xfe\xff", b"\xef\xbb\xbf"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("50-bom.conf"), [bom, body.as_bytes()].concat()).unwrap();
        assert_eq!(dropin_patterns(dir.path()), ["quay.io/marked:1", "registry.k8s.io/pause:3.10.1"], "{bom:x?}");
    }
    // A file really in UTF-16 is refused by both, with a hint.
    let dir = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> = body.encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(dir.path().join("50-utf16.conf"), [&b"\xff\xfe"[..], &utf16].concat()).unwrap();
    let out = run(&["--config", "", "--config-dir", dir.path().to_str().unwrap(), "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("UTF-16") && stderr(&out).contains("refuse to start"), "{}", stderr(&out));
}

/// Runs crio-pin on `args`, which name the FIFO `fifo`, and returns its
/// output; panics if it opens the FIFO (and so would wait for a writer).
fn run_beside_fifo(args: &[&str], fifo: &Path) -> Output {
    use std::os::unix::fs::OpenOptionsExt;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(data())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        // Opening for writing without blocking works only once a reader has it open.
        if std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(fifo).is_ok() {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("crio-pin {args:?} opened the FIFO, and waits for a writer");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn fifos_devices_and_sockets_are_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    let conf_d = dir.path().join("crio.conf.d");
    std::fs::create_dir(&conf_d).unwrap();
    std::fs::write(conf_d.join("10-pins.conf"), pins_dropin(&["quay.io/kept:1"])).unwrap();
    // A drop-in masked as systemd masks a unit: the null device reads as empty.
    std::os::unix::fs::symlink("/dev/null", conf_d.join("20-masked.conf")).unwrap();
    assert_eq!(dropin_patterns(&conf_d), ["quay.io/kept:1", "registry.k8s.io/pause:3.10.1"]);
    let conf_d_s = conf_d.to_str().unwrap();

    let fifo = conf_d.join("30-fifo.conf");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = run_beside_fifo(&["--config", "", "--config-dir", conf_d_s, "config"], &fifo);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("30-fifo.conf: is a FIFO (named pipe), not a regular file"), "{err}");
    assert!(err.contains("CRI-O would wait for ever at start-up"), "{err}");
    let out = run_beside_fifo(&["--patterns", fifo.to_str().unwrap(), "config"], &fifo);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let out = run_beside_fifo(&["--pinned-images", "x.io/a:1", "explain", "--images", fifo.to_str().unwrap()], &fifo);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("is a FIFO") && stderr(&out).contains("--images -"), "{}", stderr(&out));
    std::fs::remove_file(&fifo).unwrap();

    // /dev/zero never ends: CRI-O ran out of memory on it.
    std::os::unix::fs::symlink("/dev/zero", conf_d.join("40-zero.conf")).unwrap();
    let out = run_limited(&["--config", "", "--config-dir", conf_d_s, "config"], 60, 2 << 20);
    assert_eq!(code(&out), 2, "{:?}: {}", out.status, stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("40-zero.conf: is a character device") && err.contains("runs out of memory"), "{err}");
    let zero = conf_d.join("40-zero.conf");
    let out = run_limited(&["--pinned-images", "x.io/a:1", "explain", "--images", zero.to_str().unwrap()], 60, 2 << 20);
    assert_eq!(code(&out), 2, "{:?}: {}", out.status, stderr(&out));
    std::fs::remove_file(&zero).unwrap();

    let _socket = std::os::unix::net::UnixListener::bind(conf_d.join("50-socket.conf")).unwrap();
    let out = run(&["--config", "", "--config-dir", conf_d_s, "config"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("50-socket.conf: is a socket"), "{}", stderr(&out));
}
