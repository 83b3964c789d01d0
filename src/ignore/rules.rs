//! One ignore file, compiled: its lines as git reads them, and the question "does
//! this path match, and which way" answered the way git answers it.
//!
//! Lines are parsed by gitoxide's `gix-ignore` and matched by `gix-glob`, a port of
//! git's own `wildmatch`: both work on bytes, so a rule or a name that is not UTF-8
//! matches exactly as git matches it, and bracket classes such as `[[:digit:]]`,
//! `**`, escapes and trailing-space trimming follow git. Within one file the last
//! matching line decides (a `!` line re-includes); which file decides is the caller's
//! business (see `ignore/mod.rs`).

use gix_glob::pattern::{Case, Mode};
use gix_glob::wildmatch;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The rules of one file, in file order, sorted into buckets by how they match, so
/// that a name is looked up rather than tested against every line: most lines of a
/// real `.gitignore` are literal names (`target`, `.idea`), literal paths
/// (`/Cargo.lock`) or `*.ext`.
#[derive(Debug, Default)]
pub struct RuleList {
    rules: Vec<gix_glob::Pattern>,
    /// Rules without wildcards tested on the name, by their text: indices into
    /// `rules`, in file order.
    names: Literals,
    /// Rules without wildcards tested on the path below the file's directory.
    paths: Literals,
    /// `*literal` rules tested on the name: the name must end with the literal.
    suffixes: Suffixes,
    /// Every other rule, tested with git's wildmatch once the name or path has the
    /// literal ends the rule needs.
    others: Vec<Wild>,
    /// What an entry needs for any rule to match it.
    needs: Needs,
}

/// What an entry must have for some rule of a list to match it, tested before any
/// bucket: most entries match no rule, and each list is asked about every entry
/// below its directory (the 150,000 questions of a walk of 58,000 entries cost
/// 25M instructions before this test, issue 39). Every rule but an open-ended
/// wildcard (`.env*`) fixes the last byte of what it matches, which is the
/// entry's name's last byte whether it is tested on the name or on the path;
/// open-ended ones fix the first byte of the name or the path instead.
#[derive(Debug, Default)]
struct Needs {
    last_bytes: ByteSet,
    name_first: ByteSet,
    path_first: ByteSet,
    /// Whether `path_first` holds any byte: comparing the set with an empty one
    /// for every entry was 0.9M instructions of a 51M walk (issue 39).
    by_path_first: bool,
    /// A rule that fixes neither (`*`, `*.[oa]`): every entry is asked.
    anything: bool,
}

impl Needs {
    /// Notes a rule that is tested on the name (`by_name`) or the path, whose text
    /// must start with `start` and end with `end`.
    fn add(&mut self, by_name: bool, start: &[u8], end: &[u8]) {
        match (end.last(), start.first()) {
            (Some(&last), _) => self.last_bytes.insert(last),
            (None, Some(&first)) if by_name => self.name_first.insert(first),
            (None, Some(&first)) => {
                self.path_first.insert(first);
                self.by_path_first = true;
            }
            (None, None) => self.anything = true,
        }
    }

    #[inline]
    fn may_match(&self, path_first: impl FnOnce() -> Option<u8>, name: &[u8]) -> bool {
        let has = |set: &ByteSet, byte: Option<u8>| byte.is_some_and(|b| set.contains(b));
        self.anything
            || has(&self.last_bytes, name.last().copied())
            || has(&self.name_first, name.first().copied())
            || self.by_path_first && has(&self.path_first, path_first())
    }
}

/// Rules by their literal text. Looked up once per entry, so hashed with a
/// multiply-and-rotate hash (the one rustc uses, "FxHash") rather than SipHash, which
/// cost more than all the rest of the rule matching together (callgrind).
type LiteralMap = HashMap<Box<[u8]>, Vec<u32>, BuildHasherDefault<FxHasher>>;

/// A set of bytes, tested in a few instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn insert(&mut self, byte: u8) {
        self.0[usize::from(byte / 64)] |= 1 << (byte % 64);
    }

    /// Notes the byte a name must end with to end with `literal`. An empty literal
    /// (the rule `*`, `*/` or `!*`) fixes none: every byte is noted, since a filter
    /// that turned a name away here would turn away one the rule matches (issue 46:
    /// bare `*` rules were never asked).
    fn insert_end_of(&mut self, literal: &[u8]) {
        match literal.last() {
            Some(&last) => self.insert(last),
            None => self.0 = [u64::MAX; 4],
        }
    }

    #[inline]
    fn contains(&self, byte: u8) -> bool {
        self.0[usize::from(byte / 64)] & (1 << (byte % 64)) != 0
    }
}

