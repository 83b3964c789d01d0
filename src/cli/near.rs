//! After a search that found nothing: the spelling near the one typed that would
//! have found something, and how many (issue 41). An empty answer with status 0 and
//! not a word is the worst thing a finder can give, and the habits people bring give
//! it: `-p '*.rs'` from find's `-path` (whose `*` crosses `/`, where `-p`'s stays
//! in one directory), `-n Cargo` from fd (whose pattern matches inside names),
//! `-n readme.md` for `README.md`.
//!
//! Nothing here runs unless the walk found nothing: then each nearby spelling of one
//! pattern, in the order of how likely it was meant (see [`candidates`]), is counted
//! by a walk of the same tree with every other option as typed, until one finds
//! something; at most [`MAX_WALKS`] walks, on a tree the first walk has just read.
//! The hint names the spelling, how many it finds and why, on one line. It never
//! points away from what was asked: a `-p` that matched a directory is answered
//! with the files below it (`-p 'src/**'`), not with `-t d`.

use super::entries::EntryArgs;
use super::names::{NameArgs, NameSearch};
use crate::config::Config;
use crate::filter::glob::GlobPattern;
use crate::filter::path::PathPattern;
use crate::filter::types::Family;
use crate::os::dirent::EntryKind;
use crate::output::OutputMode;
use crate::Summary;

/// How many walks the hint may take: an empty search of a big tree must not take
/// many times as long to end. The spellings most often meant come first.
pub const MAX_WALKS: usize = 4;

/// A search whose empty answer may be told a nearby spelling: its name options, the
/// `-t` families (their extensions join `-e`'s) and, when entries of other kinds
/// matched, what the walk already says about them.
#[derive(Debug)]
pub struct Misses {
    pub(super) names: NameArgs,
    pub(super) families: Vec<&'static Family>,
    /// The hint about entries of other kinds (see [`super::NameSearch`]), when that
    /// one may be given.
    pub(super) kinds: Option<super::NameSearch>,
}

impl Misses {
    /// What the nearby spellings of an empty search are made from (see
    /// [`super::near`]), with `search`, the hint about other kinds if it may be given:
    /// `None` with `-q`, whose answer is its status, and without a pattern on names
    /// or paths.
    pub(super) fn new(
        names: NameArgs,
        entries: &EntryArgs,
        quiet: bool,
        search: Option<NameSearch>,
    ) -> Option<Misses> {
        let patterns = !names.name.is_empty()
            || names.path.is_some()
            || !names.regex.is_empty()
            || !names.path_regex.is_empty()
            || !names.full_path.is_empty()
            || !names.extensions.is_empty();
        if quiet || !patterns {
            return None;
        }
        Some(Misses {
            families: entries.families().collect(),
            names,
            kinds: search,
        })
    }
}

/// One spelling to try: the name options with one pattern changed, how it is typed,
/// and why it is near.
struct Candidate {
    names: NameArgs,
    /// As it could be typed: bytes, since a pattern need not be UTF-8 (the warning
    /// escapes what is not).
    typed: Vec<u8>,
    why: &'static str,
}

impl Misses {
    /// The warning for a walk (`config`, which found `summary`) that found nothing, if
    /// a nearby spelling finds something or entries of other kinds matched; `count`
    /// walks a configuration and says how many matched. `None` at once when the walk
    /// found something.
    pub fn after_walk(
        &self,
        config: &Config,
        summary: &Summary,
        count: impl Fn(&Config) -> u64,
    ) -> Option<Vec<u8>> {
        if summary.matches > 0 {
            return None;
        }
        let dirs_matched = summary.missed.contains(EntryKind::Dir);
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut walks = 0;
        let mut tried = |candidates: Vec<Candidate>| {
            for candidate in candidates {
                if seen.contains(&candidate.typed) {
                    continue;
                }
                seen.push(candidate.typed.clone());
                if walks == MAX_WALKS {
                    return None;
                }
                walks += 1;
                let found = count(&self.config_for(config, &candidate.names));
                if found > 0 {
                    return Some(self.say(config, &candidate, found));
                }
            }
            None
        };
        // A directory matched a path glob: what is below it was wanted, not it.
        if dirs_matched {
            if let Some(line) = tried(self.below_matched_dirs()) {
                return Some(line);
            }
        }
        if let Some(kinds) = &self.kinds {
            if let Some(line) = kinds.nothing_matched(summary) {
                return Some(line);
            }
        }
        tried(self.candidates())
    }

    /// `config` with this search's name options replaced by `names`, counting.
    fn config_for(&self, config: &Config, names: &NameArgs) -> Config {
        let mut config = config.clone();
        let filter = &mut config.filter;
        // What the name options set, set again from `names` (see `NameArgs::resolve`).
        filter.name_glob = None;
        filter.name_glob_too = None;
        filter.path = None;
        filter.path_tests = Box::new([]);
        names.resolve(filter, self.families.iter().copied());
        config.output = OutputMode::Count;
        config.format = None;
        config.exec = None;
        config.reserved_descriptors = 0;
        config.max_results = None;
        config.miss_hints = false;
        config.flush_per_directory = false;
        config
    }

