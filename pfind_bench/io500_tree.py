"""--io500-tree: IO500's find phase on the tree its mdtest phases leave, timed as
IO500 runs it (issue 36).

This module owns the tree, its commands, its count checks and its table.  The
tree (``DATADIR`` = data_dir/io500-SIZE, made once per filesystem and cached with a
manifest through datasets.ensure_tree):

    DATADIR/timestampfile                                       empty, older than every file
    DATADIR/mdtest-easy/test-dir.0-0/mdtest_tree.0/file.mdtest.R.I   empty (mdtest easy)
    DATADIR/mdtest-hard/test-dir.0-0/mdtest_tree.0/file.mdtest.R.I   3901 bytes (mdtest hard)

with --io500-entries files in all, half easy and half hard, named as giant.py
names them.  The hard files are sparse: the find phase reads their size, never
their data, so the tree costs no disk.  The timestamp file's time is set an hour
before the first file was made, as IO500 makes it before the mdtest phases.

IO500's find phase is `SCRIPT DATADIR -newer DATADIR/timestampfile -size 3901c
-name '*01*'`, scored by the entries scanned per second.  Timed side by side: the
repository's scripts/io500-find.sh (one pfind walk with --stats), pfind's plain
walk of the tree (`pfind DATADIR -c`, what issue 36's target is measured
against), the two-walk adapter that came before --stats (a filter walk for the
matches and a `-t any -c` walk for the entries scanned, in one bash command) and
GNU find with the same expression and -type f.  Every command runs once more
untimed: the script's and the adapter's `MATCHED found/scanned` must equal `find
DATADIR -newer F -size 3901c -name '*01*' -type f` (found) and `find DATADIR
-mindepth 1` (scanned), pfind -c find's `-type f` count, and find's own counts
the manifest's.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import time
from pathlib import Path
from typing import Callable, Optional

from .common import log, run
from .correctness import count_lines
from .datasets import ensure_tree
from .giant import MDTEST_RANKS, TargetPlan, cell_text, fill_directory, mdtest_names, rows_table, size_label, timed_cell
from .tools import REPO

GENERATOR_VERSION = 1
DEFAULT_ENTRIES = "400k"
HARD_BYTES = 3901
GLOB = "*01*"
TIMESTAMP_FILE = "timestampfile"
LEAF = ("test-dir.0-0", "mdtest_tree.0")
EASY, HARD = "mdtest-easy", "mdtest-hard"
# The directories below DATADIR: the two phases' top, test-dir and mdtest_tree.
DIRECTORIES = 2 * (1 + len(LEAF))
SCRIPT = REPO / "scripts" / "io500-find.sh"
TIMESTAMP_AGE = 3600  # seconds the timestamp file is older than the tree

SCRIPT_NAME, PLAIN, TWO_WALKS, FIND = "io500-find.sh", "pfind -c", "two walks", "find"
# The adapter before --stats: $1 pfind, $2 DATADIR, $3 the timestamp file, then
# pfind's extra options; the same last line as the script.
TWO_WALKS_SCRIPT = (
    'p=$1 d=$2 f=$3; shift 3; found=$("$p" "$@" "$d" --newer "$f" -S %db -n %s -c) && '
    'scanned=$("$p" "$@" "$d" -t any -c) && echo "MATCHED $found/$scanned"' % (HARD_BYTES, shlex.quote(GLOB))
)
_MATCHED = re.compile(rb"^MATCHED (\d+)/(\d+)\s*$")


def split_entries(n: int) -> tuple[int, int]:
    """(easy, hard) files of a tree of ``n``: half each, the odd one hard."""
    return n // 2, n - n // 2


def tree_manifest(n: int) -> dict:
    easy, hard = split_entries(n)
    found = len(fnmatch.filter(mdtest_names(hard), GLOB))
    return {
        "generator_version": GENERATOR_VERSION,
        "kind": "io500-tree",
        "name": f"io500-{size_label(n)}",
        "entries": n,
        "easy": easy,
        "hard": hard,
        "ranks": MDTEST_RANKS,
        "hard_bytes": HARD_BYTES,
        "hard_sparse": True,
        "glob": GLOB,
        "timestamp_age_seconds": TIMESTAMP_AGE,
        "files": n + 1,  # and the timestamp file
        "found": found,
        "scanned": n + 1 + DIRECTORIES,
    }


def leaf(root: Path, phase: str) -> Path:
    return root.joinpath(phase, *LEAF)


def ensure_io500_tree(data_dir: Path, n: int, jobs: int = 1, where: str = "") -> tuple[Path, dict]:
    """(DATADIR, its manifest): made once, reused while the manifest matches."""
    manifest = tree_manifest(n)
    label = f"{manifest['name']} {where}".rstrip()
    easy, hard = split_entries(n)

    def build(dest: Path) -> None:
        os.mkdir(dest)
        stamp = dest / TIMESTAMP_FILE
        stamp.touch()
        before = time.time() - TIMESTAMP_AGE
        for phase, count, size in ((EASY, easy, 0), (HARD, hard, HARD_BYTES)):
            leaf(dest, phase).mkdir(parents=True)
            fill_directory(leaf(dest, phase), mdtest_names(count), size, jobs, f"generating {label} {phase}")
        os.utime(stamp, (before, before))

    return ensure_tree(data_dir, manifest["name"], manifest, build, label), manifest


def find_expression(stamp: str) -> list[str]:
    """IO500's expression, with -type f (its pfind and ours count regular files)."""
    return ["-newer", stamp, "-size", f"{HARD_BYTES}c", "-name", GLOB, "-type", "f"]


