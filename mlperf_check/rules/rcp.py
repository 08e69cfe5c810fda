"""Reference Convergence Points (RCP): does a closed-division result converge no faster than the
reference implementation did at its batch size, and by what factor is its score normalised?

This reproduces the `pruned_rcps` pass of the official `mlperf_logging.rcp_checker` (package
4.1.68) number for number:

* per RCP record (the reference's epochs or samples to converge over many seeds): the olympic
  mean, the population standard deviation of the full list, and the smallest submission mean a
  one-sided pooled Student t-test (alpha 0.05) would not call significantly faster, found by the
  same bisection to 1e-4;
* the same pruning of records, the same exact / interpolated / smaller-batch / missing cases;
* the factor max(1, RCP mean / submission mean) when a passing submission converged faster than
  the reference mean.

Means and standard deviations are computed in numpy's summation order and the t distribution from
the regularized incomplete beta function, so results are bit-identical to the official tool
without importing numpy or scipy (scipy alone costs about a second to import).

Where the official tool crashes (runs with different batch sizes or benchmarks, a benchmark with
no RCP file, `dlrm` in 1.0 to 2.1 whose run count it no longer knows) this returns an outcome with
a message instead. Statuses are the values of `results.constants.RcpStatus`.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import RcpOutcome, RunLog
from mlperf_check.rules.catalog import BenchmarkSpec, RulesetSpec
from mlperf_check.rules.stored import stored_entry

PASS = "pass"
PASS_INTERPOLATED = "pass_interpolated"
PASS_SMALLER_BATCH = "pass_smaller_batch"
FAIL = "fail"
FAIL_INTERPOLATED = "fail_interpolated"
MISSING = "missing"
NO_RCP = "no_rcp"
INSUFFICIENT = "insufficient"
NOT_APPLICABLE = "not_applicable"
BYPASSED = "bypassed"

# Failures an rcp_bypass decision turns into a pass (the official bypass covers exactly these:
# "RCP found", "RCP Interpolation" and "Missing RCP" failures, not missing data).
BYPASSABLE = frozenset({FAIL, FAIL_INTERPOLATED, MISSING})

ALPHA = 0.05
BISECTION_TOLERANCE = 1e-4
# The official tool marks a run that did not converge as needing "infinite" epochs.
NOT_CONVERGED = 1e9

# Benchmarks whose convergence point is a sample count (RunLog.samples_to_converge: the eval's
# `samples_count`; for Stable Diffusion the first eval step meeting FID and CLIP, which
# mlperf_check.runlog resolves), not the eval's `epoch_num`.
SAMPLES_BENCHMARKS = frozenset(
    {
        "stable_diffusion",
        "llama2_70b_lora",
        "flux1",
        "llama31_405b",
        "llama31_8b",
        "gpt_oss_20b",
        "deepseekv3_671b",
        "qwen35_397b_grpo",
        "dlrmv4",
    }
)
# RCP files of these benchmarks name the list "samples to converge" (all others, even when they
# hold sample counts, "Epochs to converge").
SAMPLES_FIELD_BENCHMARKS = frozenset({"llama2_70b_lora", "flux1"})
# Benchmarks whose RCP values are sample counts, for messages only.
SAMPLE_UNIT_BENCHMARKS = SAMPLES_BENCHMARKS | {"bert"}

# From ruleset 5.0 the official checker lowers the llama31_405b threshold by this many samples.
LLAMA31_405B_ALLOWANCE = 46080


@dataclass(frozen=True)
class RcpRecord:
    """One reference convergence point record of an RCP table: a batch size and its convergence statistics."""

    name: str
    benchmark: str
    batch_size: float
    mean: float  # olympic mean of the reference's convergence points
    stdev: float  # population standard deviation of the full list
    min_mean: float  # smallest acceptable submission mean ("Min Epochs")
    max_speedup: float  # mean / min_mean


@dataclass(frozen=True)
class RcpTable:
    """A benchmark's RCP records, or why they could not be read."""

    records: tuple[RcpRecord, ...]  # after pruning, sorted by batch size
    error: str = ""  # why no records could be read


