"""The page cache after a change (issue 38): a round's pages are keyed on the round's own version,
every other page on the global one, so a change in round A leaves round B's pages served from the
cache and A's fresh; every write path moves its round's version; after a change commits, the
round's page and the global pages are built into the cache before the next visitor."""

from __future__ import annotations

import io
import uuid
from datetime import timedelta

import pytest
from celery.signals import before_task_publish
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ingest.tests.upload_fixtures import dead_broker, open_round, unthrottled  # noqa: F401 - fixtures used by name
from pages import caching, warming
from pages.snapshots import take_snapshot
from pages.suites.inference import charts as inference_charts
from pages.suites.inference import views as inference_views
from pages.suites.time_to_train import progress
from pages.views import home
from results.constants import RoundState
from results.models import Result, Submission
from results.services.rounds import publish_round
from results.services.versions import touch_submissions
from results.synthetic_inference import make_inference_round
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from review import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def rounds(personas, django_capture_on_commit_callbacks):
    """Round A (in review: results of Alpha and Beta, Alpha's shipping a scaling factor) and round B
    (published: a Beta result); their warms sent (as the commit of their writes would)."""
    with django_capture_on_commit_callbacks(execute=True):
        return _rounds(personas)


def _rounds(personas):
    a = make_round("1.0", state=RoundState.REVIEW, benchmarks=("resnet",))
    results = {}
    for key in ("alpha", "beta"):
        system = make_system(make_submission(a, personas[key], published=False, is_current=True), f"{key}-sys")
        results[key] = make_result(system, "resnet", minutes=30.0, shipped_scaling_factor=1.1 if key == "alpha" else None)
    b = make_round("1.1", benchmarks=("resnet",))
    make_result(make_system(make_submission(b, personas["beta"]), "beta-b"), "resnet", minutes=20.0, result_id="1.1-0001")
    return {**personas, "a": a, "b": b, **{f"{key}_result": result for key, result in results.items()}}


def versions(world) -> tuple[str, str, str]:
    return caching.round_version(world["a"].slug), caching.round_version(world["b"].slug), caching.data_version()


