//! `pfind-mpi` under a real MPI launcher (built with `--features mpi`; CI installs
//! Open MPI and runs `cargo test --features mpi --test mpi`): at 1, 2, 4 and 8 ranks
//! on one machine (`mpirun --oversubscribe`), its output equals pfind's on odd trees,
//! every run ends within its deadline (a hang is how a cluster walk fails), totals
//! and exit statuses are agreed, `--rank-root` walks each rank's own path while
//! printing the root as typed, and SIGUSR1 gets one status line, rank 0's, with
//! every rank's counts. `PFIND_MPI_RUNS` sets the runs per case (default 2).
#![cfg(feature = "mpi")]

mod testenv;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use testenv::{
    gated_paths, gated_tree, lines_of, output_within, random_tree, reset_gate, split_records,
};

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
    let mut command = mpi_command(cwd);
    command
        .args(["-np", &ranks.to_string()])
        .arg(env!("CARGO_BIN_EXE_pfind-mpi"))
        .args(args);
    output_within(command, Duration::from_secs(60))
}

/// `mpirun --oversubscribe`, in `cwd`, for this machine; the ranks to add.
fn mpi_command(cwd: &Path) -> Command {
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
        .arg("--oversubscribe")
        .stdin(Stdio::null());
    command
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

/// IO500's find phase as IO500 runs it: from inside an MPI job (its rank 0 runs
/// the phase through the shell), `external-mpi-args` the launch line
/// docs/cluster.md gives, every rank running the repository's script with
/// `PFIND=pfind-mpi`: one line, with the counts one pfind gives and find's
/// matches (a reference older than the files, so that they are not zero). A
/// plain nested `mpirun` exits 1 there without a word (issue 47).
#[test]
fn io500s_external_find_runs_through_the_documented_launch_line() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    std::fs::write(base.join("reference"), b"").unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(7200);
    let reference = std::fs::File::options()
        .write(true)
        .open(base.join("reference"));
    reference.unwrap().set_modified(old).unwrap();
    std::fs::create_dir(base.join("data")).unwrap();
    for i in 0..400 {
        let size = if i % 3 == 0 { 3901 } else { 10 };
        std::fs::write(base.join(format!("data/file.{i}")), vec![0u8; size]).unwrap();
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/io500-find.sh");
    let expression = "data -newer reference -size 3901c -name \"*1*\"";
    let find = Command::new("sh")
        .current_dir(base)
        .args(["-c", &format!("find {expression} -type f | wc -l")])
        .output()
        .unwrap();
    let found: u64 = String::from_utf8_lossy(&find.stdout)
        .trim()
        .parse()
        .unwrap();
    assert!(found > 0);
    let one = Command::new("sh")
        .current_dir(base)
        .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
        .args(["-c", &format!("bash {} {expression}", script.display())])
        .output()
        .unwrap();
    let line = String::from_utf8(one.stdout).unwrap();
    assert!(line.starts_with(&format!("MATCHED {found}/")), "{line}");
    let docs = include_str!("../docs/cluster.md");
    let launch = (docs.lines())
        .find_map(|line| line.strip_prefix("external-mpi-args = "))
        .expect("docs/cluster.md gives external-mpi-args");
    // This machine's: root, one node (the launch line clears OMPI_MCA_* too).
    let here = "mpirun --allow-run-as-root --oversubscribe --mca pml ob1 \
                --mca btl self,vader --mca mtl ^ofi -np";
    assert!(launch.ends_with("mpirun -np 8"), "{launch}");
    for ranks in [1, 4] {
        let launch = launch.replace("mpirun -np 8", &format!("{here} {ranks}"));
        let phase = format!("{launch} bash {} {expression}", script.display());
        let mut io500 = mpi_command(base);
        io500
            .env("PFIND", env!("CARGO_BIN_EXE_pfind-mpi"))
            .args(["-np", "1", "sh", "-c", &phase]);
        let out = output_within(io500, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{ranks} ranks: {stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), line, "{ranks} ranks");
    }
}

/// A rank that refuses the command line against its own machine (here a
/// working directory without `--newer`'s file; `-C` and `PFIND_OPTIONS` alike)
/// ends every rank with status 2 and is named once by rank 0; before issue 47 it
/// returned unheard and the others waited for ever.
#[test]
fn a_rank_that_refuses_the_command_line_ends_every_rank() {
    let tmp = tempfile::tempdir().unwrap();
    let (seeing, blind) = (tmp.path().join("seeing"), tmp.path().join("blind"));
    for dir in [&seeing, &blind] {
        std::fs::create_dir(dir).unwrap();
        std::fs::write(dir.join("file"), b"").unwrap();
    }
    std::fs::write(seeing.join("ref"), b"").unwrap();
    std::fs::create_dir(seeing.join("sub")).unwrap();
    let program = env!("CARGO_BIN_EXE_pfind-mpi");
    let contexts = |first: &Path, rest: &Path, rest_ranks: usize, args: &[&str]| {
        let mut words: Vec<String> = Vec::new();
        for (dir, ranks) in [(first, 1), (rest, rest_ranks)] {
            if !words.is_empty() {
                words.push(":".into());
            }
            words.extend(["-np".into(), ranks.to_string(), "-wdir".into()]);
            words.push(dir.display().to_string());
            words.push(program.into());
            words.extend(args.iter().map(|arg| arg.to_string()));
        }
        words
    };
    let cases: [(&Path, &Path, &str); 3] = [
        (&seeing, &blind, "rank 1 on "),
        (&blind, &seeing, "rank 0 on "),
        (&seeing, &seeing, ""),
    ];
    for (first, rest, named) in cases {
        for (args, value) in [
            (&["--newer", "ref"][..], "'ref'"),
            (&["-C", "sub"], "'sub'"),
        ] {
            let words = contexts(first, rest, 2, args);
            let mut command = mpi_command(tmp.path());
            command.args(&words);
            let out = output_within(command, Duration::from_secs(60));
            let stderr = String::from_utf8_lossy(&out.stderr);
            let context = format!("{words:?}: {stderr}");
            let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("pfind")).collect();
            if named.is_empty() {
                assert_eq!(out.status.code(), Some(0), "{context}");
                assert!(said.is_empty(), "{context}");
                continue;
            }
            assert_eq!(out.status.code(), Some(2), "{context}");
            assert_eq!(said.len(), 1, "{context}");
            // `pfind: ` or, once it names itself, `pfind-mpi: `.
            assert!(said[0].contains(&format!(": {named}")), "{context}");
            assert!(said[0].contains(value), "{context}");
        }
    }
    // --generate is pfind's: the refusal names the option as pfind spells it,
    // and that option works.
    let out = mpi_run(tmp.path(), 2, &["--generate", "bash"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("`pfind --generate "), "{stderr}");
    assert!(pfind_run(tmp.path(), &["--generate", "bash"])
        .status
        .success());
    // PFIND_OPTIONS on one rank only.
    let mut command = mpi_command(tmp.path());
    command.args(["-np", "1", program, ":", "-np", "1", "env"]);
    command.args(["PFIND_OPTIONS=--bogus", program]);
    let out = output_within(command, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|line| line.contains(": rank 1 on ") && line.contains("PFIND_OPTIONS")),
        "{stderr}"
    );
}

