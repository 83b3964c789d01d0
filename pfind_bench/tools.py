"""The tools under test: the scenarios, how each tool expresses each one on its
command line, where each tool is installed, and which version it is.

Peers get their closest equivalent of each scenario.  fd, rg, bfs and find have no
count-only mode, so for count_only they list every match into /dev/null and the
harness counts the lines of their untimed run.  floor (benches/floor.c, which the
harness compiles itself) is a *reference*: it shows the kernel's cost of the walk
but is not a competitor, so it never becomes the runner-up and only its
unfiltered counts are checked.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from .common import NAME_GLOB, log, named_program, run, tool_version, which


@dataclass(frozen=True)
class Scenario:
    """What to find: optional extension list, optional basename glob, or a count."""

    name: str
    exts: tuple[str, ...] = ()
    glob: Optional[str] = None
    count: bool = False

    def expected(self, manifest: Optional[dict]) -> Optional[int]:
        """The exact number of matches, from the manifest rather than any tool.

        None for a real tree (no manifest): there GNU find's answer is the expected
        one, which correctness.py obtains by running it."""
        if manifest is None:
            return None
        if self.exts:
            return sum(manifest["extensions"][e] for e in self.exts)
        if self.glob:
            return manifest["glob"][self.glob]
        return manifest["files"]

    def describe(self) -> dict:
        return {"extensions": list(self.exts), "glob": self.glob, "count": self.count}


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("all_files"),
        Scenario("extension_jpg", exts=("jpg",)),
        Scenario("extension_multi", exts=("jpg", "png", "txt")),
        Scenario("name_glob", glob=NAME_GLOB),
        Scenario("count_only", count=True),
    )
}
SCENARIO_ORDER = list(SCENARIOS)

# Roles decide how a tool enters the ranking: the subject is pfind, competitors
# can be the runner-up, references (floor) are shown but never ranked.
SUBJECT, COMPETITOR, REFERENCE = "subject", "competitor", "reference"


def pfind_argv(exe: str, root: str, sc: Scenario, extra: Iterable[str] = ()) -> list[str]:
    """pfind's own flags; ``extra`` (from --pfind-args) goes last so it can add options."""
    argv = [exe, root]
    for e in sc.exts:
        argv += ["-e", e]
    if sc.glob:
        argv += ["-n", sc.glob]
    if sc.count:
        argv.append("-c")
    return argv + list(extra)


def fd_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    """fd without ignore files or hidden-file skipping, so it sees what pfind sees.

    fd's -e already ignores case like pfind's; its glob uses smart case, so -s makes
    it case-sensitive like pfind's -n.  fd has no count mode: count_only lists.
    """
    argv = [exe, "-t", "f", "--no-ignore", "--hidden"]
    for e in sc.exts:
        argv += ["-e", e]
    if sc.glob:
        return argv + ["-s", "-g", sc.glob, root]
    return argv + [".", root]


def rg_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    """ripgrep's file lister; --iglob mirrors pfind's case-insensitive -e."""
    argv = [exe, "--no-config", "--files", "--no-ignore", "--hidden"]
    for e in sc.exts:
        argv += ["--iglob", f"*.{e}"]
    if sc.glob:
        argv += ["-g", sc.glob]
    return argv + [root]


def find_expression(sc: Scenario) -> list[str]:
    """The find/bfs expression for a scenario (shared: bfs accepts find syntax)."""
    expr = ["-type", "f"]
    if len(sc.exts) == 1:
        expr += ["-iname", f"*.{sc.exts[0]}"]
    elif sc.exts:
        alts: list[str] = []
        for e in sc.exts:
            alts += (["-o"] if alts else []) + ["-iname", f"*.{e}"]
        expr += ["("] + alts + [")"]
    if sc.glob:
        expr += ["-name", sc.glob]
    return expr


def find_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    return [exe, root] + find_expression(sc)


