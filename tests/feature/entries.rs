//! The filters on what an entry is (src/cli/entries.rs): `-t` kinds and families
//! (sockets, pipes and devices against `find -type`), `-S` and its aliases
//! `--min-size`/`--max-size`, `--changed-within`/`--changed-before` against
//! `find -newermt`, `--newer` against `find -newer`, `--owner` against
//! `find -user`/`-group`, the depth bounds (`-d`, `--min-depth`, `--exact-depth`) and
//! `--prune`, with the messages for bad values; through the real binary at 1, 2 and
//! 16 threads.

use crate::names::{assert_usage_error, os, s, tree};
use crate::testenv;
use crate::testenv::{assert_same_records, pfind_command, split_records, TestEnv, THREAD_COUNTS};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

/// Runs pfind at every thread count; returns (stdout lines, stderr, exit code) of each.
pub(crate) fn run_all(env: &TestEnv, args: &[&str]) -> Vec<(Vec<Vec<u8>>, String, Option<i32>)> {
    THREAD_COUNTS
        .iter()
        .map(|threads| {
            let out = env.run(&[args, &["-j", threads]].concat());
            (
                split_records(&out.stdout, b'\n'),
                String::from_utf8_lossy(&out.stderr).into_owned(),
                out.status.code(),
            )
        })
        .collect()
}

