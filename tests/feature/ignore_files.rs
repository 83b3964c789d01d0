//! `--ignore` against git itself: repositories built here with `git`, every rule of
//! gitignore(5) that changes an answer, odd names, nested repositories and
//! submodules, tracked files that rules match; pfind's files must be exactly the
//! regular files `git ls-files --cached --others --exclude-standard` lists, at every
//! thread count. Also the switches (`-H`, `-I`, `-u`, `-G`, last one wins),
//! `.ignore`, `--ignore-file`, and what bad input gets (`PFIND_OPTIONS` is in
//! other.rs).

use crate::testenv;
use crate::testenv::{assert_same_records, git_available, split_records, write};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary directory with its own `HOME` and `XDG_CONFIG_HOME`, so that neither
/// git nor pfind reads the machine's configuration.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home/.config/git")).unwrap();
        Sandbox { dir }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn env(&self, command: &mut Command) {
        command
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_CONFIG_GLOBAL")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("PFIND_OPTIONS")
            .stdin(Stdio::null());
    }

    /// Runs git in `dir`, which must succeed.
    fn git(&self, dir: &Path, args: &[&str]) -> Vec<u8> {
        let mut command = Command::new("git");
        self.env(&mut command);
        command
            .current_dir(dir)
            .args(["-c", "init.defaultBranch=main", "-c", "user.name=t"])
            .args(["-c", "user.email=t@t", "-c", "protocol.file.allow=always"])
            .args(args);
        let out = command.output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} in {dir:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    /// A new, empty repository at `relative`.
    fn repo(&self, relative: &str) -> PathBuf {
        let repo = self.path(relative);
        std::fs::create_dir_all(&repo).unwrap();
        self.git(&repo, &["init", "-q"]);
        repo
    }

    fn pfind(&self, dir: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pfind"));
        self.env(&mut command);
        command.current_dir(dir).args(args).output().unwrap()
    }

    /// pfind's records (NUL-terminated) for `args`, run in `dir`, which must
    /// succeed without a word on stderr.
    fn pfind_files(&self, dir: &Path, args: &[&str]) -> Vec<Vec<u8>> {
        let out = self.pfind(dir, &[args, &["-0"]].concat());
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "pfind {args:?}: status {:?}, stderr {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        split_records(&out.stdout, 0)
    }

    /// pfind's files for `args` in `dir`, as sorted UTF-8 strings.
    fn sorted_names(&self, dir: &Path, args: &[&str]) -> Vec<String> {
        let mut got = self.pfind_files(dir, args);
        got.sort();
        got.into_iter()
            .map(|p| String::from_utf8(p).unwrap())
            .collect()
    }

    /// git's answer in `dir` (a work tree or a directory in one): the regular files
    /// `git ls-files -co --exclude-standard` lists, with nested repositories and
    /// submodules (which git lists as one entry) replaced by their own answer.
    fn git_files(&self, dir: &Path) -> Vec<Vec<u8>> {
        let listed = self.git(dir, &["ls-files", "-z", "-co", "--exclude-standard"]);
        let mut files = Vec::new();
        for path in split_records(&listed, 0) {
            let trimmed = path.strip_suffix(b"/").unwrap_or(&path);
            let full = dir.join(OsStr::from_bytes(trimmed));
            let Ok(meta) = full.symlink_metadata() else {
                continue; // tracked but deleted
            };
            if meta.is_dir() {
                for inner in self.git_files(&full) {
                    files.push([trimmed, b"/", &inner].concat());
                }
            } else if meta.is_file() {
                files.push(trimmed.to_vec());
            }
        }
        files.sort();
        files.dedup();
        files
    }
}

impl Sandbox {
    /// The files, tracked or not, that the rules of the files named `per_directory`
    /// (`.ignore`, `.fdignore`) exclude, by git's own matcher: `git ls-files --cached
    /// --others --ignored --exclude-per-directory=NAME`, which reads no other rule file.
    fn hidden_by(&self, dir: &Path, per_directory: &str) -> Vec<Vec<u8>> {
        let flag = format!("--exclude-per-directory={per_directory}");
        let listed = self.git(dir, &["ls-files", "-z", "-coi", &flag]);
        split_records(&listed, 0)
    }

    /// fd's answer for `args` in `dir` (its `./` taken off, sorted), or `None` when
    /// fd is not installed: the second oracle, for what fd prints.
    fn fd_files(&self, dir: &Path, args: &[&str]) -> Option<Vec<Vec<u8>>> {
        let mut command = Command::new("fd");
        self.env(&mut command);
        let out = match command.current_dir(dir).args(args).arg("-0").output() {
            Ok(out) => out,
            Err(_) => {
                eprintln!("fd is not installed: compared with git only");
                return None;
            }
        };
        assert!(out.status.success(), "fd {args:?}: {:?}", out.status);
        let mut files: Vec<Vec<u8>> = split_records(&out.stdout, 0)
            .into_iter()
            .map(|p| {
                let p = p.strip_prefix(b"./").unwrap_or(&p);
                p.strip_suffix(b"/").unwrap_or(p).to_vec()
            })
            .collect();
        files.sort();
        Some(files)
    }
}

/// The lines of a run's stdout, sorted.
fn sorted_lines(out: &Output) -> Vec<Vec<u8>> {
    let mut lines = split_records(&out.stdout, b'\n');
    lines.sort();
    lines
}

/// Asserts pfind `--ignore` in `dir` lists git's files, at several thread counts.
fn assert_git_answer(sandbox: &Sandbox, dir: &Path, context: &str) {
    let want = sandbox.git_files(dir);
    assert!(!want.is_empty(), "{context}: git lists nothing");
    for threads in ["1", "2", "8"] {
        let got = sandbox.pfind_files(dir, &["--ignore", "-j", threads]);
        assert_same_records(&format!("{context} -j {threads}"), &got, &want);
    }
}

