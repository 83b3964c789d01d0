//! File descriptors the walk keeps open, and the budget that bounds them.
//!
//! A directory is opened relative to an open ancestor (an [`Anchor`]) rather than by
//! its full path: the kernel then resolves one component instead of all of them, and
//! paths longer than `PATH_MAX` keep working. After a directory has been listed, its
//! descriptor is kept as the anchor of its subdirectories if the budget allows, and
//! closed when the last of them has been opened and read (the anchor is reference
//! counted). When the budget is used up, children inherit their parent's anchor and
//! are opened by a longer relative path instead, so the number of descriptors held
//! never depends on the shape of the tree.
//!
//! The budget comes from `RLIMIT_NOFILE`: the soft limit is first raised towards the
//! hard limit (as bfs does), then three descriptors are left for stdio, a few for
//! slack, two for each worker (the directory it is reading, plus one more while it
//! opens a long path piece by piece), and the rest may be anchors. Under a very low
//! limit the number of workers shrinks so that this arithmetic still holds.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Descriptors never used by the walk: stdin, stdout, stderr, and two spare.
const RESERVED: usize = 5;
/// Descriptors a worker may hold at once besides anchors.
const PER_WORKER: usize = 2;
/// Enough anchors for any tree shape seen in practice; beyond this, keeping more open
/// only costs kernel memory.
const MAX_ANCHORS: usize = 4096;
/// The soft limit is raised to at most this (or the hard limit, if lower).
const WANTED_SOFT_LIMIT: u64 = (MAX_ANCHORS as u64) * 2;

// Process-wide, like the resource limit they account for.
static ANCHORS_OPEN: AtomicUsize = AtomicUsize::new(0);
static ANCHOR_LIMIT: AtomicUsize = AtomicUsize::new(0);

/// An open directory that descendants are opened relative to.
#[derive(Debug)]
pub struct Anchor {
    fd: OwnedFd,
    /// Length of the directory's printed prefix (its path plus the trailing `/`), so a
    /// descendant's path relative to it is the descendant's prefix past this point.
    prefix_len: usize,
}

impl Anchor {
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    pub fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    /// Keeps `fd` open as an anchor if the budget allows, or gives it back.
    pub fn keep(fd: OwnedFd, prefix_len: usize) -> Result<Arc<Anchor>, OwnedFd> {
        let limit = ANCHOR_LIMIT.load(Ordering::Relaxed);
        let reserved = ANCHORS_OPEN.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |open| {
            (open < limit).then_some(open + 1)
        });
        match reserved {
            Ok(_) => Ok(Arc::new(Anchor { fd, prefix_len })),
            Err(_) => Err(fd),
        }
    }
}

impl Drop for Anchor {
    fn drop(&mut self) {
        // The descriptor itself is closed by `OwnedFd`'s own drop right after this.
        ANCHORS_OPEN.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Sets the budget for a walk with `requested` workers and returns how many workers
/// the descriptor limit allows (at least one).
pub fn configure(requested: usize) -> usize {
    let limit = raise_soft_limit();
    let (workers, anchors) = split_budget(limit, requested);
    ANCHOR_LIMIT.store(anchors, Ordering::Relaxed);
    workers
}

/// The pure arithmetic of [`configure`]: workers and anchors for a descriptor limit.
fn split_budget(limit: u64, requested: usize) -> (usize, usize) {
    let available = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_sub(RESERVED);
    // Each worker needs PER_WORKER descriptors, and we want at least one anchor per
    // worker so deep trees are still opened relative to a parent.
    let affordable = (available / (PER_WORKER + 1)).max(1);
    let workers = requested.clamp(1, affordable);
    let anchors = available
        .saturating_sub(workers * PER_WORKER)
        .min(MAX_ANCHORS);
    (workers, anchors)
}

/// Raises the soft `RLIMIT_NOFILE` towards the hard limit and returns the soft limit
/// now in force.
// `rlim_t` is `u64` on Linux but signed on some BSDs, so the casts are not redundant
// everywhere.
#[allow(clippy::unnecessary_cast)]
fn raise_soft_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 256; // a conservative guess; getrlimit does not fail in practice
    }
    let wanted = WANTED_SOFT_LIMIT.min(limit.rlim_max as u64);
    if (limit.rlim_cur as u64) < wanted {
        let raised = libc::rlimit {
            rlim_cur: wanted as libc::rlim_t,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: `raised` is a valid rlimit struct; raising the soft limit up to the
        // hard limit needs no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return wanted;
        }
    }
    limit.rlim_cur as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_splits_between_workers_and_anchors() {
        // A generous limit: every worker requested, anchors capped.
        assert_eq!(split_budget(1 << 20, 16), (16, MAX_ANCHORS));
        // `ulimit -n 16`: 11 usable, three workers (two each), five anchors.
        assert_eq!(split_budget(16, 16), (3, 5));
        assert_eq!(split_budget(16, 2), (2, 7));
        // Even an absurd limit leaves one worker.
        assert_eq!(split_budget(3, 8), (1, 0));
        // Workers * PER_WORKER + anchors never exceeds what is available.
        for limit in 0..200u64 {
            for requested in 1..40 {
                let (workers, anchors) = split_budget(limit, requested);
                let available = (limit as usize).saturating_sub(RESERVED);
                assert!(workers >= 1 && workers <= requested);
                if available > PER_WORKER {
                    assert!(
                        workers * PER_WORKER + anchors <= available,
                        "{limit} {requested}"
                    );
                }
            }
        }
    }
}
