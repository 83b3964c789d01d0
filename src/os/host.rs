//! This machine's name (`gethostname`): for `file://` links, for saying which
//! machine a cluster rank runs on, and for telling whether two ranks share one.

/// The host name, or nothing if it cannot be read.
pub fn name() -> Vec<u8> {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length, which is what is passed.
    let rc = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if rc != 0 {
        return Vec::new();
    }
    let len = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    buffer[..len].to_vec()
}
