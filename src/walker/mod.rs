//! One worker: take a directory from the pool, list it, filter its entries inline,
//! print or count the files that match, and queue its subdirectories.
//!
//! There is no second stage and no channel of paths: the per-file work (a few byte
//! comparisons and a copy into the output buffer) is far cheaper than any hand-off
//! between threads would be. Nothing on the per-entry path allocates: names are
//! borrowed from the reader's buffer, matches are appended to a per-worker buffer that
//! is handed to stdout in 256 KiB blocks, and only a subdirectory costs an allocation
//! (its path, which must outlive this directory).
//!
//! The rooms: [`job`] is what waits in the pool; this module is the worker's loop
//! (take a directory, open it, list it, queue its children) with the plain and the
//! gated listing; [`listings`] the other listings (`-t e`, a network filesystem's
//! batches, a giant directory's pieces); [`split`] when and where a giant
//! directory's listing is cut; [`visit`] decides, per entry, what it is and
//! whether it is printed, [`unknown`] asks the kind the listing did not give, and
//! [`emit`] hands matches to the output; with `-L`, [`loops`] keeps the chain of
//! directories on the path that loops are checked against.

mod emit;
mod indexed;
mod job;
mod listings;
mod loops;
mod opening;
mod recording;
mod split;
mod unknown;
mod unopened;
mod visit;
mod wire;

pub use job::{DirJob, Summary};
pub use split::STAT_LISTING_BUFFER;
pub use wire::{Roots, Unmade, WireJob, WirePiece};

use crate::config::Config;
use crate::descriptors::Anchor;
use crate::ignore::{Decision, DirRules, Gate, Listed, Marks};
use crate::index::{IndexRun, Recorder};
use crate::os::dirent::{DirReader, EntryKind, RawEntry};
use crate::os::stat::{lstat_at, Fields, Stat};
use crate::os::stat_many::lstat_all;
use crate::output::limit::MatchLimit;
use crate::output::pacing::ShallowFirst;
use crate::output::sink::Output;
use crate::queue::{Pool, WorkerSlot};
use crate::report::Reporter;
use job::{Inherited, Siblings};
use listings::{list_out_of_line, SharedListing};
use loops::DirId;
use opening::{identify, open_for_listing};
use split::Cutter;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Instant;
use visit::Visitor;

/// The state one worker thread owns for the whole walk.
pub struct Walker<'a> {
    reader: DirReader,
    /// The printed path of the directory being read, put together from its job.
    path: Vec<u8>,
    /// Whether this walk adds workers when directories wait on the disk (no `-j`).
    watch_disk: bool,
    /// Everything the per-entry code touches; a separate field from `reader` so the
    /// listing callback can borrow it while the reader is borrowed too.
    visitor: Visitor<'a>,
    /// `--ignore`, `--no-hidden`, `--ignore-file`: what decides which entries are
    /// left out, and the copy of each listing it is applied to.
    gate: Option<&'a Gate>,
    listing: Listing,
    /// `--index`: where listings may come from and what this worker recorded.
    index: Option<&'a IndexRun>,
    recorder: Recorder,
    /// `--index-trust` with nothing that needs a directory's descriptor (see
    /// [`unopened::needs_no_descriptor`]): a recorded directory is not even opened.
    trusted_unopened: bool,
    /// `--index` with nothing that needs a directory's descriptor: a recorded
    /// directory is checked with one `lstat` and not opened.
    checked_unopened: bool,
    /// The C string of a path that `lstat` is given (see `checked_unopened`).
    stat_path: Vec<u8>,
    /// The paths and lists of directories visited within their parent's turn
    /// (`trusted_unopened` and `checked_unopened`, see `unopened::visit_leaves`).
    inline_room: unopened::InlineRoom,
}

/// A directory's entries, copied out of the reader's buffer: with ignore rules, the
/// whole listing must be seen (for its `.gitignore`) before any entry is decided.
#[derive(Default)]
struct Listing {
    /// Each name followed by its NUL.
    names: Vec<u8>,
    /// Each entry's name's length with its NUL, and its kind: eight bytes an
    /// entry rather than sixteen with the name's end as a `usize`, since these
    /// buffers grow to the largest directory's listing (17,880 entries in a
    /// generated working copy: 35 page faults fewer, issue 39).
    entries: Vec<(u32, EntryKind)>,
    marks: Marks,
    /// The path an entry's rules are matched on, reused.
    scratch: Vec<u8>,
}

impl Listing {
    /// Its entries, as the listing gave them: each name with its NUL, and its kind.
    fn names_and_kinds(&self) -> impl Iterator<Item = (&[u8], EntryKind)> {
        let mut start = 0;
        self.entries.iter().map(move |&(len, kind)| {
            let end = start + len as usize;
            let name = &self.names[start..end];
            start = end;
            (name, kind)
        })
    }

    fn clear(&mut self) {
        self.names.clear();
        self.entries.clear();
        self.marks = Marks::default();
    }

