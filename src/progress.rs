//! How far a walk has got, for a person waiting on it: the counts the workers
//! publish once per directory they finish ([`Progress::publish`]), and the one-line
//! status made from them ([`Progress::line`]), which the binaries print on
//! SIGUSR1 (and SIGINFO, `^T`, where the system has it, as bfs and the BSD tools
//! do) and, with `--progress`, every few seconds while stderr is a terminal (see
//! [`Watcher`]: a signal handler, which builds the line without allocating).
//!
//! The counts are one process's: the walk publishes into [`PROGRESS`] only when
//! [`Config::progress`](crate::Config::progress) says so, so that a library user and
//! the tests pay nothing for it; a worker publishes what it added since its last
//! directory, four atomic additions a directory, never per entry. The entries
//! examined are counted only with `--progress` or `--stats` (a second pass over
//! each listed batch); a line asked for by signal alone says the directories
//! listed instead.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The process's walk, as published so far.
pub static PROGRESS: Progress = Progress::new();

/// Counts published by the workers; each only grows.
#[derive(Default)]
pub struct Progress {
    examined: AtomicU64,
    matches: AtomicU64,
    /// Directories queued to be listed (roots included), and those listed.
    queued: AtomicU64,
    listed: AtomicU64,
    /// Whether `examined` is counted (`--progress`, `--stats`): it costs a second
    /// pass over each batch a directory listing returns, which a walk that only
    /// might be sent SIGUSR1 does not pay.
    counted: AtomicBool,
}

/// What one worker has published, to publish only what it adds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Published {
    pub examined: u64,
    pub matches: u64,
    pub queued: u64,
}

impl Progress {
    pub const fn new() -> Progress {
        Progress {
            examined: AtomicU64::new(0),
            matches: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            listed: AtomicU64::new(0),
            counted: AtomicBool::new(false),
        }
    }

    /// Whether the walk counts the entries it examines (see [`Progress::line`]).
    pub fn count_examined(&self, counted: bool) {
        self.counted.store(counted, Ordering::Relaxed);
    }

    /// One directory listed by a worker whose totals are now `now`; `last` is what
    /// it had published, and becomes `now`.
    pub fn publish(&self, last: &mut Published, now: Published) {
        let add = |counter: &AtomicU64, from: u64, to: u64| {
            if to > from {
                counter.fetch_add(to - from, Ordering::Relaxed);
            }
        };
        add(&self.examined, last.examined, now.examined);
        add(&self.matches, last.matches, now.matches);
        add(&self.queued, last.queued, now.queued);
        self.listed.fetch_add(1, Ordering::Relaxed);
        *last = now;
    }

    /// Directories queued before any worker runs (the roots).
    pub fn queue_roots(&self, count: u64) {
        self.queued.fetch_add(count, Ordering::Relaxed);
    }

    /// The status line, without its newline: `pfind: 120000 entries examined, 42
    /// matches, 96000 entries/s, 1.3 s, 17 directories waiting`; where the entries
    /// are not counted, the directories listed take their place.
    pub fn line(&self, program: &str, elapsed: Duration) -> String {
        let listed = self.listed.load(Ordering::Relaxed);
        let examined = self
            .counted
            .load(Ordering::Relaxed)
            .then(|| self.examined.load(Ordering::Relaxed));
        let counts = Counts {
            examined,
            listed,
            matches: self.matches.load(Ordering::Relaxed),
            waiting: self.queued.load(Ordering::Relaxed).saturating_sub(listed),
        };
        status_line(program, counts, elapsed)
    }
}

/// What the status line says.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// `None` where the entries are not counted.
    pub examined: Option<u64>,
    pub listed: u64,
    pub matches: u64,
    pub waiting: u64,
}

