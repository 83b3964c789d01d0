//! What is walked (src/cli/walk.rs and the roots): every regular file and nothing
//! else by default, the forms a root takes (missing, a FIFO, a symlink with and
//! without a trailing slash), `-L`/`--no-follow` against `find -L` (loops reported
//! once, at every depth limit, at the bottom of a deep chain, through a bind mount of
//! an ancestor) and `-x` (stops at /proc, prints an empty mount point); through the
//! real binary at 1, 2 and 16 threads.

use crate::engine::hard_inputs::{c_name, close, mkdir_open, open_path, touch_at, RemoveOnDrop};
use crate::entries::run_all;
use crate::output::{mixed_tree, records};
use crate::testenv;
use crate::testenv::{
    assert_same_records, is_root, oracle_files, pfind_command, split_records, TestEnv,
    THREAD_COUNTS,
};
use std::collections::BTreeSet;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ALL_MIXED: &[&str] = &[
    "top.jpg",
    "top.txt",
    ".hidden.jpg",
    ".jpg",
    "a/one.JPG",
    "a/b/two.png",
    "a/b/c/three.jpeg",
    ".hidden_dir/inner.txt",
    "photos/IMG_0001.jpg",
    "photos/IMG_0002.png",
    "photos/notes.txt",
];

#[test]
fn prints_every_regular_file_and_nothing_else() {
    // Hidden files included; links, the dangling link and the FIFO not printed, and
    // link_to_dir not followed (a/one.JPG appears once, not again under the link).
    mixed_tree().assert_output::<&str>(&[], ALL_MIXED);
}

#[test]
fn root_forms() {
    let env = TestEnv::new(&["dir/sub"], &["dir/f", "dir/sub/g", "other"]);
    env.assert_output(&["dir"], &["dir/f", "dir/sub/g"]);
    env.assert_output(&["dir/"], &["dir/f", "dir/sub/g"]);
    env.assert_output(&["dir//"], &["dir//f", "dir//sub/g"]); // as find prints it
    env.assert_output(&["."], &["./dir/f", "./dir/sub/g", "./other"]);
    env.assert_output::<&str>(&[], &["dir/f", "dir/sub/g", "other"]); // no "./"
    env.assert_output(&["dir/sub", "other"], &["dir/sub/g", "other"]);
    env.assert_output(&["dir/f", "-e", "x"], &[]); // a file root is filtered too
    let absolute = env.root().join("dir");
    let absolute = absolute.to_str().unwrap();
    env.assert_output(
        &[absolute],
        &[&format!("{absolute}/f"), &format!("{absolute}/sub/g")],
    );
}

#[test]
fn missing_root_is_an_error_but_other_roots_are_walked() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    // `nope dir` would be fd's PATTERN DIR, refused before the walk (hints.rs).
    for threads in testenv::THREAD_COUNTS {
        let out = env.run(&["dir", "nope", "-j", threads]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "dir/f\n");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "pfind: nope: No such file or directory \
             (roots are directories to search; match names with -n GLOB or -e EXT)\n"
        );
    }
}

/// As `find fifo -type f` does: nothing matches a FIFO root, which is not an error,
/// and it is never opened (which would block).
#[test]
fn fifo_root_matches_nothing_and_is_not_opened() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    env.mkfifo("pipe");
    env.assert_output(&["pipe"], &[]);
    env.assert_output(
        &["pipe", "dir", "-t", "f", "-t", "d", "-t", "l"],
        &["dir/f"],
    );
}

