//! Warnings about values that are valid but cannot be what was meant: a name glob
//! with a `/` (no name has one), a glob that reads as a regular expression, an
//! extension written as a glob, a `-p` glob with an empty, `.` or `..` part. `main`
//! prints them before the walk, which then runs as asked (exit status unchanged).
//!
//! Pure functions from one value to its message (without the `pfind: warning: `),
//! so that each is tested here on its own. Values are bytes, as typed.

use crate::filter::glob::GlobPattern;
use crate::filter::path::PathGlob;
use crate::filter::regex::{ends_in_unescaped, looks_like_regex, RegexPattern};
use crate::filter::types::KindSet;

/// `--hyperlink` with relative roots and no working directory to make their paths
/// absolute against (it was deleted): those paths are printed without links. `err`
/// is [`crate::os::path::WorkingDir`]'s, which names the working directory.
pub fn hyperlink_without_working_directory(err: &std::io::Error) -> Vec<u8> {
    format!("--hyperlink: {err}; relative paths are printed without links").into_bytes()
}

/// The warnings for one `-n` or `-E` glob (`option` says which).
pub fn name_glob(option: &str, pattern: &[u8]) -> Vec<Vec<u8>> {
    let mut warnings = Vec::new();
    let effect = if option == "-E" {
        "excludes"
    } else {
        "matches"
    };
    if pattern.is_empty() {
        // Typed as `-n ''` or `-n "$unset"`: no entry has an empty name.
        let because = format!("' is empty, which no file name is, so it {effect} nothing");
        warnings.push([quoted(option, pattern), because.into_bytes()].concat());
    } else if every_alternative_holds_slash(pattern) {
        // As `find -name` warns: a basename never contains a slash.
        let because = format!(
            "' contains '/', which no file name does, so it {effect} nothing \
             ({option} tests names, not paths: -p GLOB tests the path below the root)"
        );
        warnings.push([quoted(option, pattern), because.into_bytes()].concat());
    } else if looks_like_regex(pattern) {
        let mut line = quoted(option, pattern);
        line.extend_from_slice(
            format!(
                "' looks like a regular expression, but {option} takes a glob, as \
                 find -name does"
            )
            .as_bytes(),
        );
        let glob = regex_as_glob(pattern);
        if let Some(glob) = &glob {
            line.extend_from_slice(format!(": perhaps {option} '").as_bytes());
            line.extend_from_slice(glob);
            line.push(b'\'');
        }
        // `-n`'s regular-expression twin; `-E` and `--and` have none.
        if option == "-n" {
            let or = if glob.is_some() { ", or" } else { ": perhaps" };
            line.extend_from_slice(format!("{or} --regex '").as_bytes());
            line.extend_from_slice(pattern);
            line.push(b'\'');
        }
        warnings.push(line);
    }
    warnings
}

/// True when `pattern` holds a `/` in each glob its brace alternatives expand to
/// (in itself, without braces): `{a/b,c}` can still match `c`.
fn every_alternative_holds_slash(pattern: &[u8]) -> bool {
    match GlobPattern::parse(pattern) {
        Ok(glob) => glob.alternatives().all(|one| one.contains(&b'/')),
        Err(_) => pattern.contains(&b'/'),
    }
}

/// The warning for a name regex (`--regex`, or `--and` after it) that only a string
/// holding a `/` matches, as [`name_glob`] warns about a glob (and `find -name`).
pub fn name_regex(option: &str, regex: &RegexPattern) -> Option<Vec<u8>> {
    if !regex.needs_slash() {
        return None;
    }
    let because = format!(
        "' contains '/', which no file name does, so it matches nothing \
         ({option} tests names, not paths: --path-regex RE tests the path below the root)"
    );
    Some(
        [
            quoted(option, regex.as_str().as_bytes()),
            because.into_bytes(),
        ]
        .concat(),
    )
}

/// The warning for a `-n` glob or a `--regex` (`option`, `pattern` as typed) that
/// only names starting with `.` match, when `--no-hidden` (or `-G`) leaves those out.
pub fn only_hidden(option: &str, pattern: &[u8]) -> Vec<u8> {
    let because = "' matches only names starting with '.', which --no-hidden (or -G) leaves \
                   out, so it matches nothing: add -H to keep them";
    [quoted(option, pattern), because.as_bytes().to_vec()].concat()
}

/// True when every glob `pattern`'s brace alternatives expand to starts with a
/// literal `.` (`\.` too): only hidden names match it.
pub fn glob_only_hidden(pattern: &GlobPattern) -> bool {
    pattern
        .alternatives()
        .all(|one| one.strip_prefix(b"\\").unwrap_or(one).starts_with(b"."))
}