/// The status line for these counts (see [`Progress::line`]).
pub fn status_line(program: &str, counts: Counts, elapsed: Duration) -> String {
    let mut line = Line::default();
    line.counts(program.as_bytes(), counts, elapsed.as_nanos() as u64);
    let text = line.bytes().strip_suffix(b"\n").unwrap_or(line.bytes());
    String::from_utf8_lossy(text).into_owned()
}

/// A line built without allocating, so that a signal handler may build it: bytes
/// into a fixed buffer (what does not fit is cut).
struct Line {
    bytes: [u8; 256],
    len: usize,
}

impl Default for Line {
    fn default() -> Line {
        Line {
            bytes: [0; 256],
            len: 0,
        }
    }
}

impl Line {
    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn push(&mut self, text: &[u8]) {
        let room = self.bytes.len() - self.len;
        let take = text.len().min(room);
        self.bytes[self.len..self.len + take].copy_from_slice(&text[..take]);
        self.len += take;
    }

    fn number(&mut self, mut value: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (value % 10) as u8;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        self.push(&digits[at..]);
    }

    /// `program: COUNT WHAT, M matches, RATE UNIT/s, S.T s, W directories waiting`.
    fn counts(&mut self, program: &[u8], counts: Counts, nanos: u64) {
        let (count, what, unit): (u64, &[u8], &[u8]) = match counts.examined {
            Some(examined) => (examined, b" entries examined, ", b" entries/s, "),
            None => (counts.listed, b" directories listed, ", b" directories/s, "),
        };
        // Tenths of a second, rounded half to even as `{:.1}` rounds.
        let tenths = nanos / 100_000_000 + u64::from(nanos % 100_000_000 > 50_000_000);
        let rate = match nanos {
            0 => 0,
            _ => (u128::from(count) * 1_000_000_000 / u128::from(nanos)) as u64,
        };
        self.push(program);
        self.push(b": ");
        self.number(count);
        self.push(what);
        self.number(counts.matches);
        self.push(b" matches, ");
        self.number(rate);
        self.push(unit);
        self.number(tenths / 10);
        self.push(b".");
        self.number(tenths % 10);
        self.push(b" s, ");
        self.number(counts.waiting);
        self.push(b" directories waiting\n");
    }
}

/// The signals that ask for the status line: SIGUSR1 everywhere, and SIGINFO (the
/// terminal's `^T`) where the system has one.
pub fn signals() -> Vec<libc::c_int> {
    #[allow(unused_mut)]
    let mut signals = vec![libc::SIGUSR1];
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd",
        target_os = "dragonfly"
    ))]
    signals.push(libc::SIGINFO);
    signals
}

/// Who the line is from (`pfind`, `pfind-mpi: rank 3`), set before the handler is.
static PROGRAM: std::sync::OnceLock<Box<[u8]>> = std::sync::OnceLock::new();
/// When the walk started, `CLOCK_MONOTONIC` nanoseconds.
static STARTED: AtomicU64 = AtomicU64::new(0);

fn monotonic_nanos() -> u64 {
    // SAFETY: a zeroed `timespec` is valid; `clock_gettime` fills it and is
    // async-signal-safe.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64).saturating_mul(1_000_000_000) + now.tv_nsec as u64
}

