"""The real Endpoints-client results of Inference v6.1 (data/inference/endpoints_v6.1, README.md
there), made into a submitter folder the official checker reads, and each rule of the
Endpoints-client path broken once on a copy of it.

The official checker (mlcommons/inference b66003e, tools/submission/submission_checker) is run on
the same copies where its repository is on this machine (official_checkers.py);
`python -m mlperf_check.tests.endpoints_mutations` records what it says into
data/inference/endpoints_v6.1/official.json, which the tests compare ours with everywhere.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from mlperf_check.tests.official_checkers import LOG_LINE, official_tree

DATA = Path(__file__).parent / "data" / "inference" / "endpoints_v6.1"
RECORDED = DATA / "official.json"
REPOSITORY, COMMIT = "mlcommons/inference", "b66003e1"
SYSTEM = "VR-NVL72_VR-288GB_aarch64x72_TRT"
RESULTS = f"closed/NVIDIA/results/{SYSTEM}"


def submission(into: Path) -> Path:
    """The real files under `into`, with what the stored copy of the repository lacks and the
    official checker asks for (docs in README.md): a README.md in each scenario folder, the
    model's measurements.json in the scenario folders without one, and the submitter's src/."""
    shutil.copytree(DATA / "closed", into / "closed")
    results = into / RESULTS
    for scenario in results.glob("*/*"):
        (scenario / "README.md").write_text(
            "# How this result was made (placeholder: not in the stored copy)\n"
        )
        if not (scenario / "measurements.json").is_file():
            shipped = next(scenario.parent.glob("*/measurements.json"))
            shutil.copyfile(shipped, scenario / "measurements.json")
    (into / "closed" / "NVIDIA" / "src").mkdir()
    (into / "closed" / "NVIDIA" / "src" / "README.md").write_text("# The code (placeholder)\n")
    return into


def _json_edit(path: Path, edit: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _summary(model: str, scenario: str) -> str:
    return f"{RESULTS}/{model}/{scenario}/performance/result_summary.json"


def _accuracy(model: str, scenario: str) -> str:
    return f"{RESULTS}/{model}/{scenario}/accuracy/accuracy_results.json"


def _config(model: str, scenario: str) -> str:
    return f"{RESULTS}/{model}/{scenario}/config.yaml"


def _set(*path, value):
    def edit(data: dict) -> None:
        for key in path[:-1]:
            data = data[key]
        data[path[-1]] = value

    return edit


def _score(value):
    def edit(data: dict) -> None:
        data["accuracy_scores"][0]["score"] = value

    return edit


# name -> (the result it breaks, the edit, our finding code): each rule of the path broken once.
# OFFICIAL_REASONS below names the words of the official checker's reason for each.
MUTATIONS: dict[str, tuple[str, Callable[[Path], None], str]] = {
    "wrong_sample_index_seed": (
        "deepseek-r1/Offline",
        lambda root: _replace(
            root / _config("deepseek-r1", "Offline"),
            "dataloader_random_seed: 2747215439041700203",
            "dataloader_random_seed: 1",
        ),
        "wrong_seed",
    ),
    "wrong_schedule_seed": (
        "qwen3-vl-235b-a22b/Server",
        lambda root: _replace(
            root / _config("qwen3-vl-235b-a22b", "Server"),
            "scheduler_random_seed: 16159082839903944936",
            "scheduler_random_seed: 2",
        ),
        "wrong_seed",
    ),
    "short_min_duration": (
        "qwen3-vl-235b-a22b/Offline",
        lambda root: _replace(
            root / _config("qwen3-vl-235b-a22b", "Offline"),
            "min_duration_ms: 600000",
            "min_duration_ms: 599999",
        ),
        "min_duration",
    ),
    "failed_samples": (
        "deepseek-r1/Server",
        lambda root: _json_edit(root / _summary("deepseek-r1", "Server"), _set("n_samples_failed", value=3)),
        "endpoints_failed_samples",
    ),
    "ttft_over_the_interactive_limit": (
        "deepseek-r1/Interactive",
        lambda root: _json_edit(
            root / _summary("deepseek-r1", "Interactive"),
            _set("ttft", "early_stopping_percentiles", "99.0", value=1500000000.0),
        ),
        "token_latency",
    ),
    "tpot_over_the_server_limit": (
        "deepseek-r1/Server",
        lambda root: _json_edit(
            root / _summary("deepseek-r1", "Server"),
            _set("tpot", "early_stopping_percentiles", "99.0", value=80000001.0),
        ),
        "token_latency",
    ),
    "latency_over_the_interactive_bound": (
        "qwen3-vl-235b-a22b/Interactive",
        lambda root: _json_edit(
            root / _summary("qwen3-vl-235b-a22b", "Interactive"),
            _set("latency", "early_stopping_percentiles", "99.0", value=1500000001.0),
        ),
        "latency_bound",
    ),
    "qwen_accuracy_below_target": (
        "qwen3-vl-235b-a22b/Server",
        lambda root: _json_edit(root / _accuracy("qwen3-vl-235b-a22b", "Server"), _score(0.78)),
        "accuracy_target",
    ),
    "deepseek_accuracy_below_target": (
        "deepseek-r1/Offline",
        lambda root: _json_edit(root / _accuracy("deepseek-r1", "Offline"), _score(80.0)),
        "endpoints_accuracy_unchecked",
    ),
    "no_accuracy_score": (
        "deepseek-r1/Interactive",
        lambda root: _json_edit(
            root / _accuracy("deepseek-r1", "Interactive"), _set("accuracy_scores", value=[])
        ),
        "accuracy_missing",
    ),
    "accuracy_run_short_of_the_dataset": (
        "qwen3-vl-235b-a22b/Interactive",
        lambda root: _json_edit(
            root / _accuracy("qwen3-vl-235b-a22b", "Interactive"),
            lambda data: data["accuracy_scores"][0].update(total_samples=7999),
        ),
        "accuracy_coverage",
    ),
    "offline_load_in_the_server_folder": (
        "deepseek-r1/Server",
        lambda root: _replace(root / _config("deepseek-r1", "Server"), "type: online", "type: offline"),
        "scenario_mismatch",
    ),
    "no_offline_folder": (
        "deepseek-r1/Server",
        lambda root: shutil.rmtree(root / RESULTS / "deepseek-r1" / "Offline"),
        "required_scenarios",
    ),
}


# The words of the official checker's reason for each mutation ("" where it accepts the result).
OFFICIAL_REASONS = {
    "wrong_sample_index_seed": "sample_index_rng_seed is wrong",
    "wrong_schedule_seed": "schedule_rng_seed is wrong",
    "short_min_duration": "Test duration less than 600s",
    "failed_samples": "",
    "ttft_over_the_interactive_limit": "Failed extra check for TTFT and TPOT",
    "tpot_over_the_server_limit": "Failed extra check for TTFT and TPOT",
    "latency_over_the_interactive_bound": "Latency constraint not met",
    "qwen_accuracy_below_target": "accuracy not met",
    "deepseek_accuracy_below_target": "",
    "no_accuracy_score": "accuracy score not found",
    "accuracy_run_short_of_the_dataset": "does not cover all dataset",
    "offline_load_in_the_server_folder": "Result can not be inferred",
    "no_offline_folder": "does not have all required scenarios",
}


def run_official(root: Path, tools: Path) -> dict[str, dict]:
    """The official checker on a submission: per result (`<model>/<scenario>`), its verdict (in
    the summary CSV or not), figure and unit, and the ERROR and WARNING lines it logged while
    checking that result (a line without a path belongs to the result the log last named)."""
    import subprocess

    out = root.parent / "summary.csv"
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "submission_checker.main",
            "--input",
            str(root),
            "--version",
            "v6.1",
            "--csv",
            str(out),
        ],
        cwd=tools.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    folders = sorted(str(p.relative_to(root / RESULTS)) for p in (root / RESULTS).glob("*/*"))
    reasons: dict[str, set[str]] = {name: set() for name in folders}
    current = None
    for match in map(LOG_LINE.match, (process.stderr + process.stdout).splitlines()):
        if not match:
            continue
        level, text = match.group(1) or match.group(2), match.group(3).replace(f"{root}/", "")
        named = [name for name in folders if f"{RESULTS}/{name}/" in text]
        current = named[0] if named else current
        quiet = any(
            part in text for part in ("skipped for", "Multiple messages", "SUMMARY:")
        ) or text.startswith("NoResults")
        if level in ("ERROR", "WARNING") and current and not quiet:
            reasons[current].add(text)
    rows = (
        {f"{row['Model']}/{row['Scenario']}": row for row in csv.DictReader(out.open())}
        if out.is_file()
        else {}
    )
    return {
        name: {
            "official": "VALID" if name in rows else "INVALID",
            "figure": float(rows[name]["Result"]) if name in rows else None,
            "unit": rows[name]["Units"] if name in rows else "",
            "reasons": sorted(reasons[name]),
        }
        for name in folders
    }


def record() -> None:
    """Run the official checker on the real folders and on every mutation; write official.json."""
    with tempfile.TemporaryDirectory() as tmp:
        tools = official_tree(
            REPOSITORY, COMMIT, "tools/submission/submission_checker", Path(tmp) / "official"
        )
        if tools is None:
            raise SystemExit("no mlcommons/inference repository under $MLPERF_OFFICIAL_REPOS")
        recorded = {"checker": f"{REPOSITORY} {COMMIT} tools/submission/submission_checker (--version v6.1)"}
        recorded["real"] = run_official(submission(Path(tmp) / "real"), tools)
        recorded["mutations"] = {}
        for name, (result, mutate, _) in MUTATIONS.items():
            root = submission(Path(tmp) / name)
            mutate(root)
            recorded["mutations"][name] = {
                "result": result,
                **run_official(root, tools).get(result, {"official": "ABSENT"}),
            }
    RECORDED.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    record()
