//! A large file read whole into memory (pfind's index or git's: megabytes, read
//! once a run). On Linux it is mapped under a read lease where one can be had
//! ([`super::leased_map`]: no pages cleared and no copy, a quarter of
//! `--index-trust`'s samples on `/usr`, and the lease rules out the SIGBUS of a
//! file cut short under a mapping); otherwise it is copied, on Linux into memory
//! mapped for it and asked for in huge pages, elsewhere into a `Vec`. Read into a `Vec`, `/usr`'s 4.4 MB index
//! cost a page fault, a page cleared and, at exit, a page unmapped for every
//! 4 KiB: a fifth of `--index-trust`'s profile.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;

/// The bytes of a file, read whole.
pub struct WholeFile {
    bytes: Bytes,
    len: usize,
}

enum Bytes {
    Vec(Vec<u8>),
    #[cfg(target_os = "linux")]
    Mapped(huge::Region),
    #[cfg(target_os = "linux")]
    Leased(super::leased_map::LeasedMap),
}

impl Deref for WholeFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Vec(vec) => &vec[..self.len],
            #[cfg(target_os = "linux")]
            Bytes::Mapped(region) => &region.as_slice()[..self.len],
            #[cfg(target_os = "linux")]
            Bytes::Leased(map) => &map.as_slice()[..self.len],
        }
    }
}

impl std::ops::DerefMut for WholeFile {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.bytes {
            Bytes::Vec(vec) => &mut vec[..self.len],
            #[cfg(target_os = "linux")]
            Bytes::Mapped(region) => &mut region.as_mut_slice()[..self.len],
            #[cfg(target_os = "linux")]
            Bytes::Leased(map) => &mut map.as_mut_slice()[..self.len],
        }
    }
}

impl AsRef<[u8]> for WholeFile {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for WholeFile {
    fn from(vec: Vec<u8>) -> WholeFile {
        WholeFile {
            len: vec.len(),
            bytes: Bytes::Vec(vec),
        }
    }
}

impl WholeFile {
    /// `len` zero bytes to be written into (a whole file put together before it
    /// is written), in huge pages as a read is.
    pub fn zeroed(len: usize) -> WholeFile {
        #[cfg(target_os = "linux")]
        if len >= huge::WORTH_IT {
            if let Some(region) = huge::Region::new(len) {
                return WholeFile {
                    bytes: Bytes::Mapped(region),
                    len,
                };
            }
        }
        WholeFile::from(vec![0; len])
    }

    /// Reads `file`, `expected` bytes long by its `stat`, to its end (which may be
    /// elsewhere, if it changed since).
    pub fn read(mut file: &File, expected: usize) -> io::Result<WholeFile> {
        #[cfg(target_os = "linux")]
        if expected >= huge::WORTH_IT && !cfg!(feature = "portable") {
            if let Some(map) = super::leased_map::LeasedMap::new(file, expected) {
                return Ok(WholeFile {
                    bytes: Bytes::Leased(map),
                    len: expected,
                });
            }
        }
        #[cfg(target_os = "linux")]
        if expected >= huge::WORTH_IT {
            if let Some(mut region) = huge::Region::new(expected + 1) {
                let buf = region.as_mut_slice();
                let mut len = 0;
                while len < buf.len() {
                    match file.read(&mut buf[len..]) {
                        Ok(0) => break,
                        Ok(n) => len += n,
                        Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                        Err(err) => return Err(err),
                    }
                }
                if len < buf.len() {
                    return Ok(WholeFile {
                        bytes: Bytes::Mapped(region),
                        len,
                    });
                }
                // It grew past what it was: the rest the slow way.
                let mut vec = buf.to_vec();
                file.read_to_end(&mut vec)?;
                return Ok(WholeFile::from(vec));
            }
        }
        let mut vec = Vec::with_capacity(expected + 1);
        file.read_to_end(&mut vec)?;
        Ok(WholeFile::from(vec))
    }
}

#[cfg(target_os = "linux")]
mod huge {
    /// Below this a `Vec` costs less than a mapping of its own.
    pub const WORTH_IT: usize = 1 << 20;
    const HUGE_PAGE: usize = 2 << 20;

