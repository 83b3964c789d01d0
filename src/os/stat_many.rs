//! Many `lstat`s in flight at once: the entries of one directory on a filesystem
//! that gives no file type in its listing (`DT_UNKNOWN`: some FUSE and network
//! filesystems) and answers each `stat` after a round trip. Asked one at a time,
//! a directory of 571 entries at 1 ms a round trip takes 571 ms whatever the number
//! of workers; here helper threads take the entries from a shared counter.

use super::stat::{lstat_at, Fields, Stat};
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

/// Helper threads in the whole process: requests in flight beyond the walk's own
/// workers, each blocked in the kernel. As many as the workers a walk on a network
/// filesystem may have (`threads::MAX_WORKERS_ON_NETWORK`): with 64, the FUSE tree
/// without types at 5 ms took 3.4 s, most batches finding the helpers taken and
/// asking alone; with 256, 1.1 s.
const MOST_HELPERS: usize = 256;

/// Entries per helper at least: a slow stat costs a round trip, and handing a few
/// local ones to another thread costs as much as asking them.
const ENTRIES_PER_HELPER: usize = 8;

/// A helper only calls `fstatat`.
const HELPER_STACK: usize = 64 * 1024;

/// What the asking thread and the helpers of one batch share under its lock.
struct BatchState {
    /// The answers, by the index of their name.
    answers: Vec<Option<io::Result<Stat>>>,
    /// The asking thread has taken every entry itself and waits: a helper arriving
    /// now leaves without joining.
    closed: bool,
    /// Helpers that joined and have not left.
    inside: usize,
}

impl BatchState {
    fn record(&mut self, done: Vec<(usize, io::Result<Stat>)>) {
        for (index, result) in done {
            self.answers[index] = Some(result);
        }
    }
}

/// One directory's entries to stat, shared by the thread that asks and the helpers
/// that join it. The names are copied: helpers outlive any one call.
struct Batch {
    dir: RawFd,
    names: Vec<CString>,
    next: AtomicUsize,
    state: Mutex<BatchState>,
    left: Condvar,
}

impl Batch {
    fn new(dir: RawFd, names: Vec<CString>) -> Batch {
        let state = BatchState {
            answers: names.iter().map(|_| None).collect(),
            closed: false,
            inside: 0,
        };
        Batch {
            dir,
            names,
            next: AtomicUsize::new(0),
            state: Mutex::new(state),
            left: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes entries until none is left; returns the answers, by index.
    fn work(&self) -> Vec<(usize, io::Result<Stat>)> {
        let mut done = Vec::new();
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(name) = self.names.get(index) else {
                break;
            };
            done.push((index, lstat_at(self.dir, name, Fields::TYPE)));
        }
        done
    }

    /// A helper's visit: join unless the asking thread is done, work, leave.
    fn help(&self) {
        {
            let mut state = self.lock();
            if state.closed {
                return;
            }
            state.inside += 1;
        }
        let done = self.work();
        let mut state = self.lock();
        state.record(done);
        state.inside -= 1;
        if state.inside == 0 {
            self.left.notify_all();
        }
    }

    /// The asking thread's part: every entry left, then the answers once the
    /// helpers inside have left.
    fn finish(&self) -> Vec<io::Result<Stat>> {
        let done = self.work();
        let mut state = self.lock();
        state.record(done);
        // Closed: a helper still on its way leaves at once; `dir` stays open only
        // until those inside are done.
        state.closed = true;
        while state.inside > 0 {
            state = self.left.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        std::mem::take(&mut state.answers)
            .into_iter()
            .map(|slot| slot.unwrap_or_else(|| Err(io::Error::from(io::ErrorKind::Other))))
            .collect()
    }
}

/// The helpers: started as batches ask for them, up to [`MOST_HELPERS`], then kept,
/// each waiting for a batch to join. Starting threads per batch instead cost the
/// walk of the FUSE tree without types at 1 ms a thread start for every eight
/// entries, on the CPUs that also serve the round trips.
struct Helpers {
    queue: Sender<Arc<Batch>>,
    jobs: Mutex<Receiver<Arc<Batch>>>,
    started: AtomicUsize,
    /// Helpers waiting for a batch.
    idle: AtomicUsize,
}

static HELPERS: OnceLock<Helpers> = OnceLock::new();

fn helpers() -> &'static Helpers {
    HELPERS.get_or_init(|| {
        let (queue, jobs) = mpsc::channel();
        Helpers {
            queue,
            jobs: Mutex::new(jobs),
            started: AtomicUsize::new(0),
            idle: AtomicUsize::new(0),
        }
    })
}

impl Helpers {
    /// Offers `batch` to `wanted` helpers, starting those missing (none where none
    /// exists or can start).
    fn offer(&'static self, batch: &Arc<Batch>, wanted: usize) {
        let mut free = self.idle.load(Ordering::Relaxed);
        while free < wanted && self.start() {
            free += 1;
        }
        for _ in 0..wanted.min(self.started.load(Ordering::Relaxed)) {
            let _ = self.queue.send(Arc::clone(batch));
        }
    }

