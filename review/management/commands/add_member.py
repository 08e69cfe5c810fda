"""manage.py add_member <username> <organization slug> [--remove]: membership of an organization
(its members upload for it and see its unpublished submissions). Audited."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from results.models import Organization
from review import services


class Command(BaseCommand):
    help = "Add a user to an organization (or --remove them). The organization must exist."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("organization", help="Organization slug, e.g. nvidia")
        parser.add_argument("--remove", action="store_true")

    def handle(self, username, organization, remove, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}: create it first (manage.py createsuperuser or the admin)")
        org = Organization.objects.filter(slug=organization).first()
        if org is None:
            known = ", ".join(Organization.objects.values_list("slug", flat=True)[:20]) or "none yet"
            raise CommandError(f"no organization {organization!r} (known: {known})")
        changed = services.set_membership(None, user, org, member=not remove)
        state = "is no longer a member of" if remove else "is a member of"
        self.stdout.write(f"{username} {state} {org}" + ("" if changed else " (unchanged)"))
