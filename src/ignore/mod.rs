//! Ignore files: which entries `--ignore` (and `--no-hidden`, `--ignore-file`)
//! leaves out, decided the way git decides what `git ls-files --cached --others
//! --exclude-standard` lists.
//!
//! The walker asks two questions and learns nothing of git. Per directory,
//! [`Gate::enter`]: "what rules apply below here", answered with a [`DirRules`] that
//! holds the directory's own rule files and an `Arc` to its parent's, so a subtree
//! shares everything above it and each file is read and compiled once. Per entry,
//! [`Gate::decide`]: keep it, skip it, or keep it only for what git tracks in it.
//!
//! Which rule decides, highest precedence first (as fd and ripgrep order them, and
//! as git orders the ones it reads):
//!
//! 1. `.fdignore` files (fd's own), the entry's own directory's first, then each
//!    parent's, so that a tree set up for fd reads the same with `-G`;
//! 2. `.ignore` files the same way;
//! 3. `.gitignore` files the same way, up to the work tree's top (a nested
//!    repository or submodule starts its own chain);
//! 4. the repository's `info/exclude`, then `core.excludesFile`;
//! 5. `--ignore-file` files, matched against the path below the root.
//!
//! Within one file the last matching line decides; a `!` line keeps the entry. An
//! excluded directory is not listed at all (git cannot re-include below one either),
//! unless git's own rules (3 to 5) excluded it and git's index tracks something in
//! it: then it is listed for the tracked paths only, because `git ls-files --cached`
//! lists tracked files whatever git's rules say. What `.fdignore` and `.ignore`
//! exclude is left out tracked or not, as in fd and rg: they are not git's, and
//! projects keep them to hide tracked files from search tools (issue 39). `.git`
//! itself is never listed. A hidden name under `--no-hidden` is left out unless
//! the deciding rule is a `!` rule, as in fd and rg.
//!
//! Paths: rules are matched on paths below the *origin*, the outermost directory
//! whose rules were read (the work tree's top when the root is inside one, else the
//! root's parent). Each [`DirRules`] knows how long its directory's path is there,
//! so the path below any rule file's directory is a suffix of the entry's, and a
//! repository's own paths start at [`Repo::top`]. The entry's path is put together
//! per entry from the root's path there and the walker's path below the root.
//!
//! Only a directory that changes the rules has a [`DirRules`] of its own (it has a
//! rule file, or starts a repository; and every root); the others share their
//! parent's. So what the rules cost grows with the rule files met, not with the
//! depth: each directory used to hold its whole path and a link to its parent's, and
//! each entry's verdict walked every level up to the top, so a chain of 30,000
//! directories with `--ignore` took 1.1 GB and 7.1 s where the plain walk took
//! 4.4 MB and 0.28 s (issue 38).

mod gitconfig;
pub mod index;
mod repo;
pub mod rules;
mod sha;

use crate::os::dirent::EntryKind;
use crate::os::read::read_small_file;
use crate::report::Reporter;
use gitconfig::GitSettings;
use repo::{read_rules, rules_read, Repo, IN_TREE_RULES, NAMED_RULES};
use rules::{RuleList, Verdict};
use std::ffi::{CStr, OsStr};
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Which ignore files a walk reads, and whether hidden entries are kept: resolved
/// from the command line (`--ignore`, `--no-ignore-vcs`, `--no-hidden`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IgnoreOptions {
    /// `.gitignore`, `info/exclude`, `core.excludesFile` and the index.
    pub vcs: bool,
    /// `.ignore` and `.fdignore` files.
    pub dot_ignore: bool,
    /// `.gitignore` files only inside a repository's work tree (`--require-git`).
    pub require_git: bool,
    /// The rule files of directories above each root, up to the work tree's top.
    pub parents: bool,
    /// `--ignore-file`: more rule files, in gitignore syntax.
    pub files: Vec<PathBuf>,
    /// Leave out entries whose name starts with `.` (`--no-hidden`).
    pub skip_hidden: bool,
}

