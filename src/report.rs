//! Error reporting, exit status, and what a panic prints.
//!
//! Every non-fatal problem met during a walk (an unreadable directory, an entry that
//! vanished, a root that does not exist) is printed here and nowhere else, as one line
//! `pfind: PATH: cause` on stderr. Lines are written under the stderr lock so workers
//! never interleave them, and the first one raises a flag that turns the exit status
//! into 1 once the walk is over: the walk itself always goes on.
//!
//! A path in a message is escaped so that nothing in a file name can reach the
//! terminal raw: C0 and C1 control characters and bytes that are not UTF-8 are
//! written as `\n`, `\t` or `\xNN`; an empty path is written `''`. Usage errors, which
//! clap words, are escaped the same way before they are printed ([`escape_usage`]).

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread::{self, ThreadId};

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
    /// The hint about roots and patterns has been given (it is given once).
    hinted: AtomicBool,
    /// One root was typed: if it is missing and reads as a name, the hint spells the
    /// command that matches it (see [`Reporter::one_root_given`]).
    one_root: AtomicBool,
    /// Say nothing: for the walks that count what a nearby spelling of an empty
    /// search would find (`cli::near`), whose errors the first walk has said.
    silent: bool,
}

/// Added to the first "No such file or directory" for a root that is a bare word:
/// most often a pattern typed where fd takes one (`pfind jpg`).
const ROOT_HINT: &str = "roots are directories to search; match names with -n GLOB or -e EXT";
/// The same, for a root with a sign of a glob or a regular expression in it
/// (`pfind 'foo.*'`, as one would type `fd 'foo.*'`, whose pattern is a regex).
const PATTERN_ROOT_HINT: &str =
    "roots are directories to search; match names with -n GLOB, or with --regex RE for a \
     regular expression";

/// The start of the hint for a missing root that was the only one and reads as a
/// name, before the command to type.
const TYPE_HINT: &str = "roots are directories to search; match names with -n GLOB";

/// The `-n` glob a missing root `word` probably meant, as fd would match it: a glob
/// as typed (`'*.txt'`), a plain word anywhere in the name (`main`: `*main*`); `None`
/// for a word with a sign of a regular expression (`foo.*`: the hint points at
/// `--regex`), a
/// quote, a space or bytes that are not UTF-8, which a plain `'...'` cannot carry
/// as typed.
fn name_glob(word: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(word).ok()?;
    let regex = text.contains(".*") || text.chars().any(|c| "^$\\|(){}+".contains(c));
    if regex
        || text
            .chars()
            .any(|c| c == '\'' || c.is_whitespace() || c.is_control())
    {
        return None;
    }
    if text.contains(['*', '?', '[']) {
        Some(text.to_string())
    } else {
        Some(format!("*{text}*"))
    }
}

impl Reporter {
    pub fn new() -> Reporter {
        Reporter::default()
    }

    /// A reporter that prints nothing and whose status nobody reads.
    pub fn silent() -> Reporter {
        Reporter {
            silent: true,
            ..Reporter::default()
        }
    }

    /// Says that the command line named one root: `pfind main` is most often fd's
    /// `fd main`, and the hint for it, if missing, is then the command to type,
    /// `pfind -n '*main*'` (issue 51), as for fd's `PATTERN DIR` (`cli::hints`).
    pub fn one_root_given(&self) {
        self.one_root.store(true, Ordering::Relaxed);
    }

    /// Reports a problem with `path` and remembers that the run had an error.
    pub fn path_error(&self, path: &[u8], err: &io::Error) {
        self.message(path, &describe(err));
    }

