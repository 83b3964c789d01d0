//! `benches/latencyfs.c`, the repository's FUSE passthrough, built and mounted for
//! a test: the stand-in for a network filesystem (its options: the file's top
//! comment). Where there is no /dev/fuse, gcc or libfuse3-dev, or the mount
//! fails, the test is skipped with a line saying why (CI installs them: `.ci/run`).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// latencyfs built into `work`, or `None` with a message saying why not.
pub fn build(work: &Path) -> Option<PathBuf> {
    if !Path::new("/dev/fuse").exists() {
        eprintln!("skipped: no /dev/fuse");
        return None;
    }
    let binary = work.join("latencyfs");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/latencyfs.c");
    let built = Command::new("gcc")
        .args(["-O2", "-I/usr/include/fuse3"])
        .arg(&source)
        .args(["-lfuse3", "-Wl,--export-dynamic-symbol=writev", "-o"])
        .arg(&binary)
        .status()
        .is_ok_and(|status| status.success());
    if !built {
        eprintln!("skipped: latencyfs did not build (gcc and libfuse3-dev needed)");
        return None;
    }
    Some(binary)
}

/// A mount of a source directory through latencyfs, unmounted on drop, when it
/// writes how many directories were opened.
pub struct Mount {
    point: tempfile::TempDir,
    server: Child,
    opens: PathBuf,
    unmounted: bool,
}

impl Mount {
    /// Mounts `source` through `binary` with `options` (`-o` is added: the opens
    /// counted, in a file in `work`), or `None` with a message.
    pub fn new(binary: &Path, options: &[&str], source: &Path, work: &Path) -> Option<Mount> {
        let point = tempfile::tempdir().unwrap();
        let opens = work.join(format!(
            "opens.{}",
            point.path().file_name().unwrap().to_string_lossy()
        ));
        let server = Command::new(binary)
            .args(options)
            .arg("-o")
            .arg(&opens)
            .arg(source)
            .arg(point.path())
            .stdout(Stdio::null())
            .spawn()
            .ok()?;
        let mut mount = Mount {
            point,
            server,
            opens,
            unmounted: false,
        };
        for _ in 0..200 {
            let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
            let point = mount.point.path().as_os_str().as_bytes();
            if mounts
                .lines()
                .any(|line| line.split(' ').nth(1).map(str::as_bytes) == Some(point))
            {
                return Some(mount);
            }
            if let Ok(Some(_)) = mount.server.try_wait() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        eprintln!("skipped: latencyfs did not mount");
        mount.unmount();
        None
    }

    /// Where it is mounted.
    pub fn point(&self) -> &Path {
        self.point.path()
    }

    fn unmount(&mut self) {
        if std::mem::replace(&mut self.unmounted, true) {
            return;
        }
        let _ = Command::new("fusermount3")
            .arg("-u")
            .arg(self.point.path())
            .status();
        let _ = self.server.wait();
    }

    /// The opendir requests served, read after unmounting.
    pub fn opens(mut self) -> u64 {
        self.unmount();
        let text = std::fs::read_to_string(&self.opens).unwrap();
        text.trim().parse().unwrap()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        self.unmount();
    }
}
