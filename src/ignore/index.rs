//! The paths git tracks, read from a repository's index (`.git/index`): what makes
//! a file that an ignore rule matches still part of git's answer (`git add -f`).
//!
//! Only the paths are read. The index's format is documented by git
//! (`Documentation/gitformat-index.txt`): a 12-byte header (`DIRC`, version 2, 3 or
//! 4, entry count), then the entries in path order, each a fixed part of stat data,
//! an object id (20 bytes for SHA-1, 32 for SHA-256) and flags, then its path: in
//! versions 2 and 3 NUL-terminated and padded to a multiple of eight bytes, in
//! version 4 prefix-compressed against the previous path. Extensions are not
//! read: nothing in them changes which paths are tracked, except a split index
//! (`link`), which is reported as not read. The trailing checksum (SHA-1, or
//! SHA-256 in a SHA-256 repository, over everything before it) is checked as
//! `git fsck` checks it, all zeros meaning none was written (`index.skipHash`):
//! an index rewritten in place while it was read (`cp`, `rsync --inplace`, go-git
//! write it with `O_TRUNC`) is refused rather than misread (issue 47).
//!
//! The index is taken whole (the checksum needs every byte anyway), on Linux
//! mapped under a read lease where one can be had (`os/leased_map.rs`: a plain
//! mapping of a file cut short under it was a `SIGBUS` at the first page past its
//! new end; under the lease, the tool that would cut it waits while pfind copies
//! the bytes), else read. The paths of a version 2 or 3 index are not copied out of it:
//! one pass finds where each entry is, and lookups read the paths in the index
//! itself. Only version 4's prefix-compressed paths are put together.
//!
//! A hand-written reader rather than `gix-index`: it needs no stat data, no
//! extension and none of the object crates `gix-index` brings, and it is checked
//! against `git ls-files` itself (tests/feature/ignore_files.rs).

use std::fmt;

/// The tracked paths of one index, sorted as bytes, each once.
#[derive(Default)]
pub struct TrackedPaths {
    paths: Paths,
}

/// Where the paths are.
enum Paths {
    /// A version 2 or 3 index in git's order, as git writes it (and requires to
    /// read it: "unordered stage entries in index"): its paths are read where they
    /// lie in the index, which is kept. Copying them out touched 1.7 MB for an
    /// index of 4.2 MB, 425 page faults, for the few dozen paths a walk asks about
    /// (issue 39).
    InIndex {
        index: Box<dyn AsRef<[u8]> + Send + Sync>,
        /// Where each entry's flags are in the index, the first of a conflict's
        /// stages only.
        flags_at: Vec<u32>,
    },
    /// Version 4 (each path prefix-compressed against the one before) or not in
    /// order: the paths put together and sorted.
    Owned(OwnedPaths),
}

impl Default for Paths {
    fn default() -> Paths {
        Paths::Owned(OwnedPaths::default())
    }
}

impl fmt::Debug for TrackedPaths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.paths {
            Paths::InIndex { .. } => "in the index",
            Paths::Owned(_) => "copied",
        };
        write!(f, "TrackedPaths({} paths, {kind})", self.len())
    }
}

/// Paths put together one after another.
#[derive(Debug, Default)]
struct OwnedPaths {
    /// Every path, one after another.
    bytes: Vec<u8>,
    /// Where each path ends in `bytes`; path `i` starts where `i - 1` ends.
    ends: Vec<u32>,
}

/// Why an index could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexError {
    /// Not an index, or cut short: the reason.
    Corrupt(&'static str),
    /// Its checksum does not match its content: written while it was read, or
    /// damaged.
    Checksum,
    /// A version this reader does not know.
    Version(u32),
    /// A split index (`core.splitIndex`): most paths live in a shared file.
    Split,
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Corrupt(why) => write!(f, "not a valid git index ({why})"),
            IndexError::Checksum => write!(
                f,
                "its checksum does not match its content (rewritten while pfind read it, or damaged)"
            ),
            IndexError::Version(version) => write!(f, "index version {version} is not supported"),
            IndexError::Split => write!(f, "a split index (core.splitIndex) is not supported"),
        }
    }
}

