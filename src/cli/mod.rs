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
mod values;

pub use exec::fd_exec_hint;

use crate::config::Config;
use crate::filter::glob::Glob;
use crate::filter::owner::OwnerFilter;
use crate::filter::path::PathGlob;
use crate::filter::size::SizeFilter;
use crate::filter::time::Nanos;
use crate::filter::types::{families_help, parse_type, TypeArg, TypeFilter};
use crate::filter::{normalize_extension, Extensions};
use crate::output::color::Palette;
use crate::output::format::{Format, Shape, SortKey, SortOrder};
use crate::output::hyperlink::Hyperlinks;
use crate::output::template::Template;
use crate::output::OutputMode;
use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::{Parser, ValueEnum};
use std::ffi::OsString;
use std::io::IsTerminal;
use values::{
    bytes, parse_depth, parse_extension, parse_max_results, parse_max_size, parse_min_size,
    parse_newer, parse_path_pattern, parse_pattern, parse_size_arg, parse_threads, parse_when,
    text, Reference,
};

/// Find files fast: a parallel, work-stealing directory walker.
///
/// Prints every regular file under each ROOT, one path per line, in no particular
/// order. Hidden files are included, no ignore files are read, and symbolic links are
/// neither followed nor printed (like `find ROOT -type f`); -t and -L change that.
#[derive(Parser, Debug)]
#[command(name = "pfind", version, after_help = after_help())]
pub struct Cli {
    /// Directories to search (default: the current directory, printed without `./`).
    /// A root that is a regular file is itself a candidate.
    #[arg(value_name = "ROOT")]
    pub roots: Vec<OsString>,

