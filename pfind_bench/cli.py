"""The command line and the run itself: parse, plan, prepare the filesystems and
datasets, time and check every cell, then write the report and print the tables.

benchmark.py is a thin entry point to main() here.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from . import cluster, early_quit, first_path, giant, ignore_view, index_mode, io500_tree, latency_fs, order, sshfs, startup
from .charts import plot_report
from .common import NAME_GLOB, log, named_program, tool_version, unique, which, write_json_atomic
from .correctness import correctness_check
from .datasets import SHAPES, SIZE_ORDER, ensure_dataset
from .defaults import default_binary, default_data_dir, pfind_missing, unwritable_data_dir
from .filesystems import DEFAULT_FS_DIR, DEFAULT_IMAGE_GIB, FS_TYPES, SBIN_DIRS, FsError, Mounter, Place, fs_unavailable, has_cold_state, home_place
from .machine import available_cpus, filesystem_of, git_revision, machine_info
from .plan import DATASET, HOME, TREE, CellPlan, Selection, SweepPlan, datasets_needed, default_cold_sizes, default_fs_sizes, describe_plan, plan_cells, plan_places, split_sweep_target
from .realistic import RealisticError, make_realistic
from .report.schema import make_cell, make_report
from .report.tables import all_tables, summary_lines, tools_line
from .timing import CACHE_MODES, COLD, DROP_CACHES_COMMAND, WARM, cold_cache_unavailable, drop_page_cache, run_hyperfine, time_in_passes
from .tools import FLOOR_SOURCE, PEER_NAMES, SCENARIO_ORDER, SCENARIOS, TOOL_NAMES, Tool, build_floor, discover_peers, make_floor, make_peer, make_pfind, peer_notes, pfind_argv

DEFAULT_COLD_SCENARIOS = ["all_files", "count_only"]


# What --quick stands for, put before the command line's own options so that they
# win over it (`--quick --sizes medium`): the two small datasets, fewer runs, both
# passes.  About 10 s on our 2-vCPU machine, plus a few seconds to generate the
# datasets on the first run.
QUICK = ["--sizes", "small", "deep", "--runs", "5", "--warmup", "1", "--skip-oswalk"]

# The report's name when --output is not given: the first of these that does not
# exist yet, so that a run never replaces an earlier report (or the committed one).
DEFAULT_OUTPUT = "pfind-benchmark.json"


def free_output_path(directory: Path = Path(".")) -> Path:
    """pfind-benchmark.json, or pfind-benchmark-2.json, -3, ... : the first that is free."""
    stem, suffix = DEFAULT_OUTPUT.rsplit(".", 1)
    n = 1
    while True:
        path = directory / (DEFAULT_OUTPUT if n == 1 else f"{stem}-{n}.{suffix}")
        if not path.exists():
            return path
        n += 1


def entry_count(text: str) -> int:
    """argparse's type for --giant and --io500-entries: 2000, 400k, 1m."""
    try:
        return giant.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    here = Path(__file__).resolve().parent.parent
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--quick" in argv:
        argv = QUICK + argv
    p = argparse.ArgumentParser(
        prog="benchmark.py",
        description="Benchmark pfind against fd, rg, bfs, GNU find and os.walk on generated datasets and real trees, "
        "with a warm or cold page cache, on several filesystems.",
        epilog="Example: python3 benchmark.py --pfind ./target/release/pfind --sizes small deep --runs 10 --warmup 3 --output report.json. "
        "docs/benchmarks.md, section 'Reproducing the numbers', gives the full command.",
    )
    g = p.add_argument_group("what to measure")
    g.add_argument("--quick", action="store_true", help="a first look in under a minute: " + " ".join(QUICK) + " (options given besides it win)")
    g.add_argument("--pfind", help="pfind binary to measure (default: this clone's target/release/pfind, else pfind on PATH)")
    g.add_argument("--pfind-args", default="", help="extra arguments for pfind, e.g. --pfind-args='-j 2'")
    g.add_argument("--sizes", nargs="+", choices=SIZE_ORDER, default=SIZE_ORDER, metavar="SIZE", help="datasets timed warm on the data directory: " + " ".join(SIZE_ORDER) + " (default: all)")
    g.add_argument("--scenarios", nargs="+", choices=SCENARIO_ORDER, default=SCENARIO_ORDER, metavar="SCENARIO", help="scenarios timed warm: " + " ".join(SCENARIO_ORDER) + " (default: all)")
    g.add_argument("--tools", nargs="+", choices=TOOL_NAMES, default=list(TOOL_NAMES), metavar="TOOL", help="peers to compare, and floor, the unranked reference: " + " ".join(TOOL_NAMES) + " (default: all installed; floor is built from benches/floor.c with gcc; --latency-fs times find, fd, rg and bfs among them)")
    g.add_argument("--skip-oswalk", action="store_true", help="leave out the Python os.walk baseline")
    g.add_argument("--bfs", metavar="PATH", help="the bfs binary to compare with (default: bfs on PATH); docs/benchmarks.md uses bfs 4")
    g.add_argument("--floor", metavar="PATH", help="the floor binary to time instead of building benches/floor.c (floor is then timed whatever --tools says)")
    g.add_argument("--tree", action="append", default=[], metavar="PATH", help="also time this real tree (repeatable), checked against GNU find")
    g.add_argument("--tree-scenarios", nargs="+", choices=SCENARIO_ORDER, default=DEFAULT_COLD_SCENARIOS, metavar="SCENARIO", help="scenarios timed warm on --tree (default: all_files count_only)")

    g = p.add_argument_group("cache and filesystems")
    g.add_argument("--cache", nargs="+", choices=CACHE_MODES, default=[WARM], help="page cache state: warm, and/or cold (caches dropped before every run; root only) (default: warm)")
    g.add_argument("--cold-sizes", nargs="+", choices=SIZE_ORDER, metavar="SIZE", help="datasets timed cold (default: --sizes without large)")
    g.add_argument("--cold-scenarios", nargs="+", choices=SCENARIO_ORDER, default=DEFAULT_COLD_SCENARIOS, metavar="SCENARIO", help="scenarios timed cold, on datasets and trees (default: all_files count_only)")
    g.add_argument("--cold-runs", type=int, default=5, help="measured runs per command and pass with a cold cache, no warm-up (default: %(default)s)")
    g.add_argument("--fs", nargs="+", choices=FS_TYPES, default=[], metavar="FS", help="filesystems: " + " ".join(FS_TYPES) + "; the data directory's own is the data directory, the others are loop-mounted images (tmpfs: memory) made under --fs-dir, root only (default: the data directory only)")
    g.add_argument("--fs-sizes", nargs="+", choices=SIZE_ORDER, metavar="SIZE", help="datasets timed warm on the --fs filesystems other than the data directory's (default: medium and wide of --sizes)")
    g.add_argument("--fs-dir", type=Path, default=DEFAULT_FS_DIR, help="where filesystem images and their mount points live; images persist between runs (default: %(default)s)")
    g.add_argument("--fs-image-gib", type=int, default=DEFAULT_IMAGE_GIB, help="size of each sparse image in GiB (default: %(default)s)")
    g.add_argument("--fs-fresh", action="store_true", help="make the filesystem images again instead of reusing them")

    g = p.add_argument_group("timing")
    g.add_argument("--runs", type=int, default=10, help="measured runs per command and pass with a warm cache (default: %(default)s)")
    g.add_argument("--warmup", type=int, default=3, help="warm-up runs per command and pass with a warm cache (default: %(default)s)")
    g.add_argument("--passes", type=int, default=2, help="timing passes per cell, each in the reverse order of the one before (default: %(default)s)")
    g.add_argument("--hyperfine-output", choices=("null", "pipe"), default="null", help="where timed runs write: /dev/null or a pipe (default: %(default)s)")
    g.add_argument("--threads-sweep", nargs="+", type=int, metavar="N", help="also time pfind alone at each -j N (and without -j), in every --cache mode")
    g.add_argument("--sweep-target", nargs="+", metavar="TARGET", help="what to sweep: a dataset (on --sweep-fs), DATASET@FS (e.g. medium@btrfs), or a tree's path (default: --sweep-size)")
    g.add_argument("--sweep-size", choices=SIZE_ORDER, default="large", help="dataset for the thread sweep when --sweep-target is not given (default: %(default)s)")
    g.add_argument("--sweep-fs", nargs="+", choices=FS_TYPES, metavar="FS", help="filesystems on which dataset sweep targets are swept (default: the first one measured)")
    g.add_argument("--sweep-scenario", choices=SCENARIO_ORDER, default="all_files", help="scenario for the thread sweep (default: %(default)s)")

    g = p.add_argument_group("early quit, shallow order and the first path (docs/benchmarks.md, 'Finding one file and the first path')")
    g.add_argument("--early-quit", nargs="+", default=[], metavar="TREE", help="bfs's early-termination benchmark on each TREE: uniquely named files at each --early-quit-depths, each tool finding each one and quitting, and every tool started on an empty directory")
    g.add_argument("--early-quit-depths", nargs="+", type=int, default=list(early_quit.DEFAULT_DEPTHS), metavar="D", help="depths whose files are searched for, where the tree has them (default: %(default)s)")
    g.add_argument("--early-quit-names", type=int, default=early_quit.DEFAULT_NAMES, metavar="N", help="names drawn per depth (default: %(default)s)")
    g.add_argument("--early-quit-seed", type=int, default=early_quit.DEFAULT_SEED, metavar="N", help="seed of the draw; the names are recorded in the report (default: %(default)s)")
    g.add_argument("--early-quit-runs", type=int, default=5, metavar="N", help="measured runs per name, tool and pass (default: %(default)s)")
    g.add_argument("--early-quit-warmup", type=int, default=1, metavar="N", help="warm-up runs per name, tool and pass (default: %(default)s)")
    g.add_argument("--shallow-order", nargs="+", default=[], metavar="TREE", help="list each TREE into a pipe and say how much of the output came before the last file at depth <= 2")
    g.add_argument("--shallow-order-runs", type=int, default=10, metavar="N", help="runs per command (default: %(default)s)")
    g.add_argument("--shallow-order-threads", nargs="*", type=int, default=[8], metavar="N", help="pfind is listed at its default -j and at each -j N (default: %(default)s)")
    g.add_argument("--first-path", nargs="*", metavar="SOURCE", help="cold time to the first path and to the end (root only): a copy of each SOURCE directory, or each dataset SOURCE, on a loop-mounted image with direct I/O (no SOURCE: a copy of /usr)")
    g.add_argument("--first-path-fs", choices=[fs for fs in FS_TYPES if has_cold_state(fs)], default=first_path.DEFAULT_FS, help="the image's filesystem (default: %(default)s)")
    g.add_argument("--first-path-runs", type=int, default=3, metavar="N", help="cold runs per command; the figures are medians (default: %(default)s)")
    g.add_argument("--first-path-threads", nargs="*", type=int, default=[2], metavar="N", help="pfind is timed at its default -j and at each -j N (default: %(default)s)")
    g.add_argument("--skip-cells", action="store_true", help="time no scenario cells and no thread sweep: only the parts above and below")

    g = p.add_argument_group("the developer's view on git trees (docs/benchmarks.md, 'The developer's view on git trees')")
    g.add_argument("--ignore-view", nargs="+", default=[], metavar="REPO", help="in each git work tree REPO, check against git's answer, then time pfind --ignore, pfind -G, fd --type f [--hidden], rg --files [--hidden] and git ls-files -co --exclude-standard")
    g.add_argument("--ignore-view-runs", type=int, default=10, metavar="N", help="measured runs per command and pass (default: %(default)s)")
    g.add_argument("--ignore-view-warmup", type=int, default=3, metavar="N", help="warm-up runs per command and pass (default: %(default)s)")
    g.add_argument("--make-realistic", nargs=2, metavar=("SRC", "DEST"), help="only clone the git repository SRC (a path) into DEST and add build output, node_modules, a .venv, __pycache__, untracked files and their ignore rules (deterministic), then exit")
    g.add_argument("--realistic-scale", type=float, default=1.0, metavar="N", help="multiplies what --make-realistic generates; 1 makes a small repository about 100,000 files (default: %(default)s)")

    g = p.add_argument_group("network filesystems (docs/benchmarks.md, 'Network and FUSE filesystems')")
    g.add_argument("--latency-fs", metavar="SOURCE", help="only time the walkers on a FUSE passthrough of SOURCE (benches/latencyfs.c, built with gcc) that holds every request --latency-delays, mounted afresh for every run, then exit")
    g.add_argument("--latency-delays", nargs="*", type=float, default=list(latency_fs.DEFAULT_DELAYS_MS), metavar="MS", help="delays per request in ms; none: time only --sshfs (default: %(default)s)")
    g.add_argument("--latency-runs", type=int, default=3, metavar="N", help="runs per command and delay; figures are medians (default: %(default)s)")
    g.add_argument("--latency-threads", nargs="*", type=int, default=list(latency_fs.DEFAULT_PFIND_THREADS), metavar="N", help="pfind's -j sweep (default: %(default)s)")
    g.add_argument("--latency-peer-threads", nargs="*", type=int, default=list(latency_fs.DEFAULT_PEER_THREADS), metavar="N", help="fd's, rg's and bfs's -j sweep (default: %(default)s)")
    g.add_argument("--latency-baseline", metavar="PATH", help="also time this other pfind build at its default -j, side by side (e.g. the build before a change)")
    g.add_argument("--latency-no-types", action="store_true", help="the filesystem gives no file types in readdir (DT_UNKNOWN)")
    g.add_argument("--sshfs", action="store_true", help="with --latency-fs: also time the same commands, --latency-runs times each, on SOURCE mounted afresh for every run with sshfs from an sshd of the harness's own on 127.0.0.1 (throwaway keys; skipped with a message where sshfs or sshd is missing)")

    g = p.add_argument_group("giant directories and IO500's find (docs/benchmarks.md, 'Giant directories')")
    g.add_argument("--giant", nargs="*", type=entry_count, metavar="SIZE", help="only time one directory of SIZE empty files named file.mdtest.R.I (400k, 1m, 2000; no SIZE: " + " ".join(giant.DEFAULT_SIZES) + ") on the data directory and each --fs, in each --cache mode: pfind's default, -j 1 and each --giant-threads, find, fd, rg and bfs, every count checked; then exit")
    g.add_argument("--giant-threads", nargs="*", type=int, default=list(giant.DEFAULT_THREADS), metavar="N", help="pfind is also timed at each -j N (default: %(default)s)")
    g.add_argument("--io500-tree", action="store_true", help="only time IO500's find phase on an mdtest easy and hard tree (on the data directory and each --fs, in each --cache mode): scripts/io500-find.sh against pfind's plain walk, the two-walk adapter and GNU find, every count checked against find's; then exit (with --giant: both)")
    g.add_argument("--io500-entries", type=entry_count, default=io500_tree.DEFAULT_ENTRIES, metavar="N", help="files in the IO500 tree, half easy, half hard (default: %(default)s)")

    g = p.add_argument_group("several clients on one machine (docs/benchmarks.md, 'Cluster (pfind-mpi)')")
    g.add_argument("--cluster", metavar="SOURCE", help="only time walks of SOURCE through latencyfs mounts capped at --cluster-cap requests in flight each (a mount a client), mounted afresh for every run: one pfind on one mount, then pfind-mpi under mpirun at each --cluster-ranks N with a mount per rank (--rank-root), and --io500-pfind and --dfind where given at the same N on one mount; then exit")
    g.add_argument("--cluster-ranks", nargs="+", type=int, default=list(cluster.DEFAULT_RANKS), metavar="N", help="MPI ranks (and mounts, for pfind-mpi) (default: %(default)s)")
    g.add_argument("--cluster-delay", type=float, default=cluster.DEFAULT_DELAY_MS, metavar="MS", help="each request is held this long (default: %(default)s)")
    g.add_argument("--cluster-cap", type=int, default=cluster.DEFAULT_CAP, metavar="N", help="at most N requests held at once per mount, a client's slots for requests in flight (latencyfs -m) (default: %(default)s)")
    g.add_argument("--cluster-runs", type=int, default=cluster.DEFAULT_RUNS, metavar="N", help="runs per command, interleaved; figures are medians (default: %(default)s)")
    g.add_argument("--pfind-mpi", metavar="PATH", help=f"the pfind-mpi binary ({cluster.BUILD_PFIND_MPI}) (default: this clone's target/release/pfind-mpi, else pfind-mpi on PATH)")
    g.add_argument("--io500-pfind", metavar="PATH", help="with --cluster: also time IO500's pfind (github.com/VI4IO/pfind) at each --cluster-ranks, its ranks on one mount")
    g.add_argument("--dfind", metavar="PATH", help="with --cluster: also time mpiFileUtils' dfind at each --cluster-ranks, its ranks on one mount")

    g = p.add_argument_group("remembering a tree (docs/benchmarks.md, 'The index')")
    g.add_argument("--index", action="store_true", help="only time pfind --index on each target (its building run, repeats with --index-changes of the directories changed, --index-trust queries) beside a fresh walk, fd, bfs and plocate (its database built for the target), in each --cache mode, then exit; the targets: --index-tree, --index-git, --index-giant, --index-latency (default: /usr)")
    g.add_argument("--index-tree", action="append", default=[], metavar="PATH", help="with --index: a tree to search (repeatable)")
    g.add_argument("--index-git", action="append", default=[], metavar="REPO", help="with --index: a git work tree, searched with --ignore (repeatable)")
    g.add_argument("--index-giant", action="store_true", help="with --index: one directory of 1m entries on the data directory (made as --giant makes it)")
    g.add_argument("--index-latency", metavar="SOURCE", help="with --index: SOURCE through latencyfs, every request held 1 ms, one mount for all its runs")
    g.add_argument("--index-changes", nargs="+", type=float, default=list(index_mode.DEFAULT_CHANGES), metavar="PERCENT", help="with --index: the repeat cells, each with this share of the directories changed before every run (default: %(default)s)")

    g = p.add_argument_group("start-up on small trees (issue 42)")
    g.add_argument("--startup", action="store_true", help="only time every tool listing an empty directory, small and deep, runs interleaved (pfind, --spec, bfs, fd, find, floor), then exit")
    g.add_argument("--startup-runs", type=int, default=startup.DEFAULT_RUNS, metavar="N", help="timed runs per tool and tree, after 3 untimed rounds (default: %(default)s)")
    g.add_argument("--spec", metavar="PATH", help="with --startup: also time the spec's own crate (pfind 0.1.0 from crates.io, installed under another name)")

    g = p.add_argument_group("files and output")
    g.add_argument("--data-dir", type=Path, default=default_data_dir(), help="dataset cache (default: /tmp/pfind_ds as root, /tmp/pfind_ds-USER for any other user: here %(default)s)")
    g.add_argument("--gen-jobs", type=int, default=available_cpus(), help="processes writing large datasets (default: CPUs available)")
    g.add_argument("--output", type=Path, help=f"JSON report path (default: {DEFAULT_OUTPUT}, or {DEFAULT_OUTPUT.replace('.json', '-2.json')} and so on if it exists: an earlier report is never replaced unless named here)")
    g.add_argument("--dry-run", action="store_true", help="print the cells that would be timed, and what is skipped and why, then exit")
    g.add_argument("--plot", type=Path, metavar="REPORT", help="only draw charts from an existing report, then exit")
    g.add_argument("--plot-size", default="large", choices=SIZE_ORDER, help="dataset of the headline chart (default: %(default)s)")
    g.add_argument("--plot-fs-scenario", default="all_files", choices=SCENARIO_ORDER, help="scenario of the filesystem x cache chart (default: %(default)s)")
    g.add_argument("--plot-fs-size", default="medium", choices=SIZE_ORDER, help="dataset of the filesystem x cache chart (default: %(default)s)")
    g.add_argument("--assets-dir", type=Path, default=here / "assets", help="where --plot writes charts (default: assets/ next to benchmark.py)")
    g.add_argument("--plot-format", choices=("svg", "png"), default="svg", help="chart format (default: %(default)s)")
    args = p.parse_args(argv)
    if args.output is None:
        args.output = free_output_path()
    # Said before any timing: the report is written only once every run is done.
    if args.output.is_dir() or not args.output.resolve().parent.is_dir():
        p.error(f"{args.output}: not a path a report can be written to (--output names a file in an existing directory)")
    args.pfind_extra = shlex.split(args.pfind_args)
    # Which pfind is timed when --pfind is not given: said by main, first.
    args.pfind_said = None
    if args.pfind is None:
        found, line = default_binary("pfind", here)
        args.pfind = found or str(here / "target" / "release" / "pfind")
        args.pfind_said = line if found else None
    if args.skip_oswalk:
        args.tools = [t for t in args.tools if t != "oswalk"]
    if args.floor and "floor" not in args.tools:
        args.tools.append("floor")
    if args.runs < 1 or args.warmup < 0 or args.cold_runs < 1:
        p.error("--runs and --cold-runs must be at least 1 and --warmup at least 0")
    if args.passes < 1:
        p.error("--passes must be at least 1")
    if args.threads_sweep and any(n < 1 for n in args.threads_sweep):
        p.error("--threads-sweep values must be at least 1")
    if args.threads_sweep and any(a in ("-j", "--threads") or a.startswith(("-j", "--threads=")) for a in args.pfind_extra):
        p.error("--pfind-args must not set -j when --threads-sweep is used (the sweep sets it)")
    if min(args.early_quit_runs, args.early_quit_names, args.shallow_order_runs, args.first_path_runs, *args.early_quit_depths) < 1 or args.early_quit_warmup < 0:
        p.error("--early-quit-runs, -names, -depths, --shallow-order-runs and --first-path-runs must be at least 1, --early-quit-warmup at least 0")
    if any(n < 1 for n in args.shallow_order_threads + args.first_path_threads):
        p.error("--shallow-order-threads and --first-path-threads values must be at least 1")
    sets_j = any(a in ("-j", "--threads") or a.startswith(("-j", "--threads=")) for a in args.pfind_extra)
    if sets_j and ((args.shallow_order and args.shallow_order_threads) or (args.first_path is not None and args.first_path_threads)):
        p.error("--pfind-args must not set -j with --shallow-order or --first-path (they set it; give --shallow-order-threads / --first-path-threads with no value to leave it out)")
    if args.first_path is not None:
        args.first_path = unique(args.first_path or list(first_path.DEFAULT_SOURCES))
        for source in args.first_path:
            if source not in SIZE_ORDER and not os.path.isdir(source):
                p.error(f"{source}: neither a dataset ({' '.join(SIZE_ORDER)}) nor a directory (--first-path)")
    if args.latency_runs < 1 or any(n < 1 for n in args.latency_threads + args.latency_peer_threads) or any(d < 0 for d in args.latency_delays):
        p.error("--latency-runs and the --latency-threads values must be at least 1, --latency-delays at least 0")
    if args.latency_fs and not os.path.isdir(args.latency_fs):
        p.error(f"{args.latency_fs}: not a directory (--latency-fs)")
    if args.sshfs and not args.latency_fs:
        p.error("--sshfs times the commands of --latency-fs SOURCE on SOURCE: give --latency-fs SOURCE")
    if args.latency_fs and not args.latency_delays and not args.sshfs:
        p.error("--latency-delays with no value times only --sshfs: give --sshfs or a delay")
    if args.startup_runs < 1:
        p.error("--startup-runs must be at least 1")
    if args.spec and not args.startup:
        p.error("--spec is timed by --startup: give --startup")
    if args.ignore_view_runs < 1 or args.ignore_view_warmup < 0:
        p.error("--ignore-view-runs must be at least 1 and --ignore-view-warmup at least 0")
    if not args.realistic_scale > 0:
        p.error("--realistic-scale must be above 0")
    if args.giant is not None:
        args.giant = unique(args.giant or [giant.parse_size(s) for s in giant.DEFAULT_SIZES])
        if sets_j:
            p.error("--pfind-args must not set -j with --giant (it times pfind's default and each -j; give --giant-threads)")
    if any(n < 1 for n in args.giant_threads):
        p.error("--giant-threads values must be at least 1")
    if (args.giant is not None or args.io500_tree) and args.latency_fs:
        p.error("--giant and --io500-tree are runs of their own: not with --latency-fs")
    if args.cluster is not None:
        if not os.path.isdir(args.cluster):
            p.error(f"{args.cluster}: not a directory (--cluster)")
        if args.latency_fs or args.giant is not None or args.io500_tree or args.startup:
            p.error("--cluster is a run of its own: not with --latency-fs, --giant, --io500-tree or --startup")
    elif args.io500_pfind or args.dfind:
        p.error("--io500-pfind and --dfind are timed by --cluster SOURCE: give --cluster")
    if args.cluster_runs < 1 or args.cluster_cap < 1 or any(n < 1 for n in args.cluster_ranks):
        p.error("--cluster-runs, --cluster-cap and the --cluster-ranks values must be at least 1")
    if not args.cluster_delay > 0:
        p.error("--cluster-delay must be above 0 (a request not held takes no slot: the cap would hold nothing)")
    args.cluster_ranks = unique(args.cluster_ranks)
    args.ignore_view = unique(args.ignore_view)
    args.early_quit = unique(args.early_quit)
    args.early_quit_depths = unique(args.early_quit_depths)
    args.shallow_order = unique(args.shallow_order)
    args.sizes = unique(args.sizes)
    args.cold_sizes = unique(args.cold_sizes or default_cold_sizes(args.sizes))
    args.fs_sizes = unique(args.fs_sizes or default_fs_sizes(args.sizes))
    args.sweep_target = unique(args.sweep_target or [args.sweep_size])
    sweep_paths = [t for t in args.sweep_target if split_sweep_target(t)[0] not in SIZE_ORDER]
    for path in unique(args.tree + sweep_paths + args.early_quit + args.shallow_order):
        if not os.path.isdir(path):
            p.error(f"{path}: not a directory (--tree, --early-quit and --shallow-order take directories; --sweep-target a dataset name, DATASET@FS or a directory)")
    return args