impl IgnoreOptions {
    /// True when some entry may be left out: the walk then goes through a [`Gate`].
    pub fn is_active(&self) -> bool {
        self.uses_rules() || self.skip_hidden
    }

    /// True when rules from files apply (git's, `.ignore`, `--ignore-file`), not
    /// only the test of hidden names.
    pub fn uses_rules(&self) -> bool {
        self.vcs || self.dot_ignore || !self.files.is_empty()
    }
}

/// What the walk does with one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Left out; a directory is not listed.
    Skip,
    /// Walked as usual.
    Keep,
    /// A directory that rules exclude but where git tracks something: listed for
    /// its tracked paths only.
    KeepTracked,
}

/// The rules in force in a directory: those of the nearest directory at or above it
/// that changed them, its own files, and the levels above by reference.
#[derive(Debug)]
pub struct DirRules {
    /// The nearest directory above that changed the rules.
    parent: Option<Arc<DirRules>>,
    /// The length of the directory's path below the origin, with its trailing `/`
    /// (0 for the origin itself): where the paths its files' rules see begin.
    path_len: usize,
    /// The root's path below the origin, with a trailing `/`; every entry's path
    /// there starts with it (empty above the root, where no entry is decided).
    root_path: Arc<[u8]>,
    fdignore: Option<Box<RuleList>>,
    dot_ignore: Option<Box<RuleList>>,
    gitignore: Option<Box<RuleList>>,
    /// Whether this directory or one above has a `.fdignore`, a `.ignore`: when
    /// not, an entry's verdict skips walking up for them.
    fdignore_above: bool,
    dot_ignore_above: bool,
    /// The repository the directory is in, if any.
    repo: Option<Arc<Repo>>,
}

/// The names in a directory's listing that change its rules, noted while listing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Marks {
    pub gitignore: bool,
    pub dot_ignore: bool,
    pub fdignore: bool,
    pub dot_git: bool,
}

impl Marks {
    /// Notes `name` if it is one of the names that matter.
    #[inline]
    pub fn note(&mut self, name: &[u8]) {
        match name {
            b".gitignore" => self.gitignore = true,
            b".ignore" => self.dot_ignore = true,
            b".fdignore" => self.fdignore = true,
            b".git" => self.dot_git = true,
            _ => {}
        }
    }
}

/// A directory the walker has open and has listed.
#[derive(Clone, Copy, Debug)]
pub struct Listed<'a> {
    pub fd: RawFd,
    /// Its printed path, for opening `.git` and for messages.
    pub path: &'a [u8],
    /// Its path below its root, with a trailing `/`.
    pub below_root: &'a [u8],
    /// What its listing held.
    pub marks: Marks,
}

/// Everything a walk's ignore rules share: the options, the user's git settings and
/// the `--ignore-file` rules, read once.
#[derive(Debug)]
pub struct Gate {
    options: IgnoreOptions,
    /// The system and global git settings, read when the first repository is met.
    user: OnceLock<GitSettings>,
    explicit: Vec<RuleList>,
}

impl Gate {
    /// Reads what every directory shares. An `--ignore-file` that cannot be read is
    /// reported as an error (it was asked for by name) and the walk goes on without it.
    pub fn new(options: IgnoreOptions, reporter: &Reporter) -> Gate {
        let explicit = options
            .files
            .iter()
            .filter_map(
                |file| match crate::os::read::read_small_path(file, NAMED_RULES) {
                    Ok(bytes) => Some(RuleList::parse(&bytes)),
                    Err(err) => {
                        reporter.path_error(file.as_os_str().as_bytes(), &err);
                        None
                    }
                },
            )
            .collect();
        Gate {
            options,
            user: OnceLock::new(),
            explicit,
        }
    }

    /// The repository in `dirs`, whose work tree's top is at `top` (see [`Repo::top`]).
    fn open_repo(&self, dirs: repo::GitDirs, top: usize, reporter: &Reporter) -> Arc<Repo> {
        let user = self.user.get_or_init(|| GitSettings::user(reporter));
        Arc::new(Repo::open(dirs, top, user, reporter))
    }

