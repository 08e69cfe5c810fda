"""How every page groups and names systems: divisions in MLCommons' order, the availability
categories (available on-premise or cloud, preview, research), and one key for the spellings of
an accelerator's name. Each suite's rows (pages/suites/*/) and the shared pages use these.
"""

from __future__ import annotations

from collections import Counter

from django.db.models import Q, Value
from django.db.models.functions import Lower, Replace

from results.constants import Availability, Deployment

# The MLCommons presentation: closed before open, then these categories in this order.
DIVISION_ORDER = {"closed": 0, "open": 1}


CATEGORIES = [
    ("available-onprem", "Available on-premise"),
    ("available-cloud", "Available cloud"),
    ("available", "Available (deployment not stated)"),
    ("preview", "Preview"),
    ("research", "Research, development, or internal"),
    ("unknown", "Category not stated"),
]


CATEGORY_LABELS = dict(CATEGORIES)


CATEGORY_ORDER = {key: index for index, (key, _) in enumerate(CATEGORIES)}


def accelerator_key(name: str) -> str:
    """One key for the spellings of one accelerator ("A100-PCIE-40GB (250W)", "A100-PCIe-40GB(250W)"):
    case and spaces ignored. Filters and groups use it; system pages show the name as submitted."""
    return (name or "").replace(" ", "").lower()


def accelerator_choices(names) -> list[tuple[str, str]]:
    """(key, label) per accelerator, the label being the most used spelling; sorted by label."""
    spellings: dict[str, Counter] = {}
    for name in names:
        if name:
            spellings.setdefault(accelerator_key(name), Counter())[name] += 1
    choices = [(key, counts.most_common(1)[0][0]) for key, counts in spellings.items()]
    return sorted(choices, key=lambda choice: choice[1].lower())


def with_accelerator(results, key: str, field: str = "system__accelerator_model_name"):
    """Rows of `results` whose accelerator has `key` (accelerator_key), in the database."""
    return results.alias(accelerator_key=Lower(Replace(field, Value(" "), Value("")))).filter(
        accelerator_key=accelerator_key(key)
    )


def category_of(availability: str, deployment: str) -> str:
    if availability == Availability.AVAILABLE:
        if deployment == Deployment.CLOUD:
            return "available-cloud"
        if deployment == Deployment.ON_PREMISE:
            return "available-onprem"
        return "available"
    if availability in (Availability.PREVIEW, Availability.RESEARCH):
        return availability
    return "unknown"


def system_fields(result) -> dict:
    """What every suite's points say about a result's system and who entered it (the division of
    the result, else of its system; availability as a label and a filter key)."""
    system = result.system
    category = category_of(system.availability, system.deployment)
    return {
        "division": result.division or system.division,
        "category": CATEGORY_LABELS[category],
        "category_key": category,
        "submitter": system.submitter or result.submission.organization.name,
        "organization": result.submission.organization.slug,
        "system": system.name,
        "system_id": system.system_id,
        "accelerator": system.accelerator_model_name,
        "accelerators": system.accelerators_count,
        "nodes": system.number_of_nodes,
    }


def category_q(category: str) -> Q:
    """The system rows in one display category, as a filter on Result."""
    if category == "available-cloud":
        return Q(system__availability=Availability.AVAILABLE, system__deployment=Deployment.CLOUD)
    if category == "available-onprem":
        return Q(system__availability=Availability.AVAILABLE, system__deployment=Deployment.ON_PREMISE)
    if category == "available":
        return Q(system__availability=Availability.AVAILABLE, system__deployment=Deployment.UNKNOWN)
    return Q(system__availability=category)
