//! The value parsers of the command line: each takes one option's value as typed
//! and gives it back checked and typed, or a message that says what is allowed.

use crate::filter::exclude::ExcludePattern;
use crate::filter::glob::{self, GlobPattern};
use crate::filter::normalize_extension;
use crate::filter::path::PathPattern;
use crate::filter::regex::RegexPattern;
use crate::filter::size::{parse_size, SizeFilter};
use crate::filter::time::{self, Nanos};
use crate::threads::MAX_THREADS;
use clap::builder::{OsStringValueParser, PossibleValue, TypedValueParser};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// A value parser for an option whose value is text: `parse` gets it as `&str`, and
/// a value that is not UTF-8 is refused with an error that names the option.
pub(super) fn text<T>(parse: fn(&str) -> Result<T, String>) -> impl TypedValueParser<Value = T>
where
    T: Clone + Send + Sync + 'static,
{
    OsStringValueParser::new().try_map(move |value: OsString| match value.to_str() {
        Some(text) => parse(text),
        None => Err("the value is not valid UTF-8".to_string()),
    })
}

/// `parser`, offering `words` (each with what it means) to the completion scripts:
/// clap lists a parser's possible values there, and checks nothing against them,
/// so `parser` still reads the value and words its errors. For `-t`, whose kinds
/// and families would otherwise complete as file names.
pub(super) fn offering<P: TypedValueParser>(
    parser: P,
    words: fn() -> Vec<(&'static str, &'static str)>,
) -> Offering<P> {
    Offering { parser, words }
}

#[derive(Clone)]
pub(super) struct Offering<P> {
    parser: P,
    words: fn() -> Vec<(&'static str, &'static str)>,
}

impl<P: TypedValueParser> TypedValueParser for Offering<P> {
    type Value = P::Value;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Self::Value, clap::Error> {
        self.parser.parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let words = (self.words)().into_iter();
        Some(Box::new(
            words.map(|(word, help)| PossibleValue::new(word).help(help)),
        ))
    }
}

/// A value parser for an option whose value is bytes, as `find -name` takes them.
pub(super) fn bytes<T>(parse: fn(&[u8]) -> Result<T, String>) -> impl TypedValueParser<Value = T>
where
    T: Clone + Send + Sync + 'static,
{
    OsStringValueParser::new().try_map(move |value: OsString| parse(value.as_bytes()))
}

/// The values of one occurrence of an option that takes a comma-separated list
/// (`-e jpg,png`, `-E .git,target`), each as typed (without the list's escapes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct List<T>(pub Vec<T>);

