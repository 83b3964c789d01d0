"""Change a share of a tree's directories, as --index's repeat cells need before
each timed run: in each directory drawn, a file is created and removed at once,
which moves the directory's mtime and ctime and leaves its entries as they were.

Standalone (the standard library alone, no package imports), since hyperfine runs
it as its --prepare command:

    python3 pfind_bench/touch_dirs.py DIRLIST PERCENT [SEED]

DIRLIST is a file of directory paths, one a line (``list_dirs`` writes it once per
cell); PERCENT of them, at least one when PERCENT > 0, are drawn afresh each run
(SEED, then the time, seeds the draw)."""

from __future__ import annotations

import os
import random
import sys
import time

TOUCH_NAME = ".pfind-bench-touch"


def list_dirs(root: str, out: str) -> int:
    """Writes the directories under ``root`` (itself included, links not
    followed, other filesystems not entered) to the file ``out``; returns how many."""
    dev = os.lstat(root).st_dev
    found = []
    for here, dirs, _ in os.walk(root):
        found.append(here)
        dirs[:] = [d for d in dirs if os.lstat(os.path.join(here, d)).st_dev == dev]
    with open(out, "w") as f:
        f.write("".join(p + "\n" for p in found))
    return len(found)


def how_many(total: int, percent: float) -> int:
    """The directories to change: ``percent`` of ``total``, rounded, at least one
    when ``percent`` is above 0 and there is a directory."""
    if percent <= 0 or total == 0:
        return 0
    return min(total, max(1, round(total * percent / 100)))


def touch(dirs: list[str], percent: float, rng: random.Random) -> int:
    """Changes ``percent`` of ``dirs`` drawn with ``rng``; returns how many were
    changed (a directory that cannot be written is passed over)."""
    changed = 0
    for d in rng.sample(dirs, how_many(len(dirs), percent)):
        path = os.path.join(d, TOUCH_NAME)
        try:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
            os.unlink(path)
            changed += 1
        except OSError:
            pass
    return changed


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        dirs = [line.rstrip("\n") for line in f if line.strip()]
    seed = int(argv[2]) if len(argv) == 3 else 0
    touch(dirs, float(argv[1]), random.Random(seed ^ time.monotonic_ns()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
