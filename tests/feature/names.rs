//! The name and path patterns (src/cli/names.rs): `-e`, `-n` globs with sets, escapes
//! and `-i` against `find -name`/`-iname` (every one-byte name, generated names with
//! stray bytes, C.UTF-8 classes), `-E` (files, whole directories, lists, paths below
//! the root, never a root), `--ignore-contain`, `-p`/`--full-path` against
//! `find -path`, `--regex`, `--path-regex` and `--and` as fd reads them, `-i` and
//! `--case-sensitive`, and the messages for bad patterns; through the real binary on
//! trees built here, at 1, 2 and 16 threads, with names that are not UTF-8 and names
//! that start with `-`.

use crate::hints::{assert_run, source_tree};
use crate::output::mixed_tree;
use crate::testenv;
use crate::testenv::{assert_same_records, split_records, TestEnv, THREAD_COUNTS};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

/// What `find . -type f ARGS` prints in `root`, under the locale `locale`.
fn find_files(root: &Path, locale: &str, args: &[&OsStr]) -> Vec<Vec<u8>> {
    find_paths(
        root,
        locale,
        &[&[OsStr::new("-type"), OsStr::new("f")], args].concat(),
    )
}

/// What `find . ARGS` prints in `root`, under the locale `locale`.
fn find_paths(root: &Path, locale: &str, args: &[&OsStr]) -> Vec<Vec<u8>> {
    let out = Command::new("find")
        .current_dir(root)
        .env("LC_ALL", locale)
        .arg(".")
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
    assert_prints(env, pfind_args, &expected, &format!("find {find_args:?}"))
}

/// Asserts that `pfind . -0 PFIND_ARGS` prints `expected`, with nothing on stderr and
/// status 0, at every thread count; returns how many paths that was.
fn assert_prints(
    env: &TestEnv,
    pfind_args: &[&OsStr],
    expected: &[Vec<u8>],
    oracle: &str,
) -> usize {
    for threads in THREAD_COUNTS {
        let mut args: Vec<OsString> = vec![".".into(), "-0".into(), "-j".into(), threads.into()];
        args.extend(pfind_args.iter().map(|&a| a.to_owned()));
        let out = env.run(&args);
        let shown = format!("pfind {args:?} against {oracle}");
        // Where nothing matches, a nearby spelling that does may be told (issue 41).
        let stderr = String::from_utf8_lossy(&out.stderr);
        let hint = expected.is_empty()
            && stderr.starts_with("pfind: warning: nothing matched, but ")
            && stderr.lines().count() == 1;
        assert!(stderr.is_empty() || hint, "{shown}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert_same_records(&shown, &split_records(&out.stdout, 0), expected);
    }
    expected.len()
}

pub(crate) fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// Runs pfind with `args` and returns (stdout, stderr, status).
pub(crate) fn run(env: &TestEnv, args: &[&OsStr]) -> (Vec<u8>, String, Option<i32>) {
    let out = env.run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.stdout, stderr, out.status.code())
}

/// Asserts that pfind with `args` exits 2 with a clap usage error that mentions each
/// of `mentions`, and prints nothing.
pub(crate) fn assert_usage_error(env: &TestEnv, args: &[&OsStr], mentions: &[&str]) {
    let (stdout, stderr, status) = run(env, args);
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
        "pfind: warning: -n 'd\\xe9j\\xe0/*' contains '/', which no file name does, so \
         it matches nothing (-n tests names, not paths: -p GLOB tests the path below the \
         root)\npfind: warning: nothing matched, but -p 'd\\xe9j\\xe0/*' finds 2 files (-n \
         tests names; -p the path below the root)\n"
    );
    // With `-E`, a `/` names a path below the root (issue 27): no warning.
    let (stdout, stderr, status) = run(&env, &[os(b"-E"), os(b"a/b"), os(b"-n"), os(b"cafe*")]);
    assert_eq!((stdout, status), (b"cafe.txt\n".to_vec(), Some(0)));
    assert_eq!(stderr, "");
}

/// A tree with one file for every byte that can be a one-byte name.
fn one_byte_names() -> TestEnv {
    let env = TestEnv::new(&[], &[]);
    for byte in 1..=255u8 {
        if byte != b'/' && byte != b'.' {
            env.write(os(&[byte]), b"");
        }
    }
    env
}

#[test]
fn bracket_globs_match_like_find_on_every_one_byte_name() {
    let env = one_byte_names();
    let mut total = 0;
    for pattern in [
        &b"?"[..],
        b"[a-z]",
        b"[!a-z]",
        b"[^0-9A-F]",
        b"[]]",
        b"[!]]",
        b"[a-]",
        b"[-z]",
        b"[[:alpha:]]",
        b"[[:alnum:]]",
        b"[[:digit:]]",
        b"[[:xdigit:]]",
        b"[[:lower:]]",
        b"[[:upper:]]",
        b"[[:punct:]]",
        b"[[:space:]]",
        b"[[:blank:]]",
        b"[[:cntrl:]]",
        b"[[:print:]]",
        b"[[:graph:]]",
        b"[![:alnum:][:punct:]]",
        b"[\x80-\xff]",
        b"[!\x01-\x7f]",
        b"[\xe9\xff]",
        b"\\*",
        b"\\?",
        b"\\\\",
        b"\\[",
        b"[\\]]",
        b"[\\-]",
        b"[",
        b"[[]",
        b"[!",
    ] {
        let args = [os(b"-n"), os(pattern)];
        total += assert_like_find(&env, "C", &args, &[os(b"-name"), os(pattern)]);
        let args = [os(b"-i"), os(b"-n"), os(pattern)];
        total += assert_like_find(&env, "C", &args, &[os(b"-iname"), os(pattern)]);
    }
    assert!(total > 2_000, "too few matches to mean anything: {total}");
}

/// Random bytes from `alphabet`, `len` of them.
fn random_bytes(rng: &mut fastrand::Rng, alphabet: &[&[u8]], len: usize) -> Vec<u8> {
    (0..len)
        .flat_map(|_| alphabet[rng.usize(..alphabet.len())].to_vec())
        .collect()
}

