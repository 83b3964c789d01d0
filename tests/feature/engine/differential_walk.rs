//! The plain walk against GNU find on random trees with random options (issue 46),
//! and `-G` against fd where fd is installed.
//!
//! Each seed makes a tree (`testenv::random_tree`: odd names, links to
//! directories, dangling links, FIFOs; then sockets, sizes, modification times,
//! sometimes a giant directory, sometimes directories that cannot be read, listed
//! or searched) and a set of options (`-t` kinds and `e`, `-L`, `-x`, `-d`,
//! `--min-depth`, `-E`, `-S`, `--changed-within`, `--changed-before`), each with
//! its meaning in find's words. pfind's lines at -j 1, 2 and 16 must be find's,
//! and its exit status find's (1 where a directory could not be read or a loop
//! was met). As root, both run without `CAP_DAC_OVERRIDE` (through `setpriv`) so
//! that unreadable directories are. A tree with a giant directory is also walked
//! through the library with every listing cut into pieces (`split_every_listing`
//! and a small buffer, as tests/giant.rs does), at 2 and 16 workers.
//!
//! `PFIND_WALK_SEED=N` replays one seed (`PFIND_WALK_KEEP=1` keeps its tree);
//! `PFIND_WALK_TREES` sets the large run's count.

use crate::testenv::{big_tree_dir, is_root, random_tree, split_records, Captured};
use pfind::os::dirent::ReaderKind;
use pfind::output::OutputMode;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// 2020-01-01T00:00:00Z: the trees' times are in the ten days after it.
const EPOCH_2020: i64 = 1_577_836_800;

/// One random tree, in `dir`'s `r`.
struct Tree {
    dir: tempfile::TempDir,
    giant: bool,
    /// The directories in directories that can be listed but not searched (mode
    /// 600), as find prints their paths: the one documented difference (see
    /// docs/design.md, "Guarantees and limits"): find, which cannot `lstat` them,
    /// does not print them; pfind, which has their kind from `d_type`, does. Both
    /// report each as unreadable.
    unsearchable_dirs: Vec<Vec<u8>>,
    /// Whether a directory has mode 600: find cannot `lstat` what is in it, and
    /// its `-prune` then lets through an entry whose name `-name` matched, and
    /// `! -newermt` one whose time it could not read (it prints them, with an
    /// error), so neither `-E` nor `--changed-before` is compared there (pfind
    /// leaves such an entry out, as `-E` says, and one whose time it cannot read).
    has_unsearchable: bool,
    description: String,
}

/// `seconds` since 1970, in UTC, as find's `-newermt` and pfind's time options
/// read them (both run with `TZ=UTC`); `nanos` shown when not zero.
fn utc(seconds: i64, nanos: u32) -> String {
    let day = (seconds - EPOCH_2020).div_euclid(86_400);
    let within = (seconds - EPOCH_2020).rem_euclid(86_400);
    let (h, m, s) = (within / 3600, within / 60 % 60, within % 60);
    let fraction = match nanos {
        0 => String::new(),
        n => format!(".{n:09}"),
    };
    // A bound's nanosecond before is in 2019 for the first bound.
    let date = match day {
        -1 => "2019-12-31".to_owned(),
        day => format!("2020-01-{:02}", day + 1),
    };
    format!("{date} {h:02}:{m:02}:{s:02}{fraction}")
}

/// Sets the modification time of `path`, not following a link.
fn set_mtime(path: &Path, seconds: i64) {
    let mut c_path = path.as_os_str().as_bytes().to_vec();
    c_path.push(0);
    let time = libc::timespec {
        tv_sec: seconds,
        tv_nsec: 0,
    };
    let times = [time, time];
    // SAFETY: a NUL-terminated path and two timespecs.
    let rc = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c_path.as_ptr().cast(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    assert_eq!(rc, 0, "utimensat {path:?}");
}

/// Every path below `dir` (not following links), directories after their
/// contents.
fn entries(dir: &Path, out: &mut Vec<(std::path::PathBuf, std::fs::FileType)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let kind = path.symlink_metadata().unwrap().file_type();
        if kind.is_dir() {
            entries(&path, out);
        }
        out.push((path, kind));
    }
}

