//! The per-entry half of a worker: decide what each entry of the directory being
//! listed is and whether it matches (handing matches to `emit.rs`, and untyped
//! entries to `unknown.rs`), and collect the subdirectories to queue.
//!
//! `visit` and the few functions it calls per file are forced inline into the
//! listing loop; everything rarer is `#[inline(never)]`, so the loop stays short.

use super::job::{Child, Dir, DirJob, Summary};
use super::loops::DirId;
use crate::config::Config;
use crate::filter::needle::NameNeedle;
use crate::filter::path::PathState;
use crate::filter::Scope;
use crate::os::dirent::{EntryKind, RawEntry};
use crate::os::stat::{fstat, stat_at, Fields, Stat, StatSlot};
use crate::output::formatted::FormattedOutput;
use crate::output::limit::MatchLimit;
use crate::output::meta::Meta;
use crate::output::pacing::{Pacing, ShallowFirst};
use crate::output::sink::{Output, OUTPUT_INITIAL_CAPACITY};
use crate::output::OutputMode;
use crate::progress::{Answered, Published, PROGRESS, PUBLISH_EVERY};
use crate::queue::Pool;
use crate::report::Reporter;
use crate::threads::DiskWaitWatch;
use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::Duration;

pub(super) struct Visitor<'a> {
    pub(super) config: &'a Config,
    pub(super) pool: &'a Pool<DirJob>,
    pub(super) output: &'a Output,
    pub(super) reporter: &'a Reporter,
    pub(super) limit: Option<&'a MatchLimit>,
    /// Matched paths not yet handed to `output`.
    pub(super) buffer: Vec<u8>,
    /// Matches found by this worker (counted in every output mode), and their sizes.
    pub(super) found: Summary,
    /// Subdirectories of the directory being read, and their names (each followed
    /// by a NUL); reused across directories.
    pub(super) children: Vec<Child>,
    pub(super) child_names: Vec<u8>,
    /// True when files can be accepted on `d_type` alone, without their name.
    pub(super) count_by_type_only: bool,
    /// Each regular file is printed as its path (`Paths` output, no `--max-results`,
    /// no name, path or `stat` test to pass): see [`Self::print_files`].
    pub(super) prints_files_whole: bool,
    /// `-L` or `-x`: each directory is `fstat`ed once when opened.
    pub(super) identify_dirs: bool,
    /// [`Config::miss_hints`]: entries of kinds that cannot match are tested against
    /// the names too (see [`Here::misses`]).
    pub(super) note_misses: bool,
    /// [`Config::needs_stat`] for regular files, and for directories and links,
    /// computed once.
    pub(super) stat_files: bool,
    pub(super) stat_others: bool,
    /// [`Config::stat_fields`]: what each of those `stat`s asks for.
    pub(super) stat_fields: Fields,
    /// Whether a candidate file (or directory or link) leaves the inline path: when
    /// it needs a `stat`, or its record is [`OutputMode::Formatted`]. One flag, so
    /// that the default walk tests no more than it did before formats existed.
    pub(super) slow_files: bool,
    pub(super) slow_others: bool,
    /// `--path-regex` (or `--and` on paths): a candidate's path below its root is
    /// tested, put together in `path_scratch`.
    pub(super) check_path: bool,
    pub(super) path_scratch: Vec<u8>,
    /// With `check_path`: where the path below the root starts in the printed
    /// prefix of the directory being listed (see [`Dir::below_root`]). Here rather
    /// than in [`Here`]: there, it cost the default walk 1 instruction per entry
    /// (callgrind, `medium`).
    pub(super) below_root: usize,
    /// With `check_path`: `-E`'s path patterns apply (not to a root given as a file),
    /// and the state of the directory being listed for each of them.
    pub(super) excludes_apply: bool,
    pub(super) exclude_states: Vec<PathState>,
    /// How records are written when the output is [`OutputMode::Formatted`].
    pub(super) formatted: Option<Box<FormattedOutput<'a>>>,
    /// About the directory being listed; set once per directory, so that the
    /// per-entry code tests a boolean rather than recomputing from the config.
    pub(super) here: Here,
    /// Whether listing directories made this thread wait on the disk (see `threads`).
    pub(super) disk_watch: DiskWaitWatch,
    /// Entries without a type whose `stat` waits for the end of the listing.
    pub(super) unknown: Unknown,
    /// When `buffer` goes out before it is full.
    pub(super) pacing: Pacing,
    /// Subdirectories this worker queued, directories it had listed when it last
    /// published, how many more it lists before it publishes unasked (counted down,
    /// so that one subtraction counts a directory and tests for it), and what it
    /// has published of its counts (see `progress`).
    pub(super) queued_dirs: u64,
    pub(super) listed_dirs: u64,
    pub(super) until_publish: u64,
    pub(super) published: Answered,
    /// Whether the directories at depth 0 and 1 have all been listed.
    pub(super) shallow: &'a ShallowFirst,
    /// With the index, the name tests' needle (`filter::needle`): an index
    /// record's names are searched for it before its regular files are tested one
    /// by one (`walker::indexed`).
    pub(super) needle: Option<Box<NameNeedle>>,
    /// True while this is the first worker, walking before any other has started
    /// (`Walker::run_until_shareable`): a giant directory is cut for the workers to
    /// come, and its record printed with helpers (`print_files`).
    pub(super) alone: bool,
}

