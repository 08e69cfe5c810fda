"""Shared fixtures: the corpus location and the bundled sample."""

import uuid
from collections import OrderedDict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
CORPUS = REPO.parent / "shared" / "corpus"
SAMPLE = REPO / "sample_data"


def pytest_collection_modifyitems(items):
    """The longest modules first (their `slow(minutes=N)` mark), in a stable order. Under make
    test's parallel workers (--dist loadscope --no-loadscope-reorder) a module runs whole on one
    worker in the order collected: a journey story started last would run alone at the end."""

    def minutes(item) -> float:
        mark = item.get_closest_marker("slow")
        return mark.kwargs.get("minutes", 0) if mark else 0

    items.sort(key=lambda item: -minutes(item))


@pytest.fixture(scope="session")  # a path: module fixtures that check the whole corpus once use it
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the MLPerf corpus is not at {CORPUS}; corpus-wide tests need ../shared/corpus")
    return CORPUS


@pytest.fixture
def sample_data() -> Path:
    return SAMPLE


# Fixed personas (healthchecks style): every page and endpoint gets an access test with them.
@pytest.fixture
def personas(db):
    """owner and teammate belong to org Alpha; outsider submits for org Beta; reviewer and chair
    are in the `reviewers` / `chairs` groups; anonymous is None."""
    from django.contrib.auth.models import Group, User

    from results.models import Organization

    alpha = Organization.objects.create(name="Alpha Systems", slug="alpha")
    beta = Organization.objects.create(name="Beta Compute", slug="beta")
    owner = User.objects.create_user("owner", "owner@alpha.example", "password")
    teammate = User.objects.create_user("teammate", "teammate@alpha.example", "password")
    outsider = User.objects.create_user("outsider", "outsider@beta.example", "password")
    reviewer = User.objects.create_user("reviewer", "reviewer@mlcommons.example", "password")
    chair = User.objects.create_user("chair", "chair@mlcommons.example", "password")
    alpha.members.add(owner, teammate)
    beta.members.add(outsider)
    reviewer.groups.add(Group.objects.get_or_create(name="reviewers")[0])
    chair.groups.add(Group.objects.get_or_create(name="chairs")[0])
    return {
        "alpha": alpha,
        "beta": beta,
        "owner": owner,
        "teammate": teammate,
        "outsider": outsider,
        "reviewer": reviewer,
        "chair": chair,
        "anonymous": None,
    }


@pytest.fixture(autouse=True)
def page_cache_reads_every_data_version(monkeypatch):
    """Tests write with bulk updates and from Celery workers, which a process's 2-second reuse of
    the page cache's data version (pages/caching.py) would not notice: read it every time."""
    monkeypatch.setattr("pages.caching.DATA_VERSION_SECONDS", 0)


@pytest.fixture(autouse=True)
def fresh_page_cache(monkeypatch):
    """Anonymous pages are cached (pages/caching.py), possibly in a Redis shared with other test
    runs, and in this process's copy of recent pages (test databases roll back, so two tests can
    show the same data version): give each test its own key space rather than clearing a cache.
    And its own process maps of a citable id's round and a page's rounds: what holds for good in one
    database does not across test databases that reuse ids and names."""
    monkeypatch.setattr("pages.caching.KEY_PREFIX", f"test-{uuid.uuid4().hex}")
    monkeypatch.setattr("pages.caching._result_rounds", OrderedDict())
    monkeypatch.setattr("pages.caching._page_rounds", OrderedDict())
