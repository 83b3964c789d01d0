//! The C library's user and group database, as pfind uses it: ids by name for
//! `--owner`, names by id for `{owner}` and `{group}`, and, in a static binary, the
//! `getent` fallback that keeps network users known.
//!
//! One module, because the two halves are one rule: where the C library can ask
//! every name service (a dynamically linked binary), it alone answers; where it can
//! read only the local files (a statically linked glibc binary, the Linux x86_64
//! install), what those files lack is asked of `getent`, which can.
//!
//! A statically linked glibc cannot load the name-service modules that
//! `nsswitch.conf` may list besides `files` (`systemd`, `sss`, `ldap`): glibc tries
//! to, bringing in a second copy of itself, and the process crashes (seen here: a
//! segfault for any name or id not in `/etc/passwd`, with `passwd: files systemd`).
//! Such a binary therefore tells glibc to use `files` alone ([`local_files_only`]),
//! and a name or id those files lack is looked up by running `getent passwd KEY` or
//! `getent group KEY` ([`Getent`]): a child process, dynamically linked, that asks
//! every service as `ls -l` would. It runs only on such a miss, once per distinct
//! name or id in a run (its answers, "none" included, are kept for the process);
//! no `getent`, or a `getent` that fails, means not found, as the files alone would
//! say. A dynamically linked binary never runs it.
//!
//! What it runs and believes is bounded (issue 47): only the system's own `getent`
//! at a fixed path ([`GETENT_PATHS`], owned by root and writable by nobody else),
//! never the first on `PATH`, which whoever sets the environment chooses; each run
//! is given [`GETENT_LIMIT`] to answer and [`MOST_OUTPUT`] bytes, then killed (one
//! that never answered stopped the whole walk, one that never ended ran pfind out
//! of memory); after one run out of time, no other is started. A worker waits only
//! for the key it needs: the lock is not held while `getent` runs, so lookups of
//! other keys, and the rest of the walk, go on.

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, CStr, CString, OsString};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Condvar, LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Where the system's `getent` is, first found first: glibc installs it in
/// `/usr/bin` (`/bin` on systems without merged `/usr`).
pub const GETENT_PATHS: [&str; 2] = ["/usr/bin/getent", "/bin/getent"];

/// How long one `getent` run may take: a name service that answers at all does
/// within a second or two (an LDAP or sssd lookup on a cold cache); one that does
/// not may never.
pub const GETENT_LIMIT: Duration = Duration::from_secs(5);

/// The most output read from one `getent` run: one entry's line, with room for
/// a group with many members.
const MOST_OUTPUT: usize = 1 << 20;

/// The uid of the user `name`, through `getpwnam_r` (and `getent` when static).
pub fn user_id(name: &str) -> io::Result<Option<u32>> {
    let c_name = c_name(name)?;
    let found = lookup(c_name.as_ptr(), libc::getpwnam_r, |entry| {
        Some(entry.pw_uid)
    })?;
    Ok(found.or_else(|| by_getent(Database::Passwd, Key::Name(name.into())).map(|e| e.id)))
}

/// The gid of the group `name`, through `getgrnam_r` (and `getent` when static).
pub fn group_id(name: &str) -> io::Result<Option<u32>> {
    let c_name = c_name(name)?;
    let found = lookup(c_name.as_ptr(), libc::getgrnam_r, |entry| {
        Some(entry.gr_gid)
    })?;
    Ok(found.or_else(|| by_getent(Database::Group, Key::Name(name.into())).map(|e| e.id)))
}

/// The name of user `uid`, through `getpwuid_r` (and `getent` when static); `None`
/// if it has none.
pub fn user_name(uid: u32) -> io::Result<Option<Box<[u8]>>> {
    // SAFETY: `lookup` calls this only on the entry just found, while the buffer its
    // strings point into is alive.
    let found = lookup(uid, libc::getpwuid_r, |entry| unsafe {
        owned(entry.pw_name)
    })?;
    Ok(found.or_else(|| by_getent(Database::Passwd, Key::Id(uid)).map(|e| e.name)))
}

/// The name of group `gid`, through `getgrgid_r` (and `getent` when static); `None`
/// if it has none.
pub fn group_name(gid: u32) -> io::Result<Option<Box<[u8]>>> {
    // SAFETY: as in `user_name`.
    let found = lookup(gid, libc::getgrgid_r, |entry| unsafe {
        owned(entry.gr_name)
    })?;
    Ok(found.or_else(|| by_getent(Database::Group, Key::Id(gid)).map(|e| e.name)))
}