    /// Appends `other`'s entries after its own.
    fn append(&mut self, other: &Listing) {
        self.names.extend_from_slice(&other.names);
        self.entries.extend_from_slice(&other.entries);
        let (marks, more) = (&mut self.marks, &other.marks);
        marks.gitignore |= more.gitignore;
        marks.dot_ignore |= more.dot_ignore;
        marks.fdignore |= more.fdignore;
        marks.dot_git |= more.dot_git;
    }

    fn push(&mut self, entry: &RawEntry<'_>) {
        let name = entry.name();
        self.marks.note(name);
        self.names.extend_from_slice(name);
        self.names.push(0);
        // A name is at most a few hundred bytes on every system (NAME_MAX).
        let len = u32::try_from(name.len() + 1).unwrap_or(u32::MAX);
        self.entries.push((len, entry.kind));
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
        shallow: &'a ShallowFirst,
    ) -> Walker<'a> {
        let watch_disk = config.spare_threads > 0;
        Walker {
            reader,
            path: Vec::new(),
            watch_disk,
            visitor: Visitor::new(config, pool, output, reporter, limit, shallow, watch_disk),
            gate: None,
            listing: Listing::default(),
            index: None,
            recorder: Recorder::default(),
            trusted_unopened: false,
            checked_unopened: false,
            stat_path: Vec::new(),
            inline_room: unopened::InlineRoom::default(),
        }
    }

    /// The walker, taking listings from `index` where it can (`--index`).
    /// Given after [`Self::with_gate`].
    pub fn with_index(mut self, index: Option<&'a IndexRun>) -> Walker<'a> {
        self.index = index;
        let unopened = index.is_some()
            && self.gate.is_none()
            && unopened::needs_no_descriptor(self.visitor.config);
        let trusting = index.is_some_and(IndexRun::trusting);
        self.trusted_unopened = unopened && trusting;
        // Answered from memory, no directory waits on the disk: two clock reads a
        // directory for nothing (5.9% of `--index-trust -e so` on `/usr`).
        self.watch_disk &= !self.trusted_unopened;
        self.checked_unopened = unopened && !trusting;
        let needle = index.and_then(|_| self.visitor.config.filter.name_needle());
        self.visitor.needle = needle.map(Box::new);
        self
    }

    /// The walker, leaving out what `gate` decides to skip.
    pub fn with_gate(mut self, gate: Option<&'a Gate>) -> Walker<'a> {
        self.gate = gate;
        self
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
                // Idle, its counts are published: a line asked for while it parks
                // has them.
                self.visitor.publish_progress();
                self.visitor.flush();
                // Parking is a wait of our own, not the disk's.
                self.visitor.disk_watch.reset();
            });
            let Some(job) = next else { break };
            self.walk_one(&job, slot);
        }
        self.visitor.publish_progress();
        self.visitor.flush();
        if let Some(index) = self.index {
            index.collect(std::mem::take(&mut self.recorder));
        }
        if let Some(run) = self.visitor.formatted.take().and_then(|r| r.into_kept()) {
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
    /// On a network filesystem one directory is enough, once a listing is done: a
    /// chain of them is walked faster by several workers, each taking the next level
    /// while the last one's listing still waits for its end (`share_mid_listing`).
    ///
    /// Only the first worker may call this, before any other worker runs: with no
    /// peer, every directory pending is in the frontier or this worker's own deque, so
    /// `next_job` never has a reason to park.
    pub fn run_until_shareable(&mut self, slot: &WorkerSlot<DirJob>) -> bool {
        let pool = self.visitor.pool;
        let _guard = pool.guard();
        let enough = if pool.latency_bound_listings() { 1 } else { 2 };
        let mut listed = false;
        self.visitor.alone = true;
        let shareable = loop {
            let queued = pool.queued_for(slot);
            if queued >= 2 || (listed && queued >= enough) {
                break true;
            }
            listed = true;
            match pool.next_job(slot, || {}) {
                Some(job) => self.walk_one(&job, slot),
                None => break false,
            }
        };
        self.visitor.alone = false;
        shareable
    }

    /// A root that is not walked but may itself match (a regular file, or a link
    /// that is not followed): an entry at depth 0, printed as `dir` then `name` (its
    /// path as typed, split before its last component), whose `stat` the scheduler
    /// has already taken.
    pub fn visit_root(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, stat: &Stat) {
        if self.visitor.config.files_from {
            return self.visit_listed(dir, name, kind, stat);
        }
        let visitor = &mut self.visitor;
        let filter = &visitor.config.filter;
        let scope = filter.scope(0, filter.root_path());
        let wanted = match kind {
            EntryKind::File => scope.files,
            EntryKind::Symlink => scope.links,
            kind if kind.is_special() => scope.specials && filter.types.accepts_special(kind),
            _ => false,
        };
        if wanted {
            visitor.visit_root(dir, name, kind, stat);
        }
    }

    /// `--files-from`: a listed entry, printed as `dir` then `name` (its path as
    /// listed), tested as a walk would test it where the list's paths were printed
    /// from (with no root given, so that they are the paths below it): its kind, `-E`
    /// and hidden names on each component (a walk would not have entered an
    /// excluded or hidden directory), `-p` on the whole path, and then what every
    /// entry is tested on. A directory is a candidate itself and is not listed, but
    /// to tell whether it is empty (`-t e`).
    fn visit_listed(&mut self, dir: &[u8], name: &[u8], kind: EntryKind, stat: &Stat) {
        let config = self.visitor.config;
        let filter = &config.filter;
        let wanted = match kind {
            EntryKind::File => filter.types.files,
            EntryKind::Dir => filter.dirs_may_match(),
            EntryKind::Symlink => filter.links_may_match(),
            kind => filter.specials_may_match() && filter.types.accepts_special(kind),
        };
        let path = [dir, name].concat();
        let components = path.split(|&b| b == b'/');
        let left_out = |part: &[u8]| {
            let hidden = config.ignore.skip_hidden
                && part.starts_with(b".")
                && part != b"."
                && part != b"..";
            hidden || filter.is_excluded(part)
        };
        if !wanted || components.into_iter().any(left_out) {
            return;
        }
        if filter
            .path
            .as_ref()
            .is_some_and(|glob| !glob.matches_joined(&path))
        {
            return;
        }
        if kind == EntryKind::Dir && filter.types.empty_only && !is_empty_dir(&path) {
            return;
        }
        self.visitor.visit_listed(dir, name, kind, stat);
    }

    /// True when the last directory this worker listed (alone, before any other
    /// worker started) blocked in the kernel: the tree is not in the page cache.
    pub fn listed_cold(&self) -> bool {
        self.watch_disk && self.visitor.disk_watch.last_blocked()
    }

    /// True when the directories this worker walked so far (alone, the root) were
    /// answered from the index rather than listed: on a network filesystem the
    /// first one's wait was then an open and a stat, not a listing's round trips
    /// (see `threads::as_listing_wait`).
    pub fn answered_from_index(&self) -> bool {
        self.index.is_some() && self.recorder.is_empty()
    }

    /// Hands what this worker has buffered to the output now (the scheduler prints
    /// the roots given as files before the walk starts).
    pub fn flush(&mut self) {
        self.visitor.flush();
    }

    fn walk_one(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        let depth = job.depth();
        self.visitor.before_directory(depth);
        let pool = self.visitor.pool;
        if self.watch_disk && pool.can_grow() {
            let started = Instant::now();
            self.walk_listed(job, slot);
            let waited = self.visitor.disk_watch.waited(started.elapsed());
            match pool.latency_tally() {
                // On a network filesystem every blocked interval is counted, and the
                // thread that starts workers steps on the sums
                // (`threads::latency_step`) rather than one more worker per wait.
                Some(tally) => self.visitor.count_interval(tally),
                None if waited || self.visitor.config.assume_disk_waits => pool.ask_for_worker(),
                None => {}
            }
        } else {
            self.walk_listed(job, slot);
        }
        self.visitor.answer_progress();
        pool.finish_dir();
        self.visitor.after_directory(depth);
    }

    /// Walks the directory of `job`: [`Self::walk_dir`], compiled once without the
    /// index and once with it, so that a walk without it runs the code it ran
    /// before the index existed: one test of an `Option` in `walk_dir` cost the
    /// default walk 10 instructions a directory (callgrind, `/usr -j1 -c`).
    #[inline(always)]
    fn walk_listed(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        match self.index {
            None => self.walk_dir::<false>(job, slot),
            Some(_) => self.walk_indexed(job, slot),
        }
    }

    /// [`Self::walk_dir`] with the index, after `--index-trust` has had its chance
    /// to answer without opening the directory.
    #[inline(never)]
    fn walk_indexed(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        let answered = match (self.trusted_unopened, self.checked_unopened) {
            (true, _) => self.list_unopened(job, slot),
            (false, true) => self.list_checked_unopened(job, slot),
            (false, false) => false,
        };
        if !answered {
            self.walk_dir::<true>(job, slot)
        }
        // The output's pacing reads the clock less often after such directories.
        let unopened = answered && self.trusted_unopened;
        self.visitor.pacing.answered_without_system_call(unopened);
    }

    /// `--index`: a recorded directory answered from the index after one `lstat`
    /// (see [`unopened::list_checked_unopened`]).
    fn list_checked_unopened(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) -> bool {
        let Some(index) = self.index else {
            return false;
        };
        let dir = job.enter(&mut self.path, &self.visitor.config.filter);
        let recorded = (index, &mut self.recorder);
        unopened::list_checked_unopened(
            &mut self.visitor,
            recorded,
            job,
            &dir,
            slot,
            (&mut self.stat_path, &mut self.inline_room),
        )
    }

    /// `--index-trust`: the directory answered from the index without opening it,
    /// if it can be (see [`unopened::list_unopened`]).
    fn list_unopened(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) -> bool {
        let Some(index) = self.index else {
            return false;
        };
        let dir = job.enter(&mut self.path, &self.visitor.config.filter);
        let room = &mut self.inline_room;
        unopened::list_unopened(&mut self.visitor, index, job, &dir, slot, room)
    }

    /// Opens the directory of `job`, lists it (`INDEXED`: with the index) and
    /// queues its subdirectories.
    fn walk_dir<const INDEXED: bool>(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        let Walker {
            reader,
            path,
            visitor,
            gate,
            listing,
            index,
            recorder,
            ..
        } = self;
        let config = visitor.config;
        let dir = job.enter(path, &config.filter);
        let Some(dir_fd) = open_for_listing(job, &dir, visitor, reader) else {
            return;
        };
        let fd = dir_fd.as_raw_fd();
        let identified = match visitor.identify_dirs {
            true => identify(job, &dir, fd, visitor),
            false => Some((job.root_dev(), false)),
        };
        let Some((root_dev, crossing)) = identified else {
            return;
        };
        // `--ignore-contain` on a root (its subdirectories were tested when found).
        let markers = &config.filter.ignore_contain;
        if dir.depth == 0 && markers.iter().any(|marker| visit::holds(fd, marker)) {
            return;
        }
        visitor.enter(&dir);
        // Seen between batches of entries, so that `-1` or a closed pipe ends the walk
        // inside a directory of a million entries too, not only between directories.
        let pool = visitor.pool;
        let stop = pool.stop_flag();
        let mut rules = None;
        let shared = SharedListing {
            dir: &dir,
            fd,
            job,
            slot,
            root_dev,
            crossing,
        };
        // `--index` (one test of an `Option`), then `-t e` and a network filesystem,
        // out of line: in any other place the branch cost the plain listing of a
        // local walk more (see `list_out_of_line`).
        let listed = if let Some(index) = index.filter(|_| INDEXED) {
            let here = indexed::Here {
                job,
                dir: &dir,
                fd,
                crossing,
                alone: visitor.alone,
            };
            let index = (index, recorder);
            indexed::list(reader, listing, visitor, index, *gate, &mut rules, here)
        } else if gate.is_none()
            && (job.print_if_empty() || pool.latency_bound_listings() || job.piece().is_some())
        {
            list_out_of_line(reader, visitor, shared, visitor.alone)
        } else if let Some(gate) = *gate {
            let (listed, read) = list_gated(gate, listing, reader, visitor, shared);
            rules = read;
            listed
        } else {
            // Built only where a batch filled the buffer: made before the listing,
            // the cutter cost every directory of a local walk 20 instructions.
            let (pool, config, shallow, alone) = (pool, config, visitor.shallow, visitor.alone);
            let mut examined = 0;
            let mut watch = None;
            let listed = reader.read_splittable(
                fd,
                stop,
                |entry| visitor.visit(&dir, fd, entry),
                (config.stats || config.count_examined).then_some(&mut examined),
                move |filled| {
                    let cutter = Cutter::new((pool, config, shallow), job, slot, alone);
                    // Local listings are cut after any full batch (the count
                    // matters only on a network filesystem).
                    cutter.offer_rest_of_listing(fd, filled, 1, &mut watch)
                },
            );
            visitor.found.examined += examined;
            listed
        };
        visitor.visit_unknown(&dir, fd);
        if let Err(err) = listed {
            visitor.reporter.path_error(dir.display_path(), &err);
        }
        if !visitor.children.is_empty() {
            let (anchor, anchor_is_parent) = children_anchor(Ok(dir_fd), &dir, job);
            let inherited = Inherited {
                anchor,
                anchor_is_parent,
                id: visitor.here.id.clone(),
                root_dev,
                rules,
            };
            queue_children(visitor, &dir, slot, inherited);
        }
    }
}

