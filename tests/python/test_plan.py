"""Tests of pfind_bench.plan: which cells and sweeps a command line times, on which
filesystems, and every skip line (not root, tmpfs cold, unavailable filesystems)."""

from __future__ import annotations

import collections
import unittest

from tests.python.support import quiet_start, quiet_stop
from pfind_bench import plan
from pfind_bench.datasets import SIZE_ORDER
from pfind_bench.tools import SCENARIO_ORDER

setUpModule, tearDownModule = quiet_start, quiet_stop

ALL_FS = ["ext4", "xfs", "btrfs", "tmpfs"]


def selection(**kw) -> plan.Selection:
    sizes = kw.pop("sizes", list(SIZE_ORDER))
    base = dict(
        caches=["warm"],
        sizes=sizes,
        scenarios=list(SCENARIO_ORDER),
        fs_sizes=plan.default_fs_sizes(sizes),
        cold_sizes=plan.default_cold_sizes(sizes),
        cold_scenarios=["all_files", "count_only"],
        trees=[],
        tree_scenarios=["all_files", "count_only"],
        threads=[],
        sweep_targets=["large"],
        sweep_fs=["ext4"],
        tree_fs={},
    )
    base.update(kw)
    return plan.Selection(**base)


def by_group(cells) -> dict:
    return collections.Counter((c.cache, c.fs, c.kind) for c in cells)


class DefaultSizeTests(unittest.TestCase):
    def test_cold_leaves_out_large_unless_nothing_else_is_left(self):
        self.assertEqual(plan.default_cold_sizes(SIZE_ORDER), ["small", "medium", "deep", "wide"])
        self.assertEqual(plan.default_cold_sizes(["large"]), ["large"])

    def test_other_filesystems_get_medium_and_wide(self):
        self.assertEqual(plan.default_fs_sizes(SIZE_ORDER), ["medium", "wide"])
        self.assertEqual(plan.default_fs_sizes(["small", "wide"]), ["wide"])
        self.assertEqual(plan.default_fs_sizes(["small", "deep"]), ["small", "deep"])


class PlacesTests(unittest.TestCase):
    def test_no_fs_means_the_data_directory_alone(self):
        places, skipped = plan.plan_places([], "ext4", lambda fs: self.fail("nothing to check"))
        self.assertEqual((places, skipped), ([("ext4", plan.HOME)], {}))

    def test_the_data_directorys_filesystem_is_the_data_directory(self):
        places, skipped = plan.plan_places(ALL_FS, "ext4", lambda fs: None)
        self.assertEqual(places, [("ext4", plan.HOME), ("xfs", plan.MOUNT), ("btrfs", plan.MOUNT), ("tmpfs", plan.MOUNT)])
        self.assertEqual(skipped, {})

    def test_on_a_tmpfs_data_directory_ext4_becomes_an_image(self):
        places, _ = plan.plan_places(["ext4", "tmpfs"], "tmpfs", lambda fs: None)
        self.assertEqual(places, [("ext4", plan.MOUNT), ("tmpfs", plan.HOME)])

    def test_unavailable_filesystems_are_skipped_with_their_reason(self):
        places, skipped = plan.plan_places(ALL_FS, "ext4", lambda fs: "needs root" if fs != "btrfs" else "mkfs.btrfs not found")
        self.assertEqual(places, [("ext4", plan.HOME)])  # the data directory needs no privilege
        self.assertEqual(skipped, {"xfs": "needs root", "btrfs": "mkfs.btrfs not found", "tmpfs": "needs root"})

    def test_only_the_named_filesystems_are_measured(self):
        places, _ = plan.plan_places(["xfs"], "ext4", lambda fs: None)
        self.assertEqual(places, [("xfs", plan.MOUNT)])


