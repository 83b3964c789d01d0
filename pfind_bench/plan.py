"""Which cells a run times, decided before anything is generated or mounted.

A cell is (cache mode, filesystem, target, scenario): a target is a generated
dataset on one of the filesystems, or a real tree (--tree) on whatever filesystem
holds it.  The defaults keep a full run to a sensible length while covering what
docs/benchmarks.md reports (issue 9's targets):

- warm, on the data directory's filesystem: every --sizes dataset x --scenarios;
- warm, on every other --fs filesystem: --fs-sizes (default: medium and wide, of
  those in --sizes), every --scenarios;
- cold, on every --fs filesystem with a cold state (all but tmpfs): --cold-sizes
  (default: --sizes without large, whose cold walk takes seconds per run) x
  --cold-scenarios (default: all_files and count_only: the filters cost CPU, and a
  cold walk is bound by the device);
- every --tree: --tree-scenarios warm, --cold-scenarios cold;
- the thread sweep: each --sweep-target (a dataset, on --sweep-fs or the filesystem
  named with DATASET@FS, or a tree) in every cache mode.

Everything left out is said in one line per reason (not root, tmpfs has no cold
state, a filesystem that cannot be made here), never silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from .common import unique
from .datasets import SIZE_ORDER
from .filesystems import FS_TYPES, has_cold_state
from .timing import COLD, WARM

DATASET, TREE = "dataset", "tree"
HOME, MOUNT = "home", "mount"


@dataclass(frozen=True)
class CellPlan:
    cache: str
    fs: str
    kind: str  # DATASET or TREE
    target: str  # dataset name, or the tree's path as given
    scenario: str

    @property
    def label(self) -> str:
        return f"{self.scenario} on {self.target} ({self.cache}, {self.fs})"


@dataclass(frozen=True)
class SweepPlan:
    cache: str
    fs: str
    kind: str
    target: str
    scenario: str


@dataclass
class Selection:
    """What the command line asks for, defaults resolved (see resolve_sizes)."""

    caches: list[str]
    sizes: list[str]
    scenarios: list[str]
    fs_sizes: list[str]
    cold_sizes: list[str]
    cold_scenarios: list[str]
    trees: list[str]  # paths as given
    tree_scenarios: list[str]
    threads: list[int]  # empty: no sweep
    sweep_targets: list[str]  # dataset names, DATASET@FS, or tree paths
    sweep_fs: list[str]  # filesystems for dataset sweep targets without @FS
    sweep_scenario: str = "all_files"
    tree_fs: dict[str, str] = field(default_factory=dict)  # filesystem of every tree and tree sweep target


def default_cold_sizes(sizes: list[str]) -> list[str]:
    """--sizes without large (a cold walk of a million files takes seconds per run),
    unless that leaves nothing."""
    return [s for s in sizes if s != "large"] or list(sizes)


def default_fs_sizes(sizes: list[str]) -> list[str]:
    """medium and wide, of those in --sizes (the shapes issue 9 compares across
    filesystems), else all of --sizes."""
    return [s for s in sizes if s in ("medium", "wide")] or list(sizes)


def plan_places(
    requested: list[str], home_fs: str, unavailable: Callable[[str], Optional[str]]
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """[(fs, HOME or MOUNT)] to measure, and {fs: why not} for the rest.

    No --fs: the data directory alone.  With --fs, only the named filesystems; the
    one holding the data directory is the data directory itself (no image)."""
    if not requested:
        return [(home_fs, HOME)], {}
    places, skipped = [], {}
    for fs in unique(requested):
        if fs == home_fs:
            places.append((fs, HOME))
            continue
        why = unavailable(fs)
        if why:
            skipped[fs] = why
        else:
            places.append((fs, MOUNT))
    return places, skipped


def plan_cells(
    sel: Selection, places: list[tuple[str, str]], cold_unavailable: Optional[str]
) -> tuple[list[CellPlan], list[SweepPlan], list[str]]:
    """The cells and sweeps to time, in order, and one line per group left out."""
    cells: list[CellPlan] = []
    sweeps: list[SweepPlan] = []
    skips: list[str] = []
    cold_denied = 0
    memory_fs: list[str] = []

    def cold_allowed(fs: str, count: int) -> bool:
        nonlocal cold_denied
        if cold_unavailable:
            cold_denied += count
            return False
        if not has_cold_state(fs):
            if fs not in memory_fs:
                memory_fs.append(fs)
            return False
        return True

    for cache in unique(sel.caches):
        for fs, where in places:
            if cache == WARM:
                sizes, scenarios = (sel.sizes if where == HOME else sel.fs_sizes), sel.scenarios
            else:
                sizes, scenarios = sel.cold_sizes, sel.cold_scenarios
            planned = [CellPlan(cache, fs, DATASET, size, sc) for size in unique(sizes) for sc in unique(scenarios)]
            if cache == COLD and not cold_allowed(fs, len(planned)):
                continue
            cells += planned
        for path in unique(sel.trees):
            fs = sel.tree_fs.get(path, "unknown")
            scenarios = sel.tree_scenarios if cache == WARM else sel.cold_scenarios
            planned = [CellPlan(cache, fs, TREE, path, sc) for sc in unique(scenarios)]
            if cache == COLD and not cold_allowed(fs, len(planned)):
                continue
            cells += planned
        if sel.threads:
            measured = [fs for fs, _ in places]
            for target in unique(sel.sweep_targets):
                name, fs_named = split_sweep_target(target)
                if name in SIZE_ORDER:
                    wanted = [fs_named] if fs_named else unique(sel.sweep_fs)
                    targets = [(fs, DATASET) for fs in wanted if fs in measured]
                    for fs in wanted:
                        line = f"thread sweep on {name} on {fs}: {fs} is not among the filesystems measured"
                        if fs not in measured and line not in skips:
                            skips.append(line)
                else:
                    targets = [(sel.tree_fs.get(target, "unknown"), TREE)]
                for fs, kind in targets:
                    if cache == COLD and not cold_allowed(fs, 1):
                        continue
                    sweeps.append(SweepPlan(cache, fs, kind, name, sel.sweep_scenario))
    if cold_denied:
        skips.append(f"cold cache ({cold_denied} cells and sweeps): {cold_unavailable}")
    for fs in memory_fs:
        skips.append(f"cold cache on {fs}: {fs} keeps its files only in memory, so there is no cold state to measure")
    return cells, sweeps, skips


def split_sweep_target(target: str) -> tuple[str, Optional[str]]:
    """A --sweep-target as (dataset name or tree path, filesystem named with @):
    "medium" -> ("medium", None), "medium@xfs" -> ("medium", "xfs"), "/usr" ->
    ("/usr", None).  Anything that is not DATASET@FS is a path."""
    name, at, fs = target.rpartition("@")
    if at and name in SIZE_ORDER and fs in FS_TYPES:
        return name, fs
    return target, None


def datasets_needed(cells: list[CellPlan], sweeps: list[SweepPlan]) -> dict[str, list[str]]:
    """{fs: dataset names} to generate on each filesystem, in SIZE_ORDER."""
    need: dict[str, set] = {}
    for item in list(cells) + list(sweeps):
        if item.kind == DATASET:
            need.setdefault(item.fs, set()).add(item.target)
    return {fs: [s for s in SIZE_ORDER if s in names] for fs, names in need.items()}


def describe_plan(cells: list[CellPlan], sweeps: list[SweepPlan]) -> list[str]:
    """One line per (cache, filesystem, kind) group: what will be timed (for
    --dry-run and the log)."""
    lines = []
    groups: dict[tuple[str, str, str], list[CellPlan]] = {}
    for c in cells:
        groups.setdefault((c.cache, c.fs, c.kind), []).append(c)
    for (cache, fs, kind), group in groups.items():
        targets = unique(c.target for c in group)
        scenarios = unique(c.scenario for c in group)
        what = "tree" if kind == TREE else "dataset"
        lines.append(f"{cache}, {fs}: {len(group)} {what} cells ({', '.join(targets)} x {', '.join(scenarios)})")
    for s in sweeps:
        lines.append(f"thread sweep: {s.scenario} on {s.target} ({s.fs}, {s.cache})")
    return lines
