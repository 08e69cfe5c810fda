"""One round's life, as its users live it, in Chromium: on the README's own mode (`make run` in a
fresh clone, no command typed but `make run`), at 1366 px and at 390 px, then once more on the
production shape (gunicorn on PostgreSQL and Redis with their roles, a worker, beat and a
verification worker: servers.ProductionServer). Two accounts beyond the demo ones are made at the
start, as an operator would in the admin. Each test is the next step of the story and needs the
ones before it; each story runs on a server of its own.

- submitter (Dell, the demo account): uploads the demo package and gets its verdict within a minute,
  reads its findings, fixes the package and resubmits; uploads a package that speaks for another
  organization, which is held for a chair and shown as held to its uploader; the results are
  embargoed until publication;
- a second organization's submitter (HelmholtzAI) uploads; in review it reads Dell's results (peer
  review) and objects; Dell answers; a reviewer who belongs to Dell may not decide (conflict of
  interest); Dell declares borrowing HelmholtzAI's hyperparameters, which opens its way to resubmit
  and tells the lender; its resubmission is checked against the lender's;
- the chair gives people their organizations and roles, creates a round of each suite with that suite's
  rulesets only, rejects the borrowing, waives a finding, publishes at publish_at (beat), approves a
  withdrawal, publishes a correction (which does not bring the withdrawn result back) and reinstates;
- a researcher, in a private window: the permalink, MLCommons' own entry ids, the snapshot downloaded
  and checked with `sha256sum -c` as downloaded, the round's Atom feed, an earlier version, the
  tombstone of the withdrawn result;
- a verification request reaches the verification worker; every process stops at the end (Ctrl-C for
  make run).

Each story is a test module of its own (test_make_run_desktop.py, test_make_run_phone.py,
test_production_desktop.py) that collects these steps: `make test`'s parallel workers take a module
each (`--dist loadscope`), so the three servers run side by side.

Screenshots, with TEST_SCREENSHOTS=1: test-output/screenshots/journeys/<step>-<server>-<width>.png.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.screenshots import save_screenshot

from .conftest import SCREENSHOTS, WIDTHS, Person
from .servers import REPO, EmbeddedServer, ProductionServer

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.slow(minutes=4)]

DEMO_PASSWORD = "demo"  # review/management/commands/seed_demo.py, printed by make run
PASSWORD = "a long journey password"
ROUND = "hpc-v2.0"
QUICK_BEAT = {"REVIEW_PUBLISH_CHECK_SECONDS": "2", "SNAPSHOT_CHECK_SECONDS": "2", "INGEST_SWEEP_SECONDS": "5"}
UPLOADS = REPO / "sample_data" / "uploads" / "hpc-v2.0"


class Story:
    """What one step leaves for the next: the server, the packages, the ids met on the way."""

    def __init__(self, kind: str, server: EmbeddedServer | ProductionServer, width: str, packages: dict[str, Path],
                 tmp: Path):
        self.kind, self.server, self.width, self.packages, self.tmp = kind, server, width, packages, tmp
        self.dell_result = ""  # Dell's deepcam result id
        self.helmholtz_result = ""
        self.published_with_the_round = 0  # Dell's version the round was published with
        self.people: dict[str, Person] = {}

    def person(self, browser, username: str = "", password: str = DEMO_PASSWORD) -> Person:
        """`username`'s window, signed in at its first step and kept for the story, as people keep
        theirs open (each sign-in costs the server a password hash); with no username, a new private
        window: nobody signed in."""
        if not username:
            return Person(browser, self.server.url, self.width)
        if username not in self.people:
            self.people[username] = Person(browser, self.server.url, self.width).sign_in(username, password)
        return self.people[username]

    def shot(self, someone: Person, step: str) -> None:
        """A full-page screenshot at this story's width (with TEST_SCREENSHOTS=1); and nothing wider than the
        window."""
        save_screenshot(someone.page, SCREENSHOTS / f"{step}-{self.kind}-{self.width}.png", full_page=True)
        width = WIDTHS[self.width][0]
        scroll = loaded_page_width(someone.page)
        assert scroll <= width, f"{step}: the page is {scroll} px wide in a {width} px window"


def loaded_page_width(page) -> int:
    """The width of the page once loaded. A click just before may have started a navigation (a form
    sent, then its redirect): between two documents there is none to measure (documentElement is
    null, or the page's context is gone), so it is measured again once the next one has loaded."""
    for _ in range(20):
        page.wait_for_load_state()
        try:
            width = page.evaluate("document.readyState === 'complete' && document.documentElement"
                                  " ? document.documentElement.scrollWidth : null")
        except PlaywrightError:  # the document went while it was asked
            width = None
        if width is not None:
            return width
        page.wait_for_timeout(100)
    raise AssertionError(f"{page.url} never finished loading")


def pack(folder: Path, archive: Path, *, leave_out: str = "") -> Path:
    """`folder` as <archive> (top folder: its name), without the member `leave_out`."""
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(folder, arcname=folder.name, filter=lambda m: None if leave_out and m.name.endswith(leave_out) else m)
    return archive


@pytest.fixture(scope="module")
def story(request, tmp_path_factory):
    """The story of the module that collects these steps: its STORY is (server, width)."""
    kind, width = request.module.STORY
    tmp = tmp_path_factory.mktemp(f"story-{kind}-{width}")
    if kind == "make-run":
        server = EmbeddedServer(tmp, QUICK_BEAT)
        server.start()
        demo_package = server.tree / "var" / "demo" / "Dell.tar.gz"  # what make run prints
    else:
        server = ProductionServer(tmp, QUICK_BEAT)
        server.start(imports=(("sample_data/inference-v4.1", "--round", "inference-v4.1", "--publish",
                               "--ids", "sample_data/inference-v4.1-ids.json"),))
        server.manage("seed_demo")  # the same accounts, round and package in development
        demo_package = tmp / "var" / "demo" / "Dell.tar.gz"
    (tmp / "fixed").mkdir()
    packages = {
        "dell": demo_package,
        "dell-fixed": pack(UPLOADS / "Dell", tmp / "fixed" / "Dell.tar.gz", leave_out="/README.md"),
        "helmholtz": pack(UPLOADS / "HelmholtzAI", tmp / "HelmholtzAI.tar.gz"),
    }
    # Two more people, as an operator makes accounts; the chair gives them organizations and roles.
    for username in ("helmholtz", "rita"):
        server.manage("shell", "-c", "from django.contrib.auth import get_user_model; "
                      f"get_user_model().objects.create_user({username!r}, '{username}@example.org', {PASSWORD!r})")
    if kind == "production":  # the organization make run's sample import makes
        server.manage("shell", "-c", "from results.models import Organization; "
                      "Organization.objects.create(name='HelmholtzAI', slug='helmholtzai', aliases=['HelmholtzAI'])")
    story = Story(kind, server, width, packages, tmp)
    yield story
    for someone in story.people.values():
        someone.close()
    server.stop()


def upload(someone: Person, archive: Path, *, expect_state=re.compile(r"^done")) -> None:
    page = someone.page
    page.goto("/submit/")
    page.select_option("#round", ROUND)
    page.set_input_files("#file", str(archive))
    page.click("#upload-button")
    expect(page.locator("#job-state")).to_have_text(expect_state, timeout=60_000)


# --- The chair sets the people up ---------------------------------------------------------------


def test_the_chair_gives_people_their_organizations_and_roles(story, browser):
    chair = story.person(browser, "chair")
    page = chair.page
    page.goto("/review/people/")
    for username, organization in (("helmholtz", "HelmholtzAI"), ("rita", "Dell")):
        page.fill("#member-form input[name=username]", username)
        page.select_option("#member-form select[name=organization]", label=organization)
        page.click("#member-form button[value=add]")
        expect(page.locator("main")).to_contain_text(username)
    page.fill("#role-form input[name=username]", "rita")
    page.select_option("#role-form select[name=role]", "reviewer")
    page.click("#role-form button[value=add]")
    story.shot(chair, "people")


def test_the_chair_creates_a_round_of_each_suite_with_its_own_rulesets(story, browser):
    chair = story.person(browser, "chair")
    page = chair.page
    for suite, version, wanted, foreign in (("hpc", "3.0", "hpc-3.0.0", "6.1.0"), ("inference", "6.1", "v6.1", "hpc-2.0.0"),
                                            ("training", "6.1", "6.1.0", "v5.0")):
        page.goto("/review/rounds/new/")
        page.select_option("#id_suite", suite)
        page.fill("#id_version", version)
        offered = page.locator("#new-round-form select[name=ruleset_version] option:not([hidden]):not([disabled])")
        values = [value for value in offered.evaluate_all("options => options.map(o => o.value)") if value]
        assert wanted in values and foreign not in values, (suite, values)
        page.fill("#new-round-form input[name=reason]", f"{suite} v{version} opens for submissions soon")
        page.click("#new-round-form button")
        expect(page.locator("#round-ruleset")).to_have_text(wanted)
        expect(page.locator("#round-benchmarks tbody tr").first).to_be_visible()
    story.shot(chair, "chair-new-round")


# --- Submitters ---------------------------------------------------------------------------------


def test_a_newcomer_uploads_the_demo_package_and_gets_its_verdict_within_a_minute(story, browser):
    if isinstance(story.server, EmbeddedServer):
        assert "Demo accounts (development only): chair, reviewer, submitter" in story.server.output()
    submitter = story.person(browser, "submitter")
    page = submitter.page
    page.goto("/submit/")
    expect(page.locator("#no-worker")).to_have_count(0)  # make run started a worker
    started = time.monotonic()
    upload(submitter, story.packages["dell"])
    assert time.monotonic() - started < 60
    scores = page.locator("#scores tbody tr")
    expect(scores).to_have_count(1)
    expect(scores.first).to_contain_text("deepcam")
    expect(scores.first).to_contain_text("13.00")  # 12.9954 min, the official time to solution
    story.dell_result = scores.first.locator("a[href^='/results/']").inner_text()
    # Its one finding names the file: README.md is not a file of the package layout.
    page.eval_on_selector("#findings-warning", "e => { e.open = true; }")
    expect(page.locator("#findings")).to_contain_text("README.md")
    story.shot(submitter, "submitter-first-upload")


def test_the_submitter_fixes_the_package_and_uploads_a_second_version(story, browser):
    submitter = story.person(browser, "submitter")
    upload(submitter, story.packages["dell-fixed"], expect_state=re.compile(r"^done$"))
    page = submitter.page
    expect(page.locator("#upload-status")).to_contain_text("Uploaded as version 2")
    expect(page.locator("#findings")).not_to_contain_text("README.md")
    expect(page.locator("#uploads tbody tr")).to_have_count(2)


def test_another_organization_uploads_and_nobody_else_sees_it_before_review(story, browser):
    helmholtz = story.person(browser, "helmholtz", PASSWORD)
    upload(helmholtz, story.packages["helmholtz"], expect_state=re.compile(r"^done$"))
    story.helmholtz_result = helmholtz.page.locator("#scores tbody a[href^='/results/']").first.inner_text()
    # Embargo: the round is open, so neither the public nor the other submitter reads Dell's result.
    public = story.person(browser)
    for address in (f"/rounds/{ROUND}/", f"/results/{story.dell_result}/", f"/r/{story.dell_result}"):
        assert public.page.goto(address).status == 404, address
    assert helmholtz.page.goto(f"/results/{story.dell_result}/").status == 404
    public.close()


def test_a_package_that_speaks_for_another_organization_is_held_and_its_uploader_told(story, browser):
    submitter = story.person(browser, "submitter")
    upload(submitter, story.packages["helmholtz"])
    page = submitter.page
    expect(page.locator("#scores tbody a[href^='/results/']")).to_have_count(0)  # no result id taken
    page.goto("/submit/")
    held = page.locator("#uploads tbody tr").first
    expect(held.locator(".held")).to_be_visible()
    held.locator("a").first.click()
    expect(page.locator("main")).to_contain_text("HelmholtzAI")  # why: whom the files speak for
    story.shot(submitter, "submitter-held")


# --- Review -------------------------------------------------------------------------------------


def test_in_review_a_peer_objects_and_the_submitter_answers(story, browser):
    chair = story.person(browser, "chair")
    chair.page.goto(f"/review/rounds/{ROUND}/")
    chair.page.fill("#move-form input[name=reason]", "the submission deadline has passed")
    chair.page.click("#move-form button")
    expect(chair.page.locator("#round-state")).to_have_text("In review")

    helmholtz = story.person(browser, "helmholtz", PASSWORD)
    page = helmholtz.page
    page.goto(f"/review/results/{story.dell_result}/")  # peer review: every submission of the round
    page.click("#object summary")
    page.fill("#objection-form input[name=rule]", "HPC rules 9.1: the system description must name the interconnect")
    page.fill("#objection-form textarea[name=evidence]", "systems/32xXE8545x4A100-SXM4-40GB.json gives no interconnect")
    page.click("#objection-form button")
    expect(page.locator("article.objection")).to_have_count(1)
    story.shot(helmholtz, "reviewer-objection")

    submitter = story.person(browser, "submitter")
    submitter.page.goto(f"/review/results/{story.dell_result}/")
    submitter.page.fill(".answer-form textarea[name=answer]", "The interconnect is InfiniBand HDR; the field was optional.")
    submitter.page.click(".answer-form button")
    expect(submitter.page.locator("article.objection")).to_contain_text("InfiniBand HDR")


def test_a_reviewer_of_the_same_organization_may_not_decide_and_another_reviewer_dismisses(story, browser):
    rita = story.person(browser, "rita", PASSWORD)  # a reviewer, and a member of Dell
    rita.page.goto(f"/review/results/{story.dell_result}/")
    expect(rita.page.locator(".resolve-form")).to_have_count(0)
    expect(rita.page.locator("#waive-form")).to_have_count(0)
    reviewer = story.person(browser, "reviewer")
    page = reviewer.page
    page.goto(f"/review/results/{story.dell_result}/")
    page.select_option(".resolve-form select[name=outcome]", "dismissed")
    page.fill(".resolve-form input[name=reason]", "the interconnect field is optional in HPC v2.0")
    page.click(".resolve-form button")
    expect(page.locator("article.objection")).to_contain_text("Dismissed")


def test_declaring_borrowing_opens_a_window_and_tells_the_lender_and_the_resubmission_is_checked(story, browser):
    submitter = story.person(browser, "submitter")
    page = submitter.page
    page.goto(f"/review/results/{story.dell_result}/")
    page.select_option("#borrowing-form select[name=lender]", story.helmholtz_result)
    page.click("#borrowing-form button")
    expect(page.locator("#borrowing-upload")).to_be_visible()  # where and until when to upload
    page.goto("/submit/")
    expect(page.locator("#round-states")).to_contain_text("Open for your resubmission until")
    lender = story.person(browser, "helmholtz", PASSWORD)
    lender.page.goto("/review/inbox/")
    expect(lender.page.locator("main")).to_contain_text(story.dell_result)
    # The resubmission: the same package again (the submitter confirms it), checked against the lender's.
    page.once("dialog", lambda dialog: dialog.accept())
    upload(submitter, story.packages["dell-fixed"])
    page.goto(f"/review/results/{story.dell_result}/")
    expect(page.locator("article.borrowing .badge")).to_have_text("Resubmission checked")
    story.shot(submitter, "borrower-checked")


# --- The chair decides and publishes ------------------------------------------------------------


def test_the_chair_rejects_the_borrowing_and_a_reverting_version_frees_the_round(story, browser):
    chair = story.person(browser, "chair")
    page = chair.page
    page.goto(f"/review/results/{story.dell_result}/")
    page.fill("#borrowing-decision input[name=reason]", "the learning rate schedule is Dell's own, not the lender's")
    page.click("#borrowing-decision button[value=reject]")
    expect(page.locator("#borrowing-blocks")).to_be_visible()
    # Dell goes back to its own hyperparameters: the same bytes as version 2, confirmed again.
    submitter = story.person(browser, "submitter")
    submitter.page.once("dialog", lambda dialog: dialog.accept())
    upload(submitter, story.packages["dell-fixed"])
    page.goto(f"/review/results/{story.dell_result}/")
    expect(page.locator("article.borrowing .badge")).to_have_text("Rejected, then reverted by a later version")


def test_the_chair_waives_a_package_finding_and_it_is_no_longer_counted(story, browser):
    chair = story.person(browser, "chair")
    page = chair.page
    page.goto(f"/review/rounds/{ROUND}/")
    page.locator("#round-versions tbody tr", has_text="Dell").filter(has=page.locator("a", has_text=re.compile(r"^v1$"))) \
        .locator("a").first.click()
    expect(page.locator("#report-counts")).to_contain_text("1 warning")
    page.select_option("#package-waive-form select[name=code]", "LAYOUT_UNKNOWN_FILE")
    page.fill("#package-waive-form input[name=reason]", "the README is the submitter's notes; the rules allow it")
    page.click("#package-waive-form button")
    expect(page.locator("#report-counts")).to_contain_text("0 warnings")
    expect(page.locator("#report-counts")).to_contain_text("1 waived by a decision")
    story.shot(chair, "chair-waived")


def test_beat_publishes_the_round_at_its_publish_at_and_takes_its_snapshot(story, browser):
    chair = story.person(browser, "chair")
    page = chair.page
    page.goto(f"/review/rounds/{ROUND}/")
    page.fill("#move-form input[name=reason]", "review is over")
    page.click("#move-form button")
    expect(page.locator("#round-state")).to_have_text("Final (frozen)")
    page.fill("#dates-form input[name=publish_at]", "2020-01-01T00:00")
    page.fill("#dates-form input[name=reason]", "publish at once")
    page.click("#dates-form button")
    page.wait_for_load_state()
    wait_until(page, f"/review/rounds/{ROUND}/", lambda: page.locator("#round-state").inner_text() == "Published")

    public = story.person(browser)  # a private window: nobody signed in
    public.page.goto(f"/rounds/{ROUND}/")
    expect(public.page.locator("main")).to_contain_text(story.dell_result)
    expect(public.page.locator("main")).to_contain_text(story.helmholtz_result)
    story.shot(public, "public-round")
    wait_until(public.page, f"/rounds/{ROUND}/snapshots/", lambda: public.page.locator("a[href$='SHA256SUMS']").count())


def wait_until(page, address: str, done, seconds: int = 40) -> None:
    for _ in range(seconds):
        try:
            page.goto(address)
        except PlaywrightError:  # the page's own script reloaded it meanwhile (a job page follows its job)
            time.sleep(1)
            continue
        if done():
            return
        time.sleep(1)
    raise AssertionError(f"{address}: not done after {seconds} s")


def test_a_withdrawal_approved_by_the_chair_leaves_a_tombstone(story, browser):
    submitter = story.person(browser, "submitter")
    page = submitter.page
    page.goto(f"/review/results/{story.dell_result}/")
    page.click("#withdraw-form >> xpath=.. >> summary")
    expect(page.locator("#withdraw-public")).to_contain_text("published verbatim")
    page.fill("#withdraw-form input[name=reason]", "the system was reconfigured before it shipped")
    page.click("#withdraw-form button")
    chair = story.person(browser, "chair")
    chair.page.goto(f"/review/results/{story.dell_result}/")
    chair.page.fill(".withdrawal-decision input[name=reason]", "Dell's request is in order")
    chair.page.click(".withdrawal-decision button[value=approve]")

    researcher = story.person(browser)
    answer = researcher.page.goto(f"/r/{story.dell_result}")
    assert answer.status == 410
    expect(researcher.page.locator("main")).to_contain_text("the system was reconfigured before it shipped")
    expect(researcher.page.locator("main")).to_contain_text("13.00")  # its last published figure
    story.shot(researcher, "researcher-tombstone")
    researcher.page.goto(f"/rounds/{ROUND}/changes/")
    expect(researcher.page.locator("main")).to_contain_text("Withdrawal")


def test_a_correction_published_later_does_not_bring_the_withdrawn_result_back_until_reinstated(story, browser):
    chair = story.person(browser, "chair")
    page = chair.page
    page.goto(f"/review/rounds/{ROUND}/")
    page.select_option("#window-form select[name=organization]", label="Dell")
    page.fill("#window-form input[name=closes_at]", "2099-01-01T00:00")
    page.fill("#window-form input[name=reason]", "a corrected system description")
    page.click("#window-form button")
    submitter = story.person(browser, "submitter")
    submitter.page.once("dialog", lambda dialog: dialog.accept())
    upload(submitter, story.packages["dell-fixed"])
    version = int(re.search(r"version (\d+)", submitter.page.inner_text("#upload-status")).group(1))
    story.published_with_the_round = version - 1  # the one before: the reverting version, current at publication
    page.goto(f"/review/rounds/{ROUND}/")
    fix = page.locator("#round-versions tbody tr").filter(has=page.locator("a", has_text=re.compile(f"^v{version}$")))
    fix.locator("input[name=reason]").fill("the corrected system description")
    fix.locator("button").click()
    researcher = story.person(browser)
    assert researcher.page.goto(f"/r/{story.dell_result}").status == 410  # still withdrawn
    researcher.page.goto(f"/rounds/{ROUND}/changes/")
    changes = researcher.page.locator("main").inner_text()
    assert "Correction" in changes and "version 3" not in changes, changes  # v3 was held, never public

    page.goto(f"/review/results/{story.dell_result}/")
    page.click("#reinstate summary")
    page.fill("#reinstate-form input[name=reason]", "the withdrawal was filed against the wrong result")
    page.click("#reinstate-form button")
    assert researcher.page.goto(f"/r/{story.dell_result}").status == 200
    # Asked again until it shows: a web process reuses the page cache's data version up to
    # DATA_VERSION_SECONDS, so the page read at once may be the one from before (pages/caching.py).
    wait_until(researcher.page, f"/rounds/{ROUND}/changes/",
               lambda: "Reinstatement" in researcher.page.inner_text("main"))
    story.shot(researcher, "researcher-changes")


# --- A researcher cites, downloads and follows ----------------------------------------------------


def test_a_researcher_cites_downloads_and_checks_and_follows_the_feed(story, browser):
    researcher = story.person(browser)  # a private window
    page = researcher.page
    page.goto(f"/r/{story.dell_result}/")  # pasted with a slash after it
    expect(page).to_have_url(re.compile(re.escape(f"/results/{story.dell_result}/") + "$"))
    earlier = story.published_with_the_round  # an earlier version, as published with the round
    assert page.goto(f"/results/{story.dell_result}/v{earlier}/").status == 200
    expect(page.locator("main")).to_contain_text(f"version {earlier}")
    # MLCommons' own entry ids of the sample (inference v4.1, imported with its summary_results ids).
    for pasted in ("4.1-0068", "v4.1-0068"):
        assert page.goto(f"/r/{pasted}").status == 200, pasted
        expect(page.locator("main")).to_contain_text("UntetherAI")
    # The newest snapshot, saved by the browser as its links name them, checks as downloaded: a few
    # files beside SHA256SUMS, and the whole archive unpacked.
    page.goto(f"/rounds/{ROUND}/snapshots/")
    folder = story.tmp / f"downloads-{story.width}"
    folder.mkdir()
    newest = page.locator("section.snapshot").first

    def save(link) -> Path:
        with page.expect_download() as download:
            link.click()
        target = folder / download.value.suggested_filename
        download.value.save_as(target)
        return target

    for name in ("SHA256SUMS", "results.csv", "runs.json"):
        save(newest.locator("tbody a", has_text=re.compile(f"^{re.escape(name)}$")))
    checked = subprocess.run(["sha256sum", "-c", "--ignore-missing", "SHA256SUMS"], cwd=folder, capture_output=True,
                             text=True)
    assert checked.returncode == 0 and checked.stdout.count(": OK") == 2, checked.stdout + checked.stderr
    archive = save(newest.locator("a.download"))
    with tarfile.open(archive) as packed:
        packed.extractall(folder / "unpacked", filter="data")
    [unpacked] = (folder / "unpacked").iterdir()
    checked = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=unpacked, capture_output=True, text=True)
    assert checked.returncode == 0 and "results.json: OK" in checked.stdout, checked.stdout + checked.stderr
    story.shot(researcher, "researcher-snapshots")
    # The round's Atom feed, read in the browser.
    page.goto(f"/rounds/{ROUND}/changes/")
    feed = page.locator("a[href$='changes.atom']").first.get_attribute("href")
    answer = page.goto(feed)
    assert answer.status == 200 and "Reinstatement" in page.content()  # an XML document, styled for people
    save_screenshot(page, SCREENSHOTS / f"researcher-feed-{story.kind}-{story.width}.png")
    shutil.rmtree(folder)


def test_a_verification_request_reaches_the_verification_worker(story, browser):
    """The verification worker make run starts takes the job from the folder broker and runs it in
    its sandbox: Dell's package holds no code, so the job ends saying so (never queued forever)."""
    reviewer = story.person(browser, "reviewer")
    page = reviewer.page
    page.goto(f"/results/{story.helmholtz_result}/")
    page.locator("a[href*='/verify/results/']").first.click()
    page.fill("input[name=runs]", "1")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r"/verify/jobs/\d+/$"))
    wait_until(page, page.url, lambda: page.locator("#outcome").count(), seconds=90)
    expect(page.locator("main")).to_contain_text("a GPU worker took the job")
    story.shot(reviewer, "verification")


def test_every_process_stops(story):
    if isinstance(story.server, EmbeddedServer):
        assert any("verify.gpu_worker" in line for line in story.server.processes())
    story.server.stop()  # Ctrl-C for make run: raises if a process of it is left
