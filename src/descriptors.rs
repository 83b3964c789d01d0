//! File descriptors the walk keeps open, the budget that bounds them, and how a
//! directory is opened through them without ever leaving the tree.
//!
//! # Anchors
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
//! # Never leaving the tree
//!
//! Without `-L`, no component of a path below a root is followed if it is a symbolic
//! link, even one that replaced a directory after its parent was listed ([`open_dir`]):
//!
//! * from the parent's anchor, the one name is opened with `O_NOFOLLOW`;
//! * from a farther anchor, the path below it goes through
//!   [`crate::os::open::open_dir_beneath`] (`openat2` with `RESOLVE_NO_SYMLINKS`, or one
//!   `O_NOFOLLOW` open per component);
//! * with no anchor at all (a budget of none, or every anchor given up, see below),
//!   the root is opened again by its path as typed, since links the user wrote in it
//!   (`pfind link/`, `/var/run/...`) were followed at the start too; it must still
//!   be the directory the walk started from (same device and inode, else the
//!   directory is reported, not opened), and the rest of the path is opened beneath it.
//!
//! With `-L` links are followed anyway; a loop is caught by the walker's identity
//! chain instead.
//!
//! # The budget
//!
//! The soft `RLIMIT_NOFILE` is first raised towards the hard limit (as bfs does).
//! Descriptors already open below it (stdio, and whatever the parent process left
//! open, counted in `/proc/self/fd` as bfs's `infer_fdlimit` does) are taken off,
//! then those the rest of the process needs (each command's pipes, with `--exec`),
//! then two spare, then two for each worker (the directory it is reading, plus one
//! more while it opens a path a piece at a time), and the rest may be anchors. Under a
//! very low limit the number of workers shrinks so that this arithmetic still holds.
//! A descriptor a worker keeps for itself beside those (on a network root, its clock
//! of the time it waited for a CPU) takes an anchor's place, a [`HelperPlace`], when
//! one is free, and the worker does without it when none is.
//!
//! # Running out anyway
//!
//! The count can still be wrong (a limit lowered with `prlimit` mid-walk, a
//! descriptor opened by someone else in the process, a full system file table). An
//! open that fails with `EMFILE` or `ENFILE` is therefore never a lost directory:
//! the budget shrinks by one, an idle anchor is given up (closed, so that jobs that
//! relied on it fall back to the root, above), and the open is retried. When no
//! anchor is idle, the worker waits for another to close its directory, up to about
//! two seconds, before it reports the error.
//!
//! Giving up an anchor other jobs still point to is safe because nobody uses its
//! descriptor without a lease: a lease adds to the anchor's `state` word, and the
//! anchor can be closed only by changing that word from exactly zero (no lease, not
//! closed) to `REVOKED`. A lease taken after that sees `REVOKED` and is refused, so a
//! descriptor number is never used after it is closed and perhaps reused.

use crate::os::dirent::{DirReader, ReaderKind};
use crate::os::limits;
use crate::os::open::{open_dir_at, open_dir_beneath, Base};
use crate::os::rank_root;
use crate::os::stat::{fstat, Fields, Stat};
use std::io;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

/// Descriptors left unused besides those already open, for safety.
const SPARE: usize = 2;
/// Descriptors a worker may hold at once besides anchors.
const PER_WORKER: usize = 2;
/// Enough anchors for any tree shape seen in practice; beyond this, keeping more open
/// only costs kernel memory.
const MAX_ANCHORS: usize = 4096;
/// The soft limit is raised to at most this (or the hard limit, if lower).
const WANTED_SOFT_LIMIT: u64 = (MAX_ANCHORS as u64) * 2;
/// Where no directory lists the open descriptors, numbers are probed one by one up to
/// this; descriptors above it barely change a budget capped at `MAX_ANCHORS`.
const PROBE_LIMIT: u64 = WANTED_SOFT_LIMIT;
/// How long an open that ran out of descriptors waits for another worker to close
/// one, when no anchor can be given up: `MAX_WAITS` times `WAIT`.
const MAX_WAITS: u32 = 2000;
const WAIT: Duration = Duration::from_millis(1);

