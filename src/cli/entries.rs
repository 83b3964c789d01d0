//! The "Filters" on what an entry is rather than what it is called: its kind (`-t`),
//! size, times, owner and depth, and `--prune`; their value parsers and
//! their part of the [`Config`].

use super::values::{offering, parse_depth, parse_max_depth, text, Refused};
use super::warnings;
use crate::config::Config;
use crate::filter::owner::OwnerFilter;
use crate::filter::size::{parse_size, SizeFilter};
use crate::filter::time::{self, Nanos};
use crate::filter::types::{parse_type, type_words, Family, Kind, TypeArg, TypeFilter};
use crate::os::stat::{self, Fields, Stat, TimeField};
use clap::{Args, ValueHint};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// `-t`, `-S`, the time filters, `--owner`, the depth bounds and `--prune`.
#[derive(Args, Debug, Default)]
#[group(skip)]
#[command(next_help_heading = "Filters")]
pub struct EntryArgs {
    /// Only f, d, l, s, p, c, b, x, e, any, or a family.
    ///
    /// Kinds: f(ile), d(irectory), l (symlink), s(ocket), p(ipe), c(har-device),
    /// b(lock-device), x (executable), e (empty), any (all of f d l s p c b); or a
    /// family of extensions (listed below). Repeatable, or a comma-separated list as
    /// for -e (`-t f,d` is `-t f -t d`): kinds f, d, l, s, p, c, b add up; x and e
    /// restrict the others (`-t e` alone: empty files and directories). Default:
    /// regular files.
    #[arg(
        short = 't',
        long = "type",
        value_name = "TYPE",
        // `-e` and `-E` take lists; `-t f,d` was refused as one unknown type (issue
        // 41). No kind or family has a comma in its name.
        value_delimiter = ',',
        value_parser = offering(text(parse_type), type_words),
        hide_possible_values = true
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
        value_parser = text(parse_size_arg)
    )]
    pub size: Vec<SizeFilter>,

    /// Same as -S +SIZE.
    #[arg(
        long = "min-size",
        allow_hyphen_values = true,
        value_name = "SIZE",
        value_parser = text(parse_min_size)
    )]
    pub min_size: Vec<SizeFilter>,

    /// Same as -S -SIZE.
    #[arg(
        long = "max-size",
        allow_hyphen_values = true,
        value_name = "SIZE",
        value_parser = text(parse_max_size)
    )]
    pub max_size: Vec<SizeFilter>,

    /// Only entries modified after WHEN (2h, 2026-01-01).
    ///
    /// WHEN is a duration back from now (30s, 10min, 2h, 3d, 1w, 1d12h), a local date or
    /// date-time (2026-11-01, '2026-11-01 08:30', 2026-11-01T08:30:00), or @ and seconds
    /// since 1970. `--changed-within 1d`: changed in the last day. --time tests the
    /// access, inode change or birth time instead.
    #[arg(
        long = "changed-within",
        allow_hyphen_values = true,
        value_name = "WHEN",
        value_parser = text(parse_when)
    )]
    pub changed_within: Option<Nanos>,

    /// Only entries modified before WHEN.
    ///
    /// Same forms as --changed-within: `--changed-before 2026-01-01`. Both together give
    /// a window. --time tests another time.
    #[arg(
        long = "changed-before",
        allow_hyphen_values = true,
        value_name = "WHEN",
        value_parser = text(parse_when)
    )]
    pub changed_before: Option<Nanos>,

    /// Only entries modified after FILE was.
    ///
    /// As `find -newer`: FILE's own time if it is a link, its target's with -L.
    /// `--newer build.stamp`. For a date or a duration, use --changed-within. With
    /// --time, the same time of both: `--time accessed --newer FILE` is find's
    /// `-neweraa FILE`.
    #[arg(
        long = "newer",
        allow_hyphen_values = true,
        value_name = "FILE",
        value_hint = ValueHint::AnyPath
    )]
    pub newer: Option<OsString>,

    /// Which time the time filters test: modified, accessed, changed, birth.
    ///
    /// `modified` (the default; mtime: the data was written), `accessed` (atime: the
    /// data was read, as far as the mount's atime, relatime or noatime option keeps
    /// it), `changed` (ctime: the inode changed: data, owner, mode, links, a rename),
    /// `birth` (btime: created; an entry whose filesystem does not record it is an
    /// error). For every time filter: `pfind /scratch --time accessed
    /// --changed-before 60d` lists what nobody read for 60 days (find's `-atime +60`).
    #[arg(
        long = "time",
        value_name = "WHICH",
        value_parser = offering(text(parse_time_field), time_field_words)
    )]
    pub time: Option<TimeField>,

    /// `--newer`'s FILE, read by [`EntryArgs::read_newer`] once it is in `-C`'s
    /// directory.
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
        value_parser = text(OwnerFilter::parse)
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
        value_parser = text(parse_max_depth)
    )]
    pub max_depth: Option<usize>,

    /// Print only entries at least N levels deep.
    #[arg(
        long = "min-depth",
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = text(parse_depth)
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
        conflicts_with_all = ["max_depth", "min_depth"]
    )]
    pub exact_depth: Option<usize>,

    /// Do not descend into directories that matched.
    ///
    /// As fd's --prune: a directory that is printed is not walked further, so it needs
    /// -t d: `pfind -t d -n node_modules --prune` lists the outermost ones only.
    #[arg(long = "prune")]
    pub prune: bool,
}

