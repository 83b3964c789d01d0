//! Runs one walk: classifies the roots, seeds the pool, runs the workers inside a
//! `thread::scope`, and adds up what they found.
//!
//! Roots are handled as `find -P` handles them: a directory is walked (it is depth 0
//! and never printed itself, as in fd); a regular file is itself a candidate (printed
//! as typed if it matches); a symbolic link is not followed unless `-L` is given (write
//! `link/` to walk the directory it points to) and is a candidate for `-t l`; a root
//! that does not exist, or is a FIFO, socket or device, is reported as an error and the
//! other roots are still walked.

use crate::config::Config;
use crate::descriptors;
use crate::dirent::{stat_at, DirReader, EntryKind, ReaderKind};
use crate::output::{MatchLimit, Output, Reservation};
use crate::queue::Pool;
use crate::report::Reporter;
use crate::walker::{name_passes, needs_stat, push_record, stat_passes, DirJob, Walker};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

/// What a walk found: the whole walk's, or one worker's share of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of entries that matched (and, in path mode, were printed).
    pub matches: u64,
    /// Their total size in bytes, when the output mode needs sizes (`-l`, `-s`).
    pub bytes: u64,
}

impl Summary {
    fn add(&mut self, other: Summary) {
        self.matches += other.matches;
        self.bytes += other.bytes;
    }
}

/// Walks every root in `config` and sends matches to `output`. Problems along the way
/// are reported through `reporter`; the walk itself only stops early if the output
/// goes away or `--max-results` is reached.
pub fn run(config: &Config, output: &Output, reporter: &Reporter) -> Summary {
    run_with_reader(config, output, reporter, ReaderKind::native())
}

/// A root that is not walked but may itself match: a regular file, or a symbolic link
/// not followed (or dangling under `-L`).
struct RootEntry {
    printed: Vec<u8>,
    name: Vec<u8>,
    kind: EntryKind,
    stat: libc::stat,
}

/// [`run`] with a chosen directory reader, so tests can check that the portable
/// reader gives the same results as the native one.
pub fn run_with_reader(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    reader: ReaderKind,
) -> Summary {
    let mut summary = Summary::default();
    // `-a`: the working directory is read once, here.
    let cwd = if config.absolute {
        match std::env::current_dir() {
            Ok(cwd) => Some(cwd.into_os_string().into_vec()),
            Err(err) => {
                reporter.error("current directory", &err);
                return summary;
            }
        }
    } else {
        None
    };
    let limit = config.max_results.map(MatchLimit::new);
    let mut root_dirs = Vec::new();
    let mut root_entries = Vec::new();
    for root in &config.roots {
        let root = root.as_bytes();
        let printed = match &cwd {
            Some(cwd) => absolute_path(cwd, root),
            None if config.implicit_root => Vec::new(),
            None => root.to_vec(),
        };
        match classify_root(root, config.follow) {
            // Depth 0 is the root itself, never printed: nothing to list.
            Ok((EntryKind::Dir, _)) if config.max_depth == 0 => {}
            Ok((EntryKind::Dir, stat)) => root_dirs.push(DirJob::root(&printed).identified(&stat)),
            Ok((kind @ (EntryKind::File | EntryKind::Symlink), stat)) => {
                let name = Path::new(std::ffi::OsStr::from_bytes(root))
                    .file_name()
                    .map_or(root, |name| name.as_bytes())
                    .to_vec();
                root_entries.push(RootEntry {
                    printed,
                    name,
                    kind,
                    stat,
                });
            }
            Ok(_) => {
                reporter.path_error(root, &io::Error::other("not a directory or regular file"))
            }
            Err(err) => reporter.path_error(root, &err),
        }
    }
    summary.add(match_root_entries(
        config,
        output,
        reporter,
        limit.as_ref(),
        &root_entries,
    ));
    let limit_reached = limit.as_ref().is_some_and(MatchLimit::is_reached);
    if root_dirs.is_empty() || output.is_closed() || limit_reached {
        return summary;
    }

    let threads = descriptors::configure(config.threads);
    let (pool, mut slots) = Pool::new(threads);
    pool.push_dirs(&slots[0], root_dirs.into_iter());
    let make_walker = |reader_kind| {
        let reader = DirReader::new(reader_kind, crate::config::DIRENT_BUFFER_SIZE);
        Walker::new(config, &pool, output, reporter, reader, limit.as_ref())
    };
    // This thread is worker 0. It starts alone and brings in the others only once it
    // has directories to share: small trees are dominated by start-up, and starting a
    // thread costs about as much as listing a small directory.
    let first_slot = slots.remove(0);
    let mut first = make_walker(reader);
    if threads == 1 || !first.run_until_shareable(&first_slot) {
        summary.add(first.run(&first_slot));
        return summary;
    }
    let per_worker: Vec<Summary> = std::thread::scope(|scope| {
        let handles: Vec<_> = slots
            .into_iter()
            .map(|slot| {
                let make_walker = &make_walker;
                std::thread::Builder::new()
                    .name(format!("pfind-worker-{}", slot.index()))
                    .spawn_scoped(scope, move || make_walker(reader).run(&slot))
                    .expect("failed to start a worker thread")
            })
            .collect();
        let mut found = vec![first.run(&first_slot)];
        found.extend(handles.into_iter().map(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }));
        found
    });
    for found in per_worker {
        summary.add(found);
    }
    summary
}

