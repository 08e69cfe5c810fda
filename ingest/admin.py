from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied

from .models import IngestJob, ResubmissionWindow, Upload
from .services import enqueue_job


@admin.register(ResubmissionWindow)
class ResubmissionWindowAdmin(admin.ModelAdmin):
    """Chairs grant an organization a late upload window here (and a fix-required decision does);
    granting goes through review.services, so it is checked for conflicts and audited."""

    list_display = ["round", "organization", "closes_at", "granted_by", "created_at"]
    list_filter = ["round"]
    readonly_fields = ["granted_by", "created_at"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # a window is a decision on record: grant a new one instead

    def save_model(self, request, obj, form, change):
        from review.services import ReviewRefused, grant_resubmission_window

        try:
            granted = grant_resubmission_window(request.user, obj.round, obj.organization, obj.closes_at, obj.reason)
        except ReviewRefused as exc:
            raise PermissionDenied(str(exc)) from exc
        obj.pk = granted.pk


class IngestJobInline(admin.StackedInline):
    model = IngestJob
    can_delete = False
    readonly_fields = [f.name for f in IngestJob._meta.fields]
    extra = 0


@admin.register(Upload)
class UploadAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "organization",
        "round",
        "version",
        "original_name",
        "size_bytes",
        "uploaded_by",
        "created_at",
    ]
    list_filter = ["round", "organization"]
    readonly_fields = [f.name for f in Upload._meta.fields]
    inlines = [IngestJobInline]

    def has_add_permission(self, request) -> bool:
        return False  # uploads come through the upload page or API only


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "upload",
        "state",
        "error_kind",
        "attempts",
        "files_done",
        "files_total",
        "updated_at",
    ]
    list_filter = ["state", "error_kind"]
    readonly_fields = [f.name for f in IngestJob._meta.fields]
    actions = ["send_again"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Send to the ingest queue again (a running job is not disturbed)")
    def send_again(self, request, queryset):
        sent = sum(enqueue_job(job.pk) for job in queryset)
        self.message_user(request, f"{sent} job(s) sent", messages.SUCCESS if sent else messages.WARNING)