/// The listing through the ignore rules' gate (`--ignore`): every entry first,
/// then the directory's rules (read only if its entries are visited), then the
/// entries the rules leave. The rules read, for its subdirectories.
#[inline(never)]
fn list_gated(
    gate: &Gate,
    listing: &mut Listing,
    reader: &mut DirReader,
    visitor: &mut Visitor<'_>,
    shared: SharedListing<'_>,
) -> (std::io::Result<()>, Option<Arc<DirRules>>) {
    let SharedListing {
        dir,
        fd,
        job,
        crossing,
        ..
    } = shared;
    listing.clear();
    let listed = reader.read(fd, visitor.pool.stop_flag(), |entry| {
        if !entry.is_dot_or_dotdot() {
            listing.push(&entry);
        }
    });
    visit_gated_listing(gate, job, dir, fd, listing, visitor, crossing, listed)
}

/// Queues the subdirectories `visitor` collected in the listing of `dir`, with what
/// they inherit from it. Inlined: a call cost the local walk 1% more instructions.
#[inline(always)]
fn queue_children(
    visitor: &mut Visitor<'_>,
    dir: &job::Dir<'_>,
    slot: &WorkerSlot<DirJob>,
    inherited: Inherited,
) {
    if dir.depth == 0 {
        visitor.shallow.queued(visitor.children.len());
    }
    visitor.queued_dirs += visitor.children.len() as u64;
    let jobs = Siblings::queue(
        dir,
        inherited,
        &visitor.child_names,
        visitor.children.drain(..),
    );
    visitor.pool.push_dirs(slot, dir.depth + 1, jobs);
    visitor.child_names.clear();
}

