//! A git repository, as the ignore rules see it: where its work tree starts, its
//! `.git` directory (a `.git` file's `gitdir:` followed, a linked worktree's
//! `commondir` too), the rule files that apply to the whole tree
//! (`info/exclude`, `core.excludesFile`) and, read only when first needed, the paths
//! its index tracks.

use super::gitconfig::GitSettings;
use super::index::TrackedPaths;
use super::rules::RuleList;
use crate::os::read::{read_large_path, read_small_path, Expect};
use crate::report::Reporter;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// A rule file in the tree (`.gitignore`, `.ignore`, `.fdignore`), at any level,
/// the root and above it included: never followed if it is a symbolic link (git
/// refuses one with `ELOOP`, "Too many levels of symbolic links", since 2.32), and
/// at most git's own bound on a pattern file (`PATTERN_MAX_FILE_SIZE` in `dir.c`),
/// beyond which git warns and reads nothing.
pub const IN_TREE_RULES: Expect = Expect {
    what: "a rule file",
    limit: 100 << 20,
    follow: false,
    pipe: false,
};

/// `info/exclude` and `core.excludesFile`: outside the tree, followed as git
/// follows them (a dotfile kept elsewhere and linked is common).
pub const RULES_OUTSIDE: Expect = Expect {
    follow: true,
    ..IN_TREE_RULES
};

/// `--ignore-file`: named by the user, so a pipe is read too (`--ignore-file
/// <(...)`), to the same bound.
pub const NAMED_RULES: Expect = Expect {
    pipe: true,
    ..RULES_OUTSIDE
};

/// A `.git` file (`gitdir: ...`) or a worktree's `commondir`: one line; git refuses
/// a `.git` file past 1 MiB too (`READ_GITFILE_ERR_TOO_LARGE`).
const ONE_LINE: Expect = Expect {
    what: "a .git file",
    limit: 1 << 20,
    follow: true,
    pipe: false,
};

/// The index: no real one comes near 2 GiB (an entry is 62 bytes and its path;
/// a repository of millions of files has a few hundred MiB).
const INDEX: Expect = Expect {
    what: "a git index",
    limit: 2 << 30,
    follow: true,
    pipe: false,
};

/// Where a repository keeps its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitDirs {
    /// The `.git` directory (for a linked worktree or a submodule, the one its
    /// `.git` file names): `HEAD` and `index` are here.
    pub git_dir: PathBuf,
    /// Where `config`, `info/exclude`, objects and refs are: the `commondir` of a
    /// linked worktree, else `git_dir` itself.
    pub common_dir: PathBuf,
}

/// What a `.git` entry (directory or file) at `dot_git` leads to: a repository's
/// directories, or why it is not one (a `.git` file pointing nowhere, an empty
/// `.git` directory), which git then treats as an ordinary directory.
pub fn resolve(dot_git: &Path) -> Result<GitDirs, String> {
    let meta = std::fs::symlink_metadata(dot_git).map_err(|err| crate::report::describe(&err))?;
    let git_dir = if meta.is_dir() {
        dot_git.to_path_buf()
    } else if meta.is_file() {
        let read = read_small_path(
            dot_git,
            Expect {
                follow: false,
                ..ONE_LINE
            },
        );
        let bytes = read.map_err(|err| crate::report::describe(&err))?;
        let text = bytes
            .strip_prefix(b"gitdir:")
            .ok_or("a .git file that does not start with 'gitdir:'")?;
        let target = Path::new(std::ffi::OsStr::from_bytes(text.trim_ascii()));
        match dot_git.parent() {
            Some(parent) if target.is_relative() => parent.join(target),
            _ => target.to_path_buf(),
        }
    } else {
        return Err("neither a directory nor a file".into());
    };
    let common_dir = match read_small_path(&git_dir.join("commondir"), ONE_LINE) {
        Ok(bytes) => {
            let common = Path::new(std::ffi::OsStr::from_bytes(bytes.trim_ascii()));
            if common.is_relative() {
                git_dir.join(common)
            } else {
                common.to_path_buf()
            }
        }
        Err(_) => git_dir.clone(),
    };
    // Git's own test (`is_git_directory`): HEAD, objects and refs.
    let is_repository = git_dir.join("HEAD").symlink_metadata().is_ok()
        && common_dir.join("objects").is_dir()
        && common_dir.join("refs").is_dir();
    if !is_repository {
        return Err(format!(
            "{} is not a git directory",
            String::from_utf8_lossy(git_dir.as_os_str().as_bytes())
        ));
    }
    Ok(GitDirs {
        git_dir,
        common_dir,
    })
}

