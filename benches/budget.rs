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
//! `crio_pin_match` and `crio_pin_match_index` per name over the corpus'
//! 500 image names and names that hold a needle (or, for the lists built
//! against the engine, issue 27's, the names built against them). Writes
//! `DIR/budget.md` (default `build/bench`).

mod corpus;
mod harness;

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use crio_pin::oracle::ReferenceSet;
use harness::{machine, target_for, targets, CArgs, CSet, LIVE, PEAK};

/// A list to compile, and names to match against it.
struct List {
    label: &'static str,
    what: &'static str,
    /// CRIO_PIN_* flags.
    flags: u32,
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

    /// `len` bytes of `[a-z0-9]`.
    fn alphanumeric(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from(ALPHANUMERIC[(self.next() % 36) as usize])).collect()
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

const ALPHANUMERIC: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// Keys of `prefix` and then `bits` bytes, each one of a pair (`pair(bit,
/// which)`): 2^bits keys that differ only in those bytes.
fn pair_keys(prefix: &str, bits: u32, pair: impl Fn(u32, bool) -> u8) -> Vec<String> {
    (0..1u32 << bits)
        .map(|i| {
            let mut key = prefix.as_bytes().to_vec();
            key.extend((0..bits).map(|bit| pair(bit, i >> bit & 1 == 1)));
            String::from_utf8(key).expect("ASCII")
        })
        .collect()
}

/// Issue 27's lists, built against the engine (all within the limits):
/// exact keys alike but for bit 0x20 (collisions of a hash that ignored it)
/// or letter case under containerd's rules; keywords whose names walk 199
/// bytes down one; every 4-byte `[a-z0-9]` keyword, where every 4 bytes
/// of a name end a needle (match_index reads every one); and large random
/// lists, whose walks leave the cache at every byte. `scale` shrinks them
/// for the quick check.
fn crafted(text: &mut Text, scale: impl Fn(usize) -> usize, small: bool) -> Vec<List> {
    let mut lists = Vec::new();
    const PAIRS: [(u8, u8); 5] = [(b'@', b'`'), (b'[', b'{'), (b'\\', b'|'), (b']', b'}'), (b'^', b'~')];
    let bits = if small { 10 } else { 17 };
    let patterns = pair_keys("registry.example/org/app:v1-", bits, |bit, odd| {
        let (a, b) = PAIRS[bit as usize % PAIRS.len()];
        if odd {
            b
        } else {
            a
        }
    });
    let hits: Vec<String> = patterns.iter().step_by(patterns.len() / 16).cloned().collect();
    let misses = patterns.iter().take(16).map(|p| format!("{p}x")).collect();
    lists.push(List {
        label: "exact-0x20",
        what: "131,072 exact keys differing only in bit 0x20 of 17 bytes",
        flags: 0,
        patterns,
        names: [misses, hits.clone()].concat(),
        hits: hits.len(),
    });
    let bits = if small { 10 } else { 16 };
    let patterns = pair_keys("docker.io/library/nginx:v", bits, |bit, upper| {
        let c = b'a' + (bit % 3) as u8;
        if upper {
            c.to_ascii_uppercase()
        } else {
            c
        }
    });
    let hits: Vec<String> = patterns.iter().step_by(patterns.len() / 16).cloned().collect();
    let misses = patterns.iter().take(16).map(|p| p.to_ascii_uppercase() + "x").collect();
    lists.push(List {
        label: "exact-case",
        what: "65,536 tag-case variants under CRIO_PIN_CONTAINERD",
        flags: crio_pin::Flags::CONTAINERD.bits(),
        patterns,
        names: [misses, hits.clone()].concat(),
        hits: hits.len(),
    });
    let needles: Vec<String> = (0..scale(320_000)).map(|_| text.take(200)).collect();
    let names: Vec<String> =
        needles.iter().step_by(needles.len().div_ceil(64)).map(|n| format!("{}{}", &n[..199], text.take(56))).collect();
    lists.push(List {
        label: "kw-200-deep",
        what: "320,000 keywords of 200 random bytes; 255-byte names sharing a needle's first 199",
        flags: 0,
        patterns: needles.iter().map(|n| format!("*{n}*")).collect(),
        names,
        hits: 0,
    });
    drop(needles);
    let width = if small { 2 } else { 4 };
    let mut patterns = vec![String::new()];
    for _ in 0..width {
        patterns =
            patterns.iter().flat_map(|p| ALPHANUMERIC.iter().map(move |&c| format!("{p}{}", char::from(c)))).collect();
    }
    let patterns: Vec<String> = patterns.iter().map(|p| format!("*{p}*")).collect();
    let names = (0..64).map(|_| text.alphanumeric(255)).collect();
    lists.push(List {
        label: "kw-all-4",
        what: "every 4-byte [a-z0-9] keyword (1.68 M); 255-byte [a-z0-9] names",
        flags: 0,
        patterns,
        names,
        hits: 64,
    });
    let random_names = |text: &mut Text| (0..64).map(|_| text.take(100)).collect::<Vec<_>>();
    let patterns: Vec<String> = (0..scale(800_000)).map(|_| format!("*{}*", text.take(24))).collect();
    lists.push(List {
        label: "kw-800k",
        what: "800,000 random keywords of 24 bytes; 100-byte random names",
        flags: 0,
        patterns,
        names: random_names(text),
        hits: 0,
    });
    let patterns: Vec<String> = (0..scale(800_000))
        .map(|i| match i % 3 {
            0 => text.take(32),
            1 => format!("{}*", text.take(31)),
            _ => format!("*{}*", text.take(30)),
        })
        .collect();
    lists.push(List {
        label: "mixed-800k",
        what: "800,000 random mixed patterns of 32 bytes; 100-byte random names",
        flags: 0,
        patterns,
        names: random_names(text),
        hits: 0,
    });
    lists
}

/// Issue 55's lists, which stock CRI-O runs and the 32 MiB bound of issue
/// 36 refused: random keywords of 30 and 18 bytes, lists of an ordinary
/// shape (half `registry.corp.example.com/teamN/app:*`, 40 % `quay.io/orgN/app*`,
/// 10 % `*appN*`) of 40,000, 100,000 and 400,000 patterns, and 40,000
/// mixed patterns 30 % of them exact.
fn issue_55(text: &mut Text, scale: impl Fn(usize) -> usize) -> Vec<List> {
    let node = corpus::names();
    let mut lists = Vec::new();
    for (label, what, count, len) in [
        ("kw30-10k", "10,000 random keywords of 30 bytes", 10_000, 30),
        ("kw18-14k", "14,000 random keywords of 18 bytes", 14_000, 18),
    ] {
        let patterns: Vec<String> = (0..scale(count)).map(|_| format!("*{}*", text.take(len))).collect();
        let hits = holding_needles(&patterns, patterns.len().div_ceil(16));
        let names = node.iter().cloned().chain(hits.iter().cloned()).collect();
        lists.push(List { flags: 0, label, what, patterns, names, hits: hits.len() });
    }
    for (label, what, count) in [
        ("ordinary-40k", "40,000 patterns of an ordinary shape", 40_000),
        ("ordinary-100k", "100,000 patterns of an ordinary shape", 100_000),
        ("ordinary-400k", "400,000 patterns of an ordinary shape", 400_000),
    ] {
        let patterns: Vec<String> = (0..scale(count))
            .map(|i| match i % 10 {
                0..5 => format!("registry.corp.example.com/team{i}/app:*"),
                5..9 => format!("quay.io/org{i}/app*"),
                _ => format!("*app{i}*"),
            })
            .collect();
        let hits = holding_needles(&patterns, patterns.len().div_ceil(16));
        let names = node.iter().cloned().chain(hits.iter().cloned()).collect();
        lists.push(List { flags: 0, label, what, patterns, names, hits: hits.len() });
    }
    let patterns: Vec<String> = (0..scale(40_000))
        .map(|i| match i % 10 {
            0..3 => format!("registry.example/{}:v1", text.alphanumeric(20)),
            3..7 => format!("registry.example/{}*", text.alphanumeric(16)),
            _ => format!("*{}*", text.alphanumeric(12)),
        })
        .collect();
    let hits = holding_needles(&patterns, patterns.len().div_ceil(16));
    let names = node.iter().cloned().chain(hits.iter().cloned()).collect();
    let what = "40,000 mixed patterns, 30 % exact";
    lists.push(List { flags: 0, label: "mixed-40k", what, patterns, names, hits: hits.len() });
    lists
}

/// Issue 36's lists, built against what a walk reads:
///
/// - failure jumps: for each of `names` random 255-byte names `s`, the
///   keywords `*s[i..i + 40]z*` (`z` ≠ `s[i + 40]`): past byte 40 every
///   byte of `s` fails into the subtree of another needle, so each state a
///   walk reads is one no other byte read;
/// - case-folding text: keywords over k, K, K (U+212A), s, ſ, ß, ẞ, whose
///   names must be canonicalised before they are walked;
/// - long needles in the few-needle search, each candidate verified from
///   the needle's start: a keyword of 4,096 `a`s against 8 KiB names of
///   `a…aX` blocks, and eight keywords `*a…ab a…a*` against 255 `a`s.
fn attacks(text: &mut Text, scale: impl Fn(usize) -> usize, small: bool) -> Vec<List> {
    let mut lists = Vec::new();
    let sizes: &[(&str, usize)] = if small {
        &[("fj-5", 5)]
    } else {
        &[
            ("fj-5", 5),
            ("fj-8", 8),
            ("fj-10", 10),
            ("fj-14", 14),
            ("fj-25", 25),
            // The most names whose table fits the dense tier (128 MiB): its
            // limit row, the yardstick of the sparse tier's.
            ("fj-56", 56),
            ("fj-57", 57),
            ("fj-100", 100),
            ("fj-500", 500),
            ("fj-2000", 2000),
            ("fj-7250", 7250),
        ]
    };
    for &(label, count) in sizes {
        let names: Vec<String> = (0..count).map(|_| text.take(255)).collect();
        let mut patterns = Vec::with_capacity(count * 215);
        for s in &names {
            let s = s.as_bytes();
            for i in 0..=214 {
                let z = if s[i + 40] == b'z' { 'y' } else { 'z' };
                patterns.push(format!("*{}{z}*", std::str::from_utf8(&s[i..i + 40]).expect("ASCII")));
            }
        }
        let what = "keywords `*s[i..i+40]z*`, 215 for each random 255-byte name s; those names";
        lists.push(List { label, what, flags: 0, patterns, names: names.into_iter().take(64).collect(), hits: 0 });
    }
    const FOLDING: [&str; 7] = ["k", "K", "\u{212A}", "s", "\u{17F}", "\u{DF}", "\u{1E9E}"];
    let mut folding = |bytes: usize| {
        let mut word = String::new();
        while word.len() < bytes {
            word.push_str(FOLDING[(text.next() % 7) as usize]);
        }
        word
    };
    let patterns: Vec<String> = (0..scale(200_000)).map(|_| format!("*{}*", folding(16))).collect();
    let names = (0..64).map(|_| folding(250)).collect();
    lists.push(List {
        label: "fold-200k",
        what: "200,000 keywords over k, K, K, s, ſ, ß, ẞ; 250-byte names of them",
        flags: 0,
        patterns,
        names,
        hits: 0,
    });
    let block = format!("{}X", "a".repeat(4095));
    lists.push(List {
        label: "long-needle-8k",
        what: "one keyword of 4,096 `a`s; 8 KiB names of `a…aX` blocks",
        flags: 0,
        patterns: vec![format!("*{}*", "a".repeat(4096))],
        names: vec![block.repeat(2); 4],
        hits: 0,
    });
    // The same walked by the automaton alone (9 needles: no prefilter),
    // the yardstick of the row above.
    let mut patterns = vec![format!("*{}*", "a".repeat(4096))];
    patterns.extend((0..8).map(|i| format!("*zz{i}*")));
    lists.push(List {
        label: "long-needle-8k-walked",
        what: "the same keyword and 8 short ones (no prefilter: the automaton alone); the same names",
        flags: 0,
        patterns,
        names: vec![block.repeat(2); 4],
        hits: 0,
    });
    let patterns = (1..=8).map(|k| format!("*{}b{}*", "a".repeat(30 * k - 8), "a".repeat(8))).collect();
    lists.push(List {
        label: "long-needle-255",
        what: "8 keywords `*a…ab aaaaaaaa*` of 31 to 241 bytes; 255 `a`s",
        flags: 0,
        patterns,
        names: vec!["a".repeat(255); 4],
        hits: 0,
    });
    lists
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
        flags: 0,
        label: "kw-65k",
        what: "1,000 keywords of 65,000 random bytes",
        patterns,
        hits: 0,
        names: with(vec![]).1,
    });
    let patterns: Vec<String> = long.iter().map(|t| format!("{t}*")).collect();
    lists.push(List {
        flags: 0,
        label: "glob-65k",
        what: "1,000 globs of 65,000 random bytes",
        patterns,
        hits: 0,
        names: with(vec![]).1,
    });
    drop(long);
    let patterns = vec![format!("*{}*", text.take(scale(63 << 20)))];
    lists.push(List {
        flags: 0,
        label: "kw-63mib",
        what: "one keyword of 63 MiB",
        patterns,
        hits: 0,
        names: with(vec![]).1,
    });
    let patterns: Vec<String> = (0..scale(1_000_000)).map(|_| format!("*{}*", text.take(20))).collect();
    let (hits, names) = with(holding_needles(&patterns, 5_000));
    lists.push(List { flags: 0, label: "kw-1m", what: "1,000,000 keywords of 20 bytes", patterns, names, hits });
    let patterns: Vec<String> = (0..scale(1_000_000))
        .map(|i| match i % 3 {
            0 => text.take(30),
            1 => format!("{}*", text.take(29)),
            _ => format!("*{}*", text.take(28)),
        })
        .collect();
    let (hits, names) = with(holding_needles(&patterns, 5_000));
    lists.push(List {
        flags: 0,
        label: "mixed-1m",
        what: "1,000,000 mixed (exact, glob, keyword) of 30 bytes",
        patterns,
        names,
        hits,
    });
    let patterns: Vec<String> = (0..scale(1_000_000)).map(|_| text.take(30)).collect();
    let (hits, names) = with(holding_needles(&patterns, 5_000));
    lists.push(List { flags: 0, label: "exact-1m", what: "1,000,000 exact names of 30 bytes", patterns, names, hits });
    // The most patterns a list may hold, as short as the text limit lets
    // them be: what each pattern costs beyond its text.
    let patterns: Vec<String> = (0..scale(10_000_000)).map(|_| format!("*{}*", text.take(4))).collect();
    let (hits, names) = with(holding_needles(&patterns, 50_000));
    lists.push(List { flags: 0, label: "kw-10m", what: "10,000,000 keywords of 4 bytes", patterns, names, hits });
    let patterns: Vec<String> = (0..scale(10_000_000)).map(|_| text.take(6)).collect();
    let (hits, names) = with(holding_needles(&patterns, 50_000));
    lists.push(List { flags: 0, label: "exact-10m", what: "10,000,000 exact names of 6 bytes", patterns, names, hits });
    lists.extend(issue_55(&mut text, scale));
    lists.extend(crafted(&mut text, scale, small));
    lists.extend(attacks(&mut text, scale, small));
    let (patterns, names) = corpus::openshift();
    lists.push(List {
        flags: 0,
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
    match_index_ns: f64,
    /// crio_pin_tier()'s name for the set.
    tier: &'static str,
    /// For a sparse list whose compile passes 10 s: [`miss_floor_s`] of
    /// its states.
    miss_floor_s: Option<f64>,
    /// CRI-O's loop (one regexp a pattern, tried in turn) on the same
    /// names, ns a name: timed over its first [`LOOP_SAMPLE`] patterns and
    /// scaled to the list by count (a name no pattern pins meets every
    /// regexp, each independent of the others), for lists of 1,000
    /// patterns or more.
    crio_loop_ns: Option<f64>,
}

/// The floor of a compile that must read one line no other state's work
/// read for each of `states` states (as the failure links of a list built
/// so that each lands in another needle's subtree do): one walk of a random
/// cycle through as many 16-byte nodes, each step a dependent load, timed
/// in this run, in seconds. (The cycle is built first, untimed: Sattolo's
/// shuffle, xorshift.)
fn miss_floor_s(states: usize) -> f64 {
    let mut next: Vec<[u32; 4]> = (0..states as u32).map(|i| [i, 0, 0, 0]).collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..states).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % i as u64) as usize;
        let (a, b) = (next[i][0], next[j][0]);
        next[i][0] = b;
        next[j][0] = a;
    }
    let start = Instant::now();
    let mut at = 0u32;
    for _ in 0..states {
        at = black_box(next[at as usize][0]);
    }
    black_box(at);
    start.elapsed().as_secs_f64()
}

