//! Reading a pattern's characters into [`Token`]s, in time linear in its length
//! whatever it holds.
//!
//! Bracket expressions are read as glibc's `fnmatch` (2.36) reads them when the name's
//! character is none of their members: after `[` and an optional `!` or `^`, members
//! up to a `]` that is not the first; a member is a character (`\` escaping the next
//! one), a range `a-z` (its end may be escaped or `[.c.]`), a class `[:alpha:]`, or
//! `[=c=]` or `[.c.]`, which in C.UTF-8 (no equivalences, no named symbols) are the
//! character `c`. A `[` whose members run into the end of the pattern is a literal
//! `[`, and so is a `[:` not followed by a class name and `:]`.
//!
//! glibc gives some patterns no single meaning, and pfind refuses those, saying why
//! (its other refusals: a reversed range, and a name that looks like a class's but
//! is none, `[[:Alpha:]]`, which glibc reads as a set). glibc matches nothing at all
//! from a bracket expression holding an unknown class name (`[:foo:]`), a `[.` not
//! closed by `.]` (`[[.]`), a `[.abc.]` or `[..]`, or a lone `\` or a range's `-` at
//! the end of the pattern, except the characters that a member before that one
//! matches (`[a[.xy.]]` matches `a`). And once a member matches, glibc skips the rest
//! of the expression with simpler rules, so where those read it differently its end
//! depends on the character: a range ending at `[` before `:` or `=` (`[xA-[:alpha:]]`
//! matches `x` and `B]`, not `x]`), a `[=` that is not `[=c=]` (`[a[=]` matches `=`,
//! not `a`), a `[:` followed by 2,047 lowercase letters. pfind refuses all of these
//! wherever they are.
//!
//! glibc rereads the rest of the pattern at each `[` it finds unterminated, and so did
//! pfind's compiler before this one, once per `[` (and per `[.` in it): `'[[.' * 3000`
//! took a minute. Here how reading members from each position on ends is computed
//! once for every position, right to left, each from a later one (a member ends after
//! it starts); a `[` looks its ending up, and only a `[` that makes a class walks its
//! members again. Where a `[.` ends is looked up the same way.

use super::chars::{is, show, work, NAMED};
use super::token::{Class, Item, Token};
use std::fmt;

/// Why a pattern was refused; shown by clap after "invalid value 'GLOB' for ...".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobError(String);

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GlobError {}

impl GlobError {
    pub(in crate::filter) fn new(reason: String) -> GlobError {
        GlobError(reason)
    }
}

/// The most lowercase letters glibc's skip reads after `[:` before it gives up on
/// the whole match (`CHARCLASS_NAME_MAX`, 2048, less one).
const LONGEST_CLASS_RUN: usize = 2047;

/// For `glob::split_list`, which keeps a comma inside a set: where the bracket
/// expression opened by the `[` at `open` ends (the index after its `]`), or `None`
/// when that `[` is literal or the expression is refused.
pub(super) fn bracket_ends(p: &[u32]) -> impl Fn(usize) -> Option<usize> + '_ {
    let brackets = Brackets::new(p);
    move |open| brackets.expression(open).ok().flatten().map(|(_, end)| end)
}

/// Turns the pattern's characters into tokens.
pub(super) fn parse(p: &[u32]) -> Result<Vec<Token>, GlobError> {
    if p.len() >= REFUSED as usize {
        return Err(GlobError::new("the pattern is too long".into()));
    }
    let brackets = Brackets::new(p);
    let mut tokens = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        work(1);
        let c = p[i];
        i += 1;
        let token = if is(c, b'*') {
            Token::Star
        } else if is(c, b'?') {
            Token::Any
        } else if is(c, b'\\') {
            let Some(&escaped) = p.get(i) else {
                return Err(Refusal::new(Why::LoneBackslash, i - 1, i).error(p));
            };
            i += 1;
            Token::Char(escaped)
        } else if is(c, b'[') {
            match brackets.expression(i - 1)? {
                Some((class, end)) => {
                    i = end;
                    Token::Class(Box::new(class))
                }
                // No closing bracket: a literal `[`, as in fnmatch.
                None => Token::Char(c),
            }
        } else {
            Token::Char(c)
        };
        tokens.push(token);
    }
    Ok(tokens)
}

