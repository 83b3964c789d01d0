//! What kind of filesystem a directory is on, one `statfs` each: a network or FUSE
//! one, where every directory operation is a round trip to a server and the walk
//! wants as many in flight as the latency asks for (`threads::MAX_WORKERS_ON_NETWORK`);
//! and one whose directory times say when an entry was added, removed or renamed,
//! which the index relies on (`index`).

use std::ffi::CStr;

/// `f_type` of the filesystems whose operations go to another process or machine
/// (linux/magic.h and the filesystems' own sources).
#[cfg(target_os = "linux")]
const REMOTE_MAGIC: &[i64] = &[
    0x6573_5546, // FUSE: sshfs, s3fs, rclone, gcsfuse, GlusterFS, ...
    0x6969,      // NFS
    0xFF53_4D42, // CIFS
    0xFE53_4D42, // SMB2
    0x517B,      // SMB
    0x0102_1997, // 9p (v9fs)
    0x00C3_6400, // Ceph
    0x0BD0_0BD0, // Lustre
    0x5346_414F, // AFS
    0x6B41_4653, // kAFS
];

/// True when `path` is on a network or FUSE filesystem; false where that cannot be
/// told (an error, another system, the `portable` build that walks as they do).
#[cfg(target_os = "linux")]
pub fn is_remote(path: &CStr) -> bool {
    if cfg!(feature = "portable") {
        return false;
    }
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `path` is NUL-terminated and `buf` is a writable statfs.
    if unsafe { libc::statfs(path.as_ptr(), buf.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: statfs returned 0, so the struct is initialised.
    let stat = unsafe { buf.assume_init() };
    // `f_type` is i64 on x86_64 and narrower elsewhere (32-bit, s390x).
    #[allow(clippy::unnecessary_cast)]
    let kind = stat.f_type as i64;
    REMOTE_MAGIC.contains(&kind)
}

/// `f_type` of the local filesystems whose directory mtime and ctime change with
/// every entry added, removed or renamed, to the nanosecond or the second: the
/// index checks a directory's listing against them. Any other (FAT's 2-second
/// times, exFAT, NFS and FUSE whose times are the server's, procfs and sysfs whose
/// directories change without them) is listed again every time.
#[cfg(target_os = "linux")]
const STAMPED_MAGIC: &[i64] = &[
    0xEF53,      // ext2, ext3, ext4
    0x5846_5342, // XFS
    0x9123_683E, // Btrfs
    0x0102_1994, // tmpfs
    0x8584_58F6, // ramfs
    0xF2F5_2010, // F2FS
    0x2FC1_2FC1, // ZFS
    0xCA45_1A4E, // bcachefs
];

/// True when the directory open as `fd` is on a filesystem of [`STAMPED_MAGIC`].
#[cfg(target_os = "linux")]
pub fn stamps_trusted(fd: std::os::fd::RawFd) -> bool {
    if cfg!(feature = "portable") {
        return false;
    }
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `buf` is a writable statfs; a bad descriptor is an error return.
    if unsafe { libc::fstatfs(fd, buf.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: fstatfs returned 0, so the struct is initialised.
    let stat = unsafe { buf.assume_init() };
    #[allow(clippy::unnecessary_cast)]
    let kind = stat.f_type as i64;
    STAMPED_MAGIC.contains(&kind)
}

/// Elsewhere no filesystem is known to keep its directory times.
#[cfg(not(target_os = "linux"))]
pub fn stamps_trusted(_fd: std::os::fd::RawFd) -> bool {
    false
}

#[cfg(not(target_os = "linux"))]
pub fn is_remote(_path: &CStr) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_directory_is_not_remote() {
        // The test's temporary directory is on a local disk or tmpfs.
        let dir = std::env::temp_dir();
        let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
        assert!(!is_remote(&path));
        assert!(!is_remote(c"/nonexistent/pfind"));
    }

    #[test]
    fn proc_is_never_trusted_and_a_bad_descriptor_neither() {
        let proc_dir = std::fs::File::open("/proc").unwrap();
        use std::os::fd::AsRawFd;
        assert!(!stamps_trusted(proc_dir.as_raw_fd()));
        assert!(!stamps_trusted(-1));
    }
}
