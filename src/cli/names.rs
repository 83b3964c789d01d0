//! The "Filters" on names and paths: `-e`, `-n`, `-E`, `--ignore-contain`, `-p`,
//! `--regex`, `--path-regex`, `--and` and the case switches; their value parsers,
//! what is checked once all are read (`--and`'s kind, regexes under `-i`), their
//! part of the [`Filter`], their warnings, and the name search whose misses are told.

use super::entries::EntryArgs;
use super::values::{bytes, Refused};
use super::warnings;
use crate::filter::exclude::{ExcludePattern, PathExclude};
use crate::filter::glob::{self, Glob, GlobPattern};
use crate::filter::path::{PathGlob, PathPattern};
use crate::filter::pattern::Pattern;
use crate::filter::regex::{self as regex_filter, RegexPattern};
use crate::filter::types::Family;
use crate::filter::{normalize_extension, Extensions, Filter};
use clap::{ArgMatches, Args};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// The name and path patterns, and whether they ignore case.
#[derive(Args, Clone, Debug, Default)]
#[group(skip)]
#[command(next_help_heading = "Filters")]
pub struct NameArgs {
    /// Only names ending in .EXT; a list: -e jpg,png.
    ///
    /// ASCII case is ignored, and a leading dot is optional. Repeat it or give a
    /// comma-separated list: `-e jpg -e png`, `-e jpg,png`; any of them may match. A
    /// comma that belongs to an extension is written `\,`.
    #[arg(
        short = 'e',
        long = "extension",
        value_name = "EXT",
        allow_hyphen_values = true,
        value_parser = bytes(parse_extension_list)
    )]
    pub extensions: Vec<List<Box<[u8]>>>,

    /// Only basenames matching GLOB, as find -name.
    ///
    /// `*` is any run of characters, `?` one character, `[abc]`, `[a-z]`, `[!a-z]` one of
    /// (or not of) a set, `\` makes the next character literal. Case-sensitive unless
    /// -i. Quote it from the shell: `-n '*.[ch]'`. Repeatable, any may match: `-n
    /// '*.rs' -n Makefile`. Combined with -e, both must match.
    #[arg(
        short = 'n',
        long = "name",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_pattern)
    )]
    pub name: Vec<GlobPattern>,

    /// Skip files and whole directories matching GLOB.
    ///
    /// GLOB is tested on the basename, with the syntax of --name; with a `/`, on the
    /// path below the root, as a .gitignore line: `-E /target` (the top one only),
    /// `-E 'src/gen/**'`, `-E build/` (directories only). Repeat it or give a
    /// comma-separated list, as for -e: `-E .git -E '*.tmp'`, `-E .git,target`. A comma
    /// that belongs to a glob is written `\,` (inside `[...]` it needs no escape).
    #[arg(
        short = 'E',
        long = "exclude",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_pattern_list)
    )]
    pub exclude: Vec<List<ExcludePattern>>,

    /// Skip directories that contain an entry NAME.
    ///
    /// As fd's: `--ignore-contain CACHEDIR.TAG`, `--ignore-contain .nobackup`. The
    /// directory is not printed nor walked (a root neither). Repeatable: any of them.
    #[arg(
        long = "ignore-contain",
        value_name = "NAME",
        allow_hyphen_values = true,
        value_parser = bytes(parse_marker)
    )]
    pub ignore_contain: Vec<Box<[u8]>>,

    /// Only paths below the root matching GLOB.
    ///
    /// The path is what follows `ROOT/`: `-p 'src/**/*.rs'`. `*`, `?` and sets do not
    /// match `/` (find -path's `*` does): a `**` component matches any number of
    /// directories, none included, so find's `-path '*.rs'` is `-p '**/*.rs'`.
    /// Directories that cannot lead to a match are not listed.
    #[arg(
        short = 'p',
        long = "path",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_path_pattern)
    )]
    pub path: Option<PathPattern>,

    /// Only basenames matching the regex RE.
    ///
    /// Rust's regex syntax (fd's), on the name's bytes, unanchored: `--regex
    /// '^test_.*\.rs$'`. Case-sensitive unless -i. Repeatable, any may match; with
    /// -n or -e, both must match.
    #[arg(
        long = "regex",
        value_name = "RE",
        allow_hyphen_values = true,
        value_parser = bytes(parse_regex)
    )]
    pub regex: Vec<RegexPattern>,

    /// Only paths below the root matching regex RE.
    ///
    /// As --regex, on what follows `ROOT/`: `--path-regex '^src/.*\.rs$'`.
    #[arg(
        long = "path-regex",
        value_name = "RE",
        allow_hyphen_values = true,
        value_parser = bytes(parse_regex)
    )]
    pub path_regex: Vec<RegexPattern>,

    /// fd's --full-path: the regex RE searched in the path.
    ///
    /// As in fd, a regular expression searched in the path, unanchored: `--full-path
    /// 'src/.*rs'`. pfind searches the path below the root (what `--path-regex` tests),
    /// not the absolute path: the same command means the same from any directory.
    #[arg(
        long = "full-path",
        value_name = "RE",
        allow_hyphen_values = true,
        value_parser = bytes(parse_full_path)
    )]
    pub full_path: Vec<RegexPattern>,

    /// Also require PATTERN, of the first pattern's kind.
    ///
    /// Every --and must match too, as in fd: a glob on the name after -n, a path
    /// glob after -p, a regular expression after --regex or --path-regex (whichever
    /// comes first): `-n '*.rs' --and 'test_*'`.
    #[arg(long = "and", value_name = "PATTERN", allow_hyphen_values = true)]
    pub and: Vec<OsString>,

    /// `--and`'s patterns, read by [`NameArgs::read_and`] once the first pattern's kind
    /// is known.
    #[arg(skip)]
    and_patterns: Vec<AndPattern>,

    /// Ignore case in -n, -E, -p and regexes.
    ///
    /// `-i -n '*.jpg'` matches `IMG.JPG`. -e always ignores ASCII case.
    #[arg(short = 'i', long = "ignore-case", overrides_with = "case_sensitive")]
    pub ignore_case: bool,

    /// Match case (the default); undoes an -i before it.
    #[arg(long = "case-sensitive", overrides_with = "ignore_case")]
    pub case_sensitive: bool,
}

