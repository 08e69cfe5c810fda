"""Issue 34: after `manage.py grant_role carla chair` the admin said "not authorized", while the
README says chairs work there. The chair role now opens the admin (the staff flag, set and cleared
by review.services.set_role) with the chairs group's permissions (audit.roles.CHAIR_PERMISSIONS):
rounds, the lifecycle's actions, windows, the people actions; nothing else, and never superuser.
Every chair action also has its button on the review pages (the people page is tested here)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from audit.models import AuditEvent
from audit.roles import CHAIR_PERMISSIONS
from results.models import Round
from review.models import ResubmissionWindow

pytestmark = pytest.mark.django_db


def logged_in(username: str, password: str = "password") -> Client:
    """A real login through the admin's login form (django-axes and all)."""
    client = Client()
    response = client.post("/admin/login/?next=/admin/", {"username": username, "password": password})
    assert response.status_code == 302, response.content.decode()[:2000]
    return client


def test_the_chairs_group_holds_exactly_the_chair_permissions_after_migrate():
    held = Group.objects.get(name="chairs").permissions.values_list("content_type__app_label", "codename")
    assert sorted(f"{app}.{code}" for app, code in held) == sorted(CHAIR_PERMISSIONS)
    assert not Group.objects.get(name="reviewers").permissions.exists()


def test_a_chair_granted_by_the_command_works_in_the_admin(world, capsys):
    carla = User.objects.create_user("carla", "carla@mlcommons.example", "password")
    call_command("grant_role", "carla", "chair")
    carla.refresh_from_db()
    assert carla.is_staff and not carla.is_superuser
    client = logged_in("carla")
    index = client.get("/admin/")
    assert index.status_code == 200
    for listed in ("/admin/results/round/", "/admin/results/submission/", "/admin/review/resubmissionwindow/",
                   "/admin/auth/user/", "/admin/audit/auditevent/"):
        assert listed in index.content.decode() and client.get(listed).status_code == 200, listed

    # A round, created with its suite's rules, and moved by the lifecycle's action.
    response = client.post("/admin/results/round/add/", {
        "suite": "hpc", "version": "2.0", "ruleset_version": "",
        "benchmarks-TOTAL_FORMS": "0", "benchmarks-INITIAL_FORMS": "0"})
    assert response.status_code == 302, response.content.decode()[:2000]
    hpc = Round.objects.get(suite="hpc")
    assert hpc.ruleset_version == "hpc-2.0.0" and hpc.benchmarks.filter(name="deepcam").exists()
    # Its ruleset changed on its page (the benchmarks are read-only there), as the browser posts it.
    page = client.get(f"/admin/results/round/{hpc.pk}/change/").content.decode()
    posted = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    response = client.post(f"/admin/results/round/{hpc.pk}/change/", {**posted, "ruleset_version": "hpc-3.0.0"})
    assert response.status_code == 302 and hpc.benchmarks.filter(name="openfold").exists()
    client.post("/admin/results/round/", {"action": "move_to_open", "_selected_action": [hpc.pk]})
    assert Round.objects.get(pk=hpc.pk).state == "open"

    # A late upload window, through the service.
    response = client.post("/admin/review/resubmissionwindow/add/", {
        "round": world["round"].pk, "organization": world["alpha"].pk,
        "closes_at_0": "2030-01-01", "closes_at_1": "12:00:00", "reason": "power outage"})
    assert response.status_code == 302
    assert ResubmissionWindow.objects.get().granted_by == carla

    # People: the organization and role actions of the user list.
    response = client.post("/admin/auth/user/", {"action": "give_reviewer", "_selected_action": [world["owner"].pk]})
    assert response.status_code == 302
    assert world["owner"].groups.filter(name="reviewers").exists()
    client.post("/admin/auth/user/", {"action": "add_to_organization", "_selected_action": [world["outsider"].pk],
                                      "organization": world["gamma"].pk})
    assert world["gamma"].members.filter(pk=world["outsider"].pk).exists()
    assert set(AuditEvent.objects.filter(actor=carla).values_list("kind", flat=True)) == {
        "round.created", "round.ruleset_changed", "round.state_changed", "resubmission_window.granted",
        "role.granted", "member.added"}

    # Nothing beyond the role: no user is edited, added or deleted here, no group, no round deleted.
    before = User.objects.get(pk=world["owner"].pk)
    client.post(f"/admin/auth/user/{before.pk}/change/", {"username": "renamed", "is_superuser": "on"})
    after = User.objects.get(pk=before.pk)
    assert (after.username, after.is_superuser) == ("owner", False)
    for forbidden in ("/admin/auth/user/add/", "/admin/auth/group/", f"/admin/results/round/{hpc.pk}/delete/",
                      f"/admin/auth/user/{before.pk}/password/", "/admin/review/notification/"):
        assert client.get(forbidden).status_code == 403, forbidden


