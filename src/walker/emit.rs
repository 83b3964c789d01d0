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
use crate::placement::Together;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

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
/// copied exactly.
///
/// Returns how many lines it put and the bytes of `names` they took. Only lines
/// whose name ends in a NUL where its length says are put: it stops before the
/// first that does not (a file this code did not write), or that `names` is too
/// short for. The NULs are looked at as the names are copied and the lines cut
/// back only if one was missing: a pass of its own over them, before the copy,
/// was a third of printing a record.
///
/// Where the CPU has AVX2, the same code compiled for it ([`put_lines_avx2`]):
/// a chunk is one move instead of two, and copying the million-entry
/// directory's lines took a fifth less time (docs/benchmarks.md, twelfth pass).
fn put_lines(
    out: &mut Vec<u8>,
    prefix: &[u8],
    lens: &[u8],
    names: &[u8],
    terminator: u8,
) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // SAFETY: the CPU has AVX2, all that `put_lines_avx2` asks.
        return unsafe { avx2::put_lines_avx2(out, prefix, lens, names, terminator) };
    }
    put_lines_inline(out, prefix, lens, names, terminator)
}

/// The AVX2 build of [`put_lines`], chosen when the program runs: the release
/// build is made for any x86_64 CPU (SSE2), where a chunk's copy is two 16-byte
/// moves.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    /// True if this processor has AVX2 (asked once).
    pub(super) fn available() -> bool {
        static AVAILABLE: std::sync::LazyLock<bool> =
            std::sync::LazyLock::new(|| is_x86_feature_detected!("avx2"));
        *AVAILABLE
    }

    /// [`super::put_lines`] compiled for AVX2.
    ///
    /// # Safety
    /// The processor has AVX2 ([`available`]).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn put_lines_avx2(
        out: &mut Vec<u8>,
        prefix: &[u8],
        lens: &[u8],
        names: &[u8],
        terminator: u8,
    ) -> (usize, usize) {
        super::put_lines_inline(out, prefix, lens, names, terminator)
    }
}

/// [`put_lines`]' body, inlined into each build of it.
#[inline(always)]
fn put_lines_inline(
    out: &mut Vec<u8>,
    prefix: &[u8],
    lens: &[u8],
    names: &[u8],
    terminator: u8,
) -> (usize, usize) {
    let taken: usize = lens.iter().map(|&len| usize::from(len) + 1).sum();
    if taken > names.len() {
        // Names short of their lengths: the lines that fit, then the check.
        let mut fit = 0;
        let mut at = 0;
        for &len in lens {
            at += usize::from(len) + 1;
            if at > names.len() {
                break;
            }
            fit += 1;
        }
        return put_lines(out, prefix, &lens[..fit], names, terminator);
    }
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
    // Every byte where a NUL should be, or'ed together: zero when all are NULs.
    let mut not_nul = 0u8;
    // SAFETY: `reserve` made room for `bytes + CHUNK` bytes after `start`. Each
    // line is written at `out`, its start, and ends at most `bytes` after
    // `start`; a chunked copy of `n` bytes writes `n` or one chunk, whichever is
    // more, from where it starts, so never past `start + bytes + CHUNK`. A
    // prefix is read in chunks only from `padded` (`WIDE_PREFIX` bytes, at least
    // a chunk, holding it first), and a name only when its chunk ends inside
    // `names` (`names_end`); otherwise both are copied exactly. Names are
    // read from `names`, whose first `taken` bytes hold the names `lens` says
    // (checked above). Neither `prefix`, `padded` nor `names` can overlap
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
            not_nul |= *from.sub(1);
            *to.sub(1) = terminator;
        }
        out.set_len(start + bytes);
    }
    if not_nul == 0 {
        return (lens.len(), taken);
    }
    // Cut back to the lines before the first name without its NUL.
    let (mut lines, mut at) = (0, 0);
    for &len in lens {
        if names[at + usize::from(len)] != 0 {
            break;
        }
        lines += 1;
        at += usize::from(len) + 1;
    }
    out.truncate(start + lines * prefix.len() + at);
    (lines, at)
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