/// What `getent` says of `key` after the local files had no entry for it, when the
/// C library reads only those (a static binary); `None` otherwise.
fn by_getent(database: Database, key: Key) -> Option<Entry> {
    static GETENT: LazyLock<Option<Getent>> = LazyLock::new(|| {
        let program = trusted_program(&GETENT_PATHS.map(Path::new))?;
        Some(Getent::new([program], GETENT_LIMIT))
    });
    if !local_files_only() {
        return None;
    }
    GETENT.as_ref()?.find(database, key)
}

/// The first of `candidates` that is a program only root can have put there: a
/// regular, executable file owned by root and writable by no one else.
fn trusted_program(candidates: &[&Path]) -> Option<PathBuf> {
    candidates.iter().find_map(|path| {
        let meta = std::fs::metadata(path).ok()?;
        let mode = meta.permissions().mode();
        let trusted = meta.is_file() && meta.uid() == 0 && mode & 0o022 == 0 && mode & 0o111 != 0;
        trusted.then(|| path.to_path_buf())
    })
}

/// The two databases `getent` is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Database {
    Passwd,
    Group,
}

impl Database {
    fn word(self) -> &'static str {
        match self {
            Database::Passwd => "passwd",
            Database::Group => "group",
        }
    }

    /// How many `:`-separated fields a line of it has: `name:password:uid:gid:gecos:
    /// home:shell`, or `name:password:gid:members`.
    fn fields(self) -> usize {
        match self {
            Database::Passwd => 7,
            Database::Group => 4,
        }
    }
}

/// What is looked up: a name, or an id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Name(Box<str>),
    Id(u32),
}

/// A user or group as `getent` prints it: its name and its uid or gid.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    name: Box<[u8]>,
    id: u32,
}

/// `getent`, run as `COMMAND DATABASE -- KEY`, with every answer kept (see the
/// module comment); `command` is the program and any first arguments (tests give a
/// shell and a script).
struct Getent {
    command: Vec<OsString>,
    /// How long one run may take.
    limit: Duration,
    answers: Mutex<Answers>,
    /// Signalled whenever a run ends, for those waiting on its key.
    answered: Condvar,
}

/// What `getent` said so far.
#[derive(Default)]
struct Answers {
    known: HashMap<(Database, Key), Option<Entry>>,
    /// Keys a run is under way for.
    asking: HashSet<(Database, Key)>,
    /// A run took longer than the limit: the service is not answering, and no
    /// other run is started (each would wait as long).
    gave_up: bool,
}

/// How one run ended.
#[derive(Debug, PartialEq, Eq)]
enum Ran {
    /// It exited: with success and this output, or not.
    Exited { success: bool, output: Vec<u8> },
    /// Killed: out of time.
    TimedOut,
    /// Killed: more output than any entry.
    TooLong,
    /// It could not be started or read.
    Failed,
}

