"""The benchmark runner's results.txt (both runners, EEMBC and MLCommons): the figures the official
checker reads with the round's patterns, and the windows behind each median, which it does not
read and our stricter rules recompute. Text in, numbers out; never raises on content."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# Each performance window's throughput ("Throughput: 6.03 inf./sec.", EEMBC "Throughput   :  62.607 inf./sec.")
# and each energy window's cost ("Energy/Inf    : 5493.888 uJ/inf", EEMBC "Energy/Inf.  :  101.897 uJ/inf.").
WINDOW_THROUGHPUT = re.compile(r"Throughput\s*:\s*([\d.]+) inf\./sec\.")
WINDOW_ENERGY = re.compile(r"Energy/Inf\.?\s*:\s*([\d.]+) uJ/inf")
WINDOW_POWER = re.compile(r"^\s*Power\s+:\s*([\d.]+) mW")  # the MLCommons runner's energy trials
WINDOW_HEADING = re.compile(r"Performance results for window")
RUNTIME_MET = re.compile(r"Runtime requirements have been met\.")
AVERAGE_PERIOD = re.compile(r"Average period:\s*([\d.]+) s")


@dataclass
class Lines:
    """A results.txt read as text lines (None: the file cannot be read)."""

    path: Path
    lines: list[str] | None = field(default=None)

    @classmethod
    def read(cls, path: Path) -> Lines:
        try:
            return cls(path, path.read_bytes().decode("utf-8", errors="replace").splitlines())
        except OSError:
            return cls(path, None)

    @property
    def readable(self) -> bool:
        return self.lines is not None


def last_match(lines: list[str], pattern: str, *, search: bool = False) -> str | None:
    """The first group of the last line the pattern matches (re.match, or re.search), as the
    official checker keeps the last one it finds."""
    compiled = re.compile(pattern)
    found = None
    for line in lines:
        m = compiled.search(line) if search else compiled.match(line)
        if m:
            found = m.group(1)
    return found


def floats(lines: list[str], pattern: re.Pattern) -> list[float]:
    out = []
    for line in lines:
        m = pattern.search(line)
        if m:
            try:
                out.append(float(m.group(1)))
            except ValueError:
                continue
    return out


def number(text: str | None) -> float | None:
    """float(text), None where it is none or not a number (the official checker raises)."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def printed_precision(text: str) -> float:
    """Half a unit of the last decimal printed ("6.036" -> 0.0005): how far a printed median may be
    from the exact one."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals


@dataclass
class Streaming:
    """The streaming wakeword's lines (sww_perf_acc): throughput, TP/FN/FP, duty cycle."""

    throughput: float | None = None
    true_positives: int | None = None
    false_negatives: int | None = None
    false_positives: int | None = None
    duty_cycle: float | None = None
    period_s: float | None = None
    positives_lines: int = 0  # how many accuracy lines (the checker keeps the last)

    @property
    def f1(self) -> float | None:
        if self.true_positives is None:
            return None
        tp, fn, fp = self.true_positives, self.false_negatives, self.false_positives
        return 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else None


def streaming(lines: list[str], patterns: dict[str, str]) -> Streaming:
    """As sww_perf_acc reads them: re.search per line, the last of each kind wins."""
    out = Streaming()
    throughput, accuracy, duty = (re.compile(patterns[k]) for k in ("throughput", "accuracy", "duty_cycle"))
    for line in lines:
        m = throughput.search(line)
        if m:
            out.throughput = number(m.group(1))
            continue
        m = accuracy.search(line)
        if m:
            out.true_positives, out.false_negatives, out.false_positives = (int(g) for g in m.groups())
            out.positives_lines += 1
        m = duty.search(line)
        if m:
            out.duty_cycle = number(m.group(1))
        m = AVERAGE_PERIOD.search(line)
        if m:
            out.period_s = number(m.group(1))
    return out
