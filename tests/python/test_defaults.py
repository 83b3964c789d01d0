"""Tests of pfind_bench.defaults (issue 51): the pfind a clone without a release
build times is the one on PATH, and the harness says which; the data directory is
per user; a data directory that cannot be written is one line, not a traceback,
checked as another user (root drops to nobody through setpriv)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, TempDirTest
from pfind_bench import defaults

NOBODY = 65534


def stub(path: Path, body: str = "exit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


class DefaultsTests(TempDirTest):
    def test_the_data_directory_is_the_specs_for_root_and_per_user_otherwise(self):
        self.assertEqual(defaults.default_data_dir(0), Path("/tmp/pfind_ds"))
        with mock.patch("pwd.getpwuid", return_value=mock.Mock(pw_name="ada")):
            self.assertEqual(defaults.default_data_dir(1000), Path("/tmp/pfind_ds-ada"))
        with mock.patch("pwd.getpwuid", side_effect=KeyError(4242)):
            self.assertEqual(defaults.default_data_dir(4242), Path("/tmp/pfind_ds-4242"))

    def test_the_build_tree_first_then_path_and_which_is_said(self):
        clone, bin_dir = self.tmp / "clone", self.tmp / "bin"
        installed = stub(bin_dir / "pfind")
        with mock.patch.dict(os.environ, PATH=str(bin_dir)):
            path, line = defaults.default_binary("pfind", clone)
            self.assertEqual(path, str(installed))
            self.assertIn("on PATH; this clone has no target/release/pfind", line)
            built = stub(clone / "target" / "release" / "pfind")
            path, line = defaults.default_binary("pfind", clone)
            self.assertEqual(path, str(built))
            self.assertIn("this clone's release build", line)
        with mock.patch.dict(os.environ, PATH=str(self.tmp / "empty")):
            self.assertEqual(defaults.default_binary("pfind-mpi", clone)[0], None)

    def test_a_missing_data_directory_under_a_writable_one_is_fine(self):
        self.assertIsNone(defaults.unwritable_data_dir(self.tmp / "a" / "b"))
        (self.tmp / "file").write_text("")
        self.assertIn("not a directory", defaults.unwritable_data_dir(self.tmp / "file" / "ds"))


class Io500ScriptTests(TempDirTest):
    def test_the_pfind_on_path_is_run_and_said_on_stderr_only(self):
        bin_dir = self.tmp / "bin"
        # What pfind -c --stats prints: the count, then its statistics on stderr.
        installed = stub(bin_dir / "pfind", 'echo 3; echo "7 entries examined" >&2\n')
        env = {k: v for k, v in os.environ.items() if k not in ("PFIND", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID")}
        env["PATH"] = f"{bin_dir}:{env['PATH']}"
        argv = ["bash", str(REPO / "scripts" / "io500-find.sh"), str(self.tmp), "-newer", str(installed), "-size", "3901c", "-name", "*x*"]
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        self.assertEqual((done.returncode, done.stdout), (0, "MATCHED 3/7\n"), done.stderr)
        self.assertEqual(done.stderr, f"io500-find.sh: pfind: {installed} (on PATH)\n")
        # Another rank of pfind-mpi says nothing.
        done = subprocess.run(argv, env=dict(env, OMPI_COMM_WORLD_RANK="1"), capture_output=True, text=True)
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, "", ""))


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root and setpriv (util-linux) to run as nobody")
class AnotherUserTests(TempDirTest):
    """benchmark.py from a copy of the clone with no target/ (the README's install
    puts pfind on PATH only), run as nobody after root made the data directory."""

    def setUp(self):
        super().setUp()
        self.tmp.chmod(0o755)
        self.clone = self.tmp / "clone"
        self.clone.mkdir()
        shutil.copy(REPO / "benchmark.py", self.clone)
        shutil.copytree(REPO / "pfind_bench", self.clone / "pfind_bench", ignore=shutil.ignore_patterns("__pycache__"))
        self.bin = self.tmp / "bin"
        stub(self.bin / "pfind", 'echo "pfind 0.1.0"\n')
        stub(self.bin / "hyperfine")
        # Root's data directory: made by root, 0755, as a first run as root leaves it.
        self.roots = self.tmp / "pfind_ds"
        self.roots.mkdir()
        self.roots.chmod(0o755)

    def as_nobody(self, *args: str) -> subprocess.CompletedProcess:
        env = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": str(self.tmp), "PYTHONDONTWRITEBYTECODE": "1"}
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "benchmark.py", *args]
        return subprocess.run(command, cwd=self.clone, env=env, capture_output=True, text=True)

    def test_the_pfind_on_path_is_timed_and_said(self):
        done = self.as_nobody("--quick", "--dry-run", "--output", str(self.tmp / "report.json"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr.splitlines()[0], f"benchmark.py: pfind: {self.bin / 'pfind'} (on PATH; this clone has no target/release/pfind)")

    def test_a_data_directory_another_user_made_is_one_line(self):
        done = self.as_nobody("--quick", "--data-dir", str(self.roots / "sub"), "--tools", "find", "--output", str(self.tmp / "report.json"))
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertEqual(
            done.stderr.splitlines()[-1],
            f"benchmark.py: {self.roots / 'sub'}: cannot write in {self.roots} (owned by root); give a directory of your own with --data-dir DIR",
        )


if __name__ == "__main__":
    unittest.main()
