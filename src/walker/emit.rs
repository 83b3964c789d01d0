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

/// The width [`put_lines`] copies at a time.
const CHUNK: usize = 32;

/// The longest path before a name that [`put_lines`] copies a chunk at a time
/// (from a copy of its own, padded).
const WIDE_PREFIX: usize = 256;

/// Appends to `out`, for each length in `lens`, `prefix`, the next name of
/// `names` (`len` bytes and its NUL) and `terminator` in the NUL's place: the
/// lines [`Visitor::print_files`] prints. Each prefix and name starts with a
/// fixed copy of [`CHUNK`] bytes ([`copy_in_chunks`]), reading past a short
/// name's end into the names after it and writing past a line's end into the
/// room reserved after it, which the next line or `set_len` leaves out: two
/// calls to `memcpy` a line, for lengths it could not know, were two thirds of
/// printing a million-entry directory's record. The last names, with less than
/// a chunk after them in `names`, and a prefix longer than [`WIDE_PREFIX`] are
/// copied exactly. `names` must hold at
/// least the names `lens` says, each ending in its NUL (the caller checks it).
fn put_lines(out: &mut Vec<u8>, prefix: &[u8], lens: &[u8], names: &[u8], terminator: u8) {
    let taken: usize = lens.iter().map(|&len| usize::from(len) + 1).sum();
    assert!(taken <= names.len(), "names short of their lengths");
    let bytes = lens.len() * prefix.len() + taken;
    // Room for the last chunk's overrun too.
    out.reserve(bytes + CHUNK);
    let start = out.len();
    let mut padded = [0u8; WIDE_PREFIX];
    let wide_prefix = prefix.len() <= WIDE_PREFIX;
    if wide_prefix {
        padded[..prefix.len()].copy_from_slice(prefix);
    }
    let names_end = names.as_ptr() as usize + names.len();
    // SAFETY: `reserve` made room for `bytes + CHUNK` bytes after `start`. Each
    // line is written at `out`, its start, and ends at most `bytes` after
    // `start`; a chunked copy of `n` bytes writes `n` or one chunk, whichever is
    // more, from where it starts, so never past `start + bytes + CHUNK`. A
    // prefix is read in chunks only from `padded` (`WIDE_PREFIX` bytes, at least
    // a chunk, holding it first), and a name only when its chunk ends inside
    // `names` (`names_end`); otherwise both are copied exactly. Names are
    // read from `names`, whose first `taken` bytes are the names `lens` says
    // (asserted above). Neither `prefix`, `padded` nor `names` can overlap
    // `out`'s spare capacity (`out` is borrowed exclusively). All `bytes` bytes
    // are written before `set_len` makes them part of the vector; what chunks
    // wrote beyond them stays spare capacity.
    unsafe {
        let mut to = out.as_mut_ptr().add(start);
        let mut from = names.as_ptr();
        for &len in lens {
            let len = usize::from(len) + 1;
            if wide_prefix {
                copy_in_chunks(padded.as_ptr(), to, prefix.len());
            } else {
                std::ptr::copy_nonoverlapping(prefix.as_ptr(), to, prefix.len());
            }
            to = to.add(prefix.len());
            if from as usize + len.max(CHUNK) <= names_end {
                copy_in_chunks(from, to, len);
            } else {
                std::ptr::copy_nonoverlapping(from, to, len);
            }
            from = from.add(len);
            to = to.add(len);
            // The NUL's place: the terminator.
            *to.sub(1) = terminator;
        }
        out.set_len(start + bytes);
    }
}

/// Copies `len` bytes from `from` to `to`: the first [`CHUNK`] as one fixed
/// copy (two or four moves, whatever `len` is up to a chunk), the rest, if any,
/// exactly. (A loop of whole chunks is one LLVM turns back into `memcpy`.)
///
/// # Safety
/// `len` bytes or one chunk, whichever is more, must be readable at `from` and
/// writable at `to`, and the two ranges must not overlap.
#[inline(always)]
unsafe fn copy_in_chunks(from: *const u8, to: *mut u8, len: usize) {
    // SAFETY: the first chunk and the rest (inside `len`) are within what the
    // caller guarantees readable at `from` and writable at `to`.
    unsafe {
        let chunk = std::ptr::read_unaligned(from.cast::<[u8; CHUNK]>());
        std::ptr::write_unaligned(to.cast::<[u8; CHUNK]>(), chunk);
        if len > CHUNK {
            std::ptr::copy_nonoverlapping(from.add(CHUNK), to.add(CHUNK), len - CHUNK);
        }
    }
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
            // Read from where the block's names start to where the record's end.
            put_lines(&mut self.buffer, prefix, block, names, terminator);
            names = rest;
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

    #[test]
    fn lines_put_in_chunks_are_the_lines_put_exactly() {
        // Name lengths around the chunk's multiples, up to 255; prefixes around
        // them and past the padded copy's width.
        let lens: Vec<u8> = (0..600u32)
            .map(|i| [0, 1, 30, 31, 32, 33, 63, 64, 65, 200, 254, 255][(i * 7 % 12) as usize])
            .collect();
        let mut names = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            names.extend((0..len).map(|j| b'a' + ((i + usize::from(j)) % 26) as u8));
            names.push(0);
        }
        for prefix_len in [0, 1, 23, 31, 32, 33, 255, 256, 257, 1_000] {
            let prefix: Vec<u8> = (0..prefix_len).map(|i| b'0' + (i % 10) as u8).collect();
            let mut expected = b"before".to_vec();
            let mut at = 0;
            for &len in &lens {
                let len = usize::from(len);
                expected.extend_from_slice(&prefix);
                expected.extend_from_slice(&names[at..at + len]);
                expected.push(b'\n');
                at += len + 1;
            }
            // The whole record's names, and the names of a block that stop
            // where the record's do (the last ones copied exactly).
            let mut out = b"before".to_vec();
            put_lines(&mut out, &prefix, &lens, &names, b'\n');
            assert_eq!(out, expected, "prefix of {prefix_len}");
            // A block of the first lengths, with the record's names after it.
            let mut out = Vec::new();
            put_lines(&mut out, &prefix, &lens[..10], &names, 0);
            let lines: Vec<&[u8]> = out.split(|&b| b == 0).collect();
            assert_eq!(lines.len(), 11, "prefix of {prefix_len}");
            assert!(lines[..10].iter().all(|line| line.starts_with(&prefix)));
            assert_eq!(lines[10], b"");
        }
    }
}
