"""Every rule of the MLPerf Automotive v0.5 checker broken once, on a copy of the bundled real
round (sample_data/automotive-v0.5, the corpus's closed/NVIDIA byte for byte), and what the
official checker (mlcommons/mlperf_automotive tools/submission at 79b9c535) says of each copy.

    python -m mlperf_check.tests.automotive_mutations    # rewrites data/automotive/official_mutations_v0.5.json

runs the official checker on each mutated copy (mlperf_check/tests/official_checkers.py) and
records, per mutation, its verdict of every result and its reasons (the ERROR lines, less the
lines that only repeat that something failed, and the warning that says an accuracy is below
target). tests/test_automotive_mutations.py checks ours
against that file everywhere, and against a live run of the official checker where it is present.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from mlperf_check.tests.official_checkers import official_tools, run_checker

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data" / "automotive-v0.5"
DATA = Path(__file__).resolve().parent / "data" / "automotive" / "official_mutations_v0.5.json"
OFFICIAL_REPOSITORY = "mlcommons/mlperf_automotive"
OFFICIAL_COMMIT = "79b9c535d955cf9af4daedb9a814a9a8b5423b5a"
VERSION = "v0.5"

N = "closed/NVIDIA"
SYSTEM = f"{N}/systems/Thor-X_TRT.json"
RESULTS = f"{N}/results/Thor-X_TRT/bevformer"
MEASUREMENTS = f"{N}/measurements/Thor-X_TRT/bevformer"
COMPLIANCE = f"{N}/compliance/Thor-X_TRT/bevformer"
SS_RUN = f"{RESULTS}/SingleStream/performance/run_1"
SS_ACCURACY = f"{RESULTS}/SingleStream/accuracy"
CS_RUN = f"{RESULTS}/ConstantStream/performance/run_1"
SS_IMPLEMENTATION = f"{MEASUREMENTS}/SingleStream/Thor-X_TRT_SingleStream.json"
INJECTED_ERROR = (
    ':::MLLOG {"key": "error", "value": "injected by the mutation test", "time_ms": 1.0, "namespace": '
    '"mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true, "is_warning": false, '
    '"file": "test", "line_no": 1, "pid": 1, "tid": 1}}\n'
)
# The official lines that only repeat that something failed (the reason is on another line).
CASCADE = re.compile(
    r"( has issues$|^NoResults |measurement_dir has issues$|is OK but accuracy has issues$|, accuracy not valid$"
    r"|^SUMMARY: )"
)


class Mutation(NamedTuple):
    name: str
    what: str  # the rule it breaks, for people
    apply: Callable[[Path], None]
    stricter: tuple[str, ...] = ()  # our rules (finding codes) that reject it beyond the official checker


def _edit_json(path: str, change: Callable[[dict], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        file = root / path
        data = json.loads(file.read_text())
        change(data)
        file.write_text(json.dumps(data, indent=4))

    return apply


def _set(key: str, value) -> Callable[[dict], None]:
    return lambda data: data.__setitem__(key, value)


def _delete(key: str) -> Callable[[dict], None]:
    return lambda data: data.pop(key)


def _detail(path: str, key: str, value: str) -> Callable[[Path], None]:
    """The detail log's `key` record with `value` (JSON text) as its value."""

    def apply(root: Path) -> None:
        file = root / path / "mlperf_log_detail.txt"
        text, count = re.subn(rf'("key": "{re.escape(key)}", "value": )[^,]+,', rf"\g<1>{value},", file.read_text(), count=1)
        assert count == 1, key
        file.write_text(text)

    return apply


