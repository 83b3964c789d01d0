//! A root opened at another path than it is printed with: `pfind-mpi --rank-root`
//! walks, on each rank, its own mount of the same tree (a client of its own, as
//! on a cluster) while printing every path under the root as typed, so that all
//! ranks print one tree. Set once, before the walk; every place that opens or
//! `stat`s a root by its printed path asks [`opened`] first.

use std::borrow::Cow;
use std::sync::OnceLock;

/// The printed root and the path it is opened at.
static MAPPING: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();

/// From now on, open `printed` (a root as typed) and what lies below it at
/// `opened`. False if a mapping was set already.
pub fn set(printed: &[u8], opened: &[u8]) -> bool {
    MAPPING.set((printed.to_vec(), opened.to_vec())).is_ok()
}

/// `pfind-mpi --rank-root`'s TEMPLATE for rank `rank`: each `{rank}` replaced by
/// its number, every other byte as typed.
pub fn for_rank(template: &[u8], rank: usize) -> Vec<u8> {
    const PLACE: &[u8] = b"{rank}";
    let number = rank.to_string();
    let mut out = Vec::with_capacity(template.len());
    let mut rest = template;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(PLACE) {
            out.extend_from_slice(number.as_bytes());
            rest = after;
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

/// True once a mapping was set.
pub fn is_set() -> bool {
    MAPPING.get().is_some()
}

/// The path to open for `path`, a root or a path below one as printed.
pub fn opened(path: &[u8]) -> Cow<'_, [u8]> {
    match MAPPING.get() {
        None => Cow::Borrowed(path),
        Some((printed, opened)) => map(printed, opened, path),
    }
}

fn map<'p>(printed: &[u8], opened: &[u8], path: &'p [u8]) -> Cow<'p, [u8]> {
    let Some(rest) = path.strip_prefix(printed) else {
        return Cow::Borrowed(path);
    };
    // `printed` must end at a component boundary of `path`.
    let boundary = rest.is_empty() || rest.starts_with(b"/") || printed.ends_with(b"/");
    if !boundary {
        return Cow::Borrowed(path);
    }
    let mut mapped = opened.to_vec();
    if printed.ends_with(b"/") && !opened.ends_with(b"/") && !rest.is_empty() {
        mapped.push(b'/');
    }
    mapped.extend_from_slice(rest);
    Cow::Owned(mapped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed root, opened root, a path, the path opened.
    type Case<'a> = (&'a [u8], &'a [u8], &'a [u8], &'a [u8]);

    #[test]
    fn a_template_names_each_rank_s_path() {
        assert_eq!(for_rank(b"/mnt/c{rank}/", 3), b"/mnt/c3/");
        assert_eq!(for_rank(b"/m{rank}/x{rank}", 12), b"/m12/x12");
        assert_eq!(for_rank(b"/{ra}/{rank/\xff", 0), b"/{ra}/{rank/\xff");
        assert_eq!(for_rank(b"/plain", 5), b"/plain");
    }

    #[test]
    fn paths_under_the_printed_root_move_to_the_opened_one() {
        let cases: &[Case] = &[
            (b"/data", b"/mnt/c1", b"/data", b"/mnt/c1"),
            (b"/data", b"/mnt/c1", b"/data/a/b", b"/mnt/c1/a/b"),
            (b"/data/", b"/mnt/c1", b"/data/a", b"/mnt/c1/a"),
            (b"/data/", b"/mnt/c1/", b"/data/a", b"/mnt/c1/a"),
            (b"/data", b"/mnt/c1", b"/database/x", b"/database/x"),
            (b"/data", b"/mnt/c1", b"/other", b"/other"),
            (b"", b"/mnt/c1", b"", b"/mnt/c1"),
        ];
        for &(printed, opened, path, want) in cases {
            assert_eq!(
                &*map(printed, opened, path),
                want,
                "{:?}",
                String::from_utf8_lossy(path)
            );
        }
    }
}
