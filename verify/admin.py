from django.contrib import admin

from .models import VerificationJob


@admin.register(VerificationJob)
class VerificationJobAdmin(admin.ModelAdmin):
    """Read-only: jobs change only through verify.services (the worker's API and the sweep)."""

    list_display = ("pk", "result", "state", "outcome", "runs_done", "runs_requested", "created_at", "finished_at")
    list_filter = ("state", "outcome")
    search_fields = ("result__result_id",)
    exclude = ("token_sha256",)
    readonly_fields = [field.name for field in VerificationJob._meta.fields if field.name != "token_sha256"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
