"""MLPerf Inference rules per round, as data.

Every value a check compares against lives here, keyed by round: the models of the closed
division and their aliases, the accuracy targets (in each accuracy script's own output format),
the latency bounds, the minimum query counts, the minimum duration, the LoadGen seeds, the
compliance tests and how each scenario's metric is read. v0.5-v2.0 are written out here; from
v2.1 every round is built from the official checker's own rules data (official_rules_data.py). A
round with no rules here is an error (UnknownRound), never another round's rules.

Sources: the MLPerf Inference rules of each round and the official submission checker's tables
(mlcommons/inference `tools/submission/`), cross-checked against the corpus logs.
"""

from __future__ import annotations

from dataclasses import field, replace

from mlperf_check.errors import UnknownRules
from mlperf_check.inference.official_rules_data import OFFICIAL_RULES_DATA
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.rules.facts import version_key

SINGLE_STREAM = "SingleStream"
MULTI_STREAM = "MultiStream"
SERVER = "Server"
OFFLINE = "Offline"
INTERACTIVE = "Interactive"  # v5.0+: a Server run under tighter LLM token-latency limits
SCENARIOS = (SINGLE_STREAM, MULTI_STREAM, SERVER, OFFLINE)

HIGHER = "higher"
LOWER = "lower"


@dataclass(frozen=True)
class Metric:
    """How a scenario's result is read from the summary and shown."""

    summary_key: str  # the summary line holding the figure
    unit: str  # as shown on pages: "ms", "streams", "queries/s", "samples/s"
    direction: str  # HIGHER or LOWER is better
    scale: float = 1.0  # multiply the summary figure by this to get `unit` (ns -> ms: 1e-6)
    # The `:::MLLOG` detail-log key holding the same figure (v1.0+), to read when the summary lacks it.
    detail_key: str = ""
    # Read the detail-log key first (v2.0's early-stopping estimates are in the summary only as prose).
    detail_first: bool = False


@dataclass(frozen=True)
class AccuracyRule:
    """`kind` names the accuracy script's output format (see accuracy.PATTERNS); a figure meets the
    target when it is at least `target` (every kind here is higher-better: RNN-T reports
    accuracy = 100 - WER beside the WER)."""

    kind: str
    reference: float  # the FP32 reference figure in the script's unit
    fraction: float  # of the reference: 0.99, 0.98, 0.999

    @property
    def target(self) -> float:
        return self.reference * self.fraction


@dataclass(frozen=True)
class ModelRule:
    name: str
    accuracy: AccuracyRule
    server_latency_ms: float | None = None  # None: the model has no Server scenario
    server_percentile: float = 0.99
    multistream_interval_ms: float | None = None  # None: the model has no MultiStream scenario
    performance_sample_count: int = 1
    min_queries: dict[str, int] = field(default_factory=dict)  # per scenario, overrides the round's
    compliance_tests: tuple[str, ...] = ("TEST01", "TEST05")
    # From v2.1 (the official tables): every accuracy figure with its bounds, the Server latency
    # constraint, the LLM token-latency limits, the Offline minimum samples, units and metric keys.
    accuracy_targets: tuple[tuple[str, float], ...] = ()  # (metric, lower bound): the figure must reach it
    accuracy_upper: tuple[tuple[str, float], ...] = ()  # (metric, upper bound)
    scenario_accuracy: dict[str, tuple[tuple[str, float], ...]] = field(
        default_factory=dict
    )  # v6.1 per scenario
    latency_constraint_ns: dict[str, int] = field(default_factory=dict)  # scenario -> ns
    token_limits_ns: dict[str, dict[str, int]] = field(default_factory=dict)  # scenario -> {ttft_ns, tpot_ns}
    offline_min_samples: int = 0
    result_keys: dict[str, str] = field(default_factory=dict)  # scenario -> detail-log key of the metric
    units: dict[str, str] = field(default_factory=dict)  # scenario -> unit as the official summary prints it
    accuracy_images: tuple[str, ...] = ()  # accuracy/images/<n>.png the closed division must ship (SDXL)


