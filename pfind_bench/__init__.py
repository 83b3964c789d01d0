"""pfind's benchmark harness, behind the thin benchmark.py entry point.

A run goes down this map: cli parses the command line; plan decides every cell
(cache mode x filesystem x dataset or tree x scenario) and says what is skipped
and why; filesystems makes and mounts the --fs filesystems; datasets generates the
trees on each; timing runs hyperfine in passes of alternating order (dropping the
page cache first for cold cells); correctness checks every tool's answer untimed;
report assembles the JSON report and prints the tables; charts draws them (--plot).

    cli.py          the command line and the run
    plan.py         which cells run, which are skipped and why
    filesystems.py  --fs: images, mkfs, loop mounts, cleanup
    datasets.py     the five generated trees, their manifests, building them
    timing.py       hyperfine, passes in alternating order, cold cache
    correctness.py  untimed runs: counts, pfind's paths vs find's, peak memory
    report/         schema.py: the JSON report (REPORT_SCHEMA); tables.py: the text
    charts.py       --plot: SVG charts (matplotlib, only there)
    tools.py        the scenarios, each tool's command line and version
    machine.py      CPU, memory, kernel, mounts and filesystems
    common.py       what all share: logging, JSON files, finding and running
                    programs, the name glob
"""