/// The anchor the subdirectories of `dir` are opened from, and whether it is their
/// parent: `dir_fd` kept open for them if there is one and the descriptor budget
/// allows; otherwise the anchor `job` was opened from, by a longer path.
#[inline(always)]
fn children_anchor(
    dir_fd: std::io::Result<std::os::fd::OwnedFd>,
    dir: &job::Dir<'_>,
    job: &DirJob,
) -> (Option<Arc<Anchor>>, bool) {
    match dir_fd.map(|fd| Anchor::keep(fd, dir.prefix.len())) {
        Ok(Ok(anchor)) => (Some(anchor), true),
        _closed_on_drop => (job.anchor().cloned(), false),
    }
}

/// The entries of `listing`, the whole listing of `dir` (open as `fd`; `listed` is
/// how its reading ended), as `gate` leaves them, to the visitor; with `-t e`, the
/// directory itself if it is empty. Returns `listed` and the rules in force in the
/// directory, if its entries were visited.
#[allow(clippy::too_many_arguments)]
fn visit_gated_listing(
    gate: &Gate,
    job: &DirJob,
    dir: &job::Dir<'_>,
    fd: std::os::fd::RawFd,
    listing: &mut Listing,
    visitor: &mut Visitor<'_>,
    crossing: bool,
    listed: std::io::Result<()>,
) -> (std::io::Result<()>, Option<Arc<DirRules>>) {
    let config = visitor.config;
    let pool = visitor.pool;
    let mut rules = None;
    visitor.found.examined += listing.entries.len() as u64;
    let visit_entries = dir.depth < config.filter.max_depth && !crossing;
    // Rules are read only for a directory whose entries are visited.
    if visit_entries {
        let here = gated_rules(gate, job, dir, fd, listing.marks, visitor.reporter);
        visit_gated(gate, &here, listing, visitor, dir, fd);
        rules = Some(here.0);
    }
    // A listing cut short by the stop proves nothing about emptiness.
    if job.print_if_empty() && listed.is_ok() && listing.entries.is_empty() && !pool.is_stopped() {
        visitor.match_empty_dir(dir, fd);
    }
    (listed, rules)
}