@dataclass(frozen=True)
class InferenceRound:
    version: str  # "v0.7"
    models: dict[str, ModelRule]
    aliases: dict[str, str]  # folder name -> official model name
    min_duration_ms: int
    min_queries: dict[str, int]  # per scenario (Offline: samples in its one query)
    metrics: dict[str, Metric]
    seeds: dict[str, int]  # qsl_rng_seed, sample_index_rng_seed, schedule_rng_seed
    # MultiStream: at most this fraction of queries may cause a skipped interval.
    multistream_skip_fraction: float = 0.01
    # v0.5 asked for mlperf_log_accuracy.json in every performance run folder.
    accuracy_log_in_performance_runs: bool = False
    # Compliance folder name ("audit" in v0.5) and whether a missing or failed test rejects the result
    # (v0.7's checker only flagged it).
    compliance_folder: str = "compliance"
    compliance_blocks: bool = True
    # Edge Offline results may be inferred from the SingleStream run (v0.7 onward).
    offline_from_singlestream: bool = False
    # v1.0-v1.1: the rules' Offline minimum holds for an Offline result inferred from a SingleStream
    # run too (one sample per query): our stricter verdict refuses it, the round's checker did not.
    offline_inferred_samples: bool = False
    # Implementation JSON fields the closed division must provide.
    implementation_fields: tuple[str, ...] = (
        "input_data_types",
        "retraining",
        "starting_weights_filename",
        "weight_data_types",
        "weight_transformations",
    )
    # v3.1+: the checker asks for a value in each implementation field (the v2.1 and v3.0 checkers
    # asked only that each be there).
    implementation_values: bool = True
    # v3.1+: the checker refuses an empty measurement file (README.md, user.conf); the v2.1 and v3.0
    # checkers asked only that each be there.
    measurement_files_content: bool = True
    detail_format: str = "text"  # "text" (`"pid": .. "ts": ..ns : key : value`) or "mllog"
    # Scenarios judged by LoadGen's early stopping (v2.0 on): the figure is its estimate and the
    # minimum query count does not apply (LoadGen's "Early stopping satisfied" replaces it).
    early_stopping: tuple[str, ...] = ()
    # v2.0: a MultiStream result may be inferred from a SingleStream run, an Offline one from a
    # MultiStream run (v0.7 on: Offline from SingleStream, offline_from_singlestream).
    inferred_from_any: bool = False
    # v0.7's checker reads the five runs of a Server result: the result stands when any run is
    # VALID, and the figure it reports is the last run's.
    server_any_run: bool = False
    # Finding codes the round's official checker does not reject a result on (it only logs them,
    # or does not look): our verdict counts them, the round's official verdict does not.
    official_leniencies: frozenset[str] = frozenset()
    # The same for the open division only.
    official_open_leniencies: frozenset[str] = frozenset()
    # v2.1+: the official checker's rules data (OFFICIAL_RULES_DATA[version]); None for v0.5-v2.0.
    table: dict | None = None

    @property
    def from_tables(self) -> bool:
        return self.table is not None

    def required_scenarios(self, model: str, system_type: str) -> set[str] | None:
        """Scenarios a model must have on a system of this type (None: the model has none for it)."""
        category = _category(system_type)
        required = self.table["required_scenarios"].get(category, {}).get(model)
        return None if required is None else set(required)

    def token_limits(self, model: ModelRule, folder_scenario: str, ran: str) -> dict[str, int] | None:
        """The TTFT/TPOT limits a run is held to: by its result folder's scenario (v4.1-v5.1: an
        Interactive folder gets the Interactive limits) or by the scenario LoadGen ran (v6.0 on)."""
        scenario = ran if self.table["token_limits_by"] == "loadgen" else folder_scenario
        return model.token_limits_ns.get(scenario)

    def optional_scenarios(self, model: str, system_type: str) -> set[str]:
        return set(self.table["optional_scenarios"].get(_category(system_type), {}).get(model, []))

    def model(self, folder_name: str) -> ModelRule | None:
        """The rule of a model folder, through the alias table; None when the round has no such model."""
        name = self.canonical_model(folder_name)
        return self.models.get(name)

    def canonical_model(self, folder_name: str, extra_mapping: dict[str, str] | None = None) -> str:
        if self.table is not None:
            return self._table_model(folder_name, extra_mapping or {})
        lowered = folder_name.lower()
        return self.aliases.get(lowered, lowered)

    def _table_model(self, folder_name: str, extra_mapping: dict[str, str]) -> str:
        """The official checker's lookup: the name itself, the round's mapping, the submitter's
        model_mapping.json, then its guesses by substring (case is kept, as there)."""
        if folder_name in self.models:
            return folder_name
        mapped = self.aliases.get(folder_name) or extra_mapping.get(folder_name)
        if mapped:
            return mapped
        name = folder_name
        if "mobilenet" in name or "efficientnet" in name or "resnet50" in name:
            name = "resnet"
        elif "bert-99.9" in name:
            name = "bert-99.9"
        elif "bert-99" in name:
            name = "bert-99"
        return self.aliases.get(name, name)

    def min_query_count(self, model: ModelRule, scenario: str) -> int:
        return model.min_queries.get(scenario, self.min_queries.get(scenario, 1))


