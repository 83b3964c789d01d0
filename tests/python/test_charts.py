"""Tests of pfind_bench.charts (--plot), skipped when matplotlib is not installed:
the committed optimized.json still plots, and a report with every kind of cell
gives every chart."""

from __future__ import annotations

import importlib.util
import json

from tests.python.support import REPO, TempDirTest, fake_cell, fake_report, fake_sweep, quiet_start, quiet_stop
from pfind_bench import cli
from pfind_bench.tools import SCENARIO_ORDER

setUpModule, tearDownModule = quiet_start, quiet_stop


class PlotTests(TempDirTest):
    def setUp(self):
        super().setUp()
        if importlib.util.find_spec("matplotlib") is None:
            self.skipTest("matplotlib not installed")

    def plot(self, report_path) -> list[str]:
        assets = self.tmp / "assets"
        self.assertEqual(cli.main(["--plot", str(report_path), "--assets-dir", str(assets)]), 0)
        written = sorted(p.name for p in assets.iterdir())
        for name in written:
            self.assertTrue((assets / name).read_text().lstrip().startswith("<?xml"), name)
        return written

    def test_the_committed_report_plots(self):
        # Every chart the README shows comes out of the committed report: it has cold
        # and filesystem cells and a tree, so all five are drawn.
        self.assertEqual(
            self.plot(REPO / "optimized.json"),
            ["fs_cache_all_files_medium.svg", "headline_large.svg", "speedup_heatmap.svg", "thread_sweep.svg", "trees.svg"],
        )

    def test_every_chart_from_a_full_report(self):
        cells = [fake_cell(scenario=s, size=z) for s in SCENARIO_ORDER for z in ("small", "large")]
        cells += [fake_cell(size="medium", fs=fs, cache=cache) for fs in ("ext4", "xfs", "btrfs") for cache in ("warm", "cold")]
        cells += [fake_cell(size="/usr", kind="tree", cache=cache) for cache in ("warm", "cold")]
        report = fake_report(cells, [fake_sweep(), fake_sweep(cache="cold", threads=(1, 2, 4, 8, 16, 32, 64))], trees={"/usr": {"fs": "ext4", "files": 10}})
        path = self.tmp / "r.json"
        path.write_text(json.dumps(report))
        self.assertEqual(
            self.plot(path),
            ["fs_cache_all_files_medium.svg", "headline_large.svg", "speedup_heatmap.svg", "thread_sweep.svg", "trees.svg"],
        )

    def test_headline_falls_back_to_the_largest_dataset(self):
        report = fake_report([fake_cell(size="small")])
        path = self.tmp / "r.json"
        path.write_text(json.dumps(report))
        self.assertEqual(self.plot(path), ["headline_small.svg", "speedup_heatmap.svg"])
