//! The cluster walk (`pfind::cluster`) with ranks as threads (the in-memory
//! transport, random delays): every rank count prints exactly the oracle's files,
//! once each, ends (a hang fails the test by its deadline), and adds up the same
//! totals; pieces of a giant directory travel between ranks.

use crate::testenv::{assert_same_records, oracle_files, random_tree, split_records, Captured};
use pfind::cluster::link::Link;
use pfind::cluster::rank::{self, Ended};
use pfind::cluster::transport::Memory;
use pfind::output::{Output, OutputMode};
use pfind::report::Reporter;
use pfind::Config;
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc;
use std::time::Duration;

/// Runs `config` on `ranks` ranks as threads; rank 0's output and end, and every
/// rank's end. Panics if the ranks have not all ended within a minute.
fn cluster_walk(
    config: &Config,
    ranks: usize,
    delay: Duration,
    seed: u64,
) -> (Vec<u8>, Vec<Ended>) {
    let captured = Captured::default();
    let (done, ended) = mpsc::channel();
    for transport in Memory::ranks(ranks, delay, seed) {
        let config = config.clone();
        let captured = captured.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            let link = Link::new(Box::new(transport));
            let stdout = Output::to_writer(Box::new(captured));
            let output = rank::rank_output(&link, stdout);
            let reporter = Reporter::new();
            let end = rank::run(&config, &link, &output, &reporter);
            let _ = done.send((link.rank(), end));
        });
    }
    drop(done);
    let mut ends: Vec<(usize, Ended)> = (0..ranks)
        .map(|_| {
            ended
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{ranks} ranks did not all end within a minute"))
        })
        .collect();
    ends.sort_by_key(|(rank, _)| *rank);
    let bytes = captured.0.lock().unwrap().clone();
    (bytes, ends.into_iter().map(|(_, end)| end).collect())
}

fn paths_config(root: &std::ffi::OsStr, threads: usize) -> Config {
    let mut config = Config::new(vec![root.to_owned()]);
    config.output = OutputMode::Paths { terminator: 0 };
    config.threads = threads;
    config.exact_threads = true;
    config
}

#[test]
fn every_rank_count_prints_exactly_the_oracle_files_once() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 5, 4_000);
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    let mut seed = 1;
    let mut found_elsewhere = 0;
    for ranks in [1, 2, 3, 4, 8] {
        for threads in [1, 2] {
            for delay in [Duration::ZERO, Duration::from_micros(300)] {
                seed += 1;
                let context = format!("{ranks} ranks, {threads} threads, delay {delay:?}");
                let config = paths_config(&root, threads);
                let (bytes, ends) = cluster_walk(&config, ranks, delay, seed);
                assert_same_records(&context, &split_records(&bytes, 0), &expected);
                assert_eq!(ends[0].summary.matches, expected.len() as u64, "{context}");
                assert!(ends.iter().all(|end| end.status == 0), "{context}");
                found_elsewhere += ends[1..].iter().map(|end| end.summary.matches).sum::<u64>();
            }
        }
    }
    // Work did travel: ranks other than 0 found files.
    assert!(found_elsewhere > 0);
}

/// Roots that are no directory, an empty root, and a single file: ranks that never
/// get work still end, and the root file is printed once (by rank 0).
#[test]
fn small_and_odd_roots_end_on_every_rank_count() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    std::fs::write(tmp.path().join("file"), b"").unwrap();
    let mut chain = tmp.path().join("chain");
    for _ in 0..200 {
        chain.push("d");
    }
    std::fs::create_dir_all(&chain).unwrap();
    std::fs::write(chain.join("deep"), b"").unwrap();
    for (root, want) in [("empty", 0), ("file", 1), ("chain", 1)] {
        let root = tmp.path().join(root).into_os_string();
        for ranks in [1, 2, 5] {
            let config = paths_config(&root, 2);
            let (bytes, ends) = cluster_walk(&config, ranks, Duration::from_micros(100), 9);
            let records = split_records(&bytes, 0);
            assert_eq!(records.len(), want, "{root:?} on {ranks} ranks");
            assert_eq!(ends[0].summary.matches, want as u64);
        }
    }
}

/// A giant directory is cut into pieces, which other ranks take as cookie ranges:
/// every entry exactly once, and pieces counted.
#[test]
fn pieces_of_a_giant_directory_travel_between_ranks_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let giant = tmp.path().join("giant");
    std::fs::create_dir(&giant).unwrap();
    for i in 0..20_000 {
        std::fs::write(giant.join(format!("file.mdtest.{i}")), b"").unwrap();
    }
    let root = tmp.path().as_os_str().to_owned();
    let expected = oracle_files(root.as_bytes());
    for ranks in [2, 4] {
        let mut config = paths_config(&root, 1);
        config.split_every_listing = true;
        config.listing_buffer = Some(1024);
        config.stats = true;
        let (bytes, ends) = cluster_walk(&config, ranks, Duration::from_micros(200), 3);
        let context = format!("giant directory, {ranks} ranks");
        assert_same_records(&context, &split_records(&bytes, 0), &expected);
        assert!(
            ends[0].summary.pieces > 1,
            "{context}: {:?}",
            ends[0].summary
        );
        let elsewhere: u64 = ends[1..].iter().map(|end| end.summary.pieces).sum();
        assert!(
            elsewhere > 0,
            "{context}: no piece was listed on another rank"
        );
        assert_eq!(ends[0].summary.examined, 20_001, "{context}");
    }
}