LATENCY_NS = "90th percentile latency (ns)"

METRICS_V05 = {
    SINGLE_STREAM: Metric(LATENCY_NS, "ms", LOWER, 1e-6, "result_90.00_percentile_latency_ns"),
    MULTI_STREAM: Metric("Samples per query", "streams", HIGHER, 1.0, "effective_samples_per_query"),
    SERVER: Metric(
        "Scheduled samples per second", "queries/s", HIGHER, 1.0, "result_scheduled_samples_per_sec"
    ),
    OFFLINE: Metric("Samples per second", "samples/s", HIGHER, 1.0, "result_samples_per_second"),
}
# From v2.0 MultiStream reports the 99th-percentile latency of 8-sample queries (lower is better)
# and the summaries name percentiles as "90.0th percentile latency (ns)".
METRICS_V20 = {
    SINGLE_STREAM: Metric(
        "90.0th percentile latency (ns)", "ms", LOWER, 1e-6, "result_90.00_percentile_latency_ns"
    ),
    MULTI_STREAM: Metric(
        "99.0th percentile latency (ns)", "ms", LOWER, 1e-6, "result_99.00_percentile_per_query_latency_ns"
    ),
    SERVER: METRICS_V05[SERVER],
    OFFLINE: METRICS_V05[OFFLINE],
}

# SSD-ResNet-34 MultiStream queries arrive at 15 Hz: the "66 ms" of the rules is 1000/15 ms.
SSD_LARGE_INTERVAL_MS = 1000 / 15

VISION_MIN_QUERIES = {SINGLE_STREAM: 1024, MULTI_STREAM: 270336, SERVER: 270336, OFFLINE: 24576}
# 97th-percentile tasks need fewer queries for the same confidence (11 x 2^13).
GNMT_MIN_QUERIES = {MULTI_STREAM: 90112, SERVER: 90112}

# What the official checkers of v0.7-v2.0 only log (`log.error` without rejecting the result) or
# do not look at, and we reject on (tools/submission/submission-checker.py, check_performance_dir
# and check_results_dir at tags v0.7, v1.0.1, branch r1.1 and tag v2.0): the LoadGen seeds, the
# latency bound and the target LoadGen ran with, the minimum query count, Offline samples and
# duration settings, and what we recompute from the logs beyond LoadGen's verdict.
LOGGED_ONLY = frozenset(
    {
        "wrong_seed",
        "latency_bound_missed",
        "latency_target_too_loose",
        "min_query_count_setting",
        "max_query_count_setting",
        "min_duration_setting",
        "max_duration_setting",
        "compliance_mode_setting",
        "too_few_queries",
        "too_few_samples",
        "run_too_short",
    }
)
# Their compliance check sets the result's compliance flag and never rejects it: a missing test,
# a verify file missing, failed or truncated.
COMPLIANCE_FLAG_ONLY = frozenset({"compliance_missing", "compliance_no_verdict", "compliance_failed"})
# They take any open-division accuracy output, a figure they cannot read included.
OPEN_ACCURACY = frozenset({"accuracy_not_found"})
# v0.5 and v0.7 list "CAS failed" among the detail-log ERROR lines they ignore.
CAS_FAILED = frozenset({"detail_cas_failed"})
# v0.5's checker checks the measurements folder once per submission, after judging the results.
MEASUREMENTS_SUBMISSION_LEVEL = frozenset(
    {"missing_measurements", "missing_implementation_json", "implementation_fields"}
)