/// A repository exercising every rule of gitignore(5) that changes an answer.
fn rules_repository(sandbox: &Sandbox) -> PathBuf {
    let repo = sandbox.repo("repo");
    let files: &[&[u8]] = &[
        b"a.log",
        b"keep.log",
        b"sub/b.log",
        b"sub/important.log",
        b"sub/x.tmp",
        b"sub/deep/y.tmp",
        b"sub/deep/z.txt",
        b"build/out.o",
        b"src/build/kept.c",
        b"out/o1",
        b"src/out",
        b"doc/a.txt",
        b"doc/sub/b.txt",
        b"a/z",
        b"a/x/y/z",
        b"a/x/y/w",
        b"x/gen/g.c",
        b"gen/h.c",
        b"sp ",
        b"trail",
        b"tab\t",
        b"f7",
        b"fx",
        b"!bang",
        b"#hash",
        b"caf\xe9",
        b"later",
        b"ignored_dir/re.txt",
        b"ignored_dir/other",
        b"secret.key",
        b"notes.bak",
        b"edit.swp",
        b".hidden",
        b".config/settings",
        b"-dash",
        b"new\nline",
        b"sp ace/f",
        b"un\xff/f",
        b"vendor/lib.a",
        b"vendor/src.c",
        b"star/a[1]",
        b"CRLF",
        b"dir_only/f",
        b"dir_only_file",
    ];
    for name in files {
        write(&repo.join(OsStr::from_bytes(name)), b"x");
    }
    std::fs::create_dir_all(repo.join("empty/dir")).unwrap();
    std::os::unix::fs::symlink("a.log", repo.join("link_to_log")).unwrap();
    std::os::unix::fs::symlink("sub", repo.join("link_to_dir")).unwrap();
    let gitignore: &[u8] = b"# a comment\n\
        *.log\n\
        !keep.log\n\
        /build\n\
        out/\n\
        doc/*.txt\n\
        a/**/z\n\
        **/gen\n\
        sp\\ \n\
        trail   \n\
        tab\t\n\
        f[[:digit:]]\n\
        \\!bang\n\
        \\#hash\n\
        caf\xe9\n\
        later\n\
        ignored_dir/\n\
        !ignored_dir/re.txt\n\
        *.a\n\
        star/a\\[1\\]\n\
        CRLF\r\n\
        dir_only*/\n";
    write(&repo.join(".gitignore"), gitignore);
    write(&repo.join("sub/.gitignore"), b"!important.log\n*.tmp\n");
    write(&repo.join("sub/deep/.gitignore"), b"!y.tmp\n");
    write(&repo.join(".git/info/exclude"), b"secret*\n");
    write(&sandbox.path("repo-excludes"), b"*.bak\n");
    let excludes = sandbox.path("repo-excludes");
    sandbox.git(
        &repo,
        &["config", "core.excludesFile", excludes.to_str().unwrap()],
    );
    // Tracked although a rule matches: git lists them, fd and rg do not.
    sandbox.git(
        &repo,
        &[
            "add",
            "-f",
            "build/out.o",
            "vendor/lib.a",
            "ignored_dir/other",
        ],
    );
    sandbox.git(&repo, &["add", "sub/deep/z.txt"]);
    sandbox.git(&repo, &["commit", "-qm", "first"]);
    repo
}

#[test]
fn the_files_are_git_s_files() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    // The user's default ignore file, read by both.
    write(&sandbox.path("home/.config/git/ignore"), b"*.swp\n");
    let repo = rules_repository(&sandbox);
    assert_git_answer(&sandbox, &repo, "rules");
    // What the rules did, said once in plain terms (the oracle could be wrong too).
    let got = sandbox.pfind_files(&repo, &["--ignore"]);
    let has = |path: &[u8]| got.iter().any(|p| p == path);
    for kept in [
        &b"keep.log"[..],
        b"sub/important.log",
        b"sub/deep/y.tmp",
        b"build/out.o",
        b"vendor/lib.a",
        b"ignored_dir/other",
        b"src/build/kept.c",
        b"fx",
        b".hidden",
        b"dir_only_file",
        b"src/out",
    ] {
        assert!(has(kept), "{:?} is listed", String::from_utf8_lossy(kept));
    }
    for left_out in [
        &b"a.log"[..],
        b"sub/x.tmp",
        b"out/o1",
        b"doc/a.txt",
        b"a/x/y/z",
        b"x/gen/g.c",
        b"sp ",
        b"trail",
        b"tab\t",
        b"f7",
        b"caf\xe9",
        b"later",
        b"ignored_dir/re.txt",
        b"secret.key",
        b"notes.bak",
        b"gen/h.c",
        b"star/a[1]",
        b"CRLF",
        b"dir_only/f",
        b".git/HEAD",
    ] {
        assert!(
            !has(left_out),
            "{:?} is left out",
            String::from_utf8_lossy(left_out)
        );
    }
    // The repository's core.excludesFile replaces the user's default ignore file;
    // without it, the default applies.
    assert!(has(b"edit.swp"));
    sandbox.git(&repo, &["config", "--unset", "core.excludesFile"]);
    assert_git_answer(&sandbox, &repo, "default user ignore file");
    let got = sandbox.pfind_files(&repo, &["--ignore"]);
    assert!(!got.iter().any(|p| p == b"edit.swp") && got.iter().any(|p| p == b"notes.bak"));
    // The index in each version git writes: 2 so far, 3 once an entry has extended
    // flags (`git add -N`), 4 (paths prefix-compressed) when asked. Versions 2 and
    // 3 are read in place, 4 is put together (src/ignore/index.rs).
    let version = || std::fs::read(repo.join(".git/index")).unwrap()[7];
    assert_eq!(version(), 2);
    sandbox.git(&repo, &["add", "-N", "-f", "a.log"]);
    assert_eq!(version(), 3);
    assert_git_answer(&sandbox, &repo, "index version 3");
    assert!(sandbox
        .pfind_files(&repo, &["--ignore"])
        .iter()
        .any(|p| p == b"a.log"));
    sandbox.git(&repo, &["update-index", "--index-version", "4"]);
    assert_eq!(version(), 4);
    assert_git_answer(&sandbox, &repo, "index version 4");
}

