"""The contract of an inference checker: one call per result, after its logs are parsed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from mlperf_check.checkers.base import _Checker
from mlperf_check.inference.discovery import LOADGEN, ResultFolder
from mlperf_check.inference.report import InferenceResult
from mlperf_check.inference.rules import InferenceRound, ModelRule
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import Finding


@dataclass
class ResultContext:
    rules: InferenceRound
    model: ModelRule | None  # None: the round has no such model (open division, or a wrong name)
    result: InferenceResult
    folder: ResultFolder
    prefix: str  # the submitter folder relative to the checked path ("" or "closed/Alibaba")
    system_description: dict[str, Any] | None  # systems/<system>.json, None when missing or unreadable

    def rel(self, path: Path | str) -> str:
        """A path inside the submitter folder, as findings name it (relative to the checked path)."""
        text = str(path.relative_to(self.folder.submitter_root)) if isinstance(path, Path) else path
        return f"{self.prefix}/{text}" if self.prefix else text

    @property
    def result_dir(self) -> Path:
        return self.folder.submitter_root / self.folder.rel


class InferenceChecker(_Checker):
    scope: ClassVar[str] = "inference"
    # The readings of a result it checks (discovery.ResultFolder.reading): LoadGen's logs, and for
    # the checkers of the folder itself (model, system, measurements) the Endpoints client's files too.
    readings: ClassVar[tuple[str, ...]] = (LOADGEN,)

    def check(self, context: ResultContext) -> list[Finding]:
        raise NotImplementedError
