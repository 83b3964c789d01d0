//! `-p/--path`: a glob matched against an entry's path below its root, the part
//! after `ROOT/`, so that a command means the same wherever it is run from.
//!
//! The pattern is split at `/` into components. A component `**` matches any number
//! of path components, none included (`src/**/*.rs` matches `src/main.rs` and
//! `src/a/b/c.rs`; `**/test_*` a `test_` file at any depth; `a/**` everything below
//! `a`, but not `a` itself). Any other component is a glob with the syntax of `-n`
//! ([`Glob`]), matched against one path component, so its `*`, `?` and sets never
//! match a `/`; a `**` that is not a whole component is an ordinary `*`, as in
//! `.gitignore`. The command line reads a pattern once, into a [`PathPattern`], and
//! compiles that with [`PathGlob::compile`] once `-i` is known.
//!
//! The walk never builds an entry's relative path. Instead each directory carries a
//! [`PathState`]: the set of how many leading components of the pattern its own path
//! can have consumed (a bit set, hence at most 63 components). A subdirectory's state
//! is computed from its parent's and its name when it is queued; an empty state means
//! nothing below can match, so the directory is not listed at all (`-p 'src/**'`
//! lists only `src`). An entry matches when its directory's state holds "all but the
//! last component" and its name matches the last component ([`PathGlob::last`],
//! which the filter tests with the other name globs), or the last component is `**`.

use super::glob::{Glob, GlobError, GlobPattern};
use std::ops::Deref;

/// The most components a `-p` pattern may have: one bit of [`PathState`] each, plus
/// one for "all consumed".
pub const MAX_COMPONENTS: usize = 63;

/// A `-p` pattern as typed, checked and read, before `-i` is known (see
/// [`GlobPattern`]). Dereferences to the pattern's bytes.
#[derive(Clone, Debug)]
pub struct PathPattern {
    text: Box<[u8]>,
    /// Each component: `None` for `**`.
    components: Box<[Option<GlobPattern>]>,
}

impl PathPattern {
    /// Reads `pattern`, or says why it is refused.
    pub fn parse(pattern: &[u8]) -> Result<PathPattern, GlobError> {
        // Split at `/` first, a group around one would be cut in two and read as
        // literal braces: refused rather than matching nothing.
        if GlobPattern::group_holds_slash(pattern) {
            return Err(GlobError::new(
                "a brace group holds '/', but -p reads the path one component at a time: \
                 give each alternative in the components it has ('{src,lib}/*.rs', not \
                 '{src/*.rs,lib/*.rs}')"
                    .to_string(),
            ));
        }
        let parts: Vec<&[u8]> = pattern.split(|&b| b == b'/').collect();
        if parts.len() > MAX_COMPONENTS {
            return Err(GlobError::new(format!(
                "a path pattern may have at most {MAX_COMPONENTS} components, this one has {}",
                parts.len()
            )));
        }
        let components = parts
            .into_iter()
            .map(|part| match part {
                b"**" => Ok(None),
                _ => GlobPattern::parse(part).map(Some),
            })
            .collect::<Result<_, _>>()?;
        Ok(PathPattern {
            text: pattern.into(),
            components,
        })
    }
}

impl Deref for PathPattern {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.text
    }
}

#[derive(Clone, Debug)]
pub struct PathGlob {
    components: Box<[Component]>,
}

#[derive(Clone, Debug)]
enum Component {
    /// `**`: any number of path components.
    Any,
    Name(Glob),
}

/// Which numbers of leading pattern components a directory's path (below the root)
/// can have consumed: bit `i` set when components `0..i` match it. The root's path is
/// empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathState(u64);

impl PathGlob {
    /// Compiles `pattern`; `ignore_case` is `-i`.
    pub fn new(pattern: &[u8], ignore_case: bool) -> Result<PathGlob, GlobError> {
        Ok(PathGlob::compile(
            &PathPattern::parse(pattern)?,
            ignore_case,
        ))
    }

    /// Builds the matcher of a pattern already read; `ignore_case` is `-i`.
    pub fn compile(pattern: &PathPattern, ignore_case: bool) -> PathGlob {
        let components = pattern
            .components
            .iter()
            .map(|component| match component {
                None => Component::Any,
                Some(part) => Component::Name(Glob::compile(part, ignore_case)),
            })
            .collect();
        PathGlob { components }
    }

