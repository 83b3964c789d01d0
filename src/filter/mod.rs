//! What "matches" means: every predicate an entry is tested against, and the
//! cheap per-directory question "can any entry here match at all".
//!
//! A [`Filter`] is resolved once from the command line and borrowed by every worker.
//! An entry is tested in stages, cheapest first, so that each costs nothing when it
//! is not given:
//!
//! 1. per directory, [`Filter::scope`]: which kinds of entries of a directory at a
//!    given depth may match, and whether its subdirectories are listed at all;
//! 2. per entry, its kind (from `d_type`) against that scope;
//! 3. per entry, [`Filter::name_passes`]: exclusions, extensions and the name glob, on
//!    the name bytes the kernel returned;
//! 4. only for an entry that passed all of that, and only when a predicate or the
//!    output needs one ([`crate::config::Config::needs_stat`]), a `stat`, tested by
//!    [`Filter::stat_passes`].
//!
//! The walker applies these to the entries of every directory it lists, and to the
//! roots given as files, which are entries at depth 0.

pub mod glob;
pub mod size;
pub mod types;

use crate::dirent::EntryKind;
use glob::Glob;
use size::SizeFilter;
use types::TypeFilter;

/// Every predicate of a run, resolved.
#[derive(Clone, Debug)]
pub struct Filter {
    /// Lowercase extensions without a leading dot; empty means any extension (`-e`).
    pub extensions: Vec<Box<[u8]>>,
    /// Glob the basename must match (`-n`).
    pub name_glob: Option<Glob>,
    /// Globs whose matches (files and whole directories) are skipped (`-E`).
    pub exclude_globs: Vec<Glob>,
    /// Size constraints, all of which must hold (`-S`). Only regular files have a
    /// size in this sense: with a size filter, directories and links never match.
    pub size_filters: Vec<SizeFilter>,
    /// Which kinds of entries may match (`-t`); regular files by default.
    pub types: TypeFilter,
    /// Entries shallower than this do not match (`--min-depth`); a root's children
    /// are at depth 1, the root itself at 0.
    pub min_depth: usize,
    /// Entries deeper than this do not match, and directories whose entries would all
    /// be deeper are not listed (`-d`). `usize::MAX` when not limited.
    pub max_depth: usize,
}

impl Default for Filter {
    /// Every regular file, at any depth.
    fn default() -> Filter {
        Filter {
            extensions: Vec::new(),
            name_glob: None,
            exclude_globs: Vec::new(),
            size_filters: Vec::new(),
            types: TypeFilter::default(),
            min_depth: 0,
            max_depth: usize::MAX,
        }
    }
}

/// What holds for every entry of one directory, decided once per directory so that
/// the per-entry code tests a boolean rather than the whole filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Regular files among the entries may match.
    pub files: bool,
    /// Subdirectories among the entries may match.
    pub dirs: bool,
    /// Symbolic links among the entries may match.
    pub links: bool,
    /// Subdirectories among the entries are listed in turn.
    pub descend: bool,
}

impl Filter {
    /// What may match among entries at `depth` (a root's children are at 1; a root
    /// given as a file is an entry at 0).
    pub fn scope(&self, depth: usize) -> Scope {
        let printable = depth >= self.min_depth;
        Scope {
            files: printable && self.types.files,
            dirs: printable && self.dirs_may_match(),
            links: printable && self.links_may_match(),
            descend: depth < self.max_depth,
        }
    }

    /// True when the file name must be looked at to decide a match. When false, and
    /// no directory can be excluded either, files can be accepted on `d_type` alone.
    pub fn has_name_filter(&self) -> bool {
        !self.extensions.is_empty() || self.name_glob.is_some()
    }

    /// True when a regular file matches on its kind alone, wherever it is below the
    /// root (depth 1 and deeper), so `-c` can count files without reading their names.
    pub fn files_match_by_kind(&self) -> bool {
        !self.has_name_filter()
            && self.exclude_globs.is_empty()
            && self.size_filters.is_empty()
            && self.types.is_files_only()
            && self.min_depth <= 1
    }

