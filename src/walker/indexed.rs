//! A directory's listing in a walk with the index (`--index`, see `index`): its
//! entries come from the index when its stamps check out, from the kernel
//! otherwise (and are then recorded). The plain visit takes them from their
//! record, the one it found or the one it has just made; the gated walk (ignore
//! rules) from the [`Listing`] they are put in. Nothing else differs from a walk:
//! the visitor, the ignore rules and the output are the same code.

use super::job::{Dir, DirJob, Inherited};
use super::recording::{piece_helpers, read_into, read_recorded, Reading};
use super::visit::Visitor;
use super::{queue_children, visit_gated_listing, Listing};
use crate::config::Config;
use crate::ignore::{DirRules, Gate};
use crate::index::format::{key_after, Stamps};
use crate::index::{DirTimes, IndexRun, Lookup, Recorder, RootKey};
use crate::os::dirent::{DirReader, EntryKind, RawEntry};
use crate::os::stat::fstat;
use crate::queue::WorkerSlot;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::SystemTime;

/// The directory being listed.
pub(super) struct Here<'h> {
    pub(super) job: &'h DirJob,
    pub(super) dir: &'h Dir<'h>,
    pub(super) fd: RawFd,
    /// `-x`: a mount point, listed only to see whether it is empty (`-t e`).
    pub(super) crossing: bool,
    /// This is the first worker, before any other has started.
    pub(super) alone: bool,
}

/// Lists the directory `here` with the index and visits its entries, through
/// `gate` if there is one (setting `rules` to the rules in force in it).
#[inline(never)]
pub(super) fn list(
    reader: &mut DirReader,
    listing: &mut Listing,
    visitor: &mut Visitor<'_>,
    index: (&IndexRun, &mut Recorder),
    gate: Option<&Gate>,
    rules: &mut Option<Arc<DirRules>>,
    here: Here<'_>,
) -> io::Result<()> {
    let Here {
        job,
        dir,
        fd,
        crossing,
        alone,
    } = here;
    let mut reading = Reading {
        stop: visitor.pool.stop_flag(),
        // With ignore rules, as a walk's: never cut (see `split`).
        helpers: match gate {
            Some(_) => 0,
            None => piece_helpers(visitor, alone),
        },
        pieces: 0,
        parts: Vec::new(),
    };
    let (index, recorder) = index;
    let listed = fill(
        reader,
        listing,
        (index, recorder),
        job,
        dir,
        fd,
        &mut reading,
    );
    visitor.found.pieces += reading.pieces;
    match (gate, listed) {
        (Some(gate), listed) => {
            // The rules want the whole listing (its rule files' names) first
            // (never cut into pieces with a gate: see `piece_helpers`).
            let listed = listed.map(|filled| {
                if let Filled::Old(record) = filled {
                    push_all(listing, &record);
                }
            });
            let (listed, here) =
                visit_gated_listing(gate, job, dir, fd, listing, visitor, crossing, listed);
            *rules = here;
            listed
        }
        (None, Ok(Filled::Old(record))) => visit_record(visitor, &record, job, dir, fd, crossing),
        (None, listed) => {
            // Just recorded: visited from its record, as a repeat would visit it
            // (a first run of a million-entry directory printed its names whole,
            // `Files::PrintedWhole`, and its pieces are not put together).
            if let (Ok(Filled::Recorded), Some(record)) = (&listed, recorder.last()) {
                return visit_record(visitor, &record, job, dir, fd, crossing);
            }
            reading.append_parts_to(listing);
            let listed = listed.map(|_| ());
            visit_entries(
                visitor,
                listing
                    .names_and_kinds()
                    .map(|(name, kind)| (name, kind, 0)),
                (listing.entries.len(), false),
                Files::Visited,
                job,
                dir,
                fd,
                crossing,
                listed,
            )
        }
    }
}

/// Copies the entries of `record` into `listing`.
fn push_all(listing: &mut Listing, record: &crate::index::format::Record<'_>) {
    for (name, kind) in record.entries() {
        listing.push(&RawEntry::from_name_with_nul(name, kind));
    }
}

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
    scratch: &mut Vec<u8>,
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
    let dir_byte = crate::index::format::kind_byte(EntryKind::Dir);
    let subdirs = record
        .kinds
        .iter()
        .filter(|&&kind| kind == dir_byte)
        .count();
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
    visit_unopened(visitor, &record, job, dir, slot, None);
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

