//! The paths git tracks, read from a repository's index (`.git/index`): what makes
//! a file that an ignore rule matches still part of git's answer (`git add -f`).
//!
//! Only the paths are read. The index's format is documented by git
//! (`Documentation/gitformat-index.txt`): a 12-byte header (`DIRC`, version 2, 3 or
//! 4, entry count), then the entries in path order, each a fixed part of stat data,
//! an object id (20 bytes for SHA-1, 32 for SHA-256) and flags, then its path: in
//! versions 2 and 3 NUL-terminated and padded to a multiple of eight bytes, in
//! version 4 prefix-compressed against the previous path. Extensions and the
//! trailing checksum are not read: nothing in them changes which paths are tracked,
//! except a split index (`link`), which is reported as not read.
//!
//! A hand-written reader rather than `gix-index`: it needs no stat data, no
//! extension, no checksum and none of the object crates `gix-index` brings, and it is
//! checked against `git ls-files` itself (tests/ignore.rs).

use std::fmt;

/// The tracked paths of one index, sorted as bytes, each once.
#[derive(Debug, Default)]
pub struct TrackedPaths {
    /// Every path, one after another.
    bytes: Vec<u8>,
    /// Where each path ends in `bytes`; path `i` starts where `i - 1` ends.
    ends: Vec<u32>,
}

