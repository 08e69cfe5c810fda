"""The results database in the admin, read-mostly. Rounds and submissions are registered by the
review app (review/admin.py): their state changes are the round lifecycle's admin actions."""

from django.contrib import admin

from .models import Finding, Organization, Result, Run, Submission, System, Waiver
from .services.versions import touch_submissions


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ("name", "slug")
    search_fields = ("name", "slug")
    # Members are added with the user admin's actions or `manage.py add_member` (audited).
    readonly_fields = ("members",)


class MovesItsRoundsVersion:
    """An edit saved here stamps its submission, as the services' changes do (touch_submissions):
    the round's cached pages, and the figures kept under its version (pages/caching.py: a
    result's time, a system's accelerators), are built again rather than kept until they expire.
    A deletion too: the page cache's versions do not count results."""

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        touch_submissions(Submission.objects.filter(pk=obj.submission_id))

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        touch_submissions(Submission.objects.filter(pk=obj.submission_id))

    def delete_queryset(self, request, queryset):
        submissions = set(queryset.values_list("submission_id", flat=True))
        super().delete_queryset(request, queryset)
        touch_submissions(Submission.objects.filter(pk__in=submissions))


@admin.register(System)
class SystemAdmin(MovesItsRoundsVersion, admin.ModelAdmin):
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
class ResultAdmin(MovesItsRoundsVersion, admin.ModelAdmin):
    list_display = ("result_id", "system", "benchmark", "division", "score_minutes", "rcp_status")
    list_filter = ("benchmark__round", "benchmark__name", "division", "rcp_status")
    search_fields = ("result_id", "system__name")
    # Newest first, along the primary key: the model's ordering (by benchmark name, through a join)
    # sorted every result for each page, about a second at 200,000 results.
    ordering = ("-pk",)
    inlines = [RunInline]


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    list_display = ("severity", "code", "file", "line", "checker", "submission")
    list_filter = ("severity", "checker", "code")
    search_fields = ("message", "file")


@admin.register(Waiver)
class WaiverAdmin(admin.ModelAdmin):
    """Waivers and factor decisions are taken on the review pages and by the services (conflict of
    interest checked, audited); here they are read."""

    list_display = (
        "kind", "organization", "system_id", "benchmark", "round", "factor", "accepted", "granted_by", "created_at"
    )
    list_select_related = ("organization", "round", "granted_by")  # granted_by is nullable: named, or a query a row
    list_filter = ("kind", "round")
    search_fields = ("organization__name", "system_id", "benchmark", "reason")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
