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
//! fd spells `--exec` `-x`, and pfind's `-x` is `--one-file-system` (find's
//! `-xdev`). An fd user's `pfind -x rm` would take `rm` for a directory to search
//! and say it does not exist; `hints` sees that first and says what to type. `-X` is
//! `--exec-batch`, as in fd.

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

impl Args for ExecArgs {
    fn augment_args(command: Command) -> Command {
        command
            .arg(
                Arg::new("exec")
                    .long("exec")
                    .value_name("CMD")
                    .num_args(1..)
                    .action(ArgAction::Set)
                    .allow_hyphen_values(true)
                    .value_terminator(";")
                    .value_parser(clap::value_parser!(OsString))
                    .conflicts_with_all(REPLACED_OUTPUT)
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
                         a command failed. Example: pfind -e jpg --exec convert {} {.}.png",
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
                    .conflicts_with("exec")
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
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for ExecArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<ExecArgs, clap::Error> {
        let (mode, words) = if let Some(words) = matches.get_many::<OsString>("exec") {
            (Mode::PerMatch, words)
        } else if let Some(words) = matches.get_many::<OsString>("exec_batch") {
            (Mode::Batch, words)
        } else {
            return Ok(ExecArgs::default());
        };
        let words: Vec<&[u8]> = words.map(|word| word.as_bytes()).collect();
        let usage = |message: String| clap::Error::raw(ErrorKind::ValueValidation, message);
        check_terminators(mode, &words).map_err(usage)?;
        let exec = Exec::new(mode, words).map_err(usage)?;
        Ok(ExecArgs { exec: Some(exec) })
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
