//! A directory's listing in a walk with the index (`--index`, see `index`): its
//! entries come from the index when its stamps check out, from the kernel
//! otherwise (and are then recorded). The plain visit takes them from their
//! record, the one it found or the one it has just made; the gated walk (ignore
//! rules) from the [`Listing`] they are put in. Nothing else differs from a walk:
//! the visitor, the ignore rules and the output are the same code.

use super::job::{Dir, DirJob};
use super::recording::{piece_helpers, read_into, read_recorded, Reading};
use super::visit::Visitor;
use super::{visit_gated_listing, Listing};
use crate::ignore::{DirRules, Gate};
use crate::index::format::{key_after, Stamps};
use crate::index::{DirTimes, IndexRun, Lookup, Recorder, RootKey};
use crate::os::dirent::{DirReader, EntryKind, RawEntry};
use crate::os::stat::fstat;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::SystemTime;

/// The directory being listed.
pub(super) struct Here<'h> {
    pub(super) job: &'h DirJob,
    pub(super) dir: &'h Dir<'h>,
    pub(super) fd: RawFd,
    /// `-x`: a mount point, listed only to see whether it is empty (`-t e`).
    pub(super) crossing: bool,
    /// This is the first worker, before any other has started.
    pub(super) alone: bool,
}

/// Lists the directory `here` with the index and visits its entries, through
/// `gate` if there is one (setting `rules` to the rules in force in it).
#[inline(never)]
pub(super) fn list(
    reader: &mut DirReader,
    listing: &mut Listing,
    visitor: &mut Visitor<'_>,
    index: (&IndexRun, &mut Recorder),
    gate: Option<&Gate>,
    rules: &mut Option<Arc<DirRules>>,
    here: Here<'_>,
) -> io::Result<()> {
    let Here {
        job,
        dir,
        fd,
        crossing,
        alone,
    } = here;
    let mut reading = Reading {
        stop: visitor.pool.stop_flag(),
        // With ignore rules, as a walk's: never cut (see `split`).
        helpers: match gate {
            Some(_) => 0,
            None => piece_helpers(visitor, alone),
        },
        pieces: 0,
        parts: Vec::new(),
    };
    let (index, recorder) = index;
    let listed = fill(
        reader,
        listing,
        (index, recorder),
        job,
        dir,
        fd,
        &mut reading,
    );
    visitor.found.pieces += reading.pieces;
    match (gate, listed) {
        (Some(gate), listed) => {
            // The rules want the whole listing (its rule files' names) first
            // (never cut into pieces with a gate: see `piece_helpers`).
            let listed = listed.map(|filled| {
                if let Filled::Old(record) = filled {
                    push_all(listing, &record);
                }
            });
            let (listed, here) =
                visit_gated_listing(gate, job, dir, fd, listing, visitor, crossing, listed);
            *rules = here;
            listed
        }
        (None, Ok(Filled::Old(record))) => visit_record(visitor, &record, job, dir, fd, crossing),
        (None, listed) => {
            // Just recorded: visited from its record, as a repeat would visit it
            // (a first run of a million-entry directory printed its names whole,
            // `Files::PrintedWhole`, and its pieces are not put together).
            if let (Ok(Filled::Recorded), Some(record)) = (&listed, recorder.last()) {
                return visit_record(visitor, &record, job, dir, fd, crossing);
            }
            reading.append_parts_to(listing);
            let listed = listed.map(|_| ());
            visit_entries(
                visitor,
                listing
                    .names_and_kinds()
                    .map(|(name, kind)| (name, kind, 0)),
                (listing.entries.len(), false),
                Files::Visited,
                job,
                dir,
                fd,
                crossing,
                listed,
            )
        }
    }
}

/// Copies the entries of `record` into `listing`.
fn push_all(listing: &mut Listing, record: &crate::index::format::Record<'_>) {
    for (name, kind) in record.entries() {
        listing.push(&RawEntry::from_name_with_nul(name, kind));
    }
}

