//! The options of no other group (`--help`'s "Other"): the thread count,
//! `--generate` and `-h`, `-V`.

use super::values::{parse_threads, text};
use crate::config::Config;
use clap::{ArgAction, Args, ValueEnum};

/// `-j`, `--generate`, `-h` and `-V`.
#[derive(Args, Debug, Default)]
#[group(skip)]
#[command(next_help_heading = "Other")]
pub struct OtherArgs {
    /// Exactly N worker threads.
    ///
    /// The default is one per CPU (4 on macOS), growing up to 32 while directory reads
    /// wait on the disk.
    #[arg(
        short = 'j',
        long = "threads",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_threads)
    )]
    pub threads: Option<usize>,

    /// Print a completion script or the man page.
    ///
    /// A completion script for a shell (bash, zsh, fish) or the manual page (man).
    #[arg(
        long = "generate",
        value_name = "WHAT",
        value_enum,
        hide_possible_values = true
    )]
    pub generate: Option<Generate>,

    /// Print a summary (-h) or the full help (--help).
    #[arg(short = 'h', long = "help", action = ArgAction::Help)]
    help: Option<bool>,

    /// Print the version.
    #[arg(short = 'V', long = "version", action = ArgAction::Version)]
    version: Option<bool>,
}

/// `--generate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    Bash,
    Zsh,
    Fish,
    Man,
}

impl OtherArgs {
    /// This group's part of the configuration: `-j` is obeyed exactly, with no spare
    /// workers (without it, `Config::new`'s defaults stand).
    pub(super) fn resolve(&self, config: &mut Config) {
        if let Some(threads) = self.threads {
            config.threads = threads;
            config.spare_threads = 0;
            config.exact_threads = true;
        }
    }
}