/// A root that is a symbolic link to a directory is not followed (find -P's rule)
/// unless written with a slash or with -L; issue 28, item 10: the run that would
/// print nothing and say nothing now says, once, how to search it. Nothing else
/// about links as roots changes.
#[test]
fn symlinked_root_is_not_followed_unless_written_with_a_slash() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    env.symlink("dir", "lnk");
    env.symlink("dir/f", "flnk");
    env.symlink("missing", "dangling");
    let warning = "pfind: warning: lnk is a symbolic link to a directory, and links are not \
                   followed: to search the directory, give it as lnk/ or use -L\n";
    let cases: [(&[&str], &str, &str); 7] = [
        (&["lnk"], "", warning),
        (&["lnk", "-n", "f"], "", warning),
        (&["lnk", "-t", "l"], "lnk\n", ""),
        (&["lnk/"], "lnk/f\n", ""),
        (&["-L", "lnk"], "lnk/f\n", ""),
        (&["flnk", "-t", "f"], "", ""),
        (&["dangling"], "", ""),
    ];
    for (args, stdout, stderr) in cases {
        let out = env.run(args);
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{args:?}");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn follow_prints_link_targets_under_the_links_path() {
    let env = TestEnv::new(&["real/sub", "other"], &["real/f", "real/sub/g", "other/h"]);
    env.symlink("../real", "other/to_real");
    env.symlink("real/f", "to_f");
    env.symlink("missing", "dangling");
    let want = &[
        "real/f",
        "real/sub/g",
        "other/h",
        "other/to_real/f",
        "other/to_real/sub/g",
        "to_f",
    ];
    env.assert_output(&["-L"], want);
    env.assert_output(&["--follow", "-c"], &["6"]);
    // A dangling link is still a link under -L, as with find -L.
    env.assert_output(&["-L", "-t", "l"], &["dangling"]);
    env.assert_output(
        &["-L", "-t", "d"],
        &[
            "real",
            "real/sub",
            "other",
            "other/to_real",
            "other/to_real/sub",
        ],
    );
    // -l sizes the target, not the link.
    env.write("real/f", b"12345");
    env.assert_output(
        &["-L", "-l", "-n", "*f", "-d", "2"],
        &["                   5 real/f", "                   5 to_f"],
    );
    // Roots are followed too.
    env.assert_output(
        &["-L", "other/to_real"],
        &["other/to_real/f", "other/to_real/sub/g"],
    );
    env.assert_output(&["-L", "to_f"], &["to_f"]);
    env.assert_output(
        &["other/to_real/"],
        &["other/to_real/f", "other/to_real/sub/g"],
    );
}

#[test]
fn follow_reports_each_loop_once_and_terminates() {
    let env = TestEnv::new(&["d/e"], &["f", "d/g", "d/e/h"]);
    env.symlink("..", "d/up"); // back to the root
    env.symlink(".", "d/e/self_dir"); // the directory it is in
    env.symlink("self_link", "self_link"); // a link to itself
    env.symlink("../..", "d/e/up2");
    for (lines, stderr, code) in run_all(&env, &["-L"]) {
        assert_same_records("-L loops", &lines, &records(&["f", "d/g", "d/e/h"]));
        let mut reported: Vec<&str> = stderr.lines().collect();
        reported.sort();
        assert_eq!(
            reported,
            [
                "pfind: d/e/self_dir: filesystem loop detected",
                "pfind: d/e/up2: filesystem loop detected",
                "pfind: d/up: filesystem loop detected",
                "pfind: self_link: Too many levels of symbolic links",
            ]
        );
        assert_eq!(code, Some(1));
    }
    // A loop through the root itself, given with -L.
    let looped = TestEnv::new(&[], &["x"]);
    looped.symlink(".", "again");
    for (lines, stderr, code) in run_all(&looped, &["-L", "."]) {
        assert_eq!(lines, records(&["./x"]));
        assert_eq!(stderr, "pfind: ./again: filesystem loop detected\n");
        assert_eq!(code, Some(1));
    }
}

#[test]
fn follow_matches_find_minus_l_on_random_trees() {
    // Random trees have links to files, to directories (ancestors or not) and dangling
    // ones. A file reached through two links is printed under both paths, as find -L
    // does; loops are cut where find cuts them.
    for seed in [1u64, 5, 9] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir(&root).unwrap();
        testenv::random_tree(&root, seed, 250);
        let find = std::process::Command::new("find")
            .current_dir(tmp.path())
            .args(["-L", "root", "-type", "f", "-print0"])
            .output()
            .expect("GNU find is needed for this test");
        let expected = split_records(&find.stdout, 0);
        for threads in ["1", "2", "16"] {
            let out = pfind_command(tmp.path(), &["-L", "root", "-0", "-j", threads])
                .output()
                .unwrap();
            let context = format!("seed {seed}, -j {threads}");
            assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
            assert_eq!(out.status.code(), find.status.code(), "{context}");
        }
    }
}

#[test]
fn one_file_system_without_mounts_changes_nothing() {
    // Creating a mount needs privileges tests do not have, so the crossing itself is
    // checked by a unit test of the device comparison (walker.rs) and, below, against
    // /proc when it is a separate file system.
    let env = TestEnv::new(&["a/b"], &["f", "a/g", "a/b/h"]);
    env.assert_output(&["-x"], &["f", "a/g", "a/b/h"]);
    env.assert_output(&["--one-file-system", "-t", "d"], &["a", "a/b"]);
}