    /// The rules of the root directory `root` (as typed): those of the directories
    /// above it up to its work tree's top, then its own.
    pub fn root_rules(&self, root: &[u8], reporter: &Reporter) -> Arc<DirRules> {
        let root_path = match root {
            b"" => Path::new("."),
            root => Path::new(OsStr::from_bytes(root)),
        };
        let canonical = std::fs::canonicalize(root_path).ok();
        // The work tree's top bounds the rule files read above the root, git's or not
        // (`--no-ignore-vcs` still reads the `.ignore` and `.fdignore` files up to it).
        let found = match &canonical {
            Some(canonical) if self.options.vcs || self.options.dot_ignore => {
                repo::discover(canonical, reporter)
            }
            _ => None,
        };
        let canonical = canonical.unwrap_or_else(|| root_path.into());
        // The levels from the origin down to the root's parent, and the root's path
        // below the origin with the root's own files.
        let (above, path, repo, files) = match found {
            // The origin is the root's parent: the root's path there is its name.
            None => {
                let name = canonical.file_name().map_or(&b""[..], OsStr::as_bytes);
                let origin = Arc::new(level(None, 0, None, (None, None, None)));
                let files = self.read_by_path(&canonical, false, reporter);
                (origin, dir_path(b"", name), None, files)
            }
            // The origin is the work tree's top; then each directory down to the root,
            // whose own files are read whatever --no-ignore-parent says.
            Some((top, dirs)) => {
                let repo = (self.options.vcs).then(|| self.open_repo(dirs, 0, reporter));
                let read = |dir: &Path| match self.options.parents || dir == canonical {
                    true => self.read_by_path(dir, true, reporter),
                    false => (None, None, None),
                };
                let below = canonical.strip_prefix(&top).unwrap_or(Path::new(""));
                let mut components: Vec<&[u8]> = below
                    .components()
                    .map(|c| c.as_os_str().as_bytes())
                    .collect();
                let root_name = components.pop();
                let mut above = Arc::new(level(None, 0, repo.clone(), read(&top)));
                let mut dir = top.clone();
                let mut path = Vec::new();
                for name in components {
                    dir.push(OsStr::from_bytes(name));
                    path = dir_path(&path, name);
                    above = share_or_add(above, path.len(), repo.clone(), read(&dir));
                }
                match root_name {
                    Some(name) => {
                        dir.push(OsStr::from_bytes(name));
                        let files = read(&dir);
                        (above, dir_path(&path, name), repo, files)
                    }
                    // The root is the top itself: the origin's level is its own,
                    // and its path there is empty.
                    None => return above,
                }
            }
        };
        let mut rules = level(Some(above), path.len(), repo, files);
        rules.root_path = path.into();
        Arc::new(rules)
    }

    /// Whether `.gitignore` files apply in a directory, inside a work tree or not
    /// (`--require-git` keeps them to work trees).
    fn reads_gitignore(&self, in_work_tree: bool) -> bool {
        self.options.vcs && (in_work_tree || !self.options.require_git)
    }

    /// A directory's `.fdignore`, `.ignore` and `.gitignore` rules, read by its path
    /// (roots, and the directories above them).
    fn read_by_path(&self, dir: &Path, in_work_tree: bool, reporter: &Reporter) -> RuleFiles {
        let read = |wanted: bool, file: &str| match wanted {
            true => read_rules(&dir.join(file), IN_TREE_RULES, reporter),
            false => None,
        };
        (
            read(self.options.dot_ignore, ".fdignore"),
            read(self.options.dot_ignore, ".ignore"),
            read(self.reads_gitignore(in_work_tree), ".gitignore"),
        )
    }

