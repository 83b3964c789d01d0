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
//! a network filesystem), and never from a batch whose cookies say it is unsafe.
//! Every piece keeps the same directory open (`Giant::fd`), so renaming it or
//! replacing its path while its pieces wait changes nothing about what they list.

use crate::os::cookies::{self, Order, Piece, Probe, Trust};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Arc;

/// The listing buffer when every file is `stat`ed (`-S`, times, owners, `-t x`,
/// or no file types): a quarter of the usual, so that a directory of a few
/// hundred entries, whose `stat`s cost ten times its listing, is already cut
/// for idle workers, and its `stat`s shared with them (issue 36, item 2). The
/// listing itself pays four system calls where it paid one, next to a `stat` an
/// entry.
pub const STAT_LISTING_BUFFER: usize = 16 * 1024;

/// What the pieces of one directory's listing share.
pub struct Giant {
    /// A description of the directory, kept open while any piece waits: each piece
    /// opens its own from this one (`cookies::reopen`).
    fd: OwnedFd,
    order: Order,
    /// How far its positions go (for cutting the last piece again).
    extent: u64,
}

/// A job's piece of a giant directory.
pub struct PieceJob {
    giant: Arc<Giant>,
    pub(super) piece: Piece,
}

impl PieceJob {
    /// What the pieces of its directory share.
    pub(super) fn giant(&self) -> &Arc<Giant> {
        &self.giant
    }

    /// A descriptor of the directory of its own, to seek and list the piece with.
    pub(super) fn open(&self) -> io::Result<OwnedFd> {
        cookies::reopen(self.giant.fd.as_raw_fd())
    }
}

/// Where a listing stands when it may be cut: what the cut needs to know.
pub(super) struct Standing<'a> {
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
    /// far its filesystem's cookies are trusted and the batch just listed, which a
    /// [`Trust::Checked`] filesystem must read back before a first cut.
    pub giant: Result<&'a Arc<Giant>, (Trust, &'a [u8])>,
}

/// Cuts the rest of a listing into about `pieces` pieces, if it can be done
/// exactly; `None` leaves the listing whole (and the caller reads on).
pub(super) fn cut(standing: Standing<'_>, pieces: usize) -> Option<Vec<PieceJob>> {
    let (giant, new_giant) = match standing.giant {
        Ok(giant) => (giant.clone(), false),
        Err((trust, batch)) => {
            let order = trust.order();
            let fd = cookies::reopen(standing.fd).ok()?;
            if let Trust::Checked(_) = trust {
                let probe = Probe::open(fd.as_raw_fd()).ok()?;
                probe.reads_back(batch, order).ok()?.then_some(())?;
            }
            let giant = Giant {
                fd,
                order,
                extent: 0,
            };
            (Arc::new(giant), true)
        }
    };
    let probe = Probe::open(giant.fd.as_raw_fd()).ok()?;
    let order = giant.order;
    let extent = match (standing.until, order) {
        (Some(until), _) => until,
        (None, _) if !new_giant => giant.extent,
        // tmpfs: positions count down to 2 (0 and 1 are `.` and `..`).
        (None, Order::Descending) => 1,
        (None, Order::Ascending) => {
            let span = standing.next.saturating_sub(standing.started_at);
            cookies::ascending_extent(&probe, standing.next, span).ok()?
        }
    };
    if !order.after(standing.next, extent) && standing.until.is_none() {
        return None;
    }
    let giant = if new_giant {
        let mut giant = Arc::into_inner(giant)?;
        giant.extent = extent;
        Arc::new(giant)
    } else {
        giant
    };
    let cuts = cookies::cuts(&probe, order, standing.next, standing.until, extent, pieces).ok()?;
    if cuts.is_empty() {
        return None;
    }
    let starts = std::iter::once(standing.next).chain(cuts.iter().copied());
    let ends = cuts.iter().copied().map(Some).chain([standing.until]);
    Some(
        starts
            .zip(ends)
            .map(|(from, until)| PieceJob {
                giant: giant.clone(),
                piece: Piece { from, until, order },
            })
            .collect(),
    )
}
