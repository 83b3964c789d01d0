//! Every way of printing a match other than the two the walker writes inline (plain
//! paths and `-l`): `--format` templates, `--json`, colours, hyperlinks, and sorted
//! output.
//!
//! The walker's per-file path stays exactly as short as it was without these options:
//! a [`Format`] turns the run's output mode into [`OutputMode::Formatted`], which the
//! walker tests once per match on a flag it already tests (whether to `stat`), and
//! every match then goes out of line to a per-worker [`Records`]: a [`Printer`] that
//! writes the record into the worker's output block, or, with `--sort`, a
//! [`SortRun`] that keeps it for the end of the walk.
//!
//! [`Format::needs_stat`] is the one place that says whether printing (or sorting)
//! a match of some kind needs its `stat`; the walker combines it with what the filters
//! need through [`OutputMode::needs_stat`].

use crate::color::{is_executable, Palette, Shade};
use crate::config::OutputMode;
use crate::dirent::{stat_at, EntryKind};
use crate::hyperlink::Hyperlinks;
use crate::meta::{Clock, Meta, Names};
use crate::output::push_size_column;
use crate::sort::{SortOrder, SortRun};
use crate::template::{Fields, Template};

/// What each record looks like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The path.
    Path,
    /// `-l`: the size column, then the path.
    Long,
    /// `--format`.
    Template(Template),
    /// `--json`, with the metadata fields when `meta` (`--json -l`).
    Json { meta: bool },
}

/// How matches are printed, when that is more than the walker's inline modes do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub shape: Shape,
    /// The byte after each record (`-0`: NUL).
    pub terminator: u8,
    /// `--color`, for [`Shape::Path`] and [`Shape::Long`] only.
    pub color: Option<Palette>,
    /// `--hyperlink`, for [`Shape::Path`] and [`Shape::Long`] only.
    pub hyperlink: Option<Hyperlinks>,
    /// `--sort`: matches are kept and printed in this order at the end.
    pub sort: Option<SortOrder>,
}

impl Format {
    /// Resolves a format into the run's output mode, and the format itself when the
    /// walker's inline modes cannot print it. Plain paths and `-l` without colour,
    /// links or sorting stay on the inline path, whatever else was asked.
    pub fn resolve(mut self) -> (OutputMode, Option<Format>) {
        if !matches!(self.shape, Shape::Path | Shape::Long) {
            // Escapes would corrupt JSON and user templates.
            self.color = None;
            self.hyperlink = None;
        }
        let terminator = self.terminator;
        let plain = self.color.is_none() && self.hyperlink.is_none() && self.sort.is_none();
        match self.shape {
            Shape::Path if plain => (OutputMode::Paths { terminator }, None),
            Shape::Long if plain => (OutputMode::Long { terminator }, None),
            _ => {
                let mode = OutputMode::Formatted {
                    stat_files: self.needs_stat(EntryKind::File),
                    stat_others: self.needs_stat(EntryKind::Dir),
                };
                (mode, Some(self))
            }
        }
    }

    /// True when printing or sorting a match of `kind` needs its `stat`: `-l`, the
    /// metadata placeholders, `--json -l`, `--sort size|mtime`, and colours that
    /// tell executable files apart.
    pub fn needs_stat(&self, kind: EntryKind) -> bool {
        let shape = match &self.shape {
            Shape::Path => false,
            Shape::Long => true,
            Shape::Template(template) => template.needs_stat(),
            Shape::Json { meta } => *meta,
        };
        let color = kind == EntryKind::File && self.color.as_ref().is_some_and(Palette::needs_mode);
        let sort = self.sort.is_some_and(|order| order.key.needs_stat());
        shape || color || sort
    }
}

/// One match on its way to a record.
#[derive(Clone, Copy)]
pub struct Match<'a> {
    /// The path, in two parts to concatenate (the directory's prefix and the name).
    pub parts: [&'a [u8]; 2],
    pub kind: EntryKind,
    /// Present whenever [`Format::needs_stat`] said so for `kind`.
    pub meta: Option<&'a Meta>,
}

/// One worker's share of formatted output.
pub enum Records<'a> {
    /// Records written as matches are found.
    Print(Printer<'a>),
    /// `--sort`: matches kept until the walk is over.
    Keep(SortRun),
}

