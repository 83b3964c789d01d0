//! Where indexes live and how they are read and written: one file per indexed
//! root under `$XDG_CACHE_HOME/pfind` (`~/.cache/pfind`), named by a hash of the
//! root's canonical path; the directory 0700 and each file 0600, both owned by the
//! user, or not read at all (an index holds only names its user could list, and
//! one planted by someone else must not answer for them). A file is written to a
//! temporary name beside it and renamed over the old one, so a reader sees the
//! old file or the new one whole, and two pfinds writing at once each leave a
//! whole file. Read whole (`os::whole_file`: mapped under a read lease where
//! Linux gives one, so that no truncation can turn it into a SIGBUS; else read
//! into memory). A network filesystem's probe verdict (`index::remote`) is kept
//! here too, one small file a mount.

use super::format;
use crate::os::whole_file::WholeFile;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How many indexes are kept; the least recently used beyond that are removed.
const KEEP_AT_MOST: usize = 64;
/// An index not used for this long is removed.
const KEEP_FOR: Duration = Duration::from_secs(90 * 24 * 3600);
/// A used index's time is brought forward at most this often (one `utimensat`),
/// so that pruning by age spares it.
const TOUCH_EVERY: Duration = Duration::from_secs(24 * 3600);

/// How the name of a network filesystem's probe verdict begins (`index::remote`):
/// what `prune` tells them by.
pub const VERDICT_PREFIX: &str = "probe-";

/// Where this user's indexes are: `$XDG_CACHE_HOME/pfind`, else `~/.cache/pfind`.
pub fn cache_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME") {
        // The specification says a relative value is to be ignored.
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?).join(".cache"),
    };
    Some(base.join("pfind"))
}

/// The file name of the index of the root whose canonical path is `root`.
pub fn file_name(root: &[u8]) -> OsString {
    let hash = format::key_after(format::ROOT_KEY, root);
    OsString::from(format!("index-{hash:016x}"))
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Checks that `meta` (of the cache directory or an index file) is the user's
/// own and that nobody else may write it.
fn owned(meta: &fs::Metadata, what: &Path) -> io::Result<()> {
    if meta.uid() != euid() {
        return Err(io::Error::other(format!(
            "{}: owned by another user (uid {}); not used",
            what.display(),
            meta.uid()
        )));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "{}: writable by others; not used",
            what.display()
        )));
    }
    Ok(())
}

/// The cache directory, checked: `Ok(None)` if it does not exist yet.
pub fn checked_dir(dir: &Path) -> io::Result<Option<()>> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => owned(&meta, dir).map(Some),
        Ok(_) => Err(io::Error::other(format!(
            "{}: not a directory",
            dir.display()
        ))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(io::Error::new(
            err.kind(),
            format!("{}: {}", dir.display(), crate::report::describe(&err)),
        )),
    }
}

/// The bytes of the index file `path`, if there is one: `Ok(None)` when there is
/// none; an error (to be warned about) when it is not the user's or not readable.
pub fn read(path: &Path) -> io::Result<Option<WholeFile>> {
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(named(path, err)),
    };
    let meta = file.metadata().map_err(|err| named(path, err))?;
    if !meta.is_file() {
        return Err(io::Error::other(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    owned(&meta, path)?;
    let bytes = WholeFile::read(&file, meta.len() as usize).map_err(|err| named(path, err))?;
    if SystemTime::now()
        .duration_since(meta.modified().unwrap_or(SystemTime::UNIX_EPOCH))
        .is_ok_and(|age| age > TOUCH_EVERY)
    {
        let _ = file.set_modified(SystemTime::now());
    }
    Ok(Some(bytes))
}

fn named(path: &Path, err: io::Error) -> io::Error {
    io::Error::new(
        err.kind(),
        format!("{}: {}", path.display(), crate::report::describe(&err)),
    )
}

/// Writes `bytes` as the index file `name` in `dir` (made 0700 if missing): to a
/// temporary file first, renamed over the old one. On failure (a full disk) the
/// temporary file is removed and the old index, if any, stays as it was.
pub fn write(dir: &Path, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
    write_parts(dir, name, &[bytes])
}

/// [`write`] of a file in `parts`, one after the other, written as they lie
/// (`writev`): a first run's records are not copied into one buffer first (a
/// million-entry directory's 23 MB, in fresh pages).
pub fn write_parts(dir: &Path, name: &OsStr, parts: &[&[u8]]) -> io::Result<()> {
    if checked_dir(dir)?.is_none() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|err| named(dir, err))?;
        // The mode asked for is subject to the umask; the directory must be 0700.
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|err| named(dir, err))?;
        checked_dir(dir)?;
    }
    let nonce = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut temp_name = name.to_owned();
    temp_name.push(format!(".tmp.{}.{nonce:x}", std::process::id()));
    let temp = dir.join(&temp_name);
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&temp)?;
        write_all_parts(&mut file, parts)?;
        file.flush()?;
        replace(&temp, &dir.join(name))
    })();
    if let Err(err) = written {
        let _ = fs::remove_file(&temp);
        return Err(named(&dir.join(name), err));
    }
    Ok(())
}

