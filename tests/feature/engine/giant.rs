//! Giant directories listed in pieces by several workers (issue 36): every entry
//! exactly once, against the oracle, on every filesystem whose cookies pfind cuts
//! (ext4, xfs, btrfs, tmpfs: loop mounts and a tmpfs mount when the tests run as
//! root and the tools exist, each skipped with a message otherwise), at 1, 2, 8 and
//! 16 workers, with holes, renames, and entries added and removed during the walk.
//!
//! The walks cut every listing that fills a small buffer (`split_every_listing`,
//! `listing_buffer`), so a directory of a thousand entries is cut at dozens of
//! points; each case also checks that pieces were listed where they must be, so
//! that a walk that never cuts cannot pass for one that cuts exactly.

use crate::testenv;
use crate::testenv::{assert_same_records, is_root, library_walk, oracle_files};
use pfind::os::dirent::ReaderKind;
use pfind::output::OutputMode;
use pfind::Config;
use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A filesystem mounted for a test, unmounted (and its image removed) on drop.
struct Mounted {
    name: &'static str,
    point: tempfile::TempDir,
    _image: Option<tempfile::TempDir>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.point.path()).status();
    }
}

fn has_command(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// A fresh filesystem of `kind` (`tmpfs`, or one made with `mkfs.KIND` in a loop
/// image), or `None` with a message saying why it is skipped.
/// How many entries a mounted filesystem must hold: the tests' few thousand, or a
/// million (`a_million_entries_in_one_directory`, for which the small images ran
/// out of inodes: "No space left on device").
#[derive(Clone, Copy, PartialEq)]
enum Room {
    Small,
    Million,
}

fn mount(kind: &'static str, room: Room) -> Option<Mounted> {
    if !is_root() {
        eprintln!("skipped {kind}: mounting needs root");
        return None;
    }
    let point = tempfile::tempdir().unwrap();
    if kind == "tmpfs" {
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o"])
            .arg(match room {
                Room::Small => "size=512m",
                Room::Million => "size=2g,nr_inodes=1200000",
            })
            .arg("tmpfs")
            .arg(point.path())
            .status()
            .ok()?;
        if !status.success() {
            eprintln!("skipped tmpfs: mount -t tmpfs failed");
            return None;
        }
        return Some(Mounted {
            name: kind,
            point,
            _image: None,
        });
    }
    let mkfs = format!("mkfs.{kind}");
    if !has_command(&mkfs) {
        eprintln!("skipped {kind}: {mkfs} is not installed");
        return None;
    }
    let image_dir = tempfile::tempdir().unwrap();
    let image = image_dir.path().join("image");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(match room {
            Room::Small => 400 << 20,
            Room::Million => 3 << 30,
        })
        .unwrap();
    let quiet = match (kind, room) {
        ("ext4", Room::Small) => vec!["-q", "-F"],
        ("ext4", Room::Million) => vec!["-q", "-F", "-N", "1200000"],
        _ => vec!["-q", "-f"],
    };
    let made = Command::new(&mkfs)
        .args(&quiet)
        .arg(&image)
        .output()
        .is_ok_and(|out| out.status.success());
    let mounted = made
        && Command::new("mount")
            .args(["-o", "loop"])
            .arg(&image)
            .arg(point.path())
            .status()
            .is_ok_and(|status| status.success());
    if !mounted {
        eprintln!("skipped {kind}: could not make and loop-mount an image");
        return None;
    }
    Some(Mounted {
        name: kind,
        point,
        _image: Some(image_dir),
    })
}

/// Every filesystem the tests can have here: the temporary directory's own, and
/// each of the four pfind cuts listings on, mounted fresh; unmounted on drop.
struct Places {
    _temp: tempfile::TempDir,
    _mounted: Vec<Mounted>,
    /// Each place's name and the directory to build in.
    list: Vec<(&'static str, PathBuf)>,
}

fn places(room: Room) -> Places {
    let temp = tempfile::tempdir().unwrap();
    let mounted: Vec<Mounted> = ["tmpfs", "ext4", "xfs", "btrfs"]
        .into_iter()
        .filter_map(|kind| mount(kind, room))
        .collect();
    let mut list = vec![("temporary directory", temp.path().to_path_buf())];
    list.extend(
        mounted
            .iter()
            .map(|m| (m.name, m.point.path().to_path_buf())),
    );
    Places {
        _temp: temp,
        _mounted: mounted,
        list,
    }
}

/// True when `path` is on a filesystem whose listings pfind cuts.
fn cuttable(path: &Path) -> bool {
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: a NUL-terminated path and a writable statfs.
    if unsafe { libc::statfs(c_path.as_ptr(), buf.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: statfs succeeded.
    #[allow(clippy::unnecessary_cast)]
    let kind = unsafe { buf.assume_init() }.f_type as i64;
    [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994].contains(&kind)
}

/// One directory of `entries` files named as mdtest names them, a few odd names
/// and three subdirectories with files of their own; then every fifth file removed
/// (holes in the cookies) and every eleventh renamed (moved in them).
fn giant_dir(dir: &Path, entries: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for index in 0..entries {
        let name = format!("file.mdtest.{}.{index}", index % 7);
        std::fs::File::create(dir.join(name)).unwrap();
    }
    for odd in [&b"new\nline"[..], b"bad\xff", b" space", &[b'L'; 255]] {
        std::fs::File::create(dir.join(std::ffi::OsStr::from_bytes(odd))).unwrap();
    }
    for sub in ["sub1", "sub2", "sub3"] {
        std::fs::create_dir(dir.join(sub)).unwrap();
        std::fs::File::create(dir.join(sub).join("inner")).unwrap();
    }
    for index in (0..entries).step_by(5) {
        std::fs::remove_file(dir.join(format!("file.mdtest.{}.{index}", index % 7))).unwrap();
    }
    for index in (1..entries).step_by(11) {
        let old = dir.join(format!("file.mdtest.{}.{index}", index % 7));
        let _ = std::fs::rename(old, dir.join(format!("renamed.{index}")));
    }
}

fn config(root: &Path, threads: usize, every: bool) -> Config {
    network_config(root, threads, every, false)
}

/// [`config`], taking the root as one on a network filesystem (`network`): its
/// listings are read batch by batch, and cut only after many (`list_sharing`).
fn network_config(root: &Path, threads: usize, every: bool, network: bool) -> Config {
    let mut config = Config::new(vec![OsString::from(root)]);
    config.output = OutputMode::Paths { terminator: 0 };
    config.threads = threads;
    config.exact_threads = true;
    config.spare_threads = 0;
    if every {
        config.split_every_listing = true;
        config.listing_buffer = Some(1024);
    }
    config.assume_network = network;
    config
}

/// The walk of `root` at 1, 2, 8 and 16 workers, cutting every listing it can and
/// cutting as a plain walk does, gives exactly the oracle's files; where the
/// filesystem is one pfind cuts and there are workers to share with, pieces were
/// listed.
fn assert_exact(root: &Path, context: &str) {
    let expected = oracle_files(root.as_os_str().as_bytes());
    // A network root's listing is cut only after 16 batches (`NETWORK_CUT_AFTER`).
    let big = expected.len() > 10_000;
    let settings = [(true, false), (false, false), (true, true)];
    for threads in [1, 2, 8, 16] {
        for (every, network) in settings {
            let config = network_config(root, threads, every, network);
            let (paths, summary) = library_walk(&config, ReaderKind::native());
            let context = format!(
                "{context}, {threads} workers, every listing cut: {every}, as a network root: {network}"
            );
            assert_same_records(&context, &paths, &expected);
            if every && threads > 1 && cuttable(root) && (!network || big) {
                assert!(summary.pieces > 0, "{context}: no piece listed");
            }
            if threads == 1 {
                assert_eq!(summary.pieces, 0, "{context}: one worker cut a listing");
            }
        }
    }
}

#[test]
fn giant_directories_are_listed_exactly_once_on_every_filesystem() {
    let places = places(Room::Small);
    for (name, place) in &places.list {
        for entries in [1_000, 20_000] {
            let dir = place.join(format!("giant{entries}"));
            giant_dir(&dir, entries);
            assert_exact(&dir, &format!("{name}, {entries} entries"));
            // The same directory as a root's subdirectory, cut where a peer idles.
            assert_exact(place, &format!("{name}, {entries} entries below the root"));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

/// Entries added, removed and renamed while the directory is being listed in
/// pieces: nothing panics, every entry that was never touched is printed exactly
/// once, and nothing is printed that was never there.
#[test]
fn a_directory_changing_during_the_walk_lists_its_unchanged_entries_once() {
    let places = places(Room::Small);
    for (name, place) in &places.list {
        let dir = place.join("changing");
        std::fs::create_dir(&dir).unwrap();
        let steady: Vec<Vec<u8>> = (0..6_000)
            .map(|index| {
                let path = dir.join(format!("steady.{index}"));
                std::fs::File::create(&path).unwrap();
                path.into_os_string().into_vec()
            })
            .collect();
        testenv::while_changing(&dir, 3_000, || {
            for threads in [2, 8, 16] {
                for _ in 0..3 {
                    let config = config(&dir, threads, true);
                    let (paths, _) = library_walk(&config, ReaderKind::native());
                    let mut seen: HashMap<&[u8], usize> = HashMap::new();
                    for path in &paths {
                        *seen.entry(path).or_default() += 1;
                    }
                    // A changed entry may be missed or seen under both names, or
                    // twice where it moved between two pieces' reads, as a plain
                    // listing may miss or see it; anything else printed is wrong.
                    let prefix = dir.as_os_str().as_bytes().len() + 1;
                    for path in seen.keys() {
                        let name = &path[prefix..];
                        assert!(
                            [&b"steady."[..], b"moving.", b"moved.", b"late."]
                                .iter()
                                .any(|start| name.starts_with(start)),
                            "{name:?}"
                        );
                    }
                    for path in &steady {
                        assert_eq!(
                            seen.get(&path[..]),
                            Some(&1),
                            "{name}, {threads} workers: {:?}",
                            String::from_utf8_lossy(path)
                        );
                    }
                }
            }
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The walk checked against `find` on a million entries in one directory, through
/// the real binary at its default and at 1, 2, 8 and 16 workers. Slow to build
/// (about a minute on ext4), so run by hand:
/// `cargo test --release --test feature engine::giant -- --ignored`.
#[test]
#[ignore]
fn a_million_entries_in_one_directory() {
    let places = places(Room::Million);
    for (name, place) in &places.list {
        let dir = place.join("million");
        std::fs::create_dir(&dir).unwrap();
        for index in 0..1_000_000 {
            std::fs::File::create(dir.join(format!("file.mdtest.{}.{index}", index % 7))).unwrap();
        }
        let find = Command::new("find")
            .arg(&dir)
            .args(["-type", "f", "-print0"])
            .output()
            .unwrap();
        let expected = testenv::split_records(&find.stdout, 0);
        for threads in [None, Some(1), Some(2), Some(8), Some(16)] {
            let mut command = testenv::pfind_command(place, &[dir.as_os_str()]);
            command.arg("-0");
            if let Some(threads) = threads {
                command.args(["-j", &threads.to_string()]);
            }
            let out = command.output().unwrap();
            assert!(out.status.success());
            let paths = testenv::split_records(&out.stdout, 0);
            assert_same_records(&format!("{name}, -j {threads:?}"), &paths, &expected);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The entries `--stats` says were examined: its line on stderr.
fn entries_examined(stderr: &[u8]) -> u64 {
    let stderr = String::from_utf8_lossy(stderr);
    let line = stderr
        .lines()
        .find_map(|line| line.strip_suffix(" entries examined"))
        .unwrap_or_else(|| panic!("no entries examined in {stderr:?}"));
    line.parse().unwrap()
}

/// `find ARGS | wc -l`, NUL-separated so that names with newlines count once.
fn find_count(args: &[&std::ffi::OsStr]) -> u64 {
    let out = Command::new("find")
        .args(args)
        .arg("-print0")
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout.iter().filter(|&&b| b == 0).count() as u64
}

/// `--stats` counts every entry read from a listing once, as `find -mindepth 1`
/// lists them: in a random tree with a giant directory cut into pieces, at 1, 2
/// and 8 workers, with -c and with paths printed, and with a depth bound.
#[test]
fn stats_count_every_entry_examined_as_find_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    testenv::random_tree(tmp.path(), 5, 2_000);
    giant_dir(&tmp.path().join("giant"), 5_000);
    let root = tmp.path().as_os_str();
    let all = find_count(&[root, "-mindepth".as_ref(), "1".as_ref()]);
    let shallow = find_count(&[
        root,
        "-mindepth".as_ref(),
        "1".as_ref(),
        "-maxdepth".as_ref(),
        "1".as_ref(),
    ]);
    for threads in ["1", "2", "8"] {
        for (extra, want) in [(vec![], all), (vec!["-c"], all), (vec!["-d", "1"], shallow)] {
            let mut args = vec![root, "--stats".as_ref(), "-j".as_ref(), threads.as_ref()];
            args.extend(extra.iter().map(std::ffi::OsStr::new));
            let out = testenv::pfind_command(tmp.path(), &args).output().unwrap();
            assert!(out.status.success());
            assert_eq!(
                entries_examined(&out.stderr),
                want,
                "-j {threads} {extra:?}"
            );
        }
    }
}

/// IO500's external find through `scripts/io500-find.sh`: one walk of an
/// IO500-style tree (mdtest's easy and hard directories, files of 0 and 3,901
/// bytes, some older than the timestamp file), `MATCHED found/scanned` with
/// find's counts; extra arguments go to pfind; another expression is refused.
#[test]
fn io500_find_script_counts_as_find_does() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("datafiles");
    let stamp = data.join("timestampfile");
    std::fs::create_dir(&data).unwrap();
    std::fs::File::create(&stamp).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stamp)
        .unwrap()
        .set_modified(old)
        .unwrap();
    for (kind, size) in [("easy", 0), ("hard", 3901)] {
        for rank in 0..2 {
            let dir = data.join(format!("mdtest-{kind}/test-dir.0-0/mdtest_tree.{rank}"));
            std::fs::create_dir_all(&dir).unwrap();
            for index in 0..1_500 {
                let path = dir.join(format!("file.mdtest.{rank}.{index}"));
                std::fs::write(&path, vec![b'x'; size]).unwrap();
                if index % 10 == 3 {
                    let file = std::fs::File::options().write(true).open(&path).unwrap();
                    file.set_modified(old - std::time::Duration::from_secs(60))
                        .unwrap();
                }
            }
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/io500-find.sh");
    let expression = [
        data.as_os_str(),
        "-newer".as_ref(),
        stamp.as_os_str(),
        "-size".as_ref(),
        "3901c".as_ref(),
        "-name".as_ref(),
        "*01*".as_ref(),
    ];
    let mut find_args = expression.to_vec();
    find_args.extend([std::ffi::OsStr::new("-type"), std::ffi::OsStr::new("f")]);
    let found = find_count(&find_args);
    let scanned = find_count(&[data.as_os_str(), "-mindepth".as_ref(), "1".as_ref()]);
    assert!(found > 0);
    for extra in [vec![], vec!["-j", "2"]] {
        let out = Command::new("bash")
            .arg(&script)
            .args(&extra)
            .args(expression)
            .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            stdout.lines().last(),
            Some(&*format!("MATCHED {found}/{scanned}"))
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = Command::new("bash")
        .arg(&script)
        .args(&expression[..5])
        .args(["+3901c", "-name", "*01*"])
        .env("PFIND", env!("CARGO_BIN_EXE_pfind"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The pieces `--stats` says were listed.
fn pieces_listed(stderr: &[u8]) -> u64 {
    let stderr = String::from_utf8_lossy(stderr);
    let line = stderr
        .lines()
        .find_map(|line| line.strip_suffix(" pieces of giant directories listed"))
        .unwrap_or_else(|| panic!("no pieces in {stderr:?}"));
    line.parse().unwrap()
}

/// A directory of a thousand files fits one listing batch, so a plain walk lists
/// it whole; when every file is `stat`ed (`-S`) its listing is cut for the other
/// workers, who share the `stat`s (issue 36, item 2). The counts stay find's.
#[test]
fn a_directory_whose_entries_are_each_stated_is_shared_sooner() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("thousand");
    giant_dir(&dir, 1_200);
    let files = find_count(&[dir.as_os_str(), "-type".as_ref(), "f".as_ref()]);
    for (extra, cut) in [(None, false), (Some("+0b"), true)] {
        let mut args: Vec<&std::ffi::OsStr> = vec![dir.as_os_str()];
        args.extend(["-c", "--stats", "-j", "4"].map(std::ffi::OsStr::new));
        if let Some(size) = extra {
            args.extend(["-S", size].map(std::ffi::OsStr::new));
        }
        let out = testenv::pfind_command(tmp.path(), &args).output().unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            files.to_string()
        );
        assert_eq!(pieces_listed(&out.stderr) > 0, cut, "-S {extra:?}");
    }
}
