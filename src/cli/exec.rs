//! `--exec` and `--exec-batch` on the command line: their definitions (flattened into
//! [`super::Cli`]) and what their words become.
//!
//! A command's words run to a terminator or the end of the line, find's way: `;`
//! for `--exec` (`-exec ... \;`), `+` for `--exec-batch` (`-exec ... {} +`); pfind's
//! options may follow the terminator. Clap collects them (`value_terminator`, and
//! `allow_hyphen_values` so that the command's own options stay its own); what clap
//! cannot check is checked here, as usage errors: a batch that cannot repeat its
//! placeholders, and each terminator used with the other option.
//!
//! `--exec` and `--exec-dir` may be given several times: each match's commands run
//! in turn, in the order typed (fd's several `-x`). `--batch-size N` caps a batch.
//!
//! fd spells `--exec` `-x`, and pfind's `-x` is `--one-file-system` (find's
//! `-xdev`). An fd user's `pfind -x rm` would take `rm` for a directory to search
//! and say it does not exist; `hints` sees that first and says what to type. `-X` is
//! `--exec-batch`, as in fd.

use super::values::{parse_batch_size, text};
use crate::exec::{Exec, Mode};
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

/// `--exec` or `--exec-batch`, resolved.
#[derive(Clone, Debug, Default)]
pub struct ExecArgs {
    pub exec: Option<Exec>,
}

/// The output options a command replaces: with `--exec`, pfind prints nothing of its
/// own, so asking how it should print is a mistake worth saying.
const REPLACED_OUTPUT: [&str; 8] = [
    "long", "sum_size", "count", "print0", "format", "json", "sort", "quiet",
];

/// `--exec` or `--exec-dir` (`id`, and its `long` name): a command's words up to
/// `;`, repeatable.
fn per_match_command(id: &'static str, long: &'static str) -> Arg {
    Arg::new(id)
        .long(long)
        .value_name("CMD")
        .num_args(1..)
        .action(ArgAction::Append)
        .allow_hyphen_values(true)
        .value_terminator(";")
        .value_parser(clap::value_parser!(OsString))
        .conflicts_with_all(REPLACED_OUTPUT)
}

