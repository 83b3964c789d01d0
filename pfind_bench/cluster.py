"""--cluster: several filesystem clients on one machine (issue 37, item 5).

On a parallel filesystem (Lustre, GPFS, BeeGFS, CephFS) one client keeps only so
many metadata requests in flight (Lustre's per-client RPC slots, NFS's session
slots), so a walk goes faster only with more clients: more nodes, each a rank of
an MPI job.  This mode stands in for that on one machine.  Every client is a
mount of SOURCE through benches/latencyfs.c holding each request --cluster-delay
ms with at most --cluster-cap requests held at once (latencyfs -m): a mount then
answers at most cap / delay requests a second however many threads ask, and only
more mounts go faster.

Every timed run mounts fresh latencyfs mounts of SOURCE side by side in a new
temporary directory, as m0, m1, ... (empty kernel caches: a cold walk), one per
mount the command walks, and times the command from its spawn to its exit with
its standard output a pipe that is read to the end.  The commands:

- ``pfind TMP/m0``: one pfind (its default -j, and --pfind-args) on one mount;
  the reference of the speedups.
- ``mpirun -np N pfind-mpi --rank-root TMP/m{rank}/ TMP/m0`` for each N of
  --cluster-ranks: rank r walks its own mount m<r>; every path is printed under
  TMP/m0, by rank 0 alone.
- where the reader gives their binaries, IO500's pfind (--io500-pfind, from
  github.com/VI4IO/pfind, the find phase's own tool) and mpiFileUtils' dfind
  (--dfind) at the same N.  They take one root and have no way to map it per
  rank, so their ranks share ONE mount, m0: they are the MPI walkers a site
  runs today, on one client.  Their command lines are read from their sources,
  never run here (neither is installed on the machine this was written on):
  ``mpirun -np N pfind TMP/m0`` (no -name, -newer or -size: every entry that
  is not a directory is a match; it prints each path and ends with
  ``MATCHED found/scanned``, whose found is checked) and ``mpirun -np N dfind
  --type f --print TMP/m0`` (dfind prints nothing without --print, and tests
  and actions apply in the order given; its lines that are paths, starting
  with "/", are counted: its log lines start with "[").

mpirun is Open MPI's or MPICH's; Open MPI's gets ``--oversubscribe`` (8 ranks on
2 CPUs) and ``--bind-to none`` (by default Open MPI pins each rank of a small job
to one core, which would leave pfind-mpi's threads one core a rank where pfind
alone has all) and shared memory between the ranks (ONE_NODE_TRANSPORT), and
every launch gets OMPI_ALLOW_RUN_AS_ROOT=1 and
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in its environment.

The runs go round the commands, every second round reversed; figures are the
median (min-max) of --cluster-runs.  Every run's answer is checked: pfind's and
pfind-mpi's lines (every one a path under TMP/m0), and dfind's path lines,
against ``find SOURCE -type f``;
IO500's pfind's found count against ``find SOURCE -mindepth 1 ! -type d``.  Each
mount's request count and the most requests it held at once are recorded.

A run is killed after RUN_TIMEOUT seconds (a hang is how an MPI walk fails) and
counted as wrong.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from .common import log, run, tool_version
from .latency_fs import LatencyMount

DEFAULT_RANKS = (2, 4, 8)
DEFAULT_DELAY_MS = 1.0
DEFAULT_CAP = 4
DEFAULT_RUNS = 5
DEFAULT_PFIND_MPI = "./target/release/pfind-mpi"
BUILD_PFIND_MPI = "cargo build --release --features mpi"
RUN_TIMEOUT = 600.0
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

PFIND, PFIND_MPI, IO500_PFIND, DFIND = "pfind", "pfind-mpi", "IO500 pfind", "dfind"
# How a command's answer is read from its standard output.
LINES, PATH_LINES, MATCHED = "lines", "path lines", "MATCHED found"
# What it is checked against.
FILES, NON_DIRECTORIES = "files", "non_directories"

_MATCHED = re.compile(rb"^MATCHED (\d+)/(\d+)\s*$", re.M)
# The placeholder of the run's temporary directory in the commands printed.
TMP = "TMP"


# Open MPI on one machine: shared memory between ranks (the ob1 PML over the
# self and vader BTLs), as a site's configuration selects its fabric. Left to
# choose, Open MPI 4.1.4 first initialises libfabric's MTL, which took 0.2 s of
# each launch here (0.45 s against 0.23 s for 4 ranks on an empty directory).
ONE_NODE_TRANSPORT = ("--mca", "pml", "ob1", "--mca", "btl", "self,vader", "--mca", "mtl", "^ofi")


@dataclass(frozen=True)
class Launcher:
    """How MPI jobs are started: ``mpirun`` and whether it is Open MPI's."""

    mpirun: str
    open_mpi: bool = True

    def argv(self, ranks: int) -> list[str]:
        if self.open_mpi:
            return [self.mpirun, "--oversubscribe", "--bind-to", "none", *ONE_NODE_TRANSPORT, "-np", str(ranks)]
        return [self.mpirun, "-np", str(ranks)]


