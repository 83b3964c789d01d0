#!/usr/bin/env python3
"""Reproducible benchmark harness for pfind.

One command regenerates every number the README quotes:

    python3 benchmark.py --pfind ./target/release/pfind \\
        --sizes small medium large deep wide --runs 10 --warmup 3 \\
        --output optimized.json --skip-oswalk

What happens, in order:

1. Datasets.  Five synthetic trees (see SHAPES) are generated under --data-dir the
   first time they are needed and reused afterwards.  Generation is deterministic
   (fixed PRNG seed), so the expected number of files per extension and per glob is
   known without trusting any walker; it is stored in a manifest next to the tree.
   A tree is built under a temporary name and renamed into place only when it is
   complete, so an interrupted build can never be mistaken for a finished one.

2. Timing.  Each (scenario, size) cell runs every installed tool side by side in a
   single hyperfine invocation (no shell, warmups first, stdout to /dev/null by
   default) and keeps hyperfine's full JSON export: mean, stddev, min, max, user,
   system and every individual run time.

3. Correctness.  After timing, every tool runs once more, untimed, with its stdout
   captured.  Its count is compared with the manifest; pfind's exact set of paths is
   compared byte for byte with GNU find's.  Any pfind disagreement makes the harness
   exit with status 1, because a fast wrong answer is not a result.

4. Report.  A per-scenario table (mean +- stddev per tool and pfind's speedup over
   the fastest competitor) goes to stdout and a JSON report to --output, including
   the machine description and every tool's version.  --threads-sweep times pfind
   alone at several -j values on one dataset.  --plot REPORT.json turns a report into
   SVG charts (the only feature that needs matplotlib, imported only there).

Peers get their closest equivalent of each scenario.  fd, rg, bfs and find have no
count-only mode, so for count_only they list every match into /dev/null and the
harness counts the lines of their untimed run.  An optional --floor binary (shared/tools/floor.c) is timed as a
*reference*: it shows the kernel's cost of the walk but is not a competitor, so it
never becomes the runner-up and only its unfiltered counts are checked.

Only the Python standard library is required for measuring.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import fcntl
import fnmatch
import hashlib
import json
import multiprocessing
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

REPORT_SCHEMA = 1

# ---------------------------------------------------------------------------
# Datasets
# ---------------------------------------------------------------------------

# Bump when the on-disk layout changes, so cached trees from an older harness are
# rebuilt instead of silently benchmarked.
GENERATOR_VERSION = 1
SEED = 0x9F14D  # fixed; changing it changes every tree (and invalidates caches)
EXTENSIONS = ("jpg", "png", "txt", "json", "py", "bin")
EXT_WEIGHTS = (40, 30, 10, 10, 5, 5)
PAYLOAD = b"x" * 100

# The name_glob pattern.  Files are numbered 000000.. in creation order, so the
# second-to-last digit is 7 for exactly one file in ten of every full hundred:
# the pattern filters (rather than matching everything) on every shape, and it
# uses both wildcards the pfind matcher supports.
NAME_GLOB = "file_*7?.*"

# Trees this many files or larger are written by a process pool: file creation is
# ~10 us of Python per file, which is worth splitting on a 1M-file tree but not
# worth the fork on a 10K one.
PARALLEL_GENERATION_THRESHOLD = 50_000
# After writing a tree this big, sync so its writeback does not overlap the first
# timed runs; smaller trees are not worth a system-wide sync.
SYNC_THRESHOLD = 50_000


@dataclass(frozen=True)
class Shape:
    """One dataset layout.

    ``flat`` shapes are ``dirs`` sibling directories under the root, each holding
    ``files_per_dir`` files.  ``tree`` shapes are a complete ``branching``-ary tree
    of directories ``depth`` levels below the root; every directory below the root
    holds ``files_per_dir`` files and the root holds none (so branching 3, depth 5
    gives 363 directories and 7,260 files).
    """

    name: str
    kind: str
    files_per_dir: int
    dirs: int = 0
    branching: int = 0
    depth: int = 0

    def dir_paths(self) -> list[str]:
        """Relative paths of the directories below the root, parents first."""
        if self.kind == "flat":
            width = max(4, len(str(self.dirs - 1)))
            return [f"dir_{i:0{width}d}" for i in range(self.dirs)]
        paths: list[str] = []
        level = [""]
        for _ in range(self.depth):
            level = [
                f"{parent}/dir_{b}" if parent else f"dir_{b}"
                for parent in level
                for b in range(self.branching)
            ]
            paths.extend(level)
        return paths

    @property
    def total_files(self) -> int:
        return len(self.dir_paths()) * self.files_per_dir

    def describe(self) -> dict:
        """The parameters that define the tree (stored in the manifest)."""
        d = {"kind": self.kind, "files_per_dir": self.files_per_dir}
        if self.kind == "flat":
            d["dirs"] = self.dirs
        else:
            d.update(branching=self.branching, depth=self.depth)
        return d


SHAPES = {
    "small": Shape("small", "flat", dirs=100, files_per_dir=100),
    "medium": Shape("medium", "flat", dirs=100, files_per_dir=1000),
    "large": Shape("large", "flat", dirs=1000, files_per_dir=1000),
    "deep": Shape("deep", "tree", branching=3, depth=5, files_per_dir=20),
    "wide": Shape("wide", "flat", dirs=2000, files_per_dir=50),
}
SIZE_ORDER = list(SHAPES)


def plan_files(shape: Shape, seed: int = SEED) -> list[tuple[str, list[str]]]:
    """Every directory of ``shape`` with the file names it will hold.

    Files are numbered consecutively in directory order and their extensions are
    drawn in one batch from a seeded PRNG, so the plan (and therefore every
    expected count) is a pure function of the shape and the seed.
    """
    dirs = shape.dir_paths()
    exts = random.Random(seed).choices(EXTENSIONS, weights=EXT_WEIGHTS, k=len(dirs) * shape.files_per_dir)
    plan = []
    n = 0
    for rel in dirs:
        names = [f"file_{n + i:06d}.{exts[n + i]}" for i in range(shape.files_per_dir)]
        n += shape.files_per_dir
        plan.append((rel, names))
    return plan


def manifest_for(shape: Shape, plan: list[tuple[str, list[str]]], seed: int = SEED) -> dict:
    """The manifest describing a planned tree: its parameters and exact counts."""
    ext_counts = {e: 0 for e in EXTENSIONS}
    glob_matches = 0
    for _, names in plan:
        for name in names:
            ext_counts[name.rsplit(".", 1)[1]] += 1
        glob_matches += len(fnmatch.filter(names, NAME_GLOB))
    return {
        "generator_version": GENERATOR_VERSION,
        "name": shape.name,
        "shape": shape.describe(),
        "seed": seed,
        "payload_bytes": len(PAYLOAD),
        "dirs": len(plan),
        "files": sum(len(names) for _, names in plan),
        "extensions": ext_counts,
        "glob": {NAME_GLOB: glob_matches},
    }


def _write_dir(root: str, rel: str, names: list[str]) -> int:
    """Create the files of one (already created) directory; return how many.

    Uses a directory fd and raw os.open/os.write so each file costs three syscalls
    and no path resolution from the root.
    """
    dfd = os.open(os.path.join(root, rel), os.O_RDONLY | os.O_DIRECTORY)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    try:
        for name in names:
            fd = os.open(name, flags, 0o644, dir_fd=dfd)
            try:
                os.write(fd, PAYLOAD)
            finally:
                os.close(fd)
    finally:
        os.close(dfd)
    return len(names)


def _write_dir_job(job: tuple[str, str, list[str]]) -> int:
    """Pool entry point (must be a picklable module-level function)."""
    return _write_dir(*job)


class Progress:
    """Throttled progress line on stderr: rewritten in place on a terminal,
    one line every few seconds otherwise (so CI logs stay short)."""

    def __init__(self, label: str, total: int, stream=None):
        self.label, self.total, self.done = label, total, 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.last = 0.0

    def advance(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= (0.2 if self.tty else 5.0) or self.done >= self.total:
            self.last = now
            end = "\r" if self.tty and self.done < self.total else "\n"
            pct = 100.0 * self.done / self.total if self.total else 100.0
            print(f"{self.label}: {self.done:,}/{self.total:,} ({pct:.0f}%)", end=end, file=self.stream, flush=True)


def build_tree(dest: Path, plan: list[tuple[str, list[str]]], jobs: int = 1, label: str = "generating") -> None:
    """Write ``plan`` under ``dest`` (which must not exist).

    Directories are created first, in parent-first order, so that file writers,
    possibly in several processes, never race on a missing parent.
    """
    os.mkdir(dest)
    for rel, _ in plan:
        os.mkdir(dest / rel)
    total = sum(len(names) for _, names in plan)
    progress = Progress(label, total)
    work = [(str(dest), rel, names) for rel, names in plan]
    if jobs > 1 and total >= PARALLEL_GENERATION_THRESHOLD:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for n in pool.imap_unordered(_write_dir_job, work):
                progress.advance(n)
    else:
        for job in work:
            progress.advance(_write_dir_job(job))


def _read_json(path: Path) -> Optional[dict]:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON via a temp file and rename, so readers never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def _partial_dirs(data_dir: Path, name: str) -> list[Path]:
    return sorted(data_dir.glob(f".{name}.partial-*"))


@contextlib.contextmanager
def _data_dir_lock(data_dir: Path):
    """Serialise dataset builds between concurrent harness runs on one data dir."""
    with open(data_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ensure_dataset(data_dir: Path, shape: Shape, jobs: int = 1, seed: int = SEED) -> tuple[Path, dict]:
    """Return (root, manifest) of ``shape`` under ``data_dir``, building it if needed.

    The tree is reused only if its directory exists *and* the manifest beside it
    equals the one the current generator would write.  The directory appears under
    its final name only through os.rename of a completed build, and the manifest is
    written after that rename, so a crash at any point leaves something that fails
    this check and is rebuilt: a leftover ``.NAME.partial-PID`` directory is deleted,
    never adopted.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    root = data_dir / shape.name
    manifest_path = data_dir / f"{shape.name}.manifest.json"
    plan = plan_files(shape, seed)
    manifest = manifest_for(shape, plan, seed)
    with _data_dir_lock(data_dir):
        if root.is_dir() and _read_json(manifest_path) == manifest:
            return root, manifest
        for stale in _partial_dirs(data_dir, shape.name):
            log(f"removing interrupted build {stale}")
            shutil.rmtree(stale)
        if root.exists():
            log(f"dataset {root} is stale or unverified; rebuilding")
            with contextlib.suppress(FileNotFoundError):
                manifest_path.unlink()
            shutil.rmtree(root)
        partial = data_dir / f".{shape.name}.partial-{os.getpid()}"
        started = time.monotonic()
        build_tree(partial, plan, jobs, label=f"generating {shape.name}")
        os.rename(partial, root)
        _write_json_atomic(manifest_path, manifest)
        if manifest["files"] >= SYNC_THRESHOLD:
            os.sync()
        log(f"generated {shape.name}: {manifest['files']:,} files in {time.monotonic() - started:.1f} s")
    return root, manifest


