//! Directories answered from the index without being opened (`--index`, see
//! `index`): under `--index-trust` a recorded directory's entries are visited
//! with no system call, and its recorded subdirectories within its turn; under
//! the checked `--index` one `lstat` from an open ancestor stands for opening,
//! checking and closing it, and on a local filesystem its subdirectories are
//! checked and visited within its turn too. Only where nothing in the search needs a
//! directory's descriptor ([`needs_no_descriptor`]); the visit of a record's
//! entries is `indexed`'s, the same as for a directory opened and checked.

use super::indexed::{recorded, visit_record, Files};
use super::job::{Dir, DirJob, Inherited};
use super::queue_children;
use super::visit::Visitor;
use crate::config::Config;
use crate::index::format::{Record, Stamps};
use crate::index::{DirTimes, IndexRun, Lookup, Recorder, RootKey};
use crate::os::dirent::EntryKind;
use crate::queue::WorkerSlot;

/// True when a walk under `config` (without ignore rules) needs no directory's
/// descriptor besides opening its subdirectories: no `stat` of an entry (no size,
/// time, owner, `-t x`/`e`, `-l`, links followed), no marker to look for, no
/// device to compare. `--index-trust` then answers for a recorded directory
/// without opening it, as locate answers from its database.
pub(super) fn needs_no_descriptor(config: &Config) -> bool {
    use EntryKind::*;
    let kinds = [File, Dir, Symlink, Fifo, Socket, CharDevice, BlockDevice];
    !config.follow
        && !config.one_file_system
        && !config.force_stat
        && config.filter.ignore_contain.is_empty()
        && !config.filter.types.empty_only
        && !kinds.into_iter().any(|kind| config.needs_stat(kind))
}

/// `--index-trust` on a directory the index holds, when nothing needs its
/// descriptor: its recorded entries visited and its subdirectories queued, with
/// no system call. False (nothing done) when the index lacks it, or lacks a kind
/// of one of its entries (which a `stat` would have to tell).
pub(super) fn list_unopened(
    visitor: &mut Visitor<'_>,
    index: &IndexRun,
    job: &DirJob,
    dir: &Dir<'_>,
    slot: &WorkerSlot<DirJob>,
    room: &mut InlineRoom,
) -> bool {
    let Some(record) = unopened_record(index, job, dir) else {
        return false;
    };
    let Some(root) = index.root_key(job.siblings().root_identity()) else {
        return false;
    };
    if room.levels.is_empty() {
        room.levels.resize_with(INLINE_NESTING, Level::default);
    }
    let leaves = Leaves {
        index,
        root,
        path: &mut room.leaf_path,
        levels: &mut room.levels,
        checks: None,
    };
    visit_unopened(visitor, &record, job, dir, slot, Some(leaves));
    true
}

/// `--index-trust`: what [`visit_leaves`] needs to visit the leaves among the
/// subdirectories of a directory answered unopened.
pub(super) struct Leaves<'l> {
    index: &'l IndexRun,
    root: RootKey,
    /// A leaf's printed path and a `/`, put together here.
    path: &'l mut Vec<u8>,
    /// Room for the subdirectories that are not leaves, each visited at once
    /// within its parent's visit, one level each: none left, they are queued.
    levels: &'l mut [Level],
    /// The checked `--index`: each subdirectory's stamps checked first.
    checks: Option<Checks<'l>>,
}

impl Leaves<'_> {
    /// These leaves for one level deeper, in `levels`.
    fn deeper<'d>(&'d mut self, levels: &'d mut [Level]) -> Leaves<'d> {
        Leaves {
            index: self.index,
            root: self.root,
            path: &mut *self.path,
            levels,
            checks: self.checks.as_mut().map(Checks::again),
        }
    }
}