/// The rules in force in the directory `dir` (open as `fd`) of `job`, and whether
/// it is walked for git's tracked paths only.
fn gated_rules(
    gate: &Gate,
    job: &DirJob,
    dir: &job::Dir<'_>,
    fd: std::os::fd::RawFd,
    marks: Marks,
    reporter: &Reporter,
) -> (Arc<DirRules>, bool) {
    let parent = job
        .rules()
        .expect("every job of a gated walk carries rules");
    if job.is_root() {
        return (parent.clone(), false);
    }
    let listed = Listed {
        fd,
        path: dir.display_path(),
        below_root: &dir.prefix[dir.below_root()..],
        marks,
    };
    gate.enter(parent, listed, job.tracked_only(), reporter)
}

/// Hands the entries of `listing` that `gate` keeps to the visitor.
#[inline(never)]
fn visit_gated(
    gate: &Gate,
    (rules, tracked_only): &(Arc<DirRules>, bool),
    listing: &mut Listing,
    visitor: &mut Visitor<'_>,
    dir: &job::Dir<'_>,
    fd: std::os::fd::RawFd,
) {
    // On a network filesystem every `stat` is a round trip: the untyped entries are
    // asked all at once, as the visitor does where no rules apply.
    if visitor.pool.latency_bound_listings() {
        ask_untyped_kinds(listing, fd);
    }
    let below_root = &dir.prefix[dir.below_root()..];
    let mut start = 0;
    for &(len, kind) in &listing.entries {
        let end = start + len as usize;
        let name_with_nul = &listing.names[start..end];
        start = end;
        let mut entry = RawEntry::from_name_with_nul(name_with_nul, kind);
        // Rules that end in `/` need to know a directory when they see one.
        if entry.kind == EntryKind::Unknown {
            if let Some(probe) = crate::probe::installed() {
                probe.stat_asked_alone(dir.prefix);
            }
            match lstat_at(fd, entry.name_cstr(), Fields::TYPE) {
                Ok(stat) => entry.kind = EntryKind::from_mode(stat.mode()),
                Err(err) => {
                    let path = dir.entry_path(entry.name());
                    visitor.reporter.path_error(&path, &err);
                    continue;
                }
            }
        }
        let decision = gate.decide(
            rules,
            below_root,
            entry.name(),
            entry.kind,
            *tracked_only,
            &mut listing.scratch,
            visitor.reporter,
        );
        if decision == Decision::Skip {
            continue;
        }
        visitor.here.child_tracked_only = decision == Decision::KeepTracked;
        visitor.visit_out_of_line(dir, fd, entry);
    }
    visitor.here.child_tracked_only = false;
}

