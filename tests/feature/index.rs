//! The index (`--index`, issue 48; src/cli/index.rs, src/index): a search with it prints exactly what a fresh
//! walk prints, after every kind of change a tree can go through.
//!
//! The mutation harness changes a tree one random step at a time (files and
//! directories created, removed, renamed within and across directories, two
//! directories swapped, a file replaced by a directory of its name and back,
//! changes in the same timestamp tick as the last search, chmod, a tmpfs mounted
//! over a directory and taken off again when root, links retargeted, ignore files
//! edited in place, `git add` and `git rm --cached`) and after each one runs the
//! same random search twice, with the index and without, comparing the output
//! byte for byte (lines sorted: the walk's order is the threads'). A few hundred
//! steps run here; `ten_thousand_steps_on_every_filesystem` (ignored, root) runs
//! 10,000 on ext4, xfs, btrfs and tmpfs. The harness is shown to catch an index
//! whose directories are not checked (`PFIND_INDEX_NO_VALIDATE=1`).
//!
//! Then each bad index: corrupt, truncated, foreign, not the user's, unreadable,
//! a full disk while writing, the root replaced: a warning and a walk's answer.

use crate::testenv;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use testenv::{is_root, pfind_command};

/// A tree under test, its cache directory, and the tmpfs mounts placed in it
/// (taken off on drop).
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
    cache: tempfile::TempDir,
    git: bool,
    /// Where the tree is searched, if not at `root`: a network filesystem's
    /// mount of it (the changes are made in `root`, as another client's).
    view: Option<PathBuf>,
}

impl Drop for Tree {
    fn drop(&mut self) {
        // A mount placed over a directory above an older mount hides it until it
        // is taken off itself: the newest first, again while any is left.
        for _ in 0..8 {
            let left = mounts_under(&self.root);
            if left.is_empty() {
                break;
            }
            for point in left {
                let _ = Command::new("umount").arg("-l").arg(&point).output();
            }
        }
    }
}

/// The mount points below `root`, the newest first (the order they can be taken
/// off in): a directory renamed takes the mounts below it along, so they are
/// found where they are now.
fn mounts_under(root: &Path) -> Vec<PathBuf> {
    let table = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let mut points: Vec<PathBuf> = table
        .lines()
        .filter_map(|line| line.split(' ').nth(1))
        .map(PathBuf::from)
        .filter(|point| point.starts_with(root) && point != root)
        .collect();
    points.reverse();
    points
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
}

fn git(root: &Path, args: &[&str]) {
    let _ = Command::new("git")
        .current_dir(root)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output();
}

impl Tree {
    /// A small random tree in `parent` (a fresh temporary directory if `None`):
    /// nested directories, files of a few sizes and kinds, hidden names, links,
    /// `.gitignore` files, and a git repository with some files added.
    fn new(parent: Option<&Path>, rng: &mut fastrand::Rng) -> Tree {
        let dir = match parent {
            Some(parent) => tempfile::tempdir_in(parent).unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let root = dir.path().join("tree");
        std::fs::create_dir(&root).unwrap();
        let has_git = has("git");
        let mut tree = Tree {
            _dir: dir,
            root,
            cache: tempfile::tempdir().unwrap(),
            git: has_git,
            view: None,
        };
        if has_git {
            git_init(&tree.root);
        }
        for _ in 0..60 {
            tree.step(rng, Step::Create);
        }
        std::fs::write(tree.root.join(".gitignore"), b"*.log\nignored/\n").unwrap();
        if has_git {
            git(&tree.root, &["add", "-A"]);
        }
        tree
    }

    /// The directories of the tree (not `.git`'s), the root first.
    fn dirs(&self) -> Vec<PathBuf> {
        let mut found = vec![self.root.clone()];
        let mut i = 0;
        while i < found.len() {
            if let Ok(entries) = std::fs::read_dir(&found[i]) {
                for entry in entries.flatten() {
                    let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                    if is_dir && entry.file_name() != ".git" {
                        found.push(entry.path());
                    }
                }
            }
            i += 1;
        }
        found
    }

    /// Every entry below the root but the root (not `.git`'s).
    fn entries(&self) -> Vec<PathBuf> {
        let mut all = Vec::new();
        for dir in self.dirs() {
            if let Ok(entries) = std::fs::read_dir(&dir) {
                all.extend(
                    entries
                        .flatten()
                        .filter(|e| e.file_name() != ".git")
                        .map(|e| e.path()),
                );
            }
        }
        all
    }

    /// One random change; errors (a mount point that cannot be removed, a name
    /// taken) leave the tree as it is, which is a step like any other.
    fn step(&mut self, rng: &mut fastrand::Rng, step: Step) -> String {
        let dirs = self.dirs();
        let entries = self.entries();
        let dir = dirs[rng.usize(..dirs.len())].clone();
        let other = dirs[rng.usize(..dirs.len())].clone();
        let entry = entries.get(rng.usize(..entries.len().max(1))).cloned();
        let name = new_name(rng);
        let done = match step {
            Step::Create => match rng.u8(..6) {
                0 => std::fs::create_dir(dir.join(&name)),
                1 => std::os::unix::fs::symlink(pick_target(rng, &entries, &dir), dir.join(&name)),
                _ => std::fs::write(dir.join(&name), vec![b'x'; rng.usize(..3000)]),
            },
            Step::Remove => match entry {
                Some(ref e) if e.is_dir() && !e.is_symlink() => std::fs::remove_dir_all(e),
                Some(ref e) => std::fs::remove_file(e),
                None => Ok(()),
            },
            Step::RenameWithin => match entry {
                Some(ref e) => std::fs::rename(e, e.with_file_name(&name)),
                None => Ok(()),
            },
            Step::RenameAcross => match entry {
                Some(ref e) if !other.starts_with(e) => std::fs::rename(e, other.join(&name)),
                _ => Ok(()),
            },
            Step::Swap => {
                if dir.starts_with(&other) || other.starts_with(&dir) {
                    Ok(())
                } else {
                    exchange(&dir, &other)
                }
            }
            Step::FileToDir => match entry {
                Some(ref e) if e.is_file() && !e.is_symlink() => std::fs::remove_file(e)
                    .and_then(|()| std::fs::create_dir(e))
                    .and_then(|()| std::fs::write(e.join("inside.txt"), b"x")),
                Some(ref e) if e.is_dir() && !e.is_symlink() => {
                    std::fs::remove_dir_all(e).and_then(|()| std::fs::write(e, b"was a dir"))
                }
                _ => Ok(()),
            },
            Step::SameTick => {
                // Two changes to one directory, the second at once after the first,
                // and the search follows at once: all inside one tick, often.
                std::fs::write(dir.join(&name), b"a").and_then(|()| {
                    std::fs::rename(dir.join(&name), dir.join(format!("{name}.log")))
                })
            }
            Step::Touch => {
                // A file made and removed: the directory's times move and its
                // entries stay, and the index writes the new times over its old
                // record (`Parsed::patched`), as after benchmark.py's changes.
                std::fs::write(dir.join(&name), b"t")
                    .and_then(|()| std::fs::remove_file(dir.join(&name)))
            }
            Step::Chmod => match entry {
                Some(ref e) if !e.is_symlink() => {
                    let mode = [0o755, 0o700, 0o644, 0o600, 0o555, 0o711][rng.usize(..6)];
                    std::fs::set_permissions(e, std::fs::Permissions::from_mode(mode))
                }
                _ => Ok(()),
            },
            Step::Content => match entry {
                Some(ref e) if e.is_file() => std::fs::write(e, vec![b'y'; rng.usize(..5000)]),
                _ => Ok(()),
            },
            Step::Mount => {
                if !is_root() || dir == self.root {
                    Ok(())
                } else if mounts_under(&self.root).len() < 3 && rng.bool() {
                    let mounted = Command::new("mount")
                        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
                        .arg(&dir)
                        .status()
                        .is_ok_and(|s| s.success());
                    if mounted {
                        let _ = std::fs::create_dir(dir.join("on_tmpfs"));
                        let _ = std::fs::write(dir.join("on_tmpfs/mounted.txt"), b"m");
                        let _ = std::fs::write(dir.join("mounted.log"), b"m");
                    }
                    Ok(())
                } else if let Some(point) = mounts_under(&self.root).first() {
                    let _ = Command::new("umount").arg(point).output();
                    Ok(())
                } else {
                    Ok(())
                }
            }
            Step::Retarget => {
                let links: Vec<&PathBuf> = entries.iter().filter(|e| e.is_symlink()).collect();
                match links.get(rng.usize(..links.len().max(1))) {
                    Some(link) => std::fs::remove_file(link).and_then(|()| {
                        std::os::unix::fs::symlink(
                            pick_target(rng, &entries, link.parent().unwrap()),
                            link,
                        )
                    }),
                    None => Ok(()),
                }
            }
            Step::RuleEdit => {
                // Rewritten in place: the directory's stamps do not change.
                let rules = [
                    "*.log\n",
                    "d*\n",
                    "!*.txt\n",
                    "*\n!*/\n",
                    "",
                    "sub/\n",
                    "*.md\n/top*\n",
                ];
                let path = dir.join(".gitignore");
                std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .create(true)
                    .open(&path)
                    .and_then(|mut f| {
                        std::io::Write::write_all(
                            &mut f,
                            rules[rng.usize(..rules.len())].as_bytes(),
                        )
                    })
            }
            Step::Git => {
                if self.git {
                    match (rng.bool(), entry.as_ref()) {
                        (true, _) => git(&self.root, &["add", "-A"]),
                        (false, Some(e)) => git(
                            &self.root,
                            &["rm", "-r", "-q", "--cached", &e.to_string_lossy()],
                        ),
                        _ => {}
                    }
                }
                Ok(())
            }
        };
        format!(
            "{step:?} {} -> {}",
            dir.display(),
            done.map_or_else(|e| e.to_string(), |()| "ok".to_owned())
        )
    }
}

fn git_init(root: &Path) {
    git(root, &["init", "-q"]);
}

/// A link's target: an entry of the tree (relative to `from`'s directory, or
/// absolute), or nothing there.
fn pick_target(rng: &mut fastrand::Rng, entries: &[PathBuf], from: &Path) -> PathBuf {
    match entries.get(rng.usize(..entries.len() + 1)) {
        Some(target) => match target.strip_prefix(from) {
            Ok(rel) if rng.bool() && !rel.as_os_str().is_empty() => rel.to_path_buf(),
            _ => target.clone(),
        },
        None => PathBuf::from("dangling"),
    }
}

/// Swaps two directories in one `renameat2(RENAME_EXCHANGE)`.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let a = std::ffi::CString::new(a.as_os_str().as_bytes()).unwrap();
    let b = std::ffi::CString::new(b.as_os_str().as_bytes()).unwrap();
    // SAFETY: both paths are NUL-terminated and outlive the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn new_name(rng: &mut fastrand::Rng) -> String {
    let stems = [
        "d", "sub", "top", "file", ".hidden", "ignored", "keep", "x", "File", "KEEP",
    ];
    let exts = ["", ".txt", ".log", ".rs", ".md"];
    format!(
        "{}{}{}",
        stems[rng.usize(..stems.len())],
        rng.u16(..400),
        exts[rng.usize(..exts.len())]
    )
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Create,
    Remove,
    RenameWithin,
    RenameAcross,
    Swap,
    FileToDir,
    SameTick,
    Touch,
    Chmod,
    Content,
    Mount,
    Retarget,
    RuleEdit,
    Git,
}

