//! The work-stealing pool that hands directories to workers, and decides when the
//! walk is over.
//!
//! # Structure: shallow first
//!
//! Directories wait in two kinds of queue. The *frontier* is one FIFO queue shared
//! by all workers (`crossbeam_deque::Injector`), taken from one directory at a time,
//! oldest first: while the walk is in it, the tree is read level by level across all
//! workers, so what is near a root is listed, printed and counted toward
//! `--max-results` before what is deep. Most files people look for sit near the
//! root (bfs is built on the same observation), and a depth-first walk makes a file
//! at depth 2 wait for whole subtrees. One queue rather than one per worker: with
//! a FIFO deque each, a worker that took a batch of shallow directories read them
//! one after another while its peers, each with one, had gone on to deeper ones,
//! and with more workers than CPUs (`-j 8` here) that put a shallow directory's
//! files after a tenth of the output.
//!
//! Breadth-first is also dear. Between listing a directory and opening its children
//! it reads every other directory of the frontier, so the kernel's structures for
//! them (dentries, inodes, directory blocks) are cold in the CPU's caches by then;
//! depth-first opens a child right after its parent was listed. Measured on `/usr`,
//! a walk kept breadth-first throughout spent 14 to 20% more CPU than depth-first.
//! So directories join the frontier only until the walk has had [`FRONTIER_LIMIT`]
//! of them queued or being read at once; from then on it goes depth-first for good.
//! A walk that stops at its first matches (`-1`, `--max-results`, `-q`) reads
//! fewer directories the longer it stays breadth-first, and its limit is
//! [`SEARCH_FRONTIER_LIMIT`].
//!
//! And only directories to [`BREADTH_FIRST_DEPTH`] join it, whatever the count.
//! Level by level, a file at depth `d` waits for every directory above `d`: cheap
//! near the root, where levels are small and people look, and nearly the whole
//! tree for a file deep in one corner, which a depth-first walk reaches after a
//! share of the tree that does not grow with its depth. Below that depth each
//! directory of the frontier is the root of a depth-first walk, as below.
//! Every worker owns a LIFO Chase-Lev deque (`crossbeam_deque::Worker`, *depth*)
//! and the children it finds go there; pushing and popping the owner's end touches
//! no shared cache line in the common case. A worker empties its own deque first,
//! then takes the next directory of the frontier, which becomes the root of one
//! depth-first walk of its subtree. The queues then hold the frontier plus depth
//! times fan-out, as in a purely LIFO pool, and the frontier's shallow directories
//! are still read before what lies below them.
//!
//! A worker with nothing in its deque nor in the frontier sweeps every peer's
//! `Stealer` once, taking about half of the first non-empty deque it finds. If that
//! finds nothing it parks on its own `crossbeam_utils::sync::Parker` until a
//! producer or the shutdown wakes it.
//!
//! # Quiescence: `dir_pending`
//!
//! `dir_pending` counts directories that are queued (in the frontier or in any
//! worker's deque) or being read. A worker that finds `n` subdirectories calls [`Pool::push_dirs`],
//! which adds `n` *before* pushing them, and calls [`Pool::finish_dir`] (subtract one)
//! only after it has pushed all children of the directory it was reading. So while
//! any directory is queued or in progress the count is positive, and it reaches zero
//! exactly once: when the last directory is finished and nothing is queued anywhere.
//! The worker whose subtraction takes it to zero calls [`Pool::stop`], which raises
//! `quit` and unparks every worker *unconditionally*: a worker that is just about to
//! park will find the unpark token and return at once. The same count is the
//! frontier's size that decides when the walk turns depth-first; which deque a
//! directory waits in changes nothing here.
//!
//! # Sleeping without losing a wake-up
//!
//! A producer pushes work and then looks for sleepers; a sleeper announces itself and
//! then looks for work. Each side stores to one location and then loads another, which
//! needs a `SeqCst` fence between the store and the load on *both* sides (the
//! store-buffering pattern; rayon's `rayon-core/src/sleep/README.md` walks through it):
//!
//! ```text
//!  producer (push_dirs)                  sleeper (park)
//!  ------------------------------        -------------------------------------
//!  local.push(child)            (S1)     asleep[me] = true; parked_count += 1  (S2)
//!  fence(SeqCst)                (F1)     fence(SeqCst)                         (F2)
//!  if parked_count > 0:         (L1)     if all deques empty && pending > 0    (L2)
//!      unpark sleepers                          && !quit: parker.park()
//! ```
//!
//! The two fences are totally ordered. If F1 comes first, the sleeper's L2 sees the
//! pushed child (L2 looks at the frontier and at every worker's deque) and does not
//! park. If F2
//! comes first, the producer's L1 sees the sleeper and unparks it; and because a
//! `Parker` keeps an unpark that arrives before `park` as a token, the sleeper cannot
//! miss it either way. When nobody sleeps, the producer's extra cost is the fence and
//! one load of `parked_count` (`maybe_unpark`).
//!
//! # Growing during the walk
//!
//! A pool may have more slots than workers at the start ([`Pool::with_spares`]).
//! `wanted` says how many slots should have a running worker: a worker that keeps
//! waiting on the disk raises it ([`Pool::ask_for_worker`]) and the scheduler starts
//! threads for the new slots. Until then a spare slot holds nothing: its deque and
//! parker are made when its worker is started ([`Pool::open_slot`]), so a walk that
//! never grows does not pay for them (31 unused slots were 55,000 instructions of
//! allocating and freeing on an empty directory, a fifteenth of the run; issue 42).
//! A steal or a sweep for sleepers skips a slot not yet opened. None of this touches
//! the argument above: a worker that starts late takes jobs through `next_job` like
//! any other, its deque is empty until it pushes to it itself (its own S1, with its
//! slot opened before), and `dir_pending` counts jobs, not workers.
//!
//! One wake-up needs care: `stop` unparks the slots it sees opened, and a slot opened
//! at the same moment may be missed, while a worker stopped early (a closed output)
//! still has `dir_pending > 0` and would park for good. Store-buffering again:
//!
//! ```text
//!  stop                                  open_slot
//!  ------------------------------        -------------------------------------
//!  quit = true                  (S3)     peers[i] = (stealer, unparker)        (S4)
//!  fence(SeqCst)                (F3)     fence(SeqCst)                         (F4)
//!  unpark every opened slot     (L3)     if quit: unpark the new slot itself   (L4)
//! ```
//!
//! Whichever fence comes first, one side sees the other's store, and the new slot's
//! parker holds the token.
//!
//! # Early stop and panics
//!
//! `quit` also ends the walk early: a closed stdout (`pfind | head`), or a worker that
//! panics. Each worker holds a [`WorkerGuard`]; if the worker unwinds, the guard calls
//! `stop`, so peers parked waiting for the panicking worker's children wake up, see
//! `quit` and return, and the scope then re-raises the panic instead of hanging
//! (ripgrep's `ignore` crate hung exactly this way, its issue 3009).

