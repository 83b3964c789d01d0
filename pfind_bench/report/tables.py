"""The text printed from a report: one Markdown table per group of cells, the
filesystem x cache comparison, the grids, the thread sweeps, correctness and
memory, and the verdict lines.  Every function reads the report through
schema.upgrade_report, so reports of every schema print alike."""

from __future__ import annotations

from typing import Iterable, Optional

from ..datasets import SIZE_ORDER
from ..early_quit import pfind_found_everything
from ..ignore_view import check_text, pfind_matches_git
from ..order import pfind_printed_everything
from ..plan import DATASET, TREE
from ..timing import CACHE_MODES, WARM
from ..tools import REFERENCE, SCENARIO_ORDER
from .schema import failed_parts, upgrade_report


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
    lines += extra_summary_lines(report)
    failed = [cell_label(c) for c in report["cells"] if "error" in c] + [sweep_title(s) for s in report.get("thread_sweeps", []) if "error" in s]
    if failed:
        lines.append("timing FAILED in " + ", ".join(failed) + " (see the error fields)")
    bad = [cell_label(c) for c in report["cells"] if not c["correctness"]["pfind_correct"]]
    bad += ["early quit"] if not pfind_found_everything(report["early_quit"]) else []
    bad += ["shallow order"] if not pfind_printed_everything(report["shallow_order"]) else []
    bad += ["ignore view"] if not pfind_matches_git(report["ignore_view"]) else []
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


# ---------------------------------------------------------------------------
# Early quit, shallow order, first path
# ---------------------------------------------------------------------------


def tool_label(report: dict, name: str) -> str:
    """A column heading with the version number, e.g. "bfs 4.1.4"."""
    number = (report.get("tools", {}).get(name) or {}).get("version_number")
    return f"{name} {number}" if number else name


def fmt_ms(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.1f}"


def fmt_share(share: Optional[float]) -> str:
    return "-" if share is None else f"{share * 100:.1f}%"


def _early_tools(section: dict) -> list[str]:
    names: list[str] = []
    for tree in section.get("trees", []):
        for d in tree["depths"]:
            names += [n for n in d["summary"] if n not in names]
    return names


def early_quit_table(report: dict) -> str:
    """Mean ms per search at each depth of each tree, ± the spread over the names,
    the fastest in bold; then the process-start bound."""
    report = upgrade_report(report)
    section = report.get("early_quit")
    if not section:
        return ""
    tools = _early_tools(section)
    rows = []
    for tree in section.get("trees", []):
        for d in tree["depths"]:
            means = {n: s["mean"] for n, s in d["summary"].items() if s.get("mean")}
            best = min(means.values(), default=None)
            row = [tree["root"], str(d["depth"]), f"{len(d['names'])} of {d['candidates']:,}"]
            for n in tools:
                s = d["summary"].get(n) or {}
                text = "-" if s.get("mean") is None else f"{s['mean'] * 1e3:.1f} ± {s['stddev'] * 1e3:.1f}"
                if s.get("mean") is not None and s["mean"] == best:
                    text = f"**{text}**"
                if s.get("missed"):
                    text += f" (!{s['missed']})"
                row.append(text)
            rows.append(row + [fmt_speedup(d)])
        for depth, why in tree.get("skipped_depths", {}).items():
            rows.append([tree["root"], depth, "skipped: " + why] + [""] * len(tools) + [""])
    header = ["tree", "depth", "names"] + [tool_label(report, n) for n in tools] + ["pfind speedup"]
    out = ["### early quit: mean ms per search (process start included)\n\n" + markdown_table(header, rows)]
    notes = (
        f"each figure: the mean over the names of each name's mean ({section.get('passes', '?')} passes of {section.get('runs', '?')} runs), "
        "± the standard deviation over the names; names drawn with seed "
        f"{section.get('seed')}; (!N) = the tool did not print the expected path for N names (see found); "
        "speedup = fastest peer's mean / pfind's."
    )
    start = section.get("process_start") or {}
    if start.get("results"):
        names = list(start["results"])
        out.append(markdown_table(["process start"] + [tool_label(report, n) for n in names] + ["pfind speedup"],
                                  [["empty directory"] + [fmt_time(start["results"][n]) for n in names] + [fmt_speedup(start)]]))
    return "\n\n".join(out) + "\n" + notes


