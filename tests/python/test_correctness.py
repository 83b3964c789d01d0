"""Tests of pfind_bench.correctness: counting, comparing path sets, the untimed
check of every tool (datasets and real trees), and peak memory."""

from __future__ import annotations

import sys
import unittest

from tests.python.support import SC, printer_tool, quiet_start, quiet_stop
from pfind_bench import correctness
from pfind_bench import tools as tl

setUpModule, tearDownModule = quiet_start, quiet_stop


class CorrectnessTests(unittest.TestCase):
    def test_count_lines(self):
        self.assertEqual(correctness.count_lines(b""), 0)
        self.assertEqual(correctness.count_lines(b"a\nb\n"), 2)
        self.assertEqual(correctness.count_lines(b"a\nb"), 2)

    def test_compare_paths_ignores_order_but_not_duplicates(self):
        self.assertTrue(correctness.compare_paths(b"a\nb\n", b"b\na\n")["equal"])
        dup = correctness.compare_paths(b"a\na\nb\n", b"a\nb\n")
        self.assertFalse(dup["equal"])
        self.assertEqual(dup["duplicates"], 1)
        diff = correctness.compare_paths(b"a\nc\n", b"a\nb\n")
        self.assertEqual((diff["only_subject"], diff["only_reference"]), (["c"], ["b"]))

    def test_pfind_agreeing_with_find(self):
        tools = [
            printer_tool("pfind", tl.SUBJECT, "/r/b\n/r/a\n"),
            printer_tool("find", tl.COMPETITOR, "/r/a\n/r/b\n"),
            printer_tool("floor", tl.REFERENCE, "7\n", prints_count=lambda sc: True, comparable=lambda sc: False),
        ]
        check = correctness.correctness_check(tools, "/r", SC["extension_jpg"], 2, tools[1])
        self.assertTrue(check["pfind_correct"])
        self.assertEqual(check["counts"], {"pfind": 2, "find": 2, "floor": 7})
        self.assertEqual(check["count_ok"], {"pfind": True, "find": True, "floor": None})
        self.assertTrue(check["paths"]["equal"])

    def test_pfind_with_right_count_but_wrong_paths_fails(self):
        tools = [printer_tool("pfind", tl.SUBJECT, "/r/a\n/r/x\n"), printer_tool("find", tl.COMPETITOR, "/r/a\n/r/b\n")]
        check = correctness.correctness_check(tools, "/r", SC["all_files"], 2, tools[1])
        self.assertFalse(check["pfind_correct"])
        self.assertEqual(check["paths"]["only_subject"], ["/r/x"])

    def test_count_only_reads_pfinds_number(self):
        tools = [printer_tool("pfind", tl.SUBJECT, "3\n", prints_count=lambda sc: sc.count), printer_tool("find", tl.COMPETITOR, "a\nb\nc\n")]
        check = correctness.correctness_check(tools, "/r", SC["count_only"], 3, tools[1])
        self.assertTrue(check["pfind_correct"])
        self.assertIsNone(check["paths"])

    def test_failing_tool_is_recorded_not_fatal(self):
        broken = tl.Tool("fd", tl.COMPETITOR, "x", "test", lambda root, sc: [sys.executable, "-c", "raise SystemExit(3)"])
        tools = [printer_tool("pfind", tl.SUBJECT, "a\n"), broken]
        check = correctness.correctness_check(tools, "/r", SC["all_files"], 1, None)
        self.assertTrue(check["pfind_correct"])
        self.assertIsNone(check["counts"]["fd"])
        self.assertFalse(check["count_ok"]["fd"])
        self.assertIn("exited 3", check["errors"]["fd"])


