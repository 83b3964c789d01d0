#!/usr/bin/env bash
# The project's test command (see README, "Testing"): Rust unit, integration and
# oracle tests, and the benchmark harness's Python unit tests at the same time; then
# the oracle tests once more through the portable build (`--features portable`, the
# way macOS and the BSDs walk). It prints cargo's own lines as each build goes
# (a debug build takes minutes on a loaded machine, and silence looked like a
# hang), one line per test binary and suite, why each skipped Python test was
# skipped, every failure in full (its captured output and panic), and ends with one
# line totalling all, "tests: N passed, N failed", which CI reads; the status is 1
# if anything failed. PFIND_TEST_VERBOSE=1 prints everything cargo and unittest
# print instead, one suite after the other.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
verbose=${PFIND_TEST_VERBOSE:-}

# The tests' temporary directories go on a scratch ext4 filesystem of their own
# when we may make one (root, mkfs.ext4, a loop device), unmounted and removed at
# the end. Our machine's disk is ext4 without a journal, where the kernel checks
# every recently deleted inode again before it gives out a new one
# (fs/ext4/ialloc.c, recently_deleted(), skipped when there is a journal): the
# tests make and remove hundreds of thousands of files, and that check was three
# quarters of their time (the oracle tests: 20 s, 22 s of it in the kernel; 4.5 s
# on a fresh ext4 with its journal). Still ext4, and the tests that are about a
# filesystem mount their own (tests/feature/engine/giant.rs). Elsewhere, or with
# PFIND_TEST_SCRATCH=0, the usual temporary directory.
scratch_image=
scratch=
cleanup() {
    if [ -n "$scratch_image" ]; then
        # Lazily: a failed test may have left its own mount inside.
        umount -l "$scratch" 2>/dev/null
        rmdir "$scratch"
        rm -f "$scratch_image"
    fi
    rm -rf "$logs"
}
trap cleanup EXIT
# A signal ends the script through exit, so that the trap above still cleans up.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "${PFIND_TEST_SCRATCH:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null; then
    scratch_image=$(mktemp "${TMPDIR:-/tmp}/pfind-test-scratch.XXXXXX")
    # Not under $logs (0700): some tests run as nobody, who must reach it.
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/pfind-test-scratch.XXXXXX")
    # Sparse: only what the tests write takes space.
    if truncate -s 16G "$scratch_image" && mkfs.ext4 -q -F "$scratch_image" >/dev/null 2>&1 &&
        mount -o loop "$scratch_image" "$scratch" 2>/dev/null; then
        chmod 1777 "$scratch"
        export TMPDIR=$scratch
        echo "== scratch: tests' temporary files on a fresh ext4 ($scratch)"
    else
        rmdir "$scratch"
        rm -f "$scratch_image"
        scratch_image=
    fi
fi

# Builds with `cargo "$@"`, printing cargo's lines for each crate it compiles as it
# goes (issue 41); the whole output goes to $logs/build, printed on a failure. The
# filter is the shell's own loop, not awk: Debian's default awk (mawk) holds its
# input until the end, and the build looked silent for minutes (issue 51).
build() {
    cargo "$@" 2>&1 | tee "$logs/build" | progress
    [ "${PIPESTATUS[0]}" -eq 0 ]
}
# Prints "  Compiling NAME VERSION" and "  Finished PROFILE" for cargo's lines on
# stdin, each as soon as it is read.
progress() {
    local line verb what rest
    while IFS= read -r line; do
        if [[ $line =~ ^\ *(Compiling|Finished)\  ]]; then
            read -r verb what rest <<<"$line"
            echo "  $verb $what ${rest%% *}"
        fi
    done
}

echo "== build"
# First, so that a build error is shown alone, and so that the Python tests, which
# run target/debug/pfind, never see it half-written.
if ! build test --no-run; then
    cat "$logs/build"
    echo "tests: 0 passed, 1 failed"
    exit 1
fi

python_suite() {
    # -v always: its lines say why each skipped test was skipped.
    python3 -m unittest discover -s tests/python -t . -v >"$logs/python" 2>&1
    echo $? >"$logs/python.status"
}
if [ -z "$verbose" ]; then
    # Mostly waiting on subprocesses and the disk: it overlaps well with cargo's.
    python_suite &
    python_pid=$!
fi

echo "== cargo test"
# --no-fail-fast: one failing binary must not hide the others' results. `-q` is
# libtest's, one dot per test; cargo still names each binary as it runs it.
if [ -n "$verbose" ]; then
    cargo test --no-fail-fast 2>&1 | tee "$logs/cargo"
else
    cargo test --no-fail-fast -- -q >"$logs/cargo" 2>&1
