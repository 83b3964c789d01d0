//! A directory waiting in the pool, as it travels to another process: a cluster
//! walk's ranks (`cluster`) hand each other jobs as [`WireJob`]s. A [`DirJob`] is
//! pointers into this process (the names its siblings share, open ancestors, a
//! giant directory's descriptor); a `WireJob` is what another process needs to
//! make the same job of its own: which root, the path below it, the depth, the
//! flags the lister set, and for a piece of a giant directory its cookie range.
//!
//! The receiving rank opens the directory from its root by that path
//! (`descriptors::open_dir` with no anchor: beneath the root, no link followed),
//! so it needs nothing of the sender's descriptors. What a job inherits that
//! cannot be rebuilt from the path alone (`-L`'s chain of identities, `--ignore`'s
//! rules) is why the cluster binary refuses those options.

use super::job::{DirJob, Giant, PieceJob, NO_DEVICE};
use crate::filter::Filter;
use crate::os::cookies::{Order, Piece};
use std::io;
use std::sync::Arc;

/// A job as another process receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireJob {
    /// Which of the walk's root directories (in the order the roots were given,
    /// files left out) it lies under.
    pub root: u32,
    /// 0 for the root itself.
    pub depth: u32,
    /// The path below the root (empty for the root), names joined by `/`.
    pub below: Vec<u8>,
    pub print_if_empty: bool,
    pub tracked_only: bool,
    /// A piece of a giant directory's listing, not the whole directory.
    pub piece: Option<WirePiece>,
}

/// The cookie range of a piece, and what the pieces of its directory share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WirePiece {
    pub order: Order,
    pub extent: u64,
    pub from: u64,
    pub until: Option<u64>,
}

/// The root directories of a walk, as each rank classified them, to make and read
/// [`WireJob`]s against: each root's own job (shared, never queued) and, under
/// `-x`, its device.
#[derive(Default)]
pub struct Roots {
    /// Each with its index among all the roots given, which every process counts
    /// alike (a root this process could not open has none here).
    roots: Vec<(usize, DirJob, Option<u64>)>,
}

impl Roots {
    /// Adds the root directory given `index`th: `job` a second job for it (its
    /// siblings shared with the one queued), `device` its device under `-x`.
    pub fn add(&mut self, index: usize, job: &DirJob, device: Option<u64>) {
        self.roots.push((index, job.share(), device));
    }

    /// The wire form of `job`, or `None` if it is not below one of these roots.
    pub fn to_wire(&self, job: &DirJob) -> Option<WireJob> {
        let from = job.siblings();
        let root_len = from.root_printed_len();
        let mut path = from.prefix().to_vec();
        path.extend_from_slice(job.name());
        let root_printed = path.get(..root_len)?;
        let &(index, ..) = self.roots.iter().find(|(_, root, _)| {
            let theirs = root.siblings();
            theirs.root_printed_len() == root_len
                && root.name() == root_printed
                && theirs.root_identity() == from.root_identity()
        })?;
        let below_start =
            (root_len + usize::from(path.get(root_len) == Some(&b'/'))).min(path.len());
        // A piece of tmpfs's listing is known only by the ledger of its giant
        // here: it stays (issue 47).
        if job.piece().is_some_and(|piece| !piece.giant.keyed()) {
            return None;
        }
        let piece = job.piece().map(|piece| WirePiece {
            order: piece.giant.order,
            extent: piece.giant.extent,
            from: piece.piece.from,
            until: piece.piece.until,
        });
        Some(WireJob {
            root: u32::try_from(index).ok()?,
            depth: u32::try_from(job.depth()).ok()?,
            below: path[below_start..].to_vec(),
            print_if_empty: job.print_if_empty(),
            tracked_only: job.tracked_only(),
            piece,
        })
    }