def launcher_for(mpirun: str) -> Launcher:
    """The launcher of ``mpirun``: Open MPI's says so in `mpirun --version`
    (MPICH's Hydra says "HYDRA")."""
    version = tool_version([mpirun, "--version"])
    return Launcher(mpirun, "open mpi" in version.lower() or "open-mpi" in version.lower() or "openrte" in version.lower())


def mpi_env() -> dict:
    return os.environ | MPI_ENV


@dataclass(frozen=True)
class ClusterCommand:
    label: str
    tool: str
    ranks: int
    # Mounts the command walks: m0 .. m<mounts - 1> of the run's directory.
    mounts: int
    argv: Callable[[str], list[str]]
    count: str = LINES
    expect: str = FILES

    @property
    def mpi(self) -> bool:
        return self.tool != PFIND


def mount_path(tmp: str, i) -> str:
    return os.path.join(tmp, f"m{i}")


def commands(
    pfind: str,
    pfind_mpi: str,
    launcher: Launcher,
    ranks: Iterable[int],
    pfind_extra: Iterable[str] = (),
    io500_pfind: Optional[str] = None,
    dfind: Optional[str] = None,
) -> list[ClusterCommand]:
    """What is timed, in this order: pfind on one mount, pfind-mpi at each N with
    a mount per rank, then IO500's pfind and dfind (where given) at each N on one
    mount."""
    extra = list(pfind_extra)
    ranks = list(dict.fromkeys(ranks))
    out = [ClusterCommand(PFIND, PFIND, 1, 1, lambda tmp: [pfind, mount_path(tmp, 0), *extra])]
    for n in ranks:
        out.append(
            ClusterCommand(
                f"{PFIND_MPI} -np {n}",
                PFIND_MPI,
                n,
                n,
                lambda tmp, n=n: [*launcher.argv(n), pfind_mpi, *extra, "--rank-root", mount_path(tmp, "{rank}") + "/", mount_path(tmp, 0)],
            )
        )
    if io500_pfind:
        for n in ranks:
            out.append(ClusterCommand(f"{IO500_PFIND} -np {n}", IO500_PFIND, n, 1, lambda tmp, n=n: [*launcher.argv(n), io500_pfind, mount_path(tmp, 0)], MATCHED, NON_DIRECTORIES))
    if dfind:
        for n in ranks:
            out.append(ClusterCommand(f"{DFIND} -np {n}", DFIND, n, 1, lambda tmp, n=n: [*launcher.argv(n), dfind, "--type", "f", "--print", mount_path(tmp, 0)], PATH_LINES))
    return out


def answer(how: str, stdout: bytes) -> Optional[int]:
    """A command's answer from its output: every line, the lines that are
    absolute paths, or the found count of the last ``MATCHED found/scanned``
    (None without one)."""
    if how == LINES:
        return stdout.count(b"\n")
    if how == PATH_LINES:
        return sum(1 for line in stdout.split(b"\n") if line.startswith(b"/"))
    if how == MATCHED:
        found = _MATCHED.findall(stdout)
        return int(found[-1][0]) if found else None
    raise ValueError(f"unknown answer kind {how!r}")


def stray_lines(stdout: bytes, root: str) -> int:
    """The lines of ``stdout`` that are not paths under ``root`` (pfind's and
    pfind-mpi's every line is one: a rank that printed the path of its own mount
    instead of the root's would show here)."""
    prefix = root.encode() + b"/"
    lines = stdout.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return sum(1 for line in lines if not line.startswith(prefix))


