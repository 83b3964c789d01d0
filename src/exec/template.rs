//! The command of `--exec` and `--exec-batch` as typed, parsed once into words of
//! literal bytes and path placeholders, and expanded for each path.
//!
//! The placeholders are those of `--format` that say something about a path, as fd
//! has them (`{}`, `{/}`, `{//}`, `{.}`, `{/.}`), read by the parser `--format`
//! uses (`output/placeholder.rs`) in its lenient syntax: an unknown `{...}`, a lone
//! brace or a `\` is a literal, never an error, as the words of a command are often
//! code for another program. A command with no placeholder gets `{}` as its last
//! word, as with fd and `xargs`.

use crate::output::placeholder::{self, Part, PathPart, Syntax};

/// One word of the command (the program or an argument), in parts.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Word {
    parts: Vec<Part<PathPart>>,
}

impl Word {
    fn parse(text: &[u8]) -> Word {
        let mut parts = placeholder::parse(text, Syntax::Lenient, &[])
            .expect("the lenient syntax refuses nothing");
        if parts.is_empty() {
            // An empty argument is still an argument.
            parts.push(Part::Literal(Vec::new()));
        }
        Word { parts }
    }

    fn has_placeholder(&self) -> bool {
        self.parts
            .iter()
            .any(|part| !matches!(part, Part::Literal(_)))
    }

    /// The word with `path` in its placeholders, appended to `out`.
    fn expand(&self, path: &[u8], out: &mut Vec<u8>) {
        for part in &self.parts {
            out.extend_from_slice(match part {
                Part::Literal(bytes) => bytes,
                Part::Placeholder(part) => part.of(path),
            });
        }
    }

    /// The length of [`Self::expand`]'s result, without building it.
    fn expanded_len(&self, path: &[u8]) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Literal(bytes) => bytes.len(),
                Part::Placeholder(part) => part.of(path).len(),
            })
            .sum()
    }

    /// The word as it stands when it has no placeholder.
    fn literal(&self) -> &[u8] {
        match self.parts.as_slice() {
            [Part::Literal(bytes)] => bytes,
            _ => b"",
        }
    }
}

/// A parsed command: its program and arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandTemplate {
    words: Vec<Word>,
    /// The program as typed, for messages.
    program: Vec<u8>,
}

