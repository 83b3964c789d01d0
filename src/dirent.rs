//! Reading directories from the operating system.
//!
//! This is the only module that knows how entries come out of the kernel. It offers:
//!
//! * [`open_dir_at`]: open a directory relative to an already open parent, so the
//!   kernel resolves one component instead of the whole path, and paths longer than
//!   `PATH_MAX` still work (they are opened a `PATH_MAX`-sized piece at a time).
//! * [`open_dir_beneath`]: the same, but no component of the path may be a symbolic
//!   link: `openat2` with `RESOLVE_NO_SYMLINKS` where the kernel has it (Linux 5.6),
//!   otherwise one `openat(O_NOFOLLOW)` per component. This is what keeps a walk
//!   without `-L` inside its tree when a directory is swapped for a link mid-walk.
//! * [`DirReader`]: lists an open directory into a callback, handing out each entry's
//!   name as a borrowed byte slice and its type from `d_type`. On Linux it is
//!   `getdents64` into one reusable buffer (no allocation per entry or per directory);
//!   elsewhere it is POSIX `readdir`. Both are compiled on Linux and tested against
//!   each other.
//! * [`lstat_at`]: the `fstatat(AT_SYMLINK_NOFOLLOW)` used for `DT_UNKNOWN` entries
//!   and for size filters, on the NUL-terminated name the kernel already gave us;
//!   [`stat_at`] follows links (`-L`) and [`fstat`] identifies an open directory.

use std::ffi::CStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// What a directory entry is, as far as the walk cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    /// FIFOs, sockets, device nodes: never printed, never opened.
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
            _ => EntryKind::Other,
        }
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
        let area = self.name_area;
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

    /// The name as a C string, for `*at` system calls.
    #[inline]
    pub fn name_cstr(&self) -> &'a CStr {
        let len = self.name().len();
        // The byte at `len` is the terminator found by `name`; `from_bytes_with_nul`
        // re-checks that there is no NUL inside, which `name` already guarantees.
        CStr::from_bytes_with_nul(&self.name_area[..=len]).unwrap_or(c".")
    }

    /// True for the `.` and `..` entries every directory lists.
    #[inline]
    pub fn is_dot_or_dotdot(&self) -> bool {
        matches!(self.name_area, [b'.', 0, ..] | [b'.', b'.', 0, ..])
    }
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

/// Opens the directory `path` relative to `base` (`None` means the working directory)
/// for reading, following symbolic links on the way. `path` may be longer than
/// `PATH_MAX`: it is then opened a piece at a time, each piece relative to the
/// previous one.
///
/// With `nofollow`, a final component that is a symbolic link is refused (ENOTDIR or
/// ELOOP): a root typed without a trailing slash is opened so, as `find -P` would
/// treat it. Below a root, [`open_dir_beneath`] refuses links in every component.
pub fn open_dir_at(base: Option<RawFd>, path: &[u8], nofollow: bool) -> io::Result<OwnedFd> {
    let at = base.unwrap_or(libc::AT_FDCWD);
    let flags = DIR_FLAGS | if nofollow { libc::O_NOFOLLOW } else { 0 };
    if path.len() < libc::PATH_MAX as usize {
        return openat_bytes(at, path, flags);
    }
    // Too long for one call: pieces under PATH_MAX, only the last with `nofollow`.
    let pieces: Vec<&[u8]> = pieces(path).collect();
    let last = pieces.len().saturating_sub(1);
    descend(
        Base::Borrowed(at),
        pieces.into_iter().enumerate(),
        |at, (index, piece)| {
            let piece_flags = if index == last {
                flags
            } else {
                flags & !libc::O_NOFOLLOW
            };
            openat_bytes(at, piece, piece_flags)
        },
    )
}

/// Where [`open_dir_beneath`] starts: a directory the caller keeps open (an anchor),
/// or one to close as soon as the first step below it has been opened, so that a
/// walk down a long path never holds more than two descriptors of its own.
pub enum Base {
    Borrowed(RawFd),
    Owned(OwnedFd),
}

impl Base {
    fn fd(&self) -> RawFd {
        match self {
            Base::Borrowed(fd) => *fd,
            Base::Owned(fd) => fd.as_raw_fd(),
        }
    }
}

