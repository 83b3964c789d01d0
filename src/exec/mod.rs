//! `--exec` and `--exec-batch`: running a command on the matches instead of printing
//! them.
//!
//! The walk is the same walk: [`Exec::run`] gives it an [`Output`] whose writer is a
//! [`feed::Feed`], and the walk writes NUL-terminated paths there as it would write
//! `-0` output (see `scheduler::run`). So the walker has no code for commands, and
//! a walk without them pays nothing for their existence. The pieces:
//!
//! ```text
//!   walkers --blocks of paths--> Feed --jobs or batches--> Handoff --> runner threads
//!   (any number)                 (cuts blocks:             (bounded:   (run, capture,
//!                                 template.rs, batch.rs)    handoff.rs)  report: runner.rs)
//! ```
//!
//! * [`template`]: the command as typed, parsed once, and expanded for a path or a
//!   batch of paths.
//! * [`batch`]: how many paths fit in one command (the argument limit), and the
//!   batches they are gathered into.
//! * [`feed`]: the walk's output turned into jobs (`--exec`) or batches
//!   (`--exec-batch`).
//! * [`handoff`]: the bounded queue between the walk and the runners; the walk
//!   waits when it is full, so commands run while the walk goes on and memory stays
//!   bounded.
//! * [`runner`]: the threads that run the commands, write what they print, and
//!   report their failures; [`program`] finds the program in `PATH` once for all,
//!   and [`spawn`] starts each command as `execvp` and `xargs` would (a script
//!   without `#!`, a process limit).
//!
//! When commands start: `--exec` hands each directory's matches over once it is
//! listed, and a runner starts a command as soon as it takes a path; `--exec-batch`
//! runs each batch as soon as it is full (the first while the walk goes on, in any
//! tree with more matches than one command holds), and the last once the walk ends.

mod batch;
mod feed;
mod handoff;
mod program;
mod runner;
mod spawn;
mod template;

use crate::memory;
use crate::output::Output;
use crate::report::Reporter;
use feed::{Feed, Intake};
use program::find_in_path;
use runner::{Runner, Step, Tally};
use spawn::Starter;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;
use std::thread;
use template::CommandTemplate;

/// How the matches are given to the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `--exec`: one command per match, several at once.
    PerMatch,
    /// `--exec-batch`: as many matches per command as the argument limit allows,
    /// one command at a time.
    Batch,
}

/// A command to run on the matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exec {
    mode: Mode,
    template: CommandTemplate,
    /// `--exec-dir`: the command runs in the match's directory, on `./NAME`.
    in_dir: bool,
    /// The commands of further `--exec` and `--exec-dir`, run in turn on each match
    /// after this one, as fd does: each only if the one before it succeeded.
    then: Vec<Exec>,
    /// `--batch-size`: at most this many paths per batch.
    batch_size: Option<usize>,
}

/// What one command of `--exec` takes while it starts: two pipes and `/dev/null`.
const DESCRIPTORS_PER_COMMAND: usize = 5;

/// Descriptors a walk of one worker needs: stdin, stdout, stderr, the directory it
/// reads and one more while it opens (see `descriptors.rs`), and two spare.
const WALK_AT_LEAST: usize = 7;

/// A runner's stack: it only waits for commands and copies their output.
const RUNNER_STACK: usize = 256 * 1024;

/// The address space a runner is counted at under `ulimit -v` (see `memory.rs`):
/// its stack and guard page, and room for a command's captured output and for
/// what starting a command maps (glibc's `posix_spawn` maps a stack of its own).
const RUNNER_ADDRESS_SPACE: u64 = (RUNNER_STACK + 4096 + 128 * 1024) as u64;

