//! `--json`: one JSON object per match, one per line (NDJSON).
//!
//! ```text
//! {"path":"photos/a.jpg","type":"f"}
//! {"path":"bad\ufffd.txt","path_b64":"YmFk/y50eHQ=","type":"f"}
//! {"path":"big.bin","type":"f","size":1500,"mtime":1714567890,"mtime_iso":"2024-05-01T14:51:30+02:00","atime":1714567990,"ctime":1714567890,"btime":1714567000,"mode":"644"}
//! ```
//!
//! File names are bytes, JSON strings are Unicode. A path that is valid UTF-8 is
//! `path` exactly (escaped as JSON requires). One that is not gets `path` with each
//! invalid sequence replaced by U+FFFD, for display, plus `path_b64`: the exact bytes
//! in standard base64 (RFC 4648, with padding). So a reader takes `path_b64` when it is
//! present and `path` otherwise, and always gets the name back byte for byte. The
//! metadata fields (`-l`) need a `stat`; a plain `--json` needs none. The access,
//! change and birth times are seconds since the epoch; `btime` is left out where the
//! filesystem records no birth time.

use super::meta::{push_decimal, push_octal_mode, Clock, Meta};

/// Appends one JSON object for a match (without the line terminator).
pub fn push_object(
    out: &mut Vec<u8>,
    path: &[u8],
    type_letter: u8,
    meta: Option<&Meta>,
    clock: &mut Clock,
) {
    out.extend_from_slice(b"{\"path\":");
    match std::str::from_utf8(path) {
        Ok(text) => push_string(out, text),
        Err(_) => {
            push_string(out, &String::from_utf8_lossy(path));
            out.extend_from_slice(b",\"path_b64\":\"");
            push_base64(out, path);
            out.push(b'"');
        }
    }
    out.extend_from_slice(b",\"type\":\"");
    out.push(type_letter);
    out.push(b'"');
    if let Some(meta) = meta {
        out.extend_from_slice(b",\"size\":");
        push_decimal(out, meta.size);
        out.extend_from_slice(b",\"mtime\":");
        push_integer(out, meta.mtime);
        out.extend_from_slice(b",\"mtime_iso\":\"");
        clock.push_iso8601(out, meta.mtime);
        out.push(b'"');
        for (key, time) in [
            (&b",\"atime\":"[..], Some(meta.atime)),
            (b",\"ctime\":", Some(meta.ctime)),
            (b",\"btime\":", meta.btime()),
        ] {
            if let Some(time) = time {
                out.extend_from_slice(key);
                push_integer(out, time);
            }
        }
        out.extend_from_slice(b",\"mode\":\"");
        push_octal_mode(out, meta.mode);
        out.push(b'"');
    }
    out.push(b'}');
}

/// Appends a signed number of seconds.
fn push_integer(out: &mut Vec<u8>, value: i64) {
    if value < 0 {
        out.push(b'-');
    }
    push_decimal(out, value.unsigned_abs());
}

/// Appends `text` as a JSON string literal: quotes and backslashes escaped, control
/// characters as `\n`-style or `\u00XX` escapes, everything else as UTF-8.
pub fn push_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for &byte in text.as_bytes() {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0..=0x1f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(byte >> 4)]);
                out.push(HEX[usize::from(byte & 0xf)]);
            }
            // Multi-byte UTF-8 sequences are copied byte by byte: `text` is valid.
            _ => out.push(byte),
        }
    }
    out.push(b'"');
}

/// Appends `bytes` in standard base64 with `=` padding.
pub fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        let sextets = [n >> 18, n >> 12, n >> 6, n].map(|s| ALPHABET[(s & 63) as usize]);
        let kept = chunk.len() + 1;
        out.extend_from_slice(&sextets[..kept]);
        out.extend(std::iter::repeat_n(b'=', 4 - kept));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases: &[(&[u8], &str)] = &[
            (b"", ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"fooba", "Zm9vYmE="),
            (b"foobar", "Zm9vYmFy"),
            (b"\xff\xfe\x00", "//4A"),
        ];
        for &(bytes, want) in cases {
            let mut out = Vec::new();
            push_base64(&mut out, bytes);
            assert_eq!(out, want.as_bytes(), "{bytes:?}");
        }
    }

    #[test]
    fn strings_are_escaped() {
        let cases: &[(&str, &str)] = &[
            ("plain", r#""plain""#),
            ("q\"b\\", r#""q\"b\\""#),
            ("a\nb\tc\r", r#""a\nb\tc\r""#),
            ("\x01\x08\x0c\x1f\x7f", "\"\\u0001\\b\\f\\u001f\x7f\""),
            ("ünï", "\"ünï\""),
        ];
        for &(text, want) in cases {
            let mut out = Vec::new();
            push_string(&mut out, text);
            assert_eq!(String::from_utf8(out).unwrap(), want, "{text:?}");
        }
    }

    #[test]
    fn records_with_and_without_metadata() {
        let mut clock = Clock::default();
        let mut out = Vec::new();
        push_object(&mut out, b"d/a \"1\".txt", b'f', None, &mut clock);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"path":"d/a \"1\".txt","type":"f"}"#
        );
        let mut out = Vec::new();
        push_object(&mut out, b"bad\xff", b'l', None, &mut clock);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"path\":\"bad\u{fffd}\",\"path_b64\":\"YmFk/w==\",\"type\":\"l\"}"
        );
        let meta = Meta {
            size: 7,
            mtime: -5,
            mode: 0o40755,
            ..Meta::default()
        };
        let mut out = Vec::new();
        push_object(&mut out, b"d", b'd', Some(&meta), &mut clock);
        let iso = String::from_utf8(crate::output::meta::iso8601_local(-5)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                r#"{{"path":"d","type":"d","size":7,"mtime":-5,"mtime_iso":"{iso}","atime":0,"ctime":0,"mode":"755"}}"#
            )
        );
    }
}
