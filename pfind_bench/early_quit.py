"""--early-quit: find one file and stop, the way people use a finder in a terminal.

This is bfs's own "early termination" benchmark (bfs's bench/bench.sh, function
bench-early-quit-corpus), run with the harness's timing rules.  For a tree and a
depth d:

- list every entry of the tree once, with its depth, type and path below the root
  (`bfs ROOT -printf '%d %y %P\\0'`, or GNU find's same -printf when bfs is absent);
- keep the names that occur exactly once among *all* entries of the tree (bfs's
  `sort -k2 | uniq -uf1`; the root's own name counts too, since find -name tests
  it), of the regular files at depth d (pfind's -n matches regular files by
  default, so a uniquely named directory or link would not be found by it);
- draw ``names`` of them (20) with a fixed seed from the sorted list, so a tree gives
  the same names every run (they are recorded in the report);
- time each tool finding each one and quitting: `pfind ROOT -n NAME -1`, `bfs ROOT
  -name NAME -print -quit`, `fd -usg1 NAME ROOT`, `find ROOT -name NAME -print
  -quit`.  One hyperfine -N run per pass times every (name, tool) command side by
  side, the second pass in reverse order, as for every cell.

A tool's figure at a depth is the mean over the names of its mean per name (each
name weighs the same), with the standard deviation over the names as the spread.
Before the timing each command runs once untimed and must print exactly the
expected path; a tool that prints nothing or something else is flagged for that
name in the report (``found``), and a wrong pfind fails the run.

Names go to every tool as globs, so the glob metacharacters `* ? [ ] { } \\` are
escaped with a backslash (all four tools' globs take `\\` as "the next character is
literal"), as is a leading `-` (so no tool reads the name as an option).  Names
that are not UTF-8 or hold a control character (a newline would break the
one-path-per-line check) are left out before the draw.

The process-start bound: `pfind EMPTY`, `bfs EMPTY -quit`, `fd . EMPTY`, `find EMPTY
-quit` on an empty directory, timed the same way: below it no early quit can go.
"""

from __future__ import annotations

import os
import random
import shlex
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from .common import log, run
from .tools import COMPETITOR, Tool

DEFAULT_DEPTHS = (2, 4, 8, 16)
DEFAULT_NAMES = 20
# Fixed, so one tree gives the same names in every run (issue 17: "names drawn with
# a fixed seed and recorded in the report").
DEFAULT_SEED = 0x17
# The peers with an early-quitting search; rg and os.walk have none, floor no filter.
QUIT_TOOLS = ("bfs", "fd", "find")
GLOB_SPECIALS = frozenset("*?[]{}\\")
LISTING_FORMAT = "%d %y %P\\0"


# ---------------------------------------------------------------------------
# The names: listing, uniqueness, the draw
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    depth: int
    kind: str  # find's %y: f, d, l, ...
    path: bytes  # below the root; empty for the root itself

    @property
    def name(self) -> bytes:
        return self.path.rsplit(b"/", 1)[-1]


def listing_argv(lister: str, root: str) -> list[str]:
    """Every entry of ``root`` as "DEPTH TYPE PATH-BELOW-ROOT\\0" (bfs or GNU find)."""
    return [lister, root, "-printf", LISTING_FORMAT]


def parse_listing(data: bytes, root: str) -> list[Entry]:
    """The entries of a listing_argv output.  The root's path below itself is empty;
    its name is the root's own last component, which find -name tests too."""
    entries = []
    root_name = os.path.basename(os.path.normpath(os.fsencode(root)))
    for record in data.split(b"\0"):
        if not record:
            continue
        depth, kind, path = record.split(b" ", 2)
        entries.append(Entry(int(depth), kind.decode(), path if path else root_name))
    return entries


def usable_name(name: bytes) -> bool:
    """A name that can go on a command line and come back as one line of output."""
    try:
        text = name.decode()
    except UnicodeDecodeError:
        return False
    return bool(text) and text.isprintable()


def unique_files(entries: Iterable[Entry]) -> dict[int, list[Entry]]:
    """{depth: regular files whose name occurs once among all entries}, each list
    sorted by name.  Unusable names (see usable_name) are left out."""
    entries = list(entries)
    counts = Counter(e.name for e in entries)
    by_depth: dict[int, list[Entry]] = {}
    for e in entries:
        if e.kind == "f" and e.depth > 0 and counts[e.name] == 1 and usable_name(e.name):
            by_depth.setdefault(e.depth, []).append(e)
    for files in by_depth.values():
        files.sort(key=lambda e: e.name)
    return by_depth