/// Bytes of an entry before its object id: ctime, mtime (8 each), then dev, ino,
/// mode, uid, gid and size (4 each).
const STAT_BYTES: usize = 40;
/// An entry flag: a second, extended flags word follows (version 3 and later).
const EXTENDED: u16 = 0x4000;
const NAME_MASK: u16 = 0x0fff;
/// The most bytes of paths an index may expand to, for each byte of the index
/// itself. A version 4 entry takes at least 64 bytes (stat data, a SHA-1, flags, a
/// one-byte prefix length and a NUL), so a real index comes near this only if its
/// paths average 4 KiB; a crafted one of 3.7 MB whose paths each repeat the one
/// before and add a byte expanded past 4 GiB (issue 38).
const MOST_PATH_BYTES_PER_BYTE: usize = 64;

impl TrackedPaths {
    /// Reads the paths of `index`, whose object ids (and checksum) are `hash_len`
    /// bytes: 20 for SHA-1, 32 for SHA-256.
    pub fn parse<B>(index: B, hash_len: usize) -> Result<TrackedPaths, IndexError>
    where
        B: AsRef<[u8]> + Send + Sync + 'static,
    {
        let bytes = index.as_ref();
        let mut input = Input { bytes, at: 0 };
        if input.take(4)? != b"DIRC" {
            return Err(IndexError::Corrupt("no DIRC signature"));
        }
        let version = input.u32()?;
        if !(2..=4).contains(&version) {
            return Err(IndexError::Version(version));
        }
        // After the signature and the version, as git's `verify_hdr`.
        check_sum(bytes, hash_len)?;
        let count = input.u32()? as usize;
        // Sized by what the file can hold, not by the count it states: a count of
        // 2^32 - 1 in a small file reserved gigabytes.
        let entries = count.min(bytes.len() / (STAT_BYTES + hash_len + 2));
        if version == 4 {
            let paths = OwnedPaths::parse_v4(input, count, entries, hash_len)?;
            return Ok(TrackedPaths {
                paths: Paths::Owned(paths),
            });
        }
        // Entries are found by u32 offsets (the index is bounded at 2 GiB).
        if u32::try_from(bytes.len()).is_err() {
            return Err(IndexError::Corrupt("larger than 4 GiB"));
        }
        let (flags_at, in_order) = find_entries(&mut input, version, count, entries, hash_len)?;
        if input.bytes[input.at..].starts_with(b"link") {
            return Err(IndexError::Split);
        }
        if !in_order {
            // Git writes the entries sorted; an index that is not is sorted here
            // rather than trusted, since every lookup is a binary search.
            let mut paths: Vec<&[u8]> = (flags_at.iter()).map(|&at| name_at(bytes, at)).collect();
            paths.sort_unstable();
            paths.dedup();
            let mut owned = OwnedPaths::default();
            for path in paths {
                owned.push(path);
            }
            return Ok(TrackedPaths {
                paths: Paths::Owned(owned),
            });
        }
        let index = Box::new(index);
        Ok(TrackedPaths {
            paths: Paths::InIndex { index, flags_at },
        })
    }

