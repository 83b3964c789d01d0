#!/usr/bin/env bash
# The project's test command (see README, "Testing"): Rust unit, integration and
# oracle tests, then the benchmark harness's Python unit tests. Ends with one line
# totalling both, "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT

cargo test 2>&1 | tee "$log"
rust=$(awk '/^test result:/ { p += $4; f += $6 } END { printf "%d %d", p, f }' "$log")

python3 -m unittest discover -s tests/python -t . -v 2>&1 | tee "$log"
py_total=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log")
py_failed=$(sed -n 's/.*(.*failures=\([0-9]*\).*/\1/p; s/.*(.*errors=\([0-9]*\).*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
py_skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
py_passed=$(( ${py_total:-0} - py_failed - ${py_skipped:-0} ))

read -r rust_passed rust_failed <<< "$rust"
echo "tests: $(( rust_passed + py_passed )) passed, $(( rust_failed + py_failed )) failed"