impl Tree {
    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("r")
    }

    fn make(seed: u64, rng: &mut fastrand::Rng) -> Tree {
        let tree = Tree {
            dir: big_tree_dir(),
            giant: rng.u8(..8) == 0,
            unsearchable_dirs: Vec::new(),
            has_unsearchable: false,
            description: String::new(),
        };
        let root = tree.root();
        std::fs::create_dir(&root).unwrap();
        let mut description = String::new();
        let mut unsearchable = Vec::new();
        let mut has_unsearchable = false;
        let size = rng.usize(5..120);
        random_tree(&root, seed, size);
        description += &format!("random_tree(seed {seed}, {size} entries)");
        let mut all = Vec::new();
        entries(&root, &mut all);
        let dirs: Vec<_> = (all.iter().filter(|(_, k)| k.is_dir()))
            .map(|(p, _)| p.clone())
            .chain([root.clone()])
            .collect();
        if tree.giant {
            // Numbered names with holes, as listings are cut at cookies.
            let giant = dirs[rng.usize(..dirs.len())].join("giant");
            std::fs::create_dir(&giant).unwrap();
            let count = rng.usize(300..1500);
            for i in 0..count {
                std::fs::write(giant.join(format!("g{i}")), b"").unwrap();
            }
            for i in (0..count).step_by(7) {
                std::fs::remove_file(giant.join(format!("g{i}"))).unwrap();
            }
            description += &format!(", a giant directory of {count} entries less a 7th");
        }
        if rng.u8(..4) == 0 {
            let dir = &dirs[rng.usize(..dirs.len())];
            // The socket stays when its listener is dropped.
            drop(std::os::unix::net::UnixListener::bind(dir.join("sock")));
            description += ", a socket";
        }
        all.clear();
        entries(&root, &mut all);
        for (path, kind) in &all {
            if kind.is_file() && rng.u8(..3) == 0 {
                let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                file.set_len(
                    [0, 1, 10, 99, 100, 101, 999, 1000, 1001, 1024, 2500][rng.usize(..11)],
                )
                .unwrap();
            }
        }
        // Times last: each on a quarter of a day now and then, as the bounds are.
        for (path, _) in all
            .iter()
            .chain([(root.clone(), std::fs::metadata(&root).unwrap().file_type())].iter())
        {
            let seconds = match rng.bool() {
                true => EPOCH_2020 + rng.i64(0..40) * 21_600,
                false => EPOCH_2020 + rng.i64(0..864_000),
            };
            set_mtime(path, seconds);
        }
        if !tree.giant && rng.u8(..5) == 0 {
            for _ in 0..rng.usize(1..3) {
                let (path, _) = &all[rng.usize(..all.len())];
                let mode = [0o000, 0o311, 0o600][rng.usize(..3)];
                if path.symlink_metadata().unwrap().is_dir() {
                    if mode == 0o600 {
                        has_unsearchable = true;
                        for entry in std::fs::read_dir(path).unwrap() {
                            let inner = entry.unwrap().path();
                            if inner.symlink_metadata().unwrap().is_dir() {
                                let printed = inner.strip_prefix(tree.dir.path()).unwrap();
                                unsearchable.push(printed.as_os_str().as_bytes().to_vec());
                            }
                        }
                    }
                    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
                    description += &format!(", {path:?} mode {mode:o}");
                }
            }
        }
        Tree {
            description,
            unsearchable_dirs: unsearchable,
            has_unsearchable,
            ..tree
        }
    }
}

/// The options of one run, as pfind's and as find's.
#[derive(Debug, Default)]
struct Options {
    pfind: Vec<String>,
    follow: bool,
    /// find's options before its expression, then its tests.
    find_options: Vec<String>,
    find_tests: Vec<String>,
    /// Globs `-E` skips, find's `-name ... -prune`.
    excludes: Vec<String>,
}