/// Opens the directory `path` below `base` without following a symbolic link in any
/// of its components: a component that is a link fails the open (`ELOOP` or
/// `ENOTDIR`), whatever the kernel. `path` is relative and may be longer than
/// `PATH_MAX`.
///
/// A single component costs one `openat(O_NOFOLLOW)`. Longer paths (opened relative
/// to a farther ancestor when the descriptor budget is short) use `openat2` with
/// `RESOLVE_NO_SYMLINKS` a `PATH_MAX`-sized piece at a time; where `openat2` is
/// missing (Linux before 5.6, other systems, or a seccomp filter that refuses it),
/// one `openat(O_NOFOLLOW)` per component. (A directory opened from its parent does
/// not come here: the caller knows it is one name and uses [`open_dir_at`].)
pub fn open_dir_beneath(base: Base, path: &[u8]) -> io::Result<OwnedFd> {
    if !path.contains(&b'/') {
        return openat_bytes(base.fd(), path, DIR_FLAGS | libc::O_NOFOLLOW);
    }
    #[cfg(target_os = "linux")]
    if openat2::usable() {
        return descend(base, pieces(path), |at, piece| {
            openat2::open_no_symlinks(at, piece)
        });
    }
    open_by_components(base, path)
}

/// [`open_dir_beneath`] without `openat2`: one `openat(O_NOFOLLOW)` per component.
fn open_by_components(base: Base, path: &[u8]) -> io::Result<OwnedFd> {
    let components = path.split(|&b| b == b'/').filter(|c| !c.is_empty());
    descend(base, components, |at, component| {
        openat_bytes(at, component, DIR_FLAGS | libc::O_NOFOLLOW)
    })
}

/// Opens each of `steps` relative to the previous one, starting at `base`, closing
/// each intermediate directory (and an owned `base`) once the next one is open.
fn descend<S>(
    base: Base,
    steps: impl Iterator<Item = S>,
    open_step: impl Fn(RawFd, S) -> io::Result<OwnedFd>,
) -> io::Result<OwnedFd> {
    let mut current = base;
    for step in steps {
        // Assigning drops the previous directory, which closes it if it was ours.
        current = Base::Owned(open_step(current.fd(), step)?);
    }
    match current {
        Base::Owned(fd) => Ok(fd),
        Base::Borrowed(_) => Err(io::Error::from_raw_os_error(libc::ENOENT)),
    }
}