    /// The printed path of the directory `wire` describes, for messages (the
    /// path below the root alone if this process has not that root).
    pub fn printed(&self, wire: &WireJob) -> Vec<u8> {
        match self
            .roots
            .iter()
            .find(|(index, ..)| *index == wire.root as usize)
        {
            Some((_, root, _)) => joined(root.name(), &wire.below),
            None => wire.below.clone(),
        }
    }

    /// The job `wire` describes, made in this process: its path put together from
    /// this process's root, a giant directory opened afresh for a piece.
    pub fn job(&self, wire: &WireJob, filter: &Filter, follow: bool) -> io::Result<DirJob> {
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
        let (_, root, device) = self
            .roots
            .iter()
            .find(|(index, ..)| *index == wire.root as usize)
            .ok_or_else(|| invalid("its root could not be opened on this rank"))?;
        let job = if wire.depth == 0 {
            root.share()
        } else {
            let below = &wire.below;
            let cut = below
                .iter()
                .rposition(|&b| b == b'/')
                .map_or(0, |slash| slash + 1);
            let (parent, name) = below.split_at(cut);
            if name.is_empty() || name == b"." || name == b".." {
                return Err(invalid("a job with no directory name"));
            }
            let template = root.siblings();
            let mut state = template.path_state();
            for component in parent.split(|&b| b == b'/').filter(|c| !c.is_empty()) {
                state = filter.subdir_path(state, component).unwrap_or_default();
            }
            let mut prefix = joined(root.name(), parent);
            if !prefix.is_empty() && !prefix.ends_with(b"/") {
                prefix.push(b'/');
            }
            let siblings = template.elsewhere(
                prefix,
                name,
                wire.depth as usize,
                state,
                device.unwrap_or(NO_DEVICE),
            );
            DirJob::in_siblings(Arc::new(siblings), wire.print_if_empty, wire.tracked_only)
        };
        let Some(piece) = wire.piece else {
            return Ok(job);
        };
        let mut path = Vec::new();
        let dir = job.enter(&mut path, filter);
        let fd = dir.open(follow)?;
        let giant = Giant::received(fd, piece.order, piece.extent, piece.from, piece.until);
        let piece = Piece {
            from: piece.from,
            until: piece.until,
            order: piece.order,
            first: None,
        };
        Ok(job.with_piece(PieceJob::new(Arc::new(giant), piece)))
    }
}

/// A root's printed path and a path below it, joined as the walk joins them.
fn joined(root: &[u8], below: &[u8]) -> Vec<u8> {
    let below = below.strip_suffix(b"/").unwrap_or(below);
    if below.is_empty() {
        return root.to_vec();
    }
    if root.is_empty() {
        return below.to_vec();
    }
    let mut path = root.to_vec();
    if !root.ends_with(b"/") {
        path.push(b'/');
    }
    path.extend_from_slice(below);
    path
}

impl WireJob {
    /// Appends the job to `out`: fixed fields little-endian, then the path.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut flags = 0u8;
        flags |= u8::from(self.print_if_empty);
        flags |= u8::from(self.tracked_only) << 1;
        if let Some(piece) = &self.piece {
            flags |= 1 << 2;
            flags |= u8::from(piece.order == Order::Descending) << 3;
            flags |= u8::from(piece.until.is_some()) << 4;
        }
        out.extend_from_slice(&self.root.to_le_bytes());
        out.extend_from_slice(&self.depth.to_le_bytes());
        out.push(flags);
        if let Some(piece) = &self.piece {
            out.extend_from_slice(&piece.extent.to_le_bytes());
            out.extend_from_slice(&piece.from.to_le_bytes());
            out.extend_from_slice(&piece.until.unwrap_or(0).to_le_bytes());
        }
        let len = u32::try_from(self.below.len()).expect("a path is shorter than 4 GiB");
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&self.below);
    }

    /// Reads one job from the front of `bytes`, returning it and what follows.
    pub fn decode(bytes: &[u8]) -> Option<(WireJob, &[u8])> {
        let (root, rest) = take_u32(bytes)?;
        let (depth, rest) = take_u32(rest)?;
        let (&flags, mut rest) = rest.split_first()?;
        let piece = if flags & (1 << 2) != 0 {
            let (extent, r) = take_u64(rest)?;
            let (from, r) = take_u64(r)?;
            let (until, r) = take_u64(r)?;
            rest = r;
            Some(WirePiece {
                order: match flags & (1 << 3) != 0 {
                    true => Order::Descending,
                    false => Order::Ascending,
                },
                extent,
                from,
                until: (flags & (1 << 4) != 0).then_some(until),
            })
        } else {
            None
        };
        let (len, rest) = take_u32(rest)?;
        let len = len as usize;
        if rest.len() < len {
            return None;
        }
        let (below, rest) = rest.split_at(len);
        let job = WireJob {
            root,
            depth,
            below: below.to_vec(),
            print_if_empty: flags & 1 != 0,
            tracked_only: flags & 2 != 0,
            piece,
        };
        Some((job, rest))
    }
}

