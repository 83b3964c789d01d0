//! One worker: take a directory from the pool, list it, filter its entries inline,
//! print or count the files that match, and queue its subdirectories.
//!
//! There is no second stage and no channel of paths: the per-file work (a few byte
//! comparisons and a copy into the output buffer) is far cheaper than any hand-off
//! between threads would be. Nothing on the per-entry path allocates: names are
//! borrowed from the reader's buffer, matches are appended to a per-worker buffer that
//! is handed to stdout in 256 KiB blocks, and only a subdirectory costs an allocation
//! (its path, which must outlive this directory).

use crate::config::{Config, OutputMode, OUTPUT_FLUSH_THRESHOLD, OUTPUT_INITIAL_CAPACITY};
use crate::descriptors::Anchor;
use crate::dirent::{lstat_at, open_dir_at, DirReader, EntryKind, RawEntry};
use crate::output::{Delivery, Output};
use crate::process::{glob_match, name_matches_extension};
use crate::queue::{Pool, WorkerSlot};
use crate::report::Reporter;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
#[cfg(test)]
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

/// A directory waiting to be read.
pub struct DirJob {
    /// What is printed before each entry's name: the directory's path and a `/`,
    /// or nothing at all for the implicit `.` root.
    prefix: Vec<u8>,
    /// Length of the directory's own path at the start of `prefix` (for opening it and
    /// for error messages); for a root this is the root exactly as typed.
    path_len: usize,
    /// The nearest open ancestor to open this directory relative to; `None` opens it by
    /// its path from the working directory.
    anchor: Option<Arc<Anchor>>,
}

impl DirJob {
    /// The job for a root directory, printed as `root` was typed. `root` empty means
    /// the implicit `.`, whose entries are printed without a `./` prefix.
    pub fn root(root: &[u8]) -> DirJob {
        let mut prefix = root.to_vec();
        if !root.is_empty() && !root.ends_with(b"/") {
            prefix.push(b'/');
        }
        DirJob {
            prefix,
            path_len: root.len(),
            anchor: None,
        }
    }

    fn child(&self, name: &[u8]) -> DirJob {
        let mut prefix = Vec::with_capacity(self.prefix.len() + name.len() + 1);
        prefix.extend_from_slice(&self.prefix);
        prefix.extend_from_slice(name);
        let path_len = prefix.len();
        prefix.push(b'/');
        DirJob {
            prefix,
            path_len,
            anchor: None,
        }
    }

    /// The directory's path for messages; `.` for the implicit root.
    fn display_path(&self) -> &[u8] {
        match &self.prefix[..self.path_len] {
            b"" => b".",
            path => path,
        }
    }

    fn open(&self) -> io::Result<OwnedFd> {
        match &self.anchor {
            Some(anchor) => open_dir_at(
                Some(anchor.fd()),
                &self.prefix[anchor.prefix_len()..self.path_len],
                true,
            ),
            None => open_dir_at(None, self.display_path(), false),
        }
    }
}

/// True when a file named `name` passes the name filters (`-E`, `-e`, `-n`).
pub fn name_passes(config: &Config, name: &[u8]) -> bool {
    if is_excluded(config, name) {
        return false;
    }
    if !config.extensions.is_empty() && !name_matches_extension(name, &config.extensions) {
        return false;
    }
    match &config.name_glob {
        Some(glob) => glob_match(glob, name),
        None => true,
    }
}

fn is_excluded(config: &Config, name: &[u8]) -> bool {
    config
        .exclude_globs
        .iter()
        .any(|glob| glob_match(glob, name))
}

/// True when a file of `size` bytes passes every `-S` filter.
pub fn size_passes(config: &Config, size: u64) -> bool {
    config
        .size_filters
        .iter()
        .all(|filter| filter.accepts(size))
}

/// The state one worker thread owns for the whole walk.
pub struct Walker<'a> {
    reader: DirReader,
    /// Everything the per-entry code touches; a separate field from `reader` so the
    /// listing callback can borrow it while the reader is borrowed too.
    visitor: Visitor<'a>,
}