impl Getent {
    fn new<S: Into<OsString>>(command: impl IntoIterator<Item = S>, limit: Duration) -> Getent {
        Getent {
            command: command.into_iter().map(Into::into).collect(),
            limit,
            answers: Mutex::new(Answers::default()),
            answered: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Answers> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The entry for `key`, asking `getent` the first time only. A worker that
    /// needs a key being asked about waits for that answer; no lock is held while
    /// `getent` runs, so other keys are looked up meanwhile.
    fn find(&self, database: Database, key: Key) -> Option<Entry> {
        let asked = (database, key);
        let mut answers = self.lock();
        loop {
            if let Some(known) = answers.known.get(&asked) {
                return known.clone();
            }
            if answers.gave_up {
                return None;
            }
            if !answers.asking.contains(&asked) {
                break;
            }
            answers = (self.answered.wait(answers)).unwrap_or_else(PoisonError::into_inner);
        }
        answers.asking.insert(asked.clone());
        drop(answers);
        let ran = self.run(database, &asked.1);
        let entry = match &ran {
            Ran::Exited {
                success: true,
                output,
            } => entry_for(database, &asked.1, output),
            _ => None,
        };
        let mut answers = self.lock();
        answers.asking.remove(&asked);
        answers.gave_up |= ran == Ran::TimedOut;
        answers.known.insert(asked, entry.clone());
        self.answered.notify_all();
        entry
    }

    /// Runs the command once for `key`, within the limit of time and output.
    fn run(&self, database: Database, key: &Key) -> Ran {
        let Some((program, arguments)) = self.command.split_first() else {
            return Ran::Failed;
        };
        let key_text = match key {
            Key::Name(name) => name.to_string(),
            Key::Id(id) => id.to_string(),
        };
        let spawned = Command::new(program)
            .args(arguments)
            .args([database.word(), "--", &key_text])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Its own group, so that whatever it starts is killed with it.
            .process_group(0)
            .spawn();
        let Ok(mut child) = spawned else {
            return Ran::Failed;
        };
        let deadline = Instant::now() + self.limit;
        let read = child.stdout.take().map(|out| read_within(out, deadline));
        let ran = match read {
            Some(Ok(output)) => match wait_within(&mut child, deadline) {
                Some(success) => Ran::Exited { success, output },
                None => Ran::TimedOut,
            },
            Some(Err(ended)) => ended,
            None => Ran::Failed,
        };
        if !matches!(ran, Ran::Exited { .. }) {
            kill(&mut child);
        }
        ran
    }
}

/// All that `out` gives until its end, within `deadline` and [`MOST_OUTPUT`].
fn read_within(mut out: std::process::ChildStdout, deadline: Instant) -> Result<Vec<u8>, Ran> {
    let mut output = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Ran::TimedOut);
        }
        let mut ready = libc::pollfd {
            fd: out.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: one live pollfd, and its count.
        let rc = unsafe { libc::poll(&mut ready, 1, millis) };
        if rc < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Err(Ran::Failed);
        }
        if rc <= 0 {
            continue;
        }
        match out.read(&mut buffer) {
            Ok(0) => return Ok(output),
            Ok(n) if output.len() + n > MOST_OUTPUT => return Err(Ran::TooLong),
            Ok(n) => output.extend_from_slice(&buffer[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(Ran::Failed),
        }
    }
}

/// Whether `child` exited with success, once it has; `None` if it has not by
/// `deadline` (it closed its output but goes on).
fn wait_within(child: &mut Child, deadline: Instant) -> Option<bool> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.success()),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => return None,
        }
    }
}

/// Kills `child` and what it started (its process group), and reaps it.
fn kill(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: a signal to the group the child leads (`process_group(0)`),
        // which it cannot have left before it was reaped, below.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The entry `output` (a run's output) gives for `key`: its first line, if that
/// is the entry asked for (the name or the id matches).
fn entry_for(database: Database, key: &Key, output: &[u8]) -> Option<Entry> {
    let line = output.split(|&b| b == b'\n').next()?;
    let entry = parse_entry(database, line)?;
    let answers = match key {
        Key::Name(name) => *entry.name == *name.as_bytes(),
        Key::Id(id) => entry.id == *id,
    };
    answers.then_some(entry)
}

/// One line of `getent passwd` or `getent group` (without its newline): the name
/// and the id, or `None` if it is not such a line.
fn parse_entry(database: Database, line: &[u8]) -> Option<Entry> {
    let fields: Vec<&[u8]> = line.split(|&b| b == b':').collect();
    let [name, _password, id, ..] = fields[..] else {
        return None;
    };
    if fields.len() != database.fields() || name.is_empty() {
        return None;
    }
    if id.is_empty() || !id.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let id = std::str::from_utf8(id).ok()?.parse().ok()?;
    Some(Entry {
        name: name.into(),
        id,
    })
}

/// True in a static binary, whose glibc is then told to read the local files alone
/// for users and groups (see the module comment). Called before any lookup, by name
/// or by id; the work is done once.
fn local_files_only() -> bool {
    static STATIC: LazyLock<bool> = LazyLock::new(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            extern "C" {
                // glibc's <nss.h>.
                fn __nss_configure_lookup(
                    database: *const c_char,
                    service: *const c_char,
                ) -> libc::c_int;
            }
            // SAFETY: `getauxval` only reads the auxiliary vector. `AT_BASE` is where
            // the dynamic loader was mapped, 0 when there is none: a static binary.
            let is_static = unsafe { libc::getauxval(libc::AT_BASE) } == 0;
            if is_static {
                for database in [c"passwd", c"group"] {
                    // SAFETY: both are NUL-terminated strings that glibc copies; this
                    // runs once, before any lookup (every lookup calls this function
                    // first, and a thread that does so meanwhile waits for it).
                    unsafe { __nss_configure_lookup(database.as_ptr(), c"files".as_ptr()) };
                }
            }
            is_static
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        false
    });
    *STATIC
}

