//! `cargo bench`: pfind's library walker against the crates a Rust programmer would
//! reach for instead, all counting the regular files of the same generated tree.
//!
//! Every competitor is configured for a full, unfiltered walk: no sorting, hidden
//! files included, no ignore files, links not followed (the set-up used by the
//! `bench_walk` comparison of walking crates). Each benchmark asserts its count, so a
//! walker that skips files cannot look fast.

use criterion::{criterion_group, criterion_main, Criterion};
use pfind::output::Output;
use pfind::output::OutputMode;
use pfind::report::Reporter;
use pfind::Config;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Shapes: (name, directories, files per directory, nesting depth of each directory).
const SHAPES: &[(&str, usize, usize, usize)] =
    &[("flat_100x100", 100, 100, 0), ("nested_300x30", 300, 30, 4)];

fn build_tree(root: &Path, dirs: usize, files: usize, depth: usize) -> usize {
    for d in 0..dirs {
        let mut dir = root.to_path_buf();
        for level in 0..depth {
            dir.push(format!("d{}_{}", level, d % (level * 7 + 3)));
        }
        dir.push(format!("leaf_{d:04}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..files {
            std::fs::write(dir.join(format!("file_{f:05}.jpg")), b"x").unwrap();
        }
    }
    dirs * files
}

fn count_pfind(root: &Path) -> usize {
    let mut config = Config::new(vec![root.as_os_str().to_owned()]);
    config.output = OutputMode::Count;
    let output = Output::to_writer(Box::new(std::io::sink()));
    pfind::run(&config, &output, &Reporter::new()).matches as usize
}

fn count_walkdir(root: &Path) -> usize {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .count()
}

fn count_jwalk(root: &Path) -> usize {
    jwalk::WalkDir::new(root)
        .sort(false)
        .skip_hidden(false)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .count()
}

fn count_ignore_parallel(root: &Path) -> usize {
    let count = AtomicUsize::new(0);
    ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(false)
        .threads(num_cpus::get())
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                if entry.is_ok_and(|e| e.file_type().is_some_and(|t| t.is_file())) {
                    count.fetch_add(1, Ordering::Relaxed);
                }
                ignore::WalkState::Continue
            })
        });
    count.into_inner()
}

fn walkers(c: &mut Criterion) {
    type Walk = fn(&Path) -> usize;
    let walkers: [(&str, Walk); 4] = [
        ("pfind", count_pfind),
        ("walkdir", count_walkdir),
        ("jwalk", count_jwalk),
        ("ignore_parallel", count_ignore_parallel),
    ];
    for &(shape, dirs, files, depth) in SHAPES {
        let tmp = tempfile::tempdir().unwrap();
        let expected = build_tree(tmp.path(), dirs, files, depth);
        let mut group = c.benchmark_group(shape);
        for (name, walk) in walkers {
            assert_eq!(walk(tmp.path()), expected, "{name} on {shape}");
            group.bench_function(name, |b| b.iter(|| walk(tmp.path())));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = walkers
}
criterion_main!(benches);
