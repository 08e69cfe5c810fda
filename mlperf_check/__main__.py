"""`python -m mlperf_check`: the same as the `mlperf-check` command."""

import gc

# Off while the modules load: they build thousands of objects and no garbage cycles, and each
# collection would walk them all again (cli.console turns it back on).
gc.disable()

from mlperf_check.cli import console  # noqa: E402 - after the collector is paused

console()
