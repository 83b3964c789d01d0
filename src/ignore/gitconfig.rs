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

impl GitSettings {
    /// The settings of the system and global files, which every repository shares.
    pub fn user() -> GitSettings {
        let mut settings = GitSettings::default();
        for file in user_config_files() {
            settings.read_file(&file, 0);
        }
        settings
    }

    /// These settings overlaid with the repository's own `config` in `common_dir`.
    pub fn with_repository(&self, common_dir: &Path) -> GitSettings {
        let mut settings = self.clone();
        settings.read_file(&common_dir.join("config"), 0);
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

    /// Reads one file (missing or unreadable: nothing), following its includes.
    fn read_file(&mut self, file: &Path, depth: usize) {
        let Ok(bytes) = std::fs::read(file) else {
            return;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (section, key, value) in entries(&text) {
            match (section.as_str(), key.as_str()) {
                ("core", "excludesfile") => self.excludes_file = value.map(|v| expand_home(&v)),
                ("extensions", "objectformat") => self.object_format = value,
                ("include", "path") if depth < MAX_INCLUDE_DEPTH => {
                    if let Some(value) = value {
                        let included = expand_home(&value);
                        let included = match file.parent() {
                            Some(dir) if included.is_relative() => dir.join(included),
                            _ => included,
                        };
                        self.read_file(&included, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }
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
        let settings = GitSettings::default().with_repository(tmp.path());
        assert_eq!(settings.excludes_file, Some(PathBuf::from("/second")));
        assert_eq!(settings.hash_len(), 20);
    }

    #[test]
    fn an_include_loop_ends() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("config"), "[include]\npath = config\n").unwrap();
        let settings = GitSettings::default().with_repository(tmp.path());
        assert_eq!(settings, GitSettings::default());
    }
}
