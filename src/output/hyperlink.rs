//! `--hyperlink`: each printed path wrapped in an OSC 8 escape sequence, so terminals
//! that support it (as with fd 10.2 and ripgrep 14) open the file on click.
//!
//! The link is `file://HOST/ABSOLUTE/PATH`: the host name from `gethostname` (some
//! terminals refuse links to other hosts), the path made absolute against the working
//! directory read once at start-up, and every byte outside the URL's unreserved set
//! and `/` percent-encoded, so spaces, `#`, `%`, newlines and invalid UTF-8 all
//! survive the trip. Without a working directory (it was deleted) absolute paths
//! are still links and relative ones are printed plain; `main` warns once.

use crate::os::path::absolute_path;

/// What every link of a run starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hyperlinks {
    /// `file://HOST`, host already encoded.
    prefix: Vec<u8>,
    /// The working directory, to make relative paths absolute; `None` if it could
    /// not be read.
    cwd: Option<Vec<u8>>,
}

impl Hyperlinks {
    pub fn new(host: &[u8], cwd: Option<Vec<u8>>) -> Hyperlinks {
        let mut prefix = b"file://".to_vec();
        percent_encode(&mut prefix, host);
        Hyperlinks { prefix, cwd }
    }

    /// The links for this process: its host name and working directory.
    pub fn from_env() -> Hyperlinks {
        use std::os::unix::ffi::OsStringExt;
        let cwd = std::env::current_dir().ok();
        Hyperlinks::new(
            &crate::os::host::name(),
            cwd.map(|dir| dir.into_os_string().into_vec()),
        )
    }

    /// Appends the sequence that opens a link to `path`, and says whether it did: a
    /// relative path has no link without a working directory.
    pub fn push_start(&self, out: &mut Vec<u8>, path: &[u8]) -> bool {
        let cwd: &[u8] = match &self.cwd {
            _ if path.starts_with(b"/") => b"",
            Some(cwd) => cwd,
            None => return false,
        };
        out.extend_from_slice(b"\x1b]8;;");
        out.extend_from_slice(&self.prefix);
        percent_encode(out, &absolute_path(cwd, path));
        out.extend_from_slice(b"\x1b\\");
        true
    }

    /// Appends the sequence that closes a link.
    pub fn push_end(out: &mut Vec<u8>) {
        out.extend_from_slice(b"\x1b]8;;\x1b\\");
    }
}

/// Appends `bytes` with every byte other than ASCII letters, digits, `-._~` and `/`
/// written as `%XX` (RFC 3986).
pub fn percent_encode(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in bytes {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte);
        } else {
            out.extend_from_slice(&[
                b'%',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 15)],
            ]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_percent_encoded() {
        let cases: &[(&[u8], &str)] = &[
            (b"/a/b-c_d.e~f", "/a/b-c_d.e~f"),
            (b"/with space", "/with%20space"),
            (b"/q?#%&+=:;", "/q%3F%23%25%26%2B%3D%3A%3B"),
            (b"/new\nline", "/new%0Aline"),
            (b"/bad\xff\xfe", "/bad%FF%FE"),
            ("/ü".as_bytes(), "/%C3%BC"),
        ];
        for &(bytes, want) in cases {
            let mut out = Vec::new();
            percent_encode(&mut out, bytes);
            assert_eq!(String::from_utf8(out).unwrap(), want, "{bytes:?}");
        }
    }

    #[test]
    fn links_are_absolute_and_closed() {
        let links = Hyperlinks::new(b"box", Some(b"/home/u".to_vec()));
        let mut out = Vec::new();
        assert!(links.push_start(&mut out, b"./d/a b"));
        out.extend_from_slice(b"text");
        Hyperlinks::push_end(&mut out);
        assert_eq!(
            out,
            b"\x1b]8;;file://box/home/u/d/a%20b\x1b\\text\x1b]8;;\x1b\\"
        );
        let mut out = Vec::new();
        assert!(links.push_start(&mut out, b"/abs"));
        assert_eq!(out, b"\x1b]8;;file://box/abs\x1b\\");
    }

    /// With the working directory gone, absolute paths are still links and
    /// relative ones get none (and no half-open sequence).
    #[test]
    fn without_a_working_directory_only_absolute_paths_are_links() {
        let links = Hyperlinks::new(b"box", None);
        let mut out = Vec::new();
        assert!(links.push_start(&mut out, b"/abs/f"));
        assert_eq!(out, b"\x1b]8;;file://box/abs/f\x1b\\");
        let mut out = Vec::new();
        assert!(!links.push_start(&mut out, b"rel/f"));
        assert!(out.is_empty());
    }
}
