//! Remembering a tree (`--index`, issue 48): a source of listings, not a second
//! walker. A walk with the index asks it for each directory's entries; the index
//! gives the ones it recorded when the directory's stat data (device, inode, mtime
//! and ctime, to the nanosecond) are still those it recorded, and otherwise the
//! walker lists the directory as always and the index records that listing. Every
//! filter, ignore rule and format downstream is the walk's own code, so the output
//! is a walk's, byte for byte.
//!
//! Why a directory's stamps are enough: adding, removing or renaming an entry
//! changes its directory's mtime and ctime, and a directory replaced or a mount put
//! over it has another (device, inode). Three cases are not trusted:
//! - the racy case (git's `racy-git.txt`): a change in the same timestamp tick as
//!   the listing leaves the stamps as recorded. A directory whose mtime or ctime
//!   was at most [`RACY_MARGIN`] ([`FINE_RACY_MARGIN`] where its times have
//!   nanoseconds) before its listing began is recorded as racy and
//!   listed again next time (by then its stamps are old enough);
//! - a filesystem whose directory times cannot be relied on (`os::fstype`'s
//!   `directory_times`: FAT, procfs; a network or FUSE one unless [`remote`]'s
//!   probe passed, and then its stamps are asked of the server): always listed
//!   again;
//! - `--index-trust`, the locate-like mode, skips the check, and says so.
//!
//! The rooms: [`format`] is the file's bytes (records, keys), [`checksum`] its
//! checksum, [`store`] where files live and how they are read and replaced
//! safely, [`recorder`] what a worker records and how a first run's file is
//! written from it; this file is a walk's use of them ([`IndexRun`]).

mod checksum;
pub mod format;
mod recorder;
pub mod remote;
pub mod store;

pub use recorder::{ListingPart, Recorder};

use crate::report::Reporter;
use format::{Header, Parsed, Stamps, FLAG_RACY, ROOT_KEY};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// How long before a listing a directory's stamps must be for the listing to be
/// trusted next time: more than any local filesystem's timestamp granularity (a
/// second on ext4 with small inodes; the kernel's coarse clock lags by a tick).
pub const RACY_MARGIN: Duration = Duration::from_secs(2);

/// The margin for a directory whose mtime or ctime has a nonzero nanosecond part,
/// which shows that its filesystem keeps times finer than a second: its times
/// come from the kernel's coarse clock, which lags the real time by at most one
/// tick (10 ms at the slowest, HZ=100), so a change after the listing is at
/// least that recent, and this is five ticks. With 2 s for every directory, a
/// tree that changes all the time (a build, a mail spool) had each directory
/// changed in the last 2 s listed again by every search in them: a search a
/// tenth of a second after a change to 10% of `/usr`'s directories was slower
/// than a walk (benchmark.py --index).
pub const FINE_RACY_MARGIN: Duration = Duration::from_millis(50);

/// Whether and how a walk uses the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IndexMode {
    /// The plain walk (the default).
    #[default]
    Off,
    /// `--index`: recorded listings checked against each directory's stamps.
    Check,
    /// `--index-trust`: recorded listings used unchecked, as locate does.
    Trust,
}

/// One index file a walk uses: what it held, and where the new one goes.
struct IndexFile {
    dir: PathBuf,
    name: OsString,
    /// The indexed root's canonical path and (device, inode).
    root: Vec<u8>,
    root_id: (u64, u64),
    old: Option<Parsed>,
    /// False when the file or its directory is not this user's own: neither read
    /// nor written.
    writable: bool,
}

/// A root of the walk and the index file it is answered from.
struct RootIndex {
    /// The root's (device, inode), as its jobs carry it.
    id: (u64, u64),
    file: usize,
    /// The key of the root's own directory in that file: the key of its path below
    /// the indexed root (`ROOT_KEY` when it is the indexed root).
    key: u64,
}

/// A walk's use of the index: the files of its roots, read before the walk, and
/// what the workers recorded, written back after it.
pub struct IndexRun {
    mode: IndexMode,
    /// `PFIND_INDEX_NO_VALIDATE=1`, for the mutation test alone: recorded listings
    /// are used without their stamps being checked, to show the test would see it.
    no_validate: bool,
    files: Vec<IndexFile>,
    roots: Vec<RootIndex>,
    collected: Mutex<Vec<Recorder>>,
    /// Each device met and how far its directory times are trusted: one
    /// `fstatfs` (a round trip on a network filesystem) and at most one probe a
    /// device a run, whichever worker meets it first.
    devices: Mutex<Vec<(u64, DirTimes)>>,
    /// The cache directory, checked, where the probes' verdicts are kept.
    cache: Option<PathBuf>,
    /// The walk's threads, which may sum a large file's checksum.
    threads: usize,
}

