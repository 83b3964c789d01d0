//! Runs one walk: sorts the roots (`roots.rs`), sets the worker budget, seeds the
//! pool, runs the workers inside a `thread::scope`, and adds up what they found.

use crate::config::Config;
use crate::descriptors;
use crate::exec::{Exec, Mode};
use crate::ignore::Gate;
use crate::index::IndexRun;
use crate::memory;
use crate::os::dirent::{DirReader, EntryKind, ReaderKind, DIRENT_BUFFER_SIZE};
use crate::os::stat_many;
use crate::output::limit::MatchLimit;
use crate::output::pacing::ShallowFirst;
use crate::output::{Output, OutputMode};
use crate::placement::Placement;
use crate::queue::{self, Pool, WorkerSlot};
use crate::report::Reporter;
use crate::roots::{sort_roots, without_dot_slash, RootEntry, SortedRoots};
use crate::threads::{
    as_listing_wait, cold_start_workers, cpus_within_quota, first_workers, latency_step,
    spare_workers, workers_to_start, GrowthGate, GrowthRecord, PoolState, GROWTH_INTERVAL,
    LEAST_INTERVALS,
};
use crate::walker::{DirJob, Roots, Summary, Walker};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Instant;

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

    /// This process's workers have all ended (before `--exec`'s last commands
    /// run): what they counted is final.
    fn walked(&self) {}
}

/// [`run`] as one process of a walk shared with others: see [`Peers`].
pub fn run_shared(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    peers: &dyn Peers,
) -> Summary {
    let walk = |config: &Config, output: &Output| {
        let summary = run_walk(config, output, reporter, ReaderKind::native(), Some(peers));
        peers.walked();
        summary
    };
    let Some(exec) = &config.exec else {
        return walk(config, output);
    };
    let exec_config = exec_walk(config, exec);
    let dashes = paths_may_start_with_a_dash(&exec_config);
    exec.run(config.threads, dashes, output, reporter, |feed| {
        walk(&exec_config, feed)
    })
}

/// The steps of a walk: sort the roots, set the worker budget and the pool, then
/// walk (with the other processes' share, in a shared walk).
fn run_walk(
    config: &Config,
    output: &Output,
    reporter: &Reporter,
    reader: ReaderKind,
    peers: Option<&dyn Peers>,
) -> Summary {
    let starts_with_roots = peers.is_none_or(|peers| peers.starts_with_roots());
    let gate = config
        .ignore
        .is_active()
        .then(|| Gate::new(config.ignore.clone(), reporter));
    let roots = sort_roots(
        config,
        reporter,
        gate.as_ref(),
        peers.is_some(),
        starts_with_roots,
    );
    let limit = config.walk_limit().map(MatchLimit::new);
    // Breadth-first for longer when the walk stops at its first matches.
    let frontier = config
        .frontier_limit
        .unwrap_or_else(|| queue::frontier_limit(limit.is_some()));
    let growth_on_network = roots.remote && !config.exact_threads;
    let (threads, spares) = worker_budget(config, &roots, growth_on_network, frontier);
    // One worker to begin with, this thread; how many more is decided once there is
    // work to share (`walk_pool`).
    let (pool, mut slots) = Pool::with_spares(1, threads + spares - 1);
    // This thread's slot; the others are opened as their workers start.
    let first_slot = slots.remove(0);
    let pool = pool
        .with_frontier_limit(frontier)
        .with_latency_growth(growth_on_network)
        .with_latency_bound_listings(roots.remote || config.share_mid_listing)
        .with_peers_elsewhere(peers.is_some());
    let shallow = ShallowFirst::new(roots.dirs.len());
    if config.progress {
        let progress = &crate::progress::PROGRESS;
        // In a shared walk, the roots are queued by the one process that has them.
        if starts_with_roots {
            progress.queue_roots(roots.dirs.len() as u64);
        }
        progress.count_examined(config.stats || config.count_examined);
    }
    // pfind-mpi's ranks do not use the index (docs/design.md says how they could).
    let index = (!roots.index.is_empty())
        .then(|| IndexRun::open(config.index, &roots.index, config.threads, reporter));
    let listing_buffer = listing_buffer(config);
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
        root_entries: &roots.entries,
        output,
        reporter,
    };
    match peers {
        None => {
            let summary = walk_pool(config, &pool, first_slot, roots.dirs, make_walker, plan);
            if let Some(index) = index {
                index.finish(reporter);
            }
            summary
        }
        Some(peers) => {
            let dirs = if starts_with_roots {
                roots.dirs
            } else {
                Vec::new()
            };
            let walk = |dirs| walk_pool(config, &pool, first_slot, dirs, make_walker, plan);
            walk_shared(&pool, peers, &roots.shared, dirs, reporter, walk)
        }
    }
}

