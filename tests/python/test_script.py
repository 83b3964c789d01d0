"""Tests of scripts/test.sh, the README's test command: what it prints for passing,
failing and crashing test binaries, a failing Python suite and the oracle tests'
second run through the portable build, and its last line, which CI reads.  cargo
and python3 are stand-ins on PATH that print what the real ones print, so no test
runs twice."""

from __future__ import annotations

import os
import shutil
import subprocess
import unittest
from pathlib import Path

from tests.python.support import REPO, TempDirTest

PASSING = """\
   Compiling pfind v0.1.0 (/src/pfind)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.30s
     Running unittests src/lib.rs (target/debug/deps/pfind-0123)

running 3 tests
...
test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.07s

"""

FAILING = """\
     Running tests/feature/main.rs (target/debug/deps/feature-4567)

running 2 tests
. 1/2
bad --- FAILED

failures:

---- bad stdout ----
captured words

thread 'bad' panicked at tests/feature/other.rs:2:48:
the reason

failures:
    bad

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.07s

error: test failed, to rerun pass `--test feature`
"""

CRASHING = """\
     Running tests/oracle.rs (target/debug/deps/oracle-89ab)

running 4 tests
..
error: test failed, to rerun pass `--test oracle`

Caused by:
  process didn't exit successfully: `target/debug/deps/oracle-89ab -q` (signal: 11, SIGSEGV)
"""

IGNORED = """\
     Running tests/feature/main.rs (target/debug/deps/feature-cdef)

running 2 tests
ii
test result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s

"""

# What `cargo test --features portable --test oracle` prints.
PORTABLE_OK = """\
     Running tests/oracle.rs (target/debug/deps/oracle-7788)

running 2 tests
..
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.30s

"""

# What `cargo test --features mpi --test mpi` prints.
MPI_OK = """\
     Running tests/mpi.rs (target/debug/deps/mpi-99aa)

running 2 tests
..
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 9.10s

"""

PORTABLE_FAILED = """\
     Running tests/oracle.rs (target/debug/deps/oracle-7788)

running 2 tests
.F
failures:

---- lost stdout ----
missing (1)

failures:
    lost

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.30s

error: test failed, to rerun pass `--test oracle`
"""

# What `unittest -v` prints: a line per test, a skipped one with its reason, on
# the line of its name or, for a test with a docstring, on the next one.
PYTHON_OK = """\
test_a (tests.python.test_y.Z.test_a) ... ok
test_b (tests.python.test_y.Z.test_b) ... skipped 'needs gcc'
test_c (tests.python.test_y.Z.test_c)
What test_c checks. ... skipped 'no sshfs here'
test_d (tests.python.test_y.Z.test_d) ... ok
test_e (tests.python.test_y.Z.test_e) ... ok
test_f (tests.python.test_y.Z.test_f) ... ok
test_g (tests.python.test_y.Z.test_g) ... ok

----------------------------------------------------------------------
Ran 7 tests in 0.5s

OK (skipped=2)
"""
BUILDING = """\
   Compiling libc v0.2.170
   Compiling pfind v0.1.0 (/src/pfind)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 3m 40s
"""
PYTHON_FAILED = """\
..F.
======================================================================
FAIL: test_x (tests.python.test_y.Z.test_x)
----------------------------------------------------------------------
AssertionError: the python reason

----------------------------------------------------------------------
Ran 4 tests in 0.1s

FAILED (failures=1)
"""


def script_env(bin_dir: Path, scratch: bool = False) -> dict[str, str]:
    """The environment of a run of test.sh with the stand-ins in `bin_dir` first
    on PATH; without `scratch`, no scratch filesystem is made (each one is a
    mkfs and a mount, as root)."""
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    env["PFIND_TEST_SCRATCH"] = "1" if scratch else "0"
    return env