def served_from_cache(client, address: str, versions: int = 1) -> bool:
    """A stored page is answered before any view runs: with at most its version's query (`versions`:
    a system's or an organization's page reads the global version, to know its rounds are still its
    rounds, and its rounds' versions)."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(address).status_code == 200
    return len(queries) <= versions


def test_a_change_in_round_a_leaves_round_b_cached_and_round_a_fresh(client, rounds):
    publish_round(rounds["a"], actor=rounds["chair"])
    a, b = f"/rounds/{rounds['a'].slug}/", f"/rounds/{rounds['b'].slug}/"
    for address in (a, b, "/"):
        client.get(address)
        assert served_from_cache(client, address)
    withdrawn = services.withdraw_result(rounds["owner"], rounds["alpha_result"], "hardware recalled")
    services.decide_withdrawal(rounds["chair"], withdrawn, True, "the organization asks")
    assert served_from_cache(client, b)
    assert not served_from_cache(client, a) and not served_from_cache(client, "/")  # the home page lists every round
    assert rounds["alpha_result"].result_id not in client.get(a).content.decode()


def test_a_change_in_round_a_leaves_round_bs_result_pages_cached_and_round_as_fresh(client, rounds):
    """A result's page, its figures and its API answer are keyed on its round's version (found by its
    citable id): a decision in round A, which moves the global version, leaves round B's result pages
    served from the cache. An address no citable id has goes with the global version."""
    publish_round(rounds["a"], actor=rounds["chair"])
    beta_a = rounds["beta_result"].result_id
    beta_b = Result.objects.get(submission__round=rounds["b"]).result_id
    addresses = {key: [f"/results/{result_id}/", f"/api/v1/results/{result_id}/"]
                 for key, result_id in (("a", beta_a), ("b", beta_b))}
    for address in [*addresses["a"], *addresses["b"]]:
        client.get(address)
        assert served_from_cache(client, address)
    before = caching.data_version()
    withdrawn = services.withdraw_result(rounds["owner"], rounds["alpha_result"], "hardware recalled")
    services.decide_withdrawal(rounds["chair"], withdrawn, True, "the organization asks")
    assert caching.data_version() != before
    assert all(served_from_cache(client, address) for address in addresses["b"])
    assert not any(served_from_cache(client, address) for address in addresses["a"])
    assert caching.page_version("/results/no:such-id:here/") == caching.data_version()
    assert caching.page_version(addresses["b"][0]) == "round:" + caching.round_version(rounds["b"].slug)


def test_a_change_in_round_a_leaves_the_api_lists_of_round_b_cached(client, rounds):
    """An API list narrowed to one round (`?round=`, with any other filter and a cursor) is keyed on
    that round's version: a researcher reading round B page by page is not sent to the database by
    decisions in round A. A list over every round, or over two, goes with the global version."""
    publish_round(rounds["a"], actor=rounds["chair"])
    a, b = rounds["a"].slug, rounds["b"].slug
    lists = {key: [f"/api/v1/{kind}/?round={slug}" for kind in ("results", "runs", "systems", "benchmarks")]
             + [f"/api/v1/results/?round={slug}&benchmark=resnet"] for key, slug in (("a", a), ("b", b))}
    everywhere = ["/api/v1/results/", f"/api/v1/results/?round={a}&round={b}", "/api/v1/results/?round="]
    for address in [*lists["a"], *lists["b"], *everywhere]:
        client.get(address)
        assert served_from_cache(client, address)
    assert "beta-b" in client.get(lists["b"][2]).content.decode()
    withdrawn = services.withdraw_result(rounds["owner"], rounds["alpha_result"], "hardware recalled")
    services.decide_withdrawal(rounds["chair"], withdrawn, True, "the organization asks")
    assert all(served_from_cache(client, address) for address in lists["b"])
    assert not any(served_from_cache(client, address) for address in [*lists["a"], *everywhere])
    assert rounds["alpha_result"].result_id not in client.get(lists["a"][0] + "&again=1").content.decode()


def test_a_change_in_round_a_leaves_the_system_and_organization_pages_of_round_b_alone_cached(client, rounds):
    """A system's page and an organization's are keyed on the versions of the rounds they show: a
    decision in round A leaves those of round B alone cached and builds those with a result in A
    again. A result in a new round is a new round of the page: it shows at once."""
    publish_round(rounds["a"], actor=rounds["chair"])
    delta = make_org("Delta")
    make_result(make_system(make_submission(rounds["b"], delta), "delta-b"), "resnet", minutes=25.0)
    only_b = [f"/systems/{rounds['beta'].slug}/beta-b/", f"/systems/{delta.slug}/delta-b/", f"/organizations/{delta.slug}/"]
    with_a = [f"/systems/{rounds['alpha'].slug}/alpha-sys/", f"/organizations/{rounds['alpha'].slug}/",
              f"/organizations/{rounds['beta'].slug}/"]
    for address in [*only_b, *with_a]:
        client.get(address)
        assert served_from_cache(client, address, versions=2), address
    withdrawn = services.withdraw_result(rounds["owner"], rounds["alpha_result"], "hardware recalled")
    services.decide_withdrawal(rounds["chair"], withdrawn, True, "the organization asks")
    assert all(served_from_cache(client, address, versions=3) for address in only_b)  # its rounds read again too
    assert not any(served_from_cache(client, address, versions=3) for address in with_a)
    c = make_round("1.2", benchmarks=("resnet",))
    make_result(make_system(make_submission(c, delta), "delta-b"), "resnet", minutes=24.0)
    page = client.get(f"/systems/{delta.slug}/delta-b/").content.decode()
    assert "v1.2" in page and "24.00" in page


def test_a_page_over_every_round_builds_only_the_figures_of_the_round_that_changed(client, rounds, monkeypatch):
    """The home page's counts and the training progress charts' fastest results are kept per round
    under its version (caching.round_figures): after a change in round A, the next build of a page
    over every round reads A's figures afresh and B's from the cache, and shows A's new ones."""
    built = []

    def recorded(build):
        def wrapper(user, rounds_):
            built.append((build.__name__, sorted(r.slug for r in rounds_)))
            return build(user, rounds_)
        return wrapper

    monkeypatch.setattr(home, "_round_counts", recorded(home._round_counts))
    monkeypatch.setattr(progress, "_fastest_of_rounds", recorded(progress._fastest_of_rounds))
    publish_round(rounds["a"], actor=rounds["chair"])
    a, b = rounds["a"].slug, rounds["b"].slug
    assert client.get("/").status_code == 200
    assert sorted(built) == [("_fastest_of_rounds", [a, b]), ("_round_counts", [a, b])]
    built.clear()
    assert client.get("/?built=again").status_code == 200  # a new address: the page is built, its figures kept
    assert built == []
    withdrawn = services.withdraw_result(rounds["owner"], rounds["alpha_result"], "hardware recalled")
    services.decide_withdrawal(rounds["chair"], withdrawn, True, "the organization asks")
    response = client.get("/")
    assert sorted(built) == [("_fastest_of_rounds", [a]), ("_round_counts", [a])]
    counts = {r.slug: r.counts for suite in response.context["suites"] for r in suite["rounds"]}
    assert counts == {a: {"results": 1, "systems": 1, "submitters": 1}, b: {"results": 1, "systems": 1, "submitters": 1}}