const STEPS: [Step; 14] = [
    Step::Create,
    Step::Remove,
    Step::RenameWithin,
    Step::RenameAcross,
    Step::Swap,
    Step::FileToDir,
    Step::SameTick,
    Step::Touch,
    Step::Chmod,
    Step::Content,
    Step::Mount,
    Step::Retarget,
    Step::RuleEdit,
    Step::Git,
];

/// A random search: up to three of these option groups.
fn random_options(rng: &mut fastrand::Rng) -> Vec<String> {
    const GROUPS: &[&[&str]] = &[
        &["-t", "d"],
        &["-t", "f", "-t", "l"],
        &["-t", "e"],
        &["-t", "x"],
        &["-t", "d", "-t", "e"],
        &["-n", "*1*"],
        &["-e", "txt"],
        &["-e", "log,rs"],
        &["-e", "MD"],
        &["-n", "keep*"],
        &["-i", "-n", "*FILE*"],
        &["--regex", "^[a-k]"],
        &["-p", "**/d*/**"],
        &["-d", "2"],
        &["--min-depth", "2"],
        &["-E", "d1*"],
        &["-E", "/sub*"],
        &["--ignore"],
        &["-G"],
        &["-L"],
        &["-x"],
        &["-S", "+1k"],
        &["-S", "-100"],
        &["-l"],
        &["--format", "{size} {mode} {}"],
        &["--json"],
        &["-c"],
        &["--no-hidden"],
        &["-t", "d", "--prune", "-n", "d*"],
        &["--sort", "path"],
    ];
    let mut options = Vec::new();
    for _ in 0..rng.usize(..4) {
        options.extend(
            GROUPS[rng.usize(..GROUPS.len())]
                .iter()
                .map(|s| s.to_string()),
        );
    }
    options.extend(["-j".to_owned(), ["1", "2", "8"][rng.usize(..3)].to_owned()]);
    options
}

/// `pfind ARGS` in `cwd` with the cache directory `cache` and `env`.
fn run(cwd: &Path, cache: &Path, args: &[String], env: &[(&str, &str)]) -> Output {
    let mut command = pfind_command(cwd, args);
    command
        .env("XDG_CACHE_HOME", cache)
        .env_remove("PFIND_OPTIONS");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// [`run`] with `args` as string slices and nothing added to the environment.
fn run_str(cwd: &Path, cache: &Path, args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run(cwd, cache, &args, &[])
}

fn sorted_lines(out: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
    lines.sort_unstable();
    lines
}

/// [`sorted_lines`] without the access times `--json` prints: listing a directory
/// moves its access time (under `relatime`, once it changed since it was last
/// read), so of two runs the one that lists a changed directory first changes
/// what the other prints, walk or not.
fn comparable_lines(out: &[u8]) -> Vec<Vec<u8>> {
    const FIELD: &[u8] = b"\"atime\":";
    let mut lines: Vec<Vec<u8>> = out
        .split(|&b| b == b'\n')
        .map(
            |line| match line.windows(FIELD.len()).position(|w| w == FIELD) {
                Some(at) => {
                    let value = &line[at + FIELD.len()..];
                    let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
                    let rest = value[digits..]
                        .strip_prefix(b",")
                        .unwrap_or(&value[digits..]);
                    [&line[..at], rest].concat()
                }
                None => line.to_vec(),
            },
        )
        .collect();
    lines.sort_unstable();
    lines
}

#[test]
fn comparable_lines_leave_out_the_access_time_alone() {
    let out =
        b"{\"path\":\"b\",\"atime\":17,\"mode\":\"755\"}\n{\"path\":\"a\",\"atime\":5}\nplain";
    let expected: Vec<&[u8]> = vec![
        b"plain",
        b"{\"path\":\"a\",}",
        b"{\"path\":\"b\",\"mode\":\"755\"}",
    ];
    assert_eq!(comparable_lines(out), expected);
}

/// Runs `steps` random steps on `tree` from `seed`; after each, the same search
/// with the index and without. Returns the first difference.
fn mutate_and_compare(
    tree: &mut Tree,
    seed: u64,
    steps: usize,
    env: &[(&str, &str)],
) -> Result<usize, String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut compared = 0;
    for i in 0..steps {
        let step = STEPS[rng.usize(..STEPS.len())];
        let what = tree.step(&mut rng, step);
        let mut options = random_options(&mut rng);
        // A search of the root, or now and then of a directory below it.
        let dirs = tree.dirs();
        let root = if rng.u8(..5) == 0 {
            dirs[rng.usize(..dirs.len())].clone()
        } else {
            tree.root.clone()
        };
        let view = tree.view.as_deref().unwrap_or(&tree.root);
        let root = view.join(root.strip_prefix(&tree.root).unwrap());
        options.push(root.to_string_lossy().into_owned());
        let mut with_index = options.clone();
        with_index.insert(0, "--index".to_owned());
        let indexed = run(view, tree.cache.path(), &with_index, env);
        let walked = run(view, tree.cache.path(), &options, env);
        compared += 1;
        // Right after a checked search, with nothing changed, the trusted mode's
        // answer (from unopened directories where it can) is the walk's too.
        if rng.u8(..4) == 0 {
            with_index[0] = "--index-trust".to_owned();
            let trusted = run(view, tree.cache.path(), &with_index, env);
            if comparable_lines(&trusted.stdout) != comparable_lines(&walked.stdout) {
                return Err(format!(
                    "seed {seed}, step {i} ({what}), options {options:?}: --index-trust differs:\n{}\nwalked:\n{}",
                    String::from_utf8_lossy(&trusted.stdout),
                    String::from_utf8_lossy(&walked.stdout),
                ));
            }
        }
        if comparable_lines(&indexed.stdout) != comparable_lines(&walked.stdout)
            || indexed.status.code() != walked.status.code()
        {
            return Err(format!(
                "seed {seed}, step {i} ({what}), options {options:?}:\nwith the index ({:?}):\n{}\nwalked ({:?}):\n{}\nstderr with the index:\n{}",
                indexed.status.code(),
                String::from_utf8_lossy(&indexed.stdout),
                walked.status.code(),
                String::from_utf8_lossy(&walked.stdout),
                String::from_utf8_lossy(&indexed.stderr),
            ));
        }
    }
    Ok(compared)
}

