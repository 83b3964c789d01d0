"""--latency-fs: directory walkers on a filesystem where every request is a round trip.

NFS, sshfs and cloud buckets under FUSE answer each lookup, opendir and readdir
after a network round trip; the wall time of a walk is then set by how many
requests it keeps in flight, not by the CPU.  benches/latencyfs.c (built here with
gcc against libfuse3) is a read-only FUSE passthrough of SOURCE that holds every
request for a delay D and serves requests concurrently, as a server does.

For every D (--latency-delays, ms) and run, each command gets a fresh mount
(so the kernel's caches of the mount are empty: a cold walk) and is timed from
its spawn to its exit, its standard output a pipe whose lines are counted.  The
runs go round the commands, every second round reversed; figures are medians.
Commands: pfind at its default and at each --latency-threads, GNU find, and fd,
rg and bfs (where installed) at their default and each --latency-peer-threads.
Every run's line count is checked against `find SOURCE -type f` on the source
itself, and the mount's request count is recorded.

The lower bound of a D is the larger of the critical path and what the client can
do at all: the fastest pfind run at D = 0, where the FUSE request rate of the
machine is the limit.  The critical path is 3 round trips per level of the deepest
directory (lookup, opendir, the readdir with the entries: its subdirectories can
be opened once that has answered, while the empty readdir that ends the listing
is in flight) and the deepest directory's empty readdir; a walker that shares
subdirectories only when a listing has ended pays 4 a level.

The mount is measure_on's parameter: sshfs.py (--sshfs) times the same commands
on sshfs mounts, a FuseMount like latencyfs's, and prints them with results_table.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from .common import log, which
from .tools import REPO, SCENARIOS, build_floor, fd_argv, find_argv, rg_argv

LATENCYFS_SOURCE = REPO / "benches" / "latencyfs.c"
LATENCYFS_BUILD = REPO / "target" / "bench" / "latencyfs"
DEFAULT_DELAYS_MS = (0.2, 1.0, 5.0)
DEFAULT_PFIND_THREADS = (8, 32, 64, 128, 256)
DEFAULT_PEER_THREADS = (16, 64, 128)
# Round trips per level of depth on the critical path, and after the last level;
# see the module comment.
ROUND_TRIPS_PER_LEVEL = 3
ROUND_TRIPS_AFTER = 1
PEERS = ("fd", "rg", "bfs")
MOUNT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Command:
    label: str
    tool: str
    argv: Callable[[str], list[str]]


def fuse_mount_unavailable() -> Optional[str]:
    """Why no FUSE filesystem (latencyfs or sshfs) can be mounted here, or None."""
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse does not exist (no FUSE in this kernel or container)"
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        return "/dev/fuse is not readable and writable by this user"
    if which("fusermount3") is None:
        return "fusermount3 not found (apt-get install fuse3)"
    return None


def fuse_unavailable() -> Optional[str]:
    """Why latencyfs cannot be built and mounted here, or None."""
    why = fuse_mount_unavailable()
    if why:
        return why
    if which("gcc") is None:
        return "gcc is needed to build benches/latencyfs.c"
    if not Path("/usr/include/fuse3/fuse.h").exists():
        return "libfuse3's headers are missing (apt-get install libfuse3-dev)"
    return None


def build_latencyfs(dest: Path = LATENCYFS_BUILD) -> str:
    # writev is exported so that it takes libc's place for libfuse (see latencyfs.c).
    return build_floor(dest, LATENCYFS_SOURCE, ["-I/usr/include/fuse3", "-lfuse3", "-Wl,--export-dynamic-symbol=writev"])


class FuseMount:
    """A FUSE filesystem served by a process of ours in the foreground, mounted
    on a fresh directory for one ``with`` (so the kernel's caches of the mount
    start empty) and unmounted after.  A subclass gives the command; a filesystem
    that counts its requests reads them in ``collect`` into ``requests`` and
    ``peak`` (the most held at once), which stay None otherwise.

    The mount point is a directory of the mount's own temporary directory, or
    ``at`` where a caller names it (cluster.py mounts m0, m1, ... side by side
    in one directory): made for the ``with`` (it must not exist) and removed
    after."""

    name = "FUSE filesystem"
    source = ""
    at: Optional[str] = None
    requests: Optional[int] = None
    peak: Optional[int] = None

    def argv(self, workdir: str, point: str) -> list[str]:
        raise NotImplementedError

    def collect(self, workdir: str) -> None:
        pass

    def __enter__(self) -> str:
        self._dir = tempfile.TemporaryDirectory(prefix=f"pfind-{self.name}-")
        self.point = self.at or os.path.join(self._dir.name, "mnt")
        try:
            os.mkdir(self.point)
        except OSError:
            self._dir.cleanup()
            raise
        self.proc = subprocess.Popen(self.argv(self._dir.name, self.point), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + MOUNT_TIMEOUT
        while not os.path.ismount(self.point):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read().decode(errors="replace").strip() if self.proc.poll() is not None else "timed out"
                self._stop()
                raise RuntimeError(f"{self.name} did not mount {self.source}: {err}")
            time.sleep(0.002)
        return self.point

    def __exit__(self, *exc) -> None:
        self._stop()

    def _stop(self) -> None:
        if os.path.ismount(self.point):
            if subprocess.run(["fusermount3", "-u", self.point], stderr=subprocess.DEVNULL).returncode != 0:
                subprocess.run(["fusermount3", "-u", "-z", self.point], stderr=subprocess.DEVNULL)
        try:
            self.proc.wait(timeout=MOUNT_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()
        self.collect(self._dir.name)
        self._dir.cleanup()
        if self.at:
            try:
                os.rmdir(self.point)
            except OSError:
                pass


class LatencyMount(FuseMount):
    """A fresh mount of ``source`` through latencyfs with every request held
    ``delay_us``; the request count and the most requests held at once are read
    at unmount into ``requests`` and ``peak``.  ``max_in_flight`` caps the
    requests held at once (latencyfs -m: a client's slots for requests in
    flight; a cap needs a delay above 0 to hold anything); ``point`` is where
    to mount (see FuseMount); ``writable`` mounts it read-write with mkdir and
    rmdir passed on (latencyfs -w), what pfind --index's probe asks of it."""

    name = "latencyfs"

    def __init__(self, binary: str, source: str, delay_us: int, no_types: bool = False, max_in_flight: Optional[int] = None, point: Optional[str] = None, writable: bool = False):
        self.binary, self.source, self.delay_us, self.no_types = binary, source, delay_us, no_types
        self.max_in_flight, self.at, self.writable = max_in_flight, point, writable

    def argv(self, workdir: str, point: str) -> list[str]:
        argv = [self.binary, "-d", str(self.delay_us), "-c", os.path.join(workdir, "requests")]
        argv += ["-m", str(self.max_in_flight)] if self.max_in_flight else []
        argv += ["-u"] if self.no_types else []
        argv += ["-w"] if self.writable else []
        return argv + [self.source, point]

    def collect(self, workdir: str) -> None:
        try:
            self.requests, self.peak = map(int, Path(workdir, "requests").read_text().split())
        except (OSError, ValueError):
            self.requests, self.peak = None, None


