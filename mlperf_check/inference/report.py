"""Typed results of checking an inference submission (plain Python, like mlperf_check.report).

`InferenceReport` has the interface of the training `PackageReport` that callers rely on:
`results`, `all_findings()`, `has_errors`, `to_json()`.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from mlperf_check.inference.logs import Detail, Summary
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, Finding

PERCENTILES = ("50.00", "90.00", "95.00", "97.00", "99.00", "99.90")


def verdict_text(official: bool, ours: bool, stricter: list[str]) -> str:
    """One verdict where the two agree ("VALID"); both, with our stricter rules, where they do not:
    "official: VALID, ours: INVALID (run_too_short, wrong_seed)"."""
    if official == ours:
        return "VALID" if ours else "INVALID"
    rules = f" ({', '.join(stricter)})" if stricter else ""
    return f"official: {'VALID' if official else 'INVALID'}, ours: {'VALID' if ours else 'INVALID'}{rules}"


@dataclass
class InferenceRun:
    folder: str  # relative to the checked path
    number: int
    summary: Summary | None = None
    detail: Detail | None = None
    findings: list[Finding] = field(default_factory=list)
    path_on_disk: Path | None = None  # the run folder (power logs sit beside it)


@dataclass
class InferenceResult:
    division: str
    submitter: str
    system: str
    model_folder: str
    model: str  # the official name ("" when the round has no such model)
    scenario_folder: str
    scenario: str
    folder: str  # <division>/<submitter>/results/<system>/<model>/<scenario>, relative to the checked path
    runs: list[InferenceRun] = field(default_factory=list)
    metric_name: str = ""
    metric_unit: str = ""
    metric_direction: str = ""
    metric_value: float | None = None
    inferred_from: str = ""  # "SingleStream" for an Offline figure derived from a SingleStream run
    accuracy_kind: str = ""
    accuracy_value: float | None = None
    accuracy_target: float | None = None
    latency_bound_ms: float | None = None
    latency_percentile: float | None = None
    query_count: int | None = None
    min_query_count: int | None = None
    duration_ms: float | None = None
    min_duration_ms: int | None = None
    findings: list[Finding] = field(default_factory=list)
    # v2.1+ (rules from the official tables): every accuracy figure read, the system's category,
    # the LLM token latencies against their limits, and power.
    accuracy_figures: dict[str, float] = field(default_factory=dict)
    accuracy_printed: str = ""  # the target figures as the official checker prints them ("acc: 75.930")
    system_type: str = ""
    # From systems/<system>.json: availability, nodes, accelerators per node and in all (None
    # where the description gives no whole number), the accelerator's name.
    system_info: dict[str, Any] = field(default_factory=dict)
    token_latency: dict[str, float | None] = field(default_factory=dict)
    power_value: float | None = None  # Watts (Offline, Server, Interactive) or millijoules per query
    power_unit: str = ""
    power_efficiency: float | None = None  # samples (tokens) per joule
    # The round's official verdict (inference.pipeline.official_verdict): None for a result no
    # rules judged, whose verdict is ours; the codes of our errors the official checker does not count.
    official_valid: bool | None = None
    stricter: list[str] = field(default_factory=list)
    # A result of the MLCommons Endpoints client (v6.1 on): its throughput, per-user token rate,
    # TTFT, TPOT and latency percentiles (endpoints.EndpointsRun.metrics); empty for LoadGen results.
    endpoints: dict[str, Any] = field(default_factory=dict)

    @property
    def first_run(self) -> InferenceRun | None:
        return self.runs[0] if self.runs else None

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for run in self.runs:
            out.extend(run.findings)
        return out

    @property
    def valid(self) -> bool:
        return not any(f.severity == ERROR for f in self.all_findings())

    @property
    def official(self) -> bool:
        return self.valid if self.official_valid is None else self.official_valid

    def verdict_json(self) -> dict[str, Any]:
        """Both verdicts: `official` is what the round's checker decides, `ours` counts every error;
        `stricter` names the rules (finding codes) that make ours INVALID beyond it."""
        official = self.official
        return {
            "official": "VALID" if official else "INVALID",
            "ours": "VALID" if self.valid else "INVALID",
            "stricter": self.stricter,
        }

    @property
    def latencies_ms(self) -> dict[str, float]:
        """The reported run's latency percentiles in ms ("99.00" -> 12.3)."""
        run = self.first_run
        out: dict[str, float] = {}
        if run is None or run.summary is None:
            return out
        for percentile in PERCENTILES:
            value = run.summary.number(f"{percentile} percentile latency (ns)")
            if value is not None:
                out[percentile] = value / 1e6
        return out

    @property
    def settings(self) -> dict[str, Any]:
        run = self.first_run
        if run is None:
            return {}
        if run.detail is not None and run.detail.effective:
            return dict(run.detail.effective)
        return {}

    def to_json(self) -> dict[str, Any]:
        return {
            "division": self.division,
            "submitter": self.submitter,
            "system": self.system,
            "model": self.model,
            "model_folder": self.model_folder,
            "scenario": self.scenario,
            "folder": self.folder,
            "valid": self.valid,
            "verdict": self.verdict_json(),
            "metric": {
                "name": self.metric_name,
                "unit": self.metric_unit,
                "direction": self.metric_direction,
                "value": self.metric_value,
                "inferred_from": self.inferred_from,
            },
            "accuracy": {
                "kind": self.accuracy_kind,
                "value": self.accuracy_value,
                "target": self.accuracy_target,
            },
            "latency_ms": self.latencies_ms,
            "latency_bound_ms": self.latency_bound_ms,
            "latency_percentile": self.latency_percentile,
            "query_count": self.query_count,
            "min_query_count": self.min_query_count,
            "duration_ms": self.duration_ms,
            "min_duration_ms": self.min_duration_ms,
            "runs": [run.folder for run in self.runs],
            "findings": [f.to_dict() for f in self.all_findings()],
            **self._table_round_json(),
        }

    def _table_round_json(self) -> dict[str, Any]:
        """What only the v2.1+ rounds have (absent otherwise, so earlier rounds' reports keep their shape)."""
        out: dict[str, Any] = {}
        if self.system_type:
            out["system_type"] = self.system_type
        if self.system_info:
            out["system"] = self.system_info
        if self.accuracy_figures:
            out["accuracy_figures"] = self.accuracy_figures
        if self.accuracy_printed:
            out["accuracy_printed"] = self.accuracy_printed
        if self.token_latency:
            out["token_latency"] = self.token_latency
        if self.endpoints:
            out["endpoints"] = self.endpoints
        if self.power_value is not None:
            out["power"] = {
                "value": self.power_value,
                "unit": self.power_unit,
                "efficiency": self.power_efficiency,
            }
        return out


@dataclass
class InferenceReport:
    root: str
    round: str  # "v0.7"
    suite: str = "inference"
    results: list[InferenceResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # not tied to one result

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for result in self.results:
            out.extend(result.all_findings())
        return out

    @property
    def has_errors(self) -> bool:
        return any(f.severity == ERROR for f in self.all_findings())

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "round": self.round,
            "results": [result.to_json() for result in self.results],
            "findings": [f.to_dict() for f in self.findings],
        }
