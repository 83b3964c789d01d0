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

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString, OsString};
use std::io;
use std::process::{Command, Stdio};
use std::sync::{LazyLock, Mutex, PoisonError};

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
    static GETENT: LazyLock<Getent> = LazyLock::new(|| Getent::new(["getent"]));
    if !local_files_only() {
        return None;
    }
    GETENT.find(database, key)
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
    answers: Mutex<HashMap<(Database, Key), Option<Entry>>>,
}

impl Getent {
    fn new<S: Into<OsString>>(command: impl IntoIterator<Item = S>) -> Getent {
        Getent {
            command: command.into_iter().map(Into::into).collect(),
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// The entry for `key`, asking `getent` the first time only. The lock is held
    /// while it runs, so that workers missing the same id at once ask once.
    fn find(&self, database: Database, key: Key) -> Option<Entry> {
        let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        answers
            .entry((database, key))
            .or_insert_with_key(|(database, key)| self.ask(*database, key))
            .clone()
    }

    /// Runs the command once: its first line, if it exits with success and that line
    /// is the entry asked for (the name or the id matches).
    fn ask(&self, database: Database, key: &Key) -> Option<Entry> {
        let (program, arguments) = self.command.split_first()?;
        let key_text = match key {
            Key::Name(name) => name.to_string(),
            Key::Id(id) => id.to_string(),
        };
        let output = Command::new(program)
            .args(arguments)
            .args([database.word(), "--", &key_text])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !output.status.success() {
            return None;
        }
        let line = output.stdout.split(|&b| b == b'\n').next()?;
        let entry = parse_entry(database, line)?;
        let answers = match key {
            Key::Name(name) => *entry.name == *name.as_bytes(),
            Key::Id(id) => entry.id == *id,
        };
        answers.then_some(entry)
    }
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
        Getent::new([OsString::from("sh"), script.into_os_string()])
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
        let missing = Getent::new([dir.path().join("no-getent-here")]);
        assert_eq!(missing.find(Database::Group, Key::Id(0)), None);
        let nothing = Getent::new(Vec::<OsString>::new());
        assert_eq!(nothing.find(Database::Group, Key::Id(0)), None);
    }

    #[test]
    fn the_real_getent_finds_root() {
        // Where the system has a getent on PATH (Linux), its line reads as expected.
        let getent = Getent::new(["getent"]);
        if Command::new("getent").arg("--version").output().is_err() {
            eprintln!("skipped: no getent on PATH");
            return;
        }
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
}
