//! How matches are printed (src/cli/output.rs): `-0` and odd names byte for byte,
//! `-c`, `-l`, `-s` (exact beyond 64 bits), `--format` against GNU `find -printf`,
//! `--json` against `jq` and Python's `json`, `--sort`/`--reverse` against
//! `LC_ALL=C sort`, `-q`, `--color`, `--hyperlink`, `-a`, `--relative-path`, `-C`,
//! `--strip-cwd-prefix`, `--path-separator`, `--max-results`/`-1`; records never split
//! between workers; a closed pipe and a full device. Through the real binary at 1, 2
//! and 16 threads, on a tree of odd names (newline, invalid UTF-8, quotes,
//! backslashes, control bytes and escape sequences).

use crate::entries::run_all;
use crate::exec::{os, outputs, sorted_lines, tree};
use crate::testenv;
use crate::testenv::{assert_same_records, pfind_command, split_records, TestEnv, THREAD_COUNTS};
use crate::walk::{mount, Mounted};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The names every directory of the odd tree holds.
const ODD_NAMES: &[&[u8]] = &[
    b"plain.txt",
    b"new\nline.jpg",
    b"bad\xff\xfe.bin",
    b"quote\"s.txt",
    b"back\\slash",
    b"ctrl\x01\x1b[31m.txt",
    b"tab\there",
    b"sp ace",
    "\u{fc}n\u{ef}.png".as_bytes(),
    b"-dash",
    b"100%#?.x",
    b".bashrc",
    b"a.tar.gz",
    b"del\x7f",
];

/// `t/` with the odd names in three directories (one hidden, one with a space and
/// one with a newline in its name), files of different sizes and modes, a link to a
/// file and a dangling link.
fn odd_tree() -> TestEnv {
    let env = TestEnv::new(&[], &[]);
    for (d, dir) in [&b"t"[..], b"t/sub dir", b"t/.hidden", b"t/nl\ndir"]
        .iter()
        .enumerate()
    {
        for (i, name) in ODD_NAMES.iter().enumerate() {
            let path = [*dir, b"/", name].concat();
            env.write(Path::new(OsStr::from_bytes(&path)), &vec![b'x'; i * 7 + d]);
        }
    }
    set_mode(&env, b"t/plain.txt", 0o4755);
    set_mode(&env, b"t/sp ace", 0o600);
    set_mode(&env, b"t/a.tar.gz", 0o751);
    env.symlink("plain.txt", "t/link");
    env.symlink("nowhere", "t/dangling");
    env
}

