//! Worker threads and the CPUs under them: how many workers a walk has, and whether a
//! worker is waiting on the disk rather than working.
//!
//! Where a new worker starts, when the kernel queues it behind its creator, is
//! [`crate::placement`]'s.
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

use crate::os::cpus::process_cpu_time;
#[cfg(target_os = "linux")]
use crate::os::cpus::CpuSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Highest `-j` accepted. Far above any useful value; it exists so that a typo such as
/// `-j 100000` is an error rather than an attempt to start a hundred thousand threads.
pub const MAX_THREADS: usize = 1024;

/// The worker count used when `-j` is not given, as it is known at start-up.
///
/// On macOS four: the spec's figure (the original design found that APFS serialises
/// directory reads per volume and four workers did best), kept as it gave it and not
/// measured here (README, Limitations). Everywhere else, one worker per CPU the
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

/// How many workers may be added to `threads` during a walk: `spare_threads` (none
/// with `-j`), or with no `-j` on a network filesystem (`growth_on_network`) what
/// the latency may ask for, [`network_spare_threads`].
pub fn spare_workers(threads: usize, spare_threads: usize, growth_on_network: bool) -> usize {
    if growth_on_network {
        spare_threads.max(network_spare_threads(threads))
    } else {
        spare_threads
    }
}

/// The workers a walk of `threads` starts with once it has directories to share,
/// and whether the second worker then reads the CPU quota. With `-j` (`exact`),
/// exactly that many. Without, `threads` counted the CPUs the process may run on
/// (one system call); a cgroup CPU quota can allow fewer, and reading it takes about
/// 0.2 ms here (`num_cpus` reads three files under /proc and /sys), a twentieth of
/// a small walk. So the walk starts with two workers and the second reads the quota
/// ([`cpus_within_quota`]), off the first one's path, then sets how many the walk
/// should have.
pub fn first_workers(threads: usize, exact: bool) -> (usize, bool) {
    if exact {
        (threads, false)
    } else {
        (threads.min(2), threads > 2)
    }
}

/// The workers a walk asks for when its first listing had to wait for the disk (a
/// cold tree): enough to keep several reads in flight rather than ramp up to them,
/// [`COLD_START_PER_CPU`] per first worker; on a network filesystem, what the first
/// listing's round trips (`first_listing`, its wall time) ask for, [`network_start`].
pub fn cold_start_workers(first_workers: usize, first_listing: Option<Duration>) -> usize {
    let cold_start = first_workers * COLD_START_PER_CPU;
    match first_listing {
        Some(wall) => network_start(wall, cold_start),
        None => cold_start,
    }
}

/// Below this CPU time per interval, a reading is too coarse to divide by.
const LEAST_CPU: Duration = Duration::from_micros(5);

/// The workers a walk on a network filesystem asks for when its blocked intervals
/// waited `wall` in all and cost their workers `cpu` of CPU: each worker keeps one
/// request in flight and uses `cpu / wall` of a CPU, so `wall / cpu` workers keep
/// one CPU busy with the answers. One CPU's worth, not all of them: where the
/// estimate is trusted ([`TRUSTED_SHARE`]) the walk may grow to it, and the
/// time its workers spend queued for a CPU ([`CPU_QUEUE_LIMIT`]) and the CPU gate
/// ([`GrowthGate`]) stop it short when the CPUs are busy.
pub fn workers_for_latency(wall: Duration, cpu: Duration) -> usize {
    let cpu = cpu.max(LEAST_CPU);
    let ratio = wall.as_secs_f64() / cpu.as_secs_f64();
    // Capped well above any pool, so that the cast cannot overflow.
    ratio.ceil().min(MAX_THREADS as f64) as usize
}

/// An estimate ([`workers_for_latency`]) is trusted only where the workers running
/// are at most this share of it: then the waits it measured were mostly round trips.
/// With more workers a wait is also a wait for a CPU, or for a server, that the
/// workers keep busy, so each worker added lengthens every wait and the estimate
/// follows the workers up. On the FUSE tree the estimates of successive steps (sums
/// over every interval of a step) were, by workers running: at D = 1 ms 41, 37 and
/// 58 with 8, 16 and 32 workers, 45-70 with 48 to 64, then 101 with 73 and 167 with
/// 101; at 5 ms 122-196 with 31 to 54, 208-293 with 56 to 136, 233-331 with 211 to
/// 238; at 0.2 ms 12-18 with 8, 22-35 with 14 to 32, 52-68 with 52. From the start
/// of [`network_start`] (20, 70 and the cap), half keeps the walk near its start at
/// 0.2 and 1 ms: 15 runs at 1 ms, medians, 188 ms against 204 with two thirds
/// (peak in flight 79 against 83; no steps at all 190, -j 64 181, and in a set
/// before that, no steps 157, two thirds 171, -j 64 154); 11 runs at 0.2 ms, 152
/// against 157 (-j 32 154). Where the start asked for too few (a CPU faster than
/// [`NETWORK_INTERVAL_CPU`] says), the estimates run ahead of the workers and
/// are taken.
pub const TRUSTED_SHARE: f64 = 0.5;

