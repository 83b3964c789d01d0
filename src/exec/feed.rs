//! What the walk's matches become under `--exec` and `--exec-batch`: the walk writes
//! them as it writes `-0` output, NUL-terminated paths in blocks, to an
//! [`Output`](crate::output::Output) whose writer is a [`Feed`]; the feed cuts each
//! block into work for the runners: one job per path, or paths gathered into batches
//! that fit the argument limit. So the walker has no code of its own for commands.
//!
//! The walk's output hands over one block at a time, under its lock, and waits while
//! the [`Handoff`] is full: that is how the walk keeps pace with the commands. Once
//! the runners abandon the handoff, the feed answers every block with a broken pipe,
//! which the walk takes as a reader that left: it stops, without a message.

use super::batch::{
    arg_cost, command_room, environment_size, system_arg_max, Batch, Batcher, POINTER,
};
use super::handoff::Handoff;
use super::template::CommandTemplate;
use super::Mode;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// How many paths may wait for each runner of `--exec`: enough that a runner never
/// waits for the walk, and that the walk, woken once half of them are taken, is
/// woken once per 32 commands rather than every other one (with 4, `-j 1 --exec
/// true` on 2,658 files spent 0.07 s more in the kernel, 4% of its time, switching
/// between the two); few enough that the walk never runs far ahead of the commands.
const JOBS_PER_RUNNER: usize = 64;

/// How many full batches may wait while one runs: the walk goes on filling the next.
const BATCHES_WAITING: usize = 1;

/// The walk's matches, on their way to the runners.
pub(super) enum Intake {
    /// `--exec`: one job per path.
    PerMatch(Handoff<Vec<u8>>),
    /// `--exec-batch`: paths gathered into batches.
    Batches {
        /// For the size each path adds to a batch.
        template: CommandTemplate,
        batcher: Mutex<Batcher>,
        handoff: Handoff<Batch>,
    },
}

impl Intake {
    /// The intake for `runners` runners of `template` in `mode`. For batches, the
    /// room for paths is the argument limit less this process's environment, a
    /// margin, and the words every batch has.
    pub(super) fn new(
        mode: Mode,
        template: &CommandTemplate,
        runners: usize,
        batch_size: Option<usize>,
    ) -> Intake {
        match mode {
            Mode::PerMatch => Intake::PerMatch(Handoff::new(runners * JOBS_PER_RUNNER)),
            Mode::Batch => {
                let room = command_room(system_arg_max(), environment_size());
                // The words of every batch, and the pointer that ends `argv`.
                let fixed: usize = template.fixed_lengths().map(arg_cost).sum::<usize>() + POINTER;
                Intake::Batches {
                    template: template.clone(),
                    batcher: Mutex::new(Batcher::new(room.saturating_sub(fixed), batch_size)),
                    handoff: Handoff::new(BATCHES_WAITING),
                }
            }
        }
    }

    /// Takes a block of NUL-terminated paths from the walk (whole records: the walk
    /// hands over nothing else), each with `./` before it if it starts with `-`
    /// when `dashes` says one may. A broken pipe once the runners have given up.
    fn take(&self, block: &[u8], dashes: bool) -> io::Result<()> {
        let Some(records) = block.strip_suffix(b"\0") else {
            return Ok(());
        };
        // Two copies of the loop: with the test for `-` in it, LLVM scanned each
        // path for its NUL at two instructions a byte rather than one (callgrind,
        // `-j 1 -X true` on `/usr/share/doc`: 8,469,179 instructions, 8,666,256 with
        // the test), so walks whose paths cannot start with `-` go without it.
        if dashes {
            self.take_records(records, never_an_option)
        } else {
            self.take_records(records, |path, _| path)
        }
    }

