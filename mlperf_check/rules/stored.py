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
from pathlib import Path

import orjson

STORED_DIR = Path(__file__).resolve().parent / "stored_data"


def stored_entry(kind: str, folder: str, file_name: str, data: bytes) -> dict | None:
    """The entry stored for `<folder>/<file_name>` (kind "configs" or "rcps") when it was derived
    from `data`, the file's bytes; None otherwise."""
    try:
        entries = orjson.loads((STORED_DIR / kind / f"{folder}.json").read_bytes())
    except FileNotFoundError:
        return None
    entry = entries.get(file_name)
    if entry is None or entry["sha256"] != sha256(data):
        return None
    return entry


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