# -- numpy-compatible arithmetic ---------------------------------------------------------------


def _pairwise_sum(values: list[float]) -> float:
    """numpy's pairwise summation (what np.sum and np.mean do for float64), so that means are
    bit-identical to the official tool's np.mean."""
    n = len(values)
    if n < 8:
        total = 0.0
        for value in values:
            total += value
        return total
    if n <= 128:
        acc = values[:8]
        i = 8
        while i < n - n % 8:
            for j in range(8):
                acc[j] += values[i + j]
            i += 8
        total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        while i < n:
            total += values[i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values[:half]) + _pairwise_sum(values[half:])


def np_mean(values: list[float]) -> float:
    return _pairwise_sum([float(v) for v in values]) / len(values)


def np_std(values: list[float]) -> float:
    """np.std (population, ddof 0) in numpy's order of operations."""
    floats = [float(v) for v in values]
    mean = _pairwise_sum(floats) / len(floats)
    squares = [(v - mean) * (v - mean) for v in floats]
    return math.sqrt(_pairwise_sum(squares) / len(floats))


def np_interp(x: float, x0: float, x1: float, y0: float, y1: float) -> float:
    """np.interp(x, [x0, x1], [y0, y1]) for finite values, with numpy's formula."""
    if x > x1:
        return y1
    if x < x0:
        return y0
    if x == x1:
        return y1
    if x == x0:
        return y0
    slope = (y1 - y0) / (x1 - x0)
    return slope * (x - x0) + y0


