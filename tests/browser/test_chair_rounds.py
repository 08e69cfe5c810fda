"""Issue 34 in Chromium: the chair creates an HPC round and an inference round from the pages. The
ruleset select follows the suite select (an HPC round is offered the hpc- rulesets only, an
inference round the inference rules), the empty choice names the ruleset the version typed picks,
and the round page shows the suite, ruleset and benchmarks.

Screenshots (with TEST_SCREENSHOTS=1): test-output/screenshots/chair-rounds-*-{1366,390}.png
"""

from __future__ import annotations

import pytest

from results.models import Round
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot_widths(page, name: str) -> None:
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        save_screenshot(page, SCREENSHOTS / f"chair-rounds-{name}-{width}.png", full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} is {overflow}px wider than a {width}px screen"
    page.set_viewport_size({"width": 1366, "height": 900})


def offered(page) -> list[str]:
    """The rulesets the select offers now (the others are hidden and disabled)."""
    return page.eval_on_selector_all("#id_ruleset_version option[data-suite]",
                                     "options => options.filter(o => !o.hidden && !o.disabled).map(o => o.value)")


def test_the_chair_creates_an_hpc_and_an_inference_round(personas, live_server, browser):
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "chair")
    page.fill("input[name=password]", "password")
    page.click("button[type=submit]")
    page.wait_for_load_state()

    page.goto(f"{live_server.url}/review/rounds/new/")
    assert offered(page)[0] == "6.1.0" and "hpc-2.0.0" not in offered(page)  # training first
    page.select_option("#id_suite", "hpc")
    assert offered(page) == ["hpc-3.0.0", "hpc-2.0.0", "hpc-1.0.0"]
    page.fill("#id_version", "2.0")
    empty = page.locator("#id_ruleset_version option[value='']")
    assert empty.inner_text() == "The rules of HPC 2.0: hpc-2.0.0"
    page.fill("input[name=reason]", "HPC 2.0 opens")
    shot_widths(page, "new-hpc")
    page.click("#new-round-form button")
    page.wait_for_url(f"{live_server.url}/review/rounds/hpc-v2.0/")
    assert page.inner_text("#round-ruleset") == "hpc-2.0.0"
    benchmarks = page.inner_text("#round-benchmarks")
    assert "deepcam" in benchmarks and "0.82" in benchmarks and "bert" not in benchmarks
    shot_widths(page, "hpc-round")

    page.goto(f"{live_server.url}/review/rounds/new/")
    page.select_option("#id_suite", "inference")
    assert offered(page)[0] == "v6.1" and "v5.0" in offered(page) and "6.1.0" not in offered(page)
    page.fill("#id_version", "5.0")
    assert page.locator("#id_ruleset_version option[value='']").inner_text() == "The rules of Inference 5.0: v5.0"
    page.fill("#id_version", "9.9")
    assert page.locator("#id_ruleset_version option[value='']").inner_text() == (
        "No Inference rules for 9.9: choose a ruleset")
    page.fill("#id_version", "5.0")
    page.fill("input[name=reason]", "inference 5.0 opens")
    shot_widths(page, "new-inference")
    page.click("#new-round-form button")
    page.wait_for_url(f"{live_server.url}/review/rounds/inference-v5.0/")
    assert page.inner_text("#round-ruleset") == "v5.0"
    assert "llama2-70b-99" in page.inner_text("#round-benchmarks")
    shot_widths(page, "inference-round")

    # A ruleset of another suite chosen before switching suites is dropped, never sent.
    page.goto(f"{live_server.url}/review/rounds/new/")
    page.select_option("#id_ruleset_version", "6.1.0")
    page.select_option("#id_suite", "hpc")
    assert page.eval_on_selector("#id_ruleset_version", "el => el.value") == ""

    page.goto(f"{live_server.url}/review/rounds/")
    shot_widths(page, "rounds")
    assert {(r.suite, r.ruleset_version, r.state) for r in Round.objects.all()} == {
        ("hpc", "hpc-2.0.0", "draft"), ("inference", "v5.0", "draft")}
    page.context.close()


def login(browser, live_server, username: str):
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "password")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return page


def test_the_borrower_uploads_through_its_window_and_the_chair_manages_people(personas, live_server, browser):
    from datetime import timedelta

    from django.utils import timezone

    from results.constants import RoundState
    from results.tests.factories import make_result, make_round, make_submission, make_system
    from review import services

    round_ = make_round("1.0", state=RoundState.REVIEW, benchmarks=("resnet",))
    round_.submission_deadline = timezone.now() - timedelta(days=1)
    round_.borrowing_deadline = timezone.now() + timedelta(days=5)
    round_.save()
    results = {}
    for key in ("alpha", "beta"):
        submission = make_submission(round_, personas[key], published=False, is_current=True)
        results[key] = make_result(make_system(submission, f"{key}-sys"), "resnet")
    services.declare_borrowing(personas["owner"], results["alpha"], results["beta"])
    end = f"{round_.borrowing_deadline:%Y-%m-%d %H:%M}"

    owner = login(browser, live_server, "owner")
    owner.goto(f"{live_server.url}/submit/")
    assert end in owner.inner_text("#round") and "Open for your resubmission until" in owner.inner_text("#round-states")
    shot_widths(owner, "submit-window")
    owner.goto(f"{live_server.url}/review/results/{results['alpha'].result_id}/")
    assert end in owner.inner_text("#borrowing-upload")
    owner.click("text=Withdraw this result")
    assert "published verbatim" in owner.inner_text("#withdraw-public")
    owner.locator("#withdraw-form").scroll_into_view_if_needed()
    shot_widths(owner, "borrower-result")
    owner.context.close()

    lender = login(browser, live_server, "outsider")
    lender.goto(f"{live_server.url}/review/inbox/")
    assert f"borrows the hyperparameters of your result {results['beta'].result_id}" in lender.inner_text("main")
    lender.context.close()

    chair = login(browser, live_server, "chair")
    chair.goto(f"{live_server.url}/review/people/")
    chair.fill("#role-form input[name=username]", "teammate")
    chair.select_option("#role-form select[name=role]", "reviewer")
    chair.click("#role-form button[value=add]")
    chair.wait_for_load_state()
    assert "reviewers" in chair.inner_text("#people")
    shot_widths(chair, "people")
    chair.goto(f"{live_server.url}/review/rounds/{round_.slug}/")
    assert results["alpha"].result_id in chair.inner_text("#round-borrowings")
    assert "opened by rule" in chair.inner_text("#round-windows")
    shot_widths(chair, "review-round")
    chair.context.close()