fn c_name(name: &str) -> io::Result<CString> {
    CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// A copy of the C string `name`, or `None` for a null pointer.
///
/// # Safety
/// `name` is null or points to a NUL-terminated string that is alive for the call.
unsafe fn owned(name: *const c_char) -> Option<Box<[u8]>> {
    // SAFETY: as the caller promises.
    (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_bytes().into())
}

/// The signature the four `get{pw,gr}{nam,uid,gid}_r` calls share: key `K` (a name or
/// an id), entry type `E` (`passwd` or `group`).
type Reentrant<K, E> =
    unsafe extern "C" fn(K, *mut E, *mut c_char, libc::size_t, *mut *mut E) -> libc::c_int;

/// Runs one of those calls for `key`, growing its buffer while it says `ERANGE`, and
/// returns what `read` takes from the entry found. The entry's strings point into
/// the buffer, so `read` must copy what it keeps.
fn lookup<K: Copy, E, T>(
    key: K,
    call: Reentrant<K, E>,
    read: impl Fn(&E) -> Option<T>,
) -> io::Result<Option<T>> {
    local_files_only();
    let mut buffer = vec![0u8; 1024];
    loop {
        // SAFETY: `passwd` and `group` are plain C structs of integers and pointers,
        // for which all zeroes is a valid value; the call fills them in.
        let mut entry: E = unsafe { std::mem::zeroed() };
        let mut found: *mut E = std::ptr::null_mut();
        // SAFETY: `key` is an id or a NUL-terminated name the caller keeps alive,
        // `entry` and `found` are live, and the pointer and length describe `buffer`,
        // which outlives the call and the `read` below.
        let rc = unsafe {
            call(
                key,
                &mut entry,
                buffer.as_mut_ptr().cast::<c_char>(),
                buffer.len(),
                &mut found,
            )
        };
        match rc {
            0 if found.is_null() => return Ok(None),
            0 => return Ok(read(&entry)),
            libc::ERANGE if buffer.len() < 1 << 20 => buffer.resize(buffer.len() * 2, 0),
            // "Not found" may also come back as one of these, depending on the
            // name service; it is reported as not found, not as a failure.
            libc::ENOENT | libc::ESRCH | libc::EBADF | libc::EPERM => return Ok(None),
            rc => return Err(io::Error::from_raw_os_error(rc)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_system_databases_know_root() {
        // Every Unix system has root, uid and gid 0, in its local files.
        assert_eq!(user_id("root").unwrap(), Some(0));
        assert_eq!(group_id("root").unwrap(), Some(0));
        assert_eq!(user_id("no such user, surely").unwrap(), None);
        assert_eq!(group_id("no such group, surely").unwrap(), None);
        assert_eq!(user_name(0).unwrap().as_deref(), Some(&b"root"[..]));
        assert_eq!(group_name(0).unwrap().as_deref(), Some(&b"root"[..]));
    }

    #[test]
    fn a_dynamic_binary_never_runs_getent() {
        // The test binary is linked dynamically: the C library asks every service.
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        assert!(!local_files_only());
        assert_eq!(by_getent(Database::Passwd, Key::Id(0)), None);
    }

    fn entry(name: &str, id: u32) -> Option<Entry> {
        Some(Entry {
            name: name.as_bytes().into(),
            id,
        })
    }

    #[test]
    fn getent_lines_give_the_name_and_the_id() {
        let passwd = |line: &str| parse_entry(Database::Passwd, line.as_bytes());
        let group = |line: &str| parse_entry(Database::Group, line.as_bytes());
        assert_eq!(passwd("root:x:0:0:root:/root:/bin/bash"), entry("root", 0));
        // sssd and LDAP users: `*` as the password, empty gecos, big ids.
        assert_eq!(
            passwd("jdoe:*:1234567:100::/home/jdoe:/bin/zsh"),
            entry("jdoe", 1234567)
        );
        assert_eq!(
            passwd("a.b-c_d$:x:4294967294:1:A B, C:/:/bin/sh"),
            entry("a.b-c_d$", 4294967294)
        );
        assert_eq!(group("root:x:0:"), entry("root", 0));
        assert_eq!(
            group("hpc-users:*:50001:alice,bob"),
            entry("hpc-users", 50001)
        );
        for bad in [
            "",
            "root",
            "root:x:0:0:root:/root",               // a field short
            "root:x:0:0:root:/root:/bin/sh:extra", // one too many
            ":x:0:0:root:/root:/bin/bash",         // no name
            "root:x::0:root:/root:/bin/bash",      // no id
            "root:x:-1:0:root:/root:/bin/bash",    // not a number
            "root:x:+1:0:root:/root:/bin/bash",
            "root:x:4294967296:0:root:/root:/bin/bash", // beyond u32
        ] {
            assert_eq!(passwd(bad), None, "{bad:?}");
        }
        // A group line is not a passwd line, nor the other way round.
        assert_eq!(passwd("root:x:0:"), None);
        assert_eq!(group("root:x:0:0:root:/root:/bin/bash"), None);
    }

    /// A stand-in `getent`, run as `sh SCRIPT`: it appends its arguments to a log
    /// beside the script, then runs `body`.
    fn fake_getent(dir: &Path, body: &str) -> Getent {
        let script = dir.join("getent.sh");
        let log = dir.join("calls");
        std::fs::write(
            &script,
            format!("printf '%s\\n' \"$*\" >> '{}'\n{body}\n", log.display()),
        )
        .unwrap();
        let command = [OsString::from("sh"), script.into_os_string()];
        Getent::new(command, Duration::from_secs(60))
    }

    fn calls(dir: &Path) -> Vec<String> {
        std::fs::read_to_string(dir.join("calls"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn the_fallback_asks_getent_once_per_key_and_reads_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let getent = fake_getent(
            dir.path(),
            r#"case "$1 $3" in
  "passwd 4242"|"passwd jdoe") echo 'jdoe:*:4242:100:J. Doe:/home/jdoe:/bin/bash' ;;
  "group 50001"|"group hpc") echo 'hpc:*:50001:jdoe,alice' ;;
  *) exit 2 ;;
esac"#,
        );
        let jdoe = entry("jdoe", 4242);
        for _ in 0..3 {
            assert_eq!(getent.find(Database::Passwd, Key::Id(4242)), jdoe);
            assert_eq!(
                getent.find(Database::Passwd, Key::Name("jdoe".into())),
                jdoe
            );
            assert_eq!(
                getent.find(Database::Group, Key::Id(50001)),
                entry("hpc", 50001)
            );
            assert_eq!(
                getent.find(Database::Group, Key::Name("hpc".into())),
                entry("hpc", 50001)
            );
            // Not found (exit 2) is kept too: asked once.
            assert_eq!(getent.find(Database::Passwd, Key::Id(7)), None);
            assert_eq!(getent.find(Database::Group, Key::Name("-x".into())), None);
        }
        assert_eq!(
            calls(dir.path()),
            [
                "passwd -- 4242",
                "passwd -- jdoe",
                "group -- 50001",
                "group -- hpc",
                "passwd -- 7",
                "group -- -x",
            ]
        );
    }

    #[test]
    fn a_failing_missing_or_wrong_getent_finds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        // A line, but a failure status.
        let failing = fake_getent(dir.path(), "echo 'jdoe:*:4242:100::/:/bin/sh'; exit 1");
        assert_eq!(failing.find(Database::Passwd, Key::Id(4242)), None);
        // Success, but the line is of another user, or not a passwd line.
        let other = fake_getent(dir.path(), "echo 'root:x:0:0:root:/root:/bin/bash'");
        assert_eq!(other.find(Database::Passwd, Key::Id(4242)), None);
        assert_eq!(other.find(Database::Passwd, Key::Name("jdoe".into())), None);
        let garbage = fake_getent(dir.path(), "echo 'no such database'");
        assert_eq!(garbage.find(Database::Passwd, Key::Id(4242)), None);
        // No such program; no program at all.
        let missing = Getent::new([dir.path().join("no-getent-here")], GETENT_LIMIT);
        assert_eq!(missing.find(Database::Group, Key::Id(0)), None);
        let nothing = Getent::new(Vec::<OsString>::new(), GETENT_LIMIT);
        assert_eq!(nothing.find(Database::Group, Key::Id(0)), None);
    }

    #[test]
    fn the_real_getent_finds_root() {
        // Where the system has a getent at its fixed place (Linux), its line reads
        // as expected.
        let Some(program) = trusted_program(&GETENT_PATHS.map(Path::new)) else {
            eprintln!("skipped: no getent at {GETENT_PATHS:?}");
            return;
        };
        let getent = Getent::new([program], GETENT_LIMIT);
        assert_eq!(getent.find(Database::Passwd, Key::Id(0)), entry("root", 0));
        assert_eq!(
            getent.find(Database::Passwd, Key::Name("root".into())),
            entry("root", 0)
        );
        assert_eq!(getent.find(Database::Group, Key::Id(0)), entry("root", 0));
        assert_eq!(
            getent.find(Database::Passwd, Key::Name("no such user, surely".into())),
            None
        );
    }

    /// Issue 47: the program run is the system's, at a fixed path, owned by root
    /// and writable by nobody else; `PATH` plays no part.
    #[test]
    fn only_a_program_root_put_there_is_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        let program = |name: &str, mode: u32| {
            std::fs::write(at(name), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(at(name), std::fs::Permissions::from_mode(mode)).unwrap();
        };
        program("writable", 0o777);
        program("group-writable", 0o775);
        program("not-executable", 0o644);
        program("good", 0o755);
        program("later", 0o755);
        std::fs::create_dir(at("a-directory")).unwrap();
        let candidates = [
            at("missing"),
            at("writable"),
            at("group-writable"),
            at("not-executable"),
            at("a-directory"),
            at("good"),
            at("later"),
        ];
        let candidates: Vec<&Path> = candidates.iter().map(PathBuf::as_path).collect();
        let owned_by_root = std::fs::metadata(at("good")).unwrap().uid() == 0;
        let want = owned_by_root.then(|| at("good"));
        assert_eq!(trusted_program(&candidates), want);
        // The fixed places are absolute: nothing is looked up on PATH.
        assert!(GETENT_PATHS.iter().all(|path| path.starts_with('/')));
    }

    /// Issue 47: a `getent` that never answers is killed at the limit, with what
    /// it started (its process group); after it, no other run is started.
    #[test]
    fn a_getent_that_never_answers_is_killed_and_not_run_again() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let body = format!("echo $$ >> '{}'; exec sleep 600", pids.display());
        let mut getent = fake_getent(dir.path(), &body);
        getent.limit = Duration::from_millis(300);
        assert_eq!(getent.find(Database::Passwd, Key::Id(4242)), None);
        assert_eq!(getent.find(Database::Passwd, Key::Id(4243)), None);
        assert_eq!(getent.find(Database::Group, Key::Name("hpc".into())), None);
        assert_eq!(calls(dir.path()), ["passwd -- 4242"]);
        let pid: libc::pid_t = std::fs::read_to_string(&pids)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        assert!(!alive, "getent (pid {pid}) still runs");
    }

    /// Issue 47: one that never ends its output is killed once it passes what any
    /// entry takes, and its line is not believed.
    #[test]
    fn a_getent_that_never_stops_writing_is_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let getent = fake_getent(dir.path(), "exec yes 'jdoe:*:4242:100::/:/bin/sh'");
        assert_eq!(getent.find(Database::Passwd, Key::Id(4242)), None);
    }

    /// Issue 47: while `getent` waits on one key, lookups of other keys go on
    /// (the lock was held while it ran, and every worker waited); a lookup of the
    /// same key waits for that one run.
    #[test]
    fn a_slow_lookup_holds_up_only_those_of_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let release = dir.path().join("release");
        let body = format!(
            r#"case "$3" in
  slow) while [ ! -e '{}' ]; do sleep 0.02; done; echo 'slow:*:1:1::/:/bin/sh' ;;
  fast) echo 'fast:*:2:2::/:/bin/sh' ;;
esac"#,
            release.display()
        );
        let getent = std::sync::Arc::new(fake_getent(dir.path(), &body));
        let slow: Vec<_> = (0..2)
            .map(|_| {
                let getent = getent.clone();
                std::thread::spawn(move || getent.find(Database::Passwd, Key::Name("slow".into())))
            })
            .collect();
        while calls(dir.path()).is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let (sent, answer) = std::sync::mpsc::channel();
        let fast = getent.clone();
        std::thread::spawn(move || {
            let _ = sent.send(fast.find(Database::Passwd, Key::Name("fast".into())));
        });
        let found = answer.recv_timeout(Duration::from_secs(60));
        std::fs::write(&release, b"").unwrap();
        assert_eq!(found, Ok(entry("fast", 2)), "held up by the slow lookup");
        for thread in slow {
            assert_eq!(thread.join().unwrap(), entry("slow", 1));
        }
        assert_eq!(calls(dir.path()), ["passwd -- slow", "passwd -- fast"]);
    }
}
