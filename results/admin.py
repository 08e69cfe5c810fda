from django import forms
from django.contrib import admin, messages

from .models import Benchmark, Finding, Organization, Result, Round, Run, Submission, System, Waiver


class BenchmarkInline(admin.TabularInline):
    model = Benchmark
    extra = 0
    fields = ("name", "model", "quality_metric", "quality_target", "required_runs", "olympic_drop")


def _run_service(modeladmin, request, queryset, act) -> None:
    """Run `act(obj)` for each selected row through a service; report refusals row by row."""
    from review.services import ReviewRefused

    done = 0
    for obj in queryset:
        try:
            act(obj)
            done += 1
        except ReviewRefused as exc:
            modeladmin.message_user(request, f"{obj}: {exc}", messages.ERROR)
    if done:
        modeladmin.message_user(request, f"{done} done", messages.SUCCESS)


def _round_action(to_state: str, label: str):
    def action(modeladmin, request, queryset):
        from review.services import move_round

        _run_service(modeladmin, request, queryset,
                     lambda round_: move_round(request.user, round_, to_state, f"admin action: {label}"))

    action.__name__ = f"move_to_{to_state}"
    return admin.action(description=label)(action)


class RoundAdminForm(forms.ModelForm):
    """The ruleset must be one the catalog knows (its benchmarks come from it); a round's ruleset
    is fixed once its review starts."""

    class Meta:
        model = Round
        fields = "__all__"

    def clean(self):
        from mlperf_check.rules.catalog import UnknownRuleset, get_ruleset

        data = super().clean()
        if data.get("suite", "training") == "training":
            try:
                data["ruleset_version"] = get_ruleset(data.get("ruleset_version") or data.get("version") or "").version
            except UnknownRuleset as exc:
                raise forms.ValidationError({"ruleset_version": str(exc)}) from exc
        changed = self.instance.pk and "ruleset_version" in self.changed_data
        if changed and self.instance.state not in ("draft", "open"):
            raise forms.ValidationError({"ruleset_version": "the ruleset is fixed once the review starts"})
        return data


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """State and dates change through review.services (admin actions and the review pages), so
    every change is an audited event."""

    list_display = ("__str__", "ruleset_version", "state", "submission_deadline", "borrowing_deadline", "publish_at")
    list_filter = ("suite", "state")
    readonly_fields = ("state", "submission_deadline", "borrowing_deadline", "publish_at")
    inlines = [BenchmarkInline]
    form = RoundAdminForm

    def save_model(self, request, obj, form, change):
        """A new round and a ruleset change go through review.services: benchmarks from the
        ruleset catalog, an audit event."""
        from review import services

        if not change:
            services.create_round(request.user, obj, "created in the admin")
            return
        if "ruleset_version" in form.changed_data:
            services.change_ruleset(request.user, Round.objects.get(pk=obj.pk), obj.ruleset_version,
                                    "changed in the admin")
        super().save_model(request, obj, form, change)

    actions = [
        _round_action("open", "Open for submissions"),
        _round_action("review", "Start the review"),
        _round_action("final", "Make final (frozen)"),
        _round_action("published", "Publish now"),
    ]


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
    readonly_fields = (
        "round", "organization", "version", "sha256", "size_bytes", "source", "ruleset_version", "uploaded_by",
        "is_current", "is_published", "written_at", "created_at", "updated_at",
    )
    actions = ["publish_fix"]

    def has_add_permission(self, request) -> bool:
        return False  # versions come from uploads and imports (results.services.new_version)

    @admin.action(description="Publish this version (a fix accepted after the round's publication)")
    def publish_fix(self, request, queryset):
        from review.services import publish_fix

        _run_service(self, request, queryset,
                     lambda submission: publish_fix(request.user, submission, "admin action: publish this version"))


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
    """Waivers and factor decisions are taken on the review pages and by the services (conflict of
    interest checked, audited); here they are read."""

    list_display = (
        "kind", "organization", "system_id", "benchmark", "round", "factor", "accepted", "granted_by", "created_at"
    )
    list_filter = ("kind", "round")
    search_fields = ("organization__name", "system_id", "benchmark", "reason")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
