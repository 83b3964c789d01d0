//! Opening a directory to list it: the open (a piece's or a directory's, with the
//! tests' probe around it) and, with `-L` or `-x`, what one `fstat` says of it.

use super::job::{self, DirJob};
use super::visit::Visitor;
use super::{crosses_device, DirId};
use crate::os::dirent::DirReader;
use crate::os::stat::{fstat, Fields};

/// Opens `dir`, the directory of `job` (or the piece of one that `job` is), to list
/// it; `None` when that failed, reported. The tests' probe (none in a real run) is
/// read once and asked at the open and after it.
#[inline(always)]
pub(super) fn open_for_listing(
    job: &DirJob,
    dir: &job::Dir<'_>,
    visitor: &mut Visitor<'_>,
    reader: &mut DirReader,
) -> Option<std::os::fd::OwnedFd> {
    let probe = crate::probe::installed();
    let opened = match job.piece() {
        None => {
            if let Some(probe) = probe {
                probe.opening(dir.display_path());
            }
            dir.open(visitor.config.follow)
        }
        Some(piece) => {
            visitor.found.pieces += 1;
            piece.open()
        }
    };
    let dir_fd = match opened {
        Ok(dir_fd) => dir_fd,
        Err(err) => {
            visitor.reporter.path_error(dir.display_path(), &err);
            return None;
        }
    };
    if let Some(probe) = probe {
        probe.opened(dir.display_path());
        reader.forget_kinds(probe.kinds_hidden(dir.prefix));
    }
    // Set by `identify` under -L, for this directory's children.
    visitor.here.id = None;
    Some(dir_fd)
}

/// With `-L` or `-x`, one `fstat` of `dir` (open as `fd`): its root's device and
/// whether it is on another one (`-x`), its identity in the chain `-L` checks for
/// loops (`visitor.here.id`). `None` when it is not to be listed: a mount point
/// under `-x` (listed with `-t e`, only to see whether it is empty, as
/// `find -xdev -empty`, bfs and fd do), a loop under `-L`, or an `fstat` that
/// failed; the last two reported.
#[inline(never)]
pub(super) fn identify(
    job: &DirJob,
    dir: &job::Dir<'_>,
    fd: std::os::fd::RawFd,
    visitor: &mut Visitor<'_>,
) -> Option<(Option<u64>, bool)> {
    let config = visitor.config;
    let stat = match fstat(fd, Fields::ID) {
        Ok(stat) => stat,
        Err(err) => {
            visitor.reporter.path_error(dir.display_path(), &err);
            return None;
        }
    };
    let (dev, ino) = stat.id();
    let crossing = config.one_file_system && crosses_device(job.root_dev(), dev);
    if crossing && !job.print_if_empty() {
        return None;
    }
    if config.follow {
        // Links into an ancestor are caught before they are queued; this catches
        // the rest (a bind mount of an ancestor, say).
        if let Some(parent) = job.parent_id() {
            if parent.is_on_path(dev, ino) {
                visitor.report_loop(dir.display_path());
                return None;
            }
        }
        visitor.here.id = Some(DirId::new(dev, ino, job.parent_id().cloned()));
    }
    Some((Some(dev), crossing))
}
