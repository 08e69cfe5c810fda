"""An inference round in the shape MLCommons publishes it: `summary_results.json` and its CSV.

MLCommons builds `summary_results.json` in two steps, both in mlcommons/inference
`tools/submission/`: the submission checker writes one `--csv` row per accepted result (and a
second row, in Watts or millijoules, for a power result), then `generate_final_report.py`
renames its columns, adds the links, the audit key and the entry IDs, keeps the scenarios each
category lists for a model, drops the duplicates and merges each power row into its performance
row. `summary_records` does both steps from our own checked results (`AcceptedResult`), following
the report script of 2024-10-01 (`6eff0998`, the first to write the JSON, the one behind the v4.1
reference): the same field names, order, types and values; entry IDs spelled as the round's own
file spells them (`official_id`: "v4.1-0001", "5.1-0001"). The CSV has the JSON's columns.

One function serves the command line (`mlperf-check --format summary-json|summary-csv`), the
round page, the API and the round snapshots.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mlperf_check.inference.discovery import read_system_descriptions
from mlperf_check.inference.official_rules_data import OFFICIAL_RULES_DATA
from mlperf_check.inference.report import InferenceReport
from mlperf_check.inference.summary_results import ID_PATTERN
from mlperf_check.lean_dataclass import dataclass

# The official checker's `--csv` columns (v2.1-v5.1), as generate_final_report.py renames them.
CHECKER_TO_SUMMARY = {
    "Organization": "Submitter", "Availability": "Availability", "Division": "Category", "SystemType": "Suite",
    "SystemName": "System", "Platform": "Platform", "Model": "UsedModel", "MlperfModel": "Model",
    "Scenario": "Scenario", "Result": "Result", "Accuracy": "Accuracy", "number_of_nodes": "Nodes",
    "host_processor_model_name": "Processor", "host_processors_per_node": "host_processors_per_node",
    "host_processor_core_count": "host_processor_core_count", "accelerator_model_name": "Accelerator",
    "accelerators_per_node": "a#", "Location": "Location", "framework": "Software",
    "operating_system": "operating_system", "notes": "Notes", "compliance": "compliance", "errors": "errors",
    "version": "version", "inferred": "inferred", "has_power": "has_power", "Units": "Units",
}  # fmt: skip
AUDIT_KEY = "Unique ID (e.g. for Audit)"
# The CSV's columns: the JSON's fields in its order (a power result adds the last two).
SUMMARY_COLUMNS = [
    "ID", *[name for name in CHECKER_TO_SUMMARY.values() if name not in ("Result", "Units")],
    "p#", "Details", "Code", AUDIT_KEY, "ColorKey",
    "Performance_Result", "Performance_Units", "Power_Result", "Power_Units",
]  # fmt: skip
# Columns pandas reads as numbers when every value of the column is one (read_csv's inference).
NUMERIC_COLUMNS = ("Result", "Nodes", "host_processors_per_node", "host_processor_core_count", "a#")
# The rounds whose official summary writes the entry IDs with a "v". The report script writes
# "<--version>-NNNN": MLCommons ran it with `--version v4.1` for v4.1 (inference_results_v4.1's
# summary_results.json: "v4.1-0001") and with the bare number from v5.0 on (the script's
# `args.version == "5.0"` tests; inference_results_v5.1's file: "5.1-0001"). Rounds before v4.1 had
# no JSON; their spreadsheets' IDs came from the default `--version 4.0`, without a v.
ID_WITH_V = frozenset({"4.1"})


@dataclass(frozen=True)
class AcceptedResult:
    """One result the round's official verdict accepts, as the checker's `--csv` row needs it."""

    location: str  # <division>/<submitter>/results/<platform>/<model folder>/<scenario folder>
    model_folder: str
    model: str  # the benchmark (MlperfModel)
    scenario: str  # Offline, Server, SingleStream, MultiStream, Interactive
    description: Mapping[str, Any]  # systems/<platform>.json
    value: float
    unit: str  # Samples/s, Queries/s, Tokens/s, Latency (ms)
    accuracy: str = ""  # the target figures as the checker prints them: "ROUGE1: 44.5321  ROUGE2: 22.1191"
    inferred: bool = False
    power: float | None = None
    power_unit: str = ""  # Watts, millijoules
    entry: str = ""  # the system's entry ID where one is known (an imported official one); else numbered

    @property
    def division(self) -> str:
        return self.location.split("/")[0]

    @property
    def submitter(self) -> str:
        return self.location.split("/")[1]

    @property
    def platform(self) -> str:
        return self.location.split("/")[3]


def summary_records(
    results: Iterable[AcceptedResult], *, version: str, scenarios: Mapping[str, Mapping[str, list]] | None = None,
    repository: str | None = None,
) -> list[dict[str, Any]]:
    """summary_results.json's records. `version` as the round is named ("v4.1"); `scenarios`: the
    round's scenarios per category and model (the checker's required and optional scenarios; a
    result outside them is left out, as the report script does, and None keeps every result);
    `repository`: the results repository the links name (default inference_results_<version>)."""
    pairs = [(result, row) for result in results for row in _checker_rows(result, version)]
    rows = _typed([row for _, row in pairs])
    base_url = f"https://github.com/mlcommons/{repository or f'inference_results_{version}'}/tree/main"
    for row in rows:
        row["p#"] = _whole(row["host_processors_per_node"])
        row["Details"] = "/".join([base_url, row["Category"], row["Submitter"], "results", row["Platform"]])
        row["Code"] = "/".join([base_url, row["Category"], row["Submitter"], "code"])
        key = [row["Suite"], row["Category"], row["Submitter"], row["Platform"]]
        row[AUDIT_KEY] = "/".join(key + ([row["UsedModel"]] if row["Category"] == "open" else []))
        row["ColorKey"] = row["Availability"] + row["Submitter"]
    keys = sorted({(r["Category"], r["Availability"], r["Submitter"], r[AUDIT_KEY]) for r in rows})
    numbered = {key[3]: official_id(version, number) for number, key in enumerate(keys, start=1)}
    for (result, _), row in zip(pairs, rows, strict=True):
        row["ID"] = _entry_id(version, result.entry) if result.entry else numbered[row[AUDIT_KEY]]

    kept = []  # per division and category sheet, as the script writes them
    for division in ("closed", "open", "network"):
        for category in ("datacenter", "edge"):
            for power_sheet in (False, True):
                kept += [{"ID": row["ID"], **{k: v for k, v in row.items() if k != "ID"}} for row in rows
                         if row["Category"] == division and category in row["Suite"]
                         and (row["has_power"] is True if power_sheet else row["Units"] not in ("Watts", "millijoules"))
                         and _listed(row, category, scenarios)]
    for name in ("Units", "Scenario", "UsedModel", "ID"):
        kept.sort(key=lambda record, name=name: record[name])
    unique: list[dict[str, Any]] = []  # the same result from two sheets, once
    for record in kept:
        if not (unique and all(unique[-1][k] == record[k] for k in ("ID", "UsedModel", "Scenario", "Units"))):
            unique.append(record)
    records = []
    index = 0
    while index < len(unique):  # a power row merged into its performance row (the one beside it)
        record = unique[index]
        following = unique[index + 1] if index + 1 < len(unique) else None
        if following is not None and all(record[k] == following[k] for k in ("ID", "UsedModel", "Scenario")):
            performance, power = (following, record) if _is_power(record["Units"]) else (record, following)
            figures = {"Power_Result": power["Result"], "Power_Units": power["Units"],
                       "Performance_Result": performance["Result"], "Performance_Units": performance["Units"]}
            if performance is following:  # the script writes the fields in this order then
                figures = dict(list(figures.items())[2:] + list(figures.items())[:2])
            del record["Result"], record["Units"]
            record.update(figures)
            index += 2
        else:
            record["Performance_Result"] = record.pop("Result")
            record["Performance_Units"] = record.pop("Units")
            index += 1
        records.append(record)
    return records


def official_id(version: str, number: int) -> str:
    """Entry `number` of round `version` ("v5.1" or "5.1") as the round's official summary writes
    it: "5.1-0001"; v4.1's "v4.1-0001" (ID_WITH_V)."""
    bare = version.removeprefix("v")
    return f"{'v' if bare in ID_WITH_V else ''}{bare}-{number:04}"


