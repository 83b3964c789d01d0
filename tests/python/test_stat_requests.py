"""Only the fields a run needs, counted in requests to latencyfs: a walk that reads
no stat asks nothing per file; -S, a time filter, --owner, -t x and -l each ask
the one lookup per file that any stat costs there (FUSE answers every field at
once, so no run asks more); --cached never asks the server again for each."""

from __future__ import annotations

import subprocess
import unittest

from tests.python.support import REPO, LatencyfsTest

from pfind_bench import latency_fs as lf

FUSE_MISSING = lf.fuse_unavailable()
PFIND = REPO / "target" / "release" / "pfind"


@unittest.skipIf(FUSE_MISSING, f"no FUSE here: {FUSE_MISSING}")
@unittest.skipUnless(PFIND.exists(), "no release build of pfind")
class StatRequestsTest(LatencyfsTest):
    def requests(self, *args: str) -> int:
        mount = lf.LatencyMount(self.binary, self.src, 0)
        with mount as point:
            subprocess.run([str(PFIND), point, "-j", "2", *args], check=True, capture_output=True)
        return mount.requests

    def test_each_filter_asks_one_lookup_per_file_and_no_more(self):
        # The tiny tree's three regular files (the link is not a candidate).
        files = 3
        walk = self.requests("-c")
        for args in (["-S", "+0"], ["--time", "accessed", "--changed-within", "1d"], ["--owner", "0"], ["-t", "x"], ["-l"]):
            with self.subTest(args=args):
                counted = args + ([] if args == ["-l"] else ["-c"])
                self.assertEqual(self.requests(*counted), walk + files)
        # Fresh from the server: one more request per file, and for the root.
        self.assertEqual(self.requests("-S", "+0", "-c", "--cached", "never"), walk + 2 * files + 1)
        self.assertEqual(self.requests("-S", "+0", "-c", "--cached", "always"), walk + files)


if __name__ == "__main__":
    unittest.main()
