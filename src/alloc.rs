//! Running out of memory: a message and status 1, never an abort.
//!
//! When an allocation fails, Rust's default is to print `memory allocation of N bytes
//! failed` and abort (SIGABRT, status 134, a core dump where enabled). Under
//! `ulimit -v` with many workers that happened anywhere (a worker's listing buffer,
//! an output block, a sort run, the queue), often before anything was printed
//! (issue 20). [`ExitOnOom`], the binary's global allocator, is the system allocator
//! with one difference: an allocation that fails prints
//! `pfind: out of memory (could not allocate N bytes)` on stderr and ends the process
//! with status 1. The few allocations pfind can do without (a worker's buffers: a
//! worker that cannot have them does not start, and the walk goes on with the others)
//! are made inside [`fallible`], where a failure is returned to the caller as usual.
//!
//! What it costs: the failure test is one compare and branch after each call to the
//! system allocator, which callgrind counts in the default walk's noise (one
//! allocation per directory).

use crate::decimal;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, with an allocation failure made a message and status 1
/// (outside [`fallible`]).
pub struct ExitOnOom;

thread_local! {
    /// True while this thread is inside [`fallible`].
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `allocate` with allocation failures returned to it as null pointers (so that
/// `Vec::try_reserve` and friends report them), rather than ending the process.
pub fn fallible<T>(allocate: impl FnOnce() -> T) -> T {
    let outer = FALLIBLE.with(|flag| flag.replace(true));
    let result = allocate();
    FALLIBLE.with(|flag| flag.set(outer));
    result
}

// SAFETY: every method forwards to `System` with the same arguments, and returns what
// it returned; `failed` only ever returns when the caller asked for failures to be
// returned (null, as `System` gave it), and otherwise ends the process.
unsafe impl GlobalAlloc for ExitOnOom {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, passed on as is.
        let ptr = unsafe { System.alloc(layout) };
        if ptr.is_null() {
            failed(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if ptr.is_null() {
            failed(layout.size());
        }
        ptr
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`; the caller upholds `realloc`'s contract.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if new.is_null() {
            failed(new_size);
        }
        new
    }
}

/// Set by the first thread to report running out of memory.
static REPORTED: AtomicBool = AtomicBool::new(false);

/// An allocation of `size` bytes failed: returns inside [`fallible`]; otherwise
/// prints the message and ends the process with status 1. Allocates nothing.
#[cold]
#[inline(never)]
fn failed(size: usize) {
    if FALLIBLE.with(Cell::get) {
        return;
    }
    if REPORTED.swap(true, Ordering::Relaxed) {
        // Another thread is printing the message and ending the process.
        loop {
            // SAFETY: pause has no preconditions; the process is about to exit.
            unsafe { libc::pause() };
        }
    }
    let mut line = [0u8; 80];
    let len = oom_message(size, &mut line);
    // SAFETY: `line[..len]` is initialised and readable; _exit ends the process at
    // once, as an abort would, without running anything that could allocate.
    unsafe {
        libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), len);
        libc::_exit(1);
    }
}

/// Writes `pfind: out of memory (could not allocate SIZE bytes)` and a newline into
/// `out`, without allocating; returns its length.
fn oom_message(size: usize, out: &mut [u8; 80]) -> usize {
    const HEAD: &[u8] = b"pfind: out of memory (could not allocate ";
    const TAIL: &[u8] = b" bytes)\n";
    let mut buffer = [0u8; decimal::MAX_DIGITS];
    let digits = decimal::digits(size as u64, &mut buffer);
    let mut len = 0;
    for part in [HEAD, digits, TAIL] {
        out[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_size() {
        for (size, want) in [
            (0, "pfind: out of memory (could not allocate 0 bytes)\n"),
            (
                65536,
                "pfind: out of memory (could not allocate 65536 bytes)\n",
            ),
        ] {
            let mut out = [0u8; 80];
            let len = oom_message(size, &mut out);
            assert_eq!(std::str::from_utf8(&out[..len]).unwrap(), want);
        }
        let mut out = [0u8; 80];
        let len = oom_message(usize::MAX, &mut out);
        let want = format!(
            "pfind: out of memory (could not allocate {} bytes)\n",
            usize::MAX
        );
        assert_eq!(std::str::from_utf8(&out[..len]).unwrap(), want);
    }

    #[test]
    fn fallible_sections_nest_and_end() {
        assert!(!FALLIBLE.with(Cell::get));
        fallible(|| {
            assert!(FALLIBLE.with(Cell::get));
            fallible(|| assert!(FALLIBLE.with(Cell::get)));
            assert!(FALLIBLE.with(Cell::get));
        });
        assert!(!FALLIBLE.with(Cell::get));
    }
}
