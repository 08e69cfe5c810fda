"""An inference round's page at the size of a real round (issue 38): 1,500 results in one round
were 1.98 MB of HTML on one page (v5.1). The page now shows a hundred rows of each results
table, the top of each leaderboard, and its charts' data fetched when drawn; every page and
filter is a plain link (GET parameters), so every view stays citable and works without JavaScript."""

from __future__ import annotations

import re

import pytest

from pages import common
from results.constants import RoundState
from results.models import Result, Round
from results.paging import PAGE_SIZE
from results.services.rounds import ensure_round
from results.synthetic_inference import add_open_models, make_inference_round

pytestmark = pytest.mark.django_db

ROUND = "/rounds/inference-v5.1/"
ROUND_V20 = "/rounds/inference-v2.0/"
MOST_HTML = 300_000


@pytest.fixture
def full_round():
    return make_inference_round("5.1", results=1500)


def html(client, address: str) -> str:
    response = client.get(address)
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def test_the_page_of_a_full_round_stays_under_300_kb(client, full_round):
    page = html(client, ROUND)
    assert len(page.encode()) < MOST_HTML, len(page.encode())
    datacenter = re.search(r'data-table="datacenter".*?</table>', page, re.S).group(0)
    assert datacenter.count("<tr>") - 1 == PAGE_SIZE  # the heading's row, then a page of systems
    for address in (ROUND + "?table=edge", ROUND + "?model=resnet", ROUND + "?per=accelerator"):
        assert len(html(client, address).encode()) < MOST_HTML, address
    assert re.search(r"rows 1–100 of [\d,]+", page)
    # The charts' figures are not in the page: each is fetched from its JSON download when drawn.
    assert 'type="application/json"' not in page and 'data-figure-src="/rounds/inference-v5.1/charts/' in page


def test_a_table_page_is_a_link_that_keeps_the_filters(client, full_round):
    first = html(client, ROUND + "?division=closed")
    next_link = re.search(r'<a href="([^"]*datacenter_page=2[^"]*)" rel="next">', first).group(1).replace("&amp;", "&")
    assert "division=closed" in next_link and next_link.endswith("#table-datacenter")
    second = html(client, ROUND + next_link.split("#")[0])
    assert re.search(r"rows 101–\d+ of [\d,]+", second)
    systems = lambda text: set(re.findall(r'data-table="datacenter".*?</table>', text, re.S)[0].split('href="/systems/')[1:])  # noqa: E731
    assert not systems(first) & systems(second)
    assert "Open" not in re.search(r'data-table="datacenter".*?</table>', second, re.S).group(0)


def test_a_page_past_the_last_shows_the_last_and_a_malformed_one_is_refused(client, full_round):
    assert re.search(r"rows \d+–(\d+) of \1\b", html(client, ROUND + "?datacenter_page=999"))
    response = client.get(ROUND + "?datacenter_page=two")
    assert response.status_code == 400 and b"'datacenter_page' must be a whole number" in response.content
    assert client.get(ROUND + "?page=0").status_code == 400


def test_many_leaderboards_show_their_leaders_each_linking_to_the_whole_board_paged(client):
    make_inference_round("5.1", results=1000, models=("resnet", "retinanet"))  # boards of more than a page
    page = html(client, ROUND)
    assert '<table class="results leaderboard"' not in page  # no board whole: a row per board
    leaders = re.search(r'<table class="results leaders">.*?</table>', page, re.S).group(0)
    links = re.findall(r'<a href="([^"]+)">[^<]+</a> <span class="muted">\((\d+)\)</span>', leaders)
    address, count = max(links, key=lambda link: int(link[1]))
    address, count = address.replace("&amp;", "&").split("#")[0], int(count)
    assert count > PAGE_SIZE
    alone = html(client, ROUND + address)
    (board,) = re.findall(r'<table class="results leaderboard" .*?</table>', alone, re.S)
    assert board.count('class="result-id"') == PAGE_SIZE and "<td>1</td>" in board
    assert re.search(rf"rows 1–100 of {count}\b", alone)
    second = html(client, ROUND + address + "&page=2")
    (board,) = re.findall(r'<table class="results leaderboard" .*?</table>', second, re.S)
    assert board.count('class="result-id"') == min(count - PAGE_SIZE, PAGE_SIZE)
    assert re.search(r"<td>10[1-9]</td>", board)  # ranks go on from the first page (invalid rows have none)


