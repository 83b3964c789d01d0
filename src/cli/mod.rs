//! Command-line definitions, and their translation into a [`Config`].
//!
//! The `///` comments on [`Cli`] are the `--help` text. Values are validated by the
//! `value_parser` functions of [`values`], so a bad value is reported by clap with the flag's
//! name, the value and what is allowed, and exits with status 2.
//!
//! Every value is read as the bytes the shell passed (an `OsString`), never through
//! clap's own UTF-8 check, whose error names no option. Patterns and extensions stay
//! bytes, as with `find -name`, since the names they match need not be UTF-8; other
//! values must be text, and a value that is not says which option it was given to.

mod exec;
pub mod hints;
mod values;
mod warnings;

use crate::config::Config;
use crate::filter::exclude::{ExcludePattern, PathExclude};
use crate::filter::glob::{Glob, GlobPattern};
use crate::filter::owner::OwnerFilter;
use crate::filter::path::{PathGlob, PathPattern};
use crate::filter::pattern::Pattern;
use crate::filter::regex::{self as regex_filter, RegexPattern};
use crate::filter::size::SizeFilter;
use crate::filter::time::Nanos;
use crate::filter::types::{families_help, parse_type, type_words, Kind, TypeArg, TypeFilter};
use crate::filter::{normalize_extension, Extensions};
use crate::os::path::WorkingDir;
use crate::output::color::Palette;
use crate::output::format::{Format, Shape, SortKey, SortOrder};
use crate::output::hyperlink::Hyperlinks;
use crate::output::template::Template;
use crate::output::OutputMode;
use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, ValueEnum, ValueHint};
use std::ffi::{OsStr, OsString};
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
pub use values::List;
use values::{
    bytes, offering, parse_depth, parse_extension_list, parse_marker, parse_max_results,
    parse_max_size, parse_min_size, parse_newer, parse_path_pattern, parse_pattern,
    parse_pattern_list, parse_regex, parse_separator, parse_size_arg, parse_threads, parse_when,
    text, AndPattern, Reference,
};

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
#[derive(Parser, Debug)]
#[command(
    name = "pfind",
    version,
    max_term_width = 100,
    disable_help_flag = true,
    disable_version_flag = true,
    after_help = SHORT_AFTER_HELP,
    after_long_help = after_long_help()
)]
pub struct Cli {
    /// Directories to search [default: .].
    ///
    /// The current directory is printed without `./`. A root that is a regular file is
    /// itself a candidate.
    #[arg(value_name = "ROOT", value_hint = ValueHint::AnyPath)]
    pub roots: Vec<OsString>,