# -- Student t ----------------------------------------------------------------------------------


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def regularized_incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """I_x(a, b), with y = 1 - x passed in separately so that neither loses precision."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, y) / b


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    t2 = t * t
    tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2))
    return tail if t < 0 else 1.0 - tail


def one_sided_p_value(subm_mean: float, subm_n: int, ref_mean: float, ref_n: int, stdev: float) -> float:
    """The official `_find_p_value`: scipy.stats.ttest_ind_from_stats (pooled variance, both
    sides with the same stdev), turned into the one-sided p-value of "submission is faster"."""
    df = subm_n + ref_n - 2.0
    variance = stdev**2
    pooled = ((subm_n - 1) * variance + (ref_n - 1) * variance) / df
    denom = math.sqrt(pooled * (1.0 / subm_n + 1.0 / ref_n))
    t = (subm_mean - ref_mean) / denom
    # Two-sided p = 2 * sf(|t|); the official halves it for t < 0 and takes 1 - p/2 otherwise.
    tail = student_t_cdf(-abs(t), df)
    return tail if t < 0 else 1.0 - tail


def min_acceptable_mean(mean: float, stdev: float, ref_n: int, subm_n: int) -> float:
    """The official `_find_min_acceptable_mean`: bisection on [0, mean] to 1e-4. Note the official
    passes the reference count as the submission's sample size and vice versa; the pooled test is
    symmetric in the two counts, so only the degrees of freedom matter."""
    if stdev == 0:
        return mean
    high, low = mean, 0.0
    mid = (low + high) / 2
    while high - low > BISECTION_TOLERANCE:
        if one_sided_p_value(mid, ref_n, mean, subm_n, stdev) > ALPHA:
            high = mid
        else:
            low = mid
        mid = (low + high) / 2
    return mid


# -- RCP tables ---------------------------------------------------------------------------------


def _record_from_json(name: str, raw: dict, olympic_drop: int, subm_n: int) -> RcpRecord:
    record_benchmark = raw["Benchmark"]
    field = "samples to converge" if record_benchmark in SAMPLES_FIELD_BENCHMARKS else "Epochs to converge"
    points = sorted(raw[field])
    mean = np_mean(points[olympic_drop : len(points) - olympic_drop])
    stdev = np_std(points)
    min_mean = min_acceptable_mean(mean, stdev, len(points) - 2 * olympic_drop, subm_n)
    return RcpRecord(name, record_benchmark, raw["BS"], mean, stdev, min_mean, mean / min_mean)


def _prune(records: list[RcpRecord]) -> list[RcpRecord]:
    """The official `_prune_rcps`: drop records with a batch size below the fastest-converging
    one, then every record converging slower than the interpolation of its neighbours."""
    fastest = min(records, key=lambda r: r.mean)
    kept = [r for r in records if r.batch_size >= fastest.batch_size]
    i = 1
    while i < len(kept) - 1:
        low, high = kept[i - 1], kept[i + 1]
        interpolated = np_interp(kept[i].batch_size, low.batch_size, high.batch_size, low.mean, high.mean)
        if kept[i].mean > interpolated:
            del kept[i]
            i -= 1
        i += 1
    keys = {(r.benchmark, r.batch_size) for r in kept}
    return [r for r in records if (r.benchmark, r.batch_size) in keys]


@cache
def load_rcp_table(rcp_dir: Path, benchmark: str, required_runs: int, olympic_drop: int) -> RcpTable:
    """The pruned RCP records of `rcps_<benchmark>.json` in the package's ruleset folder (cached
    per ruleset and benchmark). Computing every record's minimum takes a bisection (10-25 ms for a
    ruleset's tables), so the tables of every known ruleset are stored (mlperf_check.rules.stored)
    and computed here only for a file whose bytes differ from the stored ones."""
    path = rcp_dir / f"rcps_{benchmark}.json"
    if not path.is_file():
        return RcpTable((), f"the RCP tables of {rcp_dir.name} have no file for {benchmark}")
    data = path.read_bytes()
    stored = stored_entry("rcps", rcp_dir.name, path.name, data)
    rows = stored and stored["tables"].get(table_key(required_runs, olympic_drop))
    if rows is not None:
        return RcpTable(tuple(RcpRecord(*row) for row in rows))
    return compute_rcp_table(path, data, required_runs, olympic_drop)


def table_key(required_runs: int, olympic_drop: int) -> str:
    """The key of a stored table: the run count and olympic drop it was computed for."""
    return f"{required_runs}/{olympic_drop}"


def compute_rcp_table(path: Path, data: bytes, required_runs: int, olympic_drop: int) -> RcpTable:
    """The pruned records of an RCP file (`data`, its bytes), every minimum bisected."""
    try:
        raw = json.loads(data.decode("utf-8"))
        records = [
            _record_from_json(name, record, olympic_drop, required_runs - 2) for name, record in raw.items()
        ]
    except (ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
        return RcpTable((), f"{path.name} of {path.parent.name} cannot be read: {exc!r}")
    if not records:
        return RcpTable((), f"{path.name} of {path.parent.name} holds no records")
    records.sort(key=lambda r: r.batch_size)
    return RcpTable(tuple(_prune(records)))


# -- submissions --------------------------------------------------------------------------------


def convergence_point(run: RunLog, benchmark: str, bert_train_samples: bool) -> float | None:
    """Epochs (or samples) the run needed, or None when it did not converge: the official checker
    counts any run whose run_stop status is not `success` as not converged (it ignores compliance,
    which olympic scoring handles)."""
    if run.run_stop_status != "success":
        return None
    if benchmark in SAMPLES_BENCHMARKS:
        return run.samples_to_converge
    if benchmark == "bert" and (bert_train_samples or _bert_epoch_is_not_samples(run)):
        return run.train_samples
    return run.epochs_to_converge


def _bert_epoch_is_not_samples(run: RunLog) -> bool:
    """BERT RCPs count samples. Most v1.0 logs put the sample count in the eval's epoch_num, but
    logs from NVIDIA's reference code (NVIDIA, Dell, Inspur, Supermicro, Nettrix) log epoch_num 1;
    those results were accepted with the official `--rcp-bert-train-samples` flag, which measures
    every run of the package by `train_samples` instead. A package-wide flag cannot serve a round
    (PCL logs `train_samples` inside its eval lines and fails with it), so it is decided per run:
    an epoch_num smaller than one global batch cannot be a sample count."""
    epoch = run.epochs_to_converge
    return epoch is None or (run.global_batch_size is not None and epoch < run.global_batch_size)


def _unit(benchmark: str) -> str:
    return "samples" if benchmark in SAMPLE_UNIT_BENCHMARKS else "epochs"


def _fmt(value: float) -> str:
    return f"{value:.6g}" if abs(value) < 1e6 else f"{value:,.0f}"


@dataclass(frozen=True)
class _Judgement:
    """Whether a submission's mean passes an RCP record, and the factors it implies."""

    passed: bool
    threshold: float
    factor: float
    checker_factor: float  # what the official package checker writes into scaling.json


