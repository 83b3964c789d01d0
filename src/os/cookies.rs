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
//!   xfs lists by byte offset / 8, btrfs by an insertion counter: ascending too,
//!   and a position is a key of the entry ([`Trust::Keyed`]).
//! - tmpfs (since 6.14) lists `.` and `..` at positions 0 and 1, then its list
//!   of children, newest first; a position is the entry's own offset. A rename
//!   over a name moves the entry to the head with the old entry's offset, so the
//!   listing is descending only until such an entry ([`Trust::Listed`]): 60,000
//!   files whose oldest half was replaced that way lost the younger half when cut
//!   as descending throughout (issue 47). So every listing checks its order as it
//!   goes ([`Watch`], [`Positions`]), and what readers took is kept ([`Taken`])
//!   for the one that lists the rest if a check fails ([`Untaken`]).
//! - A guessed value is not a position: seeking to one returns the first entry at
//!   or past it, whose own position is unknown. So a boundary is always the `d_off`
//!   of a record that has another record after it ([`Probe::boundary`]).
//! - The last record's `d_off` is an end-of-directory marker (ext4 2^63-1, btrfs
//!   and tmpfs `INT_MAX`), not a position: never used as a boundary, and never
//!   judged for order (positions are compared, not `d_off`s).
//! - On ext4 entries whose hashes collide share one position. A batch that ends
//!   inside such a chain leaves the descriptor at that position with part of the
//!   chain already returned: a piece starting there would return it again, so no
//!   split is made at that point ([`last_positions`]).
//! - FUSE servers make their own cookies, often numbering each open's snapshot:
//!   not cut.
//!
//! Anything else (another filesystem, another system, tmpfs before 6.14) is not
//! split: one descriptor lists the directory, as always.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Which way a filesystem's cookies run through a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

/// How far a filesystem's cookies are trusted, and what a position names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// ext4, xfs, btrfs: a position is a key the filesystem lists its entries in
    /// the order of (a name's hash, a byte offset, an insertion counter), even
    /// while the directory changes, so a piece takes every entry whose key lies
    /// between its ends.
    Keyed(Order),
    /// tmpfs since Linux 6.14: a position is the entry's own offset, unique, but
    /// the listing runs in the order of the directory's list of children, which
    /// a rename over a name reorders. A piece is exact only where the listing
    /// shows it: each piece checks that it starts at the entry the cut was made
    /// before and ends exactly at the next piece's start, in order.
    Listed(Order),
}

impl Trust {
    /// The order cookies run in, however far they are trusted.
    pub fn order(self) -> Order {
        match self {
            Trust::Keyed(order) | Trust::Listed(order) => order,
        }
    }

    /// True when positions are keys of the filesystem's own order ([`Trust::Keyed`]).
    pub fn keyed(self) -> bool {
        matches!(self, Trust::Keyed(_))
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

/// The first kernel whose tmpfs lists in the order of its children, with each
/// entry's own offset as its position (measured on 6.18; issue 47). Before it
/// tmpfs listed otherwise, and is not cut.
#[cfg(any(target_os = "linux", test))]
const TMPFS_LISTED_SINCE: (u32, u32) = (6, 14);

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
        Order::of_fs_type(stat.f_type as i64, kernel_release())
    }

    #[cfg(not(target_os = "linux"))]
    pub fn of(_fd: RawFd) -> Option<Trust> {
        None
    }

