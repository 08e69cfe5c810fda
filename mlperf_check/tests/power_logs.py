"""Edits of real PTDaemon power logs for the tests."""

from __future__ import annotations

from pathlib import Path


def scale_watts(spl: Path, factor: float) -> None:
    """Each power sample of `spl` (an spl.txt: `Time,<when>,Watts,<value>,...`) times `factor`."""
    lines = []
    for line in spl.read_text().splitlines():
        parts = line.split(",")
        if line.startswith("Time") and len(parts) > 3:
            parts[3] = f"{float(parts[3]) * factor:.6f}"
        lines.append(",".join(parts))
    spl.write_text("\n".join(lines) + "\n")
