"""Builders of synthetic MLPerf log lines for the tests."""

from __future__ import annotations

import json

T0 = 1_621_118_000_000  # ms, May 2021 (round v1.0)


def event(key: str, value=None, at: float = T0, **metadata) -> str:
    """One `:::MLLOG` line as the official logger writes it."""
    return ":::MLLOG " + json.dumps(
        {
            "namespace": "",
            "time_ms": at,
            "event_type": "POINT_IN_TIME",
            "key": key,
            "value": value,
            "metadata": {"file": "train.py", "lineno": 1, **metadata},
        }
    )
