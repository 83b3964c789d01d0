//! The library walker driven directly: both directory readers and the `fstatat`
//! fallback for `DT_UNKNOWN` must produce exactly the oracle's files.

use crate::testenv;
use crate::testenv::{assert_same_records, oracle_files, random_tree, split_records, Captured};
use pfind::os::dirent::ReaderKind;
use pfind::output::{Output, OutputMode};
use pfind::report::Reporter;
use pfind::{Config, Summary};
use std::os::unix::ffi::OsStrExt;

/// The records `config` prints with `reader` and the walk's summary.
fn walk(config: &Config, reader: ReaderKind) -> (Vec<Vec<u8>>, Summary) {
    testenv::library_walk(config, reader)
}

fn readers() -> Vec<ReaderKind> {
    vec![ReaderKind::native(), ReaderKind::Readdir]
}

/// Calls `check` with a NUL-separated path configuration for `root` under every reader,
/// with and without the stat fallback, at 1, 2 and 8 threads, and a description.
fn for_each_setup(root: &std::ffi::OsStr, mut check: impl FnMut(Config, ReaderKind, &str)) {
    for reader in readers() {
        for force_stat in [false, true] {
            for threads in [1, 2, 8] {
                let mut config = Config::new(vec![root.to_owned()]);
                config.output = OutputMode::Paths { terminator: 0 };
                config.threads = threads;
                config.force_stat = force_stat;
                let context = format!("{reader:?}, force_stat {force_stat}, {threads} threads");
                check(config, reader, &context);
            }
        }
    }
}

#[test]
fn both_readers_and_the_stat_fallback_agree_with_the_oracle() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 3, 3_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for_each_setup(&root, |config, reader, context| {
        let (paths, summary) = walk(&config, reader);
        assert_same_records(context, &paths, &expected);
        assert_eq!(summary.matches, expected.len() as u64, "{context}");
    });
}

/// Below the frontier limit the walk is breadth-first; above it, part of it goes
/// depth-first from the workers' second deques. Tiny limits reach every mix of the two
/// on a small tree: the output must stay exactly the oracle's, at every thread count.
#[test]
fn every_frontier_limit_gives_exactly_the_oracle_files() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 11, 3_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for limit in [0, 1, 2, 7, 40, 100_000] {
        for threads in [1, 2, 3, 8, 16] {
            let mut config = Config::new(vec![root.clone()]);
            config.output = OutputMode::Paths { terminator: 0 };
            config.threads = threads;
            config.frontier_limit = Some(limit);
            let context = format!("frontier limit {limit}, {threads} threads");
            for _ in 0..3 {
                let (paths, summary) = walk(&config, ReaderKind::native());
                assert_same_records(&context, &paths, &expected);
                assert_eq!(summary.matches, expected.len() as u64, "{context}");
            }
        }
    }
}

#[test]
fn count_mode_counts_without_printing() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 5, 2_000);
    let expected = oracle_files(tmp.path().as_os_str().as_bytes()).len() as u64;
    for reader in readers() {
        for force_stat in [false, true] {
            let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
            config.output = OutputMode::Count;
            config.force_stat = force_stat;
            let (paths, summary) = walk(&config, reader);
            assert!(paths.is_empty());
            assert_eq!(
                summary.matches, expected,
                "{reader:?} force_stat {force_stat}"
            );
        }
    }
}

/// Every file, directory and link below `root` (not `root` itself), as `-t f -t d -t l`
/// prints them, and the empty files and directories among them, by a plain recursive
/// `read_dir` walk.
fn oracle_kinds(root: &std::path::Path) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    fn walk(dir: &std::path::Path, all: &mut Vec<Vec<u8>>, empty: &mut Vec<Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let bytes = path.as_os_str().as_bytes().to_vec();
            let kind = meta.file_type();
            if kind.is_dir() {
                if std::fs::read_dir(&path).unwrap().next().is_none() {
                    empty.push(bytes.clone());
                }
                all.push(bytes);
                walk(&path, all, empty);
            } else if kind.is_file() || kind.is_symlink() {
                if kind.is_file() && meta.len() == 0 {
                    empty.push(bytes.clone());
                }
                all.push(bytes);
            }
        }
    }
    let (mut all, mut empty) = (Vec::new(), Vec::new());
    walk(root, &mut all, &mut empty);
    (all, empty)
}

#[test]
fn kinds_and_emptiness_agree_with_the_oracle_on_every_reader() {
    use pfind::filter::types::{Kind, TypeFilter};
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 11, 3_000);
    let (all, empty) = oracle_kinds(tmp.path());
    for_each_setup(tmp.path().as_os_str(), |mut config, reader, context| {
        config.filter.types = TypeFilter::from_kinds(&[Kind::File, Kind::Dir, Kind::Symlink]);
        let (paths, _) = walk(&config, reader);
        assert_same_records(context, &paths, &all);
        config.filter.types = TypeFilter::from_kinds(&[Kind::Empty]);
        let (paths, _) = walk(&config, reader);
        assert_same_records(&format!("-t e, {context}"), &paths, &empty);
    });
}

