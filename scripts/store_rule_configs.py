"""Write mlperf_check/rules/stored_configs/<folder>.json from the installed mlperf-logging.

    python scripts/store_rule_configs.py

Every shipped compliance config (training_<version>/*.yaml, hpc_<version>/*.yaml), read as the
checker reads it (mlperf_check.rules.configs.parse_yaml_records), with the SHA-256 of its bytes:
the checker uses a stored record list only for a YAML file with that very hash, so a check spares
the PyYAML import and parse. Run it after upgrading mlperf-logging (test_stored_configs.py fails
until then).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mlperf_check.rules.configs import COMPLIANCE_DIR, STORED_DIR, parse_yaml_records, shipped_configs  # noqa: E402


def stored_folders() -> dict[str, dict[str, dict]]:
    """folder -> file name -> {"sha256": ..., "records": [...]}, for every shipped config."""
    folders: dict[str, dict[str, dict]] = {}
    for name in sorted(shipped_configs()):
        folder, _, file_name = name.partition("/")
        data = (COMPLIANCE_DIR / name).read_bytes()
        folders.setdefault(folder, {})[file_name] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "records": parse_yaml_records(data),
        }
    return folders


def main() -> None:
    shutil.rmtree(STORED_DIR, ignore_errors=True)
    STORED_DIR.mkdir()
    for folder, configs in stored_folders().items():
        (STORED_DIR / f"{folder}.json").write_bytes(orjson.dumps(configs, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"wrote {len(list(STORED_DIR.iterdir()))} files to {STORED_DIR}")


if __name__ == "__main__":
    main()