/// The checked `--index` on a local filesystem: what [`visit_leaves`] needs to
/// check a subdirectory as its own job would ([`list_checked_unopened`]) before
/// visiting it within its parent's turn. On `/usr` the repeat with nothing
/// changed spent 12.1 ms of user time at `-j 1` and 14.5 to 15.8 at `-j 2`
/// (perf stat): a job a directory, queued, taken and entered, often by the
/// other worker.
pub(super) struct Checks<'c> {
    recorder: &'c mut Recorder,
    /// The open ancestor every subdirectory's path is looked up from.
    anchor: &'c crate::descriptors::Anchor,
    /// A subdirectory's path below `anchor`, with its NUL.
    below: &'c mut Vec<u8>,
}

impl Checks<'_> {
    fn again(&mut self) -> Checks<'_> {
        Checks {
            recorder: &mut *self.recorder,
            anchor: self.anchor,
            below: &mut *self.below,
        }
    }

    /// True when the subdirectory `name` of the unopened directory printed as
    /// `dir_prefix` checks out against `record`, as [`list_checked_unopened`]
    /// checks a job's directory: on a local filesystem, not better opened, a
    /// directory still, with the stamps recorded. False leaves it to be queued,
    /// and checked or listed as its own job.
    fn pass(
        &mut self,
        index: &IndexRun,
        record: &Record<'_>,
        dir_prefix: &[u8],
        name: &[u8],
    ) -> bool {
        let Some(dir_below) = dir_prefix.get(self.anchor.prefix_len()..) else {
            return false;
        };
        // On a network filesystem each check is a round trip: those are kept in
        // flight on workers of their own.
        if self.recorder.known_trust(index, record.stamps.dev) != Some(DirTimes::Local) {
            return false;
        }
        self.below.clear();
        self.below.extend_from_slice(dir_below);
        self.below.extend_from_slice(name);
        if opening_pays(self.below, subdirs_of(record)) {
            return false;
        }
        self.below.push(0);
        let Ok(path) = std::ffi::CStr::from_bytes_with_nul(self.below) else {
            return false;
        };
        let fields = DirTimes::Local.stamp_fields();
        let Some(Ok(stat)) = crate::descriptors::lstat_in(self.anchor, path, fields) else {
            return false;
        };
        EntryKind::from_mode(stat.mode()) == EntryKind::Dir
            && matches!(
                index.check(Some(*record), Some(Stamps::of(&stat)), true),
                Lookup::Use(_)
            )
    }
}

/// How many of `record`'s entries are directories.
fn subdirs_of(record: &Record<'_>) -> usize {
    let dir_byte = crate::index::format::kind_byte(EntryKind::Dir);
    record
        .kinds
        .iter()
        .filter(|&&kind| kind == dir_byte)
        .count()
}

/// How deep subdirectories that are not leaves are visited within their
/// parent's turn, at most: each is a frame on the worker's stack.
const INLINE_NESTING: usize = 24;

/// What a worker keeps for `--index-trust`'s visits of subdirectories within
/// their parent's turn ([`visit_leaves`]), so that they allocate nothing.
#[derive(Default)]
pub(super) struct InlineRoom {
    leaf_path: Vec<u8>,
    levels: Vec<Level>,
}

/// One level of subdirectories visited at once: where its parent's lists wait
/// meanwhile, and its own path.
#[derive(Default)]
struct Level {
    children: Vec<super::job::Child>,
    child_names: Vec<u8>,
    path: Vec<u8>,
}

