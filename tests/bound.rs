//! The bound, counted (docs/reliability.md, "The bound"): what matching a
//! name may cost is asserted in the units the design bounds (needle bytes
//! compared, table bytes), never in time, on the worst cases known and on
//! lists a search builds to make the count grow.

use crio_pin::oracle::ReferenceSet;
use crio_pin::{ErrorKind, Flags, PinSet, MAX_AUTOMATON_BYTES};

/// The prefilter's allowance for a name of `len` bytes, as its doc states
/// it (2 bytes compared per name byte, and 256).
fn allowance(len: usize) -> usize {
    2 * len + 256
}

/// `set` answers `name` as CRI-O's loop does, and its prefilter's
/// verification charged at most its allowance; returns that count.
fn checked(set: &PinSet, oracle: &ReferenceSet, name: &[u8]) -> crio_pin::Verification {
    let v = set.verification(name).expect("a list of a few needles has a prefilter");
    assert_eq!(v.allowance, allowance(name.len()));
    assert!(v.charged <= v.allowance, "{v:?}");
    assert_eq!(v.gave_up, v.unbounded > v.allowance, "{v:?}");
    assert_eq!(set.match_index(name), oracle.match_index(name), "{:?}", String::from_utf8_lossy(name));
    assert_eq!(set.is_match(name), oracle.is_match(name), "{:?}", String::from_utf8_lossy(name));
    v
}

/// Issue 36's long needles: a candidate at every position, each compared
/// from the needle's start. Unbounded, the verification costs up to
/// hundreds of bytes per name byte; within the allowance the search gives
/// up and the automaton answers, one step a byte.
#[test]
fn long_needles_cost_a_bounded_verification() {
    let needles: Vec<String> = (1..=8).map(|k| format!("*{}b{}*", "a".repeat(30 * k - 8), "a".repeat(8))).collect();
    let set = PinSet::compile(&needles, Flags::DEFAULT).unwrap();
    let oracle = ReferenceSet::compile(&needles, Flags::DEFAULT).unwrap();
    for len in [31, 64, 100, 128, 200, 255] {
        let v = checked(&set, &oracle, "a".repeat(len).as_bytes());
        if len == 255 {
            assert!(v.unbounded > 40 * len && v.gave_up, "{v:?}");
        }
    }
    // An image name's candidates are few, and a needle found is not charged.
    let hand = ["quay.io/myorg/*", "*monitoring*", "docker.io/library/nginx:latest"];
    let set = PinSet::compile(hand, Flags::DEFAULT).unwrap();
    let oracle = ReferenceSet::compile(hand, Flags::DEFAULT).unwrap();
    let v = checked(&set, &oracle, b"docker.io/grafana/monitoring-agent:1.4");
    assert_eq!((v.unbounded, v.gave_up), (0, false), "{v:?}");

    let long = [format!("*{}*", "a".repeat(4096))];
    let set = PinSet::compile(&long, Flags::DEFAULT).unwrap();
    let oracle = ReferenceSet::compile(&long, Flags::DEFAULT).unwrap();
    let blocks = format!("{}X", "a".repeat(4095)).repeat(2);
    let v = checked(&set, &oracle, blocks.as_bytes());
    assert!(v.unbounded > 1000 * blocks.len() && v.gave_up, "{v:?}");
    let v = checked(&set, &oracle, "a".repeat(8192).as_bytes());
    assert!(!v.gave_up && v.unbounded == 0, "{v:?}");
}

/// Deterministic choices (xorshift).
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn text(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| if self.below(8) == 0 { b'b' } else { b'a' }).collect()
    }
}

