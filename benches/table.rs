//! `make bench`'s summary: what criterion does not measure (heap held and
//! allocations, through a counting allocator; two threads on one set;
//! callgrind instruction counts), with the times criterion measured
//! (`benches/functions.rs`, read from `target/criterion`), each figure
//! beside its target. The targets are the table under "## Targets" in
//! `docs/BENCHMARKS.md`, read at run time: they are written only there.
//!
//! ```text
//! cargo bench --bench table -- [--quick] [--no-callgrind] [--out DIR] [--lists 1k,openshift]
//! cargo bench --bench table -- --write-corpus DIR
//! cargo test --release --bench table     # quick check: engines agree, targets parse
//! ```
//!
//! Prints the table and writes `DIR/table.md` and `DIR/results.tsv` (for
//! the plot); DIR defaults to `build/bench`.

mod corpus;
mod harness;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Barrier;
use std::time::Instant;

use corpus::List;
use crio_pin::oracle::ReferenceSet;
use crio_pin::{Flags, PinSet};
use harness::{machine, target_for, targets, targets_file, CSet, Target, ALLOCS, LIVE, PEAK};

/// Figures by (row, list label), in row order.
#[derive(Default)]
struct Figures {
    rows: Vec<(&'static str, Unit)>,
    values: BTreeMap<(&'static str, &'static str), f64>,
}

#[derive(Clone, Copy)]
enum Unit {
    Ns,
    Bytes,
    Count,
    Factor,
}

impl Figures {
    fn add(&mut self, row: &'static str, unit: Unit, list: &'static str, value: f64) {
        if !self.rows.iter().any(|r| r.0 == row) {
            self.rows.push((row, unit));
        }
        self.values.insert((row, list), value);
    }
}

fn show(value: f64, unit: Unit) -> String {
    let scaled = |v: f64, units: &[(f64, &str)]| {
        let &(div, name) = units.iter().rev().find(|(d, _)| v >= *d).unwrap_or(&units[0]);
        let x = v / div;
        if div == 1.0 || x >= 100.0 {
            format!("{x:.0} {name}")
        } else {
            format!("{x:.2} {name}")
        }
    };
    match unit {
        Unit::Ns => scaled(value, &[(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")]),
        Unit::Bytes => scaled(value, &[(1.0, "B"), (1024.0, "KiB"), (1048576.0, "MiB"), (1073741824.0, "GiB")]),
        Unit::Count if value >= 100.0 => format!("{value:.0}"),
        Unit::Count => format!("{value:.2}").trim_end_matches('0').trim_end_matches('.').to_owned(),
        Unit::Factor if value >= 100.0 => format!("×{value:.0}"),
        Unit::Factor => format!("×{value:.2}"),
    }
}

/// The median of criterion's last run of `group/function/list`, in ns per
/// iteration.
fn criterion_ns(group: &str, function: &str, list: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"), PathBuf::from);
    let path = target.join("criterion").join(group).join(function).join(list).join("new/estimates.json");
    let json = std::fs::read_to_string(path).ok()?;
    let median = &json[json.find("\"median\"")?..];
    let value = &median[median.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    value[..value.find([',', '}'])?].trim().parse().ok()
}

/// Wall time of `threads` threads each running `work` once, from the first
/// start to the last end, in ns.
fn parallel(threads: usize, work: &(dyn Fn() + Sync)) -> f64 {
    let barrier = Barrier::new(threads);
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    let t = Instant::now();
                    work();
                    (t, Instant::now())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a worker thread")).collect()
    });
    let start = spans.iter().map(|s| s.0).min().expect("threads");
    let end = spans.iter().map(|s| s.1).max().expect("threads");
    end.duration_since(start).as_nanos() as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Throughput of 2 threads on one set over that of 1 (each doing the same
/// work), and the same for a loop that touches no memory: what the machine
/// gave two threads at that moment (on a shared VM the second CPU is often
/// busy elsewhere). Set trials, each between two loop trials, until
/// `wanted` of them had loop trials on both sides that got two CPUs (a
/// ratio of at least [`TWO_CPUS`]), or `max_trials` ran: the medians over
/// those (over all trials if there were none), how many they were, and how
/// many trials ran.
fn scaling(set: &PinSet, names: &[String], wanted: usize, max_trials: usize) -> (f64, f64, usize, usize) {
    let pass = || {
        for name in names {
            black_box(set.is_match(black_box(name.as_bytes())));
        }
    };
    // Passes for about 10 ms on one thread, so that starting the threads
    // (tens of µs) does not count (1 pattern: 5 µs a pass).
    let start = Instant::now();
    (0..20).for_each(|_| pass());
    let passes = (20.0 * 10e6 / start.elapsed().as_nanos().max(1) as f64).ceil() as usize;
    let work = || (0..passes).for_each(|_| pass());
    let one = parallel(1, &work);
    let alu_rounds = {
        let t = Instant::now();
        let mut x = 1u64;
        for i in 0..1_000_000u64 {
            x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
        }
        (1e6 * one / t.elapsed().as_nanos().max(1) as f64) as u64
    };
    let alu = move || {
        let mut x = 1u64;
        for i in 0..alu_rounds {
            x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
        }
    };
    let ratio = |work: &(dyn Fn() + Sync)| 2.0 * parallel(1, work) / parallel(2, work);
    let mut before = ratio(&alu);
    // (set ratio, the lower of the loop's ratios around it)
    let mut all: Vec<(f64, f64)> = Vec::new();
    let mut free: Vec<(f64, f64)> = Vec::new();
    while free.len() < wanted && all.len() < max_trials {
        let set_ratio = ratio(&work);
        let after = ratio(&alu);
        all.push((set_ratio, before.min(after)));
        if before.min(after) >= TWO_CPUS {
            free.push((set_ratio, before.min(after)));
        }
        before = after;
    }
    let chosen = if free.is_empty() { &all } else { &free };
    (median(chosen.iter().map(|t| t.0).collect()), median(chosen.iter().map(|t| t.1).collect()), free.len(), all.len())
}

/// The control loop's ratio from which the machine counts as having given
/// two CPUs.
const TWO_CPUS: f64 = 1.8;

/// 16 names for the first-call check, near-misses first.
fn probes(names: &[String]) -> Vec<&String> {
    names.iter().rev().step_by(31).take(16).collect()
}

/// Under callgrind: compile `list`, then run `rounds` of `what` in
/// [`measured_rounds`], the only function callgrind counts (compiling draws
/// the exact table's random seed, so its count varies from run to run:
/// subtracting a run that only compiles would carry that noise into every
/// figure).
fn callgrind_worker(label: &str, what: &str, rounds: usize) {
    let list = corpus::lists().into_iter().find(|l| l.label == label).expect("a list label");
    let set = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
    let cset = CSet::compile(&list.patterns);
    let packed: Vec<u8> = list.names.iter().flat_map(|n| n.bytes()).collect();
    let lengths: Vec<usize> = list.names.iter().map(String::len).collect();
    let mut results = vec![0u8; lengths.len()];
    let probes = probes(&list.names);
    measured_rounds(rounds, || match what {
        "match" => list.names.iter().for_each(|n| {
            black_box(set.is_match(black_box(n.as_bytes())));
        }),
        "each" => {
            black_box(set.match_each(list.names.iter().map(|n| black_box(n.as_bytes())), &mut results));
        }
        "each_c" => {
            black_box(cset.match_each(black_box(&packed), &lengths, &mut results));
        }
        _ => probes.iter().for_each(|n| {
            black_box(set.is_match(black_box(n.as_bytes())));
        }),
    });
}

/// The rounds callgrind counts (`--toggle-collect`, in [`counted`]):
/// the library's calls and the loop around them.
#[inline(never)]
fn measured_rounds(rounds: usize, mut round: impl FnMut()) {
    for _ in 0..rounds {
        round();
    }
}

/// What the worker does under callgrind, in the functions `collect` names
/// (a `--toggle-collect` pattern): instructions, and reads that miss a
/// simulated 32 KiB L1 and 512 KiB L2 (8-way, 64-byte lines: this
/// project's smallest machines'), so that what a name may miss is counted,
/// not timed (issue 36).
#[derive(Clone, Copy)]
struct Counted {
    instructions: f64,
    l1_read_misses: f64,
    l2_read_misses: f64,
}

fn counted(label: &str, what: &str, rounds: usize, collect: &str) -> Option<Counted> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null", "--cache-sim=yes"])
        .args(["--I1=32768,8,64", "--D1=32768,8,64", "--LL=524288,8,64"])
        .arg(format!("--toggle-collect={collect}"))
        .arg(std::env::current_exe().ok()?)
        .args(["--callgrind-worker", label, what, &rounds.to_string()])
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // "Events    : Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw", then
    // "Collected : ..." in that order.
    let values = |prefix: &str| -> Option<Vec<String>> {
        let line = stderr.lines().find(|l| l.contains(prefix))?;
        Some(line.rsplit(':').next()?.split_whitespace().map(str::to_owned).collect())
    };
    let (events, collected) = (values("Events    :")?, values("Collected :")?);
    let event = |name: &str| -> Option<f64> {
        // (Trailing events that counted nothing are left off.)
        let i = events.iter().position(|e| e == name)?;
        collected.get(i).map_or(Some(0.0), |v| v.replace(',', "").parse().ok())
    };
    Some(Counted { instructions: event("Ir")?, l1_read_misses: event("D1mr")?, l2_read_misses: event("DLmr")? })
}

fn measure(list: &List, quick: bool, callgrind: bool, f: &mut Figures) {
    let l = list.label;
    let n = list.names.len() as f64;
    eprintln!("[{l}]");
    for (row, group, function) in [
        ("match ns/name", "crio-pin", "match"),
        ("match_index ns/name", "crio-pin", "match_index"),
        ("match_any ns/name", "crio-pin", "match_any"),
        ("match_each ns/name", "crio-pin", "match_each"),
        ("crio_pin_match_each ns/name", "crio-pin", "match_each_c"),
        ("match ANCHOR_GLOBS ns/name", "crio-pin", "match_anchor_globs"),
        ("match CASE_SENSITIVE ns/name", "crio-pin", "match_case_sensitive"),
        ("match STRICT ns/name", "crio-pin", "match_strict"),
        ("reference match ns/name", "reference", "match"),
    ] {
        if let Some(ns) = criterion_ns(group, function, l) {
            f.add(row, Unit::Ns, l, ns / n);
        }
    }
    if let (Some(fast), Some(slow)) =
        (f.values.get(&("match ns/name", l)), f.values.get(&("reference match ns/name", l)))
    {
        f.add("× reference (match)", Unit::Factor, l, slow / fast);
    }
    if let Some(ns) = criterion_ns("compile", "crio-pin", l) {
        f.add("compile ms", Unit::Count, l, ns / 1e6);
    }

    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let set = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
    let held = LIVE.load(Relaxed) - before;
    let text: usize = list.patterns.iter().map(String::len).sum();
    f.add("held MB", Unit::Count, l, held as f64 / 1e6);
    f.add("held / pattern text", Unit::Factor, l, held as f64 / text as f64);
    f.add("peak while compiling", Unit::Bytes, l, (PEAK.load(Relaxed) - before) as f64);

    let images = corpus::images(&list.names);
    let allocs = ALLOCS.load(Relaxed);
    for name in &list.names {
        black_box(set.is_match(name.as_bytes()));
        black_box(set.match_index(name.as_bytes()));
    }
    for image in &images {
        black_box(set.match_any(image));
    }
    f.add("allocations per match", Unit::Count, l, (ALLOCS.load(Relaxed) - allocs) as f64 / (3.0 * n));

    let (wanted, max_trials) = if quick { (3, 20) } else { (9, 100) };
    let (threads, alu, free, trials) = scaling(&set, &list.names, wanted, max_trials);
    f.add("2 threads / 1 thread", Unit::Factor, l, threads);
    f.add("(machine: ALU loop, 2 threads / 1)", Unit::Factor, l, alu);
    f.add("(trials with 2 CPUs before and after)", Unit::Count, l, free as f64);
    f.add("(trials run)", Unit::Count, l, trials as f64);

    if callgrind {
        let run = |what, rounds| counted(l, what, rounds, "*measured_rounds*");
        // The first call against later ones counts `is_match` alone (none if
        // it was inlined away): the loop's first round costs the harness a
        // few instructions more.
        let library =
            |rounds| counted(l, "probe", rounds, "*PinSet::is_match*").map(|c| c.instructions).filter(|&n| n > 0.0);
        // `base`: what entering and leaving `measured_rounds` costs. `match`
        // is counted as 11 rounds less 1, so that the misses are those of
        // a set in use, not of the first round filling the caches.
        if let (Some(base), Some(first), Some(all), Some(each), Some(each_c), Some(once), Some(eleven)) = (
            run("match", 0),
            run("match", 1),
            run("match", 11),
            run("each", 10),
            run("each_c", 10),
            library(1),
            library(11),
        ) {
            let per_name = |c: Counted| (c.instructions - base.instructions) / (10.0 * n);
            let rounds = |count: fn(Counted) -> f64| (count(all) - count(first)) / (10.0 * n);
            f.add("match instructions/name", Unit::Count, l, rounds(|c| c.instructions));
            f.add("match L1 read misses/name (32 KiB)", Unit::Count, l, rounds(|c| c.l1_read_misses));
            f.add("match L2 read misses/name (512 KiB)", Unit::Count, l, rounds(|c| c.l2_read_misses));
            f.add("match_each instructions/name", Unit::Count, l, per_name(each));
            f.add("crio_pin_match_each instructions/name", Unit::Count, l, per_name(each_c));
            f.add("first call / later, instructions", Unit::Factor, l, once / ((eleven - once) / 10.0));
        } else {
            eprintln!("  valgrind --tool=callgrind failed: no instruction counts");
        }
    }
}

fn table(f: &Figures, lists: &[List], targets: &[Target]) -> (String, usize) {
    let mut missed = 0;
    let mut out = String::from("| figure |");
    for list in lists {
        let _ = write!(out, " {} |", list.label);
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(lists.len()));
    for &(row, unit) in &f.rows {
        let _ = write!(out, "\n| {row} |");
        for list in lists {
            let cell = match (f.values.get(&(row, list.label)), target_for(targets, row, list.label)) {
                (None, _) => "–".to_owned(),
                (Some(&v), None) => show(v, unit),
                (Some(&v), Some(t)) => {
                    let sign = if t.at_most { "≤" } else { "≥" };
                    let met = if t.at_most { v <= t.bound } else { v >= t.bound };
                    missed += usize::from(!met);
                    let verdict = if met { "" } else { " **MISSED**" };
                    format!("{}{verdict} ({sign} {})", show(v, unit), show(t.bound, unit))
                }
            };
            let _ = write!(out, " {cell} |");
        }
    }
    out.push('\n');
    (out, missed)
}

/// `cargo test --bench table`: the engines agree on the small lists, the
/// OpenShift list compiles and pins what it should, the targets parse.
fn check() {
    let lists = corpus::lists();
    for list in lists.iter().filter(|l| l.patterns.len() <= 100) {
        let fast = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
        let slow = ReferenceSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
        for name in &list.names {
            assert_eq!(fast.match_index(name.as_bytes()), slow.match_index(name.as_bytes()), "{name}");
        }
    }
    let openshift = lists.iter().find(|l| l.label == "openshift").expect("the OpenShift list");
    let set = PinSet::compile(&openshift.patterns, Flags::DEFAULT).expect("the OpenShift list compiles");
    for name in &openshift.names {
        let exact = openshift.patterns.iter().position(|p| p.eq_ignore_ascii_case(name));
        assert_eq!(set.match_index(name.as_bytes()), exact, "{name}");
    }
    assert!(!targets().is_empty(), "no targets in {}", targets_file().display());
    println!("table: engines agree, targets parse (run `make bench` to measure)");
}

/// `--write-corpus DIR`: the generated lists as files, one line each, for
/// the benches of other languages (`make bench-go` reads the OpenShift
/// list) and for people: `patterns-{10k,100k}.txt`, and the OpenShift list
/// with its node's names, `openshift-patterns.txt`, `openshift-names.txt`.
fn write_corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let write = |file: &str, lines: &[String]| {
        let path = dir.join(file);
        std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("table: wrote {} ({} lines, checksum {:016x})", path.display(), lines.len(), corpus::checksum(lines));
    };
    write("patterns-10k.txt", &corpus::patterns(10_000));
    write("patterns-100k.txt", &corpus::patterns(100_000));
    let (patterns, names) = corpus::openshift();
    write("openshift-patterns.txt", &patterns);
    write("openshift-names.txt", &names);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, label, what, rounds] = &args[..] {
        if flag == "--callgrind-worker" {
            return callgrind_worker(label, what, rounds.parse().expect("rounds"));
        }
    }
    if let Some(dir) = args.iter().position(|a| a == "--write-corpus").and_then(|i| args.get(i + 1)) {
        return write_corpus(Path::new(dir));
    }
    if !args.iter().any(|a| a == "--bench") {
        return check();
    }
    let quick = args.iter().any(|a| a == "--quick");
    let callgrind = !args.iter().any(|a| a == "--no-callgrind")
        && Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    if !callgrind {
        eprintln!("table: no valgrind: no instruction counts (apt-get install valgrind)");
    }
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("build/bench"), PathBuf::from);
    let targets = targets();
    let mut lists = corpus::lists();
    if let Some(only) = args.iter().position(|a| a == "--lists").and_then(|i| args.get(i + 1)) {
        lists.retain(|l| only.split(',').any(|o| o == l.label));
    }
    let mut figures = Figures::default();
    for list in &lists {
        measure(list, quick, callgrind, &mut figures);
    }
    let (body, missed) = table(&figures, &lists, &targets);
    let text = format!(
        "- Machine: {}\n- Lists (patterns; names, mean name length): {}\n\n{body}\n{}\n",
        machine(),
        lists
            .iter()
            .map(|l| {
                let mean = l.names.iter().map(String::len).sum::<usize>() as f64 / l.names.len() as f64;
                format!("{} ({}; {}, {mean:.0} B)", l.label, l.patterns.len(), l.names.len())
            })
            .collect::<Vec<_>>()
            .join(", "),
        if missed == 0 { "Every target met.".to_owned() } else { format!("{missed} figures MISSED their target.") }
    );
    let mut tsv = String::from("figure\tengine\tsize\tvalue\tunit\tsampled\n");
    for ((row, list), value) in &figures.values {
        let (figure, engine) = match *row {
            "reference match ns/name" => ("match ns/name", "reference"),
            "crio_pin_match_each ns/name" => ("match_each ns/name (C ABI)", "crio-pin"),
            other => (other, "crio-pin"),
        };
        if let Some(l) = lists.iter().find(|l| l.label == *list && l.label != "openshift") {
            let _ = writeln!(tsv, "{figure}\t{engine}\t{}\t{value}\t-\tfalse", l.patterns.len());
        }
    }
    std::fs::create_dir_all(&out).expect("create the output directory");
    std::fs::write(out.join("table.md"), &text).expect("write table.md");
    std::fs::write(out.join("results.tsv"), tsv).expect("write results.tsv");
    print!("{text}");
}
