//! Worker threads and the CPUs under them: how many workers a walk has, where a new
//! worker starts, and whether a worker is waiting on the disk rather than working.
//!
//! # Starting a worker on a free CPU
//!
//! A new thread is queued on the CPU of the thread that created it. If that thread keeps
//! running (the first worker does: it goes on walking while the others start), the new
//! one waits for the scheduler to move it to an idle CPU, which the kernel does from its
//! periodic load balancing, a tick later. On the machine this was measured on (a 2-vCPU
//! KVM guest whose kernel packs tasks onto few vCPUs) that was most of a small walk:
//! on `deep` (363 directories) the second worker started 1.5 ms late (median of 40
//! runs) and then shared the first worker's CPU to the end, so two workers took as long
//! as one (5.3 ± 1.4 ms against 5.7 for `-j 1`).
//!
//! [`CpuSpread`] fixes that without pinning anything: if the new workers have not
//! begun to run a moment after they were started (the scheduler checks, see
//! `Crew::place`), the creating thread moves *itself* to another CPU it is allowed on
//! (by narrowing its own affinity for a moment), which leaves the new worker alone on
//! the CPU it was queued on, and then gives its own affinity back exactly as it was.
//! No worker's affinity is ever changed. The check matters: where the kernel did place
//! a new worker on an idle CPU (a process that has walked before, say), moving there
//! would queue the creator behind it, which cost 1 to 4 ms per walk.
//!
//! # Noticing a wait on the disk
//!
//! With a cold cache, listing a directory waits for its inode and its blocks to be read;
//! the CPU is idle meanwhile, and more workers would keep more reads in flight. A warm
//! walk is pure CPU work, where workers beyond the CPU count only add switching. To
//! tell the two apart for the cost of two clock reads per directory, the walker times
//! each directory, and only when one took longer than [`SLOW_DIRECTORY`] asks the
//! kernel (one `getrusage`) whether the thread made a *voluntary* context switch since
//! it last looked: that is what blocking on I/O is, where being preempted by another
//! process is an involuntary one. [`DiskWaitWatch`] keeps that count.

use std::time::{Duration, Instant};

/// Highest `-j` accepted. Far above any useful value; it exists so that a typo such as
/// `-j 100000` is an error rather than an attempt to start a hundred thousand threads.
pub const MAX_THREADS: usize = 1024;

/// The worker count used when `-j` is not given, as it is known at start-up.
///
/// On macOS, APFS serialises directory reads per volume and four workers measured best
/// (see docs/design.md). Everywhere else, one worker per CPU the
/// process may run on (its affinity mask, one system call); the scheduler lowers that
/// to [`cpus_within_quota`] once a walk has directories to share.
pub fn default_threads() -> usize {
    if cfg!(target_os = "macos") {
        4
    } else {
        cpus_allowed()
            .unwrap_or_else(num_cpus::get)
            .clamp(1, MAX_THREADS)
    }
}

/// The CPUs the process may use, a cgroup CPU quota included (what `num_cpus` counts);
/// on macOS the fixed four of [`default_threads`].
pub fn cpus_within_quota() -> usize {
    if cfg!(target_os = "macos") {
        4
    } else {
        num_cpus::get().clamp(1, MAX_THREADS)
    }
}

/// With no `-j`, the most workers a walk grows to while reading directories waits on
/// the disk (a cold cache): each waiting worker is one more read in flight. A warm walk
/// never waits and keeps `default_threads()`. See [`DiskWaitWatch`] for how a wait is
/// told from work, and docs/design.md for the measurements behind the number.
pub const MAX_WORKERS_WHEN_WAITING: usize = 32;

/// How many workers may be added to `threads` during a walk with no `-j`.
pub fn default_spare_threads(threads: usize) -> usize {
    MAX_WORKERS_WHEN_WAITING.saturating_sub(threads)
}

