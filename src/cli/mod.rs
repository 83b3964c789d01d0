//! The command line: its definition, in one file per group of options as `--help`
//! groups them, and its reading into a [`Config`].
//!
//! [`Cli`] is put together from the groups, flattened in the order `--help`, the
//! completions and the manual list them: [`names`] and [`entries`] (the filters),
//! [`ignore_files`], [`walk`] (`-L`, `-x`, shown with the filters), [`index`],
//! [`output`],
//! [`exec`] (the commands, shown with the output) and [`other`]. Each group's file
//! holds its options' definitions (the `///` comments are the `--help` text), the
//! parsers of their values, what is checked once they are all read, its part of
//! [`Cli::into_config`] and its warnings; adding an option touches one of them.
//! What spans the groups is here: [`parse`], `PFIND_OPTIONS`, `-h`'s summary and the
//! text after the options.
//!
//! Values are validated by `value_parser` functions, so a bad value is reported by
//! clap with the flag's name, the value and what is allowed, and exits with status 2.
//! Every value is read as the bytes the shell passed (an `OsString`), never through
//! clap's own UTF-8 check, whose error names no option (see [`values`]). Patterns
//! and extensions stay bytes, as with `find -name`, since the names they match need
//! not be UTF-8; other values must be text, and a value that is not says which
//! option it was given to.

mod entries;
mod exec;
mod expanded;
pub mod hints;
mod ignore_files;
mod index;
mod names;
pub mod near;
mod other;
mod output;
mod values;
mod walk;
mod warnings;
mod words;

use crate::config::Config;
use crate::filter::types::families_help;
use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, ValueHint};
pub use names::{List, NameSearch};
pub use other::Generate;
pub use output::{SortArg, When};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// Find files fast: a parallel, work-stealing directory walker.
///
/// Prints every regular file under each ROOT, one path per line, in no particular
/// order. Hidden files are included, no ignore files are read, and symbolic links are
/// neither followed nor printed (like `find ROOT -type f`); -t and -L change that.
///
/// Different options must all match (AND): `-e rs -n 'test_*'` is test files ending
/// in .rs. Repeating -n, -e or a -t kind, or giving -e a comma list, means any of
/// them (OR): `-n '*.rs' -n Makefile`, `-e rs,toml`, `-t f -t l`; -E skips what any
/// of its globs matches (`-E target,.git`). Two globs a name must both match: `-n
/// GLOB1 -p '**/GLOB2'`.
#[derive(Parser, Debug, Default)]
#[command(
    name = "pfind",
    version,
    max_term_width = 100,
    disable_help_flag = true,
    disable_version_flag = true,
    after_help = SHORT_AFTER_HELP
)]
pub struct Cli {
    /// Directories to search [default: .].
    ///
    /// The current directory is printed without `./`. A root that is a regular file is
    /// itself a candidate.
    #[arg(value_name = "ROOT", value_hint = ValueHint::AnyPath)]
    pub roots: Vec<OsString>,

    /// `-e`, `-n`, `-E`, `-p`, `--regex`, `--and`, `-i` (see `cli/names.rs`).
    #[command(flatten)]
    pub names: names::NameArgs,

    /// `-t`, `-S`, the times, `--owner`, the depths, `--prune` (`cli/entries.rs`).
    #[command(flatten)]
    pub entries: entries::EntryArgs,

    /// `--ignore`, `-I`, `-H`, `-u`, `-G` and the rest (see `cli/ignore_files.rs`).
    #[command(flatten)]
    pub ignore: ignore_files::IgnoreArgs,

    /// `-L`, `--no-follow`, `-x` (see `cli/walk.rs`).
    #[command(flatten)]
    pub walk: walk::WalkArgs,

    /// `--index`, `--index-trust`, `--index-list`, ... (see `cli/index.rs`).
    #[command(flatten)]
    pub index: index::IndexArgs,

    /// `-l`, `-c`, `--format`, `--json`, `--sort`, `-a`, ... (see `cli/output.rs`).
    #[command(flatten)]
    pub output: output::OutputArgs,

    /// `--exec CMD... ;` and `-X, --exec-batch CMD... +` (see `cli/exec.rs`).
    #[command(flatten)]
    pub exec: exec::ExecArgs,

    /// `-j`, `--generate`, `-h`, `-V` (see `cli/other.rs`).
    #[command(flatten)]
    pub other: other::OtherArgs,
}

/// Why a command line is not run.
#[derive(Debug)]
pub enum Usage {
    /// Something a find or fd user typed, with the pfind spelling of it (see
    /// [`hints`]): one line, without the `pfind: ` before it.
    Hint(Vec<u8>),
    /// clap's own message; also `--help` and `--version`, which clap prints.
    Clap(clap::Error),
}

/// Reads the command line `args` (the program's name first), once per process (what
/// clap built for it is left for the process's end to free), in three steps: what
/// find and fd users type that pfind would misread is refused with a hint; clap
/// parses the rest; then `-C`'s directory is entered and `--newer`'s file read, in
/// that order and only then, so that the file is found where the roots are.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Cli, Usage> {
    parse_words(args).map_err(Usage::tidy)
}

