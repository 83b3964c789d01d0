//! `--regex` and `--path-regex`: regular expressions, in the syntax of the `regex`
//! crate (fd's and ripgrep's), matched as `regex::bytes` matches, so that a name
//! that is not UTF-8 is searched as the bytes it is, as every other filter does.
//! Unanchored, as fd's: `--regex rs` matches any name containing `rs`.
//!
//! The command line reads a pattern once, into a [`RegexPattern`], which checks it
//! and says where it is wrong; [`compile`] builds the matcher once `-i` is known.
//!
//! What people type most is a literal, a prefix (`^test_`), a suffix (`\.rs$`) or
//! a choice of those (`\.(jpg|png)$`). Those mean exactly what a glob says (`*rs*`,
//! `test_*`, `*.rs`, `*.jpg` or `*.png`), and a glob costs a name a few compares on
//! its fast path where the regex engine costs a search with its setup. So
//! [`compile`] reads the pattern's syntax tree, and when it is such a form (see
//! `literal_form`) builds the glob instead: the same answer on every name, at a
//! glob's cost. A differential test below checks the two agree, invalid UTF-8, case
//! folding and newlines included.
//!
//! `.`, `.*` and `.+` between them (`^test_.*\.py$`) are a glob's `?`, `*` and `?*`
//! on names of ASCII without a newline, where a regex's `.` is any character but a
//! newline, as a glob's `?` is. On any other name (rare) the engine answers: such a
//! pattern compiles to both ([`Pattern::Checked`]).

use super::glob::Glob;
use super::pattern::Pattern;
use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{Class, Hir, HirKind, Look};
use std::fmt;

/// A regular expression as typed, checked, before `-i` is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexPattern {
    text: String,
}

/// Why a pattern was refused: what is wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexError(String);

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Patterns and their compiled programs larger than this are refused: the `regex`
/// crate's own default (10 MiB), named here so the message can say it.
const SIZE_LIMIT: usize = 10 << 20;

/// The most strings a literal form may stand for before the regex engine, which
/// handles large alternations well, is the better matcher.
const MAX_LITERALS: usize = 16;

