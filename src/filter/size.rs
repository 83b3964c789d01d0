//! `-S/--size`, `--min-size` and `--max-size`: the size syntax and its test.

use std::fmt;

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
