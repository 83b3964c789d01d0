//! One rank's coordinator: the thread beside its workers that trades directories
//! with the other ranks and decides, with them, when the walk is over (the design
//! is in `cluster`'s module comment).

use super::link::{Link, Pause};
use super::message::Message;
use super::transport::XorShift;
use crate::config::Config;
use crate::os::listing_id::ListingId;
use crate::output::Output;
use crate::queue::Pool;
use crate::report::Reporter;
use crate::scheduler::Peers;
use crate::walker::{DirJob, Roots};
use crate::walker::{Unmade, WireJob};
use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

/// A rank's share of a cluster walk, as the scheduler runs it.
pub struct Coordinator<'a> {
    link: &'a Link,
    config: &'a Config,
    /// Rank 0's output, which other ranks' blocks are written to as they arrive.
    output: &'a Output,
    reporter: &'a Reporter,
}

impl<'a> Coordinator<'a> {
    pub fn new(
        link: &'a Link,
        config: &'a Config,
        output: &'a Output,
        reporter: &'a Reporter,
    ) -> Coordinator<'a> {
        Coordinator {
            link,
            config,
            output,
            reporter,
        }
    }
}

/// How long a rank told "nothing" waits before it asks again, at first and at
/// most: a walk's last directories are being read somewhere, and a flood of asks
/// would only keep their ranks' coordinators busy.
const FIRST_RETRY: Duration = Duration::from_micros(100);
const LAST_RETRY: Duration = Duration::from_millis(2);

/// How long an ask this rank had nothing queued for is held, while half of what
/// its workers queue is set aside for it (`queue::peers`), before "nothing".
const HOLD_ASK: Duration = Duration::from_millis(3);

/// How often the coordinator looks at its pool while it holds an ask.
const HOLDING_POLL: Duration = Duration::from_micros(50);

/// Safra's termination detection, one rank's part (Dijkstra's token ring with
/// message counts, as in Safra's algorithm; see the module comment of `cluster`).
#[derive(Default)]
struct Safra {
    /// Work messages sent less work messages received.
    count: i64,
    /// Received work since the token last left this rank.
    black: bool,
    /// The token, while this rank holds it.
    token: Option<(bool, i64)>,
    /// Rank 0: a round is under way (the token is out).
    round_out: bool,
}

