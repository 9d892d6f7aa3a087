//! `lint --fix`: its output lints clean, is its own fix (a second run
//! changes nothing), and pins every image the original pinned, each image
//! it pins beside them one a change named as a gain, checked with the
//! library's oracles of each runtime's rules over a universe of names
//! (data/image-names.txt in each runtime's stored form, and the lists'
//! own texts respelt), for the samples and for generated lists of mistakes.

use crio_pin::oracle::containerd::ContainerdReference;
use crio_pin::oracle::cri_dockerd::CriDockerdReference;
use crio_pin::oracle::docker_reference::normalize;
use crio_pin::oracle::ReferenceSet;
use crio_pin::Flags;

use crate::util::*;

const NAMES: &str = include_str!("../../data/image-names.txt");

/// A runtime's rules, as its oracle answers them. (A lone '*', which
/// stock CRI-O panics on, is left out: a list with one is refused before
/// and after, as the fix leaves it.)
fn pins(runtime: &str, list: &[String]) -> Box<dyn Fn(&str) -> bool> {
    let bytes: Vec<Vec<u8>> =
        list.iter().filter(|p| *p != "*" || runtime != "crio").map(|p| p.as_bytes().to_vec()).collect();
    let refs: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    match runtime {
        "crio" => {
            let set = ReferenceSet::compile(&refs, Flags::CRIO).expect("a list CRI-O takes");
            Box::new(move |n| set.is_match(n.as_bytes()))
        }
        "containerd" | "containerd-normalized" => {
            let set = ContainerdReference::compile(&refs, runtime == "containerd-normalized");
            Box::new(move |n| set.pinned(n.as_bytes()).is_some())
        }
        "cri-dockerd" => {
            let set = CriDockerdReference::compile(&refs);
            Box::new(move |n| set.pinned(n.as_bytes()).is_some())
        }
        other => panic!("no oracle for {other}"),
    }
}

/// A normalised name as the runtime stores it: cri-dockerd compares
/// Docker's familiar names.
fn stored(runtime: &str, name: &str) -> String {
    match runtime {
        "cri-dockerd" => name.strip_prefix("docker.io/library/").or(name.strip_prefix("docker.io/")).unwrap_or(name),
        _ => name,
    }
    .to_string()
}

/// The names the lists are run over, each a name the runtime stores (a
/// normalised reference, in its stored form): the corpus's, and each
/// pattern's text respelt (without its stars, in lower case, in upper
/// case, longer, deeper, with a tag).
fn universe(runtime: &str, lists: &[&[String]]) -> BTreeSet<String> {
    let mut candidates: Vec<String> = NAMES.lines().map(str::to_string).collect();
    for text in lists.iter().flat_map(|l| l.iter()) {
        let core = text.trim().trim_matches('*');
        for base in [core.to_string(), core.to_lowercase(), core.to_uppercase()] {
            candidates.extend([format!("{base}x"), format!("{base}-x:1"), format!("{base}/x:1"), format!("{base}:1")]);
            candidates.push(base);
        }
    }
    let normal =
        candidates.iter().filter_map(|n| normalize(n).ok().or_else(|| normalize(&format!("docker.io/{n}")).ok()));
    normal.map(|n| stored(runtime, &n)).collect()
}

