//! The library walker driven directly: both directory readers and the `fstatat`
//! fallback for `DT_UNKNOWN` must produce exactly the oracle's files.

mod testenv;

use pfind::config::OutputMode;
use pfind::dirent::ReaderKind;
use pfind::output::Output;
use pfind::report::Reporter;
use pfind::scheduler::run_with_reader;
use pfind::Config;
use std::os::unix::ffi::OsStrExt;
use testenv::{assert_same_records, oracle_files, random_tree, split_records, Captured};

fn walk(config: &Config, reader: ReaderKind) -> (Vec<Vec<u8>>, u64) {
    let captured = Captured::default();
    let output = Output::to_writer(Box::new(captured.clone()));
    let reporter = Reporter::new();
    let summary = run_with_reader(config, &output, &reporter, reader);
    assert!(!reporter.errored());
    let bytes = captured.0.lock().unwrap().clone();
    (split_records(&bytes, 0), summary.matches)
}

fn readers() -> Vec<ReaderKind> {
    vec![ReaderKind::native(), ReaderKind::Readdir]
}

#[test]
fn both_readers_and_the_stat_fallback_agree_with_the_oracle() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 3, 3_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for reader in readers() {
        for force_stat in [false, true] {
            for threads in [1, 2, 8] {
                let mut config = Config::new(vec![root.clone()]);
                config.output = OutputMode::Paths { terminator: 0 };
                config.threads = threads;
                config.force_stat = force_stat;
                let (paths, matches) = walk(&config, reader);
                let context = format!("{reader:?}, force_stat {force_stat}, {threads} threads");
                assert_same_records(&context, &paths, &expected);
                assert_eq!(matches, expected.len() as u64, "{context}");
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
            let (paths, matches) = walk(&config, reader);
            assert!(paths.is_empty());
            assert_eq!(matches, expected, "{reader:?} force_stat {force_stat}");
        }
    }
}
