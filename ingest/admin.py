from django.contrib import admin, messages

from .models import IngestJob, Upload
from .services import enqueue_job


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
    list_select_related = ["organization", "round", "uploaded_by"]  # uploaded_by is nullable: named, or a query a row
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
