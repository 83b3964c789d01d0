//! Listing directories: how entries come out of the kernel.
//!
//! [`DirReader`] lists an open directory into a callback, handing out each entry's
//! name as a borrowed byte slice and its type from `d_type`. On Linux it is
//! `getdents64` into one reusable buffer (no allocation per entry or per directory);
//! elsewhere it is POSIX `readdir`. Both are compiled on Linux and tested against
//! each other. [`EntryKind`] is what an entry is, as far as the walk cares.

#[cfg(target_os = "linux")]
use super::cookies::{self, Step};
use super::cookies::{Piece, Positions, Untaken};
use std::ffi::CStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// Size of each worker's `getdents64` buffer. One call fills it with as many entries as
/// fit, so a directory of a thousand files is read in one or two system calls.
pub const DIRENT_BUFFER_SIZE: usize = 64 * 1024;

/// What a directory entry is, as far as the walk cares.
///
/// The four special kinds (FIFOs, sockets, devices) are printed only when `-t` names
/// them, and never opened. They are told apart by `d_type` as the kernel gives it, at
/// no cost to the walk: the listing loop tests for the three common kinds first and
/// looks at a special kind only when the directory's scope says one may match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    /// A named pipe (`-t p`).
    Fifo,
    /// A Unix domain socket (`-t s`).
    Socket,
    /// A character device (`-t c`).
    CharDevice,
    /// A block device (`-t b`).
    BlockDevice,
    /// Anything else a filesystem may hold (a BSD whiteout): never printed.
    Other,
    /// The filesystem did not fill in `d_type`; ask `lstat_at`.
    Unknown,
}

impl EntryKind {
    fn from_d_type(d_type: u8) -> EntryKind {
        match d_type {
            libc::DT_REG => EntryKind::File,
            libc::DT_DIR => EntryKind::Dir,
            libc::DT_LNK => EntryKind::Symlink,
            libc::DT_FIFO => EntryKind::Fifo,
            libc::DT_SOCK => EntryKind::Socket,
            libc::DT_CHR => EntryKind::CharDevice,
            libc::DT_BLK => EntryKind::BlockDevice,
            libc::DT_UNKNOWN => EntryKind::Unknown,
            _ => EntryKind::Other,
        }
    }

    /// The kind named by an `st_mode` from `stat`.
    pub fn from_mode(mode: libc::mode_t) -> EntryKind {
        match mode & libc::S_IFMT {
            libc::S_IFREG => EntryKind::File,
            libc::S_IFDIR => EntryKind::Dir,
            libc::S_IFLNK => EntryKind::Symlink,
            libc::S_IFIFO => EntryKind::Fifo,
            libc::S_IFSOCK => EntryKind::Socket,
            libc::S_IFCHR => EntryKind::CharDevice,
            libc::S_IFBLK => EntryKind::BlockDevice,
            _ => EntryKind::Other,
        }
    }

    /// True for a FIFO, a socket or a device: the kinds `-t p`, `s`, `c` and `b` name.
    pub fn is_special(self) -> bool {
        matches!(
            self,
            EntryKind::Fifo | EntryKind::Socket | EntryKind::CharDevice | EntryKind::BlockDevice
        )
    }
}

/// One entry as the kernel returned it, borrowed from the reader's buffer.
#[derive(Clone, Copy)]
pub struct RawEntry<'a> {
    /// The name, its NUL terminator and possibly up to seven bytes of padding after it.
    /// The terminator always lies in the last eight bytes, which lets [`Self::name`]
    /// find it without scanning the whole name.
    name_area: &'a [u8],
    pub kind: EntryKind,
}

impl<'a> RawEntry<'a> {
    /// The entry's name, without the terminator.
    ///
    /// A `getdents64` record is padded to a multiple of 8 bytes, so the terminator is
    /// within the last 8 bytes of the name area and only those need scanning. The
    /// `readdir` reader passes the name and its terminator exactly, which satisfies the
    /// same invariant.
    ///
    /// The scan is one word test: the last eight bytes are read as a little-endian
    /// word, and the classic "has a zero byte" bit trick marks zero bytes; the lowest
    /// mark is exact (only bytes *above* a real zero can be marked falsely), and the
    /// lowest is the terminator we want.
    #[inline]
    pub fn name(&self) -> &'a [u8] {
        super::cookies::name_in_area(self.name_area)
    }

    /// The name as a C string, for `*at` system calls.
    #[inline]
    pub fn name_cstr(&self) -> &'a CStr {
        let len = self.name().len();
        // The byte at `len` is the terminator found by `name`; `from_bytes_with_nul`
        // re-checks that there is no NUL inside, which `name` already guarantees.
        CStr::from_bytes_with_nul(&self.name_area[..=len]).unwrap_or(c".")
    }

    /// An entry replayed from a copy of a listing: `name_with_nul` is the name and
    /// its terminator, exactly (which keeps the invariant [`Self::name`] relies on).
    pub fn from_name_with_nul(name_with_nul: &'a [u8], kind: EntryKind) -> RawEntry<'a> {
        debug_assert_eq!(name_with_nul.last(), Some(&0));
        RawEntry {
            name_area: name_with_nul,
            kind,
        }
    }

    /// True for the `.` and `..` entries every directory lists.
    #[inline]
    pub fn is_dot_or_dotdot(&self) -> bool {
        matches!(self.name_area, [b'.', 0, ..] | [b'.', b'.', 0, ..])
    }
}

