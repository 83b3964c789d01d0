"""pfind's benchmark harness, behind the thin benchmark.py entry point.

How a run flows: cli parses the command line; plan decides every cell (cache mode x
filesystem x dataset or tree x scenario) and says what is skipped and why;
filesystems makes and mounts the --fs filesystems; datasets generates the trees on
each; timing runs hyperfine in passes of alternating order (dropping the page cache
first for cold cells); correctness checks every tool's answer untimed; report
assembles the JSON report and the tables; charts draws them (--plot).  tools knows
each tool's command line and version, machine the hardware and mounts, common the
few helpers all share.
"""