/// Why an index could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum IndexError {
    /// Not an index, or cut short: the reason.
    Corrupt(&'static str),
    /// A version this reader does not know.
    Version(u32),
    /// A split index (`core.splitIndex`): most paths live in a shared file.
    Split,
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Corrupt(why) => write!(f, "not a valid git index ({why})"),
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
    /// Reads the paths of the index `bytes`, whose object ids are `hash_len` bytes.
    pub fn parse(bytes: &[u8], hash_len: usize) -> Result<TrackedPaths, IndexError> {
        let mut input = Input { bytes, at: 0 };
        if input.take(4)? != b"DIRC" {
            return Err(IndexError::Corrupt("no DIRC signature"));
        }
        let version = input.u32()?;
        if !(2..=4).contains(&version) {
            return Err(IndexError::Version(version));
        }
        let count = input.u32()? as usize;
        // Sized by what the file can hold, not by the count it states: a count of
        // 2^32 - 1 in a small file reserved gigabytes.
        let entries = count.min(bytes.len() / (STAT_BYTES + hash_len + 2));
        let mut paths = TrackedPaths {
            bytes: Vec::with_capacity(entries * 24),
            ends: Vec::with_capacity(entries),
        };
        // Path ends are kept as u32: past that, or past what an index of this size
        // can honestly hold, it is no index.
        let most = bytes
            .len()
            .saturating_mul(MOST_PATH_BYTES_PER_BYTE)
            .min(u32::MAX as usize);
        let mut previous: Vec<u8> = Vec::new();
        let mut in_order = true;
        for _ in 0..count {
            let start = input.at;
            input.take(STAT_BYTES + hash_len)?;
            let flags = input.u16()?;
            if flags & EXTENDED != 0 {
                if version < 3 {
                    return Err(IndexError::Corrupt("extended flags in a version 2 index"));
                }
                input.u16()?;
            }
            if version == 4 {
                let strip = input.varint()?;
                let keep = previous
                    .len()
                    .checked_sub(strip)
                    .ok_or(IndexError::Corrupt("a path strips more than the previous"))?;
                previous.truncate(keep);
                previous.extend_from_slice(input.until_nul()?);
                paths.check_room(previous.len(), most)?;
                in_order &= paths.push(&previous);
            } else {
                // The flags hold the length of all but the longest paths: no scan.
                let stated = usize::from(flags & NAME_MASK);
                let name = if stated == usize::from(NAME_MASK) {
                    input.until_nul()?
                } else {
                    let name = input.take(stated)?;
                    if input.take(1)? != [0] {
                        return Err(IndexError::Corrupt(
                            "a path's length disagrees with its flags",
                        ));
                    }
                    name
                };
                paths.check_room(name.len(), most)?;
                in_order &= paths.push(name);
                // The entry, NUL included, is padded with NULs to a multiple of 8.
                let used = input.at - start;
                let padded = (used + 7) & !7;
                input.take(padded - used)?;
            }
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
        if !self.is_empty() {
            match self.path(self.len() - 1).cmp(path) {
                std::cmp::Ordering::Less => {}
                // Conflicted paths are listed once per stage, one after another.
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Greater => {
                    self.bytes.extend_from_slice(path);
                    self.ends.push(self.bytes.len() as u32);
                    return false;
                }
            }
        }
        self.bytes.extend_from_slice(path);
        self.ends.push(self.bytes.len() as u32);
        true
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn path(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// Git writes the entries sorted; an index that is not is sorted here rather than
    /// trusted, since every lookup is a binary search.
    fn sort(&mut self) {
        let mut paths: Vec<Vec<u8>> = (0..self.len()).map(|i| self.path(i).to_vec()).collect();
        paths.sort();
        paths.dedup();
        *self = TrackedPaths::default();
        for path in paths {
            self.push(&path);
        }
    }

    /// The first path not less than `key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        let (mut low, mut high) = (0, self.len());
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

    /// True when `path` (below the work tree's top) is tracked: a file, a link, or
    /// a submodule.
    pub fn contains(&self, path: &[u8]) -> bool {
        let at = self.lower_bound(path);
        at < self.len() && self.path(at) == path
    }

    /// True when some tracked path lies below the directory `dir`, given with its
    /// trailing `/`: all such paths sort together, right at or after `dir`.
    pub fn contains_below(&self, dir: &[u8]) -> bool {
        let at = self.lower_bound(dir);
        at < self.len() && self.path(at).starts_with(dir)
    }

    /// Every path, in order.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|i| self.path(i))
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
        out.extend_from_slice(&[0; 20]); // the checksum, not read
        out
    }

    #[test]
    fn every_version_gives_the_same_paths() {
        let paths: &[&[u8]] = &[b"a", b"dir/x", b"dir/y\xff", b"dir2/deep/z", b"z z"];
        for version in [2, 3, 4] {
            let tracked = TrackedPaths::parse(&index(version, paths), 20).unwrap();
            let got: Vec<&[u8]> = tracked.iter().collect();
            assert_eq!(got, paths, "version {version}");
        }
    }

    #[test]
    fn lookups_by_path_and_by_directory() {
        let tracked = TrackedPaths::parse(&index(2, &[b"a-b", b"a/c", b"ab", b"sub"]), 20).unwrap();
        assert!(tracked.contains(b"a/c") && tracked.contains(b"sub"));
        assert!(!tracked.contains(b"a") && !tracked.contains(b"a/"));
        assert!(tracked.contains_below(b"a/"));
        // "a-b" sorts before "a/" and "ab" after: neither is below "a/".
        assert!(!tracked.contains_below(b"ab/") && !tracked.contains_below(b"sub/"));
        assert!(!tracked.contains_below(b"zzz/"));
    }

    #[test]
    fn stages_of_a_conflict_count_once_and_disorder_is_sorted() {
        let tracked = TrackedPaths::parse(&index(2, &[b"b", b"b", b"b", b"a"]), 20).unwrap();
        assert_eq!(tracked.iter().collect::<Vec<_>>(), [&b"a"[..], b"b"]);
    }

    #[test]
    fn damage_is_an_error_never_a_panic() {
        let good = index(4, &[b"one", b"one/two", b"three"]);
        assert!(TrackedPaths::parse(&good, 20).is_ok());
        for len in 0..good.len() - 20 {
            assert!(
                TrackedPaths::parse(&good[..len], 20).is_err(),
                "cut at {len}"
            );
        }
        let mut bad = good.clone();
        bad[7] = 9;
        assert_eq!(
            TrackedPaths::parse(&bad, 20).unwrap_err(),
            IndexError::Version(9)
        );
        assert!(matches!(
            TrackedPaths::parse(b"PACK\0\0\0\x02\0\0\0\0", 20),
            Err(IndexError::Corrupt(_))
        ));
        // A huge count with no entries behind it.
        let mut huge = index(2, &[]);
        huge[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(TrackedPaths::parse(&huge, 20).is_err());
        // A count of 2^32 - 1 with one entry behind it: no gigabytes reserved.
        let mut overstated = index(2, &[b"a"]);
        overstated[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(TrackedPaths::parse(&overstated, 20).is_err());
        let mut split = index(2, &[b"a"]);
        let at = split.len() - 20;
        split.splice(at..at, b"link\0\0\0\0".iter().copied());
        assert_eq!(
            TrackedPaths::parse(&split, 20).unwrap_err(),
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
            TrackedPaths::parse(&crafted, 20).err(),
            Some(IndexError::Corrupt(
                "its paths add up to more than such an index can hold"
            ))
        );
        // A real version 4 index is read as before.
        let real = index(4, &[b"a", b"ab", b"abc/d"]);
        assert_eq!(TrackedPaths::parse(&real, 20).unwrap().len(), 3);
    }
}
