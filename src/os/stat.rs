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

/// Whether a `stat` may be answered from what a network filesystem's client has
/// cached (`--cached`, GNU `stat --cached`'s words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheUse {
    /// The filesystem decides (the kernel's default).
    #[default]
    Default,
    /// Cached attributes will do: no round trip to refresh them
    /// (`AT_STATX_DONT_SYNC`).
    Always,
    /// Always ask the server (`AT_STATX_FORCE_SYNC`).
    Never,
}

impl CacheUse {
    /// The bit of [`Fields`] that says it.
    pub fn fields(self) -> Fields {
        match self {
            CacheUse::Default => Fields::default(),
            CacheUse::Always => Fields::CACHED,
            CacheUse::Never => Fields::FRESH,
        }
    }
}

/// The fields of a `stat` a run reads, and how fresh they must be: a set of bits.
/// Each field's bits are Linux's `statx` mask bits for it (`STATX_SIZE` is 0x200,
/// and so on: a unit test holds them to libc's), so that a call's mask is one `and`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields(u32);

impl Fields {
    /// The kind of entry (the type bits of `st_mode`).
    pub const TYPE: Fields = Fields(0x1);
    /// The permission bits of `st_mode` (with the type).
    pub const MODE: Fields = Fields(0x2);
    /// User and group.
    pub const OWNER: Fields = Fields(0x8 | 0x10);
    pub const ATIME: Fields = Fields(0x20);
    pub const MTIME: Fields = Fields(0x40);
    pub const CTIME: Fields = Fields(0x80);
    /// The (device, inode) that identifies a directory.
    pub const ID: Fields = Fields(0x100);
    pub const SIZE: Fields = Fields(0x200);
    pub const BTIME: Fields = Fields(0x800);
    /// Every field's bits (read by Linux's `statx` only).
    #[cfg_attr(any(not(target_os = "linux"), feature = "portable"), allow(dead_code))]
    const MASK: u32 = 0xfff;
    /// Not a field: attributes the client has cached will do. The bit is
    /// `AT_STATX_DONT_SYNC`'s, as FRESH's is `AT_STATX_FORCE_SYNC`'s, so that they
    /// go into `statx`'s flags as they are.
    pub const CACHED: Fields = Fields(0x4000);
    /// Not a field: ask the server even where the client's cache would do.
    pub const FRESH: Fields = Fields(0x2000);
    /// Not a field: an entry without a birth time is an error, for the filters that
    /// test it (the output prints `-` instead).
    pub const BIRTH_REQUIRED: Fields = Fields(1 << 18);
    /// Everything `fstatat` answers, what a caller that keeps the whole answer asks.
    pub const ALL: Fields = Fields(0x1 | 0x2 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200);

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
///
/// One call fills the answer where it is returned: built in layers that each
/// returned it, the 256 bytes of a `statx` were copied (by `memcpy`) several times
/// per entry, and `-S +1k -c` on `/usr` took 86.0M instructions for 66.9M.
#[inline(always)]
pub fn stat_at(dir: RawFd, name: &CStr, follow: bool, fields: Fields) -> io::Result<Stat> {
    let mut slot = StatSlot::new();
    slot.stat_at(dir, name, follow, fields)?;
    // SAFETY: `stat_at` succeeded, so the slot is filled.
    Ok(unsafe { slot.0.assume_init() })
}

/// `fstat` of an open descriptor: the identity (device, inode) of a directory being
/// listed, for `-L` loop detection and `-x`, and what `fields` ask of it.
pub fn fstat(fd: RawFd, fields: Fields) -> io::Result<Stat> {
    let mut slot = StatSlot::new();
    let fields = fields.with(Fields::ID);
    slot.fill(
        |raw| sys::stat_into(fd, c"", sys::EMPTY_PATH, fields, raw),
        fields,
    )?;
    // SAFETY: `fill` succeeded, so the slot is filled.
    Ok(unsafe { slot.0.assume_init() })
}

/// Room for one `stat`, filled in where it is read: the walker's per-entry `stat`
/// goes through one, since returned by value the 256 bytes of a `statx` were copied
/// (by `memcpy`) once or more per entry.
pub struct StatSlot(std::mem::MaybeUninit<Stat>);

impl StatSlot {
    #[inline(always)]
    pub fn new() -> StatSlot {
        StatSlot(std::mem::MaybeUninit::uninit())
    }

    /// [`stat_at`] into this slot; the answer is borrowed from it.
    #[inline(always)]
    pub fn stat_at(
        &mut self,
        dir: RawFd,
        name: &CStr,
        follow: bool,
        fields: Fields,
    ) -> io::Result<&Stat> {
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        self.fill(|raw| sys::stat_into(dir, name, flags, fields, raw), fields)
    }

    /// A `stat` already taken, put here (checked against `fields` as a call's is).
    pub fn put(&mut self, stat: &Stat, fields: Fields) -> io::Result<&Stat> {
        let stat = self.0.write(*stat);
        stat.check(fields)?;
        Ok(stat)
    }

