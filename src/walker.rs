//! One worker: take a directory from the pool, list it, filter its entries inline,
//! print or count the files that match, and queue its subdirectories.
//!
//! There is no second stage and no channel of paths: the per-file work (a few byte
//! comparisons and a copy into the output buffer) is far cheaper than any hand-off
//! between threads would be. Nothing on the per-entry path allocates: names are
//! borrowed from the reader's buffer, matches are appended to a per-worker buffer that
//! is handed to stdout in 256 KiB blocks, and only a subdirectory costs an allocation
//! (its path, which must outlive this directory).

use crate::config::{Config, OutputMode, OUTPUT_FLUSH_THRESHOLD, OUTPUT_INITIAL_CAPACITY};
use crate::descriptors::{open_dir, Anchor, Root};
use crate::dirent::{fstat, lstat_at, stat_at, DirReader, EntryKind, RawEntry};
use crate::filter::path::PathState;
use crate::filter::Scope;
use crate::meta::Meta;
use crate::output::{push_size_column, Delivery, MatchLimit, Output, Reservation};
use crate::queue::{Pool, WorkerSlot};
use crate::record::{Match, Records};
use crate::report::Reporter;
use crate::threads::DiskWaitWatch;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
#[cfg(test)]
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;
use std::time::Instant;

/// What a walk found: the whole walk's, or one worker's share of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of entries that matched (and, in path mode, were printed).
    pub matches: u64,
    /// Their total size in bytes, when the output mode needs sizes (`-l`, `-s`).
    pub bytes: u64,
    /// How many worker threads took part (each worker's own summary says 1).
    pub workers: u64,
}

impl Summary {
    pub fn add(&mut self, other: Summary) {
        self.matches += other.matches;
        self.bytes += other.bytes;
        self.workers += other.workers;
    }
}

/// A directory waiting to be read.
pub struct DirJob {
    /// What is printed before each entry's name: the directory's path and a `/`,
    /// or nothing at all for the implicit `.` root.
    prefix: Vec<u8>,
    /// Length of the directory's own path at the start of `prefix` (for opening it and
    /// for error messages); for a root this is the root exactly as typed.
    path_len: usize,
    /// The nearest open ancestor to open this directory relative to; `None` opens it
    /// from its root (see `descriptors`).
    anchor: Option<Arc<Anchor>>,
    /// The anchor is this directory's parent, so the path below it is one name.
    anchor_is_parent: bool,
    /// The root it was reached from, for when no anchor is left.
    root: Root,
    /// 0 for a root; the directory's entries are at `depth + 1`.
    depth: usize,
    /// `-t e`: the directory itself matches if it turns out to have no entries, which
    /// only the worker that lists it can tell.
    print_if_empty: bool,
    /// `-L`: the identity of the directory this one was found in, linked to its own
    /// parent's, up to the root: the chain a symbolic link must not lead back into.
    parent_id: Option<Arc<DirId>>,
    /// `-x`: the device of the root this directory was reached from (`None` for a
    /// root, whose own device becomes its descendants').
    root_dev: Option<u64>,
    /// `-p`: how far the directory's path below its root goes into the pattern.
    path_state: PathState,
}

/// A directory's identity, and its parent's: one link of the chain of directories on
/// the current path, which `-L` checks for loops. Shared by all children through `Arc`.
#[derive(Debug)]
pub struct DirId {
    dev: u64,
    ino: u64,
    parent: Option<Arc<DirId>>,
}

impl DirId {
    /// True when (`dev`, `ino`) is this directory or one of its ancestors: entering it
    /// would walk the same directories again, forever.
    fn is_on_path(self: &Arc<DirId>, dev: u64, ino: u64) -> bool {
        let mut current = Some(self);
        while let Some(id) = current {
            if id.dev == dev && id.ino == ino {
                return true;
            }
            current = id.parent.as_ref();
        }
        false
    }
}

/// A `stat`'s (device, inode): what identifies a directory for `-L` and `-x`.
// `dev_t` and `ino_t` are `u64` on Linux but narrower or signed elsewhere, so the casts
// are not redundant everywhere.
#[allow(clippy::unnecessary_cast)]
fn identity(stat: &libc::stat) -> (u64, u64) {
    (stat.st_dev as u64, stat.st_ino as u64)
}

impl DirJob {
    /// The job for a root directory, printed as `root` was typed. `root` empty means
    /// the implicit `.`, whose entries are printed without a `./` prefix.
    /// `path_state` is the filter's state for a root (`Filter::root_path`).
    pub fn root(root: &[u8], path_state: PathState) -> DirJob {
        let mut prefix = root.to_vec();
        if !root.is_empty() && !root.ends_with(b"/") {
            prefix.push(b'/');
        }
        DirJob {
            prefix,
            path_len: root.len(),
            anchor: None,
            anchor_is_parent: false,
            root: Root::new(root.len()),
            depth: 0,
            print_if_empty: false,
            parent_id: None,
            root_dev: None,
            path_state,
        }
    }

    fn child(&self, name: &[u8], path_state: PathState) -> DirJob {
        let mut prefix = Vec::with_capacity(self.prefix.len() + name.len() + 1);
        prefix.extend_from_slice(&self.prefix);
        prefix.extend_from_slice(name);
        let path_len = prefix.len();
        prefix.push(b'/');
        DirJob {
            prefix,
            path_len,
            anchor: None,
            anchor_is_parent: false,
            root: self.root,
            depth: self.depth + 1,
            print_if_empty: false,
            parent_id: None,
            root_dev: self.root_dev,
            path_state,
        }
    }

