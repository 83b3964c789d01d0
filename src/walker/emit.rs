//! What the visitor hands on: each match to the worker's output buffer (inline for
//! plain paths and `-l`, out of line for formats and `--max-results`), the buffer
//! to the shared output in blocks, and problems to the reporter.

use super::job::Dir;
use super::visit::Visitor;
use crate::os::dirent::EntryKind;
use crate::output::limit::{MatchLimit, Reservation};
use crate::output::line::push_line;
use crate::output::meta::Meta;
use crate::output::pacing::OUTPUT_HOLD_CAP;
use crate::output::printer::Match;
use crate::output::sink::{Delivery, OUTPUT_FLUSH_THRESHOLD};
use std::io;

/// How many names [`Visitor::print_files`] puts in the buffer between two looks
/// at its size and at the stop: as a listing's batch of about a thousand entries,
/// and fewer under a long path, so that a block adds at most about
/// [`OUTPUT_FLUSH_THRESHOLD`] to the buffer (`memory` counts a worker's at twice
/// that).
const PRINTED_AT_ONCE: usize = 1024;

/// [`PRINTED_AT_ONCE`] for names after a path of `prefix_len` bytes.
fn printed_at_once(prefix_len: usize) -> usize {
    let line = prefix_len + usize::from(u8::MAX) + 1;
    (OUTPUT_FLUSH_THRESHOLD / line).clamp(1, PRINTED_AT_ONCE)
}

