"""--giant: one directory of N entries, the shape that IO500's mdtest makes and that
pfind lists in pieces with several workers (issue 36).

This module owns the giant directories and their cells: the sizes (400k, 1m,
2000), the mdtest-style names (``file.mdtest.R.I``, empty files, as MDTEST_RANKS
ranks would write them into one shared directory), generating a directory once per
filesystem and caching it with a manifest (datasets.ensure_tree), which cells run
(every --cache mode on every --fs place, cold left out on tmpfs and without root),
the commands (pfind's default, -j 1 and each --giant-threads N; find ROOT -type f;
fd, rg and bfs with the flags of the all_files scenario where installed), one
cell's timing (hyperfine in passes of alternating order, caches dropped before
every cold run) and its count check (correctness.correctness_check against the
entry count, and pfind's paths against find's), and the table: per cache,
filesystem and size, each command's median (min-max) and pfind default's ratio to
its own -j 1 and to the fastest peer.

io500_tree.py builds on the names and the generator here; cli.py runs both modes
(run_giant_modes) and writes their sections of the report.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from .common import log, unique
from .correctness import correctness_check
from .datasets import PARALLEL_GENERATION_THRESHOLD, Progress, ensure_tree
from .filesystems import has_cold_state
from .timing import COLD
from .tools import SCENARIOS, Tool

GENERATOR_VERSION = 1
DEFAULT_SIZES = ("400k", "1m")
DEFAULT_THREADS = (4, 16)
# The ranks whose files share one directory: names file.mdtest.0.0 .. file.mdtest.3.N.
MDTEST_RANKS = 4
# The peers, in the order of the table (those installed and in --tools).
PEERS = ("find", "fd", "rg", "bfs")
SCENARIO = SCENARIOS["all_files"]
CHUNK = 10_000  # names per generator job

_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([km]?)$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """An entry count: 2000, 400k (thousands), 1m or 1.5m (millions).  ValueError
    on anything else or below 1."""
    m = _SIZE.match(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a count (2000, 400k, 1m)")
    n = float(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()]
    if n != int(n) or n < 1:
        raise ValueError(f"{text!r} is not a whole count of at least 1")
    return int(n)


def size_label(n: int) -> str:
    """400000 -> 400k, 1000000 -> 1m, 2500 -> 2500: how sizes are named in tables
    and on disk."""
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}m"
    if n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


def mdtest_names(n: int, ranks: int = MDTEST_RANKS) -> list[str]:
    """``n`` names file.mdtest.R.I: rank R's files numbered from 0, the ranks
    sharing ``n`` as evenly as can be (the first ones take the remainder)."""
    per, extra = divmod(n, ranks)
    return [f"file.mdtest.{r}.{i}" for r in range(ranks) for i in range(per + (1 if r < extra else 0))]


def _make_files(job: tuple[str, list[str], int]) -> int:
    """Create the files of ``job`` (directory, names, size) in that existing
    directory: empty files with one mknod each, or files of that size, sparse (the
    walks read sizes, never data).  A pool entry point."""
    directory, names, size = job
    dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            if size == 0:
                os.mknod(name, 0o644 | stat.S_IFREG, dir_fd=dfd)
                continue
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644, dir_fd=dfd)
            try:
                os.ftruncate(fd, size)
            finally:
                os.close(fd)
    finally:
        os.close(dfd)
    return len(names)


def fill_directory(directory: Path, names: list[str], size: int, jobs: int, label: str) -> None:
    """Create ``names`` of ``size`` bytes in ``directory`` (which exists), by a
    process pool when there are many."""
    work = [(str(directory), names[i : i + CHUNK], size) for i in range(0, len(names), CHUNK)]
    progress = Progress(label, len(names))
    if jobs > 1 and len(names) >= PARALLEL_GENERATION_THRESHOLD:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for n in pool.imap_unordered(_make_files, work):
                progress.advance(n)
    else:
        for job in work:
            progress.advance(_make_files(job))


def giant_manifest(n: int) -> dict:
    return {"generator_version": GENERATOR_VERSION, "kind": "giant", "name": f"giant-{size_label(n)}", "names": "file.mdtest.R.I", "ranks": MDTEST_RANKS, "bytes": 0, "dirs": 1, "files": n}


def ensure_giant(data_dir: Path, n: int, jobs: int = 1, where: str = "") -> tuple[Path, dict]:
    """(the directory, its manifest): ``data_dir/giant-SIZE``, made once with ``n``
    empty files and reused while its manifest matches."""
    manifest = giant_manifest(n)
    label = f"{manifest['name']} {where}".rstrip()

    def build(dest: Path) -> None:
        os.mkdir(dest)
        fill_directory(dest, mdtest_names(n), 0, jobs, f"generating {label}")

    return ensure_tree(data_dir, manifest["name"], manifest, build, label), manifest


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetPlan:
    """One cell of --giant (target: an entry count) or --io500-tree (the tree's
    entry count): a cache mode on a filesystem."""

    mode: str
    cache: str
    fs: str
    entries: int

    @property
    def label(self) -> str:
        return f"{self.mode} {size_label(self.entries)} ({self.cache}, {self.fs})"


def plan_targets(mode: str, caches: list[str], places: list[str], sizes: list[int], cold_unavailable: Optional[str]) -> tuple[list[TargetPlan], list[str]]:
    """The cells of ``mode`` in order (cache, filesystem, size), and one line per
    group left out: every cold cell without root, and cold on a memory filesystem."""
    plans, skips = [], []
    for cache in unique(caches):
        for fs in unique(places):
            cells = [TargetPlan(mode, cache, fs, n) for n in unique(sizes)]
            if cache == COLD and cold_unavailable:
                line = f"{mode}, cold: {cold_unavailable}"
                if line not in skips:
                    skips.append(line)
                continue
            if cache == COLD and not has_cold_state(fs):
                skips.append(f"{mode}, cold on {fs}: {fs} keeps its files only in memory, so there is no cold state to measure")
                continue
            plans += cells
    return plans, skips


def describe(plans: list[TargetPlan]) -> list[str]:
    """One line per (mode, cache, filesystem): the sizes timed (--dry-run and the log)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for p in plans:
        groups.setdefault((p.mode, p.cache, p.fs), []).append(size_label(p.entries))
    return [f"{mode}, {cache}, {fs}: {', '.join(sizes)} entries" for (mode, cache, fs), sizes in groups.items()]


