//! Usage errors end cleanly (issue 51): no clap usage line after them
//! (`Usage: pfind --count [ROOT]...` said nothing the error had not) and no tip to
//! pass an unknown option after `--` as a value (`-- --bogus`); a similar option's
//! name, which helps, stays.

mod testenv;

use std::path::Path;

fn stderr_of(args: &[&str]) -> String {
    let out = testenv::pfind_command(Path::new("."), args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn clap_errors_end_with_the_pointer_to_help() {
    let end = "\n\nFor more information, try '--help'.\n";
    for (args, first) in [
        (
            &["--bogus"][..],
            "error: unexpected argument '--bogus' found",
        ),
        (&["-Z"], "error: unexpected argument '-Z' found"),
        (
            &["-c", "-l"],
            "error: the argument '--count' cannot be used with '--long'",
        ),
        (
            &["-0", "--json"],
            "error: the argument '--print0' cannot be used with '--json'",
        ),
        (
            &["--reverse"],
            "error: the following required arguments were not provided:\n  --sort <KEY>",
        ),
    ] {
        assert_eq!(stderr_of(args), format!("{first}{end}"), "{args:?}");
    }
    let typo = stderr_of(&["--extention", "rs"]);
    assert!(
        typo.contains("tip: a similar argument exists: '--extension'"),
        "{typo}"
    );
    assert!(!typo.contains("Usage:") && !typo.contains("'-- "), "{typo}");
}
