//! How sizes are written: the right-aligned column that starts each `-l` line, and
//! the line `-s` prints at the end.

use crate::decimal;

/// Width of the size column of `-l`: the digits of the largest 64-bit number, so no
/// size can push the path out of place and `cut -c22-` always gives it back. (It was
/// 12, and a file of 1 TB or more shifted its path: issue 20.)
pub const LONG_SIZE_WIDTH: usize = 20;

/// Appends `size` in decimal, right-aligned in [`LONG_SIZE_WIDTH`] columns, and one
/// space: the start of an `-l` line. No allocation, as it runs once per match. Never
/// inlined: it would only swell the walk's inner loop for the other output modes.
#[inline(never)]
pub fn push_size_column(out: &mut Vec<u8>, size: u64) {
    let mut buffer = [0; decimal::MAX_DIGITS];
    let digits = decimal::digits(size, &mut buffer);
    let len = digits.len();
    out.resize(out.len() + LONG_SIZE_WIDTH.saturating_sub(len), b' ');
    out.extend_from_slice(digits);
    out.push(b' ');
}

/// Width of the size column of `-l --human-readable`: the longest [`human_size`] of
/// a 64-bit size, `1023.9 KiB`, so that `cut -c12-` gives every path back.
pub const HUMAN_SIZE_WIDTH: usize = 10;

/// Appends [`human_size`] of `size`, right-aligned in [`HUMAN_SIZE_WIDTH`] columns,
/// and one space: the start of an `-l --human-readable` line.
pub fn push_human_size_column(out: &mut Vec<u8>, size: u64) {
    let text = human_size(u128::from(size));
    out.resize(
        out.len() + HUMAN_SIZE_WIDTH.saturating_sub(text.len()),
        b' ',
    );
    out.extend_from_slice(text.as_bytes());
    out.push(b' ');
}

/// `size` for a person, in powers of 1024 as `du -h` and `ls -lh` count: `512 B`,
/// `1.5 KiB`, `3.2 GiB`, with one decimal above bytes. A total can pass 2^64 bytes
/// (16 EiB: two sparse files of 2^63 - 1 bytes on tmpfs), hence 128 bits and units
/// up to YiB.
pub fn human_size(size: u128) -> String {
    const UNITS: [&str; 8] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
    if size < 1024 {
        return format!("{size} B");
    }
    let mut value = size as f64 / 1024.0;
    let mut unit = 0;
    // Step up before rounding could print `1024.0 KiB`.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The line `-s` prints: `3 matches, 1.5 MiB (1572864 bytes)`. `bytes` is exact
/// at any total (see [`human_size`]).
pub fn size_summary(matches: u64, bytes: u128) -> String {
    let noun = if matches == 1 { "match" } else { "matches" };
    format!("{matches} {noun}, {} ({bytes} bytes)\n", human_size(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_column_is_right_aligned() {
        let cases: &[(u64, &str)] = &[
            (0, "                   0 "),
            (7, "                   7 "),
            (1024, "                1024 "),
            (999_999_999_999, "        999999999999 "),
            (1_000_000_000_000, "       1000000000000 "),
            (i64::MAX as u64, " 9223372036854775807 "),
            (u64::MAX, "18446744073709551615 "),
        ];
        for &(size, want) in cases {
            assert_eq!(want.len(), LONG_SIZE_WIDTH + 1);
            let mut out = b"x".to_vec();
            push_size_column(&mut out, size);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                format!("x{want}"),
                "{size}"
            );
        }
    }

    #[test]
    fn human_size_column_is_right_aligned_and_wide_enough_for_any_size() {
        let column = |size: u64| {
            let mut out = Vec::new();
            push_human_size_column(&mut out, size);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(column(0), "       0 B ");
        assert_eq!(column(1536), "   1.5 KiB ");
        assert_eq!(column(1_048_524), "1023.9 KiB ");
        assert_eq!(column(u64::MAX), "  16.0 EiB ");
        // Just below, at and above every power of two, and below each step up.
        let mut sizes = vec![u64::MAX];
        for shift in 0..64 {
            let power = 1u64 << shift;
            sizes.extend([
                power - 1,
                power,
                power + 1,
                power / 1024 * 1023 + power / 1024 * 95 / 100,
            ]);
        }
        for size in sizes {
            assert_eq!(column(size).len(), HUMAN_SIZE_WIDTH + 1, "{size}");
        }
    }

    #[test]
    fn human_sizes() {
        let cases: &[(u128, &str)] = &[
            (0, "0 B"),
            (1023, "1023 B"),
            (1024, "1.0 KiB"),
            (1536, "1.5 KiB"),
            (1024 * 1024 - 1, "1.0 MiB"),
            (5 * 1024 * 1024 + 300 * 1024, "5.3 MiB"),
            (3 << 30, "3.0 GiB"),
            (1 << 40, "1.0 TiB"),
            (u64::MAX as u128, "16.0 EiB"),
            (1 << 64, "16.0 EiB"),
            (1 << 70, "1.0 ZiB"),
            (1 << 80, "1.0 YiB"),
            (u128::MAX, "281474976710656.0 YiB"),
        ];
        for &(size, want) in cases {
            assert_eq!(human_size(size), want, "{size}");
        }
        assert_eq!(size_summary(1, 0), "1 match, 0 B (0 bytes)\n");
        assert_eq!(
            size_summary(3, 1572864),
            "3 matches, 1.5 MiB (1572864 bytes)\n"
        );
        // Two files of 2^63 - 1 bytes and one of 2: past what 64 bits hold.
        let total = 2 * u128::from(i64::MAX as u64) + 2;
        assert_eq!(
            size_summary(3, total),
            "3 matches, 16.0 EiB (18446744073709551616 bytes)\n"
        );
    }
}
