//! `make bench`'s compile budget: the most expensive lists the library
//! accepts, compiled through the C ABI as CRI-O does at start-up and on
//! every reload, each figure beside its target (the `budget …` rows of
//! "## Targets" in `docs/BENCHMARKS.md`).
//!
//! ```text
//! cargo bench --bench budget -- [--lists kw-65k,exact-1m] [--out DIR]
//! cargo test --release --bench budget    # quick check: small lists, targets parse
//! ```
//!
//! For each list: `crio_pin_validate` time, compile time, the heap's peak while compiling and what
//! the set then holds (a counting allocator: the library's own memory,
//! not the caller's copy of the patterns), held over pattern text, and
//! `crio_pin_match_index` per name over the corpus' 500 image names and
//! names that hold a needle. Writes `DIR/budget.md` (default `build/bench`).

mod corpus;
mod harness;

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use harness::{machine, target_for, targets, CArgs, CSet, LIVE, PEAK};

/// A list to compile, and names to match against it.
struct List {
    label: &'static str,
    what: &'static str,
    patterns: Vec<String>,
    /// The node's names and then `hits`.
    names: Vec<String>,
    /// Names that hold a needle: each must be pinned.
    hits: usize,
}

/// Deterministic text (xorshift): printable ASCII without `*`, so that the
/// generated patterns are what their label says.
struct Text(u64);

impl Text {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn take(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| {
                let c = b'!' + (self.next() % 93) as u8;
                char::from(if c == b'*' { b'~' } else { c })
            })
            .collect()
    }
}

/// Names that every `step`-th pattern pins: an exact pattern itself, a
/// glob's or keyword's text inside an image name.
fn holding_needles(patterns: &[String], step: usize) -> Vec<String> {
    let name = |p: &String| match p.strip_suffix('*') {
        Some(needle) => format!("registry.example/{}:v1", needle.trim_start_matches('*')),
        None => p.clone(),
    };
    patterns.iter().step_by(step).map(name).collect()
}

fn lists(small: bool) -> Vec<List> {
    // `small`: the same shapes, a hundredth of the size (the quick check).
    let scale = |n: usize| if small { n.div_ceil(100) } else { n };
    let node = corpus::names();
    let with = |hits: Vec<String>| (hits.len(), node.iter().cloned().chain(hits).collect::<Vec<_>>());
    let mut text = Text(0x9e37_79b9_7f4a_7c15);
    let mut lists = Vec::new();

    let long: Vec<String> = (0..scale(1000)).map(|_| text.take(65_000)).collect();
    let patterns: Vec<String> = long.iter().map(|t| format!("*{t}*")).collect();
    lists.push(List {
        label: "kw-65k",
        what: "1,000 keywords of 65,000 random bytes",
        patterns,
        hits: 0,
        names: with(vec![]).1,
    });
    let patterns: Vec<String> = long.iter().map(|t| format!("{t}*")).collect();
    lists.push(List {
        label: "glob-65k",
        what: "1,000 globs of 65,000 random bytes",
        patterns,
        hits: 0,
        names: with(vec![]).1,
    });
    drop(long);
    let patterns = vec![format!("*{}*", text.take(scale(63 << 20)))];
    lists.push(List { label: "kw-63mib", what: "one keyword of 63 MiB", patterns, hits: 0, names: with(vec![]).1 });
    let patterns: Vec<String> = (0..scale(1_000_000)).map(|_| format!("*{}*", text.take(20))).collect();
    let (hits, names) = with(holding_needles(&patterns, 5_000));
    lists.push(List { label: "kw-1m", what: "1,000,000 keywords of 20 bytes", patterns, names, hits });
    let patterns: Vec<String> = (0..scale(1_000_000))
        .map(|i| match i % 3 {
            0 => text.take(30),
            1 => format!("{}*", text.take(29)),
            _ => format!("*{}*", text.take(28)),
        })
        .collect();
    let (hits, names) = with(holding_needles(&patterns, 5_000));
    lists.push(List {
        label: "mixed-1m",
        what: "1,000,000 mixed (exact, glob, keyword) of 30 bytes",
        patterns,
        names,
        hits,
    });
    let patterns: Vec<String> = (0..scale(1_000_000)).map(|_| text.take(30)).collect();
    let (hits, names) = with(holding_needles(&patterns, 5_000));
    lists.push(List { label: "exact-1m", what: "1,000,000 exact names of 30 bytes", patterns, names, hits });
    // The most patterns a list may hold, as short as the text limit lets
    // them be: what each pattern costs beyond its text.
    let patterns: Vec<String> = (0..scale(10_000_000)).map(|_| format!("*{}*", text.take(4))).collect();
    let (hits, names) = with(holding_needles(&patterns, 50_000));
    lists.push(List { label: "kw-10m", what: "10,000,000 keywords of 4 bytes", patterns, names, hits });
    let patterns: Vec<String> = (0..scale(10_000_000)).map(|_| text.take(6)).collect();
    let (hits, names) = with(holding_needles(&patterns, 50_000));
    lists.push(List { label: "exact-10m", what: "10,000,000 exact names of 6 bytes", patterns, names, hits });
    let (patterns, names) = corpus::openshift();
    lists.push(List {
        label: "openshift",
        what: "OpenShift: 50,000 digests and a few globs",
        patterns,
        names,
        hits: 0,
    });
    lists
}