fn set_mode(env: &TestEnv, relative: &[u8], mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let path = env.root().join(OsStr::from_bytes(relative));
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Sets a file's modification time (seconds since the epoch).
fn set_mtime(env: &TestEnv, relative: &[u8], secs: i64) {
    let mut path = env
        .root()
        .join(OsStr::from_bytes(relative))
        .into_os_string()
        .into_vec();
    path.push(0);
    let times = [
        libc::timespec {
            tv_sec: secs,
            tv_nsec: 0,
        },
        libc::timespec {
            tv_sec: secs,
            tv_nsec: 0,
        },
    ];
    // SAFETY: a NUL-terminated path and two valid timespecs.
    let rc = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            path.as_ptr().cast(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    assert_eq!(rc, 0, "utimensat");
}

/// Runs GNU find in the tree's root; its stdout.
fn find(env: &TestEnv, args: &[&str]) -> Vec<u8> {
    let out = Command::new("find")
        .args(args)
        .current_dir(env.root())
        .output()
        .expect("run find");
    assert!(out.status.success(), "find {args:?} failed");
    out.stdout
}

/// Runs pfind with `args` plus `-j N` at every thread count; checks that it exited 0
/// with nothing on stderr, and hands each stdout to `check`.
fn each_thread_count(env: &TestEnv, args: &[&str], mut check: impl FnMut(&str, &[u8])) {
    for threads in THREAD_COUNTS {
        let full = [args, &["-j", threads]].concat();
        let out = env.run(&full);
        let shown = format!("pfind {full:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{shown}: stderr");
        assert_eq!(out.status.code(), Some(0), "{shown}: status");
        check(&shown, &out.stdout);
    }
}

/// Pipes `input` through a shell command; its stdout and success.
pub(crate) fn pipe_through(
    command: &str,
    input: &[u8],
    env_vars: &[(&str, &str)],
) -> (Vec<u8>, bool) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .envs(env_vars.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sh");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    if !out.status.success() {
        eprintln!("{command}: {}", String::from_utf8_lossy(&out.stderr));
    }
    (out.stdout, out.status.success())
}

/// Groups NUL-separated fields into records of `width` fields.
fn grouped(output: &[u8], width: usize) -> Vec<Vec<u8>> {
    let fields = split_records(output, 0);
    assert_eq!(fields.len() % width, 0, "{} fields", fields.len());
    fields.chunks(width).map(|c| c.join(&b'\0')).collect()
}

const ALL_KINDS: [&str; 6] = ["-t", "f", "-t", "d", "-t", "l"];

#[test]
fn path_placeholders_on_odd_names() {
    let env = odd_tree();
    // find gives the path, the basename (%f), the parent (%h) and the type letter;
    // the stems come from Rust's Path::file_stem, which fd's placeholders follow.
    let listing = find(
        &env,
        &["t", "-mindepth", "1", "-printf", "%p\\0%f\\0%h\\0%y\\0"],
    );
    let expected: Vec<Vec<u8>> = split_records(&listing, 0)
        .chunks(4)
        .map(|f| {
            let stem = Path::new(OsStr::from_bytes(&f[1]))
                .file_stem()
                .unwrap()
                .as_bytes()
                .to_vec();
            let no_ext = [&f[2][..], b"/", &stem].concat();
            [
                f[0].clone(),
                f[1].clone(),
                f[2].clone(),
                stem,
                no_ext,
                f[3].clone(),
            ]
            .join(&b'\0')
        })
        .collect();
    let args = [
        &[
            "t",
            "--format",
            "{}\\0{/}\\0{//}\\0{/.}\\0{.}\\0{type}",
            "-0",
        ][..],
        &ALL_KINDS,
    ]
    .concat();
    each_thread_count(&env, &args, |shown, out| {
        assert_same_records(shown, &grouped(out, 6), &expected);
    });
}

#[test]
fn metadata_placeholders_match_find_printf() {
    let env = odd_tree();
    set_mtime(&env, b"t/plain.txt", 1_000_000_000);
    set_mtime(&env, b"t/sp ace", -1);
    // %TS carries a fraction and %Tz has no colon: both adjusted to ISO 8601 below.
    let listing = find(
        &env,
        &[
            "t",
            "-mindepth",
            "1",
            "-printf",
            "%p\\0%s\\0%m\\0%U:%G\\0%u:%g\\0%TY-%Tm-%TdT%TH:%TM:%TS%Tz\\0",
        ],
    );
    let expected: Vec<Vec<u8>> = split_records(&listing, 0)
        .chunks(6)
        .map(|f| {
            let time = String::from_utf8(f[5].clone()).unwrap();
            let (clock, zone) = time.split_at(time.len() - 5);
            let clock = clock.split('.').next().unwrap();
            let iso = format!("{clock}{}:{}", &zone[..3], &zone[3..]);
            [&f[..5], &[iso.into_bytes()]].concat().join(&b'\0')
        })
        .collect();
    let template = "{}\\0{size}\\0{mode}\\0{uid}:{gid}\\0{owner}:{group}\\0{mtime}";
    let args = [&["t", "--format", template, "-0"][..], &ALL_KINDS].concat();
    each_thread_count(&env, &args, |shown, out| {
        assert_same_records(shown, &grouped(out, 6), &expected);
    });
}

#[test]
fn bad_templates_are_usage_errors_naming_the_problem() {
    let env = odd_tree();
    let cases: &[(&[&str], &str)] = &[
        (&["--format", "{}{nope}"], "{nope}"),
        (&["--format", "{"], "unclosed"),
        (&["--format", "\\q"], "\\q"),
        (&["--format", "{}", "-l"], "cannot be used with"),
        (&["--json", "--format", "{}"], "cannot be used with"),
        (&["--json", "-0"], "cannot be used with"),
        (&["--reverse"], "--sort"),
        (&["--sort", "name"], "name"),
        (&["--color", "sometimes"], "sometimes"),
        (&["--generate", "tcsh"], "tcsh"),
    ];
    for &(args, needle) in cases {
        let out = env.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// Python's `json` as the oracle: every line must parse, and the exact path bytes
/// (`path_b64` when present, else `path` as UTF-8) are printed NUL-separated, each
/// followed by the other fields joined with `|`.
const PY_DECODE: &str = r#"
import base64, json, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer.read().split(b"\n")[:-1]:
    record = json.loads(line)
    if "path_b64" in record:
        path = base64.b64decode(record["path_b64"], validate=True)
        assert path.decode("utf-8", "replace") == record["path"]
    else:
        path = record["path"].encode("utf-8")
    fields = [record["type"]]
    for key in ("size", "mode", "mtime", "mtime_iso"):
        if key in record:
            fields.append(str(record[key]))
    out.write(path + b"\0" + "|".join(fields).encode() + b"\0")
"#;

#[test]
fn json_parses_with_python_and_jq_and_round_trips_paths() {
    let env = odd_tree();
    set_mtime(&env, b"t/plain.txt", 1_000_000_000);
    let plain = find(&env, &["t", "-mindepth", "1", "-printf", "%p\\0%y\\0"]);
    let plain: Vec<Vec<u8>> = split_records(&plain, 0)
        .chunks(2)
        .map(|f| f.join(&b'\0'))
        .collect();
    let long = find(
        &env,
        &["t", "-mindepth", "1", "-printf", "%p\\0%y|%s|%m|%T@\\0"],
    );
    let long: Vec<Vec<u8>> = split_records(&long, 0)
        .chunks(2)
        .map(|f| {
            // %T@ is seconds with a fraction; JSON's mtime is whole seconds.
            let fields = String::from_utf8(f[1].clone()).unwrap();
            let seconds = fields.split('.').next().unwrap();
            [&f[0][..], b"\0", seconds.as_bytes()].concat()
        })
        .collect();
    for (extra, expected) in [(&[][..], &plain), (&["-l"][..], &long)] {
        let args = [&["t", "--json"][..], extra, &ALL_KINDS].concat();
        each_thread_count(&env, &args, |shown, out| {
            let lines = split_records(out, b'\n');
            assert_eq!(lines.len(), expected.len(), "{shown}");
            let (decoded, ok) = pipe_through(&format!("python3 -c '{PY_DECODE}'"), out, &[]);
            assert!(ok, "{shown}: Python could not parse the output");
            let mut got = grouped(&decoded, 2);
            if !extra.is_empty() {
                // Compare the fields find can give (type, size, mode, seconds); check
                // the ISO time is the seconds' local time separately.
                got = got
                    .iter()
                    .map(|record| {
                        let (path, fields) =
                            record.split_at(record.iter().position(|&b| b == 0).unwrap());
                        let fields = String::from_utf8(fields[1..].to_vec()).unwrap();
                        let parts: Vec<&str> = fields.split('|').collect();
                        let iso = date_iso(parts[3]);
                        assert_eq!(parts[4], iso, "{shown}: mtime_iso of {path:?}");
                        [path, b"\0", parts[..4].join("|").as_bytes()].concat()
                    })
                    .collect();
            }
            assert_same_records(shown, &got, expected);
            let (count, ok) = pipe_through("jq -e -s length", out, &[]);
            assert!(ok, "{shown}: jq could not parse the output");
            assert_eq!(
                String::from_utf8(count).unwrap().trim(),
                expected.len().to_string()
            );
        });
    }
}

/// `date`'s ISO 8601 for a count of seconds.
fn date_iso(secs: &str) -> String {
    let out = Command::new("date")
        .arg("-d")
        .arg(format!("@{secs}"))
        .arg("--iso-8601=seconds")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn sort_by_path_is_lc_all_c_sort() {
    let env = odd_tree();
    let listing = find(&env, &["t", "-mindepth", "1", "-print0"]);
    let sorted = |flags: &str| {
        let (out, ok) = pipe_through(&format!("sort -z {flags}"), &listing, &[("LC_ALL", "C")]);
        assert!(ok);
        split_records(&out, 0)
    };
    let forward = sorted("");
    let backward = sorted("-r");
    assert_eq!(forward.iter().rev().cloned().collect::<Vec<_>>(), backward);
    for (extra, expected) in [(&[][..], &forward), (&["--reverse"][..], &backward)] {
        let args = [&["t", "--sort", "path", "-0"][..], extra, &ALL_KINDS].concat();
        each_thread_count(&env, &args, |shown, out| {
            assert_eq!(&split_records(out, 0), expected, "{shown}");
        });
        // The first N in that order.
        let args = [
            &["t", "--sort", "path", "-0", "--max-results", "5"][..],
            extra,
            &ALL_KINDS,
        ]
        .concat();
        each_thread_count(&env, &args, |shown, out| {
            assert_eq!(split_records(out, 0), expected[..5], "{shown}");
        });
    }
}

#[test]
fn sort_by_size_and_mtime_orders_by_key_then_path() {
    let env = odd_tree();
    for (i, name) in ODD_NAMES.iter().enumerate() {
        let path = [&b"t/sub dir/"[..], name].concat();
        set_mtime(&env, &path, 1_600_000_000 + (i as i64 * 37) % 5);
    }
    let listing = find(&env, &["t", "-type", "f", "-printf", "%s\\0%T@\\0%p\\0"]);
    let entries: Vec<(u64, f64, Vec<u8>)> = split_records(&listing, 0)
        .chunks(3)
        .map(|f| {
            let size = std::str::from_utf8(&f[0]).unwrap().parse().unwrap();
            let mtime = std::str::from_utf8(&f[1]).unwrap().parse().unwrap();
            (size, mtime, f[2].clone())
        })
        .collect();
    let mut by_size = entries.clone();
    by_size.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
    let mut by_mtime = entries.clone();
    by_mtime.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)));
    let long = |list: &[(u64, f64, Vec<u8>)]| -> Vec<Vec<u8>> {
        list.iter()
            .map(|(size, _, path)| [format!("{size:>20} ").as_bytes(), path].concat())
            .collect()
    };
    let paths = |list: &[(u64, f64, Vec<u8>)]| -> Vec<Vec<u8>> {
        list.iter().map(|(_, _, path)| path.clone()).collect()
    };
    let reversed = |mut list: Vec<Vec<u8>>| {
        list.reverse();
        list
    };
    let cases: Vec<(Vec<&str>, Vec<Vec<u8>>)> = vec![
        (vec!["--sort", "size", "-l"], long(&by_size)),
        (
            vec!["--sort", "size", "-l", "--reverse"],
            reversed(long(&by_size)),
        ),
        (vec!["--sort", "mtime"], paths(&by_mtime)),
        (
            vec!["--sort", "mtime", "--reverse"],
            reversed(paths(&by_mtime)),
        ),
        (
            vec!["--sort", "size", "--reverse", "--max-results", "3"],
            reversed(paths(&by_size))[..3].to_vec(),
        ),
    ];
    for (extra, expected) in cases {
        let args = [&["t", "-0"][..], &extra].concat();
        each_thread_count(&env, &args, |shown, out| {
            assert_eq!(split_records(out, 0), expected, "{shown}");
        });
    }
}

#[test]
fn quiet_answers_with_the_exit_status_only() {
    let env = odd_tree();
    // (arguments, expected status, stderr expected)
    let cases: &[(&[&str], i32, bool)] = &[
        (&["-q", "t"], 0, false),
        (&["-q", "t", "-e", "jpg"], 0, false),
        (&["-q", "t", "-e", "nothing"], 1, false),
        (&["-q", "t/sub dir", "-t", "d"], 1, false),
        // An error does not hide a match, nor make one. (`missing t` would be fd's
        // PATTERN DIR, refused: hints.rs.)
        (&["-q", "t", "missing"], 0, true),
        (&["-q", "t", "missing", "-e", "nothing"], 1, true),
        (&["--quiet", "t", "-n", "plain.txt"], 0, false),
    ];
    for threads in THREAD_COUNTS {
        for &(args, status, errors) in cases {
            let full = [args, &["-j", threads]].concat();
            let out = env.run(&full);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(status), "{full:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{full:?}: printed something");
            if errors {
                assert!(
                    stderr.starts_with("pfind: missing: No such file or directory")
                        && stderr.lines().count() == 1,
                    "{full:?}: {stderr}"
                );
            } else {
                assert_eq!(stderr, "", "{full:?}");
            }
        }
    }
    for conflicting in [
        &["-q", "-c"][..],
        &["-q", "--json"],
        &["-q", "-l"],
        &["-q", "--max-results", "3"],
    ] {
        assert_eq!(
            env.run(conflicting).status.code(),
            Some(2),
            "{conflicting:?}"
        );
    }
}