/// `path` cut at slashes into pieces shorter than `PATH_MAX`, each openable in one
/// call; the first keeps a leading `/`, so an absolute path stays absolute. A single
/// component longer than that cannot exist (names are at most 255 bytes); if one
/// did, it is passed on whole and the kernel refuses it.
fn pieces(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    const PIECE: usize = libc::PATH_MAX as usize - 1;
    let mut rest = path;
    let mut first = true;
    std::iter::from_fn(move || {
        if !first {
            while let Some(tail) = rest.strip_prefix(b"/") {
                rest = tail;
            }
        }
        first = false;
        if rest.is_empty() {
            return None;
        }
        let cut = if rest.len() <= PIECE {
            rest.len()
        } else {
            match rest[..=PIECE].iter().rposition(|&b| b == b'/') {
                Some(slash) if slash > 0 => slash,
                _ => rest.len(),
            }
        };
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

/// `openat2(2)`, called through `syscall` since libc has no wrapper for it, and
/// whether this kernel has it.
#[cfg(target_os = "linux")]
mod openat2 {
    use super::{with_c_path, DIR_FLAGS};
    use std::io;
    use std::os::fd::{FromRawFd, OwnedFd, RawFd};
    use std::sync::atomic::{AtomicU8, Ordering};

    /// `struct open_how` from `linux/openat2.h` (libc's is `#[non_exhaustive]`).
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }

    const UNKNOWN: u8 = 0;
    const YES: u8 = 1;
    const NO: u8 = 2;
    static USABLE: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// True when `openat2` works here. Asked once per process, with a harmless open
    /// of `/`, so that a real open never has to be retried another way (its base
    /// may already have been closed by then).
    pub(super) fn usable() -> bool {
        #[cfg(test)]
        if super::tests::openat2_disabled() {
            return false;
        }
        match USABLE.load(Ordering::Relaxed) {
            YES => true,
            NO => false,
            _ => {
                let usable = match open_no_symlinks(libc::AT_FDCWD, b"/") {
                    Ok(_) => true,
                    // ENOSYS: a kernel before 5.6. EPERM: a seccomp filter that does
                    // not know the call (older container runtimes answer so).
                    Err(err) => !matches!(err.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)),
                };
                USABLE.store(if usable { YES } else { NO }, Ordering::Relaxed);
                usable
            }
        }
    }

    /// Opens the directory `path` relative to `at`, refusing symbolic links in every
    /// component, the last included.
    pub(super) fn open_no_symlinks(at: RawFd, path: &[u8]) -> io::Result<OwnedFd> {
        let how = OpenHow {
            flags: (DIR_FLAGS | libc::O_NOFOLLOW) as u64,
            mode: 0,
            resolve: libc::RESOLVE_NO_SYMLINKS,
        };
        with_c_path(path, |c_path| loop {
            // SAFETY: `c_path` is NUL-terminated and `how` is a valid `open_how` of
            // the size passed; the kernel only reads them during the call.
            let fd = unsafe {
                libc::syscall(
                    libc::SYS_openat2,
                    at,
                    c_path.as_ptr(),
                    &how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                )
            };
            if fd >= 0 {
                // SAFETY: the kernel just returned this descriptor; nobody else owns it.
                return Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        })
    }
}

/// How every directory is opened for listing.
const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

/// Calls `f` with `path` as a C string. Paths that fit (every single name does) are
/// built on the stack: opening a directory then allocates nothing.
fn with_c_path<R>(path: &[u8], f: impl FnOnce(&CStr) -> io::Result<R>) -> io::Result<R> {
    const STACK: usize = 256;
    let invalid = || io::Error::from(io::ErrorKind::InvalidInput);
    if path.len() < STACK {
        let mut buffer = [0u8; STACK];
        buffer[..path.len()].copy_from_slice(path);
        let c_path = CStr::from_bytes_with_nul(&buffer[..=path.len()]).map_err(|_| invalid())?;
        return f(c_path);
    }
    let mut buffer = Vec::with_capacity(path.len() + 1);
    buffer.extend_from_slice(path);
    buffer.push(0);
    f(CStr::from_bytes_with_nul(&buffer).map_err(|_| invalid())?)
}

fn openat_bytes(at: RawFd, path: &[u8], flags: libc::c_int) -> io::Result<OwnedFd> {
    with_c_path(path, |c_path| loop {
        // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
        let fd = unsafe { libc::openat(at, c_path.as_ptr(), flags) };
        if fd >= 0 {
            // SAFETY: `openat` just returned this descriptor and nobody else owns it.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    })
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: the entry itself, never a link's target.
pub fn lstat_at(dir: RawFd, name: &CStr) -> io::Result<libc::stat> {
    stat_at(dir, name, false)
}

/// `fstatat(dir, name)`: with `follow`, what a symbolic link points to (for `-L`);
/// without, the entry itself.
pub fn stat_at(dir: RawFd, name: &CStr, follow: bool) -> io::Result<libc::stat> {
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: `name` is NUL-terminated and outlives the call; `out` is the writable
    // `stat` that `filled_stat` provides.
    filled_stat(|out| unsafe { libc::fstatat(dir, name.as_ptr(), out, flags) })
}

/// `fstat` of an open descriptor: the identity (device, inode) of a directory being
/// listed, for `-L` loop detection and `-x`.
pub fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    // SAFETY: `out` is the writable `stat` that `filled_stat` provides; `fstat` does
    // not keep the pointer.
    filled_stat(|out| unsafe { libc::fstat(fd, out) })
}

/// Runs a `stat`-family call that fills the `stat` it is given and returns 0 on
/// success (-1 and `errno` otherwise), and returns what it filled in.
fn filled_stat(call: impl FnOnce(*mut libc::stat) -> libc::c_int) -> io::Result<libc::stat> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    if call(stat.as_mut_ptr()) == 0 {
        // SAFETY: the call returned 0, which for the stat family means it filled in
        // the whole struct.
        Ok(unsafe { stat.assume_init() })
    } else {
        Err(io::Error::last_os_error())
    }
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
    pub fn native() -> ReaderKind {
        #[cfg(target_os = "linux")]
        return ReaderKind::Getdents;
        #[cfg(not(target_os = "linux"))]
        return ReaderKind::Readdir;
    }
}

/// Lists directories. Each worker owns one and reuses its buffer for every directory.
pub struct DirReader {
    kind: ReaderKind,
    /// Left uninitialised: the kernel writes each batch and only what it wrote is
    /// read. Zeroing 64 KiB per worker cost 66,000 instructions and touched all 16
    /// pages at start-up, where a small directory's listing touches one.
    buffer: Vec<MaybeUninit<u8>>,
}

impl DirReader {
    pub fn new(kind: ReaderKind, buffer_size: usize) -> DirReader {
        let buffer = match kind {
            #[cfg(target_os = "linux")]
            ReaderKind::Getdents => {
                // Room for at least a few records (one is at most 280 bytes).
                let size = buffer_size.max(1024);
                let mut buffer = Vec::with_capacity(size);
                buffer.resize(size, MaybeUninit::uninit());
                buffer
            }
            ReaderKind::Readdir => Vec::new(),
        };
        DirReader { kind, buffer }
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
            ReaderKind::Getdents => read_getdents(dir, &mut self.buffer, stop, each),
            ReaderKind::Readdir => read_readdir(dir, stop, each),
        }
    }
}

/// Byte offsets inside a `struct linux_dirent64` record.
#[cfg(target_os = "linux")]
mod record {
    pub const RECLEN: usize = 16;
    pub const TYPE: usize = 18;
    pub const NAME: usize = 19;
}

#[cfg(target_os = "linux")]
fn read_getdents(
    dir: RawFd,
    buffer: &mut [MaybeUninit<u8>],
    stop: &AtomicBool,
    mut each: impl FnMut(RawEntry<'_>),
) -> io::Result<()> {
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        // SAFETY: the kernel writes at most `buffer.len()` bytes into `buffer`, which we
        // own mutably for the duration of the call.
        let filled =
            unsafe { libc::syscall(libc::SYS_getdents64, dir, buffer.as_mut_ptr(), buffer.len()) };
        if filled < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if filled == 0 {
            return Ok(());
        }
        // SAFETY: getdents64 returned `filled` (> 0, at most `buffer.len()`): it wrote
        // that many bytes at the start of `buffer`, so they are initialised.
        let filled =
            unsafe { std::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), filled as usize) };
        let mut offset = 0;
        while offset + record::NAME < filled.len() {
            let record_bytes = &filled[offset..];
            let reclen = u16::from_ne_bytes([
                record_bytes[record::RECLEN],
                record_bytes[record::RECLEN + 1],
            ]) as usize;
            if reclen <= record::NAME || reclen > record_bytes.len() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "malformed directory record from getdents64",
                ));
            }
            each(RawEntry {
                name_area: &record_bytes[record::NAME..reclen],
                kind: EntryKind::from_d_type(record_bytes[record::TYPE]),
            });
            offset += reclen;
        }
    }
}