impl Peers for Coordinator<'_> {
    fn starts_with_roots(&self) -> bool {
        self.link.rank() == 0
    }

    fn serve(&self, pool: &Pool<DirJob>, roots: &Roots) {
        let (rank, ranks) = (self.link.rank(), self.link.ranks());
        let next = (rank + 1) % ranks;
        let mut safra = Safra::default();
        let mut asked = false;
        let mut retry = FIRST_RETRY;
        let mut ask_after = Instant::now();
        let mut stop_sent = false;
        // Asks held, oldest first, with when each came.
        let mut held: VecDeque<(usize, Instant)> = VecDeque::new();
        // The giant directories (as listed here) a rank sent pieces of back.
        let mut refused: HashSet<(usize, ListingId)> = HashSet::new();
        let mut random = XorShift::new((rank as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut pause = Pause::new();
        'walk: loop {
            let mut heard = false;
            while let Some((from, message)) = self.link.try_receive() {
                heard = true;
                match message {
                    Message::Ask => held.push_back((from, Instant::now())),
                    Message::Work(wire) => {
                        // Pieces sent back: their directory, as listed here, is
                        // not offered to that rank again.
                        for job in &wire {
                            if let Some(piece) = job.piece.filter(|piece| piece.returned) {
                                refused.insert((from, piece.lister));
                            }
                        }
                        safra.count -= 1;
                        safra.black = true;
                        asked = false;
                        retry = FIRST_RETRY;
                        let mut jobs = Vec::with_capacity(wire.len());
                        let mut back = Vec::new();
                        for job in wire {
                            match roots.job(&job, &self.config.filter, self.config.follow) {
                                Ok(made) => jobs.push(made),
                                Err(Unmade::Failed(err)) => {
                                    self.reporter.path_error(&roots.printed(&job), &err)
                                }
                                Err(Unmade::OtherCookies) => back.push(job),
                            }
                        }
                        if !pool.is_stopped() {
                            pool.inject(jobs);
                        }
                        // Pieces this rank cannot list go back to their sender,
                        // as work (counted as any), to be listed there.
                        if !back.is_empty() {
                            for job in &mut back {
                                if let Some(piece) = &mut job.piece {
                                    piece.returned = true;
                                }
                            }
                            safra.count += 1;
                            self.link.send(from, &Message::Work(back));
                        }
                    }
                    Message::Nothing => {
                        asked = false;
                        ask_after = Instant::now() + retry;
                        retry = (retry * 2).min(LAST_RETRY);
                    }
                    Message::Token { black, count } => safra.token = Some((black, count)),
                    Message::Done => break 'walk,
                    Message::Stop => {
                        pool.stop();
                        if rank == 0 && !stop_sent {
                            stop_sent = true;
                            for to in (1..ranks).filter(|&to| to != from) {
                                self.link.send(to, &Message::Stop);
                            }
                        }
                    }
                    Message::Output(block) => {
                        self.output.deliver(&block, self.reporter);
                    }
                    // Only after the walk (see `run`), or before it (`agree`).
                    Message::Totals(_)
                    | Message::Status(_)
                    | Message::Verdict { .. }
                    | Message::Agreed(_) => {}
                }
            }
            // Asks are answered with work as soon as there is some, or with
            // nothing once held long enough (at once if this rank has stopped).
            while let Some(&(asker, since)) = held.front() {
                let given = match pool.is_stopped() {
                    true => Vec::new(),
                    false => pool.take_for_peer(),
                };
                // A job with no wire form (none is known) stays here, not lost.
                let mut wire = Vec::with_capacity(given.len());
                let mut kept = Vec::new();
                for job in given {
                    match roots.to_wire(&job) {
                        Some(sent) if !refuses(&refused, asker, &sent) => wire.push(sent),
                        _ => kept.push(job),
                    }
                }
                pool.inject(kept);
                if !wire.is_empty() {
                    safra.count += 1;
                    self.link.send(asker, &Message::Work(wire));
                } else if pool.is_stopped() || since.elapsed() >= HOLD_ASK {
                    self.link.send(asker, &Message::Nothing);
                } else {
                    break;
                }
                held.pop_front();
            }
            pool.set_hungry_peers(held.len());
            if held.is_empty() {
                pool.return_set_aside();
            }
            // The walk stopped here early (`-q` found a match, rank 0's output
            // closed): every rank stops.
            if pool.is_stopped() && !stop_sent {
                stop_sent = true;
                match rank {
                    0 => (1..ranks).for_each(|to| self.link.send(to, &Message::Stop)),
                    _ => self.link.send(0, &Message::Stop),
                }
            }
            // Idle: nothing queued or being read here, and only work sent from
            // elsewhere can change that.
            let idle = pool.is_idle() || pool.is_stopped();
            if idle {
                if ranks == 1 {
                    break 'walk;
                }
                if !asked && !pool.is_stopped() && Instant::now() >= ask_after {
                    let victim = loop {
                        let victim = (random.draw() % ranks as u64) as usize;
                        if victim != rank {
                            break victim;
                        }
                    };
                    self.link.send(victim, &Message::Ask);
                    asked = true;
                }
                if rank == 0 {
                    if let Some((black, count)) = safra.token.take() {
                        safra.round_out = false;
                        if !black && !safra.black && count + safra.count == 0 {
                            (1..ranks).for_each(|to| self.link.send(to, &Message::Done));
                            break 'walk;
                        }
                    }
                    if !safra.round_out {
                        safra.round_out = true;
                        safra.black = false;
                        self.link.send(
                            next,
                            &Message::Token {
                                black: false,
                                count: 0,
                            },
                        );
                    }
                } else if let Some((black, count)) = safra.token.take() {
                    let token = Message::Token {
                        black: black || safra.black,
                        count: count + safra.count,
                    };
                    safra.black = false;
                    self.link.send(next, &token);
                }
            }
            if !held.is_empty() {
                std::thread::sleep(HOLDING_POLL);
            } else if heard {
                pause.reset();
            } else {
                pause.wait();
            }
        }
        // Ranks still asking are told the walk is over by rank 0.
        pool.set_hungry_peers(0);
        // Let go of the hold: the workers, all idle, end.
        pool.finish_dir();
    }
}

/// True if `job` is a piece of a giant directory that rank `asker` sent pieces of
/// back (it lists other cookies there): such a directory stays with this rank.
fn refuses(refused: &HashSet<(usize, ListingId)>, asker: usize, job: &WireJob) -> bool {
    job.piece
        .is_some_and(|piece| refused.contains(&(asker, piece.lister)))
}
