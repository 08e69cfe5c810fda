"""The public change log and its Atom feed (issue 24): a correction, a withdrawal and a factor
decision after publication, each with its date, before and after and reason; never who acted,
never a change before publication; and the sitemap names each URL once."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

from pages.tests.sitemaps import sitemap_pages
from results.models import Result
from results.services.factors import accept_shipped_factor
from results.services.lifecycle import publish_version
from results.services.rounds import publish_round
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from review.services import decide_withdrawal, withdraw_result

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def history(personas):
    round_ = make_round("4.1", state="review")
    alpha = personas["alpha"]
    first = make_submission(round_, alpha, version=1)
    fixed = make_result(make_system(first, "box"), "resnet")
    gamma = make_submission(round_, make_org("Gamma"), version=1)
    other = make_result(make_system(gamma, "pod"), "resnet")
    Result.objects.filter(pk=fixed.pk).update(shipped_scaling_factor=1.25)
    accept_shipped_factor(Result.objects.get(pk=fixed.pk), by=personas["chair"], reason="before publication")
    publish_round(round_, actor=personas["chair"], reason="press release")
    second = make_submission(round_, alpha, version=2, is_current=False)
    make_result(make_system(second, "box"), "resnet")
    publish_version(second, actor=personas["chair"], reason="wrong system description fixed")
    # A published result is withdrawn when a chair approves its organization's request.
    request = withdraw_result(personas["owner"], Result.objects.get(pk=fixed.pk), "the node count was misreported")
    decide_withdrawal(personas["chair"], request, approve=True, reason="approved")
    Result.objects.filter(pk=other.pk).update(shipped_scaling_factor=1.1)
    accept_shipped_factor(Result.objects.get(pk=other.pk), by=personas["chair"], reason="RCP table corrected")
    return round_, fixed, other


def test_the_round_log_shows_each_change_after_publication(client, history, personas):
    round_, fixed, other = history
    html = client.get(f"/rounds/{round_.slug}/changes/").content.decode()
    for text in ("Publication", "press release", "Correction (new version published)", "version 1", "version 2",
                 "wrong system description fixed", "Withdrawal", "the node count was misreported",
                 f"/r/{fixed.result_id}", "Scaling-factor decision", "factor 1 (from the logs)",
                 "factor 1.1 (shipped, accepted)", "RCP table corrected"):
        assert text in html, text
    assert "before publication" not in html  # review before publication is no change
    for name in ("chair", "owner", "reviewer"):
        assert f">{name}<" not in html and personas[name].email not in html
    assert "press release" in client.get("/changes/").content.decode()


def test_the_atom_feed_lists_publications_and_changes(client, history):
    response = client.get("/changes.atom")
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    titles = [e.findtext(f"{ATOM}title") for e in feed.iter(f"{ATOM}entry")]
    assert len(titles) == 4 and titles[-1].endswith("Publication training-v4.1")
    assert any("Withdrawal" in t for t in titles) and all(e.findtext(f"{ATOM}updated") for e in feed.iter(f"{ATOM}entry"))


def test_an_unpublished_round_has_no_public_log(client):
    make_round("5.0", state="review")
    assert client.get("/rounds/training-v5.0/changes/").status_code == 404


def test_the_sitemap_names_each_url_once(client, history):
    round_, fixed, other = history
    locs = sitemap_pages(client)
    assert len(locs) == len(set(locs)) and any(loc.endswith(f"/rounds/{round_.slug}/changes/") for loc in locs)


def test_a_missing_page_gets_the_sites_404(client):
    response = client.get("/r/training:9.9-9999:resnet")
    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>Not found</h1>" in html and 'href="/search/"' in html and "/r/training:9.9-9999:resnet" in html


def test_an_organization_page_lists_its_results_systems_and_changes(client, history, personas):
    round_, fixed, other = history
    html = client.get("/organizations/gamma/").content.decode()
    assert f'href="/results/{other.result_id}/"' in html and 'id="organization-systems"' in html
    assert ">Corrected<" in html  # a factor decision after publication
    assert "RCP table corrected" in html and "wrong system description fixed" not in html  # Alpha's change
    alpha = client.get("/organizations/alpha/").content.decode()
    assert "the node count was misreported" in alpha and "Withdrawal" in alpha
    assert client.get("/organizations/nobody/").status_code == 404


def test_importing_a_published_round_is_its_publication_not_a_correction(client, sample_data):
    from django.core.management import call_command

    call_command("import_results", str(sample_data / "training-v0.7"), "--round", "training-v0.7", "--publish",
                 "--jobs", "1", stdout=io.StringIO())
    html = client.get("/rounds/training-v0.7/changes/").content.decode()
    assert "Publication" in html and "Correction" not in html
