"""A table's links to result and system pages are built in Python once per table
(pages.common.TableLinks), and must be the addresses {% url %} writes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from pages.common import TableLinks

ODD = ["training:0.7-0002:transformer", "1.0-0001", "a b", "ünï", "x%y", "q?r#s", "o'k&c=d", "~@:!$()*+,;=", "ORGANIZATION"]


@pytest.mark.parametrize("value", ODD)
def test_table_links_are_the_addresses_reverse_gives(value):
    links = TableLinks()
    assert links.result(value) == reverse("pages:result", args=[value])
    assert links.system(value, value) == reverse("pages:system", args=[value, value])
    assert links.system("dell", value) == reverse("pages:system", args=["dell", value])
