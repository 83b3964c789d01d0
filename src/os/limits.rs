//! The process's resource limits, as `getrlimit` and `sysconf` state them: what the
//! stack (`stack.rs`), the number of workers (`memory.rs`), the descriptors the walk
//! keeps open (`descriptors.rs`, `exec/mod.rs`) and a command line (`exec/batch.rs`)
//! must fit in. Every limit pfind reads is read here.
//!
//! `rlim_t` is `u64` on Linux and macOS but `i64` on FreeBSD (where no limit is
//! negative: `RLIM_INFINITY` is its largest value), so the casts to `u64` below are
//! not redundant everywhere: hence the `allow`s.

/// The type of the `RLIMIT_*` constants, which glibc declares an enum of its own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// The soft and hard values of `resource`, or `None` when they cannot be read.
#[allow(clippy::unnecessary_cast)]
fn get(resource: Resource) -> Option<(u64, u64)> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` into the struct passed.
    let rc = unsafe { libc::getrlimit(resource, &mut limit) };
    (rc == 0).then_some((limit.rlim_cur as u64, limit.rlim_max as u64))
}

/// `RLIM_INFINITY` as the `u64` that [`get`] returns for "no limit".
#[allow(clippy::unnecessary_cast)]
const UNLIMITED: u64 = libc::RLIM_INFINITY as u64;

/// The soft `RLIMIT_AS` in bytes, or `None` when there is none.
pub fn address_space_limit() -> Option<u64> {
    get(libc::RLIMIT_AS)
        .map(|(soft, _)| soft)
        .filter(|&soft| soft != UNLIMITED)
}

/// The soft `RLIMIT_STACK` in bytes: `u64::MAX` when unlimited, and taken as
/// unlimited when it cannot be read.
pub fn stack_limit() -> u64 {
    match get(libc::RLIMIT_STACK) {
        Some((soft, _)) if soft != UNLIMITED => soft,
        _ => u64::MAX,
    }
}

/// The soft and hard `RLIMIT_NOFILE`, or `None` when they cannot be read
/// (`getrlimit` does not fail in practice).
pub fn descriptor_limits() -> Option<(u64, u64)> {
    get(libc::RLIMIT_NOFILE)
}

/// Sets the soft `RLIMIT_NOFILE` to `soft`, keeping the hard limit `hard` (as
/// [`descriptor_limits`] read it); true when it was set. Raising it up to the hard
/// limit needs no privilege.
#[allow(clippy::unnecessary_cast)]
pub fn set_descriptor_limit(soft: u64, hard: u64) -> bool {
    let limit = libc::rlimit {
        rlim_cur: soft as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: `limit` is a valid rlimit struct, only read.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 }
}

/// `sysconf(_SC_ARG_MAX)`: the bytes a command's arguments and environment may
/// take, or `None` when the system does not say.
pub fn arg_max() -> Option<usize> {
    // SAFETY: sysconf reads a configuration value; it has no memory effects.
    let limit = unsafe { libc::sysconf(libc::_SC_ARG_MAX) };
    usize::try_from(limit).ok().filter(|&limit| limit > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_as_the_shell_sees_them() {
        let (soft, hard) = descriptor_limits().expect("RLIMIT_NOFILE");
        assert!(soft <= hard && soft > 0);
        assert!(stack_limit() > 0);
        assert!(arg_max().expect("ARG_MAX") >= 4096);
        // Setting the soft limit to what it is changes nothing and succeeds.
        assert!(set_descriptor_limit(soft, hard));
        assert_eq!(descriptor_limits(), Some((soft, hard)));
    }
}