/// What the walker knows about the directory it is listing.
#[derive(Default)]
pub(super) struct Here {
    /// Which of its entries may match, and whether its subdirectories are listed.
    pub(super) scope: Scope,
    /// `-L`: this directory's identity, the head of the chain of its ancestors'.
    pub(super) id: Option<Arc<DirId>>,
    /// `--ignore`: the subdirectory being visited is walked for git's tracked paths
    /// only (set before each entry by the gated listing).
    pub(super) child_tracked_only: bool,
    /// With [`Config::miss_hints`], where entries of some kind may match here: an
    /// entry of a kind `-t` leaves out is noted if its name matches. False in every
    /// walk without a name search, whose entries then test it only when their kind
    /// cannot match, where the walk did nothing before.
    pub(super) misses: bool,
}

/// Where a candidate's `stat` comes from, should a predicate or the output need one:
/// taken on demand for an entry ([`EntryAt`]), or already known (a root's, or with
/// `-L` a link's target's). A trait rather than an enum so that each is passed in
/// registers: built as an enum, it was stored to the stack for every file, 1.5% more
/// instructions on the default walk.
pub(super) trait StatFrom: Copy {
    /// The `stat`, with at least `fields` filled in, in `slot`.
    fn stat(self, slot: &mut StatSlot, fields: Fields) -> io::Result<&Stat>;
}

/// An entry of the directory open as `dir_fd`, `lstat`ed if needed.
#[derive(Clone, Copy)]
pub(super) struct EntryAt<'e> {
    pub(super) dir_fd: RawFd,
    pub(super) entry: &'e RawEntry<'e>,
}

impl StatFrom for EntryAt<'_> {
    // Inlined into each caller, so the `stat` is filled in where it is read: called,
    // it is returned through memory and copied once more (10% more instructions
    // for `-l` once two functions took a `StatFrom`).
    #[inline(always)]
    fn stat(self, slot: &mut StatSlot, fields: Fields) -> io::Result<&Stat> {
        slot.stat_at(self.dir_fd, self.entry.name_cstr(), false, fields)
    }
}

/// Taken with [`Fields::lenient`]: a birth time the filters need is checked here.
impl StatFrom for &Stat {
    fn stat(self, slot: &mut StatSlot, fields: Fields) -> io::Result<&Stat> {
        slot.put(self, fields)
    }
}

