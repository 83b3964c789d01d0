//! What a pattern reads into: [`Token`]s, one per character of the names it
//! matches or a `*`, with the bracket expressions as [`Class`]es; what each accepts,
//! as a character or as the set of ASCII characters ([`AsciiSet`]) the ASCII matcher
//! tests a position with; and each made as `-i` wants it.

use super::chars::{fold, work, Named};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token {
    /// One character, already lowercased under `-i`.
    Char(u32),
    /// `?`.
    Any,
    /// `*`.
    Star,
    Class(Box<Class>),
}

/// A bracket expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Class {
    pub(super) negated: bool,
    pub(super) items: Vec<Item>,
    pub(super) ignore_case: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Item {
    /// One character (lowercased under `-i`); also `[=c=]` and `[.c.]`.
    Char(u32),
    /// A range, both ends included (ends lowercased under `-i`).
    Range(u32, u32),
    Named(Named),
}

impl Token {
    /// True when this one-character token accepts the name's character `c`.
    pub(super) fn accepts(&self, c: u32, ignore_case: bool) -> bool {
        match self {
            Token::Char(want) => *want == if ignore_case { fold(c) } else { c },
            Token::Any => true,
            Token::Star => false,
            Token::Class(class) => class.accepts(c),
        }
    }

    /// The token as `-i` wants it: characters and range ends lowercased.
    pub(super) fn cased(&self, ignore_case: bool) -> Token {
        work(1);
        match self {
            Token::Char(c) if ignore_case => Token::Char(fold(*c)),
            Token::Class(class) if ignore_case => {
                work(class.items.len());
                let items = class.items.iter().map(|item| match *item {
                    Item::Char(c) => Item::Char(fold(c)),
                    Item::Range(low, high) => Item::Range(fold(low), fold(high)),
                    Item::Named(named) => Item::Named(named),
                });
                Token::Class(Box::new(Class {
                    negated: class.negated,
                    items: items.collect(),
                    ignore_case: true,
                }))
            }
            token => token.clone(),
        }
    }

    /// The ASCII characters this token (not `*`) accepts.
    pub(super) fn ascii_set(&self, ignore_case: bool) -> AsciiSet {
        work(1);
        match self {
            Token::Char(c) => AsciiSet(cased_bits(ascii_bits(*c, *c), ignore_case)),
            Token::Any => AsciiSet(ALL_ASCII),
            Token::Star => AsciiSet(0),
            Token::Class(class) => class.ascii_set(),
        }
    }
}

impl Class {
    fn accepts(&self, c: u32) -> bool {
        let folded = if self.ignore_case { fold(c) } else { c };
        let hit = self.items.iter().any(|item| match *item {
            Item::Char(want) => want == folded,
            Item::Range(low, high) => (low..=high).contains(&folded),
            Item::Named(named) => named.contains(c),
        });
        hit != self.negated
    }

    /// What [`Self::accepts`] says of each ASCII character, built one member at a
    /// time: asking it of each of the 128 characters took 128 tests per member, and
    /// a pattern can hold a member for every two bytes.
    fn ascii_set(&self) -> AsciiSet {
        let (mut characters, mut named_bits) = (0, 0);
        for item in &self.items {
            work(1);
            match *item {
                Item::Char(c) => characters |= ascii_bits(c, c),
                Item::Range(low, high) => characters |= ascii_bits(low, high),
                Item::Named(named) => named_bits |= named.ascii_bits(),
            }
        }
        let hit = cased_bits(characters, self.ignore_case) | named_bits;
        AsciiSet(if self.negated { !hit & ALL_ASCII } else { hit })
    }
}

/// Every ASCII character, as bits.
pub(super) const ALL_ASCII: u128 = u128::MAX;

/// The ASCII characters from `low` to `high`, as bits.
pub(super) fn ascii_bits(low: u32, high: u32) -> u128 {
    if low > 0x7f || high < low {
        return 0;
    }
    let width = high.min(0x7f) - low + 1;
    let ones = if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    ones << low
}

/// The ASCII characters a name may hold where `bits` are the pattern's (already
/// lowercased under `-i`): under `-i` a capital stands for its lowercase letter.
pub(super) fn cased_bits(bits: u128, ignore_case: bool) -> u128 {
    if !ignore_case {
        return bits;
    }
    let capitals = ascii_bits(u32::from(b'A'), u32::from(b'Z'));
    (bits & !capitals) | (bits >> 32 & capitals)
}

/// The ASCII characters one token accepts, as a bit set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AsciiSet(pub(super) u128);
