"""Write mlperf_check/rules/stored_data/ from the installed mlperf-logging (see mlperf_check.rules.stored).

    python scripts/store_official_data.py

- configs/<folder>.json: every shipped compliance config (training_<version>/*.yaml,
  hpc_<version>/*.yaml) as the checker reads it (mlperf_check.rules.configs.parse_yaml_records);
- rcps/<folder>.json: every RCP file the known rulesets use, its pruned table (every record's
  bisected minimum) for each run count and olympic drop a ruleset asks of it.

Each entry carries the SHA-256 of the file it was derived from. Run it after upgrading
mlperf-logging (test_stored_configs.py and test_rcp.py fail until then).
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mlperf_check.rules.catalog import get_ruleset, known_hpc_rulesets, known_rulesets  # noqa: E402
from mlperf_check.rules.configs import COMPLIANCE_DIR, parse_yaml_records, shipped_configs  # noqa: E402
from mlperf_check.rules.rcp import compute_rcp_table, table_key  # noqa: E402
from mlperf_check.rules.stored import STORED_DIR, sha256  # noqa: E402


def stored_configs() -> dict[str, dict[str, dict]]:
    """folder -> file name -> {"sha256": ..., "records": [...]}."""
    folders: dict[str, dict[str, dict]] = {}
    for name in sorted(shipped_configs()):
        folder, _, file_name = name.partition("/")
        data = (COMPLIANCE_DIR / name).read_bytes()
        folders.setdefault(folder, {})[file_name] = {"sha256": sha256(data), "records": parse_yaml_records(data)}
    return folders


def stored_rcps() -> dict[str, dict[str, dict]]:
    """folder -> file name -> {"sha256": ..., "tables": {"<runs>/<drop>": [[RcpRecord fields], ...]}}."""
    folders: dict[str, dict[str, dict]] = {}
    for version in (*known_rulesets(), *known_hpc_rulesets()):
        spec = get_ruleset(version)
        if spec.rcp_dir is None:
            continue
        for name, benchmark in sorted(spec.benchmarks.items()):
            path = spec.rcp_dir / f"rcps_{name}.json"
            if not path.is_file():
                continue
            data = path.read_bytes()
            table = compute_rcp_table(path, data, benchmark.required_runs, benchmark.olympic_drop)
            if table.error:
                continue
            entry = folders.setdefault(spec.rcp_dir.name, {}).setdefault(path.name, {"sha256": sha256(data), "tables": {}})
            rows = [list(dataclasses.astuple(record)) for record in table.records]
            entry["tables"][table_key(benchmark.required_runs, benchmark.olympic_drop)] = rows
    return folders


def write(kind: str, folders: dict[str, dict[str, dict]]) -> None:
    target = STORED_DIR / kind
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for folder, entries in sorted(folders.items()):
        (target / f"{folder}.json").write_bytes(orjson.dumps(entries, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"wrote {len(folders)} files to {target}")


def main() -> None:
    write("configs", stored_configs())
    write("rcps", stored_rcps())


if __name__ == "__main__":
    main()