/// `dir`'s record in the file of its root `root`, if it has one: where its
/// parent's record said, else found by its key.
fn recorded<'i>(
    index: &'i IndexRun,
    root: RootKey,
    job: &DirJob,
    dir: &Dir<'_>,
) -> Option<crate::index::format::Record<'i>> {
    match job.index_at() {
        // Its key, a hash of its path, only if there is a file to look in: twice a
        // directory was a seventh of a first run's instructions.
        0 if index.has_records(root) => index.recorded(root, key_of(root, dir)),
        0 => None,
        at => index.recorded_at(root, at),
    }
}

/// The key of `dir`'s record in the file of `root`.
fn key_of(root: RootKey, dir: &Dir<'_>) -> u64 {
    key_after(root.key, &dir.prefix[dir.below_root()..])
}

/// The record of `dir` if it can be answered without opening it: not a piece
/// nor a directory listed only to see whether it is empty, recorded, and with no
/// entry of unknown kind (that needs an `lstat` in the directory itself).
fn unopened_record<'i>(
    index: &'i IndexRun,
    job: &DirJob,
    dir: &Dir<'_>,
) -> Option<crate::index::format::Record<'i>> {
    if job.piece().is_some() || job.print_if_empty() {
        return None;
    }
    let root = index.root_key(job.siblings().root_identity())?;
    let record = recorded(index, root, job, dir)?;
    let unknown = crate::index::format::kind_byte(EntryKind::Unknown);
    (!record.kinds.contains(&unknown)).then_some(record)
}

