//! Globs as `-n` and `-E` take them, matched against raw name bytes.
//!
//! Names are the bytes the kernel returned, never `OsString` or `String`: a walk of a
//! million files must not allocate per entry, and names that are not UTF-8 must match
//! exactly as they are stored. A pattern is prepared once ([`Glob`]) so that the
//! common case, an ASCII name, is matched by a few byte comparisons.

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