/// `dir`'s record in the file of its root `root`, if it has one: where its
/// parent's record said, else found by its key.
pub(super) fn recorded<'i>(
    index: &'i IndexRun,
    root: RootKey,
    job: &DirJob,
    dir: &Dir<'_>,
) -> Option<crate::index::format::Record<'i>> {
    match job.index_at() {
        // Its key, a hash of its path, only if there is a file to look in: twice a
        // directory was a seventh of a first run's instructions.
        0 if index.has_records(root) => index.recorded(root, key_of(root, dir)),
        0 => None,
        at => index.recorded_at(root, at),
    }
}

/// The key of `dir`'s record in the file of `root`.
fn key_of(root: RootKey, dir: &Dir<'_>) -> u64 {
    key_after(root.key, &dir.prefix[dir.below_root()..])
}

/// The loop of [`visit_entries`]. `COUNTED`: `-c` counts files by their kind
/// (`Visitor::count_by_type_only`), and a regular file is one more match, what
/// `visit_not_dot` would do with it. `NO_FILES`: regular files are passed over
/// ([`Files::RuledOut`]).
#[inline(always)]
fn visit_each<'e, const COUNTED: bool, const NO_FILES: bool>(
    visitor: &mut Visitor<'_>,
    entries: impl Iterator<Item = (&'e [u8], EntryKind, u32)>,
    dir: &Dir<'_>,
    fd: RawFd,
) {
    let stop = visitor.pool.stop_flag();
    let files_by_name = visitor.files_by_name();
    for (i, (name, kind, at)) in entries.enumerate() {
        // As between two batches of a listing: `-1` or a closed pipe ends it.
        if i % 1024 == 1023 && stop.load(Ordering::Relaxed) {
            break;
        }
        if NO_FILES && kind == EntryKind::File {
            continue;
        }
        if COUNTED && kind == EntryKind::File {
            visitor.found.matches += 1;
            continue;
        }
        if !COUNTED && kind == EntryKind::File && files_by_name {
            visitor.visit_file_by_name(dir, fd, name);
            continue;
        }
        let queued = visitor.children.len();
        // Neither a listing (`read_into`) nor the index keeps `.` and `..`.
        visitor.visit_not_dot(dir, fd, RawEntry::from_name_with_nul(name, kind));
        // A subdirectory queued: where its record is, for its own turn.
        if at != 0 && visitor.children.len() > queued {
            if let Some(child) = visitor.children.last_mut() {
                child.index_at = at;
            }
        }
    }
}

/// Where [`fill`] found the entries of a directory.
enum Filled<'i> {
    /// In the index, and they may be used (`listing` left empty).
    Old(crate::index::format::Record<'i>),
    /// In the kernel's listing, in `listing` (and the pieces' listings after
    /// it), now recorded: the recorder's last record holds them.
    Recorded,
    /// In the kernel's listing, whole in `listing`, and not recorded.
    Listed,
}

/// The entries of `dir` (open as `fd`): the recorded ones if the index has them
/// and they may be used, otherwise the kernel's, put in `listing` and recorded.
fn fill<'i>(
    reader: &mut DirReader,
    listing: &mut Listing,
    (index, recorder): (&'i IndexRun, &mut Recorder),
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    reading: &mut Reading<'_>,
) -> io::Result<Filled<'i>> {
    let stop = reading.stop;
    listing.clear();
    let Some(root) = index.root_key(job.siblings().root_identity()) else {
        return read_into(reader, listing, fd, stop).map(|()| Filled::Listed);
    };
    let found = recorded(index, root, job, dir);
    let mut stamps = None;
    let mut times = DirTimes::Untrusted;
    if !index.trusting() {
        // A directory whose stamps cannot be read is listed, and not recorded.
        let Some((now, on)) = stamps_of(fd, found.as_ref(), (index, recorder)) else {
            return read_into(reader, listing, fd, stop).map(|()| Filled::Listed);
        };
        (stamps, times) = (Some(now), on);
    }
    let stamps = match index.check(found, stamps, times.trusted()) {
        Lookup::Use(record) => return Ok(Filled::Old(record)),
        Lookup::List(Some(stamps)) => stamps,
        // The trusted mode with no record: its stamps, to record the listing.
        Lookup::List(None) => match stamps_of(fd, None, (index, recorder)) {
            Some((now, on)) => {
                times = on;
                now
            }
            None => return read_into(reader, listing, fd, stop).map(|()| Filled::Listed),
        },
    };
    // Taken only for a listing (a clock read per directory was 1.6% of a repeat),
    // microseconds after the stamps: far inside the racy margin.
    let listed_at = SystemTime::now();
    let listed = read_recorded(reader, listing, fd, reading);
    // A listing cut short (an error, or the stop) is not the directory's.
    let recorded = listed.is_ok() && !stop.load(Ordering::Relaxed) && {
        let key = key_of(root, dir);
        let whole = (&listing.entries[..], &listing.names[..]);
        match reading.parts.is_empty() {
            true => recorder.record(root, key, &stamps, times, listed_at, &[whole]),
            false => {
                let parts = reading.parts_after(listing);
                recorder.record(root, key, &stamps, times, listed_at, &parts)
            }
        }
    };
    if !recorded {
        reading.append_parts_to(listing);
    }
    listed.map(|()| match recorded {
        true => Filled::Recorded,
        false => Filled::Listed,
    })
}

