//! Starting a command, with the two retries `execvp` and `xargs` make and a bare
//! `spawn` does not.
//!
//! * A file the system cannot run (`ENOEXEC`: an executable script without `#!`)
//!   is run by `/bin/sh`, as `execvp` does (so find, xargs and a shell run it):
//!   `/bin/sh FILE ARGS...`.
//! * A process that cannot be created for want of one (`EAGAIN`: `RLIMIT_NPROC`, a
//!   container's `pids.max`) is waited for, since pfind's own threads count against
//!   the same limit and can take every slot (issue 28: at `ulimit -u 4`, `-j 2
//!   --exec` ran 1 of 20 commands). While a command of pfind's runs, its end frees a
//!   slot: wait, as `xargs -P` waits for a child. With none running, a runner thread
//!   that is not the last gives its own slot up ([`Start::Retire`]). The last one
//!   waits for the walk's threads, which end with the walk, for at most
//!   [`PATIENCE`]; then the run says so and starts no more commands.

use std::ffi::OsStr;
use std::io;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The shell that runs a file the system cannot (`_PATH_BSHELL`, as `execvp`).
const SHELL: &str = "/bin/sh";

/// The first wait for a process slot, doubled at each retry up to [`LONGEST_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(1);
const LONGEST_WAIT: Duration = Duration::from_millis(50);

/// How long the last runner waits for a slot when no command of pfind's is running
/// (only the walk's threads, or other processes, can free one then).
pub(super) const PATIENCE: Duration = Duration::from_secs(2);

/// How the runners start commands: what they share to decide how to wait.
#[derive(Default)]
pub(super) struct Starter {
    /// Commands being started or running.
    running: AtomicUsize,
    /// Runner threads still taking commands.
    runners: AtomicUsize,
}

/// What came of running a command.
pub(super) enum Start<T> {
    /// It ran (or failed in a way that is not about starting it): what `run`
    /// returned.
    Done(T),
    /// No process could be had and this runner should end, freeing its own: the
    /// command is to be left to the others.
    Retire,
    Failed(io::Error),
}

impl<T> Start<T> {
    /// What `Done` holds, made `f` of it.
    pub(super) fn map<U>(self, f: impl FnOnce(T) -> U) -> Start<U> {
        match self {
            Start::Done(done) => Start::Done(f(done)),
            Start::Retire => Start::Retire,
            Start::Failed(err) => Start::Failed(err),
        }
    }
}

impl Starter {
    /// A runner thread starts taking commands.
    pub(super) fn runner_started(&self) {
        self.runners.fetch_add(1, Ordering::Relaxed);
    }

    /// Runs `command` with `run` (`Command::status`, `Command::output`): `streams`
    /// sets its stdin, stdout and stderr (again, should it be run by the shell).
    /// `run` is the standard library's own, rather than a `spawn` and a wait here,
    /// which took 130 instructions more a command (callgrind, `-j 1 --exec true`).
    pub(super) fn run<T>(
        &self,
        command: &mut Command,
        streams: impl Fn(&mut Command),
        run: impl Fn(&mut Command) -> io::Result<T>,
    ) -> Start<T> {
        streams(command);
        let mut wait = FIRST_WAIT;
        let mut waited_alone = Duration::ZERO;
        loop {
            self.running.fetch_add(1, Ordering::Relaxed);
            let result = run(command);
            self.running.fetch_sub(1, Ordering::Relaxed);
            let err = match result {
                Ok(done) => return Start::Done(done),
                Err(err) => err,
            };
            match err.raw_os_error() {
                Some(libc::ENOEXEC) if command.get_program() != OsStr::new(SHELL) => {
                    let mut shell = Command::new(SHELL);
                    shell.arg(command.get_program()).args(command.get_args());
                    if let Some(dir) = command.get_current_dir() {
                        shell.current_dir(dir);
                    }
                    return match self.run(&mut shell, streams, run) {
                        // No shell to run it: the first cause is the one to say.
                        Start::Failed(shell_err) if shell_err.kind() == io::ErrorKind::NotFound => {
                            Start::Failed(err)
                        }
                        other => other,
                    };
                }
                Some(libc::EAGAIN) => {
                    if self.running.load(Ordering::Relaxed) == 0 {
                        if self.retire() {
                            return Start::Retire;
                        }
                        if waited_alone >= PATIENCE {
                            return Start::Failed(err);
                        }
                        waited_alone += wait;
                    }
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(LONGEST_WAIT);
                }
                _ => return Start::Failed(err),
            }
        }
    }

    /// True when this runner may end because another is left to run the commands.
    fn retire(&self) -> bool {
        self.runners
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n > 1).then(|| n - 1)
            })
            .is_ok()
    }
}

/// True when `err`, a failure to start, is for want of a process slot.
pub(super) fn is_process_limit(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::EAGAIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_without_a_shebang_is_run_by_the_shell() {
        let tmp = tempfile::tempdir().unwrap();
        let script = tmp.path().join("script");
        std::fs::write(&script, "echo \"$0:$1\"\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let starter = Starter::default();
        starter.runner_started();
        let mut command = Command::new(&script);
        command.arg("x");
        let piped = |command: &mut Command| {
            command.stdout(std::process::Stdio::piped());
        };
        let Start::Done(out) = starter.run(&mut command, piped, Command::output) else {
            panic!("not started");
        };
        assert_eq!(out.stdout, format!("{}:x\n", script.display()).into_bytes());
        // The last runner never retires.
        assert!(!starter.retire());
        starter.runner_started();
        assert!(starter.retire());
    }
}
