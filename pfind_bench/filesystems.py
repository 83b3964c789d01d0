"""The filesystems the datasets are measured on (--fs): which can be used here,
and creating, mounting and always unmounting the ones the harness makes itself.

The data directory (--data-dir, /tmp/pfind_ds by default as root, see defaults.py) is measured on whatever
filesystem holds it; naming that filesystem in --fs means the data directory
itself.  Every other filesystem gets a sparse image file under --fs-dir
(/var/tmp/pfind_fs by default), formatted once and loop-mounted at
``FS_DIR/mnt/FS`` for the run; tmpfs is a fresh memory mount each run.

Images persist between runs: the datasets generated on them are reused exactly as
in the data directory (ensure_dataset checks each tree's manifest), so only the
first run pays for mkfs and generation.  A marker file written after mkfs succeeds
records how the image was made; an image without a matching marker (an
interrupted mkfs, another mkfs version or option set) is recreated, and so is one
that no longer mounts.  --fs-fresh recreates them all.

Direct I/O (--first-path).  ``place_for(fs, direct_io=True)`` mounts an image of
its own, ``FS-direct.img``, through a loop device attached with `losetup
--direct-io=on`, which reads the image file past the page cache; ``remount``
unmounts it and mounts the same device again, so nothing of the filesystem stays
cached between two cold runs.

Cleanup.  Everything mounted is unmounted when the run ends, however it ends: a
normal exit or an exception unwinds through ``Mounter.close`` (a context
manager), Ctrl-C arrives as KeyboardInterrupt, SIGTERM and SIGHUP are turned into
SystemExit for the duration so the same path runs, and an atexit hook catches
anything left.  ``mount -o loop`` sets up the loop device with autoclear, so the
unmount frees it; any loop device still bound to an image afterwards (the
direct-I/O ones, or one whose mount failed) is detached.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .common import log, read_json, run, tool_version, which, write_json_atomic
from .machine import mount_of

FS_TYPES = ("ext4", "xfs", "btrfs", "tmpfs")
# Filesystems that live in memory: dropping caches cannot make them cold.
MEMORY_FILESYSTEMS = ("tmpfs", "ramfs")
DEFAULT_FS_DIR = Path("/var/tmp/pfind_fs")
DEFAULT_IMAGE_GIB = 8
TMPFS_SOURCE = "pfind-bench"  # the "device" name of our tmpfs mounts in /proc/mounts


@dataclass(frozen=True)
class FsKind:
    """How to make one filesystem type."""

    name: str
    # mkfs argv without the image path; empty for tmpfs (nothing to format).
    mkfs: tuple[str, ...] = ()
    package: str = ""
    version_argv: tuple[str, ...] = ()


FS_KINDS = {
    # -i 4096: one inode per 4 KiB, enough for every dataset (1.2M files) in 8 GiB
    # (the default, one per 16 KiB, is not).  lazy_*_init=0: zero the inode tables
    # and journal now, not from a kernel thread in the background of the timings.
    "ext4": FsKind(
        "ext4", ("mkfs.ext4", "-q", "-F", "-i", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0"), "e2fsprogs", ("mke2fs", "-V")
    ),
    "xfs": FsKind("xfs", ("mkfs.xfs", "-q", "-f"), "xfsprogs", ("mkfs.xfs", "-V")),
    "btrfs": FsKind("btrfs", ("mkfs.btrfs", "-q", "-f"), "btrfs-progs", ("mkfs.btrfs", "--version")),
    "tmpfs": FsKind("tmpfs"),
}


def has_cold_state(fs: str) -> bool:
    return fs not in MEMORY_FILESYSTEMS


# Where mkfs lives, which a non-root PATH often lacks.
SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")


def find_mkfs(name: str) -> Optional[str]:
    return which(name, also=SBIN_DIRS)


def fs_unavailable(fs: str, euid: int, which: Callable[[str], Optional[str]] = find_mkfs, loop_control: str = "/dev/loop-control") -> Optional[str]:
    """Why the harness cannot make a ``fs`` filesystem here, or None."""
    kind = FS_KINDS[fs]
    if euid != 0:
        return f"needs root to make and mount it (running as uid {euid})"
    if kind.mkfs and which(kind.mkfs[0]) is None:
        return f"{kind.mkfs[0]} not found (apt-get install {kind.package})"
    if kind.mkfs and not os.path.exists(loop_control):
        return f"no loop devices ({loop_control} is missing)"
    return None


@dataclass
class Place:
    """A filesystem the datasets are generated and timed on."""

    fs: str
    data_dir: Path
    home: bool  # the --data-dir itself, not a mount the harness made
    info: dict = field(default_factory=dict)  # how it was made and mounted, for the report

    @property
    def cold(self) -> bool:
        return has_cold_state(self.fs)


def home_place(data_dir: Path, fs: str) -> Place:
    mount = mount_of(data_dir)
    info = {"data_dir": str(data_dir), "image": None}
    if mount:
        info.update(device=mount.device, mountpoint=mount.mountpoint, mount_options=mount.options)
    return Place(fs, data_dir, True, info)


class FsError(RuntimeError):
    pass


def run_setup(argv: list[str]) -> str:
    """Run a setup command and return its output; a failure raises FsError naming
    the whole command."""
    return run(argv, label=shlex.join(argv), error=FsError).stdout.decode(errors="replace")


class Mounter:
    """Makes and mounts the --fs filesystems under ``fs_dir``; a context manager
    whose exit unmounts everything it mounted (see the module comment).

    ``run`` executes a setup command (mkfs, mount, umount, losetup), returns its
    output and raises FsError on failure; ``is_mounted`` tells whether a path is a mount point.  Both
    are parameters so the sequence can be tested without root.
    """

    def __init__(
        self,
        fs_dir: Path = DEFAULT_FS_DIR,
        image_gib: int = DEFAULT_IMAGE_GIB,
        fresh: bool = False,
        run: Callable[[list[str]], Optional[str]] = run_setup,
        is_mounted: Callable[[str], bool] = os.path.ismount,
        version: Callable[[list[str]], str] = tool_version,
    ):
        self.fs_dir = Path(fs_dir)
        self.image_bytes = image_gib << 30
        self.fresh = fresh
        self.run = run
        self.is_mounted = is_mounted
        self.version = version
        self.mounted: list[tuple[str, Path, Optional[Path]]] = []  # (fs, mount point, image)
        self._lock = None
        self._old_handlers: dict[int, object] = {}

    # -- lifetime -----------------------------------------------------------

    def __enter__(self) -> "Mounter":
        self.fs_dir.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.fs_dir / ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise FsError(f"another benchmark.py is using {self.fs_dir} (its .lock is held)")
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                self._old_handlers[sig] = signal.signal(sig, _exit_on_signal)
            except ValueError:  # not the main thread: leave signals alone
                pass
        atexit.register(self.close)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Unmount everything, newest first; never raises (it runs while unwinding)."""
        while self.mounted:
            fs, mnt, image = self.mounted.pop()
            try:
                self._unmount(mnt, image)
                log(f"unmounted {fs} at {mnt}")
            except FsError as e:
                log(f"could not unmount {mnt}: {e}; unmount it by hand (umount -l {mnt})")
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        self._old_handlers.clear()
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        atexit.unregister(self.close)

    # -- making and mounting ---------------------------------------------------

    def image_path(self, key: str) -> Path:
        """The image of ``key``: a filesystem type, or FS-direct (see place_for)."""
        return self.fs_dir / f"{key}.img"

    def mount_point(self, key: str) -> Path:
        return self.fs_dir / "mnt" / key

    def _marker(self, fs: str) -> dict:
        """What the image must have been made with to be reused."""
        kind = FS_KINDS[fs]
        return {"mkfs": list(kind.mkfs), "mkfs_version": self.version(list(kind.version_argv)), "size_bytes": self.image_bytes}

    def _make_image(self, fs: str, marker: dict, image: Path) -> None:
        marker_path = image.with_suffix(".img.json")
        marker_path.unlink(missing_ok=True)  # first, so a half-made image is never trusted
        image.unlink(missing_ok=True)
        with open(image, "wb") as f:
            f.truncate(self.image_bytes)  # sparse: only written blocks take disk space
        log(f"making {fs} on {image} ({self.image_bytes >> 30} GiB sparse)")
        self.run(list(FS_KINDS[fs].mkfs) + [str(image)])
        write_json_atomic(marker_path, marker)

    def place_for(self, fs: str, *, direct_io: bool = False) -> Place:
        """Mount ``fs`` (making its image if needed) and return where its datasets go.

        ``direct_io`` gives the filesystem an image of its own (``FS-direct.img``,
        mounted at ``mnt/FS-direct``) on a loop device attached with `losetup
        --direct-io=on`: the loop device then reads the image file with O_DIRECT,
        past the page cache of the filesystem that holds it, so once the mount is
        cold every read waits on the disk beneath (see first_path.py and remount)."""
        if direct_io and not FS_KINDS[fs].mkfs:
            raise FsError(f"{fs} has no image to attach with direct I/O")
        key = f"{fs}-direct" if direct_io else fs
        mnt = self.mount_point(key)
        mnt.mkdir(parents=True, exist_ok=True)
        if self.is_mounted(str(mnt)):
            log(f"{mnt} is still mounted from an earlier run; unmounting it first")
            self._unmount(mnt, self.image_path(key) if FS_KINDS[fs].mkfs else None)
        info: dict = {"data_dir": str(mnt)}
        if not FS_KINDS[fs].mkfs:
            self.run(["mount", "-t", fs, "-o", "size=50%,mode=0755", TMPFS_SOURCE, str(mnt)])
            self.mounted.append((fs, mnt, None))
            info["image"] = None
        else:
            image = self.image_path(key)
            marker = self._marker(fs)
            made = False
            if self.fresh or not image.exists() or read_json(image.with_suffix(".img.json")) != marker:
                self._make_image(fs, marker, image)
                made = True
            try:
                self._mount_image(fs, image, mnt, direct_io, info)
            except FsError as e:
                if made:
                    raise
                log(f"{image} did not mount ({e}); making it again")
                self._make_image(fs, marker, image)
                made = True
                self._mount_image(fs, image, mnt, direct_io, info)
            self.mounted.append((key, mnt, image))
            info.update(image=str(image), image_bytes=self.image_bytes, mkfs=shlex.join(marker["mkfs"]), mkfs_version=marker["mkfs_version"], image_reused=not made)
        mount = mount_of(mnt)
        if mount and mount.mountpoint == str(mnt):
            info.update(device=mount.device, mountpoint=mount.mountpoint, mount_options=mount.options)
        return Place(fs, mnt, False, info)

    def _mount_image(self, fs: str, image: Path, mnt: Path, direct_io: bool, info: dict) -> None:
        """`mount -o loop` (the loop device goes with the unmount), or with direct I/O
        an explicit `losetup --direct-io=on` and a mount of that device, which stays
        attached across remounts until close() detaches it."""
        if not direct_io:
            self.run(["mount", "-o", "loop", str(image), str(mnt)])
            return
        dev = (self.run(["losetup", "--direct-io=on", "--find", "--show", str(image)]) or "").strip()
        if not dev:
            raise FsError(f"losetup printed no loop device for {image}")
        try:
            self.run(["mount", "-t", fs, dev, str(mnt)])
        except BaseException:
            try:
                self.run(["losetup", "-d", dev])
            except FsError as e:
                log(f"could not detach {dev}: {e}; detach it by hand (losetup -d {dev})")
            raise
        info.update(loop_device=dev, direct_io=loop_direct_io(dev))

    def remount(self, place: Place, while_unmounted: Callable[[], None] = lambda: None) -> None:
        """Unmount a direct-I/O ``place`` and mount its loop device again, calling
        ``while_unmounted`` in between (to drop the page cache): the filesystem's
        inodes, dentries and metadata buffers go with the unmount, so the next walk
        reads every directory from the disk."""
        self._umount(place.data_dir)
        while_unmounted()
        self.run(["mount", "-t", place.fs, place.info["loop_device"], str(place.data_dir)])

    def _umount(self, mnt: Path) -> None:
        """umount, retried while a just-killed walker still holds the mount, then lazily."""
        for attempt in range(5):
            try:
                self.run(["umount", str(mnt)])
                return
            except FsError:
                if not self.is_mounted(str(mnt)):
                    return
                if attempt == 4:
                    self.run(["umount", "-l", str(mnt)])
                else:
                    time.sleep(0.2 * (attempt + 1))

    def _unmount(self, mnt: Path, image: Optional[Path]) -> None:
        """Unmount, then detach any loop device still bound to the image."""
        self._umount(mnt)
        if image is not None:
            for dev in loop_devices_of(image):
                self.run(["losetup", "-d", dev])


def loop_direct_io(dev: str) -> Optional[bool]:
    """Whether loop device ``dev`` does direct I/O (/sys/block/loopN/loop/dio); the
    kernel may have refused it and fallen back to buffered I/O.  None if unknown."""
    try:
        with open(f"/sys/block/{os.path.basename(dev)}/loop/dio") as f:
            return f.read().strip() == "1"
    except OSError:
        return None


def loop_devices_of(image: Path) -> list[str]:
    """Loop devices still bound to ``image`` (`losetup -j`: "/dev/loop0: [..]:.. (path)")."""
    try:
        out = subprocess.run(["losetup", "-j", str(image)], capture_output=True, text=True).stdout
    except OSError:
        return []
    return [line.split(":", 1)[0] for line in out.splitlines() if line.strip()]


def _exit_on_signal(signum, _frame):
    """SIGTERM/SIGHUP as SystemExit, so `finally` blocks and context managers run."""
    raise SystemExit(128 + signum)