/// Puts the lines of `lens` and `names` (as [`put_lines`] takes them) into `out`
/// in blocks of at most [`printed_at_once`] names, handing `out` to `full` each
/// time it holds [`OUTPUT_FLUSH_THRESHOLD`] bytes or more; returns how many lines
/// it put. It stops when `stop` is set (as between two batches of a listing: `-1`
/// or a closed pipe ends it) and at a name whose NUL is not where its length says,
/// as `RecordEntries` does.
fn put_blocks(
    out: &mut Vec<u8>,
    prefix: &[u8],
    (lens, mut names): (&[u8], &[u8]),
    terminator: u8,
    stop: &AtomicBool,
    mut full: impl FnMut(&mut Vec<u8>),
) -> u64 {
    let mut printed = 0;
    for block in lens.chunks(printed_at_once(prefix.len())) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // Read from where the block's names start to where the record's end.
        let (lines, taken) = put_lines(out, prefix, block, names, terminator);
        names = &names[taken..];
        printed += lines as u64;
        if out.len() >= OUTPUT_FLUSH_THRESHOLD {
            full(out);
        }
        if lines < block.len() {
            break;
        }
    }
    printed
}

/// Records of at least this many regular files are printed by helper threads
/// too ([`Visitor::print_files_shared`]): about 0.2 ms of copying for one
/// thread (a fifteenth of the million-entry directory), where starting one
/// takes tens of microseconds.
const SHARED_PRINT_FROM: usize = 1 << 16;

/// Parts a shared record is cut into per printing thread: a helper that starts
/// late, or a thread descheduled, leaves fewer lines to the others.
const SHARED_PARTS_PER_THREAD: usize = 8;