impl RegexPattern {
    /// Reads `pattern` (the option's value, as bytes), or says why it is refused, as
    /// one line with the position of the fault.
    pub fn parse(pattern: &[u8]) -> Result<RegexPattern, RegexError> {
        let Ok(text) = std::str::from_utf8(pattern) else {
            return Err(RegexError(
                "the pattern is not valid UTF-8 (write a byte that is not as (?-u:\\xFF))"
                    .to_string(),
            ));
        };
        let hir = parse_hir(text, false).map_err(|err| RegexError(describe(text, &err)))?;
        // The engine's own limits (the size of the compiled program) are only known
        // by building it; a literal form is far below them, and building it cost a
        // run 100,000 instructions more than the glob it becomes (callgrind).
        // With a `.`, the engine is built as well (see `Pattern::Checked`).
        if literal_form(&hir).is_none_or(|form| form.dots) {
            build(text, false).map_err(|err| RegexError(engine_error(&err)))?;
        }
        Ok(RegexPattern {
            text: text.to_string(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True when every string the pattern matches holds a `/`: on a name, which
    /// never does, it matches nothing (`--regex 'src/.*\.rs'`, a path typed where a
    /// name is tested). `[^/]` or `a|b/c` can still match a name.
    pub fn needs_slash(&self) -> bool {
        parse_hir(&self.text, false).is_ok_and(|hir| needs_byte(&hir, b'/'))
    }

    /// True when every name the pattern matches starts with `.` (`^\.git`): with
    /// `--no-hidden` it matches nothing. Only that plain form is recognised, as fd's
    /// check does.
    pub fn only_hidden(&self) -> bool {
        let Ok(hir) = parse_hir(&self.text, false) else {
            return false;
        };
        let HirKind::Concat(parts) = hir.kind() else {
            return false;
        };
        matches!(
            parts.first().map(Hir::kind),
            Some(HirKind::Look(Look::Start))
        ) && matches!(parts.get(1).map(Hir::kind), Some(HirKind::Literal(l)) if l.0.starts_with(b"."))
    }

    /// With `-i`, checks that the engine's program still fits its limit: folding
    /// case grows classes (`[a-z]{60000}` fits as typed, not with `-i`). Called once
    /// `-i` is known, so that [`compile`] cannot fail.
    pub fn check_ignoring_case(&self) -> Result<(), RegexError> {
        // Built whatever its form: a literal with an `s` or an `i` runs on the
        // engine under `-i` (see `as_glob`).
        build(&self.text, true).map_err(|err| RegexError(engine_error(&err)))?;
        Ok(())
    }
}

/// The matcher for a name (or a path) matching any of `patterns`; `ignore_case` is
/// `-i`. A glob when every pattern is a literal form, the regex engine otherwise.
pub fn compile(patterns: &[RegexPattern], ignore_case: bool) -> Pattern {
    let engine = || {
        (patterns.iter())
            .map(|pattern| build(&pattern.text, ignore_case).expect("checked when read"))
            .collect()
    };
    let mut dots = false;
    let globs: Option<Vec<Glob>> = (patterns.iter())
        .map(|pattern| as_glob(&pattern.text, ignore_case, &mut dots))
        .collect::<Option<Vec<Vec<Glob>>>>()
        .map(|lists| lists.into_iter().flatten().collect());
    match globs {
        Some(globs) if !globs.is_empty() && !dots => Pattern::Glob(Glob::any_of(globs)),
        Some(globs) if !globs.is_empty() => Pattern::Checked {
            glob: Glob::any_of(globs),
            engine: engine(),
        },
        _ => Pattern::Regex(engine()),
    }
}

fn build(text: &str, ignore_case: bool) -> Result<Regex, regex::Error> {
    RegexBuilder::new(text)
        .case_insensitive(ignore_case)
        .size_limit(SIZE_LIMIT)
        .build()
}

/// The syntax tree `regex::bytes` builds from `text` (it allows `(?-u:\xFF)`).
fn parse_hir(text: &str, ignore_case: bool) -> Result<Hir, Box<regex_syntax::Error>> {
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .case_insensitive(ignore_case)
        .build()
        .parse(text)
        .map_err(Box::new)
}

/// True when every match of `hir` holds the byte `byte`: a literal holding it, a class
/// of that byte alone, a sequence with one such part, a choice whose every branch is
/// one, or a repetition of one at least once.
fn needs_byte(hir: &Hir, byte: u8) -> bool {
    match hir.kind() {
        HirKind::Literal(literal) => literal.0.contains(&byte),
        HirKind::Class(class) => class.literal().is_some_and(|l| l == [byte]),
        HirKind::Capture(capture) => needs_byte(&capture.sub, byte),
        HirKind::Repetition(rep) => rep.min > 0 && needs_byte(&rep.sub, byte),
        HirKind::Concat(parts) => parts.iter().any(|part| needs_byte(part, byte)),
        HirKind::Alternation(branches) => branches.iter().all(|b| needs_byte(b, byte)),
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// One line: what is wrong, the character where (counting from 1), and the pattern
/// up to there, so that a long pattern's fault can be found by eye.
fn describe(text: &str, err: &regex_syntax::Error) -> String {
    let (kind, span) = match err {
        regex_syntax::Error::Parse(err) => (err.kind().to_string(), *err.span()),
        regex_syntax::Error::Translate(err) => (err.kind().to_string(), *err.span()),
        other => return other.to_string().replace('\n', " "),
    };
    let at = span.start.offset.min(text.len());
    let column = text[..at].chars().count() + 1;
    format!(
        "{kind}, at character {column}: '{}' <- here",
        &text[..=end_of_char(text, at)]
    )
    .replace("'' <- here", "at the start")
}

/// The index of the last byte of the character starting at `at` (or of the text's
/// last character, when `at` is its end).
fn end_of_char(text: &str, at: usize) -> usize {
    if text.is_empty() {
        return 0;
    }
    let at = at.min(text.len() - 1);
    let start = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    start + text[start..].chars().next().map_or(1, char::len_utf8) - 1
}

/// The engine's refusal, on one line (its messages may hold several).
fn engine_error(err: &regex::Error) -> String {
    match err {
        regex::Error::CompiledTooBig(limit) => format!(
            "the compiled pattern would exceed {limit} bytes (its repetitions or classes \
             are too large)"
        ),
        other => other
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The globs that mean what `text` means, when it is a literal form (see
/// [`literal_form`]); one glob per string of the form.
/// `dots` is set when a `.` became a `?` or `*` (see the module's comment).
fn as_glob(text: &str, ignore_case: bool, dots: &mut bool) -> Option<Vec<Glob>> {
    let hir = parse_hir(text, false).ok()?;
    let form = literal_form(&hir)?;
    *dots |= form.dots;
    // `-i`: the regex engine folds with Unicode's simple case folding, the glob
    // lowercases each character; checked over every character, they agree on ASCII
    // letters except `s`, which the engine also finds in the long s `ſ`, and `i`,
    // which the glob also finds in the dotted capital `İ` (lowercased `i̇`). Anything
    // else stays a regex.
    let foldable = |s: &[u8]| s.iter().all(|&b| b.is_ascii() && !b"iIsS".contains(&b));
    if ignore_case && !form.strings.iter().all(|s| foldable(s)) {
        return None;
    }
    let globs = form.strings.iter().map(|string| {
        let mut glob = Vec::with_capacity(string.len() + 2);
        if !form.anchored_start {
            glob.push(b'*');
        }
        glob.extend_from_slice(string);
        if !form.anchored_end {
            glob.push(b'*');
        }
        Glob::new(&glob, ignore_case).ok()
    });
    globs.collect()
}

/// A pattern that matches a name exactly when the name holds a match of one of the
/// globs `strings` (without their outer stars), at its start if `anchored_start`,
/// at its end if `anchored_end`; with `dots`, only on names of ASCII without a
/// newline.
#[derive(Debug, PartialEq, Eq)]
struct LiteralForm {
    anchored_start: bool,
    strings: Vec<Vec<u8>>,
    anchored_end: bool,
    dots: bool,
}

/// `^`, then a finite set of strings, then `$`, either anchor optional, each string
/// valid UTF-8 (a glob's characters are UTF-8 characters; a lone byte in a pattern
/// would be compared differently). The strings may be spelled with literals,
/// groups, alternations and small classes (`\.(jpe?g|png)` is not one: `?` is a
/// repetition, but `\.(jpg|jpeg|png)` is). At an unanchored end, a part that may
/// match nothing and tests no position (`.*`, `x?`) changes nothing whether a name
/// matches, and is dropped: `.*\.rs$` is `\.rs$`.
fn literal_form(hir: &Hir) -> Option<LiteralForm> {
    let mut parts: &[Hir] = match hir.kind() {
        HirKind::Concat(parts) => parts,
        _ => std::slice::from_ref(hir),
    };
    let is = |part: Option<&Hir>, look: Look| {
        part.is_some_and(|part| *part.kind() == HirKind::Look(look))
    };
    let anchored_start = is(parts.first(), Look::Start);
    if anchored_start {
        parts = &parts[1..];
    }
    let anchored_end = is(parts.last(), Look::End);
    if anchored_end {
        parts = &parts[..parts.len() - 1];
    }
    let optional = |part: &Hir| {
        part.properties().minimum_len() == Some(0) && part.properties().look_set().is_empty()
    };
    if !anchored_start {
        while parts.first().is_some_and(optional) {
            parts = &parts[1..];
        }
    }
    if !anchored_end {
        while parts.last().is_some_and(optional) {
            parts = &parts[..parts.len() - 1];
        }
    }
    let mut strings = vec![Vec::new()];
    let mut dots = false;
    for part in parts {
        strings = product(&strings, &expand(part, &mut dots)?)?;
    }
    if strings.iter().any(|s| std::str::from_utf8(s).is_err()) {
        return None;
    }
    Some(LiteralForm {
        anchored_start,
        strings,
        anchored_end,
        dots,
    })
}

/// The literal `bytes` as glob text: `*`, `?`, `[` and `\` escaped.
fn escaped(bytes: &[u8]) -> Vec<u8> {
    let mut glob = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        if matches!(byte, b'*' | b'?' | b'[' | b'\\') {
            glob.push(b'\\');
        }
        glob.push(byte);
    }
    glob
}

/// True when `class` holds every ASCII character but the newline (a regex's `.`;
/// `(?s).` and classes holding more are the same on the names it is trusted with).
fn is_dot(class: &Class) -> bool {
    let holds = |c: u8| match class {
        Class::Unicode(class) => (class.ranges().iter())
            .any(|range| (range.start()..=range.end()).contains(&char::from(c))),
        Class::Bytes(class) => {
            (class.ranges().iter()).any(|range| (range.start()..=range.end()).contains(&c))
        }
    };
    (0..0x80u8).filter(|&c| c != b'\n').all(holds)
}

/// The globs (as text) for what `hir` matches, if they are few and it tests no
/// position; `dots` is set when a `.` became `?` or `*`.
fn expand(hir: &Hir, dots: &mut bool) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Empty => Some(vec![Vec::new()]),
        HirKind::Literal(literal) => Some(vec![escaped(&literal.0)]),
        HirKind::Class(class) if is_dot(class) => {
            *dots = true;
            Some(vec![b"?".to_vec()])
        }
        HirKind::Repetition(rep) => {
            let HirKind::Class(class) = rep.sub.kind() else {
                return None;
            };
            let glob: &[u8] = match (rep.min, rep.max) {
                (0, None) => b"*",
                (1, None) => b"?*",
                _ => return None,
            };
            *dots = true;
            is_dot(class).then(|| vec![glob.to_vec()])
        }
        HirKind::Class(Class::Unicode(class)) => {
            let chars = class
                .ranges()
                .iter()
                .flat_map(|range| range.start()..=range.end());
            let strings: Vec<Vec<u8>> = chars
                .take(MAX_LITERALS + 1)
                .map(|c| escaped(c.to_string().as_bytes()))
                .collect();
            (strings.len() <= MAX_LITERALS).then_some(strings)
        }
        HirKind::Class(Class::Bytes(class)) => {
            let bytes = class
                .ranges()
                .iter()
                .flat_map(|range| range.start()..=range.end());
            let strings: Vec<Vec<u8>> = bytes
                .take(MAX_LITERALS + 1)
                .map(|b| escaped(&[b]))
                .collect();
            (strings.len() <= MAX_LITERALS).then_some(strings)
        }
        HirKind::Capture(capture) => expand(&capture.sub, dots),
        HirKind::Concat(parts) => parts.iter().try_fold(vec![Vec::new()], |strings, part| {
            product(&strings, &expand(part, dots)?)
        }),
        HirKind::Alternation(choices) => {
            let mut strings = Vec::new();
            for choice in choices {
                strings.extend(expand(choice, dots)?);
                if strings.len() > MAX_LITERALS {
                    return None;
                }
            }
            Some(strings)
        }
        HirKind::Look(_) => None,
    }
}

/// Every string of `left` followed by every string of `right`, if not too many.
fn product(left: &[Vec<u8>], right: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if left.len() * right.len() > MAX_LITERALS {
        return None;
    }
    let joined = left
        .iter()
        .flat_map(|l| right.iter().map(move |r| [&l[..], r].concat()));
    Some(joined.collect())
}

/// True when `glob` reads as a regular expression rather than a glob: it starts with
/// `^`, ends with a `$` that is not escaped, or holds `\.` or another backslash
/// before a letter of a regular expression's classes (`\d`, `\w`, `\s`, `\b`), `.+`,
/// or `.*` between two other characters. `.*` at either end is a glob of its own
/// (`.*rc`, hidden names; `name.*`, any extension) and does not count. Each sign can
/// be written so that it does not trigger: `\^`, `\$`, `.` (a dot needs no escape).
pub fn looks_like_regex(glob: &[u8]) -> bool {
    if glob.starts_with(b"^") || ends_in_unescaped(glob, b'$') {
        return true;
    }
    let mut i = 0;
    while i < glob.len() {
        match (glob[i], glob.get(i + 1)) {
            (b'\\', Some(b'.' | b'd' | b'D' | b'w' | b'W' | b's' | b'S' | b'b' | b'B')) => {
                return true
            }
            (b'\\', _) => i += 1,
            (b'.', Some(b'+')) => return true,
            (b'.', Some(b'*')) if i > 0 && i + 2 < glob.len() => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// True when `text` ends in `byte` and that byte is not escaped by a backslash (an
/// even number of backslashes before it).
pub fn ends_in_unescaped(text: &[u8], byte: u8) -> bool {
    let Some((&last, before)) = text.split_last() else {
        return false;
    };
    let backslashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
    last == byte && backslashes % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anchored at the start, the globs, anchored at the end, with a `.`.
    type Form = (bool, Vec<&'static str>, bool, bool);

    fn form(text: &str) -> Option<Form> {
        let form = literal_form(&parse_hir(text, false).unwrap())?;
        let strings = (form.strings.iter())
            .map(|s| &*String::from_utf8(s.clone()).unwrap().leak())
            .collect();
        Some((form.anchored_start, strings, form.anchored_end, form.dots))
    }

    #[test]
    fn regex_signs() {
        let cases: &[(&str, bool)] = &[
            (".*\\.rs$", true),
            ("^main", true),
            ("main.rs$", true),
            ("\\.rs", true),
            ("a.+b", true),
            ("\\d\\d", true),
            ("test_.*_x", true),
            // Globs that only look a little like one.
            ("*.rs", false),
            (".*", false),     // hidden names
            (".*rc", false),   // hidden names ending in rc
            ("name.*", false), // any extension
            ("IMG_????.*", false),
            ("[^a]*", false), // a negated set
            ("a\\$", false),  // an escaped dollar is a dollar
            ("\\^x", false),
            ("a\\\\$", true), // an escaped backslash, then the end anchor
            ("price$$", true),
            ("", false),
            ("$", true),
            ("^", true),
        ];
        for &(glob, want) in cases {
            assert_eq!(looks_like_regex(glob.as_bytes()), want, "{glob}");
        }
    }

    #[test]
    fn literal_forms_are_recognised() {
        let cases: &[(&str, Option<Form>)] = &[
            ("foo", Some((false, vec!["foo"], false, false))),
            ("^foo", Some((true, vec!["foo"], false, false))),
            (r"\.rs$", Some((false, vec![".rs"], true, false))),
            ("^Makefile$", Some((true, vec!["Makefile"], true, false))),
            (r".*\.rs$", Some((false, vec![".rs"], true, false))),
            ("^test_.*", Some((true, vec!["test_"], false, false))),
            (
                r"\.(jpg|png)$",
                Some((false, vec![".jpg", ".png"], true, false)),
            ),
            ("^(a|b)c", Some((true, vec!["ac", "bc"], false, false))),
            ("é", Some((false, vec!["é"], false, false))),
            ("", Some((false, vec![""], false, false))),
            (r"a\*b\?", Some((false, vec![r"a\*b\?"], false, false))),
            // `.` is `?`, `.*` `*` and `.+` `?*`, trusted on ASCII names only.
            (r"^a.*b$", Some((true, vec!["a*b"], true, true))),
            ("^.*foo", Some((true, vec!["*foo"], false, true))),
            (
                r"^test_.+\.py$",
                Some((true, vec!["test_?*.py"], true, true)),
            ),
            ("a.c", Some((false, vec!["a?c"], false, true))),
            ("(?s)^a.b$", Some((true, vec!["a?b"], true, true))),
            // A repetition, a position test, a large class, a lone byte: the engine.
            (r"\.jpe?g$", None),
            (r"^a.{2}b", None),
            (r"^a[^x]*b", None),
            (r"\bfoo", None),
            (r"^\d", None),
            ("(?m)^foo", None),
            (r"(?-u:\xff)", None),
        ];
        for (text, want) in cases {
            assert_eq!(&form(text), want, "{text}");
        }
    }

    #[test]
    fn errors_say_where() {
        let err = RegexPattern::parse(b"ab(c").unwrap_err().to_string();
        assert_eq!(err, "unclosed group, at character 3: 'ab(' <- here");
        let err = RegexPattern::parse(b"*x").unwrap_err().to_string();
        assert!(
            err.starts_with("repetition operator missing expression, at character 1"),
            "{err}"
        );
        let err = RegexPattern::parse("é[z-a]".as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("at character 3: 'é[z' <- here"), "{err}");
        let err = RegexPattern::parse(br"\p{Nope}").unwrap_err().to_string();
        assert!(err.contains("at character 1"), "{err}");
        let err = RegexPattern::parse(b"a\xff").unwrap_err().to_string();
        assert!(err.contains("not valid UTF-8"), "{err}");
        let err = RegexPattern::parse(b"(a{1000}){1000}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("exceed"), "{err}");
        let folds = RegexPattern::parse(b"(?:[a-z]{60000})").unwrap();
        let err = folds.check_ignoring_case().unwrap_err().to_string();
        assert!(err.contains("exceed"), "{err}");
        assert!(RegexPattern::parse(b"[a-z]{9}")
            .unwrap()
            .check_ignoring_case()
            .is_ok());
        // A long literal form with dots is refused when read, never when compiled.
        let dotted = "a.".repeat(150_000);
        let err = RegexPattern::parse(dotted.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("exceed"), "{err}");
        assert!(!err.contains('\n'), "{err}");
        assert!(RegexPattern::parse(br"(?-u:\xff)").is_ok());
    }

    /// What the engine says, on the name as bytes.
    fn engine(patterns: &[&str], ignore_case: bool, name: &[u8]) -> bool {
        patterns
            .iter()
            .any(|p| build(p, ignore_case).unwrap().is_match(name))
    }

    /// A literal form compiled as a glob must answer as the regex engine does, on
    /// names that are not UTF-8, hold newlines, or hold letters whose case folds
    /// beyond ASCII (the Kelvin sign, the long s, the dotted I).
    #[test]
    fn globs_agree_with_the_engine() {
        let patterns = [
            "a",
            "^a",
            "a$",
            "^ab$",
            r"\.rs$",
            "^(x|ab)",
            "é",
            "^é.$",
            "b(c|é)",
            "[ab]c$",
            "^$",
            "",
            r"\*",
            r"^\?",
            "K",
            "s$",
            "(?i)k",
            "i",
            "I",
            "\n",
            r"^a.*b$",
            "^.+K",
            "a.c",
            "(?s)^a.b$",
            r"(?-u)^a.b$",
            "^.*$",
            "^x?.$",
            "^é.*$",
            r"\.(jpg|png)$",
            r"(g|\.jpg|xx\.png|a\.jpg\.b)$",
        ];
        let alphabet: &[&[u8]] = &[
            b"jpg",
            b"png",
            b"JPG",
            b".jpg",
            b"xx",
            b"12345678",
            b"a",
            b"b",
            b"c",
            b"A",
            b"k",
            b"K",
            b"s",
            b"S",
            b"i",
            b"I",
            b".",
            b"rs",
            b"x",
            b"*",
            b"?",
            b"\n",
            "é".as_bytes(),
            "É".as_bytes(),
            "\u{212a}".as_bytes(),
            "\u{17f}".as_bytes(),
            "\u{130}".as_bytes(),
            b"\xc3",
            b"\xa9",
            b"\xff",
            b"\xe2\x84",
        ];
        let mut rng = fastrand::Rng::with_seed(27);
        let mut routed = 0;
        for ignore_case in [false, true] {
            for pattern in patterns {
                let compiled = compile(
                    &[RegexPattern::parse(pattern.as_bytes()).unwrap()],
                    ignore_case,
                );
                let glob = matches!(compiled, Pattern::Glob(_) | Pattern::Checked { .. });
                routed += usize::from(glob);
                for _ in 0..400 {
                    let name: Vec<u8> = (0..rng.usize(0..6))
                        .flat_map(|_| alphabet[rng.usize(..alphabet.len())].iter().copied())
                        .collect();
                    assert_eq!(
                        compiled.matches(&name),
                        engine(&[pattern], ignore_case, &name),
                        "{pattern:?} (-i: {ignore_case}) on {name:?}"
                    );
                }
            }
        }
        assert!(routed >= 30, "too few patterns took the glob: {routed}");
    }

    #[test]
    fn several_patterns_match_any() {
        let parse = |p: &str| RegexPattern::parse(p.as_bytes()).unwrap();
        let globs = compile(&[parse(r"\.rs$"), parse("^Make")], false);
        assert!(matches!(globs, Pattern::Glob(_)));
        let mixed = compile(&[parse(r"\.rs$"), parse(r"^\d+$")], false);
        assert!(matches!(mixed, Pattern::Regex(_)));
        for pattern in [&globs, &mixed] {
            assert!(pattern.matches(b"main.rs"));
            assert!(!pattern.matches(b"main.c"));
        }
        assert!(globs.matches(b"Makefile") && !mixed.matches(b"Makefile"));
        let dotted = compile(&[parse(r"^file_00.*\.jpg$")], false);
        assert!(matches!(dotted, Pattern::Checked { .. }), "{dotted:?}");
        assert!(mixed.matches(b"123") && !globs.matches(b"123"));
        // -i folds both forms.
        assert!(compile(&[parse(r"\.RS$")], true).matches(b"MAIN.rs"));
        assert!(compile(&[parse(r"^\d+X$")], true).matches(b"12x"));
    }

    #[test]
    fn patterns_only_hidden_names_match() {
        let only = |p: &str| RegexPattern::parse(p.as_bytes()).unwrap().only_hidden();
        for pattern in [r"^\.gitignore", r"^\.", r"^\.git$", r"^\.a(b|c)"] {
            assert!(only(pattern), "{pattern}");
        }
        for pattern in [r"\.gitignore", r"^.git", r"^[.]?x", r"^\.a|b", "^a", ""] {
            assert!(!only(pattern), "{pattern}");
        }
    }

    #[test]
    fn patterns_that_need_a_slash() {
        let needs = |p: &str| RegexPattern::parse(p.as_bytes()).unwrap().needs_slash();
        for pattern in [
            "a/b",
            "/",
            r"src/.*\.rs$",
            "(x|y)/z",
            "a(/)+",
            "[/]",
            r"\x2F",
            "(a/|/b)",
        ] {
            assert!(needs(pattern), "{pattern}");
        }
        // Each of these can match a name.
        for pattern in ["[^/]+", "a|b/c", "a/?", "a(/)*", "[/a]", "", "^$", r"\.rs$"] {
            assert!(!needs(pattern), "{pattern}");
        }
    }
}
