//! Directory cookies: what is asked of the kernel to list one directory in pieces.
//!
//! Every `getdents64` record carries `d_off`, the *cookie* at which the listing
//! goes on after that record: seeking a descriptor of the directory to it and
//! listing from there returns the next entry and those after it. So an entry's
//! *position* is the `d_off` of the record before it, and a directory is a sequence
//! of positions. Cut that sequence at positions that belong to real entries and
//! the pieces can be listed by separate descriptors, each seeking to its start and
//! stopping where the next piece starts: the union is the whole listing, every
//! entry exactly once. That is what lets several workers share one giant directory
//! (issue 36), and what this module provides: which filesystems' cookies are known
//! to be ordered and in which direction ([`Order::of`]), a [`Probe`] that finds real
//! cookies near a guessed one, and [`Positions`], which follows the positions of a
//! listing record by record and says when a piece ends.
//!
//! Measured on Linux 6.18, with every union checked against a plain listing:
//! - ext4 lists in hash order, cookies ascending (63-bit for a 64-bit process);
//!   xfs lists by byte offset / 8, btrfs by an insertion counter: ascending too.
//! - tmpfs lists `.` and `..` at positions 0 and 1, then newest first, its cookies
//!   descending (an ascending split there lost half a directory or doubled it).
//! - A guessed value is not a position: seeking to one returns the first entry at
//!   or past it, whose own position is unknown. So a boundary is always the `d_off`
//!   of a record that has another record after it ([`Probe::boundary`]).
//! - The last record's `d_off` is an end-of-directory marker (ext4 2^63-1, btrfs
//!   and tmpfs `INT_MAX`), not a position: never used as a boundary.
//! - On ext4 entries whose hashes collide share one position. A batch that ends
//!   inside such a chain leaves the descriptor at that position with part of the
//!   chain already returned: a piece starting there would return it again, so no
//!   split is made at that point ([`last_positions`]).
//!
//! Anything else (another filesystem, another system, a cookie that moves the
//! wrong way) is not split: one descriptor lists the directory, as always.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Which way a filesystem's cookies run through a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

/// How far a filesystem's cookies are trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// Shown exact here (ext4, xfs, btrfs, tmpfs): cut on the order alone.
    Known(Order),
    /// A FUSE filesystem: its server makes the cookies, so each listing is cut only
    /// once a probe has read back a record of it at its own position
    /// ([`Probe::reads_back`]), on a new description, as a piece will.
    Checked(Order),
}

impl Trust {
    /// The order cookies run in, however far they are trusted.
    pub fn order(self) -> Order {
        match self {
            Trust::Known(order) | Trust::Checked(order) => order,
        }
    }
}

/// Byte offsets inside a `struct linux_dirent64` record.
const INO: usize = 0;
const OFF: usize = 8;
const RECLEN: usize = 16;
const NAME: usize = 19;

// The filesystems whose cookies are known to be ordered, by `statfs` `f_type`
// (Linux's magic numbers: elsewhere nothing is cut).
#[cfg(any(target_os = "linux", test))]
const EXT4: i64 = 0xEF53;
#[cfg(any(target_os = "linux", test))]
const XFS: i64 = 0x5846_5342;
#[cfg(any(target_os = "linux", test))]
const BTRFS: i64 = 0x9123_683E;
#[cfg(any(target_os = "linux", test))]
const TMPFS: i64 = 0x0102_1994;
#[cfg(any(target_os = "linux", test))]
const FUSE: i64 = 0x6573_5546;