#[test]
fn a_root_below_the_top_applies_the_rules_above_it() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = rules_repository(&sandbox);
    for below in ["sub", "sub/deep", "src", "a/x"] {
        assert_git_answer(&sandbox, &repo.join(below), below);
    }
    // Given as a path rather than as the working directory, with the prefix kept.
    let got = sandbox.pfind_files(&repo, &["--ignore", "sub"]);
    let want: Vec<Vec<u8>> = sandbox
        .git_files(&repo.join("sub"))
        .into_iter()
        .map(|p| [&b"sub/"[..], &p].concat())
        .collect();
    assert_same_records("root sub", &got, &want);
    // --no-ignore-parent: the top's *.log no longer applies in sub.
    let got = sandbox.pfind_files(&repo.join("sub"), &["--ignore", "--no-ignore-parent"]);
    assert!(got.iter().any(|p| p == b"b.log"), "{got:?}");
}

#[test]
fn nested_repositories_and_submodules_start_their_own_rules() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let outer = sandbox.repo("outer");
    write(&outer.join(".gitignore"), b"*.o\n/ignored_nested/\n");
    write(&outer.join("main.c"), b"x");
    write(&outer.join("main.o"), b"x");
    // An untracked nested repository: its own rules, not the outer ones.
    let nested = outer.join("nested");
    std::fs::create_dir_all(&nested).unwrap();
    sandbox.git(&nested, &["init", "-q"]);
    write(&nested.join(".gitignore"), b"*.c\n");
    write(&nested.join("x.o"), b"x");
    write(&nested.join("x.c"), b"x");
    write(&nested.join(".git/info/exclude"), b"*.tmp\n");
    write(&nested.join("y.tmp"), b"x");
    // One the outer rules exclude: not entered.
    let ignored = outer.join("ignored_nested");
    std::fs::create_dir_all(&ignored).unwrap();
    sandbox.git(&ignored, &["init", "-q"]);
    write(&ignored.join("f"), b"x");
    // A submodule, whose .git is a file, with an info/exclude of its own.
    let upstream = sandbox.repo("upstream");
    write(&upstream.join("lib.rs"), b"x");
    sandbox.git(&upstream, &["add", "."]);
    sandbox.git(&upstream, &["commit", "-qm", "lib"]);
    sandbox.git(
        &outer,
        &[
            "submodule",
            "add",
            "-q",
            upstream.to_str().unwrap(),
            "module",
        ],
    );
    let module_git = outer.join(".git/modules/module");
    write(&module_git.join("info/exclude"), b"*.skip\n");
    write(&outer.join("module/a.skip"), b"x");
    write(&outer.join("module/b.o"), b"x");
    write(&outer.join("module/new.rs"), b"x");
    assert_git_answer(&sandbox, &outer, "nested");
    let got = sandbox.pfind_files(&outer, &["--ignore"]);
    for path in [
        &b"nested/x.o"[..],
        b"nested/.gitignore",
        b"module/b.o",
        b"module/new.rs",
    ] {
        assert!(
            got.iter().any(|p| p == path),
            "{:?}",
            String::from_utf8_lossy(path)
        );
    }
    for path in [
        &b"nested/x.c"[..],
        b"nested/y.tmp",
        b"module/a.skip",
        b"main.o",
        b"ignored_nested/f",
    ] {
        assert!(
            !got.iter().any(|p| p == path),
            "{:?}",
            String::from_utf8_lossy(path)
        );
    }
}

#[test]
fn outside_a_work_tree_gitignore_files_still_apply() {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    write(&tmp.path().join(".gitignore"), b"*.o\nbuild/\n");
    write(&tmp.path().join("a.c"), b"x");
    write(&tmp.path().join("a.o"), b"x");
    write(&tmp.path().join("build/b.c"), b"x");
    write(&tmp.path().join("sub/.gitignore"), b"!keep.o\n");
    write(&tmp.path().join("sub/keep.o"), b"x");
    write(&tmp.path().join(".git"), b"not a repository\n");
    let out = sandbox.pfind(tmp.path(), &["--ignore", "--no-require-git"]);
    let got = sorted_lines(&out);
    assert_eq!(
        got,
        [&b".gitignore"[..], b"a.c", b"sub/.gitignore", b"sub/keep.o"]
    );
    // The broken .git file is said once, with what was done.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".git: a .git file that does not start with 'gitdir:'; its directory is searched as part of the tree around it"),
        "{stderr}"
    );
    assert!(out.status.success());
}

/// `--require-git` (fd's default): `.gitignore` files apply only in a work tree, a
/// repository nested in a plain directory included; `.ignore` files still apply; the
/// last of it and `--no-require-git` wins.
#[test]
fn require_git_applies_gitignore_only_in_work_trees() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let plain = sandbox.path("plain");
    write(&plain.join(".gitignore"), b"*.o\n");
    write(&plain.join(".ignore"), b"*.tmp\n");
    for name in ["a.o", "a.c", "a.tmp", "-x.o"] {
        write(&plain.join(name), b"x");
    }
    let repo = sandbox.repo("plain/repo");
    write(&repo.join(".gitignore"), b"*.c\n");
    write(&repo.join("b.c"), b"x");
    write(&repo.join("b.o"), b"x");
    let list = |args: &[&str]| sandbox.sorted_names(&plain, &[&["-G"], args].concat());
    assert_eq!(list(&[]), ["a.c", "repo/b.o"]);
    assert_eq!(list(&["--require-git"]), ["-x.o", "a.c", "a.o", "repo/b.o"]);
    assert_eq!(
        list(&["--require-git", "--no-require-git"]),
        ["a.c", "repo/b.o"]
    );
    assert_eq!(
        list(&["--no-require-git", "--require-git"]),
        list(&["--require-git"])
    );
    // In a work tree, nothing changes.
    let in_repo = sandbox.sorted_names(&repo, &["-G", "--require-git"]);
    assert_eq!(in_repo, ["b.o"]);
}