def test_the_inference_progress_charts_read_each_rounds_candidates_once_per_version(monkeypatch):
    """A suite's progress is over every round, tens of thousands of results: the inference charts
    keep, per round under its version, the results they can pick. After a change in one round only
    its candidates are read again, and the charts are those built of every result."""
    first = make_inference_round("4.0", results=80, organizations=3)
    second = make_inference_round("4.1", results=80, organizations=3)
    built = []
    candidates_of = inference_views._progress_candidates
    monkeypatch.setattr(inference_views, "_progress_candidates",
                        lambda user, rounds_: built.append(sorted(r.slug for r in rounds_)) or candidates_of(user, rounds_))

    def as_built_of_every_result():
        every = inference_views._progress_entries(Result.objects.visible_to(None).current().filter(
            submission__round__suite="inference", division="closed", valid=True, metric_value__isnull=False))
        return [inference_charts.progress(every).rows, inference_charts.progress(every, per_accelerator=True).rows]

    assert [chart.rows for chart in inference_views.progress_charts(None)] == as_built_of_every_result()
    assert built == [[first.slug, second.slug]]
    built.clear()
    assert len(inference_views.progress_charts(None)[0].rows) > 2 and built == []
    best = Result.objects.filter(submission__round=second, scenario="Offline", division="closed", valid=True).order_by(
        "-metric_value").first()
    Result.objects.filter(pk=best.pk).update(metric_value=best.metric_value * 10)  # as an admin edit would
    touch_submissions(Submission.objects.filter(pk=best.submission_id))
    charts = inference_views.progress_charts(None)
    assert built == [[second.slug]]
    assert [chart.rows for chart in charts] == as_built_of_every_result()
    assert best.result_id in {row["result_id"] for row in charts[0].rows}


def test_a_process_that_reads_a_new_global_version_reads_the_rounds_afresh(rounds, monkeypatch):
    """Another process's write shows here within DATA_VERSION_SECONDS, the global version and the
    round versions each on its own clock: once the global version read here is new, the round
    versions are read again too, so no page stored under it holds a round's older figures."""
    monkeypatch.setattr(caching, "DATA_VERSION_SECONDS", 60.0)  # versions kept, as between requests (conftest.py: 0)
    a = rounds["a"]
    before = caching.data_version(), caching.round_versions([a])[a.slug]
    with connection.cursor() as cursor:  # another process's write: no signal reaches this one
        cursor.execute("UPDATE results_submission SET updated_at = %s WHERE round_id = %s",
                       [timezone.now() + timedelta(minutes=1), a.pk])
    assert caching.round_versions([a])[a.slug] == before[1]  # read within DATA_VERSION_SECONDS: kept
    caching._version["read_at"] = -1e9  # the global version's time is up first
    assert caching.data_version() != before[0]
    assert caching.round_versions([a])[a.slug] != before[1]


