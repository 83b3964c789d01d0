//! What people bring from `find` and `fd`, recognised before clap sees it and refused
//! with the pfind spelling of what was meant (issue 18).
//!
//! Left to clap, find's options are misread by short-flag clustering, silently:
//! `-name foo` is `-n ame` with the root `foo`, `-type f` is `-t ype`, `-maxdepth 1`
//! gets clap's advice to write `-- -m`. fd's options either do something else here
//! (`-x CMD` is one file system, then a root named CMD) or get a "did you mean"
//! that is wrong (`--exec` suggests `--exclude`).
//!
//! [`refusal`] walks the arguments as clap will, knowing from the clap definition
//! which options take a value (so that a value such as `-n -name` is never taken for
//! an option), and stops at `--`. In option position it refuses:
//!
//! * a word of [`FIND`]: one of find's tests, actions, operators and options;
//! * a long option of [`FD_LONG`] that pfind does not have;
//! * a letter of [`FD_SHORT`] that pfind does not have, alone or in a cluster;
//! * `-x` followed by a word that is no file but a command on `PATH` (fd's `-x CMD`).
//!
//! Every pfind cluster of flags stays valid: no two or three of pfind's short flags
//! that clap accepts together spell a word of the tables (tested below), and a
//! cluster is looked at letter by letter only after the whole word was not one of
//! find's.

use super::words::shell_word;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// What the hints need to know of pfind's own options.
pub trait Options {
    /// Whether the short option `letter` takes a value; `None` if pfind has none.
    fn short_takes_value(&self, letter: char) -> Option<bool>;
    /// Whether the long option `name` (without `--`) takes a value; `None` if none.
    fn long_takes_value(&self, name: &str) -> Option<bool>;
}

impl Options for clap::Command {
    fn short_takes_value(&self, letter: char) -> Option<bool> {
        self.get_arguments()
            .find(|arg| arg.get_short() == Some(letter))
            .map(|arg| arg.get_action().takes_values())
    }

    fn long_takes_value(&self, name: &str) -> Option<bool> {
        self.get_arguments()
            .find(|arg| {
                arg.get_long() == Some(name)
                    || arg.get_all_aliases().is_some_and(|all| all.contains(&name))
            })
            .map(|arg| arg.get_action().takes_values())
    }
}

/// What the `-x CMD` test asks of the system.
pub trait Paths {
    /// True when `path` exists (a root of that name can be walked or reported).
    fn exists(&self, path: &OsStr) -> bool;
    /// True when `word` names a program on `PATH`.
    fn is_command(&self, word: &OsStr) -> bool;
    /// True when `path` is a directory, or a symbolic link to one.
    fn is_dir(&self, path: &OsStr) -> bool;
    /// True when `path` is a regular file (not a link to one).
    fn is_file(&self, path: &OsStr) -> bool;
}

/// The real file system and `PATH`.
pub struct System;

impl Paths for System {
    fn exists(&self, path: &OsStr) -> bool {
        std::fs::symlink_metadata(path).is_ok()
    }

    fn is_dir(&self, path: &OsStr) -> bool {
        std::fs::metadata(path).is_ok_and(|meta| meta.is_dir())
    }

    fn is_file(&self, path: &OsStr) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file())
    }

    fn is_command(&self, word: &OsStr) -> bool {
        let Some(path) = std::env::var_os("PATH") else {
            return false;
        };
        std::env::split_paths(&path).any(|dir| dir.join(word).is_file())
    }
}

/// One recognised spelling: `'WORD' is WHOSE: ADVICE`.
#[derive(Clone, Copy)]
struct Hint {
    word: &'static str,
    whose: &'static str,
    advice: &'static str,
}

const fn find(word: &'static str, advice: &'static str) -> Hint {
    Hint {
        word,
        whose: "find's option",
        advice,
    }
}

const fn fd(word: &'static str, advice: &'static str) -> Hint {
    Hint {
        word,
        whose: "fd's option",
        advice,
    }
}

/// Advice for a command run once per match (find `-exec ... ;`).
const RUN_EACH: &str = "use --exec CMD ARGS... ';' (e.g. pfind . -e log --exec gzip {} ';')";
/// Advice for a command run in each match's directory (find `-execdir ... ;`).
const RUN_IN_DIR: &str =
    "use --exec-dir CMD ARGS... ';' (runs in the match's directory on ./NAME; e.g. pfind . \
     -n '*.tar' --exec-dir tar xf {} ';')";
