//! When a worker writes what it holds before its block is full: so that the stream
//! starts at once, starts shallow, and keeps flowing through a slow walk.
//!
//! Workers buffer matches and write them in large blocks ([`super::sink`]); left to
//! that alone, a pipe would see nothing until a block of 256 KiB filled, which on a
//! cold tree can be the whole walk. So a worker also writes what it holds:
//!
//! * its first output, as soon as the directory that found it is listed: the first
//!   path reaches a pipe after one directory;
//! * before it lists a directory deeper than any it has listed: the walk is
//!   breadth-first near the root, so that is everything it found nearer the root;
//! * output held for [`HOLD_AT_MOST`], after the directory being listed;
//! * everything, after each directory, when a person watches a terminal.
//!
//! On a warm walk each costs a write only a few times per worker (once, once per
//! level, once per 2 ms), and a clock read per directory while something is held;
//! a directory answered from the index with no system call (`--index-trust`)
//! reads the clock only every [`ANSWERED_PER_CLOCK_READ`] of them.
//!
//! One more rule keeps the first two levels first whatever the threads do: what is
//! found in directories below depth 1 is held until every directory at depth 0 and
//! 1 has been listed and its files written ([`ShallowFirst`]). Without it, a worker
//! descheduled in the middle of listing `/usr/bin` (eight workers on two CPUs) let
//! its peers print a tenth of the output before the files of `/usr/bin`. A worker
//! counts a shallow directory as done when it writes the block that holds its files,
//! not when it has listed it, so those files are out before anything deeper may be.

use super::sink::OUTPUT_FLUSH_THRESHOLD;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Output a worker holds no longer than about this before it writes it, however
/// little it is: a reader (`fzf`, `head`, a person) sees results flow while a slow
/// walk, waiting on the disk, goes on. Checked between directories.
pub const HOLD_AT_MOST: Duration = Duration::from_millis(2);

/// While output is held, the clock is read after this many directories answered
/// from the index without a system call (`--index-trust`, a few hundred
/// nanoseconds each), not after each: a read per directory was 3% of the CPU of
/// a trusted search of `/usr` (perf), and sixteen such directories hold the
/// output microseconds longer. A directory that was listed, or checked with a
/// system call (which on a network filesystem can take milliseconds), reads it.
pub const ANSWERED_PER_CLOCK_READ: u32 = 16;

/// How large a worker's block may grow while what it holds waits for the first two
/// levels, before it is written anyway: a worker descheduled for a few milliseconds
/// while it lists a shallow directory must not let its peers' blocks overtake it,
/// and a worker gone for longer must not make its peers hold all they find. A block
/// that has passed [`OUTPUT_FLUSH_THRESHOLD`] has room for twice that (its buffer
/// grows by doubling), so holding to here takes no more memory than a full block
/// may (`memory` counts a worker's block at twice the threshold).
pub const OUTPUT_HOLD_CAP: usize = OUTPUT_FLUSH_THRESHOLD + OUTPUT_FLUSH_THRESHOLD / 2;

/// The directories at depth 0 and 1 not yet listed, shared by all workers: what is
/// found deeper waits until there are none.
#[derive(Debug)]
pub struct ShallowFirst {
    unlisted: AtomicUsize,
}

impl ShallowFirst {
    /// For a walk of `roots` root directories.
    pub fn new(roots: usize) -> ShallowFirst {
        ShallowFirst {
            unlisted: AtomicUsize::new(roots),
        }
    }

    /// `count` subdirectories of a root are about to be queued. Called before they
    /// are, so that none can be counted as listed first.
    pub fn queued(&self, count: usize) {
        self.unlisted.fetch_add(count, Ordering::Relaxed);
    }

    /// `count` directories at depth 0 or 1 have been listed (or could not be), and
    /// their files written.
    fn done(&self, count: usize) {
        if count > 0 {
            self.unlisted.fetch_sub(count, Ordering::Release);
        }
    }

    /// True once every directory at depth 0 and 1 has been listed.
    pub fn is_done(&self) -> bool {
        self.unlisted.load(Ordering::Acquire) == 0
    }
}

/// One worker's side of the rules above.
#[derive(Debug, Default)]
pub struct Pacing {
    /// Write after every directory (a person watching a terminal), within the
    /// rule of the first two levels.
    every_directory: bool,
    wrote_any: bool,
    /// The deepest directory this worker has listed.
    deepest: usize,
    /// The deepest directory whose output is held, and the one being listed.
    held_from: usize,
    listing: usize,
    held_since: Option<Instant>,
    /// The directory about to be counted by `after_directory` was answered from
    /// the index with no system call (set by the walk with the index alone).
    answered: bool,
    /// Such directories since the clock was last read.
    answered_unclocked: u32,
    /// Directories at depth 0 or 1 this worker has listed whose files it still holds.
    shallow_held: usize,
}

