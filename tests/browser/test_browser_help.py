"""Help a learner asks for, in the browser: hints under the statement that open after failed attempts or on
request (after a confirmation), and the reference solution after solving or after giving up."""

from __future__ import annotations

import tomllib

import pytest

from tests.browser.browser_support import Learner
from tests.browser.test_browser_pages import MOCO, open_problem, reference_code, run_tests, type_code, wrong_code

pytestmark = pytest.mark.browser

MOCO_HINTS = tomllib.loads((MOCO / "problem.toml").read_text())["hints"]


def test_a_hint_opens_on_request_after_the_learner_confirms(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    hints = page.locator("#hints .hint")
    assert hints.count() == len(MOCO_HINTS) >= 2
    assert page.locator("#hints .hint--open").count() == 0
    assert MOCO_HINTS[0]["text"] not in page.content(), "a locked hint's text is not in the page"
    page.locator("#hints").scroll_into_view_if_needed()
    learner.screenshot("hints-locked", full_page=False)

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#hints .hint__open")
    page.wait_for_timeout(300)
    assert page.locator("#hints .hint--open").count() == 0, "dismissing the question opens nothing"

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#hints .hint__open")
    page.wait_for_selector("#hints .hint--open")
    first = page.locator("#hints .hint").first
    assert MOCO_HINTS[0]["text"] in first.inner_text()
    assert page.evaluate("() => document.activeElement.classList.contains('hint__text')")
    assert page.get_by_role("button", name="Show hint 2 now").is_visible(), "the next one may be asked for now"
    learner.screenshot("hint-unlocked", full_page=False)
    page.reload()
    page.wait_for_selector("html[data-ready]")
    assert MOCO_HINTS[0]["text"] in page.locator("#hints .hint").first.inner_text(), "recorded on the server"


def test_a_failed_run_unlocks_the_first_hint_without_a_reload(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    run_tests(page)
    page.click("#tab-statement")  # the run turned the left column to its results; the hints are under the statement
    page.wait_for_selector("#hints .hint--open")
    assert MOCO_HINTS[0]["after_attempts"] == 1
    assert MOCO_HINTS[0]["text"] in page.locator("#hints .hint").first.inner_text()


def test_the_solution_opens_after_solving(learner: Learner) -> None:
    page = learner.page
    learner.goto("/problems/moco/solution")
    assert "The solution is locked" in page.inner_text("main")
    assert page.locator("#reveal-solution").count() == 0, "no giving up before three failed attempts"
    open_problem(learner)
    type_code(page, reference_code())
    run_tests(page)
    page.click(".problem-tabs a[href='/problems/moco/solution']")
    page.wait_for_selector("html[data-ready]")
    code = page.locator(".code-view")
    assert "def moco_loss" in code.inner_text()
    assert code.locator(".highlight .k").count() > 10, "the reference is highlighted"
    assert code.locator("[contenteditable], textarea, input").count() == 0, "read-only"
    assert "mistakes" in page.inner_text(".solution__mistakes").lower()
    learner.screenshot("solution-after-solving", full_page=False)


def test_giving_up_after_three_failures_shows_the_solution_and_is_recorded(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    type_code(page, wrong_code())
    for attempt in range(1, 4):
        run_tests(page)
        # The next run starts only once this one's verdict is in (one run in flight per learner); the panel may
        # still show the previous run's "done", so ask the API how many attempts are finished.
        page.wait_for_function(
            """n => fetch('/api/problems/moco/submissions').then(r => r.json())
                   .then(list => list.length >= n && list.every(s => s.status === 'done'))""",
            arg=attempt, polling=250,
        )
    learner.goto("/problems/moco/solution")
    page.click("#reveal-solution")
    page.wait_for_selector(".code-view")
    assert "You gave up" in page.inner_text(".page-header")
    learner.goto("/problems/moco/history")
    assert "You gave up after 3 failed attempts" in page.inner_text("main")
    learner.screenshot("history-after-reveal", full_page=False)
