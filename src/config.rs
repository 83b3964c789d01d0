//! The resolved, immutable run configuration and the runtime tunables.
//!
//! `cli.rs` turns command-line arguments into a [`Config`]; from then on nothing else
//! looks at clap types. Workers borrow the `Config` for the whole walk, so every field
//! is already in the form the hot path wants (the predicates resolved into a
//! [`Filter`], a concrete thread count).

use crate::dirent::EntryKind;
use crate::filter::Filter;
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

/// The worker count used when `-j` is not given.
///
/// On macOS, APFS serialises directory reads per volume and four workers measured best
/// (see the design notes in the README); everywhere else, one worker per CPU.
pub fn default_threads() -> usize {
    if cfg!(target_os = "macos") {
        4
    } else {
        num_cpus::get().clamp(1, MAX_THREADS)
    }
}

/// What the walk reports for each match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}

impl OutputMode {
    /// True when every match's size is needed, so each match is `stat`ed.
    pub fn needs_size(self) -> bool {
        matches!(self, OutputMode::Long { .. } | OutputMode::SizeSum)
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
    /// Number of worker threads, at least 1.
    pub threads: usize,
    /// Flush each worker's output after every directory, for a person watching a
    /// terminal; otherwise output is flushed in large blocks.
    pub flush_per_directory: bool,
    /// Ignore the kernel's `d_type` and classify every entry with `fstatat`, as on a
    /// filesystem that reports `DT_UNKNOWN`. Used by tests to exercise that path.
    pub force_stat: bool,
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
        Config {
            roots,
            implicit_root,
            filter: Filter::default(),
            follow: false,
            one_file_system: false,
            max_results: None,
            absolute: false,
            output: OutputMode::Paths { terminator: b'\n' },
            threads: default_threads(),
            flush_per_directory: false,
            force_stat: false,
        }
    }

    /// True when an entry of `kind` that passed the name filters must be `stat`ed:
    /// because a predicate reads the `stat`, or because the output prints from it.
    /// The one place that answers this, for the walker and for roots alike.
    pub fn needs_stat(&self, kind: EntryKind) -> bool {
        self.output.needs_size() || self.filter.needs_stat(kind)
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
