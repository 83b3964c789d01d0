//! The `pfind` binary: parse the command line, run the walk, choose the exit status.
//! Everything else lives in the library (see `lib.rs` for the map).
//!
//! `main` is the C entry point rather than Rust's, for one reason: before a Rust
//! `main` runs, the standard runtime silently reopens a closed stdout as `/dev/null`,
//! so `pfind >&-` would report success and lose every line. Starting here, pfind sees
//! the descriptors exactly as it was given them. It then does itself the two other
//! things the runtime would have done: ignore SIGPIPE (so a closed pipe is an `EPIPE`
//! error that ends the walk quietly) and turn a panic into a failing exit status,
//! with a panic hook that names the main thread as the runtime would have.
#![no_main]

use pfind::cli::{self, Usage};
use pfind::generate;
use pfind::output::sink::reader_left;
use pfind::output::{Output, OutputMode};
use pfind::report::{escape_usage, ExitStatus, Reporter};
use std::io::Write;

/// Running out of memory is a message and status 1, not an abort (see `alloc.rs`).
#[global_allocator]
static ALLOCATOR: pfind::alloc::ExitOnOom = pfind::alloc::ExitOnOom;

/// Status of a run that panicked, as Rust's own runtime reports it.
const PANIC_STATUS: libc::c_int = 101;

#[no_mangle]
pub extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    // SAFETY: setting a signal's disposition to SIG_IGN has no memory-safety
    // requirements; it is what Rust's runtime does before its own `main`.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // Under a small `ulimit -s`, the run moves to a thread with a larger stack.
    pfind::stack::with_enough_stack(run_caught)
}

/// The whole run, with a panic turned into its status. Arguments come from
/// `std::env::args_os`, which glibc fills in for us too.
fn run_caught() -> libc::c_int {
    match std::panic::catch_unwind(run) {
        Ok(status) => status as libc::c_int,
        // The panic hook has already printed the message.
        Err(_) => PANIC_STATUS,
    }
}

fn run() -> ExitStatus {
    pfind::report::install_panic_hook();
    // Debug builds only: lets the tests see what a panic on the main thread prints.
    #[cfg(debug_assertions)]
    if std::env::var_os("PFIND_DEBUG_PANIC").is_some() {
        panic!("PFIND_DEBUG_PANIC is set");
    }
    let reporter = Reporter::new();
    // Checked before anything else opens a descriptor that could land on 1; whether
    // a closed stdout matters depends on what is asked, known once parsed.
    let stdout = Output::stdout();
    let cli = match cli::parse(std::env::args_os()) {
        Ok(cli) => cli,
        Err(Usage::Hint(hint)) => {
            reporter.refusal(&hint);
            return ExitStatus::Usage;
        }
        Err(Usage::Clap(stop)) => return parse_stop(&stop, stdout.is_ok(), &reporter),
    };
    let quiet = cli.output.quiet && cli.other.generate.is_none();
    let output = match stdout {
        Ok(output) => output,
        // `-q` writes nothing, so a closed stdout is no reason to fail it.
        Err(_) if quiet => Output::to_writer(Box::new(std::io::sink())),
        // Nor for commands: they meet it closed themselves, as under find.
        Err(_) if cli.exec.exec.is_some() => match Output::closed_stdout() {
            Ok(output) => output,
            Err(err) => {
                reporter.error("stdout", &err);
                return reporter.exit_status();
            }
        },
        Err(err) => {
            reporter.error("stdout", &err);
            return reporter.exit_status();
        }
    };
    if let Some(what) = cli.other.generate {
        output.deliver(&generate::render(what), &reporter);
        return reporter.exit_status();
    }
    if cli.index.index_list || cli.index.index_drop {
        return index_command(&cli, &output, &reporter);
    }
    for warning in cli.warnings() {
        reporter.warning(&warning);
    }
    let cli_progress = cli.output.progress;
    let (config, misses) = cli.into_config_and_misses();
    // fd's habits, said before the walk (issue 51): `pfind *.txt` expanded by the
    // shell, with no filter, prints those files alone; `pfind main` is fd's pattern.
    if config.filter.files_match_by_kind() {
        if let Some(hint) = cli::hints::files_as_roots(&config.roots, &cli::hints::System) {
            reporter.warning(&hint);
        }
    }
    if config.roots.len() == 1 {
        reporter.one_root_given();
    }
    if let Some(separator) = config.printed_path_separator() {
        output.separate_paths(separator);
    }
    let started = std::time::Instant::now();
    let watcher = watch_progress(progress_every(cli_progress));
    let summary = pfind::run(&config, &output, &reporter);
    watcher.stop();
    let took = started.elapsed();
    // Only after a walk that found nothing: the walks that count the nearby
    // spellings print nothing, and say nothing of what the first one said.
    let count = |config: &pfind::Config| {
        let nowhere = Output::to_writer(Box::new(std::io::sink()));
        pfind::run(config, &nowhere, &Reporter::silent()).matches
    };
    if let Some(hint) = misses.and_then(|misses| misses.after_walk(&config, &summary, count)) {
        reporter.warning(&hint);
    }
    // `-q` answers with its status alone: a match means success even if errors
    // were reported; no match is status 1, the same as an error.
    if config.output == OutputMode::Quiet {
        return match summary.matches {
            0 => ExitStatus::HadErrors,
            _ => ExitStatus::Success,
        };
    }
    summary.finish_run(&config, &output, took, None, &reporter);
    reporter.exit_status()
}

