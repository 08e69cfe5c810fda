"""The only writers of the review workflow, one module per concern:

access.py         who may act: ReviewRefused, the role and conflict-of-interest guards, may_* checks
people.py         organization memberships, reviewer and chair roles
rounds.py         a round's life: create, ruleset, move, dates, publication (beat), late fixes, held
                  versions, reviewer assignments
windows.py        who may upload now (upload_refusal), resubmission windows
objections.py     file, answer, resolve
withdrawals.py    withdraw, decide a withdrawal, reinstate
waivers.py        waivers of findings and shipped-factor decisions (the rule: mlperf_check/waivers.py)
borrowing.py      hyperparameter borrowing: declare, check, decide, override, withheld versions
notifications.py  inbox and email, deadline reminders

Every action checks who acts (ReviewRefused otherwise, with the HTTP status that says why), moves
its row only along its transition table, and records an audit event (audit/events.py) in the same
transaction. Conflict of interest: nobody decides on an organization they belong to.

Callers use this package's names (`from review import services; services.create_round(...)`):
the public functions are re-exported below; private helpers stay in their modules.
"""

from .access import ReviewRefused, is_reviewer, may_read_mismatches, may_resolve, member_of
from .borrowing import (
    check_borrowings,
    decide_borrowing,
    declare_borrowing,
    override_rejected_borrowing,
    withheld_versions,
)
from .notifications import mark_read, remind_deadlines
from .objections import answer_objection, file_objection, resolve_objection
from .people import set_membership, set_role
from .rounds import (
    assign_reviewer,
    change_ruleset,
    create_round,
    move_round,
    publish_due_rounds,
    publish_fix,
    release_held_version,
    set_round_dates,
)
from .waivers import decide_shipped_factor, grant_waiver, waive_package_findings, waiver_kinds_for
from .windows import DEFAULT_FIX_WINDOW, grant_resubmission_window, upload_refusal
from .withdrawals import decide_withdrawal, reinstate_result, withdraw_result

__all__ = [
    "DEFAULT_FIX_WINDOW",
    "ReviewRefused",
    "answer_objection",
    "assign_reviewer",
    "change_ruleset",
    "check_borrowings",
    "create_round",
    "decide_borrowing",
    "decide_shipped_factor",
    "decide_withdrawal",
    "declare_borrowing",
    "file_objection",
    "grant_resubmission_window",
    "grant_waiver",
    "is_reviewer",
    "mark_read",
    "may_read_mismatches",
    "may_resolve",
    "member_of",
    "move_round",
    "override_rejected_borrowing",
    "publish_due_rounds",
    "publish_fix",
    "reinstate_result",
    "release_held_version",
    "remind_deadlines",
    "resolve_objection",
    "set_membership",
    "set_role",
    "set_round_dates",
    "upload_refusal",
    "waive_package_findings",
    "waiver_kinds_for",
    "withdraw_result",
    "withheld_versions",
]
