"""Tests of pfind_bench.filesystems without root or mounts: the availability checks,
and the Mounter's sequence of setup commands (recorded by a fake runner), image
reuse, and unmounting on every way out (exception, SIGTERM)."""

from __future__ import annotations

import json
import os
import signal
import unittest
from unittest import mock

from tests.python.support import TempDirTest, quiet_start, quiet_stop
from pfind_bench import filesystems as fsm

setUpModule, tearDownModule = quiet_start, quiet_stop


class AvailabilityTests(TempDirTest):
    def test_not_root(self):
        for fs in fsm.FS_TYPES:
            with self.subTest(fs):
                self.assertEqual(fsm.fs_unavailable(fs, 1000, which=lambda n: "/sbin/" + n), "needs root to make and mount it (running as uid 1000)")

    def test_missing_mkfs_names_the_package(self):
        why = fsm.fs_unavailable("xfs", 0, which=lambda n: None, loop_control=str(self.tmp))
        self.assertEqual(why, "mkfs.xfs not found (apt-get install xfsprogs)")
        self.assertIn("btrfs-progs", fsm.fs_unavailable("btrfs", 0, which=lambda n: None))

    def test_missing_loop_devices(self):
        why = fsm.fs_unavailable("ext4", 0, which=lambda n: "/sbin/" + n, loop_control=str(self.tmp / "loop-control"))
        self.assertIn("no loop devices", why)

    def test_tmpfs_needs_only_root(self):
        self.assertIsNone(fsm.fs_unavailable("tmpfs", 0, which=lambda n: None, loop_control=str(self.tmp / "none")))

    def test_available(self):
        self.assertIsNone(fsm.fs_unavailable("btrfs", 0, which=lambda n: "/sbin/" + n, loop_control=str(self.tmp)))

    def test_cold_state(self):
        self.assertEqual([fs for fs in fsm.FS_TYPES if fsm.has_cold_state(fs)], ["ext4", "xfs", "btrfs"])


class FakeSystem:
    """Records setup commands and keeps a set of mounted paths, like the kernel would."""

    def __init__(self, fail=None):
        self.calls: list[list[str]] = []
        self.mounted: set[str] = set()
        self.fail = fail or (lambda argv: None)

    def run(self, argv: list[str]) -> None:
        self.calls.append(argv)
        why = self.fail(argv)
        if why:
            raise fsm.FsError(why)
        if argv[0] == "mount":
            self.mounted.add(argv[-1])
        elif argv[0] == "umount":
            self.mounted.discard(argv[-1])

    def is_mounted(self, path: str) -> bool:
        return path in self.mounted

    def commands(self) -> list[str]:
        return [a[0] if a[0] != "mount" else "mount " + ("loop" if "loop" in a else a[2]) for a in self.calls]


