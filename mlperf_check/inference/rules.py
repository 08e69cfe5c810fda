"""MLPerf Inference rules per round, as data.

Every value a check compares against lives here, keyed by round: the models of the closed
division and their aliases, the accuracy targets (in each accuracy script's own output format),
the latency bounds, the minimum query counts, the minimum duration, the LoadGen seeds, the
compliance tests and how each scenario's metric is read. Later rounds keep the shape; a round
without its own entry takes the newest earlier one (and the report says so).

Sources: the MLPerf Inference rules of each round and the official submission checker's tables
(mlcommons/inference `tools/submission/`), cross-checked against the corpus logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mlperf_check.rules.facts import version_key

SINGLE_STREAM = "SingleStream"
MULTI_STREAM = "MultiStream"
SERVER = "Server"
OFFLINE = "Offline"
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
    # Implementation JSON fields the closed division must provide.
    implementation_fields: tuple[str, ...] = (
        "input_data_types",
        "retraining",
        "starting_weights_filename",
        "weight_data_types",
        "weight_transformations",
    )
    detail_format: str = "text"  # "text" (`"pid": .. "ts": ..ns : key : value`) or "mllog"

    def model(self, folder_name: str) -> ModelRule | None:
        """The rule of a model folder, through the alias table; None when the round has no such model."""
        name = self.canonical_model(folder_name)
        return self.models.get(name)

    def canonical_model(self, folder_name: str) -> str:
        lowered = folder_name.lower()
        return self.aliases.get(lowered, lowered)

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
)

# v1.0: runs last at least 10 minutes, the detail log is `:::MLLOG` JSON, compliance is required.
V10 = replace(
    V07,
    version="v1.0",
    min_duration_ms=600_000,
    seeds={
        "qsl_rng_seed": 7322528924094909334,
        "sample_index_rng_seed": 1570999273408051088,
        "schedule_rng_seed": 3507442325620259414,
    },
    compliance_blocks=True,
    detail_format="mllog",
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

# v2.0: early stopping, MultiStream reports latency of 8-sample queries, RetinaNet replaces the SSDs.
_V20_MODELS = {
    **{
        name: rule
        for name, rule in _V07_MODELS.items()
        if not name.startswith("ssd") and "3d-unet" not in name
    },
    # 3D-UNet moved from BraTS to KiTS19: mean DICE 0.86170 in FP32.
    "3d-unet-99": ModelRule("3d-unet-99", AccuracyRule("mean", 0.86170, 0.99), None, 0.99, None, 42),
    "3d-unet-99.9": ModelRule("3d-unet-99.9", AccuracyRule("mean", 0.86170, 0.999), None, 0.99, None, 42),
    "retinanet": ModelRule(
        "retinanet", AccuracyRule("mAP", 37.55, 0.99), 100, 0.99, None, 64, {}, _VISION_TESTS
    ),
}
V20 = replace(
    V11,
    version="v2.0",
    models=_V20_MODELS,
    aliases={"resnet50": "resnet"},
    min_queries={SINGLE_STREAM: 1024, MULTI_STREAM: 662, SERVER: 270336, OFFLINE: 24576},
    metrics=METRICS_V20,
    seeds={},  # each later round has its own; not carried here, so not compared
)

ROUNDS: dict[str, InferenceRound] = {r.version: r for r in (V05, V07, V10, V11, V20)}


def rules_for(version: str) -> tuple[InferenceRound, str]:
    """The rules of a round and a note ("" or why another round's rules were taken)."""
    normal = "v" + version.lower().lstrip("v")
    if normal in ROUNDS:
        return ROUNDS[normal], ""
    try:
        wanted = version_key(normal)
    except ValueError:
        wanted = ()
    earlier = [r for r in ROUNDS.values() if version_key(r.version) <= wanted]
    chosen = max(earlier, key=lambda r: version_key(r.version)) if earlier else ROUNDS["v0.5"]
    return chosen, f"no rules recorded for {normal}; the {chosen.version} rules apply"


def round_from_seed(qsl_rng_seed: int | None) -> InferenceRound | None:
    for rules in ROUNDS.values():
        if rules.seeds.get("qsl_rng_seed") == qsl_rng_seed:
            return rules
    return None