fn seed() -> u64 {
    std::env::var("PFIND_INDEX_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

#[test]
fn the_index_answers_as_a_walk_after_every_kind_of_change() {
    let seed = seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut tree = Tree::new(None, &mut rng);
    let compared = mutate_and_compare(&mut tree, seed, 300, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compared, 300);
}

/// The harness would see an index that is not checked: with
/// `PFIND_INDEX_NO_VALIDATE=1` (recorded listings used whatever the stamps) the
/// same run finds a difference.
#[test]
fn the_harness_fails_when_directories_are_not_checked() {
    let seed = seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut tree = Tree::new(None, &mut rng);
    let found = mutate_and_compare(&mut tree, seed, 300, &[("PFIND_INDEX_NO_VALIDATE", "1")]);
    assert!(
        found.is_err(),
        "300 steps without a difference: the harness sees nothing"
    );
}

/// The harness on a network filesystem: the tree mounted through latencyfs
/// (read-write, so that the probe passes), every change made in the tree
/// itself as another client of the server makes it, every search through the
/// mount. The mount caches nothing (`-a 0`): with the client's cache, the
/// index's stamps (asked of the server) refresh a directory's cached
/// attributes between the two searches compared, and a walk after it prints
/// another size than the walk before; that the stamps get past the cache is
/// `a_network_filesystem_is_trusted_once_its_probe_passes`'s. A directory's
/// record is trusted there once its times are two seconds old, so the steps run
/// in two rounds, each after a pause past that: then most directories are
/// answered from the index, as they would be.
#[test]
fn the_index_answers_as_a_walk_on_a_network_filesystem() {
    if let Some(compared) = steps_through_latencyfs(200, seed()) {
        assert_eq!(compared, 200);
    }
}

/// A change in the same timestamp tick as the listing that was recorded: the
/// directory's stamps do not move, so only the racy rule lists it again.
#[test]
fn a_change_in_the_same_tick_as_the_recording_is_seen() {
    let env = testenv::TestEnv::new(&["d"], &["d/a"]);
    let cache = tempfile::tempdir().unwrap();
    let args = |extra: &str| vec!["--index".to_owned(), extra.to_owned()];
    for round in 0..20 {
        let name = format!("d/new{round}");
        let first = run(env.root(), cache.path(), &args("d"), &[]);
        // At once: most often within the tick of the listing just recorded.
        std::fs::write(env.root().join(&name), b"").unwrap();
        let second = run(env.root(), cache.path(), &args("d"), &[]);
        assert!(first.status.success() && second.status.success());
        assert!(
            String::from_utf8_lossy(&second.stdout).contains(&name),
            "round {round}: {name} missing"
        );
    }
}

/// A repeat of an unchanged tree checks a directory with one `lstat` by its path
/// from an open ancestor, subdirectories or not, and opens only a directory with
/// enough subdirectories that checking them from it costs less (here `wide`, 30 of
/// them); `deep/d1/d2/d3` are checked by their paths from the root and never opened. Counted with
/// strace (skipped, saying so, where it is missing).
#[test]
fn a_repeat_opens_only_the_directories_worth_opening() {
    if !has("strace") {
        eprintln!("skipped: strace is not installed");
        return;
    }
    let mut dirs = vec!["deep/d1/d2/d3".to_owned()];
    let mut files = vec!["deep/d1/d2/d3/f".to_owned(), "deep/d1/g".to_owned()];
    for i in 0..30 {
        dirs.push(format!("wide/s{i}"));
        files.push(format!("wide/s{i}/f"));
    }
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let env = testenv::TestEnv::new(&dirs, &files);
    let cache = tempfile::tempdir().unwrap();
    // Past the racy margin, so that every record is trusted next time.
    std::thread::sleep(std::time::Duration::from_millis(2_200));
    let first = run_str(env.root(), cache.path(), &["--index", "-j1", "."]);
    assert!(first.status.success(), "{first:?}");
    let trace = tempfile::NamedTempFile::new().unwrap();
    let traced = Command::new("strace")
        .args([
            "-f",
            "-e",
            "trace=openat,openat2,open,newfstatat,statx",
            "-o",
        ])
        .arg(trace.path())
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .args(["--index", "-j1", "."])
        .current_dir(env.root())
        .env("XDG_CACHE_HOME", cache.path())
        .env_remove("PFIND_OPTIONS")
        .output()
        .unwrap();
    let walked = run_str(env.root(), cache.path(), &["-j1", "."]);
    assert_eq!(sorted_lines(&traced.stdout), sorted_lines(&walked.stdout));
    let trace = std::fs::read_to_string(trace.path()).unwrap();
    let opened = |name: &str| {
        trace
            .lines()
            .any(|l| l.contains("open") && l.contains(&format!("\"{name}\"")))
    };
    assert!(opened("wide"), "wide is worth opening:\n{trace}");
    for name in ["deep", "d1", "d2", "d3", "d1/d2", "d1/d2/d3", "s0"] {
        assert!(!opened(name), "{name} opened:\n{trace}");
    }
    assert!(
        trace
            .lines()
            .any(|l| l.contains("stat") && l.contains("\"deep/d1/d2/d3\"")),
        "d3 checked by its path from the root:\n{trace}"
    );
}

/// `pfind ARGS` in `cwd` under strace, tracing opens and `statx`: (its output,
/// the trace).
fn traced(cwd: &Path, cache: &Path, args: &[&str]) -> (Output, String) {
    let trace = tempfile::NamedTempFile::new().unwrap();
    let output = Command::new("strace")
        .args(["-f", "-e", "trace=openat,openat2,open,statx", "-o"])
        .arg(trace.path())
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .args(args)
        .current_dir(cwd)
        .env("XDG_CACHE_HOME", cache)
        .env_remove("PFIND_OPTIONS")
        .output()
        .unwrap();
    (output, std::fs::read_to_string(trace.path()).unwrap())
}

/// Whether `trace` shows the directory `name` opened.
fn opened_in(trace: &str, name: &str) -> bool {
    trace
        .lines()
        .any(|l| l.contains("open") && l.contains(&format!("\"{name}\"")))
}

/// A network filesystem (latencyfs, the repository's FUSE passthrough, mounted
/// read-write so that pfind's probe may make and remove its directory there):
/// once the probe has passed, a repeat with nothing changed asks the server for
/// each directory's stamps (`AT_STATX_FORCE_SYNC`) and opens none below the
/// root; a change made in the source, as another client of the server makes it,
/// is seen, though the mount caches attributes for 60 s; the verdict is kept for
/// the mount, and the probe leaves nothing behind. A read-only mount cannot be
/// probed: each directory is listed every time, the answer is still a walk's,
/// and no verdict is kept for it. Fails with the client's cached stamps (the change is missed) and
/// without the probe (every directory opened).
#[test]
fn a_network_filesystem_is_trusted_once_its_probe_passes() {
    if !has("strace") {
        eprintln!("skipped: strace is not installed");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let Some(binary) = testenv::latencyfs::build(work.path()) else {
        return;
    };
    let source = work.path().join("source");
    for dir in ["a/b/c", "a/d", "e"] {
        std::fs::create_dir_all(source.join(dir)).unwrap();
    }
    for file in ["a/f1", "a/b/f2", "a/b/c/f3", "e/f4"] {
        std::fs::write(source.join(file), "").unwrap();
    }
    let cache = tempfile::tempdir().unwrap();
    let verdicts = || -> Vec<String> {
        std::fs::read_dir(cache.path().join("pfind"))
            .map(|dir| {
                dir.flatten()
                    .filter(|e| e.file_name().as_bytes().starts_with(b"probe-"))
                    .map(|e| std::fs::read_to_string(e.path()).unwrap())
                    .collect()
            })
            .unwrap_or_default()
    };
    let same_as_walk = |point: &Path, context: &str| {
        let indexed = run_str(point, cache.path(), &["--index", "."]);
        let walked = run_str(point, cache.path(), &["."]);
        assert!(indexed.status.success(), "{context}: {indexed:?}");
        assert_eq!(
            sorted_lines(&indexed.stdout),
            sorted_lines(&walked.stdout),
            "{context}"
        );
        indexed
    };
    // Past the racy margin (two seconds on a network filesystem), so that the
    // records are trusted next time.
    let past_the_margin = || std::thread::sleep(std::time::Duration::from_millis(2_200));
    past_the_margin();

    let Some(mount) =
        testenv::latencyfs::Mount::new(&binary, &["-d", "0", "-w"], &source, work.path())
    else {
        return;
    };
    let point = mount.point();
    same_as_walk(point, "the first run");
    let probes: Vec<_> = std::fs::read_dir(&source)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().as_bytes().starts_with(b".pfind-probe"))
        .collect();
    assert!(probes.is_empty(), "the probe's directory is left");
    // Linux 6.8 and later name the mount: the verdict is kept for it.
    let kept = verdicts();
    assert!(kept.len() <= 1, "{kept:?}");
    assert!(
        kept.iter().all(|v| v.lines().nth(1) == Some("kept")),
        "{kept:?}"
    );
    // The probe moved the root's times: listed again once, then trusted.
    past_the_margin();
    same_as_walk(point, "the second run");
    let (repeat, trace) = traced(point, cache.path(), &["--index", "."]);
    let walked = run_str(point, cache.path(), &["."]);
    assert_eq!(sorted_lines(&repeat.stdout), sorted_lines(&walked.stdout));
    for name in ["a", "a/b", "b", "a/b/c", "c", "e", "d"] {
        assert!(!opened_in(&trace, name), "{name} opened:\n{trace}");
    }
    assert!(
        trace
            .lines()
            .any(|l| l.contains("AT_STATX_FORCE_SYNC") && l.contains("c\", AT_")),
        "stamps asked of the server:\n{trace}"
    );
    // Another client's changes, made in the source.
    std::fs::write(source.join("a/b/c/new"), "").unwrap();
    let seen = same_as_walk(point, "a file made in the source");
    assert!(seen.stdout.windows(9).any(|w| w == b"a/b/c/new"));
    std::fs::remove_file(source.join("e/f4")).unwrap();
    std::fs::rename(source.join("a/d"), source.join("e/d2")).unwrap();
    std::fs::write(source.join("e/d2/moved"), "").unwrap();
    same_as_walk(point, "a file removed, a directory moved");
    drop(mount);

    // Read-only: no probe can pass, every directory listed each time.
    let Some(mount) = testenv::latencyfs::Mount::new(&binary, &["-d", "0"], &source, work.path())
    else {
        return;
    };
    let point = mount.point();
    same_as_walk(point, "read-only, the first run");
    past_the_margin();
    let (repeat, trace) = traced(point, cache.path(), &["--index", "."]);
    let walked = run_str(point, cache.path(), &["."]);
    assert_eq!(sorted_lines(&repeat.stdout), sorted_lines(&walked.stdout));
    assert!(
        opened_in(&trace, "a") || opened_in(&trace, "./a"),
        "a not listed:\n{trace}"
    );
    // Not tested, so no verdict kept: a search that can write there tests it.
    assert_eq!(verdicts(), kept, "a verdict on a mount that was not tested");
}

/// The same on ext4 with 128-byte inodes, whose times are whole seconds: a file
/// created in the second of the listing recorded leaves the directory's stamps
/// as they were, which only the racy rule catches (root: a loop mount).
#[test]
fn a_change_in_the_same_second_on_a_coarse_filesystem_is_seen() {
    let Some(point) = fresh_filesystem("ext4-coarse") else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let dir = point.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    let args = vec!["--index".to_owned(), "d".to_owned()];
    let mtime = |p: &Path| std::fs::metadata(p).unwrap().mtime();
    let mut same_second = 0;
    for round in 0..20 {
        std::fs::write(dir.join(format!("before{round}")), b"").unwrap();
        let stamp = mtime(&dir);
        assert!(run(point.path(), cache.path(), &args, &[]).status.success());
        let name = format!("after{round}");
        std::fs::write(dir.join(&name), b"").unwrap();
        same_second += usize::from(mtime(&dir) == stamp);
        let second = run(point.path(), cache.path(), &args, &[]);
        assert!(
            String::from_utf8_lossy(&second.stdout).contains(&name),
            "round {round}: {name} missing"
        );
    }
    assert!(
        same_second > 0,
        "no change fell in the second of its listing"
    );
}

/// `bytes` as `pfind --index ROOT` leaves the index of `root`, for the bad-index cases.
fn index_file(cache: &Path) -> PathBuf {
    let dir = cache.join("pfind");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

/// A tree searched once with the index, and what a walk prints.
fn indexed_tree() -> (testenv::TestEnv, tempfile::TempDir, Vec<String>) {
    let env = testenv::TestEnv::new(&["a/b", "c"], &["a/x", "a/b/y", "c/z", "top"]);
    let cache = tempfile::tempdir().unwrap();
    let args = vec!["--index".to_owned(), ".".to_owned()];
    let first = run(env.root(), cache.path(), &args, &[]);
    assert!(
        first.status.success() && first.stderr.is_empty(),
        "{first:?}"
    );
    (env, cache, args)
}

/// Runs `args` and checks the output is the walk's, with exactly one warning line
/// that contains `says`.
fn walks_with_one_warning(env: &testenv::TestEnv, cache: &Path, args: &[String], says: &str) {
    let out = run(env.root(), cache, args, &[]);
    let walked = run(env.root(), cache, &args[1..], &[]);
    assert_eq!(sorted_lines(&out.stdout), sorted_lines(&walked.stdout));
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("pfind: warning: --index: ") && stderr.contains(says),
        "{stderr}"
    );
}

#[test]
fn a_corrupt_or_truncated_index_is_a_warning_and_a_walk_then_rebuilt() {
    let (env, cache, args) = indexed_tree();
    let file = index_file(cache.path());
    let good = std::fs::read(&file).unwrap();
    // A byte changed in a name: the listing it holds would be wrong.
    let mut bad = good.clone();
    let at = good.windows(2).rposition(|w| w == b"y\0").unwrap();
    bad[at] = b'q';
    std::fs::write(&file, &bad).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "corrupt (checksum mismatch)");
    // Written again, whole: the next search says nothing.
    let again = run(env.root(), cache.path(), &args, &[]);
    assert!(again.stderr.is_empty(), "{again:?}");
    for cut in [0, 10, good.len() / 2, good.len() - 1] {
        std::fs::write(&file, &good[..cut]).unwrap();
        let says = if cut < 70 { "" } else { "corrupt" };
        walks_with_one_warning(&env, cache.path(), &args, says);
    }
    std::fs::write(
        &file,
        b"#!/bin/sh\necho this is not an index, and long enough to hold a header\n",
    )
    .unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "not a pfind index");
    // An index an older pfind wrote (format 2, before the checksum was XXH3):
    // not read, and written anew.
    let mut older = std::fs::read(&file).unwrap();
    older[16..20].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&file, &older).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "another version of pfind (2)");
    let again = run(env.root(), cache.path(), &args, &[]);
    assert!(again.stderr.is_empty(), "{again:?}");
}

