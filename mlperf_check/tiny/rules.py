"""The rules of a Tiny round, read from the official checker's tables (official_rules_data.py):
one TinyRules per round. An unknown round raises UnknownRules, never another round's rules."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from mlperf_check.errors import UnknownRules
from mlperf_check.tiny.official_rules_data import OFFICIAL_RULES_DATA

# How the rulesets are named everywhere ("tiny-1.3"); the official checker's --version is "v1.3".
PREFIX = "tiny-"
# What each accuracy kind of the official tables is, for people and the CSV ("fps_fns" is the
# streaming wakeword's false positive / false negative limits; its figure is F1).
ACCURACY_NAMES = {"top-1": "Top-1 (%)", "auc": "AUC", "fps_fns": "F1"}


@dataclass(frozen=True)
class TinyRules:
    version: str  # "1.3"
    data: dict  # the round's table in OFFICIAL_RULES_DATA

    @property
    def name(self) -> str:
        return PREFIX + self.version

    @property
    def source(self) -> str:
        return self.data["source"]

    @property
    def models(self) -> list[str]:
        return self.data["models"]

    def mlperf_model(self, folder: str, extra_mapping: dict | None = None) -> str:
        """The official benchmark a folder name stands for ("" none), as the checker maps it: its
        own name, the round's mapping, then the submitter's model_mapping.json (open division)."""
        if folder in self.models:
            return folder
        return self.data["model_mapping"].get(folder) or (extra_mapping or {}).get(folder) or ""

    def scenario(self, model: str) -> str:
        """"streaming" for the streaming wakeword, "" for the others (the checker's scenario)."""
        return self.data["streaming_models"].get(model, "")

    def accuracy_kind(self, model: str) -> str:
        return self.data["accuracy_target"][model][0]

    def accuracy_target(self, model: str):
        """The closed division's target: a number (at least), or [FP, FN] limits (sww)."""
        return self.data["accuracy_target"][model][1]

    def judged_strictly(self, division: str) -> bool:
        """Closed (and network): a benchmark must be official and meet its accuracy target."""
        return division in self.data["strict_divisions"]


def rounds() -> tuple[str, ...]:
    """The versions with rules, oldest first ("1.3")."""
    return tuple(sorted((v.lstrip("v") for v in OFFICIAL_RULES_DATA), key=lambda v: tuple(map(int, v.split(".")))))


@cache
def rules_for(text: str) -> TinyRules:
    """The rules of the round `text` names: "tiny-1.3", "1.3", "v1.3"."""
    version = text.strip().lower().removeprefix(PREFIX).removeprefix("v")
    if "v" + version not in OFFICIAL_RULES_DATA:
        known = ", ".join(PREFIX + v for v in rounds())
        raise UnknownRules(f"no MLPerf Tiny rules for {text!r}; known: {known}")
    return TinyRules(version, OFFICIAL_RULES_DATA["v" + version])