#[test]
fn globs_match_like_find_on_generated_names() {
    // ASCII and bytes that are not UTF-8, where `LC_ALL=C find` reads one byte as
    // one character, as pfind does.
    let mut rng = fastrand::Rng::with_seed(1212);
    let name_alphabet: [&[u8]; 12] = [
        b"a", b"b", b"C", b"x", b"0", b"7", b"_", b".", b"-", b"[", b"\xe9", b"\xff",
    ];
    let env = TestEnv::new(&["sub"], &[]);
    for i in 0..300 {
        let len = rng.usize(1..7);
        let mut name = random_bytes(&mut rng, &name_alphabet, len);
        name.extend_from_slice(format!("{}", i % 10).as_bytes());
        let dir: &[u8] = if i % 3 == 0 { b"sub/" } else { b"" };
        env.write(os(&[dir, &name].concat()), b"");
    }
    let pattern_alphabet: [&[u8]; 16] = [
        b"a",
        b"C",
        b"?",
        b"*",
        b"*",
        b"[a-c]",
        b"[!a-c]",
        b"[0-9]",
        b"[[:upper:]]",
        b"[^.]",
        b"\\[",
        b"[\xe9\xff]",
        b"[\x80-\xff]",
        b".",
        b"x",
        b"[[:punct:]_]",
    ];
    let mut total = 0;
    for _ in 0..40 {
        let len = rng.usize(1..6);
        let pattern = random_bytes(&mut rng, &pattern_alphabet, len);
        let args = [os(b"-n"), os(&pattern)];
        total += assert_like_find(&env, "C", &args, &[os(b"-name"), os(&pattern)]);
        let args = [os(b"-i"), os(b"-E"), os(&pattern)];
        let find_args = [os(b"-not"), os(b"-iname"), os(&pattern)];
        total += assert_like_find(&env, "C", &args, &find_args);
    }
    assert!(total > 2_000, "too few matches to mean anything: {total}");
}

#[test]
fn ignore_case_matches_like_find_iname() {
    let env = TestEnv::new(
        &["Photos"],
        &[
            "a.jpg",
            "B.JPG",
            "c.Jpg",
            "d.jpeg",
            "Photos/IMG_01.JPG",
            "Photos/img_02.jpg",
            "Photos/notes.TXT",
            "été.txt",
            "Été.TXT",
            "ete.txt",
        ],
    );
    for pattern in ["*.jpg", "*.JPG", "IMG_*", "[a-c].*", "[A-C].J?G", "*.T[x]T"] {
        let args = [os(b"-i"), os(b"-n"), OsStr::new(pattern)];
        assert_like_find(&env, "C", &args, &[os(b"-iname"), OsStr::new(pattern)]);
    }
    // Letters beyond ASCII, in a UTF-8 locale (literal patterns only: there glibc
    // also tries bytes when characters fail, which a `?` could tell apart).
    for pattern in ["été*", "ÉTÉ*", "*T*"] {
        let args = [os(b"-i"), os(b"-n"), OsStr::new(pattern)];
        let found = assert_like_find(
            &env,
            "C.UTF-8",
            &args,
            &[os(b"-iname"), OsStr::new(pattern)],
        );
        assert!(found >= 2, "{pattern}: {found}");
    }
    // Without -i, case counts.
    assert_like_find(
        &env,
        "C",
        &[os(b"-n"), os(b"*.jpg")],
        &[os(b"-name"), os(b"*.jpg")],
    );
}

/// What Python's `fnmatch.fnmatchcase` says for each name, reading names and pattern
/// with "surrogateescape": one character per UTF-8 character and per other byte,
/// pfind's rule. An oracle for names that mix the two, where find's answer depends
/// on the locale. (It knows no `\` escapes nor `[:classes:]`.)
fn python_fnmatch(pattern: &[u8], names: &[Vec<u8>]) -> Vec<bool> {
    let script = "import sys, os, fnmatch\n\
        data = sys.stdin.buffer.read().split(b'\\0')\n\
        pattern, names = os.fsdecode(data[0]), data[1:]\n\
        print(''.join('1' if fnmatch.fnmatchcase(os.fsdecode(n), pattern) else '0' for n in names))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut input = pattern.to_vec();
    for name in names {
        input.push(0);
        input.extend_from_slice(name);
    }
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &input).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
        .iter()
        .filter(|&&b| b != b'\n')
        .map(|&b| b == b'1')
        .collect()
}

#[test]
fn a_character_is_a_utf8_character_or_one_other_byte() {
    let mut rng = fastrand::Rng::with_seed(1211);
    let name_alphabet: [&[u8]; 7] = [
        b"a",
        b"b",
        "é".as_bytes(),
        "ü".as_bytes(),
        "字".as_bytes(),
        b"\xe9",
        b"\xff",
    ];
    let env = TestEnv::new(&[], &[]);
    let mut names = Vec::new();
    for i in 0..200 {
        let len = rng.usize(0..5);
        let mut name = random_bytes(&mut rng, &name_alphabet, len);
        name.extend_from_slice(format!("{}", i % 7).as_bytes());
        if !names.contains(&name) {
            env.write(os(&name), b"");
            names.push(name);
        }
    }
    let pattern_alphabet: [&[u8]; 10] = [
        b"?",
        b"?",
        b"*",
        b"a",
        "é".as_bytes(),
        b"\xff",
        b"[\xc3\xa9\xe9]", // é as UTF-8, or the byte 0xe9
        "[!é]".as_bytes(),
        "[à-ü]".as_bytes(),
        b"[\x80-\xff]",
    ];
    let mut total = 0;
    for _ in 0..30 {
        let len = rng.usize(1..5);
        let pattern = [
            random_bytes(&mut rng, &pattern_alphabet, len),
            b"*".to_vec(),
        ]
        .concat();
        let verdicts = python_fnmatch(&pattern, &names);
        let expected: Vec<Vec<u8>> = names
            .iter()
            .zip(&verdicts)
            .filter(|(_, &matched)| matched)
            .map(|(name, _)| [&b"./"[..], name].concat())
            .collect();
        total += expected.len();
        for threads in THREAD_COUNTS {
            let args = [
                os(b"."),
                os(b"-0"),
                os(b"-j"),
                OsStr::new(threads),
                os(b"-n"),
                os(&pattern),
            ];
            let (stdout, stderr, status) = run(&env, &args);
            let shown = format!("pfind {args:?}");
            assert_eq!((stderr.as_str(), status), ("", Some(0)), "{shown}");
            assert_same_records(&shown, &split_records(&stdout, 0), &expected);
        }
    }
    assert!(total > 300, "too few matches to mean anything: {total}");
}

#[test]
fn bad_globs_exit_2_naming_the_value() {
    let env = TestEnv::new(&[], &[]);
    for (args, mentions) in [
        (&["-n", "[z-a]"][..], &["'[z-a]'", "--name", "reversed"][..]),
        (
            &["-E", "x[[:bogus:]]"],
            &["--exclude", "unknown character class"],
        ),
        (&["-n", "ab\\"], &["lone '\\'"]),
    ] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        assert_usage_error(&env, &args, mentions);
    }
}