/// Literal rules, with a filter that turns most keys away before hashing them: the
/// lengths, first bytes and last bytes the literals have. The last byte is the one
/// that tells entries apart (the first byte of every path in a subtree is the
/// same); with it, a listing where no literal rule matches hashes almost nothing.
#[derive(Debug, Default)]
struct Literals {
    rules: LiteralMap,
    /// Bit `n` set: some literal is `n` bytes long (63 for 63 or more).
    lengths: u64,
    first_bytes: ByteSet,
    last_bytes: ByteSet,
}

impl Literals {
    fn insert(&mut self, literal: Box<[u8]>, index: u32) {
        self.lengths |= 1 << literal.len().min(63);
        if let (Some(&first), Some(&last)) = (literal.first(), literal.last()) {
            self.first_bytes.insert(first);
            self.last_bytes.insert(last);
        }
        self.rules.entry(literal).or_default().push(index);
    }

    #[inline]
    fn may_hold(&self, key: &[u8]) -> bool {
        let (Some(&first), Some(&last)) = (key.first(), key.last()) else {
            return false;
        };
        self.lengths & (1 << key.len().min(63)) != 0
            && self.last_bytes.contains(last)
            && self.first_bytes.contains(first)
    }
}

/// `*literal` rules, with the last bytes their literals end in: most names end in
/// none of them, and are turned away before any comparison.
#[derive(Debug, Default)]
struct Suffixes {
    /// Each rule's index and its literal (the text after `*`), in file order.
    rules: Vec<(u32, Box<[u8]>)>,
    last_bytes: ByteSet,
}

#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(SEED);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A rule with wildcards, with what a name or path must have for wildmatch to be
/// worth asking: the literal text before its first wildcard and after its last.
/// The end matters on deep paths: `**/x` was a wildmatch over the whole path of
/// every entry, 47 s on a chain of 100,000 directories against 1.1 s for `*.o`
/// (issue 38); an entry that does not end in `x` is now turned away at once.
#[derive(Debug)]
struct Wild {
    index: u32,
    start: Box<[u8]>,
    end: Box<[u8]>,
    /// Tested on the name alone (else on the path below the file's directory).
    by_name: bool,
}

impl Wild {
    /// Whether `tested` starts with the rule's literal start and ends with its
    /// literal end; one byte of each is compared first, inline, since a call to
    /// compare slices cost more than the rest of the test (callgrind, issue 39).
    #[inline]
    fn has_ends(&self, tested: &[u8]) -> bool {
        if tested.len() < self.start.len() + self.end.len() {
            return false;
        }
        let first_differs = self.start.first().is_some_and(|b| *b != tested[0]);
        let last_differs = self.end.last().is_some_and(|b| Some(b) != tested.last());
        !first_differs
            && !last_differs
            && tested.starts_with(&self.start)
            && tested.ends_with(&self.end)
    }
}

/// What the rules say about one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The last matching rule excludes it.
    Ignored,
    /// The last matching rule is a `!` rule: it is kept, whatever files of lower
    /// precedence say.
    Kept,
}