    /// The printed path of the entry `name` of this directory, for messages.
    fn entry_path(&self, name: &[u8]) -> Vec<u8> {
        [&self.prefix[..], name].concat()
    }

    /// The directory's path for messages; `.` for the implicit root.
    fn display_path(&self) -> &[u8] {
        match &self.prefix[..self.path_len] {
            b"" => b".",
            path => path,
        }
    }

    /// The root job, known to be the directory `stat` describes (when the walk
    /// started), so that reopening it later can check it still is.
    pub fn identified(mut self, stat: &libc::stat) -> DirJob {
        self.root = self.root.identified(stat);
        self
    }

    /// Opens the directory. Unless `follow`, no symbolic link below the root is
    /// followed, even one that replaced a directory since its parent was listed.
    fn open(&self, follow: bool) -> io::Result<OwnedFd> {
        open_dir(
            &self.prefix[..self.path_len],
            self.anchor.as_deref(),
            self.anchor_is_parent,
            &self.root,
            follow,
        )
    }
}

/// Appends one output record for the match `path_parts` (concatenated) of `size`
/// bytes, in the format `mode` asks for.
#[inline(always)] // on the per-file hot path; see `Visitor::visit`
pub fn push_record(buffer: &mut Vec<u8>, mode: OutputMode, path_parts: [&[u8]; 2], size: u64) {
    let terminator = match mode {
        OutputMode::Paths { terminator } => terminator,
        OutputMode::Long { terminator } => {
            push_size_column(buffer, size);
            terminator
        }
        // `Formatted` records are written out of line (`Visitor::emit_formatted`).
        OutputMode::Count
        | OutputMode::SizeSum
        | OutputMode::Quiet
        | OutputMode::Formatted { .. } => return,
    };
    let [dir, name] = path_parts;
    let len = dir.len() + name.len() + 1;
    // One capacity check and two plain copies. `extend_from_slice` twice and `push`
    // cost 1.5% of a million-file walk more than this: once the walker had a few more
    // output paths, LLVM stopped inlining `Vec::append_elements` into the hot loop.
    buffer.reserve(len);
    let start = buffer.len();
    // SAFETY: `reserve` made room for `len` more bytes after `start`, so every write
    // below is inside the allocation; `dir` and `name` are borrowed from elsewhere and
    // cannot overlap `buffer`'s spare capacity (it is exclusively borrowed); all `len`
    // bytes are written before `set_len` makes them part of the vector.
    unsafe {
        let out = buffer.as_mut_ptr().add(start);
        std::ptr::copy_nonoverlapping(dir.as_ptr(), out, dir.len());
        std::ptr::copy_nonoverlapping(name.as_ptr(), out.add(dir.len()), name.len());
        *out.add(len - 1) = terminator;
        buffer.set_len(start + len);
    }
}

/// The state one worker thread owns for the whole walk.
pub struct Walker<'a> {
    reader: DirReader,
    /// Whether this walk adds workers when directories wait on the disk (no `-j`).
    watch_disk: bool,
    /// Everything the per-entry code touches; a separate field from `reader` so the
    /// listing callback can borrow it while the reader is borrowed too.
    visitor: Visitor<'a>,
}

struct Visitor<'a> {
    config: &'a Config,
    pool: &'a Pool<DirJob>,
    output: &'a Output,
    reporter: &'a Reporter,
    limit: Option<&'a MatchLimit>,
    /// Matched paths not yet handed to `output`.
    buffer: Vec<u8>,
    /// Matches found by this worker (counted in every output mode), and their sizes.
    found: Summary,
    /// Subdirectories of the directory being read; reused across directories.
    children: Vec<DirJob>,
    /// True when files can be accepted on `d_type` alone, without their name.
    count_by_type_only: bool,
    /// `-L` or `-x`: each directory is `fstat`ed once when opened.
    identify_dirs: bool,
    /// [`Config::needs_stat`] for regular files, and for directories and links,
    /// computed once.
    stat_files: bool,
    stat_others: bool,
    /// Whether a candidate file (or directory or link) leaves the inline path: when
    /// it needs a `stat`, or its record is [`OutputMode::Formatted`]. One flag, so
    /// that the default walk tests no more than it did before formats existed.
    slow_files: bool,
    slow_others: bool,
    /// How records are written when the output is [`OutputMode::Formatted`].
    records: Option<Box<Records<'a>>>,
    /// About the directory being listed; set once per directory, so that the
    /// per-entry code tests a boolean rather than recomputing from the config.
    here: Here,
    /// Whether listing directories made this thread wait on the disk (see `threads`).
    disk_watch: DiskWaitWatch,
    /// Entries handed to `visit` in the directory being listed, for the tests of the
    /// early stop.
    #[cfg(test)]
    entries_seen: u64,
}

/// What the walker knows about the directory it is listing.
#[derive(Default)]
struct Here {
    /// Which of its entries may match, and whether its subdirectories are listed.
    scope: Scope,
    /// `-L`: this directory's identity, the head of the chain of its ancestors'.
    id: Option<Arc<DirId>>,
}

/// Where a candidate's `stat` comes from, should a predicate or the output need one:
/// taken on demand for an entry ([`EntryAt`]), or already known (a root's, or with
/// `-L` a link's target's). A trait rather than an enum so that each is passed in
/// registers: built as an enum, it was stored to the stack for every file, 1.5% more
/// instructions on the default walk.
trait StatFrom: Copy {
    fn stat(self) -> io::Result<libc::stat>;
}