/// The entries of a batch `getdents64` filled, `.` and `..` aside: counted only when
/// asked (`--stats`), so that the listing loop counts nothing per entry.
#[cfg(target_os = "linux")]
fn entries_in(filled: &[u8]) -> u64 {
    let records = cookies::records(filled);
    records
        .filter(|record| !cookies::is_dot(record.name))
        .count() as u64
}

/// Which way [`DirReader`] lists a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReaderKind {
    /// `getdents64` into a reusable buffer (Linux only).
    #[cfg(target_os = "linux")]
    Getdents,
    /// POSIX `readdir` on a duplicate of the descriptor.
    Readdir,
}

impl ReaderKind {
    /// The reader the walk uses: `getdents64` on Linux, `readdir` elsewhere and in
    /// the `portable` build (Cargo.toml), which walks Linux as other systems do.
    pub fn native() -> ReaderKind {
        #[cfg(all(target_os = "linux", not(feature = "portable")))]
        return ReaderKind::Getdents;
        #[cfg(any(not(target_os = "linux"), feature = "portable"))]
        return ReaderKind::Readdir;
    }
}

/// Lists directories. Each worker owns one and reuses its buffer for every directory.
pub struct DirReader {
    kind: ReaderKind,
    /// Left uninitialised: the kernel writes each batch and only what it wrote is
    /// read. Zeroing 64 KiB per worker cost 66,000 instructions and touched all 16
    /// pages at start-up, where a small directory's listing touches one. Only
    /// `getdents64` has one: `readdir` brings its own.
    #[cfg(target_os = "linux")]
    buffer: Vec<MaybeUninit<u8>>,
    /// Lists as a filesystem without file types does (see [`Self::forget_kinds`]).
    forget_kinds: bool,
}

impl DirReader {
    pub fn new(kind: ReaderKind, buffer_size: usize) -> DirReader {
        let len = buffer_len(kind, buffer_size);
        let mut buffer: Vec<MaybeUninit<u8>> = Vec::with_capacity(len);
        buffer.resize(len, MaybeUninit::uninit());
        DirReader {
            kind,
            #[cfg(target_os = "linux")]
            buffer,
            forget_kinds: false,
        }
    }

    /// [`Self::new`], or `None` if there is no memory for the buffer: a worker that
    /// cannot have one does not start, and the walk goes on with the others.
    pub fn try_new(kind: ReaderKind, buffer_size: usize) -> Option<DirReader> {
        let len = buffer_len(kind, buffer_size);
        let mut buffer: Vec<MaybeUninit<u8>> = Vec::new();
        crate::alloc::fallible(|| buffer.try_reserve_exact(len)).ok()?;
        buffer.resize(len, MaybeUninit::uninit());
        Some(DirReader {
            kind,
            #[cfg(target_os = "linux")]
            buffer,
            forget_kinds: false,
        })
    }

    /// A reader of the same kind, buffer size and kinds as this one (for a helper
    /// thread), or `None` if there is no memory for its buffer.
    pub fn sibling(&self) -> Option<DirReader> {
        #[cfg(target_os = "linux")]
        let size = self.buffer.len();
        #[cfg(not(target_os = "linux"))]
        let size = 0;
        let mut reader = DirReader::try_new(self.kind, size)?;
        reader.forget_kinds = self.forget_kinds;
        Some(reader)
    }

    /// From now on, every entry is listed without its kind (`DT_UNKNOWN`), as a
    /// filesystem that does not store file types lists it, or, with `false`, as the
    /// filesystem gives it again. For the tests of such listings on any filesystem
    /// (`probe::Probe::kinds_hidden`); `getdents64`'s reader does it in tests only
    /// (see `Batches::fill`).
    pub fn forget_kinds(&mut self, forget: bool) {
        self.forget_kinds = forget;
    }

