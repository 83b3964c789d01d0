//! Runs one walk: classifies the roots, seeds the pool, runs the workers inside a
//! `thread::scope`, and adds up what they found.
//!
//! Roots are handled as `find -P` handles them: a directory is walked (it is depth 0
//! and never printed itself, as in fd); a regular file is itself a candidate (printed
//! as typed if it matches); a symbolic link is not followed unless `-L` is given (write
//! `link/` to walk the directory it points to; a warning says so for a link to a
//! directory that nothing would print) and is a candidate for `-t l`; a FIFO,
//! socket or device is a candidate too, which nothing matches (as `find fifo -type f`
//! prints nothing and succeeds); a root that does not exist is reported as an error
//! and the other roots are still walked. Roots that are candidates are handed to the
//! first worker, which tests them with the same code as any entry.

use crate::config::Config;
use crate::descriptors;
use crate::exec::{Exec, Mode};
use crate::ignore::Gate;
use crate::index::{IndexMode, IndexRun};
use crate::memory;
use crate::os::dirent::{DirReader, EntryKind, ReaderKind, DIRENT_BUFFER_SIZE};
use crate::os::fstype;
use crate::os::path::WorkingDir;
use crate::os::rank_root;
use crate::os::stat::{stat_at, Fields, Stat};
use crate::os::stat_many;
use crate::output::limit::MatchLimit;
use crate::output::pacing::ShallowFirst;
use crate::output::{Output, OutputMode};
use crate::queue::{self, Pool, WorkerSlot};
use crate::report::Reporter;
use crate::threads::{
    cpus_within_quota, latency_step, network_spare_threads, network_start, workers_to_start,
    CpuSpread, GrowthGate, GrowthRecord, PoolState, COLD_START_PER_CPU, GROWTH_INTERVAL,
    LEAST_INTERVALS,
};
use crate::walker::{DirJob, Roots, Summary, Walker};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// Walks every root in `config` and sends matches to `output`, or with `--exec` and
/// `--exec-batch` to the command, whose output goes there. Problems along the way
/// are reported through `reporter`; the walk itself only stops early if the output
/// goes away or `--max-results` is reached.
pub fn run(config: &Config, output: &Output, reporter: &Reporter) -> Summary {
    let Some(exec) = &config.exec else {
        return run_with_reader(config, output, reporter, ReaderKind::native());
    };
    let walk = exec_walk(config, exec);
    let dashes = paths_may_start_with_a_dash(&walk);
    exec.run(config.threads, dashes, output, reporter, |feed| {
        run_with_reader(&walk, feed, reporter, ReaderKind::native())
    })
}

/// The walk behind a command: it hands the command NUL-terminated paths (what `-0`
/// prints, any name included), with `--exec` each directory's as soon as it is
/// listed, and leaves them the descriptors they need. With no root given, paths start with `./`, as `pfind .` prints them
/// (and fd does here): a name that starts with `-` must not reach a command as an
/// option.
fn exec_walk(config: &Config, exec: &Exec) -> Config {
    let mut walk = config.clone();
    walk.exec = None;
    walk.output = OutputMode::Paths { terminator: 0 };
    walk.format = None;
    walk.implicit_root = false;
    walk.flush_per_directory = exec.mode() == Mode::PerMatch;
    walk.reserved_descriptors = exec.descriptors(config.threads);
    walk
}

/// True when `walk` may write a path that starts with `-`: a root printed as
/// nothing (`.` under `--strip-cwd-prefix`), whose entries' names come first, or
/// printed starting with `-` (`pfind -- -dir`, a file `-n`). Paths from other
/// roots start with what the root does.
fn paths_may_start_with_a_dash(walk: &Config) -> bool {
    !walk.absolute
        && walk.roots.iter().any(|root| {
            let root = root.as_bytes();
            let printed = if walk.strip_cwd_prefix {
                without_dot_slash(root)
            } else {
                root
            };
            printed.is_empty() || printed.starts_with(b"-")
        })
}

