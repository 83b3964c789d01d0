//! `--format TEMPLATE`: parsing a template once, and filling it in for each match.
//!
//! The path placeholders are fd's (`{}`, `{/}`, `{//}`, `{.}`, `{/.}`), read by the
//! parser `--exec` shares ([`placeholder`], in its strict syntax); the metadata ones
//! (`{size}`, `{mtime}`, ...) are ours. A template is parsed into a list of
//! [`Piece`]s at start-up, so an unknown placeholder is a usage error before the walk
//! starts, and [`Template::needs_stat`] can tell whether any match must be `stat`ed:
//! a template of path placeholders only costs no more system calls than plain output.

use super::meta::{push_decimal, push_octal_mode, Clock, Meta, Names};
use super::placeholder::{self, Part, PathPart, Syntax};
use crate::os::stat::Fields as StatFields;

/// A placeholder of a template: a part of the path (read by the parser `--exec`
/// shares, `placeholder.rs`) or what `--format` adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    Path(PathPart),
    /// `{type}`: `f`, `d` or `l`.
    Type,
    /// The placeholders below need a `stat`.
    Size,
    Mtime,
    Atime,
    Ctime,
    /// `-` where the filesystem records no birth time, as `stat -c %w` prints.
    Btime,
    Mode,
    Uid,
    Gid,
    Owner,
    Group,
}

impl From<PathPart> for Piece {
    fn from(part: PathPart) -> Piece {
        Piece::Path(part)
    }
}

/// The placeholders beyond the path ones, for parsing and for the error message that
/// lists them.
const FIELDS: &[(&str, Piece)] = &[
    ("type", Piece::Type),
    ("size", Piece::Size),
    ("mtime", Piece::Mtime),
    ("atime", Piece::Atime),
    ("ctime", Piece::Ctime),
    ("btime", Piece::Btime),
    ("mode", Piece::Mode),
    ("uid", Piece::Uid),
    ("gid", Piece::Gid),
    ("owner", Piece::Owner),
    ("group", Piece::Group),
];

impl Piece {
    /// The fields of a `stat` this placeholder shows; none for the path ones.
    fn fields(&self) -> StatFields {
        match self {
            Piece::Size => StatFields::SIZE,
            Piece::Mtime => StatFields::MTIME,
            Piece::Atime => StatFields::ATIME,
            Piece::Ctime => StatFields::CTIME,
            Piece::Btime => StatFields::BTIME,
            Piece::Mode => StatFields::MODE,
            Piece::Uid | Piece::Gid | Piece::Owner | Piece::Group => StatFields::OWNER,
            Piece::Path(_) | Piece::Type => StatFields::default(),
        }
    }
}

/// A parsed `--format` template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Part<Piece>>,
}

/// What a template is filled in from.
pub struct Fields<'a> {
    pub path: &'a [u8],
    /// `f`, `d` or `l`.
    pub type_letter: u8,
    pub meta: Option<&'a Meta>,
}

impl Template {
    /// Parses `text`: placeholders in braces, `{{` and `}}` for literal braces, and the
    /// escapes `\n`, `\t`, `\0` and `\\`. The error names what is wrong.
    pub fn parse(text: &str) -> Result<Template, String> {
        let pieces = placeholder::parse(text.as_bytes(), Syntax::Strict, FIELDS)?;
        Ok(Template { pieces })
    }

    /// True when some placeholder shows metadata, so every match must be `stat`ed.
    pub fn needs_stat(&self) -> bool {
        self.fields() != StatFields::default()
    }

    /// The fields of a `stat` the placeholders show.
    pub fn fields(&self) -> StatFields {
        let fields = StatFields::default();
        (self.pieces.iter()).fold(fields, |fields, piece| match piece {
            Part::Placeholder(piece) => fields.with(piece.fields()),
            Part::Literal(_) => fields,
        })
    }