    /// Reports a root that cannot be walked. A missing root without a `/` in it is
    /// likely a pattern (`pfind jpg`, as one would type `fd jpg`): the first such
    /// message says how names are matched, with `--regex` when `root` holds a sign
    /// of a pattern.
    pub fn root_error(&self, root: &[u8], err: &io::Error) {
        let cause = describe(err);
        let looks_like_a_pattern =
            err.kind() == io::ErrorKind::NotFound && !root.is_empty() && !root.contains(&b'/');
        if looks_like_a_pattern && !self.hinted.swap(true, Ordering::Relaxed) {
            let wildcards = root.iter().any(|b| b"*?[]^$\\|(){}+".contains(b));
            let typed = (self.one_root.load(Ordering::Relaxed))
                .then(|| name_glob(root))
                .flatten();
            let hint = match typed {
                Some(glob) => format!("{TYPE_HINT}: pfind -n '{glob}'"),
                None if wildcards => PATTERN_ROOT_HINT.to_string(),
                None => ROOT_HINT.to_string(),
            };
            return self.message(root, &format!("{cause} ({hint})"));
        }
        self.message(root, &cause)
    }

    /// Reports a problem not tied to a path (for example a failed write to stdout).
    pub fn error(&self, what: &str, err: &io::Error) {
        self.message(what.as_bytes(), &describe(err));
    }

    fn message(&self, subject: &[u8], cause: &str) {
        self.errored.store(true, Ordering::Relaxed);
        if self.silent {
            return;
        }
        // Nothing useful can be done if stderr itself is gone.
        let _ = io::stderr().lock().write_all(&message_line(subject, cause));
    }

    /// Prints `pfind: MESSAGE`: why a command line is not run (see `cli::hints`). The
    /// caller exits with [`ExitStatus::Usage`].
    pub fn refusal(&self, message: &[u8]) {
        let mut line = prefix();
        escape(message, &mut line);
        line.push(b'\n');
        let _ = io::stderr().lock().write_all(&line);
    }