/// Random options and their meaning in find's words; `-E` and
/// `--changed-before` only where `negations` says (see
/// [`Tree::has_unsearchable`]).
fn random_options(rng: &mut fastrand::Rng, negations: bool) -> Options {
    let mut o = Options::default();
    let words = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // Kinds: `-t e` restricts the others, and alone is empty files and directories.
    let mut kinds: Vec<&str> = Vec::new();
    if rng.bool() {
        for _ in 0..rng.usize(1..4) {
            let kind = ["f", "d", "l", "p", "s"][rng.usize(..5)];
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
    }
    let empty = rng.u8(..6) == 0;
    for kind in &kinds {
        o.pfind.extend(words(&["-t", kind]));
    }
    if empty {
        o.pfind.extend(words(&["-t", "e"]));
    }
    let find_kinds = match (kinds.is_empty(), empty) {
        (true, false) => "f".to_owned(),
        (true, true) => "f,d".to_owned(),
        (false, _) => kinds.join(","),
    };
    o.find_tests.extend(words(&["-type", &find_kinds]));
    if empty {
        o.find_tests.push("-empty".into());
    }
    if rng.u8(..5) == 0 {
        o.follow = true;
        o.pfind.push("-L".into());
    }
    if rng.u8(..8) == 0 {
        o.pfind.push("-x".into());
        o.find_options.push("-xdev".into());
    }
    if negations && rng.u8(..5) == 0 {
        for _ in 0..rng.usize(1..3) {
            let glob = [
                "f_1*",
                "*_3",
                "L*",
                "bad*",
                "[a-f]*",
                "*space*",
                ".hidden*",
                "glob\\*\\?*",
                "giant",
                "g1?",
                "sock",
            ][rng.usize(..11)];
            o.pfind.extend(words(&["-E", glob]));
            o.excludes.push(glob.into());
        }
    }
    let mut min_depth = 1;
    // find's -mindepth also stops -prune above it: with -E, no --min-depth.
    if o.excludes.is_empty() && rng.u8(..6) == 0 {
        min_depth = rng.usize(1..4);
        o.pfind
            .extend(words(&["--min-depth", &min_depth.to_string()]));
    }
    o.find_options
        .extend(words(&["-mindepth", &min_depth.to_string()]));
    if rng.u8(..4) == 0 {
        let depth = rng.usize(1..4).to_string();
        o.pfind.extend(words(&["-d", &depth]));
        o.find_options.extend(words(&["-maxdepth", &depth]));
    }
    if rng.u8(..4) == 0 {
        // Sizes are of regular files only; find's `-size Nc` is strict both ways.
        let bytes: u64 = [0, 1, 10, 100, 1000, 1024, 2000][rng.usize(..7)];
        let (typed, exact) = match rng.u8(..4) {
            0 if bytes % 1000 == 0 && bytes > 0 => (format!("{}k", bytes / 1000), bytes),
            1 if bytes == 1024 => ("1ki".to_owned(), bytes),
            _ => (bytes.to_string(), bytes),
        };
        let (spec, find_size) = match rng.u8(..3) {
            0 => (
                format!("+{typed}"),
                exact.checked_sub(1).map(|n| format!("+{n}c")),
            ),
            1 => (format!("-{typed}"), Some(format!("-{}c", exact + 1))),
            _ => (typed, Some(format!("{exact}c"))),
        };
        o.pfind.extend(words(&["-S", &spec]));
        o.find_tests.extend(words(&["-type", "f"]));
        if let Some(size) = find_size {
            o.find_tests.extend(words(&["-size", &size]));
        }
    }
    if rng.u8(..4) == 0 {
        // On a quarter of a day, where some entries are, or between.
        let bound = EPOCH_2020 + rng.i64(0..40) * 21_600 + [0, 1][rng.usize(..2)];
        match rng.bool() || !negations {
            // Within: strictly after, as -newermt.
            true => {
                o.pfind.extend(words(&["--changed-within", &utc(bound, 0)]));
                o.find_tests.extend(words(&["-newermt", &utc(bound, 0)]));
            }
            // Before: strictly before, not newer than a nanosecond earlier.
            false => {
                o.pfind.extend(words(&["--changed-before", &utc(bound, 0)]));
                let earlier = utc(bound - 1, 999_999_999);
                o.find_tests.extend(words(&["!", "-newermt", &earlier]));
            }
        }
    }
    o
}

/// `program` with `args`, in `cwd`, in the C locale and UTC; as root without the
/// capabilities that let root read any directory, so that unreadable ones are.
fn command(cwd: &Path, program: &OsStr, args: &[OsString]) -> Command {
    let mut command = match is_root() {
        true => {
            let caps = "-dac_override,-dac_read_search";
            let mut c = Command::new("setpriv");
            c.args(["--inh-caps", caps, "--bounding-set", caps, "--"])
                .arg(program);
            c
        }
        false => Command::new(program),
    };
    command
        .current_dir(cwd)
        .args(args)
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env_remove("PFIND_OPTIONS")
        .stdin(Stdio::null());
    command
}

/// `(sorted records, exit status)` of a run.
fn run(mut command: Command) -> (Vec<Vec<u8>>, Option<i32>) {
    let out = command.output().expect("runs");
    let mut records = split_records(&out.stdout, 0);
    records.sort();
    (records, out.status.code())
}

/// find's answer for `options` on the tree's root `r`.
fn find_answer(tree: &Tree, o: &Options) -> (Vec<Vec<u8>>, Option<i32>) {
    let mut args: Vec<OsString> = Vec::new();
    if o.follow {
        args.push("-L".into());
    }
    args.push("r".into());
    args.extend(o.find_options.iter().map(OsString::from));
    if !o.excludes.is_empty() {
        args.push("(".into());
        for (i, glob) in o.excludes.iter().enumerate() {
            if i > 0 {
                args.push("-o".into());
            }
            args.extend(["-name".into(), glob.into()]);
        }
        args.extend([")".into(), "-prune".into(), "-o".into()]);
    }
    args.extend(o.find_tests.iter().map(OsString::from));
    args.push("-print0".into());
    run(command(tree.dir.path(), "find".as_ref(), &args))
}

/// The library's records for `options` on the tree with every listing cut into
/// pieces, at `threads` workers (see tests/giant.rs), paths as find prints them.
fn cut_walk(tree: &Tree, o: &Options, threads: usize) -> Vec<Vec<u8>> {
    let root = tree.root();
    let args = ["pfind".into(), root.clone().into_os_string()]
        .into_iter()
        .chain(o.pfind.iter().map(OsString::from));
    let cli = pfind::cli::parse(args).unwrap_or_else(|e| panic!("{:?}: {e:?}", o.pfind));
    let mut config = cli.into_config();
    config.output = OutputMode::Paths { terminator: 0 };
    config.threads = threads;
    config.exact_threads = true;
    config.spare_threads = 0;
    config.split_every_listing = true;
    config.listing_buffer = Some(1024);
    let captured = Captured::default();
    let output = pfind::output::Output::to_writer(Box::new(captured.clone()));
    let reporter = pfind::report::Reporter::silent();
    pfind::scheduler::run_with_reader(&config, &output, &reporter, ReaderKind::native());
    drop(output);
    let bytes = captured.0.lock().unwrap().clone();
    let prefix = tree.dir.path().as_os_str().as_bytes().len() + 1;
    let mut records: Vec<Vec<u8>> = (split_records(&bytes, 0).into_iter())
        .map(|p| p[prefix..].to_vec())
        .collect();
    records.sort();
    records
}

/// Makes the tree and options of `seed` and compares pfind with find.
fn check_tree(seed: u64) -> Result<usize, String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut tree = Tree::make(seed, &mut rng);
    let options = random_options(&mut rng, !tree.has_unsearchable);
    if std::env::var_os("PFIND_WALK_KEEP").is_some() {
        // To look at a replayed tree: kept, and said where.
        eprintln!("seed {seed}: the tree is kept in {:?}", tree.dir.path());
        tree.dir.disable_cleanup(true);
    }
    let want = find_answer(&tree, &options);
    let context = |what: &str, got: &[Vec<u8>], status: Option<i32>| {
        let show = |list: Vec<&Vec<u8>>| {
            let shown: Vec<_> = list
                .iter()
                .take(12)
                .map(|p| String::from_utf8_lossy(p))
                .collect();
            format!("{} {shown:?}", list.len())
        };
        let missing = want.0.iter().filter(|p| !got.contains(p)).collect();
        let extra = got.iter().filter(|p| !want.0.contains(p)).collect();
        format!(
            "seed {seed} (replay: PFIND_WALK_SEED={seed} cargo test --test differential_walk): \
             {what} {:?} against find (-L: {}, {:?} {:?}, -E {:?}) on {}:\n  status {status:?}, \
             find's {:?}\n  missing: {}\n  unexpected: {}",
            options.pfind,
            options.follow,
            options.find_options,
            options.find_tests,
            options.excludes,
            tree.description,
            want.1,
            show(missing),
            show(extra),
        )
    };
    for threads in ["1", "2", "16"] {
        let mut args: Vec<OsString> = vec!["r".into(), "-0".into(), "-j".into(), threads.into()];
        args.extend(options.pfind.iter().map(OsString::from));
        let mut got = run(command(
            tree.dir.path(),
            env!("CARGO_BIN_EXE_pfind").as_ref(),
            &args,
        ));
        got.0
            .retain(|p| want.0.contains(p) || !tree.unsearchable_dirs.contains(p));
        // find reports a directory in a mode 600 one that it cannot lstat even
        // where it would not enter it (at `-d`'s limit); pfind opens a directory
        // only to enter it, and says nothing of one it does not enter.
        if tree.has_unsearchable && got.1 == Some(0) && want.1 == Some(1) {
            got.1 = want.1;
        }
        if got != want {
            return Err(context(&format!("pfind -j {threads}"), &got.0, got.1));
        }
    }
    if tree.giant {
        for threads in [2, 16] {
            let got = cut_walk(&tree, &options, threads);
            if got != want.0 {
                let what = format!("the library at {threads} workers, every listing cut:");
                return Err(context(&what, &got, None));
            }
        }
    }
    Ok(want.0.len())
}

