"""A published round imported with its shipped factors, in a real browser: the round table marks
the score that rests on a decided factor, and its result page says why. Screenshots land in
test-output/screenshots/ (with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def published_v30(sample_data):
    chair = User.objects.create_user("chair")
    chair.groups.add(Group.objects.get_or_create(name="chairs")[0])
    call_command(
        "import_results", str(sample_data / "training-v3.0"), "--round", "training-v3.0", "--jobs", "1",
        "--publish", "--published-factors", "--chair", "chair", stdout=io.StringIO(),
    )


def test_the_round_table_and_result_page_show_a_decided_factor(live_server, page, screenshot, published_v30):
    page.goto(f"{live_server.url}/rounds/training-v3.0/")
    page.wait_for_selector("#results-table")
    marks = page.locator("#results-table .decided-mark")
    assert marks.count() == 1
    assert "decided scaling factor" in marks.first.get_attribute("title")
    assert page.locator(".decided-legend").is_visible()
    screenshot("round-decided-factor")

    marks.first.locator("xpath=..").locator("a").click()
    page.wait_for_selector("#decided-factor")
    text = page.locator("#decided-factor").inner_text()
    assert "Score rests on a decided scaling factor" in text
    assert "shipped in the published package" in text and "4.24 minutes" in text
    assert page.locator(".score-big").inner_text() == "4.26"
    screenshot("result-decided-factor")
