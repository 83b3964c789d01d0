"""Charts for the README and docs/benchmarks.md (--plot REPORT): SVG or PNG files drawn from a report.

matplotlib is imported only here, and only when --plot is used: measuring needs
nothing beyond the standard library.  Reports of every schema are read through
report.schema.upgrade_report, so the committed optimized.json always plots.

    headline_SIZE     every tool on one dataset, warm, the data directory's fs
    speedup_heatmap   pfind's speedup over the runner-up, scenario x dataset
    thread_sweep      pfind's time against -j, one panel per sweep
    fs_cache_SCENARIO_SIZE   every tool on one dataset, per filesystem and cache
    trees             every tool on the real trees (--tree), warm and cold
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, Optional

from .common import log
from .datasets import SIZE_ORDER
from .plan import DATASET, TREE
from .report.schema import upgrade_report
from .report.tables import home_fs, target_order
from .timing import CACHE_MODES, WARM
from .tools import REFERENCE, SCENARIO_ORDER


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        sys.exit("benchmark.py: --plot needs matplotlib (pip install matplotlib)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "pfind"  # stable ids: regenerated SVGs diff cleanly
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None, bbox_inches="tight")
    log(f"wrote {path}")


def warm_home_cells(report: dict) -> list[dict]:
    """The classic matrix: warm cache, generated datasets, the data directory's fs."""
    home = home_fs(report)
    return [c for c in report["cells"] if c["cache"] == WARM and c["fs"] == home and c["kind"] == DATASET]


def _grouped_bars(ax, groups: list[str], tools: list[str], stats: Callable[[str, str], Optional[dict]], report: dict) -> None:
    """One cluster of bars per group, one bar per tool (mean, one-sigma error bar);
    references hatched; a log axis when the slowest bar would flatten the rest."""
    width = 0.8 / len(tools)
    means = []
    for i, name in enumerate(tools):
        xs, ys, errs = [], [], []
        for j, g in enumerate(groups):
            r = stats(g, name)
            if r and r.get("mean"):
                xs.append(j + (i - (len(tools) - 1) / 2) * width)
                ys.append(r["mean"] * 1e3)
                errs.append((r.get("stddev") or 0) * 1e3)
        means += ys
        ref = report["tools"][name]["role"] == REFERENCE
        version = report["tools"][name].get("version_number")
        label = name + (f" {version}" if version and not ref else "") + (" (reference)" if ref else "")
        ax.bar(xs, ys, width, yerr=errs, capsize=2, label=label, hatch="//" if ref else None, alpha=0.6 if ref else 1.0)
    if means and max(means) / max(min(means), 1e-9) > 20:
        from matplotlib.ticker import FuncFormatter

        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.set_ylabel("mean wall time, ms (log scale)")
    else:
        ax.set_ylabel("mean wall time, ms")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.legend(fontsize="small", ncol=min(len(tools), 4))
    ax.grid(axis="y", alpha=0.3)


def _tools_in(report: dict, cells: list[dict]) -> list[str]:
    return [n for n in report["tools"] if any(n in c["results"] for c in cells)]


def plot_headline(report: dict, size: str, path: Path) -> bool:
    """Grouped bars: for each scenario, every tool's mean wall time on ``size``."""
    cells = {c["scenario"]: c for c in warm_home_cells(report) if c["target"] == size and c["results"]}
    scenarios = [s for s in SCENARIO_ORDER if s in cells]
    if not scenarios:
        log(f"no timings for size {size}; skipping headline chart")
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 5))
    _grouped_bars(ax, scenarios, _tools_in(report, list(cells.values())), lambda s, n: cells[s]["results"].get(n), report)
    files = report.get("datasets", {}).get(size, {}).get("files")
    fs = home_fs(report)
    ax.set_title(f"{size} dataset" + (f" ({files:,} files)" if files else "") + (f", warm cache, {fs}" if fs else "") + ": lower is better")
    _save(fig, path)
    plt.close(fig)
    return True


