"""NVML sampling, with a stand-in for the `pynvml` module (no GPU on the development machines: the
real library is exercised only where one is lent, see bench/RESULTS.md)."""

from __future__ import annotations

import sys
import time
import types

from pages import verification_charts as charts
from verify.telemetry import GpuSampler


def fake_pynvml(gpus: int = 2):
    module = types.ModuleType("pynvml")
    module.NVML_CLOCK_SM = 1
    module.nvmlInit = lambda: None
    module.nvmlDeviceGetCount = lambda: gpus
    module.nvmlDeviceGetHandleByIndex = lambda index: index
    module.nvmlDeviceGetName = lambda handle: "NVIDIA H100 80GB HBM3"
    module.nvmlDeviceGetUtilizationRates = lambda handle: types.SimpleNamespace(gpu=97 - handle)
    module.nvmlDeviceGetMemoryInfo = lambda handle: types.SimpleNamespace(used=40 * 1024**3)
    module.nvmlDeviceGetPowerUsage = lambda handle: 612_345  # milliwatts
    module.nvmlDeviceGetClockInfo = lambda handle, clock: 1980
    return module


def test_samples_every_gpu_and_hands_them_over_once(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    with GpuSampler(interval=0.02) as sampler:
        time.sleep(0.2)
    assert sampler.available and sampler.note == "2 GPU(s): NVIDIA H100 80GB HBM3, NVIDIA H100 80GB HBM3"
    samples = sampler.take()
    assert samples and sampler.take() == []
    assert {sample["gpu"] for sample in samples} == {0, 1}
    first = samples[0]
    assert (first["utilization_pct"], first["memory_used_mib"], first["power_w"], first["sm_clock_mhz"]) == (97, 40960.0, 612.3, 1980)


def test_no_library_means_no_telemetry_and_the_reason(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    with GpuSampler(interval=0.01) as sampler:
        time.sleep(0.05)
    assert not sampler.available and sampler.take() == []
    assert sampler.note.startswith("NVML is not available on this worker (ModuleNotFoundError")


def test_telemetry_charts_have_one_line_per_gpu():
    samples = [{"t": t, "gpu": gpu, "utilization_pct": 90 + gpu, "memory_used_mib": 100.0, "power_w": 300.0,
                "sm_clock_mhz": 1400} for t in (1, 2, 3) for gpu in (0, 1)]
    built = charts.telemetry(samples)
    assert [chart.name for chart in built] == ["gpu-utilization-pct", "gpu-memory-used-mib", "gpu-power-w", "gpu-sm-clock-mhz"]
    utilization = built[0].figure["data"]
    assert [trace["name"] for trace in utilization] == ["GPU 0", "GPU 1"] and utilization[1]["y"] == [91, 91, 91]
