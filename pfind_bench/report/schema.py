"""The JSON report: its cells, its shape, and reading the reports of older schemas.

Report shape (REPORT_SCHEMA 2; 1 is the same without the fields marked *, and
upgrade_report() fills those in when an old report is read):

    schema, generated_at, machine{..., filesystems*{FS: how it was made/mounted}},
    tools{NAME: path, version, version_number*, role}, skipped_tools{NAME: why},
    skipped*[one line per group of cells left out], config, datasets{SIZE: manifest},
    trees*{PATH: fs, files}, cells[...], thread_sweep (the first sweep, for
    readers of schema 1), thread_sweeps*[...], pfind_correct, all_timings_ok

    cell: scenario, size (dataset name; None for a tree), target*, kind*
    ("dataset" or "tree"), fs*, cache* ("warm" or "cold"), root, commands{NAME:
    command line}, results{NAME: mean, stddev, median, min, max, user, system,
    times, exit_codes, pass_means*, pass_runs*, drift*}, passes*[{order}],
    runner_up, speedup, pfind_fastest, vs_floor*, cpu_vs_floor*, correctness{...},
    error (only when timing failed)

    sweep: scenario, size, target*, kind*, fs*, cache*, commands, points[{threads,
    mean, ...}], default*{mean, ...: pfind without -j}, error (on failure)

All times are seconds.  speedup = runner-up mean / pfind mean over competitors
only (floor is a reference, never ranked); vs_floor = pfind mean / floor mean.
"""

from __future__ import annotations

import copy
import datetime as _dt
import shlex
from typing import Optional

from ..plan import DATASET
from ..timing import WARM
from ..tools import COMPETITOR, Scenario, Tool

REPORT_SCHEMA = 2


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
) -> dict:
    sweeps = sweeps or []
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
        "pfind_correct": all(c["correctness"]["pfind_correct"] for c in cells),
        "all_timings_ok": all("error" not in c for c in cells) and all("error" not in s for s in sweeps),
    }


def upgrade_report(report: dict) -> dict:
    """A copy of ``report`` with every schema-2 field present, so tables and charts
    read old reports (schema 1: warm cache, the data directory's filesystem only,
    one sweep) and new ones alike."""
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
    if "thread_sweeps" not in r:
        r["thread_sweeps"] = [r["thread_sweep"]] if r.get("thread_sweep") else []
    for s in r["thread_sweeps"]:
        s.setdefault("target", s.get("size"))
        s.setdefault("kind", DATASET)
        s.setdefault("fs", home_fs)
        s.setdefault("cache", WARM)
    return r
