"""The read-only API's anonymous answers come from the front cache (results/caching.py), like the
public pages: never for a token or a session, never a non-GET or non-200, never past a data change."""

import gzip

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from results.tests.factories import (
    build_visibility_world,
    make_org,
    make_result,
    make_round,
    make_submission,
    make_system,
)

pytestmark = pytest.mark.django_db

RESULTS = "/api/v1/results/?round=training-v1.0"


def queries(client, url, **headers) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, **headers)
    return len(captured), response


@pytest.fixture
def world(personas):
    return build_visibility_world(personas)


@pytest.mark.parametrize("url", [RESULTS, "/api/v1/results/1.0-0001/", "/api/v1/systems/", "/api/v1/rounds/",
                                 "/api/v1/rounds/training-v1.0/", "/api/v1/benchmarks/", "/api/v1/runs/"])
def test_an_anonymous_answer_is_served_from_the_cache_the_second_time(client, world, url,
                                                                       django_assert_max_num_queries):
    first = client.get(url)
    assert first.status_code == 200 and first["Content-Type"] == "application/json"
    with django_assert_max_num_queries(1):  # the data version at most: no session, no view, no serializer
        hit = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert hit["Content-Encoding"] == "gzip" and gzip.decompress(hit.content) == first.content
    assert hit["Content-Type"] == "application/json"
    assert client.get(url).content == first.content  # plain for clients without gzip


def test_a_hit_keeps_the_vary_headers_of_the_answer_and_adds_accept_encoding(client, world):
    first = client.get(RESULTS)
    hit = client.get(RESULTS, HTTP_ACCEPT_ENCODING="gzip")
    vary = lambda response: {name.strip() for name in response["Vary"].split(",")}  # noqa: E731
    assert {"Accept", "Authorization"} <= vary(first)
    assert vary(hit) == vary(first) | {"Accept-Encoding"}
    assert "private" not in hit.get("Cache-Control", "") and hit["Allow"] == first["Allow"]


def test_a_token_user_is_never_served_a_cached_answer_and_theirs_is_never_stored(client, world, personas):
    token = Token.objects.create(user=personas["owner"])  # Alpha's owner sees Alpha's unpublished result
    as_owner = {"HTTP_AUTHORIZATION": f"Token {token.key}"}
    ids = lambda response: {r["result_id"] for r in response.json()["results"]}  # noqa: E731

    assert ids(client.get(RESULTS)) == {"1.0-0001"}  # anonymous: stored
    count, owner_answer = queries(client, RESULTS, **as_owner)
    assert ids(owner_answer) == {"1.0-0001", "1.0-0002"} and count > 1  # the view ran, for them
    assert "private" in owner_answer["Cache-Control"]

    # The other way round: a token user asks first; the anonymous client must not get their answer.
    url = "/api/v1/results/1.0-0002/"
    assert client.get(url, **as_owner).status_code == 200
    assert client.get(url).status_code == 404
    systems = "/api/v1/systems/"
    assert len(client.get(systems, **as_owner).json()["results"]) == 2
    count, anonymous = queries(client, systems)
    assert len(anonymous.json()["results"]) == 1 and count > 1  # built afresh, not the token user's


def test_a_signed_in_user_is_never_served_a_cached_answer(client, world, personas):
    assert {r["result_id"] for r in client.get(RESULTS).json()["results"]} == {"1.0-0001"}
    client.force_login(personas["owner"])
    assert {r["result_id"] for r in client.get(RESULTS).json()["results"]} == {"1.0-0001", "1.0-0002"}
    client.logout()
    assert {r["result_id"] for r in client.get(RESULTS).json()["results"]} == {"1.0-0001"}


def test_a_not_found_is_never_stored(client, world, django_assert_max_num_queries):
    assert client.get("/api/v1/results/9.9-9999/").status_code == 404
    count, again = queries(client, "/api/v1/results/9.9-9999/")
    assert again.status_code == 404 and count > 1


def test_non_get_requests_go_the_whole_way(client, world):
    client.get(RESULTS)
    assert client.post(RESULTS, {}).status_code == 405
    assert client.head(RESULTS).status_code == 200


def test_a_new_publication_or_import_changes_the_answer(client, world):
    ids = lambda: {r["result_id"] for r in client.get(RESULTS).json()["results"]}  # noqa: E731
    assert ids() == {"1.0-0001"}
    assert ids() == {"1.0-0001"}  # from the cache
    hidden = world["hidden"].submission
    hidden.is_published = True
    hidden.save()
    assert ids() == {"1.0-0001", "1.0-0002"}
    newcomer = make_submission(world["round"], make_org("Newcomer"))
    make_result(make_system(newcomer, "new"), "resnet", result_id="1.0-0003")
    assert ids() == {"1.0-0001", "1.0-0002", "1.0-0003"}


def test_the_format_and_the_host_asked_for_are_part_of_the_key(client, world):
    json_answer = client.get(RESULTS, HTTP_ACCEPT="application/json")
    browsable = client.get(RESULTS, HTTP_ACCEPT="text/html")
    assert json_answer["Content-Type"] == "application/json"
    assert browsable["Content-Type"].startswith("text/html")
    assert client.get(RESULTS, HTTP_ACCEPT="application/json").content == json_answer.content

    make_result(world["public_system"], "bert", result_id="1.0-0003")  # two results: a second page
    paged = RESULTS + "&page_size=1"
    assert client.get(paged).json()["next"].startswith("http://testserver/")
    assert client.get(paged, HTTP_HOST="localhost").json()["next"].startswith("http://localhost/")


def test_the_uncached_results_list_runs_a_constant_number_of_queries(client, world):
    def uncached() -> int:
        count, response = queries(client, RESULTS)  # a new data version each time: never a hit
        assert response.status_code == 200
        return count

    uncached()  # reads the round's id range, kept in this process while its submissions stay as they are
    make_round("0.6")  # a write, for a fresh data version
    before = uncached()
    round_ = world["round"]
    for index in range(4):
        submission = make_submission(round_, make_org(f"Extra {index}"))
        system = make_system(submission, f"x{index}")
        make_result(system, "resnet")
        make_result(system, "bert")
    assert len(client.get(RESULTS).json()["results"]) == 9
    make_round("0.7")  # one more write, for a fresh data version
    # The data version, the round's submissions (its id range is kept while they stay as they
    # are) and the cursor page (no COUNT), nothing per row.
    assert uncached() == before <= 3