impl Pacing {
    /// `every_directory`: see the field.
    pub fn new(every_directory: bool) -> Pacing {
        Pacing {
            every_directory,
            ..Pacing::default()
        }
    }

    /// Before listing a directory at `depth`: true when what is held must go first.
    #[inline]
    pub fn before_directory(
        &mut self,
        depth: usize,
        holding: bool,
        shallow: &ShallowFirst,
    ) -> bool {
        let deeper_than_ever = depth > self.deepest;
        self.deepest = self.deepest.max(depth);
        self.listing = depth;
        if !holding {
            return false;
        }
        // Files of the first two levels go before anything deeper is listed.
        (depth > 1 && self.shallow_held > 0) || (deeper_than_ever && self.may_write(shallow))
    }

    /// After listing a directory at `depth`: true when what is held should go out now.
    #[inline]
    pub fn after_directory(&mut self, depth: usize, holding: bool, shallow: &ShallowFirst) -> bool {
        if depth <= 1 {
            self.shallow_held += 1;
        }
        if !holding {
            // Nothing held: the shallow directories just listed are done.
            shallow.done(std::mem::take(&mut self.shallow_held));
            return false;
        }
        if depth <= 1 && self.held_from > 1 {
            // A shallow directory listed after a deeper one: holding both, this
            // worker would wait for itself. Rare; out they go.
            return true;
        }
        self.held_from = self.held_from.max(depth);
        if !self.may_write(shallow) {
            return false;
        }
        if !self.wrote_any || self.every_directory {
            return true;
        }
        match self.held_since {
            None => {
                self.held_since = Some(Instant::now());
                false
            }
            Some(since) => {
                if self.answered {
                    self.answered_unclocked += 1;
                    if self.answered_unclocked < ANSWERED_PER_CLOCK_READ {
                        return false;
                    }
                }
                self.answered_unclocked = 0;
                since.elapsed() >= HOLD_AT_MOST
            }
        }
    }

    /// Whether the directory `after_directory` is called for next was answered
    /// from the index with no system call: such a directory reads the clock only
    /// every [`ANSWERED_PER_CLOCK_READ`]. Only the walk with the index calls this,
    /// so a walk without it pays nothing for the rule.
    #[inline]
    pub fn answered_without_system_call(&mut self, answered: bool) {
        self.answered = answered;
    }

    /// What is held was found at depth 1 at most, or the first two levels are done.
    fn may_write(&self, shallow: &ShallowFirst) -> bool {
        self.held_from <= 1 || shallow.is_done()
    }

    /// In the middle of a listing, the block is full: true when it may be written.
    /// It holds what the directories listed so far found and part of the current
    /// one's; it goes out at once if any of that must (this worker's own shallow
    /// files, which its peers wait for) or may.
    pub fn may_write_block(&self, shallow: &ShallowFirst) -> bool {
        self.shallow_held > 0 || self.held_from.max(self.listing) <= 1 || shallow.is_done()
    }