# ---------------------------------------------------------------------------
# Running cells and sweeps
# ---------------------------------------------------------------------------


def cache_settings(args, cache: str) -> dict:
    """hyperfine settings for one cache mode: a cold run drops the caches first and
    has no warm-up (which would only be one more cold run)."""
    if cache == COLD:
        return {"warmup": 0, "runs": args.cold_runs, "prepare": DROP_CACHES_COMMAND}
    return {"warmup": args.warmup, "runs": args.runs, "prepare": None}


def run_cell(args, hyperfine: str, plan: CellPlan, root: str, manifest: Optional[dict], tools: list[Tool], path_ref: Optional[Tool]) -> dict:
    """Time one cell in passes, check every tool's answer, and make its report entry."""
    sc = SCENARIOS[plan.scenario]
    named = [(t.name, t.argv_for(root, sc)) for t in tools]
    results, orders, error = None, None, None
    try:
        results, orders = time_in_passes(
            hyperfine, named, output=args.hyperfine_output, passes=args.passes, ignore_failure=plan.kind == TREE, **cache_settings(args, plan.cache)
        )
    except (RuntimeError, OSError, ValueError) as e:
        error = str(e)
        log(f"  timing failed: {error}")
    check = correctness_check(tools, root, sc, sc.expected(manifest), path_ref, check_exit=plan.kind != TREE)
    if not check["pfind_correct"]:
        got = check["counts"].get("pfind")
        paths = check["paths"] or {}
        detail = check["errors"].get("pfind") or (f"{got} matches" + ("" if paths.get("equal", True) else f", paths differ from {paths['reference']}"))
        log(f"  pfind disagrees: expected {check['expected']} matches, got {detail}")
    return make_cell(sc, plan.target, root, tools, results, check, error, kind=plan.kind, fs=plan.fs, cache=plan.cache, orders=orders)


