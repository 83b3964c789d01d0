"""Tests of pfind_bench.order: a path's depth, the share of the output before the
last shallow file, the mean depth of the first lines, the commands, and a whole
tree with canned listings in place of the tools."""

from __future__ import annotations

import shutil
import unittest

from tests.python.support import TempDirTest, quiet_start, quiet_stop
from pfind_bench import order, tools

setUpModule, tearDownModule = quiet_start, quiet_stop


def tool(name: str) -> tools.Tool:
    return tools.Tool(name, tools.SUBJECT if name == "pfind" else tools.COMPETITOR, f"/bin/{name}", "test", lambda root, sc: [])


class DepthTests(unittest.TestCase):
    def test_components_below_the_root(self):
        cases = [
            (b"/usr", b"/usr", 0),
            (b"/usr/bin", b"/usr", 1),
            (b"/usr/bin/ls", b"/usr", 2),
            (b"/usr//share/doc/x", b"/usr/", 3),
            (b"/usr/bin/ls", b"/", 3),
            (b"./a/b", b".", 2),
            (b"a/b", b".", 2),
            (b"/usrx/a", b"/usr", None),
            (b"/etc/hosts", b"/usr", None),
            (b"../a", b".", None),
        ]
        for path, root, depth in cases:
            with self.subTest(path=path, root=root):
                self.assertEqual(order.path_depth(path, root), depth)


class ShareTests(unittest.TestCase):
    def test_share_when_the_last_shallow_file_came_out(self):
        lines = [b"/r/a", b"/r/d/x/y", b"/r/d/b", b"/r/d/x/z"]
        self.assertEqual(order.share_of_output(lines, {b"/r/a", b"/r/d/b"}), (0.75, 0))
        self.assertEqual(order.share_of_output(lines, {b"/r/a"}), (0.25, 0))

    def test_lines_are_normalized_before_comparing(self):
        self.assertEqual(order.share_of_output([b"/r//a", b"/r/b/c"], {b"/r/a"}), (0.5, 0))

    def test_missing_files_leave_no_share(self):
        self.assertEqual(order.share_of_output([b"/r/a"], {b"/r/a", b"/r/b", b"/r/c"}), (None, 2))
        self.assertEqual(order.share_of_output([], {b"/r/a"}), (None, 1))

    def test_nothing_to_wait_for(self):
        self.assertEqual(order.share_of_output([b"/r/a/b/c"], set()), (0.0, 0))

    def test_mean_depth_of_the_first_lines(self):
        lines = [b"/r/a", b"/r/a/b/c", b"/r/a/b"] + [b"/r/x/y/z/w"] * 10
        self.assertEqual(order.mean_depth(lines, b"/r", first=3), 2.0)
        self.assertIsNone(order.mean_depth([], b"/r"))

    def test_spread(self):
        self.assertEqual(order.spread([0.3, None, 0.1, 0.2]), {"min": 0.1, "median": 0.2, "max": 0.3})
        self.assertEqual(order.spread([None]), {"min": None, "median": None, "max": None})


class CommandTests(unittest.TestCase):
    def test_pfind_at_each_j_then_the_peers(self):
        named = order.order_commands(tool("pfind"), [tool("fd"), tool("rg"), tool("bfs"), tool("find")], "/usr", [8], ["--x"])
        self.assertEqual(
            named,
            [
                ("pfind", ["/bin/pfind", "/usr", "--x"]),
                ("pfind -j 8", ["/bin/pfind", "/usr", "--x", "-j", "8"]),
                ("fd", ["/bin/fd", "-u", "-t", "f", ".", "/usr"]),
                ("bfs", ["/bin/bfs", "/usr", "-type", "f"]),
                ("find", ["/bin/find", "/usr", "-type", "f"]),
            ],
        )


@unittest.skipUnless(shutil.which("find"), "needs find")
class RunTreeTests(TempDirTest):
    def test_runs_in_alternating_order_with_canned_listings(self):
        root = self.tmp / "r"
        (root / "a" / "b").mkdir(parents=True)
        for rel in ("top", "a/mid", "a/b/deep"):
            (root / rel).write_text("")
        r = str(root)
        listings = {
            "shallow-first": [f"{r}/top", f"{r}/a/mid", f"{r}/a/b/deep"],
            "deep-first": [f"{r}/a/b/deep", f"{r}/top", f"{r}/a/mid"],
            "forgetful": [f"{r}/top", f"{r}/a/b/deep"],
        }
        seen = []

        def capture(argv):
            seen.append(argv[0])
            return "".join(p + "\n" for p in listings[argv[0]]).encode(), 0

        named = [(n, [n]) for n in listings]
        tree = order.run_tree(r, "ext4", shutil.which("find"), named, 2, capture=capture)
        self.assertEqual(seen, ["shallow-first", "deep-first", "forgetful", "forgetful", "deep-first", "shallow-first"])
        self.assertEqual(tree["shallow_files"], 2)
        res = tree["results"]
        self.assertAlmostEqual(res["shallow-first"]["share"]["median"], 2 / 3)
        self.assertEqual(res["deep-first"]["share"]["max"], 1.0)
        self.assertEqual((res["forgetful"]["share"]["median"], res["forgetful"]["missing"]), (None, 1))
        self.assertAlmostEqual(res["shallow-first"]["mean_depth"]["median"], 2.0)
        self.assertEqual(len(res["deep-first"]["runs"]), 2)

    def test_pfind_leaving_out_a_shallow_file_is_incorrect(self):
        section = {"trees": [{"results": {"pfind": {"missing": 0}, "pfind -j 8": {"missing": 2}, "bfs": {"missing": 0}}}]}
        self.assertFalse(order.pfind_printed_everything(section))
        section["trees"][0]["results"]["pfind -j 8"]["missing"] = 0
        section["trees"][0]["results"]["bfs"]["missing"] = 5  # a peer's miss is the peer's
        self.assertTrue(order.pfind_printed_everything(section))
        self.assertTrue(order.pfind_printed_everything(None))


if __name__ == "__main__":
    unittest.main()
