//! Running the commands, and what is said about them.
//!
//! `--exec`: each runner takes one path at a time and runs its command with stdin
//! from `/dev/null` (commands run side by side: none can have the terminal) and its
//! stdout and stderr captured; once it exits, both are written whole, stdout then
//! stderr, while this runner holds the stderr lock. Every message of pfind's takes
//! that lock too ([`Reporter`]), and every other runner writes under it, so nothing
//! comes between the two, nor inside either. With one runner (`-j 1`) no other
//! command's output can come between, so commands write straight to pfind's stdout
//! and stderr, as fd's do with one thread: no pipes to set up, nothing copied.
//!
//! Several `--exec` (and `--exec-dir`): each match's commands run in turn on one
//! runner, each only if the one before it succeeded (as fd and find do), and their
//! output is written together once the last is done. `--exec-dir` runs its command
//! in the match's directory, on `./NAME`, as find's `-execdir`.
//!
//! `--exec-batch`: one runner, which runs each batch with pfind's own stdin, stdout
//! and stderr, one command at a time, as `find -exec ... +` and `xargs` do; an
//! editor or a pager works. Should the system refuse a batch as too long (`E2BIG`:
//! the environment grew, or the estimate erred), it is run as two halves.
//!
//! No shell is involved: the program and its arguments go to the system as bytes,
//! the paths exactly as pfind would print them.
//!
//! Failures, each setting the exit status to 1:
//! * A command that could not be started: `pfind: PROGRAM: cause`. When the
//!   program is the same for every command and the cause is about the program (not
//!   found, not executable), it is said once and no more commands are started.
//! * A command killed by a signal: `pfind: PROGRAM: killed by signal 9 (SIGKILL)`.
//!   A command writing straight to pfind's stdout (a batch, or `-j 1`) killed by
//!   `SIGPIPE` while that stdout is a pipe whose reader left is not one: it ends
//!   the run quietly, as a closed pipe ends pfind's own output. Any other
//!   `SIGPIPE` is (issue 28: taking each for a reader that left stopped the walk
//!   silently, with a file for stdout).
//! * Starting a command retries what `execvp` and `xargs` retry (`spawn.rs`).
//! * Commands that exited with a non-zero status are not reported one by one (the
//!   command has said why, or means it as an answer: `grep` for a file without a
//!   match); once all are done, one line counts them: `pfind: grep: 3 of 40
//!   commands exited with a non-zero status`.

use super::batch::Batch;
use super::feed::Intake;
use super::handoff::Handoff;
use super::spawn::{is_process_limit, Start, Starter, PATIENCE};
use super::template::CommandTemplate;
use crate::output::sink::{stdout_reader_left, Delivery};
use crate::output::Output;
use crate::report::{describe, Reporter};
use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

/// How one of the commands run on each match runs.
pub(super) struct Step {
    /// Where the program is, when it is fixed and was found in `PATH` at the start
    /// (see `program.rs`).
    pub(super) program: Option<Vec<u8>>,
    /// `--exec-dir`: in the match's directory, on `./NAME`.
    pub(super) in_dir: bool,
}

/// What every runner thread shares.
pub(super) struct Runner<'a> {
    /// The (first) command: the batch's, and the one messages about all name.
    pub(super) template: &'a CommandTemplate,
    /// Each command run on a match, in turn: `template`'s first.
    pub(super) steps: Vec<(&'a CommandTemplate, Step)>,
    pub(super) intake: &'a Intake,
    /// pfind's stdout, for the output `--exec` captures.
    pub(super) output: &'a Output,
    /// The commands write to pfind's own stdout and stderr: batches, and `--exec`
    /// with one runner (see the module comment).
    pub(super) writes_straight: bool,
    pub(super) reporter: &'a Reporter,
    pub(super) tally: Tally,
    pub(super) starter: Starter,
}

