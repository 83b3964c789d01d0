//! Byte-level name and size predicates applied to every directory entry.
//!
//! Everything here works on the raw bytes the kernel returned (`d_name`), never on
//! `OsString` or `String`: a walk of a million files must not allocate per entry, and
//! names that are not UTF-8 must match exactly as they are stored. Each predicate is a
//! small pure function so it can be tested exhaustively below without touching a disk.

use std::fmt;

/// True when `name` ends in `.EXT` for one of `extensions`, compared ASCII
/// case-insensitively without building a lowercase copy.
///
/// `extensions` must already be lowercase and carry no leading dot (the config does
/// that once). As in fd, a name that is nothing but `.EXT` (say `.jpg`) is a hidden file
/// without an extension and does not match; multi-part extensions such as `tar.gz` match
/// a name that ends in `.tar.gz`.
pub fn name_matches_extension(name: &[u8], extensions: &[Box<[u8]>]) -> bool {
    extensions.iter().any(|ext| has_extension(name, ext))
}

fn has_extension(name: &[u8], ext: &[u8]) -> bool {
    // The dot must exist and must not be the first byte of the name.
    if name.len() < ext.len() + 2 {
        return false;
    }
    let dot = name.len() - ext.len() - 1;
    name[dot] == b'.' && name[dot + 1..].eq_ignore_ascii_case(ext)
}

/// Matches `name` against a glob where `*` is any run of characters (including none),
/// `?` is exactly one character, and every other byte is literal. Matching is
/// case-sensitive, like `find -name`.
///
/// `?` consumes one UTF-8 character when the name holds a valid one at that point and
/// one byte otherwise, so `?.txt` matches `é.txt` and also a Latin-1 name.
///
/// This is the classic greedy matcher with a single backtrack point: on a mismatch it
/// retries from the last `*` with one more byte consumed, which is linear for the
/// patterns people type and never worse than O(len(pattern) * len(name)).
pub fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    // Position just after the most recent `*`, and the name position it is trying.
    let mut backtrack: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                p += 1;
                backtrack = Some((p, n));
                continue;
            }
            Some(b'?') => {
                p += 1;
                n += utf8_char_len(&name[n..]);
                continue;
            }
            Some(&c) if c == name[n] => {
                p += 1;
                n += 1;
                continue;
            }
            _ => {}
        }
        match backtrack {
            Some((bp, bn)) => {
                // Let the star swallow one more character and try again.
                let next = bn + utf8_char_len(&name[bn..]);
                backtrack = Some((bp, next));
                p = bp;
                n = next;
            }
            None => return false,
        }
    }
    // The name is used up: what is left of the pattern must be stars only.
    pattern[p.min(pattern.len())..].iter().all(|&c| c == b'*')
}

/// A `-n`/`-E` glob, prepared once for matching millions of names.
///
/// [`glob_match`] is general but walks the pattern byte by byte and backtracks at
/// every mismatch after a `*`: about 300 instructions per name for `file_*7?.*`.
/// When pattern and name are both ASCII (every byte is a character), the pattern is
/// instead split at its stars into literal segments (where `?` matches any byte):
/// the first must match at the start, the last at the end, and each one in between
/// at its leftmost position after the previous one, which is exact for `*`-globs.
/// Any other name goes to `glob_match`, so the two paths cannot disagree; a
/// differential test below checks that they do not.
#[derive(Clone, Debug)]
pub struct Glob {
    pattern: Box<[u8]>,
    /// The pattern split at `*`, when the pattern is ASCII; `None` otherwise.
    segments: Option<Box<[Box<[u8]>]>>,
}

impl Glob {
    pub fn new(pattern: &[u8]) -> Glob {
        let segments = pattern
            .is_ascii()
            .then(|| pattern.split(|&b| b == b'*').map(Box::from).collect());
        Glob {
            pattern: pattern.into(),
            segments,
        }
    }

    #[inline]
    pub fn matches(&self, name: &[u8]) -> bool {
        match &self.segments {
            Some(segments) if name.is_ascii() => segments_match(segments, name),
            _ => glob_match(&self.pattern, name),
        }
    }
}

