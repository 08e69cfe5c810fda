"""The checker registry (mlperf_check.checkers.CHECKERS): names, versions, scopes."""

from __future__ import annotations

from mlperf_check.checkers import CHECKERS, checkers_of_scope, get_checker


def test_every_checker_class_has_the_scope_it_is_registered_with():
    # The registry's scope decides which modules a check imports; the class's decides where it runs.
    for name, registered in CHECKERS.items():
        if registered.path:
            assert get_checker(name).scope == registered.scope, name


def test_each_scope_lists_its_checkers_in_registry_order():
    for scope in ("run", "package", "inference"):
        names = [name for name, registered in CHECKERS.items() if registered.path and registered.scope == scope]
        assert names
        assert [cls.name for cls in checkers_of_scope(scope)] == names