def time_lines(argv: list[str]) -> tuple[float, int, int]:
    """(seconds from spawn to exit, lines printed, exit code) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = 0
    while chunk := proc.stdout.read(1 << 16):
        lines += chunk.count(b"\n")
    code = proc.wait()
    return time.perf_counter() - start, lines, code


def commands(pfind: str, pfind_extra: list[str], peers: dict[str, str], pfind_threads: Iterable[int], peer_threads: Iterable[int]) -> list[Command]:
    """What is timed: pfind default and -j sweep, find, and each peer present at its
    default and -j sweep."""
    sc = SCENARIOS["all_files"]
    out = [Command("pfind default", "pfind", lambda root: [pfind, root, *pfind_extra])]
    out += [Command(f"pfind -j {n}", "pfind", lambda root, n=n: [pfind, root, "-j", str(n), *pfind_extra]) for n in pfind_threads]
    if "find" in peers:
        out.append(Command("find", "find", lambda root: find_argv(peers["find"], root, sc)))
    builders = {"fd": fd_argv, "rg": rg_argv, "bfs": find_argv}
    for name in PEERS:
        if name not in peers:
            continue
        build = lambda root, name=name: builders[name](peers[name], root, sc)
        out.append(Command(f"{name} default", name, build))
        for n in peer_threads:
            out.append(Command(f"{name} -j {n}", name, lambda root, build=build, n=n: with_threads(build(root), n)))
    return out


def with_threads(argv: list[str], n: int) -> list[str]:
    """A peer's argv with -jN right after the program: fd, rg and bfs take it there,
    and bfs 4 takes the count only attached (`-j 64` is "-j needs a value")."""
    return [argv[0], f"-j{n}", *argv[1:]]


def tree_shape(source: str) -> tuple[int, int, int]:
    """(directories, regular files, depth of the deepest directory below source)."""
    dirs, files, depth = 0, 0, 0
    base = source.rstrip("/").count("/")
    for here, subdirs, names in os.walk(source):
        dirs += 1
        depth = max(depth, here.rstrip("/").count("/") - base)
        files += sum(1 for n in names if os.path.isfile(os.path.join(here, n)) and not os.path.islink(os.path.join(here, n)))
    return dirs, files, depth


def lower_bound_ms(delay_ms: float, depth: int, rate_floor_ms: Optional[float]) -> float:
    critical = (ROUND_TRIPS_PER_LEVEL * (depth + 1) + ROUND_TRIPS_AFTER) * delay_ms
    return max(critical, rate_floor_ms or 0.0)


def measure(binary: str, source: str, delay_ms: float, cmds: list[Command], runs: int, expected: int, no_types: bool = False) -> dict:
    """Every command ``runs`` times on fresh latencyfs mounts at ``delay_ms``: {label: entry}."""
    return measure_on(lambda: LatencyMount(binary, source, round(delay_ms * 1000), no_types), cmds, runs, expected)


def measure_on(new_mount: Callable[[], FuseMount], cmds: list[Command], runs: int, expected: int) -> dict:
    """Every command ``runs`` times, each run on a fresh mount from ``new_mount``,
    the runs going round the commands, every second round reversed: {label: entry},
    with the median and whether every run printed ``expected`` lines and exited 0."""
    found: dict[str, dict] = {c.label: {"tool": c.tool, "ms": [], "requests": [], "peak_in_flight": [], "lines": [], "exit": []} for c in cmds}
    for r in range(runs):
        for c in cmds if r % 2 == 0 else list(reversed(cmds)):
            mount = new_mount()
            with mount as point:
                seconds, lines, code = time_lines(c.argv(point))
            entry = found[c.label]
            entry["ms"].append(round(seconds * 1000, 2))
            entry["requests"].append(mount.requests)
            entry["peak_in_flight"].append(mount.peak)
            entry["lines"].append(lines)
            entry["exit"].append(code)
    for entry in found.values():
        entry["median_ms"] = statistics.median(entry["ms"])
        entry["correct"] = all(n == expected for n in entry["lines"]) and not any(entry["exit"])
    return found


def best(results: dict, tool: str) -> Optional[tuple[str, float]]:
    """The fastest setting of ``tool`` among the correct ones: (label, median ms)."""
    mine = [(label, e["median_ms"]) for label, e in results.items() if e["tool"] == tool and e["correct"]]
    return min(mine, key=lambda x: x[1]) if mine else None


def run_latency_fs(binary: str, source: str, delays_ms: Iterable[float], cmds: list[Command], runs: int, no_types: bool = False) -> dict:
    dirs, files, depth = tree_shape(source)
    log(f"latency-fs: {source}: {dirs} directories, {files} files, depth {depth}")
    pfind_cmds = [c for c in cmds if c.tool == "pfind"]
    log("latency-fs: D = 0 (the request rate of this machine)")
    at_zero = measure(binary, source, 0.0, pfind_cmds, runs, files, no_types)
    rate_floor = best(at_zero, "pfind")
    section = {
        "source": source,
        "directories": dirs,
        "files": files,
        "depth": depth,
        "runs": runs,
        "no_types": no_types,
        "rate_floor_ms": rate_floor[1] if rate_floor else None,
        "delays": {},
    }
    for delay in delays_ms:
        log(f"latency-fs: D = {delay} ms, {len(cmds)} commands, {runs} runs each")
        results = measure(binary, source, delay, cmds, runs, files, no_types)
        section["delays"][str(delay)] = {
            "bound_ms": round(lower_bound_ms(delay, depth, section["rate_floor_ms"]), 1),
            "results": results,
        }
    return section


def table(section: dict) -> str:
    """The markdown table of docs/benchmarks.md: one row per command, one column per D."""
    columns = {f"D = {d} ms": column for d, column in section["delays"].items()}
    return results_table("median ms (requests)", columns)


def results_table(corner: str, columns: dict[str, dict]) -> str:
    """One row per command, one column per {"results": measure_on's, "bound_ms"
    (optional)}; a cell is the median ms and, where the mount counted them, the
    median requests; a row of lower bounds where the columns have them."""
    names = list(columns)
    lines = [f"| {corner} | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    labels = list(next(iter(columns.values()))["results"]) if names else []
    for label in labels:
        cells = []
        for name in names:
            e = columns[name]["results"][label]
            mark = "" if e["correct"] else " WRONG COUNT"
            counted = [r for r in e["requests"] if r is not None]
            requests = f" ({statistics.median(counted):,.0f})" if counted else ""
            cells.append(f"{e['median_ms']:,.0f}{requests}{mark}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if any("bound_ms" in c for c in columns.values()):
        lines.append("| lower bound | " + " | ".join(f"{columns[n]['bound_ms']:,.0f}" for n in names) + " |")
    return "\n".join(lines)


def all_correct(section: dict) -> bool:
    return all(e["correct"] for d in section["delays"].values() for e in d["results"].values())