/// A search for slow lists rather than the shapes named above: up to 8
/// keywords over `a` and `b` and a name of up to 255 bytes, mutated one
/// change at a time, keeping each change that makes the unbounded
/// verification cost more per name byte. Every list and name it tries
/// answers as CRI-O does and charges at most its allowance; the search
/// does find lists past the allowance, so the bound is what holds them.
#[test]
fn a_search_for_slow_lists_stays_within_the_allowance() {
    let mut draw = Draw(0x36b0_0d0f_2545_f491);
    let mut best_ratio = 0.0f64;
    for round in 0..8 {
        let count = 1 + draw.below(8);
        let mut needles: Vec<Vec<u8>> = (0..count)
            .map(|_| {
                let len = 1 + draw.below(40);
                draw.text(len)
            })
            .collect();
        let len = 16 + draw.below(240);
        let mut name = draw.text(len);
        let mut score = 0.0;
        for _ in 0..300 {
            let (mut n, mut m) = (needles.clone(), name.clone());
            match draw.below(5) {
                0 => {
                    let k = draw.below(n.len());
                    let at = draw.below(n[k].len());
                    n[k][at] ^= b'a' ^ b'b';
                }
                1 => {
                    let k = draw.below(n.len());
                    if n[k].len() < 250 {
                        let at = draw.below(n[k].len() + 1);
                        n[k].insert(at, b'a');
                    }
                }
                2 if n.len() < 8 => {
                    let len = 1 + draw.below(n[0].len().max(2));
                    n.push(draw.text(len));
                }
                3 => {
                    let at = draw.below(m.len());
                    m[at] ^= b'a' ^ b'b';
                }
                _ if m.len() < 255 => m.push(b'a'),
                _ => {}
            }
            let patterns: Vec<String> =
                n.iter().map(|t| format!("*{}*", String::from_utf8(t.clone()).unwrap())).collect();
            let set = PinSet::compile(&patterns, Flags::DEFAULT).unwrap();
            let Some(v) = set.verification(&m) else { continue };
            let oracle = ReferenceSet::compile(&patterns, Flags::DEFAULT).unwrap();
            checked(&set, &oracle, &m);
            let ratio = v.unbounded as f64 / m.len() as f64;
            if ratio >= score {
                (needles, name, score) = (n, m, ratio);
            }
        }
        best_ratio = best_ratio.max(score);
        assert!(score > 0.0, "round {round}: nothing verified");
    }
    assert!(best_ratio > 2.0 + 256.0 / 255.0, "the search found no list past the allowance ({best_ratio:.1} a byte)");
}

/// The table the globs and keywords need is what decides, and it is the
/// same figure whatever their order, their kind or the exact patterns
/// beside them: a list is refused whole (no pattern to blame), by
/// `validate` as by `compile`.
#[test]
fn the_automaton_bound_counts_distinct_prefixes_and_classes() {
    // 2^k keywords of k letters from {a, b}: 2^(k+1) - 1 states, 4 columns.
    let table = |k: u32| (1usize << (k + 1)) * 4 * 4;
    let k = (0..30).take_while(|&k| table(k) <= MAX_AUTOMATON_BYTES).last().unwrap();
    let words = |k: u32| -> Vec<String> {
        (0..1u32 << k).map(|i| (0..k).map(|b| if i >> b & 1 == 1 { 'b' } else { 'a' }).collect()).collect()
    };
    let fits: Vec<String> = words(k).iter().map(|w| format!("*{w}*")).collect();
    assert_eq!(PinSet::validate(&fits, Flags::DEFAULT), Ok(()));
    let mut over: Vec<String> = words(k + 1).iter().map(|w| format!("{w}*")).collect();
    over.insert(0, "registry.k8s.io/pause:3.10".into());
    over.reverse();
    let err = PinSet::validate(&over, Flags::DEFAULT).unwrap_err();
    assert_eq!(err.pattern_index(), None);
    let ErrorKind::AutomatonTooLarge { table_bytes, limit } = *err.kind() else { panic!("{err}") };
    assert_eq!((table_bytes, limit), (table(k + 1), MAX_AUTOMATON_BYTES));
    assert_eq!(PinSet::compile(&over, Flags::DEFAULT).unwrap_err(), err);
}
