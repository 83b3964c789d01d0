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
//!    the name bytes the kernel returned (a `--regex` that is a literal form is a
//!    glob here; any other test on the name hangs behind the glob);
//! 4. only with `--path-regex`, `--and` on paths or an `-E` with a `/`, the path below
//!    the root: each `-E` path pattern's state is computed once per directory, so an
//!    entry costs a name test ([`Filter::path_excluded`]); `--path-regex` puts the
//!    path together ([`Filter::path_passes`]);
//! 5. only for an entry that passed all of that, and only when a predicate or the
//!    output needs one ([`crate::config::Config::needs_stat`]), a `stat`, tested by
//!    [`Filter::stat_passes`].
//!
//! The walker applies these to the entries of every directory it lists, and to the
//! roots given as files, which are entries at depth 0.

pub mod exclude;
pub mod glob;
pub mod needle;
pub mod owner;
pub mod path;
pub mod pattern;
pub mod regex;
pub mod size;
pub mod time;
pub mod types;

use crate::os::dirent::EntryKind;
use crate::os::stat::{Fields, Stat, TimeField};
use exclude::PathExclude;
use glob::Glob;
use owner::OwnerFilter;
use path::{PathGlob, PathState};
use pattern::{all_match, Pattern};
use size::SizeFilter;
use std::sync::Arc;
use time::TimeBounds;
use types::TypeFilter;

/// Every predicate of a run, resolved.
#[derive(Clone, Debug)]
pub struct Filter {
    /// Lowercase extensions without a leading dot; empty means any extension (`-e`).
    pub extensions: Extensions,
    /// A glob the basename must match: `-n`'s, or the last component of `-p`'s, or
    /// a literal `--regex`. Set through [`Self::add_name_pattern`].
    pub name_glob: Option<Glob>,
    /// With both `-n` and `-p`, the second of the two, with every other test on the
    /// name hung behind it ([`Glob::and_also`]). Two options rather than a list:
    /// a list's loop, inlined into the walk, cost a walk without any glob 5% more
    /// instructions; this costs it nothing, the first being `None`.
    pub name_glob_too: Option<Glob>,
    /// What the path below the root must match (`--path-regex`, `--and` with a path
    /// pattern first), all of them; tested on entries that passed everything else
    /// the name decides (see [`Self::path_passes`]).
    pub path_tests: Box<[Pattern]>,
    /// `-p`: the glob the path below the root must match; its last component is also
    /// in `name_globs`.
    pub path: Option<PathGlob>,
    /// Globs whose matches (files and whole directories) are skipped (`-E`).
    pub exclude_globs: Vec<Glob>,
    /// `-E` patterns with a `/`, tested on the path below the root.
    pub path_excludes: Box<[PathExclude]>,
    /// `--ignore-contain`: a directory holding an entry of one of these names is
    /// skipped, itself and all below it (the walker asks the file system).
    pub ignore_contain: Box<[Box<[u8]>]>,
    /// Size constraints, all of which must hold (`-S`). Only regular files have a
    /// size in this sense: with a size filter, directories and links never match.
    pub size_filters: Vec<SizeFilter>,
    /// Which kinds of entries may match (`-t`); regular files by default.
    pub types: TypeFilter,
    /// Bounds on one of the times (`--changed-within`, `--changed-before`,
    /// `--newer`, `--time`), for entries of every kind.
    pub time: TimeBounds,
    /// Who must own an entry (`--owner`), for entries of every kind.
    pub owner: OwnerFilter,
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
            extensions: Extensions::default(),
            name_glob: None,
            name_glob_too: None,
            path_tests: Box::new([]),
            path: None,
            exclude_globs: Vec::new(),
            path_excludes: Box::new([]),
            ignore_contain: Box::new([]),
            size_filters: Vec::new(),
            types: TypeFilter::default(),
            time: TimeBounds::default(),
            owner: OwnerFilter::default(),
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
    /// FIFOs, sockets or devices among the entries may match (which of them, the
    /// [`TypeFilter`] says).
    pub specials: bool,
    /// Subdirectories among the entries are listed in turn.
    pub descend: bool,
}

impl Filter {
    /// What may match among entries at `depth` (a root's children are at 1; a root
    /// given as a file is an entry at 0) of a directory whose path is in `path` (see
    /// [`Self::subdir_path`]).
    pub fn scope(&self, depth: usize, path: PathState) -> Scope {
        let path_fits = self
            .path
            .as_ref()
            .is_none_or(|glob| glob.entries_may_match(path));
        let printable = depth >= self.min_depth && path_fits;
        Scope {
            files: printable && self.types.files,
            dirs: printable && self.dirs_may_match(),
            links: printable && self.links_may_match(),
            specials: printable && self.specials_may_match(),
            descend: depth < self.max_depth,
        }
    }