#[test]
fn one_file_system_stops_at_proc() {
    let dev = |path: &str| std::fs::metadata(path).map(|m| std::os::unix::fs::MetadataExt::dev(&m));
    if !std::path::Path::new("/proc/self").exists() || dev("/").ok() == dev("/proc").ok() {
        eprintln!("skipped: /proc is not a separate file system here");
        return;
    }
    let env = TestEnv::new(&[], &[]);
    let listed = |extra: &[&str]| -> BTreeSet<Vec<u8>> {
        let out = env.run(&[&["/", "-t", "d", "-d", "2"], extra].concat());
        split_records(&out.stdout, b'\n').into_iter().collect()
    };
    let crossing = listed(&[]);
    assert!(
        crossing.contains(&b"/proc/self"[..]) || crossing.iter().any(|p| p.starts_with(b"/proc/1"))
    );
    let staying = listed(&["-x"]);
    // The mount point itself is listed (as with find -xdev); nothing under it is.
    assert!(staying.contains(&b"/proc"[..]));
    assert!(
        !staying.iter().any(|p| p.starts_with(b"/proc/")),
        "-x entered /proc"
    );
}

/// fd's undo switches, for an alias or PFIND_OPTIONS that holds -L or -a: the last
/// of each pair wins.
#[test]
fn no_follow_and_relative_path_undo_follow_and_absolute() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    env.symlink("dir", "link");
    let cwd = std::fs::canonicalize(env.root()).unwrap();
    let abs = format!("{}/dir/f", cwd.to_str().unwrap());
    env.assert_output(&["-L"], &["dir/f", "link/f"]);
    env.assert_output(&["-L", "--no-follow"], &["dir/f"]);
    env.assert_output(&["--no-follow", "-L"], &["dir/f", "link/f"]);
    env.assert_output(&["-a", "dir"], &[&abs]);
    env.assert_output(&["-a", "--relative-path", "dir"], &["dir/f"]);
    env.assert_output(&["--relative-path", "-a", "dir"], &[&abs]);
}

/// Paths and loop reports of one run, sorted: what is compared with `find -L`.
#[derive(Debug, PartialEq)]
struct LoopRun {
    printed: Vec<String>,
    loops: Vec<String>,
    status: Option<i32>,
}

/// The path a `find` or `pfind` loop message names, if `line` is one.
fn loop_path(line: &str) -> Option<String> {
    if let Some(rest) = line.strip_prefix("find: File system loop detected; '") {
        return Some(rest[..rest.find('\'')?].to_string());
    }
    let rest = line.strip_prefix("pfind: ")?;
    Some(rest.strip_suffix(": filesystem loop detected")?.to_string())
}

fn loop_run(out: &Output) -> LoopRun {
    let mut printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    printed.sort();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut loops: Vec<String> = stderr
        .lines()
        .map(|line| loop_path(line).unwrap_or_else(|| panic!("unexpected stderr: {line}")))
        .collect();
    loops.sort();
    LoopRun {
        printed,
        loops,
        status: out.status.code(),
    }
}

/// Issue 11, defect 4 and the `-d` convention: under `-L`, a real directory can be
/// a loop too, when a link higher up led into its subtree (`L1 -> A/B`, then
/// `L1/C/L2 -> ../..` is `A`, whose `B` is `L1` again). pfind printed such a
/// directory with `-t d` and then reported it, and did not report one exactly at
/// the `-d` limit. Now it matches `find -L` (and `-maxdepth`): the loop is reported
/// once, never printed, at any depth limit.
#[test]
fn loops_under_follow_match_find_at_every_depth_limit() {
    let env = TestEnv::new(&["A/B/C", "D"], &["A/B/C/f", "D/g"]);
    env.symlink("A/B", "L1");
    env.symlink("../..", "A/B/C/L2");
    env.symlink("..", "D/up");
    env.symlink("../A/B/C", "D/toC");
    for depth in [None, Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)] {
        for kinds in [&["-t", "d"][..], &["-t", "f"], &["-t", "d", "-t", "f"]] {
            let mut find = Command::new("find");
            find.current_dir(env.root())
                .env("LC_ALL", "C")
                .args(["-L", ".", "-mindepth", "1"]);
            let mut args: Vec<String> = vec!["-L".into(), ".".into()];
            args.extend(kinds.iter().map(|s| s.to_string()));
            if let Some(depth) = depth {
                find.args(["-maxdepth", &depth.to_string()]);
                args.extend(["-d".to_string(), depth.to_string()]);
            }
            match kinds {
                ["-t", "d"] => find.args(["-type", "d"]),
                ["-t", "f"] => find.args(["-type", "f"]),
                _ => find.args(["(", "-type", "d", "-o", "-type", "f", ")"]),
            };
            let want = loop_run(&find.output().expect("GNU find"));
            for threads in THREAD_COUNTS {
                let mut run_args = args.clone();
                run_args.extend(["-j".to_string(), threads.to_string()]);
                let got = loop_run(&env.run(&run_args));
                assert_eq!(got, want, "pfind {run_args:?} against find -L");
            }
        }
    }
}

