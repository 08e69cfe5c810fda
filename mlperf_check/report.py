"""Typed results of parsing and checking a package. Plain Python: no ORM, no Django.

The same objects are produced for the offline `check_package` command, the ingestion worker and
`import_results`; `PackageReport.to_json()` is the `check_package --json` document.
"""

from __future__ import annotations

from dataclasses import asdict, field
from typing import Any, NamedTuple

from mlperf_check.lean_dataclass import dataclass

# Only findings of these checkers decide whether a run counts as converged; the others describe
# the package (for example a log whose org disagrees with its folder) without failing the run.
RUN_VERDICT_CHECKERS = frozenset({"parser", "compliance", "timing"})

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)


@dataclass(slots=True)
class Finding:
    """One problem (or note) found in a package. `file` is relative to the package root;
    `line` is the 1-based physical line number in that file."""

    severity: str
    code: str
    message: str
    file: str = ""
    line: int | None = None
    key: str = ""
    expected: str = ""
    actual: str = ""
    checker: str = ""
    checker_version: int = 0
    waived_by: str = ""  # the server's decision that waived it (mlperf-check --waivers); "" none

    def to_dict(self) -> dict[str, Any]:
        document = asdict(self)
        if not self.waived_by:
            del document["waived_by"]
        return document


class Record(NamedTuple):
    """One MLPerf log event, whatever the line format it came from.

    `time_ms` is milliseconds since the epoch (v0.5/v0.6 seconds and `time_s` are converted);
    `line` is the 1-based physical line; `index` is the 0-based position among log-event lines,
    which is the "line" the official tool prints.
    """

    key: str
    value: Any
    metadata: dict
    time_ms: float
    line: int
    index: int


@dataclass(slots=True)
class EvalPoint:
    """One evaluation of the quality metric in a run: where in training it was (epoch or samples) and its value."""

    epoch: float | None
    samples: float | None
    value: Any  # a number, or a dict for maskrcnn ({"BBOX": .., "SEGM": ..})
    time_ms: float
    line: int


@dataclass(slots=True)
class Seed:
    """A seed the run logged, with where the logging call was."""

    value: Any
    source: str  # metadata file:lineno of the logging call, or "" when absent
    line: int


@dataclass
class RunLog:
    """Everything known about one result_*.txt after one streaming pass."""

    file: str
    sha256: str = ""
    size_bytes: int = 0
    line_count: int = 0
    event_count: int = 0
    log_format: str = ""  # "mllog" (>= 0.7), "mll" (0.6), "mlp05" (0.5), or "" when no events
    ruleset: str = ""  # the ruleset the rules were taken from, e.g. "1.0.0"
    benchmark: str = ""  # submission_benchmark as logged
    division: str = ""  # submission_division as logged
    org: str = ""
    platform: str = ""
    status: str = ""  # submission_status as logged
    init_start_ms: float | None = None
    init_stop_ms: float | None = None
    run_start_ms: float | None = None
    run_stop_ms: float | None = None
    run_start_line: int | None = None
    run_stop_line: int | None = None
    run_stop_status: str = ""
    target_reached_ms: float | None = None  # time of the first eval that meets the quality target
    target_reached_line: int | None = None
    eval_curve: list[EvalPoint] = field(default_factory=list)
    eval_curve_truncated: bool = False
    hyperparameters: dict[str, Any] = field(default_factory=dict)
    seeds: list[Seed] = field(default_factory=list)
    global_batch_size: int | None = None
    epochs_to_converge: float | None = None  # epoch_num of the last eval before run_stop
    samples_to_converge: float | None = None
    train_samples: float | None = None
    # HPC: the instance size as logged (the official summarizer's values: each key's latest value
    # up to the line where both have been seen), None when not logged.
    number_of_nodes: Any = None
    accelerators_per_node: Any = None
    compliant: bool = False  # the official per-run rules all passed
    findings: list[Finding] = field(default_factory=list)

    @property
    def time_to_train_ms(self) -> float | None:
        if self.run_start_ms is None or self.run_stop_ms is None:
            return None
        return self.run_stop_ms - self.run_start_ms

    @property
    def time_to_train_minutes(self) -> float | None:
        """Minutes as the official summarizer computes them (ms / 60 / 1000, which can differ from
        ms / 60000 in the last bit): the one formula of the score, the report and the database."""
        ttt = self.time_to_train_ms
        return None if ttt is None else ttt / 60 / 1000

    @property
    def has_verdict_errors(self) -> bool:
        return any(f.severity == ERROR and f.checker in RUN_VERDICT_CHECKERS for f in self.findings)

    @property
    def converged(self) -> bool:
        """Scored as a converged run: compliant, no error of our stricter per-run checks, and
        run_stop status success."""
        return self.compliant and not self.has_verdict_errors and self.run_stop_status == "success"