/// `lens` and `names` cut into at most `parts` parts of about as many names
/// each: each part's lengths, and the names from its first to the record's end
/// (as [`put_lines`] reads them). Only the lengths are read; each part checks its
/// names' NULs as it prints them, so a name without its NUL (a file this code
/// did not write, which its checksum would have refused) ends its own part, not
/// the parts after it.
fn cut_names<'r>(lens: &'r [u8], names: &'r [u8], parts: usize) -> Vec<(&'r [u8], &'r [u8])> {
    let each = lens.len().div_ceil(parts.max(1)).max(1);
    let mut cut = Vec::with_capacity(parts);
    let mut at = 0;
    for part in lens.chunks(each) {
        cut.push((part, names.get(at..).unwrap_or_default()));
        at += part.iter().map(|&len| usize::from(len) + 1).sum::<usize>();
    }
    cut
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
    /// what `visit_file_by_name` does for each, without its tests, in blocks (see
    /// [`put_blocks`]). A record of [`SHARED_PRINT_FROM`] names or more is printed
    /// by this worker and helper threads at once ([`Self::print_files_shared`]).
    #[inline(never)]
    pub(super) fn print_files(&mut self, prefix: &[u8], lens: &[u8], names: &[u8]) {
        let crate::output::OutputMode::Paths { terminator } = self.config.output else {
            return;
        };
        let helpers = self.print_helpers(lens.len());
        if helpers > 0 {
            self.print_files_shared(prefix, (lens, names), terminator, helpers);
            return;
        }
        let stop = self.pool.stop_flag();
        let mut buffer = std::mem::take(&mut self.buffer);
        let printed = put_blocks(
            &mut buffer,
            prefix,
            (lens, names),
            terminator,
            stop,
            |full| {
                // The block is the worker's buffer while it decides (pacing).
                std::mem::swap(full, &mut self.buffer);
                self.flush_full();
                std::mem::swap(full, &mut self.buffer);
            },
        );
        self.buffer = buffer;
        self.found.matches += printed;
    }

    /// How many helper threads print a record of `count` regular files with this
    /// worker: none below [`SHARED_PRINT_FROM`] (unless every listing is cut, as
    /// tests ask), none where what this worker holds must wait for the first two
    /// levels (the helpers write as soon as their blocks are full), and otherwise
    /// as many as would list a giant directory's pieces (`piece_helpers`).
    fn print_helpers(&self, count: usize) -> usize {
        let large = count >= SHARED_PRINT_FROM || (self.config.split_every_listing && count > 1);
        if !large || !self.pacing.may_write_block(self.shallow) {
            return 0;
        }
        super::recording::piece_helpers(self, self.alone)
    }

    /// [`Self::print_files`] with `helpers` threads: the record is cut into parts
    /// ([`cut_names`]) that this worker and the helpers take in turn, each putting
    /// its lines in a buffer of its own and writing it whenever it is full. On the
    /// million-entry directory's repeat, one thread copying 43 MB of lines was
    /// half of the run. What this worker held is written first, so nothing of an
    /// earlier directory waits behind these lines. A helper that cannot be started
    /// leaves its parts to the others.
    #[inline(never)]
    fn print_files_shared(
        &mut self,
        prefix: &[u8],
        (lens, names): (&[u8], &[u8]),
        terminator: u8,
        helpers: usize,
    ) {
        use std::sync::atomic::AtomicUsize;
        self.flush();
        let parts = cut_names(lens, names, (helpers + 1) * SHARED_PARTS_PER_THREAD);
        let (pool, output, reporter) = (self.pool, self.output, self.reporter);
        let stop = pool.stop_flag();
        let next = AtomicUsize::new(0);
        let deliver = |block: &mut Vec<u8>| {
            if !block.is_empty() && output.deliver(block, reporter) == Delivery::Closed {
                pool.stop();
            }
            block.clear();
        };
        // A helper queued behind this thread on its CPU, or this thread behind a
        // helper that the kernel let run first on it, waits for the load balancer,
        // a millisecond or more, unless the one running moves (`placement`).
        let together = Together::new(helpers + 1);
        let take = || {
            let mut began = together.begin();
            let mut out = Vec::with_capacity(OUTPUT_FLUSH_THRESHOLD + OUTPUT_FLUSH_THRESHOLD / 2);
            let mut printed = 0;
            while let Some(&part) = parts.get(next.fetch_add(1, Ordering::Relaxed)) {
                printed += put_blocks(&mut out, prefix, part, terminator, stop, deliver);
                began.look();
            }
            deliver(&mut out);
            printed
        };
        let printed: u64 = std::thread::scope(|scope| {
            let helpers: Vec<_> = (0..helpers)
                .filter_map(|_| {
                    std::thread::Builder::new()
                        .name("pfind-print".into())
                        .spawn_scoped(scope, take)
                        .ok()
                })
                .collect();
            let mut printed = take();
            for helper in helpers {
                match helper.join() {
                    Ok(more) => printed += more,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            printed
        });
        self.found.matches += printed;
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

    type PutLines = fn(&mut Vec<u8>, &[u8], &[u8], &[u8], u8) -> (usize, usize);

    /// Each build of [`put_lines`] this CPU runs: the one for any x86_64 CPU and,
    /// where it has AVX2, the AVX2 one (which `put_lines` itself then picks).
    fn put_lines_builds() -> Vec<(&'static str, PutLines)> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut builds: Vec<(&'static str, PutLines)> = vec![("baseline", put_lines_inline)];
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            fn avx2_build(
                out: &mut Vec<u8>,
                prefix: &[u8],
                lens: &[u8],
                names: &[u8],
                terminator: u8,
            ) -> (usize, usize) {
                // SAFETY: only listed where the CPU has AVX2.
                unsafe { avx2::put_lines_avx2(out, prefix, lens, names, terminator) }
            }
            builds.push(("avx2", avx2_build));
        }
        builds
    }

    #[test]
    fn lines_put_in_chunks_are_the_lines_put_exactly() {
        for (build, put_lines) in put_lines_builds() {
            lines_put_exactly_by(build, put_lines);
        }
    }

    fn lines_put_exactly_by(build: &str, put_lines: PutLines) {
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
            assert_eq!(out, expected, "{build}: prefix of {prefix_len}");
            // A block of the first lengths, with the record's names after it.
            let mut out = Vec::new();
            let put = put_lines(&mut out, &prefix, &lens[..10], &names, 0);
            let taken: usize = lens[..10].iter().map(|&len| usize::from(len) + 1).sum();
            assert_eq!(put, (10, taken), "{build}: prefix of {prefix_len}");
            let lines: Vec<&[u8]> = out.split(|&b| b == 0).collect();
            assert_eq!(lines.len(), 11, "{build}: prefix of {prefix_len}");
            assert!(lines[..10].iter().all(|line| line.starts_with(&prefix)));
            assert_eq!(lines[10], b"");
        }
    }

    /// Names and lengths as a record holds them.
    fn record_of(names: &[&[u8]]) -> (Vec<u8>, Vec<u8>) {
        let lens = names.iter().map(|name| name.len() as u8).collect();
        let mut bytes = Vec::new();
        for name in names {
            bytes.extend_from_slice(name);
            bytes.push(0);
        }
        (lens, bytes)
    }

    #[test]
    fn lines_stop_before_a_name_whose_nul_is_not_where_its_length_says() {
        for (build, put_lines) in put_lines_builds() {
            lines_stop_by(build, put_lines);
        }
    }

    fn lines_stop_by(build: &str, put_lines: PutLines) {
        let long = [b'x'; 40];
        let names: [&[u8]; 5] = [b"a", &long, b"bb", b"ccc", b"d"];
        let (lens, mut bytes) = record_of(&names);
        // "ccc"'s NUL overwritten: "a", the long one and "bb" are put, no more.
        let ccc_nul = bytes.len() - 3;
        assert_eq!(bytes[ccc_nul], 0);
        bytes[ccc_nul] = b'!';
        let mut out = b"held".to_vec();
        let put = put_lines(&mut out, b"p/", &lens, &bytes, b'\n');
        assert_eq!(put, (3, 2 + 41 + 3), "{build}");
        let mut expected = b"held".to_vec();
        for name in &names[..3] {
            expected.extend_from_slice(b"p/");
            expected.extend_from_slice(name);
            expected.push(b'\n');
        }
        assert_eq!(out, expected, "{build}");
        // Names short of their lengths: the lines that fit, each checked.
        let (lens, bytes) = record_of(&names);
        let mut out = Vec::new();
        assert_eq!(
            put_lines(&mut out, b"", &lens, &bytes[..46], b'\n'),
            (3, 46)
        );
        assert_eq!(out, [b"a\n".as_slice(), &long, b"\nbb\n"].concat());
        // The first one wrong: nothing.
        let mut out = Vec::new();
        assert_eq!(put_lines(&mut out, b"p/", &[2], b"abc", b'\n'), (0, 0));
        assert!(out.is_empty());
    }

    #[test]
    fn a_record_cut_for_printing_is_its_names_in_order_once() {
        let names: Vec<Vec<u8>> = (0..1_000)
            .map(|i: usize| vec![b'a' + (i % 26) as u8; i % 255])
            .collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        let (lens, bytes) = record_of(&refs);
        for parts in [1, 2, 3, 16, 999, 1_000, 5_000] {
            let cut = cut_names(&lens, &bytes, parts);
            assert!(cut.len() <= parts, "{parts} parts");
            let mut lines = Vec::new();
            for (part_lens, part_names) in cut {
                let mut out = Vec::new();
                let put = put_lines(&mut out, b"", part_lens, part_names, b'\n');
                assert_eq!(put.0, part_lens.len(), "{parts} parts");
                lines.extend(out.split(|&b| b == b'\n').map(<[u8]>::to_vec));
                assert_eq!(lines.pop(), Some(Vec::new()));
            }
            assert_eq!(lines, names, "{parts} parts");
        }
    }
}
