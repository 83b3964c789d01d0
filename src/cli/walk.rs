//! `-L`, `--no-follow` and `-x`: where the walk may cross, through symbolic links
//! and onto other file systems; and `--cached`, how fresh what it reads of an entry
//! must be there. `--help` shows them under "Filters", after the ignore options,
//! where their definitions are flattened into [`super::Cli`].

use super::values::{offering, text};
use crate::config::Config;
use crate::os::stat::CacheUse;
use clap::Args;

/// The options of where the walk goes.
#[derive(Args, Debug)]
#[group(skip)]
#[command(next_help_heading = "Filters")]
pub struct WalkArgs {
    /// Follow symbolic links.
    ///
    /// Links are followed inside the tree and as roots; a loop is reported and not
    /// entered.
    #[arg(short = 'L', long = "follow", overrides_with = "no_follow")]
    pub follow: bool,

    /// Do not follow symbolic links (the default); undoes an -L before it.
    #[arg(long = "no-follow", overrides_with = "follow")]
    pub no_follow: bool,

    /// Stay on each root's file system.
    ///
    /// Do not descend into directories on another file system than their root.
    #[arg(short = 'x', long = "one-file-system")]
    pub one_file_system: bool,

    /// Network filesystems: may stat answers come from the client's cache?
    ///
    /// As GNU stat's --cached: `default` (the filesystem decides), `always` (what the
    /// client has cached will do: no round trip to the server for an entry it holds,
    /// at the risk of a size or time that another client has changed since, and of
    /// missing or keeping a match by it), `never` (ask the server for every entry).
    /// Linux only (statx's AT_STATX_DONT_SYNC and FORCE_SYNC); elsewhere it changes
    /// nothing. Local filesystems always answer what is current.
    #[arg(
        long = "cached",
        value_name = "WHEN",
        value_parser = offering(text(parse_cache_use), cache_words)
    )]
    pub cached: Option<CacheUse>,
}

/// `--cached`'s words (GNU stat's), with what each means.
const CACHE_WORDS: [(&str, CacheUse, &str); 3] = [
    ("default", CacheUse::Default, "the filesystem decides"),
    ("always", CacheUse::Always, "the client's cache will do"),
    ("never", CacheUse::Never, "always ask the server"),
];

fn cache_words() -> Vec<(&'static str, &'static str)> {
    CACHE_WORDS
        .iter()
        .map(|&(word, _, help)| (word, help))
        .collect()
}

fn parse_cache_use(value: &str) -> Result<CacheUse, String> {
    let found = CACHE_WORDS.iter().find(|(word, ..)| *word == value);
    found
        .map(|&(_, cache_use, _)| cache_use)
        .ok_or_else(|| format!("'{value}' is not one of default, always, never"))
}
impl WalkArgs {
    /// This group's part of the configuration.
    pub(super) fn resolve(&self, config: &mut Config) {
        config.follow = self.follow;
        config.one_file_system = self.one_file_system;
        config.cache_use = self.cached.unwrap_or_default();
    }
}
