"""The stored records of the official rule configs (mlperf_check/rules/stored_configs, written by
scripts/store_rule_configs.py) are what PyYAML reads from the installed mlperf-logging, config by
config, and a config whose bytes differ from the stored hash is read from its YAML."""

from __future__ import annotations

import hashlib
import shutil

import orjson
import pytest

from mlperf_check.rules import configs
from mlperf_check.rules.configs import (
    COMPLIANCE_DIR,
    STORED_DIR,
    config_records,
    parse_yaml_records,
    shipped_configs,
)


def stored(name: str) -> dict | None:
    folder, _, file_name = name.partition("/")
    path = STORED_DIR / f"{folder}.json"
    return orjson.loads(path.read_bytes()).get(file_name) if path.exists() else None


def test_every_shipped_config_is_stored_as_pyyaml_reads_it():
    stale = []
    for name in sorted(shipped_configs()):
        data = (COMPLIANCE_DIR / name).read_bytes()
        entry = stored(name)
        if entry is None or entry["sha256"] != hashlib.sha256(data).hexdigest():
            stale.append(name)
            continue
        assert entry["records"] == parse_yaml_records(data), name
        assert config_records(name) == entry["records"], name
    assert not stale, f"run scripts/store_rule_configs.py: not stored or changed: {stale[:5]} ({len(stale)})"


def test_nothing_is_stored_that_is_not_shipped():
    names = {
        f"{path.stem}/{file_name}" for path in STORED_DIR.glob("*.json") for file_name in orjson.loads(path.read_bytes())
    }
    assert names == set(shipped_configs())


def test_a_config_whose_bytes_changed_is_read_from_its_yaml(tmp_path, monkeypatch):
    name = "training_1.0.0/closed_resnet.yaml"
    shutil.copytree(COMPLIANCE_DIR / "training_1.0.0", tmp_path / "training_1.0.0")
    changed = (COMPLIANCE_DIR / name).read_text().replace("0.7590", "0.7777")
    assert "0.7777" in changed
    (tmp_path / name).write_text(changed)
    monkeypatch.setattr(configs, "COMPLIANCE_DIR", tmp_path)
    records = config_records(name)
    assert records == parse_yaml_records(changed.encode())
    assert records != stored(name)["records"]


@pytest.mark.parametrize("missing", ["folder", "file"])
def test_a_config_not_stored_is_read_from_its_yaml(tmp_path, monkeypatch, missing):
    name = "training_1.0.0/closed_resnet.yaml"
    if missing == "file":
        (tmp_path / "training_1.0.0.json").write_bytes(b"{}")
    monkeypatch.setattr(configs, "STORED_DIR", tmp_path)
    assert config_records(name) == parse_yaml_records((COMPLIANCE_DIR / name).read_bytes())