impl NameArgs {
    /// The option (its field's name) of the command line's first pattern, which
    /// `--and`'s are of the kind of, as in fd; asked of `matches` before the values
    /// are taken out of them.
    pub(super) fn first_pattern(matches: &ArgMatches) -> Option<&'static str> {
        ["name", "path", "regex", "path_regex", "full_path"]
            .into_iter()
            .filter_map(|id| Some((matches.index_of(id)?, id)))
            .min()
            .map(|(_, id)| id)
    }

    /// What can be checked only once every pattern is read: that no regex grows past
    /// the engine's limit when `-i` folds its case, and `--and`'s patterns, of the
    /// kind of the `first` pattern (see [`NameArgs::first_pattern`]).
    pub(super) fn read_and(&mut self, first: Option<&str>) -> Result<(), Refused> {
        if self.ignore_case {
            // Folding case can grow a regex past the engine's limit: said here, as a
            // usage error, rather than found when it is compiled.
            let regexes = (self.regex.iter().map(|re| ("regex", re)))
                .chain(self.path_regex.iter().map(|re| ("path_regex", re)))
                .chain(self.full_path.iter().map(|re| ("full_path", re)));
            for (id, regex) in regexes {
                let value = OsStr::new(regex.as_str());
                regex
                    .check_ignoring_case()
                    .map_err(|why| Refused::value(id, value, format!("{why} (with -i)")))?;
            }
        }
        for value in &self.and {
            let pattern = AndPattern::parse(first, value.as_bytes())
                .map_err(|why| Refused::value("and", value, why))?;
            if let (AndPattern::Regex(regex) | AndPattern::PathRegex(regex), true) =
                (&pattern, self.ignore_case)
            {
                let why = |err| format!("{err} (with -i)");
                regex
                    .check_ignoring_case()
                    .map_err(|err| Refused::value("and", value, why(err)))?;
            }
            self.and_patterns.push(pattern);
        }
        Ok(())
    }

    /// This group's part of the filter; `families` are `-t`'s families, whose
    /// extensions join `-e`'s (a family is only more extensions: the same matcher).
    pub(super) fn resolve(
        &self,
        filter: &mut Filter,
        families: impl Iterator<Item = &'static Family>,
    ) {
        let mut extensions: Vec<Box<[u8]>> = (self.extensions.iter())
            .flat_map(|list| list.0.iter().map(|ext| normalize_extension(ext)))
            .collect();
        for family in families {
            extensions
                .extend((family.extensions.iter()).map(|ext| normalize_extension(ext.as_bytes())));
        }
        extensions.sort();
        extensions.dedup();
        filter.extensions = Extensions::new(extensions);
        // Each pattern was read once by `parse_pattern`, which refused what is wrong
        // with it; `-i` changes how it matches, never whether it compiles.
        let ignore_case = self.ignore_case;
        let compile = |pattern: &GlobPattern| Glob::compile(pattern, ignore_case);
        if !self.name.is_empty() {
            let any = Glob::any_of(self.name.iter().map(compile).collect());
            filter.add_name_pattern(Pattern::Glob(any));
        }
        let excludes = || self.exclude.iter().flat_map(|list| &list.0);
        filter.exclude_globs = excludes()
            .filter_map(|pattern| match pattern {
                ExcludePattern::Name(glob) => Some(compile(glob)),
                ExcludePattern::Path { .. } => None,
            })
            .collect();
        filter.path_excludes = excludes()
            .filter_map(|pattern| PathExclude::compile(pattern, ignore_case))
            .collect();
        filter.ignore_contain = self.ignore_contain.clone().into();
        if let Some(pattern) = &self.path {
            let path = PathGlob::compile(pattern, ignore_case);
            // Its last component is tested on the name, with the other name globs.
            if let Some(last) = path.last() {
                filter.add_name_pattern(Pattern::Glob(last.clone()));
            }
            filter.path = Some(path);
        }
        if !self.regex.is_empty() {
            filter.add_name_pattern(regex_filter::compile(&self.regex, ignore_case));
        }
        // `--full-path` is fd's name for what `--path-regex` does: one list, any of it.
        let path_regexes: Vec<RegexPattern> = (self.path_regex.iter().chain(&self.full_path))
            .cloned()
            .collect();
        if !path_regexes.is_empty() {
            filter.add_path_pattern(regex_filter::compile(&path_regexes, ignore_case));
        }
        for pattern in &self.and_patterns {
            match pattern {
                AndPattern::Name(glob) => filter.add_name_pattern(Pattern::Glob(compile(glob))),
                AndPattern::Path(path) => {
                    let glob = PathGlob::compile(path, ignore_case);
                    filter.add_path_pattern(Pattern::Path(glob));
                }
                AndPattern::Regex(regex) => filter.add_name_pattern(regex_filter::compile(
                    std::slice::from_ref(regex),
                    ignore_case,
                )),
                AndPattern::PathRegex(regex) => filter.add_path_pattern(regex_filter::compile(
                    std::slice::from_ref(regex),
                    ignore_case,
                )),
            }
        }
    }

    /// The name search, if this is one whose misses can be told: `None` without `-n`,
    /// `-p` or `--regex`, with a predicate of `entries` that needs a `stat` (an entry
    /// of another kind might fail it too, and only a `stat` could tell), and with
    /// `-q` (`quiet`), whose answer is its status.
    pub(super) fn name_search(&self, entries: &EntryArgs, quiet: bool) -> Option<NameSearch> {
        // `--path-regex` is tested on the path, after the name: a miss there says
        // nothing of other kinds, so it is not told.
        if self.name.is_empty() && self.path.is_none() && self.regex.is_empty()
            || !self.path_regex.is_empty()
            || !self.full_path.is_empty()
        {
            return None;
        }
        if entries.needs_stat() || quiet {
            return None;
        }
        let word =
            |option: &str, value: &[u8]| format!("{option} {}", super::words::shell_word(value));
        let mut words: Vec<String> = (self.extensions.iter())
            .flat_map(|list| list.0.iter().map(|ext| word("-e", ext)))
            .collect();
        words.extend(
            entries
                .families()
                .map(|family| format!("-t {}", family.name)),
        );
        words.extend(self.name.iter().map(|glob| word("-n", glob)));
        words.extend(self.path.iter().map(|glob| word("-p", glob)));
        words.extend((self.regex.iter()).map(|regex| word("--regex", regex.as_str().as_bytes())));
        Some(NameSearch(words.join(" ")))
    }

    /// True unless `-i` would grow one of the regexes past the engine's limit (what
    /// [`Self::read_and`] refuses), so that these options can be compiled.
    pub(super) fn folds_case(&self) -> bool {
        let ands = self
            .and_patterns
            .iter()
            .filter_map(|pattern| match pattern {
                AndPattern::Regex(regex) | AndPattern::PathRegex(regex) => Some(regex),
                _ => None,
            });
        let mut regexes = (self.regex.iter())
            .chain(&self.path_regex)
            .chain(&self.full_path)
            .chain(ands);
        !self.ignore_case || regexes.all(|regex| regex.check_ignoring_case().is_ok())
    }

    /// This group's warnings (see `Cli::warnings`); `skip_hidden` (`--no-hidden`)
    /// makes a pattern only hidden names match one that matches nothing.
    pub(super) fn warnings(&self, skip_hidden: bool, lines: &mut Vec<Vec<u8>>) {
        for pattern in &self.name {
            lines.extend(warnings::name_glob("-n", pattern));
        }
        for pattern in self.exclude.iter().flat_map(|list| &list.0) {
            if let ExcludePattern::Name(glob) = pattern {
                lines.extend(warnings::name_glob("-E", glob));
            }
        }
        for regex in &self.regex {
            lines.extend(warnings::name_regex("--regex", regex));
        }
        if skip_hidden {
            let globs = (self.name.iter())
                .filter(|glob| warnings::glob_only_hidden(glob))
                .map(|glob| warnings::only_hidden("-n", glob));
            let regexes = (self.regex.iter())
                .filter(|regex| regex.only_hidden())
                .map(|regex| warnings::only_hidden("--regex", regex.as_str().as_bytes()));
            lines.extend(globs.chain(regexes));
        }
        for pattern in &self.and_patterns {
            match pattern {
                AndPattern::Name(glob) => lines.extend(warnings::name_glob("--and", glob)),
                AndPattern::Regex(regex) => lines.extend(warnings::name_regex("--and", regex)),
                _ => {}
            }
        }
        for ext in self.extensions.iter().flat_map(|list| &list.0) {
            lines.extend(warnings::extension(ext));
        }
        if let Some(pattern) = &self.path {
            lines.extend(warnings::path_glob(pattern));
            lines.extend(warnings::path_glob_regex(pattern));
        }
    }
}

