"""Tests of pfind_bench.tools: each tool's command line for each scenario, finding
the tools (and --bfs), building floor, and reading version numbers."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, ROOT, SC, TempDirTest, quiet_start, quiet_stop
from pfind_bench import correctness
from pfind_bench import datasets as ds
from pfind_bench import tools as tl

setUpModule, tearDownModule = quiet_start, quiet_stop

EXPECTED_ARGV = {
    "pfind": {
        "all_files": ["pfind", ROOT],
        "extension_jpg": ["pfind", ROOT, "-e", "jpg"],
        "extension_multi": ["pfind", ROOT, "-e", "jpg", "-e", "png", "-e", "txt"],
        "name_glob": ["pfind", ROOT, "-n", ds.NAME_GLOB],
        "count_only": ["pfind", ROOT, "-c"],
    },
    "fd": {
        "all_files": ["fd", "-t", "f", "--no-ignore", "--hidden", ".", ROOT],
        "extension_jpg": ["fd", "-t", "f", "--no-ignore", "--hidden", "-e", "jpg", ".", ROOT],
        "extension_multi": ["fd", "-t", "f", "--no-ignore", "--hidden", "-e", "jpg", "-e", "png", "-e", "txt", ".", ROOT],
        "name_glob": ["fd", "-t", "f", "--no-ignore", "--hidden", "-s", "-g", ds.NAME_GLOB, ROOT],
        "count_only": ["fd", "-t", "f", "--no-ignore", "--hidden", ".", ROOT],
    },
    "rg": {
        "all_files": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", ROOT],
        "extension_jpg": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", "--iglob", "*.jpg", ROOT],
        "extension_multi": [
            "rg", "--no-config", "--files", "--no-ignore", "--hidden",
            "--iglob", "*.jpg", "--iglob", "*.png", "--iglob", "*.txt", ROOT,
        ],
        "name_glob": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", "-g", ds.NAME_GLOB, ROOT],
        "count_only": ["rg", "--no-config", "--files", "--no-ignore", "--hidden", ROOT],
    },
    "find": {
        "all_files": ["find", ROOT, "-type", "f"],
        "extension_jpg": ["find", ROOT, "-type", "f", "-iname", "*.jpg"],
        "extension_multi": [
            "find", ROOT, "-type", "f", "(", "-iname", "*.jpg", "-o", "-iname", "*.png", "-o", "-iname", "*.txt", ")",
        ],
        "name_glob": ["find", ROOT, "-type", "f", "-name", ds.NAME_GLOB],
        "count_only": ["find", ROOT, "-type", "f"],
    },
    "floor": {
        "all_files": ["floor", "-j", "2", "-p", ROOT],
        "extension_jpg": ["floor", "-j", "2", ROOT],
        "extension_multi": ["floor", "-j", "2", ROOT],
        "name_glob": ["floor", "-j", "2", ROOT],
        "count_only": ["floor", "-j", "2", ROOT],
    },
}


class CommandTests(unittest.TestCase):
    def builders(self):
        return {
            "pfind": lambda sc: tl.pfind_argv("pfind", ROOT, sc),
            "fd": lambda sc: tl.fd_argv("fd", ROOT, sc),
            "rg": lambda sc: tl.rg_argv("rg", ROOT, sc),
            "find": lambda sc: tl.find_argv("find", ROOT, sc),
            "floor": lambda sc: tl.floor_argv("floor", ROOT, sc, 2),
        }

    def test_every_tool_and_scenario(self):
        builders = self.builders()
        for tool, per_scenario in EXPECTED_ARGV.items():
            self.assertEqual(set(per_scenario), set(SC))
            for name, argv in per_scenario.items():
                with self.subTest(tool=tool, scenario=name):
                    self.assertEqual(builders[tool](SC[name]), argv)

    def test_bfs_uses_the_find_expression(self):
        for name, sc in SC.items():
            with self.subTest(name):
                self.assertEqual(tl.find_argv("bfs", ROOT, sc)[1:], EXPECTED_ARGV["find"][name][1:])

    def test_pfind_extra_arguments_come_last(self):
        self.assertEqual(tl.pfind_argv("pfind", ROOT, SC["count_only"], ["-j", "3"]), ["pfind", ROOT, "-c", "-j", "3"])

    def test_oswalk_arguments(self):
        for name, sc in SC.items():
            with self.subTest(name):
                argv = tl.oswalk_argv("python3", ROOT, sc)
                self.assertEqual(argv[:5], ["python3", "-I", "-S", "-c", tl.OSWALK_SCRIPT])
                self.assertEqual(argv[5:], [ROOT, "1" if sc.count else "0", sc.glob or ""] + list(sc.exts))

    def test_tools_agree_with_the_manifest_on_a_real_tree(self):
        """Each installed peer, run with its command line, finds exactly the
        generator's count: the equivalences in the builders are real."""
        with tempfile.TemporaryDirectory() as tmp:
            shape = ds.Shape("mini", "tree", branching=2, depth=3, files_per_dir=30)
            root, manifest = ds.ensure_dataset(Path(tmp), shape)
            # Files the generator never makes, which a wrong filter would pick up.
            (root / "dir_0" / "FILE_000171.JPG").write_bytes(b"x")
            (root / "dir_1" / ".hidden.jpg").write_bytes(b"x")
            extra = {"all_files": 2, "extension_jpg": 2, "extension_multi": 2, "name_glob": 0, "count_only": 2}
            tools, _ = tl.discover_peers(tl.PEER_NAMES)
            pfind = REPO / "target" / "release" / "pfind"
            if os.access(pfind, os.X_OK):
                tools.append(tl.make_pfind(str(pfind)))
            for tool in tools:
                for name, sc in SC.items():
                    with self.subTest(tool=tool.name, scenario=name):
                        out = correctness.run_capture(tool.argv_for(str(root), sc))
                        self.assertEqual(correctness.output_count(tool, sc, out), sc.expected(manifest) + extra[name])