/// With no `-j`, the most workers a walk grows to when a root is on a network or
/// FUSE filesystem (`os::fstype`): there every directory operation is a round trip,
/// and each worker waiting is one request in flight. On a FUSE filesystem holding
/// each request 5 ms (docs/benchmarks.md, "Network and FUSE filesystems"), `-j 256`
/// was the fastest setting measured; the descriptor budget and the address space
/// (`descriptors.rs`, `memory.rs`) may allow fewer, and then set the cap.
pub const MAX_WORKERS_ON_NETWORK: usize = 256;

/// How many workers may be added to `threads` during a walk with no `-j` whose root
/// is on a network filesystem.
pub fn network_spare_threads(threads: usize) -> usize {
    MAX_WORKERS_ON_NETWORK.saturating_sub(threads)
}

/// Below this CPU time per interval, a reading is too coarse to divide by.
const LEAST_CPU: Duration = Duration::from_micros(5);

/// The workers a walk on a network filesystem asks for when a directory waited
/// `wall` and cost its worker `cpu` of CPU: each worker keeps one request in flight
/// and uses `cpu / wall` of a CPU, so `wall / cpu` workers keep one CPU busy with
/// the answers. One CPU's worth, not all of them: on the machine measured the other
/// CPU was busy serving the requests (a local FUSE server), and there the ratio
/// (27, 74 and 219 at 0.2, 1 and 5 ms) matched the best `-j` (32, 64-128, 256). The
/// CPU gate ([`GrowthGate`]) stops the growth short of it when the CPUs are busy.
pub fn workers_for_latency(wall: Duration, cpu: Duration) -> usize {
    let cpu = cpu.max(LEAST_CPU);
    let ratio = wall.as_secs_f64() / cpu.as_secs_f64();
    // Capped well above any pool, so that the cast cannot overflow.
    ratio.ceil().min(MAX_THREADS as f64) as usize
}

/// A directory's estimate ([`workers_for_latency`]) is trusted only where the
/// workers the walk has asked for so far are at most this share of it: then the
/// wait it measured was mostly round trips. With more workers a wait is also a wait
/// for a CPU that the FUSE server and the other workers keep busy, so each worker
/// added lengthens every wait and the estimate follows the workers up: on the FUSE
/// tree, taking every estimate (their largest) grew the pool to the cap of 256 at
/// D = 0.2 ms, where 32 to 64 workers were fastest, and at 1 ms, where 64 to 128
/// were. A quarter: at 5 ms the estimates (several hundred) are trusted from the
/// start and the pool reaches the cap as before; at 0.2 ms (16 to 40) the walk
/// stays near the first of them.
pub const TRUSTED_SHARE: f64 = 0.25;

/// The workers to ask for on a network filesystem after a directory whose wait
/// over its CPU time asked for `estimate`, where `wanted` have been asked for so
/// far (the workers running, or soon): the estimate if it is trusted (see
/// [`TRUSTED_SHARE`]), else none. It replaces, there, the one more worker per wait
/// of a local disk.
pub fn trusted_estimate(estimate: usize, wanted: usize) -> Option<usize> {
    (wanted as f64 <= estimate as f64 * TRUSTED_SHARE).then_some(estimate)
}

/// A directory that took less than this cannot have waited for a disk read worth
/// another worker, and is not looked at further. Well above a warm listing of a small
/// directory (a few microseconds), so a warm walk of small directories never asks the
/// kernel anything; a warm directory of a thousand entries takes about this long, and
/// pays one `getrusage` for it (under 1% of its cost).
pub const SLOW_DIRECTORY: Duration = Duration::from_micros(50);

/// Directories in a row that must have blocked before they count as waits on the
/// disk. A warm walk blocks now and then for other reasons (another thread holding the
/// memory map's lock while it grows a buffer, a page of the binary read back in), one
/// directory at a time; a cold walk blocks on nearly every directory. Measured on
/// `deep`, warm: 10 of 60 runs added a worker with a single blocked directory as
/// evidence, none with two in a row.
const WAITS_IN_A_ROW: u32 = 2;

