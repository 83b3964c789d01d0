//! What people arriving from find and fd type in their first minutes (issue 18),
//! through the real binary: every warning and every refusal, with its exact message
//! and exit status, and the spellings that must keep working.

use crate::testenv;
use crate::testenv::TestEnv;

/// Runs pfind in `env` at every thread count and checks that each run printed the
/// `stdout` lines (in any order), exactly `stderr`, and exited with `status`.
pub(crate) fn assert_run(env: &TestEnv, args: &[&str], stdout: &[&str], stderr: &str, status: i32) {
    for threads in testenv::THREAD_COUNTS {
        // `-j` first: anything after a `--` in `args` is a root.
        let full = [&["-j", threads], args].concat();
        let out = env.run(&full);
        let shown = format!("pfind {full:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            stderr,
            "{shown}: stderr"
        );
        assert_eq!(out.status.code(), Some(status), "{shown}: status");
        let mut lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
        lines.sort_unstable();
        let mut want = stdout.to_vec();
        want.sort_unstable();
        assert_eq!(lines, want, "{shown}: stdout");
    }
}

pub(crate) fn source_tree() -> TestEnv {
    TestEnv::new(
        &["src", "target/debug", ".git"],
        &[
            "src/main.rs",
            "src/lib.rs",
            "Makefile",
            "README.md",
            "a,b",
            "photo.jpg",
            "target/debug/out.rs",
            ".git/config",
        ],
    )
}

#[test]
fn patterns_that_cannot_be_what_was_meant_are_warned_about_and_run() {
    let env = source_tree();
    let warning = |text: &str| format!("pfind: warning: {text}\n");
    // An empty glob, as from an unset variable: no name is empty.
    assert_run(
        &env,
        &["-n", ""],
        &[],
        &warning("-n '' is empty, which no file name is, so it matches nothing"),
        0,
    );
    assert_run(
        &env,
        &["-E", "", "-e", "rs"],
        &["src/main.rs", "src/lib.rs", "target/debug/out.rs"],
        &warning("-E '' is empty, which no file name is, so it excludes nothing"),
        0,
    );
    // Issue 28, item 8: an empty -p was said to start or end with '/'.
    assert_run(
        &env,
        &["-p", ""],
        &[],
        &warning("-p '' is empty, which no path below a root is, so it matches nothing"),
        0,
    );
    // A regular expression typed as a glob: nothing ends in "rs$".
    assert_run(
        &env,
        &["-n", ".*\\.rs$"],
        &[],
        &(warning(
            "-n '.*\\.rs$' looks like a regular expression, but -n takes a glob, as find \
             -name does: perhaps -n '*.rs', or --regex '.*\\.rs$'",
        ) + &warning(
            "nothing matched, but -n '*.rs' finds 3 files (-n takes a glob, not a regular \
             expression)",
        )),
        0,
    );
    assert_run(
        &env,
        &["-n", "^Make"],
        &[],
        &(warning(
            "-n '^Make' looks like a regular expression, but -n takes a glob, as find -name \
             does: perhaps -n 'Make*', or --regex '^Make'",
        ) + &warning(
            "nothing matched, but -n 'Make*' finds 1 file (-n takes a glob, not a regular \
             expression)",
        )),
        0,
    );
    assert_run(
        &env,
        &["-E", "^(src|target)$", "-e", "rs"],
        &["src/main.rs", "src/lib.rs", "target/debug/out.rs"],
        &warning(
            "-E '^(src|target)$' looks like a regular expression, but -E takes a glob, as \
             find -name does",
        ),
        0,
    );
    // An extension typed as a glob: no name ends in ".*.rs".
    assert_run(
        &env,
        &["-e", "*.rs"],
        &[],
        &(warning("-e '*.rs' contains '*', but -e takes an extension, not a glob: perhaps -e rs")
            + &warning(
                "nothing matched, but -e rs finds 3 files (-e takes an extension, not a glob)",
            )),
        0,
    );
    assert_run(
        &env,
        &["-e", "jp?"],
        &[],
        &(warning(
            "-e 'jp?' contains '?', but -e takes an extension, not a glob: perhaps -n '*.jp?'",
        ) + &warning(
            "nothing matched, but -n '*.jp?' finds 1 file (-e takes an extension; -n a glob)",
        )),
        0,
    );
    assert_run(
        &env,
        &["-e", "src/rs"],
        &[],
        &warning("-e 'src/rs' contains '/', which no file name does, so it matches nothing"),
        0,
    );
    // A name regex every match of which holds a '/': --regex and the --and after it.
    assert_run(
        &env,
        &[
            "--regex",
            "src/.*\\.rs$",
            "--regex",
            "README",
            "--and",
            "(a|b)/",
        ],
        &[],
        &[
            warning(
                "--regex 'src/.*\\.rs$' contains '/', which no file name does, so it matches \
                 nothing (--regex tests names, not paths: --path-regex RE tests the path below \
                 the root)",
            ),
            warning(
                "--and '(a|b)/' contains '/', which no file name does, so it matches nothing \
                 (--and tests names, not paths: --path-regex RE tests the path below the root)",
            ),
        ]
        .concat(),
        0,
    );
    // A pattern only hidden names match, with --no-hidden (or -G): said, and run.
    env.write(".hidden.md", b"");
    let only_hidden = |option: &str, pattern: &str| {
        warning(&format!(
            "{option} '{pattern}' matches only names starting with '.', which --no-hidden \
             (or -G) leaves out, so it matches nothing: add -H to keep them"
        ))
    };
    assert_run(
        &env,
        &["--no-hidden", "--regex", "^\\.hid", "-n", "{.h*,.x}"],
        &[],
        &[
            only_hidden("-n", "{.h*,.x}"),
            only_hidden("--regex", "^\\.hid"),
        ]
        .concat(),
        0,
    );
    let hidden_kept = ["--no-hidden", "-H", "--regex", "^\\.hid"];
    assert_run(&env, &hidden_kept, &[".hidden.md"], "", 0);
    assert_run(&env, &["--no-hidden", "-n", "[.]hid*"], &[], "", 0);
    std::fs::remove_file(env.root().join(".hidden.md")).unwrap();
    // One that can match a name without one is left alone.
    assert_run(
        &env,
        &["--regex", "^[^/]*\\.md$|a/b"],
        &["README.md"],
        "",
        0,
    );
    // One warning per value, in the order of the options.
    assert_run(
        &env,
        &["-n", "^x", "-n", "a/b", "-n", "*.md"],
        &["README.md"],
        &[
            warning(
                "-n '^x' looks like a regular expression, but -n takes a glob, as find -name \
                 does: perhaps -n 'x*', or --regex '^x'",
            ),
            warning(
                "-n 'a/b' contains '/', which no file name does, so it matches nothing (-n \
                 tests names, not paths: -p GLOB tests the path below the root)",
            ),
        ]
        .concat(),
        0,
    );
    // Globs that only look like one are left alone (`-t any`: `.*` matches only a
    // hidden directory here, which would be worth a warning of its own).
    for glob in [".*", "*.r?", "README.*", "[^.]*"] {
        let out = env.run(&["-n", glob, "-t", "any"]);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "-n {glob}");
        assert_eq!(out.status.code(), Some(0));
    }
}

