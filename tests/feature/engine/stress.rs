//! Pool stress: thousands of walks of random trees at every thread count from 1 to
//! 16, half of them growing the pool by up to 8 workers during the walk, each checked
//! path-for-path against the oracle and bounded by a watchdog, so a lost wake-up or
//! an early quiescence shows up as a failure instead of a flaky hang.
//!
//! Too long for every CI run, so ignored by default:
//!     cargo test --release --test feature engine::stress -- --ignored --nocapture
//! `PFIND_STRESS_WALKS` sets the number of walks (default 3000).

use crate::testenv::{assert_same_records, oracle_files, random_tree, split_records, Captured};
use pfind::output::{Output, OutputMode};
use pfind::report::Reporter;
use pfind::Config;
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc;
use std::time::Duration;

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
        // Half the walks also grow their pool all the way through, as a cold walk
        // does: workers join while others are mid-directory.
        let (spares, grow) = (rng.usize(0..=8), rng.bool());
        let (done_tx, done_rx) = mpsc::channel();
        let captured = Captured::default();
        let sink = captured.clone();
        std::thread::spawn(move || {
            let mut config = Config::new(vec![root.into_os_string()]);
            config.output = OutputMode::Paths { terminator: 0 };
            config.threads = threads;
            config.spare_threads = spares;
            config.assume_disk_waits = grow;
            let output = Output::to_writer(Box::new(sink));
            let reporter = Reporter::new();
            let summary = pfind::run(&config, &output, &reporter);
            let _ = done_tx.send((summary, reporter.errored()));
        });
        let (summary, errored) = done_rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("walk {walk} at {threads}+{spares} threads hung"));
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

/// The early stop, issue 9/11: `pfind DIR | head -1` and `pfind -1 DIR` on a directory
/// of a million entries, run many times. Each run must end with exactly one line and
/// status 0; the durations are printed (the README quotes them), and a run that does
/// not end within a minute is a hang. Before the stop was seen inside a directory,
/// every such run still listed the whole directory after `head` had gone, which is
/// how forty of them at once took 8.8 s on a 2-CPU machine.
///
///     cargo test --release --test feature engine::stress -- --ignored --nocapture early_stop
/// `PFIND_STRESS_ENTRIES` (default 1,000,000) and `PFIND_STRESS_RUNS` (default 100).
#[test]
#[ignore = "long: run with --ignored"]
fn early_stop_in_a_directory_of_a_million_entries() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let env_number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let entries = env_number("PFIND_STRESS_ENTRIES", 1_000_000);
    let runs = env_number("PFIND_STRESS_RUNS", 100);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("flat");
    std::fs::create_dir(&dir).unwrap();
    for i in 0..entries {
        std::fs::File::create(dir.join(format!("f{i:07}"))).unwrap();
    }
    let mut durations = Vec::new();
    for run in 0..runs {
        for first_only in [false, true] {
            let started = Instant::now();
            let mut command = Command::new(env!("CARGO_BIN_EXE_pfind"));
            if first_only {
                command.arg("-1");
            }
            let mut child = command
                .arg(&dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Read one line, then close the pipe, as `head -1` does.
            let mut line = String::new();
            let mut reader = BufReader::new(child.stdout.take().unwrap());
            reader.read_line(&mut line).unwrap();
            drop(reader);
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx.send(child.wait_with_output());
            });
            let output = rx
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("run {run} (-1: {first_only}) hung"))
                .unwrap();
            durations.push(started.elapsed());
            assert!(line.starts_with(dir.to_str().unwrap()), "{line:?}");
            assert_eq!(
                output.status.code(),
                Some(0),
                "run {run} (-1: {first_only})"
            );
            assert!(output.stderr.is_empty(), "{:?}", output.stderr);
        }
    }
    durations.sort();
    println!(
        "{} runs on {entries} entries: median {:?}, slowest {:?}",
        durations.len(),
        durations[durations.len() / 2],
        durations[durations.len() - 1]
    );
}