    /// The path state of a root directory, whose own path below itself is empty.
    pub fn root_path(&self) -> PathState {
        self.path
            .as_ref()
            .map_or(PathState::default(), PathGlob::start)
    }

    /// The path state of the subdirectory `name` of a directory in `path`, or `None`
    /// when `-p` can match nothing below it, so that it need not be listed.
    pub fn subdir_path(&self, path: PathState, name: &[u8]) -> Option<PathState> {
        match &self.path {
            None => Some(path),
            Some(glob) => {
                let state = glob.step(path, name);
                glob.alive(state).then_some(state)
            }
        }
    }

    /// True when the file name must be looked at to decide a match. When false, and
    /// no directory can be excluded either, files can be accepted on `d_type` alone.
    pub fn has_name_filter(&self) -> bool {
        !self.extensions.is_empty()
            || self.name_glob.is_some()
            || self.path.is_some()
            || self.has_path_tests()
    }

    /// True when entries' paths below the root must be put together and tested:
    /// `--path-regex`, `--and` on paths, `-E` with a `/`.
    pub fn has_path_tests(&self) -> bool {
        !self.path_tests.is_empty() || !self.path_excludes.is_empty()
    }

    /// Adds a pattern the basename must match, in addition to any given before: the
    /// first two globs in `name_glob` and `name_glob_too`, anything else behind the
    /// second, or the first when there is none (each a `*` when it has no glob).
    pub fn add_name_pattern(&mut self, pattern: Pattern) {
        let pattern = match pattern {
            // Its glob on the fast path, the rest (rarely asked) behind it.
            Pattern::Checked { glob, engine } => {
                self.add_name_pattern(Pattern::Glob(glob));
                return self.add_name_pattern(Pattern::Unclean(engine));
            }
            Pattern::Glob(glob) if self.name_glob.is_none() => {
                return self.name_glob = Some(glob);
            }
            Pattern::Glob(glob) if self.name_glob_too.is_none() => {
                return self.name_glob_too = Some(glob);
            }
            pattern => pattern,
        };
        // Behind the second glob when there is a first, which so keeps its inline
        // fast path (a glob carrying other tests is a node, tested out of line).
        let any = || Glob::new(b"*", false).expect("a valid glob");
        let slot = match self.name_glob {
            None => &mut self.name_glob,
            Some(_) => &mut self.name_glob_too,
        };
        let glob = slot.take().unwrap_or_else(any);
        *slot = Some(glob.and_also(Arc::new(pattern)));
    }

    /// Adds a pattern the path below the root must match.
    pub fn add_path_pattern(&mut self, pattern: Pattern) {
        let mut list = Vec::from(std::mem::take(&mut self.path_tests));
        list.push(pattern);
        self.path_tests = list.into();
    }

    /// True when the entry `name` of a directory whose path below the root is `dir`
    /// (empty, or ending in `/`) passes the path tests. `scratch` holds the path.
    #[inline(never)]
    pub fn path_passes(&self, [dir, name]: [&[u8]; 2], scratch: &mut Vec<u8>) -> bool {
        scratch.clear();
        scratch.extend_from_slice(dir);
        scratch.extend_from_slice(name);
        all_match(&self.path_tests, scratch)
    }

    /// The state of a directory whose path below the root is `dir` for each `-E`
    /// path pattern, into `states` (once per directory: see [`Self::path_excluded`]).
    pub fn exclude_states(&self, dir: &[u8], states: &mut Vec<PathState>) {
        states.clear();
        states.extend(
            self.path_excludes
                .iter()
                .map(|exclude| exclude.dir_state(dir)),
        );
    }

    /// True when a `-E` path pattern skips the entry `name` of a directory whose
    /// states [`Self::exclude_states`] gave; `is_dir` says whether it is a directory.
    #[inline(never)]
    pub fn path_excluded(&self, states: &[PathState], name: &[u8], is_dir: bool) -> bool {
        let mut each = self.path_excludes.iter().zip(states);
        each.any(|(exclude, &state)| exclude.excludes_in(state, name, is_dir))
    }