impl Order {
    /// The order of the cookies of the directory open as `fd`, if its filesystem is
    /// one where splitting a listing was shown exact; `None` keeps one reader.
    #[cfg(target_os = "linux")]
    pub fn of(fd: RawFd) -> Option<Trust> {
        let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
        // SAFETY: `fd` is an open descriptor and `buf` a writable statfs.
        if unsafe { libc::fstatfs(fd, buf.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: fstatfs returned 0, so the struct is initialised.
        let stat = unsafe { buf.assume_init() };
        // `f_type` is i64 on x86_64 and narrower elsewhere.
        #[allow(clippy::unnecessary_cast)]
        Order::of_fs_type(stat.f_type as i64)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn of(_fd: RawFd) -> Option<Trust> {
        None
    }

    #[cfg(any(target_os = "linux", test))]
    fn of_fs_type(kind: i64) -> Option<Trust> {
        match kind {
            EXT4 | XFS | BTRFS => Some(Trust::Known(Order::Ascending)),
            TMPFS => Some(Trust::Known(Order::Descending)),
            // Servers that pass their source's cookies on (latencyfs, a passthrough)
            // list in ascending order; any other is caught by the checks.
            FUSE => Some(Trust::Checked(Order::Ascending)),
            _ => None,
        }
    }

    /// True when position `later` comes strictly after `earlier` in a listing.
    pub fn after(self, earlier: u64, later: u64) -> bool {
        match self {
            Order::Ascending => later > earlier,
            Order::Descending => later < earlier,
        }
    }

    /// The point `fraction` (`num / den`) of the way from `from` to `to`.
    pub fn between(self, from: u64, to: u64, num: u64, den: u64) -> u64 {
        let step = |span: u64| ((span as u128 * num as u128) / den.max(1) as u128) as u64;
        match self {
            Order::Ascending => from + step(to.saturating_sub(from)),
            Order::Descending => from - step(from.saturating_sub(to)),
        }
    }
}

/// One record of a `getdents64` batch: its inode, the cookie after it and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    pub ino: u64,
    pub next: u64,
    pub name: &'a [u8],
    /// The whole record's length in the batch (its `d_reclen`).
    pub len: usize,
}

/// The records of a batch `getdents64` filled, in order. A malformed record ends
/// the iteration (the listing itself reports it).
pub fn records(filled: &[u8]) -> impl Iterator<Item = Record<'_>> {
    let mut offset = 0;
    std::iter::from_fn(move || {
        let record = filled.get(offset..)?;
        if record.len() <= NAME {
            return None;
        }
        let reclen = u16::from_ne_bytes([record[RECLEN], record[RECLEN + 1]]) as usize;
        if reclen <= NAME || reclen > record.len() {
            return None;
        }
        offset += reclen;
        let word = |at: usize| u64::from_ne_bytes(record[at..at + 8].try_into().unwrap_or([0; 8]));
        let name = &record[NAME..reclen];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
        Some(Record {
            ino: word(INO),
            next: word(OFF),
            name,
            len: reclen,
        })
    })
}

/// True for the `.` and `..` records, which tmpfs lists at positions 0 and 1
/// whatever the order of the rest.
pub fn is_dot(name: &[u8]) -> bool {
    name == b"." || name == b".."
}

/// The positions of a batch's last record and of what follows it: where a piece
/// may start if the listing is cut after this batch. `None` when the batch gives no
/// safe cut: fewer than two records, a cookie that moves against `order`, or a last
/// record that shares its position with what follows (an ext4 hash collision
/// running past the end of the batch).
pub fn last_positions(filled: &[u8], order: Order) -> Option<u64> {
    let mut previous: Option<u64> = None;
    let mut last_position = None;
    let mut next = None;
    for record in records(filled) {
        if is_dot(record.name) {
            previous = None;
            continue;
        }
        if let Some(position) = previous {
            if !order.after(position, record.next) {
                return None;
            }
            last_position = Some(position);
        }
        previous = Some(record.next);
        next = Some(record.next);
    }
    let (last_position, next) = (last_position?, next?);
    order.after(last_position, next).then_some(next)
}

/// A spare open file description of a directory, for looking at cookies without
/// moving the listing's own descriptor.
pub struct Probe {
    fd: OwnedFd,
}

/// Enough for two records of the longest names.
const PROBE_BUFFER: usize = 2048;

impl Probe {
    /// A new description of the directory open as `dir` (`openat(dir, ".")`: the
    /// same directory whatever happened to its path, with an offset of its own).
    pub fn open(dir: RawFd) -> io::Result<Probe> {
        reopen(dir).map(|fd| Probe { fd })
    }

