from django.db import models


class Suite(models.TextChoices):
    TRAINING = "training", "Training"
    INFERENCE = "inference", "Inference"
    HPC = "hpc", "HPC"
    AUTOMOTIVE = "automotive", "Automotive"
    TINY = "tiny", "Tiny"


class Scaling(models.TextChoices):
    """MLPerf HPC's two scores of a benchmark on a system; training and inference results have none ("")."""

    STRONG = "strong", "Time to solution (strong scaling)"
    WEAK = "weak", "Throughput (weak scaling)"


class RoundState(models.TextChoices):
    """draft -> open -> review -> final -> published; chairs move a round (review/services/rounds.py)."""

    DRAFT = "draft", "Draft"
    OPEN = "open", "Open for submissions"
    REVIEW = "review", "In review"
    FINAL = "final", "Final (frozen)"
    PUBLISHED = "published", "Published"


class ResultStatus(models.TextChoices):
    """Withdrawn (by its organization) and removed (by a review decision) results are never published."""

    ACTIVE = "active", "Active"
    WITHDRAWN = "withdrawn", "Withdrawn"
    REMOVED = "removed", "Removed by review"


class Division(models.TextChoices):
    CLOSED = "closed", "Closed"
    OPEN = "open", "Open"
    NETWORK = "network", "Network"  # inference v2.1 on: the closed rules, the SUT reached over a network


class Availability(models.TextChoices):
    """The category of a system (MLPerf calls it `status`)."""

    AVAILABLE = "available", "Available"
    PREVIEW = "preview", "Preview"
    RESEARCH = "research", "Research, development, or internal"
    UNKNOWN = "unknown", "Unknown"


class Deployment(models.TextChoices):
    ON_PREMISE = "onprem", "On-premise"
    CLOUD = "cloud", "Cloud"
    UNKNOWN = "unknown", "Unknown"


class Scenario(models.TextChoices):
    """Inference LoadGen scenarios; training results have none ("")."""

    SINGLE_STREAM = "SingleStream", "Single-stream"
    MULTI_STREAM = "MultiStream", "Multi-stream"
    SERVER = "Server", "Server"
    OFFLINE = "Offline", "Offline"
    INTERACTIVE = "Interactive", "Interactive"  # v5.0+: Server under the LLMs' tighter token-latency limits
    CONSTANT_STREAM = "ConstantStream", "Constant-stream"  # MLPerf Automotive: queries at a fixed rate


class MetricDirection(models.TextChoices):
    HIGHER = "higher", "Higher is better"
    LOWER = "lower", "Lower is better"


class Severity(models.TextChoices):
    ERROR = "error", "Error"
    WARNING = "warning", "Warning"
    INFO = "info", "Info"


class RcpStatus(models.TextChoices):
    PASS = "pass", "Pass"
    PASS_INTERPOLATED = "pass_interpolated", "Pass (interpolated)"
    PASS_SMALLER_BATCH = "pass_smaller_batch", "Pass (slower than the smallest-batch RCP)"
    FAIL = "fail", "Fail"
    FAIL_INTERPOLATED = "fail_interpolated", "Fail (interpolated)"
    MISSING = "missing", "Missing RCP"
    NO_RCP = "no_rcp", "No RCPs for this benchmark"
    INSUFFICIENT = "insufficient", "Insufficient convergence"
    NOT_APPLICABLE = "not_applicable", "Not checked"
    BYPASSED = "bypassed", "Bypassed by decision"


class RunStatus(models.TextChoices):
    """How scoring treated a run."""

    COUNTED = "counted", "Counted"
    DROPPED_FASTEST = "dropped_fastest", "Dropped (fastest)"
    DROPPED_SLOWEST = "dropped_slowest", "Dropped (slowest)"
    FAILED = "failed", "Failed (counts as a slowest drop)"


class WaiverKind(models.TextChoices):
    """A review decision's kind (results.models.Waiver). Which findings each kind waives is
    mlperf_check/waivers.py's rule, the one the server and the offline command share."""

    RCP_BYPASS = "rcp_bypass", "RCP check bypassed"
    SEED_BYPASS = "seed_bypass", "Seed check bypassed"
    # The score uses Waiver.factor instead of the factor computed from the logs (accepted only).
    PUBLISHED_FACTOR = "published_factor", "Published scaling factor"
    # A chair's decision that findings of one code (Waiver.code) are wrong for this result.
    KNOWN_FALSE_POSITIVE = "false_positive", "Known false positive"


class FactorSource(models.TextChoices):
    """Where the scaling factor of a result's score comes from."""

    COMPUTED = "computed", "Computed from the logs and the RCP tables"
    DECISION = "decision", "A recorded decision"
