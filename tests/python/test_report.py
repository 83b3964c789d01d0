"""Tests of pfind_bench.report: cells and their ranking, the report's shape (and
reading schema-1 reports such as the committed optimized.json), and the tables."""

from __future__ import annotations

import json
import unittest

from tests.python.support import (
    FAST_PFIND,
    REPO,
    SC,
    fake_cell,
    fake_check,
    fake_early_quit,
    fake_first_path,
    fake_report,
    fake_shallow_order,
    fake_sweep,
    fake_tools,
    quiet_start,
    quiet_stop,
)
from pfind_bench import report as rp
from pfind_bench.tools import REFERENCE, SCENARIO_ORDER

setUpModule, tearDownModule = quiet_start, quiet_stop

SCHEMA_1_CELL_KEYS = {"scenario", "size", "root", "commands", "results", "runner_up", "speedup", "pfind_fastest", "correctness"}
SCHEMA_1_RESULT_KEYS = {"mean", "stddev", "median", "min", "max", "user", "system", "times", "exit_codes"}


def rows_of(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("|")[1:-1]] for line in table.splitlines() if line.startswith("| ") and not line.startswith("|--")]


class CellTests(unittest.TestCase):
    def test_cell_keeps_every_statistic_per_tool_and_both_passes(self):
        cell = fake_cell(FAST_PFIND)
        self.assertEqual(set(cell["results"]), {"pfind", "fd", "bfs", "floor"})
        for stats in cell["results"].values():
            self.assertLessEqual(SCHEMA_1_RESULT_KEYS, set(stats))
            self.assertEqual(len(stats["times"]), 6)
            self.assertEqual(stats["pass_runs"], [3, 3])
            self.assertEqual(len(stats["pass_means"]), 2)
        self.assertEqual(set(cell["commands"]), {"pfind", "fd", "bfs", "floor"})
        self.assertEqual(cell["passes"], [{"order": ["pfind", "fd", "bfs", "floor"]}, {"order": ["floor", "bfs", "fd", "pfind"]}])

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

    def test_ratio_to_floor(self):
        cell = fake_cell(FAST_PFIND)
        self.assertAlmostEqual(cell["vs_floor"], 2.0)
        self.assertAlmostEqual(cell["cpu_vs_floor"], 2.0)
        no_floor = rp.make_cell(SC["all_files"], "small", "/d", fake_tools()[:2], {"pfind": {"mean": 1.0}}, fake_check())
        self.assertIsNone(no_floor["vs_floor"])

    def test_cell_names_its_cache_filesystem_and_kind(self):
        cell = fake_cell(cache="cold", fs="btrfs")
        self.assertEqual((cell["cache"], cell["fs"], cell["kind"], cell["target"], cell["size"]), ("cold", "btrfs", "dataset", "small", "small"))
        tree = fake_cell(size="/usr", kind="tree")
        self.assertEqual((tree["kind"], tree["target"], tree["size"]), ("tree", "/usr", None))
        self.assertEqual(rp.cell_label(tree), "all_files on /usr (warm, ext4)")

    def test_failed_timing_still_makes_a_cell(self):
        cell = rp.make_cell(SC["all_files"], "small", "/d", fake_tools(), None, fake_check(), error="hyperfine exited with status 1")
        self.assertEqual(cell["results"], {})
        self.assertIsNone(cell["speedup"])
        self.assertFalse(fake_report([cell])["all_timings_ok"])


class ReportShapeTests(unittest.TestCase):
    def test_report_schema(self):
        cells = [fake_cell(FAST_PFIND, scenario=s) for s in SCENARIO_ORDER]
        report = json.loads(json.dumps(fake_report(cells, [fake_sweep()], trees={"/usr": {"fs": "ext4", "files": 3}}, skipped_cells=["x: y"])))
        self.assertEqual(
            set(report),
            {"schema", "generated_at", "machine", "tools", "skipped_tools", "skipped", "config", "datasets", "trees", "cells",
             "thread_sweep", "thread_sweeps", "early_quit", "shallow_order", "first_path", "ignore_view", "pfind_correct", "all_timings_ok"},
        )
        self.assertEqual(report["schema"], rp.REPORT_SCHEMA)
        self.assertEqual(rp.REPORT_SCHEMA, 4)
        self.assertEqual((report["early_quit"], report["shallow_order"], report["first_path"], report["ignore_view"]), (None, None, None, None))
        for key in ("cpu_model", "logical_cpus", "available_cpus", "kernel", "filesystem"):
            self.assertIn(key, report["machine"])
        self.assertEqual(report["tools"]["floor"]["role"], REFERENCE)
        self.assertEqual(report["tools"]["pfind"]["version"], "test")
        self.assertEqual(report["skipped_tools"], {"rg": "not installed"})
        self.assertEqual(report["skipped"], ["x: y"])
        self.assertTrue(report["pfind_correct"])
        self.assertEqual(report["thread_sweep"], report["thread_sweeps"][0], "schema-1 readers still find the sweep")
        for cell in report["cells"]:
            self.assertLessEqual(SCHEMA_1_CELL_KEYS, set(cell))
            self.assertLessEqual({"target", "kind", "fs", "cache", "passes", "vs_floor", "cpu_vs_floor"}, set(cell))

    def test_one_wrong_cell_marks_the_report_incorrect(self):
        report = fake_report([fake_cell(FAST_PFIND), fake_cell(FAST_PFIND, correct=False, size="deep", cache="cold", fs="xfs")])
        self.assertFalse(report["pfind_correct"])
        self.assertIn("DISAGREES in all_files on deep (cold, xfs)", "\n".join(rp.summary_lines(report)))

    def test_a_failed_sweep_fails_the_timings(self):
        sweep = dict(fake_sweep(), error="hyperfine exited with status 1")
        report = fake_report([fake_cell()], [sweep])
        self.assertFalse(report["all_timings_ok"])
        self.assertIn("timing FAILED in thread sweep", "\n".join(rp.summary_lines(report)))