    /// The first two records at or past `cookie`, as (inode, name) of the first and
    /// the position of the second; `None` past the last two entries.
    fn first_two(&self, cookie: u64) -> io::Result<Option<(u64, Vec<u8>, u64)>> {
        let mut buffer = [0u8; PROBE_BUFFER];
        let mut records = records(self.read_at(cookie, &mut buffer)?);
        let (Some(first), Some(_second)) = (records.next(), records.next()) else {
            return Ok(None);
        };
        Ok(Some((first.ino, first.name.to_vec(), first.next)))
    }

    /// A real position near `guess`: that of the entry after the first one at or
    /// past `guess` (its record's `d_off`), if another entry follows it.
    pub fn boundary(&self, guess: u64) -> io::Result<Option<u64>> {
        Ok(self.first_two(guess)?.map(|(_, _, next)| next))
    }

    /// True when seeking this description to the position of the last record but
    /// one of `filled` (a batch of another description's listing, in `order`)
    /// reads that record back first, with the same `d_off`: the cookies are
    /// positions any description of the directory can seek to.
    pub fn reads_back(&self, filled: &[u8], order: Order) -> io::Result<bool> {
        let tail: Vec<Record<'_>> = records(filled).filter(|r| !is_dot(r.name)).collect();
        // The record before the last, so that a probe at its position finds two.
        let [.., before, record, _last] = tail.as_slice() else {
            return Ok(false);
        };
        if !order.after(before.next, record.next) {
            return Ok(false);
        }
        Ok(self
            .first_two(before.next)?
            .is_some_and(|(ino, name, next)| {
                ino == record.ino && name == record.name && next == record.next
            }))
    }

    /// True when an entry is at or past `cookie`, with another after it.
    pub fn has_entries_past(&self, cookie: u64) -> io::Result<bool> {
        Ok(self.first_two(cookie)?.is_some())
    }

    /// True when the first entry at or past `cookie` is the one named `name` with
    /// inode `ino`.
    pub fn first_is(&self, cookie: u64, ino: u64, name: &[u8]) -> io::Result<bool> {
        let mut buffer = [0u8; PROBE_BUFFER];
        let first = records(self.read_at(cookie, &mut buffer)?).next();
        Ok(first.is_some_and(|first| first.ino == ino && first.name == name))
    }

    /// One batch of records at or past `cookie`, into `buffer`.
    fn read_at<'b>(&self, cookie: u64, buffer: &'b mut [u8]) -> io::Result<&'b [u8]> {
        seek(self.fd.as_raw_fd(), cookie)?;
        getdents(self.fd.as_raw_fd(), buffer)
    }
}

