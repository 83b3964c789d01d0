"""Shared fixtures of the harness's unit tests: temp directories, stand-in tools
that print a fixed answer, fake hyperfine exports, and report cells built from
them.  None of it needs root, a mount, or a real walker."""

from __future__ import annotations

import io
import os
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pfind_bench import early_quit, first_path, machine, report, timing, tools  # noqa: E402

SC = tools.SCENARIOS
ROOT = "/data/t"

_quiet = mock.patch("sys.stderr", new_callable=io.StringIO)


def quiet_start():
    """Keep the harness's progress lines out of the test output (the runner
    already holds its own reference to the real stderr)."""
    _quiet.start()


def quiet_stop():
    _quiet.stop()


def big_tree_dir(prefix: str) -> tempfile.TemporaryDirectory:
    """A temporary directory for a test whose subject is a generated data set, not
    the file system under it: on /dev/shm (a tmpfs) where it is writable, as
    src/scratch.rs does for the Rust tests; building the deep data set's 7,260 files
    there takes a tenth of what it takes on our machine's ext4 disk."""
    try:
        return tempfile.TemporaryDirectory(prefix=prefix, dir="/dev/shm")
    except OSError:
        return tempfile.TemporaryDirectory(prefix=prefix)


def tiny_tree(src: Path) -> str:
    """The smallest tree the real mounts walk (latencyfs, sshfs): three files on
    three levels and a link to one of them, under `src`, returned as a path."""
    (src / "a" / "b").mkdir(parents=True)
    for name in ("x", "a/y", "a/b/z"):
        (src / name).write_text("")
    os.symlink("x", src / "link")
    return str(src)


class TempDirTest(unittest.TestCase):
    # True in a test class that builds generated data sets in self.tmp.
    big_trees = False

    def setUp(self):
        prefix = "pfind-bench-test-"
        self._tmp = big_tree_dir(prefix) if self.big_trees else tempfile.TemporaryDirectory(prefix=prefix)
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


def fake_depth(depth: int, means: dict[str, list[float]], missed: dict[str, list[str]] = None) -> dict:
    """One depth of an early-quit tree from each tool's mean per name."""
    missed = missed or {}
    count = len(next(iter(means.values())))
    summary = {t: {**early_quit.summarize(v), "missed": len(missed.get(t, []))} for t, v in means.items()}
    roles = {t: tools.SUBJECT if t == "pfind" else tools.COMPETITOR for t in means}
    names = [{"name": f"n{i}", "glob": f"n{i}", "path": f"d/n{i}", "found": {t: {"ok": f"n{i}" not in missed.get(t, [])} for t in means},
              "results": {t: {"mean": v[i]} for t, v in means.items()}} for i in range(count)]
    return {"depth": depth, "candidates": 150, "names": names, "commands": {}, "missed": missed, "summary": summary, "passes": [],
            **early_quit.rank_summary(summary, roles)}


def fake_early_quit(missed: dict[str, list[str]] = None) -> dict:
    """An early-quit section: /usr at depths 2 and 4 (pfind slower at 2), 16 skipped."""
    depths = [fake_depth(2, {"pfind": [0.040, 0.040], "fd": [0.018, 0.018], "bfs": [0.004, 0.004]}),
              fake_depth(4, {"pfind": [0.020, 0.030], "fd": [0.050, 0.050], "bfs": [0.030, 0.040]}, missed)]
    start = {"commands": {}, "results": fake_results({"pfind": 0.001, "fd": 0.003, "bfs": 0.002})}
    start.update(early_quit.rank_summary(start["results"], {"pfind": tools.SUBJECT, "fd": tools.COMPETITOR, "bfs": tools.COMPETITOR}))
    tree = {"root": "/usr", "fs": "ext4", "entries": 1000, "max_depth": 12, "unique_files": {"2": 150, "4": 150},
            "depths": depths, "skipped_depths": {"16": "no uniquely named regular file at depth 16 (the tree is 12 deep)"}}
    return {"names": 2, "seed": 23, "runs": 5, "warmup": 1, "passes": 2, "output": "null", "depths": [2, 4, 16], "trees": [tree], "process_start": start}


