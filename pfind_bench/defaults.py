"""Where the harness finds pfind and keeps its data when the command line does not
say (issue 51): the binaries of this clone's release build, else the installed
ones on PATH (the README's install line builds none in the clone), said in one
line on stderr; the data directory per user, and a one-line refusal, not a
traceback, for one that cannot be written."""

from __future__ import annotations

import os
import pwd
from pathlib import Path
from typing import Optional

from .common import which

# The spec's place for the datasets. Root keeps it (the datasets already made
# there are reused); any other user gets a directory of their own beside it, since
# one user's directory in /tmp cannot be written by the next.
SPEC_DATA_DIR = Path("/tmp/pfind_ds")


def default_data_dir(euid: Optional[int] = None) -> Path:
    """/tmp/pfind_ds for root, /tmp/pfind_ds-USER for anyone else."""
    euid = os.geteuid() if euid is None else euid
    if euid == 0:
        return SPEC_DATA_DIR
    try:
        user = pwd.getpwuid(euid).pw_name
    except KeyError:
        user = str(euid)
    return SPEC_DATA_DIR.with_name(f"{SPEC_DATA_DIR.name}-{user}")


def default_binary(name: str, build_tree: Path) -> tuple[Optional[str], str]:
    """(the path of ``name`` to run, the line that says which it is): the build
    tree's ``target/release/NAME``, else ``NAME`` on PATH; (None, why) if neither."""
    built = build_tree / "target" / "release" / name
    if os.access(built, os.X_OK) and built.is_file():
        return str(built), f"benchmark.py: {name}: {built} (this clone's release build)"
    installed = which(name)
    if installed:
        return installed, f"benchmark.py: {name}: {installed} (on PATH; this clone has no {built.relative_to(build_tree)})"
    return None, f"benchmark.py: {name}: neither {built} nor {name} on PATH; build it with `cargo build --release --locked` or install it (README, Install)"


def pfind_missing(given: str) -> str:
    """The line that says --pfind's binary is not there, and how to get one."""
    return f"pfind binary {given} not found; run `cargo build --release --locked` first, or install pfind (README, Install) and it is taken from PATH"


def unwritable_data_dir(path: Path) -> Optional[str]:
    """Why datasets cannot be made under ``path`` (one line, for the user), or None:
    it, or the nearest directory above it that exists, must be writable."""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return f"benchmark.py: {path}: not a directory (give another with --data-dir DIR)"
    if not os.access(probe, os.W_OK | os.X_OK):
        owner = probe.stat().st_uid
        try:
            owner_name = pwd.getpwuid(owner).pw_name
        except KeyError:
            owner_name = str(owner)
        return f"benchmark.py: {path}: cannot write in {probe} (owned by {owner_name}); give a directory of your own with --data-dir DIR"
    return None
