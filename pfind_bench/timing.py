"""Timing: one hyperfine invocation per pass, every command side by side, warm or
cold, and the passes pooled.

Drift.  hyperfine runs one command's runs back to back, so on a shared machine a
slow stretch lands on whichever command was running and shows up as a difference
between tools that is not theirs.  Every cell is therefore timed in several passes
(two by default), each pass in the reverse order of the one before; the pooled
statistics cover every run of every pass, and each pass's own mean is kept, so a
reader can see how far the passes agree.

Cold cache.  Before every timed run hyperfine's --prepare command writes back dirty
pages and drops the page, dentry and inode caches (`echo 3 >
/proc/sys/vm/drop_caches`, root only), so each walk reads every directory from the
device.  The tools' own binaries are evicted too, as they are after a reboot.
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from typing import Optional

from .common import run

WARM, COLD = "warm", "cold"
CACHE_MODES = (WARM, COLD)
DROP_CACHES = "/proc/sys/vm/drop_caches"
# hyperfine -N runs --prepare without a shell too, so the shell is spelled out.
DROP_CACHES_COMMAND = f"sh -c 'sync; echo 3 > {DROP_CACHES}'"


def cold_cache_unavailable(drop_caches: str = DROP_CACHES) -> Optional[str]:
    """Why cold-cache timing cannot run here, or None when it can.

    Writing the file is the only reliable test: in a container, root may see it
    writable and still be refused.  Writing "3" drops the caches once, which is what
    the first cold run would do anyway."""
    if os.geteuid() != 0:
        return f"needs root to write {drop_caches} (running as uid {os.geteuid()})"
    try:
        drop_page_cache(drop_caches)
    except OSError as e:
        return f"cannot drop the page cache ({drop_caches}: {e.strerror or e})"
    return None


def drop_page_cache(drop_caches: str = DROP_CACHES) -> None:
    """Write back dirty pages and drop the page, dentry and inode caches (root only;
    raises OSError otherwise)."""
    os.sync()
    with open(drop_caches, "w") as f:
        f.write("3\n")


def hyperfine_argv(
    hyperfine: str,
    named_commands: list[tuple[str, list[str]]],
    warmup: int,
    runs: int,
    export: str,
    output: str = "null",
    prepare: Optional[str] = None,
    ignore_failure: bool = False,
) -> list[str]:
    """One hyperfine invocation timing all commands side by side.

    -N runs each command without a shell (no shell start-up in the numbers, no
    quoting surprises); hyperfine splits the strings with POSIX rules, so each argv
    is joined with shlex.  Names keep the JSON keyed by tool, not by command line.
    ``ignore_failure`` is for real trees, where an unreadable directory makes every
    walker exit non-zero and the walk is still worth timing.
    """
    argv = [hyperfine, "-N", "--warmup", str(warmup), "--runs", str(runs), f"--output={output}", "--export-json", export]
    if prepare:
        argv += ["--prepare", prepare]
    if ignore_failure:
        argv.append("--ignore-failure")
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


def run_hyperfine(hyperfine: str, named_commands, warmup: int, runs: int, output: str, prepare=None, ignore_failure=False, cwd=None, env=None) -> dict:
    """Run hyperfine and return its JSON export; ``cwd`` and ``env`` are those of
    the commands it times (hyperfine has no option for the working directory).

    Its results are shown live on stderr; its own stderr (warnings, errors) is
    captured so that a failure's reason can be stored in the report, then relayed.
    """
    with tempfile.TemporaryDirectory(prefix="pfind-bench-") as tmp:
        export = os.path.join(tmp, "hyperfine.json")
        argv = hyperfine_argv(hyperfine, named_commands, warmup, runs, export, output, prepare, ignore_failure)
        run(argv, stdout=_stderr_target(), label="hyperfine", relay_stderr=True, cwd=cwd, env=env)
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


def pool_passes(passes: list[dict]) -> dict:
    """One command's statistics from several timing passes: statistics over all
    their runs together, plus each pass's own mean and run count (``times`` lists
    the runs pass by pass, so ``pass_runs`` splits it again).  ``drift`` is the
    spread of the pass means relative to the pooled mean: 0.1 means the passes
    disagreed by a tenth of the time being measured."""
    times = [t for p in passes for t in p["times"]]
    mean = statistics.fmean(times)
    pass_means = [p["mean"] for p in passes]
    return {
        "mean": mean,
        "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "user": statistics.fmean(p["user"] for p in passes),
        "system": statistics.fmean(p["system"] for p in passes),
        "times": times,
        "exit_codes": [c for p in passes for c in p.get("exit_codes", [])],
        "pass_means": pass_means,
        "pass_runs": [len(p["times"]) for p in passes],
        "drift": (max(pass_means) - min(pass_means)) / mean if mean else 0.0,
    }


def pass_orders(names: list[str], passes: int) -> list[list[str]]:
    """The command order of each pass: as given, then reversed, alternating."""
    return [list(names) if i % 2 == 0 else list(reversed(names)) for i in range(passes)]


def time_in_passes(hyperfine: str, named_commands, *, warmup: int, runs: int, output: str, passes: int = 2, prepare=None, ignore_failure=False, run=run_hyperfine) -> tuple[dict[str, dict], list[list[str]]]:
    """Time ``named_commands`` in ``passes`` hyperfine runs of alternating order.

    Returns ({name: pooled statistics}, [each pass's order]).  Raises like
    run_hyperfine; a failed pass fails the whole cell (its partial numbers would
    carry exactly the order bias the passes are there to remove)."""
    by_name = dict(named_commands)
    orders = pass_orders([n for n, _ in named_commands], passes)
    per_pass = []
    for order in orders:
        hf_json = run(hyperfine, [(n, by_name[n]) for n in order], warmup, runs, output, prepare, ignore_failure)
        per_pass.append(results_by_name(hf_json, order))
    pooled = {n: pool_passes([p[n] for p in per_pass]) for n, _ in named_commands}
    return pooled, orders
