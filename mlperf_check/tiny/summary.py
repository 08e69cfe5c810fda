"""A Tiny round's published tables, from our checks: the official checker's `--csv` summary (one
row per result its verdict accepts) and the final report generate_final_report.py makes of it (its
`closed` sheet as CSV), written as those scripts write them (tools/submission/ of
github.com/mlcommons/tiny at the round's commit). One module for `mlperf-check --format
summary-csv | final-report-csv`, the round page's downloads and the snapshots."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from mlperf_check.tiny.report import SYSTEM_FIELDS, TinyResult

SUMMARY_COLUMNS = [
    "Organization", "Availability", "Division", "BoardName", "SystemDesc", "Model", "MlperfModel", "Result",
    "ResultUnit", "Accuracy", "HasPower", "Power", "PowerUnit", *[c for c, _ in SYSTEM_FIELDS[1:]],
    "FalsePositives", "FalseNegatives", "DutyCycle",
]
# The final report's row index (indices['closed'] of generate_final_report.py), and its value
# columns: latency (1000 / inf./sec.) then energy, each for these benchmarks in this order (the
# script of v1.3 has no sww column: sww results are dropped, their systems keep empty cells).
REPORT_INDEX = [
    "ID", "Unique ID (e.g. for Audit)", "ColorKey", "Submitter", "Availability", "SystemDesc", "BoardName",
    *[c for c, _ in SYSTEM_FIELDS[1:]], "Details", "Code",
]
REPORT_MODELS = ["vww", "ic", "kws", "ad"]
# The texts pandas.read_csv reads as missing (its default na_values): the report script reads the
# checker's CSV so, and shows them as empty cells ("Inference Framework": "N/A").
MISSING = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                     "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})


def _text(value) -> str:
    """A value as pandas writes it into the checker's CSV (None empty, floats by repr)."""
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def summary_rows(results: Iterable[TinyResult]) -> list[dict[str, str]]:
    """The checker's CSV rows: the results its verdict accepts, ordered by folder."""
    rows = []
    for r in sorted((r for r in results if r.official), key=lambda r: r.folder):
        power = r.energy or 0.0  # the column is float: no energy is "0.0"
        rows.append({
            "Organization": r.submitter, "Availability": r.availability, "Division": r.division,
            "BoardName": _text(r.system_fields.get("BoardName")), "SystemDesc": r.system, "Model": r.benchmark,
            "MlperfModel": r.mlperf_model, "Result": _text(r.throughput), "ResultUnit": r.result_unit,
            "Accuracy": r.accuracy_text, "HasPower": str(power > 0), "Power": _text(power),
            "PowerUnit": r.energy_unit or ("mW" if r.scenario else "uJ/inf."),
            **{column: _text(r.system_fields.get(column)) for column, _ in SYSTEM_FIELDS[1:]},
            "FalsePositives": _text(r.false_positives), "FalseNegatives": _text(r.false_negatives),
            "DutyCycle": _text(r.duty_cycle),
        })
    return rows


def summary_csv(results: Iterable[TinyResult]) -> str:
    """As the checker writes --csv: an unquoted header, every value quoted."""
    out = io.StringIO()
    out.write(",".join(SUMMARY_COLUMNS) + "\n")
    writer = csv.DictWriter(out, SUMMARY_COLUMNS, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerows(summary_rows(results))
    return out.getvalue()


def final_report(results: Iterable[TinyResult], *, version: str, division: str = "closed",
                 repository: str = "") -> tuple[list[str], list[list[object]]]:
    """generate_final_report.py's sheet of a division: (value columns, rows of index values then
    values, None for an empty cell), in its order: IDs numbered by (availability, submitter, board)
    over the whole round, rows sorted by their index, each value the mean of the results it holds."""
    repository = repository or f"submissions_tiny_v{version}"
    base = f"https://github.com/mlcommons/{repository}/tree/main"
    rows = [{k: "" if v in MISSING else v for k, v in row.items()} for row in summary_rows(results)]
    for row in rows:
        row["Unique ID (e.g. for Audit)"] = "/".join([row["Division"], row["Organization"], row["BoardName"]])
    ids: dict[str, str] = {}
    ordered = sorted(rows, key=lambda r: (r["Division"], r["Availability"], r["Organization"],
                                          r["Unique ID (e.g. for Audit)"]))
    for row in ordered:
        ids.setdefault(row["Unique ID (e.g. for Audit)"], f"{version}-{len(ids) + 1:04}")
    cells: dict[tuple, dict[tuple[str, str], list[float]]] = {}
    for row in rows:
        if row["Division"] != division:
            continue
        index = (
            ids[row["Unique ID (e.g. for Audit)"]], row["Unique ID (e.g. for Audit)"],
            row["Availability"] + row["Organization"], row["Organization"], row["Availability"], row["SystemDesc"],
            row["BoardName"], *[row[c] for c, _ in SYSTEM_FIELDS[1:]],
            f'=HYPERLINK("{base}/{row["Division"]}/{row["Organization"]}/results","details")',
            f'=HYPERLINK("{base}/{row["Division"]}/{row["Organization"]}/code","details")',
        )
        values = cells.setdefault(index, {})
        values.setdefault(("Result", row["MlperfModel"]), []).append(float(row["Result"]))
        values.setdefault(("Power", row["MlperfModel"]), []).append(float(row["Power"] or 0))
    table = []
    for index in sorted(cells):
        out: list[object] = list(index)
        for measure in ("Result", "Power"):
            for model in REPORT_MODELS:
                found = cells[index].get((measure, model))
                mean = sum(found) / len(found) if found else None
                if mean is not None and measure == "Result":
                    mean = 1000 / mean  # inf./sec. -> latency in ms
                out.append(None if mean is None or (measure == "Power" and mean == 0) else mean)
        table.append(out)
    return [f"{m} {model}" for m in ("Result", "Power") for model in REPORT_MODELS], table


def final_report_csv(results: Iterable[TinyResult], *, version: str, division: str = "closed") -> str:
    """The final report's sheet as the workbook shows it: three header rows (the pivot table's), an
    index cell left blank where it and every cell left of it repeat the row above (merged cells)."""
    _, table = final_report(results, version=version, division=division)
    width = len(REPORT_INDEX)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([""] * width + ["Result", "", "", "", "Power", "", "", ""])
    writer.writerow([""] * (width - 1) + ["Model", *REPORT_MODELS, *REPORT_MODELS])
    writer.writerow(REPORT_INDEX + [""] * (2 * len(REPORT_MODELS)))
    previous: list[object] = []
    for row in table:
        shown, same = [], True
        for i, value in enumerate(row[:width]):
            same = same and i < len(previous) and previous[i] == value
            shown.append("" if same else value)
        shown += ["" if v is None else f"{v:.16G}" for v in row[width:]]  # as XlsxWriter stores a number
        writer.writerow(shown)
        previous = row
    return out.getvalue()