def floor_argv(exe: str, root: str, sc: Scenario, threads: int) -> list[str]:
    """floor has no filters: it prints every path for all_files and only counts
    otherwise, which is the least work any filtered walk can do."""
    argv = [exe, "-j", str(threads)]
    if sc.name == "all_files":
        argv.append("-p")
    return argv + [root]


# The os.walk baseline, run as `python3 -I -S -c OSWALK_SCRIPT ROOT COUNT GLOB EXT...`.
# It is kept standalone (not an import of this module) so its start-up cost is that
# of a plain Python script.  It avoids single quotes so shlex quoting stays simple.
OSWALK_SCRIPT = """\
import os, sys, fnmatch
root, count, glob = sys.argv[1:4]
exts = tuple("." + e.lower() for e in sys.argv[4:])
n = 0
out = sys.stdout
for d, _, files in os.walk(root):
    if exts:
        files = [f for f in files if f.lower().endswith(exts)]
    if glob:
        files = fnmatch.filter(files, glob)
    n += len(files)
    if count == "0" and files:
        out.write("".join(d + "/" + f + "\\n" for f in files))
if count == "1":
    out.write(str(n) + "\\n")
"""


def oswalk_argv(exe: str, root: str, sc: Scenario) -> list[str]:
    return [exe, "-I", "-S", "-c", OSWALK_SCRIPT, root, "1" if sc.count else "0", sc.glob or ""] + list(sc.exts)


@dataclass
class Tool:
    """An installed tool and how it expresses each scenario."""

    name: str
    role: str
    path: str
    version: str
    argv_for: Callable[[str, Scenario], list[str]]
    # Whether the tool prints a single integer (instead of paths) for a scenario.
    prints_count: Callable[[Scenario], bool] = lambda sc: False
    # Whether the tool's output for a scenario should equal the expected count.
    comparable: Callable[[Scenario], bool] = lambda sc: True

    def describe(self) -> dict:
        return {"path": self.path, "version": self.version, "version_number": parse_version(self.version), "role": self.role}

    @property
    def label(self) -> str:
        """Column heading: the name and version number, e.g. "bfs 4.1.4"."""
        number = parse_version(self.version)
        return f"{self.name} {number}" if number else self.name


PEER_NAMES = ("fd", "rg", "bfs", "find", "oswalk")
# What --tools may name: the peers and the reference.
TOOL_NAMES = PEER_NAMES + ("floor",)
# Executable names to try for each peer, preferred first (Debian ships fd as fdfind).
PEER_EXECUTABLES = {"fd": ("fd", "fdfind"), "rg": ("rg",), "bfs": ("bfs",), "find": ("find",)}
# Where `cargo install fd-find ripgrep` puts them, looked in even when not on PATH.
CARGO_BIN = str(Path.home() / ".cargo" / "bin")


_VERSION_NUMBER = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)\b")


def parse_version(line: str) -> Optional[str]:
    """The dotted version number in a `--version` line, e.g. "4.1.4" from "bfs
    4.1.4", "4.9.0" from "find (GNU findutils) 4.9.0", "6.2" from "mkfs.btrfs,
    part of btrfs-progs v6.2"; None when there is none (a build hash, "unknown")."""
    m = _VERSION_NUMBER.search(line or "")
    return m.group(1) if m else None


def major_version(line: str) -> Optional[int]:
    number = parse_version(line)
    return int(number.split(".")[0]) if number else None


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_pfind(path: str, extra_args: Iterable[str] = ()) -> Tool:
    extra = list(extra_args)
    return Tool(
        "pfind",
        SUBJECT,
        path,
        tool_version([path, "--version"]),
        lambda root, sc: pfind_argv(path, root, sc, extra),
        prints_count=lambda sc: sc.count,
    )


# floor's source, and where the harness compiles it: beside pfind's own build.
REPO = Path(__file__).resolve().parent.parent
FLOOR_SOURCE = REPO / "benches" / "floor.c"
FLOOR_BUILD = REPO / "target" / "bench" / "floor"


