"""The report of a run: hands on the names of schema.py and tables.py, so that
`from pfind_bench import report` reaches both."""

from .schema import REPORT_SCHEMA, floor_ratios, make_cell, make_report, rank, upgrade_report
from .tables import (
    all_tables,
    cell_label,
    correctness_table,
    floor_grid,
    fs_cache_tables,
    memory_table,
    speedup_grid,
    summary_lines,
    sweep_table,
    timing_tables,
    tools_line,
)
