//! `scripts/io500-find.sh` as IO500 runs it (issue 47): the walk is IO500's
//! alone, whatever the user's `PFIND_OPTIONS` (`-G` left hidden files out and
//! changed the score), and a DATADIR that is a symbolic link is followed, as
//! IO500's own pfind opens it (find -H); the counts are find's.

use std::path::Path;
use std::process::Command;

/// IO500's find expression after DATADIR (`*01*` in IO500; `*1*` matches more).
const EXPRESSION: [&str; 6] = ["-newer", "reference", "-size", "3901c", "-name", "*1*"];

/// The script's output in `dir` for IO500's expression on `datadir`, with
/// `PFIND_OPTIONS` set to `options`.
fn io500_find(dir: &Path, datadir: &str, options: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/io500-find.sh");
    let out = Command::new("bash")
        .current_dir(dir)
        .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
        .env("PFIND_OPTIONS", options)
        .arg(script)
        .arg(datadir)
        .args(EXPRESSION)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stderr, b"", "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_script_counts_what_find_counts_whatever_the_defaults_and_the_link() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    std::fs::write(base.join("reference"), b"").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    let reference = std::fs::File::options()
        .write(true)
        .open(base.join("reference"));
    reference.unwrap().set_modified(old).unwrap();
    let data = base.join("data");
    std::fs::create_dir_all(data.join(".hidden")).unwrap();
    for i in 0..300 {
        let size = if i % 3 == 0 { 3901 } else { 10 };
        std::fs::write(data.join(format!("file.{i}")), vec![0u8; size]).unwrap();
    }
    for name in [".hidden/file.1", ".file.31", "ignored.1"] {
        std::fs::write(data.join(name), vec![0u8; 3901]).unwrap();
    }
    std::fs::write(data.join(".gitignore"), "ignored.*\n").unwrap();
    std::os::unix::fs::symlink("data", base.join("link")).unwrap();
    let find = Command::new("find")
        .current_dir(base)
        .arg("data")
        .args(EXPRESSION)
        .args(["-type", "f"])
        .output()
        .unwrap();
    let found = find.stdout.iter().filter(|&&b| b == b'\n').count();
    assert!(found > 3);
    let line = io500_find(base, "data", "");
    assert!(line.starts_with(&format!("MATCHED {found}/")), "{line}");
    for (datadir, options) in [("data", "-G"), ("link", ""), ("link", "-G -d 1")] {
        assert_eq!(
            io500_find(base, datadir, options),
            line,
            "{datadir}, PFIND_OPTIONS={options}"
        );
    }
}
