//! The work-stealing pool that hands directories to workers, and decides when the
//! walk is over.
//!
//! # Structure
//!
//! Every worker owns a LIFO deque (`crossbeam_deque::Worker`, a Chase-Lev deque) of
//! directories still to read. Pushing and popping the owner's end touches no shared
//! cache line in the common case. LIFO makes each worker go depth-first, which keeps the
//! number of queued directories proportional to depth times fan-out instead of the
//! width of a whole level, and keeps a directory's children near each other in time
//! (their parent's descriptor can be closed sooner; see `walker.rs`).
//!
//! A worker whose deque is empty sweeps every peer's `Stealer` once, taking about half
//! of the first non-empty deque it finds. If that finds nothing it parks on its own
//! `crossbeam_utils::sync::Parker` until a producer or the shutdown wakes it.
//!
//! # Quiescence: `dir_pending`
//!
//! `dir_pending` counts directories that are queued or being read. A worker that finds
//! `n` subdirectories calls [`Pool::push_dirs`], which adds `n` *before* pushing them, and
//! calls [`Pool::finish_dir`] (subtract one) only after it has pushed all children of the
//! directory it was reading. So while any directory is queued or in progress the count is
//! positive, and it reaches zero exactly once: when the last directory is finished and
//! nothing is queued anywhere. The worker whose subtraction takes it to zero calls
//! [`Pool::stop`], which raises `quit` and unparks every worker *unconditionally*: a
//! worker that is just about to park will find the unpark token and return at once.
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
//! pushed child and does not park. If F2 comes first, the producer's L1 sees the sleeper
//! and unparks it; and because a `Parker` keeps an unpark that arrives before `park` as
//! a token, the sleeper cannot miss it either way. When nobody sleeps, the producer's
//! extra cost is the fence and one load of `parked_count` (`maybe_unpark`).
//!
//! # Growing during the walk
//!
//! A pool may have more slots than workers at the start ([`Pool::with_spares`]).
//! `wanted` says how many slots should have a running worker: a worker that keeps
//! waiting on the disk raises it ([`Pool::ask_for_worker`]) and the scheduler starts
//! threads for the new slots. Until then a spare slot is only an empty deque: a steal
//! finds nothing in it and nobody parks on it (and the unpark `stop` sends it is
//! harmless). None of this touches the argument above: a worker that starts late
//! takes jobs through `next_job` like any other, and `dir_pending` counts jobs, not
//! workers.
//!
//! # Early stop and panics
//!
//! `quit` also ends the walk early: a closed stdout (`pfind | head`), or a worker that
//! panics. Each worker holds a [`WorkerGuard`]; if the worker unwinds, the guard calls
//! `stop`, so peers parked waiting for the panicking worker's children wake up, see
//! `quit` and return, and the scope then re-raises the panic instead of hanging
//! (ripgrep's `ignore` crate hung exactly this way, its issue 3009).

use crossbeam_deque::{Steal, Stealer, Worker};
use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};

/// The shared half of the pool: what every worker can see of every other.
pub struct Pool<T> {
    stealers: Box<[Stealer<T>]>,
    unparkers: Box<[Unparker]>,
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
}

/// The private half of one worker: its own deque and parker. Moved into its thread.
pub struct WorkerSlot<T> {
    index: usize,
    local: Worker<T>,
    parker: Parker,
}

impl<T> WorkerSlot<T> {
    pub fn index(&self) -> usize {
        self.index
    }

    /// Jobs waiting in this worker's own deque.
    pub fn queued(&self) -> usize {
        self.local.len()
    }
}

impl<T> Pool<T> {
    /// A pool for `workers` threads, and one slot for each.
    pub fn new(workers: usize) -> (Pool<T>, Vec<WorkerSlot<T>>) {
        Pool::with_spares(workers, 0)
    }

