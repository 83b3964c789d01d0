//! How far a walk has got, for a person waiting on it: the counts the workers
//! publish when asked ([`Progress::publish`]), and the one-line status made from
//! them ([`Progress::line`]), which the binaries print on SIGUSR1 (and SIGINFO,
//! `^T`, where the system has it, as bfs and the BSD tools do) and, with
//! `--progress`, every few seconds while stderr is a terminal (see [`Watcher`]:
//! signal handlers, which build the line without allocating).
//!
//! # Published when asked
//!
//! Each worker keeps its counts to itself (its `Summary`, the subdirectories it
//! queued, the directories it listed) and adds them to [`PROGRESS`] only when a
//! line has been asked for since it last did, and every [`PUBLISH_EVERY`]
//! directories: after each directory it compares [`Progress::asked`], a number
//! the signal handler (or the timer) bumps, with the one it last answered, and its
//! count of directories with the next multiple; a load and two comparisons, and
//! no atomic addition (four a directory cost the default walk 0.9% of its
//! instructions: callgrind, `/usr -j1 -c`). The line is printed a moment later
//! ([`ANSWER_WITHIN`]), by a second signal (SIGALRM from a one-shot timer), once
//! the workers have finished the directory they were in and published. A worker
//! publishes too before it parks with nothing to do and when it ends, so an idle
//! worker's counts are never missing, and a line asked for after the listing is
//! over says exactly what the walk came to. A worker still in its directory after
//! [`ANSWER_WITHIN`] (a giant one, one whose output waits on a slow reader, one on
//! a server that hangs) is in that line with what it last published: the line
//! lags by that directory and at most [`PUBLISH_EVERY`] - 1 before it, which the
//! next line has.
//!
//! The counts are one process's, with those its peers sent added in on the one
//! that prints (`pfind-mpi`'s rank 0, see [`Progress::add_others`]). The walk
//! publishes only when [`Config::progress`](crate::Config::progress) says so, so
//! that a library user and the tests pay nothing for it. The entries examined are
//! counted only with `--progress` or `--stats` (a second pass over each listed
//! batch); a line asked for by signal alone says the directories listed instead.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::Duration;

/// The process's walk, as published so far.
pub static PROGRESS: Progress = Progress::new();

/// A worker publishes at least every this many directories it lists, asked or
/// not: a worker that a line finds stuck in one directory is then in the line
/// with all but its last few directories' counts, for four atomic additions every
/// 64 directories.
pub const PUBLISH_EVERY: u64 = 64;

/// How long after a line is asked for it is printed: time for the workers to
/// finish the directory they are in and publish (a directory takes microseconds
/// to list on a local disk).
pub const ANSWER_WITHIN: Duration = Duration::from_millis(50);

/// Counts, each of which only grows.
#[derive(Default)]
struct Tally {
    examined: AtomicU64,
    matches: AtomicU64,
    /// Directories queued to be listed (roots included), and those listed.
    queued: AtomicU64,
    listed: AtomicU64,
}

impl Tally {
    const fn new() -> Tally {
        Tally {
            examined: AtomicU64::new(0),
            matches: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            listed: AtomicU64::new(0),
        }
    }

    fn add(&self, counts: Published) {
        let add = |counter: &AtomicU64, value: u64| {
            if value > 0 {
                counter.fetch_add(value, Ordering::Relaxed);
            }
        };
        add(&self.examined, counts.examined);
        add(&self.matches, counts.matches);
        add(&self.queued, counts.queued);
        add(&self.listed, counts.listed);
    }

    fn load(&self) -> Published {
        Published {
            examined: self.examined.load(Ordering::Relaxed),
            matches: self.matches.load(Ordering::Relaxed),
            queued: self.queued.load(Ordering::Relaxed),
            listed: self.listed.load(Ordering::Relaxed),
        }
    }
}