/// A root that is not walked but may itself match: a regular file, or a symbolic link
/// not followed (or dangling under `-L`).
struct RootEntry {
    printed: Vec<u8>,
    kind: EntryKind,
    stat: Stat,
}

impl RootEntry {
    /// The printed path split before its last component: the directory part (empty
    /// or ending in `/`) and the name the name filters test. A root that is not a
    /// directory never ends in `/` (the kernel refuses `file/`), so the last component
    /// is its basename.
    fn dir_and_name(&self) -> (&[u8], &[u8]) {
        let cut = self
            .printed
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(0, |slash| slash + 1);
        self.printed.split_at(cut)
    }
}

/// [`run`] with a chosen directory reader, so tests can check that the portable
/// reader gives the same results as the native one.
pub fn run_with_reader(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    reader: ReaderKind,
) -> Summary {
    run_walk(config, output, reporter, reader, None)
}

/// This process's share of a walk shared with other processes (`cluster`): what
/// runs beside the workers, on a thread of its own, for the whole walk.
pub trait Peers: Sync {
    /// True for the one process that starts with the roots; the others wait to be
    /// sent directories.
    fn starts_with_roots(&self) -> bool;

    /// Trades directories with the other processes until all agree the walk is
    /// over, then lets go of the hold the scheduler took ([`Pool::hold`]) with one
    /// [`Pool::finish_dir`], which ends this process's walk. `roots` are the walk's
    /// root directories, to make and read jobs against.
    fn serve(&self, pool: &Pool<DirJob>, roots: &Roots);
}

/// [`run`] as one process of a walk shared with others: see [`Peers`].
pub fn run_shared(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    peers: &dyn Peers,
) -> Summary {
    let Some(exec) = &config.exec else {
        return run_walk(config, output, reporter, ReaderKind::native(), Some(peers));
    };
    let walk = exec_walk(config, exec);
    let dashes = paths_may_start_with_a_dash(&walk);
    exec.run(config.threads, dashes, output, reporter, |feed| {
        run_walk(&walk, feed, reporter, ReaderKind::native(), Some(peers))
    })
}

