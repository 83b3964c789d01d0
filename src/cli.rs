//! Command-line definitions, and their translation into a [`Config`].
//!
//! The `///` comments on [`Cli`] are the `--help` text. Values are validated by the
//! `value_parser` functions below, so a bad value is reported by clap with the flag's
//! name, the value and what is allowed, and exits with status 2.

use crate::config::{Config, OutputMode, MAX_THREADS};
use crate::process::{parse_size, SizeFilter};
use clap::Parser;
use std::ffi::OsString;
use std::io::IsTerminal;

/// Find files fast: a parallel, work-stealing directory walker.
///
/// Prints every regular file under each ROOT, one path per line, in no particular
/// order. Hidden files are included, no ignore files are read, and symbolic links are
/// neither followed nor printed (like `find ROOT -type f`).
#[derive(Parser, Debug)]
#[command(
    name = "pfind",
    version,
    after_help = "Examples:\n  \
        pfind /data                 every regular file under /data\n  \
        pfind /data -e jpg -e png   only .jpg and .png files (also: -e jpg,png)\n  \
        pfind /data -n 'file_*'     basename matches a glob\n  \
        pfind /data -E node_modules skip files and directories with that name\n  \
        pfind /data -S +1mi         files of at least 1 MiB\n  \
        pfind /data -c              just the number of matching files\n  \
        pfind /data -0 | xargs -0 ls -l"
)]
pub struct Cli {
    /// Directories to search (default: the current directory, printed without `./`).
    /// A root that is a regular file is itself a candidate.
    #[arg(value_name = "ROOT")]
    pub roots: Vec<OsString>,

    /// Only files whose name ends in .EXT, ignoring ASCII case. Repeat it or give a
    /// comma-separated list: `-e jpg -e png`, `-e jpg,png`. A leading dot is optional.
    #[arg(
        short = 'e',
        long = "extension",
        value_name = "EXT",
        value_delimiter = ',',
        value_parser = parse_extension
    )]
    pub extensions: Vec<String>,

    /// Only files whose basename matches GLOB: `*` is any run of characters, `?` is one
    /// character, everything else is literal (case-sensitive). Quote it from the shell:
    /// `-n 'IMG_????.*'`. Combined with -e, both must match.
    #[arg(short = 'n', long = "name", value_name = "GLOB")]
    pub name: Option<String>,

    /// Skip files and whole directories whose basename matches GLOB (same syntax as
    /// --name). Repeatable: `-E .git -E '*.tmp'`.
    #[arg(short = 'E', long = "exclude", value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Only files whose size satisfies SIZE: `+N` at least, `-N` at most, `N` exactly,
    /// with units b, k, m, g, t (powers of 1000) or ki, mi, gi, ti (powers of 1024).
    /// Repeat to give a range: `-S +1k -S -10mi`. Only files that passed the name
    /// filters are stat'ed.
    #[arg(
        short = 'S',
        long = "size",
        value_name = "SIZE",
        allow_hyphen_values = true,
        value_parser = parse_size_arg
    )]
    pub size: Vec<SizeFilter>,

    /// Print only the number of matching files.
    #[arg(short = 'c', long = "count")]
    pub count: bool,

    /// End each path with a NUL byte instead of a newline, for `xargs -0`.
    #[arg(short = '0', long = "print0", conflicts_with = "count")]
    pub print0: bool,

    /// Number of worker threads [default: 4 on macOS, the number of CPUs elsewhere].
    #[arg(short = 'j', long = "threads", value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
}

impl Cli {
    /// Resolves the parsed arguments into the configuration the walker uses.
    pub fn into_config(self) -> Config {
        let mut config = Config::new(self.roots);
        config.extensions = self
            .extensions
            .iter()
            .map(|ext| Config::normalize_extension(ext))
            .collect();
        config.name_glob = self.name.map(|glob| glob.into_bytes().into_boxed_slice());
        config.exclude_globs = self
            .exclude
            .into_iter()
            .map(|glob| glob.into_bytes().into_boxed_slice())
            .collect();
        config.size_filters = self.size;
        config.output = if self.count {
            OutputMode::Count
        } else {
            OutputMode::Paths {
                terminator: if self.print0 { b'\0' } else { b'\n' },
            }
        };
        if let Some(threads) = self.threads {
            config.threads = threads;
        }
        // A person watching a terminal should see results as they are found.
        config.flush_per_directory =
            matches!(config.output, OutputMode::Paths { .. }) && std::io::stdout().is_terminal();
        config
    }
}

fn parse_extension(value: &str) -> Result<String, String> {
    let trimmed = value.strip_prefix('.').unwrap_or(value);
    if trimmed.is_empty() {
        return Err("an extension cannot be empty (use e.g. -e jpg)".to_string());
    }
    Ok(value.to_string())
}

fn parse_size_arg(value: &str) -> Result<SizeFilter, String> {
    parse_size(value).map_err(|err| err.to_string())
}

fn parse_threads(value: &str) -> Result<usize, String> {
    let range = format!("the thread count must be a whole number from 1 to {MAX_THREADS}");
    match value.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(range),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

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
        let exts: Vec<&[u8]> = config.extensions.iter().map(|e| &**e).collect();
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
    fn negative_size_is_a_value_not_a_flag() {
        let config = parse(&["-S", "-1k", "dir"]).unwrap();
        assert_eq!(config.size_filters, [SizeFilter::AtMost(1000)]);
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
    }
}