    /// Calls `each` for every entry of the open directory `dir`, `.` and `..` included.
    /// Entries delivered before an error are not taken back: the caller acts on them and
    /// then reports the error.
    ///
    /// Once `stop` is set the listing ends early, without an error, at the next batch
    /// of entries: a walk that is over (enough matches, a closed pipe) must not first
    /// finish a directory of a million entries. One relaxed load per `getdents64`
    /// call costs nothing next to the call.
    pub fn read(
        &mut self,
        dir: RawFd,
        stop: &AtomicBool,
        each: impl FnMut(RawEntry<'_>),
    ) -> io::Result<()> {
        match self.kind {
            #[cfg(target_os = "linux")]
            ReaderKind::Getdents => read_getdents(dir, self.batches(), stop, each, None, |_| false),
            ReaderKind::Readdir => read_readdir(dir, stop, self.forget_kinds, each),
        }
    }

    /// [`Self::read`], calling `full_batch` after each batch that filled the buffer
    /// (more may follow) with the batch's bytes: if it returns true the listing ends
    /// there, its rest handed to others (see `walker::split`). A directory listed in
    /// one batch never calls it, nor does the `readdir` reader. With `examined`,
    /// adds the entries listed (`.` and `..` aside) to it, counted per batch.
    pub fn read_splittable(
        &mut self,
        dir: RawFd,
        stop: &AtomicBool,
        mut each: impl FnMut(RawEntry<'_>),
        examined: Option<&mut u64>,
        full_batch: impl FnMut(&[u8]) -> bool,
    ) -> io::Result<()> {
        match self.kind {
            #[cfg(target_os = "linux")]
            ReaderKind::Getdents => {
                read_getdents(dir, self.batches(), stop, each, examined, full_batch)
            }
            ReaderKind::Readdir => {
                drop(full_batch);
                let mut entries = 0;
                let listed = read_readdir(dir, stop, self.forget_kinds, |entry| {
                    entries += u64::from(!entry.is_dot_or_dotdot());
                    each(entry)
                });
                if let Some(examined) = examined {
                    *examined += entries;
                }
                listed
            }
        }
    }

    /// Lists one piece of the open directory `dir` (see `os::cookies`): seeks to its
    /// start and calls `each` for the entries in it, until its end, following its
    /// positions in `positions` (made for `piece`). `full_batch` runs after each
    /// batch that filled the buffer, with where the listing is (the position of the
    /// next entry, if the batch gave a safe one): true ends the listing there, its
    /// rest handed to others. With `any_batch` it runs after every batch (on a
    /// network filesystem, whose batches are its server's size and never fill the
    /// buffer). Only `getdents64` has cookies.
    #[allow(clippy::too_many_arguments)]
    pub fn read_piece(
        &mut self,
        dir: RawFd,
        positions: &mut Positions,
        piece: Piece,
        any_batch: bool,
        stop: &AtomicBool,
        mut each: impl FnMut(RawEntry<'_>),
        mut full_batch: impl FnMut(Option<u64>, &Positions) -> bool,
    ) -> io::Result<PieceEnd> {
        #[cfg(target_os = "linux")]
        if self.kind == ReaderKind::Getdents {
            let full = match any_batch {
                true => 0,
                false => self.buffer.len() - MAX_RECORD,
            };
            let piece_read = PieceRead {
                dir,
                piece,
                full,
                stop,
            };
            return read_piece(
                piece_read,
                self.batches(),
                positions,
                &mut each,
                &mut full_batch,
            );
        }
        let _ = (
            dir,
            positions,
            piece,
            any_batch,
            stop,
            &mut each,
            &mut full_batch,
        );
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    /// Lists the open directory `dir` from its start, calling `each` only for the
    /// entries whose positions `untaken` still wants: the rest of a giant
    /// directory whose split failed its checks (see `walker::split`).
    pub fn read_untaken(
        &mut self,
        dir: RawFd,
        untaken: &Untaken,
        stop: &AtomicBool,
        mut each: impl FnMut(RawEntry<'_>),
    ) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        if self.kind == ReaderKind::Getdents {
            cookies::seek(dir, 0)?;
            let mut position = 0;
            let mut batches = self.batches();
            loop {
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let filled = match batches.fill(dir)? {
                    None => continue,
                    Some(&[]) => return Ok(()),
                    Some(filled) => filled,
                };
                let mut offset = 0;
                for record in cookies::records(filled) {
                    let bytes = &filled[offset..offset + record.len];
                    offset += record.len;
                    let at = std::mem::replace(&mut position, record.next);
                    if !cookies::is_dot(record.name) && untaken.wants(at) {
                        each(RawEntry {
                            name_area: &bytes[dirent64::NAME..],
                            kind: EntryKind::from_d_type(bytes[dirent64::TYPE]),
                        });
                    }
                }
                if offset != filled.len() {
                    return Err(malformed());
                }
            }
        }
        let _ = (dir, untaken, stop, &mut each);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    /// [`Self::read`], one batch at a time: calls `each` for the entries of one
    /// `getdents64` call and returns true if there may be more, so that the caller can
    /// act between two batches (on a network filesystem each is a round trip). The
    /// `readdir` reader has no batches of its own and lists the whole directory.
    /// `after` runs after a batch with entries, with its bytes; if it returns true the
    /// listing ends there (false is returned), its rest handed to others.
    pub fn read_batch(
        &mut self,
        dir: RawFd,
        stop: &AtomicBool,
        mut each: impl FnMut(RawEntry<'_>),
        after: impl FnMut(&[u8]) -> bool,
    ) -> io::Result<bool> {
        match self.kind {
            #[cfg(target_os = "linux")]
            ReaderKind::Getdents => {
                let mut after = after;
                getdents_batch(dir, self.batches(), stop, &mut each, &mut after)
            }
            ReaderKind::Readdir => {
                drop(after);
                read_readdir(dir, stop, self.forget_kinds, &mut each).map(|()| false)
            }
        }
    }
}

/// Where `getdents64` writes a batch, and whether to forget its kinds.
#[cfg(target_os = "linux")]
struct Batches<'r> {
    buffer: &'r mut [MaybeUninit<u8>],
    forget_kinds: bool,
}

#[cfg(target_os = "linux")]
impl DirReader {
    #[inline(always)]
    fn batches(&mut self) -> Batches<'_> {
        Batches {
            buffer: &mut self.buffer,
            forget_kinds: self.forget_kinds,
        }
    }
}

/// How long a reader's buffer is: `getdents64` needs room for at least a few
/// records (one is at most 280 bytes); `readdir` brings its own.
fn buffer_len(kind: ReaderKind, buffer_size: usize) -> usize {
    if kind == ReaderKind::Readdir {
        return 0;
    }
    buffer_size.max(1024)
}

/// Byte offsets inside a `struct linux_dirent64` record.
#[cfg(target_os = "linux")]
mod dirent64 {
    pub const RECLEN: usize = 16;
    pub const TYPE: usize = 18;
    pub const NAME: usize = 19;
}

#[cfg(target_os = "linux")]
#[inline(always)]
fn read_getdents(
    dir: RawFd,
    mut batches: Batches<'_>,
    stop: &AtomicBool,
    mut each: impl FnMut(RawEntry<'_>),
    mut examined: Option<&mut u64>,
    mut full_batch: impl FnMut(&[u8]) -> bool,
) -> io::Result<()> {
    let full = batches.buffer.len() - MAX_RECORD;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        match batches.fill(dir)? {
            None => continue,
            Some(&[]) => return Ok(()),
            Some(filled) => {
                parse_records(filled, &mut each)?;
                if let Some(examined) = examined.as_deref_mut() {
                    *examined += entries_in(filled);
                }
                if filled.len() > full && full_batch(filled) {
                    return Ok(());
                }
            }
        }
    }
}

/// The longest `getdents64` record: a 255-byte name, its NUL and the header, padded
/// to 8 bytes. A batch within this of the buffer's end stopped for want of room.
#[cfg(target_os = "linux")]
const MAX_RECORD: usize = (dirent64::NAME + 256).next_multiple_of(8);

/// How the listing of a piece ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceEnd {
    /// The directory's end.
    EndOfDirectory,
    /// A record that is not the piece's ([`Step::End`]): past its end, or out of
    /// order.
    Ended,
    /// `full_batch` took the rest, or the walk stopped.
    Handed,
    /// The first record was not the entry the piece was cut before
    /// ([`Piece::first`]): nothing was taken.
    NotItsFirst,
}

/// What [`read_piece`] lists, besides its buffer and callbacks.
#[cfg(target_os = "linux")]
struct PieceRead<'s> {
    dir: RawFd,
    piece: Piece,
    full: usize,
    stop: &'s AtomicBool,
}

#[cfg(target_os = "linux")]
fn malformed() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "malformed directory record from getdents64",
    )
}