V05 = InferenceRound(
    version="v0.5",
    models={
        "resnet": ModelRule("resnet", AccuracyRule("acc", 76.46, 0.99), 15, 0.99, 50, 1024, {}, ()),
        "mobilenet": ModelRule("mobilenet", AccuracyRule("acc", 71.68, 0.98), 10, 0.99, 50, 1024, {}, ()),
        "ssd-small": ModelRule("ssd-small", AccuracyRule("mAP", 22.0, 0.99), 10, 0.99, 50, 256, {}, ()),
        "ssd-large": ModelRule(
            "ssd-large", AccuracyRule("mAP", 20.0, 0.99), 100, 0.99, SSD_LARGE_INTERVAL_MS, 64, {}, ()
        ),
        "gnmt": ModelRule(
            "gnmt", AccuracyRule("bleu", 23.9, 0.99), 250, 0.97, 100, 3903900, GNMT_MIN_QUERIES, ()
        ),
    },
    aliases={"resnet50": "resnet", "ssd-resnet34": "ssd-large", "ssd-mobilenet": "ssd-small"},
    min_duration_ms=60_000,
    min_queries=VISION_MIN_QUERIES,
    metrics=METRICS_V05,
    seeds={
        "qsl_rng_seed": 3133965575612453542,
        "sample_index_rng_seed": 665484352860916858,
        "schedule_rng_seed": 3622009729038561421,
    },
    accuracy_log_in_performance_runs=True,
    compliance_folder="audit",
    compliance_blocks=False,
    # Its checker (v0.5/tools/submission at 0d1cdbff) only warns on detail-log ERROR lines, reads
    # of the run's settings only LoadGen's verdict, performance_sample_count and the seeds (logged),
    # and finds a missing measurements folder or implementation JSON in check_measurement_dir, an
    # error of the submission (its exit status) that rejects no result.
    official_leniencies=LOGGED_ONLY
    | CAS_FAILED
    | MEASUREMENTS_SUBMISSION_LEVEL
    | {"detail_error", "ran_out_of_queries"},
)

_VISION_TESTS = ("TEST01", "TEST04-A", "TEST04-B", "TEST05")
_V07_MODELS = {
    "resnet": ModelRule("resnet", AccuracyRule("acc", 76.46, 0.99), 15, 0.99, 50, 1024, {}, _VISION_TESTS),
    "ssd-small": ModelRule(
        "ssd-small", AccuracyRule("mAP", 22.0, 0.99), None, 0.99, 50, 256, {}, _VISION_TESTS
    ),
    "ssd-large": ModelRule(
        "ssd-large", AccuracyRule("mAP", 20.0, 0.99), 100, 0.99, SSD_LARGE_INTERVAL_MS, 64, {}, _VISION_TESTS
    ),
    "rnnt": ModelRule("rnnt", AccuracyRule("WER", 100 - 7.452, 0.99), 1000, 0.99, None, 2513),
    "bert-99": ModelRule("bert-99", AccuracyRule("F1", 90.874, 0.99), 130, 0.99, None, 10833),
    "bert-99.9": ModelRule("bert-99.9", AccuracyRule("F1", 90.874, 0.999), 130, 0.99, None, 10833),
    "dlrm-99": ModelRule("dlrm-99", AccuracyRule("AUC", 80.25, 0.99), 30, 0.99, None, 204800),
    "dlrm-99.9": ModelRule("dlrm-99.9", AccuracyRule("AUC", 80.25, 0.999), 30, 0.99, None, 204800),
    "3d-unet-99": ModelRule("3d-unet-99", AccuracyRule("mean", 0.853, 0.99), None, 0.99, None, 16),
    "3d-unet-99.9": ModelRule("3d-unet-99.9", AccuracyRule("mean", 0.853, 0.999), None, 0.99, None, 16),
}
_V07_ALIASES = {
    "resnet50": "resnet",
    "ssd-resnet34": "ssd-large",
    "ssd-mobilenet": "ssd-small",
    "ssd-mobilenet-non-quantized": "ssd-small",
}

V07 = InferenceRound(
    version="v0.7",
    models=_V07_MODELS,
    aliases=_V07_ALIASES,
    min_duration_ms=60_000,
    min_queries=VISION_MIN_QUERIES,
    metrics=METRICS_V05,
    seeds={
        "qsl_rng_seed": 12786827339337101903,
        "sample_index_rng_seed": 12640797754436136668,
        "schedule_rng_seed": 3135815929913719677,
    },
    compliance_blocks=False,
    offline_from_singlestream=True,
    server_any_run=True,
    official_leniencies=LOGGED_ONLY | COMPLIANCE_FLAG_ONLY | CAS_FAILED,
    official_open_leniencies=OPEN_ACCURACY,
)

