//! `--owner`: who owns an entry, in fd's syntax.
//!
//! `USER`, `USER:GROUP` or `:GROUP` (`USER:` is `USER`; `:` and the empty value are
//! any owner, as fd reads them: either side optional); each side a name or a number,
//! and a `!` before either side negates it: `--owner '!root'` is everything root does
//! not own, `--owner 'alice:!staff'` what alice owns outside the staff group. A side
//! that is all digits is an id (as in fd), anything else a name, looked up once when
//! the command line is read (`getpwnam_r`/`getgrnam_r`: `/etc/passwd` and whatever
//! else the system's name service uses). An unknown name is a usage error.
//!
//! In the static build (the Linux x86_64 install) the C library reads only
//! `/etc/passwd` and `/etc/group`, and a name they lack is asked of `getent` (see
//! [`crate::os::userdb`]).

use crate::os::userdb::{group_id, user_id};
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
        // `:` and `` are any owner, as in fd (issue 27): no side given, none tested.
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
        // fd's either side optional: `:` and `` are any owner, and need no `stat`.
        for any in ["", ":"] {
            let filter = OwnerFilter::parse_with(any, users, groups).unwrap();
            assert!(filter.is_empty() && filter.accepts(7, 8), "{any:?}");
        }
    }

    #[test]
    fn the_system_databases_know_root() {
        // Every Unix system has root, uid and gid 0, in its local files.
        assert!(OwnerFilter::parse("root:root").unwrap().accepts(0, 0));
        assert!(OwnerFilter::parse("no such user, surely").is_err());
    }
}