def test_taking_the_chair_role_closes_the_admin_unless_superuser(personas):
    carla = User.objects.create_user("carla", "carla@mlcommons.example", "password")
    call_command("grant_role", "carla", "chair")
    client = logged_in("carla")
    call_command("grant_role", "carla", "chair", "--revoke")
    carla.refresh_from_db()
    assert not carla.is_staff
    assert client.get("/admin/").status_code == 302  # to the login page: no admin without the role
    # A reviewer is never staff; a superuser stays one with or without the chair role.
    call_command("grant_role", "carla", "reviewer")
    assert not User.objects.get(pk=carla.pk).is_staff
    root = User.objects.create_superuser("root", "root@mlcommons.example", "password")
    call_command("grant_role", "root", "chair")
    call_command("grant_role", "root", "chair", "--revoke")
    root.refresh_from_db()
    assert root.is_staff and root.is_superuser
    assert list(AuditEvent.objects.filter(reason__startswith="carla").values_list("reason", flat=True)) == [
        "carla is now a chair", "carla is no longer a chair", "carla is now a reviewer"]


def test_a_chair_of_the_group_alone_gets_the_admin_by_being_granted_again(personas):
    """A chair granted before the role carried the staff flag: granting it again opens the admin."""
    chair = personas["chair"]  # in the chairs group, not staff
    assert not chair.is_staff
    call_command("grant_role", "chair", "chair")
    chair.refresh_from_db()
    assert chair.is_staff and AuditEvent.objects.filter(kind="role.granted").count() == 1


def test_the_user_form_never_sets_the_staff_flag_outside_the_role(personas):
    root = User.objects.create_superuser("root", "root@mlcommons.example", "password")
    client = Client()
    client.force_login(root)
    owner = personas["owner"]
    page = client.get(f"/admin/auth/user/{owner.pk}/change/").content.decode()
    assert 'name="is_staff"' not in page and 'name="groups"' not in page


def test_the_chair_gives_members_and_roles_from_the_people_page(personas, client):
    owner, outsider = personas["owner"], personas["outsider"]
    client.force_login(personas["reviewer"])
    assert client.get("/review/people/").status_code == 403
    client.force_login(personas["chair"])
    page = client.get("/review/people/").content.decode()
    assert 'id="member-form"' in page and 'id="role-form"' in page and "Alpha Systems" in page
    response = client.post("/review/people/", {"action": "member", "username": "outsider",
                                               "organization": personas["alpha"].pk, "change": "add"})
    assert response.status_code == 302 and personas["alpha"].members.filter(pk=outsider.pk).exists()
    client.post("/review/people/", {"action": "role", "username": "owner", "role": "chair", "change": "add"})
    owner.refresh_from_db()
    assert owner.groups.filter(name="chairs").exists() and owner.is_staff
    client.post("/review/people/", {"action": "role", "username": "owner", "role": "chair", "change": "remove"})
    owner.refresh_from_db()
    assert not owner.groups.filter(name="chairs").exists() and not owner.is_staff
    assert client.post("/review/people/", {"action": "role", "username": "nobody", "role": "chair",
                                           "change": "add"}).status_code == 400
    assert client.post("/review/people/", {"action": "role", "username": "owner", "role": "king",
                                           "change": "add"}).status_code == 400
    assert list(AuditEvent.objects.order_by("pk").values_list("kind", "actor_name")) == [
        ("member.added", "chair"), ("role.granted", "chair"), ("role.revoked", "chair")]


def test_every_chair_page_links_from_the_queue_and_lists_drafts(personas, client):
    from review import services

    services.create_round(personas["chair"], Round(suite="training", version="5.0"), "v5.0")
    client.force_login(personas["chair"])
    queue = client.get("/review/").content.decode()
    for link in ("/review/rounds/", "/review/rounds/new/", "/review/people/"):
        assert f'href="{link}"' in queue
    rounds = client.get("/review/rounds/").content.decode()
    assert "training-v5.0" in rounds and "Draft" in rounds and "5.0.0" in rounds
    client.force_login(personas["reviewer"])
    assert client.get("/review/rounds/").status_code == 403