    /// True when a regular file matches on its kind alone, wherever it is below the
    /// root (depth 1 and deeper), so `-c` can count files without reading their names.
    pub fn files_match_by_kind(&self) -> bool {
        !self.has_name_filter()
            && self.exclude_globs.is_empty()
            && self.ignore_contain.is_empty()
            && self.size_filters.is_empty()
            && self.types.is_files_only()
            && self.time.is_empty()
            && self.owner.is_empty()
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

    /// True when FIFOs, sockets or devices can match at all: `-t s`, `p`, `c` or `b`,
    /// no `-S` and no `-t e` (neither has a size or is empty, as with links).
    pub fn specials_may_match(&self) -> bool {
        self.types.specials != 0 && self.size_filters.is_empty() && !self.types.empty_only
    }

    /// True when an entry named `name` passes the name filters (`-E`, `-e`, `-n`).
    #[inline(always)] // on the per-file hot path; see `walker::Visitor::visit`
    pub fn name_passes(&self, name: &[u8]) -> bool {
        !self.is_excluded(name) && self.name_matches(name)
    }

    /// True when `name` passes `-e` and `-n`: [`Self::name_passes`] without `-E`,
    /// which is never applied to a root (issue 20: a root file named like an `-E`
    /// glob was dropped).
    #[inline(always)]
    pub fn name_matches(&self, name: &[u8]) -> bool {
        if !self.extensions.is_empty() && !self.extensions.matches(name) {
            return false;
        }
        match &self.name_glob {
            Some(glob) => {
                glob.matches(name)
                    && self
                        .name_glob_too
                        .as_ref()
                        .is_none_or(|too| too.matches(name))
            }
            None => true,
        }
    }

    /// What rules a directory's names out at once (see `needle`) when none can
    /// pass [`Self::name_matches`]: with one `-e`, `.EXT` and the NUL after the
    /// name, searched for folded (the test is ASCII case-insensitive); with
    /// several, their endings, name by name; otherwise the longest literal run
    /// of the globs a name must match, if long enough to search for, and under
    /// `-i` a longer one for directories whose names are ASCII alone, where `i`
    /// and `k` need not end a run (`Glob::required_ascii_literal`).
    pub fn name_needle(&self) -> Option<needle::NameNeedle> {
        match self.extensions.list.as_slice() {
            [] => {}
            [ext] => {
                let literal = needle::Literal {
                    bytes: [b".", &ext[..], b"\0"].concat(),
                    folded: true,
                };
                return Some(needle::NameNeedle::new(&literal));
            }
            _ => return Some(needle::NameNeedle::endings(self.extensions.clone())),
        }
        let globs = || [&self.name_glob, &self.name_glob_too].into_iter().flatten();
        let literal = needle::longest(globs().filter_map(Glob::required_literal));
        // Under `-i`, names of ASCII alone may be held to a longer literal.
        let ascii =
            needle::longest(globs().filter_map(Glob::required_ascii_literal)).filter(|ascii| {
                literal
                    .as_ref()
                    .is_none_or(|l| ascii.bytes.len() > l.bytes.len())
            });
        match (literal, ascii) {
            (Some(literal), Some(ascii)) => {
                Some(needle::NameNeedle::new(&literal).with_ascii(&ascii))
            }
            (Some(literal), None) => Some(needle::NameNeedle::new(&literal)),
            (None, Some(ascii)) => Some(needle::NameNeedle::ascii_only(&ascii)),
            (None, None) => None,
        }
    }

    /// True when every name passes [`Self::name_passes`]: no `-e`, no name glob and
    /// no `-E` glob to test it against.
    pub fn passes_every_name(&self) -> bool {
        self.extensions.is_empty() && self.name_glob.is_none() && self.exclude_globs.is_empty()
    }

    /// True when `-E` skips an entry named `name` (and, for a directory, everything
    /// below it).
    #[inline(always)]
    pub fn is_excluded(&self, name: &[u8]) -> bool {
        !self.exclude_globs.is_empty() && self.any_exclude_matches(name)
    }

    /// The loop over `-E` globs, kept out of the per-file loop: left to LLVM, whether
    /// it was inlined there changed with unrelated code, and inlined it cost a walk
    /// without `-E` up to 0.6% more instructions (callgrind, 100,000 files).
    #[inline(never)]
    fn any_exclude_matches(&self, name: &[u8]) -> bool {
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
            || !self.time.is_empty()
            || !self.owner.is_empty()
            || (kind == EntryKind::File && (self.types.empty_only || !self.size_filters.is_empty()))
    }

    /// The fields of a `stat` these predicates read (see [`Self::needs_stat`]); a
    /// birth time they test is required.
    pub fn stat_fields(&self) -> Fields {
        let mut fields = Fields::TYPE;
        if self.types.executable_only {
            fields = fields.with(Fields::MODE);
        }
        if !self.time.is_empty() {
            fields = fields.with(self.time.field.fields());
            if self.time.field == TimeField::Born {
                fields = fields.with(Fields::BIRTH_REQUIRED);
            }
        }
        if !self.owner.is_empty() {
            fields = fields.with(Fields::OWNER);
        }
        if self.types.empty_only || !self.size_filters.is_empty() {
            fields = fields.with(Fields::SIZE);
        }
        fields
    }

    /// True when an entry of `kind` whose `stat` is `stat` passes the predicates that
    /// need one: `-t x`, the time bounds, the owner, and for a regular file `-t e` and
    /// `-S`. Whether the kind can
    /// match at all was decided by [`Self::scope`]; a directory's emptiness is decided
    /// when it is listed. Inlined into the walker's callers: called, it cost `-S
    /// +1k -c` on `/usr/share` 1.5M instructions more (callgrind, `-j 1`).
    #[inline(always)]
    pub fn stat_passes(&self, kind: EntryKind, stat: &Stat) -> bool {
        if !self.types.mode_passes(stat.mode())
            || (!self.time.is_empty() && !self.time.accepts_stat(stat))
            || !self.owner.accepts(stat.uid(), stat.gid())
        {
            return false;
        }
        if kind != EntryKind::File {
            return true;
        }
        let size = stat.size();
        (!self.types.empty_only || size == 0) && self.size_passes(size)
    }
}

/// One `-e` value as the matcher wants it: without a leading dot and lowercased once,
/// here, so that the per-entry comparison never allocates.
pub fn normalize_extension(ext: &[u8]) -> Box<[u8]> {
    ext.strip_prefix(b".")
        .unwrap_or(ext)
        .to_ascii_lowercase()
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

/// The `-e` extensions (and `-t` families), prepared for [`name_matches_extension`]'s
/// test on millions of names.
///
/// Each `.EXT` of at most 8 bytes becomes one 64-bit word: the last 8 bytes of a name
/// are loaded once, and each extension is then a shift, an OR that folds the case of
/// the positions holding ASCII letters (and only those, so `-e mp4` cannot match a
/// control byte in place of the `4`) and a compare. Names shorter than 8 bytes, and
/// extensions longer than 7, take the byte-by-byte test, so the two can never
/// disagree; a differential test below checks it. Measured with callgrind on `medium`
/// (100,000 files, `-j 1`): `-e jpg` from 20.3M to 16.9M instructions, `-e jpg -e png
/// -e txt` from 26.9M to 20.6M, `-t images` (seven extensions) from 34.2M to 23.6M.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// As given: lowercase, without the dot.
    list: Vec<Box<[u8]>>,
    /// One per extension whose `.EXT` fits a word.
    words: Vec<SuffixWord>,
    /// The extensions too long for a word.
    long: Vec<Box<[u8]>>,
}

/// `.EXT` as the low bytes of a little-endian word, in the form [`Extensions`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SuffixWord {
    /// Bytes in `.EXT`; a name must be longer (the dot is never its first byte).
    len: usize,
    /// Moves a name's last `len` bytes from the top of its last 8 bytes to the bottom.
    shift: u32,
    /// 0x20 in each byte that holds an ASCII letter of the extension.
    fold: u64,
    /// `.EXT` itself, lowercase.
    word: u64,
}

