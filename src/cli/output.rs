//! The "Output" options but the commands (`cli/exec.rs`): how each match is printed
//! (paths, `-l`, `-c`, `-s`, `--format`, `--json`, colours, links), in what order,
//! how many, and where paths start; and their part of the [`Config`].

use super::values::{bytes, parse_max_results, text, Refused};
use super::warnings;
use crate::config::Config;
use crate::os::path::WorkingDir;
use crate::output::color::Palette;
use crate::output::format::{Format, Shape, SortKey, SortOrder};
use crate::output::hyperlink::Hyperlinks;
use crate::output::template::Template;
use crate::output::OutputMode;
use clap::{Args, ValueEnum, ValueHint};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;

/// `-l`, `-c`, `--format`, `--sort`, `-a`, `--max-results` and the rest of the group.
#[derive(Args, Debug, Default)]
#[group(skip)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Print each match's size, then its path.
    ///
    /// The size in bytes, right-aligned, then a space and the path. With --json, add
    /// size, mtime and mode to each object.
    #[arg(short = 'l', long = "long")]
    pub long: bool,

    /// With -l: sizes as 1.5 KiB, 3.2 GiB.
    ///
    /// In powers of 1024, as `ls -lh` counts, right-aligned in 10 columns: `cut
    /// -c12-` gives the path back. Without it -l prints bytes. Also --human.
    #[arg(
        long = "human-readable",
        alias = "human",
        requires = "long",
        conflicts_with = "json",
        hide_short_help = true
    )]
    pub human_readable: bool,

    /// Print only the number of matches and their size.
    #[arg(
        short = 's',
        long = "sum-size",
        conflicts_with_all = ["long", "print0"]
    )]
    pub sum_size: bool,

    /// Print only the number of matches.
    #[arg(
        short = 'c',
        long = "count",
        conflicts_with_all = ["long", "sum_size"]
    )]
    pub count: bool,

    /// Print statistics to stderr when the walk ends.
    ///
    /// As ripgrep's --stats, but on stderr, so that stdout keeps only the matches:
    /// the matches, the entries examined (every entry read from a directory
    /// listing, `.` and `..` aside, whatever became of it), the pieces giant
    /// directories were listed in, and the seconds the walk took. IO500's find
    /// phase scores entries examined per second (`scripts/io500-find.sh`).
    #[arg(long = "stats")]
    pub stats: bool,

    /// Print a status line to stderr every 2 s while it is a terminal.
    ///
    /// The line kill -USR1 (or ^T, SIGINFO, on macOS and the BSDs) prints at any
    /// time: entries examined, matches, entries per second, seconds, directories
    /// waiting to be listed. As bfs's -status; stdout is left alone.
    #[arg(long = "progress")]
    pub progress: bool,

    /// End each path with NUL, for xargs -0.
    ///
    /// A NUL byte instead of a newline, safe for any file name: `pfind -0 | xargs -0
    /// CMD` runs CMD on the matches.
    #[arg(short = '0', long = "print0", conflicts_with = "count")]
    pub print0: bool,

    /// Print each match as TEMPLATE: '{size} {}'.
    ///
    /// {} path, {/} basename, {//} parent, {.} path without extension, {/.} basename
    /// without extension, {type} (f, d, l, s, p, c, b); and, at the cost of a stat per
    /// match, {size}, {mtime}, {mode}, {uid}, {gid}, {owner}, {group}. {{ and }} are
    /// braces; \n, \t, \0 and \\ are escapes.
    #[arg(
        long = "format",
        allow_hyphen_values = true,
        value_name = "TEMPLATE",
        value_parser = text(Template::parse),
        conflicts_with_all = ["long", "count", "sum_size"]
    )]
    pub format: Option<Template>,

    /// Print one JSON object per match.
    ///
    /// One per line: path (and path_b64, the exact bytes, when the path is not UTF-8)
    /// and type; with -l also size, mtime, mtime_iso and mode.
    #[arg(
        long = "json",
        conflicts_with_all = ["count", "sum_size", "print0", "format"]
    )]
    pub json: bool,

    /// Sort by path, size or mtime (after the walk).
    ///
    /// By path (bytewise, as `LC_ALL=C sort`), size or mtime (then by path). The
    /// matches are printed once the walk is over, and kept in memory until then.
    #[arg(
        long = "sort",
        value_name = "KEY",
        value_enum,
        hide_possible_values = true,
        conflicts_with_all = ["count", "sum_size"]
    )]
    pub sort: Option<SortArg>,

    /// Reverse the --sort order.
    #[arg(long = "reverse", requires = "sort")]
    pub reverse: bool,

    /// Print nothing; exit 0 on the first match.
    ///
    /// Stops at the first match. Exit status 0 if anything matched, 1 if nothing did.
    #[arg(
        short = 'q',
        long = "quiet",
        conflicts_with_all = [
            "long", "sum_size", "count", "print0", "format", "json", "sort",
            "max_results", "first",
        ]
    )]
    pub quiet: bool,

    /// Colour paths: auto, always or never.
    ///
    /// By kind and extension, from LS_COLORS. auto (the default): when stdout is a
    /// terminal and NO_COLOR is not set.
    #[arg(
        long = "color",
        alias = "colour",
        value_name = "WHEN",
        value_enum,
        hide_possible_values = true
    )]
    pub color: Option<When>,

    /// Link paths (OSC 8): auto, always or never.
    ///
    /// Make each path a terminal hyperlink to file://HOST/PATH. auto: when stdout is a
    /// terminal; never is the default.
    #[arg(
        long = "hyperlink",
        value_name = "WHEN",
        value_enum,
        hide_possible_values = true
    )]
    pub hyperlink: Option<When>,

    /// Print absolute paths.
    ///
    /// Relative roots are joined with the current directory.
    #[arg(short = 'a', long = "absolute-path", overrides_with = "relative_path")]
    pub absolute: bool,

    /// Print paths as the roots are typed (the default); undoes an -a before it.
    #[arg(long = "relative-path", overrides_with = "absolute")]
    pub relative_path: bool,

    /// Run as if in DIR (paths relative to it).
    ///
    /// pfind starts by changing to DIR (fd's --base-directory): roots, --newer's FILE
    /// and every path printed or reported are relative to it, as if pfind had been
    /// started there. `pfind -C /srv/www -e php` prints paths such as
    /// `blog/index.php`.
    #[arg(
        short = 'C',
        long = "base-directory",
        allow_hyphen_values = true,
        value_name = "DIR",
        value_hint = ValueHint::DirPath
    )]
    pub base_directory: Option<OsString>,

    /// Print a root . or ./x without its ./ prefix.
    ///
    /// Without a root, pfind prints the current directory's paths without `./`
    /// anyway; with this, a root typed as `.` or starting with `./` loses it too:
    /// `pfind . --strip-cwd-prefix` prints `src/main.rs`, not `./src/main.rs`.
    #[arg(long = "strip-cwd-prefix")]
    pub strip_cwd_prefix: bool,

    /// Print SEP instead of each / in paths.
    ///
    /// fd's option: `--path-separator '\\'` prints `src\\main.rs`. For paths as
    /// printed and with -l; not with --format, --json or --hyperlink, whose text is
    /// more than paths (there only `/` itself, which changes nothing, is taken).
    /// Commands of --exec and -X still get the paths as they are.
    #[arg(
        long = "path-separator",
        value_name = "SEP",
        allow_hyphen_values = true,
        value_parser = bytes(parse_separator)
    )]
    pub path_separator: Option<Box<[u8]>>,

    /// Stop after N matches.
    ///
    /// With --sort, the first N in that order. 0 is no limit (as in fd).
    #[arg(
        long = "max-results",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_max_results),
        overrides_with = "first"
    )]
    pub max_results: Option<u64>,

    /// Stop after the first match.
    ///
    /// Same as --max-results 1 (the last of the two wins).
    #[arg(short = '1', overrides_with = "max_results")]
    pub first: bool,

    /// Whether stdout is a terminal, when the program knows better than `isatty`
    /// (`pfind-mpi`: rank 0's stdout is a pseudo-terminal of the launcher's,
    /// whatever the launcher's own output is).
    #[arg(skip)]
    pub stdout_is_terminal: Option<bool>,
}

