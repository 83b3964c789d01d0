//! `--time`: the time filters on access, inode change and birth time, against GNU
//! `find` (`-amin`, `-mmin`, `-newerXY`) on random trees whose times are set as
//! `touch -a`/`-m` would set them and changed by `chmod`, at `-j 1/2/16`; the birth
//! time against the standard library's `created()` (this system's find has none);
//! and what the output shows of each time.

use crate::testenv::{assert_same_records, pfind_command, random_tree, split_records};
use std::ffi::{CString, OsStr};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const THREADS: [&str; 3] = ["1", "2", "16"];

/// Every entry below `root` but the root itself, depth first (links not followed).
fn entries(root: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            }
            all.push(entry.path());
        }
    }
    all
}

/// `touch -h -a -d @ATIME -m -d @MTIME`: sets a link's own times, not its target's.
fn set_times(path: &Path, atime: i64, mtime: i64) {
    let spec = |secs: i64| libc::timespec {
        tv_sec: secs,
        tv_nsec: 0,
    };
    let times = [spec(atime), spec(mtime)];
    let c_path = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path and two timespecs, as utimensat takes them.
    let done = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    assert_eq!(done, 0, "{path:?}");
}

fn now() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.unwrap().as_secs() as i64
}

/// pfind's and find's answers, as sets of paths, at every thread count.
fn agree(root: &Path, pfind_args: &[&str], find_args: &[&str]) {
    let mut find = Command::new("find");
    find.arg(root).args(["-mindepth", "1"]).args(find_args);
    let found = find.arg("-print0").output().unwrap();
    assert!(found.status.success(), "find {find_args:?}");
    let expected = split_records(&found.stdout, 0);
    for threads in THREADS {
        let mut args: Vec<&OsStr> = vec![root.as_os_str()];
        args.extend(pfind_args.iter().map(OsStr::new));
        args.extend(["-0", "-j", threads].map(OsStr::new));
        let out = pfind_command(root, &args).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{pfind_args:?}");
        assert!(out.status.success());
        let context = format!("pfind {pfind_args:?} -j {threads} against find {find_args:?}");
        assert_same_records(&context, &split_records(&out.stdout, 0), &expected);
    }
}

/// A random tree whose entries have access and modification times spread over 100
/// hours back from now, each half an hour off a whole hour, so that a bound of whole
/// hours never falls within the seconds between two runs.
fn tree_with_times(seed: u64) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    random_tree(&root, seed, 1_500);
    let mut rng = fastrand::Rng::with_seed(seed);
    let now = now();
    let back = |hours: i64| now - hours * 3600 - 1800;
    for path in entries(&root) {
        set_times(&path, back(rng.i64(0..100)), back(rng.i64(0..100)));
    }
    (tmp, root)
}

// Directories are left out of the access-time tests: listing one may update its
// access time (relatime), whoever lists it first, find or pfind.
const FILES_AND_LINKS: [&str; 4] = ["-t", "f", "-t", "l"];
const FIND_FILES_AND_LINKS: [&str; 7] = ["(", "-type", "f", "-o", "-type", "l", ")"];