impl<'a> Visitor<'a> {
    pub(super) fn new(
        config: &'a Config,
        pool: &'a Pool<DirJob>,
        output: &'a Output,
        reporter: &'a Reporter,
        limit: Option<&'a MatchLimit>,
        shallow: &'a ShallowFirst,
        watch_disk: bool,
    ) -> Visitor<'a> {
        // A regular file is printed as its path and nothing else is done for it:
        // a record of regular files alone is printed whole (`print_files`).
        let prints_files_whole = matches!(config.output, OutputMode::Paths { .. })
            && limit.is_none()
            && !config.force_stat
            && !config.needs_stat(EntryKind::File)
            && config.format.is_none()
            && !config.filter.has_path_tests()
            && !config.filter.types.empty_only
            && config.filter.passes_every_name();
        let count_by_type_only = config.output == OutputMode::Count
            && config.filter.files_match_by_kind()
            && limit.is_none()
            && !config.force_stat;
        let stat_files = config.needs_stat(EntryKind::File);
        let stat_others = config.needs_stat(EntryKind::Dir);
        let formatted = matches!(config.output, OutputMode::Formatted { .. });
        let check_path = config.filter.has_path_tests();
        // With `--sort`, a worker need keep no more than `--max-results` matches.
        let formatted_output = config
            .format
            .as_ref()
            .filter(|_| formatted)
            .map(|format| Box::new(FormattedOutput::new(format, config.max_results)));
        Visitor {
            config,
            pool,
            output,
            reporter,
            limit,
            buffer: Vec::with_capacity(OUTPUT_INITIAL_CAPACITY),
            found: Summary::default(),
            children: Vec::new(),
            child_names: Vec::new(),
            count_by_type_only,
            prints_files_whole,
            identify_dirs: config.follow || config.one_file_system,
            note_misses: config.miss_hints,
            stat_files,
            stat_others,
            stat_fields: config.stat_fields(),
            slow_files: stat_files || formatted || check_path,
            slow_others: stat_others || formatted || check_path,
            check_path,
            path_scratch: Vec::new(),
            below_root: 0,
            excludes_apply: true,
            exclude_states: Vec::new(),
            formatted: formatted_output,
            here: Here::default(),
            pacing: Pacing::new(config.flush_per_directory),
            queued_dirs: 0,
            listed_dirs: 0,
            until_publish: PUBLISH_EVERY,
            published: Answered::default(),
            shallow,
            disk_watch: if watch_disk {
                DiskWaitWatch::primed(pool.latency_growth())
            } else {
                DiskWaitWatch::default()
            },
            unknown: Unknown::default(),
            needle: None,
            alone: false,
        }
    }
}

/// A `stat` slower than this is a round trip to a server, not a read of an inode
/// (a warm local `lstat` takes about a microsecond, a cold one a disk read, well
/// under this on an SSD; the FUSE tree at 0.2 ms takes more than 0.2 ms).
pub(super) const SLOW_STAT: Duration = Duration::from_micros(150);

/// The entries of the directory being listed whose kind is still to be asked for,
/// and whether this worker's listings put them off (see `Visitor::stat_kind`).
#[derive(Default)]
pub(super) struct Unknown {
    /// Learnt from this worker's last `stat`s: they were round trips.
    pub(super) slow: bool,
    /// Their names, each with its NUL...
    pub(super) names: Vec<u8>,
    /// ...ending at these offsets.
    pub(super) ends: Vec<usize>,
}

impl Unknown {
    pub(super) fn defer(&mut self, name: &CStr) {
        self.names.extend_from_slice(name.to_bytes_with_nul());
        self.ends.push(self.names.len());
    }
}

impl<'a> Visitor<'a> {
    /// What cutting a listing into pieces (`split::Cutter`) needs of the walk.
    pub(super) fn walk_parts(&self) -> (&'a Pool<DirJob>, &'a Config, &'a ShallowFirst) {
        (self.pool, self.config, self.shallow)
    }
}

