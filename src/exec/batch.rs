//! `--exec-batch`: putting the matches into commands that each fit the system's limit
//! on the size of a command line, as `find -exec ... {} +` and `xargs` do.
//!
//! Linux counts against one limit every argument and every environment string, each
//! with its NUL and the pointer to it, and the program's path: a quarter of the stack
//! limit, at least 128 KiB and at most 6 MiB (`fs/exec.c`). `sysconf(_SC_ARG_MAX)`
//! gives the quarter of the stack limit (its floor too, not the cap); from it pfind
//! takes the cap, the environment its commands inherit, and a margin, and fills each
//! batch up to what is left. Should the system still refuse one (`E2BIG`), the runner
//! splits it in two and runs the halves.

use std::mem::size_of;

/// What an argument costs beyond its bytes: its NUL and its pointer in `argv`.
pub const POINTER: usize = size_of::<*const u8>();

/// Kept free under the limit: the 2048 bytes POSIX asks applications to leave (for
/// changes to the environment), and room for the program's path, which the kernel
/// copies too (at most `PATH_MAX`).
const MARGIN: usize = 2048 + 4096;

/// The most Linux allows whatever the stack limit: 3/4 of its 8 MiB default stack.
const LINUX_CAP: usize = 6 << 20;

/// The legacy limit, which Linux also guarantees as a floor (`ARG_MAX`).
const FLOOR: usize = 128 << 10;

/// What a word of `len` bytes takes of the limit.
pub fn arg_cost(len: usize) -> usize {
    len + 1 + POINTER
}

/// The bytes the words of a command may take, given the system's limit (`arg_max`)
/// and the size of the environment as [`environment_size`] counts it.
pub fn command_room(arg_max: usize, environment: usize) -> usize {
    arg_max
        .min(LINUX_CAP)
        .saturating_sub(environment)
        .saturating_sub(MARGIN)
}

/// `sysconf(_SC_ARG_MAX)`, or the legacy 128 KiB when the system does not say.
pub fn system_arg_max() -> usize {
    crate::os::limits::arg_max().unwrap_or(FLOOR)
}

/// What this process's environment, which every command inherits, takes of the
/// limit: each `NAME=value` string and its pointer, and the pointer that ends them.
pub fn environment_size() -> usize {
    std::env::vars_os()
        .map(|(name, value)| arg_cost(name.len() + 1 + value.len()))
        .sum::<usize>()
        + POINTER
}

/// Paths for one command, each followed by a NUL.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    paths: Vec<u8>,
    count: usize,
}

impl Batch {
    pub fn push(&mut self, path: &[u8]) {
        self.paths.extend_from_slice(path);
        self.paths.push(0);
        self.count += 1;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn paths(&self) -> impl Iterator<Item = &[u8]> + Clone {
        self.paths.split(|&b| b == 0).take(self.count)
    }

    /// The batch in two halves, for a command line the system refused as too long.
    pub fn halves(&self) -> (Batch, Batch) {
        let mut first = Batch::default();
        let mut second = Batch::default();
        for (i, path) in self.paths().enumerate() {
            if i < self.count / 2 {
                first.push(path);
            } else {
                second.push(path);
            }
        }
        (first, second)
    }
}

/// Fills batches up to a size, and hands each over when the next path does not fit.
#[derive(Debug)]
pub struct Batcher {
    /// What the paths' words may take in one command.
    room: usize,
    /// What the current batch's paths take.
    used: usize,
    current: Batch,
    /// `--batch-size`: the most paths a batch holds (0: no limit but the room).
    max_paths: usize,
}

impl Batcher {
    pub fn new(room: usize, max_paths: Option<usize>) -> Batcher {
        Batcher {
            room,
            used: 0,
            current: Batch::default(),
            max_paths: max_paths.filter(|&max| max > 0).unwrap_or(usize::MAX),
        }
    }

