"""The network division (v2.1 on): the closed division's rules for a system whose LoadGen reaches
the SUT over a network. Checked on a copy of a real v4.1 closed submitter of the repository's sample
(closed/NeuralMagic llama2-70b-99, published VALID) moved into network/, with the system description
and SUT name the official checker asks of a network system, then with each of them wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.inference.official_rules_data import OFFICIAL_RULES_DATA
from mlperf_check.inference.summary_export import report_summary

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "inference-v4.1" / "closed" / "NeuralMagic"
SYSTEM = "vLLM_8xL40S-reference-cpu-pytorch-v2.3.1-default_config"
NETWORK_FIELDS = {name: "x" for name in OFFICIAL_RULES_DATA["v4.1"]["network_system_fields"]} | {"is_network": "true"}


def copy(tmp_path: Path, division: str, network_fields: bool, sut_name: str = "PySUT Network SUT") -> Path:
    root = tmp_path / "v4.1"
    shutil.copytree(SAMPLE, root / division / "NeuralMagic")
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    description = root / division / "NeuralMagic" / "systems" / f"{SYSTEM}.json"
    data = json.loads(description.read_text()) | {"division": division}
    if network_fields:
        data |= NETWORK_FIELDS
    description.write_text(json.dumps(data))
    for summary in root.rglob("performance/run_1/mlperf_log_summary.txt"):
        summary.write_text(summary.read_text().replace("SUT name : PySUT", f"SUT name : {sut_name}"))
    return root


def errors(root: Path, version: str = "v4.1") -> dict[str, set[str]]:
    report = check_inference_package(root, round_version=version)
    return {r.scenario: {f.code for f in r.all_findings() if f.severity == "error"} for r in report.results}


def test_a_network_result_is_judged_by_the_closed_rules(tmp_path):
    root = copy(tmp_path, "network", network_fields=True)
    assert errors(root) == {"Offline": set(), "Server": set()}
    records = report_summary(check_inference_package(root, round_version="v4.1"))
    assert {(r["Category"], r["Scenario"]) for r in records} == {("network", "Offline"), ("network", "Server")}


def test_a_network_system_must_say_so_and_describe_the_network(tmp_path):
    root = copy(tmp_path, "network", network_fields=False)
    assert errors(root) == {"Offline": {"network_mode"}, "Server": {"network_mode"}}


def test_a_network_system_names_its_sut_so(tmp_path):
    root = copy(tmp_path, "network", network_fields=True, sut_name="PySUT")
    assert errors(root) == {"Offline": {"network_sut_name"}, "Server": {"network_sut_name"}}


def test_a_closed_system_may_not_run_over_the_network(tmp_path):
    root = copy(tmp_path, "closed", network_fields=True)
    assert errors(root) == {"Offline": {"network_mode"}, "Server": {"network_mode"}}


def test_a_network_systems_description_lacks_the_network_fields(tmp_path):
    root = copy(tmp_path, "network", network_fields=True)
    description = root / "network" / "NeuralMagic" / "systems" / f"{SYSTEM}.json"
    data = json.loads(description.read_text())
    del data["nic_sut"]
    description.write_text(json.dumps(data))
    assert errors(root) == {"Offline": {"system_fields"}, "Server": {"system_fields"}}


@pytest.mark.parametrize("version", ["v0.7", "v2.0"])
def test_a_round_without_the_network_division_says_so(tmp_path, version):
    root = copy(tmp_path, "network", network_fields=True)
    found = errors(root, version)
    assert found and all("division_unknown" in codes for codes in found.values())
