//! `pfind-mpi` under a real MPI launcher (built with `--features mpi`; CI installs
//! Open MPI and runs `cargo test --features mpi --test mpi`): at 1, 2, 4 and 8 ranks
//! on one machine (`mpirun --oversubscribe`), its output equals pfind's on odd trees,
//! every run ends within its deadline (a hang is how a cluster walk fails), totals
//! and exit statuses are agreed, and `--rank-root` walks each rank's own path while
//! printing the root as typed. `PFIND_MPI_RUNS` sets the runs per case (default 2).
#![cfg(feature = "mpi")]

mod testenv;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;
use testenv::{output_within, random_tree, split_records};

const RANKS: [usize; 4] = [1, 2, 4, 8];

fn runs() -> usize {
    std::env::var("PFIND_MPI_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(2)
}

/// `pfind-mpi ARGS` on `ranks` ranks, in `cwd`, killed (and the test failed) after
/// a minute.
fn mpi_run(cwd: &Path, ranks: usize, args: &[&str]) -> Output {
    let mut command = Command::new("mpirun");
    command
        .current_dir(cwd)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // One machine: ranks meet through shared memory (and libfabric, which
        // Open MPI would otherwise probe first, costs 0.2 s a launch).
        .env("OMPI_MCA_pml", "ob1")
        .env("OMPI_MCA_btl", "self,vader")
        .env("OMPI_MCA_mtl", "^ofi")
        .args(["--oversubscribe", "-np", &ranks.to_string()])
        .arg(env!("CARGO_BIN_EXE_pfind-mpi"))
        .args(args)
        .stdin(Stdio::null());
    output_within(command, Duration::from_secs(60))
}

fn pfind_run(cwd: &Path, args: &[&str]) -> Output {
    testenv::pfind_command(cwd, args).output().unwrap()
}

fn sorted_records(output: &[u8]) -> Vec<Vec<u8>> {
    let mut records = split_records(output, 0);
    records.sort();
    records
}

/// The trees of the issue: empty, one file, a 700-deep chain, a giant directory,
/// odd names (random_tree: newlines, invalid UTF-8, links, FIFOs).
fn trees(base: &Path) -> Vec<&'static str> {
    std::fs::create_dir(base.join("empty")).unwrap();
    std::fs::create_dir(base.join("one")).unwrap();
    std::fs::write(base.join("one/file"), b"").unwrap();
    let mut chain = base.join("chain");
    for _ in 0..700 {
        chain.push("d");
    }
    std::fs::create_dir_all(&chain).unwrap();
    std::fs::write(chain.join("bottom"), b"").unwrap();
    let giant = base.join("giant");
    std::fs::create_dir(&giant).unwrap();
    for i in 0..30_000 {
        std::fs::write(giant.join(format!("file.mdtest.{i}")), b"").unwrap();
    }
    std::fs::create_dir(base.join("odd")).unwrap();
    random_tree(&base.join("odd"), 17, 5_000);
    vec!["empty", "one", "chain", "giant", "odd"]
}

#[test]
fn every_rank_count_prints_what_pfind_prints_and_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    for tree in trees(base) {
        let expected = sorted_records(&pfind_run(base, &[tree, "-0"]).stdout);
        for ranks in RANKS {
            for run in 0..runs() {
                let out = mpi_run(base, ranks, &[tree, "-0"]);
                let context = format!("{tree} on {ranks} ranks, run {run}");
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{context}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let got = sorted_records(&out.stdout);
                assert!(
                    got == expected,
                    "{context}: {} records, {} expected",
                    got.len(),
                    expected.len()
                );
            }
        }
    }
}

#[test]
fn totals_and_statuses_are_agreed_by_all_ranks() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 23, 3_000);
    let base = tmp.path();
    let count = String::from_utf8(pfind_run(base, &["-c"]).stdout).unwrap();
    let stats = String::from_utf8(pfind_run(base, &["--stats", "-c", "-e", "0"]).stderr).unwrap();
    let examined = stats
        .lines()
        .find(|line| line.ends_with("entries examined"))
        .unwrap();
    for ranks in [1, 3, 8] {
        let out = mpi_run(base, ranks, &["-c"]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), count, "{ranks} ranks");
        let out = mpi_run(base, ranks, &["--stats", "-c", "-e", "0"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.lines().any(|line| line == examined),
            "{ranks} ranks: {stderr}"
        );
        // A root that does not exist: said once, and every rank fails.
        let out = mpi_run(base, ranks, &[".", "no-such-root"]);
        assert_eq!(out.status.code(), Some(1), "{ranks} ranks");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said = stderr
            .lines()
            .filter(|line| line.starts_with("pfind-mpi: no-such-root"))
            .count();
        assert_eq!(said, 1, "{ranks} ranks: {stderr}");
        // -q: a match is status 0, none is 1, on every rank.
        assert_eq!(mpi_run(base, ranks, &["-q"]).status.code(), Some(0));
        assert_eq!(
            mpi_run(base, ranks, &["-q", "-e", "no-such-ext"])
                .status
                .code(),
            Some(1)
        );
        // Options that need one process are refused, once, with status 2.
        let out = mpi_run(base, ranks, &["-L"]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr
                .lines()
                .filter(|line| line.starts_with("pfind-mpi: -L"))
                .count(),
            1,
            "{stderr}"
        );
    }
}