/// The patterns `config --json` reads with `args`, without the runtime's
/// own (CRI-O's pause image, containerd's default sandbox image: on any list).
fn patterns(args: &[&str]) -> Vec<String> {
    // (A list the runtime refuses is still listed, with exit status 2.)
    let out = run(&[args, &["config", "--json"]].concat());
    assert!(code(&out) == 0 || code(&out) == 2 && !out.stdout.is_empty(), "{args:?}: {}", stderr(&out));
    let v = json(&out);
    let listed = v["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["source_kind"] != "pause_image" && p["source_kind"] != "default");
    listed.map(|p| p["pattern"].as_str().unwrap().to_string()).collect()
}

/// The arguments that read the fixed list `text`, written for `runtime`.
fn reading(runtime: &str, dir: &Path, text: &str) -> Vec<String> {
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match runtime {
        "crio" => {
            let conf_d = dir.join("conf.d");
            std::fs::create_dir_all(&conf_d).unwrap();
            write_file(&conf_d, "99-fixed.conf", text);
            owned(&["--config", "", "--config-dir", conf_d.to_str().unwrap()])
        }
        "containerd" | "containerd-normalized" => {
            owned(&["--runtime", runtime, "--config", &write_file(dir, "fixed.toml", text)])
        }
        _ => owned(&["--runtime", runtime, "--patterns", &write_file(dir, "fixed.txt", text)]),
    }
}

/// `lint --fix` on the list `args` read (for `runtime`): what the output
/// reads as, lints as and pins, against the original. How many changes.
fn round_trip(runtime: &str, args: &[&str]) -> usize {
    let out = run(&[args, &["--no-trunc", "lint", "--fix"]].concat());
    let text = stdout(&out);
    let status = code(&out);
    assert!(status <= 1, "{args:?}: {}", stderr(&out));
    assert!(stderr(&out).contains("the fixed list is on standard output"), "{}", stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    let fixed_args = reading(runtime, dir.path(), &text);
    let fixed_args: Vec<&str> = fixed_args.iter().map(String::as_str).collect();
    // Lints clean: no error but those it named as left, and a second
    // run finds nothing more to fix.
    let linted = json(&run(&[&fixed_args[..], &["lint", "--json"]].concat()));
    for f in linted["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "error") {
        let named = format!("{}[{}]", f["severity"].as_str().unwrap(), f["code"].as_str().unwrap());
        assert!(text.lines().any(|l| l.starts_with("# left: ") && l.contains(&named)), "{f} not named:\n{text}");
    }
    let again = stdout(&run(&[&fixed_args[..], &["--no-trunc", "lint", "--fix"]].concat()));
    assert!(again.starts_with("# Written by crio-pin lint --fix: 0 change(s)"), "not its own fix:\n{again}");
    // Pins: none lost; each one gained by a change said to gain it.
    let (before, after) = (patterns(args), patterns(&fixed_args));
    let gains: Vec<String> = text
        .lines()
        .filter(|l| {
            l.starts_with("# changed: ") && l.ends_with(": it pinned nothing, and this is the name it was meant to be")
        })
        .map(|l| {
            let now = l.rsplit_once(" now \"").unwrap().1;
            now.split_once("\": it pinned nothing").unwrap().0.to_string()
        })
        .collect();
    let (was, is, gained) = (pins(runtime, &before), pins(runtime, &after), pins(runtime, &gains));
    let names = universe(runtime, &[&before, &after]);
    let mut checked = 0;
    for name in &names {
        assert!(!was(name) || is(name), "{args:?}: the fix loses the pin of {name}:\n{text}");
        assert!(was(name) || !is(name) || gained(name), "{args:?}: {name} is pinned by no change said:\n{text}");
        checked += usize::from(was(name));
    }
    assert!(checked > 0, "{args:?}: the original pins none of {} names", names.len());
    let changed = text.lines().filter(|l| l.starts_with("# changed: ")).count();
    // --json says the same: the list as printed, each change and each
    // finding left, the gains by their `now`.
    let out = run(&[args, &["--no-trunc", "lint", "--fix", "--json"]].concat());
    assert_eq!(code(&out), status, "{args:?}: {}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["list"].as_str(), Some(text.as_str()), "{args:?}");
    assert_eq!(v["written_to"], Value::Null);
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), changed, "{args:?}");
    let left = text.lines().filter(|l| l.starts_with("# left: ")).count();
    assert_eq!(v["left"].as_array().unwrap().len(), left, "{args:?}");
    let json_gains: Vec<String> = changes
        .iter()
        .filter(|c| c["message"].as_str().unwrap().ends_with("the name it was meant to be"))
        .map(|c| c["now"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(json_gains, gains, "{args:?}");
    changed
}

#[test]
fn the_samples_round_trip() {
    assert_eq!(round_trip("crio", &["--patterns", "lint-patterns.txt"]), 5);
    // Nothing to fix on the node.
    assert_eq!(round_trip("crio", &NODE), 0);
    assert_eq!(round_trip("containerd", &containerd("containerd", &[])), 3);
    assert_eq!(round_trip("containerd-normalized", &containerd("containerd-normalized", &[])), 3);
    assert_eq!(round_trip("cri-dockerd", &cri_dockerd(&[])), 1);
}

/// A list of `runtime`'s with the mistakes lint fixes and those it leaves,
/// made from the corpus's names from `start` on.
fn mistakes(runtime: &str, start: usize) -> String {
    let names: Vec<&str> = NAMES.lines().skip(start).step_by(7).take(12).collect();
    let mut list = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let name = stored(runtime, name);
        let (repository, _) = name.split_once([':', '@']).unwrap_or((&name, ""));
        let short = name.strip_prefix("docker.io/library/").unwrap_or(&name).to_string();
        let made = match (runtime, i % 6) {
            (_, 0) => vec![name.clone(), name.clone()],
            ("crio", 1) => vec![format!(" {name}")],
            ("crio", 2) => vec![format!("{repository}*"), format!("{name}"), format!("*{short}")],
            ("crio", 3) => vec![short, name.to_uppercase()],
            ("crio", 4) => vec![String::new(), repository.to_string()],
            ("cri-dockerd", 1) => vec![format!("docker.io/library/{name}"), " ".to_string()],
            ("cri-dockerd", 2) => {
                vec![format!("{repository}/*"), format!("{repository}/x:1"), format!("{repository}*")]
            }
            ("cri-dockerd", 3) => vec![format!(" {name} "), name.clone()],
            (_, 1) => vec![short.replace("docker.io/library/", "")],
            (_, 2) => vec![format!("{repository}:latest"), repository.to_string()],
            (_, 3) => vec![name.to_uppercase()],
            _ => vec![name.clone()],
        };
        list.extend(made);
    }
    list.join("\n") + "\n"
}

#[test]
fn generated_lists_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for runtime in ["crio", "containerd", "containerd-normalized", "cri-dockerd"] {
        for start in [0, 3] {
            let file = write_file(dir.path(), &format!("{runtime}-{start}.txt"), mistakes(runtime, start));
            let changed = round_trip(runtime, &["--runtime", runtime, "--patterns", &file]);
            assert!(changed >= 4, "{runtime}: {changed} change(s)");
        }
    }
}

#[test]
fn fix_to_with_json_writes_the_list_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("90-pinned.conf");
    let to = to.to_str().unwrap();
    let out = run(&["--patterns", "lint-patterns.txt", "lint", "--fix-to", to, "--json"]);
    assert!(code(&out) <= 1, "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["written_to"].as_str(), Some(to));
    assert_eq!(v["list"].as_str().unwrap(), std::fs::read_to_string(to).unwrap());
    assert_eq!(v["changes"].as_array().unwrap().len(), 5);
    let removed = v["changes"].as_array().unwrap().iter().filter(|c| c["now"].is_null()).count();
    assert!(removed > 0 && removed < 5, "{v}");
}

#[test]
fn the_fix_is_never_written_over_a_file_it_was_read_from() {
    let dir = tempfile::tempdir().unwrap();
    let list = write_file(dir.path(), "pins.txt", "nginx:1\n");
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&list, &link).unwrap();
    for target in [list.as_str(), link.to_str().unwrap()] {
        let out = run(&["--patterns", &list, "lint", "--fix-to", target]);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(stderr(&out).contains("which the list was read from") && stderr(&out).contains("another file"));
        assert_eq!(std::fs::read_to_string(&list).unwrap(), "nginx:1\n");
    }
    // CRI-O's main file and drop-ins too.
    let out = run(&node(&["lint", "--fix-to", "node/crio.conf"]));
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    // Another file: written, nothing on standard output.
    let target = dir.path().join("fixed.conf");
    let out = run(&["--patterns", &list, "lint", "--fix-to", target.to_str().unwrap()]);
    assert_eq!((code(&out), stdout(&out)), (0, String::new()), "{}", stderr(&out));
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.contains("\"docker.io/library/nginx:1\","), "{written}");
    assert!(stderr(&out).contains("1 change(s)"), "{}", stderr(&out));
}