def run_sweep(args, hyperfine: str, plan: SweepPlan, root: str, pfind: Tool) -> dict:
    """pfind alone at each -j, and without -j: the curve behind the default thread
    count.  Timed in passes of alternating order like every cell: hyperfine runs one
    command's runs back to back, so a slow stretch of a shared machine could
    otherwise land on a single -j and invent a dip in the curve."""
    sc = SCENARIOS[plan.scenario]
    threads = unique(str(n) for n in args.threads_sweep)
    named = [(f"pfind -j {n}", pfind_argv(pfind.path, root, sc, args.pfind_extra + ["-j", n])) for n in threads]
    named.append(("pfind default", pfind_argv(pfind.path, root, sc, args.pfind_extra)))
    log(f"thread sweep: {sc.name} on {plan.target} ({plan.fs}, {plan.cache}), -j {' '.join(threads)} and the default ({args.passes} passes, alternating order)")
    sweep = {
        "scenario": sc.name,
        "size": plan.target if plan.kind == DATASET else None,
        "target": plan.target,
        "kind": plan.kind,
        "fs": plan.fs,
        "cache": plan.cache,
        "root": root,
        "commands": {n: shlex.join(c) for n, c in named},
        "points": [],
    }
    try:
        results, orders = time_in_passes(
            hyperfine, named, output=args.hyperfine_output, passes=args.passes, ignore_failure=plan.kind == TREE, **cache_settings(args, plan.cache)
        )
        sweep["points"] = [{"threads": int(n), **results[f"pfind -j {n}"]} for n in threads]
        sweep["default"] = results["pfind default"]
        sweep["passes"] = [{"order": o} for o in orders]
    except (RuntimeError, OSError, ValueError) as e:
        sweep["error"] = str(e)
        log(f"  sweep failed: {e}")
    return sweep