def commands(root: str, pfind: str, extra: list[str], find: Optional[str], script: str = str(SCRIPT)) -> list[tuple[str, list[str]]]:
    """(name, argv) of what is timed; the script takes pfind from $PFIND (env())."""
    stamp = os.path.join(root, TIMESTAMP_FILE)
    named = [
        (SCRIPT_NAME, [script, *extra, root, "-newer", stamp, "-size", f"{HARD_BYTES}c", "-name", GLOB]),
        (PLAIN, [pfind, root, "-c", *extra]),
        (TWO_WALKS, ["bash", "-c", TWO_WALKS_SCRIPT, "two-walks", pfind, root, stamp, *extra]),
    ]
    if find:
        named.append((FIND, [find, root, *find_expression(stamp)]))
    return named


def env(pfind: str) -> dict:
    """The environment of every command: ours, with PFIND for the script."""
    return {**os.environ, "PFIND": pfind}


def parse_matched(out: bytes) -> Optional[tuple[int, int]]:
    """(found, scanned) from the last line `MATCHED found/scanned`, or None."""
    lines = out.strip().splitlines()
    m = _MATCHED.match(lines[-1]) if lines else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def reference_counts(root: str, find: str) -> dict:
    """find's answers: found (IO500's expression), scanned (-mindepth 1), files (-type f)."""
    stamp = os.path.join(root, TIMESTAMP_FILE)
    count = lambda expr: count_lines(run([find, root, *expr]).stdout)
    return {"found": count(find_expression(stamp)), "scanned": count(["-mindepth", "1"]), "files": count(["-type", "f"])}


def check_counts(named: list[tuple[str, list[str]]], reference: dict, manifest: dict, environment: dict) -> dict:
    """Each command once, untimed: what it printed against find's ``reference``
    ({found, scanned, files}), and the reference against the manifest."""
    checks = {"reference": reference, "reference_ok": all(reference[k] == manifest[k] for k in ("found", "scanned", "files")), "commands": {}}
    for name, argv in named:
        entry: dict = {}
        try:
            proc = run(argv, check=False, env=environment)
            entry["exit_code"] = proc.returncode
            if name in (SCRIPT_NAME, TWO_WALKS):
                got = parse_matched(proc.stdout)
                entry["found"], entry["scanned"] = got if got else (None, None)
                entry["ok"] = got == (reference["found"], reference["scanned"])
            elif name == PLAIN:
                entry["files"] = int(proc.stdout.strip()) if proc.stdout.strip().isdigit() else None
                entry["ok"] = entry["files"] == reference["files"]
            else:
                entry["found"] = count_lines(proc.stdout)
                entry["ok"] = entry["found"] == reference["found"]
            entry["ok"] = entry["ok"] and proc.returncode == 0
            if proc.returncode:
                entry["stderr"] = proc.stderr.decode(errors="replace").strip()[-500:]
        except OSError as e:
            entry.update(ok=False, error=str(e))
        checks["commands"][name] = entry
    checks["pfind_correct"] = checks["reference_ok"] and all(e["ok"] for n, e in checks["commands"].items() if n != FIND)
    return checks


def run_cell(plan: TargetPlan, root: str, manifest: dict, pfind: str, extra: list[str], find: str, time_commands: Callable) -> dict:
    """Time the commands on the tree in passes (``time_commands(named, cache,
    env)`` returns (results, orders)) and check every count."""
    environment = env(pfind)
    named = commands(root, pfind, extra, find)
    cell = timed_cell(plan, root, named, time_commands, environment)
    try:
        cell["correctness"] = check_counts(named, reference_counts(root, find), manifest, environment)
    except (RuntimeError, OSError) as e:
        cell["correctness"] = {"pfind_correct": False, "error": str(e), "commands": {}}
    check = cell["correctness"]
    if not check["pfind_correct"]:
        log(f"  counts disagree: {check.get('error') or check}")
    medians = {n: r["median"] for n, r in cell["results"].items()}
    if medians.get(SCRIPT_NAME) and medians.get(PLAIN):
        cell["script_vs_plain"] = medians[SCRIPT_NAME] / medians[PLAIN]
    if medians.get(SCRIPT_NAME) and medians.get(TWO_WALKS):
        cell["script_vs_two_walks"] = medians[SCRIPT_NAME] / medians[TWO_WALKS]
    return cell


def table(cells: list[dict]) -> str:
    """One row per cell: each command's median (min-max) in ms, the script's
    ratio to the plain walk and to the two walks, and the counts checked."""
    names = [SCRIPT_NAME, PLAIN, TWO_WALKS, FIND]

    def row(c: dict) -> list[str]:
        check = c.get("correctness", {})
        done, ref = check.get("commands", {}), check.get("reference")
        out = [cell_text(c["results"].get(n), done.get(n, {}).get("ok")) for n in names]
        out += [f"{c[k]:.2f}" if k in c else "—" for k in ("script_vs_plain", "script_vs_two_walks")]
        counts = f"{ref['found']:,}/{ref['scanned']:,}" if ref else "none"
        return out + [counts + ("" if check.get("pfind_correct") else " WRONG COUNT")]

    return rows_table(cells, names + ["script / plain walk", "script / two walks", "MATCHED found/scanned"], row)