#[test]
fn a_list_from_crio_s_flag_is_fixed_with_a_word_on_where_it_goes() {
    let out = run(&["-c", "", "-d", "node/crio.conf.d", "--pinned-images", "nginx:1,quay.io/a:1", "lint", "--fix"]);
    assert!(stdout(&out).contains("\"docker.io/library/nginx:1\","), "{}", stdout(&out));
    assert!(stderr(&out).contains("the list comes from --pinned-images"), "{}", stderr(&out));
    // cri-dockerd's list is its flag: nothing to say.
    assert!(!stderr(&run(&cri_dockerd(&["lint", "--fix"]))).contains("comes from"));
}

#[test]
fn cri_dockerd_s_flag_value_reads_as_the_list() {
    let out = run(&cri_dockerd(&["--no-trunc", "lint", "--fix"]));
    let text = stdout(&out);
    let flag = text.lines().find_map(|l| l.strip_prefix("# --pinned-images=")).expect("the flag line");
    let value = flag.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).unwrap_or(flag);
    let from_flag = patterns(&["--runtime", "cri-dockerd", "--pinned-images", value]);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        from_flag,
        patterns(&["--runtime", "cri-dockerd", "--patterns", &write_file(dir.path(), "f.txt", &text)])
    );
}

/// A tmpfs mounted on a directory for one test, unmounted when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A file system with `size` bytes of room, mounted on `dir`: a tmpfs,
/// which needs root (the tests run as root here and in CI). Where it cannot
/// be mounted the test fails and says why; CRIO_PIN_TEST_NO_MOUNT=1 says
/// that this machine cannot mount, and the test then says it did not run.
fn tmpfs(dir: &Path, size: &str) -> Option<Mounted> {
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir).output();
    match mounted {
        Ok(out) if out.status.success() => Some(Mounted(dir.to_path_buf())),
        _ if std::env::var_os("CRIO_PIN_TEST_NO_MOUNT").is_some() => {
            eprintln!("NOT RUN: CRIO_PIN_TEST_NO_MOUNT is set and no tmpfs could be mounted on {}", dir.display());
            None
        }
        Ok(out) => panic!(
            "cannot mount a {size} tmpfs on {} ({}): this test needs root to fill a real file system; run it as \
             root, or set CRIO_PIN_TEST_NO_MOUNT=1 to say this machine cannot",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!("cannot run mount ({e}); set CRIO_PIN_TEST_NO_MOUNT=1 to say this machine cannot mount"),
    }
}

