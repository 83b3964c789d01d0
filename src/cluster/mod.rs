//! One walk shared by several processes, possibly on several machines: the ranks
//! of `pfind-mpi`. Each rank is a whole pfind walk (its own pool, workers and
//! output buffers) that trades directories with the others, as pfind's workers
//! trade them between threads.
//!
//! # Agreeing first
//!
//! Each rank reads the command line against its own machine, so each may refuse
//! it alone; before any walks, every rank's verdict goes to rank 0, which answers
//! all: walk, or end with the worst status (`agree`). No rank leaves unheard.
//!
//! # Sharing work
//!
//! Rank 0 starts with the roots; the others start idle. A rank is *idle* when its
//! pool has nothing queued or being read (`queue::peers`). An idle rank asks a
//! rank chosen at random ([`Message::Ask`]); the asked rank's coordinator answers
//! with half of its queued directories, oldest first ([`Message::Work`]: the
//! shallowest, with the most below them), or with [`Message::Nothing`], after
//! which the asker waits a little (doubling to 5 ms) and asks another. A piece of
//! a giant directory (`walker::split`) travels as its cookie range, and a rank
//! told "nothing" while it lists a giant directory makes pieces of it, as a
//! parked worker would make it do, so that the next ask finds some. A piece is
//! listed only by a rank whose descriptor of its directory lists the same cookies
//! (`os::listing_id`); another sends it back as work, and the sender offers that
//! directory's pieces to that rank no more. Jobs travel
//! as paths below their root (`walker::wire`) and are opened from the root on the
//! other side, so no descriptor or pointer crosses; that is also why `-L` (the
//! chain of directory identities a link must not lead back into) and `--ignore`
//! (the rules each directory inherits) are refused here.
//!
//! # Knowing the walk is over: Safra's algorithm
//!
//! The walk is over when every rank is idle and no work message is in flight.
//! Idleness alone is not enough, since work may be travelling to an idle rank.
//! Each rank counts the work messages it sent less those it received, and turns
//! *black* when it receives one. Rank 0, idle, sends a white token with a count of
//! zero around the ring (0, 1, ..., n-1, 0); each rank holds it until it is idle,
//! then adds its count, blackens it if the rank is black, turns white and passes
//! it on. When the token comes back white, rank 0 is white and idle, and the sum
//! with rank 0's own count is zero, no rank received work since it passed the
//! token and none is in flight: rank 0 tells everyone [`Message::Done`].
//! Otherwise another round starts. (Safra's algorithm as Dijkstra wrote it up,
//! EWD998; it cannot end early, because a message in flight keeps the sum from
//! zero and a receipt blackens the token, and it cannot hang, because once all
//! are idle and nothing flies, the second round after comes back white.)
//!
//! Why not libcircle's (mpiFileUtils): its termination is a tree of reductions
//! timed by the same idleness, with work requests handled in the same loop; for
//! ranks that already count their messages, the token needs no collective calls
//! and one message per rank per round, and the rounds run only while ranks idle.
//!
//! # Output
//!
//! Rank 0 alone writes to stdout. Other ranks hand each block of whole records
//! their workers produce to rank 0 as one message ([`Message::Output`]), which
//! rank 0 writes as its own workers' blocks, under the same lock: no line is torn.
//! At the end each rank sends its totals ([`Message::Totals`]: matches, bytes,
//! entries examined, pieces) after its last output, rank 0 adds them up for `-c`,
//! `-s` and `--stats`, and every rank exits with the worst status any had
//! ([`Message::Status`]). Errors are printed by the rank that met them, on its
//! own stderr, one line each, as pfind prints them.
//!
//! # The status line
//!
//! SIGUSR1 gets one line, from rank 0, with every rank's counts: the other ranks
//! answer the signal silently, and their coordinators send rank 0 what their
//! counts grew by ([`Message::Progress`]) every 250 ms while they grow, asking
//! their workers for them each time (`progress`), and once more when their
//! workers have ended (before `--exec`'s last commands run, which may take long);
//! rank 0 adds them to its own. Sums of what grew, so rank 0 keeps nothing per
//! rank, and a few small messages a second per busy rank.

pub mod agree;
pub mod coordinator;
pub mod link;
pub mod message;
pub mod rank;
pub mod transport;

#[cfg(feature = "mpi")]
pub mod mpi;

use crate::config::Config;
use crate::output::OutputMode;
pub use message::Message;

/// Why a cluster walk cannot do what `config` asks, if it cannot: the options
/// whose meaning needs one process.
pub fn refusal(config: &Config) -> Option<&'static str> {
    if config.follow {
        return Some(
            "-L/--follow is not available in a cluster walk: the chain of directories a link must not lead back into stays in one process",
        );
    }
    if config.ignore.is_active() {
        return Some(
            "ignore files (--ignore, -G) are not available in a cluster walk: each directory's rules are inherited from its parent in one process",
        );
    }
    if config.sort_order().is_some() {
        return Some("--sort is not available in a cluster walk yet");
    }
    if config.max_results.is_some() && config.output != OutputMode::Quiet {
        return Some("--max-results and -1 are not available in a cluster walk yet");
    }
    None
}
