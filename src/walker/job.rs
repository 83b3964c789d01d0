//! A directory waiting in the pool ([`DirJob`]) and what it shares with its siblings
//! ([`Siblings`]), the directory a worker is reading ([`Dir`]), and what a walk
//! found ([`Summary`]). The identity chain `-L` checks for loops is `loops.rs`.

use super::loops::DirId;
use crate::config::Config;
use crate::descriptors::{open_dir, Anchor, Root};
use crate::filter::path::PathState;
use crate::filter::types::KindSet;
use crate::filter::Filter;
use crate::ignore::DirRules;
use crate::os::cookies::{self, Order, Piece, Taken, Trust, Untaken};
use crate::os::stat::Stat;
use crate::output::Output;
use crate::report::Reporter;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

/// What a walk found: the whole walk's, or one worker's share of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of entries that matched (and, in path mode, were printed).
    pub matches: u64,
    /// Their total size in bytes, when the output mode needs sizes (`-l`, `-s`):
    /// 128 bits, since two files can be 2^63 - 1 bytes each (sparse, on tmpfs).
    pub bytes: u128,
    /// How many worker threads took part (each worker's own summary says 1).
    pub workers: u64,
    /// With [`Config::miss_hints`](crate::config::Config::miss_hints): the kinds of
    /// the entries whose name matched but whose kind `-t` left out.
    pub missed: KindSet,
    /// Pieces of giant directories listed (see `walker::split`): each a listing of
    /// its own, from one cookie to another.
    pub pieces: u64,
    /// Entries read from directory listings (`.` and `..` aside), whatever became
    /// of them: what `--stats` and IO500's find call entries examined.
    pub examined: u64,
}