/// `estimate` if it is trusted with `running` workers (see [`TRUSTED_SHARE`]).
pub fn trusted_estimate(estimate: usize, running: usize) -> Option<usize> {
    (running as f64 <= estimate as f64 * TRUSTED_SHARE).then_some(estimate)
}

/// Past this share of their time spent waiting for a CPU, the workers on a network
/// filesystem ask for no more: the CPUs are what the walk is short of, and each
/// worker added lengthens every wait. Measured on the FUSE tree (two CPUs, the
/// server on them too), over every directory of a walk at a fixed `-j`: at D = 1 ms
/// 0.05 with 32 workers, 0.13 with 64 (the fastest), 0.3 with 128; at D = 0.2 ms 0.15
/// with 16, 0.33 with 32, 0.43 with 64 (16 to 48 within the noise of each other).
pub const CPU_QUEUE_LIMIT: f64 = 0.15;

/// Intervals a [`LatencyTally`] needs before a step is taken on what it measured,
/// where the walk has at least as many workers: enough to average over directories
/// of every size, few enough that at D = 5 ms (a directory every 20-30 ms per
/// worker) a step still takes only about one directory's time.
pub const LEAST_INTERVALS: usize = 16;

/// What the workers on a network filesystem measured since the last step: the sums
/// of their blocked intervals ([`Interval`]) that began after it. Shared by the
/// workers (who add) and the thread that starts workers (which takes); one set of
/// relaxed atomics, touched once per slow directory or listing batch.
#[derive(Debug)]
pub struct LatencyTally {
    /// What step times are counted from.
    origin: Instant,
    /// When the current step began (nanoseconds after `origin`): intervals that
    /// began earlier were measured under the load before it, and are left out.
    since: AtomicU64,
    wall: AtomicU64,
    cpu: AtomicU64,
    queued: AtomicU64,
    intervals: AtomicU64,
    /// Of `intervals`, those that said how long they queued for a CPU.
    with_queue: AtomicU64,
}

/// What a [`LatencyTally`] measured over one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencySums {
    pub wall: Duration,
    pub cpu: Duration,
    /// The time queued for a CPU, if every interval said.
    pub queued: Option<Duration>,
    pub intervals: usize,
    /// How long the step lasted.
    pub span: Duration,
}

impl LatencyTally {
    pub fn new() -> LatencyTally {
        LatencyTally {
            origin: Instant::now(),
            since: AtomicU64::new(0),
            wall: AtomicU64::new(0),
            cpu: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            intervals: AtomicU64::new(0),
            with_queue: AtomicU64::new(0),
        }
    }