/// Writes `parts` to `file`, in order, whole: at most `IOV_MAX` (1,024 on
/// Linux and the BSDs) at a time.
fn write_all_parts(file: &mut fs::File, parts: &[&[u8]]) -> io::Result<()> {
    use std::io::IoSlice;
    const AT_ONCE: usize = 1024;
    let mut slices: Vec<IoSlice<'_>> = (parts.iter())
        .filter(|part| !part.is_empty())
        .map(|part| IoSlice::new(part))
        .collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        let now = rest.len().min(AT_ONCE);
        match file.write_vectored(&rest[..now]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut rest, written),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Puts the file `temp` at `path` in one step: a reader sees the old file or the
/// new one, whole. On Linux the two are exchanged (`renameat2(RENAME_EXCHANGE)`)
/// and the old one, now at `temp`, removed: a `rename` over an existing file makes
/// ext4 allocate and start writing the new file's blocks at once (its
/// `auto_da_alloc`, for files that must survive a crash), 15 to 18 ms of a repeat
/// search that changed 1% of `/usr`'s directories, for a cache that a crash may
/// lose (a torn index is refused by its checksum, and rebuilt). Where there is no
/// old file, or the filesystem cannot exchange, a plain `rename`.
fn replace(temp: &Path, path: &Path) -> io::Result<()> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes());
        if let (Ok(from), Ok(to)) = (c(temp), c(path)) {
            // SAFETY: two NUL-terminated paths; renameat2 reads them and
            // changes nothing in this process's memory.
            let exchanged = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    from.as_ptr(),
                    libc::AT_FDCWD,
                    to.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            } == 0;
            if exchanged {
                // The old index, at the temporary name now: left for the next
                // prune if it cannot be removed; the new one is in place.
                let _ = fs::remove_file(temp);
                return Ok(());
            }
        }
    }
    fs::rename(temp, path)
}

/// One index in the cache directory, as `--index-list` shows it.
pub struct Listed {
    pub path: PathBuf,
    pub size: u64,
    pub modified: SystemTime,
    /// Its header, or why it cannot be used.
    pub header: Result<format::Header, String>,
    pub records: usize,
}

/// Every index file in `dir`, most recently used first.
pub fn list(dir: &Path) -> io::Result<Vec<Listed>> {
    let mut found = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(found),
        Err(err) => return Err(named(dir, err)),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !is_index_name(entry.file_name().as_bytes()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let (header, records) = match read(&path) {
            Ok(Some(bytes)) => match format::Parsed::new(bytes) {
                Ok(parsed) => (Ok(parsed.header.clone()), parsed.len()),
                Err(why) => (Err(why.words()), 0),
            },
            Ok(None) => continue,
            Err(err) => (Err(err.to_string()), 0),
        };
        found.push(Listed {
            path,
            size: meta.len(),
            modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            header,
            records,
        });
    }
    found.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    Ok(found)
}

/// `index-` and sixteen hexadecimal digits, or a temporary file left by a pfind
/// that was killed while writing (`.tmp.` after them).
fn is_index_name(name: &[u8]) -> bool {
    name.len() >= 22
        && name.starts_with(b"index-")
        && name[6..22].iter().all(u8::is_ascii_hexdigit)
        && (name.len() == 22 || name[22..].starts_with(b".tmp."))
}