/// Ranks whose `--rank-root` is another filesystem's copy of the tree (tmpfs
/// against the test directory's): a giant directory's pieces, cut on one
/// filesystem, are not listed by seeking the other's to their cookies (a quarter
/// of the files were lost, others printed many times). Needs /dev/shm on another
/// device than the temporary directory to show anything; it says so otherwise.
#[test]
fn pieces_of_a_giant_directory_stay_where_their_cookies_mean_them() {
    let tmp = tempfile::tempdir().unwrap();
    let Ok(shm) = tempfile::tempdir_in("/dev/shm") else {
        eprintln!("skipped: no /dev/shm");
        return;
    };
    use std::os::unix::fs::MetadataExt;
    if std::fs::metadata(shm.path()).unwrap().dev() == std::fs::metadata(tmp.path()).unwrap().dev()
    {
        eprintln!("skipped: /dev/shm is the temporary directory's filesystem");
        return;
    }
    let base = tmp.path();
    let giant = base.join("tree/giant");
    std::fs::create_dir_all(&giant).unwrap();
    for i in 0..30_000 {
        std::fs::write(giant.join(format!("file.mdtest.{i}")), b"").unwrap();
    }
    let copy = shm.path().join("tree");
    assert!(Command::new("cp")
        .arg("-a")
        .arg(base.join("tree"))
        .arg(&copy)
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink(base.join("tree"), base.join("mount0")).unwrap();
    for rank in 1..4 {
        std::os::unix::fs::symlink(&copy, base.join(format!("mount{rank}"))).unwrap();
    }
    let expected = sorted_records(&pfind_run(base, &["tree", "-0"]).stdout);
    let template = format!("{}/mount{{rank}}/", base.display());
    for ranks in [2, 4] {
        for run in 0..runs() {
            let out = mpi_run(base, ranks, &["--rank-root", &template, "tree", "-0"]);
            let context = format!("{ranks} ranks, run {run}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{context}: {stderr}");
            let got = sorted_records(&out.stdout);
            assert!(
                got == expected,
                "{context}: {} records, {} expected, {} distinct",
                got.len(),
                expected.len(),
                {
                    let mut distinct = got.clone();
                    distinct.dedup();
                    distinct.len()
                }
            );
        }
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

/// SIGUSR1 to `mpirun` (which forwards it to every rank) while the walk is over on
/// every rank but the last batch of `--exec-batch` holds the ranks other than 0:
/// one line per signal, rank 0's, none from the other ranks, and once the ranks'
/// last counts have reached rank 0 the line has the whole tree's (a rank's alone
/// cannot: rank 0 starts with the root and gives half of what it queues to the
/// ranks that ask); the output is unchanged. The walk's end comes before the line's
/// last counts may, so the signal is sent again until they do, every line checked.
#[test]
fn sigusr1_gets_one_line_from_rank_0_with_every_ranks_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    gated_tree(base, 1_500);
    let expected = pfind_run(base, &["tree"]);
    let mut expected = split_records(&expected.stdout, b'\n');
    expected.sort();
    let ranks = 3;
    let counts = format!("1501 directories listed, {} matches,", expected.len());
    let args = [
        "tree",
        "-j",
        "2",
        "--exec-batch",
        "sh",
        "gate.sh",
        "{}",
        "+",
    ];
    // A run where no rank but 0 had a match (and so no batch to hold it) ends
    // before the line can be asked for; it is run again.
    for attempt in 0..3 {
        reset_gate(base);
        let mut command = mpi_command(base);
        command
            .args(["-np", &ranks.to_string()])
            .arg(env!("CARGO_BIN_EXE_pfind-mpi"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let stdout = lines_of(child.stdout.take().unwrap());
        let stderr = lines_of(child.stderr.take().unwrap());
        // Every path written: every rank's walk is over, and each batch is past
        // its `trap`.
        let got = gated_paths(base, expected.len(), || child.try_wait().unwrap().is_some());
        let mut signals = 0;
        let mut lines = Vec::new();
        let held = got.is_some()
            && loop {
                // SAFETY: `kill` with the pid of a child that has not been waited for.
                assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGUSR1) }, 0);
                signals += 1;
                let line = loop {
                    match stderr.recv_timeout(Duration::from_secs(60)) {
                        Ok(line) if line.starts_with("mpirun: Forwarding signal") => continue,
                        Ok(line) => break Some(line),
                        Err(_) => break None,
                    }
                };
                let Some(line) = line else { break false };
                let figures = line
                    .strip_prefix(&format!("pfind-mpi: {ranks} ranks: "))
                    .unwrap_or_else(|| panic!("not rank 0's status line: {line:?}"));
                assert!(figures.ends_with(" directories waiting"), "{line}");
                lines.push(line.clone());
                if figures.starts_with(&counts) && figures.ends_with(" s, 0 directories waiting") {
                    break true;
                }
                assert!(
                    signals < 100,
                    "the line never had every rank's counts ({counts}): {line}"
                );
                std::thread::sleep(Duration::from_millis(20));
            };
        std::fs::write(base.join("go"), b"").unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("pfind-mpi did not end within a minute of the gate's opening");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        if !held {
            assert!(attempt < 2, "no run was held by a rank's last batch");
            continue;
        }
        assert!(status.success(), "{status:?}");
        // One line per signal, each rank 0's: no rank spoke for itself.
        let rest: Vec<String> = stderr
            .iter()
            .filter(|line| !line.starts_with("mpirun: Forwarding signal"))
            .collect();
        assert!(rest.is_empty(), "{rest:?} after {lines:?}");
        assert_eq!(lines.len(), signals, "{lines:?}");
        assert_eq!(stdout.iter().count(), 0, "the commands write to files");
        assert!(got == Some(expected), "the output changed");
        return;
    }
}