#[test]
fn an_index_of_another_root_under_the_same_name_is_not_used() {
    let (env, cache, args) = indexed_tree();
    let file = index_file(cache.path());
    // The index of another directory, renamed to this root's file name.
    let other = testenv::TestEnv::new(&["elsewhere"], &["elsewhere/secret"]);
    let moved = tempfile::tempdir().unwrap();
    let out = run(
        other.root(),
        moved.path(),
        &["--index".to_owned(), ".".to_owned()],
        &[],
    );
    assert!(out.status.success());
    std::fs::copy(index_file(moved.path()), &file).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "the index of another directory");
}

#[test]
fn an_index_or_cache_others_may_write_is_never_read() {
    let (env, cache, args) = indexed_tree();
    let file = index_file(cache.path());
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "writable by others; not used");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let dir = cache.path().join("pfind");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "writable by others; not used");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// An index written by another user (root can make one) is never read, even
/// one that answers wrongly: its listing of `a` lacks `a/x`.
#[test]
fn an_index_owned_by_another_user_is_never_read() {
    if !is_root() {
        eprintln!("skipped: changing a file's owner needs root");
        return;
    }
    let (env, cache, args) = indexed_tree();
    let file = index_file(cache.path());
    std::fs::remove_file(env.root().join("top")).unwrap();
    // Its listing is now stale; checked, it is not used, but a reader that did not
    // check the owner would take it too. 65534 is nobody.
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "owned by another user");
    assert_eq!(
        std::fs::metadata(&file).unwrap().uid(),
        65534,
        "not replaced either"
    );
    std::os::unix::fs::chown(&file, Some(0), Some(0)).unwrap();
    std::os::unix::fs::chown(cache.path().join("pfind"), Some(65534), Some(65534)).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "owned by another user");
}

#[test]
fn an_unreadable_index_is_a_warning_and_a_walk() {
    if is_root() {
        // Root reads a file of mode 000: a directory in its place cannot be read.
        let (env, cache, args) = indexed_tree();
        let file = index_file(cache.path());
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        walks_with_one_warning(&env, cache.path(), &args, "not a regular file");
        return;
    }
    let (env, cache, args) = indexed_tree();
    let file = index_file(cache.path());
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "Permission denied");
}

/// A full disk while the index is written: one warning, the walk's answer, the
/// old index left whole, and no temporary file.
#[test]
fn a_full_disk_while_writing_is_a_warning() {
    let Some(cache) = fresh_filesystem("tmpfs-64k") else {
        return;
    };
    let env = testenv::TestEnv::new(&["a"], &["a/x"]);
    let args = vec!["--index".to_owned(), ".".to_owned()];
    let first = run(env.root(), cache.path(), &args, &[]);
    assert!(first.stderr.is_empty());
    let old = std::fs::read(index_file(cache.path())).unwrap();
    // A tree whose index cannot fit in what is left.
    for i in 0..3000 {
        std::fs::write(
            env.root().join(format!("a/a_file_with_a_long_name_{i:05}")),
            b"",
        )
        .unwrap();
    }
    walks_with_one_warning(&env, cache.path(), &args, "No space left on device");
    assert_eq!(std::fs::read(index_file(cache.path())).unwrap(), old);
}

#[test]
fn a_root_replaced_since_it_was_indexed_is_indexed_again() {
    let (env, _, _) = indexed_tree();
    // A cache of its own: `a`'s search would otherwise use the index of `.`.
    let cache = tempfile::tempdir().unwrap();
    let args = vec!["--index".to_owned(), "a".to_owned()];
    let first = run(env.root(), cache.path(), &args, &[]);
    assert!(first.stderr.is_empty());
    std::fs::rename(env.root().join("a"), env.root().join("old_a")).unwrap();
    std::fs::create_dir(env.root().join("a")).unwrap();
    std::fs::write(env.root().join("a/new"), b"").unwrap();
    walks_with_one_warning(&env, cache.path(), &args, "replaced since it was indexed");
    std::fs::remove_dir_all(env.root().join("a")).unwrap();
    let gone = run(env.root(), cache.path(), &args, &[]);
    let walked = run(env.root(), cache.path(), &args[1..], &[]);
    assert_eq!(gone.status.code(), walked.status.code());
    assert_eq!(
        gone.stderr, walked.stderr,
        "a root that is gone: the walk's own error"
    );
}

/// The trusted mode answers from the index as it was, says how old it is, and a
/// checked search after it is exact again. A search that needs no `stat` does not
/// even open the directories the index holds: one removed since is still listed,
/// without an error, as locate would list it; one that needs a `stat` (`-l`) opens
/// them, and says the removed one is gone.
#[test]
fn the_trusted_mode_answers_from_the_index_and_says_so() {
    let (env, cache, _) = indexed_tree();
    std::fs::write(env.root().join("c/later"), b"").unwrap();
    let trust = |extra: &[&str]| {
        let mut args = vec!["--index-trust".to_owned(), ".".to_owned()];
        args.extend(extra.iter().map(|s| s.to_string()));
        run(env.root(), cache.path(), &args, &[])
    };
    let trusted = trust(&[]);
    let stderr = String::from_utf8_lossy(&trusted.stderr);
    assert!(
        stderr.contains("answered from an index written") && stderr.contains("seconds ago"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&trusted.stdout).contains("later"));
    std::fs::remove_dir_all(env.root().join("a/b")).unwrap();
    let stale = trust(&[]);
    assert_eq!(stale.status.code(), Some(0), "{stale:?}");
    assert!(String::from_utf8_lossy(&stale.stdout).contains("a/b/y"));
    assert_eq!(String::from_utf8_lossy(&stale.stderr).lines().count(), 1);
    let long = trust(&["-l"]);
    assert_eq!(long.status.code(), Some(1), "a/b is opened, and is gone");
    let checked = run_str(env.root(), cache.path(), &["--index", "."]);
    let out = String::from_utf8_lossy(&checked.stdout);
    assert!(out.contains("later") && !out.contains("a/b/y"), "{out}");
}

/// A search below an indexed root uses that root's index: no index of its own
/// is made, the answer is the walk's, and the trusted mode answers from it too.
#[test]
fn a_search_below_an_indexed_root_uses_its_index() {
    let (env, cache, _) = indexed_tree();
    std::fs::write(env.root().join("a/b/new"), b"").unwrap();
    for sub in ["a", "a/b", "./a/"] {
        let args = vec!["--index".to_owned(), sub.to_owned()];
        let indexed = run(env.root(), cache.path(), &args, &[]);
        let walked = run(env.root(), cache.path(), &args[1..], &[]);
        assert_eq!(
            sorted_lines(&indexed.stdout),
            sorted_lines(&walked.stdout),
            "{sub}"
        );
        assert!(indexed.stderr.is_empty(), "{indexed:?}");
        assert_eq!(
            std::fs::read_dir(cache.path().join("pfind"))
                .unwrap()
                .count(),
            1
        );
    }
    let trusted = run_str(env.root(), cache.path(), &["--index-trust", "a"]);
    let out = String::from_utf8_lossy(&trusted.stdout);
    assert!(out.contains("a/b/new") && out.contains("a/x"), "{out}");
    assert!(String::from_utf8_lossy(&trusted.stderr).contains("answered from an index"));
}

/// `--index-list` shows the index of each root searched; `--index-drop` removes it.
#[test]
fn indexes_are_listed_and_dropped() {
    let (env, cache, _) = indexed_tree();
    let listed = run(env.root(), cache.path(), &["--index-list".to_owned()], &[]);
    let text = String::from_utf8_lossy(&listed.stdout);
    let canonical = std::fs::canonicalize(env.root()).unwrap();
    assert!(
        text.starts_with(&*canonical.to_string_lossy()) && text.contains("4 directories"),
        "{text}"
    );
    let dropped = run(env.root(), cache.path(), &["--index-drop".to_owned()], &[]);
    assert!(String::from_utf8_lossy(&dropped.stdout).starts_with("dropped the index of"));
    assert_eq!(
        std::fs::read_dir(cache.path().join("pfind"))
            .unwrap()
            .count(),
        0
    );
    let listed = run(env.root(), cache.path(), &["--index-list".to_owned()], &[]);
    assert!(listed.stdout.is_empty() && listed.status.success());
}