# ---------------------------------------------------------------------------
# Early quit, shallow order, first path, the developer's view
# ---------------------------------------------------------------------------

EARLY_QUIT, SHALLOW_ORDER, FIRST_PATH, IGNORE_VIEW = "early quit", "shallow order", "first path", "ignore view"


def plan_extras(args, tools: list[Tool], path_ref: Optional[Tool], euid: int, cold_why=cold_cache_unavailable) -> tuple[dict[str, str], list[str]]:
    """({part: what it will time} for the parts asked for that can run, and one
    line per part left out and why)."""
    planned, skips = {}, []
    peers_in = lambda wanted: [t.name for t in tools if t.name in wanted]
    if args.early_quit:
        if early_lister(tools, path_ref) is None:
            skips.append(f"{EARLY_QUIT}: bfs or GNU find is needed to list the tree's names")
        else:
            depths = " ".join(map(str, args.early_quit_depths))
            planned[EARLY_QUIT] = f"{', '.join(args.early_quit)} at depths {depths}, {args.early_quit_names} names each ({', '.join(['pfind'] + peers_in(early_quit.QUIT_TOOLS))}), and the process start"
    if args.shallow_order:
        if path_ref is None:
            skips.append(f"{SHALLOW_ORDER}: GNU find is needed to list the files at depth <= 2")
        else:
            threads = "".join(f", -j {n}" for n in args.shallow_order_threads)
            planned[SHALLOW_ORDER] = f"{', '.join(args.shallow_order)}, {args.shallow_order_runs} runs each of {', '.join([f'pfind (default -j{threads})'] + peers_in(order.ORDER_TOOLS))}"
    if args.first_path is not None:
        why = fs_unavailable(args.first_path_fs, euid)
        if why is None and which("losetup", also=SBIN_DIRS) is None:
            why = "losetup not found (apt-get install mount)"
        if why is None and path_ref is None:
            why = "GNU find is needed to count the tree's files"
        why = why or cold_why()
        if why:
            skips.append(f"{FIRST_PATH} (--first-path {' '.join(args.first_path)}): {why}")
        else:
            planned[FIRST_PATH] = f"{', '.join(args.first_path)} on {args.first_path_fs} with direct I/O, cold, {args.first_path_runs} runs each ({', '.join(['pfind'] + peers_in(first_path.FIRST_PATH_TOOLS))})"
    if args.ignore_view:
        repos, why = ignore_view_repos(args)
        skips += why
        if repos:
            labels = [c.label for c in ignore_view_commands(args, tools, which("git"))]
            planned[IGNORE_VIEW] = f"{', '.join(repos)}, {args.ignore_view_warmup} warm-up and {args.ignore_view_runs} runs each of {', '.join(labels)}"
    return planned, skips


def ignore_view_repos(args) -> tuple[list[str], list[str]]:
    """The --ignore-view repositories that can be measured, and a skip line for
    each one that cannot (or one for all, without git)."""
    git = which("git")
    if git is None:
        return [], [f"{IGNORE_VIEW}: git is needed for the reference answer (apt-get install git)"]
    repos, skips = [], []
    for repo in args.ignore_view:
        why = ignore_view.work_tree_problem(repo, git)
        if why:
            skips.append(f"{IGNORE_VIEW} on {repo}: {why}")
        else:
            repos.append(repo)
    return repos, skips


def ignore_view_commands(args, tools: list[Tool], git: str) -> list[ignore_view.ViewCommand]:
    paths = {t.name: t.path for t in tools}
    return ignore_view.view_commands(tools[0].path, paths.get("fd"), paths.get("rg"), git, args.pfind_extra)


def run_ignore_view(args, hyperfine: str, tools: list[Tool], skipped_tools: dict[str, str]) -> dict:
    git = which("git")
    commands = ignore_view_commands(args, tools, git)
    present = {t.name for t in tools}
    env = ignore_view.view_env()
    section = {
        "runs": args.ignore_view_runs,
        "warmup": args.ignore_view_warmup,
        "passes": args.passes,
        "output": args.hyperfine_output,
        "environment": f"the harness's, without {ignore_view.PFIND_ENV}",
        "git": tool_version([git, "--version"]),
        "skipped_tools": {n: skipped_tools.get(n, "left out by --tools") for n in ("fd", "rg") if n not in present},
        "repos": [],
    }
    for name, why in section["skipped_tools"].items():
        log(f"{IGNORE_VIEW}: skipping {name}: {why}")
    for repo in ignore_view_repos(args)[0]:

        def time_commands(named, repo=repo):
            timer = functools.partial(run_hyperfine, cwd=repo, env=env)
            return time_in_passes(hyperfine, named, warmup=args.ignore_view_warmup, runs=args.ignore_view_runs, output=args.hyperfine_output, passes=args.passes, ignore_failure=True, run=timer)

        try:
            section["repos"].append(ignore_view.run_repo(repo, filesystem_of(Path(repo)), commands, git, time_commands, env))
        except (RuntimeError, OSError, ValueError) as e:
            log(f"{IGNORE_VIEW} on {repo} failed: {e}")
            section["repos"].append({"root": repo, "checks": {}, "results": {}, "error": str(e)})
    return section