/// The counts the workers publish, and those other processes sent.
pub struct Progress {
    own: Tally,
    /// Other ranks' counts, on the rank that prints (`pfind-mpi`'s rank 0).
    others: Tally,
    /// Bumped each time a line is asked for: a worker that finds it other than it
    /// was when it last published publishes.
    asked: AtomicU64,
    /// Whether `examined` is counted (`--progress`, `--stats`): it costs a second
    /// pass over each batch a directory listing returns, which a walk that only
    /// might be sent SIGUSR1 does not pay.
    counted: AtomicBool,
}

/// Counts as one worker (or one process) has them: its totals so far, or what it
/// adds to what it published.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Published {
    pub examined: u64,
    pub matches: u64,
    pub queued: u64,
    pub listed: u64,
}

impl Published {
    /// What `self` has more than `before` (counts only grow).
    pub fn since(self, before: Published) -> Published {
        Published {
            examined: self.examined.saturating_sub(before.examined),
            matches: self.matches.saturating_sub(before.matches),
            queued: self.queued.saturating_sub(before.queued),
            listed: self.listed.saturating_sub(before.listed),
        }
    }
}

/// What a worker has published, and which request it last answered.
#[derive(Clone, Copy, Debug, Default)]
pub struct Answered {
    published: Published,
    asked: u64,
}

impl Answered {
    /// The request last answered, to compare with [`Progress::asked`].
    #[inline(always)]
    pub fn asked(&self) -> u64 {
        self.asked
    }
}

impl Default for Progress {
    fn default() -> Progress {
        Progress::new()
    }
}

impl Progress {
    pub const fn new() -> Progress {
        Progress {
            own: Tally::new(),
            others: Tally::new(),
            asked: AtomicU64::new(0),
            counted: AtomicBool::new(false),
        }
    }

    /// Whether the walk counts the entries it examines (see [`Progress::line`]).
    pub fn count_examined(&self, counted: bool) {
        self.counted.store(counted, Ordering::Relaxed);
    }

    /// The number of the last request for the counts: a worker whose
    /// [`Answered::asked`] differs publishes.
    #[inline(always)]
    pub fn asked(&self) -> u64 {
        self.asked.load(Ordering::Relaxed)
    }

    /// Asks the workers for their counts (async-signal-safe).
    pub fn ask(&self) {
        self.asked.fetch_add(1, Ordering::Relaxed);
    }

    /// A worker whose totals are now `now` publishes what it added since `last`,
    /// which becomes `now`, answering the request made so far.
    pub fn publish(&self, last: &mut Answered, now: Published) {
        // Read first: a request made while this one publishes is answered again.
        last.asked = self.asked();
        self.own.add(now.since(last.published));
        last.published = now;
    }

    /// Directories queued before any worker runs (the roots).
    pub fn queue_roots(&self, count: u64) {
        self.own.add(Published {
            queued: count,
            ..Published::default()
        });
    }

    /// This process's counts as published.
    pub fn own(&self) -> Published {
        self.own.load()
    }

    /// Counts another process published (what it added since it last sent): they
    /// are in this process's line from now on.
    pub fn add_others(&self, added: Published) {
        self.others.add(added);
    }

    /// The line's counts: this process's and the others'. Async-signal-safe.
    fn counts(&self) -> Counts {
        let (own, others) = (self.own.load(), self.others.load());
        let listed = own.listed + others.listed;
        Counts {
            examined: (self.counted.load(Ordering::Relaxed))
                .then_some(own.examined + others.examined),
            listed,
            matches: own.matches + others.matches,
            waiting: (own.queued + others.queued).saturating_sub(listed),
        }
    }

