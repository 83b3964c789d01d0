//! What ranks say to each other, and its bytes: one tag byte, then the fields
//! little-endian. Every message between two ranks goes through one channel in
//! order (MPI keeps the order of messages from one rank to another that match
//! the same receive, and every receive here takes any tag), which the end of the
//! walk relies on: a rank's last output block reaches rank 0 before its summary.

use crate::progress::Published;
use crate::walker::WireJob;

/// A message between ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// An idle rank asks for directories.
    Ask,
    /// Directories given in answer to [`Message::Ask`] (the only message that makes
    /// a rank busy: it counts in the termination detection).
    Work(Vec<WireJob>),
    /// The answer to [`Message::Ask`] of a rank with none to give.
    Nothing,
    /// Safra's token: whether a rank it passed received work since the token last
    /// left it, and the sum of the work messages sent less those received.
    Token { black: bool, count: i64 },
    /// From rank 0 to all: every rank is idle and no work is in flight.
    Done,
    /// End the walk early: rank 0's output is gone, or `-q` found its match.
    Stop,
    /// Output for rank 0 to write: whole records.
    Output(Vec<u8>),
    /// A rank's totals, sent to rank 0 once its walk is over (after its output).
    Totals(Totals),
    /// From rank 0 to all, last: the exit status every rank ends with.
    Status(u8),
    /// Before the walk, to rank 0 (`cluster::agree`): what a rank made of the
    /// command line: `None` to walk, or the status to end with and why (one line,
    /// empty if nothing to say), with the rank's machine's name.
    Verdict {
        status: Option<u8>,
        why: Vec<u8>,
        host: Vec<u8>,
    },
    /// Rank 0's answer to every [`Message::Verdict`]: `None` to walk, or the
    /// status every rank ends with.
    Agreed(Option<u8>),
    /// To rank 0, while the walk runs and once more when the rank's walk is over:
    /// what the rank's status-line counts grew by since it last sent them (rank 0
    /// prints their sum with its own, see `progress`).
    Progress(Published),
}

/// What one rank's walk found, for rank 0 to add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub matches: u64,
    pub bytes: u128,
    pub examined: u64,
    pub pieces: u64,
    pub workers: u64,
    /// The rank's exit status: 0, or 1 after an error it reported.
    pub status: u8,
}

impl Message {
    /// The message's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Message::Ask => out.push(1),
            Message::Work(jobs) => {
                out.push(2);
                out.extend_from_slice(&(jobs.len() as u32).to_le_bytes());
                for job in jobs {
                    job.encode(&mut out);
                }
            }
            Message::Nothing => out.push(3),
            Message::Token { black, count } => {
                out.push(4);
                out.push(u8::from(*black));
                out.extend_from_slice(&count.to_le_bytes());
            }
            Message::Done => out.push(5),
            Message::Stop => out.push(6),
            Message::Output(block) => {
                out.reserve(block.len() + 1);
                out.push(7);
                out.extend_from_slice(block);
            }
            Message::Totals(totals) => {
                out.push(8);
                out.extend_from_slice(&totals.matches.to_le_bytes());
                out.extend_from_slice(&totals.bytes.to_le_bytes());
                out.extend_from_slice(&totals.examined.to_le_bytes());
                out.extend_from_slice(&totals.pieces.to_le_bytes());
                out.extend_from_slice(&totals.workers.to_le_bytes());
                out.push(totals.status);
            }
            Message::Status(status) => {
                out.push(9);
                out.push(*status);
            }
            Message::Verdict { status, why, host } => {
                out.push(10);
                push_status(&mut out, *status);
                out.extend_from_slice(&(host.len() as u32).to_le_bytes());
                out.extend_from_slice(host);
                out.extend_from_slice(why);
            }
            Message::Agreed(status) => {
                out.push(11);
                push_status(&mut out, *status);
            }
            Message::Progress(added) => {
                out.push(12);
                for count in [added.examined, added.matches, added.queued, added.listed] {
                    out.extend_from_slice(&count.to_le_bytes());
                }
            }
        }
        out
    }

    /// Reads a message; `None` if the bytes are not one.
    pub fn decode(bytes: &[u8]) -> Option<Message> {
        let (&tag, rest) = bytes.split_first()?;
        let message = match tag {
            1 if rest.is_empty() => Message::Ask,
            2 => {
                let (count, mut rest) = rest.split_first_chunk::<4>()?;
                let count = u32::from_le_bytes(*count) as usize;
                let mut jobs = Vec::with_capacity(count.min(rest.len()));
                for _ in 0..count {
                    let (job, after) = WireJob::decode(rest)?;
                    jobs.push(job);
                    rest = after;
                }
                if !rest.is_empty() {
                    return None;
                }
                Message::Work(jobs)
            }
            3 if rest.is_empty() => Message::Nothing,
            4 if rest.len() == 9 => Message::Token {
                black: rest[0] != 0,
                count: i64::from_le_bytes(rest[1..].try_into().ok()?),
            },
            5 if rest.is_empty() => Message::Done,
            6 if rest.is_empty() => Message::Stop,
            7 => Message::Output(rest.to_vec()),
            8 if rest.len() == 8 + 16 + 8 + 8 + 8 + 1 => Message::Totals(Totals {
                matches: u64::from_le_bytes(rest[0..8].try_into().ok()?),
                bytes: u128::from_le_bytes(rest[8..24].try_into().ok()?),
                examined: u64::from_le_bytes(rest[24..32].try_into().ok()?),
                pieces: u64::from_le_bytes(rest[32..40].try_into().ok()?),
                workers: u64::from_le_bytes(rest[40..48].try_into().ok()?),
                status: rest[48],
            }),
            9 if rest.len() == 1 => Message::Status(rest[0]),
            10 => {
                let (status, rest) = take_status(rest)?;
                let (len, rest) = rest.split_first_chunk::<4>()?;
                let len = u32::from_le_bytes(*len) as usize;
                let (host, why) = (rest.get(..len)?, rest.get(len..)?);
                Message::Verdict {
                    status,
                    why: why.to_vec(),
                    host: host.to_vec(),
                }
            }
            11 => match take_status(rest)? {
                (status, []) => Message::Agreed(status),
                _ => return None,
            },
            12 if rest.len() == 32 => {
                let count = |at: usize| rest[at..at + 8].try_into().ok().map(u64::from_le_bytes);
                Message::Progress(Published {
                    examined: count(0)?,
                    matches: count(8)?,
                    queued: count(16)?,
                    listed: count(24)?,
                })
            }
            _ => return None,
        };
        Some(message)
    }
}