    /// `nothing matched -p '*.rs', but -p '**/*.rs' finds 26 files (why)`.
    fn say(&self, config: &Config, candidate: &Candidate, found: u64) -> Vec<u8> {
        let noun = match (found, config.filter.types.is_files_only()) {
            (1, true) => "file",
            (_, true) => "files",
            (1, false) => "entry",
            (_, false) => "entries",
        };
        [
            &b"nothing matched, but "[..],
            &candidate.typed,
            format!(" finds {found} {noun} ({})", candidate.why).as_bytes(),
        ]
        .concat()
    }

    /// `-p 'GLOB/**'`, the files below the directories a `-p` glob matched.
    fn below_matched_dirs(&self) -> Vec<Candidate> {
        let Some(path) = &self.names.path else {
            return Vec::new();
        };
        let below = [&path[..], b"/**"].concat();
        self.with_path(&below, "a directory matched it; /** is the files below it")
            .into_iter()
            .collect()
    }

    /// The nearby spellings of each pattern, most likely first.
    fn candidates(&self) -> Vec<Candidate> {
        let mut all = Vec::new();
        self.path_spellings(&mut all);
        self.name_spellings(&mut all);
        self.regex_spellings(&mut all);
        self.path_regex_spellings(&mut all);
        self.extension_spellings(&mut all);
        all
    }

    /// `-p`'s: deeper (find's `-path '*.rs'`), in another case, below what it names.
    fn path_spellings(&self, all: &mut Vec<Candidate>) {
        let Some(path) = self.names.path.as_deref().filter(|path| !path.is_empty()) else {
            return;
        };
        if !path.starts_with(b"**/") {
            let deep = [b"**/", path].concat();
            all.extend(self.with_path(
                &deep,
                "-p's * stays within one directory, as find -path's does not: **/ is any depth",
            ));
        }
        if let Some(slash) = path.iter().rposition(|&b| b == b'/') {
            let (head, last) = path.split_at(slash);
            if !head.ends_with(b"**") && last != b"/**" {
                let deep = [head, b"/**", last].concat();
                all.extend(self.with_path(&deep, "** is any depth"));
            }
        }
        all.extend(self.ignoring_case("-p", path));
        if !path.starts_with(b"**/") && !path.ends_with(b"/**") {
            let anywhere = [b"**/", path, b"/**"].concat();
            all.extend(self.with_path(
                &anywhere,
                "what is below the directories it names, at any depth",
            ));
        }
    }

    /// `-n`'s: a path (`-n src/main.rs`), the glob a regex meant, inside names (fd's
    /// habit), in another case.
    fn name_spellings(&self, all: &mut Vec<Candidate>) {
        for (at, glob) in self.names.name.iter().enumerate() {
            // `-n ''` (an unset variable) is warned about; `*` is no spelling of it.
            if glob.is_empty() {
                continue;
            }
            if glob.contains(&b'/') {
                let mut changed = self.names.clone();
                changed.name.remove(at);
                all.extend(as_path(
                    changed,
                    glob,
                    "-n tests names; -p the path below the root",
                ));
                continue;
            }
            // A regex typed as a glob (`-n '^Make'`), read as the warning before the
            // walk reads it.
            if crate::filter::regex::looks_like_regex(glob) {
                if let Some(meant) = super::warnings::regex_as_glob(glob) {
                    let why = "-n takes a glob, not a regular expression";
                    all.extend(self.with_name(at, &meant, false, why));
                }
            }
            let plain = !is_glob(glob);
            let inside = [b"*", &glob[..], b"*"].concat();
            if plain {
                let why = "-n matches whole names; fd's pattern matches inside them";
                all.extend(self.with_name(at, &inside, false, why));
            }
            all.extend(self.ignoring_case("-n", glob));
            if plain {
                let why = "-n matches whole names, and case differs";
                all.extend(self.with_name(at, &inside, true, why));
            }
        }
    }

    /// `--regex`'s: in another case, on the path when it holds a `/`.
    fn regex_spellings(&self, all: &mut Vec<Candidate>) {
        for (at, regex) in self.names.regex.iter().enumerate() {
            let text = regex.as_str().as_bytes();
            all.extend(self.ignoring_case("--regex", text));
            if text.contains(&b'/') {
                let mut changed = self.names.clone();
                let moved = changed.regex.remove(at);
                changed.full_path.push(moved);
                all.push(Candidate {
                    typed: word("--full-path", text),
                    names: changed,
                    why: "--regex tests names; --full-path the path below the root",
                });
            }
        }
    }