impl Visitor<'_> {
    /// Sets what holds for every entry of the directory `dir`. Forced inline: with
    /// a second call site (`--index-trust`'s unopened directories) LLVM made it a
    /// call, 58 instructions a directory more for the default walk (callgrind,
    /// `/usr -j1 -c`: 38,133,457 to 38,778,189).
    #[inline(always)]
    pub(super) fn enter(&mut self, dir: &Dir<'_>) {
        let scope = self.config.filter.scope(dir.depth + 1, dir.path_state);
        self.here.scope = scope;
        // Once this worker has a match there will be no warning: stop looking.
        self.here.misses = self.note_misses
            && self.found.matches == 0
            && (scope.files || scope.dirs || scope.links || scope.specials);
        if self.check_path {
            self.below_root = dir.below_root();
            self.excludes_apply = true;
            let below = &dir.prefix[self.below_root.min(dir.prefix.len())..];
            (self.config.filter).exclude_states(below, &mut self.exclude_states);
        }
    }

    /// The per-entry hot path. `visit`, `visit_candidate` and `emit` are forced inline
    /// into the listing loop: left to itself LLVM kept them as three calls per file
    /// (`visit` has two call sites since `-t e`), which cost the default walk 4-5% at
    /// -j 1 on a million files; the rare branches are `#[inline(never)]` instead.
    #[inline(always)]
    pub(super) fn visit(&mut self, dir: &Dir<'_>, dir_fd: RawFd, entry: RawEntry<'_>) {
        self.visit_maybe_dot::<true>(dir, dir_fd, entry)
    }

    /// [`Self::visit`] for an entry that is not `.` or `..`: one of a listing copied
    /// without them, or of the index, which never holds them.
    #[inline(always)]
    pub(super) fn visit_not_dot(&mut self, dir: &Dir<'_>, dir_fd: RawFd, entry: RawEntry<'_>) {
        self.visit_maybe_dot::<false>(dir, dir_fd, entry)
    }

    #[inline(always)]
    fn visit_maybe_dot<const MAY_BE_DOT: bool>(
        &mut self,
        dir: &Dir<'_>,
        dir_fd: RawFd,
        entry: RawEntry<'_>,
    ) {
        let mut kind = entry.kind;
        if self.count_by_type_only && kind == EntryKind::File {
            self.found.matches += 1;
            return;
        }
        if MAY_BE_DOT && entry.is_dot_or_dotdot() {
            return;
        }
        if kind == EntryKind::Unknown || self.config.force_stat {
            kind = match self.stat_kind(dir, dir_fd, &entry) {
                Some(kind) => kind,
                None => return,
            };
        }
        match kind {
            EntryKind::File if self.here.scope.files => {
                self.visit_file(dir, dir_fd, &entry, entry.name());
            }
            EntryKind::Dir => self.visit_dir(dir, dir_fd, entry, None),
            EntryKind::Symlink if self.here.scope.links || self.config.follow => {
                self.visit_symlink(dir, dir_fd, entry)
            }
            // Tested after the common kinds, and only where `-t` named one, so that
            // telling FIFOs, sockets and devices apart costs the walk nothing.
            _ if self.here.scope.specials && kind.is_special() => {
                self.visit_special(dir, dir_fd, entry, kind)
            }
            _ if self.here.misses => self.note_miss(entry.name(), kind),
            _ => {}
        }
    }

    /// True when, in the directory entered, a regular file is visited by its name
    /// alone: [`Self::visit_not_dot`] for one goes straight to the name test and
    /// [`Self::accept`] (it is not only counted, nor `stat`ed first, and files may
    /// match here). Tested once a directory by the loops over listings whose
    /// names' lengths are known (`walker::indexed`), which then call
    /// [`Self::visit_file_by_name`] for each file.
    #[inline(always)]
    pub(super) fn files_by_name(&self) -> bool {
        !self.count_by_type_only && !self.config.force_stat && self.here.scope.files
    }

    /// A regular file named `name_with_nul` (its name and its NUL, exactly), in a
    /// directory where [`Self::files_by_name`]: what [`Self::visit_not_dot`] does
    /// for it, without finding where its name ends.
    #[inline(always)]
    pub(super) fn visit_file_by_name(
        &mut self,
        dir: &Dir<'_>,
        dir_fd: RawFd,
        name_with_nul: &[u8],
    ) {
        let Some((_, name)) = name_with_nul.split_last() else {
            return;
        };
        let entry = RawEntry::from_name_with_nul(name_with_nul, EntryKind::File);
        self.visit_file(dir, dir_fd, &entry, name);
    }

    /// A regular file `entry`, named `name`, in a directory where files may match:
    /// its name tested, then [`Self::accept`]. `visit_candidate` in two steps:
    /// built before the name test's call, the path and the stat source were kept
    /// on the stack across it, which cost the default walk 1.5% more instructions.
    #[inline(always)]
    fn visit_file(&mut self, dir: &Dir<'_>, dir_fd: RawFd, entry: &RawEntry<'_>, name: &[u8]) {
        if self.config.filter.name_passes(name) {
            let from = EntryAt { dir_fd, entry };
            self.accept(dir.prefix, name, EntryKind::File, from);
        }
    }

    /// An entry of a kind `-t` leaves out, in a name search (see [`Here::misses`]):
    /// its kind is noted if its name matches.
    #[inline(never)]
    fn note_miss(&mut self, name: &[u8], kind: EntryKind) {
        if self.config.filter.name_passes(name) {
            self.found.missed.insert(kind);
        }
    }

    /// A FIFO, socket or device, in a directory where `-t s`, `p`, `c` or `b` may
    /// match: a candidate if its kind was asked for. Never opened.
    #[inline(never)]
    fn visit_special(
        &mut self,
        dir: &Dir<'_>,
        dir_fd: RawFd,
        entry: RawEntry<'_>,
        kind: EntryKind,
    ) {
        if self.config.filter.types.accepts_special(kind) {
            let from = EntryAt {
                dir_fd,
                entry: &entry,
            };
            self.visit_candidate(dir.prefix, entry.name(), kind, from);
        } else if self.here.misses {
            self.note_miss(entry.name(), kind);
        }
    }

    /// [`Self::visit`] as a call, for the listing loops other than the plain one (`-t e`),
    /// so that the hot path is inlined into one loop only.
    #[inline(never)]
    pub(super) fn visit_out_of_line(&mut self, dir: &Dir<'_>, dir_fd: RawFd, entry: RawEntry<'_>) {
        self.visit(dir, dir_fd, entry)
    }

    /// An entry of a kind that may match, in directory `dir` (its printed path and
    /// a `/`): applies the name filters, then whatever needs a `stat` (taken from
    /// `from` only then, so that the C string for `fstatat` is only made when a
    /// `stat` is needed), and prints it. True when it matched (for `--prune`; the
    /// per-file callers ignore it, and inlined it costs them nothing).
    #[inline(always)]
    pub(super) fn visit_candidate(
        &mut self,
        dir: &[u8],
        name: &[u8],
        kind: EntryKind,
        from: impl StatFrom,
    ) -> bool {
        self.config.filter.name_passes(name) && self.accept(dir, name, kind, from)
    }

    /// A root that is not walked (a file, or a link taken as itself), at depth 0:
    /// like [`Self::visit_candidate`] but without `-E`, which never applies to a root.
    pub(super) fn visit_root(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, stat: &Stat) {
        // A root's path below itself is its name.
        self.below_root = dir.len();
        self.excludes_apply = false;
        if self.config.filter.name_matches(name) {
            self.accept(dir, name, kind, stat);
        }
    }

    /// After each directory: counts it, and publishes this worker's counts if a
    /// status line was asked for since it last did, or every [`PUBLISH_EVERY`]
    /// directories (see `progress`); a subtraction, a load and a comparison
    /// otherwise.
    #[inline(always)]
    pub(super) fn answer_progress(&mut self) {
        self.until_publish -= 1;
        if self.until_publish == 0 || PROGRESS.asked() != self.published.asked() {
            self.publish_progress();
        }
    }

    /// Adds what this worker counted since it last did to the status line's counts
    /// (where the walk publishes them, [`Config::progress`]).
    #[inline(never)]
    pub(super) fn publish_progress(&mut self) {
        self.listed_dirs += PUBLISH_EVERY - self.until_publish;
        self.until_publish = PUBLISH_EVERY;
        if !self.config.progress {
            return;
        }
        let now = Published {
            examined: self.found.examined,
            matches: self.found.matches,
            queued: self.queued_dirs,
            listed: self.listed_dirs,
        };
        PROGRESS.publish(&mut self.published, now);
    }

    /// `--files-from`: a listed entry whose kind and path passed (see
    /// `Walker::visit_listed`): its path below the root, for `--path-regex`, is the
    /// whole path as listed, and `-E` was tested on its components.
    pub(super) fn visit_listed(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, stat: &Stat) {
        self.below_root = 0;
        self.excludes_apply = false;
        if self.config.filter.name_matches(name) {
            self.accept(dir, name, kind, stat);
        }
    }

    /// A candidate that passed the name filters: tests what needs a `stat`, if
    /// anything does, and prints it. True when it matched.
    #[inline(always)]
    fn accept(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, from: impl StatFrom) -> bool {
        let slow = if kind == EntryKind::File {
            self.slow_files
        } else {
            self.slow_others
        };
        if slow {
            if self.check_path {
                return self.accept_on_path(dir, name, kind, from);
            }
            // Two functions rather than one with more branches: merged, the `-l`
            // path cost 3.5% more instructions per file (callgrind, `medium`).
            return match self.formatted {
                None => self.visit_with_stat([dir, name], kind, from),
                Some(_) => self.visit_formatted([dir, name], kind, from),
            };
        }
        self.emit([dir, name], 0);
        true
    }

    /// [`Self::accept`] for a candidate that must also pass the tests on its path
    /// below the root (`--path-regex`, `--and` on paths), out of line behind the
    /// flag that already sends a candidate off the inline path: tested in
    /// `visit_with_stat`, it cost `-l` 8 instructions per file (callgrind, `medium`).
    #[inline(never)]
    fn accept_on_path(
        &mut self,
        dir: &[u8],
        name: &[u8],
        kind: EntryKind,
        from: impl StatFrom,
    ) -> bool {
        if !self.path_passes(dir, name, kind == EntryKind::Dir) {
            return false;
        }
        let needs_stat = self.stats(kind);
        match self.formatted {
            None if !needs_stat => {
                self.emit_out_of_line([dir, name], 0);
                true
            }
            None => self.visit_with_stat([dir, name], kind, from),
            Some(_) => self.visit_formatted([dir, name], kind, from),
        }
    }

    /// Whether a candidate of `kind` needs a `stat` (see [`Config::needs_stat`]).
    #[inline(always)]
    fn stats(&self, kind: EntryKind) -> bool {
        if kind == EntryKind::File {
            self.stat_files
        } else {
            self.stat_others
        }
    }

    /// True when the entry `name` of the directory printed as `dir` passes the
    /// filter's tests on its path below the root.
    fn path_passes(&mut self, dir: &[u8], name: &[u8], is_dir: bool) -> bool {
        let filter = &self.config.filter;
        if self.excludes_apply && filter.path_excluded(&self.exclude_states, name, is_dir) {
            return false;
        }
        if filter.path_tests.is_empty() {
            return true;
        }
        let below = &dir[self.below_root.min(dir.len())..];
        filter.path_passes([below, name], &mut self.path_scratch)
    }

    /// `-E` with a `/`, and `--ignore-contain`: true when the subdirectory `name` of
    /// the directory open as `dir_fd` is skipped, itself and all below it.
    #[inline(never)]
    fn dir_skipped(&self, dir_fd: RawFd, name: &[u8]) -> bool {
        let filter = &self.config.filter;
        if self.check_path && filter.path_excluded(&self.exclude_states, name, true) {
            return true;
        }
        (filter.ignore_contain.iter()).any(|marker| holds(dir_fd, &[name, b"/", marker].concat()))
    }

    /// A candidate that needs a `stat` (taken now unless the caller has it).
    #[inline(never)]
    fn visit_with_stat(&mut self, path: [&[u8]; 2], kind: EntryKind, from: impl StatFrom) -> bool {
        let mut slot = StatSlot::new();
        let stat = match from.stat(&mut slot, self.stat_fields) {
            Ok(stat) => stat,
            Err(err) => {
                self.reporter.path_error(&path.concat(), &err);
                return false;
            }
        };
        let passes = self.config.filter.stat_passes(kind, stat);
        if passes {
            self.emit_out_of_line(path, stat.size());
        }
        passes
    }

    /// A candidate whose record is [`OutputMode::Formatted`]: `stat`ed only if the
    /// filters or the format need it.
    #[inline(never)]
    fn visit_formatted(&mut self, path: [&[u8]; 2], kind: EntryKind, from: impl StatFrom) -> bool {
        let needs_stat = self.stats(kind);
        let mut meta = None;
        if needs_stat {
            let mut slot = StatSlot::new();
            let stat = match from.stat(&mut slot, self.stat_fields) {
                Ok(stat) => stat,
                Err(err) => {
                    self.reporter.path_error(&path.concat(), &err);
                    return false;
                }
            };
            if !self.config.filter.stat_passes(kind, stat) {
                return false;
            }
            meta = Some(Meta::from_stat(stat));
        }
        self.emit_formatted(path, kind, meta);
        true
    }

    /// A subdirectory (or, with `-L`, a link to one, whose target's `stat` is given):
    /// perhaps a match itself, and queued to be listed if its entries can be.
    #[inline(never)]
    fn visit_dir(
        &mut self,
        dir: &Dir<'_>,
        dir_fd: RawFd,
        entry: RawEntry<'_>,
        stat: Option<&Stat>,
    ) {
        let name = entry.name();
        let filter = &self.config.filter;
        if filter.is_excluded(name) {
            return;
        }
        if (self.check_path || !filter.ignore_contain.is_empty()) && self.dir_skipped(dir_fd, name)
        {
            return;
        }
        let scope = self.here.scope;
        if !scope.dirs && self.here.misses {
            self.note_miss(name, EntryKind::Dir);
        }
        // `-L`: a real directory can lead back into the current path too (through a
        // link higher up). The walker would catch it on opening it, but by then it
        // would have been printed, and one at the depth limit is never opened; so
        // whenever it may be printed or will not be opened, it is checked here.
        // Borrowed, not moved: an `Option<Stat>` passed by value was 264 bytes copied
        // per subdirectory, 0.9% more instructions for `/usr/share -c` (callgrind).
        let identified;
        let stat = match stat {
            None if self.config.follow && (scope.dirs || !scope.descend) => {
                match self.identify_subdir(dir, dir_fd, &entry) {
                    Some(found) => {
                        identified = found;
                        Some(&identified)
                    }
                    None => return,
                }
            }
            stat => stat,
        };
        // With `-t e` whether it matches is only known once it is listed.
        let print_if_empty = scope.dirs
            && filter.types.empty_only
            && filter.name_passes(name)
            && (!self.check_path || self.path_passes(dir.prefix, name, true));
        if scope.dirs && !filter.types.empty_only {
            let matched = match stat {
                Some(stat) => self.visit_candidate(dir.prefix, name, EntryKind::Dir, stat),
                None => {
                    let from = EntryAt {
                        dir_fd,
                        entry: &entry,
                    };
                    self.visit_candidate(dir.prefix, name, EntryKind::Dir, from)
                }
            };
            // `--prune`: a directory that matched is not listed.
            if matched && self.config.prune {
                return;
            }
        }
        let path_state = filter.subdir_path(dir.path_state, name);
        if (scope.descend && path_state.is_some()) || print_if_empty {
            self.children.push(Child {
                name_start: self.child_names.len(),
                print_if_empty,
                tracked_only: self.here.child_tracked_only,
                index_at: 0,
            });
            self.child_names.extend_from_slice(name);
            self.child_names.push(0);
        }
    }

    /// `-L`: the `stat` of the subdirectory `entry`, or `None` if it is a loop back
    /// into the current path (reported) or cannot be `stat`ed (reported).
    #[inline(never)]
    fn identify_subdir(&self, dir: &Dir<'_>, dir_fd: RawFd, entry: &RawEntry<'_>) -> Option<Stat> {
        let fields = self.stat_fields.lenient().with(Fields::ID);
        let stat = match stat_at(dir_fd, entry.name_cstr(), true, fields) {
            Ok(stat) => stat,
            Err(err) => {
                self.entry_error(dir, entry.name(), &err);
                return None;
            }
        };
        let (dev, ino) = stat.id();
        if self
            .here
            .id
            .as_ref()
            .is_some_and(|id| id.is_on_path(dev, ino))
        {
            self.report_loop(&dir.entry_path(entry.name()));
            return None;
        }
        Some(stat)
    }

    /// A symbolic link: with `-L`, whatever it points to; otherwise (or when it points
    /// nowhere) a link, which matches only with `-t l`.
    #[inline(never)]
    fn visit_symlink(&mut self, dir: &Dir<'_>, dir_fd: RawFd, entry: RawEntry<'_>) {
        let name = entry.name();
        if self.config.follow {
            let fields = self.stat_fields.lenient().with(Fields::ID);
            match stat_at(dir_fd, entry.name_cstr(), true, fields) {
                Ok(stat) => {
                    match EntryKind::from_mode(stat.mode()) {
                        EntryKind::File if self.here.scope.files => {
                            self.visit_candidate(dir.prefix, name, EntryKind::File, &stat);
                        }
                        kind if self.here.scope.specials
                            && self.config.filter.types.accepts_special(kind) =>
                        {
                            self.visit_candidate(dir.prefix, name, kind, &stat);
                        }
                        EntryKind::Dir => {
                            let (dev, ino) = stat.id();
                            let on_path = self
                                .here
                                .id
                                .as_ref()
                                .is_some_and(|id| id.is_on_path(dev, ino));
                            if on_path {
                                return self.report_loop(&dir.entry_path(name));
                            }
                            self.visit_dir(dir, dir_fd, entry, Some(&stat))
                        }
                        _ => {}
                    }
                    return;
                }
                // A dangling link stays a link, as with `find -L`.
                Err(err) if matches!(err.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {}
                Err(err) => return self.entry_error(dir, name, &err),
            }
        }
        if self.here.scope.links {
            let from = EntryAt {
                dir_fd,
                entry: &entry,
            };
            self.visit_candidate(dir.prefix, name, EntryKind::Symlink, from);
        }
    }

    /// `-t e`: the directory `dir` has just been listed and had no entries.
    #[inline(never)]
    pub(super) fn match_empty_dir(&mut self, dir: &Dir<'_>, dir_fd: RawFd) {
        let mut stat = None;
        if self.stat_others {
            match fstat(dir_fd, self.stat_fields) {
                Ok(found) if self.config.filter.stat_passes(EntryKind::Dir, &found) => {
                    stat = Some(found)
                }
                Ok(_) => return,
                Err(err) => return self.reporter.path_error(dir.display_path(), &err),
            }
        }
        let path_parts = [&dir.prefix[..dir.path_len], &b""[..]];
        if self.formatted.is_some() {
            let meta = stat.as_ref().map(Meta::from_stat);
            return self.emit_formatted(path_parts, EntryKind::Dir, meta);
        }
        self.emit_out_of_line(path_parts, stat.map_or(0, |stat| stat.size()));
    }
}

/// `--ignore-contain`: true when `path`, relative to the directory open as `dir_fd`,
/// names something (followed through links, as fd's test does).
pub(super) fn holds(dir_fd: RawFd, path: &[u8]) -> bool {
    let Ok(path) = std::ffi::CString::new(path) else {
        return false;
    };
    stat_at(dir_fd, &path, true, Fields::TYPE).is_ok()
}