class PartsTests(unittest.TestCase):
    """The early-quit, shallow-order and first-path sections in the report."""

    def test_pfind_missing_a_name_or_a_shallow_file_is_incorrect(self):
        self.assertTrue(fake_report([], early_quit=fake_early_quit(), shallow_order=fake_shallow_order())["pfind_correct"])
        self.assertFalse(fake_report([], early_quit=fake_early_quit(missed={"pfind": ["n1"]}))["pfind_correct"])
        self.assertTrue(fake_report([], early_quit=fake_early_quit(missed={"fd": ["n1"]}))["pfind_correct"], "a peer's miss is flagged, not pfind's")
        report = fake_report([], shallow_order=fake_shallow_order(pfind_missing=3))
        self.assertFalse(report["pfind_correct"])
        self.assertIn("correctness: pfind DISAGREES in shallow order", rp.summary_lines(report))

    def test_a_failed_part_fails_the_timings(self):
        eq = fake_early_quit()
        eq["trees"][0]["depths"][0]["error"] = "hyperfine exited 1"
        report = fake_report([], early_quit=eq)
        self.assertFalse(report["all_timings_ok"])
        self.assertIn("early quit: FAILED: /usr, depth 2: hyperfine exited 1", rp.summary_lines(report))
        self.assertFalse(fake_report([], first_path={"error": "losetup: no loop devices"})["all_timings_ok"])

    def test_early_quit_table(self):
        table = rp.early_quit_table(fake_report([], early_quit=fake_early_quit(missed={"fd": ["n0"]})))
        rows = rows_of(table)
        self.assertEqual(rows[0], ["tree", "depth", "names", "pfind", "fd", "bfs", "pfind speedup"])
        self.assertEqual(rows[1], ["/usr", "2", "2 of 150", "40.0 ± 0.0", "18.0 ± 0.0", "**4.0 ± 0.0**", "0.10x vs bfs"])
        self.assertEqual(rows[2], ["/usr", "4", "2 of 150", "**25.0 ± 7.1**", "50.0 ± 0.0 (!1)", "35.0 ± 7.1", "1.40x vs bfs"])
        self.assertEqual(rows[3][:3], ["/usr", "16", "skipped: no uniquely named regular file at depth 16 (the tree is 12 deep)"])
        self.assertEqual(rows[4], ["process start", "pfind", "fd", "bfs", "pfind speedup"])
        self.assertEqual(rows[5][0::4], ["empty directory", "2.00x vs bfs"])
        self.assertIn("### early quit: mean ms per search (process start included)", table)

    def test_shallow_order_table(self):
        rows = rows_of(rp.shallow_order_table(fake_report([], shallow_order=fake_shallow_order(pfind_missing=2))))
        self.assertEqual(rows[0][:3], ["tree (files at depth <= 2)", "command", "share of output: min / median / max"])
        self.assertEqual(rows[1], ["/usr (1,063)", "pfind", "60.0% / 74.0% / 80.0%", "5.1", "2"])
        self.assertEqual(rows[3], ["/usr (1,063)", "bfs", "1.1% / 1.2% / 1.3%", "2.4", "-"])

    def test_first_path_table(self):
        text = rp.first_path_table(fake_report([], first_path=fake_first_path()))
        rows = rows_of(text)
        self.assertEqual(rows[0], ["command", "first byte, ms", "end of output, ms", "exit, ms", "first byte vs bfs", "lines"])
        self.assertEqual(rows[1], ["pfind", "200.7", "210.0", "210.0", "27.12x", "5"])
        self.assertEqual(rows[3][:5], ["bfs", "7.4", "646.0", "646.0", ""])
        self.assertIn("xfs on a loop device, direct I/O; /usr: 115,362 files; median of 3 runs", text)
        self.assertIn("`pfind | head -1` end to end: 26.25x `pfind -1`.", text)
        self.assertEqual(rp.first_path_table(fake_report([], first_path={"error": "no loop"})), "### first path, cold\n\nfailed: no loop")

    def test_summary_lines_for_the_parts(self):
        lines = rp.summary_lines(fake_report([], early_quit=fake_early_quit(missed={"fd": ["n0"]}), shallow_order=fake_shallow_order(), first_path=fake_first_path()))
        self.assertIn("early quit on /usr: pfind lowest at 1/2 depths; smallest margin 0.10x vs bfs (depth 2)", lines)
        self.assertIn("early quit on /usr, depth 4: fd did not print the expected path for 1 names", lines)
        self.assertIn("process start: pfind 1.0 ms, fd 3.0 ms, bfs 2.0 ms", lines)
        self.assertIn("shallow order on /usr (median share of output before the last file at depth <= 2): pfind 74.0%, pfind -j 8 3.0%, bfs 1.2%", lines)
        self.assertIn("first path, cold: pfind's first byte at 200.7 ms, bfs's at 7.4 ms; pfind | head -1 26.25x pfind -1", lines)

    def test_a_run_with_only_the_parts_prints_no_cell_tables(self):
        text = "\n\n".join(rp.all_tables(fake_report([], early_quit=fake_early_quit(), shallow_order=fake_shallow_order(), first_path=fake_first_path())))
        self.assertNotIn("correctness", text)
        self.assertNotIn("speedup = runner-up", text)
        for title in ("### early quit", "### shallow order", "### first path, cold"):
            self.assertIn(title, text)


