//! The trees and situations that break naive walkers: paths beyond PATH_MAX, a tiny
//! descriptor limit, unreadable directories, entries that vanish mid-walk, special
//! files, and failing outputs. Each runs the real binary and checks the exact output
//! set and the exit status.

use crate::testenv;
use crate::testenv::{
    assert_same_records, big_tree_dir, oracle_files, output_within, pfind_command,
    pfind_without_dac_override, split_records, with_rlimit, TestEnv, THREAD_COUNTS,
};
use std::collections::BTreeSet;
use std::ffi::{CString, OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Removes a tree with `rm -rf`, which copes with any depth; `std::fs::remove_dir_all`
/// keeps one descriptor per level and runs out on a 3,000-level chain.
pub(crate) struct RemoveOnDrop(pub(crate) PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = Command::new("rm").arg("-rf").arg(&self.0).status();
    }
}

pub(crate) fn c_name(name: &[u8]) -> CString {
    CString::new(name).unwrap()
}

/// Creates directory `name` inside the open directory `parent` and returns it open.
/// Works at any depth because nothing is ever resolved from the root.
pub(crate) fn mkdir_open(parent: libc::c_int, name: &[u8]) -> libc::c_int {
    let name = c_name(name);
    // SAFETY: valid descriptor and NUL-terminated name.
    unsafe {
        assert_eq!(libc::mkdirat(parent, name.as_ptr(), 0o755), 0, "mkdirat");
        let fd = libc::openat(
            parent,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        assert!(fd >= 0, "openat");
        fd
    }
}

pub(crate) fn touch_at(dir: libc::c_int, name: &[u8]) {
    write_at(dir, name, b"");
}

pub(crate) fn open_path(path: &Path) -> libc::c_int {
    let path = c_name(path.as_os_str().as_bytes());
    // SAFETY: NUL-terminated path.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    assert!(fd >= 0);
    fd
}

pub(crate) fn close(fd: libc::c_int) {
    // SAFETY: closing a descriptor this test opened.
    unsafe { libc::close(fd) };
}

/// Asserts a run printed exactly `expected`, said nothing on stderr and exited 0.
fn assert_complete(context: &str, out: &Output, terminator: u8, expected: &[Vec<u8>]) {
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{context}");
    assert_eq!(out.status.code(), Some(0), "{context}");
    assert_same_records(context, &split_records(&out.stdout, terminator), expected);
}

fn run_ok(root: &Path, args: &[&OsStr]) -> Vec<Vec<u8>> {
    let out = output_within(pfind_command(root, args), Duration::from_secs(120));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    split_records(&out.stdout, 0)
}

#[test]
fn a_chain_of_3000_directories_far_beyond_path_max() {
    let tmp = tempfile::tempdir().unwrap();
    let _cleanup = RemoveOnDrop(tmp.path().join("chain"));
    let mut expected = Vec::new();
    let mut path = b"chain".to_vec();
    let base = open_path(tmp.path());
    let mut dir = mkdir_open(base, b"chain");
    close(base);
    for level in 0..3000 {
        let name = format!("level_{level:05}_padding_"); // 20 bytes
        assert_eq!(name.len(), 20);
        let child = mkdir_open(dir, name.as_bytes());
        close(dir);
        dir = child;
        path.push(b'/');
        path.extend_from_slice(name.as_bytes());
        if level % 250 == 0 || level == 2999 {
            touch_at(dir, b"f");
            expected.push([&path[..], b"/f"].concat());
        }
    }
    close(dir);
    assert!(expected.last().unwrap().len() > 60_000);
    for threads in THREAD_COUNTS {
        let got = run_ok(
            tmp.path(),
            &[
                "chain".as_ref(),
                "-0".as_ref(),
                "-j".as_ref(),
                threads.as_ref(),
            ],
        );
        assert_same_records(&format!("3000-deep chain, -j {threads}"), &got, &expected);
    }
}

/// A queued directory keeps only its name and a pointer to what its siblings share;
/// the path is put together again when it is read. Odd names (a newline, bytes that
/// are not UTF-8, a leading dash, 255 bytes) in chains whose paths run past 4,096 and
/// 8,192 bytes, each level with siblings queued from the same listing, must come back
/// exactly at every thread count, with the frontier breadth-first, depth-first from
/// the start, and mixed.
#[test]
fn queued_directories_give_back_exact_paths() {
    use pfind::output::{Output, OutputMode};
    use pfind::report::Reporter;
    let tmp = tempfile::tempdir().unwrap();
    let long = [b'L'; 255];
    let names: [&[u8]; 4] = [b"new\nline", b"bad\xff\xfe", b"-dash", &long];
    let mut expected = Vec::new();
    let base = open_path(tmp.path());
    for chain in 0..names.len() {
        let (mut dir, mut path) = (base, Vec::new());
        for level in 0..128 {
            let name = names[(chain + level) % names.len()];
            // The chains' first names differ in their last byte.
            let mut own = name.to_vec();
            if level == 0 {
                own.truncate(254);
                own.push(b'0' + chain as u8);
            }
            for sibling in 0..3u8 {
                let side = [&name[..name.len().min(240)], b"_side", &[b'0' + sibling]].concat();
                let side_dir = mkdir_open(dir, &side);
                touch_at(side_dir, name);
                close(side_dir);
                expected.push([&path[..], &side, b"/", name].concat());
            }
            let child = mkdir_open(dir, &own);
            if dir != base {
                close(dir);
            }
            dir = child;
            path.extend_from_slice(&own);
            path.push(b'/');
            touch_at(dir, b"file");
            expected.push([&path[..], b"file"].concat());
        }
        close(dir);
    }
    close(base);
    assert!(expected
        .iter()
        .any(|p| p.len() > 2 * libc::PATH_MAX as usize));
    for limit in [0, 2, pfind::queue::FRONTIER_LIMIT] {
        for threads in [1, 2, 3, 8, 16] {
            let mut config = pfind::Config::new(vec![tmp.path().as_os_str().to_owned()]);
            config.output = OutputMode::Paths { terminator: 0 };
            config.threads = threads;
            config.frontier_limit = Some(limit);
            let captured = testenv::Captured::default();
            let output = Output::to_writer(Box::new(captured.clone()));
            let reporter = Reporter::new();
            let summary = pfind::run(&config, &output, &reporter);
            assert!(!reporter.errored());
            let root = [tmp.path().as_os_str().as_bytes(), b"/"].concat();
            let got: Vec<Vec<u8>> = split_records(&captured.0.lock().unwrap(), 0)
                .into_iter()
                .map(|path| path.strip_prefix(&root[..]).unwrap().to_vec())
                .collect();
            let context = format!("frontier limit {limit}, {threads} threads");
            assert_same_records(&context, &got, &expected);
            assert_eq!(summary.matches, expected.len() as u64, "{context}");
        }
    }
}

#[test]
fn sixteen_chains_of_255_byte_names() {
    let tmp = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    let base = open_path(tmp.path());
    for chain in 0..16 {
        let mut dir = base;
        let mut path = Vec::new();
        for level in 0..16 {
            let mut name = format!("c{chain:02}_l{level:02}_").into_bytes();
            name.resize(255, b'x');
            let child = mkdir_open(dir, &name);
            if dir != base {
                close(dir);
            }
            dir = child;
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(&name);
            touch_at(dir, b"file");
            expected.push([&path[..], b"/file"].concat());
        }
        close(dir);
    }
    close(base);
    assert!(expected.iter().any(|p| p.len() > libc::PATH_MAX as usize));
    for threads in THREAD_COUNTS {
        let got = run_ok(
            tmp.path(),
            &["-0".as_ref(), "-j".as_ref(), threads.as_ref()],
        );
        assert_same_records(&format!("255-byte chains, -j {threads}"), &got, &expected);
    }
}

#[test]
fn a_100k_directory_tree_under_ulimit_n_16_loses_nothing() {
    let tmp = big_tree_dir();
    // Fan-out 10, depth 5: 111,110 directories; a file in every leaf.
    fn grow(dir: libc::c_int, depth: u32, count: &mut usize) {
        if depth == 5 {
            touch_at(dir, b"leaf");
            return;
        }
        for i in 0..10u8 {
            let child = mkdir_open(dir, &[b'd', b'0' + i]);
            *count += 1;
            grow(child, depth + 1, count);
            close(child);
        }
    }
    let base = open_path(tmp.path());
    let mut dirs = 0;
    grow(base, 0, &mut dirs);
    close(base);
    assert!(dirs >= 100_000);
    let prefix_len = tmp.path().as_os_str().len() + 1;
    let expected: Vec<Vec<u8>> = oracle_files(tmp.path().as_os_str().as_bytes())
        .into_iter()
        .map(|p| p[prefix_len..].to_vec())
        .collect();
    assert_eq!(expected.len(), 100_000);
    for threads in ["1", "2", "4", "16"] {
        let mut command = pfind_command(tmp.path(), &["-0", "-j", threads]);
        with_nofile_limit(&mut command, 16);
        let out = output_within(command, Duration::from_secs(300));
        assert_complete(&format!("ulimit -n 16, -j {threads}"), &out, 0, &expected);
    }
}

#[test]
fn permission_denied_is_one_line_per_directory_and_the_rest_is_printed() {
    let env = TestEnv::new(
        &["locked/inner", "listable_only/sub", "open"],
        &[
            "locked/hidden_file",
            "locked/inner/deeper",
            "listable_only/visible",
            "listable_only/sub/unreachable",
            "open/a",
            "open/mode000",
        ],
    );
    let chmod = |path: &str, mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(env.root().join(path), std::fs::Permissions::from_mode(mode))
            .unwrap();
    };
    chmod("locked", 0o000);
    chmod("listable_only", 0o400); // names can be listed, nothing inside opened
    chmod("open/mode000", 0o000); // never opened by pfind, so printed like any file
    for threads in THREAD_COUNTS {
        let out = output_within(
            pfind_without_dac_override(env.root(), &["-j", threads]),
            Duration::from_secs(60),
        );
        let mut errors: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(String::from)
            .collect();
        errors.sort();
        assert_eq!(
            errors,
            [
                "pfind: listable_only/sub: Permission denied",
                "pfind: locked: Permission denied"
            ],
            "-j {threads}"
        );
        assert_eq!(out.status.code(), Some(1));
        let printed: BTreeSet<Vec<u8>> = split_records(&out.stdout, b'\n').into_iter().collect();
        let want: BTreeSet<Vec<u8>> = ["listable_only/visible", "open/a", "open/mode000"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        assert_eq!(printed, want, "-j {threads}");
    }
    // With -S every candidate must be stat'ed, which the listable-only directory refuses.
    let out = output_within(
        pfind_without_dac_override(env.root(), &["-S", "+0"]),
        Duration::from_secs(60),
    );
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("pfind: listable_only/visible: Permission denied"));
    assert_eq!(out.status.code(), Some(1));
    chmod("locked", 0o755);
    chmod("listable_only", 0o755);
}

