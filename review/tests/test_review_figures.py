"""A result's review page gives each version's figure in its suite's unit: the version table showed
training minutes only, so an inference, Automotive or Tiny result read "—" in every version."""

import io

import pytest
from django.core.management import call_command
from django.template.defaultfilters import floatformat
from django.test import Client

from results.constants import RoundState
from results.models import Result, Round

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("suite, version", [("tiny", "1.3"), ("automotive", "0.5")])
def test_the_version_table_shows_the_figure_in_the_suites_unit(sample_data, personas, suite, version):
    slug = f"{suite}-v{version}"
    call_command("import_results", str(sample_data / slug), "--round", slug, "--jobs", "1", stdout=io.StringIO())
    Round.objects.filter(suite=suite, version=version).update(state=RoundState.REVIEW)
    result = Result.objects.filter(submission__round__suite=suite, metric_value__isnull=False).first()
    chair = Client()
    chair.force_login(personas["chair"])
    page = chair.get(f"/review/results/{result.result_id}/").content.decode()
    versions = page[page.index('id="versions"'):page.index("</table>", page.index('id="versions"'))]
    assert f"{floatformat(result.metric_value, '-3')} {result.metric_unit}" in versions, versions