@dataclass
class RcpOutcome:
    """What the reference convergence points (RCP) check made of a benchmark result's runs."""

    status: str = "not_applicable"  # one of results.constants.RcpStatus values
    scaling_factor: float = 1.0
    message: str = ""
    submission_mean: float | None = None  # olympic mean of epochs/samples to converge
    rcp_mean: float | None = None
    rcp_min: float | None = None
    rcp_batch_size: int | None = None
    # The factor the official package checker writes into scaling.json (on any pass faster than the
    # RCP mean), whether or not the ruleset applies it to the score (`scaling_factor`).
    checker_factor: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ShippedFactor:
    """The `scaling.json` a result folder ships (written by the package checker of the time).
    Reported and compared, never applied: the score uses the factor computed from the logs
    unless a recorded decision says otherwise."""

    file: str  # path relative to the package root
    factor: float | None  # None when the file is unreadable or malformed
    problem: str = ""  # why it could not be read ("" when factor is set)


@dataclass
class SystemReport:
    """One system description of the package: as written, normalised, and what is wrong with it."""

    system_id: str
    file: str
    description: dict[str, Any]  # every field as written (parsed JSON), {} when unreadable
    normalized: dict[str, Any]  # derived fields matching results.models.System columns
    findings: list[Finding] = field(default_factory=list)


@dataclass
class RunScore:
    """How one run counted towards its result's score (results.constants.RunStatus)."""

    file: str
    scoring: str  # results.constants.RunStatus value
    reason: str = ""


@dataclass
class WeakScalingScore:
    """MLPerf HPC throughput (weak scaling) figures, as the official summarizer prints them.

    `number_of_models`: result files that count (compliant and converged); `instance_scale`:
    number_of_nodes x max(accelerators_per_node, 1) as logged (the same in every counted file);
    `time_to_train_all_minutes`: (latest run_stop - earliest run_start) of the counted files,
    ms / 60 / 1000. All None when fewer models than the benchmark's run count converged.
    `models_per_minute` is DERIVED here (number_of_models / time_to_train_all_minutes): the
    official tools do not print it."""

    number_of_models: int | None
    instance_scale: int | None
    time_to_train_all_minutes: float | None
    models_per_minute: float | None  # derived, not an official figure
    note: str = ""


@dataclass
class RunEnergy:
    """The energy to train of one run (mlperf_check.power). `energy` is None when it cannot be
    computed (the power checker's findings say why)."""

    file: str  # the result file
    power_folder: str  # power/<result name>, relative to the package root
    node_files: list[str] = field(default_factory=list)
    switch_files: list[str] = field(default_factory=list)
    energy: float | None = None  # joules: watts x seconds, as the official arithmetic gives
    method: str = (
        "window"  # "window", or "round_tools" where the measurement window was empty (mlperf_check.power)
    )


@dataclass
class EnergyScore:
    """The energy of a result folder with a power/ folder.

    `energy` is the official summarizer's `Energy` (olympic mean of the counted runs' energies,
    in time order, times the scaling factor of the time score); None when any counted run has no
    energy or the result has no time score. `mean` is the same before the factor. `runs` holds
    every run's energy, counted or not. For an HPC weak-scaling folder: the mean energy of the
    counted models without the lowest one, unscaled (the official summarizer's weak power table).
    Units: joules where the readings are watts (the official tools print no unit)."""

    energy: float | None
    mean: float | None
    scaling_factor: float
    runs: list[RunEnergy]
    note: str = ""


@dataclass
class BenchmarkResult:
    """One result folder: results/<system>/<benchmark> (training) or
    results/<system>/<strong|weak>/<benchmark> (HPC).

    Scores: `score_minutes` is the time to train (training) or time to solution (HPC strong
    scaling): the olympic mean of the runs' minutes (`mean_minutes`) times the RCP scaling factor
    the ruleset applies. `weak` holds the HPC throughput figures of a weak-scaling folder (which
    has no olympic score). `energy` is the energy to train where the folder has a power/ folder,
    else None."""

    system_id: str
    benchmark: str
    folder: str  # results/<system>/<benchmark>, or results/<system>/<scaling>/<benchmark> (HPC)
    division: str
    scaling: str = ""  # HPC: "strong" (time to solution) or "weak" (throughput); "" in training
    runs: list[RunLog] = field(default_factory=list)
    run_scores: list[RunScore] = field(default_factory=list)
    score_minutes: float | None = None
    mean_minutes: float | None = None
    score_note: str = ""
    dropped_runs: int = 0
    rcp: RcpOutcome = field(default_factory=RcpOutcome)
    global_batch_size: int | None = None
    converge_mean: float | None = None
    shipped_factor: ShippedFactor | None = None  # None when the folder has no scaling.json
    weak: WeakScalingScore | None = None  # HPC weak scaling only
    energy: EnergyScore | None = None  # where the folder has power measurements
    findings: list[Finding] = field(default_factory=list)

    @property
    def published_factor(self) -> float | None:
        """The factor the official summarizer multiplies by: the shipped scaling.json, or 1.0 where
        the folder has none; None when the shipped file cannot be read."""
        return 1.0 if self.shipped_factor is None else self.shipped_factor.factor


