//! The ranks agreeing on the command line before any walks. Each rank reads it
//! against its own machine (`--newer FILE`, `-C DIR`, `--owner NAME`,
//! `PFIND_OPTIONS` may hold on one node and not another), so each may refuse it
//! alone; a rank that returned on its own left the others waiting for ever for
//! its asks and its token (issue 47). Here every rank sends its [`Verdict`] to
//! rank 0, which answers all with one: walk, or end with the worst status. Rank 0
//! alone prints: a refusal every rank gave alike as pfind would, otherwise each
//! refusal once, naming the first rank that gave it and its machine.

use super::link::{Link, Pause};
use super::message::Message;

/// What one rank made of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Ready to walk.
    Walk,
    /// Not to walk: end with `status` (0 after `--help`, which rank 0 prints);
    /// `why` is the refusal's one line without the program's name, empty if none.
    Exit { status: u8, why: Vec<u8> },
}

/// What every rank does, agreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreed {
    Walk,
    /// Every rank ends with `status`. On rank 0, `own` says whether it prints
    /// what it made of the line itself (every rank refused alike, or `--help`),
    /// and `say` holds the lines to print (without the program's name) for the ranks'
    /// refusals otherwise.
    Exit {
        status: u8,
        own: bool,
        say: Vec<Vec<u8>>,
    },
}

/// Sends this rank's verdict `own` and returns what all agreed, once every rank
/// has sent its own: call it on every rank before the walk, whatever the rank
/// made of the command line.
pub fn agree(link: &Link, own: Verdict) -> Agreed {
    let mut pause = Pause::new();
    if link.rank() != 0 {
        let (status, why) = match own {
            Verdict::Walk => (None, Vec::new()),
            Verdict::Exit { status, why } => (Some(status), why),
        };
        link.send(
            0,
            &Message::Verdict {
                status,
                why,
                host: crate::os::host::name(),
            },
        );
        return loop {
            if let (0, Message::Agreed(status)) = link.receive(&mut pause) {
                break match status {
                    None => Agreed::Walk,
                    Some(status) => Agreed::Exit {
                        status,
                        own: false,
                        say: Vec::new(),
                    },
                };
            }
        };
    }
    let mut verdicts = vec![None; link.ranks()];
    verdicts[0] = Some(match own {
        Verdict::Walk => (None, Vec::new(), Vec::new()),
        Verdict::Exit { status, why } => (Some(status), why, crate::os::host::name()),
    });
    let mut waiting = link.ranks() - 1;
    while waiting > 0 {
        if let (from, Message::Verdict { status, why, host }) = link.receive(&mut pause) {
            if verdicts[from].is_none() {
                waiting -= 1;
            }
            verdicts[from] = Some((status, why, host));
        }
    }
    let verdicts: Vec<_> = verdicts.into_iter().flatten().collect();
    let status = verdicts.iter().filter_map(|(status, ..)| *status).max();
    for to in 1..link.ranks() {
        link.send(to, &Message::Agreed(status));
    }
    match status {
        None => Agreed::Walk,
        Some(status) => {
            let say = said(&verdicts);
            // Rank 0 refused as all did, or it printed `--help` (nothing to say).
            let (own_status, own_why, _) = &verdicts[0];
            let own = own_status.is_some() && (say.is_empty() || own_why.is_empty());
            Agreed::Exit { status, own, say }
        }
    }
}

/// The lines rank 0 prints for the ranks' refusals (`verdicts` by rank: status,
/// why, host): none if every rank gave the same (rank 0 says it as pfind would),
/// otherwise each refusal once, with the first rank that gave it and how many
/// others did (a thousand ranks refusing a file only rank 0 sees is one line).
fn said(verdicts: &[(Option<u8>, Vec<u8>, Vec<u8>)]) -> Vec<Vec<u8>> {
    if verdicts.iter().all(|(_, why, _)| *why == verdicts[0].1) {
        return Vec::new();
    }
    let mut said: Vec<(usize, &[u8], &[u8], usize)> = Vec::new();
    for (rank, (_, why, host)) in verdicts.iter().enumerate() {
        if why.is_empty() {
            continue;
        }
        match said
            .iter_mut()
            .find(|(_, text, ..)| *text == why.as_slice())
        {
            Some((.., others)) => *others += 1,
            None => said.push((rank, why, host, 0)),
        }
    }
    said.into_iter()
        .map(|(rank, why, host, others)| {
            let mut line = format!("rank {rank}").into_bytes();
            if !host.is_empty() {
                line.extend_from_slice(b" on ");
                line.extend_from_slice(host);
            }
            match others {
                0 => {}
                1 => line.extend_from_slice(b" (and 1 other rank)"),
                n => line.extend_from_slice(format!(" (and {n} other ranks)").as_bytes()),
            }
            line.extend_from_slice(b": ");
            line.extend_from_slice(why);
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(status: Option<u8>, why: &str, host: &str) -> (Option<u8>, Vec<u8>, Vec<u8>) {
        (status, why.into(), host.into())
    }

    #[test]
    fn each_refusal_is_said_once_with_its_first_rank_unless_all_said_it() {
        let verdicts = [
            verdict(None, "", "a"),
            verdict(Some(2), "--newer 'ref': No such file", "b"),
            verdict(None, "", "c"),
            verdict(Some(2), "--newer 'ref': No such file", "d"),
            verdict(Some(2), "-C 'x': Permission denied", "e"),
            verdict(Some(2), "--newer 'ref': No such file", "f"),
        ];
        let lines = |verdicts: &[(Option<u8>, Vec<u8>, Vec<u8>)]| -> Vec<String> {
            said(verdicts)
                .into_iter()
                .map(|line| String::from_utf8(line).unwrap())
                .collect()
        };
        assert_eq!(
            lines(&verdicts),
            [
                "rank 1 on b (and 2 other ranks): --newer 'ref': No such file",
                "rank 4 on e: -C 'x': Permission denied",
            ]
        );
        // Rank 0 alone refused: named too.
        let alone = [
            verdict(Some(2), "-C 'x': Permission denied", "a"),
            verdict(None, "", "b"),
        ];
        assert_eq!(lines(&alone), ["rank 0 on a: -C 'x': Permission denied"]);
        // Every rank refused alike: rank 0 says it as pfind would.
        let alike = [
            verdict(Some(2), "-L is not available", "a"),
            verdict(Some(2), "-L is not available", "b"),
        ];
        assert!(said(&alike).is_empty());
    }
}