    /// The rules of a subdirectory of the directory `parent` describes (or of one
    /// below that shares its rules), now open and listed as `listed` says.
    /// `tracked_only` says the directory is listed for git's tracked paths alone;
    /// the answer says whether its entries are too (a repository of its own starts
    /// afresh). A directory that changes nothing shares `parent`.
    pub fn enter(
        &self,
        parent: &Arc<DirRules>,
        listed: Listed<'_>,
        tracked_only: bool,
        reporter: &Reporter,
    ) -> (Arc<DirRules>, bool) {
        let Listed {
            fd: dir_fd,
            path: dir_path,
            below_root,
            marks,
        } = listed;
        let path_len = parent.root_path.len() + below_root.len();
        let mut repo = None;
        let mut tracked_only = tracked_only;
        if marks.dot_git && self.options.vcs {
            let dot_git = Path::new(OsStr::from_bytes(dir_path)).join(".git");
            match repo::resolve(&dot_git) {
                Ok(dirs) => {
                    repo = Some(self.open_repo(dirs, path_len, reporter));
                    tracked_only = false;
                }
                Err(why) => repo::not_a_repository(&dot_git, &why, reporter),
            }
        }
        let in_work_tree = repo.is_some() || parent.repo.is_some();
        let read = |wanted: bool, file: &CStr| match wanted {
            true => {
                let path = [dir_path, b"/", file.to_bytes()].concat();
                let read = read_small_file(Some(dir_fd), file, IN_TREE_RULES);
                rules_read(read, &path, reporter)
            }
            false => None,
        };
        // Where only tracked paths are listed, `.gitignore` has nothing left to say
        // (git lists them whatever it says), but `.fdignore` and `.ignore` still
        // hide tracked files.
        let files = (
            read(marks.fdignore && self.options.dot_ignore, c".fdignore"),
            read(marks.dot_ignore && self.options.dot_ignore, c".ignore"),
            read(
                marks.gitignore && self.reads_gitignore(in_work_tree) && !tracked_only,
                c".gitignore",
            ),
        );
        let rules = match repo {
            Some(repo) => Arc::new(level(Some(parent.clone()), path_len, Some(repo), files)),
            None => share_or_add(parent.clone(), path_len, parent.repo.clone(), files),
        };
        (rules, tracked_only)
    }

    /// What to do with the entry `name` of kind `kind` in the directory `rules`
    /// describes. `scratch` is a buffer the caller reuses for the entry's path.
    /// `below_root` is the directory's path below its root, with a trailing `/`.
    ///
    /// Which files' rules a tracked file escapes: git's own (`.gitignore`,
    /// `info/exclude`, `core.excludesFile`, and `--ignore-file`, which git's answer is
    /// the baseline for) exclude only what git does not track, as git lists tracked
    /// files whatever they say; `.fdignore` and `.ignore` are not git's and exclude
    /// tracked files too, since hiding tracked files from search tools is what
    /// projects keep them for (cargo's hides its generated, tracked man pages).
    #[allow(clippy::too_many_arguments)]
    pub fn decide(
        &self,
        rules: &DirRules,
        below_root: &[u8],
        name: &[u8],
        kind: EntryKind,
        tracked_only: bool,
        scratch: &mut Vec<u8>,
        reporter: &Reporter,
    ) -> Decision {
        if self.options.vcs && name == b".git" {
            return Decision::Skip;
        }
        // A hidden name is left out unless a `!` rule names it, as in fd and rg
        // (ripgrep's own `.ignore` has `!/.github/`): only then are its rules asked.
        let hidden = self.options.skip_hidden && name.first() == Some(&b'.');
        let repo = rules.repo.as_deref().filter(|_| self.options.vcs);
        let mut entry = Candidate {
            root_path: &rules.root_path,
            below_root,
            name,
            is_dir: kind == EntryKind::Dir,
            scratch,
            built: false,
        };
        let non_git = self.non_git_verdict(rules, &mut entry);
        if tracked_only {
            // Below a directory git's rules exclude, git's rules have had their say
            // and a `!` cannot re-include (nor can it in fd, which never enters);
            // the non-git files still hide tracked files.
            if non_git == Some(Verdict::Ignored) || hidden && non_git != Some(Verdict::Kept) {
                return Decision::Skip;
            }
            return match repo {
                Some(repo) => tracked_decision(repo, &mut entry, reporter),
                None => Decision::Keep,
            };
        }
        let (verdict, by_git) = match non_git {
            Some(verdict) => (Some(verdict), false),
            None => (self.git_verdict(rules, &mut entry), true),
        };
        match verdict {
            Some(Verdict::Kept) => Decision::Keep,
            _ if hidden => Decision::Skip,
            None => Decision::Keep,
            Some(Verdict::Ignored) => match repo {
                Some(repo) if by_git => tracked_decision(repo, &mut entry, reporter),
                _ => Decision::Skip,
            },
        }
    }