fn run_walk(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    reader: ReaderKind,
    peers: Option<&dyn Peers>,
) -> Summary {
    let starts_with_roots = peers.is_none_or(|peers| peers.starts_with_roots());
    let mut roots = Roots::default();
    let mut working_dir = WorkingDir::default();
    let limit = config.walk_limit().map(MatchLimit::new);
    let mut root_dirs = Vec::new();
    let mut root_entries = Vec::new();
    let root_path = config.filter.root_path();
    let mut remote = config.assume_network;
    // `--index`: each root directory and its `stat`, to find its index by.
    let mut index_roots = Vec::new();
    let gate = config
        .ignore
        .is_active()
        .then(|| Gate::new(config.ignore.clone(), reporter));
    for (index, root) in config.roots.iter().enumerate() {
        let root = root.as_bytes();
        let printed = if config.absolute {
            match working_dir.absolute(root) {
                Ok(path) => path,
                Err(err) => {
                    reporter.path_error(root, &err);
                    continue;
                }
            }
        } else if config.implicit_root {
            Vec::new()
        } else if config.strip_cwd_prefix {
            without_dot_slash(root).to_vec()
        } else {
            root.to_vec()
        };
        if config.files_from {
            // `dir/` names `dir`, printed without the slash as a walk prints it.
            let mut printed = printed;
            while printed.len() > 1 && printed.ends_with(b"/") {
                printed.pop();
            }
            match classify_root(root, config.follow, config.stat_fields()) {
                Ok((kind, stat)) => root_entries.push(RootEntry {
                    printed,
                    kind,
                    stat,
                }),
                // As a walk reports an entry it cannot read: no hint of a pattern.
                Err(err) => reporter.path_error(root, &err),
            }
            continue;
        }
        match classify_root(root, config.follow, config.stat_fields()) {
            // Depth 0 is the root itself, never printed: list it only if its entries
            // may be printed.
            Ok((EntryKind::Dir, _)) if !config.filter.scope(0, root_path).descend => {}
            Ok((EntryKind::Dir, stat)) => {
                // A root on a network filesystem (one statfs per root) shares
                // subdirectories mid-listing and, without -j, lets the walk grow to
                // what the latency asks for.
                remote = remote
                    || CString::new(rank_root::opened(root))
                        .is_ok_and(|path| fstype::is_remote(&path));
                if config.index != IndexMode::Off && peers.is_none() {
                    index_roots.push((root.to_vec(), stat));
                }
                let mut job = DirJob::root(&printed, root_path).identified(&stat);
                if let Some(gate) = &gate {
                    job = job.with_rules(gate.root_rules(root, reporter));
                }
                if peers.is_some() {
                    roots.add(index, &job, config.one_file_system.then_some(stat.id().0));
                }
                root_dirs.push(job)
            }
            // In a shared walk, one process alone tests the roots that are files.
            Ok(_) if !starts_with_roots => {}
            Ok((kind, stat)) => {
                if kind == EntryKind::Symlink && !config.filter.links_may_match() {
                    hint_link_to_dir(root, reporter);
                }
                root_entries.push(RootEntry {
                    printed,
                    kind,
                    stat,
                });
            }
            // In a shared walk the roots are the same everywhere, and one process
            // says what is wrong with them (a rank's own mount aside).
            // Named as opened: under `pfind-mpi --rank-root`, the rank's own path.
            Err(err) if starts_with_roots || rank_root::is_set() => {
                reporter.root_error(&rank_root::opened(root), &err)
            }
            Err(_) => {}
        }
    }
    // Breadth-first for longer when the walk stops at its first matches.
    let frontier = config
        .frontier_limit
        .unwrap_or_else(|| queue::frontier_limit(limit.is_some()));
    let growth_on_network = remote && !config.exact_threads;
    // Without a directory to walk, there is no budget to set nor peer to start.
    let (threads, spares) = if root_dirs.is_empty() {
        (1, 0)
    } else {
        let spares = if growth_on_network {
            config
                .spare_threads
                .max(network_spare_threads(config.threads))
        } else {
            config.spare_threads
        };
        let requested = config.threads + spares;
        let workers = memory::affordable_workers(requested);
        let affordable = descriptors::configure(workers, config.reserved_descriptors, frontier);
        let threads = config.threads.min(affordable);
        (threads, affordable - threads)
    };
    // One worker to begin with, this thread; how many more is decided once there is
    // work to share (below).
    let (pool, mut slots) = Pool::with_spares(1, threads + spares - 1);
    // This thread's slot; the others are opened as their workers start.
    let first_slot = slots.remove(0);
    let pool = pool
        .with_frontier_limit(frontier)
        .with_latency_growth(growth_on_network)
        .with_latency_bound_listings(remote || config.share_mid_listing)
        .with_peers_elsewhere(peers.is_some());
    let shallow = ShallowFirst::new(root_dirs.len());
    if config.progress {
        let progress = &crate::progress::PROGRESS;
        progress.queue_roots(root_dirs.len() as u64);
        progress.count_examined(config.stats || config.count_examined);
    }
    // pfind-mpi's ranks do not use the index (docs/design.md says how they could).
    let index =
        (!index_roots.is_empty()).then(|| IndexRun::open(config.index, &index_roots, reporter));
    let listing_buffer = config.listing_buffer.unwrap_or_else(|| {
        let stats_each = config.force_stat || config.needs_stat(EntryKind::File);
        match stats_each {
            true => crate::walker::STAT_LISTING_BUFFER,
            false => DIRENT_BUFFER_SIZE,
        }
    });
    let make_walker = |reader_kind| {
        let reader = DirReader::new(reader_kind, listing_buffer);
        Walker::new(
            config,
            &pool,
            output,
            reporter,
            reader,
            limit.as_ref(),
            &shallow,
        )
        .with_gate(gate.as_ref())
        .with_index(index.as_ref())
    };
    let plan = WalkPlan {
        threads,
        spares,
        reader,
        listing_buffer,
        limit: limit.as_ref(),
        shallow: &shallow,
        gate: gate.as_ref(),
        index: index.as_ref(),
        root_entries: &root_entries,
        output,
        reporter,
    };
    // A shared walk goes on until the other processes agree it is over, and may
    // begin with no directory here: the peers' thread holds the pool meanwhile.
    let Some(peers) = peers else {
        let summary = walk_pool(config, &pool, first_slot, root_dirs, make_walker, plan);
        if let Some(index) = index {
            index.finish(reporter);
        }
        return summary;
    };
    // Queued before the peers' thread starts, which takes an empty pool for an
    // idle rank.
    pool.hold();
    if starts_with_roots {
        pool.inject(root_dirs);
    }
    std::thread::scope(|scope| {
        let serving = std::thread::Builder::new()
            .name("pfind-peers".to_owned())
            .spawn_scoped(scope, || peers.serve(&pool, &roots));
        if let Err(err) = serving {
            reporter.error("pfind-peers", &err);
            pool.finish_dir();
            pool.stop();
        }
        walk_pool(config, &pool, first_slot, Vec::new(), make_walker, plan)
    })
}

