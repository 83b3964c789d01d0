//! Brace alternatives (issue 30): `*.{rs,toml}` matches what `*.rs` or `*.toml`
//! matches, as fd's globs and bash read it; glibc's `fnmatch`, and so `find -name`,
//! take braces literally. A pattern with groups is read as the list of patterns its
//! groups expand to (`*.rs`, `*.toml`), each an ordinary glob, and the compiled glob
//! matches a name when any of them does: exact, and a pattern without a group is
//! read and matched exactly as before.
//!
//! A group is a `{` with a matching `}` (nested groups pair up as brackets do) and a
//! comma at its own level; its alternatives are what lies between those commas, and
//! may be empty or hold groups of their own (`file{,.bak}`, `{a,b{1,2}}`). Any other
//! brace is a character: one that is escaped (`\{`), inside a bracket expression
//! (`[{}]`), without a partner (`{a,b`), or around no comma (`{}`, `{a}`; bash
//! leaves those alone too). There are no ranges (`{1..3}`). A pattern may expand to
//! at most [`MAX_ALTERNATIVES`] patterns, and to no more characters in all than
//! [`EXPANSION_FACTOR`] times its own length (plus a little), so that reading it
//! stays linear in its length.

use super::chars::{is, work};
use super::parse::{self, GlobError};

/// The most patterns a glob's groups may expand to.
pub const MAX_ALTERNATIVES: u64 = 1024;

/// The expanded patterns may hold this many times the pattern's characters, plus
/// [`EXPANSION_ALLOWANCE`], in all.
pub const EXPANSION_FACTOR: u64 = 16;
const EXPANSION_ALLOWANCE: u64 = 65_536;

/// No group closes here.
const NONE: usize = usize::MAX;

/// Where each group of `p` closes: for the index of a `{` that opens a group, the
/// index of its `}`; [`NONE`] everywhere else. `None` when `p` has no group.
pub(super) fn groups(p: &[u32]) -> Option<Vec<usize>> {
    // Most patterns have no brace: they are read as they were, and no more.
    if !p.iter().any(|&c| is(c, b'{')) {
        return None;
    }
    let bracket_end = parse::bracket_ends(p);
    let mut close = Vec::new();
    // Open braces not yet matched, each with whether a comma is at its level.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut i = 0;
    while i < p.len() {
        work(1);
        let c = p[i];
        if is(c, b'\\') {
            i += 2;
            continue;
        }
        if is(c, b'[') {
            i = bracket_end(i).unwrap_or(i + 1);
            continue;
        }
        if is(c, b'{') {
            open.push((i, false));
        } else if is(c, b',') {
            if let Some(top) = open.last_mut() {
                top.1 = true;
            }
        } else if is(c, b'}') {
            if let Some((start, true)) = open.pop() {
                if close.is_empty() {
                    close = vec![NONE; p.len()];
                }
                close[start] = i;
            }
        }
        i += 1;
    }
    (!close.is_empty()).then_some(close)
}

/// The end of what starts at `i` and is read as a whole when looking for commas and
/// groups: past an escape, a bracket expression or a group.
fn step(
    p: &[u32],
    close: &[usize],
    bracket_end: &impl Fn(usize) -> Option<usize>,
    i: usize,
) -> usize {
    let c = p[i];
    if is(c, b'\\') {
        (i + 2).min(p.len())
    } else if is(c, b'[') {
        bracket_end(i).unwrap_or(i + 1)
    } else if close[i] != NONE {
        close[i] + 1
    } else {
        i + 1
    }
}