impl<'a> Records<'a> {
    /// `keep_at_most`: with `--sort`, the `--max-results` bound, so a worker never
    /// holds more than it could print.
    pub fn new(format: &'a Format, keep_at_most: Option<u64>) -> Records<'a> {
        match format.sort {
            Some(order) => Records::Keep(SortRun::new(order, keep_at_most)),
            None => Records::Print(Printer::new(format)),
        }
    }

    /// Writes the record for `found` into `block`, or keeps it.
    pub fn add(&mut self, block: &mut Vec<u8>, found: &Match<'_>) {
        match self {
            Records::Print(printer) => printer.write(block, found),
            Records::Keep(run) => run.push(found),
        }
    }

    /// The matches kept for sorting, if any.
    pub fn into_kept(self) -> Option<SortRun> {
        match self {
            Records::Print(_) => None,
            Records::Keep(run) => Some(run),
        }
    }
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
                crate::json::push_record(out, path, type_letter(kind), meta, &mut self.clock)
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
        if let Some(links) = &self.format.hyperlink {
            links.push_start(out, path);
        }
        match &self.format.color {
            Some(palette) => palette.push_path(out, path, shade(palette, path, kind, meta)),
            None => out.extend_from_slice(path),
        }
        if self.format.hyperlink.is_some() {
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
        .and_then(|path| stat_at(libc::AT_FDCWD, &path, true).ok());
    match target {
        None => Shade::Orphan,
        Some(stat) if palette.links_as_targets() => {
            let target = Meta::from_stat(&stat);
            Palette::shade(
                EntryKind::from_mode(stat.st_mode),
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
        EntryKind::Other | EntryKind::Unknown => b'?',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::SortKey;

    fn format(shape: Shape) -> Format {
        Format {
            shape,
            terminator: b'\n',
            color: None,
            hyperlink: None,
            sort: None,
        }
    }

    #[test]
    fn only_what_the_inline_path_cannot_print_is_formatted() {
        let (mode, rest) = format(Shape::Path).resolve();
        assert_eq!(mode, OutputMode::Paths { terminator: b'\n' });
        assert!(rest.is_none());
        let (mode, rest) = format(Shape::Long).resolve();
        assert_eq!(mode, OutputMode::Long { terminator: b'\n' });
        assert!(rest.is_none());
        // Colours are dropped from JSON, which then needs no stat.
        let mut json = format(Shape::Json { meta: false });
        json.color = Some(Palette::parse(b"ex=32"));
        let (mode, rest) = json.resolve();
        assert_eq!(
            mode,
            OutputMode::Formatted {
                stat_files: false,
                stat_others: false
            }
        );
        assert!(rest.unwrap().color.is_none());
    }

    #[test]
    fn stat_is_needed_only_for_metadata() {
        let template = |text| Shape::Template(Template::parse(text).unwrap());
        let mut sorted = format(Shape::Path);
        sorted.sort = Some(SortOrder {
            key: SortKey::Path,
            reverse: false,
        });
        let mut by_size = format(Shape::Path);
        by_size.sort = Some(SortOrder {
            key: SortKey::Size,
            reverse: true,
        });
        let mut coloured = format(Shape::Path);
        coloured.color = Some(Palette::parse(b"ex=32"));
        let mut coloured_no_exec = format(Shape::Path);
        coloured_no_exec.color = Some(Palette::parse(b"di=34"));
        // (format, files need a stat, others need a stat)
        let cases: Vec<(Format, bool, bool)> = vec![
            (format(Shape::Path), false, false),
            (format(Shape::Long), true, true),
            (format(template("{} {/.} {type}")), false, false),
            (format(template("{mtime}")), true, true),
            (format(Shape::Json { meta: false }), false, false),
            (format(Shape::Json { meta: true }), true, true),
            (sorted, false, false),
            (by_size, true, true),
            (coloured, true, false),
            (coloured_no_exec, false, false),
        ];
        for (format, files, others) in cases {
            let (mode, _) = format.clone().resolve();
            assert_eq!(mode.needs_stat(EntryKind::File), files, "{format:?}");
            assert_eq!(mode.needs_stat(EntryKind::Dir), others, "{format:?}");
            assert_eq!(mode.needs_stat(EntryKind::Symlink), others, "{format:?}");
        }
    }

    #[test]
    fn printer_writes_each_shape() {
        let meta = Meta {
            size: 42,
            mode: 0o100755,
            ..Meta::default()
        };
        let mut coloured = format(Shape::Long);
        coloured.color = Some(Palette::parse(b"di=34:ex=32"));
        coloured.terminator = 0;
        // (format, kind, expected)
        let cases: Vec<(Format, EntryKind, &[u8])> = vec![
            (format(Shape::Path), EntryKind::File, b"d/f\n"),
            (format(Shape::Long), EntryKind::File, b"          42 d/f\n"),
            (
                format(Shape::Template(
                    Template::parse("{type}:{/}:{size}").unwrap(),
                )),
                EntryKind::Dir,
                b"d:f:42\n",
            ),
            (
                format(Shape::Json { meta: false }),
                EntryKind::Symlink,
                b"{\"path\":\"d/f\",\"type\":\"l\"}\n",
            ),
            (
                coloured,
                EntryKind::File,
                b"          42 \x1b[34md/\x1b[0m\x1b[32mf\x1b[0m\0",
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
