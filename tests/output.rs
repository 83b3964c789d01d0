//! The output options of issue 13 (`--format`, `--json`, `--sort`/`--reverse`, `-q`,
//! `--color`, `--hyperlink`, `--generate`), through the real binary at 1, 2 and 16
//! threads, on a tree of odd names (newline, invalid UTF-8, quotes, backslashes,
//! control bytes and escape sequences), each against an independent oracle: GNU
//! `find -printf`, `LC_ALL=C sort`, `jq` and Python's `json`, the shells' own syntax
//! checks and `man`.

mod testenv;

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};
use testenv::{assert_same_records, pfind_command, split_records, TestEnv, THREAD_COUNTS};

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

use std::os::unix::ffi::OsStringExt;

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
fn pipe_through(command: &str, input: &[u8], env_vars: &[(&str, &str)]) -> (Vec<u8>, bool) {
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
        // PATTERN DIR, refused: tests/hints.rs.)
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

#[test]
fn generated_completions_pass_their_shells_syntax_check() {
    for (what, shell) in [("bash", "bash"), ("zsh", "zsh"), ("fish", "fish")] {
        let out = pfind_command(Path::new("."), &["--generate", what])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{what}");
        assert!(
            out.stdout.len() > 1000,
            "{what}: {} bytes",
            out.stdout.len()
        );
        let (_, ok) = pipe_through(&format!("{shell} -n"), &out.stdout, &[]);
        assert!(
            ok,
            "{shell} -n rejects the {what} completions (is {shell} installed?)"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        for option in ["--max-results", "--json", "--sort", "--hyperlink"] {
            assert!(
                text.contains(option.trim_start_matches('-')),
                "{what}: {option}"
            );
        }
    }
}

/// The zsh half of [`completions_offer_closed_value_sets_in_each_shell`]: zsh
/// completes only inside its line editor, so this runs an interactive `zsh -f` in a
/// pseudo-terminal (`zpty`), with `compinit` and the generated `_pfind` on `fpath`,
/// types `$2` and a Tab, and prints each candidate the completion system adds (a
/// wrapper around `compadd`), one per line.
const ZSH_CAPTURE: &str = r#"
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd () { local -a __hits; builtin compadd -O __hits "$@"; (( $#__hits )) && print -rl -- "<hit>"${^__hits}; builtin compadd "$@" }'
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no"
zpty -w z 'bindkey "^I" complete-word; print -r -- "<ready>"'
zpty -r z line '*<ready>*'
zpty -n -w z "$2"$'\t'
zpty -w z $'\C-u print -r -- "<done>"'
out=
while zpty -r z line; do out+=$line; [[ $line == *'<done>'* ]] && break; done
print -r -- "$out" | tr -d '\r' | grep -o '<hit>[^<]*' | sed 's/<hit>//'
zpty -d z
"#;

/// The bash half: the generated function, called as bash's completion calls it
/// for the line `$1`, prints what it offers.
const BASH_CAPTURE: &str = r#"
source ./pfind.bash
line=$1
read -ra words <<< "$line"
[[ $line == *" " ]] && words+=("")
COMP_WORDS=("${words[@]}"); COMP_CWORD=$(( ${#words[@]} - 1 ))
COMP_LINE=$line; COMP_POINT=${#line}; COMPREPLY=()
_pfind pfind "${words[-1]}" "${words[-2]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;

/// Issue 30: `-t <Tab>` completed file names in bash and zsh and nothing in fish.
/// Each shell now offers the closed sets of values (`-t`'s kinds and families,
/// `--sort`, `--color`, `--hyperlink`, `--generate`), checked by running the shell
/// itself on the script pfind generates, in a directory whose file names must not
/// be offered.
#[test]
fn completions_offer_closed_value_sets_in_each_shell() {
    let env = TestEnv::new(&["zsh"], &["decoy_file"]);
    for (what, file) in [
        ("bash", "pfind.bash"),
        ("zsh", "zsh/_pfind"),
        ("fish", "pfind.fish"),
    ] {
        let out = pfind_command(env.root(), &["--generate", what])
            .output()
            .unwrap();
        env.write(file, &out.stdout);
    }
    env.write("capture.zsh", ZSH_CAPTURE.as_bytes());
    env.write("capture.bash", BASH_CAPTURE.as_bytes());
    // zsh is driven through a pseudo-terminal: on a loaded machine the keys typed
    // after the Tab can reach zsh before its completion has run, and zle then
    // drops the completion. An empty answer is asked again (up to 5 times); a
    // wrong one is not.
    let offered_once = |shell: &str, line: &str| -> Vec<String> {
        let mut command = Command::new("timeout");
        command.arg("120").current_dir(env.root());
        match shell {
            "bash" => command.args(["bash", "capture.bash", line]),
            "zsh" => command.args(["zsh", "-f", "capture.zsh", "zsh", line]),
            _ => command.args([
                "fish",
                "--no-config",
                "-c",
                "source pfind.fish; complete -C $argv[1]",
                line,
            ]),
        };
        let out = command
            .output()
            .unwrap_or_else(|err| panic!("{shell}: {err}"));
        assert!(out.status.success(), "{shell} {line:?}: {out:?}");
        let mut words: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            // fish prints each value's description after a tab.
            .map(|line| line.split('\t').next().unwrap().to_string())
            .filter(|word| !word.is_empty())
            .collect();
        words.sort();
        words.dedup();
        words
    };
    let offered = |shell: &str, line: &str| -> Vec<String> {
        let tries = if shell == "zsh" { 5 } else { 1 };
        let mut words = Vec::new();
        for _ in 0..tries {
            words = offered_once(shell, line);
            if !words.is_empty() {
                break;
            }
        }
        words
    };
    let sorted = |words: &[&str]| {
        let mut words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        words.sort();
        words
    };
    for shell in ["bash", "zsh", "fish"] {
        let types = offered(shell, "pfind -t ");
        for word in [
            "f",
            "d",
            "l",
            "any",
            "symlink",
            "executable",
            "images",
            "logs",
        ] {
            assert!(
                types.contains(&word.to_string()),
                "{shell}: -t lacks {word}: {types:?}"
            );
        }
        assert!(
            !types.iter().any(|w| w.contains("decoy")),
            "{shell}: {types:?}"
        );
        assert_eq!(offered(shell, "pfind -t sy"), ["symlink"], "{shell}");
        assert_eq!(
            offered(shell, "pfind --sort "),
            sorted(&["path", "size", "mtime"]),
            "{shell}"
        );
        for option in ["--color", "--hyperlink"] {
            let line = format!("pfind {option} ");
            assert_eq!(
                offered(shell, &line),
                sorted(&["auto", "always", "never"]),
                "{shell}"
            );
        }
        let generate = offered(shell, "pfind --generate ");
        assert_eq!(generate, sorted(&["bash", "zsh", "fish", "man"]), "{shell}");
    }
}

/// Issue 30: the manual page of a `cargo install` user is found with no setup
/// when it is put in `~/.cargo/share/man/man1`: man-db looks in `../share/man`
/// beside each directory on `PATH`, and `~/.cargo/bin` is one.
#[test]
fn the_manual_page_beside_cargos_bin_is_found_by_man() {
    let env = TestEnv::new(&[".cargo/bin", ".cargo/share/man/man1"], &[]);
    let page = pfind_command(env.root(), &["--generate", "man"])
        .output()
        .unwrap();
    env.write(".cargo/share/man/man1/pfind.1", &page.stdout);
    std::fs::copy(
        env!("CARGO_BIN_EXE_pfind"),
        env.root().join(".cargo/bin/pfind"),
    )
    .unwrap();
    let path = format!("{}/.cargo/bin:/usr/bin:/bin", env.root().display());
    let out = Command::new("man")
        .args(["-w", "pfind"])
        .env_remove("MANPATH")
        .env("PATH", path)
        .env("HOME", env.root())
        .output()
        .expect("man (man-db) is needed for this test");
    let found = String::from_utf8_lossy(&out.stdout);
    let want = env.root().join(".cargo/share/man/man1/pfind.1");
    assert_eq!(found.trim_end(), want.to_str().unwrap(), "{out:?}");
}

#[test]
fn man_page_renders_without_warnings() {
    let out = pfind_command(Path::new("."), &["--generate", "man"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = out.stdout;
    let (warnings, ok) = pipe_through(
        "man --warnings -l - 2>&1 >/dev/null",
        &page,
        &[("MANWIDTH", "80")],
    );
    assert!(ok, "man failed (is man-db installed?)");
    assert_eq!(String::from_utf8_lossy(&warnings), "", "man warnings");
    let (rendered, ok) = pipe_through("man -l - | col -b", &page, &[("MANWIDTH", "80")]);
    assert!(ok);
    let rendered = String::from_utf8(rendered).unwrap();
    for wanted in [
        "NAME",
        "SYNOPSIS",
        "--max-results",
        "--format",
        "--generate",
        "checkpoints",
        // The full text of each option, as --help has it, not -h's summary.
        "comma-separated",
        "(AND)",
    ] {
        assert!(rendered.contains(wanted), "man page lacks {wanted}");
    }
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
