"""Typed results of checking MLPerf Tiny results (plain Python, like mlperf_check.report):
`TinyReport` offers what callers of every suite's report rely on (`results`, `all_findings()`,
`has_errors`, `to_json()`)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, Finding

# Our rules beyond the official checker's (docs/differences.md, "MLPerf Tiny"): an error of one of
# these codes makes our verdict INVALID and leaves the official one as it is.
STRICTER = frozenset({"tiny_median_mismatch", "tiny_energy_median_mismatch", "tiny_runtime_not_met",
                      "tiny_symlinked_folder"})

# The system description fields the official CSV copies, in its column order (CSV name, JSON key).
SYSTEM_FIELDS = (
    ("BoardName", "Board Name"),
    ("HostProcessorModelName", "Processor(s) Name"),
    ("HostProcessorFrequency", "Processor(s) Frequencies"),
    ("HostProcessorMemory", "Processor memory type and capacity"),
    ("AcceleratorModelName", "Accelerator"),
    ("AcceleratorFrequency", "Accelerator(s) Frequencies"),
    ("AcceleratorMemory", "Accelerator memory type and capacity"),
    ("HardwareNotes", "Hardware Notes"),
    ("InferenceFramework", "Inference Framework"),
    ("SoftwareLibraries", "Software Libraries"),
    ("SoftwareNotes", "Software Notes"),
)


@dataclass
class TinyResult:
    division: str
    submitter: str
    system: str
    benchmark: str  # the folder name
    folder: str  # <division>/<submitter>/results/<system>/<benchmark>, as the official checker prints it
    path: str  # the folder relative to the checked path
    mlperf_model: str = ""  # the official benchmark ("" none)
    scenario: str = ""  # "streaming" for sww, else ""
    runner: str = ""  # "EEMBC" (the EEMBC_RUNNER marker) or "MLC"
    tests: list[str] = field(default_factory=list)  # the test folders present
    availability: str = ""  # the system's Status, lower-cased
    system_fields: dict[str, Any] = field(default_factory=dict)  # the CSV's system columns (None: absent)
    throughput: float | None = None  # median throughput, inf./sec. (sww: the estimated throughput)
    throughput_windows: list[float] = field(default_factory=list)  # each performance window's inf./sec.
    accuracy_kind: str = ""  # "top-1" (%), "auc", "fps_fns" (sww: the figure is F1)
    accuracy: float | None = None
    accuracy_text: str = ""  # the figure as the results file prints it (the official CSV copies it)
    accuracy_target: Any = None  # a number, or [FP, FN] limits (sww)
    energy: float | None = None  # uJ/inf. (sww: average power, mW)
    energy_unit: str = ""
    energy_windows: list[float] = field(default_factory=list)  # each energy window's uJ/inf. (sww: mW)
    true_positives: int | None = None  # sww
    false_negatives: int | None = None
    false_positives: int | None = None
    duty_cycle: float | None = None
    period_s: float | None = None
    findings: list[Finding] = field(default_factory=list)

    def all_findings(self) -> list[Finding]:
        return list(self.findings)

    @property
    def valid(self) -> bool:
        """Ours: no error at all."""
        return not any(f.severity == ERROR for f in self.findings)

    @property
    def official(self) -> bool:
        """The official checker's: a "Results" line for the folder (no error but ours)."""
        return not any(f.severity == ERROR and f.code not in STRICTER for f in self.findings)

    @property
    def stricter(self) -> list[str]:
        return sorted({f.code for f in self.findings if f.severity == ERROR and f.code in STRICTER})

    @property
    def result_unit(self) -> str:
        return "inf./sec."

    @property
    def official_results_line(self) -> str:
        """The value of the official checker's closing `Results <folder> <value>` line."""
        if not self.official or self.throughput is None:
            return ""
        if not self.energy:
            return str(self.throughput)
        return f"{self.throughput:f} with power_metric = {self.energy:f}"

    def verdict_json(self) -> dict[str, Any]:
        return {
            "official": "VALID" if self.official else "INVALID",
            "ours": "VALID" if self.valid else "INVALID",
            "stricter": self.stricter,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "division": self.division,
            "submitter": self.submitter,
            "system": self.system,
            "benchmark": self.benchmark,
            "mlperf_model": self.mlperf_model,
            "scenario": self.scenario,
            "folder": self.folder,
            "runner": self.runner,
            "tests": self.tests,
            "availability": self.availability,
            "valid": self.valid,
            "verdict": self.verdict_json(),
            "metric": {"name": "median throughput", "unit": self.result_unit, "direction": "higher",
                       "value": self.throughput},
            "accuracy": {"kind": self.accuracy_kind, "value": self.accuracy, "printed": self.accuracy_text,
                         "target": self.accuracy_target},
            "energy": {"value": self.energy, "unit": self.energy_unit} if self.energy is not None else None,
            "streaming": (
                {"true_positives": self.true_positives, "false_negatives": self.false_negatives,
                 "false_positives": self.false_positives, "duty_cycle": self.duty_cycle, "period_s": self.period_s}
                if self.scenario else None
            ),
            "windows": {"throughput": self.throughput_windows, "energy": self.energy_windows},
            "system_fields": self.system_fields,
            "official_results_line": self.official_results_line,
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class TinyReport:
    root: str
    round: str  # "1.3"
    rules_source: str = ""  # the official checker the rules come from
    suite: str = "tiny"
    results: list[TinyResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # not tied to one result

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for result in self.results:
            out.extend(result.findings)
        return out

    @property
    def has_errors(self) -> bool:
        return any(f.severity == ERROR for f in self.all_findings())

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "root": self.root,
            "ruleset": f"tiny-{self.round}",
            "rules_source": self.rules_source,
            "valid": not self.has_errors,
            "results": [result.to_json() for result in self.results],
            "findings": [f.to_dict() for f in self.findings],
        }