/// `--index` on a recorded directory, when nothing needs its descriptor (see
/// [`needs_no_descriptor`]): its stamps are read with one `lstat` from the nearest
/// open ancestor its job holds as its anchor (one name when that is its parent,
/// else the path below it: every directory between was checked against the index
/// just before, and not opened either), and if they are those recorded, its
/// entries are visited and its subdirectories queued without opening it. One
/// system call where opening, checking and closing it took three (a mount over it
/// shows its own device). False (nothing done) when it cannot be answered so.
pub(super) fn list_checked_unopened(
    visitor: &mut Visitor<'_>,
    (index, recorder): (&IndexRun, &mut Recorder),
    job: &DirJob,
    dir: &Dir<'_>,
    slot: &WorkerSlot<DirJob>,
    (scratch, room): (&mut Vec<u8>, &mut InlineRoom),
) -> bool {
    let Some(anchor) = job.anchor() else {
        return false;
    };
    let Some(record) = unopened_record(index, job, dir) else {
        return false;
    };
    let below = dir
        .prefix
        .get(anchor.prefix_len()..dir.path_len)
        .unwrap_or_default();
    let subdirs = subdirs_of(&record);
    // Only a device whose filesystem this worker has already asked about.
    let Some(times) = recorder.known_trust(index, record.stamps.dev) else {
        return false;
    };
    // On a network filesystem the names are looked up in the client's cache,
    // and an open is two round trips more.
    if times != DirTimes::Remote && opening_pays(below, subdirs) {
        return false;
    }
    let fields = times.stamp_fields();
    let stat = match (job.anchor_is_parent(), job.name_cstr()) {
        (true, Some(name)) => crate::descriptors::lstat_in(anchor, name, fields),
        _ if below.is_empty() => None,
        // Several names: a C string of them, in the worker's buffer.
        _ => {
            scratch.clear();
            scratch.extend_from_slice(below);
            scratch.push(0);
            std::ffi::CStr::from_bytes_with_nul(scratch)
                .ok()
                .and_then(|path| crate::descriptors::lstat_in(anchor, path, fields))
        }
    };
    let Some(Ok(stat)) = stat else {
        return false;
    };
    // Anything but a directory now: opening it says what, as a walk would.
    if EntryKind::from_mode(stat.mode()) != EntryKind::Dir {
        return false;
    }
    // Another device than the record's (a mount put over it) fails the check.
    let stamps = Stamps::of(&stat);
    let Lookup::Use(record) = index.check(Some(record), Some(stamps), times.trusted()) else {
        return false;
    };
    // Its subdirectories checked and visited within its turn: on a local
    // filesystem only (see `Checks::pass`).
    let leaves = match (times, index.root_key(job.siblings().root_identity())) {
        (DirTimes::Local, Some(root)) => {
            if room.levels.is_empty() {
                room.levels.resize_with(INLINE_NESTING, Level::default);
            }
            Some(Leaves {
                index,
                root,
                path: &mut room.leaf_path,
                levels: &mut room.levels,
                checks: Some(Checks {
                    recorder,
                    anchor,
                    below: scratch,
                }),
            })
        }
        _ => None,
    };
    visit_unopened(visitor, &record, job, dir, slot, leaves);
    true
}

/// The names the kernel resolves for each `lstat` of a directory one level
/// deeper than the one it would rather open: past this many, opening the
/// directory (an open, an `fstat` and a close, about as costly as this many
/// names looked up, measured on `/usr`) and checking its subdirectories from it,
/// one name each, costs less.
const OPEN_WHEN_NAMES_SAVED: usize = 24;

/// True when a directory at `below` from its anchor, with `subdirs`
/// subdirectories, is better opened than checked by path: each of their paths
/// would be `below`'s names and one more, against one name from it
/// (`/usr/share/doc`'s 3,000 subdirectories, say).
fn opening_pays(below: &[u8], subdirs: usize) -> bool {
    let names = 1 + below.iter().filter(|&&b| b == b'/').count();
    subdirs.saturating_mul(names) >= OPEN_WHEN_NAMES_SAVED
}

/// The record of `dir` if it can be answered without opening it: not a piece
/// nor a directory listed only to see whether it is empty, recorded, and with no
/// entry of unknown kind (that needs an `lstat` in the directory itself).
fn unopened_record<'i>(index: &'i IndexRun, job: &DirJob, dir: &Dir<'_>) -> Option<Record<'i>> {
    if job.piece().is_some() || job.print_if_empty() {
        return None;
    }
    let root = index.root_key(job.siblings().root_identity())?;
    recorded(index, root, job, dir).filter(kinds_known)
}

/// True when `record` has no entry of unknown kind: nothing in it needs an
/// `lstat` in the directory itself.
fn kinds_known(record: &Record<'_>) -> bool {
    let unknown = crate::index::format::kind_byte(EntryKind::Unknown);
    !record.kinds.contains(&unknown)
}