impl RuleList {
    /// Compiles the bytes of an ignore file.
    pub fn parse(bytes: &[u8]) -> RuleList {
        let mut list = RuleList::default();
        for (pattern, _line, _kind) in gix_ignore::parse(bytes, false) {
            let index = list.rules.len() as u32;
            let by_name = is_name_rule(&pattern);
            let literal: Box<[u8]> = pattern.text.as_slice().into();
            match pattern.first_wildcard_pos {
                None => {
                    list.needs.add(by_name, &literal, &literal);
                    match by_name {
                        true => list.names.insert(literal, index),
                        false => list.paths.insert(literal, index),
                    }
                }
                Some(0) if by_name && pattern.mode.contains(Mode::ENDS_WITH) => {
                    let literal: Box<[u8]> = pattern.text[1..].into();
                    list.needs.add(by_name, b"", &literal);
                    list.suffixes.last_bytes.insert_end_of(&literal);
                    list.suffixes.rules.push((index, literal));
                }
                Some(literal_len) => {
                    let text = &pattern.text[..];
                    // Past the last character that is not itself (escapes and
                    // brackets included), the rule is literal to its end.
                    let special = |b: &u8| b"*?[]\\".contains(b);
                    let mut tail = text.iter().rposition(special).map_or(0, |at| at + 1);
                    // `**/` also matches no directory at all, its `/` included.
                    if text.get(tail) == Some(&b'/') {
                        tail += 1;
                    }
                    let (start, end) = (&text[..literal_len], &text[tail..]);
                    list.needs.add(by_name, start, end);
                    list.others.push(Wild {
                        index,
                        start: start.into(),
                        end: end.into(),
                        by_name,
                    })
                }
            }
            list.rules.push(pattern);
        }
        list
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// False when no rule can match an entry named `name` whose path below the
    /// list's directory starts with the byte `path_first` gives (asked for only if
    /// needed): asked before the path is even put together (see [`Needs`]).
    #[inline]
    pub fn may_match(&self, path_first: impl FnOnce() -> Option<u8>, name: &[u8]) -> bool {
        self.needs.may_match(path_first, name)
    }

    /// What the last rule matching `path` says, if any rule does. `path` is relative
    /// to the directory the rules apply from (the ignore file's own, for a
    /// `.gitignore`), without a leading `/`; `name_start` is where its last component
    /// begins.
    pub fn verdict(&self, path: &[u8], name_start: usize, is_dir: bool) -> Option<Verdict> {
        let name = &path[name_start..];
        if !self.needs.may_match(|| path.first().copied(), name) {
            return None;
        }
        self.verdict_of_candidate(path, name_start, is_dir)
    }

    /// [`RuleList::verdict`] for a path that [`RuleList::may_match`] let through.
    pub fn verdict_of_candidate(
        &self,
        path: &[u8],
        name_start: usize,
        is_dir: bool,
    ) -> Option<Verdict> {
        let name = &path[name_start..];
        let applies = |index: &u32| is_dir || !self.rule(*index).mode.contains(Mode::MUST_BE_DIR);
        // The last matching rule decides: the highest index any bucket finds.
        let mut last: Option<u32> = None;
        let consider = |last: &mut Option<u32>, found: Option<u32>| {
            if found > *last {
                *last = found;
            }
        };
        let in_map = |map: &Literals, key: &[u8]| {
            if !map.may_hold(key) {
                return None;
            }
            map.rules
                .get(key)?
                .iter()
                .rev()
                .copied()
                .find(|i| applies(i))
        };
        consider(&mut last, in_map(&self.names, name));
        consider(&mut last, in_map(&self.paths, path));
        let suffixes = &self.suffixes;
        if name
            .last()
            .is_some_and(|&b| suffixes.last_bytes.contains(b))
        {
            let found = (suffixes.rules.iter().rev())
                .find(|(i, text)| name.ends_with(text) && applies(i))
                .map(|(i, _)| *i);
            consider(&mut last, found);
        }
        let name_start = (name_start > 0).then_some(name_start);
        for wild in self.others.iter().rev() {
            let index = wild.index;
            if Some(index) < last {
                break;
            }
            let tested = if wild.by_name { name } else { path };
            if !wild.has_ends(tested) {
                continue;
            }
            let matched = self.rule(index).matches_repo_relative_path(
                path.into(),
                name_start,
                Some(is_dir),
                Case::Sensitive,
                wildmatch::Mode::NO_MATCH_SLASH_LITERAL,
            );
            if matched {
                consider(&mut last, Some(index));
                break;
            }
        }
        let rule = self.rule(last?);
        Some(if rule.is_negative() {
            Verdict::Kept
        } else {
            Verdict::Ignored
        })
    }

    fn rule(&self, index: u32) -> &gix_glob::Pattern {
        &self.rules[index as usize]
    }
}

/// A rule git tests against the last component only: no `/` but a trailing one.
fn is_name_rule(rule: &gix_glob::Pattern) -> bool {
    rule.mode.contains(Mode::NO_SUB_DIR) && !rule.mode.contains(Mode::ABSOLUTE)
}

#[cfg(test)]
#[path = "random_rules.rs"]
mod random_rules;

#[cfg(test)]
mod tests {
    use super::random_rules;
    use super::*;
    use Verdict::{Ignored, Kept};

