"""Snapshots (issue 24): taken at publication and after each later change, numbered, frozen, their
files re-read and checked against the database and their checksums, served with ETag and
Last-Modified; a training round's JSON is the official summarizer's table, an inference round's
has the shape of summary_results.json."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command

from pages import suites
from pages.snapshots import take_snapshot
from results.models import Result, Round, Run, System
from results.services.rounds import publish_round
from results.tests.factories import make_result, make_round, make_submission, make_system
from review.services import decide_withdrawal, withdraw_result

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def storage(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path  # each test's snapshots in its own folder


def download(client, round_, number, name) -> bytes:
    response = client.get(f"/rounds/{round_.slug}/snapshots/{number}/{name}")
    assert response.status_code == 200, name
    return b"".join(response.streaming_content)


def test_publication_and_each_change_make_a_new_frozen_snapshot(client, personas):
    round_ = make_round("4.1", state="review")
    kept = make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet", minutes=20.0)
    make_result(kept.system, "bert", minutes=30.0)
    publish_round(round_, actor=personas["chair"], reason="press release")
    first = take_snapshot(round_)
    assert first.number == 1 and take_snapshot(round_) is None  # nothing changed since
    request = withdraw_result(personas["owner"], kept, "misreported")  # published: a chair approves
    decide_withdrawal(personas["chair"], request, approve=True, reason="approved")
    second = take_snapshot(round_)
    assert second.number == 2

    # Every file of both snapshots is still there and matches its checksum and SHA256SUMS.
    for snapshot in (first, second):
        sums = download(client, round_, snapshot.number, "SHA256SUMS").decode().splitlines()
        listed = {name: digest for digest, name in (line.split("  ") for line in sums)}
        for f in snapshot.files:
            data = download(client, round_, snapshot.number, f["name"])
            assert hashlib.sha256(data).hexdigest() == f["sha256"] and len(data) == f["bytes"]
            if f["name"] != "SHA256SUMS":
                assert listed[f["name"]] == f["sha256"]
    # The files say what the database said: the first has both results, the second one.
    columns, expected = suites.of_round(round_).summary_rows(round_, user=None)
    now = json.loads(download(client, round_, 2, "results.json"))
    assert now == json.loads(json.dumps(expected, default=str)) and len(now) == 1
    before = json.loads(download(client, round_, 1, "results.json"))
    assert before[0]["resnet_result_id"] == kept.result_id and now[0]["resnet_result_id"] == ""
    runs = list(csv.DictReader(io.StringIO(download(client, round_, 1, "runs.csv").decode())))
    assert len(runs) == Run.objects.filter(result__submission__round=round_).count() == 10
    parquet = pq.read_table(io.BytesIO(download(client, round_, 1, "systems.parquet")))
    assert parquet.num_rows == System.objects.filter(submission__round=round_).count() == 1
    readme = download(client, round_, 2, "README.md").decode()
    assert "Apache License 2.0" in readme and "official result summarizer's table" in readme
    page = client.get(f"/rounds/{round_.slug}/snapshots/").content.decode()
    assert "Snapshot 2" in page and "Snapshot 1" in page


def test_snapshot_files_answer_conditional_gets(client, personas):
    round_ = make_round("4.1", state="review")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    publish_round(round_, actor=personas["chair"], reason="press release")
    call_command("snapshot_rounds", stdout=io.StringIO())
    url = f"/rounds/{round_.slug}/snapshots/1/results.csv"
    response = client.get(url)
    etag, modified = response["ETag"], response["Last-Modified"]
    assert etag.strip('"') == round_.snapshots.get().files[1]["sha256"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert client.get(url, HTTP_IF_MODIFIED_SINCE=modified).status_code == 304
    # A stored file goes as stored, even to a client that accepts gzip (config.middleware.TextGZipMiddleware).
    as_stored = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in as_stored and as_stored["ETag"] == etag
    assert client.get(f"/rounds/{round_.slug}/snapshots/1/nope.csv").status_code == 404
    assert client.get(f"/rounds/{round_.slug}/snapshots/9/results.csv").status_code == 404


def test_an_inference_snapshot_has_the_shape_of_summary_results(client, sample_data):
    call_command("import_results", str(sample_data / "inference-v0.7"), "--round", "inference-v0.7", "--publish",
                 stdout=io.StringIO())
    round_ = Round.objects.get(suite="inference")
    take_snapshot(round_)
    rows = json.loads(download(client, round_, 1, "results.json"))
    accepted = Result.objects.visible_to(None).current().for_round(round_).filter(valid=True)
    assert len(rows) == accepted.count()
    for name in ("ID", "Submitter", "Category", "Platform", "Model", "Scenario", "Performance_Result",
                 "Performance_Units", "Location"):
        assert all(name in row for row in rows), name
    row = rows[0]
    result = accepted.get(folder=row["Location"].split("/", 2)[2])
    assert row["ID"] == result.citable.entry and row["Performance_Result"] == result.metric_value
    assert "summary_results.json" in download(client, round_, 1, "README.md").decode()


def test_an_unpublished_round_has_no_snapshot(personas):
    round_ = make_round("5.0", state="review")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    assert take_snapshot(round_) is None


def test_the_api_answers_conditional_gets(client, personas):
    round_ = make_round("4.1")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    for _attempt in range(2):  # the view's answer, then the cached one
        response = client.get("/api/v1/results/")
        assert response.status_code == 200 and response["ETag"]
        assert client.get("/api/v1/results/", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
