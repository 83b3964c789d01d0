//! The index file's bytes: how a directory's record is laid out, how a whole file
//! is put together and checked, and the two hashes (a directory's key from its
//! path, the file's checksum). Pure functions on byte slices; reading and writing
//! files is `store.rs`'s.
//!
//! A file is, little-endian throughout:
//!
//! ```text
//! header   magic "PFINDIX1" | checksum u64 | version u32 | uid u32 | written s i64
//!          | root (dev u64, ino u64) | root path length u32 | record count u32
//! root     the canonical root path's bytes
//! table    count × (key u64, offset u32), sorted by key: searched in place
//! records  count × record (below), at the offsets the table gives, in the
//!          order of a walk (parents before children)
//! ```
//!
//! The checksum covers every byte after its own field: XXH3 of them in a file of
//! at most a part (`checksum::SUMMED_PART`, 1 MiB) after the field, else XXH3 of the
//! parts' own XXH3 sums (little-endian, in order), which two threads can take
//! half each. A record is one directory:
//!
//! ```text
//! key u64 | dev u64 | ino u64 | mtime s i64 | ctime s i64 | mtime ns u32 | ctime ns u32
//! | flags u32 | entries u32 | names length u32 | branches u32
//! | kinds (one byte an entry) | lengths (one byte an entry: a name is at most 255
//! bytes) | names (each followed by a NUL) | children (u32 a branch)
//! ```
//!
//! A branch is an entry that may lead to a directory (a directory, a link, an
//! entry of unknown kind); its child is the offset of its own record in the file, 0
//! if it has none. A walk hands each subdirectory the offset its parent's record
//! gives, and finds its record there: no key to hash, no table to search (the two
//! were a third of `--index-trust`'s profile on `/usr`). The table is for roots,
//! and for directories whose parent was listed again.
//!
//! The lengths let a reader step from name to name without looking for the NULs
//! (on `/usr`, finding them byte by byte was a sixth of `--index-trust`'s
//! instructions); the NULs are kept for the `*at` calls that take a C string.
//!
//! A key is FNV-1a over the directory's path below the indexed root with a `/`
//! after each name (`""` for the root, `"src/"`, `"src/walker/"`), so a child's
//! key follows from its parent's and its name without the path being stored.

use super::checksum::{checksum, checksum_on, PartSums};
use crate::os::dirent::EntryKind;
use crate::os::stat::{Fields, Stat, TimeField};
use crate::os::whole_file::WholeFile;

pub const MAGIC: &[u8; 8] = b"PFINDIX1";
/// 2: records in a walk's order with their children's offsets; 3: the checksum
/// is XXH3 (2 had four lanes of a multiply and a shift, 1 one); 4: past a part,
/// XXH3 of the parts' sums (`index::checksum`).
pub const VERSION: u32 = 4;
pub const HEADER_LEN: usize = 8 + 8 + 4 + 4 + 8 + 16 + 4 + 4;
pub const RECORD_FIXED: usize = 8 * 5 + 4 * 6;
/// Where a record's stamps and flags are (after its key), and where its counts
/// begin (entries, names length, branches): what `Parsed::patched` writes over,
/// and what it compares.
const STAMPS_AT: usize = 8;
const COUNTS_AT: usize = 52;
const TABLE_ROW: usize = 12;

/// A record's flag: its stamps were too recent when it was listed (the racy
/// case): the listing may miss a change made in the same timestamp tick, so only
/// the trusted mode may use it.
pub const FLAG_RACY: u32 = 1;

/// The key of the root's own record.
pub const ROOT_KEY: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, continued from `state` over `bytes`: a directory's key is its parent's
/// continued over its name and a `/`.
pub fn key_after(mut state: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        state ^= u64::from(b);
        state = state.wrapping_mul(0x0000_0100_0000_01b3);
    }
    state
}

/// The key of the child `name` of the directory whose key is `parent`.
pub fn child_key(parent: u64, name: &[u8]) -> u64 {
    key_after(key_after(parent, name), b"/")
}

/// Hash maps keyed by a directory's key, which is a hash already: used as it is
/// (SipHash over it again was most of the building run's own time in maps).
pub type KeyMap<V> = std::collections::HashMap<u64, V, KeyHash>;
pub type KeySet = std::collections::HashSet<u64, KeyHash>;

#[derive(Clone, Copy, Default)]
pub struct KeyHash;

impl std::hash::BuildHasher for KeyHash {
    type Hasher = KeyHasher;

    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}

/// The key itself (see [`KeyMap`]).
#[derive(Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed; anything else is folded in, not lost.
        self.0 = key_after(self.0, bytes);
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// A time as a `stat` gives it: seconds and nanoseconds since the epoch.
pub type Time = (i64, u32);

/// `t` as a `stat` gives a time; the epoch itself for a time before it.
pub fn unix_time(t: std::time::SystemTime) -> Time {
    t.duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or((0, 0), |d| (d.as_secs() as i64, d.subsec_nanos()))
}

/// A directory's stat data as recorded and as checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stamps {
    pub dev: u64,
    pub ino: u64,
    pub mtime: (i64, u32),
    pub ctime: (i64, u32),
}

impl Stamps {
    /// The fields of a `stat` that [`Stamps::of`] reads (and the type).
    pub const FIELDS: Fields = Fields::TYPE
        .with(Fields::ID)
        .with(Fields::MTIME)
        .with(Fields::CTIME);

    pub fn of(stat: &Stat) -> Stamps {
        let (dev, ino) = stat.id();
        let time = |field| stat.time(field).unwrap_or_default();
        Stamps {
            dev,
            ino,
            mtime: time(TimeField::Modified),
            ctime: time(TimeField::Changed),
        }
    }

