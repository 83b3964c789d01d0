//! Error reporting and exit status.
//!
//! Every non-fatal problem met during a walk (an unreadable directory, an entry that
//! vanished, a root that does not exist) is printed here and nowhere else, as one line
//! `pfind: PATH: cause` on stderr. Lines are written under the stderr lock so workers
//! never interleave them, and the first one raises a flag that turns the exit status
//! into 1 once the walk is over: the walk itself always goes on.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The process exit statuses pfind uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything was walked (or the reader closed the pipe early, which is not an error).
    Success = 0,
    /// At least one error was reported; everything else was still walked.
    HadErrors = 1,
    /// The command line was wrong (clap exits with this status itself).
    Usage = 2,
}

/// Collects the fact that something went wrong, and says so on stderr.
#[derive(Debug, Default)]
pub struct Reporter {
    errored: AtomicBool,
}

impl Reporter {
    pub fn new() -> Reporter {
        Reporter::default()
    }

    /// Reports a problem with `path` and remembers that the run had an error.
    pub fn path_error(&self, path: &[u8], err: &io::Error) {
        self.message(&[path, b": ", describe(err).as_bytes()]);
    }

    /// Reports a problem not tied to a path (for example a failed write to stdout).
    pub fn error(&self, what: &str, err: &io::Error) {
        self.message(&[what.as_bytes(), b": ", describe(err).as_bytes()]);
    }

    fn message(&self, parts: &[&[u8]]) {
        self.errored.store(true, Ordering::Relaxed);
        let mut line = b"pfind: ".to_vec();
        for part in parts {
            escape_control_bytes(part, &mut line);
        }
        line.push(b'\n');
        // Nothing useful can be done if stderr itself is gone.
        let _ = io::stderr().lock().write_all(&line);
    }

    /// Prints `pfind: warning: MESSAGE`: something on the command line that is valid
    /// but probably not what was meant. It does not change the exit status.
    pub fn warning(&self, message: &[u8]) {
        let mut line = b"pfind: warning: ".to_vec();
        escape_control_bytes(message, &mut line);
        line.push(b'\n');
        let _ = io::stderr().lock().write_all(&line);
    }

    /// True once any error has been reported.
    pub fn errored(&self) -> bool {
        self.errored.load(Ordering::Relaxed)
    }

    pub fn exit_status(&self) -> ExitStatus {
        if self.errored() {
            ExitStatus::HadErrors
        } else {
            ExitStatus::Success
        }
    }
}

/// The cause of an I/O error as a person reads it: the system's message without
/// Rust's " (os error N)" suffix, which repeats what the message already says.
pub fn describe(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error ") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

/// Copies `bytes` into `out`, writing control characters (a newline or tab in a file
/// name, say) as `\n`, `\t` or `\xNN`, so that every message stays on one line.
/// Other bytes, including invalid UTF-8, are copied unchanged.
fn escape_control_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    for &byte in bytes {
        match byte {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0..=0x1f | 0x7f => out.extend_from_slice(format!("\\x{byte:02x}").as_bytes()),
            _ => out.push(byte),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_drops_the_os_error_suffix() {
        let err = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(describe(&err), "No such file or directory");
        let custom = io::Error::other("not a directory");
        assert_eq!(describe(&custom), "not a directory");
    }

    #[test]
    fn messages_stay_on_one_line() {
        let mut out = Vec::new();
        escape_control_bytes(b"a\nb\tc\x01d\xffe", &mut out);
        assert_eq!(out, b"a\\nb\\tc\\x01d\xffe");
    }

    #[test]
    fn first_error_sets_the_exit_status() {
        let reporter = Reporter::new();
        assert_eq!(reporter.exit_status(), ExitStatus::Success);
        reporter.path_error(b"x", &io::Error::from_raw_os_error(libc::EACCES));
        assert_eq!(reporter.exit_status(), ExitStatus::HadErrors);
        assert_eq!(ExitStatus::Usage as u8, 2);
    }
}