# ---------------------------------------------------------------------------
# Scenarios and tools
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """What to find: optional extension list, optional basename glob, or a count."""

    name: str
    exts: tuple[str, ...] = ()
    glob: Optional[str] = None
    count: bool = False

    def expected(self, manifest: dict) -> int:
        """The exact number of matches, from the manifest rather than any tool."""
        if self.exts:
            return sum(manifest["extensions"][e] for e in self.exts)
        if self.glob:
            return manifest["glob"][self.glob]
        return manifest["files"]

    def describe(self) -> dict:
        return {"extensions": list(self.exts), "glob": self.glob, "count": self.count}


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("all_files"),
        Scenario("extension_jpg", exts=("jpg",)),
        Scenario("extension_multi", exts=("jpg", "png", "txt")),
        Scenario("name_glob", glob=NAME_GLOB),
        Scenario("count_only", count=True),
    )
}
SCENARIO_ORDER = list(SCENARIOS)

# Roles decide how a tool enters the ranking: the subject is pfind, competitors
# can be the runner-up, references (floor) are shown but never ranked.
SUBJECT, COMPETITOR, REFERENCE = "subject", "competitor", "reference"


def pfind_argv(exe: str, root: str, sc: Scenario, extra: Iterable[str] = ()) -> list[str]:
    """pfind's own flags; ``extra`` (from --pfind-args) goes last so it can add options."""
    argv = [exe, root]
    for e in sc.exts:
        argv += ["-e", e]
    if sc.glob:
        argv += ["-n", sc.glob]
    if sc.count:
        argv.append("-c")
    return argv + list(extra)


