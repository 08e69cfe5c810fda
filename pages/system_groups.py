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


# What system_fields_of_row reads, as a Result query's .values() names them (a page of a large
# round reads rows, not model instances: building 1,500 results with their systems costs more
# than the rest of the page).
SYSTEM_VALUES = (
    "division", "system__division", "system__availability", "system__deployment", "system__submitter",
    "submission__organization__name", "submission__organization__slug", "system__name", "system__system_id",
    "system__accelerator_model_name", "system__accelerators_count", "system__number_of_nodes",
)


def system_fields(result) -> dict:
    """What every suite's points say about a result's system and who entered it (the division of
    the result, else of its system; availability as a label and a filter key)."""
    system, organization = result.system, result.submission.organization
    return system_fields_of_row({
        "division": result.division, "system__division": system.division,
        "system__availability": system.availability, "system__deployment": system.deployment,
        "system__submitter": system.submitter, "submission__organization__name": organization.name,
        "submission__organization__slug": organization.slug, "system__name": system.name,
        "system__system_id": system.system_id, "system__accelerator_model_name": system.accelerator_model_name,
        "system__accelerators_count": system.accelerators_count, "system__number_of_nodes": system.number_of_nodes,
    })


def system_fields_of_row(row: dict) -> dict:
    """system_fields of a result read as a row of SYSTEM_VALUES."""
    category = category_of(row["system__availability"], row["system__deployment"])
    return {
        "division": row["division"] or row["system__division"],
        "category": CATEGORY_LABELS[category],
        "category_key": category,
        "submitter": row["system__submitter"] or row["submission__organization__name"],
        "organization": row["submission__organization__slug"],
        "system": row["system__name"],
        "system_id": row["system__system_id"],
        "accelerator": row["system__accelerator_model_name"],
        "accelerators": row["system__accelerators_count"],
        "nodes": row["system__number_of_nodes"],
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