    /// `verdict` for a path given whole.
    fn check(rules: &[u8], path: &[u8], is_dir: bool) -> Option<Verdict> {
        let list = RuleList::parse(rules);
        let name_start = path.iter().rposition(|&b| b == b'/').map_or(0, |p| p + 1);
        list.verdict(path, name_start, is_dir)
    }

    #[test]
    fn rules_match_as_git_matches_them() {
        // (rules, path, is a directory, verdict)
        type Case<'a> = (&'a [u8], &'a [u8], bool, Option<Verdict>);
        let cases: &[Case] = &[
            (b"*.o\n", b"a/b/x.o", false, Some(Ignored)),
            (b"*.o\n", b"a/b/x.c", false, None),
            (b"/build\n", b"build", true, Some(Ignored)),
            (b"/build\n", b"src/build", true, None),
            (b"build/\n", b"build", false, None),
            (b"build/\n", b"src/build", true, Some(Ignored)),
            (b"doc/*.txt\n", b"doc/a.txt", false, Some(Ignored)),
            (b"doc/*.txt\n", b"doc/sub/a.txt", false, None),
            (b"a/**/b\n", b"a/x/y/b", false, Some(Ignored)),
            (b"a/**/b\n", b"a/b", false, Some(Ignored)),
            (b"**/foo\n", b"x/foo", false, Some(Ignored)),
            (b"*.log\n!keep.log\n", b"keep.log", false, Some(Kept)),
            (b"!keep.log\n*.log\n", b"keep.log", false, Some(Ignored)),
            (b"\\!bang\n", b"!bang", false, Some(Ignored)),
            (b"\\#hash\n", b"#hash", false, Some(Ignored)),
            (b"#comment\n", b"#comment", false, None),
            // Trailing spaces are trimmed unless escaped; a tab is not trimmed.
            (b"sp   \n", b"sp", false, Some(Ignored)),
            (b"sp\\ \n", b"sp ", false, Some(Ignored)),
            (b"tab\t\n", b"tab", false, None),
            (b"tab\t\n", b"tab\t", false, Some(Ignored)),
            (b"f[[:digit:]]\n", b"f7", false, Some(Ignored)),
            (b"f[[:digit:]]\n", b"fx", false, None),
            (b"[!a]x\n", b"bx", false, Some(Ignored)),
            // Bytes that are not UTF-8, in the rule and in the name.
            (b"caf\xe9\n", b"caf\xe9", false, Some(Ignored)),
            (b"caf\xe9\nlater\n", b"later", false, Some(Ignored)),
            (b"*\xff*\n", b"a\xffb", false, Some(Ignored)),
            // A star does not cross a slash in a rule with one.
            (b"a/*\n", b"a/b/c", false, None),
            // CRLF line ends, as git strips the CR before the LF.
            (b"crlf\r\nnext\r\n", b"crlf", false, Some(Ignored)),
        ];
        for &(rules, path, is_dir, want) in cases {
            assert_eq!(
                check(rules, path, is_dir),
                want,
                "rules {:?} path {:?}",
                String::from_utf8_lossy(rules),
                String::from_utf8_lossy(path)
            );
        }
    }

    /// The buckets give the answer of testing every rule in order, last match
    /// winning, on a mix of every kind of rule and path.
    #[test]
    fn buckets_agree_with_testing_every_rule() {
        let rules: &[u8] = b"target\n*.o\n!keep.o\n/Cargo.lock\nsrc/gen\n*.o/\nbuild/\n\
                             !build\na*b\n!target/\n*.tar.gz\ntarget/x\n**/deep\n\
                             a/**/b\nx?y\n[ab]c\n**/q/r\nsrc/*.rs\n**/b/deep\n\\*lit\n\
                             .env*\n!.env.example\n/tmp*\nlogs/**\n";
        // Open-ended rules fix no last byte: the first of the name or the path is
        // tested instead, and a rule that fixes neither turns the test off.
        for extra in [&b""[..], b"*.[oa]\n"] {
            let list = RuleList::parse(&[rules, extra].concat());
            assert_eq!(list.needs.anything, !extra.is_empty());
            agrees_with_every_rule(&list);
        }
    }

