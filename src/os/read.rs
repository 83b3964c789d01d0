//! Reading a small file whole: the ignore rules' files (`.gitignore`, `.ignore`,
//! `info/exclude`, `core.excludesFile`, `--ignore-file`), git's configuration and
//! index, by name in an open directory or by path. Read, not mapped: a mapped
//! file cut short under its reader is a `SIGBUS` (issue 47); only git's index,
//! megabytes, is mapped, under a lease that rules that out ([`read_large_path`]).
//!
//! Such a file is data someone else wrote, so it is read as git reads it and no
//! further (issue 38): only a regular file is opened (a FIFO would block `open` for
//! ever, a device may never end or act on being opened: `/dev/zero` ran pfind out of
//! memory), it is looked at before it is opened and again once open (it may be
//! replaced in between), and no more than its limit is read, whatever its size says
//! (a file may grow while it is read).

use std::ffi::CStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};

/// What a file may be, and how large.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    /// What the file is for, in messages: "a rule file".
    pub what: &'static str,
    /// The most bytes read; a larger file is refused.
    pub limit: u64,
    /// Follow a symbolic link (`info/exclude`, `core.excludesFile`, as git does), or
    /// refuse it with `ELOOP` (a `.gitignore` in the tree, which git never follows).
    pub follow: bool,
    /// Also read a FIFO, to its end (`--ignore-file <(...)`, named by the user).
    pub pipe: bool,
}

/// The contents of `path`, relative to the open directory `dir` (`None`: the
/// working directory), if it is a file `expect` allows.
pub fn read_small_file(dir: Option<RawFd>, path: &CStr, expect: Expect) -> io::Result<Vec<u8>> {
    let (file, len) = open_checked(dir, path, expect)?;
    // Sized from `fstat` (one byte more, to see the end), not grown by doubling,
    // whose copies of a 4 MiB git index were 0.1M instructions of a 46M `--ignore`
    // walk (callgrind, issue 39). A file that grew meanwhile still grows it.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0) + 1);
    file.take(expect.limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > expect.limit {
        return Err(too_large(expect));
    }
    Ok(bytes)
}

/// Opens `path` (as [`read_small_file`] names it) if it is a file `expect` allows,
/// with its size, within the limit.
fn open_checked(dir: Option<RawFd>, path: &CStr, expect: Expect) -> io::Result<(File, u64)> {
    let dir = dir.unwrap_or(libc::AT_FDCWD);
    // Looked at first, so that nothing but a file that may be read is ever opened.
    let no_follow = if expect.follow {
        0
    } else {
        libc::AT_SYMLINK_NOFOLLOW
    };
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `path` is NUL-terminated and `stat` is written by the call before it
    // is read (only on success).
    if unsafe { libc::fstatat(dir, path.as_ptr(), stat.as_mut_ptr(), no_follow) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fstatat succeeded, so it filled `stat`.
    check_kind(unsafe { stat.assume_init() }.st_mode, expect)?;
    // O_NONBLOCK: should it have become a FIFO since, `open` returns at once.
    let mut flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK;
    if !expect.follow {
        flags |= libc::O_NOFOLLOW;
    }
    // SAFETY: `path` is NUL-terminated and outlives the call; openat keeps no pointer.
    let fd = unsafe { libc::openat(dir, path.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else; File closes it.
    let file = unsafe { File::from_raw_fd(fd) };
    let meta = file.metadata()?;
    use std::os::unix::fs::MetadataExt;
    // `st_mode` is a u32 in `Metadata` and a narrower `mode_t` on macOS and FreeBSD.
    #[allow(clippy::unnecessary_cast)]
    check_kind(meta.mode() as libc::mode_t, expect)?;
    if std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()) {
        // A pipe the user named is read to its end: it waits for its writer.
        set_blocking(file.as_raw_fd())?;
    }
    if meta.len() > expect.limit {
        return Err(too_large(expect));
    }
    Ok((file, meta.len()))
}

/// [`read_small_file`] for a file that may be megabytes (git's index): past
/// [`super::whole_file::WholeFile`]'s threshold, mapped under a read lease where
/// one can be had (no SIGBUS: a process that would cut it short waits, and pfind
/// copies it first; see `leased_map`), else read into memory of its own.
pub fn read_large_path(
    path: &std::path::Path,
    expect: Expect,
) -> io::Result<super::whole_file::WholeFile> {
    let (file, len) = open_checked(None, &c_path(path)?, expect)?;
    let len = usize::try_from(len).map_err(|_| too_large(expect))?;
    let bytes = super::whole_file::WholeFile::read(&file, len)?;
    if bytes.len() as u64 > expect.limit {
        return Err(too_large(expect));
    }
    Ok(bytes)
}

/// [`read_small_file`] by a path, relative to the working directory or absolute.
pub fn read_small_path(path: &std::path::Path, expect: Expect) -> io::Result<Vec<u8>> {
    read_small_file(None, &c_path(path)?, expect)
}

/// `path` as the C string the `*at` calls take; one with a NUL inside names no
/// file.
fn c_path(path: &std::path::Path) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))
}

