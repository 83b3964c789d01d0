//! The status line on SIGUSR1: sent mid-walk, it prints one line on stderr and the
//! walk's output is what it is without it. The walk is held mid-way by its own
//! stdout, a pipe nobody reads until the line has come (no clock involved).

use crate::testenv::{pfind_command, split_records};
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;

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