/// Advice for a command run on many matches at once (find `-exec ... +`).
const RUN_BATCH: &str =
    "use -X CMD ARGS... + (as many matches per command as fit; e.g. pfind . -e tmp -X rm +)";
const NO_OPERATORS: &str =
    "pfind has no operators: different options must all match, and a repeated -n, -e \
     or -t is any of them (pfind -n '*.rs' -n Makefile)";
const LEAVE_OUT: &str = "pfind has no equivalent; leave it out";
const NO_EQUIVALENT: &str = "pfind has no equivalent";
const MTIME_ONLY: &str =
    "pfind tests modification times only: --changed-within WHEN, --changed-before WHEN, \
     --newer FILE";

/// Advice for find's `-path`: pfind's `*` stays within a component, so the `**` that
/// find's `-path '*.rs'` needs is said at once (issue 41).
const PATH_GLOB: &str =
    "use -p GLOB, which matches the path below the root; its * stays within one \
     directory and ** is any depth (e.g. pfind . -p '**/*.rs', pfind . -p 'src/**')";

/// find's tests, actions, operators and options, as typed after `find ROOT`.
/// `-newerXY` is recognised apart (see [`find_hint`]).
const FIND: &[Hint] = &[
    find("-name", "use -n GLOB (e.g. pfind . -n '*.rs')"),
    find("-iname", "use -i -n GLOB (e.g. pfind . -i -n '*.jpg')"),
    find("-path", PATH_GLOB),
    find("-wholename", PATH_GLOB),
    find("-ipath", "use -i -p GLOB (e.g. pfind . -i -p 'src/*.rs')"),
    find(
        "-iwholename",
        "use -i -p GLOB (e.g. pfind . -i -p 'src/*.rs')",
    ),
    find(
        "-regex",
        "use --path-regex RE, which searches the path below the root (anchor it, \
         '^src/.*\\.rs$', for find's match of the whole path)",
    ),
    find(
        "-iregex",
        "use -i --path-regex RE, which searches the path below the root (anchor it, \
         '^src/.*\\.rs$', for find's match of the whole path)",
    ),
    find(
        "-regextype",
        "pfind's regular expressions (--regex, --path-regex) have one syntax, Rust's \
         regex crate's; leave it out",
    ),
    find(
        "-lname",
        "pfind does not match a link's target (-t l -n GLOB matches the link's own name)",
    ),
    find(
        "-ilname",
        "pfind does not match a link's target (-t l -i -n GLOB matches the link's own name)",
    ),
    find(
        "-type",
        "use -t TYPE: f, d, l, s, p, c or b (e.g. pfind . -t d)",
    ),
    find("-xtype", "use -L -t TYPE, which tests what links point to"),
    find(
        "-size",
        "use -S SIZE, in bytes or with a unit (e.g. pfind . -S +10mi: 10 MiB or more)",
    ),
    find("-empty", "use -t e (e.g. pfind . -t e -t f: empty files)"),
    find("-executable", "use -t x"),
    find(
        "-perm",
        "pfind tests no permission bits but the execute ones (-t x); --format '{mode} {}' \
         prints them",
    ),
    find(
        "-readable",
        "pfind tests no access rights but the execute bits (-t x)",
    ),
    find(
        "-writable",
        "pfind tests no access rights but the execute bits (-t x)",
    ),
    find(
        "-mtime",
        "use --changed-within or --changed-before (e.g. pfind . --changed-within 2d)",
    ),
    find(
        "-mmin",
        "use --changed-within or --changed-before (e.g. pfind . --changed-within 30min)",
    ),
    find("-atime", MTIME_ONLY),
    find("-amin", MTIME_ONLY),
    find("-ctime", MTIME_ONLY),
    find("-cmin", MTIME_ONLY),
    find("-used", MTIME_ONLY),
    find("-anewer", MTIME_ONLY),
    find("-cnewer", MTIME_ONLY),
    find(
        "-newer",
        "use --newer FILE (e.g. pfind . --newer build.stamp)",
    ),
    find("-user", "use --owner USER (e.g. pfind . --owner alice)"),
    find("-uid", "use --owner UID (e.g. pfind . --owner 1000)"),
    find("-group", "use --owner :GROUP (e.g. pfind . --owner :staff)"),
    find("-gid", "use --owner :GID (e.g. pfind . --owner :100)"),
    find(
        "-nouser",
        "pfind has no test for owners without a name (--owner takes ids too)",
    ),
    find(
        "-nogroup",
        "pfind has no test for groups without a name (--owner takes ids too)",
    ),
    find(
        "-maxdepth",
        "use -d N (e.g. pfind . -d 1: a root's children are at depth 1, as in find)",
    ),
    find("-mindepth", "use --min-depth N"),
    find(
        "-depth",
        "pfind prints in no particular order; leave it out (--sort path gives one)",
    ),
    find("-links", NO_EQUIVALENT),
    find("-inum", NO_EQUIVALENT),
    find("-samefile", NO_EQUIVALENT),
    find("-fstype", NO_EQUIVALENT),
    find("-context", NO_EQUIVALENT),
    find("-true", NO_EQUIVALENT),
    find("-false", NO_EQUIVALENT),
    find("-print", "pfind prints every match; leave it out"),
    find("-print0", "use -0 (e.g. pfind . -0 | xargs -0 ls -l)"),
    find(
        "-printf",
        "use --format TEMPLATE (e.g. pfind . --format '{size} {}')",
    ),
    find(
        "-ls",
        "use -l for sizes, or --format '{mode} {owner} {group} {size} {mtime} {}'",
    ),
    find("-fprint", "redirect pfind's output: pfind ... > FILE"),
    find("-fprint0", "redirect pfind's output: pfind ... -0 > FILE"),
    find(
        "-fprintf",
        "redirect pfind's output: pfind ... --format TEMPLATE > FILE",
    ),
    find("-fls", "redirect pfind's output: pfind ... -l > FILE"),
    find("-exec", RUN_EACH),
    find("-execdir", RUN_IN_DIR),
    find("-ok", RUN_EACH),
    find("-okdir", RUN_IN_DIR),
    find(
        "-delete",
        "pfind deletes nothing: pipe the matches to rm: pfind ... -0 | xargs -0 rm --",
    ),
    find(
        "-quit",
        "use -1 (stop after the first match) or --max-results N",
    ),
    find(
        "-prune",
        "use -E GLOB to skip directories by name, or --prune with -t d to stop below \
         every directory that matched",
    ),
    Hint {
        word: "-o",
        whose: "find's OR, or fd's short --owner",
        advice: "pfind has no operators: different options must all match, and a repeated \
                 -n, -e or -t is any of them (pfind -n '*.rs' -n Makefile); for the owner, \
                 write --owner USER:GROUP",
    },
    find("-or", NO_OPERATORS),
    find("-and", NO_OPERATORS),
    find(
        "-not",
        "pfind has no operators: -E GLOB skips what matches, --owner '!USER' every owner \
         but one",
    ),
    find("-follow", "use -L"),
    find("-xdev", "use -x (--one-file-system)"),
    find("-mount", "use -x (--one-file-system)"),
    find(
        "-daystart",
        "a date given to --changed-within or --changed-before is its midnight; leave it \
         out",
    ),
    find("-noleaf", LEAVE_OUT),
    find("-warn", LEAVE_OUT),
    find("-nowarn", LEAVE_OUT),
    find("-ignore_readdir_race", LEAVE_OUT),
    find("-noignore_readdir_race", LEAVE_OUT),
    find("-help", "use -h (a summary) or --help"),
    find("-version", "use -V"),
];

