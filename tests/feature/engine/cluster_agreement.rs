//! The cluster walk's ranks agree before they walk, and trade pieces of a giant
//! directory only where the cookies mean the same (issue 47), with ranks as
//! threads (the in-memory transport, random delays): a rank that refuses the
//! command line ends every rank, its refusal said once by rank 0; a rank whose
//! path for the giant directory is another directory sends its pieces back.

use crate::testenv::{assert_same_records, on_ranks, oracle_files, split_records, Captured};
use pfind::cluster::agree::{agree, Agreed, Verdict};
use pfind::cluster::rank::{self, Ended};
use pfind::output::{Output, OutputMode};
use pfind::report::Reporter;
use pfind::Config;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

fn refused(why: &str) -> Verdict {
    Verdict::Exit {
        status: 2,
        why: why.as_bytes().to_vec(),
    }
}

#[test]
fn a_rank_that_refuses_the_command_line_ends_every_rank_and_is_named_once() {
    for ranks in [2, 3, 8] {
        for refusing in [0, 1, ranks - 1] {
            let ends = on_ranks(ranks, Duration::from_micros(300), 5, move |link| {
                let own = match link.rank() == refusing {
                    true => refused("invalid value 'ref' for '--newer <FILE>'"),
                    false => Verdict::Walk,
                };
                agree(link, own)
            });
            let context = format!("rank {refusing} of {ranks} refuses");
            for (rank, end) in ends.iter().enumerate() {
                let Agreed::Exit { status, own, say } = end else {
                    panic!("{context}: rank {rank} walks");
                };
                assert_eq!(*status, 2, "{context}");
                if rank == 0 {
                    // Said once, naming the rank; rank 0's own words are not said
                    // again as they would be alone.
                    assert!(!own, "{context}");
                    assert_eq!(say.len(), 1, "{context}");
                    let line = String::from_utf8_lossy(&say[0]);
                    let named = format!("rank {refusing} on ");
                    assert!(line.starts_with(&named), "{context}: {line}");
                    assert!(line.ends_with("'--newer <FILE>'"), "{context}: {line}");
                } else {
                    assert!(say.is_empty());
                }
            }
        }
        // Every rank refusing alike: rank 0 says it as pfind would.
        let ends = on_ranks(ranks, Duration::ZERO, 5, |link| agree(link, refused("-L")));
        assert!(matches!(&ends[0], Agreed::Exit { status: 2, own: true, say } if say.is_empty()));
        // `--help` on rank 0 (status 0, nothing to say) ends all with 0.
        let ends = on_ranks(ranks, Duration::ZERO, 5, |link| {
            let own = match link.rank() {
                0 => Verdict::Exit {
                    status: 0,
                    why: Vec::new(),
                },
                _ => Verdict::Walk,
            };
            agree(link, own)
        });
        assert!(ends
            .iter()
            .all(|end| matches!(end, Agreed::Exit { status: 0, .. })));
        // All ready: all walk.
        let ends = on_ranks(ranks, Duration::from_micros(100), 5, |link| {
            agree(link, Verdict::Walk)
        });
        assert!(ends.iter().all(|end| *end == Agreed::Walk));
    }
}

/// `configs[rank]` walked on its rank; rank 0's output and every rank's end.
fn cluster_walk_each(configs: Vec<Config>, delay: Duration) -> (Vec<u8>, Vec<Ended>) {
    let captured = Captured::default();
    let stdout = captured.clone();
    let ends = on_ranks(configs.len(), delay, 5, move |link| {
        let output = rank::rank_output(link, Output::to_writer(Box::new(stdout.clone())));
        rank::run(&configs[link.rank()], link, &output, &Reporter::new())
    });
    let bytes = captured.0.lock().unwrap().clone();
    (bytes, ends)
}

fn giant(dir: &Path, prefix: &str, files: usize) {
    std::fs::create_dir(dir).unwrap();
    for i in 0..files {
        std::fs::write(dir.join(format!("{prefix}.{i}")), b"").unwrap();
    }
}

/// Rank 2's root is another directory than ranks 0 and 1's (as a `--rank-root`
/// on another filesystem would be): the pieces of the giant directory it is sent
/// are sent back and listed by the ranks whose cookies they are; rank 1, whose
/// root is the same directory, still lists pieces. Every entry once, none of the
/// other directory's.
#[test]
fn pieces_go_only_to_ranks_that_list_the_same_cookies() {
    let tmp = tempfile::tempdir().unwrap();
    let same = tmp.path().join("giant");
    let other = tmp.path().join("other");
    giant(&same, "file.mdtest", 20_000);
    giant(&other, "elsewhere", 20_000);
    let expected = oracle_files(same.as_os_str().as_bytes());
    let config = |root: &Path| {
        let mut config = Config::new(vec![root.as_os_str().to_owned()]);
        config.output = OutputMode::Paths { terminator: 0 };
        config.threads = 1;
        config.exact_threads = true;
        config.split_every_listing = true;
        config.listing_buffer = Some(1024);
        config.stats = true;
        config
    };
    let mut listed_by_rank_1 = 0;
    for run in 0..3 {
        let configs = vec![config(&same), config(&same), config(&other)];
        let (bytes, ends) = cluster_walk_each(configs, Duration::from_micros(200));
        let context = format!("run {run}");
        assert_same_records(&context, &split_records(&bytes, 0), &expected);
        assert!(ends.iter().all(|end| end.status == 0), "{context}");
        assert_eq!(ends[2].summary.pieces, 0, "{context}");
        assert_eq!(ends[0].summary.examined, 20_000, "{context}");
        listed_by_rank_1 += ends[1].summary.pieces;
    }
    assert!(listed_by_rank_1 > 0, "no piece was listed on rank 1");
}
