"""The rules of an MLPerf Automotive round, from the official checker's tables
(official_rules_data.py); an unknown round raises UnknownRules, never another round's rules."""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from mlperf_check.errors import UnknownRules
from mlperf_check.lean_dataclass import dataclass

PREFIX = "automotive-"  # a ruleset's name: "automotive-0.5"

# Where MLCommons published each round (the final report's Details and Code links).
SUMMARY_REPOSITORY = {"v0.5": "mlcommons/submissions_automotive_v0.5"}


@dataclass
class AutomotiveRules:
    version: str  # "v0.5", as the official checker's --version
    table: dict[str, Any] = field(default_factory=dict)  # the round's row of OFFICIAL_RULES_DATA

    @property
    def ruleset(self) -> str:
        return PREFIX + self.version.lstrip("v")

    def official_model(self, folder: str, submitter_mapping: dict[str, str]) -> str:
        """The official model a model folder names: itself, the round's mapping, then the
        submitter's model_mapping.json (open division), else the folder name."""
        if folder in self.table["models"]:
            return folder
        return self.table["model_mapping"].get(folder) or submitter_mapping.get(folder) or folder

    def scenario(self, folder: str) -> str:
        """The scenario a folder names: the checker maps lower-case names only (`server` too)."""
        return self.table["scenario_mapping"].get(folder, folder)

    def accuracy_pattern(self, model: str) -> tuple[str, re.Pattern, float]:
        kind, target = self.table["accuracy_targets"][model]
        return kind, re.compile(self.table["accuracy_patterns"][kind]), target


def rulesets() -> tuple[str, ...]:
    from mlperf_check.automotive.official_rules_data import OFFICIAL_RULES_DATA

    return tuple(PREFIX + version.lstrip("v") for version in OFFICIAL_RULES_DATA)


def rules_for(text: str) -> AutomotiveRules:
    """"automotive-0.5", "0.5", "v0.5", "automotive-v0.5" -> that round's rules."""
    from mlperf_check.automotive.official_rules_data import OFFICIAL_RULES_DATA

    match = re.fullmatch(r"(?:automotive-)?v?(\d+\.\d+)", (text or "").strip().lower())
    version = f"v{match.group(1)}" if match else ""
    if version not in OFFICIAL_RULES_DATA:
        raise UnknownRules(f"no MLPerf Automotive rules for {text!r}: known rulesets are {', '.join(rulesets())}")
    return AutomotiveRules(version, OFFICIAL_RULES_DATA[version])
