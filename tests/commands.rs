//! The commands fd users write (issue 27): several `--exec` per match, `--exec-dir`,
//! `--batch-size`, and `--path-separator`, through the real binary on trees built
//! here, with names that are not UTF-8 and names that start with `-`.

mod testenv;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use testenv::{split_records, TestEnv, THREAD_COUNTS};

fn os(args: &[&[u8]]) -> Vec<&'static OsStr> {
    args.iter()
        .map(|a| OsStr::from_bytes(Vec::leak(a.to_vec())))
        .collect()
}

/// Runs pfind at each thread count; asserts status 0 and an empty stderr, and
/// returns each run's stdout.
fn outputs(env: &TestEnv, args: &[&[u8]]) -> Vec<Vec<u8>> {
    (THREAD_COUNTS.iter())
        .map(|threads| {
            // `-j` first: a command's words run to the end of the line.
            let args = [&[b"-j", threads.as_bytes()], args].concat();
            let out = env.run(&os(&args));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
            assert_eq!(stderr, "", "{args:?}");
            out.stdout
        })
        .collect()
}

fn sorted_lines(stdout: &[u8]) -> Vec<Vec<u8>> {
    let mut lines = split_records(stdout, b'\n');
    lines.sort();
    lines
}

fn tree() -> TestEnv {
    let env = TestEnv::new(&[], &[]);
    env.write("a/keep.txt", b"keep\n");
    env.write("a/drop.txt", b"drop\n");
    env.write("-d/-n.txt", b"keep\n");
    env.write(OsStr::from_bytes(b"b/x\xff.txt"), b"keep\n");
    env
}

#[test]
fn several_exec_run_in_turn_on_each_match() {
    let env = tree();
    let args: &[&[u8]] = &[
        b"-e", b"txt", b"--exec", b"echo", b"1", b"{}", b";", b"--exec", b"echo", b"2", b"{/}",
    ];
    for stdout in outputs(&env, args) {
        // Each match's two lines are together, in the order typed.
        let lines = split_records(&stdout, b'\n');
        assert_eq!(lines.len(), 8, "{:?}", String::from_utf8_lossy(&stdout));
        for pair in lines.chunks(2) {
            let first = pair[0]
                .strip_prefix(b"1 ")
                .expect("the first command first");
            let name = first.rsplit(|&b| b == b'/').next().unwrap();
            assert_eq!(pair[1], [&b"2 "[..], name].concat());
        }
    }
    // Each only if the one before succeeded: grep fails on drop.txt (status 1).
    for threads in THREAD_COUNTS {
        let args = [
            "-j", threads, "-e", "txt", "--exec", "grep", "-q", "keep", ";", "--exec", "echo",
        ];
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(1));
        let stdout = out.stdout;
        let want: Vec<Vec<u8>> = vec![
            b"-d/-n.txt".to_vec(),
            b"a/keep.txt".to_vec(),
            b"b/x\xff.txt".to_vec(),
        ];
        let want: Vec<Vec<u8>> = want
            .into_iter()
            .map(|p| [&b"./"[..], &p].concat())
            .collect();
        assert_eq!(sorted_lines(&stdout), want);
    }
}

