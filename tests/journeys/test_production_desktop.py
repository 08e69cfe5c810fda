"""The round's journey (steps.py) on the production shape, at 1366 px."""

from .steps import *  # noqa: F403 - the steps, collected here as this story

STORY = ('production', 'desktop')
