"""--index: what remembering a tree (`pfind --index`, issue 48) costs and saves.

For each target (--index-tree PATH, /usr by default; --index-git REPO, searched
with --ignore; --index-giant, one directory of 1m entries on the data directory;
--index-latency SOURCE, SOURCE through latencyfs holding each request 1 ms, one
writable mount for the whole target, so that pfind's probe of its directory
times can pass, its changes made in SOURCE) and each --cache mode, these cells, each timed in
passes of alternating order as every cell of the harness is:

    first      pfind --index, its index removed before each run (the building
               run), beside a fresh pfind walk;
    repeat N%  pfind --index with N% of the directories changed before each run
               (a file created and removed in each: touch_dirs.py), for each N of
               --index-changes (0 1 10), beside a fresh walk, fd and bfs listing
               every file, and plocate listing its database;
    trusted    pfind --index-trust for a name, a glob and an extension query,
               beside plocate's same queries and pfind's walk for them.

plocate's database is built for the target alone (updatedb -U TARGET -l 0), and
the report puts the index's size beside it. Before timing, the index's answer is
checked against a walk's (the sets of paths, untimed). The indexes live in a
cache directory of the harness's own (XDG_CACHE_HOME), removed at the end.

Cold cells drop the page cache before each run (root only; not on tmpfs nor the
latency filesystem). The changes are made in the target itself: a target the
harness cannot write gets no repeat cells with changes (they are skipped, said
why). `--dry-run` prints the cells and the skips.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .common import log, which
from .timing import COLD, DROP_CACHES_COMMAND

DEFAULT_CHANGES = (0.0, 1.0, 10.0)
TOUCH_SCRIPT = Path(__file__).resolve().parent / "touch_dirs.py"
# The trusted queries, as pfind spells them and as plocate does (basename globs).
QUERIES = (
    ("name", ["-n", "README*"], ["-b", "README*"]),
    ("glob", ["-n", "*lib*"], ["-b", "*lib*"]),
    ("extension", ["-e", "conf"], ["-i", "-b", "*.conf"]),
)


@dataclass(frozen=True)
class Target:
    """What one set of cells searches: ``label`` in the tables, ``root`` the path
    searched (for ``latency``, the source mounted), ``ignore`` adds --ignore to
    every pfind command (a git work tree)."""

    label: str
    root: str
    kind: str = "tree"  # tree, git, giant, latency
    ignore: bool = False


@dataclass
class Cell:
    target: Target
    cache: str
    name: str  # first, repeat N%, trusted
    percent: float = 0.0


@dataclass
class Tools:
    pfind: str
    fd: Optional[str] = None
    bfs: Optional[str] = None
    plocate: Optional[str] = None
    updatedb: Optional[str] = None
    skipped: dict = field(default_factory=dict)


def find_tools(pfind: str) -> Tools:
    """pfind and whichever peers are installed; the others are said skipped."""
    found = Tools(pfind=pfind, fd=which("fd", "fdfind"), bfs=which("bfs"), plocate=which("plocate"), updatedb=which("updatedb"))
    for name in ("fd", "bfs", "plocate", "updatedb"):
        if getattr(found, name) is None:
            found.skipped[name] = "not installed"
    if found.plocate and not found.updatedb:
        found.plocate = None
        found.skipped["plocate"] = "updatedb (plocate's) is not installed"
    return found


def targets_of(args) -> list[Target]:
    """The targets the command line names, /usr when it names none."""
    targets = [Target(label=p, root=p) for p in args.index_tree]
    targets += [Target(label=f"{p} --ignore", root=p, kind="git", ignore=True) for p in args.index_git]
    if args.index_giant:
        targets.append(Target(label="giant-1m", root=str(Path(args.data_dir) / "giant-1m"), kind="giant"))
    if args.index_latency:
        targets.append(Target(label=f"{args.index_latency} (latencyfs 1 ms)", root=args.index_latency, kind="latency"))
    return targets or [Target(label="/usr", root="/usr")]


def plan(targets: list[Target], caches: list[str], changes: list[float], cold_why: Optional[str], writable: Callable[[str], bool] = lambda p: os.access(p, os.W_OK)) -> tuple[list[Cell], list[str]]:
    """Every cell to time, and each one left out with why."""
    cells: list[Cell] = []
    skips: list[str] = []
    for target in targets:
        for cache in caches:
            if cache == COLD and cold_why:
                skips.append(f"index {target.label} cold: {cold_why}")
                continue
            if cache == COLD and target.kind == "latency":
                skips.append(f"index {target.label} cold: every run of the latency filesystem's cells is on one mount; its cold state is a fresh mount (see --latency-fs)")
                continue
            cells.append(Cell(target, cache, "first"))
            for percent in changes:
                if percent > 0 and not writable(target.root):
                    skips.append(f"index {target.label} {cache} repeat {percent:g}%: the harness cannot write in {target.root} to change its directories")
                    continue
                cells.append(Cell(target, cache, f"repeat {percent:g}%", percent))
            cells.append(Cell(target, cache, "trusted"))
    return cells, skips


def describe(cells: list[Cell]) -> list[str]:
    return [f"index {c.target.label} {c.cache}: {c.name}" for c in cells]


def pfind_argv(tools: Tools, target: Target, root: str, *extra: str) -> list[str]:
    argv = [tools.pfind, root]
    if target.ignore:
        argv.append("--ignore")
    return argv + list(extra)


def commands(cell: Cell, tools: Tools, root: str, db: Optional[str]) -> list[tuple[str, list[str]]]:
    """The commands of ``cell``, named, on ``root`` (the target's path, or its
    mount point), with plocate's database ``db``."""
    target = cell.target
    if cell.name == "trusted":
        named = []
        for query, pf, loc in QUERIES:
            named.append((f"pfind --index-trust {query}", pfind_argv(tools, target, root, "--index-trust", "-t", "any", *pf)))
            named.append((f"pfind walk {query}", pfind_argv(tools, target, root, "-t", "any", *pf)))
            if tools.plocate and db and not target.ignore:
                named.append((f"plocate {query}", [tools.plocate, "-d", db, *loc]))
        return named
    named = [("pfind --index", pfind_argv(tools, target, root, "--index")), ("pfind walk", pfind_argv(tools, target, root))]
    if cell.name == "first":
        return named
    if tools.fd:
        named.append(("fd", [tools.fd, "-uu", "--type", "f", ".", root] if not target.ignore else [tools.fd, "--hidden", "--type", "f", ".", root]))
    if tools.bfs and not target.ignore:
        named.append(("bfs", [tools.bfs, root, "-type", "f"]))
    if tools.plocate and db and not target.ignore:
        named.append(("plocate", [tools.plocate, "-d", db, "*"]))
    return named


