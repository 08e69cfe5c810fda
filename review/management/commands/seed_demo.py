"""manage.py seed_demo: what a newcomer needs to try every role on `make run`'s embedded server.

Development only (DJANGO_ENV=development, as `make` sets it; refused in production): the accounts
`chair`, `reviewer` and `submitter` (password DEMO_PASSWORD, printed), `submitter` a member of Dell,
the round hpc-v2.0 created and opened by the chair through the review services (audited like any
round), and Dell's real HPC v2.0 package (sample_data/uploads/) packed as an archive to upload on
/submit/. Idempotent: an account, membership or round that exists is left as it is.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from results.constants import RoundState
from results.models import Organization, Round
from review import services

DEMO_PASSWORD = "demo"
ROUND = ("hpc", "2.0", "hpc-2.0.0")
PACKAGES = Path("sample_data") / "uploads" / "hpc-v2.0"
ORGANIZATION = ("Dell", "dell")


class Command(BaseCommand):
    help = "Development only: demo accounts (chair, reviewer, submitter), an open round and a package to upload."

    def handle(self, **options):
        if settings.PRODUCTION:
            raise CommandError("seed_demo makes accounts with a known password: development only "
                               "(DJANGO_ENV=development, as make sets it)")
        chair = self.account("chair", role="chair")
        self.account("reviewer", role="reviewer")
        submitter = self.account("submitter")
        name, slug = ORGANIZATION
        organization = Organization.objects.filter(slug=slug).first() or Organization.objects.create(
            name=name, slug=slug, aliases=[name])
        services.set_membership(None, submitter, organization)
        self.open_round(chair)
        archive = self.pack(settings.BASE_DIR / PACKAGES / name, Path(settings.LOCAL_STATE_DIR) / "demo")
        self.stdout.write(
            f"Demo accounts (development only): chair, reviewer, submitter; password {DEMO_PASSWORD!r}.\n"
            f"Sign in as submitter and upload {archive} on /submit/ (round {Round(suite=ROUND[0], version=ROUND[1]).slug})."
        )

    def account(self, username: str, role: str = ""):
        users = get_user_model().objects
        user = users.filter(username=username).first()
        if user is None:
            user = users.create_user(username, f"{username}@demo.invalid", DEMO_PASSWORD)
        if role:
            services.set_role(None, user, role)
        return user

    def open_round(self, chair) -> None:
        suite, version, ruleset = ROUND
        round_ = Round.objects.filter(suite=suite, version=version).first()
        if round_ is None:
            round_ = services.create_round(
                chair, Round(suite=suite, version=version, ruleset_version=ruleset), "demo round of make run")
        if round_.state == RoundState.DRAFT:
            services.move_round(chair, round_, RoundState.OPEN, "open for the demo upload")

    def pack(self, folder: Path, destination: Path) -> Path:
        destination.mkdir(parents=True, exist_ok=True)
        archive = destination / f"{folder.name}.tar.gz"
        if not archive.exists():
            with tarfile.open(archive, "w:gz") as packed:
                packed.add(folder, arcname=folder.name)
        return archive.resolve()
