//! One rank's coordinator: the thread beside its workers that trades directories
//! with the other ranks and decides, with them, when the walk is over (the design
//! is in `cluster`'s module comment).

use super::link::{Link, Pause};
use super::message::Message;
use super::transport::XorShift;
use crate::config::Config;
use crate::os::listing_id::ListingId;
use crate::output::Output;
use crate::progress::{Published, PROGRESS};
use crate::queue::Pool;
use crate::report::Reporter;
use crate::scheduler::Peers;
use crate::walker::{DirJob, Roots};
use crate::walker::{Unmade, WireJob};
use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A rank's share of a cluster walk, as the scheduler runs it.
pub struct Coordinator<'a> {
    link: &'a Link,
    config: &'a Config,
    /// Rank 0's output, which other ranks' blocks are written to as they arrive.
    output: &'a Output,
    reporter: &'a Reporter,
    /// A rank other than 0: its status-line counts as last sent to rank 0.
    reported: Mutex<Published>,
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
            reported: Mutex::new(Published::default()),
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

/// How often a rank other than 0 sends rank 0 its status-line counts, when they
/// grew: rank 0's line has them, late by at most twice this (the workers publish
/// when the coordinator asks, and what they published is sent at its next look).
/// A few small messages a second per busy rank, none while it idles.
const REPORT_EVERY: Duration = Duration::from_millis(250);

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

/// What a rank's coordinator keeps from one look at its messages and its pool to
/// the next.
struct Trading {
    safra: Safra,
    /// An ask of this rank's is out, unanswered.
    asked: bool,
    /// How long to wait after the next "nothing" before asking again.
    retry: Duration,
    /// When this rank may ask again.
    ask_after: Instant,
    /// The other ranks were told to stop (or told rank 0 to tell them).
    stop_sent: bool,
    /// Asks held, oldest first, with when each came.
    held: VecDeque<(usize, Instant)>,
    /// The giant directories (as listed here) a rank sent pieces of back.
    refused: HashSet<(usize, ListingId)>,
    /// Picks the rank to ask.
    random: XorShift,
    /// When this rank next sends its status-line counts to rank 0.
    report_after: Instant,
}

impl Trading {
    fn new(rank: usize) -> Trading {
        Trading {
            safra: Safra::default(),
            asked: false,
            retry: FIRST_RETRY,
            ask_after: Instant::now(),
            stop_sent: false,
            held: VecDeque::new(),
            refused: HashSet::new(),
            random: XorShift::new((rank as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            report_after: Instant::now(),
        }
    }
}

impl Peers for Coordinator<'_> {
    fn starts_with_roots(&self) -> bool {
        self.link.rank() == 0
    }

    /// Until the walk is over: reads what came, answers the asks held, spreads a
    /// stop, and when idle asks another rank for work and passes the token on.
    fn serve(&self, pool: &Pool<DirJob>, roots: &Roots) {
        let mut trading = Trading::new(self.link.rank());
        let mut pause = Pause::new();
        loop {
            let mut heard = false;
            while let Some((from, message)) = self.link.try_receive() {
                heard = true;
                if self.receive(&mut trading, pool, roots, from, message) {
                    return self.end(pool);
                }
            }
            self.answer_asks(&mut trading, pool, roots);
            pool.set_hungry_peers(trading.held.len());
            if trading.held.is_empty() {
                pool.return_set_aside();
            }
            self.spread_stop(&mut trading, pool);
            self.report_progress(&mut trading);
            // Idle: nothing queued or being read here, and only work sent from
            // elsewhere can change that.
            if (pool.is_idle() || pool.is_stopped()) && self.when_idle(&mut trading, pool) {
                return self.end(pool);
            }
            if !trading.held.is_empty() {
                std::thread::sleep(HOLDING_POLL);
            } else if heard {
                pause.reset();
            } else {
                pause.wait();
            }
        }
    }

    /// This rank's workers have ended: its counts are final, and go to rank 0.
    fn walked(&self) {
        if self.link.rank() != 0 && self.config.progress {
            self.send_progress();
        }
    }
}

impl Coordinator<'_> {
    /// Acts on one message `from` a rank; true when it says the walk is over.
    fn receive(
        &self,
        trading: &mut Trading,
        pool: &Pool<DirJob>,
        roots: &Roots,
        from: usize,
        message: Message,
    ) -> bool {
        match message {
            Message::Ask => trading.held.push_back((from, Instant::now())),
            Message::Work(wire) => {
                // Pieces sent back: their directory, as listed here, is not offered
                // to that rank again.
                for job in &wire {
                    if let Some(piece) = job.piece.filter(|piece| piece.returned) {
                        trading.refused.insert((from, piece.lister));
                    }
                }
                trading.safra.count -= 1;
                trading.safra.black = true;
                trading.asked = false;
                trading.retry = FIRST_RETRY;
                self.take_work(trading, pool, roots, from, wire);
            }
            Message::Nothing => {
                trading.asked = false;
                trading.ask_after = Instant::now() + trading.retry;
                trading.retry = (trading.retry * 2).min(LAST_RETRY);
            }
            Message::Token { black, count } => trading.safra.token = Some((black, count)),
            Message::Done => return true,
            Message::Stop => {
                pool.stop();
                if self.link.rank() == 0 && !trading.stop_sent {
                    trading.stop_sent = true;
                    for to in (1..self.link.ranks()).filter(|&to| to != from) {
                        self.link.send(to, &Message::Stop);
                    }
                }
            }
            Message::Output(block) => {
                self.output.deliver(&block, self.reporter);
            }
            Message::Progress(added) => PROGRESS.add_others(added),
            // Only after the walk (see `run`), or before it (`agree`).
            Message::Totals(_)
            | Message::Status(_)
            | Message::Verdict { .. }
            | Message::Agreed(_) => {}
        }
        false
    }