#[test]
fn entries_vanishing_during_the_walk_never_crash_hang_or_duplicate() {
    let tmp = tempfile::tempdir().unwrap();
    let stable = tmp.path().join("stable");
    let churn = tmp.path().join("churn");
    let mut expected_stable = Vec::new();
    for d in 0..20 {
        for f in 0..50 {
            let path = stable.join(format!("d{d}/f{f}"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, b"").unwrap();
            expected_stable.push(format!("stable/d{d}/f{f}").into_bytes());
        }
    }
    std::fs::create_dir(&churn).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churner = {
        let (churn, stop) = (churn.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut round = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let sub = churn.join(format!("s{}", round % 8));
                let _ = std::fs::remove_dir_all(&sub);
                for d in 0..5 {
                    let dir = sub.join(format!("x{d}"));
                    if std::fs::create_dir_all(&dir).is_ok() {
                        for f in 0..20 {
                            let _ = std::fs::write(dir.join(format!("f{f}")), b"");
                        }
                    }
                }
                round += 1;
            }
        })
    };
    for round in 0..30 {
        let threads = ["1", "2", "4", "16"][round % 4];
        let out = output_within(
            pfind_command(tmp.path(), &["-j", threads]),
            Duration::from_secs(60),
        );
        assert!(
            out.status.signal().is_none(),
            "pfind was killed by a signal"
        );
        assert!(matches!(out.status.code(), Some(0 | 1)));
        let lines = split_records(&out.stdout, b'\n');
        let unique: BTreeSet<&Vec<u8>> = lines.iter().collect();
        assert_eq!(unique.len(), lines.len(), "a path was printed twice");
        for want in &expected_stable {
            assert!(
                unique.contains(want),
                "stable file {:?} missing",
                String::from_utf8_lossy(want)
            );
        }
        assert!(lines
            .iter()
            .all(|l| l.starts_with(b"stable/") || l.starts_with(b"churn/")));
        // Only real errors: things under churn/ that disappeared.
        for line in String::from_utf8_lossy(&out.stderr).lines() {
            assert!(
                line.starts_with("pfind: churn/") && line.ends_with(": No such file or directory"),
                "unexpected error line: {line}"
            );
        }
        assert_eq!(out.status.code() == Some(1), !out.stderr.is_empty());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churner.join().unwrap();
}

