//! What people arriving from find and fd type in their first minutes (issue 18),
//! through the real binary: every warning and every refusal, with its exact message
//! and exit status, and the spellings that must keep working.

mod testenv;

use testenv::TestEnv;

/// Runs pfind in `env` at every thread count and checks that each run printed the
/// `stdout` lines (in any order), exactly `stderr`, and exited with `status`.
fn assert_run(env: &TestEnv, args: &[&str], stdout: &[&str], stderr: &str, status: i32) {
    for threads in testenv::THREAD_COUNTS {
        let full = [args, &["-j", threads]].concat();
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

fn source_tree() -> TestEnv {
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
    // A regular expression typed as a glob: nothing ends in "rs$".
    assert_run(
        &env,
        &["-n", ".*\\.rs$"],
        &[],
        &warning(
            "-n '.*\\.rs$' looks like a regular expression, but -n takes a glob, as find \
             -name does: perhaps -n '*.rs'",
        ),
        0,
    );
    assert_run(
        &env,
        &["-n", "^Make"],
        &[],
        &warning(
            "-n '^Make' looks like a regular expression, but -n takes a glob, as find -name \
             does: perhaps -n 'Make*'",
        ),
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
        &warning("-e '*.rs' contains '*', but -e takes an extension, not a glob: perhaps -e rs"),
        0,
    );
    assert_run(
        &env,
        &["-e", "jp?"],
        &[],
        &warning(
            "-e 'jp?' contains '?', but -e takes an extension, not a glob: perhaps -n '*.jp?'",
        ),
        0,
    );
    assert_run(
        &env,
        &["-e", "src/rs"],
        &[],
        &warning("-e 'src/rs' contains '/', which no file name does, so it matches nothing"),
        0,
    );
    // One warning per value, in the order of the options.
    assert_run(
        &env,
        &["-n", "^x", "-E", "a/b", "-n", "*.md"],
        &["README.md"],
        &[
            warning(
                "-n '^x' looks like a regular expression, but -n takes a glob, as find -name \
                 does: perhaps -n 'x*'",
            ),
            warning(
                "-E 'a/b' contains '/', which no file name does, so it excludes nothing (-n \
                 and -E test names, not paths)",
            ),
        ]
        .concat(),
        0,
    );
    // Globs that only look like one are left alone.
    for glob in [".*", "*.r?", "README.*", "[^.]*"] {
        let out = env.run(&["-n", glob]);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "-n {glob}");
        assert_eq!(out.status.code(), Some(0));
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
