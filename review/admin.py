"""Chairs read the review records here; every change goes through review.services (the review
pages, the API, or the Round and Submission admin actions)."""

from django.contrib import admin

from .models import AuditEvent, BorrowingDeclaration, Notification, Objection, ReviewerAssignment


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "kind", "actor_name", "round", "organization", "result_id", "subject", "reason")
    list_filter = ("kind", "round", "organization")
    search_fields = ("reason", "result_id", "subject", "actor_name")
    date_hierarchy = "created_at"


@admin.register(Objection)
class ObjectionAdmin(ReadOnlyAdmin):
    list_display = ("pk", "round", "organization", "result", "rule", "severity", "state", "outcome", "filed_by")
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
    list_filter = ("round", "organization")


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "kind", "message", "read_at")
    list_filter = ("kind",)
