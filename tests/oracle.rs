//! pfind against independent oracles on random trees: a plain recursive
//! `std::fs::read_dir` walk, and GNU `find` itself. Sets of path bytes must be equal
//! and no path may be printed twice, at every thread count, many times over (a
//! quiescence race would show up as a missing subtree or a hang).
//!
//! scripts/test.sh runs this file twice: as built, and built with the `portable`
//! feature, which walks Linux as macOS and the BSDs are walked (the `readdir`
//! reader, no `openat2`, no Linux-only helpers), so that the path those systems run
//! is held to the same oracles here.

mod testenv;

use pfind::os::dirent::ReaderKind;
use std::ffi::OsStr;
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

/// The run of this file with `--features portable` must walk with the reader other
/// systems use; otherwise it would test `getdents64` a second time and say nothing
/// of theirs. The binary is built with the same features as this test.
#[test]
fn the_portable_build_walks_with_readdir() {
    let expected = if cfg!(feature = "portable") {
        ReaderKind::Readdir
    } else {
        #[cfg(target_os = "linux")]
        let native = ReaderKind::Getdents;
        #[cfg(not(target_os = "linux"))]
        let native = ReaderKind::Readdir;
        native
    };
    assert_eq!(ReaderKind::native(), expected);
}

/// Where a reader could lose or repeat an entry: directories listed in many batches
/// (`getdents64` fills 64 KiB at a time, glibc's `readdir` 32 KiB), names of every
/// length from 1 to 255 bytes (a name's end is found in the last 8 bytes of its
/// record, which differ per reader), names that are not UTF-8 or start with dots.
/// Every file once, as `find` lists them, at several thread counts.
#[test]
fn every_name_length_in_directories_of_many_batches_is_listed_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    for dir in ["", "many", "many/again", "few"] {
        let dir = root.join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let count = if dir.ends_with("few") { 9 } else { 1_500 };
        for i in 0..count {
            // Lengths 1 to 255, each name unique by its number.
            let serial = format!("{i:x}");
            let mut name = serial.clone().into_bytes();
            let len = 1 + i % 255;
            let fill: &[u8] = match i % 4 {
                0 => b"x",
                1 => b"\xff",
                2 => b".",
                _ => "\u{e9}".as_bytes(),
            };
            while name.len() + fill.len() <= len {
                name.extend_from_slice(fill);
            }
            if name.len() < len {
                name.push(b'_');
            }
            if i % 7 == 0 {
                name.insert(0, b'.');
            }
            name.truncate(255);
            std::fs::write(dir.join(OsStr::from_bytes(&name)), b"").unwrap();
        }
    }
    let find = std::process::Command::new("find")
        .current_dir(tmp.path())
        .args(["root", "-type", "f", "-print0"])
        .output()
        .expect("GNU find is needed for this test");
    assert!(find.status.success());
    let expected = split_records(&find.stdout, 0);
    assert_eq!(expected.len(), 3 * 1_500 + 9);
    for threads in ["1", "2", "8"] {
        let out = pfind_command(tmp.path(), &["root", "-0", "-j", threads])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert!(out.status.success());
        let context = format!("-j {threads}");
        assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
    }
}