#[test]
fn quiet_stops_at_the_first_match() {
    // A thousand matching files: -q must not list more than one directory's worth.
    let env = TestEnv::new(&[], &[]);
    for d in 0..50 {
        for f in 0..20 {
            env.write(format!("d{d}/f{f}"), b"");
        }
    }
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=openat", "-o", "/dev/stdout"])
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .args(["-q", "-j", "1", "."])
        .current_dir(env.root())
        .output()
        .expect("strace is needed for this test (apt-get install strace)");
    assert_eq!(out.status.code(), Some(0));
    let opened = String::from_utf8_lossy(&out.stdout)
        .lines()
        // The tree's directories, not the /proc/self/fd listing that counts the
        // descriptors open at start.
        .filter(|line| line.contains("O_DIRECTORY") && !line.contains("/proc/self/fd"))
        .count();
    assert!(opened <= 2, "-q listed {opened} directories");
}

/// Removes SGR colour sequences.
fn strip_colours(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"\x1b[") {
            let end = bytes[i..].iter().position(|&b| b == b'm').unwrap();
            i += end + 1;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn colours_only_where_asked() {
    let env = odd_tree();
    let plain = find(&env, &["t", "-mindepth", "1", "-print0"]);
    let plain = split_records(&plain, 0);
    let palette = "di=34:ln=36:or=31:ex=32:*.jpg=35";
    // Piped (as here), `auto` and `never` print no escape; `always` does, whatever
    // NO_COLOR says, and nothing else changes.
    for (args, env_vars, coloured) in [
        (&[][..], &[][..], false),
        (&["--color", "never"][..], &[][..], false),
        (&["--color", "auto"][..], &[][..], false),
        (&["--color", "always"][..], &[][..], true),
        (&["--color", "always"][..], &[("NO_COLOR", "1")][..], true),
    ] {
        for threads in THREAD_COUNTS {
            let full = [&["t", "-0", "-j", threads][..], &ALL_KINDS, args].concat();
            let out = pfind_command(env.root(), &full)
                .env("LS_COLORS", palette)
                .envs(env_vars.iter().copied())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0));
            let records = split_records(&out.stdout, 0);
            // The odd names include an escape sequence of their own (`ctrl\x01\x1b[31m`):
            // count reset sequences, which only colouring adds.
            let resets = out.stdout.windows(4).filter(|w| w == b"\x1b[0m").count();
            assert_eq!(resets > 0, coloured, "{full:?} {env_vars:?}");
            if coloured {
                // Stripping removes the name's own sequence too, on both sides.
                let stripped: Vec<Vec<u8>> = records.iter().map(|r| strip_colours(r)).collect();
                let expected: Vec<Vec<u8>> = plain.iter().map(|p| strip_colours(p)).collect();
                assert_same_records(&format!("{full:?}"), &stripped, &expected);
            } else {
                assert_same_records(&format!("{full:?}"), &records, &plain);
            }
        }
    }
    // The palette is LS_COLORS': each part and kind in its colour.
    let out = pfind_command(
        env.root(),
        &[
            "t", "--color", "always", "-t", "f", "-t", "l", "-t", "d", "-d", "1",
        ],
    )
    .env("LS_COLORS", palette)
    .output()
    .unwrap();
    let text = out.stdout;
    for want in [
        &b"\x1b[34mt/\x1b[0m\x1b[32mplain.txt\x1b[0m\n"[..], // setuid 4755: executable
        b"\x1b[34mt/\x1b[0mquote\"s.txt\n",
        b"\x1b[34mt/\x1b[0m\x1b[35mnew\nline.jpg\x1b[0m\n",
        b"\x1b[34mt/\x1b[0m\x1b[36mlink\x1b[0m\n",
        b"\x1b[34mt/\x1b[0m\x1b[31mdangling\x1b[0m\n",
        b"\x1b[34mt/\x1b[0m\x1b[34msub dir\x1b[0m\n",
        b"\x1b[34mt/\x1b[0m\x1b[32ma.tar.gz\x1b[0m\n",
    ] {
        assert!(
            text.windows(want.len()).any(|w| w == want),
            "missing {:?} in {:?}",
            String::from_utf8_lossy(want),
            String::from_utf8_lossy(&text)
        );
    }
    // JSON and templates are never coloured.
    for args in [
        &["t", "--json", "--color", "always"][..],
        &["t", "--format", "{}", "--color", "always"],
    ] {
        let out = pfind_command(env.root(), args)
            .env("LS_COLORS", palette)
            .output()
            .unwrap();
        assert!(!out.stdout.windows(4).any(|w| w == b"\x1b[0m"), "{args:?}");
    }
}

