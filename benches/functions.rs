//! The time figures (criterion): one bench per function, list and flag
//! mode, for crio-pin and (up to 1,000 patterns, where it finishes in
//! reasonable time) the reference engine. Throughput is in names; one
//! iteration is a pass over all the names of the list's node (or one
//! compile).
//!
//! ```text
//! cargo bench --bench functions                  # everything (~4 min)
//! cargo bench --bench functions -- 'crio-pin/match/'      # a filter
//! cargo bench --bench functions -- --save-baseline before   # then --baseline before
//! ```
//!
//! Bench ids are `GROUP/FUNCTION/LIST` with LIST one of `corpus::LISTS`:
//! `benches/table.rs` reads criterion's estimates under
//! `target/criterion/GROUP/FUNCTION/LIST/new/` and prints them beside their
//! targets.

mod corpus;

use std::hint::black_box;
use std::os::raw::c_char;
use std::time::Duration;

use crio_pin::ffi;
use crio_pin::oracle::ReferenceSet;
use crio_pin::{Flags, PinSet};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};

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

fn pass(set: &PinSet, names: &[String]) {
    for name in names {
        black_box(set.is_match(black_box(name.as_bytes())));
    }
}

fn benches(c: &mut Criterion) {
    let lists = corpus::lists();

    let mut group = c.benchmark_group("crio-pin");
    for list in &lists {
        let names = &list.names;
        let images = corpus::images(names);
        let packed: Vec<u8> = names.iter().flat_map(|n| n.bytes()).collect();
        let lengths: Vec<usize> = names.iter().map(String::len).collect();
        let set = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
        let id = |f: &str| BenchmarkId::new(f, list.label);
        group.throughput(Throughput::Elements(names.len() as u64));
        group.bench_function(id("match"), |b| b.iter(|| pass(&set, names)));
        group.bench_function(id("match_index"), |b| {
            b.iter(|| {
                for name in names {
                    black_box(set.match_index(black_box(name.as_bytes())));
                }
            })
        });
        let mut results = vec![0u8; names.len()];
        group.bench_function(id("match_each"), |b| {
            b.iter(|| black_box(set.match_each(names.iter().map(|n| black_box(n.as_bytes())), &mut results)))
        });
        let cset = CSet::compile(&list.patterns);
        group.bench_function(id("match_each_c"), |b| {
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
        group.throughput(Throughput::Elements(images.iter().map(Vec::len).sum::<usize>() as u64));
        group.bench_function(id("match_any"), |b| {
            b.iter(|| {
                for image in &images {
                    black_box(set.match_any(black_box(image)));
                }
            })
        });
        group.throughput(Throughput::Elements(names.len() as u64));
        for (flags, mode) in [
            (Flags::ANCHOR_GLOBS, "anchor_globs"),
            (Flags::CASE_SENSITIVE, "case_sensitive"),
            (Flags::STRICT, "strict"),
        ] {
            let set = PinSet::compile(&list.patterns, flags).expect("the corpus compiles");
            group.bench_function(id(&format!("match_{mode}")), |b| b.iter(|| pass(&set, names)));
        }
    }
    group.finish();

    let mut group = c.benchmark_group("compile");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    for list in &lists {
        group.throughput(Throughput::Elements(list.patterns.len() as u64));
        group.bench_function(BenchmarkId::new("crio-pin", list.label), |b| {
            b.iter(|| PinSet::compile(black_box(&list.patterns), Flags::DEFAULT).expect("compiles"))
        });
        // The reference takes ~0.1 ms a pattern: up to 1,000 only.
        if list.patterns.len() <= 1_000 {
            group.bench_function(BenchmarkId::new("reference", list.label), |b| {
                b.iter(|| ReferenceSet::compile(black_box(&list.patterns), Flags::DEFAULT).expect("compiles"))
            });
        }
    }
    group.finish();

    // CRI-O's loop, up to 1,000 patterns (its time grows with every pattern).
    let mut group = c.benchmark_group("reference");
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    for list in lists.iter().filter(|l| l.patterns.len() <= 1_000) {
        group.throughput(Throughput::Elements(list.names.len() as u64));
        let reference = ReferenceSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
        group.bench_function(BenchmarkId::new("match", list.label), |b| {
            b.iter(|| {
                for name in &list.names {
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
