//! A directory waiting in the pool ([`DirJob`]), the identity chain `-L` checks for
//! loops ([`DirId`]), and what a walk found ([`Summary`]).

use crate::descriptors::{open_dir, Anchor, Root};
use crate::filter::path::PathState;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::Arc;

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
}

impl Summary {
    pub fn add(&mut self, other: Summary) {
        self.matches += other.matches;
        self.bytes += other.bytes;
        self.workers += other.workers;
    }
}

/// A directory waiting to be read.
pub struct DirJob {
    /// What is printed before each entry's name: the directory's path and a `/`,
    /// or nothing at all for the implicit `.` root.
    pub(super) prefix: Vec<u8>,
    /// Length of the directory's own path at the start of `prefix` (for opening it and
    /// for error messages); for a root this is the root exactly as typed.
    pub(super) path_len: usize,
    /// The nearest open ancestor to open this directory relative to; `None` opens it
    /// from its root (see `descriptors`).
    pub(super) anchor: Option<Arc<Anchor>>,
    /// The anchor is this directory's parent, so the path below it is one name.
    pub(super) anchor_is_parent: bool,
    /// The root it was reached from, for when no anchor is left.
    pub(super) root: Root,
    /// 0 for a root; the directory's entries are at `depth + 1`.
    pub(super) depth: usize,
    /// `-t e`: the directory itself matches if it turns out to have no entries, which
    /// only the worker that lists it can tell.
    pub(super) print_if_empty: bool,
    /// `-L`: the identity of the directory this one was found in, linked to its own
    /// parent's, up to the root: the chain a symbolic link must not lead back into.
    pub(super) parent_id: Option<Arc<DirId>>,
    /// `-x`: the device of the root this directory was reached from (`None` for a
    /// root, whose own device becomes its descendants').
    pub(super) root_dev: Option<u64>,
    /// `-p`: how far the directory's path below its root goes into the pattern.
    pub(super) path_state: PathState,
}

/// A directory's identity, and its parent's: one link of the chain of directories on
/// the current path, which `-L` checks for loops. Shared by all children through `Arc`.
#[derive(Debug)]
pub struct DirId {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) parent: Option<Arc<DirId>>,
}

impl DirId {
    /// True when (`dev`, `ino`) is this directory or one of its ancestors: entering it
    /// would walk the same directories again, forever.
    pub(super) fn is_on_path(self: &Arc<DirId>, dev: u64, ino: u64) -> bool {
        let mut current = Some(self);
        while let Some(id) = current {
            if id.dev == dev && id.ino == ino {
                return true;
            }
            current = id.parent.as_ref();
        }
        false
    }
}

/// A `stat`'s (device, inode): what identifies a directory for `-L` and `-x`.
// `dev_t` and `ino_t` are `u64` on Linux but narrower or signed elsewhere, so the casts
// are not redundant everywhere.
#[allow(clippy::unnecessary_cast)]
pub(super) fn identity(stat: &libc::stat) -> (u64, u64) {
    (stat.st_dev as u64, stat.st_ino as u64)
}

impl DirJob {
    /// The job for a root directory, printed as `root` was typed. `root` empty means
    /// the implicit `.`, whose entries are printed without a `./` prefix.
    /// `path_state` is the filter's state for a root (`Filter::root_path`).
    pub fn root(root: &[u8], path_state: PathState) -> DirJob {
        let mut prefix = root.to_vec();
        if !root.is_empty() && !root.ends_with(b"/") {
            prefix.push(b'/');
        }
        DirJob {
            prefix,
            path_len: root.len(),
            anchor: None,
            anchor_is_parent: false,
            root: Root::new(root.len()),
            depth: 0,
            print_if_empty: false,
            parent_id: None,
            root_dev: None,
            path_state,
        }
    }

    pub(super) fn child(&self, name: &[u8], path_state: PathState) -> DirJob {
        let mut prefix = Vec::with_capacity(self.prefix.len() + name.len() + 1);
        prefix.extend_from_slice(&self.prefix);
        prefix.extend_from_slice(name);
        let path_len = prefix.len();
        prefix.push(b'/');
        DirJob {
            prefix,
            path_len,
            anchor: None,
            anchor_is_parent: false,
            root: self.root,
            depth: self.depth + 1,
            print_if_empty: false,
            parent_id: None,
            root_dev: self.root_dev,
            path_state,
        }
    }

    /// The printed path of the entry `name` of this directory, for messages.
    pub(super) fn entry_path(&self, name: &[u8]) -> Vec<u8> {
        [&self.prefix[..], name].concat()
    }

    /// The directory's path for messages; `.` for the implicit root.
    pub(super) fn display_path(&self) -> &[u8] {
        match &self.prefix[..self.path_len] {
            b"" => b".",
            path => path,
        }
    }

    /// The root job, known to be the directory `stat` describes (when the walk
    /// started), so that reopening it later can check it still is.
    pub fn identified(mut self, stat: &libc::stat) -> DirJob {
        self.root = self.root.identified(stat);
        self
    }

    /// Opens the directory. Unless `follow`, no symbolic link below the root is
    /// followed, even one that replaced a directory since its parent was listed.
    pub(super) fn open(&self, follow: bool) -> io::Result<OwnedFd> {
        open_dir(
            &self.prefix[..self.path_len],
            self.anchor.as_deref(),
            self.anchor_is_parent,
            &self.root,
            follow,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_prefixes_never_double_the_slash() {
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (b"dir", b"dir/", b"dir"),
            (b"dir/", b"dir/", b"dir/"),
            (b"/", b"/", b"/"),
            (b".", b"./", b"."),
            (b"", b"", b"."),
            (b"a//", b"a//", b"a//"),
        ];
        for &(root, prefix, display) in cases {
            let job = DirJob::root(root, PathState::default());
            assert_eq!(job.prefix, prefix);
            assert_eq!(job.display_path(), display);
            let child = job.child(b"sub", PathState::default());
            let mut want = prefix.to_vec();
            want.extend_from_slice(b"sub/");
            assert_eq!(child.prefix, want);
            assert_eq!(child.display_path(), &want[..want.len() - 1]);
        }
    }

    #[test]
    fn loops_are_found_anywhere_on_the_path() {
        let root = Arc::new(DirId {
            dev: 1,
            ino: 2,
            parent: None,
        });
        let child = Arc::new(DirId {
            dev: 1,
            ino: 3,
            parent: Some(root.clone()),
        });
        let grandchild = Arc::new(DirId {
            dev: 9,
            ino: 2,
            parent: Some(child.clone()),
        });
        assert!(grandchild.is_on_path(9, 2)); // itself
        assert!(grandchild.is_on_path(1, 3)); // its parent
        assert!(grandchild.is_on_path(1, 2)); // the root
        assert!(!grandchild.is_on_path(1, 4));
        assert!(!grandchild.is_on_path(9, 3)); // same inode, other device
        assert!(!child.is_on_path(9, 2)); // a descendant is not on the path
    }
}
