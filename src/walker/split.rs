//! Giant directories listed by several workers (issue 36).
//!
//! The pool shares directories; a directory of a million entries would still be
//! one worker's alone, and the walk as long as its listing. So a listing that fills
//! its buffer (more entries follow) while a peer is idle, or while the first worker
//! is still alone, is cut: the rest of it, from the cookie where the listing stands
//! to its end, becomes pieces (`os::cookies`), each a job in the pool that opens
//! the directory anew, seeks to its piece and lists it to the next piece's start.
//! The listing that was cut ends where it stands and finishes as any other (its
//! subdirectories queued, its job done), and so does each piece; a piece that
//! fills its buffer while a peer is idle is cut the same way.
//!
//! Cuts are made only where they are known to be exact: on the filesystems
//! `cookies::Order::of` names, in the plain listing (not with ignore rules, which
//! need a whole listing for the directory's own rule files, nor with `-t e`, nor on
//! a network or FUSE filesystem), and never from a batch whose cookies say it is
//! unsafe. Every piece keeps the same directory open (`Giant::fd`), so renaming it
//! or replacing its path while its pieces wait changes nothing about what they list.
//!
//! The listing itself confirms every cut as it goes (issue 47): the listing that
//! is cut must have run in order up to the cut (`cookies::Watch`), and each piece
//! must run in order, start at the entry it was cut before and, on tmpfs, end
//! exactly at the next piece's start (`cookies::Positions`). A piece that fails a
//! check ends there and marks its giant broken: nothing more is cut, and the last
//! piece to finish lists the directory again whole, printing only the entries no
//! reader took (`Giant::finish`, `DirReader::read_untaken`). A listing that failed
//! a check, or whose cut found no cut, is not offered again, so trying costs at
//! most one cut's probes per listing.

use super::job::{DirJob, Giant, PieceJob};
use crate::config::Config;
use crate::os::cookies::{self, Order, Piece, Probe, Trust, Watch};
use crate::output::pacing::ShallowFirst;
use crate::queue::{Pool, WorkerSlot};

use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;

/// The listing buffer when every file is `stat`ed (`-S`, times, owners, `-t x`,
/// or no file types): a quarter of the usual, so that a directory of a few
/// hundred entries, whose `stat`s cost ten times its listing, is already cut
/// for idle workers, and its `stat`s shared with them (issue 36, item 2). The
/// listing itself pays four system calls where it paid one, next to a `stat` an
/// entry.
pub const STAT_LISTING_BUFFER: usize = 16 * 1024;

/// Where a listing stands when it may be cut: what the cut needs to know.
struct Standing<'a> {
    /// The listing's descriptor.
    pub fd: RawFd,
    /// The position of the next entry (`cookies::last_positions`).
    pub next: u64,
    /// Where the listing started (0 for a whole directory), for the scale of its
    /// positions.
    pub started_at: u64,
    /// The end of the piece being listed (`None`: the directory's end).
    pub until: Option<u64>,
    /// The giant this listing is already a piece of, if it is one; otherwise how
    /// far its filesystem's cookies are trusted and what the listing watched.
    pub giant: Result<&'a Arc<Giant>, (Trust, &'a mut Watch)>,
}

/// Cuts the rest of a listing into about `pieces` pieces, if it can be done
/// exactly; `None` leaves the listing whole (and the caller reads on).
fn cut(standing: Standing<'_>, pieces: usize) -> Option<Vec<PieceJob>> {
    let (giant, probe) = match standing.giant {
        Ok(giant) => (giant.clone(), Probe::open(giant.fd.as_raw_fd()).ok()?),
        Err((trust, watch)) => {
            let order = trust.order();
            let fd = cookies::reopen(standing.fd).ok()?;
            let probe = Probe::open(fd.as_raw_fd()).ok()?;
            let extent = match order {
                // tmpfs: positions count down to 2 (0 and 1 are `.` and `..`).
                Order::Descending => 1,
                Order::Ascending => {
                    let span = standing.next.saturating_sub(standing.started_at);
                    cookies::ascending_extent(&probe, standing.next, span).ok()?
                }
            };
            if standing.until.is_none() && !order.after(standing.next, extent) {
                return None;
            }
            let taken = watch.taken(standing.next);
            (Arc::new(Giant::new(fd, trust, extent, taken)), probe)
        }
    };
    let order = giant.order;
    if standing.until.is_none() && !order.after(standing.next, giant.extent) {
        return None;
    }
    let (from, until) = (standing.next, standing.until);
    let cuts = cookies::cuts(&probe, order, from, until, giant.extent, pieces).ok()?;
    // Listed: each piece checks its first entry, the one found at its start.
    let first = match giant.keyed() {
        true => None,
        false => Some(probe.entry_at(from).ok()??),
    };
    if cuts.is_empty() {
        return None;
    }
    let starts = std::iter::once((from, first)).chain(
        cuts.iter()
            .map(|cut| (cut.at, (!giant.keyed()).then_some(cut.first))),
    );
    let ends = cuts.iter().map(|cut| Some(cut.at)).chain([until]);
    Some(
        starts
            .zip(ends)
            .map(|((from, first), until)| {
                let piece = Piece {
                    from,
                    until,
                    order,
                    first,
                };
                PieceJob::new(giant.clone(), piece)
            })
            .collect(),
    )
}