/// Issue 20, defects 1 and 11, through the binary: bracket expressions glibc gives no
/// single meaning are refused, naming the option and saying why (`find` matches
/// nothing with `[[.]`, and reads `[a-[:alpha:]]` as the range `a-[`), and a long
/// hostile pattern is refused at once (it took a minute, then matched nothing).
#[test]
fn glob_corners_glibc_reads_no_single_way_are_refused_saying_why() {
    let env = TestEnv::new(&[], &["[", "=", "-", "a", "[.]", "a]"]);
    let hostile = "[[.".repeat(3_000);
    for (args, mentions) in [
        (
            &["-n", "[[.]"][..],
            &["--name", "'[.' begins a collating symbol"][..],
        ),
        (&["-E", "[a-[:alpha:]]"], &["--exclude", "ends in a class"]),
        (
            &["-p", "src/[a[=]"],
            &["--path <GLOB>", "equivalence class"],
        ),
        (&["-n", &hostile], &["--name", "collating symbol"]),
    ] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        assert_usage_error(&env, &args, mentions);
    }
    // Where glibc has one meaning, pfind has it too.
    for pattern in ["[[.[.]]", "[[=.=]]", "[[:]", "[[.a.]-]"] {
        let args = [os(b"-n"), OsStr::new(pattern)];
        assert_like_find(&env, "C.UTF-8", &args, &[os(b"-name"), OsStr::new(pattern)]);
    }
}

/// Issue 20, defect 11: the titlecase `ǅ` was in neither `[[:upper:]]` nor
/// `[[:lower:]]`, where glibc's C.UTF-8 has it in both. Every class, on names of one
/// character that glibc classes in ways Rust's predicates alone do not, against
/// `find -name` in C.UTF-8.
#[test]
fn classes_match_like_find_in_c_utf8() {
    let names = [
        "ǅ", "Ǆ", "ǆ", "ᾈ", "ß", "²", "٣", "\u{a0}", "\u{2028}", "\u{2003}", "\u{85}", "é", "a",
        "Z", "5", "_",
    ];
    let env = TestEnv::new(&[], &names);
    let mut total = 0;
    for class in [
        "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space",
        "upper", "xdigit",
    ] {
        for pattern in [format!("[[:{class}:]]"), format!("[![:{class}:]]")] {
            let args = [os(b"-n"), OsStr::new(&pattern)];
            let find_args = [os(b"-name"), OsStr::new(&pattern)];
            total += assert_like_find(&env, "C.UTF-8", &args, &find_args);
        }
    }
    assert!(total > 100, "too few matches to mean anything: {total}");
    let upper = [os(b"-n"), os(b"[[:upper:]]")];
    let lower = [os(b"-n"), os(b"[[:lower:]]")];
    for args in [&upper, &lower] {
        let (stdout, _, _) = run(&env, &[&[os(b"."), os(b"-0")][..], args].concat());
        assert!(
            split_records(&stdout, 0).contains(&"./ǅ".as_bytes().to_vec()),
            "{args:?}"
        );
    }
}

/// A generated tree for `-p`: directories and files from small sets of names, so
/// that patterns match at several depths.
fn path_tree() -> TestEnv {
    let mut rng = fastrand::Rng::with_seed(1213);
    let dir_names = ["src", "Src", "a", "b", "test_d", "lib"];
    let file_names = ["main.rs", "A.RS", "x.c", "y.h", "test_1", "notes.txt"];
    let env = TestEnv::new(&[], &[]);
    for _ in 0..400 {
        let depth = rng.usize(0..5);
        let mut path: Vec<&str> = (0..depth).map(|_| dir_names[rng.usize(..6)]).collect();
        path.push(file_names[rng.usize(..6)]);
        env.write(path.join("/"), b"");
    }
    env
}

#[test]
fn full_path_matches_like_find_path() {
    let env = path_tree();
    let s = OsStr::new;
    let depth = |n: &'static str| [s("-mindepth"), s(n), s("-maxdepth"), s(n)];
    // (pfind's -p and options, find's equivalent): where a -p pattern has no `**`,
    // find's `*` and `?`, which cross `/`, cannot do so at a fixed depth of as many
    // components as the pattern has.
    let cases: Vec<(Vec<&OsStr>, Vec<&OsStr>)> = vec![
        (
            vec![s("src/*.rs")],
            [&depth("2")[..], &[s("-path"), s("./src/*.rs")]].concat(),
        ),
        (vec![s("src/**/*.rs")], vec![s("-path"), s("./src/*.rs")]),
        (vec![s("**/test_*")], vec![s("-name"), s("test_*")]),
        (
            vec![s("*/test_*")],
            [&depth("2")[..], &[s("-path"), s("./*/test_*")]].concat(),
        ),
        (vec![s("a/**")], vec![s("-path"), s("./a/*")]),
        (vec![s("**")], vec![]),
        (
            vec![s("*.rs")],
            [&depth("1")[..], &[s("-name"), s("*.rs")]].concat(),
        ),
        (
            vec![s("[ab]/?/*.[ch]")],
            [&depth("3")[..], &[s("-path"), s("./[ab]/?/*.[ch]")]].concat(),
        ),
        (
            vec![s("**/b/**/*.h")],
            vec![
                s("("),
                s("-path"),
                s("./b/*.h"),
                s("-o"),
                s("-path"),
                s("./*/b/*.h"),
                s(")"),
            ],
        ),
        (
            vec![s("SRC/*.RS"), s("-i")],
            [&depth("2")[..], &[s("-ipath"), s("./src/*.rs")]].concat(),
        ),
        (
            vec![s("a/**"), s("-n"), s("*.[ch]")],
            vec![s("-path"), s("./a/*"), s("-name"), s("*.[ch]")],
        ),
    ];
    let mut total = 0;
    for (pfind_args, find_args) in &cases {
        let args = [&[s("-p")][..], pfind_args].concat();
        let found = assert_like_find(&env, "C", &args, find_args);
        assert!(found > 0, "{args:?} matches nothing: a weak test");
        total += found;
    }
    // Directories and links too, not only files.
    env.symlink("src", "a/link");
    let kinds: [(&str, &str, Vec<&OsStr>); 3] = [
        (
            "d",
            "src/*",
            [&depth("2")[..], &[s("-path"), s("./src/*")]].concat(),
        ),
        ("d", "**/b", vec![s("-name"), s("b")]),
        (
            "l",
            "*/link",
            [&depth("2")[..], &[s("-path"), s("./*/link")]].concat(),
        ),
    ];
    for (kind, pattern, find_args) in kinds {
        let args = [s("-p"), s(pattern), s("-t"), s(kind)];
        let find_args = [&[s("-type"), s(kind)][..], &find_args].concat();
        let expected = find_paths(env.root(), "C", &find_args);
        assert!(!expected.is_empty(), "{pattern}");
        total += assert_prints(&env, &args, &expected, &format!("find {find_args:?}"));
    }
    assert!(total > 300, "too few matches to mean anything: {total}");
}