#[test]
fn special_files_are_never_printed_and_never_block() {
    let env = TestEnv::new(&["dir"], &["dir/real", "real"]);
    env.mkfifo("fifo");
    env.mkfifo("dir/fifo");
    let _socket = std::os::unix::net::UnixListener::bind(env.root().join("socket")).unwrap();
    env.symlink("real", "to_file");
    env.symlink("dir", "to_dir");
    env.symlink("nowhere", "dangling");
    env.symlink("self_loop", "self_loop");
    env.symlink("loop_b", "loop_a");
    env.symlink("loop_a", "loop_b");
    env.symlink("..", "dir/up");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let node = c_name(env.root().join("chardev").as_os_str().as_bytes());
        // SAFETY: NUL-terminated path; makedev(1, 3) is /dev/null's device number.
        let rc = unsafe { libc::mknod(node.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) };
        assert_eq!(rc, 0, "mknod as root");
    } else {
        eprintln!("not root: the device-node case is skipped (FIFO and socket still run)");
    }
    for threads in THREAD_COUNTS {
        let out = output_within(
            pfind_command(env.root(), &["-j", threads]),
            Duration::from_secs(30),
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert_eq!(out.status.code(), Some(0));
        let got = split_records(&out.stdout, b'\n');
        assert_same_records(
            "special files",
            &got,
            &[b"real".to_vec(), b"dir/real".to_vec()],
        );
    }
}

