"""Power results: the power analyzer's samples (`spl.txt`) of the timed run, inside LoadGen's window.

A result with power has, next to `performance/run_1/` (its timed run, plus `spl.txt`), a ranging
run in `performance/ranging/` (summary, detail, `spl.txt`) and the PTDaemon logs in
`performance/power/` (client/server JSON and logs, `ptd_logs.txt`). The figure, as the official
checker computes it: the mean of the positive samples strictly between the detail log's
`power_begin` and `power_end` (Watts, for Offline, Server and Interactive), or that mean times the
window's length per query (millijoules per query, SingleStream and MultiStream; times 8 samples
for a MultiStream result inferred from a SingleStream run). `spl.txt` is streamed.

`spl.txt` lines: `Time,<MM-DD-YYYY HH:MM:SS.fff>,Watts,<w>,Volts,<v>,Amps,<a>,PF,<pf>,Mark,<mark>`.

Of the Power WG's own check (power_checker.py, run by the official checker) we apply the session
checks: client.json and server.json name the same session and UUIDs, their phases agree within
800 ms, each LoadGen run (ranging, testing) lies inside its measured phase, and the testing run's
mean power is not more than 5 % below the ranging run's. ERROR lines of `ptd_logs.txt` are
reported as warnings (the Power WG treats the known ones as such); its source checksums and
message-by-message comparison are not reproduced (docs/differences.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

TIME_FORMAT = "%m-%d-%Y %H:%M:%S.%f"
RUN_FILES = ("mlperf_log_summary.txt", "mlperf_log_detail.txt", "spl.txt")
PTD_FILES = ("client.json", "client.log", "ptd_logs.txt", "server.json", "server.log")
SESSION_FIELDS = (
    "version",
    "timezone",
    "modules",
    "sources",
    "messages",
    "uuid",
    "session_name",
    "results",
    "phases",
)
PHASE_TOLERANCE_S = 0.8  # client and server clocks of one phase
# Testing-run power may not fall more than this below the ranging run's.
RANGING_DROP_PERCENT = -5


@dataclass
class PowerMeasurement:
    value: float | None = None  # Watts or millijoules per query
    samples: int = 0
    # (code, message, file relative to the performance/ folder)
    errors: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str, str]] = field(default_factory=list)


def _time(text: str) -> datetime | None:
    """`MM-DD-YYYY HH:MM:SS.fff` (the analyzer's and LoadGen's power clock); sliced by hand, as
    spl.txt has a line per sample and strptime is slow."""
    text = text.strip()
    try:
        if len(text) >= 20 and text[2] == text[5] == "-" and text[10] == " " and text[19] == ".":
            fraction = text[20:26].ljust(6, "0")
            return datetime(
                int(text[6:10]), int(text[0:2]), int(text[3:5]),
                int(text[11:13]), int(text[14:16]), int(text[17:19]), int(fraction),
            )  # fmt: skip
        return datetime.strptime(text, TIME_FORMAT)
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
    if out.errors:
        return out
    average, out.samples = _mean_power(run_dir / "spl.txt", begin, end)
    if out.samples == 0:
        out.errors.append(
            (
                "power_no_samples",
                f"spl.txt has no power sample between {begin} and {end}",
                f"{run_dir.name}/spl.txt",
            )
        )
        return out
    try:
        _session_checks(out, performance, run_dir, (begin, end), average)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError) as exc:
        # A session file with the fields but not their shape (uuid not an object, a phase not
        # a [time, ...] pair): reported, never a crash.
        out.errors.append(
            ("power_session", f"client.json/server.json are not PTDaemon session files ({exc!r})", "power")
        )
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


def _mean_power(spl: Path, begin: datetime, end: datetime) -> tuple[float, int]:
    """The mean of the positive Watts samples strictly inside (begin, end), and their count."""
    total, count = 0.0, 0
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
                count += 1
    return (total / count if count else 0.0), count


def _window(path: Path) -> tuple[datetime, datetime] | None:
    """power_begin/power_end of a detail log, read without parsing the whole log."""
    found: dict[str, datetime | None] = {}
    with path.open("rb") as stream:
        for raw in stream:
            for key in (b"power_begin", b"power_end"):
                if key in raw:
                    try:
                        value = json.loads(raw.split(b":::MLLOG ", 1)[-1])["value"]
                    except (ValueError, KeyError, TypeError):
                        continue
                    found[key.decode()] = _time(str(value))
            if len(found) == 2:
                break
    begin, end = found.get("power_begin"), found.get("power_end")
    return (begin, end) if begin and end else None


def _session(path: Path, out: PowerMeasurement) -> dict | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        out.errors.append(
            ("power_session", f"{path.name} is not readable JSON ({exc})", f"power/{path.name}")
        )
        return None
    absent = (
        [name for name in SESSION_FIELDS if name not in data]
        if isinstance(data, dict)
        else list(SESSION_FIELDS)
    )
    if absent:
        out.errors.append(("power_session", f"{path.name} lacks {', '.join(absent)}", f"power/{path.name}"))
        return None
    return data


def _session_checks(
    out: PowerMeasurement, performance: Path, run_dir: Path, testing, testing_watts: float
) -> None:
    power = performance / "power"
    client, server = _session(power / "client.json", out), _session(power / "server.json", out)
    if client is None or server is None:
        return
    for key in ("client", "server"):
        if str(client["uuid"].get(key)) != str(server["uuid"].get(key)):
            out.errors.append(
                ("power_session", f"client.json and server.json differ in the {key} uuid", "power")
            )
    if client["session_name"] != server["session_name"]:
        out.errors.append(("power_session", "client.json and server.json name different sessions", "power"))
    ranging = _window(performance / "ranging" / "mlperf_log_detail.txt")
    for mode, window in (("ranging", ranging), ("testing", testing)):
        phases_c, phases_s = client["phases"].get(mode, []), server["phases"].get(mode, [])
        if len(phases_c) != len(phases_s) or len(phases_c) < 3:
            out.errors.append(
                ("power_phases", f"the {mode} phases of client.json and server.json differ", "power")
            )
            continue
        for number, (c, s) in enumerate(zip(phases_c, phases_s, strict=True), start=1):
            if abs(c[0] - s[0]) > PHASE_TOLERANCE_S:
                out.errors.append(
                    (
                        "power_phases",
                        f"{mode} phase {number}: client and server clocks differ by more than 800 ms",
                        "power",
                    )
                )
        if window is None:
            out.errors.append(
                ("power_window_missing", f"the {mode} detail log has no power_begin/power_end", mode)
            )
            continue
        start, stop = phases_c[1][0], phases_c[2][0]
        for what, moment in zip(("begin", "end"), window, strict=True):
            stamp = moment.replace(tzinfo=UTC).timestamp()
            # The Power WG's one-hour allowance for daylight-saving changes.
            if not (start < stamp < stop or start < stamp - 3600 < stop):
                out.errors.append(
                    (
                        "power_outside_phase",
                        f"the LoadGen {mode} run's {what} is outside its measured phase",
                        mode,
                    )
                )
    if ranging is not None:
        ranging_watts, samples = _mean_power(performance / "ranging" / "spl.txt", *ranging)
        if samples and testing_watts:
            delta = round((round(testing_watts, 5) / round(ranging_watts, 5) - 1) * 100, 2)
            if delta <= RANGING_DROP_PERCENT:
                out.errors.append(
                    (
                        "power_below_ranging",
                        f"testing-run power {testing_watts:.2f} W is {-delta:.2f} % below the ranging run's "
                        f"{ranging_watts:.2f} W (at most 5 %)",
                        run_dir.name,
                    )
                )
    ptd = power / "ptd_logs.txt"
    errors = [
        line for line in ptd.read_bytes().decode("utf-8", errors="replace").splitlines() if ": ERROR:" in line
    ]
    if errors:
        out.warnings.append(
            (
                "ptd_errors",
                f"ptd_logs.txt has {len(errors)} ERROR lines (first: {errors[0].strip()[:160]})",
                "power/ptd_logs.txt",
            )
        )
