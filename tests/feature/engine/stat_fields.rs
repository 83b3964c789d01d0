//! Only the fields a run needs: on Linux each entry's `statx` asks for the fields
//! the filters and the output read, and `--cached` sets its sync flag. Checked on
//! the system calls themselves, as `strace` shows them (skipped, saying so, where
//! `strace` cannot run or the build calls `fstatat`).

use crate::testenv::TestEnv;
use std::process::Command;

/// The flags and mask of the `statx` pfind made for the entry `name`, as strace
/// prints them (`AT_SYMLINK_NOFOLLOW`, `STATX_TYPE|STATX_SIZE`); `None` when there
/// was none.
fn statx_of(env: &TestEnv, args: &[&str], name: &str) -> Option<Option<(String, String)>> {
    let pfind = env!("CARGO_BIN_EXE_pfind");
    let out = Command::new("strace")
        .args(["-f", "-e", "trace=statx", "-o", "/dev/stderr", pfind])
        .args(args)
        .args(["-j", "1"])
        .current_dir(env.root())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "strace did not run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let trace = String::from_utf8_lossy(&out.stderr);
    let needle = format!(", \"{name}\", ");
    let Some(line) = trace.lines().find(|line| line.contains(&needle)) else {
        return Some(None);
    };
    let after = &line[line.find(&needle).unwrap() + needle.len()..];
    let mut parts = after.splitn(3, ", ");
    let flags = parts.next().unwrap().to_string();
    let mask = parts.next().unwrap().to_string();
    Some(Some((flags, mask)))
}

#[test]
fn each_run_asks_for_the_fields_it_reads() {
    if cfg!(feature = "portable") || !cfg!(target_os = "linux") {
        return;
    }
    let env = TestEnv::new(&[], &["a"]);
    let Some(plain) = statx_of(&env, &["-c"], "a") else {
        eprintln!("skipped: strace cannot run here");
        return;
    };
    // Counted from `d_type` alone: no `stat` at all.
    assert_eq!(plain, None);
    let cases: &[(&[&str], &str)] = &[
        (&["-S", "+0"], "STATX_TYPE|STATX_SIZE"),
        (&["-t", "x"], "STATX_TYPE|STATX_MODE"),
        (&["--owner", "0"], "STATX_TYPE|STATX_UID|STATX_GID"),
        (&["--changed-within", "1d"], "STATX_TYPE|STATX_MTIME"),
        (
            &["--time", "accessed", "--changed-within", "1d"],
            "STATX_TYPE|STATX_ATIME",
        ),
        (
            &["--time", "changed", "--changed-within", "1d"],
            "STATX_TYPE|STATX_CTIME",
        ),
        (
            &["--time", "birth", "--changed-within", "1d"],
            "STATX_TYPE|STATX_BTIME",
        ),
        (&["-l"], "STATX_TYPE|STATX_SIZE"),
        (
            &["--format", "{size} {mtime}"],
            "STATX_TYPE|STATX_MTIME|STATX_SIZE",
        ),
        (&["--format", "{owner}"], "STATX_TYPE|STATX_UID|STATX_GID"),
    ];
    for &(args, want) in cases {
        let (flags, mask) = statx_of(&env, args, "a").unwrap().expect("a statx");
        assert_eq!(mask, want, "{args:?}");
        assert_eq!(
            flags, "AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW",
            "{args:?}"
        );
    }
    // `--cached`: GNU stat's words, statx's sync flags.
    for (word, flag) in [
        ("always", "AT_STATX_DONT_SYNC|AT_SYMLINK_NOFOLLOW"),
        ("never", "AT_STATX_FORCE_SYNC|AT_SYMLINK_NOFOLLOW"),
        ("default", "AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW"),
    ] {
        let args = ["-S", "+0", "--cached", word];
        let (flags, mask) = statx_of(&env, &args, "a").unwrap().expect("a statx");
        assert_eq!(
            (flags.as_str(), mask.as_str()),
            (flag, "STATX_TYPE|STATX_SIZE")
        );
    }
}

/// `--cached` takes GNU stat's three words and refuses others, naming them.
#[test]
fn cached_takes_three_words() {
    let env = TestEnv::new(&[], &["a"]);
    let out = env.run(&["--cached", "sometimes"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("'sometimes' is not one of default, always, never"),
        "{said}"
    );
    assert_eq!(out.status.code(), Some(2));
    for word in ["default", "always", "never"] {
        env.assert_output(&["--cached", word, "-S", "-10"], &["a"]);
    }
}
