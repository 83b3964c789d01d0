//! Behaviour of every flag and root form, through the real binary on temp trees.

mod testenv;

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::process::Stdio;
use testenv::{pfind_command, split_records, TestEnv};

/// A small tree with a bit of everything the default walk must handle.
fn mixed_tree() -> TestEnv {
    let env = TestEnv::new(
        &["a/b/c", "empty", ".hidden_dir", "photos"],
        &[
            "top.jpg",
            "top.txt",
            ".hidden.jpg",
            ".jpg",
            "a/one.JPG",
            "a/b/two.png",
            "a/b/c/three.jpeg",
            ".hidden_dir/inner.txt",
            "photos/IMG_0001.jpg",
            "photos/IMG_0002.png",
            "photos/notes.txt",
        ],
    );
    env.symlink("top.jpg", "link_to_file.jpg");
    env.symlink("a", "link_to_dir");
    env.symlink("missing", "dangling.jpg");
    env.mkfifo("a/fifo.jpg");
    env
}

const ALL_MIXED: &[&str] = &[
    "top.jpg",
    "top.txt",
    ".hidden.jpg",
    ".jpg",
    "a/one.JPG",
    "a/b/two.png",
    "a/b/c/three.jpeg",
    ".hidden_dir/inner.txt",
    "photos/IMG_0001.jpg",
    "photos/IMG_0002.png",
    "photos/notes.txt",
];

#[test]
fn prints_every_regular_file_and_nothing_else() {
    // Hidden files included; links, the dangling link and the FIFO not printed, and
    // link_to_dir not followed (a/one.JPG appears once, not again under the link).
    mixed_tree().assert_output::<&str>(&[], ALL_MIXED);
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

#[test]
fn size_filters() {
    let env = TestEnv::new(&["d"], &["empty"]);
    env.write("d/100b", &[b'x'; 100]);
    env.write("d/1000b", &[b'x'; 1000]);
    env.write("d/1024b", &[b'x'; 1024]);
    env.write("d/5000b", &[b'x'; 5000]);
    env.symlink("d/5000b", "link"); // a link is never sized, never printed
    env.assert_output(&["-S", "+1k"], &["d/1000b", "d/1024b", "d/5000b"]);
    env.assert_output(&["-S", "+1ki"], &["d/1024b", "d/5000b"]);
    env.assert_output(&["-S", "-1k"], &["empty", "d/100b", "d/1000b"]);
    env.assert_output(&["-S", "-0"], &["empty"]);
    env.assert_output(&["-S", "1024b"], &["d/1024b"]);
    env.assert_output(
        &["-S", "+100b", "-S", "-1ki"],
        &["d/100b", "d/1000b", "d/1024b"],
    );
    env.assert_output(&["--size", "+1k", "-e", "x"], &[]);
}

#[test]
fn count_matches_the_printed_paths() {
    let env = mixed_tree();
    for (args, want) in [
        (&["-c"][..], "11\n"),
        (&["-c", "-e", "jpg"], "4\n"),
        (&["--count", "-n", "IMG_*"], "2\n"),
        (&["-c", "-E", "a"], "8\n"),
        (&["-c", "-S", "+1"], "0\n"),
        (&["-c", "-e", "gif"], "0\n"),
    ] {
        for threads in testenv::THREAD_COUNTS {
            let out = env.run(&[args, &["-j", threads]].concat());
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                want,
                "{args:?} -j {threads}"
            );
            assert!(out.status.success());
        }
    }
}

#[test]
fn print0_and_odd_names_round_trip_byte_exact() {
    let env = TestEnv::new(&[], &[]);
    let names: Vec<&[u8]> = vec![
        b"with space",
        b"new\nline",
        b"tab\there",
        b"-leading-dash",
        b"*?[]",
        b"bad\xff\xfeutf8",
        "ünïcödé".as_bytes(),
        b"back\\slash",
    ];
    for name in &names {
        std::fs::write(env.root().join(OsStr::from_bytes(name)), b"").unwrap();
    }
    let long = vec![b'n'; 255];
    std::fs::write(env.root().join(OsStr::from_bytes(&long)), b"").unwrap();
    let mut expected: Vec<Vec<u8>> = names.iter().map(|n| n.to_vec()).collect();
    expected.push(long);
    env.assert_records(&["-0"], 0, &expected);
    env.assert_records(&["--print0"], 0, &expected);
}

