"""--sshfs: the walkers on sshfs over 127.0.0.1, a real network filesystem beside
latencyfs's simulated one.

Every lookup, opendir and readdir on sshfs is an SFTP request over one SSH
connection, answered by the SFTP server of an sshd; over the loopback the round
trip is the two processes' (and the encryption's) CPU and scheduling, no wire.
The harness starts an sshd of its own for the section (``SshServer``): on a free
port of 127.0.0.1, with a host key, a user key and a configuration made in a
temporary directory and removed with it, key login only (root included:
``PermitRootLogin prohibit-password``), SFTP served in-process
(``internal-sftp``).  Nothing in /etc/ssh or ~/.ssh is read or changed; the
client is run with ``-F /dev/null`` and a known_hosts file holding only the
throwaway host key.  Only when run as root and /run/sshd (sshd's privilege
separation directory, which the openssh-server service makes at boot) is
missing, it is made, empty, and removed at the end.

Each timed run gets a fresh sshfs mount of SOURCE (``SshfsMount``: a new SSH
connection and sshfs process, so neither sshfs's caches nor the kernel's hold
anything of the run before; no caching option is needed), the commands of
``latency_fs.commands`` are timed by ``latency_fs.measure_on``, and every run's
line count is checked against the files of SOURCE.  Whether sshfs's readdir
gives file types (d_type) is looked up once on a mount of its own (``dirent_types``)
and recorded: where it does not, every entry costs the walkers a stat.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pwd
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

from .common import log, which
from .filesystems import SBIN_DIRS
from .latency_fs import Command, FuseMount, fuse_mount_unavailable, measure_on, results_table, tree_shape

HOST = "127.0.0.1"
SSHD_TIMEOUT = 10.0
# Where sshd is looked for after $PATH (Debian puts it in /usr/sbin, which a user's
# PATH may lack).
SSHD_ALSO = SBIN_DIRS
PRIVSEP_DIR = "/run/sshd"
# Programs the sshfs part runs, and the Debian package of each.
PROGRAMS = (("sshfs", "sshfs"), ("ssh", "openssh-client"), ("ssh-keygen", "openssh-client"), ("sshd", "openssh-server"))

DT_UNKNOWN = 0


def sshfs_unavailable() -> Optional[str]:
    """Why sshfs over localhost cannot be mounted here, or None; never installs."""
    why = fuse_mount_unavailable()
    if why:
        return why
    missing = [(name, package) for name, package in PROGRAMS if which(name, also=SSHD_ALSO if name == "sshd" else ()) is None]
    if missing:
        packages = " ".join(dict.fromkeys(package for _, package in missing))
        return f"{' and '.join(name for name, _ in missing)} not found (apt-get install {packages})"
    return None


def user() -> str:
    return pwd.getpwuid(os.geteuid()).pw_name


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def sshd_config(workdir: str, port: int, login: str) -> str:
    return "\n".join(
        [
            f"ListenAddress {HOST}",
            f"Port {port}",
            f"HostKey {workdir}/host_key",
            f"AuthorizedKeysFile {workdir}/authorized_keys",
            "PidFile none",
            f"AllowUsers {login}",
            "PermitRootLogin prohibit-password",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            # The keys are in a directory under /tmp, which is world-writable.
            "StrictModes no",
            "UsePAM no",
            "Subsystem sftp internal-sftp",
            "LogLevel ERROR",
            "",
        ]
    )


def sshfs_options(port, identity, known_hosts) -> list[str]:
    """sshfs's -o options: the harness's sshd and keys, no prompt, read-only."""
    return [
        f"port={port}",
        f"IdentityFile={identity}",
        "IdentitiesOnly=yes",
        f"UserKnownHostsFile={known_hosts}",
        "StrictHostKeyChecking=yes",
        "BatchMode=yes",
        "LogLevel=ERROR",
        "ro",
    ]


def sshfs_argv(login: str, source: str, point: str, port, identity, known_hosts) -> list[str]:
    """sshfs in the foreground (the mount ends with the process), ignoring
    ~/.ssh/config (-F /dev/null)."""
    return ["sshfs", f"{login}@{HOST}:{source}", point, "-f", "-F", "/dev/null", "-o", ",".join(sshfs_options(port, identity, known_hosts))]


class SshServer:
    """An sshd of the harness's own on a free port of 127.0.0.1, with throwaway
    keys in a temporary directory; stopped and removed on leaving the ``with``,
    whatever happened inside it."""

    def __enter__(self) -> "SshServer":
        self._dir = tempfile.TemporaryDirectory(prefix="pfind-sshd-")
        self.workdir = self._dir.name
        self.proc: Optional[subprocess.Popen] = None
        self.made_privsep = False
        try:
            self._start()
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stop()

    def _start(self) -> None:
        w = self.workdir
        for key in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "pfind-bench", "-f", f"{w}/{key}"], check=True, stdin=subprocess.DEVNULL)
        Path(w, "authorized_keys").write_text(Path(w, "user_key.pub").read_text())
        self.port = free_port()
        self.login = user()
        host_key = Path(w, "host_key.pub").read_text().split()
        Path(w, "known_hosts").write_text(f"[{HOST}]:{self.port} {host_key[0]} {host_key[1]}\n")
        Path(w, "sshd_config").write_text(sshd_config(w, self.port, self.login))
        if os.geteuid() == 0 and not os.path.isdir(PRIVSEP_DIR):
            os.mkdir(PRIVSEP_DIR, 0o755)
            self.made_privsep = True
            log(f"sshfs: made {PRIVSEP_DIR} (sshd's privilege separation directory); removed at the end")
        # sshd refuses a relative program name (it re-executes itself).
        sshd = os.path.abspath(which("sshd", also=SSHD_ALSO))
        with open(f"{w}/sshd.log", "wb") as errors:
            self.proc = subprocess.Popen([sshd, "-D", "-e", "-f", f"{w}/sshd_config"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
        deadline = time.monotonic() + SSHD_TIMEOUT
        while not self._listening():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"sshd did not start on {HOST}:{self.port}: {self.log() or 'timed out'}")
            time.sleep(0.01)

    def _listening(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=1.0):
                return True
        except OSError:
            return False

    def log(self) -> str:
        try:
            return Path(self.workdir, "sshd.log").read_text(errors="replace").strip()
        except OSError:
            return ""

    def _stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=SSHD_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.made_privsep:
            try:
                os.rmdir(PRIVSEP_DIR)
            except OSError:
                pass
        self._dir.cleanup()

    def mount(self, source: str) -> "SshfsMount":
        return SshfsMount(self, source)


class SshfsMount(FuseMount):
    """A fresh sshfs mount of ``source`` from ``server``; it counts no requests."""

    name = "sshfs"

    def __init__(self, server: SshServer, source: str):
        self.server, self.source = server, os.path.abspath(source)

    def argv(self, workdir: str, point: str) -> list[str]:
        s = self.server
        return sshfs_argv(s.login, self.source, point, s.port, f"{s.workdir}/user_key", f"{s.workdir}/known_hosts")


class _Dirent(ctypes.Structure):
    # glibc's struct dirent64 (the same on every 64-bit and 32-bit target).
    _fields_ = [("d_ino", ctypes.c_uint64), ("d_off", ctypes.c_int64), ("d_reclen", ctypes.c_ushort), ("d_type", ctypes.c_ubyte), ("d_name", ctypes.c_char * 256)]


def dirent_types(path: str) -> list[int]:
    """The d_type of every entry of the directory ``path`` but . and .., as
    readdir gives them (os.scandir does not show them)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.opendir.restype = ctypes.c_void_p
    libc.opendir.argtypes = [ctypes.c_char_p]
    libc.readdir64.restype = ctypes.POINTER(_Dirent)
    libc.readdir64.argtypes = [ctypes.c_void_p]
    libc.closedir.argtypes = [ctypes.c_void_p]
    d = libc.opendir(os.fsencode(path))
    if not d:
        raise OSError(ctypes.get_errno(), f"opendir {path}")
    types = []
    try:
        while entry := libc.readdir64(d):
            if entry.contents.d_name not in (b".", b".."):
                types.append(entry.contents.d_type)
    finally:
        libc.closedir(d)
    return types