#[test]
fn full_path_is_below_the_root_wherever_pfind_runs() {
    let env = TestEnv::new(
        &["top/src/a"],
        &["top/src/main.rs", "top/src/a/x.rs", "top/lib.rs"],
    );
    // The same pattern from the tree's parent, with the root given.
    let root = env.root().join("top");
    for threads in THREAD_COUNTS {
        let out = testenv::pfind_command(env.root(), &["top", "-p", "src/**/*.rs", "-j", threads])
            .output()
            .unwrap();
        let mut lines = split_records(&out.stdout, b'\n');
        lines.sort();
        assert_eq!(
            lines,
            [&b"top/src/a/x.rs"[..], b"top/src/main.rs"],
            "-j {threads}"
        );
        let out = testenv::pfind_command(&root, &["-p", "src/**/*.rs", "-j", threads])
            .output()
            .unwrap();
        let mut lines = split_records(&out.stdout, b'\n');
        lines.sort();
        assert_eq!(lines, [&b"src/a/x.rs"[..], b"src/main.rs"], "-j {threads}");
    }
    // A root given as a file: its path below itself is its name.
    let (stdout, _, _) = run(&env, &[s("top/lib.rs"), s("-p"), s("*.rs")]);
    assert_eq!(stdout, b"top/lib.rs\n");
    let (stdout, _, _) = run(&env, &[s("top/src/main.rs"), s("-p"), s("src/*.rs")]);
    assert!(stdout.is_empty());
}

pub(crate) fn s(text: &str) -> &OsStr {
    OsStr::new(text)
}

#[test]
fn full_path_patterns_that_cannot_match_are_warned_about() {
    let env = TestEnv::new(&["src"], &["src/main.rs"]);
    for pattern in ["./src/*", "/src/*", "src/", "src//main.rs"] {
        let (stdout, stderr, status) = run(&env, &[s("-p"), s(pattern)]);
        assert_eq!(
            (stdout.as_slice(), status),
            (&b""[..], Some(0)),
            "{pattern}"
        );
        assert!(
            stderr.starts_with(&format!("pfind: warning: -p '{pattern}' ")),
            "{pattern}: {stderr}"
        );
        assert!(stderr.contains("matches nothing"), "{stderr}");
    }
    let (_, stderr, status) = run(&env, &[s("-p"), s("src/[z-a]")]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("--path <GLOB>") && stderr.contains("reversed"),
        "{stderr}"
    );
}

#[test]
fn extension_filter() {
    let env = mixed_tree();
    let jpg = &["top.jpg", ".hidden.jpg", "a/one.JPG", "photos/IMG_0001.jpg"];
    env.assert_output(&["-e", "jpg"], jpg);
    env.assert_output(&["-e", "JPG"], jpg);
    env.assert_output(&["-e", ".jpg"], jpg);
    env.assert_output(&["--extension", "jpg"], jpg);
    let jpg_png = &[
        "top.jpg",
        ".hidden.jpg",
        "a/one.JPG",
        "photos/IMG_0001.jpg",
        "a/b/two.png",
        "photos/IMG_0002.png",
    ];
    env.assert_output(&["-e", "jpg", "-e", "png"], jpg_png);
    env.assert_output(&["-e", "jpg,png"], jpg_png);
    env.assert_output(&["-e", "gif"], &[]);
}

#[test]
fn name_glob_and_its_combination_with_extension() {
    let env = mixed_tree();
    env.assert_output(
        &["-n", "IMG_*"],
        &["photos/IMG_0001.jpg", "photos/IMG_0002.png"],
    );
    env.assert_output(
        &["-n", "IMG_000?.*"],
        &["photos/IMG_0001.jpg", "photos/IMG_0002.png"],
    );
    env.assert_output(&["-n", "IMG_*", "-e", "png"], &["photos/IMG_0002.png"]);
    env.assert_output(&["-n", "t??.*"], &["top.jpg", "top.txt", "a/b/two.png"]);
    env.assert_output(&["--name", ".*"], &[".hidden.jpg", ".jpg"]);
    // Case-sensitive; the spelling that finds them is told (issue 41).
    let out = env.run(&["-n", "img_*"]);
    assert_eq!((out.stdout.len(), out.status.code()), (0, Some(0)));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: nothing matched, but -i -n 'img_*' finds 2 files (case differs: -i \
         ignores it)\n"
    );
}

#[test]
fn exclude_skips_files_and_whole_directories() {
    let env = mixed_tree();
    env.assert_output(
        &["-E", "a", "-E", "photos", "-E", ".hidden*"],
        &["top.jpg", "top.txt", ".jpg"],
    );
    env.assert_output(
        &["-E", "*.txt", "-e", "jpg"],
        &["top.jpg", ".hidden.jpg", "a/one.JPG", "photos/IMG_0001.jpg"],
    );
    // A pattern that only names a directory removes its whole subtree.
    env.assert_output(&["--exclude", "b", "-n", "t*"], &["top.jpg", "top.txt"]);
}

/// Arguments as bytes: some are not UTF-8.
fn os_args(args: &[&[u8]]) -> Vec<&'static OsStr> {
    args.iter()
        .map(|a| OsStr::from_bytes(Vec::leak(a.to_vec())))
        .collect()
}

fn lines(expected: &[&[u8]]) -> Vec<Vec<u8>> {
    expected.iter().map(|e| e.to_vec()).collect()
}

/// Asserts pfind prints exactly `expected` (any order), nothing on stderr, status 0.
/// Records end in NUL (`-0`): a name holds a newline.
fn assert_matches(env: &TestEnv, args: &[&[u8]], expected: &[&[u8]]) {
    let args = [args, &[b"-0"]].concat();
    env.assert_records(&os_args(&args), b'\0', &lines(expected));
}

/// Asserts a usage error: status 2, nothing on stdout, and `stderr`'s first line.
fn assert_usage_error_line(env: &TestEnv, args: &[&[u8]], first_line: &str) {
    let out = env.run(&os_args(args));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().next(), Some(first_line), "{args:?}");
}