/// The key of a root's directory for the walker's lookups, and the file it is in.
#[derive(Clone, Copy)]
pub struct RootKey {
    file: usize,
    pub key: u64,
}

/// What the index says of one directory.
pub enum Lookup<'a> {
    /// Its recorded entries may be used: each name with its NUL, and its kind.
    Use(format::Record<'a>),
    /// It must be listed, and the listing recorded with these stamps (`None`: no
    /// record can be made, as for a directory whose stamps could not be read).
    List(Option<Stamps>),
}

/// How far the directory stamps of one device are relied on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirTimes {
    /// Not at all: each of its directories is listed every time.
    Untrusted,
    /// A local filesystem that keeps them (`os::fstype`).
    Local,
    /// A network or FUSE filesystem that passed [`remote`]'s probe: its stamps
    /// are asked of the server each time, and since they are dated by another
    /// machine's clock, the racy margin is always the whole [`RACY_MARGIN`].
    Remote,
}

impl DirTimes {
    pub fn trusted(self) -> bool {
        self != DirTimes::Untrusted
    }

    /// What to ask a `stat` of a directory on the device for its stamps.
    pub fn stamp_fields(self) -> crate::os::stat::Fields {
        match self {
            DirTimes::Remote => Stamps::FIELDS.with(crate::os::stat::Fields::FRESH),
            _ => Stamps::FIELDS,
        }
    }
}

impl IndexRun {
    /// Reads the index of each root in `roots` (its path as given and its `stat`)
    /// that has one, or that of the nearest indexed directory above it; a problem
    /// with a file is one warning and a walk without it.
    pub fn open(
        mode: IndexMode,
        roots: &[(Vec<u8>, crate::os::stat::Stat)],
        threads: usize,
        reporter: &Reporter,
    ) -> IndexRun {
        let mut run = IndexRun {
            mode,
            no_validate: std::env::var_os("PFIND_INDEX_NO_VALIDATE").is_some_and(|v| v == "1"),
            files: Vec::new(),
            roots: Vec::new(),
            collected: Mutex::new(Vec::new()),
            devices: Mutex::new(Vec::new()),
            cache: None,
            threads,
        };
        let Some(dir) = store::cache_dir() else {
            reporter.warning(b"--index: no cache directory (neither XDG_CACHE_HOME nor HOME is set); walking without the index");
            return run;
        };
        if let Err(err) = store::checked_dir(&dir) {
            reporter.warning(format!("--index: {err}; walking without the index").as_bytes());
            return run;
        }
        run.cache = Some(dir.clone());
        for (root, stat) in roots {
            let stamps = Stamps::of(stat);
            let id = (stamps.dev, stamps.ino);
            if run.roots.iter().any(|r| r.id == id) {
                continue;
            }
            let Ok(canonical) = std::fs::canonicalize(Path::new(std::ffi::OsStr::from_bytes(root)))
            else {
                continue;
            };
            let canonical = canonical.into_os_string().into_vec();
            let (file, key) = run.file_for(&dir, &canonical, id, reporter);
            run.roots.push(RootIndex { id, file, key });
        }
        run
    }

