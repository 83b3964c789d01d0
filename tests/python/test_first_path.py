"""Tests of pfind_bench.first_path without root or a cold disk: the reader and the
head pipeline on small Python programs, medians, the commands, the copy of a
tree, the ldd listing, the rounds of runs and the ratios."""

from __future__ import annotations

import shutil
import sys
import unittest
from unittest import mock

from tests.python.support import TempDirTest, quiet_start, quiet_stop
from pfind_bench import first_path as fp

setUpModule, tearDownModule = quiet_start, quiet_stop

# Notes how many lines it has written (in the file argv[1], before writing them),
# writes one, and waits for the file argv[2] before writing the other two: the wait
# is bounded (5 s), so a reader that times nothing before the end still ends.
STEPPED_PRINTER = """\
import os, sys, time
def note(n):
    with open(sys.argv[1] + ".new", "w") as f:
        f.write(str(n))
    os.replace(sys.argv[1] + ".new", sys.argv[1])
note(1); sys.stdout.write("a"); sys.stdout.flush()
for _ in range(100):
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.05)
note(3); sys.stdout.write("\\nb\\nc\\n")
"""


class ReaderTests(TempDirTest):
    def test_first_byte_before_the_end(self):
        # No wall clock (issue 51: a 0.25 s limit failed on a loaded machine): the
        # clock reads how many lines the printer has written, and once that is not
        # zero (the start is before the spawn) it lets the printer go on. Each time
        # is then the step the printer was at when the reader took it.
        written, go = self.tmp / "written", self.tmp / "go"

        def steps() -> float:
            n = float(written.read_text()) if written.exists() else 0.0
            if n:
                go.touch()
            return n

        r = fp.time_reader([sys.executable, "-c", STEPPED_PRINTER, str(written), str(go)], clock=steps)
        self.assertEqual((r["first_byte"], r["eof"], r["exit"]), (1, 3, 3), "the first byte is timed when it comes, before the rest was written")
        self.assertEqual((r["bytes"], r["lines"], r["exit_code"]), (6, 3, 0))

    def test_no_output_has_no_first_byte(self):
        r = fp.time_reader([sys.executable, "-c", "import sys; sys.exit(2)"])
        self.assertIsNone(r["first_byte"])
        self.assertEqual((r["lines"], r["exit_code"]), (0, 2))

    @unittest.skipUnless(shutil.which("head"), "needs head")
    def test_head_takes_one_line_and_the_producer_ends_on_the_closed_pipe(self):
        producer = [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 100 + '\\n')"]
        r = fp.time_head(producer, shutil.which("head"))
        self.assertEqual(r["lines"], 1)
        self.assertIsNotNone(r["first_byte"])
        self.assertNotEqual(r["exit_code"], 0, "the endless producer was stopped by the closed pipe")

    def test_medians(self):
        self.assertEqual(fp.median_of([0.3, None, 0.1]), {"median": 0.2, "min": 0.1, "max": 0.3, "times": [0.3, None, 0.1]})
        self.assertIsNone(fp.median_of([None])["median"])
        runs = [{"first_byte": 0.01 * i, "eof": 0.1 * i, "exit": 0.1 * i, "lines": 5, "exit_code": 0} for i in (1, 3, 2)]
        s = fp.summarize_runs(runs)
        self.assertEqual((s["first_byte"]["median"], s["eof"]["median"]), (0.02, 0.2))
        self.assertEqual(s["lines"], [5, 5, 5])