/// Checks the trees of `seeds` (or of `PFIND_WALK_SEED` alone), a few at a time,
/// and fails naming every seed whose answer differs from find's.
fn check_trees(seeds: std::ops::Range<u64>) {
    if Command::new("find").arg("--version").output().is_err() {
        eprintln!("skipped: GNU find is not installed, and it is the oracle here");
        return;
    }
    let seeds = crate::testenv::seeds_or_replay("PFIND_WALK_SEED", seeds);
    let (failures, lines) = crate::testenv::check_seeds(&seeds, check_tree);
    assert!(
        failures.is_empty(),
        "{} of {} random trees differ from find, seeds {failures:?} (above)",
        failures.len(),
        seeds.len()
    );
    eprintln!(
        "{} random trees and option sets equal find's answer ({} lines in all, each at -j 1, 2 and 16)",
        seeds.len(),
        lines
    );
}

/// The CI-sized run: 100 trees of fixed seeds, each at -j 1, 2 and 16.
#[test]
fn random_trees_and_options_equal_find() {
    check_trees(0..100);
}

/// The large run (docs/testing.md): `cargo test --test differential_walk --
/// --ignored`; `PFIND_WALK_TREES` sets how many (5,000).
#[test]
#[ignore]
fn many_random_trees_and_options_equal_find() {
    let count = std::env::var("PFIND_WALK_TREES").map_or(5_000, |n| n.parse().unwrap());
    check_trees(1_000_000..1_000_000 + count);
}