/// Counts whether the current thread keeps blocking in the kernel while it lists
/// directories.
#[derive(Debug, Default)]
pub struct DiskWaitWatch {
    /// The thread's voluntary context switches when last read; `None` when they must be
    /// read afresh, after the thread blocked for a reason of its own (parking, writing
    /// output to a slow reader), which must not count as a wait on the disk.
    switches: Option<u64>,
    /// Slow directories in a row, up to the last one looked at, that blocked.
    blocked_in_a_row: u32,
    /// When the count was last read and the thread's CPU time then: the start of the
    /// interval that the next look measures (see [`Self::latency`]).
    since: Option<(Instant, Duration)>,
    /// The last interval that blocked: its wall time and the thread's CPU time in it.
    latency: Option<(Duration, Duration)>,
}

impl DiskWaitWatch {
    /// Called after a directory was listed in `elapsed`: true when the thread blocked
    /// in the kernel while listing it (or since the last look), and had blocked on the
    /// slow directories just before it as well: the walk is waiting on the disk.
    pub fn waited(&mut self, elapsed: Duration) -> bool {
        if elapsed < SLOW_DIRECTORY {
            return false;
        }
        let reading = thread_reading();
        let now = reading.map(|r| r.0);
        match (self.switches, now) {
            (Some(before), Some(now)) if now > before => {
                self.blocked_in_a_row += 1;
                if let (Some((then, cpu_then)), Some((_, cpu, at))) = (self.since, reading) {
                    let cpu = cpu.saturating_sub(cpu_then);
                    // The CPU of one directory swings with its size far more than its
                    // round trips do: averaged over this worker's recent ones.
                    let average = match self.latency {
                        Some((_, average)) => (average * 7 + cpu) / 8,
                        None => cpu,
                    };
                    self.latency = Some((at.duration_since(then), average));
                }
            }
            (Some(_), Some(_)) => self.blocked_in_a_row = 0,
            // No count to compare with: neither evidence nor its absence.
            _ => {}
        }
        self.switches = now;
        self.since = reading.map(|(_, cpu, at)| (at, cpu));
        self.blocked_in_a_row >= WAITS_IN_A_ROW
    }

    /// A watch that has read the count already, so that the very first slow
    /// directory can be judged (the first worker's, before any other starts).
    pub fn primed() -> DiskWaitWatch {
        let reading = thread_reading();
        DiskWaitWatch {
            switches: reading.map(|r| r.0),
            since: reading.map(|(_, cpu, at)| (at, cpu)),
            ..DiskWaitWatch::default()
        }
    }

    /// The wall time and this thread's CPU time of the last interval between two
    /// looks in which it blocked: what a directory waits against what it costs.
    pub fn latency(&self) -> Option<(Duration, Duration)> {
        self.latency
    }

    /// True when the last slow directory blocked: one directory's worth of evidence,
    /// enough only where nothing else could have blocked the thread (a lone worker).
    pub fn last_blocked(&self) -> bool {
        self.blocked_in_a_row > 0
    }

    /// Forgets the count: the thread is about to block for a reason of its own.
    pub fn reset(&mut self) {
        self.switches = None;
        self.since = None;
    }
}

/// Workers per CPU that a walk starts with when its first listing waited on the disk.
/// Growing from one per CPU one worker at a time took long enough on `medium` (100
/// directories, cold) to cost 13% against `-j 6`; four per CPU sits in the flat
/// stretch of that tree's curve (`-j 6` to `-j 12` within 3% of each other) and still
/// leaves `/usr`, which wants more, to grow.
pub const COLD_START_PER_CPU: usize = 4;

/// How often a pool that was asked for more workers may start one.
pub const GROWTH_INTERVAL: Duration = Duration::from_millis(1);

