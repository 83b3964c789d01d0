"""The JSON report: its cells, its shape, and reading the reports of older schemas.

Report shape (REPORT_SCHEMA 4; 3 is the same without the field marked ***, 2 also
without those marked **, 1 also without those marked *, and upgrade_report() fills
those in when an old report is read):

    schema, generated_at, machine{..., filesystems*{FS: how it was made/mounted}},
    tools{NAME: path, version, version_number*, role}, skipped_tools{NAME: why},
    skipped*[one line per group of cells left out], config, datasets{SIZE: manifest},
    trees*{PATH: fs, files}, cells[...], thread_sweep (the first sweep, for
    readers of schema 1), thread_sweeps*[...], early_quit**, shallow_order**,
    first_path**, ignore_view*** (each null when not run), pfind_correct,
    all_timings_ok

    cell: scenario, size (dataset name; None for a tree), target*, kind*
    ("dataset" or "tree"), fs*, cache* ("warm" or "cold"), root, commands{NAME:
    command line}, results{NAME: mean, stddev, median, min, max, user, system,
    times, exit_codes, pass_means*, pass_runs*, drift*}, passes*[{order}],
    runner_up, speedup, pfind_fastest, vs_floor*, cpu_vs_floor*, correctness{...},
    error (only when timing failed)

    sweep: scenario, size, target*, kind*, fs*, cache*, commands, points[{threads,
    mean, ...}], default*{mean, ...: pfind without -j}, error (on failure)

    early_quit (--early-quit, early_quit.py): names, seed, runs, warmup, passes,
    output, depths, escaping, trees[{root, fs, lister, entries, max_depth,
    unique_files{DEPTH: count}, skipped_depths{DEPTH: why}, depths[{depth,
    candidates, commands{TOOL: command with NAME}, names[{name, glob, path (below
    the root), found{TOOL: {ok, printed?, lines?}}, results{TOOL: pooled stats as
    in a cell}}], missed{TOOL: [names]}, summary{TOOL: mean, stddev, median, min,
    max (over the names' means), names, missed}, runner_up, speedup, passes,
    error?}], error?}], process_start{commands, results, runner_up, speedup,
    error?}

    shallow_order (--shallow-order, order.py): runs, threads, trees[{root, fs,
    shallow_files, shallow_depth, first_lines, commands{LABEL: command},
    results{LABEL: share{min, median, max}, mean_depth{min, median, max},
    missing, runs[{share, missing, lines, mean_depth, exit_code}]}, error?}]

    first_path (--first-path, first_path.py): fs, mount{image, loop_device,
    direct_io, ...}, sources, roots, trees[...], files, runs, before_each_run,
    commands{LABEL: command}, results{LABEL: first_byte, eof, exit (each
    {median, min, max, times}), lines[], exit_codes[]}, first_byte_vs_bfs{LABEL:
    ratio}, head_vs_quit; or {error} when it failed

    ignore_view (--ignore-view, ignore_view.py): runs, warmup, passes, output,
    environment, git (its version), skipped_tools{fd|rg: why}, repos[{root, fs,
    files (git's answer), not_hidden (git's answer without hidden paths),
    commands{LABEL: command line}, checks{LABEL: {reference ("git" or "git, no
    hidden"), ok, expected, printed, duplicates, missing, extra,
    missing_examples[<= 5], extra_examples[<= 5], exit_code, stderr?}},
    results{LABEL: pooled stats as in a cell}, passes, fastest, ratios{LABEL:
    mean / fastest mean}, error?}]

All times are seconds.  speedup = runner-up mean / pfind mean over competitors
only (floor is a reference, never ranked); vs_floor = pfind mean / floor mean.
"""

from __future__ import annotations

import copy
import datetime as _dt
import shlex
from typing import Optional

from ..early_quit import pfind_found_everything
from ..ignore_view import pfind_matches_git
from ..order import pfind_printed_everything
from ..plan import DATASET
from ..timing import WARM
from ..tools import COMPETITOR, Scenario, Tool

REPORT_SCHEMA = 4


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


def floor_ratios(results: dict[str, dict]) -> dict:
    """pfind's wall and CPU (user + system) time over floor's, when both ran."""
    pfind, floor = results.get("pfind"), results.get("floor")
    if not pfind or not floor or not pfind.get("mean") or not floor.get("mean"):
        return {"vs_floor": None, "cpu_vs_floor": None}
    cpu = lambda r: (r.get("user") or 0) + (r.get("system") or 0)
    return {"vs_floor": pfind["mean"] / floor["mean"], "cpu_vs_floor": cpu(pfind) / cpu(floor) if cpu(floor) else None}