/// fd's long options that pfind does not have (without `--`).
const FD_LONG: &[Hint] = &[
    fd(
        "ignore-parent",
        "parents' ignore files are read unless --no-ignore-parent; leave it out",
    ),
    fd(
        "no-global-ignore-file",
        "pfind reads core.excludesFile with --ignore as git does; use --ignore-file or \
         --no-ignore-vcs for other rules",
    ),
    fd(
        "glob",
        "pfind's patterns are globs already: use -n GLOB for names, -p GLOB for paths \
         below the root",
    ),
    fd(
        "fixed-strings",
        "for names that contain TEXT, use -n '*TEXT*'",
    ),
    fd("literal", "for names that contain TEXT, use -n '*TEXT*'"),
    fd(
        "exact",
        "a glob without wildcards matches the whole name: -n NAME",
    ),
    fd(
        "list-details",
        "use -l for sizes, or --format '{mode} {owner} {group} {size} {mtime} {}'",
    ),
    fd(
        "search-path",
        "give the directories as arguments: pfind DIR...",
    ),
    fd("show-errors", "pfind shows every error; leave it out"),
    fd(
        "error-on-fs-errors",
        "pfind's exit status is 1 after any error already; leave it out",
    ),
    fd("dereference", "use -L (--follow)"),
    fd("has-results", "use -q (--quiet)"),
    fd("change-newer-than", "use --changed-within WHEN"),
    fd("changed-after", "use --changed-within WHEN"),
    fd("change-older-than", "use --changed-before WHEN"),
    fd("older", "use --changed-before WHEN"),
    fd("mount", "use -x (--one-file-system)"),
    fd("xdev", "use -x (--one-file-system)"),
    fd("maxdepth", "use -d N (--max-depth)"),
    fd("mindepth", "use --min-depth N"),
    fd("gen-completions", "use --generate bash, zsh, fish or man"),
    fd("hyper", "use --hyperlink"),
    fd("max-buffer-time", LEAVE_OUT),
];

