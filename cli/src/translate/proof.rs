//! The proof of `translate`'s labels: generated lists in every runtime's
//! syntax, each entry translated in every direction (twenty for five rule
//! sets, the kubelet's allowlist included), and every label checked
//! against the library's oracles of the runtimes' rules
//! (`crio_pin::oracle`: CRI-O's loop, containerd's comparisons as released
//! and as its fix PRs intend, cri-dockerd's matcher, the kubelet's
//! allowlist, each found through its runtime's `Model::oracle`) over a
//! universe of images, each pull built here from the image's parts (each
//! oracle takes the names its runtime stores from them), not by the tool's
//! own model. Beside the labels, `explain` (`matching::explain`, over the
//! universe as each runtime's `crictl images` lists it) is held to the
//! same oracles with one entry in ten and its translations: the labels and
//! `explain`'s answers come from one matcher, the library's `PinSet` under
//! the runtime's flags, and both agree with the runtime's own rules.
//!
//! The universe: every repository of a few hosts and paths (Docker Hub's
//! short and long forms, paths that repeat a registry's name behind a
//! mirror, one and two components), untagged or tagged, each tagged image
//! pulled by tag only or by tag and digest; hosts in upper and mixed case
//! (`QUAY.IO`, `DOCKER.IO`, `Docker.io`, `LocalHost:5000`: a reference keeps
//! its host's case, and only the lower-case `docker.io` is Docker Hub) and
//! tags in both cases (`:V1`, `:v1`), and the entries with them and with
//! upper-case paths (which CRI-O alone reads as a name, ignoring case), so
//! that a label is true whatever the case: an entry that loses the pins of
//! names that differ only in case is not `exact`, and one that pins
//! `DOCKER.IO/nginx:V1` is not `dropped`.

use std::collections::BTreeMap;

use clap::ValueEnum;
use crio_pin::oracle::docker_reference;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::{translate, Fidelity};
use crate::images::Image;
use crate::list::{Entry, Resolved};
use crate::refused::List;
use crate::runtime::Runtime;
use crate::runtimes::{Oracle, Pull, RegistryImage};

/// Hosts as a registry's may be spelled: a reference keeps its host's case
/// (and Docker Hub's `docker.io` is lower case only: `DOCKER.IO/nginx` is
/// another registry's `nginx`, no `library/`), cri-dockerd's prefixes
/// compare it as written.
const HOSTS: [&str; 8] =
    ["docker.io", "DOCKER.IO", "Docker.io", "quay.io", "QUAY.IO", "mirror.example", "localhost:5000", "LocalHost:5000"];
const PATHS: [&str; 8] = [
    "nginx",
    "nginx-x",
    "nginx/nginx-ingress",
    "library/nginx/x",
    "team/app",
    "docker.io/library/nginx",
    "index.docker.io/library/nginx",
    "quay.io/team/app",
];
const TAGS: [Option<&str>; 5] = [None, Some("1"), Some("V1"), Some("v1"), Some("latest")];

fn digest(n: u8) -> String {
    format!("sha256:{}", format!("{n:x}").repeat(64))
}

/// One image as pulled.
#[derive(Debug)]
struct Pulled {
    /// Its repository, tag and pull, for messages.
    what: String,
    pull: Pull,
    /// The group of pulls of the same image (for `undecided`).
    group: usize,
}

/// An image with these references, pulled by its tag (and by its digest
/// when `by_digest`).
fn pulled(tag: Option<&str>, digest: &str, id: &str, by_digest: bool, group: usize) -> Pulled {
    let digest_kept = by_digest || tag.is_none();
    let what = format!(
        "{} pulled by {}",
        tag.unwrap_or(digest),
        if digest_kept && tag.is_some() {
            "tag and digest"
        } else if tag.is_some() {
            "tag"
        } else {
            "digest"
        }
    );
    let pull = Pull { tag: tag.map(str::to_owned), digest: digest.to_owned(), id: id.to_owned(), by_digest };
    Pulled { what, pull, group }
}

