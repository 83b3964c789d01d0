"""What every part of the harness shares: logging to stderr, order-keeping
de-duplication, JSON files that are never seen half-written, finding and running
programs, and the name glob that both the datasets and the scenarios are built on."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Optional

# The name_glob scenario's pattern.  The datasets number their files 000000.. in
# creation order, so the second-to-last digit is 7 for exactly one file in ten of
# every full hundred: the pattern filters (rather than matching everything) on
# every shape, and it uses both wildcards the pfind matcher supports.
NAME_GLOB = "file_*7?.*"


def log(msg: str) -> None:
    """Progress and skip lines go to stderr, so stdout carries only the tables."""
    print(msg, file=sys.stderr, flush=True)


def unique(items: Iterable) -> list:
    """``items`` without repeats, first occurrence kept (argparse lists may repeat)."""
    return list(dict.fromkeys(items))


def read_json(path: Path) -> Optional[dict]:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON via a temp file and rename, so readers never see half a file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def which(*names: str, path: Optional[str] = None, also: Iterable[str] = ()) -> Optional[str]:
    """The first of ``names`` that is an executable in a directory of ``path``
    (default: $PATH) or, after those, of ``also``; a name with a slash is a file
    name and is only checked.  Every program the harness runs is found here."""
    search = os.pathsep.join([os.environ.get("PATH", "") if path is None else path, *also])
    for name in names:
        found = shutil.which(name, path=search)
        if found:
            return found
    return None


def named_program(given: str) -> Optional[str]:
    """The absolute path of a program named on the command line (--pfind, --bfs,
    --floor): a command on PATH, or else an executable file by that name."""
    found = which(given, also=[os.curdir])
    return os.path.abspath(found) if found else None


def run(
    argv: list[str],
    *,
    stdout=subprocess.PIPE,
    check: bool = True,
    label: Optional[str] = None,
    error: type[Exception] = RuntimeError,
    relay_stderr: bool = False,
    timeout: Optional[float] = None,
    cwd: Optional[str] = None,
    env: Optional[dict] = None,
) -> subprocess.CompletedProcess:
    """Run ``argv`` (no shell) with its stderr captured, as bytes like its stdout,
    in ``cwd`` with ``env`` when given (ours otherwise).

    With ``check``, a non-zero exit raises ``error``: "LABEL exited N: " and the
    last line of its stderr, LABEL being the program unless given.
    ``relay_stderr`` first logs the stderr whole (hyperfine's warnings)."""
    proc = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, timeout=timeout, cwd=cwd, env=env)
    messages = proc.stderr.decode(errors="replace").strip()
    if relay_stderr and messages:
        log(messages)
    if check and proc.returncode != 0:
        last = messages.splitlines()[-1] if messages else ""
        raise error(f"{label or shlex.join(argv[:1])} exited {proc.returncode}" + (f": {last}" if last else ""))
    return proc


def tool_version(argv: list[str]) -> str:
    """First non-empty line of ``argv``'s output (e.g. `fd --version`), or 'unknown'."""
    try:
        proc = run(argv, check=False, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    for line in (proc.stdout + b"\n" + proc.stderr).decode(errors="replace").splitlines():
        if line.strip():
            return line.strip()
    return "unknown"