/// Asserts that pfind refuses `args` with exactly `message` (after `pfind: `),
/// status 2, printing nothing on stdout.
fn assert_refused(env: &TestEnv, args: &[&str], message: &str) {
    assert_run(env, args, &[], &format!("pfind: {message}\n"), 2);
}

#[test]
fn find_options_are_refused_with_the_pfind_spelling() {
    let env = source_tree();
    for (args, message) in [
        // The cases: each was misread, silently or with wrong advice.
        (
            &["-name", "foo"][..],
            "'-name' is find's option: use -n GLOB (e.g. pfind . -n '*.rs')",
        ),
        (
            &[".", "-name", "*.rs"],
            "'-name' is find's option: use -n GLOB (e.g. pfind . -n '*.rs')",
        ),
        (
            &["-type", "f"],
            "'-type' is find's option: use -t TYPE: f, d, l, s, p, c or b (e.g. pfind . -t d)",
        ),
        (
            &["-maxdepth", "1"],
            "'-maxdepth' is find's option: use -d N (e.g. pfind . -d 1: a root's children \
             are at depth 1, as in find)",
        ),
        (
            &["-iname", "*.JPG"],
            "'-iname' is find's option: use -i -n GLOB (e.g. pfind . -i -n '*.jpg')",
        ),
        (
            &["src", "-path", "*/lib.rs"],
            "'-path' is find's option: use -p GLOB, which matches the path below the root; \
             its * stays within one directory and ** is any depth (e.g. pfind . -p \
             '**/*.rs', pfind . -p 'src/**')",
        ),
        (
            &["-size", "+1M"],
            "'-size' is find's option: use -S SIZE, in bytes or with a unit (e.g. pfind . \
             -S +10mi: 10 MiB or more)",
        ),
        (
            &["-mtime", "-1"],
            "'-mtime' is find's option: use --changed-within or --changed-before (e.g. \
             pfind . --changed-within 2d)",
        ),
        (
            &["-mmin", "-5"],
            "'-mmin' is find's option: use --changed-within or --changed-before (e.g. pfind \
             . --changed-within 30min)",
        ),
        (
            &["-newer", "Makefile"],
            "'-newer' is find's option: use --newer FILE (e.g. pfind . --newer build.stamp)",
        ),
        (
            &["-user", "root"],
            "'-user' is find's option: use --owner USER (e.g. pfind . --owner alice)",
        ),
        (
            &["-group", "root"],
            "'-group' is find's option: use --owner :GROUP (e.g. pfind . --owner :staff)",
        ),
        (
            &["-mindepth", "2"],
            "'-mindepth' is find's option: use --min-depth N",
        ),
        (
            &["-empty"],
            "'-empty' is find's option: use -t e (e.g. pfind . -t e -t f: empty files)",
        ),
        (&["-executable"], "'-executable' is find's option: use -t x"),
        (
            &["-print0"],
            "'-print0' is find's option: use -0 (e.g. pfind . -0 | xargs -0 ls -l)",
        ),
        (
            &["-exec", "rm", "{}", ";"],
            "'-exec' is find's option: use --exec CMD ARGS... ';' (e.g. pfind . -e log \
             --exec gzip {} ';')",
        ),
        (
            &["-exec", "ls", "-l", "{}", "+"],
            "'-exec' is find's option: use -X CMD ARGS... + (as many matches per command as \
             fit; e.g. pfind . -e tmp -X rm +)",
        ),
        (
            &["-execdir", "echo", "{}", ";"],
            "'-execdir' is find's option: use --exec-dir CMD ARGS... ';' (runs in the \
             match's directory on ./NAME; e.g. pfind . -n '*.tar' --exec-dir tar xf {} ';')",
        ),
        (
            &["-delete"],
            "'-delete' is find's option: pfind deletes nothing: pipe the matches to rm: \
             pfind ... -0 | xargs -0 rm --",
        ),
        (
            &["-quit"],
            "'-quit' is find's option: use -1 (stop after the first match) or \
             --max-results N",
        ),
        (
            &["-prune"],
            "'-prune' is find's option: use -E GLOB to skip directories by name, or --prune \
             with -t d to stop below every directory that matched",
        ),
        (
            &["-o"],
            "'-o' is find's OR, or fd's short --owner: pfind has no operators: different \
             options must all match, and a repeated -n, -e or -t is any of them (pfind -n \
             '*.rs' -n Makefile); for the owner, write --owner USER:GROUP",
        ),
        (
            &["-not", "-name", "x"],
            "'-not' is find's option: pfind has no operators: -E GLOB skips what matches, \
             --owner '!USER' every owner but one",
        ),
        (
            &["-P", "."],
            "'-P' is find's option: pfind follows no links unless -L, as find -P; leave it out",
        ),
    ] {
        assert_refused(&env, args, message);
    }
}