def shallow_order_table(report: dict) -> str:
    """Per tree and command: the share of the output printed when the last file at
    depth <= 2 came out, and the mean depth of the first lines."""
    report = upgrade_report(report)
    section = report.get("shallow_order")
    if not section or not section.get("trees"):
        return ""
    trees = [t for t in section["trees"] if not t.get("error")]
    if not trees:
        return ""
    rows = []
    for tree in trees:
        for label, r in tree["results"].items():
            share, depth = r["share"], r["mean_depth"]
            rows.append([
                f"{tree['root']} ({tree['shallow_files']:,})",
                label,
                " / ".join(fmt_share(share[k]) for k in ("min", "median", "max")),
                "-" if depth["median"] is None else f"{depth['median']:.1f}",
                str(r["missing"]) if r["missing"] else "-",
            ])
    first = trees[0]
    header = [f"tree (files at depth <= {first['shallow_depth']})", "command", "share of output: min / median / max",
              f"mean depth of the first {first['first_lines']:,} lines (median)", "missing"]
    return (
        f"### shallow order: how much of the output came before the last file at depth <= {first['shallow_depth']} ({section.get('runs')} runs each)\n\n"
        + markdown_table(header, rows)
        + "\nmissing: shallow files a run never printed (its share is then -)."
    )


def first_path_table(report: dict) -> str:
    """Cold time to the first byte, to end of output and to exit, per command."""
    report = upgrade_report(report)
    section = report.get("first_path")
    if not section:
        return ""
    if section.get("error"):
        return f"### first path, cold\n\nfailed: {section['error']}"
    rows = []
    vs_bfs = section.get("first_byte_vs_bfs", {})
    for label, r in section["results"].items():
        rows.append([label, fmt_ms(r["first_byte"]["median"]), fmt_ms(r["eof"]["median"]), fmt_ms(r["exit"]["median"]),
                     f"{vs_bfs[label]:.2f}x" if label in vs_bfs else "", f"{max(r['lines']):,}" if r["lines"] else "-"])
    mount = section.get("mount", {})
    direct = {True: "direct I/O", False: "direct I/O REFUSED by the kernel (buffered)", None: "direct I/O unverified"}[mount.get("direct_io")]
    title = f"### first path, cold ({section['fs']} on a loop device, {direct}; {', '.join(section['sources'])}: {section['files']:,} files; median of {section['runs']} runs)"
    header = ["command", "first byte, ms", "end of output, ms", "exit, ms", "first byte vs bfs", "lines"]
    text = f"{title}\n\n" + markdown_table(header, rows)
    if section.get("head_vs_quit"):
        text += f"\n`pfind | head -1` end to end: {section['head_vs_quit']:.2f}x `pfind -1`."
    return text


def ignore_view_table(report: dict) -> str:
    """Per repository: each command's mean ± σ, its ratio to the fastest and its
    set check against git's answer; below, the examples of every difference."""
    report = upgrade_report(report)
    section = report.get("ignore_view")
    if not section or not section.get("repos"):
        return ""
    out = []
    for repo in section["repos"]:
        title = f"### the developer's view on {repo['root']}"
        if repo.get("files") is not None:
            title += f": git's answer {repo['files']:,} files, {repo['not_hidden']:,} without hidden names"
        if repo.get("error") and not repo.get("results"):
            out.append(f"{title}\n\nfailed: {repo['error']}")
            continue
        ratios = repo.get("ratios", {})
        rows = []
        for label in repo.get("commands", {}):
            shown = fmt_time(repo["results"].get(label))
            rows.append([label, f"**{shown}**" if label == repo.get("fastest") else shown, fmt_ratio(ratios.get(label)), check_text(repo["checks"].get(label))])
        text = f"{title}\n\n" + markdown_table(["command", "mean ± σ", "vs fastest", "set check"], rows)
        notes = []
        for label, check in repo.get("checks", {}).items():
            for kind in ("missing", "extra"):
                if check.get(kind):
                    more = check[kind] - len(check[f"{kind}_examples"])
                    notes.append(f"{label}, {kind}: " + ", ".join(check[f"{kind}_examples"]) + (f" and {more:,} more" if more > 0 else ""))
        if repo.get("error"):
            notes.append(f"timing failed: {repo['error']}")
        if notes:
            text += "\n" + "\n".join(notes)
        out.append(text)
    skipped = "; ".join(f"{n} skipped: {why}" for n, why in section.get("skipped_tools", {}).items())
    return (
        "\n\n".join(out)
        + f"\nrun in the repository, {section.get('passes', '?')} passes of {section.get('runs', '?')} runs; = git: the same paths as git's answer "
        "(its regular files, nested repositories expanded) less what .ignore and .fdignore files exclude, tracked or not, "
        "= git, no hidden: that without paths with a component starting with '.' but those a ! rule keeps."
        + (f"\n{skipped}." if skipped else "")
    )


