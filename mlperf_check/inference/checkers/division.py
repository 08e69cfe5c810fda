"""Division rules (a division the round does not have is an error; the network division, v2.1 on,
has the closed division's). Closed: an official model (aliases noted), and an implementation JSON that
states the data types and weights and that the model was not retrained. Open: the implementation
JSON states how the submission deviates from closed (a warning when absent)."""

from __future__ import annotations

import json
from pathlib import Path

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.discovery import ENDPOINTS, LOADGEN
from mlperf_check.report import ERROR, INFO, WARNING, Finding


class InferenceDivisionChecker(InferenceChecker):
    name = "inference_division"
    readings = (LOADGEN, ENDPOINTS)
    description = "closed: official model, implementation JSON without retraining; open: deviations stated"

    def check(self, context: ResultContext) -> list[Finding]:
        out: list[Finding] = []
        folder, rules = context.folder, context.rules
        closed = context.result.division != "open"  # the network division has the closed rules
        canonical = rules.canonical_model(folder.model_folder)
        result_rel = context.rel(folder.rel)
        divisions = rules.table["divisions"] if rules.from_tables else ["closed", "open"]
        if context.result.division and context.result.division not in divisions:
            return [
                self.finding(
                    ERROR,
                    "division_unknown",
                    f"{rules.version} has no {context.result.division} division",
                    file=result_rel,
                    expected=", ".join(divisions),
                    actual=context.result.division,
                )
            ]
        if context.model is None:
            if closed:
                out.append(
                    self.finding(
                        ERROR,
                        "unknown_model",
                        f"'{folder.model_folder}' is not a {rules.version} closed-division model",
                        file=result_rel,
                        expected=", ".join(sorted(rules.models)),
                        actual=folder.model_folder,
                    )
                )
            else:
                out.append(
                    self.finding(
                        INFO,
                        "unknown_model",
                        f"'{folder.model_folder}' has no {rules.version} rules: its accuracy and latency are not checked",
                        file=result_rel,
                    )
                )
        elif canonical != folder.model_folder:
            out.append(
                self.finding(
                    INFO,
                    "model_alias",
                    f"model folder '{folder.model_folder}' read as '{canonical}'",
                    file=result_rel,
                )
            )
        if rules.from_tables:
            return out  # v2.1+: inference_round_rules checks the measurements in the round's layout
        measurements = self._measurements(context, canonical)
        if measurements is None:
            severity = ERROR if closed else WARNING
            out.append(
                self.finding(
                    severity,
                    "missing_measurements",
                    f"no measurements/{folder.system}/{folder.model_folder}/{folder.scenario_folder}/ folder",
                    file=result_rel,
                )
            )
            return out
        if measurements.parent.name != folder.model_folder:
            out.append(
                self.finding(
                    INFO,
                    "measurements_alias",
                    f"measurements folder '{measurements.parent.name}' taken for model folder '{folder.model_folder}'",
                    file=context.rel(measurements),
                )
            )
        out.extend(self._implementation(context, measurements, closed))
        return out

    def _measurements(self, context: ResultContext, canonical: str) -> Path | None:
        folder, rules = context.folder, context.rules
        system_dir = folder.submitter_root / "measurements" / folder.system
        exact = system_dir / folder.model_folder / folder.scenario_folder
        if exact.is_dir():
            return exact
        if not system_dir.is_dir():
            return None
        for model_dir in sorted(system_dir.iterdir()):
            if model_dir.is_dir() and rules.canonical_model(model_dir.name) == canonical:
                for scenario_dir in model_dir.iterdir():
                    if scenario_dir.name.lower() == folder.scenario_folder.lower():
                        return scenario_dir
        return None

    def _implementation(self, context: ResultContext, measurements: Path, closed: bool) -> list[Finding]:
        fields = context.rules.implementation_fields
        chosen, description = None, None
        for candidate in sorted(measurements.glob("*.json")):
            try:
                data = json.loads(candidate.read_bytes().decode("utf-8", errors="replace"))
            except ValueError:
                continue
            if isinstance(data, dict) and "retraining" in data:
                chosen, description = candidate, data
                break
        rel = context.rel(measurements)
        if description is None:
            return [
                self.finding(
                    ERROR if closed else WARNING,
                    "missing_implementation_json",
                    "no implementation JSON (with input/weight data types, starting weights, retraining)"
                    + ("" if closed else ": the open result does not state how it deviates from closed"),
                    file=rel,
                )
            ]
        out = []
        missing = [name for name in fields if name not in description]
        if missing:
            out.append(
                self.finding(
                    WARNING,
                    "implementation_fields",
                    f"implementation JSON lacks {', '.join(missing)}",
                    file=context.rel(chosen),
                )
            )
        said = str(description.get("retraining", "")).strip().lower()
        retrained = said.startswith("y") or said == "true"
        if closed and retrained:
            out.append(
                self.finding(
                    ERROR,
                    "closed_retrained",
                    "the closed division may not retrain; the implementation JSON says retraining: "
                    f"{description.get('retraining')}",
                    file=context.rel(chosen),
                    key="retraining",
                    expected="no",
                    actual=str(description.get("retraining")),
                )
            )
        return out
