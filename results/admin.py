"""The results database in the admin, read-mostly. Rounds and submissions are registered by the
review app (review/admin.py): their state changes are the round lifecycle's admin actions."""

from django.contrib import admin
from django.db.models import Q
from django.utils.text import smart_split, unescape_string_literal

from .models import Finding, Organization, Result, Run, Submission, System, Waiver
from .services.versions import touch_submissions

SEARCHED_SYSTEMS_LISTED = 1000  # the most systems a result search names in a list (ResultAdmin)


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

    def get_search_results(self, request, queryset, search_term):
        """What search_fields asks (each word in the result id or the system's name, Django's
        icontains), with the systems found first: an OR across the join read every result (84 ms
        to count them and 120 ms for a page at 200,000 results), where a list of the systems found
        lets the database use both trigram indexes (results/migrations/0019 and 0023). A word
        that names most systems ("x") is asked as a subquery: a list of 30,000 took longer."""
        for word in smart_split(search_term):
            if word.startswith(('"', "'")) and word[0] == word[-1]:
                word = unescape_string_literal(word)
            systems = System.objects.filter(name__icontains=word)
            found = list(systems.values_list("pk", flat=True)[:SEARCHED_SYSTEMS_LISTED + 1])
            named = Q(system_id__in=found) if len(found) <= SEARCHED_SYSTEMS_LISTED else Q(system__in=systems)
            queryset = queryset.filter(Q(result_id__icontains=word) | named)
        return queryset, False


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