def expected_counts(source: str, find: str) -> dict[str, int]:
    """``find SOURCE -type f`` and ``find SOURCE -mindepth 1 ! -type d``, counted."""
    files = run([find, source, "-type", "f"], label="find").stdout.count(b"\n")
    others = run([find, source, "-mindepth", "1", "!", "-type", "d"], label="find").stdout.count(b"\n")
    return {FILES: files, NON_DIRECTORIES: others}


def time_output(argv: list[str], env: Optional[dict] = None, timeout: float = RUN_TIMEOUT) -> tuple[float, bytes, Optional[int], str]:
    """(seconds from spawn to exit, standard output, exit code or None if it was
    killed at ``timeout``, the last line of its stderr) of one run.  The command
    runs in a session of its own, so that a hung mpirun goes with its ranks."""
    killed = threading.Event()
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, env=env, start_new_session=True)

        def kill():
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        chunks = []
        try:
            while chunk := proc.stdout.read(1 << 16):
                chunks.append(chunk)
            code = proc.wait()
        finally:
            timer.cancel()
            proc.stdout.close()
        seconds = time.perf_counter() - start
        err.seek(0)
        lines = err.read()[-4096:].decode(errors="replace").strip().splitlines()
    return seconds, b"".join(chunks), None if killed.is_set() else code, lines[-1] if lines else ""


def measure(
    new_mount: Callable[[str], LatencyMount],
    cmds: list[ClusterCommand],
    runs: int,
    expected: dict[str, int],
    timer: Callable = time_output,
) -> dict:
    """Every command ``runs`` times, each run on fresh mounts from
    ``new_mount(point)`` at TMP/m0.. in a new directory, the runs going round the
    commands, every second round reversed: {label: entry}."""
    found: dict[str, dict] = {
        c.label: {
            "tool": c.tool,
            "ranks": c.ranks,
            "mounts": c.mounts,
            "answer_from": c.count,
            "expected": expected[c.expect],
            "expected_from": c.expect,
            "ms": [],
            "answers": [],
            "lines": [],
            "stray_lines": [],
            "exit": [],
            "requests": [],
            "requests_per_mount": [],
            "peak_in_flight": [],
            "stderr": [],
        }
        for c in cmds
    }
    env = mpi_env()
    for r in range(runs):
        for c in cmds if r % 2 == 0 else list(reversed(cmds)):
            with tempfile.TemporaryDirectory(prefix="pfind-cluster-") as tmp:
                mounts = [new_mount(mount_path(tmp, i)) for i in range(c.mounts)]
                with contextlib.ExitStack() as stack:
                    for m in mounts:
                        stack.enter_context(m)
                    seconds, out, code, err = timer(c.argv(tmp), env if c.mpi else None)
            entry = found[c.label]
            entry["ms"].append(round(seconds * 1000, 2))
            entry["answers"].append(answer(c.count, out))
            entry["lines"].append(out.count(b"\n"))
            entry["stray_lines"].append(stray_lines(out, mount_path(tmp, 0)) if c.count == LINES else None)
            entry["exit"].append(code)
            entry["stderr"].append(err if code != 0 else "")
            per_mount = [m.requests for m in mounts]
            entry["requests_per_mount"].append(per_mount)
            entry["requests"].append(sum(per_mount) if None not in per_mount else None)
            peaks = [m.peak for m in mounts if m.peak is not None]
            entry["peak_in_flight"].append(max(peaks) if peaks else None)
            if code != 0:
                log(f"cluster: {c.label} exited {'(killed at the timeout)' if code is None else code}" + (f": {err}" if err else ""))
    for entry in found.values():
        summarize(entry)
    return found


def summarize(entry: dict) -> None:
    """The median, min and max ms, the median requests, the highest peak, and
    whether every run gave the expected answer and exited 0."""
    entry["median_ms"] = statistics.median(entry["ms"])
    entry["min_ms"], entry["max_ms"] = min(entry["ms"]), max(entry["ms"])
    counted = [n for n in entry["requests"] if n is not None]
    entry["median_requests"] = statistics.median(counted) if counted else None
    peaks = [n for n in entry["peak_in_flight"] if n is not None]
    entry["max_peak_in_flight"] = max(peaks) if peaks else None
    entry["correct"] = all(a == entry["expected"] for a in entry["answers"]) and all(c == 0 for c in entry["exit"]) and not any(entry.get("stray_lines") or [])