/// The workers the walk may have at once (`threads`) and may add while it runs
/// (`spares`, see `threads::spare_workers`), within what the address space
/// (`memory`) and the descriptors (`descriptors`, which sets its budget here)
/// allow. Without a directory to walk, there is no budget to set.
fn worker_budget(
    config: &Config,
    roots: &SortedRoots,
    growth_on_network: bool,
    frontier: usize,
) -> (usize, usize) {
    if roots.dirs.is_empty() {
        return (1, 0);
    }
    let spares = spare_workers(config.threads, config.spare_threads, growth_on_network);
    let requested = config.threads + spares;
    let workers = memory::affordable_workers(requested);
    let affordable = descriptors::configure(workers, config.reserved_descriptors, frontier);
    let threads = config.threads.min(affordable);
    (threads, affordable - threads)
}

/// How many bytes each worker lists a directory into: less where each file is
/// `stat`ed anyway (see `walker::STAT_LISTING_BUFFER`).
fn listing_buffer(config: &Config) -> usize {
    config.listing_buffer.unwrap_or_else(|| {
        let stats_each = config.force_stat || config.needs_stat(EntryKind::File);
        match stats_each {
            true => crate::walker::STAT_LISTING_BUFFER,
            false => DIRENT_BUFFER_SIZE,
        }
    })
}

