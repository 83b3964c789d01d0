//! Whether a network or FUSE filesystem's directory times can be relied on: the
//! probe, and what it decides. Their times are the server's: NFS, sshfs or a FUSE
//! passthrough over a local disk move a directory's mtime and ctime with every
//! entry added or removed, as the disk does; a server that makes its times up
//! (an object store under FUSE, say) does not, and nothing in `statfs` tells the
//! two apart. So the index tests it, as git's `update-index
//! --test-untracked-cache` tests a work tree before trusting its directories'
//! times: in a directory on it, it makes an empty directory and removes it, and
//! asks the server for the directory's times before, between and after (with
//! `AT_STATX_FORCE_SYNC`, past the client's cache). The filesystem is trusted
//! when both steps moved both times, and the server's clock, read off the time it
//! gave the change, agrees with this machine's to within [`CLOCK_AGREEMENT`]
//! (the racy margin, `index::RACY_MARGIN`, compares a listing's time on this
//! machine with the server's times).
//!
//! The verdict is kept for the mount, one small file in the index's cache
//! directory (`store`) named by the mount as `os::fstype::mount_instance` knows
//! it, for [`VERDICT_FOR`]: the probe, and the directory it touches listed again,
//! happen once a day a mount, not at every search. Where the kernel cannot name
//! the mount (before Linux 6.8), each run probes.
//!
//! Where it is trusted, every directory's stamps are asked of the server each
//! time (a `statx` with `AT_STATX_FORCE_SYNC`): the client's cache of them (60 s
//! and more on NFS and FUSE) would miss a change another client made, while a
//! walk's listing would not.

use crate::index::format::{self, unix_time, Stamps, Time};
use crate::index::store;
use crate::os::stat::{fstat, Fields};
use std::ffi::{CString, OsString};
use std::os::fd::RawFd;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How long a probe's verdict on a mount is used before the probe is made again.
pub const VERDICT_FOR: Duration = Duration::from_secs(24 * 3600);

/// How far the server's clock may be from this machine's for its times to be
/// trusted: half the racy margin, so that a change in the same tick as a listing
/// is still within the margin as this machine's clock reckons it.
pub const CLOCK_AGREEMENT: Duration = Duration::from_secs(1);

/// The probe: `Some(true)` when the filesystem of the directory open as `dir`
/// moves the directory's times when an entry is made and removed in it, as its
/// server tells them, and its clock agrees with ours; `Some(false)` when it was
/// tested and does not; `None` when it could not be tested there (a read-only
/// mount, no permission to write in that directory, a server that refuses
/// `mkdir`), which says nothing of the filesystem: its directories are then
/// listed every time, and another search may test it from another directory.
pub fn directory_times_kept(dir: RawFd) -> Option<bool> {
    let fresh = Stamps::FIELDS.with(Fields::FRESH);
    let stamps = |dir| fstat(dir, fresh).ok().map(|stat| Stamps::of(&stat));
    let before = stamps(dir)?;
    let name = probe_name();
    let asked = SystemTime::now();
    // SAFETY: `name` is a NUL-terminated name; a bad descriptor is an error return.
    if unsafe { libc::mkdirat(dir, name.as_ptr(), 0o700) } != 0 {
        return None;
    }
    let made = stamps(dir);
    let answered = SystemTime::now();
    // SAFETY: as above; the directory is the empty one just made.
    let removed = unsafe { libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) } == 0;
    let after = stamps(dir);
    Some(match (made, after) {
        (Some(made), Some(after)) if removed => times_kept(
            [before, made, after],
            (unix_time(asked), unix_time(answered)),
        ),
        _ => false,
    })
}

/// The probe's verdict on a directory's stamps before an entry was made in it,
/// after, and after it was removed, the entry made between `asked` and
/// `answered` (this machine's clock): each step moved both times, of the same
/// directory, and the server dated the change within [`CLOCK_AGREEMENT`] of when
/// it was asked.
pub fn times_kept([before, made, after]: [Stamps; 3], (asked, answered): (Time, Time)) -> bool {
    let moved = |a: &Stamps, b: &Stamps| a.mtime != b.mtime && a.ctime != b.ctime;
    let same = |a: &Stamps, b: &Stamps| (a.dev, a.ino) == (b.dev, b.ino);
    let nanos = |t: Time| i128::from(t.0) * 1_000_000_000 + i128::from(t.1);
    let agreement = CLOCK_AGREEMENT.as_nanos() as i128;
    let clock_agrees =
        (nanos(asked) - agreement..=nanos(answered) + agreement).contains(&nanos(made.mtime));
    same(&before, &made)
        && same(&made, &after)
        && moved(&before, &made)
        && moved(&made, &after)
        && clock_agrees
}

/// The name of the file in the cache directory that keeps the verdict on the
/// mount `mount` (as `os::fstype::mount_instance` names it).
pub fn verdict_name(mount: &str) -> OsString {
    let hash = format::key_after(format::ROOT_KEY, mount.as_bytes());
    OsString::from(format!("{}{hash:016x}", store::VERDICT_PREFIX))
}

/// The verdict on `mount` kept in the cache directory `dir`, if one was made
/// less than [`VERDICT_FOR`] before `now`; a file that is not the user's own, or
/// not one this code wrote for that mount, is no verdict.
pub fn remembered(dir: &Path, mount: &str, now: SystemTime) -> Option<bool> {
    let bytes = store::read(&dir.join(verdict_name(mount))).ok()??;
    parse_verdict(bytes.as_ref(), mount, now)
}

