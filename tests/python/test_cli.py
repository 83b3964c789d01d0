"""Tests of pfind_bench.cli: the command line (the spec's must keep working), the
dry run's skip lines when not root, and whole runs with a stand-in pfind on small
trees (these need hyperfine and GNU find, and are skipped without them)."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import shutil
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, TempDirTest, big_tree_dir, quiet_start, quiet_stop
from pfind_bench import cli
from pfind_bench.datasets import SIZE_ORDER
from pfind_bench.machine import filesystem_of
from pfind_bench.common import which
from pfind_bench.tools import CARGO_BIN, FLOOR_BUILD

setUpModule, tearDownModule = quiet_start, quiet_stop

SPEC_COMMAND = "--pfind ./target/release/pfind --sizes small medium large deep wide --runs 10 --warmup 3 --output optimized.json --skip-oswalk".split()


class ArgumentTests(unittest.TestCase):
    def test_the_spec_command_line_means_what_it_always_did(self):
        args = cli.parse_args(SPEC_COMMAND)
        self.assertEqual((args.runs, args.warmup, args.output), (10, 3, Path("optimized.json")))
        self.assertEqual(args.sizes, SIZE_ORDER)
        self.assertNotIn("oswalk", args.tools)
        self.assertEqual((args.cache, args.fs, args.tree), (["warm"], [], []))

    def test_defaults(self):
        args = cli.parse_args([])
        self.assertEqual((args.runs, args.warmup, args.passes, args.cold_runs), (10, 3, 2, 5))
        self.assertEqual(args.data_dir, Path("/tmp/pfind_ds"))
        self.assertEqual(args.sweep_target, ["large"])
        self.assertEqual(args.cold_sizes, ["small", "medium", "deep", "wide"])
        self.assertEqual(args.fs_sizes, ["medium", "wide"])
        self.assertEqual(args.cold_scenarios, ["all_files", "count_only"])

    def test_quick_is_the_small_datasets_with_fewer_runs_and_what_follows_it_wins(self):
        args = cli.parse_args(["--quick"])
        self.assertEqual((args.sizes, args.runs, args.warmup, args.passes), (["small", "deep"], 5, 1, 2))
        self.assertNotIn("oswalk", args.tools)
        self.assertEqual(cli.parse_args(["--quick", "--sizes", "medium", "--runs", "2"]).sizes, ["medium"])
        self.assertEqual(cli.parse_args(["--runs", "2", "--quick"]).runs, 2)

    def test_the_documented_quick_command_writes_a_new_file(self):
        docs = (REPO / "docs" / "benchmarks.md").read_text() + (REPO / "README.md").read_text()
        commands = [line.strip() for line in docs.splitlines() if line.strip().startswith("python3 benchmark.py --quick")]
        self.assertTrue(commands, "docs/benchmarks.md or the README shows the --quick command")
        with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
            Path("pfind-benchmark.json").write_text("{}")
            Path("optimized.json").write_text("{}")
            for command in commands:
                argv = command.split("#")[0].split()[2:]
                self.assertEqual(cli.parse_args(argv).output, Path("pfind-benchmark-2.json"), command)
            Path("pfind-benchmark-2.json").write_text("{}")
            self.assertEqual(cli.parse_args([]).output, Path("pfind-benchmark-3.json"))
            self.assertEqual(cli.parse_args(["--output", "pfind-benchmark.json"]).output, Path("pfind-benchmark.json"))

    def test_an_output_that_cannot_be_written_is_refused_before_any_timing(self):
        with tempfile.TemporaryDirectory() as tmp:
            for bad in [tmp, f"{tmp}/missing/report.json"]:
                with self.assertRaises(SystemExit) as refused, contextlib.redirect_stderr(io.StringIO()) as err:
                    cli.parse_args(["--latency-fs", tmp, "--output", bad])
                self.assertEqual(refused.exception.code, 2)
                self.assertIn(f"{bad}: not a path a report can be written to", err.getvalue())
            self.assertEqual(cli.parse_args(["--output", f"{tmp}/report.json"]).output, Path(f"{tmp}/report.json"))

    def test_sweep_size_still_chooses_the_sweep_dataset(self):
        self.assertEqual(cli.parse_args(["--sweep-size", "deep"]).sweep_target, ["deep"])
        self.assertEqual(cli.parse_args(["--sweep-size", "deep", "--sweep-target", "small", "medium@btrfs", "/"]).sweep_target, ["small", "medium@btrfs", "/"])

    def test_skip_oswalk_and_pfind_args(self):
        args = cli.parse_args(["--skip-oswalk", "--pfind-args", "-j 2 --foo"])
        self.assertNotIn("oswalk", args.tools)
        self.assertEqual(args.pfind_extra, ["-j", "2", "--foo"])

    def test_floor_is_timed_unless_tools_leaves_it_out(self):
        self.assertIn("floor", cli.parse_args([]).tools)
        self.assertIn("floor", cli.parse_args(SPEC_COMMAND).tools)
        self.assertEqual(cli.parse_args(["--tools", "fd", "find"]).tools, ["fd", "find"])
        self.assertEqual(cli.parse_args(["--tools", "fd", "--floor", "/opt/floor"]).tools, ["fd", "floor"])

    def test_bad_values_are_usage_errors(self):
        for argv in (
            ["--threads-sweep", "1", "2", "--pfind-args=-j4"],
            ["--passes", "0"],
            ["--cold-runs", "0"],
            ["--tree", "/nonexistent/tree"],
            ["--sweep-target", "/nonexistent/tree"],
            ["--sweep-target", "medium@zfs"],
            ["--fs", "zfs"],
            ["--cache", "lukewarm"],
        ):
            with self.subTest(argv), mock.patch("sys.stderr", io.StringIO()) as err:
                with self.assertRaises(SystemExit) as caught:
                    cli.parse_args(argv)
                self.assertEqual(caught.exception.code, 2)
                self.assertTrue(err.getvalue().strip())

    def test_the_parts_of_issue_17(self):
        args = cli.parse_args([])
        self.assertEqual((args.early_quit, args.shallow_order, args.first_path, args.skip_cells), ([], [], None, False))
        self.assertEqual((args.early_quit_depths, args.early_quit_names, args.early_quit_runs, args.early_quit_warmup), ([2, 4, 8, 16], 20, 5, 1))
        self.assertEqual((args.shallow_order_runs, args.shallow_order_threads), (10, [8]))
        self.assertEqual((args.first_path_fs, args.first_path_runs, args.first_path_threads), ("xfs", 3, [2]))
        self.assertEqual(cli.parse_args(["--first-path"]).first_path, ["/usr"])
        self.assertEqual(cli.parse_args(["--first-path", "medium", "deep"]).first_path, ["medium", "deep"])
        args = cli.parse_args(["--early-quit", "/", "/", "--early-quit-depths", "2", "2", "3", "--shallow-order-threads"])
        self.assertEqual((args.early_quit, args.early_quit_depths, args.shallow_order_threads), (["/"], [2, 3], []))

    def test_bad_values_of_the_parts_are_usage_errors(self):
        for argv in (
            ["--early-quit", "/nonexistent/tree"],
            ["--shallow-order", "/nonexistent/tree"],
            ["--first-path", "/nonexistent/tree"],
            ["--first-path", "huge"],
            ["--first-path-fs", "tmpfs"],
            ["--early-quit-depths", "0"],
            ["--early-quit-runs", "0"],
            ["--first-path-runs", "0"],
            ["--shallow-order-threads", "0"],
            ["--shallow-order", "/", "--pfind-args=-j 4"],
            ["--first-path", "--pfind-args=-j 4"],
        ):
            with self.subTest(argv), mock.patch("sys.stderr", io.StringIO()):
                with self.assertRaises(SystemExit) as caught:
                    cli.parse_args(argv)
                self.assertEqual(caught.exception.code, 2)
        cli.parse_args(["--shallow-order", "/", "--shallow-order-threads", "--pfind-args=-j 4"])  # no -j of its own: allowed

    def test_repeated_tree_is_timed_once(self):
        args = cli.parse_args(["--tree", "/", "--tree", "/"])
        self.assertEqual(args.tree, ["/", "/"])  # plan.plan_cells de-duplicates


class DryRunTests(TempDirTest):
    def dry_run(self, *argv: str, euid: int = 1000) -> str:
        out = io.StringIO()
        with mock.patch("os.geteuid", return_value=euid), mock.patch("sys.stdout", out):
            # Any executable stands in for pfind: a fresh clone has no release build.
            pfind = shutil.which("true") or "/bin/true"
            code = cli.main(["--dry-run", "--pfind", pfind, "--data-dir", str(self.tmp), "--fs-dir", str(self.tmp / "fs"), *argv])
        self.assertEqual(code, 0)
        return out.getvalue()

    def test_not_root_skips_mounts_and_cold_with_one_line_each(self):
        home = filesystem_of(self.tmp)
        others = [fs for fs in ("xfs", "btrfs", "tmpfs") if fs != home]
        text = self.dry_run("--cache", "warm", "cold", "--fs", home, *others, "--tree", str(self.tmp), "--skip-oswalk")
        lines = text.splitlines()
        self.assertIn(f"warm, {home}: 25 dataset cells (small, medium, large, deep, wide x all_files, extension_jpg, extension_multi, name_glob, count_only)", lines)
        self.assertIn(f"warm, {home}: 2 tree cells ({self.tmp} x all_files, count_only)", lines)
        for fs in others:
            self.assertIn(f"skipped --fs {fs}: needs root to make and mount it (running as uid 1000)", lines)
        self.assertIn("skipped cold cache (10 cells and sweeps): needs root to write /proc/sys/vm/drop_caches (running as uid 1000)", lines)
        self.assertFalse(any(line.startswith("cold") for line in lines))
        self.assertFalse((self.tmp / "fs").exists(), "a dry run makes nothing")

    def test_the_parts_are_planned_and_first_path_skipped_when_not_root(self):
        text = self.dry_run("--skip-cells", "--early-quit", str(self.tmp), "--early-quit-depths", "2", "4", "--shallow-order", str(self.tmp),
                            "--first-path", "small", "--tools", "bfs", "fd", "find")
        lines = text.splitlines()
        self.assertFalse(any("cells" in line for line in lines), "--skip-cells plans no cells")
        self.assertTrue(any(line.startswith(f"early quit: {self.tmp} at depths 2 4, 20 names each (pfind") for line in lines), lines)
        self.assertTrue(any(line.startswith(f"shallow order: {self.tmp}, 10 runs each of pfind (default -j, -j 8)") for line in lines), lines)
        self.assertIn("skipped first path (--first-path small): needs root to make and mount it (running as uid 1000)", lines)

    def test_a_dry_run_builds_no_floor(self):
        with mock.patch.object(cli, "build_floor") as build:
            self.dry_run("--sizes", "small")
        build.assert_not_called()

    def test_nothing_left_to_time_is_an_error(self):
        with mock.patch("os.geteuid", return_value=1000), mock.patch("sys.stdout", io.StringIO()):
            home = filesystem_of(self.tmp)
            other = "xfs" if home != "xfs" else "btrfs"
            code = cli.main(["--pfind", shutil.which("true") or "/bin/true", "--data-dir", str(self.tmp), "--fs", other])
        self.assertEqual(code, 2)


@unittest.skipUnless(shutil.which("hyperfine") and shutil.which("find"), "needs hyperfine and find")
class EndToEndTests(TempDirTest):
    @classmethod
    def setUpClass(cls):
        cls._data = big_tree_dir("pfind-bench-e2e-")  # one deep tree for all tests

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    # A shell stand-in that answers like pfind by delegating to find.
    CORRECT = 'case "$2" in -c) find "$1" -type f | wc -l ;; -n) find "$1" -type f -name "$3" ;; *) find "$1" -type f ;; esac'

    def fake_pfind(self, body: str) -> str:
        path = self.tmp / "pfind"
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)
        return str(path)

    def run_main(self, pfind: str, *extra: str, euid: int = None) -> tuple[int, dict, str]:
        out = self.tmp / "report.json"
        argv = ["--pfind", pfind, "--sizes", "deep", "--scenarios", "count_only", "name_glob", "--tools", "find",
                "--runs", "2", "--warmup", "0", "--data-dir", self._data.name, "--output", str(out), *extra]
        stdout = io.StringIO()
        patches = [mock.patch("sys.stdout", stdout)] + ([mock.patch("os.geteuid", return_value=euid)] if euid is not None else [])
        for p in patches:
            p.start()
        try:
            code = cli.main(argv)
        finally:
            for p in patches:
                p.stop()
        return code, json.loads(out.read_text()), stdout.getvalue()

    def test_wrong_pfind_makes_the_harness_fail(self):
        code, report, _ = self.run_main(self.fake_pfind("echo 0"))
        self.assertEqual(code, 1)
        self.assertFalse(report["pfind_correct"])
        self.assertEqual([c["scenario"] for c in report["cells"]], ["count_only", "name_glob"])
        self.assertEqual(report["cells"][0]["correctness"]["counts"], {"pfind": 0, "find": 7260})

    def test_crashing_pfind_is_recorded_in_the_cell(self):
        code, report, _ = self.run_main(self.fake_pfind("exit 3"))
        self.assertEqual(code, 1)
        self.assertFalse(report["all_timings_ok"])
        cell = report["cells"][0]
        self.assertIn("hyperfine exited", cell["error"])
        self.assertIn("exited 3", cell["correctness"]["errors"]["pfind"])

    def test_correct_stand_in_passes_with_two_passes_and_a_sweep(self):
        code, report, stdout = self.run_main(self.fake_pfind(self.CORRECT), "--threads-sweep", "1", "2", "--sweep-size", "deep")
        self.assertEqual(code, 0)
        self.assertTrue(report["pfind_correct"])
        self.assertEqual(report["schema"], 4)
        self.assertTrue(all(c["correctness"]["paths"]["equal"] for c in report["cells"] if c["scenario"] == "name_glob"))
        cell = report["cells"][0]
        self.assertEqual((cell["cache"], cell["kind"], cell["fs"]), ("warm", "dataset", filesystem_of(Path(self._data.name))))
        self.assertEqual(len(cell["results"]["pfind"]["times"]), 4)
        self.assertEqual([p["order"] for p in cell["passes"]], [["pfind", "find"], ["find", "pfind"]])
        sweep = report["thread_sweeps"][0]
        self.assertEqual([p["threads"] for p in sweep["points"]], [1, 2])
        self.assertEqual(len(sweep["default"]["pass_means"]), 2)
        self.assertEqual(report["thread_sweep"], sweep)
        self.assertIn("### thread sweep: all_files on deep", stdout)
        self.assertIn("correctness: pfind agrees everywhere", stdout)

    def test_a_real_tree_is_checked_against_find(self):
        tree = self.tmp / "tree"
        (tree / "a" / "b").mkdir(parents=True)
        for rel in ("x.jpg", "a/y.txt", "a/b/z", "a/b/file_0171.png"):
            (tree / rel).write_text("x")
        (tree / "link").symlink_to(tree / "x.jpg")  # not a regular file to find -type f
        code, report, stdout = self.run_main(self.fake_pfind(self.CORRECT), "--tree", str(tree), "--passes", "1")
        self.assertEqual(code, 0)
        trees = [c for c in report["cells"] if c["kind"] == "tree"]
        self.assertEqual([c["scenario"] for c in trees], ["all_files", "count_only"])
        self.assertEqual([c["correctness"]["expected"] for c in trees], [4, 4])
        self.assertEqual(trees[0]["correctness"]["expected_from"], "find")
        self.assertTrue(trees[0]["correctness"]["paths"]["equal"])
        self.assertEqual(report["trees"], {str(tree): {"fs": filesystem_of(tree), "files": 4}})
        self.assertIn("real trees: all_files", stdout)

    def test_a_tree_pfind_gets_wrong_fails_the_run(self):
        tree = self.tmp / "tree"
        tree.mkdir()
        (tree / "a").write_text("x")
        code, report, _ = self.run_main(self.fake_pfind('echo "$1/b"'), "--tree", str(tree), "--passes", "1", "--scenarios", "count_only", "--tree-scenarios", "all_files")
        self.assertEqual(code, 1)
        tree_cell = [c for c in report["cells"] if c["kind"] == "tree"][0]
        self.assertFalse(tree_cell["correctness"]["pfind_correct"])
        self.assertEqual(tree_cell["correctness"]["paths"]["only_subject"], [f"{tree}/b"])

    @unittest.skipUnless(shutil.which("gcc"), "needs gcc")
    def test_floor_is_built_and_timed_as_the_unranked_reference(self):
        code, report, stdout = self.run_main(self.fake_pfind(self.CORRECT), "--tools", "find", "floor", "--passes", "1")
        self.assertEqual(code, 0)
        self.assertEqual((report["tools"]["floor"]["path"], report["tools"]["floor"]["role"]), (str(FLOOR_BUILD), "reference"))
        count_only = report["cells"][0]
        self.assertEqual(count_only["correctness"]["counts"], {"pfind": 7260, "find": 7260, "floor": 7260})
        self.assertEqual(count_only["runner_up"], "find")
        self.assertIsNotNone(count_only["vs_floor"])
        self.assertIn("floor (ref)", stdout)

    def test_floor_path_is_timed_instead_of_the_build(self):
        floor = self.tmp / "my-floor"
        floor.write_text("#!/bin/sh\necho 7260\n")
        floor.chmod(0o755)
        with mock.patch.object(cli, "build_floor") as build:
            code, report, _ = self.run_main(self.fake_pfind(self.CORRECT), "--floor", str(floor), "--passes", "1")
        build.assert_not_called()
        self.assertEqual(code, 0)
        self.assertEqual(report["tools"]["floor"]["path"], str(floor))
        self.assertEqual(report["cells"][0]["correctness"]["counts"]["floor"], 7260)

    def test_not_root_runs_the_warm_cells_and_records_the_skips(self):
        home = filesystem_of(Path(self._data.name))
        other = "xfs" if home != "xfs" else "btrfs"
        code, report, stdout = self.run_main(self.fake_pfind(self.CORRECT), "--cache", "warm", "cold", "--fs", home, other, "--passes", "1", euid=1000)
        self.assertEqual(code, 0)
        self.assertEqual({(c["cache"], c["fs"]) for c in report["cells"]}, {("warm", home)})
        self.assertEqual(
            report["skipped"],
            [f"--fs {other}: needs root to make and mount it (running as uid 1000)",
             "cold cache (2 cells and sweeps): needs root to write /proc/sys/vm/drop_caches (running as uid 1000)"],
        )
        self.assertIn("skipped cold cache (2 cells and sweeps)", stdout)
        self.assertEqual(list(report["machine"]["filesystems"]), [home])


@unittest.skipUnless(shutil.which("hyperfine") and shutil.which("find") and shutil.which("bfs") and which("fd", also=[CARGO_BIN]), "needs hyperfine, find, bfs and fd")
class PartsEndToEndTests(TempDirTest):
    """--early-quit and --shallow-order on a tiny tree, with a stand-in pfind that
    delegates to find, next to the real bfs, fd and find."""

    STAND_IN = """root=$1; shift; name=; quit=