/// Runs pfind under a pseudo-terminal (util-linux `script`), so that `auto` sees a
/// terminal; returns what it printed.
fn under_terminal(env: &TestEnv, args: &str, env_vars: &[(&str, &str)]) -> Vec<u8> {
    let command = format!("{} {args}", env!("CARGO_BIN_EXE_pfind"));
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(env.root())
        .env_remove("NO_COLOR")
        .envs(env_vars.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) is needed for this test");
    assert!(out.status.success(), "{args}");
    out.stdout
}

#[test]
fn auto_colours_a_terminal_unless_no_color() {
    let env = TestEnv::new(&["dir"], &["dir/a.jpg", "dir/b.txt"]);
    let palette = [("LS_COLORS", "di=34:*.jpg=35")];
    let shown = under_terminal(&env, "dir -j 2", &palette);
    assert!(shown.windows(5).any(|w| w == b"\x1b[34m"), "{shown:?}");
    let with_no_color = [palette[0], ("NO_COLOR", "1")];
    let shown = under_terminal(&env, "dir -j 2", &with_no_color);
    assert!(!shown.contains(&0x1b), "{shown:?}");
    // An empty NO_COLOR does not count, as the convention says.
    let empty_no_color = [palette[0], ("NO_COLOR", "")];
    let shown = under_terminal(&env, "dir", &empty_no_color);
    assert!(shown.windows(5).any(|w| w == b"\x1b[35m"), "{shown:?}");
    // Hyperlinks: `auto` in a terminal, not by default.
    let shown = under_terminal(&env, "dir --hyperlink auto --color never", &[]);
    assert!(shown.windows(4).any(|w| w == b"\x1b]8;"), "{shown:?}");
    let shown = under_terminal(&env, "dir --color never", &[]);
    assert!(!shown.contains(&0x1b), "{shown:?}");
}

fn percent_decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let hex = std::str::from_utf8(&text[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn hyperlinks_point_at_the_absolute_path() {
    let env = odd_tree();
    let root = std::fs::canonicalize(env.root()).unwrap();
    let root = root.as_os_str().as_bytes();
    let plain = split_records(&find(&env, &["t", "-mindepth", "1", "-print0"]), 0);
    let args = [&["t", "-0", "--hyperlink", "always"][..], &ALL_KINDS].concat();
    each_thread_count(&env, &args, |shown, out| {
        let mut shown_paths = Vec::new();
        for record in split_records(out, 0) {
            let rest = record
                .strip_prefix(b"\x1b]8;;file://")
                .expect("opens a link");
            let slash = rest.iter().position(|&b| b == b'/').unwrap();
            let end = rest.windows(2).position(|w| w == b"\x1b\\").unwrap();
            let target = percent_decode(&rest[slash..end]);
            // Only unreserved bytes are left unencoded.
            assert!(rest[slash..end]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"-._~/%".contains(&b)));
            let text = rest[end + 2..]
                .strip_suffix(b"\x1b]8;;\x1b\\")
                .expect("closes the link");
            assert_eq!(target, [root, b"/", text].concat(), "{shown}");
            shown_paths.push(text.to_vec());
        }
        assert_same_records(shown, &shown_paths, &plain);
    });
}

/// Run from a working directory that was deleted: an absolute root's paths are
/// still links (they need no working directory), and a relative root gets a
/// one-line warning that its paths would be printed without links.
#[test]
fn hyperlinks_need_no_working_directory_for_absolute_paths() {
    let env = TestEnv::new(&["d"], &["d/a b"]);
    let root = std::fs::canonicalize(env.root()).unwrap();
    let gone = tempfile::tempdir().unwrap();
    let gone = gone.path().join("gone");
    let run = |root_arg: &OsStr| {
        std::fs::create_dir(&gone).unwrap();
        // The shell enters the directory and removes it before pfind starts there.
        Command::new("sh")
            .args(["-c", r#"cd "$1" && rmdir "$1" && shift && exec "$@""#, "sh"])
            .arg(&gone)
            .arg(env!("CARGO_BIN_EXE_pfind"))
            .args([root_arg, OsStr::new("--hyperlink"), OsStr::new("always")])
            .output()
            .unwrap()
    };
    let out = run(root.as_os_str());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file = [root.as_os_str().as_bytes(), b"/d/a b"].concat();
    // The temporary directory's path needs no percent-encoding.
    let link = [root.as_os_str().as_bytes(), b"/d/a%20b"].concat();
    let record = split_records(&out.stdout, b'\n').pop().unwrap();
    let expected = [
        &b"\x1b]8;;file://"[..],
        &host_name(),
        &link,
        b"\x1b\\",
        &file,
        b"\x1b]8;;\x1b\\",
    ]
    .concat();
    assert_eq!(record, expected);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = run(OsStr::new("."));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "pfind: warning: --hyperlink: cannot read the working directory: No such file \
             or directory; relative paths are printed without links\n"
        ),
        "{stderr}"
    );
    assert!(!out.stdout.contains(&0x1b), "{:?}", out.stdout);
}

/// The machine's host name, as `hostname` would print it.
fn host_name() -> Vec<u8> {
    let name = std::fs::read("/proc/sys/kernel/hostname").unwrap();
    name.strip_suffix(b"\n").unwrap_or(&name).to_vec()
}

/// Counts the `stat`s of entries in one run, with strace.
fn stat_calls(env: &TestEnv, args: &[&str]) -> usize {
    let out = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=%stat,%lstat,%fstat",
            "-o",
            "/dev/stderr",
        ])
        .arg(env!("CARGO_BIN_EXE_pfind"))
        .args(args)
        .current_dir(env.root())
        .stdout(Stdio::null())
        .output()
        .expect("strace is needed for this test (apt-get install strace)");
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        // Entries are looked at with `fstatat(..., AT_SYMLINK_NOFOLLOW)`; the C
        // library's own `fstat`s (of /etc/passwd, say) are not counted.
        .filter(|line| line.contains("AT_SYMLINK_NOFOLLOW"))
        .count()
}

