//! The C library's user and group database, as pfind uses it: ids by name for
//! `--owner`, and the one precaution every lookup needs first.
//!
//! A statically linked glibc binary (the release build) cannot load the name-service
//! modules that `nsswitch.conf` may list besides `files` (`systemd`, `sss`, `ldap`):
//! glibc tries to, bringing in a second copy of itself, and the process crashes (seen
//! here: a segfault for any name or id not in `/etc/passwd`, with `passwd: files
//! systemd`). Such a binary therefore tells glibc to use `files` alone, through
//! [`use_local_files_when_static`]; a dynamically linked one asks every service.

use std::ffi::{c_char, CString};
use std::io;

/// The uid of the user `name`, through `getpwnam_r`.
pub fn user_id(name: &str) -> io::Result<Option<u32>> {
    lookup(name, |name, buffer, found| {
        // SAFETY: `passwd` is plain data (integers and pointers) that the call fills.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result = std::ptr::null_mut();
        // SAFETY: `name` is NUL-terminated, `entry` and `result` are live, and the
        // buffer pointer and length describe `buffer`, which outlives the call; the
        // strings `entry` points to live in `buffer` and are not read after it.
        let rc = unsafe {
            libc::getpwnam_r(
                name.as_ptr(),
                &mut entry,
                buffer.as_mut_ptr().cast::<c_char>(),
                buffer.len(),
                &mut result,
            )
        };
        *found = (!result.is_null()).then_some(entry.pw_uid);
        rc
    })
}

/// The gid of the group `name`, through `getgrnam_r`.
pub fn group_id(name: &str) -> io::Result<Option<u32>> {
    lookup(name, |name, buffer, found| {
        // SAFETY: `group` is plain data (integers and pointers) that the call fills.
        let mut entry: libc::group = unsafe { std::mem::zeroed() };
        let mut result = std::ptr::null_mut();
        // SAFETY: as for `getpwnam_r` in `user_id`.
        let rc = unsafe {
            libc::getgrnam_r(
                name.as_ptr(),
                &mut entry,
                buffer.as_mut_ptr().cast::<c_char>(),
                buffer.len(),
                &mut result,
            )
        };
        *found = (!result.is_null()).then_some(entry.gr_gid);
        rc
    })
}

/// In a static binary, limits glibc's lookups of users and groups to the local files
/// (see the module comment). Call it before any lookup, by name or by id; the work
/// is done once.
pub fn use_local_files_when_static() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            extern "C" {
                // glibc's <nss.h>.
                fn __nss_configure_lookup(
                    database: *const c_char,
                    service: *const c_char,
                ) -> libc::c_int;
            }
            // SAFETY: `getauxval` only reads the auxiliary vector. `AT_BASE` is where
            // the dynamic loader was mapped, 0 when there is none: a static binary.
            let is_static = unsafe { libc::getauxval(libc::AT_BASE) } == 0;
            if is_static {
                for database in [c"passwd", c"group"] {
                    // SAFETY: both are NUL-terminated strings that glibc copies; this
                    // runs before any lookup, on the thread reading the command line.
                    unsafe { __nss_configure_lookup(database.as_ptr(), c"files".as_ptr()) };
                }
            }
        }
    });
}

/// Runs a `get*nam_r` call, growing its buffer while it says `ERANGE`.
fn lookup(
    name: &str,
    mut call: impl FnMut(&CString, &mut [u8], &mut Option<u32>) -> libc::c_int,
) -> io::Result<Option<u32>> {
    let name = CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    use_local_files_when_static();
    let mut buffer = vec![0u8; 1024];
    loop {
        let mut found = None;
        match call(&name, &mut buffer, &mut found) {
            0 => return Ok(found),
            libc::ERANGE if buffer.len() < 1 << 20 => buffer.resize(buffer.len() * 2, 0),
            // "Not found" may also come back as one of these, depending on the
            // name service; it is reported as not found, not as a failure.
            libc::ENOENT | libc::ESRCH | libc::EBADF | libc::EPERM => return Ok(None),
            rc => return Err(io::Error::from_raw_os_error(rc)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_databases_know_root() {
        // Every Unix system has root, uid and gid 0, in its local files.
        assert_eq!(user_id("root").unwrap(), Some(0));
        assert_eq!(group_id("root").unwrap(), Some(0));
        assert_eq!(user_id("no such user, surely").unwrap(), None);
        assert_eq!(group_id("no such group, surely").unwrap(), None);
    }
}
