"""The round's journey (steps.py) on `make run`, at 390 px."""

from .steps import *  # noqa: F403 - the steps, collected here as this story

STORY = ('make-run', 'phone')
