//! Numbers in decimal, written without allocating: the out-of-memory message
//! (`alloc.rs`, which must not allocate), the size column of `-l` (once per match)
//! and the numbers of `--format` and `--json`.

/// The most digits a `u64` has.
pub const MAX_DIGITS: usize = 20;

/// `value` in decimal, written at the end of `buffer`; returns the digits.
pub fn digits(value: u64, buffer: &mut [u8; MAX_DIGITS]) -> &[u8] {
    let mut start = buffer.len();
    let mut rest = value;
    loop {
        start -= 1;
        buffer[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    &buffer[start..]
}

/// Appends `value` in decimal to `out`.
pub fn push(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(digits(value, &mut [0; MAX_DIGITS]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_those_display_writes() {
        for value in [
            0,
            1,
            9,
            10,
            99,
            100,
            1500,
            4096,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = b"x".to_vec();
            push(&mut out, value);
            assert_eq!(out, format!("x{value}").into_bytes());
        }
    }
}
