"""The text printed from a report: one Markdown table per group of cells, the
filesystem x cache comparison, the grids, the thread sweeps, correctness and
memory, and the verdict lines.  Every function reads the report through
schema.upgrade_report, so reports of every schema print alike."""

from __future__ import annotations

from typing import Iterable, Optional

from ..datasets import SIZE_ORDER
from ..plan import DATASET, TREE
from ..timing import CACHE_MODES, WARM
from ..tools import REFERENCE, SCENARIO_ORDER
from .schema import upgrade_report


# ---------------------------------------------------------------------------
# Grouping
# ---------------------------------------------------------------------------


def home_fs(report: dict) -> Optional[str]:
    return report.get("machine", {}).get("filesystem")


def groups(report: dict) -> list[tuple[str, str, str]]:
    """(cache, fs, kind) of the cells, warm first, the data directory's fs first."""
    keys = list(dict.fromkeys((c["cache"], c["fs"], c["kind"]) for c in report["cells"]))
    home = home_fs(report)
    order = lambda k: (CACHE_MODES.index(k[0]) if k[0] in CACHE_MODES else 9, k[1] != home, k[2] == TREE)
    return sorted(keys, key=order)


def target_order(target: str) -> tuple:
    return (0, SIZE_ORDER.index(target), "") if target in SIZE_ORDER else (1, 0, target)


def group_title(cache: str, fs: str, kind: str) -> str:
    return f"{cache} cache, {fs}" + (", real trees" if kind == TREE else "")


def cell_label(c: dict) -> str:
    return f"{c['scenario']} on {c['target']} ({c['cache']}, {c['fs']})"


# ---------------------------------------------------------------------------
# Text output
# ---------------------------------------------------------------------------


def fmt_time(stats: Optional[dict]) -> str:
    if not stats or stats.get("mean") is None:
        return "-"
    return f"{stats['mean'] * 1e3:.1f} ± {(stats.get('stddev') or 0) * 1e3:.1f} ms"


def fmt_speedup(c: dict) -> str:
    return f"{c['speedup']:.2f}x vs {c['runner_up']}" if c.get("speedup") else "-"


def fmt_ratio(x: Optional[float]) -> str:
    return f"{x:.2f}x" if x else "-"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def _tool_columns(report: dict) -> tuple[list[str], dict[str, str]]:
    tools = list(report["tools"])
    label = {n: (f"{n} (ref)" if report["tools"][n]["role"] == REFERENCE else n) for n in tools}
    return tools, label


def timing_tables(report: dict) -> str:
    """For each (cache, filesystem) group, one Markdown table per scenario: rows are
    datasets (or trees), columns tools, then pfind's speedup and its ratio to floor."""
    report = upgrade_report(report)
    tools, label = _tool_columns(report)
    with_floor = any(report["tools"][n]["role"] == REFERENCE for n in tools)
    out = []
    for cache, fs, kind in groups(report):
        for scenario in SCENARIO_ORDER:
            cells = [c for c in report["cells"] if (c["cache"], c["fs"], c["kind"], c["scenario"]) == (cache, fs, kind, scenario)]
            if not cells:
                continue
            rows = []
            for c in sorted(cells, key=lambda c: target_order(c["target"])):
                row = [c["target"]] + [fmt_time(c["results"].get(n)) for n in tools] + [fmt_speedup(c)]
                rows.append(row + ([fmt_ratio(c.get("vs_floor"))] if with_floor else []))
            header = ["tree" if kind == TREE else "size"] + [label[n] for n in tools] + ["pfind speedup"] + (["pfind / floor"] if with_floor else [])
            out.append(f"### {group_title(cache, fs, kind)}: {scenario}\n\n" + markdown_table(header, rows))
    out.append("speedup = runner-up mean / pfind mean (above 1: pfind is faster); (ref) tools are not ranked; pfind / floor = wall time ratio.")
    return "\n\n".join(out)


def fs_cache_tables(report: dict) -> str:
    """The filesystem x cache comparison: for each (target, scenario) timed in more
    than one (filesystem, cache) combination, one row per combination."""
    report = upgrade_report(report)
    tools, label = _tool_columns(report)
    keys = list(dict.fromkeys((c["target"], c["scenario"]) for c in report["cells"]))
    keys.sort(key=lambda k: (target_order(k[0]), SCENARIO_ORDER.index(k[1]) if k[1] in SCENARIO_ORDER else 9))
    home = home_fs(report)
    out = []
    for target, scenario in keys:
        cells = [c for c in report["cells"] if (c["target"], c["scenario"]) == (target, scenario)]
        if len({(c["fs"], c["cache"]) for c in cells}) < 2:
            continue
        fs_order = list(dict.fromkeys([home] + [c["fs"] for c in cells]))
        cells.sort(key=lambda c: (fs_order.index(c["fs"]), CACHE_MODES.index(c["cache"]) if c["cache"] in CACHE_MODES else 9))
        rows = [
            [c["fs"], c["cache"]] + [fmt_time(c["results"].get(n)) for n in tools] + [fmt_speedup(c), fmt_ratio(c.get("vs_floor"))]
            for c in cells
        ]
        header = ["fs", "cache"] + [label[n] for n in tools] + ["pfind speedup", "pfind / floor"]
        out.append(f"### filesystem x cache: {scenario} on {target}\n\n" + markdown_table(header, rows))
    return "\n\n".join(out)


