"""Power results: the power analyzer's samples (`spl.txt`) of the timed run, inside LoadGen's window.

A result with power has, next to `performance/run_1/` (its timed run, plus `spl.txt`), a ranging
run in `performance/ranging/` (summary, detail, `spl.txt`) and the PTDaemon logs in
`performance/power/` (client/server JSON and logs, `ptd_logs.txt`). The figure, as the official
checker computes it: the mean of the positive samples strictly between the detail log's
`power_begin` and `power_end` (Watts, for Offline, Server and Interactive), or that mean times the
window's length per query (millijoules per query, SingleStream and MultiStream; times 8 samples
for a MultiStream result inferred from a SingleStream run). `spl.txt` is streamed.

`spl.txt` lines: `Time,<MM-DD-YYYY HH:MM:SS.fff>,Watts,<w>,Volts,<v>,Amps,<a>,PF,<pf>,Mark,<mark>`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

TIME_FORMAT = "%m-%d-%Y %H:%M:%S.%f"
RUN_FILES = ("mlperf_log_summary.txt", "mlperf_log_detail.txt", "spl.txt")
PTD_FILES = ("client.json", "client.log", "ptd_logs.txt", "server.json", "server.log")


@dataclass
class PowerMeasurement:
    value: float | None = None  # Watts or millijoules per query
    samples: int = 0
    # (code, message, file relative to the run folder's parent performance/ folder, or "")
    errors: list[tuple[str, str, str]] = field(default_factory=list)


def _time(text: str) -> datetime | None:
    try:
        return datetime.strptime(text.strip(), TIME_FORMAT)
    except ValueError:
        return None


def measure_power(run_dir: Path, detail, scenario: str, inferred_from: str) -> PowerMeasurement:
    """`run_dir` is performance/run_1; `detail` its parsed detail log."""
    out = PowerMeasurement()
    performance = run_dir.parent
    for folder, names in (
        (run_dir, ("spl.txt",)),
        (performance / "ranging", RUN_FILES),
        (performance / "power", PTD_FILES),
    ):
        for name in names:
            if not (folder / name).is_file():
                out.errors.append(
                    (
                        "power_file_missing",
                        f"{name} missing from {folder.name}/ (power results need it)",
                        folder.name,
                    )
                )
    begin, end = _time(detail.power.get("power_begin", "")), _time(detail.power.get("power_end", ""))
    if begin is None or end is None:
        out.errors.append(
            ("power_window_missing", "the detail log has no power_begin/power_end", run_dir.name)
        )
        return out
    spl = run_dir / "spl.txt"
    if not spl.is_file():
        return out
    total = 0.0
    with spl.open("rb") as stream:
        for raw in stream:
            if not raw.startswith(b"Time"):
                continue
            parts = raw.decode("utf-8", errors="replace").split(",")
            if len(parts) < 4:
                continue
            stamp = _time(parts[1])
            if stamp is None or not begin < stamp < end:
                continue
            try:
                watts = float(parts[3])
            except ValueError:
                continue
            if watts > 0:
                total += watts
                out.samples += 1
    if out.samples == 0:
        out.errors.append(
            (
                "power_no_samples",
                f"spl.txt has no power sample between {begin} and {end}",
                f"{run_dir.name}/spl.txt",
            )
        )
        return out
    average = total / out.samples
    if scenario in ("SingleStream", "MultiStream"):
        queries = detail.results.get("result_query_count")
        if not isinstance(queries, int | float) or queries <= 0:
            out.errors.append(
                ("power_no_query_count", "no result_query_count to divide the energy by", run_dir.name)
            )
            return out
        energy_mj = average * (end - begin).total_seconds() * 1000
        per_query = 8 if scenario == "MultiStream" and inferred_from == "SingleStream" else 1
        out.value = energy_mj * per_query / int(queries)
    else:
        out.value = average
    return out