/// An optional status: a flag byte, then the status.
fn push_status(out: &mut Vec<u8>, status: Option<u8>) {
    out.push(u8::from(status.is_some()));
    out.push(status.unwrap_or(0));
}

fn take_status(bytes: &[u8]) -> Option<(Option<u8>, &[u8])> {
    let (&[some, status], rest) = bytes.split_first_chunk::<2>()?;
    let status = match some {
        0 => None,
        1 => Some(status),
        _ => return None,
    };
    Some((status, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back_as_written() {
        let job = WireJob {
            root: 1,
            depth: 2,
            below: b"a/b".to_vec(),
            print_if_empty: false,
            tracked_only: false,
            piece: None,
        };
        let messages = [
            Message::Ask,
            Message::Work(vec![job.clone(), job]),
            Message::Work(Vec::new()),
            Message::Nothing,
            Message::Token {
                black: true,
                count: -3,
            },
            Message::Done,
            Message::Stop,
            Message::Output(b"a\nb\n".to_vec()),
            Message::Output(Vec::new()),
            Message::Totals(Totals {
                matches: 5,
                bytes: u128::MAX,
                examined: 9,
                pieces: 2,
                workers: 3,
                status: 1,
            }),
            Message::Status(1),
            Message::Verdict {
                status: Some(2),
                why: b"--newer 'ref': No such file".to_vec(),
                host: b"node7".to_vec(),
            },
            Message::Verdict {
                status: None,
                why: Vec::new(),
                host: Vec::new(),
            },
            Message::Agreed(None),
            Message::Agreed(Some(2)),
            Message::Progress(Published {
                examined: u64::MAX,
                matches: 1,
                queued: 2,
                listed: 3,
            }),
        ];
        for message in messages {
            let bytes = message.encode();
            assert_eq!(Message::decode(&bytes), Some(message.clone()));
            // One byte more or less is not a message (output blocks aside, whose
            // length is the message's).
            if !matches!(message, Message::Output(_) | Message::Verdict { .. }) {
                assert_eq!(Message::decode(&bytes[..bytes.len() - 1]), None);
                let mut longer = bytes.clone();
                longer.push(0);
                assert_eq!(Message::decode(&longer), None, "{message:?}");
            }
        }
        assert_eq!(Message::decode(&[]), None);
        assert_eq!(Message::decode(&[42]), None);
    }
}
