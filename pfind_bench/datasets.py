"""The synthetic datasets: their shapes, the deterministic plan of every file, the
manifest of expected counts, and building a tree safely on any filesystem.

Generation is deterministic (fixed PRNG seed), so the expected number of files per
extension and per glob is known without trusting any walker; it is stored in a
manifest next to the tree.  A tree is built under a temporary name and renamed into
place only when it is complete, so an interrupted build can never be mistaken for a
finished one.  The same code builds the trees in --data-dir and on the loop-mounted
filesystems (the run passes each mount point as the data directory).
"""

from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import multiprocessing
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .common import NAME_GLOB, log, read_json, write_json_atomic

# Bump when the on-disk layout changes, so cached trees from an older harness are
# rebuilt instead of silently benchmarked.
GENERATOR_VERSION = 1
SEED = 0x9F14D  # fixed; changing it changes every tree (and invalidates caches)
EXTENSIONS = ("jpg", "png", "txt", "json", "py", "bin")
EXT_WEIGHTS = (40, 30, 10, 10, 5, 5)
PAYLOAD = b"x" * 100

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


def ensure_dataset(data_dir: Path, shape: Shape, jobs: int = 1, seed: int = SEED, where: str = "") -> tuple[Path, dict]:
    """Return (root, manifest) of ``shape`` under ``data_dir``, building it if needed
    (see ensure_tree).  ``where`` (e.g. "on xfs") only labels the progress lines."""
    plan = plan_files(shape, seed)
    manifest = manifest_for(shape, plan, seed)
    label = f"{shape.name} {where}".rstrip()
    root = ensure_tree(data_dir, shape.name, manifest, lambda dest: build_tree(dest, plan, jobs, label=f"generating {label}"), label)
    return root, manifest


def ensure_tree(data_dir: Path, name: str, manifest: dict, build: Callable[[Path], None], label: str) -> Path:
    """``data_dir/name``, built by ``build(dest)`` unless it is already there as
    ``manifest`` describes (datasets here, giant.py's and io500_tree.py's trees).

    The tree is reused only if its directory exists *and* the manifest beside it
    equals the one the current generator would write.  The directory appears under
    its final name only through os.rename of a completed build, and the manifest is
    written after that rename, so a crash at any point leaves something that fails
    this check and is rebuilt: a leftover ``.NAME.partial-PID`` directory is deleted,
    never adopted.  ``manifest["files"]`` decides whether to sync after a build.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    root = data_dir / name
    manifest_path = data_dir / f"{name}.manifest.json"
    with _data_dir_lock(data_dir):
        if root.is_dir() and read_json(manifest_path) == manifest:
            return root
        for stale in _partial_dirs(data_dir, name):
            log(f"removing interrupted build {stale}")
            shutil.rmtree(stale)
        if root.exists():
            log(f"dataset {root} is stale or unverified; rebuilding")
            with contextlib.suppress(FileNotFoundError):
                manifest_path.unlink()
            shutil.rmtree(root)
        partial = data_dir / f".{name}.partial-{os.getpid()}"
        started = time.monotonic()
        build(partial)
        os.rename(partial, root)
        write_json_atomic(manifest_path, manifest)
        if manifest["files"] >= SYNC_THRESHOLD:
            os.sync()
        log(f"generated {label}: {manifest['files']:,} files in {time.monotonic() - started:.1f} s")
    return root
