"""Unit tests for benchmark.py (run from the repo root):

    python3 -m unittest discover -s tests/python -t .

They need no network and build only small trees in temporary directories.  Tests
that execute a peer (fd, rg, bfs, find), hyperfine, the pfind binary or matplotlib
are skipped when that program is not installed, so the suite passes anywhere and
checks more where more is available.
"""

from __future__ import annotations

import collections
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import stat
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import benchmark as bm  # noqa: E402

SC = bm.SCENARIOS
ROOT = "/data/t"

_quiet = mock.patch("sys.stderr", new_callable=io.StringIO)


def setUpModule():
    """Keep the harness's progress lines out of the test output (the runner
    already holds its own reference to the real stderr)."""
    _quiet.start()


def tearDownModule():
    _quiet.stop()


def tree_counts(root: Path) -> tuple[int, collections.Counter, int]:
    """(number of directories below root, files per extension, files at the root)."""
    dirs, exts = 0, collections.Counter()
    for d, subdirs, files in os.walk(root):
        dirs += len(subdirs)
        for f in files:
            exts[f.rsplit(".", 1)[1]] += 1
    top_files = sum(1 for e in os.scandir(root) if e.is_file())
    return dirs, exts, top_files


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="pfind-bench-test-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()


# ---------------------------------------------------------------------------
# Dataset shapes and generation
# ---------------------------------------------------------------------------


class ShapeTests(unittest.TestCase):
    def test_every_shape_has_the_documented_size(self):
        expected = {
            "small": (100, 10_000),
            "medium": (100, 100_000),
            "large": (1_000, 1_000_000),
            "deep": (363, 7_260),
            "wide": (2_000, 100_000),
        }
        for name, (dirs, files) in expected.items():
            with self.subTest(name):
                shape = bm.SHAPES[name]
                self.assertEqual(len(shape.dir_paths()), dirs)
                self.assertEqual(shape.total_files, files)

    def test_deep_is_a_complete_ternary_tree_of_depth_five(self):
        paths = bm.SHAPES["deep"].dir_paths()
        by_depth = collections.Counter(p.count("/") + 1 for p in paths)
        self.assertEqual(by_depth, {1: 3, 2: 9, 3: 27, 4: 81, 5: 243})
        seen = set()
        for p in paths:  # parents are listed before their children
            parent = p.rpartition("/")[0]
            self.assertTrue(parent == "" or parent in seen, p)
            seen.add(p)

    def test_plan_is_deterministic_and_numbered_consecutively(self):
        shape = bm.SHAPES["small"]
        plan = bm.plan_files(shape)
        self.assertEqual(plan, bm.plan_files(shape))
        names = [n for _, ns in plan for n in ns]
        pattern = re.compile(r"file_(\d{6})\.(jpg|png|txt|json|py|bin)")
        numbers = [int(pattern.fullmatch(n).group(1)) for n in names]
        self.assertEqual(numbers, list(range(shape.total_files)))
        self.assertNotEqual(plan, bm.plan_files(shape, seed=bm.SEED + 1))

    def test_extension_mix_follows_the_weights(self):
        manifest = bm.manifest_for(bm.SHAPES["medium"], bm.plan_files(bm.SHAPES["medium"]))
        total = manifest["files"]
        self.assertEqual(sum(manifest["extensions"].values()), total)
        for ext, weight in zip(bm.EXTENSIONS, bm.EXT_WEIGHTS):
            with self.subTest(ext):
                self.assertAlmostEqual(manifest["extensions"][ext] / total, weight / 100, delta=0.01)

    def test_name_glob_filters_on_every_shape(self):
        self.assertIn("*", bm.NAME_GLOB)
        self.assertIn("?", bm.NAME_GLOB)
        for name, shape in bm.SHAPES.items():
            with self.subTest(name):
                manifest = bm.manifest_for(shape, bm.plan_files(shape))
                matches = manifest["glob"][bm.NAME_GLOB]
                self.assertGreater(matches, 0)
                self.assertLess(matches, manifest["files"])
        deep = bm.manifest_for(bm.SHAPES["deep"], bm.plan_files(bm.SHAPES["deep"]))
        self.assertEqual(deep["glob"][bm.NAME_GLOB], 720)

    def test_scenario_expectations_come_from_the_manifest(self):
        m = {"files": 100, "extensions": {"jpg": 40, "png": 30, "txt": 10}, "glob": {bm.NAME_GLOB: 9}}
        self.assertEqual(SC["all_files"].expected(m), 100)
        self.assertEqual(SC["count_only"].expected(m), 100)
        self.assertEqual(SC["extension_jpg"].expected(m), 40)
        self.assertEqual(SC["extension_multi"].expected(m), 80)
        self.assertEqual(SC["name_glob"].expected(m), 9)


