//! The "Ignore files" options: which ignore files are read and whether hidden names
//! are left out, resolved into [`IgnoreOptions`] as fd resolves its switches.

use super::values::Refused;
use crate::ignore::IgnoreOptions;
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, Args, ValueHint};
use std::path::PathBuf;

/// `--ignore`, `-I`, `-H`, `-u`, `-G` and the rest of the group.
#[derive(Args, Debug, Default)]
#[group(skip)]
#[command(next_help_heading = "Ignore files")]
pub struct IgnoreArgs {
    /// Leave out what git ignores (.gitignore, ...).
    ///
    /// Reads .gitignore in every directory (and those above the root, up to the work
    /// tree's top), .git/info/exclude, core.excludesFile, .ignore and fd's .fdignore; files git
    /// tracks are kept even where a rule matches (git's index is read), and .git is
    /// never listed: the files of `git ls-files -co --exclude-standard`. Hidden names
    /// are kept unless --no-hidden. Off by default; -I or -u turn it off again.
    #[arg(long = "ignore")]
    pub ignore: bool,

    /// Read no ignore files (the default).
    ///
    /// Every file, as find lists them.
    #[arg(short = 'I', long = "no-ignore", hide_short_help = true)]
    pub no_ignore: bool,

    /// With --ignore, git's rules too (the default).
    #[arg(long = "ignore-vcs", hide_short_help = true)]
    pub ignore_vcs: bool,

    /// With --ignore, read .ignore and .fdignore files only, not git's rules or index.
    #[arg(long = "no-ignore-vcs", hide_short_help = true)]
    pub no_ignore_vcs: bool,

    /// With --ignore, skip the ignore files of directories above each root.
    #[arg(long = "no-ignore-parent", hide_short_help = true)]
    pub no_ignore_parent: bool,

    /// Apply .gitignore outside git work trees too (the default)
    #[arg(long = "no-require-git", hide_short_help = true)]
    pub no_require_git: bool,

    /// With --ignore, apply .gitignore only inside git work trees (fd's default)
    #[arg(long = "require-git", hide_short_help = true)]
    pub require_git: bool,

    /// Also leave out what FILE's rules exclude.
    ///
    /// Its rules are matched against paths below each root, with lower precedence than
    /// every other ignore file; repeatable. Applies with or without --ignore.
    #[arg(
        long = "ignore-file",
        value_name = "FILE",
        value_parser = clap::value_parser!(PathBuf),
        value_hint = ValueHint::FilePath,
        action = ArgAction::Append
    )]
    pub ignore_files: Vec<PathBuf>,

    /// Keep names starting with a dot (the default).
    #[arg(short = 'H', long = "hidden", hide_short_help = true)]
    pub hidden: bool,

    /// Leave out names starting with a dot.
    ///
    /// Files and directories whose name starts with a dot are neither printed nor
    /// walked; a root is always walked.
    #[arg(long = "no-hidden")]
    pub no_hidden: bool,

    /// Everything: --no-ignore --hidden (the default view).
    #[arg(short = 'u', long = "unrestricted", overrides_with = "unrestricted")]
    pub unrestricted: bool,

    /// fd's default view: --ignore --no-hidden.
    ///
    /// What `fd` lists without options: ignore files honoured, hidden names left out.
    #[arg(short = 'G', long = "fd-view")]
    pub fd_view: bool,

    /// Resolved from the switches above, last one winning (see [`IgnoreArgs::switches`]).
    #[arg(skip)]
    pub options: IgnoreOptions,
}

impl IgnoreArgs {
    /// Refuses an `--ignore-file` that cannot be opened, naming the option: it was
    /// reported as `pfind: nosuch: No such file or directory`, which reads as a
    /// missing root, and the walk went on without the rules that were asked for, so
    /// that `--ignore-file .keep | xargs rm` would reach what they protect (issue
    /// 41). After `-C`, which the file is relative to, as `--newer`'s.
    pub(super) fn check_files(&self) -> Result<(), Refused> {
        for file in &self.ignore_files {
            // `stat` first: opening a FIFO (`--ignore-file <(...)` is a pipe) would
            // wait for its writer. A regular file is opened, to learn it can be read.
            let checked = std::fs::metadata(file).and_then(|meta| match meta.is_file() {
                true => std::fs::File::open(file).map(|_| meta),
                false => Ok(meta),
            });
            let why = match checked {
                Ok(meta) if meta.is_dir() => "a directory, not a file of rules".to_string(),
                Ok(_) => continue,
                Err(err) => crate::report::describe(&err),
            };
            return Err(Refused::value("ignore_files", file.as_os_str(), why));
        }
        Ok(())
    }

    /// The switches resolved as fd resolves them: of two opposing switches, the one
    /// given last wins (`-u` counting as both --no-ignore and --hidden, `-G` as
    /// --ignore and --no-hidden), so that options from `PFIND_OPTIONS`, which come
    /// first, are undone by the command line. Read from `matches` before the values
    /// are taken out of them, since only they say where each switch was given.
    pub(super) fn switches(matches: &ArgMatches) -> IgnoreOptions {
        let last = |ids: &[&str]| {
            ids.iter()
                .filter(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
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
        IgnoreOptions {
            vcs: ignore && vcs,
            dot_ignore: ignore,
            require_git: resolve(&["require_git"], &["no_require_git"], false),
            skip_hidden: !hidden,
            ..Default::default()
        }
    }

    /// Completes [`IgnoreArgs::options`] from `switches` and the options that are not
    /// switches.
    pub(super) fn settle(&mut self, switches: IgnoreOptions) {
        self.options = IgnoreOptions {
            parents: !self.no_ignore_parent,
            files: self.ignore_files.clone(),
            ..switches
        };
    }
}
