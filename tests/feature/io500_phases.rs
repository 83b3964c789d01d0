//! IO500's find phases through `scripts/io500-find.sh`, each run as IO500 runs it:
//! one command line through the shell (`popen`), built as io500's
//! `src/phase_find.c` (`find`), `phase_find_easy.c` (`find-easy`: DATADIR/mdtest-easy/
//! -name GLOB alone) and `phase_find_hard.c` (`find-hard`) build theirs. The
//! `MATCHED found/scanned` line must carry find's counts.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

/// `find ARGS | wc -l`, through the shell as IO500's own checks would be.
fn find_count(command: &str) -> usize {
    let out = Command::new("sh").arg("-c").arg(command).output().unwrap();
    assert!(out.status.success(), "{command}");
    out.stdout.iter().filter(|&&b| b == b'\n').count()
}

/// DATADIR with mdtest's easy (empty files) and hard (3,901 bytes) trees, a tenth
/// of the files older than RESDIR/timestampfile.
fn io500_tree(root: &Path) {
    let stamp = root.join("results/timestampfile");
    std::fs::create_dir_all(stamp.parent().unwrap()).unwrap();
    std::fs::write(&stamp, b"").unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let set_mtime = |path: &Path, when| {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(when).unwrap();
    };
    set_mtime(&stamp, hour_ago);
    for (phase, size) in [("easy", 0usize), ("hard", 3901)] {
        let dir = root.join(format!(
            "datafiles/mdtest-{phase}/test-dir.0-0/mdtest_tree.0"
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for index in 0..2_000 {
            let file = dir.join(format!("file.mdtest.0.{index}"));
            std::fs::write(&file, vec![b'x'; size + index % 7 / 6]).unwrap();
            if index % 10 == 1 {
                set_mtime(&file, hour_ago - Duration::from_secs(60));
            }
        }
    }
}

#[test]
fn each_find_phase_matches_finds_counts() {
    let tmp = tempfile::tempdir().unwrap();
    io500_tree(tmp.path());
    let data = tmp.path().join("datafiles");
    let res = tmp.path().join("results");
    let (data, res) = (data.to_str().unwrap(), res.to_str().unwrap());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/io500-find.sh");
    let script = script.to_str().unwrap();
    // io500's sprintf forms, word for word.
    let phases = [
        format!("{data} -newer {res}/timestampfile -size 3901c -name \"*01*\""),
        format!("{data}/mdtest-easy/ -name \"*01*\""),
        format!("{data}/mdtest-hard/ -newer {res}/timestampfile -size 3901c -name \"*01*\""),
    ];
    for args in &phases {
        let dir = args.split(' ').next().unwrap();
        let found = find_count(&format!("find {args} -type f"));
        let scanned = find_count(&format!("find {dir} -mindepth 1"));
        assert!(found > 0, "{args}");
        // external-mpi-args empty; external-extra-args empty, then `-j 2`.
        for extra in ["", "-j 2"] {
            let command = format!(" {script} {extra} {args}");
            let out = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && stderr.is_empty(),
                "{command}: {stderr}"
            );
            let stdout = String::from_utf8(out.stdout).unwrap();
            assert_eq!(
                stdout.lines().last(),
                Some(&*format!("MATCHED {found}/{scanned}")),
                "{command}"
            );
        }
    }
    // What is neither form is refused, as before.
    for args in [
        format!("{data} -name"),
        format!("{data} -newer x -name \"*01*\""),
    ] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{script} {args}"))
            .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args}");
    }
}
