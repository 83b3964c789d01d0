//! The roots of a walk, sorted by what is done with them (`scheduler.rs` walks
//! them).
//!
//! Roots are handled as `find -P` handles them: a directory is walked (it is depth 0
//! and never printed itself, as in fd); a regular file is itself a candidate (printed
//! as typed if it matches); a symbolic link is not followed unless `-L` is given (write
//! `link/` to walk the directory it points to; a warning says so for a link to a
//! directory that nothing would print) and is a candidate for `-t l`; a FIFO,
//! socket or device is a candidate too, which nothing matches (as `find fifo -type f`
//! prints nothing and succeeds); a root that does not exist is reported as an error
//! and the other roots are still walked. Roots that are candidates are handed to the
//! first worker, which tests them with the same code as any entry.

use crate::config::Config;
use crate::ignore::Gate;
use crate::index::IndexMode;
use crate::os::dirent::EntryKind;
use crate::os::fstype;
use crate::os::path::WorkingDir;
use crate::os::rank_root;
use crate::os::stat::{stat_at, Fields, Stat};
use crate::report::Reporter;
use crate::walker::{DirJob, Roots};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;

/// A root that is not walked but may itself match: a regular file, or a symbolic link
/// not followed (or dangling under `-L`).
pub struct RootEntry {
    printed: Vec<u8>,
    pub kind: EntryKind,
    pub stat: Stat,
}

impl RootEntry {
    /// The printed path split before its last component: the directory part (empty
    /// or ending in `/`) and the name the name filters test. A root that is not a
    /// directory never ends in `/` (the kernel refuses `file/`), so the last component
    /// is its basename.
    pub fn dir_and_name(&self) -> (&[u8], &[u8]) {
        let cut = self
            .printed
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(0, |slash| slash + 1);
        self.printed.split_at(cut)
    }
}

/// The roots of a walk, sorted by what is done with them.
pub struct SortedRoots {
    /// The directories to walk, as jobs.
    pub dirs: Vec<DirJob>,
    /// The roots that are candidates themselves (see [`RootEntry`]).
    pub entries: Vec<RootEntry>,
    /// In a shared walk, the root directories the peers make jobs against.
    pub shared: Roots,
    /// `--index`: each root directory and its `stat`, to find its index by.
    pub index: Vec<(Vec<u8>, Stat)>,
    /// True when a root directory is on a network filesystem (or the walk assumes
    /// one).
    pub remote: bool,
}

/// Sorts the roots of `config` (see the top of this file), reporting those that
/// cannot be. `shared`: a walk shared with other processes, where one
/// (`starts_with_roots`) tests the roots that are files and says what is wrong.
pub fn sort_roots(
    config: &Config,
    reporter: &Reporter,
    gate: Option<&Gate>,
    shared: bool,
    starts_with_roots: bool,
) -> SortedRoots {
    let mut roots = SortedRoots {
        dirs: Vec::new(),
        entries: Vec::new(),
        shared: Roots::default(),
        index: Vec::new(),
        remote: config.assume_network,
    };
    let mut working_dir = WorkingDir::default();
    let root_path = config.filter.root_path();
    for (index, root) in config.roots.iter().enumerate() {
        let root = root.as_bytes();
        let Some(printed) = printed_root(config, &mut working_dir, root, reporter) else {
            continue;
        };
        if config.files_from {
            // `dir/` names `dir`, printed without the slash as a walk prints it.
            let mut printed = printed;
            while printed.len() > 1 && printed.ends_with(b"/") {
                printed.pop();
            }
            match classify_root(root, config.follow, config.stat_fields()) {
                Ok((kind, stat)) => roots.entries.push(RootEntry {
                    printed,
                    kind,
                    stat,
                }),
                // As a walk reports an entry it cannot read: no hint of a pattern.
                Err(err) => reporter.path_error(root, &err),
            }
            continue;
        }
        match classify_root(root, config.follow, config.stat_fields()) {
            // Depth 0 is the root itself, never printed: list it only if its entries
            // may be printed.
            Ok((EntryKind::Dir, _)) if !config.filter.scope(0, root_path).descend => {}
            Ok((EntryKind::Dir, stat)) => {
                // A root on a network filesystem (one statfs per root) shares
                // subdirectories mid-listing and, without -j, lets the walk grow to
                // what the latency asks for.
                roots.remote = roots.remote
                    || CString::new(rank_root::opened(root))
                        .is_ok_and(|path| fstype::is_remote(&path));
                if config.index != IndexMode::Off && !shared {
                    roots.index.push((root.to_vec(), stat));
                }
                let mut job = DirJob::root(&printed, root_path).identified(&stat);
                if let Some(gate) = gate {
                    job = job.with_rules(gate.root_rules(root, reporter));
                }
                if shared {
                    let device = config.one_file_system.then_some(stat.id().0);
                    roots.shared.add(index, &job, device);
                }
                roots.dirs.push(job)
            }
            // In a shared walk, one process alone tests the roots that are files.
            Ok(_) if !starts_with_roots => {}
            Ok((kind, stat)) => {
                if kind == EntryKind::Symlink && !config.filter.links_may_match() {
                    hint_link_to_dir(root, reporter);
                }
                roots.entries.push(RootEntry {
                    printed,
                    kind,
                    stat,
                });
            }
            // In a shared walk the roots are the same everywhere, and one process
            // says what is wrong with them (a rank's own mount aside).
            // Named as opened: under `pfind-mpi --rank-root`, the rank's own path.
            Err(err) if starts_with_roots || rank_root::is_set() => {
                reporter.root_error(&rank_root::opened(root), &err)
            }
            Err(_) => {}
        }
    }
    roots
}

