"""summary_results.json (MLCommons' published round summary) read into typed records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlperf_check.inference.summary_results import SummaryResultsError, parse_summary_results

SAMPLE = Path(__file__).parent / "data" / "inference" / "summary_results" / "summary_results_v4.1_sample.json"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "inference"


def test_the_sample_records():
    llm, power, mapped = parse_summary_results(SAMPLE.read_bytes(), SAMPLE.name)
    assert (llm.result_id, llm.round, llm.submitter, llm.division, llm.category) == (
        "v4.1-0001",
        "v4.1",
        "AMD",
        "closed",
        "datacenter",
    )
    assert (llm.model, llm.scenario, llm.performance, llm.performance_unit) == (
        "llama2-70b-99",
        "Server",
        2520.27,
        "Tokens/s",
    )
    assert llm.power is None and not llm.has_power and llm.compliance and llm.accelerators_per_node == 1
    assert llm.unique_id == "datacenter/closed/AMD/1xMI300X_2xEPYC-9374F"
    assert llm.extra == {"p#": 2, "ColorKey": "availableAMD"}
    assert (power.category, power.scenario, power.power_unit, power.has_power) == (
        "edge",
        "SingleStream",
        "millijoules",
        True,
    )
    assert power.power == pytest.approx(29.238986918)
    assert (mapped.division, mapped.model_folder, mapped.model) == (
        "open",
        "neuralmagic_Llama-2-7b-chat-hf-FP8",
        "llama2-70b-99.9",
    )


def test_later_rounds_ids_and_fields():
    record = json.loads(SAMPLE.read_text())[0]
    record.update({"ID": "5.1-0042", "weight_data_types": "fp8", "a#": "8", "Nodes": ""})
    (parsed,) = parse_summary_results(json.dumps([record]))
    assert (parsed.result_id, parsed.round, parsed.accelerators_per_node, parsed.nodes) == (
        "5.1-0042",
        "v5.1",
        8,
        None,
    )
    assert parsed.extra["weight_data_types"] == "fp8"


@pytest.mark.parametrize(
    "data, message",
    [
        (b"{", "summary_results.json: not JSON"),
        (b"{}", "expected a JSON list of result objects, found dict"),
        (b"[1]", "record 0: expected an object, found int"),
        (b'[{"ID": "v4.1-0001"}]', "record 0: missing Submitter, Category"),
    ],
)
def test_bad_input_names_the_record_and_field(data, message):
    with pytest.raises(SummaryResultsError, match=message):
        parse_summary_results(data)


def test_bad_values_name_the_id_and_field():
    record = json.loads(SAMPLE.read_text())[0]
    with pytest.raises(SummaryResultsError, match=r"record 0 \(v4.1-0001\): Performance_Result is 'n/a'"):
        parse_summary_results(json.dumps([{**record, "Performance_Result": "n/a"}]))
    with pytest.raises(SummaryResultsError, match="ID 'abc' is not <round>-<number>"):
        parse_summary_results(json.dumps([{**record, "ID": "abc"}]))


@pytest.mark.corpus
def test_the_v41_reference_summary_agrees_with_our_check():
    """Every published record is one of our accepted results, with the same figure, unit and power;
    an ID names one system entry (all its results share it)."""
    path = CORPUS / "reference" / "summary_results_v4.1.json"
    if not path.is_file():
        pytest.skip(f"the inference corpus is not at {CORPUS}")
    from mlperf_check.inference import check_inference_package

    records = parse_summary_results(path.read_bytes(), path.name)
    assert len(records) == 56
    entries: dict[str, set[str]] = {}
    for record in records:
        entries.setdefault(record.result_id, set()).add(record.unique_id)
    assert all(len(ids) == 1 for ids in entries.values())
    report = check_inference_package(CORPUS / "v4.1")
    ours = {r.folder.lower(): r for r in report.results}
    for record in records:
        result = ours[record.location.lower()]
        assert result.model == record.model and result.metric_unit == record.performance_unit, record.location
        assert result.metric_value == pytest.approx(record.performance, rel=1e-6), record.location
        system = result.system_info  # what per-accelerator views divide by
        assert (system["nodes"], system["accelerators_per_node"]) == (
            record.nodes,
            record.accelerators_per_node,
        )
        assert (system["availability"], system["accelerator"]) == (record.availability, record.accelerator)
        if record.has_power:
            assert (
                result.power_value == pytest.approx(record.power, rel=1e-9)
                and result.power_unit == record.power_unit
            )