/// The nearest directory at or above `dir` (a canonical path) that is a work
/// tree's top, and its repository: as `git rev-parse --show-toplevel` finds it from
/// `dir`. A `.git` that is not a repository is warned about and passed over.
pub fn discover(dir: &Path, reporter: &Reporter) -> Option<(PathBuf, GitDirs)> {
    for candidate in dir.ancestors() {
        let dot_git = candidate.join(".git");
        if dot_git.symlink_metadata().is_err() {
            continue;
        }
        match resolve(&dot_git) {
            Ok(dirs) => return Some((candidate.to_path_buf(), dirs)),
            Err(why) => not_a_repository(&dot_git, &why, reporter),
        }
    }
    None
}

/// The warning for a `.git` that leads to no repository.
pub fn not_a_repository(dot_git: &Path, why: &str, reporter: &Reporter) {
    let what_instead = "its directory is searched as part of the tree around it";
    warn(dot_git.as_os_str().as_bytes(), why, what_instead, reporter);
}

/// `pfind: warning: PATH: WHY; WHAT_INSTEAD`: every warning about a file of git's
/// or a rule file names it, says what is wrong and what was done instead.
fn warn(path: &[u8], why: &str, what_instead: &str, reporter: &Reporter) {
    let mut message = path.to_vec();
    message.extend_from_slice(format!(": {why}; {what_instead}").as_bytes());
    reporter.warning(&message);
}

/// One repository met by the walk.
#[derive(Debug)]
pub struct Repo {
    /// Where paths below the work tree's top start, in the paths the rules are
    /// matched on (see [`super::DirRules`]): the length of the top's own path there.
    pub top: usize,
    /// `info/exclude`.
    pub info_exclude: Option<Box<RuleList>>,
    /// `core.excludesFile`, or git's default user ignore file.
    pub user_excludes: Option<Arc<RuleList>>,
    git_dir: PathBuf,
    hash_len: usize,
    tracked: OnceLock<Option<TrackedPaths>>,
}

impl Repo {
    /// The repository in `dirs`, whose work tree's top is at `top` (see the field).
    pub fn open(dirs: GitDirs, top: usize, user: &GitSettings, reporter: &Reporter) -> Repo {
        let settings = user.with_repository(&dirs.common_dir, reporter);
        let info_exclude = read_rules(
            &dirs.common_dir.join("info/exclude"),
            RULES_OUTSIDE,
            reporter,
        );
        let user_excludes = settings
            .user_ignore_file()
            .and_then(|file| read_rules(&file, RULES_OUTSIDE, reporter))
            .map(Arc::from);
        Repo {
            top,
            info_exclude,
            user_excludes,
            git_dir: dirs.git_dir,
            hash_len: settings.hash_len(),
            tracked: OnceLock::new(),
        }
    }

    /// The paths the index tracks, read on first use; `None` (after a warning) when
    /// the index cannot be read. A repository without an index tracks nothing.
    pub fn tracked(&self, reporter: &Reporter) -> Option<&TrackedPaths> {
        self.tracked
            .get_or_init(|| {
                let file = self.git_dir.join("index");
                // Mapped under a lease where one can be had, read otherwise: a
                // tool that rewrites it in place (`cp`, `rsync --inplace`, go-git)
                // cut a plain mapping short under the walk, a SIGBUS (issue 47);
                // under the lease it waits while pfind copies the bytes it maps.
                let bytes = match read_large_path(&file, INDEX) {
                    Ok(bytes) => bytes,
                    Err(err) if err.kind() == io::ErrorKind::NotFound => {
                        return Some(TrackedPaths::default())
                    }
                    Err(err) => {
                        index_warning(&file, &crate::report::describe(&err), reporter);
                        return None;
                    }
                };
                match TrackedPaths::parse(bytes, self.hash_len) {
                    Ok(tracked) => Some(tracked),
                    Err(err) => {
                        index_warning(&file, &err.to_string(), reporter);
                        None
                    }
                }
            })
            .as_ref()
    }
}

fn index_warning(file: &Path, why: &str, reporter: &Reporter) {
    let what_instead = "files that ignore rules match are left out even where git tracks them";
    warn(file.as_os_str().as_bytes(), why, what_instead, reporter);
}