/// With no `-j` the pool grows while directories wait on the disk. Here every
/// directory is taken as such a wait, so workers join all through the walk, from any
/// thread's request: the paths must still be exactly the oracle's, however many
/// spares there are, the pool must never grow past them, and `--max-results` must
/// still print exactly N.
#[test]
fn a_pool_that_grows_during_the_walk_loses_and_repeats_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 11, 3_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for threads in [1, 2] {
        for spares in [0, 1, 7, 30] {
            for _ in 0..5 {
                let mut config = Config::new(vec![root.clone()]);
                config.output = OutputMode::Paths { terminator: 0 };
                config.threads = threads;
                config.spare_threads = spares;
                config.assume_disk_waits = true;
                let context = format!("{threads} threads, {spares} spares");
                let captured = Captured::default();
                let output = Output::to_writer(Box::new(captured.clone()));
                let reporter = Reporter::new();
                let summary = pfind::run(&config, &output, &reporter);
                assert!(!reporter.errored(), "{context}");
                let paths = split_records(&captured.0.lock().unwrap(), 0);
                assert_same_records(&context, &paths, &expected);
                let most = (threads + spares) as u64;
                assert!(summary.workers <= most, "{context}: {}", summary.workers);
                if spares > 0 {
                    assert!(summary.workers > threads as u64, "{context}: never grew");
                }

                config.max_results = Some(7);
                let captured = Captured::default();
                let output = Output::to_writer(Box::new(captured.clone()));
                let summary = pfind::run(&config, &output, &reporter);
                let paths = split_records(&captured.0.lock().unwrap(), 0);
                assert_eq!(paths.len(), 7, "{context}");
                assert_eq!(summary.matches, 7, "{context}");
            }
        }
    }
}

/// With `-j`, exactly that many workers, even when every directory waits on the disk.
#[test]
fn exact_threads_never_grow() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 12, 2_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for threads in [1, 2, 3] {
        let mut config = Config::new(vec![root.clone()]);
        config.output = OutputMode::Paths { terminator: 0 };
        config.threads = threads;
        config.spare_threads = 0;
        config.exact_threads = true;
        config.assume_disk_waits = true;
        let captured = Captured::default();
        let output = Output::to_writer(Box::new(captured.clone()));
        let summary = pfind::run(&config, &output, &Reporter::new());
        let paths = split_records(&captured.0.lock().unwrap(), 0);
        assert_same_records(&format!("-j {threads}"), &paths, &expected);
        assert!(
            summary.workers <= threads as u64,
            "-j {threads}: {}",
            summary.workers
        );
    }
}

/// A root on a local disk keeps the local cap however much its directories wait:
/// only a network or FUSE filesystem may grow the pool to
/// `MAX_WORKERS_ON_NETWORK` (issue 29). Every directory here is taken as a wait, so
/// a pool given the network cap would pass 32 on these 3,000 directories.
#[test]
fn a_local_root_never_gets_the_network_cap() {
    use pfind::threads::{MAX_WORKERS_ON_NETWORK, MAX_WORKERS_WHEN_WAITING};
    const { assert!(MAX_WORKERS_ON_NETWORK > MAX_WORKERS_WHEN_WAITING) };
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 13, 3_000);
    let root = tmp.path().as_os_str().to_owned();
    let mut config = Config::new(vec![root]);
    config.output = OutputMode::Paths { terminator: 0 };
    config.assume_disk_waits = true;
    let output = Output::to_writer(Box::new(Captured::default()));
    let summary = pfind::run(&config, &output, &Reporter::new());
    assert!(
        summary.workers <= MAX_WORKERS_WHEN_WAITING as u64,
        "{}",
        summary.workers
    );
}

/// Under a root on a network filesystem (here one taken as such), the walk's growth
/// steps are taken, and its workers started, by a thread of their own while the
/// first worker walks: every file is still printed exactly once, and the walk ends
/// with every worker joined, at each CPU count the pool may start from.
#[test]
fn a_network_root_is_walked_exactly_once_with_its_own_starting_thread() {
    use pfind::threads::MAX_WORKERS_ON_NETWORK;
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 17, 2_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for threads in [1, 2, 4] {
        let mut config = Config::new(vec![root.clone()]);
        config.output = OutputMode::Paths { terminator: 0 };
        config.threads = threads;
        config.assume_network = true;
        let (paths, summary) = walk(&config, ReaderKind::native());
        assert_same_records(&format!("{threads} CPUs"), &paths, &expected);
        assert!(summary.workers <= MAX_WORKERS_ON_NETWORK as u64);
    }
}