def fd_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    """fd without ignore files or hidden-file skipping, so it sees what pfind sees.

    fd's -e already ignores case like pfind's; its glob uses smart case, so -s makes
    it case-sensitive like pfind's -n.  fd has no count mode: count_only lists.
    """
    argv = [exe, "-t", "f", "--no-ignore", "--hidden"]
    for e in sc.exts:
        argv += ["-e", e]
    if sc.glob:
        return argv + ["-s", "-g", sc.glob, root]
    return argv + [".", root]


def rg_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    """ripgrep's file lister; --iglob mirrors pfind's case-insensitive -e."""
    argv = [exe, "--no-config", "--files", "--no-ignore", "--hidden"]
    for e in sc.exts:
        argv += ["--iglob", f"*.{e}"]
    if sc.glob:
        argv += ["-g", sc.glob]
    return argv + [root]


def find_expression(sc: Scenario) -> list[str]:
    """The find/bfs expression for a scenario (shared: bfs accepts find syntax)."""
    expr = ["-type", "f"]
    if len(sc.exts) == 1:
        expr += ["-iname", f"*.{sc.exts[0]}"]
    elif sc.exts:
        alts: list[str] = []
        for e in sc.exts:
            alts += (["-o"] if alts else []) + ["-iname", f"*.{e}"]
        expr += ["("] + alts + [")"]
    if sc.glob:
        expr += ["-name", sc.glob]
    return expr


def find_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    return [exe, root] + find_expression(sc)


def floor_argv(exe: str, root: str, sc: Scenario, threads: int) -> list[str]:
    """floor has no filters: it prints every path for all_files and only counts
    otherwise, which is the least work any filtered walk can do."""
    argv = [exe, "-j", str(threads)]
    if sc.name == "all_files":
        argv.append("-p")
    return argv + [root]


# The os.walk baseline, run as `python3 -I -S -c OSWALK_SCRIPT ROOT COUNT GLOB EXT...`.
# It is kept standalone (not an import of this module) so its start-up cost is that
# of a plain Python script.  It avoids single quotes so shlex quoting stays simple.
OSWALK_SCRIPT = """\
import os, sys, fnmatch
root, count, glob = sys.argv[1:4]
exts = tuple("." + e.lower() for e in sys.argv[4:])
n = 0
out = sys.stdout
for d, _, files in os.walk(root):
    if exts:
        files = [f for f in files if f.lower().endswith(exts)]
    if glob:
        files = fnmatch.filter(files, glob)
    n += len(files)
    if count == "0" and files:
        out.write("".join(d + "/" + f + "\\n" for f in files))
if count == "1":
    out.write(str(n) + "\\n")
"""


def oswalk_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    return [exe, "-I", "-S", "-c", OSWALK_SCRIPT, root, "1" if sc.count else "0", sc.glob or ""] + list(sc.exts)


@dataclass
class Tool:
    """An installed tool and how it expresses each scenario."""

    name: str
    role: str
    path: str
    version: str
    argv_for: Callable[[str, Scenario], list[str]]
    # Whether the tool prints a single integer (instead of paths) for a scenario.
    prints_count: Callable[[Scenario], bool] = lambda sc: False
    # Whether the tool's output for a scenario should equal the expected count.
    comparable: Callable[[Scenario], bool] = lambda sc: True

    def describe(self) -> dict:
        return {"path": self.path, "version": self.version, "role": self.role}


PEER_NAMES = ("fd", "rg", "bfs", "find", "oswalk")
# Executable names to try for each peer, preferred first (Debian ships fd as fdfind).
PEER_EXECUTABLES = {"fd": ("fd", "fdfind"), "rg": ("rg",), "bfs": ("bfs",), "find": ("find",)}


def which(names: Iterable[str], path: Optional[str] = None) -> Optional[str]:
    """Find the first of ``names`` on PATH, also looking in ~/.cargo/bin where
    `cargo install fd-find ripgrep` puts them even when it is not on PATH."""
    search = path if path is not None else os.environ.get("PATH", "")
    cargo_bin = str(Path.home() / ".cargo" / "bin")
    if path is None and cargo_bin not in search.split(os.pathsep):
        search = search + os.pathsep + cargo_bin
    for name in names:
        found = shutil.which(name, path=search)
        if found:
            return found
    return None


def tool_version(argv: list[str]) -> str:
    """First non-empty line of ``argv``'s output (e.g. `fd --version`), or 'unknown'."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    for line in (proc.stdout + "\n" + proc.stderr).splitlines():
        if line.strip():
            return line.strip()
    return "unknown"


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_pfind(path: str, extra_args: Iterable[str] = ()) -> Tool:
    extra = list(extra_args)
    return Tool(
        "pfind",
        SUBJECT,
        path,
        tool_version([path, "--version"]),
        lambda root, sc: pfind_argv(path, root, sc, extra),
        prints_count=lambda sc: sc.count,
    )


def make_floor(path: str, threads: int) -> Tool:
    return Tool(
        "floor",
        REFERENCE,
        path,
        f"floor.c build sha256:{file_sha256(path)[:12]}",
        lambda root, sc: floor_argv(path, root, sc, threads),
        prints_count=lambda sc: sc.name != "all_files",
        comparable=lambda sc: sc.name in ("all_files", "count_only"),
    )


def make_peer(name: str, path: str) -> Tool:
    builders = {"fd": fd_argv, "rg": rg_argv, "bfs": find_argv, "find": find_argv, "oswalk": oswalk_argv}
    build = builders[name]
    if name == "oswalk":
        version = f"Python {platform.python_version()} os.walk"
    else:
        version = tool_version([path, "--version"])
    # Only the os.walk baseline (our own script) has a count mode; the real peers
    # list matches and the harness counts the lines.
    prints_count = (lambda sc: sc.count) if name == "oswalk" else (lambda sc: False)
    return Tool(name, COMPETITOR, path, version, lambda root, sc: build(path, root, sc), prints_count=prints_count)


def discover_peers(wanted: Iterable[str], path: Optional[str] = None) -> tuple[list[Tool], dict[str, str]]:
    """Installed peers among ``wanted`` plus {name: reason} for the skipped ones.

    A missing peer is reported, not fatal: a report with fewer columns is still
    useful, and the README states which tools were present.
    """
    tools, skipped = [], {}
    for name in wanted:
        if name == "oswalk":
            tools.append(make_peer(name, sys.executable))
            continue
        exe = which(PEER_EXECUTABLES[name], path)
        if exe is None:
            skipped[name] = "not installed (looked for " + ", ".join(PEER_EXECUTABLES[name]) + ")"
        else:
            tools.append(make_peer(name, exe))
    return tools, skipped


# ---------------------------------------------------------------------------
# Machine description
# ---------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "Processor", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def filesystem_of(path: Path) -> str:
    """Filesystem type of ``path``: the longest matching /proc/mounts entry (which
    names ext4 as ext4, unlike `stat -f`), falling back to `stat -f -c %T`."""
    real = os.path.realpath(path)
    best, fstype = "", None
    try:
        with open("/proc/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3:
                    continue
                mnt = parts[1].replace("\\040", " ")
                inside = real == mnt or real.startswith(mnt.rstrip("/") + "/")
                if inside and len(mnt) >= len(best):
                    best, fstype = mnt, parts[2]
    except OSError:
        pass
    if fstype:
        return fstype
    try:
        return subprocess.run(["stat", "-f", "-c", "%T", real], capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _meminfo_total() -> Optional[int]:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _os_name() -> str:
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine_info(data_dir: Path) -> dict:
    return {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "available_cpus": available_cpus(),
        "memory_bytes": _meminfo_total(),
        "os": _os_name(),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "data_dir": str(data_dir),
        "filesystem": filesystem_of(data_dir),
        "python": platform.python_version(),
    }


def git_revision(repo: Path) -> Optional[str]:
    """`git describe --always --dirty` of the harness's checkout, if there is one."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None