/// A walk shared with other processes: `walk` runs this process's workers on
/// `pool` from `dirs` (the roots, for the one that starts with them) while a
/// thread of its own trades directories with the `peers` until all agree the walk
/// is over. A rank may begin with no directory: the peers' thread holds the pool
/// meanwhile.
fn walk_shared(
    pool: &Pool<DirJob>,
    peers: &dyn Peers,
    roots: &Roots,
    dirs: Vec<DirJob>,
    reporter: &Reporter,
    walk: impl FnOnce(Vec<DirJob>) -> Summary,
) -> Summary {
    // Queued before the peers' thread starts, which takes an empty pool for an
    // idle rank.
    pool.hold();
    pool.inject(dirs);
    std::thread::scope(|scope| {
        let serving = std::thread::Builder::new()
            .name("pfind-peers".to_owned())
            .spawn_scoped(scope, || peers.serve(pool, roots));
        if let Err(err) = serving {
            reporter.error("pfind-peers", &err);
            pool.finish_dir();
            pool.stop();
        }
        walk(Vec::new())
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
    // This thread is worker 0. It starts alone and brings in the others only once it
    // has directories to share: small trees are dominated by start-up, and starting a
    // thread costs about as much as listing a small directory.
    let mut first = make_walker(plan.reader);
    // Roots that are files come first, and are delivered at once: if that fills
    // `--max-results` or finds the output closed, the pool is stopped and no
    // directory is listed.
    for root in plan.root_entries {
        let (dir, name) = root.dir_and_name();
        first.visit_root(dir, name, root.kind, &root.stat);
    }
    first.flush();
    if !pool.is_stopped() {
        pool.push_dirs(&first_slot, 0, root_dirs.into_iter());
    }
    let mut summary = Summary::default();
    if plan.threads + plan.spares == 1 || !first.run_until_shareable(&first_slot) {
        summary.add(first.run(&first_slot));
        return summary;
    }
    let (first_workers, quota_read_by_worker) = first_workers(plan.threads, config.exact_threads);
    pool.set_base_workers(first_workers);
    // A first listing that had to wait for the disk means a cold tree.
    if first.listed_cold() {
        // On a network filesystem, the first listing's round trips count too.
        let answered = first.answered_from_index();
        let first_listing = pool
            .latency_tally()
            .map(|tally| as_listing_wait(tally.restart(Instant::now()).wall, answered));
        pool.ask_for_workers(cold_start_workers(first_workers, first_listing));
    }
    // Workers that have begun to run, for `Crew::place`.
    let running = AtomicUsize::new(0);
    let work = |slot: &WorkerSlot<DirJob>| {
        running.fetch_add(1, Ordering::Relaxed);
        if quota_read_by_worker && slot.index() == 1 {
            pool.set_base_workers(plan.threads.min(cpus_within_quota()));
        }
        // A worker that cannot have its listing buffer (the address space is full)
        // does not start: the walk goes on with the others.
        match DirReader::try_new(plan.reader, plan.listing_buffer) {
            Some(buffer) => Walker::new(
                config,
                pool,
                plan.output,
                plan.reporter,
                buffer,
                plan.limit,
                plan.shallow,
            )
            .with_gate(plan.gate)
            .with_index(plan.index)
            .run(slot),
            None => Summary::default(),
        }
    };
    let per_worker: Vec<Summary> = std::thread::scope(|scope| {
        let crew = Crew {
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
        walk_with_crew(first, &first_slot, crew)
    });
    for found in per_worker {
        summary.add(found);
    }
    summary
}

/// The walk once it has directories to share: this thread (`first`) walks, and
/// starts the `crew`'s workers as they are asked for, between its own directories
/// or, on a network filesystem, from a thread of its own. What each found.
fn walk_with_crew<'scope, 'env, F>(
    first: Walker<'_>,
    first_slot: &WorkerSlot<DirJob>,
    mut crew: Crew<'scope, 'env, F>,
) -> Vec<Summary>
where
    F: Fn(&WorkerSlot<DirJob>) -> Summary + Sync,
{
    crew.start_first();
    // On a network filesystem this thread can spend a long time in one directory
    // (one round trip per batch of entries: 100 ms and more for a large one at
    // 5 ms), while the workers' measurements ask for a step every few directories.
    // So a thread of its own takes the steps and starts the workers, looking every
    // `GROWTH_INTERVAL` until the walk is over (or has stopped: a panicking worker
    // stops the pool). Elsewhere, or where that thread cannot start, this thread
    // starts the workers asked for (directories waiting on the disk) between its
    // own directories.
    let starter = if crew.pool.latency_growth() {
        crew.unplaced = None;
        crew.hand_to_starter()
    } else {
        Err(crew)
    };
    match starter {
        Ok(starter) => {
            let mut found = vec![first.run(first_slot)];
            starter.thread().unpark();
            found.extend(
                starter
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
            found
        }
        Err(mut crew) => {
            let mut found = vec![first.run_and_serve(first_slot, || crew.serve())];
            found.extend(crew.join());
            found
        }
    }
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
    unplaced: Option<Placement>,
    /// On a network filesystem, whether the last growth paid (`threads::GrowthRecord`).
    growth: GrowthRecord,
}

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
            self.unplaced = Some(Placement::new(self.handles.len()));
        }
    }

    /// If the workers just started have not begun to run a while later, this thread
    /// moves to another CPU and leaves them this one (`placement::Placement`). True
    /// when it moved.
    fn place(&mut self) -> bool {
        let Some(placement) = &mut self.unplaced else {
            return false;
        };
        let moved = placement.check(self.running.load(Ordering::Relaxed));
        if placement.settled() {
            self.unplaced = None;
        }
        moved
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

    /// Hands the crew to a thread of its own, the starter, which starts its workers
    /// and takes the steps on the latency every `GROWTH_INTERVAL` until the walk is
    /// over, then joins them: its handle, or the crew back if that thread cannot
    /// start. The crew is handed over once that thread runs. (Returned whole, not
    /// boxed: once per walk.)
    #[allow(clippy::result_large_err)]
    fn hand_to_starter(self) -> Result<ScopedJoinHandle<'scope, Vec<Summary>>, Self>
    where
        F: 'scope,
    {
        let pool = self.pool;
        let (handover, handed) = mpsc::sync_channel(1);
        let starter = std::thread::Builder::new()
            .name("pfind-starter".to_owned())
            .spawn_scoped(self.scope, move || {
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
                .send(self)
                .map(|()| starter)
                .map_err(|returned| returned.0),
            Err(_) => Err(self),
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