class CellPlanTests(unittest.TestCase):
    def full_places(self):
        return plan.plan_places(ALL_FS, "ext4", lambda fs: None)[0]

    def test_the_spec_command_plans_the_25_warm_cells(self):
        cells, sweeps, skips = plan.plan_cells(selection(), [("ext4", plan.HOME)], None)
        self.assertEqual(len(cells), 25)
        self.assertEqual(by_group(cells), {("warm", "ext4", "dataset"): 25})
        self.assertEqual((sweeps, skips), ([], []))
        self.assertEqual([c.label for c in cells[:2]], ["all_files on small (warm, ext4)", "extension_jpg on small (warm, ext4)"])

    def test_the_full_run_covers_issue_9s_targets(self):
        sel = selection(caches=["warm", "cold"], trees=["/usr"], tree_fs={"/usr": "ext4"}, threads=[1, 2, 4], sweep_targets=["large", "/usr"])
        cells, sweeps, skips = plan.plan_cells(sel, self.full_places(), None)
        self.assertEqual(
            by_group(cells),
            {
                ("warm", "ext4", "dataset"): 25,
                ("warm", "xfs", "dataset"): 10,
                ("warm", "btrfs", "dataset"): 10,
                ("warm", "tmpfs", "dataset"): 10,
                ("warm", "ext4", "tree"): 2,
                ("cold", "ext4", "dataset"): 8,
                ("cold", "xfs", "dataset"): 8,
                ("cold", "btrfs", "dataset"): 8,
                ("cold", "ext4", "tree"): 2,
            },
        )
        cold = [c for c in cells if c.cache == "cold"]
        self.assertNotIn("large", {c.target for c in cold})
        self.assertEqual({c.scenario for c in cold}, {"all_files", "count_only"})
        self.assertEqual({c.target for c in cells if c.fs == "xfs" and c.cache == "warm"}, {"medium", "wide"})
        self.assertEqual(
            [(s.cache, s.fs, s.kind, s.target) for s in sweeps],
            [("warm", "ext4", "dataset", "large"), ("warm", "ext4", "tree", "/usr"), ("cold", "ext4", "dataset", "large"), ("cold", "ext4", "tree", "/usr")],
        )
        self.assertEqual(skips, ["cold cache on tmpfs: tmpfs keeps its files only in memory, so there is no cold state to measure"])

    def test_without_root_every_cold_cell_is_skipped_in_one_line(self):
        sel = selection(caches=["warm", "cold"], trees=["/usr"], tree_fs={"/usr": "ext4"}, threads=[1, 2])
        cells, sweeps, skips = plan.plan_cells(sel, [("ext4", plan.HOME)], "needs root to write /proc/sys/vm/drop_caches (running as uid 1000)")
        self.assertTrue(all(c.cache == "warm" for c in cells + sweeps))
        self.assertEqual(len(cells), 27)
        # 8 dataset cells + 2 tree cells + 1 sweep
        self.assertEqual(skips, ["cold cache (11 cells and sweeps): needs root to write /proc/sys/vm/drop_caches (running as uid 1000)"])

    def test_tmpfs_is_never_cold_even_as_the_data_directory(self):
        cells, _, skips = plan.plan_cells(selection(caches=["cold"], sizes=["small"]), [("tmpfs", plan.HOME)], None)
        self.assertEqual(cells, [])
        self.assertIn("cold cache on tmpfs", skips[0])

    def test_trees_use_tree_scenarios_warm_and_cold_scenarios_cold(self):
        sel = selection(caches=["warm", "cold"], sizes=["small"], scenarios=["name_glob"], trees=["/usr", "/opt"], tree_fs={"/usr": "ext4", "/opt": "xfs"},
                        tree_scenarios=["extension_jpg"], cold_scenarios=["count_only"])
        cells, _, _ = plan.plan_cells(sel, [("ext4", plan.HOME)], None)
        trees = [(c.cache, c.fs, c.target, c.scenario) for c in cells if c.kind == plan.TREE]
        self.assertEqual(
            trees,
            [("warm", "ext4", "/usr", "extension_jpg"), ("warm", "xfs", "/opt", "extension_jpg"), ("cold", "ext4", "/usr", "count_only"), ("cold", "xfs", "/opt", "count_only")],
        )

    def test_a_sweep_on_a_filesystem_not_measured_is_skipped(self):
        sel = selection(threads=[1, 2], sweep_targets=["medium"], sweep_fs=["xfs", "ext4"])
        _, sweeps, skips = plan.plan_cells(sel, [("ext4", plan.HOME)], None)
        self.assertEqual([(s.fs, s.target) for s in sweeps], [("ext4", "medium")])
        self.assertEqual(skips, ["thread sweep on medium on xfs: xfs is not among the filesystems measured"])

    def test_a_sweep_target_can_name_its_filesystem(self):
        sel = selection(caches=["warm", "cold"], threads=[1, 2], sweep_targets=["large", "medium@xfs", "medium@tmpfs", "/usr"], tree_fs={"/usr": "ext4"})
        cells, sweeps, skips = plan.plan_cells(sel, self.full_places(), None)
        self.assertEqual(
            [(s.cache, s.fs, s.target) for s in sweeps],
            [("warm", "ext4", "large"), ("warm", "xfs", "medium"), ("warm", "tmpfs", "medium"), ("warm", "ext4", "/usr"),
             ("cold", "ext4", "large"), ("cold", "xfs", "medium"), ("cold", "ext4", "/usr")],
        )
        self.assertEqual(plan.datasets_needed(cells, sweeps)["xfs"], ["small", "medium", "deep", "wide"])

    def test_split_sweep_target(self):
        table = {
            "medium": ("medium", None),
            "medium@btrfs": ("medium", "btrfs"),
            "/usr": ("/usr", None),
            "/data/x@y": ("/data/x@y", None),
            "medium@zfs": ("medium@zfs", None),  # not a filesystem the harness makes: a path
        }
        for target, expected in table.items():
            with self.subTest(target):
                self.assertEqual(plan.split_sweep_target(target), expected)

    def test_repeated_arguments_plan_once(self):
        sel = selection(caches=["warm", "warm"], sizes=["small", "small"], scenarios=["count_only", "count_only"], trees=["/usr", "/usr"], tree_fs={"/usr": "ext4"})
        cells, _, _ = plan.plan_cells(sel, [("ext4", plan.HOME)], None)
        self.assertEqual([c.label for c in cells], ["count_only on small (warm, ext4)", "all_files on /usr (warm, ext4)", "count_only on /usr (warm, ext4)"])

    def test_datasets_needed_per_filesystem(self):
        sel = selection(caches=["warm", "cold"], threads=[1], sweep_targets=["large"], sweep_fs=["xfs"])
        cells, sweeps, _ = plan.plan_cells(sel, self.full_places(), None)
        self.assertEqual(
            plan.datasets_needed(cells, sweeps),
            {
                "ext4": SIZE_ORDER,
                "xfs": ["small", "medium", "large", "deep", "wide"],  # cold: all but large; sweep: large
                "btrfs": ["small", "medium", "deep", "wide"],
                "tmpfs": ["medium", "wide"],
            },
        )

    def test_describe_names_each_group(self):
        sel = selection(caches=["warm", "cold"], sizes=["small"], trees=["/usr"], tree_fs={"/usr": "ext4"}, threads=[1], sweep_targets=["/usr"])
        cells, sweeps, _ = plan.plan_cells(sel, [("ext4", plan.HOME)], None)
        self.assertEqual(
            plan.describe_plan(cells, sweeps),
            [
                "warm, ext4: 5 dataset cells (small x all_files, extension_jpg, extension_multi, name_glob, count_only)",
                "warm, ext4: 2 tree cells (/usr x all_files, count_only)",
                "cold, ext4: 2 dataset cells (small x all_files, count_only)",
                "cold, ext4: 2 tree cells (/usr x all_files, count_only)",
                "thread sweep: all_files on /usr (ext4, warm)",
                "thread sweep: all_files on /usr (ext4, cold)",
            ],
        )


if __name__ == "__main__":
    unittest.main()
