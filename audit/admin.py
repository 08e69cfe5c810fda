"""Chairs read the audit log here; nobody edits it."""

from django.contrib import admin

from .models import AuditEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records read in the admin and changed only through their app's services."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "kind", "actor_name", "round", "organization", "result_id", "subject", "reason")
    # Nullable keys, which the admin's own select_related() leaves out: a query per row without it.
    list_select_related = ("round", "organization")
    list_filter = ("kind", "round", "organization")
    search_fields = ("reason", "result_id", "subject", "actor_name")
    date_hierarchy = "created_at"