class MounterTests(TempDirTest):
    def mounter(self, system: FakeSystem, **kw) -> fsm.Mounter:
        return fsm.Mounter(self.tmp / "fs", image_gib=1, run=system.run, is_mounted=system.is_mounted, version=lambda argv: "mkfs 1.0", **kw)

    def test_make_mount_and_unmount_in_reverse(self):
        system = FakeSystem()
        with self.mounter(system) as m:
            xfs = m.place_for("xfs")
            tmpfs = m.place_for("tmpfs")
            self.assertEqual(system.mounted, {str(self.tmp / "fs/mnt/xfs"), str(self.tmp / "fs/mnt/tmpfs")})
        self.assertEqual(system.commands(), ["mkfs.xfs", "mount loop", "mount tmpfs", "umount", "umount"])
        self.assertEqual([c[-1] for c in system.calls[-2:]], [str(self.tmp / "fs/mnt/tmpfs"), str(self.tmp / "fs/mnt/xfs")])
        self.assertEqual(system.mounted, set())
        image = self.tmp / "fs/xfs.img"
        self.assertEqual(system.calls[0], ["mkfs.xfs", "-q", "-f", str(image)])
        self.assertEqual(image.stat().st_size, 1 << 30)
        self.assertLess(image.stat().st_blocks * 512, 1 << 20, "the image is sparse")
        self.assertEqual((xfs.fs, xfs.data_dir, xfs.home, xfs.cold), ("xfs", self.tmp / "fs/mnt/xfs", False, True))
        self.assertFalse(tmpfs.cold)
        self.assertEqual(xfs.info["image"], str(image))
        self.assertFalse(xfs.info["image_reused"])

    def test_an_image_is_reused_while_its_marker_matches(self):
        system = FakeSystem()
        with self.mounter(system) as m:
            m.place_for("btrfs")
        with self.mounter(system) as m:
            self.assertTrue(m.place_for("btrfs").info["image_reused"])
        self.assertEqual(system.commands(), ["mkfs.btrfs", "mount loop", "umount", "mount loop", "umount"])

    def test_fresh_or_a_changed_marker_makes_the_image_again(self):
        system = FakeSystem()
        with self.mounter(system) as m:
            m.place_for("ext4")
        with self.mounter(system, fresh=True) as m:
            m.place_for("ext4")
        marker = self.tmp / "fs/ext4.img.json"
        data = json.loads(marker.read_text())
        data["mkfs_version"] = "mkfs 0.9"
        marker.write_text(json.dumps(data))
        with self.mounter(system) as m:
            m.place_for("ext4")
        self.assertEqual([c for c in system.commands() if c.startswith("mkfs")], ["mkfs.ext4"] * 3)

    def test_an_interrupted_mkfs_is_never_trusted(self):
        system = FakeSystem(fail=lambda argv: "killed" if argv[0].startswith("mkfs") else None)
        with self.assertRaises(fsm.FsError), self.mounter(system) as m:
            m.place_for("xfs")
        self.assertFalse((self.tmp / "fs/xfs.img.json").exists())
        system.fail = lambda argv: None
        with self.mounter(system) as m:
            self.assertFalse(m.place_for("xfs").info["image_reused"])

    def test_an_image_that_no_longer_mounts_is_made_again(self):
        system = FakeSystem()
        with self.mounter(system) as m:
            m.place_for("xfs")
        failures = iter(["bad superblock"])
        system.fail = lambda argv: next(failures, None) if argv[0] == "mount" else None
        with self.mounter(system) as m:
            self.assertFalse(m.place_for("xfs").info["image_reused"])
        self.assertEqual(system.commands(), ["mkfs.xfs", "mount loop", "umount", "mount loop", "mkfs.xfs", "mount loop", "umount"])

    def test_a_mount_left_by_a_killed_run_is_unmounted_first(self):
        system = FakeSystem()
        system.mounted.add(str(self.tmp / "fs/mnt/tmpfs"))
        with self.mounter(system) as m:
            m.place_for("tmpfs")
        self.assertEqual(system.commands(), ["umount", "mount tmpfs", "umount"])

    def test_an_exception_still_unmounts(self):
        system = FakeSystem()
        with self.assertRaises(KeyboardInterrupt):
            with self.mounter(system) as m:
                m.place_for("tmpfs")
                raise KeyboardInterrupt
        self.assertEqual(system.mounted, set())

    def test_sigterm_unwinds_and_unmounts(self):
        system = FakeSystem()
        before = signal.getsignal(signal.SIGTERM)
        with self.assertRaises(SystemExit) as caught:
            with self.mounter(system) as m:
                m.place_for("tmpfs")
                os.kill(os.getpid(), signal.SIGTERM)
                self.fail("SIGTERM should have raised SystemExit")
        self.assertEqual(caught.exception.code, 128 + signal.SIGTERM)
        self.assertEqual(system.mounted, set())
        self.assertEqual(signal.getsignal(signal.SIGTERM), before, "the previous handler is restored")

    def test_a_busy_mount_is_retried_then_detached_lazily(self):
        system = FakeSystem()
        with mock.patch("time.sleep"):
            with self.mounter(system) as m:
                m.place_for("tmpfs")
                system.fail = lambda argv: "target is busy" if argv == ["umount", str(self.tmp / "fs/mnt/tmpfs")] else None
        self.assertEqual(system.commands()[-6:], ["umount"] * 6)
        self.assertEqual(system.calls[-1], ["umount", "-l", str(self.tmp / "fs/mnt/tmpfs")])

    def test_a_second_harness_on_the_same_directory_is_refused(self):
        with self.mounter(FakeSystem()):
            with self.assertRaises(fsm.FsError) as caught:
                with self.mounter(FakeSystem()):
                    pass
        self.assertIn("another benchmark.py", str(caught.exception))


class LoopSystem(FakeSystem):
    """A FakeSystem whose losetup --show attaches /dev/loop7."""

    def run(self, argv: list[str]):
        super().run(argv)
        return "/dev/loop7\n" if argv[0] == "losetup" and "--show" in argv else None


class DirectIoTests(TempDirTest):
    def mounter(self, system: FakeSystem) -> fsm.Mounter:
        return fsm.Mounter(self.tmp / "fs", image_gib=1, run=system.run, is_mounted=system.is_mounted, version=lambda argv: "mkfs 1.0")

    def test_an_image_of_its_own_on_a_direct_io_loop_device(self):
        system = LoopSystem()
        mnt = str(self.tmp / "fs/mnt/xfs-direct")
        image = str(self.tmp / "fs/xfs-direct.img")
        with self.mounter(system) as m:
            place = m.place_for("xfs", direct_io=True)
            self.assertEqual(system.mounted, {mnt})
            unmounted = []
            m.remount(place, lambda: unmounted.append(system.is_mounted(mnt)))
            self.assertEqual(unmounted, [False], "the caches are dropped while it is unmounted")
            self.assertEqual(system.mounted, {mnt})
        self.assertEqual(
            system.calls,
            [
                ["mkfs.xfs", "-q", "-f", image],
                ["losetup", "--direct-io=on", "--find", "--show", image],
                ["mount", "-t", "xfs", "/dev/loop7", mnt],
                ["umount", mnt],
                ["mount", "-t", "xfs", "/dev/loop7", mnt],
                ["umount", mnt],
            ],
        )
        self.assertEqual((place.data_dir, place.info["loop_device"], place.info["image"]), (self.tmp / "fs/mnt/xfs-direct", "/dev/loop7", image))
        self.assertFalse((self.tmp / "fs/xfs.img").exists(), "the --fs xfs image is not touched")

    def test_a_device_whose_mount_fails_is_detached(self):
        system = LoopSystem(fail=lambda argv: "bad superblock" if argv[0] == "mount" else None)
        with self.assertRaises(fsm.FsError), self.mounter(system) as m:
            m.place_for("btrfs", direct_io=True)
        self.assertEqual(system.calls[-1], ["losetup", "-d", "/dev/loop7"])

    def test_tmpfs_has_no_image(self):
        with self.assertRaises(fsm.FsError), self.mounter(LoopSystem()) as m:
            m.place_for("tmpfs", direct_io=True)


if __name__ == "__main__":
    unittest.main()
