//! `--sort path|size|mtime` and `--reverse`: matches kept during the walk and printed
//! in order at the end.
//!
//! The walk stays parallel. Each worker keeps its matches in a [`SortRun`]: the paths
//! back to back in one byte buffer, and per match a 24-byte [`Item`] (where its path
//! is, its kind, and which [`Meta`] is its, when a `stat` was taken). There is no
//! allocation per match. When its walk is over, each worker sorts its own run, so
//! the sorting is shared between threads too; the runs are then merged through a
//! binary heap into the output, and records are formatted only as they are written.
//!
//! The order is bytewise on the path, as `LC_ALL=C sort` orders lines; for `size` and
//! `mtime`, by that key first and the path among equal keys. `--reverse` reverses the
//! whole order. With `--max-results N` the first N in that order are printed, and no
//! worker keeps more than about 2N matches at any time.

use super::format::{Format, SortKey, SortOrder};
use super::meta::Meta;
use super::printer::{Match, Printer};
use crate::os::dirent::EntryKind;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Where one kept match is.
#[derive(Clone, Copy, Debug)]
struct Item {
    /// Its path: `paths[start..start + len]`.
    start: usize,
    len: u32,
    /// Index into `metas`, or `NO_META`.
    meta: u32,
    kind: EntryKind,
}

const NO_META: u32 = u32::MAX;

/// The value an item is ordered by before its path.
type Key = (i64, u32);

/// One worker's kept matches.
pub struct SortRun {
    order: SortOrder,
    /// With `--max-results`, no more than this many are ever printed.
    keep_at_most: Option<usize>,
    paths: Vec<u8>,
    items: Vec<Item>,
    metas: Vec<Meta>,
}

