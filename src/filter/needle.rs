//! A needle: bytes that every name passing a filter's name tests contains, so that
//! a directory's names searched at once can rule out all its regular files. The
//! index keeps a directory's names back to back (`index::format`); a search of
//! `/usr` with `--index-trust -e conf` tests 120,000 names one by one to find a few
//! hundred, where one substring search per directory (SIMD, the `memchr` crate's
//! `memmem`) rules most directories out whole.
//!
//! A needle only ever rules names out: found, the names are tested one by one as
//! before. So it must be found in every name that matches, and may be found in
//! names that do not. Where a test folds case, both the needle and the names are
//! searched with each byte's 0x20 bit set ([`fold_byte`]): two bytes equal up to
//! ASCII case are then equal, and so is every byte with itself.

use memchr::memmem::Finder;

/// Bytes every matching name contains: exactly, or, `folded`, as [`fold_byte`]
/// leaves them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Literal {
    pub bytes: Vec<u8>,
    pub folded: bool,
}

/// Shorter needles are not searched for: a byte or two is in most directories'
/// names, and the search would then cost more than it saves.
pub const LEAST_NEEDLE: usize = 3;

/// `byte` with its 0x20 bit set: an ASCII capital becomes its small letter, a
/// small letter stays, and the NUL that ends each name becomes a space.
#[inline(always)]
pub fn fold_byte(byte: u8) -> u8 {
    byte | 0x20
}

/// The longest of `literals` (the first of equals), if it is long enough to be
/// worth a search ([`LEAST_NEEDLE`]).
pub fn longest(literals: impl IntoIterator<Item = Literal>) -> Option<Literal> {
    literals
        .into_iter()
        .filter(|literal| literal.bytes.len() >= LEAST_NEEDLE)
        .fold(None, |best: Option<Literal>, literal| match best {
            Some(best) if best.bytes.len() >= literal.bytes.len() => Some(best),
            _ => Some(literal),
        })
}

/// The names folded at a time ([`NameNeedle::may_be_in`]): a page, far longer
/// than any needle (a name is at most 255 bytes).
const FOLD_BLOCK: usize = 4096;

/// A [`Literal`] ready to be searched for in many directories' names, with the
/// room a worker folds them in.
#[derive(Clone, Debug)]
pub struct NameNeedle {
    finder: Finder<'static>,
    folded: bool,
    scratch: Vec<u8>,
}

impl NameNeedle {
    pub fn new(literal: &Literal) -> NameNeedle {
        let bytes: Vec<u8> = match literal.folded {
            true => literal.bytes.iter().map(|&b| fold_byte(b)).collect(),
            false => literal.bytes.clone(),
        };
        NameNeedle {
            finder: Finder::new(&bytes).into_owned(),
            folded: literal.folded,
            scratch: Vec::new(),
        }
    }

    /// False when no name in `names` (names back to back, each followed by its
    /// NUL) can contain the needle.
    #[inline]
    pub fn may_be_in(&mut self, names: &[u8]) -> bool {
        if !self.folded {
            return self.finder.find(names).is_some();
        }
        // Folded a block at a time, each block overlapping the last by the
        // needle's length less one, so that a needle across two blocks is found:
        // the whole listing folded at once grew the room to its largest (a
        // directory of 17,948 names, `/usr/share/man/man1`: 200 more page faults).
        let overlap = self.finder.needle().len().saturating_sub(1);
        let mut start = 0;
        loop {
            let end = names.len().min(start + FOLD_BLOCK);
            self.scratch.clear();
            self.scratch
                .extend(names[start..end].iter().map(|&b| fold_byte(b)));
            if self.finder.find(&self.scratch).is_some() {
                return true;
            }
            if end == names.len() {
                return false;
            }
            start = end - overlap;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(bytes: &[u8], folded: bool) -> Literal {
        Literal {
            bytes: bytes.to_vec(),
            folded,
        }
    }

    #[test]
    fn the_longest_literal_long_enough_is_the_needle() {
        let picked = longest([
            literal(b"ab", false),
            literal(b".conf\0", true),
            literal(b"README", false),
        ]);
        assert_eq!(picked, Some(literal(b".conf\0", true)));
        assert_eq!(longest([literal(b"ab", false)]), None);
        assert_eq!(longest([]), None);
    }

    #[test]
    fn an_exact_needle_is_found_only_as_it_is() {
        let mut needle = NameNeedle::new(&literal(b"README", false));
        assert!(needle.may_be_in(b"a\0README.md\0"));
        assert!(!needle.may_be_in(b"a\0readme.md\0"));
        assert!(!needle.may_be_in(b""));
    }

    #[test]
    fn a_folded_needle_is_found_in_any_case_and_across_the_end_of_a_name() {
        let mut needle = NameNeedle::new(&literal(b".conf\0", true));
        assert!(needle.may_be_in(b"x\0A.CONF\0"));
        assert!(needle.may_be_in(b"a.Conf\0b\0"));
        assert!(!needle.may_be_in(b"a.conf.d\0b.cnf\0"));
    }

    /// A needle across two of the blocks folded at a time is found, wherever it
    /// falls; one that is not there is not.
    #[test]
    fn a_folded_needle_is_found_across_blocks() {
        let mut needle = NameNeedle::new(&literal(b".conf\0", true));
        for at in FOLD_BLOCK - 8..FOLD_BLOCK + 8 {
            let mut names = vec![b'x'; 2 * FOLD_BLOCK + 100];
            names[at..at + 6].copy_from_slice(b".CoNf\0");
            assert!(needle.may_be_in(&names), "at {at}");
            names[at + 1] = b'k';
            assert!(!needle.may_be_in(&names), "at {at}");
        }
    }

    /// Folding loses nothing: any two bytes equal up to ASCII case fold alike.
    #[test]
    fn bytes_equal_up_to_ascii_case_fold_alike() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                if a.eq_ignore_ascii_case(&b) {
                    assert_eq!(fold_byte(a), fold_byte(b), "{a} {b}");
                }
            }
        }
    }
}