    /// True when either time is at or after `margin_from`: a change in the same
    /// tick as the listing could have left the stamps as they are (git's racy
    /// case; `racy-git.txt`).
    pub fn racy(&self, margin_from: (i64, u32)) -> bool {
        self.mtime >= margin_from || self.ctime >= margin_from
    }
}

pub fn kind_byte(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::File => 0,
        EntryKind::Dir => 1,
        EntryKind::Symlink => 2,
        EntryKind::Fifo => 3,
        EntryKind::Socket => 4,
        EntryKind::CharDevice => 5,
        EntryKind::BlockDevice => 6,
        EntryKind::Other => 7,
        EntryKind::Unknown => 8,
    }
}

/// True for a kind whose entry may lead to a directory: one that has a child
/// offset in its record (see the module comment).
pub fn is_branch(byte: u8) -> bool {
    matches!(byte, 1 | 2 | 8)
}

pub fn kind_of(byte: u8) -> EntryKind {
    match byte {
        0 => EntryKind::File,
        1 => EntryKind::Dir,
        2 => EntryKind::Symlink,
        3 => EntryKind::Fifo,
        4 => EntryKind::Socket,
        5 => EntryKind::CharDevice,
        6 => EntryKind::BlockDevice,
        7 => EntryKind::Other,
        // Asked again with `lstat`: never a kind it is not.
        _ => EntryKind::Unknown,
    }
}

/// Appends one record to `out`: `kinds` one byte an entry ([`kind_byte`]), `lens`
/// each name's length without its NUL, one byte an entry, `names` each name and
/// its NUL, back to back in one part or several (a giant directory's pieces, in
/// order). Fewer lengths than kinds (a name longer than 255 bytes, which none
/// is on any filesystem pfind trusts) make the record hold no entries and be
/// racy, so that it is listed again.
pub fn put_record<'n, Names>(
    out: &mut Vec<u8>,
    key: u64,
    stamps: &Stamps,
    flags: u32,
    (kinds, lens): (&[u8], &[u8]),
    names: Names,
) where
    Names: IntoIterator<Item = &'n [u8]>,
    Names::IntoIter: Clone,
{
    let whole = lens.len() == kinds.len();
    let (flags, kinds, lens) = match whole {
        true => (flags, kinds, lens),
        false => (flags | FLAG_RACY, &[][..], &[][..]),
    };
    let names = names.into_iter().filter(|_| whole);
    let names_len: usize = names.clone().map(<[u8]>::len).sum();
    let branches = kinds.iter().filter(|&&kind| is_branch(kind)).count();
    // Room for it all at once: a million-entry directory's record grew through
    // a dozen reallocations.
    let capacity = out.capacity();
    out.reserve(RECORD_FIXED + kinds.len() + lens.len() + names_len + 4 * branches);
    if out.capacity() != capacity {
        crate::os::huge_pages::under(out);
    }
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&stamps.dev.to_le_bytes());
    out.extend_from_slice(&stamps.ino.to_le_bytes());
    out.extend_from_slice(&stamps.mtime.0.to_le_bytes());
    out.extend_from_slice(&stamps.ctime.0.to_le_bytes());
    out.extend_from_slice(&stamps.mtime.1.to_le_bytes());
    out.extend_from_slice(&stamps.ctime.1.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&(kinds.len() as u32).to_le_bytes());
    out.extend_from_slice(&(names_len as u32).to_le_bytes());
    out.extend_from_slice(&(branches as u32).to_le_bytes());
    out.extend_from_slice(kinds);
    out.extend_from_slice(lens);
    for part in names {
        out.extend_from_slice(part);
    }
    // Filled in by `put_file`, which knows where the children's records go.
    out.resize(out.len() + 4 * branches, 0);
}

/// One record, borrowed from the bytes it was read from.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    pub key: u64,
    pub stamps: Stamps,
    pub flags: u32,
    pub kinds: &'a [u8],
    /// Each name's length, without its NUL.
    pub lens: &'a [u8],
    /// Each name followed by its NUL, as many as `kinds`.
    pub names: &'a [u8],
    /// Each branch's child offset (u32), in the order of the branches.
    children: &'a [u8],
}