/// How the commands went.
#[derive(Default)]
pub(super) struct Tally {
    /// Commands that ran and exited (or were killed).
    ran: AtomicU64,
    /// Of those, the ones that exited with a non-zero status, and the last status.
    non_zero: AtomicU64,
    last_status: AtomicI32,
    /// The program could not be started, for a cause every command would meet (or
    /// no process could be had): said once.
    program_failed: AtomicBool,
}

impl Runner<'_> {
    /// One runner's work, until the intake is closed and empty, or abandoned.
    pub(super) fn run(&self) {
        // A panic here must not leave the walk waiting for a runner that is gone.
        let _guard = AbandonOnPanic(self.intake);
        self.starter.runner_started();
        match self.intake {
            Intake::PerMatch(jobs) => self.run_each(jobs),
            Intake::Batches { handoff, .. } => self.run_batches(handoff),
        }
    }

    fn run_each(&self, jobs: &Handoff<Vec<u8>>) {
        let mut argv = Vec::new();
        let mut captured = (Vec::new(), Vec::new());
        while let Some(path) = jobs.pop() {
            for (step_index, (template, step)) in self.steps.iter().enumerate() {
                match self.run_one(template, step, &path, &mut argv, &mut captured) {
                    Ran::Succeeded => continue,
                    Ran::Failed => break,
                    // Only the first command of a match may hand it back: a later
                    // one would run those before it twice. Out of processes there
                    // (see `spawn.rs`), it is a start that failed.
                    Ran::Retire if step_index == 0 => {
                        jobs.give_back(path);
                        return;
                    }
                    Ran::Retire => {
                        let err = io::Error::from_raw_os_error(libc::EAGAIN);
                        self.not_started(template, &argv[0], &err);
                        break;
                    }
                }
            }
            if !self.writes_straight {
                self.write_whole(&captured.0, &captured.1);
                captured.0.clear();
                captured.1.clear();
            }
        }
    }

    /// Runs `template` on `path` as `step` says, its output added to `captured`
    /// (stdout, stderr) unless it writes straight.
    fn run_one(
        &self,
        template: &CommandTemplate,
        step: &Step,
        path: &[u8],
        argv: &mut Vec<Vec<u8>>,
        captured: &mut (Vec<u8>, Vec<u8>),
    ) -> Ran {
        let (dir, path) = match step.in_dir {
            true => in_its_directory(path),
            false => (None, path.to_vec()),
        };
        template.expand_one(&path, argv);
        let mut command = self.command(template, &step.program, &argv[0]);
        command.args(argv[1..].iter().map(|arg| OsStr::from_bytes(arg)));
        if let Some(dir) = dir {
            command.current_dir(OsStr::from_bytes(dir));
        }
        let streams = |command: &mut Command| {
            command.stdin(Stdio::null());
            if !self.writes_straight {
                // A closed stdout is left closed for the command (see `sink.rs`).
                if self.output.stdout_is_closed() {
                    command.stdout(Stdio::inherit());
                } else {
                    command.stdout(Stdio::piped());
                }
                command.stderr(Stdio::piped());
            }
        };
        let done = if self.writes_straight {
            self.starter.run(&mut command, streams, Command::status)
        } else {
            self.starter
                .run(&mut command, streams, Command::output)
                .map(|output| {
                    captured.0.extend_from_slice(&output.stdout);
                    captured.1.extend_from_slice(&output.stderr);
                    output.status
                })
        };
        match done {
            Start::Done(status) => {
                self.exited(&argv[0], status);
                match status.success() {
                    true => Ran::Succeeded,
                    false => Ran::Failed,
                }
            }
            Start::Retire => Ran::Retire,
            Start::Failed(err) => {
                self.not_started(template, &argv[0], &err);
                Ran::Failed
            }
        }
    }

    fn run_batches(&self, batches: &Handoff<Batch>) {
        while let Some(batch) = batches.pop() {
            self.run_batch(&batch);
        }
    }

    fn run_batch(&self, batch: &Batch) {
        if batch.is_empty() || self.intake.is_abandoned() {
            return;
        }
        let program = self.template.program();
        let mut command = self.command(self.template, &self.steps[0].1.program, program);
        self.template.expand_batch(batch.paths(), |arg| {
            command.arg(OsStr::from_bytes(arg));
        });
        let status = match self.starter.run(&mut command, |_| {}, Command::status) {
            Start::Done(status) => Ok(status),
            // A batch's runner is the only one, which never retires.
            Start::Retire => Err(io::Error::from_raw_os_error(libc::EAGAIN)),
            Start::Failed(err) => Err(err),
        };
        match status {
            Ok(status) => self.exited(program, status),
            Err(err) if err.raw_os_error() == Some(libc::E2BIG) && batch.len() > 1 => {
                let (first, second) = batch.halves();
                self.run_batch(&first);
                self.run_batch(&second);
            }
            Err(err) => self.not_started(self.template, program, &err),
        }
    }

    /// A command of `template` that runs `program` (named so in its `argv[0]`), from
    /// where it was `found` at the start if it is the fixed one; stdin, stdout and
    /// stderr inherited unless the caller says otherwise. A program made of
    /// placeholders (`--exec {}`) is a match, a file, never a name to look for in
    /// `PATH`, which is what a word without `/` would be: `date` runs as `./date`.
    fn command(
        &self,
        template: &CommandTemplate,
        found: &Option<Vec<u8>>,
        program: &[u8],
    ) -> Command {
        if !template.program_is_fixed() {
            if program.contains(&b'/') {
                return Command::new(OsStr::from_bytes(program));
            }
            return Command::new(OsStr::from_bytes(&[b"./", program].concat()));
        }
        match found {
            Some(found) => {
                let mut command = Command::new(OsStr::from_bytes(found));
                command.arg0(OsStr::from_bytes(program));
                command
            }
            None => Command::new(OsStr::from_bytes(program)),
        }
    }

    /// Writes one command's captured output, each stream in one piece (see the
    /// module's comment for why under the stderr lock).
    fn write_whole(&self, stdout: &[u8], stderr: &[u8]) {
        if stdout.is_empty() && stderr.is_empty() {
            return;
        }
        let mut locked = io::stderr().lock();
        if !stdout.is_empty() && self.output.deliver(stdout, self.reporter) == Delivery::Closed {
            // The reader left (or the output failed, which `deliver` reported).
            self.intake.abandon();
        }
        if !stderr.is_empty() {
            let _ = locked.write_all(stderr);
        }
    }

    fn exited(&self, program: &[u8], status: ExitStatus) {
        self.tally.ran.fetch_add(1, Ordering::Relaxed);
        if let Some(code) = status.code() {
            if code != 0 {
                self.tally.non_zero.fetch_add(1, Ordering::Relaxed);
                self.tally.last_status.store(code, Ordering::Relaxed);
            }
            return;
        }
        let signal = status.signal().unwrap_or(0);
        if signal == libc::SIGPIPE && self.writes_straight && stdout_reader_left() {
            // The command wrote to pfind's own stdout, whose reader left. Any other
            // SIGPIPE (the command's own pipes) is a death like any other.
            return self.intake.abandon();
        }
        let name = signal_name(signal).map_or(String::new(), |name| format!(" ({name})"));
        let core = if status.core_dumped() {
            ", core dumped"
        } else {
            ""
        };
        let cause = format!("killed by signal {signal}{name}{core}");
        self.reporter.path_error(program, &io::Error::other(cause));
    }

    fn not_started(&self, template: &CommandTemplate, program: &[u8], err: &io::Error) {
        if is_process_limit(err) {
            // Waited for in vain (see `spawn.rs`): the next would wait as long.
            if !self.tally.program_failed.swap(true, Ordering::Relaxed) {
                let cause = format!(
                    "{} (no process could be had in {} s; no more commands are run)",
                    describe(err),
                    PATIENCE.as_secs()
                );
                self.reporter.path_error(program, &io::Error::other(cause));
            }
            return self.intake.abandon();
        }
        if template.program_is_fixed() && is_about_the_program(err) {
            // Every other command would fail the same way: say it once, and stop.
            if !self.tally.program_failed.swap(true, Ordering::Relaxed) {
                self.reporter.path_error(program, err);
            }
            return self.intake.abandon();
        }
        self.reporter.path_error(program, err);
    }

    /// Once every command is done: the line that counts those that exited with a
    /// non-zero status, if any did.
    pub(super) fn report_statuses(&self) {
        let ran = self.tally.ran.load(Ordering::Relaxed);
        let non_zero = self.tally.non_zero.load(Ordering::Relaxed);
        if non_zero == 0 {
            return;
        }
        let cause = if ran == 1 {
            let status = self.tally.last_status.load(Ordering::Relaxed);
            format!("exited with status {status}")
        } else {
            format!("{non_zero} of {ran} commands exited with a non-zero status")
        };
        // Several commands per match: the count is theirs together.
        let subject = match self.steps.len() {
            1 => self.template.program(),
            _ => b"--exec",
        };
        self.reporter.path_error(subject, &io::Error::other(cause));
    }
}