    /// Runs `call`, which fills the raw answer it is given and returns 0 (or an
    /// `errno` value), and checks the answer against `fields`.
    #[inline(always)]
    fn fill(
        &mut self,
        call: impl FnOnce(*mut sys::Raw) -> libc::c_int,
        fields: Fields,
    ) -> io::Result<&Stat> {
        // `Stat` is `repr(transparent)` over the raw answer.
        let error = call(self.0.as_mut_ptr().cast());
        if error != 0 {
            return Err(io::Error::from_raw_os_error(error));
        }
        // SAFETY: the call succeeded, so it filled in the whole struct.
        let stat = unsafe { self.0.assume_init_ref() };
        stat.check(fields)?;
        Ok(stat)
    }
}

/// The calling thread's `errno`, after a call that failed.
#[cold]
fn errno() -> libc::c_int {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

impl Default for StatSlot {
    fn default() -> StatSlot {
        StatSlot::new()
    }
}

/// The error for an entry whose filesystem keeps no birth time, when a run reads it.
#[cold]
#[inline(never)]
fn no_birth_time() -> io::Error {
    io::Error::other("no birth time: this filesystem (or system) does not record one")
}

/// One entry's `stat`, whatever call answered it. Fields a run did not ask for may
/// read as 0.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Stat {
    raw: sys::Raw,
}

// The casts below widen on Linux but not on every Unix (`mode_t` is 16 bits on macOS,
// `dev_t` signed on some systems, `time_t` may be 32 bits).
#[allow(clippy::unnecessary_cast)]
impl Stat {
    /// The error for a birth time that `fields` require and the filesystem does not
    /// record.
    #[inline(always)]
    fn check(&self, fields: Fields) -> io::Result<()> {
        if fields.has(Fields::BIRTH_REQUIRED) && self.birth().is_none() {
            return Err(no_birth_time());
        }
        Ok(())
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

/// Linux: `statx`, called as a system call rather than through the C library's
/// wrapper (glibc has it from 2.28 only, and pfind must start on older systems),
/// with `fstatat` where the kernel has no `statx` (before 4.11) or a sandbox refuses
/// it.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
mod sys {
    use super::{Fields, TimeField};
    use std::ffi::CStr;
    use std::os::fd::RawFd;
    use std::sync::atomic::{AtomicBool, Ordering};

    pub(super) type Raw = libc::statx;

    /// Tests set it to take the `fstatat` path as a kernel without `statx` does
    /// (read in tests only: see `statx`).
    pub(super) static NO_STATX: AtomicBool = AtomicBool::new(false);

    /// `statx`'s mask for `fields`: their bits, and the type, which every caller
    /// reads.
    #[inline(always)]
    pub(super) fn mask(fields: Fields) -> u32 {
        (fields.0 & Fields::MASK) | libc::STATX_TYPE
    }

    /// The flag that makes an empty name the descriptor itself.
    pub(super) const EMPTY_PATH: libc::c_int = libc::AT_EMPTY_PATH;

    /// Fills `out` for the entry and returns 0, or returns the `errno` value.
    /// `flags` are `fstatat`'s; `fields` add the sync flags.
    #[inline(always)]
    pub(super) fn stat_into(
        dir: RawFd,
        name: &CStr,
        flags: libc::c_int,
        fields: Fields,
        out: *mut Raw,
    ) -> libc::c_int {
        // CACHED and FRESH are the flags' own bits.
        let flags = flags | (fields.0 as libc::c_int & libc::AT_STATX_SYNC_TYPE);
        // SAFETY: `name` is NUL-terminated and outlives the call; `out` is a
        // writable `statx`; the kernel keeps no pointer.
        let error = unsafe { statx(dir, name.as_ptr(), flags, mask(fields), out) };
        // A kernel before 4.11, or a sandbox that refuses statx: `fstatat`, each
        // time (a flag remembered and tested before every call cost 2 instructions
        // per entry everywhere else).
        if error == 0 || !matches!(error, libc::ENOSYS | libc::EPERM) {
            return error;
        }
        fallback(dir, name, flags & !libc::AT_STATX_SYNC_TYPE, out)
    }

    /// `statx(2)`: 0, or the `errno` value. On x86-64 the instruction itself: the C
    /// library's `syscall` wrapper, which moves its six arguments into place, cost
    /// 12 instructions per entry where `fstatat`'s cost 7 (callgrind, `-S +1k -c` on
    /// `/usr/share`).
    ///
    /// # Safety
    /// `name` must be NUL-terminated and `out` point to a writable `statx`.
    #[inline(always)]
    unsafe fn statx(
        dir: RawFd,
        name: *const libc::c_char,
        flags: libc::c_int,
        mask: u32,
        out: *mut Raw,
    ) -> libc::c_int {
        if cfg!(test) && NO_STATX.load(Ordering::Relaxed) {
            return libc::ENOSYS;
        }
        #[cfg(target_arch = "x86_64")]
        {
            let result: isize;
            // SAFETY: the `statx` system call with its five arguments in the
            // registers the kernel's x86-64 ABI names; `syscall` clobbers rcx and
            // r11, and the kernel writes `*out` (memory is not declared untouched).
            unsafe {
                std::arch::asm!(
                    "syscall",
                    inlateout("rax") libc::SYS_statx as isize => result,
                    in("rdi") dir as isize,
                    in("rsi") name,
                    in("rdx") flags as isize,
                    in("r10") mask as isize,
                    in("r8") out,
                    lateout("rcx") _,
                    lateout("r11") _,
                    options(nostack),
                );
            }
            -(result as libc::c_int)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // SAFETY: as the caller promises.
            match unsafe { libc::syscall(libc::SYS_statx, dir, name, flags, mask, out) } {
                0 => 0,
                _ => super::errno(),
            }
        }
    }

    /// `fstatat` into `out`, its answer put in `statx`'s form (no birth time).
    #[cold]
    #[inline(never)]
    fn fallback(dir: RawFd, name: &CStr, flags: libc::c_int, out: *mut Raw) -> libc::c_int {
        let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `name` is NUL-terminated and outlives the call; `stat` is writable.
        if unsafe { libc::fstatat(dir, name.as_ptr(), stat.as_mut_ptr(), flags) } != 0 {
            return super::errno();
        }
        // SAFETY: `fstatat` succeeded and filled `stat`; `out` is writable.
        unsafe { out.write(from_stat(&stat.assume_init())) };
        0
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
}

/// The other systems: `fstatat`, every field; the birth time where `struct stat` has
/// one (macOS, the BSDs but OpenBSD).
#[cfg(any(not(target_os = "linux"), feature = "portable"))]
#[allow(clippy::unnecessary_cast)]
mod sys {
    use super::{Fields, TimeField};
    use std::ffi::CStr;
    use std::os::fd::RawFd;

    pub(super) type Raw = libc::stat;

    /// Not a flag here: [`super::fstat`]'s empty name is told by [`stat_into`].
    pub(super) const EMPTY_PATH: libc::c_int = 0;

    /// Fills `out` for the entry and returns 0, or returns the `errno` value.
    #[inline(always)]
    pub(super) fn stat_into(
        dir: RawFd,
        name: &CStr,
        flags: libc::c_int,
        _fields: Fields,
        out: *mut Raw,
    ) -> libc::c_int {
        let done = if name.is_empty() {
            // SAFETY: `out` is a writable `stat`; `fstat` does not keep the pointer.
            unsafe { libc::fstat(dir, out) }
        } else {
            // SAFETY: `name` is NUL-terminated and outlives the call; `out` is a
            // writable `stat`.
            unsafe { libc::fstatat(dir, name.as_ptr(), out, flags) }
        };
        match done {
            0 => 0,
            _ => super::errno(),
        }
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
        sys::NO_STATX.store(true, std::sync::atomic::Ordering::Relaxed);
        let fallback = lstat_at(fd.as_raw_fd(), c"f", Fields::ALL);
        let no_birth = lstat_at(fd.as_raw_fd(), c"f", Fields::BIRTH_REQUIRED);
        sys::NO_STATX.store(false, std::sync::atomic::Ordering::Relaxed);
        let fallback = fallback.unwrap();
        assert_eq!(fallback.mode(), statx.mode());
        assert_eq!(fallback.size(), statx.size());
        assert_eq!(fallback.id(), statx.id());
        for field in [TimeField::Modified, TimeField::Accessed, TimeField::Changed] {
            assert_eq!(fallback.time(field), statx.time(field));
        }
        assert!(no_birth.unwrap_err().to_string().contains("no birth time"));
    }

    /// The mask asks for the fields named, and always the type; each field's bits
    /// are statx's.
    #[cfg(all(target_os = "linux", not(feature = "portable")))]
    #[test]
    fn the_mask_names_only_what_is_asked() {
        let pairs = [
            (Fields::TYPE, libc::STATX_TYPE),
            (Fields::MODE, libc::STATX_MODE),
            (Fields::OWNER, libc::STATX_UID | libc::STATX_GID),
            (Fields::SIZE, libc::STATX_SIZE),
            (Fields::MTIME, libc::STATX_MTIME),
            (Fields::ATIME, libc::STATX_ATIME),
            (Fields::CTIME, libc::STATX_CTIME),
            (Fields::BTIME, libc::STATX_BTIME),
            (Fields::ID, libc::STATX_INO),
        ];
        for (field, bits) in pairs {
            assert_eq!(field.0, bits);
            assert_eq!(field.0 & Fields::MASK, field.0);
        }
        for flag in [Fields::CACHED, Fields::FRESH, Fields::BIRTH_REQUIRED] {
            assert_eq!(flag.0 & Fields::MASK, 0);
        }
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
