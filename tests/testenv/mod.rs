//! Test harness shared by the integration tests: builds a tree in a temporary
//! directory, runs the real `pfind` binary on it, and compares what it printed with
//! what was expected, ignoring order (a parallel walk has none) and showing a line diff
//! on mismatch. Every comparison runs at several thread counts.
#![allow(dead_code)] // each test file uses a different part of the harness

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub mod latencyfs;
#[path = "../../src/scratch.rs"]
mod scratch;
pub use scratch::big_tree_dir;

/// Thread counts every expectation is checked at: serial, this machine's count, and
/// far more workers than cores.
pub const THREAD_COUNTS: [&str; 3] = ["1", "2", "16"];

pub struct TestEnv {
    dir: tempfile::TempDir,
}

impl TestEnv {
    /// A tree with the given directories and (empty) files, paths relative to the root.
    pub fn new(dirs: &[&str], files: &[&str]) -> TestEnv {
        let env = TestEnv {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        for dir in dirs {
            std::fs::create_dir_all(env.root().join(dir)).expect("create dir");
        }
        for file in files {
            env.write(file, b"");
        }
        env
    }

    /// An empty tree for a test whose subject is a tree's size, not its file system:
    /// on a tmpfs where there is one (see `src/scratch.rs`).
    pub fn for_big_tree() -> TestEnv {
        TestEnv {
            dir: big_tree_dir(),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Creates (or overwrites) a file, and its parent directories.
    pub fn write(&self, relative: impl AsRef<Path>, contents: &[u8]) {
        let path = self.root().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).expect("create parent");
        std::fs::write(&path, contents).expect("write file");
    }

    pub fn symlink(&self, target: &str, link: &str) {
        std::os::unix::fs::symlink(target, self.root().join(link)).expect("symlink");
    }

    pub fn mkfifo(&self, relative: &str) {
        let mut path = self.root().join(relative).into_os_string().into_vec();
        path.push(0);
        // SAFETY: a NUL-terminated path.
        let rc = unsafe { libc::mkfifo(path.as_ptr().cast(), 0o600) };
        assert_eq!(rc, 0, "mkfifo {relative}");
    }

    /// Runs pfind in the tree's root with `args`.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        pfind_command(self.root(), args)
            .output()
            .expect("run pfind")
    }

    /// Asserts that pfind prints exactly `expected` lines (in any order), nothing on
    /// stderr, and exits 0, at every thread count.
    pub fn assert_output<S: AsRef<OsStr>>(&self, args: &[S], expected: &[&str]) {
        let expected: Vec<Vec<u8>> = expected.iter().map(|s| s.as_bytes().to_vec()).collect();
        self.assert_records(args, b'\n', &expected);
    }

    /// Like `assert_output` with records ending in `terminator` and arbitrary bytes.
    pub fn assert_records<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        terminator: u8,
        expected: &[Vec<u8>],
    ) {
        for threads in THREAD_COUNTS {
            let mut full: Vec<OsString> = args.iter().map(|a| a.as_ref().to_owned()).collect();
            full.extend(["-j".into(), threads.into()]);
            let out = self.run(&full);
            let shown = format!("pfind {full:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "",
                "{shown}: unexpected stderr"
            );
            assert_eq!(out.status.code(), Some(0), "{shown}: exit status");
            assert_same_records(&shown, &split_records(&out.stdout, terminator), expected);
        }
    }
}

/// A `pfind` command running in `cwd`, stdin closed.
pub fn pfind_command<S: AsRef<OsStr>>(cwd: &Path, args: &[S]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pfind"));
    command.current_dir(cwd).args(args).stdin(Stdio::null());
    command
}

/// Splits output into records, checking that the last one is terminated.
pub fn split_records(output: &[u8], terminator: u8) -> Vec<Vec<u8>> {
    if output.is_empty() {
        return Vec::new();
    }
    assert_eq!(
        output.last(),
        Some(&terminator),
        "output does not end with its terminator: {:?}",
        String::from_utf8_lossy(output)
    );
    output[..output.len() - 1]
        .split(|&b| b == terminator)
        .map(<[u8]>::to_vec)
        .collect()
}