#[test]
fn on_a_full_file_system_the_old_file_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let Some(_mounted) = tmpfs(&full, "64k") else { return };
    // A fixed list of about 200 KB, past the room the file system has.
    let pins: String = (0..6000).map(|i| format!("quay.io/team{i}/app:{i}\n")).collect();
    let list = write_file(dir.path(), "pins.txt", &pins);
    let old: Vec<u8> = (0..20_000u32).flat_map(|i| format!("# old line {i}\n").into_bytes()).take(40 << 10).collect();
    let target = full.join("90-fixed.conf");
    std::fs::write(&target, &old).unwrap();
    let out = run(&["--patterns", &list, "lint", "--fix-to", target.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!("--fix-to \"{}\"", target.display()))
            && said.contains("No space left on device")
            && said.contains("the file is as it was"),
        "{said}"
    );
    assert!(std::fs::read(&target).unwrap() == old, "the old file changed");
    let names: Vec<_> = std::fs::read_dir(&full).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["90-fixed.conf"], "a temporary file was left");
    // With room for it, the same list is written whole.
    let few: String = pins.lines().take(100).map(|l| format!("{l}\n")).collect();
    let few = write_file(dir.path(), "few.txt", few);
    let out = run(&["--patterns", &few, "lint", "--fix-to", target.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read_to_string(&target).unwrap().contains("\"quay.io/team99/app:99\","));
}

