"""An inference round exported in MLCommons' summary_results shape (summary_export.py), against the
official tools' own output for the v4.1 corpus."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from mlperf_check.cli import main
from mlperf_check.inference.summary_export import (
    SUMMARY_COLUMNS,
    AcceptedResult,
    official_id,
    report_summary,
    round_scenarios,
    summary_csv,
    summary_json,
    summary_records,
)

DATA = Path(__file__).parent / "data" / "inference" / "summary_results"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "inference"
# The accepted results of the reference that this corpus copy cannot carry (their 1.4-2.2 MB detail
# logs are left out: docs/differences.md, "Agreement on the v4.1 corpus").
NOT_IN_THIS_COPY = {
    "closed/Lenovo/results/Lenovo_2xL4_TRT/retinanet/MultiStream",
    "closed/Lenovo/results/Lenovo_2xL4_TRT/retinanet/Offline",
    "closed/Lenovo/results/Lenovo_2xL4_TRT/retinanet/SingleStream",
    "closed/NVIDIA/results/H200-SXM-141GBx8_TRT/dlrm-v2-99/Offline",
    "closed/NVIDIA/results/H200-SXM-141GBx8_TRT/dlrm-v2-99/Server",
    "closed/NVIDIA/results/H200-SXM-141GBx8_TRT/dlrm-v2-99.9/Offline",
    "closed/NVIDIA/results/H200-SXM-141GBx8_TRT/dlrm-v2-99.9/Server",
}


def _from_checker_rows(path: Path) -> list[AcceptedResult]:
    """The results behind the official checker's --csv lines (a power result has two lines)."""
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    out: dict[tuple[str, str], AcceptedResult] = {}
    for row in rows:
        key = (row["Location"], row["Model"])
        if row["Units"] in ("Watts", "millijoules"):
            out[key] = AcceptedResult(**{**out[key].__dict__, "power": float(row["Result"]), "power_unit": row["Units"]})
            continue
        description = {
            "status": row["Availability"], "system_type": row["SystemType"], "system_name": row["SystemName"],
            "number_of_nodes": row["number_of_nodes"], "host_processor_model_name": row["host_processor_model_name"],
            "host_processors_per_node": row["host_processors_per_node"],
            "host_processor_core_count": row["host_processor_core_count"],
            "accelerator_model_name": row["accelerator_model_name"], "accelerators_per_node": row["accelerators_per_node"],
            "framework": row["framework"], "operating_system": row["operating_system"], "hw_notes": row["notes"],
        }  # fmt: skip
        out[key] = AcceptedResult(
            location=row["Location"], model_folder=row["Model"], model=row["MlperfModel"], scenario=row["Scenario"],
            description=description, value=float(row["Result"]), unit=row["Units"], accuracy=row["Accuracy"],
            inferred=row["inferred"] == "1",
        )
    return list(out.values())


def test_the_report_step_rebuilds_the_published_file_byte_for_byte():
    """From the official checker's CSV lines of the 56 accepted v4.1 corpus results, the records
    generate_final_report.py wrote: IDs, links, audit keys, merged power, field order, types."""
    results = _from_checker_rows(DATA / "checker_csv_v4.1.csv")
    records = summary_records(results, version="v4.1", scenarios=round_scenarios("v4.1"))
    assert summary_json(records) == (DATA / "summary_results_v4.1.json").read_text(encoding="utf-8")


def test_the_csv_has_the_json_fields_as_columns():
    results = _from_checker_rows(DATA / "checker_csv_v4.1.csv")
    records = summary_records(results, version="v4.1", scenarios=round_scenarios("v4.1"))
    rows = list(csv.DictReader(io.StringIO(summary_csv(records))))
    assert list(rows[0]) == SUMMARY_COLUMNS
    assert len(rows) == len(records) == 56
    for row, record in zip(rows, records, strict=True):
        assert set(record) <= set(SUMMARY_COLUMNS)
        assert all(row[name] == ("" if record.get(name) is None else str(record.get(name, ""))) for name in SUMMARY_COLUMNS)
    power = [row for row in rows if row["Power_Units"]]
    assert {row["Power_Units"] for row in power} == {"Watts", "millijoules"} and len(power) == 5


def _result(location: str, scenario: str, *, system_type: str = "edge", core_count: str = "8", **more) -> AcceptedResult:
    description = {"status": "Available", "system_type": system_type, "system_name": "Box", "number_of_nodes": 1,
                   "host_processor_model_name": "CPU", "host_processors_per_node": 1,
                   "host_processor_core_count": core_count, "accelerator_model_name": "-", "accelerators_per_node": 0}
    return AcceptedResult(location=location, model_folder=location.split("/")[4], model="resnet", scenario=scenario,
                          description=description, value=more.pop("value", 1.5), unit="Samples/s", **more)


