//! Test support: where a test that needs a big tree builds it.
//!
//! On the ext4 disk of our shared 2-vCPU machine, making and removing a tree of
//! 111,110 directories took two minutes (`mkdir` 54 s, `rm -rf` 67 s) and a flat
//! directory of 30,000 files half a minute, nearly all of a test's time; on a tmpfs
//! both take about a second. So a test whose subject is a tree's size (a descriptor
//! limit, a reader that leaves, a stop flag, a full pipe) builds it in `/dev/shm`, a
//! tmpfs on Linux, or in the usual temporary directory where that is missing or not
//! writable. Trees whose subject is names, kinds and the oracles' answers stay in the
//! usual temporary directory, on the file system people run pfind on.
//!
//! Compiled into the library's unit tests and, through `#[path]`, into
//! `tests/testenv`, so both use the same rule.

/// An empty temporary directory on a tmpfs where there is one, removed when dropped.
pub fn big_tree_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("temporary directory")
}