# v1.0: runs last at least 10 minutes, the detail log is `:::MLLOG` JSON, compliance is required.
# Its checker reads every figure from the detail log, which prints fewer digits than the summary
# (Server 11491.3 against 11491.25): that figure is the official one.
V10 = replace(
    V07,
    version="v1.0",
    metrics={scenario: replace(metric, detail_first=True) for scenario, metric in METRICS_V05.items()},
    min_duration_ms=600_000,
    seeds={
        "qsl_rng_seed": 7322528924094909334,
        "sample_index_rng_seed": 1570999273408051088,
        "schedule_rng_seed": 3507442325620259414,
    },
    compliance_blocks=True,
    detail_format="mllog",
    server_any_run=False,  # from v1.0 the Server result is its one run
    offline_inferred_samples=True,
    official_leniencies=LOGGED_ONLY | COMPLIANCE_FLAG_ONLY | {"offline_samples_inferred"},
)

V11 = replace(
    V10,
    version="v1.1",
    seeds={
        "qsl_rng_seed": 1624344308455410291,
        "sample_index_rng_seed": 517984244576520566,
        "schedule_rng_seed": 10051496985653635065,
    },
)

# v2.0 (the checker at tag v2.0): early stopping for SingleStream, MultiStream and Server,
# MultiStream reports the latency of 8-sample queries; the models are still v1.1's (RetinaNet
# replaced the SSDs in v2.1); 3D-UNet moved from BraTS to KiTS19 (mean DICE 0.86331 in FP32).
_V20_MODELS = {
    **{name: rule for name, rule in _V07_MODELS.items() if "3d-unet" not in name},
    "3d-unet-99": ModelRule("3d-unet-99", AccuracyRule("mean", 0.86331, 0.99), None, 0.99, None, 42),
    "3d-unet-99.9": ModelRule("3d-unet-99.9", AccuracyRule("mean", 0.86331, 0.999), None, 0.99, None, 42),
}
# The v2.0 checker's model_mapping: the open division's detection models map to the SSD tasks.
_V20_ALIASES = {
    **_V07_ALIASES,
    "mobilenet": "resnet",
    **{
        name: "ssd-small"
        for name in (
            "ssd_resnet101_v1_fpn_640x640",
            "ssd_resnet152_v1_fpn_640x640",
            "ssd_mobilenet_v1_coco",
            "ssd_mobilenet_v1_fpn_640x640",
            "ssd_mobilenet_v1_quantized_coco",
            "ssd_mobilenet_v2_320x320",
            "ssd_mobilenet_v2_fpnlite_320x320",
            "ssd_mobilenet_v2_fpnlite_640x640",
            "ssd_resnet50_v1_fpn_640x640",
        )
    },
    **{
        name: "ssd-large"
        for name in (
            "ssd_resnet101_v1_fpn_1024x1024",
            "ssd_resnet152_v1_fpn_1024x1024",
            "rcnn-resnet50-lowproposals-coco",
            "rcnn-inception-resnet-v2-lowproposals-coco",
            "rcnn-inception-v2-coco",
            "rcnn-nas-lowproposals-coco",
            "rcnn-resnet101-lowproposals-coco",
            "ssd_resnet50_v1_fpn_1024x1024",
        )
    },
}
# The figures of the early-stopping scenarios are LoadGen's estimates (detail log, ns).
METRICS_V20_EARLY_STOPPING = {
    **{scenario: replace(metric, detail_first=True) for scenario, metric in METRICS_V20.items()},
    SINGLE_STREAM: Metric(
        "Early stopping 90th percentile estimate", "ms", LOWER, 1e-6, "early_stopping_latency_ss", True
    ),
    MULTI_STREAM: Metric(
        "Early stopping 99th percentile estimate", "ms", LOWER, 1e-6, "early_stopping_latency_ms", True
    ),
}
V20 = replace(
    V11,
    version="v2.0",
    models=_V20_MODELS,
    aliases=_V20_ALIASES,
    min_queries={SINGLE_STREAM: 1024, MULTI_STREAM: 270336, SERVER: 270336, OFFLINE: 24576},
    metrics=METRICS_V20_EARLY_STOPPING,
    seeds={
        "qsl_rng_seed": 6655344265603136530,
        "sample_index_rng_seed": 15863379492028895792,
        "schedule_rng_seed": 12662793979680847247,
    },
    early_stopping=(SINGLE_STREAM, MULTI_STREAM, SERVER),
    inferred_from_any=True,
    offline_inferred_samples=False,  # v2.0's rules name the results that may be inferred
)


