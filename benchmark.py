#!/usr/bin/env python3
"""Reproducible benchmark harness for pfind.

One command regenerates the warm-cache numbers in docs/benchmarks.md (the spec's command line):

    python3 benchmark.py --pfind ./target/release/pfind \\
        --sizes small medium large deep wide --runs 10 --warmup 3 \\
        --output optimized.json --skip-oswalk

and, as root, the rest: `--cache warm cold` (page cache dropped before every
cold run), `--fs ext4 xfs btrfs tmpfs` (datasets on loop-mounted images the
harness makes and unmounts itself), `--tree /usr` (real trees, checked against GNU
find), `--threads-sweep 1 2 4 8 16 32 64` (in every cache mode), `--bfs PATH`;
and, with or without the cells (`--skip-cells`), `--early-quit TREE` (find one file
and quit), `--shallow-order TREE` (how soon a listing reaches the shallow files)
and `--first-path` (a cold walk's first path, root only); `--ignore-view REPO`
(the developer's view of a git work tree: pfind --ignore and -G against fd, rg and
git ls-files, every answer checked against git's), on trees `--make-realistic SRC
DEST` makes; `--startup [--spec PATH]` (start-up on an empty directory, small
and deep: pfind, the spec's crate, bfs, fd, find and floor, runs interleaved).
`--giant` (one directory of 400k and 1m entries) and `--io500-tree` (IO500's
find phase on an mdtest tree) are runs of their own, on the data directory and
each --fs, in each --cache mode.
docs/benchmarks.md, "Reproducing the numbers", has the full command and its duration;
`--dry-run` prints what a command line would time and skip.

The work is done by the pfind_bench package next to this file; its __init__.py
maps the modules.  Only the Python standard library is needed for measuring.
"""

import sys

from pfind_bench.cli import main

if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # The mounts are already undone by the time this runs (see filesystems.py).
        print("benchmark.py: interrupted", file=sys.stderr)
        sys.exit(130)