#[test]
fn access_and_modification_times_agree_with_find() {
    for seed in [1, 2] {
        let (_tmp, root) = tree_with_times(seed);
        for hours in [1, 7, 30, 99] {
            let within = format!("{hours}h");
            let minutes = format!("-{}", hours * 60);
            let older = format!("+{}", hours * 60 - 1);
            for (which, find_test) in [("accessed", "-amin"), ("modified", "-mmin")] {
                let mut args = vec!["--time", which, "--changed-within", &within];
                args.extend(FILES_AND_LINKS);
                let mut find: Vec<&str> = FIND_FILES_AND_LINKS.to_vec();
                find.extend([find_test, minutes.as_str()]);
                agree(&root, &args, &find);
                // find's `+N` is "more than N whole minutes": at least N+1.
                let mut args = vec!["--time", which, "--changed-before", &within];
                args.extend(FILES_AND_LINKS);
                let mut find: Vec<&str> = FIND_FILES_AND_LINKS.to_vec();
                find.extend([find_test, older.as_str()]);
                agree(&root, &args, &find);
            }
        }
        // The letters find's `-newerXY` uses name the same times.
        let reference = root.join("reference");
        std::fs::write(&reference, b"").unwrap();
        set_times(&reference, now() - 40 * 3600, now() - 60 * 3600);
        let reference = reference.to_str().unwrap();
        let mut args = vec!["--time", "a", "--newer", reference];
        args.extend(FILES_AND_LINKS);
        let mut find: Vec<&str> = FIND_FILES_AND_LINKS.to_vec();
        find.extend(["-neweraa", reference]);
        agree(&root, &args, &find);
        let mut args = vec!["--time", "mtime", "--newer", reference];
        args.extend(FILES_AND_LINKS);
        let mut find: Vec<&str> = FIND_FILES_AND_LINKS.to_vec();
        find.extend(["-newermm", reference]);
        agree(&root, &args, &find);
        std::fs::remove_file(reference).unwrap();
    }
}

/// Sleeps past the filesystem's clock tick, so that what is changed next has a
/// later inode change or birth time than what was changed before.
fn tick() {
    std::thread::sleep(Duration::from_millis(30));
}

#[test]
fn change_times_agree_with_find() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    random_tree(&root, 3, 1_500);
    let all = entries(&root);
    tick();
    let reference = tmp.path().join("reference");
    std::fs::write(&reference, b"").unwrap();
    tick();
    // `chmod` on every third entry that is not a link changes its inode change time.
    let mut changed = 0;
    for path in all.iter().step_by(3) {
        let meta = std::fs::symlink_metadata(path).unwrap();
        if !meta.file_type().is_symlink() {
            let mut perms = meta.permissions();
            use std::os::unix::fs::PermissionsExt;
            perms.set_mode(perms.mode() ^ 0o004);
            std::fs::set_permissions(path, perms).unwrap();
            changed += 1;
        }
    }
    assert!(changed > 100);
    let reference = reference.to_str().unwrap();
    let every = ["-t", "f", "-t", "d", "-t", "l", "-t", "p"];
    let mut args = vec!["--time", "changed", "--newer", reference];
    args.extend(every);
    agree(&root, &args, &["-newercc", reference]);
    let mut args = vec!["--time", "ctime", "--newer", reference];
    args.extend(["-t", "f"]);
    agree(&root, &args, &["-type", "f", "-newercc", reference]);
}

/// Birth times: the standard library's `created()` is the oracle (it reads `statx`
/// too, but apart from pfind's code).
#[test]
fn birth_times_agree_with_the_standard_library() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("probe"), b"").unwrap();
    if std::fs::symlink_metadata(root.join("probe"))
        .and_then(|meta| meta.created())
        .is_err()
    {
        eprintln!("skipped: this filesystem records no birth time");
        return;
    }
    random_tree(&root.join("old").tap_dir(), 4, 600);
    tick();
    let reference = tmp.path().join("reference");
    std::fs::write(&reference, b"").unwrap();
    tick();
    random_tree(&root.join("new").tap_dir(), 5, 600);
    // Modified and accessed long before the reference, so that only the birth time
    // tells the new from the old.
    for path in entries(&root) {
        set_times(&path, 1_000_000_000, 1_000_000_000);
    }
    let born = std::fs::symlink_metadata(&reference)
        .unwrap()
        .created()
        .unwrap();
    let mut expected: Vec<Vec<u8>> = entries(&root)
        .into_iter()
        .filter(|path| {
            let meta = std::fs::symlink_metadata(path).unwrap();
            meta.is_file() && meta.created().unwrap() > born
        })
        .map(|path| path.into_os_string().into_vec())
        .collect();
    expected.sort();
    assert!(expected.len() > 100);
    let reference = reference.to_str().unwrap();
    for threads in THREADS {
        let args = [
            root.as_os_str(),
            "--time".as_ref(),
            "birth".as_ref(),
            "--newer".as_ref(),
            reference.as_ref(),
            "-0".as_ref(),
            "-j".as_ref(),
            threads.as_ref(),
        ];
        let out = pfind_command(tmp.path(), &args).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert_same_records(
            &format!("-j {threads}"),
            &split_records(&out.stdout, 0),
            &expected,
        );
    }
    // A date: born within the last hour is every file.
    let out = pfind_command(
        tmp.path(),
        &[
            root.as_os_str(),
            "--time".as_ref(),
            "B".as_ref(),
            "--changed-within".as_ref(),
            "1h".as_ref(),
            "-c".as_ref(),
        ],
    )
    .output()
    .unwrap();
    let files = entries(&root)
        .iter()
        .filter(|path| std::fs::symlink_metadata(path).unwrap().is_file())
        .count();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        files.to_string()
    );
}

