//! What one worker records for the index ([`Recorder`]): the listings it read,
//! each made a record (`format::put_record`) in its own bytes, and which devices'
//! directory times it found trustworthy; and, after the walk, a first run's file
//! written from where the workers' records lie ([`write_first`]).

use super::format::{self, Header, Stamps, FLAG_RACY};
use super::{store, times_of, DirTimes, IndexRun, RootKey, FINE_RACY_MARGIN, RACY_MARGIN};
use std::ffi::OsStr;
use std::io;
use std::ops::Range;
use std::path::Path;
use std::time::SystemTime;

/// What one worker recorded: whole records, back to back, and which file each
/// is for; and which devices' directory times it found trustworthy.
#[derive(Default)]
pub struct Recorder {
    bytes: Vec<u8>,
    spans: Vec<(usize, Range<usize>)>,
    kinds: Vec<u8>,
    lens: Vec<u8>,
    devices: Vec<(u64, DirTimes)>,
}

impl Recorder {
    /// How far the directory times of device `dev` are trusted, if this worker
    /// or another has found out (see [`Self::dir_times`]).
    #[inline]
    pub fn known_trust(&mut self, index: &IndexRun, dev: u64) -> Option<DirTimes> {
        match times_of(&self.devices, dev) {
            Some(times) => Some(times),
            None => self.learn_trust(index, dev),
        }
    }

    /// [`Self::known_trust`] of a device this worker has not met: asked of the
    /// run, under its lock.
    #[inline(never)]
    fn learn_trust(&mut self, index: &IndexRun, dev: u64) -> Option<DirTimes> {
        let times = index.known_dir_times(dev)?;
        self.devices.push((dev, times));
        Some(times)
    }

    /// How far the directory times of device `dev` (a directory on it open as
    /// `fd`) are trusted: asked of the run once per device per worker.
    pub fn dir_times(&mut self, index: &IndexRun, dev: u64, fd: std::os::fd::RawFd) -> DirTimes {
        if let Some(times) = times_of(&self.devices, dev) {
            return times;
        }
        let times = index.dir_times(dev, fd);
        self.devices.push((dev, times));
        times
    }

    /// True when nothing has been recorded: every directory this worker was
    /// given so far was answered from the index (or had no stamps to record).
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Records the listing of the directory of key `key` in `root`'s file, in
    /// `parts` (see [`ListingPart`]), listed from `listed_at` on, when its stamps
    /// were `stamps`, on a device whose times are trusted as `times` says. Where
    /// they are not, or are too recent, the record is for `--index-trust` alone.
    /// True when it holds the listing's entries (not when a name is too long for
    /// the format: see `format::put_record`), which [`Self::last`] then gives.
    pub fn record(
        &mut self,
        root: RootKey,
        key: u64,
        stamps: &Stamps,
        times: DirTimes,
        listed_at: SystemTime,
        parts: &[ListingPart<'_>],
    ) -> bool {
        let fine = stamps.mtime.1 != 0 || stamps.ctime.1 != 0;
        let margin = if fine && times == DirTimes::Local {
            FINE_RACY_MARGIN
        } else {
            RACY_MARGIN
        };
        let margin_from = listed_at
            .checked_sub(margin)
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or((i64::MIN, 0), |d| (d.as_secs() as i64, d.subsec_nanos()));
        let racy = !times.trusted() || stamps.racy(margin_from);
        self.kinds.clear();
        self.lens.clear();
        // The lengths as the listing has them: scanning the names for their NULs
        // again was a sixth of a first run's instructions in `put_record`. Each
        // part's kinds and lengths are extended at once, into room reserved for
        // all of them: pushed one by one, with a test of the capacity and of the
        // length's size each, they were 5.6M of a first run's 109.9M
        // instructions on `/usr` (callgrind, `-j1`).
        let count: usize = parts.iter().map(|(entries, _)| entries.len()).sum();
        self.kinds.reserve(count);
        self.lens.reserve(count);
        let mut too_long = false;
        for &(entries, _) in parts {
            self.kinds
                .extend(entries.iter().map(|&(_, kind)| format::kind_byte(kind)));
            // A length with its NUL past 256 does not fit a byte without it.
            too_long |= entries
                .iter()
                .fold(false, |long, &(len, _)| long | (len > 256));
            self.lens
                .extend(entries.iter().map(|&(len, _)| len.saturating_sub(1) as u8));
        }
        if too_long {
            // Fewer lengths than kinds: an empty, racy record (see `put_record`).
            self.lens.clear();
        }
        let start = self.bytes.len();
        format::put_record(
            &mut self.bytes,
            key,
            stamps,
            if racy { FLAG_RACY } else { 0 },
            (&self.kinds, &self.lens),
            parts.iter().map(|&(_, names)| names),
        );
        self.spans.push((root.file, start..self.bytes.len()));
        !too_long
    }

    /// Where the records this worker made for the file at `at` (in the run's
    /// files) lie in its bytes, in the order it made them.
    fn spans_in(&self, at: usize) -> impl Iterator<Item = Range<usize>> + Clone + '_ {
        (self.spans.iter())
            .filter(move |(in_file, _)| *in_file == at)
            .map(|(_, span)| span.clone())
    }

    /// The record [`Self::record`] made last.
    pub fn last(&self) -> Option<format::Record<'_>> {
        let (_, span) = self.spans.last()?;
        format::Record::parse(&self.bytes[span.clone()]).map(|(record, _)| record)
    }
}