impl<'a> Record<'a> {
    /// The record at the start of `bytes`, and its length; `None` if it does not
    /// fit or its names are not as many as its kinds (a file this code did not
    /// write: never trusted, never a panic).
    pub fn parse(bytes: &'a [u8]) -> Option<(Record<'a>, usize)> {
        let fixed = bytes.get(..RECORD_FIXED)?;
        let u64_at = |at: usize| u64::from_le_bytes(fixed[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(fixed[at..at + 4].try_into().unwrap());
        let count = u32_at(COUNTS_AT) as usize;
        let names_len = u32_at(COUNTS_AT + 4) as usize;
        let branches = u32_at(COUNTS_AT + 8) as usize;
        let names_start = RECORD_FIXED.checked_add(count.checked_mul(2)?)?;
        let names_end = names_start.checked_add(names_len)?;
        let end = names_end.checked_add(branches.checked_mul(4)?)?;
        let kinds = bytes.get(RECORD_FIXED..RECORD_FIXED + count)?;
        let lens = bytes.get(RECORD_FIXED + count..names_start)?;
        let names = bytes.get(names_start..names_end)?;
        let children = bytes.get(names_end..end)?;
        // The names are where the lengths say (each NUL is checked as it is read).
        if names_total(lens) != Some(names_len) {
            return None;
        }
        let record = Record {
            key: u64_at(0),
            stamps: Stamps {
                dev: u64_at(8),
                ino: u64_at(16),
                mtime: (u64_at(24) as i64, u32_at(40)),
                ctime: (u64_at(32) as i64, u32_at(44)),
            },
            flags: u32_at(48),
            kinds,
            lens,
            names,
            children,
        };
        Some((record, end))
    }

    /// True when every entry is a regular file (no branch, nothing of unknown kind).
    /// Each block is folded whole, which the compiler does sixteen or more bytes at
    /// a time (a test of each byte that stops at the first other one cannot be).
    pub fn files_only(&self) -> bool {
        let file = kind_byte(EntryKind::File);
        self.kinds
            .chunks(256)
            .all(|block| block.iter().fold(0, |seen, &kind| seen | (kind ^ file)) == 0)
    }

    /// True when no entry is a directory or of unknown kind: nothing in it leads
    /// further down without a `stat` (a leaf, `walker::unopened::visit_leaves`).
    /// Folded without stopping early, which the compiler does many at a time.
    pub fn is_leaf(&self) -> bool {
        let dir = kind_byte(EntryKind::Dir);
        let unknown = kind_byte(EntryKind::Unknown);
        !(self.kinds.iter()).fold(false, |any, &kind| any | (kind == dir) | (kind == unknown))
    }

    /// Each entry's name with its NUL, and its kind; it stops at a name whose NUL
    /// is not where its length says (a file this code did not write).
    pub fn entries(&self) -> impl Iterator<Item = (&'a [u8], EntryKind)> + 'a {
        self.entries_with_children()
            .map(|(name, kind, _)| (name, kind))
    }

    /// As [`Self::entries`], with each entry's child offset (0 for an entry that
    /// is no branch, or whose child has no record).
    pub fn entries_with_children(&self) -> RecordEntries<'a> {
        RecordEntries {
            kinds: self.kinds,
            lens: self.lens,
            names: self.names,
            children: self.children,
        }
    }
}

/// The bytes of the names whose lengths (without their NULs) are `lens`: each
/// length and one, summed in blocks whose sum fits a `u32` (255 * 65,536), which the
/// compiler adds many at a time. `None` past `usize`.
fn names_total(lens: &[u8]) -> Option<usize> {
    lens.chunks(1 << 16).try_fold(lens.len(), |total, block| {
        let block: u32 = block.iter().map(|&len| u32::from(len)).sum();
        total.checked_add(block as usize)
    })
}

/// The entries of a [`Record`], each as its name with its NUL, its kind and its
/// child offset. A loop of its own, each slice stepped past what was taken:
/// written as zipped iterators with a running offset it was a third of
/// `--index-trust -e conf`'s instructions on `/usr` (callgrind, `-j1`).
pub struct RecordEntries<'a> {
    kinds: &'a [u8],
    lens: &'a [u8],
    names: &'a [u8],
    children: &'a [u8],
}

impl<'a> Iterator for RecordEntries<'a> {
    type Item = (&'a [u8], EntryKind, u32);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (&kind, kinds) = self.kinds.split_first()?;
        let (&len, lens) = self.lens.split_first()?;
        let len = usize::from(len);
        if self.names.get(len) != Some(&0) {
            return None;
        }
        let (name, names) = self.names.split_at(len + 1);
        let mut child = 0;
        if is_branch(kind) {
            if let Some((slot, children)) = self.children.split_first_chunk::<4>() {
                child = u32::from_le_bytes(*slot);
                self.children = children;
            }
        }
        self.kinds = kinds;
        self.lens = lens;
        self.names = names;
        Some((name, kind_of(kind), child))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.kinds.len()))
    }
}

/// What a file's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub uid: u32,
    /// When the file was written (seconds since the epoch).
    pub written: i64,
    /// The indexed root's (device, inode) when it was written.
    pub root_id: (u64, u64),
    pub root: Vec<u8>,
}

/// Why a file's bytes are not an index this code can use.
#[derive(Debug, PartialEq, Eq)]
pub enum Unusable {
    Truncated,
    NotAnIndex,
    Version(u32),
    Checksum,
}

impl Unusable {
    pub fn words(&self) -> String {
        match self {
            Unusable::Truncated => "truncated".to_owned(),
            Unusable::NotAnIndex => "not a pfind index".to_owned(),
            Unusable::Version(v) => format!("written by another version of pfind ({v})"),
            Unusable::Checksum => "corrupt (checksum mismatch)".to_owned(),
        }
    }
}

/// A whole file put together: `records` are whole records ([`put_record`]), at
/// most one per key. They are written in the order given (the caller's is a walk's
/// order, parents before children), so that a walk that reads them finds the next
/// one near the last rather than a cache miss away: written in key order (random),
/// the first read of each record was 4.8% of a repeat's profile. The table is in
/// key order, for the search. `None` when two records have one key (a caller
/// that has not made them unique).
pub fn put_file(header: &Header, records: &[&[u8]]) -> Option<WholeFile> {
    let (head, at_key) = lay_out(header, records)?;
    let len = head.len() + records.iter().map(|record| record.len()).sum::<usize>();
    // Written in place, in memory asked for in huge pages: a growing `Vec` took
    // a page fault every 4 KiB of a file written again on every repeat that
    // found a change.
    let mut out = WholeFile::zeroed(len);
    out[..head.len()].copy_from_slice(&head);
    let mut start = head.len();
    let mut offsets = Vec::new();
    for record in records {
        out[start..start + record.len()].copy_from_slice(record);
        link_children(&mut out[start..start + record.len()], &at_key, &mut offsets);
        start += record.len();
    }
    let sum = checksum(&out[16..]);
    out[8..16].copy_from_slice(&sum.to_le_bytes());
    Some(out)
}