/// The ASCII matcher behind [`Glob::matches`]; `segments` is the pattern split at
/// `*` (so one segment means there was no star).
fn segments_match(segments: &[Box<[u8]>], name: &[u8]) -> bool {
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

/// True when `bytes` is exactly as long as `segment` and matches it byte for byte,
/// `?` matching any byte.
#[inline]
fn segment_fits(segment: &[u8], bytes: &[u8]) -> bool {
    segment.len() == bytes.len()
        && segment
            .iter()
            .zip(bytes)
            .all(|(&s, &b)| s == b'?' || s == b)
}

/// The end of the leftmost match of `segment` in `hay`.
fn find_segment(segment: &[u8], hay: &[u8]) -> Option<usize> {
    let last_start = hay.len().checked_sub(segment.len())?;
    (0..=last_start)
        .find(|&start| segment_fits(segment, &hay[start..start + segment.len()]))
        .map(|start| start + segment.len())
}

/// Length of the UTF-8 character at the start of `bytes`, or 1 when the bytes there
/// are not a valid UTF-8 sequence. `bytes` must not be empty.
fn utf8_char_len(bytes: &[u8]) -> usize {
    let width = match bytes[0] {
        0x00..=0x7f => return 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 1,
    };
    match bytes.get(..width) {
        Some(seq) if std::str::from_utf8(seq).is_ok() => width,
        _ => 1,
    }
}

/// One `-S/--size` constraint, in bytes, as fd understands it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeFilter {
    /// `+N`: at least N bytes.
    AtLeast(u64),
    /// `-N`: at most N bytes.
    AtMost(u64),
    /// `N`: exactly N bytes.
    Exactly(u64),
}

impl SizeFilter {
    pub fn accepts(self, size: u64) -> bool {
        match self {
            SizeFilter::AtLeast(limit) => size >= limit,
            SizeFilter::AtMost(limit) => size <= limit,
            SizeFilter::Exactly(limit) => size == limit,
        }
    }
}

/// Why a size argument was rejected; the message names the value and what is allowed.
#[derive(Debug, PartialEq, Eq)]
pub struct SizeParseError {
    value: String,
    reason: &'static str,
}

impl fmt::Display for SizeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid size '{}': {} (expected [+-]NUM[UNIT] with UNIT one of b, k, m, g, t \
             (powers of 1000) or ki, mi, gi, ti (powers of 1024), e.g. +10k or -1mi)",
            self.value, self.reason
        )
    }
}

impl std::error::Error for SizeParseError {}

/// Parses fd's size syntax: an optional `+` (at least) or `-` (at most) sign, a
/// decimal number, and a unit. Units are case-insensitive, may end in an optional
/// `b` (`kb`, `kib`), and a bare number means bytes.
pub fn parse_size(text: &str) -> Result<SizeFilter, SizeParseError> {
    let fail = |reason| SizeParseError {
        value: text.to_string(),
        reason,
    };
    let (make, rest): (fn(u64) -> SizeFilter, &str) = match text.as_bytes().first() {
        Some(b'+') => (SizeFilter::AtLeast, &text[1..]),
        Some(b'-') => (SizeFilter::AtMost, &text[1..]),
        Some(_) => (SizeFilter::Exactly, text),
        None => return Err(fail("the value is empty")),
    };
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (digits, unit) = rest.split_at(digits_end);
    if digits.is_empty() {
        return Err(fail("no number"));
    }
    let number: u64 = digits
        .parse()
        .map_err(|_| fail("the number is too large"))?;
    let multiplier = unit_multiplier(unit).ok_or_else(|| fail("unknown unit"))?;
    number
        .checked_mul(multiplier)
        .map(make)
        .ok_or_else(|| fail("the size does not fit in 64 bits"))
}