/// A new worker may start only while the process keeps less than this share of its
/// CPUs busy. Past it, more workers mean more reads in flight but no more CPU to handle
/// them: on the `medium` tree with a cold cache (2 CPUs), the process used 77% of the
/// CPUs at `-j 4` (37.3 ms), 83% at `-j 6` to `-j 8` (33.6-34.1 ms, the fastest) and
/// 85% or more from `-j 16` on, slower again (36.2 ms and up, 43.7 at `-j 32`); on
/// `/usr` (15,000 directories) it stayed near 73% from `-j 16` to `-j 32`, both best.
pub const BUSY_SHARE: f64 = 0.8;

/// Each growth step on a network filesystem at most multiplies the workers by this,
/// so that the count asked for is measured again under the load of the workers the
/// last step started, and a step is taken only while all of them are busy (see
/// [`workers_to_start`]). From 8, three steps reach 256.
pub const LATENCY_STEP: usize = 4;

/// What the pool looks like to [`workers_to_start`].
#[derive(Clone, Copy, Debug)]
pub struct PoolState {
    /// Workers started, the calling one included.
    pub running: usize,
    /// Workers asked for.
    pub wanted: usize,
    /// Workers parked for want of a directory, now.
    pub idle: usize,
    /// The workers the walk has whatever the disk does: one per CPU.
    pub cpus: usize,
    /// A root on a network filesystem (`Pool::with_latency_growth`).
    pub latency_growth: bool,
}

/// How many workers to start now: up to one per CPU at once; past that, only when
/// the CPU gate is open (`gate_open`, asked only then), and then one. On a network
/// filesystem the count asked for was measured ([`workers_for_latency`]) and the
/// thread that starts workers comes back only after its next directory, several
/// round trips later, so a step starts many: up to [`LATENCY_STEP`] times those
/// running, but none while a worker is parked, since then directories, not workers,
/// are what the walk is short of.
pub fn workers_to_start(state: PoolState, gate_open: impl FnOnce() -> bool) -> usize {
    let PoolState {
        running,
        wanted,
        idle,
        cpus,
        latency_growth,
    } = state;
    if running >= wanted {
        return 0;
    }
    if running < cpus {
        return if latency_growth { cpus - running } else { 1 };
    }
    if latency_growth && idle > 0 {
        return 0;
    }
    if !gate_open() {
        0
    } else if latency_growth {
        (wanted - running).min(running * (LATENCY_STEP - 1))
    } else {
        1
    }
}

/// Lets a growing pool start one worker at a time, and only while the CPUs are not
/// already kept busy (see [`BUSY_SHARE`]).
#[derive(Debug)]
pub struct GrowthGate {
    /// When the process's CPU time was last read, and what it was.
    last: Option<(Instant, Duration)>,
}

impl GrowthGate {
    /// A gate that takes its first reading now.
    pub fn new() -> GrowthGate {
        GrowthGate {
            last: process_cpu_time().map(|cpu| (Instant::now(), cpu)),
        }
    }

    /// True when one more worker may start now, for a process that may use `cpus`
    /// CPUs. At most one `getrusage` per [`GROWTH_INTERVAL`], and only when asked, that
    /// is only while the pool grows.
    pub fn allows(&mut self, cpus: usize) -> bool {
        let now = Instant::now();
        if !self.interval_passed(now) {
            return false;
        }
        process_cpu_time().is_some_and(|cpu| self.decide(now, cpu, cpus))
    }

    fn interval_passed(&self, now: Instant) -> bool {
        self.last
            .is_some_and(|(then, _)| now.duration_since(then) >= GROWTH_INTERVAL)
    }

    /// The decision of [`Self::allows`] for a reading of `cpu` process time at `now`.
    fn decide(&mut self, now: Instant, cpu: Duration, cpus: usize) -> bool {
        let Some((then, cpu_then)) = self.last else {
            return false;
        };
        if !self.interval_passed(now) {
            return false;
        }
        self.last = Some((now, cpu));
        let wall = now.duration_since(then);
        busy_share(cpu.saturating_sub(cpu_then), wall, cpus) < BUSY_SHARE
    }
}

impl Default for GrowthGate {
    fn default() -> GrowthGate {
        GrowthGate::new()
    }
}