# ---------------------------------------------------------------------------
# Tool discovery
# ---------------------------------------------------------------------------


class DiscoveryTests(TempDirTest):
    def fake_tool(self, name: str, version_line: str) -> None:
        path = self.tmp / name
        path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def test_missing_tools_are_reported_and_skipped(self):
        tools, skipped = tl.discover_peers(["fd", "rg", "bfs", "find", "oswalk"], path=str(self.tmp))
        self.assertEqual([t.name for t in tools], ["oswalk"])
        self.assertEqual(set(skipped), {"fd", "rg", "bfs", "find"})
        self.assertIn("fdfind", skipped["fd"])

    def test_fdfind_is_accepted_and_versions_recorded(self):
        self.fake_tool("fdfind", "fdfind 9.0.0")
        self.fake_tool("bfs", "bfs 3.0")
        tools, skipped = tl.discover_peers(["fd", "bfs", "rg"], path=str(self.tmp))
        by_name = {t.name: t for t in tools}
        self.assertEqual(by_name["fd"].path, str(self.tmp / "fdfind"))
        self.assertEqual(by_name["fd"].version, "fdfind 9.0.0")
        self.assertEqual(by_name["bfs"].version, "bfs 3.0")
        self.assertEqual(list(skipped), ["rg"])
        self.assertEqual(by_name["fd"].describe()["role"], tl.COMPETITOR)

    def test_fd_is_preferred_over_fdfind(self):
        self.fake_tool("fdfind", "fdfind 9.0.0")
        self.fake_tool("fd", "fd 10.0.0")
        tools, _ = tl.discover_peers(["fd"], path=str(self.tmp))
        self.assertEqual(tools[0].path, str(self.tmp / "fd"))

    def test_unknown_version_does_not_fail(self):
        self.assertEqual(tl.tool_version([str(self.tmp / "missing")]), "unknown")


class BfsChoiceTests(TempDirTest):
    def fake_tool(self, name: str, version_line: str) -> Path:
        path = self.tmp / name
        path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
        path.chmod(0o755)
        return path

    def test_bfs_path_overrides_the_one_on_path(self):
        (self.tmp / "bin").mkdir()
        self.fake_tool("bin/bfs", "bfs 2.6.1")
        chosen = self.fake_tool("bfs4", "bfs 4.1.4")
        tools, skipped = tl.discover_peers(["bfs"], path=str(self.tmp / "bin"), chosen={"bfs": str(chosen)})
        self.assertEqual(skipped, {})
        self.assertEqual((tools[0].path, tools[0].version), (str(chosen), "bfs 4.1.4"))
        self.assertEqual(tools[0].describe()["version_number"], "4.1.4")
        self.assertEqual(tools[0].label, "bfs 4.1.4")
        self.assertEqual(tl.peer_notes(tools), [])

    def test_a_bfs_path_that_is_not_executable_is_skipped_with_the_reason(self):
        tools, skipped = tl.discover_peers(["bfs"], path=str(self.tmp), chosen={"bfs": str(self.tmp / "nope")})
        self.assertEqual(tools, [])
        self.assertIn("nope is not an executable", skipped["bfs"])

    def test_an_old_bfs_is_used_but_noted(self):
        tools, _ = tl.discover_peers(["bfs"], chosen={"bfs": str(self.fake_tool("bfs", "bfs 2.6.1"))})
        notes = tl.peer_notes(tools)
        self.assertEqual(len(notes), 1)
        self.assertIn("bfs 2.6.1, not bfs 4", notes[0])
        self.assertIn("--bfs PATH", notes[0])


# ---------------------------------------------------------------------------
# floor, built from benches/floor.c
# ---------------------------------------------------------------------------