#[test]
fn stdout_closed_is_reported() {
    let env = TestEnv::new(&[], &["a"]);
    let out = Command::new("sh")
        .current_dir(env.root())
        .args(["-c", "exec \"$0\" >&-", env!("CARGO_BIN_EXE_pfind")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: stdout: Bad file descriptor\n"
    );
}

/// `-q` writes nothing, so a closed stdout does not make it fail: it still answers
/// with its status, for `if pfind -q ... >&-; then`.
#[test]
fn quiet_does_not_need_stdout() {
    let env = TestEnv::new(&[], &["a.jpg"]);
    for (pattern, status) in [("jpg", 0), ("png", 1)] {
        let out = Command::new("sh")
            .current_dir(env.root())
            .args(["-c", "exec \"$0\" -q -e \"$1\" >&-"])
            .args([env!("CARGO_BIN_EXE_pfind"), pattern])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(status), "-e {pattern}");
        assert!(
            out.stderr.is_empty(),
            "{:?}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Anything that prints still needs it.
    let out = Command::new("sh")
        .current_dir(env.root())
        .args(["-c", "exec \"$0\" -q --generate bash >&-"])
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_slow_consumer_receives_every_line_intact() {
    let env = TestEnv::for_big_tree();
    let mut expected = Vec::new();
    for d in 0..40 {
        for f in 0..250 {
            let path = format!("dir_{d:02}/{}_{f:03}", "long_name_".repeat(8));
            env.write(&path, b"");
            expected.push(path.into_bytes());
        }
    }
    for threads in ["2", "16"] {
        let mut child = pfind_command(env.root(), &["-j", threads])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // Let pfind fill the pipe and block before anything is read.
        std::thread::sleep(Duration::from_millis(700));
        let mut bytes = Vec::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        assert!(child.wait().unwrap().success());
        assert_same_records("slow consumer", &split_records(&bytes, b'\n'), &expected);
    }
}

#[test]
fn odd_roots_and_names_as_arguments() {
    let env = TestEnv::new(
        &["-dash", "sp ace", "glob*?[]"],
        &["-dash/f", "sp ace/f", "glob*?[]/f"],
    );
    // A root that starts with a dash needs `--`, as with every getopt-style tool.
    for threads in THREAD_COUNTS {
        let out = env.run(&["-j", threads, "--", "-dash"]);
        assert_eq!(
            (out.stdout, out.status.code()),
            (b"-dash/f\n".to_vec(), Some(0))
        );
    }
    env.assert_output(&["sp ace", "glob*?[]"], &["sp ace/f", "glob*?[]/f"]);
    let raw = OsString::from(OsStr::from_bytes(b"bad\xffroot"));
    std::fs::create_dir(env.root().join(&raw)).unwrap();
    std::fs::write(env.root().join(&raw).join("f"), b"").unwrap();
    let out = env.run(&[raw.as_os_str(), "-0".as_ref()]);
    assert_eq!(out.stdout, b"bad\xffroot/f\0");
}

#[test]
fn a_closed_pipe_stops_the_walk_instead_of_finishing_it() {
    // 300 directories under a 3.6 KB prefix, each with 75 files: every directory
    // prints more than a worker's 256 KiB flush threshold, so each worker writes after
    // every directory and learns of the closed pipe at once. Each directory also holds
    // an unreadable subdirectory, so every directory walked shows up as one error line:
    // a walk that went on after the reader left would report all 300.
    let env = TestEnv::for_big_tree();
    let deep: PathBuf = (0..14)
        .map(|level| format!("{level:02}{}", "p".repeat(240)))
        .collect();
    for d in 0..300 {
        let dir = deep.join(format!("d{d:03}"));
        for f in 0..75 {
            env.write(dir.join(format!("f{f:02}")), b"");
        }
        let locked = env.root().join(&dir).join("locked");
        std::fs::create_dir(&locked).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    for threads in ["1", "2", "16"] {
        let mut child = pfind_without_dac_override(env.root(), &["-j", threads])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first_bytes = [0u8; 16];
        child
            .stdout
            .take()
            .unwrap()
            .read_exact(&mut first_bytes)
            .unwrap();
        // The read end is closed here, when the ChildStdout is dropped.
        let out = child.wait_with_output().unwrap();
        let errors = String::from_utf8_lossy(&out.stderr).lines().count();
        assert!(
            errors < 100,
            "-j {threads}: {errors} of 300 directories walked after the pipe closed"
        );
        assert!(out.status.signal().is_none());
    }
}

/// Sets `RLIMIT_NOFILE` to `limit` in the child before it runs pfind.
fn with_nofile_limit(command: &mut Command, limit: libc::rlim_t) {
    with_rlimit(command, libc::RLIMIT_NOFILE, limit);
}

/// Issue 11, defect 1: with few descriptors, directories are opened by a path of
/// several components (from a far anchor, or from the root when no anchor fits), and
/// each of those components must be refused if it became a symbolic link. A swapper
/// replaces `root/sN` with `sN -> ../outside` and back while pfind runs; under
/// `ulimit -n 7` the old code printed files from `outside` in about 40% of runs,
/// under 8 in about 1%.
#[test]
fn directories_swapped_for_links_mid_walk_never_lead_outside_the_tree() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let tmp = tempfile::tempdir().unwrap();
    let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
    const DIRS: usize = 40;
    for n in 0..DIRS {
        for sub in ["d", "d/e"] {
            for f in 0..5 {
                let file = root.join(format!("s{n}/{sub}/f{f}"));
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, b"").unwrap();
            }
        }
    }
    for sub in ["d", "d/e"] {
        std::fs::create_dir_all(outside.join(sub)).unwrap();
        for f in 0..5 {
            std::fs::write(outside.join(format!("{sub}/ESCAPED{f}")), b"").unwrap();
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (root, aside, stop) = (root.clone(), tmp.path().join("aside"), stop.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for n in 0..DIRS {
                    let dir = root.join(format!("s{n}"));
                    std::fs::rename(&dir, &aside).unwrap();
                    std::os::unix::fs::symlink("../outside", &dir).unwrap();
                    std::thread::sleep(Duration::from_micros(200));
                    std::fs::remove_file(&dir).unwrap();
                    std::fs::rename(&aside, &dir).unwrap();
                    swaps += 1;
                }
            }
            swaps
        })
    };
    let mut runs = 0;
    for limit in [7, 8] {
        for threads in ["1", "2"] {
            for _ in 0..25 {
                let mut command = pfind_command(tmp.path(), &["root", "-j", threads]);
                with_nofile_limit(&mut command, limit);
                let out = output_within(command, Duration::from_secs(60));
                assert!(out.status.signal().is_none(), "killed by a signal");
                assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}", out.status);
                for line in split_records(&out.stdout, b'\n') {
                    assert!(
                        line.starts_with(b"root/s") && !line.windows(7).any(|w| w == b"ESCAPED"),
                        "ulimit -n {limit}, -j {threads}: printed {:?} from outside the tree",
                        String::from_utf8_lossy(&line)
                    );
                }
                runs += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(
        swaps > runs,
        "the swapper ran ({swaps} swaps in {runs} runs)"
    );
}

/// Builds `branching`^`depth` directories under `root` with `files` files in each
/// leaf, and returns the files' paths relative to `root`.
fn fan_out_tree(root: &Path, branching: usize, depth: usize, files: usize) -> Vec<Vec<u8>> {
    fn grow(
        dir: &Path,
        printed: &str,
        level: usize,
        shape: (usize, usize, usize),
        out: &mut Vec<Vec<u8>>,
    ) {
        let (branching, depth, files) = shape;
        if level == depth {
            for f in 0..files {
                std::fs::write(dir.join(format!("f{f}")), b"").unwrap();
                out.push(format!("{printed}f{f}").into_bytes());
            }
            return;
        }
        for b in 0..branching {
            let name = format!("d{b}");
            std::fs::create_dir(dir.join(&name)).unwrap();
            grow(
                &dir.join(&name),
                &format!("{printed}{name}/"),
                level + 1,
                shape,
                out,
            );
        }
    }
    let mut out = Vec::new();
    grow(root, "", 0, (branching, depth, files), &mut out);
    out
}

/// Issue 11, defect 2: descriptors the parent left open count against the limit.
/// Under `ulimit -n 16` with 3 to 8 inherited from the shell, the old budget assumed
/// 13 free where there were 7, and lost a third of this tree to "Too many open files".
#[test]
fn descriptors_inherited_from_the_shell_are_counted() {
    let tmp = big_tree_dir();
    let expected = fan_out_tree(tmp.path(), 4, 4, 6);
    assert_eq!(expected.len(), 1536);
    for threads in ["1", "2", "4", "16"] {
        let mut command = Command::new("sh");
        command
            .current_dir(tmp.path())
            .args([
                "-c",
                "exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null; \
                 exec \"$0\" \"$@\"",
                env!("CARGO_BIN_EXE_pfind"),
                "-j",
                threads,
            ])
            .stdin(Stdio::null());
        with_nofile_limit(&mut command, 16);
        let out = output_within(command, Duration::from_secs(60));
        let context = format!("ulimit -n 16, 3-8 inherited, -j {threads}");
        assert_complete(&context, &out, b'\n', &expected);
    }
}

/// The descriptors of a running process, by number.
fn open_descriptors(pid: u32) -> Vec<u64> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Issue 11, defect 2: when the budget turns out wrong anyway (here the limit is
/// lowered with `prlimit` while pfind holds more descriptors than it will then be
/// allowed), `EMFILE` makes pfind give up anchors and retry, never lose a directory.
/// pfind is stopped mid-walk by a pipe nobody reads yet, so the limit is lowered
/// while anchors are certainly open.
#[test]
fn a_limit_lowered_mid_walk_loses_nothing() {
    let tmp = big_tree_dir();
    let long = "n".repeat(100);
    let mut expected = Vec::new();
    for top in 0..20 {
        for sub in 0..20 {
            for f in 0..20 {
                let path = format!("t{top:02}/s{sub:02}/{long}{f:02}");
                expected.push(path.clone().into_bytes());
                let path = tmp.path().join(path);
                if f == 0 {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                }
                std::fs::write(path, b"").unwrap();
            }
        }
    }
    for threads in [1u64, 2] {
        let mut child = pfind_command(tmp.path(), &["-j", &threads.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // Wait until pfind has started writing: it is walking, and will block on
        // the full pipe with its directories open.
        let mut poll = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(&stdout),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        assert_eq!(unsafe { libc::poll(&mut poll, 1, 60_000) }, 1);
        std::thread::sleep(Duration::from_millis(100));
        // Its workers need two each besides stdio; anything above is anchors.
        let lowered = 3 + 2 * threads;
        let held = open_descriptors(child.id());
        assert!(
            held.iter().any(|&fd| fd >= lowered),
            "-j {threads}: pfind holds {held:?}, nothing above the new limit {lowered}"
        );
        let limit = libc::rlimit {
            rlim_cur: lowered,
            rlim_max: lowered,
        };
        // SAFETY: a valid rlimit for a child we own.
        let rc = unsafe {
            libc::prlimit(
                child.id() as libc::pid_t,
                libc::RLIMIT_NOFILE,
                &limit,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(rc, 0, "prlimit");
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).unwrap();
        let out = Output {
            stdout: bytes,
            ..child.wait_with_output().unwrap()
        };
        let context = format!("limit lowered to {lowered} mid-walk, -j {threads}");
        assert_complete(&context, &out, b'\n', &expected);
    }
}

/// Issue 11, defect 3: a worker thread that cannot start must not stop the walk.
/// `RLIMIT_NPROC` counts the threads of every process of the real user, and root is
/// exempt from it, so as root pfind runs as `nobody` (through `setpriv`, from a copy
/// of the binary anyone can run, on a tree anyone can read). With a limit of 1 no
/// worker can start; with 2, one can. The old code panicked (exit 101) in both.
#[test]
fn threads_that_cannot_start_leave_the_walk_to_those_that_did() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let tree = tmp.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    let expected = fan_out_tree(&tree, 4, 3, 5);
    let binary = tmp.path().join("pfind");
    std::fs::copy(env!("CARGO_BIN_EXE_pfind"), &binary).unwrap();
    let as_limited_user = |program: &Path, args: &[&str], nproc: libc::rlim_t| {
        let mut command = testenv::as_limited_user(program)?;
        command.args(args).current_dir(&tree).stdin(Stdio::null());
        with_rlimit(&mut command, libc::RLIMIT_NPROC, nproc);
        Some(command)
    };
    if as_limited_user(Path::new("/bin/true"), &[], 1).is_none() {
        eprintln!(
            "SKIPPED: running as root without setpriv (util-linux), so RLIMIT_NPROC cannot apply"
        );
        return;
    }
    // The limit really bites: under it, a shell cannot start a child either.
    let probe = as_limited_user(Path::new("/bin/sh"), &["-c", "/bin/true"], 1)
        .unwrap()
        .output()
        .unwrap();
    assert!(
        !probe.status.success(),
        "RLIMIT_NPROC 1 did not stop a fork; the test would prove nothing"
    );
    for nproc in [1, 2] {
        for threads in ["2", "4", "16"] {
            let out = output_within(
                as_limited_user(&binary, &["-j", threads], nproc).unwrap(),
                Duration::from_secs(60),
            );
            let context = format!("RLIMIT_NPROC {nproc}, -j {threads}");
            assert_complete(&context, &out, b'\n', &expected);
        }
    }
}

/// Issue 11, messages: every error is one line whose path cannot act on a terminal
/// (C0 and C1 controls and bytes that are not UTF-8 are written as `\xNN`), an empty
/// root reads `''`, the cause is said once, and a missing root that looks like a
/// pattern says how names are matched, once per run.
#[test]
fn error_messages_are_escaped_and_say_each_thing_once() {
    let env = TestEnv::new(&[], &[]);
    let cases: &[(&[&[u8]], &str)] = &[
        (&[b""], "pfind: '': No such file or directory\n"),
        (
            &[b"x/a\xc2\x9bb\xffc\x1b[2J\n"],
            "pfind: x/a\\xc2\\x9bb\\xffc\\x1b[2J\\n: No such file or directory\n",
        ),
        (
            &[b"jpg", b"png", b"sub/jpg"],
            "pfind: jpg: No such file or directory \
             (roots are directories to search; match names with -n GLOB or -e EXT)\n\
             pfind: png: No such file or directory\n\
             pfind: sub/jpg: No such file or directory\n",
        ),
    ];
    for &(roots, want) in cases {
        let args: Vec<&OsStr> = roots.iter().map(|root| OsStr::from_bytes(root)).collect();
        let out = env.run(&args);
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{roots:?}");
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
    }
}

/// Issue 11, messages: a panic names its thread, the main thread too (pfind starts
/// at the C `main`, where Rust's runtime would have named it). Debug builds panic on
/// purpose when `PFIND_DEBUG_PANIC` is set.
#[test]
fn a_panic_on_the_main_thread_names_it() {
    if !cfg!(debug_assertions) {
        eprintln!(
            "SKIPPED a_panic_on_the_main_thread_names_it: release builds have no panic switch"
        );
        return;
    }
    let env = TestEnv::new(&[], &["f"]);
    let out = pfind_command(env.root(), &[] as &[&str])
        .env("PFIND_DEBUG_PANIC", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(101));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("thread 'main' panicked at src/main.rs:")
            && stderr.contains("PFIND_DEBUG_PANIC is set"),
        "{stderr}"
    );
}

/// Sets a socket's buffer `option` (`SO_SNDBUF`, `SO_RCVBUF`) to `bytes`.
fn set_socket_buffer(socket: &impl std::os::fd::AsRawFd, option: libc::c_int, bytes: libc::c_int) {
    // SAFETY: a valid socket, and a pointer to an int of the size given.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            option,
            (&bytes as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "setsockopt");
}

/// Issue 20, defect 10: a TCP socket as stdout whose reader closes it early, with
/// data unread, resets the connection, and pfind's next write fails with
/// `ECONNRESET` rather than `EPIPE`. That is the reader leaving, as a closed pipe
/// or unix socket is: pfind stops, says nothing and exits 0. Small socket buffers
/// make sure pfind is still writing when the reader goes.
#[test]
fn a_tcp_reader_that_leaves_early_is_a_closed_pipe() {
    use std::net::{TcpListener, TcpStream};
    let env = TestEnv::for_big_tree();
    for d in 0..20 {
        for f in 0..200 {
            env.write(format!("dir_{d:02}/{}_{f:03}", "long_name_".repeat(8)), b"");
        }
    }
    for threads in THREAD_COUNTS {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        set_socket_buffer(&listener, libc::SO_RCVBUF, 4096);
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        set_socket_buffer(&client, libc::SO_SNDBUF, 4096);
        let (mut reader, _) = listener.accept().unwrap();
        let child = pfind_command(env.root(), &["-j", threads])
            .stdout(Stdio::from(std::os::fd::OwnedFd::from(client)))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first_bytes = [0u8; 16];
        reader.read_exact(&mut first_bytes).unwrap();
        // Wait until more has arrived than was read, so that closing resets.
        let mut waiting = 0u32;
        while reader.peek(&mut [0u8; 64]).unwrap_or(0) < 64 && waiting < 500 {
            std::thread::sleep(Duration::from_millis(10));
            waiting += 1;
        }
        drop(reader);
        let out = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "-j {threads}");
        assert_eq!(out.status.code(), Some(0), "-j {threads}");
    }
}

/// Issue 20, defect 8: under `ulimit -s 40`, `pfind --version` died of SIGSEGV
/// without a word (clap's parser for pfind's options has a 34 KiB frame, and the
/// main thread's stack is what the limit allows). Under a limit that small the run
/// now moves to a thread with a 2 MiB stack, as the workers have, so everything works
/// at 16 KiB, where find and bfs do. The environment is kept small: it is on the same
/// stack, as are up to 8 KiB the kernel leaves at random above it.
#[test]
fn a_small_stack_limit_still_runs() {
    let env = TestEnv::new(&["a/b"], &["a/f", "a/b/g", "h"]);
    let expected: Vec<Vec<u8>> = ["a/f", "a/b/g", "h"]
        .iter()
        .map(|p| p.as_bytes().to_vec())
        .collect();
    for kib in [16, 40] {
        let limited = |args: &[&str]| {
            let mut command = pfind_command(env.root(), args);
            command.env_clear().env("PATH", "/usr/bin:/bin");
            with_rlimit(&mut command, libc::RLIMIT_STACK, kib * 1024);
            output_within(command, Duration::from_secs(60))
        };
        for args in [&["--version"][..], &["--help"]] {
            let out = limited(args);
            assert_eq!(out.status.code(), Some(0), "ulimit -s {kib}, {args:?}");
            assert!(!out.stdout.is_empty() && out.stderr.is_empty());
        }
        let out = limited(&["--bogus"]);
        assert_eq!(out.status.code(), Some(2), "ulimit -s {kib}, --bogus");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: unexpected argument"));
        for threads in THREAD_COUNTS {
            let out = limited(&["-j", threads]);
            assert_complete(
                &format!("ulimit -s {kib}, -j {threads}"),
                &out,
                b'\n',
                &expected,
            );
            let out = limited(&["-j", threads, "--sort", "path", "-l"]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "ulimit -s {kib}, --sort, -j {threads}"
            );
            assert_eq!(split_records(&out.stdout, b'\n').len(), 3);
        }
    }
}

/// Whether a run's output is the whole result.
type ExactCheck<'a> = &'a dyn Fn(&[u8]) -> bool;

/// How a run under a resource limit ended, for the limit tests.
#[derive(Debug, PartialEq)]
enum Ending {
    /// Status 0, the whole result, nothing on stderr.
    Exact,
    /// Status 1 and pfind's last words on stderr (`pfind: out of memory (...)`).
    SaidWhy(String),
    /// The kernel refused to start the program at all under the limit.
    NotStarted,
}

/// Runs `command` and says how it ended; fails the test on anything else (a signal,
/// silence, a wrong result). `exact` checks the output of a run that ended well.
fn ending(context: &str, mut command: Command, exact: impl Fn(&[u8]) -> bool) -> Ending {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = match command.spawn() {
        Ok(child) => child,
        Err(err) if err.raw_os_error() == Some(libc::ENOMEM) => return Ending::NotStarted,
        Err(err) => panic!("{context}: spawn: {err}"),
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.signal().is_none(),
        "{context}: killed by signal {:?}; stderr: {stderr}",
        out.status.signal()
    );
    match out.status.code() {
        Some(0) => {
            assert_eq!(stderr, "", "{context}");
            assert!(
                exact(&out.stdout),
                "{context}: status 0 with a wrong result"
            );
            Ending::Exact
        }
        Some(1) => {
            let last = stderr.lines().last().unwrap_or_default();
            assert!(
                last.starts_with("pfind: ") && stderr.lines().all(|l| l.starts_with("pfind: ")),
                "{context}: status 1 without saying why: {stderr:?}"
            );
            Ending::SaidWhy(last.to_string())
        }
        // The dynamic loader could not map the C library (a dynamically linked
        // build under a few MB): the program never ran.
        Some(127) if stderr.contains("error while loading shared libraries") => Ending::NotStarted,
        status => panic!("{context}: status {status:?}, stderr: {stderr}"),
    }
}

/// Issue 20, defect 2: under `ulimit -v` with many workers, pfind aborted (SIGABRT,
/// `memory allocation of 65536 bytes failed`), often having printed nothing: the
/// workers' stacks and buffers, and glibc's 64 MiB arena for each thread, filled the
/// address space, and the next allocation anywhere failed. Now the limit bounds the
/// pool (the workers take at most half of the free address space), a worker that
/// cannot have its listing buffer does not start, and what still does not fit ends
/// the run with `pfind: out of memory (could not allocate N bytes)` and status 1.
/// Every run either prints the exact result or says why it stopped.
#[test]
fn an_address_space_limit_gives_the_result_or_says_why() {
    // 4,320 files under a 3.4 KB prefix: 15 MB of paths, which `--sort` must hold,
    // so that the smaller limits run out of memory somewhere.
    let tmp = big_tree_dir();
    let prefix: PathBuf = (0..14)
        .map(|level| format!("{level:02}{}", "p".repeat(240)))
        .collect();
    std::fs::create_dir_all(tmp.path().join(&prefix)).unwrap();
    let expected: Vec<Vec<u8>> = fan_out_tree(&tmp.path().join(&prefix), 6, 3, 20)
        .into_iter()
        .map(|path| [prefix.as_os_str().as_bytes(), b"/", &path].concat())
        .collect();
    let root = prefix.to_str().unwrap();
    let mut sorted = expected.clone();
    sorted.sort();
    let count = format!("{}\n", expected.len()).into_bytes();
    let same_set = |out: &[u8]| {
        let mut got = split_records(out, b'\n');
        got.sort();
        got == sorted
    };
    let mut endings = Vec::new();
    for mb in [10, 20, 50, 100, 200] {
        // Below what the program's own image needs, the loader ends it before any of
        // its code runs: glibc's `ld.so` takes its first `mmap` failing (ENOMEM) for a
        // page it got, and dies of SIGSEGV at address 0 (strace, the debug build at
        // 10 MB once it had grown by issue 38's code). Nothing pfind can say why
        // about, and not its run: such a limit is passed over, as in
        // `small_stack_and_address_space_limits_together`.
        let mut version = pfind_command(tmp.path(), &["--version"]);
        with_rlimit(&mut version, libc::RLIMIT_AS, mb * 1_000_000);
        let started = version.output().map(|out| out.status.signal().is_none());
        if !matches!(started, Ok(true)) {
            endings.push(Ending::NotStarted);
            continue;
        }
        for threads in ["1", "2", "64", "1024"] {
            let modes: [(&[&str], ExactCheck); 3] = [
                (&[], &same_set),
                (&["-c"], &|out: &[u8]| out == count),
                (&["--sort", "path"], &|out: &[u8]| {
                    split_records(out, b'\n') == sorted
                }),
            ];
            for (extra, exact) in modes {
                let mut args = vec![root, "-j", threads];
                args.extend_from_slice(extra);
                let mut command = pfind_command(tmp.path(), &args);
                with_rlimit(&mut command, libc::RLIMIT_AS, mb * 1_000_000);
                let args = &args[1..];
                let context = format!("ulimit -v {}, {args:?}", mb * 1000);
                let end = ending(&context, command, exact);
                // A smaller pool goes on: at 200 MB, a thousand workers asked for
                // still give the whole result.
                if mb == 200 && extra.is_empty() {
                    assert_eq!(end, Ending::Exact, "{context}");
                }
                endings.push(end);
            }
        }
    }
    // The limits were not all too small, nor all too large, to show anything.
    assert!(endings.contains(&Ending::Exact));
    assert!(
        endings.iter().any(|end| matches!(end, Ending::SaidWhy(why)
            if why.starts_with("pfind: out of memory (could not allocate "))),
        "{endings:?}"
    );
}

/// Issue 20, defects 2 and 8 together: a small stack moves the run to a thread with a
/// 2 MiB stack, which an address-space limit may not leave room for. Either way the
/// run ends well or says why.
#[test]
fn small_stack_and_address_space_limits_together() {
    let tmp = tempfile::tempdir().unwrap();
    let expected = fan_out_tree(tmp.path(), 4, 2, 10);
    let mut sorted = expected.clone();
    sorted.sort();
    let mut said = Vec::new();
    for mb in [5, 8, 10, 15, 20, 50] {
        let limited = |args: &[&str]| {
            let mut command = pfind_command(tmp.path(), args);
            command.env_clear().env("PATH", "/usr/bin:/bin");
            with_rlimit(&mut command, libc::RLIMIT_STACK, 16 * 1024);
            with_rlimit(&mut command, libc::RLIMIT_AS, mb * 1_000_000);
            command
        };
        // Below what the program's own image needs (the debug build's code is 8 MB
        // since the regex crate, issue 27), the kernel or the loader ends it in
        // `exec`, before any of its code runs: nothing pfind can say why about.
        let version = limited(&["--version"])
            .output()
            .map(|out| out.status.success());
        if !matches!(version, Ok(true)) {
            continue;
        }
        for threads in ["1", "16"] {
            let command = limited(&["-j", threads, "--sort", "path"]);
            let context = format!("ulimit -s 16 -v {}, -j {threads}", mb * 1000);
            if let Ending::SaidWhy(why) =
                ending(&context, command, |out| split_records(out, b'\n') == sorted)
            {
                said.push(why);
            }
        }
    }
    eprintln!("small stack and address space: {said:?}");
}

/// Writes `contents` to a new file `name` in the open directory `dir`.
pub(crate) fn write_at(dir: libc::c_int, name: &[u8], contents: &[u8]) {
    let name = c_name(name);
    // SAFETY: a valid descriptor, a NUL-terminated name, and a buffer of its length.
    unsafe {
        let fd = libc::openat(
            dir,
            name.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
            0o644,
        );
        assert!(fd >= 0, "create file");
        let written = libc::write(fd, contents.as_ptr().cast(), contents.len());
        assert_eq!(written, contents.len() as isize);
        libc::close(fd);
    }
}

/// Issue 38, item 4: with any ignore rules, each directory held its whole path and
/// each entry's verdict walked every level up to the top, so memory and time grew
/// with the square of the depth (30,000 levels: 1.1 GB and 7.1 s, against 4.4 MB
/// and 0.28 s without rules), and a rule such as `**/x` was a wildmatch over the
/// whole path of every entry. Now a directory without rule files shares its
/// parent's, and a wildcard rule is tried only on paths that end as it does. On a
/// chain of 30,000 directories with rules at the top and deep down, under a 400 MB
/// address-space limit (where the old walk ran out of memory), the answer is exact.
#[test]
fn rules_on_a_deep_chain_cost_what_the_rules_cost() {
    let tmp = big_tree_dir();
    let _cleanup = RemoveOnDrop(tmp.path().join("c"));
    const LEVELS: usize = 30_000;
    const RULES_AT: usize = 20_000;
    let top = open_path(tmp.path());
    let mut dir = mkdir_open(top, b"c");
    close(top);
    write_at(dir, b".gitignore", b"**/nomatch\n*.o\n/d/d/x\n");
    let mut expected = vec![b"c/.gitignore".to_vec()];
    for level in 0..=LEVELS {
        if level % 5_000 == 0 {
            touch_at(dir, b"f");
            touch_at(dir, b"x.o");
            // The rules deep down leave out f, there and below.
            if level < RULES_AT {
                expected.push(format!("c{}/f", "/d".repeat(level)).into_bytes());
            }
        }
        if level == RULES_AT {
            write_at(dir, b".gitignore", b"f\n");
            expected.push(format!("c{}/.gitignore", "/d".repeat(level)).into_bytes());
        }
        if level < LEVELS {
            let next = mkdir_open(dir, b"d");
            close(dir);
            dir = next;
        }
    }
    close(dir);
    for threads in ["1", "2"] {
        let mut command = pfind_command(tmp.path(), &["c", "--ignore", "-0", "-j", threads]);
        with_rlimit(&mut command, libc::RLIMIT_AS, 400 << 20);
        let out = output_within(command, Duration::from_secs(300));
        let context = format!("{LEVELS} levels with rules, -j {threads}");
        assert_complete(&context, &out, 0, &expected);
    }
}