    /// The trust of a filesystem of `statfs` type `kind` under the kernel
    /// `release` (major, minor).
    #[cfg(any(target_os = "linux", test))]
    fn of_fs_type(kind: i64, release: Option<(u32, u32)>) -> Option<Trust> {
        match kind {
            EXT4 | XFS | BTRFS => Some(Trust::Keyed(Order::Ascending)),
            TMPFS if release.is_some_and(|release| release >= TMPFS_LISTED_SINCE) => {
                Some(Trust::Listed(Order::Descending))
            }
            // A FUSE server makes its cookies: libfuse's "fill" mode (bindfs,
            // sshfs, fuse2fs, most fusepy filesystems) numbers each open's own
            // snapshot, so a cookie from one open names another entry in the next
            // once anything before it changed, and every open re-reads the whole
            // directory; others ascend for part of a listing only. No probe
            // shows a server's cookies stable across opens: never cut (issue 47).
            FUSE => None,
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

/// The running kernel's release as (major, minor), read once from `uname`.
#[cfg(target_os = "linux")]
fn kernel_release() -> Option<(u32, u32)> {
    static RELEASE: std::sync::OnceLock<Option<(u32, u32)>> = std::sync::OnceLock::new();
    *RELEASE.get_or_init(|| {
        let mut name = std::mem::MaybeUninit::<libc::utsname>::uninit();
        // SAFETY: `name` is a writable utsname.
        if unsafe { libc::uname(name.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: uname returned 0, so the struct is initialised; `release` is a
        // NUL-terminated string inside it.
        let release = unsafe { std::ffi::CStr::from_ptr(name.assume_init_ref().release.as_ptr()) };
        parse_release(release.to_bytes())
    })
}

/// "6.18.44-fc" as (6, 18).
#[cfg(any(target_os = "linux", test))]
fn parse_release(release: &[u8]) -> Option<(u32, u32)> {
    let text = std::str::from_utf8(release).ok()?;
    let mut parts = text.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
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

/// The name in a `getdents64` record's name area (from `d_name` to the record's
/// end): the kernel pads a record to eight bytes after the name's NUL, so the NUL
/// is in the area's last word, found there a word at a time rather than byte by
/// byte from the start (a scan from the start was a fifth of a giant directory's
/// piece listing on xfs, [`records`]). Also `dirent::RawEntry::name`'s.
#[inline]
pub fn name_in_area(area: &[u8]) -> &[u8] {
    let Some(start) = area.len().checked_sub(8) else {
        return short_name(area);
    };
    let mut word = [0u8; 8];
    word.copy_from_slice(&area[start..]);
    let word = u64::from_le_bytes(word);
    let zero_marks = word.wrapping_sub(0x0101_0101_0101_0101) & !word & 0x8080_8080_8080_8080;
    if zero_marks == 0 {
        return area; // unreachable for kernel data; be safe anyway
    }
    &area[..start + (zero_marks.trailing_zeros() / 8) as usize]
}

/// The name in a name area shorter than a word (a short `getdents64` record or a
/// `readdir` name under eight bytes): a plain scan for the terminator.
#[inline]
fn short_name(area: &[u8]) -> &[u8] {
    match area.iter().position(|&b| b == 0) {
        Some(nul) => &area[..nul],
        None => area,
    }
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
        let name = name_in_area(&record[NAME..reclen]);
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

    /// The first two records at or past `cookie`: the first's `d_off` and the
    /// second as an [`Entry`]; `None` past the last two entries.
    fn first_two(&self, cookie: u64) -> io::Result<Option<(u64, Entry)>> {
        let mut buffer = [0u8; PROBE_BUFFER];
        let mut records = records(self.read_at(cookie, &mut buffer)?);
        let (Some(first), Some(second)) = (records.next(), records.next()) else {
            return Ok(None);
        };
        Ok(Some((first.next, Entry::of(&second))))
    }

    /// A real position near `guess`: that of the entry after the first one at or
    /// past `guess` (its record's `d_off`), if another entry follows it, with the
    /// entry found there.
    pub fn boundary(&self, guess: u64) -> io::Result<Option<Cut>> {
        Ok(self.first_two(guess)?.map(|(at, first)| Cut { at, first }))
    }

    /// The entry at `position`, as this description lists it.
    pub fn entry_at(&self, position: u64) -> io::Result<Option<Entry>> {
        let mut buffer = [0u8; PROBE_BUFFER];
        let first = records(self.read_at(position, &mut buffer)?).next();
        Ok(first.map(|record| Entry::of(&record)))
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

/// An entry as a listing shows it: its inode and the position after it. Under
/// [`Trust::Listed`] no two entries of a directory share both (positions are
/// unique), so a piece checks with it that its first record is the one the cut
/// was made before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub ino: u64,
    pub next: u64,
}

impl Entry {
    fn of(record: &Record<'_>) -> Entry {
        Entry {
            ino: record.ino,
            next: record.next,
        }
    }

    /// True when `record` is this entry.
    pub fn is(self, record: &Record<'_>) -> bool {
        Entry::of(record) == self
    }
}

/// A real position found by [`Probe::boundary`], with the entry there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub at: u64,
    pub first: Entry,
}

/// A piece of a listing: from the position `from` (the entry there and those after
/// it) up to, not including, the position `until` (`None`: to the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub from: u64,
    pub until: Option<u64>,
    pub order: Order,
    /// Under [`Trust::Listed`], the entry at `from` when the piece was cut: a
    /// piece whose first record is another one does not take it (see
    /// [`Positions`]).
    pub first: Option<Entry>,
}

/// What [`Positions::step`] says of one record of a piece's listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The record is in the piece: list it.
    Take,
    /// `.` or `..`: not an entry.
    Skip,
    /// The piece is over: this record and all after it are not its own, either
    /// because the record is past the piece's end or because its position is out
    /// of the listing's order ([`Positions::disordered`]).
    End,
}

/// Follows the positions of a piece's listing, record by record, and checks the
/// order as it goes: each record's position (the `d_off` of the record before
/// it) must come after the one before. A record out of order ends the piece
/// untaken, and [`Positions::proven`] is then false: what the listing holds past
/// that point is not known to be in any piece, and the walk lists the directory's
/// rest whole (`walker::split`). Positions, not `d_off`s, are compared, so the
/// last record's end-of-directory marker is never judged.
pub struct Positions {
    piece: Piece,
    /// The position of the next record; `None` before the first, whose position is
    /// taken to be `from`.
    at: Option<u64>,
    /// The position of the last record taken.
    last: Option<u64>,
    /// The position of the record that ended the piece ([`Step::End`]).
    end: Option<u64>,
    disordered: bool,
    /// Under [`Trust::Listed`], every position taken.
    keys: Option<Vec<u64>>,
}

impl Positions {
    /// Follows `piece`; `keys` records the positions taken ([`Trust::Listed`]).
    pub fn new(piece: Piece, keys: bool) -> Positions {
        Positions {
            piece,
            at: None,
            last: None,
            end: None,
            disordered: false,
            keys: keys.then(Vec::new),
        }
    }

    /// True once a position came out of order: the piece ended there.
    pub fn disordered(&self) -> bool {
        self.disordered
    }

    /// The position listing goes on from, once a record was seen.
    pub fn at(&self) -> Option<u64> {
        self.at
    }

    /// True when the piece ended at the record at exactly its `until`, in order:
    /// the next piece's first entry is the one after this piece's last.
    pub fn ended_exactly(&self) -> bool {
        !self.disordered && self.end.is_some() && self.end == self.piece.until
    }

    /// True when `position` is inside the piece.
    fn contains(&self, position: u64) -> bool {
        let Piece {
            from, until, order, ..
        } = self.piece;
        let started = position == from || order.after(from, position);
        started && until.is_none_or(|until| order.after(position, until))
    }

    /// What to do with `record`, the next one of the listing.
    pub fn step(&mut self, record: &Record<'_>) -> Step {
        let position = self.at.unwrap_or(self.piece.from);
        self.at = Some(record.next);
        if is_dot(record.name) {
            return Step::Skip;
        }
        let order = self.piece.order;
        // Equal positions are an ext4 hash chain, in order.
        if let Some(last) = self.last {
            if position != last && !order.after(last, position) {
                self.disordered = true;
                self.end = Some(position);
                return Step::End;
            }
        }
        if !self.contains(position) {
            self.end = Some(position);
            return Step::End;
        }
        self.last = Some(position);
        if let Some(keys) = &mut self.keys {
            keys.push(position);
        }
        Step::Take
    }

    /// The first record of a piece is taken to be at `from`, where an entry was
    /// when the piece was cut. If that entry has gone since, the first record is
    /// the next one, which may lie past `until`: true when its `d_off` says it might
    /// (the caller then asks the [`Probe`] whether it is the next piece's first).
    pub fn first_may_be_next_pieces(&self, record: &Record<'_>) -> bool {
        let Piece { until, order, .. } = self.piece;
        until.is_some_and(|until| order.after(until, record.next))
    }

    /// What the piece took, for the reader that lists the rest if the split fails.
    pub fn taken(self) -> Option<Taken> {
        if let Some(keys) = self.keys {
            return Some(Taken::Keys(keys));
        }
        let last = self.last?;
        Some(Taken::Span {
            from: Some(self.piece.from),
            to: Some(last),
            through: true,
        })
    }
}

/// What one reader of a giant directory took, by position: what the reader of
/// the rest leaves out when a split failed its checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// [`Trust::Keyed`]: every position from `from` (`None`: the listing's start)
    /// up to `to`, through it if `through` (`None`: to the end).
    Span {
        from: Option<u64>,
        to: Option<u64>,
        through: bool,
    },
    /// [`Trust::Listed`]: these positions.
    Keys(Vec<u64>),
}

/// Whether a position of a giant directory's listing is still to be listed once
/// its split failed: not taken by any reader, and inside `scope` (a piece
/// received from elsewhere answers for its own range only).
pub struct Untaken {
    order: Order,
    spans: Vec<Taken>,
    keys: std::collections::HashSet<u64>,
    scope: Option<Taken>,
}

impl Taken {
    fn holds(&self, order: Order, position: u64) -> bool {
        match self {
            Taken::Span { from, to, through } => {
                let started =
                    from.is_none_or(|from| position == from || order.after(from, position));
                let before =
                    to.is_none_or(|to| order.after(position, to) || (*through && position == to));
                started && before
            }
            Taken::Keys(keys) => keys.contains(&position),
        }
    }
}

impl Untaken {
    pub fn new(order: Order, taken: Vec<Taken>, scope: Option<Taken>) -> Untaken {
        let mut keys = std::collections::HashSet::new();
        let mut spans = Vec::new();
        for taken in taken {
            match taken {
                Taken::Keys(list) => keys.extend(list),
                span => spans.push(span),
            }
        }
        Untaken {
            order,
            spans,
            keys,
            scope,
        }
    }

    /// True when the entry at `position` is still to be listed.
    pub fn wants(&self, position: u64) -> bool {
        let order = self.order;
        self.scope
            .as_ref()
            .is_none_or(|scope| scope.holds(order, position))
            && !self.keys.contains(&position)
            && !self.spans.iter().any(|span| span.holds(order, position))
    }
}

/// The positions of the records of listing batches, followed from the listing's
/// start: checks that they run in `order` and, under [`Trust::Listed`], keeps
/// them (what a whole listing took before it was cut).
#[derive(Debug)]
pub struct Watch {
    pub trust: Option<Trust>,
    /// The `d_off` of the last record seen: the next record's position.
    at: Option<u64>,
    last: Option<u64>,
    keys: Vec<u64>,
    /// A batch out of order, or a cut that failed: not offered again.
    pub failed: bool,
}

impl Watch {
    pub fn new(trust: Option<Trust>) -> Watch {
        Watch {
            trust,
            at: None,
            last: None,
            keys: Vec::new(),
            failed: trust.is_none(),
        }
    }

    /// Follows the next batch of the listing; false (and failed for good) when a
    /// position came out of order.
    pub fn follow(&mut self, filled: &[u8]) -> bool {
        let Some(trust) = self.trust.filter(|_| !self.failed) else {
            return false;
        };
        let order = trust.order();
        let keep = !trust.keyed();
        for record in records(filled) {
            let position = self.at.unwrap_or(0);
            self.at = Some(record.next);
            if keep {
                self.keys.push(position);
            }
            if is_dot(record.name) {
                continue;
            }
            if let Some(last) = self.last {
                if position != last && !order.after(last, position) {
                    self.failed = true;
                    return false;
                }
            }
            self.last = Some(position);
        }
        true
    }

    /// What the listing took up to `next`, where it is cut.
    pub fn taken(&mut self, next: u64) -> Taken {
        match self.trust {
            Some(Trust::Listed(_)) => Taken::Keys(std::mem::take(&mut self.keys)),
            _ => Taken::Span {
                from: None,
                to: Some(next),
                through: false,
            },
        }
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
) -> io::Result<Vec<Cut>> {
    let end = until.unwrap_or(extent);
    let pieces = pieces.max(1) as u64;
    let mut cuts: Vec<Cut> = Vec::new();
    for index in 1..pieces {
        let guess = order.between(from, end, index, pieces);
        let Some(cut) = probe.boundary(guess)? else {
            break;
        };
        let after_last = cuts.last().map_or(from, |last| last.at);
        let before_end = until.is_none_or(|until| order.after(cut.at, until));
        if order.after(after_last, cut.at) && before_end {
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
        let now = Some((6, 18));
        assert_eq!(
            Order::of_fs_type(EXT4, now),
            Some(Trust::Keyed(Order::Ascending))
        );
        assert_eq!(
            Order::of_fs_type(TMPFS, now),
            Some(Trust::Listed(Order::Descending))
        );
        // Before 6.14 tmpfs listed in another order, and an unknown kernel is
        // not trusted; no FUSE server is.
        assert_eq!(Order::of_fs_type(TMPFS, Some((6, 13))), None);
        assert_eq!(Order::of_fs_type(TMPFS, None), None);
        assert_eq!(Order::of_fs_type(FUSE, now), None);
        assert_eq!(Order::of_fs_type(0x6969, now), None);
        assert_eq!(parse_release(b"6.18.44-fc-v1272"), Some((6, 18)));
        assert_eq!(parse_release(b"7.0"), Some((7, 0)));
        assert_eq!(parse_release(b"linux"), None);
    }

    fn piece(from: u64, until: Option<u64>, order: Order) -> Piece {
        Piece {
            from,
            until,
            order,
            first: None,
        }
    }

    /// A piece takes what is between its ends and ends at its `until`; a position
    /// out of order ends it too, not proven (issue 47).
    #[test]
    fn positions_take_the_piece_and_end_at_its_end() {
        let ascending = piece(10, Some(30), Order::Ascending);
        let mut positions = Positions::new(ascending, false);
        // Entries at 10, 20, then 30 (the next piece's first).
        assert_eq!(positions.step(&record(20, b"a")), Step::Take);
        assert_eq!(positions.step(&record(30, b"b")), Step::Take);
        assert_eq!(positions.step(&record(40, b"c")), Step::End);
        assert!(positions.ended_exactly());
        assert_eq!(
            positions.taken(),
            Some(Taken::Span {
                from: Some(10),
                to: Some(20),
                through: true
            })
        );

        // The position goes back (tmpfs after a rename over a name): the piece
        // ends there, out of order, and that record is not taken.
        let mut positions = Positions::new(ascending, true);
        assert_eq!(positions.step(&record(20, b"a")), Step::Take);
        assert_eq!(positions.step(&record(5, b"b")), Step::Take);
        assert_eq!(positions.step(&record(25, b"c")), Step::End);
        assert!(positions.disordered());
        assert!(!positions.ended_exactly());
        assert_eq!(positions.taken(), Some(Taken::Keys(vec![10, 20])));

        // Past the end without meeting it: ended, not exactly.
        let mut positions = Positions::new(ascending, false);
        assert_eq!(positions.step(&record(35, b"a")), Step::Take);
        assert_eq!(positions.step(&record(36, b"b")), Step::End);
        assert!(!positions.ended_exactly() && !positions.disordered());

        // Descending, as tmpfs lists: from 9 down to, not including, 5; the end of
        // directory marker after the last record is never judged.
        let mut positions = Positions::new(piece(9, Some(5), Order::Descending), false);
        for (next, step) in [(8, Step::Take), (6, Step::Take), (5, Step::Take)] {
            assert_eq!(positions.step(&record(next, b"x")), step);
        }
        assert_eq!(positions.step(&record(4, b"y")), Step::End);
        let mut positions = Positions::new(piece(3, None, Order::Descending), false);
        assert_eq!(positions.step(&record(2, b"x")), Step::Take);
        assert_eq!(positions.step(&record(i32::MAX as u64, b"y")), Step::Take);
        assert!(!positions.disordered());
        // Equal positions (ext4 hash collisions) are not a disorder.
        let mut positions = Positions::new(piece(10, None, Order::Ascending), false);
        assert_eq!(positions.step(&record(10, b"a")), Step::Take);
        assert_eq!(positions.step(&record(12, b"b")), Step::Take);
        assert!(!positions.disordered());
    }

    /// What the reader of the rest lists: positions no reader took, inside its
    /// scope.
    #[test]
    fn the_rest_leaves_out_what_was_taken() {
        let taken = vec![
            Taken::Span {
                from: None,
                to: Some(10),
                through: false,
            },
            Taken::Span {
                from: Some(20),
                to: Some(30),
                through: true,
            },
            Taken::Keys(vec![14, 40]),
        ];
        let untaken = Untaken::new(Order::Ascending, taken.clone(), None);
        let wanted: Vec<u64> = (0..45).filter(|&p| untaken.wants(p)).collect();
        let expected: Vec<u64> = (10..45)
            .filter(|p| !(20..=30).contains(p) && ![14, 40].contains(p))
            .collect();
        assert_eq!(wanted, expected);
        let scope = Taken::Span {
            from: Some(12),
            to: Some(16),
            through: false,
        };
        let untaken = Untaken::new(Order::Ascending, taken, Some(scope));
        let wanted: Vec<u64> = (0..45).filter(|&p| untaken.wants(p)).collect();
        assert_eq!(wanted, vec![12, 13, 15]);
    }

    /// A watched listing keeps going while its positions run in order, and fails
    /// for good at the first that does not.
    #[test]
    fn a_watch_fails_at_the_first_position_out_of_order() {
        let mut watch = Watch::new(Some(Trust::Listed(Order::Descending)));
        assert!(watch.follow(&batch(&[(1, b"."), (9, b".."), (8, b"a"), (7, b"b")])));
        assert!(watch.follow(&batch(&[(6, b"c"), (3, b"d")])));
        assert_eq!(watch.taken(3), Taken::Keys(vec![0, 1, 9, 8, 7, 6]));
        let mut watch = Watch::new(Some(Trust::Keyed(Order::Ascending)));
        assert!(watch.follow(&batch(&[(5, b"a"), (7, b"b")])));
        assert!(!watch.follow(&batch(&[(6, b"c"), (9, b"d")])));
        assert!(watch.failed);
        assert!(!watch.follow(&batch(&[(10, b"e")])));
        assert!(!Watch::new(None).follow(&batch(&[(5, b"a")])));
    }

    #[test]
    fn a_first_record_past_the_end_is_questioned() {
        let positions = Positions::new(piece(10, Some(30), Order::Ascending), false);
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

    /// A probe's boundary is a real position: listing from it on another
    /// description starts with the entry the probe found there.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_probe_finds_real_positions() {
        let tmp = tempfile::tempdir().unwrap();
        for index in 0..200 {
            std::fs::File::create(tmp.path().join(format!("entry.{index}"))).unwrap();
        }
        let dir = std::fs::File::open(tmp.path()).unwrap();
        let probe = Probe::open(dir.as_raw_fd()).unwrap();
        let mut buffer = vec![0u8; 64 * 1024];
        let whole = getdents(dir.as_raw_fd(), &mut buffer).unwrap().to_vec();
        let middle = records(&whole).nth(100).unwrap().next;
        let cut = probe.boundary(middle).unwrap().unwrap();
        let entry = probe.entry_at(cut.at).unwrap().unwrap();
        assert_eq!(entry, cut.first);
        let other = Probe::open(dir.as_raw_fd()).unwrap();
        assert_eq!(other.entry_at(cut.at).unwrap(), Some(cut.first));
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
