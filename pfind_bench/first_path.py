"""--first-path: on a cold tree, how soon the first path reaches a pipe, and how soon
the listing ends.

`pfind ROOT | head -1` or `| fzf` wants the first path at once, even when the walk
waits on the disk.  The tree lives on its own filesystem image (xfs by default,
--first-path-fs) attached through a loop device with direct I/O (`losetup
--direct-io=on`, see filesystems.py): the loop device reads the image past the
page cache of the disk that holds it.  Before every run the filesystem is
unmounted, the page cache dropped (`sync; echo 3 > /proc/sys/vm/drop_caches`) and
the filesystem mounted again, so every directory the walk reads waits on the disk.
Then the tool's binary and the shared libraries `ldd` lists for it are read whole
(untimed), so that loading the program is not part of the figure: the tree is cold,
the program is not.

The tree is a copy of a real one (default: /usr, copied with `cp -a
--attributes-only`: every directory, link and file, the files empty, since a
listing never reads them) or generated datasets (``medium deep``, built as in the
data directory), each under the image's mount point and reused by later runs while
its record matches (a copy records its source's file count).  Several sources are
walked as several roots of one command.

A small reader times each run: time.perf_counter() before the spawn, the first
`read(1)` of the tool's standard output (a pipe) returning one byte, the read that
returns end of file, and the tool's exit.  Commands: `pfind ROOT` at the default -j
and at each --first-path-threads (-j 2), `bfs ROOT -type f`, `fd -u -t f . ROOT`,
`find ROOT -type f`, `pfind ROOT -1`, and the pipeline `pfind ROOT | head -n 1`,
timed from the spawn until both processes exited (as a shell waits for it).  The
runs go round the commands (every second round reversed); each figure is the median
of ``runs`` (3), with min, max and every run kept.
"""

from __future__ import annotations

import os
import re
import shlex
import statistics
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterable, Optional

from .common import log, read_json, run, which, write_json_atomic
from .datasets import SHAPES, ensure_dataset

DEFAULT_SOURCES = ("/usr",)
DEFAULT_FS = "xfs"
FIRST_PATH_TOOLS = ("bfs", "fd", "find")
HEAD_LABEL = "pfind | head -1"
QUIT_LABEL = "pfind -1"
COPY_METHOD = ("cp", "-a", "--attributes-only")
CHUNK = 1 << 16


# ---------------------------------------------------------------------------
# Reading one run
# ---------------------------------------------------------------------------


def time_reader(argv: list[str], clock: Callable[[], float] = time.perf_counter) -> dict:
    """Run ``argv`` with its standard output a pipe and time, from just before the
    spawn: its first byte (None if it printed nothing), end of file, and its exit."""
    start = clock()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    first = proc.stdout.read(1)
    first_byte = clock() - start if first else None
    size, lines = len(first), first.count(b"\n")
    while True:
        chunk = proc.stdout.read(CHUNK)
        if not chunk:
            break
        size += len(chunk)
        lines += chunk.count(b"\n")
    eof = clock() - start
    proc.stdout.close()
    code = proc.wait()
    return {"first_byte": first_byte, "eof": eof, "exit": clock() - start, "bytes": size, "lines": lines, "exit_code": code}


