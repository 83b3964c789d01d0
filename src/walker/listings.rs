//! The listings other than the plain one and the gated one, out of the plain
//! listing's way (`walker/mod.rs`): with `-t e`, whether a directory is empty; on
//! a network filesystem, batch by batch, its subdirectories shared before the
//! listing ends; and a piece of a giant directory (see [`super::split`]).

use super::job::{self, DirJob, Inherited};
use super::split::Cutter;
use super::visit::Visitor;
use super::{children_anchor, queue_children};
use crate::descriptors::Anchor;
use crate::os::cookies::{Positions, Watch};
use crate::os::dirent::{DirReader, PieceEnd};
use crate::queue::WorkerSlot;
use std::sync::Arc;

/// What [`list_out_of_line`] needs of the directory being listed.
pub(super) struct SharedListing<'l> {
    pub(super) dir: &'l job::Dir<'l>,
    /// The directory's descriptor, which the caller keeps open.
    pub(super) fd: std::os::fd::RawFd,
    pub(super) job: &'l DirJob,
    pub(super) slot: &'l WorkerSlot<DirJob>,
    pub(super) root_dev: Option<u64>,
    /// `-x`: a mount point, listed only to see whether it is empty.
    pub(super) crossing: bool,
}

/// The listings other than the plain one and the gated one: with `-t e`, whether the
/// directory is empty; on a network filesystem, in batches (see [`list_sharing`]).
/// Out of line, so that the plain listing of a local walk is compiled much as it
/// was (callgrind, `/usr -j1 -c`): a branch of its own to `list_sharing` after the
/// others cost it 0.9% to 1.8% more instructions, this one first 0.3%; a `-t e`
/// walk pays 1.4% for the call.
#[inline(never)]
pub(super) fn list_out_of_line(
    reader: &mut DirReader,
    visitor: &mut Visitor<'_>,
    listing: SharedListing<'_>,
    alone: bool,
) -> std::io::Result<()> {
    if let Some(piece) = listing.job.piece() {
        return list_piece(reader, visitor, listing, piece, alone);
    }
    if !listing.job.print_if_empty() {
        return list_sharing(reader, visitor, listing, alone);
    }
    // Only with `-t e`: note whether the directory has any entry at all. A directory
    // at the maximum depth, or a mount point under `-x`, is listed for this alone.
    let SharedListing {
        dir, fd, crossing, ..
    } = listing;
    let pool = visitor.pool;
    let visit_entries = dir.depth < visitor.config.filter.max_depth && !crossing;
    let mut empty = true;
    // `--stats` counts the entries of the directories whose entries are visited
    // (its documented `find -mindepth 1` count): not those of a directory listed
    // only to see whether it is empty (issue 47).
    let listed = reader.read(fd, pool.stop_flag(), |entry| {
        if !entry.is_dot_or_dotdot() {
            empty = false;
            if visit_entries {
                visitor.found.examined += 1;
                visitor.visit_out_of_line(dir, fd, entry);
            }
        }
    });
    // A listing cut short by the stop proves nothing about emptiness.
    if listed.is_ok() && empty && !pool.is_stopped() {
        visitor.match_empty_dir(dir, fd);
    }
    listed
}

/// Lists one piece of a giant directory (see [`split`]), cutting its rest again if
/// a peer is idle when a batch fills the buffer; then tells the giant how the
/// piece ended, and if the split failed and this was its last piece, lists what
/// no piece took.
fn list_piece(
    reader: &mut DirReader,
    visitor: &mut Visitor<'_>,
    listing: SharedListing<'_>,
    piece: &job::PieceJob,
    alone: bool,
) -> std::io::Result<()> {
    let SharedListing {
        dir, fd, job, slot, ..
    } = listing;
    let cutter = Cutter::new(visitor.walk_parts(), job, slot, alone);
    let stop = visitor.pool.stop_flag();
    let giant = piece.giant();
    let mut batches = 0;
    let mut failed = false;
    let mut positions = Positions::new(piece.piece, !giant.keyed());
    let ended = reader.read_piece(
        fd,
        &mut positions,
        piece.piece,
        visitor.pool.latency_bound_listings(),
        stop,
        |entry| {
            visitor.found.examined += 1;
            visitor.visit(dir, fd, entry)
        },
        |next, _| {
            batches += 1;
            cutter.offer_rest_of_piece(fd, next, piece, batches, &mut failed)
        },
    );
    let broke = match ended {
        Ok(end) => !proven(end, &positions, piece.piece.until.is_none(), giant.keyed()),
        // What an error cut short is not known to be listed: listed again.
        Err(_) => true,
    };
    let rest = piece.finish(positions.taken(), broke);
    if let Some(rest) = rest {
        let listed = reader.read_untaken(fd, &rest.untaken, stop, |entry| {
            visitor.found.examined += 1;
            visitor.visit(dir, fd, entry)
        });
        ended.and(listed)
    } else {
        ended.map(drop)
    }
}

