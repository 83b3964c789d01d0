//! Where a new thread starts: a worker, or a helper that lists or prints a giant
//! directory beside the worker that started it.
//!
//! A new thread is queued on the CPU of the thread that created it. If that thread keeps
//! running (the first worker does: it goes on walking while the others start), the new
//! one waits for the scheduler to move it to an idle CPU, which the kernel does from its
//! periodic load balancing, a tick later. On the machine this was measured on (a 2-vCPU
//! KVM guest whose kernel packs tasks onto few vCPUs) that was most of a small walk:
//! on `deep` (363 directories) the second worker started 1.5 ms late (median of 40
//! runs) and then shared the first worker's CPU to the end, so two workers took as long
//! as one (5.3 ± 1.4 ms against 5.7 for `-j 1`). The kernel as often runs the new
//! thread first and queues its creator behind it: the helpers that print a giant
//! record began, or left the worker waiting, 1 to 4 ms late.
//!
//! [`CpuSpread`] fixes that without pinning anything: if the new threads have not
//! begun to run a moment after they were started ([`Placement`]; the scheduler checks
//! in `Crew::place`, threads working together in [`Together`]), the thread that sees
//! it moves *itself* to another CPU it is allowed on (by narrowing its own affinity for
//! a moment), which leaves the other alone on the CPU it was queued on, and then gives
//! its own affinity back exactly as it was. No thread is pinned. The check matters:
//! where the kernel did place a new worker on an idle CPU (a process that has walked
//! before, say), moving there would queue the creator behind it, which cost 1 to 4 ms
//! per walk.

#[cfg(target_os = "linux")]
use crate::os::cpus::CpuSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long threads just started may take to begin running before the thread that
/// started them takes them to be queued behind it and moves away
/// ([`Placement::check`]). A thread the kernel puts on an idle CPU runs within tens
/// of microseconds; one queued behind a busy thread waits for the load balancer, a
/// millisecond or more here.
const PLACEMENT_WAIT: Duration = Duration::from_micros(100);

/// Threads this one has just started (workers, or helpers that print or list a
/// giant directory with it), watched until they have begun to run: if they have
/// not [`PLACEMENT_WAIT`] later, they are queued behind this thread on its CPU, and
/// this thread moves to another ([`CpuSpread`]). Where the kernel placed them well
/// they are running by then, and this thread stays: moving anyway would put it
/// behind one of them on that one's CPU, which in a process that walks many times
/// (the library in a loop) took 1 to 4 ms per walk. A copy for each thread
/// started lets each look for the others (the kernel may as well run the new
/// thread first and queue the old one behind it).
#[derive(Clone)]
pub struct Placement {
    started_at: Instant,
    started: usize,
    settled: bool,
}

impl Placement {
    /// `started` threads were started just now (or are about to be).
    pub fn new(started: usize) -> Placement {
        Placement {
            started_at: Instant::now(),
            started,
            settled: started == 0,
        }
    }

    /// Called now and then by a thread while it works on: `running` of the
    /// started threads have begun. True when this thread moved to another CPU.
    pub fn check(&mut self, running: usize) -> bool {
        if self.settled {
            return false;
        }
        if running >= self.started {
            self.settled = true;
            return false;
        }
        if self.started_at.elapsed() < PLACEMENT_WAIT {
            return false;
        }
        self.settled = true;
        let spread = CpuSpread::new();
        spread.step_aside();
        spread.finish();
        true
    }

    /// True once the started threads were seen running, or this thread moved.
    pub fn settled(&self) -> bool {
        self.settled
    }
}

/// Threads that work on one task together, started at once (a worker and the
/// helpers it started): each counts itself in as it begins ([`Self::begin`]) and
/// looks between its parts of the work whether all have ([`Began::look`]), the one
/// running moving to another CPU if they have not ([`Placement`]).
pub struct Together {
    running: AtomicUsize,
    placement: Placement,
}

impl Together {
    /// `threads` threads, the caller among them, are about to begin.
    pub fn new(threads: usize) -> Together {
        Together {
            running: AtomicUsize::new(0),
            placement: Placement::new(threads),
        }
    }

    /// Called by each thread as it begins its share of the work.
    pub fn begin(&self) -> Began<'_> {
        self.running.fetch_add(1, Ordering::Relaxed);
        Began {
            together: self,
            placement: self.placement.clone(),
        }
    }
}

/// One thread of a [`Together`], begun.
pub struct Began<'t> {
    together: &'t Together,
    placement: Placement,
}

impl Began<'_> {
    /// Between two parts of the work: if the others have not all begun a while
    /// after they were started, this thread moves to another CPU (once).
    pub fn look(&mut self) {
        let running = self.together.running.load(Ordering::Relaxed);
        self.placement.check(running);
    }
}

/// Spreads newly started threads over CPUs; see the module comment.
pub struct CpuSpread {
    #[cfg(target_os = "linux")]
    allowed: Option<CpuSet>,
}

impl CpuSpread {
    /// Remembers the calling thread's affinity, to be given back by `finish`.
    pub fn new() -> CpuSpread {
        CpuSpread {
            // Not in the `portable` build (Cargo.toml): other systems leave it all
            // to their scheduler.
            #[cfg(target_os = "linux")]
            allowed: CpuSet::of_this_thread()
                .filter(|set| set.count() > 1 && !cfg!(feature = "portable")),
        }
    }

    /// Called by the creating thread right after it started a worker: moves itself to
    /// another allowed CPU, leaving the new worker the one it is queued on.
    pub fn step_aside(&self) {
        #[cfg(target_os = "linux")]
        if let Some(elsewhere) = self.allowed.and_then(|set| set.without_this_cpu()) {
            elsewhere.apply_to_this_thread();
        }
    }

    /// Gives the creating thread its own affinity back, exactly as it was.
    pub fn finish(self) {
        #[cfg(target_os = "linux")]
        if let Some(allowed) = &self.allowed {
            allowed.apply_to_this_thread();
        }
    }
}

impl Default for CpuSpread {
    fn default() -> CpuSpread {
        CpuSpread::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_seen_running_settle_their_placement_without_a_move() {
        assert!(Placement::new(0).settled());
        let mut placement = Placement::new(2);
        assert!(!placement.check(1));
        assert!(!placement.settled());
        assert!(!placement.check(2));
        assert!(placement.settled());
        // Settled: never moves after.
        std::thread::sleep(PLACEMENT_WAIT * 2);
        assert!(!placement.check(0));
    }

    #[test]
    fn spreading_gives_the_affinity_back() {
        #[cfg(target_os = "linux")]
        fn cpus() -> Vec<usize> {
            CpuSet::of_this_thread().expect("sched_getaffinity").cpus()
        }
        // On a thread of its own, so the test runner's thread is never moved.
        std::thread::spawn(|| {
            #[cfg(target_os = "linux")]
            let before = cpus();
            let spread = CpuSpread::new();
            for _ in 0..3 {
                spread.step_aside();
            }
            spread.finish();
            #[cfg(target_os = "linux")]
            assert_eq!(cpus(), before);
        })
        .join()
        .unwrap();
    }
}