def pick(candidates: list[Entry], k: int, seed: int) -> list[Entry]:
    """``k`` of ``candidates`` (all of them when there are fewer), drawn with
    ``seed`` from the list sorted by name, returned in name order."""
    ordered = sorted(candidates, key=lambda e: e.name)
    if len(ordered) <= k:
        return ordered
    return sorted(random.Random(seed).sample(ordered, k), key=lambda e: e.name)


def escape_glob(name: str) -> str:
    """``name`` as a glob matching only itself, for pfind -n, bfs/find -name and fd -g."""
    out = "".join("\\" + c if c in GLOB_SPECIALS else c for c in name)
    return "\\" + out if out.startswith("-") else out


# ---------------------------------------------------------------------------
# Command lines
# ---------------------------------------------------------------------------


def quit_argv(tool: Tool, root: str, glob: str, extra: Iterable[str] = ()) -> list[str]:
    """``tool`` finding the first entry named ``glob`` under ``root`` and quitting."""
    if tool.name == "pfind":
        return [tool.path, root, "-n", glob, "-1", *extra]
    if tool.name == "fd":
        return [tool.path, "-usg1", glob, root]
    return [tool.path, root, "-name", glob, "-print", "-quit"]  # bfs, find


def start_argv(tool: Tool, empty: str, extra: Iterable[str] = ()) -> list[str]:
    """``tool`` on an empty directory: its process start and nothing else."""
    if tool.name == "pfind":
        return [tool.path, empty, *extra]
    if tool.name == "fd":
        return [tool.path, ".", empty]
    return [tool.path, empty, "-quit"]  # bfs, find


def quit_tools(tools: Iterable[Tool]) -> list[Tool]:
    """pfind and the peers that can quit early, in the order given."""
    return [t for t in tools if t.name == "pfind" or t.name in QUIT_TOOLS]


# ---------------------------------------------------------------------------
# The found check and the figures
# ---------------------------------------------------------------------------


def same_path(printed: bytes, expected: bytes) -> bool:
    return os.path.normpath(printed) == os.path.normpath(expected)


def found_check(output: bytes, expected: bytes) -> dict:
    """Whether a search printed exactly ``expected`` (one line); the first lines it
    printed otherwise."""
    lines = output.splitlines()
    ok = len(lines) == 1 and same_path(lines[0], expected)
    result = {"ok": ok}
    if not ok:
        result["printed"] = [line.decode(errors="replace") for line in lines[:3]]
        result["lines"] = len(lines)
    return result


def summarize(per_name: list[Optional[float]]) -> dict:
    """One tool's figure at one depth from its mean per name (seconds): the mean
    over the names, each weighing the same, and the spread over them."""
    means = [m for m in per_name if m is not None]
    if not means:
        return {"mean": None, "stddev": None, "median": None, "min": None, "max": None, "names": 0}
    return {
        "mean": statistics.fmean(means),
        "stddev": statistics.stdev(means) if len(means) > 1 else 0.0,
        "median": statistics.median(means),
        "min": min(means),
        "max": max(means),
        "names": len(means),
    }


def rank_summary(summary: dict[str, dict], roles: dict[str, str]) -> dict:
    """pfind against the fastest peer: speedup = that peer's mean / pfind's (above
    1: pfind is faster), as in the cells."""
    peers = {n: s for n, s in summary.items() if roles.get(n) == COMPETITOR and s.get("mean")}
    pfind = summary.get("pfind") or {}
    if not peers or not pfind.get("mean"):
        return {"runner_up": None, "speedup": None}
    best = min(peers, key=lambda n: peers[n]["mean"])
    return {"runner_up": best, "speedup": peers[best]["mean"] / pfind["mean"]}


def command_name(index: int, tool: str) -> str:
    """hyperfine's name for one (name, tool) command."""
    return f"{index:02d} {tool}"


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

Timer = Callable[..., tuple[dict, list]]  # timing.time_in_passes