class UpgradeTests(unittest.TestCase):
    def test_a_schema_2_report_has_no_parts(self):
        old = {"schema": 2, "machine": {"filesystem": "ext4"}, "tools": {}, "cells": [], "thread_sweeps": []}
        new = rp.upgrade_report(old)
        self.assertEqual((new["early_quit"], new["shallow_order"], new["first_path"]), (None, None, None))
        self.assertEqual((rp.early_quit_table(old), rp.shallow_order_table(old), rp.first_path_table(old)), ("", "", ""))

    def test_a_schema_1_report_reads_as_warm_on_the_data_directorys_filesystem(self):
        old = {
            "schema": 1,
            "machine": {"filesystem": "ext4"},
            "tools": {"pfind": {"role": "subject"}},
            "cells": [{"scenario": "all_files", "size": "large", "results": {"pfind": {"mean": 0.1}}, "correctness": {}}],
            "thread_sweep": {"scenario": "all_files", "size": "large", "points": []},
        }
        new = rp.upgrade_report(old)
        cell = new["cells"][0]
        self.assertEqual((cell["target"], cell["kind"], cell["fs"], cell["cache"]), ("large", "dataset", "ext4", "warm"))
        self.assertEqual(new["thread_sweeps"][0]["cache"], "warm")
        self.assertNotIn("target", old["cells"][0], "the original is left alone")

    def test_the_committed_report_still_renders(self):
        with open(REPO / "optimized.json") as f:
            committed = json.load(f)
        report = rp.upgrade_report(committed)
        self.assertTrue(all(c["cache"] in ("warm", "cold") for c in report["cells"]))
        text = "\n\n".join(rp.all_tables(committed))
        self.assertIn("### warm cache, ext4: all_files", text)
        self.assertIn("| large", text)
        self.assertIn("correctness", rp.summary_lines(committed)[-1] + "".join(rp.summary_lines(committed)))


