//! Entries whose kind the listing did not give (`DT_UNKNOWN`, or `--force-stat`):
//! asked with an `lstat` each, or, where those are round trips (a network
//! filesystem, or `stat`s found slow), put off and asked all at once after the
//! listing (`os::stat_many`), then visited as any other entry.

use super::job::Dir;
use super::visit::{Visitor, SLOW_STAT};
use crate::os::dirent::{EntryKind, RawEntry};
use crate::os::stat::{lstat_at, Fields};
use crate::os::stat_many::lstat_all;
use crate::threads::LatencyTally;
use std::ffi::CStr;
use std::os::fd::RawFd;
use std::time::Instant;

impl Visitor<'_> {
    /// The kind of an entry that must be asked for: `None` when that failed (and was
    /// reported) or when the entry waits in `unknown` to be asked with others (see
    /// [`Self::visit_unknown`]): once one `stat` of a listing without types took
    /// longer than [`SLOW_STAT`], each answer is a round trip, and one at a time they
    /// would set the pace of the walk. On a network filesystem every `stat` is a
    /// round trip, and the entries are always put off: learnt from one `stat` of its
    /// own, each new worker's first listing waited for a round trip alone, and a
    /// batch's time over its entries (the helpers' round trips overlap) fell below
    /// [`SLOW_STAT`] on directories of 64 entries at 1 ms, so the next listing asked
    /// alone again.
    #[inline(never)]
    pub(super) fn stat_kind(
        &mut self,
        dir: &Dir<'_>,
        dir_fd: RawFd,
        entry: &RawEntry<'_>,
    ) -> Option<EntryKind> {
        let unknown = entry.kind == EntryKind::Unknown;
        if unknown && (self.unknown.slow || self.pool.latency_bound_listings()) {
            self.unknown.defer(entry.name_cstr());
            return None;
        }
        let started = unknown.then(Instant::now);
        if let Some(probe) = crate::probe::installed().filter(|_| unknown) {
            probe.stat_asked_alone(dir.prefix);
        }
        let stat = lstat_at(dir_fd, entry.name_cstr(), Fields::TYPE);
        if started.is_some_and(|started| started.elapsed() > SLOW_STAT) {
            self.unknown.slow = true;
        }
        match stat {
            Ok(stat) => Some(EntryKind::from_mode(stat.mode())),
            Err(err) => {
                self.entry_error(dir, entry.name(), &err);
                None
            }
        }
    }

    /// After a directory's listing: the entries whose `stat` was put off, asked for
    /// all at once (`os::stat_many`), then visited with their kinds. If they came back
    /// fast on average, the next listings ask one at a time again. The test is inlined
    /// and the work is not, whatever the number of callers.
    #[inline(always)]
    pub(super) fn visit_unknown(&mut self, dir: &Dir<'_>, dir_fd: RawFd) {
        if !self.unknown.ends.is_empty() {
            self.visit_deferred(dir, dir_fd);
        }
    }

    /// Adds the interval the worker's last look measured, if it blocked, to `tally`.
    pub(super) fn count_interval(&mut self, tally: &LatencyTally) {
        if let Some(interval) = self.disk_watch.take_interval() {
            tally.add(&interval);
        }
    }

    /// Looks now (`DiskWaitWatch::look`) and counts what the look measured: between
    /// a listing's batches, and before a wait that is not the worker's own.
    pub(super) fn look_and_count(&mut self, tally: &LatencyTally) {
        self.disk_watch.look();
        self.count_interval(tally);
    }

    #[inline(never)]
    pub(super) fn visit_deferred(&mut self, dir: &Dir<'_>, dir_fd: RawFd) {
        let mut unknown = std::mem::take(&mut self.unknown);
        let started = Instant::now();
        let mut names = Vec::with_capacity(unknown.ends.len());
        let mut start = 0;
        for &end in &unknown.ends {
            names.extend(CStr::from_bytes_with_nul(&unknown.names[start..end]).ok());
            start = end;
        }
        // On a network root the wait for the helpers' round trips is left out of the
        // worker's intervals (what the listing waited before it is counted): the
        // helpers' CPU is not the worker's, and counted, that wait made the
        // workers' latency over their CPU ask for four times the workers at 1 ms
        // (see `threads::latency_step`).
        let tally = self.pool.latency_tally();
        if let Some(tally) = tally {
            self.look_and_count(tally);
        }
        let stats = lstat_all(dir_fd, &names);
        if tally.is_some() {
            self.disk_watch.reset();
        }
        let per_stat = started.elapsed() / u32::try_from(names.len()).unwrap_or(u32::MAX);
        for (name, stat) in names.iter().zip(stats) {
            match stat {
                Ok(stat) => {
                    let entry = RawEntry::from_name_with_nul(
                        name.to_bytes_with_nul(),
                        EntryKind::from_mode(stat.mode()),
                    );
                    self.visit_out_of_line(dir, dir_fd, entry);
                }
                Err(err) => self.entry_error(dir, name.to_bytes(), &err),
            }
        }
        unknown.slow = per_stat > SLOW_STAT;
        unknown.names.clear();
        unknown.ends.clear();
        self.unknown = unknown;
    }
}
