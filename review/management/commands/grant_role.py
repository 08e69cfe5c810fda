"""manage.py grant_role <username> reviewer|chair [--revoke]: the review roles (the `reviewers` and
`chairs` groups). The chair role also opens the admin, with the chairs group's permissions (it sets
the staff flag; --revoke clears it unless the user is a superuser). Audited."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from audit.roles import ROLE_GROUPS
from review import services


class Command(BaseCommand):
    help = "Give a user the reviewer or chair role (or --revoke it)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("role", choices=sorted(ROLE_GROUPS))
        parser.add_argument("--revoke", action="store_true")

    def handle(self, username, role, revoke, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}: create it first (manage.py createsuperuser or the admin)")
        changed = services.set_role(None, user, role, granted=not revoke)
        state = "is no longer" if revoke else "is"
        self.stdout.write(f"{username} {state} a {role}" + ("" if changed else " (unchanged)"))
