"""Running, as a keyboard and screen-reader user lives it: a refused run keeps the last verdicts and says why
once, a second tab follows the run in flight, the focus never falls to <body>, one announcement per run, the
attempts table scrolls in its own box on a phone, closed rows say that the code printed something."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from tests.browser.browser_support import VERDICT_TIMEOUT_MS, Learner
from tests.browser.test_browser_pages import (
    fake_report,
    open_problem,
    run_tests,
    serve_fake_run,
    type_code,
    wrong_code,
)

pytestmark = pytest.mark.browser

REFUSALS = [
    pytest.param(429, "You can run your code at most 6 times a minute; try again in 3 seconds.", id="rate-limit"),
    pytest.param(503, "The grading queue is full; try again shortly.", id="queue-full"),
    pytest.param(429, "Your previous run is still being graded; wait for its verdict, then run again.",
                 id="still-grading"),
]  # fmt: skip

# Records every non-empty text a live region takes from now on (what a screen reader would announce).
RECORD_ANNOUNCEMENTS_JS = """() => {
    window.announced = [];
    const live = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]';
    const observer = new MutationObserver((records) => {
        for (const record of records) {
            const node = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
            const region = node && node.closest(live);
            const text = region ? region.textContent.trim() : '';
            if (text) window.announced.push(region.id + ': ' + text);
        }
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


def press_run(page: Page) -> None:
    page.focus("#editor .cm-content")
    page.keyboard.press("Control+Enter")


def refuse_next_submission(page: Page, status: int, detail: str, retry_after: int = 3) -> None:
    page.unroute("**/api/problems/moco/submissions")
    page.route(
        "**/api/problems/moco/submissions",
        lambda route: route.fulfill(status=status, headers={"Retry-After": str(retry_after)}, json={"detail": detail}),
    )


def serve_submission_list(page: Page, attempts: list[dict[str, Any]]) -> None:
    def answer(route: Route) -> None:
        if route.request.method == "GET":
            route.fulfill(status=200, json=attempts)
        else:
            route.fallback()

    page.route("**/api/problems/moco/submissions", answer)


@pytest.mark.parametrize(("status", "detail"), REFUSALS)
def test_a_refused_run_keeps_the_last_verdicts_and_says_why_once(learner: Learner, status: int, detail: str) -> None:
    page = learner.page
    open_problem(learner)
    serve_fake_run(page, fake_report(error=None, sandbox="bubblewrap", message="expected 1.0, got 2.0", limit=None))
    run_tests(page)
    summary_before = page.inner_text("#summary")
    rows_before = page.locator(".check").count()
    serve_submission_list(page, [])  # nothing in flight
    refuse_next_submission(page, status, detail)

    press_run(page)
    page.wait_for_selector("#run-message:not(:empty)")
    assert page.inner_text("#summary") == summary_before
    assert page.locator(".check").count() == rows_before
    assert page.inner_text("main").count(detail) == 1, "the reason is said exactly once"
    assert page.inner_text("#run-wait").startswith("You can run again in"), page.inner_text("#run-wait")
    assert page.get_attribute("#run-tests", "aria-disabled") == "true"
    learner.screenshot(f"refused-{status}", full_page=False)
    page.wait_for_function("() => document.getElementById('run-tests').getAttribute('aria-disabled') === 'false'")
    assert page.inner_text("#run-wait") == ""
    assert page.inner_text("#run-message") == ""


def test_a_run_still_grading_elsewhere_is_followed_instead_of_refused(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    serve_fake_run(page, fake_report(error=None, sandbox="bubblewrap", message="expected 1.0, got 2.0", limit=None))
    refuse_next_submission(page, 429, "Your previous run is still being graded; wait for its verdict, then run again.")
    serve_submission_list(page, [{"id": "fake-1", "created_at": "2025-01-01T00:00:00Z", "status": "running",
                                  "passed": None, "total": None, "solved": False}])  # fmt: skip
    press_run(page)
    page.wait_for_selector(".verdict-panel[data-state='done']")
    assert page.locator(".check").count() == 2
    assert page.get_attribute("#summary", "data-tone") == "failed"


def test_a_second_tab_follows_the_run_started_in_the_first(learner: Learner) -> None:
    first = learner.page
    open_problem(learner)
    second = first.context.new_page()
    second.goto(learner.base_url + "/problems/moco")
    second.wait_for_selector("html[data-ready]")
    report = fake_report(error=None, sandbox="bubblewrap", message="expected 1.0, got 2.0", limit=None)
    serve_fake_run(first, report)
    serve_fake_run(second, report)
    run_tests(first)
    second.wait_for_selector(".verdict-panel[data-state='done']", timeout=VERDICT_TIMEOUT_MS)
    assert second.locator(".check").count() == 2
    assert second.inner_text("#summary") == first.inner_text("#summary")


@pytest.mark.parametrize("refused", [pytest.param(False, id="accepted"), pytest.param(True, id="refused")])
def test_pressing_run_keeps_the_focus_on_the_button(learner: Learner, refused: bool) -> None:
    page = learner.page
    open_problem(learner)
    serve_fake_run(page, fake_report(error=None, sandbox="bubblewrap", message="expected 1.0, got 2.0", limit=None))
    if refused:
        serve_submission_list(page, [])
        refuse_next_submission(page, 429, "Slow down.")
    page.focus("#run-tests")
    page.keyboard.press("Enter")
    if refused:
        page.wait_for_selector("#run-message:not(:empty)")
    else:
        page.wait_for_selector(".verdict-panel[data-state='done']")
    assert page.evaluate("() => document.activeElement.id") == "run-tests"


def test_a_run_is_announced_at_its_start_and_once_with_its_summary(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    page.evaluate(RECORD_ANNOUNCEMENTS_JS)
    run_tests(page)
    page.wait_for_function("() => document.getElementById('run-announcer').textContent !== ''")
    page.wait_for_timeout(300)
    announced = page.evaluate("() => window.announced")
    summary = page.inner_text("#summary")
    # Two announcements: the start (heard with the focus in the editor, where the button's "Running…" is not) and
    # the summary; never the rows.
    assert announced == ["run-announcer: Running checks…", f"run-announcer: {summary}"], announced
    assert page.locator(".check").count() > 10
    # No check row sits inside a live region.
    assert page.locator("[aria-live] .check, [role='status'] .check, [role='alert'] .check").count() == 0


def test_closed_rows_say_that_the_code_printed_something(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    report = fake_report(error=None, sandbox="bubblewrap", message="expected 1.0, got 2.0", limit=None)
    checks = report["checks"]
    assert isinstance(checks, list)
    checks[0]["output"] = "tensor([1., 2.])\n"  # a passing check that printed: its row stays closed
    checks[1]["output"] = ""
    serve_fake_run(page, report)
    run_tests(page)
    printed = page.locator(".check", has=page.locator(".badge--output"))
    assert printed.count() == 1
    assert printed.get_attribute("data-check-id") == "moco_loss.hand_example"
    assert printed.locator("details").get_attribute("open") is None, "the row is closed"
    assert printed.locator(".badge--output").text_content() == "printed output"
    page.locator(".verdict-group[data-group='moco_loss'] > summary").click()  # the clean group folds away
    learner.screenshot("printed-output-marker", full_page=False)


def test_the_attempts_table_scrolls_in_its_own_box_on_a_phone(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    run_tests(page)
    page.set_viewport_size({"width": 320, "height": 640})
    learner.goto("/problems/moco/history")
    page_width = page.evaluate("() => document.documentElement.scrollWidth")
    assert page_width <= 320, f"the page scrolls sideways: {page_width} px wide"
    wrap = page.locator(".table-wrap")
    sizes = wrap.evaluate("box => [box.scrollWidth, box.clientWidth, getComputedStyle(box).overflowX]")
    assert sizes[0] > sizes[1], f"the table fits ({sizes}); the test needs one wider than the phone"
    assert sizes[2] == "auto"
    assert wrap.get_attribute("tabindex") == "0", "keyboard users can scroll it"
    learner.screenshot("history-320")


def test_a_solved_run_opens_the_notes_while_its_optional_checks_still_run(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    notes = page.locator("#notes-link")
    assert notes.is_hidden()
    required = {"id": "moco_loss.hand_example", "title": "Hand example", "group": "moco_loss", "required": True,
                "status": "passed", "message": "", "duration_ms": 3.0, "output": ""}  # fmt: skip
    # The stream stops after the verdict, as a live one does while the advisory experiment runs, and does not
    # come back within the test (retry): the page must show what it has.
    events = ("retry: 3600000\n\n"
              f"event: status\ndata: {json.dumps({'status': 'running', 'total': 2})}\n\n"
              f"event: check\ndata: {json.dumps({'check': required, 'done': 1, 'total': 2})}\n\n"
              f"event: verdict\ndata: {json.dumps({'solved': True})}\n\n")
    page.route("**/api/problems/moco/submissions",
               lambda route: route.fulfill(status=202, json={"id": "fake-2", "status": "queued"}))
    page.route("**/api/submissions/fake-2/events",
               lambda route: route.fulfill(status=200, content_type="text/event-stream", body=events))
    page.evaluate(RECORD_ANNOUNCEMENTS_JS)
    press_run(page)
    page.wait_for_function("() => document.getElementById('summary').textContent.startsWith('Solved')",
                           timeout=VERDICT_TIMEOUT_MS)
    learner.screenshot("solved-while-the-experiment-runs")
    assert page.inner_text("#summary") == "Solved: all required checks pass. The optional checks are still running…"
    assert notes.is_visible()
    assert page.locator(".verdict-panel").get_attribute("data-state") == "running"
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.announced")[-1] == f"run-announcer: {page.inner_text('#summary')}"