/// Short options of fd (and find's options before the root) that pfind does not
/// have. pfind's own letters are never looked up here.
const FD_SHORT: &[(char, Hint)] = &[
    (
        'g',
        fd(
            "-g",
            "pfind's patterns are globs already: use -n GLOB for names, -p GLOB for paths \
             below the root",
        ),
    ),
    (
        'F',
        fd("-F", "for names that contain TEXT, use -n '*TEXT*'"),
    ),
    (
        'P',
        find(
            "-P",
            "pfind follows no links unless -L, as find -P; leave it out",
        ),
    ),
    ('D', find("-D", LEAVE_OUT)),
    ('O', find("-O", LEAVE_OUT)),
];

/// The refusal for the command line `args` (without the program's name), if it holds
/// something a find or fd user typed that pfind would misread: one line, without the
/// `pfind: ` that `main` puts before it.
pub fn refusal(args: &[OsString], options: &impl Options, paths: &impl Paths) -> Option<Vec<u8>> {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_bytes();
        i += 1;
        if arg == b"--" {
            return None;
        }
        // A command's own words (`--exec find {} -name x ;`) are none of ours.
        let terminator: Option<&[u8]> = match arg {
            b"--exec" | b"--exec-dir" => Some(b";"),
            b"--exec-batch" | b"-X" => Some(b"+"),
            _ => None,
        };
        if let Some(terminator) = terminator {
            while i < args.len() && args[i].as_bytes() != terminator {
                i += 1;
            }
            i += 1;
            continue;
        }
        if let Some(long) = arg.strip_prefix(b"--") {
            let (name, inline_value) = match long.iter().position(|&b| b == b'=') {
                Some(eq) => (&long[..eq], true),
                None => (long, false),
            };
            let Ok(name) = std::str::from_utf8(name) else {
                continue; // not an option of anyone's; clap says so
            };
            match options.long_takes_value(name) {
                Some(true) if !inline_value => i += 1,
                Some(_) => {}
                None => {
                    if let Some(hint) = FD_LONG.iter().find(|hint| hint.word == name) {
                        return Some(say(&format!("--{name}"), hint));
                    }
                }
            }
            continue;
        }
        let Some(letters) = arg.strip_prefix(b"-").filter(|rest| !rest.is_empty()) else {
            continue; // a root, or `-` itself
        };
        if let Some(mut hint) = find_hint(arg) {
            // `-exec CMD {} +` runs CMD on many matches at once.
            let terminator = args[i..].iter().find(|a| *a == ";" || *a == "+");
            if hint.advice == RUN_EACH && terminator.is_some_and(|t| t == "+") {
                hint.advice = RUN_BATCH;
            }
            return Some(say(&String::from_utf8_lossy(arg), &hint));
        }
        // A cluster of short options, as clap reads it: flags, then perhaps one that
        // takes the rest of the word, or the next argument, as its value.
        let Ok(letters) = std::str::from_utf8(letters) else {
            continue;
        };
        for (at, letter) in letters.char_indices() {
            match options.short_takes_value(letter) {
                Some(true) => {
                    if at + letter.len_utf8() == letters.len() {
                        i += 1;
                    }
                    break;
                }
                Some(false) => {
                    let last = at + 1 == letters.len();
                    if letter == 'x' && last {
                        if let Some(refused) = exec_after_x(args, i - 1, paths) {
                            return Some(refused);
                        }
                    }
                }
                // Unknown to pfind: told if fd or find has it; otherwise clap says so.
                None => {
                    let (_, hint) = FD_SHORT.iter().find(|(known, _)| *known == letter)?;
                    return Some(say(&format!("-{letter}"), hint));
                }
            }
        }
    }
    None
}