/// The warning for one `-e` value as typed, if it has a glob character or a `/`.
pub fn extension(ext: &[u8]) -> Option<Vec<u8>> {
    if ext.contains(&b'/') {
        let because = "' contains '/', which no file name does, so it matches nothing";
        return Some([quoted("-e", ext), because.as_bytes().to_vec()].concat());
    }
    let wildcard = *ext.iter().find(|&&b| b == b'*' || b == b'?')?;
    let mut line = quoted("-e", ext);
    line.extend_from_slice(
        format!(
            "' contains '{}', but -e takes an extension, not a glob",
            char::from(wildcard)
        )
        .as_bytes(),
    );
    // `*.rs` and `.*rs` mean the extension `rs`; anything else is a name glob.
    let rest = ext.trim_ascii_start();
    let rest = &rest[rest.iter().take_while(|&&b| b == b'*' || b == b'.').count()..];
    if !rest.is_empty() && !rest.iter().any(|&b| b == b'*' || b == b'?') {
        line.extend_from_slice(b": perhaps -e ");
        line.extend_from_slice(rest);
    } else if !rest.is_empty() {
        line.extend_from_slice(b": perhaps -n '*.");
        line.extend_from_slice(ext);
        line.push(b'\'');
    }
    Some(line)
}

/// The warning for a `-p` glob no path below a root can match.
pub fn path_glob(pattern: &[u8]) -> Option<Vec<u8>> {
    if pattern.is_empty() {
        // Typed as `-p ''` or `-p "$unset"`: said as `-n ''` is (issue 28).
        let because = "' is empty, which no path below a root is, so it matches nothing";
        return Some([quoted("-p", pattern), because.as_bytes().to_vec()].concat());
    }
    let why = PathGlob::never_matches(pattern)?;
    let because = format!(
        "' {why}, which no path below a root does, so it matches nothing \
         (-p matches what follows ROOT/, as in 'src/*.rs')"
    );
    Some([quoted("-p", pattern), because.into_bytes()].concat())
}

/// The warning for a `-p` glob that reads as a regular expression (fd's
/// `--full-path` takes one): one of its components does, as `-n` tells it.
pub fn path_glob_regex(pattern: &[u8]) -> Option<Vec<u8>> {
    pattern
        .split(|&b| b == b'/')
        .find(|part| looks_like_regex(part))?;
    // fd's `-p` is its `--full-path`, whose pattern is a regex: pfind's has that meaning.
    let because = format!(
        "' looks like a regular expression, but -p takes a glob of the path below the root, \
         as in 'src/**/*.rs'; for a regular expression, use --full-path {}, as in fd",
        super::words::shell_word(pattern)
    );
    Some([quoted("-p", pattern), because.into_bytes()].concat())
}

/// The warning for `--prune` without `-t d`: only a directory that matched is not
/// descended into, and without `-t d` no directory matches.
pub fn prune_without_dirs() -> Vec<u8> {
    b"--prune does not descend into a directory that matched, and without -t d no \
      directory can match: it changes nothing"
        .to_vec()
}

/// The warning for a name search (`search`, its options as typed) that matched
/// nothing while entries of the kinds in `missed` matched its names: which kinds,
/// and the `-t` that would have found them. `None` when nothing was missed.
pub fn nothing_matched(search: &str, missed: KindSet) -> Option<Vec<u8>> {
    let kinds: Vec<(char, &str)> = missed.named().collect();
    let (last, rest) = kinds.split_last()?;
    let a = |name: &str| {
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name}")
    };
    let mut names: Vec<String> = rest.iter().map(|&(_, name)| a(name)).collect();
    let last = a(last.1);
    let names = match names.pop() {
        None => last,
        Some(before_last) => {
            names.push(format!("{before_last} and {last}"));
            names.join(", ")
        }
    };
    let types: Vec<String> = (kinds.iter())
        .map(|(letter, _)| format!("-t {letter}"))
        .collect();
    let line = format!(
        "nothing matched, but {names} did ({search}): add {}, or -t any",
        types.join(" ")
    );
    Some(line.into_bytes())
}

/// `OPTION 'VALUE` (the closing quote is the caller's).
fn quoted(option: &str, value: &[u8]) -> Vec<u8> {
    [format!("{option} '").as_bytes(), value].concat()
}