class CommandTests(unittest.TestCase):
    def test_every_command(self):
        named = fp.first_path_commands("/p", {"bfs": "/b", "fd": "/fd", "find": "/f"}, ["/m/usr"], [2], [])
        self.assertEqual(
            named,
            [
                ("pfind", ["/p", "/m/usr"]),
                ("pfind -j 2", ["/p", "/m/usr", "-j", "2"]),
                ("bfs", ["/b", "/m/usr", "-type", "f"]),
                ("fd", ["/fd", "-u", "-t", "f", ".", "/m/usr"]),
                ("find", ["/f", "/m/usr", "-type", "f"]),
                ("pfind -1", ["/p", "/m/usr", "-1"]),
                ("pfind | head -1", ["/p", "/m/usr"]),
            ],
        )
        self.assertEqual(fp.describe_command(fp.HEAD_LABEL, ["/p", "/m/usr"], "/usr/bin/head"), "/p /m/usr | /usr/bin/head -n 1")

    def test_several_roots_and_missing_peers(self):
        named = dict(fp.first_path_commands("/p", {}, ["/m/a", "/m/b"], [], ["-x"]))
        self.assertEqual(list(named), ["pfind", "pfind -1", "pfind | head -1"])
        self.assertEqual(named["pfind -1"], ["/p", "/m/a", "/m/b", "-x", "-1"])

    def test_copy_names(self):
        self.assertEqual([fp.copy_name(s) for s in ("/usr", "/usr/share/doc/", "/", "/opt/my tree")], ["usr", "usr_share_doc", "root", "opt_my_tree"])

    def test_ldd_listing(self):
        out = (
            b"\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3e)\n"
            b"\t/lib64/ld-linux-x86-64.so.2 (0x00007f3f)\n"
        )
        self.assertEqual(fp.shared_libraries(out), ["/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"])
        self.assertEqual(fp.shared_libraries(b"\tnot a dynamic executable\n"), [])

    def test_ratios(self):
        med = lambda first, end=None: {"first_byte": {"median": first}, "exit": {"median": end}}
        results = {"pfind": med(0.2), "pfind -j 2": med(0.05), "bfs": med(0.01), "pfind -1": med(0.008, 0.008), "pfind | head -1": med(0.2, 0.21)}
        r = fp.ratios(results)
        self.assertEqual(set(r["first_byte_vs_bfs"]), {"pfind", "pfind -j 2"})
        self.assertAlmostEqual(r["first_byte_vs_bfs"]["pfind"], 20.0)
        self.assertAlmostEqual(r["head_vs_quit"], 0.21 / 0.008)
        self.assertEqual(fp.ratios({"pfind": med(0.2)}), {"first_byte_vs_bfs": {}, "head_vs_quit": None})


class RunTests(TempDirTest):
    def test_rounds_alternate_and_every_run_is_made_cold_first(self):
        events = []
        named = [("one", [sys.executable, "-c", "print(1)"]), ("two", [sys.executable, "-c", "print(2)"])]
        with mock.patch.object(fp, "time_reader", side_effect=lambda argv: events.append(("read", argv[-1])) or {"first_byte": 0.1, "exit": 0.2}):
            per = fp.run_cold(named, 3, lambda binary: events.append(("cold", binary)), "head")
        self.assertEqual([e[1] for e in events if e[0] == "read"], ["print(1)", "print(2)", "print(2)", "print(1)", "print(1)", "print(2)"])
        self.assertEqual([e[0] for e in events], ["cold", "read"] * 6)
        self.assertEqual({k: len(v) for k, v in per.items()}, {"one": 3, "two": 3})

    @unittest.skipUnless(shutil.which("find") and shutil.which("cp"), "needs find and cp")
    def test_a_copy_is_made_once_and_again_when_its_source_changes(self):
        source = self.tmp / "src"
        (source / "a").mkdir(parents=True)
        (source / "a" / "f").write_text("data")
        (source / "l").symlink_to("a/f")
        dest = self.tmp / "image"
        root, record = fp.ensure_copy(dest, str(source), shutil.which("find"))
        self.assertEqual(root, dest / fp.copy_name(str(source)))
        self.assertEqual(((root / "a" / "f").stat().st_size, (root / "l").is_symlink()), (0, True))
        self.assertEqual(record["source_files"], 1)
        (root / "marker").write_text("")
        fp.ensure_copy(dest, str(source), shutil.which("find"))
        self.assertTrue((root / "marker").exists(), "a matching copy is reused")
        (source / "g").write_text("")
        _, record = fp.ensure_copy(dest, str(source), shutil.which("find"))
        self.assertFalse((root / "marker").exists(), "a changed source is copied again")
        self.assertEqual(record["source_files"], 2)
        self.assertEqual(list(dest.glob(".*partial*")), [])


if __name__ == "__main__":
    unittest.main()
