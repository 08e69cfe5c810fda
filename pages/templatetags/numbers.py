"""Numbers as people read them: thousands separated, with as many digits as they carry meaning."""

from django import template
from django.template.defaultfilters import floatformat

register = template.Library()


def format_quantity(value, unit: str = "") -> str:
    """1927522 -> "1,927,522", 2561296.375 -> "2,561,296", 40.5 -> "40.5", 0.75912 -> "0.7591";
    "" for a missing value. `unit` is appended after a space."""
    if value is None or value == "" or isinstance(value, bool):
        return ""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if abs(number) >= 1000 or number == int(number):
        text = f"{number:,.0f}"
    else:
        text = f"{number:,.4g}"
    return f"{text} {unit}" if unit else text


def format_power(value, unit: str) -> str:
    """An inference power figure as the official checker states it: energy per query for
    single- and multi-stream ("12.5 mJ/query"), average Watts otherwise ("398.33 W")."""
    return f"{floatformat(value, -2)} {'mJ/query' if unit == 'millijoules' else 'W'}"


@register.filter
def power(value, unit: str = ""):
    return format_power(value, unit)


@register.filter
def quantity(value, unit: str = ""):
    return format_quantity(value, unit)


@register.filter
def megajoules(joules) -> str:
    """Energy in joules shown in MJ, three decimals ("1.793")."""
    return "" if joules is None else f"{joules / 1e6:.3f}"


@register.filter
def kilojoules(joules) -> str:
    """Energy in joules shown in kJ, one decimal."""
    return "" if joules is None else f"{joules / 1e3:.1f}"
