"""Read one system description robustly and normalise it to the results.models.System columns.

Real descriptions are messy (see ../shared/corpus/MANIFEST.md): trailing commas, misspelled keys
("divison", "number of nodes", "system-type"), numbers written as strings, capitalised or
abbreviated divisions ("Closed", "close"), several status vocabularies, and the older v0.5
`entry.json` schema (a `nodes` list with counts) that some v0.6 submitters still used.

What is read is kept as written in SystemReport.description. Every repair or reading is
reported as a finding of the "system_description" checker; the SystemDescriptionChecker adds the
rule checks that depend on the ruleset.

Availability and deployment. `status` decides availability ("available", "preview",
"research") and, when it names one, the deployment: "cloud" / "Available cloud" -> cloud;
"onprem", "on-premise", "Available on-premise" -> on-premise. Statuses that name no deployment
("available", "preview", "research", the RDI wording) mean on-premise, except for systems that
exist only as a cloud service: Google TPUs (offered only through Google Cloud) and Huawei
ModelArts (Huawei Cloud's training service), recognised by the system's name, hardware or
accelerator (not its software: PCL's on-premise CloudBrain II runs ModelArts software). Those are
cloud, with an info finding saying why.
This classes Google's research and preview TPU pods and SIAT's ModelArts systems as cloud, as the
corpus MANIFEST does, and everything else without a cloud status as on-premise.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mlperf_check.finding_sources import checker_version
from mlperf_check.package import Package
from mlperf_check.report import ERROR, INFO, WARNING, Finding, SystemReport

CHECKER = "system_description"  # its entry in the checker registry

# The 33 fields the official system-description checker requires for training >= 1.0. They are a
# local list inside mlperf_logging.system_desc_checker.check_system_desc, not shipped data, so
# they are repeated here; ingest/tests/test_system_description.py compares this tuple with the
# list in the installed package's source.
REQUIRED_FIELDS: tuple[str, ...] = (
    "submitter",
    "division",
    "status",
    "system_name",
    "number_of_nodes",
    "host_processors_per_node",
    "host_processor_model_name",
    "host_processor_core_count",
    "host_processor_vcpu_count",
    "host_processor_frequency",
    "host_processor_caches",
    "host_processor_interconnect",
    "host_memory_capacity",
    "host_storage_type",
    "host_storage_capacity",
    "host_networking",
    "host_networking_topology",
    "host_memory_configuration",
    "accelerators_per_node",
    "accelerator_model_name",
    "accelerator_host_interconnect",
    "accelerator_frequency",
    "accelerator_on-chip_memories",
    "accelerator_memory_configuration",
    "accelerator_memory_capacity",
    "accelerator_interconnect",
    "accelerator_interconnect_topology",
    "cooling",
    "hw_notes",
    "framework",
    "other_software_stack",
    "operating_system",
    "sw_notes",
)
# Optional fields seen in real descriptions, listed so that their misspellings are recognised.
OPTIONAL_FIELDS: tuple[str, ...] = (
    "system_type",
    "system_type_detail",
    "framework_name",
    "host_network_card_count",
)
# The v0.5 entry.json schema (v0.5 packages, some v0.6 ones).
ENTRY_FIELDS: tuple[str, ...] = (
    "division",
    "status",
    "hardware",
    "framework",
    "power",
    "notes",
    "interconnect",
    "os",
    "libraries",
    "compilers",
    "nodes",
)
ENTRY_REQUIRED_FIELDS: tuple[str, ...] = ("division", "status", "hardware", "framework", "nodes")
# The only status values the official checker accepts from training 4.0 on.
STATUS_OPTIONS: tuple[str, ...] = (
    "Available on-premise",
    "Available cloud",
    "Research, Development, or Internal (RDI)",
    "Preview",
)

MAX_DESCRIPTION_BYTES = 1024 * 1024  # real descriptions are a few KB
MAX_COUNT = 10_000_000  # nodes, processors or accelerators; keeps products inside the DB's integer range
UTF8_BOM = b"\xef\xbb\xbf"

DIVISIONS = {"closed": "closed", "close": "closed", "open": "open"}
RESEARCH_WORDS = frozenset({"research", "development", "internal", "rdi"})
ON_PREMISE_WORDS = frozenset({"onprem", "premise", "premises", "prem"})
CLOUD_ONLY_MARKERS: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"\btpu", re.IGNORECASE), "Google TPUs are offered only as a Google Cloud service"),
    (re.compile(r"modelarts", re.IGNORECASE), "ModelArts is Huawei Cloud's training service"),
)

# Codes after which nothing of the file could be used.
UNREADABLE_CODES = frozenset(
    {"SYSTEM_FILE_UNREADABLE", "SYSTEM_FILE_TOO_LARGE", "SYSTEM_JSON_INVALID", "SYSTEM_JSON_NOT_OBJECT"}
)
MISSPELLED = "SYSTEM_FIELD_MISSPELLED"


def is_entry_schema(description: dict[str, Any]) -> bool:
    """The v0.5 entry.json schema: hardware described by a `nodes` list, no number_of_nodes."""
    return isinstance(description.get("nodes"), list) and "number_of_nodes" not in description


def load_system(package: Package, system_id: str) -> SystemReport:
    """Read package.system_files[system_id]. Never raises on the file's content; an unknown
    system id is the caller's error (KeyError)."""
    rel = package.system_files[system_id]
    reader = _Reader(package, rel)
    text = reader.read_text()
    parsed = reader.parse(text) if text is not None else None
    if parsed is not None and not isinstance(parsed, dict):
        reader.add(
            ERROR,
            "SYSTEM_JSON_NOT_OBJECT",
            f"{rel} holds a JSON {type(parsed).__name__}; a system description is a JSON object of fields",
            line=1,
        )
    description = parsed if isinstance(parsed, dict) else {}
    if is_entry_schema(description):
        reader.resolve_spellings(description, ENTRY_FIELDS)
        normalized = reader.normalize_entry(system_id)
    else:
        reader.resolve_spellings(description, REQUIRED_FIELDS + OPTIONAL_FIELDS)
        normalized = reader.normalize(system_id)
    return SystemReport(
        system_id=system_id,
        file=rel,
        description=description,
        normalized=normalized,
        findings=reader.findings,
    )