def speedups(results: dict) -> dict[str, Optional[float]]:
    """Each command's median over one pfind's on one mount: how many times faster
    (None where either is wrong)."""
    base = results.get(PFIND)
    out = {}
    for label, e in results.items():
        ok = base is not None and base["correct"] and e["correct"] and e["median_ms"] > 0
        out[label] = round(base["median_ms"] / e["median_ms"], 2) if ok else None
    return out


def run_cluster(binary: str, source: str, cmds: list[ClusterCommand], runs: int, delay_ms: float, cap: int, find: str, timer: Callable = time_output) -> dict:
    """The mode's report section: the tree, the mounts, the commands and their results."""
    expected = expected_counts(source, find)
    delay_us = round(delay_ms * 1000)
    ceiling = ceiling_per_mount(delay_ms, cap)
    log(f"cluster: {source}: {expected[FILES]} files, {expected[NON_DIRECTORIES]} entries that are not directories")
    log(f"cluster: latencyfs at {delay_ms:g} ms a request, at most {cap} in flight a mount (at most {ceiling:,.0f} requests a second a mount); {len(cmds)} commands, {runs} runs each")
    results = measure(lambda point: LatencyMount(binary, source, delay_us, max_in_flight=cap, point=point), cmds, runs, expected, timer)
    return {
        "source": source,
        "files": expected[FILES],
        "non_directories": expected[NON_DIRECTORIES],
        "delay_ms": delay_ms,
        "max_in_flight": cap,
        "ceiling_requests_per_second_per_mount": round(ceiling),
        "runs": runs,
        "timeout_seconds": RUN_TIMEOUT,
        "mpi_env": MPI_ENV,
        "commands": {c.label: shlex.join(c.argv(TMP)) for c in cmds},
        "one_mount": [c.label for c in cmds if c.tool in (IO500_PFIND, DFIND)],
        "results": results,
        "speedup_vs_pfind": speedups(results),
    }


def ceiling_per_mount(delay_ms: float, cap: int) -> float:
    """The most requests a second one capped mount answers: cap / delay."""
    return cap * 1000.0 / delay_ms


def plan(source: str, cmds: list[ClusterCommand], runs: int, delay_ms: float, cap: int) -> str:
    """What a run would do, as --dry-run prints it."""
    lines = [
        f"cluster: {source} through benches/latencyfs.c at {delay_ms:g} ms a request, at most {cap} requests in flight a mount "
        f"(at most {ceiling_per_mount(delay_ms, cap):,.0f} a second a mount), fresh mounts TMP/m0.. for every run, {runs} runs of each command, interleaved:"
    ]
    for c in cmds:
        where = "one mount" if c.mounts == 1 else f"{c.mounts} mounts, one per rank"
        lines.append(f"  {c.label} ({where}): {shlex.join(c.argv(TMP))}")
    if any(c.tool in (IO500_PFIND, DFIND) for c in cmds):
        lines.append(f"  {ONE_MOUNT_NOTE}")
    return "\n".join(lines)


ONE_MOUNT_NOTE = "IO500's pfind and dfind take one root and cannot map it per rank: their ranks share one mount (m0)."


def table(section: dict) -> str:
    """One row per command: ranks, mounts, median (min-max) ms, speedup over one
    pfind on one mount, median requests (all mounts), the most one mount held."""
    heads = ["command", "ranks", "mounts", "median ms (min-max)", "speedup vs pfind on 1 mount", "requests", "peak per mount"]
    lines = ["| " + " | ".join(heads) + " |", "|---" * len(heads) + "|"]
    for label, e in section["results"].items():
        ms = f"{e['median_ms']:,.0f} ({e['min_ms']:,.0f}-{e['max_ms']:,.0f})" + ("" if e["correct"] else " WRONG COUNT")
        ratio = section["speedup_vs_pfind"].get(label)
        requests = e.get("median_requests")
        peak = e.get("max_peak_in_flight")
        cells = [label, str(e["ranks"]), str(e["mounts"]), ms, "—" if ratio is None else f"{ratio:.2f}", "—" if requests is None else f"{requests:,.0f}", "—" if peak is None else str(peak)]
        lines.append("| " + " | ".join(cells) + " |")
    if section.get("one_mount"):
        lines.append("")
        lines.append(ONE_MOUNT_NOTE)
    return "\n".join(lines)


def all_correct(section: dict) -> bool:
    return all(e["correct"] for e in section["results"].values())


def pfind_correct(section: dict) -> bool:
    return all(e["correct"] for e in section["results"].values() if e["tool"] in (PFIND, PFIND_MPI))
