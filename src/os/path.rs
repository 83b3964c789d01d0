//! Paths as bytes, the way the kernel takes them: making a printed path absolute
//! (`-a`, and the `file://` links of `--hyperlink`).

use std::io;
use std::os::unix::ffi::OsStringExt;

/// `-a`: makes roots absolute, reading the working directory the first time a
/// relative one needs it, and only then: it may have been removed while pfind runs
/// in it, which matters to no absolute root (issue 20, defect 7).
#[derive(Default)]
pub struct WorkingDir {
    read: Option<io::Result<Vec<u8>>>,
}

impl WorkingDir {
    /// `root` made absolute by [`absolute_path`], or why it cannot be.
    pub fn absolute(&mut self, root: &[u8]) -> io::Result<Vec<u8>> {
        if root.starts_with(b"/") {
            return Ok(absolute_path(b"", root));
        }
        let read = self.read.get_or_insert_with(|| {
            std::env::current_dir().map(|cwd| cwd.into_os_string().into_vec())
        });
        match read {
            Ok(cwd) => Ok(absolute_path(cwd, root)),
            Err(err) => Err(io::Error::new(
                err.kind(),
                format!(
                    "cannot read the working directory: {}",
                    crate::report::describe(err)
                ),
            )),
        }
    }
}

/// `-a`: `path` as an absolute path, joined with the working directory `cwd` when
/// relative. `.` components and repeated slashes are dropped, so `pfind -a .` prints
/// `/cwd/file` rather than `/cwd/./file`. A `..` at the start of a relative path
/// takes the last component off `cwd` (`-a ..` prints `/home/file`): the working
/// directory, as `getcwd` gives it, holds no symbolic link, so its parent is the
/// text before its last `/`; so is `/..` at the start of an absolute one. A `..`
/// after any other component is kept, since removing it by text would be wrong
/// when that component is a symbolic link.
pub fn absolute_path(cwd: &[u8], path: &[u8]) -> Vec<u8> {
    let base: &[u8] = if path.starts_with(b"/") { b"" } else { cwd };
    let mut out = Vec::with_capacity(base.len() + path.len() + 1);
    for component in base.split(|&b| b == b'/') {
        if !component.is_empty() && component != b"." {
            out.push(b'/');
            out.extend_from_slice(component);
        }
    }
    let mut leading = true;
    for component in path.split(|&b| b == b'/') {
        if component.is_empty() || component == b"." {
            continue;
        }
        if leading && component == b".." {
            let parent = out.iter().rposition(|&b| b == b'/').unwrap_or(0);
            out.truncate(parent);
            continue;
        }
        leading = false;
        out.push(b'/');
        out.extend_from_slice(component);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_have_no_dot_artifacts() {
        let cases: &[(&str, &str, &str)] = &[
            ("/home/u", ".", "/home/u"),
            ("/home/u", "", "/home/u"),
            ("/home/u", "./", "/home/u"),
            ("/home/u", "dir", "/home/u/dir"),
            ("/home/u", "dir/", "/home/u/dir"),
            ("/home/u", "./a/./b//", "/home/u/a/b"),
            ("/home/u", "../x", "/home/x"),
            ("/home/u", "./../x", "/home/x"),
            ("/home/u", "..", "/home"),
            ("/home/u", "../../../x/..", "/x/.."),
            ("/home/u", "a/../x", "/home/u/a/../x"),
            ("/home/u", "/../x", "/x"),
            ("/", "..", "/"),
            ("/home/u", "/abs/./x", "/abs/x"),
            ("/home/u", "/", "/"),
            ("/", ".", "/"),
            ("/", "a", "/a"),
        ];
        for &(cwd, path, want) in cases {
            let got = absolute_path(cwd.as_bytes(), path.as_bytes());
            assert_eq!(String::from_utf8(got).unwrap(), want, "{cwd} + {path}");
        }
    }
}