    /// The file that answers for the root whose canonical path is `canonical`: the
    /// index of the nearest directory at or above it that has one, or a new one.
    fn file_for(
        &mut self,
        dir: &Path,
        canonical: &[u8],
        id: (u64, u64),
        reporter: &Reporter,
    ) -> (usize, u64) {
        let mut above = canonical;
        loop {
            let name = store::file_name(above);
            if let Some(at) = self.files.iter().position(|f| f.name == name) {
                return (at, below_key(canonical, above));
            }
            let path = dir.join(&name);
            let found = match store::read(&path) {
                Ok(found) => found.map(Ok),
                Err(err) => Some(Err(err)),
            };
            match found {
                None => {}
                Some(Err(err)) => {
                    // Not this user's, or unreadable: left alone, and not replaced.
                    reporter.warning(format!("--index: {err}; walking without it").as_bytes());
                    let writable = false;
                    return self.add(dir, canonical, id, None, writable);
                }
                Some(Ok(bytes)) => match Parsed::checked_on(bytes, self.threads) {
                    Err(why) => {
                        reporter.warning(
                            format!(
                                "--index: {}: {}; walking, and indexing again",
                                path.display(),
                                why.words()
                            )
                            .as_bytes(),
                        );
                        return self.add(dir, canonical, id, None, true);
                    }
                    Ok(parsed) if parsed.header.root != above => {
                        // Another root whose path hashes alike: found, never used.
                        reporter.warning(
                            format!("--index: {}: the index of another directory; walking, and indexing again", path.display())
                                .as_bytes(),
                        );
                        return self.add(dir, canonical, id, None, true);
                    }
                    Ok(parsed) if above == canonical && parsed.header.root_id != id => {
                        reporter.warning(
                            format!(
                                "--index: {}: replaced since it was indexed; walking, and indexing again",
                                String::from_utf8_lossy(canonical)
                            )
                            .as_bytes(),
                        );
                        return self.add(dir, canonical, id, None, true);
                    }
                    Ok(parsed) => {
                        if self.mode == IndexMode::Trust {
                            reporter.warning(
                                format!(
                                    "--index-trust: {}: answered from an index written {} ago; what changed since may be missing or stale",
                                    String::from_utf8_lossy(canonical),
                                    age_words(parsed.header.written)
                                )
                                .as_bytes(),
                            );
                        }
                        let root_id = parsed.header.root_id;
                        let (at, _) = self.add(dir, above, root_id, Some(parsed), true);
                        return (at, below_key(canonical, above));
                    }
                },
            }
            match above.iter().rposition(|&b| b == b'/') {
                Some(0) if above.len() > 1 => above = b"/",
                Some(slash) if slash > 0 => above = &above[..slash],
                _ => return self.add(dir, canonical, id, None, true),
            }
        }
    }

    fn add(
        &mut self,
        dir: &Path,
        root: &[u8],
        root_id: (u64, u64),
        old: Option<Parsed>,
        writable: bool,
    ) -> (usize, u64) {
        self.files.push(IndexFile {
            dir: dir.to_path_buf(),
            name: store::file_name(root),
            root: root.to_vec(),
            root_id,
            old,
            writable,
        });
        (self.files.len() - 1, ROOT_KEY)
    }

    /// The file and key of the root whose (device, inode) is `id`, if it has one.
    pub fn root_key(&self, id: Option<(u64, u64)>) -> Option<RootKey> {
        let id = id?;
        let root = self.roots.iter().find(|r| r.id == id)?;
        self.files[root.file].writable.then_some(RootKey {
            file: root.file,
            key: root.key,
        })
    }

    /// True in `--index-trust`: recorded listings are used without a look at the
    /// directory.
    pub fn trusting(&self) -> bool {
        self.mode == IndexMode::Trust
    }