class GenerationTests(TempDirTest):
    TINY = bm.Shape("tiny", "flat", dirs=6, files_per_dir=25)

    def assert_tree_matches(self, root: Path, shape: bm.Shape, manifest: dict):
        dirs, exts, top = tree_counts(root)
        self.assertEqual(dirs, len(shape.dir_paths()))
        self.assertEqual(dict(exts), {e: n for e, n in manifest["extensions"].items() if n})
        self.assertEqual(sum(exts.values()), shape.total_files)
        self.assertEqual(top, 0, "the root holds directories only")

    def test_real_small_and_deep_shapes_on_disk(self):
        for name in ("small", "deep"):
            with self.subTest(name):
                shape = bm.SHAPES[name]
                root, manifest = bm.ensure_dataset(self.tmp, shape)
                self.assertEqual(root, self.tmp / name)
                self.assert_tree_matches(root, shape, manifest)
                self.assertEqual(json.loads((self.tmp / f"{name}.manifest.json").read_text()), manifest)

    def test_every_file_is_100_bytes_of_x(self):
        root, _ = bm.ensure_dataset(self.tmp, self.TINY)
        for d, _, files in os.walk(root):
            for f in files:
                self.assertEqual(Path(d, f).read_bytes(), b"x" * 100)

    def test_parallel_generation_writes_the_same_tree(self):
        with mock.patch.object(bm, "PARALLEL_GENERATION_THRESHOLD", 0):
            root, manifest = bm.ensure_dataset(self.tmp / "par", self.TINY, jobs=2)
        serial, _ = bm.ensure_dataset(self.tmp / "ser", self.TINY, jobs=1)
        listing = lambda r: sorted(os.path.relpath(os.path.join(d, f), r) for d, _, fs in os.walk(r) for f in fs)
        self.assertEqual(listing(root), listing(serial))
        self.assert_tree_matches(root, self.TINY, manifest)

    def test_complete_dataset_is_reused(self):
        bm.ensure_dataset(self.tmp, self.TINY)
        with mock.patch.object(bm, "build_tree") as build:
            bm.ensure_dataset(self.tmp, self.TINY)
        build.assert_not_called()

    def test_leftover_partial_build_is_deleted_not_reused(self):
        partial = self.tmp / ".tiny.partial-424242"
        (partial / "dir_0000").mkdir(parents=True)
        (partial / "dir_0000" / "junk.jpg").write_bytes(b"half")
        root, manifest = bm.ensure_dataset(self.tmp, self.TINY)
        self.assertFalse(partial.exists())
        self.assertEqual(bm._partial_dirs(self.tmp, "tiny"), [])
        self.assert_tree_matches(root, self.TINY, manifest)

    def test_interrupted_build_never_appears_under_the_final_name(self):
        calls = {"n": 0}
        real = bm._write_dir_job

        def dying(job):
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt("simulated ^C")
            return real(job)

        with mock.patch.object(bm, "_write_dir_job", dying):
            with self.assertRaises(KeyboardInterrupt):
                bm.ensure_dataset(self.tmp, self.TINY)
        self.assertFalse((self.tmp / "tiny").exists())
        self.assertFalse((self.tmp / "tiny.manifest.json").exists())
        self.assertEqual(len(bm._partial_dirs(self.tmp, "tiny")), 1)

        root, manifest = bm.ensure_dataset(self.tmp, self.TINY)
        self.assert_tree_matches(root, self.TINY, manifest)
        self.assertEqual(bm._partial_dirs(self.tmp, "tiny"), [])

    def test_tree_without_matching_manifest_is_rebuilt(self):
        root, _ = bm.ensure_dataset(self.tmp, self.TINY)
        (root / "stray.txt").write_text("not generated")
        (self.tmp / "tiny.manifest.json").unlink()
        root, manifest = bm.ensure_dataset(self.tmp, self.TINY)
        self.assertFalse((root / "stray.txt").exists())
        self.assert_tree_matches(root, self.TINY, manifest)

    def test_manifest_from_another_generator_version_triggers_rebuild(self):
        bm.ensure_dataset(self.tmp, self.TINY)
        path = self.tmp / "tiny.manifest.json"
        old = json.loads(path.read_text())
        old["generator_version"] = -1
        path.write_text(json.dumps(old))
        with mock.patch.object(bm, "build_tree", wraps=bm.build_tree) as build:
            bm.ensure_dataset(self.tmp, self.TINY)
        build.assert_called_once()