/// fd's path: `fd` on `PATH` or in `~/.cargo/bin` (where `cargo install fd-find`
/// puts it); `None`, said once, where it is not installed.
fn fd_program() -> Option<std::path::PathBuf> {
    let home = std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo/bin/fd"));
    for candidate in [Some("fd".into()), home].into_iter().flatten() {
        let runs = Command::new(&candidate).arg("--version").output();
        if runs.is_ok_and(|out| out.status.success()) {
            return Some(candidate);
        }
    }
    eprintln!("skipped: fd is not installed (neither on PATH nor in ~/.cargo/bin), and it is the oracle here");
    None
}

/// Rules for the fd comparison: names `random_tree` makes, the idioms that once
/// did nothing (`*`, `!*/`), anchors, `**` and directory rules.
const FD_RULES: &[&str] = &[
    "*",
    "!*/",
    "*/",
    "!*",
    "f_1*",
    "!f_1*",
    "*_3",
    "L*",
    "bad*",
    "/f_2*",
    "**/f_5*",
    "*space*",
    "!*space*",
    "glob\\**",
    ".hidden*",
    "!.hidden*",
    "*.o",
    "f_*/",
    "!f_4*",
    "# comment",
    "",
];

/// A tree of `seed` with `.gitignore`, `.ignore` and `.fdignore` files of random
/// rules here and there, outside any git work tree (fd then needs
/// `--no-require-git` to read `.gitignore`, which pfind reads anyway).
fn fd_tree(seed: u64) -> (tempfile::TempDir, String) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let dir = big_tree_dir();
    let root = dir.path().join("r");
    std::fs::create_dir(&root).unwrap();
    random_tree(&root, seed, rng.usize(5..120));
    let mut all = Vec::new();
    entries(&root, &mut all);
    let mut description = String::new();
    let dirs = all
        .iter()
        .filter(|(_, k)| k.is_dir())
        .map(|(p, _)| p.clone());
    for dir in dirs.chain([root.clone()]) {
        for name in [".gitignore", ".ignore", ".fdignore"] {
            if rng.u8(..6) == 0 {
                let rules: Vec<&str> = (0..rng.usize(1..4))
                    .map(|_| FD_RULES[rng.usize(..FD_RULES.len())])
                    .collect();
                let text = rules.join("\n") + "\n";
                std::fs::write(dir.join(name), &text).unwrap();
                description += &format!("{:?}: {text:?}\n", dir.join(name));
            }
        }
    }
    (dir, description)
}