#[test]
fn formats_without_metadata_take_no_stat() {
    let env = odd_tree();
    let files = split_records(&find(&env, &["t", "-type", "f", "-print0"]), 0).len();
    let base = stat_calls(&env, &["t", "-j", "1"]);
    for args in [
        &["--format", "{} {/} {//} {.} {/.} {type}"][..],
        &["--json"],
        &["--sort", "path"],
        &["--sort", "path", "--reverse", "--json"],
        &["--hyperlink", "always"],
        &["--color", "always", "--format", "{}"],
    ] {
        let calls = stat_calls(&env, &[&["t", "-j", "1"][..], args].concat());
        assert_eq!(calls, base, "{args:?} took a stat");
    }
    for args in [
        &["--format", "{size}"][..],
        &["--format", "{owner}"],
        &["--json", "-l"],
        &["--sort", "mtime"],
        &["-l"],
    ] {
        let calls = stat_calls(&env, &[&["t", "-j", "1"][..], args].concat());
        assert_eq!(calls, base + files, "{args:?} must stat each match once");
    }
}

#[test]
fn roots_given_as_files_in_every_format() {
    let env = odd_tree();
    let roots = ["t/plain.txt", "t/sub dir", "t/a.tar.gz"];
    let mut expected = split_records(&find(&env, &["t/sub dir", "-type", "f", "-print0"]), 0);
    expected.extend([b"t/plain.txt".to_vec(), b"t/a.tar.gz".to_vec()]);
    let mut sorted = expected.clone();
    sorted.sort();
    let args = [&roots[..], &["-0", "--sort", "path"]].concat();
    each_thread_count(&env, &args, |shown, out| {
        assert_eq!(split_records(out, 0), sorted, "{shown}");
    });
    let args = [&roots[..], &["--format", "{}\\0{size}", "-0"]].concat();
    each_thread_count(&env, &args, |shown, out| {
        let got: Vec<Vec<u8>> = grouped(out, 2)
            .into_iter()
            .map(|record| record.split(|&b| b == 0).next().unwrap().to_vec())
            .collect();
        assert_same_records(shown, &got, &expected);
        assert!(
            grouped(out, 2).contains(&b"t/a.tar.gz\x0084".to_vec()),
            "{shown}"
        );
    });
    let args = [&roots[..], &["--json"]].concat();
    each_thread_count(&env, &args, |shown, out| {
        let (decoded, ok) = pipe_through(&format!("python3 -c '{PY_DECODE}'"), out, &[]);
        assert!(ok, "{shown}");
        let got: Vec<Vec<u8>> = grouped(&decoded, 2)
            .into_iter()
            .map(|record| record.split(|&b| b == 0).next().unwrap().to_vec())
            .collect();
        assert_same_records(shown, &got, &expected);
    });
}

#[test]
fn max_results_bounds_every_format() {
    let env = odd_tree();
    let all = split_records(&find(&env, &["t", "-type", "f", "-print0"]), 0);
    for (args, terminator) in [
        (&["--json", "--max-results", "3"][..], b'\n'),
        (&["--format", "{}", "-0", "--max-results", "3"], 0),
        (&["--color", "always", "-0", "--max-results", "3"], 0),
        (&["--hyperlink", "always", "-0", "-1"], 0),
        (&["--json", "-l", "-1"], b'\n'),
    ] {
        let want = if args.contains(&"-1") { 1 } else { 3 };
        each_thread_count(&env, &[&["t"][..], args].concat(), |shown, out| {
            let records = split_records(out, terminator);
            assert_eq!(records.len(), want, "{shown}");
            if args.contains(&"--format") {
                for record in &records {
                    assert!(all.contains(record), "{shown}: {record:?}");
                }
            }
        });
    }
}

pub(crate) fn records(paths: &[&str]) -> Vec<Vec<u8>> {
    paths.iter().map(|p| p.as_bytes().to_vec()).collect()
}

