"""The rounds of the corpus (../shared/corpus), as the corpus-wide tests find them."""

from __future__ import annotations

import multiprocessing
import os
import re
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROUND_FOLDER = re.compile(r"v(\d+)\.(\d+)")


def training_rounds(corpus: Path, since: tuple[int, int] = (0, 5)) -> list[tuple[str, str]]:
    """(round folder, ruleset) of every training round in the corpus from `since` on, oldest first:
    [("v0.7", "0.7.0"), ("v1.0", "1.0.0"), ("v3.0", "3.0.0")]. A new round folder is picked up."""
    rounds = []
    for path in corpus.iterdir():
        match = ROUND_FOLDER.fullmatch(path.name)
        if path.is_dir() and match and (int(match[1]), int(match[2])) >= since:
            rounds.append(((int(match[1]), int(match[2])), path.name))
    return [(name, f"{major}.{minor}.0") for (major, minor), name in sorted(rounds)]


def in_processes(function: Callable, items: Iterable) -> list:
    """[function(item) for item in items], one process per core (forked: the workers share what
    the test process has loaded and parsed). For checks of a whole corpus or rule catalog."""
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=context) as pool:
        return list(pool.map(function, items))