class TestScriptTests(TempDirTest):
    def run_script(
        self,
        cargo_output: str,
        cargo_status: int,
        python_output: str,
        python_status: int,
        verbose: bool = False,
        portable: tuple[str, int] = (PORTABLE_OK, 0),
    ):
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        (self.tmp / "cargo.out").write_text(cargo_output)
        (self.tmp / "portable.out").write_text(portable[0])
        (self.tmp / "mpi.out").write_text(MPI_OK)
        (self.tmp / "python.out").write_text(python_output)
        (self.tmp / "building.out").write_text(BUILDING)
        stubs = {
            # `cargo test --no-run` and `cargo build` build; `cargo test` prints the
            # results, and `cargo test --features portable` those of the second run.
            "cargo": (
                f'case "$*" in *--no-run*) cat "{self.tmp}/building.out" >&2; exit 0;; build*) exit 0;; '
                f'*"--features portable"*) cat "{self.tmp}/portable.out"; exit {portable[1]};; '
                f'*"--features mpi"*) cat "{self.tmp}/mpi.out"; exit 0;; esac\n'
                f'cat "{self.tmp}/cargo.out"\nexit {cargo_status}\n'
            ),
            "python3": f'cat "{self.tmp}/python.out" >&2\nexit {python_status}\n',
            # The MPI run happens where mpirun and the MPI headers are found.
            "mpirun": "exit 0\n",
            "mpicc": "exit 0\n",
        }
        for name, body in stubs.items():
            (bin_dir / name).write_text("#!/bin/sh\n" + body)
            (bin_dir / name).chmod(0o755)
        env = script_env(bin_dir)
        env.pop("PFIND_TEST_VERBOSE", None)
        if verbose:
            env["PFIND_TEST_VERBOSE"] = "1"
        done = subprocess.run(["bash", str(REPO / "scripts" / "test.sh")], env=env, capture_output=True, text=True)
        return done.returncode, done.stdout

    def test_passing_binaries_print_one_line_each_and_the_total(self):
        code, out = self.run_script(PASSING + IGNORED, 0, PYTHON_OK, 0)
        self.assertEqual(code, 0, out)
        self.assertEqual(out.splitlines()[-1], "tests: 12 passed, 0 failed")
        self.assertRegex(out, r"unittests src/lib.rs +3 passed, 0 failed \(0.07s\)")
        self.assertRegex(out, r"tests/oracle.rs \(portable\) +2 passed, 0 failed \(0.30s\)")
        self.assertRegex(out, r"tests/feature/main.rs +0 passed, 0 failed, 2 ignored")
        self.assertRegex(out, r"tests/mpi.rs \(mpi\) +2 passed, 0 failed \(9.10s\)")
        self.assertRegex(out, r"tests/python +5 passed, 0 failed, 2 skipped \(0.5s\)")
        # Neither the dots nor the lines of a passing test binary.
        self.assertNotIn("running 3 tests", out)
        self.assertLessEqual(len(out.splitlines()), 24, out)

    def test_the_builds_show_their_progress_and_skipped_tests_their_reason(self):
        # Issue 41: a debug build of minutes printed nothing, which looked like a hang;
        # skipped Python tests were counted without a word of why.
        code, out = self.run_script(PASSING, 0, PYTHON_OK, 0)
        self.assertEqual(code, 0, out)
        build = out[out.index("== build"):out.index("== cargo test")]
        self.assertIn("  Compiling pfind v0.1.0\n", build)
        self.assertIn("  Compiling libc v0.2.170\n", build)
        self.assertIn("  Finished `test` profile\n", build)
        portable = out[out.index("== the portable path"):]
        self.assertIn("  Compiling pfind v0.1.0\n", portable)
        self.assertIn("    skipped tests.python.test_y.Z.test_b: 'needs gcc'\n", out)
        self.assertIn("    skipped tests.python.test_y.Z.test_c: 'no sshfs here'\n", out)
        self.assertEqual(out.count("skipped tests."), 2, out)

    def test_failures_are_printed_whole_and_counted(self):
        code, out = self.run_script(PASSING + FAILING + CRASHING + IGNORED, 101, PYTHON_FAILED, 1)
        self.assertEqual(code, 1, out)
        # One failed test in feature, the crashed oracle binary, one failed Python test.
        self.assertEqual(out.splitlines()[-1], "tests: 11 passed, 3 failed")
        for shown in ("captured words", "the reason", "signal: 11, SIGSEGV", "the python reason"):
            self.assertIn(shown, out)
        self.assertRegex(out, r"tests/oracle.rs +ended without a result")
        self.assertNotIn("running 3 tests", out, "a passing binary is one line")

    def test_verbose_prints_everything_in_order_and_the_same_total(self):
        code, out = self.run_script(PASSING + FAILING, 101, PYTHON_FAILED, 1, verbose=True)
        self.assertEqual(code, 1, out)
        self.assertEqual(out.splitlines()[-1], "tests: 11 passed, 2 failed")
        for shown in ("running 3 tests", "captured words", "the python reason"):
            self.assertIn(shown, out)
        self.assertLess(out.index("== cargo test"), out.index("running 3 tests"))
        self.assertLess(out.index("== benchmark harness"), out.index("the python reason"))

    def test_the_portable_run_is_counted_and_its_failures_shown(self):
        code, out = self.run_script(PASSING, 0, PYTHON_OK, 0, portable=(PORTABLE_FAILED, 101))
        self.assertEqual(code, 1, out)
        self.assertEqual(out.splitlines()[-1], "tests: 11 passed, 1 failed")
        self.assertRegex(out, r"tests/oracle.rs \(portable\) +1 passed, 1 failed")
        self.assertIn("missing (1)", out)
        self.assertLess(out.index("== the portable path"), out.index("missing (1)"))

    def streams_while_building(self, awk: str | None) -> tuple[bool, str]:
        """Runs test.sh with a cargo whose build prints a line, then waits for the
        test to say go: (whether that line reached test.sh's stdout while cargo was
        still waiting, all test.sh printed). ``awk`` is put first on PATH as awk."""
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        go, gave_up = self.tmp / "go", self.tmp / "gave-up"
        # The wait is bounded (100 x 0.1 s) so that a filter holding its input ends
        # the test instead of hanging it; the marker says it was reached.
        wait = f'i=0; until [ -e "{go}" ]; do i=$((i+1)); [ $i -gt 100 ] && {{ : >"{gave_up}"; break; }}; sleep 0.1; done'
        (bin_dir / "cargo").write_text(
            "#!/bin/sh\n"
            f'case "$*" in *--no-run*) echo "   Compiling libc v0.2.170" >&2; {wait}; echo "    Finished \\`test\\` profile [unoptimized] target(s) in 9s" >&2; exit 0;; esac\n'
            "exit 0\n"
        )
        (bin_dir / "python3").write_text("#!/bin/sh\necho 'Ran 0 tests in 0.0s' >&2\n")
        for name in ("cargo", "python3"):
            (bin_dir / name).chmod(0o755)
        if awk:
            (bin_dir / "awk").symlink_to(awk)
        env = script_env(bin_dir)
        env.pop("PFIND_TEST_VERBOSE", None)
        with subprocess.Popen(["bash", str(REPO / "scripts" / "test.sh")], env=env, stdout=subprocess.PIPE, text=True) as script:
            seen = []
            for line in script.stdout:
                seen.append(line)
                if "Compiling libc" in line:
                    break
            streamed = not gave_up.exists()
            go.touch()
            rest = script.stdout.read()
        return streamed, "".join(seen) + rest

    def test_the_build_streams_while_cargo_is_still_building(self):
        # Issue 51: under mawk, Debian's default awk, the build's lines came all at
        # once after minutes of silence.
        streamed, out = self.streams_while_building(None)
        self.assertTrue(streamed, out)
        self.assertIn("  Finished `test` profile\n", out)

    @unittest.skipUnless(shutil.which("mawk"), "needs mawk (apt-get install mawk), which holds its input")
    def test_the_build_streams_with_mawk_as_awk(self):
        streamed, out = self.streams_while_building(shutil.which("mawk"))
        self.assertTrue(streamed, out)
        self.assertEqual(out.splitlines()[-1], "tests: 0 passed, 0 failed")

    def test_a_build_error_is_shown_and_fails(self):
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        (bin_dir / "cargo").write_text("#!/bin/sh\necho 'error[E0425]: cannot find value'\nexit 101\n")
        (bin_dir / "cargo").chmod(0o755)
        env = script_env(bin_dir)
        done = subprocess.run(["bash", str(REPO / "scripts" / "test.sh")], env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertIn("error[E0425]", done.stdout)
        self.assertEqual(done.stdout.splitlines()[-1], "tests: 0 passed, 1 failed")

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("mkfs.ext4") and shutil.which("findmnt"),
                         "needs root, mkfs.ext4 and findmnt to make the scratch filesystem")
    def test_the_tests_get_a_fresh_ext4_that_is_gone_after_the_run(self):
        # Issue 50: the tests' temporary files go on an ext4 of their own, with a
        # journal; it is unmounted and its image removed however the run ends.
        for status in (0, 101):
            with self.subTest(status=status):
                bin_dir = self.tmp / f"bin{status}"
                bin_dir.mkdir()
                seen = self.tmp / f"seen{status}"
                (bin_dir / "cargo").write_text(
                    "#!/bin/sh\n"
                    f'findmnt -n -o FSTYPE --target "$TMPDIR" >"{seen}"; findmnt -n -o TARGET --target "$TMPDIR" >>"{seen}"\n'
                    f'echo "$TMPDIR" >>"{seen}"\nexit {status}\n'
                )
                (bin_dir / "python3").write_text("#!/bin/sh\necho 'Ran 0 tests in 0.0s' >&2\n")
                for name in ("cargo", "python3"):
                    (bin_dir / name).chmod(0o755)
                outer = self.tmp / f"outer{status}"
                outer.mkdir()
                env = script_env(bin_dir, scratch=True)
                env["TMPDIR"] = str(outer)
                done = subprocess.run(["bash", str(REPO / "scripts" / "test.sh")], env=env, capture_output=True, text=True)
                self.assertEqual(done.returncode, 1 if status else 0, done.stdout + done.stderr)
                fstype, mount_point, tmpdir = seen.read_text().splitlines()
                self.assertEqual(fstype, "ext4")
                self.assertEqual(mount_point, tmpdir, "TMPDIR is the scratch filesystem's root")
                with open("/proc/self/mountinfo") as mounts:
                    self.assertNotIn(f" {tmpdir} ", mounts.read())
                self.assertFalse(Path(tmpdir).exists(), "its mount point is removed")
                self.assertEqual(list(outer.iterdir()), [], "its image is removed")


if __name__ == "__main__":
    unittest.main()