    /// Only names ending in .EXT; a list: -e jpg,png.
    ///
    /// ASCII case is ignored, and a leading dot is optional. Repeat it or give a
    /// comma-separated list: `-e jpg -e png`, `-e jpg,png`; any of them may match. A
    /// comma that belongs to an extension is written `\,`.
    #[arg(
        short = 'e',
        long = "extension",
        value_name = "EXT",
        allow_hyphen_values = true,
        value_parser = bytes(parse_extension_list),
        help_heading = "Filters"
    )]
    pub extensions: Vec<List<Box<[u8]>>>,

    /// Only basenames matching GLOB, as find -name.
    ///
    /// `*` is any run of characters, `?` one character, `[abc]`, `[a-z]`, `[!a-z]` one of
    /// (or not of) a set, `\` makes the next character literal. Case-sensitive unless
    /// -i. Quote it from the shell: `-n '*.[ch]'`. Repeatable, any may match: `-n
    /// '*.rs' -n Makefile`. Combined with -e, both must match.
    #[arg(
        short = 'n',
        long = "name",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_pattern),
        help_heading = "Filters"
    )]
    pub name: Vec<GlobPattern>,

    /// Skip files and whole directories matching GLOB.
    ///
    /// GLOB is tested on the basename, with the syntax of --name; with a `/`, on the
    /// path below the root, as a .gitignore line: `-E /target` (the top one only),
    /// `-E 'src/gen/**'`, `-E build/` (directories only). Repeat it or give a
    /// comma-separated list, as for -e: `-E .git -E '*.tmp'`, `-E .git,target`. A comma
    /// that belongs to a glob is written `\,` (inside `[...]` it needs no escape).
    #[arg(
        short = 'E',
        long = "exclude",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_pattern_list),
        help_heading = "Filters"
    )]
    pub exclude: Vec<List<ExcludePattern>>,

    /// Skip directories that contain an entry NAME.
    ///
    /// As fd's: `--ignore-contain CACHEDIR.TAG`, `--ignore-contain .nobackup`. The
    /// directory is not printed nor walked (a root neither). Repeatable: any of them.
    #[arg(
        long = "ignore-contain",
        value_name = "NAME",
        allow_hyphen_values = true,
        value_parser = bytes(parse_marker),
        help_heading = "Filters"
    )]
    pub ignore_contain: Vec<Box<[u8]>>,

    /// Only paths below the root matching GLOB.
    ///
    /// The path is what follows `ROOT/`: `-p 'src/**/*.rs'`. `*`, `?` and sets do not
    /// match `/`; a `**` component matches any number of directories, none included.
    /// Directories that cannot lead to a match are not listed.
    #[arg(
        short = 'p',
        long = "full-path",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_path_pattern),
        help_heading = "Filters"
    )]
    pub full_path: Option<PathPattern>,

    /// Only basenames matching the regex RE.
    ///
    /// Rust's regex syntax (fd's), on the name's bytes, unanchored: `--regex
    /// '^test_.*\.rs$'`. Case-sensitive unless -i. Repeatable, any may match; with
    /// -n or -e, both must match.
    #[arg(
        long = "regex",
        value_name = "RE",
        allow_hyphen_values = true,
        value_parser = bytes(parse_regex),
        help_heading = "Filters"
    )]
    pub regex: Vec<RegexPattern>,

    /// Only paths below the root matching regex RE.
    ///
    /// As --regex, on what follows `ROOT/`: `--path-regex '^src/.*\.rs$'`.
    #[arg(
        long = "path-regex",
        value_name = "RE",
        allow_hyphen_values = true,
        value_parser = bytes(parse_regex),
        help_heading = "Filters"
    )]
    pub path_regex: Vec<RegexPattern>,

    /// Also require PATTERN, of the first pattern's kind.
    ///
    /// Every --and must match too, as in fd: a glob on the name after -n, a path
    /// glob after -p, a regular expression after --regex or --path-regex (whichever
    /// comes first): `-n '*.rs' --and 'test_*'`.
    #[arg(
        long = "and",
        value_name = "PATTERN",
        allow_hyphen_values = true,
        help_heading = "Filters"
    )]
    pub and: Vec<OsString>,

    /// `--and`'s patterns, read by [`parse`] once the first pattern's kind is known.
    #[arg(skip)]
    and_patterns: Vec<AndPattern>,

    /// Ignore case in -n, -E, -p and regexes.
    ///
    /// `-i -n '*.jpg'` matches `IMG.JPG`. -e always ignores ASCII case.
    #[arg(
        short = 'i',
        long = "ignore-case",
        overrides_with = "case_sensitive",
        help_heading = "Filters"
    )]
    pub ignore_case: bool,

    /// Match case (the default); undoes an -i before it.
    #[arg(
        long = "case-sensitive",
        overrides_with = "ignore_case",
        help_heading = "Filters"
    )]
    pub case_sensitive: bool,

    /// Only f, d, l, s, p, c, b, x, e, any, or a family.
    ///
    /// Kinds: f(ile), d(irectory), l (symlink), s(ocket), p(ipe), c(har-device),
    /// b(lock-device), x (executable), e (empty), any (all of f d l s p c b); or a
    /// family of extensions (listed below). Repeatable: kinds f, d, l, s, p, c, b add
    /// up; x and e restrict the others (`-t e` alone: empty files and directories).
    /// Default: regular files.
    #[arg(
        short = 't',
        long = "type",
        value_name = "TYPE",
        value_parser = offering(text(parse_type), type_words),
        hide_possible_values = true,
        help_heading = "Filters"
    )]
    pub types: Vec<TypeArg>,

    /// Only files of SIZE: +N at least, -N at most.
    ///
    /// `+N` at least, `-N` at most, `N` exactly, with units b, k, m, g, t (powers of
    /// 1000) or ki, mi, gi, ti (powers of 1024). Repeat to give a range: `-S +1k -S
    /// -10mi`. Only files that passed the name filters are stat'ed.
    #[arg(
        short = 'S',
        long = "size",
        value_name = "SIZE",
        allow_hyphen_values = true,
        value_parser = text(parse_size_arg),
        help_heading = "Filters"
    )]
    pub size: Vec<SizeFilter>,

    /// Same as -S +SIZE.
    #[arg(
        long = "min-size",
        allow_hyphen_values = true,
        value_name = "SIZE",
        value_parser = text(parse_min_size),
        help_heading = "Filters"
    )]
    pub min_size: Vec<SizeFilter>,

    /// Same as -S -SIZE.
    #[arg(
        long = "max-size",
        allow_hyphen_values = true,
        value_name = "SIZE",
        value_parser = text(parse_max_size),
        help_heading = "Filters"
    )]
    pub max_size: Vec<SizeFilter>,

    /// Only entries modified after WHEN (2h, 2026-01-01).
    ///
    /// WHEN is a duration back from now (30s, 10min, 2h, 3d, 1w, 1d12h), a local date or
    /// date-time (2026-11-01, '2026-11-01 08:30', 2026-11-01T08:30:00), or @ and seconds
    /// since 1970. `--changed-within 1d`: changed in the last day.
    #[arg(
        long = "changed-within",
        allow_hyphen_values = true,
        value_name = "WHEN",
        value_parser = text(parse_when),
        help_heading = "Filters"
    )]
    pub changed_within: Option<Nanos>,

    /// Only entries modified before WHEN.
    ///
    /// Same forms as --changed-within: `--changed-before 2026-01-01`. Both together give
    /// a window.
    #[arg(
        long = "changed-before",
        allow_hyphen_values = true,
        value_name = "WHEN",
        value_parser = text(parse_when),
        help_heading = "Filters"
    )]
    pub changed_before: Option<Nanos>,

    /// Only entries modified after FILE was.
    ///
    /// As `find -newer`: FILE's own time if it is a link, its target's with -L.
    /// `--newer build.stamp`. For a date or a duration, use --changed-within.
    #[arg(
        long = "newer",
        allow_hyphen_values = true,
        value_name = "FILE",
        value_hint = ValueHint::AnyPath,
        help_heading = "Filters"
    )]
    pub newer: Option<OsString>,

    /// `--newer`'s FILE, read by [`parse`] once it is in `-C`'s directory.
    #[arg(skip)]
    newer_reference: Option<Reference>,

    /// Only entries of USER, USER:GROUP or :GROUP.
    ///
    /// Names or ids; `!` before either side excludes it: `--owner alice`, `--owner
    /// '!root'`, `--owner :staff`.
    #[arg(
        long = "owner",
        allow_hyphen_values = true,
        value_name = "USER:GROUP",
        value_parser = text(OwnerFilter::parse),
        help_heading = "Filters"
    )]
    pub owner: Option<OwnerFilter>,

    /// Descend at most N levels (children are at 1).
    ///
    /// A root's children are at depth 1, as with `find -maxdepth`.
    #[arg(
        short = 'd',
        long = "max-depth",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_depth),
        help_heading = "Filters"
    )]
    pub max_depth: Option<usize>,

    /// Print only entries at least N levels deep.
    #[arg(
        long = "min-depth",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_depth),
        help_heading = "Filters"
    )]
    pub min_depth: Option<usize>,

    /// Print only entries exactly N levels deep.
    ///
    /// Same as --min-depth N -d N (fd's option).
    #[arg(
        long = "exact-depth",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_depth),
        conflicts_with_all = ["max_depth", "min_depth"],
        help_heading = "Filters"
    )]
    pub exact_depth: Option<usize>,

    /// Do not descend into directories that matched.
    ///
    /// As fd's --prune: a directory that is printed is not walked further, so it needs
    /// -t d: `pfind -t d -n node_modules --prune` lists the outermost ones only.
    #[arg(long = "prune", help_heading = "Filters")]
    pub prune: bool,

    /// Leave out what git ignores (.gitignore, ...).
    ///
    /// Reads .gitignore in every directory (and those above the root, up to the work
    /// tree's top), .git/info/exclude, core.excludesFile, .ignore and fd's .fdignore; files git
    /// tracks are kept even where a rule matches (git's index is read), and .git is
    /// never listed: the files of `git ls-files -co --exclude-standard`. Hidden names
    /// are kept unless --no-hidden. Off by default; -I or -u turn it off again.
    #[arg(long = "ignore", help_heading = "Ignore files")]
    pub ignore: bool,

    /// Read no ignore files (the default).
    ///
    /// Every file, as find lists them.
    #[arg(
        short = 'I',
        long = "no-ignore",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub no_ignore: bool,

    /// With --ignore, git's rules too (the default).
    #[arg(
        long = "ignore-vcs",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub ignore_vcs: bool,

    /// With --ignore, read .ignore and .fdignore files only, not git's rules or index.
    #[arg(
        long = "no-ignore-vcs",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub no_ignore_vcs: bool,

    /// With --ignore, skip the ignore files of directories above each root.
    #[arg(
        long = "no-ignore-parent",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub no_ignore_parent: bool,

    /// Apply .gitignore outside git work trees too (the default)
    #[arg(
        long = "no-require-git",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub no_require_git: bool,

    /// With --ignore, apply .gitignore only inside git work trees (fd's default)
    #[arg(
        long = "require-git",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub require_git: bool,

    /// Also leave out what FILE's rules exclude.
    ///
    /// Its rules are matched against paths below each root, with lower precedence than
    /// every other ignore file; repeatable. Applies with or without --ignore.
    #[arg(
        long = "ignore-file",
        value_name = "FILE",
        value_parser = clap::value_parser!(std::path::PathBuf),
        value_hint = ValueHint::FilePath,
        action = ArgAction::Append,
        help_heading = "Ignore files"
    )]
    pub ignore_files: Vec<std::path::PathBuf>,

    /// Keep names starting with a dot (the default).
    #[arg(
        short = 'H',
        long = "hidden",
        hide_short_help = true,
        help_heading = "Ignore files"
    )]
    pub hidden: bool,

    /// Leave out names starting with a dot.
    ///
    /// Files and directories whose name starts with a dot are neither printed nor
    /// walked; a root is always walked.
    #[arg(long = "no-hidden", help_heading = "Ignore files")]
    pub no_hidden: bool,

    /// Everything: --no-ignore --hidden (the default view).
    #[arg(
        short = 'u',
        long = "unrestricted",
        overrides_with = "unrestricted",
        help_heading = "Ignore files"
    )]
    pub unrestricted: bool,

    /// fd's default view: --ignore --no-hidden.
    ///
    /// What `fd` lists without options: ignore files honoured, hidden names left out.
    #[arg(short = 'G', long = "fd-view", help_heading = "Ignore files")]
    pub fd_view: bool,

    /// Resolved from the switches above, last one winning (see `cli::parse`).
    #[arg(skip)]
    pub ignore_options: crate::ignore::IgnoreOptions,

    /// Follow symbolic links.
    ///
    /// Links are followed inside the tree and as roots; a loop is reported and not
    /// entered.
    #[arg(
        short = 'L',
        long = "follow",
        overrides_with = "no_follow",
        help_heading = "Filters"
    )]
    pub follow: bool,

    /// Do not follow symbolic links (the default); undoes an -L before it.
    #[arg(
        long = "no-follow",
        overrides_with = "follow",
        help_heading = "Filters"
    )]
    pub no_follow: bool,

    /// Stay on each root's file system.
    ///
    /// Do not descend into directories on another file system than their root.
    #[arg(short = 'x', long = "one-file-system", help_heading = "Filters")]
    pub one_file_system: bool,

    /// Print each match's size, then its path.
    ///
    /// The size in bytes, right-aligned, then a space and the path. With --json, add
    /// size, mtime and mode to each object.
    #[arg(short = 'l', long = "long", help_heading = "Output")]
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
        hide_short_help = true,
        help_heading = "Output"
    )]
    pub human_readable: bool,

    /// Print only the number of matches and their size.
    #[arg(
        short = 's',
        long = "sum-size",
        conflicts_with_all = ["long", "print0"],
        help_heading = "Output"
    )]
    pub sum_size: bool,

    /// Print only the number of matches.
    #[arg(
        short = 'c',
        long = "count",
        conflicts_with_all = ["long", "sum_size"],
        help_heading = "Output"
    )]
    pub count: bool,

    /// End each path with NUL, for xargs -0.
    ///
    /// A NUL byte instead of a newline, safe for any file name: `pfind -0 | xargs -0
    /// CMD` runs CMD on the matches.
    #[arg(
        short = '0',
        long = "print0",
        conflicts_with = "count",
        help_heading = "Output"
    )]
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
        conflicts_with_all = ["long", "count", "sum_size"],
        help_heading = "Output"
    )]
    pub format: Option<Template>,

    /// Print one JSON object per match.
    ///
    /// One per line: path (and path_b64, the exact bytes, when the path is not UTF-8)
    /// and type; with -l also size, mtime, mtime_iso and mode.
    #[arg(
        long = "json",
        conflicts_with_all = ["count", "sum_size", "print0", "format"],
        help_heading = "Output"
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
        conflicts_with_all = ["count", "sum_size"],
        help_heading = "Output"
    )]
    pub sort: Option<SortArg>,

    /// Reverse the --sort order.
    #[arg(long = "reverse", requires = "sort", help_heading = "Output")]
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
        ],
        help_heading = "Output"
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
        hide_possible_values = true,
        help_heading = "Output"
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
        hide_possible_values = true,
        help_heading = "Output"
    )]
    pub hyperlink: Option<When>,

    /// Print absolute paths.
    ///
    /// Relative roots are joined with the current directory.
    #[arg(
        short = 'a',
        long = "absolute-path",
        overrides_with = "relative_path",
        help_heading = "Output"
    )]
    pub absolute: bool,

    /// Print paths as the roots are typed (the default); undoes an -a before it.
    #[arg(
        long = "relative-path",
        overrides_with = "absolute",
        help_heading = "Output"
    )]
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
        value_hint = ValueHint::DirPath,
        help_heading = "Output"
    )]
    pub base_directory: Option<OsString>,

    /// Print a root . or ./x without its ./ prefix.
    ///
    /// Without a root, pfind prints the current directory's paths without `./`
    /// anyway; with this, a root typed as `.` or starting with `./` loses it too:
    /// `pfind . --strip-cwd-prefix` prints `src/main.rs`, not `./src/main.rs`.
    #[arg(long = "strip-cwd-prefix", help_heading = "Output")]
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
        value_parser = bytes(parse_separator),
        help_heading = "Output"
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
        overrides_with = "first",
        help_heading = "Output"
    )]
    pub max_results: Option<u64>,

    /// Stop after the first match.
    ///
    /// Same as --max-results 1 (the last of the two wins).
    #[arg(short = '1', overrides_with = "max_results", help_heading = "Output")]
    pub first: bool,

    /// `--exec CMD... ;` and `-X, --exec-batch CMD... +` (see `cli/exec.rs`).
    #[command(flatten)]
    pub exec: exec::ExecArgs,

    /// Exactly N worker threads.
    ///
    /// The default is one per CPU (4 on macOS), growing up to 32 while directory reads
    /// wait on the disk.
    #[arg(
        short = 'j',
        long = "threads",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_threads),
        help_heading = "Other"
    )]
    pub threads: Option<usize>,

    /// Print a completion script or the man page.
    ///
    /// A completion script for a shell (bash, zsh, fish) or the manual page (man).
    #[arg(
        long = "generate",
        value_name = "WHAT",
        value_enum,
        hide_possible_values = true,
        help_heading = "Other"
    )]
    pub generate: Option<Generate>,

    /// Print a summary (-h) or the full help (--help).
    #[arg(short = 'h', long = "help", action = ArgAction::Help, help_heading = "Other")]
    help: Option<bool>,

    /// Print the version.
    #[arg(short = 'V', long = "version", action = ArgAction::Version, help_heading = "Other")]
    version: Option<bool>,
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
    let mut args: Vec<OsString> = args.into_iter().collect();
    let command = command();
    let defaults = default_options();
    if let Some(refusal) = unfinished_in_defaults(&defaults, &command) {
        return Err(Usage::Hint(refusal));
    }
    let from_env = defaults.len();
    if !args.is_empty() {
        args.splice(1..1, defaults);
    }
    let options = args.get(1..).unwrap_or_default();
    if let Some(hint) = hints::refusal(options, &command, &hints::System) {
        return Err(Usage::Hint(hint));
    }
    // The definition and the matches are never freed: this runs once per process,
    // and freeing them took 45,000 instructions at every start, an eighth of a run
    // on an empty directory (callgrind, static build).
    let mut command = std::mem::ManuallyDrop::new(command);
    let matches = command
        .try_get_matches_from_mut(args)
        .map_err(Usage::Clap)?;
    let mut matches = std::mem::ManuallyDrop::new(matches);
    // Read before `from_arg_matches_mut` takes the values out of the matches.
    let ignore = ignore_options(&matches);
    if let Some(first) = matches.indices_of("roots").and_then(|mut at| at.next()) {
        if first <= from_env {
            let root = matches.get_raw("roots").and_then(|mut roots| roots.next());
            let root = root.unwrap_or_default().to_string_lossy();
            let message = format!("PFIND_OPTIONS may hold options only, not the root '{root}'");
            return Err(Usage::Hint(message.into_bytes()));
        }
    }
    // `--and` is of the kind of the first pattern on the command line, as in fd;
    // asked before the values are taken out of `matches`.
    let first_pattern = ["name", "full_path", "regex", "path_regex"]
        .into_iter()
        .filter_map(|id| Some((matches.index_of(id)?, id)))
        .min()
        .map(|(_, id)| id);
    let mut cli = Cli::from_arg_matches_mut(&mut matches)
        .map_err(|err| Usage::Clap(err.format(&mut Cli::command())))?;
    separator_conflict(&mut cli)?;
    cli.ignore_options = crate::ignore::IgnoreOptions {
        parents: !cli.no_ignore_parent,
        files: cli.ignore_files.clone(),
        ..ignore
    };
    if let Some(dir) = &cli.base_directory {
        std::env::set_current_dir(dir).map_err(|err| {
            let why = crate::report::describe(&err);
            invalid_value("base_directory", dir, &why)
        })?;
    }
    // After -C, which the roots are relative to; and not in a working directory
    // that was removed, where no relative root exists, pattern or not.
    if cli.roots.len() > 1 && std::env::current_dir().is_ok() {
        if let Some(hint) = hints::pattern_before_roots(&cli.roots, &hints::System) {
            return Err(Usage::Hint(hint));
        }
    }
    if let Some(file) = &cli.newer {
        let reference = parse_newer(file).map_err(|why| invalid_value("newer", file, &why))?;
        cli.newer_reference = Some(reference);
    }
    if cli.ignore_case {
        // Folding case can grow a regex past the engine's limit: said here, as a
        // usage error, rather than found when it is compiled.
        let regexes = (cli.regex.iter().map(|re| ("regex", re)))
            .chain(cli.path_regex.iter().map(|re| ("path_regex", re)));
        for (id, regex) in regexes {
            let value = OsStr::new(regex.as_str());
            regex
                .check_ignoring_case()
                .map_err(|why| invalid_value(id, value, &format!("{why} (with -i)")))?;
        }
    }
    if !cli.and.is_empty() {
        for value in &cli.and {
            let pattern = AndPattern::parse(
                first_pattern,
                std::os::unix::ffi::OsStrExt::as_bytes(value.as_os_str()),
            )
            .map_err(|why| invalid_value("and", value, &why))?;
            if let (AndPattern::Regex(regex) | AndPattern::PathRegex(regex), true) =
                (&pattern, cli.ignore_case)
            {
                let why = |err| format!("{err} (with -i)");
                regex
                    .check_ignoring_case()
                    .map_err(|err| invalid_value("and", value, &why(err)))?;
            }
            cli.and_patterns.push(pattern);
        }
    }
    Ok(cli)
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
            break;
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