    fn nanos(duration: Duration) -> u64 {
        u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Counts one worker's interval, if it began since the current step did.
    pub fn add(&self, interval: &Interval) {
        let began = Self::nanos(interval.started.saturating_duration_since(self.origin));
        if began < self.since.load(Ordering::Relaxed) {
            return;
        }
        self.wall
            .fetch_add(Self::nanos(interval.wall), Ordering::Relaxed);
        self.cpu
            .fetch_add(Self::nanos(interval.cpu), Ordering::Relaxed);
        if let Some(queued) = interval.queued {
            self.queued
                .fetch_add(Self::nanos(queued), Ordering::Relaxed);
            self.with_queue.fetch_add(1, Ordering::Relaxed);
        }
        self.intervals.fetch_add(1, Ordering::Relaxed);
    }

    /// Intervals counted in the current step.
    pub fn intervals(&self) -> usize {
        usize::try_from(self.intervals.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
    }

    /// What the current step measured; a new step begins at `now`. (Workers adding
    /// meanwhile may see their interval split between two steps: a sample's worth of
    /// error in a sum of many.)
    pub fn restart(&self, now: Instant) -> LatencySums {
        let since = Self::nanos(now.saturating_duration_since(self.origin));
        let began = self.since.swap(since, Ordering::Relaxed);
        let take = |sum: &AtomicU64| Duration::from_nanos(sum.swap(0, Ordering::Relaxed));
        let intervals = self.intervals.swap(0, Ordering::Relaxed);
        let with_queue = self.with_queue.swap(0, Ordering::Relaxed);
        let queued = take(&self.queued);
        LatencySums {
            wall: take(&self.wall),
            cpu: take(&self.cpu),
            queued: (with_queue == intervals).then_some(queued),
            intervals: usize::try_from(intervals).unwrap_or(usize::MAX),
            span: Duration::from_nanos(since.saturating_sub(began)),
        }
    }
}

impl Default for LatencyTally {
    fn default() -> LatencyTally {
        LatencyTally::new()
    }
}

/// The workers to ask for on a network filesystem after a step that measured `sums`
/// with `running` workers and `stat_helpers` threads asking for file types
/// (`os::stat_many`): what the latency over the CPU asks for
/// ([`workers_for_latency`], on the sums: a ratio over every interval measured) if
/// it is trusted ([`trusted_estimate`]), at most [`LATENCY_STEP`] times
/// `running`; none while the workers spent [`CPU_QUEUE_LIMIT`] or more of their time
/// waiting for a CPU.
///
/// The trust is judged on workers and helpers together: each keeps a request in
/// flight, and the server and the CPUs serve the helpers' as they serve the
/// workers'. Judged on the workers alone, the FUSE tree without types at 1 ms
/// trusted an estimate of 304 with 99 workers and 184 helpers running and went to
/// the cap, with 200 requests in flight at the peak against 131 at `-j 64`.
pub fn latency_step(sums: &LatencySums, running: usize, stat_helpers: usize) -> Option<usize> {
    if let Some(queued) = sums.queued {
        if queued.as_secs_f64() >= sums.wall.as_secs_f64() * CPU_QUEUE_LIMIT {
            return None;
        }
    }
    let estimate = workers_for_latency(sums.wall, sums.cpu);
    trusted_estimate(estimate, running + stat_helpers)
        .map(|wanted| wanted.min(running * LATENCY_STEP))
}

/// A growth step on a network filesystem is followed by another only if it paid: the
/// intervals the workers completed per second, over every step taken with the new
/// count, at least this many times what they were with the count before. Where the
/// round trips set the pace, twice the workers complete nearly twice as many; where
/// a server the workers keep busy sets it, no more. Over sshfs from 127.0.0.1 (one
/// SFTP connection) a walk grew 24 → 50 → 103 → 217 workers on estimates each just
/// over twice the workers, while the rate went 2.35, 1.9, 1.9 and 1.5 a
/// millisecond and each interval waited longer (1.7 ms at 50, 4.7 at 103, 6.5 at
/// 217): 480 ms, where `-j 32` to `-j 64` took 350.
pub const GROWTH_PAYS: f64 = 1.25;

/// Intervals completed over a span of the walk with one worker count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct CompletionRate {
    intervals: usize,
    span: Duration,
}

impl CompletionRate {
    fn per_second(&self) -> f64 {
        self.intervals as f64 / self.span.as_secs_f64().max(1e-9)
    }
}

/// What the steps of a walk on a network filesystem measured at the worker count
/// they ran with and at the count before it: whether the last growth paid
/// ([`GROWTH_PAYS`]).
#[derive(Debug, Default)]
pub struct GrowthRecord {
    workers: usize,
    now: CompletionRate,
    before: Option<CompletionRate>,
}

impl GrowthRecord {
    /// A step with `running` workers that ended `intervals` in `span` (since the
    /// step before): true if the walk may grow further — still at the count it
    /// started with, or completing, over every step at this count, at least
    /// [`GROWTH_PAYS`] times the intervals a second of the count before. A count
    /// reached in several starts (the CPU gate closing between them) is several
    /// counts here, each judged against the one before it.
    pub fn step(&mut self, running: usize, intervals: usize, span: Duration) -> bool {
        if running != self.workers {
            if self.now.intervals > 0 && self.workers > 0 {
                self.before = Some(self.now);
            }
            self.workers = running;
            self.now = CompletionRate::default();
        }
        self.now.intervals += intervals;
        self.now.span += span;
        self.before
            .is_none_or(|before| self.now.per_second() >= before.per_second() * GROWTH_PAYS)
    }
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
    /// When the count was last read, the thread's CPU time then and its time queued
    /// for a CPU: the start of the interval that the next look measures (see
    /// [`Self::latency`]).
    since: Option<(Instant, Duration, Option<Duration>)>,
    /// The last interval between two looks in which the thread blocked, until taken.
    interval: Option<Interval>,
    /// On a network filesystem, the thread's clock of time spent waiting for a CPU.
    queue_clock: Option<CpuQueueClock>,
}

/// One interval between two looks of a [`DiskWaitWatch`] in which the thread
/// blocked: on a network filesystem, what a directory waits against what it costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// When it began.
    pub started: Instant,
    pub wall: Duration,
    /// The thread's CPU time in it.
    pub cpu: Duration,
    /// The time the thread spent in it runnable but waiting for a CPU; `None` where
    /// the kernel does not say ([`CpuQueueClock`]).
    pub queued: Option<Duration>,
}

impl DiskWaitWatch {
    /// Called after a directory was listed in `elapsed`: true when the thread blocked
    /// in the kernel while listing it (or since the last look), and had blocked on the
    /// slow directories just before it as well: the walk is waiting on the disk.
    pub fn waited(&mut self, elapsed: Duration) -> bool {
        if elapsed < SLOW_DIRECTORY {
            return false;
        }
        self.look()
    }

