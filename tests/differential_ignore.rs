//! `--ignore` against git on repositories made at random (issue 46): pfind's files
//! must be the regular files of `git ls-files -co --exclude-standard`, with `.ignore`,
//! `.fdignore` and `--ignore-file` compared against their documented meaning (see
//! docs/ignore-files.md). Also the rules that once did nothing: a bare `*` or `*/`
//! in every rule source.

mod testenv;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use testenv::{assert_same_records, git_available, split_records, write};

/// Where git and pfind run: a temporary directory with its own `HOME` and
/// `XDG_CONFIG_HOME` (its `home/`), so that neither reads this machine's
/// configuration; `home/.config/git/ignore` is git's default `core.excludesFile`.
struct Sandbox(tempfile::TempDir);

impl Sandbox {
    fn new() -> Sandbox {
        let sandbox = Sandbox(tempfile::tempdir().unwrap());
        std::fs::create_dir_all(sandbox.path("home/.config/git")).unwrap();
        sandbox
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.path().join(relative)
    }

    /// `program` run in `dir` with the sandbox's environment.
    fn command(&self, program: &OsStr, dir: &Path) -> Command {
        let mut command = Command::new(program);
        let home = self.path("home");
        command
            .current_dir(dir)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .env_remove("GIT_CONFIG_GLOBAL")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("PFIND_OPTIONS")
            .stdin(Stdio::null());
        command
    }

    /// git's stdout for `args` run in `dir`, which must succeed.
    fn git<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Vec<u8> {
        let out = self
            .command("git".as_ref(), dir)
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {:?} in {dir:?}: {}",
            args.iter().map(AsRef::as_ref).collect::<Vec<_>>(),
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    /// pfind's NUL-terminated records for `args` run in `dir`: it must succeed
    /// without a word on stderr.
    fn pfind<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Vec<Vec<u8>> {
        let out = self
            .command(env!("CARGO_BIN_EXE_pfind").as_ref(), dir)
            .args(args)
            .arg("-0")
            .output()
            .expect("pfind runs");
        let shown: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "pfind {shown:?} in {dir:?}: {:?}, stderr {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        split_records(&out.stdout, 0)
    }

    /// The regular files among `git ls-files -z -co --exclude-standard` in `dir`
    /// (links, and tracked files deleted from disk, are no files of pfind's).
    fn git_files<S: AsRef<OsStr>>(&self, dir: &Path, extra: &[S]) -> Vec<Vec<u8>> {
        let mut args: Vec<&OsStr> = extra.iter().map(AsRef::as_ref).collect();
        args.extend(["ls-files", "-z", "-co", "--exclude-standard"].map(OsStr::new));
        let listed = self.git(dir, &args);
        let mut files: Vec<Vec<u8>> = split_records(&listed, 0)
            .into_iter()
            .filter(|path| {
                let full = dir.join(OsStr::from_bytes(path));
                full.symlink_metadata().is_ok_and(|m| m.is_file())
            })
            .collect();
        files.sort();
        files.dedup();
        files
    }
}

fn sorted(mut records: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    records.sort();
    records
}

/// The issue's repro, and `*` and `*/` in every rule source: each rule used to
/// be stored as a suffix rule with an empty suffix, which the pre-filter on a
/// name's last byte never let through, so it did nothing (issue 46).
#[test]
fn a_bare_star_rule_excludes_in_every_rule_source() {
    if !git_available() {
        return;
    }
    // (where the rule goes, rule, what is listed)
    let cases: &[(&str, &str, &[&str])] = &[
        (".gitignore", "*", &["top"]),
        (".gitignore", "*/", &["top", "c/.gitignore", "c/f"]),
        (".ignore", "*", &["top"]),
        (".ignore", "*/", &["top", "c/.ignore", "c/f"]),
        (".fdignore", "*", &["top"]),
        (".fdignore", "*/", &["top", "c/.fdignore", "c/f"]),
        ("info/exclude", "*", &[]),
        ("info/exclude", "*/", &["top"]),
        ("core.excludesFile", "*", &[]),
        ("core.excludesFile", "*/", &["top"]),
        ("--ignore-file", "*", &[]),
        ("--ignore-file", "*/", &["top"]),
        // The allow-list idiom: everything out, directories and `.c` files back in.
        (".gitignore", "*\n!*/\n!*.c", &["top", "c/d/g.c"]),
        ("info/exclude", "*\n!*/\n!*.c", &["c/d/g.c"]),
    ];
    for &(source, rule, want) in cases {
        let sandbox = Sandbox::new();
        let repo = sandbox.path("r");
        std::fs::create_dir_all(&repo).unwrap();
        sandbox.git(&repo, &["init", "-q"]);
        for file in ["top", "c/f", "c/d/g.c"] {
            write(&repo.join(file), b"");
        }
        let rule_file = sandbox.path("rules");
        let mut args = vec!["--ignore".to_owned()];
        match source {
            ".gitignore" | ".ignore" | ".fdignore" => {
                write(&repo.join("c").join(source), format!("{rule}\n").as_bytes())
            }
            "info/exclude" => write(&repo.join(".git/info/exclude"), rule.as_bytes()),
            "core.excludesFile" => write(&sandbox.path("home/.config/git/ignore"), rule.as_bytes()),
            _ => {
                write(&rule_file, rule.as_bytes());
                args.extend(["--ignore-file".to_owned(), rule_file.display().to_string()]);
            }
        }
        let context = format!("{rule:?} in {source}");
        let want: Vec<Vec<u8>> = sorted(want.iter().map(|p| p.as_bytes().to_vec()).collect());
        if matches!(source, ".gitignore" | "info/exclude" | "core.excludesFile") {
            let git = sandbox.git_files(&repo, &[] as &[&str]);
            assert_same_records(&format!("{context}: git"), &git, &want);
        }
        for threads in ["1", "2", "16"] {
            let got = sandbox.pfind(&repo, &[&args[..], &["-j".into(), threads.into()]].concat());
            assert_same_records(&format!("{context} -j {threads}"), &got, &want);
        }
    }
}