// Process-wide, like the resource limit they account for.
static ANCHORS_OPEN: AtomicUsize = AtomicUsize::new(0);
static ANCHOR_LIMIT: AtomicUsize = AtomicUsize::new(0);
/// Every anchor kept, for giving one up under `EMFILE`; dead entries are pruned.
static KEPT: Mutex<Vec<Weak<Anchor>>> = Mutex::new(Vec::new());

/// `Anchor::state`: set once the descriptor has been closed early.
const REVOKED: usize = 1;
/// `Anchor::state`: added by each lease.
const LEASE: usize = 2;

/// An open directory that descendants are opened relative to.
#[derive(Debug)]
pub struct Anchor {
    fd: RawFd,
    /// `REVOKED`, plus `LEASE` for each lease held; see the module comment.
    state: AtomicUsize,
    /// Length of the directory's printed prefix (its path plus the trailing `/`), so a
    /// descendant's path relative to it is the descendant's prefix past this point.
    prefix_len: usize,
}

/// The right to use an anchor's descriptor, which cannot be closed meanwhile.
struct Lease<'a>(&'a Anchor);

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.0.state.fetch_sub(LEASE, Ordering::Release);
    }
}

impl Anchor {
    /// Keeps `fd` open as an anchor if the budget allows, or gives it back. Inlined,
    /// as with one caller: a second one made it a call (0.6% of a local walk).
    #[inline(always)]
    pub fn keep(fd: OwnedFd, prefix_len: usize) -> Result<Arc<Anchor>, OwnedFd> {
        if !reserve_place() {
            return Err(fd);
        }
        let anchor = Arc::new(Anchor {
            fd: fd.into_raw_fd(),
            state: AtomicUsize::new(0),
            prefix_len,
        });
        let mut kept = lock(&KEPT);
        if kept.len() >= 2 * ANCHORS_OPEN.load(Ordering::Relaxed) + 64 {
            kept.retain(|anchor| anchor.strong_count() > 0);
        }
        kept.push(Arc::downgrade(&anchor));
        Ok(anchor)
    }

    /// The length of the directory's printed prefix (its path and a `/`).
    pub fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    /// A lease on the descriptor, or `None` once it has been given up.
    fn lease(&self) -> Option<Lease<'_>> {
        // The increment and a revoker's compare-exchange are read-modify-writes of one
        // atomic, so one of them comes first in its modification order: either the
        // revoker sees a lease and gives up, or the lease sees REVOKED. Release on the
        // lease's drop orders our use of the descriptor before a later close.
        let before = self.state.fetch_add(LEASE, Ordering::Relaxed);
        let lease = Lease(self);
        (before & REVOKED == 0).then_some(lease)
    }

    /// Closes the descriptor now if nobody holds a lease on it; true if it did.
    fn try_revoke(&self) -> bool {
        // Acquire pairs with each lease's Release on drop: every use of the
        // descriptor happens before the close.
        if self
            .state
            .compare_exchange(0, REVOKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        close(self.fd);
        release_place();
        true
    }
}

impl Drop for Anchor {
    fn drop(&mut self) {
        if *self.state.get_mut() & REVOKED == 0 {
            close(self.fd);
            release_place();
        }
    }
}