use crate::threads::LatencyTally;
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

mod peers;

/// How many directories may wait (or be read) at once before the walk turns
/// depth-first (see the module comment), for a walk that lists everything. Enough
/// for the shallow levels of real trees (on `/usr`, every directory to depth 2 and
/// most at depth 3), small enough that the breadth-first part costs the full walk
/// no more than the noise: 2,048 cost `/usr` 9% more wall time, 1,536 7%.
pub const FRONTIER_LIMIT: usize = 1024;

/// The limit for a walk that stops at its first matches (`-1`, `--max-results`,
/// `-q`): every directory read before the last match is time the user waits, and
/// reading level by level reaches a shallow match through the fewest. On `/usr` a
/// file at depth 4 took 26.8 ms to find with [`FRONTIER_LIMIT`] (bfs: 13.4) and 6.9
/// with this. Still a bound: a level wider than this is walked depth-first below.
pub const SEARCH_FRONTIER_LIMIT: usize = 1 << 16;

/// The deepest directories that join the frontier; their children are walked
/// depth-first (see the module comment). Measured with bfs's early-termination
/// benchmark (20 files per depth, `docs/benchmarks.md`), against every level read
/// breadth-first: a file at depth 16 of a Python installation (the three such files
/// sit in one corner, below most of the tree) 28.3 ms to find before, 3.9 with
/// this (fd: 16.9); depth 8 of `/usr` 32.8 and 30.2; depth 8 of the Python tree
/// 13.0 and 16.1 (bfs: 25.3); depths 2 and 4 unchanged. With 3, the Python tree's
/// depth-4 files took twice as long; with 5 and 6, depth 8 was within a
/// millisecond of this and depth 16 slower (4.6, 6.6 ms); with 8, depth 8 of the
/// Python tree 11.4 and depth 16 12.7, close to fd. The full walk reads the
/// Python tree in 19.8 ms instead of 23.5: less of it is breadth-first.
pub const BREADTH_FIRST_DEPTH: usize = 4;