/// `openat(dir, ".")`: a new open file description of the directory `dir`.
pub fn reopen(dir: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: `dir` is an open descriptor and the path a NUL-terminated literal.
    let fd = unsafe {
        libc::openat(
            dir,
            c".".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Moves the listing of `fd` to `cookie`.
pub fn seek(fd: RawFd, cookie: u64) -> io::Result<()> {
    let cookie = libc::off_t::try_from(cookie)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "cookie out of range"))?;
    // SAFETY: lseek on an open descriptor.
    let at = unsafe { libc::lseek(fd, cookie, libc::SEEK_SET) };
    if at < 0 {
        return Err(io::Error::last_os_error());
    }
    if at != cookie {
        return Err(io::Error::other("the directory did not seek to the cookie"));
    }
    Ok(())
}

/// One `getdents64` call into `buffer`, retried when interrupted.
#[cfg(target_os = "linux")]
fn getdents(fd: RawFd, buffer: &mut [u8]) -> io::Result<&[u8]> {
    loop {
        // SAFETY: the kernel writes at most `buffer.len()` bytes into `buffer`.
        let filled =
            unsafe { libc::syscall(libc::SYS_getdents64, fd, buffer.as_mut_ptr(), buffer.len()) };
        if filled >= 0 {
            return Ok(&buffer[..filled as usize]);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn getdents(_fd: RawFd, _buffer: &mut [u8]) -> io::Result<&[u8]> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// A piece of a listing: from the position `from` (the entry there and those after
/// it) up to, not including, the position `until` (`None`: to the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub from: u64,
    pub until: Option<u64>,
    pub order: Order,
}

/// What [`Positions::step`] says of one record of a piece's listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The record is in the piece: list it.
    Take,
    /// The record is outside the piece, but the listing goes on (a listing out of
    /// order is read to its end, taking what is in the piece).
    Skip,
    /// The piece is over: this record and all after it belong to the next.
    End,
}

/// Follows the positions of a piece's listing, record by record. A listing in
/// order ends at the piece's end; one where a cookie moved the wrong way (the
/// directory changed under it) is read to its end instead, each record taken only
/// if its position is in the piece: nothing is lost or listed twice by reading on.
pub struct Positions {
    piece: Piece,
    /// The position of the next record; `None` before the first, whose position is
    /// taken to be `from` (see [`Positions::first_may_be_next_pieces`]).
    at: Option<u64>,
    disordered: bool,
}

impl Positions {
    pub fn new(piece: Piece) -> Positions {
        Positions {
            piece,
            at: None,
            disordered: false,
        }
    }

    /// True once a cookie moved against the order.
    pub fn disordered(&self) -> bool {
        self.disordered
    }

    /// The position listing goes on from, once a record was seen.
    pub fn at(&self) -> Option<u64> {
        self.at
    }

    /// True when `position` is inside the piece.
    fn contains(&self, position: u64) -> bool {
        let Piece { from, until, order } = self.piece;
        let started = position == from || order.after(from, position);
        started && until.is_none_or(|until| order.after(position, until))
    }

    /// What to do with `record`, the next one of the listing.
    pub fn step(&mut self, record: &Record<'_>) -> Step {
        let position = self.at.unwrap_or(self.piece.from);
        let order = self.piece.order;
        self.at = Some(record.next);
        if is_dot(record.name) {
            return Step::Skip;
        }
        if !order.after(position, record.next) && record.next != position {
            self.disordered = true;
        }
        if self.contains(position) {
            Step::Take
        } else if self.disordered {
            Step::Skip
        } else {
            Step::End
        }
    }

    /// The first record of a piece is taken to be at `from`, where an entry was
    /// when the piece was cut. If that entry has gone since, the first record is
    /// the next one, which may lie past `until`: true when its `d_off` says it might
    /// (the caller then asks the [`Probe`] whether it is the next piece's first).
    pub fn first_may_be_next_pieces(&self, record: &Record<'_>) -> bool {
        let Piece { until, order, .. } = self.piece;
        until.is_some_and(|until| order.after(until, record.next))
    }
}

/// Where a listing at `from` may be cut into about `pieces` pieces, up to `until`
/// (`None`: the directory's end), each cut a real position found by `probe`.
/// `extent` is how far the positions go when `until` is `None`: at least `from`'s
/// side of the directory's last position. The cuts come back in listing order,
/// strictly after `from` and before `until`.
pub fn cuts(
    probe: &Probe,
    order: Order,
    from: u64,
    until: Option<u64>,
    extent: u64,
    pieces: usize,
) -> io::Result<Vec<u64>> {
    let end = until.unwrap_or(extent);
    let pieces = pieces.max(1) as u64;
    let mut cuts: Vec<u64> = Vec::new();
    for index in 1..pieces {
        let guess = order.between(from, end, index, pieces);
        let Some(cut) = probe.boundary(guess)? else {
            break;
        };
        let after_last = cuts.last().map_or(from, |&last| last);
        let before_end = until.is_none_or(|until| order.after(cut, until));
        if order.after(after_last, cut) && before_end {
            cuts.push(cut);
        }
    }
    Ok(cuts)
}

/// How far the positions of an ascending listing go past `from`, found by probing:
/// doubling a step of `span` until nothing is there, then halving the gap four
/// times. At least `from`; at most `u64::MAX / 2` (cookies are signed 64-bit).
pub fn ascending_extent(probe: &Probe, from: u64, span: u64) -> io::Result<u64> {
    const LIMIT: u64 = i64::MAX as u64;
    let mut low = from;
    let mut step = span.max(64);
    let mut high = loop {
        let guess = low.saturating_add(step).min(LIMIT);
        if !probe.has_entries_past(guess)? {
            break guess;
        }
        if guess == LIMIT {
            return Ok(LIMIT);
        }
        low = guess;
        step = step.saturating_mul(2);
    };
    for _ in 0..4 {
        let middle = low + (high - low) / 2;
        if probe.has_entries_past(middle)? {
            low = middle;
        } else {
            high = middle;
        }
    }
    Ok(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(next: u64, name: &[u8]) -> Record<'_> {
        Record {
            ino: 1,
            next,
            name,
            len: 0,
        }
    }

    #[test]
    fn orders_compare_and_divide_in_their_direction() {
        assert!(Order::Ascending.after(3, 4));
        assert!(!Order::Ascending.after(4, 4));
        assert!(Order::Descending.after(4, 3));
        assert_eq!(Order::Ascending.between(10, 110, 1, 4), 35);
        assert_eq!(Order::Descending.between(110, 10, 1, 4), 85);
        assert_eq!(Order::Ascending.between(0, u64::MAX, 1, 2), u64::MAX / 2);
        assert_eq!(
            Order::of_fs_type(EXT4),
            Some(Trust::Known(Order::Ascending))
        );
        assert_eq!(
            Order::of_fs_type(TMPFS),
            Some(Trust::Known(Order::Descending))
        );
        assert_eq!(
            Order::of_fs_type(FUSE),
            Some(Trust::Checked(Order::Ascending))
        );
        assert_eq!(Order::of_fs_type(0x6969), None);
    }

    /// A piece takes what is between its ends, ends at its `until`, and reads on to
    /// the end (taking only its own) once a cookie moves the wrong way.
    #[test]
    fn positions_take_the_piece_and_end_at_its_end() {
        let piece = Piece {
            from: 10,
            until: Some(30),
            order: Order::Ascending,
        };
        let mut positions = Positions::new(piece);
        // Entries at 10, 20, then 30 (the next piece's first).
        assert_eq!(positions.step(&record(20, b"a")), Step::Take);
        assert_eq!(positions.step(&record(30, b"b")), Step::Take);
        assert_eq!(positions.step(&record(40, b"c")), Step::End);

        let mut positions = Positions::new(piece);
        assert_eq!(positions.step(&record(20, b"a")), Step::Take);
        // The cookie goes back: disordered, read on.
        assert_eq!(positions.step(&record(5, b"b")), Step::Take);
        assert!(positions.disordered());
        assert_eq!(positions.step(&record(25, b"c")), Step::Skip);
        assert_eq!(positions.step(&record(35, b"d")), Step::Take);
        assert_eq!(positions.step(&record(40, b"e")), Step::Skip);

        // Descending, as tmpfs lists: from 9 down to, not including, 5.
        let piece = Piece {
            from: 9,
            until: Some(5),
            order: Order::Descending,
        };
        let mut positions = Positions::new(piece);
        for (next, step) in [(8, Step::Take), (6, Step::Take), (5, Step::Take)] {
            assert_eq!(positions.step(&record(next, b"x")), step);
        }
        assert_eq!(positions.step(&record(4, b"y")), Step::End);
        // Equal positions (ext4 hash collisions) are not a disorder.
        let mut positions = Positions::new(Piece {
            from: 10,
            until: None,
            order: Order::Ascending,
        });
        assert_eq!(positions.step(&record(10, b"a")), Step::Take);
        assert_eq!(positions.step(&record(12, b"b")), Step::Take);
        assert!(!positions.disordered());
    }

    #[test]
    fn a_first_record_past_the_end_is_questioned() {
        let positions = Positions::new(Piece {
            from: 10,
            until: Some(30),
            order: Order::Ascending,
        });
        assert!(!positions.first_may_be_next_pieces(&record(30, b"a")));
        assert!(positions.first_may_be_next_pieces(&record(31, b"a")));
    }

    fn batch(records: &[(u64, &[u8])]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for &(next, name) in records {
            let reclen = (NAME + name.len() + 1).next_multiple_of(8);
            let mut record = vec![0u8; reclen];
            record[OFF..OFF + 8].copy_from_slice(&next.to_ne_bytes());
            record[RECLEN..RECLEN + 2].copy_from_slice(&(reclen as u16).to_ne_bytes());
            record[NAME..NAME + name.len()].copy_from_slice(name);
            bytes.extend_from_slice(&record);
        }
        bytes
    }

    /// A probe on a new description reads a record of a real listing back at its
    /// position, and refuses a batch whose cookie was changed.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_probe_reads_back_a_record_at_its_position() {
        let tmp = tempfile::tempdir().unwrap();
        for index in 0..200 {
            std::fs::File::create(tmp.path().join(format!("entry.{index}"))).unwrap();
        }
        let dir = std::fs::File::open(tmp.path()).unwrap();
        let Some(trust) = Order::of(dir.as_raw_fd()) else {
            eprintln!("skipped: the temporary directory's filesystem is not cut");
            return;
        };
        let mut buffer = vec![0u8; 64 * 1024];
        let filled = getdents(dir.as_raw_fd(), &mut buffer).unwrap().to_vec();
        let probe = Probe::open(dir.as_raw_fd()).unwrap();
        assert!(probe.reads_back(&filled, trust.order()).unwrap());
        // The record before the last claims another position.
        let offsets: Vec<usize> = records(&filled)
            .scan(0, |at, record| {
                let start = *at;
                *at += record.len;
                Some(start)
            })
            .collect();
        let mut changed = filled.clone();
        let before_last = offsets[offsets.len() - 2];
        let next = u64::from_ne_bytes(changed[before_last + OFF..][..8].try_into().unwrap());
        let moved = match trust.order() {
            Order::Ascending => next + 1,
            Order::Descending => next - 1,
        };
        changed[before_last + OFF..][..8].copy_from_slice(&moved.to_ne_bytes());
        assert!(!probe.reads_back(&changed, trust.order()).unwrap());
    }

    #[test]
    fn a_batch_is_cut_only_where_the_next_position_is_new() {
        let filled = batch(&[(1, b"."), (12, b".."), (11, b"a"), (10, b"b")]);
        assert_eq!(last_positions(&filled, Order::Descending), Some(10));
        assert_eq!(last_positions(&filled, Order::Ascending), None);
        // The last two share a position: a hash chain runs past the batch.
        let filled = batch(&[(5, b"a"), (7, b"b"), (7, b"c")]);
        assert_eq!(last_positions(&filled, Order::Ascending), None);
        let filled = batch(&[(5, b"a"), (7, b"b"), (9, b"c")]);
        assert_eq!(last_positions(&filled, Order::Ascending), Some(9));
        let parsed: Vec<_> = records(&filled)
            .map(|r| (r.next, r.name.to_vec()))
            .collect();
        assert_eq!(parsed[2], (9, b"c".to_vec()));
    }
}
