//! `--index`, `--index-trust`, `--no-index`, `--index-list` and `--index-drop`:
//! whether listings come from the index of each root (see `crate::index`), and
//! what is done with the indexes themselves.

use crate::config::Config;
use crate::index::IndexMode;
use clap::Args;

/// The options of the index.
#[derive(Args, Debug, Default)]
#[group(skip)]
#[command(next_help_heading = "Index")]
pub struct IndexArgs {
    /// Remember the tree: repeat searches list only what changed.
    ///
    /// The first search of a ROOT walks it and records, in a file under
    /// $XDG_CACHE_HOME/pfind (~/.cache/pfind), each directory's entries and its stat
    /// data; a later search of it or below it lists again only the directories whose
    /// stat data changed, and prints exactly what a walk prints. A directory changed
    /// just before it was recorded (50 ms; 2 s where times are whole seconds or a
    /// server's), or on a filesystem whose directory times cannot be relied on (FAT;
    /// NFS and FUSE until a probe, an empty directory made and removed there once a
    /// day, shows their server keeps them), is listed again. Set it in
    /// PFIND_OPTIONS to make it the default; --no-index undoes it.
    #[arg(long = "index", overrides_with_all = ["index_trust", "no_index"])]
    pub index: bool,

    /// Answer from the index without checking it, as locate does.
    ///
    /// Directories are not checked for changes: what was created, removed or
    /// renamed since the index was written may be missing or still printed, and
    /// stderr says how old the index is. A directory the index lacks is walked.
    #[arg(long = "index-trust", overrides_with_all = ["index", "no_index"])]
    pub index_trust: bool,

    /// Walk without the index (undoes --index or --index-trust before it).
    #[arg(long = "no-index", overrides_with_all = ["index", "index_trust"])]
    pub no_index: bool,

    /// List this user's indexes, one a line, and exit.
    #[arg(long = "index-list")]
    pub index_list: bool,

    /// Remove the index of each ROOT (default .) and exit (--index-list first).
    #[arg(long = "index-drop")]
    pub index_drop: bool,
}

impl IndexArgs {
    /// This group's part of the configuration.
    pub(super) fn resolve(&self, config: &mut Config) {
        config.index = if self.index_trust {
            IndexMode::Trust
        } else if self.index {
            IndexMode::Check
        } else {
            IndexMode::Off
        };
    }
}