/// The status line's printer (see `pfind::progress`): on SIGUSR1 (and SIGINFO),
/// and every `every`. One `write` a line, so that it comes whole between messages.
fn watch_progress(every: Option<std::time::Duration>) -> pfind::progress::Watcher {
    pfind::progress::Watcher::start("pfind", every)
}

/// `--progress`: a line every 2 seconds, only while stderr is a terminal (a log
/// file would fill with them).
fn progress_every(asked: bool) -> Option<std::time::Duration> {
    // SAFETY: `isatty` only reads the descriptor's state.
    let terminal = unsafe { libc::isatty(2) } == 1;
    (asked && terminal).then_some(std::time::Duration::from_secs(2))
}

/// `--index-list` and `--index-drop`: what they print, or one error line.
fn index_command(cli: &cli::Cli, output: &Output, reporter: &Reporter) -> ExitStatus {
    let done = if cli.index.index_list {
        pfind::index::list_text()
    } else {
        let roots = match cli.roots.as_slice() {
            [] => vec![std::ffi::OsString::from(".")],
            roots => roots.to_vec(),
        };
        pfind::index::drop_roots(&roots)
            .map(|lines| lines.iter().map(|line| format!("{line}\n")).collect())
    };
    match done {
        Ok(text) => {
            output.deliver(text.as_bytes(), reporter);
        }
        Err(why) => reporter.error("--index", &std::io::Error::other(why)),
    }
    reporter.exit_status()
}

/// Where clap stops the run instead of returning options: `--help` and `--version`,
/// printed on stdout with each write checked (a failure is reported, status 1; a
/// reader that left is not a failure), or a usage error, printed on stderr with
/// status 2. Clap writes both itself, with its colours, except a usage error whose
/// text holds a control character (from a value typed on the command line, such as
/// `--newer $'\e]0;title\a'`): that one is written without colours and escaped, as
/// walk errors are, so that nothing typed can act on the terminal.
fn parse_stop(stop: &clap::Error, stdout_open: bool, reporter: &Reporter) -> ExitStatus {
    if !stop.use_stderr() {
        if !stdout_open {
            // Rust's stdout would take a closed descriptor 1 for a sink.
            reporter.error("stdout", &std::io::Error::from_raw_os_error(libc::EBADF));
            return reporter.exit_status();
        }
        let written = stop.print().and_then(|()| std::io::stdout().flush());
        if let Err(err) = written {
            if !reader_left(&err) {
                reporter.error("stdout", &err);
            }
        }
        return reporter.exit_status();
    }
    let styled = stop.render();
    let values: Vec<&str> = stop
        .context()
        .flat_map(|(_, value)| match value {
            clap::error::ContextValue::String(value) => std::slice::from_ref(value),
            clap::error::ContextValue::Strings(values) => values.as_slice(),
            _ => &[],
        })
        .map(String::as_str)
        .collect();
    let escaped = escape_usage(&styled.ansi().to_string(), &values);
    // Nothing escaped: the text without its styles, as clap prints it.
    if escaped == styled.to_string().as_bytes() {
        let _ = stop.print();
    } else {
        let _ = std::io::stderr().lock().write_all(&escaped);
    }
    ExitStatus::Usage
}