/// Into how many pieces the rest of a giant directory's listing is cut
/// (`walker::split`): for the first worker alone (or a test that cuts every
/// listing), twice the workers the walk will have, so that the pieces, whose
/// sizes follow the spread of the cookies and not the entries, even out between
/// them; otherwise twice the workers idle now and the one cutting. A piece is cut
/// again when a worker is idle later.
pub fn listing_pieces(alone: bool, idle: usize, workers: usize) -> usize {
    if alone {
        2 * workers.max(2)
    } else {
        2 * (idle + 1)
    }
}

/// The most pieces one cut makes on a network filesystem, where each piece's cut
/// is found by a probe, a round trip: the pieces are cut again as workers idle.
pub const NETWORK_PIECES: usize = 16;

/// The batches a listing on a network filesystem takes before it may be cut: a cut
/// there costs a `statfs` and a probe per piece, each a round trip, which a
/// directory of a few batches would not pay back (a FUSE batch is a page, about
/// a hundred entries).
pub const NETWORK_CUT_AFTER: usize = 16;

/// The frontier limit for a walk: [`SEARCH_FRONTIER_LIMIT`] when it stops at its
/// first matches, [`FRONTIER_LIMIT`] otherwise.
pub fn frontier_limit(stops_early: bool) -> usize {
    if stops_early {
        SEARCH_FRONTIER_LIMIT
    } else {
        FRONTIER_LIMIT
    }
}

/// The shared half of the pool: what every worker can see of every other.
pub struct Pool<T> {
    /// The breadth-first frontier, shared by all workers.
    frontier: Injector<T>,
    /// What the others see of each slot, once opened ([`Pool::open_slot`]).
    peers: Box<[OnceLock<Peer<T>>]>,
    /// `asleep[i]` is true while worker `i` is inside `park`; lets a producer wake
    /// sleepers rather than every worker.
    asleep: Box<[AtomicBool]>,
    /// Directories queued or being read; see the module comment.
    dir_pending: CachePadded<AtomicUsize>,
    /// Number of workers inside `park`.
    parked_count: CachePadded<AtomicUsize>,
    /// Raised once: at quiescence, on a closed output, or when a worker panics.
    quit: AtomicBool,
    /// How many slots should have a running worker: the scheduler starts threads for
    /// the first `wanted` slots. Starts at what the scheduler asks for and grows, up to
    /// the number of slots, each time a worker reports that it waited on the disk
    /// ([`Pool::ask_for_worker`]).
    wanted: AtomicUsize,
    /// Of `wanted`, the workers the walk should have whatever the disk does (one per
    /// CPU, or `-j`): started at once, where the rest wait for the growth gate.
    base: AtomicUsize,
    /// [`FRONTIER_LIMIT`], or a smaller one that tests set to reach the depth-first
    /// part of the walk on small trees.
    frontier_limit: usize,
    /// [`BREADTH_FIRST_DEPTH`], or another that tests set.
    breadth_first_depth: usize,
    /// Raised once the frontier has reached the limit: every directory found from
    /// then on is walked depth-first.
    depth_first: AtomicBool,
    /// See [`Pool::with_latency_growth`]: what the workers measure, on a network root.
    latency: Option<LatencyTally>,
    /// See [`Pool::with_latency_bound_listings`].
    latency_bound_listings: bool,
    /// See [`Pool::with_peers_elsewhere`].
    peers_elsewhere: bool,
    /// Other ranks waiting for an answer to their ask (`peers`).
    hungry_peers: AtomicUsize,
    /// Directories set aside for those ranks (`peers`), made when the first asks.
    set_aside: OnceLock<Injector<T>>,
}

/// The shared half of one slot: its deque, for stealing, and its parker's unparker.
struct Peer<T> {
    stealer: Stealer<T>,
    unparker: Unparker,
}

/// The private half of one worker: its own deque and parker. Moved into its thread.
pub struct WorkerSlot<T> {
    index: usize,
    /// LIFO: directories found once the walk went depth-first.
    depth: Worker<T>,
    parker: Parker,
}