@unittest.skipUnless(shutil.which("gcc"), "needs gcc")
class FloorBuildTests(TempDirTest):
    def setUp(self):
        super().setUp()
        self.source = self.tmp / "floor.c"
        shutil.copy(tl.FLOOR_SOURCE, self.source)
        self.dest = self.tmp / "build" / "floor"

    def test_built_once_and_again_when_the_source_is_newer(self):
        self.assertEqual(tl.build_floor(self.dest, self.source), str(self.dest))
        self.assertTrue(os.access(self.dest, os.X_OK))
        built = self.dest.stat().st_mtime_ns
        tl.build_floor(self.dest, self.source)
        self.assertEqual(self.dest.stat().st_mtime_ns, built, "an up-to-date floor is not compiled again")
        os.utime(self.source, ns=(built + 1000, built + 1000))
        tl.build_floor(self.dest, self.source)
        self.assertGreater(self.dest.stat().st_mtime_ns, built, "a newer source is compiled again")
        self.assertEqual(os.listdir(self.dest.parent), ["floor"], "no partial binary is left behind")

    def test_a_source_that_does_not_compile_fails_with_gccs_last_line(self):
        self.source.write_text("int main(void) { return }\n")
        with self.assertRaises(RuntimeError) as caught:
            tl.build_floor(self.dest, self.source)
        self.assertIn("gcc exited 1: ", str(caught.exception))
        self.assertEqual(os.listdir(self.dest.parent), [], "no binary, whole or partial")

    def test_floor_finds_what_find_finds(self):
        """floor's count and, with -p, its paths, on a tree with names and file
        types a careless walker gets wrong; the paths byte for byte as find's."""
        floor = tl.make_floor(tl.build_floor(self.dest, self.source), 2)
        root, manifest = ds.ensure_dataset(self.tmp / "data", ds.Shape("mini", "tree", branching=2, depth=3, files_per_dir=30))
        odd = root / "dir_0" / "odd dir"
        odd.mkdir()
        for name in (b"tab\there", b"back\\slash", b"\xff\xfe not UTF-8", b".hidden", b"x" * 255):
            with open(os.fsencode(odd) + b"/" + name, "wb"):
                pass
        (root / "link").symlink_to(root / "dir_1")
        (root / "dir_1" / "link.jpg").symlink_to(root / "dir_1" / "dir_0")
        os.mkfifo(root / "fifo")
        find = tl.make_peer("find", shutil.which("find"))
        for name in ("all_files", "count_only"):
            with self.subTest(name):
                out = correctness.run_capture(floor.argv_for(str(root), SC[name]))
                self.assertEqual(correctness.output_count(floor, SC[name], out), manifest["files"] + 5)
        floor_paths = correctness.run_capture(floor.argv_for(str(root) + "/", SC["all_files"]))
        find_paths = correctness.run_capture(find.argv_for(str(root) + "/", SC["all_files"]))
        self.assertTrue(correctness.compare_paths(floor_paths, find_paths)["equal"])


class FloorWithoutGccTests(TempDirTest):
    def test_no_gcc_is_an_error_that_says_so(self):
        with mock.patch.dict(os.environ, {"PATH": str(self.tmp)}), self.assertRaises(RuntimeError) as caught:
            tl.build_floor(self.tmp / "floor", tl.FLOOR_SOURCE)
        self.assertIn("gcc is needed", str(caught.exception))


class VersionTests(unittest.TestCase):
    def test_version_numbers_from_real_version_lines(self):
        table = {
            "bfs 4.1.4": "4.1.4",
            "find (GNU findutils) 4.9.0": "4.9.0",
            "ripgrep 15.2.0 (rev 1d05b9d2a9)": "15.2.0",
            "fd 10.5.0": "10.5.0",
            "fdfind 8.6.0": "8.6.0",
            "hyperfine 1.15.0": "1.15.0",
            "pfind 0.1.0": "0.1.0",
            "Python 3.11.7 os.walk": "3.11.7",
            "mkfs.xfs version 6.1.0": "6.1.0",
            "mkfs.btrfs, part of btrfs-progs v6.2": "6.2",
            "mke2fs 1.47.0 (5-Feb-2023)": "1.47.0",
            "x 1.2.3-rc1": "1.2.3",
            "floor.c build sha256:95fa582ea992": None,
            "unknown": None,
            "": None,
            "v2": None,
        }
        for line, number in table.items():
            with self.subTest(line):
                self.assertEqual(tl.parse_version(line), number)

    def test_major_version(self):
        self.assertEqual(tl.major_version("bfs 4.1.4"), 4)
        self.assertEqual(tl.major_version("bfs 2.6.1"), 2)
        self.assertIsNone(tl.major_version("unknown"))

    def test_label_without_a_number_is_the_name(self):
        tool = tl.Tool("floor", tl.REFERENCE, "/x", "floor.c build sha256:abc", lambda r, s: [])
        self.assertEqual(tool.label, "floor")
        self.assertIsNone(tool.describe()["version_number"])


class TreeExpectationTests(unittest.TestCase):
    def test_no_manifest_means_no_expected_count(self):
        for sc in SC.values():
            self.assertIsNone(sc.expected(None))