impl EntryArgs {
    /// Reads `--newer`'s FILE, once `-C` has been entered.
    pub(super) fn read_newer(&mut self) -> Result<(), Refused> {
        if let Some(file) = &self.newer {
            let field = self.time.unwrap_or_default();
            let reference =
                parse_newer(file, field).map_err(|why| Refused::value("newer", file, why))?;
            self.newer_reference = Some(reference);
        }
        Ok(())
    }

    /// The families of `-t` (`-t images`): a family is only more extensions, matched
    /// as `-e`'s are (see `NameArgs::resolve`).
    pub(super) fn families(&self) -> impl Iterator<Item = &'static Family> + '_ {
        self.types.iter().filter_map(|arg| match arg {
            TypeArg::Family(family) => Some(*family),
            TypeArg::Kind(_) => None,
        })
    }

    /// True when one of these filters reads an entry's `stat`: an entry of another
    /// kind might then fail it too, and only a `stat` could tell (see
    /// `NameArgs::name_search`).
    pub(super) fn needs_stat(&self) -> bool {
        let sizes = [&self.size, &self.min_size, &self.max_size];
        sizes.iter().any(|sizes| !sizes.is_empty())
            || self.changed_within.is_some()
            || self.changed_before.is_some()
            || self.newer.is_some()
            || self.owner.is_some()
            || self
                .kinds()
                .any(|kind| matches!(kind, Kind::Executable | Kind::Empty))
    }

    /// The kinds of `-t`, without its families.
    fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.types.iter().filter_map(|arg| match arg {
            TypeArg::Kind(kind) => Some(*kind),
            TypeArg::Family(_) => None,
        })
    }

    /// This group's part of the configuration; `follow` (`-L`) says which time of a
    /// link `--newer` compares with.
    pub(super) fn resolve(self, config: &mut Config, follow: bool) {
        let kinds: Vec<Kind> = self.kinds().collect();
        let filter = &mut config.filter;
        filter.types = TypeFilter::from_kinds(&kinds);
        filter.size_filters = [self.size, self.min_size, self.max_size].concat();
        filter.min_depth = self.min_depth.or(self.exact_depth).unwrap_or(0);
        filter.max_depth = self.max_depth.or(self.exact_depth).unwrap_or(usize::MAX);
        if let Some(time) = self.changed_within {
            filter.time.changed_after(time);
        }
        if let Some(time) = self.changed_before {
            filter.time.changed_before(time);
        }
        if self.newer.is_some() {
            let reference = self.newer_reference.expect("--newer is read by cli::parse");
            filter.time.changed_after(reference.time(follow));
        }
        filter.time.field = self.time.unwrap_or_default();
        if let Some(owner) = self.owner {
            filter.owner = owner;
        }
        config.prune = self.prune;
    }

    /// This group's warnings (see `Cli::warnings`): `--prune` without `-t d`.
    pub(super) fn warnings(&self, lines: &mut Vec<Vec<u8>>) {
        let dirs = self.kinds().any(|kind| kind == Kind::Dir);
        if self.prune && !dirs {
            lines.push(warnings::prune_without_dirs());
        }
    }
}

fn parse_when(value: &str) -> Result<Nanos, String> {
    time::parse_when(value, time::now())
}

