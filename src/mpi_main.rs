//! The `pfind-mpi` binary (feature `mpi`): pfind's walk shared by the ranks of an
//! MPI job, each rank a whole pfind (its own threads) on its own machine or
//! filesystem client. The same options, filters and output as pfind, through the
//! same library (`pfind::cluster` holds what is particular to ranks); rank 0
//! alone prints. Launched by `mpirun`/`srun`; run alone it is one rank.
//!
//! One option is its own: `--rank-root TEMPLATE` walks, on each rank, the path
//! TEMPLATE names with `{rank}` replaced by the rank's number, in place of the one
//! root given, whose paths are printed (each rank on its own mount of one tree).

use pfind::cli::{self, Usage};
use pfind::cluster::link::Link;
use pfind::cluster::mpi::Mpi;
use pfind::cluster::{self, rank};
use pfind::os::rank_root;
use pfind::output::Output;
use pfind::report::Reporter;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// Workers per rank without `-j`: a fixed count, not pfind's growth with the
/// latency. A client keeps only so many metadata requests in flight (Lustre's
/// default is 8 per target), and beyond that more workers on one rank only take
/// directories other ranks would list. Four ranks on four FUSE mounts capped at
/// 4 requests in flight (1 ms each, 12K files; medians of 3): pfind's growth made
/// 945 workers and took 1.9 s (one run), 32 a rank 850 ms, 16 830, 8 793.
const RANK_THREADS: usize = 8;

/// Exit status of a command line pfind refuses (as pfind's).
const USAGE: u8 = 2;

fn main() {
    // Its messages and --version say pfind-mpi, not pfind (issue 51).
    pfind::report::name_program("pfind-mpi");
    // SAFETY: setting a signal's disposition has no memory-safety requirements;
    // pfind ignores SIGPIPE too, so that a closed pipe is an error that ends the walk.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let Some((universe, threading)) = mpi::initialize_with_threading(mpi::Threading::Serialized)
    else {
        eprintln!("pfind-mpi: MPI could not be initialised");
        std::process::exit(1);
    };
    if !matches!(
        threading,
        mpi::Threading::Serialized | mpi::Threading::Multiple
    ) {
        eprintln!(
            "pfind-mpi: this MPI library gives no thread support (MPI_THREAD_SERIALIZED is needed)"
        );
        drop(universe);
        std::process::exit(1);
    }
    let link = Link::new(Box::new(Mpi::new(universe.world())));
    let status = run(&link);
    // Every send has completed (`rank::run` flushes); the transport goes before
    // MPI is finalised with the universe.
    drop(link);
    drop(universe);
    std::process::exit(i32::from(status));
}

fn run(link: &std::sync::Arc<Link>) -> u8 {
    let first = link.rank() == 0;
    let reporter = Reporter::new();
    let (args, rank_root) = match take_rank_root(std::env::args_os()) {
        Ok(split) => split,
        Err(message) => {
            if first {
                reporter.refusal(message.as_bytes());
            }
            return USAGE;
        }
    };
    let mut cli = match cli::parse(args) {
        Ok(cli) => cli,
        Err(Usage::Hint(hint)) => {
            if first {
                reporter.refusal(&hint);
            }
            return USAGE;
        }
        // `--help`, `--version` and usage errors, printed once, without styles:
        // under Open MPI's launcher rank 0's stdout is a pseudo-terminal even when
        // the launcher's is a pipe, and clap took it for a terminal (issue 51).
        Err(Usage::Clap(stop)) => {
            if first {
                let text = stop.render().to_string();
                let _ = match stop.use_stderr() {
                    true => std::io::stderr().write_all(text.as_bytes()),
                    false => std::io::stdout().write_all(text.as_bytes()),
                };
                let _ = std::io::stdout().flush();
            }
            return if stop.use_stderr() { USAGE } else { 0 };
        }
    };
    if cli.other.generate.is_some() {
        if first {
            reporter.refusal(b"completions and the man page are pfind's: run `pfind --generate bash|zsh|fish|man`");
        }
        return USAGE;
    }
    // Rank 0's stdout is a pseudo-terminal under Open MPI's launcher whether or not
    // the launcher's output is a pipe: colours and links only when asked for.
    cli.output.stdout_is_terminal = Some(false);
    if first {
        for warning in cli.warnings() {
            reporter.warning(&warning);
        }
    }
    let (mut config, _misses) = cli.into_config_and_misses();
    if !config.exact_threads {
        config.threads = RANK_THREADS;
        config.exact_threads = true;
        config.spare_threads = 0;
    }
    if let Some(why) = cluster::refusal(&config) {
        if first {
            reporter.refusal(why.as_bytes());
        }
        return USAGE;
    }
    if let Some(template) = &rank_root {
        if config.roots.len() != 1 || config.implicit_root || config.exec.is_some() {
            if first {
                reporter.refusal(
                    b"--rank-root needs exactly one root typed on the command line, and no command (--exec, --exec-dir, -X): each rank opens its own mount in its place",
                );
            }
            return USAGE;
        }
        let opened = rank_root::for_rank(template.as_bytes(), link.rank());
        rank_root::set(config.roots[0].as_bytes(), &opened);
    }
    let stdout = if first {
        match Output::stdout() {
            Ok(output) => output,
            Err(err) => {
                reporter.error("stdout", &err);
                Output::to_writer(Box::new(std::io::sink()))
            }
        }
    } else {
        Output::to_writer(Box::new(std::io::sink()))
    };
    let output = rank::rank_output(link, stdout);
    if first {
        if let Some(separator) = config.printed_path_separator() {
            output.separate_paths(separator);
        }
    }
    let started = std::time::Instant::now();
    let ended = rank::run(&config, link, &output, &reporter);
    let took = started.elapsed();
    if first {
        let summary = &ended.summary;
        output.finish_run(
            &config.output,
            config.format.as_ref(),
            config.max_results,
            (summary.matches, summary.bytes),
            &reporter,
        );
        if config.stats {
            let lines = summary.stats_text(took, Some(link.ranks()));
            let _ = std::io::stderr().lock().write_all(lines.as_bytes());
        }
    }
    ended.status
}

/// Takes `--rank-root TEMPLATE` (or `--rank-root=TEMPLATE`) out of the command
/// line, before `--`: the one option pfind does not have.
fn take_rank_root(
    args: impl Iterator<Item = OsString>,
) -> Result<(Vec<OsString>, Option<OsString>), String> {
    let mut kept = Vec::new();
    let mut template = None;
    let mut args = args.peekable();
    let mut options_over = false;
    while let Some(arg) = args.next() {
        let bytes = arg.as_bytes();
        if options_over {
            kept.push(arg);
            continue;
        }
        if bytes == b"--" {
            options_over = true;
            kept.push(arg);
        } else if bytes == b"--rank-root" {
            match args.next() {
                Some(value) => template = Some(value),
                None => {
                    return Err("--rank-root needs a value: a path with {rank} in it".to_owned())
                }
            }
        } else if let Some(value) = bytes.strip_prefix(b"--rank-root=") {
            template = Some(OsString::from_vec(value.to_vec()));
        } else {
            kept.push(arg);
        }
    }
    Ok((kept, template))
}