# ---------------------------------------------------------------------------
# Timing (hyperfine) and correctness runs
# ---------------------------------------------------------------------------


def hyperfine_argv(
    hyperfine: str, named_commands: list[tuple[str, list[str]]], warmup: int, runs: int, export: str, output: str = "null"
) -> list[str]:
    """One hyperfine invocation timing all commands side by side.

    -N runs each command without a shell (no shell start-up in the numbers, no
    quoting surprises); hyperfine splits the strings with POSIX rules, so each argv
    is joined with shlex.  Names keep the JSON keyed by tool, not by command line.
    """
    argv = [hyperfine, "-N", "--warmup", str(warmup), "--runs", str(runs), f"--output={output}", "--export-json", export]
    for name, _ in named_commands:
        argv += ["--command-name", name]
    argv += [shlex.join(cmd) for _, cmd in named_commands]
    return argv


def _stderr_target():
    """Where hyperfine's live results go: our stderr (keeping stdout for the final
    tables), or nowhere when stderr is not a real file (e.g. under unit tests)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return subprocess.DEVNULL


def run_hyperfine(hyperfine: str, named_commands, warmup: int, runs: int, output: str) -> dict:
    """Run hyperfine and return its JSON export.

    Its results are shown live on stderr; its own stderr (warnings, errors) is
    captured so that a failure's reason can be stored in the report, then relayed.
    """
    with tempfile.TemporaryDirectory(prefix="pfind-bench-") as tmp:
        export = os.path.join(tmp, "hyperfine.json")
        argv = hyperfine_argv(hyperfine, named_commands, warmup, runs, export, output)
        proc = subprocess.run(argv, stdout=_stderr_target(), stderr=subprocess.PIPE, text=True, errors="replace")
        messages = proc.stderr.strip()
        if messages:
            log(messages)
        if proc.returncode != 0:
            last = messages.splitlines()[-1] if messages else ""
            raise RuntimeError(f"hyperfine exited with status {proc.returncode}: {last}".rstrip(": "))
        with open(export) as f:
            return json.load(f)


def timing_stats(hf_result: dict) -> dict:
    """The fields of one hyperfine result we keep, all in seconds."""
    keys = ("mean", "stddev", "median", "min", "max", "user", "system")
    stats = {k: hf_result.get(k) for k in keys}
    stats["times"] = list(hf_result.get("times") or [])
    stats["exit_codes"] = list(hf_result.get("exit_codes") or [])
    return stats


def results_by_name(hf_json: dict, names: list[str]) -> dict[str, dict]:
    """Map hyperfine's results (same order as the commands) to tool names."""
    results = hf_json.get("results", [])
    if len(results) != len(names):
        raise ValueError(f"hyperfine returned {len(results)} results for {len(names)} commands")
    return {name: timing_stats(r) for name, r in zip(names, results)}


def count_lines(data: bytes) -> int:
    """Lines in a listing, counting an unterminated last line too."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def run_capture(argv: list[str]) -> bytes:
    """stdout of ``argv``; a non-zero exit is an error carrying its last stderr line."""
    return run_measured(argv)[0]


def run_measured(argv: list[str]) -> tuple[bytes, Optional[int]]:
    """stdout of ``argv`` and the child's peak resident memory in KiB (None when GNU
    ``time`` is not installed).

    The peak is the kernel's own accounting (``ru_maxrss``), read by GNU ``time -f
    %M``.  It cannot be read here directly: Linux keeps a process's high-water mark
    across ``exec``, so any child forked from this Python process (or from a shell
    forked from it) starts with Python's own peak of some 20 MiB.  ``time`` is a
    small program that forks the tool itself, so the figure is the tool's alone."""
    gnu_time = gnu_time_path()
    with tempfile.NamedTemporaryFile(mode="r") as rss_file:
        wrapped = [gnu_time, "-f", "%M", "-o", rss_file.name, *argv] if gnu_time else argv
        proc = subprocess.run(wrapped, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rss_text = rss_file.read().strip().splitlines()
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"{shlex.join(argv[:1])} exited {proc.returncode}: {lines[-1] if lines else ''}")
    max_rss = int(rss_text[-1]) if gnu_time and rss_text and rss_text[-1].isdigit() else None
    return proc.stdout, max_rss


def gnu_time_path() -> Optional[str]:
    """/usr/bin/time when it is GNU time (the only one with -f and -o), else None."""
    path = shutil.which("time", path="/usr/bin:/bin")
    if not path:
        return None
    probe = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return path if b"GNU" in probe.stdout else None


def output_count(tool: Tool, sc: Scenario, out: bytes) -> int:
    """The number of matches a tool reported, from a count line or its listing."""
    if tool.prints_count(sc):
        return int(out.strip())
    return count_lines(out)


def compare_paths(subject: bytes, reference: bytes, sample: int = 3) -> dict:
    """Compare two newline-separated listings as sets of byte strings.

    Order is ignored (parallel walkers print in any order) but duplicates are
    not: a path printed twice is a bug even if the set is right.
    """
    a = subject.splitlines()
    b = reference.splitlines()
    sa, sb = set(a), set(b)
    return {
        "equal": sa == sb and len(a) == len(sa),
        "subject_lines": len(a),
        "reference_lines": len(b),
        "duplicates": len(a) - len(sa),
        "only_subject": sorted(p.decode(errors="replace") for p in sa - sb)[:sample],
        "only_reference": sorted(p.decode(errors="replace") for p in sb - sa)[:sample],
    }


