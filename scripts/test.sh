#!/usr/bin/env bash
# The project's test command (see README, "Testing"): Rust unit, integration and
# oracle tests, then the benchmark harness's Python unit tests when present.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test
if [ -d tests/python ]; then
    python3 -m unittest discover -s tests/python -t . -v
fi