#[test]
fn dot_ignore_outranks_gitignore_and_ignore_files_rank_last() {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = tmp.path();
    write(&root.join(".gitignore"), b"*.log\n");
    write(&root.join(".ignore"), b"!wanted.log\n*.bin\n");
    write(&root.join("wanted.log"), b"x");
    write(&root.join("other.log"), b"x");
    write(&root.join("data.bin"), b"x");
    write(&root.join("x.tmp"), b"x");
    write(&root.join("sub/y.tmp"), b"x");
    write(&root.join("sub/.ignore"), b"!data2.bin\n");
    write(&root.join("sub/data2.bin"), b"x");
    let rules = sandbox.path("extra-rules");
    write(&rules, b"*.tmp\n!x.tmp\n/sub/y.tmp\n");
    let list = |args: &[&str]| sandbox.sorted_names(root, args);
    let rules = rules.to_str().unwrap();
    assert_eq!(
        list(&["--ignore", "--ignore-file", rules]),
        [
            ".gitignore",
            ".ignore",
            "sub/.ignore",
            "sub/data2.bin",
            "wanted.log",
            "x.tmp"
        ]
    );
    // --no-ignore-vcs: .ignore alone.
    assert_eq!(
        list(&["--ignore", "--no-ignore-vcs"]),
        [
            ".gitignore",
            ".ignore",
            "other.log",
            "sub/.ignore",
            "sub/data2.bin",
            "sub/y.tmp",
            "wanted.log",
            "x.tmp"
        ]
    );
    // --ignore-file applies without --ignore too, as fd's does.
    assert_eq!(list(&["--ignore-file", rules, "-e", "tmp"]), ["x.tmp"]);
}

/// fd's own `.fdignore` outranks `.ignore` at every level (fd's and the ignore crate's
/// order): a parent's `.fdignore` beats a child's `.ignore`, and `.fdignore` can keep
/// what `.gitignore` leaves out. `--no-ignore-vcs` still reads it; `-I` does not.
#[test]
fn fdignore_outranks_ignore_at_every_level() {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = tmp.path();
    write(&root.join(".gitignore"), b"*.log\n");
    write(&root.join(".fdignore"), b"!kept.log\n*.bin\n-dash\xff\n");
    write(&root.join("kept.log"), b"x");
    write(&root.join("other.log"), b"x");
    write(&root.join("sub/.ignore"), b"!data.bin\n");
    write(&root.join("sub/data.bin"), b"x");
    write(&root.join(OsStr::from_bytes(b"sub/-dash\xff")), b"x");
    write(&root.join("sub/plain"), b"x");
    let list = |args: &[&str]| {
        let mut got = sandbox.pfind_files(root, args);
        got.sort();
        got
    };
    let expect = |names: &[&[u8]]| names.iter().map(|n| n.to_vec()).collect::<Vec<_>>();
    assert_eq!(
        list(&["-G"]),
        expect(&[b"kept.log", b"sub/plain"]),
        "the parent's .fdignore beats sub/.ignore's !data.bin"
    );
    assert_eq!(
        list(&["--ignore", "--no-ignore-vcs", "-e", "log"]),
        expect(&[b"kept.log", b"other.log"])
    );
    assert_eq!(list(&["-I", "-n", "data.bin"]), expect(&[b"sub/data.bin"]));
}

/// Issue 39, item 1: `.ignore` and `.fdignore` hide tracked files too, as in fd and
/// rg (cargo's repository hides its tracked, generated man pages and command docs
/// with a `.ignore`), in a directory listed for its tracked files alone as well;
/// their `!` rules still re-include what `.gitignore` excludes; git's own files keep
/// git's meaning (`build/vendored.js`, tracked under an excluded directory, is
/// listed). The answer is git's less what git's own matcher says the two files
/// exclude among tracked files, and fd's plus what git tracks under `.gitignore`.
#[test]
fn dot_ignore_and_fdignore_hide_tracked_files_too() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("cargo-like");
    write(&repo.join(".gitignore"), b"build/\n*.log\n");
    write(&repo.join(".ignore"), b"doc/gen/\netc/man/*\n!keep.log\n");
    write(&repo.join(".fdignore"), b"notes/secret.md\n");
    write(&repo.join("sub/.ignore"), b"*.gen.rs\n");
    write(&repo.join("build/.ignore"), b"vendored-min.js\n");
    let tracked = [
        "src/main.rs",
        "doc/intro.md",
        "doc/gen/cargo-build.md",
        "doc/gen/cargo-run.md",
        "etc/man/cargo.1",
        "notes/secret.md",
        "notes/public.md",
        "sub/x.gen.rs",
        "sub/x.rs",
    ];
    for name in tracked {
        write(&repo.join(name), b"x");
    }
    for name in ["keep.log", "other.log", "etc/man/new.1", "build/out.o"] {
        write(&repo.join(name), b"x");
    }
    write(&repo.join("build/vendored.js"), b"x");
    write(&repo.join("build/vendored-min.js"), b"x");
    sandbox.git(&repo, &[&["add", "--"][..], &tracked].concat());
    sandbox.git(
        &repo,
        &["add", "-f", "build/vendored.js", "build/vendored-min.js"],
    );
    sandbox.git(&repo, &["commit", "-qm", "first"]);

    let mut hidden = sandbox.hidden_by(&repo, ".ignore");
    hidden.extend(sandbox.hidden_by(&repo, ".fdignore"));
    let mut want: Vec<Vec<u8>> = sandbox
        .git_files(&repo)
        .into_iter()
        .filter(|p| !hidden.contains(p))
        .chain([b"keep.log".to_vec()])
        .collect();
    want.sort();
    for threads in ["1", "2", "8"] {
        let got = sandbox.pfind_files(&repo, &["--ignore", "-j", threads]);
        assert_same_records(&format!("--ignore -j {threads}"), &got, &want);
    }
    // Said in plain terms too, since the oracle is put together here.
    assert_eq!(
        sandbox.sorted_names(&repo, &["--ignore", "-n", "*[!e]"]),
        [
            "build/vendored.js",
            "doc/intro.md",
            "keep.log",
            "notes/public.md",
            "src/main.rs",
            "sub/x.rs"
        ]
    );
    // fd lists the same but for the file git tracks under an excluded directory.
    if let Some(fd) = sandbox.fd_files(&repo, &["-t", "f", "-H", "-E", ".git"]) {
        let want: Vec<Vec<u8>> = want
            .iter()
            .filter(|p| p.as_slice() != b"build/vendored.js")
            .cloned()
            .collect();
        assert_same_records("fd -t f -H -E .git", &fd, &want);
    }
}