/// Visits the entries `record` holds for `dir`, which is not open: nothing the
/// visitor does for them asks for its descriptor (see [`needs_no_descriptor`]).
/// With `leaves` (`--index-trust`), the subdirectories that are leaves are
/// visited next ([`visit_leaves`]); the others are queued with its job's anchor,
/// checked and opened, if they must be, from there.
fn visit_unopened(
    visitor: &mut Visitor<'_>,
    record: &Record<'_>,
    job: &DirJob,
    dir: &Dir<'_>,
    slot: &WorkerSlot<DirJob>,
    leaves: Option<Leaves<'_>>,
) {
    visitor.here.id = None;
    visitor.enter(dir);
    let _ = visit_record(visitor, record, job, dir, -1, false);
    if let Some(leaves) = leaves.filter(|_| !visitor.children.is_empty()) {
        visit_leaves(visitor, leaves, job, dir, slot);
        if visitor.children.is_empty() {
            visitor.child_names.clear();
        }
    }
    if !visitor.children.is_empty() {
        let inherited = Inherited {
            anchor: job.anchor().cloned(),
            anchor_is_parent: false,
            id: None,
            root_dev: job.root_dev(),
            rules: None,
        };
        queue_children(visitor, dir, slot, inherited);
    }
}

/// `--index-trust`: visits at once, one after the other, the subdirectories just
/// found in `dir` (`visitor.children`) that have records, and leaves the others
/// in `visitor.children` to be queued. A leaf (its record holds no directory and
/// no entry of unknown kind) would have been a job of its own, queued, taken,
/// entered and finished (three in five of `/usr`'s directories are leaves); here
/// it is its path put together and its record visited, with what a job's turn
/// does around it (the pacing of the output, the status line). A subdirectory
/// that is not a leaf is visited so too, its own subdirectories in turn
/// ([`visit_within`]), while no worker waits for a directory to take (one would
/// have taken it) and levels are left ([`INLINE_NESTING`]). Only where the walk
/// goes depth-first at their depth (see `Pool::goes_depth_first`), so that a
/// search that stops early still lists the first levels before anything deeper.
#[inline(never)]
fn visit_leaves(
    visitor: &mut Visitor<'_>,
    leaves: Leaves<'_>,
    job: &DirJob,
    dir: &Dir<'_>,
    slot: &WorkerSlot<DirJob>,
) {
    let depth = dir.depth + 1;
    let pool = visitor.pool;
    if !pool.goes_depth_first(depth) {
        return;
    }
    let mut leaves = leaves;
    let (index, root) = (leaves.index, leaves.root);
    let mut kept = 0;
    for i in 0..visitor.children.len() {
        let child = visitor.children[i];
        let record = (child.index_at != 0 && !child.print_if_empty && !child.tracked_only)
            .then(|| index.recorded_at(root, child.index_at))
            .flatten()
            .filter(|record| {
                record.is_leaf()
                    || (!leaves.levels.is_empty()
                        && pool.parked_workers() == 0
                        && kinds_known(record))
            });
        // Names follow one another, each with its NUL.
        let name_end = match visitor.children.get(i + 1) {
            Some(next) => next.name_start - 1,
            None => visitor.child_names.len() - 1,
        };
        let name = child.name_start..name_end;
        let record = record.filter(|record| {
            !pool.is_stopped()
                && leaves.checks.as_mut().is_none_or(|checks| {
                    checks.pass(
                        index,
                        record,
                        dir.prefix,
                        &visitor.child_names[name.clone()],
                    )
                })
        });
        let Some(record) = record else {
            visitor.children[kept] = child;
            kept += 1;
            continue;
        };
        visitor.queued_dirs += 1;
        visitor.before_directory(depth);
        let levels = std::mem::take(&mut leaves.levels);
        match levels.split_first_mut() {
            Some((level, deeper)) if !record.is_leaf() => {
                let inner = leaves.deeper(deeper);
                visit_within(visitor, &record, (job, dir, name), slot, level, inner);
            }
            _ if files_of_leaf(visitor, &record) == Files::AllRuledOut => {
                // Nothing in it can match: what its visit would have counted.
                visitor.found.examined += record.kinds.len() as u64;
            }
            _ => {
                let leaf_dir = subdir(visitor, job, dir, name, leaves.path);
                visitor.enter(&leaf_dir);
                let found = visitor.children.len();
                let _ = visit_record(visitor, &record, job, &leaf_dir, -1, false);
                // No directory, and no entry whose kind a `stat` would tell.
                debug_assert_eq!(visitor.children.len(), found);
            }
        }
        leaves.levels = levels;
        visitor.answer_progress();
        // A checked directory took an `lstat`: the pacing reads the clock as
        // after a job's.
        let unchecked = leaves.checks.is_none();
        visitor.pacing.answered_without_system_call(unchecked);
        visitor.after_directory(depth);
    }
    visitor.children.truncate(kept);
}

