"""MLPerf Inference: LoadGen log parsers, discovery, rules per round, checkers and scoring.

The names below are imported on first use (PEP 562 `__getattr__`): `mlperf-check` asks every
path `looks_like_inference` first, and a training check should not pay for importing the
inference pipeline and its checkers (~30 ms of each run).
"""

from importlib import import_module

_EXPORTS = {
    "InferencePackageError": "mlperf_check.inference.pipeline",
    "check_inference_package": "mlperf_check.inference.pipeline",
    "looks_like_inference": "mlperf_check.inference.detect",
}

__all__ = ["InferencePackageError", "check_inference_package", "looks_like_inference"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