    /// Adds `path`, whose words take `cost` bytes of the limit. Returns the batch it
    /// closed when the path did not fit in it; a path that fits in no batch goes in
    /// one of its own (the system will refuse it, and that is reported).
    #[inline]
    pub fn add(&mut self, path: &[u8], cost: usize) -> Option<Batch> {
        let full = !self.current.is_empty()
            && (self.used + cost > self.room || self.current.len() >= self.max_paths);
        let closed = if full { self.finish() } else { None };
        self.current.push(path);
        self.used += cost;
        closed
    }

    /// The batch being filled, if it holds any path.
    pub fn finish(&mut self) -> Option<Batch> {
        self.used = 0;
        let batch = std::mem::take(&mut self.current);
        (!batch.is_empty()).then_some(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(batch: &Batch) -> Vec<&[u8]> {
        batch.paths().collect()
    }

    #[test]
    fn a_batch_size_caps_the_paths_per_batch() {
        let mut batcher = Batcher::new(1000, Some(2));
        let closed: Vec<usize> = (0..5)
            .filter_map(|i| batcher.add(format!("p{i}").as_bytes(), 3))
            .map(|batch| batch.len())
            .collect();
        assert_eq!(closed, [2, 2]);
        assert_eq!(batcher.finish().map(|batch| batch.len()), Some(1));
        // 0 is no limit but the room.
        let mut batcher = Batcher::new(10, Some(0));
        assert!((0..3).all(|_| batcher.add(b"abc", 3).is_none()));
        assert!(batcher.add(b"abc", 3).is_some());
    }

    #[test]
    fn batches_close_when_the_next_path_does_not_fit() {
        let mut batcher = Batcher::new(10, None);
        assert_eq!(batcher.add(b"a", 4), None);
        assert_eq!(batcher.add(b"b", 6), None); // exactly full
        let first = batcher.add(b"c", 1).expect("full");
        assert_eq!(paths(&first), [b"a", b"b"]);
        // Larger than the room: alone in its batch, and the next one starts anew.
        let second = batcher.add(b"huge", 11).expect("c is handed over first");
        assert_eq!(paths(&second), [b"c"]);
        let third = batcher.add(b"d", 1).expect("huge alone");
        assert_eq!(paths(&third), [&b"huge"[..]]);
        let last = batcher.finish().expect("d");
        assert_eq!(paths(&last), [b"d"]);
        assert_eq!(batcher.finish(), None);
    }

    #[test]
    fn a_batch_keeps_any_bytes_and_splits_in_halves() {
        let mut batch = Batch::default();
        for path in [&b"x\ny"[..], b"\xff", b"", b"-z"] {
            batch.push(path);
        }
        assert_eq!(batch.len(), 4);
        assert_eq!(paths(&batch), [&b"x\ny"[..], b"\xff", b"", b"-z"]);
        let (first, second) = batch.halves();
        assert_eq!(paths(&first), [&b"x\ny"[..], b"\xff"]);
        assert_eq!(paths(&second), [&b""[..], b"-z"]);
        let mut one = Batch::default();
        one.push(b"p");
        let (none, all) = one.halves();
        assert!(none.is_empty());
        assert_eq!(paths(&all), [b"p"]);
    }

    #[test]
    fn the_room_is_the_limit_less_the_environment_and_a_margin() {
        // (sysconf's limit, environment, room)
        let cases: &[(usize, usize, usize)] = &[
            (2 << 20, 3000, (2 << 20) - 3000 - MARGIN),
            (FLOOR, 0, FLOOR - MARGIN),
            // An unlimited stack: sysconf says a quarter of infinity, Linux 6 MiB.
            (usize::MAX / 4, 100, LINUX_CAP - 100 - MARGIN),
            // An environment that leaves nothing.
            (FLOOR, FLOOR, 0),
        ];
        for &(arg_max, environment, want) in cases {
            assert_eq!(command_room(arg_max, environment), want, "{arg_max}");
        }
        assert_eq!(arg_cost(3), 4 + POINTER);
        assert!(system_arg_max() >= FLOOR);
        assert!(environment_size() >= POINTER);
    }
}
