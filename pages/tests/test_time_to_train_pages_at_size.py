"""Training and HPC round and benchmark pages far beyond the size of a real round (issue 38): with
`manage.py seed_synthetic`'s 18,200 results in one training round the round page was 4.3 MB of
HTML and a benchmark page 3.4 MB. Each long table now shows a hundred rows a page, the page and
the filters in the URL (every view a citable link that works without JavaScript); a benchmark's
charts are fetched from their JSON when drawn once they hold more than a page of results; an HPC
round whose leaderboards hold more than a page together shows the first rows of each, linking to
the whole board on its benchmark page. At the size of a real round nothing changes: no paging
controls, the charts' figures in the page."""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import unquote

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from results.models import Organization, Result
from results.paging import PAGE_SIZE
from results.tests.factories import make_org, make_result, make_submission, make_system

from .synthetic_time_to_train import make_hpc_round, make_training_round

pytestmark = pytest.mark.django_db

TRAINING = "/rounds/training-v0.7/"
HPC = "/rounds/hpc-v1.0/"
MOST_HTML = 300_000


@pytest.fixture
def training():
    return make_training_round("0.7", results=2400)  # 400 systems, some 300 results per benchmark


@pytest.fixture
def hpc():
    return make_hpc_round("1.0", results=900)  # some 300 results per benchmark, strong and weak


def html(client, address: str) -> str:
    response = client.get(address)
    assert response.status_code == 200, (address, response.content[:300])
    return response.content.decode()


def link(page: str, anchor: str, rel: str = "next") -> str:
    """The address of the pager link to the `rel` page of the table at `anchor`."""
    found = re.findall(rf'<a href="([^"]*)" rel="{rel}">', page)
    return next(a for a in found if a.endswith(f"#{anchor}")).replace("&amp;", "&").split("#")[0]


def round_rows(page: str) -> list[str]:
    """The systems of a training round page's table, in order."""
    table = re.search(r'<table class="results" id="results-table">.*?</table>', page, re.S).group(0)
    return re.findall(r'<td class="name system">.*?<a href="(/systems/[^"]+)"', table)


def ranked_ids(page: str) -> list[str]:
    table = re.search(r'<table class="results" id="ranked">.*?</table>', page, re.S).group(0)
    return re.findall(r'<td class="result-id"><a href="/results/([^"]+)/"', table)


def test_every_page_of_a_large_training_round_stays_under_300_kb(client, training):
    systems = Result.objects.filter(submission__round=training).values("system").distinct().count()
    resnet = Result.objects.filter(submission__round=training, benchmark__name="resnet").count()
    assert systems > 3 * PAGE_SIZE and resnet > 2 * PAGE_SIZE
    for address in (TRAINING, TRAINING + "?page=4", TRAINING + "?sort=-resnet&page=2", TRAINING + "resnet/",
                    TRAINING + "resnet/?page=3", TRAINING + "resnet/?per=accelerator&colour=submitter"):
        assert len(html(client, address).encode()) < MOST_HTML, address
    page = html(client, TRAINING)
    assert len(round_rows(page)) == PAGE_SIZE
    assert f"rows 1–100 of {systems}" in page and f"{systems} systems" in page
    benchmark = html(client, TRAINING + "resnet/")
    assert len(ranked_ids(benchmark)) == PAGE_SIZE and f"rows 1–100 of {resnet}" in benchmark
    # The charts' figures are not in the page: each is fetched from its JSON download when drawn.
    assert 'type="application/json"' not in benchmark
    assert 'data-figure-src="/rounds/training-v0.7/resnet/charts/time-to-train.figure.json"' in benchmark


