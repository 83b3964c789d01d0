//! Which listing of a directory a descriptor reads: whether a piece of a giant
//! directory (a cookie range, `cookies`) cut by one process can be listed by
//! another. A cookie means something only to the filesystem that made it: a
//! cluster rank whose path for the directory is another filesystem (`pfind-mpi
//! --rank-root` on a bindfs, overlay or copy of the sender's tree) would seek its
//! own listing to the sender's positions and lose or double entries (issue 47).
//! So a piece carries the [`ListingId`] of the directory as its sender saw it, and
//! the receiver lists it only if its own descriptor has one that
//! [`ListingId::same_cookies`] accepts.

use std::io;
use std::os::fd::RawFd;

/// A directory's identity as seen through one descriptor, from `fstat` and
/// `fstatvfs`, and the machine that saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ListingId {
    /// A hash of the machine's name: device numbers mean nothing on another one.
    pub host: u64,
    pub device: u64,
    pub inode: u64,
    /// `statfs`'s `f_type` (0 where there is none).
    pub fs_type: u64,
    /// The filesystem's id (`f_fsid`): for network and cluster filesystems
    /// (NFS, Lustre, CephFS) the same on every client; 0 where the filesystem
    /// gives none (FUSE).
    pub fs_id: u64,
}

impl ListingId {
    /// The identity of the directory open at `fd`.
    pub fn of(fd: RawFd) -> io::Result<ListingId> {
        let (device, inode) = super::stat::fstat(fd, super::stat::Fields::ID)?.id();
        let mut vfs = std::mem::MaybeUninit::<libc::statvfs>::uninit();
        // SAFETY: `vfs` is a writable statvfs, which the call fills on success and
        // does not keep.
        if unsafe { libc::fstatvfs(fd, vfs.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fstatvfs returned 0, so the struct is initialised.
        let vfs = unsafe { vfs.assume_init() };
        // Widths differ between systems (the casts are to the widest).
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        Ok(ListingId {
            host: *HOST,
            device,
            inode,
            fs_type: fs_type(fd),
            fs_id: vfs.f_fsid as u64,
        })
    }

    /// True if a listing read through `self` and one read through `other` give
    /// the same entries at the same cookies: the same directory of the same kind
    /// of filesystem, and either the same mount's device on the same machine or,
    /// across machines, the same filesystem id (one a filesystem gives, not 0).
    pub fn same_cookies(&self, other: &ListingId) -> bool {
        let same_dir = self.inode == other.inode && self.fs_type == other.fs_type;
        let same_fs = match self.host == other.host {
            true => self.device == other.device && self.fs_id == other.fs_id,
            false => self.fs_id != 0 && self.fs_id == other.fs_id,
        };
        same_dir && same_fs
    }
}

/// `f_type` of the filesystem `fd` is on; 0 where `statfs` has none.
#[cfg(target_os = "linux")]
fn fs_type(fd: RawFd) -> u64 {
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `buf` is a writable statfs, which the call fills on success.
    if unsafe { libc::fstatfs(fd, buf.as_mut_ptr()) } != 0 {
        return 0;
    }
    // SAFETY: fstatfs returned 0, so the struct is initialised.
    let stat = unsafe { buf.assume_init() };
    // `f_type` is i64 on x86_64 and narrower elsewhere.
    #[allow(clippy::unnecessary_cast)]
    let kind = stat.f_type as u64;
    kind
}

#[cfg(not(target_os = "linux"))]
fn fs_type(_fd: RawFd) -> u64 {
    0
}

/// This machine's name, hashed once (FNV-1a).
static HOST: std::sync::LazyLock<u64> = std::sync::LazyLock::new(|| {
    (super::host::name().iter()).fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
});

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_directory_has_its_own_cookies_and_no_other_s() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("a")).unwrap();
        std::fs::create_dir(tmp.path().join("b")).unwrap();
        let id = |name: &str| {
            let dir = std::fs::File::open(tmp.path().join(name)).unwrap();
            ListingId::of(dir.as_raw_fd()).unwrap()
        };
        let a = id("a");
        assert!(a.same_cookies(&id("a")));
        assert!(!a.same_cookies(&id("b")));
        // On another machine: the filesystem's id decides, and none is no match.
        let elsewhere = ListingId { host: !a.host, ..a };
        assert_eq!(a.same_cookies(&elsewhere), a.fs_id != 0);
        let no_id = ListingId { fs_id: 0, ..a };
        assert!(!no_id.same_cookies(&ListingId {
            host: !a.host,
            ..no_id
        }));
        // Another mount on this machine (a FUSE view of the same inode numbers).
        assert!(!a.same_cookies(&ListingId {
            device: a.device + 1,
            ..a
        }));
        assert!(!a.same_cookies(&ListingId {
            fs_type: a.fs_type ^ 1,
            ..a
        }));
    }
}