    /// The status line, without its newline: `pfind: 120000 entries examined, 42
    /// matches, 96000 entries/s, 1.3 s, 17 directories waiting`; where the entries
    /// are not counted, the directories listed take their place.
    pub fn line(&self, program: &str, elapsed: Duration) -> String {
        status_line(program, self.counts(), elapsed)
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

/// Who the line is from (`pfind`, `pfind-mpi: 4 ranks`), set before the handler is.
static PROGRAM: std::sync::OnceLock<Box<[u8]>> = std::sync::OnceLock::new();
/// When the walk started, `CLOCK_MONOTONIC` nanoseconds.
static STARTED: AtomicU64 = AtomicU64::new(0);
/// Whether this process prints the line: not `pfind-mpi`'s ranks other than 0,
/// whose counts rank 0 prints with its own.
static PRINTS: AtomicBool = AtomicBool::new(false);
/// What the next SIGALRM does: nothing, ask the workers for their counts
/// (`--progress`'s period is over), or print the line asked for.
static NEXT: AtomicU8 = AtomicU8::new(IDLE);
const IDLE: u8 = 0;
const ASK: u8 = 1;
const PRINT: u8 = 2;
/// `--progress`: nanoseconds from one line to the next; 0 without it, and once the
/// walk is over.
static EVERY: AtomicU64 = AtomicU64::new(0);

fn monotonic_nanos() -> u64 {
    // SAFETY: a zeroed `timespec` is valid; `clock_gettime` fills it and is
    // async-signal-safe.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64).saturating_mul(1_000_000_000) + now.tv_nsec as u64
}

/// The handler of [`signals`] and of SIGALRM, all of it async-signal-safe: a
/// request for the line asks the workers for their counts and sets a one-shot timer
/// ([`ANSWER_WITHIN`]); its SIGALRM prints the line, built on the stack from the
/// atomics and written with one `write(2)` (and with `--progress` sets the timer
/// for the next request). Handlers rather than a thread waiting for the signals: a
/// second thread makes glibc's `openat` and `close` take their multi-threaded
/// path, 2% more instructions for `/usr/share -j1 -c` (callgrind).
extern "C" fn on_signal(signal: libc::c_int) {
    let saved = std::io::Error::last_os_error().raw_os_error();
    if signal == libc::SIGALRM {
        on_timer();
    } else {
        PROGRESS.ask();
        if PRINTS.load(Ordering::Relaxed) {
            NEXT.store(PRINT, Ordering::Relaxed);
            set_timer(ANSWER_WITHIN, Duration::ZERO);
        }
    }
    // `errno` as the interrupted code left it.
    if let Some(errno) = saved {
        set_errno(errno);
    }
}

/// SIGALRM: the line asked for is due, or with `--progress` the next is to be
/// asked for. Two signals handled at once on two threads may cost a line or print
/// one twice, nothing worse.
fn on_timer() {
    match NEXT.swap(IDLE, Ordering::Relaxed) {
        PRINT => {
            print_line();
            let every = EVERY.load(Ordering::Relaxed);
            if every > 0 {
                NEXT.store(ASK, Ordering::Relaxed);
                let wait = Duration::from_nanos(every).saturating_sub(ANSWER_WITHIN);
                set_timer(wait.max(Duration::from_millis(1)), Duration::ZERO);
            }
        }
        ASK => {
            PROGRESS.ask();
            NEXT.store(PRINT, Ordering::Relaxed);
            set_timer(ANSWER_WITHIN, Duration::ZERO);
        }
        _ => {}
    }
}

/// Writes the status line to stderr, without allocating.
fn print_line() {
    let elapsed = monotonic_nanos().saturating_sub(STARTED.load(Ordering::Relaxed));
    let mut line = Line::default();
    let program = PROGRAM.get().map_or(&b"pfind"[..], |program| &program[..]);
    line.counts(program, PROGRESS.counts(), elapsed);
    let bytes = line.bytes();
    // SAFETY: `bytes` is valid for its length; `write` is async-signal-safe.
    let _ = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
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

/// The status line's printer while a walk runs: the handler of [`signals`] and
/// SIGALRM, and with `every` the timer that asks for a line that often. `SA_RESTART`:
/// a system call a signal interrupts goes on rather than failing with `EINTR`.
pub struct Watcher {
    _private: (),
}

impl Watcher {
    /// Starts answering; `program` begins each line.
    pub fn start(program: &str, every: Option<Duration>) -> Watcher {
        let _ = PROGRAM.set(program.as_bytes().into());
        STARTED.store(monotonic_nanos(), Ordering::Relaxed);
        PRINTS.store(true, Ordering::Relaxed);
        let mut handled = signals();
        handled.push(libc::SIGALRM);
        install(&handled);
        if let Some(every) = every {
            EVERY.store(every.as_nanos() as u64, Ordering::Relaxed);
            NEXT.store(ASK, Ordering::Relaxed);
            set_timer(every, Duration::ZERO);
        }
        Watcher { _private: () }
    }

    /// Answers the signals without printing: the workers publish when asked, for
    /// a process whose counts another prints (`pfind-mpi`'s ranks other than 0;
    /// without a handler, SIGUSR1 would end the process).
    pub fn start_silent() -> Watcher {
        PRINTS.store(false, Ordering::Relaxed);
        install(&signals());
        Watcher { _private: () }
    }

    /// Stops `--progress`'s lines once the walk is over; the signals keep their
    /// handler, which then says what the walk came to.
    pub fn stop(self) {
        EVERY.store(0, Ordering::Relaxed);
        let _ = NEXT.compare_exchange(ASK, IDLE, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// Installs [`on_signal`] for `handled`, each blocking the others while it runs.
fn install(handled: &[libc::c_int]) {
    for &signal in handled {
        // SAFETY: a zeroed `sigaction` is valid; the handler is an `extern "C"`
        // function of the type the kernel calls, and async-signal-safe; the mask is
        // initialised by `sigemptyset` before signals are added.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            for &other in handled {
                libc::sigaddset(&mut action.sa_mask, other);
            }
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// `setitimer(ITIMER_REAL)`: SIGALRM after `first`, then every `every` (none for
/// zero); a zero `first` disarms it. Called from the handler: `setitimer` is not on
/// POSIX's list of async-signal-safe functions (`timer_settime` is, but macOS has no
/// POSIX timers), yet on Linux and the BSDs it is the bare system call, with no
/// state of the C library's.
fn set_timer(first: Duration, every: Duration) {
    let timeval = |at: Duration| libc::timeval {
        tv_sec: at.as_secs() as libc::time_t,
        tv_usec: at.subsec_micros() as libc::suseconds_t,
    };
    let timer = libc::itimerval {
        it_interval: timeval(every),
        it_value: timeval(first),
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
    fn workers_publish_what_they_added_when_asked() {
        let progress = Progress::new();
        progress.queue_roots(1);
        progress.count_examined(true);
        let mut last = Answered::default();
        assert_eq!(progress.asked(), last.asked());
        progress.ask();
        assert_ne!(progress.asked(), last.asked());
        let now = Published {
            examined: 10,
            matches: 3,
            queued: 2,
            listed: 1,
        };
        progress.publish(&mut last, now);
        assert_eq!(progress.asked(), last.asked());
        progress.publish(&mut last, now);
        assert_eq!(progress.own(), Published { queued: 3, ..now });
        let line = progress.line("p", Duration::from_secs(1));
        assert_eq!(
            line,
            "p: 10 entries examined, 3 matches, 10 entries/s, 1.0 s, 2 directories waiting"
        );
        // Another process's counts are added in.
        progress.add_others(Published {
            examined: 5,
            matches: 1,
            queued: 4,
            listed: 2,
        });
        let line = progress.line("p: 2 ranks", Duration::from_secs(1));
        assert_eq!(
            line,
            "p: 2 ranks: 15 entries examined, 4 matches, 15 entries/s, 1.0 s, 4 directories \
             waiting"
        );
    }

    #[test]
    fn what_was_added_since() {
        let before = Published {
            examined: 1,
            matches: 2,
            queued: 3,
            listed: 4,
        };
        let after = Published {
            examined: 11,
            matches: 2,
            queued: 5,
            listed: 9,
        };
        let added = Published {
            examined: 10,
            matches: 0,
            queued: 2,
            listed: 5,
        };
        assert_eq!(after.since(before), added);
    }
}