@pytest.mark.parametrize("edited", ["result", "system"])
def test_an_edit_in_the_admin_moves_its_rounds_version_and_no_other_rounds(rounds, rf, edited):
    """A result's time or a system's accelerators edited in the admin: the round's pages and the
    figures kept under its version (the fastest result of each benchmark) are built again."""
    from django.contrib.admin.sites import site

    result = rounds["alpha_result"]
    obj = result if edited == "result" else result.system
    before = versions(rounds)
    request = rf.post("/admin/")
    request.user = rounds["chair"]
    site._registry[type(obj)].save_model(request, obj, form=None, change=True)
    after = versions(rounds)
    assert after[0] != before[0] and after[1] == before[1] and after[2] != before[2]


@pytest.mark.parametrize("deleted", ["one", "selected", "system"])
def test_a_result_deleted_in_the_admin_moves_its_rounds_version_and_no_other_rounds(rounds, rf, deleted):
    """The versions count submissions, not results (a count reads every row): a result deleted
    alone, as only the admin does, stamps its submission."""
    from django.contrib.admin.sites import site

    from results.models import Result

    result = rounds["alpha_result"]
    before = versions(rounds)
    request = rf.post("/admin/")
    request.user = rounds["chair"]
    if deleted == "one":
        site._registry[Result].delete_model(request, result)
    elif deleted == "selected":
        site._registry[Result].delete_queryset(request, Result.objects.filter(pk=result.pk))
    else:
        site._registry[type(result.system)].delete_model(request, result.system)
    assert not Result.objects.filter(pk=result.pk).exists()
    caching.forget_data_version()
    after = (caching._read_round_version(rounds["a"].slug), caching._read_round_version(rounds["b"].slug),
             caching._read_data_version())
    assert after[0] != before[0] and after[1] == before[1] and after[2] != before[2]


@pytest.fixture
def builds(monkeypatch):
    """The rounds each build of the home page's counts was asked for, as (user, [slugs])."""
    built = []
    counts = home._round_counts

    def recorded(user, rounds_):
        built.append((getattr(user, "username", None), sorted(r.slug for r in rounds_)))
        return counts(user, rounds_)

    monkeypatch.setattr(home, "_round_counts", recorded)
    return built


def home_counts(client) -> dict[str, int]:
    response = client.get(f"/?page={uuid.uuid4().hex}")  # an address not yet cached: the page is built
    return {r.slug: r.counts["results"] for suite in response.context["suites"] for r in suite["rounds"]}


def test_a_submitters_round_in_review_is_built_for_them_and_the_others_read_from_the_publics(client, rounds, builds):
    """Alpha's submitter sees their round in review, which the public does not: its figures are
    theirs alone, built afresh each time; round B, where they see what the public sees, is the
    public's figures."""
    a, b = rounds["a"].slug, rounds["b"].slug
    assert home_counts(client) == {b: 1}
    assert builds == [(None, [b])]
    builds.clear()
    theirs = Result.objects.visible_to(rounds["owner"]).current().filter(submission__round=rounds["a"]).count()
    client.force_login(rounds["owner"])
    for attempt in range(2):
        assert home_counts(client) == {a: theirs, b: 1}, attempt
        assert builds == [("owner", [a])], attempt
        builds.clear()
    client.logout()
    assert home_counts(client) == {b: 1}


def test_a_withdrawn_result_is_counted_for_its_organization_and_nobody_elses_figures(client, rounds, builds):
    """In a published round, Alpha's withdrawn result is still Alpha's to see: the round is built for
    Alpha's members; Beta's member sees what the public sees and reads the public's figures."""
    publish_round(rounds["a"], actor=rounds["chair"])
    withdrawn = services.withdraw_result(rounds["owner"], rounds["alpha_result"], "hardware recalled")
    services.decide_withdrawal(rounds["chair"], withdrawn, True, "the organization asks")
    a, b = rounds["a"].slug, rounds["b"].slug
    assert home_counts(client) == {a: 1, b: 1}
    builds.clear()
    client.force_login(rounds["outsider"])
    assert home_counts(client) == {a: 1, b: 1}
    assert builds == []
    client.force_login(rounds["owner"])
    assert home_counts(client) == {a: 2, b: 1}
    assert builds == [("owner", [a])]