    /// What to do with a directory whose record is `found` (`None`: it has
    /// none) and whose stamps are `stamps` (read by the caller; `None` in the
    /// trusted mode, which does not look), on a filesystem whose directory times
    /// are trusted or not.
    pub fn check<'a>(
        &'a self,
        found: Option<format::Record<'a>>,
        stamps: Option<Stamps>,
        fs_trusted: bool,
    ) -> Lookup<'a> {
        match (found, stamps) {
            (Some(record), None) => Lookup::Use(record),
            (Some(record), Some(_)) if self.no_validate => Lookup::Use(record),
            (Some(record), Some(now))
                if fs_trusted && record.stamps == now && record.flags & FLAG_RACY == 0 =>
            {
                Lookup::Use(record)
            }
            (_, stamps) => Lookup::List(stamps),
        }
    }

    /// The record of the directory of key `key` in `root`'s file, unchecked: what
    /// a caller looks at before it decides how to check it.
    pub fn recorded(&self, root: RootKey, key: u64) -> Option<format::Record<'_>> {
        self.files[root.file].old.as_ref()?.find(key)
    }

    /// True when `root`'s file had records to look in (not a first run).
    pub fn has_records(&self, root: RootKey) -> bool {
        self.files[root.file].old.is_some()
    }

    /// The record at `at` in `root`'s file: the child offset its parent's record
    /// gave (see `format`).
    pub fn recorded_at(&self, root: RootKey, at: u32) -> Option<format::Record<'_>> {
        self.files[root.file].old.as_ref()?.record_at(at)
    }

    /// How far the directory times of device `dev` are trusted, if a worker has
    /// found out.
    fn known_dir_times(&self, dev: u64) -> Option<DirTimes> {
        times_of(&self.devices.lock().unwrap_or_else(|e| e.into_inner()), dev)
    }

    /// How far the directory times of device `dev` are trusted, a directory on
    /// it being open as `fd`: by its filesystem's type, and for a network or
    /// FUSE one by the verdict kept for its mount or else [`remote`]'s probe,
    /// made there (never in the trusted mode, which writes nothing) and kept.
    /// Found under the lock, so that one worker probes and the others wait.
    fn dir_times(&self, dev: u64, fd: std::os::fd::RawFd) -> DirTimes {
        use crate::os::fstype::{directory_times, DirectoryTimes};
        let mut devices = self.devices.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(times) = times_of(&devices, dev) {
            return times;
        }
        let times = match directory_times(fd) {
            DirectoryTimes::Kept => DirTimes::Local,
            DirectoryTimes::ServerKept if self.remote_times_kept(fd) => DirTimes::Remote,
            _ => DirTimes::Untrusted,
        };
        devices.push((dev, times));
        times
    }

    /// The verdict on the network or FUSE filesystem of `fd` (see
    /// [`Self::dir_times`]): the one kept for its mount, else the probe's, kept
    /// if the probe could be made there.
    fn remote_times_kept(&self, fd: std::os::fd::RawFd) -> bool {
        let mount = crate::os::fstype::mount_instance(fd);
        let kept_for = self.cache.as_deref().zip(mount.as_deref());
        let now = SystemTime::now();
        if let Some(kept) = kept_for.and_then(|(dir, mount)| remote::remembered(dir, mount, now)) {
            return kept;
        }
        if self.trusting() {
            // No probe: it writes.
            return false;
        }
        let verdict = remote::directory_times_kept(fd);
        if let (Some(kept), Some((dir, mount))) = (verdict, kept_for) {
            remote::remember(dir, mount, kept, now);
        }
        verdict.unwrap_or(false)
    }

    /// Takes what a worker recorded, once its walk is over.
    pub fn collect(&self, recorder: Recorder) {
        if !recorder.is_empty() {
            self.collected
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(recorder);
        }
    }

    /// Writes each file that has new records: the old records not listed again,
    /// the new ones, less the records no directory of the index leads to any more
    /// (a directory removed or renamed); or, when every directory listed again
    /// kept its entries, the old file with their new stamps written over it
    /// (`Parsed::patched`). A failure (a full disk) is one warning; the old file
    /// stays.
    pub fn finish(mut self, reporter: &Reporter) {
        let mut collected = self
            .collected
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let now = SystemTime::now();
        for (at, file) in self.files.iter_mut().enumerate() {
            if !file.writable {
                continue;
            }
            if recorder::recorded_in(&collected, at).next().is_none() {
                continue;
            }
            let header = Header {
                uid: store_euid(),
                written: format::unix_time(now).0,
                root_id: file.root_id,
                root: file.root.clone(),
            };
            let written = match file.old.as_mut() {
                // A first run's records are all new, each reached from the root:
                // written in the workers' order, without the map and the walk
                // from the root a repeat needs (2.7 ms of the first run on `/usr`),
                // unless a key came twice.
                None => recorder::write_first(&header, &mut collected, at, (&file.dir, &file.name))
                    .or_else(|| {
                        merged(&header, recorder::recorded_in(&collected, at), None)
                            .map(|bytes| store::write(&file.dir, &file.name, &bytes))
                    }),
                Some(old) => match old.patched(&header, recorder::recorded_in(&collected, at)) {
                    Some(bytes) => Some(store::write(&file.dir, &file.name, bytes)),
                    None => merged(
                        &header,
                        recorder::recorded_in(&collected, at),
                        file.old.as_ref(),
                    )
                    .map(|bytes| store::write(&file.dir, &file.name, &bytes)),
                },
            };
            // `None`: nothing to write (`merged` keeps one record a key).
            let Some(written) = written else {
                continue;
            };
            match written {
                Ok(()) if file.old.is_none() => {
                    store::prune(&file.dir, now);
                }
                Ok(()) => {}
                Err(err) => reporter
                    .warning(format!("--index: {err}; the index was not updated").as_bytes()),
            }
        }
    }
}