# ---------------------------------------------------------------------------
# Command construction
# ---------------------------------------------------------------------------

EXPECTED_ARGV = {
    "pfind": {
        "all_files": ["pfind", ROOT],
        "extension_jpg": ["pfind", ROOT, "-e", "jpg"],
        "extension_multi": ["pfind", ROOT, "-e", "jpg", "-e", "png", "-e", "txt"],
        "name_glob": ["pfind", ROOT, "-n", bm.NAME_GLOB],
        "count_only": ["pfind", ROOT, "-c"],
    },
    "fd": {
        "all_files": ["fd", "-t", "f", "--no-ignore", "--hidden", ".", ROOT],
        "extension_jpg": ["fd", "-t", "f", "--no-ignore", "--hidden", "-e", "jpg", ".", ROOT],
        "extension_multi": ["fd", "-t", "f", "--no-ignore", "--hidden", "-e", "jpg", "-e", "png", "-e", "txt", ".", ROOT],
        "name_glob": ["fd", "-t", "f", "--no-ignore", "--hidden", "-s", "-g", bm.NAME_GLOB, ROOT],
        "count_only": ["fd", "-t", "f", "--no-ignore", "--hidden", ".", ROOT],
    },
    "rg": {
        "all_files": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", ROOT],
        "extension_jpg": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", "--iglob", "*.jpg", ROOT],
        "extension_multi": [
            "rg", "--no-config", "--files", "--no-ignore", "--hidden",
            "--iglob", "*.jpg", "--iglob", "*.png", "--iglob", "*.txt", ROOT,
        ],
        "name_glob": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", "-g", bm.NAME_GLOB, ROOT],
        "count_only": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", ROOT],
    },
    "find": {
        "all_files": ["find", ROOT, "-type", "f"],
        "extension_jpg": ["find", ROOT, "-type", "f", "-iname", "*.jpg"],
        "extension_multi": [
            "find", ROOT, "-type", "f", "(", "-iname", "*.jpg", "-o", "-iname", "*.png", "-o", "-iname", "*.txt", ")",
        ],
        "name_glob": ["find", ROOT, "-type", "f", "-name", bm.NAME_GLOB],
        "count_only": ["find", ROOT, "-type", "f"],
    },
    "floor": {
        "all_files": ["floor", "-j", "2", "-p", ROOT],
        "extension_jpg": ["floor", "-j", "2", ROOT],
        "extension_multi": ["floor", "-j", "2", ROOT],
        "name_glob": ["floor", "-j", "2", ROOT],
        "count_only": ["floor", "-j", "2", ROOT],
    },
}


