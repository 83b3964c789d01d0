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
/// index checks a directory's listing against them. A network or FUSE one
/// ([`REMOTE_MAGIC`]) has the server's times, which the index tests before it
/// relies on them (`index::remote`); any other (FAT's 2-second times, exFAT,
/// procfs and sysfs whose directories change without them) is listed again
/// every time.
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

/// What a filesystem's directory times say of its directories' entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectoryTimes {
    /// A local filesystem of [`STAMPED_MAGIC`]: they change with every entry.
    Kept,
    /// A network or FUSE filesystem: the server's, which may or may not.
    ServerKept,
    /// Anything else, or unknown.
    NotKept,
}

/// What the directory open as `fd` is on, by its `f_type`.
#[cfg(target_os = "linux")]
pub fn directory_times(fd: std::os::fd::RawFd) -> DirectoryTimes {
    if cfg!(feature = "portable") {
        return DirectoryTimes::NotKept;
    }
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `buf` is a writable statfs; a bad descriptor is an error return.
    if unsafe { libc::fstatfs(fd, buf.as_mut_ptr()) } != 0 {
        return DirectoryTimes::NotKept;
    }
    // SAFETY: fstatfs returned 0, so the struct is initialised.
    let stat = unsafe { buf.assume_init() };
    #[allow(clippy::unnecessary_cast)]
    let kind = stat.f_type as i64;
    if STAMPED_MAGIC.contains(&kind) {
        DirectoryTimes::Kept
    } else if REMOTE_MAGIC.contains(&kind) {
        DirectoryTimes::ServerKept
    } else {
        DirectoryTimes::NotKept
    }
}

/// Elsewhere no filesystem is known to keep its directory times.
#[cfg(not(target_os = "linux"))]
pub fn directory_times(_fd: std::os::fd::RawFd) -> DirectoryTimes {
    DirectoryTimes::NotKept
}

/// The mount the directory open as `fd` is on, as this boot of the machine knows
/// it: the boot's id and the mount's unique id (`STATX_MNT_ID_UNIQUE`, Linux
/// 6.8), which no later mount takes while the machine runs, where a device
/// number or a plain mount id is given to the next mount. `None` before Linux
/// 6.8, or where either cannot be read.
#[cfg(target_os = "linux")]
pub fn mount_instance(fd: std::os::fd::RawFd) -> Option<String> {
    const STATX_MNT_ID_UNIQUE: u32 = 0x4000;
    if cfg!(feature = "portable") {
        return None;
    }
    let mut buf = std::mem::MaybeUninit::<libc::statx>::zeroed();
    // SAFETY: the path is an empty C string with AT_EMPTY_PATH (the descriptor
    // itself); `buf` is a writable statx; a bad descriptor is an error return.
    let done = unsafe {
        libc::statx(
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            STATX_MNT_ID_UNIQUE,
            buf.as_mut_ptr(),
        )
    };
    if done != 0 {
        return None;
    }
    // SAFETY: zeroed, then filled by a successful statx.
    let stat = unsafe { buf.assume_init() };
    if stat.stx_mask & STATX_MNT_ID_UNIQUE == 0 {
        return None;
    }
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(format!("{} {:x}", boot.trim(), stat.stx_mnt_id))
}

#[cfg(not(target_os = "linux"))]
pub fn mount_instance(_fd: std::os::fd::RawFd) -> Option<String> {
    None
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
    fn a_mount_is_named_by_this_boot_and_its_own_id() {
        use std::os::fd::AsRawFd;
        let root = std::fs::File::open("/").unwrap();
        let proc_dir = std::fs::File::open("/proc").unwrap();
        let (root_id, proc_id) = (
            mount_instance(root.as_raw_fd()),
            mount_instance(proc_dir.as_raw_fd()),
        );
        // Before Linux 6.8 neither is known; where one is, the other is, and differs.
        assert_eq!(root_id.is_some(), proc_id.is_some());
        if let (Some(root_id), Some(proc_id)) = (root_id, proc_id) {
            assert_ne!(root_id, proc_id);
            assert_eq!(root_id.split(' ').next(), proc_id.split(' ').next());
        }
        assert_eq!(mount_instance(-1), None);
    }

    #[test]
    fn proc_keeps_no_directory_times_and_a_bad_descriptor_neither() {
        let proc_dir = std::fs::File::open("/proc").unwrap();
        use std::os::fd::AsRawFd;
        assert_eq!(
            directory_times(proc_dir.as_raw_fd()),
            DirectoryTimes::NotKept
        );
        assert_eq!(directory_times(-1), DirectoryTimes::NotKept);
    }
}