def plot_heatmap(report: dict, path: Path) -> bool:
    """Scenario x size grid of pfind's speedup over the runner-up (warm, home fs)."""
    cells = warm_home_cells(report)
    sizes = [s for s in SIZE_ORDER if any(c["target"] == s for c in cells)]
    scenarios = [s for s in SCENARIO_ORDER if any(c["scenario"] == s for c in cells)]
    by_key = {(c["scenario"], c["target"]): c for c in cells}
    grid = [[(by_key.get((sc, sz)) or {}).get("speedup") for sz in sizes] for sc in scenarios]
    values = [v for row in grid for v in row if v]
    if not values:
        log("no speedups in report; skipping heat map")
        return False
    plt = _pyplot()
    from matplotlib.colors import TwoSlopeNorm

    norm = TwoSlopeNorm(vcenter=1.0, vmin=min(values + [0.5]), vmax=max(values + [2.0]))
    data = [[v if v else float("nan") for v in row] for row in grid]
    fig, ax = plt.subplots(figsize=(1.6 * len(sizes) + 2.5, 0.8 * len(scenarios) + 1.5))
    im = ax.imshow(data, cmap="RdYlGn", norm=norm, aspect="auto")
    for i, sc in enumerate(scenarios):
        for j, sz in enumerate(sizes):
            c = by_key.get((sc, sz))
            if c and c.get("speedup"):
                dark = not 0.15 < norm(c["speedup"]) < 0.85  # the colormap's ends are dark
                ax.text(j, i, f"{c['speedup']:.2f}x\nvs {c['runner_up']}", ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(sizes)
    ax.set_yticks(range(len(scenarios)))
    ax.set_yticklabels(scenarios)
    ax.set_title("pfind speedup over the fastest other tool (above 1x: pfind faster)")
    fig.colorbar(im, ax=ax, label="runner-up mean / pfind mean")
    _save(fig, path)
    plt.close(fig)
    return True


def plot_sweep(report: dict, path: Path) -> bool:
    """pfind's mean wall time against -j, one panel per sweep (warm and cold differ
    by too much for one axis), with one-sigma error bars and the default as a line."""
    sweeps = [s for s in report.get("thread_sweeps", []) if any(p.get("mean") for p in s.get("points", []))]
    if not sweeps:
        log("no thread sweep in report; skipping sweep chart")
        return False
    plt = _pyplot()
    cols = 2 if len(sweeps) == 4 else min(len(sweeps), 3)  # 2 x 2 rather than 3 + 1
    rows = (len(sweeps) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7 if cols == 1 else 5.2 * cols, 4.5 * rows), squeeze=False, layout="constrained")
    cpus = report.get("machine", {}).get("available_cpus")
    for k, sweep in enumerate(sweeps):
        ax = axes[k // cols][k % cols]
        pts = [p for p in sweep["points"] if p.get("mean")]
        xs = [p["threads"] for p in pts]
        ys = [p["mean"] * 1e3 for p in pts]
        errs = [(p.get("stddev") or 0) * 1e3 for p in pts]
        ax.errorbar(xs, ys, yerr=errs, marker="o", capsize=3)
        best = min(range(len(ys)), key=ys.__getitem__)
        right_half = best >= len(xs) / 2  # keep the label inside the axes
        ax.annotate(
            f"fastest: -j {xs[best]} ({ys[best]:.1f} ms)",
            (xs[best], ys[best]),
            textcoords="offset points",
            xytext=(-10 if right_half else 10, 15),
            ha="right" if right_half else "left",
        )
        default = (sweep.get("default") or {}).get("mean")
        if default:
            ax.axhline(default * 1e3, linestyle="--", color="gray", label=f"default, no -j ({default * 1e3:.1f} ms)")
            ax.legend(fontsize="small", loc="best")
        if len(set(xs)) > 1 and max(xs) / max(min(xs), 1) >= 16:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs])
        ax.set_xlabel("worker threads (-j)")
        ax.set_ylabel("mean wall time, ms")
        target = sweep.get("target") or sweep.get("size")
        where = ", ".join(x for x in (sweep.get("fs"), sweep.get("cache", WARM)) if x)
        ax.set_title(f"pfind {sweep['scenario']} on {target} ({where})" + (f", {cpus} CPUs" if cpus and len(sweeps) == 1 else ""), fontsize="medium")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    for k in range(len(sweeps), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    if len(sweeps) > 1 and cpus:
        fig.suptitle(f"pfind's wall time against -j ({cpus} CPUs)")
    _save(fig, path)
    plt.close(fig)
    return True


def _combo_order(report: dict, cells: list[dict]) -> list[tuple[str, str]]:
    fs_order = list(dict.fromkeys([home_fs(report)] + [c["fs"] for c in cells]))
    combos = {(c["fs"], c["cache"]) for c in cells}
    return sorted(combos, key=lambda k: (fs_order.index(k[0]), CACHE_MODES.index(k[1]) if k[1] in CACHE_MODES else 9))


def plot_fs_cache(report: dict, scenario: str, target: str, path: Path) -> bool:
    """Grouped bars: every tool on ``target`` for ``scenario``, one cluster per
    (filesystem, cache) combination."""
    cells = [c for c in report["cells"] if c["scenario"] == scenario and c["target"] == target and c["results"]]
    combos = _combo_order(report, cells)
    if len(combos) < 2:
        log(f"{scenario} on {target} was timed in fewer than two filesystem/cache combinations; skipping that chart")
        return False
    by_key = {(c["fs"], c["cache"]): c for c in cells}
    labels = [f"{fs}\n{cache}" for fs, cache in combos]
    key_of = dict(zip(labels, combos))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(8, 1.4 * len(combos) + 3), 5))
    _grouped_bars(ax, labels, _tools_in(report, cells), lambda g, n: by_key[key_of[g]]["results"].get(n), report)
    files = report.get("datasets", {}).get(target, {}).get("files")
    ax.set_title(f"{scenario} on {target}" + (f" ({files:,} files)" if files else "") + " by filesystem and cache: lower is better")
    _save(fig, path)
    plt.close(fig)
    return True


