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
use pfind::cluster::agree::{agree, Agreed, Verdict};
use pfind::cluster::link::Link;
use pfind::cluster::mpi::Mpi;
use pfind::cluster::{self, rank};
use pfind::os::rank_root;
use pfind::output::Output;
use pfind::report::Reporter;
use pfind::Config;
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

/// Why this rank does not walk: what rank 0 prints of it itself.
enum Stop {
    /// A refusal, one line without the program's name.
    Refused(Vec<u8>),
    /// clap's message: a usage error, or `--help`/`--version`.
    Clap(clap::Error),
}

impl Stop {
    /// What the other ranks are told of it (`cluster::agree`).
    fn verdict(&self) -> Verdict {
        match self {
            Stop::Refused(why) => Verdict::Exit {
                status: USAGE,
                why: why.clone(),
            },
            Stop::Clap(stop) if stop.use_stderr() => {
                // clap's first line, without its `error: ` (the rest is its tip
                // and usage, printed when rank 0 says it itself).
                let text = stop.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                Verdict::Exit {
                    status: USAGE,
                    why: first.trim_start_matches("error: ").as_bytes().to_vec(),
                }
            }
            Stop::Clap(_) => Verdict::Exit {
                status: 0,
                why: Vec::new(),
            },
        }
    }

    /// Prints it, on rank 0.
    fn say(&self, reporter: &Reporter) {
        match self {
            Stop::Refused(why) => reporter.refusal(why),
            // Without styles: under Open MPI's launcher rank 0's stdout is a
            // pseudo-terminal even when the launcher's is a pipe, and clap took it
            // for a terminal (issue 51).
            Stop::Clap(stop) => {
                let text = stop.render().to_string();
                let _ = match stop.use_stderr() {
                    true => std::io::stderr().write_all(text.as_bytes()),
                    false => std::io::stdout().write_all(text.as_bytes()),
                };
                let _ = std::io::stdout().flush();
            }
        }
    }
}

/// The command line read on this rank, against this rank's machine: the walk's
/// configuration, or why not to walk. Warnings are printed on rank 0.
fn prepare(link: &Link, reporter: &Reporter) -> Result<Config, Stop> {
    let (args, rank_root) =
        take_rank_root(std::env::args_os()).map_err(|why| Stop::Refused(why.into_bytes()))?;
    let mut cli = match cli::parse(args) {
        Ok(cli) => cli,
        Err(Usage::Hint(hint)) => return Err(Stop::Refused(hint)),
        // `--help`, `--version` and usage errors, printed once.
        Err(Usage::Clap(stop)) => return Err(Stop::Clap(stop)),
    };
    if cli.other.generate.is_some() {
        return Err(Stop::Refused(
            b"completions and the man page are pfind's: run `pfind --generate bash|zsh|fish|man`"
                .to_vec(),
        ));
    }
    // Rank 0's stdout is a pseudo-terminal under Open MPI's launcher whether or not
    // the launcher's output is a pipe: colours and links only when asked for.
    cli.output.stdout_is_terminal = Some(false);
    if link.rank() == 0 {
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
        return Err(Stop::Refused(why.as_bytes().to_vec()));
    }
    if let Some(template) = &rank_root {
        if config.roots.len() != 1 || config.implicit_root || config.exec.is_some() {
            return Err(Stop::Refused(
                b"--rank-root needs exactly one root typed on the command line, and no command (--exec, --exec-dir, -X): each rank opens its own mount in its place".to_vec(),
            ));
        }
        let opened = rank_root::for_rank(template.as_bytes(), link.rank());
        rank_root::set(config.roots[0].as_bytes(), &opened);
    }
    Ok(config)
}

fn run(link: &std::sync::Arc<Link>) -> u8 {
    let first = link.rank() == 0;
    let reporter = Reporter::new();
    // Every rank reads the command line against its own machine, and every rank
    // takes part in the agreement, whatever it made of it: none returns unheard.
    let prepared = prepare(link, &reporter);
    let own = match &prepared {
        Ok(_) => Verdict::Walk,
        Err(stop) => stop.verdict(),
    };
    let config = match (agree(link, own), prepared) {
        (Agreed::Walk, Ok(config)) => config,
        (Agreed::Exit { status, own, say }, prepared) => {
            if first && own {
                if let Err(stop) = prepared {
                    stop.say(&reporter);
                }
            }
            if first {
                for line in say {
                    reporter.refusal(&line);
                }
            }
            return status;
        }
        // Not met: rank 0 agrees to walk only when every rank, this one
        // included, said it was ready.
        (Agreed::Walk, Err(_)) => return USAGE,
    };
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
    // SIGUSR1 (which Open MPI's mpirun forwards to every rank) is answered by rank
    // 0 alone, with the sum of every rank's counts: the others send theirs to it
    // (`cluster::coordinator`) and answer the signal without a word.
    let watcher = match (first, link.ranks()) {
        (true, 1) => pfind::progress::Watcher::start("pfind-mpi", None),
        (true, ranks) => {
            pfind::progress::Watcher::start(&format!("pfind-mpi: {ranks} ranks"), None)
        }
        (false, _) => pfind::progress::Watcher::start_silent(),
    };
    let ended = rank::run(&config, link, &output, &reporter);
    watcher.stop();
    let took = started.elapsed();
    if first {
        let ranks = Some(link.ranks());
        (ended.summary).finish_run(&config, &output, took, ranks, &reporter);
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
