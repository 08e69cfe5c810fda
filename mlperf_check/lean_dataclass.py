"""dataclass(): the standard library's, with __repr__, __eq__ and (for a frozen class) __hash__
shared by every class instead of compiled for each.

Why: Python 3.11's dataclasses.dataclass() writes the source of each method it adds and
compile()s it, ~90 us a method on the machines we measure on. Every check builds 39 dataclasses
before its first file, and compiling their __repr__, __eq__ and __hash__ was ~7 ms of the start-up
of `mlperf-check` (~4% of a whole v0.7 round's wall time, more of a small package's;
bench/RESULTS.md, the sixth pass). __init__ (and a frozen class's __setattr__ and __delattr__) are
still the standard library's own: they differ by class.

The shared methods behave as the generated ones (tests/test_lean_dataclass.py compares them):
__repr__ lists the fields with repr=True and shows '...' for a recursive reference; __eq__
compares the fields with compare=True of two objects of the same class, NotImplemented for any
other; a frozen class hashes those fields (or the ones with hash=True), an unfrozen one is
unhashable. A method the class body defines itself is kept, as dataclass() keeps it.
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any

# Per class, set by dataclass(): the names of the fields each shared method reads, in order.
REPR_FIELDS = "__lean_repr_fields__"
COMPARED_FIELDS = "__lean_compared_fields__"
HASHED_FIELDS = "__lean_hashed_fields__"


def dataclass(cls: type | None = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """@dataclass, @dataclass(frozen=True), @dataclass(slots=True): as dataclasses.dataclass."""

    def wrap(cls: type) -> type:
        defined = set(cls.__dict__)
        cls = dataclasses.dataclass(cls, frozen=frozen, slots=slots, repr=False, eq=False)
        fields = dataclasses.fields(cls)
        setattr(cls, REPR_FIELDS, tuple(f.name for f in fields if f.repr))
        setattr(cls, COMPARED_FIELDS, tuple(f.name for f in fields if f.compare))
        setattr(cls, HASHED_FIELDS, tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
        if "__repr__" not in defined:
            cls.__repr__ = _repr
        if "__eq__" not in defined:
            cls.__eq__ = _eq
        if "__hash__" not in defined:
            cls.__hash__ = _hash if frozen else None
        return cls

    return wrap if cls is None else wrap(cls)


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in getattr(self.__class__, REPR_FIELDS))
    return f"{self.__class__.__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = getattr(self.__class__, COMPARED_FIELDS)
    return tuple(getattr(self, name) for name in names) == tuple(getattr(other, name) for name in names)


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, name) for name in getattr(self.__class__, HASHED_FIELDS)))
