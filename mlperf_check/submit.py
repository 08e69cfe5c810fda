"""`mlperf-check submit PATH --round training-v1.0`: check locally, upload, wait for the server's verdict.

1. The local check (the same code the server runs); a package with errors is not uploaded
   unless `--force`.
2. A folder is packed into a temporary .tar.gz; an archive is sent as it is.
3. `POST /api/v1/submissions/` (multipart, streamed from disk with a Content-Length), then
   `GET /api/v1/uploads/<id>/` every `--poll-seconds` until the job is done or failed, showing
   each change of state on stderr.
4. The result ids and the server's findings are printed.

Server and token: `--url` / `--token`, else the MLPERF_URL / MLPERF_TOKEN environment variables,
else `url` / `token` in `~/.config/mlperf-check/config.toml` (or under $XDG_CONFIG_HOME).

Exit status follows the server's verdict: 0 done without errors, 1 errors found (locally, when
the upload is refused for them, or by the server) or the job failed, 2 bad usage, a refused
request or a transport error.
"""

from __future__ import annotations

import argparse
import json
import os
import tarfile
import tempfile
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from mlperf_check.errors import PackageUnreadable, UnknownRules
from mlperf_check.forks import usable_cpus
from mlperf_check.output import describe
from mlperf_check.report import ERROR, Finding
from mlperf_check.suites import suite_for

USAGE_ERROR = 2
CHUNK_BYTES = 1024 * 1024
FINAL_STATES = ("done", "failed")  # ingest.constants.FINAL_STATES
# Findings of the server's verdict printed one by one; the counts are always whole.
FINDINGS_SHOWN = 200


class SubmitError(Exception):
    """Bad usage, a refused request or a transport problem: one sentence for the user, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlperf-check submit",
        description="Check a submitter folder (or archive of one) locally, upload it to a results server "
        "and wait for the server's verdict.",
    )
    parser.add_argument("path", help="submitter folder or .tar/.tar.gz/.tar.xz/.zip of one")
    parser.add_argument("--round", required=True, help="the round to submit to, e.g. training-v1.0")
    parser.add_argument("--url", help="the results server, e.g. https://results.example.org")
    parser.add_argument("--token", help="your API token (the server's admin, Auth Token)")
    parser.add_argument("--organization", help="organization slug; needed only when you belong to several")
    parser.add_argument("--ruleset", help="ruleset (round) for the local check (default: from the logs)")
    parser.add_argument("--force", action="store_true", help="upload even when the local check finds errors")
    parser.add_argument("--poll-seconds", type=float, default=2.0, help="time between status requests")
    parser.add_argument("--wait-minutes", type=float, default=120.0, help="give up waiting after this long")
    return parser


def main(argv: list[str], *, stdout: TextIO, stderr: TextIO) -> int:
    args = build_parser().parse_args(argv)  # exits with 2 on bad usage
    try:
        return submit(args, stdout=stdout, stderr=stderr)
    except SubmitError as exc:
        stderr.write(f"mlperf-check submit: {exc}\n")
        return USAGE_ERROR


def submit(args: argparse.Namespace, *, stdout: TextIO, stderr: TextIO) -> int:
    url, token = server_settings(args.url, args.token)
    path = Path(args.path)
    suite = suite_for(path)
    if suite.submitter_folders(path):
        raise SubmitError(f"{path} is a round folder; submit one submitter folder at a time")
    try:
        report = suite.check_package(path, ruleset=args.ruleset, jobs=usable_cpus())
    except (PackageUnreadable, UnknownRules) as exc:
        raise SubmitError(str(exc)) from exc
    stdout.write(suite.report_text(report) + "\n\n")
    if report.has_errors and not args.force:
        stdout.write(
            "Not uploaded: the local check found errors. Fix them, or pass --force to upload anyway.\n"
        )
        return 1

    with tempfile.TemporaryDirectory(prefix="mlperf-submit-") as tmp:
        archive = pack(path, Path(tmp)) if path.is_dir() else path
        fields = {"round": args.round}
        if args.organization:
            fields["organization"] = args.organization
        stderr.write(f"uploading {archive.name} ({archive.stat().st_size} bytes) to {url}\n")
        receipt = upload(url, token, fields, archive)
    stderr.write(f"upload {receipt['id']} received (version {receipt['version']}); {receipt['page_url']}\n")
    status = wait_for_verdict(receipt["status_url"], token, args.poll_seconds, args.wait_minutes * 60, stderr)
    return print_verdict(status, stdout)


def server_settings(url: str | None, token: str | None) -> tuple[str, str]:
    """URL and token: the option, else the environment, else the config file."""
    config = read_config()
    url = url or os.environ.get("MLPERF_URL") or config.get("url")
    token = token or os.environ.get("MLPERF_TOKEN") or config.get("token")
    if not url:
        raise SubmitError(f'no server: pass --url, set MLPERF_URL, or write url = "..." in {config_path()}')
    if not token:
        raise SubmitError(
            f'no API token: pass --token, set MLPERF_TOKEN, or write token = "..." in {config_path()}'
        )
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise SubmitError(f"the server URL {url!r} must start with http:// or https://")
    return url.rstrip("/"), token


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "mlperf-check" / "config.toml"


def read_config() -> dict[str, Any]:
    path = config_path()
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as handle:
            config = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SubmitError(f"cannot read {path}: {exc}") from exc
    return {key: value for key, value in config.items() if key in ("url", "token") and isinstance(value, str)}


def pack(folder: Path, tmp: Path) -> Path:
    """The submitter folder as `<name>.tar.gz` holding `<name>/...`, as the server expects."""
    archive = tmp / f"{folder.resolve().name}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.resolve().name)
    return archive


def upload(url: str, token: str, fields: dict[str, str], archive: Path) -> dict[str, Any]:
    """POST the archive as multipart/form-data, read from disk in chunks (never whole in memory)."""
    boundary = f"mlperf-check-{uuid.uuid4().hex}"
    head = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    )
    filename = archive.name.replace('"', "")
    head += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()

    def body() -> Iterator[bytes]:
        yield head
        with archive.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                yield chunk
        yield tail

    request = urllib.request.Request(
        f"{url}/api/v1/submissions/",
        data=body(),
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Accept": "application/json",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            # Known in advance, so the body is sent as it is read rather than chunked.
            "Content-Length": str(len(head) + archive.stat().st_size + len(tail)),
        },
    )
    return request_json(request, "upload")


def wait_for_verdict(status_url: str, token: str, poll_seconds: float, wait_seconds: float, stderr: TextIO):
    """Poll the upload's status until its job is final; each change of state is one line."""
    deadline = time.monotonic() + wait_seconds
    shown = ""
    while True:
        request = urllib.request.Request(
            status_url, headers={"Authorization": f"Token {token}", "Accept": "application/json"}
        )
        status = request_json(request, "status request")
        job = status["job"]
        line = job["state_label"] + (f": {job['stage']}" if job["stage"] else "")
        if job["files_total"]:
            line += f" ({job['files_done']} of {job['files_total']} result files)"
        if line != shown:
            stderr.write(f"  {line}\n")
            shown = line
        if job["state"] in FINAL_STATES:
            return status
        if time.monotonic() > deadline:
            raise SubmitError(
                f"the server has not finished after {wait_seconds / 60:.0f} minutes; "
                f"the upload is still queued or running: see {status['page_url']}"
            )
        time.sleep(poll_seconds)