def build_floor(dest: Path = FLOOR_BUILD, source: Path = FLOOR_SOURCE, flags: Iterable[str] = ()) -> str:
    """The path of floor (or another C program of benches/, compiled with ``flags``
    after the source) compiled from ``source`` at ``dest``, compiling it when
    there is no binary there or the source is newer.  Raises RuntimeError when gcc
    is missing or fails, OSError when the source is."""
    if dest.exists() and dest.stat().st_mtime_ns >= source.stat().st_mtime_ns:
        return str(dest)
    gcc = which("gcc")
    if gcc is None:
        raise RuntimeError(f"gcc is needed to build {source}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(f".{dest.name}.partial-{os.getpid()}")  # a concurrent run never sees half a binary
    try:
        run([gcc, "-O2", "-pthread", "-o", str(partial), str(source), *flags], label="gcc")
        os.replace(partial, dest)
    finally:
        partial.unlink(missing_ok=True)
    log(f"built {dest} from {source}")
    return str(dest)


def make_floor(path: str, threads: int) -> Tool:
    return Tool(
        "floor",
        REFERENCE,
        path,
        f"floor.c build sha256:{file_sha256(path)[:12]}",
        lambda root, sc: floor_argv(path, root, sc, threads),
        prints_count=lambda sc: sc.name != "all_files",
        comparable=lambda sc: sc.name in ("all_files", "count_only"),
    )


def make_peer(name: str, path: str) -> Tool:
    builders = {"fd": fd_argv, "rg": rg_argv, "bfs": find_argv, "find": find_argv, "oswalk": oswalk_argv}
    build = builders[name]
    if name == "oswalk":
        version = f"Python {platform.python_version()} os.walk"
    else:
        version = tool_version([path, "--version"])
    # Only the os.walk baseline (our own script) has a count mode; the real peers
    # list matches and the harness counts the lines.
    prints_count = (lambda sc: sc.count) if name == "oswalk" else (lambda sc: False)
    return Tool(name, COMPETITOR, path, version, lambda root, sc: build(path, root, sc), prints_count=prints_count)


def discover_peers(
    wanted: Iterable[str], path: Optional[str] = None, chosen: Optional[dict[str, str]] = None
) -> tuple[list[Tool], dict[str, str]]:
    """Installed peers among ``wanted`` plus {name: reason} for the skipped ones.

    ``chosen`` maps a peer to the binary the user named (--bfs PATH); the others are
    looked up on PATH.  A missing peer is reported, not fatal: a report with fewer
    columns is still useful, and docs/benchmarks.md states which tools were present.
    """
    tools, skipped = [], {}
    chosen = chosen or {}
    for name in wanted:
        if name == "oswalk":
            tools.append(make_peer(name, sys.executable))
            continue
        if chosen.get(name):
            exe = named_program(chosen[name])
            if exe is None:
                skipped[name] = f"{chosen[name]} is not an executable"
                continue
        else:
            exe = which(*PEER_EXECUTABLES[name], path=path, also=[CARGO_BIN] if path is None else [])
        if exe is None:
            skipped[name] = "not installed (looked for " + ", ".join(PEER_EXECUTABLES[name]) + ")"
        else:
            tools.append(make_peer(name, exe))
    return tools, skipped


# The bfs the numbers in docs/benchmarks.md are measured against: bfs 4 reads directories through
# an asynchronous I/O queue (io_uring where it can), which bfs 2 and 3 do not have.
REFERENCE_BFS_MAJOR = 4


def peer_notes(tools: Iterable[Tool]) -> list[str]:
    """Warnings about peers that run but are not the ones docs/benchmarks.md compares with."""
    notes = []
    for t in tools:
        if t.name == "bfs":
            major = major_version(t.version)
            if major is not None and major < REFERENCE_BFS_MAJOR:
                notes.append(
                    f"note: {t.path} is {t.version}, not bfs {REFERENCE_BFS_MAJOR}; docs/benchmarks.md compares with bfs 4 "
                    "(see 'Reproducing the numbers' to build it, then pass --bfs PATH)"
                )
    return notes