/// The ignore switches resolved as fd resolves them: of two opposing switches, the
/// one given last wins (`-u` counting as both --no-ignore and --hidden, `-G` as
/// --ignore and --no-hidden), so that options from `PFIND_OPTIONS`, which come
/// first, are undone by the command line.
fn ignore_options(matches: &clap::ArgMatches) -> crate::ignore::IgnoreOptions {
    let last = |ids: &[&str]| {
        ids.iter()
            .filter(|id| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
            .filter_map(|id| matches.indices_of(id)?.max())
            .max()
    };
    // `on` wins over `off` when given later; neither given: `default`.
    let resolve = |on: &[&str], off: &[&str], default: bool| match (last(on), last(off)) {
        (Some(on), Some(off)) => on > off,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => default,
    };
    let ignore = resolve(
        &["ignore", "fd_view"],
        &["no_ignore", "unrestricted"],
        false,
    );
    let vcs = resolve(&["ignore_vcs"], &["no_ignore_vcs"], true);
    let hidden = resolve(&["hidden", "unrestricted"], &["no_hidden", "fd_view"], true);
    crate::ignore::IgnoreOptions {
        vcs: ignore && vcs,
        dot_ignore: ignore,
        require_git: resolve(&["require_git"], &["no_require_git"], false),
        skip_hidden: !hidden,
        ..Default::default()
    }
}

/// `--path-separator` applies to printed paths only, so it is refused with the outputs
/// whose text is more than paths; `/` itself changes nothing and is taken with any
/// (fd's tests and scripts pass `--path-separator=/` to get `/` on every system).
fn separator_conflict(cli: &mut Cli) -> Result<(), Usage> {
    if cli.path_separator.as_deref() == Some(b"/") {
        cli.path_separator = None;
    }
    let other = match () {
        _ if cli.format.is_some() => "--format <TEMPLATE>",
        _ if cli.json => "--json",
        _ if cli.hyperlink.is_some() => "--hyperlink <WHEN>",
        _ => return Ok(()),
    };
    if cli.path_separator.is_none() {
        return Ok(());
    }
    let message = format!("the argument '--path-separator <SEP>' cannot be used with '{other}'");
    let err = Cli::command().error(clap::error::ErrorKind::ArgumentConflict, message);
    Err(Usage::Clap(err))
}

/// A usage error about `value` given to the option whose field is `id`, made by
/// clap's own value-parser machinery so that it reads as clap's other errors do.
fn invalid_value(id: &str, value: &OsStr, why: &str) -> Usage {
    let mut command = Cli::command();
    command.build();
    let arg = command.get_arguments().find(|arg| arg.get_id() == id);
    let why = why.to_string();
    let refuse = OsStringValueParser::new().try_map(move |_| Err::<(), _>(why.clone()));
    match refuse.parse_ref(&command, arg, value) {
        Err(err) => Usage::Clap(err),
        Ok(()) => unreachable!("the parser refuses every value"),
    }
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

/// `--generate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    Bash,
    Zsh,
    Fish,
    Man,
}

/// The text after the summary of `-h`.
const SHORT_AFTER_HELP: &str =
    "Options all match; a repeated -n, -e or -t is any of them. --help: every option";

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
    "full_path",
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

/// The command line's definition, with `-h`'s summary: [`SHORT_ABOUT`], then the
/// options of [`SHORT_HELP_OPTIONS`] (the others are in `--help` only).
pub fn command() -> clap::Command {
    // One pass over the arguments in place: `mut_arg` per argument moved the whole
    // definition each time, 1.2M instructions at every start (callgrind).
    Cli::command().about(SHORT_ABOUT).mut_args(|arg| {
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
        pfind /data -q -e core && echo found   only the exit status",
        families_help()
    )
}

impl Cli {
    /// Resolves the parsed arguments into the configuration the walker uses.
    pub fn into_config(self) -> Config {
        let miss_hints = self.name_search().is_some();
        let stdout_is_terminal = std::io::stdout().is_terminal();
        let record_format = self.record_format(stdout_is_terminal);
        let mut config = Config::new(self.roots);
        let mut kinds = Vec::new();
        let mut extensions: Vec<Box<[u8]>> = (self.extensions.iter())
            .flat_map(|list| list.0.iter().map(|ext| normalize_extension(ext)))
            .collect();
        for arg in self.types {
            match arg {
                TypeArg::Kind(kind) => kinds.push(kind),
                // A family is only more extensions: the same matcher as -e.
                TypeArg::Family(family) => extensions.extend(
                    family
                        .extensions
                        .iter()
                        .map(|ext| normalize_extension(ext.as_bytes())),
                ),
            }
        }
        extensions.sort();
        extensions.dedup();
        let filter = &mut config.filter;
        filter.extensions = Extensions::new(extensions);
        filter.types = TypeFilter::from_kinds(&kinds);
        // Each pattern was read once by `parse_pattern`, which refused what is wrong
        // with it; `-i` changes how it matches, never whether it compiles.
        let ignore_case = self.ignore_case;
        let compile = |pattern: &GlobPattern| Glob::compile(pattern, ignore_case);
        if !self.name.is_empty() {
            let any = Glob::any_of(self.name.iter().map(compile).collect());
            filter.add_name_pattern(Pattern::Glob(any));
        }
        let excludes = || self.exclude.iter().flat_map(|list| &list.0);
        filter.exclude_globs = excludes()
            .filter_map(|pattern| match pattern {
                ExcludePattern::Name(glob) => Some(compile(glob)),
                ExcludePattern::Path { .. } => None,
            })
            .collect();
        filter.path_excludes = excludes()
            .filter_map(|pattern| PathExclude::compile(pattern, ignore_case))
            .collect();
        filter.ignore_contain = self.ignore_contain.clone().into();
        if let Some(pattern) = &self.full_path {
            let path = PathGlob::compile(pattern, ignore_case);
            // Its last component is tested on the name, with the other name globs.
            if let Some(last) = path.last() {
                filter.add_name_pattern(Pattern::Glob(last.clone()));
            }
            filter.path = Some(path);
        }
        if !self.regex.is_empty() {
            filter.add_name_pattern(regex_filter::compile(&self.regex, ignore_case));
        }
        if !self.path_regex.is_empty() {
            filter.add_path_pattern(regex_filter::compile(&self.path_regex, ignore_case));
        }
        for pattern in &self.and_patterns {
            match pattern {
                AndPattern::Name(glob) => filter.add_name_pattern(Pattern::Glob(compile(glob))),
                AndPattern::Path(path) => {
                    let glob = PathGlob::compile(path, ignore_case);
                    filter.add_path_pattern(Pattern::Path(glob));
                }
                AndPattern::Regex(regex) => filter.add_name_pattern(regex_filter::compile(
                    std::slice::from_ref(regex),
                    ignore_case,
                )),
                AndPattern::PathRegex(regex) => filter.add_path_pattern(regex_filter::compile(
                    std::slice::from_ref(regex),
                    ignore_case,
                )),
            }
        }
        filter.size_filters = [self.size, self.min_size, self.max_size].concat();
        filter.min_depth = self.min_depth.or(self.exact_depth).unwrap_or(0);
        filter.max_depth = self.max_depth.or(self.exact_depth).unwrap_or(usize::MAX);
        if let Some(time) = self.changed_within {
            config.filter.time.changed_after(time);
        }
        if let Some(time) = self.changed_before {
            config.filter.time.changed_before(time);
        }
        if self.newer.is_some() {
            let reference = self.newer_reference.expect("--newer is read by cli::parse");
            config
                .filter
                .time
                .changed_after(reference.mtime(self.follow));
        }
        if let Some(owner) = self.owner {
            config.filter.owner = owner;
        }
        config.miss_hints = miss_hints;
        config.exec = self.exec.exec;
        config.ignore = self.ignore_options;
        config.follow = self.follow;
        config.one_file_system = self.one_file_system;
        config.absolute = self.absolute;
        config.prune = self.prune;
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
        if let Some(threads) = self.threads {
            config.threads = threads;
            config.spare_threads = 0;
            config.exact_threads = true;
        }
        // A person watching a terminal should see results as they are found.
        let streams = match config.output {
            OutputMode::Paths { .. } | OutputMode::Long { .. } => true,
            OutputMode::Formatted { .. } => config.sort_order().is_none(),
            OutputMode::Count | OutputMode::SizeSum | OutputMode::Quiet => false,
        };
        config.flush_per_directory = streams && stdout_is_terminal;
        config
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
}

/// A name search (`-n`, `-p`, `--regex`) whose misses can be told (see
/// [`Config::miss_hints`]): its name options as they could be typed again.
#[derive(Debug)]
pub struct NameSearch(String);

impl NameSearch {
    /// The warning for a walk that found nothing while entries of other kinds
    /// matched the names: once, after the walk, on stderr.
    pub fn nothing_matched(&self, summary: &crate::Summary) -> Option<Vec<u8>> {
        if summary.matches > 0 {
            return None;
        }
        warnings::nothing_matched(&self.0, summary.missed)
    }
}

impl Cli {
    /// The name search, if this is one whose misses can be told: `None` without `-n`
    /// or `-p`, with a predicate that needs a `stat` (an entry of another kind might
    /// fail it too, and only a `stat` could tell), and with `-q`, whose answer is
    /// its status.
    pub fn name_search(&self) -> Option<NameSearch> {
        // `--path-regex` is tested on the path, after the name: a miss there says
        // nothing of other kinds, so it is not told.
        if self.name.is_empty() && self.full_path.is_none() && self.regex.is_empty()
            || !self.path_regex.is_empty()
        {
            return None;
        }
        let kinds = self.types.iter().filter_map(|arg| match arg {
            TypeArg::Kind(kind) => Some(kind),
            TypeArg::Family(_) => None,
        });
        let sizes = [&self.size, &self.min_size, &self.max_size];
        let needs_stat = sizes.iter().any(|sizes| !sizes.is_empty())
            || self.changed_within.is_some()
            || self.changed_before.is_some()
            || self.newer.is_some()
            || self.owner.is_some()
            || kinds
                .clone()
                .any(|kind| matches!(kind, Kind::Executable | Kind::Empty));
        if needs_stat || self.quiet {
            return None;
        }
        let word = |option: &str, value: &[u8]| format!("{option} {}", hints::shell_word(value));
        let mut words: Vec<String> = (self.extensions.iter())
            .flat_map(|list| list.0.iter().map(|ext| word("-e", ext)))
            .collect();
        for arg in &self.types {
            if let TypeArg::Family(family) = arg {
                words.push(format!("-t {}", family.name));
            }
        }
        words.extend(self.name.iter().map(|glob| word("-n", glob)));
        words.extend(self.full_path.iter().map(|glob| word("-p", glob)));
        words.extend((self.regex.iter()).map(|regex| word("--regex", regex.as_str().as_bytes())));
        Some(NameSearch(words.join(" ")))
    }

    /// Warnings about options that are valid but cannot do what was probably meant,
    /// for `main` to print before the walk: one line each, without the `pfind: `
    /// (see [`warnings`]).
    pub fn warnings(&self) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        for pattern in &self.name {
            lines.extend(warnings::name_glob("-n", pattern));
        }
        for pattern in self.exclude.iter().flat_map(|list| &list.0) {
            if let ExcludePattern::Name(glob) = pattern {
                lines.extend(warnings::name_glob("-E", glob));
            }
        }
        for regex in &self.regex {
            lines.extend(warnings::name_regex("--regex", regex));
        }
        if self.ignore_options.skip_hidden {
            let globs = (self.name.iter())
                .filter(|glob| warnings::glob_only_hidden(glob))
                .map(|glob| warnings::only_hidden("-n", glob));
            let regexes = (self.regex.iter())
                .filter(|regex| regex.only_hidden())
                .map(|regex| warnings::only_hidden("--regex", regex.as_str().as_bytes()));
            lines.extend(globs.chain(regexes));
        }
        for pattern in &self.and_patterns {
            match pattern {
                AndPattern::Name(glob) => lines.extend(warnings::name_glob("--and", glob)),
                AndPattern::Regex(regex) => lines.extend(warnings::name_regex("--and", regex)),
                _ => {}
            }
        }
        for ext in self.extensions.iter().flat_map(|list| &list.0) {
            lines.extend(warnings::extension(ext));
        }
        if let Some(pattern) = &self.full_path {
            lines.extend(warnings::full_path(pattern));
            lines.extend(warnings::full_path_regex(pattern));
        }
        let dirs = (self.types.iter()).any(|arg| matches!(arg, TypeArg::Kind(Kind::Dir)));
        if self.prune && !dirs {
            lines.push(warnings::prune_without_dirs());
        }
        // Relative paths need the working directory to be links (see hyperlink.rs);
        // `-a`'s reader says whether a root needs it and cannot have it.
        let links =
            (self.hyperlink.unwrap_or(When::Never)).enabled(|| std::io::stdout().is_terminal());
        if links {
            use std::os::unix::ffi::OsStrExt;
            let implicit = [OsString::from(".")];
            let roots = if self.roots.is_empty() {
                &implicit[..]
            } else {
                &self.roots
            };
            let mut working_dir = WorkingDir::default();
            let unreadable =
                (roots.iter()).find_map(|root| working_dir.absolute(root.as_bytes()).err());
            if let Some(err) = unreadable {
                lines.push(warnings::hyperlink_without_working_directory(&err));
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use std::os::unix::ffi::OsStrExt;

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        Cli::try_parse_from(std::iter::once("pfind").chain(args.iter().copied()))
            .map(Cli::into_config)
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
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
        let names: Vec<&[u8]> = cli.name.iter().map(|n| &**n).collect();
        assert_eq!(names, [&b"?\xff"[..]]);
        let excludes: Vec<&[u8]> = cli
            .exclude
            .iter()
            .flat_map(|l| &l.0)
            .map(|e| &**e)
            .collect();
        assert_eq!(excludes, [&b"-*"[..]]);
        // Kept as typed on the command line; normalised in the configuration.
        assert_eq!(
            cli.extensions,
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
