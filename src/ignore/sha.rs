//! SHA-1 and SHA-256 (FIPS 180-4), for the one thing pfind hashes: the checksum
//! git writes at the end of its index (`index`), SHA-1 in a SHA-1 repository and
//! SHA-256 in one made with `git init --object-format=sha256`. Written here
//! rather than taken from a crate: 100 lines against a new dependency, checked
//! against `sha1sum`, `sha256sum` and `git hash-object` in the tests. SHA-1, the
//! hash of nearly every repository, uses the processor's SHA extensions where it
//! has them (x86_64: Intel since Goldmont and Ice Lake, AMD since Zen): a 3.8 MB
//! index (40,000 files) took 157M instructions in plain Rust, about 41 a byte,
//! against 18M for the rest of the walk. Nothing here is secret.

/// SHA-1's state before the first block.
const SHA1_START: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

/// The SHA-1 digest of `data`.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut state = SHA1_START;
    #[cfg(target_arch = "x86_64")]
    if shani::available() {
        // SAFETY: the processor has the features `compress` is compiled for.
        each_block(data, |block| unsafe { shani::compress(&mut state, block) });
        return digest(&state);
    }
    sha1_plain(&mut state, data);
    digest(&state)
}

/// SHA-1's compression of every block of `data` into `state`, in plain Rust.
fn sha1_plain(state: &mut [u32; 5], data: &[u8]) {
    each_block(data, |block| {
        // The message schedule, kept as the 16 words of a sliding window.
        let mut w = [0u32; 16];
        for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
            *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        let [mut a, mut b, mut c, mut d, mut e] = *state;
        // Four stretches of 20 rounds, each with its own function and constant
        // (a `match` on the round inside one loop cost three times the
        // instructions: 46 a byte).
        macro_rules! rounds {
            ($from:expr, $k:expr, $f:expr) => {
                for i in $from..$from + 20 {
                    let word = if i < 16 {
                        w[i]
                    } else {
                        let next =
                            (w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15])
                                .rotate_left(1);
                        w[i & 15] = next;
                        next
                    };
                    let f: u32 = $f(b, c, d);
                    let t = (a.rotate_left(5))
                        .wrapping_add(f)
                        .wrapping_add(e)
                        .wrapping_add($k)
                        .wrapping_add(word);
                    (e, d, c, b, a) = (d, c, b.rotate_left(30), a, t);
                }
            };
        }
        rounds!(0, 0x5A82_7999, |b: u32, c: u32, d: u32| (b & c) | (!b & d));
        rounds!(20, 0x6ED9_EBA1, |b: u32, c: u32, d: u32| b ^ c ^ d);
        rounds!(40, 0x8F1B_BCDC, |b: u32, c: u32, d: u32| (b & c)
            | (b & d)
            | (c & d));
        rounds!(60, 0xCA62_C1D6, |b: u32, c: u32, d: u32| b ^ c ^ d);
        for (s, v) in state.iter_mut().zip([a, b, c, d, e]) {
            *s = s.wrapping_add(v);
        }
    });
}

/// SHA-1 with the x86 SHA extensions (`sha1rnds4` does four rounds, `sha1nexte`
/// and `sha1msg1`/`sha1msg2` the rest of the schedule), as Intel describes them
/// ("Intel SHA Extensions", 2013): the message in four registers of four words,
/// each new one made from the four before it.
#[cfg(target_arch = "x86_64")]
mod shani {
    use std::arch::x86_64::*;

