//! `stat` calls and what they answer: [`lstat_at`], the `stat` of an entry (never a
//! link's target) used for `DT_UNKNOWN` entries and for what the filters and output
//! read, on the NUL-terminated name the kernel already gave us; [`stat_at`] follows
//! links (`-L`) and [`fstat`] identifies an open directory.
//!
//! Each call is told which [`Fields`] the run reads. On Linux that is `statx`'s mask,
//! so a filesystem that fetches some fields from elsewhere (Lustre's sizes and times
//! come from the object servers, a CephFS size or time can recall a writer's
//! capabilities) is asked only for those; there too a run may allow attributes the
//! client has cached ([`Fields::CACHED`], `AT_STATX_DONT_SYNC`). The other systems,
//! and the `portable` build (Cargo.toml), call `fstatat` and get every field. Either
//! way the answer is a [`Stat`], read through its methods, with the file's birth time
//! where the system and the filesystem record it.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

/// Which of an entry's times: modification (the default of every time filter),
/// access, inode change or birth (creation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeField {
    #[default]
    Modified,
    Accessed,
    Changed,
    Born,
}

impl TimeField {
    /// The field of a `stat` that holds this time.
    pub fn fields(self) -> Fields {
        match self {
            TimeField::Modified => Fields::MTIME,
            TimeField::Accessed => Fields::ATIME,
            TimeField::Changed => Fields::CTIME,
            TimeField::Born => Fields::BTIME,
        }
    }
}

/// The fields of a `stat` a run reads, and how fresh they must be: a set of bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields(u32);

impl Fields {
    /// The kind of entry (the type bits of `st_mode`).
    pub const TYPE: Fields = Fields(1);
    /// The permission bits of `st_mode` (with the type).
    pub const MODE: Fields = Fields(1 << 1);
    pub const OWNER: Fields = Fields(1 << 2);
    pub const SIZE: Fields = Fields(1 << 3);
    pub const MTIME: Fields = Fields(1 << 4);
    pub const ATIME: Fields = Fields(1 << 5);
    pub const CTIME: Fields = Fields(1 << 6);
    pub const BTIME: Fields = Fields(1 << 7);
    /// The (device, inode) that identifies a directory.
    pub const ID: Fields = Fields(1 << 8);
    /// Not a field: attributes the client has cached will do (`AT_STATX_DONT_SYNC`).
    pub const CACHED: Fields = Fields(1 << 9);
    /// Not a field: an entry without a birth time is an error, for the filters that
    /// test it (the output prints `-` instead).
    pub const BIRTH_REQUIRED: Fields = Fields(1 << 10);
    /// Everything `fstatat` answers, what a caller that keeps the whole answer asks.
    pub const ALL: Fields = Fields((1 << 9) - 1 - Fields::BTIME.0);

    /// Both sets.
    pub const fn with(self, other: Fields) -> Fields {
        Fields(self.0 | other.0)
    }

    /// True when every bit of `other` is set here.
    pub const fn has(self, other: Fields) -> bool {
        self.0 & other.0 == other.0
    }

    /// The same set with `other` taken out.
    pub const fn without(self, other: Fields) -> Fields {
        Fields(self.0 & !other.0)
    }

