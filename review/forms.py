"""The ruleset choice of a round, shared by the new-round page, the round page and the admin: one
select holding every suite's rulesets, grouped by suite, each option marked with its suite and the
round version it is the rules of. static/js/round_form.js shows the chosen suite's rulesets only and
names the one the version typed picks; without JavaScript the groups say which is which, and
results.services.rounds.ruleset_of refuses another suite's ruleset either way."""

from __future__ import annotations

from django import forms

from results.constants import Suite
from results.services.rounds import suite_rulesets

# The empty choice: the round's version picks its suite's ruleset (HPC 2.0 -> hpc-2.0.0).
VERSION_RULES = "The rules of the version typed"


def ruleset_groups(suites=None) -> list[tuple[str, str, dict[str, str]]]:
    """(suite, its label, {ruleset: the round version it is the rules of}) for each suite, newest
    ruleset first: what the select lists."""
    return [(value, label, suite_rulesets(value)) for value, label in Suite.choices
            if suites is None or value in suites]


class RulesetSelect(forms.Select):
    """A grouped select whose options carry data-suite and data-round (round_form.js reads them)."""

    def __init__(self, groups, choices, attrs=None):
        super().__init__({"data-ruleset-select": "", **(attrs or {})}, choices)
        self.marks = {name: (suite, version) for suite, _label, names in groups for name, version in names.items()}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in self.marks:
            suite, version = self.marks[value]
            option["attrs"].update({"data-suite": suite, "data-round": version})
        return option

    class Media:
        js = ("js/round_form.js",)


def ruleset_field(suites=None, *, empty: bool = True) -> forms.CharField:
    """The ruleset select of `suites` (default: every suite), with VERSION_RULES first when `empty`.
    A text field behind the select: ruleset_of judges what is posted and says why it refuses."""
    groups = ruleset_groups(suites)
    choices = [("", VERSION_RULES)] if empty else []
    choices += [(label, [(name, name) for name in names]) for _suite, label, names in groups]
    return forms.CharField(
        label="Ruleset", required=False, widget=RulesetSelect(groups, choices),
        help_text="Only the chosen suite's rulesets apply; left empty, the one of the round's version.",
    )


class RulesetForm(forms.Form):
    """The ruleset select alone: the new-round page (every suite) and the round page (its suite)
    render it among their other fields; the services validate what is posted."""

    def __init__(self, *args, suites=None, empty: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ruleset_version"] = ruleset_field(suites, empty=empty)