    /// True when directories can match at all: `-t d`, and no `-S` (only a regular
    /// file has a size that -S tests, as in fd).
    pub fn dirs_may_match(&self) -> bool {
        self.types.dirs && self.size_filters.is_empty()
    }

    /// True when symbolic links can match at all: `-t l`, no `-S`, and no `-t e` (a
    /// link is never empty, as in fd).
    pub fn links_may_match(&self) -> bool {
        self.types.symlinks && self.size_filters.is_empty() && !self.types.empty_only
    }

    /// True when an entry named `name` passes the name filters (`-E`, `-e`, `-n`).
    #[inline(always)] // on the per-file hot path; see `walker::Visitor::visit`
    pub fn name_passes(&self, name: &[u8]) -> bool {
        if self.is_excluded(name) {
            return false;
        }
        if !self.extensions.is_empty() && !name_matches_extension(name, &self.extensions) {
            return false;
        }
        match &self.name_glob {
            Some(glob) => glob.matches(name),
            None => true,
        }
    }

    /// True when `-E` skips an entry named `name` (and, for a directory, everything
    /// below it).
    pub fn is_excluded(&self, name: &[u8]) -> bool {
        self.exclude_globs.iter().any(|glob| glob.matches(name))
    }

    /// True when a file of `size` bytes passes every `-S` filter.
    pub fn size_passes(&self, size: u64) -> bool {
        self.size_filters.iter().all(|filter| filter.accepts(size))
    }

    /// True when this filter needs an entry of `kind` to be `stat`ed before it can be
    /// accepted. What the output needs is added by `Config::needs_stat`.
    pub fn needs_stat(&self, kind: EntryKind) -> bool {
        self.types.executable_only
            || (kind == EntryKind::File && (self.types.empty_only || !self.size_filters.is_empty()))
    }

    /// True when an entry of `kind` whose `stat` is `stat` passes the predicates that
    /// need one: `-t x`, and for a regular file `-t e` and `-S`. Whether the kind can
    /// match at all was decided by [`Self::scope`]; a directory's emptiness is decided
    /// when it is listed.
    pub fn stat_passes(&self, kind: EntryKind, stat: &libc::stat) -> bool {
        if !self.types.mode_passes(stat.st_mode) {
            return false;
        }
        if kind != EntryKind::File {
            return true;
        }
        let size = stat.st_size as u64;
        (!self.types.empty_only || size == 0) && self.size_passes(size)
    }
}

/// One `-e` value as the matcher wants it: without a leading dot and lowercased once,
/// here, so that the per-entry comparison never allocates.
pub fn normalize_extension(ext: &str) -> Box<[u8]> {
    ext.strip_prefix('.')
        .unwrap_or(ext)
        .to_ascii_lowercase()
        .into_bytes()
        .into_boxed_slice()
}

/// True when `name` ends in `.EXT` for one of `extensions`, compared ASCII
/// case-insensitively without building a lowercase copy.
///
/// `extensions` must already be lowercase and carry no leading dot (the config does
/// that once). As in fd, a name that is nothing but `.EXT` (say `.jpg`) is a hidden file
/// without an extension and does not match; multi-part extensions such as `tar.gz` match
/// a name that ends in `.tar.gz`.
pub fn name_matches_extension(name: &[u8], extensions: &[Box<[u8]>]) -> bool {
    extensions.iter().any(|ext| has_extension(name, ext))
}

