"""Tests of pfind_bench.datasets: the shapes, the deterministic plan and manifest,
and building trees safely (reuse, interrupted builds, stale manifests)."""

from __future__ import annotations

import collections
import json
import os
import re
from pathlib import Path
from unittest import mock
import unittest

from tests.python.support import SC, TempDirTest, quiet_start, quiet_stop
from pfind_bench import datasets as ds

setUpModule, tearDownModule = quiet_start, quiet_stop


def tree_counts(root: Path) -> tuple[int, collections.Counter, int]:
    """(number of directories below root, files per extension, files at the root)."""
    dirs, exts = 0, collections.Counter()
    for d, subdirs, files in os.walk(root):
        dirs += len(subdirs)
        for f in files:
            exts[f.rsplit(".", 1)[1]] += 1
    top_files = sum(1 for e in os.scandir(root) if e.is_file())
    return dirs, exts, top_files


class ShapeTests(unittest.TestCase):
    def test_every_shape_has_the_documented_size(self):
        expected = {
            "small": (100, 10_000),
            "medium": (100, 100_000),
            "large": (1_000, 1_000_000),
            "deep": (363, 7_260),
            "wide": (2_000, 100_000),
        }
        for name, (dirs, files) in expected.items():
            with self.subTest(name):
                shape = ds.SHAPES[name]
                self.assertEqual(len(shape.dir_paths()), dirs)
                self.assertEqual(shape.total_files, files)

    def test_deep_is_a_complete_ternary_tree_of_depth_five(self):
        paths = ds.SHAPES["deep"].dir_paths()
        by_depth = collections.Counter(p.count("/") + 1 for p in paths)
        self.assertEqual(by_depth, {1: 3, 2: 9, 3: 27, 4: 81, 5: 243})
        seen = set()
        for p in paths:  # parents are listed before their children
            parent = p.rpartition("/")[0]
            self.assertTrue(parent == "" or parent in seen, p)
            seen.add(p)

    def test_plan_is_deterministic_and_numbered_consecutively(self):
        shape = ds.SHAPES["small"]
        plan = ds.plan_files(shape)
        self.assertEqual(plan, ds.plan_files(shape))
        names = [n for _, ns in plan for n in ns]
        pattern = re.compile(r"file_(\d{6})\.(jpg|png|txt|json|py|bin)")
        numbers = [int(pattern.fullmatch(n).group(1)) for n in names]
        self.assertEqual(numbers, list(range(shape.total_files)))
        self.assertNotEqual(plan, ds.plan_files(shape, seed=ds.SEED + 1))

    def test_extension_mix_follows_the_weights(self):
        manifest = ds.manifest_for(ds.SHAPES["medium"], ds.plan_files(ds.SHAPES["medium"]))
        total = manifest["files"]
        self.assertEqual(sum(manifest["extensions"].values()), total)
        for ext, weight in zip(ds.EXTENSIONS, ds.EXT_WEIGHTS):
            with self.subTest(ext):
                self.assertAlmostEqual(manifest["extensions"][ext] / total, weight / 100, delta=0.01)

    def test_name_glob_filters_on_every_shape(self):
        self.assertIn("*", ds.NAME_GLOB)
        self.assertIn("?", ds.NAME_GLOB)
        for name, shape in ds.SHAPES.items():
            with self.subTest(name):
                manifest = ds.manifest_for(shape, ds.plan_files(shape))
                matches = manifest["glob"][ds.NAME_GLOB]
                self.assertGreater(matches, 0)
                self.assertLess(matches, manifest["files"])
        deep = ds.manifest_for(ds.SHAPES["deep"], ds.plan_files(ds.SHAPES["deep"]))
        self.assertEqual(deep["glob"][ds.NAME_GLOB], 720)

    def test_scenario_expectations_come_from_the_manifest(self):
        m = {"files": 100, "extensions": {"jpg": 40, "png": 30, "txt": 10}, "glob": {ds.NAME_GLOB: 9}}
        self.assertEqual(SC["all_files"].expected(m), 100)
        self.assertEqual(SC["count_only"].expected(m), 100)
        self.assertEqual(SC["extension_jpg"].expected(m), 40)
        self.assertEqual(SC["extension_multi"].expected(m), 80)
        self.assertEqual(SC["name_glob"].expected(m), 9)