impl Summary {
    /// The end of a run, written once for pfind and `pfind-mpi`'s rank 0: what the
    /// output mode prints after the matches (`-c`'s count, `-s`'s total, a sorted
    /// output), then with `--stats` what the walk did (see [`Self::stats_text`]), on
    /// stderr once the output is written, so that the lines follow the last path in
    /// a terminal. A closed stderr leaves nobody to tell.
    pub fn finish_run(
        &self,
        config: &Config,
        output: &Output,
        took: std::time::Duration,
        ranks: Option<usize>,
        reporter: &Reporter,
    ) {
        output.finish_run(
            &config.output,
            config.format.as_ref(),
            config.max_results,
            (self.matches, self.bytes),
            reporter,
        );
        if config.stats {
            use std::io::Write;
            let text = self.stats_text(took, ranks);
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
    }

    /// What `--stats` prints on stderr, one figure a line as ripgrep prints them;
    /// a cluster walk (`pfind-mpi`) adds its `ranks` and their workers.
    pub fn stats_text(&self, took: std::time::Duration, ranks: Option<usize>) -> String {
        let mut text = format!(
            "{} matches\n{} entries examined\n{} pieces of giant directories listed\n",
            self.matches, self.examined, self.pieces
        );
        if let Some(ranks) = ranks {
            text.push_str(&format!("{ranks} ranks, {} workers\n", self.workers));
        }
        text.push_str(&format!("{:.3} seconds\n", took.as_secs_f64()));
        text
    }

    pub fn add(&mut self, other: Summary) {
        self.matches += other.matches;
        self.bytes += other.bytes;
        self.workers += other.workers;
        self.missed = self.missed.union(other.missed);
        self.pieces += other.pieces;
        self.examined += other.examined;
    }
}

/// A directory waiting to be read: which listing it was found in, and where its name
/// is in that listing's [`Siblings`]. 24 bytes, however long its path: the path is
/// put together only when a worker takes the job ([`DirJob::enter`]). A wide level of
/// the tree waits in the pool as one `Siblings` per parent and 24 bytes per
/// directory, where a path per directory took ten times that.
pub struct DirJob {
    from: Arc<Siblings>,
    /// Where the directory's name starts in `from.bytes`; it ends at the next NUL.
    name_start: usize,
    /// `-t e`: the directory itself matches if it turns out to have no entries, which
    /// only the worker that lists it can tell.
    print_if_empty: bool,
    /// `--ignore`: ignore rules exclude the directory, but git tracks paths in it;
    /// only those are walked (see `ignore`).
    tracked_only: bool,
    /// `--index`: where the directory's record is in its root's index, as its
    /// parent's record said; 0 when not known (it is then found by its key). In
    /// what was padding: no job is bigger for it.
    index_at: u32,
}

/// What the subdirectories found in one listing share, kept once for all of them
/// while any is still waiting or being read: the path of the directory they were
/// found in, their names, and what opening and checking them needs. Each root has one
/// of its own, whose one name is the root as typed.
pub struct Siblings {
    /// The parent's printed prefix (`prefix_len` bytes: its path and a `/`, or
    /// nothing for the implicit root), then each subdirectory's name and a NUL.
    bytes: Box<[u8]>,
    prefix_len: usize,
    /// True for a root's own: its name is the whole root, printed as typed.
    is_root: bool,
    /// The subdirectories' depth: 0 for a root.
    depth: usize,
    /// `-p`: how far the parent's path goes into the pattern (for a root, the root's
    /// own state); each subdirectory's follows from it and its name.
    path_state: PathState,
    /// The nearest open ancestor to open a subdirectory relative to; `None` opens it
    /// from its root (see `descriptors`).
    anchor: Option<Arc<Anchor>>,
    /// The anchor is the parent itself, so the path below it is one name.
    anchor_is_parent: bool,
    /// The root they were reached from, for when no anchor is left.
    root: Root,
    /// `-L`: the parent's identity, linked to its own parent's, up to the root: the
    /// chain a symbolic link must not lead back into.
    parent_id: Option<Arc<DirId>>,
    /// `-x`: the device of the root they were reached from ([`NO_DEVICE`] below a root,
    /// whose own device becomes its descendants').
    root_dev: u64,
    /// `--ignore`: the rules in force in the parent (for a root, its own).
    rules: Option<Arc<DirRules>>,
    /// A piece of a giant directory's listing (see `split`): the one directory
    /// these siblings hold is listed from one cookie to another, not whole.
    piece: Option<Box<PieceJob>>,
}

impl Siblings {
    /// The printed path of the directory they were found in, and its `/`.
    pub(super) fn prefix(&self) -> &[u8] {
        &self.bytes[..self.prefix_len]
    }

    /// Length of their root's printed path.
    pub(super) fn root_printed_len(&self) -> usize {
        self.root.printed_len()
    }

    /// Their root's (device, inode) as the walk began, if it was identified.
    pub(super) fn root_identity(&self) -> Option<(u64, u64)> {
        self.root.identity()
    }

    /// `-p`: the parent's path state.
    pub(super) fn path_state(&self) -> PathState {
        self.path_state
    }

    /// Siblings holding the one directory `name` found in `prefix` (printed, with
    /// its `/`), in another process than the one that listed its parent: opened
    /// from the root, with nothing inherited but the root's own.
    pub(super) fn elsewhere(
        &self,
        prefix: Vec<u8>,
        name: &[u8],
        depth: usize,
        path_state: PathState,
        root_dev: u64,
    ) -> Siblings {
        let prefix_len = prefix.len();
        let mut bytes = prefix;
        bytes.extend_from_slice(name);
        bytes.push(0);
        Siblings {
            bytes: bytes.into_boxed_slice(),
            prefix_len,
            is_root: false,
            depth,
            path_state,
            anchor: None,
            anchor_is_parent: false,
            root: self.root,
            parent_id: None,
            root_dev,
            rules: None,
            piece: None,
        }
    }
}

/// [`Siblings::root_dev`] for none: not an `Option`, whose eight bytes more made
/// every listing's `Siblings` a longer copy into its `Arc` (callgrind, `/usr`:
/// 12 instructions a directory). No device number is all ones.
pub(super) const NO_DEVICE: u64 = u64::MAX;

/// The directory a worker is reading: its job, with its printed path put together.
pub struct Dir<'a> {
    pub(super) job: &'a DirJob,
    /// What is printed before each entry's name: the directory's path and a `/`,
    /// or nothing at all for the implicit `.` root.
    pub(super) prefix: &'a [u8],
    /// Length of the directory's own path at the start of `prefix` (for opening it
    /// and for messages); for a root this is the root exactly as typed.
    pub(super) path_len: usize,
    /// 0 for a root; the directory's entries are at `depth + 1`.
    pub(super) depth: usize,
    /// `-p`: how far the directory's path below its root goes into the pattern.
    pub(super) path_state: PathState,
}

