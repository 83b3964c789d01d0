//! `--files-from`: a list of the paths a walk prints, given back, gives what the
//! walk gives with every filter and output option; NUL-separated (`-0`) and line
//! lists, from a file and from stdin; a missing path is reported as a walk reports
//! an entry it cannot read, and the rest is still tested.

use crate::testenv::{assert_same_records, pfind_command, random_tree, split_records};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// pfind in `dir` with `args`, `stdin` fed to it.
fn run(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child: std::process::Child = pfind_command(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // The list may be larger than a pipe holds: written while pfind reads it.
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&stdin));
    let out = child.wait_with_output().unwrap();
    // A refused command line ends pfind before it reads the list: what was not
    // written yet then has no reader (EPIPE), which is no failure of the test.
    if let Err(err) = writer.join().unwrap() {
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
    }
    out
}

/// Every filter and output option worth telling apart, each with `-0` added where
/// the records are paths.
const FILTERS: &[&[&str]] = &[
    &[],
    &["-t", "any"],
    &["-t", "d"],
    &["-t", "l"],
    &["-t", "p"],
    &["-t", "f", "-t", "d"],
    &["-t", "e"],
    &["-t", "x", "-t", "d"],
    &["-n", "*1*"],
    &["-i", "-n", "F_*3"],
    &["-e", "txt"],
    &["-E", "*2*", "-t", "any"],
    &["--regex", "_[0-9]*7$"],
    &["-p", "**/f_1*"],
    &["--path-regex", "^[^/]*/f"],
    &["--no-hidden", "-t", "any"],
    &["-S", "-0"],
    &["--changed-within", "1h", "-t", "any"],
    &["--time", "changed", "--changed-before", "1h"],
    &["--owner", "!0", "-t", "any"],
];

const OUTPUTS: &[&[&str]] = &[
    &["-0"],
    &["-l", "-0"],
    &["--format", "{size} {type} {}", "-0"],
    &["--json"],
    &["--sort", "path", "-0"],
    &["-c"],
    &["-s"],
];

/// A random tree from `seed` in `root` of a new temporary directory.
fn tree(seed: u64, entries: usize) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    random_tree(&root, seed, entries);
    (tmp, root)
}

#[test]
fn a_walks_list_given_back_gives_what_the_walk_gives() {
    let (tmp, root) = tree(7, 1_200);
    std::fs::write(root.join("x.txt"), b"text").unwrap();
    let list = run(&root, &["-t", "any", "-0"], b"").stdout;
    let list_file = tmp.path().join("list");
    std::fs::write(&list_file, &list).unwrap();
    let list_file = list_file.to_str().unwrap();
    for filters in FILTERS {
        for output in OUTPUTS {
            let mut walk_args: Vec<&str> = filters.to_vec();
            walk_args.extend(*output);
            let walk = run(&root, &walk_args, b"");
            assert!(walk.status.success(), "{walk_args:?}");
            let terminator = if output.contains(&"-0") { 0 } else { b'\n' };
            let expected = split_records(&walk.stdout, terminator);
            for (from, stdin) in [(list_file, &b""[..]), ("-", &list[..])] {
                let mut args = vec!["--files-from", from];
                args.extend(&walk_args);
                let listed = run(&root, &args, stdin);
                assert_eq!(String::from_utf8_lossy(&listed.stderr), "", "{args:?}");
                assert!(listed.status.success(), "{args:?}");
                let context = format!("{args:?}");
                let got = split_records(&listed.stdout, terminator);
                assert_same_records(&context, &got, &expected);
            }
        }
    }
}

/// A list of lines: the paths without a newline in them, against the walk's.
#[test]
fn a_list_of_lines_gives_what_the_walk_gives() {
    let (_tmp, root) = tree(8, 800);
    let without_newlines = |out: &[u8]| -> Vec<Vec<u8>> {
        let records = split_records(out, 0);
        records
            .into_iter()
            .filter(|r| !r.contains(&b'\n'))
            .collect()
    };
    let all = without_newlines(&run(&root, &["-t", "any", "-0"], b"").stdout);
    let lines: Vec<u8> = all.iter().flat_map(|r| [&r[..], b"\n"].concat()).collect();
    for filters in [
        &["-t", "any"][..],
        &["-n", "*3*"],
        &["-t", "d", "-E", "*1*"],
    ] {
        let mut walk_args = filters.to_vec();
        walk_args.push("-0");
        let expected = without_newlines(&run(&root, &walk_args, b"").stdout);
        let mut args = vec!["--files-from", "-"];
        args.extend(filters);
        let listed = run(&root, &args, &lines);
        assert_eq!(String::from_utf8_lossy(&listed.stderr), "");
        let got = split_records(&listed.stdout, b'\n');
        assert_same_records(&format!("{filters:?}"), &got, &expected);
    }
}

/// A path that is not there: one line naming it, the others still tested, status 1.
/// A list that cannot be read, or a root beside the list, is a usage error.
#[test]
fn missing_paths_are_reported_and_the_rest_tested() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a"), b"").unwrap();
    std::fs::create_dir(tmp.path().join("d")).unwrap();
    let out = run(
        tmp.path(),
        &["--files-from", "-", "-t", "any"],
        b"gone\na\nd/\nd/gone\n",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: gone: No such file or directory\npfind: d/gone: No such file or directory\n"
    );
    let mut printed = split_records(&out.stdout, b'\n');
    printed.sort();
    assert_eq!(printed, [b"a".to_vec(), b"d".to_vec()]);
    assert_eq!(out.status.code(), Some(1));
    for args in [
        &["--files-from", "no-such-list"][..],
        &["--files-from", "-", "."],
        &["--files-from", "-", "-d", "2"],
        &["--files-from", "-", "--ignore"],
    ] {
        let out = run(tmp.path(), args, b"a\n");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            said.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{said}"
        );
    }
}