/// Every image some registry can serve: each host with each path (behind
/// a mirror, a path may start with another registry's name), except on
/// Docker Hub, whose namespaces are Docker IDs (lower-case letters and
/// digits): no one can pull docker.io/quay.io/team/app.
fn universe() -> Vec<Pulled> {
    let mut images = Vec::new();
    let mut group = 0;
    for host in HOSTS {
        for path in PATHS {
            if host == "docker.io" && path.split('/').next().unwrap().contains(['.', ':']) {
                continue;
            }
            let repo = docker_reference::normalize(&format!("{host}/{path}")).unwrap();
            let repo = repo.strip_suffix(":latest").unwrap().to_owned();
            for tag in TAGS {
                let d = digest(if tag == Some("latest") { 2 } else { 1 });
                let id = format!("sha256:{:064x}", group + 1);
                let tagged = tag.map(|t| format!("{repo}:{t}"));
                let digested = format!("{repo}@{d}");
                images.push(pulled(tagged.as_deref(), &digested, &id, false, group));
                if tagged.is_some() {
                    images.push(pulled(tagged.as_deref(), &digested, &id, true, group));
                }
                group += 1;
            }
        }
    }
    images
}

/// The pulls of an example image the tool gives (its references), for the
/// oracles: by tag only, and by tag and digest.
fn pulls_of(image: &RegistryImage) -> Vec<Pulled> {
    let id = image.id.clone().unwrap_or_default();
    let digest = image.digests.first().cloned().unwrap_or_default();
    let tag = image.tags.first().map(String::as_str);
    vec![pulled(tag, &digest, &id, false, 0), pulled(tag, &digest, &id, true, 0)]
}

/// An entry of `runtime`'s list, from the universe's vocabulary.
fn entry(runtime: Runtime) -> impl Strategy<Value = String> {
    let host = proptest::sample::select(vec![
        "",
        "docker.io/",
        "index.docker.io/",
        "quay.io/",
        "mirror.example/",
        "localhost:5000/",
        "QUAY.IO/",
        "Quay.io/",
        "DOCKER.IO/",
        "Docker.io/",
        "LocalHost:5000/",
    ]);
    let path = proptest::sample::select(vec![
        "nginx",
        "library/nginx",
        "nginx/nginx-ingress",
        "team/app",
        "n",
        "library/n",
        "nginx-x",
        "library/nginx/x",
        "docker.io/library/nginx",
        "quay.io/team/app",
        // Upper case that only CRI-O, which ignores case, reads as a name.
        "NGINX",
        "Team/App",
    ]);
    let suffix = proptest::sample::select(vec![
        String::new(),
        ":1".into(),
        ":latest".into(),
        format!("@{}", digest(1)),
        format!(":1@{}", digest(1)),
        format!("@{}", digest(2)),
        ":other".into(),
        ":V1".into(),
        ":v1".into(),
    ]);
    let shape = 0..8u8;
    let cut = 0..40usize;
    let id = 1..100u64;
    (host, path, suffix, shape, cut, id).prop_map(move |(host, path, suffix, shape, cut, id)| {
        let name = format!("{host}{path}{suffix}");
        let cut = cut.min(name.len());
        match shape {
            // A prefix (a glob, or cri-dockerd's prefix).
            0 | 1 => format!("{}*", &name[..floor(&name, cut)]),
            // A keyword (CRI-O), or a value with a '*' in it.
            2 => format!("*{}*", &name[floor(&name, cut / 2)..floor(&name, cut)]),
            3 if runtime.facts().pins_image_ids => format!("sha256:{id:064x}"),
            3 => ["*", "**", " nginx:1 ", "nginx", "  "][id as usize % 5].to_owned(),
            _ => name,
        }
    })
}