/// `-e EXT[,EXT...]`: split at each comma; `\,` is a literal comma and `\\` a
/// backslash, as in a glob list (see [`parse_pattern_list`]). Each extension is
/// kept as typed, for the warnings; [`normalize_extension`] makes it what the
/// matcher wants.
pub(super) fn parse_extension_list(value: &[u8]) -> Result<List<Box<[u8]>>, String> {
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
pub(super) fn parse_pattern_list(value: &[u8]) -> Result<List<ExcludePattern>, String> {
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
pub(super) fn parse_path_pattern(value: &[u8]) -> Result<PathPattern, String> {
    PathPattern::parse(value).map_err(|err| err.to_string())
}

/// One `-n`/`-E` glob, read (once: `into_config` compiles what this returns).
pub(super) fn parse_pattern(value: &[u8]) -> Result<GlobPattern, String> {
    GlobPattern::parse(value).map_err(|err| err.to_string())
}

/// `--path-separator SEP`: any bytes, the empty string included (as fd takes it).
pub(super) fn parse_separator(value: &[u8]) -> Result<Box<[u8]>, String> {
    Ok(value.into())
}

/// `--ignore-contain NAME`: any name but an empty one, as bytes.
pub(super) fn parse_marker(value: &[u8]) -> Result<Box<[u8]>, String> {
    if value.is_empty() {
        return Err("the name cannot be empty (e.g. --ignore-contain CACHEDIR.TAG)".to_string());
    }
    Ok(value.into())
}

/// One `--regex` or `--path-regex` pattern, read and checked.
pub(super) fn parse_regex(value: &[u8]) -> Result<RegexPattern, String> {
    RegexPattern::parse(value).map_err(|err| err.to_string())
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
    pub(super) fn parse(first: Option<&str>, value: &[u8]) -> Result<AndPattern, String> {
        match first {
            Some("name") => parse_pattern(value).map(AndPattern::Name),
            Some("full_path") => parse_path_pattern(value).map(AndPattern::Path),
            Some("regex") => parse_regex(value).map(AndPattern::Regex),
            Some("path_regex") => parse_regex(value).map(AndPattern::PathRegex),
            _ => Err("--and adds a pattern to the first of -n, -p, --regex or \
                      --path-regex, and none was given (e.g. pfind -n '*.rs' --and 'test_*')"
                .to_string()),
        }
    }
}

/// `--newer FILE`: FILE's modification time, its own and (when it is a link to
/// something) its target's, taken once while the command line is read; which one
/// counts depends on -L.
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    own: Nanos,
    target: Option<Nanos>,
}

impl Reference {
    pub(super) fn mtime(self, follow: bool) -> Nanos {
        match (follow, self.target) {
            (true, Some(target)) => target,
            _ => self.own,
        }
    }
}

/// `--newer FILE`, read now. A FILE that does not exist but reads as a time is what
/// fd's `--newer` (its `--changed-within`) takes: the message says where it goes.
pub(super) fn parse_newer(path: &OsStr) -> Result<Reference, String> {
    let own = std::fs::symlink_metadata(path).map_err(|err| {
        let cause = crate::report::describe(&err);
        let when = path.to_str().filter(|text| {
            err.kind() == std::io::ErrorKind::NotFound
                && time::parse_when(text, time::now()).is_ok()
        });
        match when {
            Some(when) => {
                let when = if when.contains(' ') {
                    format!("'{when}'")
                } else {
                    when.to_string()
                };
                format!(
                    "{cause} (--newer takes a FILE whose time to compare with; for a date \
                     or a duration, use --changed-within {when} or --changed-before {when})"
                )
            }
            None => cause,
        }
    })?;
    let target = std::fs::metadata(path).ok();
    let nanos = |meta: &std::fs::Metadata| {
        use std::os::unix::fs::MetadataExt;
        Nanos::from(meta.mtime()) * 1_000_000_000 + Nanos::from(meta.mtime_nsec())
    };
    Ok(Reference {
        own: nanos(&own),
        target: target.as_ref().map(nanos),
    })
}

pub(super) fn parse_when(value: &str) -> Result<Nanos, String> {
    time::parse_when(value, time::now())
}

pub(super) fn parse_depth(value: &str) -> Result<usize, String> {
    whole_number(value, "the depth", 0..=usize::MAX, "")
}

pub(super) fn parse_size_arg(value: &str) -> Result<SizeFilter, String> {
    parse_size(value).map_err(|err| err.to_string())
}

/// `--min-size SIZE`: a size without a sign, read as `-S +SIZE`.
pub(super) fn parse_min_size(value: &str) -> Result<SizeFilter, String> {
    unsigned_size(value, '+')
}

/// `--max-size SIZE`: a size without a sign, read as `-S -SIZE`.
pub(super) fn parse_max_size(value: &str) -> Result<SizeFilter, String> {
    unsigned_size(value, '-')
}

pub(super) fn unsigned_size(value: &str, sign: char) -> Result<SizeFilter, String> {
    if value.starts_with(['+', '-']) {
        return Err(format!(
            "give the size without a sign (e.g. 10mi); '{value}' has one"
        ));
    }
    parse_size(&format!("{sign}{value}")).map_err(|err| err.to_string())
}

/// `--max-results N`: 0 is no limit, as in fd.
pub(super) fn parse_max_results(value: &str) -> Result<u64, String> {
    whole_number(
        value,
        "the number of results",
        0..=u64::MAX,
        " (0: no limit)",
    )
}

pub(super) fn parse_threads(value: &str) -> Result<usize, String> {
    whole_number(value, "the thread count", 1..=MAX_THREADS, "")
}

/// A number option's value: a whole number in `range`, or a message that says which
/// numbers `what` may be. One message for every way out of the range (a sign, a
/// number past the type's limit, a fraction), as the range is the answer to each;
/// negative values reach here because their options allow negative numbers, so that
/// clap's "a value is required" (`-d -1`, `-1` being a flag) or "unexpected argument"
/// with its `-- -2` tip is never what is said (issue 38).
pub(super) fn whole_number<T>(
    value: &str,
    what: &str,
    range: std::ops::RangeInclusive<T>,
    note: &str,
) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match value.parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(format!(
            "{what} must be a whole number from {} to {}{note}",
            range.start(),
            range.end()
        )),
    }
}