fn chmod(env: &TestEnv, relative: &str, mode: u32) {
    let path = env.root().join(relative);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Files of every family, a directory named like a file, links and an empty dir.
fn typed_tree() -> TestEnv {
    let env = TestEnv::new(
        &["photos", "models/old", "empty_dir", "pics.jpg"],
        &[
            "photos/a.jpg",
            "photos/b.JPEG",
            "photos/c.webp",
            "photos/notes.txt",
            "models/net.safetensors",
            "models/old/net.ckpt",
            "models/weights.bin",
            "train.py",
            "config.yaml",
            "data.parquet",
            "song.flac",
            "clip.mkv",
            "run.log",
            "README.md",
        ],
    );
    env.symlink("photos/a.jpg", "link.jpg");
    env.symlink("photos", "link_dir");
    env.symlink("missing", "dangling");
    env
}

#[test]
fn type_families_are_extension_lists() {
    let env = typed_tree();
    // A family matches regular files only, like -e: never the directory `pics.jpg`
    // nor the link `link.jpg`.
    env.assert_output(
        &["-t", "images"],
        &["photos/a.jpg", "photos/b.JPEG", "photos/c.webp"],
    );
    env.assert_output(
        &["-t", "checkpoints"],
        &["models/net.safetensors", "models/old/net.ckpt"],
    );
    env.assert_output(
        &["-t", "models"],
        &[
            "models/net.safetensors",
            "models/old/net.ckpt",
            "models/weights.bin",
        ],
    );
    env.assert_output(&["-t", "python"], &["train.py"]);
    env.assert_output(&["-t", "configs"], &["config.yaml"]);
    env.assert_output(&["-t", "data"], &["data.parquet"]);
    env.assert_output(&["-t", "audio"], &["song.flac"]);
    env.assert_output(&["-t", "video"], &["clip.mkv"]);
    env.assert_output(&["-t", "logs"], &["run.log"]);
    env.assert_output(&["-t", "text"], &["photos/notes.txt", "README.md"]);
    // Families and -e add up.
    env.assert_output(
        &["-t", "python", "-t", "logs", "-e", "md"],
        &["train.py", "run.log", "README.md"],
    );
    // With a kind, the extensions apply to that kind: directories named *.jpg.
    env.assert_output(&["-t", "d", "-t", "images"], &["pics.jpg"]);
}

#[test]
fn type_directory_and_symlink_print_like_files() {
    let env = typed_tree();
    let dirs = &["photos", "models", "models/old", "empty_dir", "pics.jpg"];
    env.assert_output(&["-t", "d"], dirs);
    env.assert_output(&["--type", "directory"], dirs);
    // Same path rules as files: the root as typed, never the root itself.
    env.assert_output(&["-t", "d", "models/"], &["models/old"]);
    env.assert_output(&["-t", "dir", "models"], &["models/old"]);
    env.assert_output(
        &["-t", "d", "."],
        &[
            "./photos",
            "./models",
            "./models/old",
            "./empty_dir",
            "./pics.jpg",
        ],
    );
    let links = &["link.jpg", "link_dir", "dangling"];
    env.assert_output(&["-t", "l"], links);
    env.assert_output(&["-t", "symlink"], links);
    env.assert_output(&["-t", "l", "-n", "link*"], &["link.jpg", "link_dir"]);
    // Kinds add up.
    env.assert_output(
        &["-t", "f", "-t", "l", "-e", "jpg"],
        &["photos/a.jpg", "link.jpg"],
    );
    // A size filter keeps regular files only, as in fd.
    env.assert_output(&["-t", "d", "-t", "l", "-S", "-1m"], &[]);
    // A symbolic link given as a root is a candidate for -t l, not followed.
    env.assert_output(&["-t", "l", "link_dir"], &["link_dir"]);
    // Without -t l nothing prints it, and a warning says how to search it (issue
    // 28; walk.rs has every case).
    let out = env.run(&["link_dir"]);
    assert_eq!(out.stdout, b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains("give it as link_dir/ or use -L"));
}

/// Asserts that `pfind ROOT PFIND_ARGS -0` prints what `find ROOT -mindepth 1
/// FIND_ARGS -print0` does (`find -L` when PFIND_ARGS has `-L`), run in `cwd`, at
/// every thread count.
fn assert_like_find(cwd: &std::path::Path, root: &str, pfind_args: &[&str], find_args: &[&str]) {
    let follow: &[&str] = if pfind_args.contains(&"-L") {
        &["-L"]
    } else {
        &[]
    };
    let find = std::process::Command::new("find")
        .current_dir(cwd)
        .args(follow)
        .args([root, "-mindepth", "1"])
        .args(find_args)
        .arg("-print0")
        .output()
        .expect("GNU find is needed for this test");
    let expected = split_records(&find.stdout, 0);
    for threads in THREAD_COUNTS {
        let args = [&[root, "-0", "-j", threads], pfind_args].concat();
        let out = pfind_command(cwd, &args).output().unwrap();
        let context = format!("pfind {args:?} against find {follow:?} {find_args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{context}");
        assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
    }
}

#[test]
fn type_sockets_pipes_and_devices_match_find_type() {
    let env = TestEnv::new(&["d/sub"], &["f", "d/g"]);
    env.mkfifo("pipe");
    env.mkfifo("d/sub/pipe2");
    let _sockets = ["sock", "d/sock2"].map(|name| {
        std::os::unix::net::UnixListener::bind(env.root().join(name)).expect("bind a socket")
    });
    env.symlink("pipe", "link_to_pipe");
    env.symlink("d/sock2", "link_to_sock");
    // Devices can only be made by root; elsewhere /dev has them (next test).
    let devices = make_devices(&env);
    for (pfind_args, find_args) in [
        (&["-t", "p"][..], &["-type", "p"][..]),
        (&["-t", "pipe"], &["-type", "p"]),
        (&["-t", "s"], &["-type", "s"]),
        (&["-t", "socket", "-t", "fifo"], &["-type", "s,p"]),
        (&["-t", "c"], &["-type", "c"]),
        (&["-t", "b"], &["-type", "b"]),
        (
            &["-t", "char-device", "-t", "block-device"],
            &["-type", "c,b"],
        ),
        (&["-t", "s", "-t", "f", "-t", "l"], &["-type", "s,f,l"]),
        (
            &["-t", "p", "-n", "pipe*"],
            &["-type", "p", "-name", "pipe*"],
        ),
        (&["-t", "p", "-d", "1"], &["-maxdepth", "1", "-type", "p"]),
        // Links to them are followed with -L and printed under the link's path.
        (&["-L", "-t", "p", "-t", "s"], &["-type", "p,s"]),
        // A FIFO, socket or device has no size and is never empty, as a link.
        (&["-t", "p", "-S", "-1k"], &["-false"]),
        (&["-t", "p", "-t", "e"], &["-false"]),
        // `any` is every kind at once (issue 30).
        (&["-t", "any"], &[]),
        (&["-t", "any", "-n", "*sock*"], &["-name", "*sock*"]),
        (&["-t", "any", "-t", "e"], &["-empty", "-type", "f,d"]),
    ] {
        assert_like_find(env.root(), ".", pfind_args, find_args);
    }
    // Each kind has its letter in --format and JSON, as find -printf %y.
    let find = std::process::Command::new("find")
        .current_dir(env.root())
        .args([".", "-mindepth", "1", "-printf", "%y %p\\n"])
        .output()
        .unwrap();
    let expected = split_records(&find.stdout, b'\n');
    let all_kinds = [
        "-t", "f", "-t", "d", "-t", "l", "-t", "s", "-t", "p", "-t", "c", "-t", "b",
    ];
    for threads in THREAD_COUNTS {
        let args = [
            &["."][..],
            &all_kinds,
            &["--format", "{type} {}", "-j", threads],
        ]
        .concat();
        let out = pfind_command(env.root(), &args).output().unwrap();
        assert_same_records("{type}", &split_records(&out.stdout, b'\n'), &expected);
    }
    // A root that is a FIFO is a candidate like any entry, and still never opened.
    env.assert_output(&["pipe", "-t", "p"], &["pipe"]);
    env.assert_output(&["pipe", "-t", "s"], &[]);
    env.assert_output(&["-t", "c", "-c"], &[if devices { "1" } else { "0" }]);
}

/// Issue 30: a name search that prints nothing while entries of kinds `-t` left
/// out matched the name says so, once, on stderr, with the `-t` that finds them;
/// the status stays 0. Nothing is said when something matched, when no other kind
/// matched either, or where a predicate that needs a `stat` could be the reason.
#[test]
fn a_name_search_that_misses_other_kinds_says_so_once() {
    let env = TestEnv::new(
        &["bin", "lib/python3", "deep/a/b"],
        &["real/python3.11", "deep/a/b/python3"],
    );
    env.symlink("../real/python3.11", "bin/python3");
    env.mkfifo("python3");
    let warning = "pfind: warning: nothing matched, but a directory, a symbolic link and a \
                   named pipe did (-n python3): add -t d -t l -t p, or -t any\n";
    for (threads, (stdout, stderr, status)) in THREAD_COUNTS
        .iter()
        .zip(run_all(&env, &["-d", "2", "-n", "python3"]))
    {
        assert_eq!(
            (stdout, stderr.as_str(), status),
            (vec![], warning, Some(0)),
            "-j {threads}"
        );
    }
    let link = "pfind: warning: nothing matched, but a symbolic link did (-n 'py*3' -p \
                'bin/*'): add -t l, or -t any\n";
    for (_, stderr, _) in run_all(&env, &["-n", "py*3", "-p", "bin/*"]) {
        assert_eq!(stderr, link);
    }
    // A regular expression on the name is a name search too (issue 30, item 4).
    let regex = "pfind: warning: nothing matched, but a directory, a symbolic link and a \
                 named pipe did (--regex '^python3$'): add -t d -t l -t p, or -t any\n";
    for (_, stderr, _) in run_all(&env, &["-d", "2", "--regex", "^python3$"]) {
        assert_eq!(stderr, regex);
    }
    env.assert_output(
        &["-t", "any", "-n", "python3"],
        &["bin/python3", "lib/python3", "python3", "deep/a/b/python3"],
    );
    // Quiet: a match (the deep file), a name nothing has, the kinds asked for, a
    // depth that could be why, and -q.
    for args in [
        &["-n", "python3"][..],
        &["-n", "nothing"],
        &["-d", "2", "-n", "python3", "-t", "d", "-t", "l", "-t", "p"],
        &["--min-depth", "3", "-d", "3", "-n", "python3", "-t", "l"],
    ] {
        for (_, stderr, status) in run_all(&env, args) {
            assert_eq!((stderr.as_str(), status), ("", Some(0)), "{args:?}");
        }
    }
    // An excluded name, or a predicate that needs a stat, says nothing of the other
    // kinds (an entry of another kind might fail it too), but the name inside
    // names is counted with them all (issue 41).
    let inside = "pfind: warning: nothing matched, but -n '*python3*' finds 1 file (-n \
                  matches whole names; fd's pattern matches inside them)\n";
    for args in [
        &["-d", "2", "-n", "python3", "-E", "python3"][..],
        &["-d", "2", "-n", "python3", "-S", "-1k"],
        &["-d", "2", "-n", "python3", "--changed-within", "1d"],
    ] {
        for (_, stderr, status) in run_all(&env, args) {
            assert_eq!((stderr.as_str(), status), (inside, Some(0)), "{args:?}");
        }
    }
    let out = env.run(&["-d", "2", "-n", "python3", "-q"]);
    assert_eq!((out.stderr.len(), out.status.code()), (0, Some(1)));
    // -c prints its 0 and the warning too.
    let out = env.run(&["-d", "2", "-n", "python3", "-c"]);
    assert_eq!(out.stdout, b"0\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), warning);
}

/// Makes a character device and a block device in the tree when running as root
/// (`mknod` needs `CAP_MKNOD`); true if it did.
fn make_devices(env: &TestEnv) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: devices in the test tree (mknod needs root); /dev is checked");
        return false;
    }
    for (name, mode, (major, minor)) in [
        ("d/null_copy", libc::S_IFCHR, (1, 3)),
        ("d/sub/loop_copy", libc::S_IFBLK, (7, 200)),
    ] {
        let mut path = env.root().join(name).into_os_string().into_vec();
        path.push(0);
        let dev = libc::makedev(major, minor);
        // SAFETY: a NUL-terminated path; mknod has no other memory requirements.
        let rc = unsafe { libc::mknod(path.as_ptr().cast(), mode | 0o600, dev) };
        assert_eq!(rc, 0, "mknod {name}: {}", std::io::Error::last_os_error());
    }
    true
}