fn has_extension(name: &[u8], ext: &[u8]) -> bool {
    // The dot must exist and must not be the first byte of the name.
    if name.len() < ext.len() + 2 {
        return false;
    }
    let dot = name.len() - ext.len() - 1;
    name[dot] == b'.' && name[dot + 1..].eq_ignore_ascii_case(ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exts(list: &[&str]) -> Vec<Box<[u8]>> {
        list.iter().map(|e| e.as_bytes().into()).collect()
    }

    #[test]
    fn extensions_are_normalised_once() {
        assert_eq!(&*normalize_extension("JPG"), b"jpg");
        assert_eq!(&*normalize_extension(".Png"), b"png");
        assert_eq!(&*normalize_extension("tar.GZ"), b"tar.gz");
    }

    #[test]
    fn extension_table() {
        let jpg = exts(&["jpg"]);
        let cases: &[(&[u8], bool)] = &[
            (b"a.jpg", true),
            (b"a.JPG", true),
            (b"a.JpG", true),
            (b"photo.final.jpg", true),
            (b"a..jpg", true),
            (b"ajpg", false),
            (b"a.jpeg", false),
            (b"a.jpg.txt", false),
            (b".jpg", false), // a hidden file with no extension, as in fd
            (b"jpg", false),
            (b"", false),
            (b"a.", false),
            (b"\xff\xfe.jpg", true), // non-UTF-8 stem
            (b"a.jp\xc7", false),
        ];
        for &(name, want) in cases {
            assert_eq!(
                name_matches_extension(name, &jpg),
                want,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
    }

    #[test]
    fn extension_lists_and_multipart() {
        let multi = exts(&["jpg", "png", "tar.gz"]);
        assert!(name_matches_extension(b"x.png", &multi));
        assert!(name_matches_extension(b"x.PNG", &multi));
        assert!(name_matches_extension(b"backup.TAR.GZ", &multi));
        assert!(!name_matches_extension(b".tar.gz", &multi));
        assert!(!name_matches_extension(b"x.gz", &multi));
        assert!(!name_matches_extension(b"x.txt", &multi));
        assert!(!name_matches_extension(b"x.png", &[]));
    }

    #[test]
    fn name_filters_combine_with_and() {
        let mut filter = Filter::default();
        assert!(filter.name_passes(b"anything"));
        filter.extensions = vec![b"jpg".to_vec().into_boxed_slice()];
        filter.name_glob = Some(Glob::new(b"a*"));
        assert!(filter.name_passes(b"a.JPG"));
        assert!(!filter.name_passes(b"b.jpg"));
        assert!(!filter.name_passes(b"a.png"));
        filter.exclude_globs = vec![Glob::new(b"*x*")];
        assert!(!filter.name_passes(b"ax.jpg"));
        filter.size_filters = vec![SizeFilter::AtLeast(10), SizeFilter::AtMost(20)];
        assert!(filter.size_passes(10) && filter.size_passes(20));
        assert!(!filter.size_passes(9) && !filter.size_passes(21));
    }

    #[test]
    fn scope_follows_depth_bounds_and_kinds() {
        use types::Kind;
        let mut filter = Filter {
            min_depth: 2,
            max_depth: 3,
            ..Filter::default()
        };
        let none = Scope::default();
        assert_eq!(
            filter.scope(1),
            Scope {
                descend: true,
                ..none
            }
        );
        assert_eq!(
            filter.scope(2),
            Scope {
                files: true,
                descend: true,
                ..none
            }
        );
        assert_eq!(
            filter.scope(3),
            Scope {
                files: true,
                ..none
            }
        );
        filter.types = TypeFilter::from_kinds(&[Kind::Dir, Kind::Symlink]);
        assert_eq!(
            filter.scope(3),
            Scope {
                dirs: true,
                links: true,
                ..none
            }
        );
        // Only regular files have a size; a link is never empty.
        filter.size_filters = vec![SizeFilter::AtLeast(1)];
        assert_eq!(filter.scope(3), none);
        filter.size_filters.clear();
        filter.types = TypeFilter::from_kinds(&[Kind::Symlink, Kind::Empty]);
        assert!(!filter.scope(3).links);
    }

    #[test]
    fn stat_is_needed_only_by_predicates_that_read_it() {
        use types::Kind;
        let mut filter = Filter::default();
        assert!(!filter.needs_stat(EntryKind::File));
        assert!(!filter.needs_stat(EntryKind::Dir));
        filter.types = TypeFilter::from_kinds(&[Kind::Empty]);
        assert!(filter.needs_stat(EntryKind::File));
        assert!(!filter.needs_stat(EntryKind::Dir)); // decided by listing it
        filter.types = TypeFilter::from_kinds(&[Kind::Executable, Kind::Dir]);
        assert!(filter.needs_stat(EntryKind::Dir));
        filter.types = TypeFilter::default();
        filter.size_filters = vec![SizeFilter::AtMost(1)];
        assert!(filter.needs_stat(EntryKind::File));
        assert!(!filter.needs_stat(EntryKind::Symlink));
    }
}
