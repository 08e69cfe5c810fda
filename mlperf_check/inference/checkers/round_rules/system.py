"""systems/<system>.json against the round's rules: availability, category, the round's fields
(some with a value), and the submitter and division of the folder it sits in. (A missing one is
the layout checker's.)"""

from __future__ import annotations

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import RoundRuleChecker
from mlperf_check.inference.discovery import ENDPOINTS, LOADGEN
from mlperf_check.report import ERROR, Finding


class RoundSystemChecker(RoundRuleChecker):
    name = "inference_round_system"
    readings = (LOADGEN, ENDPOINTS)
    description = "v2.1+: the system description's status, category, fields, submitter and division"

    def check_result(self, context: ResultContext) -> list[Finding]:
        system, table, folder = context.system_description, context.rules.table, context.folder
        if system is None:
            return []
        file = context.rel(f"systems/{folder.system}.json")
        out = []

        def wrong(code: str, message: str, key: str = "", expected: str = "", actual: str = "") -> None:
            out.append(
                self.finding(ERROR, code, message, file=file, key=key, expected=expected, actual=actual)
            )

        status = str(system.get("status", "")).lower()
        if status not in table["availabilities"]:
            wrong(
                "system_status",
                f"status '{system.get('status')}' is not one of {', '.join(table['availabilities'])}",
                "status",
                ", ".join(table["availabilities"]),
                str(system.get("status")),
            )
        system_type = system.get("system_type")
        if system_type not in ("datacenter", "edge", "datacenter,edge", "edge,datacenter"):
            wrong(
                "system_type",
                f"system_type '{system_type}' is not datacenter, edge or both",
                "system_type",
                "datacenter, edge, datacenter,edge",
                str(system_type),
            )
        flag = system.get(table["network_flag"])
        network = flag is not None and str(flag).lower() == "true"
        expected_network = {"network": True, "closed": False}.get(folder.division)
        if expected_network is not None and network is not expected_network:
            wrong(
                "network_mode",
                f"a {folder.division}-division system must {'' if expected_network else 'not '}run over the "
                f"network ({table['network_flag']}: {'true' if expected_network else 'false or absent'})",
                table["network_flag"],
                str(expected_network).lower(),
                str(flag),
            )
        fields = table["system_fields"] + (table["network_system_fields"] if network else [])
        missing = [name for name in fields if name not in system]
        if missing:
            wrong("system_fields", f"the system description lacks {', '.join(missing)}")
        empty = [name for name in table["system_fields_meaningful"] if name in system and not system[name]]
        if empty:
            wrong("system_fields_empty", f"the system description leaves {', '.join(empty)} empty")
        if str(system.get("submitter", "")).lower() != folder.submitter.lower():
            wrong(
                "system_submitter",
                "the system description names another submitter",
                "submitter",
                folder.submitter,
                str(system.get("submitter")),
            )
        if folder.division and system.get("division") != folder.division:
            wrong(
                "system_division",
                "the system description names another division",
                "division",
                folder.division,
                str(system.get("division")),
            )
        return out