pub(crate) fn tree() -> TestEnv {
    let env = TestEnv::new(
        &["empty", "src/gen/empty"],
        &[
            "src/main.rs",
            "src/lib.rs",
            "src/gen/out.rs",
            "src/gen/keep.txt",
            "lib/util.rs",
            "lib/src/deep.rs",
            "Makefile",
            "README.md",
            "-n.rs",
            "notes.TXT",
            "123.txt",
            "a\nb.rs",
        ],
    );
    env.write(OsStr::from_bytes(b"bad\xff.rs"), b"");
    env.write(OsStr::from_bytes(b"src/caf\xc3\xa9.rs"), b"");
    env
}

const ALL_RS: &[&[u8]] = &[
    b"src/main.rs",
    b"src/lib.rs",
    b"src/gen/out.rs",
    b"lib/util.rs",
    b"lib/src/deep.rs",
    b"-n.rs",
    b"a\nb.rs",
    b"bad\xff.rs",
    b"src/caf\xc3\xa9.rs",
];

#[test]
fn regex_matches_names_as_fd_does() {
    let env = tree();
    // A suffix (a glob underneath), and the same through the engine: same answer.
    assert_matches(&env, &[b"--regex", br"\.rs$"], ALL_RS);
    assert_matches(&env, &[b"--regex", br"\.(rs|rs)$"], ALL_RS);
    assert_matches(&env, &[b"--regex", br"\.r+s$"], ALL_RS);
    // Unanchored: a literal anywhere in the name; a prefix; a whole name.
    assert_matches(&env, &[b"--regex", b"ake"], &[b"Makefile"]);
    assert_matches(&env, &[b"--regex", b"^M"], &[b"Makefile"]);
    assert_matches(&env, &[b"--regex", b"^Makefile$"], &[b"Makefile"]);
    assert_matches(&env, &[b"--regex", b"^ake"], &[]);
    // Only the name, never the directories above it.
    // No file is named src...: nothing, and the directory src is said (issue 30).
    let out = env.run(&["--regex", "^src"]);
    assert_eq!(out.stdout, b"");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: nothing matched, but a directory did (--regex ^src): add -t d, or -t any\n"
    );
    // What only the engine can do.
    assert_matches(&env, &[b"--regex", br"^\d+\.txt$"], &[b"123.txt"]);
    assert_matches(&env, &[b"--regex", br"^[A-Z]\w+$"], &[b"Makefile"]);
    // An alternation of literals: any of them.
    assert_matches(
        &env,
        &[b"--regex", b"^(Makefile|README.md)$"],
        &[b"Makefile", b"README.md"],
    );
    // Repeated: any of them.
    assert_matches(
        &env,
        &[b"--regex", b"^M", b"--regex", br"^\d"],
        &[b"Makefile", b"123.txt"],
    );
}

#[test]
fn regex_takes_names_as_bytes_and_values_starting_with_a_dash() {
    let env = tree();
    // `.` is a character of valid UTF-8; `(?-u:.)` any byte.
    assert_matches(&env, &[b"--regex", br"^bad.\.rs$"], &[]);
    assert_matches(&env, &[b"--regex", br"(?-u)^bad.\.rs$"], &[b"bad\xff.rs"]);
    assert_matches(&env, &[b"--regex", br"(?-u:\xff)"], &[b"bad\xff.rs"]);
    assert_matches(
        &env,
        &[b"--regex", "é".as_bytes()],
        &[b"src/caf\xc3\xa9.rs"],
    );
    assert_matches(
        &env,
        &[b"--regex", br"^caf.\.rs$"],
        &[b"src/caf\xc3\xa9.rs"],
    );
    // A value that starts with `-` is the pattern, not an option.
    assert_matches(&env, &[b"--regex", b"-n"], &[b"-n.rs"]);
    assert_matches(&env, &[b"--regex", b"^-"], &[b"-n.rs"]);
    // A newline in a name is one more character.
    assert_matches(&env, &[b"--regex", br"a\nb"], &[b"a\nb.rs"]);
}

/// A choice of endings (`\.(jpg|png)$`, and `-n '*.jpg' -n '*.png'`) is matched as
/// word-sized endings: the engine's answer on odd names, case as given.
#[test]
fn a_choice_of_endings_answers_as_the_engine() {
    let env = TestEnv::new(
        &["d"],
        &["x.jpg", ".jpg", "x.JPG", "a.jpg.bak", "jpg", "d/y.png"],
    );
    env.write(OsStr::from_bytes(b"\xff\xfe.png"), b"");
    env.write(OsStr::from_bytes(b"-long name\n.jpg"), b"");
    let want: &[&[u8]] = &[
        b"x.jpg",
        b".jpg",
        b"d/y.png",
        b"\xff\xfe.png",
        b"-long name\n.jpg",
    ];
    assert_matches(&env, &[b"--regex", br"\.(jpg|png)$"], want);
    assert_matches(&env, &[b"-n", b"*.jpg", b"-n", b"*.png"], want);
    // Through the engine (a repetition is no literal form), and as globs with a
    // class (no literal ending): the same answer.
    assert_matches(&env, &[b"--regex", br"\.(jpg|png)$|^x{300}$"], want);
    assert_matches(&env, &[b"-n", b"*.jp[g]", b"-n", b"*.png"], want);
    let mut folded = want.to_vec();
    folded.push(b"x.JPG");
    assert_matches(&env, &[b"-i", b"--regex", br"\.(jpg|png)$"], &folded);
}

#[test]
fn ignore_case_applies_and_case_sensitive_undoes_it() {
    let env = tree();
    assert_matches(
        &env,
        &[b"--regex", br"\.txt$"],
        &[b"123.txt", b"src/gen/keep.txt"],
    );
    let all_txt: &[&[u8]] = &[b"123.txt", b"src/gen/keep.txt", b"notes.TXT"];
    assert_matches(&env, &[b"-i", b"--regex", br"\.txt$"], all_txt);
    assert_matches(&env, &[b"--regex", br"\.txt$", b"--ignore-case"], all_txt);
    // Through the engine too (`s` folds beyond ASCII, so it is not a glob).
    assert_matches(&env, &[b"-i", b"--regex", br"^NOTES"], &[b"notes.TXT"]);
    // The last of -i and --case-sensitive wins.
    let sensitive: &[&[u8]] = &[b"123.txt", b"src/gen/keep.txt"];
    assert_matches(
        &env,
        &[b"-i", b"--regex", br"\.txt$", b"--case-sensitive"],
        sensitive,
    );
    assert_matches(
        &env,
        &[b"--case-sensitive", b"-i", b"--regex", br"\.txt$"],
        all_txt,
    );
    // It applies to globs as well.
    assert_matches(
        &env,
        &[b"-i", b"-n", b"*.TXT", b"--case-sensitive"],
        &[b"notes.TXT"],
    );
}

