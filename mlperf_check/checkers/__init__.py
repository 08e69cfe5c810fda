"""The checker classes of the table of finding sources (mlperf_check/finding_sources.py), loaded
on first use, a scope at a time: a check imports only the checkers of its own scopes (a training
run never imports the inference checkers)."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from mlperf_check.finding_sources import CHECKERS


@cache
def get_checker(name: str):
    registered = CHECKERS[name]
    module, _, class_name = registered.path.rpartition(".")
    cls = getattr(import_module(module), class_name)
    if cls.scope != registered.scope:
        raise TypeError(
            f"checker {name!r}: registered with scope {registered.scope!r}, its class has {cls.scope!r}"
        )
    return cls


def checkers_of_scope(scope: str) -> list:
    """The checker classes of one scope, in registry order; imports only those."""
    return [
        get_checker(name)
        for name, registered in CHECKERS.items()
        if registered.path and registered.scope == scope
    ]
