"""--latency-fs: the commands, the bound, the table, and (where FUSE exists) the
smallest real run: a tiny tree mounted through benches/latencyfs.c."""

from __future__ import annotations

import os
import shutil
import unittest
from pathlib import Path

from tests.python.support import REPO, LatencyfsTest

from pfind_bench import latency_fs as lf

FUSE_MISSING = lf.fuse_unavailable()
PFIND = REPO / "target" / "release" / "pfind"


class CommandsTest(unittest.TestCase):
    def test_sweeps_and_missing_peers(self):
        cmds = lf.commands("/p", ["-H"], {"find": "/f", "fd": "/fd"}, [8, 64], [16])
        labels = [c.label for c in cmds]
        self.assertEqual(labels, ["pfind default", "pfind -j 8", "pfind -j 64", "find", "fd default", "fd -j 16"])
        by = {c.label: c for c in cmds}
        self.assertEqual(by["pfind -j 64"].argv("/m"), ["/p", "/m", "-j", "64", "-H"])
        self.assertEqual(by["find"].argv("/m"), ["/f", "/m", "-type", "f"])
        self.assertEqual(by["fd -j 16"].argv("/m")[:2], ["/fd", "-j16"])
        self.assertEqual(by["fd -j 16"].argv("/m")[-1], "/m")

    def test_bfs_gets_its_thread_count_attached(self):
        # bfs 4 refuses `-j 64` ("-j needs a value"): a sweep run so printed one line.
        (cmd,) = [c for c in lf.commands("/p", [], {"bfs": "/bfs"}, [], [64]) if c.label == "bfs -j 64"]
        self.assertEqual(cmd.argv("/m")[:2], ["/bfs", "-j64"])

    def test_a_dry_run_times_nothing_and_writes_nothing(self):
        import contextlib
        import io
        import tempfile

        from pfind_bench import cli

        with tempfile.TemporaryDirectory() as tmp:
            out = io.StringIO()
            report = os.path.join(tmp, "report.json")
            argv = ["--pfind", "/bin/true", "--latency-fs", tmp, "--latency-delays", "1", "--latency-threads", "64", "--tools", "find", "--output", report, "--dry-run"]
            with contextlib.redirect_stdout(out):
                self.assertEqual(cli.main(argv), 0)
            self.assertIn("pfind default, pfind -j 64, find", out.getvalue())
            self.assertIn("D = 1 ms", out.getvalue())
            self.assertFalse(os.path.exists(report))
            self.assertEqual(os.listdir(tmp), [])

    def test_bound_is_the_critical_path_or_the_request_rate(self):
        # 9 levels of 3 round trips, and the last listing's empty readdir.
        self.assertEqual(lf.lower_bound_ms(5.0, 8, 100.0), (3 * 9 + 1) * 5.0)
        self.assertEqual(lf.lower_bound_ms(1.0, 8, 150.0), 150.0)
        self.assertEqual(lf.lower_bound_ms(1.0, 8, None), 28.0)


class TableTest(unittest.TestCase):
    def section(self, lines):
        entry = {"tool": "pfind", "ms": [10.0], "median_ms": 10.0, "requests": [42], "lines": [lines], "exit": [0], "correct": lines == 3}
        return {"delays": {"1.0": {"bound_ms": 7.0, "results": {"pfind default": entry}}}}

    def test_rows_and_bound(self):
        text = lf.table(self.section(3))
        self.assertIn("| pfind default | 10 (42) |", text)
        self.assertIn("| lower bound | 7 |", text)
        self.assertTrue(lf.all_correct(self.section(3)))

    def test_a_wrong_count_is_marked(self):
        self.assertIn("WRONG COUNT", lf.table(self.section(2)))
        self.assertFalse(lf.all_correct(self.section(2)))


@unittest.skipIf(FUSE_MISSING, f"no FUSE here: {FUSE_MISSING}")
class MountTest(LatencyfsTest):
    """The smallest real run: a fresh mount per run, every file counted, the
    requests counted, and no mount left behind."""

    def test_tree_shape(self):
        self.assertEqual(lf.tree_shape(self.src), (3, 3, 2))

    def test_walkers_see_every_file_through_the_mount(self):
        peers = {"find": shutil.which("find")}
        cmds = lf.commands(str(PFIND), [], peers, [4], [])
        if not PFIND.exists():
            cmds = [c for c in cmds if c.tool != "pfind"]
        section = lf.run_latency_fs(self.binary, self.src, [0.1], cmds, 1)
        if PFIND.exists():
            self.assertIsNotNone(section["rate_floor_ms"])
        results = section["delays"]["0.1"]["results"]
        for label, entry in results.items():
            self.assertEqual(entry["lines"], [3], label)
            self.assertTrue(entry["correct"], label)
            # root, a, a/b: each looked up or listed at least once.
            self.assertGreaterEqual(entry["requests"][0], 6, label)
        self.assertFalse(any(os.path.ismount(line.split()[1]) for line in open("/proc/mounts") if "latencyfs" in line and self._tmp.name in line))

    def test_without_types_the_files_are_still_found(self):
        # 1 ms a request: pfind's first stat is slow enough that it asks for the
        # others all at once (os::stat_many).
        cmds = lf.commands(str(PFIND), [], {"find": shutil.which("find")}, [1], [])
        if not PFIND.exists():
            cmds = [c for c in cmds if c.tool != "pfind"]
        results = lf.measure(self.binary, self.src, 1.0, cmds, 1, 3, no_types=True)
        for label, entry in results.items():
            self.assertTrue(entry["correct"], (label, entry))

    def test_lookups_of_one_directory_run_in_parallel(self):
        """libfuse 3.14 drops parallel directory operations from its INIT reply;
        latencyfs puts them back. 40 threads stat 40 entries of one directory,
        each request held 20 ms: the kernel lets them overlap only with the flag
        (without it, at most 2 were seen in flight)."""
        import concurrent.futures

        for i in range(40):
            (Path(self.src) / f"f{i}").write_text("")
        mount = lf.LatencyMount(self.binary, self.src, 20_000)
        with mount as point:
            with concurrent.futures.ThreadPoolExecutor(40) as pool:
                list(pool.map(lambda i: os.lstat(os.path.join(point, f"f{i}")), range(40)))
        self.assertGreaterEqual(mount.requests, 40)
        self.assertGreater(mount.peak, 4, "lookups of one directory were serialised")

    def test_only_a_writable_mount_takes_mkdir_and_rmdir(self):
        """-w: mkdir and rmdir reach the source (what pfind --index's probe
        needs); without it the mount is read-only."""
        with lf.LatencyMount(self.binary, self.src, 0) as point:
            with self.assertRaises(OSError):
                os.mkdir(os.path.join(point, "made"))
        with lf.LatencyMount(self.binary, self.src, 0, writable=True) as point:
            os.mkdir(os.path.join(point, "made"))
            self.assertTrue(os.path.isdir(os.path.join(self.src, "made")))
            os.rmdir(os.path.join(point, "made"))
            self.assertFalse(os.path.exists(os.path.join(self.src, "made")))

if __name__ == "__main__":
    unittest.main()