/// Asserts `actual` holds exactly the records in `expected`, each once, in any order;
/// on failure prints what is missing, unexpected, and duplicated.
pub fn assert_same_records(context: &str, actual: &[Vec<u8>], expected: &[Vec<u8>]) {
    let actual_set: BTreeSet<&Vec<u8>> = actual.iter().collect();
    let expected_set: BTreeSet<&Vec<u8>> = expected.iter().collect();
    let duplicates = actual.len() - actual_set.len();
    if actual_set == expected_set && duplicates == 0 {
        return;
    }
    let show = |set: Vec<&&Vec<u8>>| {
        set.iter()
            .take(20)
            .map(|p| format!("    {:?}\n", String::from_utf8_lossy(p)))
            .collect::<String>()
    };
    let missing: Vec<_> = expected_set.difference(&actual_set).collect();
    let extra: Vec<_> = actual_set.difference(&expected_set).collect();
    panic!(
        "{context}: output differs\n  missing ({}):\n{}  unexpected ({}):\n{}  duplicated lines: {duplicates}",
        missing.len(),
        show(missing),
        extra.len(),
        show(extra)
    );
}

/// The seeds of a differential run: `default`, or the one seed in the variable
/// `replay` (`PFIND_WALK_SEED=17` replays that case alone).
pub fn seeds_or_replay(replay: &str, default: std::ops::Range<u64>) -> Vec<u64> {
    match std::env::var(replay) {
        Ok(seed) => vec![seed
            .parse()
            .unwrap_or_else(|_| panic!("{replay} is a number"))],
        Err(_) => default.collect(),
    }
}

/// Runs `check` on each of `seeds`, a few at a time (twice the cores: most of a
/// case's time is spent waiting for the oracle and pfind), with a line on stderr
/// every 1,000 so that a long run shows how far it is (`--nocapture`). Each
/// failure is printed as it comes; returns the seeds that failed and the sum of
/// what the others returned.
pub fn check_seeds(
    seeds: &[u64],
    check: impl Fn(u64) -> Result<usize, String> + Sync,
) -> (Vec<u64>, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let next = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(4, |n| (2 * n.get()).clamp(2, 8));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let at = next.fetch_add(1, Relaxed);
                let Some(&seed) = seeds.get(at) else { break };
                if at > 0 && at % 1000 == 0 {
                    let differ = failures.lock().unwrap().len();
                    eprintln!("{at} of {} started, {differ} differ so far", seeds.len());
                }
                match check(seed) {
                    Ok(count) => {
                        total.fetch_add(count, Relaxed);
                    }
                    Err(why) => {
                        eprintln!("{why}");
                        failures.lock().unwrap().push(seed);
                    }
                }
            });
        }
    });
    (failures.into_inner().unwrap(), total.into_inner())
}

/// Whether `git` runs here; when not, says the test is skipped (git is its oracle).
pub fn git_available() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: git is not installed, and it is the oracle here");
    }
    found
}