/// Keeps `kept`, the verdict on `mount` made at `now`, in `dir`; a failure to
/// write it (a full disk) only means the next run probes again.
pub fn remember(dir: &Path, mount: &str, kept: bool, now: SystemTime) {
    let _ = store::write(
        dir,
        &verdict_name(mount),
        verdict_text(mount, kept, now).as_bytes(),
    );
}

/// The file's text: the mount, the verdict, and when it was made (seconds).
fn verdict_text(mount: &str, kept: bool, now: SystemTime) -> String {
    let verdict = if kept { "kept" } else { "not kept" };
    format!("{mount}\n{verdict}\n{}\n", unix_time(now).0)
}

fn parse_verdict(bytes: &[u8], mount: &str, now: SystemTime) -> Option<bool> {
    let mut lines = std::str::from_utf8(bytes).ok()?.lines();
    let (written_for, verdict, made) = (lines.next()?, lines.next()?, lines.next()?);
    let age = unix_time(now).0.checked_sub(made.parse().ok()?)?;
    if written_for != mount || !(0..VERDICT_FOR.as_secs() as i64).contains(&age) {
        return None;
    }
    match verdict {
        "kept" => Some(true),
        "not kept" => Some(false),
        _ => None,
    }
}

/// A name no other probe uses: this process's and the clock's.
fn probe_name() -> CString {
    let nanos = unix_time(SystemTime::now());
    CString::new(format!(
        ".pfind-probe-{}-{}{:09}",
        std::process::id(),
        nanos.0,
        nanos.1
    ))
    .expect("no NUL in digits")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn stamps(mtime: Time, ctime: Time) -> Stamps {
        Stamps {
            dev: 7,
            ino: 9,
            mtime,
            ctime,
        }
    }

    #[test]
    fn both_steps_must_move_both_times_of_the_same_directory() {
        let t = |s: i64| (s, 0);
        let (asked, answered) = (t(100), t(101));
        let good = [
            stamps(t(50), t(50)),
            stamps(t(100), t(100)),
            stamps(t(101), t(101)),
        ];
        assert!(times_kept(good, (asked, answered)));
        // The removal left the times as they were (a one-second filesystem, or a
        // server that dates only what it made).
        let mut still = good;
        still[2] = still[1];
        assert!(!times_kept(still, (asked, answered)));
        // Only the mtime moved.
        let mut ctime_kept = good;
        ctime_kept[1].ctime = ctime_kept[0].ctime;
        assert!(!times_kept(ctime_kept, (asked, answered)));
        // Another directory answered in between (a mount put over it).
        let mut other = good;
        other[1].ino = 10;
        assert!(!times_kept(other, (asked, answered)));
    }

    #[test]
    fn the_servers_clock_must_agree_with_ours() {
        let probe = |made: Time| {
            let after = (made.0 + 1, made.1);
            let series = [
                stamps((1, 0), (1, 0)),
                stamps(made, made),
                stamps(after, after),
            ];
            times_kept(series, ((1_000, 0), (1_000, 500_000_000)))
        };
        assert!(probe((1_000, 200_000_000)));
        assert!(probe((999, 100_000_000)), "0.9 s behind");
        assert!(probe((1_001, 400_000_000)), "0.9 s ahead");
        assert!(!probe((998, 900_000_000)), "1.1 s behind");
        assert!(!probe((1_001, 600_000_000)), "1.1 s ahead");
    }

    #[test]
    fn a_verdict_is_for_its_mount_and_a_day() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let mount = "b00t 1a";
        let text = |kept| verdict_text(mount, kept, now);
        assert_eq!(parse_verdict(text(true).as_bytes(), mount, now), Some(true));
        assert_eq!(
            parse_verdict(text(false).as_bytes(), mount, now),
            Some(false)
        );
        assert_eq!(parse_verdict(text(true).as_bytes(), "b00t 1b", now), None);
        let later = now + VERDICT_FOR;
        assert_eq!(parse_verdict(text(true).as_bytes(), mount, later), None);
        let earlier = now - Duration::from_secs(60);
        assert_eq!(parse_verdict(text(true).as_bytes(), mount, earlier), None);
        assert_eq!(parse_verdict(b"b00t 1a\nkept\n", mount, now), None);
        assert_eq!(
            parse_verdict(b"b00t 1a\nmaybe\n1000000\n", mount, now),
            None
        );

        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("pfind");
        assert_eq!(remembered(&cache, mount, now), None);
        remember(&cache, mount, true, now);
        assert_eq!(remembered(&cache, mount, now), Some(true));
        remember(&cache, mount, false, now);
        assert_eq!(remembered(&cache, mount, now), Some(false));
        assert_ne!(verdict_name(mount), verdict_name("b00t 1b"));
    }

    #[test]
    fn a_local_directory_passes_and_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "").unwrap();
        let open = std::fs::File::open(dir.path()).unwrap();
        // ext4, xfs, tmpfs: nanosecond times, moved by each step.
        assert_eq!(directory_times_kept(open.as_raw_fd()), Some(true));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a"], "the probe's directory is removed");
    }

    #[test]
    fn a_directory_that_cannot_be_written_is_not_tested() {
        // procfs refuses mkdir, even to root.
        let proc_dir = std::fs::File::open("/proc").unwrap();
        assert_eq!(directory_times_kept(proc_dir.as_raw_fd()), None);
        assert_eq!(directory_times_kept(-1), None);
    }
}