#[test]
fn path_regex_matches_the_path_below_the_root() {
    let env = tree();
    let src_rs: &[&[u8]] = &[
        b"src/main.rs",
        b"src/lib.rs",
        b"src/gen/out.rs",
        b"src/caf\xc3\xa9.rs",
    ];
    assert_matches(&env, &[b"--path-regex", br"^src/.*\.rs$"], src_rs);
    // The same through the engine and through a glob: `^src/` is a prefix.
    assert_matches(&env, &[b"--path-regex", b"^src/", b"-e", b"rs"], src_rs);
    assert_matches(&env, &[b"--path-regex", b"^s[r]c/", b"-e", b"rs"], src_rs);
    // Unanchored: `src/` anywhere in the path.
    assert_matches(
        &env,
        &[b"--path-regex", b"src/", b"-e", b"rs"],
        &[
            b"src/main.rs",
            b"src/lib.rs",
            b"src/gen/out.rs",
            b"src/caf\xc3\xa9.rs",
            b"lib/src/deep.rs",
        ],
    );
    // The root, however it is typed, is not part of the path.
    for root in [&b"."[..], b"./", b"src", b"src/", b"./src"] {
        let prefix: &[u8] = match root {
            b"." | b"./" => b"./",
            _ => b"",
        };
        let want: Vec<Vec<u8>> = match root {
            b"." | b"./" => vec![[prefix, b"src/gen/out.rs"].concat()],
            b"src" => vec![b"src/gen/out.rs".to_vec()],
            b"src/" => vec![b"src/gen/out.rs".to_vec()],
            _ => vec![b"./src/gen/out.rs".to_vec()],
        };
        let pattern: &[u8] = if root.ends_with(b"src") || root.ends_with(b"src/") {
            br"^gen/out\.rs$"
        } else {
            br"^src/gen/out\.rs$"
        };
        env.assert_records(
            &os_args(&[root, b"--path-regex", pattern, b"-0"]),
            b'\0',
            &want,
        );
    }
    // A root given as a file: its path below itself is its name.
    assert_matches(
        &env,
        &[b"src/main.rs", b"--path-regex", br"^main\.rs$"],
        &[b"src/main.rs"],
    );
    // Directories, empty ones, and the count.
    assert_matches(
        &env,
        &[b"-t", b"d", b"--path-regex", b"^src/gen"],
        &[b"src/gen", b"src/gen/empty"],
    );
    assert_matches(
        &env,
        &[b"-t", b"e", b"-t", b"d", b"--path-regex", b"empty$"],
        &[b"empty", b"src/gen/empty"],
    );
    assert_matches(
        &env,
        &[b"-t", b"e", b"-t", b"d", b"--path-regex", b"/empty$"],
        &[b"src/gen/empty"],
    );
    for threads in THREAD_COUNTS {
        let out = env.run(&["-c", "--path-regex", "^lib/", "-j", threads]);
        assert_eq!(out.stdout, b"2\n");
    }
    // Not UTF-8 below the root.
    assert_matches(
        &env,
        &[b"--path-regex", br"(?-u)^bad\xff"],
        &[b"bad\xff.rs"],
    );
}

#[test]
fn bad_patterns_are_one_line_with_the_position() {
    let env = tree();
    assert_usage_error_line(
        &env,
        &[b"--regex", b"src/(main"],
        "error: invalid value 'src/(main' for '--regex <RE>': unclosed group, at character \
         5: 'src/(' <- here",
    );
    assert_usage_error_line(
        &env,
        &[b"--path-regex", b"a{2,1}"],
        "error: invalid value 'a{2,1}' for '--path-regex <RE>': invalid repetition count \
         range, the start must be <= the end, at character 2: 'a{' <- here",
    );
    assert_usage_error_line(
        &env,
        &[b"--regex", b"\xff"],
        "error: invalid value '\u{fffd}' for '--regex <RE>': the pattern is not valid UTF-8 \
         (write a byte that is not as (?-u:\\xFF))",
    );
}