def speedup_grid(report: dict, cache: str = WARM, fs: Optional[str] = None) -> str:
    """Scenario x dataset grid of pfind's speedup over the runner-up, one group."""
    return _grid(report, cache, fs, fmt_speedup, "speedup over the runner-up")


def floor_grid(report: dict, cache: str = WARM, fs: Optional[str] = None) -> str:
    """Scenario x dataset grid of pfind / floor, wall time / CPU time."""

    def fmt(c: dict) -> str:
        if not c.get("vs_floor"):
            return "-"
        cpu = c.get("cpu_vs_floor")
        return f"{c['vs_floor']:.2f} / {cpu:.2f}" if cpu else f"{c['vs_floor']:.2f}"

    return _grid(report, cache, fs, fmt, "pfind / floor, wall / CPU")


def _grid(report: dict, cache: str, fs: Optional[str], fmt, what: str) -> str:
    report = upgrade_report(report)
    fs = fs or home_fs(report)
    cells = [c for c in report["cells"] if c["cache"] == cache and c["fs"] == fs and c["kind"] == DATASET]
    if not cells:
        return ""
    sizes = sorted({c["target"] for c in cells}, key=target_order)
    scenarios = [s for s in SCENARIO_ORDER if any(c["scenario"] == s for c in cells)]
    by_key = {(c["scenario"], c["target"]): c for c in cells}
    rows = [[sc] + [fmt(by_key[(sc, sz)]) if (sc, sz) in by_key else "" for sz in sizes] for sc in scenarios]
    return f"### {what} ({cache} cache, {fs})\n\n" + markdown_table(["scenario"] + sizes, rows)


def correctness_table(report: dict) -> str:
    """Every tool's count per cell next to the expected one, plus pfind's path check."""
    report = upgrade_report(report)
    tools = list(report["tools"])
    rows = []
    for c in report["cells"]:
        chk = c["correctness"]
        expected = "error" if chk["expected"] is None else str(chk["expected"])
        if chk.get("expected_from") not in (None, "manifest"):
            expected += f" ({chk['expected_from']})"
        row = [c["cache"], c["fs"], c["target"], c["scenario"], expected]
        for n in tools:
            count, ok = chk["counts"].get(n), chk["count_ok"].get(n)
            text = "error" if count is None and n in chk["counts"] else ("-" if count is None else str(count))
            if ok is False:
                text += " (!)"
            elif ok is None and count is not None:
                text += " (n/a)"
            row.append(text)
        paths = chk.get("paths")
        row.append("-" if paths is None else ("equal" if paths["equal"] else "DIFFERENT"))
        rows.append(row)
    header = ["cache", "fs", "target", "scenario", "expected"] + tools + ["pfind paths vs " + _path_ref_name(report)]
    return (
        markdown_table(header, rows)
        + "\nexpected: the dataset's manifest, or (find) GNU find's own count on a real tree;"
        + " (!) = differs from it; (n/a) = not comparable (floor does not filter)."
    )


def memory_table(report: dict, scenario: str = "all_files") -> str:
    """Peak resident memory (max RSS) of each tool's untimed run of ``scenario``, per
    dataset and tree, in MiB, from the warm cells (one row per target)."""
    report = upgrade_report(report)
    tools = list(report["tools"])
    rows, seen = [], set()
    cells = [c for c in report["cells"] if c["scenario"] == scenario and c["cache"] == WARM]
    home = home_fs(report)
    cells.sort(key=lambda c: (c["fs"] != home, target_order(c["target"])))
    for c in cells:
        if c["target"] in seen:
            continue
        seen.add(c["target"])
        rss = c["correctness"].get("max_rss_kib", {})
        rows.append([c["target"]] + [f"{rss[n] / 1024:.1f}" if rss.get(n) else "-" for n in tools])
    if not rows:
        return ""
    return markdown_table(["target"] + tools, rows) + f"\npeak RSS in MiB of one untimed {scenario} run, measured by GNU time (%M)."


def _path_ref_name(report: dict) -> str:
    for c in report["cells"]:
        if c["correctness"].get("paths"):
            return c["correctness"]["paths"]["reference"]
    return "find"


def sweep_title(sweep: dict) -> str:
    target = sweep.get("target") or sweep.get("size")
    where = ", ".join(x for x in (sweep.get("fs"), (sweep.get("cache") or WARM) + " cache") if x)
    return f"thread sweep: {sweep['scenario']} on {target} ({where})"