    /// [`Self::waited`] without the test of the time: also called between the
    /// batches of a listing on a network filesystem, each a round trip.
    pub fn look(&mut self) -> bool {
        let reading = thread_reading();
        let queued = self.queue_clock.as_ref().and_then(CpuQueueClock::read);
        let now = reading.map(|r| r.0);
        match (self.switches, now) {
            (Some(before), Some(now)) if now > before => {
                self.blocked_in_a_row += 1;
                if let (Some((then, cpu_then, queued_then)), Some((_, cpu, at))) =
                    (self.since, reading)
                {
                    self.interval = Some(Interval {
                        started: then,
                        wall: at.duration_since(then),
                        cpu: cpu.saturating_sub(cpu_then),
                        queued: queued
                            .zip(queued_then)
                            .map(|(now, then)| now.saturating_sub(then)),
                    });
                }
            }
            (Some(_), Some(_)) => self.blocked_in_a_row = 0,
            // No count to compare with: neither evidence nor its absence.
            _ => {}
        }
        self.switches = now;
        self.since = reading.map(|(_, cpu, at)| (at, cpu, queued));
        self.blocked_in_a_row >= WAITS_IN_A_ROW
    }

    /// A watch that has read the count already, so that the very first slow
    /// directory can be judged (the first worker's, before any other starts). With
    /// `on_network`, it also measures the thread's time queued for a CPU (one more
    /// read per slow directory), which only a network filesystem's growth uses.
    pub fn primed(on_network: bool) -> DiskWaitWatch {
        let queue_clock = on_network.then(CpuQueueClock::for_this_thread).flatten();
        let reading = thread_reading();
        let queued = queue_clock.as_ref().and_then(CpuQueueClock::read);
        DiskWaitWatch {
            switches: reading.map(|r| r.0),
            since: reading.map(|(_, cpu, at)| (at, cpu, queued)),
            queue_clock,
            ..DiskWaitWatch::default()
        }
    }