fi
cargo_status=${PIPESTATUS[0]}
# One line per binary of the cargo log $1; a binary whose result is FAILED, or that
# ends without one (it crashed), is printed whole; each name is followed by $3. The
# totals go to $2.
summarize() {
    awk -v verbose="$verbose" -v total="$2" -v label="$3" '
    function close_section(   show) {
        if (name == "") return
        if (!result) { failed += 1; show = 1; status = "ended without a result (crashed?)" }
        if (!verbose && (show || failing)) printf "%s", buffer
        if (!verbose) printf "  %-32s %s\n", name label, status
        name = ""; buffer = ""; result = 0; failing = 0
    }
    /^ *(Running|Doc-tests) / {
        close_section()
        name = $0; sub(/^ *(Running|Doc-tests) /, "", name); sub(/ \(.*$/, "", name)
        if ($1 == "Doc-tests") name = "doc tests of " name
    }
    name != "" { buffer = buffer $0 "\n" }
    /^test result:/ && name != "" {
        result = 1; passed += $4; failed += $6; failing = ($6 > 0 || $3 != "ok.")
        status = $4 " passed, " $6 " failed" ($8 > 0 ? ", " $8 " ignored" : "")
        if (match($0, /finished in [0-9.]+s/)) status = status " (" substr($0, RSTART + 12, RLENGTH - 12) ")"
    }
    END { close_section(); print passed + 0, failed + 0 > total }
    ' "$1"
}
summarize "$logs/cargo" "$logs/total" ""
read -r rust_passed rust_failed <"$logs/total"
if [ "$cargo_status" -ne 0 ] && [ "$rust_failed" -eq 0 ]; then
    # cargo failed outside any test binary: show what it said.
    [ -n "$verbose" ] || cat "$logs/cargo"
    rust_failed=1
fi

echo "== benchmark harness (tests/python)"
if [ -n "$verbose" ]; then
    python_suite
    cat "$logs/python"
else
    wait "$python_pid"
fi
py_status=$(cat "$logs/python.status")
py_log=$logs/python
py_total=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$py_log")
py_failed=$(sed -n 's/.*(.*failures=\([0-9]*\).*/\1/p; s/.*(.*errors=\([0-9]*\).*/\1/p' "$py_log" | awk '{ s += $1 } END { print s + 0 }')
py_skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' "$py_log" | tail -n 1)
py_passed=$((${py_total:-0} - py_failed - ${py_skipped:-0}))
if [ "$py_status" -ne 0 ] && [ "$py_failed" -eq 0 ]; then
    py_failed=1
fi
if [ -z "$verbose" ]; then
    # Failures and errors are printed whole by unittest, after a line of '='; without
    # one (it did not get that far), the whole log.
    if [ "$py_status" -ne 0 ]; then
        if grep -q '^======' "$py_log"; then sed -n '/^======/,$p' "$py_log"; else cat "$py_log"; fi
    fi
    printf "  %-32s %s passed, %s failed, %s skipped (%s)\n" tests/python \
        "$py_passed" "$py_failed" "${py_skipped:-0}" "$(sed -n 's/^Ran .* in \(.*\)$/\1/p' "$py_log")"
    # Why each was skipped: unittest -v ends its line `... skipped 'why'`, on the
    # line of the test's name (`test_x (tests.python.m.C.test_x)`) or, for a test
    # with a docstring, on the next one.
    awk '
    /^test[^ ]* \(/ { id = $2; gsub(/[()]/, "", id) }
    / \.\.\. skipped / { why = $0; sub(/.* \.\.\. skipped /, "", why); print "    skipped " id ": " why }
    ' "$py_log"
fi

# A second run of one test binary built with a feature, its progress shown, its
# result summarised: `second_run NAME FEATURE TEST` sets $second_passed and
# $second_failed. Built first, so that a build error is counted as the run's.
second_run() {
    local name=$1 feature=$2 test=$3
    [ -n "$verbose" ] || build test --features "$feature" --no-run --test "$test" || true
    if [ -n "$verbose" ]; then
        cargo test --features "$feature" --no-fail-fast --test "$test" 2>&1 | tee "$logs/$name"
    else
        cargo test --features "$feature" --no-fail-fast --test "$test" -- -q >"$logs/$name" 2>&1
    fi
    local status=${PIPESTATUS[0]}
    summarize "$logs/$name" "$logs/$name.total" " ($name)"
    read -r second_passed second_failed <"$logs/$name.total"
    if [ "$status" -ne 0 ] && [ "$second_failed" -eq 0 ]; then
        [ -n "$verbose" ] || cat "$logs/$name"
        second_failed=1
    fi
}

# The plain binary, put back once the builds with features below have replaced
# it (a copy: `cargo build` took 18 s of CI to do the same).
plain_pfind=$logs/pfind
cp -p target/debug/pfind "$plain_pfind" 2>/dev/null || plain_pfind=

echo "== the portable path (tests/oracle.rs again, built with --features portable)"
# macOS and the BSDs walk with readdir and without Linux's helpers; the portable
# build does the same here, and the oracle tests hold it to find (see Cargo.toml).
# After the Python suite, which runs target/debug/pfind: this build replaces that
# binary until the copy made above is put back.
second_run portable portable oracle
portable_passed=$second_passed
portable_failed=$second_failed

echo "== the cluster binary (tests/mpi.rs, built with --features mpi, under mpirun)"
# pfind-mpi against pfind at 1 to 8 ranks on one machine (mpirun --oversubscribe),
# each run under a deadline. Needs Open MPI and libclang (the mpi crate's bindings),
# which CI installs; elsewhere it is skipped, saying so.
mpi_passed=0
mpi_failed=0
if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
    echo "  skipped: no MPI here (apt-get install openmpi-bin libopenmpi-dev clang libclang-dev)"
else
    second_run mpi mpi mpi
    mpi_passed=$second_passed
    mpi_failed=$second_failed
fi
if [ -n "$plain_pfind" ]; then
    cp -p "$plain_pfind" target/debug/pfind
else
    cargo build --quiet >/dev/null 2>&1 || true
fi

failed=$((rust_failed + py_failed + portable_failed + mpi_failed))
echo "tests: $((rust_passed + py_passed + portable_passed + mpi_passed)) passed, $failed failed"
[ "$failed" -eq 0 ]