fn parse_words(args: impl IntoIterator<Item = OsString>) -> Result<Cli, Usage> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    // The options alone: what only help shows is added if clap is to print (below).
    let command = parsing_command();
    let defaults = default_options();
    if let Some(refusal) = unfinished_in_defaults(&defaults, &command) {
        return Err(Usage::Hint(refusal));
    }
    let from_env = defaults.len();
    // Kept to name the variable in an error that comes from it; empty, and free,
    // when it is not set.
    let from_env_words = defaults.clone();
    if !args.is_empty() {
        args.splice(1..1, defaults);
    }
    let options = args.get(1..).unwrap_or_default();
    if let Some(hint) = hints::refusal(options, &command, &hints::System) {
        let in_env = hints::refusal(&from_env_words, &command, &hints::System).is_some();
        return Err(Usage::Hint(match in_env {
            true => from_env_error(&from_env_words, &String::from_utf8_lossy(&hint)),
            false => hint,
        }));
    }
    // The definition and the matches are never freed: this runs once per process,
    // and freeing them took 45,000 instructions at every start, an eighth of a run
    // on an empty directory (callgrind, static build).
    let mut command = std::mem::ManuallyDrop::new(command);
    // Kept for the line a refusal gives to type, where an expansion could be (see
    // `expanded_pattern`); clap takes the words themselves.
    let line = (args.len() >= 4).then(|| args.clone());
    let matches = match command.try_get_matches_from_mut(&args) {
        Ok(matches) => matches,
        // `-h`, `--help`, `-V` or a usage error: parsed again with the whole
        // definition, which stops at the same word, so that what clap prints is made
        // from it. The texts only help shows do not change what a command line means.
        Err(stop) => {
            let again = self::command().try_get_matches_from_mut(&args).err();
            return Err(name_the_variable(again.unwrap_or(stop), &from_env_words));
        }
    };
    let mut matches = std::mem::ManuallyDrop::new(matches);
    // Read before `from_arg_matches_mut` takes the values out of the matches.
    let ignore = ignore_files::IgnoreArgs::switches(&matches);
    if let Some(refusal) = root_from_env(&matches, from_env) {
        return Err(refusal);
    }
    if let Some(refusal) = line.and_then(|line| expanded_pattern(&line, from_env, &matches)) {
        return Err(Usage::Hint(refusal));
    }
    let first_pattern = names::NameArgs::first_pattern(&matches);
    // The files and directories named, to say so if the variable named one that
    // is refused (read before the values are taken out of the matches).
    let named: Vec<(&str, OsString)> = (FILE_OPTIONS.iter())
        .flat_map(|&id| {
            given(&matches, id)
                .into_iter()
                .map(move |value| (id, value))
        })
        .collect();
    let from_env_file = |refused: values::Refused| match &refused {
        values::Refused::Value { id, value, .. }
            if named_by_env(&from_env_words, &named, id, value) =>
        {
            match Usage::from(refused) {
                Usage::Clap(err) => {
                    let text = err.render().to_string();
                    let first = text.lines().next().unwrap_or_default();
                    let why = first.trim_start_matches("error: ");
                    Usage::Hint(from_env_error(&from_env_words, why))
                }
                hint => hint,
            }
        }
        _ => Usage::from(refused),
    };
    // Each field starts at what an absent option means, and only the options given
    // (or with a default of their own) are read (see `parsing_command`).
    let mut cli = Cli::default();
    cli.update_from_arg_matches_mut(&mut matches)
        .map_err(|err| Usage::Clap(err.format(&mut definition())))?;
    cli.output.separator_conflict()?;
    cli.ignore.settle(ignore);
    cli.output.enter_base_directory().map_err(from_env_file)?;
    // After -C, which the roots are relative to; and not in a working directory
    // that was removed, where no relative root exists, pattern or not.
    if cli.roots.len() > 1 && std::env::current_dir().is_ok() {
        if let Some(hint) = hints::pattern_before_roots(&cli.roots, &hints::System) {
            return Err(Usage::Hint(hint));
        }
    }
    cli.ignore.check_files().map_err(from_env_file)?;
    cli.entries.read_newer().map_err(from_env_file)?;
    cli.walk
        .read_list(cli.output.print0)
        .map_err(from_env_file)?;
    files_from_without_rules(&cli)?;
    cli.names.read_and(first_pattern)?;
    Ok(cli)
}

/// The refusal of a root among the words of `PFIND_OPTIONS` (the first
/// `from_env` words of the line), which may hold options only.
fn root_from_env(matches: &clap::ArgMatches, from_env: usize) -> Option<Usage> {
    let first = matches.indices_of("roots")?.next()?;
    if first > from_env {
        return None;
    }
    let root = matches.get_raw("roots").and_then(|mut roots| roots.next());
    let root = root.unwrap_or_default().to_string_lossy();
    let message = format!("PFIND_OPTIONS may hold options only, not the root '{root}'");
    Some(Usage::Hint(message.into_bytes()))
}

/// `--files-from` walks nothing, so no ignore file could apply: asking for one
/// with it is refused rather than ignored.
fn files_from_without_rules(cli: &Cli) -> Result<(), Usage> {
    if cli.walk.files_from.is_some() && cli.ignore.options.uses_rules() {
        let message = "--files-from walks nothing, so no ignore file can apply: leave out \
                       --ignore, -G and --ignore-file (hidden names are left out with \
                       --no-hidden)";
        return Err(values::Refused::Conflict(message.to_string()).into());
    }
    Ok(())
}