    pub fn len(&self) -> usize {
        match &self.paths {
            Paths::InIndex { flags_at, .. } => flags_at.len(),
            Paths::Owned(owned) => owned.ends.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first path not less than `key`.
    fn lower_bound(&self, key: &[u8]) -> Option<&[u8]> {
        match &self.paths {
            Paths::InIndex { index, flags_at } => {
                let bytes = (**index).as_ref();
                let at = flags_at.partition_point(|&at| name_at(bytes, at) < key);
                (flags_at.get(at)).map(|&at| name_at(bytes, at))
            }
            Paths::Owned(owned) => {
                let at = owned.lower_bound(key);
                (at < owned.ends.len()).then(|| owned.path(at))
            }
        }
    }

    /// True when `path` (below the work tree's top) is tracked: a file, a link, or
    /// a submodule.
    pub fn contains(&self, path: &[u8]) -> bool {
        self.lower_bound(path) == Some(path)
    }

    /// True when some tracked path lies below the directory `dir`, given with its
    /// trailing `/`: all such paths sort together, right at or after `dir`.
    pub fn contains_below(&self, dir: &[u8]) -> bool {
        self.lower_bound(dir)
            .is_some_and(|path| path.starts_with(dir))
    }
}

/// Finds the `count` entries of a version 2 or 3 index, from `input`'s place to
/// the end of the last one (where `input` is left): where each one's flags are
/// (`entries`, the count the file can hold, sizes the list), and whether their
/// paths are in order. A conflicted path's later stages are left out.
///
/// The loop that finds every entry, the whole cost of reading an index: each
/// entry's bounds are checked once, by `get` (37K entries: 4.5M instructions through
/// `Input`'s reads, 4.0M so; half of what is left is the order check, which git
/// makes too, `check_ce_order`).
fn find_entries(
    input: &mut Input<'_>,
    version: u32,
    count: usize,
    entries: usize,
    hash_len: usize,
) -> Result<(Vec<u32>, bool), IndexError> {
    let bytes = input.bytes;
    let mut flags_at: Vec<u32> = Vec::with_capacity(entries);
    let mut previous: &[u8] = b"";
    let mut in_order = true;
    let fixed = STAT_BYTES + hash_len;
    let cut_short = IndexError::Corrupt("cut short");
    let mut at = input.at;
    for _ in 0..count {
        let flags_here = at + fixed;
        let Some(&[high, low]) = bytes.get(flags_here..flags_here + 2) else {
            return Err(cut_short);
        };
        let flags = u16::from_be_bytes([high, low]);
        let mut name_start = flags_here + 2;
        if flags & EXTENDED != 0 {
            if version < 3 {
                return Err(IndexError::Corrupt("extended flags in a version 2 index"));
            }
            name_start += 2;
        }
        let name = entry_name(bytes, name_start, flags)?;
        // The entry, NUL included, is padded with NULs to a multiple of 8.
        let used = name_start + name.len() + 1 - at;
        at += (used + 7) & !7;
        if !flags_at.is_empty() {
            match previous.cmp(name) {
                std::cmp::Ordering::Less => {}
                // Conflicted paths are listed once per stage, one after another.
                std::cmp::Ordering::Equal => continue,
                std::cmp::Ordering::Greater => in_order = false,
            }
        }
        flags_at.push(flags_here as u32);
        previous = name;
    }
    if at > bytes.len() {
        return Err(cut_short);
    }
    input.at = at;
    Ok((flags_at, in_order))
}

/// The path of an entry of a version 2 or 3 index, which starts at `name_start`:
/// `flags` hold the length of all but the longest paths, so no scan is needed.
#[inline(always)]
fn entry_name(bytes: &[u8], name_start: usize, flags: u16) -> Result<&[u8], IndexError> {
    let cut_short = IndexError::Corrupt("cut short");
    let stated = usize::from(flags & NAME_MASK);
    if stated < usize::from(NAME_MASK) {
        return match bytes.get(name_start..=name_start + stated) {
            Some([name @ .., 0]) => Ok(name),
            Some(_) => Err(IndexError::Corrupt(
                "a path's length disagrees with its flags",
            )),
            None => Err(cut_short),
        };
    }
    let rest = bytes.get(name_start..).ok_or(cut_short)?;
    let len = rest.iter().position(|&b| b == 0).ok_or(cut_short)?;
    Ok(&rest[..len])
}

/// Checks the checksum that ends `index` (`hash_len` bytes: SHA-1 or SHA-256 of
/// all before it), as git's `verify_hdr` does when asked to (`git fsck`): all
/// zeros is no checksum (`index.skipHash`, which `feature.manyFiles` turns on).
fn check_sum(index: &[u8], hash_len: usize) -> Result<(), IndexError> {
    let Some(content_len) = index.len().checked_sub(hash_len).filter(|&len| len >= 12) else {
        return Err(IndexError::Corrupt("cut short"));
    };
    let (content, stated) = index.split_at(content_len);
    if stated.iter().all(|&b| b == 0) {
        return Ok(());
    }
    let same = match hash_len {
        32 => super::sha::sha256(content) == stated,
        _ => super::sha::sha1(content) == stated,
    };
    match same {
        true => Ok(()),
        false => Err(IndexError::Checksum),
    }
}

/// The path of the version 2 or 3 entry whose flags are at `at` in the index
/// `bytes`, checked when the index was read; empty, never a panic, should it not
/// be one. Read a dozen times a lookup, so read directly: through `Input` a
/// lookup cost 1,100 instructions (issue 39).
fn name_at(bytes: &[u8], at: u32) -> &[u8] {
    let at = at as usize;
    let Some(&[high, low]) = bytes.get(at..at + 2) else {
        return b"";
    };
    let flags = u16::from_be_bytes([high, low]);
    let start = at + if flags & EXTENDED != 0 { 4 } else { 2 };
    let stated = usize::from(flags & NAME_MASK);
    let name = if stated < usize::from(NAME_MASK) {
        bytes.get(start..start + stated)
    } else {
        let rest = bytes.get(start..).unwrap_or_default();
        rest.iter().position(|&b| b == 0).map(|len| &rest[..len])
    };
    name.unwrap_or_default()
}

impl OwnedPaths {
    /// Reads the version 4 entries from `input` (past the header).
    fn parse_v4(
        mut input: Input<'_>,
        count: usize,
        entries: usize,
        hash_len: usize,
    ) -> Result<OwnedPaths, IndexError> {
        let mut paths = OwnedPaths {
            bytes: Vec::with_capacity(entries * 24),
            ends: Vec::with_capacity(entries),
        };
        // Path ends are kept as u32: past that, or past what an index of this size
        // can honestly hold, it is no index.
        let most = input
            .bytes
            .len()
            .saturating_mul(MOST_PATH_BYTES_PER_BYTE)
            .min(u32::MAX as usize);
        let mut previous: Vec<u8> = Vec::new();
        let mut in_order = true;
        for _ in 0..count {
            input.take(STAT_BYTES + hash_len)?;
            let flags = input.u16()?;
            if flags & EXTENDED != 0 {
                input.u16()?;
            }
            let strip = input.varint()?;
            let keep = previous
                .len()
                .checked_sub(strip)
                .ok_or(IndexError::Corrupt("a path strips more than the previous"))?;
            previous.truncate(keep);
            previous.extend_from_slice(input.until_nul()?);
            paths.check_room(previous.len(), most)?;
            in_order &= paths.push(&previous);
        }
        if input.bytes[input.at..].starts_with(b"link") {
            return Err(IndexError::Split);
        }
        if !in_order {
            paths.sort();
        }
        Ok(paths)
    }

    /// Refuses a path of `len` bytes that would take the paths past `most` bytes.
    fn check_room(&self, len: usize, most: usize) -> Result<(), IndexError> {
        match self.bytes.len().checked_add(len) {
            Some(total) if total <= most => Ok(()),
            _ => Err(IndexError::Corrupt(
                "its paths add up to more than such an index can hold",
            )),
        }
    }

    /// Adds `path`; false when it sorts before the previous one (an index not in
    /// git's order, to be sorted once read).
    fn push(&mut self, path: &[u8]) -> bool {
        let mut in_order = true;
        if let Some(last) = self.ends.len().checked_sub(1) {
            match self.path(last).cmp(path) {
                std::cmp::Ordering::Less => {}
                // Conflicted paths are listed once per stage, one after another.
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Greater => in_order = false,
            }
        }
        self.bytes.extend_from_slice(path);
        self.ends.push(self.bytes.len() as u32);
        in_order
    }

    fn path(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    fn sort(&mut self) {
        let mut paths: Vec<Vec<u8>> = (0..self.ends.len())
            .map(|i| self.path(i).to_vec())
            .collect();
        paths.sort();
        paths.dedup();
        *self = OwnedPaths::default();
        for path in paths {
            self.push(&path);
        }
    }

    /// The first path not less than `key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        let (mut low, mut high) = (0, self.ends.len());
        while low < high {
            let mid = (low + high) / 2;
            if self.path(mid) < key {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }
}

/// A cursor over the index's bytes whose every read fails cleanly past the end.
struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Input<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], IndexError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let end = end.ok_or(IndexError::Corrupt("cut short"))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn u32(&mut self) -> Result<u32, IndexError> {
        let bytes = self.take(4)?;
        Ok(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn u16(&mut self) -> Result<u16, IndexError> {
        let bytes = self.take(2)?;
        Ok(u16::from_be_bytes([bytes[0], bytes[1]]))
    }

    fn until_nul(&mut self) -> Result<&'a [u8], IndexError> {
        let rest = &self.bytes[self.at..];
        let len = (rest.iter().position(|&b| b == 0)).ok_or(IndexError::Corrupt("cut short"))?;
        self.at += len + 1;
        Ok(&rest[..len])
    }

    /// Git's offset varint (`varint.c`): seven bits a byte, most significant first,
    /// each continuation adding one so that no value has two spellings.
    fn varint(&mut self) -> Result<usize, IndexError> {
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .map(|v| v | usize::from(byte & 0x7f))
                .ok_or(IndexError::Corrupt("a prefix length overflows"))?;
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    trait Iter {
        /// Every path, in order.
        fn iter(&self) -> impl Iterator<Item = &[u8]>;
    }

    impl Iter for TrackedPaths {
        fn iter(&self) -> impl Iterator<Item = &[u8]> {
            let mut all = Vec::new();
            let mut key: Vec<u8> = Vec::new();
            // By lookups, so that the tests check them too: each path is the first one
            // not less than the previous with a NUL added.
            while let Some(path) = self.lower_bound(&key) {
                all.push(path);
                key = [path, b"\0"].concat();
            }
            all.into_iter()
        }
    }

    /// An index of `version` holding `paths` in the given order, as git writes one.
    fn index(version: u32, paths: &[&[u8]]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend_from_slice(&version.to_be_bytes());
        out.extend_from_slice(&(paths.len() as u32).to_be_bytes());
        let mut previous: &[u8] = b"";
        for path in paths {
            let start = out.len();
            out.extend_from_slice(&[0; STAT_BYTES + 20]);
            out.extend_from_slice(&(path.len().min(0xfff) as u16).to_be_bytes());
            if version == 4 {
                let common = previous
                    .iter()
                    .zip(*path)
                    .take_while(|(a, b)| a == b)
                    .count();
                let strip = previous.len() - common;
                assert!(strip < 128, "one-byte varints in these tests");
                out.push(strip as u8);
                out.extend_from_slice(&path[common..]);
                out.push(0);
            } else {
                out.extend_from_slice(path);
                out.push(0);
                while (out.len() - start) % 8 != 0 {
                    out.push(0);
                }
            }
            previous = path;
        }
        out.extend_from_slice(&[0; 20]);
        resum(&mut out, 20);
        out
    }

    /// Writes the checksum at the end of `index` (`hash_len` bytes) anew.
    fn resum(index: &mut [u8], hash_len: usize) {
        let (content, sum) = index.split_at_mut(index.len() - hash_len);
        match hash_len {
            32 => sum.copy_from_slice(&super::super::sha::sha256(content)),
            _ => sum.copy_from_slice(&super::super::sha::sha1(content)),
        }
    }

    /// Issue 47: an index written while it was read (a byte changed, the same
    /// size) is refused, not misread; a checksum of zeros (`index.skipHash`) is
    /// none; a SHA-256 repository's index ends with a SHA-256.
    #[test]
    fn the_checksum_is_checked_as_git_checks_it() {
        let good = index(2, &[b"one", b"two"]);
        let at = good.windows(3).position(|w| w == b"two").unwrap();
        let mut torn = good.clone();
        torn[at] = b'T';
        assert_eq!(
            TrackedPaths::parse(torn.clone(), 20).unwrap_err(),
            IndexError::Checksum
        );
        let len = torn.len();
        torn[len - 20..].fill(0);
        let read = TrackedPaths::parse(torn, 20).unwrap();
        assert!(read.contains(b"Two"));
        // SHA-256: object ids of 32 bytes, and the checksum.
        let mut long = b"DIRC\0\0\0\x02\0\0\0\x01".to_vec();
        long.extend_from_slice(&[0; STAT_BYTES + 32]);
        long.extend_from_slice(&[0, 1, b'a', 0, 0, 0, 0, 0]);
        long.extend_from_slice(&[0; 32]);
        resum(&mut long, 32);
        assert_eq!(TrackedPaths::parse(long.clone(), 32).unwrap().len(), 1);
        resum(&mut long, 20);
        assert_eq!(
            TrackedPaths::parse(long, 32).unwrap_err(),
            IndexError::Checksum
        );
    }

    #[test]
    fn every_version_gives_the_same_paths() {
        let paths: &[&[u8]] = &[b"a", b"dir/x", b"dir/y\xff", b"dir2/deep/z", b"z z"];
        for version in [2, 3, 4] {
            let tracked = TrackedPaths::parse(index(version, paths), 20).unwrap();
            let got: Vec<&[u8]> = tracked.iter().collect();
            assert_eq!(got, paths, "version {version}");
        }
    }

    #[test]
    fn lookups_by_path_and_by_directory() {
        let tracked = TrackedPaths::parse(index(2, &[b"a-b", b"a/c", b"ab", b"sub"]), 20).unwrap();
        assert!(tracked.contains(b"a/c") && tracked.contains(b"sub"));
        assert!(!tracked.contains(b"a") && !tracked.contains(b"a/"));
        assert!(tracked.contains_below(b"a/"));
        // "a-b" sorts before "a/" and "ab" after: neither is below "a/".
        assert!(!tracked.contains_below(b"ab/") && !tracked.contains_below(b"sub/"));
        assert!(!tracked.contains_below(b"zzz/"));
    }

    #[test]
    fn stages_of_a_conflict_count_once_and_disorder_is_sorted() {
        let tracked = TrackedPaths::parse(index(2, &[b"b", b"b", b"b", b"a"]), 20).unwrap();
        assert_eq!(tracked.iter().collect::<Vec<_>>(), [&b"a"[..], b"b"]);
        // In order, with entries padded past their NUL: each stage's padding is
        // skipped too, or the next entry is read from the wrong place.
        let paths: &[&[u8]] = &[b"a", b"bb", b"bb", b"bb", b"c/d", b"c/e"];
        for version in [2, 4] {
            let tracked = TrackedPaths::parse(index(version, paths), 20).unwrap();
            let want: &[&[u8]] = &[b"a", b"bb", b"c/d", b"c/e"];
            assert_eq!(tracked.iter().collect::<Vec<_>>(), want, "{version}");
        }
    }

    #[test]
    fn a_path_longer_than_its_flags_can_say_is_read_to_its_nul() {
        let long = [b'x'; 5000];
        let longer = [&long[..], b"y"].concat();
        let paths: &[&[u8]] = &[b"a", &long, &longer];
        for version in [2, 4] {
            let tracked = TrackedPaths::parse(index(version, paths), 20).unwrap();
            assert_eq!(tracked.iter().collect::<Vec<_>>(), paths, "{version}");
        }
    }

    #[test]
    fn damage_is_an_error_never_a_panic() {
        for version in [2, 4] {
            let good = index(version, &[b"one", b"one/two", b"three"]);
            assert!(TrackedPaths::parse(good.clone(), 20).is_ok());
            for len in 0..good.len() - 20 {
                assert!(
                    TrackedPaths::parse(good[..len].to_vec(), 20).is_err(),
                    "version {version} cut at {len}"
                );
            }
        }
        let good = index(4, &[b"one", b"one/two", b"three"]);
        let mut bad = good.clone();
        bad[7] = 9;
        resum(&mut bad, 20);
        assert_eq!(
            TrackedPaths::parse(bad, 20).unwrap_err(),
            IndexError::Version(9)
        );
        assert!(matches!(
            TrackedPaths::parse(b"PACK\0\0\0\x02\0\0\0\0", 20),
            Err(IndexError::Corrupt(_))
        ));
        // A huge count with no entries behind it.
        let mut huge = index(2, &[]);
        huge[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        resum(&mut huge, 20);
        assert!(TrackedPaths::parse(huge, 20).is_err());
        // A count of 2^32 - 1 with one entry behind it: no gigabytes reserved.
        let mut overstated = index(2, &[b"a"]);
        overstated[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        resum(&mut overstated, 20);
        assert!(TrackedPaths::parse(overstated, 20).is_err());
        let mut split = index(2, &[b"a"]);
        let at = split.len() - 20;
        split.splice(at..at, b"link\0\0\0\0".iter().copied());
        resum(&mut split, 20);
        assert_eq!(
            TrackedPaths::parse(split, 20).unwrap_err(),
            IndexError::Split
        );
    }

    /// Issue 38, item 7: a version 4 index whose every path repeats the one before
    /// and adds a byte expands to the square of its entries; 3.7 MB of it passed
    /// 4 GiB and the u32 path ends wrapped (a panic). Refused once the paths pass 64
    /// bytes for each byte of the index: here 20,000 entries of 64 bytes (1.3 MB)
    /// would expand to 200 MB.
    #[test]
    fn paths_that_expand_past_the_file_are_refused() {
        let mut crafted = b"DIRC".to_vec();
        crafted.extend_from_slice(&4u32.to_be_bytes());
        let entries: u32 = 20_000;
        crafted.extend_from_slice(&entries.to_be_bytes());
        for _ in 0..entries {
            crafted.extend_from_slice(&[0; STAT_BYTES + 20]);
            crafted.extend_from_slice(&[0x0f, 0xff]); // flags: a long name
            crafted.extend_from_slice(&[0, b'a', 0]); // strip nothing, add "a"
        }
        crafted.extend_from_slice(&[0; 20]);
        // `.err()`: an index read whole would print 200 MB of paths.
        assert_eq!(
            TrackedPaths::parse(crafted, 20).err(),
            Some(IndexError::Corrupt(
                "its paths add up to more than such an index can hold"
            ))
        );
        // A real version 4 index is read as before.
        let real = index(4, &[b"a", b"ab", b"abc/d"]);
        assert_eq!(TrackedPaths::parse(real, 20).unwrap().len(), 3);
    }
}