/// A subdirectory found in the directory being listed, until the listing is over
/// and it is queued ([`Siblings::queue`]).
#[derive(Clone, Copy)]
pub struct Child {
    /// Where its name starts among the names collected in the listing.
    pub(super) name_start: usize,
    pub(super) print_if_empty: bool,
    pub(super) tracked_only: bool,
    /// As [`DirJob`]'s.
    pub(super) index_at: u32,
}

impl DirJob {
    /// The job for a root directory, printed as `root` was typed. `root` empty means
    /// the implicit `.`, whose entries are printed without a `./` prefix.
    /// `path_state` is the filter's state for a root (`Filter::root_path`).
    pub fn root(root: &[u8], path_state: PathState) -> DirJob {
        let siblings = Siblings {
            bytes: [root, b"\0"].concat().into_boxed_slice(),
            prefix_len: 0,
            is_root: true,
            depth: 0,
            path_state,
            anchor: None,
            anchor_is_parent: false,
            root: Root::new(root.len()),
            parent_id: None,
            root_dev: NO_DEVICE,
            rules: None,
            piece: None,
        };
        DirJob {
            from: Arc::new(siblings),
            name_start: 0,
            print_if_empty: false,
            tracked_only: false,
            index_at: 0,
        }
    }

    /// A second job for the same directory, sharing its siblings (a root's, kept
    /// to make jobs that other processes send against: `wire`).
    pub(super) fn share(&self) -> DirJob {
        DirJob {
            from: self.from.clone(),
            name_start: self.name_start,
            print_if_empty: self.print_if_empty,
            tracked_only: self.tracked_only,
            index_at: self.index_at,
        }
    }

    /// The job for the one directory `from` holds.
    pub(super) fn in_siblings(
        from: Arc<Siblings>,
        print_if_empty: bool,
        tracked_only: bool,
    ) -> DirJob {
        let name_start = from.prefix_len;
        DirJob {
            from,
            name_start,
            print_if_empty,
            tracked_only,
            index_at: 0,
        }
    }

    /// What it shares with its siblings.
    pub(super) fn siblings(&self) -> &Siblings {
        &self.from
    }

    /// The root job, with the ignore rules in force in the root itself.
    pub fn with_rules(mut self, rules: Arc<DirRules>) -> DirJob {
        if let Some(siblings) = Arc::get_mut(&mut self.from) {
            siblings.rules = Some(rules);
        }
        self
    }

    /// The root job, known to be the directory `stat` describes (when the walk
    /// started), so that reopening it later can check it still is.
    pub fn identified(mut self, stat: &Stat) -> DirJob {
        if let Some(siblings) = Arc::get_mut(&mut self.from) {
            siblings.root = siblings.root.identified(stat);
        }
        self
    }

    /// The directory's name and its NUL, as a C string (`None` for a root, whose
    /// name is a path).
    pub(super) fn name_cstr(&self) -> Option<&std::ffi::CStr> {
        if self.from.is_root {
            return None;
        }
        std::ffi::CStr::from_bytes_until_nul(&self.from.bytes[self.name_start..]).ok()
    }

