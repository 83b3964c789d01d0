//! Many `lstat`s in flight at once: the entries of one directory on a filesystem
//! that gives no file type in its listing (`DT_UNKNOWN`: some FUSE and network
//! filesystems) and answers each `stat` after a round trip. Asked one at a time,
//! a directory of 571 entries at 1 ms a round trip takes 571 ms whatever the number
//! of workers; here helper threads take the entries from a shared counter.

use super::stat::lstat_at;
use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Helper threads alive at once in the whole process: requests in flight beyond the
/// walk's own workers, each blocked in the kernel. As many as the workers a walk on
/// a network filesystem may have (`threads::MAX_WORKERS_ON_NETWORK`): with 64, the
/// FUSE tree without types at 5 ms took 3.4 s, most batches finding the helpers
/// taken and asking alone; with 256, 1.1 s.
const MOST_HELPERS: usize = 256;

/// Entries per helper at least: a thread costs about as much to start (tens of
/// microseconds) as a few local `stat`s, and a slow stat costs a round trip.
const ENTRIES_PER_HELPER: usize = 8;

/// A helper only calls `fstatat`.
const HELPER_STACK: usize = 64 * 1024;

static HELPERS: AtomicUsize = AtomicUsize::new(0);

/// `lstat_at(dir, name)` for each of `names`, in their order, with up to
/// [`MOST_HELPERS`] helper threads (fewer while others use them) and the calling
/// thread all asking at once. Where no helper can start (the limit is reached, or
/// the system refuses a thread) the calling thread asks for them all itself.
pub fn lstat_all(dir: RawFd, names: &[&CStr]) -> Vec<io::Result<libc::stat>> {
    let wanted = names.len().div_ceil(ENTRIES_PER_HELPER).saturating_sub(1);
    let granted = reserve(&HELPERS, wanted);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(name) = names.get(index) else { break };
            done.push((index, lstat_at(dir, name)));
        }
        done
    };
    let mut slots: Vec<Option<io::Result<libc::stat>>> = names.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (0..granted)
            .map_while(|_| {
                std::thread::Builder::new()
                    .name("pfind-stat".into())
                    .stack_size(HELPER_STACK)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        let mut done = work();
        for helper in helpers {
            done.extend(
                helper
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        for (index, result) in done {
            slots[index] = Some(result);
        }
    });
    HELPERS.fetch_sub(granted, Ordering::Relaxed);
    slots
        .into_iter()
        .map(|slot| slot.unwrap_or_else(|| Err(io::Error::from(io::ErrorKind::Other))))
        .collect()
}

/// Takes up to `wanted` helpers from the allowance counted in `helpers`; returns
/// how many.
fn reserve(helpers: &AtomicUsize, wanted: usize) -> usize {
    let mut granted = 0;
    let _ = helpers.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
        granted = wanted.min(MOST_HELPERS.saturating_sub(used));
        Some(used + granted)
    });
    granted
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::AsRawFd;

    #[test]
    fn every_name_gets_its_own_answer_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let mut names = Vec::new();
        for i in 0..100 {
            let name = format!("e{i}");
            if i % 3 == 0 {
                std::fs::create_dir(tmp.path().join(&name)).unwrap();
            } else if i % 3 == 1 {
                std::fs::write(tmp.path().join(&name), "").unwrap();
            }
            // i % 3 == 2: missing, an error.
            names.push(CString::new(name).unwrap());
        }
        let dir = std::fs::File::open(tmp.path()).unwrap();
        let refs: Vec<&CStr> = names.iter().map(|n| n.as_c_str()).collect();
        let results = lstat_all(dir.as_raw_fd(), &refs);
        assert_eq!(results.len(), 100);
        for (i, result) in results.iter().enumerate() {
            match i % 3 {
                0 => assert_eq!(
                    result.as_ref().unwrap().st_mode & libc::S_IFMT,
                    libc::S_IFDIR
                ),
                1 => assert_eq!(
                    result.as_ref().unwrap().st_mode & libc::S_IFMT,
                    libc::S_IFREG
                ),
                _ => assert_eq!(
                    result.as_ref().unwrap_err().raw_os_error(),
                    Some(libc::ENOENT)
                ),
            }
        }
        assert_eq!(
            HELPERS.load(Ordering::Relaxed),
            0,
            "every helper given back"
        );
    }

    #[test]
    fn helpers_are_capped_for_the_whole_process() {
        let helpers = AtomicUsize::new(0);
        assert_eq!(reserve(&helpers, MOST_HELPERS - 10), MOST_HELPERS - 10);
        assert_eq!(reserve(&helpers, 50), 10);
        assert_eq!(reserve(&helpers, 5), 0);
        helpers.fetch_sub(MOST_HELPERS, Ordering::Relaxed);
        assert_eq!(reserve(&helpers, 3), 3);
    }
}