/// The stamps of the directory open as `fd`, whose record (if any) is `found`,
/// and how far its device's times are trusted; `None` if they cannot be read.
/// On a network filesystem whose times are trusted they are asked of the server
/// (at once where `found` says the device is one this worker knows).
fn stamps_of(
    fd: RawFd,
    found: Option<&crate::index::format::Record<'_>>,
    (index, recorder): (&IndexRun, &mut Recorder),
) -> Option<(Stamps, DirTimes)> {
    let fields = found
        .and_then(|record| recorder.known_trust(index, record.stamps.dev))
        .map_or(Stamps::FIELDS, DirTimes::stamp_fields);
    let now = Stamps::of(&fstat(fd, fields).ok()?);
    let times = recorder.dir_times(index, now.dev, fd);
    if times.stamp_fields() == fields {
        return Some((now, times));
    }
    Some((Stamps::of(&fstat(fd, times.stamp_fields()).ok()?), times))
}

/// Hands the entries `record` holds for `dir` (open as `fd`, or `-1`) to
/// [`visit_entries`]. When `-c` counts files by their kind alone
/// (`Visitor::count_by_type_only`) and every one of them is a regular file, the
/// count is the number of entries, and their names need not be read (a
/// million-entry directory's 23 MB of names, two thirds of a repeat's
/// instructions). Inlined as `visit_entries` is: out of line, the call cost a
/// checked repeat of `/usr` 1.7% more instructions and `--index-trust` 3.5%.
#[inline(always)]
pub(super) fn visit_record(
    visitor: &mut Visitor<'_>,
    record: &crate::index::format::Record<'_>,
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    crossing: bool,
) -> io::Result<()> {
    let files_only = visitor.count_by_type_only && record.files_only();
    let counted = (record.kinds.len(), files_only);
    let files = files_of(visitor, record);
    if files == Files::PrintedWhole && !job.print_if_empty() {
        visitor.found.examined += record.kinds.len() as u64;
        visitor.print_files(dir.prefix, record.lens, record.names);
        return Ok(());
    }
    let entries = record.entries_with_children();
    visit_entries(
        visitor,
        entries,
        counted,
        files,
        job,
        dir,
        fd,
        crossing,
        Ok(()),
    )
}

/// What the regular files of a listing need from [`visit_entries`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Files {
    /// Each is visited (its name tested, where that is all it needs).
    Visited,
    /// The record holds regular files alone, each printed as its path and
    /// nothing else (`Visitor::prints_files_whole`): printed whole from its
    /// lengths and names (`Visitor::print_files`, by `visit_record`).
    PrintedWhole,
    /// None can match: each would be tested by its name alone, and no name in
    /// the listing holds the name tests' needle (`filter::needle`).
    RuledOut,
    /// As `RuledOut`, and the listing holds nothing else.
    AllRuledOut,
}