/// A word of [`FIND`], or find's `-newerXY` (`-newermt` and its kin).
fn find_hint(word: &[u8]) -> Option<Hint> {
    let word = std::str::from_utf8(word).ok()?;
    if let Some(hint) = FIND.iter().find(|hint| hint.word == word) {
        return Some(*hint);
    }
    let (x, y) = match word.strip_prefix("-newer")?.as_bytes() {
        &[x, y] => (x, y),
        _ => return None,
    };
    let times = b"aBcm";
    if !times.contains(&x) || !(times.contains(&y) || y == b't') {
        return None;
    }
    let advice = match (x, y) {
        (b'm', b't') => {
            "use --changed-within TIME or --changed-before TIME (e.g. pfind . \
                         --changed-within 2026-01-01)"
        }
        (b'm', b'm') => "use --newer FILE (e.g. pfind . --newer build.stamp)",
        _ => MTIME_ONLY,
    };
    Some(Hint {
        word: "-newerXY",
        whose: "find's option",
        advice,
    })
}

/// fd's `-x CMD`: pfind's `-x` takes no value, so CMD would be a root. Refused when
/// CMD (the word after `args[at]`, which ends in `-x`) is no file here but a command
/// on `PATH`, with the command line to type instead.
fn exec_after_x(args: &[OsString], at: usize, paths: &impl Paths) -> Option<Vec<u8>> {
    let word = args.get(at + 1)?;
    let bytes = word.as_bytes();
    if bytes.is_empty() || bytes.starts_with(b"-") || bytes.contains(&b'/') {
        return None;
    }
    if paths.exists(word) || !paths.is_command(word) {
        return None;
    }
    let mut typed = vec!["pfind".to_string()];
    for (i, arg) in args.iter().enumerate() {
        let arg = arg.as_bytes();
        if i != at {
            typed.push(shell_word(arg));
        } else if arg != b"-x" {
            typed.push(shell_word(&arg[..arg.len() - 1]));
            typed.push("--exec".to_string());
        } else {
            typed.push("--exec".to_string());
        }
    }
    let mut line = b"'-x' is --one-file-system here, not fd's --exec: '".to_vec();
    line.extend_from_slice(bytes);
    line.extend_from_slice(
        b"' is a command, not a directory to search; to run it on each match, use --exec: ",
    );
    line.extend_from_slice(typed.join(" ").as_bytes());
    Some(line)
}

/// fd's `fd PATTERN DIR` typed as `pfind PATTERN DIR`: the first root does not
/// exist and has no `/`, and the next one does. pfind would report the first and
/// then print everything under the others, and the one line that says why would
/// scroll away (issue 30); so the command is refused before the walk, with the
/// pfind spelling: the roots that exist, and the pattern as an `-n` glob (as fd's
/// pattern matches anywhere in a name, a plain word `W` becomes `*W*`).
pub fn pattern_before_roots(roots: &[OsString], paths: &impl Paths) -> Option<Vec<u8>> {
    let [pattern, first_root, ..] = roots else {
        return None;
    };
    let word = pattern.as_bytes();
    if word.is_empty() || word.contains(&b'/') || paths.exists(pattern) || !paths.exists(first_root)
    {
        return None;
    }
    let glob = if word.iter().any(|b| b"*?[".contains(b)) {
        word.to_vec()
    } else if let Some(glob) = crate::filter::regex::looks_like_regex(word)
        .then(|| super::warnings::regex_as_glob(word))
        .flatten()
    {
        glob
    } else {
        [b"*", word, b"*"].concat()
    };
    let roots: Vec<String> = roots[1..]
        .iter()
        .map(|root| shell_word(root.as_bytes()))
        .collect();
    let line = format!(
        "'{}' is not a directory, but '{}' is: unlike fd, pfind takes no PATTERN before its \
         directories (every word is a directory to search); to match names, type: pfind {} -n {}",
        String::from_utf8_lossy(word),
        String::from_utf8_lossy(first_root.as_bytes()),
        roots.join(" "),
        shell_word(&glob)
    );
    Some(line.into_bytes())
}

