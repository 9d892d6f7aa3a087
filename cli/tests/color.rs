//! `--color`: escapes only where asked (always, or auto forced by
//! CLICOLOR_FORCE), never under never, a non-empty NO_COLOR or into a
//! pipe, never in JSON; where they are (severity words, marks, summaries);
//! and that they change no layout: the text without them is the text
//! without color, at every width.

use crate::util::*;

const ESC: char = '\u{1b}';

/// `text` without its SGR escapes (`ESC [ ... m`).
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(ESC) {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('m').expect("an SGR escape ends in m");
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    out
}

fn lint_patterns(rest: &[&str]) -> Vec<&'static str> {
    let mut v = vec!["--patterns", "lint-patterns.txt"];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

#[test]
fn no_escape_unless_asked_for() {
    let args = lint_patterns(&["lint"]);
    let never = [
        (vec!["--color", "never"], vec![("CLICOLOR_FORCE", "1")]),
        (vec![], vec![]),
        (vec!["--color", "auto"], vec![("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]),
        (vec![], vec![("CLICOLOR", "0")]),
    ];
    for (flags, env) in &never {
        let out = run_env(&[&flags[..], &args].concat(), env);
        assert!(!stdout(&out).contains(ESC), "{flags:?} {env:?}: {}", stdout(&out));
        assert!(!stderr(&out).contains(ESC), "{flags:?} {env:?}: {}", stderr(&out));
    }
    let colored = [
        (vec!["--color", "always"], vec![]),
        // The flag says more than the environment.
        (vec!["--color", "always"], vec![("NO_COLOR", "1")]),
        // An empty NO_COLOR disables nothing (no-color.org).
        (vec![], vec![("CLICOLOR_FORCE", "1"), ("NO_COLOR", "")]),
    ];
    for (flags, env) in &colored {
        let out = run_env(&[&flags[..], &args].concat(), env);
        assert!(stdout(&out).contains(ESC), "{flags:?} {env:?}: {}", stdout(&out));
    }
    // JSON never.
    for args in
        [lint_patterns(&["lint", "--json"]), node(&["explain", "--images", "node/images.json", "--check", "--json"])]
    {
        let out = run(&[&["--color", "always"][..], &args].concat());
        assert!(!stdout(&out).contains(ESC), "{args:?}");
        json(&out);
    }
}

/// The output of the binary with `args` written to a terminal (a pty)
/// under `env`, as the terminal shows it.
fn on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> String {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut leader, mut follower) = (-1, -1);
    let size = libc::winsize { ws_row: 24, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes two descriptors into the variables and reads
    // the window size it is given; each is owned once below.
    let opened = unsafe { libc::openpty(&mut leader, &mut follower, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: the descriptors openpty just gave, owned nowhere else.
    let (leader, follower) = unsafe { (OwnedFd::from_raw_fd(leader), OwnedFd::from_raw_fd(follower)) };
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(data()).stdin(Stdio::null()).stderr(Stdio::null()).stdout(follower);
    for var in CRIO_ENV {
        cmd.env_remove(var);
    }
    cmd.env("TERM", "xterm");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run crio-pin");
    // The parent's copy of the follower is closed with `cmd`: the leader
    // reads to the end once the child exits (EIO on Linux).
    drop(cmd);
    let mut text = Vec::new();
    let _ = std::fs::File::from(leader).read_to_end(&mut text);
    child.wait().unwrap();
    String::from_utf8_lossy(&text).into_owned()
}

#[test]
fn auto_colors_a_terminal_unless_no_color() {
    let args = lint_patterns(&["lint"]);
    assert!(on_a_terminal(&args, &[]).contains("\u{1b}[1m\u{1b}[31merror[lone-star]"));
    assert!(!on_a_terminal(&args, &[("NO_COLOR", "1")]).contains(ESC));
    assert!(!on_a_terminal(&[&["--color", "never"][..], &args].concat(), &[]).contains(ESC));
}

#[test]
fn severities_marks_and_summaries_are_colored() {
    let text = stdout(&run(&lint_patterns(&["--color", "always", "lint"])));
    let red = "\u{1b}[1m\u{1b}[31m";
    assert!(text.lines().any(|l| l.starts_with(&format!("{red}error[lone-star]\u{1b}[0m: pattern 11"))), "{text}");
    assert!(text.lines().any(|l| l.starts_with("\u{1b}[1m\u{1b}[33mwarning[unanchored-glob]\u{1b}[0m: ")), "{text}");
    let summary = text.lines().last().unwrap();
    assert!(
        summary.starts_with(&format!("{red}14 pattern(s): 1 error(s)")) && summary.ends_with("\u{1b}[0m"),
        "{summary}"
    );
    // Only heads, marks and summaries: no line's middle is colored.
    for line in text.lines() {
        assert!(line.matches(ESC).count() <= 3, "{line}");
    }
    let text = stdout(&run(&node(&["--color", "always", "explain", "--images", "node/images.json", "--check"])));
    assert!(text.lines().any(|l| l.ends_with(&format!("no  {red}<-- DISAGREES\u{1b}[0m"))), "{text}");
    assert!(text.lines().any(|l| l.starts_with(&format!("{red}DISAGREEMENT\u{1b}[0m: "))), "{text}");
    // Without --check explain judges nothing: a plain summary.
    let text = stdout(&run(&node(&["--color", "always", "explain", "nginx"])));
    assert_eq!(text.lines().last(), Some("1 image(s), 0 pinned"), "{text}");
    // A clean list's summary is green.
    let dir = tempfile::tempdir().unwrap();
    let clean = write_file(dir.path(), "clean.txt", "docker.io/library/nginx:1.25\n");
    let text = stdout(&run(&["--color", "always", "--patterns", &clean, "lint"]));
    assert!(text.starts_with("\u{1b}[32m1 pattern(s): 0 error(s)"), "{text}");
}

#[test]
fn color_changes_no_layout() {
    let runs = [
        lint_patterns(&["lint"]),
        node(&["lint"]),
        node(&["config"]),
        node(&["explain", "--images", "node/images.json", "--check"]),
        listing_f(&["explain", "--images", "crio-listings/F/list.json", "--check"]),
        containerd("containerd", &["explain", "--images", "containerd/images.json", "--check"]),
        containerd("containerd", &["lint"]),
        cri_dockerd(&["lint"]),
        node(&["diff", "nginx", "--dropin", "changes/99-local.conf"]),
        cri_dockerd(&["translate", "--to", "crio"]),
    ];
    for args in &runs {
        for width in ["80", "100"] {
            let never = run_env(&[&["--color", "never"][..], args].concat(), &[("COLUMNS", width)]);
            let always = run_env(&[&["--color", "always"][..], args].concat(), &[("COLUMNS", width)]);
            assert_eq!(plain(&stdout(&always)), stdout(&never), "{args:?} at {width}");
            assert_eq!(code(&always), code(&never));
        }
    }
}
