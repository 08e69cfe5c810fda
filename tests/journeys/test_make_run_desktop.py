"""The round's journey (steps.py) on `make run`, at 1366 px."""

from .steps import *  # noqa: F403 - the steps, collected here as this story

STORY = ('make-run', 'desktop')
