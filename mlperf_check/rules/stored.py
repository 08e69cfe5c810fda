"""What the checker derives from files the installed mlperf-logging ships, stored in the
repository (STORED_DIR) so that a check does not derive it again in every process: the records of
each rule config as PyYAML reads them (rules/configs.py) and the RCP tables with every record's
bisected minimum (rules/rcp.py). scripts/store_official_data.py writes them; the tests
test_stored_configs.py and test_rcp.py prove them equal to what the checker derives.

An entry is used only for the very bytes it was derived from (its SHA-256): a file of another
mlperf-logging version is derived afresh. Plain JSON data, no code and no pickle.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import orjson

STORED_DIR = Path(__file__).resolve().parent / "stored_data"


def stored_entry(kind: str, folder: str, file_name: str, data: bytes) -> dict | None:
    """The entry stored for `<folder>/<file_name>` (kind "configs" or "rcps") when it was derived
    from `data`, the file's bytes; None otherwise."""
    entry = _stored_file(STORED_DIR / kind / f"{folder}.json").get(file_name)
    if entry is None or entry["sha256"] != sha256(data):
        return None
    return entry


@cache
def _stored_file(path: Path) -> dict[str, dict]:
    """One stored file, read once per process (a ruleset's configs and RCP tables are each looked
    up in one file). What it holds is shared: callers do not modify it (overrides.apply copies
    a config's records before it corrects them)."""
    try:
        return orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return {}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