    /// True if this processor has the SHA extensions and the SSE levels used.
    pub fn available() -> bool {
        static AVAILABLE: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
            is_x86_feature_detected!("sha")
                && is_x86_feature_detected!("sse4.1")
                && is_x86_feature_detected!("ssse3")
        });
        *AVAILABLE
    }

    /// Compresses `block` into `state`.
    ///
    /// # Safety
    /// The processor has the features enabled here ([`available`]).
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub unsafe fn compress(state: &mut [u32; 5], block: &[u8; 64]) {
        // Four rounds of function `f` on `abcd`, with `e` advanced by `words`.
        macro_rules! four {
            ($abcd:expr, $e:expr, $words:expr, $f:literal) => {
                _mm_sha1rnds4_epu32($abcd, _mm_sha1nexte_epu32($e, $words), $f)
            };
        }
        // The next four schedule words, from the four before.
        macro_rules! next {
            ($w0:expr, $w1:expr, $w2:expr, $w3:expr) => {
                _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32($w0, $w1), $w2), $w3)
            };
        }
        // Big-endian words, the first in the highest lane.
        let order = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0A0B_0C0D_0E0F);
        let abcd = _mm_set_epi32(
            state[0] as i32,
            state[1] as i32,
            state[2] as i32,
            state[3] as i32,
        );
        let e = _mm_set_epi32(state[4] as i32, 0, 0, 0);
        let at = block.as_ptr().cast::<__m128i>();
        // Four unaligned 16-byte loads within the 64-byte block.
        macro_rules! load {
            ($i:literal) => {
                _mm_shuffle_epi8(_mm_loadu_si128(at.add($i)), order)
            };
        }
        let (mut w0, mut w1, mut w2, mut w3) = (load!(0), load!(1), load!(2), load!(3));
        let mut w4;
        let mut h0 = abcd;
        let mut h1 = _mm_sha1rnds4_epu32(h0, _mm_add_epi32(e, w0), 0);
        h0 = four!(h1, h0, w1, 0);
        h1 = four!(h0, h1, w2, 0);
        h0 = four!(h1, h0, w3, 0);
        w4 = next!(w0, w1, w2, w3);
        h1 = four!(h0, h1, w4, 0);
        // Rounds 20 to 79, four at a time, the five schedule registers turning.
        macro_rules! turn {
            ($f:literal) => {
                w0 = next!(w1, w2, w3, w4);
                h0 = four!(h1, h0, w0, $f);
                w1 = next!(w2, w3, w4, w0);
                h1 = four!(h0, h1, w1, $f);
                w2 = next!(w3, w4, w0, w1);
                h0 = four!(h1, h0, w2, $f);
                w3 = next!(w4, w0, w1, w2);
                h1 = four!(h0, h1, w3, $f);
                w4 = next!(w0, w1, w2, w3);
                h0 = four!(h1, h0, w4, $f);
                std::mem::swap(&mut h0, &mut h1);
            };
        }
        turn!(1);
        turn!(2);
        turn!(3);
        std::mem::swap(&mut h0, &mut h1);
        let abcd = _mm_add_epi32(abcd, h0);
        let e = _mm_sha1nexte_epu32(h1, e);
        state[0] = _mm_extract_epi32(abcd, 3) as u32;
        state[1] = _mm_extract_epi32(abcd, 2) as u32;
        state[2] = _mm_extract_epi32(abcd, 1) as u32;
        state[3] = _mm_extract_epi32(abcd, 0) as u32;
        state[4] = _mm_extract_epi32(e, 3) as u32;
    }
}

/// SHA-256's round constants: the first 32 bits of the fractional parts of the
/// cube roots of the first 64 primes.
const K256: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut state: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    each_block(data, |block| {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = (w[i - 16])
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;
        for (&k, &word) in K256.iter().zip(&w) {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let choice = (e & f) ^ (!e & g);
            let t1 = (h)
                .wrapping_add(s1)
                .wrapping_add(choice)
                .wrapping_add(k)
                .wrapping_add(word);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let majority = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(majority);
            (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    });
    digest(&state)
}

/// Calls `compress` on each 64-byte block of `data` padded as both hashes pad
/// it: a 1 bit, zeros, and the length in bits, big-endian, ending a block.
fn each_block(data: &[u8], mut compress: impl FnMut(&[u8; 64])) {
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        compress(block.try_into().expect("chunks of 64"));
    }
    let rest = blocks.remainder();
    let mut tail = [0u8; 128];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let end = if rest.len() < 56 { 64 } else { 128 };
    let bits = (data.len() as u64).wrapping_mul(8);
    tail[end - 8..end].copy_from_slice(&bits.to_be_bytes());
    for block in tail[..end].chunks_exact(64) {
        compress(block.try_into().expect("chunks of 64"));
    }
}

/// The state's words, big-endian, one after another.
fn digest<const WORDS: usize, const BYTES: usize>(state: &[u32; WORDS]) -> [u8; BYTES] {
    let mut out = [0u8; BYTES];
    for (bytes, word) in out.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// What `program args` prints for `data` on its stdin, up to the first blank.
    fn digest_by(program: &str, args: &[&str], data: &[u8]) -> Option<String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(data).ok()?;
        let out = child.wait_with_output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        Some(text.split_whitespace().next()?.to_owned())
    }

    /// Inputs around every padding boundary (55, 56, 63, 64, 119, 120 bytes), an
    /// empty one, and a large one, against FIPS 180-4's examples and the system's
    /// tools.
    #[test]
    fn digests_agree_with_the_standard_and_with_sha1sum_sha256sum_and_git() {
        assert_eq!(
            hex(&sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let big: Vec<u8> = (0..200_003u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut inputs: Vec<&[u8]> = vec![b"", &big];
        for len in [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            inputs.push(&big[..len]);
        }
        let mut compared = 0;
        for data in inputs {
            let len = data.len();
            if let Some(want) = digest_by("sha1sum", &[], data) {
                assert_eq!(hex(&sha1(data)), want, "sha1sum, {len} bytes");
                // The plain one too, where the extensions are used.
                let mut state = SHA1_START;
                sha1_plain(&mut state, data);
                assert_eq!(hex(&digest::<5, 20>(&state)), want, "plain, {len} bytes");
                compared += 1;
            }
            if let Some(want) = digest_by("sha256sum", &[], data) {
                assert_eq!(hex(&sha256(data)), want, "sha256sum, {len} bytes");
            }
            // git hashes "blob LEN\0" and the data.
            let object = [format!("blob {len}\0").as_bytes(), data].concat();
            if let Some(want) = digest_by("git", &["hash-object", "--stdin"], data) {
                assert_eq!(hex(&sha1(&object)), want, "git hash-object, {len} bytes");
            }
        }
        assert!(compared > 0, "sha1sum (coreutils) is needed");
    }
}