/// How many of a list's patterns CRI-O's loop is timed over (compiling a
/// regexp for each of a million patterns would take gigabytes).
const LOOP_SAMPLE: usize = 2_000;

/// CRI-O's loop's ns a name on `list`, as [`Figures::crio_loop_ns`] says.
fn crio_loop_ns(list: &List, names: &[&[u8]]) -> Option<f64> {
    let sample = &list.patterns[..list.patterns.len().min(LOOP_SAMPLE)];
    let flags = crio_pin::Flags::from_bits(list.flags).ok()?;
    let oracle = ReferenceSet::compile(sample, flags).ok()?;
    let ns = per_name(names, |n| oracle.is_match(n));
    Some(ns * list.patterns.len() as f64 / sample.len() as f64)
}

/// The figures of `list`, or why the library refuses it (a list past the
/// limits: refused at once, which is its budget row).
fn measure(list: &List) -> Result<Figures, String> {
    let text = list.patterns.iter().map(String::len).sum();
    // (The caller's arrays, as CRI-O's cgo wrapper holds them: not counted.)
    let args = CArgs::new(&list.patterns);
    let start = Instant::now();
    if let Some(refusal) = args.refusal(list.flags) {
        return Err(refusal);
    }
    let validate_s = start.elapsed().as_secs_f64();
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    let set = CSet::compile_flagged(&args, list.flags);
    let compile_s = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Relaxed) - before;
    let held = LIVE.load(Relaxed) - before;
    let names: Vec<&[u8]> = list.names.iter().map(String::as_bytes).collect();
    let match_ns = per_name(&names, |n| set.is_match(n));
    let match_index_ns = per_name(&names, |n| set.match_index(n) >= 0);
    let tier = set.tier();
    drop(set);
    let crio_loop_ns = if list.patterns.len() >= 1000 && crio_pin::Flags::CRIO_OPTIONS.bits() & list.flags == list.flags
    {
        crio_loop_ns(list, &names)
    } else {
        None
    };
    let miss_floor_s =
        match crio_pin::Flags::from_bits(list.flags).map(|f| crio_pin::PinSet::validate(&list.patterns, f)) {
            Ok(Ok(crio_pin::Tier::Sparse { states })) if compile_s > 10.0 => Some(miss_floor_s(states)),
            _ => None,
        };
    Ok(Figures { text, validate_s, compile_s, peak, held, match_ns, match_index_ns, tier, crio_loop_ns, miss_floor_s })
}

