"""Tests of pfind_bench.startup and its command line (--startup, issue 42): the
options, the interleaved order, the medians and the table; no process is timed."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import unittest
from types import SimpleNamespace
from unittest import mock

from tests.python.support import quiet_start, quiet_stop
from pfind_bench import cli, startup
from pfind_bench.tools import make_floor

setUpModule, tearDownModule = quiet_start, quiet_stop


class ArgumentTests(unittest.TestCase):
    def test_startup_options(self):
        args = cli.parse_args(["--startup", "--spec", "/opt/pfind-0.1.0", "--startup-runs", "7"])
        self.assertEqual((args.startup, args.spec, args.startup_runs), (True, "/opt/pfind-0.1.0", 7))
        args = cli.parse_args([])
        self.assertEqual((args.startup, args.spec, args.startup_runs), (False, None, startup.DEFAULT_RUNS))

    def test_bad_startup_options_are_refused(self):
        for argv in (["--startup", "--startup-runs", "0"], ["--spec", "/opt/pfind-0.1.0"]):
            with self.subTest(argv=argv), contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as stop:
                cli.parse_args(argv)
            self.assertEqual(stop.exception.code, 2)

    def test_the_commands_list_every_file_of_the_root(self):
        args = SimpleNamespace(pfind="/bin/true", pfind_extra=["-j", "2"], spec="/bin/false")
        floor = make_floor("/bin/true", 2)
        commands = {c.name: c.argv_for("ROOT") for c in cli.startup_commands(args, [], floor)}
        self.assertEqual(list(commands), ["pfind", "spec", "floor"])
        self.assertEqual(commands["pfind"], ["/bin/true", "ROOT", "-j", "2"])
        self.assertEqual(commands["spec"], ["/bin/false", "ROOT"])
        self.assertEqual(commands["floor"], ["/bin/true", "-j", "2", "-p", "ROOT"])


class DryRunTests(unittest.TestCase):
    def test_a_dry_run_prints_the_plan_and_times_builds_and_writes_nothing(self):
        # It once ran the whole benchmark and wrote its report into the checkout.
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "report.json")
            data = os.path.join(tmp, "data")
            argv = ["--startup", "--dry-run", "--pfind", "/bin/true", "--spec", "/bin/false", "--startup-runs", "5",
                    "--data-dir", data, "--output", report]
            out = io.StringIO()
            with mock.patch.object(cli, "build_floor") as build, mock.patch.object(cli, "ensure_dataset") as make, \
                    mock.patch.object(startup, "run_startup") as run, mock.patch.object(startup, "time_once") as time_once, \
                    mock.patch.object(cli, "discover_peers", return_value=([], {"bfs": "not installed"})), \
                    contextlib.redirect_stdout(out):
                self.assertEqual(cli.main(argv), 0)
            for called in (build, make, run, time_once):
                called.assert_not_called()
            lines = out.getvalue().splitlines()
            self.assertIn("start-up: pfind, spec, floor on empty, small, deep: 5 timed runs each after 3 untimed rounds, interleaved", lines)
            self.assertIn("start-up command pfind: /bin/true ROOT", lines)
            self.assertIn("start-up command spec: /bin/false ROOT", lines)
            self.assertIn(f"start-up report: {report}", lines)
            self.assertIn("skipped start-up: bfs: not installed", lines)
            self.assertEqual(os.listdir(tmp), [], "a dry run makes and writes nothing")

    def test_a_dry_run_shows_a_given_floor_and_says_a_missing_one(self):
        with tempfile.TemporaryDirectory() as tmp:
            for floor, want in (("/bin/true", "start-up command floor: /bin/true -j "), (os.path.join(tmp, "none"), "skipped start-up: floor: ")):
                out = io.StringIO()
                with mock.patch.object(cli, "discover_peers", return_value=([], {})), contextlib.redirect_stdout(out):
                    self.assertEqual(cli.main(["--startup", "--dry-run", "--pfind", "/bin/true", "--floor", floor, "--data-dir", tmp, "--output", os.path.join(tmp, "report.json")]), 0)
                self.assertTrue(any(line.startswith(want) for line in out.getvalue().splitlines()), out.getvalue())


class InterleavingTests(unittest.TestCase):
    def test_each_round_rotates_the_order(self):
        names = ["pfind", "spec", "floor"]
        self.assertEqual(startup.round_order(names, 0), names)
        self.assertEqual(startup.round_order(names, 1), ["spec", "floor", "pfind"])
        self.assertEqual(startup.round_order(names, 3), names)
        self.assertEqual(startup.round_order([], 5), [])

    def test_warmup_rounds_are_run_but_not_counted_and_runs_alternate(self):
        seen = []

        def timer(argv):
            seen.append(argv[0])
            return float(len(seen))

        commands = [startup.Command(n, lambda root, n=n: [n, root]) for n in ("a", "b")]
        samples = startup.run_tree("/r", commands, runs=2, warmup=1, timer=timer)
        self.assertEqual(seen, ["a", "b", "b", "a", "a", "b"])
        self.assertEqual(samples, {"a": [4.0, 5.0], "b": [3.0, 6.0]})


class SummaryTests(unittest.TestCase):
    def test_medians_and_ratios_to_the_floor(self):
        summary = startup.summarize({"pfind": [3.0, 1.0, 2.0], "floor": [1.0, 1.0, 4.0], "fd": []})
        self.assertEqual(summary["pfind"], {"median_ms": 2.0, "runs": 3, "over_floor": 2.0})
        self.assertEqual(summary["floor"]["over_floor"], 1.0)
        self.assertNotIn("fd", summary)
        self.assertIsNone(startup.summarize({"pfind": [1.0]})["pfind"]["over_floor"])

    def test_table_has_a_row_per_tree_and_a_dash_for_a_missing_tool(self):
        trees = {"empty": startup.summarize({"pfind": [2.0], "floor": [1.0]}), "small": startup.summarize({"floor": [4.0]})}
        text = startup.table(trees, ["pfind", "floor"]).splitlines()
        self.assertEqual(text[0], "| tree | pfind | floor |")
        self.assertEqual(text[2], "| empty | 2.00 (2.00x) | 1.00 |")
        self.assertEqual(text[3], "| small | — | 4.00 |")


if __name__ == "__main__":
    unittest.main()
