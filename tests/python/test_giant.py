"""--giant and --io500-tree: the sizes and names, the command line, the plan and
its dry run, the commands, the tables and ratios, the count checks, the trees
built and cached, and the smallest real run (2,000 entries on the data directory,
a few seconds; skipped without a release build of pfind, hyperfine or GNU find)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, TempDirTest, fake_results, printer_tool, quiet_start, quiet_stop

from pfind_bench import cli, giant, io500_tree
from pfind_bench import tools as tl
from pfind_bench.common import which

setUpModule, tearDownModule = quiet_start, quiet_stop

PFIND = REPO / "target" / "release" / "pfind"
FIND = which("find")
HYPERFINE = which("hyperfine")


class SizeTests(unittest.TestCase):
    def test_counts_and_their_labels(self):
        for text, n, label in (("2000", 2000, "2k"), ("400k", 400_000, "400k"), ("1m", 1_000_000, "1m"), ("1.5M", 1_500_000, "1500k"), ("2500", 2500, "2500")):
            with self.subTest(text):
                self.assertEqual(giant.parse_size(text), n)
                self.assertEqual(giant.size_label(n), label)

    def test_what_is_not_a_count(self):
        for text in ("", "0", "4x", "1.2345k", "-5", "k"):
            with self.subTest(text), self.assertRaises(ValueError):
                giant.parse_size(text)

    def test_mdtest_names_share_the_ranks(self):
        names = giant.mdtest_names(10, ranks=4)
        self.assertEqual(len(set(names)), 10)
        self.assertEqual(names[:4], ["file.mdtest.0.0", "file.mdtest.0.1", "file.mdtest.0.2", "file.mdtest.1.0"])
        self.assertEqual(names[-1], "file.mdtest.3.1")

    def test_the_io500_tree_counts(self):
        m = io500_tree.tree_manifest(2001)
        self.assertEqual((m["easy"], m["hard"], m["files"], m["scanned"]), (1000, 1001, 2002, 2008))
        # Ranks of 251 and 250 hard files: 101 and 201 contain "01", twice per rank.
        self.assertEqual(m["found"], 8)


class ArgumentTests(unittest.TestCase):
    def test_defaults(self):
        args = cli.parse_args([])
        self.assertIsNone(args.giant)
        self.assertFalse(args.io500_tree)
        self.assertEqual((args.giant_threads, args.io500_entries), ([4, 16], 400_000))
        self.assertEqual(cli.parse_args(["--giant"]).giant, [400_000, 1_000_000])

    def test_sizes_threads_and_entries(self):
        args = cli.parse_args(["--giant", "2000", "2k", "1m", "--giant-threads", "2", "--io500-tree", "--io500-entries", "10k"])
        self.assertEqual((args.giant, args.giant_threads, args.io500_entries, args.io500_tree), ([2000, 1_000_000], [2], 10_000, True))

    def test_bad_values_are_usage_errors(self):
        for argv in (["--giant", "4x"], ["--giant", "0"], ["--giant-threads", "0"], ["--io500-entries", "lots"], ["--giant", "--pfind-args=-j 4"], ["--giant", "--latency-fs", "/"]):
            with self.subTest(argv), mock.patch("sys.stderr", io.StringIO()) as err:
                with self.assertRaises(SystemExit) as caught:
                    cli.parse_args(argv)
                self.assertEqual(caught.exception.code, 2)
                self.assertTrue(err.getvalue().strip())
        cli.parse_args(["--io500-tree", "--pfind-args=-j 4"])  # IO500's external-extra-args: allowed


class PlanTests(unittest.TestCase):
    def test_cold_is_left_out_on_tmpfs_and_without_root(self):
        plans, skips = giant.plan_targets("giant", ["warm", "cold"], ["ext4", "tmpfs"], [2000, 2000, 400_000], None)
        self.assertEqual([p.label for p in plans], ["giant 2k (warm, ext4)", "giant 400k (warm, ext4)", "giant 2k (warm, tmpfs)", "giant 400k (warm, tmpfs)", "giant 2k (cold, ext4)", "giant 400k (cold, ext4)"])
        self.assertEqual(len(skips), 1)
        self.assertIn("cold on tmpfs", skips[0])
        plans, skips = giant.plan_targets("io500-tree", ["warm", "cold"], ["ext4", "xfs"], [2000], "needs root")
        self.assertEqual([(p.cache, p.fs) for p in plans], [("warm", "ext4"), ("warm", "xfs")])
        self.assertEqual(skips, ["io500-tree, cold: needs root"])
        self.assertEqual(giant.describe(plans), ["io500-tree, warm, ext4: 2k entries", "io500-tree, warm, xfs: 2k entries"])

    @unittest.skipUnless(HYPERFINE and FIND, "needs hyperfine and GNU find")
    def test_a_dry_run_says_everything_and_makes_nothing(self):
        with TempDirTestCase() as tmp:
            out = io.StringIO()
            report = tmp / "report.json"
            argv = ["--pfind", "/bin/true", "--giant", "--io500-tree", "--cache", "warm", "cold", "--fs", "ext4", "xfs", "tmpfs",
                    "--tools", "find", "--data-dir", str(tmp / "ds"), "--fs-dir", str(tmp / "fs"), "--output", str(report), "--dry-run"]
            with contextlib.redirect_stdout(out), mock.patch.object(cli, "cold_cache_unavailable", return_value=None), \
                    mock.patch.object(cli, "filesystem_of", return_value="ext4"), \
                    mock.patch.object(cli, "fs_unavailable", side_effect=lambda fs, euid: "needs root" if fs == "xfs" else None):
                self.assertEqual(cli.main(argv), 0)
            text = out.getvalue()
            for line in ("giant, warm, ext4: 400k, 1m entries", "giant, cold, ext4: 400k, 1m entries", "giant, warm, tmpfs: 400k, 1m entries",
                         "giant commands: pfind default, pfind -j 1, pfind -j 4, pfind -j 16, find",
                         "io500-tree, warm, ext4: 400k entries", "io500-tree commands: io500-find.sh, pfind -c, two walks, find",
                         "skipped --fs xfs: needs root", "skipped giant, cold on tmpfs: tmpfs keeps its files only in memory, so there is no cold state to measure"):
                self.assertIn(line, text)
            self.assertNotIn("cold, tmpfs", text)
            self.assertEqual(sorted(os.listdir(tmp)), [])


class TempDirTestCase:
    """A temporary directory as a context manager giving a Path."""

    def __enter__(self) -> Path:
        import tempfile

        self._tmp = tempfile.TemporaryDirectory(prefix="pfind-giant-test-")
        return Path(self._tmp.name)

    def __exit__(self, *exc):
        self._tmp.cleanup()


class CommandTests(unittest.TestCase):
    def tools(self):
        pfind = tl.make_pfind("/p", ["-H"])
        peers = [tl.make_peer("rg", "/rg"), tl.make_peer("find", "/f")]
        return giant.commands(pfind, [4, 1, 16], peers)

    def test_pfind_at_each_thread_count_then_the_peers_in_order(self):
        tools = self.tools()
        self.assertEqual([t.name for t in tools], ["pfind", "pfind -j 1", "pfind -j 4", "pfind -j 16", "find", "rg"])
        argv = {t.name: t.argv_for("/d", giant.SCENARIO) for t in tools}
        self.assertEqual(argv["pfind"], ["/p", "/d", "-H"])
        self.assertEqual(argv["pfind -j 16"], ["/p", "/d", "-H", "-j", "16"])
        self.assertEqual(argv["find"], ["/f", "/d", "-type", "f"])

    def test_the_io500_commands(self):
        named = dict(io500_tree.commands("/t", "/p", ["-j", "8"], "/f", script="/s.sh"))
        self.assertEqual(named["io500-find.sh"], ["/s.sh", "-j", "8", "/t", "-newer", "/t/timestampfile", "-size", "3901c", "-name", "*01*"])
        self.assertEqual(named["pfind -c"], ["/p", "/t", "-c", "-j", "8"])
        self.assertEqual(named["find"], ["/f", "/t", "-newer", "/t/timestampfile", "-size", "3901c", "-name", "*01*", "-type", "f"])
        self.assertEqual(named["two walks"][:2], ["bash", "-c"])
        self.assertEqual(named["two walks"][3:], ["two-walks", "/p", "/t", "/t/timestampfile", "-j", "8"])
        self.assertNotIn("find", dict(io500_tree.commands("/t", "/p", [], None)))

    def test_matched_is_read_from_the_last_line(self):
        self.assertEqual(io500_tree.parse_matched(b"warning\nMATCHED 8/2007\n"), (8, 2007))
        self.assertIsNone(io500_tree.parse_matched(b"MATCHED 8/2007\ntrailing\n"))
        self.assertIsNone(io500_tree.parse_matched(b""))


def giant_cell(medians: dict, count_ok: dict = None, error: str = None) -> dict:
    results = fake_results(medians)
    cell = {"cache": "warm", "fs": "xfs", "entries": 400_000, "size": "400k", "commands": {n: n for n in medians}, "results": results,
            "correctness": {"count_ok": count_ok or {n: True for n in medians}, "pfind_correct": True}}
    cell.update(giant.ratios(results, list(medians)))
    if error:
        cell["error"] = error
    return cell


class TableTests(unittest.TestCase):
    MEDIANS = {"pfind": 0.060, "pfind -j 1": 0.120, "pfind -j 4": 0.070, "find": 0.300, "fd": 0.150}

    def test_ratios(self):
        r = giant.ratios(fake_results(self.MEDIANS), list(self.MEDIANS))
        self.assertAlmostEqual(r["default_vs_j1"], 0.5)
        self.assertEqual(r["fastest_peer"], "fd")
        self.assertAlmostEqual(r["default_vs_fastest_peer"], 0.4)
        self.assertEqual(giant.ratios({}, []), {"default_vs_j1": None, "fastest_peer": None, "default_vs_fastest_peer": None})

    def test_the_giant_table(self):
        text = giant.table([giant_cell(self.MEDIANS, {**{n: True for n in self.MEDIANS}, "find": False})])
        head, rule, row = text.splitlines()
        self.assertEqual(head, "| cache | fs | entries | pfind default | pfind -j 1 | pfind -j 4 | find | fd | default / -j 1 | default / fastest peer |")
        self.assertEqual(rule.count("|---"), 10)
        # fake_results spreads each run 0.9x to 1.1x of the median.
        self.assertTrue(row.startswith("| warm | xfs | 400k | 60 (54-66) | 120 (108-132) | 70 (63-77) | 300 (270-330) WRONG COUNT | 150 (135-165) |"), row)
        self.assertTrue(row.endswith("| 0.50 | 0.40 (fd) |"), row)

    def test_a_failed_timing_is_said(self):
        cell = giant_cell({"pfind": 0.06}, error="hyperfine exited 1")
        cell["results"] = {}
        row = giant.table([cell]).splitlines()[2]
        self.assertIn("400k (timing failed: hyperfine exited 1)", row)
        self.assertIn("| — |", row)

    def test_the_io500_table(self):
        medians = {"io500-find.sh": 0.100, "pfind -c": 0.150, "two walks": 0.260, "find": 0.900}
        ok = {n: {"ok": True} for n in medians}
        cell = {"cache": "cold", "fs": "ext4", "size": "400k", "results": fake_results(medians), "script_vs_plain": 2 / 3, "script_vs_two_walks": 0.1 / 0.26,
                "correctness": {"reference": {"found": 1234, "scanned": 400007}, "commands": ok, "pfind_correct": True}}
        row = io500_tree.table([cell]).splitlines()[2]
        self.assertEqual(row, "| cold | ext4 | 400k | 100 (90-110) | 150 (135-165) | 260 (234-286) | 900 (810-990) | 0.67 | 0.38 | 1,234/400,007 |")
        cell["correctness"]["commands"]["two walks"]["ok"] = False
        cell["correctness"]["pfind_correct"] = False
        row = io500_tree.table([cell]).splitlines()[2]
        self.assertIn("260 (234-286) WRONG COUNT", row)
        self.assertTrue(row.endswith("1,234/400,007 WRONG COUNT |"))


class CountCheckTests(unittest.TestCase):
    REFERENCE = {"found": 8, "scanned": 2007, "files": 2001}
    MANIFEST = {"found": 8, "scanned": 2007, "files": 2001}

    def named(self, matched: str, plain: str = "2001\n", found_lines: int = 8, exit_code: int = 0):
        printer = lambda out, code=0: printer_tool("x", tl.SUBJECT, out, exit_code=code).argv_for("", None)
        return [("io500-find.sh", printer(matched, exit_code)), ("pfind -c", printer(plain)), ("two walks", printer("MATCHED 8/2007\n")), ("find", printer("p\n" * found_lines))]

    def test_every_count_against_finds(self):
        check = io500_tree.check_counts(self.named("MATCHED 8/2007\n"), self.REFERENCE, self.MANIFEST, dict(os.environ))
        self.assertTrue(check["pfind_correct"], check)
        self.assertEqual(check["commands"]["io500-find.sh"], {"exit_code": 0, "found": 8, "scanned": 2007, "ok": True})

    def test_a_wrong_scanned_count_or_exit_fails(self):
        for named in (self.named("MATCHED 8/2006\n"), self.named("MATCHED 8/2007\n", plain="2000\n"), self.named("MATCHED 8/2007\n", exit_code=1), self.named("nothing\n")):
            with self.subTest(named[0][1][-1]):
                self.assertFalse(io500_tree.check_counts(named, self.REFERENCE, self.MANIFEST, dict(os.environ))["pfind_correct"])

    def test_find_wrong_is_marked_but_is_not_pfind_wrong(self):
        check = io500_tree.check_counts(self.named("MATCHED 8/2007\n", found_lines=7), self.REFERENCE, self.MANIFEST, dict(os.environ))
        self.assertFalse(check["commands"]["find"]["ok"])
        self.assertTrue(check["pfind_correct"])

    def test_a_reference_other_than_the_manifest_fails(self):
        check = io500_tree.check_counts(self.named("MATCHED 8/2007\n"), self.REFERENCE, {**self.MANIFEST, "found": 9}, dict(os.environ))
        self.assertFalse(check["reference_ok"])
        self.assertFalse(check["pfind_correct"])


class TreeTests(TempDirTest):
    big_trees = True

    def test_a_giant_directory_is_made_once(self):
        root, manifest = giant.ensure_giant(self.tmp, 2000)
        self.assertEqual(root, self.tmp / "giant-2k")
        names = os.listdir(root)
        self.assertEqual((len(names), manifest["files"]), (2000, 2000))
        self.assertEqual(sorted(names), sorted(giant.mdtest_names(2000)))
        self.assertTrue(all(os.lstat(root / n).st_size == 0 for n in names[:50]))
        with mock.patch.object(giant, "fill_directory") as fill:
            self.assertEqual(giant.ensure_giant(self.tmp, 2000), (root, manifest))
        fill.assert_not_called()

    def test_a_giant_directory_by_several_processes(self):
        with mock.patch.object(giant, "PARALLEL_GENERATION_THRESHOLD", 0), mock.patch.object(giant, "CHUNK", 300):
            root, _ = giant.ensure_giant(self.tmp, 2000, jobs=2)
        self.assertEqual(sorted(os.listdir(root)), sorted(giant.mdtest_names(2000)))

    @unittest.skipUnless(FIND, "needs GNU find")
    def test_the_io500_tree_is_what_find_counts(self):
        root, manifest = io500_tree.ensure_io500_tree(self.tmp, 2000)
        self.assertEqual(sorted(os.listdir(root)), ["mdtest-easy", "mdtest-hard", "timestampfile"])
        hard = io500_tree.leaf(root, "mdtest-hard")
        self.assertEqual(os.lstat(hard / "file.mdtest.0.0").st_size, 3901)
        self.assertEqual(os.lstat(io500_tree.leaf(root, "mdtest-easy") / "file.mdtest.0.0").st_size, 0)
        self.assertLess(os.lstat(root / "timestampfile").st_mtime, os.lstat(hard / "file.mdtest.0.0").st_mtime - 3000)
        self.assertEqual(io500_tree.reference_counts(str(root), FIND), {k: manifest[k] for k in ("found", "scanned", "files")})


class DocsTest(unittest.TestCase):
    def test_the_documented_commands_parse(self):
        text = (REPO / "docs" / "benchmarks.md").read_text()
        section = text[text.index("### Giant directories"):text.index("### Memory")]
        commands = [c.replace("\\\n", " ") for c in section.split("```")[1].strip().split("\npython3")]
        self.assertEqual(len(commands), 2)
        giant_args, io500_args = (cli.parse_args(c.split()[2:] if c.startswith("python3") else c.split()[1:]) for c in commands)
        self.assertEqual((giant_args.giant, giant_args.fs, giant_args.cache), ([400_000, 1_000_000], ["ext4", "xfs", "btrfs", "tmpfs"], ["warm", "cold"]))
        self.assertTrue(io500_args.io500_tree)
        self.assertEqual(io500_args.io500_entries, 400_000)


@unittest.skipUnless(PFIND.exists(), f"needs a release build of pfind ({PFIND}: cargo build --release)")
@unittest.skipUnless(HYPERFINE and FIND, "needs hyperfine and GNU find")
class SmallestRunTest(TempDirTest):
    """2,000 entries on the data directory, both modes, one run each: every count
    right, the report's two sections and the tables."""

    def test_both_modes(self):
        report = self.tmp / "report.json"
        argv = ["--pfind", str(PFIND), "--giant", "2000", "--giant-threads", "2", "--io500-tree", "--io500-entries", "2000", "--runs", "1", "--warmup", "0",
                "--tools", "find", "fd", "--data-dir", str(self.tmp / "ds"), "--output", str(report)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = cli.main(argv)
        self.assertEqual(status, 0, out.getvalue())
        data = json.loads(report.read_text())
        (cell,) = data["giant"]["cells"]
        self.assertTrue(cell["correctness"]["pfind_correct"])
        self.assertEqual(set(cell["correctness"]["counts"].values()), {2000})
        self.assertEqual(list(cell["results"])[:3], ["pfind", "pfind -j 1", "pfind -j 2"])
        (tree,) = data["io500_tree"]["cells"]
        self.assertTrue(tree["correctness"]["pfind_correct"], tree["correctness"])
        self.assertEqual(tree["correctness"]["commands"]["io500-find.sh"]["scanned"], 2007)
        self.assertIn("| warm | ", out.getvalue())
        self.assertNotIn("WRONG COUNT", out.getvalue())


if __name__ == "__main__":
    unittest.main()
