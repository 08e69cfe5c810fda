"""Thin Celery wrappers around review.services, run by celery beat (config/settings.py)."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="review.publish_due_rounds")
def publish_due_rounds_task() -> list[str]:
    return services.publish_due_rounds()


@shared_task(name="review.remind_deadlines")
def remind_deadlines_task() -> int:
    return services.remind_deadlines()
