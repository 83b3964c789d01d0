//! The two git settings the ignore rules depend on, read from git's configuration
//! files: `core.excludesFile` (the user's own ignore file) and
//! `extensions.objectFormat` (how long the object ids in the index are).
//!
//! Files are read in git's order, a later value replacing an earlier one: the
//! system file (`$GIT_CONFIG_SYSTEM`, else `/etc/gitconfig`, unless
//! `$GIT_CONFIG_NOSYSTEM`), the global ones (`$GIT_CONFIG_GLOBAL`, else
//! `$XDG_CONFIG_HOME/git/config` then `~/.gitconfig`), then the repository's own
//! `config`. `[include] path = ...` is followed; `[includeIf]` is not (its conditions
//! need more of git than this), which the README says.
//!
//! Includes are bounded as git bounds them, and then some (issue 38): a file that
//! included itself eight times was followed to depth 10, 8^10 reads, and `pfind
//! --ignore` ran for hours. Past git's depth of 10 git stops with "exceeded maximum
//! include depth"; here that is a warning, after which no include of that
//! configuration is followed (its files' own settings still count), and so is a
//! configuration's hundredth included file, which git would read on (ten levels of
//! eight includes each are a billion reads for git as well). Each file is read as
//! any file of git's is (`os::read`): a regular file, up to a bound.

use crate::os::read::{read_small_path, Expect};
use crate::report::Reporter;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The settings found, each `None` when no file sets it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitSettings {
    /// `core.excludesFile`, with `~/` expanded.
    pub excludes_file: Option<PathBuf>,
    /// `extensions.objectFormat`: `sha1` or `sha256`.
    pub object_format: Option<String>,
}

/// How deep `[include]` may nest, as git's own limit.
const MAX_INCLUDE_DEPTH: usize = 10;

/// How many files one configuration may include in all, nested or not. Git has no
/// such bound; no configuration written by hand comes near it.
const MAX_INCLUDED_FILES: usize = 100;

/// A configuration file: git reads one to its end whatever its size, but one of
/// 100 MiB (as a rule file may be) is not a configuration.
const CONFIG_FILE: Expect = Expect {
    what: "a git configuration file",
    limit: 100 << 20,
    follow: true,
    pipe: false,
};

/// The state of reading one configuration, its includes included.
struct Reading<'r> {
    reporter: &'r Reporter,
    /// Files included so far.
    included: usize,
    /// Past a bound: no more includes are followed.
    gave_up: bool,
}

impl GitSettings {
    /// The settings of the system and global files, which every repository shares.
    pub fn user(reporter: &Reporter) -> GitSettings {
        let mut settings = GitSettings::default();
        for file in user_config_files() {
            settings.read_file(&file, 0, &mut Reading::new(reporter));
        }
        settings
    }

    /// These settings overlaid with the repository's own `config` in `common_dir`.
    pub fn with_repository(&self, common_dir: &Path, reporter: &Reporter) -> GitSettings {
        let mut settings = self.clone();
        let config = common_dir.join("config");
        settings.read_file(&config, 0, &mut Reading::new(reporter));
        settings
    }

    /// The user's ignore file: `core.excludesFile`, or git's default,
    /// `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`).
    pub fn user_ignore_file(&self) -> Option<PathBuf> {
        self.excludes_file
            .clone()
            .or_else(|| Some(xdg_config()?.join("git/ignore")))
    }

    /// Object ids are 32 bytes in a SHA-256 repository, 20 otherwise.
    pub fn hash_len(&self) -> usize {
        match self.object_format.as_deref() {
            Some(format) if format.eq_ignore_ascii_case("sha256") => 32,
            _ => 20,
        }
    }