def test_a_window_deadline_is_a_date(personas, client):
    """A window from the round page names an organization and when it closes (no 500 otherwise)."""
    from review import services

    round_ = services.create_round(personas["chair"], Round(suite="training", version="5.0"), "v5.0")
    services.move_round(personas["chair"], round_, "open", "open for submissions")  # a draft takes no window
    client.force_login(personas["chair"])
    response = client.post(f"/review/rounds/{round_.slug}/", {
        "action": "window", "organization": personas["alpha"].pk, "closes_at": "soon", "reason": "x"})
    assert response.status_code == 400 and "is not a date and time" in response.content.decode()
    later = (timezone.now() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    assert client.post(f"/review/rounds/{round_.slug}/", {
        "action": "window", "organization": personas["alpha"].pk, "closes_at": later, "reason": "x"}).status_code == 302


def test_the_admins_lists_of_events_and_results_cost_as_many_queries_however_long(personas):
    """A chair's lists in the admin read a page's rows with what they show in one query: the audit
    log's rounds and organizations (nullable keys, which the admin's own select_related() leaves
    out), the results' systems and benchmarks. Results come newest first along the primary key."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from results.tests.factories import make_result, make_round, make_submission, make_system

    call_command("grant_role", "chair", "chair")
    client = logged_in("chair")

    def queries(address: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(address).status_code == 200
        return len(captured)

    def add(count: int, first: int) -> None:
        for number in range(first, first + count):
            round_ = make_round(f"{number}.0", benchmarks=("resnet",))
            system = make_system(make_submission(round_, personas["alpha"] if number % 2 else personas["beta"]), f"s{number}")
            result = make_result(system, "resnet", minutes=10.0 + number, result_id=f"{number}.0-0001")
            AuditEvent.objects.create(kind="result.imported", actor_name="system", round=round_,
                                      organization=system.submission.organization, result_id=result.result_id)

    add(2, first=1)
    few = queries("/admin/audit/auditevent/"), queries("/admin/results/result/")
    add(8, first=3)
    assert (queries("/admin/audit/auditevent/"), queries("/admin/results/result/")) == few
    listed = re.findall(r'/admin/results/result/(\d+)/change/', client.get("/admin/results/result/").content.decode())
    assert [int(pk) for pk in dict.fromkeys(listed)] == sorted((int(pk) for pk in set(listed)), reverse=True)


@pytest.mark.parametrize("systems_listed", [1000, 1])
def test_the_admins_result_search_finds_ids_and_system_names_word_by_word(personas, monkeypatch, systems_listed):
    """ResultAdmin.get_search_results asks what its search_fields would (each word in the result
    id or the system's name), with the systems found read first; past SEARCHED_SYSTEMS_LISTED of
    them, as a subquery."""
    from results import admin as results_admin
    from results.tests.factories import make_result, make_round, make_submission, make_system

    monkeypatch.setattr(results_admin, "SEARCHED_SYSTEMS_LISTED", systems_listed)
    call_command("grant_role", "chair", "chair")
    client = logged_in("chair")
    round_ = make_round("3.0", benchmarks=("resnet", "bert"))
    dgx = make_system(make_submission(round_, personas["alpha"]), "dgx", name="NVIDIA DGX A100")
    tpu = make_system(make_submission(round_, personas["beta"]), "tpu", name="Cloud TPU v4")
    ids = {
        "dgx resnet": make_result(dgx, "resnet", result_id="3.0-0001").pk,
        "dgx bert": make_result(dgx, "bert", result_id="3.0-0002").pk,
        "tpu resnet": make_result(tpu, "resnet", result_id="3.0-0103").pk,
    }

    def found(term: str) -> set[int]:
        page = client.get("/admin/results/result/", {"q": term}).content.decode()
        return {int(pk) for pk in re.findall(r'/admin/results/result/(\d+)/change/', page)}

    assert found("dgx") == {ids["dgx resnet"], ids["dgx bert"]}
    assert found("0001") == {ids["dgx resnet"]}
    assert found("3.0-01") == {ids["tpu resnet"]}
    assert found("3.0 tpu") == {ids["tpu resnet"]}  # every word, each in the id or the name
    assert found('"dgx a100" 0002') == {ids["dgx bert"]}
    assert found("3.0") == set(ids.values()) and found("nothing") == set()

def test_every_admin_list_reads_its_nullable_keys_with_its_rows():
    """The admin's own select_related() follows only keys that cannot be null: a nullable one shown
    in a list (who granted a waiver, the result an objection names) is read once per row unless the
    list names it in list_select_related."""
    from django.contrib import admin
    from django.db.models import ForeignKey

    unread = []
    for model, model_admin in admin.site._registry.items():
        shown = {name for name in model_admin.list_display if isinstance(name, str)}
        nullable = {field.name for field in model._meta.get_fields()
                    if isinstance(field, ForeignKey) and field.null and field.name in shown}
        named = set(model_admin.list_select_related or ()) if model_admin.list_select_related is not True else set()
        unread += [f"{model.__name__}.{name}" for name in sorted(nullable - named)]
    assert unread == []