    /// Where its record is in its root's index (0: not known).
    pub(super) fn index_at(&self) -> u32 {
        self.index_at
    }

    /// True when [`Self::anchor`] is the directory's parent, held open.
    pub(super) fn anchor_is_parent(&self) -> bool {
        self.from.anchor_is_parent
    }

    /// The directory's name as found in its parent (a root: as typed).
    pub(super) fn name(&self) -> &[u8] {
        let names = &self.from.bytes[self.name_start..];
        let end = names.iter().position(|&b| b == 0).unwrap_or(names.len());
        &names[..end]
    }

    /// Puts the directory's printed path together in `path` (a buffer the worker
    /// reuses) and returns the directory as the worker reads it. `filter` gives a
    /// subdirectory's `-p` state, which follows from its parent's and its name.
    /// Forced inline: with a second call site (`--index-trust`) LLVM made it a
    /// call, which cost the default walk 2.5M instructions on `/usr` (callgrind).
    #[inline(always)]
    pub(super) fn enter<'a>(&'a self, path: &'a mut Vec<u8>, filter: &Filter) -> Dir<'a> {
        let from = &*self.from;
        let name = self.name();
        path.clear();
        path.extend_from_slice(&from.bytes[..from.prefix_len]);
        path.extend_from_slice(name);
        let path_len = path.len();
        let path_state = if from.is_root {
            if !name.is_empty() && !name.ends_with(b"/") {
                path.push(b'/');
            }
            from.path_state
        } else {
            path.push(b'/');
            filter
                .subdir_path(from.path_state, name)
                .unwrap_or_default()
        };
        Dir {
            job: self,
            prefix: path,
            path_len,
            depth: from.depth,
            path_state,
        }
    }

    /// 0 for a root; the directory's entries are at `depth + 1`.
    pub(super) fn depth(&self) -> usize {
        self.from.depth
    }

    /// `-t e`: see the field.
    pub(super) fn print_if_empty(&self) -> bool {
        self.print_if_empty
    }

    /// The nearest open ancestor its subdirectories may be opened relative to, when
    /// it cannot be kept open itself.
    pub(super) fn anchor(&self) -> Option<&Arc<Anchor>> {
        self.from.anchor.as_ref()
    }

    /// See [`Siblings::parent_id`].
    pub(super) fn parent_id(&self) -> Option<&Arc<DirId>> {
        self.from.parent_id.as_ref()
    }

    /// See [`Siblings::root_dev`].
    pub(super) fn root_dev(&self) -> Option<u64> {
        Some(self.from.root_dev).filter(|&dev| dev != NO_DEVICE)
    }

    /// True for a root's job.
    pub(super) fn is_root(&self) -> bool {
        self.from.is_root
    }

    /// See [`Siblings::rules`].
    pub(super) fn rules(&self) -> Option<&Arc<DirRules>> {
        self.from.rules.as_ref()
    }

    /// See [`DirJob::tracked_only`].
    pub(super) fn tracked_only(&self) -> bool {
        self.tracked_only
    }

    /// The piece of its listing this job is, if it is one (see `split`).
    pub(super) fn piece(&self) -> Option<&PieceJob> {
        self.from.piece.as_deref()
    }

    /// A job for `piece` of this directory's listing: the same directory, with
    /// everything it inherited, listed from one cookie to another.
    pub(super) fn with_piece(&self, piece: PieceJob) -> DirJob {
        let from = &*self.from;
        let name = self.name();
        let siblings = Siblings {
            bytes: [&from.bytes[..from.prefix_len], name, b"\0"]
                .concat()
                .into_boxed_slice(),
            prefix_len: from.prefix_len,
            is_root: from.is_root,
            depth: from.depth,
            path_state: from.path_state,
            anchor: from.anchor.clone(),
            anchor_is_parent: from.anchor_is_parent,
            root: from.root,
            parent_id: from.parent_id.clone(),
            root_dev: from.root_dev,
            rules: from.rules.clone(),
            piece: Some(Box::new(piece)),
        };
        DirJob {
            from: Arc::new(siblings),
            name_start: from.prefix_len,
            print_if_empty: false,
            tracked_only: self.tracked_only,
            index_at: self.index_at,
        }
    }
}