def test_reviewers_and_chairs_share_figures_of_every_result_and_never_the_publics(client, rounds, builds):
    a, b = rounds["a"].slug, rounds["b"].slug
    assert home_counts(client) == {b: 1}
    client.force_login(rounds["reviewer"])
    assert home_counts(client) == {a: 2, b: 1}
    client.force_login(rounds["chair"])
    assert home_counts(client) == {a: 2, b: 1}
    assert builds == [(None, [b]), ("reviewer", [a, b])]
    services.grant_waiver(rounds["reviewer"], rounds["beta_result"], "rcp_bypass", "known RCP gap")
    builds.clear()
    assert home_counts(client) == {a: 2, b: 1}
    assert builds == [("chair", [a])]


def publish(world):
    publish_round(world["a"], actor=world["chair"])


def import_package(world, sample_data):
    call_command("import_results", str(sample_data / "training-v1.0"), "--round", world["a"].slug, stdout=io.StringIO())


def withdraw(world):
    publish(world)
    request = services.withdraw_result(world["owner"], world["alpha_result"], "hardware recalled")
    before = versions(world)
    services.decide_withdrawal(world["chair"], request, True, "the organization asks")
    return before


def waive(world):
    services.grant_waiver(world["reviewer"], world["beta_result"], "rcp_bypass", "known RCP gap")


def resolve_objection(world):
    objection = services.file_objection(world["reviewer"], result=world["alpha_result"], rule="seeds", evidence="same seed")
    services.answer_objection(world["owner"], objection, "the launcher reused them")
    before = versions(world)
    services.resolve_objection(world["chair"], objection, "removed", "seeds reused")
    return before


def decide_factor(world):
    services.decide_shipped_factor(world["reviewer"], world["alpha_result"], True, "the factor is the RCP's")


def snapshot(world, settings, tmp_path):
    publish(world)
    settings.MEDIA_ROOT = tmp_path
    before = versions(world)
    assert take_snapshot(world["a"]) is not None
    return before


@pytest.fixture
def warms_sent():
    """The arguments of each pages.warm_pages task published to the broker (Celery's own signal):
    the rounds and the versions their commit left."""
    sent = []

    def published(sender=None, body=None, **kwargs):
        if sender == warming.WARM_TASK:
            sent.append(tuple(body[0]))

    before_task_publish.connect(published, weak=False)
    yield sent
    before_task_publish.disconnect(published)


@pytest.mark.parametrize("change", [publish, import_package, withdraw, waive, resolve_objection, decide_factor, snapshot])
def test_every_write_path_moves_its_rounds_version_and_no_other_rounds(rounds, change, sample_data, settings, tmp_path,
                                                                       django_capture_on_commit_callbacks, warms_sent):
    before = versions(rounds)
    arguments = {"sample_data": sample_data, "settings": settings, "tmp_path": tmp_path}
    wanted = {name: arguments[name] for name in change.__code__.co_varnames[1:change.__code__.co_argcount]}
    with django_capture_on_commit_callbacks(execute=True):
        before = change(rounds, **wanted) or before
    after = versions(rounds)
    assert after[0] != before[0], "round A's version did not move"
    assert after[1] == before[1], "round B's version moved"
    assert after[2] != before[2], "the global version did not move"
    # On commit, a warm of round A's pages went to the broker, and none of round B's.
    assert any(rounds["a"].pk in sent for sent, _ in warms_sent) and not any(rounds["b"].pk in sent for sent, _ in warms_sent)


def test_a_snapshot_warms_its_rounds_pages_with_the_version_it_left(rounds, settings, tmp_path,
                                                                     django_capture_on_commit_callbacks, warms_sent):
    """Beat takes a snapshot up to a minute after the change it records, whose warm has been built
    by then; the snapshot moves the round's version (its pages list the snapshots) and warms again."""
    with django_capture_on_commit_callbacks(execute=True):
        publish(rounds)
    settings.MEDIA_ROOT = tmp_path
    warms_sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert take_snapshot(rounds["a"]) is not None
    assert warms_sent == [([rounds["a"].pk], {str(rounds["a"].pk): caching.round_version(rounds["a"].slug)})]