/// Nanoseconds a name of `names` costs `pinned`: the best of 5 runs of
/// about 0.1 s (the machine may be shared).
fn per_name(names: &[&[u8]], pinned: impl Fn(&[u8]) -> bool) -> f64 {
    let round = || names.iter().filter(|n| black_box(pinned(black_box(n)))).count();
    round();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let mut rounds = 0;
        while rounds < 3 || start.elapsed().as_secs_f64() < 0.1 {
            black_box(round());
            rounds += 1;
        }
        best = best.min(start.elapsed().as_nanos() as f64 / (rounds * names.len()) as f64);
    }
    best
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
        "| list | patterns | tier | text | validate s | compile s | peak MiB | held MiB | held / text | \
         match ns/name | match_index ns/name | match / limit row | CRI-O's loop / match |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut measured = Vec::new();
    for list in lists(false) {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|l| l == list.label)) {
            continue;
        }
        eprintln!("budget: {} ({})", list.label, list.what);
        let figures = measure(&list);
        measured.push((list.label, list.what, list.patterns.len(), figures));
    }
    // The fast tier's limit row: its costliest crafted list (the failure
    // jumps with the largest dense table), the yardstick of the second
    // tier's rows, measured in this run.
    let limit = measured
        .iter()
        .filter(|(l, ..)| l.starts_with("fj-"))
        .filter_map(|(l, _, _, f)| f.as_ref().ok().filter(|f| f.tier == "dense").map(|f| (*l, f.match_index_ns)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    for (l, what, count, figures) in &measured {
        let (l, what, count) = (*l, *what, *count);
        let f = match figures {
            Ok(f) => f,
            Err(refusal) => {
                let _ = writeln!(body, "| {l}: {what} | {count} | refused: {refusal} |||||||||||");
                continue;
            }
        };
        let ratio = f.held as f64 / f.text as f64;
        let worst = f.match_ns.max(f.match_index_ns);
        let to_limit = match (f.tier, limit) {
            ("sparse", Some((_, limit_ns))) => {
                cell("budget sparse / limit row", l, worst / limit_ns, format!("{:.2}", worst / limit_ns))
            }
            _ => String::new(),
        };
        let to_loop = f.crio_loop_ns.map_or(String::new(), |loop_ns| {
            cell("budget CRI-O's loop / match", l, loop_ns / worst, format!("{:.0}", loop_ns / worst))
        });
        let _ = writeln!(
            body,
            "| {l}: {what} | {count} | {} | {:.1} MiB | {:.3} | {} | {} | {} | ×{ratio:.2} | {} | {} | {to_limit} | {to_loop} |",
            f.tier,
            f.text as f64 / MIB,
            f.validate_s,
            match f.miss_floor_s {
                // Past 10 s, the compile against its floor of the same run.
                Some(floor) => cell(
                    "budget compile / miss floor",
                    l,
                    f.compile_s / floor,
                    format!("{:.2} (a miss a state: {floor:.2} s, ×{:.2})", f.compile_s, f.compile_s / floor),
                ),
                None => cell("budget compile s", l, f.compile_s, format!("{:.2}", f.compile_s)),
            },
            cell("budget peak MiB", l, f.peak as f64 / MIB, format!("{:.0}", f.peak as f64 / MIB)),
            cell("budget held MiB", l, f.held as f64 / MIB, format!("{:.1}", f.held as f64 / MIB)),
            cell("budget match ns/name", l, f.match_ns, format!("{:.0}", f.match_ns)),
            cell("budget match ns/name", l, f.match_index_ns, format!("{:.0}", f.match_index_ns)),
        );
    }
    if let Some((label, ns)) = limit {
        let _ = writeln!(body, "\nThe fast tier's limit row: {label}, {ns:.0} ns a name (`match_index`).");
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
        let args = CArgs::new(&list.patterns);
        // (No list within the limits is refused.)
        assert_eq!(args.refusal(list.flags), None, "{}", list.label);
        let set = CSet::compile_flagged(&args, list.flags);
        for name in &list.names[list.names.len() - list.hits..] {
            assert!(set.match_index(name.as_bytes()) >= 0, "{}: {name:?} is pinned", list.label);
        }
        for name in &list.names[..list.names.len() - list.hits] {
            assert_eq!(set.is_match(name.as_bytes()), set.match_index(name.as_bytes()) >= 0, "{}", list.label);
        }
    }
    for figure in [
        "budget compile s",
        "budget peak MiB",
        "budget held MiB",
        "budget match ns/name",
        "budget sparse / limit row",
        "budget CRI-O's loop / match",
        "budget compile / miss floor",
    ] {
        assert!(target_for(&targets(), figure, "kw-65k").is_some(), "no target for {figure:?}");
    }
    println!("budget: the lists compile and pin their hits, targets parse (run `make bench` to measure)");
}
