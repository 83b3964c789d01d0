//! One rank's whole run: its share of the walk, then the totals added up on rank 0
//! and the exit status every rank agrees on.

use super::coordinator::Coordinator;
use super::link::{Link, Pause, ToRankZero};
use super::message::{Message, Totals};
use crate::config::Config;
use crate::output::{Output, OutputMode};
use crate::report::Reporter;
use crate::scheduler;
use crate::walker::Summary;
use std::sync::Arc;

/// What a rank's run ends with: on rank 0 the whole walk's summary (every rank's
/// added up), elsewhere the rank's own; and the exit status all ranks agreed on.
pub struct Ended {
    pub summary: Summary,
    /// 0, or 1 if any rank reported an error.
    pub status: u8,
}

/// The output a rank's workers write to: `stdout` on rank 0, messages to rank 0
/// elsewhere.
pub fn rank_output(link: &Arc<Link>, stdout: Output) -> Output {
    match link.rank() {
        0 => stdout,
        _ => Output::to_writer(Box::new(ToRankZero(link.clone()))),
    }
}

/// Runs this rank's share of the walk `config` describes, with the other ranks
/// over `link`; `output` is [`rank_output`]'s. Every rank calls it once, and each
/// returns once all have ended.
pub fn run(config: &Config, link: &Arc<Link>, output: &Output, reporter: &Reporter) -> Ended {
    let coordinator = Coordinator::new(link, config, output, reporter);
    let summary = scheduler::run_shared(config, output, reporter, &coordinator);
    let own = Totals {
        matches: summary.matches,
        bytes: summary.bytes,
        examined: summary.examined,
        pieces: summary.pieces,
        workers: summary.workers,
        status: reporter.exit_status() as u8,
    };
    let mut pause = Pause::new();
    let ended = if link.rank() == 0 {
        // Each rank's output arrives before its totals (one ordered channel).
        let mut whole = summary;
        let mut status = own.status;
        let mut waiting = link.ranks() - 1;
        while waiting > 0 {
            match link.receive(&mut pause) {
                (_, Message::Output(block)) => {
                    output.deliver(&block, reporter);
                }
                // A rank's last counts, sent as its walk ended.
                (_, Message::Progress(added)) => crate::progress::PROGRESS.add_others(added),
                (_, Message::Totals(totals)) => {
                    whole.add(Summary {
                        matches: totals.matches,
                        bytes: totals.bytes,
                        examined: totals.examined,
                        pieces: totals.pieces,
                        workers: totals.workers,
                        ..Summary::default()
                    });
                    status = status.max(totals.status);
                    waiting -= 1;
                }
                // Asks from ranks that had not yet heard the walk was over.
                _ => {}
            }
        }
        // Rank 0's errors count too, those met writing the others' output since
        // its totals were taken included.
        status = status.max(reporter.exit_status() as u8);
        // `-q` answers with its status alone, as pfind's: a match anywhere is
        // success, even after errors; none is 1.
        if config.output == OutputMode::Quiet {
            status = u8::from(whole.matches == 0);
        }
        for to in 1..link.ranks() {
            link.send(to, &Message::Status(status));
        }
        Ended {
            summary: whole,
            status,
        }
    } else {
        link.send(0, &Message::Totals(own));
        let status = loop {
            if let (_, Message::Status(status)) = link.receive(&mut pause) {
                break status;
            }
        };
        Ended { summary, status }
    };
    link.flush();
    ended
}