/// True when a piece that ended as `end` (its positions followed in `positions`;
/// `last`: it ran to the directory's end) proved that it took its whole range and
/// nothing else: in order throughout, and ending where the next piece starts (on
/// keyed cookies anywhere past it: the next piece takes every position from its
/// start).
pub(super) fn proven(end: PieceEnd, positions: &Positions, last: bool, keyed: bool) -> bool {
    match end {
        PieceEnd::Handed => true,
        PieceEnd::EndOfDirectory => last || keyed,
        PieceEnd::Ended => !positions.disordered() && (keyed || positions.ended_exactly()),
        PieceEnd::NotItsFirst => false,
    }
}

/// Lists a directory on a network filesystem, where each batch is a round trip: the
/// subdirectories a batch found go out before the next one is asked for (see
/// [`share_mid_listing`]), all of a listing's relative to one duplicate of the
/// directory's descriptor.
fn list_sharing(
    reader: &mut DirReader,
    visitor: &mut Visitor<'_>,
    listing: SharedListing<'_>,
    alone: bool,
) -> std::io::Result<()> {
    let SharedListing {
        dir,
        fd,
        job,
        slot,
        root_dev,
        ..
    } = listing;
    let pool = visitor.pool;
    let mut anchor = None;
    let cutter = Cutter::new(visitor.walk_parts(), job, slot, alone);
    let mut batches = 0;
    let mut watch: Option<Box<Watch>> = None;
    loop {
        let more = reader.read_batch(
            fd,
            pool.stop_flag(),
            |entry| {
                visitor.found.examined += u64::from(!entry.is_dot_or_dotdot());
                visitor.visit(dir, fd, entry)
            },
            // A network filesystem's batches are its server's (a page of entries
            // through FUSE), never the buffer's size: any may be followed by more.
            |filled| {
                batches += 1;
                cutter.offer_rest_of_listing(fd, filled, batches, &mut watch)
            },
        );
        visitor.visit_unknown(dir, fd);
        // Each batch is a round trip: measured for the growth as a directory is
        // elsewhere, so that the steps need not wait for large directories' ends.
        if let Some(tally) = pool.latency_tally() {
            if more.as_ref().is_ok_and(|&more| more) {
                visitor.look_and_count(tally);
            }
        }
        let found = visitor.children.len();
        if share_mid_listing(pool.latency_bound_listings(), found, pool.capacity()) {
            let (anchor, anchor_is_parent) =
                anchor.get_or_insert_with(|| sharing_anchor(fd, dir, job));
            let inherited = Inherited {
                anchor: anchor.clone(),
                anchor_is_parent: *anchor_is_parent,
                id: visitor.here.id.clone(),
                root_dev,
                rules: None,
            };
            queue_children(visitor, dir, slot, inherited);
            if let Some(probe) = crate::probe::installed() {
                probe.shared_mid_listing(more.as_ref().is_ok_and(|&more| more));
            }
        }
        if !more? {
            return Ok(());
        }
    }
}

/// Whether the subdirectories a listing has found so far (`found`) are queued
/// between two of its batches rather than when it ends. Every batch with entries is
/// followed by at least one more `getdents64` call (the empty one that ends a
/// listing), which on a network filesystem (`latency_bound`) is a round trip: shared
/// now, a subdirectory's lookup and opendir overlap it, one round trip less per level
/// on the critical path (a chain of directories: four round trips a level, three).
/// Not where a batch costs no wait (a local disk: the children would only be queued
/// in two pieces), nor in a pool of one worker, who would take them itself anyway.
/// A pool with no worker parked at the moment still gets them: whichever finishes
/// its directory first takes them a round trip sooner.
pub(super) fn share_mid_listing(latency_bound: bool, found: usize, capacity: usize) -> bool {
    latency_bound && found > 0 && capacity > 1
}

/// The anchor of subdirectories shared before the listing of `dir` (open as `fd`)
/// ends: a duplicate of its descriptor, since the listing goes on with this one
/// (then the rest of its subdirectories share it too); see [`children_anchor`].
fn sharing_anchor(
    fd: std::os::fd::RawFd,
    dir: &job::Dir<'_>,
    job: &DirJob,
) -> (Option<Arc<Anchor>>, bool) {
    // SAFETY: `fd` is the descriptor of the directory being listed, which its owner
    // keeps open for the whole listing, and so for this call.
    let dir_fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    children_anchor(dir_fd.try_clone_to_owned(), dir, job)
}