    /// Appends the record for one match. `meta` is present whenever
    /// [`Self::needs_stat`] said so.
    pub fn render(
        &self,
        out: &mut Vec<u8>,
        fields: &Fields<'_>,
        clock: &mut Clock,
        names: &mut Names,
    ) {
        let path = fields.path;
        let meta = fields.meta.copied().unwrap_or_default();
        for piece in &self.pieces {
            let piece = match piece {
                Part::Literal(bytes) => {
                    out.extend_from_slice(bytes);
                    continue;
                }
                Part::Placeholder(piece) => piece,
            };
            match piece {
                Piece::Path(part) => out.extend_from_slice(part.of(path)),
                Piece::Type => out.push(fields.type_letter),
                Piece::Size => push_decimal(out, meta.size),
                Piece::Mtime => clock.push_iso8601(out, meta.mtime),
                Piece::Atime => clock.push_iso8601(out, meta.atime),
                Piece::Ctime => clock.push_iso8601(out, meta.ctime),
                Piece::Btime => match meta.btime() {
                    Some(btime) => clock.push_iso8601(out, btime),
                    None => out.push(b'-'),
                },
                Piece::Mode => push_octal_mode(out, meta.mode),
                Piece::Uid => push_decimal(out, meta.uid.into()),
                Piece::Gid => push_decimal(out, meta.gid.into()),
                Piece::Owner => names.push_user(out, meta.uid),
                Piece::Group => names.push_group(out, meta.gid),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(template: &str, path: &str, meta: Option<Meta>) -> String {
        let template = Template::parse(template).unwrap();
        let mut out = Vec::new();
        let fields = Fields {
            path: path.as_bytes(),
            type_letter: b'f',
            meta: meta.as_ref(),
        };
        template.render(
            &mut out,
            &fields,
            &mut Clock::default(),
            &mut Names::default(),
        );
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn path_placeholders() {
        // (template, path, expected)
        let cases: &[(&str, &str, &str)] = &[
            ("{}", "dir/a.txt", "dir/a.txt"),
            ("{/}", "dir/a.txt", "a.txt"),
            ("{//}", "dir/a.txt", "dir"),
            ("{.}", "dir/a.txt", "dir/a"),
            ("{/.}", "dir/a.txt", "a"),
            ("{/}", "a.txt", "a.txt"),
            ("{//}", "a.txt", "."),
            ("{//}", "/a.txt", "/"),
            ("{//}", "a//b/c", "a//b"),
            ("{//}", "a//c", "a"),
            ("{.}", "dir/a.tar.gz", "dir/a.tar"),
            ("{.}", "dir.d/.bashrc", "dir.d/.bashrc"),
            ("{/.}", ".bashrc", ".bashrc"),
            ("{/.}", "name.", "name"),
            ("{.}", "dir.d/noext", "dir.d/noext"),
            ("{type}", "x", "f"),
            ("mv {} {//}/{/.}.bak", "d/x.c", "mv d/x.c d/x.bak"),
        ];
        for &(template, path, want) in cases {
            assert_eq!(render(template, path, None), want, "{template} on {path}");
        }
    }

    #[test]
    fn literals_and_escapes() {
        let cases: &[(&str, &str)] = &[
            ("{{}}", "{}"),
            ("{{{}}}", "{p}"),
            ("a\\tb\\nc\\0d\\\\", "a\tb\nc\0d\\"),
            ("ünï {}", "ünï p"),
            ("", ""),
        ];
        for &(template, want) in cases {
            assert_eq!(render(template, "p", None), want, "{template}");
        }
    }

    #[test]
    fn metadata_placeholders() {
        let meta = Meta {
            size: 1500,
            mtime: 0,
            mtime_nsec: 0,
            mode: 0o100640,
            uid: 0,
            gid: 0,
            atime: 60,
            ctime: 120,
            btime_or_none: 180,
        };
        assert_eq!(
            render("{size} {mode} {uid}:{gid} {owner}:{group}", "p", Some(meta)),
            "1500 640 0:0 root:root"
        );
        let iso = |secs| String::from_utf8(crate::output::meta::iso8601_local(secs)).unwrap();
        assert_eq!(
            render("{mtime} {atime} {ctime} {btime}", "p", Some(meta)),
            format!("{} {} {} {}", iso(0), iso(60), iso(120), iso(180))
        );
        // A birth time the filesystem does not record is `-`, as `stat -c %w` prints.
        let unborn = Meta {
            btime_or_none: crate::output::meta::NO_BIRTH,
            ..meta
        };
        assert_eq!(render("{btime}", "p", Some(unborn)), "-");
    }

    #[test]
    fn only_metadata_placeholders_need_a_stat() {
        let cases: &[(&str, bool)] = &[
            ("{} {/} {//} {.} {/.} {type}", false),
            ("{{size}}", false),
            ("{size}", true),
            ("{} {mtime}", true),
            ("{mode}", true),
            ("{uid}", true),
            ("{gid}", true),
            ("{owner}", true),
            ("{group}", true),
            ("{atime}", true),
            ("{ctime}", true),
            ("{btime}", true),
        ];
        for &(template, want) in cases {
            assert_eq!(
                Template::parse(template).unwrap().needs_stat(),
                want,
                "{template}"
            );
        }
    }

    #[test]
    fn bad_templates_name_the_problem() {
        let cases: &[(&str, &str)] = &[
            ("{nope}", "unknown placeholder '{nope}'"),
            ("{ }", "unknown placeholder '{ }'"),
            ("{", "unclosed '{'"),
            ("a}", "unmatched '}'"),
            ("\\q", "unknown escape '\\q'"),
            ("x\\", "ends with a lone '\\'"),
        ];
        for &(template, want) in cases {
            let err = Template::parse(template).unwrap_err();
            assert!(err.contains(want), "{template}: {err}");
        }
    }
}
