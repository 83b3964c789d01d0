//! The metadata a record can show (`{size}`, the times, `{mode}`, owners, `--json -l`),
//! taken from one `stat`, and the ways it is spelled: ISO 8601 local time, octal
//! permission bits, user and group names.
//!
//! Only the few fields printing or sorting needs are kept, so a sorted walk holds 56
//! bytes per match rather than a whole `struct stat` (144, or `statx`'s 256). Name and time look-ups go
//! through small per-worker caches ([`Names`], [`Clock`]): a tree usually has a
//! handful of owners and many files modified in the same second.

use crate::os::stat::{Stat, TimeField};
use std::collections::HashMap;

/// What is known about a match from its `stat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// `st_size`: the link's own for a link (the target's with `-L`).
    pub size: u64,
    /// Modification time, seconds since the epoch, and the nanoseconds within it.
    pub mtime: i64,
    pub mtime_nsec: u32,
    /// `st_mode`, type bits included.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    /// Access and inode change times, seconds since the epoch.
    pub atime: i64,
    pub ctime: i64,
    /// Birth time, seconds since the epoch, or [`NO_BIRTH`]; read through
    /// [`Meta::btime`]. A sentinel rather than an `Option`, which would take 8 more
    /// bytes per match that `--sort` holds.
    pub btime_or_none: i64,
}

/// [`Meta::btime_or_none`] of an entry whose birth time is not recorded.
pub const NO_BIRTH: i64 = i64::MIN;

impl Default for Meta {
    /// Zeroes, and no birth time.
    fn default() -> Meta {
        Meta {
            size: 0,
            mtime: 0,
            mtime_nsec: 0,
            mode: 0,
            uid: 0,
            gid: 0,
            atime: 0,
            ctime: 0,
            btime_or_none: NO_BIRTH,
        }
    }
}

impl Meta {
    // `mode_t` is 16 bits on macOS: the cast is a no-op on Linux only.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_stat(stat: &Stat) -> Meta {
        let (mtime, mtime_nsec) = stat.time(TimeField::Modified).unwrap_or_default();
        let seconds = |field| stat.time(field).map(|(seconds, _)| seconds);
        Meta {
            size: stat.size(),
            mtime,
            mtime_nsec,
            mode: stat.mode() as u32,
            uid: stat.uid(),
            gid: stat.gid(),
            atime: seconds(TimeField::Accessed).unwrap_or_default(),
            ctime: seconds(TimeField::Changed).unwrap_or_default(),
            btime_or_none: seconds(TimeField::Born).unwrap_or(NO_BIRTH),
        }
    }

    /// The birth time, seconds since the epoch, where it is recorded.
    pub fn btime(&self) -> Option<i64> {
        (self.btime_or_none != NO_BIRTH).then_some(self.btime_or_none)
    }

    /// The sort key `--sort mtime` uses.
    pub fn mtime_key(&self) -> (i64, u32) {
        (self.mtime, self.mtime_nsec)
    }
}

/// Appends the permission bits of `mode` in octal, as `find -printf %m` and
/// `stat -c %a` print them: `644`, `4755`, `0` for none.
pub fn push_octal_mode(out: &mut Vec<u8>, mode: u32) {
    push_display(out, format_args!("{:o}", mode & 0o7777));
}

/// Appends a decimal number without going through a `String`.
pub use crate::decimal::push as push_decimal;

fn push_display(out: &mut Vec<u8>, args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    // Writing into a Vec cannot fail.
    let _ = out.write_fmt(args);
}

/// Local-time ISO 8601 timestamps, `2024-05-01T12:34:56+02:00` (what `date
/// --iso-8601=seconds` prints), with the last conversion remembered.
#[derive(Default)]
pub struct Clock {
    last: Option<(i64, [u8; 25])>,
}

impl Clock {
    /// Appends `secs` (seconds since the epoch) as local time with its UTC offset.
    pub fn push_iso8601(&mut self, out: &mut Vec<u8>, secs: i64) {
        match self.last {
            Some((cached, text)) if cached == secs => out.extend_from_slice(&text),
            _ => {
                let text = iso8601_local(secs);
                if let Ok(fixed) = <[u8; 25]>::try_from(text.as_slice()) {
                    self.last = Some((secs, fixed));
                }
                out.extend_from_slice(&text);
            }
        }
    }
}