while [ $# -gt 0 ]; do case "$1" in -n) name=$2; shift 2 ;; -1) quit=1; shift ;; -j) shift 2 ;; *) shift ;; esac; done
if [ -n "$name" ]; then find "$root" -type f -name "$name" %s; exit; fi
exec find "$root" -type f"""

    def setUp(self):
        super().setUp()
        self.tree = self.tmp / "tree"
        (self.tree / "a" / "b" / "c").mkdir(parents=True)
        for rel in ("top", "a/dup", "a/odd*name", "a/uniq2", "a/b/c/dup", "a/b/c/uniq4"):
            (self.tree / rel).write_text("")
        (self.tree / "a" / "udir").mkdir()  # unique, but a directory

    def run_main(self, quit_with: str) -> tuple[int, dict, str]:
        pfind = self.tmp / "pfind"
        pfind.write_text("#!/bin/sh\n" + self.STAND_IN % quit_with + "\n")
        pfind.chmod(0o755)
        out = self.tmp / "report.json"
        argv = ["--pfind", str(pfind), "--skip-cells", "--tools", "bfs", "fd", "find", "--early-quit", str(self.tree), "--early-quit-depths", "2", "4", "8",
                "--early-quit-runs", "2", "--early-quit-warmup", "0", "--shallow-order", str(self.tree), "--shallow-order-runs", "2",
                "--shallow-order-threads", "2", "--output", str(out)]
        stdout = io.StringIO()
        with mock.patch("sys.stdout", stdout):
            code = cli.main(argv)
        return code, json.loads(out.read_text()), stdout.getvalue()

    def test_early_quit_and_shallow_order(self):
        code, report, stdout = self.run_main("-print -quit")
        self.assertEqual(code, 0, stdout)
        self.assertEqual(report["cells"], [])
        tree = report["early_quit"]["trees"][0]
        self.assertEqual(tree["unique_files"], {"1": 1, "2": 2, "4": 1})
        self.assertEqual(list(tree["skipped_depths"]), ["8"])
        depth2, depth4 = tree["depths"]
        self.assertEqual([n["name"] for n in depth2["names"]], ["odd*name", "uniq2"])
        self.assertEqual(depth2["names"][0]["glob"], "odd\\*name")
        self.assertEqual([n["path"] for n in depth4["names"]], ["a/b/c/uniq4"])
        for d in tree["depths"]:
            self.assertEqual(d["missed"], {})
            self.assertEqual(set(d["summary"]), {"pfind", "fd", "bfs", "find"})
            self.assertEqual(len(d["names"][0]["results"]["bfs"]["times"]), 4, "2 runs in each of 2 passes")
        self.assertEqual(set(report["early_quit"]["process_start"]["results"]), {"pfind", "fd", "bfs", "find"})
        shallow = report["shallow_order"]["trees"][0]
        self.assertEqual(shallow["shallow_files"], 4)
        self.assertEqual(list(shallow["results"]), ["pfind", "pfind -j 2", "bfs", "fd", "find"])
        self.assertTrue(all(r["missing"] == 0 and r["share"]["max"] <= 1.0 for r in shallow["results"].values()))
        self.assertEqual(report["shallow_order"]["trees"][0]["results"]["bfs"]["share"]["max"], 4 / 6, "breadth first: the 4 shallow files first")
        self.assertTrue(report["pfind_correct"] and report["all_timings_ok"])
        for title in ("### early quit", "### shallow order", "early quit on"):
            self.assertIn(title, stdout)

    def test_a_pfind_that_finds_something_else_fails_the_run(self):
        code, report, stdout = self.run_main("-print; echo /elsewhere")  # prints two lines
        self.assertEqual(code, 1)
        self.assertFalse(report["pfind_correct"])
        depth2 = report["early_quit"]["trees"][0]["depths"][0]
        self.assertEqual(depth2["missed"], {"pfind": ["odd*name", "uniq2"]})
        self.assertEqual(depth2["names"][1]["found"]["pfind"]["printed"][1], "/elsewhere")
        self.assertIn("(!2)", stdout)


if __name__ == "__main__":
    unittest.main()