struct Visitor<'a> {
    config: &'a Config,
    pool: &'a Pool<DirJob>,
    output: &'a Output,
    reporter: &'a Reporter,
    /// Matched paths not yet handed to `output`.
    buffer: Vec<u8>,
    /// Matches found by this worker (counted in every output mode).
    matches: u64,
    /// Subdirectories of the directory being read; reused across directories.
    children: Vec<DirJob>,
    /// True when files can be accepted on `d_type` alone, without their name.
    count_by_type_only: bool,
}

impl<'a> Walker<'a> {
    pub fn new(
        config: &'a Config,
        pool: &'a Pool<DirJob>,
        output: &'a Output,
        reporter: &'a Reporter,
        reader: DirReader,
    ) -> Walker<'a> {
        let count_by_type_only = config.output == OutputMode::Count
            && !config.has_name_filter()
            && config.exclude_globs.is_empty()
            && config.size_filters.is_empty()
            && !config.force_stat;
        Walker {
            reader,
            visitor: Visitor {
                config,
                pool,
                output,
                reporter,
                buffer: Vec::with_capacity(OUTPUT_INITIAL_CAPACITY),
                matches: 0,
                children: Vec::new(),
                count_by_type_only,
            },
        }
    }

    /// Runs until the pool says the walk is over; returns this worker's match count.
    pub fn run(mut self, slot: WorkerSlot<DirJob>) -> u64 {
        let pool = self.visitor.pool;
        let _guard = pool.guard();
        while let Some(job) = pool.next_job(&slot, || self.visitor.flush()) {
            self.walk_dir(&job, &slot);
            pool.finish_dir();
            if self.visitor.config.flush_per_directory {
                self.visitor.flush();
            }
        }
        self.visitor.flush();
        self.visitor.matches
    }

    fn walk_dir(&mut self, job: &DirJob, slot: &WorkerSlot<DirJob>) {
        let visitor = &mut self.visitor;
        let dir = match job.open() {
            Ok(dir) => dir,
            Err(err) => return visitor.reporter.path_error(job.display_path(), &err),
        };
        #[cfg(test)]
        tests::after_open(job.display_path());
        let dir_fd = dir.as_raw_fd();
        let listed = self
            .reader
            .read(dir_fd, |entry| visitor.visit(job, dir_fd, entry));
        if let Err(err) = listed {
            visitor.reporter.path_error(job.display_path(), &err);
        }
        if !visitor.children.is_empty() {
            // Keep this directory open for its children if the budget allows; otherwise
            // they are opened relative to our own anchor by a longer path.
            let anchor = match Anchor::keep(dir, job.prefix.len()) {
                Ok(anchor) => Some(anchor),
                Err(_closed_on_drop) => job.anchor.clone(),
            };
            for child in &mut visitor.children {
                child.anchor = anchor.clone();
            }
            visitor.pool.push_dirs(slot, visitor.children.drain(..));
        }
    }
}

