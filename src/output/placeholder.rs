//! The `{...}` placeholders of `--exec` and `--format`, read by one parser.
//!
//! Both take fd's path placeholders ([`PathPart`]): `{}` the path, `{/}` its
//! basename, `{//}` its parent, `{.}` the path without its extension, `{/.}` the
//! basename without it; `{{` and `}}` are single braces. What differs is passed as
//! a [`Syntax`] and a list of further names:
//!
//! * `--format` ([`Syntax::Strict`]) adds metadata names (`{size}`, ...) and the
//!   escapes `\n`, `\t`, `\0`, `\\`; an unknown `{x}`, a lone brace or an unknown
//!   escape is a usage error before the walk starts.
//! * `--exec` ([`Syntax::Lenient`]) has the path placeholders only, and everything
//!   else is taken as it is: the words of a command are often code for another
//!   program (`awk '{print $1}'`, `jq '{a: .b}'`, a `sed` expression with
//!   backslashes), so an unknown `{...}`, a lone brace or a `\` is a literal.

/// A placeholder that shows part of the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathPart {
    /// `{}`
    Path,
    /// `{/}`
    Basename,
    /// `{//}`
    Parent,
    /// `{.}`
    PathNoExt,
    /// `{/.}`
    BasenameNoExt,
}

/// The path placeholders' names, between the braces, in the order error messages
/// list them.
const PATH_PARTS: &[(&str, PathPart)] = &[
    ("", PathPart::Path),
    ("/", PathPart::Basename),
    ("//", PathPart::Parent),
    (".", PathPart::PathNoExt),
    ("/.", PathPart::BasenameNoExt),
];

impl PathPart {
    /// The part of `path` this placeholder stands for.
    pub fn of(self, path: &[u8]) -> &[u8] {
        match self {
            PathPart::Path => path,
            PathPart::Basename => basename(path),
            PathPart::Parent => parent(path),
            PathPart::PathNoExt => without_extension(path),
            PathPart::BasenameNoExt => stem(basename(path)),
        }
    }
}

/// How strictly a template is read: see the top of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `--format`: escapes, and errors for what is not understood.
    Strict,
    /// `--exec`: what is not a placeholder is a literal.
    Lenient,
}

/// One part of a parsed template: literal bytes, or a placeholder of type `P` (a
/// [`PathPart`], or a type that holds one and more).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part<P> {
    Literal(Vec<u8>),
    Placeholder(P),
}