def prepare(cell: Cell, tools: Tools, root: str, dir_list: str) -> Optional[str]:
    """hyperfine's --prepare for ``cell``: the index removed (first), directories
    changed (repeat N%), then the page cache dropped (cold)."""
    steps = []
    if cell.name == "first":
        steps.append(shlex.join([tools.pfind, "--index-drop", root]) + " >/dev/null")
    if cell.percent > 0:
        steps.append(shlex.join([sys.executable, str(TOUCH_SCRIPT), dir_list, f"{cell.percent:g}"]))
    if cell.cache == COLD:
        steps.append(DROP_CACHES_COMMAND)
    if not steps:
        return None
    return "sh -c " + shlex.quote("; ".join(steps))


def build_plocate_db(tools: Tools, root: str, db: str) -> Optional[str]:
    """plocate's database of ``root`` alone, at ``db``; None when it cannot be built."""
    if not tools.updatedb:
        return None
    done = subprocess.run([tools.updatedb, "-U", root, "-o", db, "-l", "0"], capture_output=True)
    if done.returncode != 0:
        log(f"updatedb -U {root}: {done.stderr.decode(errors='replace').strip()}")
        return None
    return db


def answers_agree(tools: Tools, target: Target, root: str) -> bool:
    """The index's answer is a walk's (as sets of paths), untimed."""
    def paths(*extra: str) -> set[bytes]:
        out = subprocess.run(pfind_argv(tools, target, root, *extra), capture_output=True).stdout
        return set(out.split(b"\n"))

    return paths("--index") == paths()


def index_size(cache_dir: str) -> int:
    """The bytes of the indexes in the harness's cache directory."""
    d = Path(cache_dir, "pfind")
    return sum(p.stat().st_size for p in d.glob("index-*")) if d.is_dir() else 0


