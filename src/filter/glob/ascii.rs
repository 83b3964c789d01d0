//! The matcher for ASCII names, where every byte is a character: the pattern split
//! at its stars into segments of one test per position (a byte, or an [`AsciiSet`]),
//! the first fitted at the start, the last at the end and each one between at its
//! leftmost place; and [`Suffixes`], several `*LITERAL` globs matched at once as
//! words.

use super::token::{AsciiSet, Token};

/// Literal ASCII endings of at most 8 bytes, case as given, each the low bytes of a
/// little-endian word: a name's last 8 bytes are loaded once, and each ending is a
/// shift and a compare (`-e`'s `Extensions` does the same with case folded). A
/// name's ASCII bytes are whole characters, so a byte suffix is a character suffix.
#[derive(Clone, Debug)]
pub(super) struct Suffixes {
    /// (the shift moving a name's last bytes, as many as the ending's, to the bottom
    /// of its last 8, the ending)
    words: Box<[(u32, u64)]>,
    literals: Box<[Box<[u8]>]>,
}

impl Suffixes {
    pub(super) fn new(literals: Vec<Box<[u8]>>) -> Suffixes {
        let word = |literal: &[u8]| {
            let bytes = (literal.iter().enumerate()).map(|(i, &b)| u64::from(b) << (8 * i));
            (8 * (8 - literal.len() as u32), bytes.sum())
        };
        Suffixes {
            words: literals.iter().map(|literal| word(literal)).collect(),
            literals: literals.into(),
        }
    }

    #[inline]
    pub(super) fn matches(&self, name: &[u8]) -> bool {
        let Some(start) = name.len().checked_sub(8) else {
            return self.literals.iter().any(|literal| name.ends_with(literal));
        };
        let last8 = u64::from_le_bytes(name[start..].try_into().expect("eight bytes"));
        (self.words.iter()).any(|&(shift, word)| last8 >> shift == word)
    }
}

/// The tokens split at each `*`, each other token turned into a position by `each`.
pub(super) fn split_at_stars<P>(tokens: &[Token], each: impl Fn(&Token) -> P) -> Box<[Box<[P]>]> {
    tokens
        .split(|token| *token == Token::Star)
        .map(|segment| segment.iter().map(&each).collect())
        .collect()
}

/// One position of a segment of the ASCII matcher.
pub(super) trait Position: Copy {
    fn fits(self, byte: u8) -> bool;
}

/// Of the original fast path: `?` matches any byte, any other byte itself.
impl Position for u8 {
    #[inline]
    fn fits(self, byte: u8) -> bool {
        self == b'?' || self == byte
    }
}

impl Position for AsciiSet {
    #[inline]
    fn fits(self, byte: u8) -> bool {
        // Only called on ASCII names, so `byte` < 128.
        self.0 >> byte & 1 != 0
    }
}

/// The ASCII matcher behind [`Glob::matches`]; `segments` is the pattern split at
/// `*` (so one segment means there was no star).
pub(super) fn segments_match<P: Position>(segments: &[Box<[P]>], name: &[u8]) -> bool {
    let (first, last) = (&segments[0], &segments[segments.len() - 1]);
    if segments.len() == 1 {
        return segment_fits(first, name);
    }
    // With a star between them, the first and last segments must not overlap.
    if name.len() < first.len() + last.len()
        || !segment_fits(first, &name[..first.len()])
        || !segment_fits(last, &name[name.len() - last.len()..])
    {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for middle in &segments[1..segments.len() - 1] {
        match find_segment(middle, rest) {
            Some(end) => rest = &rest[end..],
            None => return false,
        }
    }
    true
}

/// True when `bytes` is exactly as long as `segment` and fits it position by position.
#[inline]
fn segment_fits<P: Position>(segment: &[P], bytes: &[u8]) -> bool {
    segment.len() == bytes.len() && segment.iter().zip(bytes).all(|(&s, &b)| s.fits(b))
}

/// The end of the leftmost match of `segment` in `hay`. Candidate starts are found by
/// the segment's first position alone, one test per byte, and only those are checked
/// whole: set up per start, the whole-segment test cost `-n 'file_*7?.*'` three times
/// the instructions of the rest of the walk.
fn find_segment<P: Position>(segment: &[P], hay: &[u8]) -> Option<usize> {
    let Some((&head, tail)) = segment.split_first() else {
        return Some(0); // `**`: an empty segment fits at once
    };
    let last_start = hay.len().checked_sub(segment.len())?;
    let mut start = 0;
    while start <= last_start {
        if head.fits(hay[start]) && segment_fits(tail, &hay[start + 1..start + segment.len()]) {
            return Some(start + segment.len());
        }
        start += 1;
    }
    None
}