/// An entry of the directory open as `dir_fd`, `lstat`ed if needed.
#[derive(Clone, Copy)]
struct EntryAt<'e> {
    dir_fd: RawFd,
    entry: &'e RawEntry<'e>,
}

impl StatFrom for EntryAt<'_> {
    // Inlined into each caller, so the `stat` is filled in where it is read: called,
    // it is returned through memory and copied once more (10% more instructions
    // for `-l` once two functions took a `StatFrom`).
    #[inline(always)]
    fn stat(self) -> io::Result<libc::stat> {
        lstat_at(self.dir_fd, self.entry.name_cstr())
    }
}

impl StatFrom for &libc::stat {
    fn stat(self) -> io::Result<libc::stat> {
        Ok(*self)
    }
}

impl<'a> Walker<'a> {
    pub fn new(
        config: &'a Config,
        pool: &'a Pool<DirJob>,
        output: &'a Output,
        reporter: &'a Reporter,
        reader: DirReader,
        limit: Option<&'a MatchLimit>,
    ) -> Walker<'a> {
        let watch_disk = config.spare_threads > 0;
        let count_by_type_only = config.output == OutputMode::Count
            && config.filter.files_match_by_kind()
            && limit.is_none()
            && !config.force_stat;
        let stat_files = config.needs_stat(EntryKind::File);
        let stat_others = config.needs_stat(EntryKind::Dir);
        let formatted = matches!(config.output, OutputMode::Formatted { .. });
        // With `--sort`, a worker need keep no more than `--max-results` matches.
        let records = config
            .format
            .as_ref()
            .filter(|_| formatted)
            .map(|format| Box::new(Records::new(format, config.max_results)));
        Walker {
            reader,
            watch_disk,
            visitor: Visitor {
                config,
                pool,
                output,
                reporter,
                limit,
                buffer: Vec::with_capacity(OUTPUT_INITIAL_CAPACITY),
                found: Summary::default(),
                children: Vec::new(),
                count_by_type_only,
                identify_dirs: config.follow || config.one_file_system,
                stat_files,
                stat_others,
                slow_files: stat_files || formatted,
                slow_others: stat_others || formatted,
                records,
                here: Here::default(),
                disk_watch: if watch_disk {
                    DiskWaitWatch::primed()
                } else {
                    DiskWaitWatch::default()
                },
                #[cfg(test)]
                entries_seen: 0,
            },
        }
    }

    /// Runs until the pool says the walk is over; returns what this worker found.
    pub fn run(self, slot: &WorkerSlot<DirJob>) -> Summary {
        self.run_and_serve(slot, || false)
    }

    /// [`Self::run`], calling `serve` before each directory and before going idle: the
    /// first worker starts there the workers the pool asks for. `serve` returns true
    /// when it blocked this thread on purpose (moving it to another CPU), which must
    /// not count as a wait on the disk.
    pub fn run_and_serve(
        mut self,
        slot: &WorkerSlot<DirJob>,
        mut serve: impl FnMut() -> bool,
    ) -> Summary {
        let pool = self.visitor.pool;
        let _guard = pool.guard();
        loop {
            if serve() {
                self.visitor.disk_watch.reset();
            }
            let next = pool.next_job(slot, || {
                serve();
                self.visitor.flush();
                // Parking is a wait of our own, not the disk's.
                self.visitor.disk_watch.reset();
            });
            let Some(job) = next else { break };
            self.walk_one(&job, slot);
        }
        self.visitor.flush();
        if let Some(run) = self.visitor.records.take().and_then(|r| r.into_kept()) {
            let mut run = run;
            run.sort();
            self.visitor.output.keep(run);
        }
        Summary {
            workers: 1,
            ..self.visitor.found
        }
    }

    /// Walks on this thread alone while it has at most one directory in hand, and
    /// returns as soon as there is a second one to share (true) or the walk is over
    /// (false). The scheduler starts the other workers only after that: a root with
    /// no subdirectory, or a single chain of them, never pays for starting threads.
    ///
    /// Only the first worker may call this, before any other worker runs: with no
    /// peer, every directory pending is in this worker's own deque, so `next_job`
    /// never has a reason to park.
    pub fn run_until_shareable(&mut self, slot: &WorkerSlot<DirJob>) -> bool {
        let pool = self.visitor.pool;
        let _guard = pool.guard();
        loop {
            if slot.queued() > 1 {
                return true;
            }
            match pool.next_job(slot, || {}) {
                Some(job) => self.walk_one(&job, slot),
                None => return false,
            }
        }
    }

    /// A root that is not walked but may itself match (a regular file, or a link
    /// that is not followed): an entry at depth 0, printed as `dir` then `name` (its
    /// path as typed, split before its last component), whose `stat` the scheduler
    /// has already taken.
    pub fn visit_root(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, stat: &libc::stat) {
        let visitor = &mut self.visitor;
        let filter = &visitor.config.filter;
        let scope = filter.scope(0, filter.root_path());
        let wanted = match kind {
            EntryKind::File => scope.files,
            EntryKind::Symlink => scope.links,
            _ => false,
        };
        if wanted {
            visitor.visit_candidate(dir, name, kind, stat);
        }
    }

    /// True when the last directory this worker listed (alone, before any other
    /// worker started) blocked in the kernel: the tree is not in the page cache.
    pub fn listed_cold(&self) -> bool {
        self.watch_disk && self.visitor.disk_watch.last_blocked()
    }

    /// Hands what this worker has buffered to the output now (the scheduler prints
    /// the roots given as files before the walk starts).
    pub fn flush(&mut self) {
        self.visitor.flush();
    }

    fn walk_one(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        let pool = self.visitor.pool;
        // Timed only while the pool may still take more workers: two clock reads.
        if self.watch_disk && pool.can_grow() {
            let started = Instant::now();
            self.walk_dir(job, slot);
            let waited = self.visitor.disk_watch.waited(started.elapsed());
            if waited || self.visitor.config.assume_disk_waits {
                pool.ask_for_worker();
            }
        } else {
            self.walk_dir(job, slot);
        }
        pool.finish_dir();
        if self.visitor.config.flush_per_directory {
            self.visitor.flush();
        }
    }

    fn walk_dir(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        let visitor = &mut self.visitor;
        let config = visitor.config;
        let dir = match job.open(config.follow) {
            Ok(dir) => dir,
            Err(err) => return visitor.reporter.path_error(job.display_path(), &err),
        };
        #[cfg(test)]
        tests::after_open(job.display_path());
        let dir_fd = dir.as_raw_fd();
        let mut root_dev = job.root_dev;
        let mut crossing = false;
        visitor.here.id = None;
        if visitor.identify_dirs {
            // One fstat per directory, only with -L or -x.
            let stat = match fstat(dir_fd) {
                Ok(stat) => stat,
                Err(err) => return visitor.reporter.path_error(job.display_path(), &err),
            };
            let (dev, ino) = identity(&stat);
            crossing = config.one_file_system && crosses_device(job.root_dev, dev);
            // `-x`: not entered. With `-t e` a mount point is still listed, only to
            // see whether it is empty, as `find -xdev -empty`, bfs and fd do.
            if crossing && !job.print_if_empty {
                return;
            }
            root_dev = Some(dev);
            if config.follow {
                // Links into an ancestor are caught before they are queued; this
                // catches the rest (a bind mount of an ancestor, say).
                if let Some(parent) = &job.parent_id {
                    if parent.is_on_path(dev, ino) {
                        return visitor.report_loop(job.display_path());
                    }
                }
                visitor.here.id = Some(Arc::new(DirId {
                    dev,
                    ino,
                    parent: job.parent_id.clone(),
                }));
            }
        }
        visitor.enter(job);
        // Seen between batches of entries, so that `-1` or a closed pipe ends the walk
        // inside a directory of a million entries too, not only between directories.
        let pool = visitor.pool;
        let stop = pool.stop_flag();
        let listed = if job.print_if_empty {
            // Only with `-t e`: note whether the directory has any entry at all.
            // A directory at the maximum depth, or a mount point under `-x`, is
            // listed for this alone.
            let visit_entries = job.depth < config.filter.max_depth && !crossing;
            let mut empty = true;
            let listed = self.reader.read(dir_fd, stop, |entry| {
                if !entry.is_dot_or_dotdot() {
                    empty = false;
                    if visit_entries {
                        visitor.visit_out_of_line(job, dir_fd, entry);
                    }
                }
            });
            // A listing cut short by the stop proves nothing about emptiness.
            if listed.is_ok() && empty && !pool.is_stopped() {
                visitor.match_empty_dir(job, dir_fd);
            }
            listed
        } else {
            self.reader
                .read(dir_fd, stop, |entry| visitor.visit(job, dir_fd, entry))
        };
        #[cfg(test)]
        tests::listed(
            job.display_path(),
            std::mem::take(&mut visitor.entries_seen),
        );
        if let Err(err) = listed {
            visitor.reporter.path_error(job.display_path(), &err);
        }
        if !visitor.children.is_empty() {
            // Keep this directory open for its children if the budget allows; otherwise
            // they are opened relative to our own anchor by a longer path.
            let (anchor, is_parent) = match Anchor::keep(dir, job.prefix.len()) {
                Ok(anchor) => (Some(anchor), true),
                Err(_closed_on_drop) => (job.anchor.clone(), false),
            };
            for child in &mut visitor.children {
                child.anchor = anchor.clone();
                child.anchor_is_parent = is_parent;
                child.parent_id = visitor.here.id.clone();
                child.root_dev = root_dev;
            }
            visitor.pool.push_dirs(slot, visitor.children.drain(..));
        }
    }
}