    /// `list`'s verdicts on a mix of every kind of path are those of testing every
    /// rule in order, last match winning.
    fn agrees_with_every_rule(list: &RuleList) {
        let names: &[&[u8]] = &[
            b"target",
            b"x.o",
            b"keep.o",
            b"Cargo.lock",
            b"gen",
            b"build",
            b"ab",
            b"axb",
            b"a.tar.gz",
            b"x",
            b"deep",
            b"other",
            b"b",
            b"xzy",
            b"ac",
            b"r",
            b"m.rs",
            b"*lit",
            b"xlit",
            b".env.local",
            b".env.example",
            b"tmpfile",
            b"logs",
            b"z.a",
        ];
        let dirs = [
            &b""[..],
            b"src/",
            b"target/",
            b"a/b/",
            b"q/",
            b"x/a/q/",
            b"logs/",
            b"tmpdir/",
        ];
        for dir in dirs {
            for name in names {
                for is_dir in [false, true] {
                    let path = [dir, name].concat();
                    let slow = list.rules.iter().rev().find(|rule| {
                        rule.matches_repo_relative_path(
                            path.as_slice().into(),
                            (!dir.is_empty()).then_some(dir.len()),
                            Some(is_dir),
                            Case::Sensitive,
                            wildmatch::Mode::NO_MATCH_SLASH_LITERAL,
                        )
                    });
                    let want = slow.map(|rule| match rule.is_negative() {
                        true => Verdict::Kept,
                        false => Verdict::Ignored,
                    });
                    assert_eq!(
                        list.verdict(&path, dir.len(), is_dir),
                        want,
                        "{:?} dir {is_dir}",
                        String::from_utf8_lossy(&path)
                    );
                }
            }
        }
    }

    /// What asking every rule of `list` in order says of `path` (its name starting at
    /// `name_start`), the last match winning: the answer every shortcut must give.
    fn every_rule(
        list: &RuleList,
        path: &[u8],
        name_start: usize,
        is_dir: bool,
    ) -> Option<Verdict> {
        let slow = list.rules.iter().rev().find(|rule| {
            rule.matches_repo_relative_path(
                path.into(),
                (name_start > 0).then_some(name_start),
                Some(is_dir),
                Case::Sensitive,
                wildmatch::Mode::NO_MATCH_SLASH_LITERAL,
            )
        });
        slow.map(|rule| match rule.is_negative() {
            true => Verdict::Kept,
            false => Verdict::Ignored,
        })
    }

    /// The property behind every bucket and pre-filter: on random rule lists and
    /// random paths, `verdict` (and `verdict_of_candidate` behind `may_match`) says
    /// what asking every rule in order says, and `may_match` never turns away an
    /// entry a rule matches. Fixed seeds; `PFIND_RULES_SEED=N` replays one.
    #[test]
    fn shortcuts_agree_with_asking_every_rule_on_random_rules() {
        let seeds: Vec<u64> = match std::env::var("PFIND_RULES_SEED") {
            Ok(seed) => vec![seed.parse().expect("PFIND_RULES_SEED is a number")],
            Err(_) => (0..3000).collect(),
        };
        for seed in seeds {
            let mut rng = fastrand::Rng::with_seed(seed);
            let text = random_rules::random_rules(&mut rng, 7, false);
            let list = RuleList::parse(&text);
            for _ in 0..200 {
                let (path, name_start) = random_rules::random_path(&mut rng);
                let is_dir = rng.bool();
                let want = every_rule(&list, &path, name_start, is_dir);
                let context = || {
                    format!(
                        "seed {seed} (PFIND_RULES_SEED={seed}): rules {:?} path {:?} dir {is_dir}",
                        String::from_utf8_lossy(&text),
                        String::from_utf8_lossy(&path)
                    )
                };
                let name = &path[name_start..];
                if want.is_some() {
                    assert!(
                        list.may_match(|| path.first().copied(), name),
                        "may_match: {}",
                        context()
                    );
                    let got = list.verdict_of_candidate(&path, name_start, is_dir);
                    assert_eq!(got, want, "verdict_of_candidate: {}", context());
                }
                assert_eq!(
                    list.verdict(&path, name_start, is_dir),
                    want,
                    "verdict: {}",
                    context()
                );
            }
        }
    }

    #[test]
    fn comments_and_blank_lines_are_no_rules() {
        assert!(RuleList::parse(b"# only a comment\n\n").is_empty());
        assert!(!RuleList::parse(b"*.o\n").is_empty());
    }
}