impl Visitor<'_> {
    /// The per-entry hot path.
    #[inline]
    fn visit(&mut self, job: &DirJob, dir_fd: RawFd, entry: RawEntry<'_>) {
        let mut kind = entry.kind;
        if self.count_by_type_only && kind == EntryKind::File {
            self.matches += 1;
            return;
        }
        if entry.is_dot_or_dotdot() {
            return;
        }
        if kind == EntryKind::Unknown || self.config.force_stat {
            kind = match lstat_at(dir_fd, entry.name_cstr()) {
                Ok(stat) => EntryKind::from_mode(stat.st_mode),
                Err(err) => return self.entry_error(job, entry.name(), &err),
            };
        }
        match kind {
            EntryKind::File => self.visit_file(job, dir_fd, entry),
            EntryKind::Dir if !is_excluded(self.config, entry.name()) => {
                self.children.push(job.child(entry.name()));
            }
            _ => {}
        }
    }

    fn visit_file(&mut self, job: &DirJob, dir_fd: RawFd, entry: RawEntry<'_>) {
        let name = entry.name();
        if !name_passes(self.config, name) {
            return;
        }
        if !self.config.size_filters.is_empty() {
            match lstat_at(dir_fd, entry.name_cstr()) {
                Ok(stat) if size_passes(self.config, stat.st_size as u64) => {}
                Ok(_) => return,
                Err(err) => return self.entry_error(job, name, &err),
            }
        }
        self.matches += 1;
        if let OutputMode::Paths { terminator } = self.config.output {
            self.buffer.extend_from_slice(&job.prefix);
            self.buffer.extend_from_slice(name);
            self.buffer.push(terminator);
            if self.buffer.len() >= OUTPUT_FLUSH_THRESHOLD {
                self.flush();
            }
        }
    }

    fn entry_error(&self, job: &DirJob, name: &[u8], err: &io::Error) {
        let mut path = job.prefix.clone();
        path.extend_from_slice(name);
        self.reporter.path_error(&path, err);
    }

    /// Hands the buffered output to stdout; on a closed or failed output, ends the walk.
    fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        if self.output.deliver(&self.buffer, self.reporter) == Delivery::Closed {
            self.pool.stop();
        }
        self.buffer.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::SizeFilter;
    use std::sync::Mutex;

    /// A directory path whose opening triggers `rmdir` of that directory, to make
    /// `getdents64` fail after a successful `open` (the kernel answers ENOENT for a
    /// directory removed while open).
    static REMOVE_AFTER_OPEN: Mutex<Option<Vec<u8>>> = Mutex::new(None);

    pub(super) fn after_open(path: &[u8]) {
        let target = REMOVE_AFTER_OPEN.lock().unwrap();
        if target.as_deref() == Some(path) {
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(path));
            std::fs::remove_dir(path).expect("remove the directory under test");
        }
    }

    #[test]
    fn a_directory_removed_between_open_and_read_is_an_error_not_a_crash() {
        use crate::config::OutputMode;
        use crate::output::Output;
        use crate::report::Reporter;
        let tmp = tempfile::tempdir().unwrap();
        let doomed = tmp.path().join("doomed");
        std::fs::create_dir(&doomed).unwrap();
        std::fs::create_dir(tmp.path().join("kept")).unwrap();
        std::fs::write(tmp.path().join("kept/file"), b"").unwrap();
        *REMOVE_AFTER_OPEN.lock().unwrap() = Some(doomed.as_os_str().as_bytes().to_vec());
        for threads in [1, 4] {
            if !doomed.exists() {
                std::fs::create_dir(&doomed).unwrap();
            }
            let mut config = Config::new(vec![tmp.path().as_os_str().to_owned()]);
            config.output = OutputMode::Count;
            config.threads = threads;
            let reporter = Reporter::new();
            let output = Output::to_writer(Box::new(std::io::sink()));
            let summary = crate::scheduler::run(&config, &output, &reporter);
            assert!(reporter.errored(), "the failed listing must be reported");
            assert_eq!(summary.matches, 1, "the rest of the tree is still walked");
            assert!(!doomed.exists());
        }
        *REMOVE_AFTER_OPEN.lock().unwrap() = None;
    }

    #[test]
    fn root_prefixes_never_double_the_slash() {
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (b"dir", b"dir/", b"dir"),
            (b"dir/", b"dir/", b"dir/"),
            (b"/", b"/", b"/"),
            (b".", b"./", b"."),
            (b"", b"", b"."),
            (b"a//", b"a//", b"a//"),
        ];
        for &(root, prefix, display) in cases {
            let job = DirJob::root(root);
            assert_eq!(job.prefix, prefix);
            assert_eq!(job.display_path(), display);
            let child = job.child(b"sub");
            let mut want = prefix.to_vec();
            want.extend_from_slice(b"sub/");
            assert_eq!(child.prefix, want);
            assert_eq!(child.display_path(), &want[..want.len() - 1]);
        }
    }

    #[test]
    fn name_filters_combine_with_and() {
        let mut config = Config::new(vec![]);
        assert!(name_passes(&config, b"anything"));
        config.extensions = vec![b"jpg".to_vec().into_boxed_slice()];
        config.name_glob = Some(b"a*".to_vec().into_boxed_slice());
        assert!(name_passes(&config, b"a.JPG"));
        assert!(!name_passes(&config, b"b.jpg"));
        assert!(!name_passes(&config, b"a.png"));
        config.exclude_globs = vec![b"*x*".to_vec().into_boxed_slice()];
        assert!(!name_passes(&config, b"ax.jpg"));
        config.size_filters = vec![SizeFilter::AtLeast(10), SizeFilter::AtMost(20)];
        assert!(size_passes(&config, 10) && size_passes(&config, 20));
        assert!(!size_passes(&config, 9) && !size_passes(&config, 21));
    }
}
