"""Tests of pfind_bench.timing: the hyperfine command line (cold prepare, ignored
failures), passes in alternating order, pooling, and the cold-cache check."""

from __future__ import annotations

import shlex
import unittest
from unittest import mock

from tests.python.support import ROOT, SC, TempDirTest, fake_hyperfine, quiet_start, quiet_stop
from pfind_bench import timing, tools

setUpModule, tearDownModule = quiet_start, quiet_stop


class HyperfineArgvTests(unittest.TestCase):
    def test_warm_invocation(self):
        named = [("pfind", ["pfind", ROOT]), ("oswalk", tools.oswalk_argv("python3", ROOT, SC["name_glob"]))]
        argv = timing.hyperfine_argv("hyperfine", named, warmup=3, runs=10, export="/tmp/x.json")
        self.assertEqual(
            argv[:10], ["hyperfine", "-N", "--warmup", "3", "--runs", "10", "--output=null", "--export-json", "/tmp/x.json", "--command-name"]
        )
        self.assertEqual(argv[10:13], ["pfind", "--command-name", "oswalk"])
        # hyperfine -N splits with POSIX shell-word rules: every argv must survive that.
        self.assertEqual([shlex.split(c) for c in argv[13:]], [cmd for _, cmd in named])
        self.assertNotIn("--prepare", argv)
        self.assertNotIn("--ignore-failure", argv)
        self.assertIn("--output=pipe", timing.hyperfine_argv("hyperfine", named, 0, 1, "x", output="pipe"))

    def test_cold_invocation_drops_caches_through_a_shell(self):
        argv = timing.hyperfine_argv("hyperfine", [("pfind", ["pfind", ROOT])], 0, 5, "x", prepare=timing.DROP_CACHES_COMMAND)
        prepare = argv[argv.index("--prepare") + 1]
        # -N runs --prepare without a shell as well, so the command must bring its own.
        self.assertEqual(shlex.split(prepare), ["sh", "-c", "sync; echo 3 > /proc/sys/vm/drop_caches"])

    def test_trees_ignore_failures(self):
        argv = timing.hyperfine_argv("hyperfine", [("pfind", ["pfind", ROOT])], 0, 5, "x", ignore_failure=True)
        self.assertIn("--ignore-failure", argv)


class PassTests(unittest.TestCase):
    def test_pass_orders_alternate(self):
        self.assertEqual(timing.pass_orders(["a", "b", "c"], 1), [["a", "b", "c"]])
        self.assertEqual(timing.pass_orders(["a", "b", "c"], 3), [["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"]])

    def test_two_passes_pool_their_runs_and_keep_each_mean(self):
        forward = {"mean": 0.10, "user": 0.01, "system": 0.2, "times": [0.09, 0.11], "exit_codes": [0, 0]}
        reverse = {"mean": 0.20, "user": 0.03, "system": 0.4, "times": [0.19, 0.21], "exit_codes": [0, 1]}
        point = timing.pool_passes([forward, reverse])
        self.assertAlmostEqual(point["mean"], 0.15)
        self.assertEqual(point["times"], [0.09, 0.11, 0.19, 0.21])
        self.assertEqual(point["exit_codes"], [0, 0, 0, 1])
        self.assertEqual(point["pass_means"], [0.10, 0.20])
        self.assertEqual(point["pass_runs"], [2, 2])
        self.assertAlmostEqual(point["drift"], 0.1 / 0.15)
        self.assertEqual((point["min"], point["max"]), (0.09, 0.21))
        self.assertAlmostEqual(point["user"], 0.02)
        self.assertAlmostEqual(point["system"], 0.3)
        self.assertGreater(point["stddev"], 0.05)

    def test_time_in_passes_reverses_the_order_and_maps_results_back(self):
        calls = []
        means = {"pfind": 0.01, "fd": 0.03}

        def fake_run(hyperfine, named, warmup, runs, output, prepare, ignore_failure):
            calls.append(([n for n, _ in named], warmup, runs, prepare, ignore_failure))
            # The second pass is slower for everyone: drift the pooled result must show.
            scale = 1.0 if len(calls) == 1 else 2.0
            return fake_hyperfine({n: means[n] * scale for n, _ in named})

        named = [("pfind", ["pfind", ROOT]), ("fd", ["fd", ROOT])]
        pooled, orders = timing.time_in_passes(
            "hyperfine", named, warmup=0, runs=3, output="null", passes=2, prepare=timing.DROP_CACHES_COMMAND, ignore_failure=True, run=fake_run
        )
        self.assertEqual(orders, [["pfind", "fd"], ["fd", "pfind"]])
        self.assertEqual([c[0] for c in calls], orders)
        self.assertTrue(all(c[1:] == (0, 3, timing.DROP_CACHES_COMMAND, True) for c in calls))
        self.assertEqual(pooled["pfind"]["pass_means"], [0.01, 0.02])
        self.assertEqual(pooled["fd"]["pass_means"], [0.03, 0.06])
        self.assertAlmostEqual(pooled["fd"]["mean"], 0.045)
        self.assertEqual(len(pooled["fd"]["times"]), 6)

    def test_a_failed_pass_fails_the_cell(self):
        def failing(*args):
            raise RuntimeError("hyperfine exited with status 1")

        with self.assertRaises(RuntimeError):
            timing.time_in_passes("hyperfine", [("pfind", ["pfind"])], warmup=0, runs=1, output="null", run=failing)

    def test_result_count_mismatch_is_an_error(self):
        with self.assertRaises(ValueError):
            timing.results_by_name(fake_hyperfine({"a": 1.0}), ["a", "b"])


class ColdCacheCheckTests(TempDirTest):
    def test_not_root_is_refused_without_touching_the_file(self):
        target = self.tmp / "drop_caches"
        with mock.patch("os.geteuid", return_value=1000):
            why = timing.cold_cache_unavailable(str(target))
        self.assertIn("needs root", why)
        self.assertIn("uid 1000", why)
        self.assertFalse(target.exists())

    def test_an_unwritable_file_is_reported(self):
        with mock.patch("os.geteuid", return_value=0):
            why = timing.cold_cache_unavailable(str(self.tmp / "missing" / "drop_caches"))
        self.assertIn("cannot drop the page cache", why)

    def test_root_with_a_writable_file_can_go_cold(self):
        target = self.tmp / "drop_caches"
        with mock.patch("os.geteuid", return_value=0):
            self.assertIsNone(timing.cold_cache_unavailable(str(target)))
        self.assertEqual(target.read_text(), "3\n")


if __name__ == "__main__":
    unittest.main()
