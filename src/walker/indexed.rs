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
use crate::index::{IndexRun, Lookup, Recorder};
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
    match gate {
        Some(gate) => {
            let (listed, here) =
                visit_gated_listing(gate, job, dir, fd, listing, visitor, crossing, listed);
            *rules = here;
            listed
        }
        None => visit_listing(visitor, listing, job, dir, fd, crossing, listed),
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
    listing: &mut Listing,
    visitor: &mut Visitor<'_>,
    index: &IndexRun,
    job: &DirJob,
    dir: &Dir<'_>,
    slot: &WorkerSlot<DirJob>,
) -> bool {
    if job.piece().is_some() || job.print_if_empty() {
        return false;
    }
    let Some(root) = index.root_key(job.siblings().root_identity()) else {
        return false;
    };
    let key = key_after(root.key, &dir.prefix[dir.below_root()..]);
    let Lookup::Use(record) = index.lookup(root, key, None, false) else {
        return false;
    };
    if record
        .kinds
        .contains(&crate::index::format::kind_byte(EntryKind::Unknown))
    {
        return false;
    }
    listing.clear();
    for (name, kind) in record.entries() {
        listing.push(&RawEntry::from_name_with_nul(name, kind));
    }
    visitor.here.id = None;
    visitor.enter(dir);
    // No descriptor: nothing the visitor does here asks for one (see above).
    let _ = visit_listing(visitor, listing, job, dir, -1, false, Ok(()));
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

/// Puts the entries of `dir` (open as `fd`) in `listing`: the recorded ones if the
/// index has them and they may be used, otherwise the kernel's, then recorded.
fn fill(
    reader: &mut DirReader,
    listing: &mut Listing,
    (index, recorder): (&IndexRun, &mut Recorder),
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    stop: &AtomicBool,
) -> io::Result<()> {
    listing.clear();
    let Some(root) = index.root_key(job.siblings().root_identity()) else {
        return read_into(reader, listing, fd, stop);
    };
    let key = key_after(root.key, &dir.prefix[dir.below_root()..]);
    let listed_at = SystemTime::now();
    let mut stamps = None;
    let mut trusted = false;
    if !index.trusting() {
        // A directory whose stamps cannot be read is listed, and not recorded.
        let Ok(stat) = fstat(fd) else {
            return read_into(reader, listing, fd, stop);
        };
        let now = Stamps::of(&stat);
        trusted = recorder.stamps_trusted(now.dev, fd);
        stamps = Some(now);
    }
    let stamps = match index.lookup(root, key, stamps, trusted) {
        Lookup::Use(record) => {
            for (name, kind) in record.entries() {
                listing.push(&RawEntry::from_name_with_nul(name, kind));
            }
            return Ok(());
        }
        Lookup::List(Some(stamps)) => stamps,
        // The trusted mode with no record: its stamps, to record the listing.
        Lookup::List(None) => match fstat(fd) {
            Ok(stat) => {
                let now = Stamps::of(&stat);
                trusted = recorder.stamps_trusted(now.dev, fd);
                now
            }
            Err(_) => return read_into(reader, listing, fd, stop),
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
    listed
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

/// Hands the entries of `listing` (the whole listing of `dir`, open as `fd`) to the
/// visitor, as the plain walk does; with `-t e`, the directory itself if empty.
fn visit_listing(
    visitor: &mut Visitor<'_>,
    listing: &Listing,
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    crossing: bool,
    listed: io::Result<()>,
) -> io::Result<()> {
    let pool = visitor.pool;
    visitor.found.examined += listing.entries.len() as u64;
    // With `-t e`, a directory at the depth limit, or a mount point under `-x`, is
    // listed only to see whether it is empty (as `list_out_of_line`).
    let visit_entries =
        !job.print_if_empty() || (dir.depth < visitor.config.filter.max_depth && !crossing);
    if visit_entries {
        let stop = pool.stop_flag();
        let mut start = 0;
        for (i, &(len, kind)) in listing.entries.iter().enumerate() {
            // As between two batches of a listing: `-1` or a closed pipe ends it.
            if i % 1024 == 1023 && stop.load(Ordering::Relaxed) {
                break;
            }
            let end = start + len as usize;
            visitor.visit(
                dir,
                fd,
                RawEntry::from_name_with_nul(&listing.names[start..end], kind),
            );
            start = end;
        }
    }
    if job.print_if_empty() && listed.is_ok() && listing.entries.is_empty() && !pool.is_stopped() {
        visitor.match_empty_dir(dir, fd);
    }
    listed
}