/// The share of `cpus` CPUs kept busy by `cpu` of CPU time over `wall`.
fn busy_share(cpu: Duration, wall: Duration, cpus: usize) -> f64 {
    cpu.as_secs_f64() / (wall.as_secs_f64() * cpus.max(1) as f64)
}

/// User and system CPU time used so far by the whole process, every thread included.
fn process_cpu_time() -> Option<Duration> {
    rusage_cpu(&resource_usage(libc::RUSAGE_SELF)?)
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

/// How many CPUs the process may run on (its affinity mask): one system call, where
/// counting a cgroup's CPU quota as well reads several files (see `config.rs`).
#[cfg(target_os = "linux")]
pub fn cpus_allowed() -> Option<usize> {
    affinity()
        .map(|(_, count)| count)
        .filter(|&count| count > 0)
}

/// The calling thread's affinity mask and the number of CPUs in it.
#[cfg(target_os = "linux")]
fn affinity() -> Option<(libc::cpu_set_t, usize)> {
    // SAFETY: an all-zero cpu_set_t is a valid (empty) set.
    let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `allowed` is a writable cpu_set_t of the size given.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) };
    if rc != 0 {
        return None;
    }
    // SAFETY: CPU_COUNT only reads the set.
    let count = unsafe { libc::CPU_COUNT(&allowed) };
    Some((allowed, usize::try_from(count).ok()?))
}

/// Elsewhere, no cheaper count than the caller's.
#[cfg(not(target_os = "linux"))]
pub fn cpus_allowed() -> Option<usize> {
    None
}

/// The calling thread's voluntary context switches and CPU time so far, and when
/// they were read: one `getrusage`.
#[cfg(target_os = "linux")]
fn thread_reading() -> Option<(u64, Duration, Instant)> {
    let usage = resource_usage(libc::RUSAGE_THREAD)?;
    let at = Instant::now();
    let switches = u64::try_from(usage.ru_nvcsw).ok()?;
    Some((switches, rusage_cpu(&usage)?, at))
}

/// Elsewhere there is no per-thread count; the walk keeps the workers it started with.
#[cfg(not(target_os = "linux"))]
fn thread_reading() -> Option<(u64, Duration, Instant)> {
    None
}

/// Spreads newly started workers over CPUs; see the module comment.
pub struct CpuSpread {
    #[cfg(target_os = "linux")]
    allowed: Option<libc::cpu_set_t>,
}

impl CpuSpread {
    /// Remembers the calling thread's affinity, to be given back by `finish`.
    pub fn new() -> CpuSpread {
        CpuSpread {
            #[cfg(target_os = "linux")]
            allowed: affinity()
                .filter(|&(_, count)| count > 1)
                .map(|(allowed, _)| allowed),
        }
    }

    /// Called by the creating thread right after it started a worker: moves itself to
    /// another allowed CPU, leaving the new worker the one it is queued on.
    pub fn step_aside(&self) {
        #[cfg(target_os = "linux")]
        if let Some(allowed) = &self.allowed {
            // SAFETY: sched_getcpu has no preconditions.
            let here = unsafe { libc::sched_getcpu() };
            let Ok(here) = usize::try_from(here) else {
                return;
            };
            let mut elsewhere = *allowed;
            // SAFETY: CPU_CLR and CPU_COUNT only touch the set they are given; `here`
            // is a CPU number the kernel returned, within the set's size.
            let others = unsafe {
                libc::CPU_CLR(here, &mut elsewhere);
                libc::CPU_COUNT(&elsewhere)
            };
            if others > 0 {
                set_own_affinity(&elsewhere);
            }
        }
    }

    /// Gives the creating thread its own affinity back, exactly as it was.
    pub fn finish(self) {
        #[cfg(target_os = "linux")]
        if let Some(allowed) = &self.allowed {
            set_own_affinity(allowed);
        }
    }
}

impl Default for CpuSpread {
    fn default() -> CpuSpread {
        CpuSpread::new()
    }
}

