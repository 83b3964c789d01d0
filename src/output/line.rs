//! The two records the walker writes inline, per file, with no call out of its loop:
//! a plain path and an `-l` line, each followed by its terminator.

use super::format::OutputMode;
use super::sizes::push_size_column;

/// Appends the line for the match `path_parts` (concatenated) of `size` bytes, in
/// the inline format `mode` asks for.
#[inline(always)] // on the per-file hot path; see the walker's `Visitor::visit`
pub fn push_line(buffer: &mut Vec<u8>, mode: OutputMode, path_parts: [&[u8]; 2], size: u64) {
    let terminator = match mode {
        OutputMode::Paths { terminator } => terminator,
        OutputMode::Long { terminator } => {
            push_size_column(buffer, size);
            terminator
        }
        // `Formatted` records are written out of line, by `output::formatted`.
        OutputMode::Count
        | OutputMode::SizeSum
        | OutputMode::Quiet
        | OutputMode::Formatted { .. } => return,
    };
    let [dir, name] = path_parts;
    let len = dir.len() + name.len() + 1;
    // One capacity check and two plain copies. `extend_from_slice` twice and `push`
    // cost 1.5% of a million-file walk more than this: once the walker had a few more
    // output paths, LLVM stopped inlining `Vec::append_elements` into the hot loop.
    buffer.reserve(len);
    let start = buffer.len();
    // SAFETY: `reserve` made room for `len` more bytes after `start`, so every write
    // below is inside the allocation; `dir` and `name` are borrowed from elsewhere and
    // cannot overlap `buffer`'s spare capacity (it is exclusively borrowed); all `len`
    // bytes are written before `set_len` makes them part of the vector.
    unsafe {
        let out = buffer.as_mut_ptr().add(start);
        std::ptr::copy_nonoverlapping(dir.as_ptr(), out, dir.len());
        std::ptr::copy_nonoverlapping(name.as_ptr(), out.add(dir.len()), name.len());
        *out.add(len - 1) = terminator;
        buffer.set_len(start + len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_for_each_output_mode() {
        let cases: &[(OutputMode, &[u8])] = &[
            (OutputMode::Paths { terminator: b'\n' }, b"dir/f\n"),
            (OutputMode::Paths { terminator: 0 }, b"dir/f\0"),
            (
                OutputMode::Long { terminator: b'\n' },
                b"                  42 dir/f\n",
            ),
            (
                OutputMode::Long { terminator: 0 },
                b"                  42 dir/f\0",
            ),
            (OutputMode::Count, b""),
            (OutputMode::SizeSum, b""),
        ];
        for &(mode, want) in cases {
            let mut buffer = Vec::new();
            push_line(&mut buffer, mode, [b"dir/", b"f"], 42);
            assert_eq!(buffer, want, "{mode:?}");
        }
        // Appending after existing bytes, through reallocations, with empty parts.
        let mut buffer = b"x".to_vec();
        buffer.shrink_to_fit();
        let mode = OutputMode::Paths { terminator: b'\n' };
        for _ in 0..100 {
            push_line(&mut buffer, mode, [b"", b"ab"], 0);
            push_line(&mut buffer, mode, [b"c/", b""], 0);
        }
        assert_eq!(buffer, [&b"x"[..], &b"ab\nc/\n".repeat(100)].concat());
    }
}
