"""The report of a run: hands on the names of schema.py and tables.py, so that
`from pfind_bench import report` reaches both."""

from .schema import REPORT_SCHEMA, failed_parts, floor_ratios, make_cell, make_report, rank, upgrade_report
from .tables import (
    all_tables,
    cell_label,
    correctness_table,
    early_quit_table,
    first_path_table,
    floor_grid,
    fs_cache_tables,
    ignore_view_table,
    memory_table,
    shallow_order_table,
    speedup_grid,
    summary_lines,
    sweep_table,
    timing_tables,
    tools_line,
)