def test_the_report_scripts_rules_on_small_cases():
    both = "closed/Acme/results/box/resnet50/Offline"
    results = [
        _result(both, "Offline", system_type="datacenter,edge", power=12.5, power_unit="Watts"),
        _result("closed/Acme/results/box/resnet50/Server", "Server", system_type="datacenter,edge"),
        _result("closed/Zed/results/dc/resnet/SingleStream", "SingleStream", system_type="datacenter"),
        _result("open/Acme/results/box/resnet-pruned/Offline", "Offline", core_count="2 (big); 4 (LITTLE)"),
    ]
    records = summary_records(results, version="v5.0", scenarios=round_scenarios("v5.0"))
    # A datacenter SingleStream result is in no sheet (its entry is numbered all the same, before
    # the sheets are made); a "datacenter,edge" result is there once.
    assert [(r["Location"], r["ID"]) for r in records] == [
        (both, "5.0-0001"),
        ("closed/Acme/results/box/resnet50/Server", "5.0-0001"),
        ("open/Acme/results/box/resnet-pruned/Offline", "5.0-0003"),
    ]
    offline, _, open_ = records
    assert list(offline)[-4:] == ["Power_Result", "Power_Units", "Performance_Result", "Performance_Units"]
    assert (offline["Power_Result"], offline["Performance_Result"], offline["has_power"]) == (12.5, 1.5, True)
    assert open_["Unique ID (e.g. for Audit)"] == "edge/open/Acme/box/resnet-pruned"
    # The report script's fixes: "-" accelerator and 0 accelerators empty, big.LITTLE counts 2,
    # a column with any text stays text.
    assert (offline["Accelerator"], offline["a#"], offline["Availability"]) == ("", "", "available")
    assert [r["host_processor_core_count"] for r in records] == ["8", "8", 2]
    # A description without host_processors_per_node keeps its (empty) value rather than stopping.
    bare = AcceptedResult(**{**results[1].__dict__, "description": {"system_type": "edge"}})
    assert summary_records([bare], version="v5.0", scenarios=None)[0]["p#"] == ""
    # Without the round's scenario lists (before v2.1) every result is kept.
    assert len(summary_records(results, version="v2.0", scenarios=None)) == 4
    # An entry ID known for an audit key (an imported official one) is kept.
    results[-1] = AcceptedResult(**{**results[-1].__dict__, "entry": "5.0-0042"})
    kept = summary_records(results, version="v5.0")
    assert [r["ID"] for r in kept if r["Category"] == "open"] == ["5.0-0042"]


def test_entry_ids_are_spelled_as_each_rounds_official_file_spells_them():
    """Issue 34: v4.1's summary_results.json writes `v4.1-0001`, v5.1's `5.1-0001` (and so every round
    from v5.0); an entry the database keeps as `4.1-0052` is written in the round's spelling."""
    assert [official_id(v, 1) for v in ("v4.1", "4.1", "v5.0", "v5.1", "v6.0", "v0.7")] == [
        "v4.1-0001", "v4.1-0001", "5.0-0001", "5.1-0001", "6.0-0001", "0.7-0001"]
    result = _result("closed/Acme/results/box/resnet/Offline", "Offline")
    for version, entry, written in (("v4.1", "4.1-0052", "v4.1-0052"), ("v5.1", "v5.1-0007", "5.1-0007"),
                                    ("v5.1", "", "5.1-0001"), ("v4.1", "", "v4.1-0001")):
        record = summary_records([AcceptedResult(**{**result.__dict__, "entry": entry})], version=version)[0]
        assert record["ID"] == written, (version, entry)


@pytest.mark.corpus
def test_our_export_of_the_v41_corpus_equals_the_official_summary():
    """Checked by us from the result folders: every record of the official summary_results.json
    whose result this copy holds, field by field and in the same order."""
    if not (CORPUS / "v4.1").is_dir():
        pytest.skip(f"the inference corpus is not at {CORPUS}")
    from mlperf_check.inference import check_inference_package

    ours = {r["Location"] + "|" + r["Model"]: r for r in report_summary(check_inference_package(CORPUS / "v4.1"))}
    official = json.loads((CORPUS / "reference" / "summary_results_v4.1.json").read_text(encoding="utf-8"))
    missing = set()
    for record in official:
        mine = ours.pop(record["Location"] + "|" + record["Model"], None)
        if mine is None:
            missing.add(record["Location"])
            continue
        assert list(mine.items()) == list(record.items()), record["Location"]
    assert missing == NOT_IN_THIS_COPY and not ours


def test_mlperf_check_prints_the_summary(tmp_path):
    if not (CORPUS / "v4.1").is_dir():
        pytest.skip(f"the inference corpus is not at {CORPUS}")
    out, err = io.StringIO(), io.StringIO()
    status = main([str(CORPUS / "v4.1" / "closed" / "UntetherAI"), "--format", "summary-json"], stdout=out, stderr=err)
    records = json.loads(out.getvalue())
    assert status == 0 and len(records) == 5 and all(r["has_power"] for r in records)
    assert {r["Power_Units"] for r in records} == {"Watts", "millijoules"}
    out = io.StringIO()
    main([str(CORPUS / "v4.1" / "closed" / "UntetherAI"), "--format", "summary-csv"], stdout=out, stderr=err)
    assert out.getvalue().splitlines()[0].split(",")[:3] == ["ID", "Submitter", "Availability"]


def test_a_summary_of_a_training_package_is_refused(tmp_path):
    (tmp_path / "results").mkdir()
    err = io.StringIO()
    assert main([str(tmp_path), "--format", "summary-json"], stdout=io.StringIO(), stderr=err) == 2
    assert "summary-json is for" in err.getvalue() and "inference results" in err.getvalue()
