"""Shared fixtures: the corpus location and the bundled sample."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
CORPUS = REPO.parent / "shared" / "corpus"
SAMPLE = REPO / "sample_data"


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the MLPerf corpus is not at {CORPUS}; corpus-wide tests need ../shared/corpus")
    return CORPUS


@pytest.fixture
def sample_data() -> Path:
    return SAMPLE
