"""--cluster: the commands and their launcher, how each answer is read, the runs
(with stand-in mounts and a stand-in timer), the table, the command line and its
dry run; where FUSE exists, a capped latencyfs mount; and where FUSE, mpirun and
release builds of pfind and pfind-mpi exist, the smallest real run: a tiny tree,
one run of each command at 2 ranks, every mount gone after."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, LatencyfsTest, TempDirTest, tiny_tree

from pfind_bench import cli, cluster
from pfind_bench import latency_fs as lf
from pfind_bench.common import which

FUSE_MISSING = lf.fuse_unavailable()
MPIRUN = which("mpirun")
PFIND = REPO / "target" / "release" / "pfind"
PFIND_MPI = REPO / "target" / "release" / "pfind-mpi"
OPEN_MPI = cluster.Launcher("/mpi/mpirun", open_mpi=True)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def our_mounts(under: str) -> list[str]:
    with open("/proc/mounts") as f:
        return [line.split()[1] for line in f if line.split()[1].startswith(under)]


class CommandsTest(unittest.TestCase):
    def test_pfind_then_pfind_mpi_then_the_peers_at_each_rank_count(self):
        cmds = cluster.commands("/p", "/pm", OPEN_MPI, [2, 4, 2], ["-H"], "/io500/pfind", "/mfu/dfind")
        self.assertEqual(
            [c.label for c in cmds],
            ["pfind", "pfind-mpi -np 2", "pfind-mpi -np 4", "IO500 pfind -np 2", "IO500 pfind -np 4", "dfind -np 2", "dfind -np 4"],
        )
        self.assertEqual([(c.ranks, c.mounts) for c in cmds], [(1, 1), (2, 2), (4, 4), (2, 1), (4, 1), (2, 1), (4, 1)])
        by = {c.label: c for c in cmds}
        self.assertEqual(by["pfind"].argv("/t"), ["/p", "/t/m0", "-H"])
        self.assertFalse(by["pfind"].mpi)
        mpi = ["/mpi/mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "pml", "ob1", "--mca", "btl", "self,vader", "--mca", "mtl", "^ofi", "-np", "4"]
        self.assertEqual(by["pfind-mpi -np 4"].argv("/t"), mpi + ["/pm", "-H", "--rank-root", "/t/m{rank}/", "/t/m0"])
        self.assertEqual(by["IO500 pfind -np 4"].argv("/t"), mpi + ["/io500/pfind", "/t/m0"])
        self.assertEqual(by["dfind -np 4"].argv("/t"), mpi + ["/mfu/dfind", "--type", "f", "--print", "/t/m0"])
        self.assertEqual((by["IO500 pfind -np 2"].count, by["IO500 pfind -np 2"].expect), (cluster.MATCHED, cluster.NON_DIRECTORIES))
        self.assertEqual((by["dfind -np 2"].count, by["dfind -np 2"].expect), (cluster.PATH_LINES, cluster.FILES))

    def test_without_the_peers_only_pfind_and_pfind_mpi(self):
        self.assertEqual([c.tool for c in cluster.commands("/p", "/pm", OPEN_MPI, [8])], ["pfind", "pfind-mpi"])

    def test_mpich_gets_no_open_mpi_options(self):
        self.assertEqual(cluster.Launcher("/m/mpirun", open_mpi=False).argv(2), ["/m/mpirun", "-np", "2"])

    def test_the_launcher_is_told_by_its_version(self):
        with mock.patch.object(cluster, "tool_version", return_value="mpirun (Open MPI) 4.1.4"):
            self.assertTrue(cluster.launcher_for("/x/mpirun").open_mpi)
        with mock.patch.object(cluster, "tool_version", return_value="HYDRA build details:"):
            self.assertFalse(cluster.launcher_for("/x/mpirun").open_mpi)

    def test_the_mpi_environment_allows_root(self):
        env = cluster.mpi_env()
        self.assertEqual((env["OMPI_ALLOW_RUN_AS_ROOT"], env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"]), ("1", "1"))
        self.assertEqual(env["PATH"], os.environ["PATH"])

    def test_the_plan_names_the_one_mount_peers(self):
        cmds = cluster.commands("/p", "/pm", OPEN_MPI, [2], [], "/io500/pfind")
        text = cluster.plan("/src", cmds, 3, 1.0, 4)
        self.assertIn("at most 4 requests in flight a mount (at most 4,000 a second a mount)", text)
        self.assertIn("pfind-mpi -np 2 (2 mounts, one per rank): /mpi/mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca mtl '^ofi' -np 2 /pm --rank-root 'TMP/m{rank}/' TMP/m0", text)
        self.assertIn("IO500 pfind -np 2 (one mount)", text)
        self.assertIn(cluster.ONE_MOUNT_NOTE, text)
        self.assertNotIn(cluster.ONE_MOUNT_NOTE, cluster.plan("/src", cmds[:2], 3, 1.0, 4))


class AnswerTest(unittest.TestCase):
    def test_lines(self):
        self.assertEqual(cluster.answer(cluster.LINES, b"/m/a\n/m/b\n"), 2)
        self.assertEqual(cluster.answer(cluster.LINES, b""), 0)

    def test_dfinds_path_lines_leave_its_log_out(self):
        out = b"[2025-01-01T00:00:00] Walking /m\n/m/a\n/m/b\n[2025-01-01T00:00:01] Walked 3 items\n"
        self.assertEqual(cluster.answer(cluster.PATH_LINES, out), 2)

    def test_io500_pfinds_last_matched_line(self):
        out = b"/m/a\n/m/b\n[DONE] found: 2 (scanned 2 files, scanned dirents: 3, unknown dirents: 0)\nMATCHED 2/2\n"
        self.assertEqual(cluster.answer(cluster.MATCHED, out), 2)
        self.assertIsNone(cluster.answer(cluster.MATCHED, b"/m/a\n"))

    def test_stray_lines_are_those_outside_the_root(self):
        self.assertEqual(cluster.stray_lines(b"/t/m0/a\n/t/m0/b/c\n", "/t/m0"), 0)
        self.assertEqual(cluster.stray_lines(b"/t/m0/a\n/t/m1/b\n/t/m0x\n", "/t/m0"), 2)
        self.assertEqual(cluster.stray_lines(b"", "/t/m0"), 0)


class FakeMount:
    """Stands in for a LatencyMount: makes its point, counts nothing but what it is told."""

    made: list[str] = []

    def __init__(self, point: str, requests: int = 10, peak: int = 4):
        self.point, self._requests, self._peak = point, requests, peak
        self.requests = self.peak = None

    def __enter__(self):
        os.mkdir(self.point)
        FakeMount.made.append(self.point)
        return self.point

    def __exit__(self, *exc):
        os.rmdir(self.point)
        self.requests, self.peak = self._requests, self._peak


class MeasureTest(unittest.TestCase):
    def setUp(self):
        FakeMount.made = []
        self.calls = []

    def timer(self, argv, env):
        """Prints `files` paths under the root pfind was given (its last argument)."""
        self.calls.append((argv, env))
        root = argv[-1]
        tmp = os.path.dirname(root)
        (command,) = [c for c in self.cmds if c.argv(tmp) == argv]
        self.assertEqual(sorted(os.listdir(tmp)), [f"m{i}" for i in range(command.mounts)])
        ms = 100.0 if "/p" == argv[0] else 40.0
        return ms / 1000, b"".join(f"{root}/f{i}\n".encode() for i in range(self.lines)), 0, ""

    def measure(self, lines=3, runs=2):
        self.lines = lines
        self.cmds = cluster.commands("/p", "/pm", OPEN_MPI, [2, 4])
        return cluster.measure(lambda point: FakeMount(point), self.cmds, runs, {cluster.FILES: 3, cluster.NON_DIRECTORIES: 4}, self.timer)

    def test_interleaved_every_second_round_reversed_on_fresh_mounts(self):
        results = self.measure()
        order = ["pfind" if argv[0] == "/p" else f"-np {argv[argv.index('-np') + 1]}" for argv, _ in self.calls]
        self.assertEqual(order, ["pfind", "-np 2", "-np 4", "-np 4", "-np 2", "pfind"])
        # 1 + 2 + 4 mounts a round, two rounds, each a new directory.
        self.assertEqual(len(FakeMount.made), 14)
        self.assertEqual(len({os.path.dirname(p) for p in FakeMount.made}), 6)
        self.assertTrue(all(not os.path.exists(p) for p in FakeMount.made))
        e = results["pfind-mpi -np 4"]
        self.assertEqual((e["requests"], e["requests_per_mount"][0], e["peak_in_flight"]), ([40, 40], [10] * 4, [4, 4]))
        self.assertEqual((e["median_ms"], e["min_ms"], e["max_ms"], e["median_requests"], e["max_peak_in_flight"]), (40.0, 40.0, 40.0, 40, 4))
        self.assertTrue(all(r["correct"] for r in results.values()))
        self.assertEqual(cluster.speedups(results), {"pfind": 1.0, "pfind-mpi -np 2": 2.5, "pfind-mpi -np 4": 2.5})

    def test_only_mpi_launches_get_the_mpi_environment(self):
        self.measure(runs=1)
        for argv, env in self.calls:
            self.assertEqual(env is None, argv[0] == "/p")
            if env is not None:
                self.assertEqual(env["OMPI_ALLOW_RUN_AS_ROOT"], "1")

    def test_a_wrong_count_is_wrong_and_has_no_speedup(self):
        results = self.measure(lines=2, runs=1)
        self.assertFalse(any(r["correct"] for r in results.values()))
        self.assertEqual(set(cluster.speedups(results).values()), {None})

    def test_a_path_outside_m0_is_wrong(self):
        self.lines, self.cmds = 3, cluster.commands("/p", "/pm", OPEN_MPI, [2])

        def timer(argv, env):
            tmp = os.path.dirname(argv[-1])
            return 0.01, f"{tmp}/m0/a\n{tmp}/m0/b\n{tmp}/m1/c\n".encode(), 0, ""

        results = cluster.measure(lambda point: FakeMount(point), self.cmds, 1, {cluster.FILES: 3, cluster.NON_DIRECTORIES: 3}, timer)
        self.assertEqual(results["pfind"]["stray_lines"], [1])
        self.assertFalse(results["pfind"]["correct"])

    def test_a_failed_or_killed_run_is_wrong(self):
        entry = {"ms": [1.0, 2.0], "answers": [3, 3], "exit": [0, None], "requests": [None, 5], "peak_in_flight": [None, 2], "expected": 3}
        cluster.summarize(entry)
        self.assertFalse(entry["correct"])
        self.assertEqual((entry["median_requests"], entry["max_peak_in_flight"]), (5, 2))


class TimeOutputTest(TempDirTest):
    def test_output_exit_and_stderr(self):
        seconds, out, code, err = cluster.time_output(["sh", "-c", "printf 'a\\nb\\n'; echo oops >&2; exit 3"])
        self.assertEqual((out, code, err), (b"a\nb\n", 3, "oops"))
        self.assertGreater(seconds, 0)

    def test_a_hang_is_killed_at_the_timeout(self):
        # The hang's whole session goes: its output ends because what held it open
        # was killed, not because it ran out (no wall-clock limit: issue 51). Run to
        # its end, it would leave the marker before closing its output.
        ran_out = self.tmp / "ran-out"
        _, out, code, _ = cluster.time_output(["sh", "-c", f"echo x; (sleep 30; : >{ran_out})"], timeout=0.3)
        self.assertEqual((out, code), (b"x\n", None))
        self.assertFalse(ran_out.exists(), "the hang ran to its end")


class TableTest(unittest.TestCase):
    def entry(self, tool, ranks, mounts, ms, correct=True, requests=100, peak=4):
        return {"tool": tool, "ranks": ranks, "mounts": mounts, "median_ms": ms, "min_ms": ms - 1, "max_ms": ms + 1,
                "median_requests": requests, "max_peak_in_flight": peak, "correct": correct}

    def section(self, **more):
        results = {
            "pfind": self.entry("pfind", 1, 1, 400.0),
            "pfind-mpi -np 4": self.entry("pfind-mpi", 4, 4, 100.0, requests=1234),
            "IO500 pfind -np 4": self.entry("IO500 pfind", 4, 1, 800.0, correct=False, peak=None),
        }
        results.update(more)
        return {"results": results, "speedup_vs_pfind": cluster.speedups(results), "one_mount": ["IO500 pfind -np 4"]}

    def test_rows(self):
        text = cluster.table(self.section())
        lines = text.splitlines()
        self.assertEqual(lines[0], "| command | ranks | mounts | median ms (min-max) | speedup vs pfind on 1 mount | requests | peak per mount |")
        self.assertIn("| pfind | 1 | 1 | 400 (399-401) | 1.00 | 100 | 4 |", lines)
        self.assertIn("| pfind-mpi -np 4 | 4 | 4 | 100 (99-101) | 4.00 | 1,234 | 4 |", lines)
        self.assertIn("| IO500 pfind -np 4 | 4 | 1 | 800 (799-801) WRONG COUNT | — | 100 | — |", lines)
        self.assertEqual(lines[-1], cluster.ONE_MOUNT_NOTE)

    def test_correctness(self):
        section = self.section()
        self.assertTrue(cluster.pfind_correct(section))
        self.assertFalse(cluster.all_correct(section))
        section = self.section(**{"pfind-mpi -np 8": self.entry("pfind-mpi", 8, 8, 90.0, correct=False)})
        self.assertFalse(cluster.pfind_correct(section))


class CommandLineTest(unittest.TestCase):
    def refused(self, argv):
        with mock.patch("sys.stderr", io.StringIO()) as err, self.assertRaises(SystemExit) as caught:
            cli.parse_args(argv)
        self.assertEqual(caught.exception.code, 2)
        return err.getvalue()

    def test_defaults(self):
        args = cli.parse_args([])
        self.assertIsNone(args.cluster)
        self.assertEqual((args.cluster_ranks, args.cluster_delay, args.cluster_cap, args.cluster_runs), ([2, 4, 8], 1.0, 4, 5))
        self.assertIsNone(args.pfind_mpi, "run_cluster takes the build tree's, else the one on PATH")
        with tempfile.TemporaryDirectory() as tmp:
            args = cli.parse_args(["--cluster", tmp, "--cluster-ranks", "2", "2", "8", "--cluster-delay", "0.5", "--io500-pfind", "/x", "--dfind", "/y"])
            self.assertEqual((args.cluster, args.cluster_ranks, args.cluster_delay, args.io500_pfind, args.dfind), (tmp, [2, 8], 0.5, "/x", "/y"))

    def test_bad_values_are_usage_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            for argv, said in (
                (["--cluster", os.path.join(tmp, "none")], "not a directory"),
                (["--cluster", tmp, "--cluster-ranks", "0"], "at least 1"),
                (["--cluster", tmp, "--cluster-cap", "0"], "at least 1"),
                (["--cluster", tmp, "--cluster-runs", "0"], "at least 1"),
                (["--cluster", tmp, "--cluster-delay", "0"], "above 0"),
                (["--cluster", tmp, "--latency-fs", tmp], "run of its own"),
                (["--cluster", tmp, "--giant"], "run of its own"),
                (["--io500-pfind", "/x"], "give --cluster"),
                (["--dfind", "/x"], "give --cluster"),
            ):
                with self.subTest(argv):
                    self.assertIn(said, self.refused(argv))

    def test_a_dry_run_prints_the_commands_and_makes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "report.json")
            argv = ["--cluster", tmp, "--cluster-ranks", "2", "4", "--pfind", "/bin/true", "--pfind-mpi", os.path.join(tmp, "nope"), "--dfind", "/bin/true", "--output", report, "--dry-run"]
            code, out, _ = run_cli(argv)
            self.assertEqual(code, 0)
            self.assertIn("pfind-mpi -np 4 (4 mounts, one per rank)", out)
            self.assertIn("dfind -np 2 (one mount)", out)
            self.assertIn(cluster.ONE_MOUNT_NOTE, out)
            self.assertIn("cargo build --release --features mpi", out)
            self.assertEqual(os.listdir(tmp), [])

    def test_without_mpirun_or_fuse_the_run_is_skipped_with_a_message(self):
        real_which = cli.which
        with tempfile.TemporaryDirectory() as tmp:
            base = ["--cluster", tmp, "--pfind", "/bin/true", "--pfind-mpi", "/bin/true", "--output", os.path.join(tmp, "r.json")]
            with mock.patch.object(cli, "which", lambda *names, **kw: None if "mpirun" in names else real_which(*names, **kw)):
                code, _, err = run_cli(base)
            self.assertEqual(code, 2)
            self.assertIn("mpirun not found", err)
            with mock.patch.object(cli.latency_fs, "fuse_unavailable", return_value="/dev/fuse does not exist"):
                code, _, err = run_cli(base)
            self.assertEqual(code, 2)
            self.assertIn("/dev/fuse does not exist", err)
            self.assertEqual(os.listdir(tmp), [])

    def test_a_missing_pfind_mpi_says_how_to_build_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = run_cli(["--cluster", tmp, "--pfind", "/bin/true", "--pfind-mpi", os.path.join(tmp, "nope"), "--output", os.path.join(tmp, "r.json")])
        self.assertEqual(code, 2)
        self.assertIn("cargo build --release --features mpi", err)


@unittest.skipIf(FUSE_MISSING, f"no FUSE here: {FUSE_MISSING}")
class CappedMountTest(LatencyfsTest):
    """latencyfs -m through LatencyMount: 40 lookups at once, each held 20 ms,
    never more than the cap in flight; the mount made where it was asked for and
    that directory gone after."""

    def test_the_cap_holds(self):
        import concurrent.futures

        for i in range(40):
            (Path(self.src) / f"f{i}").write_text("")
        point = str(self.tmp / "m0")
        mount = lf.LatencyMount(self.binary, self.src, 20_000, max_in_flight=3, point=point)
        self.assertIn("-m", mount.argv("/w", point))
        with mount as where:
            self.assertEqual(where, point)
            self.assertTrue(os.path.ismount(point))
            with concurrent.futures.ThreadPoolExecutor(40) as pool:
                list(pool.map(lambda i: os.lstat(os.path.join(point, f"f{i}")), range(40)))
        self.assertGreaterEqual(mount.requests, 40)
        self.assertLessEqual(mount.peak, 3)
        self.assertGreaterEqual(mount.peak, 2, "the lookups were never in flight together")
        self.assertFalse(os.path.exists(point))
        self.assertEqual(our_mounts(str(self.tmp)), [])

    def test_uncapped_mounts_pass_no_cap(self):
        self.assertNotIn("-m", lf.LatencyMount("/lfs", "/src", 1000).argv("/w", "/w/mnt"))


@unittest.skipIf(FUSE_MISSING or MPIRUN is None or not PFIND.exists() or not PFIND_MPI.exists(),
                 f"needs FUSE ({FUSE_MISSING or 'present'}), mpirun ({MPIRUN or 'missing'}) and release builds of pfind and pfind-mpi")
class RealRunTest(TempDirTest):
    """The smallest real run: a tiny tree, one run each of pfind and pfind-mpi at 2
    ranks on 1 ms capped mounts, through the command line."""

    def test_the_mode_end_to_end(self):
        src = tiny_tree(self.tmp / "src")
        report = self.tmp / "report.json"
        argv = ["--cluster", src, "--cluster-runs", "1", "--cluster-ranks", "2", "--pfind", str(PFIND), "--pfind-mpi", str(PFIND_MPI), "--output", str(report)]
        code, out, err = run_cli(argv)
        self.assertEqual(code, 0, err)
        self.assertIn("| pfind-mpi -np 2 | 2 | 2 |", out)
        section = json.loads(report.read_text())["cluster"]
        self.assertEqual((section["files"], section["non_directories"], section["max_in_flight"]), (3, 4, 4))
        for label, entry in section["results"].items():
            self.assertTrue(entry["correct"], (label, entry))
            self.assertEqual(entry["lines"], [3], label)
            self.assertLessEqual(entry["max_peak_in_flight"], 4, label)
        per_mount = section["results"]["pfind-mpi -np 2"]["requests_per_mount"][0]
        self.assertEqual(len(per_mount), 2)
        self.assertTrue(all(n > 0 for n in per_mount), "a rank never asked its own mount")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["report.json", "src"])
        self.assertEqual(our_mounts(tempfile.gettempdir() + "/pfind-cluster-"), [])


if __name__ == "__main__":
    unittest.main()
