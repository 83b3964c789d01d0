//! `--color`: which colours a path is printed in, from `LS_COLORS` or a default palette.
//!
//! A path is printed in two parts, as fd and `ls` users expect: the directory part
//! (everything up to the last `/`) in the directory colour, then the name in the
//! colour of its kind: directory, symbolic link (or dangling link), FIFO, socket,
//! device, executable file, or a file whose name ends in one of `LS_COLORS`' `*.ext`
//! suffixes.
//!
//! `LS_COLORS` is read as `dircolors` writes it: `key=SGR` pairs separated by `:`,
//! where key is a two-letter type (`di`, `ln`, `or`, `ex`, `fi`, `pi`, `so`, `bd`, `cd`
//! are the ones a finder can show; the rest, about special permission bits and
//! hard links, are ignored) or `*SUFFIX`, matched against the end of the name ignoring ASCII case (as
//! GNU `ls` does since coreutils 9.2). `ln=target` colours a link as what it points
//! to. Entries that cannot be parsed are skipped, as `ls` skips them, rather than
//! failing a search over a colour.
//!
//! Colouring is done out of the walker's hot path (see `printer.rs`); without colours
//! this module is never called.

use crate::os::dirent::EntryKind;

/// SGR parameters, such as `01;34`.
type Style = Box<[u8]>;

/// SGR parameters (`01;34`) for each thing a path can be coloured as.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    dir: Option<Style>,
    link: Option<Style>,
    /// `ln=target`: colour a link as its target.
    link_as_target: bool,
    orphan: Option<Style>,
    exec: Option<Style>,
    file: Option<Style>,
    fifo: Option<Style>,
    socket: Option<Style>,
    block_device: Option<Style>,
    char_device: Option<Style>,
    /// `*SUFFIX` entries, suffixes lowercased; a later entry for the same suffix wins,
    /// and the longest matching suffix wins over shorter ones.
    suffixes: Vec<(Box<[u8]>, Style)>,
}

/// The palette used when `LS_COLORS` is not set: the types as GNU `dircolors` colours
/// them, and a few groups of extensions a person looks for in a listing.
const DEFAULT_LS_COLORS: &str = "di=01;34:ln=01;36:or=40;31;01:ex=01;32:\
pi=40;33:so=01;35:bd=40;33;01:cd=40;33;01:\
*.tar=01;31:*.tgz=01;31:*.gz=01;31:*.xz=01;31:*.zst=01;31:*.bz2=01;31:*.zip=01;31:\
*.7z=01;31:*.rar=01;31:\
*.jpg=01;35:*.jpeg=01;35:*.png=01;35:*.gif=01;35:*.webp=01;35:*.bmp=01;35:\
*.tiff=01;35:*.svg=01;35:*.mp4=01;35:*.mkv=01;35:*.mov=01;35:*.webm=01;35:*.avi=01;35:\
*.mp3=00;36:*.flac=00;36:*.wav=00;36:*.ogg=00;36:*.m4a=00;36";

/// What a match is, as far as colour goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shade {
    Dir,
    Link,
    /// A symbolic link whose target does not exist.
    Orphan,
    File {
        executable: bool,
    },
    Fifo,
    Socket,
    BlockDevice,
    CharDevice,
}

impl Palette {
    /// The palette from the environment: `LS_COLORS` when set and not empty, the
    /// default palette otherwise.
    pub fn from_env() -> Palette {
        match std::env::var_os("LS_COLORS") {
            Some(value) if !value.is_empty() => {
                use std::os::unix::ffi::OsStrExt;
                Palette::parse(value.as_bytes())
            }
            _ => Palette::parse(DEFAULT_LS_COLORS.as_bytes()),
        }
    }