class TableTests(unittest.TestCase):
    def test_timing_tables_per_group_and_scenario(self):
        cells = [fake_cell(FAST_PFIND, scenario=s) for s in ("all_files", "count_only")] + [fake_cell(FAST_PFIND, cache="cold", fs="xfs")]
        text = rp.timing_tables(fake_report(cells))
        self.assertIn("### warm cache, ext4: all_files", text)
        self.assertIn("### warm cache, ext4: count_only", text)
        self.assertIn("### cold cache, xfs: all_files", text)
        self.assertLess(text.index("warm cache, ext4"), text.index("cold cache, xfs"))
        self.assertIn("10.0 ± 0.9 ms", text)  # the stddev of both passes' runs pooled
        self.assertIn("2.00x vs bfs", text)
        self.assertIn("floor (ref)", text)
        self.assertIn("pfind / floor", text)

    def test_fs_cache_table_has_one_row_per_filesystem_and_cache(self):
        cells = [
            fake_cell(size="medium", fs="btrfs", cache="cold"),
            fake_cell(size="medium", fs="ext4", cache="cold"),
            fake_cell(size="medium", fs="ext4", cache="warm"),
            fake_cell(size="medium", fs="tmpfs", cache="warm"),
            fake_cell(size="large", fs="ext4", cache="warm"),  # only one combination: no table
        ]
        text = rp.fs_cache_tables(fake_report(cells))
        self.assertEqual(text.count("### filesystem x cache"), 1)
        self.assertIn("### filesystem x cache: all_files on medium", text)
        rows = rows_of(text)
        self.assertEqual(rows[0][:2], ["fs", "cache"])
        self.assertEqual([r[:2] for r in rows[1:]], [["ext4", "warm"], ["ext4", "cold"], ["btrfs", "cold"], ["tmpfs", "warm"]])
        self.assertEqual(rows[1][-2:], ["2.00x vs bfs", "2.00x"])

    def test_grids(self):
        cells = [fake_cell(scenario=s, size=z) for s in ("all_files", "count_only") for z in ("small", "deep")]
        speed = rp.speedup_grid(fake_report(cells))
        self.assertEqual(rows_of(speed)[0], ["scenario", "small", "deep"])
        self.assertEqual(rows_of(speed)[1], ["all_files", "2.00x vs bfs", "2.00x vs bfs"])
        self.assertEqual(rows_of(rp.floor_grid(fake_report(cells)))[2], ["count_only", "2.00 / 2.00", "2.00 / 2.00"])
        self.assertEqual(rp.speedup_grid(fake_report(cells), cache="cold"), "")

    def test_sweep_table_shows_passes_best_and_default(self):
        table = rp.sweep_table(fake_sweep(cache="cold", fs="xfs", target="medium"))
        self.assertIn("### thread sweep: all_files on medium (xfs, cold cache)", table)
        rows = rows_of(table)
        self.assertEqual(rows[1], ["1", "10.0 ± 1.0 ms", "10.0 / 11.0", "1.00x"])
        self.assertEqual(rows[3][0::3], ["4", "4.00x"])
        self.assertEqual(rows[4], ["default", "15.0 ± 1.0 ms", "15.0 / 15.0", "1.50x"])

    def test_summary_per_group_with_floor_drift_and_skips(self):
        cells = [fake_cell(), fake_cell(cache="cold", fs="xfs", means={"pfind": 0.04, "fd": 0.03, "bfs": 0.05, "floor": 0.02})]
        cells[1]["results"]["fd"]["drift"] = 0.25
        lines = rp.summary_lines(fake_report(cells, [fake_sweep()], skipped_cells=["cold cache on tmpfs: no cold state"]))
        self.assertIn("warm cache, ext4: pfind fastest in 1/1 cells (1 by at least 5%); smallest margin 2.00x vs bfs (all_files on small); pfind / floor at most 2.00x (all_files on small)", lines)
        self.assertTrue(any(line.startswith("cold cache, xfs: pfind fastest in 0/1 cells") and "0.75x vs fd" in line for line in lines))
        self.assertIn("thread sweep: all_files on large (ext4, warm cache): fastest -j 1 (10.0 ms); default (no -j) 15.0 ms, 1.50x that", lines)
        self.assertIn("largest drift between passes: 25% of the mean (fd on all_files on small (cold, xfs))", lines)
        self.assertIn("correctness: pfind agrees everywhere", lines)
        self.assertEqual(lines[-1], "skipped cold cache on tmpfs: no cold state")

    def test_correctness_table_names_where_the_expected_count_came_from(self):
        tree = fake_cell(size="/usr", kind="tree")
        tree["correctness"]["expected_from"] = "find"
        text = rp.correctness_table(fake_report([fake_cell(), tree]))
        rows = rows_of(text)
        self.assertEqual(rows[0][:5], ["cache", "fs", "target", "scenario", "expected"])
        self.assertEqual(rows[1][:5], ["warm", "ext4", "small", "all_files", "10"])
        self.assertEqual(rows[2][:5], ["warm", "ext4", "/usr", "all_files", "10 (find)"])

    def test_memory_table_lists_each_target_of_one_scenario(self):
        cells = [fake_cell(size="large"), fake_cell(size="large", scenario="count_only"), fake_cell(size="large", fs="xfs"), fake_cell(size="/usr", kind="tree")]
        rows = rows_of(rp.memory_table(fake_report(cells)))
        self.assertEqual(rows, [["target", "pfind", "fd", "bfs", "floor"], ["large", "2.0", "6.0", "3.0", "1.0"], ["/usr", "2.0", "6.0", "3.0", "1.0"]])


if __name__ == "__main__":
    unittest.main()
