"""Shared fixtures of the harness's unit tests: temp directories, stand-in tools
that print a fixed answer, fake hyperfine exports, and report cells built from
them.  None of it needs root, a mount, or a real walker."""

from __future__ import annotations

import io
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pfind_bench import machine, report, timing, tools  # noqa: E402

SC = tools.SCENARIOS
ROOT = "/data/t"

_quiet = mock.patch("sys.stderr", new_callable=io.StringIO)


def quiet_start():
    """Keep the harness's progress lines out of the test output (the runner
    already holds its own reference to the real stderr)."""
    _quiet.start()


def quiet_stop():
    _quiet.stop()


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="pfind-bench-test-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()


def printer_tool(name: str, role: str, output: str, prints_count=lambda sc: False, comparable=lambda sc: True, exit_code: int = 0) -> tools.Tool:
    """A Tool whose command just prints ``output`` (no real walk needed)."""
    argv = [sys.executable, "-c", f"import sys; sys.stdout.write({output!r}); sys.exit({exit_code})"]
    return tools.Tool(name, role, sys.executable, "test", lambda root, sc: argv, prints_count, comparable)


def fake_hyperfine(means: dict[str, float]) -> dict:
    """A hyperfine --export-json document with the fields hyperfine writes."""
    return {
        "results": [
            {
                "command": name,
                "mean": m,
                "stddev": m / 10,
                "median": m,
                "user": m / 3,
                "system": m / 2,
                "min": m * 0.9,
                "max": m * 1.1,
                "times": [m * 0.9, m, m * 1.1],
                "exit_codes": [0, 0, 0],
            }
            for name, m in means.items()
        ]
    }


def fake_results(means: dict[str, float], passes: int = 2) -> dict[str, dict]:
    """Pooled statistics as timing.time_in_passes returns them: every pass the same."""
    per_pass = timing.results_by_name(fake_hyperfine(means), list(means))
    return {n: timing.pool_passes([per_pass[n]] * passes) for n in means}


def fake_tools() -> list[tools.Tool]:
    return [
        printer_tool("pfind", tools.SUBJECT, ""),
        printer_tool("fd", tools.COMPETITOR, ""),
        printer_tool("bfs", tools.COMPETITOR, ""),
        printer_tool("floor", tools.REFERENCE, ""),
    ]


FAST_PFIND = {"pfind": 0.010, "fd": 0.030, "bfs": 0.020, "floor": 0.005}


def fake_check(correct: bool = True, expected: int = 10) -> dict:
    return {
        "expected": expected,
        "expected_from": "manifest",
        "counts": {"pfind": expected if correct else expected - 1, "fd": expected, "bfs": expected, "floor": expected},
        "count_ok": {"pfind": correct, "fd": True, "bfs": True, "floor": True},
        "errors": {},
        "paths": None,
        "pfind_correct": correct,
        "max_rss_kib": {"pfind": 2048, "fd": 6144, "bfs": 3072, "floor": 1024},
    }


def fake_cell(means=FAST_PFIND, correct=True, scenario="all_files", size="small", cache="warm", fs="ext4", kind="dataset") -> dict:
    """A report cell built from fake pooled timings and a fake check."""
    return report.make_cell(
        SC[scenario], size, "/d/" + size, fake_tools(), fake_results(means), fake_check(correct), kind=kind, fs=fs, cache=cache,
        orders=[list(means), list(reversed(list(means)))],
    )


def fake_sweep(cache="warm", fs="ext4", target="large", threads=(1, 2, 4), default=0.015) -> dict:
    points = [{"threads": n, "mean": 0.01 * n, "stddev": 0.001, "pass_means": [0.01 * n, 0.011 * n]} for n in threads]
    return {"scenario": "all_files", "size": target, "target": target, "kind": "dataset", "fs": fs, "cache": cache,
            "commands": {}, "points": points, "default": {"mean": default, "stddev": 0.001, "pass_means": [default, default]}}


def fake_report(cells, sweeps=None, trees=None, skipped_cells=None) -> dict:
    m = machine.machine_info(Path(tempfile.gettempdir()))
    m["filesystem"] = "ext4"  # the tests' "data directory" filesystem, whatever /tmp is here
    return report.make_report(
        machine=m,
        tools=fake_tools(),
        skipped={"rg": "not installed"},
        config={"runs": 3},
        datasets={"small": {"files": 10}, "large": {"files": 1000}},
        cells=cells,
        sweeps=sweeps,
        trees=trees,
        skipped_cells=skipped_cells,
    )
