"""What the checker derives from mlperf-logging's files, stored in mlperf_check/rules/stored_data
(written by scripts/store_official_data.py), equals what it derives from the installed files: the
records of every rule config as PyYAML reads them, and every RCP table a known ruleset uses. A file
whose bytes differ from the stored hash is derived afresh."""

from __future__ import annotations

import dataclasses
import shutil

import orjson
import pytest

from mlperf_check.rules import configs, rcp, stored
from mlperf_check.rules.catalog import get_ruleset, known_hpc_rulesets, known_rulesets
from mlperf_check.rules.configs import COMPLIANCE_DIR, config_records, parse_yaml_records, shipped_configs
from mlperf_check.rules.stored import STORED_DIR, sha256

REGENERATE = "run scripts/store_official_data.py"


def entries(kind: str) -> dict[str, dict]:
    """'<folder>/<file name>' -> entry, of every stored file of `kind`."""
    return {
        f"{path.stem}/{file_name}": entry
        for path in (STORED_DIR / kind).glob("*.json")
        for file_name, entry in orjson.loads(path.read_bytes()).items()
    }


def test_every_shipped_config_is_stored_as_pyyaml_reads_it():
    stored_configs = entries("configs")
    assert set(stored_configs) == set(shipped_configs()), REGENERATE
    for name, entry in sorted(stored_configs.items()):
        data = (COMPLIANCE_DIR / name).read_bytes()
        assert entry["sha256"] == sha256(data), f"{REGENERATE}: {name} changed"
        assert entry["records"] == parse_yaml_records(data), name
        assert config_records(name) == entry["records"], name


def test_every_rcp_table_of_a_known_ruleset_is_stored_as_computed():
    stored_rcps = entries("rcps")
    asked = set()
    for version in (*known_rulesets(), *known_hpc_rulesets()):
        spec = get_ruleset(version)
        if spec.rcp_dir is None:
            continue
        for name, benchmark in spec.benchmarks.items():
            path = spec.rcp_dir / f"rcps_{name}.json"
            if not path.is_file():
                continue
            data = path.read_bytes()
            computed = rcp.compute_rcp_table(path, data, benchmark.required_runs, benchmark.olympic_drop)
            if computed.error:
                continue
            key = f"{spec.rcp_dir.name}/{path.name}"
            asked.add(key)
            entry = stored_rcps.get(key)
            assert entry is not None and entry["sha256"] == sha256(data), f"{REGENERATE}: {key}"
            rows = entry["tables"][rcp.table_key(benchmark.required_runs, benchmark.olympic_drop)]
            assert rows == [list(dataclasses.astuple(record)) for record in computed.records], key
            loaded = rcp.load_rcp_table.__wrapped__(spec.rcp_dir, name, benchmark.required_runs, benchmark.olympic_drop)
            assert loaded == computed, key
    assert asked == set(stored_rcps), REGENERATE


def test_a_config_whose_bytes_changed_is_read_from_its_yaml(tmp_path, monkeypatch):
    name = "training_1.0.0/closed_resnet.yaml"
    shutil.copytree(COMPLIANCE_DIR / "training_1.0.0", tmp_path / "training_1.0.0")
    changed = (COMPLIANCE_DIR / name).read_text().replace("0.7590", "0.7777")
    assert "0.7777" in changed
    (tmp_path / name).write_text(changed)
    monkeypatch.setattr(configs, "COMPLIANCE_DIR", tmp_path)
    records = config_records(name)
    assert records == parse_yaml_records(changed.encode())
    assert records != entries("configs")[name]["records"]


def test_an_rcp_file_whose_bytes_changed_is_computed(tmp_path):
    spec = get_ruleset("1.0.0")
    bench = spec.benchmarks["resnet"]
    shutil.copytree(spec.rcp_dir, tmp_path / spec.rcp_dir.name)
    path = tmp_path / spec.rcp_dir.name / "rcps_resnet.json"
    raw = orjson.loads(path.read_bytes())
    for record in raw.values():
        record["Epochs to converge"] = [epochs + 1 for epochs in record["Epochs to converge"]]
    path.write_bytes(orjson.dumps(raw))
    table = rcp.load_rcp_table.__wrapped__(path.parent, "resnet", bench.required_runs, bench.olympic_drop)
    original = rcp.load_rcp_table.__wrapped__(spec.rcp_dir, "resnet", bench.required_runs, bench.olympic_drop)
    assert table == rcp.compute_rcp_table(path, path.read_bytes(), bench.required_runs, bench.olympic_drop)
    assert [r.mean for r in table.records] == [r.mean + 1 for r in original.records]


@pytest.mark.parametrize("missing", ["folder", "file"])
def test_a_config_not_stored_is_read_from_its_yaml(tmp_path, monkeypatch, missing):
    name = "training_1.0.0/closed_resnet.yaml"
    if missing == "file":
        (tmp_path / "configs").mkdir()
        (tmp_path / "configs" / "training_1.0.0.json").write_bytes(b"{}")
    monkeypatch.setattr(stored, "STORED_DIR", tmp_path)
    assert config_records(name) == parse_yaml_records((COMPLIANCE_DIR / name).read_bytes())