/// The patterns `text` (whose characters are `p`, with groups closing as `close`
/// says) expands to, or why there would be too many.
pub(super) fn expand(text: &[u8], p: &[u32], close: &[usize]) -> Result<Vec<Vec<u8>>, GlobError> {
    // Byte offset of each character, and of the end.
    let mut at = Vec::with_capacity(p.len() + 1);
    let mut offset = 0;
    for &c in p {
        at.push(offset);
        offset += match char::from_u32(c) {
            Some(ch) if !(0xdc00..=0xdcff).contains(&c) => ch.len_utf8(),
            _ => 1,
        };
    }
    at.push(offset);
    let expander = Expander {
        text,
        p,
        close,
        at,
        bracket_end: parse::bracket_ends(p),
    };
    let (count, chars) = expander.size(0, p.len());
    let room = EXPANSION_FACTOR * p.len() as u64 + EXPANSION_ALLOWANCE;
    if count > MAX_ALTERNATIVES || chars > room {
        return Err(GlobError::new(format!(
            "its brace alternatives expand to more than {MAX_ALTERNATIVES} patterns or \
             {EXPANSION_FACTOR} times its length"
        )));
    }
    Ok(expander.expand(0, p.len()))
}

struct Expander<'p, B> {
    text: &'p [u8],
    p: &'p [u32],
    close: &'p [usize],
    at: Vec<usize>,
    bracket_end: B,
}

impl<B: Fn(usize) -> Option<usize>> Expander<'_, B> {
    /// The ranges of the alternatives of the group that opens at `open`.
    fn alternatives(&self, open: usize) -> Vec<(usize, usize)> {
        let end = self.close[open];
        let mut ranges = Vec::new();
        let (mut start, mut i) = (open + 1, open + 1);
        while i < end {
            work(1);
            if is(self.p[i], b',') {
                ranges.push((start, i));
                start = i + 1;
            }
            i = step(self.p, self.close, &self.bracket_end, i);
        }
        ranges.push((start, end));
        ranges
    }

    /// How many patterns `start..end` expands to, and how many characters they hold
    /// in all; both saturate, as only whether they are too many matters then. Its
    /// depth is that of the groups, which a pattern of [`MAX_ALTERNATIVES`] patterns
    /// or fewer cannot nest deeper than that; deeper ones stop counting there.
    fn size(&self, start: usize, end: usize) -> (u64, u64) {
        self.size_at(start, end, 0)
    }

    fn size_at(&self, start: usize, end: usize, depth: u64) -> (u64, u64) {
        if depth > MAX_ALTERNATIVES {
            return (u64::MAX, u64::MAX);
        }
        // The product so far: (patterns, characters in all).
        let (mut count, mut chars) = (1u64, 0u64);
        let mut i = start;
        while i < end {
            work(1);
            let next = step(self.p, self.close, &self.bracket_end, i);
            if self.close[i] == NONE {
                chars = chars.saturating_add(count.saturating_mul((next - i) as u64));
            } else {
                let (mut alt_count, mut alt_chars) = (0u64, 0u64);
                for (from, to) in self.alternatives(i) {
                    let (c, l) = self.size_at(from, to, depth + 1);
                    alt_count = alt_count.saturating_add(c);
                    alt_chars = alt_chars.saturating_add(l);
                }
                chars = chars
                    .saturating_mul(alt_count)
                    .saturating_add(alt_chars.saturating_mul(count));
                count = count.saturating_mul(alt_count);
            }
            if count > MAX_ALTERNATIVES {
                return (count, chars);
            }
            i = next;
        }
        (count, chars)
    }

    /// The patterns `start..end` expands to, as bytes of the original text.
    fn expand(&self, start: usize, end: usize) -> Vec<Vec<u8>> {
        let mut patterns = vec![Vec::new()];
        let mut i = start;
        while i < end {
            work(1);
            let next = step(self.p, self.close, &self.bracket_end, i);
            if self.close[i] == NONE {
                let bytes = &self.text[self.at[i]..self.at[next]];
                patterns
                    .iter_mut()
                    .for_each(|pattern| pattern.extend_from_slice(bytes));
            } else {
                let choices: Vec<Vec<u8>> = (self.alternatives(i).into_iter())
                    .flat_map(|(from, to)| self.expand(from, to))
                    .collect();
                patterns = (patterns.iter())
                    .flat_map(|pattern| {
                        choices
                            .iter()
                            .map(move |choice| [&pattern[..], choice].concat())
                    })
                    .collect();
            }
            i = next;
        }
        patterns
    }
}

