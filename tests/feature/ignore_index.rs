//! `--ignore`'s reading of git's index when it is not what git wrote (issue 47):
//! an index rewritten in place with other bytes of the same size (torn, as a
//! copy over it leaves it while pfind reads) is refused with one warning, and
//! the walk goes on without the tracked-file answer; an index git wrote (SHA-1 or
//! SHA-256 repository, checksum or `index.skipHash`) is read as git reads it.

use crate::testenv::{split_records, THREAD_COUNTS};
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs git in `dir`, without the machine's configuration; it must succeed.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_CONFIG_GLOBAL")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository in `dir` (made with `init`'s extra words) whose `*.log` files
/// are ignored, one of them tracked all the same (`git add -f`).
fn repository(dir: &Path, init: &[&str]) {
    std::fs::create_dir(dir).unwrap();
    git(dir, &[&["init", "-q"], init].concat());
    std::fs::write(dir.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(dir.join("kept.log"), b"").unwrap();
    std::fs::write(dir.join("other.log"), b"").unwrap();
    std::fs::write(dir.join("plain"), b"").unwrap();
    git(dir, &["add", ".gitignore", "plain"]);
    git(dir, &["add", "-f", "kept.log"]);
}

/// `pfind --ignore -0` in `dir` at `threads`: sorted paths, and stderr.
fn ignore_walk(dir: &Path, threads: &str) -> (Vec<Vec<u8>>, String) {
    let out = crate::testenv::pfind_command(dir, &["--ignore", "-0", "-j", threads])
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("PFIND_OPTIONS")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut paths = split_records(&out.stdout, 0);
    paths.sort();
    (paths, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn an_index_git_wrote_is_read_whatever_its_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let tracked_and_ignored = vec![
        b".gitignore".to_vec(),
        b"kept.log".to_vec(),
        b"plain".to_vec(),
    ];
    let kinds: [(&str, &[&str]); 3] = [
        ("sha1", &[]),
        ("sha256", &["--object-format=sha256"]),
        // No checksum written: zeros where it would be.
        ("skiphash", &[]),
    ];
    for (name, init) in kinds {
        let dir = tmp.path().join(name);
        repository(&dir, init);
        if name == "skiphash" {
            git(&dir, &["config", "index.skipHash", "true"]);
            std::fs::write(dir.join("new"), b"").unwrap();
            git(&dir, &["add", "new"]);
            let index = std::fs::read(dir.join(".git/index")).unwrap();
            assert!(index.ends_with(&[0; 20]), "git wrote a checksum");
        }
        for threads in THREAD_COUNTS {
            let (paths, stderr) = ignore_walk(&dir, threads);
            let mut want = tracked_and_ignored.clone();
            if name == "skiphash" {
                want.push(b"new".to_vec());
                want.sort();
            }
            assert_eq!(paths, want, "{name}, -j {threads}: {stderr}");
            assert_eq!(stderr, "", "{name}");
        }
    }
}

/// One byte of a path changed in place, the size kept: before issue 47 the
/// index was believed (`kept.log` silently left out as untracked).
#[test]
fn a_torn_index_is_refused_with_one_warning_and_the_walk_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, init) in [("sha1", &[][..]), ("sha256", &["--object-format=sha256"])] {
        let dir = tmp.path().join(name);
        repository(&dir, init);
        let file = dir.join(".git/index");
        let mut index = std::fs::read(&file).unwrap();
        let at = index.windows(8).position(|w| w == b"kept.log").unwrap();
        index[at] = b'K';
        std::fs::write(&file, &index).unwrap();
        for threads in THREAD_COUNTS {
            let (paths, stderr) = ignore_walk(&dir, threads);
            // Without the tracked-file answer, the rules alone decide.
            assert_eq!(
                paths,
                [&b".gitignore"[..], b"plain"],
                "{name}, -j {threads}"
            );
            let warnings: Vec<&str> = stderr.lines().collect();
            assert_eq!(warnings.len(), 1, "{name}, -j {threads}: {stderr}");
            assert!(
                warnings[0].starts_with("pfind: warning: ")
                    && warnings[0].contains(".git/index: its checksum does not match"),
                "{stderr}"
            );
        }
    }
}

/// An index over a megabyte is mapped under a read lease on Linux rather than
/// read (`src/os/leased_map.rs`): the answer is git's all the same, the tracked
/// ignored file kept and the untracked ones left out, at every thread count.
#[test]
fn an_index_over_a_megabyte_is_read_as_git_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("large");
    repository(&dir, &[]);
    let mut want = vec![
        b".gitignore".to_vec(),
        b"kept.log".to_vec(),
        b"plain".to_vec(),
    ];
    for d in 0..60 {
        let sub = dir.join(format!("module_with_a_long_name_{d:02}"));
        std::fs::create_dir(&sub).unwrap();
        for f in 0..200 {
            let name = format!("source_file_{f:03}.rs");
            std::fs::write(sub.join(&name), b"").unwrap();
            want.push(format!("module_with_a_long_name_{d:02}/{name}").into_bytes());
        }
        std::fs::write(sub.join("build.log"), b"").unwrap();
    }
    git(&dir, &["add", "."]);
    let size = std::fs::metadata(dir.join(".git/index")).unwrap().len();
    assert!(
        size > 1 << 20,
        "an index of {size} bytes is read, not mapped"
    );
    want.sort();
    for threads in THREAD_COUNTS {
        let (paths, stderr) = ignore_walk(&dir, threads);
        assert!(
            paths == want,
            "-j {threads}: {} paths, {stderr}",
            paths.len()
        );
        assert_eq!(stderr, "");
    }
}
