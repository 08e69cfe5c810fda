"""The publication rule across every page and endpoint: an unpublished result is invisible to
anonymous visitors and outsiders, and visible to its submitter's team, reviewers and chairs."""

import pytest

from pages.tests.sitemaps import sitemap_pages

from .factories import build_visibility_world, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db

HIDDEN_TEXT = "Alpha Secret Box"


def pages(world) -> list[str]:
    hidden_log = world["hidden"].runs.order_by("file").first().sha256
    return [
        "/",
        "/rounds/training-v1.0/",
        "/rounds/training-v1.0/table.csv",
        "/rounds/training-v1.0/table.json",
        "/rounds/training-v1.0/summary.csv",
        "/rounds/training-v1.0/resnet/",
        "/rounds/training-v1.0/resnet/charts/time-to-train.csv",
        "/rounds/training-v1.0/resnet/charts/scaling.json",
        "/rounds/training-v1.0/resnet/charts/batch-size.csv",
        "/progress/training/",
        "/progress/training/charts/best-time.csv",
        "/search/?q=alpha",
        "/search/?q=TPU-X",
        "/compare/?result=1.0-0001&result=1.0-0002",
        "/compare/?system=beta/beta_dgx&system=alpha/alpha_secret",
        "/api/v1/results/",
        "/api/v1/systems/",
        "/api/v1/runs/?page_size=1000",
        "/api/v1/runs/?result_id=1.0-0002",
        "/sitemap.xml",
    ], ["/results/1.0-0002/", "/results/1.0-0002/charts/convergence.csv", "/results/1.0-0002/charts/run-times.json",
        f"/logs/{hidden_log}/", f"/logs/{hidden_log}/raw", f"/logs/{hidden_log}/?line=1",
        "/systems/alpha/alpha_secret/", "/api/v1/results/1.0-0002/"]


def fetch(client, personas, who, url):
    if personas[who] is not None:
        client.force_login(personas[who])
    return client.get(url)


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_it_hides_unpublished_results_from_the_public(client, personas, who):
    world = build_visibility_world(personas)
    listing, detail = pages(world)
    for url in listing:
        response = fetch(client, personas, who, url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert HIDDEN_TEXT not in body, url
        # The id the visitor asked for is echoed in the query string (and the login link's next=), and
        # compare names it as unknown, exactly as it names an id that does not exist.
        echoed = ("result=1.0-0002", "result%3D1.0-0002", "<code>1.0-0002</code>")
        for echo in echoed:
            body = body.replace(echo, "")
        assert "1.0-0002" not in body, url
        assert "alpha_secret" not in body.replace("alpha/alpha_secret", ""), url
    for url in detail:
        assert fetch(client, personas, who, url).status_code == 404, url


@pytest.mark.parametrize("who", ["owner", "teammate", "reviewer", "chair"])
def test_it_shows_unpublished_results_to_the_team_and_reviewers(client, personas, who):
    world = build_visibility_world(personas)
    _, detail = pages(world)
    for url in detail:
        assert fetch(client, personas, who, url).status_code == 200, url
    assert HIDDEN_TEXT in fetch(client, personas, who, "/rounds/training-v1.0/").content.decode()
    assert "1.0-0002" in fetch(client, personas, who, "/api/v1/results/").content.decode()
    assert "Alpha TPU-X" in fetch(client, personas, who, "/search/?q=TPU-X").content.decode()
    assert "HIDDEN_FINDING" in fetch(client, personas, who, "/results/1.0-0002/").content.decode()


def test_it_keeps_the_sitemap_public_even_for_chairs(client, personas):
    build_visibility_world(personas)
    client.force_login(personas["chair"])
    pages = " ".join(sitemap_pages(client))
    assert "/results/1.0-0001/" in pages and "1.0-0002" not in pages


def test_it_hides_every_result_of_an_unpublished_round(client, personas):
    round_ = make_round("1.1", state="review")
    sub = make_submission(round_, personas["beta"], published=True)
    make_result(make_system(sub, "b"), "resnet", result_id="1.1-0001")
    assert client.get("/rounds/training-v1.1/").status_code == 404
    assert client.get("/results/1.1-0001/").status_code == 404
    assert client.get("/api/v1/rounds/training-v1.1/").status_code == 404
    assert "1.1-0001" not in client.get("/api/v1/results/").content.decode()
    assert "training-v1.1" not in client.get("/").content.decode()
    client.force_login(personas["outsider"])  # a Beta member: sees Beta's own submission in review
    assert client.get("/results/1.1-0001/").status_code == 200
    client.force_login(personas["owner"])
    assert client.get("/results/1.1-0001/").status_code == 404


def test_it_shows_the_published_version_to_the_public_and_a_newer_one_to_the_team(client, personas):
    world = build_visibility_world(personas)
    public_sub = world["public"].submission
    public_sub.is_current = False
    public_sub.save()
    draft = make_submission(world["round"], personas["beta"], published=False, version=2)
    make_result(make_system(draft, "beta_dgx", name="Beta DGX A100 v2"), "resnet", minutes=20.0,
                result_id="1.0-0001")
    client.force_login(personas["outsider"])  # Beta member
    assert client.get("/results/1.0-0001/").context["result"].submission.version == 2
    client.logout()
    response = client.get("/results/1.0-0001/")
    assert response.context["result"].submission.version == 1
    assert "Beta DGX A100 v2" not in response.content.decode()