def print_verdict(status: dict[str, Any], stdout: TextIO) -> int:
    job = status["job"]
    if job["state"] == "failed":
        stdout.write(f"The server could not check upload {status['id']}: {job['error']}\n")
        return 1
    counts = status["finding_counts"]
    lines = [f"Server verdict for upload {status['id']} (version {status['version']}, {status['round']}):"]
    for result in status["results"]:
        score = f"{result['score_minutes']:.4f}" if result["score_minutes"] is not None else "-"
        lines.append(f"  {result['result_id']:10} {result['system']:40} {result['benchmark']:16} {score:>12}")
    findings = status["findings"]
    for finding in findings[:FINDINGS_SHOWN]:
        waiver = finding.get("waived_by")
        label = "WAIVED" if waiver else finding["severity"].upper()
        decision = f" (waived by decision {waiver['id']}: {waiver['label']}, {waiver['reason']})" if waiver else ""
        lines.append(f"  {label:7} {describe_server_finding(finding)}{decision}")
    if len(findings) > FINDINGS_SHOWN:
        lines.append(f"  ... and {len(findings) - FINDINGS_SHOWN} more on {status['page_url']}")
    errors = counts.get(ERROR, 0)  # the server counts only what no decision waived
    waived = f", {counts['waived']} waived by a decision" if counts.get("waived") else ""
    lines.append(f"{errors} errors, {counts.get('warning', 0)} warnings, {counts.get('info', 0)} notes{waived}")
    stdout.write("\n".join(lines) + "\n")
    return 1 if errors else 0


def describe_server_finding(finding: dict[str, Any]) -> str:
    return describe(
        Finding(finding["severity"], finding["code"], finding["message"], finding["file"], finding["line"])
    )


def request_json(request: urllib.request.Request, what: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        raise SubmitError(f"the server refused the {what} (HTTP {exc.code}): {error_detail(exc)}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SubmitError(f"cannot reach {request.full_url}: {reason}") from exc
    except ValueError as exc:  # not JSON: not the results server's API
        raise SubmitError(
            f"the {what} answer from {request.full_url} is not JSON: is the URL right?"
        ) from exc


def error_detail(exc: urllib.error.HTTPError) -> str:
    """The API's own sentence (`detail`, or a form's field errors), else the HTTP reason."""
    try:
        body = json.loads(exc.read() or b"null")
    except ValueError:
        return exc.reason
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return body["detail"]
    if isinstance(body, dict):
        return "; ".join(f"{field}: {' '.join(map(str, errors))}" for field, errors in body.items())
    return exc.reason
