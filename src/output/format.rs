//! What the output looks like, in one place: the run's [`OutputMode`] (what the walker
//! writes inline, or sends out of line), the [`Format`] of out-of-line records
//! (`--format`, `--json`, colours, hyperlinks) and the [`SortOrder`] of `--sort`.
//!
//! [`Format::resolve`] turns a format into the run's output mode: plain paths and `-l`
//! stay on the walker's inline path; everything else becomes
//! [`OutputMode::Formatted`], which the walker tests once per match on a flag it
//! already tests (whether to `stat`). [`Format::needs_stat`] is the one place that
//! says whether printing (or sorting) a match of some kind needs its `stat`; the
//! walker combines it with what the filters need through [`OutputMode::needs_stat`].

use super::color::Palette;
use super::hyperlink::Hyperlinks;
use super::template::Template;
use crate::os::dirent::EntryKind;
use crate::os::stat::Fields;

/// What the walk reports for each match.
///
/// `repr(u8)` keeps the variant in a tag byte of its own. Without it, Rust stores the
/// variant in the spare values of `Formatted`'s booleans, and reading it back costs
/// the walker's inline path six more instructions per file (callgrind, `medium`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OutputMode {
    /// One path per match, each followed by the terminator byte.
    Paths { terminator: u8 },
    /// `-l`: the size in bytes right-aligned in 20 columns, a space, the path, the
    /// terminator.
    Long { terminator: u8 },
    /// `-c`: only the number of matches, printed once at the end.
    Count,
    /// `-s`: only the number of matches and their total size, printed once at the end.
    SizeSum,
    /// `-q`: nothing at all; the walk stops at the first match (`max_results` is 1)
    /// and the exit status says whether there was one.
    Quiet,
    /// Records the walker does not write inline (`--format`, `--json`, `--sort`,
    /// colours, hyperlinks): `Config::format` says how, and each match goes out of
    /// line to a [`super::formatted::FormattedOutput`]. The flags say which matches that needs a
    /// `stat` for; [`Format::resolve`] sets them.
    Formatted { stat_files: bool, stat_others: bool },
}

impl OutputMode {
    /// True when printing a match of `kind` needs its `stat` (its size, times, mode
    /// or owner). This is the only question the walk asks of the output; filters add
    /// their own needs to it.
    pub fn needs_stat(self, kind: EntryKind) -> bool {
        match self {
            OutputMode::Long { .. } | OutputMode::SizeSum => true,
            OutputMode::Formatted {
                stat_files,
                stat_others,
            } => {
                if kind == EntryKind::File {
                    stat_files
                } else {
                    stat_others
                }
            }
            OutputMode::Paths { .. } | OutputMode::Count | OutputMode::Quiet => false,
        }
    }
}

/// What each record looks like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The path.
    Path,
    /// `-l`: the size column, then the path.
    Long,
    /// `-l --human-readable`: the size for a person (`1.5 KiB`) in a narrower
    /// column, then the path. Always out of line: the default `-l` keeps the
    /// walker's inline path and its byte column.
    LongHuman,
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
    /// `--color`, for [`Shape::Path`] and the `-l` shapes only.
    pub color: Option<Palette>,
    /// `--hyperlink`, for [`Shape::Path`] and the `-l` shapes only.
    pub hyperlink: Option<Hyperlinks>,
    /// `--sort`: matches are kept and printed in this order at the end.
    pub sort: Option<SortOrder>,
}

impl Format {
    /// Resolves a format into the run's output mode, and the format itself when the
    /// walker's inline modes cannot print it. Plain paths and `-l` without colour,
    /// links or sorting stay on the inline path, whatever else was asked.
    pub fn resolve(mut self) -> (OutputMode, Option<Format>) {
        if !matches!(self.shape, Shape::Path | Shape::Long | Shape::LongHuman) {
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
            Shape::Long | Shape::LongHuman => true,
            Shape::Template(template) => template.needs_stat(),
            Shape::Json { meta } => *meta,
        };
        let color = kind == EntryKind::File && self.color.as_ref().is_some_and(Palette::needs_mode);
        let sort = self.sort.is_some_and(|order| order.key.needs_stat());
        shape || color || sort
    }

    /// The fields of a `stat` printing and sorting read, for the matches that
    /// [`Self::needs_stat`] says need one.
    pub fn fields(&self) -> Fields {
        let shape = match &self.shape {
            Shape::Path => Fields::default(),
            Shape::Long | Shape::LongHuman => Fields::SIZE,
            Shape::Template(template) => template.fields(),
            Shape::Json { meta: false } => Fields::default(),
            Shape::Json { meta: true } => (Fields::SIZE.with(Fields::MODE))
                .with(Fields::MTIME.with(Fields::ATIME))
                .with(Fields::CTIME.with(Fields::BTIME)),
        };
        let color = match &self.color {
            Some(palette) if palette.needs_mode() => Fields::MODE,
            _ => Fields::default(),
        };
        let sort = match self.sort.map(|order| order.key) {
            Some(SortKey::Size) => Fields::SIZE,
            Some(SortKey::Mtime) => Fields::MTIME,
            Some(SortKey::Path) | None => Fields::default(),
        };
        shape.with(color).with(sort)
    }
}

/// What `--sort` orders by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Path,
    Size,
    Mtime,
}

impl SortKey {
    /// True when the key comes from a `stat`.
    pub fn needs_stat(self) -> bool {
        self != SortKey::Path
    }
}

/// The order matches are printed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortOrder {
    pub key: SortKey,
    pub reverse: bool,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) trait Plain {
        /// `shape`, one match per line, with no colour, link or sort: what the tests
        /// of this folder start from.
        fn plain(shape: Shape) -> Format;
    }

    impl Plain for Format {
        fn plain(shape: Shape) -> Format {
            Format {
                shape,
                terminator: b'\n',
                color: None,
                hyperlink: None,
                sort: None,
            }
        }
    }

    #[test]
    fn only_what_the_inline_path_cannot_print_is_formatted() {
        let (mode, rest) = Format::plain(Shape::Path).resolve();
        assert_eq!(mode, OutputMode::Paths { terminator: b'\n' });
        assert!(rest.is_none());
        let (mode, rest) = Format::plain(Shape::Long).resolve();
        assert_eq!(mode, OutputMode::Long { terminator: b'\n' });
        assert!(rest.is_none());
        // Colours are dropped from JSON, which then needs no stat.
        let mut json = Format::plain(Shape::Json { meta: false });
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
        let mut sorted = Format::plain(Shape::Path);
        sorted.sort = Some(SortOrder {
            key: SortKey::Path,
            reverse: false,
        });
        let mut by_size = Format::plain(Shape::Path);
        by_size.sort = Some(SortOrder {
            key: SortKey::Size,
            reverse: true,
        });
        let mut coloured = Format::plain(Shape::Path);
        coloured.color = Some(Palette::parse(b"ex=32"));
        let mut coloured_no_exec = Format::plain(Shape::Path);
        coloured_no_exec.color = Some(Palette::parse(b"di=34"));
        // (format, files need a stat, others need a stat)
        let cases: Vec<(Format, bool, bool)> = vec![
            (Format::plain(Shape::Path), false, false),
            (Format::plain(Shape::Long), true, true),
            (Format::plain(Shape::LongHuman), true, true),
            (Format::plain(template("{} {/.} {type}")), false, false),
            (Format::plain(template("{mtime}")), true, true),
            (Format::plain(Shape::Json { meta: false }), false, false),
            (Format::plain(Shape::Json { meta: true }), true, true),
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
}
