//! `cargo bench --bench glob`: compiling hostile globs, the patterns of issue 20
//! (defect 1) that took a minute or more, at their sizes there and at 1 MB.
//!
//! Each pattern is read and compiled as the command line does it (`Glob::new`:
//! `GlobPattern::parse`, then `Glob::compile`), and each benchmark asserts whether it
//! is accepted, so a pattern refused at its first byte cannot pass for a fast
//! compile. (A command-line argument is at most 128 KiB on Linux; the 1 MB patterns
//! show how the time grows.)

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pfind::filter::glob::Glob;
use std::hint::black_box;
use std::time::Duration;

const MB: usize = 1 << 20;

/// `piece` repeated up to `size` bytes.
fn repeated(piece: &str, size: usize) -> Vec<u8> {
    piece.repeat(size / piece.len()).into_bytes()
}

/// Bracket soup: the pieces a glob's brackets are made of, at random, `size` bytes.
fn soup(size: usize) -> Vec<u8> {
    let pieces = [
        "[",
        "[",
        "]",
        "!",
        "^",
        "a-z",
        "\\]",
        "[:",
        "[:alpha:]",
        "a",
        "é",
        "*",
        "?",
    ];
    let mut rng = fastrand::Rng::with_seed(20);
    let mut soup = Vec::with_capacity(size + 16);
    while soup.len() < size {
        soup.extend_from_slice(pieces[rng.usize(..pieces.len())].as_bytes());
    }
    soup
}

fn compile_hostile(c: &mut Criterion) {
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("[[. 3KB", repeated("[[.", 3_000), false),
        ("[[. 6KB", repeated("[[.", 6_000), false),
        ("[[. 9KB", repeated("[[.", 9_000), false),
        ("[ x64000", repeated("[", 64_000), true),
        ("[[. 1MB", repeated("[[.", MB), false),
        ("[ 1MB", repeated("[", MB), true),
        ("[! 1MB", repeated("[!", MB), true),
        ("[[: 1MB", repeated("[[:", MB), true),
        ("[[.a.] 1MB", repeated("[[.a.]", MB), true),
        (
            "[ then classes 1MB",
            [&b"["[..], &repeated("[:alpha:]", MB)].concat(),
            true,
        ),
        (
            "one set 1MB",
            [&b"["[..], &repeated("ab", MB), b"]"].concat(),
            true,
        ),
        ("sets 1MB", repeated("[ab]*", MB), true),
        ("soup 1MB", soup(MB), true),
    ];
    let mut group = c.benchmark_group("compile_hostile");
    for (name, pattern, accepted) in &cases {
        assert_eq!(Glob::new(pattern, false).is_ok(), *accepted, "{name}");
        group.bench_with_input(BenchmarkId::from_parameter(name), pattern, |b, pattern| {
            b.iter(|| Glob::new(black_box(pattern), false).is_ok())
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(2));
    targets = compile_hostile
}
criterion_main!(benches);
