//! A large file read in place (Linux): mapped, its pages the page cache's own,
//! under a read lease that keeps it from being cut short while it is mapped.
//!
//! Read into memory of its own, `/usr`'s 4.5 MB index cost the kernel clearing the
//! pages and copying the file into them: a quarter of `--index-trust`'s samples
//! (perf). Mapped, it costs neither; but a mapped file cut short is a SIGBUS at
//! the next touch of a page past its new end. The lease is what rules that out:
//! while it is held, a process that opens the file for writing or truncates it
//! waits (up to `/proc/sys/fs/lease-break-time`, 45 s by default), and this
//! process is sent [`lease_signal`]. Its handler copies each broken mapping into
//! anonymous memory at the same address (`mremap`), so that every borrow of the
//! bytes goes on reading the same bytes, and gives the lease up: the other
//! process goes on, and this one never touches the file again. Renaming or
//! removing the file (another pfind replacing its index, `--index-drop`) breaks
//! no lease and needs none: the mapping keeps the old file.
//!
//! Where no lease can be had (a filesystem without leases, such as NFS; the file
//! open for writing elsewhere; leases turned off; the signal already taken),
//! [`LeasedMap::new`] says so and the caller reads the file instead.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Once;

/// `F_SETSIG` (not in the `libc` crate for glibc targets): the value of
/// `asm-generic/fcntl.h`, which these architectures use; elsewhere no lease is
/// asked for.
const F_SETSIG: Option<libc::c_int> = if cfg!(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64",
    target_arch = "powerpc64",
    target_arch = "s390x",
    target_arch = "loongarch64"
)) {
    Some(10)
} else {
    None
};

/// The mappings a lease break may have to copy. Slots rather than a list: the
/// signal handler may only read atomics.
const SLOTS: usize = 8;

// A slot's states. `new` takes a FREE slot (CLAIMED), fills it and, once the
// lease is held and the size checked, makes it ACTIVE; the handler takes an ACTIVE one to COPYING and leaves it COPIED; the
// owner's drop takes ACTIVE or COPIED to CLOSING (waiting out COPYING) and frees it.
const FREE: u8 = 0;
const CLAIMED: u8 = 1;
const ACTIVE: u8 = 2;
const COPYING: u8 = 3;
const COPIED: u8 = 4;
const CLOSING: u8 = 5;

struct Slot {
    state: AtomicU8,
    fd: AtomicI32,
    base: AtomicUsize,
    len: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    state: AtomicU8::new(FREE),
    fd: AtomicI32::new(-1),
    base: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
};

static MAPPINGS: [Slot; SLOTS] = [EMPTY; SLOTS];

/// A file's bytes, mapped under a read lease (see the module's comment).
pub struct LeasedMap {
    slot: usize,
    base: *mut u8,
    len: usize,
    /// A descriptor of its own for the file (the lease is the open file's): closed
    /// last, after `drop` has unmapped it, which gives the lease up if the handler
    /// has not.
    _lease: OwnedFd,
}

// SAFETY: the mapping is owned by one `LeasedMap`, which hands out its bytes only
// through `&self`/`&mut self` borrows like a `Vec<u8>`; the handler replaces the
// pages under them with a copy of the same bytes, never changing what is read.
unsafe impl Send for LeasedMap {}
// SAFETY: as above; `&LeasedMap` gives only `&[u8]`.
unsafe impl Sync for LeasedMap {}

