//! `stat` calls: [`lstat_at`], the `fstatat(AT_SYMLINK_NOFOLLOW)` used for
//! `DT_UNKNOWN` entries and for size filters, on the NUL-terminated name the kernel
//! already gave us; [`stat_at`] follows links (`-L`) and [`fstat`] identifies an open
//! directory.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

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
}
