"""HTML pages: content, filters, sorting, downloads, and a constant number of queries."""

import csv
import io
import uuid
from collections import OrderedDict
from urllib.parse import urlsplit

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pages.tests.sitemaps import sitemap_pages
from results.constants import Availability, Deployment, RunStatus
from results.tests.factories import (
    make_finding,
    make_org,
    make_result,
    make_round,
    make_submission,
    make_system,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    round_ = make_round("1.0")
    alpha = make_submission(round_, make_org("Alpha"))
    beta = make_submission(round_, make_org("Beta"))
    dgx = make_system(alpha, "dgx", name="DGX A100", accelerators_count=8)
    pod = make_system(alpha, "pod", name="DGX SuperPOD", accelerators_count=1024, number_of_nodes=128)
    cloud = make_system(beta, "vm", name="Cloud VM", deployment=Deployment.CLOUD, accelerators_count=16,
                        accelerator_model_name="TPU v4")
    research = make_system(beta, "lab", name="Lab Rig", availability=Availability.RESEARCH, division="open")
    log = "\n".join(f":::MLLOG line {n}" for n in range(1, 130))
    results = {
        "dgx_resnet": make_result(dgx, "resnet", minutes=28.5, result_id="1.0-0001", log_text=log),
        "dgx_bert": make_result(dgx, "bert", minutes=21.0, result_id="1.0-0002"),
        "pod_resnet": make_result(pod, "resnet", minutes=0.8, result_id="1.0-0003"),
        "vm_resnet": make_result(cloud, "resnet", minutes=14.0, result_id="1.0-0004"),
        "lab_bert": make_result(research, "bert", minutes=None, score_note="only 3 runs converged",
                                result_id="1.0-0005"),
    }
    make_finding(results["dgx_resnet"], code="SEED_REPEATED", line=7)
    return {"round": round_, **results}


def test_it_lists_rounds_with_counts_on_home(client, world):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Training v1.0" in html
    assert reverse("pages:round", args=["training-v1.0"]) in html
    assert response.context["suites"][0]["rounds"][0].counts == {"results": 5, "systems": 4, "submitters": 2}


def test_it_groups_the_round_table_by_division_then_category(client, world):
    response = client.get("/rounds/training-v1.0/")
    assert response.status_code == 200
    groups = [(g["division"], g["category"]) for g in response.context["groups"]]
    assert groups == [("closed", "Available on-premise"), ("closed", "Available cloud"),
                      ("open", "Research, development, or internal")]
    html = response.content.decode()
    assert 'href="/results/1.0-0001/"' in html
    assert "28.50" in html and "0.80" in html


def test_it_filters_the_round_table_from_the_query_string(client, world):
    response = client.get("/rounds/training-v1.0/", {"deployment": "cloud"})
    assert [r["system"] for r in response.context["table"].rows] == ["Cloud VM"]
    response = client.get("/rounds/training-v1.0/", {"acc_min": "100"})
    assert [r["system"] for r in response.context["table"].rows] == ["DGX SuperPOD"]
    response = client.get("/rounds/training-v1.0/", {"benchmark": "bert"})
    table = response.context["table"]
    assert table.benchmarks == ["bert"]
    assert sorted(r["system"] for r in table.rows) == ["DGX A100", "Lab Rig"]
    response = client.get("/rounds/training-v1.0/", {"submitter": "beta", "division": "open"})
    assert [r["system"] for r in response.context["table"].rows] == ["Lab Rig"]


def test_it_ignores_malformed_filters(client, world):
    response = client.get("/rounds/training-v1.0/", {"acc_min": "lots", "division": "x'; drop", "sort": "evil"})
    assert response.status_code == 200
    assert len(response.context["table"].rows) == 4


def test_it_sorts_by_a_benchmark_within_groups(client, world):
    response = client.get("/rounds/training-v1.0/", {"sort": "resnet"})
    closed_onprem = response.context["groups"][0]["rows"]
    assert [r["system"] for r in closed_onprem] == ["DGX SuperPOD", "DGX A100"]
    response = client.get("/rounds/training-v1.0/", {"sort": "-resnet"})
    assert [r["system"] for r in response.context["groups"][0]["rows"]] == ["DGX A100", "DGX SuperPOD"]


def test_it_downloads_exactly_the_filtered_table_as_csv_and_json(client, world):
    response = client.get("/rounds/training-v1.0/table.csv", {"category": "available-onprem", "sort": "resnet"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["system"] for r in rows] == ["DGX SuperPOD", "DGX A100"]
    assert rows[1]["resnet"] == "28.5" and rows[1]["resnet_result_id"] == "1.0-0001"
    assert rows[0]["bert"] == ""
    data = client.get("/rounds/training-v1.0/table.json", {"category": "available-onprem"}).json()
    assert len(data["rows"]) == 2 and "resnet_result_id" in data["columns"]


def test_it_serves_the_official_style_summary(client, world):
    response = client.get("/rounds/training-v1.0/summary.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {r["system"] for r in rows} == {"DGX A100", "DGX SuperPOD", "Cloud VM", "Lab Rig"}


def test_it_404s_for_unknown_rounds_and_benchmarks(client, world):
    assert client.get("/rounds/training-v9.9/").status_code == 404
    assert client.get("/rounds/not-a-round/").status_code == 404
    assert client.get("/rounds/training-v1.0/minigo/").status_code == 404
    assert client.get("/results/9.9-9999/").status_code == 404


def test_it_ranks_a_benchmark_within_division_and_category(client, world):
    response = client.get("/rounds/training-v1.0/resnet/")
    assert response.status_code == 200
    groups = response.context["groups"]
    assert [(p["system"], p["rank"]) for p in groups[0]["rows"]] == [("DGX SuperPOD", 1), ("DGX A100", 2)]
    html = response.content.decode()
    assert "Quality target" in html and "0.759" in html
    assert 'id="figure-time-to-train"' in html and "vendor/plotly-basic.min.js" in html


def test_it_shows_scaling_efficiency_for_a_system_family(client, world):
    response = client.get("/rounds/training-v1.0/resnet/")
    family = {p["accelerators"]: p for p in response.context["scaling_families"]}
    assert family[1024]["speedup"] == pytest.approx(28.5 / 0.8, rel=1e-3)
    assert family[1024]["efficiency"] == pytest.approx(28.5 / 0.8 / 128, rel=1e-2)


def test_it_shows_every_run_findings_and_rcp_on_the_result_page(client, world):
    result = world["dgx_resnet"]
    response = client.get("/results/1.0-0001/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "28.50" in html
    for run in result.runs.all():
        assert run.file in html
    assert "Dropped (fastest)" in html and "fastest run, dropped by the olympic mean" in html
    assert "SEED_REPEATED" in html
    assert "RCP mean" in html
    flagged = result.runs.get(file=result.findings.get().file)
    assert f"/logs/{flagged.sha256}/?page=1#L7" in html  # the finding links to its log line, on its page
    assert "opt_base_learning_rate" in html
    assert 'id="figure-convergence"' in html and 'id="figure-run-times"' in html
    assert "Review" not in html and "Verification" not in html


def test_it_prefers_the_current_version_of_a_result_id(client, world):
    old = world["dgx_resnet"]
    submission = old.submission
    submission.is_current = False
    submission.save()
    newer = make_submission(world["round"], submission.organization, version=2)
    system = make_system(newer, "dgx", name="DGX A100 (resubmitted)")
    make_result(system, "resnet", minutes=27.0, result_id="1.0-0001")
    response = client.get("/results/1.0-0001/")
    assert response.context["result"].submission.version == 2
    assert "27.00" in response.content.decode()


def test_it_renders_a_log_with_line_anchors(client, world):
    run = world["dgx_resnet"].runs.order_by("file").first()
    response = client.get(f"/logs/{run.sha256}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="L1"' in html and 'id="L129"' in html and ":::MLLOG line 42" in html


def test_it_numbers_log_lines_as_the_parser_does(client, world):
    # A lone carriage return (progress bars) does not start a line; CRLF ends one.
    run = world["dgx_bert"].runs.first()
    run.log_name = default_storage.save("logs/xx/cr.txt", ContentFile(b"one\r\nprogress 10%\rprogress 20%\nthree\n"))
    run.save()
    html = client.get(f"/logs/{run.sha256}/").content.decode()
    assert 'id="L3"' in html and 'id="L4"' not in html
    assert 'id="L3" href="#L3">3</a><span class="code">three</span>' in html


def test_it_escapes_log_content(client, world):
    run = world["dgx_bert"].runs.first()
    run.log_name = default_storage.save("logs/xx/evil.txt", ContentFile(b"<script>alert(1)</script>"))
    run.save()
    html = client.get(f"/logs/{run.sha256}/").content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


def test_it_lists_every_description_field_and_results_across_rounds_on_the_system_page(client, world):
    later = make_round("1.1")
    sub = make_submission(later, world["dgx_resnet"].submission.organization)
    system = make_system(sub, "dgx", name="DGX A100")
    make_result(system, "resnet", minutes=25.0, result_id="1.1-0001")
    response = client.get("/systems/alpha/dgx/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "host_memory_capacity" in html and "1 TB" in html
    assert [r.result_id for r in response.context["results"]] == ["1.1-0001", "1.0-0002", "1.0-0001"]


@pytest.mark.parametrize("address", ["/systems/alpha/dgx/?page=two", "/organizations/alpha/?page=0",
                                     "/results/1.0-0001/?runs_page=-1", "/rounds/training-v1.0/?page=1.5"])
def test_a_malformed_page_number_answers_400_with_the_reason(client, world, address):
    response = client.get(address)
    assert response.status_code == 400 and response["Content-Type"] == "text/plain; charset=utf-8"
    assert b"must be a whole number from 1" in response.content


def test_it_compares_results_and_highlights_differences(client, world):
    response = client.get("/compare/", {"result": ["1.0-0001", "1.0-0004"]})
    assert response.status_code == 200
    rows = {r["label"]: r for r in response.context["rows"] if "label" in r}
    assert rows["Accelerator"]["differs"] and rows["Accelerator"]["values"] == ["NVIDIA A100-SXM4-40GB", "TPU v4"]
    assert not rows["Benchmark"]["differs"]
    assert "global_batch_size" in rows


def test_it_compares_systems(client, world):
    response = client.get("/compare/", {"system": ["alpha/dgx", "beta/vm"]})
    rows = {r["label"]: r for r in response.context["rows"] if "label" in r}
    assert rows["Deployment"]["values"] == ["onprem", "cloud"] and rows["Deployment"]["differs"]
    assert "host_memory_capacity" in rows


def test_it_searches_systems_submitters_and_accelerators(client, world):
    response = client.get("/search/", {"q": "tpu"})
    assert [a["label"] for a in response.context["accelerators"]] == ["TPU v4"]
    assert [s["system_id"] for s in response.context["systems"]] == ["vm"]
    response = client.get("/search/", {"q": "alpha"})
    assert [s["submission__organization__slug"] for s in response.context["submitters"]] == ["alpha"]


def test_a_search_matching_more_systems_than_it_reads_says_so(client, world, monkeypatch):
    """One or two letters match nearly every system: a search reads at most SEARCH_SYSTEMS_READ of
    them (the newest), and the page says its lists cover only those."""
    from pages.views import search

    every = client.get("/search/", {"q": "a"})
    assert not every.context["narrowed"] and len(every.context["systems"]) >= 3
    monkeypatch.setattr(search, "SEARCH_SYSTEMS_READ", 2)
    narrowed = client.get("/search/", {"q": "a", "again": "1"})
    assert narrowed.context["narrowed"] and 1 <= len(narrowed.context["systems"]) <= 2
    assert "More than 2 systems match “a”: these lists cover the 2 newest of them." in narrowed.content.decode()
    assert not client.get("/search/", {"q": "tpu"}).context["narrowed"]


def test_the_system_search_is_one_the_trigram_indexes_answer(client, world):
    """On PostgreSQL the search's system lookup reads the searched columns' trigram indexes
    (results/migrations/0019): its conditions are all on the systems' own columns. With the
    named organizations matched through a join, as before, no index could serve it and every
    system was read. Reading the whole table (or a whole index in its place) is priced out here, as
    on a database of 30,000 systems."""
    (lookup,) = queries_of_a_request(client, "/search/?q=alpha", 200, 'FROM "results_system"')
    (plan,) = plans_with_whole_reads_priced_out([lookup])
    assert "Bitmap Heap Scan on results_system" in plan and "BitmapOr" in plan, plan
    assert "system_name_trgm" in plan and "system_framework_trgm" in plan, plan


def test_an_id_in_another_case_is_looked_up_through_its_index(client, world):
    """A result page, a permalink or an API detail whose id matches no result exactly looks the id
    up regardless of case (results.lookups: UPPER(result_id) in SQL), among the visible results and
    among the gone ones. On PostgreSQL the expression index of results/migrations/0021 answers both
    lookups: without it each read every result (260 ms at 200,000 results), for any mistyped or
    invented address. Reading the whole table (or a whole index in its place) is priced out here."""
    lookups = queries_of_a_request(client, "/results/NO-SUCH-RESULT/", 404, 'UPPER("results_result"."result_id"')
    assert len(lookups) == 2, lookups  # the visible results, then the withdrawn and removed ones
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE results_result")  # the expression's statistics, as autovacuum keeps them
    for plan in plans_with_whole_reads_priced_out(lookups):
        assert "Bitmap Index Scan on result_id_upper" in plan, plan


def test_an_entry_id_is_looked_up_through_its_index(client, world):
    """`/r/4.1-0012` (an MLCommons entry id, as results are cited) finds the entry's current results
    and its gone ones by the citable ids' entry column (results/migrations/0022): without its index
    each lookup read every citable id (45 ms each at 200,000 results, two a request)."""
    lookups = queries_of_a_request(client, "/r/1.0-9999", 404, '"results_citableid"."entry" =')
    assert len(lookups) == 2, lookups  # the current results, then the withdrawn and removed ones
    for plan in plans_with_whole_reads_priced_out(lookups):
        assert "Bitmap Index Scan on citable_id_entry" in plan, plan


def test_the_admins_system_list_walks_its_index_in_the_order_it_shows(client, world):
    """The admin's systems list is ordered by name, then newest first: the (name, -id) index of
    results/migrations/0024 gives its page in that order, where it read and sorted every system
    (36 ms at 32,869). Reading the whole table and sorting it are priced out here, as on a database
    of that size (on a few hundred rows a sort is cheaper, whatever the statistics say)."""
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_superuser("admin-plans", password="x"))
    (listed,) = queries_of_a_request(client, "/admin/results/system/", 200, 'ORDER BY "results_system"."name" ASC')
    (plan,) = plans_with_whole_reads_priced_out([listed], priced_out=("seqscan", "sort"))
    assert "Index Scan using system_name_id on results_system" in plan and "Sort" not in plan, plan


def queries_of_a_request(client, path: str, status: int, marker: str) -> list[str]:
    """The SQL holding `marker` that a GET of `path` ran (answering `status`), on PostgreSQL: whose
    planner the plan tests ask (make test runs it); skipped elsewhere."""
    if connection.vendor != "postgresql":
        pytest.skip("the planner's choice is PostgreSQL's (make test runs it)")
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == status
    return [query["sql"] for query in captured.captured_queries if marker in query["sql"]]


def plans_with_whole_reads_priced_out(queries: list[str], priced_out=("seqscan", "indexscan")) -> list[str]:
    """PostgreSQL's plans of `queries` where reading a whole table, or a whole index in its place, is
    priced out, as on a database of the public record's size: an index that can answer is used.
    `priced_out` names the planner's choices turned off (enable_<name>): an ordered walk of an
    index needs its index scan, and the sort it replaces priced out instead."""
    plans = []
    with connection.cursor() as cursor:
        for choice in priced_out:
            cursor.execute(f"SET LOCAL enable_{choice} = off")
        for query in queries:
            cursor.execute("EXPLAIN " + query)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
    return plans


def test_it_serves_chart_csv_of_exactly_what_is_plotted(client, world):
    response = client.get("/rounds/training-v1.0/resnet/charts/time-to-train.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted(r["result_id"] for r in rows) == ["1.0-0001", "1.0-0003", "1.0-0004"]
    figure = client.get("/rounds/training-v1.0/resnet/charts/time-to-train.json").json()["figure"]
    assert sum(len(t["y"]) for t in figure["data"]) == 3
    conv = client.get("/results/1.0-0001/charts/convergence.csv").content.decode()
    assert conv.splitlines()[0] == "run,scoring,component,x,value,line,crossed"
    assert client.get("/results/1.0-0001/charts/run-times.csv").status_code == 200
    assert client.get("/progress/training/charts/best-time.csv").status_code == 200
    assert client.get("/results/1.0-0001/charts/nope.csv").status_code == 404


def test_it_shows_round_over_round_progress(client, world):
    later = make_round("1.1")
    sub = make_submission(later, make_org("Gamma"))
    make_result(make_system(sub, "g8"), "resnet", minutes=20.0, result_id="1.1-0001")
    response = client.get("/progress/training/")
    assert response.status_code == 200
    best = {c.name: c for c in response.context["charts"]}["best-time"]
    assert [(r["round"], r["minutes"]) for r in best.rows if r["benchmark"] == "resnet"] == [("1.0", 0.8), ("1.1", 20.0)]
    fixed = {c.name: c for c in response.context["charts"]}["fixed-scale-speedup"]
    assert fixed.rows[0]["speedup"] == pytest.approx(28.5 / 20.0, rel=1e-3)


def test_it_lists_public_pages_in_the_sitemap(client, world):
    pages = [urlsplit(address).path for address in sitemap_pages(client)]
    assert "/results/1.0-0001/" in pages and "/systems/alpha/dgx/" in pages and "/rounds/training-v1.0/resnet/" in pages


@pytest.mark.parametrize("url", [
    "/", "/rounds/training-v1.0/", "/rounds/training-v1.0/table.csv", "/rounds/training-v1.0/resnet/",
    "/results/1.0-0001/", "/systems/alpha/dgx/", "/search/?q=a", "/progress/training/",
    "/compare/?result=1.0-0001&result=1.0-0004", "/rounds/training-v1.0/resnet/charts/scaling.json",
])
def test_it_runs_a_constant_number_of_queries(client, world, url, monkeypatch):
    def queries() -> int:
        # Nothing this test kept: a key space of its own for each count. (Emptying the cache would
        # also empty it under the other test workers sharing the Redis, between two of their requests.)
        monkeypatch.setattr("pages.caching.KEY_PREFIX", f"test-{uuid.uuid4().hex}")
        # Nor what this process kept: a result page's first request looks its round up.
        monkeypatch.setattr("pages.caching._result_rounds", OrderedDict())
        monkeypatch.setattr("pages.caching._page_rounds", OrderedDict())
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    before = queries()
    # Double the data: the query count must not grow with it.
    for index in range(6):
        sub = make_submission(world["round"], make_org(f"Extra {index}"))
        for n in range(3):
            system = make_system(sub, f"x{index}-{n}")
            make_result(system, "resnet", minutes=10.0 + n)
            make_result(system, "bert", minutes=12.0 + n)
    # At most 13: the round page reads three things kept under its round's version, and the tests
    # read the version afresh for each (conftest.py: DATA_VERSION_SECONDS 0; a web process keeps it).
    assert queries() == before <= 13


def test_it_marks_failed_runs(client, world):
    run = world["dgx_resnet"].runs.order_by("file").last()
    run.scoring = RunStatus.FAILED
    run.scoring_reason = "run_stop status aborted"
    run.save()
    html = client.get("/results/1.0-0001/").content.decode()
    assert "run_stop status aborted" in html and 'class="run-failed"' in html


def test_it_caches_public_pages_until_the_data_changes(client, world, django_user_model,
                                                       django_assert_max_num_queries):
    client.get("/rounds/training-v1.0/")
    with django_assert_max_num_queries(1):  # the data-version query only
        assert "DGX A100" in client.get("/rounds/training-v1.0/").content.decode()
    sub = make_submission(world["round"], make_org("Newcomer"))
    make_result(make_system(sub, "new", name="Brand New System"), "resnet", minutes=5.0)
    assert "Brand New System" in client.get("/rounds/training-v1.0/").content.decode()
    client.force_login(django_user_model.objects.create_user("visitor"))
    # The page's fixed set (the table: its benchmarks, whether the visitor sees more than the public
    # here (two), the rows placed or the public's kept, systems, the page's rows filled, their errors),
    # plus the header's Submit link and inbox count.
    with django_assert_max_num_queries(19):
        assert client.get("/rounds/training-v1.0/").status_code == 200  # logged in: never from the cache


def test_the_log_page_of_a_20_mb_log_of_empty_lines_stays_small_and_pages(client, world):
    # The attack: a log that ends in megabytes of newlines made the page build 163 MB of HTML.
    run = world["dgx_bert"].runs.first()
    run.log_name = default_storage.save("logs/xx/newlines.txt", ContentFile(b"first\n" + b"\n" * (20 * 1024**2)))
    run.save()
    response = client.get(f"/logs/{run.sha256}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert len(html) < 300_000
    assert 'id="L1"' in html and 'id="L2000"' in html and 'id="L2001"' not in html
    assert "page 1 of 10486" in html and f"/logs/{run.sha256}/raw" in html
    # Line anchors work across pages: ?line= opens the page that holds the line.
    deep = client.get(f"/logs/{run.sha256}/?line=20000000").content.decode()
    assert 'id="L20000000"' in deep and 'id="L1"' not in deep
    assert client.get(f"/logs/{run.sha256}/?page=999999").status_code == 404
    assert client.get(f"/logs/{run.sha256}/?page=x").status_code == 404


def test_the_raw_log_downloads_as_uploaded_for_those_who_may_see_it(client, world):
    run = world["dgx_resnet"].runs.order_by("file").first()
    response = client.get(f"/logs/{run.sha256}/raw")
    assert response.status_code == 200 and response["Content-Type"] == "text/plain; charset=utf-8"
    assert b"".join(response.streaming_content).startswith(b":::MLLOG line 1\n")
    assert client.get(f"/logs/{'0' * 64}/raw").status_code == 404


def test_finding_links_open_the_page_holding_their_line(client, world):
    html = client.get("/results/1.0-0001/").content.decode()
    assert "?page=1#L7" in html


def test_a_system_name_that_is_a_spreadsheet_formula_is_neutralised_in_every_csv(client, world):
    # The attack: a submitter names its system =HYPERLINK(...) and the CSV runs it in Excel.
    from results.models import System

    System.objects.filter(system_id="dgx").update(
        name='=HYPERLINK("http://evil.example","x")', framework="+cmd|' /C calc'!A0", notes="\tnote",
        accelerator_model_name="@SUM(1+1)",
    )
    for url in ("/rounds/training-v1.0/table.csv", "/rounds/training-v1.0/summary.csv"):
        rows = list(csv.DictReader(io.StringIO(client.get(url).content.decode())))
        dgx = next(row for row in rows if row["system_id"] == "dgx")
        assert dgx["system"] == "'=HYPERLINK(\"http://evil.example\",\"x\")"
        assert dgx["framework"].startswith("'+cmd")
        assert dgx["accelerator_model_name"] == "'@SUM(1+1)"
        assert dgx["notes"] == "'\tnote"
        for row in rows:
            for value in row.values():
                assert not value or value[0] not in "=+@\t\r", (url, value)


def test_negative_numbers_stay_numbers_in_csv():
    from pages.csv_rows import neutralise_formula

    assert neutralise_formula("-1.5") == "-1.5" and neutralise_formula(-2) == -2
    assert neutralise_formula("-1+2") == "'-1+2" and neutralise_formula("\rx") == "'\rx"


def test_bert_counts_samples_as_its_rcp_rules_do(client, world):
    """BERT logs differ: some put the sample count in epoch_num, NVIDIA's code logs epoch_num 1."""
    result = world["dgx_bert"]
    result.converge_mean = 2561296.375
    result.rcp = {**result.rcp, "submission_mean": 2561296.375, "rcp_mean": 2793952.0}
    result.save()
    runs = list(result.runs.order_by("pk"))
    runs[0].epochs_to_target, runs[0].global_batch_size = 1927522.0, 3264  # a sample count in epoch_num
    runs[1].epochs_to_target, runs[1].global_batch_size = 1.0, 3264  # epoch 1: no sample count in the log
    for run in runs[:2]:
        run.save()
    html = client.get("/results/1.0-0002/").content.decode()
    assert "Samples to target" in html and "Epochs to target" not in html
    assert "1,927,522" in html and ">1.0<" not in html
    assert "2,561,296 samples" in html and "2,793,952 samples" in html and "2793952.0000" not in html
    page = client.get("/rounds/training-v1.0/bert/")
    assert "Samples to converge" in page.content.decode()
    assert page.context["charts"][2].figure["layout"]["yaxis"]["title"]["text"].startswith("Samples")
    resnet = client.get("/rounds/training-v1.0/resnet/")
    assert resnet.context["charts"][2].figure["layout"]["yaxis"]["title"]["text"].startswith("Epochs")


def test_runs_are_listed_in_natural_order(client, world):
    result = world["dgx_resnet"]
    for run, name in zip(result.runs.order_by("pk"), ["result_10.txt", "result_2.txt", "result_1.txt",
                                                      "result_0.txt", "result_11.txt"], strict=True):
        run.file = f"results/dgx/resnet/{name}"
        run.save()
    response = client.get("/results/1.0-0001/")
    assert [r.file.rsplit("/", 1)[1] for r in response.context["runs"]] == [
        "result_0.txt", "result_1.txt", "result_2.txt", "result_10.txt", "result_11.txt"]


def test_compare_formats_numbers_with_their_unit(client, world):
    html = client.get("/compare/?result=1.0-0001&result=1.0-0002").content.decode()
    assert "40 epochs" in html and "40 samples" in html


def test_home_leads_with_pictures_and_real_publication_dates(client, world):
    import datetime

    round_ = world["round"]
    round_.publish_at = datetime.datetime(2021, 6, 30, tzinfo=datetime.UTC)
    round_.save()
    response = client.get("/")
    html = response.content.decode()
    assert "June 2021" in html
    assert 'id="figure-headlines"' in html and 'id="figure-best-time"' in html
    assert "/progress/training/charts/headlines.csv" in html
    csv_text = client.get("/progress/training/charts/headlines.csv").content.decode()
    assert csv_text.startswith("benchmark,round,minutes") and "1.0-0003" in csv_text  # the fastest resnet


def test_a_benchmark_nobody_entered_says_so_and_is_not_linked(client, world):
    from results.tests.factories import make_benchmark

    make_benchmark(world["round"], "minigo")
    round_page = client.get("/rounds/training-v1.0/").content.decode()
    assert "minigo (no results)" in round_page and "/rounds/training-v1.0/minigo/" not in round_page
    assert not any(address.endswith("/rounds/training-v1.0/minigo/") for address in sitemap_pages(client))
    page = client.get("/rounds/training-v1.0/minigo/")
    html = page.content.decode()
    assert page.status_code == 200 and "nothing to rank or plot" in html
    assert "plotly" not in html and 'id="ranked"' not in html


def test_the_benchmark_page_draws_the_pareto_frontier_with_its_csv(client, world):
    html = client.get("/rounds/training-v1.0/resnet/").content.decode()
    assert 'id="figure-pareto"' in html and "charts/pareto.csv" in html
    rows = list(csv.DictReader(io.StringIO(client.get("/rounds/training-v1.0/resnet/charts/pareto.csv")
                                           .content.decode())))
    assert {r["result_id"]: r["on_frontier"] for r in rows if r["division"] == "closed"} == {
        "1.0-0001": "True", "1.0-0004": "True", "1.0-0003": "True"}


def test_imported_results_link_to_the_rounds_public_repository(client, world):
    submission = world["dgx_resnet"].submission
    submission.source = "/data/training_results_v1.0/Alpha Inc"
    submission.save()
    html = client.get("/results/1.0-0001/").content.decode()
    assert "https://github.com/mlcommons/training_results_v1.0/blob/main/Alpha%20Inc/systems/dgx.json" in html
    assert "https://github.com/mlcommons/training_results_v1.0/blob/master/Alpha%20Inc/benchmarks" in html
    assert "system description</a>" in client.get("/systems/alpha/dgx/").content.decode()
    submission.source = "upload:alpha.tar.gz"
    submission.save()
    assert "mlcommons/training_results" not in client.get("/results/1.0-0001/").content.decode()


def test_search_lists_each_system_once_with_its_rounds_and_hides_systems_without_results(client, world):
    make_system(world["dgx_resnet"].submission, "idle", name="DGX A100")  # same name, no result
    twin = make_system(make_submission(world["round"], make_org("Gamma")), "dgx_twin", name="DGX A100",
                       accelerator_model_name="NVIDIA A100-PCIe-40GB(250W)", framework="MXNet 21.05")
    make_result(twin, "resnet", minutes=30.0)
    response = client.get("/search/?q=dgx a100")
    systems = response.context["systems"]
    assert [(s["organization"], s["system_id"]) for s in systems] == [("alpha", "dgx"), ("gamma", "dgx_twin")]
    assert systems[0]["rounds"] == [("training-v1.0", "Training v1.0", 2)] and systems[0]["ambiguous"]
    html = response.content.decode()
    assert "<code>dgx_twin</code>" in html and "MXNet 21.05" in html  # what tells the twins apart


def test_accelerator_spellings_are_one_choice_for_filtering(client, world):
    spelled = make_system(world["dgx_resnet"].submission, "pcie", name="PCIe box",
                          accelerator_model_name="NVIDIA A100-PCIE-40GB (250W)")
    other = make_system(world["dgx_resnet"].submission, "pcie2", name="PCIe box 2",
                        accelerator_model_name="NVIDIA A100-PCIe-40GB(250W)")
    make_result(spelled, "resnet", minutes=40.0)
    make_result(other, "resnet", minutes=41.0)
    make_result(make_system(world["dgx_resnet"].submission, "pcie3", name="PCIe box 3",
                            accelerator_model_name="NVIDIA A100-PCIE-40GB (250W)"), "bert", minutes=42.0)
    response = client.get("/rounds/training-v1.0/")
    labels = [label for _, label in response.context["options"]["accelerators"]]
    assert labels.count("NVIDIA A100-PCIE-40GB (250W)") == 1 and "NVIDIA A100-PCIe-40GB(250W)" not in labels
    filtered = client.get("/rounds/training-v1.0/?accelerator=nvidiaa100-pcie-40gb(250w)")
    assert {row["system"] for row in filtered.context["table"].rows} == {"PCIe box", "PCIe box 2", "PCIe box 3"}
    search = client.get("/search/?q=pcie").context["accelerators"]
    assert len(search) == 1 and sorted(search[0]["spellings"]) == ["NVIDIA A100-PCIE-40GB (250W)",
                                                                   "NVIDIA A100-PCIe-40GB(250W)"]
    system_page = client.get("/systems/alpha/pcie2/").content.decode()
    assert "NVIDIA A100-PCIe-40GB(250W)" in system_page  # the raw spelling where the system is shown


def test_compare_names_unknown_ids_and_columns_can_be_removed(client, world):
    response = client.get("/compare/?result=1.0-0001&result=9.9-9999&result=1.0-0003&result=1.0-0004")
    html = response.content.decode()
    assert response.context["missing"] == ["9.9-9999"] and "<code>9.9-9999</code>" in html
    remove = {c["key"]: c["remove_url"] for c in response.context["columns"]}
    assert remove["1.0-0003"] == "?result=1.0-0001&result=1.0-0004"
    assert client.get("/compare/?system=alpha/nope&system=alpha/dgx").context["missing"] == ["alpha/nope"]


def test_the_front_cache_answers_before_sessions_and_stores_compressed_bytes(client, world,
                                                                             django_assert_max_num_queries):
    import gzip

    first = client.get("/rounds/training-v1.0/", HTTP_ACCEPT_ENCODING="gzip")
    # The first visitor already gets the stored bytes: compressed once, for them and the next ones.
    assert first.status_code == 200 and first["Content-Encoding"] == "gzip"
    with django_assert_max_num_queries(1):  # the data version; no session, no user
        hit = client.get("/rounds/training-v1.0/", HTTP_ACCEPT_ENCODING="gzip, br")
    assert hit["Content-Encoding"] == "gzip" and hit.content == first.content
    assert hit["X-Frame-Options"] == first["X-Frame-Options"]  # headers of the inner middleware kept
    plain = client.get("/rounds/training-v1.0/")  # plain for clients without gzip
    assert "Content-Encoding" not in plain and plain.content == gzip.decompress(first.content)
    login_page = client.get("/accounts/login/")  # sets the CSRF cookie: never stored
    assert login_page.cookies and client.get("/accounts/login/").cookies


def test_a_process_reuses_the_data_version_briefly_and_forgets_it_when_it_writes(world, monkeypatch,
                                                                                django_assert_max_num_queries):
    from pages import caching

    monkeypatch.setattr(caching, "DATA_VERSION_SECONDS", 60)
    caching.forget_data_version()
    version = caching.data_version()
    with django_assert_max_num_queries(0):
        assert caching.data_version() == version
    make_result(world["pod_resnet"].system, "bert", minutes=3.0)  # a write in this process
    assert caching.data_version() != version


def test_the_sitemaps_addresses_are_those_reverse_builds():
    """A sitemap part builds its 50,000 addresses, and a table page its rows' links, from one reverse()
    (pages.common.addresses_of): quoted as reverse() quotes them, and refused where reverse() refuses."""
    from django.urls import NoReverseMatch, reverse

    from pages.common import addresses_of

    results = [("training:0.7-0002:transformer",), ("a b",), ("x%y",), ("ü(1)",), ("semi;colon=&",), ("q?#",)]
    assert addresses_of("pages:result", results) == [reverse("pages:result", args=row) for row in results]
    systems = [("dellemc", "C4140"), ("org", "sys with space"), ("ü", "a+b"), ("o", "address-slot-1-")]
    assert addresses_of("pages:system", systems) == [reverse("pages:system", args=row) for row in systems]
    with pytest.raises(NoReverseMatch):
        addresses_of("pages:system", [("org", "a/b")])
