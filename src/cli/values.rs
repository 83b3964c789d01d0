//! The value parsers every group of options uses: `text` and `bytes`, which read a
//! value as the shell passed it, `offering`, which gives completion scripts words to
//! offer; the whole numbers (depths, counts, threads), kept together so that they
//! word their limits alike; and [`Refused`], what a group says of a value it can
//! check only after clap. A parser of one option's own kind of value lives with
//! that option, in its group's file.

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

/// `--min-depth N`, `--exact-depth N`.
pub(super) fn parse_depth(value: &str) -> Result<usize, String> {
    whole_number(
        value,
        "the depth",
        0..=usize::MAX,
        " (a root's children are at 1)",
    )
}

/// `-d N`: said with what to type, since `-d -1` is most often meant as "no limit"
/// (issue 41).
pub(super) fn parse_max_depth(value: &str) -> Result<usize, String> {
    let note = " (-d 1 is a root's children; for every depth, leave -d out)";
    whole_number(value, "the depth", 0..=usize::MAX, note)
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

/// `--batch-size N`: a whole number, 0 for no limit.
pub(super) fn parse_batch_size(value: &str) -> Result<usize, String> {
    whole_number(value, "the batch size", 0..=usize::MAX, " (0: no limit)")
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

/// A command line refused by a group after clap has read it (once `-C` is entered,
/// or once every pattern is known); `cli::parse` words it as clap's own errors.
#[derive(Debug)]
pub(super) enum Refused {
    /// `value`, given to the option whose field is `id`, is refused: `why`.
    Value {
        id: &'static str,
        value: OsString,
        why: String,
    },
    /// Two options that cannot be used together: the whole message.
    Conflict(String),
}

impl Refused {
    /// `value` refused for the option whose field is `id`.
    pub(super) fn value(id: &'static str, value: &OsStr, why: impl Into<String>) -> Refused {
        let (value, why) = (value.to_owned(), why.into());
        Refused::Value { id, value, why }
    }
}