def make_cell(
    scenario: Scenario,
    target: str,
    root: str,
    tools: list[Tool],
    results: Optional[dict[str, dict]],
    check: dict,
    error: Optional[str] = None,
    *,
    kind: str = DATASET,
    fs: Optional[str] = None,
    cache: str = WARM,
    orders: Optional[list[list[str]]] = None,
) -> dict:
    """One (cache, filesystem, target, scenario) entry of the report; ``results``
    are pooled statistics per tool (timing.time_in_passes), None if timing failed."""
    results = results or {}
    cell = {
        "scenario": scenario.name,
        "size": target if kind == DATASET else None,
        "target": target,
        "kind": kind,
        "fs": fs,
        "cache": cache,
        "root": root,
        "commands": {t.name: shlex.join(t.argv_for(root, scenario)) for t in tools},
        "results": results,
        "passes": [{"order": o} for o in (orders or [])],
        **rank(results, {t.name: t.role for t in tools}),
        **floor_ratios(results),
        "correctness": check,
    }
    if error:
        cell["error"] = error
    return cell


def make_report(
    *,
    machine: dict,
    tools: list[Tool],
    skipped: dict,
    config: dict,
    datasets: dict,
    cells: list[dict],
    sweeps: Optional[list[dict]] = None,
    trees: Optional[dict] = None,
    skipped_cells: Optional[list[str]] = None,
    early_quit: Optional[dict] = None,
    shallow_order: Optional[dict] = None,
    first_path: Optional[dict] = None,
    ignore_view: Optional[dict] = None,
) -> dict:
    sweeps = sweeps or []
    extras = [early_quit, shallow_order, first_path, ignore_view]
    return {
        "schema": REPORT_SCHEMA,
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "tools": {t.name: t.describe() for t in tools},
        "skipped_tools": skipped,
        "skipped": list(skipped_cells or []),
        "config": config,
        "datasets": datasets,
        "trees": trees or {},
        "cells": cells,
        "thread_sweep": sweeps[0] if sweeps else None,
        "thread_sweeps": sweeps,
        "early_quit": early_quit,
        "shallow_order": shallow_order,
        "first_path": first_path,
        "ignore_view": ignore_view,
        "pfind_correct": all(c["correctness"]["pfind_correct"] for c in cells)
        and pfind_found_everything(early_quit)
        and pfind_printed_everything(shallow_order)
        and pfind_matches_git(ignore_view),
        "all_timings_ok": all("error" not in c for c in cells)
        and all("error" not in s for s in sweeps)
        and not any(failed_parts(x) for x in extras),
    }


def failed_parts(section: Optional[dict]) -> list[str]:
    """The error messages of an early-quit, shallow-order, first-path or
    ignore-view section."""
    if not section:
        return []
    errors = [section["error"]] if section.get("error") else []
    for tree in section.get("trees", []) + section.get("repos", []):
        errors += [f"{tree['root']}: {tree['error']}"] if tree.get("error") else []
        errors += [f"{tree['root']}, depth {d['depth']}: {d['error']}" for d in tree.get("depths", []) if d.get("error")]
    if (section.get("process_start") or {}).get("error"):
        errors.append(section["process_start"]["error"])
    return errors


def upgrade_report(report: dict) -> dict:
    """A copy of ``report`` with every schema-4 field present, so tables and charts
    read old reports (schema 1: warm cache, the data directory's filesystem only,
    one sweep; schema 2: no early-quit, shallow-order or first-path parts; schema
    3: no ignore-view part) and new ones alike."""
    r = copy.deepcopy(report)
    home_fs = r.get("machine", {}).get("filesystem")
    r.setdefault("skipped", [])
    r.setdefault("trees", {})
    for c in r.get("cells", []):
        c.setdefault("target", c.get("size"))
        c.setdefault("kind", DATASET)
        c.setdefault("fs", home_fs)
        c.setdefault("cache", WARM)
        c.setdefault("passes", [])
        if "vs_floor" not in c:
            c.update(floor_ratios(c.get("results", {})))
    for part in ("early_quit", "shallow_order", "first_path", "ignore_view"):
        r.setdefault(part, None)
    if "thread_sweeps" not in r:
        r["thread_sweeps"] = [r["thread_sweep"]] if r.get("thread_sweep") else []
    for s in r["thread_sweeps"]:
        s.setdefault("target", s.get("size"))
        s.setdefault("kind", DATASET)
        s.setdefault("fs", home_fs)
        s.setdefault("cache", WARM)
    return r
