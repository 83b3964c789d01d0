//! The process's resource limits, as `getrlimit` states them: what the stack
//! (`stack.rs`) and the number of workers (`memory.rs`) must fit in.

/// The soft `RLIMIT_AS` in bytes, or `None` when there is none.
// `rlim_t` is `u64` on Linux and macOS but `i64` on FreeBSD (where no limit is
// negative: `RLIM_INFINITY` is its largest value), so the cast is not redundant
// everywhere, as in `descriptors::raise_soft_limit`.
#[allow(clippy::unnecessary_cast)]
pub fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` into the struct passed.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) };
    (rc == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur as u64)
}