/// The definition a command line is parsed with: `Cli::command()`, built, with the
/// default of every switch (`ArgAction::SetTrue`) taken away. clap gives each
/// switch not typed its default `false` as if it had been (a value parsed, matched
/// and stored, then taken out again by the derived reader): 35 switches were a
/// sixth of a run on an empty directory (callgrind). Without it an absent switch
/// has no match, and [`parse_words`] starts from `Cli::default()`, whose switches
/// are `false`, reading only what was given. Built first, so that clap does not
/// put the defaults back when it builds the definition for parsing.
fn parsing_command() -> clap::Command {
    let mut command = Cli::command();
    command.build();
    command.mut_args(|arg| match arg.get_action() {
        clap::ArgAction::SetTrue => arg.default_value(None),
        _ => arg,
    })
}

/// The options whose value is a file or directory read once the line is parsed
/// (`-C`, `--newer`, `--ignore-file`): refused then, and not by clap, so
/// [`name_the_variable`] does not see them.
const FILE_OPTIONS: [&str; 3] = ["base_directory", "newer", "ignore_files"];

/// The values of option `id` in `matches`, as given.
fn given(matches: &clap::ArgMatches, id: &str) -> Vec<OsString> {
    (matches.get_raw(id).into_iter().flatten())
        .map(OsStr::to_owned)
        .collect()
}

/// True when `value`, refused for option `id`, is there only because the words
/// of `PFIND_OPTIONS` (`from_env`) gave it: they alone give it as often as the
/// whole line (`named`) does. Read again alone only then, on the way to an error:
/// clap's positions do not tell (a value in `--opt=value` counts one more).
fn named_by_env(
    from_env: &[OsString],
    named: &[(&str, OsString)],
    id: &str,
    value: &OsStr,
) -> bool {
    if from_env.is_empty() {
        return false;
    }
    let alone = std::iter::once(OsString::from("pfind")).chain(from_env.iter().cloned());
    let Ok(env) = command().try_get_matches_from(alone) else {
        return false;
    };
    let by_env = given(&env, id).iter().filter(|v| *v == value).count();
    let by_all = (named.iter())
        .filter(|(i, v)| *i == id && v == value)
        .count();
    by_env > 0 && by_env == by_all
}

/// clap's error `err`, or when the words of `PFIND_OPTIONS` (`from_env`) alone give
/// one, that one said as coming from the variable: `PFIND_OPTIONS=--bogus pfind` got
/// clap's "unexpected argument '--bogus'" and a tip about `--`, and nothing said
/// where the word was (issue 41). `--help` and `--version` are left to clap.
fn name_the_variable(err: clap::Error, from_env: &[OsString]) -> Usage {
    if from_env.is_empty() || !err.use_stderr() {
        return Usage::Clap(err);
    }
    let alone = std::iter::once(OsString::from("pfind")).chain(from_env.iter().cloned());
    match command().try_get_matches_from(alone) {
        Err(own) if own.use_stderr() => {
            // clap's first line, without its `error: ` (the tip and usage are about
            // the command line, which is not where the word is).
            let text = own.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            Usage::Hint(from_env_error(
                from_env,
                first.trim_start_matches("error: "),
            ))
        }
        _ => Usage::Clap(err),
    }
}

/// `PFIND_OPTIONS='WORDS': WHY (...)`, for an error in the variable's words.
fn from_env_error(from_env: &[OsString], why: &str) -> Vec<u8> {
    let words: Vec<String> = (from_env.iter())
        .map(|word| word.to_string_lossy().into_owned())
        .collect();
    format!(
        "PFIND_OPTIONS='{}': {why} (PFIND_OPTIONS holds options read before the command \
         line's: see Environment in pfind --help)",
        words.join(" ")
    )
    .into_bytes()
}

/// The refusal for a pattern the shell expanded into file names (`pfind -n *.md`),
/// asked of `matches` before their values are taken out; see [`expanded`]. Before
/// `-C` is entered: the shell expanded the pattern where pfind was started. Only for
/// a line of four words or more (the program, an option, its value and a root): a
/// shorter one (`pfind DIR`) costs nothing.
fn expanded_pattern(
    args: &[OsString],
    from_env: usize,
    matches: &clap::ArgMatches,
) -> Option<Vec<u8>> {
    let indexed = |id: &str| -> Vec<(usize, &OsString)> {
        let (Some(indices), Some(raw)) = (matches.indices_of(id), matches.get_raw(id)) else {
            return Vec::new();
        };
        // `get_raw` gives `&OsStr`; the values are the command line's own words.
        let words = raw.filter_map(|word| args.iter().find(|arg| arg.as_os_str() == word));
        indices.zip(words).collect()
    };
    let roots = indexed("roots");
    if roots.is_empty() {
        return None;
    }
    let options = [
        ("name", "-n"),
        ("extensions", "-e"),
        ("path", "-p"),
        ("regex", "--regex"),
    ];
    let values: Vec<expanded::Value> = (options.iter())
        .flat_map(|&(id, option)| {
            (indexed(id).into_iter()).map(move |(index, typed)| expanded::Value {
                option,
                typed,
                index,
            })
        })
        .collect();
    expanded::refusal(args, from_env, &values, &roots, &hints::System)
}

/// Options to read before the command line's own: the words of `PFIND_OPTIONS`,
/// split at blanks (no quoting), so that `PFIND_OPTIONS=-G` makes fd's view the
/// default and the command line can still undo it (`-u`).
fn default_options() -> Vec<OsString> {
    let Some(value) = std::env::var_os("PFIND_OPTIONS") else {
        return Vec::new();
    };
    value
        .as_bytes()
        .split(u8::is_ascii_whitespace)
        .filter(|word| !word.is_empty())
        .map(|word| OsStr::from_bytes(word).to_owned())
        .collect()
}