#[test]
fn root_forms() {
    let env = TestEnv::new(&["dir/sub"], &["dir/f", "dir/sub/g", "other"]);
    env.assert_output(&["dir"], &["dir/f", "dir/sub/g"]);
    env.assert_output(&["dir/"], &["dir/f", "dir/sub/g"]);
    env.assert_output(&["dir//"], &["dir//f", "dir//sub/g"]); // as find prints it
    env.assert_output(&["."], &["./dir/f", "./dir/sub/g", "./other"]);
    env.assert_output::<&str>(&[], &["dir/f", "dir/sub/g", "other"]); // no "./"
    env.assert_output(&["dir/sub", "other"], &["dir/sub/g", "other"]);
    env.assert_output(&["dir/f", "-e", "x"], &[]); // a file root is filtered too
    let absolute = env.root().join("dir");
    let absolute = absolute.to_str().unwrap();
    env.assert_output(
        &[absolute],
        &[&format!("{absolute}/f"), &format!("{absolute}/sub/g")],
    );
}

#[test]
fn missing_root_is_an_error_but_other_roots_are_walked() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    // `nope dir` would be fd's PATTERN DIR, refused before the walk (tests/hints.rs).
    for threads in testenv::THREAD_COUNTS {
        let out = env.run(&["dir", "nope", "-j", threads]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "dir/f\n");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "pfind: nope: No such file or directory \
             (roots are directories to search; match names with -n GLOB or -e EXT)\n"
        );
    }
}

/// As `find fifo -type f` does: nothing matches a FIFO root, which is not an error,
/// and it is never opened (which would block).
#[test]
fn fifo_root_matches_nothing_and_is_not_opened() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    env.mkfifo("pipe");
    env.assert_output(&["pipe"], &[]);
    env.assert_output(
        &["pipe", "dir", "-t", "f", "-t", "d", "-t", "l"],
        &["dir/f"],
    );
}

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

#[test]
fn closed_pipe_stops_quietly_with_status_0() {
    // Enough output to fill the pipe many times over, so pfind is certainly still
    // writing when the reader goes away.
    let env = TestEnv::for_big_tree();
    for d in 0..50 {
        for f in 0..400 {
            env.write(
                format!("directory_{d:03}/a_fairly_long_file_name_{f:05}.txt"),
                b"",
            );
        }
    }
    for threads in testenv::THREAD_COUNTS {
        let mut child = pfind_command(env.root(), &["-j", threads])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "-j {threads}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "-j {threads}");
    }
}

#[test]
fn writing_to_a_full_device_is_an_error() {
    let env = TestEnv::new(&[], &["a", "b"]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = pfind_command(env.root(), &["-j", "2"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: stdout: No space left on device\n"
    );
}

#[test]
fn records_are_never_split_between_workers() {
    // Many workers, many directories, long lines: every line must come out whole.
    let env = TestEnv::for_big_tree();
    let mut expected = Vec::new();
    for d in 0..64 {
        for f in 0..200 {
            let path = format!("d{d:02}/{}_{f:04}", "x".repeat(100));
            env.write(&path, b"");
            expected.push(path.into_bytes());
        }
    }
    let out = env.run(&["-j", "16"]);
    testenv::assert_same_records(
        "many workers",
        &split_records(&out.stdout, b'\n'),
        &expected,
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

/// A root that is a symbolic link to a directory is not followed (find -P's rule)
/// unless written with a slash or with -L; issue 28, item 10: the run that would
/// print nothing and say nothing now says, once, how to search it. Nothing else
/// about links as roots changes.
#[test]
fn symlinked_root_is_not_followed_unless_written_with_a_slash() {
    let env = TestEnv::new(&["dir"], &["dir/f"]);
    env.symlink("dir", "lnk");
    env.symlink("dir/f", "flnk");
    env.symlink("missing", "dangling");
    let warning = "pfind: warning: lnk is a symbolic link to a directory, and links are not \
                   followed: to search the directory, give it as lnk/ or use -L\n";
    let cases: [(&[&str], &str, &str); 7] = [
        (&["lnk"], "", warning),
        (&["lnk", "-n", "f"], "", warning),
        (&["lnk", "-t", "l"], "lnk\n", ""),
        (&["lnk/"], "lnk/f\n", ""),
        (&["-L", "lnk"], "lnk/f\n", ""),
        (&["flnk", "-t", "f"], "", ""),
        (&["dangling"], "", ""),
    ];
    for (args, stdout, stderr) in cases {
        let out = env.run(args);
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{args:?}");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
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