impl Dir<'_> {
    /// The printed path of the entry `name` of this directory, for messages.
    pub(super) fn entry_path(&self, name: &[u8]) -> Vec<u8> {
        [self.prefix, name].concat()
    }

    /// Where the directory's path below its root starts in `prefix`: after the root
    /// and the `/` that follows it (`src/` of `ROOT/src/`; nothing for the root).
    pub(super) fn below_root(&self) -> usize {
        let root = self.job.from.root.printed_len();
        root + usize::from(self.prefix.get(root) == Some(&b'/'))
    }

    /// The directory's path for messages; `.` for the implicit root.
    pub(super) fn display_path(&self) -> &[u8] {
        match &self.prefix[..self.path_len] {
            b"" => b".",
            path => path,
        }
    }

    /// Opens the directory. Unless `follow`, no symbolic link below the root is
    /// followed, even one that replaced a directory since its parent was listed.
    /// Forced inline, as `open_dir` is (see there).
    #[inline(always)]
    pub(super) fn open(&self, follow: bool) -> io::Result<OwnedFd> {
        let from = &*self.job.from;
        open_dir(
            &self.prefix[..self.path_len],
            from.anchor.as_deref(),
            from.anchor_is_parent,
            &from.root,
            follow,
        )
    }
}

/// What the directory `dir` leaves its subdirectories, besides their names.
pub struct Inherited {
    pub(super) anchor: Option<Arc<Anchor>>,
    pub(super) anchor_is_parent: bool,
    /// `-L`: the directory's own identity (the head of its children's chain).
    pub(super) id: Option<Arc<DirId>>,
    pub(super) root_dev: Option<u64>,
    /// `--ignore`: the directory's own rules.
    pub(super) rules: Option<Arc<DirRules>>,
}

impl Siblings {
    /// Jobs for the subdirectories `children` of `dir`, whose names are in `names`
    /// (each followed by a NUL), sharing one `Siblings`. Inlined into both of its
    /// callers (the end of a listing, and its middle on a network filesystem): left to
    /// LLVM, a second caller made it a call, 1.6% more instructions on a local walk.
    #[inline(always)]
    pub(super) fn queue<'c>(
        dir: &Dir<'_>,
        inherited: Inherited,
        names: &[u8],
        children: impl ExactSizeIterator<Item = Child> + 'c,
    ) -> impl ExactSizeIterator<Item = DirJob> + 'c {
        let prefix_len = dir.prefix.len();
        let siblings = Arc::new(Siblings {
            bytes: [dir.prefix, names].concat().into_boxed_slice(),
            prefix_len,
            is_root: false,
            depth: dir.depth + 1,
            path_state: dir.path_state,
            anchor: inherited.anchor,
            anchor_is_parent: inherited.anchor_is_parent,
            root: dir.job.from.root,
            parent_id: inherited.id,
            root_dev: inherited.root_dev.unwrap_or(NO_DEVICE),
            rules: inherited.rules,
            piece: None,
        });
        children.map(move |child| DirJob {
            from: siblings.clone(),
            name_start: prefix_len + child.name_start,
            print_if_empty: child.print_if_empty,
            tracked_only: child.tracked_only,
            index_at: child.index_at,
        })
    }
}