#[test]
fn long_format_is_size_space_path() {
    let env = TestEnv::new(&["d"], &["empty"]);
    env.write("d/small", &[b'x'; 100]);
    env.write("d/big", &vec![b'x'; 1_500_000]);
    let want = [
        "                   0 empty",
        "                 100 d/small",
        "             1500000 d/big",
    ];
    env.assert_output(&["-l"], &want);
    env.assert_output(&["--long"], &want);
    env.assert_output(&["-l", "-S", "+1k"], &want[2..]);
    // -0 ends each record with NUL; the size column stays.
    env.assert_records(&["-l", "-0"], 0, &records(&want));
    env.assert_records(&["-0", "-l", "-n", "small"], 0, &records(&want[1..2]));
    // Issue 30: sizes for a person on request, in a column of their own width.
    let human = ["       0 B empty", "     100 B d/small", "   1.4 MiB d/big"];
    env.assert_output(&["-l", "--human-readable"], &human);
    env.assert_output(&["--human", "-l", "--sort", "size"], &human);
    env.assert_records(&["-l", "--human", "-0"], 0, &records(&human));
    // `cut -c12-` gives the paths back, as `cut -c22-` does for the byte column.
    let paths: Vec<&str> = human.iter().map(|line| &line[11..]).collect();
    assert_eq!(paths, ["empty", "d/small", "d/big"]);
    for args in [&["--human-readable"][..], &["-l", "--human", "--json"]] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn sum_size_prints_count_and_total() {
    let env = TestEnv::new(&["ckpt/old"], &[]);
    env.write("ckpt/a.pt", &vec![0; 1024 * 1024]);
    env.write("ckpt/old/b.ckpt", &vec![0; 512 * 1024]);
    env.write("ckpt/notes.txt", &[0; 10]);
    for (args, want) in [
        (
            &["-s", "-t", "checkpoints"][..],
            "2 matches, 1.5 MiB (1572864 bytes)",
        ),
        (&["--sum-size"], "3 matches, 1.5 MiB (1572874 bytes)"),
        (&["-s", "-e", "txt"], "1 match, 10 B (10 bytes)"),
        (&["-s", "-e", "none"], "0 matches, 0 B (0 bytes)"),
    ] {
        env.assert_output(args, &[want]);
    }
    for conflicting in [
        &["-s", "-c"][..],
        &["-s", "-l"],
        &["-s", "-0"],
        &["-c", "-l"],
    ] {
        let out = env.run(conflicting);
        assert_eq!(out.status.code(), Some(2), "{conflicting:?}");
    }
}

#[test]
fn max_results_prints_exactly_n_lines_and_exits_0() {
    let env = TestEnv::new(&[], &[]);
    for d in 0..40 {
        for f in 0..50 {
            env.write(format!("d{d:02}/f{f:03}"), b"");
        }
    }
    for (args, want) in [
        (&["--max-results", "7"][..], 7),
        (&["--max-results", "1"], 1),
        (&["-1"], 1),
        (&["--max-results", "100", "-t", "d"], 40),
        (&["--max-results", "5000"], 2000),
        (&["--max-results", "3", "-l"], 3),
        // The last of -1 and --max-results wins, as in fd.
        (&["-1", "--max-results", "3"], 3),
        (&["--max-results", "3", "-1"], 1),
    ] {
        // Repeated: a race between workers would show up as an extra line.
        for _ in 0..5 {
            for (lines, stderr, code) in run_all(&env, args) {
                assert_eq!(lines.len(), want, "{args:?}");
                let distinct: BTreeSet<_> = lines.iter().collect();
                assert_eq!(distinct.len(), want, "{args:?}: a line printed twice");
                assert_eq!((stderr.as_str(), code), ("", Some(0)), "{args:?}");
            }
        }
    }
    for (lines, _, code) in run_all(&env, &["-c", "--max-results", "10"]) {
        assert_eq!((lines, code), (vec![b"10".to_vec()], Some(0)));
    }
    // 0 is no limit, as in fd (issue 27).
    for (lines, _, code) in run_all(&env, &["-c", "--max-results=0"]) {
        assert_eq!((lines, code), (vec![b"2000".to_vec()], Some(0)));
    }
    for bad in [&["--max-results", "x"][..], &["--max-results", "-1"]] {
        assert_eq!(env.run(bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn max_results_counts_file_roots_too() {
    let env = TestEnv::new(&["d"], &["a", "b", "d/c"]);
    env.assert_output(&["a", "b", "d", "--max-results", "2"], &["a", "b"]);
    env.assert_output(&["a", "d", "--max-results", "2"], &["a", "d/c"]);
}

#[test]
fn absolute_paths_join_the_working_directory_once() {
    let env = TestEnv::new(&["dir/sub"], &["dir/f", "dir/sub/g", "top"]);
    let cwd = std::fs::canonicalize(env.root()).unwrap();
    let cwd = std::str::from_utf8(cwd.as_os_str().as_bytes())
        .unwrap()
        .to_string();
    let abs = |p: &str| format!("{cwd}/{p}");
    let all = [abs("dir/f"), abs("dir/sub/g"), abs("top")];
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    env.assert_output(&["-a"], &all);
    env.assert_output(&["-a", "."], &all); // no `/./`
    env.assert_output(&["--absolute-path", "./"], &all);
    let in_dir = [abs("dir/f"), abs("dir/sub/g")];
    let in_dir: Vec<&str> = in_dir.iter().map(String::as_str).collect();
    env.assert_output(&["-a", "dir"], &in_dir);
    env.assert_output(&["-a", "dir//"], &in_dir);
    env.assert_output(&["-a", "./dir/./"], &in_dir);
    env.assert_output(&["-a", &abs("dir")], &in_dir); // already absolute
    env.assert_output(&["-a", "top"], &[&abs("top")]); // a file root
    env.assert_output(&["-a", "dir/sub/..", "-d", "1"], &[&abs("dir/sub/../f")]);
    // A leading `..` is the working directory's parent (which has no link in it).
    env.assert_output(&["-C", "dir/sub", "-a", "..", "-d", "1"], &[&abs("dir/f")]);
    env.assert_output(
        &["-C", "dir/sub", "-a", "./../..", "-d", "1"],
        &[&abs("top")],
    );
    env.assert_output(&["-a", "-t", "d"], &[&abs("dir"), &abs("dir/sub")]);
}

#[test]
fn base_directory_runs_as_if_started_there() {
    let env = TestEnv::new(&["sub/dir", "other"], &["sub/dir/f", "sub/top", "other/g"]);
    env.assert_output(&["-C", "sub"], &["dir/f", "top"]);
    env.assert_output(&["--base-directory", "sub", "dir"], &["dir/f"]);
    env.assert_output(&["-C", "sub", ".", "-t", "d"], &["./dir"]);
    env.assert_output(&["-C", "sub/", "../other"], &["../other/g"]);
    let sub = env.root().join("sub");
    let absolute = |p: &str| sub.join(p).to_str().unwrap().to_string();
    env.assert_output(
        &["-C", "sub", "-a"],
        &[&absolute("dir/f"), &absolute("top")],
    );
    // --newer's FILE is found there too.
    env.write("sub/stamp", b"");
    let out = env.run(&["-C", "sub", "--newer", "stamp"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
    // A missing root is named as typed, relative to DIR.
    for (lines, stderr, code) in run_all(&env, &["-C", "sub", "dir", "nope"]) {
        assert_eq!(lines, records(&["dir/f"]));
        assert_eq!(
            stderr,
            "pfind: nope: No such file or directory (roots are directories to search; match \
             names with -n GLOB or -e EXT)\n"
        );
        assert_eq!(code, Some(1));
    }
    let out = env.run(&["-C", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: invalid value 'nowhere' for '--base-directory <DIR>': No such file or \
         directory\n\nFor more information, try '--help'.\n"
    );
    let out = env.run(&["-C", "sub/top"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Not a directory"));
}

#[test]
fn strip_cwd_prefix_drops_the_dot_slash_of_a_root() {
    let env = TestEnv::new(&["sub/dir"], &["sub/dir/f", "top"]);
    env.assert_output(&[".", "--strip-cwd-prefix"], &["sub/dir/f", "top"]);
    env.assert_output(
        &["./", "--strip-cwd-prefix", "-t", "d"],
        &["sub", "sub/dir"],
    );
    env.assert_output(&["./sub", "--strip-cwd-prefix"], &["sub/dir/f"]);
    env.assert_output(&[".//sub/", "--strip-cwd-prefix"], &["sub/dir/f"]);
    env.assert_output(&["./top", "--strip-cwd-prefix"], &["top"]); // a file root
    env.assert_output(&["sub", "--strip-cwd-prefix"], &["sub/dir/f"]);
    env.assert_output(&["--strip-cwd-prefix"], &["sub/dir/f", "top"]);
    // Without it, as typed; with -a, absolute either way.
    env.assert_output(&["."], &["./sub/dir/f", "./top"]);
    let top = env.root().join("top");
    env.assert_output(
        &["./top", "-a", "--strip-cwd-prefix"],
        &[top.to_str().unwrap()],
    );
    // Errors name the root as typed.
    for (_, stderr, code) in run_all(&env, &["./nope", "--strip-cwd-prefix"]) {
        assert_eq!(stderr, "pfind: ./nope: No such file or directory\n");
        assert_eq!(code, Some(1));
    }
}

/// A small tree with a bit of everything the default walk must handle.
pub(crate) fn mixed_tree() -> TestEnv {
    let env = TestEnv::new(
        &["a/b/c", "empty", ".hidden_dir", "photos"],
        &[
            "top.jpg",
            "top.txt",
            ".hidden.jpg",
            ".jpg",
            "a/one.JPG",
            "a/b/two.png",
            "a/b/c/three.jpeg",
            ".hidden_dir/inner.txt",
            "photos/IMG_0001.jpg",
            "photos/IMG_0002.png",
            "photos/notes.txt",
        ],
    );
    env.symlink("top.jpg", "link_to_file.jpg");
    env.symlink("a", "link_to_dir");
    env.symlink("missing", "dangling.jpg");
    env.mkfifo("a/fifo.jpg");
    env
}

#[test]
fn count_matches_the_printed_paths() {
    let env = mixed_tree();
    for (args, want) in [
        (&["-c"][..], "11\n"),
        (&["-c", "-e", "jpg"], "4\n"),
        (&["--count", "-n", "IMG_*"], "2\n"),
        (&["-c", "-E", "a"], "8\n"),
        (&["-c", "-S", "+1"], "0\n"),
        (&["-c", "-e", "gif"], "0\n"),
    ] {
        for threads in testenv::THREAD_COUNTS {
            let out = env.run(&[args, &["-j", threads]].concat());
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                want,
                "{args:?} -j {threads}"
            );
            assert!(out.status.success());
        }
    }
}

#[test]
fn print0_and_odd_names_round_trip_byte_exact() {
    let env = TestEnv::new(&[], &[]);
    let names: Vec<&[u8]> = vec![
        b"with space",
        b"new\nline",
        b"tab\there",
        b"-leading-dash",
        b"*?[]",
        b"bad\xff\xfeutf8",
        "ünïcödé".as_bytes(),
        b"back\\slash",
    ];
    for name in &names {
        std::fs::write(env.root().join(OsStr::from_bytes(name)), b"").unwrap();
    }
    let long = vec![b'n'; 255];
    std::fs::write(env.root().join(OsStr::from_bytes(&long)), b"").unwrap();
    let mut expected: Vec<Vec<u8>> = names.iter().map(|n| n.to_vec()).collect();
    expected.push(long);
    env.assert_records(&["-0"], 0, &expected);
    env.assert_records(&["--print0"], 0, &expected);
}

#[test]
fn closed_pipe_stops_quietly_with_status_0() {
    // Enough output to fill the pipe many times over, so pfind is certainly still
    // writing when the reader goes away.
    let env = TestEnv::for_big_tree();
    for d in 0..50 {
        for f in 0..400 {
            env.write(
                format!("directory_{d:03}/a_fairly_long_file_name_{f:05}.txt"),
                b"",
            );
        }
    }
    for threads in testenv::THREAD_COUNTS {
        let mut child = pfind_command(env.root(), &["-j", threads])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "-j {threads}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "-j {threads}");
    }
}

#[test]
fn writing_to_a_full_device_is_an_error() {
    let env = TestEnv::new(&[], &["a", "b"]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = pfind_command(env.root(), &["-j", "2"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: stdout: No space left on device\n"
    );
}

#[test]
fn records_are_never_split_between_workers() {
    // Many workers, many directories, long lines: every line must come out whole.
    let env = TestEnv::for_big_tree();
    let mut expected = Vec::new();
    for d in 0..64 {
        for f in 0..200 {
            let path = format!("d{d:02}/{}_{f:04}", "x".repeat(100));
            env.write(&path, b"");
            expected.push(path.into_bytes());
        }
    }
    let out = env.run(&["-j", "16"]);
    testenv::assert_same_records(
        "many workers",
        &split_records(&out.stdout, b'\n'),
        &expected,
    );
}

#[test]
fn path_separator_replaces_the_slash_in_printed_paths() {
    let env = tree();
    for stdout in outputs(&env, &[b"-e", b"txt", b"--path-separator", b"\\", b"-0"]) {
        let mut records = split_records(&stdout, 0);
        records.sort();
        let want: Vec<&[u8]> = vec![
            b"-d\\-n.txt",
            b"a\\drop.txt",
            b"a\\keep.txt",
            b"b\\x\xff.txt",
        ];
        assert_eq!(records, want);
    }
    for stdout in outputs(
        &env,
        &[b"a", b"-n", b"keep*", b"--path-separator", b"::", b"-l"],
    ) {
        assert_eq!(stdout, format!("{:>20} a::keep.txt\n", 5).as_bytes());
    }
    // Commands get the paths as they are, and their output is theirs.
    for stdout in outputs(
        &env,
        &[
            b"a",
            b"-n",
            b"keep*",
            b"--path-separator",
            b"-",
            b"--exec",
            b"cat",
        ],
    ) {
        assert_eq!(stdout, b"keep\n");
    }
    let out = env.run(&["--path-separator", ":", "--format", "{}"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `/` changes nothing, so it is taken with --format, --json and --hyperlink too, which
/// refuse any other separator (fd's own tests pass `--path-separator=/` with --format).
#[test]
fn path_separator_slash_is_taken_with_every_output() {
    let env = tree();
    for output in [
        &[b"--format", b"{//}|{/}".as_slice()][..],
        &[b"--json"],
        &[b"--hyperlink", b"always"],
    ] {
        let plain = [&[b"-e".as_slice(), b"txt"], output].concat();
        let with_slash = [&plain[..], &[b"--path-separator", b"/"]].concat();
        for (a, b) in outputs(&env, &plain).iter().zip(outputs(&env, &with_slash)) {
            assert_eq!(sorted_lines(a), sorted_lines(&b), "{output:?}");
        }
        let other = [&plain[..], &[b"--path-separator", b"\\"]].concat();
        let out = env.run(&os(&other));
        assert_eq!(out.status.code(), Some(2), "{other:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}

/// A directory on a file system whose files may be as large as a size can be
/// (2^63 - 1 bytes, sparse): tmpfs. `/dev/shm` if it is one, else a tmpfs mounted
/// for the test (as root). Removed, and unmounted first, when dropped.
struct HugeFileDir {
    // Dropped in this order: unmounted before the temporary directory is removed.
    _mounted: Option<Mounted>,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

/// A [`HugeFileDir`], or why there can be none here (printed by the caller).
fn huge_file_dir() -> Result<HugeFileDir, String> {
    let fits = |dir: &Path| {
        let probe = dir.join("probe");
        let fits = std::fs::File::create(&probe).is_ok_and(|f| f.set_len(i64::MAX as u64).is_ok());
        let _ = std::fs::remove_file(&probe);
        fits
    };
    if let Ok(dir) = tempfile::tempdir_in("/dev/shm") {
        if fits(dir.path()) {
            return Ok(HugeFileDir {
                _mounted: None,
                path: dir.path().to_path_buf(),
                _dir: dir,
            });
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tmpfs");
    std::fs::create_dir(&path).unwrap();
    let mounted = mount(Path::new("tmpfs"), &path, "tmpfs", 0)?;
    if !fits(&path) {
        return Err("a tmpfs refused a file of 2^63 - 1 bytes".to_string());
    }
    Ok(HugeFileDir {
        _mounted: Some(mounted),
        path,
        _dir: dir,
    })
}

/// Issue 20, defect 3: `-s` added sizes in 64 bits, so two files of 2^63 - 1 bytes
/// and one of 2 printed `3 matches, 0 B (0 bytes)`. The total is exact at any size.
#[test]
fn sum_size_is_exact_beyond_64_bits() {
    let dir = match huge_file_dir() {
        Ok(dir) => dir,
        Err(reason) => {
            eprintln!("SKIPPED sum_size_is_exact_beyond_64_bits: {reason}");
            return;
        }
    };
    for name in ["a", "b"] {
        let file = std::fs::File::create(dir.path.join(name)).unwrap();
        file.set_len(i64::MAX as u64).unwrap();
    }
    std::fs::write(dir.path.join("c"), b"xx").unwrap();
    for threads in THREAD_COUNTS {
        let out = pfind_command(&dir.path, &["-s", "-j", threads])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "3 matches, 16.0 EiB (18446744073709551616 bytes)\n",
            "-j {threads}"
        );
        assert_eq!(out.status.code(), Some(0));
    }
}

/// Issue 20, defect 4: the `-l` column was 12 wide, so a size of 1 TB or more pushed
/// the path right and `cut -c14-` cut into it. The column is now as wide as the
/// largest size can be written (20 digits), so `cut -c22-` gives every path back.
#[test]
fn long_output_keeps_its_column_for_any_size() {
    let dir = match huge_file_dir() {
        Ok(dir) => dir,
        Err(reason) => {
            eprintln!("SKIPPED long_output_keeps_its_column_for_any_size: {reason}");
            return;
        }
    };
    let sizes = [0, 7, 999_999_999_999, 1_000_000_000_000, i64::MAX as u64];
    let mut expected = Vec::new();
    for (n, size) in sizes.iter().enumerate() {
        let name = format!("file {n}");
        let file = std::fs::File::create(dir.path.join(&name)).unwrap();
        file.set_len(*size).unwrap();
        expected.push(name.into_bytes());
    }
    for threads in THREAD_COUNTS {
        let out = pfind_command(&dir.path, &["-l", "-j", threads])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let lines = split_records(&out.stdout, b'\n');
        let cut: Vec<Vec<u8>> = lines.iter().map(|line| line[21..].to_vec()).collect();
        assert_same_records(&format!("cut -c22-, -j {threads}"), &cut, &expected);
        for line in &lines {
            let (column, _) = line.split_at(21);
            let size: u64 = String::from_utf8_lossy(column).trim().parse().unwrap();
            assert!(sizes.contains(&size), "{line:?}");
            assert_eq!(column[20], b' ');
        }
    }
}

/// Issue 20, defect 7: `-a` read the working directory before looking at the roots,
/// so with the working directory removed even `pfind /abs/dir -a` failed. Only a
/// relative root needs it: absolute roots are walked, a relative one is reported.
#[test]
fn absolute_paths_need_the_working_directory_only_for_relative_roots() {
    let env = TestEnv::new(&["tree/sub"], &["tree/f", "tree/sub/g"]);
    let tree = env.root().join("tree");
    let tree = tree.to_str().unwrap();
    let run_in_removed_dir = |args: &[&str]| {
        Command::new("sh")
            .current_dir(env.root())
            .args([
                "-c",
                "mkdir gone && cd gone && rmdir ../gone && exec \"$0\" \"$@\"",
            ])
            .arg(env!("CARGO_BIN_EXE_pfind"))
            .args(args)
            .output()
            .unwrap()
    };
    let absolute = [format!("{tree}/f"), format!("{tree}/sub/g")];
    for threads in THREAD_COUNTS {
        let out = run_in_removed_dir(&[tree, "-a", "-j", threads]);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "-j {threads}");
        assert_eq!(out.status.code(), Some(0));
        let want: Vec<Vec<u8>> = absolute.iter().map(|p| p.as_bytes().to_vec()).collect();
        assert_same_records("absolute root", &split_records(&out.stdout, b'\n'), &want);
        // A relative root cannot be made absolute: reported, and the others walked.
        let out = run_in_removed_dir(&["relative", tree, "-a", "-j", threads]);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "pfind: relative: cannot read the working directory: No such file or directory\n"
        );
        assert_eq!(out.status.code(), Some(1));
        assert_same_records("mixed roots", &split_records(&out.stdout, b'\n'), &want);
    }
    let out = run_in_removed_dir(&["-a"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pfind: .: cannot read the working directory: No such file or directory\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}