/// [`DirReader::read_piece`] with `getdents64`.
#[cfg(target_os = "linux")]
fn read_piece(
    read: PieceRead<'_>,
    mut batches: Batches<'_>,
    positions: &mut Positions,
    each: &mut impl FnMut(RawEntry<'_>),
    full_batch: &mut impl FnMut(Option<u64>, &Positions) -> bool,
) -> io::Result<PieceEnd> {
    let PieceRead {
        dir,
        piece,
        full,
        stop,
    } = read;
    cookies::seek(dir, piece.from)?;
    let mut first = true;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(PieceEnd::Handed);
        }
        let filled = match batches.fill(dir)? {
            None => continue,
            Some(&[]) => return Ok(PieceEnd::EndOfDirectory),
            Some(filled) => filled,
        };
        let mut offset = 0;
        for record in cookies::records(filled) {
            let bytes = &filled[offset..offset + record.len];
            offset += record.len;
            if std::mem::take(&mut first) {
                match piece.first {
                    // Listed: the first record must be the entry the cut was
                    // made before, or its position is not known.
                    Some(entry) if !entry.is(&record) => return Ok(PieceEnd::NotItsFirst),
                    Some(_) => {}
                    // Keyed: the entry where the piece was cut may have gone;
                    // then the first record is the next one, which may be the
                    // next piece's first.
                    None => {
                        if positions.first_may_be_next_pieces(&record)
                            && next_piece_starts_with(dir, piece, &record)
                        {
                            return Ok(PieceEnd::Ended);
                        }
                    }
                }
            }
            match positions.step(&record) {
                Step::Take => each(RawEntry {
                    name_area: &bytes[dirent64::NAME..],
                    kind: EntryKind::from_d_type(bytes[dirent64::TYPE]),
                }),
                Step::Skip => {}
                Step::End => return Ok(PieceEnd::Ended),
            }
        }
        if offset != filled.len() {
            return Err(malformed());
        }
        if filled.len() > full {
            let cut = cookies::last_positions(filled, piece.order);
            if full_batch(cut, positions) {
                return Ok(PieceEnd::Handed);
            }
        }
    }
}