/// The start of a file whose records are `records`, in that order (see
/// [`put_file`]): its header and its table, the checksum left as zeros (see
/// [`seal`]); and where each record's key puts it, for [`link_children`].
/// `None` when two records have one key.
pub fn lay_out(header: &Header, records: &[&[u8]]) -> Option<(Vec<u8>, KeyMap<u32>)> {
    let table_start = HEADER_LEN + header.root.len();
    let records_start = table_start + TABLE_ROW * records.len();
    let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(records.len());
    let mut offset = records_start;
    for record in records {
        keyed.push((
            u64::from_le_bytes(record[..8].try_into().unwrap()),
            offset as u32,
        ));
        offset += record.len();
    }
    keyed.sort_unstable_by_key(|&(key, _)| key);
    if keyed.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return None;
    }
    let mut head = Vec::with_capacity(records_start);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&[0; 8]);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&header.uid.to_le_bytes());
    head.extend_from_slice(&header.written.to_le_bytes());
    head.extend_from_slice(&header.root_id.0.to_le_bytes());
    head.extend_from_slice(&header.root_id.1.to_le_bytes());
    head.extend_from_slice(&(header.root.len() as u32).to_le_bytes());
    head.extend_from_slice(&(keyed.len() as u32).to_le_bytes());
    head.extend_from_slice(&header.root);
    for (key, offset) in &keyed {
        head.extend_from_slice(&key.to_le_bytes());
        head.extend_from_slice(&offset.to_le_bytes());
    }
    debug_assert_eq!(head.len(), records_start);
    Some((head, keyed.into_iter().collect()))
}

/// Writes into `head` (a file's first bytes, at least its header) the checksum
/// of all that follows the checksum's field: the rest of `head`, then `rest`, in
/// order, the parts of the file that follow it. The same sum as [`checksum`] of
/// them put together, without putting them together.
pub fn seal(head: &mut [u8], rest: &[&[u8]]) {
    let mut sum = PartSums::new();
    sum.write(&head[16..]);
    for part in rest {
        sum.write(part);
    }
    head[8..16].copy_from_slice(&sum.finish().to_le_bytes());
}

/// Writes into `record` (whole, as [`put_record`] made it) the offset of each
/// branch's record, from `at_key`; 0 where the child has none. `offsets` is the
/// caller's buffer, one for all records.
pub fn link_children(record: &mut [u8], at_key: &KeyMap<u32>, offsets: &mut Vec<u32>) {
    let Some((parsed, len)) = Record::parse(record) else {
        return;
    };
    let slots_at = len - parsed.children.len();
    offsets.clear();
    for (name, _) in parsed
        .entries()
        .zip(parsed.kinds)
        .filter(|&(_, &kind)| is_branch(kind))
    {
        let child = child_key(parsed.key, &name.0[..name.0.len() - 1]);
        offsets.push(at_key.get(&child).copied().unwrap_or(0));
    }
    for (slot, offset) in record[slots_at..len]
        .chunks_exact_mut(4)
        .zip(offsets.iter())
    {
        slot.copy_from_slice(&offset.to_le_bytes());
    }
}

/// A file's bytes, checked: its header, and the table and records it holds.
pub struct Parsed {
    pub header: Header,
    table: std::ops::Range<usize>,
    bytes: WholeFile,
    /// The threads its checksum may be summed on (`checksum::checksum_on`).
    threads: usize,
}

impl Parsed {
    pub fn new(bytes: impl Into<WholeFile>) -> Result<Parsed, Unusable> {
        Self::checked_on(bytes, 1)
    }

