"""Issue 34: a round takes its own suite's rules. The new-round page offered the training rulesets
alone and defaulted to 6.1.0, so an HPC round got bert, dlrm, maskrcnn, minigo... and an inference
round the training 6.1.0 rules; the admin did the same, and the chair's round page showed neither
ruleset nor benchmarks. Now each suite lists its own rulesets (results.services.rounds), the
services refuse another suite's, and the round page shows the rules and benchmarks."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from audit.models import AuditEvent
from mlperf_check.inference.rules import ROUNDS
from results.models import Round
from results.services.rounds import UnknownRuleset, ruleset_of, suite_rulesets
from review import services
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db

TRAINING_ONLY = {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"}


def names(round_: Round) -> set[str]:
    return set(round_.benchmarks.values_list("name", flat=True))


def test_each_suite_lists_its_own_rulesets_newest_first():
    training, hpc, inference = suite_rulesets("training"), suite_rulesets("hpc"), suite_rulesets("inference")
    assert list(training)[0] == "6.1.0" and training["5.0.0"] == "5.0" and "0.5.0" in training
    assert list(hpc) == ["hpc-3.0.0", "hpc-2.0.0", "hpc-1.0.0"] and hpc["hpc-2.0.0"] == "2.0"
    assert list(inference)[0] == "v6.1" and inference["v5.0"] == "5.0" and set(inference) == set(ROUNDS)
    assert not set(training) & set(hpc) and not set(training) & set(inference) and not set(hpc) & set(inference)


def test_a_version_names_its_suites_ruleset_and_another_suites_is_refused():
    assert ruleset_of("hpc", "2.0") == "hpc-2.0.0"
    assert ruleset_of("inference", "5.0") == "v5.0"
    assert ruleset_of("training", "5.0") == "5.0.0"
    with pytest.raises(UnknownRuleset, match=r"2\.0\.0 is a ruleset of Training rounds; HPC rounds take one of hpc-3"):
        ruleset_of("hpc", "2.0.0")
    with pytest.raises(UnknownRuleset, match=r"6\.1\.0 is a ruleset of Training rounds; Inference rounds take"):
        ruleset_of("inference", "6.1.0")
    with pytest.raises(UnknownRuleset, match=r"hpc-2\.0\.0 is a ruleset of HPC rounds; Training rounds take"):
        ruleset_of("training", "hpc-2.0.0")
    with pytest.raises(UnknownRuleset, match=r"no rules for inference round v9\.9"):
        ruleset_of("inference", "9.9")


def test_an_hpc_2_0_round_gets_the_hpc_benchmarks_never_trainings(personas):
    chair = personas["chair"]
    with pytest.raises(ReviewRefused, match="is a ruleset of Training rounds"):
        services.create_round(chair, Round(suite="hpc", version="2.0", ruleset_version="2.0.0"), "HPC 2.0")
    assert not Round.objects.exists()
    round_ = services.create_round(chair, Round(suite="hpc", version="2.0"), "HPC 2.0")
    assert round_.ruleset_version == "hpc-2.0.0"
    assert names(round_) == {"cosmoflow", "deepcam", "oc20"}
    assert round_.benchmarks.get(name="deepcam").quality_target == 0.82
    assert AuditEvent.objects.get(kind="round.created").data == {"ruleset": "hpc-2.0.0", "benchmarks": 3}


def test_an_inference_5_0_round_gets_its_models_never_trainings(personas):
    round_ = services.create_round(personas["chair"], Round(suite="inference", version="5.0"), "inference 5.0")
    assert round_.ruleset_version == "v5.0"
    assert names(round_) == set(ROUNDS["v5.0"].models)
    assert {"llama2-70b-99", "retinanet"} <= names(round_) and not names(round_) & (TRAINING_ONLY - {"resnet"})
    # A chair may give a round another round's rules of its suite: the benchmarks are that ruleset's.
    older = services.create_round(personas["chair"], Round(suite="inference", version="5.1", ruleset_version="v4.1"),
                                  "inference 5.1 on the 4.1 rules")
    assert older.ruleset_version == "v4.1" and names(older) == set(ROUNDS["v4.1"].models)


def test_a_round_is_refused_a_version_its_suite_has_no_rules_for(personas):
    with pytest.raises(ReviewRefused, match="unknown training ruleset 7.0.0"):
        services.create_round(personas["chair"], Round(suite="training", version="7.0"), "too early")
    with pytest.raises(ReviewRefused, match="its version as two numbers"):
        services.create_round(personas["chair"], Round(suite="training", version="v5.0"), "typo")
    with pytest.raises(ReviewRefused, match="its version as two numbers"):
        services.create_round(personas["chair"], Round(suite="chess", version="5.0"), "typo")


def test_a_ruleset_change_stays_in_the_rounds_suite(personas):
    chair = personas["chair"]
    round_ = services.create_round(chair, Round(suite="hpc", version="2.0"), "HPC 2.0")
    with pytest.raises(ReviewRefused, match="is a ruleset of Training rounds"):
        services.change_ruleset(chair, round_, "6.1.0", "wrong suite")
    assert Round.objects.get(pk=round_.pk).ruleset_version == "hpc-2.0.0" and names(round_) == {
        "cosmoflow", "deepcam", "oc20"}
    services.change_ruleset(chair, round_, "hpc-3.0.0", "the 3.0 rules apply")
    assert round_.ruleset_version == "hpc-3.0.0" and "openfold" in names(round_)
    inference = services.create_round(chair, Round(suite="inference", version="5.0"), "inference")
    with pytest.raises(ReviewRefused, match="is a ruleset of HPC rounds"):
        services.change_ruleset(chair, inference, "hpc-2.0.0", "wrong suite")


def test_the_new_round_page_offers_each_suite_its_rulesets_and_refuses_another_suites(personas, client):
    client.force_login(personas["chair"])
    page = client.get("/review/rounds/new/").content.decode()
    options = dict(re.findall(r'<option value="([^"]+)" data-suite="([a-z]+)"', page))
    assert options["hpc-2.0.0"] == "hpc" and options["v5.0"] == "inference" and options["6.1.0"] == "training"
    assert '<option value="" selected>The rules of the version typed</option>' in page
    assert '<optgroup label="HPC">' in page and "js/round_form.js" in page
    # Without JavaScript every group is listed: a training ruleset posted for an HPC round is refused,
    # the form comes back with the chair's values and the reason.
    refused = client.post("/review/rounds/new/", {"suite": "hpc", "version": "2.0", "ruleset_version": "6.1.0",
                                                  "reason": "HPC 2.0 opens"})
    assert refused.status_code == 400 and not Round.objects.exists()
    text = refused.content.decode()
    assert "6.1.0 is a ruleset of Training rounds; HPC rounds take one of hpc-3.0.0, hpc-2.0.0, hpc-1.0.0" in text
    assert 'value="2.0"' in text and 'value="HPC 2.0 opens"' in text and '<option value="hpc" selected>' in text
    created = client.post("/review/rounds/new/", {"suite": "hpc", "version": "2.0", "ruleset_version": "",
                                                  "reason": "HPC 2.0 opens"})
    assert created.status_code == 302 and created["Location"] == "/review/rounds/hpc-v2.0/"
    assert Round.objects.get(suite="hpc").ruleset_version == "hpc-2.0.0"
    created = client.post("/review/rounds/new/", {"suite": "inference", "version": "5.0", "reason": "v5.0 opens"})
    assert created.status_code == 302 and Round.objects.get(suite="inference").ruleset_version == "v5.0"


def test_the_round_page_shows_its_suite_ruleset_benchmarks_dates_and_state(personas, client):
    chair = personas["chair"]
    services.create_round(chair, Round(suite="hpc", version="2.0"), "HPC 2.0")
    services.create_round(chair, Round(suite="inference", version="5.0"), "inference 5.0")
    client.force_login(chair)
    page = client.get("/review/rounds/hpc-v2.0/").content.decode()
    facts = page[page.index('id="round-facts"'):page.index("</dl>")]
    for fact in ("HPC", "hpc-2.0.0", "Draft", "Submission deadline", "Publication"):
        assert fact in facts
    table = page[page.index('id="round-benchmarks"'):]
    table = table[:table.index("</table>")]
    assert "deepcam" in table and "IoU" in table and "0.82" in table and "cosmoflow" in table and "bert" not in table
    assert 'id="ruleset-form"' in page and '<option value="hpc-3.0.0" data-suite="hpc"' in page
    assert 'data-suite="training"' not in page  # the ruleset change offers the round's suite only
    page = client.get("/review/rounds/inference-v5.0/").content.decode()
    assert "v5.0" in page and "llama2-70b-99" in page and "Accuracy target" in page


def test_the_chair_changes_the_ruleset_and_grants_a_window_from_the_round_page(personas, client):
    chair = personas["chair"]
    round_ = services.create_round(chair, Round(suite="hpc", version="2.0"), "HPC 2.0")
    client.force_login(chair)
    url = "/review/rounds/hpc-v2.0/"
    refused = client.post(url, {"action": "ruleset", "ruleset_version": "2.0.0", "reason": "oops"})
    assert refused.status_code == 400 and "is a ruleset of Training rounds" in refused.content.decode()
    assert client.post(url, {"action": "ruleset", "ruleset_version": "hpc-3.0.0", "reason": "3.0"}).status_code == 302
    assert Round.objects.get(pk=round_.pk).ruleset_version == "hpc-3.0.0" and "openfold" in names(round_)
    services.move_round(chair, round_, "open", "open for submissions")  # a draft takes no window
    response = client.post(url, {"action": "window", "organization": personas["alpha"].pk,
                                 "closes_at": "2030-01-01T12:00", "reason": "power outage"})
    assert response.status_code == 302
    event = AuditEvent.objects.get(kind="resubmission_window.granted")
    assert (event.actor, event.organization, event.data["closes_at"]) == (
        chair, personas["alpha"], "2030-01-01T12:00:00+00:00")
    assert "Alpha Systems may upload until 2030-01-01 12:00" in client.get(url).content.decode()
    assert client.post(url, {"action": "window", "organization": "", "closes_at": "", "reason": "x"}).status_code == 400


def test_the_admin_round_form_follows_the_suite(personas):
    from django.test import Client

    admin = User.objects.create_superuser("root", "root@mlcommons.example", "password")
    client = Client()
    client.force_login(admin)
    form = {"suite": "hpc", "version": "2.0", "benchmarks-TOTAL_FORMS": "0", "benchmarks-INITIAL_FORMS": "0"}
    page = client.get("/admin/results/round/add/").content.decode()
    assert '<option value="hpc-2.0.0" data-suite="hpc" data-round="2.0">' in page and "js/round_form.js" in page
    refused = client.post("/admin/results/round/add/", {**form, "ruleset_version": "2.0.0"})
    assert refused.status_code == 200 and "2.0.0 is a ruleset of Training rounds" in refused.content.decode()
    assert not Round.objects.exists()
    created = client.post("/admin/results/round/add/", {**form, "ruleset_version": ""})
    assert created.status_code == 302, created.content.decode()[:3000]
    round_ = Round.objects.get(suite="hpc")
    assert round_.ruleset_version == "hpc-2.0.0" and names(round_) == {"cosmoflow", "deepcam", "oc20"}
    # Its suite and version are its name: fixed; the ruleset select lists its suite's only.
    page = client.get(f"/admin/results/round/{round_.pk}/change/").content.decode()
    assert 'name="suite"' not in page and 'name="version"' not in page and 'data-suite="training"' not in page
    response = client.post(f"/admin/results/round/{round_.pk}/change/", {
        "ruleset_version": "hpc-3.0.0", "benchmarks-TOTAL_FORMS": "0", "benchmarks-INITIAL_FORMS": "0"})
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Round.objects.get(pk=round_.pk).ruleset_version == "hpc-3.0.0"
    assert AuditEvent.objects.filter(kind="round.ruleset_changed", round=round_).exists()
