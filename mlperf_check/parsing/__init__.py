"""Streaming parser of MLPerf training logs (the three line formats of rounds 0.5 to today).

`iter_records(stream, file=..., findings=..., stats=...)` reads a result file once, yields one
`mlperf_check.report.Record` per valid event, appends parser findings and fills `ParseStats`. It never
raises on any byte content. See reader.py (stream, limits, findings) and formats.py (grammars).
"""

from mlperf_check.parsing.formats import MLL, MLLOG, MLP05
from mlperf_check.parsing.reader import MAX_LINE, ParseStats, iter_records

__all__ = ["MAX_LINE", "MLL", "MLLOG", "MLP05", "ParseStats", "iter_records"]
