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

use super::Extensions;
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

/// What rules a directory's names out at once, with the room a worker folds them
/// in.
#[derive(Clone, Debug)]
pub struct NameNeedle {
    kind: Kind,
    /// Under `-i`, a longer literal that a directory's names of ASCII alone
    /// must hold (`Glob::required_ascii_literal`), searched for folded.
    ascii: Option<Finder<'static>>,
    /// Where names are folded a block at a time, written in place without
    /// being cleared or grown; made at the first fold.
    block: Option<Box<[u8; FOLD_BLOCK]>>,
}

#[derive(Clone, Debug)]
enum Kind {
    /// `-e` with several extensions: a name must end in one of them, tested
    /// name by name from the lengths with `Extensions::matches`, the name test's
    /// own. (With one, `.EXT` folded costs less: on `/usr`, `-e conf` 29.4M
    /// instructions against 29.7M.)
    Endings(Extensions),
    /// A literal searched for as it is.
    Exact(Finder<'static>),
    /// A literal searched for folded, in the names folded a block at a time.
    Folded(Finder<'static>),
    /// None: names beyond ASCII may match whatever they hold (only `ascii`
    /// rules names out).
    Anything,
}

impl NameNeedle {
    pub fn new(literal: &Literal) -> NameNeedle {
        let kind = match literal.folded {
            true => Kind::Folded(folded_finder(&literal.bytes)),
            false => Kind::Exact(Finder::new(&literal.bytes).into_owned()),
        };
        NameNeedle::of(kind)
    }

    /// A name must end in one of `extensions` (not empty).
    pub fn endings(extensions: Extensions) -> NameNeedle {
        NameNeedle::of(Kind::Endings(extensions))
    }

    /// Only names of ASCII alone are ruled out: they must hold `literal`, folded.
    pub fn ascii_only(literal: &Literal) -> NameNeedle {
        NameNeedle::of(Kind::Anything).with_ascii(literal)
    }

    /// This needle, and for a directory whose names are ASCII alone `literal`
    /// (folded) instead.
    pub fn with_ascii(self, literal: &Literal) -> NameNeedle {
        NameNeedle {
            ascii: Some(folded_finder(&literal.bytes)),
            ..self
        }
    }

    fn of(kind: Kind) -> NameNeedle {
        NameNeedle {
            kind,
            ascii: None,
            block: None,
        }
    }

    /// False when no name in `names` (names back to back, each followed by its
    /// NUL; their lengths without it in `lens`) can pass the tests the needle
    /// came from. Lengths that do not fit the names rule nothing out.
    #[inline]
    pub fn may_be_in(&mut self, lens: &[u8], names: &[u8]) -> bool {
        let block = &mut self.block;
        if let Some(ascii) = &self.ascii {
            if names.is_ascii() {
                return folded_find(ascii, block, names);
            }
        }
        match &self.kind {
            Kind::Endings(extensions) => any_ends_as(extensions, lens, names),
            Kind::Exact(finder) => finder.find(names).is_some(),
            Kind::Folded(finder) => folded_find(finder, block, names),
            Kind::Anything => true,
        }
    }
}

/// A finder of `bytes` folded.
fn folded_finder(bytes: &[u8]) -> Finder<'static> {
    let folded: Vec<u8> = bytes.iter().map(|&b| fold_byte(b)).collect();
    Finder::new(&folded).into_owned()
}

/// True when a name of `names` (lengths `lens`) ends in one of `extensions`.
fn any_ends_as(extensions: &Extensions, lens: &[u8], names: &[u8]) -> bool {
    let mut at = 0;
    for &len in lens {
        let end = at + usize::from(len);
        match names.get(at..end) {
            Some(name) if !extensions.matches(name) => at = end + 1,
            _ => return true,
        }
    }
    false
}

/// True when `finder`'s needle (folded) is in `names` folded, a block at a time
/// in `block`, each block overlapping the last by the needle's length less one
/// so that a needle across two blocks is found. The whole listing folded at
/// once grew the room to its largest (a directory of 17,948 names,
/// `/usr/share/man/man1`: 200 more page faults).
fn folded_find(
    finder: &Finder<'_>,
    block: &mut Option<Box<[u8; FOLD_BLOCK]>>,
    names: &[u8],
) -> bool {
    let block = block.get_or_insert_with(|| Box::new([0; FOLD_BLOCK]));
    let overlap = finder.needle().len().saturating_sub(1);
    let mut start = 0;
    loop {
        let end = names.len().min(start + FOLD_BLOCK);
        let folded = &mut block[..end - start];
        for (to, &byte) in folded.iter_mut().zip(&names[start..end]) {
            *to = fold_byte(byte);
        }
        if finder.find(folded).is_some() {
            return true;
        }
        if end == names.len() {
            return false;
        }
        start = end - overlap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lengths of `names` (each followed by its NUL), as a record has them.
    fn lens(names: &[u8]) -> Vec<u8> {
        let mut lens: Vec<u8> = names.split(|&b| b == 0).map(|n| n.len() as u8).collect();
        lens.pop();
        lens
    }

    fn found(needle: &mut NameNeedle, names: &[u8]) -> bool {
        needle.may_be_in(&lens(names), names)
    }

    #[test]
    fn a_longer_literal_rules_out_names_of_ascii_alone_only() {
        let literal = |bytes: &[u8]| Literal {
            bytes: bytes.to_vec(),
            folded: true,
        };
        // `*lib*` under -i: no needle but for names of ASCII alone.
        let mut lib = NameNeedle::ascii_only(&literal(b"lib"));
        assert!(!found(&mut lib, b"file.0\0file.1\0"));
        assert!(found(&mut lib, b"a\0MyLIBrary\0"));
        assert!(
            found(&mut lib, b"a\0l\xc4\xb0b\0"),
            "İ folds to i: never ruled out"
        );
        // `*linux*`: "nux" for names beyond ASCII, "linux" for the others.
        let mut linux = NameNeedle::new(&literal(b"nux")).with_ascii(&literal(b"linux"));
        assert!(!found(&mut linux, b"tux\0nu x\0"));
        assert!(
            !found(&mut linux, b"MINUX\0"),
            "ASCII names held to the longer run"
        );
        assert!(found(&mut linux, b"LINUX\0"));
        assert!(
            !found(&mut linux, b"\xc3\xa9\0nu\0"),
            "beyond ASCII: the short run"
        );
        assert!(found(&mut linux, b"\xc3\xa9\0MINUX\0"));
    }

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
        assert!(found(&mut needle, b"a\0README.md\0"));
        assert!(!found(&mut needle, b"a\0readme.md\0"));
        assert!(!found(&mut needle, b""));
    }

    #[test]
    fn a_folded_needle_is_found_in_any_case_and_across_the_end_of_a_name() {
        let mut needle = NameNeedle::new(&literal(b".conf\0", true));
        assert!(found(&mut needle, b"x\0A.CONF\0"));
        assert!(found(&mut needle, b"a.Conf\0b\0"));
        assert!(!found(&mut needle, b"a.conf.d\0b.cnf\0"));
    }

    /// A needle across two of the blocks folded at a time is found, wherever it
    /// falls; one that is not there is not.
    #[test]
    fn a_folded_needle_is_found_across_blocks() {
        let mut needle = NameNeedle::new(&literal(b".conf\0", true));
        for at in FOLD_BLOCK - 8..FOLD_BLOCK + 8 {
            let mut names = vec![b'x'; 2 * FOLD_BLOCK + 100];
            names[at..at + 6].copy_from_slice(b".CoNf\0");
            assert!(needle.may_be_in(&[], &names), "at {at}");
            names[at + 1] = b'k';
            assert!(!needle.may_be_in(&[], &names), "at {at}");
        }
    }

    /// With `-e`, each name's ending is tested as the name test tests it: a name
    /// that is only `.EXT`, or holds it elsewhere, is not one.
    #[test]
    fn endings_are_tested_name_by_name() {
        let extensions =
            Extensions::new(vec![b"conf".as_slice().into(), b"tar.gz".as_slice().into()]);
        let mut needle = NameNeedle::endings(extensions);
        assert!(found(&mut needle, b"x\0A.CONF\0"));
        assert!(found(&mut needle, b"a.b.TAR.GZ\0y\0"));
        assert!(!found(&mut needle, b".conf\0a.conf.d\0conf\0b.gz\0"));
        assert!(!found(&mut needle, b""));
        // Lengths that do not fit the names rule nothing out.
        assert!(needle.may_be_in(&[200], b"short\0"));
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
