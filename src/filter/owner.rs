//! `--owner`: who owns an entry, in fd's syntax.
//!
//! `USER`, `USER:GROUP` or `:GROUP` (`USER:` is `USER`); each side a name or a number,
//! and a `!` before either side negates it: `--owner '!root'` is everything root does
//! not own, `--owner 'alice:!staff'` what alice owns outside the staff group. A side
//! that is all digits is an id (as in fd), anything else a name, looked up once when
//! the command line is read (`getpwnam_r`/`getgrnam_r`: `/etc/passwd` and whatever
//! else the system's name service uses). An unknown name is a usage error.
//!
//! A statically linked glibc binary (the release build) cannot load the name-service
//! modules that `nsswitch.conf` may list besides `files` (`systemd`, `sss`, `ldap`):
//! glibc tries to, with a second copy of itself, and the process crashes (seen: a
//! segfault for any name not in `/etc/passwd`). Such a binary therefore tells glibc to
//! use `files` alone; users and groups known only elsewhere are given by number.

use std::ffi::{c_char, CString};
use std::io;

/// Which owners an entry may have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwnerFilter {
    user: Check,
    group: Check,
}

/// One side of an owner filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Check {
    #[default]
    Any,
    Is(u32),
    IsNot(u32),
}

impl Check {
    fn accepts(self, id: u32) -> bool {
        match self {
            Check::Any => true,
            Check::Is(want) => id == want,
            Check::IsNot(unwanted) => id != unwanted,
        }
    }
}

/// Looks a user or group name up: its id, `None` if there is no such name.
type Lookup = fn(&str) -> io::Result<Option<u32>>;

impl OwnerFilter {
    /// True when no owner is asked for, so no `stat` is needed for it.
    pub fn is_empty(&self) -> bool {
        *self == OwnerFilter::default()
    }

    /// True when an entry owned by `uid` and `gid` passes.
    pub fn accepts(&self, uid: u32, gid: u32) -> bool {
        self.user.accepts(uid) && self.group.accepts(gid)
    }

    /// Parses an `--owner` value, looking names up in the system's databases.
    pub fn parse(text: &str) -> Result<OwnerFilter, String> {
        OwnerFilter::parse_with(text, user_id, group_id)
    }

    fn parse_with(text: &str, user: Lookup, group: Lookup) -> Result<OwnerFilter, String> {
        let (user_part, group_part) = match text.split_once(':') {
            Some((user, group)) => (user, group),
            None => (text, ""),
        };
        if user_part.is_empty() && group_part.is_empty() {
            return Err("give a user, a group or both: USER, USER:GROUP or :GROUP, \
                        a name or a number each, '!' before one to exclude it"
                .to_string());
        }
        Ok(OwnerFilter {
            user: check(user_part, "user", user)?,
            group: check(group_part, "group", group)?,
        })
    }
}

/// One side: empty (any), `!` and a side (not it), a number, or a name.
fn check(part: &str, what: &str, lookup: Lookup) -> Result<Check, String> {
    if part.is_empty() {
        return Ok(Check::Any);
    }
    let (negated, name) = match part.strip_prefix('!') {
        Some(name) => (true, name),
        None => (false, part),
    };
    if name.is_empty() {
        return Err(format!("'!' must be followed by a {what} name or id"));
    }
    let id = match name.parse::<u32>() {
        Ok(id) if name.bytes().all(|b| b.is_ascii_digit()) => id,
        _ => match lookup(name) {
            Ok(Some(id)) => id,
            Ok(None) => return Err(format!("unknown {what} '{name}'")),
            Err(err) => {
                let why = crate::report::describe(&err);
                return Err(format!("cannot look up {what} '{name}': {why}"));
            }
        },
    };
    Ok(if negated {
        Check::IsNot(id)
    } else {
        Check::Is(id)
    })
}

/// The uid of the user `name`, through `getpwnam_r`.
fn user_id(name: &str) -> io::Result<Option<u32>> {
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
fn group_id(name: &str) -> io::Result<Option<u32>> {
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
/// (see the module comment). Once, before the first lookup.
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

    fn users(name: &str) -> io::Result<Option<u32>> {
        Ok(match name {
            "alice" => Some(1001),
            "007" => Some(99), // a name that looks like a number: the number wins
            "broken" => return Err(io::Error::from_raw_os_error(libc::EIO)),
            _ => None,
        })
    }

    fn groups(name: &str) -> io::Result<Option<u32>> {
        Ok((name == "staff").then_some(50))
    }

    #[test]
    fn owner_specs_parse_like_fd() {
        use Check::*;
        let cases: &[(&str, Check, Check)] = &[
            ("alice", Is(1001), Any),
            ("alice:", Is(1001), Any),
            ("alice:staff", Is(1001), Is(50)),
            (":staff", Any, Is(50)),
            ("1234", Is(1234), Any),
            ("1234:5678", Is(1234), Is(5678)),
            (":0", Any, Is(0)),
            ("!alice", IsNot(1001), Any),
            ("alice:!staff", Is(1001), IsNot(50)),
            ("!0:!0", IsNot(0), IsNot(0)),
            ("007", Is(7), Any),
        ];
        for &(text, user, group) in cases {
            let want = OwnerFilter { user, group };
            assert_eq!(
                OwnerFilter::parse_with(text, users, groups),
                Ok(want),
                "{text}"
            );
        }
    }

    #[test]
    fn bad_owner_specs_say_why() {
        for (text, says) in [
            ("", "give a user, a group or both"),
            (":", "give a user, a group or both"),
            ("bob", "unknown user 'bob'"),
            (":wheel", "unknown group 'wheel'"),
            ("alice:wheel", "unknown group 'wheel'"),
            ("!", "'!' must be followed by a user"),
            (":!", "'!' must be followed by a group"),
            ("+5", "unknown user '+5'"),
            ("99999999999", "unknown user '99999999999'"),
            ("broken", "cannot look up user 'broken'"),
        ] {
            let err = OwnerFilter::parse_with(text, users, groups).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn checks_accept_and_refuse() {
        let filter = OwnerFilter::parse_with("alice:!staff", users, groups).unwrap();
        assert!(filter.accepts(1001, 49));
        assert!(!filter.accepts(1001, 50));
        assert!(!filter.accepts(1000, 49));
        assert!(OwnerFilter::default().is_empty() && !filter.is_empty());
        assert!(OwnerFilter::default().accepts(123, 456));
    }

    #[test]
    fn the_system_databases_know_root() {
        // Every Unix system has root, uid and gid 0, in its local files.
        assert_eq!(user_id("root").unwrap(), Some(0));
        assert_eq!(group_id("root").unwrap(), Some(0));
        assert_eq!(user_id("no such user, surely").unwrap(), None);
        assert_eq!(group_id("no such group, surely").unwrap(), None);
        assert!(OwnerFilter::parse("root:root").unwrap().accepts(0, 0));
    }
}
