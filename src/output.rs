//! The destination of matched paths, shared by all workers.
//!
//! Workers build output in their own buffers and hand whole blocks here; one block is
//! one `write_all` under one lock, so lines from different workers never interleave
//! and the lock is taken once per block rather than once per line.
//!
//! Failures are decided here too. A reader that goes away (`pfind | head`) gives
//! `EPIPE` (Rust ignores `SIGPIPE`): that is not an error, the walk just stops and pfind
//! exits 0, as ripgrep does. Any other failure (`> /dev/full`) is reported once and
//! also stops the walk, since nothing more can be delivered.
//!
//! With `--sort`, workers hand over what they kept instead of blocks
//! ([`Output::keep`]), and [`Output::finish`] prints it in order once the walk is over.

use crate::config::{Config, OUTPUT_FLUSH_THRESHOLD};
use crate::report::Reporter;
use crate::sort::{write_merged, SortRun};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Width of the size column of `-l`: sizes up to 999 GB stay aligned.
pub const LONG_SIZE_WIDTH: usize = 12;

/// Appends `size` in decimal, right-aligned in [`LONG_SIZE_WIDTH`] columns, and one
/// space: the start of an `-l` line. No allocation, as it runs once per match. Never
/// inlined: it would only swell the walk's inner loop for the other output modes.
#[inline(never)]
pub fn push_size_column(out: &mut Vec<u8>, size: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = size;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let len = digits.len() - start;
    out.resize(out.len() + LONG_SIZE_WIDTH.saturating_sub(len), b' ');
    out.extend_from_slice(&digits[start..]);
    out.push(b' ');
}

/// `size` for a person, in powers of 1024 as `du -h` and `ls -lh` count: `512 B`,
/// `1.5 KiB`, `3.2 GiB`, with one decimal above bytes.
pub fn human_size(size: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if size < 1024 {
        return format!("{size} B");
    }
    let mut value = size as f64 / 1024.0;
    let mut unit = 0;
    // Step up before rounding could print `1024.0 KiB`.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The line `-s` prints: `3 matches, 1.5 MiB (1572864 bytes)`.
pub fn size_summary(matches: u64, bytes: u64) -> String {
    let noun = if matches == 1 { "match" } else { "matches" };
    format!("{matches} {noun}, {} ({bytes} bytes)\n", human_size(bytes))
}

/// `--max-results`: hands out at most `max` places in the output, across all workers.
///
/// A worker reserves a place before it buffers a match, so however many workers find
/// matches at the same moment, exactly `max` are printed. The one that takes the last
/// place flushes and stops the pool; later reservations are refused.
#[derive(Debug)]
pub struct MatchLimit {
    max: u64,
    taken: AtomicU64,
}

/// The answer to [`MatchLimit::reserve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservation {
    Granted,
    /// Granted, and it was the last place: flush and stop the walk.
    Last,
    Refused,
}

impl MatchLimit {
    pub fn new(max: u64) -> MatchLimit {
        MatchLimit {
            max,
            taken: AtomicU64::new(0),
        }
    }

    pub fn reserve(&self) -> Reservation {
        // Relaxed: only the number of places handed out matters, and `fetch_add`
        // hands each one out exactly once whatever the ordering.
        let place = self.taken.fetch_add(1, Ordering::Relaxed) + 1;
        match place.cmp(&self.max) {
            std::cmp::Ordering::Less => Reservation::Granted,
            std::cmp::Ordering::Equal => Reservation::Last,
            std::cmp::Ordering::Greater => Reservation::Refused,
        }
    }

    /// True once every place has been handed out.
    pub fn is_reached(&self) -> bool {
        self.taken.load(Ordering::Relaxed) >= self.max
    }
}

/// Where matches go: normally stdout, in tests any writer.
pub struct Output {
    sink: Mutex<Box<dyn Write + Send>>,
    /// Set after the first failed write; later blocks are dropped silently.
    failed: AtomicBool,
    /// `--sort`: each worker's sorted matches, printed by `finish`.
    kept: Mutex<Vec<SortRun>>,
}

/// What the walk should do after handing over a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    Delivered,
    /// The output is gone (closed pipe or write error): stop walking.
    Closed,
}