/// A mount made by a test, undone (lazily, so a failing test cannot leave it
/// behind busy) when dropped.
pub(crate) struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let target = CString::new(self.0.as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    }
}

/// Mounts `source` (of type `fstype`) on `target`, or says why it cannot: the tests
/// that need a mount print that reason and skip, rather than pass without checking.
pub(crate) fn mount(
    source: &Path,
    target: &Path,
    fstype: &str,
    flags: libc::c_ulong,
) -> Result<Mounted, String> {
    if !is_root() {
        return Err("not running as root, so no mount can be made".to_string());
    }
    let c = |path: &Path| CString::new(path.as_os_str().as_bytes()).unwrap();
    let (c_source, c_target) = (c(source), c(target));
    let c_fstype = CString::new(fstype).unwrap();
    // SAFETY: NUL-terminated strings that outlive the call; no mount data.
    let rc = unsafe {
        libc::mount(
            c_source.as_ptr(),
            c_target.as_ptr(),
            c_fstype.as_ptr(),
            flags,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        let err = std::io::Error::last_os_error();
        return Err(format!(
            "root, but mounting {fstype} on {target:?} failed: {err}"
        ));
    }
    Ok(Mounted(target.to_path_buf()))
}

/// Issue 11, defect 5: `-x -t e` prints an empty mount point, as `find -xdev
/// -empty`, bfs and fd do; a mount point with entries is not printed, and what is
/// below either is not walked.
#[test]
fn one_file_system_still_prints_an_empty_mount_point() {
    let env = TestEnv::new(
        &["empty_dir", "full_dir", "mnt_empty", "mnt_full"],
        &["zero", "full_dir/zero_inside"],
    );
    env.write("nonzero", b"x");
    let tmpfs = |dir: &str| mount(Path::new("tmpfs"), &env.root().join(dir), "tmpfs", 0);
    let mounts = match (tmpfs("mnt_empty"), tmpfs("mnt_full")) {
        (Ok(a), Ok(b)) => [a, b],
        (Err(reason), _) | (_, Err(reason)) => {
            eprintln!("SKIPPED one_file_system_still_prints_an_empty_mount_point: {reason}");
            return;
        }
    };
    std::fs::create_dir(env.root().join("mnt_full/inner_empty")).unwrap();
    std::fs::write(env.root().join("mnt_full/inner_zero"), b"").unwrap();
    for (pfind_args, find_args) in [
        (&["-x", "-t", "e"][..], &["-xdev", "-empty"][..]),
        (&["-t", "e"], &["-empty"]),
        (
            &["-x", "-t", "e", "-t", "d"],
            &["-xdev", "-empty", "-type", "d"],
        ),
    ] {
        let find = Command::new("find")
            .current_dir(env.root())
            .args([".", "-mindepth", "1"])
            .args(find_args)
            .output()
            .expect("GNU find");
        let want: Vec<Vec<u8>> = split_records(&find.stdout, b'\n');
        assert!(want.contains(&b"./mnt_empty".to_vec()) || !find_args.contains(&"-xdev"));
        let mut args = vec!["."];
        args.extend_from_slice(pfind_args);
        env.assert_records(&args, b'\n', &want);
    }
    drop(mounts);
}

/// The convention for a bind mount of an ancestor inside the tree, without `-L`:
/// walked like any directory (as bfs and fd do; `find` reports a loop), so its
/// files are printed a second time under the mount's path. A non-recursive bind
/// mount does not contain itself, so the walk is finite. With `-L` it is a loop:
/// reported once, not entered, status 1.
#[test]
fn a_bind_mount_of_an_ancestor_is_walked_without_follow_and_a_loop_with_it() {
    let env = TestEnv::new(&["x", "a/mnt"], &["x/f", "a/g"]);
    let mounted = match mount(env.root(), &env.root().join("a/mnt"), "none", libc::MS_BIND) {
        Ok(mounted) => mounted,
        Err(reason) => {
            eprintln!("SKIPPED a_bind_mount_of_an_ancestor_is_walked: {reason}");
            return;
        }
    };
    let prefix = env.root().as_os_str().len() + 1;
    let every_path: Vec<Vec<u8>> = oracle_files(env.root().as_os_str().as_bytes())
        .into_iter()
        .map(|path| path[prefix..].to_vec())
        .collect();
    let mut sorted = every_path.clone();
    sorted.sort();
    assert_eq!(sorted, [&b"a/g"[..], b"a/mnt/a/g", b"a/mnt/x/f", b"x/f"]);
    env.assert_records(&[] as &[&str], b'\n', &every_path);
    for threads in THREAD_COUNTS {
        let out = env.run(&["-L", "-j", threads]);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "pfind: a/mnt: filesystem loop detected\n"
        );
        assert_eq!(out.status.code(), Some(1));
        let mut printed = split_records(&out.stdout, b'\n');
        printed.sort();
        assert_eq!(printed, [&b"a/g"[..], b"x/f"]);
    }
    drop(mounted);
}