def _drop_detail_key(path: str, key: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        file = root / path / "mlperf_log_detail.txt"
        file.write_text("".join(line for line in file.read_text().splitlines(True) if f'"key": "{key}"' not in line))

    return apply


def _append(path: str, text: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        with open(root / path, "a") as file:
            file.write(text)

    return apply


def _write(path: str, text: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)

    return apply


def _remove(path: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        target = root / path
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return apply


def _rename(*pairs: tuple[str, str]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        for old, new in pairs:
            (root / old).rename(root / new)

    return apply


def _replace(path: str, old: str, new: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        text = (root / path).read_text()
        assert old in text, old
        (root / path).write_text(text.replace(old, new))

    return apply


def _all(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        for step in steps:
            step(root)

    return apply


def _mkdir(path: str) -> Callable[[Path], None]:
    return lambda root: (root / path).mkdir(parents=True)


def _symlink(path: str, target: str) -> Callable[[Path], None]:
    return lambda root: (root / path).symlink_to(target)


def _sparse(path: str, size: int) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        with open(root / path, "wb") as file:
            file.truncate(size)

    return apply


def _scenario_folders(old: str, new: str) -> Callable[[Path], None]:
    """A scenario's folder renamed in results/, measurements/ and compliance/."""
    return _rename(*((f"{base}/{old}", f"{base}/{new}") for base in (RESULTS, MEASUREMENTS, COMPLIANCE)))


MUTATIONS = [
    # The system description (check_results_dir, check_system_desc_id).
    Mutation("system_type", "system_type must be adas", _edit_json(SYSTEM, _set("system_type", "datacenter"))),
    Mutation("status", "status must be a known availability", _edit_json(SYSTEM, _set("status", "available"))),
    Mutation("system_field_missing", "every field of the system description", _edit_json(SYSTEM, _delete("cooling"))),
    Mutation("system_field_empty", "the meaningful fields are not empty", _edit_json(SYSTEM, _set("framework", ""))),
    Mutation("system_submitter", "the description's submitter is the folder's", _edit_json(SYSTEM, _set("submitter", "Other"))),
    Mutation("system_division", "the description's division is the folder's", _edit_json(SYSTEM, _set("division", "open"))),
    Mutation("network_mode", "a closed system is not over the network", _edit_json(SYSTEM, _set("is_network", "true"))),
    Mutation("system_missing", "systems/<system>.json exists", _remove(SYSTEM)),
    # LoadGen settings and results of the performance run (check_performance_dir).
    Mutation("qsl_rng_seed", "the round's LoadGen seeds", _detail(SS_RUN, "effective_qsl_rng_seed", "1")),
    Mutation("sample_index_rng_seed", "the round's LoadGen seeds", _detail(SS_RUN, "effective_sample_index_rng_seed", "2")),
    Mutation("schedule_rng_seed", "the round's LoadGen seeds", _detail(CS_RUN, "effective_schedule_rng_seed", "3")),
    Mutation("performance_sample_count", "performance_sample_count >= 256 (bevformer)",
             _detail(SS_RUN, "effective_performance_sample_count", "128")),
    Mutation("target_latency_percentile", "target_latency_percentile is 0.999",
             _detail(SS_RUN, "effective_target_latency_percentile", "0.99")),
    Mutation("server_constant_gen", "ConstantStream needs server_constant_gen",
             _detail(CS_RUN, "effective_server_constant_gen", "false")),
    Mutation("use_grouped_qsl", "bevformer needs use_grouped_qsl", _detail(SS_RUN, "effective_use_grouped_qsl", "false")),
    Mutation("min_duration", "min_duration >= 600,000 ms", _detail(SS_RUN, "effective_min_duration_ms", "60000")),
    Mutation("loadgen_invalid", "LoadGen's own verdict is VALID", _detail(SS_RUN, "result_validity", '"INVALID"')),
    Mutation("detail_error_performance", "no ERROR record in the performance detail log",
             _append(f"{SS_RUN}/mlperf_log_detail.txt", INJECTED_ERROR)),
    Mutation("detail_key_missing", "the detail log has the scenario (else the checker stops with an exception)",
             _drop_detail_key(SS_RUN, "effective_scenario")),
    Mutation("early_stopping_not_met", "early stopping met (the official checker logs it, accepts)",
             _detail(SS_RUN, "early_stopping_met", "false"), stricter=("early_stopping_not_met",)),
    # The accuracy folder (check_accuracy_dir).
    Mutation("accuracy_below_target", "mAP_3D >= 99% of 0.2683556",
             _replace(f"{SS_ACCURACY}/accuracy.txt", "mAP_3D:0.2672970244966856", "mAP_3D:0.25")),
    Mutation("accuracy_hash_missing", "accuracy.txt has the accuracy log's hash",
             lambda root: (root / SS_ACCURACY / "accuracy.txt").write_text("".join(
                 line for line in (root / SS_ACCURACY / "accuracy.txt").read_text().splitlines(True)
                 if not line.startswith("hash=")))),
    Mutation("accuracy_log_not_truncated", "mlperf_log_accuracy.json at most 10 KiB",
             _write(f"{SS_ACCURACY}/mlperf_log_accuracy.json", "[" + ",".join(["{}"] * 4000) + "]")),
    Mutation("detail_error_accuracy", "no ERROR record in the accuracy detail log",
             _append(f"{SS_ACCURACY}/mlperf_log_detail.txt", INJECTED_ERROR)),
    Mutation("accuracy_txt_missing", "accuracy/accuracy.txt exists", _remove(f"{SS_ACCURACY}/accuracy.txt")),
    Mutation("accuracy_file_missing", "the accuracy folder holds its four files",
             _remove(f"{SS_ACCURACY}/mlperf_log_summary.txt")),
    Mutation("accuracy_file_extra", "the accuracy folder holds its four files only",
             _write(f"{SS_ACCURACY}/notes.txt", "extra\n")),
    # The performance run folder.
    Mutation("run_file_missing", "run_1 holds the summary and detail logs", _remove(f"{SS_RUN}/mlperf_log_summary.txt")),
    Mutation("run_file_extra", "run_1 holds the LoadGen logs only", _write(f"{SS_RUN}/console.log", "extra\n")),
    Mutation("run_missing", "performance/run_1 exists", _rename((SS_RUN, SS_RUN.replace("run_1", "run_2")))),
    # The measurements folder and code (check_measurement_dir).
    Mutation("user_conf_empty", "measurements hold a non-empty user.conf",
             _write(f"{MEASUREMENTS}/SingleStream/user.conf", "")),
    Mutation("readme_missing", "measurements hold a README.md", _remove(f"{MEASUREMENTS}/SingleStream/README.md")),
    Mutation("implementation_missing", "measurements hold <system>_<scenario>.json", _remove(SS_IMPLEMENTATION)),
    Mutation("implementation_field_missing", "the implementation JSON's fields",
             _edit_json(SS_IMPLEMENTATION, _delete("retraining"))),
    Mutation("implementation_field_empty", "the implementation JSON's fields are not empty",
             _edit_json(SS_IMPLEMENTATION, _set("starting_weights_filename", ""))),
    Mutation("implementation_weight_types_missing", "weight_data_types (the official checker crashes without it)",
             _edit_json(SS_IMPLEMENTATION, _delete("weight_data_types"))),
    Mutation("measurements_missing", "measurements/<system>/<model>/<scenario> exists",
             _remove(f"{MEASUREMENTS}/SingleStream")),
    Mutation("code_missing", "code/<model> exists", _remove(f"{N}/code")),
    # Models and scenarios.
    Mutation("invalid_model", "a closed model is one of the round's",
             _rename((RESULTS, RESULTS.replace("bevformer", "resnet50")))),
    Mutation("invalid_scenario", "a closed scenario is required or optional (and SingleStream is required)",
             _scenario_folders("SingleStream", "Offline"), stricter=("required_scenario_missing",)),
    Mutation("lower_case_scenarios", "lower-case scenario folders are mapped",
             _all(_scenario_folders("SingleStream", "singlestream"), _scenario_folders("ConstantStream", "constantstream"))),
    Mutation("server_folder", "a `server` folder is ConstantStream", _scenario_folders("ConstantStream", "server")),
    Mutation("single_stream_missing", "the required scenario (the official test never fires)",
             _all(_remove(f"{RESULTS}/SingleStream"), _remove(f"{MEASUREMENTS}/SingleStream"),
                  _remove(f"{COMPLIANCE}/SingleStream")), stricter=("required_scenario_missing",)),
    # Compliance (the official checker reads none of it).
    Mutation("compliance_failed", "TEST04 passes (ours)",
             _replace(f"{COMPLIANCE}/SingleStream/TEST04/verify_performance.txt", "TEST PASS", "TEST FAIL"),
             stricter=("compliance_failed",)),
    Mutation("compliance_missing", "the compliance tests are there (ours)", _remove(f"{N}/compliance"),
             stricter=("compliance_missing",)),
    # The open division takes an accuracy below target.
    Mutation("open_accuracy_below_target", "the open division takes an accuracy below target",
             _all(_edit_json(SYSTEM, _set("division", "open")), _rename(("closed", "open")),
                  _replace(SS_ACCURACY.replace("closed/", "open/", 1) + "/accuracy.txt",
                           "mAP_3D:0.2672970244966856", "mAP_3D:0.25"))),
    # Whole-submitter and whole-round refusals (check_results_dir).
    Mutation("hidden_file", "no hidden file", _write(f"{N}/results/.DS_Store", "x")),
    Mutation("empty_folder", "no empty folder", _mkdir(f"{N}/documentation/empty")),
    Mutation("space_in_name", "no space in a name",
             _rename((f"{N}/documentation/calibration.md", f"{N}/documentation/calibration notes.md"))),
    Mutation("pycache", "no __pycache__ folder", _write(f"{N}/code/bevformer/__pycache__/x.pyc", "x")),
    Mutation("broken_symlink", "no broken symbolic link", _symlink(f"{N}/documentation/link.md", "missing.md")),
    Mutation("file_too_large", "no file over 50 MB", _sparse(f"{N}/documentation/large.bin", 51 * 1024 * 1024)),
    Mutation("root_extra_file", "only .md and .pdf files beside the division folders", _write("notes.txt", "x")),
    Mutation("division_extra_file", "no file beside the submitter folders", _write("closed/notes.txt", "x")),
]

def mutated_copy(mutation: Mutation, into: Path) -> Path:
    """A copy of the sample round with `mutation` applied: the round folder (`<into>/v0.5`)."""
    root = into / "v0.5"
    shutil.copytree(SAMPLE, root, symlinks=True)
    mutation.apply(root)
    return root


def result_folders(root: Path) -> list[str]:
    """Every results/<system>/<model>/<scenario> folder of the round, as the checker names them."""
    return sorted(str(p.relative_to(root)) for p in root.glob("*/*/results/*/*/*") if p.is_dir())


def official_outcome(tools: Path, root: Path, csv: Path) -> dict:
    """The official checker's verdict of every result of `root` and its reasons."""
    code, records = run_checker(tools, ["--input", str(root), "--version", VERSION, "--csv", str(csv)])
    texts = [text for _, text in records]
    crashed = code != 0 and not any(text.startswith("SUMMARY:") for text in texts)
    accepted = {m.group(1) for text in texts if (m := re.match(r"^Results (\S+) ", text))}
    verdicts = {folder: "CRASH" if crashed else ("VALID" if folder in accepted else "INVALID")
                for folder in result_folders(root)}
    reasons: list[str] = []
    in_values = False  # after "<log> contains errors:" the checker logs each ERROR record's value alone
    for level, text in records:
        text = text.split("\n")[0]
        if level == "WARNING" and " accuracy not met: " in text:
            reasons.append(text)  # the reason of "accuracy not valid", logged as a warning
            continue
        if level != "ERROR":
            continue
        if in_values and "/" not in text:
            reasons[-1] += f" {text}" if reasons[-1].endswith(":") else f"; {text}"
            continue
        in_values = text.endswith("contains errors:")
        if CASCADE.search(text):
            continue
        # An exception's text is Python's, not the checker's: its reason is where it stopped.
        reasons.append(re.sub(r"(caused exception in check_performance_dir:).*", r"\1", text))
    if crashed:
        reasons.append(next((line for line in reversed(records[-1][1].splitlines()) if line.strip()), "crash"))
    return {"verdicts": verdicts, "reasons": reasons}


def record() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tools = official_tools(OFFICIAL_REPOSITORY, OFFICIAL_COMMIT, Path(tmp))
        if tools is None:
            raise SystemExit(f"the official checker's repository is not under {Path(tmp)}: set MLPERF_OFFICIAL_REPOS")
        out = {
            "checker": f"github.com/{OFFICIAL_REPOSITORY} tools/submission/submission_checker.py @ {OFFICIAL_COMMIT[:8]}"
                       f" --version {VERSION}",
            "mutations": {},
        }
        for mutation in MUTATIONS:
            with tempfile.TemporaryDirectory() as work:
                root = mutated_copy(mutation, Path(work))
                outcome = official_outcome(tools, root, Path(work) / "summary.csv")
            out["mutations"][mutation.name] = {"what": mutation.what, **outcome}
            print(mutation.name, outcome)
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(json.dumps(out, indent=1, sort_keys=False) + "\n")
    print(f"wrote {DATA}")


if __name__ == "__main__":
    record()
