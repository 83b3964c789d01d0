//! Whether a directory is on a network or FUSE filesystem, where every directory
//! operation is a round trip to a server and the walk wants as many in flight as
//! the latency asks for (`threads::MAX_WORKERS_ON_NETWORK`). One `statfs`.

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
}
