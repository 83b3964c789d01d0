//! The index file's checksum: XXH3 (the `twox-hash` crate) of the bytes after
//! its own field, or past a part ([`SUMMED_PART`]) XXH3 of the parts' sums, so
//! that a large file is checked on two threads at once. Where the sum sits in
//! the file, and what it covers, is `format`'s.

/// The file's checksum: XXH3's 64-bit hash of `bytes` (the `twox-hash` crate),
/// for corruption, not for an adversary. XXH3 reads 64 bytes a step in vector
/// lanes: over the million-name index (23 MB) 0.77 ms where the four-lane
/// multiply-and-shift it replaces (version 2) took 1.2, on the path of every
/// search that reads the file. `twox-hash` picks AVX2 where the CPU has it when
/// it runs (`xxhash-rust`, before it, only where the build targets it, which a
/// build for any x86_64 does not): the million-name repeat's `-c` 15.5M -> 8.7M
/// instructions, the same sums (callgrind `-j1`).
///
/// Past [`SUMMED_PART`] bytes it is XXH3 of each part's XXH3, so that a large
/// file's parts can be summed by two threads at once ([`checksum_on`]).
pub fn checksum(bytes: &[u8]) -> u64 {
    checksum_on(bytes, 1)
}

/// The bytes each of a checksum's parts covers, the last part what remains.
pub const SUMMED_PART: usize = 1 << 20;

/// The file size from which [`checksum_on`] sums half the parts on a second
/// thread: on the million-entry directory's index (23 MB) the sum was more than
/// half of a repeat's count (`-c`), where starting a thread takes tens of
/// microseconds, as long as summing about half a megabyte.
const SUMMED_TWICE_FROM: usize = 8 << 20;

/// [`checksum`] with up to `threads` threads (two at most; one if the second
/// cannot be started).
pub fn checksum_on(bytes: &[u8], threads: usize) -> u64 {
    let oneshot = twox_hash::XxHash3_64::oneshot;
    if bytes.len() <= SUMMED_PART {
        return oneshot(bytes);
    }
    let parts: Vec<&[u8]> = bytes.chunks(SUMMED_PART).collect();
    let sum_each = |parts: &[&[u8]]| parts.iter().map(|part| oneshot(part)).collect::<Vec<_>>();
    let (front, back) = parts.split_at(parts.len() / 2);
    let two = threads > 1 && bytes.len() >= SUMMED_TWICE_FROM;
    let sums = std::thread::scope(|scope| {
        let helper = two
            .then(|| {
                std::thread::Builder::new()
                    .name("pfind-sum".into())
                    .spawn_scoped(scope, || sum_each(back))
                    .ok()
            })
            .flatten();
        let mut sums = sum_each(front);
        // A helper that could not be started leaves its half to this thread.
        match helper.map(|helper| helper.join()) {
            Some(Ok(back_sums)) => sums.extend(back_sums),
            _ => sums.extend(sum_each(back)),
        }
        sums
    });
    let mut sum = twox_hash::XxHash3_64::new();
    for part_sum in &sums {
        std::hash::Hasher::write(&mut sum, &part_sum.to_le_bytes());
    }
    std::hash::Hasher::finish(&sum)
}

/// [`checksum`] of bytes handed over in pieces of any size, as `format::seal`
/// has them: each part summed as it fills.
pub(super) struct PartSums {
    part: twox_hash::XxHash3_64,
    /// Bytes in `part` so far.
    filled: usize,
    sums: twox_hash::XxHash3_64,
    /// No part's sum has been put in `sums` yet.
    first: bool,
}

impl PartSums {
    pub(super) fn new() -> PartSums {
        PartSums {
            part: twox_hash::XxHash3_64::new(),
            filled: 0,
            sums: twox_hash::XxHash3_64::new(),
            first: true,
        }
    }