def mount_command(source: str, port) -> str:
    """The sshfs command of a run, the temporary names left as words."""
    return " ".join(sshfs_argv(user(), os.path.abspath(source), "MOUNTPOINT", port, "TMP/user_key", "TMP/known_hosts"))


def plan(source: str, runs: int, cmds: list[Command]) -> str:
    """What --sshfs would run, for --dry-run."""
    return f"sshfs: {source} through `{mount_command(source, 'PORT')}` from an sshd of its own on a free port of {HOST} (throwaway keys in TMP), {runs} runs each, a fresh mount per run: {', '.join(c.label for c in cmds)}"


def run_sshfs(source: str, cmds: list[Command], runs: int, new_server: Callable[[], SshServer] = SshServer) -> dict:
    """The section of the report: every command ``runs`` times on fresh sshfs mounts."""
    dirs, files, depth = tree_shape(source)
    log(f"sshfs: {source}: {dirs} directories, {files} files, depth {depth}; {len(cmds)} commands, {runs} runs each")
    with new_server() as server:
        with server.mount(source) as point:
            types = dirent_types(point)
        results = measure_on(lambda: server.mount(source), cmds, runs, files)
        port = server.port
    return {
        "source": source,
        "directories": dirs,
        "files": files,
        "depth": depth,
        "runs": runs,
        "mount": mount_command(source, port),
        # None: the root has no entries to tell.
        "readdir_types": None if not types else any(t != DT_UNKNOWN for t in types),
        "results": results,
    }


def table(section: dict) -> str:
    types = {True: "readdir gives file types", False: "readdir gives no file types (DT_UNKNOWN): every entry is stat'ed", None: "file types not known"}
    return results_table(f"median ms ({types[section['readdir_types']]})", {f"sshfs, {HOST}": section})


def all_correct(section: dict) -> bool:
    return all(e["correct"] for e in section["results"].values())