fn store_euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The key of `canonical`'s own directory in the index of `above`, an ancestor or
/// itself: its path below `above`, a `/` after each name.
fn below_key(canonical: &[u8], above: &[u8]) -> u64 {
    let rest = &canonical[above.len()..];
    let rest = rest.strip_prefix(b"/").unwrap_or(rest);
    if rest.is_empty() {
        return ROOT_KEY;
    }
    format::key_after(format::key_after(ROOT_KEY, rest), b"/")
}

/// The file put together from `recorded` and the records of `old` not listed
/// again, less those no recorded directory leads to any more.
fn merged<'a>(
    header: &Header,
    recorded: impl Iterator<Item = &'a [u8]>,
    old: Option<&'a Parsed>,
) -> Option<crate::os::whole_file::WholeFile> {
    let mut records: format::KeyMap<&[u8]> = format::KeyMap::default();
    for bytes in recorded {
        records.insert(u64::from_le_bytes(bytes[..8].try_into().unwrap()), bytes);
    }
    if let Some(old) = old {
        for (record, bytes) in old.records() {
            records.entry(record.key).or_insert(bytes);
        }
    }
    format::put_file(header, &reachable(&records))
}

/// The records a path of recorded directories leads to from the root's.
fn reachable<'a>(records: &format::KeyMap<&'a [u8]>) -> Vec<&'a [u8]> {
    let mut kept = Vec::with_capacity(records.len());
    let mut seen = format::KeySet::default();
    let mut todo = vec![ROOT_KEY];
    while let Some(key) = todo.pop() {
        let Some(&bytes) = records.get(&key) else {
            continue;
        };
        if !seen.insert(key) {
            continue;
        }
        kept.push(bytes);
        let Some((record, _)) = format::Record::parse(bytes) else {
            continue;
        };
        for (name, kind) in record.entries() {
            use crate::os::dirent::EntryKind::*;
            // Links lead to directories under -L; an unknown kind may be one.
            if matches!(kind, Dir | Symlink | Unknown) {
                todo.push(format::child_key(key, &name[..name.len() - 1]));
            }
        }
    }
    kept
}

/// How long ago `written` (seconds since the epoch) was, in words.
fn age_words(written: i64) -> String {
    let secs = (format::unix_time(SystemTime::now()).0 - written).max(0);
    match secs {
        0..=119 => format!("{secs} seconds"),
        120..=7199 => format!("{} minutes", secs / 60),
        7200..=172_799 => format!("{} hours", secs / 3600),
        _ => format!("{} days", secs / 86400),
    }
}

/// How far the directory times of device `dev` are trusted, if `devices` (the
/// run's, or a worker's copy of what it asked) holds it.
#[inline]
pub(super) fn times_of(devices: &[(u64, DirTimes)], dev: u64) -> Option<DirTimes> {
    devices
        .iter()
        .find(|(d, _)| *d == dev)
        .map(|&(_, times)| times)
}

/// `--index-list`: every index of this user, one line each.
pub fn list_text() -> Result<String, String> {
    let dir =
        store::cache_dir().ok_or("no cache directory (neither XDG_CACHE_HOME nor HOME is set)")?;
    store::checked_dir(&dir).map_err(|e| e.to_string())?;
    let mut text = String::new();
    for listed in store::list(&dir).map_err(|e| e.to_string())? {
        let root = match &listed.header {
            Ok(header) => String::from_utf8_lossy(&header.root).into_owned(),
            Err(why) => format!("(unusable: {why})"),
        };
        let written = listed.header.as_ref().map_or_else(
            |_| "-".to_owned(),
            |h| format!("{} ago", age_words(h.written)),
        );
        text.push_str(&format!(
            "{root}\t{} directories\t{} bytes\twritten {written}\t{}\n",
            listed.records,
            listed.size,
            listed.path.display()
        ));
    }
    Ok(text)
}

