//! A directory's listing in a walk with the index (`--index`, see `index`): its
//! entries come from the index when its stamps check out, from the kernel
//! otherwise (and are then recorded), into the [`Listing`] the gated walk uses;
//! the plain visit and `-t e` take them from there too. Nothing else differs from
//! a walk: the visitor, the ignore rules and the output are the same code.

use super::job::{Dir, DirJob, Inherited};
use super::visit::Visitor;
use super::{queue_children, visit_gated_listing, Listing};
use crate::config::Config;
use crate::ignore::{DirRules, Gate};
use crate::index::format::{key_after, Stamps};
use crate::index::{IndexRun, Lookup, Recorder, RootKey};
use crate::os::dirent::{DirReader, EntryKind, RawEntry};
use crate::os::stat::fstat;
use crate::queue::WorkerSlot;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

/// The directory being listed.
pub(super) struct Here<'h> {
    pub(super) job: &'h DirJob,
    pub(super) dir: &'h Dir<'h>,
    pub(super) fd: RawFd,
    /// `-x`: a mount point, listed only to see whether it is empty (`-t e`).
    pub(super) crossing: bool,
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
    } = here;
    let stop = visitor.pool.stop_flag();
    let listed = fill(reader, listing, index, job, dir, fd, stop);
    match (gate, listed) {
        (Some(gate), listed) => {
            // The rules want the whole listing (its rule files' names) first.
            let listed = listed.map(|record| {
                if let Some(record) = record {
                    push_all(listing, &record);
                }
            });
            let (listed, here) =
                visit_gated_listing(gate, job, dir, fd, listing, visitor, crossing, listed);
            *rules = here;
            listed
        }
        (None, Ok(Some(record))) => {
            let entries = record
                .entries()
                .map(|(name, kind)| RawEntry::from_name_with_nul(name, kind));
            visit_entries(
                visitor,
                entries,
                record.kinds.len(),
                job,
                dir,
                fd,
                crossing,
                Ok(()),
            )
        }
        (None, listed) => {
            let listed = listed.map(|_| ());
            visit_entries(
                visitor,
                listing.iter(),
                listing.entries.len(),
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
) -> bool {
    if job.piece().is_some() || job.print_if_empty() {
        return false;
    }
    let Some((root, key)) = key_of(index, job, dir) else {
        return false;
    };
    let Lookup::Use(record) = index.lookup(root, key, None, false) else {
        return false;
    };
    if record
        .kinds
        .contains(&crate::index::format::kind_byte(EntryKind::Unknown))
    {
        return false;
    }
    visit_unopened(visitor, &record, job, dir);
    if !visitor.children.is_empty() {
        // Opened, if they must be, from the nearest open ancestor.
        let inherited = Inherited {
            anchor: job.anchor().cloned(),
            anchor_is_parent: false,
            id: None,
            root_dev: job.root_dev(),
            rules: None,
        };
        queue_children(visitor, dir, slot, inherited);
    }
    true
}

/// `--index` on a directory whose record holds no subdirectory, when nothing
/// needs its descriptor (see [`needs_no_descriptor`]): its stamps are read with
/// one `lstat` in its parent, which its job holds open as its anchor (one name,
/// so no link can lead elsewhere; a mount over it shows its own device), and if
/// they are those recorded, its entries are visited without opening it. One
/// system call where opening, checking and closing it took three; a directory
/// with subdirectories is opened, since they are opened from it. False (nothing
/// done) when it cannot be answered so.
pub(super) fn list_leaf_unopened(
    visitor: &mut Visitor<'_>,
    (index, recorder): (&IndexRun, &Recorder),
    job: &DirJob,
    dir: &Dir<'_>,
) -> bool {
    if job.piece().is_some() || job.print_if_empty() || !job.anchor_is_parent() {
        return false;
    }
    let (Some(anchor), Some(name)) = (job.anchor(), job.name_cstr()) else {
        return false;
    };
    let Some((root, key)) = key_of(index, job, dir) else {
        return false;
    };
    let Some(record) = index.recorded(root, key) else {
        return false;
    };
    let branches = [EntryKind::Dir, EntryKind::Unknown].map(crate::index::format::kind_byte);
    if record.kinds.iter().any(|kind| branches.contains(kind)) {
        return false;
    }
    let Some(Ok(stat)) = crate::descriptors::lstat_in(anchor, name, Stamps::FIELDS) else {
        return false;
    };
    // Anything but a directory now: opening it says what, as a walk would.
    if EntryKind::from_mode(stat.mode()) != EntryKind::Dir {
        return false;
    }
    let stamps = Stamps::of(&stat);
    // Only a device whose filesystem this worker has already asked about.
    let Some(trusted) = recorder.known_trust(stamps.dev) else {
        return false;
    };
    let Lookup::Use(record) = index.lookup(root, key, Some(stamps), trusted) else {
        return false;
    };
    visit_unopened(visitor, &record, job, dir);
    true
}

/// The file and key of `dir`'s record, if its root has an index.
fn key_of(index: &IndexRun, job: &DirJob, dir: &Dir<'_>) -> Option<(RootKey, u64)> {
    let root = index.root_key(job.siblings().root_identity())?;
    Some((root, key_after(root.key, &dir.prefix[dir.below_root()..])))
}

/// Visits the entries `record` holds for `dir`, which is not open: nothing the
/// visitor does for them asks for its descriptor (see [`needs_no_descriptor`]).
fn visit_unopened(
    visitor: &mut Visitor<'_>,
    record: &crate::index::format::Record<'_>,
    job: &DirJob,
    dir: &Dir<'_>,
) {
    visitor.here.id = None;
    visitor.enter(dir);
    let entries = record
        .entries()
        .map(|(name, kind)| RawEntry::from_name_with_nul(name, kind));
    let count = record.kinds.len();
    let _ = visit_entries(visitor, entries, count, job, dir, -1, false, Ok(()));
}

/// The entries of `dir` (open as `fd`): the recorded ones if the index has them
/// and they may be used (returned, `listing` left empty), otherwise the kernel's,
/// put in `listing` and recorded.
fn fill<'i>(
    reader: &mut DirReader,
    listing: &mut Listing,
    (index, recorder): (&'i IndexRun, &mut Recorder),
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    stop: &AtomicBool,
) -> io::Result<Option<crate::index::format::Record<'i>>> {
    listing.clear();
    let Some(root) = index.root_key(job.siblings().root_identity()) else {
        return read_into(reader, listing, fd, stop).map(|()| None);
    };
    let key = key_after(root.key, &dir.prefix[dir.below_root()..]);
    let listed_at = SystemTime::now();
    let mut stamps = None;
    let mut trusted = false;
    if !index.trusting() {
        // A directory whose stamps cannot be read is listed, and not recorded.
        let Ok(stat) = fstat(fd, Stamps::FIELDS) else {
            return read_into(reader, listing, fd, stop).map(|()| None);
        };
        let now = Stamps::of(&stat);
        trusted = recorder.stamps_trusted(now.dev, fd);
        stamps = Some(now);
    }
    let stamps = match index.lookup(root, key, stamps, trusted) {
        Lookup::Use(record) => return Ok(Some(record)),
        Lookup::List(Some(stamps)) => stamps,
        // The trusted mode with no record: its stamps, to record the listing.
        Lookup::List(None) => match fstat(fd, Stamps::FIELDS) {
            Ok(stat) => {
                let now = Stamps::of(&stat);
                trusted = recorder.stamps_trusted(now.dev, fd);
                now
            }
            Err(_) => return read_into(reader, listing, fd, stop).map(|()| None),
        },
    };
    let listed = read_into(reader, listing, fd, stop);
    // A listing cut short (an error, or the stop) is not the directory's.
    if listed.is_ok() && !stop.load(Ordering::Relaxed) {
        let kinds = listing.entries.iter().map(|&(_, kind)| kind);
        recorder.record(
            root,
            key,
            &stamps,
            !trusted,
            listed_at,
            (kinds, &listing.names),
        );
    }
    listed.map(|()| None)
}

/// The kernel's listing of `fd`, into `listing`.
fn read_into(
    reader: &mut DirReader,
    listing: &mut Listing,
    fd: RawFd,
    stop: &AtomicBool,
) -> io::Result<()> {
    reader.read(fd, stop, |entry| {
        if !entry.is_dot_or_dotdot() {
            listing.push(&entry);
        }
    })
}

/// Hands `entries` (`count` of them: the whole listing of `dir`, open as `fd`)
/// to the visitor, as the plain walk does; with `-t e`, the directory itself if
/// it is empty. `listed` is how its reading ended.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn visit_entries<'e>(
    visitor: &mut Visitor<'_>,
    entries: impl Iterator<Item = RawEntry<'e>>,
    count: usize,
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
    if visit_entries {
        let stop = pool.stop_flag();
        for (i, entry) in entries.enumerate() {
            // As between two batches of a listing: `-1` or a closed pipe ends it.
            if i % 1024 == 1023 && stop.load(Ordering::Relaxed) {
                break;
            }
            visitor.visit(dir, fd, entry);
        }
    }
    if job.print_if_empty() && listed.is_ok() && count == 0 && !pool.is_stopped() {
        visitor.match_empty_dir(dir, fd);
    }
    listed
}
