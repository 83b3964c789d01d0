//! Commands run on matches (src/cli/exec.rs, src/exec): `--exec` and `--exec-batch`
//! (`-X`) at 1, 2 and 16 threads: every placeholder, alone and in batches; the
//! terminators; names that are not UTF-8; output that is never interleaved; exit
//! statuses and messages; batches cut at a real argument limit; commands that start
//! while the walk goes on; stdin; a reader that leaves; the output options refused;
//! the hint for fd's `-x`; the manual page. Then fd's forms (several `--exec` per
//! match, `--exec-dir`, `--batch-size`), and commands that must run whatever happens:
//! SIGPIPE, process and address-space limits set in the child, a closed stdout, a
//! script without `#!`, a match run as the program, paths that start with `-`.

use crate::testenv::{
    as_limited_user, assert_same_records, pfind_command, split_records, with_rlimit, TestEnv,
    THREAD_COUNTS,
};
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn records(list: &[&str]) -> Vec<Vec<u8>> {
    list.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs pfind in `env` with `args` then `-j N`, at every thread count (the command
/// before must end with its terminator), and hands each result to `check`.
fn at_each_thread_count(env: &TestEnv, args: &[&str], mut check: impl FnMut(&str, &Output)) {
    for threads in THREAD_COUNTS {
        let mut full: Vec<&str> = args.to_vec();
        full.extend(["-j", threads]);
        let out = env.run(&full);
        check(&format!("pfind {full:?}"), &out);
    }
}

/// Asserts a run printed nothing on stderr and succeeded.
fn assert_clean(context: &str, out: &Output) {
    assert_eq!(text(&out.stderr), "", "{context}: stderr");
    assert_eq!(out.status.code(), Some(0), "{context}: status");
}

fn placeholder_tree() -> TestEnv {
    TestEnv::new(
        &["d", "sp ace"],
        &["d/a.tar.gz", "d/.bashrc", "top.txt", "noext", "sp ace/x.y"],
    )
}

#[test]
fn every_placeholder_expands_per_match() {
    let env = placeholder_tree();
    // With no root, paths start with `./` (a name starting with `-` must not look
    // like an option), and the parent of a file at the top is `.`.
    let expected = records(&[
        "./d/a.tar.gz|a.tar.gz|./d|./d/a.tar|a.tar",
        "./d/.bashrc|.bashrc|./d|./d/.bashrc|.bashrc",
        "./top.txt|top.txt|.|./top|top",
        "./noext|noext|.|./noext|noext",
        "./sp ace/x.y|x.y|./sp ace|./sp ace/x|x",
    ]);
    let args = [
        "--exec",
        "printf",
        "%s|%s|%s|%s|%s\\0",
        "{}",
        "{/}",
        "{//}",
        "{.}",
        "{/.}",
        ";",
    ];
    env.assert_records(&args, 0, &expected);
    // With a root, paths are as pfind prints them.
    let mut rooted = vec!["d"];
    rooted.extend(args);
    let expected = records(&[
        "d/a.tar.gz|a.tar.gz|d|d/a.tar|a.tar",
        "d/.bashrc|.bashrc|d|d/.bashrc|.bashrc",
    ]);
    env.assert_records(&rooted, 0, &expected);
    // Placeholders inside words, braces, and the program as a placeholder.
    env.assert_records(
        &[
            "d",
            "-n",
            "*.gz",
            "--exec",
            "printf",
            "<{/.}>{{}}%s\\0",
            "{}",
            ";",
        ],
        0,
        &records(&["<a.tar>{}d/a.tar.gz"]),
    );
    // No placeholder: the path is the last argument.
    env.assert_records(
        &["d", "--exec", "printf", "%s=%s\\0", "path", ";"],
        0,
        &records(&["path=d/a.tar.gz", "path=d/.bashrc"]),
    );
}

#[test]
fn a_batch_repeats_the_word_with_placeholders_for_each_path() {
    let env = placeholder_tree();
    let all = ["d/a.tar.gz", "d/.bashrc", "top.txt", "noext", "sp ace/x.y"];
    let expected: Vec<Vec<u8>> = all.iter().map(|p| format!("./{p}").into_bytes()).collect();
    // Implied `{}`, at the end; `+` ends the command and pfind's options follow.
    env.assert_records(&["-X", "printf", "%s\\0", "+"], 0, &expected);
    let expected = records(&["[a.tar]", "[.bashrc]", "[top]", "[noext]", "[x]", "end"]);
    env.assert_records(
        &["--exec-batch", "printf", "%s\\0", "[{/.}]", "end", "+"],
        0,
        &expected,
    );
    // Everything fits one command: it runs once, with every path.
    at_each_thread_count(
        &env,
        &["-X", "sh", "-c", "echo $#", "sh", "+"],
        |context, out| {
            assert_clean(context, out);
            assert_eq!(text(&out.stdout), "5\n", "{context}");
        },
    );
}

#[test]
fn terminators_end_the_command_and_options_follow() {
    let env = TestEnv::new(&["d"], &["d/a.txt", "d/b.rs", "c.txt"]);
    let txt = records(&["./d/a.txt", "./c.txt"]);
    env.assert_records(&["--exec", "printf", "%s\\0", ";", "-e", "txt"], 0, &txt);
    env.assert_records(&["-X", "printf", "%s\\0", "+", "-e", "txt"], 0, &txt);
    // Without a terminator, the command runs to the end of the line.
    let out = env.run(&["-e", "txt", "-j", "2", "--exec", "printf", "%s\\0"]);
    assert_clean("to the end", &out);
    assert_same_records("to the end", &split_records(&out.stdout, 0), &txt);
    // A `--` inside the command is the command's.
    let out = env.run(&["-e", "rs", "--exec", "printf", "%s|%s\\0", "--"]);
    assert_clean("--", &out);
    assert_eq!(out.stdout, b"--|./d/b.rs\0");
    // The other option's terminator is refused, saying which is which.
    let cases: &[(&[&str], &str)] = &[
        (
            &["-X", "rm", ";", "-e", "txt"],
            "error: ';' in the command of --exec-batch, which ends at '+' (as find's \
             -exec ... {} +) or at the end of the line; ';' ends --exec\n",
        ),
        (
            &["--exec", "rm", "{}", "+"],
            "error: '{} +' in the command of --exec, which runs one command per match and \
             ends at ';'; for find's -exec ... {} + (many matches per command) use \
             --exec-batch (-X) CMD ARGS... +\n",
        ),
    ];
    for &(args, want) in cases {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).starts_with(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing runs");
    }
}

#[test]
fn names_that_are_not_utf8_reach_the_command_byte_for_byte() {
    let env = TestEnv::new(&[], &[]);
    let names: &[&[u8]] = &[
        b"bad\xff\xfe.bin",
        b"new\nline",
        b"-dash",
        b"sp ace",
        b"q'\"$x",
    ];
    for name in names {
        env.write(Path::new(OsStr::from_bytes(name)), b"");
    }
    let expected: Vec<Vec<u8>> = names.iter().map(|n| [b"./", *n].concat()).collect();
    env.assert_records(&["--exec", "printf", "%s\\0", ";"], 0, &expected);
    env.assert_records(&["-X", "printf", "%s\\0", "+"], 0, &expected);
    let basenames: Vec<Vec<u8>> = names.iter().map(|n| n.to_vec()).collect();
    env.assert_records(&["--exec", "printf", "%s\\0", "{/}", ";"], 0, &basenames);
}

/// Each command writes four lines to stdout and four to stderr, slowly; with stdout
/// and stderr one pipe, each command's eight lines must come together (its stdout,
/// then its stderr), and pfind's own messages (loops, with -L) on lines between.
#[test]
fn each_commands_output_is_written_whole() {
    let env = TestEnv::new(&[], &[]);
    for i in 0..24 {
        env.write(format!("f{i:02}"), b"");
    }
    env.symlink(".", "loop");
    let script = "for i in 1 2 3 4; do echo \"$1 out $i\"; echo \"$1 err $i\" >&2; \
                  sleep 0.002; done";
    for threads in ["2", "16"] {
        let args = [
            "-L", "-j", threads, "--exec", "sh", "-c", script, "sh", "{}", ";",
        ];
        let (reader, writer) = std::io::pipe().unwrap();
        let mut command = pfind_command(env.root(), &args);
        command.stdout(writer.try_clone().unwrap()).stderr(writer);
        let mut child = command.spawn().unwrap();
        drop(command);
        let mut merged = String::new();
        let mut reader = reader;
        reader.read_to_string(&mut merged).unwrap();
        let status = child.wait().unwrap();
        // The loop is an error (status 1); every command succeeded.
        assert_eq!(status.code(), Some(1), "-j {threads}\n{merged}");
        let lines: Vec<&str> = merged.lines().collect();
        let mut i = 0;
        let mut commands = 0;
        while i < lines.len() {
            if lines[i].starts_with("pfind: ") {
                assert_eq!(lines[i], "pfind: ./loop: filesystem loop detected");
                i += 1;
                continue;
            }
            let path = lines[i].split(' ').next().unwrap();
            let want: Vec<String> = ["out", "err"]
                .iter()
                .flat_map(|stream| (1..=4).map(move |n| format!("{path} {stream} {n}")))
                .collect();
            assert_eq!(
                lines.get(i..i + 8),
                Some(&want.iter().map(String::as_str).collect::<Vec<_>>()[..]),
                "-j {threads}: the output of {path} is not whole:\n{merged}"
            );
            i += 8;
            commands += 1;
        }
        assert_eq!(commands, 24, "-j {threads}");
    }
}

#[test]
fn failed_commands_give_status_1_and_say_so_once() {
    let env = TestEnv::new(&[], &["a", "b", "c"]);
    // (arguments, stderr)
    let cases: &[(&[&str], &str)] = &[
        (
            &["--exec", "sh", "-c", "exit 3", ";"],
            "pfind: sh: 3 of 3 commands exited with a non-zero status\n",
        ),
        (
            &[
                "--exec",
                "sh",
                "-c",
                "case $0 in *b) exit 1;; esac",
                "{}",
                ";",
            ],
            "pfind: sh: 1 of 3 commands exited with a non-zero status\n",
        ),
        (
            &["-X", "sh", "-c", "exit 3", "+"],
            "pfind: sh: exited with status 3\n",
        ),
        (
            &["--exec", "pfind-no-such-command", ";"],
            "pfind: pfind-no-such-command: No such file or directory\n",
        ),
        (
            &["-X", "pfind-no-such-command", "-v", "+"],
            "pfind: pfind-no-such-command: No such file or directory\n",
        ),
        (
            &["--exec", "sh", "-c", "kill -9 $$", ";"],
            "pfind: sh: killed by signal 9 (SIGKILL)\n\
             pfind: sh: killed by signal 9 (SIGKILL)\n\
             pfind: sh: killed by signal 9 (SIGKILL)\n",
        ),
    ];
    for &(args, want) in cases {
        at_each_thread_count(&env, args, |context, out| {
            assert_eq!(text(&out.stderr), want, "{context}");
            assert_eq!(out.status.code(), Some(1), "{context}");
        });
    }
    // A program that is a placeholder is a different program for each match: each
    // failure is its own, and its name is escaped as any path in a message.
    let env = TestEnv::new(&[], &["plain", "esc\x1b[31m"]);
    at_each_thread_count(&env, &["--exec", "{}", ";"], |context, out| {
        let mut lines: Vec<String> = text(&out.stderr).lines().map(String::from).collect();
        lines.sort();
        assert_eq!(
            lines,
            [
                "pfind: ./esc\\x1b[31m: Permission denied",
                "pfind: ./plain: Permission denied"
            ],
            "{context}"
        );
        assert_eq!(out.status.code(), Some(1), "{context}");
    });
}

/// A missing program is said once, and no more commands are tried: the walk stops.
#[test]
fn a_missing_program_stops_the_run() {
    let env = TestEnv::new(&[], &[]);
    for i in 0..300 {
        env.write(format!("f{i}"), b"");
    }
    at_each_thread_count(
        &env,
        &["--exec", "pfind-no-such-command", ";"],
        |context, out| {
            assert_eq!(
                text(&out.stderr),
                "pfind: pfind-no-such-command: No such file or directory\n",
                "{context}"
            );
            assert_eq!(out.status.code(), Some(1), "{context}");
        },
    );
}

#[test]
fn commands_run_several_at_once() {
    // Each command waits until four have started: with -j 4 they all finish.
    let env = TestEnv::new(&["t"], &["t/a", "t/b", "t/c", "t/d"]);
    let marks = tempfile::tempdir().unwrap();
    let script = "touch \"$0/$$\"; n=0; \
                  while [ $(ls \"$0\" | wc -l) -lt 4 ]; do \
                  n=$((n + 1)); [ $n -gt 1000 ] && exit 1; sleep 0.01; done";
    let dir = marks.path().to_str().unwrap();
    let out = env.run(&["t", "-j", "4", "--exec", "sh", "-c", script, dir]);
    assert_clean("four at once", &out);
}

/// Under a descriptor limit with no room for four commands' pipes, fewer run at
/// once, and the walk leaves them what they need: every command runs.
#[test]
fn a_low_descriptor_limit_leaves_room_for_the_commands() {
    let env = TestEnv::new(&["a/b/c"], &[]);
    let mut expected = Vec::new();
    for i in 0..40 {
        let path = format!("a/b/c/{i}");
        env.write(&path, b"");
        expected.push(format!("./{path}").into_bytes());
    }
    for limit in [10, 16] {
        let mut command = pfind_command(env.root(), &["-j", "4", "--exec", "printf", "%s\\0"]);
        // SAFETY: setrlimit is async-signal-safe, as required between fork and exec.
        unsafe {
            command.pre_exec(move || {
                let rlimit = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = command.output().unwrap();
        let context = format!("ulimit -n {limit}");
        assert_clean(&context, &out);
        assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
    }
}

#[test]
fn stdin_is_dev_null_for_each_match_and_pfinds_for_batches() {
    let env = TestEnv::new(&[], &["a", "b"]);
    let run = |args: &[&str]| {
        let mut child = pfind_command(env.root(), args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"typed\n").unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(&[
        "--exec",
        "sh",
        "-c",
        "cat; echo \"$0\"",
        "{}",
        ";",
        "-j",
        "2",
    ]);
    assert_clean("--exec", &out);
    assert_same_records(
        "--exec",
        &split_records(&out.stdout, b'\n'),
        &records(&["./a", "./b"]),
    );
    let out = run(&["-X", "sh", "-c", "cat; echo $#", "sh", "+"]);
    assert_clean("-X", &out);
    assert_eq!(text(&out.stdout), "typed\n2\n");
}

#[test]
fn filters_and_max_results_choose_the_matches() {
    let env = TestEnv::new(&["d/e"], &["d/a.txt", "d/e/b.txt", "c.rs"]);
    env.assert_records(
        &["-t", "d", "--exec", "printf", "%s\\0", ";"],
        0,
        &records(&["./d", "./d/e"]),
    );
    env.assert_records(
        &["-n", "*.txt", "-d", "2", "-X", "printf", "%s\\0", "+"],
        0,
        &records(&["./d/a.txt"]),
    );
    at_each_thread_count(
        &env,
        &["--max-results", "2", "--exec", "echo", ";"],
        |c, out| {
            assert_clean(c, out);
            assert_eq!(text(&out.stdout).lines().count(), 2, "{c}");
        },
    );
    at_each_thread_count(&env, &["-1", "-X", "echo", "+"], |c, out| {
        assert_clean(c, out);
        assert_eq!(text(&out.stdout).split(' ').count(), 1, "{c}");
    });
}

#[test]
fn output_options_are_refused_with_a_command() {
    let env = TestEnv::new(&[], &["a"]);
    let cases: &[(&str, &str)] = &[
        ("-c", "--count"),
        ("-l", "--long"),
        ("-0", "--print0"),
        ("-s", "--sum-size"),
        ("-q", "--quiet"),
        ("--json", "--json"),
        ("--sort=path", "--sort"),
        ("--format={}", "--format"),
    ];
    for &(option, name) in cases {
        for command in [&["--exec", "echo", ";"][..], &["-X", "echo", "+"]] {
            let mut args = vec![option];
            args.extend(command);
            let out = env.run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = text(&out.stderr);
            assert!(
                err.contains("cannot be used with") && err.contains(name),
                "{args:?}: {err}"
            );
        }
    }
    let out = env.run(&["--exec", "echo", ";", "-X", "echo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with(
        "error: the argument '--exec <CMD>...' cannot be used with '--exec-batch <CMD>...'"
    ));
}

/// How many files `BIG` holds: more than the paths waiting for 16 runners of
/// `--exec` (64 each) and than one 256 KiB block of paths.
const BIG_FILES: usize = 1300;

/// A directory `BIG` whose [`BIG_FILES`] long names fill more than one 256 KiB
/// block of paths, and an empty `BIG/sub` that is only queued once `BIG` is listed;
/// returns the tree and the path of `BIG/sub/marker`, which the tests' first
/// command creates.
fn tree_with_a_big_first_block() -> (TestEnv, String) {
    let env = TestEnv::new(&[], &[]);
    let big = format!("B{}", "i".repeat(200));
    for i in 0..BIG_FILES {
        env.write(format!("{big}/{i:04}{}", "n".repeat(246)), b"");
    }
    std::fs::create_dir(env.root().join(&big).join("sub")).unwrap();
    let marker = format!("{big}/sub/marker");
    (env, marker)
}

/// Per match: `BIG`'s blocks of paths fill the queue, so the walk waits inside
/// `BIG`'s listing until commands have run; the first of them
/// creates `BIG/sub/marker`, and `BIG/sub` is only queued once `BIG` is listed. So
/// the walk finds the marker, and runs the command on it, only if commands ran while
/// it was still going.
#[test]
fn commands_start_while_the_walk_goes_on() {
    let (env, marker) = tree_with_a_big_first_block();
    // `: >` rather than `touch`: one process per match instead of two (3,900 fewer
    // in this test), and the marker is made all the same.
    let script = ": > \"$0\"; echo \"$1\"";
    at_each_thread_count(
        &env,
        &["--exec", "sh", "-c", script, &marker, "{}", ";"],
        |context, out| {
            assert_clean(context, out);
            let printed = text(&out.stdout);
            assert_eq!(printed.lines().count(), BIG_FILES + 1, "{context}");
            assert!(printed.contains(&format!("./{marker}\n")), "{context}");
            std::fs::remove_file(env.root().join(&marker)).unwrap();
        },
    );
}

/// The environment pfind gets in the argument-limit tests: `PAD` alone, of this
/// many bytes, so that little of the 128 KiB limit is left for arguments.
const PAD: usize = 96 * 1024;

/// pfind under `ulimit -s 256` (the argument limit is then Linux's floor, 128 KiB)
/// with an environment of `PAD` alone.
fn with_small_argument_limit(command: &mut Command) {
    command.env_clear().env("PAD", "x".repeat(PAD));
    // SAFETY: setrlimit is async-signal-safe, as required between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 256 * 1024,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_STACK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Batches are as large as the limit allows, less the environment and pfind's
/// margin, and the system accepts each: the count of every batch but the last is
/// exactly what the arithmetic of `exec/batch.rs` gives.
#[test]
fn batches_fill_up_to_the_argument_limit() {
    let env = TestEnv::new(&[], &[]);
    let name_len = 100;
    for i in 0..3000 {
        env.write(format!("d/{i:04}{}", "n".repeat(name_len - 4)), b"");
    }
    let pointer = std::mem::size_of::<usize>();
    let cost = |len: usize| len + 1 + pointer;
    let environment = cost("PAD=".len() + PAD) + pointer;
    let fixed: usize = ["sh", "-c", "echo $#", "sh"]
        .iter()
        .map(|w| cost(w.len()))
        .sum::<usize>()
        + pointer;
    let room = 128 * 1024 - environment - (2048 + 4096) - fixed;
    let per_batch = room / cost("./d/".len() + name_len);
    for threads in THREAD_COUNTS {
        let mut command = pfind_command(
            env.root(),
            &["-j", threads, "-X", "sh", "-c", "echo $#", "sh"],
        );
        with_small_argument_limit(&mut command);
        let out = command.output().unwrap();
        assert_clean(&format!("-j {threads}"), &out);
        let counts: Vec<usize> = text(&out.stdout)
            .lines()
            .map(|line| line.parse().unwrap())
            .collect();
        assert_eq!(counts.iter().sum::<usize>(), 3000, "-j {threads}");
        let (last, full) = counts.split_last().unwrap();
        assert!(full.len() >= 10, "-j {threads}: {counts:?}");
        assert!(
            full.iter().all(|&n| n == per_batch),
            "-j {threads}: {counts:?}, want {per_batch}"
        );
        assert!(*last <= per_batch);
    }
}

/// A batch the system refuses as too long (`E2BIG`) is run in halves, down to the
/// paths it refuses alone: here two paths longer than Linux's limit on one argument
/// (128 KiB), deep in a chain of 255-byte names, among short ones that all still run.
#[test]
fn a_batch_the_system_refuses_is_run_in_halves() {
    let env = TestEnv::new(&[], &[]);
    let mut expected = Vec::new();
    for i in 0..10 {
        env.write(format!("short{i}"), b"");
        expected.push(format!("./short{i}").into_bytes());
    }
    let component = [b'd'; 255];
    let root = std::ffi::CString::new(env.root().as_os_str().as_bytes()).unwrap();
    // SAFETY: NUL-terminated names; each descriptor is closed once its child is open.
    unsafe {
        let mut dir = libc::open(root.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
        assert!(dir >= 0);
        let name = std::ffi::CString::new(&component[..]).unwrap();
        for _ in 0..(140 * 1024 / 256) {
            assert_eq!(libc::mkdirat(dir, name.as_ptr(), 0o755), 0, "mkdirat");
            let child = libc::openat(dir, name.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
            assert!(child >= 0, "openat");
            libc::close(dir);
            dir = child;
        }
        for file in [c"a", c"b"] {
            let fd = libc::openat(dir, file.as_ptr(), libc::O_WRONLY | libc::O_CREAT, 0o644);
            assert!(fd >= 0, "create");
            libc::close(fd);
        }
        libc::close(dir);
    }
    for threads in THREAD_COUNTS {
        let out = env.run(&["-j", threads, "-X", "printf", "%s\\n", "+"]);
        let context = format!("-j {threads}");
        assert_eq!(
            text(&out.stderr),
            "pfind: printf: Argument list too long\n".repeat(2),
            "{context}"
        );
        assert_eq!(out.status.code(), Some(1), "{context}");
        assert_same_records(&context, &split_records(&out.stdout, b'\n'), &expected);
    }
    // The chain is deeper than `remove_dir_all` would like; `rm -rf` copes.
    let _ = Command::new("rm")
        .arg("-rf")
        .arg(env.root().join(OsStr::from_bytes(&component)))
        .status();
}

/// Batches: as for `commands_start_while_the_walk_goes_on`, with a limit small
/// enough that `BIG`'s first block of paths fills several batches, more than wait
/// while one runs.
#[test]
fn batches_run_while_the_walk_goes_on() {
    let (env, marker) = tree_with_a_big_first_block();
    for threads in THREAD_COUNTS {
        let args = [
            "-j",
            threads,
            "-X",
            "sh",
            "-c",
            "touch \"$0\"; printf '%s\\n' \"$@\"",
            &marker,
        ];
        let mut command = pfind_command(env.root(), &args);
        with_small_argument_limit(&mut command);
        let out = command.output().unwrap();
        assert_clean(&format!("-j {threads}"), &out);
        let printed = text(&out.stdout);
        assert_eq!(printed.lines().count(), BIG_FILES + 1, "-j {threads}");
        assert!(printed.contains(&format!("./{marker}\n")), "-j {threads}");
        std::fs::remove_file(env.root().join(&marker)).unwrap();
    }
}

/// A reader that leaves ends the run quietly, with status 0: per match, pfind's next
/// write fails; a batch writing to the pipe itself dies of SIGPIPE.
#[test]
fn a_reader_that_leaves_ends_the_run_quietly() {
    let env = TestEnv::new(&[], &[]);
    for i in 0..2000 {
        env.write(format!("f{i}"), b"");
    }
    for args in [&["--exec", "echo", ";"][..], &["-X", "yes", "+"]] {
        for threads in THREAD_COUNTS {
            let mut full = args.to_vec();
            full.extend(["-j", threads]);
            let mut child = pfind_command(env.root(), &full)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut first = [0u8; 1];
            child.stdout.take().unwrap().read_exact(&mut first).unwrap();
            let out = child.wait_with_output().unwrap();
            assert_clean(&format!("{full:?}"), &out);
        }
    }
}

/// With one command at a time (`-j 1`) nothing can come between two commands'
/// output, so each writes straight to pfind's stdout (here a file), as with fd's
/// one thread; with more, pfind captures it through a pipe and writes it whole.
#[test]
fn one_runner_lets_commands_write_straight_to_stdout() {
    let env = TestEnv::new(&[], &["a", "b"]);
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out");
    for (threads, straight) in [("1", true), ("2", false), ("8", false)] {
        let file = std::fs::File::create(&target).unwrap();
        let status = pfind_command(
            env.root(),
            &[
                "-j",
                threads,
                "--exec",
                "sh",
                "-c",
                "readlink /proc/$$/fd/1",
                "sh",
                "{}",
            ],
        )
        .stdout(file)
        .status()
        .unwrap();
        assert!(status.success(), "-j {threads}");
        let written = std::fs::read_to_string(&target).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), 2, "-j {threads}: {written}");
        for line in lines {
            if straight {
                assert_eq!(Path::new(line), target, "-j {threads}");
            } else {
                assert!(line.starts_with("pipe:["), "-j {threads}: {line}");
            }
        }
    }
}

/// fd's `-x CMD` typed to pfind, whose `-x` is --one-file-system: refused, with the
/// command line to type instead.
#[test]
fn fd_users_typing_x_are_told_to_write_exec() {
    let env = TestEnv::new(&["dir"], &["dir/a"]);
    let hint = |word: &str, typed: &str| {
        format!(
            "pfind: '-x' is --one-file-system here, not fd's --exec: '{word}' is a command, \
             not a directory to search; to run it on each match, use --exec: {typed}\n"
        )
    };
    let cases: &[(&[&str], String)] = &[
        (&["-x", "rm"], hint("rm", "pfind --exec rm")),
        (
            &[".", "-x", "echo", "{}"],
            hint("echo", "pfind . --exec echo {}"),
        ),
        (&["-x", "rm", "-rf"], hint("rm", "pfind --exec rm -rf")),
        (
            &["-e", "txt", "-Lx", "wc", "-l"],
            hint("wc", "pfind -e txt -L --exec wc -l"),
        ),
        (
            &["-x", "sh", "-c", "echo $0"],
            hint("sh", "pfind --exec sh -c 'echo $0'"),
        ),
    ];
    for (args, want) in cases {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr), want.as_str(), "{args:?}");
        assert!(out.stdout.is_empty());
    }
    // `-x` as pfind means it: a directory to search, a value, a command's word.
    let fine: &[&[&str]] = &[
        &["-x", "dir"],
        &["-x"],
        &["dir", "-x", "-e", "x"],
        &["-n", "-x", "dir"],
        &["dir", "--exec", "echo", "-x", "rm", ";"],
    ];
    for args in fine {
        let out = env.run(args);
        assert_eq!(text(&out.stderr), "", "{args:?}");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
    // fd's `-X` is pfind's `-X`.
    let out = env.run(&["-X", "echo"]);
    assert_clean("-X", &out);
    assert_eq!(text(&out.stdout), "./dir/a\n");
}

#[test]
fn the_manual_page_describes_both_options() {
    let page = pfind_command(Path::new("."), &["--generate", "man"])
        .output()
        .unwrap()
        .stdout;
    let mut man = Command::new("sh")
        .args(["-c", "man -l - | col -b"])
        .env("MANWIDTH", "200")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    man.stdin.take().unwrap().write_all(&page).unwrap();
    // Justified lines stretch the blanks between words: compare words.
    let rendered = text(&man.wait_with_output().unwrap().stdout);
    let rendered = rendered.split_whitespace().collect::<Vec<_>>().join(" ");
    for wanted in [
        "--exec <CMD>",
        "-X, --exec-batch <CMD>",
        "find's -exec ... {} +",
        "with stdin from /dev/null",
    ] {
        assert!(
            rendered.contains(wanted),
            "man page lacks {wanted}:\n{rendered}"
        );
    }
}

pub(crate) fn os(args: &[&[u8]]) -> Vec<&'static OsStr> {
    args.iter()
        .map(|a| OsStr::from_bytes(Vec::leak(a.to_vec())))
        .collect()
}

/// Runs pfind at each thread count; asserts status 0 and an empty stderr, and
/// returns each run's stdout.
pub(crate) fn outputs(env: &TestEnv, args: &[&[u8]]) -> Vec<Vec<u8>> {
    (THREAD_COUNTS.iter())
        .map(|threads| {
            // `-j` first: a command's words run to the end of the line.
            let args = [&[b"-j", threads.as_bytes()], args].concat();
            let out = env.run(&os(&args));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
            assert_eq!(stderr, "", "{args:?}");
            out.stdout
        })
        .collect()
}

pub(crate) fn sorted_lines(stdout: &[u8]) -> Vec<Vec<u8>> {
    let mut lines = split_records(stdout, b'\n');
    lines.sort();
    lines
}

pub(crate) fn tree() -> TestEnv {
    let env = TestEnv::new(&[], &[]);
    env.write("a/keep.txt", b"keep\n");
    env.write("a/drop.txt", b"drop\n");
    env.write("-d/-n.txt", b"keep\n");
    env.write(OsStr::from_bytes(b"b/x\xff.txt"), b"keep\n");
    env
}

#[test]
fn several_exec_run_in_turn_on_each_match() {
    let env = tree();
    let args: &[&[u8]] = &[
        b"-e", b"txt", b"--exec", b"echo", b"1", b"{}", b";", b"--exec", b"echo", b"2", b"{/}",
    ];
    for stdout in outputs(&env, args) {
        // Each match's two lines are together, in the order typed.
        let lines = split_records(&stdout, b'\n');
        assert_eq!(lines.len(), 8, "{:?}", String::from_utf8_lossy(&stdout));
        for pair in lines.chunks(2) {
            let first = pair[0]
                .strip_prefix(b"1 ")
                .expect("the first command first");
            let name = first.rsplit(|&b| b == b'/').next().unwrap();
            assert_eq!(pair[1], [&b"2 "[..], name].concat());
        }
    }
    // Each only if the one before succeeded: grep fails on drop.txt (status 1).
    for threads in THREAD_COUNTS {
        let args = [
            "-j", threads, "-e", "txt", "--exec", "grep", "-q", "keep", ";", "--exec", "echo",
        ];
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(1));
        let stdout = out.stdout;
        let want: Vec<Vec<u8>> = vec![
            b"-d/-n.txt".to_vec(),
            b"a/keep.txt".to_vec(),
            b"b/x\xff.txt".to_vec(),
        ];
        let want: Vec<Vec<u8>> = want
            .into_iter()
            .map(|p| [&b"./"[..], &p].concat())
            .collect();
        assert_eq!(sorted_lines(&stdout), want);
    }
}

#[test]
fn a_failure_in_a_chain_is_counted_once_for_all_its_commands() {
    let env = tree();
    let out = env.run(&[
        "-e", "txt", "--exec", "grep", "-q", "keep", ";", "--exec", "true",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: --exec: 1 of 7 commands exited with a non-zero status\n"
    );
}

#[test]
fn exec_dir_runs_in_the_match_s_directory_on_dot_slash_name() {
    let env = tree();
    let root = env.root().canonicalize().unwrap();
    let script: &[u8] = b"printf '%s|%s|%s\\n' \"$(pwd -P)\" \"$1\" \"$2\"";
    let args: &[&[u8]] = &[
        b"-e",
        b"txt",
        b"--exec-dir",
        b"sh",
        b"-c",
        script,
        b"sh",
        b"{}",
        b"{//}",
    ];
    for stdout in outputs(&env, args) {
        let at = |dir: &[u8], name: &[u8]| {
            [root.as_os_str().as_bytes(), b"/", dir, b"|./", name, b"|."].concat()
        };
        let mut want = vec![
            at(b"-d", b"-n.txt"),
            at(b"a", b"keep.txt"),
            at(b"a", b"drop.txt"),
            at(b"b", b"x\xff.txt"),
        ];
        want.sort();
        assert_eq!(sorted_lines(&stdout), want);
    }
    // With a root, and mixed with --exec in the order typed.
    let args: &[&[u8]] = &[
        b"a",
        b"-n",
        b"keep*",
        b"--exec",
        b"echo",
        b"{}",
        b";",
        b"--exec-dir",
        b"echo",
        b"{}",
    ];
    for stdout in outputs(&env, args) {
        assert_eq!(stdout, b"a/keep.txt\n./keep.txt\n");
    }
}

#[test]
fn batch_size_caps_each_command() {
    let env = tree();
    for stdout in outputs(
        &env,
        &[b"-e", b"txt", b"-X", b"echo", b"+", b"--batch-size", b"3"],
    ) {
        let words: Vec<usize> = split_records(&stdout, b'\n')
            .iter()
            .map(|line| line.split(|&b| b == b' ').count())
            .collect();
        assert_eq!(words, [3, 1]);
    }
    for stdout in outputs(
        &env,
        &[b"-e", b"txt", b"-X", b"echo", b"+", b"--batch-size", b"0"],
    ) {
        assert_eq!(split_records(&stdout, b'\n').len(), 1);
    }
    for bad in [
        &["--batch-size", "2"][..],
        &["-X", "echo", "+", "--batch-size", "x"],
    ] {
        assert_eq!(env.run(bad).status.code(), Some(2), "{bad:?}");
    }
}

fn sorted_text_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// A tree of `count` files `f00`, `f01`, ... in the root.
fn numbered_files(count: usize) -> TestEnv {
    let names: Vec<String> = (0..count).map(|i| format!("f{i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    TestEnv::new(&[], &names)
}

fn executable(path: &Path, contents: &str) {
    std::fs::write(path, contents).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs `pfind ARGS` in `cwd` from a shell, with stdout closed (`>&-`).
fn with_stdout_closed(cwd: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .current_dir(cwd)
        .args(["-c", "exec \"$@\" >&-", "sh", env!("CARGO_BIN_EXE_pfind")])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Issue 28, item 1: a command killed by SIGPIPE while pfind's stdout still has its
/// reader is a failure like any signal: the walk goes on, the death is reported and
/// the status is 1. With one runner (which lets commands write straight to stdout)
/// and with `-X`, the old code took it for a reader that left and stopped silently.
#[test]
fn a_command_killed_by_sigpipe_is_reported_while_the_reader_is_there() {
    let env = numbered_files(10);
    let script = "case $0 in *f03) kill -PIPE $$;; esac; echo \"$0\"";
    for threads in THREAD_COUNTS {
        let out = env.run(&["--exec", "sh", "-c", script, "{}", ";", "-j", threads]);
        let context = format!("--exec -j {threads}");
        let want: Vec<String> = (0..10)
            .filter(|&i| i != 3)
            .map(|i| format!("./f{i:02}"))
            .collect();
        assert_eq!(sorted_text_lines(&out.stdout), want, "{context}");
        assert_eq!(
            text(&out.stderr),
            "pfind: sh: killed by signal 13 (SIGPIPE)\n",
            "{context}"
        );
        assert_eq!(out.status.code(), Some(1), "{context}");
    }
    // A batch: one command, killed; reported too.
    let out = env.run(&["-X", "sh", "-c", "kill -PIPE $$", "sh", "+"]);
    assert_eq!(
        text(&out.stderr),
        "pfind: sh: killed by signal 13 (SIGPIPE)\n"
    );
    assert_eq!(out.status.code(), Some(1));
    // Into a file, too: no reader can have left.
    let file = env.root().join("out.txt");
    let status = Command::new("sh")
        .current_dir(env.root())
        .args([
            "-c",
            "exec \"$0\" -n 'f*' -X sh -c 'kill -PIPE $$' sh + > out.txt",
        ])
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(std::fs::read(&file).unwrap(), b"");
}

/// Issue 28, item 2: under a process limit that pfind's own threads nearly fill,
/// a command that cannot start for want of a process (EAGAIN) waits for one: for a
/// command of its own to end, for a runner thread to give its slot up, or for the
/// walk's threads to end. At `ulimit -u 4` the old code ran 1 or 2 of 20 commands.
#[test]
fn commands_wait_for_a_process_under_a_process_limit() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let tree = tmp.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::set_permissions(&tree, std::fs::Permissions::from_mode(0o755)).unwrap();
    for i in 0..20 {
        std::fs::write(tree.join(format!("f{i:02}")), b"").unwrap();
    }
    let binary = tmp.path().join("pfind");
    std::fs::copy(env!("CARGO_BIN_EXE_pfind"), &binary).unwrap();
    let Some(probe) = as_limited_user(&binary) else {
        eprintln!("SKIPPED: running as root without setpriv, so RLIMIT_NPROC cannot apply");
        return;
    };
    drop(probe);
    let want: Vec<String> = (0..20).map(|i| format!("./f{i:02}")).collect();
    for nproc in [3, 4] {
        for args in [
            &["-j", "1", "--exec", "echo"][..],
            &["-j", "2", "--exec", "echo"],
            &["-j", "4", "--exec", "echo"],
            &["-j", "2", "-X", "echo"],
        ] {
            let mut command = as_limited_user(&binary).unwrap();
            command
                .args(args)
                .current_dir(&tree)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            with_rlimit(&mut command, libc::RLIMIT_NPROC, nproc);
            let out = command.output().unwrap();
            let context = format!("ulimit -u {nproc}, {args:?}");
            assert_eq!(text(&out.stderr), "", "{context}");
            assert_eq!(out.status.code(), Some(0), "{context}");
            let mut got: Vec<String> = text(&out.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect();
            got.sort();
            assert_eq!(got, want, "{context}");
        }
    }
    // No room for any command: said once, after a wait, and nothing more is run.
    for args in [&["-j", "1", "--exec", "echo"][..], &["-X", "echo"]] {
        let mut command = as_limited_user(&binary).unwrap();
        command.args(args).current_dir(&tree).stdin(Stdio::null());
        with_rlimit(&mut command, libc::RLIMIT_NPROC, 2);
        let out = command.output().unwrap();
        let context = format!("ulimit -u 2, {args:?}");
        assert_eq!(
            text(&out.stderr),
            "pfind: echo: Resource temporarily unavailable (no process could be had in 2 s; \
             no more commands are run)\n",
            "{context}"
        );
        assert_eq!(out.status.code(), Some(1), "{context}");
        assert_eq!(text(&out.stdout), "", "{context}");
    }
}

/// Issue 28, item 3: the threads that run commands are inside the address-space
/// budget that bounds the workers: where `-j 64` prints every file, `-j 64 --exec`
/// runs a command on every file. The old code started 64 runners first, whose
/// stacks took the room, and ended with "out of memory" having run nothing.
#[test]
fn runners_fit_in_the_address_space_limit() {
    let env = numbered_files(20);
    let want: Vec<String> = (0..20).map(|i| format!("./f{i:02}")).collect();
    let mut checked = 0;
    for mb in [20, 30, 50] {
        let limited = |args: &[&str]| {
            let mut command = pfind_command(env.root(), args);
            with_rlimit(&mut command, libc::RLIMIT_AS, mb * 1_000_000);
            command.output().unwrap()
        };
        if !limited(&["-j", "64"]).status.success() {
            continue;
        }
        checked += 1;
        for exec in [&["--exec", "echo"][..], &["-X", "echo"]] {
            let mut args = vec!["-j", "64"];
            args.extend_from_slice(exec);
            let out = limited(&args);
            let context = format!("ulimit -v {}, {args:?}", mb * 1000);
            assert_eq!(text(&out.stderr), "", "{context}");
            assert_eq!(out.status.code(), Some(0), "{context}");
            let mut got: Vec<String> = text(&out.stdout)
                .split_whitespace()
                .map(|path| format!("./{}", path.trim_start_matches("./")))
                .collect();
            got.sort();
            assert_eq!(got, want, "{context}");
        }
    }
    assert!(checked > 0, "no limit let the plain walk finish");
}

/// Issue 28, item 4: with stdout closed, the commands still run (`-X rm --` never
/// writes to stdout), and each inherits the closed stdout, as with find; a command
/// that writes there fails by itself, and that is counted. The old code refused to
/// run anything.
#[test]
fn commands_run_with_stdout_closed() {
    for threads in THREAD_COUNTS {
        for exec in [
            &["--exec", "rm", "--", "{}", ";"][..],
            &["-X", "rm", "--", "+"],
        ] {
            let env = numbered_files(10);
            let mut args = vec!["-j", threads];
            args.extend_from_slice(exec);
            let out = with_stdout_closed(env.root(), &args);
            let context = format!("{args:?} >&-");
            assert_eq!(text(&out.stderr), "", "{context}");
            assert_eq!(out.status.code(), Some(0), "{context}");
            let left = std::fs::read_dir(env.root()).unwrap().count();
            assert_eq!(left, 0, "{context}: files left");
        }
    }
    // A command that writes to the closed stdout meets it closed, as under find.
    let env = numbered_files(3);
    for threads in THREAD_COUNTS {
        let script = "if echo x; then echo wrote >&2; else echo refused >&2; fi";
        let out = with_stdout_closed(
            env.root(),
            &["-j", threads, "--exec", "sh", "-c", script, ";"],
        );
        let context = format!("-j {threads} --exec sh -c 'echo x' >&-");
        assert_eq!(
            text(&out.stderr)
                .lines()
                .filter(|l| l.starts_with("refused"))
                .count(),
            3,
            "{context}: {}",
            text(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "{context}");
    }
    // Anything that prints paths still needs stdout.
    let out = with_stdout_closed(env.root(), &[]);
    assert_eq!(text(&out.stderr), "pfind: stdout: Bad file descriptor\n");
    assert_eq!(out.status.code(), Some(1));
}

/// Issue 28, item 6: an executable file without `#!` is run with `/bin/sh`, as
/// `execvp` (and so find and xargs) does; the old code said "Exec format error" and
/// ran nothing.
#[test]
fn a_script_without_a_shebang_runs_with_sh() {
    let env = TestEnv::new(&["bin"], &["a.txt", "b.txt"]);
    executable(&env.root().join("bin/hello"), "echo \"hello $# $1\"\n");
    let path = format!("{}:/usr/bin:/bin", env.root().join("bin").display());
    let cases: [&[&str]; 4] = [
        &["-e", "txt", "--exec", "hello", "{/}", ";"],
        &["-e", "txt", "--exec", "./bin/hello", "{/}", ";"],
        &["-e", "txt", "-X", "hello", "{/}", "+"],
        &["-e", "txt", "-X", "./bin/hello", "{/}", "+"],
    ];
    for args in cases {
        for threads in THREAD_COUNTS {
            let mut full = args.to_vec();
            full.extend(["-j", threads]);
            let out = pfind_command(env.root(), &full)
                .env("PATH", &path)
                .output()
                .unwrap();
            let context = format!("{full:?}");
            assert_eq!(text(&out.stderr), "", "{context}");
            assert_eq!(out.status.code(), Some(0), "{context}");
            let got = sorted_text_lines(&out.stdout);
            if args.contains(&"-X") {
                assert!(
                    got == ["hello 2 a.txt"] || got == ["hello 2 b.txt"],
                    "{context}: {got:?}"
                );
            } else {
                assert_eq!(got, ["hello 1 a.txt", "hello 1 b.txt"], "{context}");
            }
        }
    }
}

/// Issue 28, item 7: `--exec {}` runs the match, also when its path is a bare name
/// (a root typed as a name, or `--strip-cwd-prefix`): `date` is `./date`, never the
/// `date` of `PATH`.
#[test]
fn the_match_as_the_program_is_never_searched_in_path() {
    let env = TestEnv::new(&[], &[]);
    executable(&env.root().join("date"), "#!/bin/sh\necho local date\n");
    let cases: [&[&str]; 3] = [
        &["date", "--exec", "{}", ";"],
        &[".", "--strip-cwd-prefix", "-n", "date", "--exec", "{}", ";"],
        &["-n", "date", "--exec", "{}", ";"],
    ];
    for args in cases {
        for threads in THREAD_COUNTS {
            let mut full = args.to_vec();
            full.extend(["-j", threads]);
            let out = env.run(&full);
            let context = format!("{full:?}");
            assert_eq!(text(&out.stderr), "", "{context}");
            assert_eq!(text(&out.stdout), "local date\n", "{context}");
            assert_eq!(out.status.code(), Some(0), "{context}");
        }
    }
}

/// Issue 28, item 9: a path that starts with `-` reaches a command as `./-...`,
/// whatever shaped it: `--strip-cwd-prefix`, a root typed as `-` or as a file
/// named `-n`. The old code passed `-n` to `cat` (which printed nothing) and
/// `-/x` to `cat` (which refused it as an option).
#[test]
fn a_path_starting_with_a_dash_never_reaches_a_command_as_an_option() {
    let env = TestEnv::new(&["-"], &[]);
    env.write("-n", b"dash n\n");
    env.write("-/x", b"dash x\n");
    let cases: [(&[&str], &[&str]); 4] = [
        (&[".", "--strip-cwd-prefix"], &["dash n", "dash x"]),
        (&["--", "-"], &["dash x"]),
        (&["--", "-n"], &["dash n"]),
        (&[], &["dash n", "dash x"]),
    ];
    for (roots, want) in cases {
        for exec in [&["--exec", "cat", ";"][..], &["-X", "cat", "+"]] {
            for threads in THREAD_COUNTS {
                let mut args = vec!["-j", threads];
                args.extend_from_slice(exec);
                args.extend_from_slice(roots);
                let out = env.run(&args);
                let context = format!("{args:?}");
                assert_eq!(text(&out.stderr), "", "{context}");
                assert_eq!(out.status.code(), Some(0), "{context}");
                assert_eq!(sorted_text_lines(&out.stdout), want, "{context}");
            }
        }
    }
    // What the command is given, exactly: `./` before the dash, nothing else changed.
    let out = env.run(&[
        "--strip-cwd-prefix",
        ".",
        "-j",
        "1",
        "--exec",
        "printf",
        "%s\\0",
    ]);
    let mut got = split_records(&out.stdout, 0);
    got.sort();
    assert_eq!(got, [&b"./-/x"[..], b"./-n"]);
}
