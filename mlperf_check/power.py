"""Energy to train: the `power/` folder beside a result folder's runs, checked and scored as the
official mlperf-logging tools do (training from v4.0, and HPC, which share the code).

Layout (official power checker, `package_checker/power_checker.py`):

    <benchmark folder>/power/<result file name without .txt>/node_<k>.txt   one per node
    <benchmark folder>/power/<result file name without .txt>/sw_<k>.txt     one per switch

Checks, as the official power checker: every run has its power folder; node and switch files are
numbered 0 .. count-1; every run has as many node files and as many switch files as most runs
(the official majority count). Stricter here: a misnumbered file is a warning even where the
official checker passes it by counting an unrelated file (a `nodes_1_to_1.png` plot) as a node
file, and file contents are checked (a start line, numeric readings), where the official
summarizer crashes.

Energy of one run (official summarizer, `_compute_total_power`, package 4.1.68), in the units of
the logs (readings in watts, times in ms: the result is joules, which the tools print unlabelled):

* node file: records sorted by time; from `power_measurement_start` to `power_measurement_stop`,
  Σ reading × (its time − the previous reading's, or the start's); × `conversion_eff` (last one
  logged, default 1) × time to train / (stop − start) / 1000. No stop line: the last reading ends
  the window.
* switch file: the first `interconnect_power_est` × `conversion_eff` × time to train / 1000.
* the run: the node files, then the switch files, summed in name order.

Where the stop line has the start line's time (all readings lie after it: real v4.0 files), the
current summarizer divides by zero and crashes. The tools of the round (mlcommons/logging 39fc7a0,
June 2024, which produced the published v4.0 energies) read the file in order up to the stop line
and end the window at the later of the stop line and the last reading; that is what is computed
then, with a warning.

The result's energy: the energies of the runs the time score counts (the same olympic selection,
in time order), averaged, times the score's scaling factor, as the summarizer's `Energy` column.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from mlperf_check.finding_sources import checker_version
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.parsing.formats import EventError, loads_json, short_repr, to_time
from mlperf_check.report import ERROR, WARNING, EnergyScore, Finding, RunEnergy
from mlperf_check.scoring import COUNTED

if TYPE_CHECKING:
    from mlperf_check.package import BenchmarkDir, Package
    from mlperf_check.report import BenchmarkResult

CHECKER = "power"
POWER_FOLDER = "power"
MLLOG_TOKEN = b":::MLLOG "
MAX_POWER_FILE_BYTES = 64 << 20  # real node files are well under 1 MB (a reading every few seconds)
MAX_LINE_FINDINGS = 10  # per file
NODE_FILE = re.compile(r"node_(.+)\.txt")
SWITCH_FILE = re.compile(r"sw_(.+)\.txt")

WINDOW = "window"  # the current official computation (RunEnergy.method)
ROUND_TOOLS = "round_tools"  # the v4.0 tools' computation, where the window is empty


@dataclass
class _Reading:
    """One `:::MLLOG` event of a power log."""

    key: str
    value: Any
    time_ms: float
    line: int


def _finding(severity: str, code: str, message: str, file: str, line: int | None = None, **extra) -> Finding:
    return Finding(
        severity,
        code,
        message,
        file=file,
        line=line,
        checker=CHECKER,
        checker_version=checker_version(CHECKER),
        **extra,
    )


def has_power(bench_dir: BenchmarkDir) -> bool:
    """Whether the folder has a power/ subfolder with files (the summarizer's `_has_power`)."""
    prefix = f"{bench_dir.folder}/{POWER_FOLDER}/"
    return any(rel.startswith(prefix) for rel in bench_dir.other_files)


def power_folder_of(result_file: str) -> str:
    """results/.../bert/result_3.txt -> results/.../bert/power/result_3 (the official folder name is
    the result file name up to its first dot)."""
    folder, _, name = result_file.rpartition("/")
    return f"{folder}/{POWER_FOLDER}/{name.split('.')[0]}"


def check_power(package: Package, bench_dir: BenchmarkDir) -> tuple[dict[str, RunEnergy], list[Finding]]:
    """The official power checker's checks for one result folder, and each run's power files.
    Returns {result file: RunEnergy (energy not yet computed)} and the findings."""
    findings: list[Finding] = []
    runs: dict[str, RunEnergy] = {}
    files_below = {rel for rel in bench_dir.other_files}
    for result_file in bench_dir.result_files:
        folder = power_folder_of(result_file)
        inside = sorted(rel[len(folder) + 1 :] for rel in files_below if rel.startswith(folder + "/"))
        run = RunEnergy(result_file, folder)
        runs[result_file] = run
        if not inside:
            findings.append(
                _finding(
                    ERROR,
                    "POWER_FOLDER_MISSING",
                    f"{result_file} has no power measurements: expected {folder}/node_<k>.txt (one per node) "
                    "and sw_<k>.txt (one per switch), as for the other runs of the folder",
                    file=result_file,
                    expected=f"{folder}/",
                )
            )
            continue
        names = [name for name in inside if "/" not in name]
        run.node_files = _numbered(names, NODE_FILE, folder)
        run.switch_files = _numbered(names, SWITCH_FILE, folder)
        findings += _numbering(run.node_files, "node", folder)
        findings += _numbering(run.switch_files, "sw", folder)
        if not run.node_files:
            findings.append(
                _finding(
                    ERROR,
                    "POWER_NODE_FILES_MISSING",
                    f"{folder}/ has no node_<k>.txt file; the energy of a run is the sum over its nodes",
                    file=folder,
                    expected="node_0.txt",
                )
            )
    findings += _consistent_counts(list(runs.values()), "node", lambda run: len(run.node_files))
    findings += _consistent_counts(list(runs.values()), "sw", lambda run: len(run.switch_files))
    return runs, findings


def _numbered(names: list[str], pattern: re.Pattern, folder: str) -> list[str]:
    """The files matching node_<k>.txt (or sw_<k>.txt), in number order (names after numbers)."""
    matched = [(pattern.fullmatch(name), name) for name in names]
    chosen = [(m.group(1), name) for m, name in matched if m]
    chosen.sort(key=lambda pair: (0, int(pair[0]), pair[1]) if pair[0].isdigit() else (1, 0, pair[1]))
    return [f"{folder}/{name}" for _, name in chosen]


def _numbering(files: list[str], prefix: str, folder: str) -> list[Finding]:
    """node_<k> / sw_<k> with k in 0 .. count-1, each once."""
    count = len(files)
    indices = [rel.rpartition("/")[2][len(prefix) + 1 : -len(".txt")] for rel in files]
    expected = {str(k) for k in range(count)}
    if sorted(indices) == sorted(expected) and len(set(indices)) == count:
        return []
    return [
        _finding(
            WARNING,
            "POWER_FILE_NUMBERING",
            f"{folder}/ holds {', '.join(rel.rpartition('/')[2] for rel in files)}; the official power checker "
            f"expects {prefix}_<k>.txt with k from 0 to {count - 1}, each once (the energy still sums every "
            f"{prefix}_*.txt file, as the official summarizer does)",
            file=folder,
            expected=", ".join(f"{prefix}_{k}.txt" for k in range(count)),
            actual=", ".join(rel.rpartition("/")[2] for rel in files),
        )
    ]


def _consistent_counts(runs: list[RunEnergy], kind: str, count_of) -> list[Finding]:
    """Every run measured on as many nodes (switches) as most runs: the official majority count
    (ties go to the count seen first, in file order)."""
    measured = [run for run in runs if run.node_files or run.switch_files]
    if not measured:
        return []
    tally: dict[int, int] = {}
    for run in measured:
        tally[count_of(run)] = tally.get(count_of(run), 0) + 1
    usual = max(tally, key=tally.get)
    return [
        _finding(
            ERROR,
            "POWER_COUNT_INCONSISTENT",
            f"{run.power_folder}/ has {count_of(run)} {kind}_*.txt file(s); most runs of the folder have {usual}: "
            "every run is measured on the same nodes and switches",
            file=run.power_folder,
            expected=str(usual),
            actual=str(count_of(run)),
        )
        for run in measured
        if count_of(run) != usual
    ]


def read_power_file(package: Package, rel: str, findings: list[Finding]) -> list[_Reading] | None:
    """The MLLOG records of a node or switch file, in file order; None when it cannot be read.
    Unlike result logs, `metadata` may be anything (real files write "")."""
    try:
        data = package.read_at_most(rel, MAX_POWER_FILE_BYTES)
    except (OSError, ValueError) as exc:
        findings.append(_finding(ERROR, "POWER_FILE_UNREADABLE", f"{rel} cannot be read: {exc}", file=rel))
        return None
    if len(data) > MAX_POWER_FILE_BYTES:
        findings.append(
            _finding(
                ERROR,
                "POWER_FILE_TOO_LARGE",
                f"{rel} is larger than {MAX_POWER_FILE_BYTES >> 20} MiB; power logs are a reading every few "
                "seconds per node, far smaller",
                file=rel,
            )
        )
        return None
    records: list[_Reading] = []
    bad_lines = 0
    for number, raw in enumerate(data.splitlines(), start=1):
        at = raw.rfind(MLLOG_TOKEN)
        if at < 0:
            continue
        try:
            event = loads_json(raw[at + len(MLLOG_TOKEN) :].strip(), "after ':::MLLOG '")
            if type(event) is not dict or type(event.get("key")) is not str or "value" not in event:
                raise EventError("POWER_BAD_LINE", "expected a JSON object with a string 'key' and a 'value'")
            time_ms = to_time(event.get("time_ms"), "time_ms", 1.0, event["key"])
        except EventError as exc:
            bad_lines += 1
            if bad_lines <= MAX_LINE_FINDINGS:
                findings.append(
                    _finding(
                        WARNING,
                        "POWER_BAD_LINE",
                        f"{rel} line {number}: {exc.message}; the line is skipped, as the official parser does",
                        file=rel,
                        line=number,
                        actual=short_repr(raw[:200].decode("utf-8", "replace")),
                    )
                )
            continue
        records.append(_Reading(event["key"], event["value"], time_ms, number))
    return records


def _number(value: Any) -> float | None:
    """A finite int or float (an integer too large for a float is not one)."""
    if type(value) not in (int, float):
        return None
    try:
        return value if math.isfinite(float(value)) else None
    except OverflowError:
        return None


def node_energy(rel: str, records: list[_Reading], time_to_train_ms: float, findings: list[Finding]):
    """(energy, method) of one node file for a run of the given time to train; (None, "") when
    the file gives none."""
    starts = [r for r in records if r.key == "power_measurement_start"]
    if not starts:
        findings.append(
            _finding(
                ERROR,
                "POWER_NO_START",
                f"{rel} has no power_measurement_start line: the measurement window is unknown (the official "
                "summarizer stops with an error)",
                file=rel,
                key="power_measurement_start",
            )
        )
        return None, ""
    for record in records:
        if record.key in ("power_reading", "conversion_eff") and _number(record.value) is None:
            findings.append(
                _finding(
                    ERROR,
                    "POWER_BAD_VALUE",
                    f"{rel} line {record.line}: {record.key} {short_repr(record.value)} is not a number",
                    file=rel,
                    line=record.line,
                    key=record.key,
                    actual=short_repr(record.value),
                )
            )
            return None, ""
    if not any(r.key == "power_reading" for r in records):
        findings.append(
            _finding(
                WARNING, "POWER_NO_READINGS", f"{rel} has no power_reading line: its energy is 0", file=rel
            )
        )
    energy = _window_energy(sorted(records, key=lambda r: r.time_ms), time_to_train_ms)
    if energy is not None:
        return energy, WINDOW
    energy = _round_tools_energy(records, time_to_train_ms)
    if energy is None:
        findings.append(
            _finding(
                ERROR,
                "POWER_WINDOW_EMPTY",
                f"{rel}: the measurement window has no length (power_measurement_stop is not after "
                "power_measurement_start, and no reading is either), so no energy can be computed",
                file=rel,
            )
        )
        return None, ""
    findings.append(
        _finding(
            WARNING,
            "POWER_WINDOW_EMPTY",
            f"{rel}: power_measurement_stop has the time of power_measurement_start (every reading lies after "
            "it); the current official summarizer divides by zero here. Computed as the tools of round v4.0 "
            "did: every reading up to the stop line, the window ending at the last reading",
            file=rel,
            key="power_measurement_stop",
        )
    )
    return energy, ROUND_TOOLS


def _window_energy(records: list[_Reading], time_to_train_ms: float) -> float | None:
    """The current official `_compute_power_node` over time-sorted records; None where it divides
    by zero (or by a negative window)."""
    previous = last = start = stop = 0.0
    total = 0.0
    efficiency = 1.0
    started = stopped = False
    for record in records:
        key = record.key
        if key == "power_measurement_start":
            start = previous = record.time_ms
            started = True
        if key == "power_reading" and started and not stopped:
            total += record.value * (record.time_ms - previous)
            previous = record.time_ms
            last = max(last, record.time_ms)
        if key == "power_measurement_stop":
            stop = record.time_ms
            stopped = True
        if key == "conversion_eff":
            efficiency = record.value
    if not stopped:
        stop = last
    if stop - start <= 0:
        return None
    return efficiency * total * time_to_train_ms / (stop - start) / 1000


def _round_tools_energy(records: list[_Reading], time_to_train_ms: float) -> float | None:
    """The v4.0 tools' `_compute_power_node` (file order, up to the stop line, window end at the
    later of the stop and the last reading)."""
    previous = latest = start = stop = 0.0
    total = 0.0
    efficiency = 1.0
    for record in records:
        key = record.key
        if key == "power_measurement_start":
            start = previous = record.time_ms
        if key == "power_reading":
            total += record.value * (record.time_ms - previous)
            previous = record.time_ms
            latest = max(latest, record.time_ms)
        if key == "power_measurement_stop":
            stop = record.time_ms
            break
        if key == "conversion_eff":
            efficiency = record.value
    stop = max(stop, latest)
    if stop - start <= 0:
        return None
    return efficiency * total * time_to_train_ms / (stop - start) / 1000


def switch_energy(
    rel: str, records: list[_Reading], time_to_train_ms: float, findings: list[Finding]
) -> float | None:
    """The official `_compute_power_sw`: the first interconnect_power_est (with the conversion_eff
    logged before it) over the time to train."""
    efficiency = 1.0
    for record in records:
        if record.key == "conversion_eff":
            efficiency = _number(record.value)
        if record.key == "interconnect_power_est":
            power = _number(record.value)
            if power is None or efficiency is None:
                findings.append(
                    _finding(
                        ERROR,
                        "POWER_BAD_VALUE",
                        f"{rel} line {record.line}: interconnect_power_est {short_repr(record.value)} (or the "
                        "conversion_eff before it) is not a number",
                        file=rel,
                        line=record.line,
                        key=record.key,
                    )
                )
                return None
            return efficiency * power * time_to_train_ms / 1000
    findings.append(
        _finding(
            WARNING,
            "POWER_NO_INTERCONNECT",
            f"{rel} has no interconnect_power_est line: the switch adds no energy",
            file=rel,
            key="interconnect_power_est",
        )
    )
    return 0.0


def run_energy(package: Package, run: RunEnergy, time_to_train_ms: float, findings: list[Finding]) -> None:
    """Fill run.energy (node files, then switch files, summed in that order)."""
    total = 0.0
    method = WINDOW
    for rel in run.node_files:
        records = read_power_file(package, rel, findings)
        if records is None:
            return
        energy, used = node_energy(rel, records, time_to_train_ms, findings)
        if energy is None:
            return
        total += energy
        method = ROUND_TOOLS if used == ROUND_TOOLS else method
    for rel in run.switch_files:
        records = read_power_file(package, rel, findings)
        if records is None:
            return
        energy = switch_energy(rel, records, time_to_train_ms, findings)
        if energy is None:
            return
        total += energy
    if run.node_files:
        run.energy = total
        run.method = method


def score_energy(package: Package, bench_dir: BenchmarkDir, result: BenchmarkResult) -> list[Finding]:
    """Check the folder's power measurements and set result.energy; returns the findings. Only
    for folders with a power/ subfolder (result.energy stays None otherwise)."""
    if not has_power(bench_dir):
        return []
    runs, findings = check_power(package, bench_dir)
    by_file = {run.file: run for run in result.runs}
    for rel, energy in runs.items():
        run = by_file.get(rel)
        if (
            run is not None
            and run.time_to_train_ms is not None
            and (energy.node_files or energy.switch_files)
        ):
            run_energy(package, energy, run.time_to_train_ms, findings)
    if result.scaling == "weak":
        result.energy = _weak_energy(result, runs)
        return findings
    factor = result.rcp.scaling_factor
    counted = [score.file for score in result.run_scores if score.scoring == COUNTED]
    if result.mean_minutes is None or not counted:
        result.energy = EnergyScore(None, None, factor, list(runs.values()), "the result has no time score")
        return findings
    missing = [rel for rel in counted if runs[rel].energy is None]
    if missing:
        note = f"no energy for {len(missing)} counted run(s): {', '.join(missing)}"
        result.energy = EnergyScore(None, None, factor, list(runs.values()), note)
        return findings
    total = 0.0
    for rel in counted:  # in time order, as the official summarizer adds them
        total += runs[rel].energy
    mean = total / len(counted)
    note = f"mean of the energies of the {len(counted)} runs the time score counts"
    if factor != 1.0:
        note += f"; multiplied by the scaling factor {factor:.4f}"
    result.energy = EnergyScore(mean * factor, mean, factor, list(runs.values()), note)
    return findings


def _weak_energy(result: BenchmarkResult, runs: dict[str, RunEnergy]) -> EnergyScore:
    """HPC throughput: the official summarizer averages the energies of the counted models after
    dropping the lowest one only (`_compute_olympic_average(power_scores, 1, 1)`), unscaled."""
    counted = [score.file for score in result.run_scores if score.scoring == COUNTED]
    energies = [runs[rel].energy for rel in counted]
    if not energies or any(energy is None for energy in energies):
        return EnergyScore(None, None, 1.0, list(runs.values()), "not every counted model has an energy")
    kept = sorted(energies)[1:]
    if not kept:
        return EnergyScore(
            None, None, 1.0, list(runs.values()), "one model: nothing left after dropping the lowest"
        )
    total = 0.0
    for energy in kept:
        total += energy
    mean = total / len(kept)
    note = f"mean energy of {len(kept)} of {len(energies)} models (the lowest dropped, as the official summarizer does)"
    return EnergyScore(mean, mean, 1.0, list(runs.values()), note)