/// Removes the indexes of `dir` beyond [`KEEP_AT_MOST`] and those older than
/// [`KEEP_FOR`], temporary files more than a day old, and probe verdicts
/// untouched for two days. Returns how many.
pub fn prune(dir: &Path, now: SystemTime) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut kept = Vec::new();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let verdict = name.as_bytes().starts_with(VERDICT_PREFIX.as_bytes());
        if !verdict && !is_index_name(name.as_bytes()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let age = now.duration_since(modified).unwrap_or_default();
        if verdict {
            // A mount's verdict (`index::remote`), used for a day: two days
            // untouched, its mount is gone.
            if age > 2 * TOUCH_EVERY {
                removed += usize::from(fs::remove_file(entry.path()).is_ok());
            }
            continue;
        }
        let temporary = name.len() > 22;
        if (temporary && age > TOUCH_EVERY) || age > KEEP_FOR {
            removed += usize::from(fs::remove_file(entry.path()).is_ok());
        } else if !temporary {
            kept.push((modified, entry.path()));
        }
    }
    kept.sort_by_key(|&(modified, _)| std::cmp::Reverse(modified));
    for (_, path) in kept.iter().skip(KEEP_AT_MOST) {
        removed += usize::from(fs::remove_file(path).is_ok());
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    #[test]
    fn index_names_are_recognised_exactly() {
        assert!(is_index_name(b"index-0123456789abcdef"));
        assert!(is_index_name(b"index-0123456789abcdef.tmp.12.ff"));
        assert!(!is_index_name(b"index-0123456789abcdeg"));
        assert!(!is_index_name(b"index-0123"));
        assert!(!is_index_name(b"index-0123456789abcdef.bak"));
        assert!(!is_index_name(b"notes.txt"));
        let name = file_name(b"/usr");
        assert!(is_index_name(name.as_bytes()));
        assert_ne!(name, file_name(b"/usr/"));
    }

    #[test]
    fn written_files_are_the_users_alone_and_replace_the_old_one() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache/pfind");
        let name = file_name(b"/x");
        write(&dir, &name, b"first").unwrap();
        write(&dir, &name, b"second").unwrap();
        assert_eq!(&read(&dir.join(&name)).unwrap().unwrap()[..], b"second");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join(&name)), 0o600);
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        assert!(read(&dir.join("index-missing")).unwrap().is_none());
    }

    #[test]
    fn a_file_in_parts_is_written_whole_past_the_parts_one_call_takes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache/pfind");
        let name = file_name(b"/parts");
        // More parts than one `writev` takes, some empty, one large.
        let large = vec![7u8; 300_000];
        let small: Vec<Vec<u8>> = (0..2_500u32).map(|i| i.to_le_bytes().to_vec()).collect();
        let mut parts: Vec<&[u8]> = small.iter().map(Vec::as_slice).collect();
        parts.insert(1_200, &large);
        parts.insert(7, &[]);
        write_parts(&dir, &name, &parts).unwrap();
        assert_eq!(
            &read(&dir.join(&name)).unwrap().unwrap()[..],
            &parts.concat()[..]
        );
    }

    #[test]
    fn a_file_others_may_write_is_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index-0000000000000000");
        fs::write(&path, b"x").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        assert!(read(&path).is_err());
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        assert!(read(&path).unwrap().is_some());
        std::os::unix::fs::symlink(&path, tmp.path().join("index-1111111111111111")).unwrap();
        assert!(
            read(&tmp.path().join("index-1111111111111111")).is_err(),
            "a link is not followed"
        );
    }

    #[test]
    fn pruning_keeps_the_most_recent() {
        let tmp = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        for i in 0..(KEEP_AT_MOST + 3) {
            let path = tmp.path().join(format!("index-{i:016x}"));
            fs::write(&path, b"x").unwrap();
            let file = File::options().write(true).open(&path).unwrap();
            file.set_modified(now - Duration::from_secs(i as u64 * 60))
                .unwrap();
        }
        let old = tmp.path().join("index-ffffffffffffffff");
        fs::write(&old, b"x").unwrap();
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(now - KEEP_FOR - Duration::from_secs(1))
            .unwrap();
        fs::write(tmp.path().join("unrelated"), b"x").unwrap();
        // Probe verdicts: a recent one stays, one untouched for two days goes.
        let verdict = |name: &str, age: Duration| {
            let path = tmp.path().join(name);
            fs::write(&path, b"x").unwrap();
            let file = File::options().write(true).open(&path).unwrap();
            file.set_modified(now - age).unwrap();
            path
        };
        let recent = verdict("probe-0000000000000001", TOUCH_EVERY);
        let gone = verdict(
            "probe-0000000000000002",
            2 * TOUCH_EVERY + Duration::from_secs(1),
        );
        assert_eq!(prune(tmp.path(), now), 5);
        assert!(recent.exists());
        assert!(!gone.exists());
        assert!(tmp.path().join("index-0000000000000000").exists());
        assert!(!tmp
            .path()
            .join(format!("index-{:016x}", KEEP_AT_MOST + 2))
            .exists());
        assert!(!old.exists());
        assert!(tmp.path().join("unrelated").exists());
    }
}