    /// Only names ending in .EXT, ignoring ASCII case. Repeat it or give a
    /// comma-separated list: `-e jpg -e png`, `-e jpg,png`. A leading dot is optional.
    #[arg(
        short = 'e',
        long = "extension",
        value_name = "EXT",
        value_delimiter = ',',
        allow_hyphen_values = true,
        value_parser = bytes(parse_extension),
        help_heading = "Filters"
    )]
    pub extensions: Vec<Box<[u8]>>,

    /// Only entries whose basename matches GLOB, as `find -name` does: `*` is any run
    /// of characters, `?` one character, `[abc]`, `[a-z]`, `[!a-z]` one of (or not of)
    /// a set, `\` makes the next character literal. Case-sensitive unless -i. Quote
    /// it from the shell: `-n '*.[ch]'`. Combined with -e, both must match.
    #[arg(
        short = 'n',
        long = "name",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_pattern),
        help_heading = "Filters"
    )]
    pub name: Option<Box<[u8]>>,

    /// Skip files and whole directories whose basename matches GLOB (same syntax as
    /// --name). Repeatable: `-E .git -E '*.tmp'`.
    #[arg(
        short = 'E',
        long = "exclude",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_pattern),
        help_heading = "Filters"
    )]
    pub exclude: Vec<Box<[u8]>>,

    /// Only entries whose path below the root (what follows `ROOT/`) matches GLOB:
    /// `-p 'src/**/*.rs'`. `*`, `?` and sets do not match `/`; a `**` component matches
    /// any number of directories, none included. Directories that cannot lead to a
    /// match are not listed.
    #[arg(
        short = 'p',
        long = "full-path",
        value_name = "GLOB",
        allow_hyphen_values = true,
        value_parser = bytes(parse_path_pattern),
        help_heading = "Filters"
    )]
    pub full_path: Option<Box<[u8]>>,

    /// Ignore case in -n, -E and -p globs: `-i -n '*.jpg'` matches `IMG.JPG`. -e
    /// always ignores ASCII case.
    #[arg(short = 'i', long = "ignore-case", help_heading = "Filters")]
    pub ignore_case: bool,

    /// Only entries of this kind: f(ile), d(irectory), l (symlink), x (executable),
    /// e (empty), or a family of extensions (listed below). Repeatable: kinds f, d, l
    /// add up; x and e restrict the others (`-t e` alone: empty files and directories).
    /// Default: regular files.
    #[arg(
        short = 't',
        long = "type",
        value_name = "TYPE",
        value_parser = text(parse_type),
        help_heading = "Filters"
    )]
    pub types: Vec<TypeArg>,

    /// Only files whose size satisfies SIZE: `+N` at least, `-N` at most, `N` exactly,
    /// with units b, k, m, g, t (powers of 1000) or ki, mi, gi, ti (powers of 1024).
    /// Repeat to give a range: `-S +1k -S -10mi`. Only files that passed the name
    /// filters are stat'ed.
    #[arg(
        short = 'S',
        long = "size",
        value_name = "SIZE",
        allow_hyphen_values = true,
        value_parser = text(parse_size_arg),
        help_heading = "Filters"
    )]
    pub size: Vec<SizeFilter>,

    /// Same as `-S +SIZE`.
    #[arg(
        long = "min-size",
        value_name = "SIZE",
        value_parser = text(parse_min_size),
        help_heading = "Filters"
    )]
    pub min_size: Vec<SizeFilter>,

    /// Same as `-S -SIZE`.
    #[arg(
        long = "max-size",
        value_name = "SIZE",
        value_parser = text(parse_max_size),
        help_heading = "Filters"
    )]
    pub max_size: Vec<SizeFilter>,

    /// Descend at most N levels: a root's children are at depth 1.
    #[arg(
        short = 'd',
        long = "max-depth",
        value_name = "N",
        value_parser = text(parse_depth),
        help_heading = "Filters"
    )]
    pub max_depth: Option<usize>,

    /// Print only entries at least N levels deep.
    #[arg(
        long = "min-depth",
        value_name = "N",
        value_parser = text(parse_depth),
        help_heading = "Filters"
    )]
    pub min_depth: Option<usize>,

    /// Follow symbolic links, roots included; a loop is reported and not entered.
    #[arg(short = 'L', long = "follow", help_heading = "Filters")]
    pub follow: bool,

    /// Do not descend into directories on another file system than their root.
    #[arg(short = 'x', long = "one-file-system", help_heading = "Filters")]
    pub one_file_system: bool,

    /// Only entries modified after WHEN: a duration back from now (30s, 10min, 2h, 3d,
    /// 1w, 1d12h), a local date or date-time (2026-11-01, '2026-11-01 08:30',
    /// 2026-11-01T08:30:00), or @ and seconds since 1970. `--changed-within 1d`:
    /// changed in the last day.
    #[arg(
        long = "changed-within",
        value_name = "WHEN",
        value_parser = text(parse_when),
        help_heading = "Filters"
    )]
    pub changed_within: Option<Nanos>,

    /// Only entries modified before WHEN (same forms as --changed-within):
    /// `--changed-before 2026-01-01`. Both together give a window.
    #[arg(
        long = "changed-before",
        value_name = "WHEN",
        value_parser = text(parse_when),
        help_heading = "Filters"
    )]
    pub changed_before: Option<Nanos>,

    /// Only entries modified after FILE was, as `find -newer` (FILE's own time if it
    /// is a link, its target's with -L): `--newer build.stamp`.
    #[arg(
        long = "newer",
        value_name = "FILE",
        value_parser = OsStringValueParser::new().try_map(parse_newer),
        help_heading = "Filters"
    )]
    pub newer: Option<Reference>,

    /// Only entries owned by USER, USER:GROUP or :GROUP (names or ids); `!` before
    /// either side excludes it: `--owner alice`, `--owner '!root'`, `--owner :staff`.
    #[arg(
        long = "owner",
        value_name = "USER:GROUP",
        value_parser = text(OwnerFilter::parse),
        help_heading = "Filters"
    )]
    pub owner: Option<OwnerFilter>,

    /// Print each match's size in bytes, right-aligned, then a space and the path.
    /// With --json, add size, mtime and mode to each object.
    #[arg(short = 'l', long = "long", help_heading = "Output")]
    pub long: bool,

    /// Print only the number of matches and their total size.
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

    /// End each path with a NUL byte instead of a newline, for `xargs -0`.
    #[arg(
        short = '0',
        long = "print0",
        conflicts_with = "count",
        help_heading = "Output"
    )]
    pub print0: bool,

    /// Print each match as TEMPLATE: {} path, {/} basename, {//} parent, {.} path
    /// without extension, {/.} basename without extension, {type} (f, d, l); and,
    /// at the cost of a stat per match, {size}, {mtime}, {mode}, {uid}, {gid},
    /// {owner}, {group}. {{ and }} are braces; \n, \t, \0 and \\ are escapes.
    #[arg(
        long = "format",
        value_name = "TEMPLATE",
        value_parser = text(Template::parse),
        conflicts_with_all = ["long", "count", "sum_size"],
        help_heading = "Output"
    )]
    pub format: Option<Template>,

    /// Print one JSON object per line: path (and path_b64, the exact bytes, when the
    /// path is not UTF-8) and type; with -l also size, mtime, mtime_iso and mode.
    #[arg(
        long = "json",
        conflicts_with_all = ["count", "sum_size", "print0", "format"],
        help_heading = "Output"
    )]
    pub json: bool,

    /// Print the matches in this order, after the walk: by path (bytewise, as
    /// `LC_ALL=C sort`), size or mtime (then by path). Keeps every match in memory.
    #[arg(
        long = "sort",
        value_name = "KEY",
        value_enum,
        conflicts_with_all = ["count", "sum_size"],
        help_heading = "Output"
    )]
    pub sort: Option<SortArg>,

    /// Reverse the --sort order.
    #[arg(long = "reverse", requires = "sort", help_heading = "Output")]
    pub reverse: bool,

    /// Print nothing; stop at the first match. Exit status 0 if anything matched,
    /// 1 if nothing did.
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

    /// Colour paths by kind and extension, from LS_COLORS: auto (when stdout is a
    /// terminal and NO_COLOR is not set), always or never.
    #[arg(
        long = "color",
        alias = "colour",
        value_name = "WHEN",
        value_enum,
        default_value_t = When::Auto,
        help_heading = "Output"
    )]
    pub color: When,

    /// Make each path an OSC 8 terminal hyperlink (file://HOST/PATH): auto (when
    /// stdout is a terminal), always or never.
    #[arg(
        long = "hyperlink",
        value_name = "WHEN",
        value_enum,
        default_value_t = When::Never,
        help_heading = "Output"
    )]
    pub hyperlink: When,

    /// Print absolute paths: relative roots are joined with the current directory.
    #[arg(short = 'a', long = "absolute-path", help_heading = "Output")]
    pub absolute: bool,

    /// Stop after printing N matches (with --sort, the first N in that order).
    #[arg(
        long = "max-results",
        value_name = "N",
        value_parser = text(parse_max_results),
        help_heading = "Output"
    )]
    pub max_results: Option<u64>,

    /// Stop after the first match (same as --max-results 1).
    #[arg(short = '1', conflicts_with = "max_results", help_heading = "Output")]
    pub first: bool,

    /// `--exec CMD... ;` and `-X, --exec-batch CMD... +` (see `cli/exec.rs`).
    #[command(flatten)]
    pub exec: exec::ExecArgs,

    /// Number of worker threads, exactly [default: one per CPU (4 on macOS), growing up
    /// to 32 while directory reads wait on the disk].
    #[arg(
        short = 'j',
        long = "threads",
        value_name = "N",
        value_parser = text(parse_threads),
        help_heading = "Performance"
    )]
    pub threads: Option<usize>,

    /// Print a completion script for a shell (bash, zsh, fish) or the manual page
    /// (man), and exit.
    #[arg(long = "generate", value_name = "WHAT", value_enum)]
    pub generate: Option<Generate>,
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