def _entry_id(version: str, entry: str) -> str:
    """A known entry ("4.1-0052", as the database keeps it) in the round's official spelling."""
    match = ID_PATTERN.match(entry)
    return official_id(version, int(match.group(2))) if match else entry


def _is_power(unit: str) -> bool:
    return "Watts" in unit or "joules" in unit


def round_scenarios(version: str) -> dict[str, dict[str, list[str]]] | None:
    """The scenarios of each model per category (the checker's required and optional ones) that
    the report script lists; None for a round without tables (before v2.1): every result kept."""
    table = OFFICIAL_RULES_DATA.get(version)
    if table is None:
        return None
    out: dict[str, dict[str, list[str]]] = {}
    for category in ("datacenter", "edge"):
        required, optional = table["required_scenarios"].get(category, {}), table["optional_scenarios"].get(category, {})
        out[category] = {model: [*required.get(model, []), *optional.get(model, [])] for model in {*required, *optional}}
    return out


def accepted_results(report: InferenceReport) -> list[AcceptedResult]:
    """The results of a checked package that its round's official verdict accepts (what MLCommons
    publishes; where our stricter rules differ, the pages and the checker's report say so), with
    their systems."""
    descriptions: dict[Path, dict[str, dict]] = {}
    out = []
    for result in report.results:
        if not result.official or result.metric_value is None:
            continue
        if result.folder.startswith("results/"):  # a submitter folder was checked
            prefix, location = "", f"{result.division}/{result.submitter}/{result.folder}"
        else:
            prefix, location = result.folder.split("/results/", 1)[0], result.folder
        submitter_root = Path(report.root) / prefix
        if submitter_root not in descriptions:
            descriptions[submitter_root] = read_system_descriptions(submitter_root)
        out.append(AcceptedResult(
            location=location, model_folder=result.model_folder, model=result.model, scenario=result.scenario,
            description=descriptions[submitter_root].get(result.system, {}), value=result.metric_value,
            unit=result.metric_unit, accuracy=result.accuracy_printed,
            inferred=bool(result.inferred_from), power=result.power_value, power_unit=result.power_unit,
        ))
    return out