    /// Starts one more helper, unless there are [`MOST_HELPERS`] or the system
    /// refuses a thread.
    fn start(&'static self) -> bool {
        let claimed = self
            .started
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < MOST_HELPERS).then_some(n + 1)
            });
        if claimed.is_err() {
            return false;
        }
        let spawned = std::thread::Builder::new()
            .name("pfind-stat".into())
            .stack_size(HELPER_STACK)
            .spawn(move || loop {
                self.idle.fetch_add(1, Ordering::Relaxed);
                let batch = self.jobs.lock().unwrap_or_else(|e| e.into_inner()).recv();
                self.idle.fetch_sub(1, Ordering::Relaxed);
                match batch {
                    Ok(batch) => batch.help(),
                    Err(_) => return,
                }
            });
        if spawned.is_err() {
            self.started.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// The helper threads started so far in this process (none until a batch asks for
/// one): each is a request the walk can have in flight beside its workers'.
pub fn helpers_started() -> usize {
    HELPERS
        .get()
        .map_or(0, |helpers| helpers.started.load(Ordering::Relaxed))
}

/// ``lstat_at(dir, name, Fields::TYPE)`, the kind, for each of `names`, in their order, with up to
/// [`MOST_HELPERS`] helper threads and the calling thread all asking at once. Where
/// no helper is free (all joined other batches, or the system refuses a thread) the
/// calling thread asks for them all itself.
pub fn lstat_all(dir: RawFd, names: &[&CStr]) -> Vec<io::Result<Stat>> {
    let wanted = names.len().div_ceil(ENTRIES_PER_HELPER).saturating_sub(1);
    let batch = Arc::new(Batch::new(
        dir,
        names.iter().map(|&name| name.to_owned()).collect(),
    ));
    if wanted > 0 {
        helpers().offer(&batch, wanted);
    }
    batch.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::AsRawFd;

    /// A directory of `count` entries: a directory, a file, and a name that is
    /// missing, in turn; with the names to ask for.
    fn entries(count: usize) -> (tempfile::TempDir, Vec<CString>) {
        let tmp = tempfile::tempdir().unwrap();
        let mut names = Vec::new();
        for i in 0..count {
            let name = format!("e{i}");
            if i % 3 == 0 {
                std::fs::create_dir(tmp.path().join(&name)).unwrap();
            } else if i % 3 == 1 {
                std::fs::write(tmp.path().join(&name), "").unwrap();
            }
            names.push(CString::new(name).unwrap());
        }
        (tmp, names)
    }

    fn check(results: &[io::Result<Stat>], count: usize) {
        assert_eq!(results.len(), count);
        for (i, result) in results.iter().enumerate() {
            match i % 3 {
                0 => assert_eq!(
                    result.as_ref().unwrap().mode() & libc::S_IFMT,
                    libc::S_IFDIR
                ),
                1 => assert_eq!(
                    result.as_ref().unwrap().mode() & libc::S_IFMT,
                    libc::S_IFREG
                ),
                _ => assert_eq!(
                    result.as_ref().unwrap_err().raw_os_error(),
                    Some(libc::ENOENT)
                ),
            }
        }
    }

    #[test]
    fn every_name_gets_its_own_answer_in_order() {
        let (tmp, names) = entries(100);
        let dir = std::fs::File::open(tmp.path()).unwrap();
        let refs: Vec<&CStr> = names.iter().map(|n| n.as_c_str()).collect();
        check(&lstat_all(dir.as_raw_fd(), &refs), 100);
    }

    /// Many threads asking at once, more helpers wanted than may exist: every batch
    /// is answered whole and in order (helpers busy elsewhere leave it to its asker),
    /// and the helpers stay within their bound.
    #[test]
    fn batches_asked_at_once_are_each_answered_whole() {
        let (tmp, names) = entries(3 * ENTRIES_PER_HELPER * 40);
        let dir = std::fs::File::open(tmp.path()).unwrap();
        let refs: Vec<&CStr> = names.iter().map(|n| n.as_c_str()).collect();
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for size in [1, 9, 100, refs.len()] {
                        check(&lstat_all(dir.as_raw_fd(), &refs[..size]), size);
                    }
                });
            }
        });
        let started = helpers().started.load(Ordering::Relaxed);
        assert!((1..=MOST_HELPERS).contains(&started), "{started} helpers");
    }

    /// A helper that arrives once the asker is done leaves without touching the
    /// batch: the asker may already have closed the directory it reads from.
    #[test]
    fn a_helper_arriving_after_the_asker_is_done_leaves() {
        let (tmp, names) = entries(30);
        let dir = std::fs::File::open(tmp.path()).unwrap();
        let batch = Batch::new(dir.as_raw_fd(), names);
        batch.lock().closed = true;
        batch.help();
        assert_eq!(batch.next.load(Ordering::Relaxed), 0, "no entry taken");
        let state = batch.lock();
        assert_eq!(state.inside, 0);
        assert!(state.answers.iter().all(Option::is_none));
        drop(state);
        // Open, the same visit answers every entry.
        batch.lock().closed = false;
        batch.help();
        assert!(batch.lock().answers.iter().all(Option::is_some));
    }
}