    /// Reads one file, at `depth` includes below the configuration's own, following
    /// its includes while `reading` allows. A missing file is nothing (as git takes
    /// a missing include); one that cannot be read is warned about and skipped.
    fn read_file(&mut self, file: &Path, depth: usize, reading: &mut Reading) {
        let bytes = match read_small_path(file, CONFIG_FILE) {
            Ok(bytes) => bytes,
            Err(err) if is_missing(&err) => return,
            Err(err) => {
                let why = crate::report::describe(&err);
                return warn(file, &why, "its settings are not read", reading.reporter);
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        for (section, key, value) in entries(&text) {
            match (section.as_str(), key.as_str()) {
                ("core", "excludesfile") => self.excludes_file = value.map(|v| expand_home(&v)),
                ("extensions", "objectformat") => self.object_format = value,
                ("include", "path") if !reading.gave_up => {
                    if let Some(value) = value {
                        let included = expand_home(&value);
                        let included = match file.parent() {
                            Some(dir) if included.is_relative() => dir.join(included),
                            _ => included,
                        };
                        if reading.may_include(file, &included, depth) {
                            self.read_file(&included, depth + 1, reading);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

impl<'r> Reading<'r> {
    fn new(reporter: &'r Reporter) -> Reading<'r> {
        Reading {
            reporter,
            included: 0,
            gave_up: false,
        }
    }

    /// Whether `file`, at `depth`, may include `included`: not past either bound,
    /// the first time one is met said in one warning, git's words for the depth.
    fn may_include(&mut self, file: &Path, included: &Path, depth: usize) -> bool {
        let why = if depth >= MAX_INCLUDE_DEPTH {
            format!(
                "exceeded maximum include depth ({MAX_INCLUDE_DEPTH}) while including {} \
                 (a circular include?)",
                String::from_utf8_lossy(included.as_os_str().as_bytes())
            )
        } else if self.included >= MAX_INCLUDED_FILES {
            format!("includes more than {MAX_INCLUDED_FILES} files")
        } else {
            self.included += 1;
            return true;
        };
        self.gave_up = true;
        warn(file, &why, "no more includes are followed", self.reporter);
        false
    }
}

/// A file that is not there, as git takes it: not found, or below something that
/// is not a directory.
fn is_missing(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::NotFound || err.raw_os_error() == Some(libc::ENOTDIR)
}

/// `pfind: warning: FILE: WHY; WHAT_INSTEAD`, as for git's other files.
fn warn(file: &Path, why: &str, what_instead: &str, reporter: &Reporter) {
    let mut message = file.as_os_str().as_bytes().to_vec();
    message.extend_from_slice(format!(": {why}; {what_instead}").as_bytes());
    reporter.warning(&message);
}

/// The system and global configuration files, in the order git reads them.
fn user_config_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if std::env::var_os("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(
            std::env::var_os("GIT_CONFIG_SYSTEM")
                .map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from),
        );
    }
    match std::env::var_os("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push(PathBuf::from(global)),
        None => {
            files.extend(xdg_config().map(|dir| dir.join("git/config")));
            files.extend(home().map(|home| home.join(".gitconfig")));
        }
    }
    files
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

fn xdg_config() -> Option<PathBuf> {
    match std::env::var_os("XDG_CONFIG_HOME").filter(|dir| !dir.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(home()?.join(".config")),
    }
}

/// `~/x` is `$HOME/x`; anything else is taken as written.
fn expand_home(value: &str) -> PathBuf {
    match (value.strip_prefix("~/"), home()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(value),
    }
}

/// The `(section, key, value)` of every setting in a configuration file's text,
/// section and key lowercased (both are case-insensitive in git); `value` is `None`
/// for a bare key (a boolean true). A subsection (`[section "sub"]`) is kept in the
/// section's name after a `.`, with its case, so it never equals a plain section.
fn entries(text: &str) -> Vec<(String, String, Option<String>)> {
    let mut found = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.trim_start().to_string();
        if line.starts_with('[') {
            let Some(end) = line.find(']') else { continue };
            let header = &line[1..end];
            section = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => format!(
                    "{}.{}",
                    name.to_ascii_lowercase(),
                    sub.trim().trim_matches('"')
                ),
                None => header.to_ascii_lowercase(),
            };
            line = line[end + 1..].trim_start().to_string();
            if line.is_empty() {
                continue;
            }
        }
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let (key, raw) = match line.split_once('=') {
            Some((key, raw)) => (key.trim().to_ascii_lowercase(), Some(raw.to_string())),
            None => (line.trim().to_ascii_lowercase(), None),
        };
        let value = raw.map(|mut raw| {
            // A backslash at the end of the line continues the value on the next.
            while raw.trim_end().ends_with('\\') && !raw.trim_end().ends_with("\\\\") {
                let trimmed = raw.trim_end();
                raw = trimmed[..trimmed.len() - 1].to_string();
                raw.push_str(lines.next().unwrap_or(""));
            }
            unquote(&raw)
        });
        found.push((section.clone(), key, value));
    }
    found
}

/// A value as git reads it: surrounding blanks dropped, `"..."` quoting and the
/// escapes `\" \\ \n \t \b` resolved, a `#` or `;` outside quotes starting a comment.
fn unquote(raw: &str) -> String {
    let mut value = String::new();
    let mut quoted = false;
    // Blanks are kept only when something other than a blank or a comment follows.
    let mut pending_blanks = String::new();
    let mut chars = raw.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => break,
            '\\' => {
                value.push_str(&std::mem::take(&mut pending_blanks));
                match chars.next() {
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some('b') => {
                        value.pop();
                    }
                    Some(other) => value.push(other),
                    None => {}
                }
                continue;
            }
            c if c.is_whitespace() && !quoted => {
                pending_blanks.push(c);
                continue;
            }
            c => {
                value.push_str(&std::mem::take(&mut pending_blanks));
                value.push(c);
                continue;
            }
        }
        value.push_str(&std::mem::take(&mut pending_blanks));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_found_in_sections_case_blind() {
        let text = "# comment\n[user]\n\tname = x\n[Core]\n\tbare = false\n\
                    \tExcludesFile = /a/b ; a comment\n[remote \"core\"]\n\
                    \texcludesfile = /not/this\n[extensions]\n\tobjectFormat = sha256\n";
        let found = entries(text);
        assert!(found.contains(&("core".into(), "excludesfile".into(), Some("/a/b".into()))));
        assert!(found.contains(&(
            "remote.core".into(),
            "excludesfile".into(),
            Some("/not/this".into())
        )));
        assert!(found.contains(&(
            "extensions".into(),
            "objectformat".into(),
            Some("sha256".into())
        )));
    }

    #[test]
    fn values_unquote_as_git_reads_them() {
        let cases = [
            ("  plain value  ", "plain value"),
            ("\"with # hash\" # comment", "with # hash"),
            ("a\\\\b", "a\\b"),
            ("\"q\\\"uote\"", "q\"uote"),
            ("x;y", "x"),
            ("\" spaced \"", " spaced "),
        ];
        for (raw, want) in cases {
            assert_eq!(unquote(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn includes_are_followed_and_later_values_win() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("config"),
            "[core]\nexcludesfile = /first\n[include]\npath = more\n",
        )
        .unwrap();
        std::fs::write(tmp.path().join("more"), "[core]\nexcludesFile = /second\n").unwrap();
        let settings = GitSettings::default().with_repository(tmp.path(), &Reporter::new());
        assert_eq!(settings.excludes_file, Some(PathBuf::from("/second")));
        assert_eq!(settings.hash_len(), 20);
    }

    #[test]
    fn an_include_loop_ends() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("config"), "[include]\npath = config\n").unwrap();
        let settings = GitSettings::default().with_repository(tmp.path(), &Reporter::new());
        assert_eq!(settings, GitSettings::default());
    }

    /// Issue 38, item 1: a file that includes itself eight times was read 8^10
    /// times. Now the first include past git's depth ends the includes: 11 reads. And
    /// includes that fan out without a loop (a tree of files, eight each, depth 3:
    /// 584 in all, git would read them) stop at the hundredth, the settings read by
    /// then kept.
    #[test]
    fn includes_are_bounded_in_depth_and_number() {
        let tmp = tempfile::tempdir().unwrap();
        let eightfold = "[include]\npath = config\n".repeat(8);
        std::fs::write(tmp.path().join("config"), eightfold).unwrap();
        let reporter = Reporter::new();
        let mut settings = GitSettings::default();
        let mut reading = Reading::new(&reporter);
        settings.read_file(&tmp.path().join("config"), 0, &mut reading);
        assert!(reading.gave_up);
        assert_eq!(reading.included, MAX_INCLUDE_DEPTH);

        let fan = tmp.path().join("fan");
        std::fs::create_dir(&fan).unwrap();
        let includes = |next: &str| format!("[include]\npath = {next}\n").repeat(8);
        std::fs::write(fan.join("config"), includes("a")).unwrap();
        std::fs::write(fan.join("a"), includes("b")).unwrap();
        std::fs::write(fan.join("b"), includes("c")).unwrap();
        std::fs::write(fan.join("c"), "[core]\nexcludesFile = /deep\n").unwrap();
        let mut reading = Reading::new(&reporter);
        let mut settings = GitSettings::default();
        settings.read_file(&fan.join("config"), 0, &mut reading);
        assert!(reading.gave_up);
        assert_eq!(reading.included, MAX_INCLUDED_FILES);
        assert_eq!(settings.excludes_file, Some(PathBuf::from("/deep")));
    }
}
