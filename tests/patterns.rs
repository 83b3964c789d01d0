//! The patterns fd users write (issue 27): `--regex`, `--path-regex`, `--and`, through
//! the real binary on trees built here, at 1, 2 and 16 threads, with names that are
//! not UTF-8 and names that start with `-`.

mod testenv;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use testenv::{TestEnv, THREAD_COUNTS};

/// Arguments as bytes: some are not UTF-8.
fn os(args: &[&[u8]]) -> Vec<&'static OsStr> {
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
    env.assert_records(&os(&args), b'\0', &lines(expected));
}

/// Asserts a usage error: status 2, nothing on stdout, and `stderr`'s first line.
fn assert_usage_error(env: &TestEnv, args: &[&[u8]], first_line: &str) {
    let out = env.run(&os(args));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().next(), Some(first_line), "{args:?}");
}

fn tree() -> TestEnv {
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
        env.assert_records(&os(&[root, b"--path-regex", pattern, b"-0"]), b'\0', &want);
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
    assert_usage_error(
        &env,
        &[b"--regex", b"src/(main"],
        "error: invalid value 'src/(main' for '--regex <RE>': unclosed group, at character \
         5: 'src/(' <- here",
    );
    assert_usage_error(
        &env,
        &[b"--path-regex", b"a{2,1}"],
        "error: invalid value 'a{2,1}' for '--path-regex <RE>': invalid repetition count \
         range, the start must be <= the end, at character 2: 'a{' <- here",
    );
    assert_usage_error(
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
    assert_usage_error(
        &env,
        &[b"--and", b"x"],
        "error: invalid value 'x' for '--and <PATTERN>': --and adds a pattern to the first \
         of -n, -p, --regex or --path-regex, and none was given (e.g. pfind -n '*.rs' --and \
         'test_*')",
    );
    assert_usage_error(
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
        &os(&[b"y/", b"-E", b"/build", b"-0"]),
        b'\0',
        &lines(&[b"y/buildfile", b"y/build2/q"]),
    );
    env.assert_records(
        &os(&[b"./y", b"-E", b"/build/", b"-0"]),
        b'\0',
        &lines(&[b"./y/buildfile", b"./y/build2/q"]),
    );
    // Never the root itself, nor a root given as a file.
    env.assert_records(
        &os(&[b"y/buildfile", b"-E", b"/buildfile", b"-0"]),
        b'\0',
        &lines(&[b"y/buildfile"]),
    );
    // A `/` alone names nothing below the root: refused.
    assert_usage_error(
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
        &os(&[b"a", b"--ignore-contain", b"CACHEDIR.TAG", b"-0"]),
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

/// Every option of issue 27 is in `--help`, the completions and the manual.
#[test]
fn new_options_are_in_help_completions_and_the_manual() {
    let env = TestEnv::new(&[], &[]);
    let options = [
        "--regex",
        "--path-regex",
        "--and",
        "--case-sensitive",
        "--ignore-contain",
        "--exec-dir",
        "--batch-size",
        "--path-separator",
    ];
    // `-h` shows a newcomer's selection (tests/cli.rs); --help shows them all.
    for what in [
        &["--help"][..],
        &["--generate", "bash"],
        &["--generate", "zsh"],
        &["--generate", "fish"],
        &["--generate", "man"],
    ] {
        let out = env.run(what);
        assert_eq!(out.status.code(), Some(0), "{what:?}");
        // The manual escapes its dashes; fish names long options without them.
        let text = String::from_utf8_lossy(&out.stdout).replace("\\-", "-");
        for option in options {
            let fish = format!("-l {}", &option[2..]);
            assert!(
                text.contains(option) || text.contains(&fish),
                "{option} is not in {what:?}"
            );
        }
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
        &os(&[b"-a", b"--path-regex", br"^src/gen/out\.rs$", b"-0"]),
        b'\0',
        &[absolute(b"src/gen/out.rs")],
    );
    env.assert_records(
        &os(&[b"-a", b"-E", b"/src", b"-E", b"/lib", b"-e", b"txt", b"-0"]),
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