/// The glob that matches what the regular expression `regex` matches in a name, when
/// it uses nothing a glob cannot say: `^` and `$`, `.`, `.*`, `.+`, and `\` before a
/// punctuation character. A `*` not after a `.` is taken as the glob star it was
/// probably meant as, and then a `.` as a dot (`*.rs$` is `*.rs`). `None` for
/// anything else (sets, groups, `|`, repetition, `\d`).
pub fn regex_as_glob(regex: &[u8]) -> Option<Vec<u8>> {
    let (anchored_start, body) = match regex.strip_prefix(b"^") {
        Some(rest) => (true, rest),
        None => (false, regex),
    };
    let anchored_end = ends_in_unescaped(body, b'$');
    let body = if anchored_end {
        &body[..body.len() - 1]
    } else {
        body
    };
    // A `*` that follows no `.` is a glob's star: whoever wrote it writes globs,
    // and meant a `.` as a dot (`*.rs$`).
    let glob_minded = (0..body.len()).any(|i| body[i] == b'*' && (i == 0 || body[i - 1] != b'.'));
    let mut glob = Vec::new();
    let mut i = 0;
    while i < body.len() {
        match (body[i], body.get(i + 1)) {
            (b'.', _) if glob_minded => glob.push(b'.'),
            (b'.', Some(b'*')) => {
                glob.push(b'*');
                i += 1;
            }
            (b'.', Some(b'+')) => {
                glob.extend_from_slice(b"?*");
                i += 1;
            }
            (b'.', _) => glob.push(b'?'),
            (b'\\', Some(&escaped)) if !escaped.is_ascii_alphanumeric() => {
                if matches!(escaped, b'*' | b'?' | b'[' | b'\\') {
                    glob.push(b'\\');
                }
                glob.push(escaped);
                i += 1;
            }
            (b'*', _) => glob.push(b'*'),
            (b'\\' | b'+' | b'?' | b'(' | b')' | b'|' | b'{' | b'}' | b'[' | b']', _) => {
                return None
            }
            (b'^' | b'$', _) => return None,
            (byte, _) => glob.push(byte),
        }
        i += 1;
    }
    if !anchored_start && !glob.starts_with(b"*") {
        glob.insert(0, b'*');
    }
    if !anchored_end && !ends_in_unescaped(&glob, b'*') {
        glob.push(b'*');
    }
    Some(glob)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slash_is_warned_about_when_no_brace_alternative_can_match() {
        assert_eq!(name_glob("-n", b"{a/b,c}"), Vec::<Vec<u8>>::new());
        for pattern in [&b"{a/b,c/d}"[..], b"a/{b,c}", b"x/y"] {
            let said = name_glob("-n", pattern);
            assert_eq!(said.len(), 1, "{}", String::from_utf8_lossy(pattern));
            assert!(String::from_utf8_lossy(&said[0]).contains("matches nothing"));
        }
    }

    #[test]
    fn a_full_path_that_reads_as_a_regex_is_warned_about_part_by_part() {
        for regex in [
            &b"src/.*\\.rs$"[..],
            b"^src/main.rs",
            b"src/.+/x",
            b"a/b\\d",
        ] {
            let line = path_glob_regex(regex).expect("a warning");
            assert!(
                String::from_utf8_lossy(&line).contains("looks like a regular expression"),
                "{}",
                String::from_utf8_lossy(regex)
            );
        }
        // `.*` at either end of a part is a glob (hidden names, any extension).
        for glob in [
            &b"src/**/*.rs"[..],
            b"**/.*rc",
            b"conf/name.*",
            b"src/lib.rs",
        ] {
            assert_eq!(
                path_glob_regex(glob),
                None,
                "{}",
                String::from_utf8_lossy(glob)
            );
        }
    }

    #[test]
    fn a_search_that_missed_other_kinds_names_them_and_their_t() {
        use crate::os::dirent::EntryKind;
        let set = |kinds: &[EntryKind]| {
            let mut set = KindSet::default();
            kinds.iter().for_each(|&kind| set.insert(kind));
            set
        };
        assert_eq!(nothing_matched("-n x", KindSet::default()), None);
        let cases: &[(&[EntryKind], &str)] = &[
            (
                &[EntryKind::Symlink],
                "nothing matched, but a symbolic link did (-n python3): add -t l, or -t any",
            ),
            (
                &[EntryKind::Dir, EntryKind::Symlink],
                "nothing matched, but a directory and a symbolic link did (-n python3): \
                 add -t d -t l, or -t any",
            ),
            (
                &[EntryKind::Fifo, EntryKind::File, EntryKind::Socket],
                "nothing matched, but a regular file, a socket and a named pipe did \
                 (-n python3): add -t f -t s -t p, or -t any",
            ),
        ];
        for &(kinds, want) in cases {
            let line = nothing_matched("-n python3", set(kinds)).unwrap();
            assert_eq!(String::from_utf8(line).unwrap(), want, "{kinds:?}");
        }
    }

    fn text(line: Option<Vec<u8>>) -> Option<String> {
        line.map(|line| String::from_utf8(line).unwrap())
    }

    #[test]
    fn regexes_translated_to_globs() {
        let cases: &[(&str, Option<&str>)] = &[
            (".*\\.rs$", Some("*.rs")),
            ("\\.rs$", Some("*.rs")),
            ("^test_.*", Some("test_*")),
            ("^Makefile$", Some("Makefile")),
            ("main", Some("*main*")),
            ("^a.b$", Some("a?b")),
            ("^a.+$", Some("a?*")),
            ("*.rs$", Some("*.rs")),
            ("^*.tar.gz$", Some("*.tar.gz")),
            ("^a\\*b$", Some("a\\*b")),
            ("^a\\[$", Some("a\\[")),
            ("^x\\$$", Some("x$")),
            ("\\d+", None),
            ("^(a|b)$", None),
            ("^[a-z]+$", None),
            ("a?", None),
            ("^a^", None),
        ];
        for &(regex, want) in cases {
            let got = regex_as_glob(regex.as_bytes()).map(|g| String::from_utf8(g).unwrap());
            assert_eq!(got.as_deref(), want, "{regex}");
        }
    }

    #[test]
    fn name_glob_warnings() {
        let cases: &[(&str, &[u8], &[&str])] = &[
            ("-n", b"*.rs", &[]),
            ("-n", b".*", &[]),
            (
                "-n",
                b"a/b",
                &[
                    "-n 'a/b' contains '/', which no file name does, so it matches nothing \
                   (-n tests names, not paths: -p GLOB tests the path below the root)",
                ],
            ),
            (
                "-n",
                b".*\\.rs$",
                &[
                    "-n '.*\\.rs$' looks like a regular expression, but -n takes a glob, as \
                   find -name does: perhaps -n '*.rs', or --regex '.*\\.rs$'",
                ],
            ),
            (
                "-n",
                b"^(a|b)$",
                &[
                    "-n '^(a|b)$' looks like a regular expression, but -n takes a glob, as \
                   find -name does: perhaps --regex '^(a|b)$'",
                ],
            ),
            (
                "-E",
                b"^(a|b)$",
                &[
                    "-E '^(a|b)$' looks like a regular expression, but -E takes a glob, as \
                   find -name does",
                ],
            ),
        ];
        for &(option, pattern, want) in cases {
            let got: Vec<String> = name_glob(option, pattern)
                .into_iter()
                .map(|w| String::from_utf8(w).unwrap())
                .collect();
            assert_eq!(got, want, "{option} {:?}", String::from_utf8_lossy(pattern));
        }
    }

    #[test]
    fn extension_warnings() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"rs", None),
            (b"tar.gz", None),
            (
                b"*.rs",
                Some(
                    "-e '*.rs' contains '*', but -e takes an extension, not a glob: perhaps -e rs",
                ),
            ),
            (
                b".*rs",
                Some(
                    "-e '.*rs' contains '*', but -e takes an extension, not a glob: perhaps -e rs",
                ),
            ),
            (
                b"jp?",
                Some(
                    "-e 'jp?' contains '?', but -e takes an extension, not a glob: perhaps \
                     -n '*.jp?'",
                ),
            ),
            (
                b"*",
                Some("-e '*' contains '*', but -e takes an extension, not a glob"),
            ),
            (
                b"a/b",
                Some("-e 'a/b' contains '/', which no file name does, so it matches nothing"),
            ),
        ];
        for &(ext, want) in cases {
            assert_eq!(
                text(extension(ext)).as_deref(),
                want,
                "{:?}",
                String::from_utf8_lossy(ext)
            );
        }
    }

    #[test]
    fn full_path_warnings() {
        assert_eq!(path_glob(b"src/*.rs"), None);
        let line = text(path_glob(b"./src/*")).unwrap();
        assert!(line.starts_with("-p './src/*' "), "{line}");
        assert!(line.ends_with("(-p matches what follows ROOT/, as in 'src/*.rs')"));
        let line = text(path_glob(b"")).unwrap();
        assert_eq!(
            line,
            "-p '' is empty, which no path below a root is, so it matches nothing"
        );
    }
}