/// The figures of one list.
struct Figures {
    text: usize,
    validate_s: f64,
    compile_s: f64,
    peak: usize,
    held: usize,
    match_ns: f64,
}

fn measure(list: &List) -> Figures {
    let text = list.patterns.iter().map(String::len).sum();
    // (The caller's arrays, as CRI-O's cgo wrapper holds them: not counted.)
    let args = CArgs::new(&list.patterns);
    let start = Instant::now();
    assert!(args.validate(), "{}: the list is valid", list.label);
    let validate_s = start.elapsed().as_secs_f64();
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    let set = CSet::compile_args(&args);
    let compile_s = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Relaxed) - before;
    let held = LIVE.load(Relaxed) - before;
    // Enough rounds for about 0.2 s of matching.
    let names: Vec<&[u8]> = list.names.iter().map(String::as_bytes).collect();
    let round = || names.iter().map(|n| black_box(set.match_index(black_box(n)))).filter(|&i| i >= 0).count();
    round();
    let start = Instant::now();
    let mut rounds = 0;
    while rounds < 3 || start.elapsed().as_secs_f64() < 0.2 {
        black_box(round());
        rounds += 1;
    }
    let match_ns = start.elapsed().as_nanos() as f64 / (rounds * names.len()) as f64;
    drop(set);
    Figures { text, validate_s, compile_s, peak, held, match_ns }
}

const MIB: f64 = 1_048_576.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        return check();
    }
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("build/bench"), PathBuf::from);
    let only = args.iter().position(|a| a == "--lists").and_then(|i| args.get(i + 1)).cloned();
    let targets = targets();
    let mut missed = 0;
    let mut cell = |figure: &str, label: &str, value: f64, shown: String| {
        let Some(t) = target_for(&targets, figure, label) else { return shown };
        let met = if t.at_most { value <= t.bound } else { value >= t.bound };
        missed += usize::from(!met);
        format!("{shown}{} ({} {})", if met { "" } else { " **MISSED**" }, if t.at_most { "≤" } else { "≥" }, t.bound)
    };
    let mut body = String::from(
        "| list | patterns | text | validate s | compile s | peak MiB | held MiB | held / text | match ns/name |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for list in lists(false) {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|l| l == list.label)) {
            continue;
        }
        eprintln!("budget: {} ({})", list.label, list.what);
        let f = measure(&list);
        let l = list.label;
        let ratio = f.held as f64 / f.text as f64;
        let _ = writeln!(
            body,
            "| {l}: {} | {} | {:.1} MiB | {:.3} | {} | {} | {:.1} | {} | {} |",
            list.what,
            list.patterns.len(),
            f.text as f64 / MIB,
            f.validate_s,
            cell("budget compile s", l, f.compile_s, format!("{:.2}", f.compile_s)),
            cell("budget peak MiB", l, f.peak as f64 / MIB, format!("{:.0}", f.peak as f64 / MIB)),
            f.held as f64 / MIB,
            cell("budget held / pattern text", l, ratio, format!("×{ratio:.2}")),
            cell("budget match ns/name", l, f.match_ns, format!("{:.0}", f.match_ns)),
        );
    }
    let text = format!(
        "- Machine: {}\n\n{body}\n{}\n",
        machine(),
        if missed == 0 {
            "Every budget target met.".to_owned()
        } else {
            format!("{missed} figures MISSED their target.")
        }
    );
    std::fs::create_dir_all(&out).expect("create the output directory");
    std::fs::write(out.join("budget.md"), &text).expect("write budget.md");
    print!("{text}");
}

/// `cargo test --bench budget`: every list, at a hundredth of its size,
/// compiles and pins its hits; the targets parse.
fn check() {
    for list in lists(true) {
        let set = CSet::compile(&list.patterns);
        for name in &list.names[list.names.len() - list.hits..] {
            assert!(set.match_index(name.as_bytes()) >= 0, "{}: {name:?} is pinned", list.label);
        }
    }
    for figure in ["budget compile s", "budget peak MiB", "budget held / pattern text", "budget match ns/name"] {
        assert!(target_for(&targets(), figure, "kw-65k").is_some(), "no target for {figure:?}");
    }
    println!("budget: the lists compile and pin their hits, targets parse (run `make bench` to measure)");
}