class CommandTests(unittest.TestCase):
    def builders(self):
        return {
            "pfind": lambda sc: bm.pfind_argv("pfind", ROOT, sc),
            "fd": lambda sc: bm.fd_argv("fd", ROOT, sc),
            "rg": lambda sc: bm.rg_argv("rg", ROOT, sc),
            "find": lambda sc: bm.find_argv("find", ROOT, sc),
            "floor": lambda sc: bm.floor_argv("floor", ROOT, sc, 2),
        }

    def test_every_tool_and_scenario(self):
        builders = self.builders()
        for tool, per_scenario in EXPECTED_ARGV.items():
            self.assertEqual(set(per_scenario), set(bm.SCENARIOS))
            for name, argv in per_scenario.items():
                with self.subTest(tool=tool, scenario=name):
                    self.assertEqual(builders[tool](SC[name]), argv)

    def test_bfs_uses_the_find_expression(self):
        for name, sc in SC.items():
            with self.subTest(name):
                self.assertEqual(bm.find_argv("bfs", ROOT, sc)[1:], EXPECTED_ARGV["find"][name][1:])

    def test_pfind_extra_arguments_come_last(self):
        self.assertEqual(bm.pfind_argv("pfind", ROOT, SC["count_only"], ["-j", "3"]), ["pfind", ROOT, "-c", "-j", "3"])

    def test_oswalk_arguments(self):
        for name, sc in SC.items():
            with self.subTest(name):
                argv = bm.oswalk_argv("python3", ROOT, sc)
                self.assertEqual(argv[:5], ["python3", "-I", "-S", "-c", bm.OSWALK_SCRIPT])
                self.assertEqual(argv[5:], [ROOT, "1" if sc.count else "0", sc.glob or ""] + list(sc.exts))

    def test_hyperfine_invocation(self):
        named = [("pfind", ["pfind", ROOT]), ("oswalk", bm.oswalk_argv("python3", ROOT, SC["name_glob"]))]
        argv = bm.hyperfine_argv("hyperfine", named, warmup=3, runs=10, export="/tmp/x.json")
        self.assertEqual(
            argv[:10], ["hyperfine", "-N", "--warmup", "3", "--runs", "10", "--output=null", "--export-json", "/tmp/x.json", "--command-name"]
        )
        self.assertEqual(argv[10:13], ["pfind", "--command-name", "oswalk"])
        # hyperfine -N splits with POSIX shell-word rules: every argv must survive that.
        self.assertEqual([shlex.split(c) for c in argv[13:]], [cmd for _, cmd in named])
        self.assertIn("--output=pipe", bm.hyperfine_argv("hyperfine", named, 0, 1, "x", output="pipe"))

    def test_tools_agree_with_the_manifest_on_a_real_tree(self):
        """Each installed peer, run with its command line, finds exactly the
        generator's count: the equivalences in the builders are real."""
        with tempfile.TemporaryDirectory() as tmp:
            shape = bm.Shape("mini", "tree", branching=2, depth=3, files_per_dir=30)
            root, manifest = bm.ensure_dataset(Path(tmp), shape)
            # Files the generator never makes, which a wrong filter would pick up.
            (root / "dir_0" / "FILE_000171.JPG").write_bytes(b"x")
            (root / "dir_1" / ".hidden.jpg").write_bytes(b"x")
            extra = {"all_files": 2, "extension_jpg": 2, "extension_multi": 2, "name_glob": 0, "count_only": 2}
            tools, _ = bm.discover_peers(bm.PEER_NAMES)
            pfind = REPO / "target" / "release" / "pfind"
            if os.access(pfind, os.X_OK):
                tools.append(bm.make_pfind(str(pfind)))
            for tool in tools:
                for name, sc in SC.items():
                    with self.subTest(tool=tool.name, scenario=name):
                        out = bm.run_capture(tool.argv_for(str(root), sc))
                        self.assertEqual(bm.output_count(tool, sc, out), sc.expected(manifest) + extra[name])


# ---------------------------------------------------------------------------
# Tool discovery
# ---------------------------------------------------------------------------


class DiscoveryTests(TempDirTest):
    def fake_tool(self, name: str, version_line: str) -> None:
        path = self.tmp / name
        path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def test_missing_tools_are_reported_and_skipped(self):
        tools, skipped = bm.discover_peers(["fd", "rg", "bfs", "find", "oswalk"], path=str(self.tmp))
        self.assertEqual([t.name for t in tools], ["oswalk"])
        self.assertEqual(set(skipped), {"fd", "rg", "bfs", "find"})
        self.assertIn("fdfind", skipped["fd"])

    def test_fdfind_is_accepted_and_versions_recorded(self):
        self.fake_tool("fdfind", "fdfind 9.0.0")
        self.fake_tool("bfs", "bfs 3.0")
        tools, skipped = bm.discover_peers(["fd", "bfs", "rg"], path=str(self.tmp))
        by_name = {t.name: t for t in tools}
        self.assertEqual(by_name["fd"].path, str(self.tmp / "fdfind"))
        self.assertEqual(by_name["fd"].version, "fdfind 9.0.0")
        self.assertEqual(by_name["bfs"].version, "bfs 3.0")
        self.assertEqual(list(skipped), ["rg"])
        self.assertEqual(by_name["fd"].describe()["role"], bm.COMPETITOR)

    def test_fd_is_preferred_over_fdfind(self):
        self.fake_tool("fdfind", "fdfind 9.0.0")
        self.fake_tool("fd", "fd 10.0.0")
        tools, _ = bm.discover_peers(["fd"], path=str(self.tmp))
        self.assertEqual(tools[0].path, str(self.tmp / "fd"))

    def test_unknown_version_does_not_fail(self):
        self.assertEqual(bm.tool_version([str(self.tmp / "missing")]), "unknown")