/// A name search (`-n`, `-p`, `--regex`) whose misses can be told (see
/// [`crate::config::Config::miss_hints`]): its name options as they could be typed
/// again.
#[derive(Clone, Debug)]
pub struct NameSearch(String);

impl NameSearch {
    /// The warning for a walk that found nothing while entries of other kinds
    /// matched the names: once, after the walk, on stderr.
    pub fn nothing_matched(&self, summary: &crate::Summary) -> Option<Vec<u8>> {
        if summary.matches > 0 {
            return None;
        }
        warnings::nothing_matched(&self.0, summary.missed)
    }
}

/// The values of one occurrence of an option that takes a comma-separated list
/// (`-e jpg,png`, `-E .git,target`), each as typed (without the list's escapes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct List<T>(pub Vec<T>);

/// `-e EXT[,EXT...]`: split at each comma; `\,` is a literal comma and `\\` a
/// backslash, as in a glob list (see [`parse_pattern_list`]). Each extension is
/// kept as typed, for the warnings; [`normalize_extension`] makes it what the
/// matcher wants.
fn parse_extension_list(value: &[u8]) -> Result<List<Box<[u8]>>, String> {
    let mut list = vec![Vec::new()];
    let mut bytes = value.iter().copied().peekable();
    while let Some(byte) = bytes.next() {
        match (byte, bytes.peek()) {
            (b'\\', Some(&escaped @ (b',' | b'\\'))) => {
                bytes.next();
                list.last_mut().expect("never empty").push(escaped);
            }
            (b',', _) => list.push(Vec::new()),
            _ => list.last_mut().expect("never empty").push(byte),
        }
    }
    if list.iter().any(|ext| normalize_extension(ext).is_empty()) {
        return Err("an extension cannot be empty (use e.g. -e jpg)".to_string());
    }
    Ok(List(list.into_iter().map(Vec::into_boxed_slice).collect()))
}

