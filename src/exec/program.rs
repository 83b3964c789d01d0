//! The program of a command, looked up in `PATH` once for the whole run rather than
//! by every command.
//!
//! A program named without a `/` is searched for in each directory of `PATH`, in
//! order, by the new process: with `PATH` as it usually is, `true` costs eight
//! failed `execve` calls before `/usr/bin/true` runs, and the walk's thread waits
//! for all of them. Found once here, the same file runs every time, under the name
//! typed (`argv[0]`); nothing changes for the command. Not found here, the name is
//! passed on as it is, and the failure to start says why.

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;

/// The search path when `PATH` is not set, as the C library's `execvp` has it.
const DEFAULT_PATH: &[u8] = b"/bin:/usr/bin";

/// Where `program` is, found in `search` (the value of `PATH`) as `execvp` finds
/// it: the first directory that holds an executable regular file of that name (an
/// empty entry is the current directory). `None` for a name with a `/` (it is used
/// as it is) or one found nowhere.
pub fn find_in_path(program: &[u8], search: Option<&[u8]>) -> Option<Vec<u8>> {
    if program.is_empty() || program.contains(&b'/') {
        return None;
    }
    search
        .unwrap_or(DEFAULT_PATH)
        .split(|&b| b == b':')
        .map(|dir| match dir {
            b"" => [b"./", program].concat(),
            dir => [dir, b"/", program].concat(),
        })
        .find(|candidate| is_executable_file(candidate))
}

/// True when `path` is a regular file this process may execute.
fn is_executable_file(path: &[u8]) -> bool {
    let is_file = std::fs::metadata(OsStr::from_bytes(path)).is_ok_and(|m| m.is_file());
    let Ok(c_path) = CString::new(path) else {
        return false;
    };
    // SAFETY: `c_path` is a valid NUL-terminated string; faccessat only reads it.
    let executable = unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            libc::X_OK,
            libc::AT_EACCESS,
        )
    };
    is_file && executable == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_first_executable_file_on_the_path_is_taken() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = |name: &str| {
            let path = tmp.path().join(name);
            std::fs::create_dir(&path).unwrap();
            path
        };
        let (plain, exec, later, nested) = (dir("plain"), dir("exec"), dir("later"), dir("nested"));
        std::fs::write(plain.join("tool"), b"").unwrap(); // not executable
        std::fs::create_dir(nested.join("tool")).unwrap(); // a directory
        for dir in [&exec, &later] {
            let tool = dir.join("tool");
            std::fs::write(&tool, b"#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let search = [&plain, &nested, &exec, &later]
            .map(|d| d.as_os_str().as_bytes().to_vec())
            .join(&b':');
        let found = find_in_path(b"tool", Some(&search)).unwrap();
        assert_eq!(found, exec.join("tool").as_os_str().as_bytes());
        assert_eq!(find_in_path(b"missing", Some(&search)), None);
        // A name with a slash is used as it is.
        assert_eq!(find_in_path(b"./tool", Some(&search)), None);
        assert!(
            find_in_path(b"sh", None).is_some(),
            "sh is in /bin or /usr/bin"
        );
    }
}