/// fd's unquoted `fd *.txt`, typed as `pfind *.txt`: the shell made the pattern into
/// the names of the files it matches here, and pfind, as find, prints those files
/// and nothing below (issue 51). Asked by `main` when no filter was given (a filter
/// on file roots, `pfind notes.txt -e txt`, is meant); the walk still runs. When
/// there are two roots or more and every one is a regular file (one file, or a
/// link, is named on purpose as often: `pfind file -l`, `pfind -L link`): the line
/// that says so, with the command that matches names below the roots' directory,
/// quoted so the shell leaves it alone: the extension the roots share (`pfind -n
/// '*.txt'`), else a placeholder.
pub fn files_as_roots(roots: &[OsString], paths: &impl Paths) -> Option<Vec<u8>> {
    if roots.len() < 2 || !roots.iter().all(|root| paths.is_file(root)) {
        return None;
    }
    // (its directory, its name)
    fn split(root: &OsString) -> (&[u8], &[u8]) {
        let bytes = root.as_bytes();
        match bytes.iter().rposition(|&b| b == b'/') {
            Some(at) => (&bytes[..at], &bytes[at + 1..]),
            None => (&b""[..], bytes),
        }
    }
    let (dir, _) = split(&roots[0]);
    let same_dir = roots.iter().all(|root| split(root).0 == dir);
    // `.txt` of `a.txt` (not of `.profile`)
    fn extension(root: &OsString) -> Option<&[u8]> {
        let name = split(root).1;
        let dot = name.iter().rposition(|&b| b == b'.').filter(|&at| at > 0)?;
        Some(&name[dot..])
    }
    let shared = extension(&roots[0]).filter(|ext| roots.iter().all(|r| extension(r) == Some(ext)));
    let glob = match shared {
        Some(ext) => shell_word(&[b"*", ext].concat()),
        None => "'GLOB'".to_string(),
    };
    let mut command = String::from("pfind ");
    if same_dir && !dir.is_empty() {
        command.push_str(&shell_word(dir));
        command.push(' ');
    }
    command.push_str("-n ");
    command.push_str(&glob);
    let line = format!(
        "every root is a file, as when the shell expands an unquoted pattern: pfind prints \
         these files only, not the matching ones below them; to match names, quote the \
         pattern: {command}"
    );
    Some(line.into_bytes())
}

