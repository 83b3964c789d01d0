//! The destination of matched paths, shared by all workers.
//!
//! Workers build output in their own buffers and hand whole blocks here; one block is
//! one `write_all` under one lock, so lines from different workers never interleave
//! and the lock is taken once per block rather than once per line.
//!
//! Failures are decided here too. A reader that goes away (`pfind | head`) gives
//! `EPIPE` (Rust ignores `SIGPIPE`), or `ECONNRESET` from a TCP socket whose reader
//! closed it with data unread: that is not an error, the walk just stops and pfind
//! exits 0, as ripgrep does. Any other failure (`> /dev/full`) is reported once and
//! also stops the walk, since nothing more can be delivered.
//!
//! With `--sort`, workers hand over what they kept instead of blocks
//! ([`Output::keep`]), and [`Output::finish`] prints it in order once the walk is over.

use super::format::{Format, OutputMode};
use super::sizes::size_summary;
use super::sort::{write_merged, SortRun};
use crate::report::Reporter;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Initial capacity of a worker's output buffer. Small on purpose: workers that find
/// little never pay for a large allocation, and on a tiny tree a large per-thread
/// pre-allocation costs more than the walk itself.
pub const OUTPUT_INITIAL_CAPACITY: usize = 4 * 1024;

/// A worker hands its output buffer to stdout once it holds this many bytes, so the
/// stdout lock is taken once per 256 KiB rather than once per line.
pub const OUTPUT_FLUSH_THRESHOLD: usize = 256 * 1024;

/// Where matches go: normally stdout, in tests any writer.
pub struct Output {
    sink: Mutex<Box<dyn Write + Send>>,
    /// Set after the first failed write; later blocks are dropped silently.
    failed: AtomicBool,
    /// `--sort`: each worker's sorted matches, printed by `finish`.
    kept: Mutex<Vec<SortRun>>,
    /// Descriptor 1 was closed, and is only held (see [`Output::closed_stdout`]).
    stdout_closed: bool,
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
            stdout_closed: false,
        }
    }

    /// The output of a run that prints nothing itself (`--exec`, `-X`) while
    /// descriptor 1 is closed (`pfind ... >&-`): the commands still run, and each
    /// meets stdout closed, as under find. Descriptor 1 is held meanwhile by
    /// `/dev/null`, opened close-on-exec, so that no directory the walk opens lands
    /// there, and no command inherits it; what pfind itself would write there fails
    /// with `EBADF`.
    pub fn closed_stdout() -> io::Result<Output> {
        hold_descriptor_1()?;
        let mut output = Output::to_writer(Box::new(ClosedFd));
        output.stdout_closed = true;
        Ok(output)
    }

    /// True for [`Output::closed_stdout`]'s output.
    pub fn stdout_is_closed(&self) -> bool {
        self.stdout_closed
    }

    /// `--sort`: takes one worker's sorted matches, to be printed by [`Self::finish`].
    pub fn keep(&self, run: SortRun) {
        if !run.is_empty() {
            lock(&self.kept).push(run);
        }
    }

    /// Prints whatever the walk kept for the end: with `--sort` (the `format`'s
    /// order), every worker's matches merged into one order, the first `first` of them
    /// (`--max-results`). Call it once [`crate::run`] has returned; without `--sort`
    /// it does nothing.
    /// What a run prints once its walk is over, for any mode but `-q` (which
    /// answers with its status): `-c`'s count of `matches`, `-s`'s line with
    /// their `bytes`, or what [`Self::finish`] prints; nothing for paths and `-l`,
    /// printed as found. `pfind` and `pfind-mpi` (on rank 0) both end this way.
    pub fn finish_run(
        &self,
        mode: &OutputMode,
        format: Option<&Format>,
        first: Option<u64>,
        (matches, bytes): (u64, u128),
        reporter: &Reporter,
    ) {
        match mode {
            OutputMode::Count => {
                self.deliver(format!("{matches}\n").as_bytes(), reporter);
            }
            OutputMode::SizeSum => {
                self.deliver(size_summary(matches, bytes).as_bytes(), reporter);
            }
            OutputMode::Formatted { .. } => self.finish(format, first, reporter),
            OutputMode::Quiet | OutputMode::Paths { .. } | OutputMode::Long { .. } => {}
        }
    }

    pub fn finish(&self, format: Option<&Format>, first: Option<u64>, reporter: &Reporter) {
        let runs = std::mem::take(&mut *lock(&self.kept));
        if let Some(format) = format.filter(|format| format.sort.is_some()) {
            write_merged(&runs, format, first, OUTPUT_FLUSH_THRESHOLD, |block| {
                self.deliver(block, reporter) == Delivery::Delivered
            });
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
                if !self.failed.swap(true, Ordering::Relaxed) && !reader_left(&err) {
                    reporter.error("stdout", &err);
                }
                Delivery::Closed
            }
        }
    }

    /// True once a write has failed (a closed pipe included).
    /// `--path-separator`: from now on, every `/` written is `separator` instead.
    /// Only for output that is paths and sizes (`-l`), where a `/` is always a path's.
    pub fn separate_paths(&self, separator: &[u8]) {
        let mut sink = lock(&self.sink);
        let inner = std::mem::replace(&mut *sink, Box::new(io::sink()));
        *sink = Box::new(Separated {
            inner,
            separator: separator.into(),
            block: Vec::new(),
        });
    }

    pub fn is_closed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

