//! The criterion suite: one bench per function, list size and flag mode,
//! for crio-pin and (where it finishes in reasonable time) the reference
//! engine. Throughput is in names, so criterion reports names/s; the time
//! of one iteration is a pass over all 500 names (or one compile).
//!
//! ```text
//! cargo bench --bench functions                  # everything (~3 min)
//! cargo bench --bench functions -- 'match/'      # a filter
//! cargo bench --bench functions -- --save-baseline before   # then --baseline before
//! ```
//!
//! `make bench` runs it before `benches/table.rs`, which prints the summary
//! table (memory, threads, warm-up and instruction counts are there).

mod corpus;

use std::hint::black_box;
use std::os::raw::c_char;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use crio_pin::ffi;
use crio_pin::reference::ReferenceSet;
use crio_pin::{Flags, PinSet};

/// A set compiled through the C ABI, freed on drop.
struct CSet(*mut ffi::crio_pin_set);

impl CSet {
    fn compile(patterns: &[String]) -> CSet {
        let pointers: Vec<*const c_char> = patterns.iter().map(|p| p.as_ptr().cast()).collect();
        let lengths: Vec<usize> = patterns.iter().map(String::len).collect();
        // SAFETY: count pointers and lengths, valid for the call.
        let set = unsafe {
            ffi::crio_pin_compile(pointers.as_ptr(), lengths.as_ptr(), patterns.len(), 0, std::ptr::null_mut())
        };
        assert!(!set.is_null(), "the corpus compiles");
        CSet(set)
    }
}

impl Drop for CSet {
    fn drop(&mut self) {
        // SAFETY: from crio_pin_compile, freed once.
        unsafe { ffi::crio_pin_free(self.0) }
    }
}

fn label(size: usize) -> String {
    if size >= 1000 { format!("{}k", size / 1000) } else { size.to_string() }
}

fn benches(c: &mut Criterion) {
    let names = corpus::names();
    let images = corpus::images(&names);
    let packed: Vec<u8> = names.iter().flat_map(|n| n.bytes()).collect();
    let lengths: Vec<usize> = names.iter().map(String::len).collect();
    let image_names: usize = images.iter().map(Vec::len).sum();
    let lists: Vec<(usize, Vec<String>)> = corpus::SIZES.iter().map(|&s| (s, corpus::patterns(s))).collect();

    let mut group = c.benchmark_group("crio-pin");
    group.throughput(Throughput::Elements(names.len() as u64));
    for (size, patterns) in &lists {
        let set = PinSet::compile(patterns, Flags::DEFAULT).expect("the corpus compiles");
        let id = |f: &str| BenchmarkId::new(f, label(*size));
        group.bench_function(id("match"), |b| {
            b.iter(|| {
                for name in &names {
                    black_box(set.is_match(black_box(name.as_bytes())));
                }
            })
        });
        group.bench_function(id("match_index"), |b| {
            b.iter(|| {
                for name in &names {
                    black_box(set.match_index(black_box(name.as_bytes())));
                }
            })
        });
        group.throughput(Throughput::Elements(image_names as u64));
        group.bench_function(id("match_any"), |b| {
            b.iter(|| {
                for image in &images {
                    black_box(set.match_any(black_box(image)));
                }
            })
        });
        group.throughput(Throughput::Elements(names.len() as u64));
        let cset = CSet::compile(patterns);
        let mut results = vec![0u8; names.len()];
        group.bench_function(id("match_each (C ABI)"), |b| {
            b.iter(|| {
                // SAFETY: a live set, the packed names and their lengths,
                // one result byte per name.
                black_box(unsafe {
                    ffi::crio_pin_match_each(
                        cset.0,
                        black_box(packed.as_ptr().cast()),
                        lengths.as_ptr(),
                        lengths.len(),
                        results.as_mut_ptr(),
                    )
                })
            })
        });
        for (flags, mode) in [
            (Flags::ANCHOR_GLOBS, "ANCHOR_GLOBS"),
            (Flags::CASE_SENSITIVE, "CASE_SENSITIVE"),
            (Flags::STRICT, "STRICT"),
        ] {
            let set = PinSet::compile(patterns, flags).expect("the corpus compiles");
            group.bench_function(id(&format!("match {mode}")), |b| {
                b.iter(|| {
                    for name in &names {
                        black_box(set.is_match(black_box(name.as_bytes())));
                    }
                })
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("compile");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    for (size, patterns) in &lists {
        group.throughput(Throughput::Elements(*size as u64));
        group.bench_function(BenchmarkId::new("crio-pin", label(*size)), |b| {
            b.iter(|| PinSet::compile(black_box(patterns), Flags::DEFAULT).expect("compiles"))
        });
        // The reference takes ~0.1 ms a pattern: up to 1,000 only here (the
        // table times it once at 10k and 100k).
        if *size <= 1_000 {
            group.bench_function(BenchmarkId::new("reference", label(*size)), |b| {
                b.iter(|| ReferenceSet::compile(black_box(patterns), Flags::DEFAULT).expect("compiles"))
            });
        }
    }
    group.finish();

    // The reference engine's loop, up to 1,000 patterns (~0.3 µs per
    // pattern per name: 0.15 s a pass at 1,000).
    let mut group = c.benchmark_group("reference");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    group.throughput(Throughput::Elements(names.len() as u64));
    for (size, patterns) in lists.iter().filter(|(s, _)| *s <= 1_000) {
        let reference = ReferenceSet::compile(patterns, Flags::DEFAULT).expect("the corpus compiles");
        group.bench_function(BenchmarkId::new("match", label(*size)), |b| {
            b.iter(|| {
                for name in &names {
                    black_box(reference.is_match(black_box(name.as_bytes())));
                }
            })
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
        .configure_from_args()
}

criterion_group! {
    name = suite;
    config = config();
    targets = benches
}
criterion_main!(suite);