    /// Prints `pfind: warning: MESSAGE`: something on the command line that is valid
    /// but probably not what was meant. It does not change the exit status.
    pub fn warning(&self, message: &[u8]) {
        if self.silent {
            return;
        }
        let mut line = prefix();
        line.extend_from_slice(b"warning: ");
        escape(message, &mut line);
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

/// The program's name, which starts every message: `pfind` unless [`name_program`]
/// said otherwise.
static PROGRAM: OnceLock<&'static str> = OnceLock::new();

/// Names the program in its messages and its `--version` (`pfind-mpi`: issue 51, it
/// said `pfind`); called once, first thing in `main`.
pub fn name_program(name: &'static str) {
    let _ = PROGRAM.set(name);
}

/// The name messages start with (see [`name_program`]).
pub fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("pfind")
}

/// `PROGRAM: `, the start of every line this module prints.
fn prefix() -> Vec<u8> {
    let mut line = program().as_bytes().to_vec();
    line.extend_from_slice(b": ");
    line
}

/// One message, `pfind: SUBJECT: cause` and a newline, with both parts escaped.
fn message_line(subject: &[u8], cause: &str) -> Vec<u8> {
    let mut line = prefix();
    if subject.is_empty() {
        line.extend_from_slice(b"''");
    }
    escape(subject, &mut line);
    line.extend_from_slice(b": ");
    escape(cause.as_bytes(), &mut line);
    line.push(b'\n');
    line
}

/// Copies `bytes` into `out` with every byte that could act on a terminal written
/// out instead: C0 controls and DEL as `\n`, `\t`, `\r` or `\xNN`; C1 controls
/// (U+0080 to U+009F, which some terminals obey, such as CSI `\xc2\x9b`) as the
/// `\xNN` of both their bytes; and bytes that are not part of valid UTF-8 as `\xNN`,
/// so that a terminal cannot take them for the start of something else. Everything
/// else, printable UTF-8 included, is copied as is.
fn escape(bytes: &[u8], out: &mut Vec<u8>) {
    let mut rest = bytes;
    while !rest.is_empty() {
        let (valid, invalid) = match std::str::from_utf8(rest) {
            Ok(text) => (text, &[][..]),
            Err(err) => {
                let valid_len = err.valid_up_to();
                let bad_len = err.error_len().unwrap_or(rest.len() - valid_len);
                let text = std::str::from_utf8(&rest[..valid_len]).unwrap_or_default();
                (text, &rest[valid_len..valid_len + bad_len])
            }
        };
        for c in valid.chars() {
            match c {
                '\n' => out.extend_from_slice(b"\\n"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\r' => out.extend_from_slice(b"\\r"),
                c if c.is_control() => {
                    let mut utf8 = [0; 4];
                    hex_escape(c.encode_utf8(&mut utf8).as_bytes(), out);
                }
                c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        hex_escape(invalid, out);
        rest = &rest[valid.len() + invalid.len()..];
    }
}

/// A usage error's text as pfind prints it: `styled` is clap's message with its
/// styles as SGR sequences (`ESC [ ... m`), which are dropped; every other control
/// character is escaped as in walk errors, except the line breaks between the
/// message's lines. `values` are what the message quotes from the command line (the
/// value given, an unknown argument): each is escaped whole first, wherever it
/// appears, line breaks and escape sequences included. (A value of line breaks
/// alone is left to the second step, which keeps them: escaped whole, it would
/// take the message's own line breaks with it.)
pub fn escape_usage(styled: &str, values: &[&str]) -> Vec<u8> {
    let mut text = styled.to_string();
    for value in values {
        let only_line_breaks = value.chars().all(|c| c == '\n');
        if value.chars().any(char::is_control) && !only_line_breaks {
            let mut escaped = Vec::new();
            escape(value.as_bytes(), &mut escaped);
            text = text.replace(value, &String::from_utf8_lossy(&escaped));
        }
    }
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let cut = rest.find(['\x1b', '\n']).unwrap_or(rest.len());
        escape(&rest.as_bytes()[..cut], &mut out);
        rest = &rest[cut..];
        if let Some(after) = rest.strip_prefix('\n') {
            out.push(b'\n');
            rest = after;
        } else if let Some(len) = style_len(rest) {
            rest = &rest[len..];
        } else if let Some(after) = rest.strip_prefix('\x1b') {
            escape(b"\x1b", &mut out);
            rest = after;
        }
    }
    out
}

/// The length of the style (SGR) sequence `text` starts with, `ESC [ 1;31 m`, if any.
fn style_len(text: &str) -> Option<usize> {
    let parameters = text.strip_prefix("\x1b[")?;
    let end = parameters.find(|c: char| !c.is_ascii_digit() && c != ';')?;
    parameters[end..].starts_with('m').then_some(2 + end + 1)
}

fn hex_escape(bytes: &[u8], out: &mut Vec<u8>) {
    for byte in bytes {
        out.extend_from_slice(format!("\\x{byte:02x}").as_bytes());
    }
}

/// The main thread's id, recorded when the panic hook is installed from it.
static MAIN_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// Makes a panic print which thread it happened on, the main one included: pfind
/// starts at the C `main` (see `main.rs`), so Rust's runtime never named that thread
/// and its own hook would say `'<unnamed>'`. Call it from the main thread.
pub fn install_panic_hook() {
    let _ = MAIN_THREAD.set(thread::current().id());
    std::panic::set_hook(Box::new(|info| {
        let current = thread::current();
        let name = thread_label(current.name(), MAIN_THREAD.get() == Some(&current.id()));
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
            .unwrap_or("Box<dyn Any>");
        let location = info
            .location()
            .map_or_else(String::new, |at| format!(" at {at}"));
        let backtrace = std::backtrace::Backtrace::capture();
        let tail = match backtrace.status() {
            std::backtrace::BacktraceStatus::Captured => format!("stack backtrace:\n{backtrace}"),
            _ => "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
                .to_string(),
        };
        let text = format!("\nthread '{name}' panicked{location}:\n{message}\n{tail}");
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }));
}

/// How a panic names its thread: by its name, or `main` for the main thread (which
/// has none here), or as Rust does for other unnamed threads.
fn thread_label(name: Option<&str>, is_main: bool) -> &str {
    match name {
        Some(name) => name,
        None if is_main => "main",
        None => "<unnamed>",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_root_reads_as_the_glob_fd_would_match() {
        for (word, glob) in [
            ("main", Some("*main*")),
            ("*.txt", Some("*.txt")),
            ("IMG_????.jpg", Some("IMG_????.jpg")),
            ("foo.*", None),
            ("^test", None),
            ("a|b", None),
            ("it's", None),
            ("two words", None),
        ] {
            assert_eq!(name_glob(word.as_bytes()).as_deref(), glob, "{word}");
        }
        assert_eq!(name_glob(b"\xff"), None);
    }

    #[test]
    fn describe_drops_the_os_error_suffix() {
        let err = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(describe(&err), "No such file or directory");
        let custom = io::Error::other("not a directory");
        assert_eq!(describe(&custom), "not a directory");
    }

    #[test]
    fn nothing_reaches_the_terminal_raw() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"plain/path", b"plain/path"),
            (b"a\nb\tc\rd", b"a\\nb\\tc\\rd"),
            (b"\x01\x1b[31m\x7f", b"\\x01\\x1b[31m\\x7f"),
            // C1 controls, encoded in UTF-8: CSI, NEL, and the ends of the range.
            (b"x\xc2\x9by", b"x\\xc2\\x9by"),
            (
                b"\xc2\x85\xc2\x80\xc2\x9f",
                b"\\xc2\\x85\\xc2\\x80\\xc2\\x9f",
            ),
            // Printable UTF-8 just outside the C1 range, and beyond, stays as is.
            ("\u{a0}é日本🙂".as_bytes(), "\u{a0}é日本🙂".as_bytes()),
            // Invalid bytes: alone, a truncated sequence, a lone continuation byte,
            // and one right before valid text.
            (b"bad\xffname", b"bad\\xffname"),
            (b"\xe6\x97", b"\\xe6\\x97"),
            (b"\x80a", b"\\x80a"),
            (b"\xc2\xc2\x9b", b"\\xc2\\xc2\\x9b"),
            (b"", b""),
        ];
        for &(raw, want) in cases {
            let mut out = Vec::new();
            escape(raw, &mut out);
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(want),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn usage_errors_keep_their_lines_and_escape_the_rest() {
        // As clap renders it: styles around the parts, the value quoted as typed.
        let value = "\x1b]0;PWNED\x07\nx";
        let styled = format!(
            "\x1b[1m\x1b[31merror:\x1b[0m invalid value \x1b[33m'{value}'\x1b[0m for \
             \x1b[1m'--newer <FILE>'\x1b[0m: No such file\n\nFor more, try '--help'.\n"
        );
        assert_eq!(
            String::from_utf8(escape_usage(&styled, &["--newer <FILE>", value])).unwrap(),
            "error: invalid value '\\x1b]0;PWNED\\x07\\nx' for '--newer <FILE>': \
             No such file\n\nFor more, try '--help'.\n"
        );
        // Control characters outside the values quoted are escaped too, C1 included,
        // and an escape that starts no style sequence.
        let escaped = escape_usage("error: a\u{9b}b\tc\x1b[2J\x1b\n", &[]);
        assert_eq!(escaped, b"error: a\\xc2\\x9bb\\tc\\x1b[2J\\x1b\n");
        // A value of line breaks alone does not take the message's with it.
        let escaped = escape_usage("error: invalid value '\n' for '-e'\n\nUsage\n", &["\n"]);
        assert_eq!(escaped, b"error: invalid value '\n' for '-e'\n\nUsage\n");
        let clean = "error: unexpected argument '--bogus' found\n";
        assert_eq!(escape_usage(clean, &["--bogus"]), clean.as_bytes());
    }

    #[test]
    fn message_lines_quote_an_empty_path() {
        let cases: &[(&[u8], &str, &[u8])] = &[
            (
                b"",
                "No such file or directory",
                b"pfind: '': No such file or directory\n",
            ),
            (
                b"a\nb",
                "Permission denied",
                b"pfind: a\\nb: Permission denied\n",
            ),
        ];
        for &(subject, cause, want) in cases {
            assert_eq!(message_line(subject, cause), want);
        }
    }

    #[test]
    fn panics_name_their_thread() {
        assert_eq!(
            thread_label(Some("pfind-worker-3"), false),
            "pfind-worker-3"
        );
        assert_eq!(thread_label(None, true), "main");
        assert_eq!(thread_label(None, false), "<unnamed>");
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
