"""Reading the site's sitemap as a crawler does: the index at /sitemap.xml, then each part."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

LOC = "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"


def locations(client, address: str = "/sitemap.xml") -> list[str]:
    response = client.get(address)
    assert response.status_code == 200 and response["Content-Type"] == "application/xml", address
    return [element.text for element in ET.fromstring(response.content).iter(LOC)]


def sitemap_pages(client) -> list[str]:
    """Every page address the sitemap's parts list, in order (repeats kept)."""
    return [page for part in locations(client) for page in locations(client, urlsplit(part).path)]
