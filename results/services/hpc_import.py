"""HPC import. An MLPerf HPC package is checked into the same PackageReport as a training one
(mlperf_check/report.py), so training_import.import_report / write_report store it, versions,
result ids, runs and findings alike; what differs is a result's score, built here.

Strong scaling (time to solution) is scored as training is: the olympic mean in minutes, lower
is better. Weak scaling (throughput) has no olympic score: it stores the figures the official
summarizer prints (number of models, instance scale, time to train all) and is ranked by models
per minute, which is DERIVED from them (the official tools do not print it)."""

from mlperf_check.report import BenchmarkResult

from ..constants import MetricDirection, Scaling

MODELS_PER_MINUTE = "models/min"


def hpc_score_fields(result: BenchmarkResult) -> dict:
    """The Result columns of an HPC result folder that differ from a training one's."""
    if result.scaling != Scaling.WEAK:
        return {"scaling": result.scaling}
    weak = result.weak
    fields = {
        "scaling": Scaling.WEAK,
        "score_minutes": None,
        "computed_score_minutes": None,
        "metric_unit": MODELS_PER_MINUTE,
        "metric_direction": MetricDirection.HIGHER,
        "metric_value": None,
    }
    if weak is not None:
        fields.update(
            number_of_models=weak.number_of_models,
            instance_scale=weak.instance_scale,
            time_to_train_all_minutes=weak.time_to_train_all_minutes,
            models_per_minute=weak.models_per_minute,
            metric_value=weak.models_per_minute,
        )
        if weak.note:
            fields["score_note"] = weak.note[:255]
    return fields
