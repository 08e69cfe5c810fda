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
    # Read as rows: a large round has 100,000 runs, each with an evaluation curve the table leaves out.
    runs = (Run.objects.visible_to(None).current().filter(result__submission__round=round_)
            .order_by("result__result_id", "file").values("result__result_id", *RUN_COLUMNS[1:]))
    return RUN_COLUMNS, [{**{c: run[c] for c in RUN_COLUMNS[1:]}, "result_id": run["result__result_id"]} for run in runs]
