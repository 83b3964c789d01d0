//! pfind: find files fast with a parallel, work-stealing directory walk.
//!
//! This is the map of the source, written here once. Data flows top to bottom, and
//! each module imports only modules below it:
//!
//! * [`cli`] parses the command line and resolves it into a [`config::Config`], the
//!   only thing the rest of the program reads: `cli/mod.rs` puts the definition
//!   together and reads it (`PFIND_OPTIONS`, the order of the checks, `-h`'s
//!   summary), and each group of options as `--help` shows them has a file with its
//!   definitions, value parsers, checks, warnings and part of the `Config`:
//!   `cli/names.rs` and `cli/entries.rs` (the filters on names and paths, and on
//!   kind, size, times, owner and depth), `cli/ignore_files.rs`, `cli/walk.rs`
//!   (`-L`, `-x`), `cli/output.rs`, `cli/exec.rs` (the commands) and `cli/other.rs`;
//!   `cli/values.rs` holds what the groups share, `cli/hints.rs` what find and fd
//!   users type, `cli/warnings.rs` the warnings' words. [`generate`] prints
//!   completions and the man page from the same definitions.
//! * [`scheduler`] classifies the roots, seeds the [`queue::Pool`] and runs one
//!   [`walker::Walker`] per thread inside a `thread::scope`; [`threads`] decides how
//!   many workers a walk has, where a new one starts, and when directory reads are
//!   waiting on the disk.
//! * [`queue`] is the Chase-Lev work-stealing pool: per-worker LIFO deques, stealing,
//!   parking idle workers, and detecting the end of the walk.
//! * [`walker`] is one worker: `walker/job.rs` is a directory waiting in the pool,
//!   `walker/mod.rs` the loop that opens and lists directories, `walker/listings.rs`
//!   the listings other than the plain one (`-t e`, network batches, pieces),
//!   `walker/split.rs` when a giant directory's listing is cut into pieces,
//!   `walker/visit.rs` the per-entry decision (test against the [`filter`], queue
//!   subdirectories), `walker/unknown.rs` the kinds a listing did not give,
//!   `walker/emit.rs` the matches handed to the output, `walker/loops.rs` the chain
//!   of directories `-L` checks for loops.
//!   [`descriptors`] opens each directory relative to an open ancestor without
//!   following a link out of the tree, and bounds the descriptors kept open for that;
//!   [`memory`] bounds the workers by the address-space limit.
//! * [`ignore`] decides which entries ignore files leave out (`--ignore`), as git
//!   does: rules per directory shared by its subtree, git's index for tracked files.
//! * [`index`] remembers a tree (`--index`): each directory's entries and stamps,
//!   read back for a directory whose stamps have not changed, so that a repeat walk
//!   lists only what changed; `index/format.rs` is the file's bytes and
//!   `index/store.rs` where the files live; `walker/indexed.rs` takes listings
//!   from it.
//! * [`filter`] says what "matches" means: names, extensions, globs, paths, `-t`
//!   kinds and families, sizes, depth, times, owners; and which of them need a `stat`.
//!   The glob engine is `filter/glob.rs` (patterns, compiling, matching) over
//!   `filter/glob/`: `chars.rs` (what a character and a class are), `token.rs` (what
//!   a pattern reads into), `parse.rs` and `braces.rs` (reading it), `ascii.rs` (the
//!   matcher for ASCII names).
//! * [`output`] is everything about a match once it is found: the output modes and
//!   formats, the inline lines, templates, JSON, colours, hyperlinks, `--sort`, the
//!   `--max-results` limit and the shared sink that workers hand blocks to.
//! * [`exec`] runs a command on the matches (`--exec`, `--exec-batch`): the
//!   scheduler gives the walk an output whose writer hands the paths to threads
//!   that run the commands, so the walker itself knows nothing of them.
//! * [`os`] is what is asked of the operating system: listing (`getdents64` on Linux,
//!   `readdir` elsewhere), opening beneath a directory, `stat`, the user database,
//!   absolute paths.
//! * [`cluster`] is one walk shared by several processes (`pfind-mpi`'s ranks):
//!   a coordinator beside each rank's workers trades directories with the other
//!   ranks (`queue`'s peer half, `walker/wire.rs`'s jobs), detects the end with
//!   Safra's token, and funnels output and totals to rank 0; its transports are
//!   threads in one process (tests) and MPI (the `mpi` feature).
//! * [`report`] prints problems, one line each, and decides the exit status.
//! * [`progress`] counts how far the walk has got, for the status line of SIGUSR1
//!   and `--progress`.
//! * [`stack`] gives the run enough stack under a small `ulimit -s`, and [`alloc`]
//!   turns running out of memory into a message and status 1.
//! * `scratch` (tests only) says where a test builds a big tree.

pub mod alloc;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod descriptors;
pub mod exec;
pub mod filter;
pub mod generate;
pub mod ignore;
pub mod index;
pub mod memory;
pub mod os;
pub mod output;
pub mod progress;
pub mod queue;
pub mod report;
pub mod scheduler;
#[cfg(test)]
mod scratch;
pub mod stack;
pub mod threads;
pub mod walker;

pub use config::Config;
pub use scheduler::run;
pub use walker::Summary;