def fake_shallow_order(pfind_missing: int = 0) -> dict:
    def result(shares, depth, missing=0):
        return {"share": dict(zip(("min", "median", "max"), shares)), "mean_depth": {"min": depth, "median": depth, "max": depth}, "missing": missing, "runs": []}

    results = {"pfind": result((0.6, 0.74, 0.8), 5.1, pfind_missing), "pfind -j 8": result((0.02, 0.03, 0.04), 2.6), "bfs": result((0.011, 0.012, 0.013), 2.4)}
    return {"runs": 10, "threads": [8], "trees": [{"root": "/usr", "fs": "ext4", "shallow_files": 1063, "shallow_depth": 2, "first_lines": 1000, "commands": {}, "results": results}]}


def fake_first_path() -> dict:
    def result(first, end):
        return {"first_byte": {"median": first}, "eof": {"median": end}, "exit": {"median": end}, "lines": [5, 5, 5], "exit_codes": [0, 0, 0]}

    results = {"pfind": result(0.2007, 0.210), "pfind -j 2": result(0.056, 0.566), "bfs": result(0.0074, 0.646), "pfind -1": result(0.008, 0.008), "pfind | head -1": result(0.2, 0.21)}
    return {"fs": "xfs", "mount": {"direct_io": True}, "sources": ["/usr"], "roots": ["/m/usr"], "trees": [], "files": 115362, "runs": 3,
            "commands": {}, "results": results, **first_path.ratios(results)}


def fake_report(cells, sweeps=None, trees=None, skipped_cells=None, **parts) -> dict:
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
        **parts,
    )


def fake_ignore_view(pfind_ok: bool = True, error: str = None) -> dict:
    """An ignore-view section: one repository, pfind fastest, fd missing the file
    added with git add -f, rg skipped."""

    def check(ref, expected, missing=(), extra=(), extra_count=None):
        return {"reference": ref, "ok": not missing and not extra, "expected": expected, "printed": expected - len(missing) + (extra_count or len(extra)),
                "duplicates": 0, "missing": len(missing), "extra": extra_count or len(extra), "missing_examples": list(missing), "extra_examples": list(extra), "exit_code": 0}

    means = {"pfind --ignore": 0.010, "pfind -G": 0.011, "fd --type f": 0.030, "fd --type f --hidden": 0.032, "git ls-files -co --exclude-standard": 0.020}
    results = fake_results(means)
    fastest = min(means, key=means.get)
    repo = {
        "root": "/r/app", "fs": "ext4", "files": 1200, "not_hidden": 1100,
        "commands": {label: label for label in means},
        "checks": {
            "pfind --ignore": check("git", 1200, () if pfind_ok else ("src/lost.rs",)),
            "pfind -G": check("git, no hidden", 1100),
            "fd --type f": check("git, no hidden", 1100, ("node_modules/a/index.js",)),
            "fd --type f --hidden": check("git", 1200, ("node_modules/a/index.js",), (".git/HEAD", ".git/config", ".git/description", ".git/hooks/a", ".git/hooks/b"), 31),
            "git ls-files -co --exclude-standard": check("git", 1200, (), ("link",)),
        },
        "results": results, "passes": [{"order": list(means)}, {"order": list(reversed(list(means)))}],
        "fastest": fastest, "ratios": {n: m / means[fastest] for n, m in means.items()},
    }
    if error:
        repo["error"] = error
    return {"runs": 3, "warmup": 1, "passes": 2, "output": "null", "environment": "", "git": "git version 2.47.3",
            "skipped_tools": {"rg": "not installed (looked for rg)"}, "repos": [repo]}


class LatencyfsTest(TempDirTest):
    """A test on real latencyfs mounts: the harness's progress kept quiet, the
    tiny tree as ``self.src`` and latencyfs built as ``self.binary``."""

    def setUp(self):
        from pfind_bench import latency_fs

        super().setUp()
        quiet_start()
        self.src = tiny_tree(self.tmp / "src")
        self.binary = latency_fs.build_latencyfs(self.tmp / "latencyfs")

    def tearDown(self):
        quiet_stop()
        super().tearDown()
