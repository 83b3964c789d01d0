//! What is not a filter, a walk or an output option (src/cli/other.rs,
//! src/cli/mod.rs): `--help` and `-h` (every flag documented, one screen, wrapped to
//! the terminal, grouped), the manual page and completions `--generate` writes (each
//! shell's syntax check, the values each offers, `man --warnings`, `man -w`), usage
//! errors (exit 2, one clear message, escaped, numbers out of range), values that
//! start with a dash, failed writes of `--help` and `--version`, and
//! `PFIND_OPTIONS`.

use crate::output::pipe_through;
use crate::testenv::write;
use crate::testenv::{pfind_command, TestEnv};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn usage_errors_exit_2_with_one_clear_message() {
    let env = TestEnv::new(&[], &[]);
    for (args, mentions) in [
        (&["-j", "0"][..], "1 to 1024"),
        (&["-j", "100000"], "1 to 1024"),
        (&["--bogus"], "--bogus"),
        (&["-S", "+1q"], "invalid size '+1q'"),
        (&["-e", ""], "cannot be empty"),
    ] {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(mentions), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// Issue 38, items 9 and 10: a negative or oversized value for a number option was
/// met with clap's texts (`-d -1`: "a value is required", `-1` being a flag;
/// `--min-depth -2`: the `-- -2` tip) or "must be a whole number". Every option whose
/// value is `<N>` in `--help`, so that one added later is checked too, gets the range
/// it accepts, however the value is attached.
#[test]
fn numbers_out_of_range_are_told_the_range() {
    let env = TestEnv::new(&[], &[]);
    let help = String::from_utf8(env.run(&["--help"]).stdout).unwrap();
    let numeric: Vec<&str> = help
        .lines()
        .filter_map(|line| line.trim_start().split_once(" <N>"))
        .filter_map(|(names, _)| names.split(", ").find(|name| name.starts_with("--")))
        .collect();
    for long in ["--max-depth", "--min-depth", "--exact-depth", "--threads"] {
        assert!(numeric.contains(&long), "{long} not found in {numeric:?}");
    }
    assert!(numeric.contains(&"--max-results") && numeric.contains(&"--batch-size"));
    let huge = "99999999999999999999999";
    for long in numeric {
        // --batch-size is for -X alone.
        let needs: &[&str] = match long {
            "--batch-size" => &["-X", "echo"],
            _ => &[],
        };
        for value in ["-1", "-2", "-0.5", huge] {
            for joined in [false, true] {
                let mut args = match joined {
                    true => vec![format!("{long}={value}")],
                    false => vec![long.to_string(), value.to_string()],
                };
                args.extend(needs.iter().map(|word| word.to_string()));
                let out = env.run(&args);
                let stderr = String::from_utf8_lossy(&out.stderr);
                let first = stderr.lines().next().unwrap_or_default();
                let want = format!("error: invalid value '{value}' for '{long} <N>': ");
                assert!(first.starts_with(&want), "{args:?}: {stderr}");
                assert!(
                    first.contains(" must be a whole number from "),
                    "{args:?}: {stderr}"
                );
                assert!(!stderr.contains("tip:"), "{args:?}: {stderr}");
                assert_eq!(out.status.code(), Some(2), "{args:?}");
                assert!(out.stdout.is_empty(), "{args:?}");
            }
        }
    }
    // The short forms, where `-1` is also pfind's flag for --max-results 1.
    for (args, range) in [
        (&["-d", "-1"][..], "from 0 to 18446744073709551615"),
        (&["-j", "-1"], "from 1 to 1024"),
        (&["-j", "-1", "-d", "1"], "from 1 to 1024"),
    ] {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(range), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    // `-d -1`, most often meant as no limit, is told what to type (issue 41).
    let out = env.run(&["-d", "-1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .next()
            .unwrap_or_default(),
        "error: invalid value '-1' for '--max-depth <N>': the depth must be a whole number \
         from 0 to 18446744073709551615 (-d 1 is a root's children; for every depth, leave \
         -d out)"
    );
    // Issue 41: -t takes a comma list, as -e and -E do.
    let env = TestEnv::new(&["d"], &["f", "d/g"]);
    let mut listed: Vec<String> = String::from_utf8(env.run(&["-t", "f,d"]).stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    listed.sort();
    assert_eq!(listed, ["d", "d/g", "f"]);
    let out = env.run(&["-t", "f,bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("invalid value 'bogus' for '--type <TYPE>'")
    );
    // And `-1` after a complete option is still the flag.
    assert_eq!(env.run(&["-d", "2", "-1"]).status.code(), Some(0));
}

#[test]
fn help_documents_every_flag() {
    let out = TestEnv::new(&[], &[]).run(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--extension",
        "--name",
        "--exclude",
        "--size",
        "--count",
        "--print0",
        "--threads",
        "--help",
        "--version",
        "Examples:",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
    let version = TestEnv::new(&[], &[]).run(&["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("pfind {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// `pfind` with `args` and `COLUMNS=columns`, stdout not a terminal: its stdout.
fn help_text(args: &[&str], columns: &str) -> String {
    let out = pfind_command(std::path::Path::new("."), args)
        .env("COLUMNS", columns)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// True when `text` (a help text) has a line for the option `long`: one that starts
/// with it, after its short form if any.
fn named(text: &str, long: &str) -> bool {
    text.lines().any(|line| {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        first == long || (first.ends_with(',') && words.next() == Some(long))
    })
}

/// `-h` is a one-screen summary (80x40): what pfind lists by default and how to get
/// the developer's view first, then the options a newcomer reaches for, one line
/// each, grouped as the README's reference is; every other option is in `--help`.
#[test]
fn short_help_is_one_screen_with_one_line_per_option() {
    let short = help_text(&["-h"], "80");
    let lines: Vec<&str> = short.lines().collect();
    assert!(lines.len() <= 40, "{} lines:\n{short}", lines.len());
    for line in &lines {
        assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
    }
    // The defaults come first.
    let opening = lines[..3].join(" ");
    for said in [
        "By default",
        "every regular file",
        "hidden and ignored",
        "--ignore",
        "-G",
    ] {
        assert!(opening.contains(said), "{said:?} not in {opening:?}");
    }
    // Each option's line names it and says what it does; nothing wraps onto a
    // line of its own. The rest are in --help.
    let command = pfind::cli::command();
    let long_help = help_text(&["--help"], "80");
    let mut shown = 0;
    for arg in command.get_arguments() {
        let Some(long) = arg
            .get_long()
            .map(|l| format!("--{l}"))
            .or_else(|| arg.get_short().map(|s| format!("-{s}")))
        else {
            continue;
        };
        if arg.is_hide_short_help_set() {
            assert!(named(&long_help, &long) && !named(&short, &long), "{long}");
            continue;
        }
        shown += 1;
        let line = lines
            .iter()
            .find(|line| line.trim_start().split([',', ' ']).any(|w| w == long))
            .unwrap_or_else(|| panic!("-h lacks {long}:\n{short}"));
        let summary = line.split("  ").filter(|part| !part.is_empty()).nth(1);
        assert!(
            summary.is_some(),
            "{long} has no summary on its line: {line:?}"
        );
    }
    assert!(shown >= 20, "only {shown} options in -h");
    for line in &lines[3..] {
        let indent = line.len() - line.trim_start().len();
        assert!(indent <= 6, "a wrapped line: {line:?}");
    }
    let headings: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| line.ends_with(':') && !line.starts_with(' '))
        .collect();
    assert_eq!(headings, ["Filters:", "Ignore files:", "Output:", "Other:"]);
    let other = &short[short.find("\nOther:").unwrap()..];
    let at = |needle: &str| other.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("--threads") < at("--help") && at("--help") < at("--version"));
    assert!(short.contains("--help: every option"), "{short}");
}

/// Issue 41, item 2: the environment variables pfind reads are in `--help` and in the
/// manual's ENVIRONMENT section, from the same text; `-h` names PFIND_OPTIONS.
#[test]
fn help_and_the_manual_say_what_the_environment_does() {
    let long = help_text(&["--help"], "100");
    let environment = &long[long
        .find("\nEnvironment:\n")
        .expect("an Environment heading")..];
    let man = help_text(&["--generate", "man"], "100");
    let section = &man[man
        .find(".SH \"ENVIRONMENT\"")
        .expect("an ENVIRONMENT section")..];
    for variable in ["PFIND_OPTIONS", "NO_COLOR", "LS_COLORS"] {
        assert!(
            environment.contains(&format!("\n  {variable} ")),
            "--help lacks {variable}"
        );
        assert!(
            section.contains(&format!("\n  {variable} ")),
            "the manual lacks {variable}"
        );
    }
    assert!(help_text(&["-h"], "80").contains("PFIND_OPTIONS"));
}

/// `--help` is the full text, wrapped to the terminal (COLUMNS when stdout is not
/// one) up to 100 columns; `-h` wraps the same way.
#[test]
fn help_wraps_to_the_terminal_width() {
    let long = help_text(&["--help"], "80");
    assert!(long.lines().count() > 150, "{long}");
    for needle in [
        "comma-separated list",
        "Examples:",
        "Type families",
        "(AND)",
        "(OR)",
    ] {
        assert!(long.contains(needle), "--help lacks {needle:?}");
    }
    for (columns, widest) in [("80", 80), ("60", 60), ("200", 100)] {
        for args in [&["--help"][..], &["-h"]] {
            let text = help_text(args, columns);
            let wide = text.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(wide <= widest, "{args:?} at {columns}: a line of {wide}");
            if columns == "200" && args == ["--help"] {
                assert!(wide > 80, "{args:?} does not use the room it has");
            }
        }
    }
}

/// Issue 28, item 5: a value that starts with `-` is the option's value, for every
/// option that takes a name, a file, a template or a value with a sign in it, as
/// `-n -x` always was. The old code gave clap's tip ("unexpected argument '-r'
/// found ... use '-- -r'"), which failed too; now a good value works and a bad one
/// is refused for what it is, naming the option.
#[test]
fn values_starting_with_a_dash_are_values() {
    let env = TestEnv::new(&["-dir"], &["-dir/a", "-ref", "b"]);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for file in ["-ref", "-dir/a"] {
        let file = std::fs::File::options()
            .write(true)
            .open(env.root().join(file))
            .unwrap();
        file.set_modified(old).unwrap();
    }
    let works: [(&[&str], &str); 4] = [
        (&["--newer", "-ref"], "b\n"),
        (&["-C", "-dir"], "a\n"),
        (&["-n", "b", "--format", "-{}-"], "-b-\n"),
        (&["-n", "b", "--format=-{}"], "-b\n"),
    ];
    for (args, want) in works {
        let out = env.run(args);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{args:?}");
    }
    let refused: [(&[&str], &str); 7] = [
        (&["--owner", "-nobody"], "unknown user '-nobody'"),
        (&["--changed-within", "-1d"], "does not start with a number"),
        (&["--changed-before", "-1d"], "does not start with a number"),
        (&["--max-size", "-5k"], "without a sign"),
        (&["--min-size", "-5k"], "without a sign"),
        (&["--newer", "-missing"], "No such file or directory"),
        (&["-C", "-missing"], "No such file or directory"),
    ];
    for (args, cause) in refused {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let value = format!("error: invalid value '{}' for '--", args[1]);
        assert!(stderr.starts_with(&value), "{args:?}: {stderr}");
        assert!(stderr.contains(cause), "{args:?}: {stderr}");
        assert!(!stderr.contains("tip:"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// Issue 41, item 2: an error in `PFIND_OPTIONS` named the word and gave clap's tip
/// about `--`, never the variable, which the user may have set months before. Every
/// error that comes from it names it; one that comes from the command line does not.
#[test]
fn an_error_in_pfind_options_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |env: &str, args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pfind"))
            .current_dir(tmp.path())
            .env("PFIND_OPTIONS", env)
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let see = " (PFIND_OPTIONS holds options read before the command line's: see \
               Environment in pfind --help)\n";
    for (env, why) in [
        ("--bogus", "unexpected argument '--bogus' found"),
        (
            "-G -d x",
            "invalid value 'x' for '--max-depth <N>': the depth must be a whole number \
             from 0 to 18446744073709551615 (-d 1 is a root's children; for every depth, \
             leave -d out)",
        ),
        (
            "-name foo",
            "'-name' is find's option: use -n GLOB (e.g. pfind . -n '*.rs')",
        ),
    ] {
        let said = format!("pfind: PFIND_OPTIONS='{env}': {why}{see}");
        assert_eq!(run(env, &["-n", "a"]), (Some(2), said), "{env}");
    }
    // The command line's own error is clap's, as without the variable.
    let (status, stderr) = run("-G", &["--bogus"]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.starts_with("error: unexpected argument '--bogus' found")
            && !stderr.contains("PFIND_OPTIONS"),
        "{stderr}"
    );
}

/// Issue 42: a run builds the options alone, and only a run that stops to print
/// (help, the version, a usage error) builds what help shows besides them. Wherever
/// on the line `-h` or `--help` comes, and whatever comes before a usage error,
/// the text is the whole one: `-h`'s summary with its options only, `--help`'s
/// text after the options, the manual's section made from it.
#[test]
fn help_and_errors_after_other_options_are_made_from_the_whole_definition() {
    let env = TestEnv::new(&[], &[]);
    let alone = help_text(&["-h"], "80");
    assert!(alone.contains("Find files fast, on every core"), "{alone}");
    for args in [&["-e", "rs", "-h"][..], &["-c", "-d", "2", "-h"]] {
        assert_eq!(help_text(args, "80"), alone, "{args:?}");
    }
    let long = help_text(&["--help"], "80");
    assert!(long.contains("Examples:") && long.contains("Type families"));
    assert_eq!(help_text(&["-n", "x", "--help"], "80"), long);
    // The first word clap stops at decides, as before: an error before -h is the error.
    let out = env.run(&["--no-such", "-h"]);
    assert_eq!(out.status.code(), Some(2));
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(error.contains("unexpected argument '--no-such'"), "{error}");
    // Issue 51: without clap's generic usage line and its `-- --no-such` tip.
    assert_eq!(
        error,
        "error: unexpected argument '--no-such' found\n\nFor more information, try '--help'.\n"
    );
    let man = pfind_command(std::path::Path::new("."), &["--generate", "man"])
        .output()
        .unwrap();
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(man.contains(".SH \"TYPE FAMILIES AND EXAMPLES\""), "{man}");
    assert!(man.contains("pfind /data \\-t images"), "{man}");
}

#[test]
fn help_is_grouped_and_lists_the_families() {
    let out = TestEnv::new(&[], &[]).run(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Filters:",
        "Ignore files:",
        "Output:",
        "Other:",
        "--type",
        "--long",
        "--sum-size",
        "--min-size",
        "--max-size",
        "--max-depth",
        "--min-depth",
        "--follow",
        "--one-file-system",
        "--max-results",
        "--absolute-path",
        "checkpoints  ckpt pt pth safetensors",
        "images       jpg jpeg png webp bmp tiff gif",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
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
    // `-h` shows a newcomer's selection (short_help_is_one_screen_with_one_line_per_option); --help shows them all.
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

/// Issue 20, defect 9: `--help` and `--version` ignored write errors (status 0 into
/// `/dev/full` or with stdout closed). Every write pfind makes reports its failure
/// with status 1, but a reader that left is not a failure, there as anywhere.
#[test]
fn help_and_version_report_failed_writes() {
    let in_shell = |script: &str, flag: &str| {
        Command::new("sh")
            .args(["-c", script, env!("CARGO_BIN_EXE_pfind"), flag])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for flag in ["--help", "--version", "-h", "-V"] {
        let out = in_shell("exec \"$0\" \"$1\" >/dev/full", flag);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "pfind: stdout: No space left on device\n",
            "{flag}"
        );
        assert_eq!(out.status.code(), Some(1), "{flag}");
        let out = in_shell("exec \"$0\" \"$1\" >&-", flag);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "pfind: stdout: Bad file descriptor\n",
            "{flag}"
        );
        assert_eq!(out.status.code(), Some(1), "{flag}");
        // A pipe whose reader is already gone.
        let mut ends = [0; 2];
        // SAFETY: `ends` has room for the two descriptors pipe() writes.
        assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just made by pipe() and are owned here.
        let (read_end, write_end) = unsafe {
            use std::os::fd::FromRawFd;
            (
                std::os::fd::OwnedFd::from_raw_fd(ends[0]),
                std::os::fd::OwnedFd::from_raw_fd(ends[1]),
            )
        };
        drop(read_end);
        let out = Command::new(env!("CARGO_BIN_EXE_pfind"))
            .arg(flag)
            .stdout(Stdio::from(write_end))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{flag}");
        assert_eq!(out.status.code(), Some(0), "{flag}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_pfind"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        (out.stdout.starts_with(b"pfind "), out.status.code()),
        (true, Some(0))
    );
}

/// Issue 20, defect 6: a usage error quoted the value typed as it was, escape
/// sequences included, so `--newer $'\e]0;PWNED\a'` set a terminal's title (clap
/// strips them only when stderr is not a terminal, and then shows `''`). Usage errors
/// are now escaped as walk errors are, on a terminal or not; one with nothing to
/// escape is printed as clap prints it, in colour on a terminal.
#[test]
fn usage_errors_are_escaped() {
    let env = TestEnv::new(&[], &[]);
    let cases: &[(&[&[u8]], &str)] = &[
        (
            &[b".", b"--newer", b"\x1b]0;PWNED\x07"],
            "error: invalid value '\\x1b]0;PWNED\\x07' for '--newer <FILE>': \
             No such file or directory\n",
        ),
        (
            &[b"--\x1b[2Jx"],
            "error: unexpected argument '--\\x1b[2Jx' found\n",
        ),
        (
            &[b"-S", b"1\xc2\x9b\n2"],
            "error: invalid value '1\\xc2\\x9b\\n2' for '--size <SIZE>': ",
        ),
    ];
    for &(args, first_line) in cases {
        let args: Vec<&OsStr> = args.iter().map(|arg| OsStr::from_bytes(arg)).collect();
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with(first_line), "{args:?}: {stderr}");
        assert!(
            !out.stderr.iter().any(|&b| b == 0x1b || b == 0x07),
            "{args:?}: {stderr}"
        );
    }
    // On a terminal (util-linux `script`), where clap would have written it raw.
    let under_terminal = |command: &str| {
        let out = Command::new("script")
            .args(["-q", "-e", "-c", command, "/dev/null"])
            .current_dir(env.root())
            .env_remove("NO_COLOR")
            .stdin(Stdio::null())
            .output()
            .expect("script (util-linux) is needed for this test");
        assert_eq!(out.status.code(), Some(2), "{command}");
        out.stdout
    };
    let pfind = env!("CARGO_BIN_EXE_pfind");
    let shown = under_terminal(&format!(
        "{pfind} . --newer \"$(printf '\\033]0;PWNED\\007')\""
    ));
    let text = String::from_utf8_lossy(&shown);
    assert!(text.contains("'\\x1b]0;PWNED\\x07'"), "{text}");
    assert!(!shown.contains(&0x07) && !shown.contains(&0x1b), "{text}");
    // Nothing to escape: clap's own message, coloured.
    let shown = under_terminal(&format!("{pfind} . --newer nowhere"));
    assert!(shown.windows(4).any(|w| w == b"\x1b[1m"), "{shown:?}");
}

#[test]
fn pfind_options_holds_options_only() {
    let tmp = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pfind"));
    let out = command
        .current_dir(tmp.path())
        .env("PFIND_OPTIONS", "--ignore somewhere")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: PFIND_OPTIONS may hold options only, not the root 'somewhere'\n"
    );
}

/// Issue 38, item 3: `--exec echo RUN` in the variable took the command line's words
/// (`-n a`, and a root typed there) as its command's, and ran `echo RUN -n a ./file`
/// on every file; with `-X rm`, files would have gone. Every option that takes the
/// rest of the line is refused there, however it is spelled, and so is an option
/// left without its value, which the command line's first word would have been.
#[test]
fn pfind_options_holds_no_command() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("file"), b"x");
    write(&tmp.path().join("a"), b"x");
    let run = |env: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_pfind"))
            .current_dir(tmp.path())
            .env("PFIND_OPTIONS", env)
            .args(["-n", "a", "."])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            stderr,
        )
    };
    let command = |typed: &str| {
        format!(
            "pfind: PFIND_OPTIONS may hold options only, not a command: '{typed}' would take \
             the command line's words as its command's; give it on the command line\n"
        )
    };
    for (env, typed) in [
        ("--exec echo RUN", "--exec"),
        ("--exec=echo RUN ;", "--exec=echo"),
        ("--exec-dir echo", "--exec-dir"),
        ("-X rm", "-X"),
        ("-Xrm", "-Xrm"),
        ("--exec-batch rm +", "--exec-batch"),
        // After flags in one cluster, and after an option with its value.
        ("-HX rm", "-HX"),
        ("-d 3 -G -X rm", "-X"),
    ] {
        assert_eq!(run(env), (Some(2), String::new(), command(typed)), "{env}");
    }
    for (env, typed) in [
        ("-d", "-d"),
        ("-G -E", "-E"),
        ("--ignore-file", "--ignore-file"),
    ] {
        let said = format!(
            "pfind: PFIND_OPTIONS ends with '{typed}', whose value would be the command \
             line's first word; give the option its value in PFIND_OPTIONS\n"
        );
        assert_eq!(run(env), (Some(2), String::new(), said), "{env}");
    }
    // Options with their values, and a value that looks like -X, still work.
    for env in ["-d 3", "-d3 -G", "-n -X", "-j2", "--exec-dir-not-an-option"] {
        let (status, stdout, stderr) = run(env);
        if env.ends_with("option") {
            assert_eq!(status, Some(2), "{env}: clap's own error: {stderr}");
            continue;
        }
        assert_eq!(
            (status, stdout.as_str(), stderr.as_str()),
            (Some(0), "./a\n", ""),
            "{env}"
        );
    }
}

#[test]
fn generated_completions_pass_their_shells_syntax_check() {
    for (what, shell) in [("bash", "bash"), ("zsh", "zsh"), ("fish", "fish")] {
        let out = pfind_command(Path::new("."), &["--generate", what])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{what}");
        assert!(
            out.stdout.len() > 1000,
            "{what}: {} bytes",
            out.stdout.len()
        );
        let (_, ok) = pipe_through(&format!("{shell} -n"), &out.stdout, &[]);
        assert!(
            ok,
            "{shell} -n rejects the {what} completions (is {shell} installed?)"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        for option in ["--max-results", "--json", "--sort", "--hyperlink"] {
            assert!(
                text.contains(option.trim_start_matches('-')),
                "{what}: {option}"
            );
        }
    }
}

/// The zsh half of [`completions_offer_closed_value_sets_in_each_shell`]: zsh
/// completes only inside its line editor, so this runs an interactive `zsh -f` in a
/// pseudo-terminal (`zpty`), with `compinit` and the generated `_pfind` on `fpath`,
/// types `$2` and a Tab, and prints each candidate the completion system adds (a
/// wrapper around `compadd`), one per line.
const ZSH_CAPTURE: &str = r#"
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd () { local -a __hits; builtin compadd -O __hits "$@"; (( $#__hits )) && print -rl -- "<hit>"${^__hits}; builtin compadd "$@" }'
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no"
zpty -w z 'bindkey "^I" complete-word; print -r -- "<ready>"'
zpty -r z line '*<ready>*'
zpty -n -w z "$2"$'\t'
zpty -w z $'\C-u print -r -- "<done>"'
out=
while zpty -r z line; do out+=$line; [[ $line == *'<done>'* ]] && break; done
print -r -- "$out" | tr -d '\r' | grep -o '<hit>[^<]*' | sed 's/<hit>//'
zpty -d z
"#;

/// The bash half: the generated function, called as bash's completion calls it
/// for the line `$1`, prints what it offers.
const BASH_CAPTURE: &str = r#"
source ./pfind.bash
line=$1
read -ra words <<< "$line"
[[ $line == *" " ]] && words+=("")
COMP_WORDS=("${words[@]}"); COMP_CWORD=$(( ${#words[@]} - 1 ))
COMP_LINE=$line; COMP_POINT=${#line}; COMPREPLY=()
_pfind pfind "${words[-1]}" "${words[-2]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;

/// Issue 30: `-t <Tab>` completed file names in bash and zsh and nothing in fish.
/// Each shell now offers the closed sets of values (`-t`'s kinds and families,
/// `--sort`, `--color`, `--hyperlink`, `--generate`), checked by running the shell
/// itself on the script pfind generates, in a directory whose file names must not
/// be offered.
#[test]
fn completions_offer_closed_value_sets_in_each_shell() {
    let env = TestEnv::new(&["zsh"], &["decoy_file"]);
    for (what, file) in [
        ("bash", "pfind.bash"),
        ("zsh", "zsh/_pfind"),
        ("fish", "pfind.fish"),
    ] {
        let out = pfind_command(env.root(), &["--generate", what])
            .output()
            .unwrap();
        env.write(file, &out.stdout);
    }
    env.write("capture.zsh", ZSH_CAPTURE.as_bytes());
    env.write("capture.bash", BASH_CAPTURE.as_bytes());
    // zsh is driven through a pseudo-terminal: on a loaded machine the keys typed
    // after the Tab can reach zsh before its completion has run, and zle then
    // drops the completion. An empty answer is asked again (up to 5 times); a
    // wrong one is not.
    let offered_once = |shell: &str, line: &str| -> Vec<String> {
        let mut command = Command::new("timeout");
        command.arg("120").current_dir(env.root());
        match shell {
            "bash" => command.args(["bash", "capture.bash", line]),
            "zsh" => command.args(["zsh", "-f", "capture.zsh", "zsh", line]),
            _ => command.args([
                "fish",
                "--no-config",
                "-c",
                "source pfind.fish; complete -C $argv[1]",
                line,
            ]),
        };
        let out = command
            .output()
            .unwrap_or_else(|err| panic!("{shell}: {err}"));
        assert!(out.status.success(), "{shell} {line:?}: {out:?}");
        let mut words: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            // fish prints each value's description after a tab.
            .map(|line| line.split('\t').next().unwrap().to_string())
            .filter(|word| !word.is_empty())
            .collect();
        words.sort();
        words.dedup();
        words
    };
    let offered = |shell: &str, line: &str| -> Vec<String> {
        let tries = if shell == "zsh" { 5 } else { 1 };
        let mut words = Vec::new();
        for _ in 0..tries {
            words = offered_once(shell, line);
            if !words.is_empty() {
                break;
            }
        }
        words
    };
    let sorted = |words: &[&str]| {
        let mut words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        words.sort();
        words
    };
    for shell in ["bash", "zsh", "fish"] {
        let types = offered(shell, "pfind -t ");
        for word in [
            "f",
            "d",
            "l",
            "any",
            "symlink",
            "executable",
            "images",
            "logs",
        ] {
            assert!(
                types.contains(&word.to_string()),
                "{shell}: -t lacks {word}: {types:?}"
            );
        }
        assert!(
            !types.iter().any(|w| w.contains("decoy")),
            "{shell}: {types:?}"
        );
        assert_eq!(offered(shell, "pfind -t sy"), ["symlink"], "{shell}");
        assert_eq!(
            offered(shell, "pfind --sort "),
            sorted(&["path", "size", "mtime"]),
            "{shell}"
        );
        for option in ["--color", "--hyperlink"] {
            let line = format!("pfind {option} ");
            assert_eq!(
                offered(shell, &line),
                sorted(&["auto", "always", "never"]),
                "{shell}"
            );
        }
        let generate = offered(shell, "pfind --generate ");
        assert_eq!(generate, sorted(&["bash", "zsh", "fish", "man"]), "{shell}");
    }
}

/// Issue 30: the manual page of a `cargo install` user is found with no setup
/// when it is put in `~/.cargo/share/man/man1`: man-db looks in `../share/man`
/// beside each directory on `PATH`, and `~/.cargo/bin` is one.
#[test]
fn the_manual_page_beside_cargos_bin_is_found_by_man() {
    let env = TestEnv::new(&[".cargo/bin", ".cargo/share/man/man1"], &[]);
    let page = pfind_command(env.root(), &["--generate", "man"])
        .output()
        .unwrap();
    env.write(".cargo/share/man/man1/pfind.1", &page.stdout);
    std::fs::copy(
        env!("CARGO_BIN_EXE_pfind"),
        env.root().join(".cargo/bin/pfind"),
    )
    .unwrap();
    let path = format!("{}/.cargo/bin:/usr/bin:/bin", env.root().display());
    let out = Command::new("man")
        .args(["-w", "pfind"])
        .env_remove("MANPATH")
        .env("PATH", path)
        .env("HOME", env.root())
        .output()
        .expect("man (man-db) is needed for this test");
    let found = String::from_utf8_lossy(&out.stdout);
    let want = env.root().join(".cargo/share/man/man1/pfind.1");
    assert_eq!(found.trim_end(), want.to_str().unwrap(), "{out:?}");
}

#[test]
fn man_page_renders_without_warnings() {
    let out = pfind_command(Path::new("."), &["--generate", "man"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = out.stdout;
    let (warnings, ok) = pipe_through(
        "man --warnings -l - 2>&1 >/dev/null",
        &page,
        &[("MANWIDTH", "80")],
    );
    assert!(ok, "man failed (is man-db installed?)");
    assert_eq!(String::from_utf8_lossy(&warnings), "", "man warnings");
    let (rendered, ok) = pipe_through("man -l - | col -b", &page, &[("MANWIDTH", "80")]);
    assert!(ok);
    let rendered = String::from_utf8(rendered).unwrap();
    for wanted in [
        "NAME",
        "SYNOPSIS",
        "--max-results",
        "--format",
        "--generate",
        "checkpoints",
        // The full text of each option, as --help has it, not -h's summary.
        "comma-separated",
        "(AND)",
    ] {
        assert!(rendered.contains(wanted), "man page lacks {wanted}");
    }
}

// Usage errors end cleanly (issue 51): no clap usage line after them
// (`Usage: pfind --count [ROOT]...` said nothing the error had not) and no tip to
// pass an unknown option after `--` as a value (`-- --bogus`); a similar option's
// name, which helps, stays.

fn stderr_of(args: &[&str]) -> String {
    let out = pfind_command(std::path::Path::new("."), args)
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