/// Each rank walks its own path for the root (here, links to one tree standing in
/// for one mount per rank), and every path is printed under the root as typed.
#[test]
fn each_rank_walks_its_own_mount_and_prints_the_logical_root() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    std::fs::create_dir(base.join("tree")).unwrap();
    random_tree(&base.join("tree"), 29, 3_000);
    for rank in 0..4 {
        std::os::unix::fs::symlink(base.join("tree"), base.join(format!("mount{rank}"))).unwrap();
    }
    let expected = sorted_records(&pfind_run(base, &["tree", "-0"]).stdout);
    let template = format!("{}/mount{{rank}}/", base.display());
    let out = mpi_run(base, 4, &["--rank-root", &template, "tree", "-0"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sorted_records(&out.stdout) == expected);
    // A rank whose mount is missing says so; the walk still ends.
    let out = mpi_run(base, 8, &["--rank-root", &template, "tree", "-0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mount4"));
}

/// IO500's find phase with `external-mpi-args` set to the launcher: every rank runs
/// the repository's script with `PFIND=pfind-mpi`, and one line is printed, with
/// the counts one pfind gives.
#[test]
fn io500s_external_find_runs_through_the_launcher() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    std::fs::create_dir(base.join("data")).unwrap();
    for i in 0..400 {
        let size = if i % 3 == 0 { 3901 } else { 10 };
        std::fs::write(base.join(format!("data/file.{i}")), vec![0u8; size]).unwrap();
    }
    std::fs::write(base.join("reference"), b"").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/io500-find.sh");
    let expression = [
        "data",
        "-newer",
        "reference",
        "-size",
        "3901c",
        "-name",
        "*1*",
    ];
    let one = Command::new("bash")
        .current_dir(base)
        .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
        .arg(&script)
        .args(expression)
        .output()
        .unwrap();
    let line = String::from_utf8(one.stdout).unwrap();
    assert!(line.starts_with("MATCHED "), "{line}");
    for ranks in [1, 4] {
        let mut command = Command::new("mpirun");
        command
            .current_dir(base)
            .env("PFIND", env!("CARGO_BIN_EXE_pfind-mpi"))
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["--oversubscribe", "-np", &ranks.to_string(), "bash"])
            .arg(&script)
            .args(expression)
            .stdin(Stdio::null());
        let out = output_within(command, Duration::from_secs(60));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), line, "{ranks} ranks");
    }
}

/// Issue 51: pfind-mpi names itself (`--version`, every message), its help under
/// mpirun is plain text in a pipe (rank 0's stdout is a pseudo-terminal there), and
/// docs/cluster.md's one-machine line counts what pfind counts.
#[test]
fn pfind_mpi_names_itself_and_its_help_is_plain_under_mpirun() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    std::fs::write(base.join("file"), b"").unwrap();
    let out = mpi_run(base, 1, &["--version"]);
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(version.starts_with("pfind-mpi "), "{version}");
    for args in [&["-h"][..], &["--help"]] {
        let out = mpi_run(base, 1, args);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.starts_with(b"Find files fast"), "{args:?}");
        assert!(!out.stdout.contains(&0x1b), "{args:?}: escapes in the pipe");
    }
    let out = mpi_run(base, 1, &["--bogus"]);
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(
        error.starts_with("error: unexpected argument '--bogus' found"),
        "{error}"
    );
    assert!(!error.contains('\x1b'), "{error}");
    let out = mpi_run(base, 2, &["nosuch/root"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("pfind-mpi: nosuch/root: No such file or directory\n"),
        "{stderr}"
    );
    let out = mpi_run(base, 1, &["--generate", "man"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "pfind-mpi: completions and the man page are pfind's: run `pfind --generate"
        ),
        "{stderr}"
    );

    let cluster = include_str!("../docs/cluster.md");
    let line = (cluster.lines())
        .find(|line| line.starts_with("mpirun") && line.contains("# one machine"))
        .expect("docs/cluster.md's one-machine line");
    let words: Vec<&str> = line
        .split(" #")
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let at = words.iter().position(|w| *w == "pfind-mpi").unwrap();
    let np = words.iter().position(|w| *w == "-np").unwrap();
    let ranks: usize = words[np + 1].parse().unwrap();
    let out = mpi_run(base, ranks, &words[at + 1..]);
    assert_eq!(out.status.code(), Some(0), "{line}");
    assert_eq!(
        out.stdout,
        pfind_run(base, &words[at + 1..]).stdout,
        "{line}"
    );
}
