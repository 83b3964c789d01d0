//! `-E` patterns: a glob without `/` skips whatever has that name (`-E target`), as
//! it always did; a glob with a `/` names a path below the root, as a line of a
//! `.gitignore` does and as fd's `--exclude` reads it (issue 27):
//!
//! * a leading `/` anchors it at the root: `-E /target` skips `ROOT/target` only;
//! * a `/` anywhere else anchors it too: `-E src/gen` skips `ROOT/src/gen`, and
//!   `-E 'src/gen/**'` everything below it (not `src/gen` itself);
//! * a trailing `/` skips directories only: `-E build/` skips every directory named
//!   `build`, at any depth (the pattern has no other `/`), but not a file `build`;
//! * `**` is any number of directories: `-E '**/gen/*.rs'`.
//!
//! Each component is a glob of `-n`'s syntax, so `*` never crosses a `/`. A skipped
//! directory is not listed. The path is the one `-p` and `--path-regex` see, put
//! together by the walker only when such a pattern is given.

use super::glob::{GlobError, GlobPattern};
use super::path::{PathGlob, PathPattern, PathState};
use std::ops::Deref;

/// One `-E` pattern as typed, checked, before `-i` is known. Dereferences to the
/// pattern as typed.
#[derive(Clone, Debug)]
pub enum ExcludePattern {
    /// Without `/`: tested on the name.
    Name(GlobPattern),
    /// With `/`: tested on the path below the root.
    Path {
        text: Box<[u8]>,
        pattern: PathPattern,
        dirs_only: bool,
    },
}

impl ExcludePattern {
    /// Reads `text`, or says why it is refused.
    pub fn parse(text: &[u8]) -> Result<ExcludePattern, GlobError> {
        if !text.contains(&b'/') {
            return GlobPattern::parse(text).map(ExcludePattern::Name);
        }
        let (rest, dirs_only) = match text.strip_suffix(b"/") {
            Some(rest) => (rest, true),
            None => (text, false),
        };
        let (rest, anchored) = match rest.strip_prefix(b"/") {
            Some(rest) => (rest, true),
            None => (rest, rest.contains(&b'/')),
        };
        if rest.is_empty() {
            return Err(GlobError::new(
                "names no path below the root (a '/' alone is the root, which -E never \
                 skips)"
                    .to_string(),
            ));
        }
        // Unanchored (`build/`): a name at any depth.
        let glob = if anchored {
            rest.to_vec()
        } else {
            [&b"**/"[..], rest].concat()
        };
        Ok(ExcludePattern::Path {
            text: text.into(),
            pattern: PathPattern::parse(&glob)?,
            dirs_only,
        })
    }
}

impl Deref for ExcludePattern {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            ExcludePattern::Name(glob) => glob,
            ExcludePattern::Path { text, .. } => text,
        }
    }
}

/// A compiled `-E` pattern with a `/`.
#[derive(Clone, Debug)]
pub struct PathExclude {
    glob: PathGlob,
    dirs_only: bool,
}

impl PathExclude {
    /// `None` for a pattern without `/`, which the name globs take.
    pub fn compile(pattern: &ExcludePattern, ignore_case: bool) -> Option<PathExclude> {
        match pattern {
            ExcludePattern::Name(_) => None,
            ExcludePattern::Path {
                pattern, dirs_only, ..
            } => Some(PathExclude {
                glob: PathGlob::compile(pattern, ignore_case),
                dirs_only: *dirs_only,
            }),
        }
    }

    /// True when the entry at `path` (below the root) is skipped; `is_dir` says
    /// whether it is a directory.
    pub fn excludes(&self, path: &[u8], is_dir: bool) -> bool {
        (is_dir || !self.dirs_only) && self.glob.matches_joined(path)
    }

    /// The state of a directory whose path below the root is `dir`, for
    /// [`Self::excludes_in`]: computed once per directory, so that each entry costs
    /// a test of its name.
    pub fn dir_state(&self, dir: &[u8]) -> PathState {
        self.glob.dir_state(dir)
    }

    /// [`Self::excludes`] for the entry `name` of a directory in `state`.
    pub fn excludes_in(&self, state: PathState, name: &[u8], is_dir: bool) -> bool {
        (is_dir || !self.dirs_only) && self.glob.matches_in(state, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excludes(pattern: &str, path: &str, is_dir: bool) -> bool {
        let pattern = ExcludePattern::parse(pattern.as_bytes()).unwrap();
        let exclude = PathExclude::compile(&pattern, false).expect("a path pattern");
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let state = exclude.dir_state(format!("{dir}/").as_bytes());
        let want = exclude.excludes(path.as_bytes(), is_dir);
        assert_eq!(
            exclude.excludes_in(state, name.as_bytes(), is_dir),
            want,
            "{path}"
        );
        want
    }

    /// What fd 10.5's `--exclude` skipped on the same tree (checked by hand).
    #[test]
    fn gitignore_table() {
        let cases: &[(&str, &str, bool, bool)] = &[
            ("/target", "target", true, true),
            ("/target", "x/target", true, false),
            ("/target", "target/t", false, false), // below it: never listed anyway
            ("src/gen", "src/gen", true, true),
            ("src/gen", "a/src/gen", true, false),
            ("src/gen/**", "src/gen", true, false),
            ("src/gen/**", "src/gen/x.rs", false, true),
            ("src/gen/**", "src/gen/a/b", true, true),
            ("build/", "build", true, true),
            ("build/", "y/build", true, true),
            ("build/", "y/build", false, false), // a file named build
            ("build/", "y/buildfile", false, false),
            ("/y/", "y", true, true),
            ("*/gen", "src/gen", true, true),
            ("*/gen", "a/src/gen", true, false),
            ("**/gen/*.rs", "a/b/gen/x.rs", false, true),
            ("**/gen/*.rs", "gen/x.rs", false, true),
            ("a/[bc]", "a/c", false, true),
        ];
        for &(pattern, path, is_dir, want) in cases {
            assert_eq!(
                excludes(pattern, path, is_dir),
                want,
                "-E {pattern} on {path} (dir: {is_dir})"
            );
        }
    }

    #[test]
    fn names_stay_names_and_errors_are_said() {
        assert!(matches!(
            ExcludePattern::parse(b"*.tmp").unwrap(),
            ExcludePattern::Name(_)
        ));
        assert_eq!(&*ExcludePattern::parse(b"build/").unwrap(), b"build/");
        for bad in [&b"/"[..], b"//", b"a/[z-a]"] {
            assert!(ExcludePattern::parse(bad).is_err(), "{bad:?}");
        }
        let pattern = ExcludePattern::parse(b"/SRC/*.RS").unwrap();
        let exclude = PathExclude::compile(&pattern, true).unwrap();
        assert!(exclude.excludes(b"src/main.rs", false));
    }
}