def correctness_check(tools: list[Tool], root: str, sc: Scenario, expected: int, path_reference: Optional[Tool]) -> dict:
    """Untimed runs of every tool: counts versus the manifest, pfind's paths versus
    the reference tool's (GNU find, or the os.walk baseline if find is missing)."""
    counts: dict[str, Optional[int]] = {}
    ok: dict[str, Optional[bool]] = {}
    errors: dict[str, str] = {}
    outputs: dict[str, bytes] = {}
    max_rss_kib: dict[str, Optional[int]] = {}
    for tool in tools:
        max_rss_kib[tool.name] = None
        try:
            out, max_rss_kib[tool.name] = run_measured(tool.argv_for(root, sc))
            counts[tool.name] = output_count(tool, sc, out)
            if tool.name == "pfind" or (path_reference and tool.name == path_reference.name):
                outputs[tool.name] = out  # keep only what the path check needs (1M paths is ~40 MB)
        except (RuntimeError, ValueError, OSError) as e:
            counts[tool.name] = None
            errors[tool.name] = str(e)
        ok[tool.name] = (counts[tool.name] == expected) if tool.comparable(sc) else None
    paths = None
    if not sc.count and path_reference is not None and "pfind" in outputs:
        ref_out = outputs.get(path_reference.name)
        if ref_out is None:
            with contextlib.suppress(RuntimeError, OSError):
                ref_out = run_capture(path_reference.argv_for(root, sc))
        if ref_out is not None:
            paths = {"reference": path_reference.name, **compare_paths(outputs["pfind"], ref_out)}
    pfind_ok = ok.get("pfind") is True and (paths is None or paths["equal"])
    return {
        "expected": expected,
        "counts": counts,
        "count_ok": ok,
        "errors": errors,
        "paths": paths,
        "pfind_correct": pfind_ok,
        "max_rss_kib": max_rss_kib,
    }


# ---------------------------------------------------------------------------
# Report assembly
# ---------------------------------------------------------------------------


def rank(results: dict[str, dict], roles: dict[str, str]) -> dict:
    """pfind against the fastest competitor by mean wall time.

    speedup = runner-up mean / pfind mean, so 2.0 means pfind takes half the time.
    References are excluded: floor is a measuring stick, not a product.
    """
    competitors = {n: r for n, r in results.items() if roles.get(n) == COMPETITOR and r.get("mean")}
    pfind = results.get("pfind")
    if not pfind or not pfind.get("mean") or not competitors:
        return {"runner_up": None, "speedup": None, "pfind_fastest": None}
    runner_up = min(competitors, key=lambda n: competitors[n]["mean"])
    speedup = competitors[runner_up]["mean"] / pfind["mean"]
    return {"runner_up": runner_up, "speedup": speedup, "pfind_fastest": speedup > 1.0}


def make_cell(scenario: Scenario, size: str, root: str, tools: list[Tool], hf_json: Optional[dict], check: dict, error: Optional[str] = None) -> dict:
    """One (scenario, size) entry of the report."""
    names = [t.name for t in tools]
    results = results_by_name(hf_json, names) if hf_json else {}
    cell = {
        "scenario": scenario.name,
        "size": size,
        "root": root,
        "commands": {t.name: shlex.join(t.argv_for(root, scenario)) for t in tools},
        "results": results,
        **rank(results, {t.name: t.role for t in tools}),
        "correctness": check,
    }
    if error:
        cell["error"] = error
    return cell


def make_report(
    *, machine: dict, tools: list[Tool], skipped: dict, config: dict, datasets: dict, cells: list[dict], sweep: Optional[dict]
) -> dict:
    return {
        "schema": REPORT_SCHEMA,
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "tools": {t.name: t.describe() for t in tools},
        "skipped_tools": skipped,
        "config": config,
        "datasets": datasets,
        "cells": cells,
        "thread_sweep": sweep,
        "pfind_correct": all(c["correctness"]["pfind_correct"] for c in cells),
        "all_timings_ok": all("error" not in c for c in cells) and (sweep is None or "error" not in sweep),
    }


# ---------------------------------------------------------------------------
# Text output
# ---------------------------------------------------------------------------


def fmt_time(stats: Optional[dict]) -> str:
    if not stats or stats.get("mean") is None:
        return "-"
    return f"{stats['mean'] * 1e3:.1f} ± {(stats.get('stddev') or 0) * 1e3:.1f} ms"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def timing_tables(report: dict) -> str:
    """One Markdown table per scenario: rows are sizes, columns tools."""
    tools = list(report["tools"])
    label = {n: (f"{n} (ref)" if report["tools"][n]["role"] == REFERENCE else n) for n in tools}
    out = []
    for scenario in SCENARIO_ORDER:
        cells = [c for c in report["cells"] if c["scenario"] == scenario]
        if not cells:
            continue
        rows = []
        for c in sorted(cells, key=lambda c: SIZE_ORDER.index(c["size"])):
            speed = f"{c['speedup']:.2f}x vs {c['runner_up']}" if c.get("speedup") else "-"
            rows.append([c["size"]] + [fmt_time(c["results"].get(n)) for n in tools] + [speed])
        out.append(f"### {scenario}\n\n" + markdown_table(["size"] + [label[n] for n in tools] + ["pfind speedup"], rows))
    out.append("speedup = runner-up mean / pfind mean (above 1: pfind is faster); (ref) tools are not ranked.")
    return "\n\n".join(out)


def correctness_table(report: dict) -> str:
    """Every tool's count per cell next to the generator's, plus pfind's path check."""
    tools = list(report["tools"])
    rows = []
    for c in report["cells"]:
        chk = c["correctness"]
        row = [c["scenario"], c["size"], str(chk["expected"])]
        for n in tools:
            count, ok = chk["counts"].get(n), chk["count_ok"].get(n)
            text = "error" if count is None and n in chk["counts"] else ("-" if count is None else str(count))
            if ok is False:
                text += " (!)"
            elif ok is None and count is not None:
                text += " (n/a)"
            row.append(text)
        paths = chk.get("paths")
        row.append("-" if paths is None else ("equal" if paths["equal"] else "DIFFERENT"))
        rows.append(row)
    header = ["scenario", "size", "expected"] + tools + ["pfind paths vs " + _path_ref_name(report)]
    return markdown_table(header, rows) + "\n(!) = differs from the generator's count; (n/a) = not comparable (floor does not filter)."