def report_summary(report: InferenceReport) -> list[dict[str, Any]]:
    """summary_results.json of a checked package (round, division or submitter folder)."""
    return summary_records(accepted_results(report), version=report.round, scenarios=round_scenarios(report.round))


def summary_json(records: list[dict[str, Any]]) -> str:
    """The file as the report script writes it (`json.dumps(..., indent=2)`)."""
    return json.dumps(records, indent=2)


def summary_csv(records: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({name: _csv_value(record.get(name, "")) for name in SUMMARY_COLUMNS} for record in records)
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    return str(value) if isinstance(value, bool) else value


def _listed(row: dict, category: str, scenarios: Mapping[str, Mapping[str, list]] | None) -> bool:
    if scenarios is None:
        return True
    return row["Scenario"] in (scenarios.get(category, {}).get(row["Model"]) or ())


def _checker_rows(result: AcceptedResult, version: str) -> list[dict[str, str]]:
    """The checker's `--csv` row(s) of one result, each field as its text (log_result)."""
    system = result.description
    notes = str(system.get("hw_notes") or "")
    if system.get("sw_notes"):
        notes = (notes + ". " if notes else "") + str(system["sw_notes"])
    row = {
        "Submitter": result.submitter,
        "Availability": str(system.get("status") or "").lower(),
        "Category": result.division,
        "Suite": str(system.get("system_type") or ""),
        "System": str(system.get("system_name") or ""),
        "Platform": result.platform,
        "UsedModel": result.model_folder,
        "Model": result.model,
        "Scenario": result.scenario,
        "Result": repr(float(result.value)),
        "Accuracy": result.accuracy,
        "Nodes": _text(system.get("number_of_nodes")),
        "Processor": _text(system.get("host_processor_model_name")),
        "host_processors_per_node": _text(system.get("host_processors_per_node")),
        "host_processor_core_count": _text(system.get("host_processor_core_count")),
        "Accelerator": _text(system.get("accelerator_model_name")),
        "a#": _text(system.get("accelerators_per_node")),
        "Location": result.location,
        "Software": _text(system.get("framework")),
        "operating_system": _text(system.get("operating_system")),
        "Notes": notes,
        "compliance": "1",  # an accepted closed result passed its compliance runs; open ones are 1
        "errors": "0",  # the checker's count of errors before this result of the model: 0 when accepted
        "version": version,
        "inferred": "1" if result.inferred else "0",
        "has_power": str(result.power is not None and result.power > 0),
        "Units": result.unit,
    }
    rows = [row]
    if result.power is not None and result.power > 0:
        rows.append({**row, "Result": repr(float(result.power)), "Units": result.power_unit})
    return rows


def _whole(value: Any) -> Any:
    """The script's int(host_processors_per_node); a description without a whole number there
    (the script would stop) keeps its value."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _typed(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The values as pandas' read_csv(...).fillna('') gives them to the report script: a column of
    whole numbers is int, of numbers float, else text; empty is ''. Then the script's fixes."""
    for name in NUMERIC_COLUMNS:
        texts = [row[name] for row in rows]
        kind = _column_kind(texts)
        for row in rows:
            row[name] = kind(row[name]) if row[name] != "" and kind is not str else row[name]
    for row in rows:
        for name in ("compliance", "errors", "inferred"):
            row[name] = int(row[name])
        row["has_power"] = row["has_power"] == "True"
        if row["host_processor_core_count"] == "2 (big); 4 (LITTLE)":
            row["host_processor_core_count"] = 2
        if row["Availability"] == "on-premise":
            row["Availability"] = "available"
        if row["Accelerator"] == "-":
            row["Accelerator"] = ""
        if isinstance(row["a#"], str) and row["a#"].isnumeric():
            row["a#"] = int(row["a#"])
        if row["a#"] == 0:
            row["a#"] = ""
        for name, value in row.items():
            if isinstance(value, float):
                row[name] = round(value, 10)  # pandas' to_json writes 10 decimals
    return rows


def _column_kind(texts: list[str]):
    present = [text for text in texts if text != ""]
    if all(_parses(text, int) for text in present) and len(present) == len(texts):
        return int
    if all(_parses(text, float) for text in present):
        return float
    return str


def _parses(text: str, kind) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True
