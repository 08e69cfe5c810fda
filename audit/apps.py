from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit"

    def ready(self):
        from .roles import sync_role_groups

        post_migrate.connect(sync_role_groups, dispatch_uid="audit.roles.sync_role_groups")