impl Visitor<'_> {
    /// [`Self::emit`] as a call, for the paths that are not per-file hot (after a
    /// `stat`, an empty directory): each inlined copy of `emit` is one more site for
    /// the `Vec` copies, and past a few LLVM stops inlining them in the hot loop too.
    #[inline(never)]
    pub(super) fn emit_out_of_line(&mut self, path_parts: [&[u8]; 2], size: u64) {
        self.emit(path_parts, size)
    }

    /// Counts one match and hands it to `formatted`, unless `--max-results` has been
    /// reached: [`Self::emit`] for [`OutputMode::Formatted`].
    #[inline(never)]
    pub(super) fn emit_formatted(
        &mut self,
        path_parts: [&[u8]; 2],
        kind: EntryKind,
        meta: Option<Meta>,
    ) {
        let reservation = self.limit.map(MatchLimit::reserve);
        if reservation == Some(Reservation::Refused) {
            return;
        }
        self.found.matches += 1;
        self.found.bytes += u128::from(meta.map_or(0, |meta| meta.size));
        if let Some(formatted) = self.formatted.as_deref_mut() {
            let found = Match {
                parts: path_parts,
                kind,
                meta: meta.as_ref(),
            };
            formatted.add(&mut self.buffer, &found);
        }
        if reservation == Some(Reservation::Last) {
            self.flush();
            self.pool.stop();
        } else if self.buffer.len() >= OUTPUT_FLUSH_THRESHOLD {
            self.flush_full();
        }
    }

    /// Prints every entry of a record that holds regular files alone (each name's
    /// length without its NUL in `lens`, the names with their NULs in `names`) in
    /// `prefix`, where [`Visitor::prints_files_whole`] and files may match here:
    /// what `visit_file_by_name` does for each, without its tests, in blocks of
    /// at most [`PRINTED_AT_ONCE`] names, each reserved and copied in one loop (a million
    /// names took 150 instructions each through the visitor). It stops at a name
    /// whose NUL is not where its length says, as `RecordEntries` does.
    #[inline(never)]
    pub(super) fn print_files(&mut self, prefix: &[u8], lens: &[u8], names: &[u8]) {
        let crate::output::OutputMode::Paths { terminator } = self.config.output else {
            return;
        };
        let stop = self.pool.stop_flag();
        let mut names = names;
        for block in lens.chunks(printed_at_once(prefix.len())) {
            // As between two batches of a listing: `-1` or a closed pipe ends it.
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            let taken: usize = block.iter().map(|&len| usize::from(len) + 1).sum();
            let Some((these, rest)) = names.split_at_checked(taken) else {
                return;
            };
            let mut ends = 0;
            let whole = block.iter().all(|&len| {
                ends += usize::from(len) + 1;
                these[ends - 1] == 0
            });
            if !whole {
                return;
            }
            names = rest;
            let bytes = block.len() * prefix.len() + taken;
            self.buffer.reserve(bytes);
            let start = self.buffer.len();
            // SAFETY: `reserve` made room for `bytes` more bytes after `start`, and
            // the loop writes exactly that many: a prefix and a name with its NUL
            // (`len + 1` bytes, inside `these`, whose length is their sum) for each
            // of the block's lengths. `prefix` and `these` are borrowed elsewhere and
            // cannot overlap the buffer's spare capacity (exclusively borrowed); all
            // `bytes` are written before `set_len` makes them part of the vector.
            unsafe {
                let mut out = self.buffer.as_mut_ptr().add(start);
                let mut from = these.as_ptr();
                for &len in block {
                    let len = usize::from(len) + 1;
                    std::ptr::copy_nonoverlapping(prefix.as_ptr(), out, prefix.len());
                    out = out.add(prefix.len());
                    std::ptr::copy_nonoverlapping(from, out, len);
                    from = from.add(len);
                    out = out.add(len);
                    // The NUL's place: the terminator.
                    *out.sub(1) = terminator;
                }
                self.buffer.set_len(start + bytes);
            }
            self.found.matches += block.len() as u64;
            if self.buffer.len() >= OUTPUT_FLUSH_THRESHOLD {
                self.flush_full();
            }
        }
    }

    /// Counts and buffers one match, unless `--max-results` has been reached.
    #[inline(always)]
    pub(super) fn emit(&mut self, path_parts: [&[u8]; 2], size: u64) {
        match self.limit {
            None => self.buffer_match(path_parts, size),
            Some(limit) => self.emit_limited(limit, path_parts, size),
        }
    }

    #[inline(always)]
    pub(super) fn buffer_match(&mut self, path_parts: [&[u8]; 2], size: u64) {
        self.found.matches += 1;
        self.found.bytes += u128::from(size);
        push_line(&mut self.buffer, self.config.output, path_parts, size);
        if self.buffer.len() >= OUTPUT_FLUSH_THRESHOLD {
            self.flush_full();
        }
    }

    /// `--max-results`: out of line, so that the walk without it does not carry the
    /// reservation in its inner loop.
    #[inline(never)]
    pub(super) fn emit_limited(&mut self, limit: &MatchLimit, path_parts: [&[u8]; 2], size: u64) {
        match limit.reserve() {
            Reservation::Granted => self.buffer_match(path_parts, size),
            Reservation::Last => {
                // The last result: show it now and end the walk for every worker.
                self.buffer_match(path_parts, size);
                self.flush();
                self.pool.stop();
            }
            Reservation::Refused => {}
        }
    }

    #[inline(never)]
    pub(super) fn report_loop(&self, path: &[u8]) {
        self.reporter
            .path_error(path, &io::Error::other("filesystem loop detected"));
    }

    #[inline(never)]
    pub(super) fn entry_error(&self, dir: &Dir<'_>, name: &[u8], err: &io::Error) {
        self.reporter.path_error(&dir.entry_path(name), err);
    }

    /// The block has reached its size: written, unless what it holds must wait for
    /// the first two levels (see `output::pacing`), in which case it grows up to
    /// [`OUTPUT_HOLD_CAP`] first.
    #[inline(never)]
    pub(super) fn flush_full(&mut self) {
        if self.buffer.len() < OUTPUT_HOLD_CAP && !self.pacing.may_write_block(self.shallow) {
            return;
        }
        self.flush();
    }

    /// Before a directory at `depth` is listed: what is held goes out first if
    /// the pacing says so (see `output::pacing`).
    #[inline(always)]
    pub(super) fn before_directory(&mut self, depth: usize) {
        let holding = !self.buffer.is_empty();
        if self.pacing.before_directory(depth, holding, self.shallow) {
            self.flush();
        }
    }

    /// After a directory at `depth` was listed: what is held written if the pacing
    /// says it is time.
    #[inline(always)]
    pub(super) fn after_directory(&mut self, depth: usize) {
        let holding = !self.buffer.is_empty();
        if self.pacing.after_directory(depth, holding, self.shallow) {
            self.flush();
        }
    }

    /// Hands the buffered output to stdout; on a closed or failed output, ends the walk.
    #[inline(never)]
    pub(super) fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        if self.output.deliver(&self.buffer, self.reporter) == Delivery::Closed {
            self.pool.stop();
        }
        self.buffer.clear();
        self.pacing.wrote(self.shallow);
        // Waiting for a slow reader, or for another worker's block, is not a wait on
        // the disk.
        self.disk_watch.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_of_printed_names_adds_at_most_about_a_flush_threshold() {
        for prefix_len in [0, 1, 30, 255, 1_000, 4_096, 300_000] {
            let names = printed_at_once(prefix_len);
            assert!(
                (1..=PRINTED_AT_ONCE).contains(&names),
                "{prefix_len}: {names}"
            );
            // Each name at most 255 bytes and its terminator.
            let most = names * (prefix_len + 256);
            assert!(
                most <= OUTPUT_FLUSH_THRESHOLD.max(prefix_len + 256),
                "{prefix_len}: {names} names, {most} bytes"
            );
        }
        assert_eq!(printed_at_once(0), PRINTED_AT_ONCE);
    }
}