/// The handler of [`signals`] and of `--progress`'s timer (SIGALRM): the line,
/// built on the stack from the atomics and written with one `write(2)`, all of it
/// async-signal-safe. A handler rather than a thread waiting for the signal: a
/// second thread makes glibc's `openat` and `close` take their multi-threaded path,
/// 2% more instructions for `/usr/share -j1 -c` (callgrind).
extern "C" fn on_signal(_: libc::c_int) {
    let saved = std::io::Error::last_os_error().raw_os_error();
    let progress = &PROGRESS;
    let listed = progress.listed.load(Ordering::Relaxed);
    let counts = Counts {
        examined: (progress.counted.load(Ordering::Relaxed))
            .then(|| progress.examined.load(Ordering::Relaxed)),
        listed,
        matches: progress.matches.load(Ordering::Relaxed),
        waiting: progress
            .queued
            .load(Ordering::Relaxed)
            .saturating_sub(listed),
    };
    let elapsed = monotonic_nanos().saturating_sub(STARTED.load(Ordering::Relaxed));
    let mut line = Line::default();
    let program = PROGRAM.get().map_or(&b"pfind"[..], |program| &program[..]);
    line.counts(program, counts, elapsed);
    let bytes = line.bytes();
    // SAFETY: `bytes` is valid for its length; `write` is async-signal-safe.
    let _ = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
    // `errno` as the interrupted code left it.
    if let Some(errno) = saved {
        set_errno(errno);
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn set_errno(value: libc::c_int) {
    // SAFETY: the calling thread's `errno`.
    unsafe { *libc::__errno_location() = value };
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn set_errno(value: libc::c_int) {
    // SAFETY: the calling thread's `errno`.
    unsafe { *libc::__error() = value };
}

/// The status line's printer while a walk runs: the handler of [`signals`], and
/// with `every` a timer that raises SIGALRM that often. `SA_RESTART`: a system call
/// the signal interrupts goes on rather than failing with `EINTR`.
pub struct Watcher {
    timer: bool,
}

impl Watcher {
    /// Starts answering; `program` begins each line.
    pub fn start(program: &str, every: Option<Duration>) -> Watcher {
        let _ = PROGRAM.set(program.as_bytes().into());
        STARTED.store(monotonic_nanos(), Ordering::Relaxed);
        let mut signals = signals();
        if every.is_some() {
            signals.push(libc::SIGALRM);
        }
        for signal in signals {
            // SAFETY: a zeroed `sigaction` is valid; the handler is an `extern "C"`
            // function of the type the kernel calls, and async-signal-safe.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        if let Some(every) = every {
            set_timer(every);
        }
        Watcher {
            timer: every.is_some(),
        }
    }

    /// Stops the timer once the walk is over; the signals keep their handler, which
    /// then says what the walk came to.
    pub fn stop(self) {
        if self.timer {
            set_timer(Duration::ZERO);
        }
    }
}

/// `setitimer(ITIMER_REAL)`: SIGALRM every `every`, or none for zero.
fn set_timer(every: Duration) {
    let interval = libc::timeval {
        tv_sec: every.as_secs() as libc::time_t,
        tv_usec: every.subsec_micros() as libc::suseconds_t,
    };
    let timer = libc::itimerval {
        it_interval: interval,
        it_value: interval,
    };
    // SAFETY: `timer` is a valid `itimerval`; the old value is not asked for.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_every_figure() {
        let counts = Counts {
            examined: Some(120_000),
            listed: 300,
            matches: 42,
            waiting: 17,
        };
        let line = status_line("pfind", counts, Duration::from_millis(1_250));
        assert_eq!(
            line,
            "pfind: 120000 entries examined, 42 matches, 96000 entries/s, 1.2 s, 17 \
             directories waiting"
        );
        let uncounted = Counts {
            examined: None,
            ..counts
        };
        assert_eq!(
            status_line("pfind", uncounted, Duration::from_secs(2)),
            "pfind: 300 directories listed, 42 matches, 150 directories/s, 2.0 s, 17 \
             directories waiting"
        );
        assert!(status_line("pfind", counts, Duration::ZERO).contains(" 0 entries/s"));
    }

    #[test]
    fn workers_publish_what_they_added() {
        let progress = Progress::new();
        progress.queue_roots(1);
        progress.count_examined(true);
        let mut last = Published::default();
        let now = Published {
            examined: 10,
            matches: 3,
            queued: 2,
        };
        progress.publish(&mut last, now);
        progress.publish(&mut last, now);
        let line = progress.line("p", Duration::from_secs(1));
        assert_eq!(
            line,
            "p: 10 entries examined, 3 matches, 10 entries/s, 1.0 s, 1 directories waiting"
        );
    }
}
