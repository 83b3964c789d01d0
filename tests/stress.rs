//! Pool stress: thousands of walks of random trees at every thread count from 1 to
//! 16, each checked path-for-path against the oracle and bounded by a watchdog, so a
//! lost wake-up or an early quiescence shows up as a failure instead of a flaky hang.
//!
//! Too long for every CI run, so ignored by default:
//!     cargo test --release --test stress -- --ignored --nocapture
//! `PFIND_STRESS_WALKS` sets the number of walks (default 3000).

mod testenv;

use pfind::config::OutputMode;
use pfind::output::Output;
use pfind::report::Reporter;
use pfind::Config;
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc;
use std::time::Duration;
use testenv::{assert_same_records, oracle_files, random_tree, split_records, Captured};

#[test]
#[ignore = "long: run with --ignored"]
fn thousands_of_walks_at_every_thread_count() {
    let walks: usize = std::env::var("PFIND_STRESS_WALKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let tmp = tempfile::tempdir().unwrap();
    let mut trees = Vec::new();
    for seed in 0..12u64 {
        let root = tmp.path().join(format!("tree{seed}"));
        std::fs::create_dir(&root).unwrap();
        // Small trees: start-up and shutdown, where the races live, dominate.
        random_tree(&root, 1000 + seed, 50 + 150 * seed as usize);
        let expected = oracle_files(root.as_os_str().as_bytes());
        trees.push((root, expected));
    }
    let mut rng = fastrand::Rng::with_seed(99);
    for walk in 0..walks {
        let (root, expected) = trees[rng.usize(..trees.len())].clone();
        let threads = rng.usize(1..=16);
        let (done_tx, done_rx) = mpsc::channel();
        let captured = Captured::default();
        let sink = captured.clone();
        std::thread::spawn(move || {
            let mut config = Config::new(vec![root.into_os_string()]);
            config.output = OutputMode::Paths { terminator: 0 };
            config.threads = threads;
            let output = Output::to_writer(Box::new(sink));
            let reporter = Reporter::new();
            let summary = pfind::run(&config, &output, &reporter);
            let _ = done_tx.send((summary, reporter.errored()));
        });
        let (summary, errored) = done_rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("walk {walk} at {threads} threads hung"));
        assert!(!errored);
        let paths = split_records(&captured.0.lock().unwrap(), 0);
        assert_same_records(
            &format!("walk {walk}, {threads} threads"),
            &paths,
            &expected,
        );
        assert_eq!(summary.matches as usize, expected.len());
    }
    println!("{walks} walks, all equal to the oracle");
}