    /// Parses an `LS_COLORS` value; entries it does not understand are skipped.
    pub fn parse(spec: &[u8]) -> Palette {
        let mut palette = Palette::default();
        for entry in spec.split(|&b| b == b':') {
            let Some(eq) = entry.iter().position(|&b| b == b'=') else {
                continue;
            };
            let (key, value) = (&entry[..eq], &entry[eq + 1..]);
            if key == b"ln" && value == b"target" {
                palette.link_as_target = true;
                continue;
            }
            // Only digits and `;` can go into an escape sequence safely.
            if !value.iter().all(|&b| b.is_ascii_digit() || b == b';') {
                continue;
            }
            // An empty or all-zero style means "no colour" (`ex=00` turns it off).
            let style = if value.iter().all(|&b| b == b'0' || b == b';') {
                None
            } else {
                Some(Box::from(value))
            };
            match key {
                b"di" => palette.dir = style,
                b"ln" => {
                    palette.link = style;
                    palette.link_as_target = false;
                }
                b"or" => palette.orphan = style,
                b"ex" => palette.exec = style,
                b"fi" => palette.file = style,
                b"pi" => palette.fifo = style,
                b"so" => palette.socket = style,
                b"bd" => palette.block_device = style,
                b"cd" => palette.char_device = style,
                [b'*', suffix @ ..] if !suffix.is_empty() => {
                    let suffix: Box<[u8]> = suffix.to_ascii_lowercase().into();
                    palette.suffixes.retain(|(known, _)| *known != suffix);
                    if let Some(style) = style {
                        palette.suffixes.push((suffix, style));
                    }
                }
                _ => {}
            }
        }
        palette
    }

    /// True when telling an executable from another file matters, which takes a
    /// `stat` of each file.
    pub fn needs_mode(&self) -> bool {
        self.exec.is_some()
    }

    /// True when a link's target must be looked at (dangling links, `ln=target`).
    pub fn needs_link_target(&self) -> bool {
        self.orphan.is_some() || self.link_as_target
    }

    /// True when `ln=target` asks for links to be coloured as their targets.
    pub fn links_as_targets(&self) -> bool {
        self.link_as_target
    }

    /// Appends `path` coloured: the directory part, then the name as `shade`.
    pub fn push_path(&self, out: &mut Vec<u8>, path: &[u8], shade: Shade) {
        let name_start = path
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(0, |slash| slash + 1);
        let (dir, name) = path.split_at(name_start);
        push_styled(out, self.dir.as_deref(), dir);
        push_styled(out, self.style_for(name, shade), name);
    }

    fn style_for(&self, name: &[u8], shade: Shade) -> Option<&[u8]> {
        match shade {
            Shade::Dir => self.dir.as_deref(),
            Shade::Link => self.link.as_deref(),
            Shade::Orphan => self.orphan.as_deref().or(self.link.as_deref()),
            Shade::Fifo => self.fifo.as_deref(),
            Shade::Socket => self.socket.as_deref(),
            Shade::BlockDevice => self.block_device.as_deref(),
            Shade::CharDevice => self.char_device.as_deref(),
            Shade::File { executable } => {
                let by_suffix = || {
                    self.suffixes
                        .iter()
                        .filter(|(suffix, _)| ends_with_ignore_case(name, suffix))
                        .max_by_key(|(suffix, _)| suffix.len())
                        .map(|(_, style)| &**style)
                };
                // `ls` puts the executable colour before the extension's.
                executable
                    .then_some(self.exec.as_deref())
                    .flatten()
                    .or_else(by_suffix)
                    .or(self.file.as_deref())
            }
        }
    }

    /// The shade of an entry of `kind`.
    pub fn shade(kind: EntryKind, executable: bool) -> Shade {
        match kind {
            EntryKind::Dir => Shade::Dir,
            EntryKind::Symlink => Shade::Link,
            EntryKind::Fifo => Shade::Fifo,
            EntryKind::Socket => Shade::Socket,
            EntryKind::BlockDevice => Shade::BlockDevice,
            EntryKind::CharDevice => Shade::CharDevice,
            _ => Shade::File { executable },
        }
    }
}

/// True when `mode` has any execute bit.
pub fn is_executable(mode: u32) -> bool {
    mode & 0o111 != 0
}

fn ends_with_ignore_case(name: &[u8], lowercase_suffix: &[u8]) -> bool {
    name.len() >= lowercase_suffix.len()
        && name[name.len() - lowercase_suffix.len()..]
            .iter()
            .zip(lowercase_suffix)
            .all(|(a, b)| a.to_ascii_lowercase() == *b)
}

