"""The Stop button, as a learner meets it: a run whose function loops says which function has been running for
how long, and Stop ends it at once with "stopped by you", long before the call's time limit; the next run is
graded as usual."""

from __future__ import annotations

import time

import pytest

from tests.browser.browser_support import VERDICT_TIMEOUT_MS, Learner
from tests.browser.test_browser_pages import open_problem, reference_code, type_code

pytestmark = pytest.mark.browser

# MoCo's default call limit: a stop must end the run well before it.
CALL_LIMIT_S = 10.0
LOOPING_UPDATE = "\n\ndef momentum_update(query, key, momentum=0.999):\n    while True:\n        key = key + 0\n"


def test_stop_ends_a_looping_run_and_says_it_was_stopped_by_you(learner: Learner) -> None:
    page = learner.page
    open_problem(learner)
    stop = page.locator("#stop-run")
    assert stop.is_hidden(), "Stop is for a run in progress"
    type_code(page, reference_code() + LOOPING_UPDATE)
    page.click("#run-tests")
    page.wait_for_function(
        "() => /momentum_update has been running for \\d+ s/.test(document.getElementById('run-call').textContent)",
        timeout=VERDICT_TIMEOUT_MS,
    )
    learner.screenshot("running-long")
    assert stop.is_visible()
    stopped_at = time.monotonic()
    stop.click()
    page.wait_for_selector(".verdict-panel[data-state='done']", timeout=VERDICT_TIMEOUT_MS)
    seconds = time.monotonic() - stopped_at
    learner.screenshot("stopped")
    summary = page.inner_text("#summary")
    assert summary.startswith("Stopped by you."), summary
    assert seconds < CALL_LIMIT_S - 2, f"the stop took {seconds:.1f} s"
    assert page.inner_text("#run-call") == "" and stop.is_hidden()
    assert page.locator(".check").filter(has_text="stopped by you").count() >= 1

    type_code(page, reference_code())
    page.click("#run-tests")
    page.wait_for_function("() => document.getElementById('summary').textContent.startsWith('Solved')",
                           timeout=VERDICT_TIMEOUT_MS)
