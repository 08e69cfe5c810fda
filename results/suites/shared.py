"""What every results suite shares: its rules, taken from the checker's suite of the same name
(mlperf_check/suites/), and what its import hands around: the submitters of a folder, what
checking one gave, the refusal of an uploaded package. Imports no suite (each imports this)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.utils.text import slugify

from mlperf_check.suites import SUITES as CHECKER_SUITES
from mlperf_check.suites import CheckerSuite


class PackageRefused(Exception):
    """An uploaded package that is not stored: it cannot be checked, or it is another suite's, or
    none of its results is a benchmark of the round. The message says which, to the submitter."""


@dataclass(frozen=True)
class Submitter:
    """One organization's folders in a folder given to import_results: one submitter folder
    (training, HPC), or one per division (inference: closed/NVIDIA, open/NVIDIA)."""

    folders: tuple[Path, ...]
    divisions: tuple[str, ...] = ()  # each folder's division, where the suite's layout has division folders

    @property
    def name(self) -> str:
        return self.folders[0].name

    @property
    def folder_names(self) -> tuple[str, ...]:
        """The names its official entries are keyed by (import_results --ids)."""
        return tuple(folder.name for folder in self.folders)

    @property
    def slug(self) -> str:
        """Its organization's slug (results.services.versions.organization_named)."""
        return slugify(self.name)

    @property
    def source(self) -> str:
        """Where its version comes from, as Submission.source records it."""
        return ", ".join(str(folder.resolve()) for folder in self.folders)


@dataclass
class Checked:
    """What checking a submitter gave: the package its suite stores (None: nothing can be), and
    why a folder could not be checked (each `<folder>: <reason>`)."""

    package: Any
    errors: tuple[str, ...] = ()


class CheckerRules:
    """A results suite's rulesets: its checker suite's (mlperf_check/suites/, the same name)."""

    name: str

    @property
    def checker(self) -> CheckerSuite:
        return CHECKER_SUITES[self.name]

    def rulesets(self) -> tuple[str, ...]:
        return self.checker.rulesets()

    def ruleset_name(self, text: str) -> str:
        return self.checker.ruleset_name(text)

    def claims(self, text: str) -> bool:
        return text in self.rulesets()