    /// A pool for `workers` threads plus `spares` more that may be asked for during the
    /// walk, and one slot for each. Slots without a thread are simply empty deques:
    /// stealing finds nothing in them and nobody parks on them.
    pub fn with_spares(workers: usize, spares: usize) -> (Pool<T>, Vec<WorkerSlot<T>>) {
        assert!(workers > 0, "a pool needs at least one worker");
        let wanted = workers;
        let workers = workers + spares;
        let slots: Vec<WorkerSlot<T>> = (0..workers)
            .map(|index| WorkerSlot {
                index,
                local: Worker::new_lifo(),
                parker: Parker::new(),
            })
            .collect();
        let pool = Pool {
            stealers: slots.iter().map(|s| s.local.stealer()).collect(),
            unparkers: slots.iter().map(|s| s.parker.unparker().clone()).collect(),
            asleep: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            dir_pending: CachePadded::new(AtomicUsize::new(0)),
            parked_count: CachePadded::new(AtomicUsize::new(0)),
            quit: AtomicBool::new(false),
            wanted: AtomicUsize::new(wanted),
            base: AtomicUsize::new(wanted),
        };
        (pool, slots)
    }

    /// Asks for one more worker, if there is a slot left for it; the scheduler starts
    /// it. Called by a worker that found itself waiting on the disk.
    pub fn ask_for_worker(&self) {
        let slots = self.stealers.len();
        let _ = self
            .wanted
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |wanted| {
                (wanted < slots).then_some(wanted + 1)
            });
    }

    /// Asks for at least `workers` workers in all (as many as there are slots, at most).
    pub fn ask_for_workers(&self, workers: usize) {
        let workers = workers.min(self.stealers.len());
        self.wanted.fetch_max(workers, Ordering::Relaxed);
    }

    /// Sets how many workers the walk should have whatever the disk does (as many as
    /// there are slots, at most), and asks for them.
    pub fn set_base_workers(&self, workers: usize) {
        let workers = workers.min(self.stealers.len());
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

    /// True while more workers may still be asked for.
    pub fn can_grow(&self) -> bool {
        self.wanted_workers() < self.stealers.len()
    }

    /// Queues directories on `slot`'s deque: counts them first, so that a peer that
    /// steals one and finishes it cannot take `dir_pending` to zero early; then wakes
    /// sleepers if there are any.
    pub fn push_dirs(&self, slot: &WorkerSlot<T>, dirs: impl ExactSizeIterator<Item = T>) {
        let count = dirs.len();
        if count == 0 {
            return;
        }
        self.dir_pending.fetch_add(count, Ordering::SeqCst);
        for dir in dirs {
            slot.local.push(dir);
        }
        self.maybe_unpark(count);
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
        for (asleep, unparker) in self.asleep.iter().zip(self.unparkers.iter()) {
            if woken == count {
                break;
            }
            if asleep.load(Ordering::SeqCst) {
                unparker.unpark();
                woken += 1;
            }
        }
    }

    /// Ends the walk: every worker's next call to `next_job` returns `None`. Safe to
    /// call from any thread, any number of times.
    pub fn stop(&self) {
        self.quit.store(true, Ordering::SeqCst);
        for unparker in self.unparkers.iter() {
            unparker.unpark();
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
            if let Some(job) = slot.local.pop() {
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

    /// One sweep over the peers, starting after our own index so that workers spread
    /// their steals instead of all hitting worker 0.
    fn steal(&self, slot: &WorkerSlot<T>) -> Option<T> {
        let n = self.stealers.len();
        for offset in 1..n {
            let victim = &self.stealers[(slot.index + offset) % n];
            loop {
                match victim.steal_batch_and_pop(&slot.local) {
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
        let work_visible = self.stealers.iter().any(|s| !s.is_empty());
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

    /// Runs a synthetic tree walk: job `d` at depth < `depth` has `fanout` children.
    /// Returns how many jobs were processed.
    fn synthetic_walk(workers: usize, fanout: u64, depth: u32, panic_at: Option<u64>) -> u64 {
        let (pool, slots) = Pool::<(u32, u64)>::new(workers);
        let processed = AtomicU64::new(0);
        let next_id = AtomicU64::new(1);
        pool.push_dirs(&slots[0], std::iter::once((0, 0)));
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
                            pool.push_dirs(&slot, children.into_iter());
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
