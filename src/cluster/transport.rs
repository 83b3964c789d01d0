//! How ranks reach each other: the [`Transport`] trait, and [`Memory`], ranks as
//! threads of one process, which the tests run on every build (MPI's transport is
//! `cluster::mpi`, behind the `mpi` feature).
//!
//! The trait asks for what MPI gives: messages of bytes from one rank to another,
//! kept in order between the two, sent without waiting for the receiver (a rank
//! that sends output to rank 0 while rank 0 sends it work must not deadlock), and
//! received by polling.

use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

/// One rank's end of the ranks' messages. Called by one thread at a time (the
/// rank keeps it behind a lock).
pub trait Transport: Send {
    /// This rank's number, from 0.
    fn rank(&self) -> usize;

    /// How many ranks there are.
    fn ranks(&self) -> usize;

    /// Sends `message` to rank `to` without waiting for it to be received.
    fn send(&mut self, to: usize, message: Vec<u8>);

    /// A message that has arrived, with its sender, if there is one.
    fn try_receive(&mut self) -> Option<(usize, Vec<u8>)>;

    /// Waits until every message sent has left this rank's buffers (before the
    /// process exits).
    fn flush(&mut self) {}
}

/// Ranks as threads: `Memory::ranks(n)` makes one transport per rank, each to be
/// moved to its own thread. With a delay, each message waits a random time up to it
/// before it can be received (the order between two ranks kept), so that tests
/// see requests cross, answers come late and tokens overtake work.
pub struct Memory {
    rank: usize,
    peers: Vec<Sender<(usize, Vec<u8>)>>,
    inbox: Receiver<(usize, Vec<u8>)>,
    /// Messages received from the channel, per sender, with when each may be read.
    waiting: Vec<VecDeque<(Instant, Vec<u8>)>>,
    delay: Duration,
    random: XorShift,
}

impl Memory {
    /// `ranks` connected transports, rank `i` at index `i`.
    pub fn ranks(ranks: usize, delay: Duration, seed: u64) -> Vec<Memory> {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..ranks).map(|_| channel()).unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| Memory {
                rank,
                peers: senders.clone(),
                inbox,
                waiting: (0..ranks).map(|_| VecDeque::new()).collect(),
                delay,
                random: XorShift::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (rank as u64 + 1)),
            })
            .collect()
    }

    fn next_random(&mut self) -> u64 {
        self.random.draw()
    }
}

/// xorshift64: enough to spread delays and choose whom to ask, and the same
/// sequence for a seed.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.max(1))
    }

    pub fn draw(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

impl Transport for Memory {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.peers.len()
    }

    fn send(&mut self, to: usize, message: Vec<u8>) {
        // A rank whose thread has ended receives nothing more; nobody waits for it.
        let _ = self.peers[to].send((self.rank, message));
    }

    fn try_receive(&mut self) -> Option<(usize, Vec<u8>)> {
        let now = Instant::now();
        while let Ok((from, message)) = self.inbox.try_recv() {
            let nanos = self.delay.as_nanos() as u64;
            let wait = match nanos {
                0 => Duration::ZERO,
                _ => Duration::from_nanos(self.next_random() % nanos),
            };
            // Never before the message sent ahead of it.
            let after = self.waiting[from].back().map_or(now, |(at, _)| *at);
            self.waiting[from].push_back(((now + wait).max(after), message));
        }
        // The sender whose first message is due, starting at a random one so that
        // no rank is always served first.
        let ranks = self.waiting.len();
        let start = (self.next_random() % ranks as u64) as usize;
        for offset in 0..ranks {
            let from = (start + offset) % ranks;
            if self.waiting[from].front().is_some_and(|(at, _)| *at <= now) {
                let (_, message) = self.waiting[from].pop_front()?;
                return Some((from, message));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_between_two_ranks_keep_their_order_whatever_the_delay() {
        let mut ranks = Memory::ranks(3, Duration::from_micros(300), 7);
        for i in 0..200u32 {
            ranks[1].send(0, i.to_le_bytes().to_vec());
            ranks[2].send(0, (1000 + i).to_le_bytes().to_vec());
        }
        let mut from_1 = Vec::new();
        let mut from_2 = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while from_1.len() + from_2.len() < 400 && Instant::now() < deadline {
            if let Some((from, bytes)) = ranks[0].try_receive() {
                let value = u32::from_le_bytes(bytes.try_into().unwrap());
                match from {
                    1 => from_1.push(value),
                    _ => from_2.push(value),
                }
            }
        }
        assert_eq!(from_1, (0..200).collect::<Vec<_>>());
        assert_eq!(from_2, (1000..1200).collect::<Vec<_>>());
        assert_eq!(ranks[1].try_receive(), None);
    }
}