/// Issue 39, item 2: a `!` rule that matches a hidden name shows it under
/// `--no-hidden` and `-G`, as fd and rg do (ripgrep's `.ignore` has `!/.github/`,
/// astro's `.gitignore` keeps `.env.example`), a `--ignore-file`'s too; a hidden name
/// no `!` rule names stays out, and so does a hidden file in a whitelisted hidden
/// directory unless a rule names it. Checked against fd where it is installed.
#[test]
fn a_whitelisted_hidden_name_is_shown_as_fd_shows_it() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("rg-like");
    write(&repo.join(".ignore"), b"!/.github/\n");
    write(&repo.join(".gitignore"), b".env*\n!.env.example\n");
    write(&repo.join("web/.gitignore"), b"!.eslintrc.json\n");
    for name in [
        ".github/workflows/ci.yml",
        ".github/dependabot.yml",
        ".github/.keep",
        ".env",
        ".env.example",
        ".config/tool.toml",
        "src/.hidden.rs",
        "src/main.rs",
        "web/.eslintrc.json",
        "web/.prettierrc",
        "web/index.js",
    ] {
        write(&repo.join(name), b"x");
    }
    let want = [
        ".env.example",
        ".github/dependabot.yml",
        ".github/workflows/ci.yml",
        "src/main.rs",
        "web/.eslintrc.json",
        "web/index.js",
    ];
    for threads in ["1", "2", "8"] {
        assert_eq!(
            sandbox.sorted_names(&repo, &["-G", "-j", threads]),
            want,
            "-j {threads}"
        );
    }
    let as_bytes =
        |names: &[&str]| -> Vec<Vec<u8>> { names.iter().map(|n| n.as_bytes().to_vec()).collect() };
    let fd = sandbox.fd_files(&repo, &["-t", "f"]);
    if let Some(fd) = &fd {
        assert_same_records("fd -t f", fd, &as_bytes(&want));
    }
    // The directories too: `.github` and `.github/workflows` are fd's.
    let dirs = sandbox.sorted_names(&repo, &["-G", "-t", "d"]);
    assert_eq!(dirs, [".github", ".github/workflows", "src", "web"]);
    if let Some(fd) = sandbox.fd_files(&repo, &["-t", "d"]) {
        let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
        assert_same_records("fd -t d", &fd, &as_bytes(&dirs));
    }
    // Without --ignore, an --ignore-file's `!` rule shows a hidden name as fd's does.
    let rules = sandbox.path("extra-rules");
    write(&rules, b"!.config/\n");
    let rules = rules.to_str().unwrap();
    let args = ["--no-hidden", "--ignore-file", rules, "-e", "toml"];
    assert_eq!(sandbox.sorted_names(&repo, &args), [".config/tool.toml"]);
    if let Some(fd) = sandbox.fd_files(&repo, &["-I", "--ignore-file", rules, "-e", "toml"]) {
        assert_same_records("fd --ignore-file", &fd, &as_bytes(&[".config/tool.toml"]));
    }
}

/// `--no-ignore-vcs` drops git's rules, not the work tree's top: from a directory
/// below it, the `.ignore` and `.fdignore` files above still apply (as in fd), and
/// `--no-ignore-parent` drops them.
#[test]
fn no_ignore_vcs_still_reads_the_non_git_files_above_the_root() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("r");
    write(&repo.join(".gitignore"), b"git-ignored\n");
    write(&repo.join(".fdignore"), b"fd-ignored\n");
    write(&repo.join(".ignore"), b"dot-ignored\n");
    for name in ["git-ignored", "fd-ignored", "dot-ignored", "kept"] {
        write(&repo.join("inner").join(name), b"x");
    }
    let inner = repo.join("inner");
    let list = |args: &[&str]| sandbox.sorted_names(&inner, args);
    assert_eq!(list(&["--ignore"]), ["kept"]);
    assert_eq!(
        list(&["--ignore", "--no-ignore-vcs"]),
        ["git-ignored", "kept"]
    );
    assert_eq!(
        list(&["--ignore", "--no-ignore-vcs", "--no-ignore-parent"]),
        ["dot-ignored", "fd-ignored", "git-ignored", "kept"]
    );
}

