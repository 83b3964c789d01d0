//! pfind against independent oracles on random trees: a plain recursive
//! `std::fs::read_dir` walk, and GNU `find` itself. Sets of path bytes must be equal
//! and no path may be printed twice, at every thread count, many times over (a
//! quiescence race would show up as a missing subtree or a hang).

mod testenv;

use std::os::unix::ffi::OsStrExt;
use testenv::{assert_same_records, oracle_files, pfind_command, random_tree, split_records};

const THREADS: [&str; 6] = ["1", "2", "3", "4", "8", "16"];

#[test]
fn random_trees_match_the_oracle_at_every_thread_count() {
    for seed in 0..6u64 {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let entries = random_tree(&root, seed, 2_000 + 500 * seed as usize);
        let root_bytes = root.as_os_str().as_bytes();
        let expected = oracle_files(root_bytes);
        assert!(expected.len() > entries / 3, "seed {seed}: tree too sparse");
        for threads in THREADS {
            // Repeat to give a race in the pool's termination a chance to show.
            for round in 0..5 {
                let out = pfind_command(
                    tmp.path(),
                    &[
                        root.as_os_str(),
                        "-0".as_ref(),
                        "-j".as_ref(),
                        threads.as_ref(),
                    ],
                )
                .output()
                .unwrap();
                assert_eq!(String::from_utf8_lossy(&out.stderr), "");
                assert!(out.status.success());
                let context = format!("seed {seed}, -j {threads}, round {round}");
                assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
            }
        }
    }
}

#[test]
fn relative_roots_match_find_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("tree")).unwrap();
    random_tree(&tmp.path().join("tree"), 42, 3_000);
    for root in ["tree", "tree/", "."] {
        let find = std::process::Command::new("find")
            .current_dir(tmp.path())
            .args([root, "-type", "f", "-print0"])
            .output()
            .expect("GNU find is needed for this test");
        assert!(find.status.success());
        let expected = split_records(&find.stdout, 0);
        for threads in THREADS {
            let out = pfind_command(tmp.path(), &[root, "-0", "-j", threads])
                .output()
                .unwrap();
            assert!(out.status.success());
            let context = format!("root {root:?}, -j {threads}");
            assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
        }
    }
}

#[test]
fn count_equals_the_number_of_oracle_files() {
    let tmp = tempfile::tempdir().unwrap();
    random_tree(tmp.path(), 7, 4_000);
    let expected = oracle_files(tmp.path().as_os_str().as_bytes()).len();
    for threads in THREADS {
        let out = pfind_command(tmp.path(), &["-c", "-j", threads])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{expected}\n")
        );
    }
}