# ---------------------------------------------------------------------------
# Correctness checks and the report
# ---------------------------------------------------------------------------


def printer_tool(name: str, role: str, output: str, prints_count=lambda sc: False, comparable=lambda sc: True) -> bm.Tool:
    """A Tool whose command just prints ``output`` (no real walk needed)."""
    argv = [sys.executable, "-c", f"import sys; sys.stdout.write({output!r})"]
    return bm.Tool(name, role, sys.executable, "test", lambda root, sc: argv, prints_count, comparable)


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


class CorrectnessTests(unittest.TestCase):
    def test_count_lines(self):
        self.assertEqual(bm.count_lines(b""), 0)
        self.assertEqual(bm.count_lines(b"a\nb\n"), 2)
        self.assertEqual(bm.count_lines(b"a\nb"), 2)

    def test_compare_paths_ignores_order_but_not_duplicates(self):
        self.assertTrue(bm.compare_paths(b"a\nb\n", b"b\na\n")["equal"])
        dup = bm.compare_paths(b"a\na\nb\n", b"a\nb\n")
        self.assertFalse(dup["equal"])
        self.assertEqual(dup["duplicates"], 1)
        diff = bm.compare_paths(b"a\nc\n", b"a\nb\n")
        self.assertEqual((diff["only_subject"], diff["only_reference"]), (["c"], ["b"]))

    def test_pfind_agreeing_with_find(self):
        tools = [
            printer_tool("pfind", bm.SUBJECT, "/r/b\n/r/a\n"),
            printer_tool("find", bm.COMPETITOR, "/r/a\n/r/b\n"),
            printer_tool("floor", bm.REFERENCE, "7\n", prints_count=lambda sc: True, comparable=lambda sc: False),
        ]
        check = bm.correctness_check(tools, "/r", SC["extension_jpg"], 2, tools[1])
        self.assertTrue(check["pfind_correct"])
        self.assertEqual(check["counts"], {"pfind": 2, "find": 2, "floor": 7})
        self.assertEqual(check["count_ok"], {"pfind": True, "find": True, "floor": None})
        self.assertTrue(check["paths"]["equal"])

    def test_pfind_with_right_count_but_wrong_paths_fails(self):
        tools = [printer_tool("pfind", bm.SUBJECT, "/r/a\n/r/x\n"), printer_tool("find", bm.COMPETITOR, "/r/a\n/r/b\n")]
        check = bm.correctness_check(tools, "/r", SC["all_files"], 2, tools[1])
        self.assertFalse(check["pfind_correct"])
        self.assertEqual(check["paths"]["only_subject"], ["/r/x"])

    def test_count_only_reads_pfinds_number(self):
        tools = [printer_tool("pfind", bm.SUBJECT, "3\n", prints_count=lambda sc: sc.count), printer_tool("find", bm.COMPETITOR, "a\nb\nc\n")]
        check = bm.correctness_check(tools, "/r", SC["count_only"], 3, tools[1])
        self.assertTrue(check["pfind_correct"])
        self.assertIsNone(check["paths"])

    def test_failing_tool_is_recorded_not_fatal(self):
        broken = bm.Tool("fd", bm.COMPETITOR, "x", "test", lambda root, sc: [sys.executable, "-c", "raise SystemExit(3)"])
        tools = [printer_tool("pfind", bm.SUBJECT, "a\n"), broken]
        check = bm.correctness_check(tools, "/r", SC["all_files"], 1, None)
        self.assertTrue(check["pfind_correct"])
        self.assertIsNone(check["counts"]["fd"])
        self.assertFalse(check["count_ok"]["fd"])
        self.assertIn("exited 3", check["errors"]["fd"])


def fake_tools() -> list[bm.Tool]:
    return [
        printer_tool("pfind", bm.SUBJECT, ""),
        printer_tool("fd", bm.COMPETITOR, ""),
        printer_tool("bfs", bm.COMPETITOR, ""),
        printer_tool("floor", bm.REFERENCE, ""),
    ]