/// True when `record`, the first of `piece`'s listing, is the first entry at the
/// piece's end, which the next piece lists. Asked on a description of its own; if
/// that cannot be had, the record is taken as this piece's (as the cookies say).
#[cfg(target_os = "linux")]
fn next_piece_starts_with(dir: RawFd, piece: Piece, record: &cookies::Record<'_>) -> bool {
    let Some(until) = piece.until else {
        return false;
    };
    cookies::Probe::open(dir)
        .and_then(|probe| probe.first_is(until, record.ino, record.name))
        .unwrap_or(false)
}

/// One batch of [`read_getdents`]: true when it delivered entries (the listing may
/// go on), false at the end of the directory or once `stop` is set. Not
/// `read_getdents` itself: a loop around this cost a local walk 22 instructions a
/// directory.
#[cfg(target_os = "linux")]
fn getdents_batch(
    dir: RawFd,
    mut batches: Batches<'_>,
    stop: &AtomicBool,
    each: &mut impl FnMut(RawEntry<'_>),
    after: &mut impl FnMut(&[u8]) -> bool,
) -> io::Result<bool> {
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        match batches.fill(dir)? {
            None => continue,
            Some(&[]) => return Ok(false),
            Some(filled) => {
                parse_records(filled, each)?;
                return Ok(!after(filled));
            }
        }
    }
}

#[cfg(target_os = "linux")]
impl Batches<'_> {
    /// One `getdents64` call into the buffer: the bytes it filled (none at the end of
    /// the directory), or `None` when it was interrupted and must be made again.
    #[inline(always)]
    fn fill(&mut self, dir: RawFd) -> io::Result<Option<&[u8]>> {
        let buffer = &mut *self.buffer;
        // SAFETY: the kernel writes at most `buffer.len()` bytes into `buffer`, which
        // we own mutably for the duration of the call.
        let filled =
            unsafe { libc::syscall(libc::SYS_getdents64, dir, buffer.as_mut_ptr(), buffer.len()) };
        if filled < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                return Ok(None);
            }
            return Err(err);
        }
        let filled = filled as usize;
        // A test seam that stays: compiled into tests only. In a shipped build this
        // one branch per batch, however cold, changed how LLVM inlined the walk's
        // listing loop: +0.6% to +1.8% instructions on `/usr` (callgrind), for a
        // listing that only tests ask for (the readdir reader asks for it in every
        // build, a test beside a call per entry).
        if cfg!(test) && self.forget_kinds {
            forget_kinds(buffer, filled);
        }
        // SAFETY: getdents64 returned `filled` (at least 0, at most `buffer.len()`):
        // it wrote that many bytes at the start of `buffer`, so they are initialised.
        Ok(Some(unsafe {
            std::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), filled)
        }))
    }
}

