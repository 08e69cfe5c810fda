"""The checking core runs where Django and the web project cannot even be imported (a submitter's
laptop, the verification worker): every core module is imported and a sample folder is checked in
a fresh interpreter whose import system refuses them. `lint-imports` (pyproject.toml) checks the
same rule statically, in scripts/test.sh."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"

REFUSED = (
    "django",
    "rest_framework",
    "celery",
    "psycopg2",
    "config",
    "audit",
    "results",
    "ingest",
    "review",
    "verify",
    "pages",
)

PROGRAM = """
import importlib, json, pkgutil, sys

REFUSED = set(sys.argv[1].split(","))

class RefuseWebProject:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in REFUSED:
            raise ImportError(f"the checking core imported {name}")
        return None

sys.meta_path.insert(0, RefuseWebProject())
import mlperf_check
for module in pkgutil.walk_packages(mlperf_check.__path__, "mlperf_check."):
    if not module.name.startswith(("mlperf_check.tests", "mlperf_check.__main__")):
        importlib.import_module(module.name)
from mlperf_check.cli import main
status = main([sys.argv[2], "--format", "json", "--jobs", "2"])
assert not REFUSED & set(sys.modules), sorted(REFUSED & set(sys.modules))
sys.exit(status)
"""


def test_the_core_imports_and_checks_a_folder_with_django_unimportable():
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM, ",".join(REFUSED), str(SAMPLE / "training-v1.0/Fujitsu")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
    )
    assert completed.returncode == 0, completed.stderr
    document = json.loads(completed.stdout)
    assert (document["submitter"], document["ruleset"]) == ("Fujitsu", "1.0.0")
    assert document["results"][0]["score_minutes"] is not None


def test_the_refusal_works(tmp_path):
    """The same program fails when a core module does import Django (so the test above can fail)."""
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n" + PROGRAM.replace("import mlperf_check\n", "import mlperf_check\nimport django\n"),
            "django",
            "x",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
    )
    assert completed.returncode != 0
    assert "the checking core imported django" in completed.stderr