def memory_table(report: dict, scenario: str = "all_files") -> str:
    """Peak resident memory (max RSS) of each tool's untimed run of ``scenario``, per
    size, in MiB."""
    tools = list(report["tools"])
    rows = []
    for c in report["cells"]:
        if c["scenario"] != scenario:
            continue
        rss = c["correctness"].get("max_rss_kib", {})
        rows.append([c["size"]] + [f"{rss[n] / 1024:.1f}" if rss.get(n) else "-" for n in tools])
    if not rows:
        return ""
    return markdown_table(["size"] + tools, rows) + f"\npeak RSS in MiB of one untimed {scenario} run, measured by GNU time (%M)."


def _path_ref_name(report: dict) -> str:
    for c in report["cells"]:
        if c["correctness"].get("paths"):
            return c["correctness"]["paths"]["reference"]
    return "find"


def sweep_table(sweep: dict) -> str:
    def passes(point: dict) -> str:
        return " / ".join(f"{m * 1e3:.1f}" for m in point.get("pass_means", [])) or "-"

    rows = [[str(p["threads"]), fmt_time(p), passes(p)] for p in sweep["points"]]
    header = ["-j", "pfind (both passes)", "pass means, ms"]
    return f"### thread sweep: {sweep['scenario']} on {sweep['size']}\n\n" + markdown_table(header, rows)


def summary_lines(report: dict) -> list[str]:
    ranked = [c for c in report["cells"] if c.get("speedup")]
    lines = []
    if ranked:
        wins = sum(1 for c in ranked if c["speedup"] > 1.0)
        clear = sum(1 for c in ranked if c["speedup"] >= 1.05)
        worst = min(ranked, key=lambda c: c["speedup"])
        lines.append(
            f"pfind fastest in {wins}/{len(ranked)} cells ({clear} by at least 5%); "
            f"smallest margin {worst['speedup']:.2f}x on {worst['scenario']}/{worst['size']} vs {worst['runner_up']}"
        )
    failed = [f"{c['scenario']}/{c['size']}" for c in report["cells"] if "error" in c]
    if failed:
        lines.append("timing FAILED in " + ", ".join(failed) + " (see the cells' error field)")
    bad = [f"{c['scenario']}/{c['size']}" for c in report["cells"] if not c["correctness"]["pfind_correct"]]
    lines.append("correctness: pfind agrees everywhere" if not bad else "correctness: pfind DISAGREES in " + ", ".join(bad))
    peers_bad = [
        f"{n} on {c['scenario']}/{c['size']}"
        for c in report["cells"]
        for n, ok in c["correctness"]["count_ok"].items()
        if ok is False and n != "pfind"
    ]
    if peers_bad:
        lines.append("note: peer counts differ (check their command lines): " + ", ".join(peers_bad))
    return lines


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Charts (--plot); matplotlib is imported only here
# ---------------------------------------------------------------------------


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit("benchmark.py: --plot needs matplotlib (pip install matplotlib)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "pfind"  # stable ids: regenerated SVGs diff cleanly
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None, bbox_inches="tight")
    log(f"wrote {path}")


def plot_headline(report: dict, size: str, path: Path) -> bool:
    """Grouped bars: for each scenario, every tool's mean wall time on ``size``."""
    plt = _pyplot()
    cells = {c["scenario"]: c for c in report["cells"] if c["size"] == size and c["results"]}
    scenarios = [s for s in SCENARIO_ORDER if s in cells]
    if not scenarios:
        log(f"no timings for size {size}; skipping headline chart")
        return False
    tools = [n for n in report["tools"] if any(n in cells[s]["results"] for s in scenarios)]
    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.8 / len(tools)
    means = []
    for i, name in enumerate(tools):
        xs, ys, errs = [], [], []
        for j, s in enumerate(scenarios):
            r = cells[s]["results"].get(name)
            if r and r.get("mean"):
                xs.append(j + (i - (len(tools) - 1) / 2) * width)
                ys.append(r["mean"] * 1e3)
                errs.append((r.get("stddev") or 0) * 1e3)
        means += ys
        ref = report["tools"][name]["role"] == REFERENCE
        ax.bar(xs, ys, width, yerr=errs, capsize=2, label=name + (" (reference)" if ref else ""), hatch="//" if ref else None, alpha=0.6 if ref else 1.0)
    if means and max(means) / max(min(means), 1e-9) > 20:
        # A slow baseline would flatten every other bar on a linear axis.
        from matplotlib.ticker import FuncFormatter

        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.set_ylabel("mean wall time, ms (log scale)")
    else:
        ax.set_ylabel("mean wall time, ms")
    ax.set_xticks(range(len(scenarios)))
    ax.set_xticklabels(scenarios)
    files = report.get("datasets", {}).get(size, {}).get("files")
    ax.set_title(f"{size} dataset" + (f" ({files:,} files)" if files else "") + ": lower is better")
    ax.legend(fontsize="small", ncol=min(len(tools), 4))
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)
    plt.close(fig)
    return True