impl Extensions {
    /// `list` must be lowercase, without leading dots (see [`normalize_extension`]).
    pub fn new(list: Vec<Box<[u8]>>) -> Extensions {
        let mut words = Vec::new();
        let mut long = Vec::new();
        for ext in &list {
            let len = ext.len() + 1;
            if len > 8 {
                long.push(ext.clone());
                continue;
            }
            let (mut word, mut fold) = (u64::from(b'.'), 0u64);
            for (i, &byte) in ext.iter().enumerate() {
                word |= u64::from(byte) << (8 * (i + 1));
                if byte.is_ascii_lowercase() {
                    fold |= 0x20 << (8 * (i + 1));
                }
            }
            words.push(SuffixWord {
                len,
                shift: 8 * (8 - len as u32),
                fold,
                word,
            });
        }
        Extensions { list, words, long }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The extensions, as given.
    pub fn iter(&self) -> impl Iterator<Item = &Box<[u8]>> {
        self.list.iter()
    }

    /// True when `name` ends in `.EXT` for one of the extensions; the same answer as
    /// [`name_matches_extension`].
    #[inline]
    pub fn matches(&self, name: &[u8]) -> bool {
        let Some(last8) = name.len().checked_sub(8).map(|start| &name[start..]) else {
            return name_matches_extension(name, &self.list);
        };
        let last8 = u64::from_le_bytes(last8.try_into().expect("eight bytes"));
        let by_word = self
            .words
            .iter()
            .any(|s| name.len() > s.len && ((last8 >> s.shift) | s.fold) == s.word);
        by_word || (!self.long.is_empty() && name_matches_extension(name, &self.long))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exts(list: &[&str]) -> Vec<Box<[u8]>> {
        list.iter().map(|e| e.as_bytes().into()).collect()
    }

    /// The word-at-a-time matcher must agree with the byte-by-byte one everywhere:
    /// names shorter and longer than a word, extensions up to and past 7 bytes, case,
    /// digits, dots, and bytes that differ from a letter only in the case bit.
    #[test]
    fn prepared_extensions_agree_with_the_plain_test() {
        let mut rng = fastrand::Rng::with_seed(41);
        let alphabet: &[u8] = b"aAjJpPgG4.\x14\x0f\xe9\xc9_";
        let mut agreed = 0;
        for _ in 0..3_000 {
            let list: Vec<Box<[u8]>> = (0..rng.usize(1..4))
                .map(|_| {
                    let ext: Vec<u8> = (0..rng.usize(1..10))
                        .map(|_| alphabet[rng.usize(..alphabet.len())])
                        .collect();
                    normalize_extension(&ext)
                })
                .filter(|ext| !ext.is_empty())
                .collect();
            let prepared = Extensions::new(list.clone());
            for _ in 0..30 {
                // Often a name built to end in one of the extensions, in either case.
                let mut name: Vec<u8> = (0..rng.usize(0..12))
                    .map(|_| alphabet[rng.usize(..alphabet.len())])
                    .collect();
                if rng.bool() && !list.is_empty() {
                    name.push(b'.');
                    let ext = &list[rng.usize(..list.len())];
                    name.extend(ext.iter().map(|&b| {
                        if rng.bool() {
                            b.to_ascii_uppercase()
                        } else {
                            b
                        }
                    }));
                }
                let want = name_matches_extension(&name, &list);
                assert_eq!(prepared.matches(&name), want, "{name:?} against {list:?}");
                agreed += usize::from(want);
            }
        }
        assert!(agreed > 5_000, "too few matches to mean anything: {agreed}");
    }

    #[test]
    fn extensions_are_normalised_once() {
        assert_eq!(&*normalize_extension(b"JPG"), b"jpg");
        assert_eq!(&*normalize_extension(b".Png"), b"png");
        assert_eq!(&*normalize_extension(b"tar.GZ"), b"tar.gz");
        assert_eq!(&*normalize_extension(b"\xC9T\xE9"), b"\xC9t\xE9"); // bytes kept
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
        filter.extensions = Extensions::new(vec![b"jpg".to_vec().into_boxed_slice()]);
        filter.add_name_pattern(Pattern::Glob(Glob::new(b"a*", false).unwrap()));
        assert!(filter.name_passes(b"a.JPG"));
        assert!(!filter.name_passes(b"b.jpg"));
        assert!(!filter.name_passes(b"a.png"));
        filter.exclude_globs = vec![Glob::new(b"*x*", false).unwrap()];
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
            filter.scope(1, PathState::default()),
            Scope {
                descend: true,
                ..none
            }
        );
        assert_eq!(
            filter.scope(2, PathState::default()),
            Scope {
                files: true,
                descend: true,
                ..none
            }
        );
        assert_eq!(
            filter.scope(3, PathState::default()),
            Scope {
                files: true,
                ..none
            }
        );
        filter.types = TypeFilter::from_kinds(&[Kind::Dir, Kind::Symlink]);
        assert_eq!(
            filter.scope(3, PathState::default()),
            Scope {
                dirs: true,
                links: true,
                ..none
            }
        );
        // Only regular files have a size; a link is never empty.
        filter.size_filters = vec![SizeFilter::AtLeast(1)];
        assert_eq!(filter.scope(3, PathState::default()), none);
        filter.size_filters.clear();
        filter.types = TypeFilter::from_kinds(&[Kind::Symlink, Kind::Empty]);
        assert!(!filter.scope(3, PathState::default()).links);
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