fn floor(s: &str, i: usize) -> usize {
    (0..=i.min(s.len())).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// A false label: the direction, the entry, what the tool said and the
/// image that refutes it. `source_pins`: whether the source's list pins
/// each image of the universe (the same for every target).
fn refute(
    t: &super::Translated,
    (source, target): (&dyn Oracle, &dyn Oracle),
    universe: &[Pulled],
    source_pins: &[bool],
) -> Option<String> {
    let s = source_pins;
    let g = |i: usize| target.pins(&universe[i].pull);
    let any_image = |f: &dyn Fn(usize) -> bool| (0..universe.len()).find(|&i| f(i)).map(|i| universe[i].what.clone());
    let shows = |example: &Option<RegistryImage>, want: (bool, bool)| match example {
        Some(image) => pulls_of(image).iter().any(|i| (source.pins(&i.pull), target.pins(&i.pull)) == want),
        None => false,
    };
    match t.fidelity {
        Fidelity::Dropped => any_image(&|i| s[i]).map(|w| format!("the source pins {w}")),
        Fidelity::Exact => any_image(&|i| s[i] != g(i)).map(|w| format!("they differ on {w}")),
        Fidelity::Wider => any_image(&|i| s[i] && !g(i))
            .map(|w| format!("the target does not pin {w}"))
            .or_else(|| (!shows(&t.gained, (false, true))).then(|| format!("{:?} is not gained", t.gained))),
        Fidelity::Narrower => any_image(&|i| !s[i] && g(i))
            .map(|w| format!("the target also pins {w}"))
            .or_else(|| (!shows(&t.lost, (true, false))).then(|| format!("{:?} is not lost", t.lost))),
        Fidelity::Different => (!shows(&t.gained, (false, true)) || !shows(&t.lost, (true, false)))
            .then(|| format!("{:?} / {:?} do not differ so", t.gained, t.lost)),
        Fidelity::Undecided => (0..universe.len())
            .filter(|&i| s[i] != g(i))
            .find(|&i| (0..universe.len()).filter(|&j| universe[j].group == universe[i].group).all(|j| s[j] != g(j)))
            .map(|i| format!("every pull of {} differs", universe[i].what)),
        Fidelity::Impossible => (!t.patterns.is_empty()).then(|| "impossible, yet written".to_string()),
    }
}

/// The universe as `runtime` lists it over CRI: each pull an entry of
/// `crictl images` with the names the runtime's listing gives it (CRI-O's
/// and containerd's qualified, Docker's familiar), read as `--images` reads
/// it.
fn listing(runtime: Runtime, universe: &[Pulled]) -> Vec<Image> {
    let naming = runtime.model().naming();
    let listed = |name: &str| (naming.pulled_as)(name).unwrap_or_else(|_| name.to_owned());
    universe
        .iter()
        .map(|i| {
            let tags = i.pull.tag.iter().map(|t| listed(t)).collect();
            crate::images::listed(i.pull.id.clone(), tags, vec![listed(&i.pull.digest)], false, naming)
        })
        .collect()
}

/// The first image of the universe on which `explain`, with `list` as
/// `runtime`'s list, answers otherwise than `oracle`: pinned must be
/// pinned whatever the pull, not pinned pinned by no pull, and
/// "undecided" (a name the list matches that the runtime keeps only after
/// a pull by it) pinned by the pull by digest alone.
fn explain_differs(
    runtime: Runtime,
    list: &[String],
    listing: &[Image],
    universe: &[Pulled],
    oracle: &dyn Oracle,
) -> Option<String> {
    let file: std::rc::Rc<str> = "proof".into();
    let entries: Vec<Entry> = list.iter().map(|p| Entry::in_file(p.clone().into_bytes(), &file, 1)).collect();
    let flags = runtime.facts().flags;
    let compiled = crate::refused::compile_valid(&entries, flags, List::Effective, runtime.model()).ok()?;
    let resolved = Resolved { entries, ..Resolved::default() };
    let report = crate::matching::explain(&resolved, &compiled, listing, flags, crate::causes::Known::default(), None);
    report.images.iter().zip(universe).find_map(|(e, i)| {
        let pins = oracle.pins(&i.pull);
        let agrees = match (e.pinned, e.depends_on_pull.is_empty()) {
            (true, _) => pins,
            (false, true) => !pins,
            (false, false) => pins == i.pull.by_digest,
        };
        let says = if e.pinned {
            "pinned"
        } else if e.depends_on_pull.is_empty() {
            "not pinned"
        } else {
            "undecided"
        };
        (!agrees).then(|| format!("explain says {} is {says}, the oracle {}", i.what, pins))
    })
}

#[test]
fn every_translate_label_and_explain_answer_hold_under_the_runtimes_oracles() {
    // 5,040 entries of each rule set's list, each translated four ways:
    // 100,800 labels in all, as `make test` runs it (release). An
    // unoptimised build (cargo test) checks a tenth of them.
    const PER_RUNTIME: usize = if cfg!(debug_assertions) { 504 } else { 5_040 };
    let universe = &universe();
    // Every runtime `--runtime` knows: a new one is proven with the others.
    let runtimes = Runtime::value_variants();
    let listings = &Runtime::ALL.iter().map(|&r| listing(r, universe)).collect::<Vec<_>>();
    // Each source runtime's entries on a thread of its own (the test takes
    // 45 s of CPU in all), each from its own deterministic runner.
    let (counts, false_labels) = std::thread::scope(|scope| {
        let threads: Vec<_> = runtimes
            .iter()
            .map(|&from| scope.spawn(move || labels_from(from, runtimes, (universe, listings), PER_RUNTIME)))
            .collect();
        let mut counts = Counts::new();
        let mut false_labels = Vec::new();
        for thread in threads {
            let (c, f) = thread.join().expect("a runtime's labels are checked");
            for (key, n) in c {
                *counts.entry(key).or_default() += n;
            }
            false_labels.extend(f);
        }
        (counts, false_labels)
    });
    for ((from, to, label), n) in &counts {
        println!("{from:>21} -> {to:<21} {label:<10} {n:>6}");
    }
    let explained: usize = counts.iter().filter(|((_, _, label), _)| *label == "explained").map(|(_, n)| n).sum();
    let total = counts.values().sum::<usize>() - explained;
    println!("{total} labels, {explained} lists explained over the universe, {} false", false_labels.len());
    assert_eq!(total, PER_RUNTIME * runtimes.len() * (runtimes.len() - 1));
    // Each explained entry: its own list and its translations, under every
    // rule set (the kubelet's compares each name's repository).
    assert_eq!(explained, PER_RUNTIME / EXPLAINED_EVERY * runtimes.len() * runtimes.len());
    assert!(
        false_labels.is_empty(),
        "{} false labels, e.g.:\n{}",
        false_labels.len(),
        false_labels[..false_labels.len().min(20)].join("\n")
    );
}

/// One entry in this many has `explain` run over the universe with it and
/// its translations, beside the labels: `explain` and `translate` answer
/// from one matcher over the same names, and this holds `explain` to the
/// oracles the labels are held to (a tenth: an `explain` of the whole
/// universe costs as much as ten entries' labels).
const EXPLAINED_EVERY: usize = 10;

/// How many labels of each kind each direction got: (from, to, label).
type Counts = BTreeMap<(&'static str, &'static str, &'static str), usize>;

/// The labels of `per_runtime` entries of `from`'s lists translated to
/// every other runtime, counted, and the false ones; and for one entry in
/// [`EXPLAINED_EVERY`], `explain`'s answers with the entry and with each
/// translation over the universe (`listings`: as each runtime lists it),
/// counted as (from, to, "explained"), each one that differs from the
/// oracle's among the false.
fn labels_from(
    from: Runtime,
    runtimes: &[Runtime],
    (universe, listings): (&[Pulled], &[Vec<Image>]),
    per_runtime: usize,
) -> (Counts, Vec<String>) {
    let mut runner = TestRunner::deterministic();
    let mut counts = BTreeMap::new();
    let mut false_labels = Vec::new();
    let strategy = entry(from);
    let mut done = 0;
    // Each list `explain` ran over, by runtime.
    let mut explained_lists = Vec::new();
    while done < per_runtime {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        // Only lists the source runtime takes are translated.
        if crio_pin::PinSet::compile([&text], from.facts().flags).is_err() || from.model().refuses(&text).is_some() {
            continue;
        }
        done += 1;
        let list = std::slice::from_ref(&text);
        let source = from.oracle(list);
        let source_pins: Vec<bool> = universe.iter().map(|i| source.pins(&i.pull)).collect();
        let explained = done % EXPLAINED_EVERY == 0;
        let mut explain = |runtime: Runtime, list: &[String], oracle: &dyn Oracle| {
            explained_lists.push(runtime.facts().option);
            let differs = explain_differs(runtime, list, &listings[runtime as usize], universe, oracle);
            differs.map(|why| format!("explain --runtime {} over {list:?}: {why}", runtime.facts().option))
        };
        if explained {
            false_labels.extend(explain(from, list, &*source));
        }
        for &to in runtimes.iter().filter(|&&to| to != from) {
            let t = translate(&text, from, to);
            let target = to.oracle(&t.patterns);
            if explained {
                false_labels.extend(explain(to, &t.patterns, &*target));
            }
            *counts.entry((from.facts().option, to.facts().option, t.fidelity.as_str())).or_default() += 1;
            if let Some(why) = refute(&t, (&*source, &*target), universe, &source_pins) {
                false_labels.push(format!(
                    "{} -> {}: {text:?} -> {:?} {}: {why}",
                    from.facts().option,
                    to.facts().option,
                    t.patterns,
                    t.fidelity.as_str()
                ));
            }
        }
    }
    for runtime in explained_lists {
        *counts.entry((from.facts().option, runtime, "explained")).or_default() += 1;
    }
    (counts, false_labels)
}
