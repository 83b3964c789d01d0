"""What the numbers were measured on: CPU, memory, kernel, the filesystem and mount
of each path, and the harness's own git revision."""

from __future__ import annotations

import os
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "Processor", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _unescape_mount_field(field: str) -> str:
    """/proc/mounts writes space, tab, newline and backslash as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


@dataclass(frozen=True)
class Mount:
    """One /proc/mounts entry."""

    device: str
    mountpoint: str
    fstype: str
    options: str


def mount_of(path: Path, mounts_file: str = "/proc/mounts") -> Optional[Mount]:
    """The mount holding ``path``: the longest matching mount point (the last one
    listed wins a tie, as the kernel stacks later mounts on top)."""
    real = os.path.realpath(path)
    best: Optional[Mount] = None
    try:
        with open(mounts_file) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 4:
                    continue
                mnt = _unescape_mount_field(parts[1])
                inside = real == mnt or real.startswith(mnt.rstrip("/") + "/")
                if inside and (best is None or len(mnt) >= len(best.mountpoint)):
                    best = Mount(_unescape_mount_field(parts[0]), mnt, parts[2], parts[3])
    except OSError:
        pass
    return best


def filesystem_of(path: Path) -> str:
    """Filesystem type of ``path``: from /proc/mounts (which names ext4 as ext4,
    unlike `stat -f`), falling back to `stat -f -c %T`."""
    mount = mount_of(path)
    if mount:
        return mount.fstype
    try:
        return subprocess.run(["stat", "-f", "-c", "%T", os.path.realpath(path)], capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _meminfo_total() -> Optional[int]:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _os_name() -> str:
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine_info(data_dir: Path) -> dict:
    return {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "available_cpus": available_cpus(),
        "memory_bytes": _meminfo_total(),
        "os": _os_name(),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "data_dir": str(data_dir),
        "filesystem": filesystem_of(data_dir),
        "python": platform.python_version(),
    }


def git_revision(repo: Path) -> Optional[str]:
    """`git describe --always --dirty` of the harness's checkout, if there is one."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None
