//! `-L`, `--no-follow` and `-x`: where the walk may cross, through symbolic links
//! and onto other file systems; `--files-from`, a list of entries instead of a walk;
//! and `--cached`, how fresh what it reads of an entry must be there. `--help` shows them under "Filters", after the ignore options,
//! where their definitions are flattened into [`super::Cli`].

use super::values::{offering, text, Refused};
use crate::config::Config;
use crate::os::stat::CacheUse;
use clap::Args;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;

/// The options of where the walk goes.
#[derive(Args, Debug, Default)]
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

    /// Test the paths listed in FILE (- for stdin) instead of walking.
    ///
    /// One path a line, or NUL-separated with -0 or when the list holds a NUL byte
    /// (as -0 prints them: `pfind /data -t any -0 > list`, then `pfind --files-from
    /// list -S +1g`). Each path is an entry
    /// that every filter and output option applies to, as in a walk (-E and hidden
    /// names to each of its components); none is walked, not even a directory. No
    /// ROOT, depth option, --prune or ignore-file option with it.
    #[arg(
        long = "files-from",
        value_name = "FILE",
        value_hint = clap::ValueHint::FilePath,
        conflicts_with_all = ["roots", "max_depth", "min_depth", "exact_depth", "prune"]
    )]
    pub files_from: Option<OsString>,

    /// `--files-from`'s paths, read by [`WalkArgs::read_list`].
    #[arg(skip)]
    pub listed: Option<Vec<OsString>>,

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
    /// Reads `--files-from`'s list (after `-C`, which a relative FILE is in),
    /// NUL-separated if `nul` (`-0`) or if it holds a NUL byte (no path can: so a
    /// NUL list also serves `-c`, `--json` and the others that `-0` does not go
    /// with), else one path a line.
    pub(super) fn read_list(&mut self, nul: bool) -> Result<(), Refused> {
        let Some(file) = &self.files_from else {
            return Ok(());
        };
        let bytes = if file == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map(|_| bytes)
        } else {
            std::fs::read(file)
        };
        let bytes = bytes
            .map_err(|err| Refused::value("files_from", file, crate::report::describe(&err)))?;
        let nul = nul || bytes.contains(&0);
        self.listed = Some(split_list(&bytes, if nul { 0 } else { b'\n' }));
        Ok(())
    }

    /// This group's part of the configuration.
    pub(super) fn resolve(&self, config: &mut Config) {
        config.follow = self.follow;
        config.one_file_system = self.one_file_system;
        config.cache_use = self.cached.unwrap_or_default();
        if let Some(listed) = &self.listed {
            config.roots = listed.clone();
            config.implicit_root = false;
            config.files_from = true;
        }
    }
}

/// The paths of a list: each ends at `separator` (the last may not), and empty
/// ones (a blank line, the end of a list that ends in its separator) are none.
fn split_list(bytes: &[u8], separator: u8) -> Vec<OsString> {
    (bytes.split(|&b| b == separator))
        .filter(|path| !path.is_empty())
        .map(|path| OsString::from_vec(path.to_vec()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_at_their_separator() {
        let paths = |bytes: &[u8], separator| {
            let list = split_list(bytes, separator);
            list.into_iter().map(OsString::into_vec).collect::<Vec<_>>()
        };
        assert_eq!(paths(b"a\nb c\n\nd", b'\n'), [&b"a"[..], b"b c", b"d"]);
        assert_eq!(paths(b"a\nb\0c\0", 0), [&b"a\nb"[..], b"c"]);
        assert!(paths(b"", 0).is_empty());
    }
}