    /// Queues the directories rank `from` sent, as jobs of this rank's (each one
    /// that cannot be made one is reported); pieces this rank cannot list go back
    /// to their sender, as work (counted as any), to be listed there.
    fn take_work(
        &self,
        trading: &mut Trading,
        pool: &Pool<DirJob>,
        roots: &Roots,
        from: usize,
        wire: Vec<WireJob>,
    ) {
        let mut jobs = Vec::with_capacity(wire.len());
        let mut back = Vec::new();
        for job in wire {
            match roots.job(&job, &self.config.filter, self.config.follow) {
                Ok(made) => jobs.push(made),
                Err(Unmade::Failed(err)) => self.reporter.path_error(&roots.printed(&job), &err),
                Err(Unmade::OtherCookies) => back.push(job),
            }
        }
        if !pool.is_stopped() {
            pool.inject(jobs);
        }
        if !back.is_empty() {
            for job in &mut back {
                if let Some(piece) = &mut job.piece {
                    piece.returned = true;
                }
            }
            trading.safra.count += 1;
            self.link.send(from, &Message::Work(back));
        }
    }

    /// Asks are answered with work as soon as there is some, or with nothing once
    /// held long enough (at once if this rank has stopped).
    fn answer_asks(&self, trading: &mut Trading, pool: &Pool<DirJob>, roots: &Roots) {
        while let Some(&(asker, since)) = trading.held.front() {
            let given = match pool.is_stopped() {
                true => Vec::new(),
                false => pool.take_for_peer(),
            };
            // A job with no wire form (none is known) stays here, not lost.
            let mut wire = Vec::with_capacity(given.len());
            let mut kept = Vec::new();
            for job in given {
                match roots.to_wire(&job) {
                    Some(sent) if !refuses(&trading.refused, asker, &sent) => wire.push(sent),
                    _ => kept.push(job),
                }
            }
            pool.inject(kept);
            if !wire.is_empty() {
                trading.safra.count += 1;
                self.link.send(asker, &Message::Work(wire));
            } else if pool.is_stopped() || since.elapsed() >= HOLD_ASK {
                self.link.send(asker, &Message::Nothing);
            } else {
                break;
            }
            trading.held.pop_front();
        }
    }

    /// The walk stopped here early (`-q` found a match, rank 0's output closed):
    /// every rank stops.
    fn spread_stop(&self, trading: &mut Trading, pool: &Pool<DirJob>) {
        if pool.is_stopped() && !trading.stop_sent {
            trading.stop_sent = true;
            match self.link.rank() {
                0 => (1..self.link.ranks()).for_each(|to| self.link.send(to, &Message::Stop)),
                _ => self.link.send(0, &Message::Stop),
            }
        }
    }

    /// With nothing to do here: asks a rank drawn at random for work (one ask out
    /// at a time, spaced by the "nothing"s), and plays this rank's part of Safra's
    /// token ring. True when the walk is over: one rank alone, or rank 0 saw the
    /// token come back white with every message received.
    fn when_idle(&self, trading: &mut Trading, pool: &Pool<DirJob>) -> bool {
        let (rank, ranks) = (self.link.rank(), self.link.ranks());
        if ranks == 1 {
            return true;
        }
        if !trading.asked && !pool.is_stopped() && Instant::now() >= trading.ask_after {
            let victim = loop {
                let victim = (trading.random.draw() % ranks as u64) as usize;
                if victim != rank {
                    break victim;
                }
            };
            self.link.send(victim, &Message::Ask);
            trading.asked = true;
        }
        let safra = &mut trading.safra;
        let next = (rank + 1) % ranks;
        if rank != 0 {
            if let Some((black, count)) = safra.token.take() {
                let token = Message::Token {
                    black: black || safra.black,
                    count: count + safra.count,
                };
                safra.black = false;
                self.link.send(next, &token);
            }
            return false;
        }
        if let Some((black, count)) = safra.token.take() {
            safra.round_out = false;
            if !black && !safra.black && count + safra.count == 0 {
                (1..ranks).for_each(|to| self.link.send(to, &Message::Done));
                return true;
            }
        }
        if !safra.round_out {
            safra.round_out = true;
            safra.black = false;
            let token = Message::Token {
                black: false,
                count: 0,
            };
            self.link.send(next, &token);
        }
        false
    }

    /// A rank other than 0, every [`REPORT_EVERY`]: sends rank 0 what its workers
    /// published since the last time, and asks them for their counts again.
    fn report_progress(&self, trading: &mut Trading) {
        if self.link.rank() == 0 || !self.config.progress {
            return;
        }
        let now = Instant::now();
        if now < trading.report_after {
            return;
        }
        trading.report_after = now + REPORT_EVERY;
        self.send_progress();
        PROGRESS.ask();
    }

    /// Sends rank 0 what this rank's counts grew by since they were last sent, if
    /// anything.
    fn send_progress(&self) {
        let now = PROGRESS.own();
        let mut reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        let added = now.since(*reported);
        if added != Published::default() {
            self.link.send(0, &Message::Progress(added));
            *reported = now;
        }
    }

    /// The walk is over: ranks still asking are told so by rank 0; the hold the
    /// scheduler took is let go, and the workers, all idle, end.
    fn end(&self, pool: &Pool<DirJob>) {
        pool.set_hungry_peers(0);
        pool.finish_dir();
    }
}

/// True if `job` is a piece of a giant directory that rank `asker` sent pieces of
/// back (it lists other cookies there): such a directory stays with this rank.
fn refuses(refused: &HashSet<(usize, ListingId)>, asker: usize, job: &WireJob) -> bool {
    job.piece
        .is_some_and(|piece| refused.contains(&(asker, piece.lister)))
}
