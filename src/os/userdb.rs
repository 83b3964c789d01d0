//! The C library's user and group database, as pfind uses it: ids by name for
//! `--owner`, names by id for `{owner}` and `{group}`, and the one precaution every
//! lookup needs first.
//!
//! A statically linked glibc binary (the release build) cannot load the name-service
//! modules that `nsswitch.conf` may list besides `files` (`systemd`, `sss`, `ldap`):
//! glibc tries to, bringing in a second copy of itself, and the process crashes (seen
//! here: a segfault for any name or id not in `/etc/passwd`, with `passwd: files
//! systemd`). Such a binary therefore tells glibc to use `files` alone, through
//! [`use_local_files_when_static`]; a dynamically linked one asks every service.

use std::ffi::{c_char, CStr, CString};
use std::io;

/// The uid of the user `name`, through `getpwnam_r`.
pub fn user_id(name: &str) -> io::Result<Option<u32>> {
    let name = c_name(name)?;
    lookup(name.as_ptr(), libc::getpwnam_r, |entry| Some(entry.pw_uid))
}

/// The gid of the group `name`, through `getgrnam_r`.
pub fn group_id(name: &str) -> io::Result<Option<u32>> {
    let name = c_name(name)?;
    lookup(name.as_ptr(), libc::getgrnam_r, |entry| Some(entry.gr_gid))
}

/// The name of user `uid`, through `getpwuid_r`; `None` if it has none.
pub fn user_name(uid: u32) -> io::Result<Option<Box<[u8]>>> {
    // SAFETY: `lookup` calls this only on the entry just found, while the buffer its
    // strings point into is alive.
    lookup(uid, libc::getpwuid_r, |entry| unsafe {
        owned(entry.pw_name)
    })
}

/// The name of group `gid`, through `getgrgid_r`; `None` if it has none.
pub fn group_name(gid: u32) -> io::Result<Option<Box<[u8]>>> {
    // SAFETY: as in `user_name`.
    lookup(gid, libc::getgrgid_r, |entry| unsafe {
        owned(entry.gr_name)
    })
}

/// In a static binary, limits glibc's lookups of users and groups to the local files
/// (see the module comment). Call it before any lookup, by name or by id; the work
/// is done once.
fn use_local_files_when_static() {
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

fn c_name(name: &str) -> io::Result<CString> {
    CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// A copy of the C string `name`, or `None` for a null pointer.
///
/// # Safety
/// `name` is null or points to a NUL-terminated string that is alive for the call.
unsafe fn owned(name: *const c_char) -> Option<Box<[u8]>> {
    // SAFETY: as the caller promises.
    (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_bytes().into())
}

/// The signature the four `get{pw,gr}{nam,uid,gid}_r` calls share: key `K` (a name or
/// an id), entry type `E` (`passwd` or `group`).
type Reentrant<K, E> =
    unsafe extern "C" fn(K, *mut E, *mut c_char, libc::size_t, *mut *mut E) -> libc::c_int;

/// Runs one of those calls for `key`, growing its buffer while it says `ERANGE`, and
/// returns what `read` takes from the entry found. The entry's strings point into
/// the buffer, so `read` must copy what it keeps.
fn lookup<K: Copy, E, T>(
    key: K,
    call: Reentrant<K, E>,
    read: impl Fn(&E) -> Option<T>,
) -> io::Result<Option<T>> {
    use_local_files_when_static();
    let mut buffer = vec![0u8; 1024];
    loop {
        // SAFETY: `passwd` and `group` are plain C structs of integers and pointers,
        // for which all zeroes is a valid value; the call fills them in.
        let mut entry: E = unsafe { std::mem::zeroed() };
        let mut found: *mut E = std::ptr::null_mut();
        // SAFETY: `key` is an id or a NUL-terminated name the caller keeps alive,
        // `entry` and `found` are live, and the pointer and length describe `buffer`,
        // which outlives the call and the `read` below.
        let rc = unsafe {
            call(
                key,
                &mut entry,
                buffer.as_mut_ptr().cast::<c_char>(),
                buffer.len(),
                &mut found,
            )
        };
        match rc {
            0 if found.is_null() => return Ok(None),
            0 => return Ok(read(&entry)),
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
        assert_eq!(user_name(0).unwrap().as_deref(), Some(&b"root"[..]));
        assert_eq!(group_name(0).unwrap().as_deref(), Some(&b"root"[..]));
    }
}