impl SortRun {
    pub fn new(order: SortOrder, keep_at_most: Option<u64>) -> SortRun {
        SortRun {
            order,
            keep_at_most: keep_at_most.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            paths: Vec::new(),
            items: Vec::new(),
            metas: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Keeps one match.
    pub fn push(&mut self, found: &Match<'_>) {
        let start = self.paths.len();
        self.paths.extend_from_slice(found.parts[0]);
        self.paths.extend_from_slice(found.parts[1]);
        let meta = match found.meta {
            Some(meta) => {
                self.metas.push(*meta);
                u32::try_from(self.metas.len() - 1).expect("fewer than 4 billion matches")
            }
            None => NO_META,
        };
        self.items.push(Item {
            start,
            len: u32::try_from(self.paths.len() - start).expect("a path under 4 GiB"),
            meta,
            kind: found.kind,
        });
        if let Some(keep) = self.keep_at_most {
            // Selecting the first `keep` (in linear time) and dropping the rest
            // whenever twice that many are held costs O(1) per match, amortised.
            if self.items.len() >= keep.saturating_mul(2).max(1024) {
                self.keep_first(keep);
            }
        }
    }

    /// Keeps only the first `n` items in order (not sorted among themselves).
    fn keep_first(&mut self, n: usize) {
        if n == 0 || self.items.len() <= n {
            return;
        }
        let mut items = std::mem::take(&mut self.items);
        items.select_nth_unstable_by(n - 1, |a, b| self.compare(a, b));
        self.items = items;
        self.truncate(n);
    }

    /// Puts the run in order (and, with a bound, drops what can never be printed).
    pub fn sort(&mut self) {
        let mut items = std::mem::take(&mut self.items);
        // By path alone, a comparison that tests neither the key nor the direction
        // each time: 25% fewer instructions for `--sort path` than `compare`.
        let paths = &self.paths[..];
        let path = |item: &Item| &paths[item.start..item.start + item.len as usize];
        match self.order {
            SortOrder {
                key: SortKey::Path,
                reverse: false,
            } => items.sort_unstable_by(|a, b| path(a).cmp(path(b))),
            SortOrder {
                key: SortKey::Path,
                reverse: true,
            } => items.sort_unstable_by(|a, b| path(b).cmp(path(a))),
            _ => items.sort_unstable_by(|a, b| self.compare(a, b)),
        }
        self.items = items;
        if let Some(keep) = self.keep_at_most {
            self.truncate(keep);
        }
    }

    /// Keeps the first `n` items, and only their paths and metadata.
    fn truncate(&mut self, n: usize) {
        if self.items.len() <= n {
            return;
        }
        self.items.truncate(n);
        let mut paths = Vec::with_capacity(self.items.iter().map(|i| i.len as usize).sum());
        let mut metas = Vec::new();
        for item in &mut self.items {
            let start = paths.len();
            paths.extend_from_slice(&self.paths[item.start..item.start + item.len as usize]);
            item.start = start;
            if item.meta != NO_META {
                metas.push(self.metas[item.meta as usize]);
                item.meta = (metas.len() - 1) as u32;
            }
        }
        self.paths = paths;
        self.metas = metas;
    }

    fn path(&self, item: &Item) -> &[u8] {
        &self.paths[item.start..item.start + item.len as usize]
    }

    fn meta(&self, item: &Item) -> Option<&Meta> {
        self.metas.get(item.meta as usize)
    }

    /// The value `item` is ordered by before its path (nothing for `--sort path`).
    fn key(&self, item: &Item) -> Key {
        let Some(meta) = self.meta(item) else {
            return (0, 0);
        };
        match self.order.key {
            SortKey::Path => (0, 0),
            SortKey::Size => (i64::try_from(meta.size).unwrap_or(i64::MAX), 0),
            SortKey::Mtime => meta.mtime_key(),
        }
    }

    /// The order of two items of this run. Each key has its own comparison: going
    /// through `key` for every comparison made `--sort path` 40% slower.
    fn compare(&self, a: &Item, b: &Item) -> Ordering {
        let (a, b) = if self.order.reverse { (b, a) } else { (a, b) };
        let by_path = || self.path(a).cmp(self.path(b));
        match self.order.key {
            SortKey::Path => by_path(),
            SortKey::Size | SortKey::Mtime => self.key(a).cmp(&self.key(b)).then_with(by_path),
        }
    }
}

/// The order of two matches given as (key, path).
fn compare(order: SortOrder, a: (Key, &[u8]), b: (Key, &[u8])) -> Ordering {
    let natural = a.cmp(&b);
    if order.reverse {
        natural.reverse()
    } else {
        natural
    }
}

/// The next unprinted item of one run, as the merge heap holds it.
struct Head<'r> {
    order: SortOrder,
    key: Key,
    path: &'r [u8],
    run: usize,
    index: usize,
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head<'_> {}

impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head<'_> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the first in order.
    fn cmp(&self, other: &Self) -> Ordering {
        compare(self.order, (self.key, self.path), (other.key, other.path)).reverse()
    }
}

/// Prints the kept runs (each already sorted) merged into one order, at most `first`
/// of them, handing each block of about `block_size` bytes to `deliver`, which says
/// whether the output still takes more.
pub fn write_merged(
    runs: &[SortRun],
    format: &Format,
    first: Option<u64>,
    block_size: usize,
    mut deliver: impl FnMut(&[u8]) -> bool,
) {
    let head = |run: usize, index: usize| -> Option<Head<'_>> {
        let kept = &runs[run];
        let item = kept.items.get(index)?;
        Some(Head {
            order: kept.order,
            key: kept.key(item),
            path: kept.path(item),
            run,
            index,
        })
    };
    let mut heap: BinaryHeap<Head<'_>> = (0..runs.len()).filter_map(|run| head(run, 0)).collect();
    let mut printer = Printer::new(format);
    let mut block = Vec::new();
    let mut left = first.unwrap_or(u64::MAX);
    while left > 0 {
        let Some(next) = heap.pop() else { break };
        let kept = &runs[next.run];
        let item = &kept.items[next.index];
        printer.write_record(&mut block, next.path, item.kind, kept.meta(item));
        left -= 1;
        if block.len() >= block_size {
            if !deliver(&block) {
                return;
            }
            block.clear();
        }
        if let Some(following) = head(next.run, next.index + 1) {
            heap.push(following);
        }
    }
    if !block.is_empty() {
        deliver(&block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::format::Shape;
    use crate::output::sink::{Delivery, Output};
    use crate::report::Reporter;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn run_of(order: SortOrder, keep: Option<u64>, entries: &[(&str, u64)]) -> SortRun {
        let mut run = SortRun::new(order, keep);
        for &(path, size) in entries {
            let meta = Meta {
                size,
                mtime: size as i64 * 10,
                ..Meta::default()
            };
            run.push(&Match {
                parts: [b"", path.as_bytes()],
                kind: EntryKind::File,
                meta: Some(&meta),
            });
        }
        run.sort();
        run
    }

    fn merged(runs: &[SortRun], first: Option<u64>) -> Vec<String> {
        let format = Format {
            shape: Shape::Path,
            terminator: b'\n',
            color: None,
            hyperlink: None,
            sort: None,
        };
        let captured = Captured::default();
        let output = Output::to_writer(Box::new(captured.clone()));
        // A tiny block size exercises the delivery in the middle of the merge.
        let reporter = Reporter::new();
        write_merged(runs, &format, first, 8, |block| {
            output.deliver(block, &reporter) == Delivery::Delivered
        });
        let bytes = captured.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn runs_merge_in_every_order() {
        let entries_a = [("b", 3), ("B", 1), ("a\u{e9}", 2)];
        let entries_b = [("a", 2), ("c", 0), ("ab", 3)];
        // (key, reverse, expected)
        let cases: &[(SortKey, bool, &[&str])] = &[
            (SortKey::Path, false, &["B", "a", "ab", "a\u{e9}", "b", "c"]),
            (SortKey::Path, true, &["c", "b", "a\u{e9}", "ab", "a", "B"]),
            (SortKey::Size, false, &["c", "B", "a", "a\u{e9}", "ab", "b"]),
            (SortKey::Size, true, &["b", "ab", "a\u{e9}", "a", "B", "c"]),
            (
                SortKey::Mtime,
                false,
                &["c", "B", "a", "a\u{e9}", "ab", "b"],
            ),
        ];
        for &(key, reverse, want) in cases {
            let order = SortOrder { key, reverse };
            let runs = [
                run_of(order, None, &entries_a),
                run_of(order, None, &entries_b),
                run_of(order, None, &[]),
            ];
            assert_eq!(merged(&runs, None), want, "{order:?}");
            assert_eq!(merged(&runs, Some(2)), want[..2], "{order:?} first 2");
        }
    }

    #[test]
    fn a_bounded_run_keeps_only_what_can_be_printed() {
        let order = SortOrder {
            key: SortKey::Size,
            reverse: true,
        };
        let names: Vec<String> = (0..5000).map(|i| format!("f{i:05}")).collect();
        let entries: Vec<(&str, u64)> = names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), (i as u64 * 7919) % 5000))
            .collect();
        let bounded = run_of(order, Some(3), &entries);
        assert!(bounded.len() <= 3);
        let full = run_of(order, None, &entries);
        assert_eq!(full.len(), 5000);
        assert_eq!(merged(&[bounded], None), merged(&[full], Some(3)));
    }
}