impl<T> WorkerSlot<T> {
    pub fn index(&self) -> usize {
        self.index
    }
}

impl<T> Pool<T> {
    /// A pool for `workers` threads, and one slot for each.
    pub fn new(workers: usize) -> (Pool<T>, Vec<WorkerSlot<T>>) {
        Pool::with_spares(workers, 0)
    }

    /// A pool for `workers` threads plus `spares` more that may be asked for during the
    /// walk, with the slots of the first `workers` opened; the scheduler opens a spare
    /// one ([`Self::open_slot`]) when it starts a thread for it.
    pub fn with_spares(workers: usize, spares: usize) -> (Pool<T>, Vec<WorkerSlot<T>>) {
        assert!(workers > 0, "a pool needs at least one worker");
        let wanted = workers;
        let capacity = workers + spares;
        let pool = Pool {
            frontier: Injector::new(),
            peers: (0..capacity).map(|_| OnceLock::new()).collect(),
            asleep: (0..capacity).map(|_| AtomicBool::new(false)).collect(),
            dir_pending: CachePadded::new(AtomicUsize::new(0)),
            parked_count: CachePadded::new(AtomicUsize::new(0)),
            quit: AtomicBool::new(false),
            wanted: AtomicUsize::new(wanted),
            base: AtomicUsize::new(wanted),
            frontier_limit: FRONTIER_LIMIT,
            breadth_first_depth: BREADTH_FIRST_DEPTH,
            depth_first: AtomicBool::new(false),
            latency: None,
            latency_bound_listings: false,
            peers_elsewhere: false,
            hungry_peers: AtomicUsize::new(0),
            set_aside: OnceLock::new(),
        };
        let slots = (0..wanted).map(|index| pool.open_slot(index)).collect();
        (pool, slots)
    }

    /// Makes slot `index` (below [`Self::capacity`], and not opened before) for a
    /// worker about to start: its deque and parker, which the others see from now on.
    pub fn open_slot(&self, index: usize) -> WorkerSlot<T> {
        let slot = WorkerSlot {
            index,
            depth: Worker::new_lifo(),
            parker: Parker::new(),
        };
        let peer = Peer {
            stealer: slot.depth.stealer(),
            unparker: slot.parker.unparker().clone(),
        };
        // S4.
        let opened = self.peers[index].set(peer).is_ok();
        assert!(opened, "slot {index} opened twice");
        fence(Ordering::SeqCst); // F4: pairs with F3 in `stop`.
        if self.quit.load(Ordering::SeqCst) {
            slot.parker.unparker().unpark();
        }
        slot
    }

    /// The slots opened so far.
    fn opened(&self) -> impl Iterator<Item = &Peer<T>> {
        self.peers.iter().filter_map(OnceLock::get)
    }

    /// The same pool, growing to what the measured latency asks for at once rather
    /// than one worker per wait (a root on a network filesystem; see
    /// `threads::workers_for_latency`).
    pub fn with_latency_growth(self, on: bool) -> Pool<T> {
        Pool {
            latency: on.then(LatencyTally::new),
            ..self
        }
    }

    /// See [`Self::with_latency_growth`].
    pub fn latency_growth(&self) -> bool {
        self.latency.is_some()
    }

    /// With latency growth, where the workers' measurements are summed, while more
    /// workers may still be asked for (after that nothing is measured).
    pub fn latency_tally(&self) -> Option<&LatencyTally> {
        self.latency.as_ref().filter(|_| self.can_grow())
    }

    /// The same pool, on a filesystem where every listing's batch of entries is a
    /// round trip (a root on a network filesystem, with or without `-j`): a worker
    /// shares the subdirectories a batch found before it asks for the next batch
    /// (see `walker::share_mid_listing`).
    pub fn with_latency_bound_listings(self, on: bool) -> Pool<T> {
        Pool {
            latency_bound_listings: on,
            ..self
        }
    }

    /// See [`Self::with_latency_bound_listings`].
    pub fn latency_bound_listings(&self) -> bool {
        self.latency_bound_listings
    }

    /// The same pool, shared with other processes (the ranks of a cluster walk),
    /// which may ask for work while it runs.
    pub fn with_peers_elsewhere(self, on: bool) -> Pool<T> {
        Pool {
            peers_elsewhere: on,
            ..self
        }
    }