def was_unreadable(system: SystemReport) -> bool:
    """Nothing of the description could be read (the findings say why)."""
    return not system.description and any(f.code in UNREADABLE_CODES for f in system.findings)


class _Reader:
    """Reads one description file, collecting findings on the way."""

    def __init__(self, package: Package, rel: str) -> None:
        self.package = package
        self.rel = rel
        self.text = ""
        self.findings: list[Finding] = []
        self.fields: dict[str, Any] = {}  # canonical field name -> value (misspellings resolved)
        self.written: dict[str, str] = {}  # canonical field name -> key as written

    def add(self, severity: str, code: str, message: str, *, file: str = "", **where) -> None:
        self.findings.append(
            Finding(
                severity,
                code,
                message,
                file=file or self.rel,
                checker=CHECKER,
                checker_version=checker_version(CHECKER),
                **where,
            )
        )

    # -- bytes -> text -> JSON --------------------------------------------------------------------

    def read_text(self) -> str | None:
        data = self._read_bytes(self.rel)
        if data is None:
            return None
        if data.startswith(UTF8_BOM):
            self.add(
                WARNING,
                "SYSTEM_ENCODING",
                f"{self.rel} starts with a UTF-8 byte-order mark, which the official tools' JSON reader "
                "rejects; it was read without it",
                line=1,
            )
            data = data[len(UTF8_BOM) :]
        try:
            self.text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.add(
                WARNING,
                "SYSTEM_ENCODING",
                f"{self.rel} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                "it was read as Latin-1",
                line=data.count(b"\n", 0, exc.start) + 1,
                expected="UTF-8",
                actual="Latin-1",
            )
            self.text = data.decode("latin-1")
        return self.text

    def _read_bytes(self, rel: str) -> bytes | None:
        try:
            data = self.package.read_at_most(rel, MAX_DESCRIPTION_BYTES)
        except (OSError, ValueError) as exc:
            self.add(ERROR, "SYSTEM_FILE_UNREADABLE", f"cannot read {rel}: {exc}", file=rel)
            return None
        if len(data) > MAX_DESCRIPTION_BYTES:
            self.add(
                ERROR,
                "SYSTEM_FILE_TOO_LARGE",
                f"{rel} is larger than {MAX_DESCRIPTION_BYTES} bytes; a system description is a few KB",
                file=rel,
                expected=f"at most {MAX_DESCRIPTION_BYTES} bytes",
            )
            return None
        return data

    def parse(self, text: str) -> Any:
        value, error, duplicates = _loads(text)
        if error is not None:
            self.add(
                ERROR,
                "SYSTEM_JSON_INVALID",
                f"{self.rel} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}; "
                "the official tools cannot read it",
                line=error.lineno,
            )
            repaired, comma_lines = remove_trailing_commas(text)
            if not comma_lines:
                return None
            value, retry_error, duplicates = _loads(repaired)
            if retry_error is not None:
                return None
            lines = ", ".join(str(line) for line in comma_lines)
            self.add(
                WARNING,
                "SYSTEM_JSON_REPAIRED",
                f"{self.rel} was read after removing the trailing comma(s) on line(s) {lines}",
                line=comma_lines[0],
            )
        for key in dict.fromkeys(duplicates):
            self.add(
                WARNING,
                "SYSTEM_FIELD_DUPLICATE",
                f'{self.rel} has the key "{key}" more than once; the last value is used, as by the official tools',
                line=self._key_line(key, occurrence=1),
                key=key,
            )
        return value

    # -- field names --------------------------------------------------------------------------------

    def resolve_spellings(self, description: dict[str, Any], known: tuple[str, ...]) -> None:
        self.fields = dict(description)
        self.written = {key: key for key in description}
        for key in description:
            if key in known:
                continue
            target = _misspelling_of(key, known)
            if target is None or target in self.fields:
                continue
            self.fields[target] = description[key]
            self.written[target] = key
            self.add(
                WARNING,
                MISSPELLED,
                f'{self.rel} spells the field "{target}" as "{key}"; its value is used as {target}',
                line=self._key_line(key),
                key=key,
                expected=target,
                actual=key,
            )

    def _key_line(self, key: str, occurrence: int = 0) -> int | None:
        matches = list(re.finditer(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", self.text))
        if len(matches) <= occurrence:
            return None
        return self.text.count("\n", 0, matches[occurrence].start()) + 1

    # -- the standard schema ------------------------------------------------------------------------

    def normalize(self, system_id: str) -> dict[str, Any]:
        fields = self.fields
        nodes = self._count("number_of_nodes")
        processors_per_node = self._count("host_processors_per_node")
        accelerators_per_node = self._count("accelerators_per_node")
        status_raw = _text(fields.get("status"))
        availability, deployment = self._category(status_raw, system_id)
        name = _text(fields.get("system_name")) or system_id
        if name == "tpu-v3" and accelerators_per_node is not None:
            name = f"TPUv3.{2 * accelerators_per_node}"  # as result_summarizer._pretty_system_name
        accelerator = _text(fields.get("accelerator_model_name"))
        if accelerator == "tpu-v3":
            accelerator = "TPUv3"  # as result_summarizer._pretty_accelerator_model_name
        return {
            "name": name,
            "submitter": _text(fields.get("submitter")),
            "division": self._division(),
            "status_raw": status_raw,
            "availability": availability,
            "deployment": deployment,
            "number_of_nodes": nodes,
            "host_processor_model_name": _text(fields.get("host_processor_model_name")),
            "host_processors_per_node": processors_per_node,
            "host_processors_count": self._product(processors_per_node, nodes, "host_processors_count"),
            "accelerator_model_name": accelerator,
            "accelerators_per_node": accelerators_per_node,
            "accelerators_count": self._product(accelerators_per_node, nodes, "accelerators_count"),
            "framework": _pretty_framework(_text(fields.get("framework"))),
            "notes": ";".join(
                text for text in (_text(fields.get("hw_notes")), _text(fields.get("sw_notes"))) if text
            ),
        }

    # -- the v0.5 entry.json schema -------------------------------------------------------------------

    def normalize_entry(self, system_id: str) -> dict[str, Any]:
        fields = self.fields
        groups = [group for group in fields.get("nodes", []) if isinstance(group, dict)]
        node_counts = [self._count("num_nodes", group, occurrence=i) for i, group in enumerate(groups)]
        accelerator_counts = [
            self._count("num_accelerators", group, occurrence=i) for i, group in enumerate(groups)
        ]
        known = bool(groups) and None not in node_counts
        nodes = self._bounded(sum(node_counts), "number_of_nodes") if known else None
        per_node = set(accelerator_counts)
        accelerators_per_node = per_node.pop() if len(per_node) == 1 else None
        accelerators_count = None
        if known and None not in accelerator_counts:
            total = sum(n * a for n, a in zip(node_counts, accelerator_counts, strict=True))
            accelerators_count = self._bounded(total, "accelerators_count")
        status_raw = _text(fields.get("status"))
        availability, deployment = self._category(status_raw, system_id)
        return {
            "name": _text(fields.get("hardware")) or system_id,
            "submitter": self._submitter_from_submission_json(),
            "division": self._division(),
            "status_raw": status_raw,
            "availability": availability,
            "deployment": deployment,
            "number_of_nodes": nodes,
            "host_processor_model_name": _joined_unique(group.get("cpu") for group in groups),
            # entry.json counts cores, not processors per node
            "host_processors_per_node": None,
            "host_processors_count": None,
            "accelerator_model_name": _joined_unique(group.get("accelerator") for group in groups),
            "accelerators_per_node": accelerators_per_node,
            "accelerators_count": accelerators_count,
            "framework": _text(fields.get("framework")),
            "notes": _text(fields.get("notes")),
        }

    def _submitter_from_submission_json(self) -> str:
        """v0.5 names the organisation in the nearest submission.json above the entry.json."""
        folders = self.rel.split("/")[:-1]
        for depth in range(len(folders), -1, -1):
            rel = "/".join([*folders[:depth], "submission.json"])
            try:
                data = self.package.read_at_most(rel, MAX_DESCRIPTION_BYTES)
            except (OSError, ValueError):
                continue
            value, error, _ = _loads(data.decode("utf-8", "replace"))
            if isinstance(value, dict) and isinstance(value.get("org"), str):
                return value["org"].strip()
            reason = f"{error.msg} at line {error.lineno}" if error else 'it has no "org" text'
            self.add(
                WARNING,
                "SYSTEM_SUBMITTER_UNKNOWN",
                f"cannot read the submitter of {self.rel} from {rel}: {reason}",
                file=rel,
                line=error.lineno if error else None,
                key="org",
            )
            return ""
        return ""

    # -- values ---------------------------------------------------------------------------------------

    def _count(self, key: str, fields: dict[str, Any] | None = None, occurrence: int = 0) -> int | None:
        """A whole number >= 0: an int, an integral float or a string of digits. Missing -> None
        without a finding (the checker reports missing fields)."""
        fields = self.fields if fields is None else fields
        if key not in fields:
            return None
        value = fields[key]
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        elif isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
            if len(value.strip()) > len(str(MAX_COUNT)):  # also keeps int() below its 4300-digit limit
                return self._out_of_range(key, _short(value))
            number = int(value)
        written = self.written.get(key, key) if fields is self.fields else key
        if number is None or number < 0:
            spelled = f' (written "{written}")' if written != key else ""
            self.add(
                ERROR,
                "SYSTEM_FIELD_NOT_NUMERIC",
                f"{key}{spelled} in {self.rel} is {_short(value)}; expected a whole number >= 0 "
                "(the official summarizer cannot compute the system's counts from it)",
                line=self._key_line(written, occurrence),
                key=key,
                expected="a whole number >= 0",
                actual=_short(value),
            )
            return None
        return self._bounded(number, key)

    def _bounded(self, number: int, key: str) -> int | None:
        return number if number <= MAX_COUNT else self._out_of_range(key, str(number))

    def _out_of_range(self, key: str, actual: str) -> None:
        self.add(
            ERROR,
            "SYSTEM_FIELD_OUT_OF_RANGE",
            f"{key} of {self.rel} comes to {actual}, more than any real system has (at most {MAX_COUNT})",
            line=self._key_line(self.written.get(key, key)),
            key=key,
            expected=f"at most {MAX_COUNT}",
            actual=actual,
        )
        return None

    def _product(self, per_node: int | None, nodes: int | None, key: str) -> int | None:
        if per_node is None or nodes is None:
            return None
        return self._bounded(per_node * nodes, key)

    def _division(self) -> str:
        if "division" not in self.fields:
            return ""
        written = _text(self.fields["division"])
        division = DIVISIONS.get(written.strip().lower())
        line = self._key_line(self.written.get("division", "division"))
        if division is None:
            self.add(
                ERROR,
                "SYSTEM_DIVISION_UNKNOWN",
                f'division of {self.rel} is {_short(self.fields["division"])}; expected "closed" or "open"',
                line=line,
                key="division",
                expected="closed | open",
                actual=written,
            )
            return ""
        if written != division:
            consequence = (
                'the official package checker treats only the exact value "closed" as the closed division '
                "and would skip its seed and RCP checks"
                if division == "closed"
                else 'the official tools expect "open"'
            )
            self.add(
                WARNING,
                "SYSTEM_DIVISION_NORMALIZED",
                f'division "{written}" of {self.rel} is read as "{division}"; {consequence}',
                line=line,
                key="division",
                expected=division,
                actual=written,
            )
        return division

    def _category(self, status: str, system_id: str) -> tuple[str, str]:
        """(availability, deployment) from the status; see the module docstring."""
        if not status.strip():
            return "unknown", "unknown"
        words = set(re.findall(r"[a-z]+", status.lower()))
        if "preview" in words:
            availability = "preview"
        elif words & RESEARCH_WORDS:
            availability = "research"
        elif words & ({"available", "cloud"} | ON_PREMISE_WORDS):
            availability = "available"
        else:
            self.add(
                WARNING,
                "SYSTEM_STATUS_UNKNOWN",
                f"status {_short(status)} of {self.rel} names no known category; expected one of: "
                + ", ".join(f'"{option}"' for option in STATUS_OPTIONS)
                + ' (or, before 4.0, "available", "onprem", "cloud", "preview", "research")',
                line=self._key_line(self.written.get("status", "status")),
                key="status",
                actual=status,
            )
            return "unknown", "unknown"
        if "cloud" in words:
            return availability, "cloud"
        if words & ON_PREMISE_WORDS:
            return availability, "onprem"
        # The system itself, not its software: PCL's on-premise CloudBrain II also runs ModelArts software.
        evidence = " ".join(
            _text(self.fields.get(key)) for key in ("system_name", "hardware", "accelerator_model_name")
        )
        for pattern, reason in CLOUD_ONLY_MARKERS:
            if pattern.search(evidence) or pattern.search(system_id):
                self.add(
                    INFO,
                    "SYSTEM_DEPLOYMENT_INFERRED",
                    f"status {_short(status)} of {self.rel} does not say where the system runs; it is "
                    f"classed as cloud because {reason}",
                    key="status",
                    actual=status,
                )
                return availability, "cloud"
        return availability, "onprem"


def remove_trailing_commas(text: str) -> tuple[str, list[int]]:
    """The text without commas that directly precede a closing } or ] (outside strings), and the
    1-based lines of the removed commas. Nothing else is changed."""
    out: list[str] = []
    removed_lines: list[int] = []
    line = 1
    in_string = escaped = False
    previous = ""  # last character outside strings that is not whitespace
    comma: tuple[int, int] | None = None  # (index in out, line) of a comma that may be trailing
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                previous = '"'
        elif char in "}]" and comma is not None:
            out[comma[0]] = ""
            removed_lines.append(comma[1])
            comma = None
            previous = char
        elif char == ",":
            # only a comma after a value can be trailing ("[," and ",," are other errors)
            comma = (len(out), line) if previous not in ("", "[", "{", ",") else None
            previous = char
        elif char == '"':
            in_string = True
            comma = None
        elif not char.isspace():
            comma = None
            previous = char
        out.append(char)
        if char == "\n":
            line += 1
    return "".join(out), removed_lines


def _loads(text: str) -> tuple[Any, json.JSONDecodeError | None, list[str]]:
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in items:
            if key in obj:
                duplicates.append(key)
            obj[key] = value
        return obj

    try:
        return json.loads(text, object_pairs_hook=pairs), None, duplicates
    except json.JSONDecodeError as exc:
        return None, exc, duplicates
    except RecursionError:
        return None, json.JSONDecodeError("nested too deeply", text, 0), duplicates
    except ValueError as exc:  # an integer of more than 4300 digits (int_max_str_digits)
        return None, json.JSONDecodeError(str(exc), text, 0), duplicates


def _canonical(key: str) -> str:
    return re.sub(r"[\s\-]+", "_", key.strip().lower())


def _misspelling_of(key: str, known: tuple[str, ...]) -> str | None:
    """The known field a key stands for: the same name up to case, spaces and hyphens, or (for
    names of 6+ characters) one letter inserted, deleted, replaced or two swapped. None when no
    field or several fields fit."""
    canonical = _canonical(key)
    same = [field for field in known if _canonical(field) == canonical]
    if len(same) == 1:
        return same[0]
    if len(canonical) < 6:
        return None
    close = [field for field in known if _one_edit_apart(canonical, _canonical(field))]
    return close[0] if len(close) == 1 else None


def _one_edit_apart(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]  # one inserted letter
    if a[i + 1 :] == b[i + 1 :]:
        return True  # one replaced letter
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]  # swapped


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, ensure_ascii=False)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _joined_unique(values) -> str:
    return "; ".join(dict.fromkeys(text for text in map(_text, values) if text))


def _pretty_framework(framework: str) -> str:
    """As result_summarizer._pretty_framework: TensorFlow commit hashes are dropped."""
    if "TensorFlow" in framework:
        return re.sub(r" commit hash = .*", "", framework)
    return framework