/// Refuses what `expect` does not allow: a directory with `EISDIR` (the message
/// git and `cat` give), a link not followed with `ELOOP` (git's, for an in-tree
/// `.gitignore` that is one), anything else but a regular file by its kind.
fn check_kind(mode: libc::mode_t, expect: Expect) -> io::Result<()> {
    let kind = match mode & libc::S_IFMT {
        libc::S_IFREG => return Ok(()),
        libc::S_IFIFO if expect.pipe => return Ok(()),
        libc::S_IFDIR => return Err(io::Error::from_raw_os_error(libc::EISDIR)),
        libc::S_IFLNK => return Err(io::Error::from_raw_os_error(libc::ELOOP)),
        libc::S_IFIFO => "a FIFO",
        libc::S_IFCHR => "a character device",
        libc::S_IFBLK => "a block device",
        libc::S_IFSOCK => "a socket",
        _ => "of an unknown kind",
    };
    Err(io::Error::other(format!("not a regular file ({kind})")))
}

fn too_large(expect: Expect) -> io::Error {
    let limit = match expect.limit {
        limit if limit >= 1 << 20 && limit % (1 << 20) == 0 => format!("{} MiB", limit >> 20),
        limit => format!("{limit} bytes"),
    };
    io::Error::other(format!(
        "too large to be {} (more than {limit})",
        expect.what
    ))
}

/// Clears `O_NONBLOCK`, so that reads wait for a pipe's writer.
fn set_blocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: F_GETFL and F_SETFL only read and set the open file's status flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: Expect = Expect {
        what: "a rule file",
        limit: 16,
        follow: false,
        pipe: false,
    };

    fn message(err: io::Error) -> String {
        crate::report::describe(&err)
    }

    #[test]
    fn reads_regular_files_only_and_no_more_than_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |name: &str| tmp.path().join(name);
        std::fs::write(at("rules"), b"*.o\n").unwrap();
        std::fs::write(at("large"), [b'x'; 17]).unwrap();
        std::fs::write(at("exact"), [b'x'; 16]).unwrap();
        std::os::unix::fs::symlink("rules", at("link")).unwrap();
        std::fs::create_dir(at("dir")).unwrap();
        let fifo = std::ffi::CString::new(at("fifo").into_os_string().into_encoded_bytes());
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.unwrap().as_ptr(), 0o644) }, 0);
        let dir = File::open(tmp.path()).unwrap();
        let fd = Some(dir.as_raw_fd());
        assert_eq!(read_small_file(fd, c"rules", RULES).unwrap(), b"*.o\n");
        assert_eq!(read_small_file(fd, c"exact", RULES).unwrap().len(), 16);
        let large = read_small_file(fd, c"large", RULES).unwrap_err();
        assert_eq!(
            message(large),
            "too large to be a rule file (more than 16 bytes)"
        );
        let link = read_small_file(fd, c"link", RULES).unwrap_err();
        assert_eq!(link.raw_os_error(), Some(libc::ELOOP));
        let followed = Expect {
            follow: true,
            ..RULES
        };
        assert_eq!(read_small_file(fd, c"link", followed).unwrap(), b"*.o\n");
        let directory = read_small_file(fd, c"dir", RULES).unwrap_err();
        assert_eq!(directory.raw_os_error(), Some(libc::EISDIR));
        let missing = read_small_file(fd, c"missing", RULES).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        // Neither opened (which would block) nor read.
        let fifo = read_small_file(fd, c"fifo", RULES).unwrap_err();
        assert_eq!(message(fifo), "not a regular file (a FIFO)");
        let device = read_small_path("/dev/zero".as_ref(), followed).unwrap_err();
        assert_eq!(message(device), "not a regular file (a character device)");
        // A FIFO where one is allowed, with no writer: nothing in it.
        let piped = Expect {
            pipe: true,
            ..RULES
        };
        assert_eq!(read_small_file(fd, c"fifo", piped).unwrap(), b"");
    }
}
