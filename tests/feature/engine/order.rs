//! The order of the walk: directories near a root are read before deep ones, so a
//! search that stops early (`-1`, `--max-results`, `-q`, a closed pipe) finds what is
//! shallow, and a stream starts with it. The trees here are built so that a
//! depth-first walk would lose: the shallow match sits in one directory among many
//! whose only content is a long chain of directories with a match at its end.

use crate::testenv::{pfind_command, split_records};
use std::path::Path;

/// `root/d0` .. `root/d{width-1}`, each holding a chain of `chain` directories with
/// `x.txt` at its end; `root/d{shallow}` also holds `x.txt` itself (depth 2).
fn tree_where_depth_first_loses(root: &Path, width: usize, chain: usize, shallow: usize) {
    for d in 0..width {
        let mut dir = root.join(format!("d{d}"));
        for level in 0..chain {
            dir = dir.join(format!("c{level}"));
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("x.txt"), b"").unwrap();
    }
    std::fs::write(root.join(format!("d{shallow}")).join("x.txt"), b"").unwrap();
}

fn lines(stdout: &[u8]) -> Vec<String> {
    split_records(stdout, b'\n')
        .into_iter()
        .map(|line| String::from_utf8(line).unwrap())
        .collect()
}

/// Path depth below the root `.` (whose entries are printed without a prefix).
fn depth(path: &str) -> usize {
    path.split('/').count()
}

#[test]
fn the_first_match_is_the_shallow_one_where_depth_first_would_find_a_deep_one() {
    let tmp = tempfile::tempdir().unwrap();
    // Whichever of the eight directories a depth-first walk entered first, seven of
    // them lead only to a match 41 levels down.
    for shallow in [0, 3, 7] {
        let root = tmp.path().join(format!("tree{shallow}"));
        tree_where_depth_first_loses(&root, 8, 40, shallow);
        for args in [
            &["-n", "x.txt", "-1"][..],
            &["-n", "x.txt", "--max-results", "1"],
        ] {
            let out = pfind_command(&root, &[args, &["-j", "1"]].concat())
                .output()
                .unwrap();
            assert!(out.status.success());
            assert_eq!(
                lines(&out.stdout),
                [format!("d{shallow}/x.txt")],
                "{args:?}"
            );
        }
        // -q stops at the first match too, and says it found one.
        let out = pfind_command(&root, &["-n", "x.txt", "-q", "-j", "1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
    }
}

/// The depth to which directories are read level by level (`queue::BREADTH_FIRST_DEPTH`):
/// files to one level below it come out in order of depth.
const BREADTH_FIRST_DEPTH: usize = 4;

/// One worker reads the directories to [`BREADTH_FIRST_DEPTH`] level by level, so
/// files to that depth come first, shallowest first; below it each directory is
/// followed by its whole subtree, so each chain's deep files come out together,
/// in order down the chain.
#[test]
fn one_worker_prints_level_by_level_then_one_subtree_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    tree_where_depth_first_loses(root, 6, 12, 2);
    // At depths 3, 4, 6 and 11 in each chain.
    for d in 0..6 {
        for level in [1, 2, 4, 9] {
            let mut dir = root.join(format!("d{d}"));
            for c in 0..level {
                dir = dir.join(format!("c{c}"));
            }
            std::fs::write(dir.join(format!("f{level}")), b"").unwrap();
        }
    }
    let out = pfind_command(root, &["-j", "1"]).output().unwrap();
    assert!(out.status.success());
    let printed = lines(&out.stdout);
    assert_eq!(printed.len(), 6 * 5 + 1);
    let depths: Vec<usize> = printed.iter().map(|path| depth(path)).collect();
    let (shallow, deep) = depths.split_at(1 + 6 * 2);
    assert!(shallow.windows(2).all(|w| w[0] <= w[1]), "{printed:?}");
    assert!(
        shallow.iter().all(|&d| d <= BREADTH_FIRST_DEPTH),
        "{printed:?}"
    );
    // Below, one chain after another: its files at depths 6, 11 and 14 (x.txt).
    for (chain, paths) in printed[1 + 6 * 2..].chunks(3).enumerate() {
        let top = paths[0].split('/').next().unwrap();
        assert!(
            paths.iter().all(|p| p.starts_with(&format!("{top}/"))),
            "chain {chain} mixed with another: {printed:?}"
        );
        let chain_depths: Vec<usize> = paths.iter().map(|p| depth(p)).collect();
        assert_eq!(chain_depths, [6, 11, 14], "{printed:?}");
    }
    assert_eq!(deep.len(), 6 * 3);
}

/// At any thread count the first N matches are exactly N distinct matches, whatever
/// order the workers found them in, and the walk ends.
#[test]
fn the_first_n_are_exactly_n_real_matches_at_every_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    tree_where_depth_first_loses(root, 8, 30, 5);
    let all: Vec<String> = (0..8)
        .map(|d| {
            let chain: Vec<String> = (0..30).map(|c| format!("c{c}")).collect();
            format!("d{d}/{}/x.txt", chain.join("/"))
        })
        .chain(["d5/x.txt".to_string()])
        .collect();
    for threads in ["1", "2", "3", "8", "16", "64"] {
        for n in ["1", "2", "5", "9", "100"] {
            let out = pfind_command(root, &["-n", "x.txt", "--max-results", n, "-j", threads])
                .output()
                .unwrap();
            assert!(out.status.success());
            let printed = lines(&out.stdout);
            let want = n.parse::<usize>().unwrap().min(all.len());
            assert_eq!(printed.len(), want, "-j {threads} --max-results {n}");
            let mut distinct = printed.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), want, "printed twice: {printed:?}");
            assert!(printed.iter().all(|p| all.contains(p)), "{printed:?}");
        }
    }
}

/// A walk that stops at its first matches stays breadth-first well past the
/// 1,024 directories after which a full walk goes depth-first: here 1,500
/// directories at depth 1 each lead to a match 4 levels down, and only the last
/// one listed holds a match at depth 2.
#[test]
fn a_search_stays_breadth_first_past_the_full_walks_frontier() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for d in 0..1500 {
        let chain = root.join(format!("d{d:04}/a/b/c"));
        std::fs::create_dir_all(&chain).unwrap();
        std::fs::write(chain.join("x.txt"), b"").unwrap();
    }
    // Whichever directory is listed last, the shallow match is in it.
    let last = pfind_command(root, &["-t", "d", "-d", "1", "-j", "1"])
        .output()
        .unwrap();
    let last = lines(&last.stdout).pop().unwrap();
    std::fs::write(root.join(&last).join("x.txt"), b"").unwrap();
    for args in [&["-1"][..], &["--max-results", "1"], &["-q"]] {
        let out = pfind_command(root, &[&["-n", "x.txt", "-j", "1"], args].concat())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        if args != ["-q"] {
            assert_eq!(lines(&out.stdout), [format!("{last}/x.txt")], "{args:?}");
        }
    }
}
