//! The resolved, immutable run configuration and the runtime tunables.
//!
//! `cli.rs` turns command-line arguments into a [`Config`]; from then on nothing else
//! looks at clap types. Workers borrow the `Config` for the whole walk, so every field
//! is already in the form the hot path wants (the predicates resolved into a
//! [`Filter`], a concrete thread count).

use crate::dirent::EntryKind;
use crate::filter::Filter;
use crate::record::Format;
use std::ffi::OsString;

/// Initial capacity of a worker's output buffer. Small on purpose: workers that find
/// little never pay for a large allocation, and on a tiny tree a large per-thread
/// pre-allocation costs more than the walk itself.
pub const OUTPUT_INITIAL_CAPACITY: usize = 4 * 1024;

/// A worker hands its output buffer to stdout once it holds this many bytes, so the
/// stdout lock is taken once per 256 KiB rather than once per line.
pub const OUTPUT_FLUSH_THRESHOLD: usize = 256 * 1024;

/// Size of each worker's `getdents64` buffer. One call fills it with as many entries as
/// fit, so a directory of a thousand files is read in one or two system calls.
pub const DIRENT_BUFFER_SIZE: usize = 64 * 1024;

/// Highest `-j` accepted. Far above any useful value; it exists so that a typo such as
/// `-j 100000` is an error rather than an attempt to start a hundred thousand threads.
pub const MAX_THREADS: usize = 1024;

/// The worker count used when `-j` is not given, as it is known at start-up.
///
/// On macOS, APFS serialises directory reads per volume and four workers measured best
/// (see the design notes in the README). Everywhere else, one worker per CPU the
/// process may run on (its affinity mask, one system call); the scheduler lowers that
/// to [`cpus_within_quota`] once a walk has directories to share.
pub fn default_threads() -> usize {
    if cfg!(target_os = "macos") {
        4
    } else {
        crate::threads::cpus_allowed()
            .unwrap_or_else(num_cpus::get)
            .clamp(1, MAX_THREADS)
    }
}

/// The CPUs the process may use, a cgroup CPU quota included (what `num_cpus` counts);
/// on macOS the fixed four of [`default_threads`].
pub fn cpus_within_quota() -> usize {
    if cfg!(target_os = "macos") {
        4
    } else {
        num_cpus::get().clamp(1, MAX_THREADS)
    }
}

/// With no `-j`, the most workers a walk grows to while reading directories waits on
/// the disk (a cold cache): each waiting worker is one more read in flight. A warm walk
/// never waits and keeps `default_threads()`. See `threads.rs` for how a wait is told
/// from work, and the README for the measurements behind the number.
pub const MAX_WORKERS_WHEN_WAITING: usize = 32;

/// How many workers may be added to `threads` during a walk with no `-j`.
pub fn default_spare_threads(threads: usize) -> usize {
    MAX_WORKERS_WHEN_WAITING.saturating_sub(threads)
}

/// What the walk reports for each match.
///
/// `repr(u8)` keeps the variant in a tag byte of its own. Without it, Rust stores the
/// variant in the spare values of `Formatted`'s booleans, and reading it back costs
/// the walker's inline path six more instructions per file (callgrind, `medium`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OutputMode {
    /// One path per match, each followed by the terminator byte.
    Paths { terminator: u8 },
    /// `-l`: the size in bytes right-aligned in 12 columns, a space, the path, the
    /// terminator.
    Long { terminator: u8 },
    /// `-c`: only the number of matches, printed once at the end.
    Count,
    /// `-s`: only the number of matches and their total size, printed once at the end.
    SizeSum,
    /// `-q`: nothing at all; the walk stops at the first match (`max_results` is 1)
    /// and the exit status says whether there was one.
    Quiet,
    /// Records the walker does not write inline (`--format`, `--json`, `--sort`,
    /// colours, hyperlinks): `Config::format` says how, and each match goes out of
    /// line to a [`crate::record::Records`]. The flags say which matches that needs a
    /// `stat` for; [`Format::resolve`] sets them.
    Formatted { stat_files: bool, stat_others: bool },
}

impl OutputMode {
    /// True when printing a match of `kind` needs its `stat` (its size, times, mode
    /// or owner). This is the only question the walk asks of the output; filters add
    /// their own needs to it.
    pub fn needs_stat(self, kind: EntryKind) -> bool {
        match self {
            OutputMode::Long { .. } | OutputMode::SizeSum => true,
            OutputMode::Formatted {
                stat_files,
                stat_others,
            } => {
                if kind == EntryKind::File {
                    stat_files
                } else {
                    stat_others
                }
            }
            OutputMode::Paths { .. } | OutputMode::Count | OutputMode::Quiet => false,
        }
    }
}