/// [`Files`] for `record`'s regular files: searched for the needle, if there is
/// one, where they would be tested by name alone.
#[inline(always)]
fn files_of(visitor: &mut Visitor<'_>, record: &crate::index::format::Record<'_>) -> Files {
    // Without a needle, one test: this runs for every record. (Where files are
    // printed whole there is no name test, so no needle.)
    if visitor.needle.is_none() || !visitor.files_by_name() {
        if visitor.prints_files_whole && visitor.here.scope.files && record.files_only() {
            return Files::PrintedWhole;
        }
        if files_pass_unseen(visitor) {
            return ruled_out(record);
        }
        return Files::Visited;
    }
    let Some(needle) = visitor.needle.as_deref_mut() else {
        return Files::Visited;
    };
    if needle.may_be_in(record.lens, record.names) {
        Files::Visited
    } else {
        ruled_out(record)
    }
}

/// [`Files::AllRuledOut`] for a record of regular files alone, [`Files::RuledOut`]
/// otherwise: what a record whose regular files cannot match is.
fn ruled_out(record: &crate::index::format::Record<'_>) -> Files {
    match record.files_only() && !record.kinds.is_empty() {
        true => Files::AllRuledOut,
        false => Files::RuledOut,
    }
}

/// True when the visitor would do nothing with a regular file here: files cannot
/// match in this directory (`-t d`, say, or above `--min-depth`), no name search
/// notes what `-t` left out (`Here::misses`), and its kind is the record's, not a
/// `stat`'s (`--force-stat`), nor counted by kind. Its entries are then passed
/// over, not handed to the visitor one by one to be turned away: `--index -t d`
/// of the million-entry directory ran 88.2M instructions, more than printing its
/// million paths (callgrind `-j1`).
#[inline(always)]
fn files_pass_unseen(visitor: &Visitor<'_>) -> bool {
    !visitor.here.scope.files
        && !visitor.here.misses
        && !visitor.config.force_stat
        && !visitor.count_by_type_only
}

/// Hands `entries` (`count` of them: the whole listing of `dir`, open as `fd`;
/// each its name with its NUL, its kind and its child offset) to the visitor, as
/// the plain walk does; with `-t e`, the directory itself if it is empty.
/// `listed` is how its reading ended. With `files_only` (see [`visit_record`])
/// they are counted, not visited: what the visitor would have done with each.
/// Where a regular file is visited by its name alone (`Visitor::files_by_name`,
/// tested once), the name is taken as it is: a listing's loop finds where each
/// name ends, which these names' lengths already say (a search of `/usr` with
/// `--index-trust -t any -e conf`: 37.6M to 32.5M instructions, callgrind `-j1`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn visit_entries<'e>(
    visitor: &mut Visitor<'_>,
    entries: impl Iterator<Item = (&'e [u8], EntryKind, u32)>,
    (count, files_only): (usize, bool),
    files: Files,
    job: &DirJob,
    dir: &Dir<'_>,
    fd: RawFd,
    crossing: bool,
    listed: io::Result<()>,
) -> io::Result<()> {
    let pool = visitor.pool;
    visitor.found.examined += count as u64;
    // With `-t e`, a directory at the depth limit, or a mount point under `-x`, is
    // listed only to see whether it is empty (as `list_out_of_line`).
    let visit_entries =
        !job.print_if_empty() || (dir.depth < visitor.config.filter.max_depth && !crossing);
    if visit_entries && files_only {
        visitor.found.matches += count as u64;
    } else if visit_entries && files != Files::AllRuledOut {
        // A loop of its own for `-c` by kinds, where a regular file is only
        // counted: the two tests in one loop cost each of them (callgrind).
        match (visitor.count_by_type_only, files) {
            (true, _) => visit_each::<true, false>(visitor, entries, dir, fd),
            // Printed whole only in `visit_record`: visited here as any file.
            (false, Files::Visited | Files::PrintedWhole) => {
                visit_each::<false, false>(visitor, entries, dir, fd)
            }
            (false, _) => visit_each::<false, true>(visitor, entries, dir, fd),
        }
    }
    if job.print_if_empty() && listed.is_ok() && count == 0 && !pool.is_stopped() {
        visitor.match_empty_dir(dir, fd);
    }
    listed
}
