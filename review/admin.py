"""Chairs read the review records here; every change goes through review.services (the review
pages, the API, or the admin actions below). Rounds and submissions are registered here, not in
results/admin.py: their state changes are the round lifecycle's admin actions."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied

from audit.admin import ReadOnlyAdmin
from audit.roles import ROLE_GROUPS, is_chair
from results.constants import RoundState
from results.models import Benchmark, Organization, Round, Submission
from results.querysets import RoundSlugError, parse_round_slug
from results.services.rounds import UnknownRuleset, ruleset_of

from .forms import ruleset_field
from .models import BorrowingDeclaration, Notification, Objection, ResubmissionWindow, ReviewerAssignment
from .services import (
    ReviewRefused,
    change_ruleset,
    create_round,
    grant_resubmission_window,
    move_round,
    publish_fix,
    set_membership,
    set_role,
)


@admin.register(Objection)
class ObjectionAdmin(ReadOnlyAdmin):
    list_display = ("pk", "round", "organization", "result", "rule", "severity", "state", "outcome", "filed_by")
    list_select_related = ("round", "organization", "result", "filed_by")  # result is nullable: named, or a query a row
    list_filter = ("round", "state", "outcome", "severity", "organization")
    search_fields = ("rule", "evidence", "answer", "resolution")


@admin.register(BorrowingDeclaration)
class BorrowingDeclarationAdmin(ReadOnlyAdmin):
    list_display = ("result_id", "organization", "benchmark", "lender_result", "state", "declared_at")
    list_filter = ("round", "state", "organization")
    search_fields = ("result_id", "system_id")


@admin.register(ReviewerAssignment)
class ReviewerAssignmentAdmin(ReadOnlyAdmin):
    list_display = ("round", "reviewer", "organization", "assigned_by", "created_at")
    list_select_related = ("round", "reviewer", "organization", "assigned_by")  # assigned_by is nullable, as above
    list_filter = ("round", "organization")


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "kind", "message", "read_at")
    list_filter = ("kind",)


class BenchmarkInline(admin.TabularInline):
    model = Benchmark
    extra = 0
    fields = ("name", "model", "quality_metric", "quality_target", "required_runs", "olympic_drop")


def _run_service(modeladmin, request, queryset, act) -> None:
    """Run `act(obj)` for each selected row through a service; report refusals row by row."""
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
        _run_service(modeladmin, request, queryset,
                     lambda round_: move_round(request.user, round_, to_state, f"admin action: {label}"))

    action.__name__ = f"move_to_{to_state}"
    return admin.action(description=label, permissions=["change"])(action)


class RoundAdminForm(forms.ModelForm):
    """The ruleset is one of the round's suite's (its benchmarks come from it; left empty, the one
    of its version): a select grouped by suite that follows the suite select (review/forms.py),
    and another suite's ruleset is refused here as by the services. A round's ruleset is fixed
    once its review starts."""

    class Meta:
        model = Round
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        existing = self.instance.pk is not None
        self.fields["ruleset_version"] = ruleset_field([self.instance.suite] if existing else None, empty=not existing)

    def clean(self):
        data = super().clean()
        suite = data.get("suite") or self.instance.suite
        version = data.get("version") or self.instance.version or ""
        try:
            parse_round_slug(f"{suite}-v{version}")
        except RoundSlugError as exc:
            raise forms.ValidationError({"version": "a round's version is two numbers, e.g. 5.0"}) from exc
        try:
            data["ruleset_version"] = ruleset_of(suite, data.get("ruleset_version") or version)
        except UnknownRuleset as exc:
            raise forms.ValidationError({"ruleset_version": str(exc)}) from exc
        changed = self.instance.pk and data["ruleset_version"] != self.instance.ruleset_version
        if changed and self.instance.state not in (RoundState.DRAFT, RoundState.OPEN):
            raise forms.ValidationError({"ruleset_version": "the ruleset is fixed once the review starts"})
        return data


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    """State and dates change through review.services (admin actions and the review pages), so
    every change is an audited event. A round's suite and version are its name: set once."""

    list_display = ("__str__", "ruleset_version", "state", "submission_deadline", "borrowing_deadline", "publish_at")
    list_filter = ("suite", "state")
    inlines = [BenchmarkInline]
    form = RoundAdminForm

    def get_readonly_fields(self, request, obj=None):
        named = ("suite", "version") if obj is not None else ()
        return (*named, "state", "submission_deadline", "borrowing_deadline", "publish_at")

    def save_model(self, request, obj, form, change):
        """A new round and a ruleset change go through review.services: benchmarks from the
        round's suite's rules, an audit event. Nothing else of a round is edited here."""
        if not change:
            create_round(request.user, obj, "created in the admin")
        elif "ruleset_version" in form.changed_data:
            change_ruleset(request.user, Round.objects.get(pk=obj.pk), obj.ruleset_version, "changed in the admin")

    actions = [
        _round_action(RoundState.OPEN, "Open for submissions"),
        _round_action(RoundState.REVIEW, "Start the review"),
        _round_action(RoundState.FINAL, "Make final (frozen)"),
        _round_action(RoundState.PUBLISHED, "Publish now"),
    ]


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
        return False  # versions come from uploads and imports (results.services.versions.new_version)

    @admin.action(description="Publish this version (a fix accepted after the round's publication)",
                  permissions=["change"])
    def publish_fix(self, request, queryset):
        _run_service(self, request, queryset,
                     lambda submission: publish_fix(request.user, submission, "admin action: publish this version"))