    /// [`Self::new`], its checksum summed on up to `threads` threads, and summed
    /// so again when [`Self::patched`].
    pub fn checked_on(bytes: impl Into<WholeFile>, threads: usize) -> Result<Parsed, Unusable> {
        let bytes = bytes.into();
        if bytes.len() < HEADER_LEN {
            return Err(if MAGIC.starts_with(&bytes[..bytes.len().min(8)]) {
                Unusable::Truncated
            } else {
                Unusable::NotAnIndex
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(Unusable::NotAnIndex);
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let version = u32_at(16);
        if version != VERSION {
            return Err(Unusable::Version(version));
        }
        let root_len = u32_at(48) as usize;
        let count = u32_at(52) as usize;
        let table_start = HEADER_LEN + root_len;
        let table_end = table_start + TABLE_ROW * count;
        if bytes.len() < table_end {
            return Err(Unusable::Truncated);
        }
        if checksum_on(&bytes[16..], threads) != u64_at(8) {
            return Err(Unusable::Checksum);
        }
        Ok(Parsed {
            header: Header {
                uid: u32_at(20),
                written: u64_at(24) as i64,
                root_id: (u64_at(32), u64_at(40)),
                root: bytes[HEADER_LEN..table_start].to_vec(),
            },
            table: table_start..table_end,
            bytes,
            threads,
        })
    }

    pub fn len(&self) -> usize {
        self.table.len() / TABLE_ROW
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    fn row(&self, i: usize) -> (u64, usize) {
        let at = self.table.start + i * TABLE_ROW;
        let row = &self.bytes[at..at + TABLE_ROW];
        (
            u64::from_le_bytes(row[..8].try_into().unwrap()),
            u32::from_le_bytes(row[8..].try_into().unwrap()) as usize,
        )
    }

    /// The record whose key is `key`, by interpolation search of the table: the
    /// keys are FNV-1a hashes, spread evenly over the 64 bits, so the row guessed
    /// from where `key` falls between the ends is within a few rows of it (two or
    /// three reads on `/usr`'s 16,000 rows, where bisection took fourteen, each a
    /// cache miss: the search was 9% of a repeat's profile). After a few guesses it
    /// bisects, so a table of clustered keys (a file this code did not write)
    /// still costs no more than a logarithm.
    pub fn find(&self, key: u64) -> Option<Record<'_>> {
        let offset = self.offset_of(key)?;
        Record::parse(self.bytes.get(offset..)?)
            .map(|(r, _)| r)
            .filter(|r| r.key == key)
    }

    /// The offset the table gives for `key` (see [`Self::find`]).
    fn offset_of(&self, key: u64) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        // The keys just outside [lo, hi): every key in it lies between them.
        let (mut below, mut above) = (0u64, u64::MAX);
        let mut guesses = 0;
        while lo < hi {
            let mid = if guesses < 4 && key >= below && above > below {
                // In 64 bits (a 128-bit division was a call, 0.9% of a repeat):
                // both distances shifted alike keep the product below 2^64.
                let shift = if above - below > u64::from(u32::MAX) {
                    32
                } else {
                    0
                };
                let span = (hi - lo) as u64;
                let at = ((key - below) >> shift) * span / (((above - below) >> shift) + 1);
                lo + (at as usize).min(hi - lo - 1)
            } else {
                lo + (hi - lo) / 2
            };
            guesses += 1;
            let (found, offset) = self.row(mid);
            if found == key {
                return Some(offset);
            }
            if found < key {
                lo = mid + 1;
                below = found;
            } else {
                hi = mid;
                above = found;
            }
        }
        None
    }

    /// The record at `offset` (a child offset another record gave), if one is
    /// there; its key is for the caller to trust (a file this code wrote, whose
    /// checksum held).
    pub fn record_at(&self, offset: u32) -> Option<Record<'_>> {
        let offset = offset as usize;
        if offset < self.table.end {
            return None;
        }
        Record::parse(self.bytes.get(offset..)?).map(|(r, _)| r)
    }

    /// The file again with `records` in it, written over these bytes, when each of
    /// `records` ([`put_record`]'s) replaces a record of its key with the same
    /// entries: a directory whose times moved while its entries stayed (a file made
    /// and removed in it, the commonest change), whose new record has the size and
    /// the children of the old one. Then only its stamps and flags, the header's
    /// uid and time, and the checksum change, and the file is not put together
    /// again (`put_file`: two thirds of a repeat's rewrite on `/usr`, where a
    /// hundredth of the directories had changed). `None`, the bytes untouched,
    /// when any record is new or has other entries, or the root is another.
    pub fn patched<'r>(
        &mut self,
        header: &Header,
        records: impl Iterator<Item = &'r [u8]> + Clone,
    ) -> Option<&[u8]> {
        if header.root_id != self.header.root_id || header.root != self.header.root {
            return None;
        }
        let mut at = Vec::new();
        for new in records.clone() {
            let (parsed, len) = Record::parse(new)?;
            let offset = self.offset_of(parsed.key)?;
            let old = self.bytes.get(offset..offset + len)?;
            // The entries' shape and names, up to the children (kept: the same
            // names lead to the same records).
            let entries = COUNTS_AT..len - parsed.children.len();
            if old[..8] != new[..8] || old[entries.clone()] != new[entries] {
                return None;
            }
            at.push(offset);
        }
        for (new, offset) in records.zip(at) {
            self.bytes[offset + STAMPS_AT..offset + COUNTS_AT]
                .copy_from_slice(&new[STAMPS_AT..COUNTS_AT]);
        }
        self.header.uid = header.uid;
        self.header.written = header.written;
        self.bytes[20..24].copy_from_slice(&header.uid.to_le_bytes());
        self.bytes[24..32].copy_from_slice(&header.written.to_le_bytes());
        let sum = checksum_on(&self.bytes[16..], self.threads);
        self.bytes[8..16].copy_from_slice(&sum.to_le_bytes());
        Some(&self.bytes)
    }