/// Sets the type of every record of the batch `getdents64` wrote at the start of
/// `buffer` (`filled` bytes) to `DT_UNKNOWN`. Stops at a malformed record, which
/// the parser then reports.
#[cfg(target_os = "linux")]
#[cold]
#[inline(never)]
fn forget_kinds(buffer: &mut [MaybeUninit<u8>], filled: usize) {
    // SAFETY: the caller's getdents64 call wrote the first `filled` bytes (at most
    // `buffer.len()`), so they are initialised; `buffer` is borrowed mutably.
    let filled =
        unsafe { std::slice::from_raw_parts_mut(buffer.as_mut_ptr().cast::<u8>(), filled) };
    let mut offset = 0;
    while offset + dirent64::NAME < filled.len() {
        let reclen = u16::from_ne_bytes([
            filled[offset + dirent64::RECLEN],
            filled[offset + dirent64::RECLEN + 1],
        ]) as usize;
        if reclen <= dirent64::NAME {
            return;
        }
        filled[offset + dirent64::TYPE] = libc::DT_UNKNOWN;
        offset += reclen;
    }
}

/// Calls `each` for every record of a batch `getdents64` filled.
#[cfg(target_os = "linux")]
#[inline(always)]
fn parse_records(filled: &[u8], each: &mut impl FnMut(RawEntry<'_>)) -> io::Result<()> {
    let mut offset = 0;
    while offset + dirent64::NAME < filled.len() {
        let record_bytes = &filled[offset..];
        let reclen = u16::from_ne_bytes([
            record_bytes[dirent64::RECLEN],
            record_bytes[dirent64::RECLEN + 1],
        ]) as usize;
        if reclen <= dirent64::NAME || reclen > record_bytes.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "malformed directory record from getdents64",
            ));
        }
        each(RawEntry {
            name_area: &record_bytes[dirent64::NAME..reclen],
            kind: EntryKind::from_d_type(record_bytes[dirent64::TYPE]),
        });
        offset += reclen;
    }
    Ok(())
}

