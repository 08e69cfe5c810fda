"""MLPerf Inference: LoadGen log parsers, discovery, rules per round, checkers and scoring."""

from mlperf_check.inference.discovery import looks_like_inference
from mlperf_check.inference.pipeline import InferencePackageError, check_inference_package

__all__ = ["InferencePackageError", "check_inference_package", "looks_like_inference"]
