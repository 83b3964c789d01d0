"""Correctness: every tool runs once more, untimed, with its output captured.

Its count is compared with the expected one, and pfind's exact set of paths with
the reference's (GNU find) byte for byte.  On a generated dataset the expected
count comes from the manifest; on a real tree (--tree) there is no manifest, so
GNU find's own answer for the scenario is the expected one.  Any pfind disagreement
makes the harness exit 1, because a fast wrong answer is not a result.  Each tool's
peak resident memory is read from the same run.
"""

from __future__ import annotations

import contextlib
import functools
import shlex
import subprocess
import tempfile
from typing import Optional

from .common import run, which
from .tools import Scenario, Tool


def count_lines(data: bytes) -> int:
    """Lines in a listing, counting an unterminated last line too."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def run_capture(argv: list[str], check: bool = True) -> bytes:
    """stdout of ``argv``; a non-zero exit is an error carrying its last stderr line
    (unless ``check`` is false)."""
    return run_measured(argv, check)[0]


def run_measured(argv: list[str], check: bool = True) -> tuple[bytes, Optional[int]]:
    """stdout of ``argv`` and the child's peak resident memory in KiB (None when GNU
    ``time`` is not installed).

    The peak is the kernel's own accounting (``ru_maxrss``), read by GNU ``time -f
    %M``.  It cannot be read here directly: Linux keeps a process's high-water mark
    across ``exec``, so any child forked from this Python process (or from a shell
    forked from it) starts with Python's own peak of some 20 MiB.  ``time`` is a
    small program that forks the tool itself, so the figure is the tool's alone.

    With ``check`` false a non-zero exit is accepted (a real tree may hold a
    directory nobody can read, and every walker then says so and exits 1)."""
    gnu_time = gnu_time_path()
    with tempfile.NamedTemporaryFile(mode="r") as rss_file:
        wrapped = [gnu_time, "-f", "%M", "-o", rss_file.name, *argv] if gnu_time else argv
        proc = run(wrapped, check=check, label=shlex.join(argv[:1]))
        rss_text = rss_file.read().strip().splitlines()
    max_rss = int(rss_text[-1]) if gnu_time and rss_text and rss_text[-1].isdigit() else None
    return proc.stdout, max_rss


@functools.lru_cache(maxsize=None)
def gnu_time_path() -> Optional[str]:
    """/usr/bin/time when it is GNU time (the only one with -f and -o), else None."""
    path = which("time", path="/usr/bin:/bin")
    if not path:
        return None
    probe = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return path if b"GNU" in probe.stdout else None


def output_count(tool: Tool, sc: Scenario, out: bytes) -> int:
    """The number of matches a tool reported, from a count line or its listing."""
    if tool.prints_count(sc):
        return int(out.strip())
    return count_lines(out)


def compare_paths(subject: bytes, reference: bytes, sample: int = 3) -> dict:
    """Compare two newline-separated listings as sets of byte strings.

    Order is ignored (parallel walkers print in any order) but duplicates are
    not: a path printed twice is a bug even if the set is right.
    """
    a = subject.splitlines()
    b = reference.splitlines()
    sa, sb = set(a), set(b)
    return {
        "equal": sa == sb and len(a) == len(sa),
        "subject_lines": len(a),
        "reference_lines": len(b),
        "duplicates": len(a) - len(sa),
        "only_subject": sorted(p.decode(errors="replace") for p in sa - sb)[:sample],
        "only_reference": sorted(p.decode(errors="replace") for p in sb - sa)[:sample],
    }


def correctness_check(
    tools: list[Tool], root: str, sc: Scenario, expected: Optional[int], path_reference: Optional[Tool], check_exit: bool = True
) -> dict:
    """Untimed runs of every tool: counts versus ``expected``, pfind's paths versus
    the reference tool's (GNU find, or the os.walk baseline if find is missing).

    ``expected`` None (a real tree) makes the reference's own count the expected
    one; the reference then runs first and its output serves both checks.
    ``check_exit`` false accepts non-zero exits (see run_measured)."""
    counts: dict[str, Optional[int]] = {}
    ok: dict[str, Optional[bool]] = {}
    errors: dict[str, str] = {}
    outputs: dict[str, bytes] = {}
    max_rss_kib: dict[str, Optional[int]] = {}
    measured: dict[str, tuple[bytes, Optional[int]]] = {}
    expected_from = "manifest"
    if expected is None:
        expected_from = path_reference.name if path_reference else None
        try:
            if path_reference is None:
                raise RuntimeError("no reference tool (GNU find) to take the expected count from")
            measured[path_reference.name] = run_measured(path_reference.argv_for(root, sc), check_exit)
            expected = count_lines(measured[path_reference.name][0])
        except (RuntimeError, OSError) as e:
            errors["expected"] = str(e)
    for tool in tools:
        max_rss_kib[tool.name] = None
        try:
            if tool.name in measured:
                out, max_rss_kib[tool.name] = measured[tool.name]
            else:
                out, max_rss_kib[tool.name] = run_measured(tool.argv_for(root, sc), check_exit)
            counts[tool.name] = output_count(tool, sc, out)
            if tool.name == "pfind" or (path_reference and tool.name == path_reference.name):
                outputs[tool.name] = out  # keep only what the path check needs (1M paths is ~40 MB)
        except (RuntimeError, ValueError, OSError) as e:
            counts[tool.name] = None
            errors[tool.name] = str(e)
        ok[tool.name] = (counts[tool.name] == expected) if tool.comparable(sc) and expected is not None else None
    paths = None
    if not sc.count and path_reference is not None and "pfind" in outputs:
        ref_out = outputs.get(path_reference.name)
        if ref_out is None and path_reference.name in measured:
            ref_out = measured[path_reference.name][0]
        if ref_out is None:
            with contextlib.suppress(RuntimeError, OSError):
                ref_out = run_capture(path_reference.argv_for(root, sc), check_exit)
        if ref_out is not None:
            paths = {"reference": path_reference.name, **compare_paths(outputs["pfind"], ref_out)}
    pfind_ok = ok.get("pfind") is True and (paths is None or paths["equal"])
    return {
        "expected": expected,
        "expected_from": expected_from,
        "counts": counts,
        "count_ok": ok,
        "errors": errors,
        "paths": paths,
        "pfind_correct": pfind_ok,
        "max_rss_kib": max_rss_kib,
    }
