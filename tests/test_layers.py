"""What import-linter's layers contract (pyproject.toml) cannot see: a model looked up by name
while the code runs, `apps.get_model("results", "Result")`, is a dependency like an import. No
app looks up a model of an app above it (audit reads nothing of results: results/audit_log.py
holds the rule that needs both)."""

from __future__ import annotations

import ast
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
# Bottom first, as docs/architecture.md "The web apps" draws them.
LAYERS = ["audit", "results", "review", "ingest", "verify", "pages", "config"]


def models_looked_up(source: str) -> list[tuple[int, str]]:
    """(line, app label) of every get_model("app", ...) or get_model("app.Model") call."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "get_model":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((node.lineno, first.value.split(".")[0]))
    return found


def test_the_lookup_finder_finds_both_spellings():
    assert models_looked_up('apps.get_model("results", "Result")') == [(1, "results")]
    assert models_looked_up('get_model("results.Organization")') == [(1, "results")]


def test_no_app_looks_up_a_model_of_an_app_above_it():
    upward = []
    for rank, app in enumerate(LAYERS):
        above = set(LAYERS[rank + 1:])
        for path in sorted((REPOSITORY / app).rglob("*.py")):
            if "tests" in path.parts or "migrations" in path.parts:
                continue
            upward += [f"{path.relative_to(REPOSITORY)}:{line} -> {label}"
                       for line, label in models_looked_up(path.read_text()) if label in above]
    assert upward == []