#[test]
fn the_last_of_two_opposing_switches_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = tmp.path();
    write(&root.join(".gitignore"), b"*.o\n");
    write(&root.join("a.o"), b"x");
    write(&root.join("a.c"), b"x");
    write(&root.join(".hidden.c"), b"x");
    let count = |args: &[&str], env: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pfind"));
        sandbox.env(&mut command);
        if let Some(env) = env {
            command.env("PFIND_OPTIONS", env);
        }
        let out = command
            .current_dir(root)
            .args(args)
            .arg("-c")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    // Everything: 4 files (.gitignore, a.o, a.c, .hidden.c).
    let cases: &[(&[&str], &str)] = &[
        (&[], "4"),
        (&["--ignore"], "3"),
        (&["--ignore", "--no-ignore"], "4"),
        (&["--ignore", "-I"], "4"),
        (&["-I", "--ignore"], "3"),
        (&["-G"], "1"),
        (&["--fd-view"], "1"),
        (&["-G", "-u"], "4"),
        (&["-G", "-H"], "3"),
        (&["-G", "-I"], "2"),
        (&["-u", "-G"], "1"),
        (&["--no-hidden"], "2"),
        (&["--no-hidden", "--hidden"], "4"),
        (&["--hidden", "--no-hidden"], "2"),
        (&["--ignore", "--no-ignore-vcs"], "4"),
        (&["--ignore", "--no-ignore-vcs", "--ignore-vcs"], "3"),
    ];
    for &(args, want) in cases {
        assert_eq!(count(args, None), want, "{args:?}");
    }
    // PFIND_OPTIONS comes first: the command line undoes it.
    assert_eq!(count(&[], Some("-G")), "1");
    assert_eq!(count(&["-u"], Some("-G")), "4");
    assert_eq!(count(&["-I"], Some("--ignore --no-hidden")), "2");
}

#[test]
fn bad_rule_files_and_indexes_are_warned_about_and_the_walk_goes_on() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    write(&repo.join(".gitignore"), b"*.o\n");
    write(&repo.join("ignored/tracked.o"), b"x");
    write(&repo.join("a.o"), b"x");
    write(&repo.join("a.c"), b"x");
    sandbox.git(&repo, &["add", "-f", "ignored/tracked.o", "a.c"]);
    // A rule file that is a directory.
    std::fs::create_dir_all(repo.join("sub/.gitignore")).unwrap();
    write(&repo.join("sub/f"), b"x");
    // A corrupt index: the tracked file that a rule matches is left out, said once.
    let index = repo.join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    bytes[5] = 0x55; // the version
    std::fs::write(&index, &bytes).unwrap();
    let out = sandbox.pfind(&repo, &["--ignore"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let got = sorted_lines(&out);
    assert_eq!(got, [&b".gitignore"[..], b"a.c", b"sub/f"]);
    let index_path = index.to_str().unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        stderr
            .contains("pfind: warning: sub/.gitignore: Is a directory; its rules are not applied"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("pfind: warning: {index_path}: index version")),
        "{stderr}"
    );
    assert!(
        stderr.contains("files that ignore rules match are left out even where git tracks them"),
        "{stderr}"
    );
    // Warnings do not fail the run.
    assert!(out.status.success());
    // A missing --ignore-file is a usage error naming the option, before the walk
    // (issue 41: `pfind: nowhere: ...` read as a missing root, and the walk went on
    // without the rules asked for).
    let out = sandbox.pfind(&repo, &["--ignore", "--ignore-file", "nowhere", "-e", "c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "error: invalid value 'nowhere' for '--ignore-file <FILE>': No such file or directory"
    ));
    assert_eq!(out.stdout, b"");
}

#[test]
fn a_git_file_pointing_nowhere_is_said_and_searched_as_a_directory() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    write(&repo.join(".gitignore"), b"*.o\n");
    write(&repo.join("wt/.git"), b"gitdir: /nonexistent/worktree\n");
    write(&repo.join("wt/x.o"), b"x");
    write(&repo.join("wt/x.c"), b"x");
    // git itself: the directory is part of the outer tree, and .git is not listed.
    assert_eq!(sandbox.git_files(&repo), [&b".gitignore"[..], b"wt/x.c"]);
    let out = sandbox.pfind(&repo, &["--ignore"]);
    let got = sorted_lines(&out);
    assert_eq!(got, [&b".gitignore"[..], b"wt/x.c"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "pfind: warning: wt/.git: /nonexistent/worktree is not a git directory; its directory is searched as part of the tree around it\n"
    );
}

#[test]
fn a_generated_repository_of_random_shape_matches_git() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("random");
    testenv::random_tree(&repo, 26, 600);
    let mut rng = fastrand::Rng::with_seed(26);
    let pieces = ["*", "?", "a", "b", "1", "[a-c]", "**/", "/", ".", "x"];
    let mut dirs = vec![repo.clone()];
    for entry in walk(&repo) {
        if entry.is_dir() && !entry.ends_with(".git") {
            dirs.push(entry);
        }
    }
    for dir in dirs.iter().take(40) {
        let mut rules = Vec::new();
        for _ in 0..rng.usize(1..6) {
            if rng.bool() {
                rules.push(b'!');
            }
            for _ in 0..rng.usize(1..4) {
                rules.extend_from_slice(pieces[rng.usize(..pieces.len())].as_bytes());
            }
            if rng.u8(..4) == 0 {
                rules.push(b'/');
            }
            rules.push(b'\n');
        }
        write(&dir.join(".gitignore"), &rules);
    }
    // Some files tracked, some of them then ignored.
    let all = sandbox.git(&repo, &["ls-files", "-z", "-o"]);
    for (i, path) in split_records(&all, 0).iter().enumerate() {
        if i % 3 == 0 {
            let path = OsStr::from_bytes(path).to_str().map(str::to_owned);
            if let Some(path) = path {
                sandbox.git(&repo, &["add", "-f", "--", &path]);
            }
        }
    }
    assert_git_answer(&sandbox, &repo, "random");
}

/// Every path below `dir`, not following links.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.symlink_metadata().unwrap().is_dir() {
            found.push(path.clone());
            found.extend(walk(&path));
        }
    }
    found
}