/// `--index-drop`: removes the index of each root in `roots` (its own, not that
/// of a directory above it); returns the lines to print.
pub fn drop_roots(roots: &[OsString]) -> Result<Vec<String>, String> {
    let dir =
        store::cache_dir().ok_or("no cache directory (neither XDG_CACHE_HOME nor HOME is set)")?;
    store::checked_dir(&dir).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    for root in roots {
        let not_there = |e: &std::io::Error| {
            format!(
                "{}: {}",
                Path::new(root).display(),
                crate::report::describe(e)
            )
        };
        let index_of = |root: &Path| dir.join(store::file_name(root.as_os_str().as_bytes()));
        let canonical = match std::fs::canonicalize(root) {
            Ok(canonical) => canonical,
            // A root deleted since it was indexed: its index is found by the path
            // as given, made absolute as `--index-list` shows it; with none there,
            // the path is wrong, and said so.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let gone = std::env::current_dir()
                    .map(|cwd| lexically_absolute(&cwd, Path::new(root)))
                    .map_err(|e| not_there(&e))?;
                if std::fs::symlink_metadata(index_of(&gone)).is_err() {
                    return Err(not_there(&err));
                }
                gone
            }
            Err(err) => return Err(not_there(&err)),
        };
        let path = index_of(&canonical);
        match std::fs::remove_file(&path) {
            Ok(()) => lines.push(format!("dropped the index of {}", canonical.display())),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                lines.push(format!("{} has no index", canonical.display()))
            }
            Err(err) => {
                return Err(format!(
                    "{}: {}",
                    path.display(),
                    crate::report::describe(&err)
                ))
            }
        }
    }
    Ok(lines)
}

/// `path` below `cwd` if it is relative, with `.` and `..` taken away by name
/// (a path that no longer exists has no links left to follow).
fn lexically_absolute(cwd: &Path, path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::from("/");
    for component in cwd.join(path).components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_root_is_made_absolute_by_its_names() {
        let cwd = Path::new("/home/u/src");
        let cases = [
            ("proj", "/home/u/src/proj"),
            ("./proj/", "/home/u/src/proj"),
            ("../old/./x/..", "/home/u/old"),
            ("/tmp//gone/", "/tmp/gone"),
            ("/../..", "/"),
        ];
        for (given, want) in cases {
            assert_eq!(
                lexically_absolute(cwd, Path::new(given)),
                Path::new(want),
                "{given}"
            );
        }
    }

    #[test]
    fn a_subdirectory_is_keyed_by_its_path_below_the_indexed_root() {
        assert_eq!(below_key(b"/usr", b"/usr"), ROOT_KEY);
        assert_eq!(
            below_key(b"/usr/share/doc", b"/usr"),
            format::child_key(format::child_key(ROOT_KEY, b"share"), b"doc")
        );
        assert_eq!(
            below_key(b"/usr", b"/"),
            format::child_key(ROOT_KEY, b"usr")
        );
    }

    #[test]
    fn only_what_the_root_leads_to_is_kept() {
        use crate::os::dirent::EntryKind;
        let record = |key: u64, entries: &[(&[u8], EntryKind)]| {
            let kinds: Vec<u8> = entries.iter().map(|&(_, k)| format::kind_byte(k)).collect();
            let names: Vec<u8> = entries
                .iter()
                .flat_map(|(n, _)| n.iter().copied().chain([0]))
                .collect();
            let mut out = Vec::new();
            let lens: Vec<u8> = entries.iter().map(|(n, _)| n.len() as u8).collect();
            format::put_record(
                &mut out,
                key,
                &Stamps::default(),
                0,
                (&kinds, &lens),
                [&names[..]],
            );
            out
        };
        let a = format::child_key(ROOT_KEY, b"a");
        let gone = format::child_key(ROOT_KEY, b"gone");
        let link = format::child_key(ROOT_KEY, b"l");
        let records = [
            record(
                ROOT_KEY,
                &[
                    (b"a", EntryKind::Dir),
                    (b"f", EntryKind::File),
                    (b"l", EntryKind::Symlink),
                ],
            ),
            record(a, &[]),
            record(gone, &[]),
            record(link, &[]),
        ];
        let map: format::KeyMap<&[u8]> = records
            .iter()
            .map(|r| (u64::from_le_bytes(r[..8].try_into().unwrap()), r.as_slice()))
            .collect();
        let mut kept: Vec<u64> = reachable(&map)
            .iter()
            .map(|r| u64::from_le_bytes(r[..8].try_into().unwrap()))
            .collect();
        kept.sort_unstable();
        let mut want = vec![ROOT_KEY, a, link];
        want.sort_unstable();
        assert_eq!(kept, want);
    }

    #[test]
    fn ages_are_in_words() {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        assert_eq!(age_words(now - 5), "5 seconds");
        assert_eq!(age_words(now - 600), "10 minutes");
        assert_eq!(age_words(now - 3 * 86400), "3 days");
    }
}
