"""`manage.py import_sample` (`make sample`, run by `make run`) names every round of the bundled
sample, with the official ids shipped beside it."""

import re

from results.management.commands.import_sample import SAMPLE, SAMPLE_ROUNDS


def test_it_names_every_round_folder_of_the_sample_and_its_ids_exist():
    rounds = {path.name for path in SAMPLE.iterdir() if path.is_dir() and re.fullmatch(r"[a-z]+-v[\d.]+", path.name)}
    assert {slug for slug, _ in SAMPLE_ROUNDS} == rounds
    assert all((SAMPLE / ids).is_file() for _, ids in SAMPLE_ROUNDS if ids)