/// Why the words of `PFIND_OPTIONS` (`defaults`) cannot go before the command
/// line's, if they cannot: an option that takes the words after it up to a
/// terminator or the end of the line (`--exec`, `--exec-dir`, `-X`), which would take
/// the command line's own words as its arguments and, run on every match, do what
/// nobody typed (`PFIND_OPTIONS='-X rm'` and `pfind -n a` ran `rm -n a PATHS`; issue
/// 38), or an option whose value would be the command line's first word. The words
/// are read as clap reads them (a value after its option, short flags in clusters),
/// from the definitions, so an option that takes the rest of the line added later is
/// refused too. Unknown words are left to clap.
fn unfinished_in_defaults(defaults: &[OsString], command: &clap::Command) -> Option<Vec<u8>> {
    let takes_value = |arg: &clap::Arg| arg.get_action().takes_values();
    let takes_the_rest = |arg: &clap::Arg| {
        arg.get_num_args()
            .is_some_and(|n| n.max_values() == usize::MAX)
    };
    let refusal = |arg: &clap::Arg, typed: &str| {
        let message = match takes_the_rest(arg) {
            true => format!(
                "PFIND_OPTIONS may hold options only, not a command: '{typed}' would \
                 take the command line's words as its command's; give it on the command line"
            ),
            false => format!(
                "PFIND_OPTIONS ends with '{typed}', whose value would be the command \
                 line's first word; give the option its value in PFIND_OPTIONS"
            ),
        };
        Some(message.into_bytes())
    };
    let mut words = defaults.iter().map(|word| word.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            // Everything after it would be a root, the command line's options
            // included; and clap's positions, by which a root from the variable is
            // told from the command line's, do not count it (issue 47).
            return Some(
                "PFIND_OPTIONS may hold options only, not '--', which would make the \
                 command line's options roots"
                    .as_bytes()
                    .to_vec(),
            );
        }
        let (arg, inline_value) = if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            let found = command.get_arguments().find(|arg| {
                arg.get_long() == Some(name)
                    || arg.get_all_aliases().is_some_and(|a| a.contains(&name))
            });
            (found, value.is_some())
        } else if let Some(cluster) = word.strip_prefix('-') {
            // Flags until one takes a value: the rest of the word, or the next word.
            let mut found = None;
            for (at, letter) in cluster.char_indices() {
                let Some(arg) = command.get_arguments().find(|arg| {
                    arg.get_short() == Some(letter)
                        || arg
                            .get_all_short_aliases()
                            .is_some_and(|a| a.contains(&letter))
                }) else {
                    break;
                };
                if takes_value(arg) {
                    found = Some((arg, at + letter.len_utf8() < cluster.len()));
                    break;
                }
            }
            found.map_or((None, false), |(arg, inline)| (Some(arg), inline))
        } else {
            (None, false)
        };
        let Some(arg) = arg.filter(|arg| takes_value(arg)) else {
            continue;
        };
        if takes_the_rest(arg) || (!inline_value && words.next().is_none()) {
            return refusal(arg, &word);
        }
    }
    None
}

impl Usage {
    /// clap's error without what only cluttered its end (issue 51): the generic
    /// usage line (`Usage: pfind --count [ROOT]...`, which says no more than the
    /// error did) and, for an unknown option, the tip to pass it after `--` as a
    /// value (`-- --bogus`: a root named like an option is hardly ever meant). A
    /// similar option's name ("a similar argument exists") stays.
    fn tidy(self) -> Usage {
        use clap::error::{ContextKind, ErrorKind};
        match self {
            Usage::Clap(mut err) if err.use_stderr() => {
                err.remove(ContextKind::Usage);
                if err.kind() == ErrorKind::UnknownArgument {
                    err.remove(ContextKind::Suggested);
                }
                Usage::Clap(err)
            }
            other => other,
        }
    }
}

impl From<values::Refused> for Usage {
    /// A group's refusal as a usage error that reads as clap's other errors do,
    /// made by clap's own machinery: a value through a value parser that refuses
    /// it, a conflict as clap words its own.
    fn from(refused: values::Refused) -> Usage {
        let mut command = definition();
        let (id, value, why) = match refused {
            values::Refused::Value { id, value, why } => (id, value, why),
            values::Refused::Conflict(message) => {
                let kind = clap::error::ErrorKind::ArgumentConflict;
                return Usage::Clap(command.error(kind, message));
            }
        };
        command.build();
        let arg = command.get_arguments().find(|arg| arg.get_id() == id);
        let refuse = OsStringValueParser::new().try_map(move |_| Err::<(), _>(why.clone()));
        match refuse.parse_ref(&command, arg, &value) {
            Err(err) => Usage::Clap(err),
            Ok(()) => unreachable!("the parser refuses every value"),
        }
    }
}

/// The text after the summary of `-h`.
const SHORT_AFTER_HELP: &str = "Options all match; a repeated -n, -e or -t is any of them. \
    PFIND_OPTIONS holds options read first. --help: every option";