def table(cells: list[dict]) -> str:
    """Per cell, each command's median in ms, and pfind --index's (or
    --index-trust's) ratio to the walk's."""
    lines = []
    for c in cells:
        results = c.get("results") or {}
        medians = {name: r["median"] * 1000 for name, r in results.items()}
        shown = ", ".join(f"{name} {ms:.1f}" for name, ms in medians.items())
        ratio = ""
        if "pfind --index" in medians and medians.get("pfind walk"):
            ratio = f"  (index/walk {medians['pfind --index'] / medians['pfind walk']:.2f})"
        lines.append(f"{c['target']} {c['cache']} {c['cell']}: {shown}{ratio}")
    for c in cells:
        if c.get("sizes"):
            lines.append(f"{c['target']}: index {c['sizes']['index']:,} bytes, plocate {c['sizes'].get('plocate') or '-'} bytes")
            break
    return "\n".join(lines)


def run(args, hyperfine: str, pfind: str, time_commands: Callable, cold_why: Optional[str], mount_latency: Optional[Callable] = None) -> dict:
    """Times every cell; returns the report's section. ``time_commands(named,
    prepare, cache)`` times one cell (the harness's passes), ``mount_latency(source)``
    is a context manager giving the latency mount's point."""
    tools = find_tools(pfind)
    cells, skips = plan(targets_of(args), args.cache, args.index_changes, cold_why)
    for line in skips:
        log(f"skipped {line}")
    section: dict = {"cells": [], "skipped": skips, "tools_skipped": tools.skipped}
    cache_dir = tempfile.mkdtemp(prefix="pfind-bench-index-")
    old_cache = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = cache_dir
    try:
        for target in unique_targets(cells):
            mine = [c for c in cells if c.target == target]
            if target.kind == "latency":
                if mount_latency is None:
                    section["skipped"].append(f"index {target.label}: latencyfs cannot be built or mounted here")
                    continue
                with mount_latency(target.root) as point:
                    # Changes are made in the source, as another client of a
                    # server makes them: the mount's client sees them only by
                    # asking the server.
                    section["cells"] += time_target(mine, tools, point, cache_dir, time_commands, change_root=target.root)
            else:
                section["cells"] += time_target(mine, tools, target.root, cache_dir, time_commands)
    finally:
        if old_cache is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = old_cache
        shutil.rmtree(cache_dir, ignore_errors=True)
    return section


def unique_targets(cells: list[Cell]) -> list[Target]:
    seen: list[Target] = []
    for c in cells:
        if c.target not in seen:
            seen.append(c.target)
    return seen


def time_target(cells: list[Cell], tools: Tools, root: str, cache_dir: str, time_commands: Callable, change_root: Optional[str] = None) -> list[dict]:
    """The cells of one target, on ``root``: plocate's database built, the index
    built and checked, then each cell timed; the repeat cells change the
    directories of ``change_root`` (``root`` unless given: the latency mount's
    source)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="pfind-bench-index-") as tmp:
        db = build_plocate_db(tools, root, os.path.join(tmp, "plocate.db")) if tools.plocate else None
        dir_list = os.path.join(tmp, "dirs")
        from .touch_dirs import list_dirs

        list_dirs(change_root or root, dir_list)
        target = cells[0].target
        subprocess.run(pfind_argv(tools, target, root, "--index"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        agree = answers_agree(tools, target, root)
        sizes = {"index": index_size(cache_dir), "plocate": os.path.getsize(db) if db else None}
        for cell in cells:
            named = commands(cell, tools, root, db)
            results = time_commands(named, prepare(cell, tools, root, dir_list), cell.cache)
            out.append({"target": target.label, "cache": cell.cache, "cell": cell.name, "commands": {n: shlex.join(a) for n, a in named}, "results": results, "index_agrees_with_walk": agree, "sizes": sizes})
        # Leave the tree's directories as they were listed (their mtimes moved).
    return out


def summary_line(section: dict) -> str:
    agree = all(c.get("index_agrees_with_walk") for c in section.get("cells", []))
    return f"index: {len(section.get('cells', []))} cells, the index's answers {'agree' if agree else 'DO NOT agree'} with a walk's"