fn unit_multiplier(unit: &str) -> Option<u64> {
    let unit = unit.to_ascii_lowercase();
    // Accept `k`, `kb`, `ki` and `kib` alike; a lone `b` or nothing means bytes.
    let unit = match unit.strip_suffix('b') {
        Some(stem) if !stem.is_empty() => stem,
        Some(_) => return Some(1),
        None => unit.as_str(),
    };
    let (letter, binary) = match unit.strip_suffix('i') {
        Some(stem) => (stem, true),
        None => (unit, false),
    };
    let power = match letter {
        "" if !binary => return Some(1),
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        _ => return None,
    };
    let base: u64 = if binary { 1024 } else { 1000 };
    Some(base.pow(power))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exts(list: &[&str]) -> Vec<Box<[u8]>> {
        list.iter().map(|e| e.as_bytes().into()).collect()
    }

    #[test]
    fn extension_table() {
        let jpg = exts(&["jpg"]);
        let cases: &[(&[u8], bool)] = &[
            (b"a.jpg", true),
            (b"a.JPG", true),
            (b"a.JpG", true),
            (b"photo.final.jpg", true),
            (b"a..jpg", true),
            (b"ajpg", false),
            (b"a.jpeg", false),
            (b"a.jpg.txt", false),
            (b".jpg", false), // a hidden file with no extension, as in fd
            (b"jpg", false),
            (b"", false),
            (b"a.", false),
            (b"\xff\xfe.jpg", true), // non-UTF-8 stem
            (b"a.jp\xc7", false),
        ];
        for &(name, want) in cases {
            assert_eq!(
                name_matches_extension(name, &jpg),
                want,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
    }

    #[test]
    fn extension_lists_and_multipart() {
        let multi = exts(&["jpg", "png", "tar.gz"]);
        assert!(name_matches_extension(b"x.png", &multi));
        assert!(name_matches_extension(b"x.PNG", &multi));
        assert!(name_matches_extension(b"backup.TAR.GZ", &multi));
        assert!(!name_matches_extension(b".tar.gz", &multi));
        assert!(!name_matches_extension(b"x.gz", &multi));
        assert!(!name_matches_extension(b"x.txt", &multi));
        assert!(!name_matches_extension(b"x.png", &[]));
    }

    #[test]
    fn glob_table() {
        let cases: &[(&[u8], &[u8], bool)] = &[
            (b"", b"", true),
            (b"", b"a", false),
            (b"*", b"", true),
            (b"*", b"anything.at.all", true),
            (b"***", b"abc", true),
            (b"a**b", b"ab", true),
            (b"a**b", b"axxb", true),
            (b"?", b"", false),
            (b"?", b"a", true),
            (b"?", b"ab", false),
            (b"??", b"ab", true),
            (b"?b", b"ab", true),
            (b"a?", b"ab", true),
            (b"a?", b"a", false),
            (b"*.jpg", b"x.jpg", true),
            (b"*.jpg", b".jpg", true),
            (b"*.jpg", b"x.jpgx", false),
            (b"*.jpg", b"x.JPG", false), // case-sensitive like find -name
            (b"file_*", b"file_000001.png", true),
            (b"file_*", b"xfile_1", false),
            (b"file_??????.*", b"file_000001.png", true),
            (b"file_??????.*", b"file_00001.png", false),
            (b"*a*b*c*", b"xaybzc", true),
            (b"*a*b*c*", b"xaybz", false),
            (b"*aab", b"aaaab", true),
            (b"a*a*a*b", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", false),
            (b".*", b".hidden", true),
            (b".*", b"visible", false),
            (b"[ab]", b"[ab]", true), // brackets are literal
            (b"[ab]", b"a", false),
            (b"\\*", b"\\x", true), // backslash is literal, not an escape
            (b"?.txt", "é.txt".as_bytes(), true),
            (b"??.txt", "é.txt".as_bytes(), false),
            (b"?.txt", b"\xe9.txt", true), // Latin-1 byte: one byte is one char
            (b"*\xff", b"abc\xff", true),
            (b"a?c", b"a\x80c", true),
        ];
        for &(pattern, name, want) in cases {
            assert_eq!(
                glob_match(pattern, name),
                want,
                "pattern {:?} name {:?}",
                String::from_utf8_lossy(pattern),
                String::from_utf8_lossy(name)
            );
        }
    }

    #[test]
    fn prepared_globs_agree_with_the_general_matcher() {
        // Random patterns and names over a small alphabet, so that matches are common,
        // plus non-ASCII names that must take the general path.
        let mut rng = fastrand::Rng::with_seed(7);
        let pattern_bytes = [b'a', b'b', b'.', b'?', b'*'];
        let name_bytes: [&[u8]; 5] = [b"a", b"b", b".", "é".as_bytes(), b"\xff"];
        let mut agreed = 0;
        for _ in 0..20_000 {
            let pattern: Vec<u8> = (0..rng.usize(0..8))
                .map(|_| pattern_bytes[rng.usize(..5)])
                .collect();
            let glob = Glob::new(&pattern);
            for _ in 0..10 {
                let ascii_only = rng.bool();
                let name: Vec<u8> = (0..rng.usize(0..10))
                    .flat_map(|_| name_bytes[rng.usize(..if ascii_only { 3 } else { 5 })].to_vec())
                    .collect();
                let want = glob_match(&pattern, &name);
                assert_eq!(
                    glob.matches(&name),
                    want,
                    "pattern {:?} name {:?}",
                    String::from_utf8_lossy(&pattern),
                    String::from_utf8_lossy(&name)
                );
                agreed += usize::from(want);
            }
        }
        assert!(
            agreed > 10_000,
            "too few matches to mean anything: {agreed}"
        );
        // And the table of hand-written cases.
        for pattern in [
            &b"file_*7?.*"[..],
            b"*",
            b"",
            b"a*",
            b"*a",
            b"a*b*c",
            b"??",
            b"**",
        ] {
            let glob = Glob::new(pattern);
            for name in [
                &b"file_000170.jpg"[..],
                b"file_000171",
                b"",
                b"a",
                b"abc",
                b"axbxc",
            ] {
                assert_eq!(glob.matches(name), glob_match(pattern, name));
            }
        }
    }

    #[test]
    fn size_parse_table() {
        use SizeFilter::*;
        let cases: &[(&str, SizeFilter)] = &[
            ("+0", AtLeast(0)),
            ("+1b", AtLeast(1)),
            ("-10", AtMost(10)),
            ("100", Exactly(100)),
            ("+1k", AtLeast(1000)),
            ("+1kb", AtLeast(1000)),
            ("+1K", AtLeast(1000)),
            ("+1ki", AtLeast(1024)),
            ("+1KiB", AtLeast(1024)),
            ("-2m", AtMost(2_000_000)),
            ("-2mi", AtMost(2 * 1024 * 1024)),
            ("+3g", AtLeast(3_000_000_000)),
            ("+3gi", AtLeast(3 << 30)),
            ("+1t", AtLeast(1_000_000_000_000)),
            ("+1ti", AtLeast(1 << 40)),
        ];
        for &(text, want) in cases {
            assert_eq!(parse_size(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn size_parse_errors_name_the_value() {
        for bad in [
            "", "+", "-", "k", "+1x", "+1kk", "+1ib", "1.5k", "+-1", "+ 1", "+1 k",
        ] {
            let err = parse_size(bad).expect_err(bad);
            assert!(err.to_string().contains(&format!("'{bad}'")), "{err}");
        }
        let overflow = parse_size("+99999999999999999999").unwrap_err();
        assert!(overflow.to_string().contains("too large"), "{overflow}");
        let overflow = parse_size("+20000000ti").unwrap_err();
        assert!(overflow.to_string().contains("64 bits"), "{overflow}");
    }

    #[test]
    fn size_filter_bounds_are_inclusive() {
        assert!(SizeFilter::AtLeast(100).accepts(100));
        assert!(!SizeFilter::AtLeast(100).accepts(99));
        assert!(SizeFilter::AtMost(100).accepts(100));
        assert!(!SizeFilter::AtMost(100).accepts(101));
        assert!(SizeFilter::Exactly(100).accepts(100));
        assert!(!SizeFilter::Exactly(100).accepts(101));
    }
}
