"""pfind's benchmark harness, behind the thin benchmark.py entry point.

A run goes down this map: cli parses the command line; plan decides every cell
(cache mode x filesystem x dataset or tree x scenario) and says what is skipped
and why; filesystems makes and mounts the --fs filesystems; datasets generates the
trees on each; timing runs hyperfine in passes of alternating order (dropping the
page cache first for cold cells); correctness checks every tool's answer untimed;
early_quit, order and first_path are the parts that time finding one file, the
order of a listing and a cold walk's first path (--early-quit, --shallow-order,
--first-path); ignore_view times the developer's view of git trees against git's
own answer (--ignore-view), on trees realistic makes (--make-realistic); giant
and io500_tree time giant directories and IO500's find phase (--giant,
--io500-tree); index_mode times the index (--index); report
assembles the JSON report and prints the tables; charts
draws them (--plot).

    cli.py          the command line and the run
    plan.py         which cells run, which are skipped and why
    filesystems.py  --fs: images, mkfs, loop mounts (direct I/O too), cleanup
    datasets.py     the five generated trees, their manifests, building them
    timing.py       hyperfine, passes in alternating order, cold cache
    correctness.py  untimed runs: counts, pfind's paths vs find's, peak memory
    early_quit.py   --early-quit: unique names, the seeded draw, escaping, the searches
    order.py        --shallow-order: how soon a listing reaches the files at depth <= 2
    first_path.py   --first-path: cold first byte and end, on a direct-I/O loop device
    ignore_view.py  --ignore-view: git's answer, the set checks, the view's commands
    realistic.py    --make-realistic: a clone with build output, packages, untracked files
    latency_fs.py   --latency-fs: latencyfs mounts, the commands, measure_on, the table
    giant.py        --giant: one directory of N mdtest-named files, its commands, cells, table
    index_mode.py   --index: pfind --index's building run, repeats, trusted queries, plocate
    touch_dirs.py   --index: a share of a tree's directories changed between runs (standalone)
    io500_tree.py   --io500-tree: mdtest easy/hard tree, IO500's find phase, its count checks
    sshfs.py        --sshfs: the harness's own sshd on 127.0.0.1, sshfs mounts of it
    startup.py      --startup: small trees and an empty directory, runs interleaved
    report/         schema.py: the JSON report (REPORT_SCHEMA); tables.py: the text
    charts.py       --plot: SVG charts (matplotlib, only there)
    tools.py        the scenarios, each tool's command line and version
    machine.py      CPU, memory, kernel, mounts and filesystems
    common.py       what all share: logging, JSON files, finding and running
                    programs, the name glob
"""