def plot_trees(report: dict, path: Path) -> bool:
    """Grouped bars: every tool on each real tree, scenario and cache mode."""
    cells = [c for c in report["cells"] if c["kind"] == TREE and c["results"]]
    if not cells:
        return False
    cells.sort(key=lambda c: (target_order(c["target"]), SCENARIO_ORDER.index(c["scenario"]) if c["scenario"] in SCENARIO_ORDER else 9, CACHE_MODES.index(c["cache"])))
    labels = [f"{c['target']}\n{c['scenario']}\n{c['fs']}, {c['cache']}" for c in cells]
    by_label = dict(zip(labels, cells))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(cells) + 3), 5))
    _grouped_bars(ax, labels, _tools_in(report, cells), lambda g, n: by_label[g]["results"].get(n), report)
    trees = report.get("trees", {})
    counts = ", ".join(f"{p}: {t['files']:,} files" for p, t in trees.items() if t.get("files"))
    ax.set_title("real trees" + (f" ({counts})" if counts else "") + ": lower is better")
    _save(fig, path)
    plt.close(fig)
    return True


def plot_report(report_path: Path, assets: Path, size: str = "large", fmt: str = "svg", fs_scenario: str = "all_files", fs_size: str = "medium") -> int:
    with open(report_path) as f:
        report = upgrade_report(json.load(f))
    sizes = {c["target"] for c in warm_home_cells(report)}
    if size not in sizes and sizes:
        fallback = max(sizes, key=lambda s: report["datasets"].get(s, {}).get("files", 0))
        log(f"report has no warm {size} cells; headline chart uses {fallback}")
        size = fallback
    plot_headline(report, size, assets / f"headline_{size}.{fmt}")
    plot_heatmap(report, assets / f"speedup_heatmap.{fmt}")
    plot_sweep(report, assets / f"thread_sweep.{fmt}")
    plot_fs_cache(report, fs_scenario, fs_size, assets / f"fs_cache_{fs_scenario}_{fs_size}.{fmt}")
    plot_trees(report, assets / f"trees.{fmt}")
    return 0