    /// The same fields, with no error for a missing birth time: for a `stat` that is
    /// not tested yet (a root, a link's target), which [`Stat::require`] checks when it
    /// is.
    pub const fn lenient(self) -> Fields {
        self.without(Fields::BIRTH_REQUIRED)
    }
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)` or its `statx`: the entry itself, never
/// a link's target.
#[inline(always)]
pub fn lstat_at(dir: RawFd, name: &CStr, fields: Fields) -> io::Result<Stat> {
    stat_at(dir, name, false, fields)
}

/// `fstatat(dir, name)` or its `statx`: with `follow`, what a symbolic link points to
/// (for `-L`); without, the entry itself.
#[inline(always)]
pub fn stat_at(dir: RawFd, name: &CStr, follow: bool, fields: Fields) -> io::Result<Stat> {
    sys::stat_at(dir, name, follow, fields)?.require(fields)
}

/// `fstat` of an open descriptor: the identity (device, inode) of a directory being
/// listed, for `-L` loop detection and `-x`, and what `fields` ask of it.
pub fn fstat(fd: RawFd, fields: Fields) -> io::Result<Stat> {
    sys::stat_at(fd, c"", false, fields.with(Fields::ID))?.require(fields)
}

/// The error for an entry whose filesystem keeps no birth time, when a run reads it.
fn no_birth_time() -> io::Error {
    io::Error::other("no birth time: this filesystem (or system) does not record one")
}

/// One entry's `stat`, whatever call answered it. Fields a run did not ask for may
/// read as 0.
#[derive(Clone, Copy)]
pub struct Stat {
    raw: sys::Raw,
}

// The casts below widen on Linux but not on every Unix (`mode_t` is 16 bits on macOS,
// `dev_t` signed on some systems, `time_t` may be 32 bits).
#[allow(clippy::unnecessary_cast)]
impl Stat {
    /// This `stat`, or the error for a birth time that `fields` require and the
    /// filesystem does not record.
    #[inline(always)]
    pub fn require(self, fields: Fields) -> io::Result<Stat> {
        if fields.has(Fields::BIRTH_REQUIRED) && self.birth().is_none() {
            return Err(no_birth_time());
        }
        Ok(self)
    }

    /// `st_mode`: the type and permission bits.
    #[inline(always)]
    pub fn mode(&self) -> libc::mode_t {
        sys::mode(&self.raw)
    }

    /// `st_size`: the link's own for a link.
    #[inline(always)]
    pub fn size(&self) -> u64 {
        sys::size(&self.raw)
    }

    pub fn uid(&self) -> u32 {
        sys::owner(&self.raw).0
    }

    pub fn gid(&self) -> u32 {
        sys::owner(&self.raw).1
    }

    /// (device, inode): what identifies a directory for `-L` and `-x`.
    pub fn id(&self) -> (u64, u64) {
        sys::id(&self.raw)
    }

    /// One of the times, seconds since the epoch and nanoseconds within the second;
    /// `None` only for a birth time the filesystem does not record.
    #[inline]
    pub fn time(&self, field: TimeField) -> Option<(i64, u32)> {
        match field {
            TimeField::Born => self.birth(),
            field => Some(sys::time(&self.raw, field)),
        }
    }

    /// The birth time, where the system and the filesystem record it.
    pub fn birth(&self) -> Option<(i64, u32)> {
        sys::birth(&self.raw)
    }
}

impl std::fmt::Debug for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stat")
            .field("mode", &self.mode())
            .field("size", &self.size())
            .field("id", &self.id())
            .finish_non_exhaustive()
    }
}

/// Runs a call that fills the struct it is given and returns 0 on success (-1 and
/// `errno` otherwise), and returns what it filled in.
fn filled<T>(call: impl FnOnce(*mut T) -> libc::c_long) -> io::Result<T> {
    let mut out = std::mem::MaybeUninit::<T>::uninit();
    if call(out.as_mut_ptr()) == 0 {
        // SAFETY: the call returned 0, which for the stat family means it filled in
        // the whole struct.
        Ok(unsafe { out.assume_init() })
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Linux: `statx`, called as a system call rather than through the C library's
/// wrapper (glibc has it from 2.28 only, and pfind must start on older systems),
/// with `fstatat` where the kernel has no `statx` (before 4.11) or a sandbox refuses
/// it.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
mod sys {
    use super::{filled, Fields, Stat, TimeField};
    use std::ffi::CStr;
    use std::io;
    use std::os::fd::RawFd;
    use std::sync::atomic::{AtomicBool, Ordering};

    pub(super) type Raw = libc::statx;

    /// Set once `statx` has failed as missing: every later call goes to `fstatat`.
    static NO_STATX: AtomicBool = AtomicBool::new(false);

    /// `statx`'s mask for `fields`. The type is always asked: every caller reads it.
    pub(super) fn mask(fields: Fields) -> u32 {
        let pairs = [
            (Fields::MODE, libc::STATX_MODE),
            (Fields::OWNER, libc::STATX_UID | libc::STATX_GID),
            (Fields::SIZE, libc::STATX_SIZE),
            (Fields::MTIME, libc::STATX_MTIME),
            (Fields::ATIME, libc::STATX_ATIME),
            (Fields::CTIME, libc::STATX_CTIME),
            (Fields::BTIME, libc::STATX_BTIME),
            (Fields::ID, libc::STATX_INO),
        ];
        pairs
            .iter()
            .filter(|(field, _)| fields.has(*field))
            .fold(libc::STATX_TYPE, |mask, (_, bit)| mask | bit)
    }

    #[inline(always)]
    pub(super) fn stat_at(
        dir: RawFd,
        name: &CStr,
        follow: bool,
        fields: Fields,
    ) -> io::Result<Stat> {
        let mut flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        if name.is_empty() {
            flags |= libc::AT_EMPTY_PATH;
        }
        if fields.has(Fields::CACHED) {
            flags |= libc::AT_STATX_DONT_SYNC;
        }
        if !NO_STATX.load(Ordering::Relaxed) {
            // SAFETY: `name` is NUL-terminated and outlives the call; `out` is the
            // writable `statx` that `filled` provides; the kernel keeps no pointer.
            let result = filled(|out: *mut libc::statx| unsafe {
                libc::syscall(
                    libc::SYS_statx,
                    dir,
                    name.as_ptr(),
                    flags,
                    mask(fields),
                    out,
                )
            });
            match result {
                Ok(raw) => return Ok(Stat { raw }),
                Err(err) if !matches!(err.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) => {
                    return Err(err)
                }
                Err(_) => NO_STATX.store(true, Ordering::Relaxed),
            }
        }
        fallback(dir, name, flags & !libc::AT_STATX_DONT_SYNC)
    }

    /// `fstatat`, its answer put in `statx`'s form (no birth time).
    #[inline(never)]
    fn fallback(dir: RawFd, name: &CStr, flags: libc::c_int) -> io::Result<Stat> {
        // SAFETY: as in `stat_at`; `out` is a writable `stat`.
        let stat = filled(|out: *mut libc::stat| unsafe {
            libc::fstatat(dir, name.as_ptr(), out, flags) as libc::c_long
        })?;
        Ok(Stat {
            raw: from_stat(&stat),
        })
    }

    /// A `stat` in `statx`'s form, every field but the birth time.
    fn from_stat(stat: &libc::stat) -> libc::statx {
        let time = |sec: i64, nsec: i64| {
            // SAFETY: `statx_timestamp` is plain integers, for which zero is valid.
            let mut time: libc::statx_timestamp = unsafe { std::mem::zeroed() };
            (time.tv_sec, time.tv_nsec) = (sec, nsec as u32);
            time
        };
        // SAFETY: `statx` is plain integers, for which zero is valid.
        let mut raw: libc::statx = unsafe { std::mem::zeroed() };
        raw.stx_mask = libc::STATX_BASIC_STATS;
        raw.stx_mode = stat.st_mode as u16;
        raw.stx_size = stat.st_size as u64;
        raw.stx_uid = stat.st_uid;
        raw.stx_gid = stat.st_gid;
        raw.stx_ino = stat.st_ino;
        raw.stx_dev_major = libc::major(stat.st_dev);
        raw.stx_dev_minor = libc::minor(stat.st_dev);
        raw.stx_mtime = time(stat.st_mtime, stat.st_mtime_nsec);
        raw.stx_atime = time(stat.st_atime, stat.st_atime_nsec);
        raw.stx_ctime = time(stat.st_ctime, stat.st_ctime_nsec);
        raw
    }

    #[inline(always)]
    pub(super) fn mode(raw: &Raw) -> libc::mode_t {
        libc::mode_t::from(raw.stx_mode)
    }

    #[inline(always)]
    pub(super) fn size(raw: &Raw) -> u64 {
        raw.stx_size
    }

    pub(super) fn owner(raw: &Raw) -> (u32, u32) {
        (raw.stx_uid, raw.stx_gid)
    }

    pub(super) fn id(raw: &Raw) -> (u64, u64) {
        let dev = libc::makedev(raw.stx_dev_major, raw.stx_dev_minor);
        (dev, raw.stx_ino)
    }

    #[inline]
    pub(super) fn time(raw: &Raw, field: TimeField) -> (i64, u32) {
        let time = match field {
            TimeField::Modified => raw.stx_mtime,
            TimeField::Accessed => raw.stx_atime,
            TimeField::Changed => raw.stx_ctime,
            TimeField::Born => raw.stx_btime,
        };
        (time.tv_sec, time.tv_nsec)
    }

    /// Only when the kernel says it filled it in: a filesystem that keeps no birth
    /// time leaves `STATX_BTIME` out of `stx_mask`.
    pub(super) fn birth(raw: &Raw) -> Option<(i64, u32)> {
        (raw.stx_mask & libc::STATX_BTIME != 0).then(|| time(raw, TimeField::Born))
    }

    #[cfg(test)]
    pub(super) fn force_fallback(on: bool) {
        NO_STATX.store(on, Ordering::Relaxed);
    }
}

/// The other systems: `fstatat`, every field; the birth time where `struct stat` has
/// one (macOS, the BSDs but OpenBSD).
#[cfg(any(not(target_os = "linux"), feature = "portable"))]
#[allow(clippy::unnecessary_cast)]
mod sys {
    use super::{filled, Fields, Stat, TimeField};
    use std::ffi::CStr;
    use std::io;
    use std::os::fd::RawFd;

    pub(super) type Raw = libc::stat;

    #[inline(always)]
    pub(super) fn stat_at(
        dir: RawFd,
        name: &CStr,
        follow: bool,
        _fields: Fields,
    ) -> io::Result<Stat> {
        let raw = if name.is_empty() {
            // SAFETY: `out` is the writable `stat` that `filled` provides; `fstat`
            // does not keep the pointer.
            filled(|out| unsafe { libc::fstat(dir, out) as libc::c_long })?
        } else {
            let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
            // SAFETY: `name` is NUL-terminated and outlives the call; `out` is the
            // writable `stat` that `filled` provides.
            filled(|out| unsafe { libc::fstatat(dir, name.as_ptr(), out, flags) as libc::c_long })?
        };
        Ok(Stat { raw })
    }

    #[inline(always)]
    pub(super) fn mode(raw: &Raw) -> libc::mode_t {
        raw.st_mode
    }

    #[inline(always)]
    pub(super) fn size(raw: &Raw) -> u64 {
        raw.st_size as u64
    }

    pub(super) fn owner(raw: &Raw) -> (u32, u32) {
        (raw.st_uid as u32, raw.st_gid as u32)
    }

    pub(super) fn id(raw: &Raw) -> (u64, u64) {
        (raw.st_dev as u64, raw.st_ino as u64)
    }

    #[inline]
    pub(super) fn time(raw: &Raw, field: TimeField) -> (i64, u32) {
        let (sec, nsec) = match field {
            TimeField::Modified => (raw.st_mtime, raw.st_mtime_nsec),
            TimeField::Accessed => (raw.st_atime, raw.st_atime_nsec),
            TimeField::Changed => (raw.st_ctime, raw.st_ctime_nsec),
            TimeField::Born => return birth(raw).unwrap_or_default(),
        };
        (sec as i64, nsec as u32)
    }

    /// FreeBSD answers -1 seconds where the filesystem keeps no birth time.
    #[cfg(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd"
    ))]
    pub(super) fn birth(raw: &Raw) -> Option<(i64, u32)> {
        let (sec, nsec) = (raw.st_birthtime as i64, raw.st_birthtime_nsec as u32);
        (sec != -1 || nsec != 0).then_some((sec, nsec))
    }

    #[cfg(not(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "netbsd"
    )))]
    pub(super) fn birth(_raw: &Raw) -> Option<(i64, u32)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::dirent::EntryKind;
    use crate::os::open::open_dir_at;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn lstat_at_does_not_follow_links() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::os::unix::fs::symlink("d", tmp.path().join("l")).unwrap();
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let stat = lstat_at(fd.as_raw_fd(), c"l", Fields::TYPE).unwrap();
        assert_eq!(EntryKind::from_mode(stat.mode()), EntryKind::Symlink);
        let stat = lstat_at(fd.as_raw_fd(), c"d", Fields::TYPE).unwrap();
        assert_eq!(EntryKind::from_mode(stat.mode()), EntryKind::Dir);
        let err = lstat_at(fd.as_raw_fd(), c"missing", Fields::TYPE).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
    }

    #[test]
    fn stat_at_follows_and_fstat_identifies() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::os::unix::fs::symlink("d", tmp.path().join("l")).unwrap();
        std::os::unix::fs::symlink("l2", tmp.path().join("l2")).unwrap();
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let target = stat_at(fd.as_raw_fd(), c"l", true, Fields::ID).unwrap();
        assert_eq!(EntryKind::from_mode(target.mode()), EntryKind::Dir);
        let dir = open_dir_at(Some(fd.as_raw_fd()), b"d", true).unwrap();
        let opened = fstat(dir.as_raw_fd(), Fields::TYPE).unwrap();
        assert_eq!(opened.id(), target.id());
        let err = stat_at(fd.as_raw_fd(), c"l2", true, Fields::TYPE).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ELOOP));
    }

    /// Every field agrees with the standard library's `stat` (which is `statx` with
    /// the whole mask on Linux, `fstatat` elsewhere).
    #[test]
    #[allow(clippy::unnecessary_cast)] // `mode_t` is 16 bits on macOS
    fn fields_agree_with_the_standard_library() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f"), b"12345").unwrap();
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let stat = lstat_at(fd.as_raw_fd(), c"f", Fields::ALL).unwrap();
        let meta = std::fs::symlink_metadata(tmp.path().join("f")).unwrap();
        assert_eq!(stat.mode() as u32, meta.mode());
        assert_eq!(stat.size(), 5);
        assert_eq!((stat.uid(), stat.gid()), (meta.uid(), meta.gid()));
        assert_eq!(stat.id(), (meta.dev(), meta.ino()));
        let time = |field| stat.time(field).unwrap();
        assert_eq!(
            time(TimeField::Modified),
            (meta.mtime(), meta.mtime_nsec() as u32)
        );
        assert_eq!(
            time(TimeField::Accessed),
            (meta.atime(), meta.atime_nsec() as u32)
        );
        assert_eq!(
            time(TimeField::Changed),
            (meta.ctime(), meta.ctime_nsec() as u32)
        );
    }

    /// Where `statx` is missing, `fstatat`'s answer reads the same (but the birth
    /// time, which it does not have).
    #[cfg(all(target_os = "linux", not(feature = "portable")))]
    #[test]
    fn the_fstatat_fallback_reads_the_same() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("f"), b"12345").unwrap();
        let fd = open_dir_at(None, tmp.path().as_os_str().as_bytes(), false).unwrap();
        let statx = lstat_at(fd.as_raw_fd(), c"f", Fields::ALL).unwrap();
        sys::force_fallback(true);
        let fallback = lstat_at(fd.as_raw_fd(), c"f", Fields::ALL);
        let no_birth = lstat_at(fd.as_raw_fd(), c"f", Fields::BIRTH_REQUIRED);
        sys::force_fallback(false);
        let fallback = fallback.unwrap();
        assert_eq!(fallback.mode(), statx.mode());
        assert_eq!(fallback.size(), statx.size());
        assert_eq!(fallback.id(), statx.id());
        for field in [TimeField::Modified, TimeField::Accessed, TimeField::Changed] {
            assert_eq!(fallback.time(field), statx.time(field));
        }
        assert!(no_birth.unwrap_err().to_string().contains("no birth time"));
    }

    /// The mask asks for the fields named, and always the type.
    #[cfg(all(target_os = "linux", not(feature = "portable")))]
    #[test]
    fn the_mask_names_only_what_is_asked() {
        assert_eq!(sys::mask(Fields::TYPE), libc::STATX_TYPE);
        assert_eq!(
            sys::mask(Fields::SIZE.with(Fields::CACHED)),
            libc::STATX_TYPE | libc::STATX_SIZE
        );
        assert_eq!(
            sys::mask(Fields::ATIME.with(Fields::OWNER)),
            libc::STATX_TYPE | libc::STATX_ATIME | libc::STATX_UID | libc::STATX_GID
        );
        assert_eq!(sys::mask(Fields::ALL) & libc::STATX_BTIME, 0);
        assert_eq!(
            sys::mask(Fields::ALL) & libc::STATX_BASIC_STATS,
            libc::STATX_BASIC_STATS & !(libc::STATX_NLINK | libc::STATX_BLOCKS)
        );
    }
}
