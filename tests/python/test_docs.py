"""The project's documents ship no recipe that builds another project's source
(issue 30, item 9): docs/benchmarks.md names the bfs and liburing versions and
build options the numbers were measured with and points at bfs's own build
instructions; `benchmark.py --bfs PATH` takes whatever build the reader has."""

from __future__ import annotations

import re
import unittest

from tests.python.support import REPO

# A command that configures, builds or installs C or C++ source.
BUILD_COMMAND = re.compile(r"(^|[\s;&|(])(\./configure|make|cmake|meson|ninja|autoreconf)(\s|$)")


def code_lines(text: str):
    """The lines of every fenced code block."""
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            yield line


class BuildRecipeTests(unittest.TestCase):
    def test_no_document_or_script_builds_another_project(self):
        files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "scripts").iterdir()), REPO / ".ci" / "run"]
        for path in files:
            text = path.read_text()
            lines = code_lines(text) if path.suffix == ".md" else text.splitlines()
            for line in lines:
                if line.lstrip().startswith("#"):
                    continue
                with self.subTest(path=path.name, line=line):
                    self.assertIsNone(BUILD_COMMAND.search(line))
                    self.assertNotRegex(line, r"git clone \S*(bfs|liburing)")

    def test_the_bfs_build_is_named_not_scripted(self):
        text = (REPO / "docs" / "benchmarks.md").read_text()
        for named in ("bfs 4.1.4", "liburing 2.9", "--enable-release", "io_uring", "--bfs PATH", "tavianator/bfs/blob/main/docs/BUILDING.md"):
            self.assertIn(named, " ".join(text.split()), named)


if __name__ == "__main__":
    unittest.main()