#[test]
fn a_failure_in_a_chain_is_counted_once_for_all_its_commands() {
    let env = tree();
    let out = env.run(&[
        "-e", "txt", "--exec", "grep", "-q", "keep", ";", "--exec", "true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: --exec: 1 of 7 commands exited with a non-zero status\n"
    );
}

#[test]
fn exec_dir_runs_in_the_match_s_directory_on_dot_slash_name() {
    let env = tree();
    let root = env.root().canonicalize().unwrap();
    let script: &[u8] = b"printf '%s|%s|%s\\n' \"$(pwd -P)\" \"$1\" \"$2\"";
    let args: &[&[u8]] = &[
        b"-e",
        b"txt",
        b"--exec-dir",
        b"sh",
        b"-c",
        script,
        b"sh",
        b"{}",
        b"{//}",
    ];
    for stdout in outputs(&env, args) {
        let at = |dir: &[u8], name: &[u8]| {
            [root.as_os_str().as_bytes(), b"/", dir, b"|./", name, b"|."].concat()
        };
        let mut want = vec![
            at(b"-d", b"-n.txt"),
            at(b"a", b"keep.txt"),
            at(b"a", b"drop.txt"),
            at(b"b", b"x\xff.txt"),
        ];
        want.sort();
        assert_eq!(sorted_lines(&stdout), want);
    }
    // With a root, and mixed with --exec in the order typed.
    let args: &[&[u8]] = &[
        b"a",
        b"-n",
        b"keep*",
        b"--exec",
        b"echo",
        b"{}",
        b";",
        b"--exec-dir",
        b"echo",
        b"{}",
    ];
    for stdout in outputs(&env, args) {
        assert_eq!(stdout, b"a/keep.txt\n./keep.txt\n");
    }
}

#[test]
fn batch_size_caps_each_command() {
    let env = tree();
    for stdout in outputs(
        &env,
        &[b"-e", b"txt", b"-X", b"echo", b"+", b"--batch-size", b"3"],
    ) {
        let words: Vec<usize> = split_records(&stdout, b'\n')
            .iter()
            .map(|line| line.split(|&b| b == b' ').count())
            .collect();
        assert_eq!(words, [3, 1]);
    }
    for stdout in outputs(
        &env,
        &[b"-e", b"txt", b"-X", b"echo", b"+", b"--batch-size", b"0"],
    ) {
        assert_eq!(split_records(&stdout, b'\n').len(), 1);
    }
    for bad in [
        &["--batch-size", "2"][..],
        &["-X", "echo", "+", "--batch-size", "x"],
    ] {
        assert_eq!(env.run(bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn path_separator_replaces_the_slash_in_printed_paths() {
    let env = tree();
    for stdout in outputs(&env, &[b"-e", b"txt", b"--path-separator", b"\\", b"-0"]) {
        let mut records = split_records(&stdout, 0);
        records.sort();
        let want: Vec<&[u8]> = vec![
            b"-d\\-n.txt",
            b"a\\drop.txt",
            b"a\\keep.txt",
            b"b\\x\xff.txt",
        ];
        assert_eq!(records, want);
    }
    for stdout in outputs(
        &env,
        &[b"a", b"-n", b"keep*", b"--path-separator", b"::", b"-l"],
    ) {
        assert_eq!(stdout, format!("{:>20} a::keep.txt\n", 5).as_bytes());
    }
    // Commands get the paths as they are, and their output is theirs.
    for stdout in outputs(
        &env,
        &[
            b"a",
            b"-n",
            b"keep*",
            b"--path-separator",
            b"-",
            b"--exec",
            b"cat",
        ],
    ) {
        assert_eq!(stdout, b"keep\n");
    }
    let out = env.run(&["--path-separator", ":", "--format", "{}"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `/` changes nothing, so it is taken with --format, --json and --hyperlink too, which
/// refuse any other separator (fd's own tests pass `--path-separator=/` with --format).
#[test]
fn path_separator_slash_is_taken_with_every_output() {
    let env = tree();
    for output in [
        &[b"--format", b"{//}|{/}".as_slice()][..],
        &[b"--json"],
        &[b"--hyperlink", b"always"],
    ] {
        let plain = [&[b"-e".as_slice(), b"txt"], output].concat();
        let with_slash = [&plain[..], &[b"--path-separator", b"/"]].concat();
        for (a, b) in outputs(&env, &plain).iter().zip(outputs(&env, &with_slash)) {
            assert_eq!(sorted_lines(a), sorted_lines(&b), "{output:?}");
        }
        let other = [&plain[..], &[b"--path-separator", b"\\"]].concat();
        let out = env.run(&os(&other));
        assert_eq!(out.status.code(), Some(2), "{other:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}