/// `--sort` keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Path,
    Size,
    Mtime,
}

/// `--color` and `--hyperlink`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum When {
    Auto,
    Always,
    Never,
}

impl When {
    /// Resolves `auto` with `auto_answer`.
    fn enabled(self, auto_answer: impl FnOnce() -> bool) -> bool {
        match self {
            When::Always => true,
            When::Never => false,
            When::Auto => auto_answer(),
        }
    }
}

/// `--path-separator SEP`: any bytes, the empty string included (as fd takes it).
fn parse_separator(value: &[u8]) -> Result<Box<[u8]>, String> {
    Ok(value.into())
}

impl OutputArgs {
    /// `--path-separator` applies to printed paths only, so it is refused with the
    /// outputs whose text is more than paths; `/` itself changes nothing and is taken
    /// with any (fd's tests and scripts pass `--path-separator=/` to get `/` on every
    /// system).
    pub(super) fn separator_conflict(&mut self) -> Result<(), Refused> {
        if self.path_separator.as_deref() == Some(b"/") {
            self.path_separator = None;
        }
        let other = match () {
            _ if self.format.is_some() => "--format <TEMPLATE>",
            _ if self.json => "--json",
            _ if self.hyperlink.is_some() => "--hyperlink <WHEN>",
            _ => return Ok(()),
        };
        if self.path_separator.is_none() {
            return Ok(());
        }
        let message =
            format!("the argument '--path-separator <SEP>' cannot be used with '{other}'");
        Err(Refused::Conflict(message))
    }

