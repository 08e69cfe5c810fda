"""What a researcher cites and downloads (issue 34): snapshots verifiable with `sha256sum -c` as
downloaded (each file under the name SHA256SUMS lists, the whole snapshot as one archive), the
inference snapshot's runs in inference words, tombstones (410 Gone) for results that were public
and are gone, the Atom feeds (RFC 4287, absolute links to the host asked, readable in a browser, one
per round), rounds dated when MLCommons published them, and the ids people paste resolving."""

from __future__ import annotations

import csv
import datetime
import io
import json
import re
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from urllib.parse import urlparse

import pytest
from django.contrib.staticfiles import finders
from django.core.management import CommandError, call_command
from django.template.defaultfilters import floatformat
from django.templatetags.static import static

from pages.snapshots import take_snapshot
from pages.suites.inference.snapshot import INFERENCE_RUN_COLUMNS
from results.models import CitableId, Result, Round
from results.services.lifecycle import publish_version, remove_result
from results.services.rounds import publish_round
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from review.services import decide_withdrawal, withdraw_result

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"
SHA256SUM = shutil.which("sha256sum")


@pytest.fixture(autouse=True)
def storage(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"  # each test's snapshots in its own folder


def import_round(path, slug: str, *extra: str) -> Round:
    call_command("import_results", str(path), "--round", slug, "--publish", "--jobs", "1", *extra, stdout=io.StringIO())
    return Round.objects.visible_to(None).named(slug)


def withdraw(personas, result: Result, reason: str) -> None:
    """Its organization asks, a chair approves: how a published result is withdrawn."""
    request = withdraw_result(personas["owner"], result, reason)
    decide_withdrawal(personas["chair"], request, approve=True, reason="approved")


@pytest.fixture
def withdrawn(personas):
    """A published training round: Alpha's resnet published as version 1, corrected by version 2,
    then withdrawn; Gamma's bert stays."""
    round_ = make_round("4.1", state="review")
    first = make_submission(round_, personas["alpha"], version=1)
    make_result(make_system(first, "box"), "resnet", minutes=21.5, metric_value=21.5, metric_unit="minutes")
    kept = make_result(make_system(make_submission(round_, make_org("Gamma"), version=1), "pod"), "bert",
                       minutes=30.0, metric_value=30.0, metric_unit="minutes")
    publish_round(round_, actor=personas["chair"], reason="press release")
    second = make_submission(round_, personas["alpha"], version=2, is_current=False, published=False)
    fixed = make_result(make_system(second, "box"), "resnet", minutes=20.25, metric_value=20.25, metric_unit="minutes")
    publish_version(second, actor=personas["chair"], reason="node count corrected")
    withdraw(personas, Result.objects.get(pk=fixed.pk), "the system was never available")
    return round_, Result.objects.get(pk=fixed.pk), kept


def saved_name(response) -> str:
    return re.search(r'filename="([^"]+)"', response["Content-Disposition"]).group(1)


# --- 1. Snapshots, verifiable as downloaded --------------------------------------------------------


@pytest.mark.skipif(SHA256SUM is None, reason="no sha256sum on this machine")
def test_snapshot_files_saved_under_their_download_names_pass_sha256sum(client, personas, tmp_path):
    round_ = make_round("4.1", state="review")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    publish_round(round_, actor=personas["chair"], reason="press release")
    snapshot = take_snapshot(round_)
    folder = tmp_path / "downloads"
    folder.mkdir()
    for listed in snapshot.files:  # as a browser saves each link of the snapshot page
        response = client.get(f"/rounds/{round_.slug}/snapshots/1/{listed['name']}")
        assert response.status_code == 200 and saved_name(response) == listed["name"]
        (folder / saved_name(response)).write_bytes(b"".join(response.streaming_content))
    checked = subprocess.run([SHA256SUM, "-c", "SHA256SUMS"], cwd=folder, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": OK") == len(snapshot.files) - 1  # every file but SHA256SUMS itself


@pytest.mark.skipif(SHA256SUM is None, reason="no sha256sum on this machine")
def test_a_snapshot_downloads_as_one_archive_that_passes_sha256sum(client, personas, tmp_path):
    round_ = make_round("4.1", state="review")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    publish_round(round_, actor=personas["chair"], reason="press release")
    snapshot = take_snapshot(round_)
    url = f"/rounds/{round_.slug}/snapshots/1.tar.gz"
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
    assert saved_name(response) == "training-v4.1-snapshot-1.tar.gz"
    data = b"".join(response.streaming_content)
    assert b"".join(client.get(url).streaming_content) == data  # the same bytes every time
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        names = archive.getnames()
        archive.extractall(tmp_path, filter="data")
    folder = tmp_path / "training-v4.1-snapshot-1"
    assert names[0] == folder.name and sorted(names[1:]) == sorted(f"{folder.name}/{f['name']}" for f in snapshot.files)
    checked = subprocess.run([SHA256SUM, "-c", "SHA256SUMS"], cwd=folder, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    assert client.get(f"/rounds/{round_.slug}/snapshots/2.tar.gz").status_code == 404
    page = client.get(f"/rounds/{round_.slug}/snapshots/").content.decode()
    assert f'href="{url}"' in page and "sha256sum -c SHA256SUMS" in page and "tar -xzf training-v4.1-snapshot-1.tar.gz" in page


def test_an_inference_snapshots_runs_have_inference_columns(client, sample_data):
    round_ = import_round(sample_data / "inference-v4.1", "inference-v4.1")
    take_snapshot(round_)
    response = client.get(f"/rounds/{round_.slug}/snapshots/1/runs.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert list(rows[0]) == INFERENCE_RUN_COLUMNS and "time_to_train_minutes" not in rows[0]
    results = Result.objects.visible_to(None).current().for_round(round_)
    assert len(rows) == results.count() == 5
    server = next(r for r in rows if r["scenario"] == "Server")
    assert server["run_folders"].endswith("performance/run_1") and server["loadgen_verdict"] == "VALID"
    assert float(server["metric_value"]) == pytest.approx(592.265, rel=1e-3) and server["latency_p99_ms"]
    readme = b"".join(client.get(f"/rounds/{round_.slug}/snapshots/1/README.md").streaming_content).decode()
    assert "LoadGen performance run" in readme and "time to train" not in readme


# --- 2. Tombstones ---------------------------------------------------------------------------------


def test_a_withdrawn_result_answers_410_with_its_tombstone(client, withdrawn):
    round_, result, kept = withdrawn
    for url in (f"/r/{result.result_id}", f"/results/{result.result_id}/"):
        response = client.get(url)
        assert response.status_code == 410, url
        assert response["Cache-Control"] == "no-cache"  # a reinstatement shows at once
        html = response.content.decode()
        for text in (result.result_id, "withdrawn by its organization", "the system was never available",
                     "20.25", "minutes", "BOX 8xA100", "resnet", "version 2", f'href="/rounds/{round_.slug}/"',
                     f'href="/rounds/{round_.slug}/changes/#change-', 'href="/results/' + result.result_id + '/v1/"'):
            assert text in html, (url, text)
        assert response.context["gone"].gone_at.date() == datetime.date.today()
    # The change log's row the tombstone links to is there.
    change = client.get(f"/rounds/{round_.slug}/changes/").content.decode()
    assert f'id="change-{response.context["gone"].change}"' in change
    # The earlier published version is still readable as history; the active one still works.
    history = client.get(f"/results/{result.result_id}/v1/")
    assert history.status_code == 200 and history.context["result"].submission.version == 1
    assert client.get(f"/r/{result.result_id}/v1").url == f"/results/{result.result_id}/v1/"
    assert client.get(f"/results/{result.result_id}/v2/").url == f"/results/{result.result_id}/"
    assert client.get(f"/results/{kept.result_id}/").status_code == 200


def test_the_api_answers_410_with_the_tombstone_as_json(client, withdrawn):
    round_, result, _ = withdrawn
    response = client.get(f"/api/v1/results/{result.result_id}/")
    assert response.status_code == 410 and response["Cache-Control"] == "no-cache"
    body = response.json()
    assert body["status"] == "withdrawn" and body["reason"].startswith("the system was never available")
    assert body["last_published"]["metric_value"] == 20.25 and body["last_published"]["submission_version"] == 2
    assert body["earlier_versions"] == [f"/results/{result.result_id}/v1/"] and body["round"] == round_.slug
    assert body["url"] == f"/r/{result.result_id}"


def test_a_result_removed_by_review_after_publication_has_a_tombstone(client, personas):
    round_ = make_round("4.1", state="review")
    result = make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet",
                         metric_value=30.0, metric_unit="minutes")
    publish_round(round_, actor=personas["chair"], reason="press release")
    remove_result(result, actor=personas["chair"], reason="objection 3: the logs belong to another system")
    response = client.get(f"/r/{result.result_id}")
    assert response.status_code == 410
    html = response.content.decode()
    assert "removed by a review decision" in html and "the logs belong to another system" in html


def test_a_result_that_was_never_public_is_a_plain_404(client, personas):
    # Withdrawn before publication: nobody could cite it.
    round_ = make_round("4.1", state="review")
    early = make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    withdraw_result(personas["owner"], early, "not ready")
    publish_round(round_, actor=personas["chair"], reason="press release")
    # Withdrawn in a round still under embargo (a chair withdraws nothing published: no tombstone).
    embargoed = make_round("5.0", state="review")
    hidden = make_result(make_system(make_submission(embargoed, personas["alpha"], published=False), "pod"), "resnet")
    withdraw_result(personas["owner"], hidden, "not ready")
    for result in (early, hidden):
        for url in (f"/r/{result.result_id}", f"/results/{result.result_id}/", f"/api/v1/results/{result.result_id}/"):
            assert client.get(url).status_code == 404, url
    assert b"withdrawn" not in client.get(f"/r/{hidden.result_id}").content


def test_its_organization_still_sees_a_withdrawn_results_page(client, withdrawn, personas):
    _, result, _ = withdrawn
    client.force_login(personas["owner"])
    response = client.get(f"/results/{result.result_id}/")
    assert response.status_code == 200 and ">Withdrawn<" in response.content.decode()


# --- 3. Atom ---------------------------------------------------------------------------------------


def parsed_feed(response) -> ET.Element:
    """The feed, checked against RFC 4287's required elements: feed id, title, updated and author
    (or one in every entry); each entry's id, title, updated and alternate link; every link and
    id an absolute IRI."""
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated"):
        assert len(feed.findall(f"{ATOM}{name}")) == 1, name
    assert feed.find(f"{ATOM}author/{ATOM}name").text
    self_link = [link for link in feed.findall(f"{ATOM}link") if link.get("rel") == "self"]
    assert len(self_link) == 1 and self_link[0].get("type") == "application/atom+xml"
    datetime.datetime.fromisoformat(feed.findtext(f"{ATOM}updated"))
    for entry in feed.findall(f"{ATOM}entry"):
        for name in ("id", "title", "updated"):
            assert len(entry.findall(f"{ATOM}{name}")) == 1, name
        datetime.datetime.fromisoformat(entry.findtext(f"{ATOM}updated"))
        assert [link for link in entry.findall(f"{ATOM}link") if link.get("rel") == "alternate"]
    for uri in [e.text for e in feed.iter(f"{ATOM}id")] + [link.get("href") for link in feed.iter(f"{ATOM}link")]:
        parts = urlparse(uri)
        assert parts.scheme in ("http", "https") and parts.netloc, uri
    return feed


def test_the_feed_links_to_the_host_it_was_asked_on(client, withdrawn, settings):
    round_, result, _ = withdrawn
    settings.ALLOWED_HOSTS = ["results.test", "mirror.test"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SITE_URL_SET = False
    secure = parsed_feed(client.get("/changes.atom", HTTP_HOST="results.test", HTTP_X_FORWARDED_PROTO="https"))
    links = [link.get("href") for link in secure.iter(f"{ATOM}link")]
    assert all(link.startswith("https://results.test/") for link in links)
    assert f"https://results.test/r/{result.result_id}" in links
    assert all(e.text.startswith("https://results.test/") for e in secure.iter(f"{ATOM}id"))
    # Another host gets its own links, not the first answer from the page cache.
    other = client.get("/changes.atom", HTTP_HOST="mirror.test").content.decode()
    assert "http://mirror.test/changes.atom" in other and "results.test" not in other
    # SITE_URL, where set, is the address people cite.
    settings.SITE_URL, settings.SITE_URL_SET = "https://mlperf.example.org", True
    fixed = client.get("/changes.atom", HTTP_HOST="results.test").content.decode()
    assert "https://mlperf.example.org/changes.atom" in fixed and "results.test" not in fixed


def test_the_feed_names_its_author_and_a_stylesheet_browsers_show(client, withdrawn):
    reader = client.get("/changes.atom", HTTP_ACCEPT="application/atom+xml")
    assert reader["Content-Type"] == "application/atom+xml; charset=utf-8" and "Accept" in reader["Vary"]
    feed = parsed_feed(reader)
    assert feed.find(f"{ATOM}author/{ATOM}name").text == "MLPerf Results"
    text = reader.content.decode()
    assert text.startswith(f'<?xml version="1.0" encoding="utf-8"?>\n<?xml-stylesheet type="text/css" '
                           f'href="{static("css/atom.css")}"?>') and finders.find("css/atom.css")
    # A browser asks for HTML first: it gets XML, which it shows through the stylesheet.
    browser = client.get("/changes.atom", HTTP_ACCEPT="text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
    assert browser["Content-Type"] == "application/xml; charset=utf-8" and browser.content == reader.content
    entry = feed.find(f"{ATOM}entry")
    content = entry.find(f"{ATOM}content")
    assert content.get("type") == "xhtml" and content.find("{http://www.w3.org/1999/xhtml}div") is not None


def test_each_round_has_its_own_feed(client, withdrawn, personas):
    round_, result, _ = withdrawn
    other = make_round("5.0", state="review")
    make_result(make_system(make_submission(other, personas["beta"]), "rack"), "resnet")
    publish_round(other, actor=personas["chair"], reason="press release")
    feed = parsed_feed(client.get(f"/rounds/{round_.slug}/changes.atom"))
    titles = [e.findtext(f"{ATOM}title") for e in feed.iter(f"{ATOM}entry")]
    assert titles and all(t.startswith("Training v4.1:") for t in titles) and any("Withdrawal" in t for t in titles)
    assert feed.findtext(f"{ATOM}id").endswith(f"/rounds/{round_.slug}/changes.atom")
    site = parsed_feed(client.get("/changes.atom"))
    assert {e.findtext(f"{ATOM}id") for e in feed.iter(f"{ATOM}entry")} < {e.findtext(f"{ATOM}id") for e in site.iter(f"{ATOM}entry")}
    feed_link = f'<link rel="alternate" type="application/atom+xml" title="Training v4.1: changes" href="/rounds/{round_.slug}/changes.atom">'
    assert feed_link in client.get(f"/rounds/{round_.slug}/").content.decode()
    assert f'href="/rounds/{round_.slug}/changes.atom"' in client.get(f"/rounds/{round_.slug}/changes/").content.decode()
    make_round("6.0", state="review")
    assert client.get("/rounds/training-v6.0/changes.atom").status_code == 404


# --- 4. Round dates ---------------------------------------------------------------------------------


def test_an_imported_round_shows_the_day_mlcommons_published_it(client, sample_data):
    round_ = import_round(sample_data / "inference-v0.7", "inference-v0.7")
    assert round_.publish_at == datetime.datetime(2020, 10, 21, tzinfo=datetime.UTC)
    assert '<time datetime="2020-10-21">October 2020</time>' in client.get("/").content.decode()
    # A round imported before (dated the day of its import) gets its date when imported again.
    Round.objects.filter(pk=round_.pk).update(publish_at=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC))
    assert import_round(sample_data / "inference-v0.7", "inference-v0.7").publish_at.date() == datetime.date(2020, 10, 21)
    with pytest.raises(CommandError, match="no known publication date"):
        import_round(sample_data / "inference-v4.1", "inference-v6.1")


# --- 5. Ids as people paste them --------------------------------------------------------------------


def test_pasted_ids_resolve(client, sample_data):
    round_ = import_round(sample_data / "inference-v4.1", "inference-v4.1", "--ids",
                          str(sample_data / "inference-v4.1-ids.json"))
    untether = Result.objects.filter(submission__round=round_, citable__entry="4.1-0068").order_by("result_id")
    neural = Result.objects.get(submission__round=round_, citable__entry="4.1-0052", scenario="Server")
    assert untether.count() == 3 and not neural.citable.local
    # A result id with a slash after it, in other case, with the entry's v: its page.
    for pasted in (f"/r/{neural.result_id}/", f"/r/{neural.result_id.upper()}",
                   f"/r/{neural.result_id.replace(':4.1-', ':v4.1-')}"):
        assert client.get(pasted).url == f"/results/{neural.result_id}/", pasted
    assert client.get(f"/results/{neural.result_id.lower()}/").url == f"/results/{neural.result_id}/"
    # An entry of several results lists them with their figures; the forms people paste all work.
    for pasted in ("4.1-0068", "v4.1-0068", "V4.1-68", "inference:4.1-0068", "4.1-0068/"):
        page = client.get(f"/r/{pasted}")
        assert page.status_code == 200, pasted
        html = page.content.decode()
        assert "official id" in html and "local id" not in html and html.count('class="entry-system"') == 1
        for result in untether:
            assert f'href="/results/{result.result_id}/"' in html and floatformat(result.metric_value, "-4") in html
    # The summary writes the round's own spelling of its ids.
    rows = json.loads(client.get(f"/rounds/{round_.slug}/summary_results.json").content)
    assert {row["ID"] for row in rows} == {"v4.1-0052", "v4.1-0068"}


def test_an_official_entry_of_one_result_opens_it_and_a_local_one_says_what_it_is(client, personas):
    round_ = make_round("4.1", state="review")
    official = make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet",
                           result_id="training:4.1-0007:resnet")
    CitableId.objects.filter(pk=official.citable_id).update(entry="4.1-0007", local=False)
    local = make_result(make_system(make_submission(round_, personas["beta"]), "pod"), "resnet")
    publish_round(round_, actor=personas["chair"], reason="press release")
    assert client.get("/r/4.1-0007").url == f"/results/{official.result_id}/"
    page = client.get(f"/r/{local.citable.entry}")
    assert page.status_code == 200 and 'id="entry-local"' in page.content.decode()
    assert client.get("/r/4.1-9999").status_code == 404 and client.get("/r/not-an-id").status_code == 404


def test_the_api_finds_what_its_documentation_says(client, withdrawn):
    round_, result, kept = withdrawn
    entry = kept.citable.entry
    # By citable id, in the spellings people paste.
    for pasted in (kept.result_id, kept.result_id.upper(), kept.result_id.replace(f":{entry}:", f":v{entry}:")):
        response = client.get(f"/api/v1/results/{pasted}/")
        assert response.status_code == 200 and response.json()["result_id"] == kept.result_id, pasted
    # By entry: a redirect to the entry's results.
    response = client.get(f"/api/v1/results/v{entry}/")
    assert response.status_code == 302 and response.url == f"/api/v1/results/?entry={entry}"
    listed = client.get(response.url).json()["results"]
    assert [r["result_id"] for r in listed] == [kept.result_id]
    assert client.get("/api/v1/results/", {"entry": "4.1"}).status_code == 400
    assert client.get("/api/v1/results/", {"entry": f"inference:{entry}"}).json()["results"] == []
    docs = client.get("/api/schema/").content.decode()
    assert "4.1-0001" in docs and "entry" in docs
