//! What a character of a name or a pattern is: a UTF-8 character where the bytes
//! hold a valid one, else one byte, as a code point ([`decode`], a stray byte `b` as
//! `0xDC00 + b`); its lowercase for `-i` ([`fold`]); and the POSIX classes
//! (`[:alpha:]`, ...) as glibc's C.UTF-8 defines them ([`Named`]). Also `work`, the
//! count of steps with which the tests show that reading and compiling a pattern
//! take time linear in its length.

/// The POSIX character classes, `[:name:]` inside brackets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Named {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Xdigit,
}

pub(super) const NAMED: &[(&str, Named)] = &[
    ("alnum", Named::Alnum),
    ("alpha", Named::Alpha),
    ("blank", Named::Blank),
    ("cntrl", Named::Cntrl),
    ("digit", Named::Digit),
    ("graph", Named::Graph),
    ("lower", Named::Lower),
    ("print", Named::Print),
    ("punct", Named::Punct),
    ("space", Named::Space),
    ("upper", Named::Upper),
    ("xdigit", Named::Xdigit),
];

/// The code point standing for the byte `b` where it is not part of valid UTF-8.
pub(super) const fn invalid_byte(b: u8) -> u32 {
    0xdc00 + b as u32
}

impl Named {
    /// The ASCII characters in the class, as bits.
    pub(super) fn ascii_bits(self) -> u128 {
        work(128);
        (0..128u32)
            .filter(|&c| self.contains(c))
            .fold(0, |bits, c| bits | 1 << c)
    }

    /// ASCII characters as in the C locale. Other characters as glibc's C.UTF-8
    /// (its generator, `localedata/unicode-gen/unicode_utils.py`), on Rust's Unicode
    /// tables: `upper` and `lower` also hold what has a case mapping (the titlecase
    /// `ǅ` is both); `alpha` also holds decimal digits beyond ASCII, as `digit` and
    /// `xdigit` hold ASCII only; `punct` is every graphic character not in `alpha`;
    /// no-break spaces are not `space` or `blank`. Bytes that are not UTF-8 belong
    /// to no class.
    pub(super) fn contains(self, c: u32) -> bool {
        let Some(ch) = char::from_u32(c) else {
            return false;
        };
        if ch.is_ascii() {
            return match self {
                Named::Alnum => ch.is_ascii_alphanumeric(),
                Named::Alpha => ch.is_ascii_alphabetic(),
                Named::Blank => ch == ' ' || ch == '\t',
                Named::Cntrl => ch.is_ascii_control(),
                Named::Digit => ch.is_ascii_digit(),
                Named::Graph => ch.is_ascii_graphic(),
                Named::Lower => ch.is_ascii_lowercase(),
                Named::Print => ch.is_ascii_graphic() || ch == ' ',
                Named::Punct => ch.is_ascii_punctuation(),
                Named::Space => ch.is_ascii_whitespace() || ch == '\x0b',
                Named::Upper => ch.is_ascii_uppercase(),
                Named::Xdigit => ch.is_ascii_hexdigit(),
            };
        }
        let separator = matches!(ch, '\u{2028}' | '\u{2029}');
        match self {
            Named::Alnum | Named::Alpha => is_alpha(ch),
            Named::Blank => is_space(ch) && !separator,
            Named::Cntrl => ch.is_control() || separator,
            Named::Digit | Named::Xdigit => false,
            Named::Graph => is_print(ch) && !is_space(ch),
            Named::Lower => ch.is_lowercase() || maps_to_another(ch.to_uppercase(), ch),
            Named::Print => is_print(ch),
            Named::Punct => is_print(ch) && !is_space(ch) && !is_alpha(ch),
            Named::Space => is_space(ch),
            Named::Upper => ch.is_uppercase() || maps_to_another(ch.to_lowercase(), ch),
        }
    }
}

/// True when a case mapping of `ch` is one other character: glibc's tables hold
/// Unicode's simple mappings, and where the full one Rust gives is longer, the
/// simple one is the character itself or it is cased anyway (`ß`, `ᾀ`).
fn maps_to_another(mut mapped: impl ExactSizeIterator<Item = char>, ch: char) -> bool {
    mapped.len() == 1 && mapped.next() != Some(ch)
}

/// `alpha` beyond ASCII: Unicode's alphabetic characters and decimal digits.
fn is_alpha(ch: char) -> bool {
    ch.is_alphabetic() || is_decimal_digit(ch)
}

/// `space` beyond ASCII: Unicode's spaces and line and paragraph separators, but not
/// the control `U+0085` or the no-break spaces.
fn is_space(ch: char) -> bool {
    ch.is_whitespace() && !matches!(ch, '\u{85}' | '\u{a0}' | '\u{2007}' | '\u{202f}')
}

/// `print` beyond ASCII: not a control, a line or paragraph separator, or a
/// noncharacter. (glibc also leaves out code points its Unicode does not assign,
/// which Rust's standard library cannot tell.)
fn is_print(ch: char) -> bool {
    let c = u32::from(ch);
    let noncharacter = (0xfdd0..=0xfdef).contains(&c) || c & 0xfffe == 0xfffe;
    !ch.is_control() && !matches!(ch, '\u{2028}' | '\u{2029}') && !noncharacter
}

