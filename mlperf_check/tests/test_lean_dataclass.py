"""lean_dataclass.dataclass against dataclasses.dataclass: the same class bodies, the same
repr, equality and hashing."""

from __future__ import annotations

import dataclasses
from dataclasses import field

import pytest

from mlperf_check import lean_dataclass


def point_class(decorator):
    @decorator
    class Point:
        """A class body both decorators get."""

        x: int
        label: str = "p"
        tags: list = field(default_factory=list)
        cache: dict = field(default_factory=dict, repr=False, compare=False)
        weight: float = field(default=1.0, hash=False)

    return Point


def both(**options):
    return (
        point_class(dataclasses.dataclass(**options)),
        point_class(lean_dataclass.dataclass(**options)),
    )


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"slots": True}, {"frozen": True, "slots": True}])
def test_repr_and_equality_are_the_standard_ones(options):
    standard, lean = both(**options)
    for cls in (standard, lean):
        a, b, c = cls(1, "a", [1], {"k": 1}), cls(1, "a", [1], {"other": 2}), cls(2)
        assert (a == b, a == c, a != c, a == (1, "a", [1])) == (True, False, True, False)
    assert repr(lean(1, "a", [1], {"k": 1})) == repr(standard(1, "a", [1], {"k": 1}))
    assert repr(lean(1)) == "point_class.<locals>.Point(x=1, label='p', tags=[], weight=1.0)"
    assert lean.__match_args__ == standard.__match_args__
    assert dataclasses.asdict(lean(3)) == dataclasses.asdict(standard(3))


def test_a_frozen_class_hashes_like_the_standard_one():
    standard, lean = both(frozen=True)
    assert hash(lean(1, "a", (), {}, 2.0)) == hash(standard(1, "a", (), {}, 2.0))  # weight has hash=False
    assert hash(lean(1, "a", (), {}, 2.0)) == hash(lean(1, "a", (), {"ignored": 1}, 3.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        lean(1).x = 2


def test_an_unfrozen_class_is_unhashable_like_the_standard_one():
    for cls in both():
        with pytest.raises(TypeError, match="unhashable"):
            hash(cls(1))


def test_objects_of_other_classes_are_never_equal():
    _, lean = both()

    class Sub(lean):
        pass

    assert lean(1) != Sub(1)
    assert lean(1).__eq__(Sub(1)) is NotImplemented


def test_a_recursive_reference_shows_as_dots():
    reprs = []
    for cls in both():
        loop = cls(1, tags=[cls(2)])
        loop.tags.append(loop)
        reprs.append(repr(loop))
    assert reprs[1] == reprs[0]
    assert reprs[1].endswith("tags=[point_class.<locals>.Point(x=2, label='p', tags=[], weight=1.0), ...], weight=1.0)")


def test_methods_the_class_defines_are_kept():
    @lean_dataclass.dataclass(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __hash__(self) -> int:
            return 7

    assert repr(Named("a")) == "<a>"
    assert hash(Named("a")) == 7
    assert Named("a") == Named("a")
