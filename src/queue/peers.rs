//! What the pool shows to walks in other processes: the ranks of `pfind-mpi` (see
//! `cluster`), which share directories between processes as workers share them
//! between threads.
//!
//! A rank's pool must not end when its own directories run out, since another
//! rank may still send it some: the rank's coordinator *holds* the pool
//! ([`Pool::hold`]), one count in `dir_pending` that no directory owns, so the
//! count reaches zero only after the coordinator lets go, once every rank has
//! agreed that the walk is over. While it holds, `dir_pending == 1` means no
//! directory is queued or being read here: the rank is idle ([`Pool::is_idle`]),
//! and stays so until the coordinator itself queues directories it was sent
//! ([`Pool::inject`]), since only a directory being read queues others.
//!
//! Directories given away ([`Pool::take_for_peer`]) leave the count the same way a
//! finished one does; the hold keeps it from reaching zero meanwhile.
//!
//! # Setting work aside for a rank that asked
//!
//! A directory is shareable only while it is queued, and on a filesystem where
//! each request is a round trip a rank runs many workers that take each one as
//! soon as it is queued: measured through four FUSE mounts capped at four
//! requests in flight (`benchmark.py --cluster`), rank 0 made 6,421 of the walk's
//! 7,245 requests and four ranks were slower than one. So an ask that finds
//! nothing queued is held by the coordinator for a moment
//! ([`Pool::set_hungry_peers`]), and while any is held, half of each batch of
//! subdirectories a worker queues is set aside instead, where this rank's workers
//! do not look ([`Pool::push_dirs_shared`]): the coordinator sends it to the
//! rank that asked. What is still aside when no ask is held goes back to this
//! rank's workers ([`Pool::return_set_aside`]). It stays counted in
//! `dir_pending` throughout, so the rank is not idle while any is aside.

use super::{steal_retrying, Pool};
use crossbeam_deque::Injector;
use std::sync::atomic::Ordering;

impl<T> Pool<T> {
    /// Takes one count of `dir_pending` for the caller, which keeps the walk going
    /// until it calls [`Pool::finish_dir`]. Called before any directory is queued.
    pub fn hold(&self) {
        self.dir_pending.fetch_add(1, Ordering::SeqCst);
    }

    /// True when, with one hold taken, no directory is queued or being read.
    pub fn is_idle(&self) -> bool {
        self.dir_pending.load(Ordering::SeqCst) == 1
    }

    /// Queues directories sent from elsewhere, at the back of the frontier (they are
    /// the sender's oldest, so the shallowest), and wakes workers for them.
    pub fn inject(&self, jobs: Vec<T>) {
        let count = jobs.len();
        if count == 0 {
            return;
        }
        self.dir_pending.fetch_add(count, Ordering::SeqCst);
        for job in jobs {
            self.frontier.push(job);
        }
        self.maybe_unpark(count);
    }

    /// Half of the directories queued here (rounded up), oldest first: the
    /// frontier's, then the far end of each worker's deque (a deque's oldest are
    /// the shallowest of its depth-first walk, with the most below them). What is
    /// returned no longer counts in `dir_pending`; the caller must hold the pool.
    pub fn take_for_peer(&self) -> Vec<T> {
        // What was set aside for a peer goes first, and alone: it is half already.
        if let Some(aside) = self.set_aside.get() {
            let taken: Vec<T> = std::iter::from_fn(|| steal_retrying(|| aside.steal())).collect();
            if !taken.is_empty() {
                self.dir_pending.fetch_sub(taken.len(), Ordering::SeqCst);
                return taken;
            }
        }
        let queued =
            self.frontier.len() + self.opened().map(|peer| peer.stealer.len()).sum::<usize>();
        let want = queued.div_ceil(2);
        let from_deques = self
            .opened()
            .flat_map(|peer| std::iter::from_fn(|| steal_retrying(|| peer.stealer.steal())));
        let taken: Vec<T> = std::iter::from_fn(|| self.take_from_frontier())
            .chain(from_deques)
            .take(want)
            .collect();
        if !taken.is_empty() {
            self.dir_pending.fetch_sub(taken.len(), Ordering::SeqCst);
        }
        taken
    }

