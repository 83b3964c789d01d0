//! Runs one walk: classifies the roots, seeds the pool, runs the workers inside a
//! `thread::scope`, and adds up what they found.
//!
//! Roots are handled as `find -P` handles them: a directory is walked (it is depth 0
//! and never printed itself, as in fd); a regular file is itself a candidate (printed
//! as typed if it matches); a symbolic link is not followed unless `-L` is given (write
//! `link/` to walk the directory it points to) and is a candidate for `-t l`; a FIFO,
//! socket or device is a candidate too, which nothing matches (as `find fifo -type f`
//! prints nothing and succeeds); a root that does not exist is reported as an error
//! and the other roots are still walked. Roots that are candidates are handed to the first
//! worker, which tests them with the same code as any entry.

use crate::config::Config;
use crate::descriptors;
use crate::dirent::{stat_at, DirReader, EntryKind, ReaderKind};
use crate::output::{MatchLimit, Output};
use crate::queue::Pool;
use crate::report::Reporter;
use crate::walker::{DirJob, Summary, Walker};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

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
    kind: EntryKind,
    stat: libc::stat,
}

impl RootEntry {
    /// The printed path split before its last component: the directory part (empty
    /// or ending in `/`) and the name the name filters test. A root that is not a
    /// directory never ends in `/` (the kernel refuses `file/`), so the last component
    /// is its basename.
    fn dir_and_name(&self) -> (&[u8], &[u8]) {
        let cut = self
            .printed
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(0, |slash| slash + 1);
        self.printed.split_at(cut)
    }
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
            // Depth 0 is the root itself, never printed: list it only if its entries
            // may be printed.
            Ok((EntryKind::Dir, _)) if !config.filter.scope(0).descend => {}
            Ok((EntryKind::Dir, stat)) => root_dirs.push(DirJob::root(&printed).identified(&stat)),
            Ok((kind, stat)) => {
                root_entries.push(RootEntry {
                    printed,
                    kind,
                    stat,
                });
            }
            Err(err) => reporter.root_error(root, &err),
        }
    }
    // Without a directory to walk, there is no budget to set nor peer to start.
    let threads = if root_dirs.is_empty() {
        1
    } else {
        descriptors::configure(config.threads)
    };
    let (pool, mut slots) = Pool::new(threads);
    let make_walker = |reader_kind| {
        let reader = DirReader::new(reader_kind, crate::config::DIRENT_BUFFER_SIZE);
        Walker::new(config, &pool, output, reporter, reader, limit.as_ref())
    };
    // This thread is worker 0. It starts alone and brings in the others only once it
    // has directories to share: small trees are dominated by start-up, and starting a
    // thread costs about as much as listing a small directory.
    let first_slot = slots.remove(0);
    let mut first = make_walker(reader);
    // Roots that are files come first, and are delivered at once: if that fills
    // `--max-results` or finds the output closed, the pool is stopped and no
    // directory is listed.
    for root in &root_entries {
        let (dir, name) = root.dir_and_name();
        first.visit_root(dir, name, root.kind, &root.stat);
    }
    first.flush();
    if !pool.is_stopped() {
        pool.push_dirs(&first_slot, root_dirs.into_iter());
    }
    if threads == 1 || !first.run_until_shareable(&first_slot) {
        summary.add(first.run(&first_slot));
        return summary;
    }
    let per_worker: Vec<Summary> = std::thread::scope(|scope| {
        // A thread that cannot start (RLIMIT_NPROC, a container's pids.max, no memory
        // for its stack) is no reason to fail: the walk goes on with the workers that
        // did, this one at least. A slot left without a thread keeps an empty deque
        // that nobody pushes to, and a parker nobody waits on.
        let handles: Vec<_> = slots
            .into_iter()
            .map_while(|slot| {
                let make_walker = &make_walker;
                std::thread::Builder::new()
                    .name(format!("pfind-worker-{}", slot.index()))
                    .spawn_scoped(scope, move || make_walker(reader).run(&slot))
                    .ok()
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