/// A directory's listing, or one piece of it, as the walk holds it: each entry's
/// name's length with its NUL and its kind, and the names back to back with
/// their NULs. A giant directory listed in pieces (`walker::recording`) is
/// recorded from its parts in order, not copied into one listing first (28 MB
/// of a million entries' first run, in fresh pages).
pub type ListingPart<'p> = (&'p [(u32, crate::os::dirent::EntryKind)], &'p [u8]);

/// The records `collected` holds for the file at `at` in the run's files, in the
/// workers' order.
pub(super) fn recorded_in(
    collected: &[Recorder],
    at: usize,
) -> impl Iterator<Item = &[u8]> + Clone {
    (collected.iter())
        .flat_map(move |recorder| recorder.spans_in(at).map(|span| &recorder.bytes[span]))
}

/// Writes a first run's file, `at` in the run's files, from the records where
/// the workers put them: linked to their children there, and written from there
/// in the workers' order, records that follow one another in a worker's bytes
/// as one part. A million-entry directory's 23 MB were copied into a file put
/// together in fresh memory first (`format::put_file`). `None` (nothing
/// written) when two records have one key.
pub(super) fn write_first(
    header: &Header,
    collected: &mut [Recorder],
    at: usize,
    (dir, name): (&Path, &OsStr),
) -> Option<io::Result<()>> {
    let records: Vec<&[u8]> = recorded_in(collected, at).collect();
    let (mut head, at_key) = format::lay_out(header, &records)?;
    let mut offsets = Vec::new();
    for recorder in collected.iter_mut() {
        for span in recorder.spans_in(at).collect::<Vec<_>>() {
            format::link_children(&mut recorder.bytes[span], &at_key, &mut offsets);
        }
    }
    let mut parts: Vec<&[u8]> = Vec::new();
    for recorder in collected.iter() {
        let mut run: Option<Range<usize>> = None;
        for span in recorder.spans_in(at) {
            match run.as_mut() {
                Some(run) if run.end == span.start => run.end = span.end,
                _ => parts.extend(run.replace(span).map(|run| &recorder.bytes[run])),
            }
        }
        parts.extend(run.map(|run| &recorder.bytes[run]));
    }
    format::seal(&mut head, &parts);
    parts.insert(0, &head);
    Some(store::write_parts(dir, name, &parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use format::ROOT_KEY;
    use std::time::Duration;

    #[test]
    fn a_listing_is_recorded_with_the_lengths_it_was_listed_with() {
        use crate::os::dirent::EntryKind::{Dir, File};
        let root = RootKey {
            file: 0,
            key: ROOT_KEY,
        };
        let long = [b'n'; 256];
        let mut long_names = long.to_vec();
        long_names.push(0);
        let cases: [(&[(u32, _)], &[u8]); 3] = [
            (&[(2, File), (4, Dir)], b"a\0bcd\0"),
            (&[(256, File)], &long_names[1..]),
            (
                &[(2, File), (257, File)],
                &[b"a\0".as_slice(), &long_names].concat(),
            ),
        ];
        for (at, (entries, names)) in cases.into_iter().enumerate() {
            let mut recorder = Recorder::default();
            let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1);
            recorder.record(
                root,
                ROOT_KEY,
                &Stamps::default(),
                DirTimes::Local,
                old,
                &[(entries, names)],
            );
            let (record, _) = format::Record::parse(&recorder.bytes).unwrap();
            let listed: Vec<_> = record.entries().collect();
            match at {
                0 => assert_eq!(listed, [(&b"a\0"[..], File), (&b"bcd\0"[..], Dir)]),
                1 => assert_eq!(listed, [(&long_names[1..], File)], "255 bytes fit"),
                _ => {
                    assert!(listed.is_empty(), "a 256-byte name: no entries");
                    assert_eq!(record.flags, FLAG_RACY, "and listed again");
                }
            }
        }
    }

    #[test]
    fn a_listing_is_racy_within_the_margin_its_times_allow() {
        let listed_at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let at = |before: Duration, nanos: bool| {
            let t = listed_at - before;
            let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap();
            let time = (
                d.as_secs() as i64,
                if nanos { d.subsec_nanos().max(1) } else { 0 },
            );
            Stamps {
                dev: 1,
                ino: 2,
                mtime: time,
                ctime: time,
            }
        };
        let racy_on = |stamps: Stamps, times: DirTimes| {
            let mut recorder = Recorder::default();
            let root = RootKey {
                file: 0,
                key: ROOT_KEY,
            };
            recorder.record(root, ROOT_KEY, &stamps, times, listed_at, &[(&[], &[])]);
            let (record, _) = format::Record::parse(&recorder.bytes).unwrap();
            record.flags & FLAG_RACY != 0
        };
        let racy = |stamps: Stamps| racy_on(stamps, DirTimes::Local);
        // Times with nanoseconds: five coarse-clock ticks of margin.
        assert!(racy(at(Duration::from_millis(30), true)));
        assert!(!racy(at(Duration::from_millis(100), true)));
        // Whole seconds (ext4 with small inodes): two seconds.
        assert!(racy(at(Duration::from_millis(1_500), false)));
        assert!(!racy(at(Duration::from_secs(3), false)));
        // A server's times, dated by another clock: two seconds, nanoseconds or
        // not; and on a filesystem not trusted, every record.
        let remote = |stamps| racy_on(stamps, DirTimes::Remote);
        assert!(remote(at(Duration::from_millis(100), true)));
        assert!(remote(at(Duration::from_millis(1_500), true)));
        assert!(!remote(at(Duration::from_secs(3), true)));
        assert!(racy_on(
            at(Duration::from_secs(3), true),
            DirTimes::Untrusted
        ));
    }
}
