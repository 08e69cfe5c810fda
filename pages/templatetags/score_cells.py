"""A training round table's score cells, written in Python: a page is 100 rows of up to ten
benchmarks, and the same markup in the template language cost about 1 ms a row."""

from django import template
from django.template.defaultfilters import pluralize
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe

from pages.templatetags.numbers import megajoules
from results.constants import FactorSource

register = template.Library()


def _text(value) -> str:
    """A value as {{ value }} renders it."""
    return conditional_escape(localize(value))


@register.simple_tag
def score_cells(cell: dict) -> str:
    """One benchmark's cell of a row (pages/suites/training/views.py round_page's cell_list): the
    score linked to its result with its note, a mark where it rests on a decided scaling factor
    and one for checker errors nobody waived; then the energy cell where the round has energies."""
    html = ""
    if cell.get("result_id"):
        note = f": {_text(cell['note'])}" if cell.get("note") else ""
        score = _text(cell["display"]) if cell.get("minutes") is not None else '<span class="na">n/a</span>'
        html = f'<a href="{_text(cell["url"])}" title="{_text(cell["result_id"])}{note}">{score}</a>'
        if cell.get("factor_source") == FactorSource.DECISION:
            html += ('<sup class="decided-mark" title="score rests on a decided scaling factor, '
                     f'{_text(cell["decided_factor"])}">†</sup>')
        if cell.get("errors"):
            errors = _text(cell["errors"])
            html += (f' <span class="error-mark" title="{errors} checker error{pluralize(cell["errors"])} not waived">'
                     f"⚠ {errors}</span>")
    html = f'<td class="num score">{html}</td>'
    if cell.get("energy_column"):
        html += format_html('<td class="num energy">{}</td>', megajoules(cell.get("energy")))
    return mark_safe(html)  # every value above is escaped