/// The text after the options: the type families, from their table, and examples.
fn after_help() -> String {
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
        pfind /data -E node_modules skip files and directories with that name\n  \
        pfind /data -t d -t e       empty directories\n  \
        pfind /data -t checkpoints -s   how much space the checkpoints take\n  \
        pfind /data -S +1mi -l      files of at least 1 MiB, with their sizes\n  \
        pfind /data --changed-within 1d   modified in the last day\n  \
        pfind /srv --owner '!root'  files root does not own\n  \
        pfind /data -c              just the number of matching files\n  \
        pfind /data -e log -X gzip  run a command on the matches (--exec: one each)\n  \
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
        let stdout_is_terminal = std::io::stdout().is_terminal();
        let record_format = self.record_format(stdout_is_terminal);
        let mut config = Config::new(self.roots);
        let mut kinds = Vec::new();
        let mut extensions = self.extensions;
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
        // Each pattern was compiled once by `parse_pattern`, which refused what is
        // wrong with it; `-i` changes how it matches, never whether it compiles.
        let compile = |pattern: &[u8]| {
            Glob::new(pattern, self.ignore_case).expect("checked by parse_pattern")
        };
        filter.name_glob = self.name.as_deref().map(compile);
        filter.exclude_globs = self.exclude.iter().map(|glob| compile(glob)).collect();
        if let Some(pattern) = &self.full_path {
            let path = PathGlob::new(pattern, self.ignore_case).expect("checked by parse");
            // Its last component is tested on the name, with the other name globs.
            if let Some(last) = path.last() {
                filter.add_name_glob(last.clone());
            }
            filter.path = Some(path);
        }
        filter.size_filters = [self.size, self.min_size, self.max_size].concat();
        filter.min_depth = self.min_depth.unwrap_or(0);
        filter.max_depth = self.max_depth.unwrap_or(usize::MAX);
        if let Some(time) = self.changed_within {
            config.filter.time.changed_after(time);
        }
        if let Some(time) = self.changed_before {
            config.filter.time.changed_before(time);
        }
        if let Some(reference) = self.newer {
            config
                .filter
                .time
                .changed_after(reference.mtime(self.follow));
        }
        if let Some(owner) = self.owner {
            config.filter.owner = owner;
        }
        config.exec = self.exec.exec;
        config.follow = self.follow;
        config.one_file_system = self.one_file_system;
        config.absolute = self.absolute;
        config.max_results = if self.first {
            Some(1)
        } else {
            self.max_results
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
            (None, false) if self.long => Shape::Long,
            (None, false) => Shape::Path,
        };
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let color = self
            .color
            .enabled(|| stdout_is_terminal && !no_color)
            .then(Palette::from_env);
        // Without a working directory there is nothing to make relative paths
        // absolute against; the paths are still printed, just not as links.
        let hyperlink = self
            .hyperlink
            .enabled(|| stdout_is_terminal)
            .then(|| Hyperlinks::from_env().ok())
            .flatten();
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

impl Cli {
    /// Warnings about options that are valid but cannot do what was probably meant,
    /// for `main` to print before the walk: one line each, without the `pfind: `.
    pub fn warnings(&self) -> Vec<Vec<u8>> {
        let mut warnings = Vec::new();
        let patterns = self.name.iter().map(|p| ("-n", p, "matches"));
        let excludes = self.exclude.iter().map(|p| ("-E", p, "excludes"));
        for (option, pattern, effect) in patterns.chain(excludes) {
            // As `find -name` warns: a basename never contains a slash.
            if pattern.contains(&b'/') {
                let because = format!(
                    "' contains '/', which no file name does, so it {effect} nothing \
                     (-n and -E test names, not paths)"
                );
                let option = format!("{option} '");
                warnings.push([option.as_bytes(), pattern, because.as_bytes()].concat());
            }
        }
        if let Some(pattern) = &self.full_path {
            if let Some(why) = PathGlob::never_matches(pattern) {
                let because = format!(
                    "' {why}, which no path below a root does, so it matches nothing \
                     (-p matches what follows ROOT/, as in 'src/*.rs')"
                );
                warnings.push([b"-p '", &pattern[..], because.as_bytes()].concat());
            }
        }
        warnings
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
            &["--max-results", "0"],
            &["-1", "--max-results", "2"],
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
        assert_eq!(cli.name.as_deref(), Some(&b"?\xff"[..]));
        assert_eq!(cli.exclude, [Box::from(&b"-*"[..])]);
        let exts: Vec<&[u8]> = cli.extensions.iter().map(|e| &**e).collect();
        assert_eq!(exts, [&b"\xE9t\xC9"[..], b"-x"]);
        assert!(
            cli.roots.is_empty(),
            "a pattern starting with '-' is not a root"
        );
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
        let warnings = cli(&["-n", "a/b", "-E", "x/", "-E", "ok"]).warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        let first = String::from_utf8_lossy(&warnings[0]);
        assert!(first.starts_with("-n 'a/b' contains '/'"), "{first}");
        assert!(first.contains("matches nothing"), "{first}");
        let second = String::from_utf8_lossy(&warnings[1]);
        assert!(second.starts_with("-E 'x/'") && second.contains("excludes nothing"));
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
        for args in [
            &["--exec"][..],
            &["--exec", ";"],
            &["-X", "{}"],
            &["-X", "cp", "{}", "{/}"],
            &["-X", "rm", ";"],
            &["--exec", "rm", "{}", "+"],
            &["--exec", "a", ";", "--exec", "b"],
            &["--exec", "a", ";", "-X", "b"],
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