    /// True when anyone but this pool's first worker may ever take a piece of a
    /// listing: another slot, or a rank elsewhere. A walk for which this is false
    /// need not watch its listings for a cut.
    pub fn may_share_listings(&self) -> bool {
        self.capacity() >= 2 || self.peers_elsewhere
    }

    /// Worker slots, with a thread or not: how many may ever take a directory.
    pub fn capacity(&self) -> usize {
        self.slots()
    }

    /// The same pool with another frontier limit (see [`FRONTIER_LIMIT`]).
    pub fn with_frontier_limit(self, limit: usize) -> Pool<T> {
        Pool {
            frontier_limit: limit,
            ..self
        }
    }

    /// Asks for one more worker, if there is a slot left for it; the scheduler starts
    /// it. Called by a worker that found itself waiting on the disk.
    pub fn ask_for_worker(&self) {
        let slots = self.slots();
        let _ = self
            .wanted
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |wanted| {
                (wanted < slots).then_some(wanted + 1)
            });
    }

    /// Asks for at least `workers` workers in all (as many as there are slots, at most).
    pub fn ask_for_workers(&self, workers: usize) {
        let workers = workers.min(self.slots());
        self.wanted.fetch_max(workers, Ordering::Relaxed);
    }

    /// Sets how many workers the walk should have whatever the disk does (as many as
    /// there are slots, at most), and asks for them.
    pub fn set_base_workers(&self, workers: usize) {
        let workers = workers.min(self.slots());
        self.base.store(workers, Ordering::Relaxed);
        self.ask_for_workers(workers);
    }

    /// See `base`.
    pub fn base_workers(&self) -> usize {
        self.base.load(Ordering::Relaxed)
    }

    /// How many slots should have a worker running (see `wanted`).
    pub fn wanted_workers(&self) -> usize {
        self.wanted.load(Ordering::Relaxed)
    }

    /// Workers parked for want of a directory to take, at this moment.
    pub fn parked_workers(&self) -> usize {
        self.parked_count.load(Ordering::Relaxed)
    }

    /// True while more workers may still be asked for.
    pub fn can_grow(&self) -> bool {
        self.wanted_workers() < self.slots()
    }

    /// Jobs waiting that `slot`'s worker can take without stealing: in the frontier
    /// and in its own deque.
    pub fn queued_for(&self, slot: &WorkerSlot<T>) -> usize {
        self.frontier.len() + slot.depth.len()
    }

    /// Worker slots, with a thread or not.
    fn slots(&self) -> usize {
        self.peers.len()
    }

    /// Queues directories, all at `depth` (0 for roots): counts them first, so that
    /// a peer that takes one and finishes it cannot take `dir_pending` to zero
    /// early; then wakes sleepers if there are any. They join the breadth-first
    /// frontier down to its depth and until it has reached its limit, and `slot`'s
    /// own deque otherwise (see the module comment). Inlined, as with one caller.
    #[inline(always)]
    pub fn push_dirs(
        &self,
        slot: &WorkerSlot<T>,
        depth: usize,
        dirs: impl ExactSizeIterator<Item = T>,
    ) {
        let count = dirs.len();
        if count == 0 {
            return;
        }
        let pending = self.dir_pending.fetch_add(count, Ordering::SeqCst);
        // Relaxed: only a cluster walk's coordinator sets it (`peers`), and a push
        // that misses a change by a moment is shared or not one batch later.
        if self.hungry_peers.load(Ordering::Relaxed) != 0 {
            return self.push_dirs_shared(slot, depth, pending, dirs);
        }
        self.push_dirs_here(slot, depth, pending, dirs);
    }

    /// The rest of [`Self::push_dirs`]: `dirs` queued here, `pending` with them.
    #[inline(always)]
    fn push_dirs_here(
        &self,
        slot: &WorkerSlot<T>,
        depth: usize,
        pending: usize,
        dirs: impl ExactSizeIterator<Item = T>,
    ) {
        let count = dirs.len();
        if self.joins_frontier(depth, pending) {
            for dir in dirs {
                self.frontier.push(dir);
            }
        } else {
            for dir in dirs {
                slot.depth.push(dir);
            }
        }
        self.maybe_unpark(count);
    }

    /// True when directories found at `depth` would go to their worker's own
    /// deque rather than the frontier: below the breadth-first depth, or once the
    /// walk has turned depth-first. Such a directory may as well be read by the
    /// worker that found it, at once (`walker::unopened`'s leaves): the walk stays
    /// breadth-first where it is.
    pub fn goes_depth_first(&self, depth: usize) -> bool {
        depth > self.breadth_first_depth || self.depth_first.load(Ordering::Relaxed)
    }

    /// Whether directories at `depth`, queued with `pending` others, join the
    /// frontier. Reaching the limit turns the walk depth-first for good.
    fn joins_frontier(&self, depth: usize, pending: usize) -> bool {
        if depth > self.breadth_first_depth {
            return false;
        }
        // Relaxed: the flag only chooses an order, and a worker that sees it late
        // queues a few more directories breadth-first.
        if self.depth_first.load(Ordering::Relaxed) {
            return false;
        }
        if pending >= self.frontier_limit {
            self.depth_first.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Marks one directory (taken from `next_job`) as completely handled, its children
    /// already pushed. The worker that finishes the last one ends the walk.
    pub fn finish_dir(&self) {
        if self.dir_pending.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.stop();
        }
    }

    /// Wakes up to `count` parked workers. A fence and a single load when none is parked.
    fn maybe_unpark(&self, count: usize) {
        fence(Ordering::SeqCst); // F1: pairs with F2 in `park`.
        if self.parked_count.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut woken = 0;
        for (asleep, peer) in self.asleep.iter().zip(self.peers.iter()) {
            if woken == count {
                break;
            }
            // A sleeper's slot was opened before its thread started.
            if let Some(peer) = peer.get().filter(|_| asleep.load(Ordering::SeqCst)) {
                peer.unparker.unpark();
                woken += 1;
            }
        }
    }

    /// Ends the walk: every worker's next call to `next_job` returns `None`. Safe to
    /// call from any thread, any number of times.
    pub fn stop(&self) {
        self.quit.store(true, Ordering::SeqCst); // S3.
        fence(Ordering::SeqCst); // F3: pairs with F4 in `open_slot`.
        for peer in self.opened() {
            peer.unparker.unpark();
        }
    }

    /// True once the walk has ended, normally or early.
    pub fn is_stopped(&self) -> bool {
        self.quit.load(Ordering::Relaxed)
    }

    /// The flag behind [`Self::is_stopped`], for code that must notice the end of the
    /// walk without knowing about pools (the directory reader ends a listing early).
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.quit
    }

    /// The next directory for `slot`'s worker, or `None` when the walk is over.
    /// `before_park` runs before the worker goes to sleep (the walker flushes its
    /// output there, so a reader sees results while the walk waits on others).
    pub fn next_job(&self, slot: &WorkerSlot<T>, mut before_park: impl FnMut()) -> Option<T> {
        loop {
            if self.is_stopped() {
                return None;
            }
            // A depth-first walk is finished before the frontier goes on.
            if let Some(job) = slot.depth.pop().or_else(|| self.take_from_frontier()) {
                return Some(job);
            }
            if let Some(job) = self.steal(slot) {
                return Some(job);
            }
            if self.dir_pending.load(Ordering::SeqCst) == 0 {
                // Nothing was ever queued (or the finisher's stop is about to land).
                self.stop();
                return None;
            }
            before_park();
            self.park(slot);
        }
    }

    /// The oldest directory of the frontier, if there is one.
    fn take_from_frontier(&self) -> Option<T> {
        steal_retrying(|| self.frontier.steal())
    }

    /// One sweep over the peers, starting after our own index so that workers spread
    /// their steals instead of all hitting worker 0.
    fn steal(&self, slot: &WorkerSlot<T>) -> Option<T> {
        let n = self.peers.len();
        for offset in 1..n {
            let Some(victim) = self.peers[(slot.index + offset) % n].get() else {
                continue;
            };
            loop {
                match victim.stealer.steal_batch_and_pop(&slot.depth) {
                    Steal::Success(job) => return Some(job),
                    Steal::Empty => break,
                    Steal::Retry => continue,
                }
            }
        }
        None
    }

    fn park(&self, slot: &WorkerSlot<T>) {
        self.asleep[slot.index].store(true, Ordering::SeqCst);
        self.parked_count.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst); // F2: pairs with F1 in `maybe_unpark`.
        let work_visible =
            !self.frontier.is_empty() || self.opened().any(|peer| !peer.stealer.is_empty());
        if !work_visible && !self.is_stopped() && self.dir_pending.load(Ordering::SeqCst) != 0 {
            slot.parker.park();
        }
        self.asleep[slot.index].store(false, Ordering::SeqCst);
        self.parked_count.fetch_sub(1, Ordering::SeqCst);
    }

    /// A guard for the current worker thread: if the thread unwinds, the pool stops.
    pub fn guard(&self) -> WorkerGuard<'_, T> {
        WorkerGuard { pool: self }
    }
}

