//! The filters of issue 12 (and the pattern arguments of issue 11), through the real
//! binary, compared with GNU find on trees built here, at 1, 2 and 16 threads.

mod testenv;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use testenv::{assert_same_records, split_records, TestEnv, THREAD_COUNTS};

/// What `find . -type f ARGS` prints in `root`, under the locale `locale`.
fn find_files(root: &Path, locale: &str, args: &[&OsStr]) -> Vec<Vec<u8>> {
    let out = Command::new("find")
        .current_dir(root)
        .env("LC_ALL", locale)
        .arg(".")
        .args(["-type", "f"])
        .args(args)
        .arg("-print0")
        .output()
        .expect("run find");
    assert!(out.status.success(), "find {args:?}: {out:?}");
    split_records(&out.stdout, 0)
}

/// Asserts that `pfind . -0 PFIND_ARGS` prints what `find . -type f FIND_ARGS` does,
/// with nothing on stderr and status 0, at every thread count.
/// Returns how many paths that was, so a caller can check it is testing something.
fn assert_like_find(
    env: &TestEnv,
    locale: &str,
    pfind_args: &[&OsStr],
    find_args: &[&OsStr],
) -> usize {
    let expected = find_files(env.root(), locale, find_args);
    for threads in THREAD_COUNTS {
        let mut args: Vec<OsString> = vec![".".into(), "-0".into(), "-j".into(), threads.into()];
        args.extend(pfind_args.iter().map(|&a| a.to_owned()));
        let out = env.run(&args);
        let shown = format!("pfind {args:?} against find {find_args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{shown}");
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert_same_records(&shown, &split_records(&out.stdout, 0), &expected);
    }
    expected.len()
}

fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// Runs pfind with `args` and returns (stdout, stderr, status).
fn run(env: &TestEnv, args: &[&OsStr]) -> (Vec<u8>, String, Option<i32>) {
    let out = env.run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.stdout, stderr, out.status.code())
}

/// A tree whose names are ASCII or Latin-1 (single bytes that are not UTF-8).
fn latin1_tree() -> TestEnv {
    let env = TestEnv::new(&[], &[]);
    std::fs::create_dir(env.root().join(os(b"d\xe9j\xe0"))).unwrap();
    for name in [
        &b"a\xff"[..],
        b"\xe9\xff",
        b"ab\xff",
        b"\xff",
        b"caf\xe9.txt",
        b"cafe.txt",
        b"-dash\xff",
        b"d\xe9j\xe0/\xe9t\xe9",
        b"d\xe9j\xe0/-x",
    ] {
        env.write(os(name), b"");
    }
    env
}

#[test]
fn patterns_are_bytes_like_find_name() {
    let env = latin1_tree();
    for (pattern, count) in [
        (&b"?\xff"[..], 2),
        (b"*\xe9*", 3),
        (b"caf?.txt", 2),
        (b"\xe9*", 2),
        (b"??", 3), // a\xff, \xe9\xff, -x
    ] {
        let args = [os(b"-n"), os(pattern)];
        let found = assert_like_find(&env, "C", &args, &[os(b"-name"), os(pattern)]);
        assert_eq!(found, count, "{:?}", String::from_utf8_lossy(pattern));
    }
    // Excludes take bytes too, and so does -e.
    assert_like_find(
        &env,
        "C",
        &[os(b"-E"), os(b"d\xe9j\xe0"), os(b"-E"), os(b"*\xff")],
        &[
            os(b"-not"),
            os(b"-path"),
            os(b"./d\xe9j\xe0/*"),
            os(b"-not"),
            os(b"-name"),
            os(b"*\xff"),
        ],
    );
    assert_like_find(
        &env,
        "C",
        &[os(b"-e"), os(b"\xff")],
        &[os(b"-name"), os(b"?*.\xff")],
    );
}

#[test]
fn patterns_may_start_with_a_dash() {
    let env = latin1_tree();
    assert_like_find(
        &env,
        "C",
        &[os(b"-n"), os(b"-*")],
        &[os(b"-name"), os(b"-*")],
    );
    assert_like_find(
        &env,
        "C",
        &[os(b"-E"), os(b"-*")],
        &[os(b"-not"), os(b"-name"), os(b"-*")],
    );
}

#[test]
fn a_slash_in_a_name_pattern_is_a_warning_not_an_error() {
    let env = latin1_tree();
    let (stdout, stderr, status) = run(&env, &[os(b"-n"), os(b"d\xe9j\xe0/*")]);
    assert_eq!(status, Some(0));
    assert!(stdout.is_empty());
    assert_eq!(
        stderr,
        "pfind: warning: -n 'd\u{fffd}j\u{fffd}/*' contains '/', which no file name does, so \
         it matches nothing (-n and -E test names, not paths)\n"
    );
    let (stdout, stderr, status) = run(&env, &[os(b"-E"), os(b"a/b"), os(b"-n"), os(b"cafe*")]);
    assert_eq!((stdout, status), (b"cafe.txt\n".to_vec(), Some(0)));
    assert!(
        stderr.starts_with("pfind: warning: -E 'a/b' contains '/'"),
        "{stderr}"
    );
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
        let (stdout, stderr, status) = run(&env, &args);
        assert_eq!(status, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty());
        assert!(
            stderr.starts_with("error: invalid value"),
            "{args:?}: {stderr}"
        );
        for mention in mentions {
            assert!(
                stderr.contains(mention),
                "{args:?}: {stderr} lacks {mention}"
            );
        }
    }
}
