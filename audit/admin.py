"""Chairs read the audit log here; nobody edits it."""

from django.contrib import admin

from .models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("created_at", "kind", "actor_name", "round", "organization", "result_id", "subject", "reason")
    list_filter = ("kind", "round", "organization")
    search_fields = ("reason", "result_id", "subject", "actor_name")
    date_hierarchy = "created_at"

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
