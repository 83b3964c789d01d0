//! Reading a small file whole, by its name in an open directory: what the ignore
//! rules need (`.gitignore`, `.ignore`), without resolving the directory's path again.

use std::ffi::CStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{FromRawFd, RawFd};

/// The contents of `name` in the open directory `dir`. A symbolic link is not
/// followed (ELOOP), as git does not follow an in-tree `.gitignore` that is one.
pub fn read_file_at(dir: RawFd, name: &CStr) -> io::Result<Vec<u8>> {
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW | libc::O_NOCTTY;
    // SAFETY: `name` is NUL-terminated and outlives the call; openat keeps no pointer.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else; File closes it.
    let mut file = unsafe { File::from_raw_fd(fd) };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn reads_by_name_and_refuses_links_and_directories() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("rules"), b"*.o\n").unwrap();
        std::os::unix::fs::symlink("rules", tmp.path().join("link")).unwrap();
        std::fs::create_dir(tmp.path().join("dir")).unwrap();
        let dir = File::open(tmp.path()).unwrap();
        let fd = dir.as_raw_fd();
        assert_eq!(read_file_at(fd, c"rules").unwrap(), b"*.o\n");
        let link = read_file_at(fd, c"link").unwrap_err();
        assert_eq!(link.raw_os_error(), Some(libc::ELOOP));
        let directory = read_file_at(fd, c"dir").unwrap_err();
        assert_eq!(directory.raw_os_error(), Some(libc::EISDIR));
        let missing = read_file_at(fd, c"missing").unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }
}