impl CommandTemplate {
    /// Parses the words of a command, the program first; `{}` is added as the last
    /// word when none holds a placeholder. `words` must not be empty (clap asks for
    /// one value at least).
    pub fn parse<'w>(words: impl IntoIterator<Item = &'w [u8]>) -> CommandTemplate {
        let mut words = words.into_iter();
        let program = words.next().expect("a command has a program");
        let mut parsed: Vec<Word> = std::iter::once(program)
            .chain(words)
            .map(Word::parse)
            .collect();
        if !parsed.iter().any(Word::has_placeholder) {
            parsed.push(Word {
                parts: vec![Part::Placeholder(PathPart::Path)],
            });
        }
        // A fixed program is named as it runs (`{{` made `{`), another as typed.
        let program = if parsed[0].has_placeholder() {
            program.to_vec()
        } else {
            parsed[0].literal().to_vec()
        };
        CommandTemplate {
            words: parsed,
            program,
        }
    }

    /// For `--exec-batch`, which repeats the one word that holds placeholders for
    /// each path of a batch: refuses a program that is a placeholder and two words
    /// with placeholders, as fd does. The error says what to write instead.
    pub fn check_batch(&self) -> Result<(), String> {
        if self.words[0].has_placeholder() {
            return Err(
                "the program of --exec-batch cannot hold a placeholder: it runs once for \
                 many paths (run each path as a program with --exec '{}')"
                    .to_string(),
            );
        }
        let with_placeholders = self.words.iter().filter(|w| w.has_placeholder()).count();
        if with_placeholders > 1 {
            return Err(format!(
                "--exec-batch allows placeholders in one argument only, which is repeated \
                 for each path; {with_placeholders} hold one (use --exec to run a command \
                 per path)"
            ));
        }
        Ok(())
    }

    /// The program: as it runs when it is fixed, as typed when it is a placeholder
    /// (for messages about the command as a whole).
    pub fn program(&self) -> &[u8] {
        &self.program
    }

    /// True when the program is the same for every command: not a placeholder.
    pub fn program_is_fixed(&self) -> bool {
        !self.words[0].has_placeholder()
    }

    /// The command for one path: each word expanded, into `argv` (cleared first).
    pub fn expand_one(&self, path: &[u8], argv: &mut Vec<Vec<u8>>) {
        argv.clear();
        for word in &self.words {
            let mut arg = Vec::with_capacity(word.expanded_len(path));
            word.expand(path, &mut arg);
            argv.push(arg);
        }
    }

    /// The arguments for a batch of paths, after the program (which is fixed, see
    /// [`Self::check_batch`]): the word with placeholders once for each path, in
    /// order; every other word once. Each is handed to `arg`, borrowed: a word that
    /// is just `{}` is the path itself, not a copy.
    pub fn expand_batch<'p>(
        &self,
        paths: impl Iterator<Item = &'p [u8]> + Clone,
        mut arg: impl FnMut(&[u8]),
    ) {
        let mut scratch = Vec::new();
        for word in &self.words[1..] {
            if !word.has_placeholder() {
                arg(word.literal());
                continue;
            }
            for path in paths.clone() {
                if word.parts == [Part::Placeholder(PathPart::Path)] {
                    arg(path);
                    continue;
                }
                scratch.clear();
                word.expand(path, &mut scratch);
                arg(&scratch);
            }
        }
    }

    /// The lengths of the words a batch has whatever its paths: those without
    /// placeholders.
    pub fn fixed_lengths(&self) -> impl Iterator<Item = usize> + '_ {
        self.words
            .iter()
            .filter(|word| !word.has_placeholder())
            .map(|word| word.literal().len())
    }

    /// The lengths of the words that one more path adds to a batch.
    pub fn lengths_for<'a>(&'a self, path: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
        self.words
            .iter()
            .filter(|word| word.has_placeholder())
            .map(move |word| word.expanded_len(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(words: &[&str]) -> CommandTemplate {
        CommandTemplate::parse(words.iter().map(|w| w.as_bytes()))
    }

    fn one(words: &[&str], path: &str) -> Vec<String> {
        let mut argv = Vec::new();
        template(words).expand_one(path.as_bytes(), &mut argv);
        argv.into_iter()
            .map(|arg| String::from_utf8(arg).unwrap())
            .collect()
    }

    #[test]
    fn placeholders_expand_as_fd_does() {
        // (command, path, expected argv)
        let cases: &[(&[&str], &str, &[&str])] = &[
            (&["echo", "{}"], "dir/a.txt", &["echo", "dir/a.txt"]),
            (&["echo", "{/}"], "dir/a.txt", &["echo", "a.txt"]),
            (&["echo", "{//}"], "dir/a.txt", &["echo", "dir"]),
            (&["echo", "{.}"], "dir/a.txt", &["echo", "dir/a"]),
            (&["echo", "{/.}"], "dir/a.txt", &["echo", "a"]),
            (&["echo", "{//}"], "a.txt", &["echo", "."]),
            (&["echo", "{//}"], "/a.txt", &["echo", "/"]),
            (&["echo", "{.}"], "dir/a.tar.gz", &["echo", "dir/a.tar"]),
            (
                &["echo", "{.}"],
                "dir.d/.bashrc",
                &["echo", "dir.d/.bashrc"],
            ),
            (&["echo", "{/.}"], "dir.d/noext", &["echo", "noext"]),
            // Several in one word, and around literal text.
            (
                &["mv", "{}", "{//}/{/.}.bak"],
                "d/x.c",
                &["mv", "d/x.c", "d/x.bak"],
            ),
            (&["echo", "<{}>{}"], "p", &["echo", "<p>p"]),
            // No placeholder: the path is added at the end.
            (&["ls", "-l"], "p q", &["ls", "-l", "p q"]),
            (&["true"], "p", &["true", "p"]),
            // The program itself may be one.
            (&["{}", "--help"], "./run.sh", &["./run.sh", "--help"]),
        ];
        for &(words, path, want) in cases {
            assert_eq!(one(words, path), want, "{words:?} on {path}");
        }
    }

    #[test]
    fn other_braces_and_backslashes_are_literal() {
        let cases: &[(&str, &str)] = &[
            ("{{}}", "{}"),
            ("{{/}}", "{/}"),
            ("{print $1}", "{print $1}"),
            ("{", "{"),
            ("}", "}"),
            ("{size}", "{size}"),
            ("a\\.b\\n", "a\\.b\\n"),
            ("{ }", "{ }"),
            ("", ""),
        ];
        for &(word, want) in cases {
            // The word holds no placeholder, so `{}` is added after it.
            assert_eq!(one(&["cmd", word], "P"), ["cmd", want, "P"], "{word:?}");
        }
        // `{{` and `}}` are read first, left to right: `{{}` is a brace then `}`.
        assert_eq!(one(&["e", "{{}", "{}"], "P"), ["e", "{}", "P"]);
    }

    #[test]
    fn paths_are_bytes() {
        let template = CommandTemplate::parse([&b"cat"[..], b"{/}"]);
        let mut argv = Vec::new();
        template.expand_one(b"d\xff/n\xfe\nx", &mut argv);
        assert_eq!(argv, [&b"cat"[..], b"n\xfe\nx"]);
    }

    #[test]
    fn a_batch_repeats_the_word_with_placeholders() {
        let paths = ["a/x.c", "b/y.h"];
        let cases: &[(&[&str], &[&str])] = &[
            (&["wc", "-l"], &["wc", "-l", "a/x.c", "b/y.h"]),
            (
                &["tar", "cf", "out.tar", "{}", "--"],
                &["tar", "cf", "out.tar", "a/x.c", "b/y.h", "--"],
            ),
            (&["echo", "[{/.}]", "end"], &["echo", "[x]", "[y]", "end"]),
        ];
        for &(words, want) in cases {
            let template = template(words);
            template.check_batch().unwrap();
            let mut argv = vec![template.program().to_vec()];
            template.expand_batch(paths.iter().map(|p| p.as_bytes()), |arg| {
                argv.push(arg.to_vec())
            });
            let got: Vec<&str> = argv
                .iter()
                .map(|a| std::str::from_utf8(a).unwrap())
                .collect();
            assert_eq!(got, want, "{words:?}");
            // What the batch's sizes are computed from agrees with what it holds.
            let fixed: usize = template.fixed_lengths().sum();
            let per_path: usize = paths
                .iter()
                .map(|p| template.lengths_for(p.as_bytes()).sum::<usize>())
                .sum();
            let total: usize = argv.iter().map(Vec::len).sum();
            assert_eq!(fixed + per_path, total, "{words:?}");
        }
    }

    #[test]
    fn batches_refuse_what_they_cannot_repeat() {
        let cases: &[(&[&str], &str)] = &[
            (&["{}"], "cannot hold a placeholder"),
            (&["{/}x", "a"], "cannot hold a placeholder"),
            (&["cp", "{}", "{//}/backup"], "2 hold one"),
        ];
        for &(words, want) in cases {
            let err = template(words).check_batch().unwrap_err();
            assert!(err.contains(want), "{words:?}: {err}");
        }
    }

    #[test]
    fn the_program_is_named_as_typed() {
        assert_eq!(template(&["grep", "-l"]).program(), b"grep");
        assert!(template(&["grep"]).program_is_fixed());
        assert_eq!(template(&["{}"]).program(), b"{}");
        assert!(!template(&["{//}/run"]).program_is_fixed());
    }
}