    /// Anonymous memory of its own: `len` usable bytes from `start`, which is
    /// aligned to a huge page inside the mapping (`base`, `mapped` bytes).
    pub struct Region {
        base: *mut libc::c_void,
        mapped: usize,
        start: *mut u8,
        len: usize,
    }

    // SAFETY: the region is owned by one `Region`, which hands out its bytes only
    // through `&self`/`&mut self` borrows like a `Vec<u8>`: shared reads from many
    // threads are sound, as they are for a `Vec`.
    unsafe impl Send for Region {}
    // SAFETY: as above; `&Region` gives only `&[u8]`.
    unsafe impl Sync for Region {}

    impl Region {
        /// `len` bytes, zeroed, or `None` when the kernel would not map them.
        pub fn new(len: usize) -> Option<Region> {
            let rounded = len.checked_add(HUGE_PAGE - 1)? & !(HUGE_PAGE - 1);
            // One huge page more, so that an aligned start fits inside.
            let mapped = rounded.checked_add(HUGE_PAGE)?;
            // SAFETY: an anonymous private mapping at an address the kernel
            // chooses touches no existing memory; the result is checked.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    mapped,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return None;
            }
            let offset = (HUGE_PAGE - (base as usize) % HUGE_PAGE) % HUGE_PAGE;
            // SAFETY: `offset` < HUGE_PAGE, and the mapping is `rounded +
            // HUGE_PAGE` bytes, so `start .. start + rounded` lies inside it.
            let start = unsafe { base.cast::<u8>().add(offset) };
            // SAFETY: advice on memory this mapping owns; a refusal (no huge
            // pages configured) leaves ordinary pages, which is only slower.
            unsafe { libc::madvise(start.cast(), rounded, libc::MADV_HUGEPAGE) };
            Some(Region {
                base,
                mapped,
                start,
                len,
            })
        }

        pub fn as_slice(&self) -> &[u8] {
            // SAFETY: `start .. start + len` is inside the mapping, readable and
            // initialised (anonymous memory is zeroed), and lives as long as self.
            unsafe { std::slice::from_raw_parts(self.start, self.len) }
        }

        pub fn as_mut_slice(&mut self) -> &mut [u8] {
            // SAFETY: as `as_slice`, and `&mut self` makes the borrow unique.
            unsafe { std::slice::from_raw_parts_mut(self.start, self.len) }
        }
    }

    impl Drop for Region {
        fn drop(&mut self) {
            // SAFETY: `base`/`mapped` are exactly what `mmap` returned, unmapped
            // once; no borrow of the bytes outlives `self`.
            unsafe { libc::munmap(self.base, self.mapped) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> File {
        let dir = std::env::temp_dir().join(format!("pfind-whole-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Tests run at once: each file a name of its own.
        static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("f{n}"));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }

    #[test]
    fn a_zeroed_buffer_is_zeros_and_writable() {
        for len in [0, 10, 3 << 20] {
            let mut buf = WholeFile::zeroed(len);
            assert_eq!(buf.len(), len);
            assert!(buf.iter().all(|&b| b == 0));
            if len > 0 {
                buf[len - 1] = 7;
                assert_eq!(buf[len - 1], 7);
            }
        }
    }

    #[test]
    fn small_and_large_files_read_whole() {
        for len in [0, 1, 4096, 3 << 20, (2 << 20) + 7] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let read = WholeFile::read(&file_of(&bytes), len).unwrap();
            assert_eq!(&read[..], &bytes[..], "{len} bytes");
        }
    }

    #[test]
    fn a_file_longer_or_shorter_than_its_stat_is_read_to_its_end() {
        let bytes: Vec<u8> = (0..(3 << 20)).map(|i| (i % 253) as u8).collect();
        // Stat said less (it grew): read past it, to the end.
        let read = WholeFile::read(&file_of(&bytes), (1 << 20) + 5).unwrap();
        assert_eq!(read.len(), bytes.len());
        assert!(read[..] == bytes[..]);
        // Stat said more (it shrank): the bytes there are, no more.
        let read = WholeFile::read(&file_of(&bytes[..(1 << 20) + 9]), 3 << 20).unwrap();
        assert!(read[..] == bytes[..(1 << 20) + 9]);
    }
}
