"""The suite is a seam (docs/architecture.md "Adding a suite"): outside the suite packages no code
and no template tests which suite a round is, every layer's registry names the same suites, and
each registered suite offers every member of its layer's interface.

A suite branch is a comparison with a `Suite` member (`round_.suite == Suite.HPC`), a suite's
name compared with a suite (`x.suite != "inference"`, `suite in ("training", "hpc")`), or a
query on one suite by name (`.filter(round__suite=Suite.INFERENCE)`); in a template, a `.suite`
compared with anything. What varies by suite is asked of the suite's object instead.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from results.constants import Suite

REPOSITORY = Path(__file__).resolve().parent.parent
# Where code may name one suite: the suite packages of each layer, and the tests.
SUITE_PACKAGES = ("mlperf_check/suites/", "results/suites/", "pages/suites/")
NOT_SCANNED = (".venv/", "node_modules/", "staticfiles/", "media/", "var/", "test-output/")
SUITE_NAMES = set(Suite.values)
_NAME = "|".join(Suite.values)
TEMPLATE_BRANCH = re.compile(rf"""\.suite\s*(==|!=|\bnot in\b|\bin\b)\s*["']({_NAME})["']|["']({_NAME})["']\s*(==|!=)\s*[\w.]*\.suite\b""")


def _scanned(path: Path) -> bool:
    relative = path.relative_to(REPOSITORY).as_posix()
    return not (relative.startswith(NOT_SCANNED + SUITE_PACKAGES) or "/tests/" in f"/{relative}"
                or "/migrations/" in relative)


def python_files() -> list[Path]:
    return [path for path in sorted(REPOSITORY.rglob("*.py")) if _scanned(path)]


def template_files() -> list[Path]:
    """Every file of a templates/ folder (HTML, Atom, text)."""
    return [path for path in sorted(REPOSITORY.rglob("templates/**/*")) if path.is_file() and _scanned(path)]


def _suite_member(node: ast.AST) -> bool:
    """A Suite member (`Suite.HPC`), or a tuple, list or set holding one."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_suite_member(item) for item in node.elts)
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Suite" \
        and node.attr in Suite.names


def _suite_name(node: ast.AST) -> bool:
    """A suite's name ("hpc"), or a tuple, list or set holding one."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_suite_name(item) for item in node.elts)
    return isinstance(node, ast.Constant) and node.value in SUITE_NAMES


def _is_a_suite(node: ast.AST) -> bool:
    """Something's suite: `x.suite`, or a variable named `suite`."""
    return (isinstance(node, ast.Attribute) and node.attr == "suite") or (isinstance(node, ast.Name) and node.id == "suite")


def suite_branches(source: str) -> list[int]:
    """The lines of `source` that branch on one suite."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(map(_suite_member, operands)) or (any(map(_suite_name, operands)) and any(map(_is_a_suite, operands))):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            lines += [keyword.value.lineno for keyword in node.keywords if keyword.arg and keyword.arg.endswith("suite")
                      and (_suite_member(keyword.value) or _suite_name(keyword.value))]
    return lines


def test_the_detector_finds_each_kind_of_suite_branch():
    """The test below is only as good as this: each spelling of a branch is found, and what merely
    passes a suite along is not."""
    branches = [
        "if round_.suite == Suite.INFERENCE: pass",
        "if Suite.HPC != upload.round.suite: pass",
        "x = suite in (Suite.TRAINING, Suite.HPC)",
        "x = kind in {Suite.TRAINING}",
        'if result.submission.round.suite == "hpc": pass',
        'x = "inference" if suite != "inference" else ""',
        "Result.objects.filter(submission__round__suite=Suite.INFERENCE)",
        'Round.objects.filter(suite="training")',
    ]
    for source in branches:
        assert suite_branches(source), source
    neutral = [
        "pages = SUITES[round_.suite]",
        "x = [r for r in rounds if r.suite == wanted]",
        'if usage == "hpc": pass',  # not a suite: mlperf-logging's ruleset usage
        "Result.objects.filter(submission__round__suite=round_.suite)",
        "label = Suite(value).label",
    ]
    for source in neutral:
        assert not suite_branches(source), source
    assert TEMPLATE_BRANCH.search('{% if round.suite == "hpc" %}')
    assert TEMPLATE_BRANCH.search("{% if round.suite != 'inference' %}")
    assert TEMPLATE_BRANCH.search('{% if "hpc" == round.suite %}')
    assert not TEMPLATE_BRANCH.search("{{ round.get_suite_display }} v{{ round.version }}")
    assert not TEMPLATE_BRANCH.search("{% if values.suite == value %} selected{% endif %}")


def test_no_code_outside_the_suite_packages_branches_on_a_suite():
    found = {}
    for path in python_files():
        lines = suite_branches(path.read_text())
        if lines:
            found[path.relative_to(REPOSITORY).as_posix()] = lines
    assert found == {}, f"suite branches outside {', '.join(SUITE_PACKAGES)} (ask the suite instead): {found}"


def test_no_template_branches_on_a_suite():
    found = {}
    for path in template_files():
        lines = [number for number, line in enumerate(path.read_text().splitlines(), 1) if TEMPLATE_BRANCH.search(line)]
        if lines:
            found[path.relative_to(REPOSITORY).as_posix()] = lines
    assert found == {}, f"templates that test a suite (give the view the suite's own template or words): {found}"


def test_every_layer_registers_the_same_suites():
    """The checking core's, the results database's and the pages' registries; the two web ones in
    the order of Suite (the home page shows the suites in that order)."""
    from mlperf_check.suites import SUITES as CHECKER_SUITES
    from pages.suites import SUITES as PAGE_SUITES
    from results.suites import SUITES as RESULTS_SUITES

    assert list(RESULTS_SUITES) == list(PAGE_SUITES) == list(Suite.values)
    assert set(CHECKER_SUITES) == set(Suite.values)
    for name, suite in RESULTS_SUITES.items():
        assert suite.name == name and CHECKER_SUITES[name].name == name


def interface_members(protocol: type) -> dict[str, inspect.Signature | None]:
    """The members a Protocol declares: each method with its signature (`self` left out), each
    attribute with None."""
    members: dict[str, inspect.Signature | None] = dict.fromkeys(getattr(protocol, "__annotations__", {}))
    for name, value in vars(protocol).items():
        if inspect.isfunction(value) and not name.startswith("_"):
            signature = inspect.signature(value)
            members[name] = signature.replace(parameters=list(signature.parameters.values())[1:])
    return members


def _parameters(signature: inspect.Signature) -> list[tuple[str, object, bool]]:
    return [(p.name, p.kind, p.default is inspect.Parameter.empty) for p in signature.parameters.values()]


@pytest.mark.parametrize("layer", ["pages", "results"])
def test_every_registered_suite_offers_its_layers_whole_interface(layer):
    """Each suite of a layer has every member its Protocol declares, each function taking the
    parameters the Protocol names, in order, with the same defaults required or not."""
    if layer == "pages":
        from pages.suites import SUITES
        from pages.suites import PageSuite as protocol
    else:
        from results.suites import SUITES
        from results.suites import ResultsSuite as protocol
    members = interface_members(protocol)
    assert len(members) > 8
    for name, suite in SUITES.items():
        for member, signature in members.items():
            assert hasattr(suite, member), f"{layer} suite {name} has no {member}"
            if signature is not None:
                offered = inspect.signature(getattr(suite, member))
                assert _parameters(offered) == _parameters(signature), f"{layer} suite {name}: {member}{offered}"
