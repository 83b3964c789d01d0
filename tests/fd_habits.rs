//! fd's habit of a pattern first (issue 51), through the real binary: `pfind *.txt`
//! as the shell expands it (every root a file, no filter) and `pfind main` (one
//! missing root that reads as a name) end with the command that was probably meant,
//! quoted; the right spellings get no hint.

mod testenv;

use testenv::TestEnv;

fn tree() -> TestEnv {
    TestEnv::new(
        &["src", "docs"],
        &[
            "a.txt",
            "b.txt",
            "notes.md",
            "src/main.rs",
            "src/c.txt",
            "docs/d.txt",
        ],
    )
}

/// (stdout lines sorted, stderr, exit status) of pfind `args` in `env`, the same at
/// every thread count.
fn run(env: &TestEnv, args: &[&str]) -> (Vec<String>, String, Option<i32>) {
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
    let env = tree();
    // What the shell makes of `pfind *.txt` here.
    let (lines, stderr, code) = run(&env, &["a.txt", "b.txt"]);
    assert_eq!(
        lines,
        ["a.txt", "b.txt"],
        "the files themselves, as find prints them"
    );
    assert_eq!(stderr, format!("{FILES_HINT}pfind -n '*.txt'\n"));
    assert_eq!(code, Some(0));
    // `pfind src/*.rs`: the directory goes before the pattern.
    let (_, stderr, _) = run(&env, &["src/main.rs"]);
    assert_eq!(stderr, format!("{FILES_HINT}pfind src -n '*.rs'\n"));
    // No extension shared: a placeholder, still quoted.
    let (_, stderr, _) = run(&env, &["a.txt", "notes.md"]);
    assert_eq!(stderr, format!("{FILES_HINT}pfind -n 'GLOB'\n"));
}

#[test]
fn one_missing_root_that_reads_as_a_name_gets_the_glob_to_type() {
    let env = tree();
    let (lines, stderr, code) = run(&env, &["main"]);
    assert!(lines.is_empty());
    assert_eq!(
        stderr,
        "pfind: main: No such file or directory (roots are directories to search; to match \
         names, type: pfind -n '*main*')\n"
    );
    assert_eq!(code, Some(1));
    let (_, stderr, _) = run(&env, &["*.rs"]);
    assert_eq!(
        stderr,
        "pfind: *.rs: No such file or directory (roots are directories to search; to match \
         names, type: pfind -n '*.rs')\n"
    );
}

#[test]
fn the_right_spellings_get_no_hint() {
    let env = tree();
    for (args, want) in [
        // A filter on file roots is meant.
        (&["a.txt", "-e", "txt"][..], &["a.txt"][..]),
        (&["a.txt", "b.txt", "-n", "a*"], &["a.txt"]),
        // A directory root, alone or among files.
        (&["src"], &["src/main.rs", "src/c.txt"]),
        (&["a.txt", "docs"], &["a.txt", "docs/d.txt"]),
        // The quoted pattern, as the hints say.
        (&["-n", "*main*"], &["src/main.rs"]),
        (&["src", "-n", "*.rs"], &["src/main.rs"]),
    ] {
        let (lines, stderr, code) = run(&env, args);
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(
            (lines, stderr.as_str(), code),
            (want, "", Some(0)),
            "{args:?}"
        );
    }
    // A missing root among others is a path the user meant, as before: no command.
    let (_, stderr, _) = run(&env, &["src", "nope/x"]);
    assert_eq!(stderr, "pfind: nope/x: No such file or directory\n");
}