/// The environment variables pfind reads, the last part of `--help` and the manual's
/// ENVIRONMENT section (`generate.rs` finds it by its heading).
pub const ENVIRONMENT_HELP: &str = "\
Environment:
  PFIND_OPTIONS  Options read before the command line's own, split at blanks (no
                 quoting): PFIND_OPTIONS=-G makes fd's view the default, and pfind -u
                 undoes it for one run. Options only: a root, --exec, --exec-dir, -X
                 or an option without its value is refused, and an error in it names
                 PFIND_OPTIONS.
  NO_COLOR       Set and not empty: --color auto prints no colours (always still does).
  LS_COLORS      The colours of --color, as ls reads them (di, ln, ex, *.EXT, ...);
                 unset or empty: dircolors' default palette.
";

/// What `-h` says first: what pfind lists when given no option, and how to get the
/// developer's view.
const SHORT_ABOUT: &str = "\
Find files fast, on every core. By default: every regular file under each ROOT
(default .), hidden and ignored ones too, as find ROOT -type f; links are not
followed. --ignore: the files git lists; -G: the files fd lists.";

/// The options `-h` shows, by id: what a newcomer reaches for first. `--help`, the
/// manual and the README show every option.
const SHORT_HELP_OPTIONS: &[&str] = &[
    "extensions",
    "name",
    "path",
    "regex",
    "exclude",
    "types",
    "size",
    "changed_within",
    "max_depth",
    "ignore_case",
    "ignore",
    "fd_view",
    "unrestricted",
    "long",
    "count",
    "print0",
    "json",
    "sort",
    "max_results",
    "exec",
    "exec_batch",
    "threads",
    "help",
    "version",
];

/// The whole definition (with the text after `--help`'s options), as the manual, the
/// completions and clap's errors are made from it.
pub fn definition() -> clap::Command {
    // The name `--version` and help give: pfind-mpi's own in pfind-mpi (issue 51).
    let name = crate::report::program();
    Cli::command().name(name).after_long_help(after_long_help())
}

/// The command line's definition, with `-h`'s summary: [`SHORT_ABOUT`], then the
/// options of [`SHORT_HELP_OPTIONS`] (the others are in `--help` only). Built only
/// when clap is to print help, the version or an error: a run that parses its
/// options builds `Cli::command()` alone, without the `format!` of the text after
/// the options and the pass over every option for `-h` (issue 42: 890,897 to 831,099
/// instructions on an empty directory, callgrind).
pub fn command() -> clap::Command {
    // One pass over the arguments in place: `mut_arg` per argument moved the whole
    // definition each time, 1.2M instructions at every start (callgrind).
    definition().about(SHORT_ABOUT).mut_args(|arg| {
        if SHORT_HELP_OPTIONS.contains(&arg.get_id().as_str()) {
            arg
        } else {
            arg.hide_short_help(true)
        }
    })
}

/// The text after the options of `--help`: the type families, from their table, and
/// examples.
fn after_long_help() -> String {
    format!(
        "{}\n\
        Examples:\n  \
        pfind /data                 every regular file under /data\n  \
        pfind /data -e jpg -e png   only .jpg and .png files (also: -e jpg,png)\n  \
        pfind /data -t images       jpg, jpeg, png, webp, bmp, tiff and gif files\n  \
        pfind /data -n 'file_*'     basename matches a glob\n  \
        pfind src -n '*.[ch]'       globs take sets and ranges, as find -name\n  \
        pfind /data -i -n '*.jpg'   ignore case: also IMG.JPG\n  \
        pfind . -p 'src/**/*.rs'    path below the root matches; ** is any depth\n  \
        pfind . -n '*.rs' -n Makefile   either glob (a repeated -n is any of them)\n  \
        pfind . --regex '^test_.*\\.py$'   a regular expression on the name (fd's)\n  \
        pfind . -n '*.rs' --and '*test*'   both globs must match\n  \
        pfind . --ignore -e rs      as git sees the tree: no target/, no ignored files\n  \
        pfind . -G -n '*.py'        what fd lists (--ignore --no-hidden); -u undoes it\n  \
        pfind /data -E node_modules skip files and directories with that name\n  \
        pfind . -E target,.git -e rs    skip two directories (a list, as -e takes)\n  \
        pfind . -E /target -E build/    with '/': paths below the root, as .gitignore\n  \
        pfind . -t d -n node_modules --prune   the outermost node_modules only\n  \
        pfind /data -t d -t e       empty directories\n  \
        pfind /data -t checkpoints -s   how much space the checkpoints take\n  \
        pfind /data -S +1mi -l      files of at least 1 MiB, with their sizes\n  \
        pfind /data --changed-within 1d   modified in the last day\n  \
        pfind /srv --owner '!root'  files root does not own\n  \
        pfind /data -c              just the number of matching files\n  \
        pfind /data -e log -X gzip  run a command on the matches (--exec: one each)\n  \
        pfind . -n '*.tar' --exec-dir tar xf {{}}   in each match's directory\n  \
        pfind /data --sort size --reverse -l --max-results 10  largest files\n  \
        pfind /data --format '{{size}} {{mtime}} {{}}'   a record per match\n  \
        pfind /data --json -l | jq .size   JSON lines for other programs\n  \
        pfind /data -q -e core && echo found   only the exit status\n\
        \n{ENVIRONMENT_HELP}",
        families_help()
    )
}

impl Cli {
    /// Resolves the parsed arguments into the configuration the walker uses, each
    /// group its part.
    pub fn into_config(self) -> Config {
        self.into_config_and_misses().0
    }