impl Exec {
    /// The command `words` (the program first; at least one) in `mode`. An error
    /// says what cannot be run that way.
    pub fn new<'w>(mode: Mode, words: impl IntoIterator<Item = &'w [u8]>) -> Result<Exec, String> {
        let template = CommandTemplate::parse(words);
        if mode == Mode::Batch {
            template.check_batch()?;
        }
        Ok(Exec {
            mode,
            template,
            in_dir: false,
            then: Vec::new(),
            batch_size: None,
        })
    }

    /// `--exec-dir`: run in each match's directory, on `./NAME` (with `--exec`).
    pub fn in_dir(self) -> Exec {
        Exec {
            in_dir: true,
            ..self
        }
    }

    /// Runs `next` on each match after this command, if this one succeeded (with
    /// `--exec`).
    pub fn then(mut self, next: Exec) -> Exec {
        self.then.push(next);
        self
    }

    /// `--batch-size`: at most `size` paths per command (with `--exec-batch`).
    pub fn batch_size(self, size: usize) -> Exec {
        Exec {
            batch_size: Some(size),
            ..self
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// How many commands run at once: for `--exec`, `parallel` (the worker count),
    /// or fewer when the descriptor limit has no room for their pipes beside a walk
    /// of one worker, or the address-space limit none for their threads (they take
    /// up to half of it, before the workers); batches run one at a time.
    pub fn runners(&self, parallel: usize) -> usize {
        match self.mode {
            Mode::PerMatch => {
                let room = descriptor_limit().saturating_sub(WALK_AT_LEAST);
                let runners = parallel.min(room / DESCRIPTORS_PER_COMMAND).max(1);
                memory::affordable_threads(runners, RUNNER_ADDRESS_SPACE)
            }
            Mode::Batch => 1,
        }
    }

    /// The descriptors the commands take in pfind while they run: with `--exec`,
    /// each one's stdout and stderr pipes (both ends while it starts) and
    /// `/dev/null`; a batch inherits pfind's own.
    pub fn descriptors(&self, parallel: usize) -> usize {
        match self.mode {
            Mode::PerMatch => self.runners(parallel) * DESCRIPTORS_PER_COMMAND,
            Mode::Batch => 1,
        }
    }

    /// Runs `walk`, which is to write the matches as NUL-terminated paths to the
    /// output it is given, and the commands on those paths as they come: with
    /// `--exec`, up to [`Self::runners`] at once. What the commands print goes to
    /// `output` (or, for batches and a single runner, straight to pfind's stdout); failures are reported
    /// through `reporter`. `dashes` says whether the walk may write a path that
    /// starts with `-`, which is then given to the command with `./` before it.
    /// Returns once every command has finished.
    pub fn run<T>(
        &self,
        parallel: usize,
        dashes: bool,
        output: &Output,
        reporter: &Reporter,
        walk: impl FnOnce(&Output) -> T,
    ) -> T {
        let runners = self.runners(parallel);
        let intake = Intake::new(self.mode, &self.template, runners, self.batch_size);
        let intake = Arc::new(intake);
        let feed = Output::to_writer(Box::new(Feed(intake.clone(), dashes)));
        let path = path_variable();
        let step = |exec: &'_ Exec| Step {
            program: (exec.template.program_is_fixed())
                .then(|| find_in_path(exec.template.program(), path.as_deref()))
                .flatten(),
            in_dir: exec.in_dir,
        };
        let steps = std::iter::once(self).chain(&self.then);
        let runner = Runner {
            template: &self.template,
            steps: steps.map(|exec| (&exec.template, step(exec))).collect(),
            intake: &intake,
            output,
            writes_straight: runners == 1,
            reporter,
            tally: Tally::default(),
            starter: Starter::default(),
        };
        let found = thread::scope(|scope| {
            for index in 0..runners {
                let started = thread::Builder::new()
                    .name(format!("pfind-exec-{index}"))
                    .stack_size(RUNNER_STACK)
                    .spawn_scoped(scope, || runner.run());
                if let Err(err) = started {
                    // The walk goes on with the runners it has; with none, it stops.
                    if index == 0 {
                        reporter.error("cannot start a thread to run commands", &err);
                        intake.abandon();
                    }
                    break;
                }
            }
            let _end = EndOfWalk(&intake);
            walk(&feed)
        });
        runner.report_statuses();
        found
    }
}

/// Tells the intake that the walk is over when it is: normally (the runners finish
/// what is queued), or by a panic (they stop at once, so the scope can end).
struct EndOfWalk<'a>(&'a Intake);

impl Drop for EndOfWalk<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.abandon();
        } else {
            self.0.end();
        }
    }
}

/// The value of `PATH`, as bytes.
fn path_variable() -> Option<Vec<u8>> {
    std::env::var_os("PATH").map(|value| value.as_bytes().to_vec())
}

/// The hard limit on descriptors, which the walk raises the soft one to.
fn descriptor_limit() -> usize {
    crate::os::limits::descriptor_limits()
        .and_then(|(_, hard)| usize::try_from(hard).ok())
        .unwrap_or(usize::MAX)
}
