"""--index: the targets, the plan and its skips, each cell's commands and its
prepare step, the directories changed between runs (touch_dirs), the table, a dry
run, and the smallest real run (a tree of three files, one run per command;
skipped without a release build of pfind or hyperfine)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, quiet_start, quiet_stop

from pfind_bench import cli, index_mode, touch_dirs
from pfind_bench.common import which

setUpModule, tearDownModule = quiet_start, quiet_stop

PFIND = REPO / "target" / "release" / "pfind"
HYPERFINE = which("hyperfine")


def tools(**peers) -> index_mode.Tools:
    return index_mode.Tools(pfind="/bin/pfind", **peers)


class PlanTests(unittest.TestCase):
    def test_the_default_target_is_usr(self):
        args = cli.parse_args(["--index"])
        self.assertEqual(index_mode.targets_of(args), [index_mode.Target(label="/usr", root="/usr")])
        self.assertEqual(args.index_changes, [0.0, 1.0, 10.0])

    def test_every_kind_of_target(self):
        args = cli.parse_args(["--index", "--index-tree", "/a", "--index-git", "/repo", "--index-giant", "--index-latency", "/src", "--data-dir", "/ds"])
        kinds = [(t.kind, t.root, t.ignore) for t in index_mode.targets_of(args)]
        self.assertEqual(kinds, [("tree", "/a", False), ("git", "/repo", True), ("giant", "/ds/giant-1m", False), ("latency", "/src", False)])

    def test_cells_and_their_skips(self):
        targets = [index_mode.Target("t", "/t"), index_mode.Target("ro", "/ro"), index_mode.Target("lat", "/s", kind="latency")]
        cells, skips = index_mode.plan(targets, ["warm", "cold"], [0.0, 1.0], None, writable=lambda p: p == "/t")
        names = [(c.target.label, c.cache, c.name) for c in cells]
        self.assertEqual(names[:4], [("t", "warm", "first"), ("t", "warm", "repeat 0%"), ("t", "warm", "repeat 1%"), ("t", "warm", "trusted")])
        self.assertIn(("ro", "cold", "repeat 0%"), names)
        self.assertNotIn(("ro", "warm", "repeat 1%"), names)
        self.assertTrue(any("cannot write in /ro" in s for s in skips))
        self.assertNotIn(("lat", "cold", "first"), names)
        self.assertTrue(any(s.startswith("index lat cold:") for s in skips))
        # The latency filesystem's changes are made in its source: a writable one
        # has its repeat cells with changes, warm only.
        cells, _ = index_mode.plan(targets, ["warm", "cold"], [0.0, 1.0], None, writable=lambda p: p in ("/t", "/s"))
        names = [(c.target.label, c.cache, c.name) for c in cells]
        self.assertIn(("lat", "warm", "repeat 1%"), names)
        self.assertNotIn(("lat", "cold", "repeat 1%"), names)
        cells, skips = index_mode.plan(targets[:1], ["cold"], [0.0], "needs root")
        self.assertEqual((cells, skips), ([], ["index t cold: needs root"]))


class CommandTests(unittest.TestCase):
    def test_repeat_cells_time_the_peers_and_first_only_the_walk(self):
        target = index_mode.Target("t", "/t")
        every = tools(fd="/bin/fd", bfs="/bin/bfs", plocate="/bin/plocate", updatedb="/bin/updatedb")
        repeat = index_mode.commands(index_mode.Cell(target, "warm", "repeat 1%", 1.0), every, "/t", "/db")
        self.assertEqual([n for n, _ in repeat], ["pfind --index", "pfind walk", "fd", "bfs", "plocate"])
        self.assertEqual(dict(repeat)["pfind --index"], ["/bin/pfind", "/t", "--index"])
        self.assertEqual(dict(repeat)["plocate"], ["/bin/plocate", "-d", "/db", "*"])
        first = index_mode.commands(index_mode.Cell(target, "warm", "first"), every, "/t", "/db")
        self.assertEqual([n for n, _ in first], ["pfind --index", "pfind walk"])

    def test_a_git_target_searches_with_ignore_and_leaves_locate_out(self):
        target = index_mode.Target("r", "/r", kind="git", ignore=True)
        every = tools(fd="/bin/fd", bfs="/bin/bfs", plocate="/bin/plocate", updatedb="/bin/updatedb")
        named = dict(index_mode.commands(index_mode.Cell(target, "warm", "repeat 0%"), every, "/r", "/db"))
        self.assertEqual(named["pfind --index"], ["/bin/pfind", "/r", "--ignore", "--index"])
        self.assertEqual(set(named), {"pfind --index", "pfind walk", "fd"})
        trusted = dict(index_mode.commands(index_mode.Cell(target, "warm", "trusted"), every, "/r", "/db"))
        self.assertEqual(trusted["pfind --index-trust extension"], ["/bin/pfind", "/r", "--ignore", "--index-trust", "-t", "any", "-e", "conf"])
        self.assertFalse(any(n.startswith("plocate") for n in trusted))

    def test_prepare_drops_the_index_changes_directories_and_the_cache(self):
        target = index_mode.Target("t", "/t")
        first = index_mode.prepare(index_mode.Cell(target, "warm", "first"), tools(), "/t", "/l")
        self.assertEqual(first, "sh -c '/bin/pfind --index-drop /t >/dev/null'")
        self.assertIsNone(index_mode.prepare(index_mode.Cell(target, "warm", "repeat 0%"), tools(), "/t", "/l"))
        cold = index_mode.prepare(index_mode.Cell(target, "cold", "repeat 10%", 10.0), tools(), "/t", "/l")
        self.assertIn("touch_dirs.py /l 10", cold)
        self.assertIn("drop_caches", cold)


class TouchTests(unittest.TestCase):
    def test_how_many_directories(self):
        for total, percent, n in ((100, 0, 0), (100, 1, 1), (100, 10, 10), (5, 1, 1), (0, 10, 0), (1000, 1, 10), (3, 100, 3)):
            with self.subTest(total=total, percent=percent):
                self.assertEqual(touch_dirs.how_many(total, percent), n)

    def test_directories_change_and_keep_their_entries(self):
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("a", "a/b", "c"):
                os.makedirs(os.path.join(tmp, d))
            listed = os.path.join(tmp, "dirs")
            self.assertEqual(touch_dirs.list_dirs(tmp, listed), 4)
            dirs = Path(listed).read_text().split()
            before = {d: os.stat(d).st_mtime_ns for d in dirs}
            os.utime(dirs[1], ns=(0, 0))
            before[dirs[1]] = 0
            self.assertEqual(touch_dirs.touch(dirs, 100, random.Random(1)), 4)
            self.assertNotEqual(os.stat(dirs[1]).st_mtime_ns, 0)
            self.assertFalse(any(touch_dirs.TOUCH_NAME in os.listdir(d) for d in dirs))
            self.assertEqual(touch_dirs.main([listed, "0"]), 0)
            self.assertEqual(touch_dirs.main([]), 2)


class TableTests(unittest.TestCase):
    def test_medians_and_the_ratio_to_the_walk(self):
        cells = [{"target": "/usr", "cache": "warm", "cell": "repeat 0%", "results": {"pfind --index": {"median": 0.02}, "pfind walk": {"median": 0.08}}, "sizes": {"index": 4_000_000, "plocate": 2_800_000}}]
        text = index_mode.table(cells)
        self.assertIn("/usr warm repeat 0%: pfind --index 20.0, pfind walk 80.0  (index/walk 0.25)", text)
        self.assertIn("index 4,000,000 bytes, plocate 2800000 bytes", text)


class DryRunTests(unittest.TestCase):
    def test_a_dry_run_prints_the_cells_and_makes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = io.StringIO()
            report = Path(tmp, "report.json")
            argv = ["--pfind", "/bin/true", "--index", "--index-tree", tmp, "--cache", "warm", "cold", "--output", str(report), "--dry-run"]
            with contextlib.redirect_stdout(out), mock.patch.object(cli, "cold_cache_unavailable", return_value="needs root"):
                self.assertEqual(cli.main(argv), 0)
            text = out.getvalue()
            for line in (f"index {tmp} warm: first", f"index {tmp} warm: repeat 10%", f"index {tmp} warm: trusted", f"skipped index {tmp} cold: needs root"):
                self.assertIn(line, text)
            self.assertFalse(report.exists())


@unittest.skipUnless(PFIND.exists() and HYPERFINE, "needs target/release/pfind and hyperfine")
class RealRunTests(unittest.TestCase):
    def test_the_smallest_run_times_every_cell_and_checks_the_answer(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp, "t")
            (tree / "a" / "b").mkdir(parents=True)
            for name in ("README", "a/x.conf", "a/b/lib1"):
                (tree / name).write_text("")
            report = Path(tmp, "report.json")
            argv = ["--pfind", str(PFIND), "--index", "--index-tree", str(tree), "--runs", "1", "--warmup", "0", "--passes", "1", "--output", str(report)]
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(cli.main(argv), 0)
            section = json.loads(report.read_text())["index"]
            self.assertEqual([c["cell"] for c in section["cells"]], ["first", "repeat 0%", "repeat 1%", "repeat 10%", "trusted"])
            self.assertTrue(all(c["index_agrees_with_walk"] for c in section["cells"]))
            self.assertGreater(section["cells"][0]["sizes"]["index"], 0)
            self.assertEqual(sorted(os.listdir(tree)), ["README", "a"], "the tree's entries as they were")