trait TapDir {
    /// Creates the directory and gives its path back.
    fn tap_dir(self) -> PathBuf;
}

impl TapDir for PathBuf {
    fn tap_dir(self) -> PathBuf {
        std::fs::create_dir(&self).unwrap();
        self
    }
}

/// Where the filesystem records no birth time (procfs), testing it is an error that
/// names the entry, once per entry, and the run goes on and fails; printing it is
/// `-`.
#[test]
fn a_missing_birth_time_is_an_error_when_tested_and_a_dash_when_shown() {
    let status = "/proc/self/status";
    if std::fs::symlink_metadata(status).is_err() {
        return;
    }
    let cwd = std::env::temp_dir();
    let out = pfind_command(&cwd, &[status, "--time", "birth", "--changed-before", "1d"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: /proc/self/status: no birth time: this filesystem (or system) does not \
         record one\n"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(out.status.code(), Some(1));
    let out = pfind_command(&cwd, &[status, "--format", "{btime} {}"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "- /proc/self/status\n"
    );
    assert!(out.status.success());
    // A --newer FILE without one is refused before the walk.
    let out = pfind_command(&cwd, &[".", "--time", "birth", "--newer", status])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("records no birth time"), "{said}");
    assert_eq!(out.status.code(), Some(2));
}

/// `--format`'s `{atime}`, `{ctime}` and `{btime}`, and `--json -l`'s keys, are the
/// times `stat` reports.
#[test]
fn the_output_shows_each_time() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    set_times(&file, 1_000_000_000, 1_100_000_000);
    let meta = std::fs::metadata(&file).unwrap();
    let out = pfind_command(tmp.path(), &["--format", "{atime}|{mtime}|{ctime}"])
        .output()
        .unwrap();
    // `date`'s own spelling of ISO 8601 with the offset, the independent oracle.
    let iso = |secs: i64| {
        let mut date = Command::new("date");
        date.arg(format!("-d@{secs}")).arg("+%FT%T%:z");
        String::from_utf8(date.output().unwrap().stdout)
            .unwrap()
            .trim_end()
            .to_string()
    };
    let want = format!(
        "{}|{}|{}\n",
        iso(1_000_000_000),
        iso(1_100_000_000),
        iso(meta.ctime())
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let out = pfind_command(tmp.path(), &["--json", "-l"])
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.contains(r#""atime":1000000000,"#), "{line}");
    assert!(
        line.contains(&format!(r#""ctime":{},"#, meta.ctime())),
        "{line}"
    );
    if let Ok(created) = meta.created() {
        let secs = created
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(line.contains(&format!(r#""btime":{secs},"#)), "{line}");
        let out = pfind_command(tmp.path(), &["--format", "{btime}"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            iso(secs as i64) + "\n"
        );
    }
}

/// `--time`'s words and letters, and what it says of one it does not know.
#[test]
fn time_words_and_letters() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("f"), b"").unwrap();
    for word in [
        "modified", "m", "mtime", "accessed", "a", "atime", "changed", "c", "ctime",
    ] {
        let out = pfind_command(tmp.path(), &["--time", word, "--changed-within", "1h"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "f\n", "{word}");
    }
    let out = pfind_command(tmp.path(), &["--time", "x"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("'x' is not one of modified, accessed, changed, birth"),
        "{said}"
    );
    assert_eq!(out.status.code(), Some(2));
}