/// Visits the subdirectory of `dir` named `name` (in `visitor.child_names`),
/// which is not a leaf, as its own job would ([`visit_unopened`]), within its
/// parent's turn: the parent's lists of subdirectories wait in `level` meanwhile,
/// and its own are made in the level's room; what it does not visit within
/// `leaves` is queued. Measured on `/usr`, `--index-trust -e conf` (callgrind
/// `-j1`): 26.0M instructions with leaves alone visited so, 24.5M now.
fn visit_within(
    visitor: &mut Visitor<'_>,
    record: &Record<'_>,
    (job, dir, name): (&DirJob, &Dir<'_>, std::ops::Range<usize>),
    slot: &WorkerSlot<DirJob>,
    level: &mut Level,
    leaves: Leaves<'_>,
) {
    let mut path = std::mem::take(&mut level.path);
    let inner = subdir(visitor, job, dir, name, &mut path);
    std::mem::swap(&mut visitor.children, &mut level.children);
    std::mem::swap(&mut visitor.child_names, &mut level.child_names);
    visit_unopened(visitor, record, job, &inner, slot, Some(leaves));
    std::mem::swap(&mut visitor.children, &mut level.children);
    std::mem::swap(&mut visitor.child_names, &mut level.child_names);
    level.children.clear();
    level.child_names.clear();
    level.path = path;
}

/// The subdirectory of `dir` named `name` (in `visitor.child_names`), its path
/// and a `/` put together in `path`.
#[inline(always)]
fn subdir<'p>(
    visitor: &Visitor<'_>,
    job: &'p DirJob,
    dir: &Dir<'_>,
    name: std::ops::Range<usize>,
    path: &'p mut Vec<u8>,
) -> Dir<'p> {
    path.clear();
    path.extend_from_slice(dir.prefix);
    path.extend_from_slice(&visitor.child_names[name]);
    let path_len = path.len();
    path.push(b'/');
    let name = &path[dir.prefix.len()..path_len];
    let path_state = (visitor.config.filter)
        .subdir_path(dir.path_state, name)
        .unwrap_or_default();
    Dir {
        job,
        prefix: &path[..],
        path_len,
        depth: dir.depth + 1,
        path_state,
    }
}

/// [`Files::AllRuledOut`] for a leaf's `record` that holds regular files alone,
/// none of whose names holds the needle, and [`Files::Visited`] otherwise. Its
/// directory need not be entered first: whatever the scope there, a regular file
/// is tested by name before anything else is done with it (counted, printed, or
/// noted as a miss of `-t`), where `--index-trust` answers unopened (nothing is
/// `stat`ed, `-c` does not count by kinds: there is a name test).
fn files_of_leaf(visitor: &mut Visitor<'_>, record: &Record<'_>) -> Files {
    let Some(needle) = visitor.needle.as_deref_mut() else {
        return Files::Visited;
    };
    let files_only = record.files_only() && !record.kinds.is_empty();
    match files_only && !needle.may_be_in(record.lens, record.names) {
        true => Files::AllRuledOut,
        false => Files::Visited,
    }
}