    /// `--path-regex`'s and `--full-path`'s: a glob given as a regex (`--full-path
    /// 'src/**/*.rs'`, as `-p` took it before issue 41), in another case.
    fn path_regex_spellings(&self, all: &mut Vec<Candidate>) {
        let names = &self.names;
        let path_regexes = (names.path_regex.iter().map(|re| ("--path-regex", re)))
            .chain(names.full_path.iter().map(|re| ("--full-path", re)));
        for (option, regex) in path_regexes {
            let text = regex.as_str().as_bytes();
            if text.contains(&b'*') {
                let mut changed = names.clone();
                changed.path_regex.retain(|re| re != regex);
                changed.full_path.retain(|re| re != regex);
                let why = "a glob: -p takes one, --full-path a regular expression";
                all.extend(as_path(changed, text, why));
            }
            all.extend(self.ignoring_case(option, text));
        }
    }

    /// `-e`'s: a glob given as an extension, `-e '*.md'` (`-e md`) or `-e 'jp?'` (`-n
    /// '*.jp?'`).
    fn extension_spellings(&self, all: &mut Vec<Candidate>) {
        let names = &self.names;
        for (at, list) in names.extensions.iter().enumerate() {
            for (n, ext) in list.0.iter().enumerate() {
                let bare: Vec<u8> = (ext.iter().copied())
                    .skip_while(|&b| b == b'*' || b == b'.')
                    .collect();
                if bare.is_empty()
                    || ext.contains(&b'/')
                    || bare.len() == ext.len() && !is_glob(&bare)
                {
                    continue;
                }
                let mut changed = names.clone();
                if is_glob(&bare) {
                    changed.extensions[at].0.remove(n);
                    changed.extensions.retain(|list| !list.0.is_empty());
                    let glob = [b"*.", &ext[..]].concat();
                    let Ok(pattern) = GlobPattern::parse(&glob) else {
                        continue;
                    };
                    changed.name.push(pattern);
                    all.push(Candidate {
                        typed: word("-n", &glob),
                        names: changed,
                        why: "-e takes an extension; -n a glob",
                    });
                } else {
                    changed.extensions[at].0[n] = bare.clone().into_boxed_slice();
                    all.push(Candidate {
                        typed: word("-e", &bare),
                        names: changed,
                        why: "-e takes an extension, not a glob",
                    });
                }
            }
        }
    }

    /// The search with its `-p` glob replaced by `glob`.
    fn with_path(&self, glob: &[u8], why: &'static str) -> Option<Candidate> {
        let mut names = self.names.clone();
        names.path = Some(PathPattern::parse(glob).ok()?);
        Some(Candidate {
            typed: word("-p", glob),
            names,
            why,
        })
    }

    /// The search with its `at`th `-n` glob replaced by `glob`, with `-i` if
    /// `fold_case`.
    fn with_name(
        &self,
        at: usize,
        glob: &[u8],
        fold_case: bool,
        why: &'static str,
    ) -> Option<Candidate> {
        if fold_case && self.names.ignore_case {
            return None;
        }
        let mut names = self.names.clone();
        names.name[at] = GlobPattern::parse(glob).ok()?;
        names.ignore_case |= fold_case;
        let typed = word("-n", glob);
        Some(Candidate {
            typed: if fold_case {
                [&b"-i "[..], &typed].concat()
            } else {
                typed
            },
            names,
            why,
        })
    }

    /// The search with `-i`, told as `-i OPTION PATTERN`; `None` when it has `-i`
    /// already, or when the pattern has no letter whose case could differ.
    fn ignoring_case(&self, option: &str, pattern: &[u8]) -> Option<Candidate> {
        if self.names.ignore_case || !pattern.iter().any(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut names = self.names.clone();
        names.ignore_case = true;
        // A regex that folding case grows past the engine's limit is refused with
        // -i; it is no spelling to offer (nor to compile: that would panic).
        if !names.folds_case() {
            return None;
        }
        Some(Candidate {
            typed: [&b"-i "[..], &word(option, pattern)].concat(),
            names,
            why: "case differs: -i ignores it",
        })
    }
}

/// `names` (another pattern taken out of it) with `glob` as its `-p`, which it must
/// not have had: a pattern of another kind moved to `-p`.
fn as_path(mut names: NameArgs, glob: &[u8], why: &'static str) -> Option<Candidate> {
    if names.path.is_some() {
        return None;
    }
    names.path = Some(PathPattern::parse(glob).ok()?);
    Some(Candidate {
        typed: word("-p", glob),
        names,
        why,
    })
}

/// True when `text` holds a glob's wildcard or set.
fn is_glob(text: &[u8]) -> bool {
    text.iter().any(|b| b"*?[".contains(b))
}

/// `OPTION VALUE`, the value as it could be typed to a shell: as it is when nothing
/// in it is special, otherwise in single quotes. Bytes, unlike `hints::shell_word`:
/// a name that is not UTF-8 is told as it is, and escaped when printed.
fn word(option: &str, value: &[u8]) -> Vec<u8> {
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"-_./{}=+:,@%^".contains(b);
    let mut typed = format!("{option} ").into_bytes();
    if !value.is_empty() && value.iter().all(plain) {
        typed.extend_from_slice(value);
        return typed;
    }
    typed.push(b'\'');
    for &byte in value {
        match byte {
            b'\'' => typed.extend_from_slice(b"'\\''"),
            byte => typed.push(byte),
        }
    }
    typed.push(b'\'');
    typed
}