/// What `steal` takes, asked again while it says to retry (another thief won a
/// race for the same slot): a job, or `None` once the queue is empty.
fn steal_retrying<T>(steal: impl Fn() -> Steal<T>) -> Option<T> {
    loop {
        match steal() {
            Steal::Success(job) => return Some(job),
            Steal::Empty => return None,
            Steal::Retry => continue,
        }
    }
}

/// Stops the pool if the worker holding it panics; see the module comment.
pub struct WorkerGuard<'a, T> {
    pool: &'a Pool<T>,
}

impl<T> Drop for WorkerGuard<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.pool.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::mpsc;
    use std::time::Duration;

    trait BreadthFirstDepth {
        /// The same pool with another depth for the frontier (see
        /// [`BREADTH_FIRST_DEPTH`]).
        fn with_breadth_first_depth(self, depth: usize) -> Self;
    }

    impl<T> BreadthFirstDepth for Pool<T> {
        fn with_breadth_first_depth(self, depth: usize) -> Pool<T> {
            Pool {
                breadth_first_depth: depth,
                ..self
            }
        }
    }

    /// Runs a synthetic tree walk: job `d` at depth < `depth` has `fanout` children.
    /// Returns how many jobs were processed.
    fn synthetic_walk(workers: usize, fanout: u64, depth: u32, panic_at: Option<u64>) -> u64 {
        synthetic_walk_limited(workers, fanout, depth, panic_at, FRONTIER_LIMIT)
    }

    /// [`synthetic_walk`] with a frontier limit.
    fn synthetic_walk_limited(
        workers: usize,
        fanout: u64,
        depth: u32,
        panic_at: Option<u64>,
        limit: usize,
    ) -> u64 {
        let (pool, slots) = Pool::<(u32, u64)>::new(workers);
        let pool = pool.with_frontier_limit(limit);
        let processed = AtomicU64::new(0);
        let next_id = AtomicU64::new(1);
        pool.push_dirs(&slots[0], 0, std::iter::once((0, 0)));
        std::thread::scope(|scope| {
            for slot in slots {
                let (pool, processed, next_id) = (&pool, &processed, &next_id);
                scope.spawn(move || {
                    let _guard = pool.guard();
                    while let Some((level, id)) = pool.next_job(&slot, || {}) {
                        if Some(id) == panic_at {
                            panic!("worker panics on job {id}");
                        }
                        processed.fetch_add(1, Ordering::Relaxed);
                        if level < depth {
                            let children: Vec<(u32, u64)> = (0..fanout)
                                .map(|_| (level + 1, next_id.fetch_add(1, Ordering::Relaxed)))
                                .collect();
                            pool.push_dirs(&slot, level as usize + 1, children.into_iter());
                        }
                        pool.finish_dir();
                    }
                });
            }
        });
        processed.into_inner()
    }

    /// Runs `f` on another thread and fails the test if it does not finish in time.
    fn within_timeout<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(60))
            .expect("the pool hung instead of finishing")
    }

    #[test]
    fn every_job_runs_exactly_once_at_any_worker_count() {
        // 1 + 3 + 9 + ... + 3^7 = 3280 jobs.
        for workers in [1, 2, 3, 4, 8, 16] {
            for _ in 0..20 {
                let processed = within_timeout(move || synthetic_walk(workers, 3, 7, None));
                assert_eq!(processed, 3280, "workers = {workers}");
            }
        }
    }

    /// Below the frontier limit, and above it (where part of the walk goes
    /// depth-first), every job still runs exactly once.
    #[test]
    fn every_job_runs_exactly_once_whatever_the_frontier_limit() {
        for workers in [1, 2, 3, 8] {
            for limit in [0, 1, 5, 100, 3000] {
                let processed =
                    within_timeout(move || synthetic_walk_limited(workers, 3, 7, None, limit));
                assert_eq!(processed, 3280, "workers = {workers}, limit = {limit}");
            }
        }
    }

    /// One worker walks `fanout`-ary trees of `depth` levels alone and records the
    /// depth of each job it takes, and the most jobs it ever had queued. Levels to
    /// `breadth_first_depth` may join the frontier.
    fn single_worker_order(
        fanout: u32,
        depth: u32,
        limit: usize,
        breadth_first_depth: usize,
    ) -> (Vec<u32>, usize) {
        let (pool, mut slots) = Pool::<u32>::new(1);
        let pool = pool
            .with_frontier_limit(limit)
            .with_breadth_first_depth(breadth_first_depth);
        let slot = slots.remove(0);
        pool.push_dirs(&slot, 0, std::iter::once(0));
        let (mut order, mut most_queued) = (Vec::new(), 0);
        while let Some(level) = pool.next_job(&slot, || {}) {
            order.push(level);
            if level < depth {
                pool.push_dirs(
                    &slot,
                    level as usize + 1,
                    std::iter::repeat_n(level + 1, fanout as usize),
                );
            }
            most_queued = most_queued.max(pool.queued_for(&slot));
            pool.finish_dir();
        }
        (order, most_queued)
    }

    #[test]
    fn below_the_limit_directories_are_taken_level_by_level() {
        let (order, _) = single_worker_order(3, 6, 1 << 20, usize::MAX);
        assert_eq!(order.len(), 1093);
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    }

    /// Below the frontier's depth, each directory of its last level is followed by
    /// its whole subtree, depth-first, before the next one is taken.
    #[test]
    fn below_the_breadth_first_depth_each_subtree_is_walked_whole() {
        let (order, _) = single_worker_order(3, 5, 1 << 20, 2);
        assert_eq!(order.len(), 364);
        // Levels 0 and 1 (1 + 3 jobs), then the nine directories at depth 2, each
        // followed by the 3 + 9 + 27 below it.
        assert_eq!(order[..4], [0, 1, 1, 1]);
        let at_depth_2: Vec<usize> = (0..order.len()).filter(|&i| order[i] == 2).collect();
        let expected: Vec<usize> = (0..9).map(|k| 4 + 40 * k).collect();
        assert_eq!(at_depth_2, expected, "{order:?}");
        // Each subtree is depth-first: a level-3 job is followed by its own three
        // level-4 jobs and their children before the next level-3 job.
        assert_eq!(order[4..18], [2, 3, 4, 5, 5, 5, 4, 5, 5, 5, 4, 5, 5, 5]);
    }

    /// A tree far wider than the limit: the queue stays near the limit plus one
    /// path's worth of siblings, where a breadth-first walk would hold the whole
    /// last level (4^9 = 262,144 jobs).
    #[test]
    fn above_the_limit_the_queue_stays_bounded() {
        let limit = 1000;
        let (order, most_queued) = single_worker_order(4, 9, limit, usize::MAX);
        assert_eq!(order.len(), (4usize.pow(10) - 1) / 3);
        // The frontier, the push that reached the limit, and one path of siblings.
        assert!(
            most_queued <= limit + 4 + 4 * 9,
            "{most_queued} queued at most"
        );
        // The levels up to the one where the limit is reached still come first.
        let first_deep = order.iter().position(|&level| level == 5).unwrap();
        assert!(order[..first_deep].windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn a_chain_with_no_parallelism_terminates() {
        for workers in [1, 2, 8] {
            assert_eq!(
                within_timeout(move || synthetic_walk(workers, 1, 500, None)),
                501
            );
        }
    }

    #[test]
    fn empty_pool_stops_immediately() {
        let (pool, slots) = Pool::<u32>::new(4);
        for slot in &slots {
            assert_eq!(pool.next_job(slot, || {}), None);
        }
        assert!(pool.is_stopped());
    }

    /// Regression test in the spirit of ripgrep's `panic_in_parallel`: a worker that
    /// panics must make the walk panic, never hang with its peers parked.
    #[test]
    fn panic_in_a_worker_propagates_and_never_hangs() {
        for workers in [2, 4, 16] {
            for panic_at in [0, 1, 7, 500] {
                let outcome = within_timeout(move || {
                    std::panic::catch_unwind(|| synthetic_walk(workers, 3, 7, Some(panic_at)))
                });
                assert!(outcome.is_err(), "workers {workers}, panic at {panic_at}");
            }
        }
    }
}
