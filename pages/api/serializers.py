"""Read serializers of the public API. Ids in URLs are the citable ones (round slug, result id)."""

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from results.models import Benchmark, Result, Round, Run, System


class RoundSerializer(serializers.ModelSerializer):
    slug = serializers.CharField(read_only=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = ["slug", "suite", "version", "ruleset_version", "state", "submission_deadline", "publish_at", "url"]

    def get_url(self, round_) -> str:
        return f"/rounds/{round_.slug}/"


class BenchmarkSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.slug", read_only=True)

    class Meta:
        model = Benchmark
        fields = ["id", "round", "name", "area", "model", "dataset", "quality_metric", "metric_direction",
                  "quality_target", "quality_targets", "quality_rule", "required_runs", "olympic_drop",
                  "closed_hyperparameter_rules", "init_time_limit_closed_s", "init_time_limit_open_s"]


class SystemSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="submission.round.slug", read_only=True)
    organization = serializers.CharField(source="submission.organization.slug", read_only=True)
    submission_version = serializers.IntegerField(source="submission.version", read_only=True)

    class Meta:
        model = System
        fields = ["id", "round", "organization", "submission_version", "system_id", "name", "submitter", "division",
                  "status_raw", "availability", "deployment", "number_of_nodes", "host_processor_model_name",
                  "host_processors_per_node", "host_processors_count", "accelerator_model_name",
                  "accelerators_per_node", "accelerators_count", "framework", "notes", "description"]


# The upload API (ingest/api.py) has its own "Result" component; name this one apart in the schema.
@extend_schema_serializer(component_name="PublishedResult")
class ResultSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="submission.round.slug", read_only=True)
    organization = serializers.CharField(source="submission.organization.slug", read_only=True)
    submission_version = serializers.IntegerField(source="submission.version", read_only=True)
    benchmark = serializers.CharField(source="benchmark.name", read_only=True)
    system = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    entry = serializers.CharField(source="citable.entry", read_only=True)
    local_id = serializers.BooleanField(source="citable.local", read_only=True)

    class Meta:
        model = Result
        fields = ["result_id", "entry", "local_id", "round", "benchmark", "organization", "submission_version", "division", "system",
                  "score_minutes", "mean_minutes", "scaling_factor", "factor_source", "computed_score_minutes",
                  "computed_scaling_factor", "shipped_scaling_factor", "score_note", "dropped_runs", "rcp_status",
                  "rcp", "global_batch_size", "converge_mean", "folder", "url",
                  "scenario", "metric_value", "metric_unit", "metric_direction", "valid", "official_valid", "stricter_rules", "inference",
                  "scaling", "number_of_models", "instance_scale", "time_to_train_all_minutes", "models_per_minute",
                  "energy_joules", "energy_mean_joules", "energy_note"]

    def get_system(self, result) -> dict:
        system = result.system
        return {"id": system.pk, "system_id": system.system_id, "name": system.name,
                "accelerator_model_name": system.accelerator_model_name,
                "accelerators_count": system.accelerators_count, "number_of_nodes": system.number_of_nodes,
                "availability": system.availability, "deployment": system.deployment, "framework": system.framework}

    def get_url(self, result) -> str:
        return f"/results/{result.result_id}/"


class RunSerializer(serializers.ModelSerializer):
    result_id = serializers.CharField(source="result.result_id", read_only=True)
    log_url = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "result_id", "file", "sha256", "time_to_train_minutes", "run_stop_status", "compliant",
                  "scoring", "scoring_reason", "seed", "global_batch_size", "epochs_to_target", "samples_to_target",
                  "hyperparameters", "eval_curve", "run_start_line", "run_stop_line", "energy_joules", "power_folder",
                  "log_url"]

    def get_log_url(self, run) -> str | None:
        return f"/logs/{run.sha256}/" if run.log_name else None