fn parse_size_arg(value: &str) -> Result<SizeFilter, String> {
    parse_size(value).map_err(|err| err.to_string())
}

/// `--min-size SIZE`: a size without a sign, read as `-S +SIZE`.
fn parse_min_size(value: &str) -> Result<SizeFilter, String> {
    unsigned_size(value, '+')
}

/// `--max-size SIZE`: a size without a sign, read as `-S -SIZE`.
fn parse_max_size(value: &str) -> Result<SizeFilter, String> {
    unsigned_size(value, '-')
}

fn unsigned_size(value: &str, sign: char) -> Result<SizeFilter, String> {
    if value.starts_with(['+', '-']) {
        return Err(format!(
            "give the size without a sign (e.g. 10mi); '{value}' has one"
        ));
    }
    parse_size(&format!("{sign}{value}")).map_err(|err| err.to_string())
}

/// `--newer FILE`: FILE's modification time, its own and (when it is a link to
/// something) its target's, taken once while the command line is read; which one
/// counts depends on -L.
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    own: Nanos,
    target: Option<Nanos>,
}

impl Reference {
    fn time(self, follow: bool) -> Nanos {
        match (follow, self.target) {
            (true, Some(target)) => target,
            _ => self.own,
        }
    }
}

/// `--newer FILE`, read now: its `field` time, its own and (for `-L`) its target's.
/// A FILE that does not exist but reads as a time is what fd's `--newer` (its
/// `--changed-within`) takes: the message says where it goes.
fn parse_newer(path: &OsStr, field: TimeField) -> Result<Reference, String> {
    let c_path = std::ffi::CString::new(path.as_bytes())
        .map_err(|_| "a path cannot hold a NUL byte".to_string())?;
    let fields = Fields::TYPE.with(field.fields());
    let own = stat::stat_at(libc::AT_FDCWD, &c_path, false, fields).map_err(|err| {
        let cause = crate::report::describe(&err);
        let when = path.to_str().filter(|text| {
            err.kind() == std::io::ErrorKind::NotFound
                && time::parse_when(text, time::now()).is_ok()
        });
        match when {
            Some(when) => {
                let when = if when.contains(' ') {
                    format!("'{when}'")
                } else {
                    when.to_string()
                };
                format!(
                    "{cause} (--newer takes a FILE whose time to compare with; for a date \
                     or a duration, use --changed-within {when} or --changed-before {when})"
                )
            }
            None => cause,
        }
    })?;
    let target = stat::stat_at(libc::AT_FDCWD, &c_path, true, fields).ok();
    let time = |stat: &Stat| stat.time(field).map(time::nanos);
    Ok(Reference {
        own: time(&own).ok_or_else(no_birth_time)?,
        target: target.as_ref().and_then(time),
    })
}

/// Why a `--newer` FILE without a birth time cannot serve `--time birth`.
fn no_birth_time() -> String {
    "its filesystem (or this system) records no birth time".to_string()
}

/// `--time WHICH`: its words, find's and `ls --time`'s letters and names too.
fn parse_time_field(value: &str) -> Result<TimeField, String> {
    TIME_FIELDS
        .iter()
        .find(|(words, ..)| words.contains(&value))
        .map(|&(_, field, _)| field)
        .ok_or_else(|| {
            let words: Vec<&str> = time_field_words().iter().map(|&(word, _)| word).collect();
            format!("'{value}' is not one of {}", words.join(", "))
        })
}

/// What `--time` takes, with what each means: the first word of each is the one
/// shown, the others are find's letters and the names `ls --time` and `stat` use.
const TIME_FIELDS: &[(&[&str], TimeField, &str)] = &[
    (
        &["modified", "mtime", "m", "modification"],
        TimeField::Modified,
        "data last written (the default)",
    ),
    (
        &["accessed", "atime", "a", "access", "use"],
        TimeField::Accessed,
        "data last read",
    ),
    (
        &["changed", "ctime", "c", "change", "status"],
        TimeField::Changed,
        "inode last changed (data, owner, mode, links, name)",
    ),
    (
        &["birth", "btime", "B", "born", "created", "creation"],
        TimeField::Born,
        "created, where the filesystem records it",
    ),
];

fn time_field_words() -> Vec<(&'static str, &'static str)> {
    TIME_FIELDS
        .iter()
        .map(|&(words, _, help)| (words[0], help))
        .collect()
}
