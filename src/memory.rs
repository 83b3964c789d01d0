//! The address-space budget: how many workers fit under `RLIMIT_AS` (`ulimit -v`).
//!
//! A worker's memory is mostly address space it may never touch: its thread stack
//! (2 MiB, mapped whole when the thread starts), its 64 KiB listing buffer and an
//! output block that grows to 512 KiB before it is written. `RLIMIT_AS` counts all
//! of it. Under `ulimit -v 200000` at `-j 64` those alone took most of the limit, so
//! whatever came next failed: a listing buffer, an output block, a sort run, the
//! queue (issue 20: 13 of 20 runs aborted, often having printed nothing). So, as the
//! descriptor limit does (`descriptors`), the address-space limit bounds the pool:
//! the workers may take half of the address space still free when the walk starts,
//! and the other half is left for what the walk holds, which depends on the tree.
//! What still does not fit ends the run with a message and status 1 (see `alloc`).
//!
//! glibc's allocator gives each new thread an arena of its own, and reserves 64 MiB
//! of address space for each; under a limit that reservation would take the room
//! counted here for workers, so with a limit set all threads share one arena. Without
//! a limit (the usual case) nothing changes, for the cost of one `getrlimit`.

use crate::os::dirent::DIRENT_BUFFER_SIZE;
use crate::os::limits::address_space_limit;
use crate::output::sink::OUTPUT_FLUSH_THRESHOLD;
use crate::stack::RUN_STACK;

/// Address space one worker may take: its stack and the page that guards it, its
/// listing buffer, and its output block at its largest (it is written once it holds
/// [`OUTPUT_FLUSH_THRESHOLD`], by which time it may have doubled to twice that).
pub const WORKER_ADDRESS_SPACE: u64 =
    (RUN_STACK + 4096 + DIRENT_BUFFER_SIZE + 2 * OUTPUT_FLUSH_THRESHOLD) as u64;

/// How many of `requested` workers (the first one, the calling thread, included)
/// fit under the address-space limit; at least one. Call it before any worker
/// starts.
pub fn affordable_workers(requested: usize) -> usize {
    affordable_threads(requested, WORKER_ADDRESS_SPACE)
}

/// How many of `requested` threads of `each` bytes of address space (one of them
/// taken as counted already) fit in half of what the limit leaves free; at least
/// one. The threads that run commands (`exec`) ask first, then the walk's workers
/// share half of what is left. Call it before any of those threads starts.
pub fn affordable_threads(requested: usize, each: u64) -> usize {
    let Some(limit) = address_space_limit() else {
        return requested;
    };
    share_one_arena();
    workers_within(limit, mapped_now(), requested, each)
}

/// The arithmetic of [`affordable_threads`]: the threads beyond the first may take
/// half of what `limit` leaves free once `mapped` bytes are in use.
fn workers_within(limit: u64, mapped: u64, requested: usize, each: u64) -> usize {
    let free = limit.saturating_sub(mapped);
    let more = free / 2 / each.max(1);
    let affordable = usize::try_from(more)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    requested.clamp(1, affordable)
}

/// The address space the process has mapped now (`VmSize`), or 0 if it cannot be
/// read (then the whole limit is taken as free).
fn mapped_now() -> u64 {
    let Ok(statm) = std::fs::read("/proc/self/statm") else {
        return 0;
    };
    let pages: u64 = statm
        .split(|&b| b == b' ')
        .next()
        .and_then(|field| std::str::from_utf8(field).ok()?.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages.saturating_mul(u64::try_from(page_size).unwrap_or(4096))
}

/// Makes every thread allocate from the main arena (glibc's `M_ARENA_MAX`), so that
/// no thread reserves 64 MiB of address space for an arena of its own.
fn share_one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator; no worker has started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_take_half_of_the_free_address_space() {
        const MB: u64 = 1_000_000;
        let per_worker = WORKER_ADDRESS_SPACE;
        // (limit, mapped, requested, allowed)
        let cases: &[(u64, u64, usize, usize)] = &[
            (200 * MB, 4 * MB, 64, 1 + (98 * MB / per_worker) as usize),
            (200 * MB, 4 * MB, 2, 2),
            (10 * MB, 4 * MB, 1024, 2),
            (10 * MB, 9 * MB, 1024, 1),
            // Already over the limit, or an empty request: still one worker.
            (10 * MB, 20 * MB, 16, 1),
            (10 * MB, 0, 0, 1),
            (u64::MAX, 0, 1024, 1024),
        ];
        // Smaller threads: more of them.
        assert_eq!(workers_within(10 * MB, 4 * MB, 1024, MB / 2), 7);
        for &(limit, mapped, requested, want) in cases {
            assert_eq!(
                workers_within(limit, mapped, requested, per_worker),
                want,
                "{limit} {mapped} {requested}"
            );
        }
    }

    // A worker is counted at its stack and buffers: a little over 2.5 MiB.
    const _: () = assert!(WORKER_ADDRESS_SPACE > 5 << 19 && WORKER_ADDRESS_SPACE < 3 << 20);
}