    /// [`Self::into_config`], and what a search that finds nothing is told after the
    /// walk, if it may be told anything (see [`near`]): the name options are moved
    /// there once resolved, so that a search pays nothing for it up front.
    pub fn into_config_and_misses(self) -> (Config, Option<near::Misses>) {
        let search = self.name_search();
        let miss_hints = search.is_some();
        let mut config = Config::new(self.roots);
        self.names
            .resolve(&mut config.filter, self.entries.families());
        let misses = near::Misses::new(self.names, &self.entries, self.output.quiet, search);
        self.entries.resolve(&mut config, self.walk.follow);
        config.miss_hints = miss_hints;
        config.exec = self.exec.exec;
        config.ignore = self.ignore.options;
        self.walk.resolve(&mut config);
        self.index.resolve(&mut config);
        self.output.resolve(&mut config);
        self.other.resolve(&mut config);
        (config, misses)
    }

    /// The name search, if this is one whose misses can be told (see
    /// `NameArgs::name_search`).
    pub fn name_search(&self) -> Option<NameSearch> {
        self.names.name_search(&self.entries, self.output.quiet)
    }

    /// Warnings about options that are valid but cannot do what was probably meant,
    /// for `main` to print before the walk: one line each, without the `pfind: `
    /// (see [`warnings`]).
    pub fn warnings(&self) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        self.names
            .warnings(self.ignore.options.skip_hidden, &mut lines);
        self.entries.warnings(&mut lines);
        self.output.warnings(&self.roots, &mut lines);
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::size::SizeFilter;
    use crate::output::OutputMode;

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        Cli::try_parse_from(std::iter::once("pfind").chain(args.iter().copied()))
            .map(Cli::into_config)
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The switches of the definition lines are parsed with (`parsing_command`).
    fn switches(command: &clap::Command) -> Vec<&clap::Arg> {
        (command.get_arguments())
            .filter(|arg| matches!(arg.get_action(), clap::ArgAction::SetTrue))
            .collect()
    }

    /// What `parse_words` does: the switches' defaults out of the definition, and
    /// only the options given read into `Cli::default()`.
    fn read_as_parse_words(line: &[&str]) -> Result<Cli, clap::error::ErrorKind> {
        let argv = std::iter::once("pfind").chain(line.iter().copied());
        let mut matches = (parsing_command().try_get_matches_from(argv)).map_err(|e| e.kind())?;
        let mut cli = Cli::default();
        cli.update_from_arg_matches_mut(&mut matches)
            .map_err(|e| e.kind())?;
        Ok(cli)
    }

    #[test]
    fn the_parsing_definition_has_no_default_for_any_switch() {
        let command = parsing_command();
        let switches = switches(&command);
        assert!(switches.len() >= 30, "{} switches", switches.len());
        for arg in switches {
            assert_eq!(
                arg.get_default_values(),
                [] as [&OsStr; 0],
                "{}",
                arg.get_id()
            );
        }
    }

    /// For each switch alone, the empty line, and lines of values, repeats and
    /// overrides: the same `Cli` as clap's own reader gives with every default in.
    #[test]
    fn reading_only_the_options_given_is_reading_them_all() {
        let command = Cli::command();
        let alone: Vec<String> = switches(&command)
            .iter()
            .map(|arg| match (arg.get_long(), arg.get_short()) {
                (Some(long), _) => format!("--{long}"),
                (None, Some(short)) => format!("-{short}"),
                (None, None) => unreachable!("a switch without a name"),
            })
            .collect();
        let mut lines: Vec<Vec<&str>> = alone.iter().map(|word| vec![word.as_str()]).collect();
        lines.extend(
            [
                &[][..],
                &["-H", "-c", "-e", "rs", "src"],
                &["--index", "--index-trust"],
                &["--index-trust", "--no-index", "-t", "d", "-d", "2"],
                &["-L", "--no-follow", "-a", "--relative-path", "-0"],
                &[
                    "--ignore",
                    "-u",
                    "--no-hidden",
                    "-n",
                    "*.rs",
                    "--sort",
                    "path",
                ],
                &["-1", "--max-results", "4", "-l"],
                &["--exec", "echo", "{}", ";", "-j", "3"],
                &["-H", "-H"],
            ]
            .map(<[&str]>::to_vec),
        );
        for line in &lines {
            let whole =
                Cli::try_parse_from(std::iter::once(&"pfind").chain(line)).map_err(|e| e.kind());
            let read = read_as_parse_words(line);
            assert_eq!(format!("{read:?}"), format!("{whole:?}"), "{line:?}");
        }
        // The comparison was of parsed lines: only these are refused (two switches
        // that need another option, and a repeat).
        let refused: Vec<&Vec<&str>> = (lines.iter())
            .filter(|line| read_as_parse_words(line).is_err())
            .collect();
        assert_eq!(
            refused,
            [
                &vec!["--human-readable"],
                &vec!["--reverse"],
                &vec!["-H", "-H"]
            ]
        );
    }

