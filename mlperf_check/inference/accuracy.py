"""The accuracy scripts' output (`accuracy/accuracy.txt`): the figure, found by each model's pattern.

The files are free text (progress output, COCO tables, citation notices around the figure), so
the figure is found by the pattern of the model's script; the first match wins.
"""

from __future__ import annotations

import re

from mlperf_check.inference.logs import decode_lines
from mlperf_check.lean_dataclass import dataclass

PATTERNS = {
    "acc": re.compile(r"^accuracy=([\d.]+)%?"),
    "mAP": re.compile(r"^mAP=([\d.]+)%?"),
    "bleu": re.compile(r"^BLEU:\s*([\d.]+)"),
    # Python's dict repr (single quotes) is as good as JSON, as the official pattern has it.
    "F1": re.compile(r"""^\{["']exact_match["']:\s*[\d.]+,\s*["']f1["']:\s*([\d.]+)\}"""),
    # RNN-T prints the WER and accuracy = 100 - WER; the rule compares the accuracy.
    "WER": re.compile(r"Word Error Rate:\s*[\d.]+%?,\s*accuracy=([\d.]+)%?"),
    "AUC": re.compile(r"^AUC=([\d.]+)%?"),
    "mean": re.compile(r"Accuracy:\s*mean\s*=\s*([\d.]+)"),
}
HASH = re.compile(r"^hash=([0-9a-f]{64})\s*$")


@dataclass
class AccuracyOutput:
    value: float | None
    line: int | None
    hash: str = ""


def parse_accuracy(data: bytes, kind: str) -> AccuracyOutput:
    pattern = PATTERNS[kind]
    found = AccuracyOutput(None, None)
    for number, line in enumerate(decode_lines(data), start=1):
        text = line.strip()
        if found.value is None:
            match = pattern.search(text)
            if match:
                try:
                    found.value, found.line = float(match.group(1)), number
                except ValueError:
                    pass
        hashed = HASH.match(text)
        if hashed:
            found.hash = hashed.group(1)
    return found