    /// What was held has been written.
    #[inline]
    pub fn wrote(&mut self, shallow: &ShallowFirst) {
        self.wrote_any = true;
        self.held_from = 0;
        self.held_since = None;
        self.answered_unclocked = 0;
        shallow.done(std::mem::take(&mut self.shallow_held));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_output_each_new_level_and_what_was_held_too_long_go_out() {
        let shallow = ShallowFirst::new(0);
        let mut pacing = Pacing::default();
        // Nothing held: nothing to write, whatever happens.
        assert!(!pacing.before_directory(2, false, &shallow));
        assert!(!pacing.after_directory(2, false, &shallow));
        // The first output goes at once.
        assert!(pacing.after_directory(2, true, &shallow));
        pacing.wrote(&shallow);
        // Later output waits, at the same depth and shallower ones.
        assert!(!pacing.after_directory(2, true, &shallow));
        assert!(!pacing.before_directory(2, true, &shallow));
        assert!(!pacing.before_directory(1, true, &shallow));
        // A deeper level than any before: what is held goes first, once per level.
        assert!(pacing.before_directory(3, true, &shallow));
        pacing.wrote(&shallow);
        assert!(!pacing.before_directory(3, true, &shallow));
        // Held for longer than the limit: written after the next directory.
        assert!(!pacing.after_directory(3, true, &shallow));
        std::thread::sleep(HOLD_AT_MOST);
        assert!(pacing.after_directory(3, true, &shallow));
        // Every directory, for a terminal.
        let mut every = Pacing::new(true);
        every.wrote(&shallow);
        assert!(every.after_directory(4, true, &shallow));
    }

    #[test]
    fn directories_answered_from_the_index_read_the_clock_every_so_many() {
        let shallow = ShallowFirst::new(0);
        let mut pacing = Pacing::default();
        let answered = |pacing: &mut Pacing| {
            pacing.answered_without_system_call(true);
            pacing.after_directory(2, true, &shallow)
        };
        assert!(answered(&mut pacing)); // the first output
        pacing.wrote(&shallow);
        // Held from here; past the limit, it goes only at the next clock read.
        assert!(!answered(&mut pacing));
        std::thread::sleep(HOLD_AT_MOST);
        for _ in 1..ANSWERED_PER_CLOCK_READ {
            assert!(!answered(&mut pacing));
        }
        assert!(answered(&mut pacing));
        pacing.wrote(&shallow);
        // A directory that was listed reads the clock at once, whatever came before.
        assert!(!answered(&mut pacing));
        assert!(!answered(&mut pacing));
        std::thread::sleep(HOLD_AT_MOST);
        pacing.answered_without_system_call(false);
        assert!(pacing.after_directory(2, true, &shallow));
    }

    #[test]
    fn deeper_output_waits_for_the_first_two_levels_to_be_written() {
        // One root with two subdirectories, listed by two workers.
        let shallow = ShallowFirst::new(1);
        let (mut first, mut second) = (Pacing::default(), Pacing::default());
        // The root: its files go out at once, and it is done once they are.
        shallow.queued(2);
        assert!(first.after_directory(0, true, &shallow));
        first.wrote(&shallow);
        // A subdirectory with no files is done at once.
        assert!(!second.after_directory(1, false, &shallow));
        assert!(!shallow.is_done());
        // The other holds files, and is not done while it holds them.
        first.after_directory(1, true, &shallow);
        // Meanwhile a depth-2 directory's files wait, however long, and however
        // deep the next directory is.
        assert!(!second.after_directory(2, true, &shallow));
        std::thread::sleep(HOLD_AT_MOST);
        assert!(!second.after_directory(2, true, &shallow));
        assert!(!second.before_directory(3, true, &shallow));
        assert!(!shallow.is_done());
        // The last shallow files are written: the deeper ones may go.
        first.wrote(&shallow);
        assert!(shallow.is_done());
        assert!(second.after_directory(2, true, &shallow));
    }

    #[test]
    fn shallow_files_go_before_anything_deeper_is_listed() {
        let shallow = ShallowFirst::new(1);
        shallow.queued(1);
        let mut pacing = Pacing::default();
        // Having been deep before (stolen work, say), it lists a shallow directory.
        pacing.before_directory(5, false, &shallow);
        assert!(!pacing.after_directory(0, false, &shallow));
        assert!(pacing.after_directory(1, true, &shallow)); // its first output
        pacing.wrote(&shallow);
        assert!(shallow.is_done());
        let shallow = ShallowFirst::new(2);
        let mut pacing = Pacing::default();
        pacing.before_directory(5, false, &shallow);
        pacing.wrote(&shallow);
        assert!(!pacing.after_directory(1, true, &shallow));
        // Its next directory is deeper, though not deeper than ever: they go first.
        assert!(pacing.before_directory(3, true, &shallow));
    }

    #[test]
    fn a_full_block_waits_only_for_what_others_hold() {
        let shallow = ShallowFirst::new(2);
        let mut pacing = Pacing::default();
        pacing.wrote(&shallow); // past its first output
                                // Listing a shallow directory: a full block goes.
        pacing.before_directory(1, false, &shallow);
        assert!(pacing.may_write_block(&shallow));
        // Listing a deep one while another worker has shallow files to write: it
        // waits.
        pacing.before_directory(2, false, &shallow);
        assert!(!pacing.may_write_block(&shallow));
        // Unless it holds shallow files of its own.
        assert!(!pacing.after_directory(1, true, &shallow));
        assert!(pacing.may_write_block(&shallow));
        pacing.wrote(&shallow);
        // The first two levels are done: everything goes.
        shallow.done(1);
        assert!(shallow.is_done());
        pacing.before_directory(4, false, &shallow);
        assert!(pacing.may_write_block(&shallow));
    }

    #[test]
    fn a_worker_never_waits_for_its_own_shallow_files() {
        let shallow = ShallowFirst::new(1);
        shallow.queued(1);
        let mut pacing = Pacing::default();
        pacing.after_directory(0, false, &shallow);
        // It lists something deep first (held), then the last shallow directory.
        assert!(!pacing.after_directory(2, true, &shallow));
        assert!(pacing.after_directory(1, true, &shallow));
        pacing.wrote(&shallow);
        assert!(shallow.is_done());
    }
}