/// Parses `text` into literal runs and placeholders. `more` names the placeholders
/// beyond the path ones (none for `--exec`). Adjacent literal bytes make one
/// [`Part::Literal`]; an empty text gives no part. Only [`Syntax::Strict`] returns
/// an error, which names what is wrong and what to write instead.
pub fn parse<P: Copy + From<PathPart>>(
    text: &[u8],
    syntax: Syntax,
    more: &[(&str, P)],
) -> Result<Vec<Part<P>>, String> {
    let strict = syntax == Syntax::Strict;
    let mut parts = Vec::new();
    let mut literal = Vec::new();
    let mut rest = text;
    while let Some(&byte) = rest.first() {
        if rest.starts_with(b"{{") || rest.starts_with(b"}}") {
            literal.push(byte);
            rest = &rest[2..];
            continue;
        }
        match byte {
            b'{' => {
                let close = rest.iter().position(|&b| b == b'}');
                let placeholder = close.and_then(|close| lookup(&rest[1..close], more));
                match (placeholder, close) {
                    (Some(placeholder), Some(close)) => {
                        if !literal.is_empty() {
                            parts.push(Part::Literal(std::mem::take(&mut literal)));
                        }
                        parts.push(Part::Placeholder(placeholder));
                        rest = &rest[close + 1..];
                        continue;
                    }
                    (None, Some(close)) if strict => {
                        return Err(unknown_placeholder(&rest[1..close], more))
                    }
                    (None, None) if strict => {
                        return Err(format!(
                            "unclosed '{{' in '{}' (write '{{{{' for a literal brace)",
                            lossy(text)
                        ))
                    }
                    _ => {}
                }
            }
            b'}' if strict => {
                return Err(format!(
                    "unmatched '}}' in '{}' (write '}}}}' for a literal brace)",
                    lossy(text)
                ))
            }
            b'\\' if strict => {
                literal.push(escape(&rest[1..], text)?);
                rest = &rest[2..];
                continue;
            }
            _ => {}
        }
        literal.push(byte);
        rest = &rest[1..];
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

/// The placeholder named `name` (what is between the braces), if there is one.
fn lookup<P: Copy + From<PathPart>>(name: &[u8], more: &[(&str, P)]) -> Option<P> {
    let path_part = PATH_PARTS
        .iter()
        .find(|(known, _)| known.as_bytes() == name)
        .map(|&(_, part)| P::from(part));
    path_part.or_else(|| {
        more.iter()
            .find(|(known, _)| known.as_bytes() == name)
            .map(|&(_, placeholder)| placeholder)
    })
}

/// The byte that `\` followed by `after` stands for in a strict template.
fn escape(after: &[u8], text: &[u8]) -> Result<u8, String> {
    match after.first() {
        Some(b'n') => Ok(b'\n'),
        Some(b't') => Ok(b'\t'),
        Some(b'0') => Ok(b'\0'),
        Some(b'\\') => Ok(b'\\'),
        Some(_) => {
            let other = lossy(after).chars().next().unwrap_or('?');
            Err(format!(
                "unknown escape '\\{other}' in '{}' (use \\n, \\t, \\0 or \\\\)",
                lossy(text)
            ))
        }
        None => Err(format!("'{}' ends with a lone '\\'", lossy(text))),
    }
}

fn unknown_placeholder<P>(name: &[u8], more: &[(&str, P)]) -> String {
    let known: Vec<String> = PATH_PARTS
        .iter()
        .map(|(name, _)| *name)
        .chain(more.iter().map(|(name, _)| *name))
        .map(|name| format!("{{{name}}}"))
        .collect();
    format!(
        "unknown placeholder '{{{}}}' (known: {}; '{{{{' and '}}}}' are literal braces)",
        lossy(name),
        known.join(" ")
    )
}

fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The last component: what follows the last `/`.
pub fn basename(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b == b'/') {
        Some(slash) => &path[slash + 1..],
        None => path,
    }
}

/// Everything before the last component, without trailing slashes: `.` for a path
/// without a `/` (as `dirname` and fd print it), `/` for a child of the root.
pub fn parent(path: &[u8]) -> &[u8] {
    let Some(slash) = path.iter().rposition(|&b| b == b'/') else {
        return b".";
    };
    let dir = &path[..slash];
    let trimmed_len = dir
        .iter()
        .rposition(|&b| b != b'/')
        .map_or(0, |last| last + 1);
    match &dir[..trimmed_len] {
        b"" => b"/",
        trimmed => trimmed,
    }
}

/// A name without its extension, by the rule Rust's `Path::file_stem` and fd use: the
/// extension starts at the last dot, unless that dot begins the name (`.bashrc` has
/// none).
pub fn stem(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// The path without the extension of its last component (`{.}`): `dir/a.tar.gz`
/// gives `dir/a.tar`, `dir.d/.bashrc` stays whole.
fn without_extension(path: &[u8]) -> &[u8] {
    let name = basename(path);
    &path[..path.len() - (name.len() - stem(name).len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A placeholder type with one name beyond the path ones, as `--format` has.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Test {
        Path(PathPart),
        Size,
    }

    impl From<PathPart> for Test {
        fn from(part: PathPart) -> Test {
            Test::Path(part)
        }
    }

    const MORE: &[(&str, Test)] = &[("size", Test::Size)];

    fn lit(text: &str) -> Part<Test> {
        Part::Literal(text.as_bytes().to_vec())
    }

    fn path(part: PathPart) -> Part<Test> {
        Part::Placeholder(Test::Path(part))
    }

    #[test]
    fn both_syntaxes_read_placeholders_and_doubled_braces_alike() {
        let cases: &[(&str, &[Part<Test>])] = &[
            ("", &[]),
            ("{}", &[path(PathPart::Path)]),
            ("{/}", &[path(PathPart::Basename)]),
            ("{//}", &[path(PathPart::Parent)]),
            ("{.}", &[path(PathPart::PathNoExt)]),
            ("{/.}", &[path(PathPart::BasenameNoExt)]),
            ("{size}", &[Part::Placeholder(Test::Size)]),
            (
                "a{}b{/}",
                &[
                    lit("a"),
                    path(PathPart::Path),
                    lit("b"),
                    path(PathPart::Basename),
                ],
            ),
            ("{{}}", &[lit("{}")]),
            ("{{{}}}", &[lit("{"), path(PathPart::Path), lit("}")]),
            // `{{` is read first, left to right: `{{}` is a brace then `}`.
            ("{{}", &[lit("{}")]),
            ("{}}", &[path(PathPart::Path), lit("}")]),
        ];
        for syntax in [Syntax::Strict, Syntax::Lenient] {
            for &(text, want) in cases {
                if syntax == Syntax::Strict && ["{{}", "{}}"].contains(&text) {
                    continue; // a lone `}`, which strict refuses.
                }
                let got = parse(text.as_bytes(), syntax, MORE).unwrap();
                assert_eq!(got, want, "{text:?} {syntax:?}");
            }
        }
    }

    #[test]
    fn lenient_takes_whatever_is_not_a_placeholder_as_it_is() {
        for text in ["{print $1}", "{", "}", "{nope}", "{ }", "a\\.b\\n", "\\"] {
            let got = parse(text.as_bytes(), Syntax::Lenient, MORE).unwrap();
            assert_eq!(got, [lit(text)], "{text:?}");
        }
        // An unclosed brace before a placeholder stays a brace.
        assert_eq!(
            parse(b"{ {}", Syntax::Lenient, MORE).unwrap(),
            [lit("{ "), path(PathPart::Path)]
        );
        // Names beyond the path ones are known only when passed.
        assert_eq!(
            parse(b"{size}", Syntax::Lenient, &[] as &[(&str, PathPart)]).unwrap(),
            [Part::Literal(b"{size}".to_vec())]
        );
    }

    #[test]
    fn strict_reads_escapes_and_names_what_is_wrong() {
        assert_eq!(
            parse(b"a\\tb\\nc\\0d\\\\", Syntax::Strict, MORE).unwrap(),
            [lit("a\tb\nc\0d\\")]
        );
        let cases: &[(&str, &str)] = &[
            (
                "{nope}",
                "unknown placeholder '{nope}' (known: {} {/} {//} {.} {/.} {size}; \
                 '{{' and '}}' are literal braces)",
            ),
            ("{ }", "unknown placeholder '{ }'"),
            ("{", "unclosed '{' in '{'"),
            ("a}", "unmatched '}' in 'a}'"),
            ("\\q", "unknown escape '\\q'"),
            ("\\ü", "unknown escape '\\ü'"),
            ("x\\", "'x\\' ends with a lone '\\'"),
        ];
        for &(text, want) in cases {
            let err = parse(text.as_bytes(), Syntax::Strict, MORE).unwrap_err();
            assert!(err.starts_with(want), "{text}: {err}");
        }
    }

    #[test]
    fn path_parts() {
        // (part, path, expected)
        let cases: &[(PathPart, &str, &str)] = &[
            (PathPart::Path, "dir/a.txt", "dir/a.txt"),
            (PathPart::Basename, "dir/a.txt", "a.txt"),
            (PathPart::Parent, "dir/a.txt", "dir"),
            (PathPart::PathNoExt, "dir/a.txt", "dir/a"),
            (PathPart::BasenameNoExt, "dir/a.txt", "a"),
            (PathPart::Basename, "a.txt", "a.txt"),
            (PathPart::Parent, "a.txt", "."),
            (PathPart::Parent, "/a.txt", "/"),
            (PathPart::Parent, "a//b/c", "a//b"),
            (PathPart::Parent, "a//c", "a"),
            (PathPart::PathNoExt, "dir/a.tar.gz", "dir/a.tar"),
            (PathPart::PathNoExt, "dir.d/.bashrc", "dir.d/.bashrc"),
            (PathPart::BasenameNoExt, ".bashrc", ".bashrc"),
            (PathPart::BasenameNoExt, "name.", "name"),
            (PathPart::PathNoExt, "dir.d/noext", "dir.d/noext"),
        ];
        for &(part, path, want) in cases {
            assert_eq!(part.of(path.as_bytes()), want.as_bytes(), "{part:?} {path}");
        }
    }
}