    /// The last interval between two looks in which the thread blocked, once.
    pub fn take_interval(&mut self) -> Option<Interval> {
        self.interval.take()
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

/// The time the calling thread has spent runnable but waiting for a CPU, as Linux
/// keeps it per task (`/proc/thread-self/schedstat`, its second field, in
/// nanoseconds; there with `CONFIG_SCHED_INFO`, which distribution kernels have).
/// The file stays open, so a reading is one `pread`, and takes a place in the
/// descriptor budget for as long (`descriptors::HelperPlace`): where the budget has
/// none free, the worker does without the clock. Where the wait for a round trip
/// grows only because the CPUs are busy, this is the time that grew.
#[derive(Debug)]
pub struct CpuQueueClock {
    file: std::fs::File,
    _place: crate::descriptors::HelperPlace,
}

impl CpuQueueClock {
    /// The clock of the calling thread, if the kernel keeps one and the descriptor
    /// budget has room for it.
    pub fn for_this_thread() -> Option<CpuQueueClock> {
        let place = crate::descriptors::HelperPlace::take()?;
        // /proc/thread-self names the thread that opens it; the open file stays
        // that thread's.
        let clock = CpuQueueClock {
            file: std::fs::File::open("/proc/thread-self/schedstat").ok()?,
            _place: place,
        };
        clock.read().map(|_| clock)
    }

    /// The time queued so far.
    pub fn read(&self) -> Option<Duration> {
        use std::os::unix::fs::FileExt;
        let mut text = [0u8; 96];
        let len = self.file.read_at(&mut text, 0).ok()?;
        parse_queued(&text[..len])
    }
}

/// The second field of a schedstat line (`run_ns queued_ns timeslices`).
fn parse_queued(line: &[u8]) -> Option<Duration> {
    let field = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
        .nth(1)?;
    let nanos = std::str::from_utf8(field).ok()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Workers per CPU that a walk starts with when its first listing waited on the disk.
/// Growing from one per CPU one worker at a time took long enough on `medium` (100
/// directories, cold) to cost 13% against `-j 6`; four per CPU sits in the flat
/// stretch of that tree's curve (`-j 6` to `-j 12` within 3% of each other) and still
/// leaves `/usr`, which wants more, to grow.
pub const COLD_START_PER_CPU: usize = 4;

/// The CPU time a directory's interval costs a worker on a network filesystem, as
/// measured over the first steps on the FUSE tree (40 to 58 us an interval, a
/// directory or a batch of its entries): what the first listing's wait is divided
/// by to know how many workers to start with ([`network_start`]).
pub const NETWORK_INTERVAL_CPU: Duration = Duration::from_micros(50);

/// How many workers a walk starts with when its root is on a network filesystem
/// and its first listing waited `first_listing` in all: as many as that wait over
/// the CPU of an interval ([`NETWORK_INTERVAL_CPU`]) keeps busy, and no fewer than
/// `cold_start`, what a cold local disk starts with. The first listing's own CPU
/// time cannot be the divisor: it is the process's first (400-600 us on the FUSE
/// tree, where later intervals cost 20-60), and asked for 2, 8 and 31 workers at
/// D = 0.2, 1 and 5 ms. Its wall time (1.0, 3.5 and 15.6 ms: three round trips and
/// a little) asks for 20, 70 and 312, where the fastest settings were -j 32, -j 64
/// and -j 256; the steps ([`latency_step`]) take it from there.
pub fn network_start(first_listing: Duration, cold_start: usize) -> usize {
    workers_for_latency(first_listing, NETWORK_INTERVAL_CPU).max(cold_start)
}

/// Round trips of a first listing on a network filesystem, which [`network_start`]'s
/// figures were measured with: the open, the listing, and the listing's end.
const LISTING_ROUND_TRIPS: u32 = 3;

/// Round trips of a first directory answered from the index (`--index` on a
/// network root): the open and the stat of its stamps, asked of the server.
const CHECK_ROUND_TRIPS: u32 = 2;

/// The first directory's wait `wall` as a listing's round trips would have taken
/// it: where it was answered from the index (`checked`), scaled from its two round
/// trips to a listing's three, so that [`network_start`] asks for the workers the
/// same latency asks for in a walk. Unscaled, the repeat of the FUSE tree at 1 ms
/// (2.3 ms for its root) started 48 workers where a walk starts 70, and took 33.2
/// ms against 29.3 when scaled and 29.8 at `-j 64` (medians of 60, interleaved).
pub fn as_listing_wait(wall: Duration, checked: bool) -> Duration {
    match checked {
        true => wall * LISTING_ROUND_TRIPS / CHECK_ROUND_TRIPS,
        false => wall,
    }
}

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
/// last step started ([`latency_step`]), and a step is taken only while all of them
/// are busy (see [`workers_to_start`]). From 64, two steps reach 256.
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
/// filesystem the count asked for was measured ([`latency_step`]), so a step starts
/// many: up to [`LATENCY_STEP`] times those running, but none while a worker is
/// parked, since then directories, not workers, are what the walk is short of.
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

/// How many CPUs the process may run on (its affinity mask): one system call, where
/// counting a cgroup's CPU quota as well reads several files (see `config.rs`).
#[cfg(target_os = "linux")]
pub fn cpus_allowed() -> Option<usize> {
    // The `portable` build (Cargo.toml) counts as other systems do.
    if cfg!(feature = "portable") {
        return None;
    }
    CpuSet::of_this_thread()
        .map(|set| set.count())
        .filter(|&count| count > 0)
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
    // The `portable` build (Cargo.toml) keeps its workers, as other systems do.
    if cfg!(feature = "portable") {
        return None;
    }
    let (switches, cpu) = crate::os::cpus::thread_usage()?;
    Some((switches, cpu, Instant::now()))
}

/// Elsewhere there is no per-thread count; the walk keeps the workers it started with.
#[cfg(not(target_os = "linux"))]
fn thread_reading() -> Option<(u64, Duration, Instant)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_starts_and_grows_by_these_decisions() {
        // Spares: as configured, or what a network filesystem may ask for.
        assert_eq!(spare_workers(4, 28, false), 28);
        assert_eq!(spare_workers(4, 0, false), 0);
        assert_eq!(spare_workers(4, 28, true), MAX_WORKERS_ON_NETWORK - 4);
        assert_eq!(spare_workers(4, 1000, true), 1000);
        // First workers: all of `-j`; else two, the second reading the quota.
        assert_eq!(first_workers(8, true), (8, false));
        assert_eq!(first_workers(8, false), (2, true));
        assert_eq!(first_workers(2, false), (2, false));
        assert_eq!(first_workers(1, false), (1, false));
        // A cold start: four per first worker, or what the round trips ask for.
        assert_eq!(cold_start_workers(2, None), 2 * COLD_START_PER_CPU);
        let slow = Duration::from_millis(15);
        assert_eq!(cold_start_workers(2, Some(slow)), network_start(slow, 8));
        assert!(cold_start_workers(2, Some(slow)) > 8);
        assert_eq!(cold_start_workers(2, Some(Duration::ZERO)), 8);
    }

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
        let mut watch = DiskWaitWatch::primed(false);
        assert_eq!(watch.take_interval(), None);
        // Spinning: no block, no measurement.
        let until = Instant::now() + Duration::from_millis(2);
        while Instant::now() < until {}
        watch.waited(slow);
        assert_eq!(watch.take_interval(), None);
        // Sleeping 5 ms: a wait far longer than the CPU it cost.
        let before = Instant::now();
        std::thread::sleep(Duration::from_millis(5));
        watch.waited(slow);
        let interval = watch.take_interval().expect("a blocked interval");
        assert!(interval.wall >= Duration::from_millis(5), "{interval:?}");
        assert!(interval.cpu < interval.wall, "{interval:?}");
        assert!(interval.started <= before, "{interval:?}");
        assert_eq!(interval.queued, None, "not measured off a network root");
        assert_eq!(watch.take_interval(), None, "taken once");
        // After a reset (a wait of our own), the next look only starts an interval.
        watch.reset();
        std::thread::sleep(Duration::from_millis(1));
        watch.waited(slow);
        assert_eq!(watch.take_interval(), None);
        // Between a listing's batches the look has no time to test.
        std::thread::sleep(Duration::from_millis(1));
        watch.look();
        assert!(watch.take_interval().is_some());
    }

    /// On a network root the watch also reads the thread's time queued for a CPU:
    /// kept apart from its wait for the disk or the network.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_time_queued_for_a_cpu_is_read_on_a_network_root() {
        use crate::descriptors::tests::set_local_budget;
        // The clock here, and the watch's own.
        set_local_budget(Some(2));
        let Some(clock) = CpuQueueClock::for_this_thread() else {
            set_local_budget(None);
            eprintln!("skipped: no /proc/thread-self/schedstat (CONFIG_SCHED_INFO)");
            return;
        };
        let first = clock.read().expect("a reading");
        assert!(clock.read().expect("a second reading") >= first);
        let mut watch = DiskWaitWatch::primed(true);
        std::thread::sleep(Duration::from_millis(2));
        watch.look();
        let interval = watch.take_interval().expect("a blocked interval");
        let queued = interval.queued.expect("measured on a network root");
        assert!(queued <= interval.wall, "{interval:?}");
        set_local_budget(None);
    }