/// The root's kind and `stat`: its own, or with `-L` its target's. Under `-L` a
/// dangling link is still a link, as with `find -L`.
fn classify_root(root: &[u8], follow: bool) -> io::Result<(EntryKind, libc::stat)> {
    let c_root = CString::new(root).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let stat = match stat_at(libc::AT_FDCWD, &c_root, follow) {
        Err(err) if follow && err.raw_os_error() == Some(libc::ENOENT) => {
            stat_at(libc::AT_FDCWD, &c_root, false)?
        }
        result => result?,
    };
    Ok((EntryKind::from_mode(stat.st_mode), stat))
}

/// Roots that are files or links: each is a candidate under its own basename, at
/// depth 0 (so `--min-depth 1` leaves them out).
fn match_root_entries(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    limit: Option<&MatchLimit>,
    roots: &[RootEntry],
) -> Summary {
    let mut found = Summary::default();
    if config.min_depth > 0 {
        return found;
    }
    let mut buffer = Vec::new();
    for root in roots {
        let wanted = match root.kind {
            EntryKind::File => config.types.files,
            EntryKind::Symlink => config.links_may_match(),
            _ => false,
        };
        if !wanted || !name_passes(config, &root.name) {
            continue;
        }
        if needs_stat(config, root.kind) && !stat_passes(config, root.kind, &root.stat) {
            continue;
        }
        if limit.is_some_and(|limit| limit.reserve() == Reservation::Refused) {
            break;
        }
        let size = root.stat.st_size as u64;
        found.matches += 1;
        found.bytes += size;
        push_record(&mut buffer, config.output, [&root.printed, b""], size);
    }
    if !buffer.is_empty() {
        output.deliver(&buffer, reporter);
    }
    found
}

/// `-a`: `path` as an absolute path, joined with the working directory `cwd` when
/// relative. `.` components and repeated slashes are dropped, so `pfind -a .` prints
/// `/cwd/file` rather than `/cwd/./file`; `..` is kept, since removing it by text
/// would be wrong when the component before it is a symbolic link.
pub fn absolute_path(cwd: &[u8], path: &[u8]) -> Vec<u8> {
    let base: &[u8] = if path.starts_with(b"/") { b"" } else { cwd };
    let mut out = Vec::with_capacity(base.len() + path.len() + 1);
    for component in base.split(|&b| b == b'/').chain(path.split(|&b| b == b'/')) {
        if component.is_empty() || component == b"." {
            continue;
        }
        out.push(b'/');
        out.extend_from_slice(component);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_have_no_dot_artifacts() {
        let cases: &[(&str, &str, &str)] = &[
            ("/home/u", ".", "/home/u"),
            ("/home/u", "", "/home/u"),
            ("/home/u", "./", "/home/u"),
            ("/home/u", "dir", "/home/u/dir"),
            ("/home/u", "dir/", "/home/u/dir"),
            ("/home/u", "./a/./b//", "/home/u/a/b"),
            ("/home/u", "../x", "/home/u/../x"),
            ("/home/u", "/abs/./x", "/abs/x"),
            ("/home/u", "/", "/"),
            ("/", ".", "/"),
            ("/", "a", "/a"),
        ];
        for &(cwd, path, want) in cases {
            let got = absolute_path(cwd.as_bytes(), path.as_bytes());
            assert_eq!(String::from_utf8(got).unwrap(), want, "{cwd} + {path}");
        }
    }
}