FAST_PFIND = {"pfind": 0.010, "fd": 0.030, "bfs": 0.020, "floor": 0.005}


def fake_cell(means=FAST_PFIND, correct=True, scenario="all_files", size="small") -> dict:
    """A report cell built from a fake hyperfine export and a fake check."""
    check = {
        "expected": 10,
        "counts": {"pfind": 10 if correct else 9, "fd": 10, "bfs": 10, "floor": 10},
        "count_ok": {"pfind": correct, "fd": True, "bfs": True, "floor": True},
        "errors": {},
        "paths": None,
        "pfind_correct": correct,
    }
    return bm.make_cell(SC[scenario], size, "/d/" + size, fake_tools(), fake_hyperfine(means), check)


def fake_report(cells, sweep=None) -> dict:
    return bm.make_report(
        machine=bm.machine_info(Path(tempfile.gettempdir())),
        tools=fake_tools(),
        skipped={"rg": "not installed"},
        config={"runs": 3},
        datasets={"small": {"files": 10}},
        cells=cells,
        sweep=sweep,
    )


class ReportTests(unittest.TestCase):
    def test_cell_keeps_every_statistic_per_tool(self):
        cell = fake_cell(FAST_PFIND)
        self.assertEqual(set(cell["results"]), {"pfind", "fd", "bfs", "floor"})
        for stats in cell["results"].values():
            self.assertEqual(set(stats), {"mean", "stddev", "median", "min", "max", "user", "system", "times", "exit_codes"})
            self.assertEqual(len(stats["times"]), 3)
        self.assertEqual(set(cell["commands"]), {"pfind", "fd", "bfs", "floor"})

    def test_reference_tool_is_never_the_runner_up(self):
        cell = fake_cell(FAST_PFIND)
        self.assertEqual(cell["runner_up"], "bfs")
        self.assertAlmostEqual(cell["speedup"], 2.0)
        self.assertTrue(cell["pfind_fastest"])

    def test_slower_pfind_has_speedup_below_one(self):
        cell = fake_cell({"pfind": 0.040, "fd": 0.030, "bfs": 0.020, "floor": 0.005})
        self.assertEqual(cell["runner_up"], "bfs")
        self.assertAlmostEqual(cell["speedup"], 0.5)
        self.assertFalse(cell["pfind_fastest"])

    def test_result_count_mismatch_is_an_error(self):
        with self.assertRaises(ValueError):
            bm.results_by_name(fake_hyperfine({"a": 1.0}), ["a", "b"])

    def test_failed_timing_still_makes_a_cell(self):
        check = {"expected": 1, "counts": {}, "count_ok": {}, "errors": {}, "paths": None, "pfind_correct": True}
        cell = bm.make_cell(SC["all_files"], "small", "/d", fake_tools(), None, check, error="hyperfine exited with status 1")
        self.assertEqual(cell["results"], {})
        self.assertIsNone(cell["speedup"])
        self.assertFalse(fake_report([cell])["all_timings_ok"])

    def test_report_schema(self):
        cells = [fake_cell(FAST_PFIND, scenario=s) for s in bm.SCENARIO_ORDER]
        sweep = {"scenario": "all_files", "size": "small", "commands": {}, "points": [{"threads": 1, "mean": 0.02, "stddev": 0.001}]}
        report = json.loads(json.dumps(fake_report(cells, sweep)))  # must be plain JSON
        self.assertEqual(
            set(report),
            {"schema", "generated_at", "machine", "tools", "skipped_tools", "config", "datasets", "cells", "thread_sweep", "pfind_correct", "all_timings_ok"},
        )
        self.assertEqual(report["schema"], bm.REPORT_SCHEMA)
        for key in ("cpu_model", "logical_cpus", "available_cpus", "kernel", "filesystem"):
            self.assertIn(key, report["machine"])
        self.assertEqual(report["tools"]["floor"]["role"], bm.REFERENCE)
        self.assertEqual(report["tools"]["pfind"]["version"], "test")
        self.assertEqual(report["skipped_tools"], {"rg": "not installed"})
        self.assertTrue(report["pfind_correct"])
        self.assertEqual(len(report["cells"]), 5)
        for cell in report["cells"]:
            self.assertEqual(
                set(cell), {"scenario", "size", "root", "commands", "results", "runner_up", "speedup", "pfind_fastest", "correctness"}
            )

    def test_one_wrong_cell_marks_the_report_incorrect(self):
        report = fake_report([fake_cell(FAST_PFIND), fake_cell(FAST_PFIND, correct=False, size="deep")])
        self.assertFalse(report["pfind_correct"])
        self.assertIn("DISAGREES in all_files/deep", "\n".join(bm.summary_lines(report)))

    def test_tables_render(self):
        cells = [fake_cell(FAST_PFIND, scenario=s) for s in ("all_files", "count_only")]
        report = fake_report(cells)
        text = bm.timing_tables(report)
        self.assertIn("### all_files", text)
        self.assertIn("### count_only", text)
        self.assertIn("10.0 ± 1.0 ms", text)
        self.assertIn("2.00x vs bfs", text)
        self.assertIn("floor (ref)", text)
        self.assertIn("all_files", bm.correctness_table(report))
        self.assertIn("fastest in 2/2 cells", bm.summary_lines(report)[0])


