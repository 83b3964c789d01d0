//! Random ignore rules and names, built from the pieces real rule files use, for
//! the tests that compare pfind's matching with asking every rule (`rules.rs`'s
//! unit tests) and with git (`tests/differential_ignore.rs`, which includes this
//! file by its path). Not part of the library: compiled only into tests.
#![allow(dead_code)] // each includer uses a different part

/// Names entries get: spaces, `#`, `!`, `[`, backslashes, a trailing space, a
/// tab, a newline, bytes that are not UTF-8, hidden names, and names the rules'
/// pieces match.
pub const NAMES: &[&[u8]] = &[
    b"a",
    b"b",
    b"ab",
    b"aab",
    b"ba",
    b"c",
    b"1",
    b"x.o",
    b"y.a",
    b"d.txt",
    b"o",
    b".o",
    b".env",
    b".env.local",
    b".env.example",
    b".hid",
    b"a b",
    b"t ",
    b"a\t",
    b"#h",
    b"!b",
    b"[c",
    b"]a",
    b"b\\s",
    b"\\",
    b"\xff",
    b"caf\xe9",
    b"x\xffy",
    b"n\nl",
    b"*",
    b"?",
    b"x.o.d",
    b"2x",
    b"e[1]",
];

/// Pieces of rules: wildcards, classes, ranges, `!` classes, escapes, odd bytes,
/// and the names above as they are and escaped.
const SEGMENTS: &[&[u8]] = &[
    b"*",
    b"**",
    b"?",
    b"a*",
    b"*b",
    b"**a",
    b"a**",
    b"*.o",
    b".env*",
    b"[a-c]",
    b"[!a]",
    b"[^b]",
    b"[[:digit:]]",
    b"[]a]",
    b"[a",
    b"*\xff*",
    b"\xe9*",
    b"caf?",
    b"d.*",
    b".*",
    b"a",
    b"b",
    b"ab",
    b"c",
    b"1",
    b"x.o",
    b"d.txt",
    b".env",
    b".hid",
    b"a b",
    b"t",
    b"t\\ ",
    b"a\\ ",
    b"\\#h",
    b"#h",
    b"\\!b",
    b"!b",
    b"[c",
    b"\\[c",
    b"b\\\\s",
    b"\\",
    b"\xff",
    b"caf\xe9",
    b"\\*",
    b"\\?",
    b"e[1]",
    b"e\\[1]",
    b".",
    b"o",
];

/// Whole lines real rule files hold, the allow-list idiom's among them; the first
/// `NAME_LINES` are name rules (no `/` but a trailing one).
const LINES: &[&[u8]] = &[
    b"*",
    b"!*",
    b"*/",
    b"!*/",
    b"**",
    b"**/",
    b"!**/",
    b"*.o",
    b"!*.o",
    b".env*",
    b"!.env.example",
    b".",
    b"./",
    b"..",
    b"#comment",
    b"",
    b"   ",
    b"\\#h",
    b"\\!b",
    b"*.[oa]",
    b"?",
    b"!",
    b".*",
    b"!.*",
    b"!*.txt",
    b"\\\\",
    // Not name rules:
    b"/*",
    b"!/*",
    b"/**",
    b"a/**/b",
    b"**/a",
    b"a/**",
    b"/.",
    b"*/*",
    b"/a/",
    b"/",
    b"**/c/*",
    b"/*/",
    b"!/*/",
    b"!/a/",
];
const NAME_LINES: usize = 26;

/// A random rule: a whole line, or one put together from an optional `!` and
/// anchor, one to three segments (one for a name rule), an optional trailing `/`
/// and trailing blanks.
pub fn random_rule(rng: &mut fastrand::Rng, name_rule: bool) -> Vec<u8> {
    if rng.u8(..3) == 0 {
        let lines = if name_rule {
            &LINES[..NAME_LINES]
        } else {
            LINES
        };
        return lines[rng.usize(..lines.len())].to_vec();
    }
    let mut rule = Vec::new();
    if rng.u8(..4) == 0 {
        rule.push(b'!');
    }
    if !name_rule && rng.u8(..4) == 0 {
        rule.push(b'/');
    }
    let segments = if name_rule { 1 } else { rng.usize(1..4) };
    for i in 0..segments {
        if i > 0 {
            rule.push(b'/');
        }
        rule.extend_from_slice(SEGMENTS[rng.usize(..SEGMENTS.len())]);
    }
    if rng.u8(..4) == 0 {
        rule.push(b'/');
    }
    match rng.u8(..10) {
        0 => rule.extend_from_slice(b"  "),
        1 => rule.push(b'\t'),
        _ => {}
    }
    rule
}

/// A random rule file of up to `most` lines, CRLF now and then, its last line
/// sometimes without a line end.
pub fn random_rules(rng: &mut fastrand::Rng, most: usize, name_rules: bool) -> Vec<u8> {
    let mut text = Vec::new();
    for _ in 0..rng.usize(1..=most) {
        text.extend_from_slice(&random_rule(rng, name_rules));
        text.extend_from_slice(if rng.u8(..10) == 0 { b"\r\n" } else { b"\n" });
    }
    if rng.u8(..6) == 0 {
        text.pop();
    }
    text
}

/// A random path of one to four names, and where its last name starts.
pub fn random_path(rng: &mut fastrand::Rng) -> (Vec<u8>, usize) {
    let mut path = Vec::new();
    let mut name_start = 0;
    for i in 0..rng.usize(1..5) {
        if i > 0 {
            path.push(b'/');
            name_start = path.len();
        }
        path.extend_from_slice(NAMES[rng.usize(..NAMES.len())]);
    }
    (path, name_start)
}
