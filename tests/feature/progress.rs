//! The status line on SIGUSR1: sent mid-walk, it prints one line on stderr and the
//! walk's output is what it is without it. The walk is held mid-way by its own
//! stdout, a pipe nobody reads until the line has come (no clock involved). Sent
//! once the listing is over, held by the last command of `--exec-batch`, the line
//! says exactly what the walk came to, though the workers publish their counts
//! only when asked.

use crate::testenv::{gated_paths, gated_tree, lines_of, pfind_command, reset_gate, split_records};
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::time::Duration;

#[test]
fn sigusr1_mid_walk_prints_the_status_line_and_changes_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    // About 1 MB of paths: far more than a pipe and a worker's block hold, so the
    // walk waits on its stdout until the test reads it.
    let name = "n".repeat(120);
    for dir in 0..100 {
        let dir = tmp.path().join(format!("d{dir}"));
        std::fs::create_dir(&dir).unwrap();
        for file in 0..80 {
            std::fs::write(dir.join(format!("{name}{file}")), b"").unwrap();
        }
    }
    let expected = pfind_command(tmp.path(), &["-j", "2"]).output().unwrap();
    let mut expected = split_records(&expected.stdout, b'\n');
    expected.sort();
    // Without --progress the entries are not counted: the directories listed are.
    for (extra, counted) in [
        (None, "directories listed,"),
        (Some("--progress"), "entries examined,"),
    ] {
        let mut args = vec!["-j", "2"];
        args.extend(extra);
        let mut child = pfind_command(tmp.path(), &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // The first byte: the walk, and so the status line's watcher, has started.
        let mut first = [0u8; 1];
        stdout.read_exact(&mut first).unwrap();
        // SAFETY: `kill` with the pid of a child that has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGUSR1) }, 0);
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let figures = line
            .strip_prefix("pfind: ")
            .and_then(|rest| rest.strip_suffix(" directories waiting\n"))
            .unwrap_or_else(|| panic!("not a status line: {line:?}"));
        let words: Vec<&str> = figures.split(' ').collect();
        assert_eq!(words[1..3].join(" "), counted, "{line}");
        assert_eq!(words[4], "matches,", "{line}");
        // Numbers, whatever they are: the line may come before a worker publishes.
        for figure in [words[0], words[3]] {
            assert!(figure.parse::<u64>().is_ok(), "{line}");
        }
        let mut rest = first.to_vec();
        stdout.read_to_end(&mut rest).unwrap();
        let mut more = String::new();
        stderr.read_to_string(&mut more).unwrap();
        assert_eq!(more, "");
        assert!(child.wait().unwrap().success());
        let mut got = split_records(&rest, b'\n');
        got.sort();
        assert_eq!(got.len(), 8_000);
        assert!(got == expected, "the output changed");
    }
}

#[test]
fn sigusr1_after_the_listing_says_exactly_what_the_walk_came_to() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    gated_tree(base, 300);
    let stats = pfind_command(base, &["tree", "--stats", "-c"])
        .output()
        .unwrap();
    let stats = String::from_utf8(stats.stderr).unwrap();
    let examined = stats
        .lines()
        .find_map(|line| line.strip_suffix(" entries examined"))
        .unwrap_or_else(|| panic!("no entries examined in {stats:?}"));
    let expected = pfind_command(base, &["tree"]).output().unwrap();
    let mut expected = split_records(&expected.stdout, b'\n');
    expected.sort();
    assert_eq!(expected.len(), 600);
    let counted = [
        (None, "301 directories listed, 600 matches,".to_owned()),
        (
            Some("--progress"),
            format!("{examined} entries examined, 600 matches,"),
        ),
    ];
    for (extra, counts) in counted {
        reset_gate(base);
        let mut args = vec!["tree", "-j", "3"];
        args.extend(extra);
        args.extend(["--exec-batch", "sh", "gate.sh", "{}", "+"]);
        let mut child = pfind_command(base, &args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = lines_of(child.stderr.take().unwrap());
        // Every path written: the walk is over, its last command waits on `go`.
        let got = gated_paths(base, expected.len(), || false).unwrap();
        // SAFETY: `kill` with the pid of a child that has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGUSR1) }, 0);
        let line = stderr.recv_timeout(Duration::from_secs(60)).unwrap();
        let figures = line
            .strip_prefix("pfind: ")
            .unwrap_or_else(|| panic!("not a status line: {line:?}"));
        assert!(figures.starts_with(&counts), "{line} (expected {counts})");
        assert!(figures.ends_with(" s, 0 directories waiting"), "{line}");
        std::fs::write(base.join("go"), b"").unwrap();
        assert!(child.wait().unwrap().success());
        let rest: Vec<String> = stderr.iter().collect();
        assert!(rest.is_empty(), "{rest:?}");
        assert!(got == expected, "the output changed");
    }
}