class ArgumentTests(unittest.TestCase):
    def test_defaults_match_the_documented_command(self):
        args = bm.parse_args([])
        self.assertEqual((args.runs, args.warmup), (10, 3))
        self.assertEqual(args.sizes, bm.SIZE_ORDER)
        self.assertEqual(args.data_dir, Path("/tmp/pfind_ds"))
        self.assertEqual(args.sweep_size, "large")

    def test_skip_oswalk_and_pfind_args(self):
        args = bm.parse_args(["--skip-oswalk", "--pfind-args", "-j 2 --foo"])
        self.assertNotIn("oswalk", args.tools)
        self.assertEqual(args.pfind_extra, ["-j", "2", "--foo"])

    def test_sweep_refuses_a_fixed_thread_count(self):
        with self.assertRaises(SystemExit):
            bm.parse_args(["--threads-sweep", "1", "2", "--pfind-args=-j4"])


# ---------------------------------------------------------------------------
# End to end (hyperfine, a stand-in pfind, GNU find)
# ---------------------------------------------------------------------------


@unittest.skipUnless(shutil.which("hyperfine") and shutil.which("find"), "needs hyperfine and find")
class EndToEndTests(TempDirTest):
    @classmethod
    def setUpClass(cls):
        cls._data = tempfile.TemporaryDirectory(prefix="pfind-bench-e2e-")  # one deep tree for all tests

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def fake_pfind(self, body: str) -> str:
        path = self.tmp / "pfind"
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)
        return str(path)

    def run_main(self, pfind: str, *extra: str) -> tuple[int, dict]:
        out = self.tmp / "report.json"
        argv = ["--pfind", pfind, "--sizes", "deep", "--scenarios", "count_only", "name_glob", "--tools", "find",
                "--runs", "2", "--warmup", "0", "--data-dir", self._data.name, "--output", str(out), *extra]
        with mock.patch("sys.stdout"):
            code = bm.main(argv)
        return code, json.loads(out.read_text())

    def test_wrong_pfind_makes_the_harness_fail(self):
        code, report = self.run_main(self.fake_pfind("echo 0"))
        self.assertEqual(code, 1)
        self.assertFalse(report["pfind_correct"])
        self.assertEqual([c["scenario"] for c in report["cells"]], ["count_only", "name_glob"])
        self.assertEqual(report["cells"][0]["correctness"]["counts"], {"pfind": 0, "find": 7260})

    def test_crashing_pfind_is_recorded_in_the_cell(self):
        code, report = self.run_main(self.fake_pfind("exit 3"))
        self.assertEqual(code, 1)
        self.assertFalse(report["all_timings_ok"])
        cell = report["cells"][0]
        self.assertIn("hyperfine exited", cell["error"])
        self.assertIn("exited 3", cell["correctness"]["errors"]["pfind"])

    def test_correct_stand_in_passes_with_sweep(self):
        # A shell stand-in that answers like pfind by delegating to find.
        body = 'case "$2" in -c) find "$1" -type f | wc -l ;; -n) find "$1" -type f -name "$3" ;; *) find "$1" -type f ;; esac'
        code, report = self.run_main(self.fake_pfind(body), "--threads-sweep", "1", "2", "--sweep-size", "deep")
        self.assertEqual(code, 0)
        self.assertTrue(report["pfind_correct"])
        self.assertTrue(all(c["correctness"]["paths"]["equal"] for c in report["cells"] if c["scenario"] == "name_glob"))
        self.assertEqual([p["threads"] for p in report["thread_sweep"]["points"]], [1, 2])
        self.assertEqual(len(report["cells"][0]["results"]["pfind"]["times"]), 2)


