"""MLPerf Training in the results database: packages of results/<system>/<benchmark>/ result
files, checked by the package pipeline against a training ruleset ("1.0.0") and scored in
minutes to train (results/suites/package_pipeline.py, shared with HPC)."""

from mlperf_check.rules import catalog

from ...constants import Suite
from ..package_pipeline import PackagePipelineSuite


class TrainingResults(PackagePipelineSuite):
    name = Suite.TRAINING
    published = catalog.ROUND_PUBLISHED
    hpc_packages = False


TRAINING = TrainingResults()