def test_the_round_table_page_by_page_is_its_download_row_by_row(client, training):
    """A page places every system from a narrow read of the round's results and reads in full only
    the hundred it shows; the download reads every row in full. Page after page, the systems and
    the results they link are the CSV's, in its order."""
    query = "?division=closed&sort=-resnet"
    download = list(csv.DictReader(io.StringIO(html(client, TRAINING + "table.csv" + query))))
    benchmarks = sorted(column.removesuffix("_result_id") for column in download[0] if column.endswith("_result_id"))
    systems, results = [], []
    for number in range(1, -(-len(download) // PAGE_SIZE) + 1):
        table = re.search(r'<table class="results" id="results-table">.*?</table>',
                          html(client, f"{TRAINING}{query}&page={number}"), re.S).group(0)
        systems += [unquote(address.rstrip("/").rsplit("/", 1)[1]) for address in round_rows(table)]
        results += [unquote(quoted) for quoted in re.findall(r'<a href="/results/([^"]+)/" title=', table)]
    assert len(download) > 2 * PAGE_SIZE
    assert systems == [row["system_id"] for row in download]
    assert results == [row[f"{name}_result_id"] for row in download for name in benchmarks if row[f"{name}_result_id"]]


def test_the_public_round_table_is_placed_once_per_view_and_round_version(client, training, monkeypatch, personas):
    """An anonymous visitor's rows placed (the narrow read of every result and system, sorted) are
    kept under the round's version, the filters, the order and the factors: another page of the
    same view and its download start from them. Another order is placed anew, and so is every view
    after a change in the round. A submitter who sees nothing more here reads the public's;
    reviewers and chairs share one placement of everything; a submitter whose organization has a
    result the public does not see gets theirs afresh."""
    from pages.suites.training import round_table

    placed = []
    build = round_table._placed
    monkeypatch.setattr(round_table, "_placed", lambda *args: placed.append(args[-1]) or build(*args))
    view = "?division=closed&sort=resnet"
    html(client, TRAINING + view)
    html(client, TRAINING + view + "&page=2")
    assert client.get(TRAINING + "table.csv" + view).status_code == 200
    assert placed == ["resnet"]
    html(client, TRAINING + "?division=closed&page=2")
    assert placed == ["resnet", ""]
    system = make_system(make_submission(training, make_org("Newcomer")), "newcomer", name="Brand New System")
    make_result(system, "resnet", minutes=0.0001)  # the round's fastest resnet: the view's first row
    assert round_rows(html(client, TRAINING + view + "&after=change"))[0] == "/systems/newcomer/newcomer/"
    assert "Brand New System" in html(client, TRAINING + "table.csv" + view + "&after=change")
    assert placed == ["resnet", "", "resnet"]
    client.force_login(personas["owner"])
    html(client, TRAINING + view)
    assert len(placed) == 3
    for person in ("reviewer", "chair"):
        client.force_login(personas[person])
        html(client, TRAINING + view + "&page=2")
    assert len(placed) == 4
    hidden = make_system(make_submission(training, personas["alpha"], published=False), "hidden")
    make_result(hidden, "resnet", minutes=0.00001)
    client.force_login(personas["owner"])
    assert round_rows(html(client, TRAINING + view))[0] == "/systems/alpha/hidden/"
    html(client, TRAINING + view + "&page=2")
    assert len(placed) == 6


def test_a_round_table_page_is_a_link_that_keeps_the_filters_and_order(client, training):
    first = html(client, TRAINING + "?division=closed&sort=-resnet")
    next_link = link(first, "round-filters")
    assert "division=closed" in next_link and "sort=-resnet" in next_link and "page=2" in next_link
    second = html(client, TRAINING + next_link)
    assert re.search(r"rows 101–200 of [\d,]+", second)
    assert not set(round_rows(first)) & set(round_rows(second))
    assert "Open division" not in second and "(continued)" not in second and ", continued)" in second
    # A group's size is the whole table's, on every page.
    sizes = lambda text: re.findall(r"Available on-premise <span class=\"muted\">\((\d+(?:,\d{3})*)", text)  # noqa: E731
    assert sizes(first)[0] == sizes(second)[0]
    # A new order starts from the first page; the downloads hold every page.
    assert 'href="?division=closed&amp;sort=resnet"' in second
    assert "/rounds/training-v0.7/table.csv?division=closed&amp;sort=-resnet\"" in second


def test_a_filter_in_the_url_filters_the_round_and_benchmark_pages(client, training):
    organization = Organization.objects.filter(submissions__round=training).order_by("slug").first()
    mine = Result.objects.filter(submission__round=training, submission__organization=organization)
    page = html(client, TRAINING + f"?submitter={organization.slug}")
    assert len(round_rows(page)) == mine.values("system").distinct().count() < PAGE_SIZE
    assert all(f"/systems/{organization.slug}/" in row for row in round_rows(page))
    assert 'class="pager"' not in page  # the filtered table fits on one page
    benchmark = html(client, TRAINING + f"resnet/?submitter={organization.slug}")
    assert sorted(ranked_ids(benchmark)) == sorted(mine.filter(benchmark__name="resnet").values_list("result_id",
                                                                                                     flat=True))
    # Search text: a system by its id, or a submitter by part of its name.
    system = mine.order_by("pk").first().system
    found = html(client, TRAINING + f"?q={system.system_id.upper()}")
    assert round_rows(found) == [f"/systems/{organization.slug}/{system.system_id}/"]
    assert f'value="{system.system_id.upper()}"' in found
    name = organization.name.split()[-1]  # "Synthetic training 0.7 1 00": the last word
    found = html(client, TRAINING + f"?q=1+{name}")
    assert round_rows(found) and all(f"/systems/{organization.slug}/" in row for row in round_rows(found))


def test_a_benchmark_page_pages_its_ranking_and_ranks_go_on(client, training):
    first = html(client, TRAINING + "resnet/?division=closed")
    second = html(client, TRAINING + "resnet/" + link(first, "all-results"))
    assert not set(ranked_ids(first)) & set(ranked_ids(second))
    assert "<td class=\"num\">101</td>" in second  # the closed on-premise group holds more than a page
    assert link(second, "all-results", rel="prev") == "?division=closed"


def test_a_lazily_loaded_chart_is_the_filtered_figure(client, training):
    page = html(client, TRAINING + "resnet/?division=closed&page=2&colour=submitter")
    sources = [src.replace("&amp;", "&") for src in re.findall(r'data-figure-src="([^"]+)"', page)]
    assert len(sources) >= 4 and all("division=closed&colour=submitter" in src and "page" not in src
                                      for src in sources)
    scaling = next(src for src in sources if "scaling" in src)
    assert client.get(scaling).json()["data"]  # the figure alone, the rows in the chart's JSON
    chart = client.get(scaling.replace(".figure.json", ".json")).json()
    assert chart["rows"] and {row["division"] for row in chart["rows"]} == {"closed"}


def test_a_benchmarks_public_chart_outlines_are_built_once_per_view_and_round_version(client, training, monkeypatch,
                                                                                    personas):
    """A benchmark page past a page of results carries its charts' outlines only (the figures are
    fetched when drawn). An anonymous visitor's are kept under the round's version and the view the
    charts show (filters, colour, normalisation): another page of the ranking does not build the
    five charts again, another colour does, and so does every view after a change in the round.
    Reviewers and chairs share the outlines of everything (a submitter who sees nothing more than
    the public reads the public's). A figure's download builds its own chart only."""
    from pages.suites.time_to_train import charts

    built = []
    for name in ("time_to_train", "scaling", "batch_size", "pareto"):
        original = getattr(charts, name)
        monkeypatch.setattr(charts, name, lambda *a, _name=name, _original=original, **k: built.append(_name) or _original(*a, **k))
    view = TRAINING + "resnet/?division=closed"
    first = html(client, view)
    assert html(client, view + "&page=2") != first
    assert built == ["time_to_train", "scaling", "batch_size", "pareto"]
    html(client, view + "&colour=submitter&page=2")
    assert len(built) == 8
    make_result(make_system(make_submission(training, make_org("Newcomer")), "newcomer"), "resnet", minutes=0.001)
    html(client, view + "&after=change")
    assert len(built) == 12
    client.force_login(personas["owner"])
    html(client, view)
    assert len(built) == 12
    for person in ("reviewer", "chair"):
        client.force_login(personas[person])
        html(client, view + "&page=2")
    assert len(built) == 16
    assert client.get(TRAINING + "resnet/charts/pareto.figure.json?division=closed").status_code == 200
    assert built[16:] == ["pareto"]


def test_a_benchmarks_public_points_are_read_once_per_view_and_round_version(client, training):
    """A benchmark page's results, as its filters keep them, are read once per round version: the
    page, its next page and each figure it fetches when drawn start from the points kept then (each
    figure read them all again). Another filter reads its own; a change in the round reads them
    again."""

    def points_read(address: str) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(address).status_code == 200, address
        return sum('"results_result"."converge_mean"' in query["sql"] for query in queries.captured_queries)

    view = TRAINING + "resnet/?division=closed"
    assert points_read(view) == 1
    assert points_read(view + "&page=2") == 0
    figures = [src.replace("&amp;", "&") for src in re.findall(r'data-figure-src="([^"]+)"', html(client, view + "&a=1"))]
    assert len(figures) >= 4 and [points_read(figure) for figure in figures] == [0] * len(figures)
    assert points_read(TRAINING + "resnet/?division=open") == 1
    make_result(make_system(make_submission(training, make_org("Newcomer")), "newcomer"), "resnet", minutes=0.001)
    assert points_read(view + "&after=change") == 1
    assert "NEWCOMER" in html(client, view + "&after=change&again=1")


def test_a_malformed_page_number_is_refused(client):
    make_training_round("0.7", results=240)
    make_hpc_round("1.0", results=60)
    for address in (TRAINING + "?page=two", TRAINING + "?page=0", TRAINING + "resnet/?page=-1",
                    TRAINING + "resnet/?scaling_page=x", HPC + "cosmoflow/?strong_page=1.5",
                    HPC + "cosmoflow/?weak_page=no"):
        response = client.get(address)
        assert response.status_code == 400, address
        assert b"must be a whole number from 1" in response.content


def test_a_page_past_the_last_shows_the_last(client, training, hpc):
    assert re.search(r"rows [\d,]+–([\d,]+) of \1\b", html(client, TRAINING + "?page=999"))
    assert re.search(r"rows [\d,]+–([\d,]+) of \1\b", html(client, TRAINING + "resnet/?page=999"))
    assert re.search(r"rows [\d,]+–([\d,]+) of \1\b", html(client, HPC + "cosmoflow/?strong_page=999"))


def test_a_large_hpc_round_shows_the_first_rows_of_each_board_linking_to_the_whole_board(client, hpc):
    page = html(client, HPC)
    assert len(page.encode()) < MOST_HTML
    boards = re.findall(r'<table class="results leaderboard" data-benchmark="(\w+)" data-scaling="(\w+)">(.*?)</table>',
                        page, re.S)
    assert len(boards) == 6 and all(rows.count('class="result-id"') == 10 for _, _, rows in boards)
    whole = re.search(r'The first 10 of (\d+): <a href="([^"]+)#cosmoflow-strong">', page)
    count, address = int(whole.group(1)), whole.group(2)
    assert count > PAGE_SIZE and address == "/rounds/hpc-v1.0/cosmoflow/"
    benchmark = html(client, address)
    assert len(benchmark.encode()) < MOST_HTML
    strong = re.search(r'data-scaling="strong">.*?</table>', benchmark, re.S).group(0)
    assert strong.count('class="result-id"') == PAGE_SIZE and f"rows 1–100 of {count}" in benchmark
    second = html(client, address + link(benchmark, "cosmoflow-strong"))
    strong = re.search(r'data-scaling="strong">.*?</table>', second, re.S).group(0)
    assert strong.count('class="result-id"') == min(count - PAGE_SIZE, PAGE_SIZE)
    assert "rows 1–100 of" in second  # the throughput board stays on its first page
    assert 'type="application/json"' not in benchmark
    assert 'data-figure-src="/rounds/hpc-v1.0/cosmoflow/charts/' in benchmark


def test_an_hpc_filter_in_the_url_filters_the_boards_their_csv_and_charts(client, hpc):
    page = html(client, HPC + "?division=open")
    assert "<td>Closed</td>" not in page and "<td>Open</td>" in page
    csv_link = re.search(r'href="(/rounds/hpc-v1.0/table.csv\?division=open&amp;benchmark=deepcam&amp;scaling=weak)"',
                         page).group(1).replace("&amp;", "&")
    rows = list(csv.DictReader(io.StringIO(client.get(csv_link).content.decode())))
    expected = Result.objects.filter(submission__round=hpc, division="open", benchmark__name="deepcam", scaling="weak")
    assert sorted(row["result_id"] for row in rows) == sorted(expected.values_list("result_id", flat=True))
    whole = re.search(r'<a href="([^"]+)#deepcam-weak">', page)
    if whole:  # the open division alone may fit on the round page
        assert "division=open" in whole.group(1)
    benchmark = html(client, HPC + "deepcam/?division=open")
    assert "<td>Closed</td>" not in benchmark
    src = re.search(r'data-figure-src="([^"]+throughput[^"]*)"', benchmark)
    figure_rows = client.get((src.group(1).replace(".figure.json", ".json") if src
                              else HPC + "deepcam/charts/throughput.json?division=open").replace("&amp;", "&")).json()["rows"]
    assert figure_rows and {row["division"] for row in figure_rows} == {"open"}


def test_at_the_size_of_a_real_round_the_pages_look_as_before(client):
    make_training_round("0.7", results=240)  # 40 systems, some 30 results per benchmark
    make_hpc_round("1.0", results=60)
    for address in (TRAINING, TRAINING + "resnet/", HPC, HPC + "cosmoflow/"):
        page = html(client, address)
        assert 'class="pager"' not in page and "board-more" not in page, address
    assert len(round_rows(html(client, TRAINING))) == 40
    # The charts' figures are in the page: nothing to fetch before drawing.
    benchmark = html(client, TRAINING + "resnet/")
    assert 'type="application/json"' in benchmark and "data-figure-src" not in benchmark
    assert "data-figure-src" not in html(client, HPC + "cosmoflow/")


def query_counts(client) -> dict[str, int]:
    counts = {}
    for address in (TRAINING, TRAINING + "?page=2&division=closed", TRAINING + "?q=H100", TRAINING + "resnet/",
                    TRAINING + "resnet/?page=2&per=accelerator", TRAINING + "resnet/charts/scaling.json",
                    HPC, HPC + "?division=closed", HPC + "cosmoflow/", HPC + "cosmoflow/?strong_page=2",
                    HPC + "cosmoflow/charts/throughput.json", HPC + "table.csv?benchmark=deepcam&scaling=weak"):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(address)
        assert response.status_code == 200, address
        counts[address] = len(queries)
    return counts


def test_the_queries_of_a_page_do_not_grow_with_the_round(client):
    make_training_round("0.7", results=1200, seed=1)
    make_hpc_round("1.0", results=450, seed=1)
    once = query_counts(client)
    make_training_round("0.7", results=1200, seed=2)
    make_hpc_round("1.0", results=450, seed=2)
    twice = query_counts(client)
    assert twice == once
    # The round page reads three things kept under its round's version, each with a version read
    # here (conftest.py: DATA_VERSION_SECONDS 0; a web process keeps the version 2 s).
    assert max(once.values()) <= 13, once