/// A rule file that cannot be read (permission denied) is warned about once and the
/// walk goes on with the other rules. As root, run without CAP_DAC_OVERRIDE (as
/// engine/hard_inputs.rs does), so that the permission is really refused.
#[test]
fn an_unreadable_rule_file_is_warned_about() {
    let tmp = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = tmp.path();
    write(&root.join(".gitignore"), b"*.o\n");
    write(&root.join("sub/.gitignore"), b"*.c\n");
    write(&root.join("sub/a.c"), b"x");
    write(&root.join("sub/a.o"), b"x");
    use std::os::unix::fs::PermissionsExt;
    let locked = root.join("sub/.gitignore");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut command = testenv::pfind_without_dac_override(root, &["--ignore"]);
    sandbox.env(&mut command);
    let out = command.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: warning: sub/.gitignore: Permission denied; its rules are not applied\n"
    );
    // Its rule (*.c) is not applied; the top's (*.o) still is.
    assert_eq!(
        sorted_lines(&out),
        [&b".gitignore"[..], b"sub/.gitignore", b"sub/a.c"]
    );
}

/// What a file of git's, or a rule file, is replaced with in
/// [`files_that_never_end_block_or_loop_are_skipped_with_one_warning`].
#[derive(Clone, Copy, Debug)]
enum Bad {
    /// A symbolic link to `/dev/zero`, which never ends.
    Zero,
    /// A FIFO with no writer, whose `open` blocks.
    Fifo,
    /// A sparse regular file past the bound for its kind.
    Huge(u64),
}

