//! Where a test watches or disturbs a walk from the inside: a [`Probe`] it installs
//! once for the process, which the walk asks at a few points (a directory about to
//! be opened, opened, an anchor closed, a listing's subdirectories shared early, an
//! entry's kind asked alone).
//!
//! Why a hook rather than lines compiled into tests only: the code a test runs
//! is then the code that ships, and what the tests need of it is written down in
//! one place. Nothing installs a probe outside tests, so each point costs a walk one
//! load and one branch that is never taken; none is per entry (a listing without
//! kinds is asked for once per directory, and made by the reader, see
//! `os::dirent::DirReader::forget_kinds`).

use std::os::fd::RawFd;
use std::sync::OnceLock;

/// What a test may watch or change. Every method does nothing by default.
pub trait Probe: Sync {
    /// Before a worker opens a directory to list it (not a piece of one), given its
    /// printed path.
    fn opening(&self, _path: &[u8]) {}
    /// After a worker opened a directory to list it, given its printed path.
    fn opened(&self, _path: &[u8]) {}
    /// True when the directory about to be listed, by the path its entries are
    /// printed under, is to be listed as a filesystem without file types does it.
    fn kinds_hidden(&self, _prefix: &[u8]) -> bool {
        false
    }
    /// An entry's kind was asked with an `lstat` of its own, not with its listing's
    /// others, in the directory printed as `prefix`.
    fn stat_asked_alone(&self, _prefix: &[u8]) {}
    /// A listing queued its subdirectories found so far; `before_the_end` when more
    /// batches follow.
    fn shared_mid_listing(&self, _before_the_end: bool) {}
    /// An anchor's descriptor was closed.
    fn closed(&self, _fd: RawFd) {}
}

static PROBE: OnceLock<&'static dyn Probe> = OnceLock::new();

/// Installs `probe` for the rest of the process; a second probe is refused (the first
/// stays), as tests running at once share the one.
pub fn install(probe: &'static dyn Probe) {
    let _ = PROBE.set(probe);
}

/// The probe a test installed, if any.
#[inline(always)]
pub fn installed() -> Option<&'static dyn Probe> {
    PROBE.get().copied()
}

#[cfg(test)]
pub(crate) mod tests {
    /// The tests' probe: each point hands over to the test module that sets it up.
    struct TestProbe;

    impl super::Probe for TestProbe {
        fn opening(&self, path: &[u8]) {
            crate::descriptors::tests::before_open(path);
        }
        fn opened(&self, path: &[u8]) {
            crate::walker::tests::after_open(path);
        }
        fn kinds_hidden(&self, prefix: &[u8]) -> bool {
            crate::walker::tests::types_hidden(prefix)
        }
        fn stat_asked_alone(&self, prefix: &[u8]) {
            crate::walker::tests::stat_asked_alone(prefix);
        }
        fn shared_mid_listing(&self, before_the_end: bool) {
            crate::walker::tests::shared_mid_listing(before_the_end);
        }
        fn closed(&self, fd: std::os::fd::RawFd) {
            crate::descriptors::tests::note_close(fd);
        }
    }

    /// Installs the tests' probe, if it is not yet: call it first in a test that
    /// sets up one of the points above.
    pub(crate) fn install() {
        super::install(&TestProbe);
    }
}