/// `-G` (`--fd-view`) prints fd's files: random trees with rule files, against
/// `fd --no-require-git -t f`, at -j 1, 2 and 16. Skipped, saying why, where fd
/// is not installed.
#[test]
fn fd_view_equals_fd() {
    let Some(fd) = fd_program() else { return };
    let mut failures = Vec::new();
    let mut listed = 0;
    for seed in 0..60 {
        let (dir, description) = fd_tree(seed);
        let fd_args: Vec<OsString> = ["--no-require-git", "-t", "f", "-0", ".", "r"]
            .map(OsString::from)
            .to_vec();
        let mut fd_command = Command::new(&fd);
        fd_command
            .current_dir(dir.path())
            .args(&fd_args)
            .env_remove("PFIND_OPTIONS");
        let (want, status) = run(fd_command);
        assert_eq!(status, Some(0), "fd {fd_args:?}");
        listed += want.len();
        for threads in ["1", "2", "16"] {
            let args = ["-G", "-0", "-j", threads, "r"].map(OsString::from);
            let (got, _) = run(command(
                dir.path(),
                env!("CARGO_BIN_EXE_pfind").as_ref(),
                &args,
            ));
            if got != want {
                let missing: Vec<_> = want
                    .iter()
                    .filter(|p| !got.contains(p))
                    .map(|p| String::from_utf8_lossy(p))
                    .collect();
                let extra: Vec<_> = got
                    .iter()
                    .filter(|p| !want.contains(p))
                    .map(|p| String::from_utf8_lossy(p))
                    .collect();
                eprintln!("seed {seed}: pfind -G -j {threads} against fd:\n  missing {missing:?}\n  unexpected {extra:?}\n{description}");
                failures.push(seed);
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seeds {failures:?} differ from fd (above)"
    );
    // Not a comparison of empty answers: the rules leave many files.
    assert!(listed > 600, "fd listed {listed} files in all");
    eprintln!("60 trees equal fd's answer, {listed} files in all");
}