/// `secs` as local time in ISO 8601 with a numeric offset. A time the C library cannot
/// convert (far outside its range) is printed as `@SECS`, as `date` would take it,
/// rather than as a wrong date.
pub fn iso8601_local(secs: i64) -> Vec<u8> {
    // `time_t` is 64 bits wherever pfind runs; the cast is a no-op there.
    #[allow(clippy::unnecessary_cast)]
    let time = secs as libc::time_t;
    // SAFETY: `tm` is plain data that `localtime_r` fills in; a zeroed `tm` is valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; `localtime_r` is the thread-safe
    // form and keeps neither.
    if unsafe { libc::localtime_r(&time, &mut tm) }.is_null() {
        return format!("@{secs}").into_bytes();
    }
    let offset = tm.tm_gmtoff;
    let (sign, offset) = if offset < 0 {
        ('-', -offset)
    } else {
        ('+', offset)
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
        tm.tm_year as i64 + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        offset / 3600,
        offset % 3600 / 60
    )
    .into_bytes()
}

/// User and group names by id, looked up once each through the system's name service
/// (`getpwuid_r`, `getgrgid_r`, and `getent` for what a static build's local files
/// lack: see [`crate::os::userdb`]), so LDAP or sssd users resolve as `ls -l` shows
/// them.
/// An id without a name is printed as the number, as `ls` does.
#[derive(Default)]
pub struct Names {
    users: HashMap<u32, Box<[u8]>>,
    groups: HashMap<u32, Box<[u8]>>,
}

impl Names {
    pub fn push_user(&mut self, out: &mut Vec<u8>, uid: u32) {
        let name = self.users.entry(uid).or_insert_with(|| {
            crate::os::userdb::user_name(uid)
                .ok()
                .flatten()
                .unwrap_or_else(|| uid.to_string().into_bytes().into())
        });
        out.extend_from_slice(name);
    }

    pub fn push_group(&mut self, out: &mut Vec<u8>, gid: u32) {
        let name = self.groups.entry(gid).or_insert_with(|| {
            crate::os::userdb::group_name(gid)
                .ok()
                .flatten()
                .unwrap_or_else(|| gid.to_string().into_bytes().into())
        });
        out.extend_from_slice(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octal_modes() {
        let cases: &[(u32, &str)] = &[
            (0o100644, "644"),
            (0o40755, "755"),
            (0o104755, "4755"),
            (0o120777, "777"),
            (0o100000, "0"),
        ];
        for &(mode, want) in cases {
            let mut out = Vec::new();
            push_octal_mode(&mut out, mode);
            assert_eq!(out, want.as_bytes(), "{mode:o}");
        }
    }

    #[test]
    fn iso_timestamps_match_date() {
        // `date` is the independent oracle, in whatever zone this process runs.
        for secs in [0i64, 1_714_567_890, 951_782_400, -86_400] {
            let want = std::process::Command::new("date")
                .arg("-d")
                .arg(format!("@{secs}"))
                .arg("--iso-8601=seconds")
                .output()
                .expect("run date");
            let want = String::from_utf8(want.stdout).unwrap();
            let got = String::from_utf8(iso8601_local(secs)).unwrap();
            assert_eq!(got, want.trim_end(), "{secs}");
            let mut clock = Clock::default();
            let mut twice = Vec::new();
            clock.push_iso8601(&mut twice, secs);
            clock.push_iso8601(&mut twice, secs);
            assert_eq!(twice, [got.as_bytes(), got.as_bytes()].concat());
        }
    }

    #[test]
    fn names_of_root_and_unknown_ids() {
        let mut names = Names::default();
        let mut out = Vec::new();
        names.push_user(&mut out, 0);
        out.push(b' ');
        names.push_group(&mut out, 0);
        out.push(b' ');
        // An id no system assigns: printed as the number.
        names.push_user(&mut out, 4_000_000_123);
        assert_eq!(out, b"root root 4000000123");
    }
}