/// Creates (or overwrites) the file at `path`, and its parent directories.
pub fn write(path: &Path, contents: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// The independent oracle: a plain recursive walk with `std::fs::read_dir` and
/// `symlink_metadata`, formatting paths the way `find ROOT -type f` does.
pub fn oracle_files(root: &[u8]) -> Vec<Vec<u8>> {
    fn walk(dir: &Path, printed: &[u8], out: &mut Vec<Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("oracle read_dir") {
            let entry = entry.expect("oracle entry");
            let kind = std::fs::symlink_metadata(entry.path())
                .expect("oracle lstat")
                .file_type();
            let mut path = printed.to_vec();
            if !path.is_empty() && !path.ends_with(b"/") {
                path.push(b'/');
            }
            path.extend_from_slice(entry.file_name().as_bytes());
            if kind.is_dir() {
                walk(&entry.path(), &path, out);
            } else if kind.is_file() {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&PathBuf::from(OsStr::from_bytes(root)), root, &mut out);
    out
}

/// Builds a random tree under `root` from `seed`: varied depth and fan-out, empty
/// directories, hidden files, odd names (spaces, newlines, invalid UTF-8, 255 bytes),
/// symlinks to files and directories, dangling links and FIFOs. Returns the number of
/// entries created.
pub fn random_tree(root: &Path, seed: u64, max_entries: usize) -> usize {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut dirs = vec![root.to_path_buf()];
    let mut created = 0;
    while created < max_entries {
        // Prefer recent directories so the tree grows deep as well as wide.
        let pick = if rng.u8(..4) == 0 {
            rng.usize(..dirs.len())
        } else {
            dirs.len() - 1 - rng.usize(..dirs.len().min(3))
        };
        let parent = dirs[pick].clone();
        let name = random_name(&mut rng, created);
        let path = parent.join(OsStr::from_bytes(&name));
        match rng.u8(..100) {
            0..=59 => std::fs::write(&path, b"").unwrap(),
            60..=84 => {
                std::fs::create_dir(&path).unwrap();
                dirs.push(path);
            }
            85..=89 => std::os::unix::fs::symlink(&dirs[rng.usize(..dirs.len())], &path).unwrap(),
            90..=94 => std::os::unix::fs::symlink("no-such-target", &path).unwrap(),
            _ => {
                let mut c_path = path.into_os_string().into_vec();
                c_path.push(0);
                // SAFETY: a NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr().cast(), 0o600) }, 0);
            }
        }
        created += 1;
    }
    created
}

fn random_name(rng: &mut fastrand::Rng, serial: usize) -> Vec<u8> {
    // The serial number keeps names unique within a directory.
    let mut name = match rng.u8(..20) {
        0 => b".hidden".to_vec(),
        1 => b"with space".to_vec(),
        2 => b"new\nline".to_vec(),
        3 => b"bad\xff\xfeutf8".to_vec(),
        4 => b"-leading-dash".to_vec(),
        5 => b"glob*?[]".to_vec(),
        6 => "ünïcödé".as_bytes().to_vec(),
        7 => vec![b'L'; 240],
        _ => b"f".to_vec(),
    };
    name.extend_from_slice(format!("_{serial}").as_bytes());
    name.truncate(255);
    name
}

/// The records `config` prints through the library walker with `reader`
/// (NUL-terminated output expected), and the walk's summary; the walk must report
/// no error.
pub fn library_walk(
    config: &pfind::Config,
    reader: pfind::os::dirent::ReaderKind,
) -> (Vec<Vec<u8>>, pfind::Summary) {
    let captured = Captured::default();
    let output = pfind::output::Output::to_writer(Box::new(captured.clone()));
    let reporter = pfind::report::Reporter::new();
    let summary = pfind::scheduler::run_with_reader(config, &output, &reporter, reader);
    assert!(!reporter.errored());
    let bytes = captured.0.lock().unwrap().clone();
    (split_records(&bytes, 0), summary)
}

/// An output sink for the library walker that keeps everything written to it.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Sets the resource limit `resource` to `limit` in the child before it execs.
pub fn with_rlimit(
    command: &mut Command,
    resource: libc::__rlimit_resource_t,
    limit: libc::rlim_t,
) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe, as required between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(resource, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `program` run by a user whom `RLIMIT_NPROC` binds: this one, or as root (who is
/// exempt from it) `nobody`, through `setpriv`. `None` as root without `setpriv`.
/// The program, and what it reads, must be open to anyone.
pub fn as_limited_user(program: &Path) -> Option<Command> {
    if !is_root() {
        return Some(Command::new(program));
    }
    Command::new("setpriv").arg("--version").output().ok()?;
    let mut command = Command::new("setpriv");
    command
        .args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "--",
        ])
        .arg(program);
    Some(command)
}

/// A command that runs pfind without the capabilities that let root ignore file
/// permissions; as an ordinary user, pfind itself. Fails loudly if root cannot drop
/// them, rather than letting a permission test pass vacuously.
pub fn pfind_without_dac_override(cwd: &Path, args: &[&str]) -> Command {
    if !is_root() {
        return pfind_command(cwd, args);
    }
    let caps = "-dac_override,-dac_read_search";
    let probe = Command::new("setpriv")
        .args(["--bounding-set", caps, "true"])
        .status();
    assert!(
        probe.is_ok_and(|s| s.success()),
        "running as root and `setpriv` (util-linux) cannot drop CAP_DAC_OVERRIDE: \
         the permission tests would be meaningless"
    );
    let mut command = Command::new("setpriv");
    command
        .current_dir(cwd)
        .args(["--inh-caps", caps, "--bounding-set", caps, "--"])
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .args(args)
        .stdin(Stdio::null());
    command
}

/// Runs a command, killing it and failing the test if it has not finished in time:
/// a hang must fail, not block the suite.
pub fn output_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        stdout.read_to_end(&mut buf).map(|_| buf)
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        stderr.read_to_end(&mut buf).map(|_| buf)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("pfind did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap().unwrap(),
        stderr: err_reader.join().unwrap().unwrap(),
    }
}

/// Runs `work` on each of `ranks` cluster ranks as threads (`pfind::cluster`'s
/// in-memory transport, messages delayed up to `delay`); what each returned, by
/// rank. Panics if they have not all ended within a minute (a hang is how a
/// cluster walk fails).
pub fn on_ranks<T: Send + 'static>(
    ranks: usize,
    delay: Duration,
    seed: u64,
    work: impl Fn(&Arc<pfind::cluster::link::Link>) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let work = Arc::new(work);
    let (done, ended) = std::sync::mpsc::channel();
    for transport in pfind::cluster::transport::Memory::ranks(ranks, delay, seed) {
        let (work, done) = (work.clone(), done.clone());
        std::thread::spawn(move || {
            let link = pfind::cluster::link::Link::new(Box::new(transport));
            let _ = done.send((link.rank(), work(&link)));
        });
    }
    drop(done);
    let mut ends: Vec<(usize, T)> = (0..ranks)
        .map(|_| {
            ended
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{ranks} ranks did not all end within a minute"))
        })
        .collect();
    ends.sort_by_key(|(rank, _)| *rank);
    ends.into_iter().map(|(_, end)| end).collect()
}

/// A tree of `dirs` directories of two files each, `tree`, and a command for
/// `--exec-batch`, `gate.sh`, that writes its paths, one a line, to a file
/// `paths.PID` of its own (through the launcher, two ranks' output may interleave
/// within a line), then waits for the file `go`: the last batch holds the process
/// once its walk is over. Not on `pfind-mpi`'s rank 0, which must go on to hear
/// the other ranks. `trap`: a signal sent to the process group (as Open MPI's
/// `mpirun` forwards it) leaves it be.
pub fn gated_tree(base: &Path, dirs: usize) {
    std::fs::create_dir(base.join("tree")).unwrap();
    for dir in 0..dirs {
        let dir = base.join(format!("tree/d{dir}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("a"), b"").unwrap();
        std::fs::write(dir.join("b"), b"").unwrap();
    }
    std::fs::write(
        base.join("gate.sh"),
        "trap '' USR1\n\
         printf '%s\\n' \"$@\" >paths.$$.part && mv paths.$$.part paths.$$\n\
         [ \"${OMPI_COMM_WORLD_RANK:-}\" = 0 ] && exit 0\n\
         while [ ! -e go ]; do sleep 0.01; done\n",
    )
    .unwrap();
}

/// Closes the gate of [`gated_tree`] again and forgets the paths written.
pub fn reset_gate(base: &Path) {
    for entry in std::fs::read_dir(base).unwrap() {
        let name = entry.unwrap().file_name();
        let name = name.to_string_lossy();
        if name == "go" || name.starts_with("paths.") {
            std::fs::remove_file(base.join(&*name)).unwrap();
        }
    }
}

/// The paths [`gated_tree`]'s commands wrote, sorted, once there are `count` of
/// them (every batch written), or `None` if `ended` says the process ended first;
/// a minute at most.
pub fn gated_paths(
    base: &Path,
    count: usize,
    mut ended: impl FnMut() -> bool,
) -> Option<Vec<Vec<u8>>> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(base).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("paths.") && !name.ends_with(".part") {
                paths.extend(split_records(&std::fs::read(entry.path()).unwrap(), b'\n'));
            }
        }
        if paths.len() >= count {
            paths.sort();
            return Some(paths);
        }
        if ended() {
            return None;
        }
        assert!(
            Instant::now() < deadline,
            "{} paths of {count} after a minute",
            paths.len()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The lines of `reader`, as they come, on a channel.
pub fn lines_of(reader: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(reader)) {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Makes `moving` files `moving.N` in `dir`, then runs `checks` while another
/// thread keeps changing `dir` (each round renames a third of the `moving.N` left
/// to `moved.ROUND.N` and creates `late.ROUND.N`), and stops the changes however
/// `checks` ends, a failed assertion included (the scope would otherwise wait for
/// them forever). For the tests of a giant directory changing while it is listed.
pub fn while_changing(dir: &Path, moving: usize, checks: impl FnOnce()) {
    use std::sync::atomic::{AtomicBool, Ordering};
    struct StopOnDrop<'a>(&'a AtomicBool);
    impl Drop for StopOnDrop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    for index in 0..moving {
        std::fs::File::create(dir.join(format!("moving.{index}"))).unwrap();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let _stop_changes = StopOnDrop(&done);
        scope.spawn(|| {
            let mut round = 0;
            while !done.load(Ordering::Relaxed) {
                for index in (round % 3..moving).step_by(3) {
                    let from = dir.join(format!("moving.{index}"));
                    let _ = std::fs::rename(&from, dir.join(format!("moved.{round}.{index}")));
                    let _ = std::fs::File::create(dir.join(format!("late.{round}.{index}")));
                    if done.load(Ordering::Relaxed) {
                        break;
                    }
                }
                round += 1;
            }
        });
        checks();
    });
}
