//! Runs one walk: classifies the roots, seeds the pool, runs the workers inside a
//! `thread::scope`, and adds up what they found.
//!
//! Roots are handled as `find -P` handles them: a directory is walked; a regular file
//! is itself a candidate (printed as typed if it matches); a symbolic link is not
//! followed (write `link/` to walk the directory it points to); a root that does not
//! exist, or is a FIFO, socket or device, is reported as an error and the other roots
//! are still walked.

use crate::config::{Config, OutputMode};
use crate::descriptors;
use crate::dirent::{DirReader, EntryKind, ReaderKind};
use crate::output::Output;
use crate::queue::Pool;
use crate::report::Reporter;
use crate::walker::{name_passes, size_passes, DirJob, Walker};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What a finished walk found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of files that matched (and, in path mode, were printed).
    pub matches: u64,
}

/// Walks every root in `config` and sends matches to `output`. Problems along the way
/// are reported through `reporter`; the walk itself only stops early if the output
/// goes away.
pub fn run(config: &Config, output: &Output, reporter: &Reporter) -> Summary {
    run_with_reader(config, output, reporter, ReaderKind::native())
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
    let mut root_dirs = Vec::new();
    let mut root_files = Vec::new();
    for root in &config.roots {
        let root = root.as_bytes();
        match classify_root(root) {
            Ok(EntryKind::Dir) => {
                let printed_as: &[u8] = if config.implicit_root { b"" } else { root };
                root_dirs.push(DirJob::root(printed_as));
            }
            Ok(EntryKind::File) => root_files.push(root),
            Ok(EntryKind::Symlink) => {} // not followed, and not a regular file
            Ok(_) => {
                reporter.path_error(root, &io::Error::other("not a directory or regular file"))
            }
            Err(err) => reporter.path_error(root, &err),
        }
    }
    summary.matches += match_root_files(config, output, reporter, &root_files);
    if root_dirs.is_empty() || output.is_closed() {
        return summary;
    }

    let threads = descriptors::configure(config.threads);
    let (pool, slots) = Pool::new(threads);
    pool.push_dirs(&slots[0], root_dirs.into_iter());
    let per_worker: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = slots
            .into_iter()
            .map(|slot| {
                let pool = &pool;
                std::thread::Builder::new()
                    .name(format!("pfind-worker-{}", slot.index()))
                    .spawn_scoped(scope, move || {
                        let reader = DirReader::new(reader, crate::config::DIRENT_BUFFER_SIZE);
                        Walker::new(config, pool, output, reporter, reader).run(slot)
                    })
                    .expect("failed to start a worker thread")
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    summary.matches += per_worker.iter().sum::<u64>();
    summary
}

fn classify_root(root: &[u8]) -> io::Result<EntryKind> {
    let path = Path::new(std::ffi::OsStr::from_bytes(root));
    let metadata = std::fs::symlink_metadata(path)?;
    Ok(EntryKind::from_mode(metadata.mode() as libc::mode_t))
}

/// Roots that are regular files: each is a candidate under its own basename.
fn match_root_files(config: &Config, output: &Output, reporter: &Reporter, roots: &[&[u8]]) -> u64 {
    let mut matches = 0;
    let mut buffer = Vec::new();
    for &root in roots {
        let path = Path::new(std::ffi::OsStr::from_bytes(root));
        let name = path.file_name().map_or(root, |name| name.as_bytes());
        if !name_passes(config, name) {
            continue;
        }
        if !config.size_filters.is_empty() {
            match std::fs::symlink_metadata(path) {
                Ok(metadata) if size_passes(config, metadata.len()) => {}
                Ok(_) => continue,
                Err(err) => {
                    reporter.path_error(root, &err);
                    continue;
                }
            }
        }
        matches += 1;
        if let OutputMode::Paths { terminator } = config.output {
            buffer.extend_from_slice(root);
            buffer.push(terminator);
        }
    }
    if !buffer.is_empty() {
        output.deliver(&buffer, reporter);
    }
    matches
}