    /// The verdict of the `.fdignore` or `.ignore` rule that decides for `path`
    /// (below the origin; its name starts at `name_start`), if one does: each kind
    /// over every level, the nearest first, before the next kind.
    fn non_git_verdict(&self, rules: &DirRules, entry: &mut Candidate<'_>) -> Option<Verdict> {
        // Each kind by its own loop, not by a table of accessors: called through
        // function pointers they cost 0.9M instructions of a 47M walk (issue 39).
        if rules.fdignore_above {
            let mut level = Some(rules);
            while let Some(here) = level {
                if let Some(list) = here.fdignore.as_deref() {
                    if let Some(verdict) = entry.below(here.path_len, list) {
                        return Some(verdict);
                    }
                }
                level = here.parent.as_deref();
            }
        }
        if rules.dot_ignore_above {
            let mut level = Some(rules);
            while let Some(here) = level {
                if let Some(list) = here.dot_ignore.as_deref() {
                    if let Some(verdict) = entry.below(here.path_len, list) {
                        return Some(verdict);
                    }
                }
                level = here.parent.as_deref();
            }
        }
        None
    }

    /// The verdict of the rule of lower precedence than `.fdignore` and `.ignore`
    /// that decides for `path`: `.gitignore` files up to the work tree's top, then
    /// `info/exclude`, `core.excludesFile` and `--ignore-file`.
    fn git_verdict(&self, rules: &DirRules, entry: &mut Candidate<'_>) -> Option<Verdict> {
        let mut below = |base: usize, list: &RuleList| entry.below(base, list);
        let mut level = Some(rules);
        while let Some(here) = level {
            let same_repo = match (&here.repo, &rules.repo) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            if !same_repo {
                break;
            }
            if let Some(verdict) = here
                .gitignore
                .as_ref()
                .and_then(|l| below(here.path_len, l))
            {
                return Some(verdict);
            }
            level = here.parent.as_deref();
        }
        if let Some(repo) = rules.repo.as_deref().filter(|_| self.options.vcs) {
            // Two `if`s rather than a loop over both: most repositories have
            // neither list, and the loop cost every entry 6 instructions.
            if let Some(list) = repo.info_exclude.as_deref() {
                if let Some(verdict) = below(repo.top, list) {
                    return Some(verdict);
                }
            }
            if let Some(list) = repo.user_excludes.as_deref() {
                if let Some(verdict) = below(repo.top, list) {
                    return Some(verdict);
                }
            }
        }
        for list in self.explicit.iter().rev() {
            if let Some(verdict) = below(rules.root_path.len(), list) {
                return Some(verdict);
            }
        }
        None
    }
}

/// The entry a verdict is asked for, by the pieces of its path below the origin:
/// the root's path there, the directory's path below the root, and its name. The
/// whole path is put together in `scratch` only when a list's rules may match
/// (see `RuleList::may_match`), which most entries never are: put together for
/// every entry, it was three copies each, 5.4M instructions on `/usr` (issue 39).
struct Candidate<'p> {
    root_path: &'p [u8],
    below_root: &'p [u8],
    name: &'p [u8],
    is_dir: bool,
    scratch: &'p mut Vec<u8>,
    /// Whether `scratch` holds the path.
    built: bool,
}

