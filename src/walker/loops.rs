//! `-L`'s loop check: the chain of the identities of the directories on the current
//! path ([`DirId`]), and whether a directory about to be entered is on it.
//!
//! A directory is a link of the chain, with its parent's link behind an `Arc`, so
//! all of a directory's subdirectories share what is above them. The check looks
//! at the links one by one, which costs the depth: nothing on an ordinary tree, but
//! on a chain of 100,000 levels, checking every level against every level above it
//! took 49.5 s where the walk without `-L` took 2.2 s (issue 28). So every 64th
//! link also holds the set of the 64 identities that end at it and a pointer past
//! them, every 4,096th the set of 4,096, and so on: a check walks at most 63 links
//! to the next such link, then jumps from set to set, at most 63 of each size.
//! Building the sets costs each level a constant, per size, and a tree less than 64
//! deep (nearly every tree) never builds one.
//!
//! ```text
//!   depth:  0 ... 62  63 ... 126  127 ... 4094  4095  4096 ... D
//!                      ^set of 64  ^set of 64      ^sets of 64 and 4,096
//!   check from D: up one link at a time to the nearest set, then set by set
//! ```

use std::collections::HashSet;
use std::sync::Arc;

/// How many identities the smallest set holds, and how much larger each next is.
const SPAN: usize = 64;

/// One directory's identity on the chain of those above it.
#[derive(Debug)]
pub struct DirId {
    dev: u64,
    ino: u64,
    parent: Option<Arc<DirId>>,
    /// The root of the walk is 0.
    depth: usize,
    /// At a depth `d` where `d + 1` is a multiple of `SPAN^k`: for each such `k`
    /// from 1, the identities at depths `d + 1 - SPAN^k ..= d`, and the link just
    /// above them.
    spans: Option<Box<[Span]>>,
}

#[derive(Debug)]
struct Span {
    ids: HashSet<(u64, u64)>,
    above: Option<Arc<DirId>>,
}

impl DirId {
    /// The link for the directory (`dev`, `ino`) below `parent` (`None` for a root).
    #[inline]
    pub fn new(dev: u64, ino: u64, parent: Option<Arc<DirId>>) -> Arc<DirId> {
        let depth = parent.as_ref().map_or(0, |parent| parent.depth + 1);
        let spans = if (depth + 1) % SPAN == 0 {
            Some(build_spans((dev, ino), depth, parent.as_ref()))
        } else {
            None
        };
        // Built in place: a `DirId` made first and moved into the `Arc` cost 12
        // instructions a directory more (callgrind, `-L /usr/share`).
        Arc::new(DirId {
            dev,
            ino,
            parent,
            depth,
            spans,
        })
    }

    /// This link's set of `size` identities, if it has one.
    fn span_of(&self, size: usize) -> Option<&Span> {
        let index = (size.trailing_zeros() / SPAN.trailing_zeros()) as usize - 1;
        self.spans.as_deref()?.get(index)
    }

    /// True when (`dev`, `ino`) is this directory or one of its ancestors: entering it
    /// would walk the same directories again, forever.
    #[inline]
    pub fn is_on_path(&self, dev: u64, ino: u64) -> bool {
        self.look_up(dev, ino).0
    }

    /// [`Self::is_on_path`]'s answer, and how many links and sets it looked at.
    /// Above the first set's depth (nearly every tree), no link has sets, and the
    /// links are looked at one by one as they always were.
    #[inline]
    fn look_up(&self, dev: u64, ino: u64) -> (bool, usize) {
        if self.depth + 1 >= SPAN {
            return self.look_up_deep(dev, ino);
        }
        let mut looked = 0;
        let mut current = Some(self);
        while let Some(link) = current {
            looked += 1;
            if link.dev == dev && link.ino == ino {
                return (true, looked);
            }
            current = link.parent.as_deref();
        }
        (false, looked)
    }

    /// [`Self::look_up`] where the links may have sets: one by one to the first
    /// that has, then from set to set.
    #[inline(never)]
    fn look_up_deep(&self, dev: u64, ino: u64) -> (bool, usize) {
        let mut looked = 0;
        let mut current = Some(self);
        while let Some(link) = current {
            looked += 1;
            match link.spans.as_deref().and_then(<[Span]>::last) {
                Some(span) => {
                    if span.ids.contains(&(dev, ino)) {
                        return (true, looked);
                    }
                    current = span.above.as_deref();
                }
                None => {
                    if link.dev == dev && link.ino == ino {
                        return (true, looked);
                    }
                    current = link.parent.as_deref();
                }
            }
        }
        (false, looked)
    }
}

