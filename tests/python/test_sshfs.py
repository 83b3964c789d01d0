"""--sshfs: the plan a dry run prints, the skip where sshfs or sshd is missing, the
table, and (where sshfs and sshd exist) the smallest real run: a tiny tree over
sshfs from the harness's own sshd, every file counted, nothing left behind."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.python.support import REPO, TempDirTest, quiet_start, quiet_stop, tiny_tree

from pfind_bench import cli, sshfs
from pfind_bench.latency_fs import Command

SSHFS_MISSING = sshfs.sshfs_unavailable()
# A build of pfind if there is one (scripts/test.sh builds the debug one first);
# without one the real run walks with find alone.
PFIND = next((p for p in (REPO / "target" / b / "pfind" for b in ("release", "debug")) if p.exists()), None)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


class PlanTest(unittest.TestCase):
    def test_a_dry_run_prints_the_mount_and_commands_and_touches_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "report.json")
            argv = ["--pfind", "/bin/true", "--latency-fs", tmp, "--sshfs", "--latency-delays", "--latency-threads", "64", "--tools", "find", "--output", report, "--dry-run"]
            code, out, _ = run_cli(argv)
            self.assertEqual(code, 0)
            # sshfs alone: no latencyfs line.
            self.assertNotIn("latency-fs:", out)
            (line,) = [line for line in out.splitlines() if line.startswith("sshfs:")]
            self.assertIn(f"`sshfs {sshfs.user()}@127.0.0.1:{tmp} MOUNTPOINT -f -F /dev/null -o port=PORT,IdentityFile=TMP/user_key,", line)
            self.assertIn("UserKnownHostsFile=TMP/known_hosts,StrictHostKeyChecking=yes,BatchMode=yes", line)
            self.assertTrue(line.endswith("3 runs each, a fresh mount per run: pfind default, pfind -j 64, find"), line)
            self.assertFalse(os.path.exists(report))
            self.assertEqual(os.listdir(tmp), [])

    def test_beside_the_latency_delays(self):
        with tempfile.TemporaryDirectory() as tmp:
            code, out, _ = run_cli(["--pfind", "/bin/true", "--latency-fs", tmp, "--sshfs", "--latency-delays", "1", "--tools", "find", "--dry-run"])
            self.assertEqual(code, 0)
            self.assertIn("latency-fs: ", out)
            self.assertIn("D = 1 ms", out)
            self.assertIn("sshfs: ", out)

    def test_sshfs_needs_a_source_and_no_delay_needs_sshfs(self):
        with tempfile.TemporaryDirectory() as tmp:
            for argv in (["--sshfs", "--dry-run"], ["--latency-fs", tmp, "--latency-delays", "--dry-run"]):
                with self.subTest(argv=argv), self.assertRaises(SystemExit):
                    run_cli(argv)

    def test_the_server_takes_keys_only_from_its_directory_and_listens_on_loopback(self):
        config = sshfs.sshd_config("/w", 2222, "alice").splitlines()
        for line in ("ListenAddress 127.0.0.1", "Port 2222", "HostKey /w/host_key", "AuthorizedKeysFile /w/authorized_keys", "AllowUsers alice", "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password"):
            self.assertIn(line, config)

    def test_the_table_says_when_readdir_gives_no_types(self):
        entry = {"tool": "pfind", "ms": [10.0], "median_ms": 10.0, "requests": [None], "lines": [3], "exit": [0], "correct": True}
        section = {"readdir_types": False, "results": {"pfind default": entry}}
        text = sshfs.table(section)
        self.assertIn("DT_UNKNOWN", text.splitlines()[0])
        # sshfs counts no requests: no "(0)" in the cell, and no bound row.
        self.assertIn("| pfind default | 10 |", text)
        self.assertNotIn("lower bound", text)
        self.assertTrue(sshfs.all_correct(section))
        entry["correct"] = False
        self.assertIn("WRONG COUNT", sshfs.table(section))
        self.assertFalse(sshfs.all_correct(section))

    def test_dirent_types_reads_d_type(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "d"))
            Path(tmp, "f").write_text("")
            self.assertEqual(sorted(sshfs.dirent_types(tmp)), [4, 8])  # DT_DIR, DT_REG


class MissingToolsTest(TempDirTest):
    """Where sshfs or sshd is missing, the sshfs part is skipped with one line
    naming what is missing; nothing is installed.  Simulated by a PATH holding
    stand-ins for the other programs only."""

    def setUp(self):
        super().setUp()
        for name in ("ssh", "ssh-keygen", "fusermount3"):
            path = self.tmp / name
            path.write_text("#!/bin/sh\nexit 1\n")
            path.chmod(stat.S_IRWXU)
        patches = [
            mock.patch.dict(os.environ, {"PATH": str(self.tmp)}),
            mock.patch.object(sshfs, "SSHD_ALSO", ()),
            # /dev/fuse is the kernel's: taken as there, whatever this machine has.
            mock.patch.object(sshfs, "fuse_mount_unavailable", lambda: None),
        ]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)

    def test_what_is_missing_is_named(self):
        self.assertEqual(sshfs.sshfs_unavailable(), "sshfs and sshd not found (apt-get install sshfs openssh-server)")

    def test_a_dry_run_says_it_would_skip(self):
        code, out, _ = run_cli(["--pfind", "/bin/true", "--latency-fs", str(self.tmp), "--sshfs", "--latency-delays", "--tools", "find", "--dry-run"])
        self.assertEqual(code, 0)
        self.assertIn("skipped sshfs: sshfs and sshd not found (apt-get install sshfs openssh-server)", out)

    def test_a_run_of_sshfs_alone_stops_with_the_message(self):
        report = self.tmp / "report.json"
        code, out, err = run_cli(["--pfind", "/bin/true", "--latency-fs", str(self.tmp), "--sshfs", "--latency-delays", "--tools", "find", "--output", str(report)])
        self.assertEqual(code, 2)
        self.assertEqual(err.strip(), "benchmark.py: --sshfs: skipped: sshfs and sshd not found (apt-get install sshfs openssh-server)")
        self.assertFalse(report.exists())


@unittest.skipIf(SSHFS_MISSING, f"no sshfs over localhost here: {SSHFS_MISSING}")
class RealRunTest(TempDirTest):
    """The smallest real run: one pfind command (find where pfind is not built)
    once on a fresh sshfs mount; every file counted, and the sshd, its keys and
    the mounts gone after."""

    def setUp(self):
        super().setUp()
        quiet_start()
        self.addCleanup(quiet_stop)
        self.src = tiny_tree(self.tmp / "src")

    def assert_gone(self, server: sshfs.SshServer):
        self.assertIsNotNone(server.proc.poll(), "sshd still running")
        self.assertFalse(os.path.exists(server.workdir), "sshd's directory left behind")
        with open("/proc/mounts") as mounts:
            self.assertFalse([line for line in mounts if "pfind-sshfs-" in line])

    def test_every_file_through_sshfs(self):
        if PFIND:
            cmds = [Command("pfind default", "pfind", lambda root: [str(PFIND), root])]
        else:
            cmds = [Command("find", "find", lambda root: [shutil.which("find"), root, "-type", "f"])]
        servers = []
        section = sshfs.run_sshfs(self.src, cmds, 1, new_server=lambda: servers.append(sshfs.SshServer()) or servers[-1])
        (entry,) = section["results"].values()
        self.assertEqual(entry["lines"], [3])
        self.assertEqual(entry["exit"], [0])
        self.assertTrue(sshfs.all_correct(section))
        self.assertEqual(section["files"], 3)
        self.assertIn(section["readdir_types"], (True, False))
        self.assert_gone(servers[0])

    def test_a_server_that_does_not_start_says_why_and_leaves_nothing(self):
        before = set(Path(tempfile.gettempdir()).glob("pfind-sshd-*"))
        privsep = os.path.isdir(sshfs.PRIVSEP_DIR)
        with mock.patch.object(sshfs, "sshd_config", lambda *args: "NoSuchOption yes\n"):
            with self.assertRaises(RuntimeError) as caught:
                with sshfs.SshServer():
                    pass
        self.assertIn("sshd did not start", str(caught.exception))
        self.assertIn("NoSuchOption", str(caught.exception))
        self.assertEqual(set(Path(tempfile.gettempdir()).glob("pfind-sshd-*")), before)
        # Run as root, /run/sshd is made if missing and removed again.
        self.assertEqual(os.path.isdir(sshfs.PRIVSEP_DIR), privsep)

    def test_the_server_is_stopped_and_removed_on_error(self):
        with self.assertRaises(RuntimeError) as caught:
            with sshfs.SshServer() as server:
                with server.mount(str(self.tmp / "missing")):
                    pass
        self.assertIn("sshfs did not mount", str(caught.exception))
        self.assert_gone(server)


if __name__ == "__main__":
    unittest.main()