/// What [`walk_pool`] needs of the walk besides its pool.
struct WalkPlan<'a> {
    threads: usize,
    spares: usize,
    reader: ReaderKind,
    listing_buffer: usize,
    limit: Option<&'a MatchLimit>,
    shallow: &'a ShallowFirst,
    gate: Option<&'a Gate>,
    index: Option<&'a IndexRun>,
    root_entries: &'a [RootEntry],
    output: &'a Output,
    reporter: &'a Reporter,
}

/// Runs the workers on `pool`, this thread first on `first_slot`, seeded with
/// `root_dirs`, until the walk is over.
fn walk_pool<'a>(
    config: &'a Config,
    pool: &'a Pool<DirJob>,
    first_slot: WorkerSlot<DirJob>,
    root_dirs: Vec<DirJob>,
    make_walker: impl Fn(ReaderKind) -> Walker<'a>,
    plan: WalkPlan<'a>,
) -> Summary {
    let WalkPlan {
        threads,
        spares,
        reader,
        listing_buffer,
        limit,
        shallow,
        gate,
        index,
        root_entries,
        output,
        reporter,
    } = plan;
    let mut summary = Summary::default();
    // This thread is worker 0. It starts alone and brings in the others only once it
    // has directories to share: small trees are dominated by start-up, and starting a
    // thread costs about as much as listing a small directory.
    let mut first = make_walker(reader);
    // Roots that are files come first, and are delivered at once: if that fills
    // `--max-results` or finds the output closed, the pool is stopped and no
    // directory is listed.
    for root in root_entries {
        let (dir, name) = root.dir_and_name();
        first.visit_root(dir, name, root.kind, &root.stat);
    }
    first.flush();
    if !pool.is_stopped() {
        pool.push_dirs(&first_slot, 0, root_dirs.into_iter());
    }
    if threads + spares == 1 || !first.run_until_shareable(&first_slot) {
        summary.add(first.run(&first_slot));
        return summary;
    }
    // With `-j`, exactly that many. Without, `threads` counted the CPUs the process
    // may run on (one system call); a cgroup CPU quota can allow fewer, and reading it
    // takes about 0.2 ms here (`num_cpus` reads three files under /proc and /sys), a
    // twentieth of a small walk. So the walk starts with two workers and the second
    // reads the quota, off this thread's path, then sets how many the walk should have.
    let (first_workers, quota_read_by_worker) = if config.exact_threads {
        (threads, false)
    } else {
        (threads.min(2), threads > 2)
    };
    pool.set_base_workers(first_workers);
    // A first listing that had to wait for the disk means a cold tree: start with
    // enough workers to keep several reads in flight rather than ramp up to them.
    if first.listed_cold() {
        pool.ask_for_workers(first_workers * COLD_START_PER_CPU);
        // On a network filesystem, what the first listing's round trips ask for.
        if let Some(tally) = pool.latency_tally() {
            let first_listing = tally.restart(Instant::now()).wall;
            pool.ask_for_workers(network_start(
                first_listing,
                first_workers * COLD_START_PER_CPU,
            ));
        }
    }
    // Workers that have begun to run, for `Crew::place`.
    let running = AtomicUsize::new(0);
    let work = |slot: &WorkerSlot<DirJob>| {
        running.fetch_add(1, Ordering::Relaxed);
        if quota_read_by_worker && slot.index() == 1 {
            pool.set_base_workers(threads.min(cpus_within_quota()));
        }
        // A worker that cannot have its listing buffer (the address space is full)
        // does not start: the walk goes on with the others.
        match DirReader::try_new(reader, listing_buffer) {
            Some(buffer) => Walker::new(config, pool, output, reporter, buffer, limit, shallow)
                .with_gate(gate)
                .with_index(index)
                .run(slot),
            None => Summary::default(),
        }
    };
    let per_worker: Vec<Summary> = std::thread::scope(|scope| {
        let mut crew = Crew {
            scope,
            work: &work,
            pool,
            unstarted: 1..pool.capacity(),
            handles: Vec::new(),
            can_start: true,
            gate: (!config.assume_disk_waits).then(GrowthGate::new),
            running: &running,
            unplaced: None,
            growth: GrowthRecord::default(),
        };
        crew.start_first();
        // On a network filesystem this thread can spend a long time in one
        // directory (one round trip per batch of entries: 100 ms and more for a
        // large one at 5 ms), while the workers' measurements ask for a step every
        // few directories. So a thread of its own takes the steps and starts the
        // workers, looking every `GROWTH_INTERVAL` until the walk is over (or has
        // stopped: a panicking worker stops the pool). The crew is handed over once
        // that thread runs. Elsewhere, or where that thread cannot start, this
        // thread starts the workers asked for (directories waiting on the disk)
        // between its own directories.
        let starter = if pool.latency_growth() {
            crew.unplaced = None;
            let (handover, handed) = mpsc::sync_channel(1);
            let starter = std::thread::Builder::new()
                .name("pfind-starter".to_owned())
                .spawn_scoped(scope, move || {
                    let Ok::<Crew<_>, _>(mut crew) = handed.recv() else {
                        return Vec::new();
                    };
                    while !pool.is_stopped() {
                        crew.serve();
                        std::thread::park_timeout(GROWTH_INTERVAL);
                    }
                    crew.join()
                });
            match starter {
                Ok(starter) => handover
                    .send(crew)
                    .map(|()| starter)
                    .map_err(|returned| returned.0),
                Err(_) => Err(crew),
            }
        } else {
            Err(crew)
        };
        match starter {
            Ok(starter) => {
                let mut found = vec![first.run(&first_slot)];
                starter.thread().unpark();
                found.extend(
                    starter
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                );
                found
            }
            Err(mut crew) => {
                let mut found = vec![first.run_and_serve(&first_slot, || crew.serve())];
                found.extend(crew.join());
                found
            }
        }
    });
    for found in per_worker {
        summary.add(found);
    }
    summary
}