/// The rules of the file at `path`, by its path, if it is what `expect` allows.
pub fn read_rules(path: &Path, expect: Expect, reporter: &Reporter) -> Option<Box<RuleList>> {
    let read = read_small_path(path, expect);
    rules_read(read, path.as_os_str().as_bytes(), reporter)
}

/// The rules of a rule file once `read` tried to read it (from `path`, named in
/// the warning): `None` when it does not exist, or (after a warning) cannot be read,
/// or holds no rule (the `info/exclude` of every new repository is comments only):
/// each list kept is asked about every entry below it. Boxed: a directory's lists
/// are moved as its rules are built, and a `RuleList` is a few hundred bytes, which
/// were copied for every directory of a walk (4.4M instructions on `/usr`).
pub fn rules_read(
    read: io::Result<Vec<u8>>,
    path: &[u8],
    reporter: &Reporter,
) -> Option<Box<RuleList>> {
    match read {
        Ok(bytes) => Some(Box::new(RuleList::parse(&bytes))).filter(|list| !list.is_empty()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => {
            let why = crate::report::describe(&err);
            warn(path, &why, "its rules are not applied", reporter);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 47: the walk keeps its own copy of the index, so an index cut short
    /// after it was read (`cp` over it, `rsync --inplace`) changes nothing; read
    /// through a mapping, the next lookup past its new end was a SIGBUS.
    #[test]
    fn an_index_cut_short_after_it_was_read_is_still_looked_up() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path();
        let git = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .current_dir(top)
                .args(args)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::create_dir(top.join("dir")).unwrap();
        for i in 0..3000 {
            std::fs::write(top.join(format!("dir/tracked-file-{i}")), b"").unwrap();
        }
        git(&["add", "dir"]);
        let git_dir = top.join(".git");
        let dirs = GitDirs {
            git_dir: git_dir.clone(),
            common_dir: git_dir.clone(),
        };
        let reporter = Reporter::new();
        let repo = Repo::open(dirs, 0, &GitSettings::default(), &reporter);
        let tracked = repo.tracked(&reporter).unwrap();
        assert!(tracked.contains(b"dir/tracked-file-0"));
        std::fs::File::create(git_dir.join("index")).unwrap();
        assert!(tracked.contains(b"dir/tracked-file-2999"));
        assert!(!tracked.contains(b"dir/tracked-file-3000"));
    }

    fn fake_git_dir(dir: &Path) {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
        std::fs::create_dir_all(dir.join("refs")).unwrap();
        std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn git_directories_files_and_worktrees_resolve() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path();
        fake_git_dir(&top.join("repo/.git"));
        assert_eq!(
            resolve(&top.join("repo/.git")).unwrap().git_dir,
            top.join("repo/.git")
        );
        // A submodule's .git file, relative.
        fake_git_dir(&top.join("repo/.git/modules/sub"));
        std::fs::create_dir_all(top.join("repo/sub")).unwrap();
        std::fs::write(top.join("repo/sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        let sub = resolve(&top.join("repo/sub/.git")).unwrap();
        assert_eq!(sub.git_dir, top.join("repo/sub/../.git/modules/sub"));
        // A linked worktree: HEAD in its own dir, the rest in the common one.
        let wt = top.join("repo/.git/worktrees/wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(wt.join("HEAD"), "x").unwrap();
        std::fs::write(wt.join("commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(top.join("wt")).unwrap();
        std::fs::write(top.join("wt/.git"), format!("gitdir: {}\n", wt.display())).unwrap();
        let linked = resolve(&top.join("wt/.git")).unwrap();
        assert_eq!(linked.common_dir, wt.join("../.."));
    }

    #[test]
    fn what_is_not_a_repository_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path();
        std::fs::write(top.join("pointing-nowhere"), "gitdir: /does/not/exist\n").unwrap();
        let why = resolve(&top.join("pointing-nowhere")).unwrap_err();
        assert!(
            why.contains("/does/not/exist is not a git directory"),
            "{why}"
        );
        std::fs::write(top.join("garbage"), "hello\n").unwrap();
        assert!(resolve(&top.join("garbage"))
            .unwrap_err()
            .contains("gitdir:"));
        std::fs::create_dir(top.join("empty")).unwrap();
        assert!(resolve(&top.join("empty")).is_err());
    }
}