/// What the pieces of one directory's listing share, and the ledger that says
/// whether the split held (see `walker::split`).
pub struct Giant {
    /// A description of the directory, kept open while any piece waits: each piece
    /// opens its own from this one (`cookies::reopen`).
    pub(super) fd: OwnedFd,
    pub(super) order: Order,
    /// How far its positions go (for cutting the last piece again).
    pub(super) extent: u64,
    /// [`Trust::Keyed`]: a piece takes every position in its range.
    keyed: bool,
    /// Set once a piece failed its checks: nothing more is cut, and the last
    /// piece to finish lists what no piece took.
    broken: AtomicBool,
    ledger: Mutex<Ledger>,
}

/// What the readers of a giant directory took, while any piece is unfinished.
struct Ledger {
    /// Pieces queued or being listed.
    unfinished: usize,
    taken: Vec<Taken>,
    /// A piece received from elsewhere answers for its own range only.
    scope: Option<Taken>,
}

/// What is left to list of a giant directory whose split failed: the last piece
/// to finish lists it.
pub(super) struct Rest {
    pub(super) untaken: Untaken,
}

impl Giant {
    /// The giant `fd` (a description of its own) was cut into `pieces`, after a
    /// listing that took `taken`.
    pub(super) fn new(fd: OwnedFd, trust: Trust, extent: u64, taken: Taken) -> Giant {
        Giant {
            fd,
            order: trust.order(),
            extent,
            keyed: trust.keyed(),
            broken: AtomicBool::new(false),
            ledger: Mutex::new(Ledger {
                unfinished: 0,
                taken: vec![taken],
                scope: None,
            }),
        }
    }

    /// A giant one of whose pieces came from another rank (keyed cookies only):
    /// it answers for the piece `from`..`until`.
    pub(super) fn received(
        fd: OwnedFd,
        order: Order,
        extent: u64,
        from: u64,
        until: Option<u64>,
    ) -> Giant {
        Giant {
            fd,
            order,
            extent,
            keyed: true,
            broken: AtomicBool::new(false),
            ledger: Mutex::new(Ledger {
                unfinished: 0,
                taken: Vec::new(),
                scope: Some(Taken::Span {
                    from: Some(from),
                    to: until,
                    through: false,
                }),
            }),
        }
    }

    /// True when positions are the filesystem's keys ([`Trust::Keyed`]).
    pub(super) fn keyed(&self) -> bool {
        self.keyed
    }

    /// True once a piece failed its checks.
    pub(super) fn broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts `pieces` more pieces to wait for.
    pub(super) fn expect(&self, pieces: usize) {
        self.ledger().unfinished += pieces;
    }

    /// A piece finished, having taken `taken`, its checks failed if `broke`: the
    /// rest to list if the split failed and this was the last piece.
    pub(super) fn finish(&self, taken: Option<Taken>, broke: bool) -> Option<Rest> {
        if broke {
            self.broken.store(true, Ordering::Relaxed);
        }
        let mut ledger = self.ledger();
        ledger.taken.extend(taken);
        ledger.unfinished -= 1;
        if ledger.unfinished > 0 || !self.broken() {
            return None;
        }
        let taken = std::mem::take(&mut ledger.taken);
        let scope = ledger.scope.take();
        Some(Rest {
            untaken: Untaken::new(self.order, taken, scope),
        })
    }
}

/// A job's piece of a giant directory.
pub struct PieceJob {
    pub(super) giant: Arc<Giant>,
    pub(super) piece: Piece,
    /// Set once the piece told its giant it finished ([`PieceJob::finish`]).
    finished: AtomicBool,
}

impl PieceJob {
    /// `piece` of `giant`, counted among those it waits for.
    pub(super) fn new(giant: Arc<Giant>, piece: Piece) -> PieceJob {
        giant.expect(1);
        PieceJob {
            giant,
            piece,
            finished: AtomicBool::new(false),
        }
    }

    /// What the pieces of its directory share.
    pub(super) fn giant(&self) -> &Arc<Giant> {
        &self.giant
    }

