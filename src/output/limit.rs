//! `--max-results`: exactly N matches printed, however many workers find them at once.

use std::sync::atomic::{AtomicU64, Ordering};

/// `--max-results`: hands out at most `max` places in the output, across all workers.
///
/// A worker reserves a place before it buffers a match, so however many workers find
/// matches at the same moment, exactly `max` are printed. The one that takes the last
/// place flushes and stops the pool; later reservations are refused.
#[derive(Debug)]
pub struct MatchLimit {
    max: u64,
    taken: AtomicU64,
}

/// The answer to [`MatchLimit::reserve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservation {
    Granted,
    /// Granted, and it was the last place: flush and stop the walk.
    Last,
    Refused,
}

impl MatchLimit {
    pub fn new(max: u64) -> MatchLimit {
        MatchLimit {
            max,
            taken: AtomicU64::new(0),
        }
    }

    pub fn reserve(&self) -> Reservation {
        // Relaxed: only the number of places handed out matters, and `fetch_add`
        // hands each one out exactly once whatever the ordering.
        let place = self.taken.fetch_add(1, Ordering::Relaxed) + 1;
        match place.cmp(&self.max) {
            std::cmp::Ordering::Less => Reservation::Granted,
            std::cmp::Ordering::Equal => Reservation::Last,
            std::cmp::Ordering::Greater => Reservation::Refused,
        }
    }

    /// True once every place has been handed out.
    pub fn is_reached(&self) -> bool {
        self.taken.load(Ordering::Relaxed) >= self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_limit_hands_out_exactly_max_places() {
        let limit = MatchLimit::new(2);
        assert!(!limit.is_reached());
        assert_eq!(limit.reserve(), Reservation::Granted);
        assert_eq!(limit.reserve(), Reservation::Last);
        assert!(limit.is_reached());
        assert_eq!(limit.reserve(), Reservation::Refused);
        // Under contention, still exactly `max` places and one `Last`.
        let limit = MatchLimit::new(1000);
        let answers: Vec<Reservation> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| (0..500).map(|_| limit.reserve()).collect::<Vec<_>>()))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let count = |r| answers.iter().filter(|&&a| a == r).count();
        assert_eq!(count(Reservation::Granted), 999);
        assert_eq!(count(Reservation::Last), 1);
        assert_eq!(count(Reservation::Refused), 3000);
    }
}
