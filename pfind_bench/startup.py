"""--startup: what a run costs where the tree is small and the process's start is a
large part of it (issue 42): an empty directory, the small dataset and the deep
one, each tool listing every regular file into /dev/null.

The runs are interleaved, one run of each tool in turn and the turn's order
rotated each round, so that a change in the machine's load falls on every tool
alike; hyperfine times one command after another, which on a shared machine puts
a busy minute on one tool.  Each run is timed around fork and exec from Python:
that cost is the same for every tool, and the floor column shows it.  The figures
are medians in milliseconds, and each tool's median over floor's.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Sequence

# The trees timed, in the order of the table: the empty directory is made for the
# run; the others are the datasets of datasets.py.
TREES = ("empty", "small", "deep")
DEFAULT_RUNS = 41
# Untimed rounds before the timed ones.
WARMUP = 3


@dataclass(frozen=True)
class Command:
    """One tool's command line on a tree: ``argv_for(root)``."""

    name: str
    argv_for: Callable[[str], list[str]]


def round_order(names: Sequence[str], round_index: int) -> list[str]:
    """The order of the tools in round ``round_index``: the list rotated by one place
    a round, so that each tool is as often first, and as often after each other."""
    if not names:
        return []
    k = round_index % len(names)
    return list(names[k:]) + list(names[:k])


def summarize(samples: dict[str, list[float]], floor: str = "floor") -> dict[str, dict]:
    """Per tool: its median in ms, the number of runs, and the median over the floor's
    median (None without a floor)."""
    medians = {name: statistics.median(times) for name, times in samples.items() if times}
    base = medians.get(floor)
    return {
        name: {"median_ms": round(m, 3), "runs": len(samples[name]), "over_floor": round(m / base, 3) if base else None}
        for name, m in medians.items()
    }


def time_once(argv: list[str]) -> float:
    """Milliseconds from spawning ``argv`` (output to /dev/null) to its exit."""
    start = time.perf_counter_ns()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter_ns() - start) / 1e6


def run_tree(root: str, commands: Sequence[Command], runs: int, warmup: int = WARMUP, timer: Callable[[list[str]], float] = time_once) -> dict[str, list[float]]:
    """Every command on ``root``, ``warmup`` untimed rounds then ``runs`` timed ones,
    interleaved (see the module comment); the times per command name."""
    by_name = {c.name: c for c in commands}
    names = [c.name for c in commands]
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(warmup + runs):
        for name in round_order(names, r):
            took = timer(by_name[name].argv_for(root))
            if r >= warmup:
                samples[name].append(took)
    return samples


def table(results: dict[str, dict[str, dict]], names: Sequence[str]) -> str:
    """The text table: a row per tree, a column per tool, `median (xfloor)`."""
    head = "| tree | " + " | ".join(names) + " |"
    lines = [head, "|" + "---|" * (len(names) + 1)]
    for tree, per_tool in results.items():
        cells = []
        for name in names:
            cell = per_tool.get(name)
            if cell is None:
                cells.append("—")
            elif cell["over_floor"] is None or name == "floor":
                cells.append(f"{cell['median_ms']:.2f}")
            else:
                cells.append(f"{cell['median_ms']:.2f} ({cell['over_floor']:.2f}x)")
        lines.append(f"| {tree} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_startup(roots: dict[str, str], commands: Sequence[Command], runs: int, warmup: int = WARMUP) -> dict:
    """Times ``commands`` on each of ``roots`` ({tree: path}): {"runs", "warmup",
    "trees": {tree: summarize(...)}}."""
    trees = {tree: summarize(run_tree(root, commands, runs, warmup)) for tree, root in roots.items()}
    return {"runs": runs, "warmup": warmup, "trees": trees}