def plot_heatmap(report: dict, path: Path) -> bool:
    """Scenario x size grid of pfind's speedup over the runner-up."""
    plt = _pyplot()
    from matplotlib.colors import TwoSlopeNorm

    sizes = [s for s in SIZE_ORDER if any(c["size"] == s for c in report["cells"])]
    scenarios = [s for s in SCENARIO_ORDER if any(c["scenario"] == s for c in report["cells"])]
    by_key = {(c["scenario"], c["size"]): c for c in report["cells"]}
    grid = [[(by_key.get((sc, sz)) or {}).get("speedup") for sz in sizes] for sc in scenarios]
    values = [v for row in grid for v in row if v]
    if not values:
        log("no speedups in report; skipping heat map")
        return False
    norm = TwoSlopeNorm(vcenter=1.0, vmin=min(values + [0.5]), vmax=max(values + [2.0]))
    data = [[v if v else float("nan") for v in row] for row in grid]
    fig, ax = plt.subplots(figsize=(1.6 * len(sizes) + 2.5, 0.8 * len(scenarios) + 1.5))
    im = ax.imshow(data, cmap="RdYlGn", norm=norm, aspect="auto")
    for i, sc in enumerate(scenarios):
        for j, sz in enumerate(sizes):
            c = by_key.get((sc, sz))
            if c and c.get("speedup"):
                dark = not 0.15 < norm(c["speedup"]) < 0.85  # the colormap's ends are dark
                ax.text(j, i, f"{c['speedup']:.2f}x\nvs {c['runner_up']}", ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(sizes)
    ax.set_yticks(range(len(scenarios)))
    ax.set_yticklabels(scenarios)
    ax.set_title("pfind speedup over the fastest other tool (above 1x: pfind faster)")
    fig.colorbar(im, ax=ax, label="runner-up mean / pfind mean")
    _save(fig, path)
    plt.close(fig)
    return True


def plot_sweep(report: dict, path: Path) -> bool:
    """pfind's mean wall time against -j, with one-sigma error bars."""
    sweep = report.get("thread_sweep")
    if not sweep or not sweep.get("points"):
        log("no thread sweep in report; skipping sweep chart")
        return False
    plt = _pyplot()
    pts = [p for p in sweep["points"] if p.get("mean")]
    xs = [p["threads"] for p in pts]
    ys = [p["mean"] * 1e3 for p in pts]
    errs = [(p.get("stddev") or 0) * 1e3 for p in pts]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.errorbar(xs, ys, yerr=errs, marker="o", capsize=3)
    best = min(range(len(ys)), key=ys.__getitem__)
    right_half = best >= len(xs) / 2  # keep the label inside the axes
    ax.annotate(
        f"fastest: -j {xs[best]} ({ys[best]:.1f} ms)",
        (xs[best], ys[best]),
        textcoords="offset points",
        xytext=(-10 if right_half else 10, 15),
        ha="right" if right_half else "left",
    )
    ax.set_xticks(xs)
    ax.set_xlabel("worker threads (-j)")
    ax.set_ylabel("mean wall time, ms")
    cpus = report.get("machine", {}).get("available_cpus")
    ax.set_title(f"pfind {sweep['scenario']} on {sweep['size']}" + (f" ({cpus} CPUs)" if cpus else ""))
    ax.grid(alpha=0.3)
    ax.set_ylim(bottom=0)
    _save(fig, path)
    plt.close(fig)
    return True


def plot_report(report_path: Path, assets: Path, size: str = "large", fmt: str = "svg") -> int:
    with open(report_path) as f:
        report = json.load(f)
    sizes = {c["size"] for c in report["cells"]}
    if size not in sizes and sizes:
        fallback = max(sizes, key=lambda s: report["datasets"].get(s, {}).get("files", 0))
        log(f"report has no {size} cells; headline chart uses {fallback}")
        size = fallback
    plot_headline(report, size, assets / f"headline_{size}.{fmt}")
    plot_heatmap(report, assets / f"speedup_heatmap.{fmt}")
    plot_sweep(report, assets / f"thread_sweep.{fmt}")
    return 0


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(
        description="Benchmark pfind against fd, rg, bfs, GNU find and os.walk on generated trees.",
        epilog="Example: python3 benchmark.py --pfind ./target/release/pfind --sizes small deep --runs 10 --warmup 3 --output report.json",
    )
    p.add_argument("--pfind", default="./target/release/pfind", help="pfind binary to measure (default: %(default)s)")
    p.add_argument("--pfind-args", default="", help="extra arguments for pfind, e.g. --pfind-args='-j 2'")
    p.add_argument("--sizes", nargs="+", choices=SIZE_ORDER, default=SIZE_ORDER, metavar="SIZE", help="datasets: " + " ".join(SIZE_ORDER) + " (default: all)")
    p.add_argument("--scenarios", nargs="+", choices=SCENARIO_ORDER, default=SCENARIO_ORDER, metavar="SCENARIO", help="scenarios: " + " ".join(SCENARIO_ORDER) + " (default: all)")
    p.add_argument("--tools", nargs="+", choices=PEER_NAMES, default=list(PEER_NAMES), metavar="TOOL", help="peers to compare: " + " ".join(PEER_NAMES) + " (default: all installed)")
    p.add_argument("--skip-oswalk", action="store_true", help="leave out the Python os.walk baseline")
    p.add_argument("--floor", metavar="PATH", help="compiled shared/tools/floor.c, timed as an unranked reference")
    p.add_argument("--runs", type=int, default=10, help="measured runs per command (default: %(default)s)")
    p.add_argument("--warmup", type=int, default=3, help="warmup runs per command (default: %(default)s)")
    p.add_argument("--hyperfine-output", choices=("null", "pipe"), default="null", help="where timed runs write: /dev/null or a pipe (default: %(default)s)")
    p.add_argument("--data-dir", type=Path, default=Path("/tmp/pfind_ds"), help="dataset cache (default: %(default)s)")
    p.add_argument("--gen-jobs", type=int, default=available_cpus(), help="processes writing large datasets (default: CPUs available)")
    p.add_argument("--threads-sweep", nargs="+", type=int, metavar="N", help="also time pfind alone at each -j N")
    p.add_argument("--sweep-size", choices=SIZE_ORDER, default="large", help="dataset for the thread sweep (default: %(default)s)")
    p.add_argument("--sweep-scenario", choices=SCENARIO_ORDER, default="all_files", help="scenario for the thread sweep (default: %(default)s)")
    p.add_argument("--output", type=Path, default=Path("pfind-benchmark.json"), help="JSON report path (default: %(default)s)")
    p.add_argument("--plot", type=Path, metavar="REPORT", help="only draw charts from an existing report, then exit")
    p.add_argument("--plot-size", default="large", choices=SIZE_ORDER, help="dataset of the headline chart (default: %(default)s)")
    p.add_argument("--assets-dir", type=Path, default=here / "assets", help="where --plot writes charts (default: assets/ next to this script)")
    p.add_argument("--plot-format", choices=("svg", "png"), default="svg", help="chart format (default: %(default)s)")
    args = p.parse_args(argv)
    args.pfind_extra = shlex.split(args.pfind_args)
    if args.skip_oswalk:
        args.tools = [t for t in args.tools if t != "oswalk"]
    if args.runs < 1 or args.warmup < 0:
        p.error("--runs must be at least 1 and --warmup at least 0")
    if args.threads_sweep and any(n < 1 for n in args.threads_sweep):
        p.error("--threads-sweep values must be at least 1")
    if args.threads_sweep and any(a in ("-j", "--threads") or a.startswith(("-j", "--threads=")) for a in args.pfind_extra):
        p.error("--pfind-args must not set -j when --threads-sweep is used (the sweep sets it)")
    return args


def unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def run_matrix(args, tools, datasets, hyperfine) -> list[dict]:
    """Time and check every requested (scenario, size) cell."""
    path_ref = next((t for t in tools if t.name == "find"), None) or next((t for t in tools if t.name == "oswalk"), None)
    if path_ref is None:
        path_ref = make_peer("oswalk", sys.executable)
    sizes, scenarios = unique(args.sizes), unique(args.scenarios)
    total = len(sizes) * len(scenarios)
    cells = []
    for i, (size, scen_name) in enumerate(((sz, sc) for sz in sizes for sc in scenarios), 1):
        sc = SCENARIOS[scen_name]
        root, manifest = datasets[size]
        root = str(root)
        log(f"[{i}/{total}] {scen_name} on {size}: timing {', '.join(t.name for t in tools)}")
        named = [(t.name, t.argv_for(root, sc)) for t in tools]
        hf_json, error = None, None
        try:
            hf_json = run_hyperfine(hyperfine, named, args.warmup, args.runs, args.hyperfine_output)
        except (RuntimeError, OSError, ValueError) as e:
            error = str(e)
            log(f"  timing failed: {error}")
        check = correctness_check(tools, root, sc, sc.expected(manifest), path_ref)
        if not check["pfind_correct"]:
            got = check["counts"].get("pfind")
            paths = check["paths"] or {}
            detail = check["errors"].get("pfind") or (f"{got} matches" + ("" if paths.get("equal", True) else f", paths differ from {paths['reference']}"))
            log(f"  pfind disagrees: expected {check['expected']} matches, got {detail}")
        cells.append(make_cell(sc, size, root, tools, hf_json, check, error))
    return cells


def run_sweep(args, pfind: Tool, datasets, hyperfine) -> dict:
    """pfind alone at each -j: the curve that justifies the default thread count.

    The sweep is timed twice, the second time in reverse order, and each point pools
    both passes.  hyperfine runs one command's runs back to back, so on a shared
    machine a slow stretch can land on a single -j and invent a dip in the curve;
    with the order reversed it lands elsewhere, and the two pass means are kept so
    a reader can see how far they agree."""
    sc = SCENARIOS[args.sweep_scenario]
    root = str(datasets[args.sweep_size][0])
    threads = unique(str(n) for n in args.threads_sweep)
    named = [(f"pfind -j {n}", pfind_argv(pfind.path, root, sc, args.pfind_extra + ["-j", n])) for n in threads]
    log(f"thread sweep: {sc.name} on {args.sweep_size}, -j {' '.join(threads)} (two passes, second reversed)")
    sweep = {"scenario": sc.name, "size": args.sweep_size, "commands": {n: shlex.join(c) for n, c in named}, "points": []}
    try:
        passes = []
        for order in (named, named[::-1]):
            hf_json = run_hyperfine(hyperfine, order, args.warmup, args.runs, args.hyperfine_output)
            passes.append(results_by_name(hf_json, [n for n, _ in named]))
        sweep["points"] = [
            {"threads": int(n), **pool_passes([p[f"pfind -j {n}"] for p in passes])} for n in threads
        ]
    except (RuntimeError, OSError, ValueError) as e:
        sweep["error"] = str(e)
        log(f"  sweep failed: {e}")
    return sweep


def pool_passes(passes: list[dict]) -> dict:
    """One sweep point from several timing passes of the same command: statistics
    over all their runs together, plus each pass's own mean."""
    times = [t for p in passes for t in p["times"]]
    return {
        "mean": statistics.fmean(times),
        "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "user": statistics.fmean(p["user"] for p in passes),
        "system": statistics.fmean(p["system"] for p in passes),
        "times": times,
        "pass_means": [p["mean"] for p in passes],
    }


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.plot:
        return plot_report(args.plot, args.assets_dir, args.plot_size, args.plot_format)

    hyperfine = which(["hyperfine"])
    if hyperfine is None:
        log("benchmark.py: hyperfine is required (apt install hyperfine, or cargo install hyperfine)")
        return 2
    pfind_path = shutil.which(args.pfind) or (args.pfind if os.access(args.pfind, os.X_OK) else None)
    if pfind_path is None:
        log(f"benchmark.py: pfind binary {args.pfind} not found; run `cargo build --release` first")
        return 2
    pfind = make_pfind(os.path.abspath(pfind_path), args.pfind_extra)
    peers, skipped = discover_peers(unique(args.tools))
    for name, why in skipped.items():
        log(f"skipping {name}: {why}")
    tools = [pfind] + peers
    if args.floor:
        if os.access(args.floor, os.X_OK):
            tools.append(make_floor(os.path.abspath(args.floor), available_cpus()))
        else:
            skipped["floor"] = f"{args.floor} is not an executable"
            log(f"skipping floor: {skipped['floor']}")

    needed = unique(list(args.sizes) + ([args.sweep_size] if args.threads_sweep else []))
    datasets = {size: ensure_dataset(args.data_dir, SHAPES[size], args.gen_jobs) for size in needed}

    cells = run_matrix(args, tools, datasets, hyperfine)
    sweep = run_sweep(args, pfind, datasets, hyperfine) if args.threads_sweep else None

    config = {
        "argv": sys.argv if argv is None else ["benchmark.py"] + list(argv),
        "harness_revision": git_revision(Path(__file__).resolve().parent),
        "hyperfine": {"path": hyperfine, "version": tool_version([hyperfine, "--version"]), "warmup": args.warmup, "runs": args.runs, "output": args.hyperfine_output, "shell": "none"},
        "pfind_args": args.pfind_extra,
        "sizes": unique(args.sizes),
        "scenarios": {s: SCENARIOS[s].describe() for s in unique(args.scenarios)},
        "name_glob": NAME_GLOB,
    }
    report = make_report(
        machine=machine_info(args.data_dir),
        tools=tools,
        skipped=skipped,
        config=config,
        datasets={size: manifest for size, (_, manifest) in datasets.items()},
        cells=cells,
        sweep=sweep,
    )
    _write_json_atomic(args.output, report)

    print(timing_tables(report))
    if sweep and sweep.get("points"):
        print("\n" + sweep_table(sweep))
    print("\n### correctness\n\n" + correctness_table(report))
    memory = memory_table(report)
    if memory:
        print("\n### peak memory\n\n" + memory)
    print()
    for line in summary_lines(report):
        print(line)
    log(f"report written to {args.output}")
    return 0 if report["pfind_correct"] and report["all_timings_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