class GenerationTests(TempDirTest):
    big_trees = True
    TINY = ds.Shape("tiny", "flat", dirs=6, files_per_dir=25)

    def assert_tree_matches(self, root: Path, shape: ds.Shape, manifest: dict):
        dirs, exts, top = tree_counts(root)
        self.assertEqual(dirs, len(shape.dir_paths()))
        self.assertEqual(dict(exts), {e: n for e, n in manifest["extensions"].items() if n})
        self.assertEqual(sum(exts.values()), shape.total_files)
        self.assertEqual(top, 0, "the root holds directories only")

    def test_real_small_and_deep_shapes_on_disk(self):
        for name in ("small", "deep"):
            with self.subTest(name):
                shape = ds.SHAPES[name]
                root, manifest = ds.ensure_dataset(self.tmp, shape)
                self.assertEqual(root, self.tmp / name)
                self.assert_tree_matches(root, shape, manifest)
                self.assertEqual(json.loads((self.tmp / f"{name}.manifest.json").read_text()), manifest)

    def test_every_file_is_100_bytes_of_x(self):
        root, _ = ds.ensure_dataset(self.tmp, self.TINY)
        for d, _, files in os.walk(root):
            for f in files:
                self.assertEqual(Path(d, f).read_bytes(), b"x" * 100)

    def test_parallel_generation_writes_the_same_tree(self):
        with mock.patch.object(ds, "PARALLEL_GENERATION_THRESHOLD", 0):
            root, manifest = ds.ensure_dataset(self.tmp / "par", self.TINY, jobs=2)
        serial, _ = ds.ensure_dataset(self.tmp / "ser", self.TINY, jobs=1)
        listing = lambda r: sorted(os.path.relpath(os.path.join(d, f), r) for d, _, fs in os.walk(r) for f in fs)
        self.assertEqual(listing(root), listing(serial))
        self.assert_tree_matches(root, self.TINY, manifest)

    def test_complete_dataset_is_reused(self):
        ds.ensure_dataset(self.tmp, self.TINY)
        with mock.patch.object(ds, "build_tree") as build:
            ds.ensure_dataset(self.tmp, self.TINY)
        build.assert_not_called()

    def test_leftover_partial_build_is_deleted_not_reused(self):
        partial = self.tmp / ".tiny.partial-424242"
        (partial / "dir_0000").mkdir(parents=True)
        (partial / "dir_0000" / "junk.jpg").write_bytes(b"half")
        root, manifest = ds.ensure_dataset(self.tmp, self.TINY)
        self.assertFalse(partial.exists())
        self.assertEqual(ds._partial_dirs(self.tmp, "tiny"), [])
        self.assert_tree_matches(root, self.TINY, manifest)

    def test_interrupted_build_never_appears_under_the_final_name(self):
        calls = {"n": 0}
        real = ds._write_dir_job

        def dying(job):
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt("simulated ^C")
            return real(job)

        with mock.patch.object(ds, "_write_dir_job", dying):
            with self.assertRaises(KeyboardInterrupt):
                ds.ensure_dataset(self.tmp, self.TINY)
        self.assertFalse((self.tmp / "tiny").exists())
        self.assertFalse((self.tmp / "tiny.manifest.json").exists())
        self.assertEqual(len(ds._partial_dirs(self.tmp, "tiny")), 1)

        root, manifest = ds.ensure_dataset(self.tmp, self.TINY)
        self.assert_tree_matches(root, self.TINY, manifest)
        self.assertEqual(ds._partial_dirs(self.tmp, "tiny"), [])

    def test_tree_without_matching_manifest_is_rebuilt(self):
        root, _ = ds.ensure_dataset(self.tmp, self.TINY)
        (root / "stray.txt").write_text("not generated")
        (self.tmp / "tiny.manifest.json").unlink()
        root, manifest = ds.ensure_dataset(self.tmp, self.TINY)
        self.assertFalse((root / "stray.txt").exists())
        self.assert_tree_matches(root, self.TINY, manifest)

    def test_manifest_from_another_generator_version_triggers_rebuild(self):
        ds.ensure_dataset(self.tmp, self.TINY)
        path = self.tmp / "tiny.manifest.json"
        old = json.loads(path.read_text())
        old["generator_version"] = -1
        path.write_text(json.dumps(old))
        with mock.patch.object(ds, "build_tree", wraps=ds.build_tree) as build:
            ds.ensure_dataset(self.tmp, self.TINY)
        build.assert_called_once()


class LabelTests(TempDirTest):
    def test_progress_names_the_filesystem(self):
        import io
        err = io.StringIO()
        with mock.patch("sys.stderr", err):
            ds.ensure_dataset(self.tmp, GenerationTests.TINY, where="on xfs")
        self.assertIn("generated tiny on xfs: 150 files", err.getvalue())