#[cfg(test)]
mod tests {
    use super::super::chars::{decode_all, WORK};
    use super::super::{split_list, Glob, GlobPattern};
    use super::*;

    /// What `pattern` expands to, empty patterns left out (bash drops empty words).
    fn expansions(pattern: &[u8]) -> Vec<Vec<u8>> {
        let chars = decode_all(pattern);
        let Some(close) = groups(&chars) else {
            return [pattern.to_vec()]
                .into_iter()
                .filter(|one| !one.is_empty())
                .collect();
        };
        let mut all = expand(pattern, &chars, &close).unwrap();
        all.retain(|one| !one.is_empty());
        all
    }

    #[test]
    fn groups_expand_as_bash_expands_braces() {
        let cases: &[(&str, &[&str])] = &[
            ("*.{rs,toml}", &["*.rs", "*.toml"]),
            ("file{,.bak}", &["file", "file.bak"]),
            ("x{a,b{1,2}}y", &["xay", "xb1y", "xb2y"]),
            ("{a,b}{c,d}", &["ac", "ad", "bc", "bd"]),
            // Literal braces: no partner, no comma, escaped, in a set.
            ("{a,b", &["{a,b"]),
            ("{a}", &["{a}"]),
            ("{}", &["{}"]),
            ("\\{a,b}", &["\\{a,b}"]),
            ("[{]a,b}", &["[{]a,b}"]),
            ("{a,[,}]}", &["a", "[,}]"]),
            ("{{a,b}", &["{a", "{b"]),
            ("{a,b}}", &["a}", "b}"]),
            ("{a,\\,b}", &["a", "\\,b"]),
        ];
        for &(pattern, want) in cases {
            let want: Vec<Vec<u8>> = want.iter().map(|w| w.as_bytes().to_vec()).collect();
            assert_eq!(expansions(pattern.as_bytes()), want, "{pattern}");
        }
        // Bytes that are not UTF-8 are kept as they are.
        assert_eq!(
            expansions(b"{\xff,\xc3\xa9}x"),
            [b"\xffx".to_vec(), "éx".as_bytes().to_vec()]
        );
    }

    /// Where bash and pfind part: a pair of braces around no comma is literal to
    /// both, but bash then looks on past its `}` for one that closes a group with a
    /// comma (`{a}b,c}` is `a}b` and `c` to bash), and pfind does not.
    fn has_a_pair_without_comma(pattern: &[u8]) -> bool {
        let mut open: Vec<bool> = Vec::new();
        for &b in pattern {
            match b {
                b'{' => open.push(false),
                b',' => open.last_mut().into_iter().for_each(|comma| *comma = true),
                b'}' if open.pop() == Some(false) => return true,
                _ => {}
            }
        }
        false
    }

    #[test]
    fn a_pair_without_comma_is_literal_where_bash_would_look_further() {
        assert!(has_a_pair_without_comma(b"{a}b,c}"));
        assert_eq!(expansions(b"{a}b,c}"), [b"{a}b,c}".to_vec()]);
        assert!(!has_a_pair_without_comma(b"{a,b}{c"));
    }