    /// Issue 38, item 8: the clock's descriptor is one of the budget's places, as an
    /// anchor's is: with none free there is no clock (the worker measures without
    /// it), and a clock gives its place back when it goes.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_cpu_queue_clock_takes_a_place_in_the_descriptor_budget() {
        use crate::descriptors::tests::{set_local_budget, taken_locally};
        set_local_budget(Some(0));
        assert!(CpuQueueClock::for_this_thread().is_none());
        assert!(DiskWaitWatch::primed(true).queue_clock.is_none());
        set_local_budget(Some(1));
        if let Some(clock) = CpuQueueClock::for_this_thread() {
            assert_eq!(taken_locally(), 1);
            assert!(CpuQueueClock::for_this_thread().is_none(), "one place only");
            drop(clock);
        }
        assert_eq!(taken_locally(), 0);
        set_local_budget(None);
    }

    #[test]
    fn a_schedstat_line_gives_its_second_field() {
        assert_eq!(
            parse_queued(b"105276 84857 2\n"),
            Some(Duration::from_nanos(84_857))
        );
        assert_eq!(parse_queued(b"  1  2  3"), Some(Duration::from_nanos(2)));
        assert_eq!(parse_queued(b"105276\n"), None);
        assert_eq!(parse_queued(b"1 x 2"), None);
        assert_eq!(parse_queued(b""), None);
    }

    fn interval(started: Instant, wall_us: u64, cpu_us: u64, queued_us: Option<u64>) -> Interval {
        Interval {
            started,
            wall: Duration::from_micros(wall_us),
            cpu: Duration::from_micros(cpu_us),
            queued: queued_us.map(Duration::from_micros),
        }
    }

    #[test]
    fn a_tally_sums_the_intervals_of_its_step_only() {
        let tally = LatencyTally::new();
        let before = tally.origin;
        tally.add(&interval(before, 4_000, 50, Some(10)));
        tally.add(&interval(before, 2_000, 30, Some(20)));
        assert_eq!(tally.intervals(), 2);
        let step = before + Duration::from_millis(1);
        let sums = tally.restart(step);
        assert_eq!(
            sums,
            LatencySums {
                wall: Duration::from_micros(6_000),
                cpu: Duration::from_micros(80),
                queued: Some(Duration::from_micros(30)),
                intervals: 2,
                span: Duration::from_millis(1),
            }
        );
        // An interval that began before the step was measured under the load before
        // it: left out. One that began at or after it counts.
        tally.add(&interval(before, 9_000, 90, Some(0)));
        assert_eq!(tally.intervals(), 0);
        tally.add(&interval(step, 1_000, 10, None));
        tally.add(&interval(step, 1_000, 10, Some(5)));
        let sums = tally.restart(step + Duration::from_millis(3));
        assert_eq!(sums.intervals, 2);
        assert_eq!(sums.span, Duration::from_millis(3), "since the step before");
        assert_eq!(sums.wall, Duration::from_micros(2_000));
        assert_eq!(sums.queued, None, "not every interval said");
        assert_eq!(tally.restart(step).intervals, 0, "emptied");
    }

    #[test]
    fn a_step_follows_a_trusted_estimate_while_the_cpus_keep_up() {
        let sums = |wall_us, cpu_us, queued_us: Option<u64>| LatencySums {
            wall: Duration::from_micros(wall_us),
            cpu: Duration::from_micros(cpu_us),
            queued: queued_us.map(Duration::from_micros),
            intervals: 16,
            span: Duration::from_millis(10),
        };
        // 20 ms of waits for 100 us of CPU asks for 200: trusted with 64 running
        // (64 <= 100), and taken at once, being less than four times 64.
        assert_eq!(
            latency_step(&sums(20_000, 100, Some(100)), 64, 0),
            Some(200)
        );
        // At most four times the workers running.
        assert_eq!(latency_step(&sums(20_000, 50, Some(0)), 64, 0), Some(256));
        assert_eq!(latency_step(&sums(20_000, 50, Some(0)), 32, 0), Some(128));
        // An estimate not well ahead of the workers is not trusted: 127 with 64.
        assert_eq!(latency_step(&sums(12_700, 100, Some(0)), 64, 0), None);
        assert_eq!(latency_step(&sums(12_800, 100, Some(0)), 64, 0), Some(128));
        // Workers queued for a CPU 15% of their time or more: no step, whatever
        // the estimate.
        assert_eq!(latency_step(&sums(20_000, 100, Some(3_000)), 64, 0), None);
        assert_eq!(
            latency_step(&sums(20_000, 100, Some(2_900)), 64, 0),
            Some(200)
        );
        // Where the kernel does not say, the estimate alone decides.
        assert_eq!(latency_step(&sums(20_000, 100, None), 64, 0), Some(200));
        assert_eq!(latency_step(&sums(12_700, 100, None), 64, 0), None);
        // Threads asking for file types count against the trust, not the step:
        // the step of the FUSE tree without types at 1 ms that went to the cap.
        let without_types = sums(156_000, 514, Some(4_800));
        assert_eq!(latency_step(&without_types, 99, 0), Some(304));
        assert_eq!(latency_step(&without_types, 99, 184), None);
        assert_eq!(latency_step(&without_types, 99, 53), Some(304));
        assert_eq!(latency_step(&without_types, 99, 54), None);
        assert_eq!(latency_step(&sums(20_000, 50, Some(0)), 32, 32), Some(128));
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

    /// The steps of the sshfs walk that grew past what paid (see [`GROWTH_PAYS`]),
    /// and of a walk whose round trips set the pace.
    #[test]
    fn a_walk_grows_again_only_after_a_growth_that_paid() {
        let ms = |n: f64| Duration::from_secs_f64(n / 1_000.0);
        let mut sshfs = GrowthRecord::default();
        // At the start, 24 workers: 182 intervals in 77.6 ms, in ten steps.
        for _ in 0..9 {
            assert!(sshfs.step(24, 18, ms(7.8)));
        }
        assert!(sshfs.step(24, 20, ms(7.4)), "the count it started with");
        // At 50: 16 intervals in 9.4 ms, under 2.35 a ms; and over four steps.
        assert!(!sshfs.step(50, 16, ms(9.4)));
        assert!(!sshfs.step(50, 19, ms(7.7)));
        assert!(!sshfs.step(50, 16, ms(8.0)));
        assert!(!sshfs.step(50, 18, ms(10.9)));
        // Where the round trips set the pace: 20 workers, 2 a ms; 40, 3.8.
        let mut fuse = GrowthRecord::default();
        assert!(fuse.step(20, 32, ms(16.0)));
        assert!(fuse.step(40, 19, ms(5.0)));
        assert!(fuse.step(40, 19, ms(5.0)));
        // 80 gained less than a quarter on 40: no further.
        assert!(!fuse.step(80, 20, ms(5.0)));
        // The same count again later: its own rate against the count before.
        assert!(!fuse.step(80, 22, ms(5.0)));
        assert!(fuse.step(80, 60, ms(5.0)), "6.8 a ms over 80's three steps");
    }

    #[test]
    fn a_network_walk_starts_with_what_its_first_listing_waited_for() {
        let us = Duration::from_micros;
        // The first listings of the FUSE tree at D = 0.2, 1 and 5 ms.
        assert_eq!(network_start(us(1_000), 8), 20);
        assert_eq!(network_start(us(3_500), 8), 70);
        assert_eq!(network_start(us(15_600), 8), 312);
        // A short wait (a fast link) starts what a cold local disk does.
        assert_eq!(network_start(us(100), 8), 8);
        assert_eq!(network_start(Duration::ZERO, 8), 8);
    }

    #[test]
    fn a_root_answered_from_the_index_starts_what_a_listing_at_its_latency_does() {
        let us = Duration::from_micros;
        // The FUSE tree at 1 ms: its root listed (three round trips) and checked
        // against its record (two).
        let listed = network_start(as_listing_wait(us(3_500), false), 8);
        let checked = network_start(as_listing_wait(us(2_300), true), 8);
        assert_eq!(listed, 70);
        assert_eq!(checked, 69);
        assert_eq!(as_listing_wait(us(2_000), true), us(3_000));
        assert_eq!(as_listing_wait(us(2_000), false), us(2_000));
    }

    #[test]
    fn an_estimate_is_trusted_only_well_above_the_workers_running() {
        assert_eq!(trusted_estimate(128, 64), Some(128));
        assert_eq!(trusted_estimate(400, 100), Some(400));
        assert_eq!(trusted_estimate(127, 64), None, "below twice the workers");
        assert_eq!(trusted_estimate(64, 64), None);
        assert_eq!(trusted_estimate(0, 0), Some(0));
    }

    /// The growth of a walk on a network filesystem, step by step, on a simulated
    /// clock: each directory's wait is four round trips, or, once the workers' CPU
    /// (50 us a directory, on half a CPU: the server has the rest) takes longer than
    /// that, the time the CPU takes for all of them, which the workers spend queued
    /// for it. Taking every estimate grows the pool to the cap whatever the round
    /// trip; with the queue and the trust tests the walk keeps the workers it starts
    /// with where the CPU is the limit and reaches the cap where the round trip is.
    #[test]
    fn growth_stops_where_more_workers_would_only_wait_for_the_cpu() {
        let cpu = Duration::from_micros(50);
        let step = |round_trip: Duration, workers: usize| {
            let trips = round_trip * 4;
            let wall = trips.max(cpu * 2 * u32::try_from(workers).unwrap());
            // A step of 16 such directories.
            LatencySums {
                wall: wall * 16,
                cpu: cpu * 16,
                queued: Some(wall.saturating_sub(trips) * 16),
                intervals: 16,
                // The workers run the 16 side by side.
                span: wall * 16 / u32::try_from(workers).unwrap(),
            }
        };
        let grow = |round_trip: Duration, checked: bool| {
            let mut running = 64;
            let mut record = GrowthRecord::default();
            for _step in 0..20 {
                let sums = step(round_trip, running);
                let asked = if checked {
                    record
                        .step(running, sums.intervals, sums.span)
                        .then(|| latency_step(&sums, running, 0))
                        .flatten()
                } else {
                    Some(workers_for_latency(sums.wall, sums.cpu))
                };
                if let Some(asked) = asked {
                    running = running.max(asked).min(MAX_WORKERS_ON_NETWORK);
                }
            }
            running
        };
        let us = Duration::from_micros;
        for round_trip in [us(200), us(1_000), us(5_000)] {
            assert_eq!(
                grow(round_trip, false),
                MAX_WORKERS_ON_NETWORK,
                "{round_trip:?}"
            );
        }
        // 0.2 and 1 ms: the 64 workers keep the half CPU busy, and queue for it.
        assert_eq!(grow(us(200), true), 64);
        assert_eq!(grow(us(1_000), true), 64);
        // 5 ms: the estimate (400) is trusted and the walk grows to the cap.
        assert_eq!(grow(us(5_000), true), MAX_WORKERS_ON_NETWORK);
        // 2 ms, with nothing queued (a CPU to spare): the estimate, 160, is taken.
        let sums = LatencySums {
            queued: Some(Duration::ZERO),
            ..step(us(2_000), 64)
        };
        assert_eq!(latency_step(&sums, 64, 0), Some(160));
        // One server that the workers keep busy (40 us a request, none queued for a
        // CPU: sshfs's connection): past 25 workers each wait is the queue at the
        // server, so the estimate follows the workers up at four times them and is
        // always trusted, while the intervals completed a second stay the server's.
        let server = us(40);
        let at_server = |workers: usize| {
            let wall = (server * 4 * u32::try_from(workers).unwrap()).max(us(1_000) * 4);
            LatencySums {
                wall: wall * 16,
                cpu: cpu * 16,
                queued: Some(Duration::ZERO),
                intervals: 16,
                span: wall * 16 / u32::try_from(workers).unwrap(),
            }
        };
        let mut record = GrowthRecord::default();
        let (mut with_record, mut without) = (16, 16);
        for _step in 0..10 {
            let sums = at_server(without);
            if let Some(asked) = latency_step(&sums, without, 0) {
                without = without.max(asked).min(MAX_WORKERS_ON_NETWORK);
            }
            let sums = at_server(with_record);
            if record.step(with_record, sums.intervals, sums.span) {
                if let Some(asked) = latency_step(&sums, with_record, 0) {
                    with_record = with_record.max(asked).min(MAX_WORKERS_ON_NETWORK);
                }
            }
        }
        assert_eq!(without, MAX_WORKERS_ON_NETWORK, "steps on estimates alone");
        // 16 → 64 (the round trip set the pace at 16: 4 ms against 2.6 at the
        // server), 64 → 205 (paid: 6.25 a ms against 4), then no further (205
        // gained nothing).
        assert_eq!(with_record, 205);
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
}