/// True when a write failed because the reader went away: a closed pipe or socket
/// (`EPIPE`), or a TCP connection its reader reset by closing it with data unread
/// (`ECONNRESET`; issue 20). Neither is an error of pfind's.
pub fn reader_left(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
    )
}

/// True when pfind's stdout is a pipe or socket whose reader has left: what tells a
/// command killed by `SIGPIPE` on that stdout from one killed by its own pipes.
pub fn stdout_reader_left() -> bool {
    let mut probe = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: poll reads and writes the one pollfd passed; a zero timeout never waits.
    let ready = unsafe { libc::poll(&mut probe, 1, 0) };
    ready > 0 && probe.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// Puts `/dev/null`, close-on-exec, on descriptor 1, which must be closed: opening
/// takes the lowest free descriptor, which is 0 first if stdin is closed too.
fn hold_descriptor_1() -> io::Result<()> {
    loop {
        // SAFETY: a NUL-terminated path; the descriptor returned is ours.
        let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        match fd {
            fd if fd < 0 => return Err(io::Error::last_os_error()),
            libc::STDIN_FILENO => continue,
            libc::STDOUT_FILENO => return Ok(()),
            other => {
                // SAFETY: closing the descriptor opened above.
                unsafe { libc::close(other) };
                return Err(io::Error::from_raw_os_error(libc::EBUSY));
            }
        }
    }
}

/// Where [`Output::closed_stdout`] writes: nowhere.
struct ClosedFd;

impl Write for ClosedFd {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(libc::EBADF))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A lock that a panicking worker cannot make unusable for the others.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Descriptor 1, unbuffered.
/// A writer that writes each `/` as a separator (see [`Output::separate_paths`]).
struct Separated {
    inner: Box<dyn Write + Send>,
    separator: Box<[u8]>,
    /// The block being rewritten, kept for the next.
    block: Vec<u8>,
}

impl Write for Separated {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.block.clear();
        if let [byte] = *self.separator {
            // One byte for another: a loop the compiler turns into vector code.
            let swap = |&b: &u8| if b == b'/' { byte } else { b };
            self.block.extend(buf.iter().map(swap));
        } else {
            // A path of 6 components costs about 600 instructions more this way
            // (callgrind), where one byte for another costs 30: rare enough.
            for (i, part) in buf.split(|&b| b == b'/').enumerate() {
                if i > 0 {
                    self.block.extend_from_slice(&self.separator);
                }
                self.block.extend_from_slice(part);
            }
        }
        self.inner.write_all(&self.block)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

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
    fn a_reader_leaving_closes_quietly() {
        for kind in [io::ErrorKind::BrokenPipe, io::ErrorKind::ConnectionReset] {
            let reporter = Reporter::new();
            let output = Output::to_writer(Box::new(Failing(kind)));
            assert_eq!(output.deliver(b"x\n", &reporter), Delivery::Closed);
            assert!(output.is_closed());
            assert!(!reporter.errored(), "{kind:?}");
        }
    }

    /// What is written, kept to be looked at.
    #[derive(Clone, Default)]
    struct Kept(std::sync::Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            lock(&self.0).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_path_separator_replaces_each_slash() {
        let kept = Kept::default();
        let output = Output::to_writer(Box::new(kept.clone()));
        let reporter = Reporter::new();
        output.deliver(b"a/b\n", &reporter);
        output.separate_paths(b"::");
        output.deliver(b"/x//y\xff/\0z\n", &reporter);
        output.separate_paths(b"");
        output.deliver(b"p/q\n", &reporter);
        assert_eq!(*lock(&kept.0), b"a/b\n::x::::y\xff::\0z\npq\n");
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