def _judge(record: RcpRecord, submission_mean: float, ruleset: RulesetSpec, benchmark: str) -> _Judgement:
    """The official `_eval_submission_record`."""
    max_speedup = record.max_speedup
    if benchmark == "llama31_405b" and ruleset.rcp_llama31_405b_allowance:
        max_speedup = record.mean / (record.min_mean - LLAMA31_405B_ALLOWANCE)
    threshold = record.mean / max_speedup
    passed = submission_mean >= threshold
    norm = record.mean / submission_mean if submission_mean > 0 else 1.0
    # The factor is only applied (official: scaling.json written) on a pass faster than the mean.
    # Normalisation to the RCP mean is a rule of round 2.1 and later; earlier rounds published
    # unscaled scores, so their factor stays 1.0.
    faster = passed and submission_mean < record.mean
    checker_factor = max(1.0, norm) if faster else 1.0
    factor = checker_factor if ruleset.rcp_normalizes else 1.0
    return _Judgement(passed, threshold, factor, checker_factor)


def evaluate_rcp(
    runs: list[RunLog],
    *,
    ruleset: RulesetSpec,
    benchmark: str,
    division: str,
    bypass: bool = False,
    bert_train_samples: bool = False,
) -> RcpOutcome:
    """The RCP verdict for the runs of one result folder. `bypass` is an rcp_bypass decision;
    `bert_train_samples` forces the official flag of that name (otherwise decided per run)."""
    if ruleset.rcp_dir is None:
        return RcpOutcome(
            NOT_APPLICABLE, message=f"{ruleset.label} has no RCPs (they start with 1.0)"
        )
    if division.strip().lower() != "closed":
        return RcpOutcome(NOT_APPLICABLE, message="RCPs apply to the closed division only")
    if benchmark == "minigo":
        return RcpOutcome(NOT_APPLICABLE, message="minigo has no RCPs")
    spec = ruleset.benchmark(benchmark)
    if spec is None:
        return RcpOutcome(
            NOT_APPLICABLE, message=f"{benchmark!r} is not a benchmark of {ruleset.label}"
        )
    if not runs:
        return RcpOutcome(NOT_APPLICABLE, message="no result files")
    outcome = _evaluate(runs, ruleset, spec, bert_train_samples)
    if bypass and outcome.status in BYPASSABLE:
        outcome.message += "; accepted under an rcp_bypass decision"
        outcome.status = BYPASSED
        outcome.scaling_factor = 1.0
    return outcome


