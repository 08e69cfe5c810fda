"""GPU telemetry through NVML (`nvidia-ml-py`), sampled on a side thread while a run goes on.

Without a GPU (no driver, no device) the sampler says so once and samples nothing: the job page
then shows "no GPU telemetry" with the reason instead of empty charts. Pure Python (no Django).
"""

from __future__ import annotations

import threading
import time


class GpuSampler:
    """Samples utilization, memory, power and SM clock of every GPU every `interval` seconds; a
    sample's "t" is seconds since `origin` (a time.monotonic() value: the job's clock)."""

    def __init__(self, interval: float = 1.0, origin: float | None = None):
        self.interval = interval
        self.samples: list[dict] = []
        self.available = False
        self.note = ""
        self.names: list[str] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._origin = time.monotonic() if origin is None else origin
        self._handles = []
        try:
            import pynvml

            pynvml.nvmlInit()
            count = pynvml.nvmlDeviceGetCount()
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(index) for index in range(count)]
            self.names = [str(pynvml.nvmlDeviceGetName(handle)) for handle in self._handles]
            self.available = count > 0
            self.note = f"{count} GPU(s): {', '.join(self.names)}" if count else "NVML found no GPU"
        except Exception as exc:  # ImportError, NVMLError_LibraryNotFound, NVMLError_DriverNotLoaded...
            self.note = f"NVML is not available on this worker ({type(exc).__name__}: {exc})"

    def __enter__(self) -> GpuSampler:
        if self.available:
            self._thread = threading.Thread(target=self._sample_until_stopped, name="gpu-telemetry", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def take(self) -> list[dict]:
        """The samples taken since the last call (the worker posts them in batches)."""
        taken, self.samples = self.samples, []
        return taken

    def _sample_until_stopped(self) -> None:
        import pynvml

        while not self._stop.wait(self.interval):
            at = round(time.monotonic() - self._origin, 2)
            for index, handle in enumerate(self._handles):
                try:
                    utilization = pynvml.nvmlDeviceGetUtilizationRates(handle)
                    memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
                    self.samples.append(
                        {
                            "t": at,
                            "gpu": index,
                            "utilization_pct": utilization.gpu,
                            "memory_used_mib": round(memory.used / 1024**2, 1),
                            "power_w": round(pynvml.nvmlDeviceGetPowerUsage(handle) / 1000, 1),
                            "sm_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                        }
                    )
                except Exception:  # a GPU fallen off the bus: keep sampling the others
                    continue