    #[test]
    fn extensions_accept_lists_dots_and_case() {
        let config = parse(&["-e", "JPG,.png", "--extension", "tar.gz"]).unwrap();
        let exts: Vec<&[u8]> = config.filter.extensions.iter().map(|e| &**e).collect();
        assert_eq!(exts, [&b"jpg"[..], b"png", b"tar.gz"]);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        for args in [
            &["-e", ""][..],
            &["-e", "."],
            &["-e", "jpg,"],
            &["-j", "0"],
            &["-j", "100000"],
            &["-j", "two"],
            &["-S", "+1x"],
            &["-c", "-0"],
            &["--no-such-flag"],
        ] {
            let err = parse(args).expect_err(&format!("{args:?}"));
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn new_options_resolve() {
        use crate::filter::types::{Kind, TypeFilter};
        let config = parse(&["-t", "d", "-t", "e", "-t", "checkpoints", "-e", "PT"]).unwrap();
        assert_eq!(
            config.filter.types,
            TypeFilter::from_kinds(&[Kind::Dir, Kind::Empty])
        );
        let exts: Vec<&[u8]> = config.filter.extensions.iter().map(|e| &**e).collect();
        assert_eq!(exts, [&b"ckpt"[..], b"pt", b"pth", b"safetensors"]); // deduplicated
        assert_eq!(parse(&[]).unwrap().filter.types, TypeFilter::default());
        let config = parse(&["--min-size", "1k", "--max-size", "2mi", "-S", "+5"]).unwrap();
        assert_eq!(
            config.filter.size_filters,
            [
                SizeFilter::AtLeast(5),
                SizeFilter::AtLeast(1000),
                SizeFilter::AtMost(2 << 20)
            ]
        );
        let config = parse(&["-d", "3", "--min-depth", "2", "-L", "-x", "-a"]).unwrap();
        assert_eq!((config.filter.max_depth, config.filter.min_depth), (3, 2));
        assert!(config.follow && config.one_file_system && config.absolute);
        assert_eq!(parse(&[]).unwrap().filter.max_depth, usize::MAX);
        assert_eq!(parse(&["-1"]).unwrap().max_results, Some(1));
        assert_eq!(parse(&["--max-results", "9"]).unwrap().max_results, Some(9));
        assert_eq!(parse(&[]).unwrap().max_results, None);
        assert_eq!(parse(&["--max-results=0"]).unwrap().max_results, None); // fd's
        assert_eq!(
            parse(&["-l", "-0"]).unwrap().output,
            OutputMode::Long { terminator: 0 }
        );
        assert_eq!(parse(&["-s"]).unwrap().output, OutputMode::SizeSum);
    }

    #[test]
    fn new_options_reject_bad_values() {
        for args in [
            &["-t", "bogus"][..],
            &["-t", ""],
            &["--min-size", "+1k"],
            &["--max-size", "-1k"],
            &["-d", "-1"],
            &["-s", "-c"],
            &["-s", "-l"],
            &["-l", "-c"],
        ] {
            let err = parse(args).expect_err(&format!("{args:?}"));
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn patterns_and_extensions_are_bytes_and_may_start_with_a_dash() {
        use std::ffi::OsStr;
        let parse_os = |args: &[&[u8]]| {
            let args = args.iter().map(|a| OsStr::from_bytes(a));
            Cli::try_parse_from(std::iter::once(OsStr::new("pfind")).chain(args))
        };
        // A Latin-1 pattern: `?` then the byte 0xff.
        let cli = parse_os(&[b"-n", b"?\xff", b"-E", b"-*", b"-e", b"\xE9T\xC9,.-x"]).unwrap();
        let names: Vec<&[u8]> = cli.names.name.iter().map(|n| &**n).collect();
        assert_eq!(names, [&b"?\xff"[..]]);
        let excludes: Vec<&[u8]> = cli
            .names
            .exclude
            .iter()
            .flat_map(|l| &l.0)
            .map(|e| &**e)
            .collect();
        assert_eq!(excludes, [&b"-*"[..]]);
        // Kept as typed on the command line; normalised in the configuration.
        assert_eq!(
            cli.names.extensions,
            [List(vec![
                Box::from(&b"\xE9T\xC9"[..]),
                Box::from(&b".-x"[..])
            ])]
        );
        assert!(
            cli.roots.is_empty(),
            "a pattern starting with '-' is not a root"
        );
        let config = cli.into_config();
        let exts: Vec<&[u8]> = config.filter.extensions.iter().map(|e| &**e).collect();
        assert_eq!(exts, [&b"-x"[..], b"\xE9t\xC9"]); // sorted
        let config = parse_os(&[b"-n", b"?\xff", b"-E", b"-*"])
            .unwrap()
            .into_config();
        assert!(config.filter.name_passes(b"a\xff"));
        assert!(config.filter.name_passes(b"\xc3\xa9\xff")); // é, then 0xff
        assert!(!config.filter.name_passes(b"-\xff"));
        // Any other option refuses a value that is not UTF-8, naming the option.
        for (option, name) in [
            ("-S", "--size"),
            ("--min-size", "--min-size"),
            ("-t", "--type"),
            ("-d", "--max-depth"),
            ("--min-depth", "--min-depth"),
            ("--max-results", "--max-results"),
            ("-j", "--threads"),
            ("--format", "--format"),
            ("--changed-within", "--changed-within"),
            ("--owner", "--owner"),
        ] {
            let err = parse_os(&[option.as_bytes(), b"1\xff"]).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            let text = err.to_string();
            assert!(
                text.contains(name) && text.contains("not valid UTF-8"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_slash_in_a_name_pattern_is_warned_about() {
        let cli = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("pfind").chain(args.iter().copied())).unwrap()
        };
        assert!(cli(&["-n", "a*", "-E", "b"]).warnings().is_empty());
        // `-E x/` names directories (issue 27): no warning.
        let warnings = cli(&["-n", "a/b", "-E", "x/", "-E", "ok"]).warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let first = String::from_utf8_lossy(&warnings[0]);
        assert!(first.starts_with("-n 'a/b' contains '/'"), "{first}");
        assert!(first.contains("matches nothing"), "{first}");
    }

    #[test]
    fn names_repeat_and_lists_split_with_escaped_commas() {
        let config = parse(&["-n", "*.rs", "--name", "Makefile", "-E", "target,.git"]).unwrap();
        let filter = &config.filter;
        assert!(filter.name_passes(b"main.rs") && filter.name_passes(b"Makefile"));
        assert!(!filter.name_passes(b"main.c"));
        assert_eq!(filter.exclude_globs.len(), 2);
        assert!(filter.is_excluded(b"target") && filter.is_excluded(b".git"));
        let config = parse(&["-E", "a\\,b,[,;]", "-e", "x\\,y,z"]).unwrap();
        let filter = &config.filter;
        assert!(filter.is_excluded(b"a,b") && filter.is_excluded(b";"));
        assert!(!filter.is_excluded(b"a") && !filter.is_excluded(b"b"));
        let exts: Vec<&[u8]> = config.filter.extensions.iter().map(|e| &**e).collect();
        assert_eq!(exts, [&b"x,y"[..], b"z"]);
        for bad in [
            &["-E", "a,,b"][..],
            &["-E", "a,"],
            &["-e", "jpg,,png"],
            &["-E", "[z-a],b"],
        ] {
            assert_eq!(parse(bad).unwrap_err().exit_code(), 2, "{bad:?}");
        }
    }

    #[test]
    fn a_command_takes_the_words_up_to_its_terminator() {
        use crate::exec::{Exec, Mode};
        let exec = |mode, words: &[&'static str]| {
            Some(Exec::new(mode, words.iter().map(|w| w.as_bytes())).unwrap())
        };
        let config = parse(&["--exec", "echo", "-e", "{}", ";", "-e", "rs"]).unwrap();
        assert_eq!(config.exec, exec(Mode::PerMatch, &["echo", "-e", "{}"]));
        assert_eq!(config.filter.extensions.iter().count(), 1);
        let config = parse(&["-X", "wc", "-l", "+", "-d", "2", "src"]).unwrap();
        assert_eq!(config.exec, exec(Mode::Batch, &["wc", "-l"]));
        assert_eq!(config.filter.max_depth, 2);
        assert_eq!(config.roots, [OsString::from("src")]);
        let config = parse(&["src", "--exec-batch", "ls", "-d", "+x"]).unwrap();
        assert_eq!(config.exec, exec(Mode::Batch, &["ls", "-d", "+x"]));
        assert_eq!(parse(&[]).unwrap().exec, None);
        // Several commands, in the order typed, --exec-dir among them (issue 27).
        let config = parse(&[
            "--exec-dir",
            "a",
            ";",
            "--exec",
            "b",
            "{/}",
            ";",
            "--exec",
            "c",
        ]);
        let a = exec(Mode::PerMatch, &["a"]).unwrap().in_dir();
        let want = a.then(exec(Mode::PerMatch, &["b", "{/}"]).unwrap());
        let want = want.then(exec(Mode::PerMatch, &["c"]).unwrap());
        assert_eq!(config.unwrap().exec, Some(want));
        let config = parse(&["-X", "wc", "+", "--batch-size", "10"]).unwrap();
        assert_eq!(
            config.exec,
            Some(exec(Mode::Batch, &["wc"]).unwrap().batch_size(10))
        );
        for args in [
            &["--exec"][..],
            &["--exec", ";"],
            &["-X", "{}"],
            &["-X", "cp", "{}", "{/}"],
            &["-X", "rm", ";"],
            &["--exec", "rm", "{}", "+"],
            &["--exec", "a", ";", "-X", "b"],
            &["--exec-dir", "a", ";", "-X", "b"],
            &["--batch-size", "2"],
            &["-X", "a", "+", "--batch-size", "-1"],
            &["-l", "--exec", "ls"],
        ] {
            let err = parse(args).expect_err(&format!("{args:?}"));
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn negative_size_is_a_value_not_a_flag() {
        let config = parse(&["-S", "-1k", "dir"]).unwrap();
        assert_eq!(config.filter.size_filters, [SizeFilter::AtMost(1000)]);
        assert_eq!(config.roots, [OsString::from("dir")]);
    }

    #[test]
    fn output_modes() {
        assert_eq!(parse(&["-c"]).unwrap().output, OutputMode::Count);
        assert_eq!(
            parse(&["-0"]).unwrap().output,
            OutputMode::Paths { terminator: 0 }
        );
        assert_eq!(
            parse(&[]).unwrap().output,
            OutputMode::Paths { terminator: b'\n' }
        );
        assert!(parse(&[]).unwrap().implicit_root);
        assert_eq!(parse(&["-j", "3"]).unwrap().threads, 3);
        // -j is obeyed exactly; without it, spare workers may join on disk waits.
        assert_eq!(parse(&["-j", "3"]).unwrap().spare_threads, 0);
        assert!(parse(&["-j", "3"]).unwrap().exact_threads);
        let default = parse(&[]).unwrap();
        assert!(!default.exact_threads);
        assert_eq!(
            default.threads + default.spare_threads,
            crate::threads::MAX_WORKERS_WHEN_WAITING.max(default.threads)
        );
    }
}