def _evaluate(
    runs: list[RunLog], ruleset: RulesetSpec, spec: BenchmarkSpec, bert_train_samples: bool
) -> RcpOutcome:
    benchmark = spec.name
    logged = sorted({run.benchmark for run in runs if run.benchmark})
    if len(logged) > 1:
        return RcpOutcome(FAIL, message=f"the runs log different benchmarks: {', '.join(logged)}")
    without = [run.file for run in runs if run.global_batch_size is None]
    if without:
        return RcpOutcome(FAIL, message=f"Could not detect global_batch_size in {', '.join(without)}")
    sizes: dict[int, list[str]] = {}
    for run in runs:
        sizes.setdefault(run.global_batch_size, []).append(run.file)
    if len(sizes) > 1:
        listing = "; ".join(f"{bs} in {', '.join(files)}" for bs, files in sorted(sizes.items()))
        return RcpOutcome(FAIL, message=f"the runs log different global_batch_size values: {listing}")
    (batch_size,) = sizes

    points = [convergence_point(run, benchmark, bert_train_samples) for run in runs]
    failed = [run.file for run, point in zip(runs, points, strict=True) if point is None]
    drop = spec.olympic_drop
    if len(failed) > drop:
        return RcpOutcome(
            INSUFFICIENT,
            message=f"Insufficient convergence: {len(failed)} of {len(runs)} runs did not converge "
            f"({', '.join(failed)}); at most {drop} may",
        )
    if len(runs) <= 2 * drop:
        return RcpOutcome(
            INSUFFICIENT,
            message=f"{len(runs)} runs are too few for an olympic mean dropping {drop} fastest and {drop} slowest",
        )
    values = sorted(NOT_CONVERGED if point is None else point for point in points)
    mean = np_mean(values[drop : len(values) - drop])

    table = load_rcp_table(ruleset.rcp_dir, benchmark, spec.required_runs, drop)
    if table.error:
        return RcpOutcome(NO_RCP, message=table.error, submission_mean=mean)
    unit = _unit(benchmark)

    exact = next((r for r in table.records if r.batch_size == batch_size), None)
    if exact is not None:
        judged = _judge(exact, mean, ruleset, benchmark)
        return _outcome(PASS if judged.passed else FAIL, "RCP found", exact, judged, mean, unit)

    lower = max(
        (r for r in table.records if 0 < r.batch_size < batch_size), key=lambda r: r.batch_size, default=None
    )
    upper = min(
        (r for r in table.records if batch_size < r.batch_size < 1e9),
        key=lambda r: r.batch_size,
        default=None,
    )
    if lower is not None and upper is not None:
        record = _interpolated(batch_size, lower, upper, spec.required_runs)
        judged = _judge(record, mean, ruleset, benchmark)
        status = PASS_INTERPOLATED if judged.passed else FAIL_INTERPOLATED
        where = f"RCP interpolated between batch sizes {_fmt(lower.batch_size)} and {_fmt(upper.batch_size)}"
        return _outcome(status, where, record, judged, mean, unit)
    if upper is not None:
        smallest = table.records[0]
        judged = _judge(smallest, mean, ruleset, benchmark)
        if judged.passed:
            where = f"no RCP for batch size {batch_size}, but slower convergence than the smallest-batch RCP"
            return _outcome(PASS_SMALLER_BATCH, where, smallest, judged, mean, unit)
        return _outcome(
            MISSING, f"Missing RCP, please submit RCP with BS = {batch_size}", smallest, judged, mean, unit
        )
    if lower is not None:
        return RcpOutcome(
            MISSING,
            message=f"Missing RCP, please submit RCP with BS = {batch_size} "
            f"(above the largest RCP batch size {_fmt(lower.batch_size)})",
            submission_mean=mean,
        )
    return RcpOutcome(NO_RCP, message="Cannot find any RCPs", submission_mean=mean)


def _interpolated(batch_size: int, lower: RcpRecord, upper: RcpRecord, required_runs: int) -> RcpRecord:
    """The official `_create_interp_rcp`: mean and stdev interpolated linearly in batch size, the
    minimum recomputed with twice the required runs as the reference count."""
    mean = np_interp(batch_size, lower.batch_size, upper.batch_size, lower.mean, upper.mean)
    stdev = np_interp(batch_size, lower.batch_size, upper.batch_size, lower.stdev, upper.stdev)
    min_mean = min_acceptable_mean(mean, stdev, 2 * required_runs, required_runs - 2)
    return RcpRecord(
        f"interpolated_{batch_size}", lower.benchmark, batch_size, mean, stdev, min_mean, mean / min_mean
    )


def _outcome(
    status: str, where: str, record: RcpRecord, judged: _Judgement, mean: float, unit: str
) -> RcpOutcome:
    comparison = ">=" if judged.passed else "is below"
    message = (
        f"{where}: submission mean {_fmt(mean)} {unit} {comparison} the minimum {_fmt(judged.threshold)} "
        f"(RCP batch size {_fmt(record.batch_size)}, mean {_fmt(record.mean)})"
    )
    if judged.factor > 1.0:
        message += f"; faster than the RCP mean, so the score is multiplied by {judged.factor:.4f}"
    return RcpOutcome(
        status=status,
        scaling_factor=judged.factor,
        message=message,
        submission_mean=mean,
        rcp_mean=record.mean,
        rcp_min=judged.threshold,
        rcp_batch_size=int(record.batch_size),
        checker_factor=judged.checker_factor,
    )