def test_one_table_at_a_time_where_they_hold_more_than_a_page(client, full_round):
    page = html(client, ROUND)
    assert 'data-table="datacenter"' in page and 'data-table="edge"' not in page
    edge_link = re.search(r'<a href="([^"]*table=edge[^"]*)">Edge', page).group(1).replace("&amp;", "&")
    edge = html(client, ROUND + edge_link.split("#")[0])
    assert 'data-table="edge"' in edge and 'data-table="datacenter"' not in edge
    assert len(edge.encode()) < MOST_HTML


def test_search_text_and_sort_are_in_the_url(client, full_round):
    result = Result.objects.filter(submission__round=full_round).order_by("pk").first()
    page = html(client, ROUND + "?q=" + result.system.name.replace(" ", "+").replace("#", "%23"))
    assert f'href="/results/{result.result_id}/"' in page
    assert page.count('class="result-id"') < 20
    by_count = html(client, ROUND + "?sort=accelerators")
    table = re.search(r'data-table="datacenter".*?</table>', by_count, re.S).group(0)
    counts = [int(n) for n in re.findall(r'<td class="num wide">(\d+)</td>', table)]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]
    assert '<option value="accelerators" selected>' in by_count


def test_a_lazily_loaded_chart_is_the_filtered_figure(client, full_round):
    page = html(client, ROUND + "?division=open&datacenter_page=2")
    src = re.search(r'data-figure-src="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert "division=open" in src and "page" not in src
    assert client.get(src).json()["data"]  # the figure alone
    assert client.get(src.replace(".figure.json", ".json")).json()["figure"]["data"]


def test_another_page_of_the_tables_keeps_the_charts_under_the_same_key(client, full_round, monkeypatch, personas):
    """The charts' place on the page (their figures are fetched when drawn) depends on the filters
    and the view, not on the tables' page or order: an anonymous visitor's are kept under the round's
    version, the filters and the view (pages.caching.rows_seen_by), the same for every page and order
    of the tables and another for other filters. A submitter who sees nothing more than the public
    reads the public's."""
    kept = []
    rows_seen_by = common.rows_seen_by
    monkeypatch.setattr(common, "rows_seen_by",
                        lambda user, round_, name, build: kept.append(name) or rows_seen_by(user, round_, name, build))
    charts = lambda text: re.findall(r'<figure class="chart".*?</figure>', text, re.S)  # noqa: E731
    first = charts(html(client, ROUND + "?division=closed"))
    for address in (ROUND + "?division=closed&datacenter_page=2", ROUND + "?division=closed&sort=submitter&page=2"):
        assert charts(html(client, address)) == first
    assert len(kept) == 3 and len(set(kept)) == 1 and kept[0].startswith("chart-outlines:")
    assert charts(html(client, ROUND + "?division=open")) != first and len(set(kept)) == 2
    client.force_login(personas["owner"])
    assert charts(html(client, ROUND + "?division=closed")) == first and len(kept) == 5 and len(set(kept)) == 2


def test_more_leaderboards_than_a_page_show_their_leaders_a_page_at_a_time():
    # inference v3.0 has 576 boards (its open models each their own): a row per board made the
    # round page 846 KB before the leaders were paged.
    from django.http import QueryDict

    from pages.suites.inference.views import _shown_boards

    def boards():
        return [{"model": f"model-{n:03d}", "scenario": "Offline", "rows": [{"value": n}]} for n in range(250)]

    shown = _shown_boards(boards(), QueryDict(""), "page", "leaderboards")
    assert shown["leaders"] and len(shown["all"]) == 250
    assert [b["model"] for b in shown["leader_page"].rows] == [f"model-{n:03d}" for n in range(PAGE_SIZE)]
    assert shown["leader_page"].next_url == "?page=2#leaderboards"
    last = _shown_boards(boards(), QueryDict("page=3"), "page", "leaderboards")["leader_page"]
    assert (last.first, last.last, last.total, last.next_url) == (201, 250, 250, "")


def test_a_systems_own_models_are_counted_in_one_cell_not_a_column_each(client):
    """Before v2.1 a round has one results table, and each model an open system ran of its own
    was a column: inference v2.0's 100 rows of Krai's hundreds of models were 525-695 KB."""
    round_ = ensure_round("inference-v2.0")
    Round.objects.filter(pk=round_.pk).update(state=RoundState.PUBLISHED)
    add_open_models(round_, systems=110, models_each=30, pool=300)
    address = "/rounds/inference-v2.0/"
    page = html(client, address)
    assert len(page.encode()) < MOST_HTML, len(page.encode())
    table = re.search(r'data-table="all".*?</table>', page, re.S).group(0)
    assert "own-mobilenet" not in table and ">Other models</th>" in table
    assert table.count('href="/systems/synthetic-open-models/board_000/#results">60 results of 30 models</a>') == 1
    assert len(html(client, address + "?all_page=2").encode()) < MOST_HTML
    # The system's page lists them; the tables' CSV keeps a column per model and scenario.
    system = html(client, "/systems/synthetic-open-models/board_000/")
    assert 'id="results"' in system and system.count("own-mobilenet-") >= 60
    header = client.get(address + "tables.csv").content.decode().splitlines()[0]
    assert header.count("own-mobilenet-") == 2 * 2 * 300  # figure and verdict, two scenarios, every model


def test_a_rounds_charts_give_each_of_its_models_a_place_and_the_others_one(client):
    """Krai's hundreds of open models each had a category on the charts' axis (inference v3.0: the
    plot a sliver under their names); they share one now, each named when pointed at."""
    round_ = make_inference_round("2.0", results=300)
    add_open_models(round_, systems=4, models_each=20, pool=60)
    own = set(round_.benchmarks.exclude(name__startswith="own-").values_list("name", flat=True))
    chart = client.get(ROUND_V20 + "charts/relative-performance.json").json()
    axis = chart["figure"]["layout"]["xaxis"]["categoryarray"]
    assert axis[-1] == "Other models" and set(axis[:-1]) <= own
    named = [(x, text) for trace in chart["figure"]["data"] for x, text in zip(trace["x"], trace["text"], strict=True)]
    assert {text.split("<br>")[0].startswith("own-mobilenet-") for x, text in named if x == "Other models"} == {True}
    assert any(row["model"].startswith("own-mobilenet-") for row in chart["rows"])  # the rows keep each name
    coverage = client.get(ROUND_V20 + "charts/coverage.json").json()
    assert coverage["figure"]["layout"]["xaxis"]["categoryarray"][-1] == "Other models"
    assert sum(row["results"] for row in coverage["rows"] if row["model"] == "Other models") == 4 * 20 * 2
    # A model the visitor chose is shown by its name.
    model = next(row["model"] for row in chart["rows"] if row["model"].startswith("own-mobilenet-"))
    chosen = client.get(ROUND_V20 + f"charts/relative-performance.figure.json?model={model}").json()
    assert chosen["layout"]["xaxis"]["categoryarray"] == [model]


def test_a_system_of_hundreds_of_results_pages_them(client):
    """Krai's open systems ran hundreds of models each (565 results in inference v2.1: 266 KB on
    one page); its page shows a hundred at a time, each page a link."""
    round_ = ensure_round("inference-v2.0")
    Round.objects.filter(pk=round_.pk).update(state=RoundState.PUBLISHED)
    add_open_models(round_, systems=1, models_each=125, pool=125)
    address = "/systems/synthetic-open-models/board_000/"
    shown = lambda text: re.findall(r'href="/results/(inference:open-board_000:[^"/]+)/"', text)  # noqa: E731
    first, last = html(client, address), html(client, address + "?page=3")
    assert len(shown(first)) == PAGE_SIZE and len(shown(last)) == 50
    assert "rows 1–100 of 250" in first and "rows 201–250 of 250" in last
    assert 'href="?page=2#results" rel="next"' in first
    seen = set(shown(first)) | set(shown(html(client, address + "?page=2"))) | set(shown(last))
    assert seen == set(Result.objects.filter(system__system_id="board_000").values_list("result_id", flat=True))
    assert client.get(address + "?page=0").status_code == 400


def test_the_progress_page_of_many_full_rounds_fetches_its_figures_when_drawn(client):
    """Every model's best result of every round: twelve full inference rounds were 1.2 MB of
    figures in the page."""
    for version in ("4.1", "5.0", "5.1"):
        make_inference_round(version, results=800)
    page = html(client, "/progress/inference/")
    rows = client.get("/progress/inference/charts/best-throughput.json").json()["rows"]
    assert len(rows) > PAGE_SIZE and 'type="application/json"' not in page
    assert 'data-figure-src="/progress/inference/charts/best-throughput.figure.json"' in page
