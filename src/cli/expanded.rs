//! A pattern the shell expanded before pfind saw it: `pfind -n *.md` with several
//! `.md` files here runs `pfind -n a.md b.md c.md`, a search for the name `a.md` in
//! the roots `b.md` and `c.md`, which are files. That printed nothing, or one file,
//! with status 0 and not a word (issue 41); find and fd both fail loudly on the
//! same line. So it is refused, before anything is walked, with the quoted command.
//!
//! Told apart from a command that means it by what a shell's expansion leaves: the
//! value of `-n`, `-e`, `-p` or `--regex` is a file here (not a directory), and the
//! roots right after it are files too, at least one. Nobody searches the files
//! `b.md` and `c.md` for the name `a.md` on purpose. The file system is asked only
//! when a root follows such a value, so other command lines cost nothing.

use super::hints::Paths;
use super::words::shell_word;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

/// One pattern option's value on the command line: how the option is written in a
/// message, its value as typed, and clap's index of that value.
pub struct Value<'a> {
    pub option: &'static str,
    pub typed: &'a OsString,
    pub index: usize,
}

/// The refusal for a pattern the shell expanded into file names, if one was: `args`
/// is the whole command line (the program first, then `from_env` words of
/// `PFIND_OPTIONS`, which the line to type leaves out), `values` the pattern options'
/// values and `roots` the roots, each with clap's index.
pub fn refusal(
    args: &[OsString],
    from_env: usize,
    values: &[Value],
    roots: &[(usize, &OsString)],
    paths: &impl Paths,
) -> Option<Vec<u8>> {
    for value in values {
        // The roots that follow the value, word after word, as the shell put them.
        let following: Vec<&OsString> = (roots.iter())
            .skip_while(|(index, _)| *index <= value.index)
            .enumerate()
            .take_while(|(n, (index, _))| *index == value.index + 1 + n)
            .map(|(_, (_, root))| *root)
            .take_while(|root| is_plain_file(root, paths))
            .collect();
        if following.is_empty() || !is_plain_file(value.typed, paths) {
            continue;
        }
        let mut words: Vec<&[u8]> = vec![value.typed.as_bytes()];
        words.extend(following.iter().map(|root| root.as_bytes()));
        let (option, pattern) = pattern_for(value.option, &words);
        // The command line as typed, the expansion replaced by the pattern quoted.
        let typed = &args[(1 + from_env).min(args.len())..];
        let at = (0..typed.len()).find(|&at| {
            typed[at..].len() > words.len()
                && (typed[at + 1..].iter().zip(&words)).all(|(arg, word)| arg.as_bytes() == *word)
        })?;
        let mut line = vec!["pfind".to_string()];
        line.extend(typed[..at].iter().map(|arg| shell_word(arg.as_bytes())));
        // The option as typed (`-in` keeps its `-i`), unless another one is meant.
        let word = typed[at].as_bytes();
        match word.strip_suffix(&option.as_bytes()[1..]) {
            Some(_) if option == value.option => line.push(shell_word(word)),
            Some(cluster) if cluster.len() > 1 && !cluster.starts_with(b"--") => {
                line.push(shell_word(cluster));
                line.push(option.to_string());
            }
            _ => line.push(option.to_string()),
        }
        line.push(shell_word(&pattern));
        let rest = &typed[at + 1 + words.len()..];
        line.extend(rest.iter().map(|arg| shell_word(arg.as_bytes())));
        // A few names say what happened; `-n *` in a big directory would say hundreds.
        let mut files: Vec<String> = (following.iter().take(3))
            .map(|root| shell_word(root.as_bytes()))
            .collect();
        if following.len() > 3 {
            files.push(format!("{} more", following.len() - 3));
        }
        let message = format!(
            "{} {} is followed by {}, {}: the shell expanded an unquoted pattern into these \
             names, which pfind would search as roots; quote the pattern: {}",
            value.option,
            shell_word(value.typed.as_bytes()),
            list(&files),
            match following.len() {
                1 => "a file, not a directory",
                _ => "which are files, not directories",
            },
            line.join(" ")
        );
        return Some(message.into_bytes());
    }
    None
}

/// True when `path` exists and is not a directory (nor a link to one).
fn is_plain_file(path: &OsString, paths: &impl Paths) -> bool {
    paths.exists(path) && !paths.is_dir(path)
}

/// The option and pattern that probably were typed, from the names the shell
/// expanded them into: `*.EXT` when all share an extension (`-e EXT` for `-e`),
/// otherwise their common start and end around a `*`; `--regex` gets the glob as
/// `-n`, since a shell pattern is one.
fn pattern_for(option: &'static str, words: &[&[u8]]) -> (&'static str, Vec<u8>) {
    let extension = |word: &[u8]| {
        let name = word.rsplit(|&b| b == b'/').next().unwrap_or(word);
        let dot = name
            .iter()
            .rposition(|&b| b == b'.')
            .filter(|&dot| dot > 0)?;
        Some(name[dot + 1..].to_vec())
    };
    let first = extension(words[0]).filter(|ext| !ext.is_empty());
    let shared = first.filter(|ext| words.iter().all(|w| extension(w).as_ref() == Some(ext)));
    if let (Some(ext), "-e") = (&shared, option) {
        return ("-e", ext.clone());
    }
    let prefix = words.iter().fold(words[0].len(), |n, word| {
        n.min(
            word.iter()
                .zip(words[0])
                .take_while(|(a, b)| a == b)
                .count(),
        )
    });
    let suffix = words.iter().fold(words[0].len() - prefix, |n, word| {
        let common = (word.iter().rev().zip(words[0].iter().rev()))
            .take_while(|(a, b)| a == b)
            .count();
        n.min(common).min(word.len() - prefix)
    });
    let mut glob = words[0][..prefix].to_vec();
    // Without a shared start, a shared extension is what was most likely typed.
    match (&shared, prefix) {
        (Some(ext), 0) => glob.extend_from_slice(&[b"*.", &ext[..]].concat()),
        _ => {
            glob.push(b'*');
            glob.extend_from_slice(&words[0][words[0].len() - suffix..]);
        }
    }
    let option = match option {
        "-p" => "-p",
        _ => "-n",
    };
    (option, glob)
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_is_guessed_from_what_the_shell_made_of_it() {
        let cases: &[(&str, &[&str], (&str, &str))] = &[
            ("-n", &["a.md", "b.md", "c.md"], ("-n", "*.md")),
            ("-e", &["a.md", "b.md"], ("-e", "md")),
            ("--regex", &["a.md", "b.md"], ("-n", "*.md")),
            ("-n", &["test_a.py", "test_b.py"], ("-n", "test_*.py")),
            ("-p", &["src/a.rs", "src/b.rs"], ("-p", "src/*.rs")),
            ("-n", &["Makefile", "Makefile.am"], ("-n", "Makefile*")),
            ("-e", &["a.md", "b.txt"], ("-n", "*")),
        ];
        for &(option, words, (want_option, want)) in cases {
            let words: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
            let (got_option, got) = pattern_for(option, &words);
            assert_eq!(
                (got_option, String::from_utf8(got).unwrap().as_str()),
                (want_option, want),
                "{option} {words:?}"
            );
        }
    }
}
