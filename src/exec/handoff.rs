//! The bounded queue from the walk to the threads that run commands.
//!
//! Bounded, because any command worth running takes longer than finding its path: a
//! walk that met no limit would hold every match in memory before the commands were
//! half done. So a worker that hands over a match when the queue is full waits, and
//! the walk goes at the pace of the commands. The bound is also what makes the
//! commands start while the walk goes on (tests/exec.rs shows it): a full queue
//! means the walk is waiting for commands that are running.
//!
//! Either side can end it: the walk closes it when it is over (the runners finish
//! what is queued, then stop), and the runners abandon it when running more would be
//! pointless (the reader of the output left, the program does not exist): what is
//! queued is dropped, and a walker waiting to hand over is told to stop.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

pub struct Handoff<T> {
    state: Mutex<State<T>>,
    /// Signalled when an item is queued, or the queue is closed or abandoned.
    filled: Condvar,
    /// Signalled when an item is taken, or the queue is abandoned.
    emptied: Condvar,
    capacity: usize,
}

struct State<T> {
    items: VecDeque<T>,
    /// The walk is over: nothing more will be queued.
    closed: bool,
    /// The runners gave up: nothing more will be taken.
    abandoned: bool,
}

impl<T> Handoff<T> {
    /// A queue that holds at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> Handoff<T> {
        Handoff {
            state: Mutex::new(State {
                items: VecDeque::new(),
                closed: false,
                abandoned: false,
            }),
            filled: Condvar::new(),
            emptied: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    /// Queues `item`, waiting for room if the queue is full. False (and `item`
    /// dropped) once the queue is abandoned: the walk should stop.
    pub fn push(&self, item: T) -> bool {
        let mut state = self.lock();
        while state.items.len() >= self.capacity && !state.abandoned {
            state = self
                .emptied
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        if state.abandoned {
            return false;
        }
        state.items.push_back(item);
        drop(state);
        self.filled.notify_one();
        true
    }

    /// The next item, waiting for one if need be; `None` once the queue is closed
    /// and empty, or abandoned.
    pub fn pop(&self) -> Option<T> {
        let mut state = self.lock();
        loop {
            if state.abandoned {
                return None;
            }
            if let Some(item) = state.items.pop_front() {
                drop(state);
                self.emptied.notify_one();
                return Some(item);
            }
            if state.closed {
                return None;
            }
            state = self
                .filled
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// The walk is over: runners take what is left, then stop.
    pub fn close(&self) {
        self.lock().closed = true;
        self.filled.notify_all();
    }

    /// The runners give up: what is queued is dropped, and both sides are told.
    pub fn abandon(&self) {
        let dropped = {
            let mut state = self.lock();
            state.abandoned = true;
            std::mem::take(&mut state.items)
        };
        drop(dropped);
        self.filled.notify_all();
        self.emptied.notify_all();
    }

    pub fn is_abandoned(&self) -> bool {
        self.lock().abandoned
    }

    /// A lock that a panicking thread cannot make unusable for the others.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_item_reaches_one_taker_then_the_takers_stop() {
        let handoff = Handoff::new(2);
        let taken = AtomicUsize::new(0);
        let sum = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    while let Some(item) = handoff.pop() {
                        taken.fetch_add(1, Ordering::Relaxed);
                        sum.fetch_add(item, Ordering::Relaxed);
                    }
                });
            }
            for item in 1..=1000 {
                assert!(handoff.push(item));
            }
            handoff.close();
        });
        assert_eq!(taken.load(Ordering::Relaxed), 1000);
        assert_eq!(sum.load(Ordering::Relaxed), 500_500);
    }

    #[test]
    fn abandoning_wakes_a_waiting_giver_and_drops_the_rest() {
        let handoff = Handoff::new(1);
        assert!(handoff.push(1));
        std::thread::scope(|scope| {
            // Full: this push waits until the queue is abandoned, then fails.
            let giver = scope.spawn(|| handoff.push(2));
            std::thread::sleep(std::time::Duration::from_millis(20));
            handoff.abandon();
            assert!(!giver.join().unwrap());
        });
        assert!(handoff.is_abandoned());
        assert_eq!(handoff.pop(), None);
        assert!(!handoff.push(3));
    }

    #[test]
    fn a_closed_queue_still_gives_what_it_holds() {
        let handoff = Handoff::new(4);
        handoff.push("a");
        handoff.push("b");
        handoff.close();
        assert_eq!(handoff.pop(), Some("a"));
        assert_eq!(handoff.pop(), Some("b"));
        assert_eq!(handoff.pop(), None);
    }
}