def time_head(argv: list[str], head: str, clock: Callable[[], float] = time.perf_counter) -> dict:
    """``argv | head -n 1``: the time of head's first byte, and until both exited."""
    start = clock()
    producer = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        consumer = subprocess.Popen([head, "-n", "1"], stdin=producer.stdout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    finally:
        producer.stdout.close()  # head holds the read end now; pfind sees EPIPE when it exits
    first = consumer.stdout.read(1)
    first_byte = clock() - start if first else None
    rest = first + consumer.stdout.read()
    eof = clock() - start
    consumer.stdout.close()
    consumer.wait()
    code = producer.wait()
    return {"first_byte": first_byte, "eof": eof, "exit": clock() - start, "bytes": len(rest), "lines": rest.count(b"\n"), "exit_code": code}


def median_of(values: list[Optional[float]]) -> dict:
    """median, min and max of the values there are (a run that printed nothing has
    no first byte), and all of them."""
    present = [v for v in values if v is not None]
    out = {"median": None, "min": None, "max": None, "times": list(values)}
    if present:
        out.update(median=statistics.median(present), min=min(present), max=max(present))
    return out


def summarize_runs(runs: list[dict]) -> dict:
    """One command's figures over its runs."""
    return {
        "first_byte": median_of([r["first_byte"] for r in runs]),
        "eof": median_of([r["eof"] for r in runs]),
        "exit": median_of([r["exit"] for r in runs]),
        "lines": [r["lines"] for r in runs],
        "exit_codes": [r["exit_code"] for r in runs],
    }


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------


def first_path_commands(pfind: str, peers: dict[str, str], roots: list[str], threads: Iterable[int], extra: list[str]) -> list[tuple[str, list[str]]]:
    """(label, argv) of every command timed; ``peers`` maps bfs, fd, find to their
    paths (those --tools allows).  HEAD_LABEL's argv is its producer's."""
    named = [("pfind", [pfind, *roots, *extra])]
    named += [(f"pfind -j {n}", [pfind, *roots, *extra, "-j", str(n)]) for n in threads]
    if "bfs" in peers:
        named.append(("bfs", [peers["bfs"], *roots, "-type", "f"]))
    if "fd" in peers:
        named.append(("fd", [peers["fd"], "-u", "-t", "f", ".", *roots]))
    if "find" in peers:
        named.append(("find", [peers["find"], *roots, "-type", "f"]))
    named.append((QUIT_LABEL, [pfind, *roots, *extra, "-1"]))
    named.append((HEAD_LABEL, [pfind, *roots, *extra]))
    return named


def describe_command(label: str, argv: list[str], head: str) -> str:
    return shlex.join(argv) + (f" | {shlex.join([head, '-n', '1'])}" if label == HEAD_LABEL else "")


# ---------------------------------------------------------------------------
# The tree on the image
# ---------------------------------------------------------------------------


def copy_name(source: str) -> str:
    """A directory name for the copy of ``source``: /usr -> usr, /usr/share/doc ->
    usr_share_doc, / -> root."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.abspath(source).strip("/"))
    return name or "root"


def count_files(find: str, root: str) -> int:
    """Regular files under ``root`` (`find ROOT -type f`)."""
    return len(run([find, root, "-type", "f", "-printf", "."], check=False).stdout)


def ensure_copy(dest_dir: Path, source: str, find: str) -> tuple[Path, dict]:
    """(root, record) of the copy of ``source`` under ``dest_dir``, copying it when
    there is none or its record does not match (the source's file count changed).
    The copy is made under a temporary name and renamed when complete."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    name = copy_name(source)
    root, record_path = dest_dir / name, dest_dir / f"{name}.copy.json"
    record = {"source": os.path.abspath(source), "method": shlex.join(COPY_METHOD), "source_files": count_files(find, source)}
    if root.is_dir() and read_json(record_path) == record:
        return root, record
    record_path.unlink(missing_ok=True)
    partial = dest_dir / f".{name}.partial-{os.getpid()}"
    for stale in [root, *dest_dir.glob(f".{name}.partial-*")]:
        if stale.exists():
            run(["rm", "-rf", str(stale)])
    started = time.monotonic()
    log(f"copying {source} to {root} ({record['source_files']:,} files, their data left out)")
    run([*COPY_METHOD, os.path.abspath(source), str(partial)], label="cp")
    os.rename(partial, root)
    write_json_atomic(record_path, record)
    log(f"copied {source} in {time.monotonic() - started:.1f} s")
    return root, record


def prepare_roots(data_dir: Path, sources: list[str], find: str, jobs: int) -> tuple[list[str], list[dict]]:
    """The roots on the image, one per source, and what each one is."""
    roots, trees = [], []
    for source in sources:
        if source in SHAPES:
            root, manifest = ensure_dataset(data_dir / "datasets", SHAPES[source], jobs, where="for --first-path")
            trees.append({"source": source, "kind": "dataset", "root": str(root), "files": manifest["files"]})
        else:
            root, record = ensure_copy(data_dir / "copies", source, find)
            trees.append({"source": source, "kind": "copy", "root": str(root), "files": count_files(find, str(root)), **record})
        roots.append(str(root))
    return roots, trees


# ---------------------------------------------------------------------------
# The runs
# ---------------------------------------------------------------------------

_LIBRARY = re.compile(rb"(/\S+) \(0x[0-9a-fA-F]+\)")


def shared_libraries(ldd_output: bytes) -> list[str]:
    """The files of an `ldd` listing ("libc.so.6 => /lib/.../libc.so.6 (0x...)",
    "/lib64/ld-linux-x86-64.so.2 (0x...)"); none for a static binary."""
    return [m.group(1).decode(errors="replace") for m in _LIBRARY.finditer(ldd_output)]


def program_files(exe: str) -> list[str]:
    """``exe`` and the shared libraries it loads."""
    ldd = which("ldd")
    libs = shared_libraries(run([ldd, exe], check=False).stdout) if ldd else []
    return [exe, *libs]


def read_whole(paths: Iterable[str]) -> None:
    """Read files into the page cache."""
    for path in paths:
        try:
            with open(path, "rb") as f:
                while f.read(1 << 20):
                    pass
        except OSError:
            pass


def run_cold(named: list[tuple[str, list[str]]], runs: int, make_cold: Callable[[str], None], head: str) -> dict[str, list[dict]]:
    """Every command ``runs`` times, each run after ``make_cold(binary)``, in rounds
    of alternating order.  {label: [reading per run]}."""
    per: dict[str, list[dict]] = {n: [] for n, _ in named}
    for i in range(runs):
        for label, argv in named if i % 2 == 0 else list(reversed(named)):
            make_cold(argv[0])
            reading = time_head(argv, head) if label == HEAD_LABEL else time_reader(argv)
            per[label].append(reading)
            first = reading["first_byte"]
            log(f"  run {i + 1}/{runs} {label}: first byte {'-' if first is None else f'{first * 1e3:.1f}'} ms, end {reading['exit'] * 1e3:.1f} ms")
    return per


def ratios(results: dict[str, dict]) -> dict:
    """The figures issue 17 asks about: each pfind listing's median first byte over
    bfs's, and `pfind | head -1` end to end over `pfind -1`."""
    median = lambda label, what: ((results.get(label) or {}).get(what) or {}).get("median")
    out: dict = {"first_byte_vs_bfs": {}}
    bfs_first = median("bfs", "first_byte")
    for label in results:
        first = median(label, "first_byte")
        if label.startswith("pfind") and label not in (HEAD_LABEL, QUIT_LABEL) and first and bfs_first:
            out["first_byte_vs_bfs"][label] = first / bfs_first
    head, quit_ = median(HEAD_LABEL, "exit"), median(QUIT_LABEL, "exit")
    out["head_vs_quit"] = head / quit_ if head and quit_ else None
    return out


def measure(place, mounter, drop: Callable[[], None], sources: list[str], find: str, pfind: str, peers: dict[str, str], threads: list[int], extra: list[str], runs: int, jobs: int) -> dict:
    """The whole --first-path part on a mounted direct-I/O ``place``."""
    head = which("head")
    if head is None:
        raise RuntimeError("head is needed for `pfind | head -1`")
    roots, trees = prepare_roots(place.data_dir, sources, find, jobs)
    named = first_path_commands(pfind, peers, roots, threads, extra)

    programs = {argv[0]: program_files(argv[0]) for _, argv in named}
    programs[head] = program_files(head)

    def make_cold(binary: str) -> None:
        mounter.remount(place, drop)
        read_whole(programs[binary] + programs[head])

    log(f"first path, cold: {', '.join(sources)} on {place.fs} with direct I/O, {runs} runs of {', '.join(n for n, _ in named)}")
    per = run_cold(named, runs, make_cold, head)
    results = {label: summarize_runs(r) for label, r in per.items()}
    return {
        "fs": place.fs,
        "mount": place.info,
        "sources": sources,
        "roots": roots,
        "trees": trees,
        "files": sum(t["files"] for t in trees),
        "runs": runs,
        "before_each_run": "umount; sync; echo 3 > /proc/sys/vm/drop_caches; mount; read the tool's binary and shared libraries (untimed)",
        "commands": {n: describe_command(n, a, head) for n, a in named},
        "results": results,
        **ratios(results),
    }
