"""What the page cache keeps is keyed on the code that kept it (config/cache.py): a deploy that
changes the shape of kept rows, or a page's markup, never reads what the code before it wrote (a
kept round's figures live a day), and the two versions of a rolling deploy keep apart."""

from __future__ import annotations

import pytest
from django.core.cache import caches

from config.cache import CODE_FOLDERS, code_version


@pytest.fixture
def code_tree(tmp_path, settings):
    """A checkout of two files, as BASE_DIR, with the process's digest read afresh before and after."""
    settings.BASE_DIR = tmp_path
    (tmp_path / "pages" / "tests").mkdir(parents=True)
    (tmp_path / "pages" / "__pycache__").mkdir()
    (tmp_path / "pages" / "views.py").write_text("ROWS = 'list'\n")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "round.html").write_text("<table>")
    code_version.cache_clear()
    yield tmp_path
    code_version.cache_clear()


def digest() -> str:
    code_version.cache_clear()
    return code_version()


def test_the_page_cache_keys_carry_the_code_version_and_the_other_cache_does_not():
    assert f":{code_version()}:" in caches["pages"].make_key("rows")
    assert code_version() not in caches["default"].make_key("rows")
    assert {"pages", "results", "templates", "static", "config"} <= set(CODE_FOLDERS)


def test_a_change_to_code_or_a_template_is_a_new_version_and_tests_or_bytecode_are_not(code_tree):
    first = digest()
    assert digest() == first
    (code_tree / "pages" / "tests" / "test_views.py").write_text("def test(): pass\n")
    (code_tree / "pages" / "__pycache__" / "views.cpython-311.pyc").write_bytes(b"\0")
    (code_tree / "elsewhere.py").write_text("x = 1\n")
    assert digest() == first
    (code_tree / "pages" / "views.py").write_text("ROWS = 'dict'\n")
    changed = digest()
    assert changed != first
    (code_tree / "templates" / "round.html").write_text("<table class=x>")
    assert digest() not in (first, changed)
    (code_tree / "templates" / "round.html").rename(code_tree / "templates" / "moved.html")
    assert digest() not in (first, changed)