def early_lister(tools: list[Tool], path_ref: Optional[Tool]) -> Optional[str]:
    """The program that lists a tree's names for --early-quit: bfs, else GNU find."""
    bfs = next((t.path for t in tools if t.name == "bfs"), None) or which("bfs")
    return bfs or (path_ref.path if path_ref else None)


def run_early_quit(args, hyperfine: str, tools: list[Tool], path_ref: Optional[Tool]) -> dict:
    searchers = early_quit.quit_tools(tools)

    def time_commands(named):
        return time_in_passes(hyperfine, named, warmup=args.early_quit_warmup, runs=args.early_quit_runs, output=args.hyperfine_output, passes=args.passes, ignore_failure=True)

    lister = early_lister(tools, path_ref)
    section = {
        "names": args.early_quit_names,
        "seed": args.early_quit_seed,
        "runs": args.early_quit_runs,
        "warmup": args.early_quit_warmup,
        "passes": args.passes,
        "output": args.hyperfine_output,
        "depths": args.early_quit_depths,
        "escaping": "glob metacharacters * ? [ ] { } \\ and a leading - escaped with a backslash; names not UTF-8 or with control characters left out",
        "trees": [],
    }
    for root in args.early_quit:
        try:
            section["trees"].append(
                early_quit.run_tree(root, filesystem_of(Path(root)), lister, searchers, args.pfind_extra, args.early_quit_depths, args.early_quit_names, args.early_quit_seed, time_commands)
            )
        except (RuntimeError, OSError, ValueError) as e:
            log(f"early quit on {root} failed: {e}")
            section["trees"].append({"root": root, "depths": [], "skipped_depths": {}, "error": str(e)})
    section["process_start"] = early_quit.run_process_start(searchers, args.pfind_extra, time_commands)
    return section


def run_shallow_order(args, tools: list[Tool], path_ref: Tool) -> dict:
    pfind, peers = tools[0], tools[1:]
    section = {"runs": args.shallow_order_runs, "threads": args.shallow_order_threads, "trees": []}
    for root in args.shallow_order:
        named = order.order_commands(pfind, peers, root, args.shallow_order_threads, args.pfind_extra)
        try:
            section["trees"].append(order.run_tree(root, filesystem_of(Path(root)), path_ref.path, named, args.shallow_order_runs))
        except (RuntimeError, OSError) as e:
            log(f"shallow order on {root} failed: {e}")
            section["trees"].append({"root": root, "results": {}, "error": str(e)})
    return section


def run_first_path(args, mounter: Mounter, tools: list[Tool], path_ref: Tool) -> dict:
    pfind = tools[0]
    peers = {t.name: t.path for t in tools if t.name in first_path.FIRST_PATH_TOOLS}
    try:
        place = mounter.place_for(args.first_path_fs, direct_io=True)
        if place.info.get("direct_io") is False:
            log(f"warning: the kernel refused direct I/O on {place.info.get('loop_device')}; the image is read through the page cache")
        return first_path.measure(
            place, mounter, drop_page_cache, args.first_path, path_ref.path, pfind.path, peers, args.first_path_threads, args.pfind_extra, args.first_path_runs, args.gen_jobs
        )
    except (FsError, RuntimeError, OSError) as e:
        log(f"first path failed: {e}")
        return {"error": str(e), "sources": args.first_path, "fs": args.first_path_fs}


def find_peers(args) -> tuple[list[Tool], dict[str, str], Optional[Tool]]:
    """The installed peers; {name: why skipped}; the path reference."""
    peers, skipped = discover_peers([t for t in unique(args.tools) if t in PEER_NAMES], chosen={"bfs": args.bfs} if args.bfs else None)
    for note in peer_notes(peers):
        log(note)
    path_ref = next((t for t in peers if t.name == "find"), None)
    if path_ref is None:
        found = which("find")
        path_ref = make_peer("find", found) if found else None
    return peers, skipped, path_ref


def find_floor(args) -> tuple[Optional[Tool], Optional[str]]:
    """floor, the unranked reference: the --floor binary, or else benches/floor.c
    built; or None and why not."""
    if args.floor:
        path = named_program(args.floor)
        if path is None:
            return None, f"{args.floor} is not an executable"
    else:
        try:
            path = build_floor()
        except (RuntimeError, OSError) as e:
            return None, f"cannot build {FLOOR_SOURCE}: {e}"
    return make_floor(path, available_cpus()), None


def make_realistic_tree(args) -> int:
    """--make-realistic SRC DEST: make the tree, say what it holds, and exit."""
    git = which("git")
    if git is None:
        log("benchmark.py: --make-realistic needs git (apt-get install git)")
        return 2
    src, dest = args.make_realistic
    try:
        make_realistic(src, dest, args.realistic_scale, git)
    except (RealisticError, RuntimeError, OSError) as e:
        log(f"benchmark.py: --make-realistic: {e}")
        return 2
    return 0


def run_latency_fs(args) -> int:
    """--latency-fs: the tables of docs/benchmarks.md's network-filesystem section,
    latencyfs at each --latency-delays and, with --sshfs, sshfs over localhost;
    with --dry-run, what would be timed, and nothing built, mounted or written."""
    why = latency_fs.fuse_unavailable() if args.latency_delays else None
    if why and not args.dry_run:
        log(f"benchmark.py: --latency-fs: {why}")
        return 2
    why_sshfs = sshfs.sshfs_unavailable() if args.sshfs else None
    if why_sshfs and not args.dry_run:
        # Where sshfs was all there was to time, there is nothing left.
        log(f"benchmark.py: --sshfs: skipped: {why_sshfs}")
        if not args.latency_delays:
            return 2
    pfind_path = named_program(args.pfind)
    if pfind_path is None:
        log(f"benchmark.py: {pfind_missing(args.pfind)}")
        return 2
    peers = {}
    for name in ("find",) + latency_fs.PEERS:
        if name in args.tools:
            path = named_program(args.bfs) if name == "bfs" and args.bfs else which(name)
            if path:
                peers[name] = path
            else:
                log(f"skipping {name}: not found")
    cmds = latency_fs.commands(pfind_path, args.pfind_extra, peers, args.latency_threads, args.latency_peer_threads)
    if args.latency_baseline:
        baseline = named_program(args.latency_baseline)
        if baseline is None:
            log(f"benchmark.py: --latency-baseline {args.latency_baseline} is not an executable")
            return 2
        cmds.insert(1, latency_fs.Command("baseline default", "baseline", lambda root: [baseline, root, *args.pfind_extra]))
    if args.dry_run:
        if args.latency_delays:
            types = ", no file types" if args.latency_no_types else ""
            delays = ", ".join(f"{d:g}" for d in args.latency_delays)
            print(f"latency-fs: {args.latency_fs} through benches/latencyfs.c at D = {delays} ms{types}, {args.latency_runs} runs each, a fresh mount per run: {', '.join(c.label for c in cmds)}")
            if why:
                print(f"skipped latency-fs: {why}")
        if args.sshfs:
            print(sshfs.plan(args.latency_fs, args.latency_runs, cmds))
            if why_sshfs:
                print(f"skipped sshfs: {why_sshfs}")
        return 0
    versions = {"pfind": tool_version([pfind_path, "--version"]), "peers": {name: tool_version([path, "--version"]) for name, path in peers.items()}}
    report, tables, status = {}, [], 0
    if args.latency_delays:
        section = latency_fs.run_latency_fs(latency_fs.build_latencyfs(), args.latency_fs, args.latency_delays, cmds, args.latency_runs, args.latency_no_types)
        report["latency_fs"] = section | versions
        tables.append(latency_fs.table(section))
        status = 0 if latency_fs.all_correct(section) else 1
    if args.sshfs and not why_sshfs:
        try:
            section = sshfs.run_sshfs(args.latency_fs, cmds, args.latency_runs)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            # The latencyfs section, if any, is still written.
            log(f"benchmark.py: --sshfs: {e}")
            status = 2
        else:
            report["sshfs"] = section | versions
            tables.append(sshfs.table(section))
            status = max(status, 0 if sshfs.all_correct(section) else 1)
    if report:
        # The tables first: they stay on the screen even if the write fails.
        print("\n\n".join(tables), flush=True)
        write_json_atomic(args.output, report | {"machine": machine_info(args.data_dir)})
        log(f"report written to {args.output}")
    return status