class PlotTests(TempDirTest):
    def setUp(self):
        super().setUp()
        if importlib.util.find_spec("matplotlib") is None:
            self.skipTest("matplotlib not installed")

    def test_plot_writes_three_svgs(self):
        report = fake_report(
            [fake_cell(FAST_PFIND, scenario=s, size=z) for s in bm.SCENARIO_ORDER for z in ("small", "large")],
            sweep={"scenario": "all_files", "size": "large", "commands": {}, "points": [{"threads": n, "mean": 0.01 * n, "stddev": 0.001} for n in (1, 2, 4)]},
        )
        path = self.tmp / "r.json"
        path.write_text(json.dumps(report))
        self.assertEqual(bm.main(["--plot", str(path), "--assets-dir", str(self.tmp / "assets")]), 0)
        written = sorted(p.name for p in (self.tmp / "assets").iterdir())
        self.assertEqual(written, ["headline_large.svg", "speedup_heatmap.svg", "thread_sweep.svg"])
        for name in written:
            self.assertTrue((self.tmp / "assets" / name).read_text().lstrip().startswith("<?xml"))


if __name__ == "__main__":
    unittest.main()


class PeakMemoryTest(unittest.TestCase):
    """run_measured reports the child's own peak RSS, not the harness's."""

    @unittest.skipUnless(bm.gnu_time_path(), "GNU time is not installed (apt-get install time)")
    def test_peak_rss_tracks_what_the_child_allocates(self):
        small_out, small = bm.run_measured([sys.executable, "-c", "print('x')"])
        big_out, big = bm.run_measured([sys.executable, "-c", "b = b'x' * (64 << 20); print('y')"])
        self.assertEqual((small_out, big_out), (b"x\n", b"y\n"))
        self.assertGreater(small, 500)
        # Not the harness's own peak (a fork of this Python process would report it).
        import resource
        self.assertLess(small, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        self.assertGreater(big - small, 60 * 1024)  # 64 MiB written, in KiB

    def test_failure_still_raises_with_the_last_stderr_line(self):
        with self.assertRaises(RuntimeError) as caught:
            bm.run_measured([sys.executable, "-c", "import sys; sys.exit('boom')"])
        self.assertIn("boom", str(caught.exception))

    def test_memory_table_lists_each_size_of_one_scenario(self):
        report = {
            "tools": {"pfind": {}, "bfs": {}},
            "cells": [
                {"scenario": "all_files", "size": "large", "correctness": {"max_rss_kib": {"pfind": 2048, "bfs": 3072}}},
                {"scenario": "count_only", "size": "large", "correctness": {"max_rss_kib": {"pfind": 1, "bfs": 1}}},
            ],
        }
        table = bm.memory_table(report)
        rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("| large")]
        self.assertEqual([[cell.strip() for cell in row] for row in rows], [["large", "2.0", "3.0"]])


class SweepPoolingTest(unittest.TestCase):
    def test_two_passes_pool_their_runs_and_keep_each_mean(self):
        forward = {"mean": 0.10, "user": 0.01, "system": 0.2, "times": [0.09, 0.11]}
        reverse = {"mean": 0.20, "user": 0.03, "system": 0.4, "times": [0.19, 0.21]}
        point = bm.pool_passes([forward, reverse])
        self.assertAlmostEqual(point["mean"], 0.15)
        self.assertEqual(point["times"], [0.09, 0.11, 0.19, 0.21])
        self.assertEqual(point["pass_means"], [0.10, 0.20])
        self.assertEqual((point["min"], point["max"]), (0.09, 0.21))
        self.assertAlmostEqual(point["user"], 0.02)
        self.assertAlmostEqual(point["system"], 0.3)
        self.assertGreater(point["stddev"], 0.05)
        table = bm.sweep_table({"scenario": "all_files", "size": "large", "points": [{"threads": 2, **point}]})
        self.assertIn("100.0 / 200.0", table)