/// `text` between an SGR sequence for `style` and a reset; plain when no style (or
/// nothing to colour).
fn push_styled(out: &mut Vec<u8>, style: Option<&[u8]>, text: &[u8]) {
    match style {
        Some(style) if !text.is_empty() => {
            out.extend_from_slice(b"\x1b[");
            out.extend_from_slice(style);
            out.push(b'm');
            out.extend_from_slice(text);
            out.extend_from_slice(b"\x1b[0m");
        }
        _ => out.extend_from_slice(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paint(palette: &Palette, path: &str, shade: Shade) -> String {
        let mut out = Vec::new();
        palette.push_path(&mut out, path.as_bytes(), shade);
        String::from_utf8(out).unwrap().replace('\x1b', "E")
    }

    #[test]
    fn ls_colors_is_parsed_leniently() {
        let palette = Palette::parse(
            b"di=01;34:ln=target:ex=00:*.JPG=35:*.tar.gz=31:*.gz=32:junk:fi=:x=1:*.bad=1m;rm",
        );
        assert_eq!(palette.dir.as_deref(), Some(&b"01;34"[..]));
        assert!(palette.link_as_target && palette.link.is_none());
        assert!(palette.exec.is_none() && !palette.needs_mode());
        assert!(palette.file.is_none());
        let suffixes: Vec<&[u8]> = palette.suffixes.iter().map(|(s, _)| &**s).collect();
        assert_eq!(suffixes, [&b".jpg"[..], b".tar.gz", b".gz"]);
        // A later entry for the same suffix replaces the earlier one.
        let palette = Palette::parse(b"*.c=31:*.C=32");
        assert_eq!(
            palette.suffixes,
            [(Box::from(&b".c"[..]), Box::from(&b"32"[..]))]
        );
    }

    #[test]
    fn paths_are_coloured_by_part_and_kind() {
        let palette =
            Palette::parse(b"di=34:ln=36:or=31:ex=32:fi=0:*.jpg=35:*.tar.gz=33:*.gz=30:*README=1");
        // (path, shade, expected with ESC shown as E)
        let cases: &[(&str, Shade, &str)] = &[
            ("d/sub", Shade::Dir, "E[34md/E[0mE[34msubE[0m"),
            (
                "d/x.JPG",
                Shade::File { executable: false },
                "E[34md/E[0mE[35mx.JPGE[0m",
            ),
            ("x.jpg", Shade::File { executable: true }, "E[32mx.jpgE[0m"),
            (
                "a.tar.gz",
                Shade::File { executable: false },
                "E[33ma.tar.gzE[0m",
            ),
            ("b.gz", Shade::File { executable: false }, "E[30mb.gzE[0m"),
            ("READMEx", Shade::File { executable: false }, "READMEx"),
            (
                "x/README",
                Shade::File { executable: false },
                "E[34mx/E[0mE[1mREADMEE[0m",
            ),
            ("plain", Shade::File { executable: false }, "plain"),
            ("l", Shade::Link, "E[36mlE[0m"),
            ("l", Shade::Orphan, "E[31mlE[0m"),
        ];
        for &(path, shade, want) in cases {
            assert_eq!(paint(&palette, path, shade), want, "{path} {shade:?}");
        }
        // The special kinds, each by its own key; unset, uncoloured.
        let palette = Palette::parse(b"pi=33:so=35:bd=1;33:cd=2;33");
        let cases: &[(&str, Shade, &str)] = &[
            ("p", Shade::Fifo, "E[33mpE[0m"),
            ("s", Shade::Socket, "E[35msE[0m"),
            ("b", Shade::BlockDevice, "E[1;33mbE[0m"),
            ("c", Shade::CharDevice, "E[2;33mcE[0m"),
            ("d/f", Shade::File { executable: false }, "d/f"),
        ];
        for &(path, shade, want) in cases {
            assert_eq!(paint(&palette, path, shade), want, "{path} {shade:?}");
        }
    }

    #[test]
    fn default_palette_is_readable_and_complete() {
        let palette = Palette::parse(DEFAULT_LS_COLORS.as_bytes());
        assert!(palette.dir.is_some() && palette.link.is_some());
        assert!(palette.orphan.is_some() && palette.exec.is_some());
        assert_eq!(
            paint(&palette, "a/b.png", Shade::File { executable: false }),
            "E[01;34ma/E[0mE[01;35mb.pngE[0m"
        );
        assert!(is_executable(0o100755) && !is_executable(0o100644));
    }
}
