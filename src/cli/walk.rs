//! `-L`, `--no-follow` and `-x`: where the walk may cross, through symbolic links
//! and onto other file systems. `--help` shows them under "Filters", after the
//! ignore options, where their definitions are flattened into [`super::Cli`].

use crate::config::Config;
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
}

impl WalkArgs {
    /// This group's part of the configuration.
    pub(super) fn resolve(&self, config: &mut Config) {
        config.follow = self.follow;
        config.one_file_system = self.one_file_system;
    }
}
