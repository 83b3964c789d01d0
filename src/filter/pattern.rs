//! One compiled pattern of any kind, for the tests a name or a path below the root
//! must pass besides the first name glob: a glob (`-n`, a literal `--regex`, the
//! last component of `-p`), the regex engine (`--regex`, `--path-regex`), or a `-p`
//! glob tested on a whole path (`-p A --and B`).
//!
//! The filter keeps its first name glob apart, where a walk without patterns tests a
//! null pointer and nothing more (see [`super::Filter::name_glob`]); the other tests
//! on a name hang behind that glob ([`Glob::and_also`]), those on the path are a
//! list, all of which must match.

use super::glob::{Glob, NameTest};
use super::path::PathGlob;
use regex::bytes::Regex;

#[derive(Clone, Debug)]
pub enum Pattern {
    Glob(Glob),
    /// Any of these (a repeated `--regex`); the engine is shared by the workers.
    Regex(Box<[Regex]>),
    /// A regex with `.` that a glob says on names of ASCII without a newline: the
    /// glob, and on any other name the engine too. The glob matches whatever the
    /// engine does (it also takes a stray byte or a newline for a `.`), so the
    /// engine is asked only about names the glob took (see `filter::regex`).
    Checked {
        glob: Glob,
        engine: Box<[Regex]>,
    },
    /// The second half of `Checked`, once its glob is tested apart (as the filter's
    /// first name glob, on its fast path): any name of ASCII without a newline, any
    /// other that the engine matches.
    Unclean(Box<[Regex]>),
    /// A `-p` glob, on a path below the root split at `/`.
    Path(PathGlob),
}

impl Pattern {
    /// True when `subject` (a name, or a path below the root) matches.
    pub fn matches(&self, subject: &[u8]) -> bool {
        match self {
            Pattern::Glob(glob) => glob.matches(subject),
            Pattern::Regex(any) => any.iter().any(|regex| regex.is_match(subject)),
            Pattern::Checked { glob, engine } => {
                glob.matches(subject) && (is_plain(subject) || any_match(engine, subject))
            }
            Pattern::Unclean(engine) => is_plain(subject) || any_match(engine, subject),
            Pattern::Path(glob) => glob.matches_joined(subject),
        }
    }
}

impl NameTest for Pattern {
    fn matches(&self, name: &[u8]) -> bool {
        Pattern::matches(self, name)
    }
}

/// True when `subject` is ASCII without a newline: where a regex's `.` and a glob's
/// `?` agree. One pass without an early exit, which the compiler vectorises.
fn is_plain(subject: &[u8]) -> bool {
    (subject.iter()).fold(true, |plain, &b| plain & (b < 0x80) & (b != b'\n'))
}

fn any_match(engine: &[Regex], subject: &[u8]) -> bool {
    engine.iter().any(|regex| regex.is_match(subject))
}

/// True when `subject` matches every one of `all`.
#[inline(never)]
pub fn all_match(all: &[Pattern], subject: &[u8]) -> bool {
    all.iter().all(|pattern| pattern.matches(subject))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_matches_its_subject() {
        let glob = Pattern::Glob(Glob::new(b"*.rs", false).unwrap());
        let regex = Pattern::Regex(Box::new([Regex::new(r"^\d").unwrap()]));
        let path = Pattern::Path(PathGlob::new(b"src/**/*.rs", false).unwrap());
        assert!(glob.matches(b"a.rs") && !glob.matches(b"a.c"));
        assert!(regex.matches(b"1a") && !regex.matches(b"a1"));
        assert!(path.matches(b"src/a/b.rs") && path.matches(b"src/b.rs"));
        assert!(!path.matches(b"b.rs") && !path.matches(b"lib/b.rs"));
        assert!(all_match(&[glob.clone(), path.clone()], b"src/x.rs"));
        assert!(!all_match(&[glob, path], b"src/x.c"));
        assert!(all_match(&[], b"anything"));
    }
}