/// An index over a megabyte is mapped under a read lease rather than read
/// (`src/os/leased_map.rs`, Linux): its answers are a walk's, repeated, after a
/// change, and trusted; and a second pfind reading it meanwhile is no obstacle.
#[test]
fn a_large_index_answers_as_a_walk_does() {
    let env = testenv::TestEnv::new(&["a", "b/c"], &[]);
    for dir in ["a", "b/c"] {
        for i in 0..12_000 {
            std::fs::File::create(env.root().join(dir).join(format!("{i:070}"))).unwrap();
        }
    }
    let cache = tempfile::tempdir().unwrap();
    let walk = || run_str(env.root(), cache.path(), &["-n", "*7*"]).stdout;
    let indexed = |mode: &str| {
        let out = run_str(env.root(), cache.path(), &[mode, "-n", "*7*"]);
        assert!(out.status.success(), "{out:?}");
        out.stdout
    };
    let first = indexed("--index");
    assert_eq!(sorted_lines(&first), sorted_lines(&walk()));
    let file = std::fs::read_dir(cache.path().join("pfind"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let size = file.metadata().unwrap().len();
    assert!(
        size > 1 << 20,
        "an index of {size} bytes is read, not mapped"
    );
    // Another descriptor open for reading the while, as another pfind's would be.
    let held = std::fs::File::open(file.path()).unwrap();
    assert_eq!(sorted_lines(&indexed("--index")), sorted_lines(&walk()));
    std::fs::File::create(env.root().join("b/c/new7")).unwrap();
    std::fs::remove_file(env.root().join(format!("a/{:070}", 7))).unwrap();
    let changed = indexed("--index");
    assert_eq!(sorted_lines(&changed), sorted_lines(&walk()));
    assert_eq!(
        sorted_lines(&indexed("--index-trust")),
        sorted_lines(&changed)
    );
    drop(held);
}

/// Runs `mode` (`--index` or `--index-trust`) in `root` (indexed in `cache`)
/// with each of `filters`, at the default worker count, one and three, against a
/// walk with the same filters: the same lines, the same warnings but the
/// trusted index's own, the same status. Returns how many searches were
/// compared.
fn indexed_answers_as_walks(mode: &str, root: &Path, cache: &Path, filters: &[&[&str]]) -> usize {
    let without_index_warning = |stderr: &[u8]| -> String {
        String::from_utf8_lossy(stderr)
            .lines()
            .filter(|line| !line.contains("--index-trust"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut answered = 0;
    for filters in filters {
        let mut walk: Vec<&str> = vec!["."];
        walk.extend(filters.iter().copied());
        let walked = run_str(root, cache, &walk);
        for workers in [None, Some("1"), Some("3")] {
            let mut indexed: Vec<&str> = vec![mode];
            indexed.extend(workers.iter().flat_map(|j| ["-j", *j]));
            indexed.extend(walk.iter().copied());
            let out = run_str(root, cache, &indexed);
            assert_eq!(
                sorted_lines(&out.stdout),
                sorted_lines(&walked.stdout),
                "{indexed:?}"
            );
            assert_eq!(
                without_index_warning(&out.stderr),
                without_index_warning(&walked.stderr),
                "{indexed:?}"
            );
            assert_eq!(out.status.code(), walked.status.code(), "{indexed:?}");
            answered += 1;
        }
    }
    answered
}

/// `--index-trust` visits a leaf directory (one whose record holds no directory)
/// together with its parent where the walk goes depth-first (below depth 4),
/// instead of queueing it (`walker::unopened::visit_leaves`), and takes a regular
/// file's name from the record as it is (`Visitor::visit_file_by_name`). Leaves of
/// every shape deep in a tree (empty, of files, of a link and a FIFO, with odd
/// names), beside directories that are not leaves, answer as a walk does for
/// names, kinds, depths, exclusions, paths and counts, at one worker and several.
#[test]
fn deep_leaf_directories_are_answered_as_a_walk_does() {
    use std::os::unix::ffi::OsStrExt;
    let mut dirs = Vec::new();
    let mut chain = String::from("d1");
    for depth in 2..=8 {
        chain.push_str(&format!("/d{depth}"));
        dirs.push(chain.clone());
    }
    let env = testenv::TestEnv::new(&[], &[]);
    for (i, dir) in dirs.iter().enumerate() {
        let depth = i + 2;
        for name in ["a.txt", "b.rs", "x y.txt", "README"] {
            env.write(format!("{dir}/leaf/{name}"), b"");
        }
        std::fs::create_dir_all(env.root().join(dir).join("empty")).unwrap();
        env.write(format!("{dir}/odd\nleaf/f{depth}.txt"), b"");
        env.write(format!("{dir}/specials/plain"), b"");
        env.symlink("plain", &format!("{dir}/specials/link"));
        env.mkfifo(&format!("{dir}/specials/fifo"));
        let raw = env
            .root()
            .join(dir)
            .join(std::ffi::OsStr::from_bytes(b"raw\xff"));
        std::fs::create_dir(&raw).unwrap();
        std::fs::write(raw.join(std::ffi::OsStr::from_bytes(b"n\xe9.txt")), b"").unwrap();
        env.write(format!("{dir}/f{depth}.txt"), b"");
    }
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(env.root(), cache.path(), &["--index", "."]);
    assert!(
        first.status.success() && first.stderr.len() < 200,
        "{first:?}"
    );
    let answered = indexed_answers_as_walks(
        "--index-trust",
        env.root(),
        cache.path(),
        &[
            &[][..],
            &["-e", "txt"],
            &["-n", "*e*"],
            &["-n", "README"],
            &["-t", "d"],
            &["-t", "any"],
            &["-t", "l", "-t", "p"],
            &["-d", "6"],
            &["--min-depth", "7", "-t", "any"],
            &["-E", "leaf"],
            &["-E", "d7"],
            &["-p", "**/d6/**/*.txt"],
            &["--regex", "^[abf]"],
            &["-c"],
            &["-c", "-e", "rs"],
            &["-a", "-e", "rs"],
        ],
    );
    assert_eq!(answered, 48);
    // Not vacuous: the deepest leaves' files are there.
    let deep = run_str(
        env.root(),
        cache.path(),
        &["--index-trust", ".", "-n", "f8.txt"],
    );
    assert!(
        String::from_utf8_lossy(&deep.stdout).contains("odd"),
        "{deep:?}"
    );
}

/// A chain of `depth` directories `c1/c2/...` in `env`, each holding a file, a
/// README, a leaf of two files, an empty directory and a branch two levels
/// deep (`side/inner`). Returns each level's path, `""` for the root first.
fn write_chain(env: &testenv::TestEnv, depth: usize) -> Vec<String> {
    let mut chain = String::from("c1");
    let mut levels = vec![String::new()];
    for level in 1..=depth {
        if level > 1 {
            chain.push_str(&format!("/c{level}"));
        }
        levels.push(chain.clone());
        env.write(format!("{chain}/f{level}.txt"), b"");
        env.write(format!("{chain}/README"), b"");
        env.write(format!("{chain}/leaf{level}/a.rs"), b"");
        env.write(format!("{chain}/leaf{level}/b.txt"), b"");
        env.write(format!("{chain}/side/inner/x{level}.rs"), b"");
        env.write(format!("{chain}/side/y.txt"), b"");
        std::fs::create_dir_all(env.root().join(&chain).join("empty")).unwrap();
    }
    levels
}

/// `--index-trust` visits a recorded subdirectory within its parent's turn,
/// leaf or not, while no worker waits for one (`walker::unopened::visit_leaves`),
/// up to 24 levels down, and queues the rest: a chain of 40 directories, each
/// holding files, a leaf, an empty directory and a branch two levels deep, is
/// answered as a walk answers it (lines, warnings but the index's own, status)
/// at one worker, three and the default, with filters that stop at a depth,
/// start below one, prune a name and note what `-t` left out.
#[test]
fn subdirectories_visited_within_their_parents_turn_are_answered_as_a_walk_does() {
    let env = testenv::TestEnv::new(&[], &[]);
    write_chain(&env, 40);
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(env.root(), cache.path(), &["--index", "."]);
    assert!(first.status.success(), "{first:?}");
    let answered = indexed_answers_as_walks(
        "--index-trust",
        env.root(),
        cache.path(),
        &[
            &[][..],
            &["-e", "txt"],
            &["-n", "README"],
            &["-t", "d"],
            &["-t", "any"],
            &["-d", "30"],
            &["--min-depth", "27", "-t", "any"],
            &["-E", "c30"],
            &["-E", "side"],
            &["-t", "d", "-n", "README"],
            &["-c", "-e", "rs"],
        ],
    );
    assert_eq!(answered, 33);
    // Not vacuous: the deepest files, past the levels visited within a turn.
    let deep = run_str(
        env.root(),
        cache.path(),
        &["--index-trust", ".", "-n", "x40.rs"],
    );
    assert_eq!(
        deep.stdout.iter().filter(|&&b| b == b'\n').count(),
        1,
        "{deep:?}"
    );
    // The note of what `-t` left out is there to compare.
    let noted = run_str(env.root(), cache.path(), &[".", "-t", "d", "-n", "README"]);
    assert!(!noted.stderr.is_empty(), "{noted:?}");
}

/// The checked `--index` on a local filesystem checks each recorded subdirectory
/// of an unopened directory (one `lstat`) and visits it within its parent's turn
/// (`walker::unopened::Checks`): after each change deep in a chain of 30
/// directories ([`write_chain`]; a file added to a leaf and one removed beside
/// a chain's directory, a leaf renamed, a directory replaced by a file and by a
/// symbolic link, a leaf given a subdirectory, two directories swapped), its
/// answers are a walk's, at the default worker count, one and three.
#[test]
fn checked_subdirectories_visited_within_their_parents_turn_answer_as_a_walk_does() {
    let env = testenv::TestEnv::new(&[], &[]);
    let levels = write_chain(&env, 30);
    let cache = tempfile::tempdir().unwrap();
    // Twice, past the racy margin, so that every directory is checked, not listed.
    for _ in 0..2 {
        std::thread::sleep(std::time::Duration::from_millis(120));
        let indexed = run_str(env.root(), cache.path(), &["--index", "."]);
        assert!(indexed.status.success(), "{indexed:?}");
    }
    let at = |level: usize, rest: &str| env.root().join(&levels[level]).join(rest);
    type Change<'c> = (&'c str, Box<dyn Fn() + 'c>);
    let changes: Vec<Change> = vec![
        (
            "a file added to a leaf",
            Box::new(|| std::fs::write(at(10, "leaf10/new.txt"), b"").unwrap()),
        ),
        (
            "a file removed",
            Box::new(|| std::fs::remove_file(at(12, "f12.txt")).unwrap()),
        ),
        (
            "a leaf renamed",
            Box::new(|| std::fs::rename(at(8, "leaf8"), at(8, "leaf8b")).unwrap()),
        ),
        (
            "a directory replaced by a file",
            Box::new(|| {
                std::fs::remove_dir_all(at(15, "side")).unwrap();
                std::fs::write(at(15, "side"), b"").unwrap();
            }),
        ),
        (
            "a leaf given a subdirectory",
            Box::new(|| std::fs::create_dir(at(18, "leaf18/sub")).unwrap()),
        ),
        (
            "two directories swapped",
            Box::new(|| {
                std::fs::rename(at(20, "leaf20"), at(20, "swap")).unwrap();
                std::fs::rename(at(20, "side"), at(20, "leaf20")).unwrap();
                std::fs::rename(at(20, "swap"), at(20, "side")).unwrap();
            }),
        ),
        (
            "a leaf replaced by a symbolic link",
            Box::new(|| {
                std::fs::remove_dir_all(at(22, "leaf22")).unwrap();
                std::os::unix::fs::symlink("../leaf21", at(22, "leaf22")).unwrap();
            }),
        ),
    ];
    let filter_sets: [&[&str]; 4] = [&[], &["-e", "txt"], &["-t", "any"], &["-c", "-e", "rs"]];
    for (change, make) in &changes {
        make();
        eprintln!("after {change}:");
        let answered = indexed_answers_as_walks("--index", env.root(), cache.path(), &filter_sets);
        assert_eq!(answered, 12, "{change}");
    }
    // Not vacuous: the changes are in the answers.
    let all = run_str(env.root(), cache.path(), &["--index", ".", "-t", "any"]);
    let text = String::from_utf8_lossy(&all.stdout);
    assert!(
        text.contains("leaf10/new.txt") && text.contains("leaf8b/a.rs"),
        "{text}"
    );
    assert!(
        !text.contains("f12.txt") && text.contains("leaf18/sub"),
        "{text}"
    );
}

/// Where regular files cannot match (`-t d`, `-t l`, `--min-depth` below them), a
/// record's files are passed over, not visited one by one
/// (`walker::indexed::files_pass_unseen`), but a name search still notes a file
/// its `-t` left out, as a walk does: the same lines, the same warning and the
/// same status, checked and trusted, at one worker and three.
#[test]
fn files_that_cannot_match_are_passed_over_but_still_noted_as_misses() {
    let env = testenv::TestEnv::new(&["top/mixed/sub", "top/d2/deeper/deepest"], &[]);
    for i in 0..3_000 {
        env.write(format!("top/many/f{i:05}"), b"");
    }
    env.write("top/mixed/a.txt", b"");
    env.write("top/d2/deeper/b.txt", b"");
    std::os::unix::fs::symlink("a.txt", env.root().join("top/mixed/link")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(env.root(), cache.path(), &["--index", "top"]);
    assert!(first.status.success(), "{first:?}");
    let mut hinted = 0;
    for filters in [
        &["-t", "d"][..],
        &["-t", "d", "-n", "f00042"],
        &["-t", "d", "-n", "sub"],
        &["-t", "l", "-n", "a.txt"],
        &["-t", "l"],
        &["-t", "d", "--min-depth", "3"],
        &["-t", "d", "-c"],
    ] {
        let mut walk = vec!["top"];
        walk.extend_from_slice(filters);
        let walked = run_str(env.root(), cache.path(), &walk);
        let hint = String::from_utf8_lossy(&walked.stderr).contains("a regular file did");
        hinted += usize::from(hint);
        for mode in ["--index", "--index-trust"] {
            for workers in ["1", "3"] {
                let mut args = vec![mode, "-j", workers];
                args.extend_from_slice(&walk);
                let out = run_str(env.root(), cache.path(), &args);
                assert_eq!(out.status.code(), walked.status.code(), "{args:?}");
                assert_eq!(
                    sorted_lines(&out.stdout),
                    sorted_lines(&walked.stdout),
                    "{args:?}"
                );
                let stderr = String::from_utf8_lossy(&out.stderr);
                // The trusted mode says how old the index is; nothing else differs.
                let said: Vec<&str> = stderr.lines().filter(|l| !l.contains("index")).collect();
                let walk_said: Vec<String> = String::from_utf8_lossy(&walked.stderr)
                    .lines()
                    .map(String::from)
                    .collect();
                assert_eq!(said, walk_said, "{args:?}");
            }
        }
    }
    // Not vacuous: two searches found only files their `-t` left out.
    assert_eq!(hinted, 2);
}

/// A search with a name test rules a record's regular files out whole when no
/// name in it holds the test's needle (`filter::needle`): the longest literal of
/// its glob, or `.EXT` and the name's end. Names the needle must still find: of
/// either case under `-i` and `-e`, with `İ` and the Kelvin sign (which fold to
/// `i` and `k`), not UTF-8, at the end of a directory of thousands of names (past
/// the block the names are folded in), in leaves and in directories that are not;
/// and names that hold the needle but do not match. Checked and trusted, at one
/// worker and several, each the walk's answer, and none of them empty.
#[test]
fn a_name_tests_needle_rules_out_only_what_cannot_match() {
    use std::os::unix::ffi::OsStrExt;
    let env = testenv::TestEnv::new(&[], &[]);
    let names: [&[u8]; 12] = [
        b"ToolKIT.h",
        b"MyLIBrary.txt",
        b"README",
        b"ReadMe.md",
        b"readme.txt",
        b"NOTREADME",
        b"a.CONF",
        b"b.conf",
        b"c.conf.d",
        b".conf",
        b"x\xffy.conf",
        b"lib\xffz",
    ];
    // Each alone with a name that does not match, so that nothing else in its
    // directory holds the needle.
    let folded_from_beyond_ascii: [&[u8]; 2] = [b"\xe2\x84\xaaernel.conf", b"\xc4\xb0nclude.h"];
    for dir in ["leaf", "mixed/sub", "deep/a/b/c/leaf"] {
        std::fs::create_dir_all(env.root().join(dir)).unwrap();
        for name in names {
            let path = env.root().join(dir).join(std::ffi::OsStr::from_bytes(name));
            std::fs::write(path, b"").unwrap();
        }
        for (i, name) in folded_from_beyond_ascii.iter().enumerate() {
            let alone = env.root().join(dir).join(format!("alone{i}"));
            std::fs::create_dir_all(alone.join("below")).unwrap();
            std::fs::write(alone.join(std::ffi::OsStr::from_bytes(name)), b"").unwrap();
            std::fs::write(alone.join("other"), b"").unwrap();
            std::fs::write(
                alone.join("below").join(std::ffi::OsStr::from_bytes(name)),
                b"",
            )
            .unwrap();
        }
    }
    // A directory of many names, the one that matches last.
    std::fs::create_dir(env.root().join("big")).unwrap();
    for i in 0..3000 {
        std::fs::write(env.root().join(format!("big/file{i:05}.txt")), b"").unwrap();
    }
    std::fs::write(env.root().join("big/zz.CONF"), b"").unwrap();
    std::fs::write(env.root().join("big/zz-README"), b"").unwrap();
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(env.root(), cache.path(), &["--index", "."]);
    assert!(first.status.success(), "{first:?}");
    let queries: [&[&str]; 14] = [
        // Under -i, `i` and `k` end a needle's run except in directories whose
        // names are ASCII alone (`Glob::required_ascii_literal`).
        &["-i", "-n", "*kit*"],
        &["-i", "-n", "*library*"],
        &["-i", "-n", "*LIBRARY.TXT"],
        &["-e", "conf"],
        &["-e", "md,CONF"],
        &["-e", "CONF", "-t", "any"],
        &["-n", "README*"],
        &["-n", "*README"],
        &["-i", "-n", "*readme*"],
        &["-i", "-n", "*kernel*"],
        &["-i", "-n", "*include*"],
        &["-n", "*\u{212a}ernel*"],
        &["--regex", "README"],
        &["-e", "conf", "-n", "*erne*"],
    ];
    for query in queries {
        let mut walk: Vec<&str> = vec!["."];
        walk.extend(query.iter().copied());
        let walked = run_str(env.root(), cache.path(), &walk);
        assert!(walked.status.success(), "{query:?}: {walked:?}");
        assert!(!walked.stdout.is_empty(), "{query:?} finds nothing");
        for mode in ["--index", "--index-trust"] {
            for workers in ["1", "3"] {
                let mut indexed = vec![mode, "-j", workers];
                indexed.extend(walk.iter().copied());
                let out = run_str(env.root(), cache.path(), &indexed);
                assert_eq!(
                    sorted_lines(&out.stdout),
                    sorted_lines(&walked.stdout),
                    "{indexed:?}"
                );
            }
        }
    }
}

/// `-c` with nothing to match but the kind counts a record of files alone from
/// its kinds, without reading its names: the counts are still a walk's and
/// find's, for records of files only (more than one block of kinds), of mixed
/// kinds and empty ones, checked, trusted, and with filters that need the names.
#[test]
fn a_count_by_kind_is_a_walks_count() {
    let env = testenv::TestEnv::new(&["files", "mixed/sub", "empty"], &["mixed/a.txt"]);
    for i in 0..3_000 {
        let ext = ["txt", "rs", "log"][i % 3];
        std::fs::File::create(env.root().join(format!("files/{i}.{ext}"))).unwrap();
    }
    for i in 0..40 {
        std::fs::File::create(env.root().join(format!("mixed/sub/{i}.txt"))).unwrap();
    }
    std::os::unix::fs::symlink("a.txt", env.root().join("mixed/link")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let found = std::process::Command::new("find")
        .args([".", "-type", "f"])
        .current_dir(env.root())
        .output()
        .unwrap();
    let files = found
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert_eq!(files, 3_041);
    for filters in [
        &[][..],
        &["-e", "txt"],
        &["-t", "d"],
        &["-t", "f", "-t", "l"],
    ] {
        let args = |mode: Option<&'static str>| -> Vec<&str> {
            let mut args: Vec<&str> = mode.into_iter().collect();
            args.extend(["-c", "."]);
            args.extend(filters.iter().copied());
            args
        };
        let walked = run_str(env.root(), cache.path(), &args(None));
        assert!(walked.status.success(), "{walked:?}");
        if filters.is_empty() {
            assert_eq!(walked.stdout, format!("{files}\n").into_bytes());
        }
        for mode in ["--index", "--index", "--index-trust"] {
            let out = run_str(env.root(), cache.path(), &args(Some(mode)));
            assert_eq!(out.stdout, walked.stdout, "{mode} {filters:?}: {out:?}");
        }
    }
}

/// A filesystem whose listings give no entry's kind (ext4 made without its
/// `filetype` feature, a loop mount): the kinds are learnt by an `lstat` in the
/// directory itself, so the trusted mode opens such directories; its answers,
/// and the checked mode's, are the walk's.
#[test]
fn a_filesystem_without_entry_kinds_is_answered_as_a_walk() {
    let Some(point) = fresh_filesystem("ext4-untyped") else {
        return;
    };
    let root = point.path();
    for dir in ["a/b", "c"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for file in ["a/x.txt", "a/b/y.txt", "c/z.rs", "top.txt"] {
        std::fs::write(root.join(file), "").unwrap();
    }
    std::os::unix::fs::symlink("top.txt", root.join("c/link.txt")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(root, cache.path(), &["--index", "."]);
    assert!(first.status.success(), "{first:?}");
    for query in [&["-e", "txt"][..], &["-t", "any", "-n", "*"], &[]] {
        let walked = run_str(root, cache.path(), &[&["."][..], query].concat());
        assert!(!walked.stdout.is_empty(), "{walked:?}");
        for mode in ["--index-trust", "--index"] {
            let args = [&[mode, "."][..], query].concat();
            let indexed = run_str(root, cache.path(), &args);
            assert_eq!(
                sorted_lines(&indexed.stdout),
                sorted_lines(&walked.stdout),
                "{mode} {query:?}: {indexed:?}"
            );
        }
    }
}

/// A root deleted since it was indexed: `--index-drop` still finds its index by
/// the path as given (relative, with a trailing `/`); a path that never had one
/// is an error naming it.
#[test]
fn the_index_of_a_deleted_root_is_dropped() {
    let env = testenv::TestEnv::new(&["gone", "gone/a"], &["gone/a/x"]);
    let cache = tempfile::tempdir().unwrap();
    let built = run_str(env.root(), cache.path(), &["--index", "gone"]);
    assert!(built.status.success(), "{built:?}");
    let index_dir = cache.path().join("pfind");
    assert_eq!(std::fs::read_dir(&index_dir).unwrap().count(), 1);
    let listed = run_str(env.root(), cache.path(), &["--index-list"]);
    let canonical = std::fs::canonicalize(env.root().join("gone")).unwrap();
    std::fs::remove_dir_all(env.root().join("gone")).unwrap();
    let wrong = run_str(env.root(), cache.path(), &["--index-drop", "gonne"]);
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && said.contains("gonne"), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
    assert_eq!(std::fs::read_dir(&index_dir).unwrap().count(), 1);
    let dropped = run_str(env.root(), cache.path(), &["--index-drop", "./gone/"]);
    assert!(dropped.status.success(), "{dropped:?}");
    assert_eq!(
        String::from_utf8_lossy(&dropped.stdout),
        format!("dropped the index of {}\n", canonical.display())
    );
    assert_eq!(std::fs::read_dir(&index_dir).unwrap().count(), 0);
    assert!(String::from_utf8_lossy(&listed.stdout).starts_with(&*canonical.to_string_lossy()));
}

/// A record of regular files alone, where each would be printed as its path and
/// nothing else (`Paths` output, no name, path or `stat` test, no
/// `--max-results`), is printed whole from the record (`Visitor::print_files`):
/// byte for byte the walk's lines, for names with a newline, bytes that are not
/// UTF-8 and 255 bytes, an empty directory, a directory of more than one block of
/// names, with `-0`, depth limits and kinds, at one worker and three, checked and
/// trusted; and where the rule does not hold (`-1`, `-c`, a name test, `-l`), as
/// the walk still.
#[test]
fn a_record_of_files_alone_is_printed_as_a_walk_prints_it() {
    use std::os::unix::ffi::OsStrExt;
    let env = testenv::TestEnv::new(&["top/empty", "top/mixed/sub"], &[]);
    for i in 0..2_500 {
        env.write(format!("top/many/f{i:05}"), b"");
    }
    env.write("top/odd/new\nline", b"");
    env.write(format!("top/odd/{}", "l".repeat(255)), b"");
    let raw = env.root().join("top/odd");
    std::fs::write(raw.join(std::ffi::OsStr::from_bytes(b"n\xe9\xff")), b"").unwrap();
    env.write("top/mixed/a.txt", b"");
    env.write("top/mixed/sub/deep/b", b"");
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(env.root(), cache.path(), &["--index", "top"]);
    assert!(first.status.success(), "{first:?}");
    let mut compared = 0;
    // Every regular file, NUL-terminated: what `-1` prints one of.
    let every_file = run_str(env.root(), cache.path(), &["top", "-0"]).stdout;
    for filters in [
        &[][..],
        &["-0"],
        &["-d", "2"],
        &["--min-depth", "3"],
        &["-t", "any"],
        &["-t", "d"],
        // NUL-terminated: the one file may be `new\nline`.
        &["-1", "-0"],
        &["-c"],
        &["-n", "f0*"],
        &["-l"],
    ] {
        let mut walk: Vec<&str> = vec!["top"];
        walk.extend(filters.iter().copied());
        let walked = run_str(env.root(), cache.path(), &walk);
        assert!(walked.status.success(), "{filters:?}: {walked:?}");
        let split = |out: &[u8]| -> Vec<Vec<u8>> {
            let terminator = if filters.contains(&"-0") { 0 } else { b'\n' };
            let mut lines: Vec<Vec<u8>> = out
                .split(|&b| b == terminator)
                .map(<[u8]>::to_vec)
                .collect();
            lines.sort();
            lines
        };
        // "first": `--index` with no index yet, which visits each directory
        // from the record it has just made.
        for mode in ["first", "--index", "--index-trust"] {
            for workers in ["1", "3"] {
                let fresh = tempfile::tempdir().unwrap();
                let (mode, cache) = match mode {
                    "first" => ("--index", fresh.path()),
                    _ => (mode, cache.path()),
                };
                let mut args = vec![mode, "-j", workers];
                args.extend(walk.iter().copied());
                let out = run_str(env.root(), cache, &args);
                assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
                match filters {
                    // One of the files, whichever comes first.
                    ["-1", "-0"] => {
                        let lines = split(&out.stdout);
                        assert_eq!(lines.len(), 2, "{args:?}: {lines:?}");
                        let file = lines[1].as_slice();
                        assert!(every_file.split(|&b| b == 0).any(|f| f == file), "{args:?}");
                    }
                    _ => assert_eq!(split(&out.stdout), split(&walked.stdout), "{args:?}"),
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 60);
    // Not vacuous: the many files and the odd names are all there.
    let all = run_str(env.root(), cache.path(), &["--index-trust", "top", "-0"]);
    let names: Vec<&[u8]> = all.stdout.split(|&b| b == 0).collect();
    assert_eq!(names.len(), 2_500 + 3 + 2 + 1, "{:?}", names.len());
    assert!(names.contains(&&b"top/odd/new\nline"[..]));
    assert!(names.contains(&&b"top/odd/n\xe9\xff"[..]));
}

/// A record of more regular files alone than one thread prints by itself
/// (`Visitor::print_files_shared`: 65,536 or more) is printed by this worker and
/// helper threads at once: every file once and nothing else, as find lists them,
/// at one, two and four workers, newline- and NUL-terminated, checked and
/// trusted. Helpers are started where there is more than one worker (strace sees
/// the threads made: a repeat of a directory with no subdirectory starts none
/// otherwise), and none at `-j 1`.
#[test]
fn a_giant_record_is_printed_by_helper_threads_as_a_walk_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let giant = dir.path().join("giant");
    std::fs::create_dir(&giant).unwrap();
    for i in 0..70_000 {
        std::fs::File::create(giant.join(format!("file.mdtest.{}.{i}", i % 7))).unwrap();
    }
    let mut oracle = testenv::oracle_files(giant.as_os_str().as_bytes());
    oracle.sort();
    assert_eq!(oracle.len(), 70_000);
    let giant_arg = giant.to_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let first = run_str(dir.path(), cache.path(), &["--index", giant_arg]);
    assert!(first.status.success(), "{first:?}");
    for mode in ["--index", "--index-trust"] {
        for workers in ["1", "2", "4"] {
            for terminator in [b'\n', 0] {
                let mut args = vec![mode, "-j", workers, giant_arg];
                if terminator == 0 {
                    args.push("-0");
                }
                let out = run_str(dir.path(), cache.path(), &args);
                assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
                let mut lines: Vec<Vec<u8>> = out
                    .stdout
                    .split(|&b| b == terminator)
                    .map(<[u8]>::to_vec)
                    .collect();
                assert_eq!(lines.pop(), Some(Vec::new()), "{args:?}: ends a line");
                lines.sort();
                assert!(lines == oracle, "{args:?}: {} lines", lines.len());
            }
        }
    }
    if !has("strace") {
        eprintln!("strace not installed: the helper threads are not counted");
        return;
    }
    for (workers, helped) in [("1", false), ("2", true), ("4", true)] {
        let trace = tempfile::NamedTempFile::new().unwrap();
        let out = Command::new("strace")
            .args(["-f", "-e", "trace=clone,clone3", "-o"])
            .arg(trace.path())
            .arg(env!("CARGO_BIN_EXE_pfind"))
            .args(["--index", "-j", workers, giant_arg])
            .env("XDG_CACHE_HOME", cache.path())
            .env_remove("PFIND_OPTIONS")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 70_000);
        let trace = std::fs::read_to_string(trace.path()).unwrap();
        let threads = trace.lines().filter(|l| l.contains("clone")).count();
        assert_eq!(
            threads > 0,
            helped,
            "-j {workers}: {threads} threads\n{trace}"
        );
    }
}

/// Where the giant-directory tests run: fresh tmpfs, ext4, xfs and btrfs mounts
/// (root, [`fresh_filesystem`]), or the test's own temporary directory where
/// none can be made.
struct Places {
    mounts: Vec<FreshMount>,
    own: tempfile::TempDir,
}

impl Places {
    fn new() -> Places {
        let mounts = ["tmpfs", "ext4", "xfs", "btrfs"];
        Places {
            mounts: mounts.into_iter().filter_map(fresh_filesystem).collect(),
            own: tempfile::tempdir().unwrap(),
        }
    }

    fn paths(&self) -> Vec<&Path> {
        match self.mounts.is_empty() {
            true => vec![self.own.path()],
            false => self.mounts.iter().map(FreshMount::path).collect(),
        }
    }
}

/// A directory listed to be recorded (a first run, or one that changed) that is
/// a giant one is cut after its first full batch as a walk cuts it, and its
/// pieces are listed at once by helper threads (`walker::recording::read_recorded`):
/// on tmpfs, ext4, xfs and btrfs (when root; the test's own filesystem otherwise),
/// 30,000 entries and some subdirectories record exactly the oracle's files, for
/// the first run, a repeat, the trusted mode and a repeat after changes; pieces
/// are listed with four workers, and none with one.
#[test]
fn a_giant_directory_is_recorded_from_pieces_listed_at_once() {
    let places = Places::new();
    for place in places.paths() {
        let giant = place.join("giant");
        std::fs::create_dir(&giant).unwrap();
        for i in 0..30_000 {
            std::fs::File::create(giant.join(format!("file.mdtest.{}.{i}", i % 7))).unwrap();
        }
        let oracle = |giant: &Path| {
            let mut files = testenv::oracle_files(giant.as_os_str().as_bytes());
            files.sort();
            files
        };
        let search_in = |cache: &Path, args: &[&str]| {
            let mut all = vec![args[0], "--stats", giant.to_str().unwrap()];
            all.extend_from_slice(&args[1..]);
            let out = run_str(place, cache, &all);
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            let stats = String::from_utf8(out.stderr).unwrap();
            let pieces = stats
                .lines()
                .find_map(|line| line.strip_suffix(" pieces of giant directories listed"))
                .and_then(|count| count.parse::<u64>().ok())
                .expect("--stats counts the pieces");
            let mut files: Vec<Vec<u8>> = text
                .lines()
                .filter(|line| line.starts_with(giant.to_str().unwrap()))
                .map(|line| line.as_bytes().to_vec())
                .collect();
            files.sort();
            (files, pieces)
        };
        let context = place.display();
        // Regular files alone: the first run prints the record of its pieces
        // whole, as a repeat does.
        let (first, pieces) =
            search_in(tempfile::tempdir().unwrap().path(), &["--index", "-j", "4"]);
        assert_eq!(
            first,
            oracle(&giant),
            "{context}: the first run of files alone"
        );
        assert!(
            pieces > 0,
            "{context}: the first run of files alone listed no piece"
        );
        for i in 0..40 {
            testenv::write(&giant.join(format!("sub{i}/inner")), b"");
        }
        let cache = tempfile::tempdir().unwrap();
        let search = |args: &[&str]| search_in(cache.path(), args);
        let (first, pieces) = search(&["--index", "-j", "4"]);
        assert_eq!(first, oracle(&giant), "{context}: the first run");
        assert!(pieces > 0, "{context}: the first run listed no piece");
        let (repeat, _) = search(&["--index", "-j", "4"]);
        assert_eq!(repeat, first, "{context}: the repeat");
        let (trusted, _) = search(&["--index-trust", "-j", "4"]);
        assert_eq!(trusted, first, "{context}: the trusted mode");
        // Changed: listed again, and recorded again from its pieces.
        for i in (0..30_000).step_by(9) {
            std::fs::remove_file(giant.join(format!("file.mdtest.{}.{i}", i % 7))).unwrap();
        }
        for i in 0..500 {
            std::fs::File::create(giant.join(format!("new.{i}"))).unwrap();
        }
        let (changed, pieces) = search(&["--index", "-j", "4"]);
        assert_eq!(changed, oracle(&giant), "{context}: after changes");
        assert!(
            pieces > 0,
            "{context}: the changed directory listed no piece"
        );
        let (again, _) = search(&["--index", "-j", "4"]);
        assert_eq!(again, changed, "{context}: the repeat after changes");
        // One worker never cuts.
        std::fs::remove_dir_all(cache.path().join("pfind")).unwrap();
        let (alone, pieces) = search(&["--index", "-j", "1"]);
        assert_eq!(alone, changed, "{context}: one worker");
        assert_eq!(pieces, 0, "{context}: one worker listed pieces");
    }
}

/// A giant directory changing while its pieces are listed for the index: every
/// entry that was never touched is printed once by the first run, nothing is
/// printed that was never there, and once the changes stop a repeat answers as
/// the oracle does (the directory's times moved: it is listed again).
#[test]
fn a_giant_directory_changing_while_recorded_is_answered_exactly_after() {
    let places = Places::new();
    for place in places.paths() {
        let dir = place.join("changing");
        std::fs::create_dir(&dir).unwrap();
        for index in 0..12_000 {
            std::fs::File::create(dir.join(format!("steady.{index}"))).unwrap();
        }
        let cache = tempfile::tempdir().unwrap();
        testenv::while_changing(&dir, 3_000, || {
            for _ in 0..3 {
                let _ = std::fs::remove_dir_all(cache.path().join("pfind"));
                let out = run_str(place, cache.path(), &["--index", "-j", "4", "changing"]);
                let mut seen = std::collections::HashMap::new();
                for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                    *seen.entry(line.to_vec()).or_insert(0) += 1;
                }
                for path in seen.keys() {
                    let name = &path[b"changing/".len()..];
                    let known = [&b"steady."[..], b"moving.", b"moved.", b"late."];
                    let known = known.iter().any(|start| name.starts_with(start));
                    assert!(
                        known,
                        "{}: {:?}",
                        place.display(),
                        String::from_utf8_lossy(path)
                    );
                }
                for index in 0..12_000 {
                    let path = format!("changing/steady.{index}").into_bytes();
                    let count = seen.get(&path).copied();
                    assert_eq!(count, Some(1), "{}: steady.{index}", place.display());
                }
            }
        });
        // Past the racy margin of a coarse clock, then exact.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let out = run_str(place, cache.path(), &["--index", "-j", "4", "changing"]);
        let printed: Vec<&[u8]> = sorted_lines(&out.stdout)
            .into_iter()
            .filter(|line| !line.is_empty())
            .collect();
        let prefix = dir.as_os_str().len() + 1;
        let mut expected: Vec<Vec<u8>> = testenv::oracle_files(dir.as_os_str().as_bytes())
            .into_iter()
            .map(|path| [&b"changing/"[..], &path[prefix..]].concat())
            .collect();
        expected.sort();
        assert_eq!(printed, expected, "{}", place.display());
    }
}

/// Through `PFIND_OPTIONS`, for those who want it always; `--no-index` undoes it.
#[test]
fn pfind_options_may_carry_the_index() {
    let env = testenv::TestEnv::new(&["a"], &["a/x"]);
    let cache = tempfile::tempdir().unwrap();
    let mut command = pfind_command(env.root(), &["--no-index"]);
    command
        .env("XDG_CACHE_HOME", cache.path())
        .env("PFIND_OPTIONS", "--index");
    assert!(command.output().unwrap().status.success());
    assert!(
        !cache.path().join("pfind").exists(),
        "--no-index: no index made"
    );
    let mut command = pfind_command(env.root(), &[] as &[&str]);
    command
        .env("XDG_CACHE_HOME", cache.path())
        .env("PFIND_OPTIONS", "--index");
    assert!(command.output().unwrap().status.success());
    assert_eq!(
        std::fs::read_dir(cache.path().join("pfind"))
            .unwrap()
            .count(),
        1
    );
}

/// A filesystem made and mounted for one test ([`fresh_filesystem`]): taken off
/// (lazily) when dropped, a panic's unwinding included, before its mount point
/// and image directory are removed.
struct FreshMount {
    point: tempfile::TempDir,
    _image: tempfile::TempDir,
}

impl FreshMount {
    fn path(&self) -> &Path {
        self.point.path()
    }
}

impl Drop for FreshMount {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.point.path())
            .status();
    }
}

/// A new filesystem of `kind` mounted on a temporary directory (root only: a
/// loop mount or a tmpfs); `None`, said on stderr, where it cannot be made (not
/// root, or the mount failed).
fn fresh_filesystem(kind: &str) -> Option<FreshMount> {
    if !is_root() {
        eprintln!("skipped {kind}: mounting it needs root");
        return None;
    }
    let point = tempfile::tempdir().unwrap();
    let image = tempfile::tempdir().unwrap();
    let script = match kind {
        "tmpfs" => "mount -t tmpfs -o size=256m tmpfs \"$1\"".to_owned(),
        "tmpfs-64k" => "mount -t tmpfs -o size=64k tmpfs \"$1\"".to_owned(),
        // 128-byte inodes keep whole seconds.
        "ext4-coarse" => "truncate -s 64M \"$2/img\" && mkfs.ext4 -q -F -I 128 \"$2/img\" >/dev/null 2>&1 && mount -o loop \"$2/img\" \"$1\"".to_owned(),
        // No `filetype` feature: every listing gives DT_UNKNOWN.
        "ext4-untyped" => "truncate -s 64M \"$2/img\" && mkfs.ext4 -q -F -O ^filetype \"$2/img\" >/dev/null 2>&1 && mount -o loop \"$2/img\" \"$1\"".to_owned(),
        _ => format!(
            "truncate -s 320M \"$2/img\" && mkfs.{kind} -q {} \"$2/img\" >/dev/null && mount -o loop \"$2/img\" \"$1\"",
            if kind == "ext4" { "-F" } else { "-f" }
        ),
    };
    let ok = Command::new("sh")
        .args(["-c", &script, "sh"])
        .arg(point.path())
        .arg(image.path())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped {kind}: could not make and mount it");
        return None;
    }
    Some(FreshMount {
        point,
        _image: image,
    })
}

/// 10,000 steps (PFIND_INDEX_STEPS) on each of ext4, xfs, btrfs and tmpfs, and
/// through latencyfs (`fuse`: rounds of 100 steps, each after a pause past the
/// two seconds a network filesystem's records wait to be trusted)
/// (PFIND_INDEX_FS; root only):
/// `cargo test --release --test feature index::ten_thousand -- --ignored`.
#[test]
#[ignore]
fn ten_thousand_steps_on_every_filesystem() {
    if !is_root() {
        eprintln!("skipped: mounting needs root");
        return;
    }
    let steps: usize = std::env::var("PFIND_INDEX_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    // PFIND_INDEX_FS=xfs,tmpfs runs those alone.
    let kinds =
        std::env::var("PFIND_INDEX_FS").unwrap_or_else(|_| "ext4,xfs,btrfs,tmpfs,fuse".to_owned());
    for kind in kinds.split(',') {
        if kind == "fuse" {
            if let Some(compared) = steps_through_latencyfs(steps, seed() + 4) {
                eprintln!("fuse: {compared} steps, every answer the walk's");
            }
            continue;
        }
        let Some(point) = fresh_filesystem(kind) else {
            continue;
        };
        let seed = seed() + kind.len() as u64;
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut tree = Tree::new(Some(point.path()), &mut rng);
        match mutate_and_compare(&mut tree, seed, steps, &[]) {
            Ok(compared) => eprintln!("{kind}: {compared} steps, every answer the walk's"),
            Err(difference) => panic!("{kind}: {difference}"),
        }
    }
}

/// `steps` steps of the harness from `seed` on a tree searched through
/// latencyfs, in rounds of 100 each after a pause past the racy margin; how
/// many were compared (`None`: latencyfs could not be built or mounted here).
fn steps_through_latencyfs(steps: usize, seed: u64) -> Option<usize> {
    let work = tempfile::tempdir().unwrap();
    let binary = testenv::latencyfs::build(work.path())?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut tree = Tree::new(None, &mut rng);
    let options = ["-d", "0", "-w", "-a", "0"];
    let mount = testenv::latencyfs::Mount::new(&binary, &options, &tree.root, work.path())?;
    tree.view = Some(mount.point().to_owned());
    let mut compared = 0;
    for round in 0..steps.div_ceil(100) as u64 {
        std::thread::sleep(std::time::Duration::from_millis(2_200));
        let these = (steps - compared).min(100);
        compared += mutate_and_compare(&mut tree, seed + round, these, &[])
            .unwrap_or_else(|e| panic!("fuse: {e}"));
    }
    drop(mount);
    Some(compared)
}