#[test]
fn type_devices_match_find_on_dev() {
    let dev = std::path::Path::new("/dev");
    // On /dev's own filesystem (-x, -xdev): /dev/shm is a tmpfs where other tests
    // build and remove trees while this one runs, and both walks saw them change.
    for (pfind_args, find_args) in [
        (&["-x", "-t", "c"][..], &["-xdev", "-type", "c"][..]),
        (&["-x", "-t", "b"], &["-xdev", "-type", "b"]),
        (
            &["-x", "-t", "c", "-t", "b", "-t", "p", "-t", "s"],
            &["-xdev", "-type", "c,b,p,s"],
        ),
    ] {
        assert_like_find(dev, "/dev", pfind_args, find_args);
    }
    if std::path::Path::new("/run").is_dir() {
        assert_like_find(dev, "/run", &["-t", "s", "-t", "p"], &["-type", "s,p"]);
    }
}

#[test]
fn type_empty_finds_empty_files_and_directories() {
    let env = TestEnv::new(
        &["empty", "a/empty_inner", "only_empty_sub/e", "full"],
        &["zero", "a/zero2", "full/f"],
    );
    env.write("a/data", b"1234");
    env.write("hidden_size/.x", b"1");
    env.symlink("zero", "link_to_empty");
    // -t e alone: empty regular files and empty directories; a directory that holds
    // only an empty directory is not empty; links are never empty.
    let all = &[
        "zero",
        "a/zero2",
        "full/f",
        "empty",
        "a/empty_inner",
        "only_empty_sub/e",
    ];
    env.assert_output(&["-t", "e"], all);
    env.assert_output(&["--type", "empty", "-t", "l"], &[]);
    env.assert_output(&["-t", "e", "-t", "f"], &["zero", "a/zero2", "full/f"]);
    env.assert_output(
        &["-t", "d", "-t", "e"],
        &["empty", "a/empty_inner", "only_empty_sub/e"],
    );
    env.assert_output(
        &["-t", "empty", "-t", "d", "-n", "e*"],
        &["empty", "a/empty_inner", "only_empty_sub/e"],
    );
    // At the maximum depth a directory is still checked for emptiness, and nothing
    // below it is printed.
    env.assert_output(&["-t", "e", "-d", "1"], &["zero", "empty"]);
    env.assert_output(
        &["-t", "e", "-t", "d", "-d", "2"],
        &["empty", "a/empty_inner", "only_empty_sub/e"],
    );
    env.assert_output(
        &["-t", "e", "--min-depth", "2", "-t", "d"],
        &["a/empty_inner", "only_empty_sub/e"],
    );
    // -l gives an empty directory its own size, from the directory itself.
    for (lines, stderr, code) in run_all(&env, &["-t", "e", "-t", "d", "-l", "-n", "empty"]) {
        assert_eq!((stderr.as_str(), code), ("", Some(0)));
        assert_eq!(lines.len(), 1);
        let line = String::from_utf8(lines[0].clone()).unwrap();
        assert!(line.ends_with(" empty"), "{line}");
    }
}