/// The sets that end at the link `id` at `depth` below `parent` (see
/// [`DirId::spans`]): the first from its 64 links, each next from the 64 sets of
/// the size before that end at or above it.
#[cold]
fn build_spans(id: (u64, u64), depth: usize, parent: Option<&Arc<DirId>>) -> Box<[Span]> {
    let mut ids = HashSet::with_capacity(SPAN);
    ids.insert(id);
    let mut above = parent.cloned();
    for _ in 1..SPAN {
        let Some(link) = above else { break };
        ids.insert((link.dev, link.ino));
        above = link.parent.clone();
    }
    let mut spans = vec![Span { ids, above }];
    let mut size = SPAN;
    while (depth + 1) % (size * SPAN) == 0 {
        let last = spans.last().expect("one at least");
        let mut ids = last.ids.clone();
        let mut above = last.above.clone();
        for _ in 1..SPAN {
            let Some(link) = above else { break };
            let span = link.span_of(size).expect("aligned below an aligned link");
            ids.extend(span.ids.iter().copied());
            above = span.above.clone();
        }
        spans.push(Span { ids, above });
        size *= SPAN;
    }
    spans.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_are_found_anywhere_on_the_path() {
        let root = DirId::new(1, 2, None);
        let child = DirId::new(1, 3, Some(root.clone()));
        let grandchild = DirId::new(9, 2, Some(child.clone()));
        assert!(grandchild.is_on_path(9, 2)); // itself
        assert!(grandchild.is_on_path(1, 3)); // its parent
        assert!(grandchild.is_on_path(1, 2)); // the root
        assert!(!grandchild.is_on_path(1, 4));
        assert!(!grandchild.is_on_path(9, 3)); // same inode, other device
        assert!(!child.is_on_path(9, 2)); // a descendant is not on the path
    }

    /// On a chain deep enough for sets of 64 and 4,096, every depth finds every
    /// identity above it and none below, as a plain walk up the chain does.
    #[test]
    fn the_sets_answer_as_the_chain_does() {
        let depth = SPAN * SPAN * 2 + 100;
        let mut chain: Vec<Arc<DirId>> = Vec::with_capacity(depth);
        for level in 0..depth {
            // Identities repeat on no two levels; inode = level * 7 + 1.
            let parent = chain.last().cloned();
            chain.push(DirId::new(5, level as u64 * 7 + 1, parent));
        }
        let plain = |link: &DirId, ino: u64| {
            let mut current = Some(link);
            while let Some(l) = current {
                if l.ino == ino {
                    return true;
                }
                current = l.parent.as_deref();
            }
            false
        };
        let probes = [
            0, 1, 62, 63, 64, 127, 128, 4094, 4095, 4096, 4097, 8191, 8300,
        ];
        for &at in &probes {
            let link = &chain[at.min(depth - 1)];
            for &level in &probes {
                let ino = level as u64 * 7 + 1;
                assert_eq!(
                    link.is_on_path(5, ino),
                    plain(link, ino),
                    "from depth {at}, level {level}"
                );
            }
            assert!(!link.is_on_path(6, 1));
        }
        let deepest = chain.last().unwrap();
        assert!(deepest.is_on_path(5, 1));
        // Issue 28: the whole chain, 8,292 links, is answered for in at most 63
        // links, then 63 sets of 64 and one of 4,096 (the old walk looked at all).
        for link in &chain {
            let (found, looked) = link.look_up(6, 1);
            assert!(!found);
            assert!(looked <= 63 + 63 + 63, "{looked} at depth {}", link.depth);
        }
        assert_eq!(deepest.look_up(5, 1), (true, 37 + 1 + 1));
        assert!(deepest.spans.is_none());
        // The sets sit where they should, each with the link above it.
        let aligned = &chain[SPAN * SPAN - 1];
        let spans = aligned.spans.as_deref().unwrap();
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[1].ids.len(), SPAN * SPAN);
        assert!(spans[1].above.is_none());
        let second = &chain[2 * SPAN * SPAN - 1];
        let above = second.spans.as_deref().unwrap()[1].above.as_ref().unwrap();
        assert_eq!(above.depth, SPAN * SPAN - 1);
    }
}
