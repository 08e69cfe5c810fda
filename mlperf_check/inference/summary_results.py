"""MLCommons' published summary of an inference round (`summary_results.json`), as typed records.

MLCommons publishes each round as a JSON list with one object per accepted result, written by
`tools/submission/generate_final_report.py` (mlcommons/inference) from the official checker's CSV.
The official ID (`ID`: `v4.1-0001`, later rounds `5.1-0001`) names one system entry of the round:
every result of that system (each model and scenario) carries the same ID, and
`Unique ID (e.g. for Audit)` (`<suite>/<division>/<submitter>/<platform>`) says which entry it is.
An ID is never reused for another system, in this round or another.

`parse_summary_results(data, file)` returns the records or raises SummaryResultsError naming the
file, the record (0-based) and the field. Fields later rounds add (`weight_data_types`, ...) are
kept in `extra`.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from typing import Any

from mlperf_check.lean_dataclass import dataclass

# `v4.1-0001` or `5.1-0001`: the round, then the entry's number in it.
ID_PATTERN = re.compile(r"^v?(\d+\.\d+)-(\d+)$")
REQUIRED = ("ID", "Submitter", "Category", "Suite", "Platform", "Model", "Scenario", "Performance_Result")
KNOWN = {
    "ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform", "UsedModel", "Model",
    "Scenario", "Accuracy", "Nodes", "Processor", "host_processors_per_node", "host_processor_core_count",
    "Accelerator", "a#", "Location", "Software", "operating_system", "Notes", "compliance", "errors",
    "version", "inferred", "has_power", "Details", "Code", "Unique ID (e.g. for Audit)",
    "Performance_Result", "Performance_Units", "Power_Result", "Power_Units",
}  # fmt: skip


class SummaryResultsError(ValueError):
    """The file is not a summary_results.json list of result objects."""


@dataclass(frozen=True)
class SummaryRecord:
    result_id: str  # the official ID as published ("v4.1-0001", "5.1-0001")
    round: str  # "v4.1", from the ID
    submitter: str
    availability: str  # available, preview, rdi
    division: str  # closed, open, network ("Category")
    category: str  # datacenter, edge, "datacenter,edge" ("Suite")
    system_name: str
    platform: str  # the system folder (systems/<platform>.json)
    model_folder: str  # "UsedModel": the folder name the submitter used
    model: str  # the benchmark
    scenario: str
    accuracy: str  # as the checker prints it: "ROUGE1: 44.5  ROUGE2: 22.1 ..."
    performance: float
    performance_unit: str  # Samples/s, Queries/s, Tokens/s, Latency (ms)
    power: float | None  # Watts or millijoules (per query)
    power_unit: str
    nodes: int | None
    accelerators_per_node: int | None
    accelerator: str
    processor: str
    location: str  # <division>/<submitter>/results/<platform>/<model>/<scenario>
    compliance: bool
    inferred: bool
    has_power: bool
    unique_id: str  # "<suite>/<division>/<submitter>/<platform>"
    details_url: str
    code_url: str
    extra: dict[str, Any] = field(default_factory=dict)  # any other field, as published


def parse_summary_results(data: bytes | str, file: str = "summary_results.json") -> list[SummaryRecord]:
    try:
        items = json.loads(data)
    except ValueError as exc:
        raise SummaryResultsError(f"{file}: not JSON ({exc})") from exc
    if not isinstance(items, list):
        raise SummaryResultsError(
            f"{file}: expected a JSON list of result objects, found {type(items).__name__}"
        )
    return [_record(item, file, index) for index, item in enumerate(items)]


def _record(item: Any, file: str, index: int) -> SummaryRecord:
    where = f"{file}: record {index}"
    if not isinstance(item, dict):
        raise SummaryResultsError(f"{where}: expected an object, found {type(item).__name__}")
    missing = [name for name in REQUIRED if name not in item]
    if missing:
        raise SummaryResultsError(f"{where}: missing {', '.join(missing)}")
    result_id = str(item["ID"]).strip()
    match = ID_PATTERN.match(result_id)
    if match is None:
        raise SummaryResultsError(
            f"{where}: ID '{result_id}' is not <round>-<number> (e.g. v4.1-0001, 5.1-0001)"
        )

    def text(name: str) -> str:
        value = item.get(name, "")
        return "" if value is None else str(value).strip()

    def number(name: str, kind=float, required: bool = False):
        value = item.get(name)
        if value in (None, ""):
            if required:
                raise SummaryResultsError(f"{where} ({result_id}): {name} is empty")
            return None
        if isinstance(value, bool):
            raise SummaryResultsError(f"{where} ({result_id}): {name} is {value!r}, not a number")
        try:
            return kind(float(value)) if kind is int else kind(value)
        except (TypeError, ValueError):
            raise SummaryResultsError(f"{where} ({result_id}): {name} is {value!r}, not a number") from None

    return SummaryRecord(
        result_id=result_id,
        round=f"v{match.group(1)}",
        submitter=text("Submitter"),
        availability=text("Availability"),
        division=text("Category"),
        category=text("Suite"),
        system_name=text("System"),
        platform=text("Platform"),
        model_folder=text("UsedModel"),
        model=text("Model"),
        scenario=text("Scenario"),
        accuracy=text("Accuracy"),
        performance=number("Performance_Result", required=True),
        performance_unit=text("Performance_Units"),
        power=number("Power_Result"),
        power_unit=text("Power_Units"),
        nodes=number("Nodes", int),
        accelerators_per_node=number("a#", int),
        accelerator=text("Accelerator"),
        processor=text("Processor"),
        location=text("Location"),
        compliance=_flag(item.get("compliance")),
        inferred=_flag(item.get("inferred")),
        has_power=_flag(item.get("has_power")),
        unique_id=text("Unique ID (e.g. for Audit)"),
        details_url=text("Details"),
        code_url=text("Code"),
        extra={k: v for k, v in item.items() if k not in KNOWN},
    )


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)