#[test]
fn fd_options_are_refused_with_the_pfind_spelling() {
    let env = source_tree();
    for (args, message) in [
        (
            &["--no-global-ignore-file"][..],
            "'--no-global-ignore-file' is fd's option: pfind reads core.excludesFile with \
             --ignore as git does; use --ignore-file or --no-ignore-vcs for other rules",
        ),
        (
            &["--glob", "*.rs"],
            "'--glob' is fd's option: pfind's patterns are globs already: use -n GLOB for \
             names, -p GLOB for paths below the root",
        ),
        (
            &["-g", "*.rs"],
            "'-g' is fd's option: pfind's patterns are globs already: use -n GLOB for names, \
             -p GLOB for paths below the root",
        ),
        (
            &["-F", "main"],
            "'-F' is fd's option: for names that contain TEXT, use -n '*TEXT*'",
        ),
        (
            &["--fixed-strings", "main"],
            "'--fixed-strings' is fd's option: for names that contain TEXT, use -n '*TEXT*'",
        ),
        (
            &["--list-details"],
            "'--list-details' is fd's option: use -l for sizes, or --format '{mode} {owner} \
             {group} {size} {mtime} {}'",
        ),
        (
            &["--older", "1d"],
            "'--older' is fd's option: use --changed-before WHEN",
        ),
        // fd's -x CMD (pfind's -x is one file system): exec.rs, which checks the
        // command line it suggests.
    ] {
        assert_refused(&env, args, message);
    }
    // fd's options that pfind has too work as fd users expect.
    assert_run(&env, &["--type", "f", "-e", "md"], &["README.md"], "", 0);
    // fd's --full-path: a regex searched in the path (below the root), as fd's is
    // (issue 41: it was -p's glob, and `--full-path 'src/.*rs'` found nothing).
    assert_run(
        &env,
        &["--full-path", "src/.*rs"],
        &["src/main.rs", "src/lib.rs"],
        "",
        0,
    );
    assert_run(
        &env,
        &["--full-path", "^src/.*\\.rs$", "--and", "main"],
        &["src/main.rs"],
        "",
        0,
    );
    // A glob, which --full-path took before, is told about -p.
    let out = env.run(&["--full-path", "*.rs"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("(--full-path takes a regular expression, as fd's does; for a glob of the path below the root, use -p '*.rs')"),
        "{said}"
    );
    // A date given to --newer, which takes a FILE, is pointed at --changed-within.
    assert_run(
        &env,
        &["--newer", "2024-01-01"],
        &[],
        "error: invalid value '2024-01-01' for '--newer <FILE>': No such file or directory \
         (--newer takes a FILE whose time to compare with; for a date or a duration, use \
         --changed-within 2024-01-01 or --changed-before 2024-01-01)\n\n\
         For more information, try '--help'.\n",
        2,
    );
    assert_run(
        &env,
        &["--newer", "1d"],
        &[],
        "error: invalid value '1d' for '--newer <FILE>': No such file or directory (--newer \
         takes a FILE whose time to compare with; for a date or a duration, use \
         --changed-within 1d or --changed-before 1d)\n\n\
         For more information, try '--help'.\n",
        2,
    );
    assert_run(
        &env,
        &["--newer", "nosuchfile"],
        &[],
        "error: invalid value 'nosuchfile' for '--newer <FILE>': No such file or \
         directory\n\nFor more information, try '--help'.\n",
        2,
    );
}

#[test]
fn what_pfind_means_still_works() {
    let env = source_tree();
    env.write("-name/-name", b"");
    // Clusters of pfind's flags.
    for args in [
        &["-0l"][..],
        &["-ic"],
        &["-ax"],
        &["-1a"],
        &["-Lx", "-e", "rs"],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
    // After `--`, nothing is inspected: a root named like find's option.
    assert_run(&env, &["--", "-name"], &["-name/-name"], "", 0);
    // A glob that starts with a dash is -n's value, not find's -name.
    assert_run(&env, &["-n", "-name"], &["-name/-name"], "", 0);
    assert_run(&env, &["-t", "d", "-n", "-name"], &["-name"], "", 0);
    // -x before a directory is one file system, as ever; before a missing word that
    // is no command, the root is missing.
    assert_run(&env, &["-x", "src"], &["src/main.rs", "src/lib.rs"], "", 0);
    assert_run(
        &env,
        &["-x", "nosuchcommand"],
        &[],
        "pfind: nosuchcommand: No such file or directory (roots are directories to \
         search; match names with -n GLOB: pfind -n '*nosuchcommand*')\n",
        1,
    );
    // What clap knows better still comes from clap: a typo gets its suggestion.
    let out = env.run(&["--extention", "rs"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: unexpected argument '--extention' found")
            && stderr.contains("'--extension'"),
        "{stderr}"
    );
}

/// Issue 30: fd habits that gave a silent empty result, or a hint that scrolled
/// away, are answered: `PATTERN DIR` is refused before the walk with the pfind
/// spelling as the only output; a `-p` regex is warned about as `-n`'s is; and
/// brace alternatives, which fd's globs take, match what either alternative does.
#[test]
fn fd_habits_are_answered_rather_than_met_with_silence() {
    let env = source_tree();
    assert_refused(
        &env,
        &["main", "src"],
        "'main' is not a directory, but 'src' is: unlike fd, pfind takes no \
         PATTERN before its directories (every word is a directory to search); to match \
         names, type: pfind src -n '*main*'",
    );
    assert_refused(
        &env,
        &["*.rs", "src", "target"],
        "'*.rs' is not a directory, but 'src' is: unlike fd, pfind takes no \
         PATTERN before its directories (every word is a directory to search); to match \
         names, type: pfind src target -n '*.rs'",
    );
    // Roots are relative to -C's directory.
    assert_refused(
        &env,
        &["-C", "target", "out", "debug"],
        "'out' is not a directory, but 'debug' is: unlike fd, pfind takes no \
         PATTERN before its directories (every word is a directory to search); to match \
         names, type: pfind debug -n '*out*'",
    );
    // Two missing roots, or a missing one after one that exists: reported as before.
    let out = env.run(&["src", "nothing"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout.len(), "src/main.rs\nsrc/lib.rs\n".len());
    assert_run(
        &env,
        &["-p", "src/.*\\.rs$"],
        &[],
        "pfind: warning: -p 'src/.*\\.rs$' looks like a regular expression, but -p takes \
         a glob of the path below the root, as in 'src/**/*.rs'; for a regular expression, \
         use --full-path 'src/.*\\.rs$', as in fd\n",
        0,
    );
    assert_run(
        &env,
        &["-n", "*.{rs,md}"],
        &[
            "src/main.rs",
            "src/lib.rs",
            "README.md",
            "target/debug/out.rs",
        ],
        "",
        0,
    );
    assert_run(
        &env,
        &["-E", "*.{rs,md},.git", "-E", "{photo,Makefile}*"],
        &["a,b"],
        "",
        0,
    );
    let out = env.run(&["-p", "{src,target/*}/{main,out}.rs"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("a brace group holds '/'"), "{said}");
    assert_eq!((out.status.code(), out.stdout.len()), (Some(2), 0));
    assert_run(
        &env,
        &["-p", "{src,target}/**/{main,out}.{rs,c}"],
        &["src/main.rs", "target/debug/out.rs"],
        "",
        0,
    );
    // Escaped, or around no comma, braces are characters, as in find -name.
    env.write("{a,b}", b"");
    env.write("{x}", b"");
    assert_run(
        &env,
        &["-n", "\\{a,b\\}", "-n", "{x}"],
        &["{a,b}", "{x}"],
        "",
        0,
    );
}

/// Runs `line` through `sh` in `env`'s root, with `pfind` the binary under test, so
/// that the shell expands what it would for a person typing it.
fn through_shell(env: &TestEnv, line: &str) -> std::process::Output {
    let line = line.replacen("pfind", env!("CARGO_BIN_EXE_pfind"), 1);
    std::process::Command::new("sh")
        .args(["-c", &line])
        .current_dir(env.root())
        .env_remove("PFIND_OPTIONS")
        .output()
        .unwrap()
}

/// Issue 41: an unquoted glob the shell expanded into several names here made the
/// names after the first roots, files searched for the first name: nothing printed,
/// status 0. It is refused with the command to type, the pattern quoted.
#[test]
fn a_pattern_the_shell_expanded_is_refused_with_the_quoted_command() {
    let env = TestEnv::new(
        &["docs", "src"],
        &["a.md", "b.md", "c.md", "docs/d.md", "src/x.rs", "src/y.rs"],
    );
    let cases: &[(&str, &str)] = &[
        (
            "pfind -n *.md",
            "pfind: -n a.md is followed by b.md and c.md, which are files, not directories: \
             the shell expanded an unquoted pattern into these names, which pfind would \
             search as roots; quote the pattern: pfind -n '*.md'\n",
        ),
        (
            "pfind -e *.md",
            "pfind: -e a.md is followed by b.md and c.md, which are files, not directories: \
             the shell expanded an unquoted pattern into these names, which pfind would \
             search as roots; quote the pattern: pfind -e md\n",
        ),
        (
            "pfind -i --regex *.md docs -d 2",
            "pfind: --regex a.md is followed by b.md and c.md, which are files, not \
             directories: the shell expanded an unquoted pattern into these names, which \
             pfind would search as roots; quote the pattern: pfind -i -n '*.md' docs -d 2\n",
        ),
        (
            "pfind -p src/*.rs",
            "pfind: -p src/x.rs is followed by src/y.rs, a file, not a directory: the shell \
             expanded an unquoted pattern into these names, which pfind would search as \
             roots; quote the pattern: pfind -p 'src/*.rs'\n",
        ),
    ];
    for &(line, said) in cases {
        let out = through_shell(&env, line);
        assert_eq!(String::from_utf8_lossy(&out.stderr), said, "{line}");
        assert_eq!(
            (out.status.code(), out.stdout.len()),
            (Some(2), 0),
            "{line}"
        );
        // The line it gives finds what was meant.
        let typed = said.rsplit(": ").next().unwrap().trim_end();
        let out = through_shell(&env, typed);
        assert_eq!(out.status.code(), Some(0), "{typed}");
        assert!(!out.stdout.is_empty(), "{typed} found nothing");
    }
    // What is meant is run: quoted, a directory after the value, a value that is no
    // file here, a root that is a file after an extension.
    assert_run(&env, &["-n", "*.md", "docs"], &["docs/d.md"], "", 0);
    assert_run(&env, &["-n", "a.md", "docs", "."], &["./a.md"], "", 0);
    assert_run(
        &env,
        &["-e", "md", "a.md", "b.md"],
        &["a.md", "b.md"],
        "",
        0,
    );
}

/// A repository as a newcomer meets it: no source at the top, sources two levels
/// down, names in mixed case, a build directory.
fn habits_tree() -> TestEnv {
    TestEnv::new(
        &[
            "src/exec",
            "src/cli",
            "docs",
            "tests",
            "scripts",
            "assets",
            "target/debug",
        ],
        &[
            "Cargo.toml",
            "Cargo.lock",
            "README.md",
            "CHANGELOG.md",
            "src/main.rs",
            "src/lib.rs",
            "src/exec/mod.rs",
            "src/exec/spawn.rs",
            "src/cli/mod.rs",
            "src/cli/names.rs",
            "docs/options.md",
            "tests/cli.rs",
            "scripts/test.sh",
            "assets/Logo.PNG",
            "target/debug/pfind",
        ],
    )
}

/// The words of `line` as `sh` splits them: blanks, and single quotes.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => (word, started) = (word + &c.to_string(), true),
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// What a hint says to type instead of the pattern `typed` (its option and value
/// first in `args`): the command again with the hint's spelling in its place, or
/// with the `-t` it says to add.
fn as_the_hint_says(args: &[&str], hint: &str) -> Vec<String> {
    if let Some((_, add)) = hint.split_once(": add ") {
        let add = add.split(", or").next().unwrap();
        let mut again: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        again.extend(shell_words(add));
        return again;
    }
    let spelling = hint
        .strip_prefix("pfind: warning: nothing matched, but ")
        .and_then(|rest| rest.split(" finds ").next())
        .unwrap_or_else(|| panic!("not a hint: {hint}"));
    let mut again: Vec<String> = args[2..].iter().map(|a| a.to_string()).collect();
    again.extend(shell_words(spelling));
    again
}

/// Issue 41: the habits people bring from fd, find and the shell, and their near
/// variants (other extensions, paths, case). Every empty result ends with a hint on
/// stderr whose spelling finds something; a result that is right gets no hint.
#[test]
fn every_habit_that_finds_nothing_is_told_what_would_find_something() {
    let env = habits_tree();
    // Each starts with the pattern the hint may replace.
    let empty: &[&[&str]] = &[
        &["-p", "*.rs"],
        &["-p", "*.sh"],
        &["-p", "*/mod.rs"],
        &["-p", "src/spawn.rs", "-d", "9"],
        &["-p", "*src*"],
        &["-p", "src/exec"],
        &["-p", "src"],
        &["-p", "*exec*"],
        &["-p", "SRC/**"],
        &["-p", "docs/*.MD"],
        &["--full-path", "src/**/*.rs"],
        &["--full-path", "SRC/"],
        &["--path-regex", "^Docs/"],
        &["-n", "Cargo"],
        &["-n", "spawn"],
        &["-n", "names", "-e", "rs"],
        &["-n", "readme.md"],
        &["-n", "*.MD"],
        &["-n", "readme*"],
        &["-n", "LOGO.png"],
        &["-n", "src/main.rs"],
        &["-n", "exec"],
        &["-e", "*.md"],
        &["-e", "*.sh", "-c"],
        &["--regex", "src/.*\\.rs"],
        &["--regex", "^readme"],
        &["--regex", "^CARGO\\."],
    ];
    for args in empty {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let printed = out.stdout.iter().filter(|&&b| b == b'\n').count();
        let counted = args.contains(&"-c") && out.stdout != b"0\n";
        assert!(
            printed == 0 || args.contains(&"-c"),
            "{args:?} found {printed}"
        );
        assert!(!counted, "{args:?} counted some");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        let hint = stderr
            .lines()
            .find(|line| line.starts_with("pfind: warning: nothing matched, but "))
            .unwrap_or_else(|| panic!("{args:?}: no hint in {stderr:?}"));
        let again = as_the_hint_says(args, hint);
        let out = env.run(&again);
        let found = match again.iter().any(|a| a == "-c") {
            true => String::from_utf8_lossy(&out.stdout).trim() != "0",
            false => !out.stdout.is_empty(),
        };
        assert!(found, "{args:?}: {hint}, but {again:?} finds nothing");
        // The hint's count is what the spelling finds.
        if let Some(count) = hint.split(" finds ").nth(1) {
            let count: usize = count.split(' ').next().unwrap().parse().unwrap();
            let lines = out.stdout.iter().filter(|&&b| b == b'\n').count();
            if !again.iter().any(|a| a == "-c") {
                assert_eq!(lines, count, "{args:?}: {hint}");
            }
        }
    }
    // The -p that matched a directory is answered with the files below it, not -t d.
    let out = env.run(&["-p", "src/exec"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: nothing matched, but -p 'src/exec/**' finds 2 files (a directory \
         matched it; /** is the files below it)\n"
    );
    let out = env.run(&["-p", "*.rs"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: nothing matched, but -p '**/*.rs' finds 7 files (-p's * stays \
         within one directory, as find -path's does not: **/ is any depth)\n"
    );
    let out = env.run(&["-n", "Cargo"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: nothing matched, but -n '*Cargo*' finds 2 files (-n matches whole \
         names; fd's pattern matches inside them)\n"
    );
    // Right answers, empty or not, get no hint; nor does -q, whose answer is its status.
    let right: &[&[&str]] = &[
        &["-n", "Cargo.toml"],
        &["-n", "*Cargo*"],
        &["-p", "**/*.rs"],
        &["-p", "src/*.rs"],
        &["-p", "src/exec/**"],
        &["-p", "*.md"],
        &["-e", "md"],
        &["-e", ".MD"],
        &["-i", "-n", "readme.md"],
        &["--regex", "Cargo"],
        &["--full-path", "src/.*rs"],
        &["--full-path", "exec/.*"],
        &["-t", "d", "-p", "*src*"],
        &["-n", "exec", "-t", "d"],
    ];
    for args in right {
        let out = env.run(args);
        assert!(!out.stdout.is_empty(), "{args:?} found nothing");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
    for args in [&["-q", "-n", "Cargo"][..], &["-n", "nothing_like_it"]] {
        let out = env.run(args);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

// fd's habit of a pattern first (issue 51), through the real binary: `pfind *.txt`
// as the shell expands it (every root a file, no filter) and `pfind main` (one
// missing root that reads as a name) end with the command that was probably meant,
// quoted; the right spellings get no hint.

fn fd_pattern_tree() -> TestEnv {
    TestEnv::new(
        &["src", "docs"],
        &[
            "a.txt",
            "b.txt",
            "notes.md",
            "src/main.rs",
            "src/lib.rs",
            "src/c.txt",
            "docs/d.txt",
        ],
    )
}

/// (stdout lines sorted, stderr, exit status) of pfind `args` in `env`, the same at
/// every thread count.
fn run_everywhere(env: &TestEnv, args: &[&str]) -> (Vec<String>, String, Option<i32>) {
    let mut seen = None;
    for threads in testenv::THREAD_COUNTS {
        let out = env.run(&[&["-j", threads], args].concat());
        let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        lines.sort();
        let got = (
            lines,
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        );
        if let Some(first) = &seen {
            assert_eq!(first, &got, "{args:?} at -j {threads}");
        }
        seen = Some(got);
    }
    seen.unwrap()
}

const FILES_HINT: &str = "pfind: warning: every root is a file, as when the shell expands an \
     unquoted pattern: pfind prints these files only, not the matching ones below them; to \
     match names, quote the pattern: ";

#[test]
fn an_expanded_pattern_prints_its_files_and_the_quoted_command() {
    let env = fd_pattern_tree();
    // What the shell makes of `pfind *.txt` here.
    let (lines, stderr, code) = run_everywhere(&env, &["a.txt", "b.txt"]);
    assert_eq!(
        lines,
        ["a.txt", "b.txt"],
        "the files themselves, as find prints them"
    );
    assert_eq!(stderr, format!("{FILES_HINT}pfind -n '*.txt'\n"));
    assert_eq!(code, Some(0));
    // `pfind src/*.rs`: the directory goes before the pattern.
    let (_, stderr, _) = run_everywhere(&env, &["src/lib.rs", "src/main.rs"]);
    assert_eq!(stderr, format!("{FILES_HINT}pfind src -n '*.rs'\n"));
    // No extension shared: a placeholder, still quoted.
    let (_, stderr, _) = run_everywhere(&env, &["a.txt", "notes.md"]);
    assert_eq!(stderr, format!("{FILES_HINT}pfind -n 'GLOB'\n"));
}

#[test]
fn one_missing_root_that_reads_as_a_name_gets_the_glob_to_type() {
    let env = fd_pattern_tree();
    let (lines, stderr, code) = run_everywhere(&env, &["main"]);
    assert!(lines.is_empty());
    assert_eq!(
        stderr,
        "pfind: main: No such file or directory (roots are directories to search; match \
         names with -n GLOB: pfind -n '*main*')\n"
    );
    assert_eq!(code, Some(1));
    let (_, stderr, _) = run_everywhere(&env, &["*.rs"]);
    assert_eq!(
        stderr,
        "pfind: *.rs: No such file or directory (roots are directories to search; match \
         names with -n GLOB: pfind -n '*.rs')\n"
    );
}

#[test]
fn the_right_spellings_get_no_hint() {
    let env = fd_pattern_tree();
    for (args, want) in [
        // A filter on file roots is meant.
        (&["a.txt", "-e", "txt"][..], &["a.txt"][..]),
        (&["a.txt", "b.txt", "-n", "a*"], &["a.txt"]),
        // A directory root, alone or among files.
        (&["src"], &["src/main.rs", "src/lib.rs", "src/c.txt"]),
        // One file named alone is as often meant (`pfind file -l`).
        (&["a.txt"], &["a.txt"]),
        (&["a.txt", "docs"], &["a.txt", "docs/d.txt"]),
        // The quoted pattern, as the hints say.
        (&["-n", "*main*"], &["src/main.rs"]),
        (&["src", "-n", "*.rs"], &["src/main.rs", "src/lib.rs"]),
    ] {
        let (lines, stderr, code) = run_everywhere(&env, args);
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(
            (lines, stderr.as_str(), code),
            (want, "", Some(0)),
            "{args:?}"
        );
    }
    // A missing root among others is a path the user meant, as before: no command.
    let (_, stderr, _) = run_everywhere(&env, &["src", "nope/x"]);
    assert_eq!(stderr, "pfind: nope/x: No such file or directory\n");
}

// docs/messages.md against the binary (issue 51): it said pfind lacked fd's
// `--hidden`, `-H`, `-I` and `-u` long after they became options. Every refusal
// it quotes for a find or fd option is the one pfind prints, and every fd option
// it lists as missing is refused.

const MESSAGES: &str = include_str!("../../docs/messages.md");

fn refusal_of(option: &str) -> (String, Option<i32>) {
    let out = testenv::pfind_command(std::path::Path::new("."), &[option])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn every_quoted_refusal_of_an_option_is_what_pfind_prints() {
    let mut seen = 0;
    for line in MESSAGES.lines() {
        let Some(rest) = line.strip_prefix("pfind: '-") else {
            continue;
        };
        let option = format!("-{}", &rest[..rest.find('\'').unwrap()]);
        if !line.contains("is find's") && !line.contains("is fd's") {
            continue;
        }
        seen += 1;
        assert_eq!(
            refusal_of(&option),
            (format!("{line}\n"), Some(2)),
            "{option}"
        );
    }
    assert!(seen >= 5, "only {seen} refusals quoted");
}

#[test]
fn the_fd_options_said_to_be_missing_are_refused() {
    let start = MESSAGES
        .find("options that pfind does not have (")
        .expect("the list of fd's options pfind does not have");
    let list = &MESSAGES[start..];
    let list = &list[..list.find(';').unwrap()];
    let options: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    assert!(options.len() >= 4, "{options:?}");
    for option in options {
        let (stderr, code) = refusal_of(option);
        assert_eq!(code, Some(2), "{option}: {stderr}");
        assert!(
            stderr.starts_with(&format!("pfind: '{option}' is fd's option")),
            "{option}: {stderr}"
        );
    }
}