impl Candidate<'_> {
    fn name_start(&self) -> usize {
        self.root_path.len() + self.below_root.len()
    }

    /// The byte at `at` in the entry's path, if the path is that long.
    fn byte_at(&self, at: usize) -> Option<u8> {
        let in_root = self.root_path.get(at);
        let below = || self.below_root.get(at - self.root_path.len());
        let in_name = || self.name.get(at - self.name_start());
        in_root.or_else(below).or_else(in_name).copied()
    }

    /// The whole path below the origin.
    fn path(&mut self) -> &[u8] {
        if !self.built {
            self.scratch.clear();
            for piece in [self.root_path, self.below_root, self.name] {
                self.scratch.extend_from_slice(piece);
            }
            self.built = true;
        }
        self.scratch
    }

    /// What `list`, whose paths start `base` bytes into the entry's, says of it.
    /// Inlined: asked about two or three lists for every entry, and turning most
    /// away at once, it cost more in its call than in its test (2.5M of the 10.9M
    /// instructions of its 150K calls on a generated working copy, issue 39).
    #[inline(always)]
    fn below(&mut self, base: usize, list: &RuleList) -> Option<Verdict> {
        if !list.may_match(|| self.byte_at(base), self.name) {
            return None;
        }
        let (name_start, is_dir) = (self.name_start(), self.is_dir);
        list.verdict_of_candidate(&self.path()[base..], name_start - base, is_dir)
    }
}

/// A directory's own `.fdignore`, `.ignore` and `.gitignore`, each if it has one.
type RuleFiles = (
    Option<Box<RuleList>>,
    Option<Box<RuleList>>,
    Option<Box<RuleList>>,
);

/// A level of its own for the directory whose path below the origin is
/// `path_len` bytes long, below `parent` (none: the origin), in `repo`, with its own
/// rule `files`.
fn level(
    parent: Option<Arc<DirRules>>,
    path_len: usize,
    repo: Option<Arc<Repo>>,
    (fdignore, dot_ignore, gitignore): RuleFiles,
) -> DirRules {
    let root_path = parent
        .as_ref()
        .map_or_else(|| Arc::from(&b""[..]), |p| p.root_path.clone());
    let fdignore_above = fdignore.is_some() || parent.as_deref().is_some_and(|p| p.fdignore_above);
    let dot_ignore_above =
        dot_ignore.is_some() || parent.as_deref().is_some_and(|p| p.dot_ignore_above);
    DirRules {
        fdignore_above,
        dot_ignore_above,
        parent,
        path_len,
        root_path,
        fdignore,
        dot_ignore,
        gitignore,
        repo,
    }
}

/// `parent` itself for a directory with no rule `files` of its own (in `parent`'s
/// repository), else a level of its own below it.
fn share_or_add(
    parent: Arc<DirRules>,
    path_len: usize,
    repo: Option<Arc<Repo>>,
    files: RuleFiles,
) -> Arc<DirRules> {
    let empty = |list: Option<&RuleList>| list.is_none_or(RuleList::is_empty);
    if empty(files.0.as_deref()) && empty(files.1.as_deref()) && empty(files.2.as_deref()) {
        return parent;
    }
    Arc::new(level(Some(parent), path_len, repo, files))
}

/// `parent` (a path with its trailing `/`, or empty) and `name`, with a `/` after.
fn dir_path(parent: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = parent.to_vec();
    if !name.is_empty() {
        path.extend_from_slice(name);
        path.push(b'/');
    }
    path
}

/// An excluded entry of `repo`: kept if git tracks it (a directory: anything below
/// it, or itself as a submodule).
fn tracked_decision(repo: &Repo, entry: &mut Candidate<'_>, reporter: &Reporter) -> Decision {
    let Some(tracked) = repo.tracked(reporter) else {
        return Decision::Skip;
    };
    let is_dir = entry.is_dir;
    let path = entry.path();
    let below_top = &path[repo.top.min(path.len())..];
    if tracked.contains(below_top) {
        return match is_dir {
            true => Decision::KeepTracked,
            false => Decision::Keep,
        };
    }
    if is_dir {
        // The directory with its trailing `/`, made in place.
        let top = repo.top.min(entry.scratch.len());
        entry.scratch.push(b'/');
        let below = tracked.contains_below(&entry.scratch[top..]);
        entry.scratch.pop();
        if below {
            return Decision::KeepTracked;
        }
    }
    Decision::Skip
}