impl LeasedMap {
    /// The first `len` bytes of `file`, whose size is `len`, mapped under a read
    /// lease; `None` when a lease cannot be had or the file is no longer `len`
    /// bytes long (nothing is left behind).
    pub fn new(file: &File, len: usize) -> Option<LeasedMap> {
        if len == 0 {
            return None;
        }
        let set_signal = F_SETSIG?;
        let signal = lease_signal()?;
        // SAFETY: duplicating a descriptor the caller owns; the result is checked
        // and owned from here on.
        let raw = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
        if raw < 0 {
            return None;
        }
        // SAFETY: `raw` is a descriptor just made for this owner alone.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let slot = claim_slot()?;
        // SAFETY: a private mapping of `len` bytes of a file open for reading, at
        // an address the kernel chooses; the result is checked. Private: writes
        // (`Parsed::patched`) go to copies of the pages, never to the file.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE,
                raw,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            MAPPINGS[slot].state.store(FREE, Ordering::Release);
            return None;
        }
        let map = LeasedMap {
            slot,
            base: base.cast(),
            len,
            _lease: fd,
        };
        let entry = &MAPPINGS[slot];
        entry.fd.store(raw, Ordering::Relaxed);
        entry.base.store(base as usize, Ordering::Relaxed);
        entry.len.store(len, Ordering::Relaxed);
        // SAFETY: plain `fcntl`s on a descriptor this owns. The signal first, so
        // that a break right after the lease is already announced with it.
        let leased = unsafe {
            libc::fcntl(raw, set_signal, signal) == 0
                && libc::fcntl(raw, libc::F_SETLEASE, libc::F_RDLCK) == 0
        };
        // The file may have been cut between its `stat` and the lease; from here
        // on its size cannot change. Only then may the handler copy the mapping
        // (a copy of pages past the end would be the SIGBUS itself), so the slot
        // is made ACTIVE here. (Dropping `map` undoes everything.)
        if !leased || size_of(raw) != Some(len) {
            return None;
        }
        entry.state.store(ACTIVE, Ordering::Release);
        // SAFETY: as above. A break announced before the slot was ACTIVE found
        // nothing to copy: it is answered now.
        if unsafe { libc::fcntl(raw, libc::F_GETLEASE) } == libc::F_UNLCK {
            on_lease_break(signal);
        }
        // SAFETY: advice on a mapping this owns; refused by kernels before 5.14,
        // which then fault the pages in as they are read.
        unsafe { libc::madvise(base, len, libc::MADV_POPULATE_READ) };
        Some(map)
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `base .. base + len` is mapped, readable and within the file
        // (whose size the lease holds, or a copy of it), and lives as long as self.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as `as_slice`; the mapping is private and writable, and `&mut
        // self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
    }

    /// True once a lease break had the bytes copied out of the file.
    #[cfg(test)]
    fn copied(&self) -> bool {
        MAPPINGS[self.slot].state.load(Ordering::Acquire) == COPIED
    }
}

impl Drop for LeasedMap {
    fn drop(&mut self) {
        let entry = &MAPPINGS[self.slot];
        // A copy in progress (on another thread) is waited out; once CLOSING, the
        // handler leaves this mapping alone.
        loop {
            match entry.state.load(Ordering::Acquire) {
                COPYING => std::hint::spin_loop(),
                state => {
                    if entry
                        .state
                        .compare_exchange(state, CLOSING, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        break;
                    }
                }
            }
        }
        // SAFETY: `base`/`len` are the mapping this owns (or its copy, at the same
        // address), unmapped once; no borrow of the bytes outlives `self`.
        unsafe { libc::munmap(self.base.cast(), self.len) };
        entry.fd.store(-1, Ordering::Relaxed);
        entry.state.store(FREE, Ordering::Release);
        // `_lease` is closed after this, giving the lease up if it is still held.
    }
}

fn claim_slot() -> Option<usize> {
    (0..SLOTS).find(|&i| {
        MAPPINGS[i]
            .state
            .compare_exchange(FREE, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    })
}

fn size_of(fd: libc::c_int) -> Option<usize> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `stat` is writable; a failure is an error return.
    if unsafe { libc::fstat(fd, stat.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: fstat returned 0, so the struct is initialised.
    usize::try_from(unsafe { stat.assume_init() }.st_size).ok()
}

/// The signal a lease break is announced with (the first real-time signal),
/// its handler installed on first use; `None` where something else handles it
/// already.
fn lease_signal() -> Option<libc::c_int> {
    static INSTALLED: AtomicI32 = AtomicI32::new(0);
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let signal = libc::SIGRTMIN();
        let mut old = std::mem::MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: reading the signal's current action into a zeroed struct.
        if unsafe { libc::sigaction(signal, std::ptr::null(), old.as_mut_ptr()) } != 0 {
            return;
        }
        // SAFETY: sigaction returned 0, so `old` is filled in.
        if unsafe { old.assume_init() }.sa_sigaction != libc::SIG_DFL {
            return;
        }
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" start.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_lease_break as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_RESTART;
        // SAFETY: installing a handler that only touches atomics, copies memory
        // and makes system calls (see `on_lease_break`).
        if unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) } == 0 {
            INSTALLED.store(signal, Ordering::Release);
        }
    });
    Some(INSTALLED.load(Ordering::Acquire)).filter(|&signal| signal > 0)
}