def run_cluster(args, argv: Optional[list[str]] = None) -> int:
    """--cluster: the table of docs/benchmarks.md's cluster section, and its report
    at --output; with --dry-run, the commands and what is missing, and nothing
    built, mounted or written."""
    started = time.monotonic()
    missing = []  # what stops a run, one line each
    why = latency_fs.fuse_unavailable()
    if why:
        missing.append(f"FUSE: {why}")
    mpirun = which("mpirun")
    if mpirun is None:
        missing.append("mpirun not found (apt-get install openmpi-bin)")
    find = which("find")
    if find is None:
        missing.append("GNU find is needed to count the files (apt-get install findutils)")
    pfind_path = named_program(args.pfind)
    if pfind_path is None:
        missing.append(pfind_missing(args.pfind))
    if args.pfind_mpi is None:
        found, line = default_binary("pfind-mpi", Path(__file__).resolve().parent.parent)
        args.pfind_mpi = found or cluster.DEFAULT_PFIND_MPI
        if found:
            log(line)
    pfind_mpi = named_program(args.pfind_mpi)
    if pfind_mpi is None:
        missing.append(f"pfind-mpi binary {args.pfind_mpi} not found; build it with `{cluster.BUILD_PFIND_MPI}` (needs an MPI library, e.g. apt-get install openmpi-bin libopenmpi-dev clang libclang-dev)")
    peers = {}
    for option, given in (("--io500-pfind", args.io500_pfind), ("--dfind", args.dfind)):
        if given:
            peers[option] = named_program(given)
            if peers[option] is None:
                missing.append(f"{option} {given} is not an executable")
    launcher = cluster.launcher_for(mpirun) if mpirun else cluster.Launcher("mpirun")
    cmds = cluster.commands(
        pfind_path or args.pfind, pfind_mpi or args.pfind_mpi, launcher, args.cluster_ranks, args.pfind_extra, peers.get("--io500-pfind") or args.io500_pfind, peers.get("--dfind") or args.dfind
    )
    if args.dry_run:
        print(cluster.plan(args.cluster, cmds, args.cluster_runs, args.cluster_delay, args.cluster_cap))
        for line in missing:
            print(f"skipped cluster: {line}")
        return 0
    if missing:
        for line in missing:
            log(f"benchmark.py: --cluster: skipped: {line}")
        return 2
    binary = latency_fs.build_latencyfs()
    try:
        section = cluster.run_cluster(binary, args.cluster, cmds, args.cluster_runs, args.cluster_delay, args.cluster_cap, find)
    except (RuntimeError, OSError) as e:
        log(f"benchmark.py: --cluster: {e}")
        return 2
    env = os.environ | cluster.MPI_ENV
    section["mpirun"] = {"path": mpirun, "version": tool_version([mpirun, "--version"]), "open_mpi": launcher.open_mpi, "launch": shlex.join(launcher.argv(0)[:-1]) + " N"}
    section["tools"] = {
        "pfind": {"path": pfind_path, "version": tool_version([pfind_path, "--version"])},
        "pfind-mpi": {"path": pfind_mpi, "version": version_under(env, pfind_mpi)},
    }
    # Neither has a --version: their paths only.
    for option, name in (("--io500-pfind", cluster.IO500_PFIND), ("--dfind", cluster.DFIND)):
        if option in peers:
            section["tools"][name] = {"path": peers[option]}
    report = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "cluster": section,
        "machine": machine_info(args.data_dir),
        "config": {
            "argv": sys.argv if argv is None else ["benchmark.py"] + list(argv),
            "harness_revision": git_revision(Path(__file__).resolve().parent.parent),
            "pfind_args": args.pfind_extra,
            "duration_seconds": round(time.monotonic() - started, 1),
        },
        "pfind_correct": cluster.pfind_correct(section),
        "all_correct": cluster.all_correct(section),
    }
    # The table first: it stays on the screen even if the write fails.
    print(f"several clients on one machine: {args.cluster} through latencyfs at {args.cluster_delay:g} ms, at most {args.cluster_cap} requests in flight a mount\n" + cluster.table(section), flush=True)
    write_json_atomic(args.output, report)
    log(f"report written to {args.output} ({report['config']['duration_seconds'] / 60:.1f} min)")
    return 0 if report["all_correct"] else 1


