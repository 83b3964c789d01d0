//! The resolved, immutable run configuration.
//!
//! `cli/` turns command-line arguments into a [`Config`]; from then on nothing else
//! looks at clap types. Workers borrow the `Config` for the whole walk, so every field
//! is already in the form the hot path wants (the predicates resolved into a
//! [`Filter`], a concrete thread count).

use crate::exec::Exec;
use crate::filter::Filter;
use crate::ignore::IgnoreOptions;
use crate::index::IndexMode;
use crate::os::dirent::EntryKind;
use crate::os::stat::{CacheUse, Fields};
use crate::output::format::{Format, SortOrder};
use crate::output::OutputMode;
use crate::threads::{default_spare_threads, default_threads};
use std::ffi::OsString;

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
    /// Which ignore files are read, and whether hidden entries are left out
    /// (`--ignore`, `--no-hidden`, `--ignore-file`, ...); by default nothing is.
    pub ignore: IgnoreOptions,
    /// `--index`, `--index-trust`: listings from the index of each root (see
    /// [`crate::index`]); off by default.
    pub index: IndexMode,
    /// Follow symbolic links, inside the tree and as roots (`-L`).
    pub follow: bool,
    /// Do not list directories on another device than their root (`-x`).
    pub one_file_system: bool,
    /// Stop the walk once this many matches are printed (`--max-results`, `-1`).
    pub max_results: Option<u64>,
    /// Print paths from `/`: relative roots are joined with the working directory
    /// (`-a`).
    pub absolute: bool,
    /// Print a root typed as `.` or `./PATH` without its `./` (`--strip-cwd-prefix`).
    pub strip_cwd_prefix: bool,
    /// Do not list a directory that matched (`--prune`).
    pub prune: bool,
    /// `--path-separator`: printed paths have this instead of each `/` (see
    /// [`crate::output::Output::separate_paths`]).
    pub path_separator: Option<Box<[u8]>>,
    pub output: OutputMode,
    /// How records are printed when `output` is [`OutputMode::Formatted`]; set both
    /// from [`Format::resolve`]. With `--sort`, the walk keeps the matches and
    /// [`crate::output::Output::finish`] prints them after [`crate::run`].
    pub format: Option<Format>,
    /// `--exec` or `--exec-batch`: the matches are given to a command instead of
    /// printed (see [`crate::exec`]); `output` and `format` are then unused.
    pub exec: Option<Exec>,
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
    /// Descriptors the walk leaves free for the rest of the process: with `--exec`,
    /// the pipes of the commands running (see [`crate::exec::Exec::descriptors`]).
    pub reserved_descriptors: usize,
    /// A name search (`-n`, `-p`) with no predicate that needs a `stat`: entries of
    /// kinds `-t` leaves out are tested against the names too, and those that match
    /// are noted in [`crate::Summary::missed`], so that a search that finds nothing
    /// can say so (issue 30: `pfind /usr -n python3` missed the link
    /// `/usr/bin/python3` without a word).
    pub miss_hints: bool,
    /// The workers publish their counts into [`crate::progress::PROGRESS`] when a
    /// status line is asked for (SIGUSR1, `--progress`): set by the command line,
    /// left off for library users.
    pub progress: bool,
    /// `--files-from`: `roots` are a list of entries, each tested itself and none
    /// walked (see `Walker::visit_listed`).
    pub files_from: bool,
    /// `--cached`: whether a `stat` may be answered from a network filesystem
    /// client's cache.
    pub cache_use: CacheUse,
    /// Ignore the kernel's `d_type` and classify every entry with `fstatat`, as on a
    /// filesystem that reports `DT_UNKNOWN`. Used by tests to exercise that path.
    pub force_stat: bool,
    /// Take every directory as one that waited on the disk, so each one asks for a
    /// spare worker, started at once rather than paced by how busy the CPUs are. Used
    /// by tests to exercise the growing pool on a warm tree.
    pub assume_disk_waits: bool,
    /// Take every root as one on a network filesystem, so that a walk without `-j`
    /// grows as the latency asks (`threads::latency_step`), its steps taken by a
    /// thread of their own. Used by tests to exercise that path on a local tree.
    pub assume_network: bool,
    /// Share the subdirectories a listing has found between two of its batches, as
    /// on a network filesystem, whatever the roots are on. Used by tests to exercise
    /// that path on a local tree.
    pub share_mid_listing: bool,
    /// `--stats`: count the entries listings return ([`crate::Summary::examined`]),
    /// for the statistics printed at the end.
    pub stats: bool,
    /// Count the entries listings return for the status line of `--progress`, as
    /// `stats` does for its own. Not otherwise: it parses each batch once more (taken always,
    /// `/usr -c` went from 32.2M instructions to 54.0M, callgrind).
    pub count_examined: bool,
    /// Cut every listing that fills the reader's buffer into pieces for other workers
    /// (`walker::split`), not only when a worker is idle. Used by tests to cut
    /// giant directories at every point a walk allows.
    pub split_every_listing: bool,
    /// The size of each worker's listing buffer; `None` is
    /// [`crate::os::dirent::DIRENT_BUFFER_SIZE`]. Tests make it small so that a
    /// directory of a thousand entries is listed in many batches, and cut.
    pub listing_buffer: Option<usize>,
    /// How many directories may be queued before the walk goes depth-first below the
    /// frontier; `None` leaves it to the walk ([`crate::queue::frontier_limit`]).
    /// Tests set it to reach every mix of the two orders on small trees.
    pub frontier_limit: Option<usize>,
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
            ignore: IgnoreOptions::default(),
            index: IndexMode::Off,
            follow: false,
            one_file_system: false,
            max_results: None,
            absolute: false,
            strip_cwd_prefix: false,
            prune: false,
            path_separator: None,
            output: OutputMode::Paths { terminator: b'\n' },
            format: None,
            exec: None,
            threads,
            spare_threads: default_spare_threads(threads),
            exact_threads: false,
            flush_per_directory: false,
            reserved_descriptors: 0,
            miss_hints: false,
            progress: false,
            files_from: false,
            cache_use: CacheUse::Default,
            force_stat: false,
            assume_disk_waits: false,
            assume_network: false,
            share_mid_listing: false,
            stats: false,
            count_examined: false,
            split_every_listing: false,
            listing_buffer: None,
            frontier_limit: None,
        }
    }

    /// `--path-separator` as the output applies it: not with commands, which are
    /// given paths that open and print what they print.
    pub fn printed_path_separator(&self) -> Option<&[u8]> {
        self.path_separator
            .as_deref()
            .filter(|_| self.exec.is_none())
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
    pub fn sort_order(&self) -> Option<SortOrder> {
        self.format.as_ref().and_then(|format| format.sort)
    }

    /// True when an entry of `kind` that passed the name filters must be `stat`ed:
    /// because a predicate reads the `stat`, or because the output prints from it.
    /// The one place that answers this, for the walker and for roots alike.
    pub fn needs_stat(&self, kind: EntryKind) -> bool {
        self.output.needs_stat(kind) || self.filter.needs_stat(kind)
    }

    /// What each of those `stat`s asks for: the fields the filters and the output
    /// read (on Linux, `statx`'s mask), and how fresh they must be (`--cached`).
    pub fn stat_fields(&self) -> Fields {
        let output = match self.output {
            OutputMode::Long { .. } | OutputMode::SizeSum => Fields::SIZE,
            OutputMode::Formatted { .. } => {
                self.format.as_ref().map_or(Fields::ALL, Format::fields)
            }
            OutputMode::Paths { .. } | OutputMode::Count | OutputMode::Quiet => Fields::default(),
        };
        self.filter
            .stat_fields()
            .with(output)
            .with(self.cache_use.fields())
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

    /// Each filter and output asks for its own fields, and `--cached` says how fresh.
    #[test]
    fn stat_fields_are_what_the_filters_and_the_output_read() {
        use crate::filter::size::SizeFilter;
        let mut config = Config::new(vec![]);
        assert_eq!(config.stat_fields(), Fields::TYPE);
        config.filter.size_filters = vec![SizeFilter::AtLeast(1)];
        assert_eq!(config.stat_fields(), Fields::TYPE.with(Fields::SIZE));
        config.filter.size_filters.clear();
        config.filter.time.changed_after(0);
        config.filter.time.field = crate::os::stat::TimeField::Accessed;
        assert_eq!(config.stat_fields(), Fields::TYPE.with(Fields::ATIME));
        config.filter.time.field = crate::os::stat::TimeField::Born;
        let birth = Fields::BTIME.with(Fields::BIRTH_REQUIRED);
        assert_eq!(config.stat_fields(), Fields::TYPE.with(birth));
        config.filter = Filter::default();
        config.filter.types.executable_only = true;
        config.output = OutputMode::Long { terminator: b'\n' };
        config.cache_use = CacheUse::Always;
        let fields = Fields::MODE.with(Fields::SIZE).with(Fields::CACHED);
        assert_eq!(config.stat_fields(), Fields::TYPE.with(fields));
    }

    #[test]
    fn no_root_means_dot_without_prefix() {
        let config = Config::new(Vec::new());
        assert!(config.implicit_root);
        assert_eq!(config.roots, vec![OsString::from(".")]);
        let explicit = Config::new(vec![".".into()]);
        assert!(!explicit.implicit_root);
    }
}