fn take_u32(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = bytes.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*head), rest))
}

fn take_u64(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let (head, rest) = bytes.split_first_chunk::<8>()?;
    Some((u64::from_le_bytes(*head), rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::path::PathState;

    fn sample(piece: Option<WirePiece>) -> WireJob {
        WireJob {
            root: 3,
            depth: 7,
            below: b"a/b\n c/\xff".to_vec(),
            print_if_empty: true,
            tracked_only: false,
            piece,
        }
    }

    #[test]
    fn jobs_read_back_as_written_one_after_another() {
        let jobs = [
            sample(None),
            sample(Some(WirePiece {
                order: Order::Descending,
                extent: u64::MAX,
                from: 12,
                until: None,
            })),
            sample(Some(WirePiece {
                order: Order::Ascending,
                extent: 99,
                from: 0,
                until: Some(0),
            })),
            WireJob {
                root: 0,
                depth: 0,
                below: Vec::new(),
                print_if_empty: false,
                tracked_only: true,
                piece: None,
            },
        ];
        let mut bytes = Vec::new();
        for job in &jobs {
            job.encode(&mut bytes);
        }
        let mut rest = &bytes[..];
        for job in &jobs {
            let (read, after) = WireJob::decode(rest).unwrap();
            assert_eq!(&read, job);
            rest = after;
        }
        assert!(rest.is_empty());
        // Cut short anywhere, a job does not read.
        for job in &jobs {
            let mut alone = Vec::new();
            job.encode(&mut alone);
            for end in 0..alone.len() {
                assert!(WireJob::decode(&alone[..end]).is_none(), "{end}");
            }
        }
    }

    /// A job made from its wire form elsewhere has the path, depth and flags the
    /// lister's had, under every shape of root.
    #[test]
    fn a_job_sent_away_comes_back_the_same() {
        let filter = Filter::default();
        for root in [&b"dir"[..], b"dir/", b"/", b"", b"a//"] {
            let mut roots = Roots::default();
            let root_job = DirJob::root(root, PathState::default());
            roots.add(0, &root_job, None);
            for below in [&b"x"[..], b"x/y\n", b"x/y/\xffz"] {
                let depth = below.iter().filter(|&&b| b == b'/').count() as u32 + 1;
                let wire = WireJob {
                    root: 0,
                    depth,
                    below: below.to_vec(),
                    print_if_empty: depth == 2,
                    tracked_only: false,
                    piece: None,
                };
                let job = roots.job(&wire, &filter, false).unwrap();
                let mut path = Vec::new();
                let dir = job.enter(&mut path, &filter);
                assert_eq!(dir.display_path(), joined(root, below));
                assert_eq!(roots.printed(&wire), dir.display_path());
                assert_eq!(dir.depth, depth as usize);
                assert_eq!(roots.to_wire(&job), Some(wire));
            }
            assert_eq!(roots.to_wire(&root_job).unwrap().below, b"");
        }
    }
}
