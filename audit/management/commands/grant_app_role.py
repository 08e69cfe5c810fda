"""Give the application's database role what it needs and no more: run as the database owner
after `migrate` (scripts/services.sh, docker-compose.yml's `migrate` service).

The role may read and write the application's tables, but the audit log only takes new rows: no
UPDATE, DELETE or TRUNCATE (the append-only trigger refuses the first two whatever the role; only
privileges stop TRUNCATE, and only the owner can disable the trigger). A superuser or the owner
itself is refused: neither can be held to that.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from audit.models import AuditEvent


def audit_table() -> str:
    """The audit log's table (review_auditevent: the name was kept when the model moved to audit)."""
    return AuditEvent._meta.db_table


class Command(BaseCommand):
    help = "Grant the application's database role its privileges (run as the owner, after migrate)."

    def add_arguments(self, parser):
        parser.add_argument("role", help="the role the application connects as, e.g. mlperf_app")

    def handle(self, role: str, **options):
        if connection.vendor != "postgresql":
            raise CommandError("database roles are PostgreSQL's: nothing to grant on " + connection.vendor)
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper, rolname = current_user FROM pg_roles WHERE rolname = %s", [role])
            found = cursor.fetchone()
            if found is None:
                raise CommandError(f"no database role {role!r}")
            if found[0] or found[1]:
                raise CommandError(f"{role!r} is a superuser or the owner: the audit log could not be held append-only")
            name, audit = connection.ops.quote_name(role), connection.ops.quote_name(audit_table())
            with transaction.atomic():
                for statement in (
                    f"GRANT USAGE ON SCHEMA public TO {name}",
                    f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}",
                    f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}",
                    f"REVOKE ALL ON {audit} FROM PUBLIC, {name}",
                    f"GRANT SELECT, INSERT ON {audit} TO {name}",
                ):
                    cursor.execute(statement)
        self.stdout.write(f"{role}: read and write on the application's tables; {audit_table()} append-only")
