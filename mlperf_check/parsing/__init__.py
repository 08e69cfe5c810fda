"""Streaming parser of MLPerf training logs (the three line formats of rounds 0.5 to today).

`iter_record_blocks(stream, file=..., findings=..., stats=...)` reads a result file once, yields
the `mlperf_check.report.Record`s of the valid events one list per block read, appends parser
findings and fills `ParseStats`; `iter_records` yields the same records one by one. It never
raises on any byte content. See reader.py (stream, limits, findings) and formats.py (grammars).
"""

from mlperf_check.parsing.formats import MLL, MLLOG, MLP05
from mlperf_check.parsing.reader import MAX_LINE, ParseStats, iter_record_blocks, iter_records

__all__ = ["MAX_LINE", "MLL", "MLLOG", "MLP05", "ParseStats", "iter_record_blocks", "iter_records"]