    pub(super) fn write(&mut self, mut bytes: &[u8]) {
        use std::hash::Hasher;
        while !bytes.is_empty() {
            // A full part is summed only once more bytes come: a file of one
            // part exactly is its own XXH3.
            if self.filled == SUMMED_PART {
                self.sums.write(&self.part.finish().to_le_bytes());
                self.part = twox_hash::XxHash3_64::new();
                self.filled = 0;
                self.first = false;
            }
            let take = bytes.len().min(SUMMED_PART - self.filled);
            self.part.write(&bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
        }
    }

    pub(super) fn finish(mut self) -> u64 {
        use std::hash::Hasher;
        if self.first {
            return self.part.finish();
        }
        self.sums.write(&self.part.finish().to_le_bytes());
        self.sums.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_is_xxh3() {
        // XXH3-64 (seed 0) of nothing, as published: the format is fixed to it.
        assert_eq!(checksum(b""), 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn past_a_part_the_checksum_is_xxh3_of_the_parts_sums() {
        let oneshot = twox_hash::XxHash3_64::oneshot;
        let bytes: Vec<u8> = (0..2 * SUMMED_PART as u32 + 3)
            .map(|i| (i * 13 + i / 509) as u8)
            .collect();
        // A part exactly: its own XXH3.
        assert_eq!(
            checksum(&bytes[..SUMMED_PART]),
            oneshot(&bytes[..SUMMED_PART])
        );
        // Past it: XXH3 of each part's sum, little-endian, in order.
        let sums_of = |bytes: &[u8]| -> Vec<u8> {
            bytes
                .chunks(SUMMED_PART)
                .flat_map(|part| oneshot(part).to_le_bytes())
                .collect()
        };
        for len in [SUMMED_PART + 1, 2 * SUMMED_PART, 2 * SUMMED_PART + 3] {
            let expected = oneshot(&sums_of(&bytes[..len]));
            assert_eq!(checksum(&bytes[..len]), expected, "{len} bytes");
            // Sealed from pieces that cross the parts' ends, the same.
            let mut head = bytes[..16].to_vec();
            let rest = &bytes[16..len];
            let cuts = [0, 5, SUMMED_PART - 20, SUMMED_PART - 16, SUMMED_PART + 7];
            let mut pieces: Vec<&[u8]> = cuts
                .windows(2)
                .map(|cut| &rest[cut[0].min(rest.len())..cut[1].min(rest.len())])
                .collect();
            pieces.push(&rest[(SUMMED_PART + 7).min(rest.len())..]);
            crate::index::format::seal(&mut head, &pieces);
            assert_eq!(
                head[8..16],
                checksum(&bytes[16..len]).to_le_bytes(),
                "{len} bytes"
            );
        }
        // A change in any part, or two parts swapped, is seen.
        let sum = checksum(&bytes);
        for at in [0, SUMMED_PART - 1, SUMMED_PART, 2 * SUMMED_PART + 2] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1;
            assert_ne!(checksum(&flipped), sum, "byte {at}");
        }
        let swapped = [
            &bytes[SUMMED_PART..2 * SUMMED_PART],
            &bytes[..SUMMED_PART],
            &bytes[2 * SUMMED_PART..],
        ]
        .concat();
        assert_ne!(checksum(&swapped), sum, "two parts swapped");
    }

    #[test]
    fn a_checksum_summed_on_two_threads_is_the_one_summed_on_one() {
        let bytes: Vec<u8> = (0..SUMMED_TWICE_FROM as u32 + 3 * SUMMED_PART as u32 / 2)
            .map(|i| (i * 7 + i / 1_021) as u8)
            .collect();
        for len in [SUMMED_TWICE_FROM - 1, SUMMED_TWICE_FROM, bytes.len()] {
            assert_eq!(
                checksum_on(&bytes[..len], 2),
                checksum_on(&bytes[..len], 1),
                "{len} bytes"
            );
        }
        // A file read on two threads is checked as on one: a flipped byte in
        // the helper's half is refused.
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_ne!(checksum_on(&flipped, 2), checksum_on(&bytes, 1));
    }

    #[test]
    fn any_change_changes_the_checksum() {
        // Past XXH3's 1,024-byte blocks, with a tail that fills no 64-byte stripe.
        let bytes: Vec<u8> = (0..2_600u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let sum = checksum(&bytes);
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << (at % 8);
            assert_ne!(checksum(&flipped), sum, "byte {at}");
        }
        for (a, b) in [(0, 8), (0, 64), (100, 1_124), (2_590, 2_598)] {
            let mut swapped = bytes.clone();
            swapped.swap(a, b);
            assert_ne!(checksum(&swapped), sum, "bytes {a} and {b} swapped");
        }
        assert_ne!(checksum(&bytes[..2_599]), sum, "a shorter file");
        assert_ne!(checksum(&[0; 8]), checksum(&[0; 9]), "zeros appended");
    }
}