/// `-x`: true when a directory on device `dev` is on another file system than the
/// root it was reached from (`root_dev`; `None` for the root itself).
pub fn crosses_device(root_dev: Option<u64>, dev: u64) -> bool {
    root_dev.is_some_and(|root| root != dev)
}

impl Visitor<'_> {
    /// Sets what holds for every entry of the directory `job`.
    fn enter(&mut self, job: &DirJob) {
        self.here.scope = self.config.filter.scope(job.depth + 1, job.path_state);
    }

    /// The per-entry hot path. `visit`, `visit_candidate` and `emit` are forced inline
    /// into the listing loop: left to itself LLVM kept them as three calls per file
    /// (`visit` has two call sites since `-t e`), which cost the default walk 4-5% at
    /// -j 1 on a million files; the rare branches are `#[inline(never)]` instead.
    #[inline(always)]
    fn visit(&mut self, job: &DirJob, dir_fd: RawFd, entry: RawEntry<'_>) {
        #[cfg(test)]
        {
            self.entries_seen += 1;
        }
        let mut kind = entry.kind;
        if self.count_by_type_only && kind == EntryKind::File {
            self.found.matches += 1;
            return;
        }
        if entry.is_dot_or_dotdot() {
            return;
        }
        if kind == EntryKind::Unknown || self.config.force_stat {
            kind = match lstat_at(dir_fd, entry.name_cstr()) {
                Ok(stat) => EntryKind::from_mode(stat.st_mode),
                Err(err) => return self.entry_error(job, entry.name(), &err),
            };
        }
        match kind {
            EntryKind::File if self.here.scope.files => {
                // `visit_candidate`, in two steps: built before the name test's call,
                // the path and the stat source were kept on the stack across it,
                // which cost the default walk 1.5% more instructions.
                let name = entry.name();
                if self.config.filter.name_passes(name) {
                    self.accept(
                        &job.prefix,
                        name,
                        kind,
                        EntryAt {
                            dir_fd,
                            entry: &entry,
                        },
                    );
                }
            }
            EntryKind::Dir => self.visit_dir(job, dir_fd, entry, None),
            EntryKind::Symlink if self.here.scope.links || self.config.follow => {
                self.visit_symlink(job, dir_fd, entry)
            }
            _ => {}
        }
    }

    /// [`Self::visit`] as a call, for the listing loops other than the plain one (`-t e`),
    /// so that the hot path is inlined into one loop only.
    #[inline(never)]
    fn visit_out_of_line(&mut self, job: &DirJob, dir_fd: RawFd, entry: RawEntry<'_>) {
        self.visit(job, dir_fd, entry)
    }

    /// An entry of a kind that may match, in directory `dir` (its printed path and
    /// a `/`): applies the name filters, then whatever needs a `stat` (taken from
    /// `from` only then, so that the C string for `fstatat` is only made when a
    /// `stat` is needed), and prints it.
    #[inline(always)]
    fn visit_candidate(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, from: impl StatFrom) {
        if self.config.filter.name_passes(name) {
            self.accept(dir, name, kind, from);
        }
    }

    /// A candidate that passed the name filters: tests what needs a `stat`, if
    /// anything does, and prints it.
    #[inline(always)]
    fn accept(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, from: impl StatFrom) {
        let slow = if kind == EntryKind::File {
            self.slow_files
        } else {
            self.slow_others
        };
        if slow {
            // Two functions rather than one with more branches: merged, the `-l`
            // path cost 3.5% more instructions per file (callgrind, `medium`).
            return match self.records {
                None => self.visit_with_stat([dir, name], kind, from),
                Some(_) => self.visit_formatted([dir, name], kind, from),
            };
        }
        self.emit([dir, name], 0);
    }

    /// A candidate that needs a `stat` (taken now unless the caller has it).
    #[inline(never)]
    fn visit_with_stat(&mut self, path: [&[u8]; 2], kind: EntryKind, from: impl StatFrom) {
        let stat = match from.stat() {
            Ok(stat) => stat,
            Err(err) => return self.reporter.path_error(&path.concat(), &err),
        };
        if self.config.filter.stat_passes(kind, &stat) {
            self.emit_out_of_line(path, stat.st_size as u64);
        }
    }

    /// A candidate whose record is [`OutputMode::Formatted`]: `stat`ed only if the
    /// filters or the format need it.
    #[inline(never)]
    fn visit_formatted(&mut self, path: [&[u8]; 2], kind: EntryKind, from: impl StatFrom) {
        let needs_stat = if kind == EntryKind::File {
            self.stat_files
        } else {
            self.stat_others
        };
        let mut meta = None;
        if needs_stat {
            let stat = match from.stat() {
                Ok(stat) => stat,
                Err(err) => return self.reporter.path_error(&path.concat(), &err),
            };
            if !self.config.filter.stat_passes(kind, &stat) {
                return;
            }
            meta = Some(Meta::from_stat(&stat));
        }
        self.emit_formatted(path, kind, meta);
    }

    /// A subdirectory (or, with `-L`, a link to one, whose target's `stat` is given):
    /// perhaps a match itself, and queued to be listed if its entries can be.
    #[inline(never)]
    fn visit_dir(
        &mut self,
        job: &DirJob,
        dir_fd: RawFd,
        entry: RawEntry<'_>,
        stat: Option<libc::stat>,
    ) {
        let name = entry.name();
        let filter = &self.config.filter;
        if filter.is_excluded(name) {
            return;
        }
        let scope = self.here.scope;
        // `-L`: a real directory can lead back into the current path too (through a
        // link higher up). The walker would catch it on opening it, but by then it
        // would have been printed, and one at the depth limit is never opened; so
        // whenever it may be printed or will not be opened, it is checked here.
        let stat = match stat {
            None if self.config.follow && (scope.dirs || !scope.descend) => {
                match self.identify_subdir(job, dir_fd, &entry) {
                    Some(stat) => Some(stat),
                    None => return,
                }
            }
            stat => stat,
        };
        // With `-t e` whether it matches is only known once it is listed.
        let print_if_empty = scope.dirs && filter.types.empty_only && filter.name_passes(name);
        if scope.dirs && !filter.types.empty_only {
            match &stat {
                Some(stat) => self.visit_candidate(&job.prefix, name, EntryKind::Dir, stat),
                None => {
                    let from = EntryAt {
                        dir_fd,
                        entry: &entry,
                    };
                    self.visit_candidate(&job.prefix, name, EntryKind::Dir, from)
                }
            }
        }
        let path_state = filter.subdir_path(job.path_state, name);
        if (scope.descend && path_state.is_some()) || print_if_empty {
            let mut child = job.child(name, path_state.unwrap_or_default());
            child.print_if_empty = print_if_empty;
            self.children.push(child);
        }
    }

    /// `-L`: the `stat` of the subdirectory `entry`, or `None` if it is a loop back
    /// into the current path (reported) or cannot be `stat`ed (reported).
    #[inline(never)]
    fn identify_subdir(
        &self,
        job: &DirJob,
        dir_fd: RawFd,
        entry: &RawEntry<'_>,
    ) -> Option<libc::stat> {
        let stat = match stat_at(dir_fd, entry.name_cstr(), true) {
            Ok(stat) => stat,
            Err(err) => {
                self.entry_error(job, entry.name(), &err);
                return None;
            }
        };
        let (dev, ino) = identity(&stat);
        if self
            .here
            .id
            .as_ref()
            .is_some_and(|id| id.is_on_path(dev, ino))
        {
            self.report_loop(&job.entry_path(entry.name()));
            return None;
        }
        Some(stat)
    }

    /// A symbolic link: with `-L`, whatever it points to; otherwise (or when it points
    /// nowhere) a link, which matches only with `-t l`.
    #[inline(never)]
    fn visit_symlink(&mut self, job: &DirJob, dir_fd: RawFd, entry: RawEntry<'_>) {
        let name = entry.name();
        if self.config.follow {
            match stat_at(dir_fd, entry.name_cstr(), true) {
                Ok(stat) => {
                    match EntryKind::from_mode(stat.st_mode) {
                        EntryKind::File if self.here.scope.files => {
                            self.visit_candidate(&job.prefix, name, EntryKind::File, &stat)
                        }
                        EntryKind::Dir => {
                            let (dev, ino) = identity(&stat);
                            let on_path = self
                                .here
                                .id
                                .as_ref()
                                .is_some_and(|id| id.is_on_path(dev, ino));
                            if on_path {
                                return self.report_loop(&job.entry_path(name));
                            }
                            self.visit_dir(job, dir_fd, entry, Some(stat))
                        }
                        _ => {}
                    }
                    return;
                }
                // A dangling link stays a link, as with `find -L`.
                Err(err) if matches!(err.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => {}
                Err(err) => return self.entry_error(job, name, &err),
            }
        }
        if self.here.scope.links {
            let from = EntryAt {
                dir_fd,
                entry: &entry,
            };
            self.visit_candidate(&job.prefix, name, EntryKind::Symlink, from);
        }
    }

    /// `-t e`: the directory `job` has just been listed and had no entries.
    #[inline(never)]
    fn match_empty_dir(&mut self, job: &DirJob, dir_fd: RawFd) {
        let mut stat = None;
        if self.stat_others {
            match fstat(dir_fd) {
                Ok(found) if self.config.filter.stat_passes(EntryKind::Dir, &found) => {
                    stat = Some(found)
                }
                Ok(_) => return,
                Err(err) => return self.reporter.path_error(job.display_path(), &err),
            }
        }
        let path_parts = [&job.prefix[..job.path_len], &b""[..]];
        if self.records.is_some() {
            let meta = stat.as_ref().map(Meta::from_stat);
            return self.emit_formatted(path_parts, EntryKind::Dir, meta);
        }
        self.emit_out_of_line(path_parts, stat.map_or(0, |stat| stat.st_size as u64));
    }

    /// [`Self::emit`] as a call, for the paths that are not per-file hot (after a
    /// `stat`, an empty directory): each inlined copy of `emit` is one more site for
    /// the `Vec` copies, and past a few LLVM stops inlining them in the hot loop too.
    #[inline(never)]
    fn emit_out_of_line(&mut self, path_parts: [&[u8]; 2], size: u64) {
        self.emit(path_parts, size)
    }

    /// Counts one match and hands it to `records`, unless `--max-results` has been
    /// reached: [`Self::emit`] for [`OutputMode::Formatted`].
    #[inline(never)]
    fn emit_formatted(&mut self, path_parts: [&[u8]; 2], kind: EntryKind, meta: Option<Meta>) {
        let reservation = self.limit.map(MatchLimit::reserve);
        if reservation == Some(Reservation::Refused) {
            return;
        }
        self.found.matches += 1;
        self.found.bytes += meta.map_or(0, |meta| meta.size);
        if let Some(records) = self.records.as_deref_mut() {
            let found = Match {
                parts: path_parts,
                kind,
                meta: meta.as_ref(),
            };
            records.add(&mut self.buffer, &found);
        }
        if reservation == Some(Reservation::Last) {
            self.flush();
            self.pool.stop();
        } else if self.buffer.len() >= OUTPUT_FLUSH_THRESHOLD {
            self.flush();
        }
    }

    /// Counts and buffers one match, unless `--max-results` has been reached.
    #[inline(always)]
    fn emit(&mut self, path_parts: [&[u8]; 2], size: u64) {
        match self.limit {
            None => self.record(path_parts, size),
            Some(limit) => self.emit_limited(limit, path_parts, size),
        }
    }

    #[inline(always)]
    fn record(&mut self, path_parts: [&[u8]; 2], size: u64) {
        self.found.matches += 1;
        self.found.bytes += size;
        push_record(&mut self.buffer, self.config.output, path_parts, size);
        if self.buffer.len() >= OUTPUT_FLUSH_THRESHOLD {
            self.flush();
        }
    }

    /// `--max-results`: out of line, so that the walk without it does not carry the
    /// reservation in its inner loop.
    #[inline(never)]
    fn emit_limited(&mut self, limit: &MatchLimit, path_parts: [&[u8]; 2], size: u64) {
        match limit.reserve() {
            Reservation::Granted => self.record(path_parts, size),
            Reservation::Last => {
                // The last result: show it now and end the walk for every worker.
                self.record(path_parts, size);
                self.flush();
                self.pool.stop();
            }
            Reservation::Refused => {}
        }
    }

    #[inline(never)]
    fn report_loop(&self, path: &[u8]) {
        self.reporter
            .path_error(path, &io::Error::other("filesystem loop detected"));
    }

    #[inline(never)]
    fn entry_error(&self, job: &DirJob, name: &[u8], err: &io::Error) {
        self.reporter.path_error(&job.entry_path(name), err);
    }

    /// Hands the buffered output to stdout; on a closed or failed output, ends the walk.
    #[inline(never)]
    fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        if self.output.deliver(&self.buffer, self.reporter) == Delivery::Closed {
            self.pool.stop();
        }
        self.buffer.clear();
        // Waiting for a slow reader, or for another worker's block, is not a wait on
        // the disk.
        self.disk_watch.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Output;
    use crate::report::Reporter;
    use std::sync::Mutex;

    /// A directory path whose opening triggers `rmdir` of that directory, to make
    /// `getdents64` fail after a successful `open` (the kernel answers ENOENT for a
    /// directory removed while open).
    static REMOVE_AFTER_OPEN: Mutex<Option<Vec<u8>>> = Mutex::new(None);

    /// How many entries each directory (by printed path) had visited when its listing
    /// ended, for the tests of the early stop.
    static ENTRIES_SEEN: Mutex<Vec<(Vec<u8>, u64)>> = Mutex::new(Vec::new());

    pub(super) fn listed(path: &[u8], entries: u64) {
        ENTRIES_SEEN.lock().unwrap().push((path.to_vec(), entries));
    }

    fn entries_seen(path: &std::path::Path) -> u64 {
        let path = path.as_os_str().as_bytes();
        let seen = ENTRIES_SEEN.lock().unwrap();
        let mut matching = seen.iter().filter(|(p, _)| p == path).map(|&(_, n)| n);
        let entries = matching.next().expect("the directory was listed");
        assert!(matching.next().is_none(), "the directory was listed twice");
        entries
    }

    /// A directory of many files with long names (so output blocks fill quickly).
    fn big_flat_dir(files: usize) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..files {
            let name = format!("{i:06}_{}", "x".repeat(40));
            std::fs::write(tmp.path().join(name), b"").unwrap();
        }
        tmp
    }

    /// `--max-results` ends the walk inside a directory, not after listing all of it:
    /// only the batch of entries being handled when the limit is reached is visited.
    #[test]
    fn max_results_stops_inside_a_big_directory() {
        const FILES: usize = 20_000;
        for threads in [1, 4] {
            let tmp = big_flat_dir(FILES);
            let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
            config.max_results = Some(3);
            config.threads = threads;
            let printed = std::sync::Arc::new(Mutex::new(Vec::new()));
            let output = Output::to_writer(Box::new(SharedSink(printed.clone())));
            let reporter = Reporter::new();
            let summary = crate::scheduler::run(&config, &output, &reporter);
            assert_eq!(summary.matches, 3);
            assert_eq!(printed.lock().unwrap().split(|&b| b == b'\n').count(), 4);
            let seen = entries_seen(tmp.path());
            // One 64 KiB getdents64 batch holds about a thousand of these records.
            assert!(
                seen < (FILES / 4) as u64,
                "{seen} of {FILES} entries visited"
            );
        }
    }

    /// `-p`: a directory below which the pattern can match nothing is never listed.
    #[test]
    fn full_path_lists_only_directories_that_can_lead_to_a_match() {
        use crate::filter::path::PathGlob;
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["src/a", "lib/src", "src_old"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
            std::fs::write(tmp.path().join(dir).join("x.rs"), b"").unwrap();
        }
        let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
        config.threads = 1;
        config.output = OutputMode::Count;
        let path = PathGlob::new(b"src/**/*.rs", false).unwrap();
        config.filter.add_name_glob(path.last().unwrap().clone());
        config.filter.path = Some(path);
        let output = Output::to_writer(Box::new(std::io::sink()));
        let summary = crate::scheduler::run(&config, &output, &Reporter::new());
        assert_eq!(summary.matches, 1); // src/a/x.rs
        let listed = |dir: &str| {
            let path = match dir {
                "" => tmp.path().to_path_buf(),
                _ => tmp.path().join(dir),
            };
            let path = path.as_os_str().as_bytes();
            ENTRIES_SEEN.lock().unwrap().iter().any(|(p, _)| p == path)
        };
        assert!(listed("") && listed("src") && listed("src/a"));
        assert!(!listed("lib") && !listed("lib/src") && !listed("src_old"));
    }

    /// A closed output (`pfind | head -1`) also ends the listing of the directory
    /// being read, at the first block that cannot be delivered.
    #[test]
    fn a_closed_output_stops_inside_a_big_directory() {
        const FILES: usize = 30_000;
        let tmp = big_flat_dir(FILES);
        let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
        config.threads = 1;
        let output = Output::to_writer(Box::new(ClosedPipe));
        let reporter = Reporter::new();
        crate::scheduler::run(&config, &output, &reporter);
        assert!(!reporter.errored(), "a closed pipe is not an error");
        // The first 256 KiB block (about 4,500 of these paths) fails; the listing
        // ends within the next batch.
        let seen = entries_seen(tmp.path());
        assert!(
            seen < (FILES / 3) as u64,
            "{seen} of {FILES} entries visited"
        );
    }

    /// A writer that collects everything into a shared buffer.
    struct SharedSink(std::sync::Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for SharedSink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A writer whose reader has gone away.
    struct ClosedPipe;

    impl std::io::Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    pub(super) fn after_open(path: &[u8]) {
        let target = REMOVE_AFTER_OPEN.lock().unwrap();
        if target.as_deref() == Some(path) {
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path));
            std::fs::remove_dir(path).expect("remove the directory under test");
        }
    }

    #[test]
    fn a_directory_removed_between_open_and_read_is_an_error_not_a_crash() {
        use crate::config::OutputMode;
        use crate::output::Output;
        use crate::report::Reporter;
        let tmp = tempfile::tempdir().unwrap();
        let doomed = tmp.path().join("doomed");
        std::fs::create_dir(&doomed).unwrap();
        std::fs::create_dir(tmp.path().join("kept")).unwrap();
        std::fs::write(tmp.path().join("kept/file"), b"").unwrap();
        *REMOVE_AFTER_OPEN.lock().unwrap() = Some(doomed.as_os_str().as_bytes().to_vec());
        for threads in [1, 4] {
            if !doomed.exists() {
                std::fs::create_dir(&doomed).unwrap();
            }
            let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
            config.output = OutputMode::Count;
            config.threads = threads;
            let reporter = Reporter::new();
            let output = Output::to_writer(Box::new(std::io::sink()));
            let summary = crate::scheduler::run(&config, &output, &reporter);
            assert!(reporter.errored(), "the failed listing must be reported");
            assert_eq!(summary.matches, 1, "the rest of the tree is still walked");
            assert!(!doomed.exists());
        }
        *REMOVE_AFTER_OPEN.lock().unwrap() = None;
    }

    #[test]
    fn root_prefixes_never_double_the_slash() {
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (b"dir", b"dir/", b"dir"),
            (b"dir/", b"dir/", b"dir/"),
            (b"/", b"/", b"/"),
            (b".", b"./", b"."),
            (b"", b"", b"."),
            (b"a//", b"a//", b"a//"),
        ];
        for &(root, prefix, display) in cases {
            let job = DirJob::root(root, PathState::default());
            assert_eq!(job.prefix, prefix);
            assert_eq!(job.display_path(), display);
            let child = job.child(b"sub", PathState::default());
            let mut want = prefix.to_vec();
            want.extend_from_slice(b"sub/");
            assert_eq!(child.prefix, want);
            assert_eq!(child.display_path(), &want[..want.len() - 1]);
        }
    }

    #[test]
    fn device_comparison_for_one_file_system() {
        // (root's device, directory's device, crosses)
        let cases: &[(Option<u64>, u64, bool)] = &[
            (None, 7, false), // the root itself sets the device
            (Some(7), 7, false),
            (Some(7), 8, true),
            (Some(0), u64::MAX, true),
        ];
        for &(root, dev, want) in cases {
            assert_eq!(crosses_device(root, dev), want, "{root:?} {dev}");
        }
    }

    #[test]
    fn loops_are_found_anywhere_on_the_path() {
        let root = Arc::new(DirId {
            dev: 1,
            ino: 2,
            parent: None,
        });
        let child = Arc::new(DirId {
            dev: 1,
            ino: 3,
            parent: Some(root.clone()),
        });
        let grandchild = Arc::new(DirId {
            dev: 9,
            ino: 2,
            parent: Some(child.clone()),
        });
        assert!(grandchild.is_on_path(9, 2)); // itself
        assert!(grandchild.is_on_path(1, 3)); // its parent
        assert!(grandchild.is_on_path(1, 2)); // the root
        assert!(!grandchild.is_on_path(1, 4));
        assert!(!grandchild.is_on_path(9, 3)); // same inode, other device
        assert!(!child.is_on_path(9, 2)); // a descendant is not on the path
    }

    #[test]
    fn records_for_each_output_mode() {
        let cases: &[(OutputMode, &[u8])] = &[
            (OutputMode::Paths { terminator: b'\n' }, b"dir/f\n"),
            (OutputMode::Paths { terminator: 0 }, b"dir/f\0"),
            (
                OutputMode::Long { terminator: b'\n' },
                b"          42 dir/f\n",
            ),
            (OutputMode::Long { terminator: 0 }, b"          42 dir/f\0"),
            (OutputMode::Count, b""),
            (OutputMode::SizeSum, b""),
        ];
        for &(mode, want) in cases {
            let mut buffer = Vec::new();
            push_record(&mut buffer, mode, [b"dir/", b"f"], 42);
            assert_eq!(buffer, want, "{mode:?}");
        }
        // Appending after existing bytes, through reallocations, with empty parts.
        let mut buffer = b"x".to_vec();
        buffer.shrink_to_fit();
        let mode = OutputMode::Paths { terminator: b'\n' };
        for _ in 0..100 {
            push_record(&mut buffer, mode, [b"", b"ab"], 0);
            push_record(&mut buffer, mode, [b"c/", b""], 0);
        }
        assert_eq!(buffer, [&b"x"[..], &b"ab\nc/\n".repeat(100)].concat());
    }
}
