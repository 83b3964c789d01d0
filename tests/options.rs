//! The options beyond the core walk (issue 5): -t, -l, -s, --min-size/--max-size,
//! -d/--min-depth, -L, -x, --max-results/-1 and -a, through the real binary at 1, 2
//! and 16 threads.

mod testenv;

use std::collections::BTreeSet;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use testenv::{assert_same_records, pfind_command, split_records, TestEnv, THREAD_COUNTS};

/// Runs pfind at every thread count; returns (stdout lines, stderr, exit code) of each.
fn run_all(env: &TestEnv, args: &[&str]) -> Vec<(Vec<Vec<u8>>, String, Option<i32>)> {
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

fn records(paths: &[&str]) -> Vec<Vec<u8>> {
    paths.iter().map(|p| p.as_bytes().to_vec()).collect()
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
    // 28; tests/cli.rs has every case).
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
fn long_format_is_size_space_path() {
    let env = TestEnv::new(&["d"], &["empty"]);
    env.write("d/small", &[b'x'; 100]);
    env.write("d/big", &vec![b'x'; 1_500_000]);
    let want = [
        "                   0 empty",
        "                 100 d/small",
        "             1500000 d/big",
    ];
    env.assert_output(&["-l"], &want);
    env.assert_output(&["--long"], &want);
    env.assert_output(&["-l", "-S", "+1k"], &want[2..]);
    // -0 ends each record with NUL; the size column stays.
    env.assert_records(&["-l", "-0"], 0, &records(&want));
    env.assert_records(&["-0", "-l", "-n", "small"], 0, &records(&want[1..2]));
    // Issue 30: sizes for a person on request, in a column of their own width.
    let human = ["       0 B empty", "     100 B d/small", "   1.4 MiB d/big"];
    env.assert_output(&["-l", "--human-readable"], &human);
    env.assert_output(&["--human", "-l", "--sort", "size"], &human);
    env.assert_records(&["-l", "--human", "-0"], 0, &records(&human));
    // `cut -c12-` gives the paths back, as `cut -c22-` does for the byte column.
    let paths: Vec<&str> = human.iter().map(|line| &line[11..]).collect();
    assert_eq!(paths, ["empty", "d/small", "d/big"]);
    for args in [&["--human-readable"][..], &["-l", "--human", "--json"]] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn sum_size_prints_count_and_total() {
    let env = TestEnv::new(&["ckpt/old"], &[]);
    env.write("ckpt/a.pt", &vec![0; 1024 * 1024]);
    env.write("ckpt/old/b.ckpt", &vec![0; 512 * 1024]);
    env.write("ckpt/notes.txt", &[0; 10]);
    for (args, want) in [
        (
            &["-s", "-t", "checkpoints"][..],
            "2 matches, 1.5 MiB (1572864 bytes)",
        ),
        (&["--sum-size"], "3 matches, 1.5 MiB (1572874 bytes)"),
        (&["-s", "-e", "txt"], "1 match, 10 B (10 bytes)"),
        (&["-s", "-e", "none"], "0 matches, 0 B (0 bytes)"),
    ] {
        env.assert_output(args, &[want]);
    }
    for conflicting in [
        &["-s", "-c"][..],
        &["-s", "-l"],
        &["-s", "-0"],
        &["-c", "-l"],
    ] {
        let out = env.run(conflicting);
        assert_eq!(out.status.code(), Some(2), "{conflicting:?}");
    }
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

#[test]
fn max_results_prints_exactly_n_lines_and_exits_0() {
    let env = TestEnv::new(&[], &[]);
    for d in 0..40 {
        for f in 0..50 {
            env.write(format!("d{d:02}/f{f:03}"), b"");
        }
    }
    for (args, want) in [
        (&["--max-results", "7"][..], 7),
        (&["--max-results", "1"], 1),
        (&["-1"], 1),
        (&["--max-results", "100", "-t", "d"], 40),
        (&["--max-results", "5000"], 2000),
        (&["--max-results", "3", "-l"], 3),
        // The last of -1 and --max-results wins, as in fd.
        (&["-1", "--max-results", "3"], 3),
        (&["--max-results", "3", "-1"], 1),
    ] {
        // Repeated: a race between workers would show up as an extra line.
        for _ in 0..5 {
            for (lines, stderr, code) in run_all(&env, args) {
                assert_eq!(lines.len(), want, "{args:?}");
                let distinct: BTreeSet<_> = lines.iter().collect();
                assert_eq!(distinct.len(), want, "{args:?}: a line printed twice");
                assert_eq!((stderr.as_str(), code), ("", Some(0)), "{args:?}");
            }
        }
    }
    for (lines, _, code) in run_all(&env, &["-c", "--max-results", "10"]) {
        assert_eq!((lines, code), (vec![b"10".to_vec()], Some(0)));
    }
    // 0 is no limit, as in fd (issue 27).
    for (lines, _, code) in run_all(&env, &["-c", "--max-results=0"]) {
        assert_eq!((lines, code), (vec![b"2000".to_vec()], Some(0)));
    }
    for bad in [&["--max-results", "x"][..], &["--max-results", "-1"]] {
        assert_eq!(env.run(bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn max_results_counts_file_roots_too() {
    let env = TestEnv::new(&["d"], &["a", "b", "d/c"]);
    env.assert_output(&["a", "b", "d", "--max-results", "2"], &["a", "b"]);
    env.assert_output(&["a", "d", "--max-results", "2"], &["a", "d/c"]);
}

#[test]
fn absolute_paths_join_the_working_directory_once() {
    let env = TestEnv::new(&["dir/sub"], &["dir/f", "dir/sub/g", "top"]);
    let cwd = std::fs::canonicalize(env.root()).unwrap();
    let cwd = std::str::from_utf8(cwd.as_os_str().as_bytes())
        .unwrap()
        .to_string();
    let abs = |p: &str| format!("{cwd}/{p}");
    let all = [abs("dir/f"), abs("dir/sub/g"), abs("top")];
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    env.assert_output(&["-a"], &all);
    env.assert_output(&["-a", "."], &all); // no `/./`
    env.assert_output(&["--absolute-path", "./"], &all);
    let in_dir = [abs("dir/f"), abs("dir/sub/g")];
    let in_dir: Vec<&str> = in_dir.iter().map(String::as_str).collect();
    env.assert_output(&["-a", "dir"], &in_dir);
    env.assert_output(&["-a", "dir//"], &in_dir);
    env.assert_output(&["-a", "./dir/./"], &in_dir);
    env.assert_output(&["-a", &abs("dir")], &in_dir); // already absolute
    env.assert_output(&["-a", "top"], &[&abs("top")]); // a file root
    env.assert_output(&["-a", "dir/sub/..", "-d", "1"], &[&abs("dir/sub/../f")]);
    // A leading `..` is the working directory's parent (which has no link in it).
    env.assert_output(&["-C", "dir/sub", "-a", "..", "-d", "1"], &[&abs("dir/f")]);
    env.assert_output(
        &["-C", "dir/sub", "-a", "./../..", "-d", "1"],
        &[&abs("top")],
    );
    env.assert_output(&["-a", "-t", "d"], &[&abs("dir"), &abs("dir/sub")]);
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

#[test]
fn help_is_grouped_and_lists_the_families() {
    let out = TestEnv::new(&[], &[]).run(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Filters:",
        "Ignore files:",
        "Output:",
        "Other:",
        "--type",
        "--long",
        "--sum-size",
        "--min-size",
        "--max-size",
        "--max-depth",
        "--min-depth",
        "--follow",
        "--one-file-system",
        "--max-results",
        "--absolute-path",
        "checkpoints  ckpt pt pth safetensors",
        "images       jpg jpeg png webp bmp tiff gif",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
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
fn base_directory_runs_as_if_started_there() {
    let env = TestEnv::new(&["sub/dir", "other"], &["sub/dir/f", "sub/top", "other/g"]);
    env.assert_output(&["-C", "sub"], &["dir/f", "top"]);
    env.assert_output(&["--base-directory", "sub", "dir"], &["dir/f"]);
    env.assert_output(&["-C", "sub", ".", "-t", "d"], &["./dir"]);
    env.assert_output(&["-C", "sub/", "../other"], &["../other/g"]);
    let sub = env.root().join("sub");
    let absolute = |p: &str| sub.join(p).to_str().unwrap().to_string();
    env.assert_output(
        &["-C", "sub", "-a"],
        &[&absolute("dir/f"), &absolute("top")],
    );
    // --newer's FILE is found there too.
    env.write("sub/stamp", b"");
    let out = env.run(&["-C", "sub", "--newer", "stamp"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    // A missing root is named as typed, relative to DIR.
    for (lines, stderr, code) in run_all(&env, &["-C", "sub", "dir", "nope"]) {
        assert_eq!(lines, records(&["dir/f"]));
        assert_eq!(
            stderr,
            "pfind: nope: No such file or directory (roots are directories to search; match \
             names with -n GLOB or -e EXT)\n"
        );
        assert_eq!(code, Some(1));
    }
    let out = env.run(&["-C", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value 'nowhere' for '--base-directory <DIR>': No such file or \
         directory\n\nFor more information, try '--help'.\n"
    );
    let out = env.run(&["-C", "sub/top"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Not a directory"));
}

#[test]
fn strip_cwd_prefix_drops_the_dot_slash_of_a_root() {
    let env = TestEnv::new(&["sub/dir"], &["sub/dir/f", "top"]);
    env.assert_output(&[".", "--strip-cwd-prefix"], &["sub/dir/f", "top"]);
    env.assert_output(
        &["./", "--strip-cwd-prefix", "-t", "d"],
        &["sub", "sub/dir"],
    );
    env.assert_output(&["./sub", "--strip-cwd-prefix"], &["sub/dir/f"]);
    env.assert_output(&[".//sub/", "--strip-cwd-prefix"], &["sub/dir/f"]);
    env.assert_output(&["./top", "--strip-cwd-prefix"], &["top"]); // a file root
    env.assert_output(&["sub", "--strip-cwd-prefix"], &["sub/dir/f"]);
    env.assert_output(&["--strip-cwd-prefix"], &["sub/dir/f", "top"]);
    // Without it, as typed; with -a, absolute either way.
    env.assert_output(&["."], &["./sub/dir/f", "./top"]);
    let top = env.root().join("top");
    env.assert_output(
        &["./top", "-a", "--strip-cwd-prefix"],
        &[top.to_str().unwrap()],
    );
    // Errors name the root as typed.
    for (_, stderr, code) in run_all(&env, &["./nope", "--strip-cwd-prefix"]) {
        assert_eq!(stderr, "pfind: ./nope: No such file or directory\n");
        assert_eq!(code, Some(1));
    }
}
