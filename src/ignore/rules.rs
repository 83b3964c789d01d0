//! One ignore file, compiled: its lines as git reads them, and the question "does
//! this path match, and which way" answered the way git answers it.
//!
//! Lines are parsed by gitoxide's `gix-ignore` and matched by `gix-glob`, a port of
//! git's own `wildmatch`: both work on bytes, so a rule or a name that is not UTF-8
//! matches exactly as git matches it, and bracket classes such as `[[:digit:]]`,
//! `**`, escapes and trailing-space trimming follow git. Within one file the last
//! matching line decides (a `!` line re-includes); which file decides is the caller's
//! business (see `ignore/mod.rs`).

use gix_glob::pattern::{Case, Mode};
use gix_glob::wildmatch;

/// The rules of one file, in file order.
#[derive(Debug, Default)]
pub struct RuleList {
    rules: Vec<gix_glob::Pattern>,
    /// Some rule is matched against the path below the file's directory, not the
    /// name alone, so a caller must put that path together.
    has_path_rules: bool,
}

/// What the rules say about one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The last matching rule excludes it.
    Ignored,
    /// The last matching rule is a `!` rule: it is kept, whatever files of lower
    /// precedence say.
    Kept,
}

impl RuleList {
    /// Compiles the bytes of an ignore file.
    pub fn parse(bytes: &[u8]) -> RuleList {
        let rules: Vec<gix_glob::Pattern> = gix_ignore::parse(bytes, false)
            .map(|(pattern, _line, _kind)| pattern)
            .collect();
        let has_path_rules = rules.iter().any(|rule| !is_name_rule(rule));
        RuleList {
            rules,
            has_path_rules,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// True when some rule needs the path below the file's directory rather than the
    /// name alone.
    pub fn has_path_rules(&self) -> bool {
        self.has_path_rules
    }

    /// What the last rule matching `path` says, if any rule does. `path` is relative
    /// to the directory the rules apply from (the ignore file's own, for a
    /// `.gitignore`), without a leading `/`; `name_start` is where its last component
    /// begins.
    pub fn verdict(&self, path: &[u8], name_start: usize, is_dir: bool) -> Option<Verdict> {
        let name_start = (name_start > 0).then_some(name_start);
        let matched = self.rules.iter().rev().find(|rule| {
            rule.matches_repo_relative_path(
                path.into(),
                name_start,
                Some(is_dir),
                Case::Sensitive,
                wildmatch::Mode::NO_MATCH_SLASH_LITERAL,
            )
        })?;
        Some(if matched.is_negative() {
            Verdict::Kept
        } else {
            Verdict::Ignored
        })
    }
}

/// A rule git tests against the last component only: no `/` but a trailing one.
fn is_name_rule(rule: &gix_glob::Pattern) -> bool {
    rule.mode.contains(Mode::NO_SUB_DIR) && !rule.mode.contains(Mode::ABSOLUTE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::{Ignored, Kept};

    /// `verdict` for a path given whole.
    fn check(rules: &[u8], path: &[u8], is_dir: bool) -> Option<Verdict> {
        let list = RuleList::parse(rules);
        let name_start = path.iter().rposition(|&b| b == b'/').map_or(0, |p| p + 1);
        list.verdict(path, name_start, is_dir)
    }

    #[test]
    fn rules_match_as_git_matches_them() {
        // (rules, path, is a directory, verdict)
        type Case<'a> = (&'a [u8], &'a [u8], bool, Option<Verdict>);
        let cases: &[Case] = &[
            (b"*.o\n", b"a/b/x.o", false, Some(Ignored)),
            (b"*.o\n", b"a/b/x.c", false, None),
            (b"/build\n", b"build", true, Some(Ignored)),
            (b"/build\n", b"src/build", true, None),
            (b"build/\n", b"build", false, None),
            (b"build/\n", b"src/build", true, Some(Ignored)),
            (b"doc/*.txt\n", b"doc/a.txt", false, Some(Ignored)),
            (b"doc/*.txt\n", b"doc/sub/a.txt", false, None),
            (b"a/**/b\n", b"a/x/y/b", false, Some(Ignored)),
            (b"a/**/b\n", b"a/b", false, Some(Ignored)),
            (b"**/foo\n", b"x/foo", false, Some(Ignored)),
            (b"*.log\n!keep.log\n", b"keep.log", false, Some(Kept)),
            (b"!keep.log\n*.log\n", b"keep.log", false, Some(Ignored)),
            (b"\\!bang\n", b"!bang", false, Some(Ignored)),
            (b"\\#hash\n", b"#hash", false, Some(Ignored)),
            (b"#comment\n", b"#comment", false, None),
            // Trailing spaces are trimmed unless escaped; a tab is not trimmed.
            (b"sp   \n", b"sp", false, Some(Ignored)),
            (b"sp\\ \n", b"sp ", false, Some(Ignored)),
            (b"tab\t\n", b"tab", false, None),
            (b"tab\t\n", b"tab\t", false, Some(Ignored)),
            (b"f[[:digit:]]\n", b"f7", false, Some(Ignored)),
            (b"f[[:digit:]]\n", b"fx", false, None),
            (b"[!a]x\n", b"bx", false, Some(Ignored)),
            // Bytes that are not UTF-8, in the rule and in the name.
            (b"caf\xe9\n", b"caf\xe9", false, Some(Ignored)),
            (b"caf\xe9\nlater\n", b"later", false, Some(Ignored)),
            (b"*\xff*\n", b"a\xffb", false, Some(Ignored)),
            // A star does not cross a slash in a rule with one.
            (b"a/*\n", b"a/b/c", false, None),
            // CRLF line ends, as git strips the CR before the LF.
            (b"crlf\r\nnext\r\n", b"crlf", false, Some(Ignored)),
        ];
        for &(rules, path, is_dir, want) in cases {
            assert_eq!(
                check(rules, path, is_dir),
                want,
                "rules {:?} path {:?}",
                String::from_utf8_lossy(rules),
                String::from_utf8_lossy(path)
            );
        }
    }

    #[test]
    fn name_rules_need_no_path() {
        assert!(!RuleList::parse(b"*.o\ntarget/\n!x\n").has_path_rules());
        assert!(RuleList::parse(b"*.o\n/target\n").has_path_rules());
        assert!(RuleList::parse(b"a/b\n").has_path_rules());
        assert!(RuleList::parse(b"# only a comment\n\n").is_empty());
    }
}