/// Everything a walk needs to know, fully resolved.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to start. Each is printed as typed; see `implicit_root`.
    pub roots: Vec<OsString>,
    /// True when no root was given and the walk starts at `.`: paths are then printed
    /// without the `./` prefix, as fd does.
    pub implicit_root: bool,
    /// What an entry must satisfy to be printed (`-e`, `-n`, `-E`, `-t`, `-S`, the
    /// depth bounds).
    pub filter: Filter,
    /// Follow symbolic links, inside the tree and as roots (`-L`).
    pub follow: bool,
    /// Do not list directories on another device than their root (`-x`).
    pub one_file_system: bool,
    /// Stop the walk once this many matches are printed (`--max-results`, `-1`).
    pub max_results: Option<u64>,
    /// Print paths from `/`: relative roots are joined with the working directory
    /// (`-a`).
    pub absolute: bool,
    pub output: OutputMode,
    /// How records are printed when `output` is [`OutputMode::Formatted`]; set both
    /// from [`Format::resolve`]. With `--sort`, the walk keeps the matches and
    /// [`crate::output::Output::finish`] prints them after [`crate::run`].
    pub format: Option<Format>,
    /// Number of worker threads, at least 1.
    pub threads: usize,
    /// Workers that may be started on top of `threads` when directory reads are found
    /// waiting on the disk; 0 when `-j` was given, which is then obeyed exactly.
    pub spare_threads: usize,
    /// `-j`: `threads` is the number of workers, not an upper bound to be lowered to a
    /// cgroup's CPU quota.
    pub exact_threads: bool,
    /// Flush each worker's output after every directory, for a person watching a
    /// terminal; otherwise output is flushed in large blocks.
    pub flush_per_directory: bool,
    /// Ignore the kernel's `d_type` and classify every entry with `fstatat`, as on a
    /// filesystem that reports `DT_UNKNOWN`. Used by tests to exercise that path.
    pub force_stat: bool,
    /// Take every directory as one that waited on the disk, so each one asks for a
    /// spare worker, started at once rather than paced by how busy the CPUs are. Used
    /// by tests to exercise the growing pool on a warm tree.
    pub assume_disk_waits: bool,
}

impl Config {
    /// A configuration that prints every regular file under `roots`, for library users
    /// and tests; the fields can be adjusted afterwards.
    pub fn new(roots: Vec<OsString>) -> Config {
        let implicit_root = roots.is_empty();
        let roots = if implicit_root {
            vec![OsString::from(".")]
        } else {
            roots
        };
        let threads = default_threads();
        Config {
            roots,
            implicit_root,
            filter: Filter::default(),
            follow: false,
            one_file_system: false,
            max_results: None,
            absolute: false,
            output: OutputMode::Paths { terminator: b'\n' },
            format: None,
            threads,
            spare_threads: default_spare_threads(threads),
            exact_threads: false,
            flush_per_directory: false,
            force_stat: false,
            assume_disk_waits: false,
        }
    }

    /// The `--max-results` bound the walk itself enforces: none when sorting, where
    /// the bound applies to the sorted order instead (see `Output::finish`).
    pub fn walk_limit(&self) -> Option<u64> {
        match self.sort_order() {
            Some(_) => None,
            None => self.max_results,
        }
    }

    /// `--sort`: the order matches are printed in, after the walk.
    pub fn sort_order(&self) -> Option<crate::sort::SortOrder> {
        self.format.as_ref().and_then(|format| format.sort)
    }

    /// True when an entry of `kind` that passed the name filters must be `stat`ed:
    /// because a predicate reads the `stat`, or because the output prints from it.
    /// The one place that answers this, for the walker and for roots alike.
    pub fn needs_stat(&self, kind: EntryKind) -> bool {
        self.output.needs_stat(kind) || self.filter.needs_stat(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_is_needed_by_filters_and_by_sizes_in_the_output() {
        let mut config = Config::new(vec![]);
        assert!(!config.needs_stat(EntryKind::File));
        config.output = OutputMode::Long { terminator: b'\n' };
        assert!(config.needs_stat(EntryKind::File) && config.needs_stat(EntryKind::Symlink));
        config.output = OutputMode::Count;
        config.filter.size_filters = vec![crate::filter::size::SizeFilter::AtLeast(1)];
        assert!(config.needs_stat(EntryKind::File) && !config.needs_stat(EntryKind::Dir));
    }

    #[test]
    fn no_root_means_dot_without_prefix() {
        let config = Config::new(Vec::new());
        assert!(config.implicit_root);
        assert_eq!(config.roots, vec![OsString::from(".")]);
        let explicit = Config::new(vec![".".into()]);
        assert!(!explicit.implicit_root);
    }

    #[test]
    fn default_threads_is_in_range() {
        let threads = default_threads();
        assert!((1..=MAX_THREADS).contains(&threads));
    }
}
