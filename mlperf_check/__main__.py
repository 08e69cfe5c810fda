"""`python -m mlperf_check`: the same as the `mlperf-check` command."""

import sys

from mlperf_check.cli import main

sys.exit(main())
