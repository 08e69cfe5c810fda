"""The measurements folder of a result: its files, the implementation JSON with a value for each
of the round's fields, a power result's analyzer table and power settings, and the benchmark's
code folder."""

from __future__ import annotations

import json
from pathlib import Path

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import RoundRuleChecker, has_power, place
from mlperf_check.inference.discovery import ENDPOINTS, LOADGEN
from mlperf_check.report import ERROR, WARNING, Finding


class RoundMeasurementsChecker(RoundRuleChecker):
    name = "inference_round_measurements"
    readings = (LOADGEN, ENDPOINTS)
    description = "v2.1+: the measurements folder, its implementation JSON and power files, the code folder"

    def check_result(self, context: ResultContext) -> list[Finding]:
        folder, table = context.folder, context.rules.table
        measurements = place(table["layout"]["measurements"], folder)
        rel = context.rel(measurements)
        if not measurements.is_dir():
            return [self.finding(ERROR, "missing_measurements", "no measurements folder", file=rel)]
        out = []
        files = table["measurement_files"]
        if folder.reading == ENDPOINTS:  # the Endpoints client has no LoadGen user.conf
            files = [name for name in files if name != "user.conf"]
        for name in files:
            path = measurements / name
            if path.is_file() and path.stat().st_size > 0:
                continue
            severity, message = ERROR, f"{name} is missing"
            if path.is_file():
                # An empty file is a warning where the round's checker asked only that it be there
                # (v2.1, v3.0: InferenceRound.measurement_files_content).
                severity = ERROR if context.rules.measurement_files_content else WARNING
                message = f"{name} is empty"
            out.append(self.finding(severity, "measurement_file", message, file=rel, expected=name))
        implementation = None
        pattern = table["layout"]["implementation_json"].format(system=folder.system)
        for path in sorted(measurements.glob(pattern)):
            implementation = path
            if path.name.endswith(f"_{folder.scenario_folder}.json"):
                break
        if implementation is None:
            out.append(self.finding(ERROR, "missing_implementation_json", f"no {pattern}", file=rel))
            return out
        try:
            data = json.loads(implementation.read_bytes().decode("utf-8", errors="replace"))
        except ValueError as exc:
            data = None
            out.append(
                self.finding(
                    ERROR, "implementation_json", f"not JSON: {exc}", file=context.rel(implementation)
                )
            )
        if isinstance(data, dict):
            # A field left out, and one left empty: an empty one is a warning where the round's
            # checker did not look for values (v2.1, v3.0: InferenceRound.implementation_values).
            missing = [name for name in table["implementation_fields"] if name not in data]
            empty = [name for name in table["implementation_fields"] if name in data and not data[name]]
            empty_severity = ERROR if context.rules.implementation_values else WARNING
            for severity, code, names, what in (
                (ERROR, "implementation_fields", missing, "lacks"),
                (empty_severity, "implementation_field_empty", empty, "lacks a value for"),
            ):
                if names:
                    out.append(self.finding(severity, code, f"implementation JSON {what} {', '.join(names)}",
                                            file=context.rel(implementation)))
        if has_power(context):
            out.extend(self._power_measurements(context, measurements))
        code = place(table["layout"]["code"], folder)
        if not code.exists():
            out.append(
                self.finding(
                    ERROR, "missing_code", "no code folder for the benchmark", file=context.rel(code)
                )
            )
        return out

    def _power_measurements(self, context: ResultContext, measurements: Path) -> list[Finding]:
        """A power result's analyzer table and power settings, in the measurements folder or up to
        three folders above it (the official checker's search)."""
        folders = [measurements, *list(measurements.parents)[:3]]
        out = []
        for pattern in context.rules.table["power_measurement_files"]:
            prefix = pattern.rstrip("*")  # "analyzer_table.*" matched from the start of the name
            found = [
                p
                for d in folders
                if d.is_dir()
                for p in sorted(d.iterdir())
                if p.is_file() and p.name.startswith(prefix)
            ]
            if not found or found[-1].stat().st_size == 0:
                out.append(
                    self.finding(
                        ERROR,
                        "power_measurement_file",
                        f"a power result needs a non-empty {prefix}* file beside its measurements",
                        file=context.rel(measurements),
                        expected=f"{prefix}*",
                    )
                )
        return out