fn close(fd: RawFd) {
    // SAFETY: `fd` came from an `OwnedFd` given to `Anchor::keep` and is closed
    // exactly once: by `try_revoke` (which marks it revoked) or by `drop` (which
    // skips a revoked one).
    unsafe { libc::close(fd) };
    if let Some(probe) = crate::probe::installed() {
        probe.closed(fd);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The data (weak pointers) cannot be left inconsistent by a panic.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The root a directory was reached from: enough to open it again when no anchor
/// is left, and to check that it is still the same directory. Copied into every
/// queued directory, so kept to three words.
#[derive(Clone, Copy, Debug)]
pub struct Root {
    /// Length of the root's printed path, which starts every descendant's path.
    len: usize,
    /// The root's (device, inode) when the walk started, or `UNIDENTIFIED`.
    id: (u64, u64),
}

/// No directory has inode 0 on device 0.
const UNIDENTIFIED: (u64, u64) = (0, 0);

impl Root {
    /// A root whose printed path is `len` bytes long, not yet identified.
    pub fn new(len: usize) -> Root {
        Root {
            len,
            id: UNIDENTIFIED,
        }
    }

    /// Length of the root's printed path.
    pub fn printed_len(&self) -> usize {
        self.len
    }

    /// The root's (device, inode) when the walk started, if it was identified.
    pub fn identity(&self) -> Option<(u64, u64)> {
        (self.id != UNIDENTIFIED).then_some(self.id)
    }

    /// The same root, known to be the directory `stat` describes.
    pub fn identified(self, stat: &Stat) -> Root {
        Root {
            id: stat.id(),
            ..self
        }
    }

    /// Where the part of `path` below the root starts: past the root and the `/`
    /// that joins it to its children, unless the root ended in one already (or is
    /// the implicit root, printed as nothing).
    fn below(&self, path: &[u8]) -> usize {
        if self.len == 0 || path[self.len - 1] == b'/' {
            self.len
        } else {
            self.len + 1
        }
    }
}

/// `lstat` of `path` (one name or more) below the directory `anchor` holds open,
/// or `None` if it has been given up: the index checks a directory's stamps there
/// without opening it (`walker/unopened.rs`). Unlike [`open_dir`], names before
/// the last are followed if they are links: the index believes the answer only
/// if it names the recorded directory (device and inode) with its recorded
/// times, which a path through a link placed since could only reach if it led to
/// that same, unchanged directory. Forced inline: out of line, its 256-byte
/// answer was copied on the way back, 930,000 instructions of a repeat of `/usr`
/// (`--index -j1`, callgrind).
#[inline(always)]
pub fn lstat_in(
    anchor: &Anchor,
    path: &std::ffi::CStr,
    fields: crate::os::stat::Fields,
) -> Option<io::Result<crate::os::stat::Stat>> {
    let lease = anchor.lease()?;
    Some(crate::os::stat::lstat_at(lease.0.fd, path, fields))
}

/// Opens the directory printed as `path` for listing: relative to `anchor` if it is
/// still open (`from_parent` when that is the directory's parent, so the rest is one
/// name), else from the root (see the module comment). Unless `follow`, no symbolic
/// link below the root is followed. Running out of descriptors is waited out, not
/// reported, as long as an anchor can be given up or another worker closes a
/// directory in time. Forced inline: the walker's loop is compiled twice (with
/// and without the index) and LLVM then made it a call, 1.07M instructions on
/// `/usr -j1 -c` (callgrind).
#[inline(always)]
pub fn open_dir(
    path: &[u8],
    anchor: Option<&Anchor>,
    from_parent: bool,
    root: &Root,
    follow: bool,
) -> io::Result<OwnedFd> {
    let mut waits = 0;
    loop {
        match open_once(path, anchor, from_parent, root, follow) {
            Err(err) if out_of_descriptors(&err) && relieve(&mut waits) => continue,
            result => return result,
        }
    }
}

#[inline(always)]
fn open_once(
    path: &[u8],
    anchor: Option<&Anchor>,
    from_parent: bool,
    root: &Root,
    follow: bool,
) -> io::Result<OwnedFd> {
    if path.len() == root.len {
        return open_root(path, follow);
    }
    if let Some(lease) = anchor.and_then(Anchor::lease) {
        let below = &path[lease.0.prefix_len..];
        return match (follow, from_parent) {
            (true, _) => open_dir_at(Some(lease.0.fd), below, false),
            // The usual case: one name, whose O_NOFOLLOW guards it all.
            (false, true) => open_dir_at(Some(lease.0.fd), below, true),
            (false, false) => open_dir_beneath(Base::Borrowed(lease.0.fd), below),
        };
    }
    if follow {
        return open_dir_at(None, &rank_root::opened(path), false);
    }
    let root_dir = open_root(&path[..root.len], false)?;
    if root.id != UNIDENTIFIED && fstat(root_dir.as_raw_fd(), Fields::ID)?.id() != root.id {
        return Err(io::Error::other(
            "the root directory was replaced during the walk",
        ));
    }
    open_dir_beneath(Base::Owned(root_dir), &path[root.below(path)..])
}

/// Opens a root by its path as typed: links in it are followed, except (without
/// `-L`) a last component that is a link, unless a trailing `/` asks to follow it,
/// as with `find -P`.
#[cold]
#[inline(never)]
fn open_root(path: &[u8], follow: bool) -> io::Result<OwnedFd> {
    let path = rank_root::opened(path);
    let path: &[u8] = if path.is_empty() { b"." } else { &path };
    open_dir_at(None, path, !follow && !path.ends_with(b"/"))
}

fn out_of_descriptors(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// After `EMFILE` or `ENFILE`: gives up an idle anchor (and one place in the budget,
/// which was evidently too large), or else waits a moment for another worker to
/// close a directory. False once it has waited long enough.
fn relieve(waits: &mut u32) -> bool {
    if revoke_idle_anchor() {
        let _ = ANCHOR_LIMIT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |limit| {
            limit.checked_sub(1)
        });
        return true;
    }
    if *waits >= MAX_WAITS {
        return false;
    }
    *waits += 1;
    std::thread::sleep(WAIT);
    true
}

/// Closes the oldest anchor nobody is using at this instant; true if there was one.
fn revoke_idle_anchor() -> bool {
    let mut kept = lock(&KEPT);
    let mut index = 0;
    while index < kept.len() {
        match kept[index].upgrade() {
            None => {
                kept.swap_remove(index);
            }
            Some(anchor) if anchor.try_revoke() => {
                kept.swap_remove(index);
                return true;
            }
            Some(_) => index += 1,
        }
    }
    false
}

/// A place in the budget for a descriptor a worker keeps open beside its
/// directories (its `/proc/thread-self/schedstat` on a network root): taken only
/// if the budget has one free, as an anchor's is, and given back when dropped. That
/// descriptor used to be one more than the budget counted, per worker: at `ulimit
/// -n 5` on a FUSE root the lone worker's every open of a directory failed with
/// `EMFILE` and waited its two seconds (1 of 701 files listed, in 51 s; issue 38).
#[derive(Debug)]
pub struct HelperPlace(());

impl HelperPlace {
    /// A place, if the budget has one; else the helper does without its descriptor.
    pub fn take() -> Option<HelperPlace> {
        reserve_place().then_some(HelperPlace(()))
    }
}

impl Drop for HelperPlace {
    fn drop(&mut self) {
        release_place();
    }
}

/// Takes a place in the anchor budget, if one is free.
fn reserve_place() -> bool {
    // Test seams that stay (here and in `release_place`): a test thread's own
    // budget, counted apart from the process's, which the tests running at once
    // share. Asked per anchor kept and given back; a probe's load at each would
    // cost the walk twice per directory.
    #[cfg(test)]
    if let Some(reserved) = tests::reserve_place_locally() {
        if reserved {
            ANCHORS_OPEN.fetch_add(1, Ordering::Relaxed);
        }
        return reserved;
    }
    let limit = ANCHOR_LIMIT.load(Ordering::Relaxed);
    ANCHORS_OPEN
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |open| {
            (open < limit).then_some(open + 1)
        })
        .is_ok()
}

fn release_place() {
    ANCHORS_OPEN.fetch_sub(1, Ordering::Relaxed);
    #[cfg(test)]
    tests::release_place_locally();
}

/// Sets the budget for a walk with `requested` workers that leaves `keep_free`
/// descriptors to the rest of the process (the pipes of `--exec`'s commands), and
/// returns how many workers the descriptor limit allows (at least one). `frontier`
/// is the walk's frontier limit (`queue`), which bounds the anchors it is likely to
/// hold. Call it before any worker starts.
pub fn configure(requested: usize, keep_free: usize, frontier: usize) -> usize {
    let limit = raise_soft_limit();
    let open = count_open_below(limit) + keep_free;
    let (workers, anchors) = split_budget(limit, open, requested);
    ANCHOR_LIMIT.store(anchors, Ordering::Relaxed);
    // The frontier's parents, and the depth-first paths below them.
    let likely_anchors = anchors.min(frontier.saturating_add(512));
    let likely = open + SPARE + workers * PER_WORKER + likely_anchors;
    grow_descriptor_table(likely.min(usize::try_from(limit).unwrap_or(usize::MAX)));
    workers
}

/// Makes the process's descriptor table hold `count` descriptors now, while only
/// this thread runs. The kernel grows the table by doubling it, and once other
/// threads share the table each growth first waits for an RCU grace period, a few
/// milliseconds here, with the worker asleep: a breadth-first frontier that kept a
/// thousand directories open grew it five times in the middle of a walk of `/usr`,
/// and the walk took 60% longer (docs/design.md). Asking for one descriptor at the
/// top makes the kernel size the table for all of them at once; it is closed again
/// at once, and the table keeps its size.
#[cfg(target_os = "linux")]
fn grow_descriptor_table(count: usize) {
    // Not in the `portable` build (Cargo.toml), which walks as other systems do.
    if cfg!(feature = "portable") {
        return;
    }
    let Some(top) = count
        .checked_sub(1)
        .and_then(|top| libc::c_int::try_from(top).ok())
    else {
        return;
    };
    // SAFETY: opening "/" as a path-only descriptor and duplicating it have no
    // memory effects; both descriptors are ours and are closed here.
    unsafe {
        let base = libc::open(c"/".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if base < 0 {
            return;
        }
        if base < top {
            let high = libc::fcntl(base, libc::F_DUPFD_CLOEXEC, top);
            if high >= 0 {
                libc::close(high);
            }
        }
        libc::close(base);
    }
}

/// Elsewhere a growing table is not known to make threads wait.
#[cfg(not(target_os = "linux"))]
fn grow_descriptor_table(_count: usize) {}

/// The pure arithmetic of [`configure`]: workers and anchors for a descriptor limit
/// of which `open` descriptors are already taken.
fn split_budget(limit: u64, open: usize, requested: usize) -> (usize, usize) {
    let available = usize::try_from(limit)
        .unwrap_or(usize::MAX)
        .saturating_sub(open)
        .saturating_sub(SPARE);
    // Each worker needs PER_WORKER descriptors, and we want at least one anchor per
    // worker so deep trees are still opened relative to a parent.
    let affordable = (available / (PER_WORKER + 1)).max(1);
    let workers = requested.clamp(1, affordable);
    let anchors = available
        .saturating_sub(workers * PER_WORKER)
        .min(MAX_ANCHORS);
    (workers, anchors)
}

/// How many descriptors numbered below `limit` are open: only those take places a
/// new descriptor could have (the kernel hands out the lowest free number, and none
/// at or above the limit). Read from `/proc/self/fd` (or `/dev/fd`); where neither
/// lists them, each number is probed.
fn count_open_below(limit: u64) -> usize {
    for listing in [&b"/proc/self/fd"[..], b"/dev/fd"] {
        if let Some(count) = count_listed_below(listing, limit) {
            return count;
        }
    }
    (0..limit.min(PROBE_LIMIT))
        // SAFETY: F_GETFD only reads the descriptor's flags; any number is valid to ask.
        .filter(|&fd| unsafe { libc::fcntl(fd as RawFd, libc::F_GETFD) } != -1)
        .count()
}

/// Counts the descriptors named in the directory `listing` that are below `limit`,
/// leaving out the one used to read it; `None` if it cannot be read.
fn count_listed_below(listing: &[u8], limit: u64) -> Option<usize> {
    let dir = open_dir_at(None, listing, false).ok()?;
    let own = dir.as_raw_fd();
    // A few descriptors are open in the usual case; 1 KiB holds about forty.
    let mut reader = DirReader::new(ReaderKind::native(), 1024);
    let mut count = 0;
    let mut numbers = 0;
    let never = std::sync::atomic::AtomicBool::new(false);
    reader
        .read(own, &never, |entry| {
            let Some(fd) = std::str::from_utf8(entry.name())
                .ok()
                .and_then(|name| name.parse::<u64>().ok())
            else {
                return;
            };
            numbers += 1;
            if fd < limit && fd != own as u64 {
                count += 1;
            }
        })
        .ok()?;
    // An empty listing means this is not a descriptor directory (it always shows at
    // least the one reading it).
    (numbers > 0).then_some(count)
}

/// Raises the soft `RLIMIT_NOFILE` towards the hard limit and returns the soft limit
/// now in force.
fn raise_soft_limit() -> u64 {
    let Some((soft, hard)) = limits::descriptor_limits() else {
        return 256; // a conservative guess; getrlimit does not fail in practice
    };
    let wanted = WANTED_SOFT_LIMIT.min(hard);
    if soft < wanted && limits::set_descriptor_limit(wanted, hard) {
        return wanted;
    }
    soft
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};

    /// Runs before a directory is opened, given its printed path.
    type OpenHook = Box<dyn FnMut(&[u8])>;

    thread_local! {
        /// A test's own anchor budget, for walks it runs on its own thread (`-j 1`),
        /// counted apart from the anchors of tests running at the same time.
        static ANCHOR_LIMIT_OVERRIDE: Cell<Option<usize>> = const { Cell::new(None) };
        static ANCHORS_OPEN_HERE: Cell<usize> = const { Cell::new(0) };
        /// The anchors' descriptors this thread closed, in order.
        static CLOSED_HERE: RefCell<Vec<RawFd>> = const { RefCell::new(Vec::new()) };
        static BEFORE_OPEN: RefCell<Option<OpenHook>> = RefCell::new(None);
    }

    /// `None` without an override; else whether the override has a place left (taken).
    pub(super) fn reserve_place_locally() -> Option<bool> {
        let limit = ANCHOR_LIMIT_OVERRIDE.with(Cell::get)?;
        let open = ANCHORS_OPEN_HERE.with(Cell::get);
        let free = open < limit;
        if free {
            ANCHORS_OPEN_HERE.with(|here| here.set(open + 1));
        }
        Some(free)
    }

    /// Gives this thread an anchor budget of its own, `limit` places (`None`: the
    /// process's again), for tests of what takes places from it.
    pub(crate) fn set_local_budget(limit: Option<usize>) {
        ANCHOR_LIMIT_OVERRIDE.with(|o| o.set(limit));
        ANCHORS_OPEN_HERE.with(|here| here.set(0));
    }

    /// Places taken from this thread's own budget.
    pub(crate) fn taken_locally() -> usize {
        ANCHORS_OPEN_HERE.with(Cell::get)
    }

    pub(super) fn release_place_locally() {
        if ANCHOR_LIMIT_OVERRIDE.with(Cell::get).is_some() {
            ANCHORS_OPEN_HERE.with(|here| here.set(here.get().saturating_sub(1)));
        }
    }

    pub(crate) fn note_close(fd: RawFd) {
        CLOSED_HERE.with(|closed| closed.borrow_mut().push(fd));
    }

    pub(crate) fn before_open(path: &[u8]) {
        BEFORE_OPEN.with(|hook| {
            if let Some(hook) = hook.borrow_mut().as_mut() {
                hook(path);
            }
        });
    }

    #[test]
    fn budget_splits_between_workers_and_anchors() {
        // A generous limit: every worker requested, anchors capped.
        assert_eq!(split_budget(1 << 20, 3, 16), (16, MAX_ANCHORS));
        // `ulimit -n 16` with only stdio open: 11 usable, three workers (two each),
        // five anchors.
        assert_eq!(split_budget(16, 3, 16), (3, 5));
        assert_eq!(split_budget(16, 3, 2), (2, 7));
        // The same limit with descriptors 3 to 8 inherited: 5 usable, one worker.
        assert_eq!(split_budget(16, 9, 2), (1, 3));
        // `ulimit -n 7`: one worker and no anchor; 8: one anchor.
        assert_eq!(split_budget(7, 3, 2), (1, 0));
        assert_eq!(split_budget(8, 3, 2), (1, 1));
        // Even an absurd limit leaves one worker.
        assert_eq!(split_budget(3, 3, 8), (1, 0));
        assert_eq!(split_budget(3, 50, 8), (1, 0));
        // Workers * PER_WORKER + anchors never exceeds what is available.
        for limit in 0..200u64 {
            for open in [0, 3, 9, 40] {
                for requested in 1..40 {
                    let (workers, anchors) = split_budget(limit, open, requested);
                    let available = (limit as usize).saturating_sub(open + SPARE);
                    assert!(workers >= 1 && workers <= requested);
                    if available > PER_WORKER {
                        assert!(
                            workers * PER_WORKER + anchors <= available,
                            "{limit} {open} {requested}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn open_descriptors_are_counted_below_the_limit() {
        // Other tests open and close descriptors concurrently, so compare with a
        // count taken the same way around a known change rather than with a constant.
        let extra: Vec<OwnedFd> = (0..5)
            .map(|_| open_dir_at(None, b"/", false).unwrap())
            .collect();
        let highest = extra.iter().map(|fd| fd.as_raw_fd()).max().unwrap() as u64;
        let listed = count_listed_below(b"/proc/self/fd", u64::MAX).unwrap();
        let probed = (0..=highest + 64)
            // SAFETY: F_GETFD only reads flags.
            .filter(|&fd| unsafe { libc::fcntl(fd as RawFd, libc::F_GETFD) } != -1)
            .count();
        assert!(listed >= 5 + 3, "{listed}");
        // Descriptors at or above a limit take no place below it.
        let below = count_listed_below(b"/proc/self/fd", highest).unwrap();
        assert!(below < listed, "{below} {listed}");
        assert!(listed.abs_diff(probed) <= 8, "{listed} {probed}");
        assert_eq!(count_listed_below(b"/", 1 << 20), None);
        drop(extra);
    }

    #[test]
    fn a_revoked_anchor_refuses_leases_and_closes_once() {
        let fd = open_dir_at(None, b"/", false).unwrap();
        let raw = fd.as_raw_fd();
        crate::probe::tests::install();
        CLOSED_HERE.with(|closed| closed.borrow_mut().clear());
        ANCHOR_LIMIT_OVERRIDE.with(|o| o.set(Some(usize::MAX)));
        let anchor = Anchor::keep(fd, 1).unwrap();
        {
            let lease = anchor.lease().expect("a fresh anchor can be leased");
            assert!(!anchor.try_revoke(), "an anchor in use is never closed");
            drop(lease);
        }
        assert!(anchor.try_revoke());
        assert!(anchor.lease().is_none());
        assert!(!anchor.try_revoke(), "closed only once");
        // Counted on this thread rather than probed with fcntl: a concurrent test
        // may be given the freed number at any moment.
        drop(anchor);
        let closed = CLOSED_HERE.with(|closed| std::mem::take(&mut *closed.borrow_mut()));
        assert_eq!(closed, [raw], "a revoked anchor's drop closed it again");
        assert_eq!(ANCHORS_OPEN_HERE.with(Cell::get), 0);
        ANCHOR_LIMIT_OVERRIDE.with(|o| o.set(None));
    }

    /// The tree of the swap tests: `root/sN/d/fK` and, beside the root,
    /// `outside/d/escaped` that a followed link would lead to.
    struct SwapTree {
        tmp: tempfile::TempDir,
    }

    impl SwapTree {
        fn new() -> SwapTree {
            let tmp = tempfile::tempdir().unwrap();
            for n in 0..3 {
                for f in 0..2 {
                    let file = tmp.path().join(format!("root/s{n}/d/f{f}"));
                    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                    std::fs::write(file, b"").unwrap();
                }
            }
            std::fs::create_dir_all(tmp.path().join("outside/d")).unwrap();
            std::fs::write(tmp.path().join("outside/d/escaped"), b"").unwrap();
            SwapTree { tmp }
        }

        fn path(&self, relative: &str) -> std::path::PathBuf {
            self.tmp.path().join(relative)
        }

        /// Walks `root` at `-j 1` on this thread with `anchors` anchors at most,
        /// running `swap` just before the directory printed as `when` is opened.
        fn walk(
            &self,
            anchors: usize,
            when: &'static [u8],
            swap: impl FnOnce() + 'static,
        ) -> (Vec<String>, bool) {
            use crate::output::Output;
            use crate::report::Reporter;
            let root = self.path("root").into_os_string();
            let mut config = crate::Config::new(vec![root.clone()]);
            config.threads = 1;
            let mut swap = Some(swap);
            crate::probe::tests::install();
            ANCHOR_LIMIT_OVERRIDE.with(|o| o.set(Some(anchors)));
            ANCHORS_OPEN_HERE.with(|here| here.set(0));
            BEFORE_OPEN.with(|hook| {
                *hook.borrow_mut() = Some(Box::new(move |path: &[u8]| {
                    if path.ends_with(when) {
                        if let Some(swap) = swap.take() {
                            swap();
                        }
                    }
                }))
            });
            let captured = Captured::default();
            let output = Output::to_writer(Box::new(captured.clone()));
            let reporter = Reporter::new();
            crate::scheduler::run(&config, &output, &reporter);
            BEFORE_OPEN.with(|hook| *hook.borrow_mut() = None);
            ANCHOR_LIMIT_OVERRIDE.with(|o| o.set(None));
            drop(output);
            let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
            let prefix = format!("{}/", root.to_str().unwrap());
            let mut lines: Vec<String> = text
                .lines()
                .map(|line| line.strip_prefix(&prefix).unwrap_or(line).to_string())
                .collect();
            lines.sort();
            (lines, reporter.errored())
        }
    }

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Replaces `root/s1` with a link to `../outside` (the real directory is kept
    /// aside as `root/s1.real`, which the walk has already listed past).
    fn swap_s1_for_a_link(tree: &SwapTree) -> impl FnOnce() + 'static {
        let (dir, aside) = (tree.path("root/s1"), tree.path("s1.real"));
        move || {
            std::fs::rename(&dir, aside).unwrap();
            std::os::unix::fs::symlink("../outside", &dir).unwrap();
        }
    }

    const UNSWAPPED: [&str; 4] = ["s0/d/f0", "s0/d/f1", "s2/d/f0", "s2/d/f1"];

    /// Defect 1 of issue 11, deterministically: `root/s1` becomes a link after the
    /// root was listed and `s1` read, just before `s1/d` is opened. With no anchor
    /// (`s1/d` opened from the root reopened) and with the root as the only anchor
    /// (`s1/d` opened as two components), with `openat2` and without, the link is
    /// refused: nothing from `outside` is printed, and the refusal is reported.
    #[test]
    fn a_directory_swapped_for_a_link_is_never_followed() {
        for openat2 in [true, false] {
            for anchors in [0, 1] {
                let tree = SwapTree::new();
                crate::os::open::tests::disable_openat2(!openat2);
                let (lines, errored) = tree.walk(anchors, b"s1/d", swap_s1_for_a_link(&tree));
                crate::os::open::tests::disable_openat2(false);
                assert_eq!(
                    lines, UNSWAPPED,
                    "openat2 {openat2}, {anchors} anchors: {lines:?}"
                );
                assert!(errored, "the refused directory is reported");
            }
        }
    }

    /// With no anchor left, the root is opened again by its path; if that path now
    /// leads to another directory, nothing below it is opened.
    #[test]
    fn a_root_replaced_during_the_walk_is_not_walked_again() {
        let tree = SwapTree::new();
        let (root, aside, other) = (
            tree.path("root"),
            tree.path("root.old"),
            tree.path("outside"),
        );
        let swapped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = swapped.clone();
        let (lines, errored) = tree.walk(0, b"s1/d", move || {
            std::fs::rename(&root, aside).unwrap();
            std::fs::create_dir_all(other.join("s1/d")).unwrap();
            std::fs::write(other.join("s1/d/escaped"), b"").unwrap();
            std::fs::rename(&other, &root).unwrap();
            done.store(true, Ordering::Relaxed);
        });
        assert!(swapped.load(Ordering::Relaxed));
        assert!(errored);
        // What was listed before the swap may be printed; nothing of the new root.
        let before: Vec<String> = ["s0", "s1", "s2"]
            .iter()
            .flat_map(|s| [format!("{s}/d/f0"), format!("{s}/d/f1")])
            .collect();
        assert!(lines.iter().all(|line| before.contains(line)), "{lines:?}");
    }

    /// Without a swap, the no-anchor and long-relative-path ways print the same tree
    /// as the usual one.
    #[test]
    fn every_way_of_opening_prints_the_same_tree() {
        let tree = SwapTree::new();
        let mut want: Vec<String> = UNSWAPPED.iter().map(|s| s.to_string()).collect();
        want.extend(["s1/d/f0".to_string(), "s1/d/f1".to_string()]);
        want.sort();
        for openat2 in [true, false] {
            for anchors in [0, 1, 2, 100] {
                crate::os::open::tests::disable_openat2(!openat2);
                let (lines, errored) = tree.walk(anchors, b"never", || {});
                crate::os::open::tests::disable_openat2(false);
                assert_eq!(lines, want, "openat2 {openat2}, {anchors} anchors");
                assert!(!errored);
            }
        }
    }

    #[test]
    fn roots_are_joined_to_what_lies_below_them() {
        let cases: &[(&[u8], &[u8], usize)] = &[
            (b"dir", b"dir/a/b", 4),
            (b"dir/", b"dir/a/b", 4),
            (b"", b"a/b", 0),
            (b"/", b"/a", 1),
            (b"a//", b"a//b", 3),
        ];
        for &(root, path, below) in cases {
            assert_eq!(Root::new(root.len()).below(path), below, "{root:?}");
        }
    }
}
