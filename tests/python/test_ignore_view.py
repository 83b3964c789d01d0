"""Tests of pfind_bench.ignore_view and pfind_bench.realistic: git's answer (nested
repositories expanded, links and deleted files dropped), the hidden filter, the
set check, the commands, the table, a realistic tree, and a whole --ignore-view
run on a tiny repository (needs hyperfine and git; skipped without them)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import unittest
from unittest import mock

from tests.python.support import REPO, TempDirTest, fake_ignore_view, fake_report, quiet_start, quiet_stop
from pfind_bench import cli
from pfind_bench import ignore_view as iv
from pfind_bench import realistic
from pfind_bench import report as rp
from pfind_bench.common import which
from pfind_bench.tools import CARGO_BIN

setUpModule, tearDownModule = quiet_start, quiet_stop

GIT = shutil.which("git")
HYPERFINE = shutil.which("hyperfine")


def rows_of(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("|")[1:-1]] for line in table.splitlines() if line.startswith("| ") and not line.startswith("|--")]


def git(*argv: str, cwd) -> bytes:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run([GIT, "-c", "init.defaultBranch=main", *argv], cwd=cwd, env=env, check=True, capture_output=True).stdout


def write(root, rel: str, text: str = "x\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def new_repo(tmp, gitignore: str, files: tuple[str, ...]):
    """A repository at tmp/repo holding ``files`` and a .gitignore of
    ``gitignore``, nothing added yet."""
    repo = tmp / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    write(repo, ".gitignore", gitignore)
    for rel in files:
        write(repo, rel)
    return repo


class GitAnswerTests(TempDirTest):
    """git_answer with a stand-in lister over a real tree on disk."""

    def setUp(self):
        super().setUp()
        for rel in ("f1", "d/f2", "nested/x", "nested/.hidden", "sub/y", "sub/deep/z"):
            write(self.tmp, rel)
        (self.tmp / "nested" / ".git").mkdir()  # a nested repository: .git a directory
        write(self.tmp, "sub/.git", "gitdir: ../.git/modules/sub\n")  # a submodule: .git a file
        (self.tmp / "emptysub").mkdir()  # a submodule not checked out
        os.symlink("f1", self.tmp / "link")
        os.symlink("d", self.tmp / "dirlink")
        self.listings = {
            b".": b"f1\0d/f2\0link\0dirlink\0gone\0nested/\0sub\0emptysub\0",
            b"nested": b"x\0.hidden\0",
            b"sub": b"y\0deep/z\0",
        }

    def lister(self, directory: bytes) -> bytes:
        return self.listings[os.path.relpath(directory, os.fsencode(self.tmp))]

    def test_nested_repositories_expanded_links_and_deleted_files_dropped(self):
        files = iv.git_answer(os.fsencode(self.tmp), self.lister)
        self.assertEqual(files, {b"f1", b"d/f2", b"nested/x", b"nested/.hidden", b"sub/y", b"sub/deep/z"})

    def test_hidden_paths_are_those_with_a_component_starting_with_a_dot(self):
        paths = {b"a/b", b".a/b", b"a/.b", b"a/b.c", b"a/.b/c", b"a..b/c"}
        self.assertEqual(iv.without_hidden(paths), {b"a/b", b"a/b.c", b"a..b/c"})
        self.assertTrue(iv.is_hidden(b".github/x.yml"))

    @unittest.skipUnless(GIT, "needs git")
    def test_real_git_with_a_nested_repository_a_forced_file_and_a_link(self):
        root = self.tmp / "repo"
        root.mkdir()
        git("init", "-q", cwd=root)
        write(root, ".gitignore", "build/\n*.log\n")
        for rel in ("src/main.rs", "build/out.o", "build/vendored.js", "run.log", ".config/tool.toml", "untracked.txt"):
            write(root, rel)
        os.symlink("src/main.rs", root / "link")
        git("add", "src/main.rs", ".gitignore", "link", cwd=root)
        git("add", "-f", "build/vendored.js", cwd=root)
        write(root, "gone.txt")
        git("add", "gone.txt", cwd=root)
        (root / "gone.txt").unlink()  # in the index, not on the disk
        inner = root / "vendor" / "lib"
        inner.mkdir(parents=True)
        git("init", "-q", cwd=inner)
        write(inner, ".gitignore", "*.tmp\n")
        write(inner, "lib.c")
        write(inner, "scratch.tmp")
        files = iv.git_answer(os.fsencode(root), iv.git_lister(GIT))
        self.assertEqual(files, {b".gitignore", b"src/main.rs", b"build/vendored.js", b".config/tool.toml", b"untracked.txt", b"vendor/lib/.gitignore", b"vendor/lib/lib.c"})
        self.assertEqual(iv.without_hidden(files), {b"src/main.rs", b"build/vendored.js", b"untracked.txt", b"vendor/lib/lib.c"})


@unittest.skipUnless(GIT, "needs git")
class ReferenceTests(TempDirTest):
    """view_references on a repository with the rule files of issue 39: a .ignore
    hiding tracked generated docs (cargo's), a `!/.github/` (ripgrep's) and a
    `.gitignore` keeping `.env.example` (astro's)."""

    def setUp(self):
        super().setUp()
        files = ("src/main.rs", "doc/gen/cmd.md", "doc/intro.md", "notes/secret.md", ".github/ci.yml", ".github/.keep", ".env", ".env.example", ".config/tool.toml", "build/out.o", "scratch.txt")
        self.repo = new_repo(self.tmp, ".env*\n!.env.example\nbuild/\n", files)
        write(self.repo, ".ignore", "!/.github/\ndoc/gen/\n")
        write(self.repo, ".fdignore", "notes/secret.md\n")
        git("add", "src", "doc", "notes", ".github", ".ignore", ".gitignore", cwd=self.repo)

    def test_non_git_rule_files_hide_tracked_files_and_whitelists_show_hidden_names(self):
        refs = iv.view_references(str(self.repo), GIT)
        self.assertEqual(refs[iv.ALL], {b".ignore", b".fdignore", b".gitignore", b"src/main.rs", b"doc/intro.md", b".github/ci.yml", b".github/.keep", b".env.example", b".config/tool.toml", b"scratch.txt"})
        self.assertEqual(refs[iv.NOT_HIDDEN], {b"src/main.rs", b"doc/intro.md", b".github/ci.yml", b".env.example", b"scratch.txt"})

    @unittest.skipUnless(any((REPO / "target" / p / "pfind").exists() for p in ("release", "debug")), "needs a build of pfind")
    def test_the_real_pfind_gives_the_references(self):
        builds = [REPO / "target" / p / "pfind" for p in ("release", "debug")]
        pfind = str(max((b for b in builds if b.exists()), key=lambda b: b.stat().st_mtime))
        refs = iv.view_references(str(self.repo), GIT)
        for cmd in iv.view_commands(pfind, None, None, GIT)[:2]:
            check = iv.check_command(cmd, str(self.repo), refs, iv.view_env())
            self.assertTrue(check["ok"], (cmd.label, check))


class CompareTests(unittest.TestCase):
    def test_equal(self):
        check = iv.compare([b"a", b"b/c"], {b"a", b"b/c"}, iv.ALL)
        self.assertTrue(check["ok"])
        self.assertEqual((check["expected"], check["printed"], check["missing"], check["extra"]), (2, 2, 0, 0))
        self.assertEqual(iv.check_text(check), "= git (2)")

    def test_missing_and_extra_with_five_sorted_examples_each(self):
        expected = {b"keep", *(f"m{i}".encode() for i in range(7))}
        printed = [b"keep", b"z", b"y", b"x\xff"]
        check = iv.compare(printed, expected, iv.NOT_HIDDEN)
        self.assertFalse(check["ok"])
        self.assertEqual((check["missing"], check["extra"]), (7, 3))
        self.assertEqual(check["missing_examples"], ["m0", "m1", "m2", "m3", "m4"])
        self.assertEqual(check["extra_examples"], ["x\\xff", "y", "z"])
        self.assertEqual(iv.check_text(check), "≠ git, no hidden: missing 7, extra 3")

    def test_a_path_printed_twice_is_not_equal(self):
        check = iv.compare([b"a", b"a"], {b"a"}, iv.ALL)
        self.assertFalse(check["ok"])
        self.assertEqual(check["duplicates"], 1)
        self.assertEqual(iv.check_text(check), "≠ git: 1 printed twice")

    def test_parse_printed(self):
        self.assertEqual(iv.parse_printed(b"./a\0b/c\0./.d\0"), [b"a", b"b/c", b".d"])
        self.assertEqual(iv.parse_printed(b""), [])


class CommandTests(unittest.TestCase):
    def test_every_view_and_its_reference(self):
        cmds = iv.view_commands("/p", "/fd", "/rg", "/git", ["-j", "2"])
        self.assertEqual([(c.label, c.argv, c.reference) for c in cmds], [
            ("pfind --ignore", ["/p", "--ignore", "-j", "2"], iv.ALL),
            ("pfind -G", ["/p", "-G", "-j", "2"], iv.NOT_HIDDEN),
            ("fd --type f", ["/fd", "--type", "f"], iv.NOT_HIDDEN),
            ("fd --type f --hidden", ["/fd", "--type", "f", "--hidden"], iv.ALL),
            ("rg --files", ["/rg", "--no-config", "--files"], iv.NOT_HIDDEN),
            ("rg --files --hidden", ["/rg", "--no-config", "--files", "--hidden"], iv.ALL),
            ("git ls-files -co --exclude-standard", ["/git", "ls-files", "-co", "--exclude-standard"], iv.ALL),
        ])
        self.assertEqual([c.check_argv()[-1] for c in cmds], ["-0", "-0", "-0", "-0", "--null", "--null", "-z"])

    def test_missing_peers_are_left_out(self):
        self.assertEqual([c.label for c in iv.view_commands("/p", None, None, "/git")], ["pfind --ignore", "pfind -G", "git ls-files -co --exclude-standard"])

    def test_pfind_options_is_not_passed_on(self):
        self.assertEqual(iv.view_env({"PATH": "/bin", "PFIND_OPTIONS": "-G"}), {"PATH": "/bin"})

    def test_ratios_to_the_fastest(self):
        fastest, ratios = iv.ratios({"a": {"mean": 0.02}, "b": {"mean": 0.01}, "c": {}})
        self.assertEqual((fastest, ratios), ("b", {"a": 2.0, "b": 1.0}))
        self.assertEqual(iv.ratios({}), (None, {}))


class TableTests(unittest.TestCase):
    def test_ignore_view_table(self):
        table = rp.ignore_view_table(fake_report([], ignore_view=fake_ignore_view()))
        self.assertIn("### the developer's view on /r/app: git's answer 1,200 files, 1,100 without hidden names", table)
        rows = rows_of(table)
        self.assertEqual(rows[0], ["command", "mean ± σ", "vs fastest", "set check"])
        self.assertEqual(rows[1], ["pfind --ignore", "**10.0 ± 0.9 ms**", "1.00x", "= git (1,200)"])
        self.assertEqual(rows[3], ["fd --type f", "30.0 ± 2.7 ms", "3.00x", "≠ git, no hidden: missing 1"])
        self.assertEqual(rows[4][3], "≠ git: missing 1, extra 31")
        self.assertEqual(rows[5][:3], ["git ls-files -co --exclude-standard", "20.0 ± 1.8 ms", "2.00x"])
        self.assertIn("fd --type f --hidden, extra: .git/HEAD, .git/config, .git/description, .git/hooks/a, .git/hooks/b and 26 more", table)
        self.assertIn("fd --type f, missing: node_modules/a/index.js\n", table)
        self.assertIn("rg skipped: not installed (looked for rg).", table)

    def test_pfind_differing_from_git_makes_the_report_incorrect(self):
        self.assertTrue(fake_report([], ignore_view=fake_ignore_view())["pfind_correct"], "a peer differing is reported, not a failure")
        report = fake_report([], ignore_view=fake_ignore_view(pfind_ok=False))
        self.assertFalse(report["pfind_correct"])
        lines = rp.summary_lines(report)
        self.assertIn("correctness: pfind DISAGREES in ignore view", lines)
        self.assertIn("ignore view on /r/app: fastest pfind --ignore; pfind --ignore 1.00x, pfind -G 1.10x the fastest; "
                      "set checks differing: pfind --ignore, fd --type f, fd --type f --hidden, git ls-files -co --exclude-standard", lines)

    def test_a_failed_repository_fails_the_timings(self):
        report = fake_report([], ignore_view=fake_ignore_view(error="hyperfine exited 1"))
        self.assertFalse(report["all_timings_ok"])
        self.assertIn("ignore view: FAILED: /r/app: hyperfine exited 1", rp.summary_lines(report))
        self.assertIn("timing failed: hyperfine exited 1", rp.ignore_view_table(report))

    def test_a_schema_3_report_has_no_ignore_view(self):
        old = {"schema": 3, "machine": {"filesystem": "ext4"}, "tools": {}, "cells": [], "thread_sweeps": []}
        self.assertIsNone(rp.upgrade_report(old)["ignore_view"])
        self.assertEqual(rp.ignore_view_table(old), "")

    def test_printed_with_the_other_tables(self):
        self.assertIn("### the developer's view on /r/app", "\n\n".join(rp.all_tables(fake_report([], ignore_view=fake_ignore_view()))))


@unittest.skipUnless(GIT, "needs git")
class RealisticTests(TempDirTest):
    SCALE = 0.02

    def setUp(self):
        super().setUp()
        self.src = self.tmp / "src"
        self.src.mkdir()
        git("init", "-q", cwd=self.src)
        write(self.src, "README.md")
        write(self.src, "tools/gen.py")
        write(self.src, ".gitignore", "/target\n")
        git("add", ".", cwd=self.src)
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", cwd=self.src)

    def make(self, dest: str) -> dict:
        return realistic.make_realistic(str(self.src), str(self.tmp / dest), self.SCALE, GIT)

    def listing(self, dest: str) -> list[str]:
        root = self.tmp / dest
        return sorted(os.path.relpath(os.path.join(d, f), root) for d, dirs, files in os.walk(root) if ".git" not in d.split(os.sep) for f in files)

    def test_a_deterministic_tree_with_every_part(self):
        record = self.make("a")
        self.make("b")
        files = self.listing("a")
        self.assertEqual(files, self.listing("b"), "the same source and scale give the same tree")
        for prefix in ("target/debug/deps/", "target/debug/incremental/", "target/release/.fingerprint/", "node_modules/", ".venv/lib/python3.11/site-packages/", "scratch/"):
            self.assertTrue(any(f.startswith(prefix) for f in files), prefix)
        self.assertIn("tools/__pycache__/gen.cpython-311.pyc", files)
        self.assertTrue(any("/__pycache__/" in f and f.startswith("scratch/") for f in files))
        self.assertTrue(os.path.islink(self.tmp / "a" / ".venv" / "bin" / "python"))
        self.assertIn("node_modules/\n", (self.tmp / "a" / ".gitignore").read_text())
        answer = iv.git_answer(os.fsencode(self.tmp / "a"), iv.git_lister(GIT))
        forced = record["force_added"].encode()
        self.assertTrue(forced.startswith(b"node_modules/"))
        self.assertIn(forced, answer, "tracked though ignored")
        self.assertEqual([p for p in answer if p.startswith((b"target/", b".venv/")) or b"__pycache__" in p], [])
        self.assertEqual([p for p in answer if p.startswith(b"node_modules/")], [forced])
        self.assertTrue(any(p.startswith(b"scratch/") and p.endswith(b"/important.log") for p in answer), "the ! rule keeps it")
        self.assertFalse(any(p.startswith(b"scratch/") and p.endswith(b".log") and not p.endswith(b"important.log") for p in answer))
        self.assertTrue(any(p.startswith(b"scratch/.notes/") for p in answer), "hidden, untracked, listed by git")
        self.assertEqual((record["files"], record["listed_by_git"]), (len(files) - len([f for f in files if os.path.islink(self.tmp / "a" / f)]), len(answer)))

    def test_an_existing_dest_is_reused_or_refused(self):
        record = self.make("a")
        self.assertEqual(self.make("a"), record)
        with self.assertRaisesRegex(realistic.RealisticError, "another commit or scale"):
            realistic.make_realistic(str(self.src), str(self.tmp / "a"), 2 * self.SCALE, GIT)
        (self.tmp / "other").mkdir()
        with self.assertRaisesRegex(realistic.RealisticError, "was not made by --make-realistic"):
            self.make("other")


class ArgumentTests(TempDirTest):
    def test_defaults_and_bad_values(self):
        args = cli.parse_args([])
        self.assertEqual((args.ignore_view, args.ignore_view_runs, args.ignore_view_warmup, args.make_realistic, args.realistic_scale), ([], 10, 3, None, 1.0))
        for argv in (["--ignore-view-runs", "0"], ["--ignore-view-warmup", "-1"], ["--realistic-scale", "0"], ["--make-realistic", "a"]):
            with self.subTest(argv), mock.patch("sys.stderr", io.StringIO()):
                with self.assertRaises(SystemExit) as caught:
                    cli.parse_args(argv)
                self.assertEqual(caught.exception.code, 2)

    @unittest.skipUnless(GIT, "needs git")
    def test_dry_run_plans_work_trees_and_skips_the_rest(self):
        repo = self.tmp / "repo"
        repo.mkdir()
        git("init", "-q", cwd=repo)
        out = io.StringIO()
        with mock.patch("sys.stdout", out):
            code = cli.main(["--dry-run", "--pfind", shutil.which("true") or "/bin/true", "--skip-cells", "--tools", "find", "--ignore-view", str(repo), str(self.tmp)])
        self.assertEqual(code, 0)
        lines = out.getvalue().splitlines()
        self.assertIn(f"ignore view: {repo}, 3 warm-up and 10 runs each of pfind --ignore, pfind -G, git ls-files -co --exclude-standard", lines)
        self.assertIn(f"skipped ignore view on {self.tmp}: not inside a git work tree", lines)


# A stand-in pfind for the whole run: git's answer, computed its own way (git
# ls-files and lstat), hidden paths left out for -G, NUL-ended with -0.  DROP
# names a path it leaves out, to be caught.
STAND_IN = r"""import os, stat, subprocess, sys
DROP = %r
args = sys.argv[1:]
if "PFIND_OPTIONS" in os.environ:
    sys.exit("PFIND_OPTIONS reached the command")
out = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], capture_output=True, check=True).stdout
paths = [p for p in out.split(b"\0") if p and os.path.exists(p) and stat.S_ISREG(os.lstat(p).st_mode) and p != DROP]
if "-G" in args:
    paths = [p for p in paths if not any(c.startswith(b".") for c in p.split(b"/"))]
end = b"\0" if "-0" in args else b"\n"
sys.stdout.buffer.write(b"".join(p + end for p in paths))
"""


@unittest.skipUnless(HYPERFINE and GIT, "needs hyperfine and git")
class EndToEndTests(TempDirTest):
    def setUp(self):
        super().setUp()
        files = ("src/main.rs", "src/lib.rs", ".github/ci.yml", "node_modules/a/index.js", "node_modules/a/vendored.js", "debug.log", "notes.txt")
        self.repo = new_repo(self.tmp, "node_modules/\n*.log\n", files)
        git("add", ".gitignore", "src", ".github", cwd=self.repo)
        git("add", "-f", "node_modules/a/vendored.js", cwd=self.repo)

    def stand_in(self, drop: bytes = b"") -> str:
        path = self.tmp / "pfind"
        path.write_text(f"#!{sys.executable}\n" + STAND_IN % drop)
        path.chmod(0o755)
        return str(path)

    def run_main(self, pfind: str) -> tuple[int, dict, str]:
        out = self.tmp / "report.json"
        stdout = io.StringIO()
        with mock.patch("sys.stdout", stdout), mock.patch.dict(os.environ, {"PFIND_OPTIONS": "--bogus"}):
            code = cli.main(["--pfind", pfind, "--skip-cells", "--tools", "fd", "rg", "--ignore-view", str(self.repo),
                             "--ignore-view-runs", "2", "--ignore-view-warmup", "0", "--output", str(out)])
        return code, json.loads(out.read_text()), stdout.getvalue()

    def test_every_command_is_checked_and_timed_in_the_repository(self):
        code, report, stdout = self.run_main(self.stand_in())
        self.assertEqual(code, 0, stdout)
        self.assertEqual(report["schema"], 4)
        repo = report["ignore_view"]["repos"][0]
        self.assertEqual((repo["files"], repo["not_hidden"]), (6, 4), ".gitignore, .github/ci.yml, src x2, the forced file, notes.txt")
        labels = list(repo["commands"])
        self.assertEqual(labels[:2], ["pfind --ignore", "pfind -G"])
        self.assertEqual(labels[-1], "git ls-files -co --exclude-standard")
        for label in labels:
            self.assertEqual(len(repo["results"][label]["times"]), 4, "2 runs in each of 2 passes")
        self.assertTrue(repo["checks"]["pfind --ignore"]["ok"] and repo["checks"]["pfind -G"]["ok"])
        self.assertTrue(repo["checks"]["git ls-files -co --exclude-standard"]["ok"], "no link, no nested repository here")
        fd = which("fd", "fdfind", also=[CARGO_BIN])
        if fd:
            self.assertEqual(repo["checks"]["fd --type f"]["missing_examples"], ["node_modules/a/vendored.js"], "fd does not read the index")
        else:
            self.assertIn("fd", report["ignore_view"]["skipped_tools"])
        self.assertIn(repo["fastest"], labels)
        self.assertTrue(report["pfind_correct"] and report["all_timings_ok"])
        self.assertIn("### the developer's view on", stdout)
        self.assertIn("| pfind --ignore ", stdout)

    def test_a_pfind_missing_a_file_fails_the_run(self):
        code, report, stdout = self.run_main(self.stand_in(b"src/lib.rs"))
        self.assertEqual(code, 1)
        self.assertFalse(report["pfind_correct"])
        check = report["ignore_view"]["repos"][0]["checks"]["pfind --ignore"]
        self.assertEqual((check["missing"], check["missing_examples"]), (1, ["src/lib.rs"]))
        self.assertIn("pfind --ignore, missing: src/lib.rs", stdout)

    @unittest.skipUnless(any((REPO / "target" / p / "pfind").exists() for p in ("release", "debug")), "needs a build of pfind")
    def test_the_real_pfind_gives_gits_answer(self):
        # The newest build: a release binary left from before may be stale.
        builds = [REPO / "target" / p / "pfind" for p in ("release", "debug")]
        pfind = str(max((b for b in builds if b.exists()), key=lambda b: b.stat().st_mtime))
        code, report, stdout = self.run_main(pfind)
        checks = report["ignore_view"]["repos"][0]["checks"]
        self.assertTrue(checks["pfind --ignore"]["ok"] and checks["pfind -G"]["ok"], checks)
        self.assertEqual(code, 0, stdout)


if __name__ == "__main__":
    unittest.main()