    /// Enters `-C`'s directory, which the roots and `--newer`'s FILE are then relative
    /// to.
    pub(super) fn enter_base_directory(&self) -> Result<(), Refused> {
        if let Some(dir) = &self.base_directory {
            std::env::set_current_dir(dir).map_err(|err| {
                let why = crate::report::describe(&err);
                Refused::value("base_directory", dir, why)
            })?;
        }
        Ok(())
    }

    /// This group's part of the configuration: the output mode and format, the
    /// limit, how paths are written, and whether to flush after every directory.
    pub(super) fn resolve(self, config: &mut Config) {
        let stdout_is_terminal = self
            .stdout_is_terminal
            .unwrap_or_else(|| std::io::stdout().is_terminal());
        let record_format = self.record_format(stdout_is_terminal);
        config.absolute = self.absolute;
        config.stats = self.stats;
        // The binary answers SIGUSR1 whether or not --progress is given; entries
        // examined are in its line with --progress or --stats.
        config.progress = true;
        config.count_examined = self.progress;
        config.path_separator = self.path_separator;
        config.strip_cwd_prefix = self.strip_cwd_prefix;
        config.max_results = if self.first {
            Some(1)
        } else {
            self.max_results.filter(|&n| n > 0)
        };
        config.output = if self.count {
            OutputMode::Count
        } else if self.sum_size {
            OutputMode::SizeSum
        } else if self.quiet {
            config.max_results = Some(1);
            OutputMode::Quiet
        } else {
            let (mode, format) = record_format.resolve();
            config.format = format;
            mode
        };
        // A person watching a terminal should see results as they are found.
        let streams = match config.output {
            OutputMode::Paths { .. } | OutputMode::Long { .. } => true,
            OutputMode::Formatted { .. } => config.sort_order().is_none(),
            OutputMode::Count | OutputMode::SizeSum | OutputMode::Quiet => false,
        };
        config.flush_per_directory = streams && stdout_is_terminal;
    }

    /// The record format asked for: shape, terminator, colours, links and order.
    fn record_format(&self, stdout_is_terminal: bool) -> Format {
        let shape = match (&self.format, self.json) {
            (Some(template), _) => Shape::Template(template.clone()),
            (None, true) => Shape::Json { meta: self.long },
            (None, false) if self.long && self.human_readable => Shape::LongHuman,
            (None, false) if self.long => Shape::Long,
            (None, false) => Shape::Path,
        };
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        // The defaults are applied here rather than by clap, whose handling of a
        // default value cost every run 12,000 instructions at start-up (callgrind).
        let color = self
            .color
            .unwrap_or(When::Auto)
            .enabled(|| stdout_is_terminal && !no_color)
            .then(Palette::from_env);
        let hyperlink = self
            .hyperlink
            .unwrap_or(When::Never)
            .enabled(|| stdout_is_terminal)
            .then(Hyperlinks::from_env);
        let sort = self.sort.map(|key| SortOrder {
            key: match key {
                SortArg::Path => SortKey::Path,
                SortArg::Size => SortKey::Size,
                SortArg::Mtime => SortKey::Mtime,
            },
            reverse: self.reverse,
        });
        Format {
            shape,
            terminator: if self.print0 { b'\0' } else { b'\n' },
            color,
            hyperlink,
            sort,
        }
    }

    /// This group's warnings (see `Cli::warnings`): links asked for where the
    /// working directory, which relative `roots` need to be links (see
    /// hyperlink.rs), cannot be read; `-a`'s reader says whether a root needs it.
    pub(super) fn warnings(&self, roots: &[OsString], lines: &mut Vec<Vec<u8>>) {
        let links = (self.hyperlink.unwrap_or(When::Never)).enabled(|| {
            self.stdout_is_terminal
                .unwrap_or_else(|| std::io::stdout().is_terminal())
        });
        if !links {
            return;
        }
        let implicit = [OsString::from(".")];
        let roots = if roots.is_empty() {
            &implicit[..]
        } else {
            roots
        };
        let mut working_dir = WorkingDir::default();
        let unreadable =
            (roots.iter()).find_map(|root| working_dir.absolute(root.as_bytes()).err());
        if let Some(err) = unreadable {
            lines.push(warnings::hyperlink_without_working_directory(&err));
        }
    }
}