def version_under(env: dict, program: str) -> str:
    """`program --version` with ``env`` (pfind-mpi started alone is one rank)."""
    try:
        proc = subprocess.run([program, "--version"], stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    lines = (proc.stdout + proc.stderr).decode(errors="replace").split("\n")
    return next((line.strip() for line in lines if line.strip()), "unknown")


def say_plan(plan_lines: list[str], skip_lines: list[str], dry_run: bool) -> bool:
    """A dry run prints the plan and the skips on stdout (and is then done: True);
    a run logs them before timing."""
    if dry_run:
        print("\n".join(plan_lines + [f"skipped {s}" for s in skip_lines]))
        return True
    for line in skip_lines:
        log(f"skipped {line}")
    for line in plan_lines:
        log("plan: " + line)
    return False


def timing_config(args, argv: Optional[list[str]], hyperfine: str, caches: list[str]) -> dict:
    """The report's config: the command line, the harness's revision and how
    everything was timed."""
    return {
        "argv": sys.argv if argv is None else ["benchmark.py"] + list(argv),
        "harness_revision": git_revision(Path(__file__).resolve().parent.parent),
        "hyperfine": {"path": hyperfine, "version": tool_version([hyperfine, "--version"]), "warmup": args.warmup, "runs": args.runs, "output": args.hyperfine_output, "shell": "none"},
        "passes": args.passes,
        "cache": caches,
        "cold": {"runs": args.cold_runs, "warmup": 0, "prepare": DROP_CACHES_COMMAND},
        "fs": args.fs,
        "pfind_args": args.pfind_extra,
    }


def hyperfine_and_pfind(args) -> tuple[Optional[str], Optional[str]]:
    """The paths of hyperfine and of --pfind, or (None, None) once it has said which
    is missing."""
    hyperfine = which("hyperfine")
    if hyperfine is None:
        log("benchmark.py: hyperfine is required (apt-get install hyperfine, or cargo install hyperfine)")
        return None, None
    pfind_path = named_program(args.pfind)
    if pfind_path is None:
        log(f"benchmark.py: {pfind_missing(args.pfind)}")
        return None, None
    return hyperfine, pfind_path


def run_index(args, argv: Optional[list[str]] = None) -> int:
    """--index: the index's cells (see index_mode), their table and a report; with
    --dry-run, the cells and the skips, and nothing built, mounted or written."""
    started = time.monotonic()
    cold_why = cold_cache_unavailable() if COLD in args.cache else None
    targets = index_mode.targets_of(args)
    cells, skips = index_mode.plan(targets, args.cache, args.index_changes, cold_why)
    pfind_path = named_program(args.pfind)
    tools = index_mode.find_tools(pfind_path or args.pfind)
    skips += [f"index: {name}: {why}" for name, why in tools.skipped.items()]
    if args.index_latency and (why := latency_fs.fuse_unavailable()):
        skips.append(f"index {args.index_latency}: {why}")
    lines = index_mode.describe(cells)
    if say_plan(lines, skips, args.dry_run):
        return 0
    hyperfine, pfind_path = hyperfine_and_pfind(args)
    if pfind_path is None:
        return 2
    if args.index_giant:
        giant.ensure_giant(args.data_dir, 1_000_000, args.gen_jobs)

    def time_commands(named, prepare, cache):
        # plocate exits 1 when a query matches nothing (as grep does): a trusted
        # query with no match in a small target stopped the whole run. The
        # answers are checked before timing (index_mode.answers_agree).
        settings = cache_settings(args, cache) | {"prepare": prepare, "ignore_failure": True}
        results, orders = time_in_passes(hyperfine, named, output=args.hyperfine_output, passes=args.passes, **settings)
        return results

    def mount_latency(source):
        return latency_fs.LatencyMount(latency_fs.build_latencyfs(), source, 1000, writable=True)

    section = index_mode.run(args, hyperfine, pfind_path, time_commands, cold_why, None if args.index_latency is None else mount_latency)
    report = {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "index": section,
        "machine": machine_info(args.data_dir),
        "config": timing_config(args, argv, hyperfine, args.cache) | {"duration_seconds": round(time.monotonic() - started, 1)},
    }
    print("the index, ms: median\n" + index_mode.table(section["cells"]), flush=True)
    log(index_mode.summary_line(section))
    write_json_atomic(args.output, report)
    log(f"wrote {args.output}")
    return 0


GIANT, IO500_TREE = "giant", "io500-tree"


def run_giant_modes(args, argv: Optional[list[str]] = None) -> int:
    """--giant and --io500-tree: their cells on the data directory and each --fs
    (mounted as for the cells), in each --cache mode, then their tables and a
    report with a section each; with --dry-run, what would be timed and skipped,
    and nothing generated, mounted or written."""
    started = time.monotonic()
    hyperfine, pfind_path = hyperfine_and_pfind(args)
    if pfind_path is None:
        return 2
    peers, skipped_tools, path_ref = find_peers(args)
    if path_ref is None:
        log("benchmark.py: GNU find is needed to check the counts (apt-get install findutils)")
        return 2
    pfind = make_pfind(pfind_path, args.pfind_extra)
    giant_tools = giant.commands(pfind, args.giant_threads, [t for t in peers if t.name in giant.PEERS])

    euid = os.geteuid()
    places, fs_skipped = plan_places(args.fs, filesystem_of(args.data_dir), lambda fs: fs_unavailable(fs, euid))
    skip_lines = [f"--fs {fs}: {why}" for fs, why in fs_skipped.items()]
    if args.giant:
        skip_lines += [f"{GIANT}: {name}: {why}" for name, why in skipped_tools.items() if name in giant.PEERS]
    cold_why = cold_cache_unavailable() if COLD in args.cache else None
    plans: list[giant.TargetPlan] = []
    lines = []
    for mode, sizes, names in (
        (GIANT, args.giant or [], [giant.heading(t.name) for t in giant_tools]),
        (IO500_TREE, [args.io500_entries] if args.io500_tree else [], [n for n, _ in io500_tree.commands("DATADIR", pfind_path, args.pfind_extra, path_ref.path)]),
    ):
        if not sizes:
            continue
        planned, skipped = giant.plan_targets(mode, args.cache, [fs for fs, _ in places], sizes, cold_why)
        plans += planned
        skip_lines += skipped
        lines += giant.describe(planned) + [f"{mode} commands: {', '.join(names)}"]
    if say_plan(lines, skip_lines, args.dry_run):
        return 0
    if not plans:
        log("benchmark.py: nothing to time (see the skipped lines above)")
        return 2
    if any(where == HOME and any(p.fs == fs for p in plans) for fs, where in places) and data_dir_refused(args):
        return 2

    def time_commands(named, cache, env=None):
        timer = functools.partial(run_hyperfine, env=env) if env else run_hyperfine
        return time_in_passes(hyperfine, named, output=args.hyperfine_output, passes=args.passes, run=timer, **cache_settings(args, cache))

    sections = {GIANT: [], IO500_TREE: []}
    with contextlib.ExitStack() as stack:
        ready: dict[str, Place] = {}
        mounter = None
        for fs, where in places:
            if not any(p.fs == fs for p in plans):
                continue
            try:
                if where != HOME and mounter is None:
                    mounter = stack.enter_context(Mounter(args.fs_dir, args.fs_image_gib, args.fs_fresh))
                ready[fs] = home_place(args.data_dir, fs) if where == HOME else mounter.place_for(fs)
            except FsError as e:
                log(f"skipped --fs {fs}: {e}")
                skip_lines.append(f"--fs {fs}: {e}")
        trees = {}
        for plan in plans:
            if plan.fs not in ready or (plan.mode, plan.fs, plan.entries) in trees:
                continue
            place = ready[plan.fs]
            ensure = giant.ensure_giant if plan.mode == GIANT else io500_tree.ensure_io500_tree
            trees[(plan.mode, plan.fs, plan.entries)] = ensure(place.data_dir, plan.entries, args.gen_jobs, where="" if place.home else f"on {plan.fs}")
        plans = [p for p in plans if p.fs in ready]
        for i, plan in enumerate(plans, 1):
            root, manifest = trees[(plan.mode, plan.fs, plan.entries)]
            log(f"[{i}/{len(plans)}] {plan.label}")
            if plan.mode == GIANT:
                sections[GIANT].append(giant.run_cell(plan, str(root), manifest, giant_tools, path_ref, time_commands))
            else:
                sections[IO500_TREE].append(io500_tree.run_cell(plan, str(root), manifest, pfind_path, args.pfind_extra, path_ref.path, time_commands))
        filesystems = {fs: place.info for fs, place in ready.items()}

    report: dict = {"generated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    tables = []
    if sections[GIANT]:
        report["giant"] = {"threads": args.giant_threads, "sizes": args.giant, "ranks": giant.MDTEST_RANKS, "cells": sections[GIANT]}
        tables.append("giant directories, ms: median (min-max)\n" + giant.table(sections[GIANT]))
    if sections[IO500_TREE]:
        report["io500_tree"] = {"entries": args.io500_entries, "script": str(io500_tree.SCRIPT), "glob": io500_tree.GLOB, "cells": sections[IO500_TREE]}
        tables.append("IO500's find phase, ms: median (min-max)\n" + io500_tree.table(sections[IO500_TREE]))
    cells = sections[GIANT] + sections[IO500_TREE]
    machine = machine_info(args.data_dir)
    machine["filesystems"] = filesystems
    report.update(
        machine=machine,
        tools={t.name: t.describe() for t in [pfind] + peers},
        skipped_tools=skipped_tools,
        skipped=skip_lines,
        config=timing_config(args, argv, hyperfine, args.cache) | {"duration_seconds": round(time.monotonic() - started, 1)},
        pfind_correct=giant.all_correct(cells),
        all_timings_ok=not any(c.get("error") for c in cells),
    )
    print("\n\n".join(tables), flush=True)
    write_json_atomic(args.output, report)
    log(f"report written to {args.output} ({report['config']['duration_seconds'] / 60:.1f} min)")
    return 0 if report["pfind_correct"] and report["all_timings_ok"] else 1
def startup_commands(args, peers: list[Tool], floor: Optional[Tool]) -> list[startup.Command]:
    """--startup's commands: pfind (with --pfind-args), the spec's crate, the peers
    and floor, each listing every regular file of the root given."""
    pfind, extra = named_program(args.pfind) or args.pfind, list(args.pfind_extra)
    commands = [startup.Command("pfind", lambda root: [pfind, root, *extra])]
    if args.spec:
        spec = named_program(args.spec) or args.spec
        commands.append(startup.Command("spec", lambda root: [spec, root]))
    everything = SCENARIOS["all_files"]
    for tool in peers + ([floor] if floor else []):
        commands.append(startup.Command(tool.name, lambda root, tool=tool: tool.argv_for(root, everything)))
    return commands


def say_startup_plan(args, peers: list[Tool], skipped: dict[str, str]) -> int:
    """--startup --dry-run: the tools, trees and runs a run would time, each command
    line, and what is skipped; no floor built, no dataset made, nothing timed or
    written."""
    floor_path = named_program(args.floor) if args.floor else None
    floor = make_floor(floor_path, available_cpus()) if floor_path else None
    commands = startup_commands(args, peers, floor)
    names = [c.name for c in commands] + ([] if args.floor else ["floor"])
    lines = [
        f"start-up: {', '.join(names)} on {', '.join(startup.TREES)}: {args.startup_runs} timed runs each after "
        f"{startup.WARMUP} untimed rounds, interleaved",
        f"start-up trees: empty, a temporary directory; small and deep, under {args.data_dir} (made if missing)",
    ]
    lines += [f"start-up command {c.name}: {shlex.join(c.argv_for('ROOT'))}" for c in commands]
    if not args.floor:
        lines.append(f"start-up command floor: built from {FLOOR_SOURCE} by the run")
    lines.append(f"start-up report: {args.output}")
    skip_lines = [f"start-up: {name}: {why}" for name, why in skipped.items()]
    if args.floor and floor_path is None:
        skip_lines.append(f"start-up: floor: {args.floor} is not an executable")
    say_plan(lines, skip_lines, dry_run=True)
    return 0


def run_startup(args) -> int:
    """--startup: the table of startup.py, and its JSON report at --output; with
    --dry-run, what would be timed (say_startup_plan)."""
    if named_program(args.pfind) is None or (args.spec and named_program(args.spec) is None):
        log(f"{args.pfind if named_program(args.pfind) is None else args.spec}: not an executable")
        return 2
    peers, skipped = discover_peers(["bfs", "fd", "find"], chosen={"bfs": args.bfs} if args.bfs else None)
    if args.dry_run:
        return say_startup_plan(args, peers, skipped)
    for name, why in skipped.items():
        log(f"{name}: {why}")
    floor, why = find_floor(args)
    if why:
        log(f"floor: {why}")
    commands = startup_commands(args, peers, floor)
    if data_dir_refused(args):
        return 2
    with tempfile.TemporaryDirectory(prefix="pfind-bench-empty-") as empty:
        roots = {"empty": empty}
        for name in startup.TREES[1:]:
            roots[name] = str(ensure_dataset(args.data_dir, SHAPES[name])[0])
        log(f"start-up: {', '.join(c.name for c in commands)} on {', '.join(roots)}, {args.startup_runs} runs each, interleaved")
        section = startup.run_startup(roots, commands, args.startup_runs)
    names = [c.name for c in commands]
    print(startup.table(section["trees"], names))
    write_json_atomic(args.output, {"startup": section, "tools": {c.name: c.argv_for("ROOT") for c in commands}})
    log(f"wrote {args.output}")
    return 0


def data_dir_refused(args) -> bool:
    """True, once said in one line, when datasets cannot be made in --data-dir
    (issue 51: a directory another user made was a PermissionError traceback)."""
    why = unwritable_data_dir(args.data_dir)
    if why:
        log(why)
    return why is not None


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.plot:
        return plot_report(args.plot, args.assets_dir, args.plot_size, args.plot_format, args.plot_fs_scenario, args.plot_fs_size)
    if args.make_realistic:
        return make_realistic_tree(args)
    if args.pfind_said:
        log(args.pfind_said)
    if args.cluster is not None:
        return run_cluster(args, argv)
    if args.latency_fs:
        return run_latency_fs(args)
    if args.giant is not None or args.io500_tree:
        return run_giant_modes(args, argv)
    if args.index:
        return run_index(args, argv)
    if args.startup:
        return run_startup(args)
    started = time.monotonic()

    hyperfine, pfind_path = hyperfine_and_pfind(args)
    if pfind_path is None:
        return 2
    pfind = make_pfind(pfind_path, args.pfind_extra)
    peers, skipped_tools, path_ref = find_peers(args)
    for name, why in skipped_tools.items():
        log(f"skipping {name}: {why}")
    tools = [pfind] + peers

    # Plan everything before making anything, so every skip is said up front.
    home_fs = filesystem_of(args.data_dir)
    euid = os.geteuid()
    places, fs_skipped = ([], {}) if args.skip_cells else plan_places(args.fs, home_fs, lambda fs: fs_unavailable(fs, euid))
    skip_lines = [f"--fs {fs}: {why}" for fs, why in fs_skipped.items()]
    trees = list(args.tree)
    if trees and path_ref is None:
        skip_lines.append("--tree: GNU find is needed to check the answers on a real tree")
        trees = []
    cold_why = cold_cache_unavailable() if COLD in args.cache else None
    sel = Selection(
        caches=unique(args.cache),
        sizes=args.sizes,
        scenarios=unique(args.scenarios),
        fs_sizes=args.fs_sizes,
        cold_sizes=args.cold_sizes,
        cold_scenarios=unique(args.cold_scenarios),
        trees=trees,
        tree_scenarios=unique(args.tree_scenarios),
        threads=list(args.threads_sweep or []),
        sweep_targets=args.sweep_target,
        sweep_fs=unique(args.sweep_fs or [fs for fs, _ in places[:1]]),
        sweep_scenario=args.sweep_scenario,
        tree_fs={p: filesystem_of(Path(p)) for p in unique(trees + [t for t in args.sweep_target if split_sweep_target(t)[0] not in SIZE_ORDER])},
    )
    cells_plan, sweeps_plan, plan_skips = ([], [], []) if args.skip_cells else plan_cells(sel, places, cold_why)
    skip_lines += plan_skips
    extras, extra_skips = plan_extras(args, tools, path_ref, euid)
    skip_lines += extra_skips
    plan_lines = describe_plan(cells_plan, sweeps_plan) + [f"{part}: {what}" for part, what in extras.items()]
    if say_plan(plan_lines, skip_lines, args.dry_run):
        return 0
    if not cells_plan and not sweeps_plan and not extras:
        log("benchmark.py: nothing to time (see the skipped lines above)")
        return 2
    if "floor" in args.tools and (cells_plan or sweeps_plan):  # built only now: a dry run makes nothing
        floor, why = find_floor(args)
        if floor:
            tools.append(floor)
        else:
            log(f"skipping floor: {why}")
            skipped_tools["floor"] = why

    # A filesystem with nothing left to time (tmpfs when only cold cells were asked
    # for) is not made at all.
    needed = datasets_needed(cells_plan, sweeps_plan)
    places = [(fs, where) for fs, where in places if fs in needed]
    if any(where == HOME for _, where in places) and data_dir_refused(args):
        return 2
    with contextlib.ExitStack() as stack:
        mounter = None
        if any(where != HOME for _, where in places) or FIRST_PATH in extras:
            try:
                mounter = stack.enter_context(Mounter(args.fs_dir, args.fs_image_gib, args.fs_fresh))
            except FsError as e:  # --fs-dir's lock is held by another harness
                log(f"benchmark.py: {e}")
                return 2
        ready: dict[str, Place] = {}
        for fs, where in places:
            try:
                ready[fs] = home_place(args.data_dir, fs) if where == HOME else mounter.place_for(fs)
            except FsError as e:
                line = f"--fs {fs}: {e}"
                log(f"skipped {line}")
                skip_lines.append(line)
        cells_plan = [c for c in cells_plan if c.kind == TREE or c.fs in ready]
        sweeps_plan = [s for s in sweeps_plan if s.kind == TREE or s.fs in ready]
        datasets: dict[tuple[str, str], tuple[Path, dict]] = {}
        for fs, sizes in datasets_needed(cells_plan, sweeps_plan).items():
            place = ready[fs]
            for size in sizes:
                datasets[(fs, size)] = ensure_dataset(place.data_dir, SHAPES[size], args.gen_jobs, where="" if place.home else f"on {fs}")

        def root_of(item) -> tuple[str, Optional[dict]]:
            if item.kind == TREE:
                return item.target, None
            root, manifest = datasets[(item.fs, item.target)]
            return str(root), manifest

        cells = []
        for i, plan in enumerate(cells_plan, 1):
            root, manifest = root_of(plan)
            log(f"[{i}/{len(cells_plan)}] {plan.label}: timing {', '.join(t.name for t in tools)}")
            cells.append(run_cell(args, hyperfine, plan, root, manifest, tools, path_ref))
        sweeps = [run_sweep(args, hyperfine, s, root_of(s)[0], pfind) for s in sweeps_plan]
        filesystems = {fs: place.info for fs, place in ready.items()}
        early = run_early_quit(args, hyperfine, tools, path_ref) if EARLY_QUIT in extras else None
        shallow = run_shallow_order(args, tools, path_ref) if SHALLOW_ORDER in extras else None
        first = run_first_path(args, mounter, tools, path_ref) if FIRST_PATH in extras else None
        ignored = run_ignore_view(args, hyperfine, tools, skipped_tools) if IGNORE_VIEW in extras else None

    trees_info = {}
    for path in trees:
        counts = [c["correctness"]["expected"] for c in cells if c["target"] == path and c["scenario"] in ("all_files", "count_only")]
        trees_info[path] = {"fs": sel.tree_fs.get(path), "files": counts[0] if counts else None}
    machine = machine_info(args.data_dir)
    machine["filesystems"] = filesystems
    config = timing_config(args, argv, hyperfine, sel.caches) | {
        "sizes": args.sizes,
        "fs_sizes": args.fs_sizes,
        "cold_sizes": args.cold_sizes,
        "scenarios": {s: SCENARIOS[s].describe() for s in unique(args.scenarios + args.cold_scenarios + args.tree_scenarios)},
        "trees": trees,
        "name_glob": NAME_GLOB,
        "duration_seconds": round(time.monotonic() - started, 1),
    }
    report = make_report(
        machine=machine,
        tools=tools,
        skipped=skipped_tools,
        config=config,
        datasets={size: manifest for (_, size), (_, manifest) in datasets.items()},
        cells=cells,
        sweeps=sweeps,
        trees=trees_info,
        skipped_cells=skip_lines,
        early_quit=early,
        shallow_order=shallow,
        first_path=first,
        ignore_view=ignored,
    )
    write_json_atomic(args.output, report)

    print("\n\n".join(all_tables(report)))
    print()
    for line in summary_lines(report):
        print(line)
    log(tools_line(report))
    log(f"report written to {args.output} ({config['duration_seconds'] / 60:.1f} min)")
    return 0 if report["pfind_correct"] and report["all_timings_ok"] else 1
