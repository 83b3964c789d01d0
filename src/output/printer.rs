//! Printing one match out of line: the [`Printer`] writes the record for a
//! [`Match`] in its [`Format`] (`--format` templates, `--json`, `-l` and plain paths
//! with colours and hyperlinks). One printer per worker, for its caches of times and
//! user names; the merge of `--sort` uses one too.

use super::color::{is_executable, Palette, Shade};
use super::format::{Format, Shape};
use super::hyperlink::Hyperlinks;
use super::meta::{Clock, Meta, Names};
use super::sizes::{push_human_size_column, push_size_column};
use super::template::Fields;
use crate::os::dirent::EntryKind;
use crate::os::stat::{self, stat_at};

/// One match on its way to a record.
#[derive(Clone, Copy)]
pub struct Match<'a> {
    /// The path, in two parts to concatenate (the directory's prefix and the name).
    pub parts: [&'a [u8]; 2],
    pub kind: EntryKind,
    /// Present whenever [`Format::needs_stat`] said so for `kind`.
    pub meta: Option<&'a Meta>,
}

/// Writes records in a [`Format`]; one per worker, for its caches.
pub struct Printer<'a> {
    format: &'a Format,
    /// The path being printed, when it came in two parts.
    path: Vec<u8>,
    clock: Clock,
    names: Names,
}

impl<'a> Printer<'a> {
    pub fn new(format: &'a Format) -> Printer<'a> {
        Printer {
            format,
            path: Vec::new(),
            clock: Clock::default(),
            names: Names::default(),
        }
    }

    /// Appends the record for `found` and its terminator.
    pub fn write(&mut self, out: &mut Vec<u8>, found: &Match<'_>) {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        path.extend_from_slice(found.parts[0]);
        path.extend_from_slice(found.parts[1]);
        self.write_record(out, &path, found.kind, found.meta);
        self.path = path;
    }

    /// Appends the record for the match `path` and its terminator.
    pub fn write_record(
        &mut self,
        out: &mut Vec<u8>,
        path: &[u8],
        kind: EntryKind,
        meta: Option<&Meta>,
    ) {
        let format = self.format;
        match &format.shape {
            Shape::Path => self.push_decorated_path(out, path, kind, meta),
            Shape::Long => {
                push_size_column(out, meta.map_or(0, |meta| meta.size));
                self.push_decorated_path(out, path, kind, meta);
            }
            Shape::LongHuman => {
                push_human_size_column(out, meta.map_or(0, |meta| meta.size));
                self.push_decorated_path(out, path, kind, meta);
            }
            Shape::Template(template) => {
                let fields = Fields {
                    path,
                    type_letter: type_letter(kind),
                    meta,
                };
                template.render(out, &fields, &mut self.clock, &mut self.names);
            }
            Shape::Json { meta: with_meta } => {
                // Metadata only with -l, even if a filter or the order took a stat.
                let meta = meta.filter(|_| *with_meta);
                super::json::push_object(out, path, type_letter(kind), meta, &mut self.clock)
            }
        }
        out.push(format.terminator);
    }

    fn push_decorated_path(
        &self,
        out: &mut Vec<u8>,
        path: &[u8],
        kind: EntryKind,
        meta: Option<&Meta>,
    ) {
        let linked =
            (self.format.hyperlink.as_ref()).is_some_and(|links| links.push_start(out, path));
        match &self.format.color {
            Some(palette) => palette.push_path(out, path, shade(palette, path, kind, meta)),
            None => out.extend_from_slice(path),
        }
        if linked {
            Hyperlinks::push_end(out);
        }
    }
}

/// What to colour a match as. A link's target is looked at only when the palette
/// cares (dangling links, `ln=target`), by its printed path: links are few, and the
/// walker has no descriptor to hand here.
fn shade(palette: &Palette, path: &[u8], kind: EntryKind, meta: Option<&Meta>) -> Shade {
    let executable = meta.is_some_and(|meta| is_executable(meta.mode));
    if kind != EntryKind::Symlink || !palette.needs_link_target() {
        return Palette::shade(kind, executable);
    }
    let target = std::ffi::CString::new(path)
        .ok()
        .and_then(|path| stat_at(libc::AT_FDCWD, &path, true, stat::Fields::MODE).ok());
    match target {
        None => Shade::Orphan,
        Some(stat) if palette.links_as_targets() => {
            let target = Meta::from_stat(&stat);
            Palette::shade(
                EntryKind::from_mode(stat.mode()),
                is_executable(target.mode),
            )
        }
        Some(_) => Shade::Link,
    }
}

/// `{type}` and JSON's `type`: the letters `-t` takes.
pub fn type_letter(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::File => b'f',
        EntryKind::Dir => b'd',
        EntryKind::Symlink => b'l',
        EntryKind::Socket => b's',
        EntryKind::Fifo => b'p',
        EntryKind::CharDevice => b'c',
        EntryKind::BlockDevice => b'b',
        EntryKind::Other | EntryKind::Unknown => b'?',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::format::tests::Plain;
    use crate::output::template::Template;

    #[test]
    fn printer_writes_each_shape() {
        let meta = Meta {
            size: 42,
            mode: 0o100755,
            ..Meta::default()
        };
        let mut coloured = Format::plain(Shape::Long);
        coloured.color = Some(Palette::parse(b"di=34:ex=32"));
        coloured.terminator = 0;
        // (format, kind, expected)
        let cases: Vec<(Format, EntryKind, &[u8])> = vec![
            (Format::plain(Shape::Path), EntryKind::File, b"d/f\n"),
            (
                Format::plain(Shape::Long),
                EntryKind::File,
                b"                  42 d/f\n",
            ),
            (
                Format::plain(Shape::Template(
                    Template::parse("{type}:{/}:{size}").unwrap(),
                )),
                EntryKind::Dir,
                b"d:f:42\n",
            ),
            (
                Format::plain(Shape::Json { meta: false }),
                EntryKind::Symlink,
                b"{\"path\":\"d/f\",\"type\":\"l\"}\n",
            ),
            (
                coloured,
                EntryKind::File,
                b"                  42 \x1b[34md/\x1b[0m\x1b[32mf\x1b[0m\0",
            ),
        ];
        for (format, kind, want) in cases {
            let mut printer = Printer::new(&format);
            let mut out = Vec::new();
            let found = Match {
                parts: [b"d/", b"f"],
                kind,
                meta: Some(&meta),
            };
            printer.write(&mut out, &found);
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(want),
                "{format:?}"
            );
        }
    }
}