/// How reading members from a position on ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scan {
    /// At a `]`; the index after it.
    End(usize),
    /// At the end of the pattern.
    Unterminated,
    /// At a member that is refused.
    Refused,
}

/// [`Scan`] as stored, four bytes a position: the index after the `]`, or one of
/// these two.
const UNTERMINATED: u32 = u32::MAX;
const REFUSED: u32 = u32::MAX - 1;

/// The pattern, with what reading its bracket expressions needs precomputed.
struct Brackets<'p> {
    p: &'p [u32],
    /// For each index `i` (and two past the end), the first `j >= i` where `.]`
    /// starts, or the pattern's length: where a `[.` at `i - 2` ends. Empty when the
    /// pattern holds no `[.`.
    dot_close: Vec<u32>,
    /// For each index (and the end), how reading members from there ends, as
    /// [`Self::scan`] reads it.
    scan: Vec<u32>,
}

/// One member as read, and the index after it.
struct Member {
    /// `None` for the one glibc drops (see [`Brackets::member`]).
    item: Option<Item>,
    next: usize,
}

impl<'p> Brackets<'p> {
    /// Precomputes the tables from the first `[` on; before it, no bracket
    /// expression can be.
    fn new(p: &'p [u32]) -> Brackets<'p> {
        let len = p.len();
        let first = p.iter().position(|&c| is(c, b'[')).unwrap_or(len);
        let symbols = p[first..]
            .windows(2)
            .any(|pair| is(pair[0], b'[') && is(pair[1], b'.'));
        let mut dot_close = if symbols {
            vec![len as u32; len + 2]
        } else {
            Vec::new()
        };
        if symbols {
            for i in (first..len).rev() {
                work(1);
                let closes = is(p[i], b'.') && p.get(i + 1).is_some_and(|&c| is(c, b']'));
                dot_close[i] = if closes { i as u32 } else { dot_close[i + 1] };
            }
        }
        let mut brackets = Brackets {
            p,
            dot_close,
            scan: if first < len {
                vec![UNTERMINATED; len + 1]
            } else {
                Vec::new()
            },
        };
        for q in (first..len).rev() {
            work(1);
            brackets.scan[q] = if is(p[q], b']') {
                q as u32 + 1
            } else {
                match brackets.member(q) {
                    Ok(member) => brackets.scan[member.next],
                    Err(_) => REFUSED,
                }
            };
        }
        brackets
    }

    /// How reading members from `p[q]` on ends.
    fn scan(&self, q: usize) -> Scan {
        match self.scan[q] {
            UNTERMINATED => Scan::Unterminated,
            REFUSED => Scan::Refused,
            end => Scan::End(end as usize),
        }
    }

    /// The bracket expression opened by the `[` at `open`: the class and the index
    /// after its `]`, or `None` when it is a literal `[`.
    fn expression(&self, open: usize) -> Result<Option<(Class, usize)>, GlobError> {
        let p = self.p;
        let mut q = open + 1;
        let negated = p.get(q).is_some_and(|&c| is(c, b'!') || is(c, b'^'));
        if negated {
            q += 1;
        }
        if q == p.len() {
            return Ok(None);
        }
        // The first member may be a `]`; any other is read as the scan reads it.
        let first = is(p[q], b']').then(|| self.member(q));
        let scan = match &first {
            Some(Ok(first)) => self.scan(first.next),
            Some(Err(_)) => Scan::Refused,
            None => self.scan(q),
        };
        let end = match scan {
            Scan::Unterminated => return Ok(None),
            Scan::Refused => return Err(self.refusal_from(q, first.is_some())),
            Scan::End(end) => end,
        };
        let mut items = Vec::new();
        if let Some(Ok(first)) = first {
            items.extend(first.item);
            q = first.next;
        }
        while q + 1 < end {
            work(1);
            match self.member(q) {
                Ok(member) => {
                    items.extend(member.item);
                    q = member.next;
                }
                Err(refusal) => return Err(refusal.error(p)),
            }
        }
        let class = Class {
            negated,
            items,
            ignore_case: false,
        };
        Ok(Some((class, end)))
    }

    /// The error of the first refused member from `q` on, where the scan says
    /// there is one; `first` when the member at `q` may be a `]`.
    fn refusal_from(&self, mut q: usize, mut first: bool) -> GlobError {
        while q < self.p.len() && (first || !is(self.p[q], b']')) {
            first = false;
            work(1);
            match self.member(q) {
                Ok(member) => q = member.next,
                Err(refusal) => return refusal.error(self.p),
            }
        }
        unreachable!("the scan found a refused member after index {q}")
    }

    /// The member starting at `p[q]` (which exists).
    #[inline]
    fn member(&self, q: usize) -> Result<Member, Refusal> {
        let p = self.p;
        let c = p[q];
        if is(c, b'\\') {
            let Some(&escaped) = p.get(q + 1) else {
                return Err(Refusal::new(Why::LoneBackslash, q, q + 1));
            };
            return self.member_or_range(escaped, q, q + 2);
        }
        if is(c, b'[') {
            match p.get(q + 1).and_then(|&d| char::from_u32(d)) {
                Some(':') => {
                    if let Some(member) = self.class(q)? {
                        return Ok(member);
                    }
                    // Not a class: `[` and then `:` are members.
                }
                Some('=') => {
                    return match p.get(q + 2..q + 5) {
                        Some(&[c, equals, close]) if is(equals, b'=') && is(close, b']') => {
                            Ok(Member {
                                item: Some(Item::Char(c)),
                                next: q + 5,
                            })
                        }
                        _ => Err(Refusal::new(Why::Equivalence, q, q + 2)),
                    };
                }
                Some('.') => {
                    let (symbol, after) = self.collating_symbol(q)?;
                    // glibc takes `[.c.]-` to start a range even before `]`, and
                    // finding none forgets `c`: `[[.a.]-]` is `[-]`.
                    let dash_close = p
                        .get(after..after + 2)
                        .is_some_and(|pair| is(pair[0], b'-') && is(pair[1], b']'));
                    if dash_close {
                        return Ok(Member {
                            item: None,
                            next: after,
                        });
                    }
                    return self.member_or_range(symbol, q, after);
                }
                _ => {}
            }
        }
        self.member_or_range(c, q, q + 1)
    }

    /// The character `low`, read from `p[start..after]`, alone or as the start of a
    /// range when `-` and something other than `]` follow.
    #[inline]
    fn member_or_range(&self, low: u32, start: usize, after: usize) -> Result<Member, Refusal> {
        let p = self.p;
        if p.get(after).is_some_and(|&c| is(c, b'-')) {
            match p.get(after + 1) {
                None => return Err(Refusal::new(Why::RangeUnfinished, start, after + 1)),
                Some(&end) if !is(end, b']') => return self.range(low, start, after + 1),
                _ => {} // `-]`: the `-` is the next member
            }
        }
        Ok(Member {
            item: Some(Item::Char(low)),
            next: after,
        })
    }

    /// The range from `low` (read from `start`) to the character at `p[r]`.
    #[inline]
    fn range(&self, low: u32, start: usize, r: usize) -> Result<Member, Refusal> {
        let p = self.p;
        let after_bracket = p.get(r + 1).and_then(|&c| char::from_u32(c));
        let (high, next) = match (char::from_u32(p[r]), after_bracket) {
            (Some('['), Some('.')) => self.collating_symbol(r)?,
            // glibc's match reads `[` as the end, its skip `[:alpha:]` as a class.
            (Some('['), Some(':' | '=')) => {
                return Err(Refusal::new(Why::RangeEndsInClass, start, r + 2))
            }
            (Some('\\'), Some(_)) => (p[r + 1], r + 2),
            (Some('\\'), None) => return Err(Refusal::new(Why::LoneBackslash, r, r + 1)),
            _ => (p[r], r + 1),
        };
        if high < low {
            return Err(Refusal::new(Why::Reversed, start, next));
        }
        Ok(Member {
            item: Some(Item::Range(low, high)),
            next,
        })
    }

    /// `[.c.]` at `p[q..]`: `c` and the index after it.
    fn collating_symbol(&self, q: usize) -> Result<(u32, usize), Refusal> {
        let close = self.dot_close[q + 2] as usize;
        if close == self.p.len() {
            return Err(Refusal::new(Why::CollatingUnclosed, q, q + 2));
        }
        if close != q + 3 {
            return Err(Refusal::new(Why::Collating, q, close + 2));
        }
        Ok((self.p[q + 2], close + 2))
    }

    /// The class at `p[q..]`, which starts `[:`; `None` when it is not one. The
    /// letters read here belong to no other `[:`, so all of them take linear time.
    fn class(&self, q: usize) -> Result<Option<Member>, Refusal> {
        let p = self.p;
        let start = q + 2;
        let word = p[start..].iter().take_while(|&&c| is_word(c)).count();
        work(word);
        let end = start + word;
        let closed = p
            .get(end..end + 2)
            .is_some_and(|pair| is(pair[0], b':') && is(pair[1], b']'));
        if closed {
            let name = &p[start..end];
            return match NAMED.iter().find(|(known, _)| same_name(known, name)) {
                Some(&(_, named)) => Ok(Some(Member {
                    item: Some(Item::Named(named)),
                    next: end + 2,
                })),
                None => Err(Refusal::new(Why::UnknownClass, q, end + 2)),
            };
        }
        let lowercase = p[start..end]
            .iter()
            .take_while(|&&c| (u32::from(b'a')..=u32::from(b'y')).contains(&c))
            .count();
        if lowercase >= LONGEST_CLASS_RUN {
            return Err(Refusal::new(Why::LongClassName, q, start + lowercase));
        }
        Ok(None)
    }
}

/// A character of a class name: glibc's are lowercase letters, and a name of other
/// letters, digits or `_` is refused as a typo rather than read as characters.
fn is_word(c: u32) -> bool {
    c < 0x80 && (c as u8 == b'_' || (c as u8).is_ascii_alphanumeric())
}

fn same_name(known: &str, name: &[u32]) -> bool {
    known.len() == name.len() && known.bytes().zip(name).all(|(k, &c)| u32::from(k) == c)
}

/// Why a pattern is refused, and where: `p[start..end]`.
#[derive(Clone, Copy, Debug)]
struct Refusal {
    why: Why,
    start: usize,
    end: usize,
}

#[derive(Clone, Copy, Debug)]
enum Why {
    LoneBackslash,
    Reversed,
    UnknownClass,
    LongClassName,
    Equivalence,
    CollatingUnclosed,
    Collating,
    RangeEndsInClass,
    RangeUnfinished,
}

impl Refusal {
    fn new(why: Why, start: usize, end: usize) -> Refusal {
        Refusal { why, start, end }
    }