class PeakMemoryTest(unittest.TestCase):
    """run_measured reports the child's own peak RSS, not the harness's."""

    @unittest.skipUnless(correctness.gnu_time_path(), "GNU time is not installed (apt-get install time)")
    def test_peak_rss_tracks_what_the_child_allocates(self):
        small_out, small = correctness.run_measured([sys.executable, "-c", "print('x')"])
        big_out, big = correctness.run_measured([sys.executable, "-c", "b = b'x' * (64 << 20); print('y')"])
        self.assertEqual((small_out, big_out), (b"x\n", b"y\n"))
        self.assertGreater(small, 500)
        # Not the harness's own peak (a fork of this Python process would report it).
        import resource
        self.assertLess(small, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        self.assertGreater(big - small, 60 * 1024)  # 64 MiB written, in KiB

    def test_failure_still_raises_with_the_last_stderr_line(self):
        with self.assertRaises(RuntimeError) as caught:
            correctness.run_measured([sys.executable, "-c", "import sys; sys.exit('boom')"])
        self.assertIn("boom", str(caught.exception))


class TreeCheckTests(unittest.TestCase):
    """A real tree has no manifest: GNU find's answer is the expected one."""

    def test_expected_count_comes_from_the_reference(self):
        find = printer_tool("find", tl.COMPETITOR, "/r/a\n/r/b\n/r/c\n")
        pfind = printer_tool("pfind", tl.SUBJECT, "/r/c\n/r/a\n/r/b\n")
        check = correctness.correctness_check([pfind, find], "/r", SC["all_files"], None, find)
        self.assertEqual((check["expected"], check["expected_from"]), (3, "find"))
        self.assertTrue(check["pfind_correct"])
        self.assertTrue(check["paths"]["equal"])
        self.assertEqual(check["count_ok"], {"pfind": True, "find": True})

    def test_pfind_missing_a_file_of_the_tree_fails(self):
        find = printer_tool("find", tl.COMPETITOR, "/r/a\n/r/b\n")
        pfind = printer_tool("pfind", tl.SUBJECT, "/r/a\n")
        check = correctness.correctness_check([pfind, find], "/r", SC["all_files"], None, find)
        self.assertFalse(check["pfind_correct"])
        self.assertEqual(check["paths"]["only_reference"], ["/r/b"])

    def test_count_only_on_a_tree_compares_with_finds_listing(self):
        find = printer_tool("find", tl.COMPETITOR, "/r/a\n/r/b\n")
        pfind = printer_tool("pfind", tl.SUBJECT, "2\n", prints_count=lambda sc: sc.count)
        check = correctness.correctness_check([pfind, find], "/r", SC["count_only"], None, find)
        self.assertEqual(check["expected"], 2)
        self.assertTrue(check["pfind_correct"])

    def test_the_reference_need_not_be_timed(self):
        find = printer_tool("find", tl.COMPETITOR, "/r/a\n")
        pfind = printer_tool("pfind", tl.SUBJECT, "/r/a\n")
        check = correctness.correctness_check([pfind], "/r", SC["all_files"], None, find)
        self.assertTrue(check["pfind_correct"])
        self.assertEqual(set(check["counts"]), {"pfind"})

    def test_an_empty_answer_is_still_compared(self):
        find = printer_tool("find", tl.COMPETITOR, "")
        pfind = printer_tool("pfind", tl.SUBJECT, "")
        check = correctness.correctness_check([pfind, find], "/r", SC["name_glob"], None, find)
        self.assertEqual(check["expected"], 0)
        self.assertTrue(check["paths"]["equal"])
        self.assertTrue(check["pfind_correct"])

    def test_unreadable_parts_of_a_tree_are_tolerated_when_asked(self):
        """Every walker exits 1 on an unreadable directory; on a real tree the
        listings are still compared."""
        find = printer_tool("find", tl.COMPETITOR, "/r/a\n", exit_code=1)
        pfind = printer_tool("pfind", tl.SUBJECT, "/r/a\n", exit_code=1)
        strict = correctness.correctness_check([pfind, find], "/r", SC["all_files"], None, find)
        self.assertFalse(strict["pfind_correct"])
        self.assertIn("exited 1", strict["errors"]["expected"])
        lenient = correctness.correctness_check([pfind, find], "/r", SC["all_files"], None, find, check_exit=False)
        self.assertTrue(lenient["pfind_correct"])

    def test_no_reference_means_no_verdict(self):
        pfind = printer_tool("pfind", tl.SUBJECT, "/r/a\n")
        check = correctness.correctness_check([pfind], "/r", SC["all_files"], None, None)
        self.assertFalse(check["pfind_correct"])
        self.assertIn("no reference", check["errors"]["expected"])
