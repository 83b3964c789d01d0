//! Errors about what `PFIND_OPTIONS` named (issue 47): a file or directory the
//! variable gave to `--newer`, `-C` or `--ignore-file` that cannot be read is
//! refused naming the variable, as its other errors are, and one the command line
//! gave is not blamed on it; `--` in the variable is refused for what it is, not
//! said to be the command line's roots.

mod testenv;

use std::path::Path;

/// pfind `args` in `dir` with `PFIND_OPTIONS` set to `options`: status, stderr.
fn with_options(dir: &Path, options: &str, args: &[&str]) -> (Option<i32>, String) {
    let out = testenv::pfind_command(dir, args)
        .env("PFIND_OPTIONS", options)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_file_the_variable_named_is_refused_naming_the_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("root")).unwrap();
    std::fs::write(dir.join("exists"), b"").unwrap();
    for (options, option) in [
        ("--newer nosuch", "--newer <FILE>"),
        ("--newer=nosuch", "--newer <FILE>"),
        ("-C nosuch", "--base-directory <DIR>"),
        ("-Cnosuch", "--base-directory <DIR>"),
        ("--ignore-file nosuch", "--ignore-file <FILE>"),
        ("--ignore-file=nosuch -u", "--ignore-file <FILE>"),
        (
            "--ignore-file exists --ignore-file nosuch",
            "--ignore-file <FILE>",
        ),
    ] {
        let (status, stderr) = with_options(dir, options, &["root"]);
        assert_eq!(status, Some(2), "{options}: {stderr}");
        let want = format!(
            "pfind: PFIND_OPTIONS='{options}': invalid value 'nosuch' for '{option}': No such \
             file or directory (PFIND_OPTIONS holds options read before the command line's"
        );
        assert!(stderr.starts_with(&want), "{options}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{options}: {stderr}");
    }
    // The command line's own file is the command line's error, variable or not.
    for (options, args) in [
        (
            "--ignore-file exists",
            &["--ignore-file", "nosuch", "root"][..],
        ),
        ("--ignore-file nosuch", &["--ignore-file", "nosuch", "root"]),
        ("-u", &["--newer", "nosuch", "root"]),
    ] {
        let (status, stderr) = with_options(dir, options, args);
        assert_eq!(status, Some(2), "{options} {args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: invalid value 'nosuch'"),
            "{stderr}"
        );
        assert!(!stderr.contains("PFIND_OPTIONS"), "{stderr}");
    }
}

#[test]
fn a_double_dash_in_the_variable_is_refused_not_the_roots() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("root")).unwrap();
    for options in ["--", "-j 2 --", "-- -u"] {
        for args in [&["root"][..], &["--", "root"], &["-u", "root"]] {
            let (status, stderr) = with_options(tmp.path(), options, args);
            assert_eq!(status, Some(2), "{options} {args:?}");
            assert_eq!(
                stderr,
                "pfind: PFIND_OPTIONS may hold options only, not '--', which would make the \
                 command line's options roots\n",
                "{options} {args:?}"
            );
        }
    }
}
