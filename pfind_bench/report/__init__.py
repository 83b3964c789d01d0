"""The report of a run, in two parts: schema.py makes the JSON report (its shape is
written at the top there) and reads those of older schemas; tables.py prints the
text tables and the verdict from one.  Their names are handed on here, so that
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
