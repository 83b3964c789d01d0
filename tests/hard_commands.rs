//! Commands that must run whatever happens (issue 28): a command killed by SIGPIPE
//! while pfind's reader is still there, a process limit that pfind's own threads
//! nearly fill, an address-space limit, a closed stdout, a script without `#!`, a
//! match run as the program, and paths that start with `-`. Each runs the real binary
//! on a temp tree, with limits set in the child.

mod testenv;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use testenv::{as_limited_user, pfind_command, split_records, with_rlimit, TestEnv, THREAD_COUNTS};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn sorted_lines(bytes: &[u8]) -> Vec<String> {
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
        assert_eq!(sorted_lines(&out.stdout), want, "{context}");
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
            let got = sorted_lines(&out.stdout);
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
                assert_eq!(sorted_lines(&out.stdout), want, "{context}");
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
