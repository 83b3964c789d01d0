//! The bounded queue from the walk to the threads that run commands.
//!
//! Bounded, because any command worth running takes longer than finding its path: a
//! walk that met no limit would hold every match in memory before the commands were
//! half done. So a worker that hands over a match when the queue is full waits, and
//! the walk goes at the pace of the commands. The bound is also what makes the
//! commands start while the walk goes on (tests/feature/exec.rs shows it): a full queue
//! means the walk is waiting for commands that are running.
//!
//! Each side is woken only when it waits, and a walk waiting for room only once
//! the queue is down to half, not at every item taken: it then hands over a run of
//! paths before it waits again. Waking the other side at every item (a system call
//! each time, and a walk far ahead of its commands pushing one path between two
//! sleeps) made `--exec true` on 2,658 files take 1.24 to 1.28 s against 1.18
//! (docs/benchmarks.md).
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
    /// Walk threads waiting for room, and runners waiting for an item: nobody is
    /// woken while nobody waits.
    givers_waiting: usize,
    takers_waiting: usize,
}

impl<T> Handoff<T> {
    /// A queue that holds at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> Handoff<T> {
        Handoff {
            state: Mutex::new(State {
                items: VecDeque::new(),
                closed: false,
                abandoned: false,
                givers_waiting: 0,
                takers_waiting: 0,
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
            state.givers_waiting += 1;
            state = self
                .emptied
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state.givers_waiting -= 1;
        }
        if state.abandoned {
            return false;
        }
        state.items.push_back(item);
        let wake = state.takers_waiting > 0;
        drop(state);
        if wake {
            self.filled.notify_one();
        }
        true
    }

    /// How many items may be left when a waiting giver is woken: half the queue, so
    /// that it then pushes a run of items before it waits again.
    fn low_water(&self) -> usize {
        self.capacity / 2
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
                let wake = state.givers_waiting > 0 && state.items.len() <= self.low_water();
                drop(state);
                if wake {
                    self.emptied.notify_all();
                }
                return Some(item);
            }
            if state.closed {
                return None;
            }
            state.takers_waiting += 1;
            state = self
                .filled
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state.takers_waiting -= 1;
        }
    }

    /// Puts back `item`, taken but not dealt with, for another taker: first in
    /// line, even in a full or closed queue (a runner that gives up its thread,
    /// see `spawn.rs`; the walk's bound is not for it). Dropped if abandoned.
    pub fn give_back(&self, item: T) {
        let mut state = self.lock();
        if state.abandoned {
            return;
        }
        state.items.push_front(item);
        drop(state);
        self.filled.notify_one();
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
    fn givers_woken_at_half_full_lose_nothing() {
        // Several givers wait on a full queue at once and are woken together once
        // it is down to half; each must get its items in, and the takers all of them.
        let handoff = Handoff::new(8);
        let sum = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    while let Some(item) = handoff.pop() {
                        sum.fetch_add(item, Ordering::Relaxed);
                    }
                });
            }
            let givers: Vec<_> = (0..3)
                .map(|giver| {
                    let handoff = &handoff;
                    scope.spawn(move || {
                        for item in 1..=2000 {
                            assert!(handoff.push(giver * 10_000 + item));
                        }
                    })
                })
                .collect();
            for giver in givers {
                giver.join().unwrap();
            }
            handoff.close();
        });
        let expected: usize = (0..3)
            .map(|giver| (1..=2000).map(|item| giver * 10_000 + item).sum::<usize>())
            .sum();
        assert_eq!(sum.load(Ordering::Relaxed), expected);
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
    fn an_item_given_back_is_taken_first_even_when_closed() {
        let handoff = Handoff::new(1);
        handoff.push("a");
        let taken = handoff.pop().unwrap();
        handoff.push("b");
        handoff.close();
        handoff.give_back(taken); // beyond the capacity of 1
        assert_eq!(handoff.pop(), Some("a"));
        assert_eq!(handoff.pop(), Some("b"));
        assert_eq!(handoff.pop(), None);
        handoff.abandon();
        handoff.give_back("c");
        assert_eq!(handoff.pop(), None);
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