impl Args for ExecArgs {
    fn augment_args(command: Command) -> Command {
        command
            .arg(
                per_match_command("exec", "exec")
                    .help_heading("Output")
                    .help("Run CMD ARGS on each match (words up to ';')")
                    .long_help(
                        "Run a command on each match instead of printing it (fd's -x, \
                         find's -exec ... ;): CMD and its ARGS, up to a ';' word (quote it \
                         from the shell: \\; or ';') or the end of the line. In a word, {} is \
                         the path, {/} its basename, {//} its parent, {.} the path without \
                         extension, {/.} the basename without extension, {{ and }} braces; \
                         with no placeholder the path is added at the end. With no ROOT, \
                         paths start with ./, and ./ is put before any that starts with - \
                         (so that none looks like an option). As many \
                         commands run at once as -j says (one per CPU by default), with stdin from \
                         /dev/null; the output of each is written whole once it exits, \
                         never mixed with another's. No shell is involved. Exit status 1 if \
                         a command failed. Repeatable: each match's commands run in turn, \
                         each if the one before succeeded. Example: pfind -e jpg --exec \
                         convert {} {.}.png",
                    ),
            )
            .arg(
                per_match_command("exec_dir", "exec-dir")
                    .help_heading("Output")
                    .help("As --exec, in the match's directory on ./NAME")
                    .long_help(
                        "As --exec, but the command runs in the match's directory and its \
                         placeholders see the path ./NAME (find's -execdir): {} is ./NAME, \
                         {/} NAME, {//} '.'. Safer where a directory above could be \
                         replaced by a link meanwhile, and what tools that act on the \
                         current directory want. Words up to ';'; repeatable, and mixes \
                         with --exec in the order typed. Example: pfind -n '*.tar' \
                         --exec-dir tar xf {}",
                    ),
            )
            .arg(
                Arg::new("exec_batch")
                    .short('X')
                    .long("exec-batch")
                    .value_name("CMD")
                    .num_args(1..)
                    .action(ArgAction::Set)
                    .allow_hyphen_values(true)
                    .value_terminator("+")
                    .value_parser(clap::value_parser!(OsString))
                    .conflicts_with_all(["exec", "exec_dir"])
                    .conflicts_with_all(REPLACED_OUTPUT)
                    .help_heading("Output")
                    .help("Run CMD ARGS on many matches at once (up to '+')")
                    .long_help(
                        "Run a command with many matches at once (fd's -X, find's -exec ... \
                         {} +): as many paths per command as the system's argument limit \
                         allows, the commands one at a time with pfind's stdin, stdout and \
                         stderr, each as soon as it is full (the last when the walk ends). \
                         CMD and its ARGS run up to a '+' word or the end of the line. \
                         Placeholders as for --exec, in one argument only, which is repeated \
                         for each path; with none, the paths come last. No shell is \
                         involved. Exit status 1 if a command failed. Example: \
                         pfind -e rs -X wc -l",
                    ),
            )
            .arg(
                Arg::new("batch_size")
                    .long("batch-size")
                    .value_name("N")
                    .allow_negative_numbers(true)
                    .requires("exec_batch")
                    .value_parser(text(parse_batch_size))
                    .help_heading("Output")
                    .help("At most N matches per -X command (0: no limit)")
                    .long_help(
                        "At most N matches per command of --exec-batch (fd's option): more \
                         matches run more commands. 0, the default, is no limit but the \
                         system's (the argument limit). Example: pfind -e jpg -X \
                         --batch-size 100 convert-batch",
                    ),
            )
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for ExecArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<ExecArgs, clap::Error> {
        let usage = |message: String| clap::Error::raw(ErrorKind::ValueValidation, message);
        let command = |mode, words: Vec<&OsString>| -> Result<Exec, clap::Error> {
            let words: Vec<&[u8]> = words.into_iter().map(|word| word.as_bytes()).collect();
            check_terminators(mode, &words).map_err(usage)?;
            Exec::new(mode, words).map_err(usage)
        };
        if let Some(words) = matches.get_many::<OsString>("exec_batch") {
            let mut exec = command(Mode::Batch, words.collect())?;
            if let Some(&size) = matches.get_one::<usize>("batch_size") {
                exec = exec.batch_size(size);
            }
            return Ok(ExecArgs { exec: Some(exec) });
        }
        // Each `--exec` and `--exec-dir`, in the order typed.
        let mut each = Vec::new();
        for (id, in_dir) in [("exec", false), ("exec_dir", true)] {
            let (Some(occurrences), Some(indices)) = (
                matches.get_occurrences::<OsString>(id),
                matches.indices_of(id),
            ) else {
                continue;
            };
            let mut indices = indices;
            for words in occurrences {
                let words: Vec<&OsString> = words.collect();
                let at = indices.nth(words.len() - 1).unwrap_or(usize::MAX);
                each.push((at, in_dir, words));
            }
        }
        each.sort_by_key(|&(at, ..)| at);
        let mut exec: Option<Exec> = None;
        for (_, in_dir, words) in each {
            let mut next = command(Mode::PerMatch, words)?;
            if in_dir {
                next = next.in_dir();
            }
            exec = Some(match exec {
                None => next,
                Some(first) => first.then(next),
            });
        }
        Ok(ExecArgs { exec })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = ExecArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

/// Refuses the other option's terminator inside a command: `;` in `--exec-batch`
/// (fd ends `-X` there, and the words after it would go to the command) and `{} +`
/// in `--exec` (find's batch: one command per match would get a `+` argument).
fn check_terminators(mode: Mode, words: &[&[u8]]) -> Result<(), String> {
    match mode {
        Mode::Batch if words.contains(&&b";"[..]) => Err(
            "';' in the command of --exec-batch, which ends at '+' (as find's -exec ... {} +) \
             or at the end of the line; ';' ends --exec"
                .to_string(),
        ),
        Mode::PerMatch if words.windows(2).any(|pair| pair == [&b"{}"[..], b"+"]) => Err(
            "'{} +' in the command of --exec, which runs one command per match and ends at \
             ';'; for find's -exec ... {} + (many matches per command) use --exec-batch \
             (-X) CMD ARGS... +"
                .to_string(),
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminators_of_the_other_option_are_refused() {
        let words = |list: &[&'static str]| list.iter().map(|w| w.as_bytes()).collect::<Vec<_>>();
        assert!(check_terminators(Mode::Batch, &words(&["rm", "--"])).is_ok());
        assert!(check_terminators(Mode::PerMatch, &words(&["echo", "{}", "x"])).is_ok());
        assert!(check_terminators(Mode::PerMatch, &words(&["echo", "+", "{}"])).is_ok());
        let err = check_terminators(Mode::Batch, &words(&["rm", ";", "-e"])).unwrap_err();
        assert!(err.contains("ends at '+'"), "{err}");
        let err = check_terminators(Mode::PerMatch, &words(&["rm", "{}", "+"])).unwrap_err();
        assert!(err.contains("use --exec-batch"), "{err}");
    }
}
