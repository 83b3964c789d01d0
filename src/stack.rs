//! Enough stack for the main thread, whatever `ulimit -s` says.
//!
//! The main thread's stack is limited by `RLIMIT_STACK`, and pfind needs more of it
//! than a C program does: clap's parser for pfind's options alone is one function
//! with a 34 KiB frame, so under `ulimit -s 40` even `pfind --version` overflowed
//! and died of SIGSEGV without a word (issue 20; find and bfs run at 16 KiB). Worker
//! threads never had the problem: their stacks are mapped for them, 2 MiB each,
//! whatever the limit. So when the limit is below that, the whole run moves to a
//! thread with a stack of that size, and the main thread only waits for it. A
//! normal limit (8 MiB, or none) costs one `getrlimit` at start-up.
//!
//! So does an address-space limit (`ulimit -v`), for another reason: the main
//! thread's stack grows a page at a time as it is used, and each page counts against
//! that limit, so a limit that left room for the program but not for the parser's
//! frames ended it with SIGSEGV (a debug build at 10 MB, seen while testing issue
//! 38). A thread's stack is mapped whole when it starts: either it can be, and the
//! run never faults for want of stack, or it cannot, and that is said.

use crate::os::limits::{address_space_limit, stack_limit};
use crate::report::Reporter;
use std::io;

/// The stack a worker thread gets from Rust's standard library, and the least the
/// main thread runs with.
pub const RUN_STACK: usize = 2 << 20;

/// Runs `run` on this thread if its stack may grow to [`RUN_STACK`], else on a
/// thread with a stack that large. If that thread cannot be started (the address
/// space limit leaves no room for it), says so and returns status 1.
///
/// Call it first thing from `main`, before anything deep is on the stack.
pub fn with_enough_stack(run: fn() -> i32) -> i32 {
    if stack_limit() >= RUN_STACK as u64 && address_space_limit().is_none() {
        return run();
    }
    on_larger_stack(run)
}

/// Kept out of line: the caller's frame is all the small stack has to hold.
#[inline(never)]
fn on_larger_stack(run: fn() -> i32) -> i32 {
    let started = std::thread::Builder::new().stack_size(RUN_STACK).spawn(run);
    match started {
        // `run` catches its panics itself; this is only in case one escapes it.
        Ok(handle) => handle.join().unwrap_or(101),
        Err(err) => {
            let why = match address_space_limit() {
                Some(limit) if stack_limit() >= RUN_STACK as u64 => format!(
                    "the address-space limit ({} KiB) leaves no room for a thread with a \
                     {} KiB stack",
                    limit / 1024,
                    RUN_STACK / 1024
                ),
                _ => format!(
                    "the limit ({} KiB) is too small, and a thread with a {} KiB stack \
                     cannot start",
                    stack_limit() / 1024,
                    RUN_STACK / 1024
                ),
            };
            let err = io::Error::new(
                err.kind(),
                format!("{why}: {}", crate::report::describe(&err)),
            );
            Reporter::new().error("stack", &err);
            1
        }
    }
}
