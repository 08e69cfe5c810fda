"""MLPerf Automotive's published results table, summary_results.json, from the results its
official verdict accepts: the official checker's `--csv` rows (checker_row), then the steps of the
round's tools/submission/generate_final_report.py (summary_results), written as that script writes
it (summary_json). One code path for `mlperf-check --format summary-json`, the round page's
download and the snapshots; tests/test_automotive_corpus.py proves it byte for byte on the corpus.
"""

from __future__ import annotations

import json
import re
from typing import Any

# The checker's CSV columns (check_results_dir's `head`), in order.
CSV_COLUMNS = (
    "Organization", "Availability", "Division", "SystemType", "SystemName", "Platform", "Model", "MlperfModel",
    "Scenario", "Result", "Accuracy", "number_of_nodes", "host_processor_model_name", "host_processors_per_node",
    "host_processor_core_count", "accelerator_model_name", "accelerators_per_node", "Location", "framework",
    "operating_system", "notes", "compliance", "errors", "version", "inferred", "has_power", "Units",
    "weight_data_types",
)
# generate_final_report.py's renames.
RENAMED = {
    "Organization": "Submitter", "Division": "Category", "SystemType": "Suite", "SystemName": "System",
    "number_of_nodes": "Nodes", "host_processor_model_name": "Processor", "accelerator_model_name": "Accelerator",
    "accelerators_per_node": "a#", "notes": "Notes", "framework": "Software", "Model": "UsedModel",
    "MlperfModel": "Model",
}
DIVISIONS = ("closed", "open", "network")
SCENARIOS = ("SingleStream", "ConstantStream")  # the report's scenario filter, for every model
POWER_UNITS = ("Watts", "millijoules", "millijoules/Stream")
# The texts pandas.read_csv reads as missing.
MISSING = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
           "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}


def checker_row(
    *, submitter: str, division: str, system: str, description: dict, model_folder: str, model: str, scenario: str,
    figure: float, unit: str, accuracy: str, location: str, weight_data_types: str, version: str, errors: int = 0,
) -> dict[str, str]:
    """One accepted result as the official checker writes it to its CSV (log_result), each value
    as the text read back from the file."""
    notes = str(description.get("hw_notes", "") or "")
    if description.get("sw_notes"):
        notes = (notes + ". " if notes else "") + str(description.get("sw_notes"))
    values = (
        submitter, str(description.get("status", "")).lower(), division, description.get("system_type"),
        description.get("system_name"), system, model_folder, model, scenario, repr(float(figure)), accuracy,
        description.get("number_of_nodes"), description.get("host_processor_model_name"),
        description.get("host_processors_per_node"), description.get("host_processor_core_count"),
        description.get("accelerator_model_name"), description.get("accelerators_per_node"), location,
        description.get("framework", ""), description.get("operating_system", ""), notes, 1, errors, version, 0,
        False, unit, weight_data_types,
    )
    return {column: str(value) for column, value in zip(CSV_COLUMNS, values, strict=True)}


def summary_results(rows: list[dict[str, str]], *, version: str, repository: str) -> list[dict[str, Any]]:
    """generate_final_report.py over the checker's CSV rows: `version` "0.5" (the IDs' prefix),
    `repository` "mlcommons/submissions_automotive_v0.5" (the Details and Code links)."""
    if not rows:
        return []
    table = [{RENAMED.get(k, k): v for k, v in row.items()} for row in _typed(rows)]
    base = f"https://github.com/{repository}/tree/main"
    for row in table:
        if row["host_processor_core_count"] == "2 (big); 4 (LITTLE)":
            row["host_processor_core_count"] = 2
        if row["Availability"] == "on-premise":
            row["Availability"] = "available"
        if row["Accelerator"] == "-":
            row["Accelerator"] = ""
        if str(row["a#"]).isnumeric():
            row["a#"] = int(row["a#"])
        if row["a#"] == 0:
            row["a#"] = ""
        row["p#"] = int(row["host_processors_per_node"])
        row["Details"] = "/".join([base, row["Category"], row["Submitter"], "results", row["Platform"]])
        row["Code"] = "/".join([base, row["Category"], row["Submitter"], "code"])
        keys = [row["Suite"], row["Category"], row["Submitter"], row["Platform"]]
        if row["Category"] == "open":
            keys.append(row["UsedModel"])
        row["Unique ID (e.g. for Audit)"] = "/".join(str(k) for k in keys)
        row["ColorKey"] = f"{row['Availability']}{row['Submitter']}"
    table.sort(key=lambda r: (r["Category"], r["Availability"], r["Submitter"], r["Unique ID (e.g. for Audit)"]))
    ids: dict[str, int] = {}
    for row in table:
        ids.setdefault(row["Unique ID (e.g. for Audit)"], len(ids) + 1)
    for row in table:
        row["ID"] = f"{version}-{ids[row['Unique ID (e.g. for Audit)']]:04}"
    records = []
    for division in DIVISIONS:  # one worksheet per division (none with power here)
        for row in table:
            if (row["Category"] == division and "adas" in str(row["Suite"]) and row["Units"] not in POWER_UNITS
                    and row["Scenario"] in SCENARIOS):
                records.append({"ID": row["ID"], **{k: _json_number(v) for k, v in row.items() if k != "ID"}})
    for key in ("Units", "Scenario", "UsedModel", "ID"):
        records.sort(key=lambda r, key=key: r[key])
    unique = []
    for record in records:
        if unique and all(unique[-1][k] == record[k] for k in ("ID", "UsedModel", "Scenario", "Units")):
            continue
        unique.append(record)
    for record in unique:
        if record.get("Result"):
            record["Performance_Result"] = record.pop("Result")
            record["Performance_Units"] = record.pop("Units")
    return unique


def summary_json(records: list[dict[str, Any]]) -> str:
    """As the script writes its _results.json (no newline at the end)."""
    return json.dumps(records, indent=2)


def _typed(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Each column as pandas.read_csv(...).fillna("") reads it: whole numbers, numbers, True/False
    where every value of the column is one; a number column with an empty value reads as decimals."""
    columns = {column: [row[column] for row in rows] for column in rows[0]}
    typed = {column: _column(values) for column, values in columns.items()}
    return [{column: typed[column][i] for column in columns} for i in range(len(rows))]


def _column(values: list[str]) -> list[Any]:
    present = [v for v in values if v not in MISSING]
    if not present:
        return ["" for _ in values]
    if all(v in ("True", "False") for v in present) and len(present) == len(values):
        return [v == "True" for v in values]
    if all(re.fullmatch(r"[+-]?\d+", v) for v in present):
        if len(present) == len(values):
            return [int(v) for v in values]
        return [float(v) if v in present else "" for v in values]
    try:
        numbers = [float(v) for v in present]
    except ValueError:
        return ["" if v in MISSING else v for v in values]
    found = iter(numbers)
    return [next(found) if v in present else "" for v in values]


def _json_number(value: Any) -> Any:
    """pandas' to_json writes floats with 10 decimal places."""
    return round(value, 10) if isinstance(value, float) else value