    /// Random patterns of letters, braces, commas and stars, expanded by bash (with
    /// pathname expansion off) and here: the same patterns in the same order,
    /// except where [`has_a_pair_without_comma`].
    #[test]
    fn random_patterns_expand_as_in_bash() {
        let mut rng = fastrand::Rng::with_seed(30);
        let alphabet = b"ab{},*";
        let patterns: Vec<Vec<u8>> = (0..2000)
            .map(|_| {
                let len = rng.usize(0..12);
                (0..len)
                    .map(|_| alphabet[rng.usize(..alphabet.len())])
                    .collect()
            })
            .collect();
        let script = "set -f; while IFS= read -r p; do eval \"printf '[%s]' $p\"; echo; done";
        let mut child = std::process::Command::new("bash")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("bash is needed for this test");
        let input: Vec<u8> = patterns
            .iter()
            .flat_map(|p| [&p[..], b"\n"].concat())
            .collect();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
        let mut compared = 0;
        for (pattern, line) in patterns.iter().zip(&lines) {
            if has_a_pair_without_comma(pattern) {
                continue;
            }
            compared += 1;
            let from_bash: Vec<Vec<u8>> = (line.strip_prefix(b"[").unwrap_or(line))
                .strip_suffix(b"]")
                .map(|inner| {
                    inner
                        .split(|&b| b == b']')
                        .map(|w| w.strip_prefix(b"[").unwrap_or(w).to_vec())
                        .collect()
                })
                .unwrap_or_default();
            let from_bash: Vec<Vec<u8>> = from_bash.into_iter().filter(|w| !w.is_empty()).collect();
            assert_eq!(
                expansions(pattern),
                from_bash,
                "{}",
                String::from_utf8_lossy(pattern)
            );
        }
        assert!(compared > 1000, "{compared} patterns compared");
    }

    #[test]
    fn a_glob_with_groups_matches_what_any_alternative_matches() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.{rs,toml}", "main.rs", true),
            ("*.{rs,toml}", "Cargo.toml", true),
            ("*.{rs,toml}", "a.c", false),
            ("*.{rs,toml}", "a.{rs,toml}", false),
            ("file{,.bak}", "file", true),
            ("file{,.bak}", "file.bak", true),
            ("{a}", "{a}", true),
            ("{a}", "a", false),
            ("\\{a,b\\}", "{a,b}", true),
            ("[!{]*.{c,h}", "x.h", true),
            ("[!{]*.{c,h}", "{.h", false),
            ("{[0-9],x}?", "7z", true),
        ];
        for &(pattern, name, want) in cases {
            let glob = Glob::new(pattern.as_bytes(), false).unwrap();
            assert_eq!(glob.matches(name.as_bytes()), want, "{pattern} {name}");
        }
        let folded = Glob::new(b"*.{JPG,png}", true).unwrap();
        assert!(folded.matches(b"a.jpg") && folded.matches(b"B.PNG"));
        // Each alternative is checked as any glob is.
        let err = GlobPattern::parse(b"{a,[z-a]}").unwrap_err().to_string();
        assert!(err.contains("z-a"), "{err}");
    }

    #[test]
    fn lists_keep_a_group_whole() {
        let pieces = split_list(b"*.{o,a},target,{x,y");
        assert_eq!(pieces, [&b"*.{o,a}"[..], b"target", b"{x", b"y"]);
    }

    #[test]
    fn too_many_alternatives_are_refused_and_reading_stays_linear() {
        // 2^10 = 1024 patterns are fine; 2^11 are not.
        assert!(GlobPattern::parse(&b"{a,b}".repeat(10)).is_ok());
        let err = GlobPattern::parse(&b"{a,b}".repeat(11))
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than 1024 patterns"), "{err}");
        // A long literal with a few groups: sixteen times its length (and 64 KiB)
        // is the limit.
        let long = [&b"{a,b}{c,d}{e,f}{g,h}{i,j}"[..], &b"x".repeat(10_000)].concat();
        assert!(GlobPattern::parse(&long).is_err());
        // Work is counted, not timed: twice the length, at most about twice the steps,
        // for nested groups, sequences of groups, and braces that pair with nothing.
        let steps = |pattern: &[u8]| {
            WORK.with(|work| work.set(0));
            let _ = GlobPattern::parse(pattern);
            WORK.with(|work| work.get())
        };
        let hostile: [fn(usize) -> Vec<u8>; 4] = [
            |n| [b"{a,".repeat(n), b"}".repeat(n)].concat(),
            |n| b"{a,b}".repeat(n),
            |n| b"{".repeat(n),
            |n| [b"{,".repeat(n), b"x".repeat(n)].concat(),
        ];
        for make in hostile {
            let (small, large) = (steps(&make(20_000)), steps(&make(40_000)));
            assert!(large <= 2 * small + 1000, "{small} -> {large} steps");
        }
    }
}