@dataclass
class PackageReport:
    """Everything a check found in one submitter folder: its systems, its results and their runs, findings."""

    root: str
    ruleset: str
    submitter: str  # the submitter folder name
    systems: list[SystemReport] = field(default_factory=list)
    results: list[BenchmarkResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # package-level (layout, cross-run)

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for system in self.systems:
            out.extend(system.findings)
        for result in self.results:
            out.extend(result.findings)
            for run in result.runs:
                out.extend(run.findings)
        return out

    @property
    def has_errors(self) -> bool:
        """Errors no decision waived (see mlperf_check/waivers.py)."""
        return any(f.severity == ERROR and not f.waived_by for f in self.all_findings())

    def to_json(self) -> dict[str, Any]:
        """The `check_package --json` document (a stable interface)."""

        def finding(f: Finding) -> dict[str, Any]:
            return {
                "severity": f.severity,
                "code": f.code,
                "message": f.message,
                "file": f.file,
                "line": f.line,
                "key": f.key,
                "expected": f.expected,
                "actual": f.actual,
                "checker": f.checker,
                **({"waived_by": f.waived_by} if f.waived_by else {}),
            }

        def energy(result: BenchmarkResult) -> dict[str, Any] | None:
            score = result.energy
            if score is None:
                return None
            return {
                "energy": score.energy,
                "mean": score.mean,
                "scaling_factor": score.scaling_factor,
                "unit": "J",
                "note": score.note,
                "runs": [
                    {
                        "file": run.file,
                        "power_folder": run.power_folder,
                        "node_files": len(run.node_files),
                        "switch_files": len(run.switch_files),
                        "energy": run.energy,
                        "method": run.method,
                    }
                    for run in score.runs
                ],
            }

        def weak(result: BenchmarkResult) -> dict[str, Any] | None:
            if result.weak is None:
                return None
            return {
                "number_of_models": result.weak.number_of_models,
                "instance_scale": result.weak.instance_scale,
                "time_to_train_all_minutes": result.weak.time_to_train_all_minutes,
                "derived": {"models_per_minute": result.weak.models_per_minute},
                "note": result.weak.note,
            }

        def runs(result: BenchmarkResult) -> list[dict[str, Any]]:
            scoring = {score.file: score.scoring for score in result.run_scores}
            return [
                {
                    "file": run.file,
                    "status": run.run_stop_status,
                    "compliant": run.compliant,
                    "scoring": scoring.get(run.file, ""),
                    "time_to_train_minutes": run.time_to_train_minutes,
                    "findings": [finding(f) for f in run.findings],
                }
                for run in result.runs
            ]

        return {
            "ruleset": self.ruleset,
            "submitter": self.submitter,
            "systems": [
                {
                    "system": s.system_id,
                    "file": s.file,
                    **{k: v for k, v in s.normalized.items() if k != "description"},
                    "findings": [finding(f) for f in s.findings],
                }
                for s in self.systems
            ],
            "results": [
                {
                    "system": r.system_id,
                    "benchmark": r.benchmark,
                    "scaling": r.scaling,
                    "division": r.division,
                    "score_minutes": r.score_minutes,
                    "mean_minutes": r.mean_minutes,
                    "score_note": r.score_note,
                    "dropped_runs": r.dropped_runs,
                    "global_batch_size": r.global_batch_size,
                    "rcp": {
                        "status": r.rcp.status,
                        "scaling_factor": r.rcp.scaling_factor,
                        "message": r.rcp.message,
                        "submission_mean": r.rcp.submission_mean,
                        "rcp_mean": r.rcp.rcp_mean,
                        "rcp_min": r.rcp.rcp_min,
                        "checker_factor": r.rcp.checker_factor,
                    },
                    "shipped_scaling_factor": None if r.shipped_factor is None else r.shipped_factor.factor,
                    "weak_scaling": weak(r),
                    "energy": energy(r),
                    "runs": runs(r),
                    "findings": [finding(f) for f in r.findings],
                }
                for r in self.results
            ],
            "findings": [finding(f) for f in self.findings],
        }