def sweep_table(sweep: dict) -> str:
    """-j against pfind's time, both passes pooled, each pass's mean, and the ratio to
    the fastest -j; the default (no -j) is the last row when it was timed."""

    def passes(point: dict) -> str:
        return " / ".join(f"{m * 1e3:.1f}" for m in point.get("pass_means", [])) or "-"

    points = [p for p in sweep.get("points", []) if p.get("mean")]
    best = min((p["mean"] for p in points), default=None)
    ratio = lambda p: f"{p['mean'] / best:.2f}x" if best and p.get("mean") else "-"
    rows = [[str(p["threads"]), fmt_time(p), passes(p), ratio(p)] for p in points]
    if sweep.get("default"):
        rows.append(["default", fmt_time(sweep["default"]), passes(sweep["default"]), ratio(sweep["default"])])
    header = ["-j", "pfind (both passes)", "pass means, ms", "vs best -j"]
    return f"### {sweep_title(sweep)}\n\n" + markdown_table(header, rows)


def summary_lines(report: dict) -> list[str]:
    """The verdict: per group, how often pfind was fastest and its closest margin;
    its worst ratio to floor; the largest drift between passes; correctness."""
    report = upgrade_report(report)
    lines = []
    for cache, fs, kind in groups(report):
        group = [c for c in report["cells"] if (c["cache"], c["fs"], c["kind"]) == (cache, fs, kind)]
        ranked = [c for c in group if c.get("speedup")]
        head = f"{group_title(cache, fs, kind)}: "
        if not ranked:
            lines.append(head + f"{len(group)} cells, none ranked")
            continue
        wins = sum(1 for c in ranked if c["speedup"] > 1.0)
        clear = sum(1 for c in ranked if c["speedup"] >= 1.05)
        worst = min(ranked, key=lambda c: c["speedup"])
        text = (
            f"pfind fastest in {wins}/{len(ranked)} cells ({clear} by at least 5%); "
            f"smallest margin {worst['speedup']:.2f}x vs {worst['runner_up']} ({worst['scenario']} on {worst['target']})"
        )
        floored = [c for c in group if c.get("vs_floor")]
        if floored:
            top = max(floored, key=lambda c: c["vs_floor"])
            text += f"; pfind / floor at most {top['vs_floor']:.2f}x ({top['scenario']} on {top['target']})"
        lines.append(head + text)
    for s in report.get("thread_sweeps", []):
        pts = [p for p in s.get("points", []) if p.get("mean")]
        if pts:
            best = min(pts, key=lambda p: p["mean"])
            text = f"{sweep_title(s)}: fastest -j {best['threads']} ({best['mean'] * 1e3:.1f} ms)"
            if (s.get("default") or {}).get("mean"):
                text += f"; default (no -j) {s['default']['mean'] * 1e3:.1f} ms, {s['default']['mean'] / best['mean']:.2f}x that"
            lines.append(text)
    drifts = [(r.get("drift") or 0, n, c) for c in report["cells"] for n, r in c["results"].items() if r.get("drift") is not None]
    if drifts:
        d, name, c = max(drifts, key=lambda x: x[0])
        lines.append(f"largest drift between passes: {d * 100:.0f}% of the mean ({name} on {cell_label(c)})")
    failed = [cell_label(c) for c in report["cells"] if "error" in c] + [sweep_title(s) for s in report.get("thread_sweeps", []) if "error" in s]
    if failed:
        lines.append("timing FAILED in " + ", ".join(failed) + " (see the error fields)")
    bad = [cell_label(c) for c in report["cells"] if not c["correctness"]["pfind_correct"]]
    lines.append("correctness: pfind agrees everywhere" if not bad else "correctness: pfind DISAGREES in " + ", ".join(bad))
    peers_bad = [
        f"{n} on {cell_label(c)}"
        for c in report["cells"]
        for n, ok in c["correctness"]["count_ok"].items()
        if ok is False and n != "pfind"
    ]
    if peers_bad:
        lines.append("note: peer counts differ (check their command lines): " + ", ".join(peers_bad))
    lines += [f"skipped {line}" for line in report.get("skipped", [])]
    return lines


def tools_line(report: dict) -> str:
    """One line naming every tool and its version, e.g. for the log."""
    return "tools: " + ", ".join(f"{n} = {t['version']}" for n, t in report["tools"].items())


def all_tables(report: dict) -> Iterable[str]:
    """Everything printed to stdout after a run, in order."""
    yield timing_tables(report)
    fs_cache = fs_cache_tables(report)
    if fs_cache:
        yield fs_cache
    for sweep in upgrade_report(report).get("thread_sweeps", []):
        if sweep.get("points"):
            yield sweep_table(sweep)
    yield "### correctness\n\n" + correctness_table(report)
    memory = memory_table(report)
    if memory:
        yield "### peak memory\n\n" + memory