/// Issue 28, item 11: `-L` checks each directory against those above it, which on a
/// deep chain took time in the square of the depth (49.5 s for 100,000 levels); now
/// every 64th and 4,096th directory holds the set of those above (`walker/loops.rs`).
/// On a chain deep enough for both, links at the bottom back into the chain (just
/// above, 1,300 levels up, and to the top by an absolute path) are loops, and one
/// to a directory beside the chain is not, as `find -L` says on shallower chains.
#[test]
fn loops_at_the_bottom_of_a_deep_chain_are_found() {
    let tmp = tempfile::tempdir().unwrap();
    let _cleanup = RemoveOnDrop(tmp.path().join("c"));
    std::fs::create_dir_all(tmp.path().join("beside")).unwrap();
    std::fs::write(tmp.path().join("beside/g"), b"").unwrap();
    let symlink_at = |dir: libc::c_int, target: &[u8], name: &[u8]| {
        let (target, name) = (c_name(target), c_name(name));
        // SAFETY: a valid descriptor and NUL-terminated strings.
        let rc = unsafe { libc::symlinkat(target.as_ptr(), dir, name.as_ptr()) };
        assert_eq!(rc, 0, "symlinkat");
    };
    let top = open_path(tmp.path());
    let mut dir = mkdir_open(top, b"c");
    close(top);
    for level in 0..4200 {
        if level % 500 == 0 {
            touch_at(dir, b"f");
        }
        let next = mkdir_open(dir, b"d");
        close(dir);
        dir = next;
    }
    touch_at(dir, b"f");
    symlink_at(dir, b"../../..", b"up");
    symlink_at(dir, "../".repeat(1300).as_bytes(), b"far");
    symlink_at(dir, tmp.path().join("c").as_os_str().as_bytes(), b"top");
    symlink_at(
        dir,
        tmp.path().join("beside").as_os_str().as_bytes(),
        b"beside",
    );
    close(dir);
    // What `find -L` would say, were its paths not too long for it past 2,048
    // levels: the files, and each link back into the chain as a loop.
    let at = |level: usize| format!("c{}", "/d".repeat(level));
    let bottom = at(4200);
    let mut printed: Vec<String> = (0..4200)
        .step_by(500)
        .map(|level| format!("{}/f", at(level)))
        .chain([format!("{bottom}/f"), format!("{bottom}/beside/g")])
        .collect();
    printed.sort();
    let mut loops: Vec<String> = ["up", "far", "top"]
        .map(|link| format!("{bottom}/{link}"))
        .to_vec();
    loops.sort();
    let want = LoopRun {
        printed,
        loops,
        status: Some(1),
    };
    for threads in THREAD_COUNTS {
        let out = pfind_command(tmp.path(), &["-L", "c", "-j", threads])
            .output()
            .unwrap();
        assert_eq!(loop_run(&out), want, "-j {threads}");
    }
}