def extra_summary_lines(report: dict) -> list[str]:
    """One verdict line per early-quit tree, shallow-order tree, the first path
    and ignore-view repository."""
    report = upgrade_report(report)
    lines = []
    section = report.get("early_quit") or {}
    for tree in section.get("trees", []):
        ranked = [d for d in tree["depths"] if d.get("speedup")]
        if ranked:
            wins = sum(1 for d in ranked if d["speedup"] > 1.0)
            worst = min(ranked, key=lambda d: d["speedup"])
            lines.append(f"early quit on {tree['root']}: pfind lowest at {wins}/{len(ranked)} depths; "
                         f"smallest margin {worst['speedup']:.2f}x vs {worst['runner_up']} (depth {worst['depth']})")
        for d in tree["depths"]:
            for tool, names in d.get("missed", {}).items():
                lines.append(f"early quit on {tree['root']}, depth {d['depth']}: {tool} did not print the expected path for {len(names)} names")
    start = section.get("process_start") or {}
    if start.get("results"):
        lines.append("process start: " + ", ".join(f"{n} {fmt_ms(r.get('mean'))} ms" for n, r in start["results"].items()))
    for tree in (report.get("shallow_order") or {}).get("trees", []):
        if tree.get("error"):
            continue
        medians = ", ".join(f"{label} {fmt_share(r['share']['median'])}" for label, r in tree["results"].items())
        lines.append(f"shallow order on {tree['root']} (median share of output before the last file at depth <= 2): {medians}")
    fp = report.get("first_path") or {}
    if fp.get("results"):
        first = lambda label: fmt_ms(((fp["results"].get(label) or {}).get("first_byte") or {}).get("median"))
        text = f"first path, cold: pfind's first byte at {first('pfind')} ms, bfs's at {first('bfs')} ms"
        if fp.get("head_vs_quit"):
            text += f"; pfind | head -1 {fp['head_vs_quit']:.2f}x pfind -1"
        lines.append(text)
    for repo in (report.get("ignore_view") or {}).get("repos", []):
        if repo.get("fastest"):
            pfind = ", ".join(f"{label} {repo['ratios'][label]:.2f}x" for label in repo["ratios"] if label.startswith("pfind"))
            differ = [label for label, check in repo["checks"].items() if not check["ok"]]
            lines.append(f"ignore view on {repo['root']}: fastest {repo['fastest']}; {pfind} the fastest; set checks differing: {', '.join(differ) or 'none'}")
    for x in ("early_quit", "shallow_order", "first_path", "ignore_view"):
        if failed_parts(report.get(x)):
            lines.append(f"{x.replace('_', ' ')}: FAILED: " + "; ".join(failed_parts(report.get(x))))
    return lines


def tools_line(report: dict) -> str:
    """One line naming every tool and its version, e.g. for the log."""
    return "tools: " + ", ".join(f"{n} = {t['version']}" for n, t in report["tools"].items())


def all_tables(report: dict) -> Iterable[str]:
    """Everything printed to stdout after a run, in order (the cells' tables only
    when there are cells: --skip-cells leaves none)."""
    cells = bool(report.get("cells"))
    if cells:
        yield timing_tables(report)
    fs_cache = fs_cache_tables(report)
    if fs_cache:
        yield fs_cache
    for sweep in upgrade_report(report).get("thread_sweeps", []):
        if sweep.get("points"):
            yield sweep_table(sweep)
    if cells:
        yield "### correctness\n\n" + correctness_table(report)
    memory = memory_table(report)
    if memory:
        yield "### peak memory\n\n" + memory
    for table in (early_quit_table(report), shallow_order_table(report), first_path_table(report), ignore_view_table(report)):
        if table:
            yield table