/// `-E GLOB[,GLOB...]`: split where [`glob::split_list`] says, each glob checked by
/// reading it (a name glob, or with a `/` a path below the root).
fn parse_pattern_list(value: &[u8]) -> Result<List<ExcludePattern>, String> {
    let pieces = glob::split_list(value);
    if pieces.len() > 1 && pieces.iter().any(|piece| piece.is_empty()) {
        return Err(
            "a list of globs has an empty one (write a comma in a glob as \\,)".to_string(),
        );
    }
    let mut list = Vec::with_capacity(pieces.len());
    for piece in pieces {
        list.push(ExcludePattern::parse(piece).map_err(|err| err.to_string())?);
    }
    Ok(List(list))
}

/// One `-p` glob, read (once: `into_config` compiles what this returns).
fn parse_path_pattern(value: &[u8]) -> Result<PathPattern, String> {
    PathPattern::parse(value).map_err(|err| err.to_string())
}

/// One `-n`/`-E` glob, read (once: `into_config` compiles what this returns).
fn parse_pattern(value: &[u8]) -> Result<GlobPattern, String> {
    GlobPattern::parse(value).map_err(|err| err.to_string())
}

/// `--ignore-contain NAME`: any name but an empty one, as bytes.
fn parse_marker(value: &[u8]) -> Result<Box<[u8]>, String> {
    if value.is_empty() {
        return Err("the name cannot be empty (e.g. --ignore-contain CACHEDIR.TAG)".to_string());
    }
    Ok(value.into())
}

