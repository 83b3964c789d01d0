"""Tests of pfind_bench.startup and its command line (--startup, issue 42): the
options, the interleaved order, the medians and the table; no process is timed."""

from __future__ import annotations

import contextlib
import io
import unittest
from types import SimpleNamespace

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