/// Visits the entries `record` holds for `dir`, which is not open: nothing the
/// visitor does for them asks for its descriptor (see [`needs_no_descriptor`]).
/// With `leaves` (`--index-trust`), the subdirectories that are leaves are
/// visited next ([`visit_leaves`]); the others are queued with its job's anchor,
/// checked and opened, if they must be, from there.
fn visit_unopened(
    visitor: &mut Visitor<'_>,
    record: &crate::index::format::Record<'_>,
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

/// The loop of [`visit_entries`]. `COUNTED`: `-c` counts files by their kind
/// (`Visitor::count_by_type_only`), and a regular file is one more match, what
/// `visit_not_dot` would do with it. `NO_FILES`: regular files are passed over
/// ([`Files::RuledOut`]).
#[inline(always)]
fn visit_each<'e, const COUNTED: bool, const NO_FILES: bool>(
    visitor: &mut Visitor<'_>,
    entries: impl Iterator<Item = (&'e [u8], EntryKind, u32)>,
    dir: &Dir<'_>,
    fd: RawFd,
) {
    let stop = visitor.pool.stop_flag();
    let files_by_name = visitor.files_by_name();
    for (i, (name, kind, at)) in entries.enumerate() {
        // As between two batches of a listing: `-1` or a closed pipe ends it.
        if i % 1024 == 1023 && stop.load(Ordering::Relaxed) {
            break;
        }
        if NO_FILES && kind == EntryKind::File {
            continue;
        }
        if COUNTED && kind == EntryKind::File {
            visitor.found.matches += 1;
            continue;
        }
        if !COUNTED && kind == EntryKind::File && files_by_name {
            visitor.visit_file_by_name(dir, fd, name);
            continue;
        }
        let queued = visitor.children.len();
        // Neither a listing (`read_into`) nor the index keeps `.` and `..`.
        visitor.visit_not_dot(dir, fd, RawEntry::from_name_with_nul(name, kind));
        // A subdirectory queued: where its record is, for its own turn.
        if at != 0 && visitor.children.len() > queued {
            if let Some(child) = visitor.children.last_mut() {
                child.index_at = at;
            }
        }
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
    let Leaves {
        index,
        root,
        path,
        levels,
    } = leaves;
    let unknown = crate::index::format::kind_byte(EntryKind::Unknown);
    let mut kept = 0;
    for i in 0..visitor.children.len() {
        let child = visitor.children[i];
        let record = (child.index_at != 0 && !child.print_if_empty && !child.tracked_only)
            .then(|| index.recorded_at(root, child.index_at))
            .flatten()
            .filter(|record| {
                record.is_leaf()
                    || (!levels.is_empty()
                        && pool.parked_workers() == 0
                        && !record.kinds.contains(&unknown))
            });
        let Some(record) = record.filter(|_| !pool.is_stopped()) else {
            visitor.children[kept] = child;
            kept += 1;
            continue;
        };
        visitor.queued_dirs += 1;
        visitor.before_directory(depth);
        // Names follow one another, each with its NUL.
        let name_end = match visitor.children.get(i + 1) {
            Some(next) => next.name_start - 1,
            None => visitor.child_names.len() - 1,
        };
        let name = child.name_start..name_end;
        match levels.split_first_mut() {
            Some((level, deeper)) if !record.is_leaf() => {
                let leaves = Leaves {
                    index,
                    root,
                    path: &mut *path,
                    levels: deeper,
                };
                visit_within(visitor, &record, (job, dir, name), slot, level, leaves);
            }
            _ if files_of_leaf(visitor, &record) == Files::AllRuledOut => {
                // Nothing in it can match: what its visit would have counted.
                visitor.found.examined += record.kinds.len() as u64;
            }
            _ => {
                let leaf_dir = subdir(visitor, job, dir, name, path);
                visitor.enter(&leaf_dir);
                let found = visitor.children.len();
                let _ = visit_record(visitor, &record, job, &leaf_dir, -1, false);
                // No directory, and no entry whose kind a `stat` would tell.
                debug_assert_eq!(visitor.children.len(), found);
            }
        }
        visitor.answer_progress();
        visitor.pacing.answered_without_system_call(true);
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
    record: &crate::index::format::Record<'_>,
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

/// Where [`fill`] found the entries of a directory.
enum Filled<'i> {
    /// In the index, and they may be used (`listing` left empty).
    Old(crate::index::format::Record<'i>),
    /// In the kernel's listing, in `listing` (and the pieces' listings after
    /// it), now recorded: the recorder's last record holds them.
    Recorded,
    /// In the kernel's listing, whole in `listing`, and not recorded.
    Listed,
}

/// The entries of `dir` (open as `fd`): the recorded ones if the index has them
/// and they may be used, otherwise the kernel's, put in `listing` and recorded.
fn fill<'i>(
    reader: &mut DirReader,
    listing: &mut Listing,
    (index, recorder): (&'i IndexRun, &mut Recorder),
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    reading: &mut Reading<'_>,
) -> io::Result<Filled<'i>> {
    let stop = reading.stop;
    listing.clear();
    let Some(root) = index.root_key(job.siblings().root_identity()) else {
        return read_into(reader, listing, fd, stop).map(|()| Filled::Listed);
    };
    let found = recorded(index, root, job, dir);
    let mut stamps = None;
    let mut times = DirTimes::Untrusted;
    if !index.trusting() {
        // A directory whose stamps cannot be read is listed, and not recorded.
        let Some((now, on)) = stamps_of(fd, found.as_ref(), (index, recorder)) else {
            return read_into(reader, listing, fd, stop).map(|()| Filled::Listed);
        };
        (stamps, times) = (Some(now), on);
    }
    let stamps = match index.check(found, stamps, times.trusted()) {
        Lookup::Use(record) => return Ok(Filled::Old(record)),
        Lookup::List(Some(stamps)) => stamps,
        // The trusted mode with no record: its stamps, to record the listing.
        Lookup::List(None) => match stamps_of(fd, None, (index, recorder)) {
            Some((now, on)) => {
                times = on;
                now
            }
            None => return read_into(reader, listing, fd, stop).map(|()| Filled::Listed),
        },
    };
    // Taken only for a listing (a clock read per directory was 1.6% of a repeat),
    // microseconds after the stamps: far inside the racy margin.
    let listed_at = SystemTime::now();
    let listed = read_recorded(reader, listing, fd, reading);
    // A listing cut short (an error, or the stop) is not the directory's.
    let recorded = listed.is_ok() && !stop.load(Ordering::Relaxed) && {
        let key = key_of(root, dir);
        let whole = (&listing.entries[..], &listing.names[..]);
        match reading.parts.is_empty() {
            true => recorder.record(root, key, &stamps, times, listed_at, &[whole]),
            false => {
                let parts = reading.parts_after(listing);
                recorder.record(root, key, &stamps, times, listed_at, &parts)
            }
        }
    };
    if !recorded {
        reading.append_parts_to(listing);
    }
    listed.map(|()| match recorded {
        true => Filled::Recorded,
        false => Filled::Listed,
    })
}

/// The stamps of the directory open as `fd`, whose record (if any) is `found`,
/// and how far its device's times are trusted; `None` if they cannot be read.
/// On a network filesystem whose times are trusted they are asked of the server
/// (at once where `found` says the device is one this worker knows).
fn stamps_of(
    fd: RawFd,
    found: Option<&crate::index::format::Record<'_>>,
    (index, recorder): (&IndexRun, &mut Recorder),
) -> Option<(Stamps, DirTimes)> {
    let fields = found
        .and_then(|record| recorder.known_trust(index, record.stamps.dev))
        .map_or(Stamps::FIELDS, DirTimes::stamp_fields);
    let now = Stamps::of(&fstat(fd, fields).ok()?);
    let times = recorder.dir_times(index, now.dev, fd);
    if times.stamp_fields() == fields {
        return Some((now, times));
    }
    Some((Stamps::of(&fstat(fd, times.stamp_fields()).ok()?), times))
}

/// Hands the entries `record` holds for `dir` (open as `fd`, or `-1`) to
/// [`visit_entries`]. When `-c` counts files by their kind alone
/// (`Visitor::count_by_type_only`) and every one of them is a regular file, the
/// count is the number of entries, and their names need not be read (a
/// million-entry directory's 23 MB of names, two thirds of a repeat's
/// instructions). Inlined as `visit_entries` is: out of line, the call cost a
/// checked repeat of `/usr` 1.7% more instructions and `--index-trust` 3.5%.
#[inline(always)]
fn visit_record(
    visitor: &mut Visitor<'_>,
    record: &crate::index::format::Record<'_>,
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    crossing: bool,
) -> io::Result<()> {
    let files_only = visitor.count_by_type_only && record.files_only();
    let counted = (record.kinds.len(), files_only);
    let files = files_of(visitor, record);
    if files == Files::PrintedWhole && !job.print_if_empty() {
        visitor.found.examined += record.kinds.len() as u64;
        visitor.print_files(dir.prefix, record.lens, record.names);
        return Ok(());
    }
    let entries = record.entries_with_children();
    visit_entries(
        visitor,
        entries,
        counted,
        files,
        job,
        dir,
        fd,
        crossing,
        Ok(()),
    )
}

/// What the regular files of a listing need from [`visit_entries`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Files {
    /// Each is visited (its name tested, where that is all it needs).
    Visited,
    /// The record holds regular files alone, each printed as its path and
    /// nothing else (`Visitor::prints_files_whole`): printed whole from its
    /// lengths and names (`Visitor::print_files`, by `visit_record`).
    PrintedWhole,
    /// None can match: each would be tested by its name alone, and no name in
    /// the listing holds the name tests' needle (`filter::needle`).
    RuledOut,
    /// As `RuledOut`, and the listing holds nothing else.
    AllRuledOut,
}

/// [`Files::AllRuledOut`] for a leaf's `record` that holds regular files alone,
/// none of whose names holds the needle, and [`Files::Visited`] otherwise. Its
/// directory need not be entered first: whatever the scope there, a regular file
/// is tested by name before anything else is done with it (counted, printed, or
/// noted as a miss of `-t`), where `--index-trust` answers unopened (nothing is
/// `stat`ed, `-c` does not count by kinds: there is a name test).
fn files_of_leaf(visitor: &mut Visitor<'_>, record: &crate::index::format::Record<'_>) -> Files {
    let Some(needle) = visitor.needle.as_deref_mut() else {
        return Files::Visited;
    };
    let files_only = record.files_only() && !record.kinds.is_empty();
    match files_only && !needle.may_be_in(record.lens, record.names) {
        true => Files::AllRuledOut,
        false => Files::Visited,
    }
}

/// [`Files`] for `record`'s regular files: searched for the needle, if there is
/// one, where they would be tested by name alone.
#[inline(always)]
fn files_of(visitor: &mut Visitor<'_>, record: &crate::index::format::Record<'_>) -> Files {
    // Without a needle, one test: this runs for every record. (Where files are
    // printed whole there is no name test, so no needle.)
    if visitor.needle.is_none() || !visitor.files_by_name() {
        if visitor.prints_files_whole && visitor.here.scope.files && record.files_only() {
            return Files::PrintedWhole;
        }
        if files_pass_unseen(visitor) {
            return ruled_out(record);
        }
        return Files::Visited;
    }
    let Some(needle) = visitor.needle.as_deref_mut() else {
        return Files::Visited;
    };
    if needle.may_be_in(record.lens, record.names) {
        Files::Visited
    } else {
        ruled_out(record)
    }
}

/// [`Files::AllRuledOut`] for a record of regular files alone, [`Files::RuledOut`]
/// otherwise: what a record whose regular files cannot match is.
fn ruled_out(record: &crate::index::format::Record<'_>) -> Files {
    match record.files_only() && !record.kinds.is_empty() {
        true => Files::AllRuledOut,
        false => Files::RuledOut,
    }
}

/// True when the visitor would do nothing with a regular file here: files cannot
/// match in this directory (`-t d`, say, or above `--min-depth`), no name search
/// notes what `-t` left out (`Here::misses`), and its kind is the record's, not a
/// `stat`'s (`--force-stat`), nor counted by kind. Its entries are then passed
/// over, not handed to the visitor one by one to be turned away: `--index -t d`
/// of the million-entry directory ran 88.2M instructions, more than printing its
/// million paths (callgrind `-j1`).
#[inline(always)]
fn files_pass_unseen(visitor: &Visitor<'_>) -> bool {
    !visitor.here.scope.files
        && !visitor.here.misses
        && !visitor.config.force_stat
        && !visitor.count_by_type_only
}

/// Hands `entries` (`count` of them: the whole listing of `dir`, open as `fd`;
/// each its name with its NUL, its kind and its child offset) to the visitor, as
/// the plain walk does; with `-t e`, the directory itself if it is empty.
/// `listed` is how its reading ended. With `files_only` (see [`visit_record`])
/// they are counted, not visited: what the visitor would have done with each.
/// Where a regular file is visited by its name alone (`Visitor::files_by_name`,
/// tested once), the name is taken as it is: a listing's loop finds where each
/// name ends, which these names' lengths already say (a search of `/usr` with
/// `--index-trust -t any -e conf`: 37.6M to 32.5M instructions, callgrind `-j1`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn visit_entries<'e>(
    visitor: &mut Visitor<'_>,
    entries: impl Iterator<Item = (&'e [u8], EntryKind, u32)>,
    (count, files_only): (usize, bool),
    files: Files,
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    crossing: bool,
    listed: io::Result<()>,
) -> io::Result<()> {
    let pool = visitor.pool;
    visitor.found.examined += count as u64;
    // With `-t e`, a directory at the depth limit, or a mount point under `-x`, is
    // listed only to see whether it is empty (as `list_out_of_line`).
    let visit_entries =
        !job.print_if_empty() || (dir.depth < visitor.config.filter.max_depth && !crossing);
    if visit_entries && files_only {
        visitor.found.matches += count as u64;
    } else if visit_entries && files != Files::AllRuledOut {
        // A loop of its own for `-c` by kinds, where a regular file is only
        // counted: the two tests in one loop cost each of them (callgrind).
        match (visitor.count_by_type_only, files) {
            (true, _) => visit_each::<true, false>(visitor, entries, dir, fd),
            // Printed whole only in `visit_record`: visited here as any file.
            (false, Files::Visited | Files::PrintedWhole) => {
                visit_each::<false, false>(visitor, entries, dir, fd)
            }
            (false, _) => visit_each::<false, true>(visitor, entries, dir, fd),
        }
    }
    if job.print_if_empty() && listed.is_ok() && count == 0 && !pool.is_stopped() {
        visitor.match_empty_dir(dir, fd);
    }
    listed
}