    /// Every record with its bytes, in the file's order (a walk's: read front to
    /// back, where key order jumped around the file, a cache miss a record when
    /// a repeat writes the index again); up to a malformed one, if any.
    pub fn records(&self) -> impl Iterator<Item = (Record<'_>, &[u8])> + '_ {
        let mut rest = self.bytes.get(self.table.end..).unwrap_or_default();
        std::iter::from_fn(move || {
            let (record, len) = Record::parse(rest)?;
            let (bytes, after) = rest.split_at(len);
            rest = after;
            Some((record, bytes))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamps(n: u64) -> Stamps {
        Stamps {
            dev: n,
            ino: n.wrapping_add(1),
            mtime: ((n as i64).wrapping_add(2), 3),
            ctime: ((n as i64).wrapping_add(4), 5),
        }
    }

    /// Each name's length in `names` (names and their NULs), as many as fit
    /// in a byte up to the first that does not, for `count` entries.
    fn lens(names: &[u8], count: usize) -> Vec<u8> {
        names
            .split(|&b| b == 0)
            .take(count)
            .map_while(|name| u8::try_from(name.len()).ok())
            .collect()
    }

    fn record(key: u64, entries: &[(&str, EntryKind)]) -> Vec<u8> {
        let kinds: Vec<u8> = entries.iter().map(|&(_, k)| kind_byte(k)).collect();
        let mut names = Vec::new();
        for (name, _) in entries {
            names.extend_from_slice(name.as_bytes());
            names.push(0);
        }
        let mut out = Vec::new();
        let lens = lens(&names, kinds.len());
        put_record(
            &mut out,
            key,
            &stamps(key),
            0,
            (&kinds, &lens),
            [&names[..]],
        );
        out
    }

    fn header() -> Header {
        Header {
            uid: 1000,
            written: 1_700_000_000,
            root_id: (7, 8),
            root: b"/usr".to_vec(),
        }
    }

    #[test]
    fn keys_follow_from_the_parent_and_the_name() {
        assert_eq!(key_after(ROOT_KEY, b""), ROOT_KEY);
        let src = child_key(ROOT_KEY, b"src");
        assert_eq!(src, key_after(ROOT_KEY, b"src/"));
        assert_eq!(
            child_key(src, b"walker"),
            key_after(ROOT_KEY, b"src/walker/")
        );
        assert_ne!(
            child_key(ROOT_KEY, b"ab"),
            child_key(child_key(ROOT_KEY, b"a"), b"b")
        );
        // FNV-1a's published value for "a".
        assert_eq!(key_after(ROOT_KEY, b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn the_search_finds_hashed_keys_and_no_other() {
        // Keys as real files have them (FNV-1a of paths), the extremes, and keys
        // bunched together, which make interpolation guess badly.
        let mut keys: Vec<u64> = (0..5000u32)
            .map(|i| child_key(ROOT_KEY, format!("dir{i}").as_bytes()))
            .collect();
        keys.extend([0, 1, 2, u64::MAX, u64::MAX - 1]);
        keys.extend((0..200).map(|i| (1 << 40) + i));
        keys.sort_unstable();
        keys.dedup();
        let records: Vec<Vec<u8>> = keys
            .iter()
            .map(|&k| record(k, &[("f", EntryKind::File)]))
            .collect();
        let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        let parsed = Parsed::new(put_file(&header(), &refs).unwrap()).unwrap();
        for &key in &keys {
            assert_eq!(parsed.find(key).map(|r| r.key), Some(key), "{key:#x}");
        }
        for absent in [
            3,
            (1 << 40) + 200,
            u64::MAX - 2,
            child_key(ROOT_KEY, b"nowhere"),
        ] {
            assert!(parsed.find(absent).is_none(), "{absent:#x}");
        }
    }

    #[test]
    fn a_file_round_trips_and_finds_every_record() {
        let records: Vec<Vec<u8>> = (0..50u64)
            .map(|k| record(k * 7919, &[("a", EntryKind::File), ("dir", EntryKind::Dir)]))
            .chain([record(3, &[])])
            .collect();
        let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        let file = put_file(&header(), &refs).unwrap().to_vec();
        let parsed = Parsed::new(file.clone()).unwrap();
        assert_eq!(parsed.header, header());
        assert_eq!(parsed.len(), 51);
        for k in 0..50u64 {
            let found = parsed.find(k * 7919).unwrap();
            assert_eq!(found.stamps, stamps(k * 7919));
            let entries: Vec<_> = found.entries().collect();
            assert_eq!(
                entries,
                [
                    (&b"a\0"[..], EntryKind::File),
                    (&b"dir\0"[..], EntryKind::Dir)
                ]
            );
        }
        assert_eq!(parsed.find(3).unwrap().entries().count(), 0);
        assert!(parsed.find(4).is_none());
        assert_eq!(parsed.records().count(), 51);
    }

    #[test]
    fn damaged_files_are_refused_with_their_reason() {
        let records = [record(1, &[("x", EntryKind::Symlink)])];
        let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        let file = put_file(&header(), &refs).unwrap().to_vec();
        for cut in [0, 4, 20, HEADER_LEN + 2, file.len() - 1] {
            let err = Parsed::new(file[..cut].to_vec()).err().unwrap();
            assert!(
                matches!(err, Unusable::Truncated | Unusable::Checksum),
                "cut at {cut}: {err:?}"
            );
        }
        for at in 16..file.len() {
            let mut bad = file.clone();
            bad[at] ^= 0x40;
            assert!(Parsed::new(bad).is_err(), "byte {at} flipped");
        }
        assert_eq!(
            Parsed::new(b"hello, world, this is text, not an index file".to_vec()).err(),
            Some(Unusable::NotAnIndex)
        );
        let mut other = file.clone();
        other[16] = 9;
        assert_eq!(Parsed::new(other).err(), Some(Unusable::Version(9)));
    }

    #[test]
    fn a_malformed_record_is_none_not_a_panic() {
        let good = record(1, &[("x", EntryKind::File), ("y", EntryKind::Dir)]);
        assert!(Record::parse(&good).is_some());
        for cut in 0..good.len() {
            assert!(Record::parse(&good[..cut]).is_none(), "cut at {cut}");
        }
        // A length that does not add up with the names' bytes.
        let mut longer = good.clone();
        longer[RECORD_FIXED + 2] = 5;
        assert!(Record::parse(&longer).is_none());
        // A NUL where a name should go on: the entries stop there.
        let mut moved = good.clone();
        // The last name's NUL, before the one branch's child offset.
        let last = moved.len() - 4 - 1;
        moved[last] = b'z';
        let (record, _) = Record::parse(&moved).unwrap();
        assert_eq!(record.entries().count(), 1);
    }

    #[test]
    fn names_total_counts_each_length_and_its_nul_across_blocks() {
        assert_eq!(names_total(&[]), Some(0));
        assert_eq!(names_total(&[3, 0, 255]), Some(258 + 3));
        // More than one block of 65,536 lengths, each the largest.
        let lens = vec![255u8; (1 << 16) * 2 + 5];
        assert_eq!(names_total(&lens), Some(lens.len() * 256));
    }

    #[test]
    fn files_only_is_false_for_any_other_kind_wherever_it_is() {
        use EntryKind::File;
        let files = |n: usize| -> Vec<(String, EntryKind)> {
            (0..n).map(|i| (format!("f{i}"), File)).collect()
        };
        let parse = |entries: &[(String, EntryKind)]| {
            let entries: Vec<(&str, EntryKind)> =
                entries.iter().map(|(n, k)| (n.as_str(), *k)).collect();
            let bytes = record(1, &entries);
            Record::parse(&bytes).map(|(r, _)| r.files_only()).unwrap()
        };
        assert!(parse(&[]));
        assert!(parse(&files(1000)));
        // Each other kind (bytes 1 to 8), first, in a later block, and last.
        for kind in (1..=8).map(kind_of) {
            for at in [0, 300, 999] {
                let mut entries = files(1000);
                entries[at].1 = kind;
                assert!(!parse(&entries), "{kind:?} at {at}");
            }
        }
    }

    #[test]
    fn a_leaf_holds_no_directory_and_nothing_of_unknown_kind() {
        use EntryKind::*;
        let is_leaf = |entries: &[(&str, EntryKind)]| {
            let bytes = record(1, entries);
            Record::parse(&bytes).map(|(r, _)| r.is_leaf()).unwrap()
        };
        assert!(is_leaf(&[]));
        let others = [File, Symlink, Fifo, Socket, CharDevice, BlockDevice];
        let entries: Vec<(&str, EntryKind)> = others.iter().map(|&kind| ("x", kind)).collect();
        assert!(is_leaf(&entries));
        for kind in [Dir, Unknown] {
            for at in 0..=entries.len() {
                let mut with = entries.clone();
                with.insert(at, ("d", kind));
                assert!(!is_leaf(&with), "{kind:?} at {at}");
            }
        }
    }

    #[test]
    fn each_branch_takes_the_next_child_offset_and_nothing_else_does() {
        use EntryKind::*;
        let entries = [
            ("f", File),
            ("d", Dir),
            ("l", Symlink),
            ("p", Fifo),
            ("u", Unknown),
        ];
        let mut bytes = record(1, &entries);
        let children = bytes.len() - 12;
        for (i, offset) in [10u32, 20, 30].into_iter().enumerate() {
            bytes[children + 4 * i..children + 4 * i + 4].copy_from_slice(&offset.to_le_bytes());
        }
        let (record, _) = Record::parse(&bytes).unwrap();
        let seen: Vec<(&[u8], EntryKind, u32)> = record.entries_with_children().collect();
        let want: Vec<(&[u8], EntryKind, u32)> = vec![
            (b"f\0", File, 0),
            (b"d\0", Dir, 10),
            (b"l\0", Symlink, 20),
            (b"p\0", Fifo, 0),
            (b"u\0", Unknown, 30),
        ];
        assert_eq!(seen, want);
        let names: Vec<(&[u8], EntryKind)> = record.entries().collect();
        assert_eq!(
            names,
            want.iter().map(|&(n, k, _)| (n, k)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_name_longer_than_a_length_byte_leaves_the_record_empty_and_racy() {
        let mut out = Vec::new();
        let long = [vec![b'x'; 300], vec![0]].concat();
        put_record(
            &mut out,
            1,
            &Stamps::default(),
            0,
            (&[0], &lens(&long, 1)),
            [&long[..]],
        );
        let (record, _) = Record::parse(&out).unwrap();
        assert_eq!((record.entries().count(), record.flags), (0, FLAG_RACY));
    }

    #[test]
    fn the_racy_rule_compares_both_times_with_the_margin() {
        let s = Stamps {
            dev: 1,
            ino: 2,
            mtime: (100, 5),
            ctime: (90, 0),
        };
        assert!(s.racy((100, 5)), "same instant");
        assert!(s.racy((99, 0)));
        assert!(!s.racy((100, 6)));
        let chmodded = Stamps {
            ctime: (200, 0),
            ..s
        };
        assert!(chmodded.racy((150, 0)), "a recent ctime alone is racy");
    }

    #[test]
    fn every_kind_survives_its_byte() {
        use EntryKind::*;
        for kind in [
            File,
            Dir,
            Symlink,
            Fifo,
            Socket,
            CharDevice,
            BlockDevice,
            Other,
            Unknown,
        ] {
            assert_eq!(kind_of(kind_byte(kind)), kind);
        }
        assert_eq!(kind_of(200), Unknown);
    }

    /// The root with a subdirectory `a` (and a file), `a` with a file.
    fn two_records(a_stamps: &Stamps, flags: u32, a_entries: &[(&str, EntryKind)]) -> Vec<Vec<u8>> {
        let a = child_key(ROOT_KEY, b"a");
        let mut a_record = Vec::new();
        let kinds: Vec<u8> = a_entries.iter().map(|&(_, k)| kind_byte(k)).collect();
        let names: Vec<u8> = a_entries
            .iter()
            .flat_map(|(name, _)| name.bytes().chain([0]))
            .collect();
        let lens = lens(&names, kinds.len());
        put_record(
            &mut a_record,
            a,
            a_stamps,
            flags,
            (&kinds, &lens),
            [&names[..]],
        );
        vec![
            record(ROOT_KEY, &[("a", EntryKind::Dir), ("f", EntryKind::File)]),
            a_record,
        ]
    }

    #[test]
    fn a_file_written_where_its_records_lie_is_the_file_put_together() {
        // Three records, the root's linked to `a`'s, in two runs of bytes as two
        // workers would hold them.
        let mut records = two_records(&stamps(3), 0, &[("x", EntryKind::File)]);
        records.push(record(child_key(ROOT_KEY, b"other"), &[]));
        let refs: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        let whole = put_file(&header(), &refs).unwrap().to_vec();
        let (mut head, at_key) = lay_out(&header(), &refs).unwrap();
        let mut first = [records[0].clone(), records[1].clone()].concat();
        let mut second = records[2].clone();
        let mut offsets = Vec::new();
        let split = records[0].len();
        link_children(&mut first[..split], &at_key, &mut offsets);
        link_children(&mut first[split..], &at_key, &mut offsets);
        link_children(&mut second, &at_key, &mut offsets);
        assert_ne!(first[..split], records[0][..], "the root's child linked");
        seal(&mut head, &[&first, &second]);
        assert_eq!([&head[..], &first, &second].concat(), whole);
        // And the sum streamed over parts is the sum of them put together, past
        // XXH3's blocks.
        let long: Vec<u8> = (0..10_000u32).map(|i| (i * 31 + i / 7) as u8).collect();
        let mut head = vec![0; 40];
        seal(
            &mut head,
            &[&long[..3], &long[3..5_000], &[], &long[5_000..]],
        );
        let sum = checksum(&[&head[16..], &long].concat());
        assert_eq!(head[8..16], sum.to_le_bytes());
    }

    #[test]
    fn a_record_put_from_parts_is_the_record_put_whole() {
        let names: Vec<u8> = (0..300)
            .flat_map(|i| format!("name{i}").into_bytes().into_iter().chain([0]))
            .collect();
        let kinds: Vec<u8> = (0..300)
            .map(|i| kind_byte([EntryKind::File, EntryKind::Dir][i % 2]))
            .collect();
        let lens = lens(&names, kinds.len());
        let mut whole = Vec::new();
        put_record(&mut whole, 9, &stamps(9), 0, (&kinds, &lens), [&names[..]]);
        let (a, rest) = names.split_at(100);
        let (b, c) = rest.split_at(1_000);
        let mut parts = vec![1, 2, 3];
        put_record(
            &mut parts,
            9,
            &stamps(9),
            0,
            (&kinds, &lens),
            [a, &[], b, c],
        );
        assert_eq!(parts[3..], whole[..]);
        assert_eq!(Record::parse(&whole).unwrap().0.entries().count(), 300);
    }

    #[test]
    fn a_key_given_twice_puts_no_file_together() {
        let root = record(ROOT_KEY, &[("a", EntryKind::Dir)]);
        let a = record(child_key(ROOT_KEY, b"a"), &[]);
        assert!(put_file(&header(), &[&root, &a]).is_some());
        assert!(put_file(&header(), &[&root, &a, &a]).is_none());
    }

    #[test]
    fn a_record_with_the_same_entries_is_written_over_its_old_one() {
        let entries = [("x", EntryKind::File), ("y", EntryKind::Symlink)];
        let old = two_records(&stamps(1), 0, &entries);
        let refs: Vec<&[u8]> = old.iter().map(Vec::as_slice).collect();
        let mut parsed = Parsed::new(put_file(&header(), &refs).unwrap()).unwrap();
        let changed = Stamps {
            mtime: (1_800_000_000, 7),
            ..stamps(2)
        };
        let new = two_records(&changed, FLAG_RACY, &entries);
        let later = Header {
            uid: 1001,
            written: 1_800_000_001,
            ..header()
        };
        let bytes = parsed
            .patched(&later, [new[1].as_slice()].into_iter())
            .expect("the same entries")
            .to_vec();
        // Byte for byte the file put together from scratch with the new record.
        let new_refs: Vec<&[u8]> = new.iter().map(Vec::as_slice).collect();
        assert_eq!(bytes, put_file(&later, &new_refs).unwrap().to_vec());
        let again = Parsed::new(bytes).unwrap();
        assert_eq!(again.header, later);
        let a = again.find(child_key(ROOT_KEY, b"a")).unwrap();
        assert_eq!((a.stamps, a.flags), (changed, FLAG_RACY));
        let root = again.find(ROOT_KEY).unwrap();
        let (_, _, child) = root.entries_with_children().next().unwrap();
        assert_eq!(again.record_at(child).map(|r| r.key), Some(a.key));
    }

    #[test]
    fn other_entries_a_new_record_or_another_root_leave_the_file_whole() {
        let entries = [("x", EntryKind::File)];
        let old = two_records(&stamps(1), 0, &entries);
        let refs: Vec<&[u8]> = old.iter().map(Vec::as_slice).collect();
        let file = put_file(&header(), &refs).unwrap().to_vec();
        let mut parsed = Parsed::new(file.clone()).unwrap();
        let renamed = two_records(&stamps(2), 0, &[("z", EntryKind::File)]);
        let added = two_records(
            &stamps(2),
            0,
            &[("x", EntryKind::File), ("w", EntryKind::File)],
        );
        let retyped = two_records(&stamps(2), 0, &[("x", EntryKind::Dir)]);
        let same = two_records(&stamps(2), 0, &entries);
        let unknown = record(child_key(ROOT_KEY, b"b"), &[]);
        let cases: [(&str, Vec<&[u8]>, Header); 5] = [
            ("a name changed", vec![&renamed[1]], header()),
            ("an entry added", vec![&same[1], &added[1]], header()),
            ("a kind changed", vec![&retyped[1]], header()),
            (
                "a record the file has not",
                vec![&same[1], &unknown],
                header(),
            ),
            (
                "the root replaced",
                vec![&same[1]],
                Header {
                    root_id: (9, 9),
                    ..header()
                },
            ),
        ];
        for (case, records, header) in cases {
            assert!(
                parsed.patched(&header, records.into_iter()).is_none(),
                "{case}"
            );
            assert_eq!(
                parsed.bytes.to_vec(),
                file,
                "{case}: the bytes were touched"
            );
        }
    }
}