#[test]
fn type_executable_checks_mode_bits() {
    let env = TestEnv::new(
        &["bin", "plain"],
        &["bin/tool", "bin/script.sh", "bin/data", "other_x"],
    );
    chmod(&env, "bin/tool", 0o755);
    chmod(&env, "bin/script.sh", 0o700);
    chmod(&env, "other_x", 0o601);
    chmod(&env, "plain", 0o644);
    env.assert_output(&["-t", "x"], &["bin/tool", "bin/script.sh", "other_x"]);
    env.assert_output(&["-t", "executable", "-e", "sh"], &["bin/script.sh"]);
    // x restricts every kind selected: directories with an execute bit (plain has none).
    env.assert_output(
        &["-t", "x", "-t", "d"],
        &["bin", "bin/tool", "bin/script.sh", "other_x"],
    );
    // x and e together: empty executable files (these are all empty).
    env.assert_output(
        &["-t", "x", "-t", "e"],
        &["bin/tool", "bin/script.sh", "other_x"],
    );
}

#[test]
fn min_and_max_size_are_aliases_of_size() {
    let env = TestEnv::new(&["d"], &["empty"]);
    env.write("d/100b", &[b'x'; 100]);
    env.write("d/1000b", &[b'x'; 1000]);
    env.write("d/5000b", &[b'x'; 5000]);
    for (alias, size) in [
        (&["--min-size", "1k"][..], &["-S", "+1k"][..]),
        (&["--max-size", "1k"], &["-S", "-1k"]),
        (
            &["--min-size", "100", "--max-size", "1ki"],
            &["-S", "+100", "-S", "-1ki"],
        ),
    ] {
        let by_alias = env.run(alias);
        let by_size = env.run(size);
        assert!(by_alias.status.success(), "{alias:?}");
        let mut a = split_records(&by_alias.stdout, b'\n');
        let mut b = split_records(&by_size.stdout, b'\n');
        a.sort();
        b.sort();
        assert_eq!(a, b, "{alias:?} vs {size:?}");
        assert!(!a.is_empty());
    }
    env.assert_output(&["--min-size", "1k"], &["d/1000b", "d/5000b"]);
    env.assert_output(&["--max-size", "0"], &["empty"]);
    let out = env.run(&["--min-size", "+1k"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without a sign"));
}

#[test]
fn depth_bounds_count_the_roots_children_as_depth_1() {
    let env = TestEnv::new(&["a/b/c"], &["f1", "a/f2", "a/b/f3", "a/b/c/f4"]);
    env.assert_output(&["-d", "1"], &["f1"]);
    env.assert_output(&["--max-depth", "2"], &["f1", "a/f2"]);
    env.assert_output(&["-d", "0"], &[]);
    env.assert_output(&["-d", "1", "-t", "d"], &["a"]);
    env.assert_output(&["--min-depth", "3"], &["a/b/f3", "a/b/c/f4"]);
    env.assert_output(&["--min-depth", "2", "-d", "3"], &["a/f2", "a/b/f3"]);
    env.assert_output(
        &["--min-depth", "2", "--max-depth", "2", "-t", "d"],
        &["a/b"],
    );
    env.assert_output(&["a/", "-d", "1"], &["a/f2"]);
    // -c honours depth too (its fast path must not count deeper files).
    for (lines, _, code) in run_all(&env, &["-c", "-d", "2"]) {
        assert_eq!((lines, code), (vec![b"2".to_vec()], Some(0)));
    }
    for (lines, _, code) in run_all(&env, &["-c", "--min-depth", "2"]) {
        assert_eq!((lines, code), (vec![b"3".to_vec()], Some(0)));
    }
    // A file root is depth 0: printed unless --min-depth asks for deeper.
    env.assert_output(&["f1", "-d", "0"], &["f1"]);
    env.assert_output(&["f1", "--min-depth", "1"], &[]);
}

#[test]
fn max_depth_does_not_open_deeper_directories() {
    // A loop at depth 2 is only seen if depth-1 directories are opened: with -d 1 they
    // must not be, so nothing is reported.
    let env = TestEnv::new(&["d"], &["d/f", "top"]);
    env.symlink("..", "d/up");
    env.assert_output(&["-L", "-d", "1"], &["top"]);
    for (_, stderr, code) in run_all(&env, &["-L", "-d", "2"]) {
        assert_eq!(stderr, "pfind: d/up: filesystem loop detected\n");
        assert_eq!(code, Some(1));
    }
}

#[test]
fn exact_depth_is_min_and_max_depth_at_once() {
    let env = TestEnv::new(&["a/b/c"], &["f0", "a/f1", "a/b/f2", "a/b/c/f3"]);
    env.assert_output(&["--exact-depth", "2"], &["a/f1"]);
    env.assert_output(&["--exact-depth", "3", "-t", "d"], &["a/b/c"]);
    env.assert_output(&["--exact-depth", "1", "-t", "f", "-t", "d"], &["f0", "a"]);
    assert_like_find(
        env.root(),
        ".",
        &["--exact-depth", "3"],
        &["-mindepth", "3", "-maxdepth", "3", "-type", "f"],
    );
    for other in [&["-d", "2"][..], &["--min-depth", "1"]] {
        let out = env.run(&[&["--exact-depth", "2"][..], other].concat());
        assert_eq!(out.status.code(), Some(2), "{other:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}

#[test]
fn prune_stops_below_directories_that_matched() {
    let env = TestEnv::new(
        &["node_modules/x/node_modules/y", "a/node_modules/z", "b/c"],
        &[
            "node_modules/x/node_modules/y/f",
            "a/node_modules/z/g",
            "b/c/node_modules_not_a_dir",
        ],
    );
    let outer = &["node_modules", "a/node_modules"];
    env.assert_output(&["-t", "d", "-n", "node_modules", "--prune"], outer);
    env.assert_output(
        &["-t", "d", "-n", "node_modules"],
        &[
            "node_modules",
            "a/node_modules",
            "node_modules/x/node_modules",
        ],
    );
    // The same through the paths that stat (-l) and that format (--format).
    for (lines, stderr, code) in run_all(&env, &["-t", "d", "-n", "node_modules", "--prune", "-l"])
    {
        assert_eq!((stderr.as_str(), code, lines.len()), ("", Some(0), 2));
    }
    env.assert_output(
        &[
            "-t",
            "d",
            "-n",
            "node_modules",
            "--prune",
            "--format",
            "{type} {}",
        ],
        &["d node_modules", "d a/node_modules"],
    );
    // As find's -prune: `find . -type d -name node_modules -prune`.
    assert_like_find(
        env.root(),
        ".",
        &["-t", "d", "-n", "node_modules", "--prune"],
        &["-type", "d", "-name", "node_modules", "-prune"],
    );
    // Files still match everywhere not pruned; every directory matching prunes all.
    env.assert_output(
        &["-t", "d", "-t", "f", "--prune"],
        &["node_modules", "a", "b"],
    );
    // Without -t d no directory matches, so nothing is pruned: pfind says so, and
    // after the walk that the directories it was after did match the name.
    for (lines, stderr, code) in run_all(&env, &["-n", "node_modules", "--prune"]) {
        assert_eq!(lines.len(), 0);
        assert_eq!(code, Some(0));
        assert_eq!(
            stderr,
            "pfind: warning: --prune does not descend into a directory that matched, and \
             without -t d no directory can match: it changes nothing\n\
             pfind: warning: nothing matched, but a directory did (-n node_modules): add -t \
             d, or -t any\n"
        );
    }
}

#[test]
fn size_filters() {
    let env = TestEnv::new(&["d"], &["empty"]);
    env.write("d/100b", &[b'x'; 100]);
    env.write("d/1000b", &[b'x'; 1000]);
    env.write("d/1024b", &[b'x'; 1024]);
    env.write("d/5000b", &[b'x'; 5000]);
    env.symlink("d/5000b", "link"); // a link is never sized, never printed
    env.assert_output(&["-S", "+1k"], &["d/1000b", "d/1024b", "d/5000b"]);
    env.assert_output(&["-S", "+1ki"], &["d/1024b", "d/5000b"]);
    env.assert_output(&["-S", "-1k"], &["empty", "d/100b", "d/1000b"]);
    env.assert_output(&["-S", "-0"], &["empty"]);
    env.assert_output(&["-S", "1024b"], &["d/1024b"]);
    env.assert_output(
        &["-S", "+100b", "-S", "-1ki"],
        &["d/100b", "d/1000b", "d/1024b"],
    );
    env.assert_output(&["--size", "+1k", "-e", "x"], &[]);
}

#[test]
fn bad_values_exit_2_naming_the_value_and_the_option() {
    let env = TestEnv::new(&[], &[]);
    for (args, mentions) in [
        (
            &[&b"-S"[..], b"1.5k"][..],
            &["'1.5k'", "decimal numbers are not accepted", "1500"][..],
        ),
        (&[b"--max-size", b"2.5mi"], &["'2.5mi'", "2621440"]),
        (&[b"-S", b"1\xff"], &["--size", "not valid UTF-8"]),
        (&[b"-t", b"\xff"], &["--type", "not valid UTF-8"]),
        (&[b"-j", b"\xff"], &["--threads", "not valid UTF-8"]),
        (&[b"-d", b"x"], &["--max-depth", "'x'"]),
        (&[b"-e", b"."], &["--extension", "cannot be empty"]),
    ] {
        let args: Vec<&OsStr> = args.iter().map(|a| os(a)).collect();
        assert_usage_error(&env, &args, mentions);
    }
}

/// Sets the modification time of `relative` (a link's own with `-h`) with `touch -d
/// WHEN` in the time zone `tz`, as a person would.
fn touch(env: &TestEnv, tz: &str, when: &str, relative: &str) {
    let status = Command::new("touch")
        .env("TZ", tz)
        .args(["-h", "-d", when])
        .arg(env.root().join(relative))
        .status()
        .expect("touch");
    assert!(status.success(), "touch -d {when} {relative}");
}

/// Asserts that `pfind . -0 PFIND_ARGS` prints what `find . FIND_ARGS` does, both in
/// the time zone `tz`, at every thread count; returns how many paths that was.
fn assert_like_find_in(env: &TestEnv, tz: &str, pfind_args: &[&str], find_args: &[&str]) -> usize {
    let out = Command::new("find")
        .current_dir(env.root())
        .env("TZ", tz)
        .arg(".")
        .args(find_args)
        .arg("-print0")
        .output()
        .expect("run find");
    assert!(out.status.success(), "find {find_args:?}: {out:?}");
    let expected = split_records(&out.stdout, 0);
    for threads in THREAD_COUNTS {
        let out = testenv::pfind_command(env.root(), &[".", "-0", "-j", threads])
            .args(pfind_args)
            .env("TZ", tz)
            .output()
            .unwrap();
        let shown = format!("TZ={tz} pfind {pfind_args:?} -j {threads} against find {find_args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{shown}");
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert_same_records(&shown, &split_records(&out.stdout, 0), &expected);
    }
    expected.len()
}

#[test]
fn changed_within_and_before_match_find_newermt() {
    for tz in ["UTC", "Europe/Berlin", "America/New_York"] {
        let env = TestEnv::new(&["d"], &[]);
        // Files on both sides of each bound, exactly on them, and a nanosecond after.
        let times = [
            ("2026-11-01 08:29:59", "a_before"),
            ("2026-11-01 08:30:00", "a_at"),
            ("2026-11-01 08:30:00.000000001", "a_just_after"),
            ("2026-11-01 08:30:01", "a_after"),
            ("2026-11-01 00:00:00", "midnight"),
            ("2026-10-31 23:59:59.999999999", "d/before_midnight"),
            ("2026-07-01 12:00:00", "d/summer"),
            ("2026-03-29 03:29:59", "d/spring"), // Berlin's clocks jumped 02:00 to 03:00
            ("2026-03-29 03:30:00", "d/spring_at"),
            ("2026-11-01 01:30:00", "d/fall"), // an overlap in New York
            ("2027-01-01 00:00:00", "d/next_year"),
        ];
        for (when, name) in times {
            env.write(name, b"");
            touch(&env, tz, when, name);
        }
        let f = ["-type", "f"];
        let mut total = 0;
        for (pfind, find) in [
            // Within: strictly after, as find -newermt.
            (
                &["--changed-within", "2026-11-01 08:30"][..],
                &["-newermt", "2026-11-01 08:30"][..],
            ),
            (
                &["--changed-within", "2026-11-01T08:30:00"],
                &["-newermt", "2026-11-01 08:30:00"],
            ),
            (
                &["--changed-within", "2026-11-01"],
                &["-newermt", "2026-11-01"],
            ),
            (
                &["--changed-within", "2026-07-01 12:00"],
                &["-newermt", "2026-07-01 12:00"],
            ),
            (
                &["--changed-within", "2026-11-01T07:30:00Z"],
                &["-newermt", "2026-11-01 07:30:00Z"],
            ),
            // Before: strictly before, which find says as "not newer than a nanosecond
            // earlier".
            (
                &["--changed-before", "2026-11-01 08:30"],
                &["-not", "-newermt", "2026-11-01 08:29:59.999999999"],
            ),
            (
                &["--changed-before", "2026-11-01"],
                &["-not", "-newermt", "2026-10-31 23:59:59.999999999"],
            ),
            // A window.
            (
                &[
                    "--changed-within",
                    "2026-07-01",
                    "--changed-before",
                    "2026-11-01 08:30:01",
                ],
                &[
                    "-newermt",
                    "2026-07-01",
                    "-not",
                    "-newermt",
                    "2026-11-01 08:30:00.999999999",
                ],
            ),
            // Seconds since the epoch: 2026-11-01 07:30:00 UTC.
            (
                &["--changed-within", "@1793518200"],
                &["-newermt", "@1793518200"],
            ),
            (
                &["--changed-before", "@1793518200"],
                &["-not", "-newermt", "@1793518199.999999999"],
            ),
        ] {
            total += assert_like_find_in(&env, tz, pfind, &[&f[..], find].concat());
        }
        if tz == "Europe/Berlin" {
            // 02:30 did not exist that day: find refuses it, pfind (the C library's
            // mktime, as jiff's "compatible") moves it on by the gap, to 03:30.
            total += assert_like_find_in(
                &env,
                tz,
                &["--changed-within", "2026-03-29 02:30"],
                &["-type", "f", "-newermt", "2026-03-29 03:30"],
            );
        }
        // Directories too.
        total += assert_like_find_in(
            &env,
            tz,
            &["-t", "d", "--changed-before", "2026-11-01"],
            &[
                "-mindepth",
                "1",
                "-type",
                "d",
                "-not",
                "-newermt",
                "2026-10-31 23:59:59.999999999",
            ],
        );
        assert!(
            total > 40,
            "TZ={tz}: too few matches to mean anything: {total}"
        );
    }
}

#[test]
fn durations_count_back_from_now_like_find() {
    for tz in ["UTC", "Europe/Berlin"] {
        let env = TestEnv::new(&[], &[]);
        // Far enough from every bound that the moments between find's and pfind's
        // starts cannot matter.
        let ages = [
            "10 minutes ago",
            "50 minutes ago",
            "90 minutes ago",
            "3 hours ago",
            "20 hours ago",
            "30 hours ago",
            "40 hours ago",
            "60 hours ago",
            "4 days ago",
            "6 days ago",
            "8 days ago",
            "40 days ago",
            "400 days ago",
        ];
        for (i, age) in ages.iter().enumerate() {
            let name = format!("f{i}");
            env.write(&name, b"");
            touch(&env, tz, age, &name);
        }
        let f = ["-type", "f"];
        for (pfind, find) in [
            ("30min", "30 minutes ago"),
            ("1h", "1 hour ago"),
            ("2h", "2 hours ago"),
            ("1d", "1 day ago"),
            ("1d12h", "1 day ago 12 hours ago"),
            ("2 days", "2 days ago"),
            ("3d", "3 days ago"),
            ("1w", "1 week ago"),
            ("1mo", "1 month ago"),
            ("1y", "1 year ago"),
        ] {
            let within = assert_like_find_in(
                &env,
                tz,
                &["--changed-within", pfind],
                &[&f[..], &["-newermt", find]].concat(),
            );
            let before = assert_like_find_in(
                &env,
                tz,
                &["--changed-before", pfind],
                &[&f[..], &["-not", "-newermt", find]].concat(),
            );
            assert_eq!(within + before, ages.len(), "{pfind}");
            assert!(
                within > 0 && before > 0,
                "{pfind}: {within} and {before}: a weak test"
            );
        }
    }
}

#[test]
fn newer_matches_find_newer() {
    let env = TestEnv::new(&["tree/sub", "refs"], &[]);
    let tz = "UTC";
    for (when, name) in [
        ("2026-01-01 00:00:00", "tree/old"),
        ("2026-06-01 00:00:00", "tree/same"),
        ("2026-06-01 00:00:00.000000001", "tree/sub/just_after"),
        ("2026-06-02 00:00:00", "tree/sub/new"),
        ("2026-12-01 00:00:00", "tree/newest"),
        ("2026-06-01 00:00:00", "refs/stamp"),
        ("2026-12-01 00:00:00", "refs/later"),
    ] {
        env.write(name, b"");
        touch(&env, tz, when, name);
    }
    // A link whose own time differs from its target's: find -newer reads the link's
    // own time, find -L -newer its target's.
    env.symlink("later", "refs/link");
    touch(&env, tz, "2026-03-01 00:00:00", "refs/link");
    let tree = env.root().join("tree");
    for (reference, follow) in [
        ("../refs/stamp", false),
        ("../refs/later", false),
        ("../refs/link", false),
        ("../refs/link", true),
    ] {
        let l: &[&str] = if follow { &["-L"] } else { &[] };
        let out = Command::new("find")
            .current_dir(&tree)
            .args(l)
            .args([".", "-type", "f", "-newer", reference, "-print0"])
            .output()
            .unwrap();
        let expected = split_records(&out.stdout, 0);
        for threads in THREAD_COUNTS {
            let args = [l, &[".", "-0", "-j", threads, "--newer", reference]].concat();
            let out = testenv::pfind_command(&tree, &args).output().unwrap();
            let shown = format!("pfind {args:?}");
            assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{shown}");
            assert_same_records(&shown, &split_records(&out.stdout, 0), &expected);
        }
        // Nothing is newer than the newest file, which `later` (and the link's
        // target) is as old as.
        let nothing_newer = reference.ends_with("later") || follow;
        assert_eq!(
            expected.is_empty(),
            nothing_newer,
            "{reference} -L {follow}"
        );
    }
}

#[test]
fn bad_times_exit_2_naming_the_value() {
    let env = TestEnv::new(&[], &[]);
    for (args, mentions) in [
        (
            &["--changed-within", "3x"][..],
            &["'3x'", "--changed-within", "unknown unit"][..],
        ),
        (
            &["--changed-before", "2026-13-01"],
            &["--changed-before", "no month 13"],
        ),
        (
            &["--changed-within", "1.5h"],
            &["decimal numbers are not accepted"],
        ),
        (
            &["--newer", "no/such/file"],
            &["--newer", "'no/such/file'", "No such file"],
        ),
    ] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        assert_usage_error(&env, &args, mentions);
    }
}

#[test]
fn owner_matches_find_user_and_group() {
    // SAFETY: geteuid only reads the process's credentials.
    let euid = unsafe { libc::geteuid() };
    if euid != 0 {
        eprintln!("SKIPPED owner_matches_find_user_and_group: giving files to other users needs root (euid {euid})");
        return;
    }
    let env = TestEnv::new(&["d", "e"], &[]);
    let owned = [
        ("f_root", 0, 0),
        ("f_1234", 1234, 5678),
        ("f_mixed", 1234, 0),
        ("f_nobody", 65534, 65534),
        ("d/f", 0, 5678),
        ("d/g", 5678, 1234),
        ("e/h", 1234, 1234),
    ];
    for (name, uid, gid) in owned {
        env.write(name, b"");
        std::os::unix::fs::chown(env.root().join(name), Some(uid), Some(gid)).unwrap();
    }
    std::os::unix::fs::chown(env.root().join("d"), Some(1234), Some(0)).unwrap();
    env.symlink("f_root", "link");
    std::os::unix::fs::lchown(env.root().join("link"), Some(1234), Some(5678)).unwrap();
    let mut total = 0;
    for (owner, find) in [
        ("root", &["-user", "root"][..]),
        ("0", &["-user", "0"]),
        ("1234", &["-user", "1234"]),
        (":5678", &["-group", "5678"]),
        (":root", &["-group", "root"]),
        ("1234:5678", &["-user", "1234", "-group", "5678"]),
        ("1234:", &["-user", "1234"]),
        ("!root", &["!", "-user", "root"]),
        ("root:!root", &["-user", "root", "!", "-group", "root"]),
        (":!0", &["!", "-group", "0"]),
        (
            "!1234:!1234",
            &["!", "-user", "1234", "!", "-group", "1234"],
        ),
    ] {
        let files = assert_like_find_in(
            &env,
            "UTC",
            &["--owner", owner],
            &[&["-type", "f"][..], find].concat(),
        );
        total += files;
        // Directories and links have owners too.
        total += assert_like_find_in(
            &env,
            "UTC",
            &["--owner", owner, "-t", "d", "-t", "l"],
            &[
                &["-mindepth", "1", "(", "-type", "d", "-o", "-type", "l", ")"][..],
                find,
            ]
            .concat(),
        );
    }
    assert!(total > 30, "too few matches to mean anything: {total}");
}

#[test]
fn unknown_owners_exit_2_naming_them() {
    let env = TestEnv::new(&[], &[]);
    for (owner, says) in [
        ("nosuchuser", "unknown user 'nosuchuser'"),
        (":nosuchgroup", "unknown group 'nosuchgroup'"),
        ("root:nosuchgroup", "unknown group 'nosuchgroup'"),
        ("!", "'!' must be followed by a user"),
        (":!", "'!' must be followed by a group"),
    ] {
        assert_usage_error(&env, &[s("--owner"), s(owner)], &["--owner", says]);
    }
}

/// fd's values that pfind refused before issue 27, with fd's meaning.
#[test]
fn fd_s_any_owner_and_unlimited_results() {
    let env = tree();
    let all = env.run(&["-0"]).stdout;
    for args in [
        &["--owner", ":"][..],
        &["--owner", ""],
        &["--max-results=0"],
    ] {
        for threads in THREAD_COUNTS {
            let out = env.run(&[args, &["-0", "-j", threads]].concat());
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let mut got = testenv::split_records(&out.stdout, 0);
            let mut want = testenv::split_records(&all, 0);
            got.sort();
            want.sort();
            assert_eq!(got, want, "{args:?}");
        }
    }
    // `!` alone still names nobody.
    assert_eq!(env.run(&["--owner", "!"]).status.code(), Some(2));
}