    /// Records that `ranks` other ranks wait for an answer to an ask this rank had
    /// nothing queued for: half of what workers queue is set aside for them
    /// meanwhile (see the module comment), and a giant directory being listed here
    /// is cut into pieces, as for a parked worker.
    pub fn set_hungry_peers(&self, ranks: usize) {
        if ranks > 0 {
            self.set_aside.get_or_init(Injector::new);
        }
        self.hungry_peers.store(ranks, Ordering::Relaxed);
    }

    /// [`Pool::push_dirs`] while peers are hungry: the first half of `dirs`
    /// (rounded up) is set aside for them, the rest queued here.
    #[cold]
    #[inline(never)]
    pub(super) fn push_dirs_shared(
        &self,
        slot: &super::WorkerSlot<T>,
        depth: usize,
        pending: usize,
        mut dirs: impl ExactSizeIterator<Item = T>,
    ) {
        if let Some(aside) = self.set_aside.get() {
            let half = dirs.len().div_ceil(2);
            for dir in dirs.by_ref().take(half) {
                aside.push(dir);
            }
        }
        self.push_dirs_here(slot, depth, pending, dirs);
    }

    /// Gives what was set aside and not sent back to this rank's workers (no ask
    /// is held any more). They stay counted; they only change queue.
    pub fn return_set_aside(&self) {
        let Some(aside) = self.set_aside.get() else {
            return;
        };
        let mut returned = 0;
        while let Some(job) = steal_retrying(|| aside.steal()) {
            self.frontier.push(job);
            returned += 1;
        }
        if returned > 0 {
            self.maybe_unpark(returned);
        }
    }

    /// See [`Pool::set_hungry_peers`].
    pub fn hungry_peers(&self) -> usize {
        self.hungry_peers.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_pool_waits_for_injected_work_and_ends_when_let_go() {
        let (pool, slots) = Pool::<u32>::new(1);
        pool.hold();
        assert!(pool.is_idle());
        pool.inject(vec![1, 2, 3]);
        assert!(!pool.is_idle());
        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push(pool.next_job(&slots[0], || {}).unwrap());
            pool.finish_dir();
        }
        assert_eq!(seen, [1, 2, 3]);
        assert!(pool.is_idle());
        assert!(!pool.is_stopped());
        pool.finish_dir();
        assert!(pool.is_stopped());
        assert_eq!(pool.next_job(&slots[0], || {}), None);
    }

    #[test]
    fn while_a_peer_is_hungry_half_of_each_batch_is_set_aside_for_it() {
        let (pool, slots) = Pool::<u32>::new(1);
        pool.hold();
        pool.set_hungry_peers(1);
        pool.push_dirs(&slots[0], 1, [1, 2, 3].into_iter());
        // The workers see the half not set aside.
        assert_eq!(pool.next_job(&slots[0], || {}), Some(3));
        pool.finish_dir();
        assert_eq!(pool.take_for_peer(), [1, 2]);
        // None set aside once nobody waits; what was is given back.
        pool.push_dirs(&slots[0], 1, [4, 5].into_iter());
        pool.set_hungry_peers(0);
        pool.push_dirs(&slots[0], 1, [6].into_iter());
        pool.return_set_aside();
        let mut here = Vec::new();
        while !pool.is_idle() {
            here.push(pool.next_job(&slots[0], || {}).unwrap());
            pool.finish_dir();
        }
        here.sort();
        assert_eq!(here, [4, 5, 6]);
    }

    #[test]
    fn half_of_what_is_queued_is_given_oldest_first_and_uncounted() {
        let (pool, slots) = Pool::<u32>::new(2);
        pool.hold();
        pool.inject((0..5).collect());
        // Deep work in worker 1's deque, past the frontier's depth.
        pool.push_dirs(&slots[1], 100, [10, 11, 12].into_iter());
        let given = pool.take_for_peer();
        assert_eq!(given, [0, 1, 2, 3]);
        let given = pool.take_for_peer();
        assert_eq!(given, [4, 10]);
        let given = pool.take_for_peer();
        assert_eq!(given, [11]);
        let given = pool.take_for_peer();
        assert_eq!(given, [12]);
        assert!(pool.take_for_peer().is_empty());
        assert!(pool.is_idle());
    }
}
