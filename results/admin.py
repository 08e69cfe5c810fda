from django.contrib import admin

from .models import Benchmark, Finding, Organization, Result, Round, Run, Submission, System, Waiver
from .services import apply_factor_decisions


class BenchmarkInline(admin.TabularInline):
    model = Benchmark
    extra = 0
    fields = ("name", "model", "quality_metric", "quality_target", "required_runs", "olympic_drop")


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("__str__", "ruleset_version", "state", "submission_deadline", "publish_at")
    list_filter = ("suite", "state")
    inlines = [BenchmarkInline]


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ("name", "slug")
    search_fields = ("name", "slug")
    filter_horizontal = ("members",)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("organization", "round", "version", "is_current", "is_published", "updated_at")
    list_filter = ("round", "is_published", "is_current")
    search_fields = ("organization__name",)
    readonly_fields = ("sha256", "size_bytes", "created_at", "updated_at")


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ("name", "system_id", "submission", "division", "availability", "accelerators_count")
    list_filter = ("division", "availability", "deployment", "submission__round")
    search_fields = ("name", "system_id", "accelerator_model_name")


class RunInline(admin.TabularInline):
    model = Run
    extra = 0
    fields = ("file", "time_to_train_minutes", "run_stop_status", "compliant", "scoring", "seed")
    readonly_fields = fields
    can_delete = False


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ("result_id", "system", "benchmark", "division", "score_minutes", "rcp_status")
    list_filter = ("benchmark__round", "benchmark__name", "division", "rcp_status")
    search_fields = ("result_id", "system__name")
    inlines = [RunInline]


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    list_display = ("severity", "code", "file", "line", "checker", "submission")
    list_filter = ("severity", "checker", "code")
    search_fields = ("message", "file")


@admin.register(Waiver)
class WaiverAdmin(admin.ModelAdmin):
    list_display = (
        "kind", "organization", "system_id", "benchmark", "round", "factor", "accepted", "granted_by", "created_at"
    )
    list_filter = ("kind", "round")

    # A scaling-factor decision edited here moves the scores at once, as the services' decisions do.
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        apply_factor_decisions(obj.round, obj.organization)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        apply_factor_decisions(obj.round, obj.organization)