/// A lease was broken: every mapping whose lease is being broken (the kernel
/// then reports it as going to `F_UNLCK`) is copied into anonymous memory at
/// its own address and its lease given up. Only atomics, `memcpy` and system
/// calls, as a signal handler must.
extern "C" fn on_lease_break(_signal: libc::c_int) {
    for entry in &MAPPINGS {
        // Taken first: while COPYING, its owner waits, so its descriptor and its
        // mapping stay what they are read as here.
        if entry
            .state
            .compare_exchange(ACTIVE, COPYING, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            continue;
        }
        let fd = entry.fd.load(Ordering::Relaxed);
        let base = entry.base.load(Ordering::Relaxed);
        let len = entry.len.load(Ordering::Relaxed);
        // SAFETY: `fcntl`s on the descriptor the slot's owner keeps open; the file
        // is not touched again once the lease is given up.
        let broken = unsafe { libc::fcntl(fd, libc::F_GETLEASE) } == libc::F_UNLCK;
        if broken && copy_in_place(base, len) {
            // SAFETY: as above.
            unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK) };
            entry.state.store(COPIED, Ordering::Release);
        } else {
            // Not this one's lease; or no memory for a copy, and then the lease is
            // kept: the other process waits until this one is done or the break
            // times out.
            entry.state.store(ACTIVE, Ordering::Release);
        }
    }
}

/// Replaces the mapping at `base` (`len` bytes) with anonymous memory holding the
/// same bytes, in one step: a reader on another thread sees the old pages or the
/// new ones, never neither.
fn copy_in_place(base: usize, len: usize) -> bool {
    // SAFETY: fresh anonymous memory at an address the kernel chooses; checked.
    let fresh = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if fresh == libc::MAP_FAILED {
        return false;
    }
    // SAFETY: `base .. base + len` is the owner's mapping, whole while the lease
    // holds the file's size (it is held until after this); `fresh` is as long and
    // apart from it. `mremap` with MREMAP_FIXED moves `fresh` over `base`,
    // unmapping the file's pages there.
    unsafe {
        std::ptr::copy_nonoverlapping(base as *const u8, fresh.cast::<u8>(), len);
        let moved = libc::mremap(
            fresh,
            len,
            len,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            base as *mut libc::c_void,
        );
        if moved == libc::MAP_FAILED {
            libc::munmap(fresh, len);
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8], name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        File::create(&path).unwrap().write_all(bytes).unwrap();
        (dir, path)
    }

    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// The test filesystems (ext4, tmpfs) grant leases: a map that falls back
    /// here would hide the rest.
    #[test]
    fn a_file_cut_short_while_mapped_is_read_whole_from_a_copy() {
        let want = bytes(3 << 20);
        let (_dir, path) = file_of(&want, "cut");
        let file = File::open(&path).unwrap();
        let map = LeasedMap::new(&file, want.len()).expect("a lease on the test filesystem");
        drop(file);
        assert!(map.as_slice() == want.as_slice());
        // Another opener that truncates waits for the lease, which the handler
        // gives up after copying the bytes.
        let cutter = std::thread::spawn(move || {
            std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&path)
                .unwrap();
            std::fs::metadata(&path).unwrap().len()
        });
        assert_eq!(cutter.join().unwrap(), 0, "the file was cut");
        // The lease is given up before the slot says COPIED: wait for it (a
        // correctness check, not a timing one: it never takes long).
        let mut waited = 0;
        while !map.copied() && waited < 5000 {
            std::thread::sleep(std::time::Duration::from_millis(1));
            waited += 1;
        }
        assert!(map.copied());
        // Every page past the file's new end is read: no SIGBUS, the same bytes.
        assert!(map.as_slice() == want.as_slice());
    }

    #[test]
    fn a_file_open_for_writing_elsewhere_is_not_mapped() {
        let want = bytes(1 << 20);
        let (_dir, path) = file_of(&want, "busy");
        let _writer = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let file = File::open(&path).unwrap();
        assert!(LeasedMap::new(&file, want.len()).is_none());
    }

    #[test]
    fn a_size_that_is_no_longer_the_files_is_not_mapped() {
        let want = bytes(1 << 20);
        let (_dir, path) = file_of(&want, "grown");
        let file = File::open(&path).unwrap();
        assert!(LeasedMap::new(&file, want.len() + 1).is_none());
        assert!(LeasedMap::new(&file, want.len()).is_some());
    }

    #[test]
    fn writes_go_to_the_copy_in_memory_never_to_the_file() {
        let want = bytes(1 << 20);
        let (_dir, path) = file_of(&want, "private");
        let file = File::open(&path).unwrap();
        let mut map = LeasedMap::new(&file, want.len()).unwrap();
        map.as_mut_slice()[..4].copy_from_slice(b"PFIX");
        assert_eq!(&map.as_slice()[..4], b"PFIX");
        drop(map);
        assert_eq!(std::fs::read(&path).unwrap(), want);
    }
}