/// The workers this thread starts, inside a `thread::scope`, and their handles.
struct Crew<'scope, 'env, F> {
    scope: &'scope Scope<'scope, 'env>,
    /// What each worker runs: a walker on its slot.
    work: &'env F,
    pool: &'env Pool<DirJob>,
    /// The slots without a thread yet, opened as one starts (`Pool::open_slot`).
    unstarted: std::ops::Range<usize>,
    handles: Vec<ScopedJoinHandle<'scope, Summary>>,
    /// False once a thread could not be started (a process or container limit on
    /// threads): the walk goes on with the workers it has, this thread at least.
    can_start: bool,
    /// Paces the workers asked for during the walk (see `threads::GrowthGate`);
    /// `None` starts each one as soon as it is asked for (tests).
    gate: Option<GrowthGate>,
    /// Workers that have begun to run (each counts itself in).
    running: &'env AtomicUsize,
    /// When the first workers were started and how many, until they are seen running.
    unplaced: Option<(Instant, usize)>,
    /// On a network filesystem, whether the last growth paid (`threads::GrowthRecord`).
    growth: GrowthRecord,
}

/// How long the first workers may take to begin running before this thread takes
/// them to be queued behind it and moves away (`Crew::place`). A thread the kernel
/// puts on an idle CPU runs within tens of microseconds; one queued behind a busy
/// thread waits for the load balancer, a millisecond or more here.
const PLACEMENT_WAIT: Duration = Duration::from_micros(100);