fn plant(path: &Path, bad: Bad) {
    let _ = std::fs::remove_file(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match bad {
        Bad::Zero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Bad::Fifo => {
            let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        }
        Bad::Huge(len) => std::fs::File::create(path).unwrap().set_len(len).unwrap(),
    }
}

/// Issue 38, items 1, 2 and 6: every file pfind reads for `--ignore` (rule files at
/// each level, `info/exclude`, `core.excludesFile` and its default, the index, the
/// configuration, `--ignore-file`) replaced by `/dev/zero` (pfind ran out of memory),
/// a FIFO (`open` blocked for ever) or a file too large to be one, and a
/// configuration that includes itself eight times (8^10 reads): each run ends at
/// once, under a 1 GiB address-space limit, with the tree listed as if the file were
/// not there and one warning naming it (an `--ignore-file` asked for by name: an
/// error, status 1).
#[test]
fn files_that_never_end_block_or_loop_are_skipped_with_one_warning() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let template = sandbox.repo("template");
    write(&template.join(".gitignore"), b"*.o\n");
    for file in ["a.c", "a.o", "t.o", "sub/f.c"] {
        write(&template.join(file), b"x");
    }
    sandbox.git(&template, &["add", "-f", "t.o", "a.c"]);
    const MIB: u64 = 1 << 20;
    let all = ["a.c", "a.o", "sub/f.c", "t.o"];
    let normal = [".gitignore", "a.c", "sub/f.c", "t.o"];
    let untracked = [".gitignore", "a.c", "sub/f.c"];
    // Past the bounds: 100 MiB for text, 2 GiB for an index.
    let (big, bigger) = (Bad::Huge(101 * MIB), Bad::Huge(2049 * MIB));
    // A large rule file is a regular file: listed, as git lists it.
    let with_it = [".gitignore", "a.c", "sub/.gitignore", "sub/f.c", "t.o"];
    let rules = "its rules are not applied";
    let index = "files that ignore rules match are left out even where git tracks them";
    let settings = "its settings are not read";
    // (the file replaced, relative to the repository (`~` the sandbox's home), how,
    // whether the configuration names it as core.excludesFile, the files listed, the
    // end of the warning)
    type Case<'a> = (&'a str, Bad, bool, &'a [&'a str], &'a str);
    let cases: Vec<Case> = vec![
        ("sub/.gitignore", Bad::Zero, false, &normal, rules),
        ("sub/.gitignore", Bad::Fifo, false, &normal, rules),
        ("sub/.ignore", Bad::Fifo, false, &normal, rules),
        ("sub/.fdignore", Bad::Zero, false, &normal, rules),
        ("sub/.gitignore", big, false, &with_it, rules),
        (".gitignore", Bad::Zero, false, &all, rules),
        (".gitignore", Bad::Fifo, false, &all, rules),
        (".git/info/exclude", Bad::Zero, false, &normal, rules),
        (".git/info/exclude", Bad::Fifo, false, &normal, rules),
        (".git/info/exclude", big, false, &normal, rules),
        ("excl", Bad::Zero, true, &normal, rules),
        ("excl", Bad::Fifo, true, &normal, rules),
        ("~/.config/git/ignore", Bad::Fifo, false, &normal, rules),
        (".git/index", Bad::Zero, false, &untracked, index),
        (".git/index", Bad::Fifo, false, &untracked, index),
        (".git/index", bigger, false, &untracked, index),
        (".git/config", Bad::Fifo, false, &normal, settings),
        (".git/config", Bad::Zero, false, &normal, settings),
        (".git/config", big, false, &normal, settings),
        ("~/.gitconfig", Bad::Fifo, false, &normal, settings),
    ];
    let run = |dir: &Path, args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pfind"));
        sandbox.env(&mut command);
        command.current_dir(dir).args(args);
        testenv::with_rlimit(&mut command, libc::RLIMIT_AS, 1 << 30);
        testenv::output_within(command, std::time::Duration::from_secs(60))
    };
    let copy = |name: &str| {
        let repo = sandbox.path(name);
        let status = Command::new("cp")
            .arg("-a")
            .arg(&template)
            .arg(&repo)
            .status();
        assert!(status.unwrap().success());
        repo
    };
    let home = sandbox.path("home");
    for (at, (file, bad, config, listed, instead)) in cases.into_iter().enumerate() {
        let context = format!("{file} as {bad:?}");
        let repo = copy(&format!("case{at}"));
        let path = match file.strip_prefix("~/") {
            Some(in_home) => home.join(in_home),
            None => repo.join(file),
        };
        if config {
            let mut text = std::fs::read(repo.join(".git/config")).unwrap();
            text.extend_from_slice(b"[core]\n\texcludesFile = ");
            text.extend_from_slice(path.as_os_str().as_bytes());
            std::fs::write(repo.join(".git/config"), text).unwrap();
        }
        plant(&path, bad);
        let out = run(&repo, &["--ignore"]);
        let _ = std::fs::remove_file(&path);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{context}: {stderr}");
        let got = sorted_lines(&out);
        let want: Vec<Vec<u8>> = listed.iter().map(|f| f.as_bytes().to_vec()).collect();
        assert_eq!(got, want, "{context}: {stderr}");
        // In-tree files are named as the walk prints them, the rest by their path.
        let shown = match file.starts_with("sub/") {
            true => file.to_string(),
            false => path.to_string_lossy().into_owned(),
        };
        let why = match (bad, file.ends_with("ignore") && !file.contains("/git/")) {
            (Bad::Zero, true) => "Too many levels of symbolic links".to_string(),
            (Bad::Zero, false) => "not a regular file (a character device)".to_string(),
            (Bad::Fifo, _) => "not a regular file (a FIFO)".to_string(),
            (Bad::Huge(_), _) => "too large to be ".to_string(),
        };
        let prefix = format!("pfind: warning: {shown}: {why}");
        assert!(
            stderr.starts_with(&prefix) && stderr.ends_with(&format!("; {instead}\n")),
            "{context}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{context}: {stderr}");
        let _ = std::fs::remove_dir_all(&repo);
    }
    // --ignore-file, asked for by name: an error, and the walk goes on without it.
    let repo = copy("named");
    for (bad, why) in [
        (Bad::Zero, "not a regular file (a character device)"),
        (
            Bad::Huge(101 * MIB),
            "too large to be a rule file (more than 100 MiB)",
        ),
    ] {
        plant(&sandbox.path("named.rules"), bad);
        let out = run(&repo, &["--ignore", "--ignore-file", "../named.rules"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr, format!("pfind: ../named.rules: {why}\n"), "{bad:?}");
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert_eq!(sorted_lines(&out).len(), normal.len(), "{bad:?}: {stderr}");
    }
    // A pipe named by the user is read (`--ignore-file <(echo 'sub/')`).
    let mut command = Command::new("bash");
    sandbox.env(&mut command);
    let script = format!(
        "{} --ignore --ignore-file <(printf 'sub/\\n')",
        env!("CARGO_BIN_EXE_pfind")
    );
    let out = command
        .current_dir(&repo)
        .args(["-c", &script])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(sorted_lines(&out), [&b".gitignore"[..], b"a.c", b"t.o"]);
    // A configuration that includes itself eight times: git's error, as a warning.
    let config = repo.join(".git/config");
    let mut text = std::fs::read(&config).unwrap();
    text.extend_from_slice("[include]\n\tpath = config\n".repeat(8).as_bytes());
    std::fs::write(&config, text).unwrap();
    let out = run(&repo, &["--ignore"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!(
            "pfind: warning: {0}: exceeded maximum include depth (10) while including {0} \
             (a circular include?); no more includes are followed\n",
            config.display()
        )
    );
    assert_eq!(sorted_lines(&out).len(), normal.len(), "{stderr}");
}

/// Issue 38, item 5: a `.gitignore` that is a symbolic link was refused below the
/// root but followed at the root and above it, so that `pfind --ignore` listed
/// `sub/f` and `pfind --ignore sub` did not. Git never follows one (and says so);
/// pfind now lists what git lists, both ways, and says so once.
#[test]
fn a_gitignore_that_is_a_link_is_never_followed() {
    if !git_available() {
        return;
    }
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    write(&repo.join("rules"), b"sub\n*.o\n");
    std::os::unix::fs::symlink("rules", repo.join(".gitignore")).unwrap();
    write(&repo.join("sub/f"), b"x");
    write(&repo.join("sub/g.o"), b"x");
    write(&repo.join("deeper/sub/h"), b"x");
    std::os::unix::fs::symlink("../rules", repo.join("deeper/.gitignore")).unwrap();
    let warning = |shown: &str| {
        format!(
            "pfind: warning: {shown}: Too many levels of symbolic links; \
             its rules are not applied\n"
        )
    };
    let top = repo.join(".gitignore");
    let top = top.to_str().unwrap();
    for (dir, root, warned) in [
        (&repo, None, warning(top) + &warning("deeper/.gitignore")),
        (&repo, Some("sub"), warning(top)),
        (&repo.join("sub"), None, warning(top)),
        (&repo.join("deeper"), Some("."), {
            let deeper = repo.join("deeper/.gitignore");
            warning(top) + &warning(deeper.to_str().unwrap())
        }),
    ] {
        let args: Vec<&str> = ["--ignore", "-j", "1"].into_iter().chain(root).collect();
        let out = sandbox.pfind(dir, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr, warned, "in {dir:?}, root {root:?}");
        let mut want: Vec<Vec<u8>> = sandbox.git_files(&dir.join(root.unwrap_or(".")));
        want.retain(|path| !path.ends_with(b".gitignore"));
        let prefix = root.map_or(String::new(), |root| format!("{root}/"));
        let want: Vec<Vec<u8>> = want
            .iter()
            .map(|path| [prefix.as_bytes(), path].concat())
            .collect();
        let mut got = sorted_lines(&out);
        got.iter_mut().for_each(|path| {
            if let Some(rest) = path.strip_prefix(b"./") {
                *path = rest.to_vec();
            }
        });
        let want: Vec<Vec<u8>> = want
            .into_iter()
            .map(|p| p.strip_prefix(b"./").map_or(p.clone(), <[u8]>::to_vec))
            .collect();
        assert_eq!(got, want, "in {dir:?}, root {root:?}");
    }
}
