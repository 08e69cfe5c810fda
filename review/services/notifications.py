"""Notifications: an inbox line per user and one email per recipient, sent once the transaction
commits; the deadline reminders the beat task sends; marking them read."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mass_mail
from django.db import transaction
from django.utils import timezone

from audit.roles import PRIVILEGED_GROUPS
from results.constants import RoundState
from results.models import Organization, Round

from ..models import Notification


def _notify_users(users, kind: str, message: str, link: str = "", key: str = "") -> int:
    """An inbox line for each user, and an email sent once the transaction commits (so a
    rolled-back change notifies nobody). `key` makes a notification once per user."""
    users = list(users)
    rows = []
    for user in users:
        if key and Notification.objects.filter(user=user, key=key).exists():
            continue
        rows.append(Notification(user=user, kind=kind, message=message, link=link, key=key))
    Notification.objects.bulk_create(rows)
    recipients = [row.user.email for row in rows if row.user.email]
    if recipients:
        url = f"{settings.SITE_URL}{link}" if link else settings.SITE_URL
        # One mail per recipient: they need not see each other's addresses.
        mails = [(f"[MLPerf results] {_one_line(message)[:80]}", f"{message}\n\n{url}\n", settings.DEFAULT_FROM_EMAIL, [to])
                 for to in recipients]
        transaction.on_commit(lambda: send_mass_mail(mails, fail_silently=True))
    return len(rows)


def _one_line(text: str) -> str:
    """`text` fit for a mail header: a line break there (a rule typed on two lines) would make
    Django refuse the whole mail (BadHeaderError, dropped silently), so every run of whitespace or
    other unprintable characters becomes one space; the body keeps the text as written."""
    return " ".join("".join(char if char.isprintable() else " " for char in text).split())


def _notify_members(organization: Organization, kind: str, message: str, link: str = "") -> int:
    return _notify_users(organization.members.all(), kind, message, link)


def _notify_round(round_: Round, kind: str, message: str, link: str = "", key: str = "") -> int:
    """Everyone with a stake in the round: its submitters, reviewers and chairs."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.filter(
        organizations__submissions__round=round_
    ) | get_user_model().objects.filter(groups__name__in=PRIVILEGED_GROUPS)
    return _notify_users(users.distinct(), kind, message, link, key)


def remind_deadlines(now=None) -> int:
    """A day before a round's submission, borrowing or publication deadline passes, tell everyone
    concerned, once (the notification key). The beat task runs it hourly. A draft is the chairs'
    alone: its deadlines are told once it opens."""
    now = now or timezone.now()
    sent = 0
    for round_ in Round.objects.exclude(state__in=[RoundState.PUBLISHED, RoundState.DRAFT]):
        for name in ("submission_deadline", "borrowing_deadline", "publish_at"):
            deadline = getattr(round_, name)
            if deadline is None or not (now < deadline <= now + timedelta(days=1)):
                continue
            label = Round._meta.get_field(name).verbose_name
            with transaction.atomic():
                sent += _notify_round(
                    round_, "deadline", f"{round_}: {label} on {deadline:%Y-%m-%d %H:%M} UTC (in less than a day).",
                    key=f"deadline:{round_.pk}:{name}:{deadline.isoformat()}",
                )
    return sent


def mark_read(user, notification_ids=None) -> int:
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if notification_ids is not None:
        unread = unread.filter(pk__in=notification_ids)
    return unread.update(read_at=timezone.now())