impl Output {
    /// The process's standard output, written with plain `write(2)` calls (no extra
    /// buffering: blocks are already large).
    ///
    /// Fails if descriptor 1 is not open (`pfind >&-`): the walk would otherwise open
    /// a directory as descriptor 1 and "print" into it.
    pub fn stdout() -> io::Result<Output> {
        // SAFETY: F_GETFD only queries descriptor flags; it has no effect on the fd.
        if unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Output::to_writer(Box::new(StdoutFd)))
    }

    /// Output to any writer; used by tests and benchmarks.
    pub fn to_writer(writer: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Mutex::new(writer),
            failed: AtomicBool::new(false),
            kept: Mutex::new(Vec::new()),
        }
    }

    /// `--sort`: takes one worker's sorted matches, to be printed by [`Self::finish`].
    pub fn keep(&self, run: SortRun) {
        if !run.is_empty() {
            lock(&self.kept).push(run);
        }
    }

    /// Prints whatever the walk kept for the end: with `--sort`, every worker's
    /// matches merged into one order (the first `--max-results` of them). Call it once
    /// [`crate::run`] has returned; without `--sort` it does nothing.
    pub fn finish(&self, config: &Config, reporter: &Reporter) {
        let runs = std::mem::take(&mut *lock(&self.kept));
        if let Some(format) = config
            .format
            .as_ref()
            .filter(|_| config.sort_order().is_some())
        {
            let first = config.max_results;
            write_merged(&runs, format, first, self, reporter, OUTPUT_FLUSH_THRESHOLD);
        }
    }

    /// Writes one block. A failure other than a closed pipe is reported, once.
    pub fn deliver(&self, block: &[u8], reporter: &Reporter) -> Delivery {
        if self.failed.load(Ordering::Relaxed) {
            return Delivery::Closed;
        }
        let result = {
            let mut sink = lock(&self.sink);
            sink.write_all(block).and_then(|()| sink.flush())
        };
        match result {
            Ok(()) => Delivery::Delivered,
            Err(err) => {
                if !self.failed.swap(true, Ordering::Relaxed)
                    && err.kind() != io::ErrorKind::BrokenPipe
                {
                    reporter.error("stdout", &err);
                }
                Delivery::Closed
            }
        }
    }

    /// True once a write has failed (a closed pipe included).
    pub fn is_closed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

/// A lock that a panicking worker cannot make unusable for the others.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Descriptor 1, unbuffered.
struct StdoutFd;

impl Write for StdoutFd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: `buf` is a valid readable slice; writing to fd 1 has no memory effects.
        let written = unsafe { libc::write(libc::STDOUT_FILENO, buf.as_ptr().cast(), buf.len()) };
        if written < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(written as usize)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Failing(io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn size_column_is_right_aligned() {
        let cases: &[(u64, &str)] = &[
            (0, "           0 "),
            (7, "           7 "),
            (1024, "        1024 "),
            (999_999_999_999, "999999999999 "),
            (1_000_000_000_000, "1000000000000 "),
            (u64::MAX, "18446744073709551615 "),
        ];
        for &(size, want) in cases {
            let mut out = b"x".to_vec();
            push_size_column(&mut out, size);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                format!("x{want}"),
                "{size}"
            );
        }
    }

    #[test]
    fn human_sizes() {
        let cases: &[(u64, &str)] = &[
            (0, "0 B"),
            (1023, "1023 B"),
            (1024, "1.0 KiB"),
            (1536, "1.5 KiB"),
            (1024 * 1024 - 1, "1.0 MiB"),
            (5 * 1024 * 1024 + 300 * 1024, "5.3 MiB"),
            (3 << 30, "3.0 GiB"),
            (1 << 40, "1.0 TiB"),
            (u64::MAX, "16.0 EiB"),
        ];
        for &(size, want) in cases {
            assert_eq!(human_size(size), want, "{size}");
        }
        assert_eq!(size_summary(1, 0), "1 match, 0 B (0 bytes)\n");
        assert_eq!(
            size_summary(3, 1572864),
            "3 matches, 1.5 MiB (1572864 bytes)\n"
        );
    }

    #[test]
    fn match_limit_hands_out_exactly_max_places() {
        let limit = MatchLimit::new(2);
        assert!(!limit.is_reached());
        assert_eq!(limit.reserve(), Reservation::Granted);
        assert_eq!(limit.reserve(), Reservation::Last);
        assert!(limit.is_reached());
        assert_eq!(limit.reserve(), Reservation::Refused);
        // Under contention, still exactly `max` places and one `Last`.
        let limit = MatchLimit::new(1000);
        let answers: Vec<Reservation> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| (0..500).map(|_| limit.reserve()).collect::<Vec<_>>()))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let count = |r| answers.iter().filter(|&&a| a == r).count();
        assert_eq!(count(Reservation::Granted), 999);
        assert_eq!(count(Reservation::Last), 1);
        assert_eq!(count(Reservation::Refused), 3000);
    }

    #[test]
    fn broken_pipe_closes_quietly() {
        let reporter = Reporter::new();
        let output = Output::to_writer(Box::new(Failing(io::ErrorKind::BrokenPipe)));
        assert_eq!(output.deliver(b"x\n", &reporter), Delivery::Closed);
        assert!(output.is_closed());
        assert!(!reporter.errored());
    }

    #[test]
    fn other_failures_are_errors_reported_once() {
        let reporter = Reporter::new();
        let output = Output::to_writer(Box::new(Failing(io::ErrorKind::StorageFull)));
        assert_eq!(output.deliver(b"x\n", &reporter), Delivery::Closed);
        assert!(reporter.errored());
        assert_eq!(output.deliver(b"y\n", &reporter), Delivery::Closed);
    }
}
