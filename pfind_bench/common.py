"""Small helpers every part of the harness uses: logging to stderr, order-keeping
de-duplication, and JSON files that are never seen half-written."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Iterable, Optional


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