/// True when a failure to start a command is about its program, and would be the
/// same for every command that runs it: not found, not executable, not a program.
fn is_about_the_program(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(
            libc::ENOENT
                | libc::EACCES
                | libc::EPERM
                | libc::ENOEXEC
                | libc::ENOTDIR
                | libc::ELOOP
                | libc::ENAMETOOLONG
        )
    )
}

/// The usual name of a signal that ends processes.
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// Abandons the intake if the thread holding it panics.
pub(super) struct AbandonOnPanic<'a>(pub(super) &'a Intake);

impl Drop for AbandonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abandon();
        }
    }
}

/// `--exec-dir`: the directory a match's command runs in, and the path it is given
/// there, `./NAME` (so that no name reads as an option). `None` for a match at the
/// top of a relative root's walk: pfind's own directory.
fn in_its_directory(path: &[u8]) -> (Option<&[u8]>, Vec<u8>) {
    let (dir, name) = match path.iter().rposition(|&b| b == b'/') {
        Some(0) => (Some(&b"/"[..]), &path[1..]),
        Some(slash) => (Some(&path[..slash]), &path[slash + 1..]),
        None => (None, path),
    };
    (dir, [&b"./"[..], name].concat())
}

/// How one command of a match went.
enum Ran {
    Succeeded,
    /// It could not start, or exited otherwise than with status 0: the match's
    /// later commands are not run.
    Failed,
    /// No process could be had, and this runner gives its place up (`spawn.rs`).
    Retire,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_about_the_program_are_told_apart() {
        let cases: &[(i32, bool)] = &[
            (libc::ENOENT, true),
            (libc::EACCES, true),
            (libc::ENOEXEC, true),
            (libc::E2BIG, false),
            (libc::EAGAIN, false),
            (libc::ENOMEM, false),
        ];
        for &(errno, want) in cases {
            let err = io::Error::from_raw_os_error(errno);
            assert_eq!(is_about_the_program(&err), want, "{err}");
        }
        assert_eq!(signal_name(libc::SIGKILL), Some("SIGKILL"));
        assert_eq!(signal_name(0), None);
    }

    #[test]
    fn exec_dir_runs_in_the_match_s_directory_on_dot_slash_name() {
        // (path, directory, the path there)
        type Case<'a> = (&'a [u8], Option<&'a [u8]>, &'a [u8]);
        let cases: &[Case] = &[
            (b"src/main.rs", Some(b"src"), b"./main.rs"),
            (b"./a/-n", Some(b"./a"), b"./-n"),
            (b"./x", Some(b"."), b"./x"),
            (b"/etc", Some(b"/"), b"./etc"),
            (b"/a/b/c\xff", Some(b"/a/b"), b"./c\xff"),
            (b"x", None, b"./x"),
        ];
        for &(path, dir, name) in cases {
            assert_eq!(in_its_directory(path), (dir, name.to_vec()), "{path:?}");
        }
    }
}