fn read_readdir(
    dir: RawFd,
    stop: &AtomicBool,
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
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::BTreeMap;

    thread_local! {
        static OPENAT2_DISABLED: Cell<bool> = const { Cell::new(false) };
    }

    /// Makes this thread open paths below a root one component at a time, as on a
    /// kernel without `openat2`.
    pub(crate) fn disable_openat2(disabled: bool) {
        OPENAT2_DISABLED.with(|d| d.set(disabled));
    }

    pub(super) fn openat2_disabled() -> bool {
        OPENAT2_DISABLED.with(Cell::get)
    }
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

        for kind in all_readers() {
            // A tiny buffer forces many getdents64 calls for one directory.
            for buffer in [4096, 64 * 1024] {
                let seen = list(kind, root, buffer);
                assert_eq!(seen.len(), 255 + 4 + 2, "{kind:?}");
                assert_eq!(seen[&b"sub"[..]], EntryKind::Dir);
                assert_eq!(seen[&b"link"[..]], EntryKind::Symlink);
                assert_eq!(seen[&b"fifo"[..]], EntryKind::Other);
                assert_eq!(seen[&b"bad\xffname\n"[..]], EntryKind::File);
                assert_eq!(seen[&b"n".repeat(255)[..]], EntryKind::File);
                assert_eq!(seen[&b"."[..]], EntryKind::Dir);
            }
        }
    }

    /// The early stop of `--max-results` and a closed pipe: once the flag is raised, a
    /// big directory is not read to its end.
    #[test]
    fn a_raised_stop_flag_ends_the_listing_at_the_next_batch() {
        let tmp = tempfile::tempdir().unwrap();
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

    #[test]
    fn lstat_at_does_not_follow_links() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::os::unix::fs::symlink("d", tmp.path().join("l")).unwrap();
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let stat = lstat_at(fd.as_raw_fd(), c"l").unwrap();
        assert_eq!(EntryKind::from_mode(stat.st_mode), EntryKind::Symlink);
        let stat = lstat_at(fd.as_raw_fd(), c"d").unwrap();
        assert_eq!(EntryKind::from_mode(stat.st_mode), EntryKind::Dir);
        let err = lstat_at(fd.as_raw_fd(), c"missing").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
    }

    #[test]
    fn stat_at_follows_and_fstat_identifies() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::os::unix::fs::symlink("d", tmp.path().join("l")).unwrap();
        std::os::unix::fs::symlink("l2", tmp.path().join("l2")).unwrap();
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let target = stat_at(fd.as_raw_fd(), c"l", true).unwrap();
        assert_eq!(EntryKind::from_mode(target.st_mode), EntryKind::Dir);
        let dir = open_dir_at(Some(fd.as_raw_fd()), b"d", true).unwrap();
        let opened = fstat(dir.as_raw_fd()).unwrap();
        assert_eq!(
            (opened.st_dev, opened.st_ino),
            (target.st_dev, target.st_ino)
        );
        let err = stat_at(fd.as_raw_fd(), c"l2", true).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ELOOP));
    }

    #[test]
    fn nofollow_refuses_a_link_to_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::os::unix::fs::symlink("d", tmp.path().join("l")).unwrap();
        let base = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        assert!(open_dir_at(Some(base.as_raw_fd()), b"d", true).is_ok());
        let err = open_dir_at(Some(base.as_raw_fd()), b"l", true).unwrap_err();
        // Linux says ENOTDIR when O_DIRECTORY meets the link first, others ELOOP.
        assert!(
            matches!(err.raw_os_error(), Some(libc::ENOTDIR | libc::ELOOP)),
            "{err}"
        );
    }

    /// `open_dir_beneath` with `openat2` (where the kernel has it) and with the
    /// per-component fallback: real directories open, a link anywhere is refused.
    #[test]
    fn beneath_refuses_a_link_in_any_component() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("a/b/c")).unwrap();
        std::fs::create_dir_all(tmp.path().join("elsewhere/b/c")).unwrap();
        std::os::unix::fs::symlink("../elsewhere", tmp.path().join("a/up")).unwrap();
        std::os::unix::fs::symlink("b", tmp.path().join("a/to_b")).unwrap();
        let base = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let borrowed = || Base::Borrowed(base.as_raw_fd());
        for fallback in [false, true] {
            disable_openat2(fallback);
            for ok in [&b"a"[..], b"a/b", b"a/b/c", b"a//b/c"] {
                let dir = open_dir_beneath(borrowed(), ok);
                assert!(dir.is_ok(), "{:?} fallback {fallback}", ok);
            }
            for refused in [&b"a/up"[..], b"a/up/b", b"a/up/b/c", b"a/to_b", b"a/to_b/c"] {
                let err = open_dir_beneath(borrowed(), refused).unwrap_err();
                assert!(
                    matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)),
                    "{:?} fallback {fallback}: {err}",
                    String::from_utf8_lossy(refused)
                );
            }
            // An owned base is consumed (closed); a borrowed one stays open.
            let owned = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
            assert!(open_dir_beneath(Base::Owned(owned), b"a/b").is_ok());
            // SAFETY: F_GETFD only reads flags.
            assert_ne!(unsafe { libc::fcntl(base.as_raw_fd(), libc::F_GETFD) }, -1);
        }
        disable_openat2(false);
    }

    #[test]
    fn long_paths_are_cut_into_pieces_at_slashes() {
        let max = libc::PATH_MAX as usize - 1;
        let name = [b'n'; 200];
        let long: Vec<u8> = vec![&name[..]; 50].join(&b'/');
        let cut: Vec<&[u8]> = pieces(&long).collect();
        assert!(cut.len() >= 3);
        assert!(cut
            .iter()
            .all(|piece| piece.len() <= max && !piece.is_empty()));
        assert_eq!(cut.join(&b'/'), long);
        assert!(cut.iter().all(|piece| !piece.starts_with(b"/")));
        // An absolute path stays absolute; doubled slashes between pieces vanish.
        let absolute = [&b"/"[..], &long].concat();
        let cut: Vec<&[u8]> = pieces(&absolute).collect();
        assert!(cut[0].starts_with(b"/") && !cut[1].starts_with(b"/"));
        let short: Vec<&[u8]> = pieces(b"a//b").collect();
        assert_eq!(short, [&b"a//b"[..]]);
        assert_eq!(pieces(b"").count(), 0);
    }

    #[test]
    fn paths_longer_than_path_max_open_piecewise() {
        let tmp = tempfile::tempdir().unwrap();
        let base = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        // 40 levels of 200-byte names: 8 KiB of path, twice PATH_MAX.
        let component = "d".repeat(200);
        let mut relative = Vec::new();
        let mut current = base.try_clone().unwrap();
        for _ in 0..40 {
            let mut c_name = component.clone().into_bytes();
            c_name.push(0);
            // SAFETY: NUL-terminated name, valid directory descriptor.
            let rc = unsafe { libc::mkdirat(current.as_raw_fd(), c_name.as_ptr().cast(), 0o755) };
            assert_eq!(rc, 0);
            current = open_dir_at(Some(current.as_raw_fd()), component.as_bytes(), true).unwrap();
            if !relative.is_empty() {
                relative.push(b'/');
            }
            relative.extend_from_slice(component.as_bytes());
        }
        assert!(relative.len() > libc::PATH_MAX as usize);
        let b = lstat_at(current.as_raw_fd(), c".").unwrap();
        let deep = open_dir_at(Some(base.as_raw_fd()), &relative, true).unwrap();
        let a = lstat_at(deep.as_raw_fd(), c".").unwrap();
        assert_eq!((a.st_dev, a.st_ino), (b.st_dev, b.st_ino));
        for fallback in [false, true] {
            disable_openat2(fallback);
            let deep = open_dir_beneath(Base::Borrowed(base.as_raw_fd()), &relative).unwrap();
            let a = lstat_at(deep.as_raw_fd(), c".").unwrap();
            assert_eq!((a.st_dev, a.st_ino), (b.st_dev, b.st_ino));
        }
        disable_openat2(false);
        // A link 30 levels down, beyond the first PATH_MAX piece, is still refused.
        let mut parent = base.try_clone().unwrap();
        let mut levels = relative.split(|&b| b == b'/');
        for _ in 0..29 {
            parent = open_dir_at(Some(parent.as_raw_fd()), levels.next().unwrap(), true).unwrap();
        }
        let name = c_string(levels.next().unwrap());
        let aside = c"aside";
        // SAFETY: valid descriptor and NUL-terminated names.
        unsafe {
            assert_eq!(
                libc::renameat(
                    parent.as_raw_fd(),
                    name.as_ptr(),
                    parent.as_raw_fd(),
                    aside.as_ptr()
                ),
                0
            );
            assert_eq!(
                libc::symlinkat(aside.as_ptr(), parent.as_raw_fd(), name.as_ptr()),
                0
            );
        }
        for fallback in [false, true] {
            disable_openat2(fallback);
            let err = open_dir_beneath(Base::Borrowed(base.as_raw_fd()), &relative).unwrap_err();
            assert!(
                matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)),
                "{err}"
            );
        }
        disable_openat2(false);
    }

    fn c_string(bytes: &[u8]) -> std::ffi::CString {
        std::ffi::CString::new(bytes).unwrap()
    }
}