@admin.register(ResubmissionWindow)
class ResubmissionWindowAdmin(admin.ModelAdmin):
    """Chairs grant an organization a late upload window here (and a fix-required decision does);
    granting goes through review.services, so it is checked for conflicts and audited."""

    list_display = ["round", "organization", "closes_at", "granted_by", "created_at"]
    list_select_related = ["round", "organization", "granted_by"]  # granted_by is nullable: named, or a query a row
    list_filter = ["round"]
    readonly_fields = ["granted_by", "created_at"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # a window is a decision on record: grant a new one instead

    def save_model(self, request, obj, form, change):
        try:
            granted = grant_resubmission_window(request.user, obj.round, obj.organization, obj.closes_at, obj.reason)
        except ReviewRefused as exc:
            raise PermissionDenied(str(exc)) from exc
        obj.pk = granted.pk


class PeopleActionForm(ActionForm):
    organization = forms.ModelChoiceField(
        Organization.objects.order_by("name"), required=False, help_text="for the organization actions"
    )


def _membership_action(member: bool):
    def action(modeladmin, request, queryset):
        organization = Organization.objects.filter(pk=request.POST.get("organization") or None).first()
        if organization is None:
            modeladmin.message_user(request, "choose the organization next to the action", messages.ERROR)
            return
        _run_service(modeladmin, request, queryset,
                     lambda user: set_membership(request.user, user, organization, member=member))

    action.__name__ = "add_to_organization" if member else "remove_from_organization"
    label = "Add to the chosen organization" if member else "Remove from the chosen organization"
    return admin.action(description=label, permissions=["people"])(action)


def _role_action(role: str, granted: bool):
    def action(modeladmin, request, queryset):
        _run_service(modeladmin, request, queryset,
                     lambda user: set_role(request.user, user, role, granted=granted))

    action.__name__ = f"{'give' if granted else 'take'}_{role}"
    label = f"Give the {role} role" if granted else f"Take the {role} role"
    return admin.action(description=label, permissions=["people"])(action)


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class PeopleAdmin(UserAdmin):
    """Memberships and review roles change through review.services (the same functions as the
    `add_member` and `grant_role` commands), so each change is a chair's audited decision. The
    groups, organizations and staff flag are not edited on the user form for the same reason.
    Chairs see the list and run the actions (auth.view_user); they edit no user."""

    action_form = PeopleActionForm
    actions = [
        _membership_action(True), _membership_action(False),
        *(_role_action(role, granted) for role in ROLE_GROUPS for granted in (True, False)),
    ]
    list_display = (*UserAdmin.list_display, "is_superuser")

    def has_people_permission(self, request) -> bool:
        return is_chair(request.user)

    def get_readonly_fields(self, request, obj=None):
        # The staff flag opens the admin to chairs: set_role sets and clears it with the chair role.
        return (*super().get_readonly_fields(request, obj), "is_staff")

    def get_fieldsets(self, request, obj=None):
        # The role groups are given with the actions above, never ticked on the form.
        fieldsets = super().get_fieldsets(request, obj)
        return [(name, {**opts, "fields": tuple(f for f in opts["fields"] if f != "groups")})
                for name, opts in fieldsets]