/// True for a decimal digit (Unicode category Nd) beyond ASCII.
fn is_decimal_digit(ch: char) -> bool {
    let c = u32::from(ch);
    match DECIMAL_DIGITS.binary_search_by(|&(first, _)| first.cmp(&c)) {
        Ok(_) => true,
        Err(0) => false,
        Err(after) => c <= DECIMAL_DIGITS[after - 1].1,
    }
}

/// The runs of decimal digits (Nd) beyond ASCII in Unicode 14.0, glibc 2.36's: first
/// and last of each. Rust's standard library has no test for Nd (`is_numeric` also
/// takes `²` and `½`, which glibc counts as `punct`).
const DECIMAL_DIGITS: &[(u32, u32)] = &[
    (0x660, 0x669),
    (0x6f0, 0x6f9),
    (0x7c0, 0x7c9),
    (0x966, 0x96f),
    (0x9e6, 0x9ef),
    (0xa66, 0xa6f),
    (0xae6, 0xaef),
    (0xb66, 0xb6f),
    (0xbe6, 0xbef),
    (0xc66, 0xc6f),
    (0xce6, 0xcef),
    (0xd66, 0xd6f),
    (0xde6, 0xdef),
    (0xe50, 0xe59),
    (0xed0, 0xed9),
    (0xf20, 0xf29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x17e0, 0x17e9),
    (0x1810, 0x1819),
    (0x1946, 0x194f),
    (0x19d0, 0x19d9),
    (0x1a80, 0x1a89),
    (0x1a90, 0x1a99),
    (0x1b50, 0x1b59),
    (0x1bb0, 0x1bb9),
    (0x1c40, 0x1c49),
    (0x1c50, 0x1c59),
    (0xa620, 0xa629),
    (0xa8d0, 0xa8d9),
    (0xa900, 0xa909),
    (0xa9d0, 0xa9d9),
    (0xa9f0, 0xa9f9),
    (0xaa50, 0xaa59),
    (0xabf0, 0xabf9),
    (0xff10, 0xff19),
    (0x104a0, 0x104a9),
    (0x10d30, 0x10d39),
    (0x11066, 0x1106f),
    (0x110f0, 0x110f9),
    (0x11136, 0x1113f),
    (0x111d0, 0x111d9),
    (0x112f0, 0x112f9),
    (0x11450, 0x11459),
    (0x114d0, 0x114d9),
    (0x11650, 0x11659),
    (0x116c0, 0x116c9),
    (0x11730, 0x11739),
    (0x118e0, 0x118e9),
    (0x11950, 0x11959),
    (0x11c50, 0x11c59),
    (0x11d50, 0x11d59),
    (0x11da0, 0x11da9),
    (0x16a60, 0x16a69),
    (0x16ac0, 0x16ac9),
    (0x16b50, 0x16b59),
    (0x1d7ce, 0x1d7ff),
    (0x1e140, 0x1e149),
    (0x1e2f0, 0x1e2f9),
    (0x1e950, 0x1e959),
    (0x1fbf0, 0x1fbf9),
];

/// `c` lowercased for `-i`: ASCII by table, other characters by Unicode's simple
/// lowercase mapping (the first character of the full mapping, which differs only
/// for `İ`); invalid bytes stay as they are.
pub(super) fn fold(c: u32) -> u32 {
    if c < 0x80 {
        return u32::from((c as u8).to_ascii_lowercase());
    }
    match char::from_u32(c).and_then(|ch| ch.to_lowercase().next()) {
        Some(lower) => u32::from(lower),
        None => c,
    }
}

/// The character at the start of `bytes` (not empty) and its length in bytes.
#[inline]
pub(super) fn decode(bytes: &[u8]) -> (u32, usize) {
    let first = bytes[0];
    if first < 0x80 {
        return (u32::from(first), 1);
    }
    let width = match first {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    };
    let valid = bytes
        .get(..width)
        .and_then(|seq| std::str::from_utf8(seq).ok())
        .and_then(|seq| seq.chars().next());
    match valid {
        Some(ch) => (u32::from(ch), width),
        None => (invalid_byte(first), 1),
    }
}

pub(super) fn decode_all(bytes: &[u8]) -> Vec<u32> {
    let mut chars = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        work(1);
        let (c, len) = decode(rest);
        chars.push(c);
        rest = &rest[len..];
    }
    chars
}

pub(super) fn is(c: u32, ascii: u8) -> bool {
    c == u32::from(ascii)
}

/// Characters of a pattern for a message, the first 40 of them.
pub(super) fn show(chars: &[u32]) -> String {
    const SHOWN: usize = 40;
    let text: String = chars
        .iter()
        .take(SHOWN)
        .map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if chars.len() > SHOWN {
        text + "..."
    } else {
        text
    }
}

thread_local! {
    /// Counts steps of compiling, which the tests read to show that compiling takes
    /// time linear in the pattern's length: a count, so that no test depends on a
    /// clock. Counted in every build (an add to a thread-local per step of compiling a
    /// pattern, never per entry), so that the code the tests count is the code that
    /// ships.
    pub(super) static WORK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[inline(always)]
pub(super) fn work(steps: usize) {
    WORK.with(|work| work.set(work.get() + steps));
}