/// The kinds of `listing`'s untyped entries, asked all at once (`os::stat_many`).
/// An entry whose `stat` failed stays untyped: asked again alone, its error is
/// reported where every other is.
fn ask_untyped_kinds(listing: &mut Listing, fd: std::os::fd::RawFd) {
    let mut untyped = Vec::new();
    let mut names = Vec::new();
    let mut start = 0;
    for (index, &(len, kind)) in listing.entries.iter().enumerate() {
        let end = start + len as usize;
        if kind == EntryKind::Unknown {
            if let Ok(name) = std::ffi::CStr::from_bytes_with_nul(&listing.names[start..end]) {
                untyped.push(index);
                names.push(name);
            }
        }
        start = end;
    }
    if names.is_empty() {
        return;
    }
    for (index, stat) in untyped.into_iter().zip(lstat_all(fd, &names)) {
        if let Ok(stat) = stat {
            listing.entries[index].1 = EntryKind::from_mode(stat.mode());
        }
    }
}

/// `-x`: true when a directory on device `dev` is on another file system than the
/// root it was reached from (`root_dev`; `None` for the root itself).
pub fn crosses_device(root_dev: Option<u64>, dev: u64) -> bool {
    root_dev.is_some_and(|root| root != dev)
}

/// `--files-from -t e`: whether the directory at `path` has no entry (one that
/// cannot be read is not known to be empty).
fn is_empty_dir(path: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::OsStr::from_bytes(path);
    std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::output::{Output, OutputMode};
    use crate::report::Reporter;
    use listings::share_mid_listing;
    use std::io;
    use std::os::unix::ffi::OsStrExt;
    use std::sync::Mutex;

    /// A directory path whose opening triggers `rmdir` of that directory, to make
    /// `getdents64` fail after a successful `open` (the kernel answers ENOENT for a
    /// directory removed while open).
    static REMOVE_AFTER_OPEN: Mutex<Option<Vec<u8>>> = Mutex::new(None);
    /// A directory whose opening makes its worker panic (`a_panic_on_a_network_root_ends_the_walk`).
    static PANIC_AFTER_OPEN: Mutex<Option<Vec<u8>>> = Mutex::new(None);
    /// Every directory a worker opened to list, by printed path, once the probe is
    /// installed.
    static OPENED: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

    /// Times a listing shared its subdirectories before it ended, in the whole test
    /// binary (only the tests that ask for it share mid-listing).
    static SHARED_MID_LISTING: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    /// A tree whose listings are read as a filesystem without file types gives them
    /// (every entry `DT_UNKNOWN`): directories whose printed path starts with this.
    static TYPES_HIDDEN_UNDER: Mutex<Option<Vec<u8>>> = Mutex::new(None);
    static TYPES_HIDDEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    /// Entries of that tree whose `stat` was asked alone, not with the listing's others.
    static STATS_ASKED_ALONE: std::sync::atomic::AtomicUsize =
        std::sync::atomic::AtomicUsize::new(0);

    pub(crate) fn types_hidden(prefix: &[u8]) -> bool {
        TYPES_HIDDEN.load(std::sync::atomic::Ordering::Relaxed)
            && TYPES_HIDDEN_UNDER
                .lock()
                .unwrap()
                .as_ref()
                .is_some_and(|root| prefix.starts_with(root))
    }

    pub(crate) fn stat_asked_alone(prefix: &[u8]) {
        if types_hidden(prefix) {
            STATS_ASKED_ALONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub(crate) fn shared_mid_listing(before_the_end: bool) {
        if before_the_end {
            SHARED_MID_LISTING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// `find ROOT -type f -print0`'s output: the oracle of the walks below.
    fn find_files(root: &std::path::Path) -> Vec<u8> {
        let found = std::process::Command::new("find")
            .arg(root)
            .args(["-type", "f", "-print0"])
            .output()
            .expect("find");
        assert!(found.status.success());
        found.stdout
    }

    /// The NUL-terminated paths of `printed`, sorted.
    fn sorted_paths(printed: &[u8]) -> Vec<&[u8]> {
        let mut paths: Vec<&[u8]> = printed.split(|&b| b == 0).collect();
        paths.pop();
        paths.sort_unstable();
        paths
    }

    /// A directory of many files with long names (so output blocks fill quickly).
    fn big_flat_dir(files: usize) -> tempfile::TempDir {
        let tmp = crate::scratch::big_tree_dir();
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
            // Entries read from listings, counted per batch.
            config.stats = true;
            let printed = std::sync::Arc::new(Mutex::new(Vec::new()));
            let output = Output::to_writer(Box::new(SharedSink(printed.clone())));
            let reporter = Reporter::new();
            let summary = crate::scheduler::run(&config, &output, &reporter);
            assert_eq!(summary.matches, 3);
            assert_eq!(printed.lock().unwrap().split(|&b| b == b'\n').count(), 4);
            let seen = summary.examined;
            // One 64 KiB getdents64 batch holds about a thousand of these entries.
            assert!(
                seen < (FILES / 4) as u64,
                "{seen} of {FILES} entries visited"
            );
        }
    }

    /// Subdirectories shared between two batches of a listing (as on a network
    /// filesystem, forced here on a local tree): every file is printed exactly once,
    /// as `find` lists them, on directories of several `getdents64` batches, whatever
    /// the workers; and a pool of one never shares mid-listing.
    #[test]
    fn subdirectories_shared_mid_listing_are_walked_exactly_once() {
        crate::probe::tests::install();
        let tmp = crate::scratch::big_tree_dir();
        // Two levels of directories of about 3,000 entries (three 64 KiB batches of
        // these names), a tenth of them subdirectories with files of their own.
        let mut dirs = vec![tmp.path().to_path_buf()];
        for level in 0..2 {
            let parent = dirs[level].clone();
            for i in 0..3_000 {
                let name = parent.join(format!("entry_{i:05}_{}", "n".repeat(24)));
                if i % 10 == 0 {
                    std::fs::create_dir(&name).unwrap();
                    std::fs::write(name.join("inner"), b"").unwrap();
                    if i == 0 {
                        dirs.push(name);
                    }
                } else {
                    std::fs::write(name, b"").unwrap();
                }
            }
        }
        let found = find_files(tmp.path());
        let expected = sorted_paths(&found);
        assert_eq!(expected.len(), 2 * 2_700 + 2 * 300);
        for threads in [1, 2, 8] {
            let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
            config.output = OutputMode::Paths { terminator: 0 };
            config.threads = threads;
            config.spare_threads = 0;
            config.exact_threads = true;
            config.share_mid_listing = true;
            let printed = std::sync::Arc::new(Mutex::new(Vec::new()));
            let output = Output::to_writer(Box::new(SharedSink(printed.clone())));
            let reporter = Reporter::new();
            let before = SHARED_MID_LISTING.load(std::sync::atomic::Ordering::Relaxed);
            crate::scheduler::run(&config, &output, &reporter);
            let shared = SHARED_MID_LISTING.load(std::sync::atomic::Ordering::Relaxed) - before;
            assert!(!reporter.errored(), "-j {threads}");
            let printed = printed.lock().unwrap();
            let paths = sorted_paths(&printed);
            assert!(paths == expected, "-j {threads}: {} paths", paths.len());
            if threads == 1 {
                assert_eq!(shared, 0, "a lone worker takes its subdirectories itself");
            } else {
                // Each big directory shares after each of its first batches.
                assert!(shared >= 4, "-j {threads}: shared {shared} times");
            }
        }
    }

    /// The decision: between two batches, only on a network filesystem, only with
    /// something found, and only where another worker may take it.
    #[test]
    fn sharing_mid_listing_needs_round_trips_a_find_and_a_peer() {
        assert!(share_mid_listing(true, 1, 2));
        assert!(share_mid_listing(true, 300, 256));
        assert!(
            !share_mid_listing(false, 300, 256),
            "a local disk waits for no batch"
        );
        assert!(!share_mid_listing(true, 0, 256), "nothing found yet");
        assert!(!share_mid_listing(true, 300, 1), "a pool of one");
    }

    /// `-p`: a directory below which the pattern can match nothing is never listed.
    #[test]
    fn full_path_lists_only_directories_that_can_lead_to_a_match() {
        use crate::filter::path::PathGlob;
        crate::probe::tests::install();
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["src/a", "lib/src", "src_old"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
            std::fs::write(tmp.path().join(dir).join("x.rs"), b"").unwrap();
        }
        let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
        config.threads = 1;
        config.output = OutputMode::Count;
        let path = PathGlob::new(b"src/**/*.rs", false).unwrap();
        config
            .filter
            .add_name_pattern(crate::filter::pattern::Pattern::Glob(
                path.last().unwrap().clone(),
            ));
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
            OPENED.lock().unwrap().iter().any(|p| p == path)
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
        // Entries read from listings, counted per batch.
        config.stats = true;
        let output = Output::to_writer(Box::new(ClosedPipe));
        let reporter = Reporter::new();
        let summary = crate::scheduler::run(&config, &output, &reporter);
        assert!(!reporter.errored(), "a closed pipe is not an error");
        // The first 256 KiB block (about 4,500 of these paths) fails; the listing
        // ends within the next batch.
        let seen = summary.examined;
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

    pub(crate) fn after_open(path: &[u8]) {
        OPENED.lock().unwrap().push(path.to_vec());
        if PANIC_AFTER_OPEN.lock().unwrap().as_deref() == Some(path) {
            panic!("a worker panics under test");
        }
        let target = REMOVE_AFTER_OPEN.lock().unwrap();
        if target.as_deref() == Some(path) {
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path));
            std::fs::remove_dir(path).expect("remove the directory under test");
        }
    }

    #[test]
    fn a_directory_removed_between_open_and_read_is_an_error_not_a_crash() {
        crate::probe::tests::install();
        use crate::output::Output;
        use crate::output::OutputMode;
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

    /// A worker that panics on a network root, where a thread of its own starts the
    /// workers until the walk is over: the walk ends with the panic, it does not wait
    /// for that thread forever. One CPU, so that the panicking worker is the first.
    #[test]
    fn a_panic_on_a_network_root_ends_the_walk() {
        crate::probe::tests::install();
        use crate::output::Output;
        use crate::output::OutputMode;
        use crate::report::Reporter;
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["a/deep", "b", "c"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        let doomed = tmp.path().join("a/deep");
        *PANIC_AFTER_OPEN.lock().unwrap() = Some(doomed.as_os_str().as_bytes().to_vec());
        let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
        config.output = OutputMode::Count;
        config.threads = 1;
        config.assume_network = true;
        let walk = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let output = Output::to_writer(Box::new(std::io::sink()));
            crate::scheduler::run(&config, &output, &Reporter::new())
        }));
        *PANIC_AFTER_OPEN.lock().unwrap() = None;
        assert!(walk.is_err(), "the worker's panic is the walk's");
    }

    /// A tree listed without file types (forced here on a local tree, one test at a
    /// time under one lock): every file printed exactly once, as `find` lists them,
    /// at 1, 2 and 4 CPUs. On a network root no entry's `stat` is asked alone: each
    /// waits for its listing's others, to be asked with them; on a local root, where
    /// a `stat` is quick, they are asked one at a time (the first at least).
    #[test]
    fn a_network_root_without_types_asks_every_stat_with_its_listing() {
        crate::probe::tests::install();
        let tmp = tempfile::tempdir().unwrap();
        for d in 0..12 {
            let dir = tmp.path().join(format!("d{d}/sub"));
            std::fs::create_dir_all(&dir).unwrap();
            for f in 0..(d * 7) {
                std::fs::write(dir.join(format!("f{f}")), b"").unwrap();
                std::fs::write(dir.parent().unwrap().join(format!("g{f}")), b"").unwrap();
            }
        }
        std::os::unix::fs::symlink("d1", tmp.path().join("link")).unwrap();
        let found = find_files(tmp.path());
        let expected = sorted_paths(&found);
        let mut root = tmp.path().as_os_str().as_bytes().to_vec();
        root.push(b'/');
        *TYPES_HIDDEN_UNDER.lock().unwrap() = Some(root);
        TYPES_HIDDEN.store(true, std::sync::atomic::Ordering::Relaxed);
        for (network, gated) in [(true, false), (true, true), (false, false), (false, true)] {
            for threads in [1, 2, 4] {
                let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
                config.output = OutputMode::Paths { terminator: 0 };
                config.threads = threads;
                config.assume_network = network;
                // Through the ignore rules' gate (no hidden names here: the same files).
                config.ignore.skip_hidden = gated;
                let printed = std::sync::Arc::new(Mutex::new(Vec::new()));
                let output = Output::to_writer(Box::new(SharedSink(printed.clone())));
                let reporter = Reporter::new();
                let alone_before = STATS_ASKED_ALONE.load(std::sync::atomic::Ordering::Relaxed);
                crate::scheduler::run(&config, &output, &reporter);
                let alone =
                    STATS_ASKED_ALONE.load(std::sync::atomic::Ordering::Relaxed) - alone_before;
                assert!(!reporter.errored());
                let printed = printed.lock().unwrap();
                let paths = sorted_paths(&printed);
                assert!(
                    paths == expected,
                    "network {network}, gated {gated}, {threads} CPUs: {} paths",
                    paths.len()
                );
                if network {
                    assert_eq!(alone, 0, "gated {gated}, {threads} CPUs: stats asked alone");
                } else {
                    // At least each worker's first: how many more depends on how
                    // long each `stat` took (SLOW_STAT), which a busy machine sets.
                    assert!(alone > 0, "gated {gated}, {threads} CPUs: none asked alone");
                }
            }
        }
        TYPES_HIDDEN.store(false, std::sync::atomic::Ordering::Relaxed);
        *TYPES_HIDDEN_UNDER.lock().unwrap() = None;
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
}