def test_a_warm_leaves_a_round_changed_again_to_the_later_changes_warm(rounds, settings, tmp_path):
    """An import commits a submission at a time, each sending a warm: a round changed again before
    its warm runs is not built then (the later warm builds it), nor the global pages once every
    round of the warm has changed again."""
    settings.PAGE_WARM_URL = "http://127.0.0.1:9"  # nothing listens: the answers list what was asked
    a, b = rounds["a"], rounds["b"]
    publish_round(a, actor=rounds["chair"])
    sent = {str(pk): version for pk, version in caching.read_round_versions_by_id([a.pk, b.pk]).items()}
    assert warming.warm_pages([a.pk, b.pk], sent) == [(f"/rounds/{a.slug}/", 0), (f"/rounds/{b.slug}/", 0),
                                                       ("/", 0), ("/changes/", 0)]
    make_result(make_system(make_submission(b, rounds["alpha"]), "alpha-b"), "resnet", minutes=25.0, result_id="1.1-0002")
    assert warming.warm_pages([a.pk, b.pk], sent) == [(f"/rounds/{a.slug}/", 0), ("/", 0), ("/changes/", 0)]
    settings.MEDIA_ROOT = tmp_path
    assert take_snapshot(a) is not None
    assert warming.warm_pages([a.pk, b.pk], sent) == []


@pytest.mark.django_db(transaction=True)
def test_a_warm_has_the_web_server_build_the_rounds_page_and_the_global_ones(client, rounds, live_server, settings):
    settings.PAGE_WARM_URL = live_server.url  # the task asks the web server, as a visitor would
    publish_round(rounds["a"], actor=rounds["chair"])
    answered = warming.warm_pages([rounds["a"].pk, rounds["b"].pk])
    assert dict(answered) == {f"/rounds/{rounds['a'].slug}/": 200, f"/rounds/{rounds['b'].slug}/": 200, "/": 200,
                              "/changes/": 200}
    for address in dict(answered):
        assert served_from_cache(client, address), address


@pytest.mark.django_db(transaction=True)
def test_a_warm_also_builds_the_figures_a_round_page_fetches_when_drawn(client, live_server, settings):
    """An inference round's page draws its charts from their figure.json: the first visitor's
    browser asks for them at once, so the warm asks too."""
    settings.PAGE_WARM_URL = live_server.url
    round_ = make_inference_round("4.1", results=60, organizations=3)
    answered = dict(warming.warm_pages([round_.pk]))
    figures = [address for address in answered if ".figure.json" in address]
    assert len(figures) >= 3 and all(address.startswith(f"/rounds/{round_.slug}/charts/") for address in figures)
    assert set(answered.values()) == {200}
    for address in figures:
        assert served_from_cache(client, address), address


@pytest.mark.django_db(transaction=True)
def test_a_round_the_public_does_not_see_is_not_warmed(rounds, live_server, settings):
    settings.PAGE_WARM_URL = live_server.url
    assert warming.warm_pages([rounds["a"].pk]) == [("/", 200), ("/changes/", 200)]


def test_a_web_server_that_does_not_answer_costs_only_the_warm(rounds, settings):
    settings.PAGE_WARM_URL = "http://127.0.0.1:9"  # the discard port: nothing listens
    publish_round(rounds["a"], actor=rounds["chair"])
    assert warming.warm_pages([rounds["a"].pk]) == [(f"/rounds/{rounds['a'].slug}/", 0), ("/", 0), ("/changes/", 0)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("unthrottled", "dead_broker")
def test_an_upload_written_moves_its_rounds_version_and_no_other_rounds(personas, open_round, tmp_path, settings):  # noqa: F811
    from ingest import services as ingest
    from ingest.models import Upload
    from ingest.tests.tarballs import sample_tarball
    from ingest.tests.upload_fixtures import client_for, post_upload

    settings.INGEST_WORK_DIR = str(tmp_path / "work")
    (tmp_path / "work").mkdir()
    other = make_round("1.1", benchmarks=("resnet",))
    make_result(make_system(make_submission(other, personas["beta"]), "beta-b"), "resnet", minutes=20.0,
                result_id="1.1-0001")
    response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert response.status_code == 201, response.content
    job = Upload.objects.get(pk=response.json()["id"]).job
    before = caching.round_version(open_round.slug), caching.round_version(other.slug)
    assert ingest.run_ingest(job.pk, token="t1").status == "done"
    after = caching.round_version(open_round.slug), caching.round_version(other.slug)
    assert after[0] != before[0] and after[1] == before[1]