    fn error(self, p: &[u32]) -> GlobError {
        let text = show(&p[self.start..self.end.min(p.len())]);
        let escape = "write '\\[' for a literal '['";
        GlobError::new(match self.why {
            Why::LoneBackslash => {
                "the pattern ends in a lone '\\' (write '\\\\' to match a backslash)".into()
            }
            Why::Reversed => {
                format!("the range '{text}' is reversed (its first character comes after its last)")
            }
            Why::UnknownClass => {
                let known: Vec<&str> = NAMED.iter().map(|(known, _)| *known).collect();
                format!(
                    "unknown character class '{text}' (known: {})",
                    known.join(", ")
                )
            }
            Why::LongClassName => format!(
                "'{text}' begins a character class name longer than any, which makes C's \
                 fnmatch match nothing ({escape})"
            ),
            Why::Equivalence => format!(
                "'{text}' begins an equivalence class, which must be '[=c=]' with one \
                 character c ({escape})"
            ),
            Why::CollatingUnclosed => format!(
                "'{text}' begins a collating symbol that no '.]' closes, which makes C's \
                 fnmatch match nothing ({escape})"
            ),
            Why::Collating => format!(
                "'{text}': a collating symbol must be one character, as in '[.-.]' (named \
                 ones are not supported)"
            ),
            Why::RangeEndsInClass => format!(
                "the range '{text}...' ends in a class, which C's fnmatch reads in two \
                 ways; a range is between two characters (write '\\[' for a range that \
                 ends at '[')"
            ),
            Why::RangeUnfinished => format!(
                "the pattern ends inside the range '{text}', which makes C's fnmatch match \
                 nothing"
            ),
        })
    }
}