# ---------------------------------------------------------------------------
# Commands, one cell, the table
# ---------------------------------------------------------------------------


def commands(pfind: Tool, threads: list[int], peers: list[Tool]) -> list[Tool]:
    """What a cell times: pfind (its default, named "pfind" so the harness's check
    compares its paths with find's), pfind -j 1 and -j N for each ``threads``, then
    the peers in PEERS order."""
    variants = [pfind]
    for n in unique([1] + list(threads)):
        argv_for = lambda root, sc, n=n: pfind.argv_for(root, sc) + ["-j", str(n)]
        variants.append(dataclasses.replace(pfind, name=f"pfind -j {n}", argv_for=argv_for))
    by_name = {t.name: t for t in peers}
    return variants + [by_name[n] for n in PEERS if n in by_name]


def heading(name: str) -> str:
    """A command's name in tables and plans: pfind's default is "pfind default"."""
    return "pfind default" if name == "pfind" else name


def is_pfind(name: str) -> bool:
    return name == "pfind" or name.startswith("pfind ")


def run_cell(plan: TargetPlan, root: str, manifest: dict, tools: list[Tool], path_ref: Optional[Tool], time_commands: Callable) -> dict:
    """Time ``tools`` on the directory in passes (``time_commands(named, cache)``
    returns (results, orders)), then run each once more, untimed, and check its
    count against the entry count; pfind's paths against find's."""
    cell = timed_cell(plan, root, [(t.name, t.argv_for(root, SCENARIO)) for t in tools], time_commands)
    check = correctness_check(tools, root, SCENARIO, SCENARIO.expected(manifest), path_ref)
    paths_ok = check["paths"] is None or check["paths"]["equal"]
    check["pfind_correct"] = paths_ok and all(ok is True for name, ok in check["count_ok"].items() if is_pfind(name))
    cell["correctness"] = check
    if not check["pfind_correct"]:
        wrong = {n: check["counts"].get(n) for n, ok in check["count_ok"].items() if is_pfind(n) and ok is not True}
        log(f"  pfind disagrees: expected {check['expected']} entries, got {wrong or 'other paths than find'}")
    cell.update(ratios(cell["results"], [t.name for t in tools]))
    return cell