    /// A descriptor of the directory of its own, to seek and list the piece with.
    pub(super) fn open(&self) -> io::Result<OwnedFd> {
        cookies::reopen(self.giant.fd.as_raw_fd())
    }

    /// See [`Giant::finish`]; once only.
    pub(super) fn finish(&self, taken: Option<Taken>, broke: bool) -> Option<Rest> {
        if self.finished.swap(true, Ordering::Relaxed) {
            return None;
        }
        self.giant.finish(taken, broke)
    }
}

impl Drop for PieceJob {
    /// A piece dropped unlisted (sent to another rank, which lists its range, or
    /// left when the walk stopped) counts as taken whole.
    fn drop(&mut self) {
        let Piece { from, until, .. } = self.piece;
        let _ = self.finish(
            Some(Taken::Span {
                from: Some(from),
                to: until,
                through: false,
            }),
            false,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paths a worker puts together: a root's as typed (no slash doubled), its
    /// subdirectories' and theirs below, names of any bytes and length.
    #[test]
    fn paths_are_put_together_exactly() {
        let filter = Filter::default();
        let long = vec![b'n'; 255];
        let names: [&[u8]; 4] = [b"sub", b"x\ny \xff", &long, b"."];
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (b"dir", b"dir/", b"dir"),
            (b"dir/", b"dir/", b"dir/"),
            (b"/", b"/", b"/"),
            (b".", b"./", b"."),
            (b"", b"", b"."),
            (b"a//", b"a//", b"a//"),
        ];
        let mut buffer = Vec::new();
        for &(root, prefix, display) in cases {
            let job = DirJob::root(root, PathState::default());
            let dir = job.enter(&mut buffer, &filter);
            assert_eq!(dir.prefix, prefix);
            assert_eq!(dir.display_path(), display);
            assert_eq!(dir.depth, 0);
            // Each name of the listing, then one level further down.
            let mut collected = Vec::new();
            let children: Vec<Child> = names
                .iter()
                .map(|name| {
                    let child = Child {
                        name_start: collected.len(),
                        print_if_empty: name.len() == 3,
                        tracked_only: false,
                        index_at: 0,
                    };
                    collected.extend_from_slice(name);
                    collected.push(0);
                    child
                })
                .collect();
            let inherited = || Inherited {
                anchor: None,
                anchor_is_parent: false,
                id: None,
                root_dev: Some(7),
                rules: None,
            };
            let jobs: Vec<DirJob> =
                Siblings::queue(&dir, inherited(), &collected, children.into_iter()).collect();
            let prefix = dir.prefix.to_vec();
            for (job, name) in jobs.iter().zip(names) {
                let mut child_buffer = Vec::new();
                let child = job.enter(&mut child_buffer, &filter);
                let want = [&prefix[..], name, b"/"].concat();
                assert_eq!(child.prefix, &want[..]);
                assert_eq!(child.display_path(), &want[..want.len() - 1]);
                assert_eq!(child.depth, 1);
                assert_eq!(job.print_if_empty(), name.len() == 3);
                assert_eq!(job.root_dev(), Some(7));
                let grandchildren: Vec<DirJob> = Siblings::queue(
                    &child,
                    inherited(),
                    b"g\0",
                    std::iter::once(Child {
                        name_start: 0,
                        print_if_empty: false,
                        tracked_only: false,
                        index_at: 0,
                    }),
                )
                .collect();
                let mut deeper = Vec::new();
                let grandchild = grandchildren[0].enter(&mut deeper, &filter);
                assert_eq!(grandchild.prefix, [&want[..], b"g/"].concat());
                assert_eq!(grandchild.depth, 2);
            }
        }
    }

    /// What a queued directory costs in the pool, besides its name: a pointer to what
    /// it shares with its siblings and an offset.
    #[test]
    fn a_queued_directory_takes_three_words() {
        assert!(std::mem::size_of::<DirJob>() <= 3 * std::mem::size_of::<usize>());
    }
}