impl<'scope, 'env, F> Crew<'scope, 'env, F>
where
    F: Fn(&WorkerSlot<DirJob>) -> Summary + Sync,
{
    /// True while the pool wants more workers than run (this thread counts as one).
    fn short_handed(&self) -> bool {
        self.can_start && self.handles.len() + 1 < self.pool.wanted_workers()
    }

    /// Starts the workers the walk begins with.
    fn start_first(&mut self) {
        // Read once: workers started here may ask for more while this runs, and those
        // go through the gate like any others.
        let wanted = self.pool.wanted_workers();
        while self.can_start && self.handles.len() + 1 < wanted {
            self.start_one();
        }
        if !self.handles.is_empty() {
            self.unplaced = Some((Instant::now(), self.handles.len()));
        }
    }

    /// If the workers just started have not begun to run a while later, they are
    /// queued behind this thread on its CPU (see `threads::CpuSpread`): this thread
    /// moves to another CPU and leaves them that one. Where the kernel placed them
    /// well they are running by then, and this thread stays: moving anyway would put
    /// it behind a worker on that worker's CPU, which in a process that walks many
    /// times (the library in a loop) took 1 to 4 ms per walk. True when it moved.
    fn place(&mut self) -> bool {
        let Some((started_at, started)) = self.unplaced else {
            return false;
        };
        if self.running.load(Ordering::Relaxed) >= started {
            self.unplaced = None;
            return false;
        }
        if started_at.elapsed() < PLACEMENT_WAIT {
            return false;
        }
        self.unplaced = None;
        let spread = CpuSpread::new();
        spread.step_aside();
        spread.finish();
        true
    }

    /// Between this thread's directories: the workers the walk should have once its
    /// CPU count is known, and one more if the pool asked for one (directories wait on
    /// the disk) and the CPUs have room for it. One relaxed load when nothing was asked.
    fn serve(&mut self) -> bool {
        let moved = self.place();
        self.step_on_latency();
        if !self.short_handed() {
            return moved;
        }
        let running = self.handles.len() + 1;
        let cpus = self.pool.base_workers();
        let gate = &mut self.gate;
        let state = PoolState {
            running,
            wanted: self.pool.wanted_workers(),
            idle: self.pool.parked_workers(),
            cpus,
            latency_growth: self.pool.latency_growth(),
        };
        let batch = workers_to_start(state, || gate.as_mut().is_none_or(|gate| gate.allows(cpus)));
        for _ in 0..batch {
            if !self.start_one() {
                break;
            }
        }
        moved
    }

    /// On a network filesystem, once the workers have measured enough directories
    /// since the last step, asks for what they measured asks for
    /// (`threads::latency_step`) and begins the next step.
    fn step_on_latency(&mut self) {
        let Some(tally) = self.pool.latency_tally() else {
            return;
        };
        let running = self.handles.len() + 1;
        if tally.intervals() < LEAST_INTERVALS.min(running) {
            return;
        }
        let sums = tally.restart(Instant::now());
        if !self.growth.step(running, sums.intervals, sums.span) {
            return;
        }
        if let Some(wanted) = latency_step(&sums, running, stat_many::helpers_started()) {
            self.pool.ask_for_workers(wanted);
        }
    }

    /// Starts a worker on the next free slot; false if none could be started.
    fn start_one(&mut self) -> bool {
        let Some(index) = self.unstarted.next() else {
            self.can_start = false;
            return false;
        };
        let slot = self.pool.open_slot(index);
        let work = self.work;
        let started = std::thread::Builder::new()
            .name(format!("pfind-worker-{}", slot.index()))
            .spawn_scoped(self.scope, move || work(&slot));
        match started {
            Ok(handle) => {
                self.handles.push(handle);
                true
            }
            Err(_) => {
                self.can_start = false;
                false
            }
        }
    }

    /// Waits for every worker started, re-raising a worker's panic as it was.
    fn join(self) -> Vec<Summary> {
        self.handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    }
}