fn read_readdir(
    dir: RawFd,
    stop: &AtomicBool,
    forget_kinds: bool,
    mut each: impl FnMut(RawEntry<'_>),
) -> io::Result<()> {
    // `fdopendir` takes ownership of the descriptor it is given and `closedir` closes
    // it, but the caller keeps using `dir` afterwards (to open children relative to
    // it), so hand `fdopendir` a duplicate.
    // SAFETY: `dir` is an open descriptor owned by the caller; `dup` does not affect it.
    let copy = unsafe { libc::fcntl(dir, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `copy` is a fresh descriptor we own; on success the stream owns it.
    let stream = unsafe { libc::fdopendir(copy) };
    if stream.is_null() {
        let err = io::Error::last_os_error();
        // SAFETY: fdopendir failed, so `copy` is still ours to close.
        unsafe { libc::close(copy) };
        return Err(err);
    }
    let result = loop {
        // `readdir` hands out one entry per call from its own buffer, so this test is
        // per entry; it is one relaxed load.
        if stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        set_errno(0);
        // SAFETY: `stream` is a valid open DIR* until the closedir below.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            let err = io::Error::last_os_error();
            break match err.raw_os_error() {
                Some(0) | None => Ok(()),
                Some(_) => Err(err),
            };
        }
        // SAFETY: readdir returned a valid entry whose `d_name` is NUL-terminated and
        // stays valid until the next readdir call on this stream.
        let (name, d_type) = unsafe { (CStr::from_ptr((*entry).d_name.as_ptr()), (*entry).d_type) };
        let d_type = if forget_kinds {
            libc::DT_UNKNOWN
        } else {
            d_type
        };
        each(RawEntry {
            name_area: name.to_bytes_with_nul(),
            kind: EntryKind::from_d_type(d_type),
        });
    };
    // SAFETY: `stream` came from fdopendir and is closed exactly once.
    unsafe { libc::closedir(stream) };
    result
}

fn set_errno(value: libc::c_int) {
    // SAFETY: the errno location is thread-local and always valid to write.
    unsafe {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            *libc::__errno_location() = value;
        }
        #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
        {
            *libc::__error() = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::open::open_dir_at;
    use std::collections::BTreeMap;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    fn all_readers() -> Vec<ReaderKind> {
        vec![
            #[cfg(target_os = "linux")]
            ReaderKind::Getdents,
            ReaderKind::Readdir,
        ]
    }

    fn list(
        kind: ReaderKind,
        dir: &std::path::Path,
        buffer: usize,
    ) -> BTreeMap<Vec<u8>, EntryKind> {
        let fd = open_dir_at(None, dir.as_os_str().as_bytes(), false).unwrap();
        let mut reader = DirReader::new(kind, buffer);
        let mut seen = BTreeMap::new();
        reader
            .read(fd.as_raw_fd(), &AtomicBool::new(false), |entry| {
                let name = entry.name().to_vec();
                assert_eq!(entry.name_cstr().to_bytes(), &name[..]);
                assert_eq!(entry.is_dot_or_dotdot(), name == b"." || name == b"..");
                assert!(
                    seen.insert(name, entry.kind).is_none(),
                    "entry listed twice"
                );
            })
            .unwrap();
        seen
    }

    #[test]
    fn readers_agree_on_names_and_kinds() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        // Names of every length 1..=255 exercise every padding of the record.
        for len in 1..=255usize {
            let name = "n".repeat(len);
            std::fs::write(root.join(&name), b"").unwrap();
        }
        std::fs::create_dir(root.join("sub")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("link")).unwrap();
        std::fs::write(
            root.join(std::ffi::OsStr::from_bytes(b"bad\xffname\n")),
            b"",
        )
        .unwrap();
        let mut fifo = root.join("fifo").into_os_string().into_vec();
        fifo.push(0);
        // SAFETY: NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr().cast(), 0o600) }, 0);
        let _socket = std::os::unix::net::UnixListener::bind(root.join("socket")).unwrap();

        for kind in all_readers() {
            // A tiny buffer forces many getdents64 calls for one directory.
            for buffer in [4096, 64 * 1024] {
                let seen = list(kind, root, buffer);
                assert_eq!(seen.len(), 255 + 5 + 2, "{kind:?}");
                assert_eq!(seen[&b"sub"[..]], EntryKind::Dir);
                assert_eq!(seen[&b"link"[..]], EntryKind::Symlink);
                assert_eq!(seen[&b"fifo"[..]], EntryKind::Fifo);
                assert_eq!(seen[&b"socket"[..]], EntryKind::Socket);
                assert_eq!(seen[&b"bad\xffname\n"[..]], EntryKind::File);
                assert_eq!(seen[&b"n".repeat(255)[..]], EntryKind::File);
                assert_eq!(seen[&b"."[..]], EntryKind::Dir);
            }
        }
    }

    /// Batch by batch, the same entries as in one go: with a 4 KiB buffer, a
    /// directory of 600 entries takes several batches, each one `getdents64` call
    /// that returns some entries; then one that returns none says so. The `readdir`
    /// reader lists it all in one "batch".
    #[test]
    fn batches_add_up_to_the_listing() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..600 {
            std::fs::write(tmp.path().join(format!("file_{i:04}")), b"").unwrap();
        }
        for kind in all_readers() {
            let whole = list(kind, tmp.path(), 4096);
            let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
            let mut reader = DirReader::new(kind, 4096);
            let mut seen = BTreeMap::new();
            let mut batches = 0;
            let stop = AtomicBool::new(false);
            while reader
                .read_batch(
                    fd.as_raw_fd(),
                    &stop,
                    |entry| {
                        assert!(seen.insert(entry.name().to_vec(), entry.kind).is_none());
                    },
                    |_| false,
                )
                .unwrap()
            {
                batches += 1;
            }
            assert_eq!(seen, whole, "{kind:?}");
            match kind {
                #[cfg(target_os = "linux")]
                ReaderKind::Getdents => assert!(batches > 3, "{batches} batches"),
                ReaderKind::Readdir => assert_eq!(batches, 0),
            }
        }
    }

    /// Every kind `d_type` gives is the kind `lstat` gives, on a directory holding
    /// devices, and on a test directory holding one of each kind anyone can make.
    #[test]
    fn d_type_kinds_agree_with_lstat() {
        use crate::os::stat::{stat_at, Fields};
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("file"), b"").unwrap();
        std::fs::create_dir(tmp.path().join("dir")).unwrap();
        std::os::unix::fs::symlink("file", tmp.path().join("link")).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(tmp.path().join("socket")).unwrap();
        let mut fifo = tmp.path().join("fifo").into_os_string().into_vec();
        fifo.push(0);
        // SAFETY: NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr().cast(), 0o600) }, 0);
        let mut kinds_seen = std::collections::BTreeSet::new();
        for dir in [tmp.path(), std::path::Path::new("/dev")] {
            for kind in all_readers() {
                for (name, listed) in list(kind, dir, 64 * 1024) {
                    let path = std::ffi::CString::new(
                        dir.join(std::ffi::OsStr::from_bytes(&name))
                            .into_os_string()
                            .into_vec(),
                    )
                    .unwrap();
                    let Ok(stat) = stat_at(libc::AT_FDCWD, &path, false, Fields::TYPE) else {
                        continue; // gone since it was listed
                    };
                    if listed != EntryKind::Unknown {
                        assert_eq!(listed, EntryKind::from_mode(stat.mode()), "{path:?}");
                        kinds_seen.insert(format!("{listed:?}"));
                    }
                }
            }
        }
        for kind in ["File", "Dir", "Symlink", "Fifo", "Socket", "CharDevice"] {
            assert!(kinds_seen.contains(kind), "no {kind} seen: {kinds_seen:?}");
        }
    }

    /// The early stop of `--max-results` and a closed pipe: once the flag is raised, a
    /// big directory is not read to its end.
    #[test]
    fn a_raised_stop_flag_ends_the_listing_at_the_next_batch() {
        let tmp = crate::scratch::big_tree_dir();
        for i in 0..5000 {
            std::fs::write(tmp.path().join(format!("f{i:05}")), b"").unwrap();
        }
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        for kind in all_readers() {
            // Raised before the listing: nothing at all is read.
            let mut reader = DirReader::new(kind, 4096);
            let mut seen = 0;
            let raised = AtomicBool::new(true);
            reader.read(fd.as_raw_fd(), &raised, |_| seen += 1).unwrap();
            assert_eq!(seen, 0, "{kind:?}");
            // Raised by the first entry: at most the rest of that batch follows.
            // SAFETY: rewinding an open directory descriptor has no memory effects.
            assert_eq!(unsafe { libc::lseek(fd.as_raw_fd(), 0, libc::SEEK_SET) }, 0);
            let stop = AtomicBool::new(false);
            let mut seen = 0;
            reader
                .read(fd.as_raw_fd(), &stop, |_| {
                    seen += 1;
                    stop.store(true, Ordering::Relaxed);
                })
                .unwrap();
            // A 4 KiB buffer holds about 150 of these records.
            assert!((1..=200).contains(&seen), "{kind:?}: {seen} entries");
        }
    }

    #[test]
    fn listing_a_directory_removed_after_open_fails_with_enoent() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("gone");
        std::fs::create_dir(&dir).unwrap();
        let fd = open_dir_at(None, dir.as_os_str().as_bytes(), false).unwrap();
        std::fs::remove_dir(&dir).unwrap();
        for kind in all_readers() {
            let mut reader = DirReader::new(kind, 4096);
            let mut entries = 0;
            let result = reader.read(fd.as_raw_fd(), &AtomicBool::new(false), |_| entries += 1);
            assert_eq!(entries, 0);
            match kind {
                #[cfg(target_os = "linux")]
                ReaderKind::Getdents => {
                    assert_eq!(result.unwrap_err().raw_os_error(), Some(libc::ENOENT));
                }
                // glibc's readdir turns this ENOENT into a plain end of directory on
                // purpose, so the portable reader sees an empty listing.
                ReaderKind::Readdir => {
                    if let Err(err) = result {
                        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
                    }
                }
            }
        }
    }

    #[test]
    fn name_finds_the_terminator_whatever_the_padding() {
        // Names of every length up to 40, in areas padded to a multiple of eight with
        // zeros or with garbage after the terminator (the kernel does not promise zeroed
        // padding), and exact areas as readdir gives them.
        for len in 1..40usize {
            let name: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let padded = (len + 1).div_ceil(8) * 8;
            for filler in [0u8, 0xff, 0x01, b'x'] {
                let mut area = name.clone();
                area.push(0);
                area.resize(padded.max(len + 1), filler);
                let entry = RawEntry {
                    name_area: &area,
                    kind: EntryKind::File,
                };
                assert_eq!(entry.name(), &name[..], "len {len} filler {filler:#x}");
            }
            let mut exact = name.clone();
            exact.push(0);
            let entry = RawEntry {
                name_area: &exact,
                kind: EntryKind::File,
            };
            assert_eq!(entry.name(), &name[..]);
        }
        // Bytes just above 0x80 and 0x01 around the terminator must not confuse it.
        let area = [0x81, 0x01, 0x80, 0xff, 0x7f, 0x00, 0x00, 0x00];
        let entry = RawEntry {
            name_area: &area,
            kind: EntryKind::File,
        };
        assert_eq!(entry.name(), &area[..5]);
    }
}