/// `'WORD' is WHOSE: ADVICE`, for the spelling `typed`.
fn say(typed: &str, hint: &Hint) -> Vec<u8> {
    format!("'{typed}' is {}: {}", hint.whose, hint.advice).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::{CommandFactory, Parser};

    /// A file system with `existing` paths and `commands` on `PATH`.
    struct Fake {
        existing: &'static [&'static str],
        commands: &'static [&'static str],
    }

    impl Paths for Fake {
        fn exists(&self, path: &OsStr) -> bool {
            self.existing.iter().any(|p| OsStr::new(p) == path)
        }
        fn is_command(&self, word: &OsStr) -> bool {
            self.commands.iter().any(|c| OsStr::new(c) == word)
        }
        fn is_dir(&self, path: &OsStr) -> bool {
            self.exists(path) && !path.as_bytes().contains(&b'.')
        }
        fn is_file(&self, path: &OsStr) -> bool {
            self.exists(path) && !self.is_dir(path)
        }
    }

    const WORLD: Fake = Fake {
        existing: &["src", "rm_dir"],
        commands: &["rm", "echo", "rm_dir"],
    };

    fn refused(args: &[&str]) -> Option<String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        refusal(&args, &Cli::command(), &WORLD).map(|line| String::from_utf8(line).unwrap())
    }

    #[test]
    fn find_options_are_refused_with_the_pfind_spelling() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["-name", "foo"],
                "'-name' is find's option: use -n GLOB (e.g. pfind . -n '*.rs')",
            ),
            (
                &[".", "-name", "*.rs"],
                "'-name' is find's option: use -n GLOB (e.g. pfind . -n '*.rs')",
            ),
            (
                &["-type", "f"],
                "'-type' is find's option: use -t TYPE: f, d, l, s, p, c or b (e.g. pfind . \
                 -t d)",
            ),
            (
                &["src", "-maxdepth", "1"],
                "'-maxdepth' is find's option: use -d N (e.g. pfind . -d 1: a root's \
                 children are at depth 1, as in find)",
            ),
            (
                &["-newermt", "2026-01-01"],
                "'-newermt' is find's option: use --changed-within TIME or --changed-before \
                 TIME (e.g. pfind . --changed-within 2026-01-01)",
            ),
            (
                &["-exec", "rm", "{}", ";"],
                "'-exec' is find's option: use --exec CMD ARGS... ';' (e.g. pfind . -e log \
                 --exec gzip {} ';')",
            ),
            (
                &["-exec", "ls", "-l", "{}", "+"],
                "'-exec' is find's option: use -X CMD ARGS... + (as many matches per command \
                 as fit; e.g. pfind . -e tmp -X rm +)",
            ),
            (
                &["-e", "rs", "-o", "-e", "toml"],
                "'-o' is find's OR, or fd's short --owner: pfind has no operators: \
                 different options must all match, and a repeated -n, -e or -t is any of \
                 them (pfind -n '*.rs' -n Makefile); for the owner, write --owner \
                 USER:GROUP",
            ),
            // The first one is told.
            (
                &["-iname", "a", "-print0"],
                "'-iname' is find's option: use -i -n GLOB (e.g. pfind . -i -n '*.jpg')",
            ),
        ];
        for &(args, want) in cases {
            assert_eq!(refused(args).as_deref(), Some(want), "{args:?}");
        }
        // Every word of the table is refused, naming it.
        for hint in FIND {
            let said = refused(&[hint.word]).unwrap_or_else(|| panic!("{}", hint.word));
            assert!(said.starts_with(&format!("'{}' is ", hint.word)), "{said}");
        }
        for word in ["-newerBt", "-newercm", "-neweraa"] {
            assert!(refused(&[word]).is_some(), "{word}");
        }
        for word in ["-newerxy", "-newerm", "-newermtt"] {
            assert!(refused(&[word]).is_none(), "{word}");
        }
    }

    #[test]
    fn files_as_roots_get_the_quoted_pattern() {
        // In the fake, a name with a dot is a file, one without a directory.
        let fake = Fake {
            existing: &[
                "a.txt",
                "b.txt",
                "c.md",
                "src",
                "src/x.rs",
                "src/y.rs",
                "docs/z.rs",
                "Makefile",
            ],
            commands: &[],
        };
        let said = |words: &[&str]| {
            let roots: Vec<OsString> = words.iter().map(OsString::from).collect();
            files_as_roots(&roots, &fake).map(|line| {
                let line = String::from_utf8(line).unwrap();
                line[line.find("quote the pattern: ").unwrap() + 19..].to_string()
            })
        };
        let typed = |want: &str| Some(want.to_string());
        assert_eq!(said(&["a.txt", "b.txt"]), typed("pfind -n '*.txt'"));
        assert_eq!(
            said(&["src/x.rs", "src/y.rs"]),
            typed("pfind src -n '*.rs'")
        );
        assert_eq!(said(&["src/x.rs", "docs/z.rs"]), typed("pfind -n '*.rs'"));
        assert_eq!(said(&["a.txt", "c.md"]), typed("pfind -n 'GLOB'"));
        // A directory among them, a missing one, one file alone, or none: no hint.
        for words in [
            &["a.txt", "src"][..],
            &["a.txt", "nope.txt"],
            &["a.txt"],
            &["src"],
            &[],
        ] {
            assert_eq!(said(words), None, "{words:?}");
        }
    }

    #[test]
    fn a_pattern_before_the_directories_is_refused_as_fds() {
        let fake = Fake {
            existing: &["photos", "src", "tests"],
            commands: &[],
        };
        let roots = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
        let refused = |words: &[&str]| {
            pattern_before_roots(&roots(words), &fake).map(|l| String::from_utf8(l).unwrap())
        };
        let cases: &[(&[&str], &str)] = &[
            (
                &["jpg", "photos"],
                "'jpg' is not a directory, but 'photos' is: unlike fd, pfind takes no PATTERN \
                 before its directories (every word is a directory to search); to match \
                 names, type: pfind photos -n '*jpg*'",
            ),
            (
                &["*.rs", "src", "tests"],
                "'*.rs' is not a directory, but 'src' is: unlike fd, pfind takes no PATTERN \
                 before its directories (every word is a directory to search); to match \
                 names, type: pfind src tests -n '*.rs'",
            ),
            (
                &["\\.rs$", "src"],
                "'\\.rs$' is not a directory, but 'src' is: unlike fd, pfind takes no PATTERN \
                 before its directories (every word is a directory to search); to match \
                 names, type: pfind src -n '*.rs'",
            ),
        ];
        for &(words, want) in cases {
            assert_eq!(refused(words).as_deref(), Some(want), "{words:?}");
        }
        // Not fd's form: one root, the first exists, the second does not, a path.
        for words in [
            &["jpg"][..],
            &["photos", "jpg"],
            &["jpg", "nothing"],
            &["a/jpg", "photos"],
            &["", "photos"],
        ] {
            assert_eq!(refused(words), None, "{words:?}");
        }
    }

    #[test]
    fn fd_options_are_refused_with_the_pfind_spelling() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["-x", "rm"],
                "'-x' is --one-file-system here, not fd's --exec: 'rm' is a command, not a \
                 directory to search; to run it on each match, use --exec: pfind --exec rm",
            ),
            (
                &["-e", "tmp", "-ax", "echo", "{}"],
                "'-x' is --one-file-system here, not fd's --exec: 'echo' is a command, not \
                 a directory to search; to run it on each match, use --exec: pfind -e tmp \
                 -a --exec echo {}",
            ),
        ];
        for &(args, want) in cases {
            assert_eq!(refused(args).as_deref(), Some(want), "{args:?}");
        }
        for hint in FD_LONG {
            let typed = format!("--{}", hint.word);
            let said = refused(&[&typed]).unwrap_or_else(|| panic!("{typed}"));
            assert!(said.starts_with(&format!("'{typed}' is fd's")), "{said}");
        }
        for (letter, _) in FD_SHORT {
            assert!(refused(&[&format!("-{letter}")]).is_some(), "-{letter}");
        }
    }

    #[test]
    fn what_pfind_means_is_left_to_clap() {
        for args in [
            &["-n", "-name"][..], // a glob that starts with a dash
            &["-E", "-type"],
            &["-S", "-size"],
            &["--name", "-name"],
            &["--", "-name"], // after `--`, nothing is inspected
            &[".", "--", "-exec", "-o"],
            &["-n-name"],      // -n with the value "-name"
            &["-x", "src"],    // an existing directory
            &["-x", "rm_dir"], // exists, even if a command has the name
            &["-x", "nosuch"], // not a command: a missing root, reported as such
            &["-x", "./rm"],
            &["-x", "-e", "rs"],
            &["-a"],
            &["-L", "-x", "-0l", "-ic", "-1q"],
            // pfind's own --exec and -X: their commands' words are not pfind's.
            &["--exec", "find", "{}", "-name", "x", ";"],
            &["--exec-batch", "ls", "-x", "rm", "+", "-e", "rs"],
            &["-X", "echo", "-o"],
            &["--extension=rs", "--owner", "-o"],
            &["--bogus"], // unknown to both: clap says so
            &["-k"],
            &["-"],
        ] {
            assert_eq!(refused(args), None, "{args:?}");
        }
    }

    /// No cluster of pfind's own short options that clap accepts is refused: every
    /// pair and triple of letters of which all but the last are flags (a letter that
    /// takes a value takes the rest of the word: `-name` is `-n ame`, which is what
    /// the tables are for), followed by a value when the last letter takes one.
    #[test]
    fn no_valid_cluster_is_taken_for_find_or_fd() {
        let command = Cli::command();
        let letters: Vec<char> = command
            .get_arguments()
            .filter_map(|a| a.get_short())
            .collect();
        let takes_value = |c: char| command.short_takes_value(c) == Some(true);
        let mut valid = Vec::new();
        let mut clusters: Vec<String> = Vec::new();
        for &a in &letters {
            for &b in &letters {
                clusters.push(format!("-{a}{b}"));
                for &c in &letters {
                    clusters.push(format!("-{a}{b}{c}"));
                }
            }
        }
        for cluster in clusters {
            let head: Vec<char> = cluster[1..].chars().collect();
            if head[..head.len() - 1].iter().any(|&c| takes_value(c)) {
                continue;
            }
            let mut args = vec![cluster.clone()];
            if takes_value(cluster.chars().last().unwrap()) {
                args.push("1".to_string());
            }
            let parses =
                Cli::try_parse_from(std::iter::once("pfind".to_string()).chain(args.clone()))
                    .is_ok();
            // A cluster that spells a find primary is read as find's (`-uid 1000` is
            // find's test, not `-u -i -d 1000`): there, the hint is worth more.
            if parses && FIND.iter().any(|hint| hint.word == cluster) {
                assert!(refused(&[&cluster, "1"]).is_some(), "{cluster}");
                continue;
            }
            if parses {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                assert_eq!(refused(&args), None, "{args:?} is a valid pfind cluster");
                valid.push(cluster);
            }
        }
        for cluster in ["-0l", "-ic", "-Lx", "-ia", "-id", "-xd", "-1a", "-iLe"] {
            assert!(
                valid.iter().any(|v| v == cluster),
                "{cluster} was not tried"
            );
        }
        assert!(valid.len() > 500, "only {} valid clusters", valid.len());
    }
}