/// The root as its paths are printed: absolute with `--absolute-path`, nothing for
/// the implicit root, without `./` under `--strip-cwd-prefix`, else as typed.
/// `None` (reported) when its absolute path cannot be had.
fn printed_root(
    config: &Config,
    working_dir: &mut WorkingDir,
    root: &[u8],
    reporter: &Reporter,
) -> Option<Vec<u8>> {
    if config.absolute {
        match working_dir.absolute(root) {
            Ok(path) => Some(path),
            Err(err) => {
                reporter.path_error(root, &err);
                None
            }
        }
    } else if config.implicit_root {
        Some(Vec::new())
    } else if config.strip_cwd_prefix {
        Some(without_dot_slash(root).to_vec())
    } else {
        Some(root.to_vec())
    }
}

/// `--strip-cwd-prefix`: `root` as printed without a leading `./` (and the slashes
/// after it, so that `.//x` does not become the absolute `/x`); `.` and `./` become
/// the empty prefix of the implicit root.
pub fn without_dot_slash(root: &[u8]) -> &[u8] {
    let mut rest = root;
    while let Some(after) = rest.strip_prefix(b"./") {
        rest = &after[after.iter().take_while(|&&b| b == b'/').count()..];
    }
    if rest == b"." {
        &[]
    } else {
        rest
    }
}

/// The root's kind and `stat`, with the `fields` the run reads: its own, or with `-L`
/// its target's. Under `-L` a dangling link is still a link, as with `find -L`.
/// Taken [`Fields::lenient`]: a directory root is walked whether or not it has a
/// birth time, and one that is a file is checked when it is tested.
fn classify_root(root: &[u8], follow: bool, fields: Fields) -> io::Result<(EntryKind, Stat)> {
    let c_root = CString::new(rank_root::opened(root))
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let fields = fields.lenient().with(Fields::ID);
    let stat = match stat_at(libc::AT_FDCWD, &c_root, follow, fields) {
        Err(err) if follow && err.raw_os_error() == Some(libc::ENOENT) => {
            stat_at(libc::AT_FDCWD, &c_root, false, fields)?
        }
        result => result?,
    };
    Ok((EntryKind::from_mode(stat.mode()), stat))
}

/// For a root that is a symbolic link not followed, and that nothing prints: if
/// it leads to a directory, says how to search that, since the run would print
/// nothing and say nothing (issue 28). find -P, bfs and fd -t f print nothing
/// there either; find and bfs print the link itself without `-type f`.
fn hint_link_to_dir(root: &[u8], reporter: &Reporter) {
    let leads_to_dir = CString::new(root)
        .ok()
        .and_then(|c_root| stat_at(libc::AT_FDCWD, &c_root, true, Fields::TYPE).ok())
        .is_some_and(|stat| EntryKind::from_mode(stat.mode()) == EntryKind::Dir);
    if leads_to_dir {
        let mut message = root.to_vec();
        message.extend_from_slice(
            b" is a symbolic link to a directory, and links are not followed: to search \
              the directory, give it as ",
        );
        message.extend_from_slice(root);
        message.extend_from_slice(b"/ or use -L");
        reporter.warning(&message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_cwd_prefix_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b".", b""),
            (b"./", b""),
            (b"./src", b"src"),
            (b"./src/", b"src/"),
            (b".//src", b"src"),
            (b"././src", b"src"),
            (b"./.", b""),
            (b"./.hidden", b".hidden"),
            (b"..", b".."),
            (b"../x", b"../x"),
            (b".x", b".x"),
            (b"src", b"src"),
            (b"/abs", b"/abs"),
        ];
        for &(root, want) in cases {
            assert_eq!(
                without_dot_slash(root),
                want,
                "{}",
                String::from_utf8_lossy(root)
            );
        }
    }
}
