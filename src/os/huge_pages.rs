//! Huge pages under a large buffer that is about to be filled: the kernel is
//! asked (`madvise(MADV_HUGEPAGE)`) to back the 2 MiB-aligned part of its
//! capacity with huge pages, where transparent huge pages are on `madvise` (the
//! default of Debian, Ubuntu and Fedora). Filled a 4 KiB page at a time, a
//! million-entry directory's 23 MB record took a page fault, a page cleared and,
//! at exit, a page unmapped every 4 KiB: 15 ms of its first run's 55 ms after
//! the listing. Advice only: refused (no huge pages, another system), the buffer
//! is ordinary memory, only slower.

/// The size of a huge page on x86-64 and most arm64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// Buffers smaller than this are left alone: a huge page in one of them would
/// cost more to clear than the page faults it saves.
pub const WORTH_IT: usize = 8 << 20;

/// The 2 MiB-aligned whole pages inside `capacity` bytes from `start`: their
/// start and length, if there is one.
fn aligned_inside(start: usize, capacity: usize) -> Option<(usize, usize)> {
    let first = start.checked_add(HUGE_PAGE - 1)? & !(HUGE_PAGE - 1);
    let end = start.checked_add(capacity)? & !(HUGE_PAGE - 1);
    (end > first).then(|| (first, end - first))
}

/// Asks for huge pages under the capacity of `buffer`, if it is at least
/// [`WORTH_IT`] bytes. Pages already touched stay as they are (the kernel may
/// gather them later); the rest come as huge pages when first written.
pub fn under<T>(buffer: &Vec<T>) {
    let bytes = buffer.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < WORTH_IT {
        return;
    }
    let Some((start, len)) = aligned_inside(buffer.as_ptr() as usize, bytes) else {
        return;
    };
    #[cfg(target_os = "linux")]
    // SAFETY: `start .. start + len` lies inside the allocation `buffer` owns
    // (its capacity, rounded inwards to huge pages); `madvise(MADV_HUGEPAGE)`
    // changes how the kernel backs those pages, never their contents or what the
    // allocator may do with them. A refusal is ignored.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_the_buffer_are_advised() {
        const H: usize = HUGE_PAGE;
        // Aligned at both ends: all of it.
        assert_eq!(aligned_inside(4 * H, 3 * H), Some((4 * H, 3 * H)));
        // A start past a boundary: from the next one.
        assert_eq!(aligned_inside(4 * H + 16, 3 * H), Some((5 * H, 2 * H)));
        // An end short of a boundary: to the one before.
        assert_eq!(aligned_inside(4 * H, 3 * H - 1), Some((4 * H, 2 * H)));
        // No whole huge page inside.
        assert_eq!(aligned_inside(4 * H + 16, H), None);
        assert_eq!(aligned_inside(usize::MAX - 10, 5 * H), None);
    }

    #[test]
    fn a_buffer_advised_is_unchanged() {
        let mut buffer: Vec<u64> = Vec::with_capacity(WORTH_IT);
        buffer.extend(0..1000);
        under(&buffer);
        buffer.extend(1000..(WORTH_IT as u64));
        assert!(buffer.iter().enumerate().all(|(i, &v)| v == i as u64));
    }
}