# v3.1's checker turns its emptiness checks off for the rounds before it (main(): `if args.version in
# [..., "v2.1", "v3.0"]: args.skip_meaningful_fields_emptiness_check = True; args.skip_empty_files_check
# = True`), as their own checkers never made them: there an empty field or file is a warning of ours.
PRESENCE_ONLY_ROUNDS = ("v2.1", "v3.0")


def _category(system_type: str) -> str:
    """`system_type` of a system JSON -> the official checker's category key."""
    kinds = sorted({part.strip().lower() for part in str(system_type).split(",") if part.strip()})
    return ",".join(kinds) if kinds != ["datacenter", "edge"] else "datacenter,edge"


def _scenario_pairs(value) -> tuple[tuple[str, float], ...]:
    return tuple((metric, float(bound)) for metric, bound in value)


def table_round(table: dict) -> InferenceRound:
    """An InferenceRound from one round's official rules data (OFFICIAL_RULES_DATA[v])."""
    models = {}
    for name in table["models"]:
        targets = table["accuracy_targets"].get(name, [])
        by_scenario = {}
        if isinstance(targets, dict):  # per scenario (v6.1): the Offline targets stand for the model
            by_scenario = {scenario: _scenario_pairs(pairs) for scenario, pairs in targets.items()}
            targets = targets.get(OFFLINE) or next(iter(targets.values()))
        pairs = _scenario_pairs(targets)
        latency = table["latency_constraints_ns"].get(name, {})
        keys = dict(table["result_fields"])
        keys.update(table["result_field_overrides"].get(name, {}))
        units = dict(table["default_units"])
        units.update(table["units"].get(name, {}))
        upper = table["accuracy_upper_limits"].get(name, [])
        models[name] = ModelRule(
            name,
            # The first figure, for callers that know one accuracy figure per model.
            AccuracyRule(pairs[0][0], pairs[0][1], 1.0) if pairs else AccuracyRule("", 0.0, 1.0),
            server_latency_ms=latency[SERVER] / 1e6 if SERVER in latency else None,
            performance_sample_count=table["performance_sample_count"].get(name, 1),
            min_queries=table["min_queries"].get(name, {}),
            compliance_tests=tuple(table["compliance_tests"].get(name, [])),
            accuracy_targets=pairs,
            accuracy_upper=_scenario_pairs(upper) if isinstance(upper, list) else (),
            scenario_accuracy=by_scenario,
            latency_constraint_ns=dict(latency),
            token_limits_ns=table["llm_latency_limits"].get(name, {}),
            offline_min_samples=table["offline_min_samples"].get(name, 0),
            result_keys=keys,
            units=units,
            accuracy_images=tuple(table["accuracy_images"].get(name, [])),
        )
    return InferenceRound(
        version=table["version"],
        models=models,
        aliases=dict(table["model_mapping"]),
        min_duration_ms=table["min_duration_ms"],
        min_queries={},
        metrics=METRICS_V20,
        seeds=dict(table["seeds"]),
        detail_format="mllog",
        implementation_values=table["version"] not in PRESENCE_ONLY_ROUNDS,
        measurement_files_content=table["version"] not in PRESENCE_ONLY_ROUNDS,
        table=table,
    )


ROUNDS: dict[str, InferenceRound] = {
    **{r.version: r for r in (V05, V07, V10, V11, V20)},
    **{version: table_round(table) for version, table in OFFICIAL_RULES_DATA.items()},
}


class UnknownRound(UnknownRules):
    """A round the project has no rules for: checking it against another round's would be a guess."""


def rules_for(version: str) -> tuple[InferenceRound, str]:
    """The rules of a round and a note (always "" now: kept for callers that show one).
    Raises UnknownRound for a round without rules of its own."""
    normal = "v" + version.lower().lstrip("v")
    if normal in ROUNDS:
        return ROUNDS[normal], ""
    known = ", ".join(sorted(ROUNDS, key=version_key))
    raise UnknownRound(f"no rules for inference round {normal} (known: {known})")


def round_from_seed(qsl_rng_seed: int | None) -> InferenceRound | None:
    for rules in ROUNDS.values():
        if rules.seeds.get("qsl_rng_seed") == qsl_rng_seed:
            return rules
    return None