#[test]
fn a_root_that_reads_as_a_regex_is_pointed_at_regex() {
    let env = tree();
    let out = env.run(&["foo.*"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: foo.*: No such file or directory (roots are directories to search; match \
         names with -n GLOB, or with --regex RE for a regular expression)\n"
    );
    let out = env.run(&["foo"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("match names with -n GLOB"));
}

#[test]
fn regex_and_other_filters_must_all_match() {
    let env = tree();
    assert_matches(&env, &[b"--regex", b"^m", b"-e", b"rs"], &[b"src/main.rs"]);
    assert_matches(&env, &[b"--regex", b"^m", b"-n", b"*.txt"], &[]);
    assert_matches(
        &env,
        &[
            b"--regex",
            br"\.rs$",
            b"-p",
            b"src/**",
            b"--path-regex",
            b"gen",
        ],
        &[b"src/gen/out.rs"],
    );
    for threads in THREAD_COUNTS {
        let out = env.run(&["--regex", r"\.rs$", "-E", "src", "-c", "-j", threads]);
        assert_eq!(out.stdout, b"4\n"); // -E skips lib/src too
    }
}

#[test]
fn and_patterns_all_match_each_of_the_first_patterns_kind() {
    let env = tree();
    // After -n: globs on the name.
    assert_matches(
        &env,
        &[b"-n", b"*.rs", b"--and", b"*a*", b"--and", b"*i*"],
        &[b"src/main.rs"],
    );
    assert_matches(&env, &[b"-n", b"*.rs", b"--and", b"-*"], &[b"-n.rs"]);
    assert_matches(
        &env,
        &[b"-n", b"*.rs", b"--and", b"bad\xff*"],
        &[b"bad\xff.rs"],
    );
    // After -p: globs on the path below the root.
    assert_matches(
        &env,
        &[b"-p", b"src/**", b"--and", b"**/gen/*"],
        &[b"src/gen/out.rs", b"src/gen/keep.txt"],
    );
    // After --regex: regular expressions on the name; after --path-regex, on the path.
    assert_matches(
        &env,
        &[b"--regex", br"\.rs$", b"--and", b"^[lm]"],
        &[b"src/main.rs", b"src/lib.rs"],
    );
    assert_matches(
        &env,
        &[
            b"--path-regex",
            b"^src/",
            b"--and",
            b"gen/",
            b"--and",
            br"\.rs$",
        ],
        &[b"src/gen/out.rs"],
    );
    // The first pattern decides, whatever follows.
    assert_matches(
        &env,
        &[b"--regex", br"\.rs$", b"-n", b"*", b"--and", b"^m"],
        &[b"src/main.rs"],
    );
    assert_matches(
        &env,
        &[b"-n", b"*", b"--regex", br"\.rs$", b"--and", b"m*"],
        &[b"src/main.rs"],
    );
    // -i applies to them too.
    assert_matches(
        &env,
        &[b"-i", b"-n", b"*.txt", b"--and", b"NOTES*"],
        &[b"notes.TXT"],
    );
}

#[test]
fn and_patterns_are_read_as_their_kind() {
    let env = tree();
    assert_usage_error_line(
        &env,
        &[b"--and", b"x"],
        "error: invalid value 'x' for '--and <PATTERN>': --and adds a pattern to the first \
         of -n, -p, --regex or --path-regex, and none was given (e.g. pfind -n '*.rs' --and \
         'test_*')",
    );
    assert_usage_error_line(
        &env,
        &[b"--regex", b"x", b"--and", b"a(b"],
        "error: invalid value 'a(b' for '--and <PATTERN>': unclosed group, at character 2: \
         'a(' <- here",
    );
    // `a(b` is a fine glob.
    assert_matches(&env, &[b"-n", b"x", b"--and", b"a(b"], &[]);
    let out = env.run(&["-n", "*", "--and", "[z-a]"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The tree fd 10.5 was run on by hand to check what `--exclude` and
/// `--ignore-contain` skip.
fn exclude_tree() -> TestEnv {
    let env = TestEnv::new(
        &["y/build2", "empty"],
        &[
            "a/CACHEDIR.TAG",
            "a/b/f",
            "a/g",
            "c/h",
            "src/gen/x.rs",
            "src/m.rs",
            "target/t",
            "x/target/t2",
            "build/b1",
            "y/build/b2",
            "y/buildfile",
            "y/build2/q",
            "-d/build/-f",
        ],
    );
    env.write(OsStr::from_bytes(b"\xff/target/z"), b"");
    env.write(OsStr::from_bytes(b"\xff/.nobackup"), b"");
    env
}

/// Every file of [`exclude_tree`] but those under the named prefixes.
fn files_but(skipped: &[&[u8]]) -> Vec<&'static [u8]> {
    let all: [&'static [u8]; 15] = [
        b"a/CACHEDIR.TAG",
        b"a/b/f",
        b"a/g",
        b"c/h",
        b"src/gen/x.rs",
        b"src/m.rs",
        b"target/t",
        b"x/target/t2",
        b"build/b1",
        b"y/build/b2",
        b"y/buildfile",
        b"y/build2/q",
        b"-d/build/-f",
        b"\xff/target/z",
        b"\xff/.nobackup",
    ];
    (all.into_iter())
        .filter(|path| !skipped.iter().any(|skip| path.starts_with(skip)))
        .collect()
}

#[test]
fn an_exclude_with_a_slash_names_a_path_below_the_root() {
    let env = exclude_tree();
    // Anchored at the root by a leading `/`: the top `target` only.
    assert_matches(&env, &[b"-E", b"/target"], &files_but(&[b"target/"]));
    // A name (no `/`) still skips every `target`.
    assert_matches(
        &env,
        &[b"-E", b"target"],
        &files_but(&[b"target/", b"x/target/", b"\xff/target/"]),
    );
    // Anchored by a `/` inside it; `**` below.
    assert_matches(&env, &[b"-E", b"src/gen"], &files_but(&[b"src/gen/"]));
    assert_matches(&env, &[b"-E", b"src/gen/**"], &files_but(&[b"src/gen/"]));
    assert_matches(
        &env,
        &[b"-t", b"d", b"-E", b"src/gen/**", b"-p", b"src/**"],
        &[b"src/gen"],
    );
    // Nothing: and since files below src matched -p, pfind says so (issue 30).
    let out = env.run(&["-t", "d", "-E", "src/gen", "-p", "src/**"]);
    assert_eq!(out.stdout, b"");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: nothing matched, but a regular file did (-p 'src/**'): add -t f, or -t any\n"
    );
    // A trailing `/`: directories only, at any depth; not the file `buildfile`.
    assert_matches(
        &env,
        &[b"-E", b"build/"],
        &files_but(&[b"build/", b"y/build/", b"-d/build/"]),
    );
    assert_matches(&env, &[b"-E", b"buildfile/"], &files_but(&[]));
    assert_matches(
        &env,
        &[b"-E", b"y/buildfile"],
        &files_but(&[b"y/buildfile"]),
    );
    // `*` does not cross a `/`; names that are not UTF-8 or start with `-`.
    assert_matches(
        &env,
        &[b"-E", b"*/target"],
        &files_but(&[b"x/target/", b"\xff/target/"]),
    );
    assert_matches(&env, &[b"-E", b"\xff/*"], &files_but(&[b"\xff/"]));
    assert_matches(&env, &[b"-E", b"/-d/build/"], &files_but(&[b"-d/build/"]));
    // In a list, with -i, and relative to each root however it is typed.
    assert_matches(
        &env,
        &[b"-E", b"/TARGET,C/", b"-i"],
        &files_but(&[b"target/", b"c/"]),
    );
    env.assert_records(
        &os_args(&[b"y/", b"-E", b"/build", b"-0"]),
        b'\0',
        &lines(&[b"y/buildfile", b"y/build2/q"]),
    );
    env.assert_records(
        &os_args(&[b"./y", b"-E", b"/build/", b"-0"]),
        b'\0',
        &lines(&[b"./y/buildfile", b"./y/build2/q"]),
    );
    // Never the root itself, nor a root given as a file.
    env.assert_records(
        &os_args(&[b"y/buildfile", b"-E", b"/buildfile", b"-0"]),
        b'\0',
        &lines(&[b"y/buildfile"]),
    );
    // A `/` alone names nothing below the root: refused.
    assert_usage_error_line(
        &env,
        &[b"-E", b"/"],
        "error: invalid value '/' for '--exclude <GLOB>': names no path below the root (a \
         '/' alone is the root, which -E never skips)",
    );
    // Counting takes the slow path.
    for threads in THREAD_COUNTS {
        let out = env.run(&["-c", "-E", "/target", "-j", threads]);
        assert_eq!(
            out.stdout,
            format!("{}\n", files_but(&[b"target/"]).len()).as_bytes()
        );
    }
}

#[test]
fn ignore_contain_skips_a_directory_holding_the_name() {
    let env = exclude_tree();
    assert_matches(
        &env,
        &[b"--ignore-contain", b"CACHEDIR.TAG"],
        &files_but(&[b"a/"]),
    );
    // Not printed as a directory either; several names: any of them.
    assert_matches(
        &env,
        &[
            b"-t",
            b"d",
            b"--ignore-contain",
            b"CACHEDIR.TAG",
            b"--ignore-contain",
            b".nobackup",
            b"-d",
            b"1",
        ],
        &[
            b"build", b"c", b"src", b"target", b"x", b"y", b"-d", b"empty",
        ],
    );
    // A name that is a directory, one not UTF-8, one starting with `-`.
    assert_matches(&env, &[b"--ignore-contain", b"gen"], &files_but(&[b"src/"]));
    assert_matches(
        &env,
        &[b"--ignore-contain", b"z"],
        &files_but(&[b"\xff/target/"]),
    );
    assert_matches(
        &env,
        &[b"--ignore-contain", b"-f"],
        &files_but(&[b"-d/build/"]),
    );
    // A root that holds it is not walked, as with fd.
    env.assert_records(
        &os_args(&[b"a", b"--ignore-contain", b"CACHEDIR.TAG", b"-0"]),
        b'\0',
        &[],
    );
    // An empty name is refused.
    let out = env.run(&["--ignore-contain", ""]);
    assert_eq!(out.status.code(), Some(2));
    for threads in THREAD_COUNTS {
        let out = env.run(&["-c", "--ignore-contain", "CACHEDIR.TAG", "-j", threads]);
        assert_eq!(
            out.stdout,
            format!("{}\n", files_but(&[b"a/"]).len()).as_bytes()
        );
    }
}

/// `-a` and `--strip-cwd-prefix` change what is printed, never the path below the
/// root that `--path-regex` and `-E /...` see.
#[test]
fn path_patterns_see_the_same_path_whatever_is_printed() {
    let env = tree();
    let root = env.root().as_os_str().as_bytes().to_vec();
    let absolute = |path: &[u8]| [&root[..], b"/", path].concat();
    env.assert_records(
        &os_args(&[b"-a", b"--path-regex", br"^src/gen/out\.rs$", b"-0"]),
        b'\0',
        &[absolute(b"src/gen/out.rs")],
    );
    env.assert_records(
        &os_args(&[b"-a", b"-E", b"/src", b"-E", b"/lib", b"-e", b"txt", b"-0"]),
        b'\0',
        &[absolute(b"123.txt"), absolute(b"notes.TXT")],
    );
    assert_matches(
        &env,
        &[b".", b"--strip-cwd-prefix", b"--path-regex", b"^src/gen/"],
        &[b"src/gen/out.rs", b"src/gen/keep.txt"],
    );
}

/// Folding case can grow a regular expression past the engine's limit: a usage
/// error naming the pattern, never a panic when it is compiled.
#[test]
fn a_regex_too_large_with_ignore_case_is_a_usage_error() {
    let env = TestEnv::new(&[], &["a"]);
    let big = "(?:[a-z]{60000})";
    assert_eq!(env.run(&["--regex", big]).status.code(), Some(0));
    for args in [
        &["--regex", big, "-i"][..],
        &["-i", "--path-regex", big],
        &["--regex", "a", "--and", big, "-i"],
    ] {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: invalid value '(?:[a-z]{60000})'")
                && stderr.contains("exceed")
                && stderr.contains("(with -i)"),
            "{args:?}: {stderr}"
        );
    }
}

/// Issue 20, defect 5: `-E` is never applied to a root (README), but a root that is a
/// file, or a link taken as itself, was dropped when its name matched. A directory
/// root was always walked; entries below any root are still excluded.
#[test]
fn exclude_never_drops_a_root() {
    let env = TestEnv::new(&["dir/sub"], &["dir/f1", "dir/sub/f1", "dir/f2"]);
    env.symlink("dir/f2", "lnk");
    env.symlink("dir", "dirlink");
    let cases: &[(&[&str], &[&str])] = &[
        (&["dir/f1", "-E", "f1"], &["dir/f1"]),
        (&["dir/f1", "-E", "f*", "-n", "f1"], &["dir/f1"]),
        (&["lnk", "-t", "l", "-E", "lnk"], &["lnk"]),
        (&["-L", "lnk", "-E", "lnk"], &["lnk"]),
        (&["dir", "-E", "dir"], &["dir/f1", "dir/f2", "dir/sub/f1"]),
        (&["dir", "-E", "f1"], &["dir/f2"]),
        (&["dir", "dir/f1", "-E", "f1"], &["dir/f2", "dir/f1"]),
        (
            &["-L", "dirlink", "-E", "dirlink"],
            &["dirlink/f1", "dirlink/f2", "dirlink/sub/f1"],
        ),
        (&["dir/sub", "-t", "d", "-E", "sub"], &[]),
    ];
    for &(args, want) in cases {
        for threads in THREAD_COUNTS {
            let out = env.run(&[args, &["-j", threads]].concat());
            assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let want: Vec<Vec<u8>> = want.iter().map(|s| s.as_bytes().to_vec()).collect();
            assert_same_records(
                &format!("{args:?} -j {threads}"),
                &split_records(&out.stdout, b'\n'),
                &want,
            );
        }
    }
}

#[test]
fn names_repeat_and_excludes_take_lists() {
    let env = source_tree();
    // -n is repeatable: any of the globs.
    assert_run(
        &env,
        &["-n", "*.rs", "-n", "Makefile"],
        &[
            "src/main.rs",
            "src/lib.rs",
            "target/debug/out.rs",
            "Makefile",
        ],
        "",
        0,
    );
    // -E takes a comma list, as -e does (the issue's `-E target,.git`).
    assert_run(
        &env,
        &["-E", "target,.git", "-E", "src"],
        &["Makefile", "README.md", "a,b", "photo.jpg"],
        "",
        0,
    );
    // A comma that belongs to a glob is escaped; inside a set it needs nothing.
    assert_run(&env, &["-n", "a,b"], &["a,b"], "", 0);
    assert_run(
        &env,
        &["-E", "a\\,b,*.rs,.git,*.md", "-t", "f"],
        &["Makefile", "photo.jpg"],
        "",
        0,
    );
    assert_run(
        &env,
        &["-E", "[,]*,a[,]*,*.md,*.rs,.git"],
        &["Makefile", "photo.jpg"],
        "",
        0,
    );
    assert_run(
        &env,
        &["-E", "a,,b"],
        &[],
        "error: invalid value 'a,,b' for '--exclude <GLOB>': a list of globs has an empty \
         one (write a comma in a glob as \\,)\n\nFor more information, try '--help'.\n",
        2,
    );
    // -e: the same escape for a comma in an extension.
    let env = TestEnv::new(&[], &["x.a,b", "y.a", "z.b"]);
    assert_run(&env, &["-e", "a\\,b"], &["x.a,b"], "", 0);
    assert_run(&env, &["-e", "a,b"], &["y.a", "z.b"], "", 0);
}
