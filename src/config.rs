//! The resolved, immutable run configuration and the runtime tunables.
//!
//! `cli.rs` turns command-line arguments into a [`Config`]; from then on nothing else
//! looks at clap types. Workers borrow the `Config` for the whole walk, so every field
//! is already in the form the hot path wants (lowercased extension bytes, parsed sizes,
//! a concrete thread count).

use crate::dirent::EntryKind;
use crate::process::{Glob, SizeFilter};
use crate::record::Format;
use crate::types::TypeFilter;
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
    /// Lowercase extensions without a leading dot; empty means any extension.
    pub extensions: Vec<Box<[u8]>>,
    /// Glob the basename must match (`-n`).
    pub name_glob: Option<Glob>,
    /// Globs whose matches (files and whole directories) are skipped (`-E`).
    pub exclude_globs: Vec<Glob>,
    /// Size constraints, all of which must hold (`-S`). Only regular files have a
    /// size in this sense: with a size filter, directories and links never match.
    pub size_filters: Vec<SizeFilter>,
    /// Which kinds of entries may match (`-t`); regular files by default.
    pub types: TypeFilter,
    /// Entries shallower than this are not printed (`--min-depth`); a root's children
    /// are at depth 1, the root itself at 0.
    pub min_depth: usize,
    /// Entries deeper than this are not printed, and directories whose entries would
    /// all be deeper are not opened (`-d`). `usize::MAX` when not limited.
    pub max_depth: usize,
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
            extensions: Vec::new(),
            name_glob: None,
            exclude_globs: Vec::new(),
            size_filters: Vec::new(),
            types: TypeFilter::default(),
            min_depth: 0,
            max_depth: usize::MAX,
            follow: false,
            one_file_system: false,
            max_results: None,
            absolute: false,
            output: OutputMode::Paths { terminator: b'\n' },
            format: None,
            threads: default_threads(),
            flush_per_directory: false,
            force_stat: false,
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

    /// True when the file name must be looked at to decide a match. When false, and no
    /// directory can be excluded either, the walker decides on `d_type` alone.
    pub fn has_name_filter(&self) -> bool {
        !self.extensions.is_empty() || self.name_glob.is_some()
    }

    /// True when directories can match at all: `-t d`, and no `-S` (only a regular
    /// file has a size that -S tests, as in fd).
    pub fn dirs_may_match(&self) -> bool {
        self.types.dirs && self.size_filters.is_empty()
    }

    /// True when symbolic links can match at all: `-t l`, no `-S`, and no `-t e` (a
    /// link is never empty, as in fd).
    pub fn links_may_match(&self) -> bool {
        self.types.symlinks && self.size_filters.is_empty() && !self.types.empty_only
    }

    /// Normalises one `-e` value: drops a leading dot and lowercases it once, here,
    /// so the per-entry comparison never allocates.
    pub fn normalize_extension(ext: &str) -> Box<[u8]> {
        ext.strip_prefix('.')
            .unwrap_or(ext)
            .to_ascii_lowercase()
            .into_bytes()
            .into_boxed_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_normalised_once() {
        assert_eq!(&*Config::normalize_extension("JPG"), b"jpg");
        assert_eq!(&*Config::normalize_extension(".Png"), b"png");
        assert_eq!(&*Config::normalize_extension("tar.GZ"), b"tar.gz");
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
