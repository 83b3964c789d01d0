//! Opening directories relative to an open one, without leaving the tree.
//!
//! * [`open_dir_at`]: open a directory relative to an already open parent, so the
//!   kernel resolves one component instead of the whole path, and paths longer than
//!   `PATH_MAX` still work (they are opened a `PATH_MAX`-sized piece at a time).
//! * [`open_dir_beneath`]: the same, but no component of the path may be a symbolic
//!   link: `openat2` with `RESOLVE_NO_SYMLINKS` where the kernel has it (Linux 5.6),
//!   otherwise one `openat(O_NOFOLLOW)` per component. This is what keeps a walk
//!   without `-L` inside its tree when a directory is swapped for a link mid-walk.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

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
    // The `portable` build (Cargo.toml) takes the other systems' way.
    #[cfg(target_os = "linux")]
    if !cfg!(feature = "portable") && openat2::usable() {
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
        // A test seam that stays: a test thread's own answer, so that tests of the
        // fallback run beside tests of `openat2` (the answer is the process's, and
        // asked per open: a probe's load here would cost every directory).
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::os::stat::{lstat_at, Fields};
    use std::cell::Cell;
    use std::os::unix::ffi::OsStrExt;

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
        let b = lstat_at(current.as_raw_fd(), c".", Fields::ID).unwrap();
        let deep = open_dir_at(Some(base.as_raw_fd()), &relative, true).unwrap();
        let a = lstat_at(deep.as_raw_fd(), c".", Fields::ID).unwrap();
        assert_eq!(a.id(), b.id());
        for fallback in [false, true] {
            disable_openat2(fallback);
            let deep = open_dir_beneath(Base::Borrowed(base.as_raw_fd()), &relative).unwrap();
            let a = lstat_at(deep.as_raw_fd(), c".", Fields::ID).unwrap();
            assert_eq!(a.id(), b.id());
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