    /// Why the pattern can never match, if it cannot: a path below the root has no
    /// empty, `.` or `..` component, so a pattern with a leading, trailing or doubled
    /// `/`, or with `./` (as in `find -path './src/*'`), matches nothing.
    pub fn never_matches(pattern: &[u8]) -> Option<&'static str> {
        let parts = || pattern.split(|&b| b == b'/');
        if parts().any(|part| part.is_empty()) {
            return Some("starts or ends with '/' or holds '//'");
        }
        if parts().any(|part| part == b"." || part == b"..") {
            return Some("has a '.' or '..' component");
        }
        None
    }

    /// The state of a root directory: nothing consumed yet, and any leading `**` may
    /// consume nothing.
    pub fn start(&self) -> PathState {
        self.closure(1)
    }

    /// The state of the subdirectory `name` of a directory in `state`.
    pub fn step(&self, state: PathState, name: &[u8]) -> PathState {
        let mut next = 0u64;
        for (i, component) in self.components.iter().enumerate() {
            if state.0 >> i & 1 == 0 {
                continue;
            }
            match component {
                // `**` consumes this component and may go on consuming.
                Component::Any => next |= 1 << i,
                Component::Name(glob) if glob.matches(name) => next |= 1 << (i + 1),
                Component::Name(_) => {}
            }
        }
        self.closure(next)
    }

    /// Adds to `set` what a `**` may skip: wherever one has been reached, so has the
    /// component after it.
    fn closure(&self, mut set: u64) -> PathState {
        for (i, component) in self.components.iter().enumerate() {
            if matches!(component, Component::Any) && set >> i & 1 != 0 {
                set |= 1 << (i + 1);
            }
        }
        PathState(set)
    }

    /// True when something below a directory in `state` can still match: some
    /// component is left to consume.
    pub fn alive(&self, state: PathState) -> bool {
        state.0 & ((1 << self.components.len()) - 1) != 0
    }

    /// True when the entries of a directory in `state` may match: all components but
    /// the last are consumed, so the entry's name meets the last one.
    pub fn entries_may_match(&self, state: PathState) -> bool {
        state.0 >> (self.components.len() - 1) & 1 != 0
    }

    /// The glob an entry's name must match when [`Self::entries_may_match`]; `None`
    /// when the last component is `**`, which any name matches.
    pub fn last(&self) -> Option<&Glob> {
        match self.components.last() {
            Some(Component::Name(glob)) => Some(glob),
            _ => None,
        }
    }

    /// True when the entry at `path`, below the root with its components joined by
    /// `/`, matches: [`Self::matches_path`] without splitting it into a list first.
    pub fn matches_joined(&self, path: &[u8]) -> bool {
        let (dirs, name) = match path.iter().rposition(|&b| b == b'/') {
            Some(slash) => (&path[..slash + 1], &path[slash + 1..]),
            None => (&b""[..], path),
        };
        self.matches_in(self.dir_state(dirs), name)
    }

    /// The state of a directory whose path below the root is `dir` (empty, or its
    /// components each followed by `/`).
    pub fn dir_state(&self, dir: &[u8]) -> PathState {
        let dirs = dir.split(|&b| b == b'/').filter(|part| !part.is_empty());
        dirs.fold(self.start(), |state, dir| self.step(state, dir))
    }

    /// True when the entry `name` of a directory in `state` matches.
    pub fn matches_in(&self, state: PathState, name: &[u8]) -> bool {
        self.entries_may_match(state) && self.last().is_none_or(|glob| glob.matches(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    trait MatchesPath {
        /// True when the entry at `path` (components below the root, the last one the
        /// entry's name) matches: the walk's answer, computed the direct way.
        fn matches_path(&self, path: &[&[u8]]) -> bool;
    }

    impl MatchesPath for PathGlob {
        fn matches_path(&self, path: &[&[u8]]) -> bool {
            let Some((name, dirs)) = path.split_last() else {
                return false;
            };
            let state = dirs
                .iter()
                .fold(self.start(), |state, dir| self.step(state, dir));
            self.entries_may_match(state) && self.last().is_none_or(|glob| glob.matches(name))
        }
    }

    fn path_glob(pattern: &str) -> PathGlob {
        PathGlob::new(pattern.as_bytes(), false).unwrap()
    }

    fn matches(pattern: &str, path: &str) -> bool {
        let parts: Vec<&[u8]> = path.split('/').map(str::as_bytes).collect();
        path_glob(pattern).matches_path(&parts)
    }

    #[test]
    fn path_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.rs", "main.rs", true),
            ("*.rs", "src/main.rs", false), // `*` never crosses `/`
            ("src/*.rs", "src/main.rs", true),
            ("src/*.rs", "src/a/main.rs", false),
            ("src/**/*.rs", "src/main.rs", true), // `**/` may be nothing
            ("src/**/*.rs", "src/a/b/main.rs", true),
            ("src/**/*.rs", "lib/main.rs", false),
            ("src/**/*.rs", "src/main.c", false),
            ("**/test_*", "test_a", true),
            ("**/test_*", "x/y/test_a", true),
            ("**/test_*", "x/y/a_test", false),
            ("*/test_*", "x/test_a", true),
            ("*/test_*", "test_a", false),
            ("*/test_*", "x/y/test_a", false),
            ("a/**", "a", false), // everything below a, not a itself
            ("a/**", "a/b", true),
            ("a/**", "a/b/c", true),
            ("a/**", "b/c", false),
            ("**", "anything/at/all", true),
            ("a/**/b/**/c", "a/b/c", true),
            ("a/**/b/**/c", "a/x/b/y/z/c", true),
            ("a/**/b/**/c", "a/x/y/c", false),
            ("**/**/x", "x", true),
            ("a**b/c", "axxb/c", true), // not a whole component: an ordinary `*`
            ("a**b/c", "ax/b/c", false),
            ("[ab]/?", "b/c", true),
            ("[ab]/?", "c/c", false),
            ("a/b", "a", false),
            ("a", "a/b", false),
        ];
        for &(pattern, path, want) in cases {
            assert_eq!(matches(pattern, path), want, "{pattern} on {path}");
        }
    }

    #[test]
    fn dead_directories_are_not_listed() {
        let glob = path_glob("src/**/*.rs");
        let root = glob.start();
        assert!(!glob.entries_may_match(root)); // `main.rs` at the root cannot match
        assert!(!glob.alive(glob.step(root, b"lib")));
        let src = glob.step(root, b"src");
        assert!(glob.alive(src) && glob.entries_may_match(src));
        let deep = glob.step(glob.step(src, b"a"), b"b");
        assert!(glob.alive(deep) && glob.entries_may_match(deep));
        // A pattern that is used up: only the root's own entries may match.
        let flat = path_glob("*.rs");
        assert!(flat.entries_may_match(flat.start()));
        assert!(!flat.alive(flat.step(flat.start(), b"src")));
    }

    #[test]
    fn ignore_case_and_errors() {
        let glob = PathGlob::new(b"SRC/*.RS", true).unwrap();
        assert!(glob.matches_path(&[b"src", b"main.rs"]));
        let err = PathGlob::new(b"a/[z-a]", false).unwrap_err().to_string();
        assert!(err.contains("reversed"), "{err}");
        let long = vec!["a"; MAX_COMPONENTS + 1].join("/");
        let err = PathGlob::new(long.as_bytes(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most 63 components"), "{err}");
        assert!(PathGlob::new(vec!["a"; MAX_COMPONENTS].join("/").as_bytes(), false).is_ok());
    }

    #[test]
    fn patterns_that_never_match_are_named() {
        for pattern in ["/src/*", "src/", "a//b", "./src/*", "a/../b", ""] {
            assert!(
                PathGlob::never_matches(pattern.as_bytes()).is_some(),
                "{pattern}"
            );
        }
        for pattern in ["src/*", "**/x", ".hidden/*", "a..b"] {
            assert!(
                PathGlob::never_matches(pattern.as_bytes()).is_none(),
                "{pattern}"
            );
        }
    }
}
