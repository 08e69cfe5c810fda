"""A training or HPC round's snapshot tables (pages/snapshots.py adds the systems): the official
result summarizer's table of its results, and its runs with each file's digest and time."""

from __future__ import annotations

from results.models import Round, Run

RUN_COLUMNS = ["result_id", "file", "sha256", "time_to_train_minutes", "run_stop_status", "compliant", "scoring",
               "scoring_reason", "seed", "global_batch_size", "epochs_to_target", "samples_to_target"]
# What the snapshot's README says of each table.
SNAPSHOT_TABLES = {
    "results": "the official result summarizer's table",
    "runs": "each run's file, digest and time to train",
}


def runs_table(round_: Round) -> tuple[list[str], list[dict]]:
    runs = (Run.objects.visible_to(None).current().filter(result__submission__round=round_)
            .select_related("result").order_by("result__result_id", "file"))
    return RUN_COLUMNS, [{**{c: getattr(r, c) for c in RUN_COLUMNS[1:]}, "result_id": r.result.result_id} for r in runs]
