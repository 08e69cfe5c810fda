"""load_system(): reading and normalising system descriptions, messy ones included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlperf_check.package import discover_package
from mlperf_check.report import SystemReport
from mlperf_check.systems import MAX_DESCRIPTION_BYTES, REQUIRED_FIELDS, load_system, remove_trailing_commas

GOOD = {field: "" for field in REQUIRED_FIELDS} | {
    "submitter": "Org",
    "division": "closed",
    "status": "onprem",
    "system_name": "dgxa100",
    "number_of_nodes": "2",
    "host_processors_per_node": 2,
    "host_processor_model_name": "AMD EPYC 7742",
    "accelerators_per_node": "8",
    "accelerator_model_name": "NVIDIA A100",
    "framework": "MXNet NGC 21.05",
    "hw_notes": "liquid cooled",
    "sw_notes": "",
}


def load(tmp_path: Path, content: str | bytes | dict, name: str = "sys1") -> SystemReport:
    root = tmp_path / "Org"
    path = root / "systems" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, dict):
        content = json.dumps(content, indent=2)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    package, _ = discover_package(root)
    return load_system(package, name)


def codes(report: SystemReport) -> list[str]:
    return [f.code for f in report.findings]


def test_it_normalises_a_clean_description_to_the_system_columns(tmp_path):
    report = load(tmp_path, GOOD)
    assert report.findings == []
    assert (report.system_id, report.file, report.description) == ("sys1", "systems/sys1.json", GOOD)
    assert report.normalized == {
        "name": "dgxa100",
        "submitter": "Org",
        "division": "closed",
        "status_raw": "onprem",
        "availability": "available",
        "deployment": "onprem",
        "number_of_nodes": 2,
        "host_processor_model_name": "AMD EPYC 7742",
        "host_processors_per_node": 2,
        "host_processors_count": 4,
        "accelerator_model_name": "NVIDIA A100",
        "accelerators_per_node": 8,
        "accelerators_count": 16,
        "framework": "MXNet NGC 21.05",
        "notes": "liquid cooled",
    }


def test_it_applies_the_summarizer_renames(tmp_path):
    description = GOOD | {
        "system_name": "tpu-v3",
        "accelerator_model_name": "tpu-v3",
        "number_of_nodes": "1",
        "accelerators_per_node": "128",
        "framework": "TensorFlow 1.14 commit hash = faf9db515c",
        "hw_notes": "none",
        "sw_notes": "none",
    }
    normalized = load(tmp_path, description).normalized
    assert (normalized["name"], normalized["accelerator_model_name"]) == ("TPUv3.256", "TPUv3")
    assert (normalized["framework"], normalized["notes"]) == ("TensorFlow 1.14", "none;none")


@pytest.mark.parametrize("value, parsed", [("64", 64), (" 8 ", 8), (8, 8), (8.0, 8), (0, 0)])
def test_it_parses_counts_written_as_numbers_or_strings(tmp_path, value, parsed):
    report = load(tmp_path, GOOD | {"number_of_nodes": value})
    assert report.findings == [] and report.normalized["number_of_nodes"] == parsed


@pytest.mark.parametrize("value", ["N/A", "", "8.0", -1, 2.5, True, None, ["8"]])
def test_it_reports_counts_that_do_not_parse(tmp_path, value):
    report = load(tmp_path, GOOD | {"accelerators_per_node": value})
    [finding] = report.findings
    assert (finding.severity, finding.code, finding.key) == (
        "error",
        "SYSTEM_FIELD_NOT_NUMERIC",
        "accelerators_per_node",
    )
    assert finding.line == list(GOOD).index("accelerators_per_node") + 2  # "{" is line 1
    assert finding.expected == "a whole number >= 0" and finding.actual == json.dumps(value)
    assert (
        report.normalized["accelerators_per_node"] is None and report.normalized["accelerators_count"] is None
    )
    assert report.normalized["host_processors_count"] == 4


def test_it_rejects_counts_beyond_any_real_system(tmp_path):
    for written in ("99999999999", "9" * 5000):
        report = load(tmp_path, GOOD | {"number_of_nodes": written})
        assert codes(report) == ["SYSTEM_FIELD_OUT_OF_RANGE"]
        assert report.normalized["number_of_nodes"] is None
    report = load(tmp_path, GOOD | {"number_of_nodes": 6_000_000, "accelerators_per_node": 8})
    assert codes(report) == ["SYSTEM_FIELD_OUT_OF_RANGE", "SYSTEM_FIELD_OUT_OF_RANGE"]
    assert (
        report.normalized["accelerators_count"] is None and report.normalized["number_of_nodes"] == 6_000_000
    )


def test_it_repairs_trailing_commas_after_reporting_the_invalid_json(tmp_path):
    text = '{\n  "submitter": "Alibaba",\n  "other_software_stack": {\n    "cuda": "10.1",\n  },\n}\n'
    report = load(tmp_path, text)
    invalid, repaired = report.findings
    assert (invalid.severity, invalid.code, invalid.line) == ("error", "SYSTEM_JSON_INVALID", 5)
    assert "line 5 column 3" in invalid.message
    assert (repaired.severity, repaired.code, repaired.line) == ("warning", "SYSTEM_JSON_REPAIRED", 4)
    assert "line(s) 4, 5" in repaired.message
    assert report.description == {"submitter": "Alibaba", "other_software_stack": {"cuda": "10.1"}}


def test_it_removes_only_trailing_commas():
    assert remove_trailing_commas("[1, 2,]") == ("[1, 2]", [1])
    assert remove_trailing_commas('{"a": "x,}",\n}') == ('{"a": "x,}"\n}', [1])
    assert remove_trailing_commas('{"a": "\\",]"}') == ('{"a": "\\",]"}', [])
    assert remove_trailing_commas("[,]") == ("[,]", [])
    assert remove_trailing_commas("[1,,]") == ("[1,,]", [])


def test_it_gives_up_on_json_it_cannot_repair(tmp_path):
    report = load(tmp_path, '{"submitter": "Org" "division": "closed"}')
    assert codes(report) == ["SYSTEM_JSON_INVALID"]
    assert report.description == {}
    assert report.normalized["name"] == "sys1" and report.normalized["availability"] == "unknown"
    assert codes(load(tmp_path, "[1]")) == ["SYSTEM_JSON_NOT_OBJECT"]
    assert codes(load(tmp_path, "[" * 100000)) == ["SYSTEM_JSON_INVALID"]
    assert codes(load(tmp_path, '{"number_of_nodes": ' + "1" * 5000 + "}")) == ["SYSTEM_JSON_INVALID"]
    assert codes(load(tmp_path, b" " * (MAX_DESCRIPTION_BYTES + 1))) == ["SYSTEM_FILE_TOO_LARGE"]


def test_it_uses_misspelled_keys_and_says_so(tmp_path):
    description = {k: v for k, v in GOOD.items() if k not in ("division", "number_of_nodes")}
    description |= {"divison": "closed", "number of nodes": "4", "system-type": "datacenter"}
    report = load(tmp_path, description)
    found = {(f.code, f.actual, f.expected) for f in report.findings}
    assert found == {
        ("SYSTEM_FIELD_MISSPELLED", "divison", "division"),
        ("SYSTEM_FIELD_MISSPELLED", "number of nodes", "number_of_nodes"),
        ("SYSTEM_FIELD_MISSPELLED", "system-type", "system_type"),
    }
    assert all(f.severity == "warning" and f.line for f in report.findings)
    assert report.normalized["division"] == "closed" and report.normalized["accelerators_count"] == 32
    assert "divison" in report.description  # the description stays as written


def test_it_leaves_unrelated_or_ambiguous_keys_alone(tmp_path):
    description = GOOD | {"notes": "x", "divison": "open", "xw_notes": "x", "python_version": "3.6"}
    report = load(tmp_path, description)  # division is present, so "divison" is just an extra key
    assert report.findings == [] and report.normalized["division"] == "closed"


@pytest.mark.parametrize(
    "written, division, code",
    [
        ("closed", "closed", None),
        ("open", "open", None),
        ("Closed", "closed", "SYSTEM_DIVISION_NORMALIZED"),
        ("close", "closed", "SYSTEM_DIVISION_NORMALIZED"),
        ("Open", "open", "SYSTEM_DIVISION_NORMALIZED"),
        ("research", "", "SYSTEM_DIVISION_UNKNOWN"),
        (1, "", "SYSTEM_DIVISION_UNKNOWN"),
    ],
)
def test_it_normalises_divisions(tmp_path, written, division, code):
    report = load(tmp_path, GOOD | {"division": written})
    assert report.normalized["division"] == division
    assert codes(report) == ([code] if code else [])


@pytest.mark.parametrize(
    "status, availability, deployment",
    [
        ("onprem", "available", "onprem"),
        ("on-premise", "available", "onprem"),
        ("available", "available", "onprem"),
        ("Available on-premise", "available", "onprem"),
        ("cloud", "available", "cloud"),
        ("Available cloud", "available", "cloud"),
        ("PREVIEW", "preview", "onprem"),
        ("research", "research", "onprem"),
        ("Research, Development, or Internal (RDI)", "research", "onprem"),
        ("", "unknown", "unknown"),
    ],
)
def test_it_maps_status_vocabularies_to_availability_and_deployment(
    tmp_path, status, availability, deployment
):
    report = load(tmp_path, GOOD | {"status": status})
    assert (report.normalized["availability"], report.normalized["deployment"]) == (availability, deployment)
    assert report.normalized["status_raw"] == status and report.findings == []


def test_it_flags_an_unknown_status(tmp_path):
    report = load(tmp_path, GOOD | {"status": "sold out"})
    assert codes(report) == ["SYSTEM_STATUS_UNKNOWN"]
    assert (report.normalized["availability"], report.normalized["deployment"]) == ("unknown", "unknown")


def test_it_classes_cloud_only_systems_as_cloud(tmp_path):
    tpu = load(tmp_path, GOOD | {"status": "research", "accelerator_model_name": "TPU v3"})
    assert tpu.normalized["deployment"] == "cloud"
    [note] = tpu.findings
    assert (note.severity, note.code) == ("info", "SYSTEM_DEPLOYMENT_INFERRED")
    assert "Google Cloud" in note.message
    modelarts = load(tmp_path, GOOD | {"status": "available", "system_name": "modelarts_512_0"})
    assert modelarts.normalized["deployment"] == "cloud"
    # an on-premise machine that merely runs ModelArts software stays on-premise
    pcl = load(
        tmp_path,
        GOOD
        | {"status": "research", "system_name": "CloudBrainII", "other_software_stack": "ModelArts-2.0.8"},
    )
    assert pcl.normalized["deployment"] == "onprem" and pcl.findings == []
    # an explicit status wins
    assert (
        load(tmp_path, GOOD | {"status": "onprem", "accelerator_model_name": "TPU"}).normalized["deployment"]
        == "onprem"
    )


def test_it_reads_latin1_and_byte_order_marks(tmp_path):
    text = json.dumps(GOOD | {"hw_notes": "Caf\u00e9"}, indent=1, ensure_ascii=False)
    report = load(tmp_path, text.encode("latin-1"))
    [finding] = report.findings
    assert (finding.code, finding.actual) == ("SYSTEM_ENCODING", "Latin-1")
    assert finding.line == text.splitlines().index(' "hw_notes": "Caf\u00e9",') + 1
    assert report.normalized["notes"] == "Caf\u00e9"
    report = load(tmp_path, b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
    assert codes(report) == ["SYSTEM_ENCODING"] and report.description == GOOD


def test_it_reports_duplicate_keys_and_uses_the_last_value(tmp_path):
    text = '{\n"submitter": "A",\n"host_storage_type": "SSD",\n"host_storage_type": "NVMe"\n}'
    report = load(tmp_path, text)
    [finding] = report.findings
    assert (finding.code, finding.key, finding.line) == ("SYSTEM_FIELD_DUPLICATE", "host_storage_type", 4)
    assert report.description["host_storage_type"] == "NVMe"


def write_v05(root: Path, entry: dict, submission: str = '{"org": "Intel Corp."}') -> SystemReport:
    (root / "intel_resnet/results/skx/resnet").mkdir(parents=True)
    (root / "intel_resnet/submission.json").write_text(submission)
    (root / "intel_resnet/results/skx/entry.json").write_text(json.dumps(entry))
    package, _ = discover_package(root)
    return load_system(package, "intel_resnet--skx")


ENTRY = {
    "division": "closed",
    "status": "on-premise",
    "hardware": "4-nodes 4x Intel Xeon 8180",
    "framework": "Intel Caffe 1.1.2a",
    "notes": "none",
    "nodes": [
        {"num_nodes": 4, "cpu": "Intel Xeon 8180", "accelerator": "NA", "num_accelerators": 0},
    ],
}


def test_it_maps_the_v05_entry_schema(tmp_path):
    report = write_v05(tmp_path / "intel", ENTRY)
    assert report.findings == []
    assert report.normalized == {
        "name": "4-nodes 4x Intel Xeon 8180",
        "submitter": "Intel Corp.",
        "division": "closed",
        "status_raw": "on-premise",
        "availability": "available",
        "deployment": "onprem",
        "number_of_nodes": 4,
        "host_processor_model_name": "Intel Xeon 8180",
        "host_processors_per_node": None,
        "host_processors_count": None,
        "accelerator_model_name": "NA",
        "accelerators_per_node": 0,
        "accelerators_count": 0,
        "framework": "Intel Caffe 1.1.2a",
        "notes": "none",
    }


def test_it_sums_mixed_v05_node_groups_and_reports_bad_counts(tmp_path):
    nodes = [
        {"num_nodes": 2, "cpu": "Skylake", "accelerator": "V100", "num_accelerators": 8},
        {"num_nodes": "1", "cpu": "Skylake", "accelerator": "P100", "num_accelerators": 4},
    ]
    normalized = write_v05(tmp_path / "a", ENTRY | {"nodes": nodes}).normalized
    assert (
        normalized["number_of_nodes"],
        normalized["accelerators_per_node"],
        normalized["accelerators_count"],
    ) == (3, None, 20)
    assert (
        normalized["accelerator_model_name"] == "V100; P100"
        and normalized["host_processor_model_name"] == "Skylake"
    )
    nodes[1]["num_nodes"] = "NA"
    report = write_v05(tmp_path / "b", ENTRY | {"nodes": nodes})
    assert [(f.code, f.key) for f in report.findings] == [("SYSTEM_FIELD_NOT_NUMERIC", "num_nodes")]
    assert report.normalized["number_of_nodes"] is None and report.normalized["accelerators_count"] is None


def test_it_reports_an_unreadable_v05_submission_json(tmp_path):
    report = write_v05(tmp_path / "intel", ENTRY, submission='{"org": "Alibaba", "poc": "a","b"}')
    [finding] = report.findings
    assert (finding.code, finding.file, finding.severity) == (
        "SYSTEM_SUBMITTER_UNKNOWN",
        "intel_resnet/submission.json",
        "warning",
    )
    assert report.normalized["submitter"] == ""


def test_it_refuses_unknown_system_ids(tmp_path):
    (tmp_path / "Org/systems").mkdir(parents=True)
    package, _ = discover_package(tmp_path / "Org")
    with pytest.raises(KeyError):
        load_system(package, "nope")


# -- the corpus -----------------------------------------------------------------------------------


def corpus_system(corpus: Path, submitter: str, system_id: str) -> SystemReport:
    package, _ = discover_package(corpus / submitter)
    return load_system(package, system_id)


@pytest.mark.corpus
def test_it_repairs_alibaba_v07(corpus):
    report = corpus_system(corpus, "v0.7/Alibaba", "n126_pai_eflops")
    assert codes(report) == ["SYSTEM_JSON_INVALID", "SYSTEM_JSON_REPAIRED", "SYSTEM_FIELD_MISSPELLED"]
    assert report.findings[0].line == 36 and report.findings[1].line == 35
    assert report.normalized["accelerators_count"] == 1008 and report.normalized["division"] == "closed"


@pytest.mark.corpus
def test_it_reads_the_misspellings_and_divisions_of_the_corpus(corpus):
    siat = corpus_system(corpus, "v0.7/SIAT", "modelarts_512_mindspore_close")
    assert [(f.code, f.actual) for f in siat.findings] == [
        ("SYSTEM_FIELD_MISSPELLED", "divison"),
        ("SYSTEM_DEPLOYMENT_INFERRED", "available"),
    ]
    assert (siat.normalized["division"], siat.normalized["deployment"]) == ("closed", "cloud")
    dell = corpus_system(corpus, "v0.7/DellEMC", "2xC4140")
    assert [(f.code, f.actual, f.line) for f in dell.findings] == [
        ("SYSTEM_FIELD_MISSPELLED", "number of nodes", 6)
    ]
    assert (dell.normalized["number_of_nodes"], dell.normalized["accelerators_count"]) == (2, 8)
    pcl = corpus_system(corpus, "v1.0/PCL", "CloudBrainII_256_mindspore_close")
    assert {(f.code, f.actual) for f in pcl.findings} == {
        ("SYSTEM_FIELD_MISSPELLED", "system-type"),
        ("SYSTEM_DIVISION_NORMALIZED", "close"),
    }
    assert (pcl.normalized["division"], pcl.normalized["availability"], pcl.normalized["deployment"]) == (
        "closed",
        "research",
        "onprem",
    )
    google = corpus_system(corpus, "v1.0/Google", "tpu-v4-4096-TF")
    assert (google.normalized["availability"], google.normalized["deployment"]) == ("preview", "cloud")
    assert google.normalized["accelerators_count"] == 2048


@pytest.mark.corpus
def test_it_maps_the_older_schemas_of_the_corpus(corpus):
    google = corpus_system(corpus, "v0.5/google", "cloud_v100x8--8xV100")
    assert (
        google.normalized["submitter"],
        google.normalized["deployment"],
        google.normalized["accelerators_count"],
    ) == ("Google", "cloud", 8)
    fujitsu = corpus_system(corpus, "v0.6/Fujitsu", "abci_2048xV100_mxnet")  # entry.json schema in systems/
    assert (fujitsu.normalized["number_of_nodes"], fujitsu.normalized["accelerators_count"]) == (512, 2048)
    assert fujitsu.normalized["submitter"] == "Fujitsu" and fujitsu.findings == []


ODD_VALUES = [None, True, 1.5, -3, "", "x" * 300, [], ["8"], {}, {"a": [1, {"b": None}]}, float("nan")]
COLUMN_TYPES = {
    "name": str,
    "submitter": str,
    "division": str,
    "status_raw": str,
    "availability": str,
    "deployment": str,
    "number_of_nodes": (int, type(None)),
    "host_processor_model_name": str,
    "host_processors_per_node": (int, type(None)),
    "host_processors_count": (int, type(None)),
    "accelerator_model_name": str,
    "accelerators_per_node": (int, type(None)),
    "accelerators_count": (int, type(None)),
    "framework": str,
    "notes": str,
}


def test_it_never_raises_on_odd_values_and_always_fills_every_column(tmp_path):
    cases = [GOOD | {field: value} for field in REQUIRED_FIELDS for value in ODD_VALUES]
    cases += [
        ENTRY | {"nodes": [1, "x", {"num_nodes": {}, "cpu": []}]},
        ENTRY | {"nodes": [], "status": ["cloud"]},
    ]
    for n, description in enumerate(cases):
        report = load(tmp_path / str(n), description)
        assert set(report.normalized) == set(COLUMN_TYPES)
        for column, kind in COLUMN_TYPES.items():
            assert isinstance(report.normalized[column], kind), (description, column)
        assert report.normalized["availability"] in ("available", "preview", "research", "unknown")
        assert report.normalized["deployment"] in ("onprem", "cloud", "unknown")