def timed_cell(plan: TargetPlan, root: str, named: list[tuple[str, list[str]]], time_commands: Callable, *how) -> dict:
    """A cell of either mode, its commands timed: ``time_commands(named,
    plan.cache, *how)`` returns (results, orders); a failure is kept as "error"."""
    cell = {
        "cache": plan.cache,
        "fs": plan.fs,
        "entries": plan.entries,
        "size": size_label(plan.entries),
        "root": root,
        "commands": {n: shlex.join(argv) for n, argv in named},
        "results": {},
        "passes": [],
    }
    try:
        results, orders = time_commands(named, plan.cache, *how)
        cell["results"] = results
        cell["passes"] = [{"order": o} for o in orders]
    except (RuntimeError, OSError, ValueError) as e:
        cell["error"] = str(e)
        log(f"  timing failed: {e}")
    return cell


def ratios(results: dict, names: list[str]) -> dict:
    """pfind default's median over its -j 1 median, and over the fastest peer's
    (by median), with that peer's name; None where a side is missing."""
    median = {n: results[n]["median"] for n in names if n in results}
    peers = {n: m for n, m in median.items() if not is_pfind(n)}
    fastest = min(peers, key=peers.get) if peers else None
    mine = median.get("pfind")
    return {
        "default_vs_j1": mine / median["pfind -j 1"] if mine and median.get("pfind -j 1") else None,
        "fastest_peer": fastest,
        "default_vs_fastest_peer": mine / peers[fastest] if mine and fastest else None,
    }


def cell_text(result: Optional[dict], count_ok: Optional[bool]) -> str:
    """A command's cell: median (min-max) in ms, and WRONG COUNT when its check failed."""
    if not result:
        return "—"
    text = f"{result['median'] * 1000:,.0f} ({result['min'] * 1000:,.0f}-{result['max'] * 1000:,.0f})"
    return text + (" WRONG COUNT" if count_ok is False else "")


def ratio_text(value: Optional[float], peer: Optional[str] = None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" + (f" ({peer})" if peer else "")


def table(cells: list[dict]) -> str:
    """The markdown table of docs/benchmarks.md: one row per cell (cache,
    filesystem, entries), one column per command (ms, median (min-max)), then
    pfind default / pfind -j 1 and pfind default / the fastest peer."""
    names = unique(n for c in cells for n in c["commands"])

    def row(c: dict) -> list[str]:
        ok = c.get("correctness", {}).get("count_ok", {})
        cells = [cell_text(c["results"].get(n), ok.get(n)) for n in names]
        return cells + [ratio_text(c.get("default_vs_j1")), ratio_text(c.get("default_vs_fastest_peer"), c.get("fastest_peer"))]

    return rows_table(cells, [heading(n) for n in names] + ["default / -j 1", "default / fastest peer"], row)


def rows_table(cells: list[dict], heads: list[str], row: Callable[[dict], list[str]]) -> str:
    """A markdown table of either mode: cache, fs and entries, then ``row(cell)``
    under ``heads``; a cell whose timing failed says so after its size."""
    lines = ["| cache | fs | entries | " + " | ".join(heads) + " |", "|---" * (len(heads) + 3) + "|"]
    for c in cells:
        size = c["size"] + (f" (timing failed: {c['error']})" if c.get("error") else "")
        lines.append("| " + " | ".join([c["cache"], c["fs"], size] + row(c)) + " |")
    return "\n".join(lines)


def all_correct(cells: list[dict]) -> bool:
    """Whether every cell of either mode found pfind right."""
    return all(c["correctness"]["pfind_correct"] for c in cells)
