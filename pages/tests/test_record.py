"""Results of record: an earlier version of a result at its own address, and embeddable charts."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from results.services.lifecycle import publish_version
from results.services.rounds import publish_round
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions(personas):
    """Result 4.1-0001 published in version 1, corrected by a published version 2; a version 3
    is written but not published."""
    round_ = make_round("4.1", state="review")
    alpha = personas["alpha"]
    first = make_submission(round_, alpha, version=1)
    make_result(make_system(first, "box"), "resnet", minutes=30.0, result_id="4.1-0001")
    publish_round(round_, actor=personas["chair"], reason="press release")
    second = make_submission(round_, alpha, version=2, is_current=False)
    make_result(make_system(second, "box"), "resnet", minutes=27.0, result_id="4.1-0001")
    publish_version(second, actor=personas["chair"], reason="wrong system description fixed")
    third = make_submission(round_, alpha, version=3, is_current=False, published=False)
    make_result(make_system(third, "box"), "resnet", minutes=20.0, result_id="4.1-0001")
    return round_


def test_an_earlier_version_has_its_own_address_marked_superseded(client, versions):
    html = client.get("/results/4.1-0001/v1/").content.decode()
    assert 'id="old-version"' in html and "This is version 1 of result 4.1-0001" in html
    assert "Superseded" in html and 'href="/results/4.1-0001/">version 2</a>' in html
    assert "30.00" in html and "27.00" not in html
    assert 'href="/r/4.1-0001/v1"' in html  # its permalink names the version
    assert 'href="/results/4.1-0001/v1/charts/convergence.csv"' in html
    assert client.get("/results/4.1-0001/v1/charts/convergence.csv").status_code == 200


def test_the_current_version_lists_every_public_version(client, versions):
    html = client.get("/results/4.1-0001/").content.decode()
    assert 'id="old-version"' not in html
    assert '<a href="/results/4.1-0001/v1/">v1</a>' in html and "<strong>v2 (current)</strong>" in html
    assert "v3" not in html  # never published


def test_version_addresses_redirect_and_hide_what_is_not_public(client, versions):
    assert client.get("/r/4.1-0001/v1")["Location"] == "/results/4.1-0001/v1/"
    assert client.get("/results/4.1-0001/v2/")["Location"] == "/results/4.1-0001/"  # the current one
    assert client.get("/results/4.1-0001/v3/").status_code == 404
    assert client.get("/r/4.1-0001/v3").status_code == 404
    assert client.get("/results/4.1-0001/v9/").status_code == 404


def test_a_chart_embed_is_a_framable_cached_page_with_its_source(client, versions):
    response = client.get("/rounds/training-v4.1/resnet/charts/time-to-train/embed/?division=closed")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="figure-time-to-train"' in html and "Cite as:" in html and "Apache License 2.0" in html
    assert 'href="http://testserver/rounds/training-v4.1/resnet/?division=closed"' in html
    assert 'href="/rounds/training-v4.1/resnet/charts/time-to-train.csv?division=closed"' in html
    assert "frame-ancestors *" in response["Content-Security-Policy"]
    assert "X-Frame-Options" not in response
    assert "public" in response["Cache-Control"] and not response.cookies
    # Every other page still refuses to be framed.
    page = client.get("/rounds/training-v4.1/resnet/")
    assert page["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in page["Content-Security-Policy"]
    assert 'href="/rounds/training-v4.1/resnet/charts/time-to-train/embed/"' in page.content.decode()
    assert client.get("/results/4.1-0001/charts/convergence/embed/").status_code == 200
    assert client.get("/progress/training/charts/best-time/embed/").status_code == 200
    assert client.get("/rounds/training-v4.1/resnet/charts/nothing/embed/").status_code == 404


def test_an_embed_shows_what_an_anonymous_visitor_sees_whoever_asks(client, personas):
    round_ = make_round("5.0", state="review")
    submission = make_submission(round_, make_org("Delta"), published=False)
    make_result(make_system(submission, "box"), "resnet", result_id="5.0-0001")
    client.force_login(personas["chair"])
    assert client.get("/rounds/training-v5.0/resnet/").status_code == 200
    assert client.get("/rounds/training-v5.0/resnet/charts/time-to-train/embed/").status_code == 404


@pytest.fixture
def scales():
    """resnet on 8 accelerators (1 node) in 30 minutes and on 64 (8 nodes) in 5: the big system is
    faster, the small one uses fewer accelerator-minutes (240 against 320)."""
    round_ = make_round("4.0")
    submission = make_submission(round_, make_org("Alpha"))
    small = make_system(submission, "n1", name="One node", accelerators_count=8, number_of_nodes=1)
    big = make_system(submission, "n8", name="Eight nodes", accelerators_count=64, number_of_nodes=8)
    make_result(small, "resnet", minutes=30.0, result_id="4.0-0001")
    make_result(big, "resnet", minutes=5.0, result_id="4.0-0002")
    return round_


def _ranked_ids(html: str) -> list[str]:
    table = html[html.index('id="ranked"'):]
    return [part.split('"')[0] for part in table.split('href="/results/')[1:]]


def test_a_training_leaderboard_offers_normalised_views_labelled_as_such(client, scales):
    html = client.get("/rounds/training-v4.0/resnet/").content.decode()
    assert _ranked_ids(html) == ["4.0-0002/", "4.0-0001/"]
    assert 'id="normalised-label"' not in html and '<a href="?per=accelerator">Per accelerator</a>' in html
    assert "Per watt" not in html  # no result has its energy
    html = client.get("/rounds/training-v4.0/resnet/?per=accelerator").content.decode()
    assert _ranked_ids(html) == ["4.0-0001/", "4.0-0002/"]  # 240 accelerator-minutes before 320
    assert "Normalised: Accelerator-minutes (minutes × accelerators" in html
    assert ">240.00<" in html and ">320.00<" in html and ">30.00<" in html  # beside the totals
    assert 'href="/rounds/training-v4.0/resnet/charts/time-to-train/embed/?per=accelerator"' in html
    chart = client.get("/rounds/training-v4.0/resnet/charts/time-to-train.json?per=node").json()
    assert chart["figure"]["layout"]["yaxis"]["title"]["text"] == "Node-minutes (log)"
    assert [row["node_minutes"] for row in chart["rows"]] == [30.0, 40.0]
    assert "normalised" in chart["figure"]["layout"]["title"]["text"]


def test_a_comparison_across_divisions_availability_or_rounds_says_so(client, world_two_rounds):
    html = client.get("/compare/?result=4.0-0001&result=4.1-0001").content.decode()
    assert 'id="mixing-warning"' in html and "divisions (closed" in html and "rounds (rules" in html
    html = client.get("/compare/?result=4.0-0001&result=4.0-0002").content.decode()
    assert 'id="mixing-warning"' not in html
    assert 'id="mixing-warning"' in client.get("/progress/training/").content.decode()


@pytest.fixture
def world_two_rounds(scales):
    submission = make_submission(make_round("4.1"), make_org("Beta"))
    make_result(make_system(submission, "box", division="open"), "resnet", minutes=9.0, result_id="4.1-0001")


def _import(sample_data, name: str) -> None:
    call_command("import_results", str(sample_data / name), "--round", name, "--publish", stdout=io.StringIO())


def test_inference_leaderboards_per_accelerator_and_per_watt(client, sample_data):
    _import(sample_data, "inference-v4.1")
    html = client.get("/rounds/inference-v4.1/").content.decode()
    assert 'href="?per=watt">Per watt</a>' in html  # the sample measured power
    html = client.get("/rounds/inference-v4.1/?per=accelerator&division=closed").content.decode()
    assert "Normalised: per accelerator (throughput ÷ accelerators" in html
    assert '<input type="hidden" name="per" value="accelerator">' in html  # the filters keep the view
    assert "(normalised)</span></th>" in html
    chart = client.get("/rounds/inference-v4.1/charts/relative-performance.json?per=watt").json()
    assert "per joule (normalised)" in chart["figure"]["layout"]["title"]["text"]
    assert chart["rows"] and all(row["unit"] == "per joule" for row in chart["rows"])


def test_an_inference_leaderboard_mixing_divisions_warns(client, sample_data):
    _import(sample_data, "inference-v0.7")
    html = client.get("/rounds/inference-v0.7/?model=resnet&scenario=Offline").content.decode()
    assert 'class="notice mixing-warning"' in html and "divisions (closed" in html
    html = client.get("/rounds/inference-v0.7/?model=resnet&scenario=Offline&division=closed").content.decode()
    assert "divisions (closed" not in html  # closed alone (its systems still differ in availability)


def test_the_inference_progress_page_speaks_of_inference_and_plots(client, sample_data):
    _import(sample_data, "inference-v0.7")
    _import(sample_data, "inference-v4.1")
    html = client.get("/progress/inference/").content.decode()
    assert "Best throughput" in html and "minutes" not in html.lower().split("<footer")[0]
    assert "nothing to plot yet" not in html
    rows = client.get("/progress/inference/charts/best-throughput.json").json()["rows"]
    assert {row["round"] for row in rows} == {"0.7", "4.1"} and all(row["scenario"] != "SingleStream" for row in rows)
    assert client.get("/progress/inference/charts/best-per-accelerator.csv").status_code == 200


def test_hpc_time_to_solution_per_node(client, sample_data):
    _import(sample_data, "hpc-v1.0")
    html = client.get("/rounds/hpc-v1.0/?per=node").content.decode()
    assert "Normalised: Node-minutes" in html and "ranked by node-minutes (normalised)" in html
    html = client.get("/rounds/hpc-v1.0/oc20/?per=accelerator").content.decode()
    assert "Accelerator-minutes <span class=\"muted\">(normalised)</span>" in html


def test_hpc_weak_scaling_throughput_per_accelerator(client, sample_data):
    from results.models import Result

    _import(sample_data, "hpc-v1.0")
    weak = Result.objects.filter(scaling="weak").exclude(models_per_minute=None).select_related("system")
    assert weak, "the HPC v1.0 sample has weak-scaling results"
    html = client.get("/rounds/hpc-v1.0/?per=accelerator").content.decode()
    assert "ranked by models per minute per accelerator (normalised)" in html
    assert "Models/min per accelerator" in html
    html = client.get("/rounds/hpc-v1.0/?per=watt").content.decode()  # offered only with energy
    assert "Models/min per" not in html or "no energy of a weak-scaling result" in html
