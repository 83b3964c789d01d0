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

fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// Runs pfind with `args` and returns (stdout, stderr, status).
fn run(env: &TestEnv, args: &[&OsStr]) -> (Vec<u8>, String, Option<i32>) {
    let out = env.run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.stdout, stderr, out.status.code())
}

/// Asserts that pfind with `args` exits 2 with a clap usage error that mentions each
/// of `mentions`, and prints nothing.
fn assert_usage_error(env: &TestEnv, args: &[&OsStr], mentions: &[&str]) {
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

fn s(text: &str) -> &OsStr {
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