#[test]
fn a_control_character_is_an_error_the_fix_leaves_as_it_is() {
    // A NUL and an escape written as TOML escapes in a drop-in, a space
    // beside them: the space is removed, the control characters never.
    let dir = tempfile::tempdir().unwrap();
    let dropin = "[crio.image]\npinned_images = [\n  \"quay.io/a\\u0000b:1\",\n  \" quay.io/c:1\",\n  \
                  \"quay.io/d\\u001b:1\",\n]\n";
    write_file(dir.path(), "50-pins.conf", dropin);
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--no-trunc", "lint"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let said = stdout(&out);
    assert!(
        said.contains("error[control-character]: pattern 0 \"quay.io/a\\0b:1\"")
            && said.contains("50-pins.conf:3): the control character \\u{0} (U+0000) at byte 9"),
        "{said}"
    );
    let out = run(&["-c", "", "-d", conf_d, "lint", "--fix", "--json"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let v = json(&out);
    let changed: Vec<&str> = v["changes"].as_array().unwrap().iter().map(|c| c["pattern"].as_str().unwrap()).collect();
    assert_eq!(changed, [" quay.io/c:1"]);
    let left: Vec<(&str, &str)> = v["left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["pattern"].as_str().unwrap(), l["code"].as_str().unwrap()))
        .collect();
    assert_eq!(left, [("quay.io/a\u{0}b:1", "control-character"), ("quay.io/d\u{1b}:1", "control-character")]);
    assert_eq!(v["errors_left"], 2);
    let list = v["list"].as_str().unwrap();
    assert!(list.contains("\"quay.io/a\\u0000b:1\",") && list.contains("\"quay.io/c:1\","), "{list}");
}

/// The list CRI-O reads from `dropin`, its one drop-in.
fn dropin_list(dropin: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "90-fixed.conf", dropin);
    patterns(&["-c", "", "-d", dir.path().to_str().unwrap()])
}

#[test]
fn a_misspelt_key_is_renamed_and_the_union_written_for_the_last_file() {
    // 50- sets the list in force; 60- misspells the key, so CRI-O reads
    // nothing of it. Renamed alone, 60-'s list would replace 50-'s: the fix
    // writes the union for 60-, and says so; nothing 50- pins is dropped.
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "50-pins.conf", pins_dropin(&["quay.io/a/b:1", "quay.io/a/c:1"]));
    write_file(dir.path(), "60-local.conf", "[crio.image]\npinned-images = [\"quay.io/local/x:1\"]\n");
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--no-trunc", "lint", "--fix"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("\"pinned-images\" (")
            && text.contains("60-local.conf:2) [ignored-key]: now pinned_images")
            && text.contains("renamed, this file's list replaces the earlier files'")
            && text.contains("the list in force then these 1 pattern(s), so no pin is dropped"),
        "{text}"
    );
    assert!(text.contains("1 change(s), 0 finding(s) left as they were."), "{text}");
    assert_eq!(stderr(&out).trim_end(), "crio-pin: the fixed list is on standard output: 1 change(s)");
    // The list written, put in 60- as its pinned_images, pins both lists
    // and lints with no configuration warning left.
    assert_eq!(dropin_list(&text), ["quay.io/a/b:1", "quay.io/a/c:1", "quay.io/local/x:1"]);
    write_file(dir.path(), "60-local.conf", &text);
    let out = run(&["-c", "", "-d", conf_d, "--json", "lint"]);
    let v = json(&out);
    assert_eq!(v["counts"]["configuration_warnings"], 0, "{v}");
    assert_eq!(patterns(&["-c", "", "-d", conf_d]), ["quay.io/a/b:1", "quay.io/a/c:1", "quay.io/local/x:1"]);
}

#[test]
fn a_misspelt_key_before_the_list_in_force_goes_into_that_list() {
    // 60- misspells the key, 70- sets the list in force: renamed, 60-'s
    // list would be replaced by 70-'s; its patterns go into the list
    // written for 70-.
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "60-local.conf", "[crio.image]\npinned-images = [\"quay.io/local/x:1\"]\n");
    write_file(dir.path(), "70-later.conf", pins_dropin(&["quay.io/z:1"]));
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--no-trunc", "lint", "--fix", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json(&out);
    let change = &v["changes"][0];
    assert_eq!((change["code"].as_str(), change["now"].as_str()), (Some("ignored-key"), Some("pinned_images")));
    let said = change["message"].as_str().unwrap();
    assert!(said.contains("a later file's pinned_images replaces this file's list") && said.contains("70-later.conf"));
    assert_eq!(v["warnings_left"], serde_json::json!([]));
    assert_eq!(dropin_list(v["list"].as_str().unwrap()), ["quay.io/local/x:1", "quay.io/z:1"]);
}

#[test]
fn a_misspelt_key_under_a_flag_s_list_stands_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "60-local.conf", "[crio.image]\npinned-images = [\"quay.io/local/x:1\"]\n");
    let conf_d = dir.path().to_str().unwrap();
    let out = run(&["-c", "", "-d", conf_d, "--pinned-images", "quay.io/a:1", "--no-trunc", "lint", "--fix"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("stands: warning[ignored-key]")
            && text.contains("lint --fix does not rename it: the list in force is --pinned-images's"),
        "{text}"
    );
    assert!(stderr(&out).contains("configuration warning(s) stand, named in its header"), "{}", stderr(&out));
}

#[test]
fn ignored_key_s_advice_says_what_the_list_then_replaces() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "50-pins.conf", pins_dropin(&["quay.io/a/b:1"]));
    write_file(dir.path(), "60-local.conf", "[crio.image]\npinned-images = [\"quay.io/local/x:1\"]\n");
    let out = run(&["-c", "", "-d", dir.path().to_str().unwrap(), "--no-trunc", "lint"]);
    let said = stdout(&out);
    assert!(
        said.contains("write pinned_images, whose list then replaces the earlier files' (to add to the list in force"),
        "{said}"
    );
}
