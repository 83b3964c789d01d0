"""--shallow-order: how soon a full listing into a pipe reaches the files near the root.

`pfind ROOT | fzf` or `| head` sees the files in the order they are printed, and
most files a person looks for are shallow.  For a tree, the shallow files are the
regular files at depth 1 or 2 (`find ROOT -maxdepth 2 -type f`; a path's depth is
its number of components below ROOT).  Each command runs ``runs`` times (10) with
its standard output a pipe read by the harness, as `pfind ROOT | cat` would have it,
and each run gives:

- ``share``: the share of its output (lines printed so far / all lines) printed by
  the time the last shallow file came out: 0.012 means every shallow file was
  among the first 1.2% of the lines.  None, with ``missing`` counting them, when
  some shallow file was not printed at all;
- ``mean_depth``: the mean depth of its first 1,000 lines.

Commands: `pfind ROOT` at its default -j and at each --shallow-order-threads (-j 8),
`bfs ROOT -type f`, `fd -u -t f . ROOT` and `find ROOT -type f`, each peer as
--tools allows.  The runs go round the commands, every second round in reverse
order, so a slow stretch of the machine does not fall on one command; the report
keeps every run and the min, median and max of each figure.
"""

from __future__ import annotations

import os
import shlex
import statistics
from typing import Callable, Iterable, Optional

from .common import log, run
from .tools import Tool

SHALLOW_DEPTH = 2
FIRST_LINES = 1000
ORDER_TOOLS = ("bfs", "fd", "find")


def path_depth(path: bytes, root: bytes) -> Optional[int]:
    """Components of ``path`` below ``root`` (root/a: 1, root/a/b: 2); 0 for the root
    itself, None for a path outside it.  Both are normalized first, so `ROOT/`,
    `ROOT//a` and `./a` (for ROOT `.`) count alike."""
    p, r = os.path.normpath(path), os.path.normpath(root)
    if p == r:
        return 0
    if r == b".":
        rel = p
        if rel.startswith((b"/", b"../")) or rel == b"..":
            return None
    else:
        prefix = r if r.endswith(b"/") else r + b"/"
        if not p.startswith(prefix):
            return None
        rel = p[len(prefix) :]
    return rel.count(b"/") + 1


def share_of_output(lines: list[bytes], wanted: set[bytes]) -> tuple[Optional[float], int]:
    """(share of ``lines`` printed when the last of ``wanted`` came out, how many of
    ``wanted`` never did).  ``wanted`` holds normalized paths; the share is None when
    any is missing, and 0.0 when there is nothing to wait for."""
    if not wanted:
        return 0.0, 0
    left = set(wanted)
    for i, line in enumerate(lines, 1):
        if line in left or os.path.normpath(line) in left:
            left.discard(line)
            left.discard(os.path.normpath(line))
            if not left:
                return i / len(lines), 0
    return None, len(left)


def mean_depth(lines: list[bytes], root: bytes, first: int = FIRST_LINES) -> Optional[float]:
    """Mean depth below ``root`` of the first ``first`` lines (outside paths ignored)."""
    depths = [d for d in (path_depth(line, root) for line in lines[:first]) if d is not None]
    return statistics.fmean(depths) if depths else None


def shallow_files(find: str, root: str) -> set[bytes]:
    """The normalized paths of the regular files at depth <= 2 of ``root``."""
    out = run([find, root, "-maxdepth", str(SHALLOW_DEPTH), "-type", "f"], check=False).stdout
    return {os.path.normpath(line) for line in out.splitlines()}


def order_commands(pfind: Tool, peers: Iterable[Tool], root: str, threads: Iterable[int], extra: list[str]) -> list[tuple[str, list[str]]]:
    """(label, argv) of every listing compared: pfind at its default -j and each
    -j N, then the peers."""
    named = [("pfind", [pfind.path, root, *extra])]
    named += [(f"pfind -j {n}", [pfind.path, root, *extra, "-j", str(n)]) for n in threads]
    argv = {"bfs": lambda p: [p, root, "-type", "f"], "fd": lambda p: [p, "-u", "-t", "f", ".", root], "find": lambda p: [p, root, "-type", "f"]}
    named += [(t.name, argv[t.name](t.path)) for t in peers if t.name in ORDER_TOOLS]
    return named


def one_run(argv: list[str], root: str, wanted: set[bytes], capture: Callable[[list[str]], tuple[bytes, int]]) -> dict:
    """One listing into a pipe and its figures."""
    out, code = capture(argv)
    lines = out.splitlines()
    share, missing = share_of_output(lines, wanted)
    return {"share": share, "missing": missing, "lines": len(lines), "mean_depth": mean_depth(lines, os.fsencode(root)), "exit_code": code}


def spread(values: list[Optional[float]]) -> dict:
    """min, median and max of the values that are there."""
    present = [v for v in values if v is not None]
    if not present:
        return {"min": None, "median": None, "max": None}
    return {"min": min(present), "median": statistics.median(present), "max": max(present)}


def capture_pipe(argv: list[str]) -> tuple[bytes, int]:
    proc = run(argv, check=False)
    return proc.stdout, proc.returncode


def run_tree(root: str, fs: Optional[str], find: str, named: list[tuple[str, list[str]]], runs: int, capture=capture_pipe) -> dict:
    """Every command ``runs`` times on one tree, in rounds of alternating order."""
    wanted = shallow_files(find, root)
    log(f"shallow order on {root}: {len(wanted)} files at depth <= {SHALLOW_DEPTH}, {runs} runs of {', '.join(n for n, _ in named)}")
    per: dict[str, list[dict]] = {n: [] for n, _ in named}
    for i in range(runs):
        order = named if i % 2 == 0 else list(reversed(named))
        for label, argv in order:
            per[label].append(one_run(argv, root, wanted, capture))
    results = {}
    for label, runs_of in per.items():
        missing = max(r["missing"] for r in runs_of)
        results[label] = {
            "share": spread([r["share"] for r in runs_of]),
            "mean_depth": spread([r["mean_depth"] for r in runs_of]),
            "runs": runs_of,
            "missing": missing,
        }
        if missing:
            log(f"  {label} left out {missing} of the {len(wanted)} shallow files in some run")
    return {
        "root": root,
        "fs": fs,
        "shallow_files": len(wanted),
        "shallow_depth": SHALLOW_DEPTH,
        "first_lines": FIRST_LINES,
        "commands": {n: shlex.join(a) for n, a in named},
        "results": results,
    }


def pfind_printed_everything(section: Optional[dict]) -> bool:
    """False when a pfind listing of a shallow-order section left out a shallow file."""
    if not section:
        return True
    return all(not r["missing"] for tree in section.get("trees", []) for label, r in tree["results"].items() if label.startswith("pfind"))