/// One `--regex` or `--path-regex` pattern, read and checked.
fn parse_regex(value: &[u8]) -> Result<RegexPattern, String> {
    RegexPattern::parse(value).map_err(|err| err.to_string())
}

/// One `--full-path` pattern: a regex, as fd's. Before issue 41 `--full-path` was
/// `-p`'s long name and took a glob; a glob that is no valid regex (`src/**/*.rs`,
/// `*.rs`) is refused with the `-p` that takes it.
fn parse_full_path(value: &[u8]) -> Result<RegexPattern, String> {
    RegexPattern::parse(value).map_err(|err| match PathPattern::parse(value) {
        Ok(_) => format!(
            "{err} (--full-path takes a regular expression, as fd's does; for a glob of the \
             path below the root, use -p {})",
            super::words::shell_word(value)
        ),
        Err(_) => err.to_string(),
    })
}

/// One `--and` pattern, of the kind of the command line's first pattern.
#[derive(Clone, Debug)]
pub enum AndPattern {
    /// After `-n`: a glob on the name.
    Name(GlobPattern),
    /// After `-p`: a glob on the path below the root.
    Path(PathPattern),
    /// After `--regex`.
    Regex(RegexPattern),
    /// After `--path-regex`.
    PathRegex(RegexPattern),
}

impl AndPattern {
    /// Reads `value` as the kind of pattern the option `first` (its field's name)
    /// takes.
    fn parse(first: Option<&str>, value: &[u8]) -> Result<AndPattern, String> {
        match first {
            Some("name") => parse_pattern(value).map(AndPattern::Name),
            Some("path") => parse_path_pattern(value).map(AndPattern::Path),
            Some("regex") => parse_regex(value).map(AndPattern::Regex),
            Some("path_regex" | "full_path") => parse_regex(value).map(AndPattern::PathRegex),
            _ => Err("--and adds a pattern to the first of -n, -p, --regex or \
                      --path-regex, and none was given (e.g. pfind -n '*.rs' --and 'test_*')"
                .to_string()),
        }
    }
}
