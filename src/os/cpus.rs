//! The CPUs under the process and the time spent on them: the affinity mask (which
//! CPUs a thread may run on, and moving the calling thread between them) and
//! `getrusage`'s CPU times and context switches. `threads.rs` decides what to do
//! with them.

use std::time::Duration;

/// User and system CPU time used so far by the whole process, every thread included.
pub fn process_cpu_time() -> Option<Duration> {
    rusage_cpu(&resource_usage(libc::RUSAGE_SELF)?)
}

/// The calling thread's voluntary context switches and CPU time so far (one
/// `getrusage`).
#[cfg(target_os = "linux")]
pub fn thread_usage() -> Option<(u64, Duration)> {
    let usage = resource_usage(libc::RUSAGE_THREAD)?;
    let switches = u64::try_from(usage.ru_nvcsw).ok()?;
    Some((switches, rusage_cpu(&usage)?))
}

/// User plus system time of a `getrusage` reading.
fn rusage_cpu(usage: &libc::rusage) -> Option<Duration> {
    let time = |t: libc::timeval| -> Option<Duration> {
        Some(Duration::new(
            u64::try_from(t.tv_sec).ok()?,
            u32::try_from(t.tv_usec).ok()? * 1000,
        ))
    };
    Some(time(usage.ru_utime)? + time(usage.ru_stime)?)
}

/// `getrusage` for `who`: the whole process (`RUSAGE_SELF`) or the calling thread.
fn resource_usage(who: libc::c_int) -> Option<libc::rusage> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: `usage` is a writable rusage; getrusage fills it completely on success.
    if unsafe { libc::getrusage(who, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so the struct is initialised.
    Some(unsafe { usage.assume_init() })
}

/// A set of CPUs, as an affinity mask holds them.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
pub struct CpuSet(libc::cpu_set_t);

#[cfg(target_os = "linux")]
impl CpuSet {
    /// The calling thread's affinity mask.
    pub fn of_this_thread() -> Option<CpuSet> {
        // SAFETY: an all-zero cpu_set_t is a valid (empty) set.
        let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `allowed` is a writable cpu_set_t of the size given.
        let rc = unsafe {
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed)
        };
        (rc == 0).then_some(CpuSet(allowed))
    }

    /// How many CPUs the set holds.
    pub fn count(&self) -> usize {
        // SAFETY: CPU_COUNT only reads the set.
        let count = unsafe { libc::CPU_COUNT(&self.0) };
        usize::try_from(count).unwrap_or(0)
    }

    /// The set without the CPU the calling thread runs on now; `None` when that is
    /// not known or nothing would be left.
    pub fn without_this_cpu(&self) -> Option<CpuSet> {
        // SAFETY: sched_getcpu has no preconditions.
        let here = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
        let mut elsewhere = *self;
        // SAFETY: CPU_CLR only touches the set it is given; `here` is a CPU number the
        // kernel returned, within the set's size.
        unsafe { libc::CPU_CLR(here, &mut elsewhere.0) };
        (elsewhere.count() > 0).then_some(elsewhere)
    }

    /// The CPU numbers in the set, in order.
    pub fn cpus(&self) -> Vec<usize> {
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: CPU_ISSET only reads the set, at a CPU number within its size.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &self.0) })
            .collect()
    }

    /// Makes the set the calling thread's affinity mask. A failure (a cpuset changed
    /// under us) only leaves placement to the kernel, which is what it was before.
    pub fn apply_to_this_thread(&self) {
        // SAFETY: `self.0` is a valid cpu_set_t of the size given, only read.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read() {
        assert!(process_cpu_time().is_some());
        #[cfg(target_os = "linux")]
        {
            assert!(thread_usage().is_some());
            let set = CpuSet::of_this_thread().expect("sched_getaffinity");
            assert_eq!(set.count(), set.cpus().len());
            assert!(set.count() > 0);
            if let Some(elsewhere) = set.without_this_cpu() {
                assert_eq!(elsewhere.count(), set.count() - 1);
            }
        }
    }
}
