//! The listing of a directory the index records (`--index`: a first run, or a
//! directory whose stamps changed), read whole before it is recorded and
//! visited: by the worker alone, or, for a giant one, cut as a walk cuts it
//! (`split`) and its pieces listed at once by helper threads, then put together.

use super::job::PieceJob;
use super::visit::Visitor;
use super::Listing;
use crate::index::ListingPart;
use crate::os::dirent::DirReader;
use crate::placement::Together;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// The kernel's listing of `fd`, into `listing`.
pub(super) fn read_into(
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

/// How the listing of a directory to be recorded is read: `helpers` threads
/// besides this one may list its pieces (see [`read_recorded`]), which count
/// the pieces they listed in `pieces` and leave their listings in `parts`.
pub(super) struct Reading<'s> {
    pub(super) stop: &'s AtomicBool,
    pub(super) helpers: usize,
    pub(super) pieces: u64,
    /// The listings of a giant directory's pieces, in order, which follow the
    /// entries of the listing read into: recorded from there (as parts, not
    /// copied into one listing), and visited from the record.
    pub(super) parts: Vec<Listing>,
}

impl Reading<'_> {
    /// The listing read into, `listing`, and the pieces' listings after it.
    pub(super) fn parts_after<'l>(&'l self, listing: &'l Listing) -> Vec<ListingPart<'l>> {
        std::iter::once(listing)
            .chain(&self.parts)
            .map(|part| (&part.entries[..], &part.names[..]))
            .collect()
    }

    /// Puts the pieces' listings after `listing`'s entries: for a listing visited
    /// as it is, not from its record.
    pub(super) fn append_parts_to(&mut self, listing: &mut Listing) {
        for part in self.parts.drain(..) {
            listing.append(&part);
        }
    }
}

/// The helper threads a giant directory's recorded listing may have: as many as
/// the walk has workers besides this one while it is alone (its first
/// directories) or cuts every listing (tests), otherwise one for each worker
/// idle now; none with one worker, or on a network filesystem (whose listings
/// the walk cuts only after many batches, `listings::list_sharing`).
pub(super) fn piece_helpers(visitor: &Visitor<'_>, alone: bool) -> usize {
    let (pool, config) = (visitor.pool, visitor.config);
    if !pool.may_share_listings() || pool.latency_bound_listings() || pool.is_stopped() {
        return 0;
    }
    let others = config.threads.saturating_sub(1);
    match alone || config.split_every_listing {
        true => others,
        false => pool.parked_workers().min(others),
    }
}

/// The kernel's listing of `fd`, a directory to be recorded, into `listing`.
/// A recorded listing is read whole before it is visited, so the walk's split of
/// a giant directory among the pool's workers (`split`) never applied to it: a
/// first `--index` run listed a million entries on one thread, 2.3 times a
/// walk's time. So, with helpers, the listing is cut after its first full batch
/// where and as the walk cuts it (`split::cut`), and its pieces are listed at
/// once by this thread and the helpers, each into a listing of its own, put
/// in order after the first batches (`reading.parts`). If any piece does not
/// prove that it took its whole range and nothing else (`listings::proven`), the
/// directory is listed again whole, as a walk's broken split lists what no piece
/// took.
pub(super) fn read_recorded(
    reader: &mut DirReader,
    listing: &mut Listing,
    fd: RawFd,
    reading: &mut Reading<'_>,
) -> io::Result<()> {
    use crate::os::cookies::{self, Watch};
    let stop = reading.stop;
    if reading.helpers == 0 {
        return read_into(reader, listing, fd, stop);
    }
    let wanted = crate::queue::listing_pieces(true, 0, reading.helpers + 1);
    let mut watch: Option<Box<Watch>> = None;
    let mut pieces = None;
    let listed = reader.read_splittable(
        fd,
        stop,
        |entry| {
            if !entry.is_dot_or_dotdot() {
                listing.push(&entry);
            }
        },
        None,
        |filled| {
            pieces = super::split::cut_rest_of_listing(fd, filled, &mut watch, || wanted);
            pieces.is_some()
        },
    );
    let Some(pieces) = pieces else {
        return listed;
    };
    if listed.is_err() || stop.load(Ordering::Relaxed) {
        return listed;
    }
    match list_pieces(reader, &pieces, reading) {
        Some(parts) => {
            reading.parts = parts;
            reading.pieces += pieces.len() as u64;
            Ok(())
        }
        // Cut short: not recorded (see `fill`).
        None if stop.load(Ordering::Relaxed) => Ok(()),
        None => {
            listing.clear();
            cookies::seek(fd, 0)?;
            read_into(reader, listing, fd, stop)
        }
    }
}

/// Lists `pieces` of one directory on this thread and `reading.helpers` more
/// (fewer if a thread or its reader cannot be had), each taking the next piece
/// not yet taken: each piece's listing, in order, or `None` if any piece was not
/// proven whole or the walk stopped.
fn list_pieces(
    reader: &mut DirReader,
    pieces: &[PieceJob],
    reading: &Reading<'_>,
) -> Option<Vec<Listing>> {
    use std::sync::atomic::AtomicUsize;
    let stop = reading.stop;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    // A new thread queued behind its creator on one CPU waits a millisecond or
    // more, unless the one running moves (`placement`).
    let together = Together::new(reading.helpers + 1);
    let take = |reader: &mut DirReader| {
        let mut began = together.begin();
        let mut listed = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(piece) = pieces.get(at) else {
                break;
            };
            match list_piece_whole(reader, piece, stop) {
                Some(part) => listed.push((at, part)),
                None => failed.store(true, Ordering::Relaxed),
            }
            began.look();
        }
        listed
    };
    let mut listed: Vec<(usize, Listing)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (0..reading.helpers)
            .filter_map(|_| reader.sibling())
            .filter_map(|mut helper| {
                std::thread::Builder::new()
                    .name("pfind-pieces".into())
                    .spawn_scoped(scope, move || take(&mut helper))
                    .ok()
            })
            .collect();
        let mut listed = take(reader);
        for helper in helpers {
            match helper.join() {
                Ok(more) => listed.extend(more),
                Err(_) => failed.store(true, Ordering::Relaxed),
            }
        }
        listed
    });
    if failed.load(Ordering::Relaxed) || listed.len() != pieces.len() {
        return None;
    }
    listed.sort_unstable_by_key(|&(at, _)| at);
    Some(listed.into_iter().map(|(_, part)| part).collect())
}

/// The entries of one piece of a giant directory, listed on a descriptor of its
/// own; `None` unless the listing proved that it took the piece's whole range
/// and nothing else (or it failed, or the walk stopped).
fn list_piece_whole(
    reader: &mut DirReader,
    piece: &PieceJob,
    stop: &AtomicBool,
) -> Option<Listing> {
    use crate::os::cookies::Positions;
    use crate::os::dirent::PieceEnd;
    use std::os::fd::AsRawFd;
    let fd = piece.open().ok()?;
    let keyed = piece.giant().keyed();
    let mut positions = Positions::new(piece.piece, !keyed);
    let mut part = Listing::default();
    let ended = reader
        .read_piece(
            fd.as_raw_fd(),
            &mut positions,
            piece.piece,
            false,
            stop,
            |entry| {
                if !entry.is_dot_or_dotdot() {
                    part.push(&entry);
                }
            },
            |_, _| false,
        )
        .ok()?;
    // Handed on: only by the stop, since no batch hands its rest on here.
    let last = piece.piece.until.is_none();
    let whole =
        ended != PieceEnd::Handed && super::listings::proven(ended, &positions, last, keyed);
    whole.then_some(part)
}