/// After a batch `filled` of a whole directory's listing (open as `fd`) that
/// filled the buffer: its rest cut into `pieces()` pieces (asked only once the
/// listing is known to have run in order so far; none for 0), if that can be
/// done exactly. `watch` follows the listing from its first batch (made at the
/// first call); a cut that found none is not tried again, so its probes are paid
/// once. The walk's cut for its peers ([`Cutter::offer_rest_of_listing`]) and the
/// index's for its helper threads (`recording::read_recorded`).
pub(super) fn cut_rest_of_listing(
    fd: RawFd,
    filled: &[u8],
    watch: &mut Option<Box<Watch>>,
    pieces: impl FnOnce() -> usize,
) -> Option<Vec<PieceJob>> {
    let watch = watch.get_or_insert_with(|| Box::new(Watch::new(Order::of(fd))));
    if !watch.follow(filled) {
        return None;
    }
    let pieces = pieces();
    if pieces == 0 {
        return None;
    }
    let trust = watch.trust?;
    let next = cookies::last_positions(filled, trust.order())?;
    let standing = Standing {
        fd,
        next,
        started_at: 0,
        until: None,
        giant: Err((trust, &mut **watch)),
    };
    let cut = cut(standing, pieces);
    watch.failed |= cut.is_none();
    cut
}

/// What cutting the rest of a listing into pieces needs besides the listing: the
/// pool the pieces go to and whether one is wanted now (see [`split`]).
pub(super) struct Cutter<'w, 'a> {
    pool: &'a Pool<DirJob>,
    config: &'a Config,
    shallow: &'a ShallowFirst,
    job: &'w DirJob,
    slot: &'w WorkerSlot<DirJob>,
    alone: bool,
}

impl<'w, 'a> Cutter<'w, 'a> {
    pub(super) fn new(
        (pool, config, shallow): (&'a Pool<DirJob>, &'a Config, &'a ShallowFirst),
        job: &'w DirJob,
        slot: &'w WorkerSlot<DirJob>,
        alone: bool,
    ) -> Cutter<'w, 'a> {
        Cutter {
            pool,
            config,
            shallow,
            job,
            slot,
            alone,
        }
    }

    /// How many pieces to cut the rest of a listing into now, after its `batches`th
    /// batch; 0 for none. On a network filesystem a cut costs round trips (a
    /// `statfs`, a probe per piece), and a listing or piece is cut only once it has
    /// taken [`crate::queue::NETWORK_CUT_AFTER`] batches: cut whenever a worker
    /// idled, a million entries at 1 ms became 1,092 pieces, whose probes were as
    /// many round trips as the listing's own.
    fn pieces_wanted(&self, batches: usize) -> usize {
        let pool = self.pool;
        let network = pool.latency_bound_listings();
        // Other ranks of a cluster walk that asked for work count as idle workers.
        let hungry = pool.hungry_peers();
        if (pool.capacity() < 2 && hungry == 0) || pool.is_stopped() {
            return 0;
        }
        if network && batches < crate::queue::NETWORK_CUT_AFTER {
            return 0;
        }
        let idle = pool.parked_workers() + hungry;
        let every = self.config.split_every_listing;
        if !(self.alone || idle > 0 || every) {
            return 0;
        }
        let pieces = crate::queue::listing_pieces(self.alone || every, idle, self.config.threads);
        // On a network filesystem each cut asks a probe per piece, a round trip
        // each: a few pieces now, cut again as workers idle.
        match network {
            true => pieces.min(crate::queue::NETWORK_PIECES),
            false => pieces,
        }
    }

    /// After the `batches`th batch of a whole directory's listing, which filled the
    /// buffer (or came from a network filesystem): cuts the rest into pieces if a
    /// peer would take them and the listing ran in order so far. `watch` follows
    /// the listing from its first batch (made at the first call). True when the
    /// listing ends here.
    #[inline(never)]
    pub(super) fn offer_rest_of_listing(
        &self,
        fd: RawFd,
        filled: &[u8],
        batches: usize,
        watch: &mut Option<Box<Watch>>,
    ) -> bool {
        // A walk with one worker and no other rank never cuts: following its
        // listings' records cost 15% of a one-worker walk of /usr (issue 46's note).
        if !self.pool.may_share_listings() {
            return false;
        }
        self.queue(cut_rest_of_listing(fd, filled, watch, || {
            self.pieces_wanted(batches)
        }))
    }

    /// [`Self::offer_rest_of_listing`] for a piece, standing before `next`; not
    /// once its giant's split failed, nor after a cut of this piece found none
    /// (`failed`).
    #[inline(never)]
    pub(super) fn offer_rest_of_piece(
        &self,
        fd: RawFd,
        next: Option<u64>,
        piece: &PieceJob,
        batches: usize,
        failed: &mut bool,
    ) -> bool {
        if *failed || piece.giant().broken() {
            return false;
        }
        let pieces = self.pieces_wanted(batches);
        let Some(next) = next.filter(|_| pieces > 0) else {
            return false;
        };
        let standing = Standing {
            fd,
            next,
            started_at: piece.piece.from,
            until: piece.piece.until,
            giant: Ok(piece.giant()),
        };
        let cut = cut(standing, pieces);
        *failed = cut.is_none();
        self.queue(cut)
    }

    /// Queues `pieces` as jobs; true if there were any.
    fn queue(&self, pieces: Option<Vec<PieceJob>>) -> bool {
        let Some(pieces) = pieces else {
            return false;
        };
        let depth = self.job.depth();
        // Each piece is listed (and counted done) as a directory of this depth.
        if depth <= 1 {
            self.shallow.queued(pieces.len());
        }
        let job = self.job;
        let jobs = pieces.into_iter().map(|piece| job.with_piece(piece));
        self.pool
            .push_dirs(self.slot, depth, jobs.collect::<Vec<_>>().into_iter());
        true
    }
}