#[cfg(target_os = "linux")]
fn set_own_affinity(set: &libc::cpu_set_t) {
    // SAFETY: `set` is a valid cpu_set_t of the size given. A failure (a cpuset changed
    // under us) only leaves placement to the kernel, which is what it was before.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_threads_is_in_range() {
        let threads = default_threads();
        assert!((1..=MAX_THREADS).contains(&threads));
    }

    #[test]
    fn a_fast_directory_is_never_looked_at() {
        let mut watch = DiskWaitWatch::default();
        assert!(!watch.waited(Duration::from_micros(1)));
        assert_eq!(watch.switches, None, "no getrusage for a fast directory");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn sleeping_counts_as_a_wait_and_spinning_does_not() {
        let slow = SLOW_DIRECTORY * 2;
        let mut watch = DiskWaitWatch::default();
        // The first look only reads the count.
        assert!(!watch.waited(slow));
        // Busy work without blocking: no voluntary switch.
        let until = std::time::Instant::now() + Duration::from_millis(2);
        while std::time::Instant::now() < until {}
        assert!(!watch.waited(slow));
        // Blocking in the kernel (here a sleep, as a disk read would) is one; it takes
        // two directories in a row that blocked.
        std::thread::sleep(Duration::from_millis(1));
        assert!(!watch.waited(slow));
        std::thread::sleep(Duration::from_millis(1));
        assert!(watch.waited(slow));
        std::thread::sleep(Duration::from_millis(1));
        assert!(
            watch.waited(slow),
            "and every further one in the run counts"
        );
        // One slow directory that did not block ends the run.
        assert!(!watch.waited(slow));
        std::thread::sleep(Duration::from_millis(1));
        assert!(!watch.waited(slow));
        // After a reset, a block of our own making is not counted.
        watch.reset();
        std::thread::sleep(Duration::from_millis(1));
        assert!(!watch.waited(slow));
        assert!(!watch.waited(slow));
        std::thread::sleep(Duration::from_millis(1));
        assert!(!watch.waited(slow));
    }

    #[test]
    fn latency_over_cpu_sets_the_workers() {
        let us = Duration::from_micros;
        // Figures of the FUSE tree: ~4 round trips and ~70 us of CPU a directory.
        assert_eq!(workers_for_latency(us(4_000), us(50)), 80);
        assert_eq!(workers_for_latency(us(20_000), us(80)), 250);
        // A local disk's short wait asks for few.
        assert_eq!(workers_for_latency(us(200), us(50)), 4);
        // No measurable CPU: the floor, not a division by zero.
        assert_eq!(workers_for_latency(us(1_000), us(0)), 200);
        assert_eq!(
            workers_for_latency(Duration::from_secs(10), us(0)),
            MAX_THREADS
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_blocked_interval_is_measured_and_a_busy_one_is_not() {
        let slow = SLOW_DIRECTORY * 2;
        let mut watch = DiskWaitWatch::primed();
        assert_eq!(watch.latency(), None);
        // Spinning: no block, no measurement.
        let until = Instant::now() + Duration::from_millis(2);
        while Instant::now() < until {}
        watch.waited(slow);
        assert_eq!(watch.latency(), None);
        // Sleeping 5 ms: a wait far longer than the CPU it cost.
        std::thread::sleep(Duration::from_millis(5));
        watch.waited(slow);
        let (wall, cpu) = watch.latency().expect("a blocked interval");
        assert!(wall >= Duration::from_millis(5), "{wall:?}");
        assert!(cpu < wall, "{cpu:?} against {wall:?}");
        // After a reset (a wait of our own), the next look only starts an interval.
        watch.reset();
        std::thread::sleep(Duration::from_millis(1));
        watch.waited(slow);
        assert_eq!(watch.latency().unwrap().0, wall, "unchanged");
    }

    /// The growth decisions of a walk on a simulated clock: the gate's CPU readings
    /// and the directories' waits are made up, the decisions are the real ones.
    #[test]
    fn growth_follows_the_latency_only_on_a_network_filesystem() {
        let start = Instant::now();
        let ms = Duration::from_millis;
        let us = Duration::from_micros;
        // A directory of 4 round trips of 1 ms that cost 40 us of CPU asks for 100.
        let wanted = workers_for_latency(us(4_000), us(40));
        assert_eq!(wanted, 100);
        for latency_growth in [false, true] {
            let mut gate = GrowthGate {
                last: Some((start, ms(0))),
            };
            let mut running = 2;
            let mut at = start;
            let mut cpu = ms(0);
            let mut steps = Vec::new();
            // Every 2 ms the process used 10% of 2 CPUs: the gate stays open.
            for step in 0..10 {
                at += ms(2);
                cpu += us(400);
                // At the second step a worker is parked: no directory for another.
                let state = PoolState {
                    running,
                    wanted,
                    idle: usize::from(step == 1),
                    cpus: 2,
                    latency_growth,
                };
                running += workers_to_start(state, || gate.decide(at, cpu, 2));
                steps.push(running);
            }
            if latency_growth {
                assert_eq!(
                    steps,
                    [8, 8, 32, 100, 100, 100, 100, 100, 100, 100],
                    "four times as many a step, up to the estimate"
                );
            } else {
                assert_eq!(steps, (3..=12).collect::<Vec<_>>(), "one at a time");
            }
        }
        let state = |running, wanted, idle, latency_growth| PoolState {
            running,
            wanted,
            idle,
            cpus: 2,
            latency_growth,
        };
        // Busy CPUs close the gate: nothing past the CPU count, however many wanted.
        let mut gate = GrowthGate {
            last: Some((start, ms(0))),
        };
        let busy = || gate.decide(start + ms(2), ms(4), 2);
        assert_eq!(workers_to_start(state(8, 100, 0, true), busy), 0);
        // Up to the CPU count, no gate is asked; nor while a worker is parked.
        assert_eq!(workers_to_start(state(1, 100, 0, true), || panic!()), 1);
        assert_eq!(workers_to_start(state(1, 100, 0, false), || panic!()), 1);
        assert_eq!(workers_to_start(state(8, 100, 1, true), || panic!()), 0);
        assert_eq!(workers_to_start(state(100, 100, 0, true), || panic!()), 0);
        // A parked worker does not hold the local growth back (today's policy).
        assert_eq!(workers_to_start(state(8, 100, 1, false), || true), 1);
    }

    #[test]
    fn an_estimate_is_trusted_only_far_above_the_workers_asked_for() {
        assert_eq!(trusted_estimate(32, 8), Some(32));
        assert_eq!(trusted_estimate(400, 100), Some(400));
        assert_eq!(
            trusted_estimate(31, 8),
            None,
            "below four times the workers"
        );
        assert_eq!(trusted_estimate(100, 32), None);
        assert_eq!(trusted_estimate(0, 0), Some(0));
    }

    /// The growth of a walk on a network filesystem on a simulated clock: each
    /// directory's wait is four round trips, or, once the workers' CPU (50 us a
    /// directory, on half a CPU: the server has the rest) takes longer than that,
    /// the time the CPU takes for all of them. Taking every estimate grows the pool
    /// to the cap whatever the round trip; trusting only those well above the
    /// workers asked for stops near the knee when the round trip is short and still
    /// reaches the cap when it is long.
    #[test]
    fn growth_stops_where_more_workers_would_only_wait_for_the_cpu() {
        let cpu = Duration::from_micros(50);
        let wait = |round_trip: Duration, workers: usize| {
            (round_trip * 4).max(cpu * 2 * u32::try_from(workers).unwrap())
        };
        let grow = |round_trip: Duration, trust: bool| {
            let mut wanted = 8;
            for _directory in 0..1_000 {
                let estimate = workers_for_latency(wait(round_trip, wanted), cpu);
                let asked = if trust {
                    trusted_estimate(estimate, wanted)
                } else {
                    Some(estimate)
                };
                if let Some(asked) = asked {
                    wanted = wanted.max(asked).min(MAX_WORKERS_ON_NETWORK);
                }
            }
            wanted
        };
        let us = Duration::from_micros;
        for round_trip in [us(200), us(1_000), us(5_000)] {
            assert_eq!(
                grow(round_trip, false),
                MAX_WORKERS_ON_NETWORK,
                "{round_trip:?}"
            );
        }
        // 0.2 ms: 16 workers keep the half CPU busy; the estimate, 16 with 8 asked
        // for, is not four times that, and the walk keeps its first 8 to 32.
        assert!(grow(us(200), true) <= 32, "{}", grow(us(200), true));
        // 1 ms: 80 are enough, and the walk grows to them.
        assert_eq!(grow(us(1_000), true), 80);
        assert_eq!(grow(us(5_000), true), MAX_WORKERS_ON_NETWORK);
    }

    /// A worker's estimate divides a directory's wait by the CPU of its recent
    /// directories, averaged, not by the last one's alone.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_cpu_behind_an_estimate_is_averaged() {
        let slow = SLOW_DIRECTORY * 2;
        let mut watch = DiskWaitWatch::primed();
        std::thread::sleep(Duration::from_millis(2));
        watch.waited(slow);
        let (_, first) = watch.latency().expect("a blocked interval");
        // A directory of much CPU, then a wait: the average moves an eighth of the way.
        let until = Instant::now() + Duration::from_millis(8);
        while Instant::now() < until {}
        std::thread::sleep(Duration::from_millis(1));
        watch.waited(slow);
        let (_, average) = watch.latency().unwrap();
        assert!(average > first, "{average:?} against {first:?}");
        assert!(
            average < Duration::from_millis(4),
            "{average:?}: not averaged"
        );
    }

    #[test]
    fn busy_share_is_cpu_time_over_wall_time_and_cpus() {
        let ms = Duration::from_millis;
        assert_eq!(busy_share(ms(10), ms(10), 1), 1.0);
        assert_eq!(busy_share(ms(10), ms(10), 2), 0.5);
        assert_eq!(busy_share(ms(15), ms(10), 2), 0.75);
        assert_eq!(busy_share(ms(0), ms(10), 4), 0.0);
        // A process never counts more CPUs than it has, but 0 must not divide by 0.
        assert_eq!(busy_share(ms(5), ms(10), 0), 0.5);
    }

    #[test]
    fn the_gate_opens_at_most_once_an_interval_and_only_when_cpus_idle() {
        let start = Instant::now();
        let ms = Duration::from_millis;
        let mut gate = GrowthGate {
            last: Some((start, ms(100))),
        };
        // Too soon to judge, whatever the reading.
        assert!(!gate.decide(start + GROWTH_INTERVAL / 2, ms(100), 2));
        // 4 ms of wall on 2 CPUs: 2 ms of CPU is 25% busy, so one more may start...
        assert!(gate.decide(start + ms(4), ms(102), 2));
        // ...but not again within the interval.
        assert!(!gate.decide(start + ms(4) + GROWTH_INTERVAL / 2, ms(102), 2));
        // 7 ms of CPU over the next 4 ms (88%): the CPUs are busy enough.
        assert!(!gate.decide(start + ms(8), ms(109), 2));
        // 6 ms over 4 (75%): room for one more.
        assert!(gate.decide(start + ms(12), ms(115), 2));
        // Without a first reading, never.
        let mut blind = GrowthGate { last: None };
        assert!(!blind.decide(start + ms(50), ms(1), 2));
        // Right after a real first reading: too soon.
        assert!(!GrowthGate::new().allows(2));
    }

    #[test]
    fn spreading_gives_the_affinity_back() {
        #[cfg(target_os = "linux")]
        fn cpus() -> Vec<usize> {
            let (set, _) = affinity().expect("sched_getaffinity");
            (0..libc::CPU_SETSIZE as usize)
                // SAFETY: CPU_ISSET only reads the set, at a CPU number within its size.
                .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
                .collect()
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