def time_depth(root: str, depth: int, chosen: list[Entry], candidates: int, tools: list[Tool], extra: list[str], time_commands: Timer) -> dict:
    """Check and time every tool on every chosen name at one depth."""
    root_b = os.fsencode(root)
    names, named = [], []
    for i, e in enumerate(chosen):
        text = e.name.decode()
        glob = escape_glob(text)
        expected = root_b + b"/" + e.path
        entry = {"name": text, "glob": glob, "path": e.path.decode(errors="replace"), "found": {}, "results": {}}
        for t in tools:
            argv = quit_argv(t, root, glob, extra)
            proc = run(argv, check=False)
            entry["found"][t.name] = found_check(proc.stdout, expected)
            named.append((command_name(i, t.name), argv))
        names.append(entry)
    missed = {t.name: [n["name"] for n in names if not n["found"][t.name]["ok"]] for t in tools}
    for tool, which in missed.items():
        if which:
            log(f"  depth {depth}: {tool} did not print the expected path for {len(which)} of {len(names)} names ({', '.join(which[:3])})")
    result = {
        "depth": depth,
        "candidates": candidates,
        "names": names,
        "commands": {t.name: shlex.join(quit_argv(t, root, "NAME", extra)) for t in tools},
        "missed": {n: w for n, w in missed.items() if w},
    }
    try:
        pooled, orders = time_commands(named)
        for i, entry in enumerate(names):
            entry["results"] = {t.name: pooled[command_name(i, t.name)] for t in tools}
        result["passes"] = [{"order": o} for o in orders]
    except (RuntimeError, OSError, ValueError) as e:
        result["error"] = str(e)
        log(f"  timing failed: {e}")
    result["summary"] = {t.name: summarize([(n["results"].get(t.name) or {}).get("mean") for n in names]) for t in tools}
    for t in tools:
        result["summary"][t.name]["missed"] = len(missed[t.name])
    result.update(rank_summary(result["summary"], {t.name: t.role for t in tools}))
    return result


def run_tree(root: str, fs: Optional[str], lister: str, tools: list[Tool], extra: list[str], depths: list[int], k: int, seed: int, time_commands: Timer) -> dict:
    """The early-quit benchmark on one tree, at each of ``depths`` it has."""
    entries = parse_listing(run(listing_argv(lister, root), check=False).stdout, root)
    by_depth = unique_files(entries)
    max_depth = max((e.depth for e in entries), default=0)
    tree = {
        "root": root,
        "fs": fs,
        "lister": shlex.join(listing_argv(lister, root)),
        "entries": len(entries),
        "max_depth": max_depth,
        "unique_files": {str(d): len(files) for d, files in sorted(by_depth.items())},
        "depths": [],
        "skipped_depths": {},
    }
    for depth in depths:
        candidates = by_depth.get(depth, [])
        if not candidates:
            why = f"no uniquely named regular file at depth {depth}" + (f" (the tree is {max_depth} deep)" if depth > max_depth else "")
            tree["skipped_depths"][str(depth)] = why
            log(f"early quit on {root}: skipped depth {depth}: {why}")
            continue
        chosen = pick(candidates, k, seed)
        log(f"early quit on {root}, depth {depth}: {len(chosen)} of {len(candidates)} unique names, timing {', '.join(t.name for t in tools)}")
        tree["depths"].append(time_depth(root, depth, chosen, len(candidates), tools, extra, time_commands))
    return tree


def run_process_start(tools: list[Tool], extra: list[str], time_commands: Timer) -> dict:
    """Every tool on an empty directory: the floor under any early quit."""
    with tempfile.TemporaryDirectory(prefix="pfind-bench-empty-") as empty:
        named = [(t.name, start_argv(t, empty, extra)) for t in tools]
        section = {"commands": {n: shlex.join(a) for n, a in named}, "results": {}}
        log(f"process start: {', '.join(t.name for t in tools)} on an empty directory")
        try:
            section["results"], orders = time_commands(named)
            section["passes"] = [{"order": o} for o in orders]
        except (RuntimeError, OSError, ValueError) as e:
            section["error"] = str(e)
            log(f"  timing failed: {e}")
    section.update(rank_summary(section["results"], {t.name: t.role for t in tools}))
    return section


def pfind_found_everything(section: Optional[dict]) -> bool:
    """False when pfind missed or misprinted any name of an early-quit section."""
    if not section:
        return True
    return all("pfind" not in d.get("missed", {}) for tree in section.get("trees", []) for d in tree["depths"])