    #[inline(always)]
    fn take_records(
        &self,
        records: &[u8],
        shape: impl for<'a> Fn(&'a [u8], &'a mut Vec<u8>) -> &'a [u8],
    ) -> io::Result<()> {
        let closed = || io::Error::from(io::ErrorKind::BrokenPipe);
        let mut scratch = Vec::new();
        match self {
            Intake::PerMatch(handoff) => {
                for path in records.split(|&b| b == 0) {
                    if !handoff.push(shape(path, &mut scratch).to_vec()) {
                        return Err(closed());
                    }
                }
            }
            Intake::Batches {
                template,
                batcher,
                handoff,
            } => {
                if handoff.is_abandoned() {
                    return Err(closed());
                }
                let mut batcher = batcher.lock().unwrap_or_else(|p| p.into_inner());
                for path in records.split(|&b| b == 0) {
                    let path = shape(path, &mut scratch);
                    let cost = template.lengths_for(path).map(arg_cost).sum();
                    if let Some(full) = batcher.add(path, cost) {
                        if !handoff.push(full) {
                            return Err(closed());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The walk is over: the last batch goes, and runners stop once all is done.
    pub(super) fn end(&self) {
        match self {
            Intake::PerMatch(handoff) => handoff.close(),
            Intake::Batches {
                batcher, handoff, ..
            } => {
                let last = batcher.lock().unwrap_or_else(|p| p.into_inner()).finish();
                if let Some(last) = last {
                    handoff.push(last);
                }
                handoff.close();
            }
        }
    }

    /// No more commands: the output's reader left, the program cannot be run, or
    /// something panicked. What waits is dropped, and the walk is told to stop.
    pub(super) fn abandon(&self) {
        match self {
            Intake::PerMatch(handoff) => handoff.abandon(),
            Intake::Batches { handoff, .. } => handoff.abandon(),
        }
    }

    pub(super) fn is_abandoned(&self) -> bool {
        match self {
            Intake::PerMatch(handoff) => handoff.is_abandoned(),
            Intake::Batches { handoff, .. } => handoff.is_abandoned(),
        }
    }
}

/// `path` as a command is to be given it: with `./` before it if it starts with `-`,
/// so that no command takes it for an option, whatever shaped it (a root typed as
/// `-` or `-n`, `--strip-cwd-prefix`), as fd passes `./-n`. Other paths, the usual
/// case, are given as they are, without a copy (`scratch` holds the others).
fn never_an_option<'a>(path: &'a [u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    if path.first() != Some(&b'-') {
        return path;
    }
    scratch.clear();
    scratch.extend_from_slice(b"./");
    scratch.extend_from_slice(path);
    scratch
}

/// The writer behind the walk's output: each block goes to the [`Intake`]; the
/// flag says whether a path may start with `-` (see [`never_an_option`]).
pub(super) struct Feed(pub(super) Arc<Intake>, pub(super) bool);

impl Write for Feed {
    fn write(&mut self, block: &[u8]) -> io::Result<usize> {
        self.0.take(block, self.1)?;
        Ok(block.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(words: &[&str]) -> CommandTemplate {
        CommandTemplate::parse(words.iter().map(|w| w.as_bytes()))
    }

    #[test]
    fn each_path_of_a_block_is_a_job() {
        let intake = Intake::new(Mode::PerMatch, &template(&["echo"]), 4, None);
        let mut feed = Feed(Arc::new(intake), true);
        feed.write_all(b"a\0b c\0\xff\n\0-n\0-/x\0").unwrap();
        feed.write_all(b"").unwrap();
        let Intake::PerMatch(handoff) = &*feed.0 else {
            unreachable!()
        };
        feed.0.end();
        let jobs: Vec<Vec<u8>> = std::iter::from_fn(|| handoff.pop()).collect();
        assert_eq!(jobs, [&b"a"[..], b"b c", b"\xff\n", b"./-n", b"./-/x"]);
    }

    #[test]
    fn paths_fill_batches_and_the_last_goes_at_the_end() {
        let intake = Arc::new(Intake::new(Mode::Batch, &template(&["wc", "-l"]), 1, None));
        let taken = std::thread::scope(|scope| {
            let taker = scope.spawn(|| {
                let Intake::Batches { handoff, .. } = &*intake else {
                    unreachable!()
                };
                let mut taken = Vec::new();
                while let Some(batch) = handoff.pop() {
                    taken.push(batch.len());
                }
                taken
            });
            let mut feed = Feed(intake.clone(), false);
            for block in 0..3 {
                let paths: Vec<u8> = (0..10)
                    .flat_map(|i| format!("dir{block}/file{i}\0").into_bytes())
                    .collect();
                feed.write_all(&paths).unwrap();
            }
            intake.end();
            taker.join().unwrap()
        });
        // Thirty short paths fit the smallest argument limit in one batch.
        assert_eq!(taken, [30]);
    }

    #[test]
    fn an_abandoned_intake_answers_with_a_broken_pipe() {
        for mode in [Mode::PerMatch, Mode::Batch] {
            let intake = Intake::new(mode, &template(&["true"]), 1, None);
            intake.abandon();
            let mut feed = Feed(Arc::new(intake), true);
            let err = feed.write_all(b"a\0").unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::BrokenPipe, "{mode:?}");
        }
    }
}