/// `--strip-cwd-prefix`: `root` as printed without a leading `./` (and the slashes
/// after it, so that `.//x` does not become the absolute `/x`); `.` and `./` become
/// the empty prefix of the implicit root.
fn without_dot_slash(root: &[u8]) -> &[u8] {
    let mut rest = root;
    while let Some(after) = rest.strip_prefix(b"./") {
        rest = &after[after.iter().take_while(|&&b| b == b'/').count()..];
    }
    if rest == b"." {
        &[]
    } else {
        rest
    }
}

/// The root's kind and `stat`, with the `fields` the run reads: its own, or with `-L`
/// its target's. Under `-L` a dangling link is still a link, as with `find -L`.
/// Taken [`Fields::lenient`]: a directory root is walked whether or not it has a
/// birth time, and one that is a file is checked when it is tested.
fn classify_root(root: &[u8], follow: bool, fields: Fields) -> io::Result<(EntryKind, Stat)> {
    let c_root = CString::new(rank_root::opened(root))
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let fields = fields.lenient().with(Fields::ID);
    let stat = match stat_at(libc::AT_FDCWD, &c_root, follow, fields) {
        Err(err) if follow && err.raw_os_error() == Some(libc::ENOENT) => {
            stat_at(libc::AT_FDCWD, &c_root, false, fields)?
        }
        result => result?,
    };
    Ok((EntryKind::from_mode(stat.mode()), stat))
}

/// For a root that is a symbolic link not followed, and that nothing prints: if
/// it leads to a directory, says how to search that, since the run would print
/// nothing and say nothing (issue 28). find -P, bfs and fd -t f print nothing
/// there either; find and bfs print the link itself without `-type f`.
fn hint_link_to_dir(root: &[u8], reporter: &Reporter) {
    let leads_to_dir = CString::new(root)
        .ok()
        .and_then(|c_root| stat_at(libc::AT_FDCWD, &c_root, true, Fields::TYPE).ok())
        .is_some_and(|stat| EntryKind::from_mode(stat.mode()) == EntryKind::Dir);
    if leads_to_dir {
        let mut message = root.to_vec();
        message.extend_from_slice(
            b" is a symbolic link to a directory, and links are not followed: to search \
              the directory, give it as ",
        );
        message.extend_from_slice(root);
        message.extend_from_slice(b"/ or use -L");
        reporter.warning(&message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_cwd_prefix_table() {
        let cases: &[(&[u8], &[u8])] = &[
            (b".", b""),
            (b"./", b""),
            (b"./src", b"src"),
            (b"./src/", b"src/"),
            (b".//src", b"src"),
            (b"././src", b"src"),
            (b"./.", b""),
            (b"./.hidden", b".hidden"),
            (b"..", b".."),
            (b"../x", b"../x"),
            (b".x", b".x"),
            (b"src", b"src"),
            (b"/abs", b"/abs"),
        ];
        for &(root, want) in cases {
            assert_eq!(
                without_dot_slash(root),
                want,
                "{}",
                String::from_utf8_lossy(root)
            );
        }
    }
}
